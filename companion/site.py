"""The Quarto website, generated from the notebooks and the claims ledger so that nothing on it can drift.

Pages:

* ``index.qmd`` — the scoreboard: verdict counts of the papers' own claims per paper, a figure with one bar per
  table row, the beyond-the-paper claims and our checks counted apart, and per paper its claims grouped by kind,
  each linked to the notebook cell that decides it (all computed at render time from ``results/``);
* ``site/papers/<paper>.qmd`` — one page per paper (generated): reference, the scale each notebook ran at
  (backbone, data subset and budget, seeds, hardware, wall time; read from provenance and the executed notebooks),
  the notebooks in section order, the claims and the paper's errata;
* ``site/errata.qmd`` — every verified inconsistency, one card each (what the paper prints, what was computed, in
  words), from the errata notebook's ledger (``synthesis/00-errata``);
* ``site/run-it-yourself.qmd`` — profiles, time per notebook and profile, the ``gpu`` profile's backbones;
* ``site/use-the-objectives.qmd`` and ``site/api/`` — the losses in your own training, and the API reference
  generated from the docstrings (:mod:`companion.apidoc`).

``python -m companion site`` rewrites ``_quarto.yml`` (navbar, one sidebar per paper: its page then its notebooks in
section order), the per-paper pages and the README's notebook table. ``python -m companion site --check`` (and
``tests/system/test_runner_site.py``, ``tests/system/test_site_pages.py``) verifies that every notebook and page is in the
navigation exactly once, every listed file exists, generated files are up to date, every link in every page (also
in the markdown the pages' Python cells print) and in every notebook's first cell resolves to a file or is an
http(s) URL, every notebook's first cell has its Colab badge and names its paper section, and every claim in
``results/`` resolves to a notebook cell. It also runs offline what it can of a real render
(:mod:`companion.site_render`): each notebook's conversion to markdown with nbconvert, lists and paragraphs that
Pandoc would run together, tables that would not fit the page, ``#anchor`` links, tracebacks in executed output,
and the landing page's verdict figure against its table. Quarto renders the stored notebook outputs without
re-executing them (its default for ``.ipynb``); only the pages' small Python cells run, reading ``results/``.
Numbers and claim values are written for readers by :mod:`companion.site_format`.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import yaml

from companion import apidoc, notebook_outputs
from companion import papers as _papers
from companion import site_format as fmt
from companion.runner import list_notebooks
from companion.settings import REPO_ROOT

CONFIG = "_quarto.yml"
LANDING = "index.qmd"
ERRATA_PAGE = "site/errata.qmd"
RUN_PAGE = "site/run-it-yourself.qmd"
PAPER_PAGES = "site/papers"
EXTRA_PAGES = (LANDING, ERRATA_PAGE, RUN_PAGE, apidoc.USE_PAGE)
ERRATA_LEDGER = ("synthesis", "00-errata")
BENCHMARK_REPORT = "benchmarks/report.json"
STYLESHEET = "site/styles.css"  # keeps link words in tables whole (see the file)

PAPERS: dict[str, dict[str, str]] = {p.id: {"title": p.title, "reference": p.reference, "url": p.url}
                                     for p in _papers.REGISTRY}
REPRODUCED_PAPERS = _papers.REPRODUCED  # notebooks that name a section
VERDICT_COLOURS = {"reproduced": "#2e8540", "partly": "#f0ad4e", "not reproduced": "#c9302c",
                   "inconclusive": "#6f8fb3", "not testable": "#9e9e9e"}
ERRATUM_STATUS = {"confirmed": "confirmed", "partly": "partly confirmed", "not confirmed": "not confirmed",
                  "inconclusive": "cannot tell"}
KIND_TITLES = {"paper": "Paper claims", "beyond": "Beyond the paper (questions the paper does not ask)",
               "check": "Our own checks (identities, parity, set-up: never counted as reproductions)"}
SECTION_REF = re.compile(r"§|\bSections?\b|\bSec\.|\bTables?\b|\bFig(?:ure|s?\.)|\bApp(?:endix|\.)|\bEqs?\.")
COLAB_PREFIX = "https://colab.research.google.com/github/"


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
    (:func:`companion.site_format.column_widths`) rather than splitting the page into equal columns."""
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


def _papers(root: Path) -> list[str]:
    return list(dict.fromkeys(nb.paper for nb in _notebooks(root)))


def _results_dir(root: Path) -> Path:
    from companion.settings import results_dir

    return root / "results" if root != REPO_ROOT else results_dir()


def _ledgers(root: Path) -> list[dict]:
    from companion.results import load_ledgers

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


# --------------------------------------------------------------------------------------------- scoreboard
def _paper_order(paper: str) -> int:
    order = list(PAPERS)
    return order.index(paper) if paper in order else len(order)


def _title(paper: str) -> str:
    return PAPERS.get(paper, {"title": paper})["title"]


def _paper_link(paper: str, base: str, root: Path) -> str:
    return f"[{_title(paper)}]({base}{paper_page(paper)})" if (root / paper_page(paper)).exists() else _title(paper)


def scoreboard_rows(board=None, root: Path | None = None) -> list[tuple[str, dict[str, int]]]:
    """``(paper, {verdict: count, ..., "total": n})`` for the *paper* claims, in the registry's paper order: the
    rows of the landing page's scoreboard table and, top to bottom, the bars of its figure."""
    from companion.results import VERDICTS, scoreboard

    root = _root(root)
    board = scoreboard(_results_dir(root)) if board is None else board
    rows = []
    for _, r in sorted(board.iterrows(), key=lambda kv: _paper_order(kv[1]["paper"])):
        rows.append((r["paper"], {**{v: int(r[v]) for v in VERDICTS}, "total": int(r["total"])}))
    return rows


def scoreboard_markdown(board=None, page: str = LANDING, root: Path | None = None) -> str:
    """The verdict counts of the *paper* claims per paper (:func:`companion.results.scoreboard`), each paper linked
    to its page. Our own checks and beyond-the-paper claims are counted apart (:func:`other_claims_markdown`)."""
    from companion.results import VERDICTS

    root = _root(root)
    rows = scoreboard_rows(board, root)
    if not rows:
        return "_No ledger yet: run the notebooks._"
    base = _base(page)
    return md_table(["paper", *VERDICTS, "paper claims"],
                    [[_paper_link(p, base, root), *(c[v] for v in VERDICTS), c["total"]] for p, c in rows])


def _verdict_counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {v}" for v, n in counts.items() if n) or "none"


def other_claims_markdown(page: str = LANDING, root: Path | None = None) -> str:
    """Per paper, the verdicts of the beyond-the-paper claims and of our own checks (never counted as
    reproductions): ``4 reproduced, 8 inconclusive`` / ``12 passed, 1 failed``."""
    from companion.results import scoreboard

    root = _root(root)
    base = _base(page)
    counts: dict[str, dict[str, str]] = {}
    for kind in ("beyond", "check"):
        board = scoreboard(_results_dir(root), kind=kind)
        for _, r in board.iterrows():
            verdicts = {c: int(r[c]) for c in board.columns if c not in ("paper", "total")}
            counts.setdefault(r["paper"], {})[kind] = _verdict_counts(verdicts)
    if not counts:
        return "_None recorded._"
    rows = [[_paper_link(p, base, root), c.get("beyond", "none"), c.get("check", "none")]
            for p, c in sorted(counts.items(), key=lambda kv: _paper_order(kv[0]))]
    return md_table(["paper", "beyond the paper", "our checks"], rows)


def _ours_text(claim: dict) -> str:
    st = claim.get("stats")
    if st and st.get("ci"):
        lo, hi = st["ci"]
        return fmt.estimate(st["estimate"], lo, hi, st.get("n"))
    if st:
        return fmt.estimate(st["estimate"], n=st.get("n"))
    return fmt.md_escape(fmt.value_text(claim.get("ours"), 90))


def claims_markdown(paper: str, page: str = LANDING, root: Path | None = None, kind: str = "paper") -> str:
    """One table of the claims of ``paper`` of one ``kind``, four columns: the claim with where the paper says it
    and a link to the notebook cell that decides it; the paper's value; ours (estimate [95 % CI] over seeds
    where there are seeds, numbers to their meaning, structures in words); the verdict with its reason."""
    root = _root(root)
    base = _base(page)
    where = claim_locations(root)
    rows = []
    for ledger in _ledgers(root):
        if ledger["paper"] != paper:
            continue
        for c in ledger["claims"]:
            if c.get("kind") != kind:
                continue
            loc = where.get((paper, ledger["notebook"], c["id"]))
            source = f" *({fmt.md_escape(fmt.cut(c['source'], 60))})*" if c.get("source") else ""
            claim = f"{fmt.md_escape(fmt.cut(c['claim'], 150))}{source} · {_cell_link(loc, base)}"
            verdict = f"**{c['verdict']}**" + (f" — {fmt.md_escape(fmt.cut(c['reason'], 110))}"
                                               if c.get("reason") else "")
            rows.append([claim, fmt.md_escape(fmt.value_text(c.get("paper_value"), 70, printed=True)), _ours_text(c),
                         verdict])
    if not rows:
        return "_None recorded._"
    return md_table(["claim · where in the paper · deciding cell", "paper", "ours [95 % CI]", "verdict"], rows)


def papers_with_claims(root: Path | None = None) -> list[str]:
    """Papers with at least one recorded claim of any kind, in the registry's order."""
    found = {ledger["paper"] for ledger in _ledgers(_root(root)) if ledger["claims"]}
    return sorted(found, key=_paper_order)


def landing_claims_markdown(paper: str, page: str = LANDING, root: Path | None = None) -> str:
    """A paper's claims on the landing page, grouped by kind: the paper's own claims as a table, then the
    beyond-the-paper claims and our own checks each in a collapsed callout (never counted as reproductions).
    The synthesis row's paper claims are the errata, laid out on the errata page."""
    root = _root(root)
    base = _base(page)
    if paper == ERRATA_LEDGER[0]:
        parts = [f"Its paper claims are the errata, one card each on [the errata page]({base}{ERRATA_PAGE}).", ""]
    else:
        table = claims_markdown(paper, page, root, kind="paper")
        parts = [table if table.startswith("|") else "_No claims of a paper here (see below)._", ""]
    for kind, title in (("beyond", "Beyond the paper"), ("check", "Our own checks")):
        n = sum(c.get("kind") == kind for ledger in _ledgers(root) if ledger["paper"] == paper
                for c in ledger["claims"])
        if n:
            parts += [f'::: {{.callout-note collapse="true" title="{title}: {n} claim{"s" if n > 1 else ""}"}}', "",
                      claims_markdown(paper, page, root, kind=kind), "", ":::", ""]
    return "\n".join(parts)


def coverage_markdown(paper: str, page: str, root: Path | None = None) -> str:
    """The paper's coverage map (``data/<paper>/coverage.csv``) with a status computed from the claims' verdicts:
    item, what the paper states, the notebook that addresses it, status (and our scale or the reason)."""
    from companion import sources

    root = _root(root)
    path = root / "data" / paper / "coverage.csv"
    if not path.exists():
        return "_No coverage map for this paper._"
    base = _base(page)
    frame = sources.coverage_status(paper, root=root)
    rows = []
    for _, r in frame.iterrows():
        ids = sources.split_claims(r.get("claims") or "")
        nb = (r.get("notebook") or "").strip()
        nb_path = _notebook_path(root, *nb.split("/", 1)) if "/" in nb else None
        where = (f"[{nb.split('/', 1)[1]}]({base}{nb_path.relative_to(root).as_posix()})" if nb_path
                 else fmt.md_escape(nb))
        if ids:
            where += f" ({len(ids)} claim{'s' if len(ids) > 1 else ''})"
        status = f"**{r['status']}**" if ids else fmt.md_escape(fmt.cut(r["status"], 220))
        scale = (r.get("scale_or_reason") or "").strip()
        if ids and scale:
            status += " — " + fmt.md_escape(fmt.cut(scale, 160))
        rows.append([fmt.md_escape(r["item"]), fmt.md_escape(fmt.cut(r["states"], 160)), where or "—", status])
    return md_table(["item", "what the paper states", "addressed in", "status"], rows)


def verdict_figure(root: Path | None = None, board=None):
    """Stacked horizontal bars of the paper claims' verdict counts: one bar per row of the scoreboard table
    (:func:`scoreboard_rows`), top to bottom in the table's order, each segment labelled with its count."""
    import matplotlib.pyplot as plt

    from companion.results import VERDICTS

    rows = scoreboard_rows(board, root)
    fig, ax = plt.subplots(figsize=(8, 1.4 + 0.42 * max(len(rows), 1)))
    positions = list(range(len(rows)))
    left = [0] * len(rows)
    for verdict in VERDICTS:
        values = [c[verdict] for _, c in rows]
        ax.barh(positions, values, left=left, color=VERDICT_COLOURS[verdict], label=verdict, height=0.7)
        for y, (x0, w) in enumerate(zip(left, values)):
            if w:
                ax.text(x0 + w / 2, y, str(w), ha="center", va="center", color="white", fontsize=8)
        left = [a + b for a, b in zip(left, values)]
    ax.set_yticks(positions, [_title(p) for p, _ in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first table row at the top
    ax.set_xlabel("paper claims")
    ax.spines[["top", "right"]].set_visible(False)
    fig.legend(*ax.get_legend_handles_labels(), ncol=len(VERDICTS), fontsize=8, loc="upper center",
               frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))
    return fig


def figure_rows(fig) -> list[tuple[str, dict[str, int]]]:
    """What :func:`verdict_figure` drew, read back from its artists: ``(y label, {verdict: bar width})`` top to
    bottom; a verdict with no bar segment on a row is absent from that row's dict."""
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
    order, another count); ``figure`` defaults to :func:`verdict_figure` of the same ``board``."""
    import matplotlib.pyplot as plt

    from companion.results import VERDICTS

    table = [(_title(p), {v: c[v] for v in VERDICTS if c[v]}) for p, c in scoreboard_rows(board, root)]
    fig = verdict_figure(root, board) if figure is None else figure
    try:
        drawn = figure_rows(fig)
    finally:
        plt.close(fig)
    problems = []
    if [t for t, _ in drawn] != [t for t, _ in table]:
        problems.append(f"{LANDING}: the verdict figure's bars ({', '.join(t for t, _ in drawn) or 'none'}) are not "
                        f"the scoreboard's rows in its order ({', '.join(t for t, _ in table)})")
    for (title, counts), (_, bars) in zip(table, drawn):
        if counts != bars:
            problems.append(f"{LANDING}: the verdict figure draws {bars} for {title}, the table says {counts}")
    return problems


# --------------------------------------------------------------------------------------------- scale & timing
def settings_call(py_path: Path) -> dict[str, dict[str, Any]]:
    """The per-profile dicts of the notebook's ``settings(profile, smoke=..., cpu=..., gpu=..., common=...)`` call,
    read statically from its ``.py`` twin (non-literal values are kept as their source text)."""
    try:
        tree = ast.parse(Path(py_path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return {}
    imported = {alias.asname or alias.name: (node.module, alias.name) for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("companion")
                for alias in node.names}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "settings":
            out: dict[str, dict[str, Any]] = {}
            for kw in node.keywords:
                if kw.arg is None:  # **shared(...): settings a paper module keeps for several notebooks
                    for profile, values in _shared_settings(kw.value, imported).items():
                        out.setdefault(profile, {}).update(values)
                if kw.arg not in ("smoke", "cpu", "gpu", "common"):
                    continue
                pairs: list[tuple[str, ast.AST]] = []
                if isinstance(kw.value, ast.Call) and getattr(kw.value.func, "id", None) == "dict":
                    pairs = [(k.arg, k.value) for k in kw.value.keywords if k.arg]
                elif isinstance(kw.value, ast.Dict):
                    pairs = [(k.value, v) for k, v in zip(kw.value.keys, kw.value.values)
                             if isinstance(k, ast.Constant)]
                values = {}
                for key, expr in pairs:
                    try:
                        values[key] = ast.literal_eval(expr)
                    except ValueError:
                        values[key] = ast.unparse(expr)
                out[kw.arg] = values
            if out:
                return out
    return {}


def _shared_settings(expr: ast.AST, imported: dict[str, tuple[str, str]]) -> dict[str, dict[str, Any]]:
    """Evaluate ``**name(...)`` / ``**NAME`` in a settings call when ``name`` is imported from a companion module
    and its arguments are literals; anything else gives ``{}``."""
    import importlib

    func, kwargs = expr, {}
    if isinstance(expr, ast.Call):
        func = expr.func
        def literal(node: ast.AST) -> Any:
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dict" and not node.args:
                return {k.arg: literal(k.value) for k in node.keywords if k.arg}
            return ast.literal_eval(node)

        try:
            kwargs = {k.arg: literal(k.value) for k in expr.keywords if k.arg}
        except ValueError:
            return {}
    if not isinstance(func, ast.Name) or func.id not in imported:
        return {}
    module, name = imported[func.id]
    try:
        value = getattr(importlib.import_module(module), name)
        value = value(**kwargs) if isinstance(expr, ast.Call) else value
    except Exception:  # noqa: BLE001 - a page must still build; the value is then shown as unknown
        return {}
    return {k: dict(v) for k, v in value.items() if isinstance(v, dict)} if isinstance(value, dict) else {}


def profile_settings(py_path: Path, profile: str) -> dict[str, Any]:
    """``common`` updated by the profile's dict, as :func:`companion.profiles.settings` does."""
    call = settings_call(py_path)
    return {**call.get("common", {}), **call.get(profile, {})}


def executed_settings(nb_path: Path) -> dict[str, Any] | None:
    """The ``Settings(...)`` the executed notebook displayed (its settings cell's output), if any."""
    try:
        cells = _load_json(Path(nb_path))["cells"]
    except (OSError, ValueError, KeyError):
        return None
    for cell in cells:
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            text = out.get("data", {}).get("text/plain") or out.get("text") or ""
            text = "".join(text) if isinstance(text, list) else text
            if text.startswith("Settings("):
                try:
                    call = ast.parse(text.strip(), mode="eval").body
                    return {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
                except (SyntaxError, ValueError, AttributeError):
                    return None
    return None


_BUDGET = re.compile(r"(^n_|steps|^max_|batch|^sets$|pairs|_train$|_test$|epoch|^per_|^k$|^n_top$)")


def _budget(cfg: dict[str, Any]) -> str:
    items = []
    for key, value in cfg.items():
        if _BUDGET.search(key):
            shown = "all" if value is None or value == 0 and key.startswith("max_pairs") else value
            if isinstance(shown, list) and len(shown) > 4:
                shown = f"{len(shown)} items"
            items.append(f"{key}={shown}")
    return ", ".join(items) or "-"


def _hardware(prov: dict | None) -> str:
    hw = (prov or {}).get("hardware") or {}
    if not hw:
        return "not recorded"
    gpu = hw.get("gpu") or "no GPU"
    threads = hw.get("torch_threads")
    return f"{hw.get('cpu_count', '?')} CPU cores" + (f", {threads} torch thread(s)" if threads else "") + f", {gpu}"


def notebook_scale(nb, root: Path | None = None) -> dict[str, Any]:
    """What one notebook's committed run was: profile, seeds, backbone, subset/budget, hardware, wall time, date.

    Read from ``results/<paper>/<nb>.provenance.json`` (profile, seeds, hardware, settings when recorded), the
    executed notebook (``metadata.companion`` wall time; the settings cell's output) and, as a last resort, the
    notebook's static ``settings(...)`` call."""
    root = _root(root)
    prov = _read_json(_results_dir(root) / nb.paper / f"{nb.stem}.provenance.json")
    meta = (_read_json(nb.path) or {}).get("metadata", {}).get("companion") or {}
    profile = (prov or {}).get("profile") or meta.get("profile")
    cfg = (prov or {}).get("settings") or executed_settings(nb.path)
    source = "provenance" if (prov or {}).get("settings") else "settings cell output"
    if cfg is None and profile:
        cfg, source = profile_settings(nb.twin, profile), "notebook source"
    cfg = cfg or {}
    wall = meta.get("wall_time_s") if meta.get("profile") == profile else None
    wall = wall if wall is not None else (prov or {}).get("wall_time_s")
    return {"notebook": nb, "profile": profile or "not run", "seeds": (prov or {}).get("seeds", cfg.get("seeds")),
            "backbone": cfg.get("model") or "none (free vectors, synthetic data or tables)",
            "budget": _budget(cfg), "hardware": _hardware(prov or meta), "wall_time_s": wall,
            "date": (prov or meta).get("date", "-"), "settings_from": source if cfg else "-"}


def scale_markdown(paper: str, page: str, root: Path | None = None) -> str:
    """One row per notebook of ``paper``: the run (profile, seeds, wall time, hardware, date), the backbone and
    the data subset and budget it ran with."""
    root = _root(root)
    base = _base(page)
    rows = []
    for nb in _notebooks(root):
        if nb.paper != paper:
            continue
        s = notebook_scale(nb, root)
        rel = nb.path.relative_to(root).as_posix()
        seeds = ", ".join(map(str, s["seeds"])) if isinstance(s["seeds"], list) and s["seeds"] else "none"
        wall = (f"{s['wall_time_s']:.0f} s" if isinstance(s["wall_time_s"], (int, float))
                else "wall time not measured")
        run = f"**{s['profile']}**; seeds {seeds}; {wall} on {s['hardware']}; {str(s['date'])[:10]}"
        rows.append([f"[{nb.stem}]({base}{rel})", run, fmt.md_escape(s["backbone"]), fmt.md_escape(s["budget"])])
    return md_table(["notebook", "run", "backbone", "data subset and budget"], rows)


def _colab(rel: str, root: Path) -> str:
    """The Colab badge of notebook ``rel``; empty when no repository is configured (``companion.colab``)."""
    from . import colab

    return colab.badge(rel, github_repo(root))


def notebooks_markdown(paper: str, page: str, root: Path | None = None) -> str:
    root = _root(root)
    base = _base(page)
    rows = []
    for nb in _notebooks(root):
        if nb.paper == paper:
            rel = nb.path.relative_to(root).as_posix()
            rows.append([f"[{nb.stem}]({base}{rel})", nb.title, _colab(rel, root)])
    return md_table(["notebook", "section", "open"], rows)


def _errata_claims(root: Path) -> list[dict]:
    for ledger in _ledgers(root):
        if (ledger["paper"], ledger["notebook"]) == ERRATA_LEDGER:
            return ledger["claims"]
    return []


ERRATUM_CALLOUT = {"confirmed": "callout-tip", "partly confirmed": "callout-warning",
                   "not confirmed": "callout-important"}


def erratum_anchor(claim_id: str) -> str:
    """The heading id of an erratum on the errata page (``weighted-cl:soft-tau-star`` ->
    ``erratum-weighted-cl-soft-tau-star``)."""
    return "erratum-" + re.sub(r"[^a-z0-9]+", "-", claim_id.lower()).strip("-")


def _erratum_where(claim: dict) -> str:
    source = claim.get("source") or ""
    return source.split("|", 1)[1].strip() if "|" in source else source or claim["id"].split(":", 1)[-1]


def erratum_card(claim: dict, number: int, base: str, location: tuple[str, int] | None) -> str:
    """One erratum as a heading (with a stable id) and a callout: what is wrong, what the paper prints, what the
    notebook computed (each condition in words), the details and the cell that proves it."""
    status = ERRATUM_STATUS[claim["verdict"]]
    callout = ERRATUM_CALLOUT.get(status, "callout-note")
    ours = claim.get("ours")
    computed = (fmt.conditions(ours) if isinstance(ours, dict) and ours
                else fmt.md_escape(fmt.value_text(ours)) or "nothing computed")
    paper_value = claim.get("paper_value")
    paper_text = fmt.md_escape(fmt.value_text(paper_value, printed=True)) if paper_value is not None else "—"
    parts = [f"### {number}. {fmt.md_escape(_erratum_where(claim))} — {status} {{#{erratum_anchor(claim['id'])}}}",
             "", f'::: {{.{callout} appearance="simple" icon=false}}',
             f"**{status.capitalize()}.** {fmt.md_escape(claim['claim'])}", "",
             f"**The paper prints:** {paper_text}", "",
             "**Computed:**", "", computed, ""]
    if claim.get("note"):
        parts += [f"**Details:** {fmt.md_escape(claim['note'])}", ""]
    if claim.get("reason"):
        parts += [f"**Why {status}:** {fmt.md_escape(claim['reason'])}", ""]
    parts += [f"**Criterion:** {fmt.md_escape(claim.get('criterion', ''))}. Proved in {_cell_link(location, base)}.",
              ":::", ""]
    return "\n".join(parts)


def errata_markdown(page: str = ERRATA_PAGE, root: Path | None = None, paper: str | None = None) -> str:
    """The errata (claims of the errata notebook, ids ``<paper>:<slug>``).

    On the errata page (``paper=None``): one section per paper, one card per erratum
    (:func:`erratum_card`). On a paper's page: a list of that paper's errata, each with its status and a link to
    its card on the errata page."""
    root = _root(root)
    base = _base(page)
    claims = _errata_claims(root)
    if paper is not None:
        claims = [c for c in claims if c["id"].split(":")[0] == paper]
    if not claims:
        return "_No erratum recorded for this paper._" if paper else "_The errata notebook has not been run yet._"
    claims = sorted(claims, key=lambda c: _paper_order(c["id"].split(":")[0]))
    if paper is not None:
        return "\n".join(f"- **{ERRATUM_STATUS[c['verdict']]}** ({fmt.md_escape(_erratum_where(c))}): "
                         f"{fmt.md_escape(fmt.cut(c['claim'], 200))} "
                         f"([details]({base}{ERRATA_PAGE}#{erratum_anchor(c['id'])}))" for c in claims)
    where = claim_locations(root)
    parts: list[str] = []
    current = None
    for n, c in enumerate(claims, 1):
        p = c["id"].split(":")[0]
        if p != current:
            current = p
            parts += [f"## {_title(p)}", ""]
            if (root / paper_page(p)).exists():
                parts += [f"The paper's page: [{_title(p)}]({base}{paper_page(p)}).", ""]
        parts.append(erratum_card(c, n, base, where.get((*ERRATA_LEDGER, c["id"]))))
    return "\n".join(parts)


def errata_counts(root: Path | None = None) -> dict[str, int]:
    """Errata by status (``confirmed``, ``partly confirmed``, ...)."""
    counts: dict[str, int] = {}
    for c in _errata_claims(_root(root)):
        status = ERRATUM_STATUS[c["verdict"]]
        counts[status] = counts.get(status, 0) + 1
    return counts


def paper_page_markdown(paper: str, root: Path | None = None) -> str:
    """The body of ``site/papers/<paper>.qmd``: reference, scale, notebooks, claims, errata."""
    root = _root(root)
    page = paper_page(paper)
    info = PAPERS.get(paper, {"title": paper, "reference": paper, "url": ""})
    ref = f"[{info['reference']}]({info['url']})" if info.get("url") else info["reference"]
    board = dict(scoreboard_rows(root=root))
    counts = {k: v for k, v in board.get(paper, {}).items() if k != "total"}
    summary = (f"**Verdicts on the paper's own claims:** {_verdict_counts(counts)} "
               f"(of {board[paper]['total']})." if paper in board
               else "**Verdicts on the paper's own claims:** none recorded.")
    parts = [f"**Paper.** {ref}", "", summary, "",
             "## What was reproduced, at which scale", "",
             "Read from each run's provenance and the executed notebook (profile, seeds, hardware, wall time, "
             "the settings it ran with); the notebooks say in their first cell what was scaled down and why.", "",
             scale_markdown(paper, page, root), "",
             "## Notebooks, in section order", "", notebooks_markdown(paper, page, root), "",
             "## Coverage map", "",
             "Every table, figure, theorem and headline claim of the paper: where we address it, at which scale, "
             "or why not. The status is computed from the verdicts of the listed claims.", "",
             coverage_markdown(paper, page, root), "",
             "## Claims and verdicts", ""]
    for kind in ("paper", "beyond", "check"):
        parts += [f"### {KIND_TITLES[kind]}", "", claims_markdown(paper, page, root, kind=kind), ""]
    parts += [""]
    if paper != ERRATA_LEDGER[0]:
        parts += ["## Errata", "", errata_markdown(page, root, paper=paper), ""]
    return "\n".join(parts)


def smoke_times(root: Path | None = None) -> dict[str, float]:
    """``<paper>/<notebook>`` -> seconds from ``benchmarks/report.json`` (key ``smoke_notebooks_s``), if present."""
    report = _read_json(_root(root) / BENCHMARK_REPORT) or {}
    times = report.get("smoke_notebooks_s") or {}
    return {k: float(v) for k, v in times.items() if isinstance(v, (int, float))}


def timings_markdown(page: str = RUN_PAGE, root: Path | None = None) -> str:
    """Time per notebook and profile: smoke from the benchmark report, cpu/gpu from the committed run's record."""
    root = _root(root)
    base = _base(page)
    smoke = smoke_times(root)
    rows = []
    for nb in _notebooks(root):
        s = notebook_scale(nb, root)
        rel = nb.path.relative_to(root).as_posix()
        wall = f"{s['wall_time_s']:.0f} s" if isinstance(s["wall_time_s"], (int, float)) else "not measured"
        per_profile = {p: (f"{wall} ({s['hardware']})" if s["profile"] == p else "not measured")
                       for p in ("cpu", "gpu")}
        smoke_s = f"{smoke[nb.key]:.1f} s" if nb.key in smoke else "not measured"
        rows.append([f"[{nb.key}]({base}{rel})", smoke_s, per_profile["cpu"], per_profile["gpu"]])
    return md_table(["notebook", "smoke", "cpu", "gpu"], rows)


def gpu_backbones_markdown(page: str = RUN_PAGE, root: Path | None = None) -> str:
    """Backbone per notebook in the ``cpu`` and ``gpu`` profiles, read from each notebook's ``settings(...)`` call."""
    root = _root(root)
    base = _base(page)
    rows = []
    for nb in _notebooks(root):
        py = nb.twin
        cpu, gpu = profile_settings(py, "cpu").get("model"), profile_settings(py, "gpu").get("model")
        hub = f"[`{gpu}`](https://huggingface.co/{gpu})" if isinstance(gpu, str) and gpu else "none"
        rows.append([f"[{nb.key}]({base}{nb.path.relative_to(root).as_posix()})",
                     f"`{cpu}`" if cpu else "none", hub])
    return md_table(["notebook", "cpu backbone", "gpu backbone (Hugging Face hub id)"], rows)


# --------------------------------------------------------------------------------------------- configuration
def build_config(root: Path = REPO_ROOT) -> dict:
    """The full ``_quarto.yml`` as a dict."""
    notebooks = _notebooks(root)
    papers = list(dict.fromkeys(nb.paper for nb in notebooks))  # list_notebooks is already in paper order
    sidebars = []
    for paper in papers:
        contents = [paper_page(paper)] + [str(nb.path.relative_to(root)) for nb in notebooks if nb.paper == paper]
        sidebars.append({"id": paper, "title": PAPERS.get(paper, {"title": paper})["title"],
                         "contents": contents})
    return {
        "project": {"type": "website", "output-dir": "_site",
                    "render": [LANDING, "site/*.qmd", f"{PAPER_PAGES}/*.qmd", f"{apidoc.API_DIR}/*.qmd",
                               "notebooks/*/[0-9][0-9]-*.ipynb"]},
        "execute": {"freeze": False},  # the pages read results/ at render time: never reuse a stale run
        "website": {
            "title": "Geometry of embedding learning: reproductions",
            "navbar": {"left": [{"href": LANDING, "text": "Scoreboard"},
                                {"text": "Papers", "menu": [{"text": s["title"], "href": s["contents"][0]}
                                                            for s in sidebars]},
                                {"href": ERRATA_PAGE, "text": "Errata"},
                                {"href": RUN_PAGE, "text": "Run it yourself"},
                                apidoc.navbar_item(root)]},
            "sidebar": [*sidebars, apidoc.sidebar(root)],
        },
        "format": {"html": {"theme": "cosmo", "css": STYLESHEET, "toc": True, "code-fold": True,
                            "code-tools": True}},
    }


HEADER = "# Generated by `python -m companion site` from notebooks/ - edit companion/site.py, not this file.\n"


def render_config(root: Path = REPO_ROOT) -> str:
    return HEADER + yaml.safe_dump(build_config(root), sort_keys=False, allow_unicode=True, width=110)


def render_paper_page(paper: str) -> str:
    """The generated ``site/papers/<paper>.qmd``: front matter and one Python cell that prints the page body."""
    title = PAPERS.get(paper, {"title": paper})["title"]
    return (f'---\ntitle: "{title}"\npage-layout: full\n---\n\n'
            f"<!-- Generated by `python -m companion site` - edit companion/site.py, not this file. -->\n\n"
            "Everything below is computed at render time from `results/`, the executed notebooks and `data/`.\n\n"
            "```{python}\n#| echo: false\n#| output: asis\nfrom companion import site\n\n"
            f'print(site.paper_page_markdown("{paper}"))\n```\n')


def github_repo(root: Path = REPO_ROOT) -> str | None:
    """``owner/name`` of the GitHub repository: ``[tool.companion] repository`` in ``pyproject.toml``, the one
    setting behind every Colab badge and set-up cell (``companion.colab``); ``None`` when none is configured."""
    from . import colab

    return colab.repository(root)


def notebook_table(root: Path = REPO_ROOT) -> str:
    """Markdown table of every notebook with its section and, when a repository is configured, its Colab badge
    (the README's notebook list)."""
    repo = github_repo(root)
    lines = ["| notebook | section | open |", "|---|---|---|"] if repo else ["| notebook | section |", "|---|---|"]
    for nb in _notebooks(root):
        rel = nb.path.relative_to(root).as_posix()
        lines.append(f"| [`{rel}`]({rel}) | {nb.title} |" + (f" {_colab(rel, root)} |" if repo else ""))
    return "\n".join(lines)


TABLE_START, TABLE_END = "<!-- notebook-table:start -->", "<!-- notebook-table:end -->"


def render_readme(root: Path = REPO_ROOT) -> str:
    text = (root / "README.md").read_text(encoding="utf-8")
    if TABLE_START not in text or TABLE_END not in text:
        return text
    head, rest = text.split(TABLE_START, 1)
    _, tail = rest.split(TABLE_END, 1)
    return f"{head}{TABLE_START}\n{notebook_table(root)}\n{TABLE_END}{tail}"


def write_sidebar(root: Path = REPO_ROOT) -> Path:
    """Regenerate ``_quarto.yml``, the per-paper pages, the API pages and the README's notebook table."""
    path = root / CONFIG
    path.write_text(render_config(root), encoding="utf-8")
    apidoc.write_pages(root)
    for paper in _papers(root):
        page = root / paper_page(paper)
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(render_paper_page(paper), encoding="utf-8")
    if (root / "README.md").exists():
        (root / "README.md").write_text(render_readme(root), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------- checks
_MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_LINK = re.compile(r"(?:href|src)=\"([^\"]+)\"")


def links(text: str) -> list[str]:
    """Every markdown link/image target and HTML href/src in ``text``."""
    return _MD_LINK.findall(text) + _HTML_LINK.findall(text)


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


def python_cells(qmd_text: str) -> list[str]:
    """The code of every ```{python} cell of a Quarto page, in order."""
    return re.findall(r"^```\{python\}[^\n]*\n(.*?)^```\s*$", qmd_text, flags=re.S | re.M)


def execute_page(path: Path, stderr: io.StringIO | None = None) -> str:
    """Run a page's Python cells the way Quarto would (one namespace, the page's folder as working directory,
    matplotlib without a display) and return what they printed (the ``output: asis`` markdown); what they write
    to stderr (warnings, tracebacks: shown on the page by Quarto) goes to ``stderr`` when given."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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


def pages(root: Path = REPO_ROOT) -> list[str]:
    """Every site page (relative paths): the fixed pages, one page per paper with notebooks, the API pages."""
    return [*EXTRA_PAGES, *(paper_page(p) for p in _papers(root)), *apidoc.pages(root)]


def first_cell_problems(nb, root: Path = REPO_ROOT) -> list[str]:
    """A notebook's first cell must be markdown, carry the Colab badge of this notebook in the configured repository
    (and no Colab link at all when none is configured) and, for the five papers' notebooks, name the paper section
    it reproduces (baselines and cross-paper synthesis notebooks reproduce no single section). The next cell must
    be the Colab set-up cell as ``python -m companion colab`` writes it."""
    from . import colab

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
    problems += link_problems(text, nb.path.parent, root, f"{rel} (first cell)")
    return problems


# Extensions Quarto reads as a document's source: an .ipynb with a same-stem file of one of these is taken for
# that file's intermediate and left out of the render, without a warning.
QUARTO_SOURCE_SUFFIXES = (".qmd", ".md", ".rmd", ".py", ".r", ".jl", ".ipynb")


def source_collisions(notebook: Path) -> list[Path]:
    """Files beside ``notebook`` that Quarto would take as its source (same stem, another source extension)."""
    return sorted(p for p in notebook.parent.glob(f"{notebook.stem}.*")
                  if p != notebook and p.stem == notebook.stem and p.suffix.lower() in QUARTO_SOURCE_SUFFIXES)


def check(root: Path = REPO_ROOT, execute: bool = True) -> list[str]:
    """Problems with the site (empty list: all good); ``execute`` also runs the pages' Python cells."""
    problems = []
    path = root / CONFIG
    if not path.exists():
        return [f"{CONFIG} is missing; run `python -m companion site`"]
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    website = config.get("website", {}) or {}
    listed = [item for bar in website.get("sidebar", []) or [] for item in bar.get("contents", [])]
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
    for item in [*listed, *(n for n in nav if n)]:
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
    for paper in _papers(root):
        page = root / paper_page(paper)
        if page.exists() and page.read_text(encoding="utf-8") != render_paper_page(paper):
            problems.append(f"{paper_page(paper)} is out of date; run `python -m companion site`")
    landing = (root / LANDING).read_text(encoding="utf-8") if (root / LANDING).exists() else ""
    if "scoreboard(" not in landing or "companion.results" not in landing:
        problems.append(f"{LANDING} does not build its table from the ledger (companion.results.scoreboard)")
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
        problems.append("README.md's notebook table is out of date; run `python -m companion site`")
    if execute:  # what a real render would get wrong: notebooks, lists, tables, anchors, tracebacks, figure
        from companion import site_render

        problems += site_render.render_problems(root, pages(root), [nb.path for nb in notebooks], printed)
        if root == REPO_ROOT:
            problems += figure_problems(root)
    return problems
