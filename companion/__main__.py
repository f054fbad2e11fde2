"""Command line of the companion: python -m companion COMMAND (also installed as the companion script).

Run the notebooks, read the verdicts they computed, get and check the data. Each command has its own --help.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from companion.profiles import GPU_GRIDS, PROFILES

EPILOG = """first steps:
  python -m companion run --profile smoke   every notebook in seconds (placeholder verdicts, scratch output)
  python -m companion scoreboard            the verdicts the cpu runs computed (results/)
  python -m companion data check            whether the data is complete where the loaders look
"""


#: the exit status of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it)
INTERRUPTED = 130


def _cmd_run(args: argparse.Namespace) -> int:
    from companion.publish import runner

    if args.plan:  # what the gpu profile would run and cost; nothing runs, so no GPU is needed
        from companion.publish import plan

        plan.check_plan(args.profile, args.plan, args.dry_run)
        print(plan.format_plan(plan.plan_frame(args.only, gpu_grid=args.grid)))
        return 0
    try:
        results = runner.run(args.profile, only=args.only, output_dir=args.output_dir, timeout=args.timeout,
                             jobs=args.jobs, dry_run=args.dry_run, allow_cpu=args.allow_cpu, gpu_grid=args.grid)
    except runner.Interrupted as exc:
        print(exc.line(), file=sys.stderr)
        return INTERRUPTED
    except runner.NotebookBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print()
    print(runner.summary_table(results, args.profile, args.dry_run))
    for line in runner.output_locations(results, args.profile, args.output_dir, args.dry_run):
        print(line)
    return 0 if all(r.status == "ok" for r in results) else 1


def _cmd_list(args: argparse.Namespace) -> int:
    from companion.publish.notebooks import list_notebooks, select

    notebooks = select(list_notebooks(), args.only)
    width = max((len(nb.key) for nb in notebooks), default=10)
    for nb in notebooks:
        print(f"{nb.key:<{width}}  {nb.title}")
    return 0


def _cmd_data(args: argparse.Namespace) -> int:
    from . import fetch

    try:
        if args.action == "fetch":
            report = fetch.fetch(args.dest, only=args.only, base_url=args.base_url, quiet=args.quiet,
                                 keep_downloads=args.keep_downloads)
            where = Path(args.dest).expanduser() if args.dest else fetch.default_dest()
            total = len(report.present) + len(report.fetched)
            print(f"{total} files verified in {where}" + (f", {len(report.errors)} failed" if report.errors else ""))
            if report.ok and args.dest and os.environ.get("COMPANION_DATA_DIR") != str(where):
                print(f"use it with: export COMPANION_DATA_DIR={where.resolve()}")
            return 0 if report.ok else 1
        if args.action == "check":
            report = fetch.check(args.dir, only=args.only)
            for path in report.missing:
                print(f"missing: {path}")
            for path in report.corrupt:
                print(f"corrupt: {path}")
            print(f"{report.root}: {len(report.present)} files ok, {len(report.missing)} missing, "
                  f"{len(report.corrupt)} corrupt")
            return 0 if report.ok else 1
        for source in fetch.sources_table(only=args.only):
            n = len(source.files)
            print(f"{', '.join(source.datasets)}: {n} file{'s' if n != 1 else ''} from {source.origin}, "
                  f"{source.how}")
            for address, path in source.files:
                print(f"    {address}  ->  {path}")
        return 0
    except fetch.FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _cmd_wordnet(args: argparse.Namespace) -> int:
    from companion import wordnet

    try:
        print(wordnet.fetch() if args.action == "fetch" else wordnet.check())
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _cmd_colab(args: argparse.Namespace) -> int:
    from companion.publish import colab

    changed = colab.apply(check_only=args.check)
    repository = colab.repository()
    state = (f"repository {repository}" if repository
             else "no repository configured: no badges; on Colab the set-up cell asks for one")
    if args.check:
        for path in changed:
            print(f"out of date: {path}")
        print(f"{len(changed)} file(s) out of date ({state})" if changed else f"colab cells up to date ({state})")
        return 1 if changed else 0
    for path in changed:
        print(f"updated {path}")
    print(f"{len(changed)} file(s) updated ({state})")
    return 0


def _cmd_sts(argv: list[str]) -> int:
    from companion import sts

    return sts.cli(argv)


def _cmd_site(args: argparse.Namespace) -> int:
    from companion.publish.site import checks, pages

    if args.check:
        problems = checks.check(strict=args.strict)
        for problem in problems:
            print(problem)
        if not args.strict:
            found = checks.findings()
            if found:
                print(f"{len(found)} reader finding(s) in the stored notebooks (numbers printed to machine length, "
                      "tables cut short, bare reprs, figures too small at display width); --strict lists them and "
                      "fails on them")
        print("site configuration ok" if not problems else f"{len(problems)} problem(s)")
        return 1 if problems else 0
    path = pages.write_sidebar()
    print(f"wrote the sidebar of {path}")
    return 0


#: the scoreboard's sections after the five papers' claims: kind, title, and what the first column names
SCOREBOARD_SECTIONS = (
    ("erratum", "Errata: statements a paper's own text or tables contradict, by the paper they concern (confirmed, "
                "minor, partly or not confirmed by a computation; never counted as reproductions)", "paper"),
    ("beyond", "Beyond the papers: questions the papers do not ask, by results/ folder ('baselines' and "
               "'synthesis' are this project's own notebooks, not papers)", "results of"),
    ("check", "Our own checks: identities, parity and set-up checks of our code, data and runs, by results/ folder; "
              "never counted as reproductions. A failed check is one that did not hold (our data, set-up or reading "
              "of the paper is not what was expected); each one is listed below with what it checks", "results of"),
)


def _cmd_scoreboard(args: argparse.Namespace) -> int:
    from companion import paper_registry, statements
    from companion.results import claims_frame, scoreboard

    print("The five papers' statements, each counted once by its headline verdict (that of its evidence row closest "
          "to the paper's setting), and by that row's regime ('paper setting', or 'scaled': our backbone, layers "
          "trained, steps, data or seeds differ from the paper's; the regime never changes a verdict); 'evidence': "
          "the ledger rows that test them, 'split': statements whose rows disagree, listed below:")
    print(scoreboard(by_regime=True).rename(columns={"total": "statements"}).to_string(index=False))
    frame = claims_frame()
    mine = frame[(frame["kind"] == "paper") & frame["paper"].isin(paper_registry.REPRODUCED)]
    heads = statements.headlines(mine)
    if heads["split"].any():
        print("\nSplit statements (the headline verdict first, then every verdict with its regime and rows):")
        for row in heads[heads["split"]].itertuples():
            print(f"  {row.paper}  {row.statement}: {row.split_text}")
    evidence = statements.erratum_evidence(mine)
    if len(evidence):
        print("\nLeft out of the statements: rows that are the evidence of an erratum, counted with the errata:")
        for row in evidence.itertuples():
            print(f"  {row.paper}/{row.notebook}  {row.id} ({row.verdict}): evidence of {row.erratum}")
    for kind, title, column in SCOREBOARD_SECTIONS:
        print(f"\n{title}:")
        print(scoreboard(kind=kind).rename(columns={"paper": column}).to_string(index=False))
    failed = frame[(frame["kind"] == "check") & (frame["verdict"] == "failed")]
    if len(failed):
        print("\nFailed checks (notebook, claim id: what it checks):")
        for row in failed.itertuples():
            print(f"  {row.paper}/{row.notebook}  {row.id}: {row.claim}")
    return 0


def _cmd_criteria(args: argparse.Namespace) -> int:
    from companion import results, settings

    if args.action == "register":
        source = Path(args.source) if args.source else results.output_dirs("smoke")[0]
        if not source.is_dir():
            print(f"no ledgers under {source}: run 'python -m companion run --profile smoke' first")
            return 1
        written = results.register_criteria(source, only=args.only or ())
        print(f"registered the criteria of {len(written)} notebook(s) under data/<paper>/criteria/"
              if written else "every registered criterion is up to date")
        return 0
    if args.action == "history":
        from companion import criteria_history

        path = criteria_history.write()
        stored = criteria_history.load()
        print(f"wrote {path.relative_to(settings.repo_root())} (commits up to {stored['covers'][:7]}):")
        for what, count in criteria_history.summary(stored).items():
            print(f"  {what}: {count}")
        return 0
    problems = [p for ledger in results.load_ledgers(settings.results_dir()) for p in results.criteria_problems(ledger)]
    if settings.results_dir() == settings.repo_root() / "results":  # the checkout's committed ledgers
        from companion import criteria_history

        try:
            problems += criteria_history.problems()
        except criteria_history.HistoryUnavailable as exc:
            print(f"note: the registration history is not checked here ({exc})")
    for line in problems:
        print(line)
    print("every ledger was graded with its committed criteria" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


def _cmd_audit_tables(args: argparse.Namespace) -> int:
    from companion.papers.synthesis import audit

    report = audit.audit(papers=args.paper or None)
    print(audit.format_report(report))
    return 0 if report.ok else 1


def _cmd_audit_text(args: argparse.Namespace) -> int:
    from companion.papers.synthesis import sentences

    report = sentences.sweep(papers=args.paper or None)
    print(sentences.format_report(report))
    return 0 if report.ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m companion", description=__doc__, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, title="commands", metavar="COMMAND")

    run = sub.add_parser("run", help="execute notebooks (smoke: seconds each, placeholder verdicts; cpu: the "
                                     "reproduction; gpu: paper scale)")
    run.add_argument("--profile", default="smoke", help=f"one of {', '.join(PROFILES)} (default smoke)")
    run.add_argument("--only", help="comma-separated globs/substrings of paper/notebook, e.g. 'circumplex/0*'")
    run.add_argument("--output-dir", help="where smoke copies, results and figures go (default <cache>/smoke)")
    run.add_argument("--timeout", type=int, help="per-cell timeout in seconds")
    run.add_argument("--jobs", type=int, default=1,
                     help="notebooks run at once, each in its own process (default 1; e.g. 2 for smoke on 2 cores)")
    run.add_argument("--dry-run", action="store_true",
                     help="gpu profile only: its code path on a CPU in seconds (tiny stand-in backbones, smoke sizes, "
                          "scratch output)")
    run.add_argument("--allow-cpu", action="store_true",
                     help="gpu profile only: run it although torch sees no CUDA GPU (refused otherwise)")
    run.add_argument("--grid", choices=GPU_GRIDS, default="day",
                     help="gpu profile only: 'day' (default), the grid meant to fit one GPU-day on one H100 in bf16; "
                          "'full', the paper's full grid (more seeds and runs; --plan prices either)")
    run.add_argument("--plan", action="store_true",
                     help="gpu profile only: print each notebook's runs and their estimated GPU hours, run nothing "
                          "(no GPU needed)")
    run.set_defaults(func=_cmd_run)

    lst = sub.add_parser("list", help="list notebooks and their sections")
    lst.add_argument("--only", help="filter as in 'run'")
    lst.set_defaults(func=_cmd_list)

    data = sub.add_parser("data", help="fetch the data sets, check a local copy, or list where each comes from")
    data_sub = data.add_subparsers(dest="action", required=True)
    fetch = data_sub.add_parser("fetch", help="download every data set from its publisher and verify it")
    fetch.add_argument("--dest", help="where the files go (default $COMPANION_DATA_DIR, else <cache>/data)")
    fetch.add_argument("--base-url", help="a mirror: fetch <URL>/<path in the manifest> instead of the publishers "
                                          "(a local folder works too)")
    fetch.add_argument("--only", help="comma-separated data sets, e.g. 'sts12,stsb,goemotions' (see 'data sources')")
    fetch.add_argument("--keep-downloads", action="store_true", help="keep downloaded archives in <dest>/.downloads")
    fetch.add_argument("--quiet", action="store_true", help="no progress bars")
    check = data_sub.add_parser("check", help="verify a local copy against the manifest")
    check.add_argument("dir", nargs="?", help="the copy to check (default: the folder the data loaders read: "
                                              "$COMPANION_DATA_DIR, else shared/data beside the checkout, else "
                                              "<cache>/data)")
    check.add_argument("--only", help="comma-separated data sets")
    sources = data_sub.add_parser("sources", help="where each data set comes from: every file's address and the "
                                                  "file it becomes")
    sources.add_argument("--only", help="comma-separated data sets")
    data.set_defaults(func=_cmd_data)

    wn = sub.add_parser("wordnet", help="get WordNet 3.0 (the concepts notebooks read it) or check that it reads; "
                                        "exit 1 when it does not")
    wn_sub = wn.add_subparsers(dest="action", required=True)
    wn_sub.add_parser("fetch", help="check, and when WordNet does not read, download it with nltk and check again")
    wn_sub.add_parser("check", help="read WordNet where the code looks (COMPANION_WORDNET_DIR, /usr/share/wordnet, "
                                    "an nltk download) and say where it was found")
    wn.set_defaults(func=_cmd_wordnet)

    sub.add_parser("sts", help="seven-set STS evaluation (see 'python -m companion sts --help')", add_help=False)

    site = sub.add_parser("site", help="regenerate the site's configuration and generated pages and the README's "
                                       "notebook table (or --check them)")
    site.add_argument("--check", action="store_true", help="only check, exit 1 on problems")
    site.add_argument("--strict", action="store_true",
                      help="with --check, also fail on the stored notebooks' reader findings")
    site.set_defaults(func=_cmd_site)

    sub.add_parser("notebooks", help="clean or check stored notebook outputs (see 'notebooks clean --help')",
                   add_help=False)
    sub.add_parser("pipeline", help="set-up, run, regenerate and check the site, render, commit and open a pull "
                                    "request, in one command (see 'pipeline --help')", add_help=False)

    colab = sub.add_parser("colab", help="write the Colab badge and set-up cell of every notebook and the site's install command "
                                       "(idempotent)")
    colab.add_argument("--check", action="store_true", help="only check, exit 1 when a notebook is out of date")
    colab.set_defaults(func=_cmd_colab)

    crit = sub.add_parser("criteria", help="register the criteria of every notebook before a run, or check the "
                                           "ledgers against them")
    crit.add_argument("action", choices=("register", "check", "history"),
                      help="register: write data/<paper>/criteria/<notebook>.json from a smoke run's ledgers; "
                           "check: every committed ledger was graded with its committed criteria, and the stored "
                           "registration history is the one the commits give; history: write that history "
                           "(data/criteria-history.json) from the commits")
    crit.add_argument("--from", dest="source", default=None,
                      help="the results folder to register from (default: the smoke scratch folder)")
    crit.add_argument("--only", nargs="*", default=None, metavar="PART",
                      help="register only the ledgers whose '<paper>/<notebook>' contains one of these")
    crit.set_defaults(func=_cmd_criteria)
    aud = sub.add_parser("audit-tables", help="recompute what every transcribed table lets one recompute; exit 1 "
                                              "on a finding that is neither an erratum nor allow-listed")
    aud.add_argument("--paper", nargs="*", default=None, metavar="PAPER",
                     help="only these papers (default: all five)")
    aud.set_defaults(func=_cmd_audit_tables)
    txt = sub.add_parser("audit-text", help="every comparative or universal sentence of the papers against their own "
                                            "tables (data/<paper>/sentences.csv); exit 1 on a hit without a row or a "
                                            "contradicted sentence that no erratum records")
    txt.add_argument("--paper", nargs="*", default=None, metavar="PAPER",
                     help="only these papers (default: all five)")
    txt.set_defaults(func=_cmd_audit_text)
    board = sub.add_parser("scoreboard", help="headline verdict counts of the five papers' statements by regime, "
                                              "their split statements, then the errata, beyond-the-paper "
                                              "questions and our own checks, apart")
    board.set_defaults(func=_cmd_scoreboard)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        try:
            return _dispatch(argv)
        finally:
            sys.stdout.flush()  # a closed pipe shows up here, inside the handler below, not at interpreter exit
    except BrokenPipeError:
        return _closed_pipe()
    except KeyboardInterrupt:  # Ctrl-C outside a run (which says what it stopped itself): one line, no traceback
        print("interrupted", file=sys.stderr)
        return INTERRUPTED


#: options of papermill's command line that ``run`` does not take
PAPERMILL_OPTIONS = ("-p", "-y", "-r", "--parameters", "--parameters_yaml", "--parameters_raw")


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] == "sts":
        return _cmd_sts(argv[1:])
    if argv and argv[0] == "notebooks":
        from companion.publish import notebook_outputs

        return notebook_outputs.main(argv[1:])
    if argv and argv[0] == "pipeline":
        from companion.publish import pipeline

        return pipeline.main(argv[1:])
    parser = build_parser()
    if not argv:  # no command: the commands and the first steps, as an error (nothing was done)
        parser.print_help(sys.stderr)
        return 2
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        hint = ""
        if args.command == "run" and any(a.split("=")[0] in PAPERMILL_OPTIONS for a in unknown):
            hint = ("; run sets no notebook parameter but the profile: run one notebook with others through "
                    "papermill, whose -p passes lists as text and -y reads YAML, e.g. papermill "
                    "notebooks/angle/02-sts-experiments.ipynb out.ipynb -p profile cpu -y \"seeds: [0, 1]\"")
        parser.error(f"unrecognized arguments: {' '.join(unknown)}{hint}")
    try:
        return args.func(args)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _closed_pipe() -> int:
    """The reader of standard output went away (``python -m companion scoreboard | head -1``): stop quietly, as a
    program killed by SIGPIPE would, with its exit status 141, and send what is still buffered nowhere."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141


if __name__ == "__main__":
    sys.exit(main())
