"""The table auditor (``python -m companion audit-tables``): every transcribed table of the five papers
(``data/<paper>/table*.csv``, cells as printed) recomputed wherever the tables, their captions and the text let one
recompute something, within the printed rounding.

Rules (each a small function on printed cells, so that a synthetic table can make it fire or not):

==============  ====================================================================================================
``average``     a printed average (or data-set-weighted average) against the mean of its printed cells
``total``       a printed total against the sum of its printed parts (or a count times a per-item count)
``difference``  a difference or gain quoted in the text or a table row against the two cells it names
``same``        one quantity printed twice (two tables, a table and the text or a caption) must agree
``unit``        the same quantity given in two different units
``order``       an ordering, a "best" or an "all"/"consistently" statement against the cells it covers
``range``       a stated range against the values it summarises
``grid``        settings said to come from a grid or an interval against the table's chosen settings
``p-value``     a significance statement against the p-values of the table it refers to; a printed p-value
                against the tests one can run on the table
``marks``       cells marked (underlined) as the caption's extreme that are not that extreme
``repeated``    a block of identical cells repeated across rows or columns of one table, or across tables
``count``       a stated number of rows per group against the rows the table has
==============  ====================================================================================================

**Rounding.** A number printed with ``d`` decimals (times its multiplier: ``3k``, ``2.2M``) stands for any value
within half a unit of its last digit (:attr:`Printed.error`). A recomputed quantity carries the errors of its
inputs: the mean of printed cells is off by at most the largest cell error, a sum or a difference by the sum of
the errors. A check fires only when the printed value lies outside the recomputed value's error plus its own. Two
prints of one quantity with the same precision must be identical (rounding one number twice gives one print);
with different precisions they must agree within both errors.

**Findings.** Each finding names its paper, the check (``<paper>/<check>/<item>`` is its key), the rule, the
statement with its location, the cells with their printed values, and what was recomputed. A finding is either
matched to an erratum of the errata notebook (``data/synthesis/audit_errata.csv``: key -> erratum id) or explained
in the allow-list (``data/synthesis/audit_allow.csv``: key, reason, explanation); :func:`audit` reports the rest as
new, and the dispositions that no longer match a finding as stale. Numbers come from the transcriptions and the
statement files (``data/<paper>/*.csv``, ``data/synthesis/errata_statements.csv``), never from this module.
Which cells each rule recomputes, paper by paper, is :mod:`companion.papers.synthesis.audit_checks`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import combinations
from pathlib import Path

RULES = ("average", "total", "difference", "same", "unit", "order", "range", "grid", "p-value", "marks",
         "repeated", "count")

# --------------------------------------------------------------------------------------------- printed numbers
_NUMBER = re.compile(r"([+\-−]?)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:[eE]([+\-−]?\d+))?\s*(°|%|[kK]|M|min)?")
_MULTIPLIER = {"k": 1000, "K": 1000, "M": 1_000_000}


@dataclass(frozen=True)
class Printed:
    """A number as printed: its value, the largest rounding error the print allows (half a unit of its last
    digit, times its multiplier) and its unit sign (``°``, ``%``, ``min`` or ``""``)."""

    text: str
    value: Decimal
    error: Decimal
    unit: str = ""

    def __str__(self) -> str:
        return self.text


def printed(cell) -> Printed | None:
    """``"74.89"``, ``"−0.111"``, ``"3,063"``, ``"2.2M"``, ``"10°"``, ``"3e-5"`` -> :class:`Printed`; anything that
    is not one printed number (``N/A``, ``-``, ``<1%``, a word, an empty cell) -> ``None``."""
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return None
    text = str(cell).strip()
    m = _NUMBER.fullmatch(text)
    if not m:
        return None
    sign, whole, frac, exponent, suffix = m.groups()
    value = Decimal(whole.replace(",", "") + ("." + frac if frac else ""))
    last = -len(frac or "")
    if exponent:
        shift = int(exponent.replace("−", "-"))
        value, last = value.scaleb(shift), last + shift
    multiplier = _MULTIPLIER.get(suffix or "", 1)
    value = value * multiplier
    if sign in ("-", "−"):
        value = -value
    error = Decimal(5).scaleb(last - 1) * multiplier
    return Printed(text, value, error, suffix if suffix in ("°", "%", "min") else "")


def _number(cell) -> Printed:
    p = printed(cell)
    if p is None:
        raise ValueError(f"not a printed number: {cell!r}")
    return p


def _fmt(x: Decimal, places: int = 4) -> str:
    """A recomputed number for the report: at most ``places`` decimals, no trailing zeros."""
    return format(Decimal(x).quantize(Decimal(1).scaleb(-places)).normalize(), "f")


# ------------------------------------------------------------------------------------------------- the rules
@dataclass(frozen=True)
class Outcome:
    """One check: ``off`` when the printed value is outside what rounding allows; ``detail`` says why."""

    off: bool
    detail: str


def mean_with_error(cells: Sequence[str], weights: Sequence[float] | None = None) -> tuple[Decimal, Decimal]:
    """The (weighted) mean of printed cells and its largest rounding error (the largest cell error)."""
    values = [_number(c) for c in cells]
    w = [Decimal(str(x)) for x in (weights or [1] * len(values))]
    mean = sum((p.value * wi for p, wi in zip(values, w)), Decimal(0)) / sum(w)
    return mean, max(p.error for p in values)


def average_rule(cells: Sequence[str], average: str, weights: Sequence[float] | None = None) -> Outcome:
    """``average`` against the (``weights``-weighted) mean of ``cells``: off when they differ by more than the
    mean's rounding error plus the average's."""
    mean, err = mean_with_error(cells, weights)
    avg = _number(average)
    gap, tol = abs(avg.value - mean), err + avg.error
    return Outcome(gap > tol, f"printed {avg} vs mean of the cells {_fmt(mean)} (|difference| {_fmt(gap)}, "
                              f"rounding allows {_fmt(tol)})")


def total_rule(parts: Sequence[str], total: str, counts: Sequence[int] | None = None) -> Outcome:
    """``total`` against the sum of ``parts`` (each times its count, default 1): off beyond the summed errors."""
    ps = [_number(c) for c in parts]
    n = list(counts or [1] * len(ps))
    s = sum((p.value * k for p, k in zip(ps, n)), Decimal(0))
    err = sum((p.error * k for p, k in zip(ps, n)), Decimal(0))
    t = _number(total)
    gap, tol = abs(t.value - s), err + t.error
    return Outcome(gap > tol, f"printed {t} vs sum {_fmt(s)} (|difference| {_fmt(gap)}, rounding allows {_fmt(tol)})")


def difference_rule(a: str, b: str, stated: str) -> Outcome:
    """A stated difference ``stated`` against ``a - b`` of the printed cells."""
    pa, pb, ps = _number(a), _number(b), _number(stated)
    d = pa.value - pb.value
    gap, tol = abs(ps.value - d), pa.error + pb.error + ps.error
    return Outcome(gap > tol, f"stated {ps} vs {pa} - {pb} = {_fmt(d)} (|difference| {_fmt(gap)}, rounding allows "
                              f"{_fmt(tol)})")


def same_rule(x: str, y: str | tuple[Decimal, Decimal]) -> Outcome:
    """Two prints of one quantity: identical when printed with the same precision, else within both errors. ``y``
    may be a recomputed ``(value, error)`` (a mean whose printed cell is lost). Different unit signs are a
    different rule (:func:`unit_rule`)."""
    px = _number(x)
    if isinstance(y, tuple):
        yv, ye, ytext = y[0], y[1], f"{_fmt(y[0])} (recomputed)"
        same_precision = False
    else:
        py = _number(y)
        yv, ye, ytext, same_precision = py.value, py.error, str(py), py.error == px.error
    gap = abs(px.value - yv)
    off = gap != 0 if same_precision else gap > px.error + ye
    allowed = "none (same precision)" if same_precision else _fmt(px.error + ye)
    return Outcome(off, f"{px} vs {ytext} (|difference| {_fmt(gap)}, rounding allows {allowed})")


def unit_rule(unit_a: str, unit_b: str) -> Outcome:
    """The same quantity with two different units (``radians`` vs ``degrees``)."""
    canon = {"°": "degrees", "degree": "degrees", "deg": "degrees", "rad": "radians", "radian": "radians"}
    a, b = canon.get(unit_a, unit_a), canon.get(unit_b, unit_b)
    return Outcome(a != b, f"unit {a} vs {b}")


def order_rule(high: str, low: str) -> Outcome:
    """``high`` is said to be above ``low``: off when it is not strictly above (a tie is not above)."""
    ph, pl = _number(high), _number(low)
    return Outcome(not ph.value > pl.value, f"{ph} {'>' if ph.value > pl.value else '<=' } {pl}")


def range_rule(value: str | tuple[Decimal, Decimal], low: str, high: str) -> Outcome:
    """A value (printed, or recomputed with its error) against a stated range ``[low, high]``, with rounding."""
    lo, hi = _number(low), _number(high)
    if isinstance(value, tuple):
        v, e, text = value[0], value[1], _fmt(value[0])
    else:
        pv = _number(value)
        v, e, text = pv.value, pv.error, str(pv)
    off = v + e < lo.value - lo.error or v - e > hi.value + hi.error
    return Outcome(off, f"{text} {'outside' if off else 'inside'} [{lo}, {hi}]")


def interval_rule(value: str, low: str, high: str) -> Outcome:
    """A chosen setting against the interval it is said to be searched in (no rounding: settings are exact)."""
    v, lo, hi = _number(value), _number(low), _number(high)
    off = not lo.value <= v.value <= hi.value
    return Outcome(off, f"{v} {'outside' if off else 'inside'} [{lo}, {hi}]")


def set_rule(value: str, allowed: Sequence[str]) -> Outcome:
    """A chosen setting against the set it is said to be searched in."""
    v = _number(value)
    ok = any(v.value == _number(a).value for a in allowed)
    return Outcome(not ok, f"{v} {'in' if ok else 'not in'} {{{', '.join(allowed)}}}")


def significance_rule(p_values: dict[str, str], bound: str, exceptions: Iterable[str] = ()) -> Outcome:
    """A statement "every p-value below ``bound`` (except ``exceptions``)" against the printed p-values
    (``label -> cell``; ``N/A`` cells are skipped). A p-value printed as the bound itself is read as at the bound
    (the tables print nothing smaller), so only values above it contradict the statement."""
    b = _number(bound)
    skip = set(exceptions)
    above = [f"{k} {v}" for k, v in p_values.items() if k not in skip and printed(v) is not None
             and _number(v).value > b.value]
    return Outcome(bool(above), f"above {b}: {'; '.join(above)}" if above else f"every p-value <= {b}")


def p_value_candidates(x: Sequence[str], y: Sequence[str]) -> dict[str, float]:
    """p-values (in %) of the tests a reader could mean by "a t-test" between two rows over the same columns:
    paired t (two- and one-sided), Student and Welch t, Wilcoxon signed-rank."""
    from scipy import stats

    a = [float(_number(c).value) for c in x]
    b = [float(_number(c).value) for c in y]
    d = [u - v for u, v in zip(a, b)]
    return {k: float(v) for k, v in {"paired t": 100 * stats.ttest_rel(a, b).pvalue,
            "paired t, one-sided": 100 * stats.ttest_rel(a, b, alternative="greater").pvalue,
            "Student t": 100 * stats.ttest_ind(a, b).pvalue,
            "Welch t": 100 * stats.ttest_ind(a, b, equal_var=False).pvalue,
            "Wilcoxon": 100 * stats.wilcoxon(d).pvalue}.items()}


def p_value_rule(stated: str, candidates: dict[str, float]) -> Outcome:
    """A printed p-value (in %) against the candidates :func:`p_value_candidates` computes: off when none of them
    rounds to the printed value."""
    s = _number(stated)
    hit = [k for k, v in candidates.items() if abs(Decimal(repr(v)) - s.value) <= s.error]
    closest = min(candidates, key=lambda k: abs(candidates[k] - float(s.value)))
    return Outcome(not hit, f"stated {s} %; " + (f"matches {', '.join(hit)}" if hit else
                                                 f"closest {closest} {candidates[closest]:.2f} %"))


def marks_rule(values: dict[str, str], marked: Iterable[str], extreme: str = "min") -> list[tuple[str, Outcome]]:
    """Cells marked as the group's ``extreme`` (``min`` or ``max``) of ``values`` (``label -> cell``) that are not
    it. Unmarked extremes are not flagged: an extraction can drop a mark, it does not add one."""
    nums = {k: _number(v).value for k, v in values.items()}
    best = min(nums.values()) if extreme == "min" else max(nums.values())
    out = []
    for k in marked:
        out.append((k, Outcome(nums[k] != best, f"marked {values[k]}, the {extreme} is {_fmt(best)}")))
    return out


def count_rule(n_rows: int, stated: str, *, at_most: bool) -> Outcome:
    """The rows a table has for a group against the stated number (``at_most``: "up to")."""
    s = int(_number(stated).value)
    off = n_rows > s if at_most else n_rows != s
    return Outcome(off, f"{n_rows} row(s), stated {'up to ' if at_most else ''}{s}")


def repeated_runs(frame, label: Sequence[str], cols: Sequence[str], min_run: int = 2) -> list[tuple[str, str]]:
    """Blocks of identical printed numbers inside one table: two rows equal on at least ``min_run`` adjacent
    columns, or two columns equal on at least ``min_run`` adjacent rows. Returns ``(item, detail)`` pairs."""
    names = [" · ".join(str(r[c]) for c in label if str(r[c])) for _, r in frame.iterrows()]
    grid = [[str(r[c]).strip() for c in cols] for _, r in frame.iterrows()]

    def runs(seq_a, seq_b):
        found, run = [], []
        for i, (u, v) in enumerate(zip(seq_a, seq_b)):
            if printed(u) is not None and u == v:
                run.append(i)
            else:
                if len(run) >= min_run:
                    found.append(run)
                run = []
        if len(run) >= min_run:
            found.append(run)
        return found

    out = []
    for i, j in combinations(range(len(grid)), 2):
        for run in runs(grid[i], grid[j]):
            cells = ", ".join(f"{cols[k]} {grid[i][k]}" for k in run)
            out.append((f"rows {names[i]} = {names[j]} ({' + '.join(cols[k] for k in run)})",
                        f"rows {names[i]} and {names[j]} print the same {cells}"))
    for a, b in combinations(range(len(cols)), 2):
        col_a, col_b = [g[a] for g in grid], [g[b] for g in grid]
        for run in runs(col_a, col_b):
            cells = ", ".join(f"{names[k]} {col_a[k]}" for k in run)
            out.append((f"columns {cols[a]} = {cols[b]} ({' + '.join(names[k] for k in run)})",
                        f"columns {cols[a]} and {cols[b]} print the same value in rows {cells}"))
    return out


def common_runs(row_a: Sequence[tuple[str, str]], row_b: Sequence[tuple[str, str]], min_run: int = 3,
                declared: Callable[[str, str], bool] | None = None) -> list[list[tuple[str, str, str]]]:
    """Runs of at least ``min_run`` identical printed numbers at the same positions of two rows (``[(column,
    cell), ...]`` in print order), as ``[(column a, column b, cell), ...]``; a run whose every cell pair is a
    declared cross-reference (``declared(column a, column b)``) is left out."""
    out, run = [], []
    n = min(len(row_a), len(row_b))
    for i in range(n + 1):
        if i < n and printed(row_a[i][1]) is not None and row_a[i][1] == row_b[i][1]:
            run.append(i)
            continue
        if len(run) >= min_run and not (declared and all(declared(row_a[k][0], row_b[k][0]) for k in run)):
            out.append([(row_a[k][0], row_b[k][0], row_a[k][1]) for k in run])
        run = []
    return out


# ------------------------------------------------------------------------------------------- data references
@dataclass(frozen=True)
class Cell:
    """One printed cell: ``data/<paper>/<file>``, the row where every ``where`` column has the given value, and
    column ``col``."""

    paper: str
    file: str
    col: str
    where: tuple[tuple[str, str], ...]

    @property
    def table(self) -> str:
        return table_name(self.file)

    @property
    def label(self) -> str:
        named = " · ".join(v if k != "#" else f"#{v}" for k, v in self.where if v)
        return f"{self.table} [{named}, {self.col}]"


def C(paper: str, file: str, col: str, **where: str) -> Cell:  # noqa: N802 - short constructor for the specs
    """:class:`Cell` with keyword ``where`` (column names that are not identifiers go through ``**{...}``)."""
    return Cell(paper, file, col, tuple(where.items()))


@dataclass(frozen=True)
class Statement:
    """A statement of ``data/synthesis/errata_statements.csv`` by id (its printed value, unit and source)."""

    id: str

    @property
    def label(self) -> str:
        return f"statement {self.id}"


@dataclass(frozen=True)
class Mean:
    """The mean of printed cells (a printed cell the extraction lost), with its rounding error."""

    cells: tuple[Cell, ...]

    @property
    def label(self) -> str:
        return f"mean of {self.cells[0].table} [{' · '.join(v for _, v in self.cells[0].where if v)}, " \
               f"{self.cells[0].col} ... {self.cells[-1].col}]"


@dataclass(frozen=True)
class Diff:
    """The difference of two printed cells, with its rounding error."""

    a: Cell
    b: Cell

    @property
    def label(self) -> str:
        return f"{self.a.label} - {self.b.label}"


Ref = Cell | Statement


def table_name(file: str) -> str:
    """``table4.csv`` -> ``Table 4``; ``table7_settings.csv`` -> ``Table 7 settings``; ``text.csv`` -> ``text``."""
    m = re.fullmatch(r"table(\d+)(?:_(\w+))?\.csv", file)
    if not m:
        return file.removesuffix(".csv")
    return f"Table {m.group(1)}" + (f" {m.group(2).replace('_', ' ')}" if m.group(2) else "")


class Book:
    """The transcriptions and statements under ``<root>/data``, read once, every cell as printed."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self._tables: dict[tuple[str, str], object] = {}
        self._statements = None

    def table(self, paper: str, file: str):
        import pandas as pd

        key = (paper, file)
        if key not in self._tables:
            self._tables[key] = pd.read_csv(self.root / "data" / paper / file, comment="#", dtype=str,
                                            keep_default_na=False)
        return self._tables[key]

    def statements(self):
        import pandas as pd

        if self._statements is None:
            self._statements = pd.read_csv(self.root / "data" / "synthesis" / "errata_statements.csv", comment="#",
                                           dtype=str, keep_default_na=False).set_index("id")
        return self._statements

    def row(self, ref: Cell):
        """The row ``ref`` names: every ``where`` column equal to its value; ``#`` = k picks the k-th (from 0) of
        several such rows, in print order (Table 4's repeated "+ angle" rows)."""
        t = self.table(ref.paper, ref.file)
        sel = t
        nth = None
        for col, value in ref.where:
            if col == "#":
                nth = int(value)
                continue
            sel = sel[sel[col] == value]
        if nth is not None:
            sel = sel.iloc[[nth]] if 0 <= nth < len(sel) else sel.iloc[[]]
        if len(sel) != 1:
            raise KeyError(f"{ref.paper}/{ref.file}: {len(sel)} rows match {dict(ref.where)} (need one)")
        return sel.index[0], sel.iloc[0]

    def get(self, ref: Ref) -> str:
        """The cell or statement value as printed."""
        if isinstance(ref, Statement):
            st = self.statements()
            if ref.id not in st.index:
                raise KeyError(f"errata_statements.csv has no statement {ref.id!r}")
            return st.loc[ref.id, "value"]
        _, row = self.row(ref)
        if ref.col not in row.index:
            raise KeyError(f"{ref.paper}/{ref.file} has no column {ref.col!r}")
        return row[ref.col]

    def unit(self, ref: Ref) -> str:
        if isinstance(ref, Statement):
            return self.statements().loc[ref.id, "unit"]
        return printed(self.get(ref)).unit

    def value(self, ref) -> str | tuple[Decimal, Decimal]:
        """A printed value, or a recomputed ``(value, error)`` for :class:`Mean` and :class:`Diff`."""
        if isinstance(ref, Mean):
            return mean_with_error([self.get(c) for c in ref.cells])
        if isinstance(ref, Diff):
            a, b = _number(self.get(ref.a)), _number(self.get(ref.b))
            return a.value - b.value, a.error + b.error
        return self.get(ref)

    def shown(self, ref) -> str:
        v = self.value(ref)
        return f"{ref.label} = {_fmt(v[0]) if isinstance(v, tuple) else v}"


def _files(refs: Iterable) -> set[tuple[str, str]]:
    out = set()
    for r in refs:
        if isinstance(r, Cell):
            out.add((r.paper, r.file))
        elif isinstance(r, Mean):
            out |= _files(r.cells)
        elif isinstance(r, Diff):
            out |= _files((r.a, r.b))
    return out


# ------------------------------------------------------------------------------------------------- the checks
@dataclass(frozen=True)
class Result:
    """One item a check looked at: ``off`` items become findings."""

    item: str
    cells: str
    outcome: Outcome


@dataclass
class Check:
    """A named check of one paper: the rule it applies, the statement it tests (with its location) and the
    tables it covers; :meth:`results` yields one :class:`Result` per item it looked at."""

    paper: str
    name: str
    rule: str
    statement: str

    def tables(self) -> set[tuple[str, str]]:
        raise NotImplementedError

    def results(self, book: Book) -> Iterator[Result]:
        raise NotImplementedError


@dataclass
class Average(Check):
    """Every row's printed average(s) against its cells: ``groups`` = [(cells, average column), ...]."""

    file: str = ""
    groups: Sequence[tuple[Sequence[str], str]] = ()
    label: Sequence[str] = ()
    weights: dict[str, float] | None = None
    also: Sequence[str] = ()  # files the check reads besides the table (the weights' source)

    def tables(self):
        return {(self.paper, self.file)} | {(self.paper, f) for f in self.also}

    def results(self, book):
        t = book.table(self.paper, self.file)
        multi = len(self.groups) > 1
        for _, r in t.iterrows():
            name = " · ".join(str(r[c]) for c in self.label if str(r[c]))
            for cells, avg in self.groups:
                if printed(r[avg]) is None:
                    continue  # an average cell that is not printed (lost in the extraction) is not invented
                weights = [self.weights[c] for c in cells] if self.weights else None
                out = average_rule([r[c] for c in cells], r[avg], weights)
                item = f"{name} · {avg}" if multi else name
                yield Result(item, f"{table_name(self.file)} [{name}]: {avg} {r[avg]}; "
                                   + ", ".join(f"{c} {r[c]}" for c in cells), out)


@dataclass
class Total(Check):
    """Sums: ``items`` = [(item, parts, total, counts or None), ...] of references."""

    items: Sequence[tuple[str, Sequence[Ref], Ref, Sequence[int] | None]] = ()

    def tables(self):
        return _files(r for _, parts, total, _ in self.items for r in (*parts, total))

    def results(self, book):
        for item, parts, total, counts in self.items:
            out = total_rule([book.get(p) for p in parts], book.get(total), counts)
            yield Result(item, "; ".join(book.shown(r) for r in (*parts, total)), out)


@dataclass
class Difference(Check):
    """Stated differences: ``items`` = [(item, a, b, stated), ...]: stated = a - b."""

    items: Sequence[tuple[str, Ref, Ref, Ref]] = ()

    def tables(self):
        return _files(r for it in self.items for r in it[1:])

    def results(self, book):
        for item, a, b, stated in self.items:
            yield Result(item, "; ".join(book.shown(r) for r in (a, b, stated)),
                         difference_rule(book.get(a), book.get(b), book.get(stated)))


@dataclass
class Same(Check):
    """One quantity printed twice: ``items`` = [(item, x, y), ...] (``y`` may be a :class:`Mean`)."""

    items: Sequence[tuple[str, Ref, Ref | Mean]] = ()

    def tables(self):
        return _files(r for it in self.items for r in it[1:])

    def results(self, book):
        for item, x, y in self.items:
            yield Result(item, f"{book.shown(x)}; {book.shown(y)}", same_rule(book.get(x), book.value(y)))

    def pairs(self):
        return [(x, y) for _, x, y in self.items if isinstance(y, Cell | Statement)]


@dataclass
class Unit(Check):
    """The unit of a stated quantity against the unit of the cells that print it: [(item, stated, cell), ...]."""

    items: Sequence[tuple[str, Ref, Ref]] = ()

    def tables(self):
        return _files(r for it in self.items for r in it[1:])

    def results(self, book):
        for item, a, b in self.items:
            yield Result(item, f"{book.shown(a)} ({book.unit(a)}); {book.shown(b)}",
                         unit_rule(book.unit(a), book.unit(b)))


@dataclass
class Order(Check):
    """Stated orderings: ``items`` = [(item, [(high, low), ...]), ...]; an item fires when any of its pairs is not
    strictly ordered, and names every pair that is not."""

    items: Sequence[tuple[str, Sequence[tuple[Ref, Ref]]]] = ()

    def tables(self):
        return _files(r for _, pairs in self.items for pair in pairs for r in pair)

    def results(self, book):
        for item, pairs in self.items:
            outs = [(hi, lo, order_rule(book.get(hi), book.get(lo))) for hi, lo in pairs]
            bad = [(hi, lo, o) for hi, lo, o in outs if o.off]
            shown = bad or outs[:1]
            cells = "; ".join(f"{hi.label} > {lo.label}" for hi, lo, _ in shown)
            detail = "; ".join(o.detail for _, _, o in bad) if bad else f"all {len(pairs)} pair(s) hold"
            yield Result(item, cells, Outcome(bool(bad), detail))


@dataclass
class Range(Check):
    """A stated range against the values it summarises: ``low``, ``high`` and [(item, value), ...]."""

    low: Ref | None = None
    high: Ref | None = None
    items: Sequence[tuple[str, Ref | Diff]] = ()

    def tables(self):
        return _files([self.low, self.high, *(v for _, v in self.items)])

    def results(self, book):
        for item, v in self.items:
            yield Result(item, f"{book.shown(v)}; range {book.shown(self.low)} to {book.shown(self.high)}",
                         range_rule(book.value(v), book.get(self.low), book.get(self.high)))


@dataclass
class Grid(Check):
    """Chosen settings against a stated search interval (``low``/``high``) or set (``allowed``): one item, every
    cell of ``cells``; the finding names the cells outside."""

    cells: Sequence[Cell] = ()
    low: Ref | None = None
    high: Ref | None = None
    allowed: Callable[[Book], Sequence[str]] | None = None
    item: str = ""

    def tables(self):
        return _files([*self.cells, self.low, self.high])

    def results(self, book):
        if self.allowed is not None:
            allowed = self.allowed(book)
            outs = [(c, set_rule(book.get(c), allowed)) for c in self.cells]
        else:
            outs = [(c, interval_rule(book.get(c), book.get(self.low), book.get(self.high))) for c in self.cells]
        bad = [(c, o) for c, o in outs if o.off]
        detail = "; ".join(f"{c.label}: {o.detail}" for c, o in bad) or "every setting inside"
        yield Result(self.item, "; ".join(book.shown(c) for c in self.cells), Outcome(bool(bad), detail))


@dataclass
class Significance(Check):
    """A statement that every p-value of ``cells`` is below ``bound`` except ``exceptions`` (one item)."""

    cells: Sequence[Cell] = ()
    bound: Ref | None = None
    exceptions: Sequence[Cell] = ()
    item: str = ""

    def tables(self):
        return _files([*self.cells, self.bound])

    def results(self, book):
        values = {c.label: book.get(c) for c in self.cells}
        out = significance_rule(values, book.get(self.bound), [c.label for c in self.exceptions])
        yield Result(self.item, f"bound {book.shown(self.bound)}; {len(values)} p-values of "
                                f"{self.cells[0].table}" + (f", except {', '.join(c.label for c in self.exceptions)}"
                                                            if self.exceptions else ""), out)


@dataclass
class PValue(Check):
    """A printed p-value against the tests between named rows: ``items`` = [(item, row_a, row_b)] of cells."""

    stated: Ref | None = None
    items: Sequence[tuple[str, Sequence[Cell], Sequence[Cell]]] = ()

    def tables(self):
        return _files([self.stated, *(c for _, a, b in self.items for c in (*a, *b))])

    def results(self, book):
        for item, a, b in self.items:
            cand = p_value_candidates([book.get(c) for c in a], [book.get(c) for c in b])
            yield Result(item, f"{book.shown(self.stated)}; {a[0].label} ... vs {b[0].label} ...",
                         p_value_rule(book.get(self.stated), cand))


@dataclass
class Marks(Check):
    """Cells the caption calls the ``extreme`` of their group that are not: ``mark_col`` lists the marked columns
    of each row; ``groups`` maps a group name to (rows selector, [columns])."""

    file: str = ""
    label: Sequence[str] = ()
    mark_col: str = ""
    group_rows: Callable | None = None  # frame -> iterable of (group name, sub-frame)
    cols: Sequence[str] = ()
    extreme: str = "min"

    def tables(self):
        return {(self.paper, self.file)}

    def results(self, book):
        t = book.table(self.paper, self.file)
        for _, sub in self.group_rows(t):
            for col in self.cols:
                names = {i: " · ".join(str(sub.loc[i, c]) for c in self.label if str(sub.loc[i, c])) for i in sub.index}
                values = {names[i]: sub.loc[i, col] for i in sub.index}
                marked = [names[i] for i in sub.index if col in sub.loc[i, self.mark_col].split(";")]
                for name, out in marks_rule(values, marked, self.extreme):
                    yield Result(f"{name} · {col}", f"{table_name(self.file)} [{name}, {col}] = "
                                                              f"{values[name]} (marked)", out)


@dataclass
class Repeated(Check):
    """Blocks of identical cells inside one table (:func:`repeated_runs`)."""

    file: str = ""
    label: Sequence[str] = ()
    cols: Sequence[str] = ()
    min_run: int = 2

    def tables(self):
        return {(self.paper, self.file)}

    def results(self, book):
        t = book.table(self.paper, self.file)
        runs = repeated_runs(t, self.label, self.cols, self.min_run)
        for item, detail in runs:
            yield Result(item, f"{table_name(self.file)}: {detail}", Outcome(True, detail))
        if not runs:
            yield Result("", f"{table_name(self.file)}: {len(t)} rows x {len(self.cols)} columns",
                         Outcome(False, "no repeated block"))


@dataclass
class RepeatedAcross(Check):
    """Rows of different tables of one paper that share a run of identical cells (:func:`common_runs`), apart
    from the cells that the paper's ``declared`` cross-references (:class:`Same` checks) say are one quantity.
    ``sources`` = [(file, label columns, value columns), ...]."""

    sources: Sequence[tuple[str, Sequence[str], Sequence[str]]] = ()
    declared: Sequence[Same] = ()
    min_run: int = 3

    def tables(self):
        return {(self.paper, f) for f, _, _ in self.sources}

    def results(self, book):
        same = set()
        for check in self.declared:
            for x, y in check.pairs():
                if isinstance(x, Cell) and isinstance(y, Cell):
                    cx, cy = (x.file, book.row(x)[0], x.col), (y.file, book.row(y)[0], y.col)
                    same |= {(cx, cy), (cy, cx)}
        rows = []
        for file, label, cols in self.sources:
            for idx, r in book.table(self.paper, file).iterrows():
                name = " · ".join(str(r[c]) for c in label if str(r[c]))
                rows.append((file, idx, f"{table_name(file)} [{name}]", [(c, str(r[c]).strip()) for c in cols]))
        found = False
        for (fa, ia, na, ca), (fb, ib, nb, cb) in combinations(rows, 2):
            if fa == fb:
                continue  # inside one table: Repeated
            def declared(a, b, left=(fa, ia), right=(fb, ib)):
                return ((*left, a), (*right, b)) in same

            for run in common_runs(ca, cb, self.min_run, declared):
                found = True
                cells = ", ".join(f"{a} {v}" for a, _, v in run)
                yield Result(f"{na} = {nb}", f"{na} and {nb} print the same {cells}",
                             Outcome(True, f"{len(run)} identical cells in a row, not a stated cross-reference"))
        if not found:
            yield Result("", f"{len(rows)} rows of {len(self.sources)} tables", Outcome(False, "no repeated run"))


@dataclass
class Count(Check):
    """Rows per group against a stated number: ``group_col`` of ``file``, stated ``Ref`` (``at_most``: up to)."""

    file: str = ""
    group_col: str = ""
    stated: Ref | None = None
    at_most: bool = True

    def tables(self):
        return {(self.paper, self.file)} | _files([self.stated])

    def results(self, book):
        t = book.table(self.paper, self.file)
        for group, n in t.groupby(self.group_col, sort=False).size().items():
            yield Result(str(group), f"{table_name(self.file)}: {n} row(s) of {group}; {book.shown(self.stated)}",
                         count_rule(int(n), book.get(self.stated), at_most=self.at_most))


@dataclass
class Nothing(Check):
    """A table with nothing to recompute, and why (a settings table, a table whose body is not in the text)."""

    file: str = ""

    def tables(self):
        return {(self.paper, self.file)}

    def results(self, book):
        return iter(())


@dataclass
class Custom(Check):
    """A check written as a function ``book -> [Result, ...]`` over the files it names."""

    files: Sequence[str] = ()
    fn: Callable[[Book], Iterable[Result]] | None = None

    def tables(self):
        return {(self.paper, f) for f in self.files}

    def results(self, book):
        yield from self.fn(book)


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
        import pandas as pd

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
    import pandas as pd

    root = Path(root)
    text = (root / "notebooks" / "synthesis" / "00-errata.pct.py").read_text(encoding="utf-8")
    ids = set(re.findall(r"ledger\.claim\(\s*\"([\w.-]+:[\w.-]+)\"", text))
    ev = pd.read_csv(root / "data" / "synthesis" / "errata_evidence.csv", comment="#", dtype=str)
    st = pd.read_csv(root / "data" / "synthesis" / "errata_statements.csv", comment="#", dtype=str).set_index("id")
    for erratum in ev["erratum"].unique():
        paper = st.loc[erratum, "paper"] if erratum in st.index else erratum.split("-")[0]
        ids.add(f"{paper}:{erratum[len(paper) + 1:] if erratum.startswith(paper + '-') else erratum}")
    return ids


def read_dispositions(root: str | Path) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """``audit_errata.csv`` (key -> erratum id) and ``audit_allow.csv`` (key -> (reason, explanation)); a key
    listed twice in one file raises."""
    import pandas as pd

    folder = Path(root) / "data" / "synthesis"
    er = pd.read_csv(folder / "audit_errata.csv", comment="#", dtype=str, keep_default_na=False)
    al = pd.read_csv(folder / "audit_allow.csv", comment="#", dtype=str, keep_default_na=False)
    for name, df in (("audit_errata.csv", er), ("audit_allow.csv", al)):
        dup = df["key"][df["key"].duplicated()].tolist()
        if dup:
            raise ValueError(f"data/synthesis/{name} lists {dup} twice")
    return (dict(zip(er["key"], er["erratum"])),
            {k: (r, e) for k, r, e in zip(al["key"], al["reason"], al["explanation"])})


def audit(root: str | Path | None = None, papers: Sequence[str] | None = None) -> Report:
    """Run every check of :func:`checks` (the given ``papers``, default all five) on the transcriptions under
    ``root`` (default: the checkout) and attach each finding's disposition."""
    from companion import settings
    from companion.papers.synthesis.audit_checks import checks

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
    from companion.sources import PAPERS

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
