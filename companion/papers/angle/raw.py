"""AnglE in the raw-encoder regime (notebook ``angle/03``): Table 4's objective rows and the Fig. 1/2 measurement on
the raw masked-language-model BERT built by :mod:`companion.mlm`, the kind of encoder the paper fine-tunes.

* :data:`RAW_SETTINGS` — the regime's settings per profile (every layer and the embeddings trained, mean pooling,
  STS-B train, the MiniLM regime's STS-B test subset);
* :func:`raw_base` — the raw encoder as an :class:`~companion.encoders.upper.UpperEncoder` that trains everything;
* :func:`raw_ablation` — the six objective rows of Table 4 on every seed, each run cached on disk (so a notebook
  re-execution reloads it) and recorded as :class:`~companion.papers.angle.experiments.AblationRuns` records it
  (score, cosines, loss curve, movement: the MiniLM regime's validity checks apply unchanged);
* :func:`pair_gradients`, :func:`saturation_gradients` — Fig. 1/2 in this encoder: which pairs sit in the cosine's
  saturation zone, and the gradient the cosine and the angle similarity give them there.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from companion._io import cache_key, pickle_save_atomic, read_cache

#: the raw regime's settings. ``cpu``: the MiniLM regime's schedule (its 2,048-pair STS-B train subset, 64 steps at
#: batch 32, lr 2e-4 with 6 warm-up steps, 3 seeds, its STS-B test subset), with every layer and the embeddings
#: trained instead of the top layer: one step of the whole raw network costs about half a CPU second, so 18 runs of
#: 64 steps are about 10 CPU minutes on one thread; ``smoke``: a few steps of the tiny build.
RAW_SETTINGS = {
    "smoke": dict(seeds=[0], stsb_train=32, steps=3, batch_size=8, lr=1e-4, warmup=0, max_length=32, buckets=2),
    "cpu": dict(seeds=[0, 1, 2], stsb_train=2048, steps=64, batch_size=32, lr=2e-4, warmup=6, max_length=64,
                buckets=4),
}


def raw_base(profile: str, max_length: int = 64, log=print):
    """The raw encoder of ``profile`` (:func:`companion.mlm.raw_encoder`, mean pooling) wrapped to train every
    layer and the embeddings (``n_top = L``, ``train_embeddings=True``): full fine-tuning, as the paper runs it."""
    from companion.encoders.upper import UpperEncoder, _layer_stack  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.mlm import raw_encoder  # noqa: PLC0415 - loads torch; this module imports without it

    enc = raw_encoder(profile, pooling="mean", max_length=max_length, device="cpu", log=log)
    return UpperEncoder(enc, n_top=len(_layer_stack(enc.model)), pooling="mean", train_embeddings=True)


def _data_key(data) -> str:
    return cache_key([data.sentence1, data.sentence2, [float(x) for x in data.labels]])


def raw_ablation(runner, variants: Mapping[str, Sequence[float]], seeds: Sequence[int], *, cache: str | None = None,
                 log=print) -> list[dict]:
    """Every ``variant`` (name -> Table 4 weights) on every seed with ``runner`` (an
    :class:`~companion.papers.angle.experiments.AblationRuns` on :func:`raw_base`), mean pooling. Each run is
    cached as ``<cache>/<key>.pkl``, the key naming the encoder's weights, the data, the run settings, the
    objective and the seed; a cached run is reloaded (``from_cache`` True, its recorded times kept). Returns one
    row per run: ``group`` ("objective"), ``variant``, ``seed`` and :meth:`AblationRuns.run`'s record."""
    encoder = runner.base.encoder
    recipe = {"encoder": getattr(encoder, "fingerprint", None), "base": {k: str(v) for k, v in
                                                                        sorted(runner.base._init_args.items())},
              "train": _data_key(runner.train_data), "evals": {k: _data_key(v) for k, v in runner.evals.items()},
              "steps": runner.steps, "batch_size": runner.batch_size, "lr": runner.lr, "warmup": runner.warmup,
              "buckets": runner.buckets, "taus": dict(runner.taus), "positive_threshold": runner.positive_threshold,
              "positives": runner.positives, "n_top": runner.n_top}
    rows = []
    for name, weights in variants.items():
        for seed in seeds:
            key = cache_key({**recipe, "weights": list(weights), "seed": seed})
            path = Path(cache) / f"{key}.pkl" if cache else None
            record = read_cache(path, kind="pickle") if path is not None else None
            if record is None:
                start = time.perf_counter()
                record = runner.run(weights, seed, "mean")
                record = {k: (v.detach().cpu().numpy() if hasattr(v, "detach") else v) for k, v in record.items()}
                if path is not None:
                    pickle_save_atomic(record, path)
                log(f"raw {name} seed {seed}: STS-B {record['ours']:.2f} ({time.perf_counter() - start:.0f} s)")
                from_cache = False
            else:
                from_cache = True
            rows.append({"group": "objective", "variant": name, "seed": seed, **record, "from_cache": from_cache})
    return rows


def pair_gradients(u, v) -> dict[str, np.ndarray]:
    """Per pair (rows of ``u`` and ``v``): the cosine, and the gradient norm with respect to ``u`` of the cosine
    (Fig. 1: sin θ / |u|) and of AnglE's angle similarity (:func:`companion.similarities.complex_angle`, the
    authors' code reading of Eq. 6), both at unit length (``u`` and ``v`` normalised first), by autograd."""
    import torch  # noqa: PLC0415 - torch is heavy; this module imports without it

    from companion.similarities import complex_angle, row_cosine  # noqa: PLC0415 - loads torch; this module imports without it

    u = torch.nn.functional.normalize(torch.as_tensor(u).double(), dim=-1).requires_grad_(True)
    v = torch.nn.functional.normalize(torch.as_tensor(v).double(), dim=-1)
    cos = row_cosine(u, v)
    (g_cos,) = torch.autograd.grad(cos.sum(), u)
    ang = complex_angle(u, v)
    (g_ang,) = torch.autograd.grad(ang.sum(), u)
    return {"cos": cos.detach().numpy(), "grad_cos": g_cos.norm(dim=-1).numpy(),
            "grad_angle": g_ang.norm(dim=-1).numpy()}


def saturation_gradients(encoders: Mapping[str, Any], data, grad_below: float | None = None):
    """Fig. 1/2 in each of ``encoders`` (name -> :class:`~companion.encoders.Encoder` or ``texts -> N x d``) on the
    pairs of ``data`` (:class:`~companion.papers.angle.pairs.PairData`): the share of pairs in the cosine's
    saturation zone (|cos| > sqrt(1 - g²), g = ``grad_below``, default
    :data:`companion.mlm.signature.GRAD_BELOW`), and the mean gradient norm of the cosine and of the angle
    similarity inside and outside it (:func:`pair_gradients`). One row per encoder (a pandas DataFrame)."""
    import torch  # noqa: PLC0415 - torch is heavy; this module imports without it

    from companion.mlm.signature import GRAD_BELOW  # noqa: PLC0415 - loads torch; this module imports without it

    edge = math.sqrt(1.0 - (GRAD_BELOW if grad_below is None else grad_below) ** 2)
    rows = {}
    for name, enc in encoders.items():
        encode = enc.encode if hasattr(enc, "encode") else enc
        u, v = (torch.as_tensor(np.asarray(encode(list(s)))) for s in (data.sentence1, data.sentence2))
        g = pair_gradients(u, v)
        zone = np.abs(g["cos"]) > edge
        row = {"pairs": len(zone), "in zone": float(zone.mean()), "mean cos": float(g["cos"].mean())}
        for where, mask in (("zone", zone), ("outside", ~zone)):
            row[f"|∇cos| {where}"] = float(g["grad_cos"][mask].mean()) if mask.any() else float("nan")
            row[f"|∇angle| {where}"] = float(g["grad_angle"][mask].mean()) if mask.any() else float("nan")
        rows[name] = row
    return pd.DataFrame(rows).T
