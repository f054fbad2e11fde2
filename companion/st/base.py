"""What every loss of :mod:`companion.st` shares: the base class (column and label checks, embedding,
configuration, citation) and the layout helpers."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import torch
from torch import Tensor, nn


# --------------------------------------------------------------------------------------------- layout helpers
@functools.lru_cache(maxsize=1)
def _column_embedder() -> Callable | None:
    """sentence-transformers' helper that embeds several columns (merging like-width columns into one forward
    pass), or None when that library (or this helper of it) is not installed."""
    try:
        from sentence_transformers.base.losses.merged_forward import embed_columns  # noqa: PLC0415 - newer sentence-transformers only; None otherwise
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
