r"""Similarity functions shared by the papers (pairwise over rows, or all-pairs matrices).

* :func:`cosine` / :func:`cosine_matrix` — the baseline every paper argues against; :func:`unit_rows` and
  :func:`row_scale`, the overflow-safe normalisation they rest on.
* :func:`angle` / :func:`angle_matrix` — SimACE's angle similarity (SimACE Eq. 7),
  :math:`\theta = \pi/2 - \arccos(\cos(z_i, z_j)) = \arcsin(\cos)`, in :math:`[-\pi/2, \pi/2]`.
  The cosine is clamped to :math:`[-1+\epsilon, 1-\epsilon]` so that the gradient
  :math:`1/\sqrt{1-x^2}` stays finite for identical or antipodal vectors.
* :func:`complex_angle` — AnglE's angle similarity as the authors' code and sentence-transformers'
  ``pairwise_angle_sim`` compute it: each 2D-vector is a D-dim complex vector (real half, imaginary half) and
  :math:`s(u, v) = |\cos(u, v) + \cos(u, Jv)|` with :math:`J` the 90° rotation in every complex plane
  (AnglE Eq. 3–6, "code reading"; see ``notebooks/angle/01-cosine-saturation-and-angle``).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from companion._checks import check_finite

ANGLE_EPS = 1e-6


def row_scale(x: torch.Tensor) -> torch.Tensor:
    """Largest ``|entry|`` of every row (1 for an all-zero row), detached: dividing by it is exact for any
    scale-invariant function of the row and keeps squares of huge (1e30) or tiny (1e-30) entries in range (used by
    :func:`unit_rows`, :func:`complex_angle` and AnglE's :func:`companion.losses.angle.eq6_atan2`)."""
    scale = x.detach().abs().amax(dim=-1, keepdim=True)
    return torch.where(scale > 0, scale, torch.ones_like(scale))


def unit_rows(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    """Rows scaled to unit L2 norm, exact for any norm the dtype can hold; an all-zero row stays zero.

    ``F.normalize`` alone overflows for norms above ~1e19 in float32 (the square is inf, so the row becomes 0)
    and divides by ``eps`` instead of the norm below 1e-12 (the row is then not unit). Rows are first divided by
    their largest ``|entry|`` (a detached constant: normalisation is scale invariant, so values and gradients are
    unchanged), which puts the norm in ``[1, sqrt(d)]``."""
    return F.normalize(x / row_scale(x), dim=-1, eps=eps)


def _same_dim(x: torch.Tensor, y: torch.Tensor) -> None:
    if x.dim() == 0 or y.dim() == 0 or x.shape[-1] != y.shape[-1]:
        raise ValueError(f"x and y must have the same embedding dimension (last axis), got shapes {tuple(x.shape)} "
                         f"and {tuple(y.shape)}.")


def cosine(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Row-wise cosine of two ``(N, d)`` tensors (0 where a row is all zero)."""
    check_finite(x, "x")
    check_finite(y, "y")
    _same_dim(x, y)
    try:
        torch.broadcast_shapes(x.shape, y.shape)
    except RuntimeError:
        raise ValueError(f"x and y must have the same number of rows, got shapes {tuple(x.shape)} and "
                         f"{tuple(y.shape)}.") from None
    return row_cosine(x, y)


def row_cosine(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """:func:`cosine` without its input checks, for callers that have already validated ``x`` and ``y`` (finite,
    same shape), e.g. the CoSENT loss on a checked pair batch: the checks would read the data a second time."""
    return (unit_rows(x) * unit_rows(y)).sum(dim=-1)


def cosine_matrix(x: torch.Tensor, y: torch.Tensor | None = None) -> torch.Tensor:
    """All-pairs cosine ``(N, M)`` between rows of ``x`` and rows of ``y`` (default ``x``)."""
    check_finite(x, "x")
    y = x if y is None else check_finite(y, "y")
    if x.dim() != 2 or y.dim() != 2:
        raise ValueError(f"cosine_matrix needs 2-D (rows x dim) tensors, got shapes {tuple(x.shape)} and "
                         f"{tuple(y.shape)}.")
    _same_dim(x, y)
    return unit_rows(x) @ unit_rows(y).T


def clamp_cos(cos: torch.Tensor, eps: float = ANGLE_EPS) -> torch.Tensor:
    """Clamp cosines to ``[-1 + e, 1 - e]`` with ``e = max(eps, finfo(dtype).eps)`` so that arccos/arcsin have a
    finite gradient at ``|cos| = 1``; in bfloat16 ``1 - 1e-6`` rounds to 1, hence the dtype's resolution."""
    if cos.is_floating_point():
        eps = max(eps, float(torch.finfo(cos.dtype).eps))
    return cos.clamp(-1 + eps, 1 - eps)


def cos_to_angle(cos: torch.Tensor, eps: float = ANGLE_EPS) -> torch.Tensor:
    r"""SimACE Eq. 7: :math:`\theta = \pi/2 - \arccos(c)` with ``c`` clamped (:func:`clamp_cos`) to keep gradients
    finite."""
    return math.pi / 2 - torch.arccos(clamp_cos(cos, eps))


def angle(x: torch.Tensor, y: torch.Tensor, eps: float = ANGLE_EPS) -> torch.Tensor:
    """Row-wise SimACE angle similarity (radians)."""
    return cos_to_angle(cosine(x, y), eps)


def angle_matrix(x: torch.Tensor, y: torch.Tensor | None = None, eps: float = ANGLE_EPS) -> torch.Tensor:
    """All-pairs SimACE angle similarity (radians)."""
    return cos_to_angle(cosine_matrix(x, y), eps)


def complex_angle(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    r"""Row-wise AnglE angle similarity, :math:`|\cos(u, v) + \cos(u, Jv)|` (range ``[0, \sqrt 2]``).

    With :math:`u = a + ib`, :math:`v = c + id` (first/second halves), :math:`\mathrm{Re}\,u\bar v = a c + b d`
    and :math:`\mathrm{Im}\,u\bar v = b c - a d`; summing both parts over the D complex components and dividing
    by :math:`\|u\|\|v\|` gives the expression above. Raises on an odd dimension (no silent padding).
    """
    check_finite(x, "x")
    check_finite(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same shape, got {tuple(x.shape)} and {tuple(y.shape)}.")
    if x.shape[-1] % 2:
        raise ValueError(
            f"The angle objective splits embeddings into real and imaginary halves; dimension {x.shape[-1]} is odd."
        )
    x, y = x / row_scale(x), y / row_scale(y)  # scale invariant in x and in y: avoids overflow of the products
    a, b = x.chunk(2, dim=-1)
    c, d = y.chunk(2, dim=-1)
    re = (a * c + b * d).sum(-1)
    im = (b * c - a * d).sum(-1)
    norms = x.norm(dim=-1) * y.norm(dim=-1)
    return ((re + im) / norms.clamp_min(1e-12)).abs()
