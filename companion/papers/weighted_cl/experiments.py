r"""The experiments of the weighted-contrastive-learning notebooks (Vock, Duchesnay & Dufumier, arXiv 2605.13943).

Free-embedding sweeps for Thm. 3.11 (y-Aware) and Thm. 3.12 (X-CLR), the small digit encoder of the §4.1 / §4.3
analogues (an MLP on scikit-learn's 8x8 digits trained with weighted InfoNCE), the kink of a rising curve (Fig. 2's
"transition at q = 9") and X-CLR's closed-form optimum (Thm. 3.12). The metrics live in
:mod:`companion.metrics.distance_geometry`, the free-embedding optimiser in :mod:`companion.free_embeddings`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch
from torch import nn

from companion.free_embeddings import fit_free_embeddings
from companion.losses.weighted import (
    cosine_similarities,
    euclidean_similarities,
    weighted_infonce,
    xclr_weights,
    y_aware_weights,
)
from companion.training import TrainResult, index_batches, seed_everything, train

__all__ = ["yaware_sweep", "xclr_sweep", "digit_mlp", "fit_digit_encoder", "end_of_rise", "xclr_target_embedding"]

ENCODER_SIMILARITIES = ("euclidean", "cosine")


def _offdiag(M: np.ndarray) -> np.ndarray:
    return M[~np.eye(len(M), dtype=bool)]


def yaware_sweep(rng: np.random.Generator, n: int, scales: Sequence[float], tau: float, seed: int, steps: int,
                 dim: int = 3) -> pd.DataFrame:
    r"""Thm. 3.11 (y-Aware, :math:`w = e^{-\|y_i - y_j\|^2}`, :math:`s = \cos/\tau`) on free embeddings.

    For each ``scale`` in ``scales`` two label sets of ``n`` points are fitted (float64 L-BFGS, ``steps``
    iterations, ``dim`` dimensions, init ``seed``): 1-D labels evenly spread on a segment of half-length
    :math:`R = \mathrm{scale}/\sqrt{2\tau}` (not a spherical EDM: the bound is never attained) and 2-D labels on a
    circle of radius :math:`R` at angles drawn from ``rng`` (attained iff scale <= 1, via Thm. 3.8). Returns the
    entropic gap of both, indexed by ``scale R sqrt(2 tau)``. ``rng`` is consumed in the order of ``scales``.
    """
    if n < 2:
        raise ValueError(f"need at least 2 labels, got n={n}.")
    rows = []
    for scale in scales:
        R = scale / math.sqrt(2 * tau)
        line = np.linspace(-R, R, n)[:, None]
        theta = rng.uniform(0, 2 * np.pi, n)
        circle = R * np.c_[np.cos(theta), np.sin(theta)]
        f_line = fit_free_embeddings(y_aware_weights(line), dim=dim, tau=tau, seed=seed, steps=steps)
        f_circ = fit_free_embeddings(y_aware_weights(circle), dim=dim, tau=tau, seed=seed, steps=steps)
        rows.append({"scale R sqrt(2 tau)": scale, "line: Delta_W": f_line.delta_w, "circle: Delta_W": f_circ.delta_w})
    return pd.DataFrame(rows).set_index("scale R sqrt(2 tau)")


def xclr_sweep(labels: np.ndarray, tau_prime: float, ratios: Sequence[float], seed: int, steps: int,
               dim: int = 6) -> pd.DataFrame:
    r"""Thm. 3.12 (X-CLR, :math:`w = e^{\cos(y_i, y_j)/\tau'}`, :math:`s = \cos/\tau`) on free embeddings.

    For each ``ratio`` = τ/τ′ the free embeddings of ``labels`` (``n x k``) are fitted at τ = ratio · ``tau_prime``
    (float64 L-BFGS in ``dim`` dimensions, init ``seed``). Returns, indexed by ``tau / tau'``, the entropic gap and
    the largest deviation of the optimum's cosines from Thm. 3.12's
    :math:`\cos(z_i, z_j) = (\tau/\tau')\cos(y_i, y_j) + 1 - \tau/\tau'` (exact for ratio <= 1 only).
    """
    labels = np.asarray(labels, dtype=np.float64)
    if labels.ndim != 2:
        raise ValueError(f"labels must be an n x k array, got shape {labels.shape}.")
    yn = labels / np.linalg.norm(labels, axis=1, keepdims=True)
    rows = []
    for ratio in ratios:
        f = fit_free_embeddings(xclr_weights(labels, tau_prime), dim=dim, tau=ratio * tau_prime, seed=seed,
                                steps=steps)
        target = ratio * yn @ yn.T + 1 - ratio
        rows.append({"tau / tau'": ratio, "Delta_W": f.delta_w,
                     "max |cos − formula|": np.abs(_offdiag(f.Z @ f.Z.T - target)).max()})
    return pd.DataFrame(rows).set_index("tau / tau'")


def digit_mlp(q: int, hidden: int = 256, n_in: int = 64) -> nn.Module:
    """The §4.1 / §4.3 analogues' encoder: MLP ``n_in -> hidden -> hidden -> q`` with ReLUs (the paper trains a
    ConvNet on MNIST; 8x8 digits have ``n_in = 64`` pixels)."""
    if q < 1 or hidden < 1:
        raise ValueError(f"q and hidden must be positive, got q={q}, hidden={hidden}.")
    return nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, q))


def fit_digit_encoder(X: torch.Tensor, train_idx: np.ndarray, test_idx: np.ndarray, q: int, W_full: torch.Tensor,
                      similarity: str, *, tau: float = 1.0, seed: int = 0, steps: int, batch: int, lr: float,
                      weight_decay: float, hidden: int, desc: str = "train"
                      ) -> tuple[nn.Module, torch.Tensor, TrainResult]:
    r"""Train :func:`digit_mlp` (output ``q``) on the rows ``train_idx`` of ``X`` with weighted InfoNCE.

    Each step draws a minibatch of ``batch`` training rows (shuffled from ``seed``), takes the sub-matrix of the
    ``n x n`` weights ``W_full`` on those rows and the similarities of their embeddings (``"euclidean"``:
    :math:`s = -\|z_i - z_j\|^2/\tau`; ``"cosine"``: :math:`s = \cos/\tau`); AdamW at constant ``lr``, no clipping.
    The torch RNG is seeded with ``seed`` before the MLP is built. Returns the model, the float64 embeddings of the
    rows ``test_idx`` and the training record (Vock et al. §4.1 and §4.3, digit analogues).
    """
    if similarity not in ENCODER_SIMILARITIES:
        raise ValueError(f"similarity must be one of {ENCODER_SIMILARITIES}, got {similarity!r}.")
    if W_full.shape != (len(X), len(X)):
        raise ValueError(f"W_full must be {len(X)} x {len(X)} (one row per image), got {tuple(W_full.shape)}.")
    seed_everything(seed)
    model = digit_mlp(q, hidden, n_in=X.shape[1])
    sim = euclidean_similarities if similarity == "euclidean" else cosine_similarities
    idx_train = torch.as_tensor(train_idx)

    def loss_fn(b):
        rows = idx_train[b]
        return weighted_infonce(W_full[rows][:, rows], sim(model(X[rows]), tau))

    batches = index_batches(len(train_idx), batch, seed=seed, epochs=None)
    result = train(model, loss_fn, batches, steps=steps, lr=lr, weight_decay=weight_decay, schedule="constant",
                   max_grad_norm=None, desc=desc, progress=False)
    with torch.no_grad():
        Z_test = model(X[torch.as_tensor(test_idx)]).double()
    return model, Z_test, result


def end_of_rise(curve: pd.Series) -> int:
    """The index (e.g. the dimension q) where a curve rising along its index stops rising: the point with the
    largest drop from the increase into it to the increase out of it (the kink of Fig. 2's "rises up to a transition
    at q = 9", §4.1). Needs at least three points; returns -1 for fewer (no interior point)."""
    inc = np.diff(curve.values)
    if len(inc) < 2:
        return -1
    return int(curve.index[1:-1][np.argmax(inc[:-1] - inc[1:])])


def xclr_target_embedding(Y: np.ndarray, ratio: float) -> np.ndarray:
    r"""Thm. 3.12's X-CLR optimum for labels ``Y`` (one row per sample) at ``ratio`` = τ/τ′ <= 1:
    :math:`z^*_i = (\sqrt{\tau/\tau'}\,\hat y_i,\ \sqrt{1 - \tau/\tau'})`, unit rows whose cosines are
    :math:`(\tau/\tau')\cos(y_i, y_j) + 1 - \tau/\tau'` (App. E, the targets of Fig. 6)."""
    if not 0 < ratio <= 1:
        raise ValueError(f"ratio tau/tau' must lie in (0, 1] (the bound is attained only there), got {ratio}.")
    Y = np.asarray(Y, dtype=np.float64)
    Yn = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    return np.hstack([math.sqrt(ratio) * Yn, math.sqrt(1 - ratio) * np.ones((len(Y), 1))])
