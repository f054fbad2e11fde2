"""The papers' transcribed tables: every CSV under ``data/<paper>/`` of the checkout, read in one place.

A transcription holds what a paper prints, cell for cell: one of its tables (``table4.csv``), the numbers its prose
and captions state (``prose.csv``), or, for the synthesis notebooks, the statements the errata test
(``data/synthesis/errata_statements.csv``). Each row names where the paper prints it (a ``source`` column, checked
against the paper text by the source checks); leading ``#`` lines are comments.

:func:`paper_table` is the one reader: by default every cell is a string exactly as printed (``"86.20"`` keeps its
zero, ``"N/A"`` and ``"3k"`` stay text, an empty cell is ``""``), which is what a comparison with the printed value
needs; ``parse=True`` lets pandas read numbers as numbers and empty cells as missing, for plotting or arithmetic.
:func:`prose_number` reads one number of a paper's ``prose.csv`` with its source.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from companion import settings as _settings

__all__ = ["paper_table", "prose_number", "table_names"]


def _data_dir(root: str | Path | None) -> Path:
    return (Path(root) if root is not None else _settings.repo_root()) / "data"


def table_names(paper: str, root: str | Path | None = None) -> list[str]:
    """The names of the transcribed tables of ``paper`` (``data/<paper>/*.csv`` without ``.csv``), sorted; empty
    when the paper has none. ``root``: the checkout (default: the one this package runs from)."""
    return sorted(p.stem for p in (_data_dir(root) / paper).glob("*.csv"))


def paper_table(paper: str, name: str, *, parse: bool = False, root: str | Path | None = None) -> pd.DataFrame:
    """The transcribed table ``data/<paper>/<name>.csv`` (``name`` with or without ``.csv``; ``#`` lines skipped).

    Every cell is a string as printed and an empty cell is ``""`` (nothing is parsed or filled in); ``parse=True``
    reads it as pandas does by default instead (numbers as numbers, empty cells as missing). ``root`` is the
    checkout (default: the one this package runs from). An unknown paper or table is one ``ValueError`` that lists
    what exists.
    """
    data = _data_dir(root)
    names = table_names(paper, root)
    if not names:
        have = sorted(d.name for d in data.iterdir() if d.is_dir() and any(d.glob("*.csv"))) if data.is_dir() else []
        raise ValueError(f"No transcribed tables for paper {paper!r} under {data}; papers with tables: "
                         f"{', '.join(have) or 'none'}.")
    stem = name.removesuffix(".csv")
    if stem not in names:
        raise ValueError(f"No table {stem!r} in data/{paper}/; its tables: {', '.join(names)}.")
    path = data / paper / f"{stem}.csv"
    if parse:
        return pd.read_csv(path, comment="#")
    return pd.read_csv(path, comment="#", dtype=str, keep_default_na=False)


def prose_number(paper: str, quantity_start: str, *, root: str | Path | None = None) -> tuple[float, str]:
    """The number ``paper`` prints in its prose for the quantity of ``data/<paper>/prose.csv`` (columns quantity,
    value, source, ...) whose name starts with ``quantity_start``, with its source: paper values read in one place
    instead of typed into notebook cells. Raises ``KeyError`` when no row or several rows match."""
    df = paper_table(paper, "prose", root=root)
    hit = df[df["quantity"].str.startswith(quantity_start)]
    if len(hit) != 1:
        raise KeyError(f"{len(hit)} rows of data/{paper}/prose.csv start with {quantity_start!r}; need one.")
    return float(hit["value"].iloc[0]), str(hit["source"].iloc[0])
