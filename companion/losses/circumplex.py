r"""Losses of "Mapping the Circumplex of Affect" (Yamauchi & Aizawa, ACL 2026, 2026.acl-long.772), §3.

* The **Empirical Circumplex Model** (ECM, §3.2): 12 emotion labels 30° apart on a circle, and the angular
  difference :math:`\Delta\theta_{ij} = \min(|\theta_i - \theta_j|, 360° - |\theta_i - \theta_j|)`.
* **SINCERE** (Eq. 5–6) and **SoftCSE** (Eq. 7–8) are prepared here (logits, positive mask, negative log-weights)
  and computed by the shared core :func:`companion.losses.core.contrastive_nll` with
  ``exclude_other_positives=True``. **Averaging over anchors**: by default both average over the anchors that have
  a positive in the batch (:math:`1/|A|`), where Eq. 5 writes :math:`1/B` over the whole batch (an anchor without a
  positive has an empty inner mean, taken as 0). The two differ by the factor :math:`|A|/B` exactly;
  ``average="batch"`` gives Eq. 5's :math:`1/B`. At batch 128 with 9–12 balanced labels almost every anchor has a
  positive (:func:`anchor_coverage` measures it on the training batches); the factor matters only for rare labels
  or small batches.
* **CircularCSE** (Eq. 9) regresses the Gram matrix of the embeddings onto :math:`\cos\Delta\theta`.

Labels are given as ECM names (``"love"``), or as integer indices into ``angles`` (default: the 12 ECM angles in
ECM order). Embeddings are L2-normalised inside every loss (the paper's :math:`e = \mathrm{Norm}(\cdot)`), so all
three losses are invariant to rotations and rescaling of the rows. Everything is vectorised over the batch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from companion._checks import check_matrix, check_same_length, check_temperature
from companion.losses.core import contrastive_nll
from companion.similarities import unit_rows

#: ECM labels in circle order and their angles in degrees (paper §3.2 / Fig. 2).
ECM_LABELS: tuple[str, ...] = ("love", "joy", "excitement", "surprise", "anger", "fear", "disgust", "sadness",
                               "boredom", "calmness", "relief", "trust")
ECM_ANGLES: dict[str, float] = {name: 30.0 * i for i, name in enumerate(ECM_LABELS)}

#: The 9 ECM labels of SuperEmotion (paper Table 2), used for the GoEmotions stand-in.
GOEMOTIONS_ECM_LABELS: tuple[str, ...] = ("love", "joy", "excitement", "surprise", "anger", "fear", "disgust",
                                          "sadness", "relief")


def ecm_table():
    """The ECM as a DataFrame: label, angle (degrees), position on the unit circle (cos, sin)."""
    import pandas as pd  # noqa: PLC0415 - the losses import without pandas (a copy of companion/ alone)

    deg = np.array([ECM_ANGLES[n] for n in ECM_LABELS])
    return pd.DataFrame({"label": ECM_LABELS, "angle_deg": deg, "cos": np.cos(np.radians(deg)).round(6),
                         "sin": np.sin(np.radians(deg)).round(6)})


def ecm_index(labels: Sequence[str]) -> torch.Tensor:
    """ECM indices (0–11) of label names; an unknown name raises a ValueError naming it and the valid labels."""
    if isinstance(labels, str):
        raise TypeError("labels must be a sequence of label names, not a single string.")
    lookup = {n: i for i, n in enumerate(ECM_LABELS)}
    unknown = sorted({str(x) for x in labels if x not in lookup})
    if unknown:
        raise ValueError(f"Unknown emotion label(s) {unknown}; the ECM labels are {', '.join(ECM_LABELS)}.")
    return torch.tensor([lookup[x] for x in labels], dtype=torch.long)


def ecm_angles(labels: Sequence[str]) -> torch.Tensor:
    """ECM angles in degrees of label names (float64)."""
    return torch.tensor([ECM_ANGLES[ECM_LABELS[i]] for i in ecm_index(labels).tolist()], dtype=torch.float64)


def delta_theta(theta_a: torch.Tensor, theta_b: torch.Tensor | None = None) -> torch.Tensor:
    r"""All-pairs circular difference :math:`\Delta\theta = \min(|a-b|, 360-|a-b|)` in degrees, in [0, 180]."""
    theta_a = torch.as_tensor(theta_a, dtype=torch.float64)
    theta_b = theta_a if theta_b is None else torch.as_tensor(theta_b, dtype=torch.float64)
    diff = torch.remainder(theta_a[:, None] - theta_b[None, :], 360.0)
    return torch.minimum(diff, 360.0 - diff)


def _label_angles(labels, angles: Sequence[float] | None, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(integer class ids, angle in degrees per row) from names or integer ids."""
    if isinstance(labels, torch.Tensor) or (len(labels) and not isinstance(labels[0], str)):
        ids = torch.as_tensor(labels)
        if ids.dtype.is_floating_point or ids.dtype == torch.bool:
            raise TypeError(f"integer labels must have an integer dtype, got {ids.dtype}.")
        ids = ids.long().reshape(-1)
        table = torch.tensor([ECM_ANGLES[x] for x in ECM_LABELS] if angles is None else list(angles),
                             dtype=torch.float64)
        if len(ids) and (int(ids.min()) < 0 or int(ids.max()) >= len(table)):
            raise ValueError(f"label ids must lie in [0, {len(table) - 1}] (one per angle), got "
                             f"[{int(ids.min())}, {int(ids.max())}].")
        theta = table[ids]
    else:
        ids = ecm_index(labels)
        theta = torch.tensor([ECM_ANGLES[ECM_LABELS[i]] for i in ids.tolist()], dtype=torch.float64)
    return ids, theta


def _prepare(embeddings: torch.Tensor, labels, tau: float | None, angles=None):
    check_matrix(embeddings, "embeddings", min_rows=2)
    check_same_length(embeddings, labels, "embeddings", "labels")
    if tau is not None:
        check_temperature(tau, "tau")
    ids, theta = _label_angles(labels, angles, len(embeddings))
    ids = ids.to(embeddings.device)
    e = unit_rows(embeddings)
    return e, ids, theta.to(embeddings.device)


def _positives(ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    eye = torch.eye(len(ids), dtype=torch.bool, device=ids.device)
    pos = (ids[:, None] == ids[None, :]) & ~eye
    if not bool(pos.any()):
        raise ValueError("No anchor in the batch has a positive (every label occurs once); SINCERE/SoftCSE need "
                         "at least two examples of some label per batch.")
    if bool((ids == ids[0]).all()):
        raise ValueError("Every example in the batch has the same label: SINCERE/SoftCSE have no negatives, so the "
                         "loss is identically 0 with zero gradient; a batch needs at least two labels.")
    return pos, ~eye


AVERAGES = ("anchors", "batch")


def _average(loss: torch.Tensor, pos: torch.Tensor, average: str) -> torch.Tensor:
    """``loss`` is the mean over anchors with a positive (1/|A|); ``"batch"`` rescales it to Eq. 5's 1/B."""
    if average not in AVERAGES:
        raise ValueError(f"average must be one of {', '.join(AVERAGES)}, got {average!r}.")
    if average == "batch":
        return loss * (pos.any(dim=1).sum() / len(pos)).to(loss.dtype)
    return loss


def anchor_coverage(labels: Sequence, batches) -> dict[str, float]:
    r"""|A|/B, the share of a batch's anchors that have a positive, over ``batches`` (index tensors into
    ``labels``): ``{"min", "mean", "batches"}``. Eq. 5's 1/B and our 1/|A| average differ by exactly this factor,
    so ``1 - min`` is the largest relative difference of the loss (and of its gradient) on those batches."""
    labels = np.asarray(labels, dtype=object)
    shares = []
    for idx in batches:
        _, counts = np.unique(labels[np.asarray(idx)], return_counts=True)
        shares.append(float(counts[counts > 1].sum() / counts.sum()))
    if not shares:
        raise ValueError("anchor_coverage needs at least one batch.")
    return {"min": min(shares), "mean": float(np.mean(shares)), "batches": len(shares)}


def sincere_loss(embeddings: torch.Tensor, labels, tau: float = 0.05, average: str = "anchors") -> torch.Tensor:
    r"""SINCERE (Feeney & Hughes 2024; circumplex paper Eq. 5–6), :math:`\tau = 0.05`.

    .. math:: \mathcal L = \frac{1}{|A|}\sum_{i\in A} -\frac{1}{|P_i|}\sum_{j\in P_i}
       \log\frac{e^{e_i\cdot e_j/\tau}}{e^{e_i\cdot e_j/\tau} + \sum_{k\in N_i} e^{e_i\cdot e_k/\tau}}

    with :math:`P_i` the other examples of anchor *i*'s label, :math:`N_i` the examples of other labels (other
    positives are **not** in the denominator) and :math:`A` the anchors that have a positive. Eq. 5 writes
    :math:`1/B` (every anchor of the batch) in place of :math:`1/|A|`: ``average="batch"`` gives that, the default
    ``"anchors"`` the form above; they differ by the factor :math:`|A|/B` (module docstring).
    """
    e, ids, _ = _prepare(embeddings, labels, tau)
    pos, off_diag = _positives(ids)
    logits = e @ e.T / tau
    return _average(contrastive_nll(logits, pos, denominator_mask=off_diag, exclude_other_positives=True), pos,
                    average)


def softcse_weights(theta: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    r"""SoftCSE negative weights (Eq. 8): :math:`w_{ik} = (1-\cos\Delta\theta_{ik}) / \mathrm{mean}_{k'\in N_i}
    (1-\cos\Delta\theta_{ik'})` for :math:`k \in N_i` (other labels), 0 elsewhere. Rows with negatives average 1."""
    dtheta = delta_theta(theta)
    raw = 1.0 - torch.cos(torch.deg2rad(dtheta))
    neg = ids[:, None] != ids[None, :]
    raw = torch.where(neg, raw, torch.zeros_like(raw))
    count = neg.sum(dim=1, keepdim=True).clamp_min(1)
    mean = raw.sum(dim=1, keepdim=True) / count
    if bool(((raw <= 0) & neg).any()):
        raise ValueError("two different labels share an angle (Δθ = 0): SoftCSE weight 1 - cos Δθ would be 0.")
    return torch.where(neg, raw / mean.clamp_min(torch.finfo(raw.dtype).tiny), torch.zeros_like(raw))


def softcse_loss(embeddings: torch.Tensor, labels, tau: float = 0.05, angles: Sequence[float] | None = None,
                 average: str = "anchors") -> torch.Tensor:
    r"""SoftCSE (circumplex paper Eq. 7–8): SINCERE with each negative's term weighted by :math:`w_{ik}`.

    .. math:: -\frac{1}{|P_i|}\sum_{j\in P_i}\log\frac{e^{e_i\cdot e_j/\tau}}{e^{e_i\cdot e_j/\tau}
       + \sum_{k\in N_i} w_{ik}\, e^{e_i\cdot e_k/\tau}},\qquad
       w_{ik} = \frac{1-\cos\Delta\theta_{ik}}{\mathrm{mean}_{k'\in N_i}(1-\cos\Delta\theta_{ik'})}

    Negatives far around the circle (large :math:`\Delta\theta`) are pushed harder; the weights are passed to the
    core as ``negative_log_weights = log w``. Averaged over the anchors that have a positive (:math:`1/|A|`), where
    Eq. 5 (which Eq. 7 modifies) writes :math:`1/B`; ``average="batch"`` gives :math:`1/B` (module docstring).
    """
    e, ids, theta = _prepare(embeddings, labels, tau, angles)
    pos, off_diag = _positives(ids)
    w = softcse_weights(theta, ids).to(e.dtype)
    log_w = torch.log(w.clamp_min(torch.finfo(e.dtype).tiny))
    logits = e @ e.T / tau
    return _average(contrastive_nll(logits, pos, denominator_mask=off_diag, negative_log_weights=log_w,
                                    exclude_other_positives=True), pos, average)


def circumplex_target(labels, angles: Sequence[float] | None = None) -> torch.Tensor:
    r"""CircularCSE's target Gram matrix :math:`T_{ij} = \cos\Delta\theta_{ij}` (= 1 for the same label).

    :math:`T = cc^\top + ss^\top` with :math:`c = \cos\theta,\ s = \sin\theta`: PSD with rank ≤ 2 (a ring)."""
    _, theta = _label_angles(labels, angles, len(labels))
    return torch.cos(torch.deg2rad(delta_theta(theta)))


def circular_cse_loss(embeddings: torch.Tensor, labels, margin: float = 0.0,
                      angles: Sequence[float] | None = None) -> torch.Tensor:
    r"""CircularCSE (circumplex paper Eq. 9): regress cosine similarities onto the circumplex.

    .. math:: \mathcal L = \frac{1}{B(B-1)}\sum_{i\ne j}\begin{cases}
       \big[\max(0, |e_i\cdot e_j - 1| - m)\big]^2 & y_i = y_j\\
       (e_i\cdot e_j - \cos\Delta\theta_{ij})^2 & y_i \ne y_j\end{cases}

    with :math:`m = 0` in the paper. It is 0 exactly when the embeddings lie on a ring (a 2-D circle of the
    sphere) at their labels' ECM angles, up to rotation.
    """
    if not isinstance(margin, (int, float)) or isinstance(margin, bool) or not np.isfinite(margin) or margin < 0:
        raise ValueError(f"margin must be a finite number >= 0, got {margin!r}.")
    e, ids, theta = _prepare(embeddings, labels, None, angles)
    sim = e @ e.T
    target = torch.cos(torch.deg2rad(delta_theta(theta))).to(e.dtype)
    same = ids[:, None] == ids[None, :]
    err_same = torch.clamp((sim - 1.0).abs() - margin, min=0.0) ** 2
    err_diff = (sim - target) ** 2
    err = torch.where(same, err_same, err_diff)
    off = ~torch.eye(len(ids), dtype=torch.bool, device=e.device)
    return err[off].mean()


LOSSES = {"SINCERE": sincere_loss, "SoftCSE": softcse_loss, "CircularCSE": circular_cse_loss}


def get_loss(name: str):
    """One of :data:`LOSSES` by name (``SINCERE``, ``SoftCSE``, ``CircularCSE``)."""
    if name not in LOSSES:
        raise ValueError(f"Unknown circumplex loss {name!r}; choose one of {', '.join(LOSSES)}.")
    return LOSSES[name]


def population_bound(n_classes: int, tau: float = 0.05) -> float:
    r"""SINCERE's loss on a regular simplex with one example per class (paper App. I):
    :math:`L^* = \log(1 + (E-1)\exp(-E/((E-1)\tau)))`."""
    tau = check_temperature(tau)
    if not isinstance(n_classes, int) or n_classes < 2:
        raise ValueError(f"n_classes must be an int >= 2, got {n_classes!r}.")
    E = n_classes
    return float(np.log1p((E - 1) * np.exp(-E / ((E - 1) * tau))))
