"""The helpers of the SimACE notebooks: §3's checks and the narrow-cone experiment of 01
(companion.papers.simace.synthetic), the claim helpers of 02/03 (companion.papers.simace.claims, with
companion.stats.difference_se) and 03's run summaries (companion.papers.simace.analysis)."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest
import torch

from companion import stats
from companion.papers.simace import analysis, claims
from companion.papers.simace import synthetic as syn
from companion.papers.simace.synthetic import pair_forces

matplotlib.use("Agg")


# --------------------------------------------------------------------------------------------- §3 checks (01)
def test_gradient_norms_match_eq6_closed_forms():
    grads = syn.gradient_norms([1.0, 45.0, 90.0, 179.0], dim=16, scale=3.0, seed=0)
    assert list(grads.columns) == ["angle", "|dcos/dz|", "sin(phi)/|z|", "|dtheta/dz|", "1/|z|"]
    assert grads["angle"].tolist() == [1.0, 45.0, 90.0, 179.0]
    assert np.allclose(grads["|dcos/dz|"], grads["sin(phi)/|z|"], rtol=1e-9)
    assert np.allclose(grads["|dtheta/dz|"], grads["1/|z|"], rtol=1e-9)  # the angle's gradient does not decay
    pd.testing.assert_frame_equal(grads, syn.gradient_norms([1.0, 45.0, 90.0, 179.0], dim=16, seed=0))
    with pytest.raises(ValueError):
        syn.gradient_norms([10.0], dim=1)


def test_pull_grid_covers_the_grid_and_equals_pair_forces():
    pos = np.radians([5.0, 20.0])
    pulls = syn.pull_grid((0.05, 0.07), (-10.0, 10.0), pos, negatives_at=(30.0,), n_negatives=7)
    assert len(pulls) == 1 * 2 * (1 + 2 + 2) * 2  # simcse without margin, arccon and simace with each margin
    assert set(pulls.loc[pulls.objective == "simcse", "margin"]) == {0.0}
    row = pulls[(pulls.tau == 0.07) & (pulls.objective == "simace") & (pulls.margin == 10.0)].iloc[1]
    expected, _ = pair_forces(float(pos[1]), torch.full((7,), math.radians(30.0), dtype=torch.float64), "simace",
                              0.07, 10.0)
    assert row["pull"] == float(expected) and row["positive angle"] == pytest.approx(20.0)
    assert row["negatives at"] == "30°" and (pulls["pull"] > 0).all()


def test_push_grid_equals_pair_forces_on_the_probe():
    probes = np.radians([60.0, 120.0])
    pushes = syn.push_grid((0.05,), probes, specs=(("simcse", 0.0), ("simace", 10.0)), n_others=5)
    assert len(pushes) == 2 * 2 and pushes["negative angle"].round(6).tolist() == [60.0, 120.0] * 2
    neg = torch.tensor([probes[1]] + [math.radians(80.0)] * 5, dtype=torch.float64)
    _, push = pair_forces(math.radians(20.0), neg, "simace", 0.05, 10.0)
    assert pushes.iloc[3]["push"] == float(push[0])
    fig = syn.plot_pair_forces(syn.pull_grid((0.05,), (0.0,), np.radians([5.0, 10.0])), pushes, tau=0.05)
    assert len(fig.axes) == 3


def test_make_data_is_seeded_clusters():
    x, labels = syn.make_data(50, n_clusters=4, dim_in=3, seed=7)
    assert x.shape == (50, 3) and labels.shape == (50,)
    assert labels.min() >= 0 and labels.max() < 4
    x2, labels2 = syn.make_data(50, n_clusters=4, dim_in=3, seed=7)
    assert torch.equal(x, x2) and torch.equal(labels, labels2)
    with pytest.raises(ValueError):
        syn.make_data(0, 4, 3)


def test_cone_mlp_starts_in_a_narrow_cone():
    torch.manual_seed(0)
    model = syn.ConeMLP(dim_in=8, dim_out=16, dropout=0.1, bias=8.0).eval()
    assert float(model.net[-1].bias.detach().norm()) == pytest.approx(8.0)
    with torch.no_grad():
        z = torch.nn.functional.normalize(model(torch.randn(32, 8)), dim=1)
    cos = z @ z.T
    assert float(cos[~torch.eye(32, dtype=torch.bool)].mean()) > 0.9  # every output near the shared bias


def test_cone_geometry_and_cone_run_are_seeded():
    x, _ = syn.make_data(64, n_clusters=4, dim_in=8, seed=1)
    args = dict(dim_in=8, dim_out=16, dropout=0.1, bias=8.0)
    torch.manual_seed(0)
    model = syn.ConeMLP(**args)
    probe = [str(i) for i in range(16)]
    out = syn.cone_geometry(lambda keys: model(x[[int(k) for k in keys]]), model.train(), probe)
    assert set(out) == {"pos_angle", "neg_angle", "align", "uniform"} and not model.training
    assert 0 <= out["pos_angle"] < out["neg_angle"]  # two views of one point are closer than different points
    kwargs = dict(model_args=args, tau=0.05, margin_deg=10.0, steps=4, batch_size=8, lr=1e-3, log_every=2,
                  n_probe=16)
    a = syn.cone_run(x, "simace", 3, **kwargs)
    pd.testing.assert_frame_equal(a, syn.cone_run(x, "simace", 3, **kwargs))
    assert a["step"].tolist() == [0, 2, 4] and (a["seed"] == 3).all() and (a["objective"] == "simace").all()
    with pytest.raises(ValueError, match="n_probe"):
        syn.cone_run(x, "simcse", 0, **{**kwargs, "n_probe": 100})


# --------------------------------------------------------------------------------------------- claims (02/03)
def test_difference_se_by_hand():
    assert stats.difference_se(0.3, 0.4, 4) == pytest.approx(0.25)
    assert stats.difference_se(0.0, 0.0, 5) == 0.0
    for bad in [(-0.1, 0.2, 5), (0.1, float("nan"), 5), (0.1, 0.2, 0), (0.1, 0.2, 2.5)]:
        with pytest.raises(ValueError):
            stats.difference_se(*bad)


def test_seed_paired_with_and_without_a_quantity():
    wide = pd.DataFrame({"A": [3.0, 5.0, 4.0], "B": [1.0, 2.0, 4.0]}, index=[0, 1, 2])
    cmp = claims.seed_paired(wide, "A", "B")
    assert cmp.values == (2.0, 3.0, 0.0) and cmp.labels == ("A", "B")
    long = pd.DataFrame({"seed": [0, 0, 1, 1], "model": ["A", "B", "A", "B"], "x": [1.0, 0.5, 2.0, 1.0],
                         "y": [0.0, 0.0, 0.0, 1.0]}).pivot(index="seed", columns="model")
    assert claims.seed_paired(long, "A", "B", "x").values == (0.5, 1.0)
    assert claims.seed_paired(long, "A", "B", "y").values == (0.0, -1.0)
    with pytest.raises(KeyError):
        claims.seed_paired(wide, "A", "C")


def test_paper_gap_from_table2_by_hand():
    table2 = pd.DataFrame({"SimACE": [77.46], "SimACE_std": [0.3], "SimCSE": [75.97], "SimCSE_std": [0.4]},
                          index=pd.Index(["BERT-base"], name="PLMs"))
    effect, source, se = claims.paper_gap(table2, "SimACE", "SimCSE")
    assert effect == 1.49 and source == "Table 2: 77.46 - 75.97"
    assert se == pytest.approx(math.sqrt((0.09 + 0.16) / 5))  # the SE, not a tolerance
    crit = stats.direction(paper_effect=effect, paper_se=se)
    assert crit.params["tol"] == pytest.approx(1.96 * se, abs=1e-6)  # the policy turns it into 1.96 x SE
    assert "SE of the paper's own seeds" in crit.description


def _captions():
    return pd.DataFrame({"figure": ["Fig. 4", "Fig. 4", "Fig. 7", "Fig. 7"],
                         "model": ["SimACE", "SimCSE", "SimACE", "SimACE"],
                         "quantity": ["angle", "angle", "angle", "angle"],
                         "setting": [None, None, "tau = 0.07", "tau = 0.05"], "value": [10.5, 17.25, 3.0, 8.5]})


def test_caption_and_caption_gap():
    caps = _captions()
    assert claims.caption(caps, "Fig. 4", "SimACE", "angle") == 10.5
    assert claims.caption(caps, "Fig. 7", "SimACE", "angle", "tau = 0.05") == 8.5
    with pytest.raises(ValueError, match="2 caption rows"):
        claims.caption(caps, "Fig. 7", "SimACE", "angle")
    with pytest.raises(ValueError, match="0 caption rows"):
        claims.caption(caps, "Fig. 9", "SimACE", "angle")
    assert claims.caption_gap(caps, "Fig. 4", "angle", ("SimACE",), ("SimCSE",)) == (-6.75,
                                                                                     "Fig. 4 caption: 10.50 - 17.25")
    assert claims.caption_gap(caps, "Fig. 7", "angle", ("SimACE", "tau = 0.07"), ("SimACE", "tau = 0.05"))[0] == -5.5


def test_gap_fields_for_a_gap_and_for_a_sign():
    data = pd.DataFrame({"seed": [0, 0, 1, 1, 2, 2], "model": ["A", "B"] * 3,
                         "q": [2.0, 1.0, 2.1, 1.0, 1.9, 1.0]}).pivot(index="seed", columns="model")
    gap = claims.gap_fields(data, "q", "A", "B", 1.0)
    assert gap["paper_value"] == 1.0 and gap["ours"].estimate == pytest.approx(1.0)
    assert gap["criterion"].params["tol"] == 0.5  # no printed spread: half the paper's gap (the policy)
    assert gap["criterion"].verdict(gap["ours"]) == "reproduced"
    far = claims.gap_fields(data, "q", "A", "B", 3.0)  # ours +1.0 (CI about ±0.25) inside the band ±1.5: negligible
    assert far["criterion"].verdict(far["ours"]) == "not reproduced"
    tight = claims.gap_fields(data, "q", "A", "B", 1.2, paper_se=0.05)  # ±0.098: our +1.0 lies outside
    assert tight["criterion"].params["tol"] == pytest.approx(0.098)
    assert tight["criterion"].verdict(tight["ours"]) == "partly"
    against = claims.gap_fields(data, "q", "A", "B", -5.57)  # a firm reversal of a magnitude claim
    assert against["criterion"].verdict(against["ours"]) == "not reproduced"
    sign = claims.gap_fields(data, "q", "A", "B", -1, paper_text="A below B")
    assert sign["paper_value"] == "A below B"
    assert sign["criterion"].verdict(sign["ours"]) == "not reproduced"
    with pytest.raises(ValueError):
        claims.gap_fields(data, "q", "A", "B", 2, paper_text="?")
    with pytest.raises(ValueError, match="paper_se"):
        claims.gap_fields(data, "q", "A", "B", -1, paper_se=0.1)


def test_spread_gap_estimates_the_sd_difference():
    rng = np.random.default_rng(0)
    noise = rng.normal(size=4000)
    wide = pd.DataFrame({"A": 0.5 * noise, "B": 2.0 * rng.normal(size=4000)})
    cmp = claims.spread_gap(wide, "A", "B")
    assert cmp.labels == ("A", "B") and cmp.n == 4000
    assert cmp.estimate == pytest.approx(0.5 - 2.0, abs=0.1)  # sd(A) - sd(B) under normal noise
    assert cmp.excludes_zero() == -1
    three = claims.spread_gap(pd.DataFrame({"A": [1.0, 2.0, 3.0], "B": [0.0, 0.0, 6.0]}), "A", "B")
    k = math.sqrt(math.pi / 2) * math.sqrt(3 / 2)
    assert three.values == pytest.approx((k * (1 - 2), k * (0 - 2), k * (1 - 4)))  # |x - 2| for both means
    one = claims.spread_gap(pd.DataFrame({"A": [1.0], "B": [2.0]}), "A", "B")
    assert one.values == (0.0,) and one.ci is None
    with pytest.raises(KeyError):
        claims.spread_gap(wide, "A", "C")


def test_paired_rows_leaves_out_wilcoxon_below_six_seeds():
    from companion.papers.simace.summary import paired_rows

    three = paired_rows({"A": [1.0, 2.0, 3.5], "B": [0.0, 0.5, 1.0]}, [("A", "B")])
    assert "p (Wilcoxon)" not in three and three["n"].iloc[0] == 3
    six = paired_rows({"A": [1.0, 2.0, 3.5, 2.0, 4.0, 3.0], "B": [0.0] * 6}, [("A", "B")])
    assert six["p (Wilcoxon)"].iloc[0] == pytest.approx(0.03125)  # exact signed-rank, all six positive


# --------------------------------------------------------------------------------------------- analysis (03)
def _fake_run(from_cache=False):
    monitor = [{"step": 0, "dev": 70.0, "align": 0.5, "uniform": -2.0, "pos_angle": 20.0, "neg_angle": 50.0},
               {"step": 10, "dev": 72.0, "align": 0.4, "uniform": -2.1, "pos_angle": 10.0, "neg_angle": 60.0},
               {"step": 20, "dev": 71.0, "align": 0.3, "uniform": -2.2, "pos_angle": 14.0, "neg_angle": 64.0}]
    return {"monitor": monitor, "best_step": 10, "scores": {"avg": 74.5}, "from_cache": from_cache, "train_s": 1.0,
            "monitor_s": 0.5, "score_s": 0.25}


def test_run_record_summarises_one_run_by_hand():
    row, mon = analysis.run_record("SimACE", 3, _fake_run(), held_out_angle=61.0)
    assert (row["model"], row["seed"], row["STS avg"], row["best step"]) == ("SimACE", 3, 74.5, 10)
    assert (row["dev (best)"], row["align"], row["uniform"]) == (72.0, 0.4, -2.1)  # the selected checkpoint
    assert (row["pos_angle (last)"], row["neg_angle (last)"]) == (14.0, 64.0)
    assert row["pos_angle (mean)"] == 12.0 and row["neg_angle (mean)"] == 62.0  # step 0 left out
    assert row["neg_angle (sd over steps)"] == pytest.approx(np.std([50.0, 60.0, 64.0], ddof=1))
    assert row["held-out mean angle"] == 61.0 and row["from cache"] is False
    assert list(mon["model"].unique()) == ["SimACE"] and (mon["seed"] == 3).all()


class _Model:
    def encode(self, texts):
        return torch.eye(len(texts))  # orthogonal embeddings: every pairwise angle is 90°


def test_analysis_runs_calls_each_job_with_02s_cache_key(monkeypatch):
    import companion.dropout_views as runs

    calls = []

    def fake(base, texts, objective, tau, margin, steps, batch_size, lr, seed, **kw):
        calls.append(dict(objective=objective, tau=tau, margin=margin, seed=seed, **kw))
        return {**_fake_run(from_cache=objective != "simace" or tau != 0.05), "model": _Model()}

    monkeypatch.setattr(runs, "run_dropout_views", fake)
    jobs = [("SimCSE", ("simcse", 0.05, 0.0), 0), ("SimACE", ("simace", 0.06, 10.0), 0),
            ("SimACE τ=0.05", ("simace", 0.05, 10.0), 1)]
    finals, curves, models, reloaded = analysis.analysis_runs(
        None, ["a", "b"], jobs, steps=20, batch_size=2, lr=1e-4, dev=None, eval_every=10, probe=["p"], cache="c",
        pairs={}, score_key="k", held_out_texts=["x", "y", "z"], progress=False)
    assert finals["model"].tolist() == ["SimCSE", "SimACE", "SimACE τ=0.05"]
    assert reloaded == 2 and set(models) == {("SimCSE", 0), ("SimACE", 0), ("SimACE τ=0.05", 1)}
    assert len(curves) == 3 * 3
    assert [c["desc"] for c in calls] == ["SimCSE seed 0", "SimACE seed 0", "SimACE τ=0.05 seed 1"]
    assert all(c["reuse"] and c["cache"] == "c" and c["score_key"] == "k" for c in calls)
    assert finals["held-out mean angle"].iloc[0] == pytest.approx(90.0)
    assert finals["held-out mean angle"].tolist() == pytest.approx([90.0] * 3)  # measured for every run
