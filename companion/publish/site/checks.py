"""The offline checks behind ``python -m companion site --check`` (:func:`check`).

Every notebook and page is in the navigation exactly once, every listed file exists, generated files and stamps are
up to date, every link in every page (also in the markdown the pages' Python cells print) and in every notebook's
first cell resolves to a file or is an http(s) URL, every notebook's first cell has its Colab badge and names its
paper section, no notebook types a result of its ledger into its markdown
(:func:`companion.publish.typed_numbers.notebook_findings`), every claim in ``results/`` resolves to a notebook
cell, sidebar entries are readable (:func:`sidebar_problems`), long code lines wrap
(:func:`code_overflow_problems`), the frozen render is configured
(:func:`freeze_problems`) and a render leaves the working tree clean (:func:`gitignore_problems`). What a real
render would get wrong is checked offline by :mod:`companion.publish.site.render`, and the landing page's verdict
figure against its table (:func:`figure_problems`).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path
from typing import Any

import yaml

from companion.publish import apidoc, colab, notebook_outputs, typed_numbers
from companion.publish.site import figures as site_figures
from companion.publish.site import findings as site_findings
from companion.publish.site import forest
from companion.publish.site import offline as site_offline
from companion.publish.site import render as site_render
from companion.publish.site.common import (
    CONFIG,
    EXTRA_PAGES,
    LANDING,
    REPRODUCED_PAPERS,
    _ledgers,
    _load_json,
    _notebook_path,
    _notebooks,
    _paper_ids,
    claim_locations,
    github_repo,
    links,
    paper_page,
    python_cells,
)
from companion.publish.site.config import inputs_digest, pages, render_config, stamp_problems
from companion.publish.site.pages import (
    _row_label,
    render_paper_page,
    render_readme,
    scoreboard_rows,
    verdict_figure,
)
from companion.results import VERDICTS
from companion.settings import REPO_ROOT

SECTION_REF = re.compile(r"§|\bSections?\b|\bSec\.|\bTables?\b|\bFig(?:ure|s?\.)|\bApp(?:endix|\.)|\bEqs?\.")
COLAB_PREFIX = "https://colab.research.google.com/github/"
#: The most words a notebook's opening (its first cell, badge line excluded) may have: the section it reproduces,
#: what it measures and at which scale, read before any code; the settings, schedule and the rules that judge the
#: claims go to a later markdown cell, the results to the computed claims table at the end.
OPENING_MAX_WORDS = 150


def opening_words(markdown: str) -> int:
    """The words of a first cell as a reader counts them: whitespace-separated, the Colab badge line left out."""
    return sum(len(line.split()) for line in markdown.split("\n") if not colab.BADGE_LINE.match(line))


# --------------------------------------------------------------------------------------------- the verdict figure
def figure_rows(fig) -> list[tuple[str, dict[str, int]]]:
    """What :func:`.pages.verdict_figure` drew, read back from its artists: ``(y label, {verdict: bar width})``
    top to bottom; a verdict with no bar segment on a row is absent from that row's dict."""
    ax = fig.axes[0]
    labels = {round(t): lab.get_text() for t, lab in zip(ax.get_yticks(), ax.get_yticklabels())}
    drawn: dict[int, dict[str, int]] = {y: {} for y in labels}
    for container in ax.containers:
        for patch in container.patches:
            y = round(patch.get_y() + patch.get_height() / 2)
            if patch.get_width() > 0 and y in drawn:
                drawn[y][container.get_label()] = int(round(patch.get_width()))
    top_down = sorted(labels, reverse=not ax.yaxis_inverted())
    return [(labels[y], drawn[y]) for y in top_down]


def figure_problems(root: Path | None = None, board=None, figure=None) -> list[str]:
    """Rows of the scoreboard table that the verdict figure does not draw as they are (a missing bar, another
    order, another count), and text of the figure too small to read at the landing page's width
    (:func:`companion.publish.site.figures.figure_problems`); ``figure`` defaults to
    :func:`.pages.verdict_figure` of the same ``board``."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    table = [(_row_label(p, regime), {v: c[v] for v in VERDICTS if c[v]})
             for p, regime, c in scoreboard_rows(board, root)]
    fig = verdict_figure(root, board) if figure is None else figure
    try:
        drawn = figure_rows(fig)
        problems = site_figures.figure_problems(fig, f"{LANDING}: the verdict figure",
                                                site_figures.COLUMN_PX["full"])
    finally:
        plt.close(fig)
    if [t for t, _ in drawn] != [t for t, _ in table]:
        problems.append(f"{LANDING}: the verdict figure's bars ({', '.join(t for t, _ in drawn) or 'none'}) are not "
                        f"the scoreboard's rows in its order ({', '.join(t for t, _ in table)})")
    for (title, counts), (_, bars) in zip(table, drawn):
        if counts != bars:
            problems.append(f"{LANDING}: the verdict figure draws {bars} for {title}, the table says {counts}")
    return problems


# --------------------------------------------------------------------------------------------- links, page cells, first cells
def link_problems(text: str, where: Path, root: Path, label: str) -> list[str]:
    """Links in ``text`` (found in a file in folder ``where``) that are neither http(s)/mailto URLs, in-page anchors,
    nor relative paths to an existing file inside the repository."""
    problems = []
    for target in links(text):
        if target.startswith(("http://", "https://", "mailto:", "#")):
            continue
        path = target.split("#", 1)[0].split("?", 1)[0]
        resolved = (where / path).resolve()
        if not path or not resolved.exists() or root.resolve() not in (resolved, *resolved.parents):
            problems.append(f"{label}: link to {target!r} does not resolve to a file in the repository")
    return problems


def execute_page(path: Path, stderr: io.StringIO | None = None) -> str:
    """Run a page's Python cells the way Quarto would (one namespace, the page's folder as working directory,
    matplotlib without a display) and return what they printed (the ``output: asis`` markdown); what they write
    to stderr (warnings, tracebacks: shown on the page by Quarto) goes to ``stderr`` when given."""
    import matplotlib  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    text = Path(path).read_text(encoding="utf-8")
    namespace: dict[str, Any] = {"__name__": "__quarto__"}
    buffer = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(Path(path).parent)
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(stderr or io.StringIO()):
            for code in python_cells(text):
                exec(compile(code, str(path), "exec"), namespace)  # noqa: S102 - our own pages
                print()  # Quarto keeps each cell's output apart
    finally:
        os.chdir(cwd)
        plt.close("all")
    return buffer.getvalue()


def first_cell_problems(nb, root: Path = REPO_ROOT) -> list[str]:
    """A notebook's first cell must be markdown, carry the Colab badge of this notebook in the configured repository
    (and no Colab link at all when none is configured), stay within :data:`OPENING_MAX_WORDS` words and, for the
    five papers' notebooks, name the paper section it reproduces (baselines and cross-paper synthesis notebooks
    reproduce no single section). The next cell must be the Colab set-up cell as ``python -m companion colab``
    writes it."""
    rel = nb.path.relative_to(root).as_posix()
    try:
        cells = _load_json(nb.path)["cells"]
    except (OSError, ValueError, KeyError):
        return [f"{rel}: not a readable notebook"]
    if not cells or cells[0].get("cell_type") != "markdown":
        return [f"{rel}: the first cell is not markdown"]
    text = "".join(cells[0].get("source", ""))
    problems = []
    repo = github_repo(root)
    if repo and f"({colab.badge_url(rel, repo)})" not in text:
        problems.append(f"{rel}: the first cell has no Colab badge for this notebook in {repo}; run "
                        "`python -m companion colab`")
    if not repo and COLAB_PREFIX in text:
        problems.append(f"{rel}: the first cell links to Colab but no repository is configured ([tool.companion] "
                        "repository in pyproject.toml); run `python -m companion colab`")
    expected = colab.setup_source(repo, colab.needs_wordnet(nb.twin))
    if len(cells) < 2 or "".join(cells[1].get("source", "")) != expected:
        problems.append(f"{rel}: the second cell is not the current Colab set-up cell; run `python -m companion colab`")
    if nb.paper in REPRODUCED_PAPERS and not SECTION_REF.search(text):
        problems.append(f"{rel}: the first cell does not name the paper section it reproduces")
    if opening_words(text) > OPENING_MAX_WORDS:
        problems.append(f"{rel}: the first cell has {opening_words(text)} words, over {OPENING_MAX_WORDS}; move the "
                        "settings, schedule and judging rules to a later markdown cell")
    problems += link_problems(text, nb.path.parent, root, f"{rel} (first cell)")
    return problems


# --------------------------------------------------------------------------------------------- navigation, frozen render, working tree
# Extensions Quarto reads as a document's source: an .ipynb with a same-stem file of one of these is taken for
# that file's intermediate and left out of the render, without a warning.
QUARTO_SOURCE_SUFFIXES = (".qmd", ".md", ".rmd", ".py", ".r", ".jl", ".ipynb")


def source_collisions(notebook: Path) -> list[Path]:
    """Files beside ``notebook`` that Quarto would take as its source (same stem, another source extension)."""
    return sorted(p for p in notebook.parent.glob(f"{notebook.stem}.*")
                  if p != notebook and p.stem == notebook.stem and p.suffix.lower() in QUARTO_SOURCE_SUFFIXES)


def _href(item: Any) -> str | None:
    """The page of a sidebar or navbar entry (a path, or a dict with ``href``)."""
    return item if isinstance(item, str) else (item or {}).get("href") if isinstance(item, dict) else None


def freeze_problems(config: dict) -> list[str]:
    """``execute: freeze`` must let a render reuse the computed pages' output (``auto``; the inputs stamp makes
    new results recompute them), not re-run their Python on every render; ``execute: warning`` must be false, so
    that no warning of the build machine reaches a page."""
    execute = (config or {}).get("execute") or {}
    freeze = execute.get("freeze")
    out = []
    if freeze not in ("auto", True):
        out.append(f"{CONFIG}: execute: freeze is {freeze!r}; every render re-runs the Python of the computed pages "
                   "(use auto: the inputs stamp recomputes a page when its results change)")
    if execute.get("warning", True) is not False:
        out.append(f"{CONFIG}: execute: warning is not false; a Python warning raised while a computed page renders "
                   "(tqdm's names the build machine's paths) would be printed into the page")
    return out


#: What ``.gitignore`` must hold for a render to leave the working tree clean: the exact line Quarto looks for
#: (it appends ``/.quarto/`` otherwise), the output folder, the frozen outputs and Quarto's temporary notebooks;
#: each as any of the spellings that ignore it.
GITIGNORE_NEEDS = {
    "Quarto's scratch folder": ("/.quarto/",),
    "the frozen outputs": ("/_freeze/", "_freeze/", "_freeze"),
    "Quarto's temporary notebooks": ("**/*.quarto_ipynb", "*.quarto_ipynb"),
}


def gitignore_problems(root: Path = REPO_ROOT, config: dict | None = None) -> list[str]:
    """What a render would leave in the working tree (or add to ``.gitignore``): see :data:`GITIGNORE_NEEDS`;
    the output folder (``project: output-dir``) must be ignored too. A folder that is neither a git checkout nor
    has a ``.gitignore`` has no working tree to keep clean."""
    path = Path(root) / ".gitignore"
    if not path.is_file() and not (Path(root) / ".git").exists():
        return []
    lines = {line.strip() for line in path.read_text(encoding="utf-8").splitlines()} if path.is_file() else set()
    out_dir = (((config or {}).get("project") or {}).get("output-dir") or "_site").strip("/")
    needs = {**GITIGNORE_NEEDS, f"the output folder {out_dir}/": (f"/{out_dir}/", f"{out_dir}/", f"/{out_dir}",
                                                                   out_dir)}
    problems = []
    for what, spellings in needs.items():
        if not lines & set(spellings):
            problems.append(f".gitignore does not ignore {what} ({spellings[0]}): a render leaves it in the working "
                            "tree" + (" and appends it to .gitignore" if spellings == ("/.quarto/",) else ""))
    return problems


#: Characters of a sidebar entry a docked sidebar shows on one line; a longer word (no space to wrap at) is clipped.
SIDEBAR_WORD_CHARS = 24
#: The longest sidebar entry: two lines of the docked sidebar (a notebook's title would wrap to five)
SIDEBAR_ENTRY_CHARS = 50


def page_title(path: Path) -> str:
    """The title a sidebar shows for a page: its front matter's ``title``, else its first level-one heading (a
    notebook's first markdown cell), without attributes; the file's stem when it has neither."""
    try:
        if path.suffix == ".ipynb":
            cells = _load_json(path).get("cells", [])
            text = "".join(next(("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "markdown"),
                                ""))
        else:
            text = path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return path.stem
    title = site_render.front_matter(text).get("title")
    if title:
        return str(title)
    heading = re.search(r"^#\s+(.+?)\s*(\{[^{}]*\})?\s*$", site_render.strip_cells(text), flags=re.M)
    return heading.group(1) if heading else path.stem


def sidebar_problems(config: dict, root: Path = REPO_ROOT) -> list[str]:
    """Sidebar entries a reader cannot read whole or at a glance: a word (no space to wrap at) longer than
    :data:`SIDEBAR_WORD_CHARS` characters is clipped by the docked sidebar; an entry longer than
    :data:`SIDEBAR_ENTRY_CHARS` wraps to three lines or more. The entry's text is its ``text``, else
    its page's title (:func:`page_title`)."""
    problems = []
    for bar in ((config or {}).get("website") or {}).get("sidebar") or []:
        for item in bar.get("contents") or []:
            href = _href(item)
            text = item.get("text") if isinstance(item, dict) and item.get("text") else (
                page_title(Path(root) / href) if href else "")
            long = [w for w in re.split(r"[\s\u200b]+", str(text)) if len(w) > SIDEBAR_WORD_CHARS]
            if len(str(text)) > SIDEBAR_ENTRY_CHARS:
                problems.append(f"{CONFIG}: the sidebar entry {text!r} ({href}) has {len(str(text))} characters; "
                                f"over {SIDEBAR_ENTRY_CHARS} it wraps to three lines or more (give it a shorter "
                                "text)")
            if long:
                problems.append(f"{CONFIG}: the sidebar entry {text!r} ({href}) has a word of {len(long[0])} "
                                f"characters; the sidebar shows about {SIDEBAR_WORD_CHARS} and clips the rest "
                                "(give the entry a shorter text)")
    return problems


#: Characters of a code line that fit the text column (749 px at a 1400-px window, measured in a real render: an
#: 81-character line needs 804 px); a longer line scrolls sideways unless ``code-overflow: wrap`` wraps it.
CODE_CHARS = 74
_FENCE_OPEN = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def code_lines(text: str) -> list[str]:
    """The lines inside the fenced code blocks of markdown ``text`` (fences excluded)."""
    out, fence = [], None
    for line in text.splitlines():
        m = _FENCE_OPEN.match(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                and not line.strip()[len(m.group(1)):].strip():
            fence = None
        elif fence is not None:
            out.append(line)
    return out


def code_overflow_problems(config: dict, root: Path = REPO_ROOT, pages_: list[str] | None = None,
                           notebooks: list[Path] | None = None) -> list[str]:
    """Code lines longer than :data:`CODE_CHARS` (in the pages' code blocks and the notebooks' code cells) scroll
    sideways, their ends out of sight, unless the site sets ``format: html: code-overflow: wrap``."""
    html = (((config or {}).get("format") or {}).get("html") or {})
    if html.get("code-overflow") == "wrap":
        return []
    root = Path(root)
    long: list[str] = []
    for page in pages(root) if pages_ is None else pages_:
        path = root / page
        if path.is_file():
            long += [page for line in code_lines(path.read_text(encoding="utf-8")) if len(line) > CODE_CHARS]
    for path in [nb.path for nb in _notebooks(root)] if notebooks is None else notebooks:
        try:
            cells = _load_json(path).get("cells", [])
        except (OSError, ValueError):
            continue
        rel = path.relative_to(root).as_posix()
        long += [rel for c in cells if c.get("cell_type") == "code"
                 for line in "".join(c.get("source", "")).splitlines() if len(line) > CODE_CHARS]
    if not long:
        return []
    where = sorted(set(long))
    return [f"{CONFIG}: {len(long)} code line(s) longer than {CODE_CHARS} characters on {len(where)} page(s) "
            f"(e.g. {where[0]}) scroll sideways; set format: html: code-overflow: wrap"]


# --------------------------------------------------------------------------------------------- the whole site
def findings(root: Path = REPO_ROOT) -> list[str]:
    """The stored notebooks' reader findings (numbers to machine length, tables cut short, bare reprs, figures too
    small to read at display width): reported by ``site --check``, failing it only with ``--strict``."""
    return [f for nb in _notebooks(root) for f in site_render.notebook_findings(nb.path, root)]


def check(root: Path = REPO_ROOT, execute: bool = True, strict: bool = False) -> list[str]:
    """Problems with the site (empty list: all good); ``execute`` also runs the pages' Python cells; ``strict`` also
    counts the stored notebooks' reader findings (:func:`companion.publish.site.render.notebook_findings`), which
    :func:`findings` lists on their own."""
    problems = []
    path = root / CONFIG
    if not path.exists():
        return [f"{CONFIG} is missing; run `python -m companion site`"]
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    website = config.get("website", {}) or {}
    listed = [_href(item) for bar in website.get("sidebar", []) or [] for item in bar.get("contents", [])]
    nav = [item.get("href") for item in (website.get("navbar", {}) or {}).get("left", []) or []]
    nav += [sub.get("href") for item in (website.get("navbar", {}) or {}).get("left", []) or []
            for sub in item.get("menu", [])]
    notebooks = _notebooks(root)
    for nb in notebooks:
        rel = str(nb.path.relative_to(root))
        count = listed.count(rel)
        if count != 1:
            problems.append(f"{rel} is listed {count} times in the sidebar (expected once)")
        for other in source_collisions(nb.path):
            problems.append(f"{rel}: Quarto would render {other.name} in its place and drop the notebook "
                            "from the site (same stem); jupytext twins are named *.pct.py")
        problems += first_cell_problems(nb, root)
        problems += notebook_outputs.problems(nb.path, root=root)
        problems += [str(f) for f in typed_numbers.notebook_findings(nb.path, root)]
    for item in [*(i for i in listed if i), *(n for n in nav if n)]:
        if not (root / item).exists():
            problems.append(f"sidebar lists {item}, which does not exist")
    printed: dict[str, str] = {}
    for page in pages(root):
        if not (root / page).exists():
            problems.append(f"{page} is missing")
            continue
        if page not in listed and page not in nav:
            problems.append(f"{page} is not in the navigation of {CONFIG}")
        text = (root / page).read_text(encoding="utf-8")
        problems += link_problems(text, (root / page).parent, root, page)
        if execute and root == REPO_ROOT:
            errors = io.StringIO()
            try:
                printed[page] = execute_page(root / page, stderr=errors)
            except Exception as exc:  # noqa: BLE001 - report any failure of a page cell
                problems.append(f"{page}: a Python cell fails: {type(exc).__name__}: {exc}")
            else:
                problems += link_problems(printed[page], (root / page).parent, root, f"{page} (rendered)")
                printed[page] += errors.getvalue()
    for paper in _paper_ids(root):
        page = root / paper_page(paper)
        if page.exists() and page.read_text(encoding="utf-8") != render_paper_page(paper, root):
            problems.append(f"{paper_page(paper)} is out of date; run `python -m companion site`")
    digest = inputs_digest(root)
    for rel in EXTRA_PAGES:
        if (root / rel).is_file():
            problems += stamp_problems(rel, (root / rel).read_text(encoding="utf-8"), digest)
    problems += freeze_problems(config)
    problems += site_offline.offline_problems(config, root)
    problems += site_offline.phone_problems(config, root)
    if (root / "_site").is_dir():  # a rendered copy: what its pages would fetch from the network
        problems += site_offline.rendered_problems(root / "_site")
    problems += gitignore_problems(root, config)
    problems += sidebar_problems(config, root)
    problems += code_overflow_problems(config, root)
    landing = (root / LANDING).read_text(encoding="utf-8") if (root / LANDING).exists() else ""
    if "scoreboard(" not in landing or "companion.results" not in landing:
        problems.append(f"{LANDING} does not build its table from the ledger (companion.results.scoreboard)")
    elif "by_regime=True" not in landing:
        problems.append(f"{LANDING} does not split its scoreboard by regime (scoreboard(by_regime=True))")
    if root == REPO_ROOT:
        where = claim_locations(root)
        for ledger in _ledgers(root):
            if _notebook_path(root, ledger["paper"], ledger["notebook"]) is None:
                problems.append(f"results/{ledger['paper']}/{ledger['notebook']}.json has no notebook")
                continue
            for c in ledger["claims"]:
                if (ledger["paper"], ledger["notebook"], c["id"]) not in where:
                    problems.append(f"claim {c['id']!r} of {ledger['paper']}/{ledger['notebook']} resolves to no "
                                    "notebook cell")
    if path.read_text(encoding="utf-8") != render_config(root):
        problems.append(f"{CONFIG} is out of date; run `python -m companion site`")
    problems += apidoc.check(root)
    readme = root / "README.md"
    if readme.exists() and readme.read_text(encoding="utf-8") != render_readme(root):
        problems.append("README.md's generated parts (findings, notebook table) are out of date; run "
                        "`python -m companion site`")
    problems += site_findings.title_problems(root)
    problems += forest.figure_problems(root)
    if execute:  # what a real render would get wrong: notebooks, lists, tables, anchors, tracebacks, figure
        problems += site_render.render_problems(root, pages(root), [nb.path for nb in notebooks], printed,
                                                strict=strict)
        if root == REPO_ROOT:
            problems += figure_problems(root)
    return problems
