r"""The concept-representation objective of Paper 4 (Mohr et al., arXiv 2606.06994, §4.4–4.5), on the shared core.

.. math::  L = L_\mathrm{syn} + L_\mathrm{t2d} + 0.7\,L_\mathrm{d2d} + 0.5\,L_\mathrm{neg}

Each positive term is in-batch InfoNCE over cosine logits (:func:`infonce_term`, built on
:func:`companion.losses.core.contrastive_nll`); :math:`L_\mathrm{neg}` is binary cross-entropy on rule-made hard
negatives (:func:`hard_negative_bce`). The *B1-unified* variant (§5.3) puts the hard negatives into the t2d InfoNCE
denominator instead and drops the BCE term (``unified=True`` in :func:`concept_loss`).
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F

from companion._checks import check_finite, check_temperature
from companion.losses.core import contrastive_nll
from companion.similarities import unit_rows

#: Loss weights stated in §4.5.
WEIGHTS = {"syn": 1.0, "t2d": 1.0, "d2d": 0.7, "neg": 0.5}


def _pair_batch(q: torch.Tensor, p: torch.Tensor, name: str) -> None:
    if q.dim() != 2 or p.dim() != 2 or q.shape != p.shape:
        raise ValueError(f"{name}: queries and positives must be (B, d) of the same shape, got "
                         f"{tuple(q.shape)} and {tuple(p.shape)}.")
    if q.shape[0] < 2:
        raise ValueError(f"{name}: a batch with one pair has no in-batch negatives; InfoNCE needs B >= 2.")
    check_finite(q, f"{name} queries")
    check_finite(p, f"{name} positives")


def _check_hard_mask(hard_mask: torch.Tensor | None, hard: torch.Tensor) -> torch.Tensor | None:
    """``(B, K)`` boolean presence mask of the hard negatives (True = a real negative), validated."""
    if hard_mask is None:
        return None
    if hard_mask.shape != hard.shape[:2]:
        raise ValueError(f"hard_mask must be (B, K) = {tuple(hard.shape[:2])}, got {tuple(hard_mask.shape)}.")
    return hard_mask.to(device=hard.device, dtype=torch.bool)


def infonce_term(q: torch.Tensor, p: torch.Tensor, temperature: float = 0.05, hard: torch.Tensor | None = None,
                 reduction: str = "mean", hard_mask: torch.Tensor | None = None) -> torch.Tensor:
    r"""In-batch InfoNCE for one positive type (Paper 4 §4.5: each of :math:`L_\mathrm{syn}, L_\mathrm{t2d},
    L_\mathrm{d2d}`): :math:`-\log \frac{e^{\cos(q_i,p_i)/\tau}}{\sum_j e^{\cos(q_i,p_j)/\tau}
    [+ \sum_k e^{\cos(q_i,h_{ik})/\tau}]}`.

    ``hard`` (``(B, K, d)``) adds each anchor's own hard negatives to its denominator — the B1-unified variant.
    ``hard_mask`` (``(B, K)`` bool) marks which of them exist (rules that do not apply to a definition leave
    holes); a masked slot contributes nothing, exactly as if it were absent.
    """
    tau = check_temperature(temperature, "temperature")
    _pair_batch(q, p, "infonce_term")
    qn, pn = unit_rows(q), unit_rows(p)
    logits = qn @ pn.T / tau
    positives = torch.eye(q.shape[0], dtype=torch.bool, device=q.device)
    allowed = None
    if hard is not None:
        if hard.dim() != 3 or hard.shape[0] != q.shape[0] or hard.shape[2] != q.shape[1]:
            raise ValueError(f"hard negatives must be (B, K, d) = ({q.shape[0]}, K, {q.shape[1]}), got "
                             f"{tuple(hard.shape)}.")
        check_finite(hard, "hard negatives")
        hl = torch.einsum("bd,bkd->bk", qn, unit_rows(hard)) / tau
        keep = _check_hard_mask(hard_mask, hard)
        if keep is not None:
            allowed = torch.cat([torch.ones_like(positives), keep], dim=1)
        logits = torch.cat([logits, hl], dim=1)
        positives = torch.cat([positives, torch.zeros_like(hl, dtype=torch.bool)], dim=1)
    return contrastive_nll(logits, positives, denominator_mask=allowed, reduction=reduction)


def hard_negative_bce(q: torch.Tensor, pos: torch.Tensor, neg: torch.Tensor, temperature: float = 0.05,
                      threshold: float = 0.5, reduction: str = "mean", hard_mask: torch.Tensor | None = None
                      ) -> torch.Tensor:
    r""":math:`L_\mathrm{neg}` (Paper 4 §4.5): binary cross-entropy with logit
    :math:`(\cos(q, d) - \theta)/\tau`, label 1 for the true definition :math:`d^+` and 0 for each rule-made
    hard negative :math:`d^-`. Per anchor the loss is the sum over its 1 + K items; ``reduction`` averages
    (``"mean"``), sums (``"sum"``) or returns (``"none"``) the per-anchor losses. The paper does not state the
    logit's scale or offset; :math:`\tau = 0.05`, :math:`\theta = 0.5` are ours.

    Unlike InfoNCE, each negative's gradient :math:`\sigma(\ell^-)/\tau` does not depend on the other items.

    Args:
        q: ``(B, d)`` term embeddings; pos: ``(B, d)`` true definitions; neg: ``(B, K, d)`` hard negatives.
        hard_mask: optional ``(B, K)`` bool, True where the negative exists; masked slots add nothing.
    """
    tau = check_temperature(temperature, "temperature")
    if q.dim() != 2 or pos.shape != q.shape:
        raise ValueError(f"q and pos must be (B, d) of the same shape, got {tuple(q.shape)} and {tuple(pos.shape)}.")
    if neg.dim() != 3 or neg.shape[0] != q.shape[0] or neg.shape[2] != q.shape[1]:
        raise ValueError(f"neg must be (B, K, d) = ({q.shape[0]}, K, {q.shape[1]}), got {tuple(neg.shape)}.")
    if reduction not in {"mean", "sum", "none"}:
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}.")
    for x, name in ((q, "q"), (pos, "pos"), (neg, "neg")):
        check_finite(x, name)
    qn = unit_rows(q)
    cos_pos = (qn * unit_rows(pos)).sum(-1, keepdim=True)
    cos_neg = torch.einsum("bd,bkd->bk", qn, unit_rows(neg))
    logits = (torch.cat([cos_pos, cos_neg], dim=1) - threshold) / tau
    labels = torch.zeros_like(logits)
    labels[:, 0] = 1.0
    items = F.binary_cross_entropy_with_logits(logits, labels, reduction="none")
    keep = _check_hard_mask(hard_mask, neg)
    if keep is not None:
        items = items * torch.cat([torch.ones_like(keep[:, :1]), keep], dim=1).to(items.dtype)
    per_anchor = items.sum(dim=1)
    if reduction == "none":
        return per_anchor
    return per_anchor.sum() if reduction == "sum" else per_anchor.mean()


class ConceptLoss(NamedTuple):
    total: torch.Tensor
    terms: dict[str, torch.Tensor]
    weights: dict[str, float]


def concept_loss(syn: tuple[torch.Tensor, torch.Tensor] | None = None,
                 t2d: tuple[torch.Tensor, torch.Tensor] | None = None,
                 d2d: tuple[torch.Tensor, torch.Tensor] | None = None,
                 hard: torch.Tensor | None = None, hard_mask: torch.Tensor | None = None,
                 weights: dict[str, float] | None = None,
                 temperature: float = 0.05, unified: bool = False, bce_temperature: float = 0.05,
                 bce_threshold: float = 0.5) -> ConceptLoss:
    r"""Paper 4's objective :math:`L = L_\mathrm{syn} + L_\mathrm{t2d} + 0.7 L_\mathrm{d2d} + 0.5 L_\mathrm{neg}`
    (§4.5; weights :data:`WEIGHTS`, overridable). Every term given is computed; absent ones are left out.

    ``syn``/``t2d``/``d2d``: ``(queries, positives)`` pairs of ``(B, d)`` embeddings; ``hard``: ``(B, K, d)``
    hard negatives of the t2d definitions (``hard_mask`` ``(B, K)``: which exist). ``unified=False``:
    :math:`L_\mathrm{neg}` = :func:`hard_negative_bce`;
    ``unified=True`` (B1-unified): the hard negatives join the t2d InfoNCE denominator and there is no BCE term.
    Returns ``ConceptLoss(total, terms, weights)`` with ``total = sum(weights[k] * terms[k])``.
    """
    w = dict(WEIGHTS)
    if weights:
        unknown = set(weights) - set(WEIGHTS)
        if unknown:
            raise ValueError(f"Unknown loss term(s) {sorted(unknown)}; known: {', '.join(WEIGHTS)}.")
        w.update(weights)
    if unified and (hard is None or t2d is None):
        raise ValueError("unified=True needs t2d pairs and their hard negatives.")
    terms: dict[str, torch.Tensor] = {}
    if syn is not None:
        terms["syn"] = infonce_term(*syn, temperature=temperature)
    if t2d is not None:
        terms["t2d"] = infonce_term(*t2d, temperature=temperature, hard=hard if unified else None,
                                      hard_mask=hard_mask if unified else None)
    if d2d is not None:
        terms["d2d"] = infonce_term(*d2d, temperature=temperature)
    if hard is not None and not unified:
        if t2d is None:
            raise ValueError("hard negatives need the t2d pairs they belong to.")
        terms["neg"] = hard_negative_bce(t2d[0], t2d[1], hard, temperature=bce_temperature, threshold=bce_threshold,
                                         hard_mask=hard_mask)
    if not terms:
        raise ValueError("concept_loss needs at least one of syn, t2d, d2d.")
    used = {k: float(w[k]) for k in terms}
    total = sum(used[k] * v for k, v in terms.items())
    return ConceptLoss(total, terms, used)
