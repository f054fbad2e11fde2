"""Command line: ``python -m companion {run,list,sts,site,scoreboard}``.

* ``run [--profile smoke|cpu|gpu] [--only PATTERN] [--output-dir DIR] [--timeout S]`` — execute notebooks.
* ``list`` — notebooks and the section each reproduces.
* ``sts --model ID --pooling mean [--max-length N] [--json FILE]`` — the seven-set STS table.
* ``site [--check]`` — regenerate (or check) the Quarto sidebar from the notebooks.
* ``scoreboard`` — the claims scoreboard from ``results/``.
* ``notebooks clean [--check] [PATHS]`` — store notebook outputs in their clean form (or list what is wrong).
"""

from __future__ import annotations

import argparse
import sys

from companion.profiles import PROFILES


def _cmd_run(args: argparse.Namespace) -> int:
    from companion import runner

    results = runner.run(args.profile, only=args.only, output_dir=args.output_dir, timeout=args.timeout,
                         jobs=args.jobs)
    print()
    print(runner.summary_table(results))
    return 0 if all(r.status == "ok" for r in results) else 1


def _cmd_list(args: argparse.Namespace) -> int:
    from companion import runner

    notebooks = runner.select(runner.list_notebooks(), args.only)
    width = max((len(nb.key) for nb in notebooks), default=10)
    for nb in notebooks:
        print(f"{nb.key:<{width}}  {nb.title}")
    return 0


def _cmd_sts(argv: list[str]) -> int:
    from companion import sts

    return sts.cli(argv)


def _cmd_site(args: argparse.Namespace) -> int:
    from companion import site

    if args.check:
        problems = site.check()
        for problem in problems:
            print(problem)
        print("site configuration ok" if not problems else f"{len(problems)} problem(s)")
        return 1 if problems else 0
    path = site.write_sidebar()
    print(f"wrote the sidebar of {path}")
    return 0


def _cmd_scoreboard(args: argparse.Namespace) -> int:
    from companion.results import scoreboard

    print("Paper claims (the scoreboard):")
    print(scoreboard().to_string(index=False))
    for kind, title in (("beyond", "Beyond the papers"), ("check", "Our own checks (never counted as reproductions)")):
        print(f"\n{title}:")
        print(scoreboard(kind=kind).to_string(index=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m companion", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="execute notebooks with papermill")
    run.add_argument("--profile", default="smoke", help=f"one of {', '.join(PROFILES)} (default smoke)")
    run.add_argument("--only", help="comma-separated globs/substrings of paper/notebook, e.g. 'circumplex/0*'")
    run.add_argument("--output-dir", help="where smoke copies, results and figures go (default <cache>/smoke)")
    run.add_argument("--timeout", type=int, help="per-cell timeout in seconds")
    run.add_argument("--jobs", type=int, default=1,
                     help="notebooks run at once, each in its own process (default 1; e.g. 2 for smoke on 2 cores)")
    run.set_defaults(func=_cmd_run)

    lst = sub.add_parser("list", help="list notebooks and their sections")
    lst.add_argument("--only", help="filter as in 'run'")
    lst.set_defaults(func=_cmd_list)

    sub.add_parser("sts", help="seven-set STS evaluation (see 'python -m companion sts --help')", add_help=False)

    site = sub.add_parser("site", help="regenerate or check the Quarto sidebar")
    site.add_argument("--check", action="store_true", help="only check, exit 1 on problems")
    site.set_defaults(func=_cmd_site)

    sub.add_parser("notebooks", help="clean or check stored notebook outputs (see 'notebooks clean --help')",
                   add_help=False)

    board = sub.add_parser("scoreboard", help="print the claims scoreboard")
    board.set_defaults(func=_cmd_scoreboard)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "sts":
        return _cmd_sts(argv[1:])
    if argv and argv[0] == "notebooks":
        from . import notebook_outputs

        return notebook_outputs.main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
