r"""Circumplex metrics of "Mapping the Circumplex of Affect" (Yamauchi & Aizawa, ACL 2026), §4.2.

* **AvgCosSim(a, b)**: the mean cosine between the test embeddings of label *a* and those of label *b*
  (for a = b: over pairs of *distinct* examples).
* **CD(a, b)** (circumplex distance) :math:`= C + \Delta\theta_{ab}/30°`, with :math:`C = 0` for the same polarity,
  2 for neutral vs. polar and 4 for positive vs. negative. The paper does not list the neutral labels; this
  companion takes **surprise and calmness** as neutral (they sit at 90° and 270°, between the positive arc
  love/joy/excitement/…/relief/trust and the negative arc anger/…/boredom), see :data:`POLARITY`.
* **CD-r** :math:`= \mathrm{Pearson}(CD(a,b),\ 1 - \mathrm{AvgCosSim}(a,b))` over **unordered pairs of distinct
  labels** (the diagonal excluded; ``include_diagonal=True`` gives the other reading). A constant AvgCosSim
  vector makes the correlation undefined: a ValueError says so instead of returning NaN.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from companion._checks import check_matrix, check_same_length
from companion.losses.circumplex import ECM_ANGLES, ECM_LABELS, delta_theta, ecm_index

#: Polarity used by CD: +1 positive, -1 negative, 0 neutral (surprise, calmness; our reading, see module doc).
POLARITY: dict[str, int] = {"love": 1, "joy": 1, "excitement": 1, "surprise": 0, "anger": -1, "fear": -1,
                            "disgust": -1, "sadness": -1, "boredom": -1, "calmness": 0, "relief": 1, "trust": 1}


def polarity_table(neutral: Sequence[str] = ("surprise", "calmness")) -> dict[str, int]:
    """Polarity of each ECM label with the given neutral labels; others are positive on the love side of the
    circle (330°–60°, 300°) and negative on the anger side (120°–240°)."""
    ecm_index(list(neutral))
    negative = {"anger", "fear", "disgust", "sadness", "boredom"}
    return {n: 0 if n in neutral else (-1 if n in negative else 1) for n in ECM_LABELS}


def circumplex_distance(labels_a: Sequence[str], labels_b: Sequence[str] | None = None,
                        neutral: Sequence[str] = ("surprise", "calmness")) -> np.ndarray:
    """All-pairs CD matrix between label names: C (0 same polarity, 2 neutral vs polar, 4 positive vs negative)
    plus the number of 30° steps between the labels on the ECM."""
    labels_b = labels_a if labels_b is None else labels_b
    ecm_index(list(labels_a)), ecm_index(list(labels_b))
    pol = polarity_table(neutral)
    pa = np.array([pol[x] for x in labels_a])
    pb = np.array([pol[x] for x in labels_b])
    c = np.where(pa[:, None] == pb[None, :], 0, np.where((pa[:, None] == 0) | (pb[None, :] == 0), 2, 4))
    ta = torch.tensor([ECM_ANGLES[x] for x in labels_a])
    tb = torch.tensor([ECM_ANGLES[x] for x in labels_b])
    steps = (delta_theta(ta, tb) / 30.0).numpy()
    return c + steps


def avg_cos_sim(embeddings, labels, classes: Sequence | None = None):
    """AvgCosSim matrix (K x K) between the classes (default: sorted unique labels, or ``classes`` in that
    order): mean cosine over all cross-class pairs, and over distinct-example pairs on the diagonal.
    Returns ``(matrix, classes)``. Vectorised through per-class sums of unit vectors."""
    x = torch.as_tensor(np.asarray(embeddings) if not isinstance(embeddings, torch.Tensor) else embeddings)
    x = check_matrix(x.detach().to(torch.float64), "embeddings")
    check_same_length(x, labels, "embeddings", "labels")
    labels = np.asarray(labels, dtype=object)
    classes = list(dict.fromkeys(sorted(set(labels.tolist())))) if classes is None else list(classes)
    missing = [c for c in classes if not (labels == c).any()]
    if missing:
        raise ValueError(f"classes {missing} have no embeddings.")
    norms = x.norm(dim=1, keepdim=True)
    if bool((norms == 0).any()):
        raise ValueError("embeddings contain an all-zero row; its cosine is undefined.")
    x = x / norms
    onehot = torch.tensor(np.stack([labels == c for c in classes]), dtype=torch.float64)  # K x N
    counts = onehot.sum(dim=1)
    sums = onehot @ x
    gram = sums @ sums.T
    mat = gram / (counts[:, None] * counts[None, :])
    diag_pairs = counts * (counts - 1)
    diag = torch.where(diag_pairs > 0, (gram.diagonal() - counts) / diag_pairs.clamp_min(1),
                       torch.full_like(counts, float("nan")))
    mat = mat.clone()
    mat[range(len(classes)), range(len(classes))] = diag
    return mat.numpy(), classes


def cd_r(avg_cos: np.ndarray, classes: Sequence[str], include_diagonal: bool = False,
         neutral: Sequence[str] = ("surprise", "calmness")) -> float:
    """CD-r (paper §4.2): Pearson correlation between CD and 1 - AvgCosSim over unordered label pairs (the
    diagonal excluded by default). Raises ValueError when 1 - AvgCosSim (or CD) is constant: r is undefined."""
    avg_cos = np.asarray(avg_cos, dtype=np.float64)
    K = len(classes)
    if avg_cos.shape != (K, K):
        raise ValueError(f"avg_cos must be {K} x {K} (one row per class), got {avg_cos.shape}.")
    if K < 2:
        raise ValueError("CD-r needs at least 2 classes.")
    cd = circumplex_distance(list(classes), neutral=neutral)
    iu = np.triu_indices(K, 0 if include_diagonal else 1)
    a, b = cd[iu], 1.0 - avg_cos[iu]
    if not np.isfinite(b).all():
        raise ValueError("AvgCosSim contains non-finite values (a class with a single example on the diagonal?).")
    if np.ptp(b) == 0 or np.ptp(a) == 0:
        raise ValueError("CD-r is undefined: AvgCosSim (or CD) is constant over the label pairs, so the Pearson "
                         "correlation has a zero variance.")
    return float(np.corrcoef(a, b)[0, 1])


def circumplex_scores(embeddings, labels, include_diagonal: bool = False) -> dict[str, float]:
    """CD-r of test embeddings with ECM label names (AvgCosSim over the labels present, in ECM order)."""
    ecm_index(list(labels))
    present = set(np.asarray(labels, dtype=object).tolist())
    classes = [c for c in ECM_LABELS if c in present]
    mat, classes = avg_cos_sim(embeddings, labels, classes)
    return {"CD-r": cd_r(mat, classes, include_diagonal=include_diagonal)}


def geometry_summary(embeddings, labels, classes: Sequence[str] | None = None, tol: float = 1e-3
                     ) -> dict[str, float]:
    """Shape of a labelled point cloud on the sphere (circumplex App. I / §5.1):

    * ``mean_offdiag_cos``: mean AvgCosSim between different labels (regular simplex: -1/(E-1); orthogonal: 0);
    * ``gram_rank``: numerical rank of the embeddings' Gram matrix (eigenvalues > ``tol`` x the largest);
    * ``top2_var``: fraction of the (uncentred) second moment in the top-2 principal directions (ring: 1);
    * ``ring_r``: Pearson r between AvgCosSim and cos Δθ over label pairs (ring at the ECM angles: 1)."""
    x = torch.as_tensor(np.asarray(embeddings) if not isinstance(embeddings, torch.Tensor) else embeddings)
    x = check_matrix(x.detach().to(torch.float64), "embeddings")
    x = x / x.norm(dim=1, keepdim=True)
    mat, classes = avg_cos_sim(x, labels, classes)
    K = len(classes)
    off = ~np.eye(K, dtype=bool)
    eig = torch.linalg.eigvalsh(x.T @ x).flip(0).numpy()
    theta = torch.tensor([ECM_ANGLES[c] for c in classes])
    target = np.cos(np.radians(delta_theta(theta).numpy()))
    iu = np.triu_indices(K, 1)
    return {"mean_offdiag_cos": float(mat[off].mean()), "gram_rank": int((eig > tol * eig[0]).sum()),
            "top2_var": float(eig[:2].sum() / eig.sum()),
            "ring_r": float(np.corrcoef(mat[iu], target[iu])[0, 1])}


# --------------------------------------------------------------------------------------------- §5 / Figs 5-7 helpers
def pca_project(emb: torch.Tensor, k: int) -> torch.Tensor:
    """Centred embeddings projected on their top-``k`` principal directions (float64), as in Fig. 5a."""
    x = torch.as_tensor(emb).double()
    x = x - x.mean(0)
    _, _, vh = torch.linalg.svd(x, full_matrices=False)
    return x @ vh[:k].T


def label_centroids(x, labels, classes: Sequence[str]) -> np.ndarray:
    """Unit centroid (mean of the unit rows, renormalised) of every class in ``classes`` order."""
    x = torch.nn.functional.normalize(torch.as_tensor(x).double(), dim=1)
    labels = np.asarray(labels)
    return np.stack([torch.nn.functional.normalize(x[torch.from_numpy(labels == c)].mean(0), dim=0).numpy()
                     for c in classes])


def mds2(points: np.ndarray, seed: int = 0) -> np.ndarray:
    """Metric MDS (classical initialisation) of unit points to 2-D, on the cosine distance 1 − cos."""
    from sklearn.manifold import MDS  # noqa: PLC0415 - sklearn is heavy; this module imports without it

    dist = np.clip(1 - points @ points.T, 0, None)
    np.fill_diagonal(dist, 0)
    return MDS(n_components=2, metric="precomputed", init="classical_mds", n_init=1,
               random_state=seed).fit_transform(dist)


def ring_alignment(xy: np.ndarray, classes: Sequence[str]) -> float:
    """|mean exp(i(φ_k − s θ_k))| maximised over the reflection s: 1 when 2-D points sit around their centre in the
    ECM's circular order and spacing (up to rotation/reflection), ~0 when the order is unrelated."""
    z = xy - xy.mean(0)
    phi = np.arctan2(z[:, 1], z[:, 0])
    theta = np.radians([ECM_ANGLES[c] for c in classes])
    return float(max(abs(np.exp(1j * (phi - s * theta)).mean()) for s in (1, -1)))


def ring_angles(emb_ecm, labels_ecm, classes: Sequence[str], emb_new) -> np.ndarray:
    """Angle φ of each new embedding in the ring's plane: the top-2 principal plane of the ECM label centroids,
    rotated/reflected so that the centroids best match their ECM angles (love 0°, surprise 90°, disgust 180°,
    calmness 270°); angles are taken around the centroids' centre."""
    cents = label_centroids(emb_ecm, labels_ecm, classes)
    centre = cents.mean(0)
    _, _, vh = np.linalg.svd(cents - centre, full_matrices=False)
    plane = vh[:2]
    z = (cents - centre) @ plane.T
    phi = np.arctan2(z[:, 1], z[:, 0])
    theta = np.radians([ECM_ANGLES[c] for c in classes])
    best = max((abs(np.exp(1j * (phi - s * theta)).mean()), s, np.angle(np.exp(1j * (phi - s * theta)).mean()))
               for s in (1, -1))
    _, s, offset = best
    new = torch.nn.functional.normalize(torch.as_tensor(emb_new).double(), dim=1).numpy()
    zn = (new - centre) @ plane.T
    return s * (np.arctan2(zn[:, 1], zn[:, 0]) - offset)


def regular_simplex(n_labels: int, dim: int, per_label: int = 1) -> torch.Tensor:
    """The regular simplex of App. I's theorem: ``n_labels`` unit vectors with pairwise cosine −1/(n_labels − 1)
    (the centred standard basis, normalised), padded with zeros to ``dim`` ≥ ``n_labels`` coordinates, each label's
    vector repeated ``per_label`` times in label order (float64, ``n_labels · per_label x dim``)."""
    if n_labels < 2 or dim < n_labels or per_label < 1:
        raise ValueError(f"need n_labels >= 2, dim >= n_labels and per_label >= 1, got {n_labels}, {dim}, "
                         f"{per_label}.")
    eye = torch.eye(n_labels, dtype=torch.float64)
    simplex = torch.nn.functional.normalize(eye - eye.mean(0), dim=1)
    simplex = torch.cat([simplex, torch.zeros(n_labels, dim - n_labels, dtype=torch.float64)], 1)
    return simplex[torch.arange(n_labels).repeat_interleave(per_label)]


def centroid_angles(emb: torch.Tensor, labels: Sequence[str], classes: Sequence[str]) -> torch.Tensor:
    """Angles in degrees between the label directions of ``emb``: the mean row of each class in ``classes`` (in the
    embeddings' own dtype), normalised in float64; ``classes x classes`` (the §5.1 margin argument: 30° between
    adjacent labels on a ring, about 90° between any two labels under SINCERE)."""
    labels = list(labels)
    if len(labels) != len(emb):
        raise ValueError(f"{len(labels)} labels for {len(emb)} embeddings.")
    missing = [c for c in classes if c not in labels]
    if missing:
        raise ValueError(f"no embedding has the label(s) {missing}.")
    cent = torch.stack([emb[torch.tensor([lab == c for lab in labels])].mean(0) for c in classes]).double()
    cent = torch.nn.functional.normalize(cent, dim=1)
    return torch.rad2deg(torch.arccos(torch.clamp(cent @ cent.T, -1, 1)))
