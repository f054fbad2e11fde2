r"""The entropic yardstick's free-vector problems and their optimisation
(``notebooks/synthesis/02-entropic-yardstick``; the overview is :mod:`companion.papers.synthesis.theory`).

Every objective of :data:`~companion.papers.synthesis.theory_placement.OBJECTIVES` as a problem on free vectors
(:class:`FreeProblem`, :func:`free_problems`): its loss, its prediction as named conditions (:class:`Condition`,
with the registered tolerances :data:`GRAM_TOL`, :data:`COLLAPSE_TOL`, :data:`LOSS_RTOL`, :data:`BOUND_TOL`), the
predicted optimal loss and a constructed optimum; minimised with float64 L-BFGS from several initialisations
(:func:`fit_free`, warm-started through :data:`ANNEAL`), the best fit read against the prediction
(:func:`best_fit`, :func:`numerical_summary`, :func:`class_geometry`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from companion.losses.angle import angle_loss, cosent_loss, ibn_loss
from companion.losses.circumplex import (
    ECM_LABELS,
    circular_cse_loss,
    circumplex_target,
    sincere_loss,
    softcse_loss,
)
from companion.losses.concepts import concept_loss
from companion.losses.simace import contrastive_loss
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
from companion.papers.circumplex.geometry import regular_simplex
from companion.papers.synthesis.theory_placement import (
    OBJECTIVES,
    RING_DEGREES,
    concept_optimal_loss,
    cosent_levels,
    one_positive_optimal_loss,
    ranking_range_bound,
    realise,
    sincere_optimal_loss,
    softcse_optimal_gram,
    softcse_optimal_loss,
    xclr_ring_gram,
)
from companion.papers.weighted_cl.free_embeddings import minimise
from companion.similarities import complex_angle, row_cosine


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


def numerical_summary(problem: FreeProblem, fits: Sequence[FreeFit]) -> tuple[list[Condition], str]:
    """The conditions at the numerical optimum (:func:`best_fit`) and a one-line summary: how many conditions hold
    there and how many initialisations meet every condition."""
    best = best_fit(fits)
    conds = problem.conditions(best.Z, best.loss)
    every = sum(all(c.passed for c in problem.conditions(f.Z, f.loss)) for f in fits)
    line = (f"{sum(c.passed for c in conds)} of {len(conds)} conditions hold at the best of {len(fits)} "
            f"initialisation(s) (loss {best.loss:.6g}); {every} of {len(fits)} meet every condition")
    return conds, line
