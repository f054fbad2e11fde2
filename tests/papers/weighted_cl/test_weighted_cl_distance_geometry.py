"""The distance geometry of the weighted-cl paper (companion.papers.weighted_cl.distance_geometry; Vock, Duchesnay &
Dufumier, arXiv 2605.13943): EDM tests and the classical MDS realisation (App. B), spherical EDMs, and the r²
metrics, invariant under isometries and checked against scipy's Procrustes."""

from __future__ import annotations

import numpy as np
import pytest

from companion.papers.weighted_cl.distance_geometry import (
    classical_mds,
    edm,
    embedding_dimension,
    gram_from_edm,
    is_edm,
    is_spherical_edm,
    r2_procrustes,
    r2_sim,
    random_isometry,
    spherical_radius,
)


def test_edm_tests_and_mds_realisation():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(12, 3))
    D = edm(Z)
    assert is_edm(D) and embedding_dimension(D) == 3
    G = gram_from_edm(D)
    Zc = Z - Z.mean(0)
    assert np.allclose(G, Zc @ Zc.T, atol=1e-10)
    X = classical_mds(D)
    assert np.allclose(edm(X), D, atol=1e-9)
    assert r2_procrustes(X, Z) > 1 - 1e-12  # unique up to isometry (Lemma B.2)
    assert not is_edm(np.array([[0, 1, 9], [1, 0, 1], [9, 1, 0.0]]))  # violates the triangle inequality
    assert not is_edm(np.array([[0, 1], [2, 0.0]]))


def test_spherical_edm():
    rng = np.random.default_rng(2)
    U = rng.normal(size=(10, 3))
    U = 0.7 * U / np.linalg.norm(U, axis=1, keepdims=True)
    D = edm(U)
    assert spherical_radius(D) == pytest.approx(0.7, abs=1e-8)
    assert is_spherical_edm(D, radius=0.7) and is_spherical_edm(D, radius=2.0)
    assert not is_spherical_edm(D, radius=0.5)
    line = edm(np.array([[0.0], [1.0], [3.0]]))
    assert is_edm(line) and not is_spherical_edm(line)


def test_metrics_invariant_under_isometry():
    rng = np.random.default_rng(6)
    Z = rng.normal(size=(30, 5))
    Z2 = random_isometry(Z, seed=1)
    assert r2_procrustes(Z2, Z) == pytest.approx(1.0, abs=1e-12)
    assert r2_sim(edm(Z2), edm(Z)) == pytest.approx(1.0, abs=1e-12)
    Zr = random_isometry(Z, seed=2, translate=False)
    cz = lambda A: (A / np.linalg.norm(A, axis=1, keepdims=True)) @ (A / np.linalg.norm(A, axis=1, keepdims=True)).T
    assert r2_sim(cz(Zr), cz(Z)) == pytest.approx(1.0, abs=1e-12)
    # a scaled copy is NOT an isometry: r2 drops
    assert r2_procrustes(2 * Z, Z) < 0.5
    noisy = Z + rng.normal(size=Z.shape) * 0.3
    assert 0 < r2_procrustes(noisy, Z) < 1


def test_r2_procrustes_against_scipy_hand_solution():
    from scipy.spatial import procrustes  # scipy's version also rescales: compare on unit-Frobenius inputs

    rng = np.random.default_rng(7)
    Z = rng.normal(size=(20, 3))
    T = rng.normal(size=(20, 3))
    Zc, Tc = Z - Z.mean(0), T - T.mean(0)
    _, _, disparity = procrustes(T, Z)
    # with both normalised to unit Frobenius norm, scipy's disparity = 1 - (sum of singular values)^2
    s = np.linalg.svd((Zc / np.linalg.norm(Zc)).T @ (Tc / np.linalg.norm(Tc)), compute_uv=False).sum()
    assert disparity == pytest.approx(1 - s**2, abs=1e-12)
    ours = r2_procrustes(Zc / np.linalg.norm(Zc), Tc / np.linalg.norm(Tc))
    # ours = 1 - ||R Z - T||^2 / ||T||^2 = 1 - (2 - 2 s) for unit norms
    assert ours == pytest.approx(1 - (2 - 2 * s), abs=1e-12)
