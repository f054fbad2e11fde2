r"""Similarity functions shared by the papers (pairwise over rows, or all-pairs matrices).

* :func:`cosine` / :func:`cosine_matrix` — the baseline every paper argues against.
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

from ._checks import check_finite

ANGLE_EPS = 1e-6


def cosine(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Row-wise cosine of two ``(N, d)`` tensors."""
    check_finite(x, "x")
    check_finite(y, "y")
    return F.cosine_similarity(x, y, dim=-1, eps=1e-12)


def cosine_matrix(x: torch.Tensor, y: torch.Tensor | None = None) -> torch.Tensor:
    """All-pairs cosine ``(N, M)`` between rows of ``x`` and rows of ``y`` (default ``x``)."""
    check_finite(x, "x")
    y = x if y is None else check_finite(y, "y")
    return F.normalize(x, dim=-1, eps=1e-12) @ F.normalize(y, dim=-1, eps=1e-12).T


def cos_to_angle(cos: torch.Tensor, eps: float = ANGLE_EPS) -> torch.Tensor:
    r"""SimACE Eq. 7: :math:`\theta = \pi/2 - \arccos(c)` with ``c`` clamped to keep gradients finite."""
    return math.pi / 2 - torch.arccos(cos.clamp(-1 + eps, 1 - eps))


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
    a, b = x.chunk(2, dim=-1)
    c, d = y.chunk(2, dim=-1)
    re = (a * c + b * d).sum(-1)
    im = (b * c - a * d).sum(-1)
    norms = x.norm(dim=-1) * y.norm(dim=-1)
    return ((re + im) / norms.clamp_min(1e-12)).abs()
