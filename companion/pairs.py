r"""Sentence-pair batches in AnglE's interleaved layout, and a supervised pair fine-tuning step.

AnglE (arXiv 2309.12871, §3.1) lays a batch of *P* labelled pairs out as ``X = [A1; A2; B1; B2; …]``: pair *k*
occupies rows ``(2k, 2k+1)``. :class:`PairData` holds a pair data set (``sentence1``, ``sentence2``, ``label``),
:meth:`PairData.batch` collates index batches from :func:`companion.training.index_batches` into that layout, and
:func:`pair_loss_fn` turns an embedding function and a pair objective into the ``loss_fn(batch)`` closure that
:func:`companion.training.train` expects::

    data = PairData.from_dataset(load_stsb("train"), label="score")
    step = pair_loss_fn(encoder.embed, AnglEObjective(positive_threshold=4.0), data)
    train(encoder.model, step, index_batches(len(data), 32, seed), steps=200, lr=2e-5)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch


def interleave(first: Sequence[str], second: Sequence[str]) -> list[str]:
    """``[a1, b1, a2, b2, …]`` from two equally long lists of texts."""
    first, second = list(first), list(second)
    if len(first) != len(second):
        raise ValueError(f"first and second must have the same length: {len(first)} vs {len(second)}.")
    out: list[str] = [""] * (2 * len(first))
    out[0::2] = first
    out[1::2] = second
    return out


@dataclass
class PairBatch:
    """One interleaved batch: ``texts`` (``2P``: rows ``2k, 2k+1`` are pair *k*) and ``labels`` (``P``)."""

    texts: list[str]
    labels: torch.Tensor

    def __len__(self) -> int:
        return len(self.labels)


class PairData:
    """A labelled sentence-pair data set (graded or binary labels) with interleaved collation."""

    def __init__(self, sentence1: Sequence[str], sentence2: Sequence[str], labels: Sequence[float]):
        self.sentence1 = [str(s) for s in sentence1]
        self.sentence2 = [str(s) for s in sentence2]
        self.labels = torch.as_tensor(list(labels), dtype=torch.float32)
        if not (len(self.sentence1) == len(self.sentence2) == len(self.labels)):
            raise ValueError(f"sentence1, sentence2 and labels must have the same length: {len(self.sentence1)}, "
                             f"{len(self.sentence2)}, {len(self.labels)}.")
        if len(self.labels) == 0:
            raise ValueError("a pair data set needs at least one pair.")
        if not bool(torch.isfinite(self.labels).all()):
            raise ValueError("labels contain NaN or Inf values.")

    @classmethod
    def from_dataset(cls, dataset, first: str = "sentence1", second: str = "sentence2", label: str = "score",
                     label_map: Callable[[object], float | None] | None = None) -> PairData:
        """From a ``datasets.Dataset`` / pandas frame / dict of columns. ``label_map`` converts raw labels (e.g. NLI
        strings) to numbers; rows it maps to ``None`` are dropped (e.g. neutral)."""
        cols = dataset if isinstance(dataset, dict) else {k: list(dataset[k]) for k in (first, second, label)}
        for key in (first, second, label):
            if key not in cols:
                raise ValueError(f"column {key!r} not found; available: {', '.join(map(str, cols))}.")
        a, b, y = list(cols[first]), list(cols[second]), list(cols[label])
        if label_map is not None:
            mapped = [label_map(v) for v in y]
            keep = [i for i, v in enumerate(mapped) if v is not None]
            a, b, y = [a[i] for i in keep], [b[i] for i in keep], [mapped[i] for i in keep]
        return cls(a, b, y)

    def __len__(self) -> int:
        return len(self.labels)

    def subset(self, n: int | None, seed: int = 0) -> PairData:
        """A random subset of ``n`` pairs (all when ``n`` is None or >= len), fixed by ``seed``."""
        if n is None or n >= len(self):
            return self
        if n <= 0:
            raise ValueError(f"subset size must be > 0, got {n}.")
        idx = torch.randperm(len(self), generator=torch.Generator().manual_seed(seed))[:n].sort().values
        return self.select(idx)

    def select(self, idx) -> PairData:
        idx = torch.as_tensor(idx, dtype=torch.long).reshape(-1).tolist()
        return PairData([self.sentence1[i] for i in idx], [self.sentence2[i] for i in idx], self.labels[idx])

    def batch(self, idx) -> PairBatch:
        """Collate the pairs at ``idx`` into the interleaved layout."""
        idx = torch.as_tensor(idx, dtype=torch.long).reshape(-1)
        if idx.numel() == 0:
            raise ValueError("an empty index batch cannot be collated.")
        if int(idx.min()) < 0 or int(idx.max()) >= len(self):
            raise IndexError(f"pair index out of range for {len(self)} pairs.")
        ids = idx.tolist()
        texts = interleave([self.sentence1[i] for i in ids], [self.sentence2[i] for i in ids])
        return PairBatch(texts, self.labels[idx])


def pair_loss_fn(embed: Callable[[list[str]], torch.Tensor], objective: Callable[..., torch.Tensor],
                 data: PairData, pass_texts: bool = True) -> Callable[[torch.Tensor], torch.Tensor]:
    """A ``loss_fn(index_batch)`` for :func:`companion.training.train`: collate, embed (differentiably), score.

    ``embed`` maps a list of ``2P`` texts to ``(2P, d)`` embeddings with a graph (e.g. ``Encoder.embed``);
    ``objective(embeddings, labels[, texts])`` is a pair objective from :mod:`companion.losses.angle` (``texts``
    enable identical-sentence-pair detection).
    """

    def loss_fn(idx) -> torch.Tensor:
        batch = data.batch(idx)
        emb = embed(batch.texts)
        labels = batch.labels.to(emb.device)
        return objective(emb, labels, batch.texts) if pass_texts else objective(emb, labels)

    return loss_fn
