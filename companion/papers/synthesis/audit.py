"""The table auditor (``python -m companion audit-tables``): every transcribed table of the five papers
(``data/<paper>/table*.csv``, cells as printed) recomputed wherever the tables, their captions and the text let one
recompute something, within the printed rounding.

**Findings.** Each finding names its paper, the check (``<paper>/<check>/<item>`` is its key), the rule, the
statement with its location, the cells with their printed values, and what was recomputed. A finding is either
matched to an erratum of the errata notebook (``data/synthesis/audit_errata.csv``: key -> erratum id) or explained
in the allow-list (``data/synthesis/audit_allow.csv``: key, reason, explanation); :func:`audit` reports the rest as
new, and the dispositions that no longer match a finding as stale. Numbers come from the transcriptions and the
statement files (``data/<paper>/*.csv``, ``data/synthesis/errata_statements.csv``), never from this module.
Which cells each rule recomputes, paper by paper, is :mod:`companion.papers.synthesis.audit_checks`.
The rules are :mod:`companion.papers.synthesis.audit_rules`, what the checks read
:mod:`companion.papers.synthesis.audit_book`, the kinds of check :mod:`companion.papers.synthesis.audit_kinds`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from companion import settings
from companion.paper_registry import REPRODUCED as PAPERS
from companion.papers.synthesis.audit_book import Book
from companion.papers.synthesis.audit_checks import checks
from companion.papers.synthesis.audit_kinds import Check
from companion.papers.synthesis.audit_rules import RULES
from companion.papers.tables import paper_table

__all__ = ["RULES", "Finding", "Report", "audit", "errata_ids", "format_report", "read_dispositions", "run_checks",
           "uncovered_tables"]

# ------------------------------------------------------------------------------------------------ the findings
@dataclass(frozen=True)
class Finding:
    """An inconsistency the auditor found. ``key`` = ``<paper>/<check>/<item>``."""

    paper: str
    check: str
    item: str
    rule: str
    statement: str
    cells: str
    detail: str

    @property
    def key(self) -> str:
        return f"{self.paper}/{self.check}/{self.item}" if self.item else f"{self.paper}/{self.check}"


@dataclass
class Report:
    """What :func:`audit` found: every finding with its disposition, and what was checked."""

    findings: list[Finding]
    checks: list[Check]
    n_items: int
    errata: dict[str, str] = field(default_factory=dict)  # key -> erratum id
    allowed: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (reason, explanation)
    known_errata: set[str] = field(default_factory=set)

    def disposition(self, f: Finding) -> str:
        if f.key in self.errata:
            return f"erratum {self.errata[f.key]}"
        if f.key in self.allowed:
            return f"allowed ({self.allowed[f.key][0]})"
        return "NEW"

    @property
    def new(self) -> list[Finding]:
        return [f for f in self.findings if f.key not in self.errata and f.key not in self.allowed]

    @property
    def stale(self) -> list[str]:
        """Dispositions whose key is no longer a finding (a fixed transcription, a renamed check)."""
        keys = {f.key for f in self.findings}
        return sorted(k for k in (*self.errata, *self.allowed) if k not in keys)

    @property
    def unknown_errata(self) -> list[str]:
        """Errata ids of audit_errata.csv that the errata notebook does not define."""
        return sorted({e for e in self.errata.values() if e not in self.known_errata})

    @property
    def doubly_disposed(self) -> list[str]:
        return sorted(set(self.errata) & set(self.allowed))

    @property
    def ok(self) -> bool:
        return not (self.new or self.stale or self.unknown_errata or self.doubly_disposed)

    def frame(self):
        return pd.DataFrame([{"key": f.key, "paper": f.paper, "rule": f.rule, "statement": f.statement,
                              "cells": f.cells, "detail": f.detail, "disposition": self.disposition(f)}
                             for f in self.findings])


def run_checks(checks: Sequence[Check], book: Book) -> tuple[list[Finding], int]:
    """Every check's results; the off ones as findings, and the number of items looked at."""
    findings, n = [], 0
    for check in checks:
        for r in check.results(book):
            n += 1
            if r.outcome.off:
                findings.append(Finding(check.paper, check.name, r.item, check.rule, check.statement,
                                        r.cells, r.outcome.detail))
    return findings, n


def errata_ids(root: str | Path) -> set[str]:
    """The erratum ids the errata notebook defines: the literal ids of its ``ledger.claim("<paper>:<id>", ...)``
    calls (``notebooks/synthesis/00-errata.pct.py``) and the ids it builds from ``errata_evidence.csv``."""
    root = Path(root)
    text = (root / "notebooks" / "synthesis" / "00-errata.pct.py").read_text(encoding="utf-8")
    ids = set(re.findall(r"ledger\.claim\(\s*\"([\w.-]+:[\w.-]+)\"", text))
    ev = paper_table("synthesis", "errata_evidence", root=root)
    st = paper_table("synthesis", "errata_statements", root=root).set_index("id")
    for erratum in ev["erratum"].unique():
        paper = st.loc[erratum, "paper"] if erratum in st.index else erratum.split("-")[0]
        ids.add(f"{paper}:{erratum[len(paper) + 1:] if erratum.startswith(paper + '-') else erratum}")
    return ids


def read_dispositions(root: str | Path) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """``audit_errata.csv`` (key -> erratum id) and ``audit_allow.csv`` (key -> (reason, explanation)); a key
    listed twice in one file raises."""
    er = paper_table("synthesis", "audit_errata", root=root)
    al = paper_table("synthesis", "audit_allow", root=root)
    for name, df in (("audit_errata.csv", er), ("audit_allow.csv", al)):
        dup = df["key"][df["key"].duplicated()].tolist()
        if dup:
            raise ValueError(f"data/synthesis/{name} lists {dup} twice")
    return (dict(zip(er["key"], er["erratum"])),
            {k: (r, e) for k, r, e in zip(al["key"], al["reason"], al["explanation"])})


def audit(root: str | Path | None = None, papers: Sequence[str] | None = None) -> Report:
    """Run every check of :func:`checks` (the given ``papers``, default all five) on the transcriptions under
    ``root`` (default: the checkout) and attach each finding's disposition."""
    root = Path(root) if root is not None else settings.repo_root()
    book = Book(root)
    chosen = [c for c in checks(book) if papers is None or c.paper in papers]
    findings, n = run_checks(chosen, book)
    errata, allowed = read_dispositions(root)
    if papers is not None:
        keep = {f.key for f in findings}
        prefix = tuple(f"{p}/" for p in papers)
        errata = {k: v for k, v in errata.items() if k.startswith(prefix) or k in keep}
        allowed = {k: v for k, v in allowed.items() if k.startswith(prefix) or k in keep}
    return Report(findings, chosen, n, errata, allowed, errata_ids(root))


def uncovered_tables(root: str | Path, check_list: Sequence[Check]) -> list[str]:
    """The transcribed tables ``data/<paper>/table*.csv`` that no check covers."""
    covered = set().union(*(c.tables() for c in check_list))
    root = Path(root)
    return sorted(f"{p}/{f.name}" for p in PAPERS for f in (root / "data" / p).glob("table*.csv")
                  if (p, f.name) not in covered)


def format_report(report: Report) -> str:
    """The command's output: per finding its key, rule, statement, cells, what was recomputed and its
    disposition; then the counts and any problem of the dispositions."""
    lines = []
    for f in report.findings:
        lines += [f"- {f.key}  [{f.rule}]  -> {report.disposition(f)}", f"    statement: {f.statement}",
                  f"    cells: {f.cells}", f"    recomputed: {f.detail}"]
    tables = len(set().union(*(c.tables() for c in report.checks)))
    n_err = sum(f.key in report.errata for f in report.findings)
    n_allow = sum(f.key in report.allowed for f in report.findings)
    lines.append(f"{len(report.checks)} checks over {tables} transcribed tables, {report.n_items} items: "
                 f"{len(report.findings)} finding(s): {n_err} errata, {n_allow} allowed, {len(report.new)} new")
    lines += [f"stale disposition (no such finding): {k}" for k in report.stale]
    lines += [f"unknown erratum id in audit_errata.csv: {e}" for e in report.unknown_errata]
    lines += [f"listed both as an erratum and as allowed: {k}" for k in report.doubly_disposed]
    return "\n".join(lines)
