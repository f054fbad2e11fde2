r"""Free-embedding optimisation: one free vector per sample, no encoder — the setting in which the theorems of
Vock, Duchesnay & Dufumier (arXiv 2605.13943, §3 and §4.2) are exact statements about the optimum.

>>> W = soft_supcon_weights(labels, eps=math.exp(-1))
>>> fit = fit_free_embeddings(W, dim=10, similarity="cosine", tau=0.5)            # float64 L-BFGS
>>> fit.delta_w, fit.Z
>>> fit = fit_free_embeddings(W, dim=10, tau=0.1, method="adam", lr=5e-2, steps=3000)  # the paper's §4.2 setup

Two optimisers: ``"lbfgs"`` (float64, strong-Wolfe line search, restarts of ``max_iter`` iterations until the
loss stops changing — for the theorem checks to 1e-8) and ``"adam"`` (full batch, constant LR, float32 by
default — the paper's §4.2 protocol, Adam 5e-2). For the cosine similarity the rows of ``Z`` are free (the loss is
scale-invariant per row); the returned ``Z`` is row-normalised.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from companion._checks import check_temperature
from companion.losses.core import contrastive_nll
from companion.losses.weighted import (
    check_weights,
    cosine_similarities,
    entropic_bound,
    entropic_gap,
    euclidean_similarities,
    weighted_infonce,
)

__all__ = ["FreeEmbeddingFit", "fit_free_embeddings", "minimise", "SIMILARITIES"]

SIMILARITIES = ("cosine", "euclidean")


@dataclass
class FreeEmbeddingFit:
    Z: np.ndarray                 # (n, dim) optimum (unit rows for the cosine similarity)
    loss: float                   # L^W at the optimum (float64)
    bound: float                  # H(p_W)
    history: list[float] = field(default_factory=list)
    iterations: int = 0

    @property
    def delta_w(self) -> float:
        """Entropic gap L/H - 1 (raises when H = 0)."""
        return entropic_gap(self.loss, self.bound)


def minimise(loss_fn: Callable[[torch.Tensor], torch.Tensor], X0: torch.Tensor, method: str = "lbfgs",
             steps: int = 500, lr: float | None = None, tol: float = 1e-15, progress: bool = False,
             desc: str = "free embeddings") -> tuple[torch.Tensor, list[float], int]:
    """Minimise ``loss_fn(X)`` over the tensor ``X`` from ``X0``.

    ``lbfgs``: ``steps`` is the maximal number of L-BFGS iterations (in rounds of 100, stopping when a round
    changes the loss by less than ``tol`` relative). ``adam``: ``steps`` full-batch Adam steps at ``lr``.
    Returns ``(X, loss history, iterations)``.
    """
    if method not in {"lbfgs", "adam"}:
        raise ValueError(f"method must be 'lbfgs' or 'adam', got {method!r}.")
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}.")
    X = X0.detach().clone().requires_grad_(True)
    history: list[float] = []
    if method == "adam":
        opt = torch.optim.Adam([X], lr=5e-2 if lr is None else lr)
        for _ in tqdm(range(steps), desc=desc, disable=not progress, leave=False):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(X)
            loss.backward()
            opt.step()
            history.append(float(loss.detach()))
        return X.detach(), history, steps

    round_iters = min(100, steps)
    opt = torch.optim.LBFGS([X], lr=1 if lr is None else lr, max_iter=round_iters, tolerance_grad=1e-14,
                            tolerance_change=1e-16, history_size=50, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(X)
        loss.backward()
        return loss

    done, prev = 0, None
    bar = tqdm(total=steps, desc=desc, disable=not progress, leave=False)
    while done < steps:
        opt.step(closure)
        n_iter = int(opt.state[opt._params[0]].get("n_iter", 0))
        bar.update(max(0, min(n_iter, steps) - done))
        ran = n_iter - done
        done = n_iter
        with torch.no_grad():
            value = float(loss_fn(X))
        history.append(value)
        if ran < round_iters or (prev is not None and abs(prev - value) <= tol * max(1.0, abs(value))):
            break
        prev = value
    bar.close()
    return X.detach(), history, done


def fit_free_embeddings(W, dim: int, similarity: str = "cosine", tau: float = 1.0, method: str = "lbfgs",
                        steps: int | None = None, lr: float | None = None, seed: int = 0,
                        init: torch.Tensor | np.ndarray | None = None, dtype: torch.dtype | None = None,
                        progress: bool = False) -> FreeEmbeddingFit:
    r"""Minimise the weighted InfoNCE :math:`L^W` (Vock et al., Def. 3.1) over free embeddings
    :math:`Z\in\mathbb{R}^{n\times d}`.

    Args:
        W: ``(n, n)`` symmetric non-negative weights (see :mod:`companion.losses.weighted`).
        dim: embedding dimension :math:`d` (the paper's :math:`q`).
        similarity: ``"cosine"`` (:math:`s = \cos/\tau`) or ``"euclidean"`` (:math:`s = -\|z_i-z_j\|^2/\tau`).
        method: ``"lbfgs"`` (float64 by default) or ``"adam"`` (float32 by default; paper §4.2: lr 5e-2).
        steps: L-BFGS iterations (default 3000) or Adam steps (default 2000).
        init: starting point (default: standard normal from ``seed``).
    """
    W = check_weights(W)
    if similarity not in SIMILARITIES:
        raise ValueError(f"similarity must be one of {SIMILARITIES}, got {similarity!r}.")
    tau = check_temperature(tau)
    if not isinstance(dim, int) or isinstance(dim, bool) or dim < 1:
        raise ValueError(f"dim must be a positive int, got {dim!r}.")
    dtype = dtype or (torch.float64 if method == "lbfgs" else torch.float32)
    steps = steps or (3000 if method == "lbfgs" else 2000)
    n = W.shape[0]
    if init is None:
        gen = torch.Generator().manual_seed(int(seed))
        X0 = torch.randn(n, dim, generator=gen, dtype=torch.float64).to(dtype)
    else:
        X0 = torch.as_tensor(np.asarray(init) if not isinstance(init, torch.Tensor) else init).to(dtype)
        if X0.shape != (n, dim):
            raise ValueError(f"init must have shape {(n, dim)}, got {tuple(X0.shape)}.")
    # W is validated once; inside the loop the shared core is called directly (same maths as weighted_infonce).
    mask = ~torch.eye(n, dtype=torch.bool)
    Wt = W.to(dtype).masked_fill(~mask, 0)

    def objective(X):
        if similarity == "cosine":
            Xn = X / X.norm(dim=1, keepdim=True)
            S = Xn @ Xn.T / tau
        else:  # squared distances from the Gram matrix: O(n^2 d) without the (n, n, d) difference tensor
            sq = (X * X).sum(1)
            S = -(sq[:, None] + sq[None, :] - 2 * X @ X.T) / tau
        return contrastive_nll(S, Wt, denominator_mask=mask)

    X, history, iters = minimise(objective, X0, method=method, steps=steps, lr=lr, progress=progress,
                                 desc=f"{method} {similarity} d={dim}")
    X = X.to(torch.float64)
    if similarity == "cosine":
        X = X / X.norm(dim=1, keepdim=True)
    S = cosine_similarities(X, tau) if similarity == "cosine" else euclidean_similarities(X, tau)
    loss = float(weighted_infonce(W, S, float64=True))
    return FreeEmbeddingFit(X.numpy(), loss, float(entropic_bound(W)), history, iters)
