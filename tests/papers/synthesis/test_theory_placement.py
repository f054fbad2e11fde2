"""companion.papers.synthesis.theory_placement: the similarities' ranges, hand-computed closed forms, the
registry's placement of every objective and its tables."""

import importlib
import math

import numpy as np
import pytest
import torch

from companion.losses.circumplex import population_bound
from companion.papers.synthesis import theory_free, theory_placement, theory_trained

INSIDE = {"supcon", "soft-supcon", "xclr-ring", "ibn"}
OUTSIDE = {"sincere", "softcse", "circularcse", "simcse", "simace", "arccon", "concepts", "cosent", "angle-objective"}


def test_ranges_of_the_three_similarities():
    assert theory_placement.logit_range("cosine", 0.05) == pytest.approx(40.0)
    assert theory_placement.logit_range("angle", 0.05) == pytest.approx(math.pi / 0.05)
    assert theory_placement.logit_range("complex angle", 1.0) == pytest.approx(math.sqrt(2))
    with pytest.raises(ValueError, match="similarity"):
        theory_placement.logit_range("dot", 0.1)
    with pytest.raises(ValueError, match="tau"):
        theory_placement.logit_range("cosine", 0.0)

def test_sincere_optimum_by_hand_and_against_the_population_bound():
    # 3 classes of 2: each term log(1 + (C - 1) l e^{-C/((C-1) tau)}) = log(1 + 4 e^{-1.5}) at tau = 1
    assert theory_placement.sincere_optimal_loss(3, 2, 1.0) == pytest.approx(math.log1p(4 * math.exp(-1.5)))
    assert theory_placement.sincere_optimal_loss(12, 1, 0.05) == pytest.approx(population_bound(12, 0.05))
    with pytest.raises(ValueError):
        theory_placement.sincere_optimal_loss(1, 2, 0.1)

def test_one_positive_optima_by_hand():
    # two sentences: the simplex is antipodal, cosine gap 2
    assert theory_placement.one_positive_optimal_loss(2, 1.0) == pytest.approx(math.log1p(math.exp(-2.0)))
    # the angle (no margin): gap arcsin(1 - eps) + pi/2 at n = 2
    gap = theory_placement.positive_angle_logit() + math.pi / 2
    assert theory_placement.one_positive_optimal_loss(2, 1.0, "angle") == pytest.approx(math.log1p(math.exp(-gap)))
    # a margin shifts the loss, by e^{m/tau} inside the log
    base = theory_placement.one_positive_optimal_loss(16, 0.06, "angle")
    m = theory_placement.one_positive_optimal_loss(16, 0.06, "angle", 10.0)
    assert math.expm1(m) == pytest.approx(math.expm1(base) * math.exp(math.radians(10) / 0.06))
    with pytest.raises(ValueError, match="margin"):
        theory_placement.one_positive_optimal_loss(16, 0.05, "cosine", 10.0)

def test_effective_temperature_matches_the_optimal_losses_and_tends_to_2_tau_over_pi():
    for n, m in ((8, 0.0), (64, 0.0), (64, 10.0)):
        t = theory_placement.effective_temperature(0.06, n, m)
        assert theory_placement.one_positive_optimal_loss(n, t) == pytest.approx(
            theory_placement.one_positive_optimal_loss(n, 0.06, "angle", m), rel=1e-12)
    assert theory_placement.effective_temperature(0.06, 10 ** 6) == pytest.approx(0.12 / math.pi, rel=2e-3)
    assert theory_placement.effective_temperature(0.06, 64, 10.0) > theory_placement.effective_temperature(0.06, 64)  # margin: hotter
    assert theory_trained.matched_temperatures(64) == {"SimACE m=0°": 0.0384, "SimACE": 0.0432}
    with pytest.raises(ValueError, match="room"):
        theory_placement.effective_temperature(0.06, 64, 95.0)

def test_softcse_optimal_gram_is_a_tilted_simplex():
    G = theory_placement.softcse_optimal_gram(tau=0.05)
    assert np.allclose(np.diag(G), 1.0) and np.allclose(G, G.T)
    assert np.allclose(G.sum(1), 0.0, atol=1e-12)  # G 1 = 0: the mean between labels is -1/11
    assert np.linalg.eigvalsh(G).min() > -1e-10
    first = G[0, 1:7]  # labels 30, 60, ..., 180 degrees away
    assert np.all(np.diff(first) < 0)  # nearer labels are more similar
    # the spread between 30 and 180 degrees: tau (log 2 - log(1 - cos 30))
    spread = 0.05 * (math.log(2) - math.log(1 - math.cos(math.radians(30))))
    assert G[0, 1] - G[0, 6] == pytest.approx(spread)
    with pytest.raises(ValueError, match="evenly spaced"):
        theory_placement.softcse_optimal_gram([0, 30, 90, 200], 0.05)
    with pytest.raises(ValueError, match="share an angle"):
        theory_placement.softcse_optimal_gram([0, 0, 180], 0.05)

def test_xclr_ring_gram_is_a_cone_that_becomes_the_ring():
    ring = np.cos(np.radians(np.subtract.outer(theory_placement.RING_DEGREES, theory_placement.RING_DEGREES)))
    assert np.allclose(theory_placement.xclr_ring_gram(0.5, 0.5), ring)
    cone = theory_placement.xclr_ring_gram(0.1, 0.5)
    assert cone.min() == pytest.approx(1 - 0.2 * 2)  # opposite labels: 1 - (tau/tau')(1 - (-1))
    with pytest.raises(ValueError, match="tau <= tau'"):
        theory_placement.xclr_ring_gram(0.6, 0.5)

def test_angle_variant_of_corollary_3_9():
    assert theory_placement.angle_soft_supcon_angle(0.1, 0.01) == pytest.approx(0.1 * math.log(100))
    # the cosine needs 1 + tau log eps >= -1/11; the angle tau log(1/eps) <= arccos(-1/11)
    assert theory_placement.angle_soft_supcon_attainable(0.1, 0.01, 12) == (True, True)
    assert theory_placement.angle_soft_supcon_attainable(0.3, 0.01, 12) == (False, True)
    assert theory_placement.angle_soft_supcon_attainable(0.5, 0.01, 12) == (False, False)

def test_concept_and_ranking_closed_forms_by_hand():
    info = theory_placement.one_positive_optimal_loss(8, 0.05)
    bce = math.log1p(math.exp(-10)) + 2 * math.log1p(math.exp(-30))
    assert theory_placement.concept_optimal_loss(8, 2) == pytest.approx(2.7 * info + 0.5 * bce)
    assert np.allclose(theory_placement.cosent_levels(6), [-1, -0.6, -0.2, 0.2, 0.6, 1])
    assert theory_placement.ranking_range_bound(240, 1.0, math.sqrt(2)) == pytest.approx(math.log1p(240 * math.exp(-math.sqrt(2))))

def test_realise_builds_the_gram_it_is_given():
    G = theory_placement.softcse_optimal_gram()
    Z = theory_placement.realise(G, 3, 16)
    assert Z.shape == (36, 16)
    M = Z[::3]
    assert torch.allclose(M @ M.T, torch.as_tensor(G), atol=1e-10)
    with pytest.raises(ValueError, match="rank"):
        theory_placement.realise(G, 1, 4)

def test_the_registry_places_every_objective():
    assert set(theory_placement.OBJECTIVES) == INSIDE | OUTSIDE
    assert {k for k, o in theory_placement.OBJECTIVES.items() if o.inside} == INSIDE
    for o in theory_placement.OBJECTIVES.values():
        assert o.family in ("weighted InfoNCE", "outside") and o.why and o.target and o.bound and o.prediction
        module, _, rest = o.loss.partition(" ")
        mod, name = module.rsplit(".", 1)
        assert hasattr(importlib.import_module(f"companion.{mod}"), name), o.loss
    outside = {k: o.why for k, o in theory_placement.OBJECTIVES.items() if not o.inside}
    assert "denominator" in outside["sincere"] and "log-sum-exp" in outside["softcse"]
    assert "ranking" in outside["cosent"] and "regression" in outside["circularcse"]
    assert "logistic" in outside["concepts"] and "ranking" in outside["angle-objective"]
    assert "margin" in outside["simace"] and "denominator" in outside["simace"] and "margin" in outside["arccon"]
    assert "other view only" in outside["simcse"] and "Def. 3.1" in outside["simcse"]
    assert set(theory_free.free_problems()) == set(theory_placement.OBJECTIVES)
    table = theory_placement.framework_table()
    assert len(table) == len(theory_placement.OBJECTIVES) and set(table["place"]) == {"inside", "outside"}

def test_range_table_lists_every_objective_and_the_attainability():
    ranges, facts = theory_placement.range_table(batch=64)
    assert len(ranges) == len(theory_placement.OBJECTIVES)
    assert facts.loc[facts.index.str.contains("τ = 0.3"), "value"].iloc[0] == "(False, True)"

def test_fmt_writes_short_numbers():
    assert theory_placement.fmt(1.8245048672675044) == "1.825" and theory_placement.fmt(5.5e-10, 2) == "5.5e-10"
