"""Paper 3's objective (companion.losses.weighted): the weighted InfoNCE against hand computations, its entropic
bound, the weightings' bad input and Soft SupCon's simplex temperatures (the erratum)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from companion.losses.weighted import (
    cosine_similarities,
    entropic_bound,
    entropic_gap,
    euclidean_similarities,
    soft_supcon_beta,
    soft_supcon_simplex_tau,
    soft_supcon_simplex_tau_paper,
    soft_supcon_weights,
    supcon_weights,
    target_probabilities,
    weighted_infonce,
    xclr_weights,
)

torch.set_num_threads(1)  # tiny matrices: threads only add contention on a shared 2-core machine
EPS = math.exp(-1)


def _rand_sym(n, seed, low=0.05):
    rng = np.random.default_rng(seed)
    A = rng.uniform(low, 1, (n, n))
    return torch.as_tensor((A + A.T) / 2)


# ------------------------------------------------------------------------------------------ the loss itself
def test_weighted_infonce_matches_hand_computation():
    W = _rand_sym(5, 0)
    S = _rand_sym(5, 1) * 3
    n = 5
    expected = 0.0
    for i in range(n):
        others = [k for k in range(n) if k != i]
        wsum = sum(float(W[i, k]) for k in others)
        lse = math.log(sum(math.exp(float(S[i, k])) for k in others))
        expected -= sum(float(W[i, j]) / wsum * (float(S[i, j]) - lse) for j in others)
    assert float(weighted_infonce(W, S, float64=True)) == pytest.approx(expected / n, abs=1e-13)


def test_weighted_infonce_ignores_diagonal_and_equals_cross_entropy():
    W, S = _rand_sym(6, 2), _rand_sym(6, 3)
    W2, S2 = W.clone(), S.clone()
    W2.fill_diagonal_(7.0)
    S2.fill_diagonal_(100.0)
    assert float(weighted_infonce(W2, S2)) == pytest.approx(float(weighted_infonce(W, S)), abs=1e-12)
    P = target_probabilities(W)
    logq = torch.log_softmax(S.masked_fill(torch.eye(6, dtype=torch.bool), -torch.inf), dim=1)
    ce = -(P * logq.masked_fill(torch.eye(6, dtype=torch.bool), 0)).sum(1).mean()
    assert float(weighted_infonce(W, S)) == pytest.approx(float(ce), abs=1e-12)


def test_weighted_infonce_float64_option_and_grad():
    W = _rand_sym(4, 4).float()
    S = _rand_sym(4, 5).float().requires_grad_(True)
    assert weighted_infonce(W, S).dtype == torch.float32
    out = weighted_infonce(W, S, float64=True)
    assert out.dtype == torch.float64
    out.backward()
    assert S.grad is not None and torch.isfinite(S.grad).all()


@pytest.mark.parametrize("c", [0.0, 1.7, -3.2])
def test_bound_identity_at_log_w_plus_c(c):
    W = _rand_sym(9, 6)
    S = torch.log(W) + c
    assert abs(float(weighted_infonce(W, S, float64=True) - entropic_bound(W))) < 1e-10


def test_entropic_bound_hand_value():
    # two classes of 3: every P row is (1/2, 1/2) on two positives -> H = log 2
    W = supcon_weights([0, 0, 0, 1, 1, 1])
    assert float(entropic_bound(W)) == pytest.approx(math.log(2), abs=1e-14)


def test_bound_holds_on_random_similarities():
    rng = np.random.default_rng(0)
    for trial in range(200):
        n = int(rng.integers(3, 12))
        W = _rand_sym(n, 100 + trial, low=0.0)
        S = torch.as_tensor(rng.normal(0, 3, (n, n)))
        S = (S + S.T) / 2
        assert float(weighted_infonce(W, S, float64=True)) >= float(entropic_bound(W)) - 1e-12


# ------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("W, match", [
    (torch.tensor([[0.0, 1.0], [2.0, 0.0]]), "symmetric"),
    (torch.tensor([[0.0, -1.0], [-1.0, 0.0]]), "non-negative"),
    (torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 5.0]]), "row 2 .* sums to 0"),
    (torch.ones(2, 3), "square"),
])
def test_bad_weights(W, match):
    with pytest.raises(ValueError, match=match):
        weighted_infonce(W, torch.zeros(W.shape))


def test_bad_inputs():
    W = _rand_sym(4, 0)
    with pytest.raises(ValueError, match="same shape"):
        weighted_infonce(W, torch.zeros(3, 3))
    with pytest.raises(ValueError, match="tau must be"):
        cosine_similarities(torch.randn(4, 2), tau=0.0)
    with pytest.raises(ValueError, match="tau must be"):
        euclidean_similarities(torch.randn(4, 2), tau=-1.0)
    with pytest.raises(ValueError, match="undefined.*H\\(p_W\\) is 0"):
        entropic_gap(1.0, 0.0)
    with pytest.raises(ValueError, match="at least 2 samples in every class"):
        supcon_weights([0, 0, 1])
    with pytest.raises(ValueError, match="eps must be in"):
        soft_supcon_weights([0, 1], eps=1.5)
    with pytest.raises(ValueError, match="tau_prime must be"):
        xclr_weights(np.ones((3, 2)), tau_prime=0)
    with pytest.raises(ValueError, match="NaN"):
        weighted_infonce(W, torch.full((4, 4), float("nan")))


# -------------------------------------------------------------------------- Soft SupCon's temperatures (the erratum)
def test_soft_supcon_erratum_temperatures():
    assert soft_supcon_simplex_tau(10, EPS) == pytest.approx(10 / 9, abs=1e-14)
    assert soft_supcon_simplex_tau_paper(10, EPS) == pytest.approx(0.9, abs=1e-14)
    assert soft_supcon_beta(10 / 9, EPS) == pytest.approx(-1 / 9, abs=1e-14)
    assert soft_supcon_beta(0.9, EPS) == pytest.approx(0.1, abs=1e-14)
    for C in (3, 5, 10):
        for eps in (0.05, EPS, 0.6):
            assert soft_supcon_beta(soft_supcon_simplex_tau(C, eps), eps) == pytest.approx(-1 / (C - 1))
            assert soft_supcon_beta(soft_supcon_simplex_tau_paper(C, eps), eps) == pytest.approx(1 / C)
