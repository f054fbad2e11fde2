"""The sentence sweep (``python -m companion audit-text``): every comparative or universal sentence of the five
papers, found by a scan of their text (:mod:`companion.papers.synthesis.sentence_scan`), accounted for in
``data/<paper>/sentences.csv`` and, wherever the paper's own transcribed tables can decide it, checked by a
computation on them (:mod:`companion.papers.synthesis.sentence_rules`).

**The data files.** One row per hit of the scan, ``source`` = its place (``§4.3, s.5``: the fifth sentence of
§4.3), and ``kind``:

* ``checked``: the statement (``statement``, in our words, never the paper's sentence) rests on cells of the
  paper's tables, named in ``rests_on``; ``test`` computes the verdict (consistent, contradicted, or not checkable
  when equal prints decide it). ``why`` may say how the sentence is read;
* ``not checkable``: a comparative statement about the paper's results that its tables cannot decide; ``rests_on``
  names what would (a figure whose plotted values are not in the text, a table body the text does not print) and
  ``why`` says why;
* ``set aside``: the hit is not a comparative statement about the paper's results; ``why`` starts with one of the
  reasons of :data:`SET_ASIDE`.

A contradicted sentence is an erratum proven by the cells its test names: ``erratum`` gives the id the errata
notebook records (``notebooks/synthesis/00-errata``; ``data/synthesis/errata_classes.csv`` classifies it), or the
id of a withdrawn erratum whose reading the classification explains. A consistent sentence is a *check*, never a
reproduction: the paper agrees with itself, which says nothing about whether its numbers can be reproduced.
:func:`sweep` reports, besides the verdicts, every problem of the files: a hit without a row, a row without a hit, a
contradicted row without an erratum, an erratum named on a row that is not contradicted, an unknown erratum id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from companion import settings
from companion.paper_registry import REPRODUCED
from companion.papers.synthesis.audit_book import Book
from companion.papers.synthesis.sentence_rules import run_test
from companion.papers.synthesis.sentence_scan import PATTERNS, scan
from companion.papers.tables import paper_table

__all__ = ["COLUMNS", "KINDS", "SET_ASIDE", "SweepReport", "format_report", "markdown", "read_rows", "sweep"]

KINDS = ("checked", "not checkable", "set aside")
COLUMNS = ("source", "kind", "statement", "rests_on", "test", "why", "erratum")
#: why a hit of the scan is not a comparative statement about the paper's results
SET_ASIDE = {
    "other work": "it reports or motivates from other works (related work, a citation), not this paper's results",
    "no comparison": "the word that matched compares no results here (a lower bound, 'all' the runs of a set-up, "
                     "'top' k, 'to the best of our knowledge', a quantity of other works)",
    "theory": "a definition, an assumption, a theorem or a step of a proof: checked by the paper notebooks' "
              "derivations, not by the tables",
    "method": "a description of the method, the set-up, an intuition or an expectation, with no result compared",
    "aim": "an aim, a hope or future work",
    "marks": "a caption's marking convention (bold, underline): typography, checked by the table auditor's marks "
             "rule where the transcription keeps the marks",
}


@dataclass
class Row:
    """A row of ``data/<paper>/sentences.csv`` with what the sweep computed for it."""

    paper: str
    source: str
    kind: str
    statement: str
    rests_on: str
    test: str
    why: str
    erratum: str
    patterns: tuple[str, ...] = ()
    verdict: str = ""
    detail: str = ""
    cells: list[str] = field(default_factory=list)
    read: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def reason(self) -> str:
        """The set-aside reason (the part of ``why`` before a colon)."""
        return self.why.split(":", 1)[0].strip() if self.kind == "set aside" else ""


@dataclass
class SweepReport:
    """Every row of the five papers' sentence files with its verdict, the scan's counts and the problems."""

    rows: list[Row]
    hits: dict[str, int]  # paper -> sentences the scan found
    pattern_hits: dict[str, dict[str, int]]  # paper -> pattern -> sentences it matched
    problems: list[str]
    classes: dict[str, str] = field(default_factory=dict)  # erratum id -> class
    unaccounted: list[str] = field(default_factory=list)  # hits without a row, rows without a hit, doubled rows
    failed_tests: list[str] = field(default_factory=list)  # tests that do not run on the tables

    @property
    def ok(self) -> bool:
        return not self.problems

    def frame(self):
        return pd.DataFrame([{"paper": r.paper, "place": r.source, "kind": r.kind, "statement": r.statement,
                              "rests on": r.rests_on, "verdict": r.verdict or r.kind, "detail": r.detail or r.why,
                              "erratum": r.erratum, "class": self.classes.get(r.erratum, "")} for r in self.rows])

    def counts(self):
        """Per paper: hits of the scan, rows (checked + not checkable), set aside, and the verdicts."""
        out = []
        for paper, n in self.hits.items():
            rows = [r for r in self.rows if r.paper == paper]
            verdicts = [r.verdict for r in rows if r.kind != "set aside"]
            out.append({"paper": paper, "hits": n, "rows": len(verdicts),
                        "set aside": sum(r.kind == "set aside" for r in rows),
                        "consistent": verdicts.count("consistent"), "contradicted": verdicts.count("contradicted"),
                        "not checkable": verdicts.count("not checkable")})
        frame = pd.DataFrame(out).set_index("paper")
        frame.loc["all"] = frame.sum()
        return frame

    def set_aside(self):
        """Hits set aside, per paper and reason."""
        rows = [{"paper": r.paper, "reason": r.reason} for r in self.rows if r.kind == "set aside"]
        return pd.DataFrame(rows).groupby(["paper", "reason"]).size().unstack(fill_value=0)

    def contradicted(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == "contradicted"]


def read_rows(paper: str, root: str | Path) -> list[Row]:
    """``data/<paper>/sentences.csv`` as rows (columns :data:`COLUMNS`), checked for known kinds and reasons."""
    frame = paper_table(paper, "sentences", root=root)
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"data/{paper}/sentences.csv lacks the columns {missing}")
    rows = [Row(paper, *(str(r[c]).strip() for c in COLUMNS)) for _, r in frame.iterrows()]
    for r in rows:
        if r.kind not in KINDS:
            raise ValueError(f"data/{paper}/sentences.csv, {r.source}: unknown kind {r.kind!r}")
    return rows


def _classes(root: Path) -> dict[str, str]:
    """Erratum id -> class, from ``data/synthesis/errata_classes.csv`` (read here, not through
    :mod:`~companion.papers.synthesis.classes`, which imports this module to show each erratum's cells)."""
    frame = paper_table("synthesis", "errata_classes", root=root)
    return dict(zip(frame["id"], frame["class"]))


def _row_problems(r: Row, classes: dict[str, str]) -> list[str]:
    where = f"{r.paper}, {r.source}"
    out = []
    if r.kind == "checked" and not (r.test and r.statement and r.rests_on):
        out.append(f"{where}: a checked row needs a statement, what it rests on and a test")
    if r.kind == "not checkable" and not (r.statement and r.rests_on and r.why):
        out.append(f"{where}: a row that is not checkable needs a statement, what would decide it and why")
    if r.kind == "set aside" and r.reason not in SET_ASIDE:
        out.append(f"{where}: set aside for an unknown reason {r.reason!r} (one of {', '.join(SET_ASIDE)})")
    if r.kind != "checked" and r.test:
        out.append(f"{where}: only a checked row has a test")
    if r.verdict == "contradicted" and not r.erratum:
        out.append(f"{where}: contradicted, and no erratum records it (NEW: {r.detail})")
    if r.erratum and r.verdict != "contradicted":
        out.append(f"{where}: names erratum {r.erratum} but is {r.verdict or r.kind} (stale)")
    if r.erratum and r.erratum not in classes:
        out.append(f"{where}: erratum {r.erratum} is not in data/synthesis/errata_classes.csv")
    return out


def sweep(root: str | Path | None = None, papers: Sequence[str] | None = None) -> SweepReport:
    """Scan the chosen ``papers`` (default: all five), read their ``sentences.csv`` under ``root`` (default: the
    checkout), run every test and collect the problems (module docstring)."""
    root = Path(root) if root is not None else settings.repo_root()
    book = Book(root)
    classes = _classes(root)
    rows, hits, patterns, problems, unaccounted, failed = [], {}, {}, [], [], []
    for paper in papers or REPRODUCED:
        found = scan(paper)
        hits[paper] = len(found)
        patterns[paper] = {k: sum(k in h.patterns for h in found) for k in PATTERNS}
        by_place = {h.place: h for h in found}
        mine = read_rows(paper, root)
        places = [r.source for r in mine]
        unaccounted += [f"{paper}: {p} has more than one row"
                        for p in sorted({p for p in places if places.count(p) > 1})]
        unaccounted += [f"{paper}: hit {h.place} ({', '.join(h.patterns)}) has no row" for h in found
                        if h.place not in places]
        for r in mine:
            hit = by_place.get(r.source)
            if hit is None:
                unaccounted.append(f"{paper}, {r.source}: no hit of the scan at this place (stale row)")
            else:
                r.patterns = hit.patterns
            if r.kind == "checked" and r.test:
                try:
                    res = run_test(r.test, book, paper)
                except (ValueError, KeyError) as exc:
                    failed.append(f"{paper}, {r.source}: test {r.test!r}: {exc}")
                else:
                    r.verdict, r.detail, r.cells, r.read = res.verdict, res.detail, res.cells, res.read
            elif r.kind == "not checkable":
                r.verdict = "not checkable"
            problems += _row_problems(r, classes)
            rows.append(r)
    return SweepReport(rows, hits, patterns, unaccounted + failed + problems, classes, unaccounted, failed)


def format_report(report: SweepReport) -> str:
    """The command's output: each checked row with its verdict and detail, the rows that are not checkable with
    why, the counts per paper (hits, rows, set aside, verdicts), the set-aside reasons and any problem."""
    lines = []
    for r in report.rows:
        if r.kind == "set aside":
            continue
        mark = f" -> {r.erratum} ({report.classes.get(r.erratum, '?')})" if r.erratum else ""
        lines.append(f"- {r.paper}, {r.source}: {r.verdict}{mark}")
        lines.append(f"    statement: {r.statement}")
        lines.append(f"    {'computed' if r.kind == 'checked' else 'why'}: {r.detail or r.why}")
    counts = report.counts()
    lines.append("")
    lines.append(counts.to_string())
    lines.append("")
    lines.append("set aside, by reason:")
    lines.append(report.set_aside().to_string())
    lines.append("scan patterns: " + "; ".join(f"{k}: {v}" for k, v in PATTERNS.items()))
    total = counts.loc["all"]
    lines.append(f"{int(total['hits'])} hits: {int(total['rows'])} rows ({int(total['consistent'])} consistent, "
                 f"{int(total['contradicted'])} contradicted, {int(total['not checkable'])} not checkable), "
                 f"{int(total['set aside'])} set aside; {len(report.problems)} problem(s)")
    lines += [f"problem: {p}" for p in report.problems]
    return "\n".join(lines)


def markdown(report: SweepReport, title: bool = True) -> str:
    """A page for the site (markdown): what the sweep is, the counts per paper, every contradicted sentence with
    its cells and erratum, then every row that is not set aside, paper by paper. ``title=False`` leaves out the
    page's heading (a page whose front matter already has it)."""
    def cell(text: str) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    counts = report.counts().reset_index()
    out = ["# The sentence sweep", ""] if title else []
    out += ["Every comparative or universal sentence of the five papers (comparatives, superlatives, \"all\", "
           "\"consistently\", \"more ... than\", \"robust\", \"outperforms\", \"state of the art\"), found by a scan "
           "of their text and checked, wherever the paper's own tables can decide it, by a computation on the "
           "transcribed cells (`python -m companion audit-text`). A consistent sentence is a check of the paper "
           "against itself, not a reproduction.", "",
           "| " + " | ".join(counts.columns) + " |", "|" + "---|" * len(counts.columns)]
    out += ["| " + " | ".join(str(v) for v in r) + " |" for r in counts.itertuples(index=False)]
    out += ["", "## Contradicted by the paper's own tables", ""]
    for r in report.contradicted():
        out.append(f"- **{r.paper}, {r.source}** ({r.erratum}, {report.classes.get(r.erratum, '')}): "
                   f"{cell(r.statement).rstrip('.')}. Cells: {cell(r.detail)}.")
    for paper in report.hits:
        out += ["", f"## {paper}", "", "| place | statement | rests on | verdict | computed or why |",
                "|---|---|---|---|---|"]
        out += [f"| {cell(r.source)} | {cell(r.statement)} | {cell(r.rests_on)} | {r.verdict} | "
                f"{cell(r.detail or r.why)} |" for r in report.rows if r.paper == paper and r.kind != "set aside"]
    return "\n".join(out) + "\n"
