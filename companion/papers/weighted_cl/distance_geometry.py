r"""Distance geometry for weighted contrastive learning — Vock, Duchesnay & Dufumier, arXiv 2605.13943.

* EDM utilities (App. B, Lemmas B.1–B.2): :func:`edm`, :func:`gram_from_edm` (:math:`-\tfrac12 JDJ`),
  :func:`is_edm` (Schoenberg: :math:`D` is an EDM iff :math:`-\tfrac12 JDJ \succeq 0`), :func:`classical_mds`
  (the realisation, unique up to isometry), :func:`spherical_radius` / :func:`is_spherical_edm` (a realisation on a
  sphere, and its smallest radius), :func:`spherical_realisation` (unit vectors with
  :math:`\cos(z_i, z_j) = 1 - \tau d_{ij}`, Thm. 3.8).
* Metrics (§3.9): :func:`delta_w` (entropic gap :math:`\Delta_W = L^W/H(p_W) - 1`), :func:`r2_sim` (similarity
  :math:`r^2` over all pairs), :func:`r2_procrustes` (:math:`r^2` after the best orthogonal map plus translation,
  ``scipy.linalg.orthogonal_procrustes``).
* The reduced Hard-SupCon prototype problem (Thm. 3.13, App. D): with collapsed classes the loss depends only on
  the :math:`C\times C` Gram matrix :math:`G` of unit prototypes,
  :math:`L(G) = \frac1n\sum_c n_c\,[\log((n_c-1)e^{1/\tau} + \sum_{c'\ne c} n_{c'} e^{G_{cc'}/\tau}) - 1/\tau]`,
  convex in :math:`G` over the correlation matrices: :func:`supcon_prototype_loss`, :func:`solve_supcon_prototypes`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from companion._checks import check_temperature
from companion.losses.weighted import entropic_bound, entropic_gap, weighted_infonce

__all__ = [
    "edm", "gram_from_edm", "is_edm", "embedding_dimension", "classical_mds", "spherical_radius",
    "is_spherical_edm", "spherical_realisation", "delta_w", "r2_sim", "r2_procrustes", "random_isometry",
    "block_cosines", "class_prototypes", "supcon_prototype_loss", "solve_supcon_prototypes", "PrototypeSolution",
]


def _np(x, name="matrix") -> np.ndarray:
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().to(torch.float64).numpy()
    arr = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or Inf values.")
    return arr


def _square(D, name="D") -> np.ndarray:
    D = _np(D, name)
    if D.ndim != 2 or D.shape[0] != D.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {D.shape}.")
    return D


# --------------------------------------------------------------------------------------------- EDMs
def edm(Z) -> np.ndarray:
    r"""Squared Euclidean distance matrix :math:`d_{ij} = \|z_i - z_j\|^2` of the rows of ``Z``."""
    Z = _np(Z, "Z")
    if Z.ndim != 2:
        raise ValueError(f"Z must be 2-D (points x dims), got shape {Z.shape}.")
    diff = Z[:, None, :] - Z[None, :, :]
    return (diff**2).sum(-1)


def gram_from_edm(D) -> np.ndarray:
    r"""Centred Gram matrix :math:`G = -\tfrac12 J D J`, :math:`J = I - \tfrac1n 11^\top` (App. B)."""
    D = _square(D)
    n = D.shape[0]
    J = np.eye(n) - np.ones((n, n)) / n
    G = -0.5 * J @ D @ J
    return (G + G.T) / 2


def _structure_ok(D: np.ndarray, tol: float) -> bool:
    scale = max(1.0, float(np.abs(D).max()))
    return (np.allclose(D, D.T, atol=tol * scale, rtol=0) and np.allclose(np.diag(D), 0, atol=tol * scale)
            and bool((D >= -tol * scale).all()))


def is_edm(D, tol: float = 1e-9) -> bool:
    r"""Schoenberg's test (Lemma B.1): symmetric, zero diagonal, non-negative, and :math:`-\tfrac12JDJ \succeq 0`
    (smallest eigenvalue :math:`\ge -\text{tol}\cdot\max|D|`)."""
    D = _square(D)
    if not _structure_ok(D, tol):
        return False
    scale = max(1.0, float(np.abs(D).max()))
    return bool(np.linalg.eigvalsh(gram_from_edm(D)).min() >= -tol * scale)


def embedding_dimension(D, tol: float = 1e-9) -> int:
    """The smallest dimension of a realisation of the EDM ``D`` (rank of the centred Gram matrix)."""
    ev = np.linalg.eigvalsh(gram_from_edm(D))
    scale = max(1.0, float(np.abs(ev).max()))
    return int((ev > tol * scale).sum())


def classical_mds(D, dim: int | None = None, strict: bool = True, tol: float = 1e-9) -> np.ndarray:
    r"""Classical MDS (Torgerson): points :math:`X` with :math:`\|x_i - x_j\|^2 = d_{ij}`, centred, from the top
    eigenpairs of :math:`-\tfrac12JDJ` (the realisation of Lemma B.2, unique up to isometry).

    Args:
        dim: output dimension (default: the embedding dimension); extra columns are zeros.
        strict: raise if ``D`` is not an EDM (otherwise negative eigenvalues are clipped: the best PSD fit).
    """
    D = _square(D)
    if strict and not is_edm(D, tol):
        raise ValueError("D is not a Euclidean distance matrix (-1/2 JDJ has a negative eigenvalue or D is not "
                         "symmetric/hollow/non-negative); pass strict=False for the best PSD approximation.")
    ev, V = np.linalg.eigh(gram_from_edm(D))
    order = np.argsort(ev)[::-1]
    ev, V = np.clip(ev[order], 0, None), V[:, order]
    k = embedding_dimension(D, tol) if dim is None else int(dim)
    if k < 1:
        k = 1
    X = V[:, : min(k, len(ev))] * np.sqrt(ev[: min(k, len(ev))])
    if X.shape[1] < k:
        X = np.hstack([X, np.zeros((X.shape[0], k - X.shape[1]))])
    return X


def spherical_radius(D, tol: float = 1e-8) -> float | None:
    r"""Smallest radius of a sphere through a realisation of the EDM ``D`` (inf if none: e.g. three distinct
    collinear points), from the MDS realisation: solve :math:`2x_i^\top c + t = \|x_i\|^2` by least squares, then
    :math:`R^2 = t + \|c\|^2`. A realisation on a sphere of radius :math:`R` also lies on any sphere of radius
    :math:`\ge R` one dimension up."""
    D = _square(D)
    if not is_edm(D, max(tol, 1e-9)):
        raise ValueError("D is not a Euclidean distance matrix.")
    X = classical_mds(D, strict=False)
    A = np.hstack([2 * X, np.ones((len(X), 1))])
    b = (X**2).sum(1)
    sol, *_ = np.linalg.lstsq(A, b, rcond=None)
    resid = A @ sol - b
    scale = max(1.0, float(np.abs(D).max()))
    if np.abs(resid).max() > tol * scale * 10:
        return float("inf")
    c, t = sol[:-1], sol[-1]
    return float(np.sqrt(max(t + c @ c, 0.0)))


def is_spherical_edm(D, radius: float | None = None, tol: float = 1e-8) -> bool:
    """True when ``D`` is an EDM with a realisation on a sphere (of radius ``radius`` if given; by lifting, any
    radius at least the smallest one works)."""
    try:
        R = spherical_radius(D, tol)
    except ValueError:
        return False
    if not np.isfinite(R):
        return False
    return True if radius is None else bool(R <= radius * (1 + tol))


def spherical_realisation(D, tau: float, dim: int | None = None, tol: float = 1e-9) -> np.ndarray:
    r"""Unit vectors with :math:`\cos(z_i, z_j) = 1 - \tau d_{ij}` (Thm. 3.8), from the Gram matrix
    :math:`G = 11^\top - \tau D`; raises if :math:`G` is not PSD (i.e. :math:`2\tau D` is not a spherical EDM of
    radius :math:`\le 1`, equivalently :math:`D` not of radius :math:`\le 1/\sqrt{2\tau}`)."""
    tau = check_temperature(tau)
    D = _square(D)
    n = D.shape[0]
    G = np.ones((n, n)) - tau * D
    ev, V = np.linalg.eigh((G + G.T) / 2)
    if ev.min() < -tol * max(1.0, float(np.abs(ev).max())):
        raise ValueError(f"cos = 1 - tau*d is not realisable on the unit sphere (Gram eigenvalue {ev.min():.3g} < 0):"
                         f" D is not a spherical EDM of radius <= 1/sqrt(2 tau) = {1 / np.sqrt(2 * tau):.4g}.")
    order = np.argsort(ev)[::-1]
    ev, V = np.clip(ev[order], 0, None), V[:, order]
    k = int((ev > tol * max(1.0, ev.max())).sum()) if dim is None else int(dim)
    Z = V[:, :k] * np.sqrt(ev[:k])
    return Z / np.linalg.norm(Z, axis=1, keepdims=True)


# --------------------------------------------------------------------------------------------- metrics
def delta_w(W, S) -> float:
    r"""Entropic gap :math:`\Delta_W = L^W(S)/H(p_W) - 1 \ge 0` (Vock et al. §3.9), in float64."""
    return entropic_gap(weighted_infonce(W, S, float64=True), entropic_bound(W))


def r2_sim(S, S_star) -> float:
    r"""Similarity :math:`r^2 = 1 - \mathrm{mean}[(s_{ij} - s^*_{ij})^2]/\mathrm{var}[s^*_{ij}]` over all pairs
    :math:`i<j` (Vock et al. §3.9). ``S`` and ``S_star`` are ``(n, n)`` similarity matrices (same similarity)."""
    S, S_star = _square(S, "S"), _square(S_star, "S_star")
    if S.shape != S_star.shape:
        raise ValueError(f"S and S_star must have the same shape, got {S.shape} and {S_star.shape}.")
    iu = np.triu_indices(S.shape[0], k=1)
    s, t = S[iu], S_star[iu]
    var = t.var()
    if var <= 0:
        raise ValueError("r2_sim is undefined: the target similarities have zero variance.")
    return float(1 - np.mean((s - t) ** 2) / var)


def r2_procrustes(Z, Z_star) -> float:
    r"""Procrustes :math:`r^2 = 1 - \min_{\Omega, b}\mathrm{mean}_i\|\Omega z_i + b - z^*_i\|^2/\mathrm{var}(z^*)`,
    :math:`\Omega` orthogonal, :math:`\mathrm{var}(z^*) = \mathrm{mean}_i\|z^*_i - \bar z^*\|^2` (Vock et al. §3.9).
    Solved by centring (optimal :math:`b`) and ``scipy.linalg.orthogonal_procrustes``; the smaller dimension is
    zero-padded (an isometric embedding)."""
    from scipy.linalg import orthogonal_procrustes  # noqa: PLC0415 - scipy is heavy; this module imports without it

    Z, Zs = _np(Z, "Z"), _np(Z_star, "Z_star")
    if Z.ndim != 2 or Zs.ndim != 2:
        raise ValueError(f"Z and Z_star must be 2-D, got shapes {Z.shape} and {Zs.shape}.")
    if Z.shape[0] != Zs.shape[0]:
        raise ValueError(f"Z and Z_star must have the same number of points: {Z.shape[0]} vs {Zs.shape[0]}.")
    d = max(Z.shape[1], Zs.shape[1])
    Z = np.pad(Z, ((0, 0), (0, d - Z.shape[1])))
    Zs = np.pad(Zs, ((0, 0), (0, d - Zs.shape[1])))
    Zc, Zsc = Z - Z.mean(0), Zs - Zs.mean(0)
    var = (Zsc**2).sum(1).mean()
    if var <= 0:
        raise ValueError("r2_procrustes is undefined: the target points are all equal (zero variance).")
    R, _ = orthogonal_procrustes(Zc, Zsc)
    return float(1 - ((Zc @ R - Zsc) ** 2).sum(1).mean() / var)


def random_isometry(Z, seed: int = 0, translate: bool = True) -> np.ndarray:
    """``Z`` after a random orthogonal map (QR of a Gaussian matrix) and a random translation."""
    Z = _np(Z, "Z")
    rng = np.random.default_rng(seed)
    Q, R = np.linalg.qr(rng.standard_normal((Z.shape[1], Z.shape[1])))
    Q = Q * np.sign(np.diag(R))
    return Z @ Q + (rng.standard_normal(Z.shape[1]) if translate else 0)


# --------------------------------------------------------------------------------------------- class geometry
def _labels_index(labels):
    labels = np.asarray(labels.detach().cpu() if isinstance(labels, torch.Tensor) else labels)
    classes, idx = np.unique(labels, return_inverse=True)
    return classes, idx


def block_cosines(Z, labels) -> tuple[np.ndarray, np.ndarray]:
    r"""Mean cosine between the samples of classes :math:`c, c'` (``(C, C)``; the diagonal averages distinct pairs
    of a class) and the smallest intra-class cosine per class."""
    Z = _np(Z, "Z")
    classes, idx = _labels_index(labels)
    Zn = Z / np.linalg.norm(Z, axis=1, keepdims=True)
    cos = Zn @ Zn.T
    onehot = np.eye(len(classes))[idx]
    sums = onehot.T @ cos @ onehot
    counts = onehot.sum(0)
    pairs = np.outer(counts, counts) - np.diag(counts)  # exclude self-pairs on the diagonal
    sums = sums - np.diag(onehot.T @ np.diag(cos))  # remove the self-pairs (cos_ii = 1)
    blocks = sums / pairs
    mask = idx[:, None] == idx[None, :]
    np.fill_diagonal(mask, False)
    intra_min = np.array([cos[(idx[:, None] == c) & mask].min() for c in range(len(classes))])
    return blocks, intra_min


def class_prototypes(Z, labels, normalize: bool = True) -> np.ndarray:
    """Class means of the (unit-normalised if ``normalize``) rows of ``Z``, in sorted class order."""
    Z = _np(Z, "Z")
    if normalize:
        Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
    classes, idx = _labels_index(labels)
    onehot = np.eye(len(classes))[idx]
    return (onehot.T @ Z) / onehot.sum(0)[:, None]


# --------------------------------------------------------------------------------------------- prototypes
def _check_sizes(sizes) -> np.ndarray:
    sizes = np.asarray(sizes)
    if sizes.ndim != 1 or len(sizes) < 2:
        raise ValueError(f"class sizes must be a 1-D list of at least 2 classes, got {sizes!r}.")
    if not np.issubdtype(sizes.dtype, np.integer) or (sizes < 2).any():
        raise ValueError(f"every class needs an integer size >= 2 (a positive pair), got {sizes.tolist()}.")
    return sizes


def supcon_prototype_loss(G, sizes, tau: float) -> torch.Tensor:
    r"""Hard SupCon loss of collapsed classes with unit prototypes of Gram matrix ``G`` (Vock et al., App. D):
    :math:`\frac1n\sum_c n_c[\log((n_c - 1)e^{1/\tau} + \sum_{c'\ne c} n_{c'}e^{G_{cc'}/\tau}) - 1/\tau]`."""
    tau = check_temperature(tau)
    sizes = _check_sizes(sizes)
    G = G if isinstance(G, torch.Tensor) else torch.as_tensor(np.asarray(G, dtype=np.float64))
    C = len(sizes)
    if G.shape != (C, C):
        raise ValueError(f"G must be {C} x {C} for {C} classes, got {tuple(G.shape)}.")
    n = torch.as_tensor(sizes, dtype=G.dtype)
    logits = G / tau + torch.log(n)[None, :]
    own = torch.log(n - 1) + 1.0 / tau
    logits = torch.where(torch.eye(C, dtype=torch.bool), own[:, None].expand(C, C), logits)
    per_class = torch.logsumexp(logits, dim=1) - 1.0 / tau
    return (n * per_class).sum() / n.sum()


@dataclass
class PrototypeSolution:
    gram: np.ndarray          # C x C Gram matrix of unit prototypes (cosines)
    prototypes: np.ndarray    # C x C unit prototypes (rows)
    loss: float               # optimal loss of the reduced problem
    iterations: int


def solve_supcon_prototypes(sizes, tau: float, seed: int = 0, max_iter: int = 2000,
                            tol: float = 1e-15) -> PrototypeSolution:
    r"""Solve the reduced Hard-SupCon prototype problem (Vock et al., Thm. 3.13 / App. D) over unit prototypes
    :math:`\mu_c \in \mathbb{R}^C` (full rank, so every correlation matrix is reachable; the objective is convex in
    :math:`G = MM^\top`) with float64 L-BFGS."""
    tau = check_temperature(tau)
    sizes = _check_sizes(sizes)
    C = len(sizes)
    gen = torch.Generator().manual_seed(seed)
    M = torch.randn(C, C, dtype=torch.float64, generator=gen).requires_grad_(True)
    opt = torch.optim.LBFGS([M], lr=1, max_iter=max_iter, tolerance_grad=1e-13, tolerance_change=tol,
                            history_size=50, line_search_fn="strong_wolfe")

    def gram():
        U = M / M.norm(dim=1, keepdim=True)
        return U @ U.T

    def closure():
        opt.zero_grad()
        loss = supcon_prototype_loss(gram(), sizes, tau)
        loss.backward()
        return loss

    for _ in range(5):
        opt.step(closure)
    with torch.no_grad():
        G = gram()
        U = M / M.norm(dim=1, keepdim=True)
        loss = float(supcon_prototype_loss(G, sizes, tau))
    iters = opt.state[opt._params[0]].get("n_iter", 0)
    return PrototypeSolution(G.numpy(), U.detach().numpy(), loss, int(iters))
