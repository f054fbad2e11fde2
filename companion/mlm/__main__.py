"""``python -m companion.mlm build --profile cpu|smoke`` builds the raw encoder; ``info`` prints its build record;
``signature`` prints the signature of the random-init network, the raw encoder (mean and [CLS] pooling) and
all-MiniLM-L6-v2 (``--only minilm`` for one of them); ``simcse`` runs the SimCSE check (:mod:`companion.mlm.finetune`).
``sweep`` runs the SimCSE sweep and its gate (:func:`companion.mlm.finetune.simcse_sweep`). ``--json FILE`` also
writes the result."""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.mlm", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("build", "info", "signature", "simcse", "sweep"):
        p = sub.add_parser(name)
        p.add_argument("--profile", default="cpu", choices=("smoke", "cpu"))
        p.add_argument("--json", default=None)
        if name == "simcse":
            p.add_argument("--pooling", default=None, choices=("cls", "mean"))
            p.add_argument("--lr", type=float, default=None)
            p.add_argument("--steps", type=int, default=None)
            p.add_argument("--eval-every", type=int, default=None)
            p.add_argument("--dropout", type=float, default=None)
        if name == "signature":
            p.add_argument("--only", default=None, choices=("random", "raw-mean", "raw-cls", "minilm"))
    args = parser.parse_args(argv)
    import torch

    from companion.mlm.pretrain import build, build_dir, build_info, is_built

    torch.set_num_threads(1)
    if args.command == "build":
        print(build(args.profile, log=lambda msg: print(msg, flush=True)), flush=True)
        return 0
    if args.command == "signature":
        return _signature(args)
    if args.command == "sweep":
        from companion.mlm.finetune import simcse_sweep

        out = simcse_sweep(args.profile, log=lambda msg: print(msg, flush=True))
        out.pop("runs")
        print(json.dumps(out, indent=1))
        _write(args.json, out)
        return 0
    if args.command == "simcse":
        from dataclasses import replace

        from companion.mlm.finetune import SETTINGS, simcse_from_raw
        from companion.settings import cache_dir

        changes = {k: v for k, v in (("pooling", args.pooling), ("lr", args.lr), ("steps", args.steps),
                                     ("eval_every", args.eval_every), ("dropout", args.dropout)) if v is not None}
        out = simcse_from_raw(args.profile, settings=replace(SETTINGS[args.profile], **changes),
                              cache=str(cache_dir() / "mlm" / "simcse-runs"))
        history = out.pop("history")
        out["loss_every_50"] = [round(h["loss"], 4) for h in history[::50]]
        print(json.dumps(out, indent=1))
        _write(args.json, out)
        return 0
    folder = build_dir(args.profile)
    if not is_built(folder):
        print(f"not built: {folder}", file=sys.stderr)
        return 1
    info = build_info(folder)
    info.pop("curve", None)
    print(json.dumps(info, indent=1))
    return 0


def _write(path, payload) -> None:
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, indent=1)


def _signature(args) -> int:
    import time

    from companion.encoders import MINILM, load_encoder
    from companion.mlm import random_encoder, raw_encoder
    from companion.mlm.signature import signature

    makers = {"random": lambda: random_encoder(args.profile, pooling="mean"),
              "raw-mean": lambda: raw_encoder(args.profile, pooling="mean", device="cpu"),
              "raw-cls": lambda: raw_encoder(args.profile, pooling="cls", device="cpu"),
              "minilm": lambda: load_encoder(MINILM, pooling="mean", max_length=128, device="cpu")}
    names = [args.only] if args.only else list(makers)
    rows = {}
    for name in names:
        start = time.perf_counter()
        rows[name] = signature(makers[name]())
        rows[name]["seconds"] = round(time.perf_counter() - start, 1)
        print(name, json.dumps(rows[name]), flush=True)
    _write(args.json, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
