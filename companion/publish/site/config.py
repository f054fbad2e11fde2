"""The site's configuration: ``_quarto.yml`` with its navigation (navbar, one sidebar per paper: its page then its
notebooks in section order, and the API reference's), every page the site has (:func:`pages`), and the inputs stamp
of the computed pages.

The render uses ``freeze: auto`` (a page's Python runs again only when its source changes); the stamp, a digest of the
ledgers, the executed notebooks and the coverage maps the pages read (:func:`inputs_digest`), changes the source when
the results do.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

import yaml

from companion.publish import apidoc
from companion.publish.site import offline
from companion.publish.site.common import (
    BENCHMARK_REPORT,
    ERRATA_PAGE,
    EXTRA_PAGES,
    LANDING,
    PAPER_PAGES,
    PAPERS,
    RUN_PAGE,
    SENTENCES_PAGE,
    STYLESHEET,
    _notebooks,
    _paper_ids,
    _results_dir,
    _root,
    paper_page,
    python_cells,
)
from companion.settings import REPO_ROOT

# --------------------------------------------------------------------------------------------- configuration
#: the longest sidebar entry of a notebook, in characters (two short lines of the docked sidebar)
SIDEBAR_CHARS = 44


def sidebar_text(nb) -> str:
    """A notebook's short sidebar entry: its number and the heart of its title (``02 · Experiments``), without
    the paper's name, the sections in parentheses or what follows a colon (unless the colon follows a section
    mark: ``SimACE §3: why an angle…`` gives ``why an angle…``)."""
    title = " ".join(str(nb.title).split())
    if " — " in title:
        title = title.split(" — ", 1)[1]
    while re.search(r"\s*\([^()]*\)", title):
        title = re.sub(r"\s*\([^()]*\)", "", title)
    title = re.sub(r"^\d+\s*·\s*", "", title)
    head, colon, tail = title.partition(":")
    title = tail.strip() if colon and "§" in head else head.strip()
    title = title[:1].upper() + title[1:]
    if len(title) > SIDEBAR_CHARS:
        title = title[: SIDEBAR_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;") + "…"
    number = nb.stem.split("-", 1)[0]
    return f"{number} · {title}"


def build_config(root: Path = REPO_ROOT) -> dict:
    """The full ``_quarto.yml`` as a dict."""
    notebooks = _notebooks(root)
    papers = list(dict.fromkeys(nb.paper for nb in notebooks))  # list_notebooks is already in paper order
    sidebars = []
    for paper in papers:
        contents = [paper_page(paper)] + [{"href": str(nb.path.relative_to(root)), "text": sidebar_text(nb)}
                                          for nb in notebooks if nb.paper == paper]
        sidebars.append({"id": paper, "title": PAPERS.get(paper, {"title": paper})["title"],
                         "contents": contents})
    return {
        "project": {"type": "website", "output-dir": "_site",
                    "render": [LANDING, "site/*.qmd", f"{PAPER_PAGES}/*.qmd", f"{apidoc.API_DIR}/*.qmd",
                               "notebooks/*/[0-9][0-9]-*.ipynb"],
                    "post-render": [offline.POST_RENDER]},
        # a render reuses each computed page's stored output until its source changes; the source carries a digest
        # of everything the page reads (inputs_stamp), so a new run of the notebooks changes it; a Python warning
        # raised while a page computes (tqdm's, naming the build machine's paths) goes to the log, not the page
        "execute": {"freeze": "auto", "warning": False},
        "website": {
            "title": "Geometry of embedding learning: reproductions",
            "navbar": {"left": [{"href": LANDING, "text": "Scoreboard"},
                                {"text": "Papers", "menu": [{"text": s["title"], "href": s["contents"][0]}
                                                            for s in sidebars]},
                                {"href": ERRATA_PAGE, "text": "Errata"},
                                {"href": SENTENCES_PAGE, "text": "Sentences"},
                                {"href": RUN_PAGE, "text": "Run it yourself"},
                                apidoc.navbar_item(root)]},
            "sidebar": [*sidebars, apidoc.sidebar(root)],
        },
        # long code lines wrap at the column instead of scrolling sideways (checks.code_overflow_problems); formulas
        # as MathML, no web font, the claims tables' script inline and the CDN widget scripts stripped after the
        # render: a downloaded copy works offline (companion.publish.site.offline)
        # the text column 1000 px wide (Quarto's default 800): the notebooks' figures, drawn 10 inches wide, were
        # shown at 57-59 % of their width in the default column at 1400 px (a measured render)
        "format": {"html": {"theme": ["cosmo", offline.THEME_SCSS], "css": STYLESHEET, "toc": True,
                            "grid": {"body-width": "1000px"},
                            "code-fold": True, "code-tools": True, "code-overflow": "wrap",
                            "html-math-method": offline.MATH_METHOD,
                            "include-after-body": list(offline.INCLUDES)}},
    }


HEADER = ("# Generated by `python -m companion site` from notebooks/ - edit companion/publish/site/config.py, not "
          "this file.\n")


def render_config(root: Path = REPO_ROOT) -> str:
    return HEADER + yaml.safe_dump(build_config(root), sort_keys=False, allow_unicode=True, width=110)


# --------------------------------------------------------------------------------------------- frozen pages
#: The computed pages (those with Python cells) are rendered with ``freeze: auto``: Quarto re-executes a page only
#: when its source changes. What they show comes from the ledgers, the executed notebooks and ``data/``, so each
#: carries a digest of those inputs in a comment, written by ``python -m companion site`` and checked by
#: ``--check``: new results change the digest, hence the source, hence the page is recomputed on the next render.
INPUTS_STAMP = re.compile(r"^<!-- site inputs: (?P<digest>[0-9a-f]+)\b[^\n]*-->[ \t]*\n?", re.M)
STAMP_NOTE = "written by `python -m companion site`; a frozen render recomputes this page when it changes"


def input_files(root: Path | None = None) -> list[Path]:
    """Every file the computed pages read: the ledgers and their provenance, the executed notebooks, the coverage
    maps, the statements the rule cannot decide, the registration history, the benchmark report,
    ``pyproject.toml`` and the code that writes the pages (``companion/publish/site/*.py``)."""
    root = _root(root)
    results = _results_dir(root)
    files = [*results.glob("*/*.json"), *(root / "notebooks").glob("*/[0-9][0-9]-*.ipynb"),
             *(root / "data").glob("*/coverage.csv"), *(root / "data").glob("*/statements.csv"),
             root / "data" / "statement-titles.csv",
             *(root / "data").glob("*/sentences.csv"), root / "data" / "criteria-history.json", root / BENCHMARK_REPORT, root / "pyproject.toml",
             *Path(__file__).parent.glob("*.py")]
    return sorted({f for f in files if f.is_file()}, key=lambda f: f.as_posix())


def inputs_digest(root: Path | None = None) -> str:
    """A short SHA-256 of :func:`input_files` (names relative to the root, and contents); computed once per state
    of the files (their sizes and modification times)."""
    root = _root(root)
    files = []
    for path in input_files(root):
        try:
            name = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:  # the package's own code, outside a test's root
            name = f"{path.parent.name}/{path.name}"
        stat = path.stat()
        files.append((name, str(path), stat.st_mtime_ns, stat.st_size))
    return _digest(tuple(files))


@functools.lru_cache(maxsize=32)
def _digest(files: tuple) -> str:
    digest = hashlib.sha256()
    for name, path, _, _ in files:
        digest.update(name.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def is_computed(text: str) -> bool:
    """Whether a page runs Python when rendered (and so is frozen)."""
    return bool(python_cells(text))


def stamp_inputs(text: str, digest: str) -> str:
    """``text`` with its inputs stamp set to ``digest``: replaced where it is, else put after the front matter."""
    line = f"<!-- site inputs: {digest} ({STAMP_NOTE}) -->\n"
    if INPUTS_STAMP.search(text):
        return INPUTS_STAMP.sub(lambda _: line, text, count=1)
    match = re.match(r"^---[ \t]*\n.*?\n---[ \t]*\n", text, flags=re.S)
    if match is None:
        return line + "\n" + text
    return text[:match.end()] + "\n" + line + "\n" + text[match.end():].lstrip("\n")


def stamp_problems(page: str, text: str, digest: str) -> list[str]:
    """A computed page whose inputs stamp is missing or not ``digest``: a frozen render would show old results."""
    if not is_computed(text):
        return []
    match = INPUTS_STAMP.search(text)
    if match is None:
        return [f"{page}: a computed page without an inputs stamp; a frozen render (freeze: auto) would never "
                "recompute it when the results change; run `python -m companion site`"]
    if match.group("digest") != digest:
        return [f"{page}: its inputs (results/, the executed notebooks, data/) changed since its stamp was written; "
                "a frozen render would show the old results; run `python -m companion site`"]
    return []


def pages(root: Path = REPO_ROOT) -> list[str]:
    """Every site page (relative paths): the fixed pages, one page per paper with notebooks, the API pages."""
    return [*EXTRA_PAGES, *(paper_page(p) for p in _paper_ids(root)), *apidoc.pages(root)]
