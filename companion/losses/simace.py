r"""SimCSE, ArcCon, SimACE and RBF: unsupervised in-batch contrastive losses that differ ONLY in their logits.

Paper: Jeong, Han & Chae, "A Simple Angle-based Approach for Contrastive Learning of Unsupervised Sentence
Representation" (SimACE), Findings of EMNLP 2024, pp. 5553-5572 (aclanthology 2024.findings-emnlp.318; reviewed
as an anonymous ACL submission, no code released).

Given two dropout views ``z1 = f(x)``, ``z2 = f'(x)`` of a batch of ``N`` sentences, anchor ``i`` has one positive
(``i'``, the diagonal) and ``N - 1`` in-batch negatives ``j'``. Every loss below builds an ``N x N`` logit matrix and
calls the shared core :func:`companion.losses.core.contrastive_nll` with the identity as positives (denominator =
all ``N`` candidates, positive included):

=========  =======================================================  ===============================================
loss       positive logit (diagonal)                                 negative logit (off-diagonal)
=========  =======================================================  ===============================================
SimCSE     :math:`\cos(z_i, z'_i)/\tau`                              :math:`\cos(z_i, z'_j)/\tau`   (SimACE Eq. 1)
ArcCon     :math:`\cos(\phi_{ii'} + m)/\tau`                         :math:`\cos\phi_{ij'}/\tau`  (ArcCSE, Zhang et
                                                                                                 al. ACL 2022)
SimACE     :math:`(\theta_{ii'} - m)/\tau`                           :math:`\theta_{ij'}/\tau`    (SimACE Eq. 9)
RBF        :math:`\varphi(z'_i; z_i)/\tau`                            :math:`\varphi(z'_j; z_i)/\tau`  (SimACE Eq. 15,
                                                                                                 App. F)
=========  =======================================================  ===============================================

with :math:`\phi = \arccos\cos` the angle between two vectors and :math:`\theta = \pi/2 - \phi = \arcsin\cos`
(SimACE Eq. 7, :func:`companion.similarities.cos_to_angle`, range :math:`[-\pi/2, \pi/2]`). With ``m = 0`` SimACE
is Eq. 8 (InfoNCE on angles). Margins are in DEGREES, as Table 7 gives them (the paper's §4.2 says "10 (radians)").
A 10-rad margin (573 deg) is refused: with angles confined to :math:`[-\pi/2, \pi/2]` it puts every positive logit
below every negative one, so it no longer acts as a margin; the loss then becomes the decoupled contrastive loss
plus the constant :math:`m/\tau`, which still trains (the errata notebook ``synthesis/00-errata`` shows it).

§3's gradient argument (Eq. 2-6) is analysed in :mod:`companion.papers.simace.synthetic` (``softmax_gradient``,
``similarity_derivative``, ``pair_forces``, the last through :func:`logits_from_angles`, the logit formulas this
module trains with).

RBF (App. F, Table 11) replaces the similarity by the Gaussian kernel of Eq. 15,
:math:`\varphi(x) = \exp(-\|x - c\|^2 / 2\sigma^2)`, centred on the anchor (:math:`c = z_i`) and evaluated at every
candidate of the other view (:math:`x = z'_j`, the positive included). See :func:`rbf_logits` for the two decisions
the paper leaves open (how :math:`\varphi` becomes a logit, and whether embeddings are normalised).
"""

from __future__ import annotations

import math

import torch

from companion._checks import check_matrix, check_temperature
from companion.losses.core import contrastive_nll
from companion.similarities import ANGLE_EPS, clamp_cos, cosine_matrix

OBJECTIVES = ("simcse", "arccon", "simace", "rbf")
DEFAULT_MARGIN_DEG = {"simcse": 0.0, "arccon": 10.0, "simace": 10.0, "rbf": 0.0}


def check_sigma(sigma: float) -> float:
    """RBF's kernel width σ (Eq. 15): a finite number > 0."""
    if isinstance(sigma, torch.Tensor):
        sigma = float(sigma)
    if not isinstance(sigma, (int, float)) or isinstance(sigma, bool) or not math.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma (the RBF kernel width, Eq. 15) must be a finite number > 0, got {sigma!r}.")
    return float(sigma)


def check_margin(margin_deg: float) -> float:
    """A margin in degrees strictly inside (-90, 90); returns it in radians."""
    if isinstance(margin_deg, torch.Tensor):
        margin_deg = float(margin_deg)
    if (not isinstance(margin_deg, (int, float)) or isinstance(margin_deg, bool) or not math.isfinite(margin_deg)
            or not -90.0 < margin_deg < 90.0):
        raise ValueError(f"margin must be in degrees strictly inside (-90, 90), got {margin_deg:.6g} "
                         "(the paper's m = 10 means 10 degrees).")
    return math.radians(margin_deg)


def _check_views(z1: torch.Tensor, z2: torch.Tensor) -> None:
    check_matrix(z1, "z1 (first view)")
    check_matrix(z2, "z2 (second view)")
    if z1.shape != z2.shape:
        raise ValueError(f"the two views must have the same shape, got {tuple(z1.shape)} and {tuple(z2.shape)}.")
    if z1.shape[0] < 2:
        raise ValueError("a batch of one sentence has no in-batch negatives; the contrastive loss needs >= 2.")


def rbf_logits(z1: torch.Tensor, z2: torch.Tensor, tau: float = 0.05, sigma: float = 1.0) -> torch.Tensor:
    r"""The ``N x N`` RBF logits of SimACE App. F (Eq. 15): :math:`k_{ij} = \varphi_{ij}/\tau` with
    :math:`\varphi_{ij} = \exp(-\|u_i - u'_j\|^2 / 2\sigma^2)`, the kernel centred on the anchor ``z1[i]`` and
    evaluated at every candidate ``z2[j]`` (diagonal: the positive).

    Two decisions the paper leaves open, taken here:

    * **Embeddings are L2-normalised** (:math:`u = z/\|z\|`), so :math:`\|u_i - u'_j\|^2 = 2 - 2\cos_{ij}` and
      :math:`\varphi_{ij} = \exp(-(1 - \cos_{ij})/\sigma^2) \in [e^{-2/\sigma^2}, 1]`. The compared objectives all
      see directions only, so the similarity function stays the only difference; and on raw vectors the loss could
      be lowered by growing the norms (negatives' kernel → 0) instead of arranging directions, with a σ that means
      nothing once the norms drift.
    * **The kernel value divided by τ is the logit** (the scaled kernel of RBF-softmax, Zhang et al. 2020a, the
      work the paper cites for RBF; scale = 1/τ). Not :math:`\log\varphi`: that is :math:`(\cos - 1)/\sigma^2`, a
      SimCSE with temperature σ² (softmax ignores the constant), so it would test nothing new.

    For σ → ∞, :math:`\varphi_{ij}/\tau = 1/\tau - (1 - \cos_{ij})/(\sigma^2\tau) + O(\sigma^{-4})`: RBF tends to
    SimCSE at temperature σ²τ; small σ makes the kernel vanish for far negatives (their gradient too).

    >>> z = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    >>> rbf_logits(z, z, tau=0.5, sigma=1.0)  # diagonal exp(0)/0.5, off-diagonal exp(-1)/0.5
    tensor([[2.0000, 0.7358],
            [0.7358, 2.0000]])
    """
    tau = check_temperature(tau)
    sigma = check_sigma(sigma)
    _check_views(z1, z2)
    cos = cosine_matrix(z1, z2)
    return torch.exp(-(1.0 - cos) / sigma ** 2) / tau


def contrastive_logits(z1: torch.Tensor, z2: torch.Tensor, objective: str = "simace", tau: float = 0.05,
                       margin_deg: float | None = None, eps: float = ANGLE_EPS, sigma: float | None = None
                       ) -> torch.Tensor:
    r"""The ``N x N`` logit matrix :math:`k_{ij}` of SimCSE (Eq. 1), ArcCon, SimACE (Eq. 9) or RBF (Eq. 15,
    :func:`rbf_logits`), already divided by τ.

    ``margin_deg`` defaults to 0 for SimCSE and RBF (which have none; a non-zero value raises) and 10° for
    ArcCon/SimACE. ``sigma`` is RBF's kernel width: required for ``"rbf"``, refused for the others.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"Unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}.")
    tau = check_temperature(tau)
    _check_views(z1, z2)
    margin_deg = DEFAULT_MARGIN_DEG[objective] if margin_deg is None else margin_deg
    m = check_margin(margin_deg)
    if objective == "rbf":
        if sigma is None:
            raise ValueError("the RBF objective needs sigma, its kernel width (Eq. 15); the paper grid-searches it.")
        if m != 0.0:
            raise ValueError("RBF has no margin; use margin_deg=0.")
        return rbf_logits(z1, z2, tau, sigma)
    if sigma is not None:
        raise ValueError(f"sigma is the RBF kernel width; {objective} has none (pass sigma=None).")
    cos = cosine_matrix(z1, z2)
    eye = torch.eye(cos.shape[0], dtype=torch.bool, device=cos.device)
    if objective == "simcse" and m != 0.0:
        raise ValueError("SimCSE has no margin; use margin_deg=0 (or ArcCon/SimACE for a margin).")
    phi = None if objective == "simcse" else torch.arccos(clamp_cos(cos, eps))
    return logits_from_angles(objective, cos, phi, eye, tau, m)


def logits_from_angles(objective: str, cos: torch.Tensor, phi: torch.Tensor | None, positives: torch.Tensor,
                       tau: float, margin_rad: float = 0.0) -> torch.Tensor:
    r"""The logits of SimCSE, ArcCon and SimACE (the module table), divided by τ, from the cosines ``cos`` of the
    pairs and their angles ``phi`` (:math:`\phi = \arccos\cos`, radians; not read for SimCSE, may be None), with
    the margin ``margin_rad`` (radians) on the pairs ``positives`` marks (a bool tensor of ``cos``'s shape):

    * SimCSE: :math:`\cos/\tau` (no margin: ``margin_rad`` is not read);
    * ArcCon: :math:`\cos(\phi + m)/\tau` on a positive, :math:`\cos/\tau` elsewhere;
    * SimACE: :math:`(\theta - m)/\tau` on a positive, :math:`\theta/\tau` elsewhere, with
      :math:`\theta = \pi/2 - \phi` (Eq. 7, as :func:`~companion.similarities.cos_to_angle` computes it).

    The one place these formulas are written: :func:`contrastive_logits` passes the clamped angles of its cosine
    matrix, :func:`companion.papers.simace.synthetic.pair_forces` the angles it differentiates with respect to.
    Inputs are not checked here (the callers check ``tau`` and the margin)."""
    if objective == "simcse":
        return cos / tau
    if objective == "arccon":
        return torch.where(positives, torch.cos(phi + margin_rad), cos) / tau
    if objective == "simace":
        theta = math.pi / 2 - phi
        return torch.where(positives, theta - margin_rad, theta) / tau
    raise ValueError(f"logits_from_angles() knows simcse, arccon and simace, got {objective!r}.")


def contrastive_loss(z1: torch.Tensor, z2: torch.Tensor, objective: str = "simace", tau: float = 0.05,
                     margin_deg: float | None = None, reduction: str = "mean", sigma: float | None = None
                     ) -> torch.Tensor:
    """In-batch dropout-view loss of ``objective`` (see module table) through the shared core ``contrastive_nll``
    (``sigma``: RBF's kernel width, for ``"rbf"`` only)."""
    logits = contrastive_logits(z1, z2, objective, tau, margin_deg, sigma=sigma)
    positives = torch.eye(logits.shape[0], dtype=torch.bool, device=logits.device)
    return contrastive_nll(logits, positives, reduction=reduction)


def simcse_loss(z1: torch.Tensor, z2: torch.Tensor, tau: float = 0.05, reduction: str = "mean") -> torch.Tensor:
    r"""Unsupervised SimCSE (Gao et al. 2021; SimACE Eq. 1):
    :math:`\ell_i = -\log \frac{e^{\cos(z_i, z'_i)/\tau}}{\sum_j e^{\cos(z_i, z'_j)/\tau}}` (positive in the
    denominator)."""
    return contrastive_loss(z1, z2, "simcse", tau, 0.0, reduction)


def arccon_loss(z1: torch.Tensor, z2: torch.Tensor, tau: float = 0.05, margin_deg: float = 10.0,
                reduction: str = "mean") -> torch.Tensor:
    r"""ArcCon, the additive-angular-margin loss of ArcCSE (Zhang et al., ACL 2022; SimACE §4 baseline):
    :math:`-\log\frac{e^{\cos(\phi_{ii'}+m)/\tau}}{e^{\cos(\phi_{ii'}+m)/\tau}+\sum_{j\ne i}e^{\cos\phi_{ij'}/\tau}}`,
    an additive angular margin on the positive (``m`` in degrees)."""
    return contrastive_loss(z1, z2, "arccon", tau, margin_deg, reduction)


def simace_loss(z1: torch.Tensor, z2: torch.Tensor, tau: float = 0.05, margin_deg: float = 10.0,
                reduction: str = "mean") -> torch.Tensor:
    r"""SimACE (Eq. 9): :math:`-\log\frac{e^{(\theta_{ii'}-m)/\tau}}{e^{(\theta_{ii'}-m)/\tau}+\sum_{j\ne i}
    e^{\theta_{ij'}/\tau}}` with :math:`\theta = \pi/2 - \arccos\cos` (Eq. 7) and ``m`` in degrees (Table 7:
    10°). ``margin_deg = 0`` gives Eq. 8."""
    return contrastive_loss(z1, z2, "simace", tau, margin_deg, reduction)


def rbf_loss(z1: torch.Tensor, z2: torch.Tensor, sigma: float, tau: float = 0.05,
             reduction: str = "mean") -> torch.Tensor:
    r"""The RBF objective of SimACE App. F (Eq. 15, Table 11's RBF row): InfoNCE on the kernel logits of
    :func:`rbf_logits`, :math:`\ell_i = -\log\frac{e^{\varphi_{ii'}/\tau}}{\sum_j e^{\varphi_{ij'}/\tau}}` with
    :math:`\varphi_{ij'} = \exp(-\|u_i - u'_j\|^2/2\sigma^2)` on L2-normalised views ``z1``, ``z2`` (``N x d``,
    ``N >= 2``). ``sigma`` has no default: the paper grid-searches it and states no value.

    >>> z1, z2 = torch.eye(3), torch.eye(3)
    >>> round(float(rbf_loss(z1, z2, sigma=1.0, tau=1.0)), 4)  # log(1 + 2 e^{e^-1 - 1})
    0.7241
    """
    return contrastive_loss(z1, z2, "rbf", tau, 0.0, reduction, sigma=sigma)
