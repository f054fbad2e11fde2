"""Are the site's figures legible at the width the page shows them?

A browser shows an image at its own width (one image pixel per CSS pixel), shrunk to the text column when it is
wider (Quarto gives figures ``max-width: 100%``). A figure of ``width_in`` inches saved at ``dpi`` is
``width_in · dpi`` pixels wide, and text of ``pt`` points in it is ``pt / 72 · dpi`` pixels tall; shown in a
column ``column_px`` wide, that text is

    font_px = pt / 72 · dpi · min(1, column_px / (width_in · dpi))

pixels tall (:func:`displayed_font_px`). Once a figure is wider than the column, the dpi cancels: only the width in
inches matters, and a figure wider than ``pt / 72 · column_px / min_px`` inches (:func:`max_width_in`) shows its
``pt``-point text below ``min_px`` pixels, whatever its dpi.

* Notebook figures (:func:`notebook_problems`): the stored PNG gives its width in pixels and its dpi (the ``pHYs``
  chunk matplotlib writes); its smallest text is taken as matplotlib's default tick-label size
  (:data:`TICK_FONT_PT`: a figure that sets smaller text is not caught); notebooks are shown in the default article
  column (:data:`COLUMN_PX`).
* Figures the pages draw at render time (:func:`figure_problems`): the live matplotlib figure gives its size and
  its smallest text exactly; Quarto draws them at :data:`QUARTO_DPI`.

:data:`MIN_FONT_PX` is the threshold: 10 px, the smallest size at which tick labels read without zooming.
"""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path
from typing import Any

from companion.publish.html_tables import TEXT_COLUMN_PX

#: Width of the text column in CSS pixels in a 1400-px browser window with the docked sidebar and the table of
#: contents: the default article layout (measured on the rendered site; the one value tables are fitted to,
#: :data:`companion.publish.html_tables.TEXT_COLUMN_PX`), and ``page-layout: full`` (estimated from it in proportion
#: to the characters per line of :mod:`companion.publish.site.render`).
COLUMN_PX = {"article": TEXT_COLUMN_PX, "full": 999}
#: The smallest text height, in pixels at display width, that a figure may show.
MIN_FONT_PX = 10.0
#: matplotlib's default tick-label size (``xtick.labelsize: medium`` of ``font.size: 10``): the smallest text of a
#: figure that does not set its own.
TICK_FONT_PT = 10.0
#: The dpi Quarto's HTML format draws a page's matplotlib figures at (``fig-dpi``).
QUARTO_DPI = 96
#: A PNG without a ``pHYs`` chunk is taken to be at matplotlib's default figure dpi.
DEFAULT_DPI = 100.0


def displayed_font_px(font_pt: float, width_in: float, dpi: float, column_px: float) -> float:
    """Height in CSS pixels of ``font_pt``-point text of a figure ``width_in`` inches wide saved at ``dpi``, shown
    in a column ``column_px`` pixels wide (shrunk to the column when wider; see the module docstring)."""
    if not (font_pt > 0 and width_in > 0 and dpi > 0 and column_px > 0):
        raise ValueError("displayed_font_px() needs positive sizes, got "
                         f"font_pt={font_pt}, width_in={width_in}, dpi={dpi}, column_px={column_px}")
    image_px = width_in * dpi
    return font_pt / 72 * dpi * min(1.0, column_px / image_px)


def max_width_in(font_pt: float, column_px: float, min_px: float = MIN_FONT_PX) -> float:
    """The widest figure (inches) whose ``font_pt``-point text stays at ``min_px`` or more when shrunk to the
    column (at any dpi high enough for the text to reach ``min_px`` unshrunk)."""
    return font_pt / 72 * column_px / min_px


def png_size(data: bytes) -> tuple[int, int, float | None]:
    """``(width px, height px, dpi)`` of a PNG; dpi from its ``pHYs`` chunk (``None`` without one)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG image")
    width, height = struct.unpack(">II", data[16:24])
    dpi = None
    at = 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"pHYs" and length >= 9:
            x, _, unit = struct.unpack(">IIB", data[at + 8:at + 17])
            dpi = x * 0.0254 if unit == 1 and x else None
            break
        if kind == b"IDAT":
            break
        at += 12 + length
    return width, height, dpi


def image_problem(data: bytes, label: str, column_px: float = COLUMN_PX["article"], font_pt: float = TICK_FONT_PT,
                  min_px: float = MIN_FONT_PX, shown_px: float | None = None) -> str | None:
    """The finding for one stored PNG (``None`` when legible): its text at display width against ``min_px``.
    ``shown_px``: a width the output's metadata sets for the image (it is drawn at that width, at most the
    column)."""
    width, _, dpi = png_size(data)
    dpi = dpi or DEFAULT_DPI
    width_in = width / dpi
    column = min(column_px, shown_px) if shown_px else column_px  # drawn at a set width: a narrower column
    font = displayed_font_px(font_pt, width_in, dpi, column)
    if font >= min_px:
        return None
    return (f"{label}: a figure {width} px wide at {dpi:.0f} dpi ({width_in:.1f} in) is shown {min(width, column):.0f} px "
            f"wide, so its {font_pt:g}-pt text is about {font:.1f} px tall (at least {min_px:g} px needed); draw it at "
            f"most {max_width_in(font_pt, column, min_px):.1f} in wide, or split its panels into rows")


def _shown_width(metadata: Any) -> float | None:
    width = ((metadata or {}).get("image/png") or {}).get("width") if isinstance(metadata, dict) else None
    try:
        return float(width) if width else None
    except (TypeError, ValueError):
        return None


def notebook_problems(path: Path, label: str | None = None, column_px: float = COLUMN_PX["article"],
                      font_pt: float = TICK_FONT_PT, min_px: float = MIN_FONT_PX) -> list[str]:
    """Every stored PNG of a notebook whose text would read below ``min_px`` at display width."""
    label = label or Path(path).name
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    problems = []
    for i, cell in enumerate(nb.get("cells", [])):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            png = (output.get("data") or {}).get("image/png")
            if not png:
                continue
            try:
                data = base64.b64decode("".join(png) if isinstance(png, list) else png)
                found = image_problem(data, f"{label}, cell {i + 1}", column_px, font_pt, min_px,
                                      _shown_width(output.get("metadata")))
            except (ValueError, struct.error):
                found = f"{label}, cell {i + 1}: a stored image/png output is not a readable PNG"
            if found:
                problems.append(found)
    return problems


def smallest_text_pt(fig) -> float | None:
    """The smallest font size (points) of any visible, non-empty text of a matplotlib figure (tick labels, labels,
    legends, annotations); ``None`` when it has no text."""
    from matplotlib.text import Text  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    fig.canvas.draw()  # tick labels exist once drawn
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) if sizes else None


def figure_problems(fig, label: str, column_px: float = COLUMN_PX["full"], dpi: float = QUARTO_DPI,
                    min_px: float = MIN_FONT_PX) -> list[str]:
    """A figure a page draws at render time whose smallest text reads below ``min_px`` at display width."""
    font_pt = smallest_text_pt(fig)
    if font_pt is None:
        return []
    width_in = float(fig.get_figwidth())
    font = displayed_font_px(font_pt, width_in, dpi, column_px)
    if font >= min_px:
        return []
    return [f"{label}: the figure is {width_in:.1f} in wide, drawn at {dpi:g} dpi in a {column_px:g}-px column: its "
            f"smallest text ({font_pt:g} pt) is about {font:.1f} px tall (at least {min_px:g} px needed)"]
