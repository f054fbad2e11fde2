"""SentEval-style STS evaluation on seven sets: Spearman x 100 of cosine similarity.

* STS12-16: SentEval's "all" setting as in SimCSE: the subsets of a year are concatenated and ONE Spearman is
  computed over all its pairs (not the mean of per-subset correlations).
* STS-B: the STS Benchmark test split; SICK-R: the SICK test split (relatedness scores).
* ``avg``: mean of the evaluated sets.

>>> evaluate_sts(load_encoder("all-MiniLM-L6-v2"))            # dict STS12 ... SICK-R, avg
>>> evaluate_sts(lambda texts: my_model(texts))              # any callable texts -> N x d tensor
>>> sts_dev(encoder)                                         # STS-B dev Spearman x 100 (model selection)
>>> sts_table({"MiniLM": res1, "tiny": res2})                # models as rows

Sentences are de-duplicated across all requested sets and encoded ONCE (26k unique of 37.7k for the seven sets).

CLI (dispatched by ``python -m companion sts``)::

    python -m companion sts --model sentence-transformers/all-MiniLM-L6-v2 --pooling mean --json sts.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from scipy.stats import spearmanr

from companion import data
from companion.encoders import POOLINGS, Encoder, ModelNotAvailableError, load_encoder
from companion.settings import DataNotFoundError

STS_SETS = ("STS12", "STS13", "STS14", "STS15", "STS16", "STSBenchmark", "SICKRelatedness")
DISPLAY_NAMES = {"STS12": "STS12", "STS13": "STS13", "STS14": "STS14", "STS15": "STS15", "STS16": "STS16",
                 "STSBenchmark": "STS-B", "SICKRelatedness": "SICK-R"}
COLUMNS = tuple(DISPLAY_NAMES.values()) + ("avg",)
_BY_ANY_NAME = {**{k: k for k in STS_SETS}, **{v: k for k, v in DISPLAY_NAMES.items()}}

EncoderLike = Any  # companion.encoders.Encoder or Callable[[list[str]], torch.Tensor]


def _canonical(name: str) -> str:
    try:
        return _BY_ANY_NAME[name]
    except KeyError:
        raise ValueError(f"Unknown STS set {name!r}; valid: {', '.join(STS_SETS)} "
                         f"(or {', '.join(DISPLAY_NAMES.values())}).") from None


def load_pairs(name: str, split: str = "test") -> tuple[list[str], list[str], np.ndarray]:
    """``(sentence1, sentence2, gold)`` of one set; ``split`` only matters for STSBenchmark / SICKRelatedness."""
    key = _canonical(name)
    if key == "STSBenchmark":
        ds = data.load_stsb(split)
    elif key == "SICKRelatedness":
        ds = data.load_sick(split)
    else:
        ds = data.load_sts(key)
    # [:] materialises a datasets Column in one Arrow call; list(Column) would fetch row by row (~9x slower)
    return list(ds["sentence1"][:]), list(ds["sentence2"][:]), np.asarray(ds["score"][:], dtype=np.float64)


#: Cosines are compared at this many decimals. Float32 encoders are reproducible only to ~1e-7 across batch
#: compositions, and STS/SICK contain pairs of (near-)identical sentences whose cosines all sit at 1 +- 1e-7:
#: without rounding, the ranks inside that tie group (and so the Spearman, by up to ~4e-4) are decided by noise.
COSINE_DECIMALS = 6


def cosine_scores(a: torch.Tensor, b: torch.Tensor) -> np.ndarray:
    """Row-wise cosine similarity of two ``N x d`` tensors (float64, rounded to :data:`COSINE_DECIMALS`)."""
    a = torch.as_tensor(a).detach().double().cpu()
    b = torch.as_tensor(b).detach().double().cpu()
    return np.round(torch.nn.functional.cosine_similarity(a, b, dim=-1).numpy(), COSINE_DECIMALS)


def spearman100(pred: Sequence[float] | np.ndarray, gold: Sequence[float] | np.ndarray) -> float:
    """Spearman rank correlation x 100 (scipy, average ranks for ties); NaN if either side is constant."""
    pred, gold = np.asarray(pred, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    if pred.shape != gold.shape or pred.ndim != 1:
        raise ValueError(f"pred and gold must be 1-d of equal length, got {pred.shape} and {gold.shape}.")
    if len(pred) < 2 or np.ptp(pred) == 0 or np.ptp(gold) == 0:
        return float("nan")
    return float(spearmanr(pred, gold).statistic * 100.0)


def _encode_fn(model: EncoderLike, batch_size: int | None, cache: bool) -> Callable[[list[str]], torch.Tensor]:
    if isinstance(model, Encoder):
        kwargs: dict[str, Any] = {"normalize": True, "cache": cache}
        if batch_size:
            kwargs["batch_size"] = batch_size
        return lambda texts: model.encode(texts, **kwargs)
    if not callable(model):
        raise TypeError(f"Expected an Encoder or a callable texts -> tensor, got {type(model).__name__}.")
    chunk = batch_size or 128

    def run(texts: list[str]) -> torch.Tensor:
        # a callable gets length-sorted chunks (less padding), results back in input order, without gradients
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[torch.Tensor] = []
        with torch.no_grad():
            for s in range(0, len(order), chunk):
                emb = model([texts[i] for i in order[s: s + chunk]])
                out.append(torch.as_tensor(emb).detach().float().cpu())
        sorted_emb = torch.cat(out)
        result = torch.empty_like(sorted_emb)
        result[torch.tensor(order)] = sorted_emb
        return result

    return run


Pairs = dict[str, tuple[Sequence[str], Sequence[str], Any]]  # set name -> (sentences 1, sentences 2, gold)


def pair_spearman(a: torch.Tensor, b: torch.Tensor, gold) -> float:
    """Spearman x 100 between the row-wise cosines of ``a`` and ``b`` (:func:`cosine_scores`) and ``gold``: the
    STS metric of every paper here (SimCSE/SentEval, SimACE §4, AnglE §4; MRPC's gold is its binary label)."""
    gold = np.asarray(torch.as_tensor(gold).detach().double().cpu().numpy() if torch.is_tensor(gold) else gold,
                      dtype=np.float64).reshape(-1)
    if a.shape != b.shape or len(gold) != len(a):
        raise ValueError(f"need equal numbers of pairs and gold scores, got {len(a)}, {len(b)}, {len(gold)}.")
    return spearman100(cosine_scores(a, b), gold)


def score_pairs(encode: Callable[[list[str]], torch.Tensor], pairs: Pairs, *, average: bool = False,
                return_cosines: bool = False):
    """The one pair evaluator: Spearman x 100 of cosine scores per set of ``pairs`` (``{name: (s1, s2, gold)}``),
    every distinct sentence encoded ONCE by ``encode(texts) -> N x d``; ``average`` adds ``avg`` (mean over the
    sets); ``return_cosines`` also returns ``{name: cosines}`` (for score-distribution plots)."""
    if not pairs:
        raise ValueError("pairs is empty: pass at least one evaluation set.")
    unique = list(dict.fromkeys(t for s1, s2, _ in pairs.values() for t in (*s1, *s2)))
    emb = encode(unique)
    if emb.shape[0] != len(unique):
        raise ValueError(f"The encoder returned {emb.shape[0]} embeddings for {len(unique)} texts.")
    index = {t: i for i, t in enumerate(unique)}
    scores, cosines = {}, {}
    for name, (s1, s2, gold) in pairs.items():
        a = emb[torch.tensor([index[t] for t in s1])]
        b = emb[torch.tensor([index[t] for t in s2])]
        scores[name] = pair_spearman(a, b, gold)
        if return_cosines:
            cosines[name] = cosine_scores(a, b)
    if average:
        _add_avg(scores)
    return (scores, cosines) if return_cosines else scores


def _add_avg(scores: dict[str, float]) -> dict[str, float]:
    """Add ``avg``, the mean over the sets already in ``scores`` (the one place the STS average is taken)."""
    scores["avg"] = float(np.mean([v for k, v in scores.items() if k != "avg"]))
    return scores


def flatten_pairs(pairs: Pairs) -> list[str]:
    """Every sentence of every pair, duplicates kept, set by set: a set's first sentences, then its second
    sentences. Embeddings of this list feed :func:`pairs_from_flat` and :func:`score_flat` (a side-by-side encoder
    benchmark encodes exactly this input)."""
    return [t for s1, s2, _ in pairs.values() for t in (*s1, *s2)]


def pairs_from_flat(emb: torch.Tensor, pairs: Pairs) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """``{name: (first-sentence embeddings, second-sentence embeddings)}`` from embeddings in the order of
    :func:`flatten_pairs` (``emb`` must have one row per sentence)."""
    sizes = {name: len(gold) for name, (_, _, gold) in pairs.items()}
    if len(emb) != 2 * sum(sizes.values()):
        raise ValueError(f"{len(emb)} embeddings for {2 * sum(sizes.values())} sentences (flatten_pairs order).")
    out, start = {}, 0
    for name, n in sizes.items():
        out[name] = (emb[start:start + n], emb[start + n:start + 2 * n])
        start += 2 * n
    return out


def score_flat(emb: torch.Tensor, pairs: Pairs, average: bool = True) -> dict[str, float]:
    """Spearman x 100 of cosine similarity per set (:func:`pair_spearman`) from embeddings in the order of
    :func:`flatten_pairs`; ``average`` adds ``avg``, the mean over the sets."""
    scores = {name: pair_spearman(a, b, pairs[name][2]) for name, (a, b) in pairs_from_flat(emb, pairs).items()}
    return _add_avg(scores) if average else scores


def sts_pairs_subset(n_per_set: int | None, seed: int = 0, sets: Sequence[str] | None = None, split: str = "test"
                     ) -> dict[str, tuple[list[str], list[str], np.ndarray]]:
    """STS pairs for a CPU-budget evaluation: up to ``n_per_set`` pairs per set drawn without replacement with
    ``seed`` (``None``: every pair). The same subset for every model keeps comparisons paired. Keys are display
    names (STS12 ... STS-B, SICK-R)."""
    sets = list(sets) if sets is not None else list(STS_SETS)
    rng = np.random.default_rng(seed)
    out = {}
    for name in sets:
        s1, s2, gold = load_pairs(name, split=split)
        if n_per_set is not None and n_per_set < len(s1):
            if n_per_set < 2:
                raise ValueError(f"n_per_set must be >= 2 (a Spearman correlation needs pairs), got {n_per_set}.")
            idx = np.sort(rng.choice(len(s1), size=n_per_set, replace=False))
            s1, s2, gold = [s1[i] for i in idx], [s2[i] for i in idx], gold[idx]
        out[DISPLAY_NAMES[_canonical(name)]] = (s1, s2, gold)
    return out


def evaluate_sts(model: EncoderLike, sets: Sequence[str] = STS_SETS, batch_size: int | None = None,
                 cache: bool = True) -> dict[str, float]:
    """Spearman x 100 on each set plus ``avg``; keys are display names (``STS12`` … ``STS16``, ``STS-B``,
    ``SICK-R``, ``avg``). ``model``: an :class:`~companion.encoders.Encoder` (cached, sorted ``encode``) or any
    callable ``list[str] -> N x d`` tensor (e.g. a model in training; it is called under ``torch.no_grad`` in
    chunks of ``batch_size``, default 128; put it in eval mode yourself)."""
    keys = list(dict.fromkeys(_canonical(s) for s in sets))
    if not keys:
        raise ValueError(f"sets is empty; valid: {', '.join(STS_SETS)}.")
    pairs = {k: load_pairs(k) for k in keys}
    scores = score_pairs(_encode_fn(model, batch_size, cache), pairs)
    return _add_avg({DISPLAY_NAMES[k]: scores[k] for k in keys})


def sts_dev(model: EncoderLike, batch_size: int | None = None, cache: bool = True) -> float:
    """STS-B dev Spearman x 100 (for model selection during training)."""
    pairs = {"STSBenchmark": load_pairs("STSBenchmark", split="dev")}
    return score_pairs(_encode_fn(model, batch_size, cache), pairs)["STSBenchmark"]


def sts_table(results: dict[str, dict[str, float]], digits: int | None = 2):
    """A DataFrame with one row per model and columns STS12 … SICK-R, avg (missing sets are NaN)."""
    rows = {name: {c: float(res.get(c, math.nan)) for c in COLUMNS} for name, res in results.items()}
    df = pd.DataFrame.from_dict(rows, orient="index", columns=list(COLUMNS))
    df.index.name = "model"
    return df.round(digits) if digits is not None else df


# ------------------------------------------------------------------------------------------------------- CLI
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m companion sts",
                                description="Seven-set STS evaluation (Spearman x 100 of cosine similarity).")
    p.add_argument("--model", required=True, help="hub id or local folder (offline: all-MiniLM-L6-v2 or a folder)")
    p.add_argument("--pooling", default="mean", choices=POOLINGS)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=None)
    p.add_argument("--prefix", default="", help='text prefix, e.g. "query: " for E5')
    p.add_argument("--device", default=None)
    p.add_argument("--dtype", default=None, help="e.g. float16, bfloat16")
    p.add_argument("--sets", nargs="+", default=list(STS_SETS), help="subset of the seven sets")
    p.add_argument("--json", type=Path, default=None, help="write the scores as JSON here")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the embedding cache")
    return p


def cli(argv: list[str] | None = None) -> int:
    """``python -m companion sts ...``: print the table, optionally write JSON; returns the exit code."""
    args = _parser().parse_args(argv)
    try:
        encoder = load_encoder(args.model, pooling=args.pooling, max_length=args.max_length, device=args.device,
                               dtype=args.dtype, prefix=args.prefix)
        result = evaluate_sts(encoder, sets=args.sets, batch_size=args.batch_size, cache=not args.no_cache)
    except (ModelNotAvailableError, DataNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    table = sts_table({encoder.name: result})
    print(table.to_string(float_format=lambda x: f"{x:.2f}"))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0
