"""From a run to a pull request in one command: ``python -m companion pipeline --profile gpu --publish pr``.

The steps, in order (:func:`steps` lists them, ``--print-steps`` prints them and runs nothing):

1. **set-up**: WordNet (``wordnet fetch``) and the data (``data check``, and ``data fetch`` only when the check
   fails, so a folder already complete, restored from a cache say, is never downloaded again); the gpu profile also
   checks and fetches the whole files it reads (:data:`PROFILE_DATA`). Every step reads and writes one data folder
   (:func:`data_root`), passed on as ``COMPANION_DATA_DIR``.
2. **run**: the gpu profile's dry run first (its code path in seconds, before hours of GPU), then ``run --profile P``.
   A notebook that fails stops nothing: the others are written in place and published, and the pipeline ends with
   exit status 1 (a refused run, the gpu profile without CUDA say, stops it).
3. **commit the run** on a new branch (``--publish commit`` or ``pr``): the executed notebooks, ``results/`` and
   ``figures/``. It comes before the next step because the registration history is read from the commits.
4. **regenerate**: ``criteria history``, then ``site`` (the generated pages and their inputs stamps, which cover
   every ledger, provenance file and executed notebook, so any run changes them).
5. **check**: ``site --check`` and ``criteria check``; a problem stops the pipeline before anything is published.
6. **commit the pages** (the history, ``_quarto.yml``, ``index.qmd``, ``site/``, the README's notebook table).
7. **render**: ``quarto render`` when Quarto is installed, else one line saying it was skipped.
8. **publish** (``--publish pr``): push the branch and open a pull request with ``gh``; where no token
   (``GH_TOKEN`` or ``GITHUB_TOKEN``) or no ``gh`` is there, the exact ``git push`` and ``gh pr create`` commands
   are printed instead.

``--rehearse`` (smoke profile only) is the pipeline's own check, for a throwaway clone: the smoke run's outputs take
the place of the stored ones, as a gpu run's would, so every later step runs on changed ledgers and notebooks. The
smoke profile's placeholder verdicts are never pushed (``--publish pr`` refuses it).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from companion import settings as _settings
from companion.profiles import PROFILES
from companion.publish.notebooks import list_notebooks

Command = tuple[str, ...]

#: the data each profile reads beyond the mirror: the gpu profile's whole files (``data fetch --only``)
PROFILE_DATA: dict[str, tuple[str, ...]] = {"gpu": ("wiki-full", "snli-train", "mnli-train")}
#: what a run writes in place (committed first) and what the regeneration writes (committed after the checks)
RUN_OUTPUTS = ("results", "notebooks", "figures")
SITE_OUTPUTS = ("data/criteria-history.json", "_quarto.yml", "index.qmd", "site", "README.md")
PUBLISH = ("none", "commit", "pr")
TOKENS = ("GH_TOKEN", "GITHUB_TOKEN")
QUARTO_SKIP = ("Quarto is not installed: the site is not rendered (install it from https://quarto.org, then run "
               "`quarto render` here)")


@dataclass(frozen=True)
class Step:
    """One step: ``commands`` run in order (the first failure ends the step), or ``action``, a Python function
    returning an exit status. ``unless``: a command whose success means the step is not needed (``data check``
    before ``data fetch``; ``unless_note`` says so); ``skip``: why the step does not run; ``show_only``: print the
    commands, run nothing; ``tolerate``: exit statuses that are remembered (exit status 1 at the end) but let the
    next steps run (a run whose some notebooks failed exits 1; a refused run, 2, stops the pipeline)."""

    name: str
    commands: tuple[Command, ...] = ()
    unless: Command | None = None
    unless_note: str = "nothing to do"
    action: Callable[[], int] | None = field(default=None, compare=False)
    describe: str = ""
    skip: str | None = None
    show_only: bool = False
    tolerate: tuple[int, ...] = ()


@dataclass(frozen=True)
class Options:
    profile: str = "smoke"
    only: str | None = None
    jobs: int = 1
    timeout: int | None = None
    allow_cpu: bool = False
    publish: str = "none"
    branch: str | None = None
    base: str | None = None
    remote: str = "origin"
    data_url: str | None = None
    rehearse: bool = False
    render: bool = True

    def check(self) -> None:
        """Refuse what cannot make sense, before anything runs (``ValueError``, one line)."""
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r}; one of {', '.join(PROFILES)}")
        if self.publish not in PUBLISH:
            raise ValueError(f"--publish is one of {', '.join(PUBLISH)}, got {self.publish!r}")
        if self.rehearse and self.profile != "smoke":
            raise ValueError("--rehearse is the smoke profile's rehearsal of the pipeline (in a throwaway clone); "
                             f"the {self.profile} profile writes in place by itself")
        if self.profile == "smoke" and self.publish == "pr":
            raise ValueError("the smoke profile's verdicts are placeholders and are never published: use "
                             "--publish commit (a local branch) or none")


def python(*args: str) -> Command:
    """``python -m companion ARGS`` with this interpreter."""
    return (sys.executable, "-m", "companion", *args)


def display(command: Sequence[str]) -> str:
    """A command as a reader types it (this interpreter written ``python``)."""
    return shlex.join(["python" if c == sys.executable else c for c in command])


def data_root() -> Path:
    """The one data folder of a pipeline: ``COMPANION_DATA_DIR``, else the first existing folder where the loaders
    look (:func:`companion.settings.data_dir_candidates`), else ``<cache>/data``, where ``data fetch`` writes."""
    explicit = os.environ.get("COMPANION_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser().resolve()
    candidates = _settings.data_dir_candidates()
    return next((c for c in candidates if c.is_dir()), candidates[-1])


def default_branch(profile: str) -> str:
    return f"reproduce/{profile}-{time.strftime('%Y%m%d-%H%M%S')}"


def pr_text(opts: Options) -> tuple[str, str]:
    """The pull request's title and body."""
    what = f"notebooks {opts.only}" if opts.only else "every notebook"
    title = f"Reproduction: the {opts.profile} profile's run of {what}"
    body = (f"Written by `python -m companion pipeline --profile {opts.profile}`: the executed notebooks, ledgers "
            "(`results/`) and figures of the run, then the registration history and the site's pages regenerated "
            "from them; `site --check` and `criteria check` passed before this was pushed. A notebook whose run "
            "failed is not in it (its stored outputs are unchanged; the job's log names it).")
    return title, body


def steps(opts: Options, data: Path, which: Callable[[str], str | None] = shutil.which,
          environ: dict[str, str] | None = None, rehearsal: Path | str = "<temporary folder>",
          place: Callable[[], int] | None = None) -> list[Step]:
    """The pipeline's steps for ``opts`` (module docstring), reading and writing the data in ``data``. ``which``
    finds a program (``quarto``, ``gh``), ``environ`` holds the token; ``rehearsal`` is the smoke run's output
    folder of ``--rehearse`` and ``place`` puts its outputs in place (:func:`place_outputs`)."""
    opts.check()
    environ = os.environ if environ is None else environ
    selection = ("--only", opts.only) if opts.only else ()
    out = [Step("wordnet", (python("wordnet", "fetch"),))]
    fetch = ("--base-url", opts.data_url) if opts.data_url else ()
    complete = "the data is complete: nothing fetched"
    out.append(Step("data", (python("data", "fetch", "--dest", str(data), "--quiet", *fetch),),
                    unless=python("data", "check", str(data)), unless_note=complete))
    if opts.profile in PROFILE_DATA:
        names = ",".join(PROFILE_DATA[opts.profile])
        out.append(Step(f"data ({opts.profile} profile)",
                        (python("data", "fetch", "--dest", str(data), "--only", names, "--quiet", *fetch),),
                        unless=python("data", "check", str(data), "--only", names), unless_note=complete))
    if opts.profile == "gpu":
        out.append(Step("dry run", (python("run", "--profile", "gpu", "--dry-run", *selection),)))
    run = python("run", "--profile", opts.profile, "--jobs", str(opts.jobs), *selection)
    run += ("--timeout", str(opts.timeout)) if opts.timeout else ()
    run += ("--allow-cpu",) if opts.allow_cpu else ()
    run += ("--output-dir", str(rehearsal)) if opts.rehearse else ()
    out.append(Step("run", (run,), tolerate=(1,)))
    if opts.rehearse:
        out.append(Step("place", action=place, describe="the smoke outputs take the place of the stored ones"))
    committing = opts.publish != "none"
    branch = opts.branch or default_branch(opts.profile)
    if committing:
        out.append(Step("branch", (("git", "switch", "-c", branch),)))
        out += _commit("run", RUN_OUTPUTS, f"{opts.profile} run: executed notebooks, ledgers and figures")
    out.append(Step("criteria history", (python("criteria", "history"),)))
    out.append(Step("site", (python("site"),)))
    out.append(Step("check", (python("site", "--check"), python("criteria", "check"))))
    if committing:
        out += _commit("pages", SITE_OUTPUTS, f"criteria history and site pages regenerated after the {opts.profile} "
                       "run")
    out.append(Step("render", (("quarto", "render"),),
                    skip="not asked (--no-render)" if not opts.render else None if which("quarto") else QUARTO_SKIP))
    if opts.publish == "pr":
        title, body = pr_text(opts)
        base = ("--base", opts.base) if opts.base else ()
        token = next((name for name in TOKENS if environ.get(name)), None)
        out.append(Step("publish", (("git", "push", "--set-upstream", opts.remote, branch),
                                    ("gh", "pr", "create", *base, "--head", branch, "--title", title,
                                     "--body", body)),
                        show_only=token is None or which("gh") is None))
    return out


def _commit(what: str, paths: tuple[str, ...], message: str) -> list[Step]:
    """Stage ``paths``, then commit them unless nothing was staged (a run that changed nothing commits nothing)."""
    return [Step(f"stage {what}", (("git", "add", "-A", "--", *paths),)),
            Step(f"commit {what}", (("git", "commit", "-q", "-m", message),),
                 unless=("git", "diff", "--cached", "--quiet"), unless_note="nothing changed: no commit")]


def place_outputs(scratch: Path, root: Path, results: Path | None = None, figures: Path | None = None) -> int:
    """Copy a smoke run's outputs from ``scratch`` (the runner's ``--output-dir``) over the stored ones: each
    executed notebook to its place under ``root/notebooks``, ``scratch/results`` to ``results`` and
    ``scratch/figures`` to ``figures`` (the checkout's by default). Returns 0, or 1 when the run left nothing."""
    results = results or root / "results"
    figures = figures or root / "figures"
    stored = {(nb.paper, nb.path.name): nb.path for nb in list_notebooks(root / "notebooks")}
    copied = 0
    for path in sorted((scratch / "notebooks").glob("*/*.ipynb")):
        target = stored.get((path.parent.name, path.name))
        if target is not None:
            shutil.copy2(path, target)
            copied += 1
    for source, dest in ((scratch / "results", results), (scratch / "figures", figures)):
        for path in sorted(p for p in source.rglob("*") if p.is_file()):
            target = dest / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    print(f"placed {copied} executed notebook(s) with their ledgers and figures")
    return 0 if copied else 1


def subprocess_call(root: Path, env: dict[str, str]) -> Callable[[Command], int]:
    """Run a command in ``root`` with ``env``; its exit status (127 when the program is not there)."""

    def call(command: Command) -> int:
        try:
            return subprocess.run(list(command), cwd=root, env=env, check=False).returncode
        except FileNotFoundError:
            print(f"error: {command[0]} is not installed", file=sys.stderr)
            return 127

    return call


def execute(plan: list[Step], call: Callable[[Command], int], echo: Callable[[str], None] = print) -> int:
    """Run ``plan`` in order through ``call`` (a command -> its exit status); returns the pipeline's exit status:
    that of the first failing step (the later ones do not run), else 1 when a step failed with a status it
    tolerates, else 0."""
    failed = []
    for step in plan:
        if step.skip:
            echo(f"== {step.name}: skipped: {step.skip}")
            continue
        if step.show_only:
            echo(f"== {step.name}: no token or no gh here; to publish, run:")
            for command in step.commands:
                echo(f"   {display(command)}")
            continue
        if step.unless is not None:
            echo(f"== {step.name}: $ {display(step.unless)}")
            if call(step.unless) == 0:
                echo(f"== {step.name}: {step.unless_note}")
                continue
        rc = 0
        if step.action is not None:
            echo(f"== {step.name}: {step.describe}")
            rc = step.action()
        for command in step.commands:
            echo(f"== {step.name}: $ {display(command)}")
            rc = call(command)
            if rc:
                break
        if rc and rc not in step.tolerate:
            echo(f"pipeline stopped at {step.name} (exit status {rc})")
            return rc
        if rc:
            failed.append(step.name)
    if failed:
        echo(f"pipeline finished, but {', '.join(failed)} failed: see above")
        return 1
    echo("pipeline finished")
    return 0


def dirty(root: Path) -> list[str]:
    """Changes not committed under what the pipeline commits (``git status --porcelain``), which its commits would
    sweep in."""
    done = subprocess.run(["git", "status", "--porcelain", "--", *RUN_OUTPUTS, *SITE_OUTPUTS], cwd=root,
                          capture_output=True, text=True, check=False)
    return [line for line in done.stdout.splitlines() if line.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m companion pipeline",
        description="From a run to a pull request in one command: WordNet and the data (fetched only when 'data "
                    "check' fails), the run, a commit of its outputs on a new branch, the criteria history and the "
                    "site pages regenerated from them, 'site --check' and 'criteria check', quarto render, then the "
                    "branch pushed with a pull request (or the commands printed without a token).",
        epilog="the steps, run nothing: python -m companion pipeline --profile gpu --publish pr --print-steps")
    parser.add_argument("--profile", default="smoke", help=f"one of {', '.join(PROFILES)} (default smoke)")
    parser.add_argument("--only", help="notebooks, as in 'run --only'")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks at once, as in 'run --jobs'")
    parser.add_argument("--timeout", type=int, help="per-cell timeout in seconds, as in 'run --timeout'")
    parser.add_argument("--allow-cpu", action="store_true", help="as in 'run --allow-cpu'")
    parser.add_argument("--publish", default="none", choices=PUBLISH,
                        help="none: commit nothing (default); commit: the run and the pages on a new local branch; "
                             "pr: that, pushed, with a pull request (gh), or the commands printed without a token")
    parser.add_argument("--branch", help="the new branch (default reproduce/<profile>-<date>-<time>)")
    parser.add_argument("--base", help="the pull request's base branch (default: gh's, the repository's default)")
    parser.add_argument("--remote", default="origin", help="where the branch is pushed (default origin)")
    parser.add_argument("--data-url", help="fetch the data from this mirror, as 'data fetch --base-url'")
    parser.add_argument("--rehearse", action="store_true",
                        help="smoke only, in a throwaway clone: the smoke outputs replace the stored ones, so every "
                             "later step runs as after a real run")
    parser.add_argument("--no-render", dest="render", action="store_false", help="skip quarto render")
    parser.add_argument("--print-steps", action="store_true", help="print the steps' commands, run nothing")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    opts = Options(**{k: v for k, v in vars(args).items() if k != "print_steps"})
    try:
        opts.check()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    root, data = _settings.repo_root(), data_root()
    if args.print_steps:
        for step in steps(opts, data):
            what = (f"skipped: {step.skip}" if step.skip else step.describe if step.action or not step.commands
                    else " && ".join(display(c) for c in step.commands))
            unless = f"unless {display(step.unless)}: " if step.unless else ""
            print(f"{step.name}: {unless}{what}" + (" (printed, not run: no token or no gh)" if step.show_only
                                                    else ""))
        return 0
    if opts.publish != "none" and (changed := dirty(root)):
        print(f"error: {len(changed)} uncommitted change(s) under what the pipeline commits (first: "
              f"{changed[0].strip()}); commit or stash them first", file=sys.stderr)
        return 2
    env = {**os.environ, "COMPANION_DATA_DIR": str(data)}
    scratch = Path(tempfile.mkdtemp(prefix="companion-rehearsal-")) if opts.rehearse else None
    try:
        plan = steps(opts, data, environ=env, rehearsal=scratch or "", place=lambda: place_outputs(scratch, root))
        return execute(plan, subprocess_call(root, env))
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


__all__ = ["Options", "PROFILE_DATA", "Step", "data_root", "execute", "main", "place_outputs", "steps"]
