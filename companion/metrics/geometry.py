r"""Geometry of an embedding space: alignment, uniformity, angles, anisotropy, effective rank, participation ratio.

All functions take ``torch.Tensor`` embeddings (rows = items), validate them (finite, 2-D) and return Python floats
or tensors. Angles are in DEGREES (what the papers plot).

* :func:`alignment`, :func:`uniformity` — Wang & Isola, "Understanding Contrastive Representation Learning through
  Alignment and Uniformity on the Hypersphere", ICML 2020, Eq. (4)-(5); used by SimCSE (Gao et al. 2021, §6) and
  SimACE (Jeong et al. 2024, §5 Eq. 10-11, Figs. 3, 6, 9): :math:`\ell_{align} = E\|f(x) - f(x^+)\|^2` over positive
  pairs (STS-B dev pairs with gold > 4) and :math:`\ell_{uniform} = \log E\, e^{-2\|f(x) - f(y)\|^2}` over all
  pairs of distinct items, both on L2-normalised embeddings. SimACE's Eq. 11 defines the alignment with a log in
  front of the mean (Wang & Isola's Eq. 4 has none); both readings are here, named: :func:`alignment` (the plain
  mean, which our SimACE notebooks report) and :func:`log_alignment` (Eq. 11 as printed).
* :func:`positive_angles`, :func:`mean_negative_angle`, :func:`pairwise_angles` — SimACE §5 (Fig. 4, 5, 7, 8).
* :func:`anisotropy` — mean cosine of random pairs (Ethayarajh 2019, "How contextual are contextualized word
  representations?", §3; SimCSE §6's discussion of anisotropy).
* :func:`effective_rank` — :math:`\exp H(p)`, :math:`p_k = \sigma_k / \sum \sigma` (Roy & Vetterli 2007, "The
  effective rank: a measure of effective dimensionality").
* :func:`participation_ratio` — :math:`(\sum\lambda)^2 / \sum\lambda^2` of the covariance eigenvalues
  (Gao, Trautmann et al. 2017; used for representation dimensionality, e.g. Recanatesi et al. 2019).
"""

from __future__ import annotations

import math

import torch

from companion._checks import check_matrix, check_same_length
from companion.similarities import unit_rows


def _unit(x: torch.Tensor, name: str, min_rows: int = 1) -> torch.Tensor:
    check_matrix(x, name, min_rows)
    return unit_rows(x.double())


def alignment(x: torch.Tensor, y: torch.Tensor, alpha: float = 2.0, normalize: bool = True) -> float:
    r"""Wang & Isola Eq. 4: :math:`E\|f(x) - f(x^+)\|_2^\alpha` over the rows of positive pairs ``(x_i, y_i)``.

    0 for identical pairs; at most :math:`2^\alpha` on the unit sphere (antipodal pairs). Lower is better."""
    check_same_length(x, y, "x", "y")
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0, got {alpha!r}.")
    xu, yu = (_unit(x, "x"), _unit(y, "y")) if normalize else (check_matrix(x, "x").double(),
                                                             check_matrix(y, "y").double())
    return float((xu - yu).norm(dim=1).pow(alpha).mean())


def log_alignment(x: torch.Tensor, y: torch.Tensor, alpha: float = 2.0, normalize: bool = True) -> float:
    r"""SimACE Eq. 11 as printed: :math:`\log E\|f(x) - f(x^+)\|_2^\alpha`, the log of :func:`alignment`.

    :math:`-\infty` for identical pairs (one clear error instead); at most :math:`\alpha \log 2` on the unit sphere.

    >>> import torch
    >>> x = torch.tensor([[1.0, 0.0], [0.0, 1.0]]); y = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    >>> round(log_alignment(x, y), 4)            # every pair at distance sqrt(2): log 2
    0.6931
    """
    plain = alignment(x, y, alpha=alpha, normalize=normalize)
    if plain <= 0:
        raise ValueError("log_alignment() is undefined when every positive pair coincides (alignment 0).")
    return math.log(plain)


def uniformity(x: torch.Tensor, t: float = 2.0, normalize: bool = True) -> float:
    r"""Wang & Isola Eq. 5: :math:`\log E_{i<j}\, e^{-t\|f(x_i) - f(x_j)\|^2}` over distinct rows (``t = 2``).

    :math:`\le 0`, equal to 0 when every row is the same point (collapse); lower (more negative) = more uniform.
    Computed with a log-sum-exp over the :math:`N(N-1)/2` pairs."""
    if not t > 0:
        raise ValueError(f"t must be > 0, got {t!r}.")
    xu = _unit(x, "x", min_rows=2) if normalize else check_matrix(x, "x", 2).double()
    sq = torch.pdist(xu, p=2).pow(2)
    return float(torch.logsumexp(-t * sq, dim=0) - math.log(sq.numel()))


def _angles_deg(cos: torch.Tensor) -> torch.Tensor:
    return torch.rad2deg(torch.arccos(cos.clamp(-1.0, 1.0)))


def positive_angles(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Angle (degrees) between each row of ``x`` and the same row of ``y`` (e.g. two dropout views)."""
    check_same_length(x, y, "x", "y")
    return _angles_deg((_unit(x, "x") * _unit(y, "y")).sum(dim=1))


def mean_positive_angle(x: torch.Tensor, y: torch.Tensor) -> float:
    """Mean angle (degrees) between positive pairs ``(x_i, y_i)`` (SimACE Fig. 4/7 'positive angle')."""
    return float(positive_angles(x, y).mean())


def mean_negative_angle(x: torch.Tensor, y: torch.Tensor | None = None) -> float:
    """Mean angle (degrees) between ``x_i`` and ``y_j`` for ``i != j`` (in-batch negatives; ``y`` defaults to ``x``).
    SimACE Fig. 4/7 'negative angle'."""
    y = x if y is None else y
    return float(pairwise_angles(x, y).mean())


def pairwise_angles(x: torch.Tensor, y: torch.Tensor | None = None) -> torch.Tensor:
    """Angles (degrees) between distinct items, for histograms (SimACE Fig. 5/8).

    ``y=None``: the :math:`N(N-1)/2` pairs ``i < j`` of ``x``. With ``y`` (same length, paired rows): every
    off-diagonal pair ``(x_i, y_j)``, ``i != j``."""
    xu = _unit(x, "x", min_rows=2)
    if y is None:
        iu = torch.triu_indices(xu.shape[0], xu.shape[0], offset=1)
        return _angles_deg((xu @ xu.T)[iu[0], iu[1]])
    check_same_length(x, y, "x", "y")
    yu = _unit(y, "y", min_rows=2)
    off = ~torch.eye(xu.shape[0], dtype=torch.bool)
    return _angles_deg((xu @ yu.T)[off])


def anisotropy(x: torch.Tensor, n_pairs: int | None = None, seed: int = 0) -> float:
    r"""Mean cosine similarity of pairs of distinct rows (Ethayarajh 2019): about 0 for an isotropic distribution,
    close to 1 when every vector points the same way.

    ``n_pairs=None``: the exact mean over all :math:`N(N-1)` ordered pairs,
    :math:`(\|\sum_i \hat x_i\|^2 - N) / (N(N-1))` (O(Nd)); otherwise the mean over ``n_pairs`` random pairs
    ``i != j`` drawn with ``seed``."""
    xu = _unit(x, "x", min_rows=2)
    n = xu.shape[0]
    if n_pairs is None:
        s = xu.sum(dim=0)
        return float((s @ s - n) / (n * (n - 1)))
    if not isinstance(n_pairs, int) or n_pairs < 1:
        raise ValueError(f"n_pairs must be a positive int or None, got {n_pairs!r}.")
    g = torch.Generator().manual_seed(seed)
    i = torch.randint(0, n, (n_pairs,), generator=g)
    j = (i + torch.randint(1, n, (n_pairs,), generator=g)) % n  # uniform over j != i
    return float((xu[i] * xu[j]).sum(dim=1).mean())


def effective_rank(x: torch.Tensor, center: bool = False) -> float:
    r"""Roy & Vetterli (2007): :math:`\exp(-\sum_k p_k \log p_k)` with :math:`p_k = \sigma_k/\sum_j\sigma_j` the
    normalised singular values of ``x`` (optionally column-centred). Between 1 (rank one) and
    :math:`\min(N, d)` (all singular values equal, e.g. orthonormal rows)."""
    check_matrix(x, "x")
    m = x.double()
    if center:
        m = m - m.mean(dim=0, keepdim=True)
    s = torch.linalg.svdvals(m)
    total = s.sum()
    if total <= 0:
        raise ValueError("effective_rank of an all-zero matrix is undefined.")
    p = s / total
    p = p[p > 0]
    return float(torch.exp(-(p * p.log()).sum()))


def participation_ratio(x: torch.Tensor) -> float:
    r""":math:`(\sum_k\lambda_k)^2 / \sum_k\lambda_k^2` of the eigenvalues of the covariance of ``x`` (rows =
    samples): 1 when all variance lies on one axis, ``d`` for isotropic variance in ``d`` dimensions."""
    check_matrix(x, "x", min_rows=2)
    m = x.double() - x.double().mean(dim=0, keepdim=True)
    lam = torch.linalg.svdvals(m).pow(2)  # proportional to covariance eigenvalues; the ratio is scale-free
    denom = lam.pow(2).sum()
    if denom <= 0:
        raise ValueError("participation_ratio of constant rows (zero covariance) is undefined.")
    return float(lam.sum() ** 2 / denom)


def geometry_summary(x: torch.Tensor, y: torch.Tensor | None = None) -> dict[str, float]:
    """One row of numbers for a table: uniformity, anisotropy, effective rank, participation ratio of ``x`` and,
    with paired ``y``, alignment and mean positive/negative angles."""
    out = {"uniformity": uniformity(x), "anisotropy": anisotropy(x), "effective_rank": effective_rank(x),
           "participation_ratio": participation_ratio(x)}
    if y is not None:
        out.update(alignment=alignment(x, y), positive_angle=mean_positive_angle(x, y),
                   negative_angle=mean_negative_angle(x, y))
    return out
