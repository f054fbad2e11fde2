r"""Frozen encoder states, computed once per text: the one store every top-layer fine-tuning and frozen head uses.

* :class:`LowerStates` — per text, the unpadded token states of ``hidden_states[start]`` of a frozen encoder (the
  input of the trained top layers), optionally with the masked means of ``hidden_states[0..start]`` (for readouts
  over the last K layers, or the first-layer mean of "first-last" pooling). :class:`~companion.encoders.upper.
  UpperEncoder` (SimACE, AnglE, the similarity zoo) and the concept paper's top-layer model keep their lower states
  here.
* :class:`PackedStates` — the token states of a fixed set of texts packed into one float16 tensor (no padding),
  with a vectorised batch gather: the frozen-backbone input of the circumplex heads (:func:`cached_token_states`
  keeps it on disk).

Two ways to fill a :class:`LowerStates` store: without layer means, through :meth:`Encoder.token_states` (which can
also keep the states in the encoder's disk cache, ``cache=True``); with layer means, one direct forward pass per
batch that returns both (the means cost one ``d``-vector per layer and text).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from companion._io import cache_key, read_cache, torch_save_atomic
from companion.encoders import pool
from companion.settings import cache_dir

MEANS = ("none", "all")


def pad_states(rows: Sequence[torch.Tensor], dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad per-text ``T_i x d`` token states into ``B x T x d`` (zeros) and a ``B x T`` mask."""
    if not rows:
        raise ValueError("pad_states needs at least one row.")
    T = max(r.shape[0] for r in rows)
    d = rows[0].shape[1]
    states = torch.zeros(len(rows), T, d, dtype=dtype)
    mask = torch.zeros(len(rows), T, dtype=torch.long)
    for i, r in enumerate(rows):
        states[i, : r.shape[0]] = r.to(dtype)
        mask[i, : r.shape[0]] = 1
    return states, mask


class LowerStates:
    """Frozen lower layers of an encoder, run once per text (eval mode, no grad).

    Args:
        encoder: a loaded :class:`companion.encoders.Encoder` (never modified).
        start: which hidden state to keep (``0`` = embedding output, ``L`` = last layer's output).
        state_dtype: storage dtype of the token states (float16 halves memory; batches come back as float32).
        means: ``"none"`` or ``"all"``: also keep the masked means of ``hidden_states[0..start]`` (float32).
        cache: without means, also keep the states in the encoder's on-disk cache.
        batch_size: texts per forward pass when means are kept.

    >>> store = LowerStates(enc, start=5, means="all")
    >>> states, mask, means = store.get(["a sentence", "another one"])   # B x T x d, B x T, B x 6 x d
    """

    def __init__(self, encoder, start: int, state_dtype: torch.dtype = torch.float16, means: str = "none",
                 cache: bool = False, batch_size: int = 128):
        n_hidden = encoder._num_hidden_states()
        if not isinstance(start, int) or isinstance(start, bool) or not 0 <= start < n_hidden:
            raise ValueError(f"start must be an int in 0..{n_hidden - 1}, got {start!r}.")
        if means not in MEANS:
            raise ValueError(f"means must be one of {', '.join(MEANS)}, got {means!r}.")
        self.encoder, self.start, self.state_dtype = encoder, start, state_dtype
        self.means, self.cache, self.batch_size = means, cache, batch_size
        self.tokens: dict[str, torch.Tensor] = {}
        self.pooled: dict[str, torch.Tensor] = {}

    def __len__(self) -> int:
        return len(self.tokens)

    def serves(self, start: int, state_dtype: torch.dtype, means: str = "none") -> bool:
        """Whether this store holds what a model with that split, dtype and means needs (so it can be shared)."""
        return self.start == start and self.state_dtype == state_dtype and (means == "none" or self.means == means)

    def precompute(self, texts: Sequence[str], chunk: int = 2048, progress: bool | None = None) -> None:
        """Compute and keep the states of every text not yet in the store (de-duplicated)."""
        if isinstance(texts, str):
            raise ValueError("texts must be a list of strings, not a single string.")
        todo = list(dict.fromkeys(t for t in texts if t not in self.tokens))
        if not todo:
            return
        bad = [t for t in todo if not isinstance(t, str) or not t.strip()]
        if bad:
            raise ValueError(f"texts must be non-empty strings, got {bad[0]!r}.")
        show = len(todo) > 2000 if progress is None else progress
        bar = None
        if show:
            bar = tqdm(total=len(todo), desc=f"lower {self.start} layers", unit="text")
        try:
            if self.means == "none":
                for s in range(0, len(todo), chunk):
                    part = todo[s:s + chunk]
                    states, mask = self.encoder.token_states(part, layer=self.start, cache=self.cache,
                                                             progress=False)
                    for text, row, n in zip(part, states, mask.sum(dim=1).tolist()):
                        self.tokens[text] = row[: int(n)].to(self.state_dtype).clone()
                    if bar is not None:
                        bar.update(len(part))
            else:
                self._pass_with_means(sorted(todo, key=len), bar)
        finally:
            if bar is not None:
                bar.close()

    def _pass_with_means(self, todo: list[str], bar) -> None:
        model = self.encoder.model
        was = model.training
        model.eval()
        try:
            with torch.inference_mode():
                for i in range(0, len(todo), self.batch_size):
                    part = todo[i:i + self.batch_size]
                    batch = self.encoder.tokenize(part)
                    mask = batch["attention_mask"]
                    out = model(input_ids=batch["input_ids"].to(self.encoder.device),
                                attention_mask=mask.to(self.encoder.device), output_hidden_states=True,
                                return_dict=True)
                    hs = out.hidden_states[: self.start + 1]
                    pooled = torch.stack([pool(h, mask.to(h.device), "mean") for h in hs], dim=1).float().cpu()
                    top = hs[self.start].float().cpu()
                    for j, (text, n) in enumerate(zip(part, mask.sum(1).tolist())):
                        self.tokens[text] = top[j, : int(n)].to(self.state_dtype).clone()
                        self.pooled[text] = pooled[j].clone()
                    if bar is not None:
                        bar.update(len(part))
        finally:
            model.train(was)

    def get(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """``(states B x T x d, mask B x T, means B x (start+1) x d or None)`` for ``texts`` (computed on first use;
        states float32)."""
        texts = list(texts)
        self.precompute(texts, progress=False)
        states, mask = pad_states([self.tokens[t] for t in texts])
        means = torch.stack([self.pooled[t] for t in texts]) if self.means != "none" else None
        return states, mask, means

    def layer_means(self, texts: Sequence[str], layer: int) -> torch.Tensor:
        """``B x d`` masked means of ``hidden_states[layer]`` (``layer <= start``) for ``texts`` (float32); needs a
        store with ``means="all"``."""
        if self.means == "none":
            raise ValueError("this store keeps no layer means: create it with means='all'.")
        if not isinstance(layer, int) or not 0 <= layer <= self.start:
            raise ValueError(f"layer must be an int in 0..{self.start}, got {layer!r}.")
        texts = list(texts)
        self.precompute(texts, progress=False)
        return torch.stack([self.pooled[t][layer] for t in texts])

    def length(self, text: str, limit: int | None = None) -> int:
        """The number of tokens kept for ``text`` (precompute it first); ``limit`` is accepted for the interface of
        :class:`TokenInputs` and must be None here (the states were cut when computed)."""
        if limit is not None:
            raise ValueError("LowerStates keeps states cut at the encoder's max_length; limit must be None.")
        return self.tokens[text].shape[0]

    def batch(self, texts: Sequence[str], limit: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Padded float32 states ``B x T x d`` and mask of precomputed ``texts`` (:func:`pad_states`)."""
        if limit is not None:
            raise ValueError("LowerStates keeps states cut at the encoder's max_length; limit must be None.")
        return pad_states([self.tokens[t] for t in texts])

    def clear(self) -> None:
        """Drop every stored state (frees memory)."""
        self.tokens.clear()
        self.pooled.clear()


def cut_ids(ids: torch.Tensor, limit: int | None) -> torch.Tensor:
    """A tokenised text cut to ``limit`` tokens as the tokenizer's own truncation cuts a single text: the first
    ``limit - 1`` tokens and the closing special token (``[CLS] a b … [SEP]`` -> ``[CLS] a … [SEP]``)."""
    if limit is None or ids.shape[0] <= limit:
        return ids
    if limit < 2:
        raise ValueError(f"limit must keep the two special tokens (>= 2), got {limit}.")
    return torch.cat([ids[: limit - 1], ids[-1:]])


class TokenInputs:
    """Token ids per text, for a model whose embedding layer is trained (nothing below it is frozen, so nothing is
    cached but the tokenisation). The interface of :class:`LowerStates` that
    :class:`~companion.encoders.upper.UpperEncoder` uses (``precompute``, ``get``, ``batch``, ``length``, ``serves``,
    ``clear``); :meth:`batch` gives ``B x T`` ids padded with the tokenizer's pad id instead of states.

    Texts are tokenised once at ``max_length`` (the longest length anything asks for: the evaluation length on the
    gpu path); :meth:`batch` and :meth:`length` cut them to a shorter ``limit`` (the training length) as the
    tokenizer would (:func:`cut_ids`).

    Args:
        encoder: a loaded :class:`companion.encoders.Encoder` (its tokenizer, prefix and pad id).
        max_length: the tokenisation length (default: the encoder's ``max_length``).
    """

    start = 0  # the input of the trained part is the embedding layer
    state_dtype = None
    means = "none"

    def __init__(self, encoder, max_length: int | None = None):
        if getattr(encoder, "append_eos", False):
            raise ValueError("TokenInputs cuts texts as a bidirectional encoder's tokenizer does; this encoder "
                             "appends EOS (a decoder): not supported.")
        if max_length is not None and (not isinstance(max_length, int) or max_length < 2):
            raise ValueError(f"max_length must be an int >= 2 or None, got {max_length!r}.")
        self.encoder = encoder
        self.max_length = max_length or encoder.max_length
        self.tokens: dict[str, torch.Tensor] = {}

    def __len__(self) -> int:
        return len(self.tokens)

    def serves(self, start: int, state_dtype=None, means: str = "none") -> bool:
        """Whether a model that trains its embeddings (``start == 0``) can share this store."""
        return start == 0 and means == "none"

    def precompute(self, texts: Sequence[str], chunk: int = 2048, progress: bool | None = None) -> None:
        """Tokenise every new text (de-duplicated), with the encoder's prefix, at :attr:`max_length`."""
        if isinstance(texts, str):
            raise ValueError("texts must be a list of strings, not a single string.")
        todo = list(dict.fromkeys(t for t in texts if t not in self.tokens))
        bad = [t for t in todo if not isinstance(t, str) or not t.strip()]
        if bad:
            raise ValueError(f"texts must be non-empty strings, got {bad[0]!r}.")
        for s in range(0, len(todo), chunk):
            part = todo[s:s + chunk]
            prefixed = [self.encoder.prefix + t for t in part] if self.encoder.prefix else part
            ids = self.encoder.tokenizer(prefixed, add_special_tokens=True, truncation=True,
                                         max_length=self.max_length, return_attention_mask=False,
                                         return_token_type_ids=False)["input_ids"]
            for text, row in zip(part, ids):
                self.tokens[text] = torch.tensor(row, dtype=torch.long)

    def length(self, text: str, limit: int | None = None) -> int:
        """The number of tokens of ``text`` cut to ``limit`` (precompute it first)."""
        n = self.tokens[text].shape[0]
        return n if limit is None else min(n, limit)

    def batch(self, texts: Sequence[str], limit: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Right-padded ids ``B x T`` (the pad id) and mask of precomputed ``texts``, each cut to ``limit``."""
        rows = [cut_ids(self.tokens[t], limit) for t in texts]
        if not rows:
            raise ValueError("batch needs at least one text.")
        T = max(r.shape[0] for r in rows)
        ids = torch.full((len(rows), T), self.encoder.pad_id, dtype=torch.long)
        mask = torch.zeros(len(rows), T, dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, : r.shape[0]] = r
            mask[i, : r.shape[0]] = 1
        return ids, mask

    def get(self, texts: Sequence[str], limit: int | None = None) -> tuple[torch.Tensor, torch.Tensor, None]:
        """``(ids B x T, mask B x T, None)`` for ``texts`` (tokenised on first use), each cut to ``limit``."""
        texts = list(texts)
        self.precompute(texts)
        ids, mask = self.batch(texts, limit)
        return ids, mask, None

    def clear(self) -> None:
        self.tokens.clear()


class PackedStates:
    """Token states of many texts stored once, packed (no padding) in float16: ``flat`` (total tokens x d),
    ``offsets`` and ``lengths``; :meth:`batch` rebuilds a right-padded float32 batch with a vectorised gather."""

    def __init__(self, flat: torch.Tensor, lengths: torch.Tensor):
        self.flat = flat
        self.lengths = lengths.long()
        self.offsets = torch.cumsum(self.lengths, 0) - self.lengths

    def __len__(self) -> int:
        return len(self.lengths)

    @property
    def dim(self) -> int:
        return self.flat.shape[1]

    def batch(self, idx) -> tuple[torch.Tensor, torch.Tensor]:
        idx = torch.as_tensor(idx, dtype=torch.long)
        lengths = self.lengths[idx]
        T = int(lengths.max())
        pos = torch.arange(T)
        mask = pos[None, :] < lengths[:, None]
        gather = (self.offsets[idx][:, None] + pos[None, :]).clamp_max(len(self.flat) - 1)
        states = self.flat[gather].float() * mask[..., None]
        return states, mask

    def subset(self, idx) -> PackedStates:
        idx = torch.as_tensor(idx, dtype=torch.long)
        parts = [self.flat[o:o + n] for o, n in zip(self.offsets[idx].tolist(), self.lengths[idx].tolist())]
        return PackedStates(torch.cat(parts), self.lengths[idx].clone())

    def truncate(self, max_tokens: int) -> PackedStates:
        """Only the first ``max_tokens`` token states of every text (a compute budget; [CLS] is kept)."""
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}.")
        keep = torch.arange(len(self.flat)) - torch.repeat_interleave(self.offsets, self.lengths)
        keep = keep < max_tokens
        return PackedStates(self.flat[keep], self.lengths.clamp_max(max_tokens))

    def mean_pooled(self) -> torch.Tensor:
        """Unit-norm masked mean of the token states (for last-layer MiniLM states: its sentence embedding)."""
        seg = torch.repeat_interleave(torch.arange(len(self)), self.lengths)
        sums = torch.zeros(len(self), self.dim).index_add_(0, seg, self.flat.float())
        return F.normalize(sums / self.lengths[:, None].float(), dim=-1)

    def project(self, basis: torch.Tensor, mean: torch.Tensor | None = None) -> PackedStates:
        """States mapped by a fixed linear map, ``(x - mean) @ basis`` (e.g. :func:`pca_basis`), kept in float16."""
        flat = self.flat.float()
        if mean is not None:
            flat = flat - mean
        return PackedStates((flat @ basis).half(), self.lengths.clone())

    @staticmethod
    def concat(items: Sequence[PackedStates]) -> PackedStates:
        return PackedStates(torch.cat([p.flat for p in items]), torch.cat([p.lengths for p in items]))


def cached_token_states(encoder, texts: Sequence[str], chunk: int = 1024, progress: bool = True) -> PackedStates:
    """Last-layer token states of ``texts`` from ``encoder.token_states`` (itself cached per text on disk),
    packed in float16 and kept in ``cache_dir()/circumplex/`` under a key of the encoder fingerprint and texts."""
    texts = list(texts)
    key = cache_key([encoder.fingerprint, encoder.max_length, texts], digest_size=12)
    path = Path(cache_dir()) / "circumplex" / f"states-{key}.pt"
    data = read_cache(path)  # missing or broken: recomputed
    if isinstance(data, dict) and {"flat", "lengths"} <= set(data):
        packed = PackedStates(data["flat"], data["lengths"])
        if len(packed) == len(texts) and packed.dim == encoder.dim:
            return packed
    flats, lengths = [], []
    for start in tqdm(range(0, len(texts), chunk), desc="token states", disable=not progress, leave=False):
        states, mask = encoder.token_states(texts[start:start + chunk], progress=False)
        mask = mask.bool()
        flats.append(states[mask].half())
        lengths.append(mask.sum(1))
    packed = PackedStates(torch.cat(flats), torch.cat(lengths))
    torch_save_atomic({"flat": packed.flat, "lengths": packed.lengths}, path)
    return packed
