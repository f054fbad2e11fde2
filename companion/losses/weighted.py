r"""Weighted InfoNCE as distance geometry — Vock, Duchesnay & Dufumier, "A Unified Geometric Framework for
Weighted Contrastive Learning", arXiv 2605.13943 (2026).

The objective (Def. 3.1) over a symmetric non-negative weight matrix :math:`W` and a symmetric similarity matrix
:math:`S` (self-pairs excluded everywhere):

.. math::  L^W(S) = -\frac1n \sum_i \sum_{j\ne i} P_{ij}\,
           \log\frac{e^{s_{ij}}}{\sum_{k\ne i} e^{s_{ik}}},\qquad P_{ij} = \frac{w_{ij}}{\sum_{k\ne i} w_{ik}}

(the denominator includes the positives). It is the cross-entropy between the rows of :math:`P` and the softmax
rows of :math:`S`, hence the *entropic bound* (Thm. 3.3)

.. math::  L^W \ge H(p_W) = -\frac1n \sum_{i\ne j} P_{ij}\log P_{ij},

with equality iff :math:`s_{ij} = \log w_{ij} + c` for one global constant :math:`c`.

Everything here only *prepares* weights, logits and masks; the loss itself is the shared core
:func:`companion.losses.core.contrastive_nll` (self-pairs removed through ``denominator_mask``).

Weight builders (all return an ``(n, n)`` matrix with a zero diagonal):

==========================  ====================================================================
:func:`supcon_weights`      SupCon: :math:`w_{ij} = 1[y_i = y_j]`
:func:`soft_supcon_weights` Soft SupCon: 1 for the same class, :math:`\varepsilon` otherwise
:func:`y_aware_weights`     y-Aware: :math:`\exp(-\gamma\|y_i - y_j\|^2)` (paper: :math:`\gamma = 1`)
:func:`xclr_weights`        X-CLR: :math:`\exp(\cos(y_i, y_j)/\tau')`
:func:`euclidean_weights`   Euclidean–Euclidean: :math:`\exp(-\gamma\|y_i - y_j\|^2)`, used with
                            :math:`s = -\|z_i - z_j\|^2`
:func:`distance_weights`    :math:`\exp(-d_{ij})` from any dissimilarity matrix :math:`D` (Cor. 3.4)
==========================  ====================================================================

Similarities: :func:`cosine_similarities` (:math:`s = \cos/\tau`) and :func:`euclidean_similarities`
(:math:`s = -\|z_i - z_j\|^2/\tau`, paper: :math:`\tau = 1`).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from companion._checks import check_finite, check_matrix, check_temperature
from companion.losses.core import contrastive_nll
from companion.similarities import unit_rows

__all__ = [
    "check_weights", "weighted_infonce", "entropic_bound", "entropic_gap", "target_probabilities",
    "supcon_weights", "soft_supcon_weights", "y_aware_weights", "xclr_weights", "euclidean_weights",
    "distance_weights", "cosine_similarities", "euclidean_similarities", "hard_supcon_optimal_loss",
    "soft_supcon_beta", "soft_supcon_simplex_tau", "soft_supcon_simplex_tau_paper",
]


# --------------------------------------------------------------------------------------------- validation
def _as_tensor(x, dtype=None) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x.to(dtype) if dtype is not None else x
    try:
        arr = np.asarray(x)
    except Exception:  # pragma: no cover
        raise TypeError(f"expected a tensor or array, got {type(x).__name__}") from None
    if arr.dtype == object:
        raise TypeError("expected a numeric tensor or array.")
    return torch.as_tensor(arr, dtype=dtype if dtype is not None else torch.float64)


def check_weights(W, name: str = "W", atol: float = 1e-12) -> torch.Tensor:
    """A weight matrix must be square, finite, symmetric, non-negative, and every row (off the diagonal) must
    carry some weight. The diagonal is ignored (self-pairs never enter the loss). Returns ``W`` as a tensor."""
    W = _as_tensor(W)
    if not W.is_floating_point():
        W = W.to(torch.float64)
    check_finite(W, name)
    if W.dim() != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"{name} must be a square (n x n) matrix, got shape {tuple(W.shape)}.")
    if W.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 samples, got {W.shape[0]}.")
    if bool(W.min() < 0):
        raise ValueError(f"{name} must be non-negative (weights are similarities, not distances).")
    if not torch.equal(W, W.T):  # exact symmetry (every builder here) needs no tolerance test
        scale = float(W.abs().max()) or 1.0
        if not torch.allclose(W, W.T, atol=atol * scale, rtol=0):
            raise ValueError(f"{name} must be symmetric (max |W - W^T| = {float((W - W.T).abs().max()):.3g}).")
    # Off-diagonal row sums without a masked copy: sum - diagonal is exactly 0 when the off-diagonal part is 0
    # (adding zeros is exact); a row it flags is re-checked exactly below.
    suspect = bool((W.sum(dim=1) - W.diagonal() <= 0).any())
    empty = torch.zeros(0, dtype=torch.long)
    if suspect:
        off = W.masked_fill(torch.eye(W.shape[0], dtype=torch.bool, device=W.device), 0)
        empty = (off.sum(dim=1) <= 0).nonzero().flatten()
    if len(empty):
        raise ValueError(f"row {int(empty[0])} of {name} sums to 0 off the diagonal: that sample has no positive "
                         f"(P_ij undefined). {len(empty)} such row(s).")
    return W


def _check_pair(W, S) -> tuple[torch.Tensor, torch.Tensor]:
    W = check_weights(W)
    S = _as_tensor(S)
    check_finite(S, "S")
    if S.shape != W.shape:
        raise ValueError(f"S and W must have the same shape, got S {tuple(S.shape)} and W {tuple(W.shape)}.")
    return W, S


def _offdiag(n: int, device=None) -> torch.Tensor:
    return ~torch.eye(n, dtype=torch.bool, device=device)


# --------------------------------------------------------------------------------------------- the loss
def target_probabilities(W) -> torch.Tensor:
    r""":math:`P_{ij} = w_{ij}/\sum_{k\ne i} w_{ik}` with :math:`P_{ii} = 0` (Vock et al., Def. 3.1)."""
    W = check_weights(W)
    off = W.masked_fill(~_offdiag(W.shape[0], W.device), 0)
    return off / off.sum(dim=1, keepdim=True)


def weighted_infonce(W, S, float64: bool = False, reduction: str = "mean") -> torch.Tensor:
    r"""Weighted InfoNCE :math:`L^W(S)` (Vock et al., Def. 3.1), self-pairs excluded, positives in the denominator.

    Args:
        W: ``(n, n)`` symmetric non-negative weights (diagonal ignored); every row needs some off-diagonal weight.
        S: ``(n, n)`` similarities (logits, already divided by any temperature); diagonal ignored.
        float64: compute in float64 (theorem checks: bound identities to 1e-10).
        reduction: ``"mean"`` (the paper's :math:`1/n`), ``"sum"`` or ``"none"`` (per anchor).

    Built on :func:`companion.losses.core.contrastive_nll` with ``positives = W`` (off-diagonal) and
    ``denominator_mask = ~eye``.
    """
    W, S = _check_pair(W, S)
    dtype = torch.float64 if float64 else (S.dtype if S.is_floating_point() else torch.float32)
    S = S.to(dtype)
    W = W.to(dtype=dtype, device=S.device)
    mask = _offdiag(S.shape[0], S.device)
    if bool(W.diagonal().any()):  # the builders already return a zero diagonal; skip the masked copy then
        W = W.masked_fill(~mask, 0)
    return contrastive_nll(S, W, denominator_mask=mask, reduction=reduction)


def entropic_bound(W, float64: bool = True) -> torch.Tensor:
    r"""The entropic lower bound :math:`H(p_W) = -\frac1n\sum_{i\ne j} P_{ij}\log P_{ij}` (Vock et al., Thm. 3.3),
    with :math:`0\log 0 = 0`."""
    W = check_weights(W)
    if float64:
        W = W.to(torch.float64)
    P = target_probabilities(W)
    logP = torch.where(P > 0, P.clamp_min(torch.finfo(P.dtype).tiny).log(), torch.zeros_like(P))
    return -(P * logP).sum(dim=1).mean()


def entropic_gap(loss, bound) -> float:
    r"""Entropic gap :math:`\Delta_W = L^W / H(p_W) - 1` (Vock et al., §3.9). Undefined (error) when
    :math:`H(p_W) = 0`, e.g. Hard SupCon with two samples per class."""
    loss, bound = float(loss), float(bound)
    if not (math.isfinite(loss) and math.isfinite(bound)):
        raise ValueError(f"Delta_W needs finite L and H, got L={loss!r}, H={bound!r}.")
    if abs(bound) <= 1e-300:
        raise ValueError("Delta_W is undefined: the entropic bound H(p_W) is 0 (every anchor has one positive, "
                         "e.g. Hard SupCon with 2 samples per class).")
    return loss / bound - 1.0


# --------------------------------------------------------------------------------------------- weights
def _labels_1d(y, name="labels") -> torch.Tensor:
    y = _as_tensor(y)
    if y.dim() != 1:
        raise ValueError(f"{name} must be 1-D (one class per sample), got shape {tuple(y.shape)}.")
    if len(y) < 2:
        raise ValueError(f"{name} need at least 2 samples, got {len(y)}.")
    return y


def _labels_2d(y, name="labels") -> torch.Tensor:
    y = _as_tensor(y)
    if not y.is_floating_point():
        y = y.to(torch.float64)
    if y.dim() == 1:
        y = y[:, None]
    check_matrix(y, name, min_rows=2)
    return y


def _zero_diag(W: torch.Tensor) -> torch.Tensor:
    W = W.clone()  # a copy plus a strided write of n entries: cheaper than an eye mask and a masked copy
    W.diagonal().zero_()
    return W


def supcon_weights(labels, dtype=torch.float64) -> torch.Tensor:
    r"""Hard SupCon weights :math:`w_{ij} = 1[y_i = y_j]`, :math:`i \ne j` (Khosla et al. 2020; Vock et al.
    §3.5). Every class needs at least 2 samples."""
    y = _labels_1d(labels)
    W = (y[:, None] == y[None, :]).to(dtype)
    W = _zero_diag(W)
    if bool((W.sum(1) == 0).any()):
        raise ValueError("SupCon weights need at least 2 samples in every class (a singleton has no positive).")
    return W


def soft_supcon_weights(labels, eps: float, dtype=torch.float64) -> torch.Tensor:
    r"""Soft SupCon weights: 1 for the same class, :math:`\varepsilon \in (0, 1)` otherwise (Vock et al., §3.5,
    Cor. 3.9)."""
    if not (isinstance(eps, (int, float)) and 0 < eps < 1):
        raise ValueError(f"eps must be in (0, 1), got {eps!r}.")
    y = _labels_1d(labels)
    same = y[:, None] == y[None, :]
    W = torch.where(same, torch.ones((), dtype=dtype), torch.full((), float(eps), dtype=dtype))
    return _zero_diag(W)


def _sq_dists(y: torch.Tensor) -> torch.Tensor:
    return ((y[:, None, :] - y[None, :, :]) ** 2).sum(-1)


def y_aware_weights(y, gamma: float = 1.0) -> torch.Tensor:
    r"""y-Aware weights :math:`w_{ij} = \exp(-\gamma\|y_i - y_j\|^2)` (Dufumier et al. 2021; Vock et al. §3.6,
    Thm. 3.11; the paper uses :math:`\gamma = 1`), to be used with :math:`s = \cos/\tau`."""
    gamma = check_temperature(gamma, "gamma")
    return _zero_diag(torch.exp(-gamma * _sq_dists(_labels_2d(y))))


def euclidean_weights(y, gamma: float = 1.0) -> torch.Tensor:
    r"""Euclidean–Euclidean weights :math:`w_{ij} = \exp(-\gamma\|y_i - y_j\|^2)` (Vock et al. §3.6, Thm. 3.10),
    to be used with :math:`s = -\|z_i - z_j\|^2`; the optimum is :math:`Z^* = (\sqrt\gamma\,y, 0, \dots)`."""
    return y_aware_weights(y, gamma)


def xclr_weights(y, tau_prime: float) -> torch.Tensor:
    r"""X-CLR weights :math:`w_{ij} = \exp(\cos(y_i, y_j)/\tau')` (Sobal et al. 2024; Vock et al. Thm. 3.12)."""
    tau_prime = check_temperature(tau_prime, "tau_prime")
    y = _labels_2d(y)
    if bool((y.norm(dim=1) == 0).any()):
        raise ValueError("X-CLR labels must be non-zero vectors (the cosine of a zero vector is undefined).")
    yn = y / y.norm(dim=1, keepdim=True)
    return _zero_diag(torch.exp((yn @ yn.T).clamp(-1, 1) / tau_prime))


def distance_weights(D) -> torch.Tensor:
    r"""Weights :math:`w_{ij} = \exp(-d_{ij})` from a symmetric non-negative dissimilarity matrix (Vock et al.,
    Cor. 3.4–3.5: attaining the bound then means :math:`\|z_i - z_j\|^2 = d_{ij}` or
    :math:`\cos(z_i, z_j) = 1 - \tau d_{ij}`)."""
    D = _as_tensor(D)
    if not D.is_floating_point():
        D = D.to(torch.float64)
    check_finite(D, "D")
    if D.dim() != 2 or D.shape[0] != D.shape[1]:
        raise ValueError(f"D must be a square matrix, got shape {tuple(D.shape)}.")
    if bool((D < 0).any()):
        raise ValueError("D must be non-negative.")
    if not torch.allclose(D, D.T, atol=1e-12 * (float(D.abs().max()) or 1.0), rtol=0):
        raise ValueError("D must be symmetric.")
    return _zero_diag(torch.exp(-D))


# --------------------------------------------------------------------------------------------- similarities
def cosine_similarities(Z: torch.Tensor, tau: float) -> torch.Tensor:
    r"""Spherical latent similarity :math:`s_{ij} = \cos(z_i, z_j)/\tau` (Vock et al. §3.2)."""
    tau = check_temperature(tau)
    check_matrix(Z, "Z", min_rows=2)
    if bool((Z == 0).all(dim=1).any()):
        raise ValueError("Z has a zero row; its cosine similarity is undefined.")
    Zn = unit_rows(Z)
    return (Zn @ Zn.T) / tau


def euclidean_similarities(Z: torch.Tensor, tau: float = 1.0) -> torch.Tensor:
    r"""Euclidean latent similarity :math:`s_{ij} = -\|z_i - z_j\|^2/\tau` (Vock et al. §3.6–3.7, :math:`\tau=1`).

    Computed from differences (not the Gram expansion) so that it is exact for nearby points."""
    tau = check_temperature(tau)
    check_matrix(Z, "Z", min_rows=2)
    return -((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1) / tau


# --------------------------------------------------------------------------------------------- closed forms
def hard_supcon_optimal_loss(n_classes: int, per_class: int, tau: float) -> float:
    r"""Optimal balanced Hard SupCon loss (Vock et al., Thm. 3.13 / App. D): collapsed classes on a regular
    simplex, :math:`L^* = \log[(\ell-1) + (C-1)\ell\,\exp(-C/((C-1)\tau))]`."""
    tau = check_temperature(tau)
    C, ell = int(n_classes), int(per_class)
    if C < 2 or ell < 2:
        raise ValueError(f"need C >= 2 classes and >= 2 samples per class, got C={C}, l={ell}.")
    return math.log((ell - 1) + (C - 1) * ell * math.exp(-C / ((C - 1) * tau)))


def soft_supcon_beta(tau: float, eps: float) -> float:
    r"""Soft SupCon inter-class cosine at the optimum, :math:`\beta = 1 + \tau\log\varepsilon` (Vock et al.,
    Cor. 3.9), whatever the class sizes (attainable iff :math:`\beta \ge -1/(C-1)`)."""
    tau = check_temperature(tau)
    if not 0 < eps < 1:
        raise ValueError(f"eps must be in (0, 1), got {eps!r}.")
    return 1.0 + tau * math.log(eps)


def soft_supcon_simplex_tau(n_classes: int, eps: float) -> float:
    r"""The temperature at which Soft SupCon's optimum is the regular simplex
    (:math:`\beta = -1/(C-1)`): :math:`\tau^* = C/((C-1)(-\log\varepsilon))` — our correction of Cor. 3.9."""
    C = int(n_classes)
    if C < 2 or not 0 < eps < 1:
        raise ValueError(f"need C >= 2 and eps in (0, 1), got C={C}, eps={eps!r}.")
    return C / ((C - 1) * (-math.log(eps)))


def soft_supcon_simplex_tau_paper(n_classes: int, eps: float) -> float:
    r"""The paper's printed simplex temperature :math:`\tau^* = (C-1)/(-C\log\varepsilon)` (Cor. 3.9, erratum:
    it gives :math:`\beta = 1/C`, not :math:`-1/(C-1)`)."""
    C = int(n_classes)
    if C < 2 or not 0 < eps < 1:
        raise ValueError(f"need C >= 2 and eps in (0, 1), got C={C}, eps={eps!r}.")
    return (C - 1) / (-C * math.log(eps))
