"""The notebooks: where they are, in which order, what each one is, and its jupytext twin.

``notebooks/<paper>/<NN>-<section>.ipynb``, in the registry's paper order (:mod:`companion.paper_registry`) then
section order, each paired with a py:percent twin ``<NN>-<section>.pct.py``. The runner, the stored-output checks, the
Colab cells and the site all read the notebooks through :func:`list_notebooks`.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass
from pathlib import Path

from companion import paper_registry as _papers
from companion import settings as _settings
from companion.papers.angle import settings as angle
from companion.papers.weighted_cl import settings as weighted_cl

# The jupytext twin of ``NN-name.ipynb`` is ``NN-name.pct.py`` (jupytext.toml). It must not share the notebook's
# stem: Quarto treats an .ipynb with a same-stem source file (.py, .qmd, ...) as that source's intermediate and
# silently leaves it out of the site.
TWIN_SUFFIX = ".pct.py"


def __getattr__(name: str):
    """``NOTEBOOK_ROOT`` (``<checkout>/notebooks``) is looked up when used, so importing this module needs no
    checkout."""
    if name == "NOTEBOOK_ROOT":
        return _settings.repo_root() / "notebooks"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def twin_path(notebook: str | Path) -> Path:
    """The py:percent twin of a notebook path (``01-x.ipynb`` -> ``01-x.pct.py``)."""
    notebook = Path(notebook)
    return notebook.with_name(notebook.stem + TWIN_SUFFIX)


def twin_differences(notebook: str | Path) -> list[str]:
    """Where a stored notebook and its py:percent twin disagree (cell count, kinds, sources): empty when they hold
    the same cells. Outputs and metadata are not compared (the twin has none)."""
    import jupytext  # noqa: PLC0415 - optional dependency (the `dev` extra)
    import nbformat  # noqa: PLC0415 - nbformat is heavy; this module imports without it

    notebook = Path(notebook)
    twin = twin_path(notebook)
    if not twin.is_file():
        return [f"{notebook.name} has no twin {twin.name}"]
    got = [(c.cell_type, c.source.strip()) for c in nbformat.read(notebook, as_version=4).cells]
    want = [(c.cell_type, c.source.strip()) for c in jupytext.read(twin).cells]
    out = [f"cell {i} differs between {notebook.name} and {twin.name}" for i, (a, b) in enumerate(zip(got, want))
           if a != b]
    if len(got) != len(want):
        out.append(f"{len(got)} cells in {notebook.name}, {len(want)} in {twin.name}")
    return out


@dataclass(frozen=True)
class Notebook:
    path: Path
    paper: str
    stem: str
    title: str

    @property
    def key(self) -> str:
        """``<paper>/<stem>``, the name patterns match against."""
        return f"{self.paper}/{self.stem}"

    def ledger_profile(self, results: Path) -> str | None:
        """The profile of this notebook's ledger under ``results`` (``<results>/<paper>/<stem>.json``); None when
        there is none or it cannot be read."""
        try:
            return json.loads((results / self.paper / f"{self.stem}.json").read_text(encoding="utf-8")).get("profile")
        except (OSError, ValueError, AttributeError):
            return None

    @property
    def twin(self) -> Path:
        """The notebook's jupytext py:percent twin."""
        return twin_path(self.path)


def _title(path: Path) -> str:
    """The first markdown heading of the notebook (its section), or the file stem."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return path.stem
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            for line in "".join(cell.get("source", "")).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return path.stem


def paper_of(notebook: str | Path) -> str:
    """The paper a notebook path belongs to, from its folder: the registry entry whose notebook folder it is
    (``notebooks/00-baselines/x.ipynb`` -> ``baselines``), else the folder name without an ``NN-`` prefix. The one
    mapping from a notebook to its ledger folder ``results/<paper>/``."""
    folder = Path(notebook).parent.name
    entry = _papers.by_folder(folder)
    return entry.id if entry is not None else re.sub(r"^\d\d-", "", folder)


def _rank(path: Path) -> tuple[int, str, str]:
    paper = paper_of(path)
    return (_papers.IDS.index(paper) if paper in _papers.IDS else len(_papers.IDS), paper, path.name)


def list_notebooks(root: Path | None = None) -> list[Notebook]:
    """All ``notebooks/<paper>/<NN>-<section>.ipynb`` in paper then section order."""
    root = Path(root) if root is not None else _settings.repo_root() / "notebooks"
    found = []
    for path in sorted(root.glob("*/[0-9][0-9]-*.ipynb"), key=_rank):
        if ".ipynb_checkpoints" in path.parts:
            continue
        found.append(Notebook(path=path, paper=paper_of(path), stem=path.stem, title=_title(path)))
    return found


def select(notebooks: list[Notebook], only: str | None) -> list[Notebook]:
    """Notebooks whose ``paper/stem`` matches any comma-separated glob or substring in ``only``; every notebook
    for ``None``. A selection without a pattern (``""``, ``","``) is an error, not "every notebook"."""
    if only is None:
        return notebooks
    patterns = [p.strip() for p in only.split(",") if p.strip()]
    if not patterns:
        raise ValueError(f"Empty selection --only {only!r}: give globs or substrings of paper/notebook, e.g. "
                         "'circumplex/0*' (python -m companion list shows them), or leave --only out for every "
                         "notebook")
    chosen = [nb for nb in notebooks
              if any(fnmatch.fnmatch(nb.key, p) or p in nb.key for p in patterns)]
    if not chosen:
        known = ", ".join(nb.key for nb in notebooks) or "(none)"
        raise ValueError(f"No notebook matches {only!r}; available: {known}")
    return chosen


def all_settings() -> dict:
    """Every notebook's settings, ``<paper>/<stem>`` -> its :class:`companion.profiles.Profiles`, from the papers'
    settings modules (``companion/papers/<paper>/settings.py``): what the gpu plan prices, the site's settings tables
    show and the tests check, the same objects the notebooks call."""
    # imported here, not at the top: the settings modules load torch and the papers' code, which the notebook list,
    # the runner's start-up and `python -m companion list` do not need
    from companion.papers.baselines import settings as baselines  # noqa: PLC0415 - loads scipy; this module imports without it
    from companion.papers.circumplex import settings as circumplex  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.papers.concepts import settings as concepts  # noqa: PLC0415 - loads scipy; this module imports without it
    from companion.papers.simace import settings as simace  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.papers.synthesis import settings as synthesis  # noqa: PLC0415 - loads torch; this module imports without it

    out: dict = {}
    for module in (baselines, circumplex, simace, weighted_cl, concepts, angle, synthesis):
        out.update(module.NOTEBOOKS)
    return out


def notebook_settings(key: str):
    """The :class:`companion.profiles.Profiles` of notebook ``key`` (``<paper>/<stem>``, as :class:`Notebook` names
    it); a one-line error for a notebook without one."""
    found = all_settings()
    if key not in found:
        raise ValueError(f"No settings for notebook {key!r}: add its Profiles to its paper's settings module "
                         "(companion/papers/<paper>/settings.py, NOTEBOOKS).")
    return found[key]


__all__ = ["TWIN_SUFFIX", "Notebook", "all_settings", "list_notebooks", "notebook_settings", "paper_of", "select",
           "twin_differences", "twin_path"]
