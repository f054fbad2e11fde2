"""The whole pipeline, rehearsed on the smoke profile for one notebook in a clone of the checkout under test: the run
replaces the stored notebook, ledger and figures, its outputs are committed on a branch, the criteria history and
the site pages are regenerated from them, and ``site --check`` passes after the run. The checkout itself is left as
it was."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = "synthesis/00"


def _git(root: Path, *args: str, env: dict | None = None) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True,
                          env=env).stdout


def _needs() -> str | None:
    """Why the rehearsal cannot run here, or None."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        return "not a git checkout"
    if _git(REPO, "rev-parse", "--is-shallow-repository").strip() == "true":
        return "a shallow clone: the criteria history reads every commit (fetch-depth: 0)"
    from companion import settings, wordnet

    try:
        settings.data_dir()
        wordnet.check()
    except FileNotFoundError as exc:
        return f"no data or no WordNet here: {str(exc).splitlines()[0][:120]}"
    return None


def _clone(tmp_path: Path, env: dict) -> Path:
    """A clone of the checkout at its HEAD (objects shared, read only), with the working tree's uncommitted changes
    copied in and committed there: the code and files under test, in a repository the pipeline may commit to."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(REPO), str(clone)], check=True)
    _git(clone, "checkout", "-q", "--detach", _git(REPO, "rev-parse", "HEAD").strip())
    changed = _git(REPO, "ls-files", "-z", "--modified", "--others", "--exclude-standard").split("\0")
    for rel in filter(None, changed):
        source, target = REPO / rel, clone / rel
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        else:
            target.unlink(missing_ok=True)
    if _git(clone, "status", "--porcelain").strip():
        _git(clone, "add", "-A", env=env)
        _git(clone, "commit", "-q", "-m", "the working tree under test", env=env)
    return clone


def _stamp(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("<!-- site inputs:"))


@pytest.mark.slow
def test_the_pipeline_rehearsed_on_one_notebook_ends_with_a_site_check_that_passes(tmp_path):
    reason = _needs()
    if reason:
        pytest.skip(reason)
    identity = {"GIT_AUTHOR_NAME": "pipeline test", "GIT_AUTHOR_EMAIL": "pipeline@example.invalid",
                "GIT_COMMITTER_NAME": "pipeline test", "GIT_COMMITTER_EMAIL": "pipeline@example.invalid"}
    env = {**os.environ, **identity, "MPLBACKEND": "Agg"}
    env.pop("COMPANION_REPO_ROOT", None)
    env.pop("COMPANION_RESULTS_DIR", None)
    env.pop("COMPANION_FIGURES_DIR", None)
    before = (_git(REPO, "rev-parse", "HEAD"), _git(REPO, "status", "--porcelain"))
    clone = _clone(tmp_path, env)
    start = _git(clone, "rev-parse", "HEAD").strip()
    env["PYTHONPATH"] = str(clone)  # the clone's package, so its checkout is the one the steps read and write
    done = subprocess.run([sys.executable, "-m", "companion", "pipeline", "--profile", "smoke", "--only", NOTEBOOK,
                           "--rehearse", "--publish", "commit", "--branch", "rehearsal", "--no-render"],
                          cwd=clone, env=env, capture_output=True, text=True, timeout=1800)
    out = done.stdout + done.stderr
    print(out[-6000:])
    assert done.returncode == 0, out[-3000:]
    assert "site configuration ok" in done.stdout and "every ledger was graded with its committed criteria" in out
    assert done.stdout.rstrip().endswith("pipeline finished")

    # two commits on the new branch: the run's outputs, then the history and pages made from them
    log = _git(clone, "log", "--format=%s", f"{start}..rehearsal").splitlines()
    assert log == ["criteria history and site pages regenerated after the smoke run",
                   "smoke run: executed notebooks, ledgers and figures"]
    run_files = set(_git(clone, "diff", "--name-only", f"{start}", "rehearsal~1").split())
    assert {"results/synthesis/00-errata.json", "notebooks/synthesis/00-errata.ipynb"} <= run_files
    assert '"profile": "smoke"' in (clone / "results" / "synthesis" / "00-errata.json").read_text()
    # the run changed the pages' inputs: their stamps had to be written again, as a check before `site` would fail
    old = _stamp(_git(clone, "show", "rehearsal~1:index.qmd"))
    assert old != _stamp((clone / "index.qmd").read_text(encoding="utf-8"))
    assert "data/criteria-history.json" in _git(clone, "diff", "--name-only", "rehearsal~1", "rehearsal").split()
    assert not _git(clone, "status", "--porcelain", "--", "results", "notebooks", "figures", "site", "data").strip()
    # the checkout under test is as it was
    assert (_git(REPO, "rev-parse", "HEAD"), _git(REPO, "status", "--porcelain")) == before
