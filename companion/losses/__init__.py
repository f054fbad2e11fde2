"""Losses of the five papers, all built on two shared cores in :mod:`companion.losses.core`:

* :func:`~companion.losses.core.contrastive_nll` — the in-batch contrastive (InfoNCE) family: SimCSE, SimACE,
  ArcCon, SupCon, SINCERE, SoftCSE, weighted InfoNCE, AnglE's in-batch negatives, concept InfoNCE;
* :func:`~companion.losses.core.pairwise_ranking_loss` — the CoSENT ranking family: CoSENT and AnglE's angle term.

Paper-specific losses live in one submodule per paper and only prepare logits, weights and masks.
"""

from companion.losses.core import contrastive_nll, pairwise_ranking_loss

__all__ = ["contrastive_nll", "pairwise_ranking_loss"]
