"""Retrieval metrics (Paper 4, §4.6): Recall@k, MRR, pair ROC-AUC.

A *score matrix* ``scores`` is ``(Q, C)`` (queries x candidates, higher = more similar). The gold is either an int
array ``(Q,)`` (one correct candidate per query) or a bool matrix ``(Q, C)`` (several correct candidates, e.g. all
senses of a polysemous term). The rank of a query is ``1 + #(wrong candidates scoring >= its best gold)``:
ties count against the query (pessimistic), so constant scores never look good.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.metrics import roc_auc_score


def _as_numpy(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def gold_ranks(scores, gold) -> np.ndarray:
    """1-based rank of the best gold candidate of each query (pessimistic ties)."""
    s = _as_numpy(scores).astype(np.float64)
    if s.ndim != 2 or s.shape[1] < 1:
        raise ValueError(f"scores must be a (queries, candidates) matrix, got shape {s.shape}.")
    if not np.isfinite(s).all():
        raise ValueError("scores contain NaN or inf.")
    g = _as_numpy(gold)
    if g.ndim == 1:
        if len(g) != s.shape[0]:
            raise ValueError(f"gold has {len(g)} entries for {s.shape[0]} queries.")
        if not np.issubdtype(g.dtype, np.integer) or (g < 0).any() or (g >= s.shape[1]).any():
            raise ValueError(f"gold indices must be integers in [0, {s.shape[1]}).")
        mask = np.zeros(s.shape, dtype=bool)
        mask[np.arange(len(g)), g] = True
    elif g.shape == s.shape:
        mask = g.astype(bool)
        if not mask.any(axis=1).all():
            raise ValueError("every query needs at least one gold candidate.")
    else:
        raise ValueError(f"gold must be (Q,) indices or a (Q, C) mask, got shape {g.shape} for scores {s.shape}.")
    best = np.where(mask, s, -np.inf).max(axis=1, keepdims=True)
    return 1 + ((s >= best) & ~mask).sum(axis=1)


def recall_at_k(scores, gold, k: int = 10) -> float:
    """Recall@k: the fraction of queries whose gold candidate ranks within the top ``k`` (Paper 4 §4.6, R@10)."""
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive int, got {k!r}.")
    return float((gold_ranks(scores, gold) <= k).mean())


def mrr(scores, gold) -> float:
    """Mean reciprocal rank of the gold candidate (Paper 4 §4.6)."""
    return float((1.0 / gold_ranks(scores, gold)).mean())


def pair_roc_auc(positive_scores, negative_scores) -> float:
    """ROC-AUC separating positive-pair from negative-pair similarities (Paper 4 §4.6 pair ROC-AUC and the per-rule
    stress AUC cos(q, d+) vs cos(q, d-)), computed by ``sklearn.metrics.roc_auc_score``."""
    pos, neg = _as_numpy(positive_scores).ravel(), _as_numpy(negative_scores).ravel()
    if len(pos) == 0 or len(neg) == 0:
        raise ValueError("pair_roc_auc needs at least one positive and one negative score.")
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    x = np.r_[pos, neg].astype(np.float64)
    if not np.isfinite(x).all():
        raise ValueError("scores contain NaN or inf.")
    return float(roc_auc_score(y, x))


def epsilon_tau(scores, gold, tau: float = 0.0) -> float:
    r""":math:`\varepsilon_\tau`: the fraction of queries whose gold candidate does not beat every wrong one by more
    than a margin :math:`\tau`, i.e. :math:`\Pr[s_{\mathrm{gold}} - \max_{\mathrm{wrong}} s \le \tau]` (our reading
    of Paper 4 §3's :math:`\varepsilon_\tau` framing, whose exact definition is not in the text we have).
    :math:`\varepsilon_0 = 1 - R@1` with pessimistic ties; :math:`\varepsilon_\tau` grows with :math:`\tau`."""
    s = _as_numpy(scores).astype(np.float64)
    gold_ranks(s, gold)  # validates shapes and gold
    g = _as_numpy(gold)
    if g.ndim == 1:
        mask = np.zeros(s.shape, dtype=bool)
        mask[np.arange(len(g)), g] = True
    else:
        mask = g.astype(bool)
    if not isinstance(tau, (int, float)) or not np.isfinite(tau):
        raise ValueError(f"tau must be a finite number, got {tau!r}.")
    if mask.all(axis=1).any():
        raise ValueError("epsilon_tau needs at least one wrong candidate per query.")
    best_gold = np.where(mask, s, -np.inf).max(axis=1)
    best_wrong = np.where(mask, -np.inf, s).max(axis=1)
    return float((best_gold - best_wrong <= tau).mean())
