"""The helpers of the AnglE notebooks: the saturation checks and synthetic runs of 01
(companion.papers.angle.saturation) and the fine-tuning runs, tables and Table 4 gap claims of 02/03
(companion.papers.angle.experiments)."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest
import torch
import torch.nn.functional as F

from companion.losses.angle import AnglEObjective, eq6_code
from companion.papers.angle import experiments as ex
from companion.papers.angle import saturation as sat
from companion.papers.angle.pairs import synthetic_sts

matplotlib.use("Agg")


# --------------------------------------------------------------------------------------------- saturation (01)
def test_complex_division_checks_are_rounding_small_and_reject_odd_dims():
    checks = sat.complex_division_checks(n=20, dim=8, seed=3)
    assert set(checks) == {"div_err", "literal_dev", "code_vs_cos"}
    assert all(0 <= v < 1e-12 for v in checks.values())
    assert checks == sat.complex_division_checks(n=20, dim=8, seed=3)  # seeded: the same draws
    with pytest.raises(ValueError, match="even dim"):
        sat.complex_division_checks(n=5, dim=7)


def test_rotate_puts_row_i_at_angle_theta_i():
    theta = torch.linspace(0, math.pi, 13, dtype=torch.float64)
    u, v = sat.rotate(theta, 16, seed=0)
    assert u.shape == v.shape == (13, 16)
    assert torch.allclose(u.norm(dim=1), torch.ones(13, dtype=torch.float64))
    assert torch.allclose(v, v[:1].expand_as(v))  # one fixed reference vector
    angles = torch.arccos(F.cosine_similarity(u, v, dim=-1).clamp(-1, 1))
    assert torch.allclose(angles, theta, atol=1e-6)
    assert torch.equal(sat.rotate(theta, 16, seed=0)[0], u)
    with pytest.raises(ValueError):
        sat.rotate(theta, 1, seed=0)


def _plane_curves():
    theta = torch.linspace(0, math.pi, 181, dtype=torch.float64)
    v2 = torch.tensor([[1.0, 0.0]], dtype=torch.float64).expand(len(theta), 2)
    u2 = torch.stack([torch.cos(theta), torch.sin(theta)], dim=1)
    readings = {"cosine": lambda p, q: F.cosine_similarity(p, q, dim=-1), "code": eq6_code}
    geometries = {"plane": (u2, v2), "384-d": sat.rotate(theta, 384, 0)}
    return theta, sat.reading_curves(readings, geometries)


def test_reading_curves_geometry_major_and_cosine_gradient_is_sin():
    theta, curves = _plane_curves()
    assert list(curves) == [("plane", "cosine"), ("plane", "code"), ("384-d", "cosine"), ("384-d", "code")]
    values, grads = curves[("plane", "cosine")]
    assert torch.allclose(values, torch.cos(theta), atol=1e-12)
    assert torch.allclose(grads, torch.sin(theta), atol=1e-9)  # |d cos / du| = sin θ / |u|, |u| = 1
    fig = sat.plot_readings(theta, curves)
    assert len(fig.axes) == 4


def test_gradient_at_takes_the_nearest_grid_point_first_on_ties():
    theta = torch.tensor([0.0, 1.0, 2.0])
    grad = torch.tensor([10.0, 20.0, 30.0])
    assert sat.gradient_at(theta, grad, 0.9) == 20.0
    assert sat.gradient_at(theta, grad, 0.5) == 10.0  # equidistant: the first
    assert sat.gradient_at(theta, grad, 99.0) == 30.0
    with pytest.raises(ValueError):
        sat.gradient_at(theta, grad[:2], 0.0)


def test_gradient_table_reads_the_curves():
    theta, curves = _plane_curves()
    table = sat.gradient_table(theta, curves, [("0", 0.0), ("π/2", math.pi / 2), ("π", math.pi)])
    assert list(table.columns) == ["geometry", "reading", "|grad| at 0", "|grad| at π/2", "|grad| at π",
                                   "min |grad| over θ"]
    row = table.set_index(["geometry", "reading"]).loc[("plane", "cosine")]
    assert row["|grad| at 0"] == pytest.approx(0.0, abs=1e-12)
    assert row["|grad| at π/2"] == pytest.approx(1.0)
    assert row["min |grad| over θ"] == pytest.approx(0.0, abs=1e-12)
    # the code reading keeps a gradient where the cosine's vanishes (AnglE Fig. 2b)
    assert table.set_index(["geometry", "reading"]).loc[("384-d", "code"), "|grad| at 0"] > 0.5


def _sat_runs(**overrides):
    train, test = synthetic_sts(64, seed=1), synthetic_sts(48, seed=2)
    objectives = {"CoSENT only": AnglEObjective(1, 0, 0), "angle only": AnglEObjective(0, 0, 1, tau_angle=0.05)}
    kwargs = dict(offsets={"free": 0.0, "saturated": 12.0}, optimizers=("sgd", "adam"), steps=2,
                  lr={"sgd": 0.05, "adam": 1e-3}, batch_size=8, eval_every=1, probe=objectives["CoSENT only"],
                  progress=False)
    return sat.saturation_runs(objectives, train, test, [0, 1], **{**kwargs, **overrides})


def test_saturation_runs_are_seeded_and_the_offset_saturates_the_cosine():
    a, b = _sat_runs(), _sat_runs()
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == ["setting", "optimizer", "objective", "seed", "step", "spearman", "median_cos",
                               "probe_grad"]
    assert a.groupby(["setting", "optimizer", "objective", "seed"]).size().eq(3).all() and len(a) == 2 * 2 * 2 * 2 * 3
    start = a[a.step == 0].groupby("setting")[["median_cos", "probe_grad"]].mean()
    # the shared offset puts every pair near cosine 1, where the cosine objective's gradient all but vanishes
    assert start.loc["saturated", "median_cos"] > 0.99 > start.loc["free", "median_cos"]
    assert start.loc["saturated", "probe_grad"] < 0.01 * start.loc["free", "probe_grad"]
    with pytest.raises(ValueError, match="sgd"):
        _sat_runs(optimizers=("rmsprop",))


def test_saturation_summary_and_auc_deltas_pair_by_seed():
    runs = pd.DataFrame([{"setting": "s", "optimizer": "sgd", "objective": obj, "seed": seed, "step": step,
                          "spearman": val, "median_cos": 0.5, "probe_grad": 1.0}
                         for obj, seed, vals in [("CoSENT only", 0, [0, 10, 20]), ("CoSENT only", 1, [0, 30, 30]),
                                                 ("angle", 0, [0, 11, 25]), ("angle", 1, [0, 20, 40])]
                         for step, val in zip([0, 1, 2], vals)])
    summary = sat.saturation_summary(runs)
    angle = summary[summary.objective == "angle"].set_index("seed")
    assert angle.loc[0, "AUC"] == 18.0 and angle.loc[1, "final"] == 40.0  # step 0 is left out of the AUC
    assert angle["ΔAUC"].tolist() == [3.0, 0.0]
    assert sat.auc_deltas(summary, "s", "sgd", "angle", "CoSENT only").tolist() == [3.0, 0.0]
    with pytest.raises(ValueError, match="no runs"):
        sat.auc_deltas(summary, "s", "sgd", "angle", "SimCSE")
    with pytest.raises(ValueError, match="baseline"):
        sat.saturation_summary(runs, baseline="SimCSE")


# --------------------------------------------------------------------------------------------- experiments (02)
def test_sts_objectives_weights_and_thresholds():
    obj = ex.sts_objectives(4.0, tau_cos=0.05, tau_ibn=0.07, tau_angle=1.0)
    assert list(obj) == [ex.ANGLE, ex.COSENT, ex.INFONCE]
    with_sbert = ex.sts_objectives(4.0, tau_cos=0.05, tau_ibn=0.07, tau_angle=1.0, label_max=5.0)
    assert list(with_sbert) == [ex.ANGLE, ex.COSENT, ex.INFONCE, ex.SBERT] and with_sbert[ex.SBERT].label_max == 5.0
    assert (obj[ex.ANGLE].w_cos, obj[ex.ANGLE].w_ibn, obj[ex.ANGLE].w_angle) == (1, 1, 1)
    assert (obj[ex.COSENT].w_cos, obj[ex.COSENT].w_ibn, obj[ex.COSENT].w_angle) == (1, 0, 0)
    assert (obj[ex.INFONCE].w_cos, obj[ex.INFONCE].w_ibn, obj[ex.INFONCE].w_angle) == (0, 1, 0)
    assert obj[ex.ANGLE].positive_threshold == 4.0 and obj[ex.COSENT].positive_threshold is None
    assert all(o.tau_ibn == 0.07 for o in obj.values())


def _fake_upper(calls):
    def fake(base, train_data, evals, objective, *, seed, steps, batch_size, lr, warmup_steps=0, buckets=1,
             return_cosines=False, **kw):
        calls.append(dict(objective=objective, seed=seed, steps=steps, warmup=warmup_steps, **kw))
        scores = {name: 10.0 * seed + steps for name in evals}
        out = {"scores": scores, "loss_first": 2.0, "loss_last": 1.0, "loss_curve": [2.0, 1.5, 1.0], "train_s": 0.5,
               "movement": {"score_change": float(steps), "score_noise": 1.0, "drift": 0.01 * seed, "by_set": {}}}
        if return_cosines:
            out["cosines"] = {name: np.full(3, float(seed)) for name in evals}
        return out
    return fake


def test_sts_task_runs_rows_in_order(monkeypatch):
    calls = []
    monkeypatch.setattr(ex, "upper_experiment", _fake_upper(calls))
    tasks = {"STS-B": ("train", {"STS-B": "test"}, 3, 4.0, None), "MRPC": ("train", {"MRPC": "test"}, 2, None, 1.0)}
    out = ex.sts_task_runs(None, tasks, [0, 1], taus=dict(tau_cos=0.05, tau_ibn=0.05, tau_angle=1.0),
                           batch_size=4, lr=1e-4, warmup=1, buckets=1, pretrained_label="untrained", progress=False)
    assert len(out) == (1 + 3 * 2) + (1 + 4 * 2)  # MRPC also runs SBERT's regression
    assert out[out.task == "MRPC"]["objective"].tolist()[-2:] == [ex.SBERT, ex.SBERT]
    first = out.iloc[0]
    assert (first["task"], first["objective"], first["seed"]) == ("STS-B", "untrained", -1)
    assert calls[0]["objective"] is None and calls[0]["steps"] == 0
    sts = out[(out.task == "STS-B") & (out.seed >= 0)]
    assert sts["objective"].tolist() == [ex.ANGLE, ex.ANGLE, ex.COSENT, ex.COSENT, ex.INFONCE, ex.INFONCE]
    assert sts["STS-B"].tolist() == [3.0, 13.0] * 3 and (sts["loss_first10"] == 2.0).all()
    assert all(c == [2.0, 1.5, 1.0] for c in sts["loss_curve"])  # every step's loss, for the plateau check
    assert calls[1]["objective"].positive_threshold == 4.0 and calls[1]["warmup"] == 1
    assert sts["score_change"].tolist() == [3.0] * 6 and sts["drift"].tolist() == [0.0, 0.01] * 3
    assert all(c.get("n_top") is None for c in calls)
    ex.sts_task_runs(None, tasks, [0], taus=dict(tau_cos=0.05, tau_ibn=0.05, tau_angle=1.0), batch_size=4, lr=1e-4,
                     warmup=1, buckets=1, pretrained_label="untrained", progress=False, n_top=3)
    assert calls[-1]["n_top"] == 3 and all(c["n_top"] == 3 for c in calls[-8:])


def test_a_task_pools_as_told_and_the_profile_reaches_every_run(monkeypatch):
    """``poolings`` sets one task's pooling (its untrained row and its runs; the others keep the base's), and the
    notebook's profile reaches every trained run (the gpu profile's checkpoints) and no untrained one."""
    calls = []
    monkeypatch.setattr(ex, "upper_experiment", _fake_upper(calls))
    tasks = {"STS-B": ("train", {"STS-B": "test"}, 3, 4.0, None), "NLI": ("train", {"STS12": "test"}, 2, None, None)}
    ex.sts_task_runs(None, tasks, [0], taus=dict(tau_cos=0.05, tau_ibn=0.05, tau_angle=1.0), batch_size=4, lr=1e-4,
                     warmup=1, buckets=1, pretrained_label="untrained", progress=False, profile="gpu",
                     poolings={"NLI": "cls-mean"})
    assert [c.get("pooling") for c in calls] == [None] * 4 + ["cls-mean"] * 4  # 1 untrained + 3 objectives a task
    assert [c.get("profile") for c in calls] == [None, "gpu", "gpu", "gpu"] * 2
    calls.clear()
    ex.batch_size_runs("base", "train", {"avg": "test"}, "objective", [8], [0], pairs=64, lr=1e-4, warmup=0,
                       buckets=1, progress=False, profile="gpu", pooling="cls-mean")
    assert (calls[0]["pooling"], calls[0]["profile"]) == ("cls-mean", "gpu")


def test_batch_size_runs_see_the_same_pairs_at_every_size(monkeypatch):
    calls = []
    monkeypatch.setattr(ex, "upper_experiment", _fake_upper(calls))
    out = ex.batch_size_runs("base", "train", {"avg": "test"}, "objective", [8, 16], [0, 1], pairs=64, lr=1e-4,
                             warmup=6, buckets=1, progress=False)
    assert out["batch_size"].tolist() == [8, 8, 16, 16] and out["steps"].tolist() == [8, 8, 4, 4]
    assert [c["warmup"] for c in calls] == [0, 0, 0, 0]  # warm-up capped at a tenth of the steps
    assert out["avg"].tolist() == [8.0, 18.0, 4.0, 14.0]
    assert out["score_change"].tolist() == [8.0, 8.0, 4.0, 4.0] and "drift" in out
    with pytest.raises(ValueError, match="batch size"):
        ex.batch_size_runs("base", "train", {}, "objective", [1], [0], pairs=64, lr=1e-4, warmup=0, buckets=1)


def test_ceiling_and_idle_validity():
    from companion import stats

    below = ex.ceiling_validity(stats.paired([70.0, 71.0, 70.5], [72.0, 72.0, 72.0]), "SNLI")
    assert below.name == "ceiling" and not below.passed and "lowers the encoder below its untrained" in below.detail
    above = ex.ceiling_validity(stats.paired([72.0, 73.0, 72.5], [72.0, 72.0, 72.0]), "STS-B")
    assert above.passed and "CI [" in above.detail
    assert ex.ceiling_validity(stats.paired([70.0], [72.0]), "t").passed  # one seed: nothing measured
    moving, flat = [8.0, 8.1, 7.9, 6.0, 6.1, 5.9], [8.0, 8.1, 7.9, 8.0, 8.1, 7.9]
    runs = pd.DataFrame({"task": ["t"] * 4, "objective": ["ibn", "ibn", "cos", "cos"], "seed": [0, 1, 0, 1],
                         "loss_first10": [0.003, 0.002, 8.0, 8.2],
                         "loss_curve": [[0.003, 0.004] * 3, [0.002, 0.003] * 3, moving, moving]})
    idle = ex.idle_validity(runs, "t", "ibn", near_zero=0.05)
    assert idle.name == "trained" and not idle.passed and "near zero from step one" in idle.detail
    assert idle.reason.startswith("did not train: ibn on t")
    plain = ex.idle_validity(runs, "t", "ibn")  # without near_zero the one rule reads the curve (it did not move)
    assert not plain.passed and "near zero" not in plain.detail
    assert ex.idle_validity(runs, "t", "cos").passed      # thirds 8.05 -> 5.95 against an SE of 0.07
    still = runs.assign(loss_curve=[flat] * 4)
    assert not ex.idle_validity(still, "t", "cos").passed
    with pytest.raises(ValueError, match="no runs"):
        ex.idle_validity(runs, "t", "angle")


def test_loss_plateau_fails_a_falling_curve_and_a_short_one():
    steps = np.arange(30)
    falling = list(5.0 - 0.1 * steps)                                   # still falling at the end
    settled = list(np.r_[5.0 - 0.2 * steps[:20], 1.0 + 0.01 * (-1.0) ** steps[20:]])  # flat with a wiggle
    frame = pd.DataFrame({"objective": ["a", "a", "b"], "seed": [0, 1, 0],
                          "loss_curve": [settled, settled, falling]})
    ok = ex.loss_plateau(frame, ["a"])
    assert ok.name == "plateau" and ok.passed and ok.detail.startswith("2 of 2 runs of a")
    bad = ex.loss_plateau(frame, ["a", "b"])
    assert not bad.passed and "b seed 0" in bad.detail and bad.reason.startswith("budget: 2 of 3")
    short = ex.loss_plateau(frame.assign(loss_curve=[[1.0, 0.9]] * 3), ["a"])
    assert not short.passed and "too few steps" in short.detail
    with pytest.raises(KeyError, match="no runs"):
        ex.loss_plateau(frame, ["c"])


def _curve(start: float, rise: float, points: int = 9, every: int = 8, wiggle: float = 0.0) -> dict:
    return {every * k: {"x": start + rise * k + wiggle * (-1) ** k, "y": 2 * start} for k in range(points)}


def test_score_plateau_reads_the_claims_own_gap_along_training():
    rows = [{"task": "t", "objective": o, "seed": seed, "steps": 64, "curve": _curve(v, rise, wiggle=w)}
            for seed in (0, 1, 2) for o, v, rise, w in (("a", 60.0, 1.0, 0.05), ("b", 50.0, 1.0, 0.0))]
    together = pd.DataFrame(rows)
    # both objectives still climb at the same pace: each one's score moves, the gap a − b (10 points) does not
    assert not ex.score_plateau(together, {}, "x", "a").passed
    flat_gap = ex.score_plateau(together, {}, "x", "a", "b", gap=10.0)
    assert flat_gap.passed and flat_gap.detail.startswith("x score gap along training (mean of 3 seeds): a − b")
    # b catches up while a is flat: the gap (2 points at the end) still falls by a point a step, and the check
    # says which way (towards b)
    closing = pd.DataFrame([{**r, "curve": _curve(60.0, 0.0, wiggle=0.05) if r["objective"] == "a"
                             else _curve(50.0, 1.0)} for r in rows])
    falling = ex.score_plateau(closing, {}, "x", "a", "b", gap=2.0)
    assert (falling.passed, falling.trend) == (False, -1)
    # "avg" is the mean over the curve's sets: x + 2 x start, so the same trend
    assert ex.score_curves(together, {"objective": "b"}, "avg").value.iloc[0] == pytest.approx((50.0 + 100.0) / 2)
    # runs of different lengths over the same pairs are compared at the same shares of the pass
    sizes = pd.DataFrame([{"batch_size": b, "seed": s, "steps": n, "curve": _curve(v, 0.0, every=n // 8,
                                                                                    wiggle=0.01 * (b == 8))}
                          for s in (0, 1) for b, n, v in ((8, 256, 70.0), (50, 40, 65.0))])
    shares = ex.score_curves(sizes, {}, "x", key="batch_size", along="fraction")
    assert sorted(shares.step.unique()) == pytest.approx([k / 8 for k in range(9)])
    assert ex.score_plateau(sizes, {}, "x", 8, 50, key="batch_size", along="fraction", gap=5.0).passed
    with pytest.raises(KeyError, match="no recorded score curve"):
        ex.score_curves(together.drop(columns="curve"), {}, "x")
    # a score that is not a number (a constant embedding's Spearman) fails the check instead of stopping the notebook
    broken = pd.DataFrame([{**r, "curve": {**r["curve"], 16: {"x": float("nan"), "y": 1.0}}} for r in rows])
    check = ex.score_plateau(broken, {}, "x", "a", "b", gap=10.0)
    assert not check.passed and "not finite" in check.detail


def test_ranking_room_is_zero_for_gold_order_and_shrinks_with_the_temperature():
    labels = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    ordered = torch.tensor([0.1, 0.2, 0.3, 0.4, 0.5])
    assert ex.ranking_room(ordered, labels, 20.0) == pytest.approx(0.0, abs=1e-12)
    reversed_room = ex.ranking_room(ordered.flip(0), labels, 20.0)
    assert reversed_room > 1.0
    # at scale 1 the same scores leave almost no room: the loss cannot fall (AnglE Eq. 7 at tau = 1)
    assert 0 < ex.ranking_room(ordered.flip(0), labels, 1.0) < 0.1 * reversed_room
    with pytest.raises(ValueError, match="1-D"):
        ex.ranking_room(ordered[:3], labels, 1.0)


def test_isp_share_counts_rows_with_an_identical_text_elsewhere():
    from companion.papers.angle.pairs import PairData

    data = PairData(["a", "b", "a", "c"], ["x", "y", "z", "a"], [1.0, 0.0, 1.0, 0.0])
    # one batch of all four pairs: "a" appears in rows 0, 4 and 7, none of them partners of each other
    assert ex.isp_share(data, batch_size=4, seed=0, steps=1) == pytest.approx(3 / 8)
    distinct = PairData(["a", "b"], ["x", "y"], [1.0, 0.0])
    assert ex.isp_share(distinct, batch_size=2, seed=0, steps=3) == 0.0
    with pytest.raises(ValueError, match="steps"):
        ex.isp_share(data, batch_size=4, seed=0, steps=0)


def test_mean_std_formats_by_objective_in_order():
    frame = pd.DataFrame({"objective": ["b", "b", "a"], "x": [1.0, 3.0, 5.0]})
    table, means = ex.mean_std(frame, ["x"])
    assert list(table.index) == ["b", "a"]
    assert table.loc["b", "x"] == "2.0 ± 1.41" and table.loc["a", "x"] == "5.0 ± 0.0"
    assert means.loc["b", "x"] == 2.0


def test_seed_scores_orders_by_seed_and_repeats_the_untrained_score():
    frame = pd.DataFrame({"objective": ["u", "A", "A", "A"], "seed": [-1, 2, 0, 1], "s": [7.0, 3.0, 1.0, 2.0]})
    assert ex.seed_scores(frame, "s", "A", [0, 1, 2], "u").tolist() == [1.0, 2.0, 3.0]
    assert ex.seed_scores(frame, "s", "u", [0, 1, 2], "u").tolist() == [7.0, 7.0, 7.0]
    with pytest.raises(ValueError):
        ex.seed_scores(frame, "s", "missing", [0], "u")


# --------------------------------------------------------------------------------------------- experiments (03)
def test_ablation_runs_build_the_objective_and_map_the_result(monkeypatch):
    calls = []
    monkeypatch.setattr(ex, "upper_experiment", _fake_upper(calls))
    runner = ex.AblationRuns("base", "train", {"STS-B": "test"}, steps=5, batch_size=4, lr=1e-4, warmup=1,
                             buckets=2, taus=dict(tau_cos=0.05, tau_ibn=0.05, tau_angle=1.0), positive_threshold=4.0)
    out = runner.run((1, 0, 1), seed=2, pooling="cls")
    assert out["ours"] == 25.0 and out["loss_first10"] == 2.0 and out["loss_last10"] == 1.0
    assert np.array_equal(out["cos"], np.full(3, 2.0)) and out["run_s"] >= 0
    objective = calls[-1]["objective"]
    assert (objective.w_cos, objective.w_ibn, objective.w_angle, objective.positive_threshold) == (1, 0, 1, 4.0)
    assert calls[-1]["pooling"] == "cls" and calls[-1]["n_top"] is None
    assert (out["score_change"], out["score_noise"], out["drift"]) == (5.0, 1.0, 0.02)
    runner.run(None, seed=0, pooling="mean", objective="custom")
    assert calls[-1]["objective"] == "custom"
    assert runner.objective((1, 1, 1), use_isp=False, tau_angle=0.05).use_isp is False
    with pytest.raises(ValueError, match="exactly one"):
        runner.run((1, 0, 0), seed=0, pooling="mean", objective="custom")
    score, cos = runner.frozen("mean")
    assert score == 0.0 and calls[-1]["objective"] is None and calls[-1]["steps"] == 0
    assert calls[-1]["pooling"] == "mean"
    deeper = ex.AblationRuns("base", "train", {"STS-B": "test"}, steps=5, batch_size=4, lr=1e-4, warmup=1,
                             buckets=2, n_top=2)
    deeper.run((1, 1, 1), seed=0, pooling="mean")
    deeper.frozen("cls")
    assert calls[-2]["n_top"] == calls[-1]["n_top"] == 2


def test_moved_validity_on_constructed_runs():
    runs = pd.DataFrame({"task": ["t"] * 6, "objective": ["A"] * 3 + ["B"] * 3, "seed": [0, 1, 2] * 2,
                         # A: every run moved (the score beyond its noise, or the embeddings turned);
                         # B: seed 1 did neither
                         "score_change": [2.0, 0.1, -3.0, 1.5, 0.2, 0.0],
                         "score_noise": [0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
                         "drift": [1e-4, 5e-3, 1e-5, 1e-4, 1e-4, 2e-3]})
    ok = ex.moved_validity(runs, {"task": "t", "objective": "A"})
    assert ok.name == "trained" and ok.passed and ok.detail.startswith("3 of 3 runs moved")
    idle = ex.moved_validity(runs, {"task": "t", "objective": ["A", "B"]})
    assert not idle.passed and "5 of 6 runs moved" in idle.detail and "t/B seed 1" in idle.detail
    assert idle.reason.startswith("did not train: ")
    # the thresholds: a change within the noise AND a drift under DRIFT_MIN
    assert ex.run_moved({"score_change": 0.5, "score_noise": 0.5, "drift": ex.DRIFT_MIN})[0]
    assert not ex.run_moved({"score_change": -0.5, "score_noise": 0.5, "drift": 0.999 * ex.DRIFT_MIN})[0]
    assert ex.run_moved({"score_change": -0.51, "score_noise": 0.5, "drift": 0.0})[0]
    assert ex.moved_validity(runs, {"objective": "B"}, drift_min=1e-4).passed  # a looser threshold
    with pytest.raises(KeyError, match="no runs with a movement record"):
        ex.moved_validity(runs, {"objective": "C"})
    with pytest.raises(KeyError, match="no column"):
        ex.moved_validity(runs, {"variant": "x"})


def test_upper_experiment_records_how_far_a_run_moved_and_trains_more_layers():
    from companion.encoders import tiny_encoder
    from companion.encoders.upper import UpperEncoder
    from companion.losses.angle import AnglEObjective
    from companion.papers.angle.pairs import PairData, split_base, upper_experiment

    rng = np.random.default_rng(0)
    words = ["a cat", "the dog", "red car", "blue sky", "old tree", "new road", "cold tea", "warm bread"]
    s1 = [f"{words[i % 8]} sat {i}" for i in range(24)]
    s2 = [f"{words[(i + 1) % 8]} ran {i}" for i in range(24)]
    data = PairData(s1, s2, rng.uniform(0, 5, 24))
    evals = {"test": PairData(s2[:12], s1[:12], rng.uniform(0, 5, 12))}
    base = UpperEncoder(tiny_encoder("bert", pooling="mean", layers=3, hidden=32, heads=4), n_top=1, pooling="mean")
    kw = dict(seed=0, batch_size=8, lr=1e-3)
    untrained = upper_experiment(base, data, evals, None, steps=0, **kw)
    assert untrained["movement"]["score_change"] == 0.0 and untrained["movement"]["drift"] == pytest.approx(0, abs=1e-9)
    assert untrained["movement"]["score_noise"] > 0
    run = upper_experiment(base, data, evals, AnglEObjective(positive_threshold=2.5), steps=6, **kw)
    m = run["movement"]
    assert m["score_change"] == pytest.approx(run["scores"]["test"] - untrained["scores"]["test"])
    assert m["drift"] > 0 and m["score_noise"] == untrained["movement"]["score_noise"]
    idle = upper_experiment(base, data, evals, AnglEObjective(positive_threshold=2.5), steps=6, seed=0,
                            batch_size=8, lr=1e-12)
    assert idle["movement"]["drift"] < 1e-6 and not ex.run_moved(idle["movement"])[0]
    # the same run again gives the same numbers (the untrained reference is kept, not recomputed)
    again = upper_experiment(base, data, evals, AnglEObjective(positive_threshold=2.5), steps=6, **kw)
    assert again["scores"] == run["scores"] and again["movement"] == m
    # two top layers: a base of that split, made once, whose copies train both layers
    deep = upper_experiment(base, data, evals, AnglEObjective(positive_threshold=2.5), steps=6, n_top=2, **kw)
    assert split_base(base, 2) is split_base(base, 2) and split_base(base, 2).n_top == 2 and split_base(base, 1) is base
    assert deep["scores"] != run["scores"]
    assert upper_experiment(base, data, evals, None, steps=0, n_top=2, **kw)["scores"]["test"] == pytest.approx(
        untrained["scores"]["test"], abs=0.5)  # the same untrained encoder, lower states cut elsewhere


def _ablation():
    rows = []
    for group, variant, vals in [("objective", "all", [80.0, 82.0]), ("objective", "only cosine", [79.0, 80.0]),
                                 ("pooling", "cls", [70.0, 71.0]), ("pooling", "last-avg", [80.0, 82.0])]:
        for seed, v in zip([0, 1], vals):
            curve = ([1.0, 0.7, 0.5, 0.5, 0.51, 0.49, 0.5] if variant != "only cosine"  # settled, moved 2.4 SE
                     else [1.0, 0.99, 1.01, 1.0, 0.99, 1.01, 1.0])                     # never moved
            rows.append({"group": group, "variant": variant, "seed": seed, "ours": v,
                         "loss_first10": 1.0, "loss_last10": 0.5 if variant != "only cosine" else 0.99,
                         "loss_curve": curve})
    return pd.DataFrame(rows)


def test_ablation_summary_and_seed_table():
    paper4 = pd.DataFrame({"group": ["objective", "pooling"], "variant": ["all", "cls"], "stsb_test": [86.3, 86.7]})
    frozen = {"cls": (60.0, None), "last-avg": (75.0, None)}
    summary = ex.ablation_summary(_ablation(), frozen, paper4, "mean", [0, 1]).set_index(["group", "variant"])
    assert summary.loc[("objective", "all"), "mean"] == 81.0
    assert summary.loc[("objective", "all"), "ours"] == "81.0 ± 1.41"
    assert summary.loc[("objective", "all"), "frozen"] == 75.0  # mean pooling = last-avg
    assert summary.loc[("pooling", "cls"), "frozen"] == 60.0
    assert summary.loc[("pooling", "cls"), "paper (BERT-base)"] == 86.7
    assert np.isnan(summary.loc[("objective", "only cosine"), "paper (BERT-base)"])
    assert summary["seeds"].iloc[0] == "0,1"
    cls_rows = ex.ablation_summary(_ablation(), frozen, paper4, "cls", [0, 1]).set_index(["group", "variant"])
    assert np.isnan(cls_rows.loc[("objective", "all"), "frozen"])
    table = ex.seed_table(_ablation(), "objective", [1, 0])
    assert list(table.index) == [1, 0] and table.loc[1, "all"] == 82.0
    with pytest.raises(ValueError):
        ex.seed_table(_ablation(), "nope", [0])


def test_trained_validity_and_table4_gap():
    from companion.results import Ledger

    ablation = _ablation()
    assert ex.trained_validity(ablation, "all").passed
    idle = ex.trained_validity(ablation, "all", "only cosine")
    assert not idle.passed and idle.reason.startswith("did not train: all training loss: 2 of 2 runs moved")
    assert "only cosine training loss: 0 of 2 runs moved" in idle.reason
    p4 = pd.Series({("objective", "all"): 86.26, ("objective", "only cosine"): 85.28,
                    ("pooling", "cls"): 86.0, ("pooling", "last-avg"): 85.0})
    by_seed = ex.seed_table(ablation, "pooling", [0, 1])
    fields = ex.table4_gap(p4, by_seed, ablation, "last-avg", "cls", group="pooling")
    assert fields["source"] == "Table 4: 85.00 - 86.00" and fields["paper_value"] == -1.0
    assert fields["ours"].values == (10.0, 11.0)
    assert fields["criterion"].params["tol"] == 0.5  # the policy: half the paper's gap, no spread printed
    assert [c.name for c in fields["validity"]] == ["trained", "plateau"] and all(c.passed for c in fields["validity"])
    assert fields["criterion"].verdict(fields["ours"]) == "not reproduced"  # ours +10.5, the paper's −1
    obj = ex.table4_gap(p4, ex.seed_table(ablation, "objective", [0, 1]), ablation, "all", "only cosine",
                        explain={"only cosine": "no room"})
    assert obj["paper_value"] == 0.98
    assert obj["criterion"].description == ex.table4_gap(  # the criterion does not depend on our runs
        p4, ex.seed_table(ablation, "objective", [0, 1]), ablation.assign(ours=0.0), "all", "only cosine"
    )["criterion"].description
    ledger = Ledger("angle", "t", profile="smoke")
    verdict = ledger.claim("x", "gap", kind="paper", regime="MiniLM", **obj)
    assert verdict == "inconclusive" and ledger.claims[0]["reason"].endswith(": no room")


def test_table4_gap_checks_that_the_runs_moved_when_they_record_it():
    ablation = _ablation().assign(score_change=1.0, score_noise=0.5, drift=0.01)
    p4 = pd.Series({("pooling", "cls"): 86.0, ("pooling", "last-avg"): 85.0})
    by_seed = ex.seed_table(ablation, "pooling", [0, 1])
    fields = ex.table4_gap(p4, by_seed, ablation, "last-avg", "cls", group="pooling")
    assert [c.name for c in fields["validity"]] == ["trained", "trained", "plateau"]
    assert all(c.passed for c in fields["validity"]) and fields["validity"][1].detail.startswith("4 of 4 runs moved")
    idle = ablation.assign(score_change=0.1, drift=0.0)  # within the noise and no drift: did not move
    fields = ex.table4_gap(p4, by_seed, idle, "last-avg", "cls", group="pooling")
    assert not fields["validity"][1].passed and fields["validity"][1].reason.startswith("did not train: 0 of 4")


def test_angle_objectives_sum_a_rows_positives_by_default():
    objectives = ex.sts_objectives(4.0, tau_cos=0.05, tau_ibn=0.05, tau_angle=1.0)
    assert objectives[ex.ANGLE].positives == objectives[ex.INFONCE].positives == "sum"
    means = ex.sts_objectives(4.0, tau_cos=0.05, tau_ibn=0.05, tau_angle=1.0, positives="mean")
    assert means[ex.ANGLE].positives == means[ex.INFONCE].positives == "mean"
    runner = ex.AblationRuns(None, None, {}, steps=1, batch_size=2, lr=1e-3, warmup=0, buckets=1, positives="mean")
    assert runner.objective((1, 1, 1)).positives == "mean"
    assert ex.AblationRuns(None, None, {}, steps=1, batch_size=2, lr=1e-3, warmup=0,
                           buckets=1).objective((1, 1, 1)).positives == "sum"


def test_bucket_masks_and_fig5_plot():
    gold = np.array([0.0, 0.5, 1.0, 2.5, 3.9, 4.0, 5.0])
    masks = ex.bucket_masks(gold)
    assert list(masks) == ["gold [0, 1)", "gold [1, 2)", "gold [2, 3)", "gold [3, 4)", "gold [4, 5]"]
    assert masks["gold [0, 1)"].tolist() == [True, True, False, False, False, False, False]
    assert masks["gold [4, 5]"].tolist() == [False] * 5 + [True, True]  # the last bucket is closed
    assert sum(m.sum() for m in masks.values()) == len(gold)
    rng = np.random.default_rng(0)
    cos = {"a": rng.random(7), "b": rng.random(7), "c": gold / 5}
    fig = ex.plot_bucket_densities(cos, gold)
    assert len(fig.axes) == 3 and fig.axes[2].get_title().startswith("c: W = 0.0000")
