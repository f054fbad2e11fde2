"""The Quarto website, generated from the notebooks and the claims ledger so that nothing on it can drift.

Pages:

* ``index.qmd`` — the answer first: one bottom line per paper (:func:`bottom_lines_markdown`,
  :mod:`companion.site_summary`: what holds, what does not, what could not be told and why, each with its places in
  the paper and its regime); then the scoreboard: verdict counts of the five papers' own claims (``kind: paper``;
  the baselines and the synthesis are not papers and have none), every count split by regime (``paper setting`` /
  ``scaled``, which never changes a verdict), a figure with one bar per table row; the errata counted apart
  (confirmed, partly confirmed: an erratum is never a reproduced paper claim), the beyond-the-paper claims and our
  checks counted apart (all computed at render time from ``results/``). The claims themselves are on the paper
  pages, one click away, so the landing page stays a few screens long;
* ``site/papers/<paper>.qmd`` — one page per paper (generated): reference, its bottom line, the scale each
  notebook ran at (backbone, data subset and budget, seeds, hardware, wall time; read from provenance and the
  executed notebooks), the notebooks in section order, the claims (verdict, regime, CI and MDE) and the paper's
  errata;
* ``site/errata.qmd`` — every verified inconsistency, one card each (what the paper prints, what was computed, in
  words), from the claims of kind ``erratum`` (the errata notebook ``synthesis/00-errata`` records them), with
  their own count (:data:`ERRATUM_STATUS`);
* ``site/run-it-yourself.qmd`` — profiles, time per notebook and profile, the ``gpu`` profile's backbones;
* ``site/use-the-objectives.qmd`` and ``site/api/`` — the losses in your own training, and the API reference
  generated from the docstrings (:mod:`companion.apidoc`; its sidebar entries are short words that wrap).

``python -m companion site`` rewrites ``_quarto.yml`` (navbar, one sidebar per paper: its page then its notebooks in
section order), the per-paper pages, the README's notebook table and the inputs stamp of every computed page: the
render uses ``freeze: auto`` (a page's Python runs again only when its source changes), and the stamp, a digest of
the ledgers, the executed notebooks and the coverage maps the pages read (:func:`inputs_digest`), changes the source
when the results do. ``python -m companion site --check`` (and ``tests/system/test_runner_site.py``,
``tests/system/test_site_*.py``) verifies that every notebook and page is in the navigation exactly once, every
listed file exists, generated files and stamps are up to date, every link in every page (also in the markdown the
pages' Python cells print) and in every notebook's first cell resolves to a file or is an http(s) URL, every
notebook's first cell has its Colab badge and names its paper section, every claim in ``results/`` resolves to a
notebook cell, sidebar entries are readable (:func:`sidebar_problems`), the frozen render is configured
(:func:`freeze_problems`) and a render leaves the working tree clean (:func:`gitignore_problems`). It also runs
offline what it can of a real render (:mod:`companion.site_render`): each notebook's conversion to markdown with
nbconvert, lists and paragraphs that Pandoc would run together, tables that would not fit the page or cells cut
short, formulas Pandoc would not read as math, machine-length floats and bare reprs, ``#anchor`` links,
tracebacks in executed output, the stylesheet's wrapping rules, figures too small to read at the width the page
shows them (:mod:`companion.site_figures`), and the landing page's verdict figure against its table; the landing
page must build its scoreboard from the ledger, split by regime. Quarto renders the stored notebook outputs
without re-executing them (its default for ``.ipynb``); only the pages' small Python cells run, reading
``results/``. Numbers and claim values are written for readers by :mod:`companion.site_format`.
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
#: the two columns every count of the scoreboard is split by (:func:`companion.results.regime_kind`)
REGIMES = ("paper setting", "scaled")
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


def _board(board, root: Path):
    """The paper claims' scoreboard split by regime (:func:`companion.results.scoreboard` with ``by_regime=True``),
    the five papers only."""
    from companion.results import scoreboard

    board = scoreboard(_results_dir(root), kind="paper", by_regime=True) if board is None else board
    if "regime" not in board.columns:
        raise ValueError("the landing page's scoreboard is split by regime: pass scoreboard(by_regime=True)")
    return board[board["paper"].isin(REPRODUCED_PAPERS)]


def scoreboard_rows(board=None, root: Path | None = None) -> list[tuple[str, str, dict[str, int]]]:
    """``(paper, regime, {verdict: count, ..., "total": n})`` for the *paper* claims of the five papers, each
    paper in the registry's order with one row per regime (:data:`REGIMES`, zeros where a paper has no claim in
    that regime): the rows of the landing page's scoreboard table and, top to bottom, the bars of its figure.
    ``board``: :func:`companion.results.scoreboard` with ``by_regime=True`` (rows of the synthesis and the
    baselines, which are not papers, are left out)."""
    from companion.results import VERDICTS, regime_kind

    board = _board(board, _root(root))
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for _, r in board.iterrows():
        key = (r["paper"], regime_kind(r["regime"]))
        row = counts.setdefault(key, {**{v: 0 for v in VERDICTS}, "total": 0})
        for v in (*VERDICTS, "total"):
            row[v] += int(r[v]) if v in r else 0
    papers = sorted({p for p, _ in counts}, key=_paper_order)
    empty = {**{v: 0 for v in VERDICTS}, "total": 0}
    return [(p, regime, dict(counts.get((p, regime), empty))) for p in papers for regime in REGIMES]


def scoreboard_markdown(board=None, page: str = LANDING, root: Path | None = None) -> str:
    """The verdict counts of the five papers' *paper* claims, one row per paper and regime (``paper setting`` /
    ``scaled``), each paper linked to its page. Our own checks, beyond-the-paper claims and errata are counted
    apart (:func:`other_claims_markdown`, :func:`errata_summary`)."""
    from companion.results import VERDICTS

    root = _root(root)
    rows = scoreboard_rows(board, root)
    if not rows:
        return "_No ledger yet: run the notebooks._"
    base = _base(page)
    return md_table(["paper", "regime", *VERDICTS, "claims"],
                    [[_paper_link(p, base, root), regime, *(c[v] for v in VERDICTS), c["total"]]
                     for p, regime, c in rows])


REGIME_SENTENCE = ("The regime never changes a verdict: a claim tested in a scaled regime (another backbone, fewer "
                   "layers trained, fewer steps, less data or fewer seeds than the paper) is judged by the same rule "
                   "as one tested in the paper's setting, and the regime is shown beside it.")


def scoreboard_summary(board=None, root: Path | None = None) -> str:
    """One sentence of totals over the five papers, split by regime, and :data:`REGIME_SENTENCE`."""
    from companion.results import VERDICTS

    rows = scoreboard_rows(board, root)
    if not rows:
        return ""
    totals = {regime: {v: sum(c[v] for _, r, c in rows if r == regime) for v in (*VERDICTS, "total")}
              for regime in REGIMES}
    n = sum(t["total"] for t in totals.values())
    parts = [f"{t['total']} {'in the paper setting' if regime == REGIMES[0] else regime} "
             f"({_verdict_counts({v: t[v] for v in VERDICTS})})" for regime, t in totals.items()]
    papers = len({p for p, _, _ in rows})
    return (f"**In all, {n} claim{'s' if n != 1 else ''} of {_number_word(papers)} paper{'s' if papers != 1 else ''}:** "
            f"{parts[0]}; {parts[1]}. {REGIME_SENTENCE}")


def _number_word(n: int) -> str:
    return ("no", "one", "two", "three", "four", "five")[n] if 0 <= n <= 5 else str(n)


def _verdict_counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {v}" for v, n in counts.items() if n) or "none"


def _regime_counts(frame) -> str:
    """``2 in the paper setting, 10 scaled`` for claims with a ``regime`` column."""
    from companion.results import regime_kind

    kinds = [regime_kind(r) for r in frame["regime"]]
    return ", ".join(f"{kinds.count(r)} {'in the paper setting' if r == REGIMES[0] else r}"
                     for r in REGIMES if kinds.count(r))


def other_claims_markdown(page: str = LANDING, root: Path | None = None) -> str:
    """Per ledger owner (the five papers, the baselines, the synthesis), what the scoreboard does not count: the
    verdicts of the beyond-the-paper claims (with their regimes), of our own checks (never reproductions) and of
    the errata of each paper (:func:`errata_counts`): ``4 reproduced, 8 inconclusive (2 in the paper setting,
    10 scaled)`` / ``12 passed, 1 failed`` / ``3 confirmed``."""
    from companion.results import KIND_VERDICTS, claims_frame

    root = _root(root)
    base = _base(page)
    frame = claims_frame(_results_dir(root))
    counts: dict[str, dict[str, str]] = {}
    for kind in ("beyond", "check"):
        mine = frame[frame["kind"] == kind]
        for paper, claims in mine.groupby("paper"):
            verdicts = {v: int((claims["verdict"] == v).sum()) for v in KIND_VERDICTS[kind]}
            text = _verdict_counts(verdicts)
            if kind == "beyond":
                text += f" ({_regime_counts(claims)})"
            counts.setdefault(paper, {})[kind] = text
    for paper, statuses in errata_by_paper(root).items():
        counts.setdefault(paper, {})["erratum"] = _verdict_counts(statuses)
    if not counts:
        return "_None recorded._"
    rows = [[_paper_link(p, base, root), c.get("beyond", "none"), c.get("check", "none"), c.get("erratum", "none")]
            for p, c in sorted(counts.items(), key=lambda kv: _paper_order(kv[0]))]
    return md_table(["paper", "beyond the paper", "our checks", "errata"], rows)


def _ours_text(claim: dict) -> str:
    """Our value: over seeds, the estimate with its 95 % interval (and the interval over seeds and test items where
    items were resampled) and the design's minimum detectable effect; otherwise the value in words."""
    st = claim.get("stats")
    if st:
        signed = str(st.get("test", "")).startswith("paired")  # a difference A − B: its sign is the finding
        lo, hi = st.get("ci") or (None, None)
        return fmt.estimate(st["estimate"], lo, hi, st.get("n"), mde=st.get("mde"), items=st.get("ci_items"),
                            signed=signed)
    return fmt.ledger_text(fmt.value_text(claim.get("ours")))


def _regime_key(regime: str, keys: dict[str, str]) -> str:
    """The regime cell: ``paper setting``, or ``scaled (A)`` with ``A`` the letter of its text in ``keys``."""
    from companion.results import regime_kind

    if regime_kind(regime) == REGIMES[0]:
        return REGIMES[0]
    letter = keys.setdefault(regime, _letters(len(keys)))
    return f"scaled ({letter})"


def _letters(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(ord("A") + r) + out
    return out


def regime_legend(keys: dict[str, str]) -> str:
    """What each scaled regime of a claims table differs in from the paper's setting, one line per letter."""
    if not keys:
        return ""
    lines = [f"- **{letter}**: {fmt.ledger_text(regime.removeprefix('scaled: '))}" for regime, letter in keys.items()]
    return "\n".join(["Scaled regimes, what differs from the paper's setting:", "", *lines])


def claims_markdown(paper: str, page: str = LANDING, root: Path | None = None, kind: str = "paper") -> str:
    """One table of the claims of ``paper`` of one ``kind``: the claim with where the paper says it and a link to
    the notebook cell that decides it; the paper's value; ours (estimate [95 % CI] over seeds with the minimum
    detectable effect where there are seeds, numbers to their meaning, structures in words); the verdict with its
    full reason; and, for claims that have one (paper and beyond claims), the regime beside the verdict:
    ``paper setting`` or ``scaled (A)``, the letter's full text listed under the table (:func:`regime_legend`)."""
    root = _root(root)
    base = _base(page)
    where = claim_locations(root)
    rows = []
    keys: dict[str, str] = {}
    with_regime = kind in ("paper", "beyond")
    for ledger in _ledgers(root):
        if ledger["paper"] != paper:
            continue
        for c in ledger["claims"]:
            if c.get("kind") != kind:
                continue
            loc = where.get((paper, ledger["notebook"], c["id"]))
            source = f" *({fmt.ledger_text(c['source'])})*" if c.get("source") else ""
            claim = f"{fmt.ledger_text(c['claim'])}{source} · {_cell_link(loc, base)}"
            verdict = f"**{c['verdict']}**" + (f" — {fmt.ledger_text(c['reason'])}" if c.get("reason") else "")
            row = [claim, fmt.ledger_text(fmt.value_text(c.get("paper_value"), printed=True)), _ours_text(c), verdict]
            if with_regime:
                row.append(_regime_key(c.get("regime") or REGIMES[0], keys))
            rows.append(row)
    if not rows:
        return "_None recorded._"
    headers = ["claim · where in the paper · deciding cell", "paper", "ours [95 % CI], MDE", "verdict"]
    table = md_table(headers + (["regime"] if with_regime else []), rows)
    legend = regime_legend(keys)
    return table + (f"\n\n{legend}" if legend else "")


def papers_with_claims(root: Path | None = None, five: bool | None = None) -> list[str]:
    """Ledger owners with at least one recorded claim of any kind, in the registry's order; ``five=True``: the five
    papers only, ``five=False``: the others (the baselines, the synthesis)."""
    found = {ledger["paper"] for ledger in _ledgers(_root(root)) if ledger["claims"]}
    if five is not None:
        found = {p for p in found if (p in REPRODUCED_PAPERS) == five}
    return sorted(found, key=_paper_order)


def _paper_claims(paper: str, root: Path) -> list[dict]:
    return [c for ledger in _ledgers(root) if ledger["paper"] == paper for c in ledger["claims"]]


def bottom_line_markdown(paper: str, page: str = LANDING, root: Path | None = None) -> str:
    """One paper's bottom line (:func:`companion.site_summary.paragraph`): what holds, what does not, what could not
    be told, each with its places in the paper and its regime, computed from the ledger. On any page but the
    paper's own, the paper's title links to its page, where every claim is listed."""
    from companion import site_summary

    root = _root(root)
    link = f"{_base(page)}{paper_page(paper)}" if page != paper_page(paper) and (root / paper_page(paper)).exists() \
        else None
    return site_summary.paragraph(_title(paper), _paper_claims(paper, root), link)


def bottom_lines_markdown(page: str = LANDING, root: Path | None = None) -> str:
    """The bottom line of each of the five papers with recorded claims, in the registry's order, one paragraph
    each (the landing page's answer to its title)."""
    root = _root(root)
    papers = papers_with_claims(root, five=True)
    if not papers:
        return "_No ledger yet: run the notebooks._"
    return "\n\n".join(bottom_line_markdown(p, page, root) for p in papers)


def landing_claims_markdown(paper: str, page: str = LANDING, root: Path | None = None) -> str:
    """A ledger owner's claims on the landing page, grouped by kind: one of the five papers' own claims as a table,
    then the beyond-the-paper claims and our own checks each in a collapsed callout (never counted as
    reproductions). The baselines and the synthesis are not papers: they have no paper claims, and the errata the
    synthesis proves are on the errata page."""
    root = _root(root)
    base = _base(page)
    parts: list[str] = []
    if paper in REPRODUCED_PAPERS:
        table = claims_markdown(paper, page, root, kind="paper")
        parts = [table if table.startswith("|") else "_No claims of the paper recorded yet (see below)._", ""]
    elif any(owner == paper for owner, _, _ in _errata_entries(root)):
        parts = [f"Not one of the five papers. The errata it proves are counted apart, one card each on "
                 f"[the errata page]({base}{ERRATA_PAGE}).", ""]
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
                 else fmt.ledger_text(nb))
        if ids:
            where += f" ({len(ids)} claim{'s' if len(ids) > 1 else ''})"
        status = f"**{r['status']}**" if ids else fmt.ledger_text(r["status"])
        scale = (r.get("scale_or_reason") or "").strip()
        if ids and scale:
            status += " — " + fmt.ledger_text(scale)
        rows.append([fmt.ledger_text(r["item"]), fmt.ledger_text(r["states"]), where or "—", status])
    return md_table(["item", "what the paper states", "addressed in", "status"], rows)


def _row_label(paper: str, regime: str) -> str:
    return f"{_title(paper)} ({regime})"


def verdict_figure(root: Path | None = None, board=None):
    """Stacked horizontal bars of the paper claims' verdict counts: one bar per row of the scoreboard table
    (:func:`scoreboard_rows`: each paper in the paper setting, then scaled), top to bottom in the table's order,
    each segment labelled with its count."""
    import matplotlib.pyplot as plt

    from companion.results import VERDICTS

    rows = scoreboard_rows(board, root)
    fig, ax = plt.subplots(figsize=(9, 1.4 + 0.36 * max(len(rows), 1)))
    positions = list(range(len(rows)))
    left = [0] * len(rows)
    for verdict in VERDICTS:
        values = [c[verdict] for _, _, c in rows]
        ax.barh(positions, values, left=left, color=VERDICT_COLOURS[verdict], label=verdict, height=0.7)
        for y, (x0, w) in enumerate(zip(left, values)):
            if w:
                ax.text(x0 + w / 2, y, str(w), ha="center", va="center", color="white", fontsize=8)
        left = [a + b for a, b in zip(left, values)]
    ax.set_yticks(positions, [_row_label(p, regime) for p, regime, _ in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first table row at the top
    ax.set_xlabel("paper claims of the five papers (the regime never changes a verdict)")
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
    order, another count), and text of the figure too small to read at the landing page's width
    (:func:`companion.site_figures.figure_problems`); ``figure`` defaults to :func:`verdict_figure` of the same
    ``board``."""
    import matplotlib.pyplot as plt

    from companion.results import VERDICTS

    table = [(_row_label(p, regime), {v: c[v] for v in VERDICTS if c[v]})
             for p, regime, c in scoreboard_rows(board, root)]
    from companion import site_figures

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
        rows.append([f"[{nb.stem}]({base}{rel})", run, fmt.ledger_text(s["backbone"]), fmt.ledger_text(s["budget"])])
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


def _errata_entries(root: Path) -> list[tuple[str, str, dict]]:
    """``(ledger owner, notebook, claim)`` of every erratum (a claim of kind ``erratum``; the errata notebook
    ``synthesis/00-errata`` records them), in ledger order."""
    return [(ledger["paper"], ledger["notebook"], c) for ledger in _ledgers(root) for c in ledger["claims"]
            if c.get("kind") == "erratum"]


def _errata_claims(root: Path) -> list[dict]:
    return [c for _, _, c in _errata_entries(root)]


def _erratum_paper(claim: dict) -> str:
    """The paper an erratum is about: its id's prefix (``weighted-cl:soft-tau-star``)."""
    return claim["id"].split(":")[0]


ERRATUM_CALLOUT = {"confirmed": "callout-tip", "partly confirmed": "callout-warning",
                   "not confirmed": "callout-important", "cannot tell": "callout-note"}


def erratum_anchor(claim_id: str) -> str:
    """The heading id of an erratum on the errata page (``weighted-cl:soft-tau-star`` ->
    ``erratum-weighted-cl-soft-tau-star``)."""
    return "erratum-" + re.sub(r"[^a-z0-9]+", "-", claim_id.lower()).strip("-")


def _erratum_where(claim: dict) -> str:
    source = claim.get("source") or ""
    return source.split("|", 1)[1].strip() if "|" in source else source or claim["id"].split(":", 1)[-1]


def erratum_card(claim: dict, number: int, base: str, location: tuple[str, int] | None) -> str:
    """One erratum as a heading (with a stable id) and a callout: what is wrong, what the paper prints, what the
    notebook computed (each condition in words), the details and the cell that proves it. Its status is one of
    :data:`ERRATUM_STATUS` (an erratum is confirmed or not, never "reproduced")."""
    status = ERRATUM_STATUS[claim["verdict"]]
    callout = ERRATUM_CALLOUT.get(status, "callout-note")
    ours = claim.get("ours")
    computed = (fmt.conditions(ours) if isinstance(ours, dict) and ours
                else fmt.ledger_text(fmt.value_text(ours)) or "nothing computed")
    paper_value = claim.get("paper_value")
    paper_text = fmt.ledger_text(fmt.value_text(paper_value, printed=True)) if paper_value is not None else "—"
    parts = [f"### {number}. {fmt.ledger_text(_erratum_where(claim))} — {status} {{#{erratum_anchor(claim['id'])}}}",
             "", f'::: {{.{callout} appearance="simple" icon=false}}',
             f"**{status.capitalize()}.** {fmt.ledger_text(claim['claim'])}", "",
             f"**The paper prints:** {paper_text}", "",
             "**Computed:**", "", computed, ""]
    if claim.get("note"):
        parts += [f"**Details:** {fmt.ledger_text(claim['note'])}", ""]
    if claim.get("reason"):
        parts += [f"**Why {status}:** {fmt.ledger_text(claim['reason'])}", ""]
    if claim.get("regime"):
        parts += [f"**Regime:** {fmt.ledger_text(claim['regime'])}", ""]
    parts += [f"**Criterion:** {fmt.ledger_text(claim.get('criterion', ''))}. Proved in {_cell_link(location, base)}.",
              ":::", ""]
    return "\n".join(parts)


def errata_markdown(page: str = ERRATA_PAGE, root: Path | None = None, paper: str | None = None) -> str:
    """The errata (claims of kind ``erratum``, ids ``<paper>:<slug>``).

    On the errata page (``paper=None``): one section per paper, one card per erratum
    (:func:`erratum_card`). On a paper's page: a list of that paper's errata, each with its status and a link to
    its card on the errata page."""
    root = _root(root)
    base = _base(page)
    entries = _errata_entries(root)
    if paper is not None:
        entries = [e for e in entries if _erratum_paper(e[2]) == paper]
    if not entries:
        return "_No erratum recorded for this paper._" if paper else "_The errata notebook has not been run yet._"
    entries = sorted(entries, key=lambda e: _paper_order(_erratum_paper(e[2])))
    if paper is not None:
        return "\n".join(f"- **{ERRATUM_STATUS[c['verdict']]}** ({fmt.ledger_text(_erratum_where(c))}): "
                         f"{fmt.ledger_text(c['claim'])} "
                         f"([details]({base}{ERRATA_PAGE}#{erratum_anchor(c['id'])}))" for _, _, c in entries)
    where = claim_locations(root)
    parts: list[str] = []
    current = None
    for n, (owner, notebook, c) in enumerate(entries, 1):
        p = _erratum_paper(c)
        if p != current:
            current = p
            parts += [f"## {_title(p)}", ""]
            if (root / paper_page(p)).exists():
                parts += [f"The paper's page: [{_title(p)}]({base}{paper_page(p)}).", ""]
        parts.append(erratum_card(c, n, base, where.get((owner, notebook, c["id"]))))
    return "\n".join(parts)


def errata_counts(root: Path | None = None) -> dict[str, int]:
    """Errata by status (``confirmed``, ``partly confirmed``, ...; :data:`ERRATUM_STATUS`, in its order)."""
    statuses = [ERRATUM_STATUS[c["verdict"]] for c in _errata_claims(_root(root))]
    return {s: statuses.count(s) for s in ERRATUM_STATUS.values() if s in statuses}


def errata_by_paper(root: Path | None = None) -> dict[str, dict[str, int]]:
    """Per paper (an erratum's id prefix), its errata by status."""
    out: dict[str, dict[str, int]] = {}
    for c in _errata_claims(_root(root)):
        counts = out.setdefault(_erratum_paper(c), {})
        counts[ERRATUM_STATUS[c["verdict"]]] = counts.get(ERRATUM_STATUS[c["verdict"]], 0) + 1
    return {p: {s: counts[s] for s in ERRATUM_STATUS.values() if s in counts} for p, counts in out.items()}


def errata_summary(page: str = LANDING, root: Path | None = None) -> str:
    """The errata's own count (confirmed, partly confirmed, and any other status), apart from the scoreboard: an
    erratum says the paper contradicts itself, so it is never a reproduced paper claim."""
    counts = errata_counts(root)
    if not counts:
        return "_No erratum recorded yet: the errata notebook has not been run._"
    shown = {"confirmed": counts.get("confirmed", 0), "partly confirmed": counts.get("partly confirmed", 0),
             **counts}
    total = sum(counts.values())
    text = ", ".join(f"**{n}** {status}" for status, n in shown.items())
    link = "" if page == ERRATA_PAGE else f" — one card each on [the errata page]({_base(page)}{ERRATA_PAGE})"
    return (f"**Errata**, counted apart from the scoreboard (an erratum is never a reproduced paper claim): {text} "
            f"({total} in all){link}.")


def _regime_summary(counts: dict[str, dict[str, int]]) -> str:
    from companion.results import VERDICTS

    return "; ".join(f"{'in the paper setting' if regime == REGIMES[0] else regime}: "
                     f"{_verdict_counts({v: c[v] for v in VERDICTS})} (of {c['total']})"
                     for regime, c in counts.items())


def paper_page_markdown(paper: str, root: Path | None = None) -> str:
    """The body of ``site/papers/<paper>.qmd``: reference, scale, notebooks, claims, errata."""
    root = _root(root)
    page = paper_page(paper)
    info = PAPERS.get(paper, {"title": paper, "reference": paper, "url": ""})
    ref = f"[{info['reference']}]({info['url']})" if info.get("url") else info["reference"]
    board: dict[str, dict[str, dict[str, int]]] = {}
    for p, regime, c in scoreboard_rows(root=root):
        board.setdefault(p, {})[regime] = c
    if paper not in REPRODUCED_PAPERS:
        summary = ("**Not one of the five papers:** its claims are questions the papers do not ask and our own "
                   "checks, counted apart from the scoreboard" + (
                       "; the errata it proves are on [the errata page]"
                       f"({_base(page)}{ERRATA_PAGE})." if any(o == paper for o, _, _ in _errata_entries(root))
                       else "."))
    elif paper in board:
        summary = (f"**Verdicts on the paper's own claims:** {_regime_summary(board[paper])}. "
                   f"{REGIME_SENTENCE}")
    else:
        summary = "**Verdicts on the paper's own claims:** none recorded."
    bottom = [bottom_line_markdown(paper, page, root), ""] if paper in REPRODUCED_PAPERS else []
    parts = [f"**Paper.** {ref}", "", *bottom, summary, "",
             "## What was reproduced, at which scale", "",
             "Read from each run's provenance and the executed notebook (profile, seeds, hardware, wall time, "
             "the settings it ran with); the notebooks say in their first cell what was scaled down and why.", "",
             scale_markdown(paper, page, root), "",
             "## Notebooks, in section order", "", notebooks_markdown(paper, page, root), "",
             "## Coverage map", "",
             "Every table, figure, theorem and headline claim of the paper: where we address it, at which scale, "
             "or why not. The status is computed from the verdicts of the listed claims.", "",
             coverage_markdown(paper, page, root), "",
             "## Claims and verdicts", "",
             "Beside each verdict, its regime: *paper setting*, or *scaled* with what differs listed under the "
             "table. Numbers over seeds are the mean (a difference is signed) with its 95 % confidence interval "
             "and the design's minimum detectable effect at 80 % power (MDE).", ""]
    for kind in ("paper", "beyond", "check") if paper in REPRODUCED_PAPERS else ("beyond", "check"):
        parts += [f"### {KIND_TITLES[kind]}", "", claims_markdown(paper, page, root, kind=kind), ""]
    parts += [""]
    if paper in REPRODUCED_PAPERS:
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
        # a render reuses each computed page's stored output until its source changes; the source carries a digest
        # of everything the page reads (inputs_stamp), so a new run of the notebooks changes it
        "execute": {"freeze": "auto"},
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


# --------------------------------------------------------------------------------------------- frozen pages
#: The computed pages (those with Python cells) are rendered with ``freeze: auto``: Quarto re-executes a page only
#: when its source changes. What they show comes from the ledgers, the executed notebooks and ``data/``, so each
#: carries a digest of those inputs in a comment, written by ``python -m companion site`` and checked by
#: ``--check``: new results change the digest, hence the source, hence the page is recomputed on the next render.
INPUTS_STAMP = re.compile(r"^<!-- site inputs: (?P<digest>[0-9a-f]+)\b[^\n]*-->[ \t]*\n?", re.M)
STAMP_NOTE = "written by `python -m companion site`; a frozen render recomputes this page when it changes"


def input_files(root: Path | None = None) -> list[Path]:
    """Every file the computed pages read: the ledgers and their provenance, the executed notebooks, the coverage
    maps, the benchmark report, ``pyproject.toml`` and the code that writes the pages (``companion/site*.py``)."""
    root = _root(root)
    results = _results_dir(root)
    files = [*results.glob("*/*.json"), *(root / "notebooks").glob("*/[0-9][0-9]-*.ipynb"),
             *(root / "data").glob("*/coverage.csv"), root / BENCHMARK_REPORT, root / "pyproject.toml",
             *Path(__file__).parent.glob("site*.py")]
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
    import hashlib

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


def render_paper_page(paper: str, root: Path | None = None) -> str:
    """The generated ``site/papers/<paper>.qmd``: front matter, the inputs stamp and one Python cell that prints
    the page body."""
    title = PAPERS.get(paper, {"title": paper})["title"]
    return (f'---\ntitle: "{title}"\npage-layout: full\n---\n\n'
            f"<!-- Generated by `python -m companion site` - edit companion/site.py, not this file. -->\n"
            f"<!-- site inputs: {inputs_digest(root)} ({STAMP_NOTE}) -->\n\n"
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
        page.write_text(render_paper_page(paper, root), encoding="utf-8")
    digest = inputs_digest(root)
    for rel in EXTRA_PAGES:
        page = root / rel
        text = page.read_text(encoding="utf-8") if page.is_file() else ""
        if is_computed(text) and stamp_inputs(text, digest) != text:
            page.write_text(stamp_inputs(text, digest), encoding="utf-8")
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


def _href(item: Any) -> str | None:
    """The page of a sidebar or navbar entry (a path, or a dict with ``href``)."""
    return item if isinstance(item, str) else (item or {}).get("href") if isinstance(item, dict) else None


def freeze_problems(config: dict) -> list[str]:
    """``execute: freeze`` must let a render reuse the computed pages' output (``auto``; the inputs stamp makes
    new results recompute them), not re-run their Python on every render."""
    freeze = ((config or {}).get("execute") or {}).get("freeze")
    if freeze not in ("auto", True):
        return [f"{CONFIG}: execute: freeze is {freeze!r}; every render re-runs the Python of the computed pages "
                "(use auto: the inputs stamp recomputes a page when its results change)"]
    return []


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


def page_title(path: Path) -> str:
    """The title a sidebar shows for a page: its front matter's ``title``, else its first level-one heading (a
    notebook's first markdown cell), without attributes; the file's stem when it has neither."""
    from companion import site_render

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
    """Sidebar entries a reader cannot read whole: a word (no space to wrap at) longer than
    :data:`SIDEBAR_WORD_CHARS` characters is clipped by the docked sidebar. The entry's text is its ``text``, else
    its page's title (:func:`page_title`)."""
    problems = []
    for bar in ((config or {}).get("website") or {}).get("sidebar") or []:
        for item in bar.get("contents") or []:
            href = _href(item)
            text = item.get("text") if isinstance(item, dict) and item.get("text") else (
                page_title(Path(root) / href) if href else "")
            long = [w for w in re.split(r"[\s\u200b]+", str(text)) if len(w) > SIDEBAR_WORD_CHARS]
            if long:
                problems.append(f"{CONFIG}: the sidebar entry {text!r} ({href}) has a word of {len(long[0])} "
                                f"characters; the sidebar shows about {SIDEBAR_WORD_CHARS} and clips the rest "
                                "(give the entry a shorter text)")
    return problems


def findings(root: Path = REPO_ROOT) -> list[str]:
    """The stored notebooks' reader findings (numbers to machine length, tables cut short, bare reprs, figures too
    small to read at display width): reported by ``site --check``, failing it only with ``--strict``."""
    from companion import site_render

    return [f for nb in _notebooks(root) for f in site_render.notebook_findings(nb.path, root)]


def check(root: Path = REPO_ROOT, execute: bool = True, strict: bool = False) -> list[str]:
    """Problems with the site (empty list: all good); ``execute`` also runs the pages' Python cells; ``strict`` also
    counts the stored notebooks' reader findings (:func:`companion.site_render.notebook_findings`), which
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
    for paper in _papers(root):
        page = root / paper_page(paper)
        if page.exists() and page.read_text(encoding="utf-8") != render_paper_page(paper, root):
            problems.append(f"{paper_page(paper)} is out of date; run `python -m companion site`")
    digest = inputs_digest(root)
    for rel in EXTRA_PAGES:
        if (root / rel).is_file():
            problems += stamp_problems(rel, (root / rel).read_text(encoding="utf-8"), digest)
    problems += freeze_problems(config)
    problems += gitignore_problems(root, config)
    problems += sidebar_problems(config, root)
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
        problems.append("README.md's notebook table is out of date; run `python -m companion site`")
    if execute:  # what a real render would get wrong: notebooks, lists, tables, anchors, tracebacks, figure
        from companion import site_render

        problems += site_render.render_problems(root, pages(root), [nb.path for nb in notebooks], printed,
                                                strict=strict)
        if root == REPO_ROOT:
            problems += figure_problems(root)
    return problems
