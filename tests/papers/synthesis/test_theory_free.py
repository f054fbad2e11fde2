"""companion.papers.synthesis.theory_free: the entropic bounds by hand, attainment at the constructed optima, the
conditions and the free-vector optimiser."""

import math

import pytest
import torch
import torch.nn.functional as F

from companion.losses.weighted import (
    entropic_bound,
    entropic_gap,
    soft_supcon_weights,
    supcon_weights,
)
from companion.papers.synthesis import theory_free


def test_supcon_bound_and_targets_by_hand():
    ids = torch.arange(12).repeat_interleave(4)
    # uniform over the 3 other examples of the label: H = log 3
    assert float(entropic_bound(supcon_weights(ids))) == pytest.approx(math.log(3))
    # Soft SupCon: 3 same-label weights 1 and 44 weights eps per row
    eps = 0.01
    z = 3 + 44 * eps
    hand = -(3 * (1 / z) * math.log(1 / z) + 44 * (eps / z) * math.log(eps / z))
    assert float(entropic_bound(soft_supcon_weights(ids, eps))) == pytest.approx(hand)

def test_constructed_optima_meet_every_condition_and_the_bounds():
    problems = theory_free.free_problems()
    for key, p in problems.items():
        if p.constructed is None:
            assert key == "angle-objective"
            continue
        Z = F.normalize(p.constructed, dim=1)
        conds = p.conditions(Z, p.loss(p.constructed))
        assert conds and all(c.passed for c in conds), (key, [(c.name, c.measured) for c in conds if not c.passed])
    # Soft SupCon and X-CLR attain their entropic bound at the constructed optimum; SupCon does not
    for key in ("soft-supcon", "xclr-ring"):
        p = problems[key]
        assert abs(entropic_gap(p.loss(p.constructed), p.bound)) < 1e-12
    p = problems["supcon"]
    assert p.loss(p.constructed) > p.bound + 1e-6

def test_a_perturbed_optimum_fails_its_conditions():
    p = theory_free.free_problems()["sincere"]
    Z = p.constructed.clone()
    Z[0] = F.normalize(Z[0] + 0.5 * Z[10], dim=0)  # one example leaves its class
    assert not all(c.passed for c in p.conditions(Z, p.loss(Z)))

def test_prediction_text_is_fixed_and_holds_no_measured_number():
    p = theory_free.free_problems()["softcse"]
    a, b = theory_free.prediction_text(p), theory_free.prediction_text(theory_free.free_problems()["softcse"])
    assert a == b and "collapses" in a and "L* = 1.06007e-08" in a

def test_fit_free_reaches_a_fast_optimum():
    p = theory_free.free_problems()["ibn"]
    fits = [theory_free.fit_free(p, seed, steps=200) for seed in (0, 1)]
    best = theory_free.best_fit(fits)
    assert best.loss == min(f.loss for f in fits)
    conds, line = theory_free.numerical_summary(p, fits)
    assert all(c.passed for c in conds) and line.startswith(f"{len(conds)} of {len(conds)} conditions hold")
