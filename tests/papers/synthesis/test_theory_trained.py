"""companion.papers.synthesis.theory_trained: the label geometry of trained heads, the head losses, the
effective-temperature runs, the explained-within criterion and the summary table."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from companion import stats
from companion.losses.circumplex import ECM_LABELS
from companion.losses.weighted import (
    cosine_similarities,
    soft_supcon_weights,
    supcon_weights,
    weighted_infonce,
)
from companion.papers.synthesis import theory_placement, theory_trained


def _ring_embeddings(gram, per_class=3):
    Z = theory_placement.realise(gram, per_class, 16)
    noise = 1e-3 * torch.randn(Z.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    labels = [ECM_LABELS[c] for c in range(12) for _ in range(per_class)]
    return F.normalize(Z + noise, dim=1), labels

def test_label_geometry_reads_the_ring_and_the_tilt():
    ring = np.cos(np.radians(np.subtract.outer(theory_placement.RING_DEGREES, theory_placement.RING_DEGREES)))
    Z, labels = _ring_embeddings(ring)
    g = theory_trained.label_geometry(Z, labels)
    assert g["ring_r"] == pytest.approx(1.0, abs=1e-4) and g["between"] == pytest.approx(-1 / 11, abs=1e-3)
    assert g["ring_gap"] == pytest.approx(math.cos(math.radians(30)) + 1, abs=1e-3)  # cos 30 - cos 180
    Z, labels = _ring_embeddings(theory_placement.softcse_optimal_gram())
    g = theory_trained.label_geometry(Z, labels)
    assert g["softcse_r"] == pytest.approx(1.0, abs=1e-3) and g["softcse_r"] > g["ring_r"]
    # the tilt: tau (log(1 - cos 180) - log(1 - cos 30)) at tau = 0.05, the same mean -1/11 as the ring
    assert g["ring_gap"] == pytest.approx(0.05 * math.log(2 / (1 - math.cos(math.radians(30)))), abs=1e-3)
    assert g["between"] == pytest.approx(-1 / 11, abs=1e-3)
    simplex = np.full((12, 12), -1 / 11) + np.eye(12) * (1 + 1 / 11)
    Z, labels = _ring_embeddings(simplex)
    g = theory_trained.label_geometry(Z, labels)
    assert g["ring_gap"] == pytest.approx(0.0, abs=1e-3) and g["between"] == pytest.approx(-1 / 11, abs=1e-3)
    assert g["within"] == pytest.approx(1.0, abs=1e-4)
    with pytest.raises(ValueError, match="every ECM label"):
        theory_trained.label_geometry(Z[:6], labels[:6])

def test_head_losses_are_the_weighted_infonce():
    gen = torch.Generator().manual_seed(0)
    labels = [ECM_LABELS[c] for c in range(12) for _ in range(3)]
    ids = torch.arange(12).repeat_interleave(3)
    emb = torch.randn(36, 8, generator=gen, dtype=torch.float64)
    S = cosine_similarities(emb, 0.1)
    assert float(theory_trained.head_loss("SupCon")(emb, labels)) == pytest.approx(float(weighted_infonce(supcon_weights(ids), S)))
    assert float(theory_trained.head_loss("Soft SupCon")(emb, labels)) == pytest.approx(
        float(weighted_infonce(soft_supcon_weights(ids, 0.01), S)))
    # a label with a single example in the batch is skipped by SupCon, not an error
    assert math.isfinite(float(theory_trained.head_loss("SupCon")(emb[:25], labels[:25])))
    with pytest.raises(ValueError, match="Unknown head loss"):
        theory_trained.head_loss("InfoNCE")
    assert theory_trained.predicted_between("Soft SupCon") == pytest.approx(1 + 0.1 * math.log(0.01))
    assert theory_trained.predicted_between("SoftCSE") == pytest.approx(-1 / 11)
    assert theory_trained.predicted_gap("CircularCSE") == pytest.approx(1 + math.sqrt(3) / 2)
    assert theory_trained.predicted_gap("SoftCSE") == pytest.approx(0.05 * math.log(2 / (1 - math.sqrt(3) / 2)))
    assert theory_trained.predicted_gap("SINCERE") == theory_trained.predicted_gap("Soft SupCon") == 0.0
    with pytest.raises(ValueError):
        theory_trained.predicted_gap("InfoNCE")

def test_temperature_jobs_reload_simace_02s_runs_and_add_the_matched_ones():
    jobs = theory_trained.temperature_jobs([0, 1], 64)
    names = [j[0] for j in jobs if j[2] == 0]
    assert names[:5] == list(theory_trained.SIMACE_REFERENCE)
    assert names[5:] == ["SimCSE τ=0.0384", "SimCSE τ=0.0432"]
    assert ("SimCSE τ=0.0384", ("simcse", 0.0384, 0.0), 1) in jobs and len(jobs) == 14

def test_explained_within_judges_a_residual_against_a_measured_gain():
    gain = stats.paired([1.0, 1.1, 0.9, 1.05], [0.0, 0.0, 0.0, 0.0])
    crit = theory_trained.explained_within(gain, what="the gain")
    assert "0.5 x |the gain|" in crit.description and "1.0" not in crit.description
    assert crit.verdict(stats.sample([0.01, -0.02, 0.0, 0.01])) == "reproduced"
    assert crit.verdict(stats.sample([0.9, 1.0, 0.95, 1.05])) == "not reproduced"
    assert crit.verdict(stats.sample([0.3, 0.7, 0.5, 0.6])) == "inconclusive"
    flat = theory_trained.explained_within(stats.paired([0.1, -0.1, 0.05], [0.0, 0.0, 0.0]))
    assert flat.judge(stats.sample([0.0, 0.01, -0.01])).verdict == "inconclusive"
    with pytest.raises(ValueError, match="fraction"):
        theory_trained.explained_within(gain, fraction=1.5)

def test_summary_table_reads_verdicts_from_the_ledger():
    claims = [{"id": "free:supcon", "verdict": "reproduced"}]
    table = theory_trained.summary_table(claims, {"supcon": "3 of 3"}, {}, {"supcon": ["free:supcon"]})
    assert table.loc["SupCon (Hard)", "verdicts"] == "free:supcon: reproduced"
    assert table.loc["SupCon (Hard)", "trained geometry"] == "-"
    assert table.loc["CoSENT", "where it sits"].startswith("outside")
    with pytest.raises(KeyError, match="not in the ledger"):
        theory_trained.summary_table(claims, {}, {}, {"cosent": ["free:cosent"]})


def test_emolit_heads_reuse_saved_weights_only_with_the_same_settings():
    from companion.encoders.states import PackedStates
    from companion.papers.circumplex.experiments import head_settings

    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(1, 5, (24,), generator=g)
    states = PackedStates(torch.randn(int(lengths.sum()), 8, generator=g).half(), lengths)
    labels = [ECM_LABELS[i % 12] for i in range(24)]
    kw = dict(losses=["SINCERE"], seeds=[3], steps=2, batch_size=12, lr=1e-2, n_heads=2)
    trained, source, record = theory_trained.emolit_heads({}, states, labels, pooling="cls", **kw)
    assert source == {("SINCERE", 3): "trained here"} and trained[("SINCERE", 3)].pooling == "cls"
    state = {k: v.clone() for k, v in trained[("SINCERE", 3)].state_dict().items()}
    settings = head_settings("GPT", "SINCERE", states, steps=2, batch_size=12, lr=1e-2, seed=3, n_heads=2,
                             pooling="cls")
    saved = {("Emolit", "GPT", "SINCERE", "state", 3): state, ("Emolit", "GPT", "SINCERE", "settings", 3): settings}
    heads, source, record = theory_trained.emolit_heads(saved, states, labels, pooling="cls", **kw)
    assert source == {("SINCERE", 3): "circumplex/02 cache"} and not record
    assert all(torch.equal(v, state[k]) for k, v in heads[("SINCERE", 3)].state_dict().items())
    # other settings (mean pooling; no clipping) or no settings record: trained here, never the saved weights
    for other, store in ((dict(pooling="mean"), saved), (dict(pooling="cls", clip_norm=None), saved),
                         (dict(pooling="cls"), {k: v for k, v in saved.items() if k[3] == "state"})):
        _, source, record = theory_trained.emolit_heads(store, states, labels, **kw, **other)
        assert source == {("SINCERE", 3): "trained here"} and ("SINCERE", 3) in record, other
