r"""The experiments of the weighted-contrastive-learning notebooks (Vock, Duchesnay & Dufumier, arXiv 2605.13943).

Free-embedding sweeps for Thm. 3.11 (y-Aware) and Thm. 3.12 (X-CLR), the small digit encoder of the §4.1 / §4.3
analogues (an MLP on scikit-learn's 8x8 digits trained with weighted InfoNCE), the kink of a rising curve (Fig. 2's
"transition at q = 9") and X-CLR's closed-form optimum (Thm. 3.12). The metrics live in
:mod:`companion.papers.weighted_cl.distance_geometry`, the free-embedding optimiser beside them in
:mod:`companion.papers.weighted_cl.free_embeddings`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import torch
from scipy.stats import spearmanr
from torch import nn

from companion import stats
from companion._io import cache_key
from companion.losses.weighted import (
    cosine_similarities,
    distance_weights,
    euclidean_similarities,
    weighted_infonce,
    xclr_weights,
    y_aware_weights,
)
from companion.papers.tables import prose_number
from companion.papers.weighted_cl.distance_geometry import delta_w, edm, r2_procrustes, r2_sim
from companion.papers.weighted_cl.free_embeddings import fit_free_embeddings, minimise
from companion.papers.weighted_cl.theorems import numerical_rank
from companion.training import TrainResult, gpu_checkpoint, index_batches, run_profile, seed_everything, train

__all__ = ["yaware_sweep", "xclr_sweep", "digit_mlp", "fit_digit_encoder", "monitor_every", "run_curve",
           "loss_moved", "dev_plateau", "dev_plateau_groups", "lower_bound", "line_fraction", "arc_order",
           "end_of_rise", "xclr_target_embedding",
           "chain_weights", "chain_sequence",
           "sne_distance_slope", "local_global_r2", "pca_sweep", "topk_ridge", "xclr_digit_table",
           "paper_number", "shape_spread"]

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
                      weight_decay: float, hidden: int, desc: str = "train",
                      monitor: Callable[[nn.Module], dict] | None = None, every: int = 0,
                      profile: str | None = None) -> tuple[nn.Module, torch.Tensor, TrainResult]:
    r"""Train :func:`digit_mlp` (output ``q``) on the rows ``train_idx`` of ``X`` with weighted InfoNCE.

    Each step draws a minibatch of ``batch`` training rows (shuffled from ``seed``), takes the sub-matrix of the
    ``n x n`` weights ``W_full`` on those rows and the similarities of their embeddings (``"euclidean"``:
    :math:`s = -\|z_i - z_j\|^2/\tau`; ``"cosine"``: :math:`s = \cos/\tau`); AdamW at constant ``lr``, no clipping.
    The torch RNG is seeded with ``seed`` before the MLP is built. Returns the model, the float64 embeddings of the
    rows ``test_idx`` and the training record (Vock et al. §4.1 and §4.3, digit analogues).

    ``monitor(model)`` (optional) returns a dict of held-out numbers, recorded in the history every ``every`` steps
    (model in eval mode, no gradients): the dev curves the plateau checks read (:func:`dev_plateau`). A run of the
    gpu ``profile`` (the notebook's ``cfg.profile``, handed down) checkpoints under a key of its data and settings
    (:func:`companion.training.gpu_checkpoint`), so that a preempted run resumes there.
    """
    if similarity not in ENCODER_SIMILARITIES:
        raise ValueError(f"similarity must be one of {ENCODER_SIMILARITIES}, got {similarity!r}.")
    if W_full.shape != (len(X), len(X)):
        raise ValueError(f"W_full must be {len(X)} x {len(X)} (one row per image), got {tuple(W_full.shape)}.")
    if monitor is not None and (not isinstance(every, int) or every < 1):
        raise ValueError(f"a monitor needs every >= 1 (steps between its records), got {every!r}.")
    seed_everything(seed)
    model = digit_mlp(q, hidden, n_in=X.shape[1])
    sim = euclidean_similarities if similarity == "euclidean" else cosine_similarities
    idx_train = torch.as_tensor(train_idx)

    def loss_fn(b):
        rows = idx_train[b]
        return weighted_infonce(W_full[rows][:, rows], sim(model(X[rows]), tau))

    batches = index_batches(len(train_idx), batch, seed=seed, epochs=None)
    log_fn = (lambda step: {k: float(v) for k, v in monitor(model).items()}) if monitor is not None else None
    key = _digit_run_key(X, idx_train, W_full, similarity=similarity, q=q, tau=tau, seed=seed, steps=steps,
                         batch=batch, lr=lr, weight_decay=weight_decay, hidden=hidden,
                         monitor_every=every if monitor is not None else 0) if run_profile(profile) == "gpu" else None
    result = train(model, loss_fn, batches, steps=steps, lr=lr, weight_decay=weight_decay, schedule="constant",
                   max_grad_norm=None, desc=desc, progress=False, log_fn=log_fn,
                   log_every=every if monitor is not None else 0, **gpu_checkpoint(key, profile))
    with torch.no_grad():
        Z_test = model(X[torch.as_tensor(test_idx)]).double()
    return model, Z_test, result


def _digit_run_key(*tensors: torch.Tensor, **settings) -> str:
    """The name of a :func:`fit_digit_encoder` run (its checkpoint's): the content of its data and its settings."""
    digest = hashlib.blake2b(digest_size=16)
    for t in tensors:
        t = torch.as_tensor(t).detach().cpu().contiguous()
        digest.update(f"{tuple(t.shape)} {t.dtype}".encode())
        digest.update(t.numpy().tobytes())
    return cache_key({"run": "weighted_cl digit encoder", "data": digest.hexdigest(), **settings}, digest_size=16)


# ---------------------------------------------------------------- validity of the trained runs (companion.stats)
def monitor_every(steps: int, points: int = 10) -> int:
    """Steps between two records of a dev curve, so that a run of ``steps`` steps records about ``points`` of them
    (at least every step: a 3-step smoke run records 3)."""
    if steps < 1 or points < 1:
        raise ValueError(f"steps and points must be positive, got {steps} and {points}.")
    return max(1, steps // points)


def run_curve(results: Sequence[TrainResult], key: str) -> tuple[np.ndarray, np.ndarray]:
    """The steps at which ``key`` was recorded (a ``monitor`` of :func:`fit_digit_encoder`) and its mean over the
    runs ``results`` at each of them (every run must have recorded it at the same steps)."""
    curves = [[(h["step"], h[key]) for h in r.history if key in h] for r in results]
    if not curves or not all(curves):
        raise ValueError(f"no run recorded {key!r}: train with a monitor that returns it.")
    steps = [s for s, _ in curves[0]]
    if any([s for s, _ in c] != steps for c in curves):
        raise ValueError(f"the runs recorded {key!r} at different steps.")
    return np.asarray(steps, dtype=float), np.mean([[v for _, v in c] for c in curves], axis=0)


def _frame(results: Sequence[TrainResult], key: str, run: str):
    """The curve frame (:func:`companion.stats.validity.curve_frame`) of ``key`` over the runs ``results``."""
    rows = [{"run": run, "seed": i, "step": h["step"], "value": h[key]}
            for i, r in enumerate(results) for h in r.history if key in h]
    if not rows:
        raise ValueError(f"no run recorded {key!r}: train with a monitor that returns it.")
    return stats.validity.curve_frame(pd.DataFrame(rows))


def loss_moved(results: Sequence[TrainResult]) -> stats.Validity:
    """``trained``: the one rule of :func:`companion.stats.validity.trained` on each run's training-loss curve (the
    last third differs from the first third by more than two standard errors of the points' own scatter)."""
    if not results:
        raise ValueError("loss_moved() needs at least one training run.")

    rows = [{"run": "training loss", "seed": i, "step": n, "value": h["loss"]}
            for i, r in enumerate(results) for n, h in enumerate([h for h in r.history if "loss" in h])]
    if not rows:
        raise ValueError("a loss curve needs at least 2 steps, got 0.")
    return stats.validity.trained(pd.DataFrame(rows), what="the training loss")


def dev_plateau(results: Sequence[TrainResult], key: str, *, gap: float | None = None,
                what: str | None = None) -> stats.Validity:
    """``plateau`` (:func:`companion.stats.validity.plateau`) of the dev curve ``key``, the claim's own quantity,
    mean over the runs ``results``: the slope over its last third has a CI covering 0, or its gain there is at most
    a quarter of ``gap`` (the compared gap, or the tolerance a level is judged at). It records the way the
    quantity still moves, so a curve moving away from the paper never holds back a result against it."""
    return stats.validity.plateau(_frame(results, key, what or key), what=f"{what or key} ({len(results)} runs)",
                                  gap=gap, claim_metric=True)


def dev_plateau_groups(groups: dict, key: str, *, gap: float | None = None) -> stats.Validity:
    """:func:`dev_plateau` for several configurations at once (``groups``: label -> the runs of one configuration,
    e.g. one q over the seeds): it passes when every configuration's mean curve passes, and names those that fail."""
    if not groups:
        raise ValueError("dev_plateau_groups() needs at least one group of runs.")

    frame = pd.concat([_frame(runs, key, str(label)) for label, runs in groups.items()], ignore_index=True)
    check = stats.validity.plateau(frame, what=f"{key} over {len(groups)} configurations", gap=gap,
                                   claim_metric=True)
    return check


def lower_bound(cmp: stats.Comparison) -> float:
    """The lower end of a comparison's 95 % interval over seeds (its estimate with one seed): a threshold claim on a
    trained quantity is judged on it, so that seed noise cannot lift it over the threshold."""
    return float(cmp.interval[0]) if cmp.interval is not None else float(cmp.estimate)


def line_fraction(Z: np.ndarray) -> float:
    """The fraction of the variance of ``Z`` (one row per point) on its first principal axis: 1 for points on a line
    (Vock et al. §4.3, Fig. 5: the Euclidean embedding of a 1-D label)."""
    Z = np.asarray(Z, np.float64)
    sv = np.linalg.svd(Z - Z.mean(0), compute_uv=False)
    return float(sv[0] ** 2 / (sv ** 2).sum())


def arc_order(Z: np.ndarray, t: np.ndarray) -> dict:
    """How a 2-D embedding orders a 1-D label ``t`` along the circle (Vock et al. §4.3, Fig. 5: y-Aware bends a
    segment into an arc): the rows of ``Z`` are normalised, their angles unwrapped in the order of ``t``, and the
    result is ``|Spearman(angle, t)|`` and the angular span of the arc (radians)."""
    Z, t = np.asarray(Z, np.float64), np.asarray(t, np.float64)
    if Z.ndim != 2 or Z.shape[1] != 2 or len(Z) != len(t):
        raise ValueError(f"arc_order() needs an n x 2 embedding and n labels, got {Z.shape} and {t.shape}.")
    order = np.argsort(t)
    angles = np.unwrap(np.arctan2(Z[order, 1], Z[order, 0]))
    return {"spearman": float(abs(spearmanr(t[order], angles).statistic)),
            "span": float(angles.max() - angles.min())}

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


# ------------------------------------------------------------------------------ Thm. 3.7 in both directions
# --------------------------------------------------------------------- Thm. D.1 (4): a chain of positive weights
def chain_weights(n: int) -> torch.Tensor:
    """Sparse, well-conditioned weights of a path: :math:`w_{i,i+1} = w_{i+1,i} = 1`, every other entry 0."""
    if n < 3:
        raise ValueError(f"a chain needs at least 3 points, got n={n}.")
    W = torch.zeros(n, n, dtype=torch.float64)
    idx = torch.arange(n - 1)
    W[idx, idx + 1] = 1.0
    W[idx + 1, idx] = 1.0
    return W


def chain_sequence(n: int, scales: Sequence[float]) -> pd.DataFrame:
    r"""Vock et al. Thm. D.1 (4) on the chain weights of :func:`chain_weights` with Euclidean similarities
    :math:`s = -\|z_i - z_j\|^2`: the points :math:`z_i = m\,i` on a line, for each scale :math:`m`. Returns the
    entropic gap and the largest :math:`e^{s_{ij}}` over the positive pairs (those with :math:`w_{ij} > 0`).
    The gap tends to 0 while :math:`\exp(S)` tends to the zero matrix; no :math:`cW` with :math:`c > 0` is a limit
    of :math:`\exp(S)` (bounded :math:`d_{i,i+1}` force bounded :math:`d_{i,i+2}`, by the triangle inequality)."""
    W = chain_weights(n)
    rows = []
    for m in scales:
        Z = torch.as_tensor(m * np.arange(n, dtype=np.float64)[:, None])
        S = euclidean_similarities(Z)
        rows.append({"scale m": m, "Delta_W": delta_w(W, S),
                     "max e^s over positive pairs": float(torch.exp(S)[W > 0].max())})
    return pd.DataFrame(rows).set_index("scale m")


# ------------------------------------------------------------------------------------ App. F.2: SNE distances
def sne_distance_slope(X: np.ndarray, sigma: float, q: int, seed: int, steps: int) -> dict:
    r"""Vock et al. App. F.2: SNE with one variance, :math:`w_{ij} = \exp(-\|x_i - x_j\|^2/(2\sigma^2))` and
    :math:`s = -\|z_i - z_j\|^2`, optimised on free embeddings in :math:`\mathbb{R}^q` (float64 L-BFGS).
    Returns the least-squares slope through the origin of :math:`\|z_i - z_j\|` on :math:`\|x_i - x_j\|/\sigma`
    (App. F.2 writes :math:`\|z_i - z_j\| \approx \|x_i - x_j\|/\sigma`; Cor. 3.4 gives :math:`1/\sqrt2`), its
    :math:`r^2`, and the entropic gap."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or sigma <= 0:
        raise ValueError(f"X must be n x p and sigma > 0, got shape {X.shape} and sigma={sigma}.")
    Dx = edm(X)
    fit = fit_free_embeddings(distance_weights(Dx / (2 * sigma**2)), dim=q, similarity="euclidean", seed=seed,
                              steps=steps)
    iu = np.triu_indices(len(X), 1)
    a, b = np.sqrt(Dx[iu]) / sigma, np.sqrt(edm(fit.Z)[iu])
    slope = float(a @ b / (a @ a))
    return {"slope": slope, "r2": float(1 - ((b - slope * a) ** 2).sum() / ((b - b.mean()) ** 2).sum()),
            "Delta_W": fit.delta_w, "rank of X": numerical_rank(X - X.mean(0)), "q": q}


# ------------------------------------------------------------------ Fig. 3(b): local and global Procrustes r2
def local_global_r2(Z: np.ndarray, Y: np.ndarray, classes: np.ndarray) -> dict:
    r"""Global :math:`r^2_\mathrm{Proc}(Z, Y)` over all points and its local counterpart: the mean over classes of
    :math:`r^2_\mathrm{Proc}` within each class, each with its own rigid alignment (Vock et al. §4.1, Fig. 3(b):
    at :math:`q = 2` the mixed-label embedding is isometric within classes but not globally)."""
    Z, Y, classes = np.asarray(Z, np.float64), np.asarray(Y, np.float64), np.asarray(classes)
    if not len(Z) == len(Y) == len(classes):
        raise ValueError(f"Z, Y and classes need one row per point, got {len(Z)}, {len(Y)}, {len(classes)}.")
    local = [r2_procrustes(Z[classes == c], Y[classes == c]) for c in np.unique(classes)
             if (classes == c).sum() >= 3]
    if not local:
        raise ValueError("local r2 needs at least one class with 3 or more points.")
    return {"global r2_Proc": r2_procrustes(Z, Y), "local r2_Proc": float(np.mean(local))}


# ------------------------------------------------------------------------- Fig. 7: PCA vs w-InfoNCE over q
def pca_sweep(X: np.ndarray, qs: Sequence[int], gamma: float, seed: int, steps: int) -> pd.DataFrame:
    r"""Vock et al. App. F, Fig. 7 on free embeddings: for each latent dimension :math:`q`, the w-InfoNCE optimum with
    :math:`w = \exp(-\gamma\|x_i - x_j\|^2)`, :math:`s = -\|z_i - z_j\|^2` (float64 L-BFGS, init ``seed``) against
    PCA with :math:`q` components scaled by :math:`\sqrt\gamma`: :math:`r^2_\mathrm{sim}` (s = minus squared
    distance, Def. 3.15), :math:`r^2_\mathrm{Proc}`, the variance PCA explains and the entropic gap."""
    from sklearn.decomposition import PCA  # noqa: PLC0415 - sklearn is heavy; this module imports without it

    X = np.asarray(X, np.float64)
    W = distance_weights(gamma * edm(X))
    pca = PCA().fit(X)
    coords = pca.transform(X) * math.sqrt(gamma)
    explained = np.cumsum(pca.explained_variance_ratio_)
    rows = []
    for q in qs:
        fit = fit_free_embeddings(W, dim=int(q), similarity="euclidean", seed=seed, steps=steps)
        P = coords[:, : min(int(q), coords.shape[1])]
        rows.append({"q": int(q), "PCA explained variance": float(explained[min(int(q), len(explained)) - 1]),
                     "r2_sim vs PCA": r2_sim(-edm(fit.Z), -edm(P)), "r2_Proc vs PCA": r2_procrustes(fit.Z, P),
                     "Delta_W": fit.delta_w})
    return pd.DataFrame(rows).set_index("q")


# --------------------------------------------------------------- App. E, Table 1: an X-CLR analogue on digits
def topk_ridge(Z_train: np.ndarray, y_train: np.ndarray, Z_test: np.ndarray, y_test: np.ndarray,
               ks: Sequence[int] = (1, 3)) -> dict:
    """Top-k test accuracy (%) of a ridge regression onto one-hot classes, its penalty chosen by cross-validation on
    the training representations (Vock et al. App. E, Table 1's probe)."""
    from sklearn.linear_model import RidgeCV  # noqa: PLC0415 - sklearn is heavy; this module imports without it

    classes = np.unique(y_train)
    onehot = (np.asarray(y_train)[:, None] == classes[None, :]).astype(float)
    scores = RidgeCV(alphas=np.logspace(-4, 3, 15), cv=5).fit(Z_train, onehot).predict(Z_test)
    order = classes[np.argsort(-scores, axis=1)]
    return {f"Top-{k} (%)": float(100 * (order[:, :k] == np.asarray(y_test)[:, None]).any(1).mean()) for k in ks}


def xclr_digit_table(X: torch.Tensor, labels: np.ndarray, train_idx: np.ndarray, test_idx: np.ndarray,
                     geometries: dict, *, q: int, tau: float, tau_prime: float, seeds: Sequence[int], steps: int,
                     batch: int, lr: float, weight_decay: float, hidden: int, every: int = 0,
                     profile: str | None = None) -> tuple[pd.DataFrame, dict[tuple[str, int], TrainResult]]:
    r"""Vock et al. App. E, Table 1's protocol on digits: an MLP encoder (:func:`fit_digit_encoder`) trained with
    X-CLR, :math:`w = e^{\cos(y_i, y_j)/\tau'}` and :math:`s = \cos/\tau`, for each label geometry in
    ``geometries`` (name -> one row per class), and per seed: held-out :math:`r^2_\mathrm{Proc}` against Thm. 3.12's
    target (:func:`xclr_target_embedding`), the held-out entropic gap :math:`\Delta_W` (%), and top-1/top-3
    accuracy of a cross-validated ridge probe fitted on the training representations (:func:`topk_ridge`).

    Returns the table (one row per geometry and seed) and the training records by ``(geometry, seed)``; with
    ``every`` > 0 the same four numbers are recorded every ``every`` steps (the dev curves of :func:`dev_plateau`).
    ``profile`` (the notebook's ``cfg.profile``): the gpu profile's runs checkpoint (:func:`fit_digit_encoder`)."""
    if not 0 < tau <= tau_prime:
        raise ValueError(f"Thm. 3.12's target needs 0 < tau <= tau', got tau={tau}, tau'={tau_prime}.")
    labels = np.asarray(labels)
    X_train, X_test = X[torch.as_tensor(train_idx)], X[torch.as_tensor(test_idx)]
    rows, runs = [], {}
    for name, G in geometries.items():
        G = np.asarray(G, np.float64)
        W_full = xclr_weights(G[labels], tau_prime).float()
        target = xclr_target_embedding(G[labels[test_idx]], tau / tau_prime)
        W_test = xclr_weights(G[labels[test_idx]], tau_prime)

        def metrics(model: nn.Module, target=target, W_test=W_test) -> dict:
            with torch.no_grad():
                Z_train, Z_test = model(X_train).double(), model(X_test).double()
            Zt = Z_test.numpy()
            return {"r2_Proc_test": r2_procrustes(Zt / np.linalg.norm(Zt, axis=1, keepdims=True), target),
                    "Delta_W_test (%)": 100 * delta_w(W_test, cosine_similarities(Z_test, tau)),
                    **topk_ridge(Z_train.numpy(), labels[train_idx], Zt, labels[test_idx])}

        for seed in seeds:
            model, _, result = fit_digit_encoder(X, train_idx, test_idx, q, W_full, "cosine", tau=tau, seed=seed,
                                                 steps=steps, batch=batch, lr=lr, weight_decay=weight_decay,
                                                 hidden=hidden, desc=name, monitor=metrics if every else None,
                                                 every=every, profile=profile)
            rows.append({"Target": name, "seed": seed, **metrics(model)})
            runs[(name, seed)] = result
    return pd.DataFrame(rows), runs


# ------------------------------------------------------------------------------------ the paper's own numbers
def paper_number(quantity_start: str) -> tuple[float, str]:
    """The number the paper prints for the quantity of ``data/weighted-cl/prose.csv`` whose name starts with
    ``quantity_start``, with its source (Vock et al., text and captions): :func:`companion.papers.tables.prose_number`."""
    return prose_number("weighted-cl", quantity_start)


def shape_spread(B: np.ndarray, sizes: Sequence[int]) -> dict:
    """Vock et al. Thm. 3.13 (third part) on a ``C x C`` matrix ``B`` of inter-class cosines: the largest spread
    among blocks of the same shape (unordered pair of class sizes, which the theorem says share one cosine) and the
    spread over all off-diagonal blocks."""
    B, sizes = np.asarray(B, np.float64), np.asarray(sizes)
    if B.shape != (len(sizes), len(sizes)):
        raise ValueError(f"B must be {len(sizes)} x {len(sizes)}, got {B.shape}.")
    groups: dict = {}
    for a in range(len(sizes)):
        for b in range(a + 1, len(sizes)):
            groups.setdefault(tuple(sorted((int(sizes[a]), int(sizes[b])))), []).append(B[a, b])
    within = max((max(v) - min(v)) for v in groups.values() if len(v) > 1) if any(
        len(v) > 1 for v in groups.values()) else float("nan")
    off = B[~np.eye(len(B), dtype=bool)]
    return {"within-shape spread": float(within), "overall spread": float(off.max() - off.min())}


def free_s_optimum(seed: int, n: int, steps: int) -> tuple[dict, torch.Tensor, torch.Tensor]:
    """Thm 3.3's equality condition by optimisation: draw a symmetric weight matrix ``W`` (entries uniform in
    [0.02, 1], ``seed``), minimise :func:`~companion.losses.weighted.weighted_infonce` over the ``n(n-1)/2`` free
    entries of a symmetric ``S`` (float64 L-BFGS, ``steps``), and summarise ``S - log W`` over the pairs: the
    theorem says it is one constant. Returns (summary row, W, the optimal S)."""
    r = np.random.default_rng(seed)
    A = r.uniform(0.02, 1, (n, n))
    W = torch.as_tensor((A + A.T) / 2)
    iu = torch.triu_indices(n, n, 1)

    def symmetric(theta: torch.Tensor) -> torch.Tensor:
        S = torch.zeros(n, n, dtype=torch.float64).index_put((iu[0], iu[1]), theta)
        return S + S.T

    theta, _, iters = minimise(lambda t: weighted_infonce(W, symmetric(t), float64=True),
                               torch.zeros(iu.shape[1], dtype=torch.float64), steps=steps)
    S = symmetric(theta)
    shift = (S - torch.log(W))[iu[0], iu[1]].numpy()
    row = {"seed": seed, "n": n, "iterations": iters, "c (mean of S - log W)": shift.mean(),
           "std of S - log W": shift.std(), "Delta_W": delta_w(W, S)}
    return row, W, S
