"""DataFrame tables (pandas' HTML, as notebooks store them) that fit the site's text column instead of scrolling.

A browser gives each table column at least its longest piece that cannot break: a word, an identifier such as
``np_b0_wm_below_b0`` or ``losses.weighted.supcon_weights``, a number. A table whose pieces add up to more than the
text column (:data:`TEXT_COLUMN_PX`, a real render at 1400 px) scrolls sideways, its last columns out of sight.

* :func:`table_widths` estimates, for each table of an HTML output, that least width in pixels (the site shows a
  DataFrame in Quarto's small table style; :func:`text_px` measures a piece by its characters, calibrated on a real
  render); :func:`wide_tables` lists those wider than the column.
* :func:`fit` makes a table fit without changing a value: identifiers get break opportunities (``<wbr>``) after
  ``_ / : = |`` and after a ``.`` or ``,`` followed by a letter, so that a long name wraps at its parts (numbers stay
  whole); a table still wider than :data:`FIT_PX` is cut into as few column groups as fit, as even as possible,
  shown one below the other, each repeating the index columns (merged header cells of a MultiIndex are merged again
  within each group). ``python -m companion notebooks clean`` applies it to every stored ``text/html`` output
  (:mod:`companion.publish.notebook_outputs`); the plain-text form is left as it is.
"""

from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass

#: The site's text column at a 1400-px window (a page in the docked sidebar, table of contents in the margin).
TEXT_COLUMN_PX = 749
#: Width in pixels of a character of a data cell in Quarto's small table style (a real render at 1400 px): most
#: letters and the digits, narrow marks and letters, wide letters, capitals; a header (or index) cell is bold,
#: :data:`BOLD` times as wide; each cell adds :data:`CELL_PAD_PX` of padding.
CHAR_PX, NARROW_PX, WIDE_PX, CAPITAL_PX = 8.3, 4.4, 12.5, 10.2
NARROW = frozenset("'\"ijlrft|!,.:;/I[](){}`*-")
WIDE = frozenset("mwMW%@GOQ")
BOLD = 1.06
CELL_PAD_PX = 8.5
#: What :func:`fit` aims at when it cuts a table into column groups (a margin below the column for the estimate).
FIT_PX = TEXT_COLUMN_PX - 10

_TABLE = re.compile(r"(<table\b[^>]*>)(.*?)</table>", re.S | re.I)
_ROW = re.compile(r"<tr\b([^>]*)>(.*?)</tr>", re.S | re.I)
_CELL = re.compile(r"<t([dh])\b([^>]*)>(.*?)</t\1>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_WBR = re.compile(r"<wbr\s*/?>", re.I)
_BREAK_AFTER = re.compile(r"(?<=[_/:=|])(?=[^\s<])|(?<=[.,])(?=[A-Za-z_])")  # not inside a number (1.5e-4)
# A browser breaks after a hyphen followed by a letter (UAX #14), as in "eq6-literal-constant", not before a digit.
_HYPHEN = re.compile(r"-(?=[A-Za-z])")
_LETTER = re.compile(r"[A-Za-z]")


def _is_number(piece: str) -> bool:
    try:
        float(piece.strip("[](),;%"))
    except ValueError:
        return False
    return True


def _with_breaks(text: str) -> str:
    """Cell HTML ``text`` with ``<wbr>`` after the separators of each identifier-like piece (numbers left whole)."""
    out = []
    for piece in re.split(r"(\s+|<[^>]+>|&[#\w]+;)", _WBR.sub("", text)):
        if piece and not piece.isspace() and not piece.startswith(("<", "&")) and _LETTER.search(piece) \
                and not _is_number(piece):
            piece = _BREAK_AFTER.sub("<wbr>", piece)
        out.append(piece)
    return "".join(out)


def text_px(text: str, bold: bool = False) -> float:
    """The width (pixels) of ``text`` on one line of a table cell (see :data:`CHAR_PX`)."""
    px = sum(NARROW_PX if ch in NARROW else WIDE_PX if ch in WIDE else CAPITAL_PX if ch.isupper() else CHAR_PX
             for ch in text)
    return px * (BOLD if bold else 1.0)


def cell_px(kind: str, inner: str) -> float:
    """The least width (pixels) of one cell: its widest piece that cannot break, plus padding."""
    text = _html.unescape(_TAG.sub(lambda m: "\u200b" if _WBR.fullmatch(m.group()) else "", inner))
    pieces = re.split(r"[\s\u200b]+", _HYPHEN.sub("-\u200b", text))
    return max((text_px(p, kind.lower() == "th") for p in pieces), default=0.0) + CELL_PAD_PX


@dataclass
class _Cell:
    kind: str  # "td" or "th"
    attrs: str  # its attributes, colspan and rowspan removed
    inner: str
    row: int  # the row it starts in
    colspan: int
    rowspan: int


_SPAN = re.compile(r"\s+(col|row)span=[\"']?(\d+)[\"']?", re.I)


def _grid(body: str) -> tuple[list[re.Match], list[list[_Cell]]] | None:
    """The rows of a table body and, for each row, the cell covering each column (a merged cell covers several);
    ``None`` when the rows do not make a rectangle."""
    rows = list(_ROW.finditer(body))
    grid: list[list[_Cell]] = []
    below: dict[tuple[int, int], _Cell] = {}  # slots covered by a cell of a row above (rowspan)
    for r, row in enumerate(rows):
        line: list[_Cell] = []
        for match in _CELL.finditer(row.group(2)):
            while (r, len(line)) in below:
                line.append(below.pop((r, len(line))))
            spans = {kind.lower(): int(n) for kind, n in _SPAN.findall(match.group(2))}
            cell = _Cell("t" + match.group(1).lower(), _SPAN.sub("", match.group(2)), match.group(3), r,
                         max(spans.get("col", 1), 1), max(spans.get("row", 1), 1))
            for dc in range(cell.colspan):
                for dr in range(1, cell.rowspan):
                    below[(r + dr, len(line) + dc)] = cell
            line += [cell] * cell.colspan
        while (r, len(line)) in below:
            line.append(below.pop((r, len(line))))
        grid.append(line)
    if not grid or len({len(line) for line in grid}) != 1 or below:
        return None
    return rows, grid


def _column_px(grid: list[list[_Cell]]) -> list[float]:
    """Least width of each column: its widest single cell, widened where a merged cell needs more than its columns."""
    n = len(grid[0])
    widths = [max([cell_px(c.kind, c.inner) for line in grid for c in [line[j]] if c.colspan == 1] or [0.0])
              for j in range(n)]
    merged = {id(c): (c, j) for line in grid for j, c in reversed(list(enumerate(line))) if c.colspan > 1}
    for cell, first in merged.values():
        need = cell_px(cell.kind, cell.inner) - sum(widths[first:first + cell.colspan])
        for j in range(first, first + cell.colspan) if need > 0 else ():
            widths[j] += need / cell.colspan
    return widths


def table_widths(html: str) -> list[tuple[float, str]]:
    """``(least width in pixels, the first row's text)`` of each table in ``html``; a table whose rows do not make
    a rectangle counts each row's cells in order."""
    out = []
    for table in _TABLE.finditer(html):
        parsed = _grid(table.group(2))
        if parsed is not None:
            widths = _column_px(parsed[1])
        else:
            rows = [list(_CELL.finditer(row.group(2))) for row in _ROW.finditer(table.group(2))]
            widths = [0.0] * max((len(r) for r in rows), default=0)
            for row in rows:
                for j, m in enumerate(row):
                    widths[j] = max(widths[j], cell_px("t" + m.group(1), m.group(3)))
        first = _ROW.search(table.group(2))
        heads = [_html.unescape(_TAG.sub("", m.group(3))).strip() for m in _CELL.finditer(first.group(2))] \
            if first else []
        out.append((sum(widths), ", ".join(h for h in heads if h)[:60]))
    return out


def wide_tables(html: str, width: int = TEXT_COLUMN_PX) -> list[tuple[float, str]]:
    """The tables of ``html`` that need more than ``width`` pixels (they would scroll sideways)."""
    return [(px, heads) for px, heads in table_widths(html) if px > width]


def _pack(widths: list[float], room: float) -> list[list[int]]:
    """Consecutive columns in groups of at most ``room`` pixels each (a column wider than that alone)."""
    groups: list[list[int]] = []
    for j, w in enumerate(widths):
        if groups and sum(widths[i] for i in groups[-1]) + w <= room:
            groups[-1].append(j)
        else:
            groups.append([j])
    return groups


def _row_numbers(body_rows: list[list[_Cell]], k: int) -> bool:
    """Whether the index of a table's body rows is one column of the bare row numbers 0, 1, 2, ... (pandas' default
    index), which tells a reader of a later column group nothing about the row."""
    texts = [_html.unescape(_TAG.sub("", line[0].inner)).strip() for line in body_rows] if k == 1 else []
    return bool(texts) and texts == [str(i) for i in range(len(texts))]


def _cut(open_tag: str, body: str, target: float) -> str | None:
    """The table as column groups shown one below the other, each at most ``target`` pixels with the index columns
    repeated (and the first column too where the index is bare row numbers), as even as the fewest groups allow;
    ``None`` when it fits or cannot be cut."""
    parsed = _grid(body)
    if parsed is None:
        return None
    rows, grid = parsed
    widths = _column_px(grid)
    body_rows = [line for line in grid if any(c.kind == "td" for c in line)] or grid
    k = next((j for j, c in enumerate(body_rows[0]) if c.kind != "th"), len(body_rows[0]))
    if _row_numbers(body_rows, k) and len(widths) > k + 2 and sum(widths[:k + 1]) + max(widths[k + 1:]) <= target:
        k += 1  # an index of bare row numbers keys nothing: the first column (a claim's id) is repeated instead
    data = widths[k:]
    room = target - sum(widths[:k])
    if sum(widths) <= target or not data or room < max(data):
        return None
    groups = _pack(data, room)
    low, high = max(data), room  # the narrowest room that needs no more groups: even groups
    while high - low > 1:
        mid = (low + high) / 2
        low, high = (low, mid) if len(_pack(data, mid)) <= len(groups) else (mid, high)
    groups = [[k + j for j in g] for g in _pack(data, high)]

    def part(columns: list[int]) -> str:
        keep = [*range(k), *columns]

        def row(r: int, match: re.Match) -> str:
            cells, done = [], set()
            for j in keep:
                cell = grid[r][j]
                if id(cell) in done or cell.row != r:
                    continue
                done.add(id(cell))
                span = sum(grid[r][i] is cell for i in keep)
                attrs = cell.attrs + (f' colspan="{span}"' if span > 1 else "") + \
                    (f' rowspan="{cell.rowspan}"' if cell.rowspan > 1 else "")
                cells.append(f"<{cell.kind}{attrs}>{cell.inner}</{cell.kind}>")
            return f"<tr{match.group(1)}>\n      " + "\n      ".join(cells) + "\n    </tr>"

        done_rows = iter(range(len(rows)))
        return f"{open_tag}{_ROW.sub(lambda m: row(next(done_rows), m), body)}</table>"

    return "\n".join(part(g) for g in groups)


def fit(html: str, target: float = FIT_PX) -> str:
    """``html`` with every table made to fit the text column, values unchanged (see the module docstring)."""
    if "<table" not in html.lower():
        return html

    def one(table: re.Match) -> str:
        body = _CELL.sub(lambda c: f"<t{c.group(1)}{c.group(2)}>{_with_breaks(c.group(3))}</t{c.group(1)}>",
                         table.group(2))
        return _cut(table.group(1), body, target) or f"{table.group(1)}{body}</table>"

    return _TABLE.sub(one, html)


__all__ = ["FIT_PX", "TEXT_COLUMN_PX", "cell_px", "fit", "table_widths", "text_px", "wide_tables"]
