"""Encode throughput: companion ``Encoder.encode`` vs ``SentenceTransformer.encode`` on the seven STS sets.

Inputs: both sides of every pair of STS12-16, STS-B test and SICK-R test (37,700 sentences, 26,083 unique), in
that order. Same process, same model (all-MiniLM-L6-v2), max length 256 (sentence-transformers' setting for this
model), mean pooling, L2 normalisation, CPU. Both encoders get a small warm-up first.

Measured, in this order:
  1. ``SentenceTransformer.encode(texts, batch_size=32, normalize_embeddings=True)``  (its defaults)
  2. ``Encoder.encode(texts)``, cold cache (an empty temporary cache folder; includes writing the cache)
  3. ``Encoder.encode(texts)`` again: cached rerun
  4. optional (``--unique``): both encoders on the 26,083 unique sentences only, i.e. without the benefit of our
     de-duplication, to isolate batching (length bucketing, no-mask SDPA) from de-duplication.

Writes ``benchmarks/results/encode_throughput.json``. Usage: ``python benchmarks/encode_throughput.py [--unique]``.
The machine is shared; timings are wall-clock and include contention from other processes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def sts_texts() -> list[str]:
    from companion.sts import STS_SETS, load_pairs

    texts: list[str] = []
    for name in STS_SETS:
        s1, s2, _ = load_pairs(name)
        texts += s1 + s2
    return texts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--unique", action="store_true", help="also time both encoders on the unique sentences")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "encode_throughput.json")
    args = ap.parse_args()
    os.environ["COMPANION_CACHE_DIR"] = tempfile.mkdtemp(prefix="encode-bench-")

    from sentence_transformers import SentenceTransformer

    from companion.encoders import load_encoder, resolve_model

    texts = sts_texts()
    unique = list(dict.fromkeys(texts))
    path, name = resolve_model("all-MiniLM-L6-v2")
    st = SentenceTransformer(path, device="cpu")
    st.max_seq_length = 256
    enc = load_encoder(name, pooling="mean", max_length=256, device="cpu")
    warm = unique[:128]
    st.encode(warm, normalize_embeddings=True)
    enc.encode(warm, cache=False)

    def timed(fn):
        t0 = time.perf_counter()
        out = fn()
        return out, time.perf_counter() - t0

    ref, t_st = timed(lambda: st.encode(texts, batch_size=32, convert_to_tensor=True, normalize_embeddings=True))
    print(f"sentence-transformers: {t_st:.1f} s", flush=True)
    ours, t_cold = timed(lambda: enc.encode(texts, progress=False))
    print(f"ours (cold cache): {t_cold:.1f} s  speed-up {t_st / t_cold:.2f}x", flush=True)
    again, t_cached = timed(lambda: enc.encode(texts, progress=False))
    print(f"ours (cached): {t_cached:.2f} s", flush=True)
    result = {
        "model": name, "max_length": 256, "pooling": "mean", "normalize": True, "device": "cpu",
        "torch_threads": torch.get_num_threads(), "cpu_count": os.cpu_count(), "platform": platform.platform(),
        "torch": torch.__version__, "n_texts": len(texts), "n_unique": len(unique),
        "sentence_transformers_s": round(t_st, 2),
        "ours_cold_s": round(t_cold, 2),
        "speedup_cold": round(t_st / t_cold, 2),
        "ours_cached_s": round(t_cached, 3),
        "speedup_cached": round(t_st / t_cached, 1),
        "max_abs_diff_vs_st": float((ours - ref.cpu()).abs().max()),
        "cached_identical": bool(torch.equal(ours, again)),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")  # written now in case --unique is interrupted
    if args.unique:
        _, u_st = timed(lambda: st.encode(unique, batch_size=32, convert_to_tensor=True, normalize_embeddings=True))
        _, u_ours = timed(lambda: enc.encode(unique, cache=False, progress=False))
        result |= {"unique_sentence_transformers_s": round(u_st, 2), "unique_ours_s": round(u_ours, 2),
                   "unique_speedup": round(u_st / u_ours, 2)}
    result["note"] = ("same process, same inputs, wall-clock on a 2-core CPU shared with other jobs; "
                      "ours = length-bucketed, de-duplicated, unpadded batches under inference_mode")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
