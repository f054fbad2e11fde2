r"""The entropic yardstick's identities: each closed form against the library loss, the identities behind the
placements, the angle variant of Soft SupCon and X-CLR's ring optimum (``notebooks/synthesis/02-entropic-yardstick``;
the overview is :mod:`companion.papers.synthesis.theory`). Each check returns the two sides, compared by
:func:`relation_holds`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from companion.losses.angle import ibn_loss
from companion.losses.circumplex import (
    ECM_LABELS,
    circumplex_target,
    sincere_loss,
    softcse_loss,
    softcse_weights,
)
from companion.losses.core import contrastive_nll
from companion.losses.simace import contrastive_loss, simcse_loss
from companion.losses.weighted import (
    cosine_similarities,
    entropic_bound,
    entropic_gap,
    hard_supcon_optimal_loss,
    soft_supcon_weights,
    supcon_weights,
    weighted_infonce,
    xclr_weights,
    y_aware_weights,
)
from companion.papers.circumplex.geometry import regular_simplex
from companion.papers.synthesis.theory_free import (
    _gram_dev,
    _ring_ids,
    _simplex_gram,
    class_geometry,
    free_problems,
)
from companion.papers.synthesis.theory_placement import (
    OBJECTIVES,
    RING_DEGREES,
    angle_soft_supcon_angle,
    effective_temperature,
    one_positive_optimal_loss,
    realise,
    sincere_optimal_loss,
    softcse_closed_form,
    softcse_optimal_loss,
    xclr_ring_gram,
)
from companion.papers.weighted_cl.free_embeddings import minimise
from companion.similarities import ANGLE_EPS, angle_matrix, complex_angle, cosine_matrix, unit_rows


# --------------------------------------------------------------------------------------------- identities
def closed_form_checks() -> dict[str, tuple[float, float]]:
    """Each closed form of :mod:`~companion.papers.synthesis.theory_placement` against the library loss at the
    configuration it describes: ``{name: (closed form, library)}``, equal within :func:`relation_holds`'s
    tolerance."""
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


def simcse_against_the_family(z1: torch.Tensor, z2: torch.Tensor, tau: float) -> tuple[float, float, float]:
    r"""SimCSE (SimACE Eq. 1) on two views ``z1``, ``z2`` (N × d) beside the weighted-InfoNCE term of the same
    anchors (the first view) with the positive its other view on the 2N stacked vectors: ``(simcse, masked,
    full)``, where ``masked``'s softmax runs over the other view only and ``full``'s over every other example, as
    Def. 3.1's does. ``simcse == masked`` and ``full > simcse``: SimCSE's candidates are the other view.

    Example: z1 = z2 = (e1, e2) at τ = 1 gives simcse = log(1 + e^{-1}) and full = log(1 + 2e^{-1}) (the
    other sentence of the anchor's own view joins the denominator)."""
    n = z1.shape[0]
    S, idx = cosine_similarities(torch.cat([z1, z2]), tau), torch.arange(2 * n)
    partner = torch.zeros(2 * n, 2 * n, dtype=torch.bool)
    partner[idx, (idx + n) % (2 * n)] = True
    other_view = (idx[:, None] // n) != (idx[None, :] // n)
    others = ~torch.eye(2 * n, dtype=torch.bool)
    first = slice(0, n)  # SimCSE's anchors: the first view
    return (float(simcse_loss(z1, z2, tau)),
            float(contrastive_nll(S[first], partner[first], denominator_mask=other_view[first])),
            float(contrastive_nll(S[first], partner[first], denominator_mask=others[first])))


def placement_checks(seed: int = 0) -> dict[str, tuple[float, float, str]]:
    """The identities behind the placements, on random vectors: ``{name: (a, b, relation)}``
    (:func:`relation_holds`).

    * SINCERE with two examples per label equals SupCon (one positive: the denominators coincide); with four it is
      below SupCon (SupCon's denominator adds the other positives) — SINCERE is not a weighted InfoNCE;
    * SoftCSE equals SINCERE on logits shifted by log w on the negatives (weights inside the log-sum-exp);
    * y-Aware (γ = 1) on unit-circle labels equals X-CLR with τ′ = 1/2 (the weights differ by a constant factor);
    * in-batch negatives on a batch of positive pairs equal SupCon with two examples per class;
    * SimCSE equals the family's form on the two views with the anchor's own view masked out of the softmax, and
      lies below the family's term, whose softmax runs over every other example (Def. 3.1) — SimCSE's candidates
      are the other view only, so it is not Def. 3.1's weighted InfoNCE on the batch;
    * AnglE's complex-angle similarity never exceeds √2 and reaches it."""
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
    z = torch.randn(2, 8, 16, generator=gen, dtype=torch.float64)
    simcse, masked, full = simcse_against_the_family(z[0], z[1], 0.05)
    out["SimCSE = the family's term with the anchor's own view out of the softmax"] = (simcse, masked, "=")
    out["SimCSE < the family's term over every other example (Def. 3.1)"] = (full, simcse, ">")
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
