"""The helpers the weighted-contrastive-learning notebooks call (companion.papers.weighted_cl.experiments):
the Thm. 3.11 / 3.12 sweeps on free embeddings, the digit encoder, the kink of a rising curve and X-CLR's optimum."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from companion.losses.weighted import soft_supcon_weights
from companion.papers.weighted_cl.experiments import (
    digit_mlp,
    end_of_rise,
    fit_digit_encoder,
    xclr_sweep,
    xclr_target_embedding,
    yaware_sweep,
)


def test_yaware_sweep_attains_the_bound_only_on_a_small_circle():
    rng = np.random.default_rng(0)
    table = yaware_sweep(rng, n=12, scales=[0.5, 2.0], tau=0.5, seed=0, steps=400)
    assert table.index.name == "scale R sqrt(2 tau)" and list(table.index) == [0.5, 2.0]
    assert table.loc[0.5, "circle: Delta_W"] < 1e-7          # a spherical EDM within the radius (Thm 3.8)
    assert table.loc[2.0, "circle: Delta_W"] > 1e-4          # beyond the radius: not attainable
    assert (table["line: Delta_W"] > 1e-9).all()             # a segment is never a spherical EDM (Thm 3.11)
    # the generator is consumed by one draw of n angles per scale, in order
    replay = np.random.default_rng(0)
    replay.uniform(0, 2 * np.pi, 12), replay.uniform(0, 2 * np.pi, 12)
    assert rng.uniform() == replay.uniform()


def test_yaware_sweep_rejects_a_single_label():
    with pytest.raises(ValueError, match="at least 2 labels"):
        yaware_sweep(np.random.default_rng(0), n=1, scales=[1.0], tau=0.5, seed=0, steps=5)


def test_xclr_sweep_matches_the_closed_form_below_tau_prime_only():
    # 12 labels in 3-D fitted in 6 dimensions: the rank limit forces the theorem's constant 1 - tau/tau'
    labels = np.random.default_rng(1).normal(size=(12, 3))
    table = xclr_sweep(labels, tau_prime=0.5, ratios=[0.5, 2.0], seed=0, steps=400)
    assert table.index.name == "tau / tau'"
    assert table.loc[0.5, "Delta_W"] < 1e-7 and table.loc[0.5, "max |cos − formula|"] < 1e-3
    assert table.loc[2.0, "Delta_W"] > 1e-6 and table.loc[2.0, "max |cos − formula|"] > 1e-2
    with pytest.raises(ValueError, match="n x k"):
        xclr_sweep(np.ones(4), tau_prime=0.5, ratios=[0.5], seed=0, steps=5)


def test_digit_mlp_shape_and_bad_sizes():
    model = digit_mlp(5, hidden=8)
    assert [m.out_features for m in model if isinstance(m, torch.nn.Linear)] == [8, 8, 5]
    assert model(torch.zeros(3, 64)).shape == (3, 5)
    with pytest.raises(ValueError, match="positive"):
        digit_mlp(0)


@pytest.fixture
def digits_like():
    gen = torch.Generator().manual_seed(0)
    labels = torch.arange(4).repeat_interleave(10)
    X = torch.randn(40, 64, generator=gen) + 2.0 * torch.nn.functional.one_hot(labels, 64).float()
    order = np.random.default_rng(0).permutation(40)
    return X, labels, order[:10], order[10:]


def test_fit_digit_encoder_is_seeded_and_learns(digits_like):
    X, labels, test_idx, train_idx = digits_like
    W = soft_supcon_weights(labels, math.exp(-1)).float()
    kw = dict(steps=40, batch=10, lr=1e-2, weight_decay=0.0, hidden=16)
    model, Z, res = fit_digit_encoder(X, train_idx, test_idx, 4, W, "euclidean", seed=3, **kw)
    assert Z.shape == (10, 4) and Z.dtype == torch.float64
    _, Z_again, _ = fit_digit_encoder(X, train_idx, test_idx, 4, W, "euclidean", seed=3, **kw)
    _, Z_other, _ = fit_digit_encoder(X, train_idx, test_idx, 4, W, "euclidean", seed=4, **kw)
    assert torch.equal(Z, Z_again) and not torch.equal(Z, Z_other)
    losses = [h["loss"] for h in res.history]
    assert len(losses) == 40 and np.mean(losses[-5:]) < np.mean(losses[:5])


def test_a_preempted_gpu_digit_encoder_resumes_with_its_monitor_curve(digits_like, preemption):
    from companion.papers.weighted_cl import experiments

    preemption.patch(experiments)
    X, labels, test_idx, train_idx = digits_like
    W = soft_supcon_weights(labels, math.exp(-1)).float()
    kw = dict(seed=3, steps=8, batch=10, lr=1e-2, weight_decay=0.0, hidden=16, every=3,
              monitor=lambda m: {"norm": float(m(X[:5]).norm())})
    _, Z, res = fit_digit_encoder(X, train_idx, test_idx, 4, W, "cosine", profile="cpu", **kw)
    kw["profile"] = "gpu"
    preemption.stop_at(7)  # after the checkpoint at step 6
    with pytest.raises(KeyboardInterrupt):
        fit_digit_encoder(X, train_idx, test_idx, 4, W, "cosine", **kw)
    assert len(preemption.left()) == 1
    _, Z_r, res_r = fit_digit_encoder(X, train_idx, test_idx, 4, W, "cosine", **kw)
    assert torch.equal(Z, Z_r) and res_r.history == res.history and preemption.left() == []


def test_fit_digit_encoder_rejects_bad_input(digits_like):
    X, labels, test_idx, train_idx = digits_like
    W = soft_supcon_weights(labels, math.exp(-1)).float()
    kw = dict(steps=1, batch=10, lr=1e-2, weight_decay=0.0, hidden=4)
    with pytest.raises(ValueError, match="similarity"):
        fit_digit_encoder(X, train_idx, test_idx, 2, W, "dot", **kw)
    with pytest.raises(ValueError, match="W_full"):
        fit_digit_encoder(X, train_idx, test_idx, 2, W[:5, :5], "cosine", **kw)


def test_end_of_rise_finds_the_kink():
    curve = pd.Series([0.1, 0.2, 0.3, 0.9, 0.91, 0.92], index=[5, 6, 7, 8, 9, 10])
    assert end_of_rise(curve) == 8                     # increases .1 .1 .6 .01 .01: the rise stops after q = 8
    steady = pd.Series([0.5, 0.6, 0.7, 0.72], index=[1, 2, 3, 4])
    assert end_of_rise(steady) == 3
    assert end_of_rise(pd.Series([0.1, 0.2], index=[1, 2])) == -1


def test_xclr_target_embedding_has_the_theorem_cosines():
    Y = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    Z = xclr_target_embedding(Y, 0.5)
    assert Z.shape == (3, 3) and np.allclose(np.linalg.norm(Z, axis=1), 1.0)
    Yn = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    assert np.allclose(Z @ Z.T, 0.5 * Yn @ Yn.T + 0.5)
    assert np.allclose(xclr_target_embedding(Y, 1.0)[:, -1], 0.0)
    with pytest.raises(ValueError, match="ratio"):
        xclr_target_embedding(Y, 1.5)


# ------------------------------------------------------------------ the validity checks of the trained digit runs
from companion import stats  # noqa: E402
from companion.papers.weighted_cl.experiments import (  # noqa: E402
    arc_order,
    dev_plateau,
    dev_plateau_groups,
    line_fraction,
    loss_moved,
    lower_bound,
    monitor_every,
    run_curve,
    xclr_digit_table,
)
from companion.training import TrainResult  # noqa: E402


def _run(losses, curve=None, key="m"):
    """A TrainResult with the given per-step losses and, optionally, a monitored value every step of ``curve``."""
    history = [{"step": i + 1, "loss": float(v)} for i, v in enumerate(losses)]
    for i, v in enumerate([] if curve is None else curve):
        history[i][key] = float(v)
    return TrainResult(history=history, steps=len(losses))


def test_fit_digit_encoder_records_its_monitor(digits_like):
    X, labels, test_idx, train_idx = digits_like
    W = soft_supcon_weights(labels, math.exp(-1)).float()
    seen = []

    def monitor(model):
        seen.append(model.training)
        return {"norm": float(model(X[:3]).norm())}

    kw = dict(steps=12, batch=10, lr=1e-2, weight_decay=0.0, hidden=8)
    _, _, res = fit_digit_encoder(X, train_idx, test_idx, 3, W, "euclidean", seed=0, monitor=monitor, every=4, **kw)
    assert [h["step"] for h in res.history if "norm" in h] == [4, 8, 12]
    assert seen == [False, False, False]                       # evaluated in eval mode
    steps, values = run_curve([res, res], "norm")
    assert list(steps) == [4, 8, 12] and len(values) == 3
    with pytest.raises(ValueError, match="every"):
        fit_digit_encoder(X, train_idx, test_idx, 3, W, "euclidean", seed=0, monitor=monitor, every=0, **kw)


def test_monitor_every_records_about_ten_points():
    assert monitor_every(400) == 40 and monitor_every(3) == 1 and monitor_every(25, points=5) == 5
    with pytest.raises(ValueError):
        monitor_every(0)


def test_run_curve_needs_the_same_steps_in_every_run():
    a, b = _run([1, 1, 1], [0.1, 0.2, 0.3]), _run([1, 1, 1], [0.3, 0.4, 0.5])
    steps, mean = run_curve([a, b], "m")
    assert np.allclose(mean, [0.2, 0.3, 0.4]) and list(steps) == [1, 2, 3]
    with pytest.raises(ValueError, match="no run recorded"):
        run_curve([a], "other")
    with pytest.raises(ValueError, match="different steps"):
        run_curve([a, _run([1, 1], [0.1, 0.2])], "m")


def test_loss_moved_fails_for_a_flat_loss_and_passes_for_a_falling_one():
    rng = np.random.default_rng(0)
    falling = _run(np.linspace(2.0, 1.0, 100) + rng.normal(0, 0.01, 100))
    flat = _run(1.0 + rng.normal(0, 0.05, 100))
    ok = loss_moved([falling, falling])
    assert ok.name == "trained" and ok.passed and "2 of 2" in ok.detail
    bad = loss_moved([falling, flat])
    assert not bad.passed and "1 of 2" in bad.detail
    assert bad.reason.startswith("did not train")
    with pytest.raises(ValueError):
        loss_moved([])


def test_dev_plateau_reads_the_mean_curve_and_the_gap():
    steps = 12
    rising = [_run([1] * steps, np.linspace(0, 1, steps)) for _ in range(2)]
    flat = [_run([1] * steps, [0.9, 0.91] * (steps // 2)) for _ in range(2)]
    assert not dev_plateau(rising, "m").passed
    assert dev_plateau(rising, "m", gap=10.0).passed          # the gain is small against a large compared gap
    assert dev_plateau(flat, "m").passed
    both = dev_plateau_groups({"flat": flat, "rising": rising}, "m")
    assert not both.passed and "rising" in both.detail and both.reason.startswith("budget")
    ok = dev_plateau_groups({"flat": flat, "also flat": flat}, "m")
    assert ok.passed and "2 configurations" in ok.detail and "still moving" not in ok.detail


def test_lower_bound_is_the_interval_end():
    cmp = stats.sample([0.9, 0.92, 0.94])
    assert lower_bound(cmp) == pytest.approx(cmp.ci[0]) and lower_bound(cmp) < 0.9
    assert lower_bound(stats.sample([0.5])) == 0.5             # one seed: no interval, the value itself


def test_line_fraction_and_arc_order():
    t = np.linspace(-1, 1, 50)
    assert line_fraction(np.c_[t, 0.0 * t]) == pytest.approx(1.0)
    assert line_fraction(np.random.default_rng(0).normal(size=(200, 2))) < 0.7
    arc = np.c_[np.cos(t), np.sin(t)]                         # an arc of 2 radians, ordered by t
    out = arc_order(arc * 3.0, t)
    assert out["spearman"] == pytest.approx(1.0) and out["span"] == pytest.approx(2.0)
    shuffled = arc_order(arc[np.random.default_rng(1).permutation(50)], t)
    assert shuffled["spearman"] < 0.5
    with pytest.raises(ValueError, match="n x 2"):
        arc_order(np.zeros((5, 3)), np.zeros(5))


def test_xclr_digit_table_returns_rows_and_monitored_runs(digits_like):
    X, labels, test_idx, train_idx = digits_like
    labels = labels.numpy()
    geometries = {"Simplex": np.eye(4), "other": np.eye(4) + 0.3}
    table, runs = xclr_digit_table(X, labels, train_idx, test_idx, geometries, q=6, tau=0.1, tau_prime=0.1,
                                   seeds=[0, 1], steps=6, batch=10, lr=1e-2, weight_decay=0.0, hidden=8, every=2)
    assert list(table.columns) == ["Target", "seed", "r2_Proc_test", "Delta_W_test (%)", "Top-1 (%)", "Top-3 (%)"]
    assert len(table) == 4 and set(runs) == {(g, s) for g in geometries for s in (0, 1)}
    steps, top1 = run_curve([runs[("Simplex", 0)], runs[("Simplex", 1)]], "Top-1 (%)")
    assert list(steps) == [2, 4, 6] and ((0 <= top1) & (top1 <= 100)).all()
    # the table's last row of a run is the monitor's last record (the same model, the same numbers)
    last = [h for h in runs[("Simplex", 0)].history if "r2_Proc_test" in h][-1]
    row = table[(table["Target"] == "Simplex") & (table["seed"] == 0)].iloc[0]
    assert row["r2_Proc_test"] == pytest.approx(last["r2_Proc_test"])
