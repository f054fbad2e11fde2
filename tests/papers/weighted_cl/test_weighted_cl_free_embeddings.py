"""The free-embedding optimiser of the weighted-cl paper (companion.papers.weighted_cl.free_embeddings): a fixed
seed gives the same optimum, and the paper's Adam protocol reaches the Hard SupCon simplex loosely."""

from __future__ import annotations

import numpy as np
import torch

from companion.losses.weighted import hard_supcon_optimal_loss, supcon_weights
from companion.papers.weighted_cl.distance_geometry import block_cosines
from companion.papers.weighted_cl.free_embeddings import fit_free_embeddings

torch.set_num_threads(1)  # tiny matrices: threads only add contention on a shared 2-core machine


def _offdiag(M):
    return M[~np.eye(len(M), dtype=bool)]


def test_fixed_seed_is_deterministic():
    y = np.repeat(np.arange(3), 4)
    a = fit_free_embeddings(supcon_weights(y), dim=3, tau=0.5, seed=3)
    b = fit_free_embeddings(supcon_weights(y), dim=3, tau=0.5, seed=3)
    assert np.array_equal(a.Z, b.Z) and a.loss == b.loss


def test_adam_path_reaches_simplex_loosely():
    y = np.repeat(np.arange(3), 4)
    fit = fit_free_embeddings(supcon_weights(y), dim=3, tau=0.5, method="adam", lr=5e-2, steps=600, seed=0)
    blocks, intra = block_cosines(fit.Z, y)
    assert intra.min() > 1 - 1e-3
    assert np.abs(_offdiag(blocks) + 0.5).max() < 1e-2
    assert abs(fit.loss - hard_supcon_optimal_loss(3, 4, 0.5)) < 1e-5
