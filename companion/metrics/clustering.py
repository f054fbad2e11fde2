r"""Clustering metrics: spherical k-means and V-Measure (circumplex paper §4.2, "V-Measure").

The paper clusters the test embeddings with spherical k-means (cosine), k = number of labels, 10 initialisations
keeping the one with the lowest inertia, and scores the clusters against the gold labels with V-Measure
(Rosenberg & Hirschberg 2007), computed by scikit-learn's :func:`sklearn.metrics.v_measure_score`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from companion._checks import check_matrix, check_same_length


@dataclass
class SphericalKMeansResult:
    labels: np.ndarray        # (N,) cluster of each row
    centers: np.ndarray       # (k, d) unit-norm centroids
    inertia: float            # sum_i (1 - cos(x_i, c_{label_i}))
    n_iter: int
    inertias: list  # inertia of every initialisation (the kept one is the minimum)


def _as_unit(x) -> torch.Tensor:
    x = torch.as_tensor(np.asarray(x) if not isinstance(x, torch.Tensor) else x).detach().to(torch.float64)
    check_matrix(x, "embeddings")
    norms = x.norm(dim=1, keepdim=True)
    if bool((norms == 0).any()):
        raise ValueError("embeddings contain an all-zero row; spherical k-means needs a direction per row.")
    return x / norms


def _kmeanspp(x: torch.Tensor, k: int, gen: torch.Generator) -> torch.Tensor:
    """k-means++ seeding with the cosine distance 1 - cos."""
    n = x.shape[0]
    first = int(torch.randint(n, (1,), generator=gen))
    centers = [x[first]]
    dist = (1.0 - x @ x[first]).clamp_min(0)
    for _ in range(1, k):
        total = float(dist.sum())
        if total <= 0:
            idx = int(torch.randint(n, (1,), generator=gen))
        else:
            idx = int(torch.multinomial(dist / total, 1, generator=gen))
        centers.append(x[idx])
        dist = torch.minimum(dist, (1.0 - x @ x[idx]).clamp_min(0))
    return torch.stack(centers)


def spherical_kmeans(x, k: int, n_init: int = 10, max_iter: int = 100, seed: int = 0, tol: float = 1e-6
                     ) -> SphericalKMeansResult:
    """Spherical k-means (cosine): assign each unit row to the centroid of highest cosine, re-estimate centroids
    as normalised means; k-means++ seeding; ``n_init`` restarts, keeping the run with the lowest inertia
    :math:`\\sum_i (1 - \\cos(x_i, c_{y_i}))`. Deterministic for a given ``seed``."""
    x = _as_unit(x)
    n = x.shape[0]
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k > n:
        raise ValueError(f"k must be an int in [1, {n}] (number of rows), got {k!r}.")
    if not isinstance(n_init, int) or n_init < 1:
        raise ValueError(f"n_init must be an int >= 1, got {n_init!r}.")
    gen = torch.Generator().manual_seed(seed)
    best = None
    inertias = []
    for _ in range(n_init):
        centers = _kmeanspp(x, k, gen)
        prev = None
        it = 0
        while it < max_iter:
            it += 1
            sim = x @ centers.T
            assign = sim.argmax(dim=1)
            sums = torch.zeros_like(centers).index_add_(0, assign, x)
            norms = sums.norm(dim=1, keepdim=True)
            empty = norms.squeeze(1) == 0
            if bool(empty.any()):  # re-seed an empty cluster at the worst-served point
                far = (1 - sim.max(dim=1).values).argsort(descending=True)[: int(empty.sum())]
                sums[empty] = x[far]
                norms = sums.norm(dim=1, keepdim=True)
            centers = sums / norms
            inertia = float((1.0 - (x * centers[assign]).sum(dim=1)).sum())
            if prev is not None and prev - inertia <= tol * max(1.0, prev):
                break
            prev = inertia
        assign = (x @ centers.T).argmax(dim=1)
        inertia = float((1.0 - (x * centers[assign]).sum(dim=1)).sum())
        inertias.append(inertia)
        if best is None or inertia < best.inertia:
            best = SphericalKMeansResult(assign.numpy(), centers.numpy(), inertia, it, inertias)
    return best


def v_measure(embeddings, labels, k: int | None = None, n_init: int = 10, seed: int = 0) -> float:
    """V-Measure (scikit-learn ``v_measure_score``) of spherical k-means clusters of ``embeddings`` against
    ``labels``; ``k`` defaults to the number of distinct labels (circumplex paper §4.2)."""
    from sklearn.metrics import v_measure_score  # noqa: PLC0415 - sklearn is heavy; this module imports without it

    check_same_length(embeddings, labels, "embeddings", "labels")
    labels = np.asarray(labels)
    k = len(np.unique(labels)) if k is None else k
    result = spherical_kmeans(embeddings, k, n_init=n_init, seed=seed)
    return float(v_measure_score(labels, result.labels))
