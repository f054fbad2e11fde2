r"""The entropic yardstick's framework: where each objective of the five papers sits, and its closed forms
(``notebooks/synthesis/02-entropic-yardstick``; the overview is :mod:`companion.papers.synthesis.theory`).

* the logit range of each similarity (:data:`RANGE`, :func:`logit_range`);
* the closed-form optima on free vectors (:func:`one_positive_optimal_loss`, :func:`effective_temperature`,
  :func:`sincere_optimal_loss`, :func:`softcse_optimal_gram`, :func:`xclr_ring_gram`,
  :func:`angle_soft_supcon_angle`, :func:`concept_optimal_loss`, :func:`cosent_levels`, …) and :func:`realise`, the
  unit vectors with a given class Gram;
* the registry :data:`OBJECTIVES` (one :class:`Objective` per objective: inside the weighted-InfoNCE family or
  outside it, and why; its target, bound and predicted optimum) and the notebook's tables of it
  (:func:`framework_table`, :func:`range_table`, :func:`show`, :func:`fmt`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from companion.losses.circumplex import ECM_LABELS, delta_theta, softcse_loss
from companion.losses.concepts import WEIGHTS
from companion.similarities import ANGLE_EPS

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
    Objective("simcse", "SimCSE", "simace", "losses.simace.simcse_loss", "cosine", 0.05, "outside",
              "its softmax runs over the other view only (N candidates, the positive among them), where Def. 3.1's "
              "runs over every other example: the anchor's N − 1 same-view sentences are left out of the "
              "denominator, which no weight can do (a zero weight leaves the target, not the softmax); on that "
              "bipartite candidate set it has the family's form, one positive with weight 1",
              "a point mass on the other view", "0 on its candidates (a point mass), not attained (finite range)",
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
    from IPython.display import display  # noqa: PLC0415 - IPython is heavy; this module imports without it

    with pd.option_context("display.max_colwidth", None, "display.max_rows", 500):
        display(frame)


def fmt(value: float, digits: int = 4) -> str:
    """A measured number written to ``digits`` significant digits (the notebook's tables show no machine-length
    floats)."""
    return f"{float(value):.{digits}g}"


def framework_table():
    """The classification of :data:`OBJECTIVES` as a DataFrame (one row per objective)."""
    rows = [{"objective": o.name, "paper": o.paper, "loss": o.loss, "similarity": o.similarity,
             "τ": "-" if o.tau is None else f"{o.tau:g}", "place": "inside" if o.inside else "outside",
             "weights / why outside": o.why, "target": o.target, "bound": o.bound} for o in OBJECTIVES.values()]
    return pd.DataFrame(rows).set_index("objective")


def range_table(batch: int = 64, n_classes: int = 12):
    r"""The logit range of each objective's similarity at its temperature against the range its bound needs, and the
    effective temperature of SimACE's angle (:func:`effective_temperature`) for a batch of ``batch``."""
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
