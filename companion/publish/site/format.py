"""Reader-facing text for the website: numbers written to their meaning, claim values in words, and pipe tables
whose columns suit their content.

* :func:`number` — three significant digits; very small or very large values as ``4.07 × 10⁻⁵``; integers as
  integers; booleans as *yes*/*no*.
* :func:`estimate` — an estimate with its 95 % interval, all three to the decimals the interval's width supports
  (two significant digits of the half-width): ``0.140 [0.118, 0.162] (n = 3)``; with the design's minimum
  detectable effect and, where test items were resampled too, the interval over seeds and items:
  ``+0.140 [+0.118, +0.162] (n = 3), seeds and items [+0.101, +0.180], MDE 0.045``.
* :func:`ci_decimals` / :func:`measured` — the one rule behind every number with an uncertainty: as many decimals
  as two significant digits of the interval's half-width (``81.61 ± 0.66``, ``0.140 ± 0.022``), never more than
  the value itself can carry. :func:`estimate` and the pages' bottom lines use it.
* :func:`tidy_numbers` — free text from the ledger (reasons, notes, regimes) with machine-length floats
  (``0.2409999966621399``) written to three significant digits; :func:`long_numbers` finds the ones left.
* :func:`value_text` — any stored ``paper_value``/``ours`` in words: a dict of booleans becomes "both hold" or
  "2 of 3 hold; not: …", a dict of numbers ``name = value; …``.
* :func:`conditions` — a dict of booleans as a markdown list, one condition per line with *holds* / *does not hold*.
* :func:`md_escape` — ledger text made inert for Pandoc (``*``, ``_``, ``^``, ``~``, ``$``, ``<``, … escaped).
* :func:`column_widths` — separator dashes for a pipe table. Pandoc gives a table wider than 72 characters
  relative column widths from its dashes; equal dashes make equal columns, so a short column wastes room and a
  long one gets squeezed.
"""

from __future__ import annotations

import math
import re
from typing import Any

MINUS = "\u2212"
_SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
PANDOC_COLUMNS = 72  # Pandoc's default --columns: wider pipe tables get relative widths from their dashes


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _signed(text: str) -> str:
    return MINUS + text[1:] if text.startswith("-") else text


def scientific(value: float, digits: int = 3) -> str:
    """``value`` as ``m × 10ⁿ`` with ``digits`` significant digits (``4.07 × 10⁻⁵``)."""
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{_signed(mantissa)} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def number(value: Any, digits: int = 3, printed: bool = False) -> str:
    """A number as a reader wants it: ``digits`` significant digits, scientific below 10⁻³ and from 10⁵.

    ``printed=True`` is for a value transcribed from a paper: its own digits are kept (``0.095``, not
    ``0.0950``). Integers (and floats with an integral value below 10⁵) print without decimals, booleans as
    yes/no, anything else as its text."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return _signed(f"{value:,}".replace(",", "\u2009")) if abs(value) >= 10_000 else _signed(str(value))
    if not isinstance(value, float):
        return "" if value is None else str(value)
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "∞" if value > 0 else MINUS + "∞"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude < 1e-3 or magnitude >= 1e5:
        return scientific(value, digits)
    if value.is_integer():
        return _signed(str(int(value)))
    if printed:
        return _signed(f"{value:.6g}")
    decimals = max(digits - 1 - math.floor(math.log10(magnitude)), 0)
    return _signed(f"{value:.{decimals}f}")


def ci_decimals(half_width: Any, scale: Any = None) -> int | None:
    """Decimals that two significant digits of an interval's half-width need (``0.0216`` -> 3, ``0.66`` -> 2,
    ``3.2`` -> 1, ``41`` -> 0), at most 6; ``None`` when the width says nothing (zero, not finite, not a number)
    or the numbers are written in scientific notation anyway (``scale``, the largest magnitude shown, below 10⁻³
    or from 10⁵)."""
    if not _is_number(half_width) or not math.isfinite(half_width) or half_width <= 0:
        return None
    if _is_number(scale) and (not math.isfinite(scale) or not 1e-3 <= abs(scale) < 1e5):
        return None
    return min(max(1 - math.floor(math.log10(abs(half_width))), 0), 6)


def measured(value: Any, half_width: Any, signed: bool = False) -> str:
    """One number to the precision its uncertainty supports (:func:`ci_decimals`); :func:`number` when the
    half-width says nothing. ``signed=True`` writes a ``+`` before a positive value (a difference).

    >>> measured(0.140066, 0.0216), measured(81.6123, 0.661), measured(0.5, 0)
    ('0.140', '81.61', '0.500')"""
    decimals = ci_decimals(half_width, value) if _is_number(value) and math.isfinite(value) else None
    text = _signed(f"{float(value):.{decimals}f}") if decimals is not None else number(value)
    return _plus(text) if signed and _is_number(value) and value > 0 else text


#: a decimal literal in running text (not part of a word, an id or a version number)
_DECIMAL = re.compile(r"(?<![\w.])([-+\u2212]?)(\d+\.\d+)(?:[eE]([-+]?\d+))?(?!\w|\.\d)")
#: arXiv identifiers (2309.12871) look like decimals and are kept as they are
_ARXIV = re.compile(r"^\d{4}\.\d{4,5}$")
#: a number written with this many significant digits or more is a machine float, not a result
LONG_DIGITS = 7


def significant_digits(literal: str) -> int:
    """Significant digits of a decimal literal as written (``0.0950`` -> 3, ``12.50`` -> 4, ``1e-5`` -> 1)."""
    mantissa = re.split(r"[eE]", literal.lstrip("+-−"), maxsplit=1)[0]
    digits = mantissa.replace(".", "").lstrip("0")
    return max(len(digits), 1)


def long_numbers(text: str, digits: int = LONG_DIGITS) -> list[str]:
    """The decimal literals of ``text`` written with at least ``digits`` significant digits (arXiv ids excepted)."""
    return [m.group(0) for m in _DECIMAL.finditer(str(text))
            if not _ARXIV.match(m.group(2)) and significant_digits(m.group(2)) >= digits]


#: in a verdict's reason, a number of this many significant digits or more is a computed one (a tolerance of
#: 1.30277), not one the paper prints (those have four at most): shown to three
REASON_DIGITS = 6


def tidy_numbers(text: Any, digits: int = 3, long: int = LONG_DIGITS) -> str:
    """Free text with every machine-length float (``long`` significant digits or more, :data:`LONG_DIGITS` by
    default) written to ``digits`` significant digits by :func:`number`; shorter numbers, arXiv ids and versions are
    kept."""
    def short(match: re.Match) -> str:
        if _ARXIV.match(match.group(2)) or significant_digits(match.group(2)) < long:
            return match.group(0)
        value = float(match.group(0).replace(MINUS, "-"))
        shown = number(value, digits)
        return "+" + shown if match.group(1) == "+" and value > 0 else shown

    return _DECIMAL.sub(short, "" if text is None else str(text))


def _plus(text: str) -> str:
    """A positive number's text with its sign written out (a difference: ``+0.12``)."""
    return "+" + text


def estimate(value: Any, low: Any = None, high: Any = None, n: int | None = None, *, mde: Any = None,
             items: Any = None, signed: bool = False) -> str:
    """``value [low, high] (n = …)`` with the decimals the interval supports (two significant digits of its
    half-width); without an interval, :func:`number`.

    ``items``: the interval over seeds *and* test items (``(low, high)``, a hierarchical bootstrap), shown after
    the seed interval; ``mde``: the minimum detectable effect of the design, ``, MDE …`` at the end, to the same
    decimals. ``signed=True`` (a difference) writes a ``+`` before positive numbers."""
    bounds = [float(x) for x in (low, high)] if _is_number(low) and _is_number(high) else None
    extra = [float(x) for x in items] if isinstance(items, (list, tuple)) and len(items) == 2 \
        and all(_is_number(x) for x in items) else None
    decimals = None
    if bounds is not None and _is_number(value) and all(math.isfinite(x) for x in (value, *bounds)):
        decimals = ci_decimals(abs(bounds[1] - bounds[0]) / 2, max(abs(value), *map(abs, bounds)))

    def show(x: Any, sign: bool = signed) -> str:
        text = _signed(f"{float(x):.{decimals}f}") if decimals is not None and _is_number(x) \
            and math.isfinite(x) else number(float(x) if _is_number(x) else x)
        return _plus(text) if sign and _is_number(x) and x > 0 else text

    text = show(value) if bounds is not None and _is_number(value) else (
        _plus(number(value)) if signed and _is_number(value) and value > 0 else number(value))
    if bounds is not None and _is_number(value):
        text += f" [{show(bounds[0])}, {show(bounds[1])}]"
    if n:
        text += f" (n = {n})"
    if extra is not None:
        text += f", seeds and items [{show(extra[0])}, {show(extra[1])}]"
    if _is_number(mde) and math.isfinite(mde):
        text += f", MDE {show(mde, sign=False)}"
    return text


def cut(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _holds_summary(flags: dict[str, bool]) -> str:
    true = [k for k, v in flags.items() if v]
    false = [k for k, v in flags.items() if not v]
    total = len(flags)
    if not false:
        return "holds" if total == 1 else ("both hold" if total == 2 else f"all {total} hold")
    if not true:
        return "does not hold" if total == 1 else f"none of {total} holds"
    return f"{len(true)} of {total} hold; not: " + "; ".join(false)


def value_text(value: Any, limit: int | None = None, printed: bool = False) -> str:
    """A stored claim value in words (see the module docstring), cut to ``limit`` characters if given;
    ``printed=True`` keeps the digits of values transcribed from a paper (:func:`number`)."""
    if value is None:
        text = ""
    elif isinstance(value, dict) and value and all(isinstance(v, bool) for v in value.values()):
        text = _holds_summary(value)
    elif isinstance(value, dict):
        text = "; ".join(f"{k} = {value_text(v, printed=printed)}" if _is_number(v) or isinstance(v, bool)
                         else f"{k}: {value_text(v, printed=printed)}" for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        if value and all(isinstance(v, bool) for v in value):
            text = _holds_summary({str(i + 1): v for i, v in enumerate(value)})
        else:
            text = ", ".join(value_text(v, printed=printed) for v in value)
    else:
        text = number(value, printed=printed)
    return cut(text, limit) if limit else text


def conditions(value: dict[str, Any]) -> str:
    """A dict of booleans (or of values) as a markdown list, one line per condition."""
    lines = []
    for key, flag in value.items():
        if isinstance(flag, bool):
            lines.append(f"- **{'holds' if flag else 'does not hold'}**: {ledger_text(key)}")
        else:
            lines.append(f"- {ledger_text(key)}: {ledger_text(value_text(flag))}")
    return "\n".join(lines)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#^~$@])")


def md_escape(text: Any) -> str:
    """Ledger text made inert for Pandoc's markdown: its emphasis, sub/superscript, math, link and raw-HTML
    characters are backslash-escaped (they print as themselves)."""
    return _MD_SPECIAL.sub(r"\\\1", "" if text is None else str(text))


def ledger_text(text: Any, long: int = LONG_DIGITS) -> str:
    """Text from the ledger as a page shows it: machine-length floats (``long`` significant digits or more)
    shortened (:func:`tidy_numbers`), then made inert for Pandoc (:func:`md_escape`)."""
    return md_escape(tidy_numbers(text, long=long))


# --------------------------------------------------------------------------------------------- table widths
_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)")
_MARKUP = re.compile(r"\\(.)|[*`]")
#: A Pandoc bracketed span, ``[text]{.class}``: the reader sees the text, not the brackets and attributes.
_SPAN = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\{[^}]*\}")


def visible(cell: str) -> str:
    """The text a reader sees in a markdown table cell (links, images and bracketed spans by their text, no
    emphasis marks).

    >>> visible("[**? inconclusive**]{.verdict .v-inconclusive} — [was](#x)")
    '? inconclusive — was'
    """
    text = _SPAN.sub(lambda m: m.group(1), _LINK.sub(lambda m: m.group(1), cell))
    return _MARKUP.sub(lambda m: m.group(1) or "", text)


def words(text: str) -> list[str]:
    """The pieces a browser will not break: split at spaces and after a hyphen or dash followed by a letter."""
    return [w for w in re.split(r"\s+|(?<=[-–—])(?=[^\W\d_])", text) if w]


def column_widths(headers: list[str], rows: list[list[str]], cap: int = 80) -> list[int]:
    """Separator dashes per column: the mean visible length of its cells, at least its longest word (and its
    header's) plus two, at most ``cap``."""
    widths = []
    for i, head in enumerate(headers):
        cells = [visible(row[i]) for row in rows if i < len(row)]
        mean = sum(len(c) for c in cells) / len(cells) if cells else len(head)
        word = max((len(w) for c in [visible(head), *cells] for w in words(c)), default=1) + 2
        widths.append(max(3, round(min(max(mean, word), max(cap, word)))))
    return widths


#: a mark per verdict, so that a table reads the same without colour (and printed in grey)
VERDICT_MARKS = {"reproduced": "✔", "partly": "◐", "not reproduced": "✘", "inconclusive": "?", "not testable": "–"}


def verdict_badge(verdict: str) -> str:
    """A verdict as the claims tables show it: its mark and word, bold, in a span whose class
    (``verdict v-<word>``, ``site/styles.css``) gives it its colour from :data:`VERDICT_COLOURS`."""
    mark = VERDICT_MARKS.get(verdict, "")
    return f"[**{mark} {verdict}**]{{.verdict .v-{verdict.replace(' ', '-')}}}" if mark else f"**{verdict}**"
