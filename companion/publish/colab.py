"""Colab: every notebook's badge and its set-up cell, from one setting.

The GitHub repository is ``[tool.companion] repository = "owner/name"`` in ``pyproject.toml``; empty means none is
known. With a repository, every notebook's first (markdown) cell carries its "Open in Colab" badge, the README's
notebook table and the site pages show the badges, and the set-up cell installs the companion from that
repository. Without one, no badge appears anywhere (no placeholder link), and the set-up cell says on Colab that
there is nothing to install from.

The set-up cell is the notebook's second cell (right after the first markdown cell), tagged ``colab-setup``. On
Colab it clones the repository, installs it with pip, fetches the data (``python -m companion data fetch``) and sets
``COMPANION_REPO_ROOT`` and ``COMPANION_DATA_DIR``; anywhere else it does nothing. ``python -m companion colab``
writes badges and cells into every ``.ipynb`` and its ``.pct.py`` twin, each as jupytext would write it, so that
``jupytext --sync`` leaves the pair alone (idempotent: run it again after a merge or after changing the setting);
stored outputs are left as they are. ``--check`` only reports what is out of date.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from companion import settings as _settings
from companion.publish import notebook_outputs
from companion.publish.notebooks import list_notebooks

BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
COLAB_PREFIX = "https://colab.research.google.com/github/"
BRANCH = "main"
SETUP_TAG = "colab-setup"
SETUP_MARKER = "# Colab set-up"
REPOSITORY_PATTERN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")
#: Any Colab badge line (also an old placeholder one): ``[![Open In Colab](...)](https://colab...)``.
BADGE_LINE = re.compile(r"^\[!\[Open In Colab\]\([^)]*\)\]\(" + re.escape(COLAB_PREFIX) + r"[^)]*\)[ \t]*$")
CLONE_DIR, DATA_DIR = "/content/companion", "/content/companion-data"


def repository(root: str | Path | None = None) -> str | None:
    """``owner/name`` from ``[tool.companion] repository`` in the checkout's ``pyproject.toml``, or ``None``."""
    root = Path(root) if root is not None else _settings.repo_root()
    try:
        config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    value = str(config.get("tool", {}).get("companion", {}).get("repository", "") or "").strip()
    if not value:
        return None
    if not REPOSITORY_PATTERN.fullmatch(value):
        raise ValueError(f"[tool.companion] repository in pyproject.toml must be a GitHub 'owner/name', got {value!r}")
    return value


def badge_url(rel: str, repo: str) -> str:
    """The Colab address of notebook ``rel`` (a path relative to the checkout) in GitHub repository ``repo``."""
    return f"{COLAB_PREFIX}{repo}/blob/{BRANCH}/{rel}"


def badge(rel: str, repo: str | None) -> str:
    """The badge markdown for notebook ``rel``, or ``""`` when no repository is configured."""
    return f"[![Open In Colab]({BADGE_IMAGE})]({badge_url(rel, repo)})" if repo else ""


def with_badge(markdown: str, rel: str, repo: str | None) -> str:
    """A first cell's markdown with exactly the right badge: any Colab badge line is replaced by this notebook's
    (or removed when ``repo`` is None, with the blank line it leaves); a missing badge goes under the title."""
    lines = markdown.split("\n")
    wanted = badge(rel, repo)
    found = [i for i, line in enumerate(lines) if BADGE_LINE.match(line)]
    if wanted and found:
        lines[found[0]] = wanted
        drop = found[1:]
    elif wanted:
        at = 1 if lines and lines[0].startswith("#") else 0
        lines[at:at] = ["", wanted] if at else [wanted, ""]
        drop = []
    else:
        drop = found
    for i in sorted(drop, reverse=True):
        blank_after = i + 1 < len(lines) and not lines[i + 1].strip()
        blank_before = i > 0 and not lines[i - 1].strip()
        del lines[i]
        if blank_after and (blank_before or i == 0):
            del lines[i]
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def setup_source(repo: str | None, wordnet: bool = False) -> str:
    """The set-up cell's code: on Colab, install from ``repo`` and fetch the data; elsewhere nothing."""
    if not repo:
        return (f"{SETUP_MARKER} (does nothing elsewhere). No GitHub repository is configured for this copy of the\n"
                "# companion ([tool.companion] repository in pyproject.toml): there is nothing to install from.\n"
                "import sys\n\n"
                'if "google.colab" in sys.modules:\n'
                '    raise RuntimeError("This copy names no repository to install the companion from; run the notebook '
                "from a clone \"\n"
                '                       "of the repository (README, \'Opening the notebooks\').")')
    extra = '\n    import nltk\n\n    nltk.download("wordnet", quiet=True)' if wordnet else ""
    return (f"{SETUP_MARKER} (does nothing elsewhere): install the companion from GitHub and fetch its data (a few\n"
            "# minutes, once per session).\n"
            "import os\n"
            "import sys\n\n"
            'if "google.colab" in sys.modules:\n'
            "    import importlib\n"
            "    import subprocess\n\n"
            f'    if not os.path.isdir("{CLONE_DIR}"):\n'
            f'        subprocess.run(["git", "clone", "--quiet", "--depth", "1", "https://github.com/{repo}",\n'
            f'                        "{CLONE_DIR}"], check=True)\n'
            f'    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "{CLONE_DIR}"], check=True)\n'
            "    importlib.invalidate_caches()\n"
            "    from companion.__main__ import main\n\n"
            f'    if main(["data", "fetch", "--dest", "{DATA_DIR}"]):\n'
            '        raise RuntimeError("the data fetch failed: see the errors above, then run this cell again")'
            f"{extra}\n"
            f'    os.environ.update(COMPANION_REPO_ROOT="{CLONE_DIR}", COMPANION_DATA_DIR="{DATA_DIR}")')


def _lines(text: str) -> list[str]:
    """A cell source as nbformat stores it: lines with their newline, the last one without."""
    return text.splitlines(keepends=True)


def _is_setup(cell: dict) -> bool:
    return SETUP_TAG in cell.get("metadata", {}).get("tags", []) or \
        "".join(cell.get("source", "")).startswith(SETUP_MARKER)


def updated(nb: dict, rel: str, repo: str | None, wordnet: bool = False) -> dict:
    """The notebook (``.ipynb`` JSON) with its first cell's badge and its set-up cell as they should be; every other
    cell, output and metadata is kept as it is."""
    cells = [dict(c) for c in nb.get("cells", [])]
    if not cells or cells[0].get("cell_type") != "markdown":
        raise ValueError(f"{rel}: the first cell is not markdown (the title, paper and badge go there)")
    first = cells[0]
    first["source"] = _lines(with_badge("".join(first.get("source", "")), rel, repo))
    old = next((c for c in cells[1:] if _is_setup(c)), None)
    rest = [c for c in cells[1:] if not _is_setup(c)]
    setup = dict(old) if old else {"cell_type": "code", "metadata": {}}
    source = _lines(setup_source(repo, wordnet))
    if "".join(setup.get("source", "")) != "".join(source):  # a changed cell has not run: no outputs, no count
        setup.update(outputs=[], execution_count=None)
    setup.update(cell_type="code", source=source)
    setup.setdefault("outputs", [])
    setup.setdefault("execution_count", None)
    setup["metadata"] = {**setup.get("metadata", {}), "tags": [SETUP_TAG]}
    if nb.get("nbformat", 4) >= 4 and nb.get("nbformat_minor", 0) >= 5:
        setup.setdefault("id", SETUP_TAG)
    return {**nb, "cells": [first, setup, *rest]}


def needs_wordnet(twin: Path) -> bool:
    """Whether a notebook uses WordNet (its twin mentions it): its set-up cell also downloads NLTK's copy."""
    return twin.is_file() and "wordnet" in twin.read_text(encoding="utf-8").lower()


_CELL = re.compile(r"^# %%")


def _uncomment(line: str) -> str:
    return "" if line == "#" else line[2:] if line.startswith("# ") else line


def _comment(line: str) -> str:
    return "#" if not line else f"# {line}"


def updated_twin(text: str, rel: str, repo: str | None, wordnet: bool = False) -> str:
    """A ``py:percent`` twin with the same badge and set-up cell as :func:`updated` gives its ``.ipynb``, written the
    way jupytext writes them, so that ``jupytext --sync`` finds the pair consistent and changes neither file."""
    lines = text.split("\n")
    heads = [i for i, line in enumerate(lines) if _CELL.match(line)]
    if not heads or not lines[heads[0]].startswith("# %% [markdown]"):
        raise ValueError(f"{rel}: the twin's first cell is not markdown")
    first, nxt = heads[0], (heads[1] if len(heads) > 1 else len(lines))
    body = lines[first + 1:nxt]
    while body and not body[-1].strip():
        body.pop()
    markdown = with_badge("\n".join(_uncomment(line) for line in body), rel, repo)
    cells = [lines[:first + 1] + [_comment(line) for line in markdown.split("\n")] + [""]]
    for k, head in enumerate(heads[1:], start=1):
        block = lines[head:heads[k + 1] if k + 1 < len(heads) else len(lines)]
        is_setup = SETUP_TAG in block[0] or (len(block) > 1 and block[1].startswith(SETUP_MARKER))
        if not is_setup:
            cells.append(block)
    setup = [f'# %% tags=["{SETUP_TAG}"]', *setup_source(repo, wordnet).split("\n"), ""]
    cells.insert(1, setup)
    return "\n".join(line for block in cells for line in block)


def apply(root: str | Path | None = None, check_only: bool = False) -> list[str]:
    """Bring every notebook's badge and set-up cell up to date, in its ``.ipynb`` and in its ``.pct.py`` twin.
    Returns the files (paths relative to the checkout) that changed, or with ``check_only`` would change."""
    root = Path(root) if root is not None else _settings.repo_root()
    repo = repository(root)
    changed = []
    for nb in list_notebooks(root / "notebooks"):
        rel = nb.path.relative_to(root).as_posix()
        wordnet = needs_wordnet(nb.twin)
        text = nb.path.read_text(encoding="utf-8")
        new = notebook_outputs.dumps(updated(json.loads(text), rel, repo, wordnet))
        twin_text = nb.twin.read_text(encoding="utf-8") if nb.twin.is_file() else None
        new_twin = updated_twin(twin_text, rel, repo, wordnet) if twin_text is not None else None
        for path, old_text, new_text in ((nb.path, text, new), (nb.twin, twin_text, new_twin)):
            if new_text is None or new_text == old_text:
                continue
            changed.append(path.relative_to(root).as_posix())
            if not check_only:
                path.write_text(new_text, encoding="utf-8")
    return changed
