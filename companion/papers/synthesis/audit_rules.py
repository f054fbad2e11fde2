"""The table auditor's rules: a number as printed, with the rounding error its print allows, and one small function
per rule on printed cells, so that a synthetic table can make it fire or not (the auditor is
:mod:`companion.papers.synthesis.audit`).

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
``marks``       the caption's marks both ways: a cell marked (underlined) as its group's extreme that is not that
                extreme, and a group's extreme that is not marked (ties: one marked tied cell marks the extreme)
``repeated``    a block of identical cells repeated across rows or columns of one table, or across tables, and
                one row printing the same number in adjacent columns
``count``       a stated number of rows per group against the rows the table has
==============  ====================================================================================================

**Rounding.** A number printed with ``d`` decimals (times its multiplier: ``3k``, ``2.2M``) stands for any value
within half a unit of its last digit (:attr:`Printed.error`). A recomputed quantity carries the errors of its
inputs: the mean of printed cells is off by at most the largest cell error, a sum or a difference by the sum of
the errors. A check fires only when the printed value lies outside the recomputed value's error plus its own. Two
prints of one quantity with the same precision must be identical (rounding one number twice gives one print);
with different precisions they must agree within both errors.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations

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


def require_printed(cell) -> Printed:
    """:func:`printed`, or a ``ValueError`` for a cell that is not one printed number."""
    p = printed(cell)
    if p is None:
        raise ValueError(f"not a printed number: {cell!r}")
    return p


def format_recomputed(x: Decimal, places: int = 4) -> str:
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
    values = [require_printed(c) for c in cells]
    w = [Decimal(str(x)) for x in (weights or [1] * len(values))]
    mean = sum((p.value * wi for p, wi in zip(values, w)), Decimal(0)) / sum(w)
    return mean, max(p.error for p in values)


def average_rule(cells: Sequence[str], average: str, weights: Sequence[float] | None = None) -> Outcome:
    """``average`` against the (``weights``-weighted) mean of ``cells``: off when they differ by more than the
    mean's rounding error plus the average's."""
    mean, err = mean_with_error(cells, weights)
    avg = require_printed(average)
    gap, tol = abs(avg.value - mean), err + avg.error
    return Outcome(gap > tol, f"printed {avg} vs mean of the cells {format_recomputed(mean)} (|difference| {format_recomputed(gap)}, "
                              f"rounding allows {format_recomputed(tol)})")


def total_rule(parts: Sequence[str], total: str, counts: Sequence[int] | None = None) -> Outcome:
    """``total`` against the sum of ``parts`` (each times its count, default 1): off beyond the summed errors."""
    ps = [require_printed(c) for c in parts]
    n = list(counts or [1] * len(ps))
    s = sum((p.value * k for p, k in zip(ps, n)), Decimal(0))
    err = sum((p.error * k for p, k in zip(ps, n)), Decimal(0))
    t = require_printed(total)
    gap, tol = abs(t.value - s), err + t.error
    return Outcome(gap > tol, f"printed {t} vs sum {format_recomputed(s)} (|difference| {format_recomputed(gap)}, rounding allows {format_recomputed(tol)})")


def difference_rule(a: str, b: str, stated: str) -> Outcome:
    """A stated difference ``stated`` against ``a - b`` of the printed cells."""
    pa, pb, ps = require_printed(a), require_printed(b), require_printed(stated)
    d = pa.value - pb.value
    gap, tol = abs(ps.value - d), pa.error + pb.error + ps.error
    return Outcome(gap > tol, f"stated {ps} vs {pa} - {pb} = {format_recomputed(d)} (|difference| {format_recomputed(gap)}, rounding allows "
                              f"{format_recomputed(tol)})")


def same_rule(x: str, y: str | tuple[Decimal, Decimal]) -> Outcome:
    """Two prints of one quantity: identical when printed with the same precision, else within both errors. ``y``
    may be a recomputed ``(value, error)`` (a mean whose printed cell is lost). Different unit signs are a
    different rule (:func:`unit_rule`)."""
    px = require_printed(x)
    if isinstance(y, tuple):
        yv, ye, ytext = y[0], y[1], f"{format_recomputed(y[0])} (recomputed)"
        same_precision = False
    else:
        py = require_printed(y)
        yv, ye, ytext, same_precision = py.value, py.error, str(py), py.error == px.error
    gap = abs(px.value - yv)
    off = gap != 0 if same_precision else gap > px.error + ye
    allowed = "none (same precision)" if same_precision else format_recomputed(px.error + ye)
    return Outcome(off, f"{px} vs {ytext} (|difference| {format_recomputed(gap)}, rounding allows {allowed})")


def unit_rule(unit_a: str, unit_b: str) -> Outcome:
    """The same quantity with two different units (``radians`` vs ``degrees``)."""
    canon = {"°": "degrees", "degree": "degrees", "deg": "degrees", "rad": "radians", "radian": "radians"}
    a, b = canon.get(unit_a, unit_a), canon.get(unit_b, unit_b)
    return Outcome(a != b, f"unit {a} vs {b}")


def order_rule(high: str, low: str) -> Outcome:
    """``high`` is said to be above ``low``: off when it is not strictly above (a tie is not above)."""
    ph, pl = require_printed(high), require_printed(low)
    return Outcome(not ph.value > pl.value, f"{ph} {'>' if ph.value > pl.value else '<=' } {pl}")


def range_rule(value: str | tuple[Decimal, Decimal], low: str, high: str) -> Outcome:
    """A value (printed, or recomputed with its error) against a stated range ``[low, high]``, with rounding."""
    lo, hi = require_printed(low), require_printed(high)
    if isinstance(value, tuple):
        v, e, text = value[0], value[1], format_recomputed(value[0])
    else:
        pv = require_printed(value)
        v, e, text = pv.value, pv.error, str(pv)
    off = v + e < lo.value - lo.error or v - e > hi.value + hi.error
    return Outcome(off, f"{text} {'outside' if off else 'inside'} [{lo}, {hi}]")


def interval_rule(value: str, low: str, high: str) -> Outcome:
    """A chosen setting against the interval it is said to be searched in (no rounding: settings are exact)."""
    v, lo, hi = require_printed(value), require_printed(low), require_printed(high)
    off = not lo.value <= v.value <= hi.value
    return Outcome(off, f"{v} {'outside' if off else 'inside'} [{lo}, {hi}]")


def set_rule(value: str, allowed: Sequence[str]) -> Outcome:
    """A chosen setting against the set it is said to be searched in."""
    v = require_printed(value)
    ok = any(v.value == require_printed(a).value for a in allowed)
    return Outcome(not ok, f"{v} {'in' if ok else 'not in'} {{{', '.join(allowed)}}}")


def significance_rule(p_values: dict[str, str], bound: str, exceptions: Iterable[str] = ()) -> Outcome:
    """A statement "every p-value below ``bound`` (except ``exceptions``)" against the printed p-values
    (``label -> cell``; ``N/A`` cells are skipped). A p-value printed as the bound itself is read as at the bound
    (the tables print nothing smaller), so only values above it contradict the statement."""
    b = require_printed(bound)
    skip = set(exceptions)
    above = [f"{k} {v}" for k, v in p_values.items() if k not in skip and printed(v) is not None
             and require_printed(v).value > b.value]
    return Outcome(bool(above), f"above {b}: {'; '.join(above)}" if above else f"every p-value <= {b}")


def p_value_candidates(x: Sequence[str], y: Sequence[str]) -> dict[str, float]:
    """p-values (in %) of the tests a reader could mean by "a t-test" between two rows over the same columns:
    paired t (two- and one-sided), Student and Welch t, Wilcoxon signed-rank."""
    from scipy import stats  # noqa: PLC0415 - scipy is heavy; this module imports without it

    a = [float(require_printed(c).value) for c in x]
    b = [float(require_printed(c).value) for c in y]
    d = [u - v for u, v in zip(a, b)]
    return {k: float(v) for k, v in {"paired t": 100 * stats.ttest_rel(a, b).pvalue,
            "paired t, one-sided": 100 * stats.ttest_rel(a, b, alternative="greater").pvalue,
            "Student t": 100 * stats.ttest_ind(a, b).pvalue,
            "Welch t": 100 * stats.ttest_ind(a, b, equal_var=False).pvalue,
            "Wilcoxon": 100 * stats.wilcoxon(d).pvalue}.items()}


def p_value_rule(stated: str, candidates: dict[str, float]) -> Outcome:
    """A printed p-value (in %) against the candidates :func:`p_value_candidates` computes: off when none of them
    rounds to the printed value."""
    s = require_printed(stated)
    hit = [k for k, v in candidates.items() if abs(Decimal(repr(v)) - s.value) <= s.error]
    closest = min(candidates, key=lambda k: abs(candidates[k] - float(s.value)))
    return Outcome(not hit, f"stated {s} %; " + (f"matches {', '.join(hit)}" if hit else
                                                 f"closest {closest} {candidates[closest]:.2f} %"))


def marks_rule(values: dict[str, str], marked: Iterable[str], extreme: str = "min") -> list[tuple[str, Outcome]]:
    """The caption's marks checked both ways on one group ``values`` (``label -> cell``): every ``marked`` cell must
    be the group's ``extreme`` (``min`` or ``max``), and the extreme must be marked. Cells are compared as printed;
    cells tied at the extreme are one extreme, marked when any of them is (so an unmarked tied cell beside a marked
    one is not flagged). Returns ``(label, outcome)`` for every marked cell, then for every cell at the extreme when
    none of them is marked (each off)."""
    nums = {k: require_printed(v).value for k, v in values.items()}
    best = min(nums.values()) if extreme == "min" else max(nums.values())
    at_best = [k for k in values if nums[k] == best]
    marked = [k for k in marked]
    out = [(k, Outcome(nums[k] != best, f"marked {values[k]}, the {extreme} is {format_recomputed(best)}"))
           for k in marked]
    if not any(k in marked for k in at_best):
        tie = f" (tied by {len(at_best)} cells)" if len(at_best) > 1 else ""
        shown = f"marked {', '.join(values[k] for k in marked)}" if marked else "none marked"
        out += [(k, Outcome(True, f"the {extreme} {values[k]}{tie} is not marked ({shown})")) for k in at_best]
    return out


def count_rule(n_rows: int, stated: str, *, at_most: bool) -> Outcome:
    """The rows a table has for a group against the stated number (``at_most``: "up to")."""
    s = int(require_printed(stated).value)
    off = n_rows > s if at_most else n_rows != s
    return Outcome(off, f"{n_rows} row(s), stated {'up to ' if at_most else ''}{s}")


def repeated_runs(frame, label: Sequence[str], cols: Sequence[str], min_run: int = 2) -> list[tuple[str, str]]:
    """Blocks of identical printed numbers inside one table: two rows equal on at least ``min_run`` adjacent
    columns, two columns equal on at least ``min_run`` adjacent rows, or one row printing the same number in at
    least ``min_run`` adjacent columns. Returns ``(item, detail)`` pairs."""
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
    for i, g in enumerate(grid):  # within one row: maximal spans of adjacent equal printed cells
        start = 0
        for k in range(1, len(g) + 1):
            if k < len(g) and printed(g[k]) is not None and g[k] == g[start]:
                continue
            if k - start >= min_run and printed(g[start]) is not None:
                span = cols[start:k]
                out.append((f"row {names[i]} ({' = '.join(span)})",
                            f"row {names[i]} prints {g[start]} in {k - start} adjacent columns ({', '.join(span)})"))
            start = k
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

