"""companion.papers.synthesis.theory: hand-computed bounds and optima, attainment at constructed optima, the
placement of every objective, and the helpers of the entropic-yardstick notebook."""

import importlib
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from companion import stats
from companion.losses.circumplex import ECM_LABELS, population_bound
from companion.losses.weighted import (
    cosine_similarities,
    entropic_bound,
    entropic_gap,
    soft_supcon_weights,
    supcon_weights,
    weighted_infonce,
)
from companion.papers.synthesis import theory

INSIDE = {"supcon", "soft-supcon", "xclr-ring", "simcse", "ibn"}
OUTSIDE = {"sincere", "softcse", "circularcse", "simace", "arccon", "concepts", "cosent", "angle-objective"}


# --------------------------------------------------------------------------------------------- hand-computed values
def test_ranges_of_the_three_similarities():
    assert theory.logit_range("cosine", 0.05) == pytest.approx(40.0)
    assert theory.logit_range("angle", 0.05) == pytest.approx(math.pi / 0.05)
    assert theory.logit_range("complex angle", 1.0) == pytest.approx(math.sqrt(2))
    with pytest.raises(ValueError, match="similarity"):
        theory.logit_range("dot", 0.1)
    with pytest.raises(ValueError, match="tau"):
        theory.logit_range("cosine", 0.0)


def test_supcon_bound_and_targets_by_hand():
    ids = torch.arange(12).repeat_interleave(4)
    # uniform over the 3 other examples of the label: H = log 3
    assert float(entropic_bound(supcon_weights(ids))) == pytest.approx(math.log(3))
    # Soft SupCon: 3 same-label weights 1 and 44 weights eps per row
    eps = 0.01
    z = 3 + 44 * eps
    hand = -(3 * (1 / z) * math.log(1 / z) + 44 * (eps / z) * math.log(eps / z))
    assert float(entropic_bound(soft_supcon_weights(ids, eps))) == pytest.approx(hand)


def test_sincere_optimum_by_hand_and_against_the_population_bound():
    # 3 classes of 2: each term log(1 + (C - 1) l e^{-C/((C-1) tau)}) = log(1 + 4 e^{-1.5}) at tau = 1
    assert theory.sincere_optimal_loss(3, 2, 1.0) == pytest.approx(math.log1p(4 * math.exp(-1.5)))
    assert theory.sincere_optimal_loss(12, 1, 0.05) == pytest.approx(population_bound(12, 0.05))
    with pytest.raises(ValueError):
        theory.sincere_optimal_loss(1, 2, 0.1)


def test_one_positive_optima_by_hand():
    # two sentences: the simplex is antipodal, cosine gap 2
    assert theory.one_positive_optimal_loss(2, 1.0) == pytest.approx(math.log1p(math.exp(-2.0)))
    # the angle (no margin): gap arcsin(1 - eps) + pi/2 at n = 2
    gap = theory.positive_angle_logit() + math.pi / 2
    assert theory.one_positive_optimal_loss(2, 1.0, "angle") == pytest.approx(math.log1p(math.exp(-gap)))
    # a margin shifts the loss, by e^{m/tau} inside the log
    base = theory.one_positive_optimal_loss(16, 0.06, "angle")
    m = theory.one_positive_optimal_loss(16, 0.06, "angle", 10.0)
    assert math.expm1(m) == pytest.approx(math.expm1(base) * math.exp(math.radians(10) / 0.06))
    with pytest.raises(ValueError, match="margin"):
        theory.one_positive_optimal_loss(16, 0.05, "cosine", 10.0)


def test_effective_temperature_matches_the_optimal_losses_and_tends_to_2_tau_over_pi():
    for n, m in ((8, 0.0), (64, 0.0), (64, 10.0)):
        t = theory.effective_temperature(0.06, n, m)
        assert theory.one_positive_optimal_loss(n, t) == pytest.approx(
            theory.one_positive_optimal_loss(n, 0.06, "angle", m), rel=1e-12)
    assert theory.effective_temperature(0.06, 10 ** 6) == pytest.approx(0.12 / math.pi, rel=2e-3)
    assert theory.effective_temperature(0.06, 64, 10.0) > theory.effective_temperature(0.06, 64)  # margin: hotter
    assert theory.matched_temperatures(64) == {"SimACE m=0°": 0.0384, "SimACE": 0.0432}
    with pytest.raises(ValueError, match="room"):
        theory.effective_temperature(0.06, 64, 95.0)


def test_softcse_optimal_gram_is_a_tilted_simplex():
    G = theory.softcse_optimal_gram(tau=0.05)
    assert np.allclose(np.diag(G), 1.0) and np.allclose(G, G.T)
    assert np.allclose(G.sum(1), 0.0, atol=1e-12)  # G 1 = 0: the mean between labels is -1/11
    assert np.linalg.eigvalsh(G).min() > -1e-10
    first = G[0, 1:7]  # labels 30, 60, ..., 180 degrees away
    assert np.all(np.diff(first) < 0)  # nearer labels are more similar
    # the spread between 30 and 180 degrees: tau (log 2 - log(1 - cos 30))
    spread = 0.05 * (math.log(2) - math.log(1 - math.cos(math.radians(30))))
    assert G[0, 1] - G[0, 6] == pytest.approx(spread)
    with pytest.raises(ValueError, match="evenly spaced"):
        theory.softcse_optimal_gram([0, 30, 90, 200], 0.05)
    with pytest.raises(ValueError, match="share an angle"):
        theory.softcse_optimal_gram([0, 0, 180], 0.05)


def test_softcse_closed_form_equals_the_library_at_its_optimum():
    for ell, tau in ((2, 0.05), (4, 0.1)):
        assert theory.relation_holds(theory.softcse_closed_form(ell, tau), theory.softcse_optimal_loss(ell, tau))


def test_xclr_ring_gram_is_a_cone_that_becomes_the_ring():
    ring = np.cos(np.radians(np.subtract.outer(theory.RING_DEGREES, theory.RING_DEGREES)))
    assert np.allclose(theory.xclr_ring_gram(0.5, 0.5), ring)
    cone = theory.xclr_ring_gram(0.1, 0.5)
    assert cone.min() == pytest.approx(1 - 0.2 * 2)  # opposite labels: 1 - (tau/tau')(1 - (-1))
    with pytest.raises(ValueError, match="tau <= tau'"):
        theory.xclr_ring_gram(0.6, 0.5)


def test_angle_variant_of_corollary_3_9():
    assert theory.angle_soft_supcon_angle(0.1, 0.01) == pytest.approx(0.1 * math.log(100))
    # the cosine needs 1 + tau log eps >= -1/11; the angle tau log(1/eps) <= arccos(-1/11)
    assert theory.angle_soft_supcon_attainable(0.1, 0.01, 12) == (True, True)
    assert theory.angle_soft_supcon_attainable(0.3, 0.01, 12) == (False, True)
    assert theory.angle_soft_supcon_attainable(0.5, 0.01, 12) == (False, False)


def test_concept_and_ranking_closed_forms_by_hand():
    info = theory.one_positive_optimal_loss(8, 0.05)
    bce = math.log1p(math.exp(-10)) + 2 * math.log1p(math.exp(-30))
    assert theory.concept_optimal_loss(8, 2) == pytest.approx(2.7 * info + 0.5 * bce)
    assert np.allclose(theory.cosent_levels(6), [-1, -0.6, -0.2, 0.2, 0.6, 1])
    assert theory.ranking_range_bound(240, 1.0, math.sqrt(2)) == pytest.approx(math.log1p(240 * math.exp(-math.sqrt(2))))


def test_realise_builds_the_gram_it_is_given():
    G = theory.softcse_optimal_gram()
    Z = theory.realise(G, 3, 16)
    assert Z.shape == (36, 16)
    M = Z[::3]
    assert torch.allclose(M @ M.T, torch.as_tensor(G), atol=1e-10)
    with pytest.raises(ValueError, match="rank"):
        theory.realise(G, 1, 4)


# --------------------------------------------------------------------------------------------- attainment
def test_every_closed_form_equals_the_library_loss_at_its_configuration():
    for name, (a, b) in theory.closed_form_checks().items():
        assert theory.relation_holds(a, b), name


def test_every_placement_identity_holds():
    for name, (a, b, rel) in theory.placement_checks().items():
        assert theory.relation_holds(a, b, rel), name


def test_constructed_optima_meet_every_condition_and_the_bounds():
    problems = theory.free_problems()
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
    p = theory.free_problems()["sincere"]
    Z = p.constructed.clone()
    Z[0] = F.normalize(Z[0] + 0.5 * Z[10], dim=0)  # one example leaves its class
    assert not all(c.passed for c in p.conditions(Z, p.loss(Z)))


def test_prediction_text_is_fixed_and_holds_no_measured_number():
    p = theory.free_problems()["softcse"]
    a, b = theory.prediction_text(p), theory.prediction_text(theory.free_problems()["softcse"])
    assert a == b and "collapses" in a and "L* = 1.06007e-08" in a


def test_fit_free_reaches_a_fast_optimum():
    p = theory.free_problems()["ibn"]
    fits = [theory.fit_free(p, seed, steps=200) for seed in (0, 1)]
    best = theory.best_fit(fits)
    assert best.loss == min(f.loss for f in fits)
    conds, line = theory.numerical_summary(p, fits)
    assert all(c.passed for c in conds) and line.startswith(f"{len(conds)} of {len(conds)} conditions hold")


# --------------------------------------------------------------------------------------------- classification
def test_the_registry_places_every_objective():
    assert set(theory.OBJECTIVES) == INSIDE | OUTSIDE
    assert {k for k, o in theory.OBJECTIVES.items() if o.inside} == INSIDE
    for o in theory.OBJECTIVES.values():
        assert o.family in ("weighted InfoNCE", "outside") and o.why and o.target and o.bound and o.prediction
        module, _, rest = o.loss.partition(" ")
        mod, name = module.rsplit(".", 1)
        assert hasattr(importlib.import_module(f"companion.{mod}"), name), o.loss
    outside = {k: o.why for k, o in theory.OBJECTIVES.items() if not o.inside}
    assert "denominator" in outside["sincere"] and "log-sum-exp" in outside["softcse"]
    assert "ranking" in outside["cosent"] and "regression" in outside["circularcse"]
    assert "logistic" in outside["concepts"] and "ranking" in outside["angle-objective"]
    assert "margin" in outside["simace"] and "denominator" in outside["simace"] and "margin" in outside["arccon"]
    assert set(theory.free_problems()) == set(theory.OBJECTIVES)
    table = theory.framework_table()
    assert len(table) == len(theory.OBJECTIVES) and set(table["place"]) == {"inside", "outside"}


def test_sincere_is_not_a_weighted_infonce_but_matches_supcon_with_one_positive():
    checks = theory.placement_checks(seed=3)
    a, b, _ = checks["SINCERE = SupCon with 2 examples per label"]
    assert a == pytest.approx(b)
    sup, sincere, rel = checks["SINCERE < SupCon with 4 examples per label"]
    assert rel == ">" and sup > sincere


def test_range_table_lists_every_objective_and_the_attainability():
    ranges, facts = theory.range_table(batch=64)
    assert len(ranges) == len(theory.OBJECTIVES)
    assert facts.loc[facts.index.str.contains("τ = 0.3"), "value"].iloc[0] == "(False, True)"


# --------------------------------------------------------------------------------------------- trained geometry
def _ring_embeddings(gram, per_class=3):
    Z = theory.realise(gram, per_class, 16)
    noise = 1e-3 * torch.randn(Z.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    labels = [ECM_LABELS[c] for c in range(12) for _ in range(per_class)]
    return F.normalize(Z + noise, dim=1), labels


def test_label_geometry_reads_the_ring_and_the_tilt():
    ring = np.cos(np.radians(np.subtract.outer(theory.RING_DEGREES, theory.RING_DEGREES)))
    Z, labels = _ring_embeddings(ring)
    g = theory.label_geometry(Z, labels)
    assert g["ring_r"] == pytest.approx(1.0, abs=1e-4) and g["between"] == pytest.approx(-1 / 11, abs=1e-3)
    Z, labels = _ring_embeddings(theory.softcse_optimal_gram())
    g = theory.label_geometry(Z, labels)
    assert g["softcse_r"] == pytest.approx(1.0, abs=1e-3) and g["softcse_r"] > g["ring_r"]
    assert g["within"] == pytest.approx(1.0, abs=1e-4)
    with pytest.raises(ValueError, match="every ECM label"):
        theory.label_geometry(Z[:6], labels[:6])


def test_head_losses_are_the_weighted_infonce():
    gen = torch.Generator().manual_seed(0)
    labels = [ECM_LABELS[c] for c in range(12) for _ in range(3)]
    ids = torch.arange(12).repeat_interleave(3)
    emb = torch.randn(36, 8, generator=gen, dtype=torch.float64)
    S = cosine_similarities(emb, 0.1)
    assert float(theory.head_loss("SupCon")(emb, labels)) == pytest.approx(float(weighted_infonce(supcon_weights(ids), S)))
    assert float(theory.head_loss("Soft SupCon")(emb, labels)) == pytest.approx(
        float(weighted_infonce(soft_supcon_weights(ids, 0.01), S)))
    # a label with a single example in the batch is skipped by SupCon, not an error
    assert math.isfinite(float(theory.head_loss("SupCon")(emb[:25], labels[:25])))
    with pytest.raises(ValueError, match="Unknown head loss"):
        theory.head_loss("InfoNCE")
    assert theory.predicted_between("Soft SupCon") == pytest.approx(1 + 0.1 * math.log(0.01))
    assert theory.predicted_between("SoftCSE") == pytest.approx(-1 / 11)


def test_temperature_jobs_reload_simace_02s_runs_and_add_the_matched_ones():
    jobs = theory.temperature_jobs([0, 1], 64)
    names = [j[0] for j in jobs if j[2] == 0]
    assert names[:5] == list(theory.SIMACE_REFERENCE)
    assert names[5:] == ["SimCSE τ=0.0384", "SimCSE τ=0.0432"]
    assert ("SimCSE τ=0.0384", ("simcse", 0.0384, 0.0), 1) in jobs and len(jobs) == 14


def test_explained_within_judges_a_residual_against_a_measured_gain():
    gain = stats.paired([1.0, 1.1, 0.9, 1.05], [0.0, 0.0, 0.0, 0.0])
    crit = theory.explained_within(gain, what="the gain")
    assert "0.5 x |the gain|" in crit.description and "1.0" not in crit.description
    assert crit.verdict(stats.sample([0.01, -0.02, 0.0, 0.01])) == "reproduced"
    assert crit.verdict(stats.sample([0.9, 1.0, 0.95, 1.05])) == "not reproduced"
    assert crit.verdict(stats.sample([0.3, 0.7, 0.5, 0.6])) == "inconclusive"
    flat = theory.explained_within(stats.paired([0.1, -0.1, 0.05], [0.0, 0.0, 0.0]))
    assert flat.judge(stats.sample([0.0, 0.01, -0.01])).verdict == "inconclusive"
    with pytest.raises(ValueError, match="fraction"):
        theory.explained_within(gain, fraction=1.5)


def test_summary_table_reads_verdicts_from_the_ledger():
    claims = [{"id": "free:supcon", "verdict": "reproduced"}]
    table = theory.summary_table(claims, {"supcon": "3 of 3"}, {}, {"supcon": ["free:supcon"]})
    assert table.loc["SupCon (Hard)", "verdicts"] == "free:supcon: reproduced"
    assert table.loc["SupCon (Hard)", "trained geometry"] == "-"
    assert table.loc["CoSENT", "where it sits"].startswith("outside")
    with pytest.raises(KeyError, match="not in the ledger"):
        theory.summary_table(claims, {}, {}, {"cosent": ["free:cosent"]})


def test_fmt_writes_short_numbers():
    assert theory.fmt(1.8245048672675044) == "1.825" and theory.fmt(5.5e-10, 2) == "5.5e-10"


def test_emolit_heads_reuse_saved_weights_only_with_the_same_settings():
    from companion.encoders.states import PackedStates
    from companion.papers.circumplex.experiments import head_settings

    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(1, 5, (24,), generator=g)
    states = PackedStates(torch.randn(int(lengths.sum()), 8, generator=g).half(), lengths)
    labels = [ECM_LABELS[i % 12] for i in range(24)]
    kw = dict(losses=["SINCERE"], seeds=[3], steps=2, batch_size=12, lr=1e-2, n_heads=2)
    trained, source, record = theory.emolit_heads({}, states, labels, pooling="cls", **kw)
    assert source == {("SINCERE", 3): "trained here"} and trained[("SINCERE", 3)].pooling == "cls"
    state = {k: v.clone() for k, v in trained[("SINCERE", 3)].state_dict().items()}
    settings = head_settings("GPT", "SINCERE", states, steps=2, batch_size=12, lr=1e-2, seed=3, n_heads=2,
                             pooling="cls")
    saved = {("Emolit", "GPT", "SINCERE", "state", 3): state, ("Emolit", "GPT", "SINCERE", "settings", 3): settings}
    heads, source, record = theory.emolit_heads(saved, states, labels, pooling="cls", **kw)
    assert source == {("SINCERE", 3): "circumplex/02 cache"} and not record
    assert all(torch.equal(v, state[k]) for k, v in heads[("SINCERE", 3)].state_dict().items())
    # other settings (mean pooling; no clipping) or no settings record: trained here, never the saved weights
    for other, store in ((dict(pooling="mean"), saved), (dict(pooling="cls", clip_norm=None), saved),
                         (dict(pooling="cls"), {k: v for k, v in saved.items() if k[3] == "state"})):
        _, source, record = theory.emolit_heads(store, states, labels, **kw, **other)
        assert source == {("SINCERE", 3): "trained here"} and ("SINCERE", 3) in record, other
