"""Source checks: every number the project quotes from a paper is printed where its source says.

Two kinds of quotation are checked against the paper texts (:mod:`companion.papers.text` locates the block a
source names, :mod:`companion.papers.numbers` says whether a number is printed in it):

* the claims of kind ``paper`` and ``erratum`` of every ledger ``results/<paper>/<notebook>.json``
  (:func:`check_ledger`): a source naming a block and a ``paper_value`` whose numbers are printed there, or a
  derived source ``X: <expr>`` whose inputs are printed in ``X`` and whose result is the ``paper_value``;
* every transcription ``data/<paper>/*.csv`` (:func:`check_csv`): each row's numeric cells are printed in the block
  its ``source`` column names.

The site and CI run them (``tests/system/test_sources_checks.py``, ``python -m companion.publish.sources``).
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

from companion import paper_registry as _papers
from companion import settings as _settings
from companion.papers.numbers import equals_derived, evaluate, numbers_in, printed_decimals, printed_in
from companion.papers.text import locate, split_source

PAPERS = _papers.REPRODUCED
#: CSV columns that are never checked against the paper (our own material or free text).
UNCHECKED_COLUMNS = frozenset({"source", "note"})
#: CSV files of ``data/<paper>/`` that are not transcriptions: the coverage map and the statements the scoreboard's
#: rule cannot decide (:mod:`companion.statements`)
NOT_TRANSCRIPTIONS = frozenset({"coverage.csv", "statements.csv"})


# ----------------------------------------------------------------------------------------------------------------
# Ledger claims
# ----------------------------------------------------------------------------------------------------------------


def source_paper(source: str) -> tuple[str | None, str]:
    """Split a cross-paper source ``"<paper> | <block>"`` (the synthesis ledgers) into ``(paper, block)``;
    a source without that prefix gives ``(None, source)``."""
    head, sep, rest = source.partition(" | ")
    if sep and head.strip() in PAPERS:
        return head.strip(), rest.strip()
    return None, source


def claim_paper(ledger: dict, claim: dict) -> str | None:
    """The paper a claim's source refers to: the claim's ``paper`` field, else a source prefix ``<paper> | ``,
    else the ledger's paper, else an id prefix ``<paper>:`` (the synthesis notebooks), else ``None``."""
    named = source_paper(claim["source"])[0] if isinstance(claim.get("source"), str) else None
    for candidate in (claim.get("paper"), named, ledger.get("paper"), str(claim.get("id", "")).split(":", 1)[0]):
        if isinstance(candidate, str) and candidate in PAPERS:
            return candidate
    return None


def check_claim(paper: str, claim: dict, *, text_numbers: bool = True) -> list[str]:
    """Problems of one ledger claim of kind ``paper`` (empty list = fine).

    The claim needs a non-empty ``source`` naming a block of ``paper``. A derived source ``X: <expr>`` needs a
    numeric ``paper_value`` equal to the expression (relative 1e-6, or 5e-4 after rounding to the inputs' printed
    precision) and every input printed in block ``X``; a claim that says it compares a *log ratio* (a quantity
    whose scale depends on the sample, e.g. effective rank) may give the ratio as its expression, and its
    ``paper_value`` is then the ratio's natural log; otherwise every number of ``paper_value`` (see
    :func:`numbers_in`; ``text_numbers=False`` skips text values) must be printed in the block.
    """
    cid = claim.get("id", "?")
    source = (claim.get("source") or "").strip() if isinstance(claim.get("source"), str) else ""
    if not source:
        return [f"{cid}: kind 'paper' needs a source"]
    named, source = source_paper(source)
    if named is not None and named != paper:
        return [f"{cid}: source names paper {named!r} but the claim belongs to {paper!r}"]
    head, expr = split_source(source)
    try:
        blk = locate(paper, head)
    except KeyError as exc:
        return [f"{cid}: {exc.args[0]}"]
    parts = blk.parts()

    def shown(v) -> bool:
        return any(printed_in(t, v, unbounded=u) for t, u in parts)

    problems: list[str] = []
    pv = claim.get("paper_value")
    if expr is not None:
        try:
            derived, inputs = evaluate(expr)
        except ValueError as exc:
            return [f"{cid}: source {source!r}: {exc}"]
        if isinstance(pv, bool) or not isinstance(pv, (int, float)):
            problems.append(f"{cid}: derived source {source!r} needs a numeric paper_value (got {pv!r})")
        else:
            log_ratio = "log ratio" in str(claim.get("claim") or "") and derived > 0
            target = math.log(derived) if log_ratio else derived
            decimals = max((printed_decimals(lit) for lit, _ in inputs), default=0)
            if not (equals_derived(float(pv), target, decimals) if not log_ratio
                    else math.isclose(float(pv), target, rel_tol=1e-3, abs_tol=5e-4)):
                problems.append(f"{cid}: paper_value {pv!r} != {'ln(' + expr + ')' if log_ratio else expr} = "
                                f"{target:.6g}")
        for lit, _ in inputs:
            if not shown(lit):
                problems.append(f"{cid}: input {lit} of {source!r} is not printed in {blk.item}")
        return problems
    hint = ""
    if ":" in source and re.search(r"\d", source.split(":", 1)[1]):
        hint = "; the part after ':' is not pure arithmetic, so it was not read as a derivation"
    for n in numbers_in(pv, text=text_numbers):
        if not shown(n):
            problems.append(f"{cid}: paper_value number {n!r} is not printed in {blk.item} (source {source!r}{hint})")
    return problems


def ledger_problems(path: str | Path) -> list[tuple[str | None, str]]:
    """``(paper, problem)`` for the ``kind="paper"`` and ``kind="erratum"`` claims of one ledger (both quote the
    paper; see :func:`check_ledger`)."""
    path = Path(path)
    ledger = json.loads(path.read_text(encoding="utf-8"))
    name = f"{path.parent.name}/{path.name}"
    out: list[tuple[str | None, str]] = []
    for claim in ledger.get("claims", []):
        if claim.get("kind") not in ("paper", "erratum"):
            continue
        paper = claim_paper(ledger, claim)
        if paper is None:
            out.append((None, f"{name}: {claim.get('id', '?')}: cannot tell which paper (ledger 'paper', claim "
                              "'paper' or an id prefix '<paper>:')"))
            continue
        out.extend((paper, f"{name}: {p}") for p in check_claim(paper, claim))
    return out


def check_ledger(path: str | Path) -> list[str]:
    """Problems of the ``kind="paper"`` claims of one ledger (claims without a ``kind`` -- schema 1 -- are
    skipped; every paper claim must pass, whatever the schema)."""
    return [p for _, p in ledger_problems(path)]


# ----------------------------------------------------------------------------------------------------------------
# Transcription CSVs
# ----------------------------------------------------------------------------------------------------------------


def _csv_rows(path: Path) -> tuple[list[str], list[tuple[int, dict]]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    k = 0
    while k < len(lines) and (lines[k].startswith("#") or not lines[k].strip()):
        k += 1
    reader = csv.reader(lines[k:])
    try:
        header = next(reader)
    except StopIteration:
        return [], []
    rows = []
    for n, cells in enumerate(reader, start=k + 2):
        if not any(c.strip() for c in cells):
            continue
        rows.append((n, dict(zip(header, cells))))
    return header, rows


_NUMERIC_CELL = re.compile(r"\s*[+\-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+\-−]?\d+)?\s*(?:%|°|[KkM])?\s*")


def check_csv(path: str | Path) -> list[str]:
    """Problems of one transcription CSV ``data/<paper>/<name>.csv`` (empty list = fine).

    Needs a ``source`` column and at least one row. Each row's numeric cells (columns other than ``source``,
    ``note`` and ``our_*``) must be printed in the block its ``source`` names; rows with source ``ours`` are our
    own material and not checked. Leading ``#`` lines are comments. ``coverage.csv`` (see :func:`check_coverage`) and
    ``statements.csv`` (:mod:`companion.statements`) are not transcriptions. Outside ``data/<paper>/`` a ``paper`` column names each row's paper.
    """
    path = Path(path)
    name = f"{path.parent.name}/{path.name}"
    if path.name in NOT_TRANSCRIPTIONS:
        return []
    header, rows = _csv_rows(path)
    if "source" not in header:
        return [f"{name}: no 'source' column"]
    if not rows:
        return [f"{name}: no rows"]
    dir_paper = path.parent.name if path.parent.name in PAPERS else None
    checked = [c for c in header if c not in UNCHECKED_COLUMNS and not c.startswith("our_") and c != "paper"]
    problems: list[str] = []
    for line, row in rows:
        source = (row.get("source") or "").strip()
        if source.lower() == "ours":
            continue
        if not source:
            problems.append(f"{name}:{line}: empty source")
            continue
        paper = dir_paper or (row.get("paper") or "").strip()
        if paper not in PAPERS:
            problems.append(f"{name}:{line}: cannot tell the paper (folder or 'paper' column)")
            continue
        head, _ = split_source(source)
        try:
            blk = locate(paper, head)
        except KeyError as exc:
            problems.append(f"{name}:{line}: {exc.args[0]}")
            continue
        parts = blk.parts()
        for col in checked:
            cell = (row.get(col) or "").strip()
            if not cell or not _NUMERIC_CELL.fullmatch(cell):
                continue
            if not any(printed_in(t, cell, unbounded=u) for t, u in parts):
                problems.append(f"{name}:{line}: {col}={cell} is not printed in {blk.item} (source {source!r})")
    return problems


def csv_paths(root: str | Path | None = None) -> list[Path]:
    """Every transcription CSV ``data/<paper>/*.csv`` of the five papers (:data:`NOT_TRANSCRIPTIONS` excluded)."""
    root = Path(root) if root is not None else _settings.repo_root()
    return sorted(p for paper in PAPERS for p in (root / "data" / paper).glob("*.csv")
                  if p.name not in NOT_TRANSCRIPTIONS)
