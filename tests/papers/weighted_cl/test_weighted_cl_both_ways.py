"""Theorem checks of the weighted-cl notebooks that go through an optimiser rather than a closed form (Vock,
Duchesnay & Dufumier, arXiv 2605.13943): Thm. 3.7 in both directions and with each of its conditions broken,
Thm. D.1 (4) on a chain of weights, App. F.2's SNE distances, and the helpers of the Fig. 3(b), Fig. 7 and Table 1
analogues."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from companion.losses.weighted import distance_weights
from companion.papers.weighted_cl.distance_geometry import edm, is_edm
from companion.papers.weighted_cl.experiments import (
    chain_sequence,
    chain_weights,
    local_global_r2,
    paper_number,
    pca_sweep,
    shape_spread,
    sne_distance_slope,
    topk_ridge,
)
from companion.papers.weighted_cl.theorems import fit_exp_similarity, hyperboloid_dissimilarities, thm37_cases


@pytest.fixture(scope="module")
def cases():
    return thm37_cases(seed=0, steps=600, n=9).set_index("case")


def test_thm37_if_and_only_if_under_its_conditions(cases):
    meets = cases[cases["n > 2q+3"] & cases["rank(D) <= q+2"]]
    assert set(meets.index) == {"EDM of dim q", "EDM of dim q+1 on a sphere", "not an EDM (hyperboloid)"}
    assert meets.loc["EDM of dim q", "Delta_W"] < 1e-8 and meets.loc["EDM of dim q", "theorem: attained"]
    for name in ("EDM of dim q+1 on a sphere", "not an EDM (hyperboloid)"):
        assert not meets.loc[name, "theorem: attained"]
        assert meets.loc[name, "Delta_W"] > 1e-5, name


def test_thm37_breaks_without_either_condition(cases):
    for name in ("n <= 2q+3: EDM(dim q) + 1 off-diagonal", "rank(D) > q+2: EDM(dim q) + 1 off-diagonal"):
        row = cases.loc[name]
        assert not row["theorem: attained"] and row["Delta_W"] < 1e-8
        assert row["c (mean of ‖z_i−z_j‖² − d_ij)"] == pytest.approx(-1.0, abs=1e-5)  # realised at d - 1
    assert not cases.loc["n <= 2q+3: EDM(dim q) + 1 off-diagonal", "n > 2q+3"]
    assert not cases.loc["rank(D) > q+2: EDM(dim q) + 1 off-diagonal", "rank(D) <= q+2"]


def test_thm37_conclusion_holds_squared_not_as_printed(cases):
    row = cases.loc["EDM of dim q"]
    assert row["max |‖z_i−z_j‖² − d_ij|"] < 1e-5 and row["max |‖z_i−z_j‖ − d_ij|"] > 0.1


def test_hyperboloid_is_not_an_edm_but_has_low_rank():
    D = hyperboloid_dissimilarities(12, np.random.default_rng(3))
    assert (D >= 0).all() and np.allclose(D, D.T) and np.allclose(np.diag(D), 0)
    assert not is_edm(D)
    assert np.linalg.matrix_rank(D, tol=1e-9 * D.max()) <= 4
    with pytest.raises(ValueError, match="at least 3"):
        hyperboloid_dissimilarities(2, np.random.default_rng(0))


def test_printed_exp_similarity_misses_the_bound():
    Y = np.random.default_rng(0).normal(size=(9, 2))
    assert fit_exp_similarity(distance_weights(edm(Y)), 2, seed=0, steps=300) > 1e-3


def test_chain_reaches_the_bound_while_exp_s_vanishes():
    seq = chain_sequence(5, [0.5, 1, 2, 4])
    assert (np.diff(seq["Delta_W"].values) < 0).all() and seq["Delta_W"].iloc[-1] < 1e-10
    assert seq["max e^s over positive pairs"].iloc[-1] < 1e-6
    W = chain_weights(4)
    assert torch.equal(W, W.T) and int((W > 0).sum()) == 6
    with pytest.raises(ValueError, match="at least 3"):
        chain_weights(2)


def test_sne_slope_is_one_over_root_two_on_low_rank_data():
    X = np.random.default_rng(0).normal(size=(25, 2)) @ np.random.default_rng(1).normal(size=(2, 6))
    out = sne_distance_slope(X, sigma=2.0, q=2, seed=0, steps=500)
    assert out["slope"] == pytest.approx(1 / math.sqrt(2), abs=1e-4) and out["r2"] > 0.9999
    with pytest.raises(ValueError, match="sigma"):
        sne_distance_slope(X, sigma=0.0, q=2, seed=0, steps=5)


def test_local_global_r2_separates_per_class_isometries():
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(40, 2))
    classes = np.repeat(np.arange(4), 10)
    Z = Y.copy()
    for c in range(4):  # each class rotated and shifted on its own: isometric locally, not globally
        a = rng.uniform(0, 2 * np.pi)
        R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        Z[classes == c] = Y[classes == c] @ R + rng.normal(size=2) * 3
    out = local_global_r2(Z, Y, classes)
    assert out["local r2_Proc"] == pytest.approx(1.0, abs=1e-10) and out["global r2_Proc"] < 0.5
    with pytest.raises(ValueError, match="one row per point"):
        local_global_r2(Z[:-1], Y, classes)


def test_topk_ridge_on_separable_classes():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 30)
    Z = np.eye(3)[y] * 5 + rng.normal(size=(90, 3)) * 0.1
    acc = topk_ridge(Z[::2], y[::2], Z[1::2], y[1::2])
    assert acc == {"Top-1 (%)": 100.0, "Top-3 (%)": 100.0}


def test_shape_spread_groups_blocks_by_their_sizes():
    B = np.array([[1, -0.2, -0.3, -0.2], [-0.2, 1, -0.3, -0.25], [-0.3, -0.3, 1, -0.3], [-0.2, -0.25, -0.3, 1.0]])
    out = shape_spread(B, [2, 2, 4, 2])
    assert out["within-shape spread"] == pytest.approx(0.05)  # the three (2, 2) blocks: -0.2, -0.2, -0.25
    assert out["overall spread"] == pytest.approx(0.1)  # the (2, 4) blocks all -0.3
    with pytest.raises(ValueError, match="must be 3 x 3"):
        shape_spread(B, [1, 2, 3])


def test_pca_sweep_is_exact_at_the_data_rank():
    X = np.random.default_rng(0).normal(size=(30, 3)) @ np.random.default_rng(1).normal(size=(3, 8))
    out = pca_sweep(X, [1, 3], gamma=0.2, seed=0, steps=400)
    assert out.loc[3, "r2_sim vs PCA"] > 0.9999 and out.loc[3, "PCA explained variance"] == pytest.approx(1.0)
    assert out.loc[1, "PCA explained variance"] < 1


def test_paper_number_reads_prose_csv():
    assert paper_number("Fig. 7: coefficient of similarity") == (0.98, "App. F")
    with pytest.raises(KeyError, match="rows"):
        paper_number("Fig. 3(b)")
