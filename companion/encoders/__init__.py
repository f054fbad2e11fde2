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

One module per job: :mod:`companion.encoders.pooling`, :mod:`companion.encoders.store` (the cache and the
fingerprint), :mod:`companion.encoders.encoder` (:class:`Encoder`) and :mod:`companion.encoders.loading`
(:func:`load_encoder`, :func:`tiny_encoder`); every name above is imported from ``companion.encoders``.
"""

from companion.encoders.encoder import Encoder, position_limit
from companion.encoders.loading import (
    HUB_PROBE_TIMEOUT_S,
    MINILM,
    TINY_ARCHS,
    ModelNotAvailableError,
    hub_unreachable,
    load_encoder,
    resolve_model,
    tiny_encoder,
)
from companion.encoders.pooling import POOLINGS, pool
from companion.encoders.store import weights_fingerprint

__all__ = ["POOLINGS", "MINILM", "HUB_PROBE_TIMEOUT_S", "TINY_ARCHS", "ModelNotAvailableError", "pool",
           "weights_fingerprint", "Encoder", "position_limit", "resolve_model", "hub_unreachable", "load_encoder",
           "tiny_encoder"]
