"""What the auditor's checks read: references to printed cells (a row and column of a transcribed table, a
statement of ``data/synthesis/errata_statements.csv``, the mean or the difference of cells) and the :class:`Book`
that reads the transcriptions once, every cell as printed (:func:`companion.papers.tables.paper_table`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from companion.papers.synthesis.audit_rules import (
    format_recomputed,
    mean_with_error,
    printed,
    require_printed,
)
from companion.papers.tables import paper_table


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
        key = (paper, file)
        if key not in self._tables:
            self._tables[key] = paper_table(paper, file, root=self.root)
        return self._tables[key]

    def statements(self):
        if self._statements is None:
            self._statements = paper_table("synthesis", "errata_statements", root=self.root).set_index("id")
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
            a, b = require_printed(self.get(ref.a)), require_printed(self.get(ref.b))
            return a.value - b.value, a.error + b.error
        return self.get(ref)

    def shown(self, ref) -> str:
        """``<where> = <value>``: a cell by its table, row and column; a statement by the place the paper states it."""
        v = self.value(ref)
        label = ref.label
        if isinstance(ref, Statement) and ref.id in self.statements().index:
            label = f"{self.statements().loc[ref.id, 'source'].split('|', 1)[-1].strip()} (stated)"
        return f"{label} = {format_recomputed(v[0]) if isinstance(v, tuple) else v}"


def ref_tables(refs: Iterable) -> set[tuple[str, str]]:
    """The ``(paper, file)`` tables that the references ``refs`` read."""
    out = set()
    for r in refs:
        if isinstance(r, Cell):
            out.add((r.paper, r.file))
        elif isinstance(r, Mean):
            out |= ref_tables(r.cells)
        elif isinstance(r, Diff):
            out |= ref_tables((r.a, r.b))
    return out

