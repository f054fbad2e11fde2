"""The :class:`Encoder`: a Hugging Face model + tokenizer with a pooling, batched and cached ``encode``, the
differentiable ``embed`` path, per-layer and token states (see :mod:`companion.encoders`)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from companion._io import cache_key
from companion.encoders.pooling import _check_pooling, pool
from companion.encoders.store import _Store, _text_key, weights_fingerprint
from companion.settings import cache_dir

__all__ = ["Encoder", "position_limit"]


# ------------------------------------------------------------------------------------------------- encoder
class Encoder:
    """A Hugging Face model + tokenizer with a pooling. See :mod:`companion.encoders`."""

    def __init__(self, model: torch.nn.Module, tokenizer: Any, pooling: str = "mean", max_length: int = 128,
                 name: str | None = None, prefix: str = "", device: str | torch.device | None = None,
                 append_eos: bool | None = None):
        _check_pooling(pooling)
        if not isinstance(max_length, int) or max_length <= 0:
            raise ValueError(f"max_length must be a positive integer, got {max_length!r}.")
        self.model = model
        self.tokenizer = tokenizer
        self.pooling = pooling
        self.max_length = max_length
        self.prefix = prefix
        self.name = name or getattr(getattr(model, "config", None), "_name_or_path", None) or type(model).__name__
        if device is not None:
            self.model.to(device)
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id or 0)
        self.append_eos = self._auto_eos() if append_eos is None else append_eos
        self._stores: dict[str, _Store] = {}

    # ------------------------------------------------------------------ basic attributes
    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def dim(self) -> int:
        cfg = self.model.config
        return int(getattr(cfg, "hidden_size", None) or getattr(cfg, "n_embd", None) or cfg.d_model)

    @property
    def fingerprint(self) -> str:
        """Model name + in-memory weights + tokenizer; changes as soon as any weight changes."""
        h = hashlib.blake2b(digest_size=16)
        tok = f"{type(self.tokenizer).__name__}|{len(self.tokenizer)}|{self.pad_id}|{self.append_eos}"
        h.update(f"{self.name}|{type(self.model).__name__}|{tok}|{weights_fingerprint(self.model)}".encode())
        return h.hexdigest()

    def __repr__(self) -> str:
        return (f"Encoder({self.name!r}, pooling={self.pooling!r}, max_length={self.max_length}, dim={self.dim}, "
                f"device={self.device})")

    def _auto_eos(self) -> bool:
        """Append EOS for last-token pooling when the tokenizer does not already end sequences with a special token."""
        eos = self.tokenizer.eos_token_id
        if self.pooling != "last" or eos is None:
            return False
        ids = self.tokenizer("a", add_special_tokens=True)["input_ids"]
        return ids[-1] not in set(self.tokenizer.all_special_ids)

    # ------------------------------------------------------------------ tokenization
    def _token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        texts = [self.prefix + t for t in texts] if self.prefix else list(texts)
        limit = self.max_length - 1 if self.append_eos else self.max_length
        ids = self.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=max(limit, 1),
                             return_attention_mask=False, return_token_type_ids=False)["input_ids"]
        if self.append_eos:
            eos = self.tokenizer.eos_token_id
            ids = [x + [eos] for x in ids]
        return ids

    def _pad(self, ids: list[list[int]]) -> dict[str, torch.Tensor]:
        T = max(len(x) for x in ids)
        input_ids = torch.full((len(ids), T), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(ids), T), dtype=torch.long)
        for i, x in enumerate(ids):
            input_ids[i, : len(x)] = torch.tensor(x, dtype=torch.long)
            mask[i, : len(x)] = 1
        return {"input_ids": input_ids, "attention_mask": mask}

    def tokenize(self, texts: Sequence[str]) -> dict[str, torch.Tensor]:
        """Right-padded ``input_ids`` and ``attention_mask`` (with prefix, truncation and EOS as configured)."""
        texts = _check_texts(texts)
        return self._pad(self._token_ids(texts))

    # ------------------------------------------------------------------ differentiable path
    def _run(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None, all_layers: bool = False):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         output_hidden_states=all_layers or self.pooling == "first-last", return_dict=True)
        return out

    def forward(self, batch: dict[str, torch.Tensor], normalize: bool = False) -> torch.Tensor:
        """Pooled embeddings of a tokenized batch (from :meth:`tokenize`), differentiable, in the model's mode."""
        dev = self.device
        ids = batch["input_ids"].to(dev)
        mask = batch.get("attention_mask")
        mask = mask.to(dev) if mask is not None else None
        out = self._run(ids, mask)
        hidden = out.hidden_states if self.pooling == "first-last" else out.last_hidden_state
        emb = pool(hidden, mask, self.pooling)
        return F.normalize(emb, dim=-1) if normalize else emb

    def embed(self, texts: Sequence[str], normalize: bool = False) -> torch.Tensor:
        """Differentiable embeddings of ``texts`` (no cache, no sorting, dropout active in train mode)."""
        return self.forward(self.tokenize(texts), normalize=normalize)

    # ------------------------------------------------------------------ batched inference
    def _batches(self, lengths: list[int], batch_size: int, max_tokens: int) -> list[list[int]]:
        """Indices sorted by length (longest first), cut into equal-length batches under a token budget.

        Leftover sequences of a length (fewer than a full batch) are merged with the next shorter length when that
        costs little padding, so the number of tiny batches stays small.
        """
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        batches: list[list[int]] = []
        cur: list[int] = []
        cur_max = 0
        for i in order:
            L = lengths[i]
            if cur:
                cap = max(1, min(batch_size, max_tokens // cur_max))
                if len(cur) >= cap:
                    batches.append(cur)
                    cur = []
                elif L != lengths[cur[-1]]:
                    # a new length starts: close the batch unless it is small (then pad it up to cur_max)
                    same = sum(1 for j in cur if lengths[j] == lengths[cur[-1]])
                    if same >= min(cap, 16) or cur_max - L > max(2, cur_max // 8):
                        batches.append(cur)
                        cur = []
            if not cur:
                cur_max = L
            cur.append(i)
        if cur:
            batches.append(cur)
        return batches

    def _infer(self, ids: list[list[int]], batch_size: int, max_tokens: int, progress: bool, desc: str,
               kind: str, layer: int | None = None) -> list[torch.Tensor]:
        """Run the model over token-id lists; returns per-input results (float32, CPU)."""
        lengths = [len(x) for x in ids]
        results: list[torch.Tensor | None] = [None] * len(ids)
        bar = None
        if progress:
            bar = tqdm(total=len(ids), desc=desc, unit="text")
        dev = self.device
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.inference_mode():
                for batch in self._batches(lengths, batch_size, max_tokens):
                    rows = [ids[i] for i in batch]
                    if all(len(r) == len(rows[0]) for r in rows):
                        input_ids = torch.tensor(rows, dtype=torch.long, device=dev)
                        mask = None
                    else:
                        padded = self._pad(rows)
                        input_ids = padded["input_ids"].to(dev)
                        mask = padded["attention_mask"].to(dev)
                    out = self._run(input_ids, mask, all_layers=kind in ("layers", "tokens"))
                    if kind == "pooled":
                        hidden = out.hidden_states if self.pooling == "first-last" else out.last_hidden_state
                        res = pool(hidden, mask, self.pooling).float().cpu()
                        for j, i in enumerate(batch):
                            results[i] = res[j]
                    elif kind == "layers":
                        method = "mean" if self.pooling == "first-last" else self.pooling
                        res = torch.stack([pool(h, mask, method) for h in out.hidden_states], dim=1).float().cpu()
                        for j, i in enumerate(batch):
                            results[i] = res[j]
                    else:  # token states of one layer, unpadded per text
                        states = out.hidden_states[layer] if layer is not None else out.last_hidden_state
                        states = states.float().cpu()
                        for j, i in enumerate(batch):
                            results[i] = states[j, : lengths[i]].clone()
                    if bar is not None:
                        bar.update(len(batch))
        finally:
            self.model.train(was_training)
            if bar is not None:
                bar.close()
        return results  # type: ignore[return-value]

    def _store(self, kind: str, extra: str = "") -> _Store:
        key = cache_key([self.fingerprint, kind, self.pooling, self.max_length, self.prefix, extra], digest_size=12)
        if key not in self._stores:
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.name)[-48:]
            self._stores[key] = _Store(cache_dir() / "embeddings" / f"{safe}-{kind}-{key}")
        return self._stores[key]

    def _cached(self, texts: Sequence[str], kind: str, cache: bool, batch_size: int, max_tokens: int,
                progress: bool | None, extra: str = "", layer: int | None = None, check=None) -> list[torch.Tensor]:
        """De-duplicate, look up the cache, compute the rest, store it; per-text results in input order."""
        texts = _check_texts(texts)
        use_cache = cache and not self.model.training
        unique: dict[str, int] = {}
        for t in texts:
            unique.setdefault(t, len(unique))
        uniq = list(unique)
        found: list[torch.Tensor | None] = [None] * len(uniq)
        store = None
        keys: list[bytes] = []
        if use_cache:
            store = self._store(kind, extra)
            store.refresh(check or (lambda k, v: None))
            keys = [_text_key(t) for t in uniq]
            for j, k in enumerate(keys):
                found[j] = store.get(k)
        todo = [j for j, v in enumerate(found) if v is None]
        if todo:
            if progress is None:
                progress = len(todo) > 1000
            ids = self._token_ids([uniq[j] for j in todo])
            computed = self._infer(ids, batch_size, max_tokens, bool(progress), f"encode {self.name}", kind, layer)
            for j, v in zip(todo, computed):
                found[j] = v
            if store is not None:
                store.add([keys[j] for j in todo], computed)
        return [found[unique[t]] for t in texts]  # type: ignore[misc]

    def encode(self, texts: Sequence[str], batch_size: int = 256, normalize: bool = True, cache: bool = True,
               progress: bool | None = None, max_tokens: int = 8192) -> torch.Tensor:
        """Embeddings ``N x d`` (float32, CPU, input order). ``batch_size`` caps sentences per batch and
        ``max_tokens`` the padded tokens per batch. ``progress=None`` shows a bar for more than 1000 new texts."""
        d = self.dim

        def check(keys, values):
            if not (isinstance(values, torch.Tensor) and values.dtype == torch.float32 and values.shape == (len(keys), d)
                    and keys.shape == (len(keys), 16)):
                raise ValueError("bad shard shape")

        rows = self._cached(texts, "pooled", cache, batch_size, max_tokens, progress, check=check)
        emb = torch.stack(rows)
        return F.normalize(emb, dim=-1) if normalize else emb

    def encode_layers(self, texts: Sequence[str], layers: Sequence[int] | None = None, batch_size: int = 256,
                      normalize: bool = False, cache: bool = True, progress: bool | None = None,
                      max_tokens: int = 8192) -> torch.Tensor:
        """Pooled embeddings of every hidden state: ``N x (L+1) x d`` (index 0 = embedding output), or only
        ``layers``. Uses the encoder's pooling per layer (``first-last`` falls back to ``mean``)."""
        n_layers = self._num_hidden_states()
        d = self.dim

        def check(keys, values):
            if not (isinstance(values, torch.Tensor) and values.shape == (len(keys), n_layers, d)):
                raise ValueError("bad shard shape")

        out = torch.stack(self._cached(texts, "layers", cache, batch_size, max_tokens, progress, check=check))
        if layers is not None:
            out = out[:, list(layers)]
        return F.normalize(out, dim=-1) if normalize else out

    def token_states(self, texts: Sequence[str], layer: int = -1, batch_size: int = 256, cache: bool = True,
                     progress: bool | None = None, max_tokens: int = 8192) -> tuple[torch.Tensor, torch.Tensor]:
        """Token states of one hidden state (``layer`` indexes ``hidden_states``; -1 = last layer) as a right-padded
        ``N x T x d`` float32 tensor (padding = 0) and its ``N x T`` attention mask; cached on disk per text."""
        n_layers = self._num_hidden_states()
        if not -n_layers <= layer < n_layers:
            raise ValueError(f"layer {layer} out of range for a model with {n_layers} hidden states.")
        layer = layer % n_layers
        d = self.dim

        def check(keys, values):
            if isinstance(values, torch.Tensor):
                values = list(values)
            if len(values) != len(keys) or any(v.dim() != 2 or v.shape[1] != d for v in values):
                raise ValueError("bad shard shape")

        rows = self._cached(texts, "tokens", cache, batch_size, max_tokens, progress, extra=f"layer={layer}",
                            layer=layer, check=check)
        T = max(r.shape[0] for r in rows)
        states = torch.zeros(len(rows), T, d)
        mask = torch.zeros(len(rows), T, dtype=torch.long)
        for i, r in enumerate(rows):
            states[i, : r.shape[0]] = r
            mask[i, : r.shape[0]] = 1
        return states, mask

    def _num_hidden_states(self) -> int:
        cfg = self.model.config
        n = getattr(cfg, "num_hidden_layers", None) or getattr(cfg, "n_layer", None)
        return int(n) + 1


#: model types whose position ids start after the padding index (``padding_idx + 1``), so that
#: ``padding_idx + 1`` positions of ``max_position_embeddings`` are never a real token's
_OFFSET_POSITIONS = {"roberta": None, "xlm-roberta": None, "camembert": None, "mpnet": 1}


def position_limit(encoder: Encoder) -> int:
    """The longest input (special tokens included) ``encoder``'s model can take: its position table
    (``max_position_embeddings``, less the ``padding_idx + 1`` slots RoBERTa-style models never use for a real
    token), capped by the tokenizer's ``model_max_length`` when it states one. "No truncation" on the gpu path means
    this length (512 for BERT-base and RoBERTa-base, 514 - 2 = 512 for MPNet)."""
    cfg = encoder.model.config
    n = getattr(cfg, "max_position_embeddings", None) or getattr(cfg, "n_positions", None)
    if n is None:
        raise ValueError(f"{type(encoder.model).__name__} states no position limit (max_position_embeddings).")
    n = int(n)
    kind = getattr(cfg, "model_type", "")
    if kind in _OFFSET_POSITIONS:
        padding_idx = _OFFSET_POSITIONS[kind]
        if padding_idx is None:
            padding_idx = int(getattr(cfg, "pad_token_id", 1) or 0)
        n -= padding_idx + 1
    stated = getattr(encoder.tokenizer, "model_max_length", None)
    if isinstance(stated, int) and 0 < stated < 1_000_000:
        n = min(n, stated)
    return n


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise ValueError("texts must be a list of strings, not a single string (wrap it in a list).")
    texts = list(texts)
    if not texts:
        raise ValueError("texts is empty: pass at least one string to encode.")
    bad = next((i for i, t in enumerate(texts) if not isinstance(t, str)), None)
    if bad is not None:
        raise TypeError(f"texts must all be strings; texts[{bad}] is {type(texts[bad]).__name__} "
                        f"({texts[bad]!r:.40}).")
    return texts
