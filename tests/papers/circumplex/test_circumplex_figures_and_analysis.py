"""The circumplex notebooks' measurement and figure helpers: per-loss budgets and the full-width grid
(comparison), the §5–6 measurements of notebook 03 (analysis), the Table 4 reader and the side-by-side table
(claims), and the shared figures with the paper's values drawn beside ours."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import torch

from companion.losses.circumplex import ECM_LABELS, ecm_angles
from companion.papers.circumplex import analysis, figures
from companion.papers.circumplex import comparison as cmp
from companion.papers.circumplex.claims import beside_table4, regimes_side_by_side, table4_rows

LABELS = [ECM_LABELS[i % 4] for i in range(24)]


def _ring(per_label=6, noise=0.02, seed=0):
    """Points on the ECM circle at their labels' angles (2-D), with a little noise."""
    labels = [c for c in ECM_LABELS for _ in range(per_label)]
    theta = np.radians(ecm_angles(labels).numpy())
    rng = np.random.default_rng(seed)
    xy = np.stack([np.cos(theta), np.sin(theta)], 1) + noise * rng.standard_normal((len(labels), 2))
    return torch.tensor(xy), labels, theta


# ------------------------------------------------------------------------------------------ comparison
def test_steps_per_loss_and_its_errors():
    losses = ["SINCERE", "SoftCSE", "CircularCSE"]
    assert cmp.steps_per_loss(2, losses, 46) == {"SINCERE": 92, "SoftCSE": 92, "CircularCSE": 92}
    assert cmp.steps_per_loss(2, losses, 46, {"CircularCSE": 4})["CircularCSE"] == 184
    with pytest.raises(ValueError, match="unknown loss"):
        cmp.steps_per_loss(2, losses, 46, {"ArcCon": 4})
    with pytest.raises(ValueError, match="per_epoch must be >= 1"):
        cmp.steps_per_loss(2, losses, 0)
    with pytest.raises(ValueError, match="epochs must be >= 1"):
        cmp.steps_per_loss(0, losses, 46)


def test_run_grid_trains_each_loss_to_its_own_budget_and_probes_past_it(packed_states):
    states = packed_states
    runs, embs = cmp.run_grid(states, LABELS, states, LABELS, kinds=["nGPT"], losses=["SINCERE", "CircularCSE"],
                              seeds=[0], steps={"SINCERE": 2, "CircularCSE": 4}, batch_size=8, lr=1e-2, n_heads=2,
                              margins=[0.2], curve_every=2, curve_seeds=[0],
                              probe=[("nGPT", "SINCERE"), ("nGPT", "CircularCSE")],
                              probe_steps={"SINCERE": 4, "CircularCSE": 6})
    assert runs.set_index(["loss", "margin"])["steps"].to_dict() == {("SINCERE", 0.0): 2, ("CircularCSE", 0.0): 4,
                                                                     ("CircularCSE", 0.2): 4}
    table = cmp.plateau_table(runs).set_index(["loss", "margin"])
    assert table.loc[("SINCERE", 0.0), "budget"] == 2 and table.loc[("CircularCSE", 0.0), "budget"] == 4
    sincere_curve = runs[runs.loss == "SINCERE"].curve.iloc[0]
    assert sorted(sincere_curve) == [0, 2, 4]  # probed two steps past its budget
    assert table.loc[("SINCERE", 0.0), "change after"] == pytest.approx(sincere_curve[4] - sincere_curve[2])
    circ = runs[(runs.loss == "CircularCSE") & (runs.margin == 0)].curve.iloc[0]
    assert table.loc[("CircularCSE", 0.0), "mean change after"] == pytest.approx(circ[6] - circ[4])
    margin = runs[runs.margin == 0.2].curve.iloc[0]
    assert sorted(margin) == [0, 2, 4, 6]  # a margin run of a probed (kind, loss) is probed too
    assert np.isnan(table.loc[("SINCERE", 0.0), "gain after"])  # one evaluation after the budget: no fit
    assert set(embs) == {("nGPT", "SINCERE", 0.0, 0), ("nGPT", "CircularCSE", 0.0, 0), ("nGPT", "CircularCSE", 0.2, 0)}
    with pytest.raises(ValueError, match="names no budget for CircularCSE"):
        cmp.run_grid(states, LABELS, states, LABELS, kinds=["nGPT"], losses=["SINCERE"], seeds=[0],
                     steps={"SINCERE": 2}, batch_size=8, lr=1e-2, n_heads=2, margins=[0.2])


def test_grid_plan_lists_every_run_and_run_plan_trains_it_as_run_grid_does(packed_states):
    plan = cmp.grid_plan(kinds=["GPT", "nGPT"], losses=["SINCERE", "CircularCSE"], seeds=[0, 1],
                         steps={"SINCERE": 2, "CircularCSE": 4}, margins=[0.2], curve_every=2, curve_seeds=[0],
                         probe=[("nGPT", "CircularCSE")], probe_steps={"CircularCSE": 6})
    assert len(plan) == 2 * 2 * 2 + 2  # kind x loss x seed, then the margin runs of every seed
    assert list(plan.columns) == ["kind", "loss", "margin", "seed", "steps", "curve_every", "probe_steps"]
    probed = plan[plan.probe_steps > 0]
    assert set(zip(probed.kind, probed.loss, probed.margin, probed.seed)) == {("nGPT", "CircularCSE", 0.0, 0),
                                                                             ("nGPT", "CircularCSE", 0.2, 0)}
    assert set(plan[plan.seed == 1].curve_every) == {0}
    with pytest.raises(ValueError, match="at least one seed"):
        cmp.grid_plan(kinds=["GPT"], losses=["SINCERE"], seeds=[], steps=2)
    states = packed_states
    small = plan[(plan.kind == "nGPT") & (plan.seed == 0)]
    runs, embs = cmp.run_plan(small, cmp.HeadSetup(states, LABELS, states, LABELS, batch_size=8, lr=1e-2,
                                                   n_heads=2))
    again, _ = cmp.run_grid(states, LABELS, states, LABELS, kinds=["nGPT"], losses=["SINCERE", "CircularCSE"],
                            seeds=[0], steps={"SINCERE": 2, "CircularCSE": 4}, batch_size=8, lr=1e-2, n_heads=2,
                            margins=[0.2], curve_every=2, curve_seeds=[0], probe=[("nGPT", "CircularCSE")],
                            probe_steps={"CircularCSE": 6})
    cols = ["kind", "loss", "margin", "seed", "steps", "V", "CD-r", "first_loss", "final_loss"]
    pd.testing.assert_frame_equal(runs[cols], again[cols])
    assert set(embs) == {("nGPT", "SINCERE", 0.0, 0), ("nGPT", "CircularCSE", 0.0, 0), ("nGPT", "CircularCSE", 0.2, 0)}


def test_head_anatomy_describes_each_head():
    table = cmp.head_anatomy(16, 2)
    assert list(table.index) == list(cmp.KINDS)
    assert table.loc["nGPT", "parameters"] == table.loc["nGPT-plain", "parameters"] > table.loc["GPT", "parameters"]
    assert table.loc["nGPT", "α at the start"] == "0.05" and table.loc["GPT", "α at the start"] == "-"
    assert table.loc["nGPT", "other trained parameters"] == "alpha_attn, alpha_mlp, attn.s_qk, mlp.s_u, mlp.s_v"
    assert table.loc["GPT", "other trained parameters"] == "norm_attn, norm_mlp"
    assert bool(table.loc["nGPT", "weights re-normalised every step"]) is True
    assert bool(table.loc["GPT", "weights re-normalised every step"]) is False


def test_plateau_table_without_a_steps_column_needs_steps():
    runs = pd.DataFrame([{"kind": "GPT", "loss": "SINCERE", "margin": 0.0, "seed": 0,
                          "curve": {0: 0.1, 2: 0.5, 4: 0.6, 6: 0.55}}])
    row = cmp.plateau_table(runs, 4).iloc[0]
    assert row["change before"] == pytest.approx(0.1) and row["change after"] == pytest.approx(-0.05)
    assert row["mean change after"] == pytest.approx(-0.05)
    assert np.isnan(row["gain after"]) and row["flat"] is None  # one evaluation after the budget: no fit
    rising = pd.DataFrame([{"kind": "GPT", "loss": "SINCERE", "margin": 0.0, "seed": 0, "steps": 2,
                            "curve": {0: 0.1, 2: 0.5, 4: 0.6, 6: 0.7, 8: 0.81}}])
    row = cmp.plateau_table(rising).iloc[0]
    assert row["gain after"] == pytest.approx(0.309, abs=1e-3) and not row["flat"]
    flat = rising.assign(curve=[{0: 0.1, 2: 0.5, 4: 0.51, 6: 0.49, 8: 0.5}])
    assert bool(cmp.plateau_table(flat).iloc[0]["flat"]) is True
    with pytest.raises(ValueError, match="needs steps"):
        cmp.plateau_table(runs)


def test_pca_frame_one_row_per_name_seed_and_k():
    ring, labels, _ = _ring()
    frame = cmp.pca_frame({("CircularCSE", 0): ring, ("pretrained", 0): ring + 0.5}, labels, [1, 2])
    assert len(frame) == 4 and set(frame.columns) == {"loss", "seed", "k", "V"}
    assert frame[frame.k == 2].V.min() > frame[frame.k == 1].V.max()  # one PCA axis cannot separate a ring


# ------------------------------------------------------------------------------------------ claims readers
def test_table4_rows_reads_one_backbone():
    rows = table4_rows("mE5")
    assert len(rows) == 7 and ("Pretrained", "") in rows.index and ("CircularCSE", "nGPT") in rows.index
    assert set(rows.loc[("SINCERE", "GPT")].filter(like="V-Measure").index) >= {"Emolit V-Measure",
                                                                                  "Average V-Measure"}
    with pytest.raises(ValueError, match="Table 4 has no backbone 'BERT'"):
        table4_rows("BERT")


def test_beside_table4_sets_our_mean_next_to_the_cell():
    paper = pd.DataFrame({"method": ["Pretrained", "SINCERE"], "head": ["", "GPT"],
                          "Emolit V-Measure": ["0.5", "0.8"], "Emolit CD-r": ["0.1", "0.2"]}).set_index(["method",
                                                                                                          "head"])
    runs = pd.DataFrame([{"dataset": "E", "head": "-", "loss": "pretrained", "V": 0.4, "CD-r": 0.0}]
                        + [{"dataset": "E", "head": "GPT", "loss": "SINCERE", "V": v, "CD-r": 0.3} for v in (0.6, 0.7)])
    side = beside_table4(runs, paper, {"E": "Emolit"}).set_index("method")
    assert side.loc["SINCERE", "V ours"] == pytest.approx(0.65) and side.loc["SINCERE", "V paper"] == 0.8
    assert side.loc["Pretrained", "head"] == "-" and side.loc["Pretrained", "CD-r paper"] == 0.1
    with pytest.raises(ValueError, match="no run of"):
        beside_table4(runs[runs.loss == "pretrained"], paper, {"E": "Emolit"})


def test_regimes_side_by_side_matches_claims_by_id():
    here = [{"id": "a", "paper_value": 0.1, "stats": {"estimate": 0.05}, "verdict": "partly"},
            {"id": "b", "paper_value": 0.2, "ours": 0.3, "verdict": "reproduced"}]
    other = {"claims": [{"id": "b", "paper_value": 0.4, "stats": {"estimate": -0.1}, "verdict": "not reproduced"},
                        {"id": "c", "paper_value": 1.0, "ours": 1.0, "verdict": "reproduced"}]}
    side = regimes_side_by_side(here, other, here_name="tuned", other_name="frozen")
    assert list(side.index) == ["a", "b"]  # the claims of this regime, in order; c is the other's only
    assert side.loc["a", ("tuned", "ours")] == 0.05 and side.loc["a", ("frozen", "verdict")] == ""
    assert side.loc["b", ("tuned", "ours")] == 0.3 and side.loc["b", ("frozen", "paper")] == 0.4
    assert side.loc["b", ("frozen", "ours")] == -0.1 and side.loc["b", ("frozen", "verdict")] == "not reproduced"
    empty = regimes_side_by_side(here, None, here_name="tuned", other_name="frozen")
    assert empty[("frozen", "verdict")].tolist() == ["", ""] and empty[("frozen", "ours")].isna().all()


# ------------------------------------------------------------------------------------------ analysis (03)
def test_explained_variance_of_a_ring_is_its_plane():
    ring, _, _ = _ring()
    flat = torch.cat([ring, torch.zeros(len(ring), 3, dtype=ring.dtype)], 1)
    noisy = flat + torch.randn(flat.shape, generator=torch.Generator().manual_seed(0), dtype=flat.dtype)
    table = analysis.explained_variance({("nGPT", "CircularCSE", 1): flat, ("nGPT", "SINCERE", 1): noisy},
                                        kind="nGPT", losses=["CircularCSE", "SINCERE"], seeds=[1])
    assert table.loc[1, "CircularCSE"] == pytest.approx(1.0) and table.loc[1, "SINCERE"] < 0.9


def test_label_subset_runs_reuses_the_full_heads_and_checks_labels(packed_states):
    states = packed_states
    full = {("SINCERE", 0): torch.randn(24, 8)}
    frame = analysis.label_subset_runs(states, LABELS, states, LABELS, subsets={3: ECM_LABELS[:3], 4: ECM_LABELS[:4]},
                                       losses=["SINCERE"], seeds=[0], full=full, pretrained_test=torch.randn(24, 8),
                                       steps=2, batch_size=8, lr=1e-2, n_heads=2)
    assert frame[["labels", "loss"]].values.tolist() == [[3, "SINCERE"], [3, "pretrained"], [4, "SINCERE"],
                                                         [4, "pretrained"]]
    retrained = frame.iloc[0]
    assert retrained["kind"] == "nGPT" and retrained["steps"] == 2 and retrained["first_loss"] > 0
    assert np.isnan(frame.iloc[2]["steps"])  # the full label set reuses the given heads: no training record
    probed = analysis.label_subset_runs(states, LABELS, states, LABELS, subsets={3: ECM_LABELS[:3]}, losses=["SINCERE"],
                                        seeds=[0], full=full, pretrained_test=torch.randn(24, 8), steps=2,
                                        batch_size=8, lr=1e-2, n_heads=2, curve_every=1, curve_seeds=[0],
                                        probe_steps=4)
    assert sorted(probed.iloc[0]["curve"]) == [0, 1, 2, 3, 4] and probed.iloc[0]["V"] == retrained["V"]
    from companion.papers.circumplex.heads import evaluate_embeddings

    assert frame.iloc[2]["V"] == pytest.approx(evaluate_embeddings(full[("SINCERE", 0)], LABELS)["V"])
    with pytest.raises(ValueError, match="absent from the test set: trust"):
        analysis.label_subset_runs(states, LABELS, states, LABELS, subsets={2: ["love", "trust"]}, losses=["SINCERE"],
                                   seeds=[0], full=full, pretrained_test=torch.randn(24, 8), steps=2, batch_size=8,
                                   lr=1e-2, n_heads=2)


def test_unseen_label_maps_keep_a_ring_in_order():
    ring, labels, _ = _ring()
    other = torch.tensor([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1]]).double().repeat(2, 1)
    shuffled = ring[torch.randperm(len(ring), generator=torch.Generator().manual_seed(0))]
    align, maps, other_classes = analysis.unseen_label_maps({0: [("ring", ring, other), ("shuffled", shuffled, other)]},
                                                            labels, list(ECM_LABELS), ["a", "b", "c"] * 2)
    assert other_classes == ["a", "b", "c"] and maps[(0, "ring")].shape == (15, 2)
    assert align.loc[0, "ring"] > 0.95 and align.loc[0, "ring"] > align.loc[0, "shuffled"]


def test_emobank_ring_runs_recover_an_angle_coded_rating():
    ring, labels, _ = _ring()
    phi = np.radians(np.arange(0, 360, 7.5))
    texts = torch.tensor(np.stack([np.cos(phi), np.sin(phi)], 1))
    runs, angles = analysis.emobank_ring_runs({3: [("ring", ring, texts)]}, labels, list(ECM_LABELS),
                                              valence=np.cos(phi), arousal=np.sin(phi))
    row = runs.iloc[0]
    assert row["r(cos φ, Valence)"] > 0.99 and row["r(sin φ, Arousal)"] > 0.99
    assert abs(row["r(sin φ, Valence)"]) < 0.1 and angles[("ring", 3)].shape == (48,)


# ------------------------------------------------------------------------------------------ figures
def test_figures_draw_the_paper_values_beside_ours():
    ring, labels, _ = _ring()
    frame = cmp.pca_frame({("SINCERE", 0): ring, ("SINCERE", 1): ring, ("CircularCSE", 0): ring}, labels, [1, 2])
    fig = figures.plot_v_vs_pca(frame, title="t", paper={"SINCERE": 0.84, "CircularCSE": 0.74})
    ax = fig.axes[0]
    marked = sorted(round(float(c.get_offsets()[0][1]), 2) for c in ax.collections
                    if len(c.get_offsets()) == 1 and c.get_offsets()[0][0] > 2)
    assert marked == [0.74, 0.84] and ax.get_ylim() == (0, 1)
    plt.close(fig)

    sub = pd.DataFrame([{"labels": n, "loss": loss, "seed": s, "V": 0.5, "CD-r": -0.3}
                        for n in (4, 12) for loss in ("SINCERE", "CircularCSE") for s in (0, 1)])
    fig = figures.plot_v_vs_labels(sub, paper={"SINCERE": {"V": 0.82, "CD-r": 0.07},
                                               "CircularCSE": {"V": 0.79, "CD-r": 0.90}})
    left, right = fig.axes[:2]
    assert left.get_ylim()[0] <= -0.35  # the negative CD-r is not clipped
    marked = sorted(round(float(c.get_offsets()[0][1]), 2) for c in right.collections if len(c.get_offsets()) == 1
                    and c.get_offsets()[0][0] > 12)
    assert marked == [0.07, 0.9]
    plt.close(fig)


def test_learning_curves_draw_each_probed_run_and_its_budget():
    runs = pd.DataFrame([{"head": k, "loss": loss, "seed": 42, "steps": 20,
                          "curve": {0: 0.1, 10: 0.4, 20: 0.5, 30: 0.55, 40: 0.56}}
                         for k in ("GPT", "nGPT") for loss in ("SINCERE", "SoftCSE")]
                        + [{"head": "GPT", "loss": "SINCERE", "seed": 43, "steps": 20, "curve": None}])
    fig = figures.plot_learning_curves(runs, kinds=("GPT", "nGPT"), losses=("SINCERE", "SoftCSE"))
    for ax in fig.axes:
        curves = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2]
        budgets = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 2]
        assert len(curves) == 2 and list(curves[0].get_xdata()) == [0, 10, 20, 30, 40]
        assert budgets and all(float(ln.get_xdata()[0]) == 20 for ln in budgets)
    plt.close(fig)


def test_avgcossim_panels_share_one_unclipped_scale():
    ring, labels, _ = _ring()
    fig = figures.plot_avgcossim([("a", ring), ("b", -ring)], labels)
    images = [im for ax in fig.axes for im in ax.get_images()]
    assert len(images) == 2 and all(im.get_clim() == (-1, 1) for im in images)
    assert "r with cos Δθ 1.00" in fig.axes[0].get_title()
    plt.close(fig)
    with pytest.raises(ValueError, match="at least one panel"):
        figures.plot_avgcossim([], labels)
