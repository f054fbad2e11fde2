r"""One yardstick for the objectives of the five papers: the entropic bound of weighted InfoNCE
(``notebooks/synthesis/02-entropic-yardstick``).

Vock, Duchesnay & Dufumier (arXiv 2605.13943) write a family of contrastive losses as the weighted InfoNCE
:math:`L^W(S) = -\frac1n\sum_i\sum_{j\ne i}P_{ij}\log\mathrm{softmax}_{k\ne i}(s_{ik})_j` with the target
:math:`P_{ij} = w_{ij}/\sum_{k\ne i}w_{ik}` (Def. 3.1): a cross-entropy between the rows of :math:`P` and the softmax
rows of the similarities, hence bounded below by the entropy :math:`H(p_W)` of the target, with equality exactly when
:math:`s_{ij} = \log w_{ij} + c` (Thm 3.3). Whether a similarity function can realise that, and with which geometry,
is what their Theorems 3.7–3.13 and Corollary 3.9 answer for the cosine and the squared Euclidean distance.

This module applies that yardstick to every objective the five papers train (:data:`OBJECTIVES`):

* **where it sits** — inside the family (a target distribution, its entropy as the bound, whether the similarity's
  logit range can realise it) or outside it, and why: weights inside the log-sum-exp denominator (SoftCSE), other
  positives left out of the denominator (SINCERE), a margin on the positive (SimACE's constant weight on every
  negative, ArcCon's different similarity for the positive), a ranking loss (CoSENT, AnglE's angle objective), a
  regression of the Gram matrix (CircularCSE), a pointwise logistic loss with a threshold (the concept paper's BCE
  term);
* **its predicted optimum on free vectors** — a closed form where a theorem or a short argument gives one
  (:func:`sincere_optimal_loss`, :func:`softcse_optimal_gram`, :func:`one_positive_optimal_loss`,
  :func:`xclr_ring_gram`, :func:`angle_soft_supcon_angle`, …), stated as named conditions
  (:class:`Condition`) before any optimiser runs;
* **the numerical optimum** — free vectors, one per example, minimised with L-BFGS in float64 from several random
  initialisations (:func:`free_problems`, :func:`fit_free`), warm-started through a few higher temperatures
  (:data:`ANNEAL`) because at the papers' temperatures (0.05–0.1) the losses near the optimum are ~1e-9 and their
  landscape is nearly flat;
* **the trained geometry** — the label geometry of the Emolit heads of ``circumplex/02`` (and SupCon / Soft SupCon
  heads trained here with the same recipe, :func:`emolit_heads`) and the SimACE runs of ``simace/02`` with two new
  SimCSE runs at the angle's *effective temperature* (:func:`effective_temperature`, :func:`temperature_jobs`).

Nothing here is a new loss: every loss is a call into :mod:`companion.losses`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from companion import stats
from companion.similarities import ANGLE_EPS

__all__ = [
    "RANGE", "logit_range", "positive_angle_logit", "effective_temperature", "one_positive_optimal_loss",
    "sincere_optimal_loss", "softcse_optimal_gram", "softcse_optimal_loss", "xclr_ring_gram",
    "angle_soft_supcon_angle", "angle_soft_supcon_attainable", "concept_optimal_loss", "cosent_levels",
    "ranking_range_bound", "Objective", "OBJECTIVES", "show", "fmt", "framework_table", "range_table", "Condition", "FreeProblem",
    "FreeFit", "free_problems", "fit_free", "best_fit", "class_geometry", "realise", "closed_form_checks", "placement_checks",
    "angle_soft_supcon_checks", "relation_holds", "circular_target_fit", "numerical_summary", "emolit_heads", "head_loss", "label_geometry", "head_geometry_table",
    "temperature_jobs", "explained_within", "summary_table",
]

#: The ECM ring: 12 labels 30° apart (circumplex paper §3.2), the label structure of the circumplex objectives.
RING_DEGREES: tuple[float, ...] = tuple(30.0 * k for k in range(12))

#: Width of each similarity's range before the temperature divides it: cosine [-1, 1], SimACE's angle
#: [-π/2, π/2] (Eq. 7), AnglE's complex-angle similarity |cos(u, v) + cos(u, Jv)| in [0, √2] (its code's Eq. 6).
RANGE: dict[str, float] = {"cosine": 2.0, "angle": math.pi, "complex angle": math.sqrt(2.0)}


def logit_range(similarity: str, tau: float) -> float:
    """Width of the logits ``s / tau`` a similarity can produce (:data:`RANGE` over the temperature)."""
    if similarity not in RANGE:
        raise ValueError(f"similarity must be one of {', '.join(RANGE)}, got {similarity!r}.")
    if not tau > 0:
        raise ValueError(f"tau must be > 0, got {tau!r}.")
    return RANGE[similarity] / tau


# --------------------------------------------------------------------------------------------- closed forms
def _check_n(n: int, what: str = "n") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"{what} must be an int >= 2, got {n!r}.")
    return n


def positive_angle_logit(eps: float = ANGLE_EPS) -> float:
    r"""The largest SimACE angle a computed pair reaches: :math:`\pi/2 - \arccos(1 - \epsilon)` — the cosine is
    clamped to :math:`1 - \epsilon` (:func:`companion.similarities.clamp_cos`), so two identical vectors score
    :math:`\arcsin(1-\epsilon)`, 0.0014 rad below :math:`\pi/2` at the default :math:`\epsilon = 10^{-6}`."""
    return math.pi / 2 - math.acos(1.0 - eps)


def _simplex_cos(n: int) -> float:
    return -1.0 / (_check_n(n) - 1)


def one_positive_optimal_loss(n: int, tau: float, similarity: str = "cosine", margin_deg: float = 0.0) -> float:
    r"""Optimal in-batch loss of SimCSE (``"cosine"``), SimACE (``"angle"``, Eq. 9) or ArcCon (``"arccon"``) over
    ``n`` sentences × 2 views of free unit vectors in ``d >= n - 1`` dimensions: the two views of a sentence
    coincide and the ``n`` sentences form a regular simplex (pairwise cosine :math:`-1/(n-1)`), so every anchor sees
    one positive logit :math:`p/\tau` and ``n - 1`` negative logits :math:`g/\tau`:
    :math:`L^* = \log(1 + (n-1)e^{(g - p)/\tau})`.

    cosine: :math:`p = 1`, :math:`g = -1/(n-1)`; angle: :math:`p = \arcsin(1-\epsilon) - m`,
    :math:`g = -\arcsin(1/(n-1))`; arccon: :math:`p = \cos(\arccos(1-\epsilon) + m)`, :math:`g = -1/(n-1)`
    (``epsilon``: the clamp of :func:`positive_angle_logit`; ``m``: ``margin_deg`` in radians). The margin moves the
    loss, never the optimal geometry (it multiplies every negative term by the same factor)."""
    n = _check_n(n)
    if not tau > 0:
        raise ValueError(f"tau must be > 0, got {tau!r}.")
    m = math.radians(margin_deg)
    if similarity == "cosine":
        if margin_deg:
            raise ValueError("the cosine objective (SimCSE) has no margin.")
        p, g = 1.0, _simplex_cos(n)
    elif similarity == "angle":
        p, g = positive_angle_logit() - m, math.asin(_simplex_cos(n))
    elif similarity == "arccon":
        p, g = math.cos(math.acos(1.0 - ANGLE_EPS) + m), _simplex_cos(n)
    else:
        raise ValueError(f"similarity must be 'cosine', 'angle' or 'arccon', got {similarity!r}.")
    return math.log1p((n - 1) * math.exp((g - p) / tau))


def effective_temperature(tau: float, n: int, margin_deg: float = 0.0) -> float:
    r"""The cosine temperature at which SimCSE's optimal loss equals SimACE's at ``tau`` (batch of ``n``, margin
    ``margin_deg``): at the optimum (aligned views, a regular simplex) the angle separates the positive from the
    negatives by :math:`R_\angle = \arcsin(1-\epsilon) + \arcsin(1/(n-1)) - m`, the cosine by
    :math:`R_{\cos} = n/(n-1)`, so :math:`\tau_{\mathrm{eff}} = \tau R_{\cos}/R_\angle` — about :math:`2\tau/\pi`
    for a large batch without margin: the angle's wider range (π against 2) acts as a lower temperature.

    >>> round(effective_temperature(0.06, 64), 4)
    0.0384
    """
    n = _check_n(n)
    if not tau > 0:
        raise ValueError(f"tau must be > 0, got {tau!r}.")
    gap = positive_angle_logit() + math.asin(1.0 / (n - 1)) - math.radians(margin_deg)
    if gap <= 0:
        raise ValueError(f"margin {margin_deg}° leaves no room between the positive and the negatives.")
    return tau * (n / (n - 1)) / gap


def sincere_optimal_loss(n_classes: int, per_class: int, tau: float) -> float:
    r"""SINCERE's optimum over free unit vectors, ``per_class`` examples of each of ``n_classes`` balanced classes
    in ``d >= C - 1`` dimensions: classes collapse onto a regular simplex and every (anchor, positive) term is
    :math:`\log(1 + (C-1)\ell\,e^{-C/((C-1)\tau)})` (its denominator holds the positive and the
    :math:`(C-1)\ell` negatives, never the other positives). With :math:`\ell = 1` it is the population bound of the
    circumplex paper's App. I (:func:`companion.losses.circumplex.population_bound`)."""
    C, ell = _check_n(n_classes, "n_classes"), int(per_class)
    if ell < 1 or not tau > 0:
        raise ValueError(f"need per_class >= 1 and tau > 0, got {per_class!r}, {tau!r}.")
    return math.log1p((C - 1) * ell * math.exp(-C / ((C - 1) * tau)))


def _ring_raw_weights(angles_deg: Sequence[float]) -> torch.Tensor:
    from companion.losses.circumplex import delta_theta

    theta = torch.as_tensor(list(angles_deg), dtype=torch.float64)
    return 1.0 - torch.cos(torch.deg2rad(delta_theta(theta)))


def softcse_optimal_gram(angles_deg: Sequence[float] = RING_DEGREES, tau: float = 0.05) -> np.ndarray:
    r"""SoftCSE's optimal class Gram matrix on free vectors, labels evenly spaced on a ring (every class sees the
    same multiset of weights, e.g. the 12 ECM labels), classes balanced, ``d >= C - 1``.

    Classes collapse (each term decreases with its positive's similarity), and the class Gram :math:`G` minimises
    :math:`\sum_c\log(1 + \ell\sum_{c'\ne c} w_{cc'}e^{(G_{cc'}-1)/\tau})` over unit-diagonal PSD matrices — a convex
    problem whose KKT conditions, with :math:`G\mathbf 1 = 0` binding, equalise :math:`w_{cc'}e^{G_{cc'}/\tau}`:

    .. math:: G_{cc'} = -\frac{1}{C-1} + \tau\big(\overline{\log w}_c - \log w_{cc'}\big),\qquad
              w_{cc'} \propto 1 - \cos\Delta\theta_{cc'}

    (the normalisation of the weights cancels). A regular simplex tilted by :math:`\tau\log(1-\cos\Delta\theta)`:
    nearby labels stay more similar, with a spread of about :math:`\tau\cdot 2.7` instead of the ring's 2.
    Raises when the labels are not evenly spaced or the matrix is not PSD (the formula then is not the optimum)."""
    raw = _ring_raw_weights(angles_deg)
    C = raw.shape[0]
    _check_n(C, "number of labels")
    off = ~torch.eye(C, dtype=torch.bool)
    if bool((raw[off] <= 0).any()):
        raise ValueError("two labels share an angle: SoftCSE's weight 1 - cos Δθ would be 0.")
    logw = torch.where(off, torch.log(raw.clamp_min(1e-300)), torch.zeros_like(raw))
    means = logw.sum(1) / (C - 1)
    if float(means.max() - means.min()) > 1e-12:
        raise ValueError("softcse_optimal_gram() needs labels evenly spaced on the ring (equal row weights).")
    G = -1.0 / (C - 1) + tau * (means[:, None] - logw)
    G.fill_diagonal_(1.0)
    if float(torch.linalg.eigvalsh(G).min()) < -1e-10:
        raise ValueError(f"at tau = {tau} the stationary Gram is not PSD: the optimum lies on the cone's boundary.")
    return G.numpy()


def realise(gram: np.ndarray, per_class: int, dim: int) -> torch.Tensor:
    """Unit vectors (float64, ``C * per_class x dim``) whose class Gram is ``gram`` (C x C, PSD, unit diagonal),
    each class's vector repeated ``per_class`` times in class order (a collapsed configuration)."""
    G = torch.as_tensor(np.asarray(gram), dtype=torch.float64)
    C = G.shape[0]
    ev, V = torch.linalg.eigh(G)
    if float(ev.min()) < -1e-10:
        raise ValueError("realise() needs a PSD Gram matrix.")
    M = V * ev.clamp_min(0).sqrt()
    keep = int((ev > 1e-12).sum())
    if keep > dim:
        raise ValueError(f"the Gram matrix has rank {keep}, more than dim = {dim}.")
    M = M[:, torch.argsort(ev, descending=True)[:dim]]
    if M.shape[1] < dim:
        M = torch.cat([M, torch.zeros(C, dim - M.shape[1], dtype=torch.float64)], 1)
    M = F.normalize(M, dim=1)
    return M.repeat_interleave(per_class, dim=0)


def softcse_optimal_loss(per_class: int, tau: float = 0.05, angles_deg: Sequence[float] = RING_DEGREES,
                         dim: int | None = None) -> float:
    """SoftCSE's loss (:func:`companion.losses.circumplex.softcse_loss`) at the configuration of
    :func:`softcse_optimal_gram`, ``per_class`` examples per ECM label."""
    from companion.losses.circumplex import ECM_LABELS, softcse_loss

    G = softcse_optimal_gram(angles_deg, tau)
    C = G.shape[0]
    Z = realise(G, per_class, dim or C)
    labels = [ECM_LABELS[c] for c in range(C) for _ in range(per_class)]
    return float(softcse_loss(Z, labels, tau, angles=list(angles_deg)))


def softcse_closed_form(per_class: int, tau: float = 0.05, angles_deg: Sequence[float] = RING_DEGREES) -> float:
    r""":func:`softcse_optimal_loss` written out: every (anchor, positive) term at the collapsed optimum is
    :math:`\log(1 + \ell\sum_{c'\ne c}w_{cc'}e^{(G_{cc'}-1)/\tau})` with the weights normalised over the row's
    :math:`(C-1)\ell` negatives (their mean is 1)."""
    G = torch.as_tensor(softcse_optimal_gram(angles_deg, tau))
    raw = _ring_raw_weights(angles_deg)
    C = G.shape[0]
    off = ~torch.eye(C, dtype=torch.bool)
    w = torch.where(off, raw / (raw.sum(1, keepdim=True) / (C - 1)), torch.zeros_like(raw))
    terms = torch.log1p(per_class * (w * torch.exp((G - 1) / tau)).masked_fill(~off, 0).sum(1))
    return float(terms.mean())


def xclr_ring_gram(tau: float, tau_prime: float, angles_deg: Sequence[float] = RING_DEGREES) -> np.ndarray:
    r"""X-CLR's optimal class Gram for ring labels :math:`y = (\cos\theta, \sin\theta)` (Vock et al. Thm 3.12):
    :math:`z^* = (y, \sqrt{\tau'/\tau - 1}, 0, \dots)`, normalised, so
    :math:`\cos(z_i, z_j) = 1 - (\tau/\tau')(1 - \cos\Delta\theta_{ij})` — a cone around the ring's axis, which at
    :math:`\tau = \tau'` is the ring itself, CircularCSE's target. Needs :math:`\tau \le \tau'`."""
    if not 0 < tau <= tau_prime:
        raise ValueError(f"Thm 3.12 needs 0 < tau <= tau', got tau = {tau}, tau' = {tau_prime}.")
    raw = _ring_raw_weights(angles_deg)
    return (1.0 - (tau / tau_prime) * raw).numpy()


def angle_soft_supcon_angle(tau: float, eps: float) -> float:
    r"""Soft SupCon with SimACE's angle as the similarity (our variant of Cor. 3.9): the bound needs
    :math:`\theta_{same} - \theta_{diff} = \tau\log(1/\varepsilon)`, i.e. collapsed classes
    :math:`\varphi^* = \tau\log(1/\varepsilon)` radians apart (less the clamp of :func:`positive_angle_logit`),
    where the cosine needs :math:`\cos\varphi^* = 1 + \tau\log\varepsilon`. Returns :math:`\varphi^*` in radians."""
    if not (tau > 0 and 0 < eps < 1):
        raise ValueError(f"need tau > 0 and eps in (0, 1), got {tau!r}, {eps!r}.")
    return tau * math.log(1.0 / eps)


def angle_soft_supcon_attainable(tau: float, eps: float, n_classes: int) -> tuple[bool, bool]:
    r"""Whether Soft SupCon's entropic bound is attainable with the cosine and with the angle: both need the
    classes' required angle to fit a configuration of ``n_classes`` unit vectors, i.e. an inter-class cosine of at
    least :math:`-1/(C-1)` — cosine: :math:`1 + \tau\log\varepsilon \ge -1/(C-1)` (Cor. 3.9, corrected);
    angle: :math:`\tau\log(1/\varepsilon) + \arccos(1-\epsilon) \le \arccos(-1/(C-1))`. Returns ``(cosine, angle)``."""
    C = _check_n(n_classes, "n_classes")
    floor = -1.0 / (C - 1)
    cosine = 1.0 + tau * math.log(eps) >= floor
    angle = angle_soft_supcon_angle(tau, eps) + math.acos(1.0 - ANGLE_EPS) <= math.acos(floor)
    return bool(cosine), bool(angle)


def concept_optimal_loss(n_concepts: int, n_hard: int, tau: float = 0.05, threshold: float = 0.5,
                         weights: Mapping[str, float] | None = None) -> float:
    r"""The concept paper's objective (§4.5) at its free-vector optimum: term, synonym and both definitions of a
    concept coincide, the concepts form a regular simplex and each hard negative sits opposite its term
    (:math:`\cos = -1`): three InfoNCE terms at :func:`one_positive_optimal_loss` (weights 1, 1, 0.7) plus
    :math:`0.5\,[\mathrm{softplus}(-(1-\theta)/\tau) + K\,\mathrm{softplus}((-1-\theta)/\tau)]` for the BCE."""
    from companion.losses.concepts import WEIGHTS

    w = {**WEIGHTS, **(weights or {})}
    info = one_positive_optimal_loss(n_concepts, tau)
    softplus = lambda x: math.log1p(math.exp(x))  # noqa: E731
    bce = softplus(-(1.0 - threshold) / tau) + n_hard * softplus((-1.0 - threshold) / tau)
    return (w["syn"] + w["t2d"] + w["d2d"]) * info + w["neg"] * bce


def cosent_levels(n_levels: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    r"""CoSENT's predicted optimal pair score per gold level, equally populated levels: the extreme levels at the
    ends of the similarity's range (the top level only ever appears as the higher item of a pair, the bottom as the
    lower one) and the levels in between equally spaced — the stationarity conditions
    :math:`\sum_{b<k}e^{-\lambda(s_k-s_b)} = \sum_{a>k}e^{-\lambda(s_a-s_k)}` hold for equal gaps up to terms of
    order :math:`e^{-2\lambda g}` (:math:`\lambda g = 8` at the paper's :math:`\lambda = 20` and 6 levels)."""
    _check_n(n_levels, "n_levels")
    return np.linspace(low, high, n_levels)


def ranking_range_bound(n_ordered_pairs: int, scale: float, width: float) -> float:
    r"""A lower bound of a CoSENT-form ranking loss :math:`\log(1 + \sum_{y_a>y_b}e^{\lambda(s_b - s_a)})` whose
    scores lie in a range of width ``width``: each of the ``n_ordered_pairs`` terms is at least
    :math:`e^{-\lambda\,\mathrm{width}}`. At AnglE's angle objective (:math:`\lambda = 1`, width √2) it is far from 0:
    the bounded range, not the optimiser, keeps that term from approaching its infimum."""
    return math.log1p(n_ordered_pairs * math.exp(-scale * width))


# --------------------------------------------------------------------------------------------- the registry
@dataclass(frozen=True)
class Objective:
    """One objective of the five papers, placed in the weighted-InfoNCE framework (or outside it, and why)."""

    key: str
    name: str
    paper: str
    loss: str                 # the companion function that computes it
    similarity: str           # a key of RANGE, or a description
    tau: float | None
    family: str               # "weighted InfoNCE" or "outside"
    why: str                  # for "outside": what breaks the form; for the family: the weights
    target: str               # the target distribution (or what replaces it)
    bound: str                # the bound / infimum and whether it is attained
    prediction: str           # the optimal geometry on free vectors, stated before the optimiser runs
    structure: str            # the label structure of the free-vector problem
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def inside(self) -> bool:
        return self.family == "weighted InfoNCE"


_R = "the ECM ring: 12 labels 30° apart, 4 examples each (48 vectors, d = 16)"
_V = "16 sentences × 2 dropout views (32 vectors, d = 16)"
OBJECTIVES: dict[str, Objective] = {o.key: o for o in [
    Objective("supcon", "SupCon (Hard)", "weighted-cl", "losses.weighted.supcon_weights + weighted_infonce",
              "cosine", 0.1, "weighted InfoNCE", "w = 1 for the same label, 0 otherwise (sparse)",
              "uniform over the other examples of the anchor's label",
              "H = log(ℓ − 1), not attained: a finite cosine range cannot make the zero weights' logits −∞ "
              "(Thm 3.13, App. D)",
              "classes collapse onto a regular simplex (cosine −1/(C−1)); L* = log[(ℓ−1) + (C−1)ℓ e^{−C/((C−1)τ)}] "
              "(Thm 3.13, D.6)", _R, dict(tau=0.1)),
    Objective("soft-supcon", "Soft SupCon", "weighted-cl", "losses.weighted.soft_supcon_weights + weighted_infonce",
              "cosine", 0.1, "weighted InfoNCE", "w = 1 for the same label, ε = 0.01 otherwise (dense)",
              "1 : ε between the anchor's label and the others",
              "H(p_W), attained iff β = 1 + τ log ε ≥ −1/(C−1) (Cor. 3.9; the printed τ* is an erratum)",
              "classes collapse; every pair of labels at cosine β = 1 + τ log ε (0.54 at τ = 0.1, ε = 0.01)", _R,
              dict(tau=0.1, eps=0.01)),
    Objective("xclr-ring", "y-Aware / X-CLR on the ring", "weighted-cl", "losses.weighted.xclr_weights "
              "(= y_aware_weights, γ = 1, on unit-circle labels)", "cosine", 0.1, "weighted InfoNCE",
              "w = exp(cos Δθ / τ′), τ′ = 1/2 (y-Aware with γ = 1 on labels on the unit circle, the exception of "
              "Thm 3.11)", "a softmax of cos Δθ / τ′ over the other examples",
              "H(p_W), attained for τ ≤ τ′ (Thm 3.12)",
              "a cone around the ring: cos(z_i, z_j) = 1 − (τ/τ′)(1 − cos Δθ) (Thm 3.12); at τ = τ′ the ring itself",
              _R, dict(tau=0.1, tau_prime=0.5)),
    Objective("sincere", "SINCERE", "circumplex", "losses.circumplex.sincere_loss", "cosine", 0.05, "outside",
              "other positives are left out of the denominator, so the denominator depends on the positive j: no "
              "single softmax per anchor", "a point mass on each positive against the negatives only",
              "infimum 0 (each term → 0 as the negatives' logits → −∞), not attained with a finite range",
              "classes collapse onto a regular simplex; L* = log(1 + (C−1)ℓ e^{−C/((C−1)τ)}) per term (the "
              "population bound of the paper's App. I with ℓ examples)", _R, dict(tau=0.05)),
    Objective("softcse", "SoftCSE", "circumplex", "losses.circumplex.softcse_loss", "cosine", 0.05, "outside",
              "SINCERE with weights inside the log-sum-exp denominator: w_ik e^{s_ik} = e^{s_ik + log w_ik}, per-pair "
              "logit offsets (margins), not a target distribution", "as SINCERE: a point mass on each positive",
              "infimum 0, not attained",
              "classes collapse; class Gram G = −1/(C−1) + τ(mean log w − log w_cc′), w ∝ 1 − cos Δθ: a simplex "
              "tilted towards the ring by τ log(1 − cos Δθ) (spread ≈ 2.7τ against the ring's 2)", _R,
              dict(tau=0.05)),
    Objective("circularcse", "CircularCSE", "circumplex", "losses.circumplex.circular_cse_loss", "cosine", None,
              "outside", "a squared-error regression of the Gram matrix onto cos Δθ: no softmax, no temperature",
              "the Gram matrix T = cos Δθ (1 within a label)",
              "0, attained: T is PSD of rank 2 with a unit diagonal (a ring)",
              "the ring at the ECM angles, up to rotation — the X-CLR optimum on ring labels at τ = τ′", _R,
              dict(margin=0.0)),
    Objective("simcse", "SimCSE", "simace", "losses.simace.simcse_loss", "cosine", 0.05, "weighted InfoNCE",
              "one positive per anchor (the other view), candidates the other view's batch",
              "a point mass on the other view", "H = 0, not attained (finite range)",
              "views coincide; sentences on a regular simplex (cosine −1/(N−1)); L* = log(1 + (N−1)e^{−N/((N−1)τ)})",
              _V, dict(tau=0.05)),
    Objective("simace", "SimACE (angle, m = 10°)", "simace", "losses.simace.simace_loss", "angle", 0.06, "outside",
              "the margin: the positive's logit (θ − m)/τ puts the constant weight e^{m/τ} on every negative inside "
              "the denominator (SoftCSE's construct with one weight); with m = 0 it is the family's InfoNCE with the "
              "angle θ = arcsin(cos) as its similarity", "a point mass on the other view",
              "0 (H of the m = 0 form), not attained; the angle's range is π/τ, not 2/τ",
              "the same geometry as SimCSE (the margin moves the loss, not the optimum); at the optimum the angle "
              "acts as the cosine at τ_eff = τ·(N/(N−1))/(arcsin(1−ε) + arcsin(1/(N−1)) − m)", _V,
              dict(tau=0.06, margin_deg=10.0)),
    Objective("arccon", "ArcCon (m = 10°)", "simace", "losses.simace.arccon_loss", "cosine", 0.05, "outside",
              "the additive angular margin: the positive scores cos(φ + m), the negatives cos φ — no single symmetric "
              "similarity (Assumption 3.2)", "a point mass on the other view", "0, not attained",
              "the same geometry as SimCSE; L* = log(1 + (N−1)e^{(−1/(N−1) − cos m)/τ})", _V,
              dict(tau=0.05, margin_deg=10.0)),
    Objective("concepts", "InfoNCE + BCE on hard negatives", "concepts", "losses.concepts.concept_loss", "cosine",
              0.05, "outside", "the InfoNCE terms are in the family (one positive each); the BCE term is a pointwise "
              "logistic loss on (cos − θ)/τ with θ = 0.5: no competition between candidates",
              "InfoNCE: a point mass on the definition; BCE: cos above θ for the definition, below for each hard "
              "negative", "infimum 0, not attained; the BCE floor is 0.5·softplus(−(1−θ)/τ) ≈ 2.3e-5",
              "term, synonym and definitions coincide; concepts on a regular simplex; hard negatives pushed below "
              "θ, where BCE's gradient σ((c−θ)/τ)/τ fades (their exact optimum, cos = −1, costs e^{−30})",
              "8 concepts × (term, synonym, definition, second definition, 2 hard negatives), d = 16",
              dict(tau=0.05, threshold=0.5)),
    Objective("cosent", "CoSENT", "angle", "losses.angle.cosent_loss", "cosine", 0.05, "outside",
              "a ranking loss over pairs of pairs: log(1 + Σ_{y_a > y_b} e^{λ(s_b − s_a)}), no candidate softmax",
              "the gold order of the pairs", "infimum 0 as the score gaps → ∞, not attained (range 2λ = 40)",
              "each pair's cosine a monotone function of its gold level, spanning [−1, 1], levels equally spaced",
              "6 gold levels × 4 pairs (48 vectors, d = 8)", dict(tau=0.05)),
    Objective("ibn", "In-batch negatives (AnglE Eq. 2)", "angle", "losses.angle.ibn_loss", "cosine", 0.05,
              "weighted InfoNCE", "SupCon with two examples per class (a pair with label ≥ 4 is a class; the other "
              "rows contribute nothing)", "a point mass on the partner", "H = 0, not attained",
              "partners coincide; pairs on a regular simplex; L* = log[1 + 2(P−1)e^{−P/((P−1)τ)}] (Thm 3.13, ℓ = 2)",
              "8 positive pairs (16 vectors, d = 16)", dict(tau=0.05)),
    Objective("angle-objective", "AnglE's angle objective (Eq. 7)", "angle", "losses.angle.angle_loss",
              "complex angle", 1.0, "outside", "CoSENT's ranking form on |cos(u, v) + cos(u, Jv)| ∈ [0, √2] at scale 1",
              "the gold order of the pairs",
              "infimum 0 needs unbounded gaps; with width √2 at scale 1 every ordered pair costs at least e^{−√2}",
              "monotone in the gold level, the extreme levels at 0 and √2; its loss stays far above 0",
              "6 gold levels × 4 pairs (48 vectors, d = 8)", dict(tau=1.0)),
]}


def show(frame):
    """``frame`` displayed whole (no cell cut short by pandas' column width), for the notebook's text tables."""
    import pandas as pd
    from IPython.display import display

    with pd.option_context("display.max_colwidth", None, "display.max_rows", 500):
        display(frame)


def fmt(value: float, digits: int = 4) -> str:
    """A measured number written to ``digits`` significant digits (the notebook's tables show no machine-length
    floats)."""
    return f"{float(value):.{digits}g}"


def framework_table():
    """The classification of :data:`OBJECTIVES` as a DataFrame (one row per objective)."""
    import pandas as pd

    rows = [{"objective": o.name, "paper": o.paper, "loss": o.loss, "similarity": o.similarity,
             "τ": "-" if o.tau is None else f"{o.tau:g}", "place": "inside" if o.inside else "outside",
             "weights / why outside": o.why, "target": o.target, "bound": o.bound} for o in OBJECTIVES.values()]
    return pd.DataFrame(rows).set_index("objective")


def range_table(batch: int = 64, n_classes: int = 12):
    r"""The logit range of each objective's similarity at its temperature against the range its bound needs, and the
    effective temperature of SimACE's angle (:func:`effective_temperature`) for a batch of ``batch``."""
    import pandas as pd

    C = n_classes
    need = {"supcon": "∞ (zero weights)", "soft-supcon": f"{-math.log(0.01):.3g} (= log 1/ε)",
            "xclr-ring": f"{2 / 0.5:.3g} (= 2/τ′)", "circularcse": "- (no logits)"}
    rows = []
    for o in OBJECTIVES.values():
        sim = o.similarity if o.similarity in RANGE else "cosine"
        width = None if o.tau is None else logit_range(sim, o.tau)
        rows.append({"objective": o.name, "similarity": o.similarity, "τ": "-" if o.tau is None else f"{o.tau:g}",
                     "logit range": "-" if width is None else f"{width:.3g}",
                     "range the bound needs": need.get(o.key, "∞ (a point mass or an order)")})
    frame = pd.DataFrame(rows).set_index("objective")
    extra = pd.DataFrame([
        {"quantity": f"Soft SupCon attainable at τ = 0.1, ε = 0.01 (cosine, angle), C = {C}",
         "value": str(angle_soft_supcon_attainable(0.1, 0.01, C))},
        {"quantity": f"Soft SupCon attainable at τ = 0.3, ε = 0.01 (cosine, angle), C = {C}",
         "value": str(angle_soft_supcon_attainable(0.3, 0.01, C))},
        {"quantity": f"SimACE τ = 0.06, m = 0°: effective cosine temperature, batch {batch}",
         "value": f"{effective_temperature(0.06, batch):.4f}"},
        {"quantity": f"SimACE τ = 0.06, m = 10°: effective cosine temperature, batch {batch}",
         "value": f"{effective_temperature(0.06, batch, 10.0):.4f}"},
        {"quantity": "2τ/π at τ = 0.06 (the large-batch limit without margin)", "value": f"{0.12 / math.pi:.4f}"},
    ]).set_index("quantity")
    return frame, extra


# --------------------------------------------------------------------------------------------- free vectors
@dataclass(frozen=True)
class Condition:
    """One named condition of a prediction: ``name`` states the predicted value and its tolerance (it is the
    registered wording), ``measured`` the number read off the numerical optimum, ``passed`` the outcome."""

    name: str
    measured: float
    passed: bool


def _close(name: str, measured: float, target: float, tol: float) -> Condition:
    return Condition(name, float(measured), bool(abs(float(measured) - target) <= tol))


def _at_least(name: str, measured: float, bound: float) -> Condition:
    return Condition(name, float(measured), bool(float(measured) >= bound))


def _at_most(name: str, measured: float, bound: float) -> Condition:
    return Condition(name, float(measured), bool(float(measured) <= bound))


def _relative(name: str, measured: float, target: float, rtol: float) -> Condition:
    return Condition(name, float(measured), bool(abs(float(measured) - target) <= rtol * abs(target)))


#: the tolerances of every free-vector prediction (registered with the criteria)
GRAM_TOL = 0.01
COLLAPSE_TOL = 1e-3
LOSS_RTOL = 1e-3
BOUND_TOL = 1e-6
#: temperatures the optimiser passes through, from the highest, before the objective's own (warm starts)
ANNEAL = (1.0, 0.3, 0.1)


@dataclass
class FreeProblem:
    """An objective on free vectors: ``loss_at(X, tau)`` (``tau`` None: the objective's own), the prediction's
    conditions on the unit rows (``conditions(Z, loss) -> [Condition]``), the predicted optimal loss and bound."""

    key: str
    rows: int
    dim: int
    loss_at: Callable[[torch.Tensor, float | None], torch.Tensor]
    tau: float | None
    log: bool
    conditions: Callable[[torch.Tensor, float], list[Condition]]
    predicted_loss: float | None
    bound: float
    constructed: torch.Tensor | None = None
    #: warm-start through :data:`ANNEAL` (only where the predicted geometry does not depend on the temperature: a
    #: warm start from a temperature whose optimum differs can leave the optimiser on that optimum, a saddle here)
    anneal: bool = True

    def loss(self, X: torch.Tensor) -> float:
        return float(self.loss_at(X, None))


@dataclass
class FreeFit:
    key: str
    seed: int
    Z: torch.Tensor
    loss: float
    iterations: int


def fit_free(problem: FreeProblem, seed: int, steps: int = 500) -> FreeFit:
    """Minimise ``problem`` from a standard normal start (``seed``) with float64 L-BFGS
    (:func:`companion.free_embeddings.minimise`), through the temperatures of :data:`ANNEAL` above the objective's
    own (where ``problem.anneal``) and then at its own (each stage at most ``steps`` iterations); ``log(loss)`` where the optimum is > 0 (the
    same minimiser, better scaled). Returns the unit rows and the loss at the objective's own temperature."""
    from companion.papers.weighted_cl.free_embeddings import minimise

    gen = torch.Generator().manual_seed(int(seed))
    X = torch.randn(problem.rows, problem.dim, generator=gen, dtype=torch.float64)
    stages = [None] if problem.tau is None or not problem.anneal else [t for t in ANNEAL if t > problem.tau] + [None]
    total = 0
    for t in stages:
        def fn(Y, t=t):
            value = problem.loss_at(Y, t)
            return torch.log(value) if problem.log else value
        X, _, iters = minimise(fn, X, steps=steps)
        total += iters
    return FreeFit(problem.key, int(seed), F.normalize(X, dim=1), problem.loss(X), total)


def best_fit(fits: Sequence[FreeFit]) -> FreeFit:
    """The numerical optimum: the fit with the lowest loss over the initialisations."""
    if not fits:
        raise ValueError("best_fit() needs at least one fit.")
    return min(fits, key=lambda f: f.loss)


def class_geometry(Z: torch.Tensor, ids: torch.Tensor, n_classes: int) -> tuple[torch.Tensor, float]:
    """``(class Gram, smallest within-class cosine)`` of rows ``Z`` with integer classes ``ids``: the Gram matrix of
    the normalised class means, and the smallest cosine between two rows of one class (1 when classes collapse)."""
    Z = F.normalize(Z, dim=1)
    within = 1.0
    means = []
    for c in range(n_classes):
        rows = Z[ids == c]
        if len(rows) > 1:
            g = rows @ rows.T
            within = min(within, float(g[~torch.eye(len(rows), dtype=torch.bool)].min()))
        means.append(rows.mean(0))
    M = F.normalize(torch.stack(means), dim=1)
    return M @ M.T, within


def _gram_dev(G: torch.Tensor, target: np.ndarray | torch.Tensor) -> float:
    T = torch.as_tensor(np.asarray(target), dtype=torch.float64)
    off = ~torch.eye(G.shape[0], dtype=torch.bool)
    return float((G - T).abs()[off].max())


def _simplex_gram(C: int) -> np.ndarray:
    G = np.full((C, C), -1.0 / (C - 1))
    np.fill_diagonal(G, 1.0)
    return G


def _ring_ids(C: int, ell: int) -> torch.Tensor:
    return torch.arange(C).repeat_interleave(ell)


def _collapse(within: float) -> Condition:
    return _at_least(f"every class collapses (smallest within-class cosine >= 1 - {COLLAPSE_TOL:g})", within,
                     1.0 - COLLAPSE_TOL)


def _loss_cond(loss: float, predicted: float) -> Condition:
    return _relative(f"its loss is L* = {predicted:.6g} within {LOSS_RTOL:g} (relative)", loss, predicted, LOSS_RTOL)


def _ring_problems(C: int, ell: int, dim: int) -> list[FreeProblem]:
    from companion.losses.circumplex import (
        ECM_LABELS,
        circular_cse_loss,
        circumplex_target,
        sincere_loss,
        softcse_loss,
    )
    from companion.losses.weighted import (
        cosine_similarities,
        entropic_bound,
        entropic_gap,
        hard_supcon_optimal_loss,
        soft_supcon_beta,
        soft_supcon_weights,
        supcon_weights,
        weighted_infonce,
        xclr_weights,
    )

    ids = _ring_ids(C, ell)
    labels = [ECM_LABELS[int(c)] for c in ids]
    angles = list(RING_DEGREES[:C])
    n = C * ell
    out = []

    def weighted(key, W, tau, gram, gram_text, attained):
        H = float(entropic_bound(W))
        predicted = H if attained else hard_supcon_optimal_loss(C, ell, tau)

        def conditions(Z, loss, W=W, H=H, gram=gram, gram_text=gram_text, predicted=predicted):
            G, within = class_geometry(Z, ids, C)
            conds = [_collapse(within),
                     _close(f"the class Gram is {gram_text} within {GRAM_TOL:g} (largest |difference|)",
                            _gram_dev(G, gram), 0.0, GRAM_TOL)]
            if attained:
                conds.append(_at_most(f"the entropic bound is attained (Delta_W <= {BOUND_TOL:g})",
                                      entropic_gap(loss, H), BOUND_TOL))
            else:
                conds.append(_loss_cond(loss, predicted))
            return conds

        out.append(FreeProblem(key, n, dim, lambda X, t, W=W, tau=tau: weighted_infonce(
            W, cosine_similarities(X, tau if t is None else t)), tau, True, conditions, predicted, H,
            realise(gram, ell, dim), anneal=not attained))

    y = torch.stack([torch.cos(torch.deg2rad(torch.tensor(angles, dtype=torch.float64))),
                     torch.sin(torch.deg2rad(torch.tensor(angles, dtype=torch.float64)))], 1)[ids]
    weighted("supcon", supcon_weights(ids), 0.1, _simplex_gram(C), "the regular simplex (-1/(C-1))", False)
    beta = soft_supcon_beta(0.1, 0.01)
    G_soft = np.full((C, C), beta)
    np.fill_diagonal(G_soft, 1.0)
    weighted("soft-supcon", soft_supcon_weights(ids, 0.01), 0.1, G_soft, f"uniform at beta = 1 + tau log eps = {beta:.4f}",
             True)
    weighted("xclr-ring", xclr_weights(y, 0.5), 0.1, xclr_ring_gram(0.1, 0.5, angles),
             "the cone 1 - (tau/tau')(1 - cos dtheta) of Thm 3.12", True)

    sincere_star = sincere_optimal_loss(C, ell, 0.05)

    def sincere_conditions(Z, loss):
        G, within = class_geometry(Z, ids, C)
        return [_collapse(within), _close(f"the class Gram is the regular simplex (-1/(C-1)) within {GRAM_TOL:g}",
                                          _gram_dev(G, _simplex_gram(C)), 0.0, GRAM_TOL), _loss_cond(loss, sincere_star)]

    out.append(FreeProblem("sincere", n, dim, lambda X, t: sincere_loss(X, labels, 0.05 if t is None else t), 0.05,
                           True, sincere_conditions, sincere_star, 0.0, realise(_simplex_gram(C), ell, dim)))

    G_soft_cse = softcse_optimal_gram(angles, 0.05)
    softcse_star = softcse_optimal_loss(ell, 0.05, angles, dim)

    def softcse_conditions(Z, loss):
        G, within = class_geometry(Z, ids, C)
        return [_collapse(within),
                _close(f"the class Gram is -1/(C-1) + tau(mean log w - log w) (w = 1 - cos dtheta) within {GRAM_TOL:g}",
                       _gram_dev(G, G_soft_cse), 0.0, GRAM_TOL), _loss_cond(loss, softcse_star)]

    out.append(FreeProblem("softcse", n, dim, lambda X, t: softcse_loss(X, labels, 0.05 if t is None else t), 0.05,
                           True, softcse_conditions, softcse_star, 0.0, realise(G_soft_cse, ell, dim), anneal=False))

    T = circumplex_target(list(range(C)))

    def circular_conditions(Z, loss):
        G, within = class_geometry(Z, ids, C)
        return [_collapse(within), _close(f"the class Gram is the ring cos dtheta within {GRAM_TOL:g}",
                                          _gram_dev(G, T), 0.0, GRAM_TOL),
                _at_most(f"its loss is 0 within {BOUND_TOL:g} (the bound attained)", loss, BOUND_TOL)]

    out.append(FreeProblem("circularcse", n, dim, lambda X, t: circular_cse_loss(X, labels), None, False,
                           circular_conditions, 0.0, 0.0, realise(T.numpy(), ell, dim)))
    return out


def _view_problems(N: int, dim: int) -> list[FreeProblem]:
    from companion.losses.simace import contrastive_loss
    from companion.papers.circumplex.geometry import regular_simplex

    out = []
    target = -1.0 / (N - 1)
    for key, objective, sim, tau, m in [("simcse", "simcse", "cosine", 0.05, 0.0),
                                        ("simace", "simace", "angle", 0.06, 10.0),
                                        ("arccon", "arccon", "arccon", 0.05, 10.0)]:
        star = one_positive_optimal_loss(N, tau, sim, m)

        def conditions(Z, loss, star=star):
            pos = float((Z[:N] * Z[N:]).sum(1).min())
            G = Z[:N] @ Z[:N].T
            off = G[~torch.eye(N, dtype=torch.bool)]
            dev = float((off - target).abs().max())
            return [_at_least(f"the two views coincide (smallest positive cosine >= 1 - {COLLAPSE_TOL:g})", pos,
                              1.0 - COLLAPSE_TOL),
                    _close(f"the sentences form the regular simplex (every negative cosine -1/(N-1) within "
                           f"{GRAM_TOL:g})", dev, 0.0, GRAM_TOL), _loss_cond(loss, star)]

        simplex = regular_simplex(N, dim)
        out.append(FreeProblem(key, 2 * N, dim, lambda X, t, o=objective, tau=tau, m=m: contrastive_loss(
            X[:N], X[N:], o, tau if t is None else t, m), tau, True, conditions, star, 0.0,
            torch.cat([simplex, simplex])))
    return out


def _concept_problem(B: int, K: int, dim: int) -> FreeProblem:
    from companion.losses.concepts import concept_loss
    from companion.papers.circumplex.geometry import regular_simplex

    theta, tau = 0.5, 0.05
    star = concept_optimal_loss(B, K, tau, theta)

    def loss_at(X, t):
        q, s, d, d2 = X[:B], X[B:2 * B], X[2 * B:3 * B], X[3 * B:4 * B]
        hard = X[4 * B:].reshape(B, K, X.shape[1])
        t = tau if t is None else t
        return concept_loss(syn=(q, s), t2d=(q, d), d2d=(d, d2), hard=hard, temperature=t,
                            bce_temperature=t, bce_threshold=theta).total

    def conditions(Z, loss):
        q, s, d, d2 = Z[:B], Z[B:2 * B], Z[2 * B:3 * B], Z[3 * B:4 * B]
        hard = Z[4 * B:].reshape(B, K, Z.shape[1])
        same = min(float((q * s).sum(1).min()), float((q * d).sum(1).min()), float((d * d2).sum(1).min()))
        G = q @ q.T
        dev = float((G[~torch.eye(B, dtype=torch.bool)] + 1.0 / (B - 1)).abs().max())
        worst = float(torch.einsum("bd,bkd->bk", q, hard).max())
        return [_at_least(f"term, synonym and definitions coincide (smallest cosine >= 1 - {COLLAPSE_TOL:g})", same,
                          1.0 - COLLAPSE_TOL),
                _close(f"the concepts form the regular simplex (cosines -1/(B-1) within {GRAM_TOL:g})", dev, 0.0,
                       GRAM_TOL),
                _at_most(f"every hard negative lies below the threshold by 10 tau (cos <= {theta - 10 * tau:g})", worst,
                         theta - 10 * tau),
                _loss_cond(loss, star)]

    simplex = regular_simplex(B, dim)
    constructed = torch.cat([simplex, simplex, simplex, simplex, (-simplex).repeat_interleave(K, 0)])
    return FreeProblem("concepts", 4 * B + B * K, dim, loss_at, tau, True, conditions, star, 0.0, constructed)


def _pair_problems(levels: int, per_level: int, dim: int, P: int, ibn_dim: int) -> list[FreeProblem]:
    from companion.losses.angle import angle_loss, cosent_loss, ibn_loss
    from companion.losses.weighted import hard_supcon_optimal_loss
    from companion.papers.circumplex.geometry import regular_simplex
    from companion.similarities import complex_angle, row_cosine

    gold = torch.arange(levels, dtype=torch.float64).repeat_interleave(per_level)
    spaced = cosent_levels(levels)

    def pairs_at(scores: np.ndarray) -> torch.Tensor:
        rows = []
        for s in scores:
            u = torch.zeros(dim, dtype=torch.float64)
            v = torch.zeros(dim, dtype=torch.float64)
            u[0], v[0], v[1] = 1.0, float(s), math.sqrt(max(0.0, 1 - float(s) ** 2))
            rows += [u, v]
        return torch.stack(rows)

    constructed = pairs_at(np.repeat(spaced, per_level))
    star = float(cosent_loss(constructed, gold, 0.05))

    def cosent_conditions(Z, loss):
        s = row_cosine(Z[0::2], Z[1::2])
        dev = max(float((s[gold == k] - spaced[k]).abs().max()) for k in range(levels))
        return [_close(f"each level's pair cosine is -1 + 2k/(K-1) within {GRAM_TOL:g} (monotone, spanning [-1, 1])",
                       dev, 0.0, GRAM_TOL), _loss_cond(loss, star)]

    out = [FreeProblem("cosent", 2 * levels * per_level, dim, lambda X, t: cosent_loss(X, gold, 0.05 if t is None else t),
                       0.05, True, cosent_conditions, star, 0.0, constructed)]

    top = math.sqrt(2.0)

    def angle_conditions(Z, loss):
        s = complex_angle(Z[0::2], Z[1::2])
        means = [float(s[gold == k].mean()) for k in range(levels)]
        drops = max(0.0, max(means[k] - means[k + 1] for k in range(levels - 1)))
        return [_at_most(f"the level means never decrease with the gold level (largest drop <= {GRAM_TOL:g})", drops,
                         GRAM_TOL),
                _at_most(f"the lowest level sits at the range's floor 0 (its largest score <= {GRAM_TOL:g})",
                         float(s[gold == 0].max()), GRAM_TOL),
                _at_least(f"the highest level sits at the range's top sqrt 2 (its smallest score >= sqrt 2 - "
                          f"{GRAM_TOL:g})", float(s[gold == levels - 1].min()), top - GRAM_TOL)]

    n_ordered = per_level ** 2 * levels * (levels - 1) // 2
    out.append(FreeProblem("angle-objective", 2 * levels * per_level, dim,
                           lambda X, t: angle_loss(X, gold, 1.0 if t is None else t), 1.0, True, angle_conditions, None,
                           ranking_range_bound(n_ordered, 1.0, top)))

    ones = torch.ones(P, dtype=torch.float64)
    ibn_star = hard_supcon_optimal_loss(P, 2, 0.05)

    def ibn_conditions(Z, loss):
        pos = float((Z[0::2] * Z[1::2]).sum(1).min())
        G = Z[0::2] @ Z[0::2].T
        dev = float((G[~torch.eye(P, dtype=torch.bool)] + 1.0 / (P - 1)).abs().max())
        return [_at_least(f"the partners coincide (smallest positive cosine >= 1 - {COLLAPSE_TOL:g})", pos,
                          1.0 - COLLAPSE_TOL),
                _close(f"the pairs form the regular simplex (cosines -1/(P-1) within {GRAM_TOL:g})", dev, 0.0,
                       GRAM_TOL), _loss_cond(loss, ibn_star)]

    simplex = regular_simplex(P, ibn_dim)
    out.append(FreeProblem("ibn", 2 * P, ibn_dim, lambda X, t: ibn_loss(X, ones, tau=0.05 if t is None else t), 0.05,
                           True, ibn_conditions, ibn_star, 0.0, simplex.repeat_interleave(2, 0)))
    return out


#: the label structures of the free-vector problems (the same in every profile: they take seconds)
SIZES = dict(classes=12, per_class=4, dim=16, sentences=16, concepts=8, hard=2, levels=6, per_level=4, pair_dim=8,
             pairs=8)


def free_problems(sizes: Mapping[str, int] | None = None) -> dict[str, FreeProblem]:
    """Every objective of :data:`OBJECTIVES` as a free-vector problem, keyed like :data:`OBJECTIVES`."""
    s = {**SIZES, **(sizes or {})}
    problems = (_ring_problems(s["classes"], s["per_class"], s["dim"]) + _view_problems(s["sentences"], s["dim"])
                + [_concept_problem(s["concepts"], s["hard"], s["dim"])]
                + _pair_problems(s["levels"], s["per_level"], s["pair_dim"], s["pairs"], s["dim"]))
    out = {p.key: p for p in problems}
    missing = set(OBJECTIVES) - set(out)
    if missing:  # pragma: no cover - a registry entry without a problem is a bug here
        raise AssertionError(f"no free-vector problem for {sorted(missing)}")
    return {k: out[k] for k in OBJECTIVES}


def prediction_text(problem: FreeProblem) -> str:
    """The registered wording of a problem's prediction: its conditions' names (no measured value), read off the
    constructed optimum (or, for AnglE's angle objective, an arbitrary configuration: only the names are used)."""
    Z = problem.constructed
    if Z is None:
        Z = F.normalize(torch.randn(problem.rows, problem.dim, generator=torch.Generator().manual_seed(0),
                                    dtype=torch.float64), dim=1)
    return "; ".join(c.name for c in problem.conditions(Z, problem.loss(Z)))


# --------------------------------------------------------------------------------------------- identities
def closed_form_checks() -> dict[str, tuple[float, float]]:
    """Each closed form of this module against the library loss at the configuration it describes:
    ``{name: (closed form, library)}``, equal within :func:`relation_holds`'s tolerance."""
    from companion.losses.circumplex import ECM_LABELS, sincere_loss
    from companion.losses.simace import contrastive_loss
    from companion.losses.weighted import (
        cosine_similarities,
        entropic_bound,
        hard_supcon_optimal_loss,
        soft_supcon_weights,
        supcon_weights,
        weighted_infonce,
        xclr_weights,
    )
    from companion.papers.circumplex.geometry import regular_simplex

    C, ell, d, N = 12, 4, 16, 16
    ids = _ring_ids(C, ell)
    labels = [ECM_LABELS[int(c)] for c in ids]
    simplex = realise(_simplex_gram(C), ell, d)
    out = {"SupCon: Thm 3.13's L*": (hard_supcon_optimal_loss(C, ell, 0.1),
                                     float(weighted_infonce(supcon_weights(ids), cosine_similarities(simplex, 0.1))))}
    beta_gram = np.full((C, C), 1 + 0.1 * math.log(0.01))
    np.fill_diagonal(beta_gram, 1.0)
    W = soft_supcon_weights(ids, 0.01)
    out["Soft SupCon: H(p_W) at beta (Cor. 3.9)"] = (float(entropic_bound(W)), float(weighted_infonce(
        W, cosine_similarities(realise(beta_gram, ell, d), 0.1))))
    theta = torch.deg2rad(torch.tensor(RING_DEGREES, dtype=torch.float64))[ids]
    y = torch.stack([torch.cos(theta), torch.sin(theta)], 1)
    Wx = xclr_weights(y, 0.5)
    out["X-CLR on the ring: H(p_W) at the cone (Thm 3.12)"] = (float(entropic_bound(Wx)), float(weighted_infonce(
        Wx, cosine_similarities(realise(xclr_ring_gram(0.1, 0.5), ell, d), 0.1))))
    out["SINCERE: L* at the simplex"] = (sincere_optimal_loss(C, ell, 0.05), float(sincere_loss(simplex, labels, 0.05)))
    out["SoftCSE: L* at its tilted simplex"] = (softcse_closed_form(ell, 0.05), softcse_optimal_loss(ell, 0.05))
    views = regular_simplex(N, d)
    for name, objective, sim, tau, m in [("SimCSE", "simcse", "cosine", 0.05, 0.0),
                                         ("SimACE (m = 10°)", "simace", "angle", 0.06, 10.0),
                                         ("ArcCon (m = 10°)", "arccon", "arccon", 0.05, 10.0)]:
        out[f"{name}: L* at the aligned simplex"] = (one_positive_optimal_loss(N, tau, sim, m), float(
            contrastive_loss(views, views, objective, tau, m)))
    out["SimACE (m = 0°) at tau = 0.06 equals SimCSE at tau_eff"] = (
        one_positive_optimal_loss(N, effective_temperature(0.06, N), "cosine"),
        float(contrastive_loss(views, views, "simace", 0.06, 0.0)))
    problems = free_problems()
    for key in ("concepts", "ibn", "cosent"):
        p = problems[key]
        out[f"{OBJECTIVES[key].name}: L* at the constructed optimum"] = (p.predicted_loss, p.loss(p.constructed))
    return out


#: how the two sides of an identity must agree: the library's float64 rounding at logits of ~25 is ~1e-14
IDENTITY_RTOL = 1e-9
IDENTITY_ATOL = 1e-13


def relation_holds(a: float, b: float, relation: str = "=") -> bool:
    """``a = b`` within :data:`IDENTITY_RTOL` (relative) or :data:`IDENTITY_ATOL` (absolute), ``a > b`` or
    ``a <= b`` (the latter within the same tolerance)."""
    close = abs(a - b) <= max(IDENTITY_RTOL * max(abs(a), abs(b)), IDENTITY_ATOL)
    if relation == "=":
        return bool(close)
    if relation == ">":
        return bool(a > b and not close)
    if relation == "<=":
        return bool(a <= b or close)
    raise ValueError(f"relation must be '=', '>' or '<=', got {relation!r}.")


def placement_checks(seed: int = 0) -> dict[str, tuple[float, float, str]]:
    """The identities behind the placements, on random vectors: ``{name: (a, b, relation)}``
    (:func:`relation_holds`).

    * SINCERE with two examples per label equals SupCon (one positive: the denominators coincide); with four it is
      below SupCon (SupCon's denominator adds the other positives) — SINCERE is not a weighted InfoNCE;
    * SoftCSE equals SINCERE on logits shifted by log w on the negatives (weights inside the log-sum-exp);
    * y-Aware (γ = 1) on unit-circle labels equals X-CLR with τ′ = 1/2 (the weights differ by a constant factor);
    * in-batch negatives on a batch of positive pairs equal SupCon with two examples per class;
    * AnglE's complex-angle similarity never exceeds √2 and reaches it."""
    from companion.losses.angle import ibn_loss
    from companion.losses.circumplex import ECM_LABELS, sincere_loss, softcse_loss, softcse_weights
    from companion.losses.core import contrastive_nll
    from companion.losses.weighted import (
        cosine_similarities,
        supcon_weights,
        weighted_infonce,
        xclr_weights,
        y_aware_weights,
    )
    from companion.similarities import complex_angle, unit_rows

    gen = torch.Generator().manual_seed(seed)
    out = {}
    for ell in (2, 4):
        ids = _ring_ids(12, ell)
        labels = [ECM_LABELS[int(c)] for c in ids]
        Z = torch.randn(len(ids), 16, generator=gen, dtype=torch.float64)
        sup = float(weighted_infonce(supcon_weights(ids), cosine_similarities(Z, 0.05)))
        if ell == 2:
            out["SINCERE = SupCon with 2 examples per label"] = (float(sincere_loss(Z, labels, 0.05)), sup, "=")
        else:
            out["SINCERE < SupCon with 4 examples per label"] = (sup, float(sincere_loss(Z, labels, 0.05)), ">")
    ids = _ring_ids(12, 4)
    labels = [ECM_LABELS[int(c)] for c in ids]
    Z = torch.randn(len(ids), 16, generator=gen, dtype=torch.float64)
    e = unit_rows(Z)
    logits = e @ e.T / 0.05
    theta = torch.tensor([RING_DEGREES[int(c)] for c in ids], dtype=torch.float64)
    w = softcse_weights(theta, ids)
    same = (ids[:, None] == ids[None, :]) & ~torch.eye(len(ids), dtype=torch.bool)
    shifted = logits + torch.where(w > 0, torch.log(w.clamp_min(1e-300)), torch.zeros_like(w))
    shifted_sincere = contrastive_nll(shifted, same, denominator_mask=~torch.eye(len(ids), dtype=torch.bool),
                                      exclude_other_positives=True)
    out["SoftCSE = SINCERE on logits + log w"] = (float(softcse_loss(Z, labels, 0.05)), float(shifted_sincere), "=")
    th = torch.deg2rad(theta)
    y = torch.stack([torch.cos(th), torch.sin(th)], 1)
    S = cosine_similarities(Z, 0.1)
    out["y-Aware (gamma = 1) = X-CLR (tau' = 1/2) on ring labels"] = (
        float(weighted_infonce(y_aware_weights(y, 1.0), S)), float(weighted_infonce(xclr_weights(y, 0.5), S)), "=")
    P = 8
    X = torch.randn(2 * P, 16, generator=gen, dtype=torch.float64)
    out["in-batch negatives = SupCon with 2 per class"] = (
        float(ibn_loss(X, torch.ones(P, dtype=torch.float64), tau=0.05)),
        float(weighted_infonce(supcon_weights(torch.arange(P).repeat_interleave(2)), cosine_similarities(X, 0.05))),
        "=")
    U = torch.randn(4000, 16, generator=gen, dtype=torch.float64)
    V = torch.randn(4000, 16, generator=gen, dtype=torch.float64)
    out["complex angle <= sqrt 2 over 4000 random pairs"] = (float(complex_angle(U, V).max()), math.sqrt(2.0), "<=")
    a, b = U[:1, :8], U[:1, 8:]
    turned = torch.cat([(a + b) / math.sqrt(2), (b - a) / math.sqrt(2)], 1)  # u turned by 45° in every plane
    out["complex angle = sqrt 2 at u turned by 45 degrees"] = (float(complex_angle(U[:1], turned)), math.sqrt(2.0), "=")
    return out


def angle_soft_supcon_checks(steps: int = 500, seeds: Sequence[int] = (0, 1, 2), dim: int = 16
                             ) -> dict[str, Any]:
    """Soft SupCon (ε = 0.01) with the cosine and with the angle as the similarity, on the ring structure:
    the free optimum of each at τ = 0.1 and 0.3 (best of ``seeds``; no warm start: the optimum depends on τ), and
    the collapsed configuration at the predicted inter-class angle :func:`angle_soft_supcon_angle`. Returns
    ``{(similarity, tau): {"Delta_W", "within (deg)", "between (deg)"}}`` plus ``"H"``."""
    from companion.losses.weighted import entropic_bound, entropic_gap, soft_supcon_weights, weighted_infonce
    from companion.papers.weighted_cl.free_embeddings import minimise
    from companion.similarities import angle_matrix, cosine_matrix

    C, ell = 12, 4
    ids = _ring_ids(C, ell)
    W = soft_supcon_weights(ids, 0.01)
    H = float(entropic_bound(W))
    sims = {"cosine": cosine_matrix, "angle": angle_matrix}
    out: dict[str, Any] = {"H": H}
    same = (ids[:, None] == ids[None, :]) & ~torch.eye(len(ids), dtype=torch.bool)
    diff = ids[:, None] != ids[None, :]
    for tau in (0.1, 0.3):
        for name, sim in sims.items():
            best = None
            for seed in seeds:
                X = torch.randn(C * ell, dim, generator=torch.Generator().manual_seed(int(seed)), dtype=torch.float64)
                X, _, _ = minimise(lambda Y, sim=sim, tau=tau: torch.log(weighted_infonce(W, sim(Y) / tau)), X,
                                   steps=steps)
                loss = float(weighted_infonce(W, sim(X) / tau, float64=True))
                if best is None or loss < best[0]:
                    best = (loss, X)
            loss, X = best
            A = torch.rad2deg(torch.arccos(cosine_matrix(X).clamp(-1, 1)))
            out[(name, tau)] = {"Delta_W": entropic_gap(loss, H), "within (deg)": float(A[same].mean()),
                                "between (deg)": float(A[diff].mean())}
        phi = angle_soft_supcon_angle(tau, 0.01) + math.acos(1.0 - ANGLE_EPS)
        gram = np.full((C, C), math.cos(phi))
        np.fill_diagonal(gram, 1.0)
        Z = realise(gram, ell, dim)
        out[("constructed angle", tau)] = {"Delta_W": entropic_gap(float(weighted_infonce(W, angle_matrix(Z) / tau,
                                                                                          float64=True)), H),
                                           "between (deg)": math.degrees(phi)}
    return out


def circular_target_fit(tau: float = 0.5, seeds: Sequence[int] = (0, 1, 2), steps: int = 500, dim: int = 16
                        ) -> dict[str, float]:
    r"""X-CLR on the ring labels at :math:`\tau = \tau'` (= ``tau``) on free vectors, best of ``seeds``: by Thm 3.12
    its optimum is the ring itself, i.e. CircularCSE's target Gram :math:`\cos\Delta\theta`
    (:func:`companion.losses.circumplex.circumplex_target`). Returns the best fit's ``Delta_W``, its class Gram's
    largest deviation from that target (``gram_dev``) and its smallest within-class cosine."""
    from companion.losses.circumplex import circumplex_target
    from companion.losses.weighted import (
        cosine_similarities,
        entropic_bound,
        entropic_gap,
        weighted_infonce,
        xclr_weights,
    )
    from companion.papers.weighted_cl.free_embeddings import minimise

    C, ell = 12, 4
    ids = _ring_ids(C, ell)
    theta = torch.deg2rad(torch.tensor(RING_DEGREES, dtype=torch.float64))[ids]
    W = xclr_weights(torch.stack([torch.cos(theta), torch.sin(theta)], 1), tau)
    H = float(entropic_bound(W))
    best = None
    for seed in seeds:
        X = torch.randn(C * ell, dim, generator=torch.Generator().manual_seed(int(seed)), dtype=torch.float64)
        X, _, _ = minimise(lambda Y: torch.log(weighted_infonce(W, cosine_similarities(Y, tau))), X, steps=steps)
        loss = float(weighted_infonce(W, cosine_similarities(X, tau), float64=True))
        if best is None or loss < best[0]:
            best = (loss, X)
    G, within = class_geometry(best[1], ids, C)
    return {"Delta_W": entropic_gap(best[0], H), "gram_dev": _gram_dev(G, circumplex_target(list(range(C)))),
            "within": within}


def numerical_summary(problem: FreeProblem, fits: Sequence[FreeFit]) -> tuple[list[Condition], str]:
    """The conditions at the numerical optimum (:func:`best_fit`) and a one-line summary: how many conditions hold
    there and how many initialisations meet every condition."""
    best = best_fit(fits)
    conds = problem.conditions(best.Z, best.loss)
    every = sum(all(c.passed for c in problem.conditions(f.Z, f.loss)) for f in fits)
    line = (f"{sum(c.passed for c in conds)} of {len(conds)} conditions hold at the best of {len(fits)} "
            f"initialisation(s) (loss {best.loss:.6g}); {every} of {len(fits)} meet every condition")
    return conds, line


# --------------------------------------------------------------------------------------------- trained heads
#: head losses trained on the Emolit features besides the circumplex paper's three (the zoo's hyper-parameters)
HEAD_LOSSES = ("SINCERE", "SoftCSE", "CircularCSE", "SupCon", "Soft SupCon")


def head_loss(name: str) -> Callable[[torch.Tensor, Sequence[str]], torch.Tensor]:
    """``loss(embeddings, labels)`` of a head loss of :data:`HEAD_LOSSES`: the circumplex paper's three as in
    ``circumplex/02`` (τ = 0.05), SupCon and Soft SupCon (τ = 0.1, ε = 0.01, the zoo's) over the anchors that have
    a positive in the batch (:func:`companion.losses.core.contrastive_nll`, self-pairs out)."""
    from companion.losses.circumplex import LOSSES, ecm_index
    from companion.losses.core import contrastive_nll
    from companion.losses.weighted import cosine_similarities, soft_supcon_weights

    if name in LOSSES:
        return LOSSES[name]
    if name not in HEAD_LOSSES:
        raise ValueError(f"Unknown head loss {name!r}; choose one of {', '.join(HEAD_LOSSES)}.")

    def loss(emb: torch.Tensor, labels: Sequence[str]) -> torch.Tensor:
        ids = ecm_index(list(labels)).to(emb.device)
        eye = torch.eye(len(ids), dtype=torch.bool, device=emb.device)
        S = cosine_similarities(emb, 0.1)
        if name == "SupCon":
            W = ((ids[:, None] == ids[None, :]) & ~eye).to(S.dtype)
        else:
            W = soft_supcon_weights(ids, 0.01).to(dtype=S.dtype, device=S.device)
        return contrastive_nll(S, W, denominator_mask=~eye)

    return loss


def emolit_heads(saved: Mapping, train_states, train_labels: Sequence[str], *, losses: Sequence[str],
                 seeds: Sequence[int], steps: int, batch_size: int, lr: float, n_heads: int, kind: str = "GPT",
                 pooling: str = "mean", base_scale: str | float = "backbone", clip_norm: float | None = 1.0):
    """GPT heads on the frozen Emolit features, one per loss of ``losses`` and seed: the weights ``circumplex/02``
    saved (``saved[("Emolit", kind, loss, "state", seed)]``) where they were trained with these settings (its record
    ``saved[("Emolit", kind, loss, "settings", seed)]`` equal to
    :func:`companion.papers.circumplex.experiments.head_settings` of them: steps, batch, learning rate, heads,
    ``pooling``, ``base_scale``, ``clip_norm``) and fit, otherwise trained here with them
    (:func:`companion.papers.circumplex.heads.train_head`). Returns ``(heads, source, losses)``:
    ``{(loss, seed): head}``, where each came from, and ``{(loss, seed): (first loss, final loss)}`` for the heads
    trained here (the mean of the last five steps, as ``circumplex/02`` records it)."""
    from companion.papers.circumplex.experiments import head_settings
    from companion.papers.circumplex.heads import make_head, train_head

    heads, source, record = {}, {}, {}
    for seed in seeds:
        for name in losses:
            settings = head_settings(kind, name, train_states, steps=steps, batch_size=batch_size, lr=lr, seed=seed,
                                     n_heads=n_heads, pooling=pooling, base_scale=base_scale, clip_norm=clip_norm)
            state = saved.get(("Emolit", kind, name, "state", seed))
            same = saved.get(("Emolit", kind, name, "settings", seed)) == settings
            kw = {} if settings["base_scale_value"] is None else {"base_scale": settings["base_scale_value"]}
            head = make_head(kind, train_states.dim, n_heads=n_heads, pooling=pooling, **kw)
            if same and state is not None and all(k in state and state[k].shape == v.shape
                                                  for k, v in head.state_dict().items()):
                head.load_state_dict(state)
                source[(name, seed)] = "circumplex/02 cache"
            else:
                head, result = train_head(kind, head_loss(name), train_states, list(train_labels), steps=steps,
                                          batch_size=min(batch_size, len(train_labels)), lr=lr, seed=seed,
                                          n_heads=n_heads, progress=False, pooling=pooling, base_scale=base_scale,
                                          clip_norm=clip_norm)
                curve = [h["loss"] for h in result.history if "loss" in h]
                record[(name, seed)] = (curve[0], float(np.mean(curve[-5:])))
                source[(name, seed)] = "trained here"
            heads[(name, seed)] = head.eval()
    return heads, source, record


def label_geometry(emb, labels: Sequence[str], tau_softcse: float = 0.05) -> dict[str, float]:
    """The label geometry of embeddings with ECM labels (every label present at least twice):

    * ``between``: the mean AvgCosSim between different labels (a regular simplex and the ring: −1/11);
    * ``ring_r``: Pearson r of AvgCosSim with cos Δθ over the label pairs (the ring: 1);
    * ``softcse_r``: Pearson r with SoftCSE's optimal Gram (:func:`softcse_optimal_gram`);
    * ``within``: the mean AvgCosSim of a label with itself (collapse: 1)."""
    from companion.losses.circumplex import ECM_LABELS
    from companion.papers.circumplex.geometry import avg_cos_sim

    present = [c for c in ECM_LABELS if c in set(labels)]
    if len(present) != len(ECM_LABELS):
        raise ValueError("label_geometry() needs every ECM label.")
    A, classes = avg_cos_sim(emb, list(labels), present)
    C = len(classes)
    iu = np.triu_indices(C, 1)
    ring = np.cos(np.radians(np.subtract.outer(RING_DEGREES, RING_DEGREES)))
    soft = softcse_optimal_gram(RING_DEGREES, tau_softcse)
    a = np.asarray(A)[iu]
    return {"between": float(a.mean()), "ring_r": float(np.corrcoef(a, ring[iu])[0, 1]),
            "softcse_r": float(np.corrcoef(a, soft[iu])[0, 1]), "within": float(np.diag(np.asarray(A)).mean())}


def head_geometry_table(geometry: Mapping[tuple[str, int], Mapping[str, float]]):
    """One row per (loss, seed) of :func:`label_geometry` results, with the between-label cosine of the loss's
    free-vector optimum (:func:`predicted_between`) beside it."""
    import pandas as pd

    rows = [{"loss": loss, "seed": seed, **values, "between at the optimum": predicted_between(loss)}
            for (loss, seed), values in geometry.items()]
    return pd.DataFrame(rows)


def predicted_between(loss: str, n_classes: int = 12) -> float:
    """The between-label mean cosine at the free-vector optimum of a head loss: −1/(C−1) for SINCERE, SoftCSE
    (its rows sum to −1), CircularCSE (the ring), SupCon; 1 + τ log ε for Soft SupCon (τ = 0.1, ε = 0.01)."""
    from companion.losses.weighted import soft_supcon_beta

    if loss == "Soft SupCon":
        return soft_supcon_beta(0.1, 0.01)
    if loss not in HEAD_LOSSES:
        raise ValueError(f"Unknown head loss {loss!r}.")
    return -1.0 / (n_classes - 1)


# --------------------------------------------------------------------------------------------- SimACE runs
#: simace/02's runs this notebook reloads (their names there: simace's MAIN and CONTROLS)
SIMACE_REFERENCE = ("SimCSE", "ArcCon", "SimCSE τ=0.06", "SimACE", "SimACE m=0°")


def matched_name(tau: float) -> str:
    return f"SimCSE τ={tau:.4f}"


def matched_temperatures(batch_size: int) -> dict[str, float]:
    """SimCSE temperatures matched to SimACE at τ = 0.06 (m = 0° and the paper's m = 10°) for this batch size,
    rounded to 4 decimals: ``{simace run name: tau_eff}``."""
    return {"SimACE m=0°": round(effective_temperature(0.06, batch_size, 0.0), 4),
            "SimACE": round(effective_temperature(0.06, batch_size, 10.0), 4)}


def temperature_jobs(seeds: Sequence[int], batch_size: int) -> list[tuple[str, tuple[str, float, float], int]]:
    """The runs of the effective-temperature test, seed-major: simace/02's :data:`SIMACE_REFERENCE` (reloaded from
    its cache where it trained them, the same names and settings) and SimCSE at each matched temperature
    (:func:`matched_temperatures`), all with the same batches per seed."""
    from companion.papers.simace import run_jobs

    matched = sorted(set(matched_temperatures(batch_size).values()))
    jobs = []
    for seed in seeds:
        jobs += run_jobs([seed], SIMACE_REFERENCE)
        jobs += [(matched_name(t), ("simcse", t, 0.0), int(seed)) for t in matched]
    return jobs


def explained_within(reference: stats.Comparison, fraction: float = 0.5, what: str = "the reference gain"
                     ) -> stats.Criterion:
    """A residual A − B is *explained away* when its 95 % CI lies within ± ``fraction`` × |``reference``| (a gain
    measured on the same seeds, e.g. SimACE's equal-temperature gain over SimCSE): :func:`companion.stats.level`
    around 0 with that tolerance. The text depends on ``fraction`` and ``what`` only; the tolerance is read from
    ``reference`` when the claim is judged (the reference is measured, like the zoo's Holm-adjusted p). A
    reference whose CI covers 0 leaves nothing to explain: inconclusive."""
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must lie in (0, 1), got {fraction!r}.")
    desc = (f"residual A - B within +/- {fraction:g} x |{what}| (measured on the same seeds): its CI inside that band: "
            f"reproduced (explained); entirely outside: not reproduced; straddling it: inconclusive; a reference "
            f"whose CI covers 0: inconclusive (nothing to explain)")

    def rule(ours):
        if reference.excludes_zero() == 0:
            return stats.Judgement("inconclusive", f"the reference gain {reference} is not shown to differ from 0: "
                                                   "there is no gain to explain")
        tol = fraction * abs(reference.estimate)
        return stats.level(0.0, tol=tol, tol_reason=f"{fraction:g} x |{what}|").judge(ours)

    return stats.Criterion(desc, rule, name="explained_within", params={"fraction": fraction, "what": what})


# --------------------------------------------------------------------------------------------- summary
def summary_table(claims: Sequence[Mapping[str, Any]], numerical: Mapping[str, str], trained: Mapping[str, str],
                  claim_ids: Mapping[str, Sequence[str]]):
    """The closing table: one row per objective of :data:`OBJECTIVES` — where it sits in the framework, its
    predicted optimum, the numerical optimum on free vectors (``numerical[key]``), the trained geometry
    (``trained[key]``, "-" where no trained run is measured) and the verdicts of its claims (``claim_ids[key]``,
    read from the ledger's ``claims``)."""
    import pandas as pd

    verdicts = {c["id"]: c["verdict"] for c in claims}
    rows = []
    for key, o in OBJECTIVES.items():
        ids = list(claim_ids.get(key, ()))
        missing = [i for i in ids if i not in verdicts]
        if missing:
            raise KeyError(f"summary_table(): claims {missing} are not in the ledger.")
        place = "inside: " + o.why if o.inside else "outside: " + o.why
        rows.append({"objective": o.name, "where it sits": place, "bound": o.bound, "predicted optimum": o.prediction,
                     "numerical optimum": numerical.get(key, "-"), "trained geometry": trained.get(key, "-"),
                     "verdicts": "; ".join(f"{i}: {verdicts[i]}" for i in ids) or "-"})
    return pd.DataFrame(rows).set_index("objective")
