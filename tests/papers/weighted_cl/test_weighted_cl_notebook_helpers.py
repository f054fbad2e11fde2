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
