"""What every part of the site reads: the pages' paths, the paper registry's titles and order, the notebooks, the
ledgers, where each claim is decided (claim -> notebook cell), markdown tables and links.

The other modules of :mod:`companion.publish.site` build on this one; it imports none of them.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from companion import paper_registry as _papers
from companion.publish import apidoc, colab
from companion.publish.notebooks import list_notebooks
from companion.publish.site import format as fmt
from companion.results import load_ledgers
from companion.settings import REPO_ROOT, results_dir

CONFIG = "_quarto.yml"
LANDING = "index.qmd"
ERRATA_PAGE = "site/errata.qmd"
RUN_PAGE = "site/run-it-yourself.qmd"
SENTENCES_PAGE = "site/sentences.qmd"
PAPER_PAGES = "site/papers"
EXTRA_PAGES = (LANDING, ERRATA_PAGE, SENTENCES_PAGE, RUN_PAGE, apidoc.USE_PAGE)
BENCHMARK_REPORT = "benchmarks/report.json"
STYLESHEET = "site/styles.css"  # keeps link words in tables whole (see the file)

PAPERS: dict[str, dict[str, str]] = {p.id: {"title": p.title, "reference": p.reference, "url": p.url}
                                     for p in _papers.REGISTRY}
REPRODUCED_PAPERS = _papers.REPRODUCED  # notebooks that name a section


# --------------------------------------------------------------------------------------------- small helpers
def _root(root: Path | None) -> Path:
    return Path(root) if root is not None else REPO_ROOT


def _base(page: str) -> str:
    """Relative prefix from ``page`` (a path relative to the repository root) back to the root."""
    depth = len(Path(page).parent.parts)
    return "../" * depth


def paper_page(paper: str) -> str:
    return f"{PAPER_PAGES}/{paper}.qmd"


def _cell_text(value: Any) -> str:
    text = "" if value is None else (json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list))
                                     else str(value))
    return text.replace("|", "\\|").replace("\n", " ")


def md_table(headers: list[str], rows: list[list[Any]]) -> str:
    """A pipe table (valid Pandoc/Quarto markdown); ``|`` and newlines in cells are escaped.

    A table with a line wider than Pandoc's 72 columns gets relative column widths from its separator dashes
    (Quarto applies them to a table without links): the dashes follow each column's content
    (:func:`companion.publish.site.format.column_widths`) rather than splitting the page into equal columns."""
    cells = [[_cell_text(c) for c in row] for row in rows]
    body = ["| " + " | ".join(headers) + " |"] + ["| " + " | ".join(row) + " |" for row in cells]
    dashes = [3] * len(headers)
    if any(len(line) > fmt.PANDOC_COLUMNS for line in body):
        dashes = fmt.column_widths(headers, cells)
    return "\n".join([body[0], "|" + "|".join("-" * d for d in dashes) + "|", *body[1:]])


def _read_json(path: Path) -> dict | None:
    try:
        return _load_json(path)
    except (OSError, ValueError):
        return None


@functools.lru_cache(maxsize=256)
def _json_cached(path: str, mtime_ns: int, size: int) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _load_json(path: Path) -> Any:
    """Parsed JSON of ``path``, cached on (path, mtime, size): the site reads each executed notebook many times."""
    stat = Path(path).stat()
    return _json_cached(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _notebooks_cached(folder: str, stamp: tuple) -> tuple:
    return tuple(list_notebooks(Path(folder)))


def _notebooks(root: Path):
    folder = root / "notebooks"
    stamp = tuple(sorted((str(p), p.stat().st_mtime_ns) for p in folder.glob("*/[0-9][0-9]-*.ipynb")))
    return list(_notebooks_cached(str(folder), stamp))


def _paper_ids(root: Path) -> list[str]:
    return list(dict.fromkeys(nb.paper for nb in _notebooks(root)))


def _results_dir(root: Path) -> Path:
    return root / "results" if root != REPO_ROOT else results_dir()


def _ledgers(root: Path) -> list[dict]:
    return load_ledgers(_results_dir(root))


# --------------------------------------------------------------------------------------------- claim -> cell
_CLAIM_CALL = re.compile(r"\.claim\(\s*(f?)(['\"])(.*?)\2", re.S)


# A cell whose claims come from a helper (``for c in table4_claims(...): ledger.claim(**c)``) names their ids in a
# comment: ``# claims: {ds}:circular-lowest-V:{head}, {ds}:trained-beat-pretrained-V`` ({...} = any text).
_CLAIMS_COMMENT = re.compile(r"^\s*#\s*claims:\s*(.+)$", re.M)


def _claim_patterns(source: str) -> list[re.Pattern]:
    """Regexes for the ids that ``ledger.claim(...)`` calls in ``source`` can produce (f-strings become wildcards),
    and for the id templates a ``# claims: ...`` comment lists."""
    found = [(bool(is_f), text) for is_f, _, text in _CLAIM_CALL.findall(source)]
    found += [(True, t.strip()) for line in _CLAIMS_COMMENT.findall(source) for t in line.split(",") if t.strip()]
    out = []
    for is_f, text in found:
        if is_f:
            parts = re.split(r"\{[^{}]*\}", text)
            out.append(re.compile(".+?".join(re.escape(p) for p in parts) + r"\Z"))
        else:
            out.append(re.compile(re.escape(text) + r"\Z"))
    return out


def claim_cells(nb_path: Path, ids: list[str]) -> dict[str, int]:
    """For each claim id, the index (0-based, every cell counted) of the notebook cell that records it.

    A cell records an id when its source quotes the id, or when one of its ``.claim(f"...")`` calls is an f-string
    whose literal parts match the id. Ids that resolve to no cell are left out (the site check reports them)."""
    try:
        cells = _load_json(Path(nb_path))["cells"]
    except (OSError, ValueError, KeyError):
        return {}
    sources = [("".join(c.get("source", "")), c.get("cell_type")) for c in cells]
    found: dict[str, int] = {}
    for claim_id in ids:
        for i, (src, kind) in enumerate(sources):
            if kind == "code" and (f'"{claim_id}"' in src or f"'{claim_id}'" in src):
                found[claim_id] = i
                break
        else:
            for i, (src, kind) in enumerate(sources):
                if kind == "code" and any(p.match(claim_id) for p in _claim_patterns(src)):
                    found[claim_id] = i
                    break
    return found


def _notebook_path(root: Path, paper: str, stem: str) -> Path | None:
    for nb in _notebooks(root):
        if nb.paper == paper and nb.stem == stem:
            return nb.path
    return None


def claim_locations(root: Path | None = None) -> dict[tuple[str, str, str], tuple[str, int]]:
    """``(paper, notebook, claim id) -> (notebook path relative to the root, 0-based cell index)``."""
    root = _root(root)
    out = {}
    for ledger in _ledgers(root):
        path = _notebook_path(root, ledger["paper"], ledger["notebook"])
        if path is None:
            continue
        rel = path.relative_to(root).as_posix()
        cells = claim_cells(path, [c["id"] for c in ledger["claims"]])
        for claim_id, index in cells.items():
            out[(ledger["paper"], ledger["notebook"], claim_id)] = (rel, index)
    return out


def _cell_link(location: tuple[str, int] | None, base: str) -> str:
    if location is None:
        return "(cell not found)"
    rel, index = location
    return f"[{Path(rel).stem}, cell {index + 1}]({base}{rel})"


# --------------------------------------------------------------------------------------------- papers: order, titles, repository
def _paper_order(paper: str) -> int:
    order = list(PAPERS)
    return order.index(paper) if paper in order else len(order)


def _title(paper: str) -> str:
    return PAPERS.get(paper, {"title": paper})["title"]


def github_repo(root: Path = REPO_ROOT) -> str | None:
    """``owner/name`` of the GitHub repository: ``[tool.companion] repository`` in ``pyproject.toml``, the one
    setting behind every Colab badge and set-up cell (``companion.publish.colab``); ``None`` when none is configured."""
    return colab.repository(root)


# --------------------------------------------------------------------------------------------- links and page cells
_MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_LINK = re.compile(r"(?:href|src)=\"([^\"]+)\"")


def links(text: str) -> list[str]:
    """Every markdown link/image target and HTML href/src in ``text``."""
    return _MD_LINK.findall(text) + _HTML_LINK.findall(text)


def python_cells(qmd_text: str) -> list[str]:
    """The code of every ```{python} cell of a Quarto page, in order."""
    return re.findall(r"^```\{python\}[^\n]*\n(.*?)^```\s*$", qmd_text, flags=re.S | re.M)
