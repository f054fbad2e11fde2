"""What a notebook shows its reader: numbers to their meaning, whole tables, figures that fit the page.

Display only: nothing here changes a value that is computed, stored or judged.

* :func:`reader_display` — called once in each notebook's imports cell: pandas shows every row, column and the
  whole text of every cell (no ``…``), and writes floats to three significant digits (:func:`significant`);
  numpy prints arrays the same way.
* :func:`significant` — one float as the site writes it (``companion.publish.site.format.number``): three
  significant digits, scientific below 10⁻³ and from 10⁵, integral values without decimals.
* :func:`panel_grid` — a figure of ``n`` panels at most :data:`FIGURE_WIDTH_IN` wide, at most
  :data:`PANELS_PER_ROW` panels a row: the site shows a figure in a 749-px text column, so a wider figure shrinks
  its text below legibility (``python -m companion site --check --strict`` reports it).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

#: The widest figure (inches) whose 10-pt tick labels stay legible in the site's text column at any dpi.
FIGURE_WIDTH_IN = 10.0
#: Panels a figure row holds at that width; more go to further rows.
PANELS_PER_ROW = 3


def significant(value: Any, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits: ``0.123``, ``81.6``, ``80698``, ``1.19e-07``, ``2.41e+05``;
    an integral float below 10⁵ without decimals; NaN as ``NaN``; anything not a float as its text."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude < 1e-3 or magnitude >= 1e5:
        return f"{value:.{digits - 1}e}"
    if value.is_integer():
        return str(int(value))
    decimals = max(digits - 1 - math.floor(math.log10(magnitude)), 0)
    return f"{value:.{decimals}f}"


def reader_display(digits: int = 3) -> None:
    """Set pandas and numpy to show results whole and to their meaning (see the module docstring)."""
    def short(value: float) -> str:
        return significant(value, digits)

    pd.set_option("display.max_colwidth", None)
    pd.set_option("display.max_rows", None)
    pd.set_option("display.max_columns", None)
    pd.set_option("display.width", 120)
    pd.set_option("display.float_format", short)
    np.set_printoptions(formatter={"float_kind": short}, linewidth=120)


def panel_grid(n: int, panel_height: float = 3.4, per_row: int = PANELS_PER_ROW, width: float = FIGURE_WIDTH_IN,
               **subplots: Any):
    """``(fig, axes)``: ``n`` panels in rows of at most ``per_row``, the figure ``width`` inches wide (at most
    :data:`FIGURE_WIDTH_IN`), each row ``panel_height`` tall; ``axes`` is a flat list of the ``n`` axes (unused
    grid cells are hidden). ``subplots`` go to :func:`matplotlib.pyplot.subplots` (``sharey=True``, …)."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    if n < 1:
        raise ValueError(f"panel_grid() needs at least one panel, got n={n}")
    cols = min(n, per_row)
    rows = -(-n // cols)
    fig, grid = plt.subplots(rows, cols, figsize=(min(width, FIGURE_WIDTH_IN), panel_height * rows), squeeze=False,
                             **subplots)
    axes = list(grid.flat)
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[:n]
