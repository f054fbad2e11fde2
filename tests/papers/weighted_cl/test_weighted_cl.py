"""Paper 3 — Vock, Duchesnay & Dufumier, "A Unified Geometric Framework for Weighted Contrastive Learning"
(arXiv 2605.13943): every optimum theorem, checked on free embeddings with float64 L-BFGS (the weighted InfoNCE and
its entropic bound themselves: tests/core/losses/test_weighted.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from companion.losses.weighted import (
    cosine_similarities,
    distance_weights,
    entropic_bound,
    euclidean_similarities,
    euclidean_weights,
    hard_supcon_optimal_loss,
    soft_supcon_beta,
    soft_supcon_weights,
    supcon_weights,
    weighted_infonce,
    xclr_weights,
    y_aware_weights,
)
from companion.papers.weighted_cl.distance_geometry import (
    block_cosines,
    class_prototypes,
    classical_mds,
    delta_w,
    edm,
    r2_procrustes,
    solve_supcon_prototypes,
    spherical_realisation,
    supcon_prototype_loss,
)
from companion.papers.weighted_cl.free_embeddings import fit_free_embeddings

torch.set_num_threads(1)  # tiny matrices: threads only add contention on a shared 2-core machine
EPS = math.exp(-1)


def _rand_sym(n, seed, low=0.05):
    rng = np.random.default_rng(seed)
    A = rng.uniform(low, 1, (n, n))
    return torch.as_tensor((A + A.T) / 2)


def _offdiag(M):
    return M[~np.eye(len(M), dtype=bool)]


# -------------------------------------------------------------------------- the bound, attained by free similarities
def test_free_s_optimisation_recovers_log_w_plus_c():
    W = _rand_sym(7, 11)
    iu = torch.triu_indices(7, 7, 1)
    theta = torch.zeros(iu.shape[1], dtype=torch.float64, requires_grad=True)

    def S_of(t):
        S = torch.zeros(7, 7, dtype=torch.float64)
        S = S.index_put((iu[0], iu[1]), t)
        return S + S.T

    opt = torch.optim.LBFGS([theta], max_iter=500, tolerance_grad=1e-14, tolerance_change=1e-16,
                            line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = weighted_infonce(W, S_of(theta), float64=True)
        loss.backward()
        return loss

    opt.step(closure)
    S = S_of(theta.detach())
    c = _offdiag((S - torch.log(W)).numpy())
    assert c.std() < 1e-5
    assert delta_w(W, S) < 1e-10


# ------------------------------------------------------------------------------------------ bad input
def test_bad_inputs():
    W = _rand_sym(4, 0)
    with pytest.raises(ValueError, match="same number of points"):
        r2_procrustes(np.ones((3, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="not a Euclidean distance matrix"):
        classical_mds(np.array([[0, 1, 9], [1, 0, 1], [9, 1, 0.0]]))
    with pytest.raises(ValueError, match="size >= 2"):
        solve_supcon_prototypes([3, 1], tau=0.1)
    with pytest.raises(ValueError, match="similarity must be"):
        fit_free_embeddings(W, dim=2, similarity="dot")


def test_hard_supcon_two_per_class_has_zero_bound():
    W = supcon_weights([0, 0, 1, 1, 2, 2])
    assert float(entropic_bound(W)) == 0.0
    with pytest.raises(ValueError, match="undefined"):
        delta_w(W, torch.zeros(6, 6))


# ------------------------------------------------------------------------------------------ Thm. 3.7 / 3.8 (App. B)


@pytest.mark.parametrize("tau", [0.2, 1.0])
def test_thm_3_7_3_8_on_random_realisable_D(tau):
    rng = np.random.default_rng(3)
    Y = rng.normal(size=(15, 2)) * 0.6
    D = edm(Y)
    euc = fit_free_embeddings(distance_weights(D), dim=2, similarity="euclidean", seed=0)
    assert euc.delta_w < 1e-8 and r2_procrustes(euc.Z, Y) > 0.999  # Thm 3.7: ||z_i - z_j||^2 = d_ij
    U = rng.normal(size=(15, 3))
    U = U / np.linalg.norm(U, axis=1, keepdims=True) * 0.9 / math.sqrt(2 * tau)
    Ds = edm(U)  # spherical EDM of radius 0.9/sqrt(2 tau) <= 1/sqrt(2 tau)
    sph = fit_free_embeddings(distance_weights(Ds), dim=4, similarity="cosine", tau=tau, seed=0)
    assert sph.delta_w < 1e-8  # Thm 3.8: cos = 1 - tau d
    target = spherical_realisation(Ds, tau)
    assert np.abs(_offdiag(sph.Z @ sph.Z.T - target @ target.T)).max() < 1e-3


# ------------------------------------------------------------------------------------------ Hard SupCon
@pytest.mark.parametrize("C", [3, 4, 10])
@pytest.mark.parametrize("tau", [0.1, 0.5])
def test_balanced_hard_supcon_is_regular_simplex(C, tau):
    y = np.repeat(np.arange(C), 5)
    fit = fit_free_embeddings(supcon_weights(y), dim=C, tau=tau, seed=0)
    blocks, intra_min = block_cosines(fit.Z, y)
    assert intra_min.min() > 1 - 1e-4
    assert np.abs(_offdiag(blocks) + 1 / (C - 1)).max() < 1e-3
    assert np.abs(class_prototypes(fit.Z, y).sum(0)).max() < 1e-3
    assert abs(fit.loss - hard_supcon_optimal_loss(C, 5, tau)) < 1e-6
    assert fit.loss > fit.bound  # the bound log(l-1) is not attained (Thm 3.13); gap = L* - H > 0
    assert hard_supcon_optimal_loss(C, 5, tau) - math.log(4) > 0
    assert fit.bound == pytest.approx(math.log(4), abs=1e-12)


def test_prototype_loss_matches_full_loss_on_collapsed_embeddings():
    sizes = [3, 4, 5]
    rng = np.random.default_rng(4)
    M = rng.normal(size=(3, 3))
    M /= np.linalg.norm(M, axis=1, keepdims=True)
    y = np.repeat(np.arange(3), sizes)
    full = weighted_infonce(supcon_weights(y), cosine_similarities(torch.as_tensor(M[y]), 0.3), float64=True)
    assert float(supcon_prototype_loss(M @ M.T, sizes, 0.3)) == pytest.approx(float(full), abs=1e-12)


def test_imbalanced_hard_supcon_matches_prototype_problem():
    sizes = [3, 3, 6, 6]
    y = np.repeat(np.arange(4), sizes)
    sol = solve_supcon_prototypes(sizes, tau=0.1)
    fit = fit_free_embeddings(supcon_weights(y), dim=4, tau=0.1, seed=0)
    blocks, intra_min = block_cosines(fit.Z, y)
    assert intra_min.min() > 1 - 1e-4
    assert np.abs(_offdiag(blocks - sol.gram)).max() < 1e-3
    assert abs(fit.loss - sol.loss) < 1e-6
    assert sol.gram[0, 1] == pytest.approx(-0.306, abs=1e-3)
    assert sol.gram[0, 2] == pytest.approx(-0.337, abs=1e-3)
    assert sol.gram[2, 3] == pytest.approx(-0.347, abs=1e-3)
    assert sol.gram[0, 1] > sol.gram[2, 3]  # minority-minority > majority-majority


# ------------------------------------------------------------------------------------------ Soft SupCon
@pytest.mark.parametrize("tau", [0.5, 0.9, 10 / 9])
def test_soft_supcon_constant_inter_class_cosine(tau):
    y = np.repeat(np.arange(10), np.arange(2, 21, 2))
    fit = fit_free_embeddings(soft_supcon_weights(y, EPS), dim=10, tau=tau, seed=0)
    blocks, _ = block_cosines(fit.Z, y)
    assert np.abs(_offdiag(blocks) - soft_supcon_beta(tau, EPS)).max() < 1e-3
    assert fit.delta_w < 1e-6


def test_soft_supcon_above_threshold_is_not_attained():
    y = np.repeat(np.arange(10), np.arange(2, 21, 2))
    fit = fit_free_embeddings(soft_supcon_weights(y, EPS), dim=10, tau=1.5, seed=0)
    blocks, _ = block_cosines(fit.Z, y)
    off = _offdiag(blocks)
    assert off.max() - off.min() > 0.1
    assert fit.delta_w > 1e-4


# ------------------------------------------------------------------------------------------ Euclidean SupCon (§3.7)
@pytest.mark.parametrize("triangle", [
    [[0, 0], [1, 0], [0.5, math.sqrt(3) / 2]],   # equilateral
    [[0, 0], [3, 0], [1.5, 0.3]],                 # obtuse
    [[0, 0], [1, 0], [0, 2]],                     # right-angled
])
def test_euclidean_supcon_scaled_prototypes_reach_bound(triangle):
    mu = np.asarray(triangle, dtype=float)
    y = np.repeat(np.arange(3), 4)
    W = supcon_weights(y)
    gaps = [delta_w(W, euclidean_similarities(torch.as_tensor(m * mu[y]))) for m in (1, 3, 10)]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-12


# ------------------------------------------------------------------------------------------ regression
def test_euclidean_euclidean_attains_bound_at_labels():
    rng = np.random.default_rng(0)
    y = rng.uniform(-1, 1, size=(20, 1))
    fit = fit_free_embeddings(euclidean_weights(y), dim=2, similarity="euclidean", seed=0)
    assert fit.delta_w < 1e-8
    assert r2_procrustes(fit.Z, np.hstack([y, np.zeros_like(y)])) > 0.999


def test_y_aware_cannot_attain_bound_on_a_line_but_can_on_small_circle():
    line = np.linspace(-2, 2, 20)[:, None]
    fit = fit_free_embeddings(y_aware_weights(line), dim=3, tau=0.5, seed=0)
    assert fit.delta_w > 1e-3
    tau = 0.5
    theta = np.random.default_rng(1).uniform(0, 2 * np.pi, 20)
    circle = 0.8 / math.sqrt(2 * tau) * np.c_[np.cos(theta), np.sin(theta)]
    fit = fit_free_embeddings(y_aware_weights(circle), dim=3, tau=tau, seed=0)
    assert fit.delta_w < 1e-8
    assert r2_procrustes(fit.Z, spherical_realisation(edm(circle), tau)) > 0.999


@pytest.mark.parametrize("tau", [0.25, 0.4])
def test_xclr_optimum_formula(tau):
    tau_p = 0.5
    y = np.random.default_rng(5).normal(size=(25, 4))
    fit = fit_free_embeddings(xclr_weights(y, tau_p), dim=6, tau=tau, seed=0)
    yn = y / np.linalg.norm(y, axis=1, keepdims=True)
    target = tau / tau_p * yn @ yn.T + 1 - tau / tau_p
    assert np.abs(_offdiag(fit.Z @ fit.Z.T - target)).max() < 1e-3
    assert fit.delta_w < 1e-8


def test_xclr_above_tau_prime_is_not_attained():
    y = np.random.default_rng(5).normal(size=(25, 4))
    fit = fit_free_embeddings(xclr_weights(y, 0.1), dim=6, tau=0.3, seed=0)
    assert fit.delta_w > 0.1


def test_euclidean_soft_supcon_dimension_threshold():
    y = np.repeat(np.arange(10), 3)
    W = soft_supcon_weights(y, EPS)
    target = np.eye(10)[y] / math.sqrt(2)  # prototypes at squared distance d = -log eps = 1
    for q in (7, 8):
        assert fit_free_embeddings(W, dim=q, similarity="euclidean", seed=0).delta_w > 1e-3
    for q in (9, 10):
        fit = fit_free_embeddings(W, dim=q, similarity="euclidean", seed=0)
        assert fit.delta_w < 1e-8 and r2_procrustes(fit.Z, target) > 0.999


def test_kernel_pca_is_the_optimum():
    from sklearn.decomposition import KernelPCA

    X = np.random.default_rng(0).normal(size=(25, 2)) * 0.5
    K = 0.3 * (X @ X.T + 1) ** 2
    d = np.diag(K)
    D = d[:, None] + d[None, :] - 2 * K
    fit = fit_free_embeddings(distance_weights(D), dim=5, similarity="euclidean", seed=0)
    assert fit.delta_w < 1e-8
    kpca = KernelPCA(n_components=5, kernel="precomputed").fit_transform(K)
    assert r2_procrustes(fit.Z, kpca) > 0.999
