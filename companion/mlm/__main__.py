"""``python -m companion.mlm build --profile cpu|smoke`` builds the raw encoder; ``info`` prints its build record."""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.mlm", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("build", "info"):
        p = sub.add_parser(name)
        p.add_argument("--profile", default="cpu", choices=("smoke", "cpu"))
    args = parser.parse_args(argv)
    import torch

    from companion.mlm.pretrain import build, build_dir, build_info, is_built

    if args.command == "build":
        torch.set_num_threads(1)
        print(build(args.profile, log=lambda msg: print(msg, flush=True)), flush=True)
        return 0
    folder = build_dir(args.profile)
    if not is_built(folder):
        print(f"not built: {folder}", file=sys.stderr)
        return 1
    info = build_info(folder)
    info.pop("curve", None)
    print(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
