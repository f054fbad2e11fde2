"""The kinds of check the auditor runs: each applies one rule (:mod:`companion.papers.synthesis.audit_rules`) to
the cells it names through the :class:`~companion.papers.synthesis.audit_book.Book`, and yields one
:class:`Result` per item it looked at. Which cells each check of each paper names is
:mod:`companion.papers.synthesis.audit_checks`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from companion.papers.synthesis.audit_book import (
    Book,
    Cell,
    Diff,
    Mean,
    Ref,
    Statement,
    ref_tables,
    table_name,
)
from companion.papers.synthesis.audit_rules import (
    Outcome,
    average_rule,
    common_runs,
    count_rule,
    difference_rule,
    interval_rule,
    marks_rule,
    order_rule,
    p_value_candidates,
    p_value_rule,
    printed,
    range_rule,
    repeated_runs,
    same_rule,
    set_rule,
    significance_rule,
    total_rule,
    unit_rule,
)


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
        return ref_tables(r for _, parts, total, _ in self.items for r in (*parts, total))

    def results(self, book):
        for item, parts, total, counts in self.items:
            out = total_rule([book.get(p) for p in parts], book.get(total), counts)
            yield Result(item, "; ".join(book.shown(r) for r in (*parts, total)), out)


@dataclass
class Difference(Check):
    """Stated differences: ``items`` = [(item, a, b, stated), ...]: stated = a - b."""

    items: Sequence[tuple[str, Ref, Ref, Ref]] = ()

    def tables(self):
        return ref_tables(r for it in self.items for r in it[1:])

    def results(self, book):
        for item, a, b, stated in self.items:
            yield Result(item, "; ".join(book.shown(r) for r in (a, b, stated)),
                         difference_rule(book.get(a), book.get(b), book.get(stated)))


@dataclass
class Same(Check):
    """One quantity printed twice: ``items`` = [(item, x, y), ...] (``y`` may be a :class:`Mean`)."""

    items: Sequence[tuple[str, Ref, Ref | Mean]] = ()

    def tables(self):
        return ref_tables(r for it in self.items for r in it[1:])

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
        return ref_tables(r for it in self.items for r in it[1:])

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
        return ref_tables(r for _, pairs in self.items for pair in pairs for r in pair)

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
        return ref_tables([self.low, self.high, *(v for _, v in self.items)])

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
        return ref_tables([*self.cells, self.low, self.high])

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
        return ref_tables([*self.cells, self.bound])

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
        return ref_tables([self.stated, *(c for _, a, b in self.items for c in (*a, *b))])

    def results(self, book):
        for item, a, b in self.items:
            cand = p_value_candidates([book.get(c) for c in a], [book.get(c) for c in b])
            yield Result(item, f"{book.shown(self.stated)}; {a[0].label} and {len(a) - 1} more vs {b[0].label} and {len(b) - 1} more",
                         p_value_rule(book.get(self.stated), cand))


@dataclass
class Marks(Check):
    """The caption's marks checked both ways (:func:`marks_rule`): a marked cell that is not the ``extreme`` of its
    group, and a group's extreme that carries no mark. ``mark_col`` lists the marked columns of each row;
    ``group_rows`` splits the table into the caption's groups (rows a caption excludes, such as "excluding
    Pretrained", are left out there), each compared on every column of ``cols``. Items: ``<row> · <column>`` for a
    marked cell, ``<row> · <column> (unmarked <extreme>)`` for an extreme without a mark."""

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
            names = {i: " · ".join(str(sub.loc[i, c]) for c in self.label if str(sub.loc[i, c])) for i in sub.index}
            for col in self.cols:
                values = {names[i]: sub.loc[i, col] for i in sub.index}
                marked = [names[i] for i in sub.index if col in str(sub.loc[i, self.mark_col]).split(";")]
                for name, out in marks_rule(values, marked, self.extreme):
                    is_marked = name in marked
                    item = f"{name} · {col}" if is_marked else f"{name} · {col} (unmarked {self.extreme})"
                    yield Result(item, f"{table_name(self.file)} [{name}, {col}] = {values[name]} "
                                       f"({'marked' if is_marked else 'not marked'}; group: "
                                       + ", ".join(f"{n} {v}" for n, v in values.items()) + ")", out)


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
        return {(self.paper, self.file)} | ref_tables([self.stated])

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

