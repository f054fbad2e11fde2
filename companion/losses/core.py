"""The two loss cores every paper's objective is built from.

Both are vectorised over the whole batch (no Python loops over pairs), stable (log-sum-exp), and validate their
inputs so that bad input raises one clear error rather than returning NaN.
"""

from __future__ import annotations

import torch

from companion._checks import check_finite, check_temperature


def _logsumexp_rows(x: torch.Tensor) -> torch.Tensor:
    """Row-wise log-sum-exp of a 2-D tensor, ``(B,)``. Same value as ``torch.logsumexp(x, 1)``; written out
    (detached row max, ``exp``, ``sum``, ``log``) because autograd then reuses the ``exp`` in the backward pass
    instead of recomputing it (measurably faster on CPU for B x B logits; see ``benchmarks/``)."""
    m = x.detach().amax(dim=1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    return torch.log(torch.exp(x - m).sum(dim=1)) + m.squeeze(1)


def contrastive_nll(
    logits: torch.Tensor,
    positives: torch.Tensor,
    denominator_mask: torch.Tensor | None = None,
    negative_log_weights: torch.Tensor | None = None,
    exclude_other_positives: bool = False,
    reduction: str = "mean",
) -> torch.Tensor:
    r"""Multi-positive, weighted InfoNCE over a logit matrix — the core of the contrastive family.

    For anchor *i* with positive weights :math:`w_{ij} \ge 0`, :math:`P_{ij} = w_{ij} / \sum_j w_{ij}`,

    .. math::  \ell_i = -\sum_j P_{ij}\,\big[\,l_{ij} - \log \textstyle\sum_{k \in D_{ij}} e^{l_{ik} + \omega_{ik}}\big]

    where :math:`D_{ij}` is

    * every allowed entry (``denominator_mask``) — InfoNCE / SimCSE (Gao et al. 2021, Eq. 1), SupCon
      (Khosla et al. 2020, Eq. 2 "out"), weighted InfoNCE (Vock et al., Def. 3.1); or
    * ``{j}`` plus the allowed non-positive entries when ``exclude_other_positives`` — SINCERE (Feeney & Hughes
      2024; circumplex paper Eq. 5–6), where other positives are left out of the denominator;

    and :math:`\omega_{ik}` are log-weights applied to *negatives* in the denominator (SoftCSE, circumplex Eq. 7–8);
    positive entries always enter with weight 1.

    Args:
        logits: ``(B, N)`` similarities already divided by the temperature.
        positives: ``(B, N)`` bool mask or non-negative weights of positives.
        denominator_mask: ``(B, N)`` bool, entries allowed in the denominator (e.g. ``~eye`` to drop self-pairs);
            positives are always allowed. Default: all entries.
        negative_log_weights: ``(B, N)`` log-weights of negatives in the denominator (default 0).
        exclude_other_positives: SINCERE's denominator.
        reduction: ``"mean"`` over anchors that have a positive, ``"sum"``, or ``"none"`` (``(B,)``, 0 for
            anchors without positives).
    """
    if logits.dim() != 2:
        raise ValueError(f"logits must be 2-D (anchors x candidates), got shape {tuple(logits.shape)}.")
    check_finite(logits, "logits")
    if positives.shape != logits.shape:
        raise ValueError(f"positives has shape {tuple(positives.shape)}, logits {tuple(logits.shape)}.")
    if positives.dtype == torch.bool:
        is_pos = positives
        weights = positives.to(logits.dtype)
    else:
        weights = positives.to(logits.dtype)
        if weights.numel() and bool(weights.min() < 0):
            raise ValueError("positive weights must be non-negative.")
        is_pos = weights > 0
    has_pos = is_pos.any(dim=1)
    if not bool(has_pos.any()):
        raise ValueError("No anchor in the batch has a positive; the contrastive loss is undefined.")
    if reduction not in {"mean", "sum", "none"}:
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}.")

    floor = torch.finfo(logits.dtype).min
    den = logits
    if negative_log_weights is not None:
        if negative_log_weights.shape != logits.shape:
            raise ValueError("negative_log_weights must have the shape of logits.")
        den = logits + negative_log_weights.to(logits.dtype).masked_fill(is_pos, 0.0)
    if denominator_mask is not None:
        if denominator_mask.shape != logits.shape:
            raise ValueError("denominator_mask must have the shape of logits.")
        den = den.masked_fill(~(denominator_mask.to(torch.bool) | is_pos), floor)

    # P_ij = w_ij / sum_j w_ij; 0 off the positives and on rows without a positive.
    prob = weights / weights.sum(dim=1, keepdim=True).clamp_min(torch.finfo(logits.dtype).tiny)
    if exclude_other_positives:
        lse_neg = _logsumexp_rows(den.masked_fill(is_pos, floor)).unsqueeze(1)
        terms = (logits - torch.logaddexp(logits, lse_neg)).masked_fill(~is_pos, 0.0)
        per_anchor = -(prob * terms).sum(dim=1)
    else:
        # The denominator does not depend on j and sum_j P_ij = 1 on rows with a positive, so
        # -sum_j P_ij (l_ij - log_den_i) = log_den_i - sum_j P_ij l_ij: no B x B subtraction or mask needed.
        log_den = _logsumexp_rows(den)
        per_anchor = log_den - (prob * logits).sum(dim=1)
    if reduction == "none":
        return per_anchor.masked_fill(~has_pos, 0.0)
    if reduction == "sum":
        return per_anchor[has_pos].sum()
    return per_anchor[has_pos].mean()


def pairwise_ranking_loss(scores: torch.Tensor, labels: torch.Tensor, scale: float = 20.0) -> torch.Tensor:
    r"""CoSENT-style ranking loss: :math:`\log\big(1 + \sum_{y_a > y_b} e^{\lambda (s_b - s_a)}\big)`.

    Every pair of items whose gold labels are ordered (:math:`y_a > y_b`) is penalised when its scores are not
    (Su 2022, CoSENT; AnglE Eq. 1 with :math:`\lambda = 1/\tau = 20`, and AnglE Eq. 7 on angle scores with
    :math:`\tau = 1`). Returns 0 (with a graph) when no ordered pair exists, e.g. all labels equal.

    Args:
        scores: ``(P,)`` one similarity per item (pair of sentences).
        labels: ``(P,)`` gold scores; only their order matters.
        scale: :math:`\lambda = 1/\tau` > 0.
    """
    scale = check_temperature(scale, "scale")
    check_finite(scores, "scores")
    if scores.dim() != 1:
        raise ValueError(f"scores must be 1-D, got shape {tuple(scores.shape)}.")
    labels = torch.as_tensor(labels, device=scores.device)
    if labels.shape != scores.shape:
        raise ValueError(f"labels must have one entry per score: {tuple(labels.shape)} vs {tuple(scores.shape)}.")
    check_finite(labels.to(torch.float64), "labels")
    if labels.dtype == torch.bool:
        labels = labels.to(torch.int64)
    # sum_{y_a > y_b} e^{l (s_b - s_a)} = sum_a e^{-l s_a} sum_{b: y_b < y_a} e^{l s_b}. With the items sorted by
    # label, {b: y_b < y_a} is a prefix of the order (ties excluded), so the inner sums are one log-cumsum-exp:
    # O(P log P) time and O(P) memory instead of the P x P matrix of differences.
    y_sorted, order = torch.sort(labels)
    s = scores[order] * scale
    below = torch.searchsorted(y_sorted, y_sorted, right=False)  # number of items with a strictly lower label
    prefix = torch.cat([s.new_full((1,), float("-inf")), torch.logcumsumexp(s, dim=0)])
    terms = prefix[below] - s  # log sum_{y_b < y_a} e^{l (s_b - s_a)}; -inf where no label is lower
    return torch.logsumexp(torch.cat([s.new_zeros(1), terms]), dim=0)
