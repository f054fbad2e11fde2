"""Where a paper says it: locate a block of a paper text and check that a number is printed there.

The five paper texts live in ``../shared/papers/<paper>.txt`` (beside the repository; ``COMPANION_PAPERS_DIR``
overrides, and ``$COMPANION_DATA_DIR/../papers`` is tried too). They come from three kinds of extraction, and
the locator knows each:

================  ==============================================================================================
paper             layout of the text
================  ==============================================================================================
``circumplex``    plain lines; tables as tab-separated rows, the table body printed *before* its caption
``angle``         markdown ``#`` headings; tab-separated tables, body before the caption (Tables 1 and 5: after)
``simace``        plain lines with PDF line numbers; markdown ``| ... |`` tables, body before the caption
``weighted-cl``   arXiv HTML: punctuation backslash-escaped, a table's cells run together without separators
``concepts``      arXiv HTML as above, the whole paper on one line; only Table 12 keeps its body
================  ==============================================================================================

A *source* string names a block by its first comma-separated component (before any ``:``):
``Table 4, Emolit, Qwen3 SINCERE-nGPT, V`` (a table: caption plus body), ``Fig. 7 caption`` (a figure: its
caption), ``§5.2`` / ``App. D`` / ``Appendix F.2`` (a section: heading to the next heading of the same or a higher
level), ``Thm 3.13`` / ``Cor. 3.9`` / ``Lemma 3.2`` (the statement and its proof), ``Eq. 6`` (the display that
carries the tag), ``Abstract`` or ``Limitations``. ``App. E, Table 1`` means the Table 1 inside Appendix E (a table
that is not inside the named section leaves the section as the block). A *derived* source names
its inputs after a colon, ``Table 4: 86.26 - 85.28``; :func:`check_claim` evaluates the expression.

:func:`printed` answers "is this number printed in that block, exactly as printed once the escaping is undone":

* candidates are the number's shortest decimal form, the same padded with zeros up to four decimals (JSON drops
  ``86.20``'s zero), an ``e``-notation for very small or large numbers and a ``1,000``-style form;
* in the plain and markdown texts (and in the captions and prose of the HTML texts) a match must stand alone: no
  digit, and no ``.`` followed by a digit, on either side (``0.74`` is not in ``10.745``; ``4`` is not in
  ``4,000``); inside the run-together table bodies of the HTML texts any substring match counts (there is no
  separator to test, which makes those checks weaker);
* signs: a negative value matches ``-0.114`` or ``−0.114`` (a hyphen counts as a minus only where it does not join
  two words or numbers, so ``0-1`` and ``layer-12`` carry no sign), or its magnitude where the text states a decrease
  just before it (``drops by 0.114``, ``lower``, ``reduces``, ``degrades``, ...). A positive value never matches a
  number the text prints with a minus sign.

:func:`mentioned_items` lists the tables, figures and numbered theorem-like statements the text mentions, for
the coverage map (``data/<paper>/coverage.csv``) and :func:`coverage_status` computes the status the site shows.
"""

from __future__ import annotations

import ast
import csv
import json
import math
import os
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path

from companion import papers as _papers
from companion import settings as _settings

PAPERS = _papers.REPRODUCED
#: arXiv-HTML extractions: escaped punctuation, run-together table cells, markdown links.
HTML_PAPERS = frozenset({"weighted-cl", "concepts"})
#: Tables as tab-separated rows (the others: markdown tables in simace, run-together cells in the HTML texts).
TAB_PAPERS = frozenset({"circumplex", "angle"})

COVERAGE_COLUMNS = ("item", "states", "notebook", "claims", "scale_or_reason")
#: CSV columns that are never checked against the paper (our own material or free text).
UNCHECKED_COLUMNS = frozenset({"source", "note"})

_MINUS = "−"  # U+2212, as some extractions print a minus sign


# ----------------------------------------------------------------------------------------------------------------
# Texts
# ----------------------------------------------------------------------------------------------------------------


def papers_dir() -> Path | None:
    """The folder with the paper texts, or ``None`` if none is found.

    Order: ``$COMPANION_PAPERS_DIR``; ``<repo root>/../shared/papers``; ``$COMPANION_DATA_DIR/../papers``.
    """
    candidates: list[Path] = []
    explicit = os.environ.get("COMPANION_PAPERS_DIR")
    if explicit:
        candidates.append(Path(explicit).expanduser())
    try:
        candidates.append(_settings.repo_root().parent / "shared" / "papers")
    except _settings.RepositoryNotFoundError:
        pass  # an installed package outside a checkout: only the settings above can say where the texts are
    data = os.environ.get("COMPANION_DATA_DIR")
    if data:
        candidates.append(Path(data).expanduser().resolve().parent / "papers")
    for candidate in candidates:
        if candidate.is_dir() and any((candidate / _papers.paper(p).text).is_file() for p in PAPERS):
            return candidate.resolve()
    return None


def _check_paper(paper: str) -> None:
    if paper not in PAPERS:
        raise KeyError(f"unknown paper {paper!r} (one of {', '.join(PAPERS)})")


_IMAGE = re.compile(r"!\[[^\]]*\]\((?:https?://|#)[^)\s]*\)")
_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\((?:https?://|#)[^)\s]*\)")
_TAGS = re.compile(r"</?(?:u|b|i|sup|sub|em|strong)>")


@cache
def _raw(paper: str) -> str:
    """The text as the locator reads it: the paper only (no cached-page preface, no 'Similar Articles' list),
    markdown links reduced to their text, ``<u>``/``<b>``/``<i>`` markup removed. The HTML texts keep their
    backslash escapes here (``\\.`` is how a sentence period is told from a URL's dot); see :func:`_unescape`."""
    _check_paper(paper)
    root = papers_dir()
    if root is None:
        raise FileNotFoundError(
            "paper texts not found: set COMPANION_PAPERS_DIR or put them in ../shared/papers beside the repository"
        )
    path = root / _papers.paper(paper).text
    if not path.is_file():
        raise FileNotFoundError(f"paper text {path} is missing")
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    if paper in HTML_PAPERS:
        title = re.search(r"(?m)^# \S", text)
        if title:
            text = text[title.start():]
        cut = re.search(r"(?m)^Similar Articles\s*$", text)
        if cut:
            text = text[: cut.start()]
        text = _IMAGE.sub("", text)
        for _ in range(2):  # links inside link text ([§[4.1](...)](...)) need a second pass
            text = _LINK.sub(r"\1", text)
    return _TAGS.sub("", text)


def _unescape(s: str) -> str:
    """Undo the HTML extraction's backslash escapes (``0\\.126`` -> ``0.126``, ``\\(`` -> ``(``)."""
    return re.sub(r"\\([^\w\s])", r"\1", s)


def _collapse(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


@cache
def paper_text(paper: str) -> str:
    """The normalised text of one paper: escapes undone, markup and links reduced, whitespace collapsed.

    The unicode minus (``−``) is kept as printed. Raises ``FileNotFoundError`` if the texts are not there.
    """
    return _collapse(_unescape(_raw(paper)))


# ----------------------------------------------------------------------------------------------------------------
# Structure: headings, captions, statements
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Heading:
    start: int  # offset of the heading in _raw
    end: int  # offset just after the heading marker line (or marker) -- where its body starts
    label: str  # "5.2", "D", "F.2", "3.7"; "" when unnumbered
    level: int  # 1 = section/appendix, 2 = subsection, ...; 0 = title; 9 = paragraph/statement heading
    kind: str  # "section" | "major" (Abstract, References, ...) | "title" | "para" | "statement" | "proof"
    name: str  # "Theorem" etc. for statements


_MAJOR = re.compile(
    r"(?i)(abstract|references|bibliography|acknowledge?ments?|limitations?|ethic\w*(?: considerations?| statement)?|"
    r"appendix|appendices)\b"
)
_STATEMENT = re.compile(
    r"(Theorem|Lemma|Corollary|Proposition|Definition|Assumption|Remark|Example|Conjecture|Claim)"
    r"(?:\s*([A-Z](?:\.\d+)+|\d+(?:\.\d+)*|[A-Z]\b))?"
)


def _label_level(label: str) -> int:
    return label.count(".") + 1


def _parse_marker_heading(content: str) -> tuple[str, int, str, str]:
    """(label, level, kind, statement name) of a markdown heading's content (unescaped)."""
    content = content.lstrip()
    m = re.match(r"Appendix\s*([A-Z])(?![a-z])", content)
    if m:
        return m.group(1), 1, "section", ""
    m = re.match(r"([A-Z](?:\.\d+)+)(?=[\sA-Z𝕏(]|$)", content)
    if m:
        return m.group(1), _label_level(m.group(1)), "section", ""
    m = re.match(r"(\d{1,2}(?:\.\d{1,2})*)(?=[\sA-Z𝕏(]|$)", content)
    if m:
        return m.group(1), _label_level(m.group(1)), "section", ""
    m = re.match(r"([A-Z])\s+(?=[A-Z])", content)  # "A APPENDIX" (angle)
    if m:
        return m.group(1), 1, "section", ""
    m = _STATEMENT.match(content)
    if m:
        return (m.group(2) or ""), 9, "statement", m.group(1)
    if re.match(r"Proof\b", content):
        return "", 9, "proof", ""
    if _MAJOR.match(content):
        return "", 1, "major", ""
    return "", 9, "para", ""


_PLAIN_HEADING = re.compile(
    r"(?m)^ ?(?:\d{3,4} )?(\d{1,2}|[A-Z])((?:\.\d{1,2})*) ([A-Z][^\n]{0,80}?)(?: \d{3,4})?[ \t]*$"
)
_PLAIN_MAJOR = re.compile(
    r"(?m)^(Abstract|References|Acknowledge?ments?|Limitations?|Ethical Considerations?|Ethics Statement)[ \t]*$"
)
_PLAIN_STATEMENT = re.compile(
    r"(?m)^(Theorem|Lemma|Corollary|Proposition|Definition|Assumption|Remark)(?: ([A-Z]?\d+(?:\.\d+)*|[A-Z]))?"
    r"(?=[ .:(]|$)"
)


@cache
def _headings(paper: str) -> tuple[_Heading, ...]:
    text = _raw(paper)
    out: list[_Heading] = []
    if paper in HTML_PAPERS or paper == "angle":
        for m in re.finditer(r"(?:^|(?<=[\n .)\]]))(#{1,6}) (?=\S)", text):
            content = _unescape(text[m.end(): m.end() + 160])
            if len(m.group(1)) == 1:
                label, level, kind, name = "", 0, "title", ""
            else:
                label, level, kind, name = _parse_marker_heading(content)
            line_end = text.find("\n", m.end())
            end = len(text) if line_end < 0 else line_end
            if paper == "concepts":  # one long line: the body starts right after the marker
                end = m.end()
            out.append(_Heading(m.start(), end, label, level, kind, name))
    else:
        abstract = re.search(r"(?m)^Abstract[ \t]*$", text)
        first = abstract.start() if abstract else 0
        for m in _PLAIN_HEADING.finditer(text):
            title = m.group(3)
            if m.start() < first or title.rstrip().endswith((".", ",", ":", ";", "-")):
                continue
            label = m.group(1) + m.group(2)
            out.append(_Heading(m.start(), m.end(), label, _label_level(label), "section", ""))
        for m in _PLAIN_MAJOR.finditer(text):
            out.append(_Heading(m.start(), m.end(), "", 1, "major", ""))
        for m in _PLAIN_STATEMENT.finditer(text):
            out.append(_Heading(m.start(), m.end(), m.group(2) or "", 9, "statement", m.group(1)))
    out.sort(key=lambda h: h.start)
    return tuple(out)


@dataclass(frozen=True)
class _Caption:
    kind: str  # "Table" | "Figure"
    number: int
    start: int
    end: int
    body: tuple[int, int] | None  # table body span in _raw, if the text has one


# End of a caption in the HTML texts: an escaped period directly followed (no space) by a capital, §, # or a
# link/image -- unless that word is a panel label such as "B0:" or "Centre:"; a heading marker; a line end; or the
# next caption.
_HTML_CAPTION_END = re.compile(
    r"\\\.(?=[A-Z§#\[!])(?![\w\-]{1,12}:)|\n| #{1,6} |(?=(?:Table|Figure) \d+:)"
)
_HTML_SENTENCE_END = re.compile(r"\\\.\s?(?=[A-Z§#\[!])(?![\w\-]{1,12}:)")


def _line_bounds(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, (len(text) if end < 0 else end)


def _is_body_line(paper: str, line: str) -> bool:
    if paper in TAB_PAPERS:
        return "\t" in line
    return line.lstrip().startswith("|")


def _plain_table_body(paper: str, text: str, cap_start: int, cap_end: int) -> tuple[int, int] | None:
    """Contiguous table rows just before the caption (skipping blank lines), else just after it."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    cap_line = text.count("\n", 0, cap_start)

    def run(start: int, step: int) -> tuple[int, int] | None:
        i = start
        while 0 <= i < len(lines) and not lines[i].strip():
            i += step
        rows = []
        while 0 <= i < len(lines) and _is_body_line(paper, lines[i]):
            rows.append(i)
            i += step
        if not rows:
            return None
        lo, hi = min(rows), max(rows)
        return offsets[lo], offsets[hi] + len(lines[hi])

    return run(cap_line - 1, -1) or run(text.count("\n", 0, cap_end) + 1, +1)


def _html_table_body(text: str, cap_start: int) -> tuple[int, int] | None:
    """The run-together cells before an HTML caption: from the last sentence end (or heading, or paragraph start)
    on the caption's line -- or, for a caption that starts a line, on the paragraph before it."""
    line_start, _ = _line_bounds(text, cap_start)
    if text[line_start:cap_start].strip():
        region_start, region_end = line_start, cap_start
    else:
        prev = text[:line_start].rstrip()
        if not prev:
            return None
        region_start, region_end = _line_bounds(text, len(prev) - 1)[0], len(prev)
    region = text[region_start:region_end]
    cut = 0
    lookahead = text[region_start: region_end + 1]  # the caption's first letter ends a sentence right before it
    for m in _HTML_SENTENCE_END.finditer(lookahead):
        cut = min(m.end(), len(region))
    if re.search(r"(?:^|(?<=[\s.)\]]))#{1,6} ", region[cut:]):
        return None  # the text before the caption is a heading, not a table body
    body = region[cut:]
    if not body.strip():
        return None
    lead = len(body) - len(body.lstrip())
    return region_start + cut + lead, region_end


@cache
def _captions(paper: str) -> tuple[_Caption, ...]:
    text = _raw(paper)
    out: list[_Caption] = []
    if paper in HTML_PAPERS:
        for m in re.finditer(r"(?<!\[)(Table|Figure) (\d+):", text):
            end_m = _HTML_CAPTION_END.search(text, m.end())
            end = len(text) if end_m is None else end_m.end() if end_m.group(0).startswith("\\") else end_m.start()
            body = _html_table_body(text, m.start()) if m.group(1) == "Table" else None
            start = m.start()
            if m.group(1) == "Figure":  # sub-figure captions "(a) ..." in the paragraph just above belong to it
                ls, _ = _line_bounds(text, m.start())
                if ls == m.start():
                    prev_end = text[:ls].rstrip()
                    prev_start = text.rfind("\n\n", 0, len(prev_end)) + 2 if prev_end else ls
                    para = text[prev_start: len(prev_end)]
                    if re.match(r"\\\([a-z]\\\)", para) or re.search(r"^\\\([a-z]\\\)", para, re.M):
                        start = prev_start
            out.append(_Caption(m.group(1), int(m.group(2)), start, end, body))
    else:
        for m in re.finditer(r"(?m)^(Table|Figure) (\d+):", text):
            _, end = _line_bounds(text, m.start())
            body = _plain_table_body(paper, text, m.start(), end) if m.group(1) == "Table" else None
            out.append(_Caption(m.group(1), int(m.group(2)), m.start(), end, body))
    return tuple(out)


# ----------------------------------------------------------------------------------------------------------------
# Source strings -> blocks
# ----------------------------------------------------------------------------------------------------------------

_ITEM_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Table", re.compile(r"(?:Tables?|Tab\.?)\s*˜?\s*(\d+)\b")),
    ("Figure", re.compile(r"(?:Figures?|Figs?\.?)\s*˜?\s*(\d+)(?:\s*\(?[a-z]\)?)?(?![\d.])")),
    ("Section", re.compile(r"(?:§\s*|Section\s+|Sec\.\s*|Sect\.\s*)([A-Z](?:\.\d+)*|\d+(?:\.\d+)*)\b")),
    ("Appendix", re.compile(r"(?:Appendix|App\.?)\s*([A-Z](?:\.\d+)*)\b")),
    ("Theorem", re.compile(r"(?:Theorem|Thm\.?)\s*([A-Z]?\d*(?:\.\d+)+|\d+|[A-Z]\.\d+)\b")),
    ("Lemma", re.compile(r"(?:Lemma|Lem\.?)\s*([A-Z]?\d*(?:\.\d+)+|\d+)\b")),
    ("Corollary", re.compile(r"(?:Corollary|Cor\.?)\s*([A-Z]?\d*(?:\.\d+)+|\d+)\b")),
    ("Proposition", re.compile(r"(?:Proposition|Prop\.?)\s*([A-Z]?\d*(?:\.\d+)+|\d+)\b")),
    ("Definition", re.compile(r"(?:Definition|Def\.?)\s*([A-Z]?\d*(?:\.\d+)+|\d+)\b")),
    ("Assumption", re.compile(r"(?:Assumption|Ass\.)\s*([A-Z]?\d*(?:\.\d+)+|\d+)\b")),
    ("Equation", re.compile(r"(?:Equation|Eqs?\.?)\s*\(?(\d+)\)?")),
    ("Named", re.compile(r"(?i)(abstract|limitations?|ethic\w*(?: considerations?| statement)?|acknowledge?ments?)\b")),
)
_STATEMENT_KINDS = ("Theorem", "Lemma", "Corollary", "Proposition", "Definition", "Assumption")
_THEOREM_LIKE = ("Theorem", "Lemma", "Corollary", "Proposition")


def _parse_item(component: str) -> tuple[str, str] | None:
    """(kind, label) named at the start of one source component, e.g. ``Fig. 7 caption`` -> (Figure, 7)."""
    component = component.strip()
    for kind, pat in _ITEM_PATTERNS:
        m = pat.match(component)
        if m:
            label = m.group(1)
            if kind == "Section" and re.fullmatch(r"[A-Z](?:\.\d+)*", label):
                kind = "Appendix"
            return kind, label
    return None


def split_source(source: str) -> tuple[str, str | None]:
    """``"Table 4: 86.26 - 85.28"`` -> ``("Table 4", "86.26 - 85.28")``; the expression is ``None`` when the part
    after the first colon is not arithmetic (then the whole string names the block)."""
    if ":" in source:
        head, tail = source.split(":", 1)
        if _looks_arithmetic(tail):
            return head.strip(), tail.strip()
    return source.strip(), None


def _looks_arithmetic(s: str) -> bool:
    s = s.strip()
    return bool(s) and bool(re.search(r"\d", s)) and bool(re.fullmatch(r"[\d\s.+\-−*/×÷()]+", s))


@dataclass(frozen=True)
class Block:
    """A located passage: ``item`` (normalised name), its offsets in the locator's text, and the table body span
    (the part where the HTML texts' run-together cells are matched without boundaries)."""

    paper: str
    item: str
    start: int
    end: int
    body: tuple[int, int] | None = None

    @property
    def text(self) -> str:
        """The passage, escapes undone and whitespace collapsed."""
        return _collapse(_unescape(_raw(self.paper)[self.start: self.end]))

    def parts(self) -> list[tuple[str, bool]]:
        """(text, unbounded) pieces: the HTML table body is matched as a substring, the rest with boundaries."""
        raw = _raw(self.paper)
        if self.body is None or self.paper not in HTML_PAPERS:
            return [(_unescape(raw[self.start: self.end]), False)]
        b0, b1 = self.body
        pieces = [(_unescape(raw[b0:b1]), True)]
        rest = raw[self.start: b0] + "\n" + raw[b1: self.end] if b0 >= self.start else raw[self.start: self.end]
        pieces.append((_unescape(rest), False))
        return pieces


def _section_block(paper: str, label: str, item: str) -> Block:
    heads = _headings(paper)
    text = _raw(paper)
    found = [h for h in heads if h.kind == "section" and h.label == label]
    if not found:
        raise KeyError(f"no heading {label} in the text")
    h = found[0]
    end = len(text)
    for other in heads:
        if other.start <= h.start:
            continue
        if other.kind in ("section", "major", "title") and other.level <= h.level:
            end = other.start
            break
    return Block(paper, item, h.start, end)


def _caption_block(paper: str, kind: str, number: int, item: str, within: tuple[int, int] | None = None) -> Block:
    caps = [c for c in _captions(paper) if c.kind == kind and c.number == number]
    if within is not None:
        caps = [c for c in caps if within[0] <= c.start < within[1]]
    if not caps:
        where = " inside that section" if within is not None else " in the text"
        raise KeyError(f"no caption '{kind} {number}:'{where}")
    c = caps[0]
    if c.body is None:
        return Block(paper, item, c.start, c.end)
    start, end = min(c.start, c.body[0]), max(c.end, c.body[1])
    return Block(paper, item, start, end, c.body)


def _statement_block(paper: str, kind: str, label: str, item: str) -> Block:
    heads = _headings(paper)
    text = _raw(paper)
    found = [h for h in heads if h.kind == "statement" and h.label == label and h.name == kind]
    if not found and kind in _THEOREM_LIKE:  # LaTeX shares counters: a link may call Lemma B.1 "Theorem B.1"
        found = [h for h in heads if h.kind == "statement" and h.label == label and h.name in _THEOREM_LIKE]
    if not found:
        raise KeyError(f"no statement '{kind} {label}' in the text")
    h = found[0]
    end = len(text)
    for other in heads:
        if other.start > h.start and other.kind != "proof":
            end = other.start
            break
    return Block(paper, item, h.start, end)


def _equation_block(paper: str, number: str, item: str) -> Block:
    text = _raw(paper)
    if paper in HTML_PAPERS:
        m = re.search(rf"(?:(?<=\\\.)|(?<=,))\\\({number}\\\)", text)  # a display ends ".(6)" or ",(6)"
        if not m:
            raise KeyError(f"no equation tag ({number}) in the text")
        start = 0
        for s in _HTML_SENTENCE_END.finditer(text, max(0, m.start() - 3000), m.start()):
            start = s.end()
        start = max(start, _line_bounds(text, m.start())[0])
        return Block(paper, item, start, m.end())
    m = re.search(rf"(?:\\q?quad\s*\({number}\)|\\tag\{{{number}\}})", text)
    if not m:
        raise KeyError(f"no equation tag ({number}) in the text")
    ls, le = _line_bounds(text, m.start())
    opening = text.rfind("$$", 0, m.start())  # the display that carries the tag
    close = text.find("$$", m.end())
    begin = ls if opening < 0 else min(ls, opening)
    end = le if close < 0 else max(le, close + 2)
    return Block(paper, item, begin, end)


def _named_block(paper: str, name: str, item: str) -> Block:
    """An unnumbered section by its heading: Abstract, Limitations, Ethical Considerations, Acknowledgements."""
    heads = _headings(paper)
    text = _raw(paper)
    key = name.lower()[:6]
    found = [h for h in heads if h.kind == "major" and _unescape(text[h.start: h.start + 40]).lstrip("# ").lower()
             .startswith(key)]
    if not found:
        raise KeyError(f"no {name} heading in the text")
    h = found[0]
    end = next((o.start for o in heads if o.start > h.start and o.kind in ("section", "major", "title")), len(text))
    return Block(paper, item, h.start, end)


def normalise_item(kind: str, label: str) -> str:
    """The canonical name of an item: ``Table 4``, ``Figure 7``, ``§5.2``, ``App. D``, ``Theorem 3.7``, ``Eq. 6``."""
    if kind == "Section":
        return f"§{label}"
    if kind == "Appendix":
        return f"App. {label}"
    if kind == "Equation":
        return f"Eq. {label}"
    if kind == "Named":
        return label[:1].upper() + label[1:]
    return f"{kind} {label}"


def locate(paper: str, source: str) -> Block:
    """The :class:`Block` a source string names (see the module docstring). Raises ``KeyError`` with a one-line
    message naming the paper and the source."""
    _check_paper(paper)
    try:
        return _locate(paper, source)
    except KeyError as exc:
        raise KeyError(f"{paper}: source {source!r}: {exc.args[0]}") from None


def _locate(paper: str, source: str) -> Block:
    head, _ = split_source(source)
    components = [c.strip() for c in head.split(",") if c.strip()]
    if not components:
        raise KeyError("empty source")
    first = _parse_item(components[0])
    if first is None:
        raise KeyError("does not start with a block name (Table N, Fig. N caption, §N.M, App. X, Thm X.Y, Cor. X.Y, "
                       "Lemma X.Y, Eq. N, Abstract, Limitations)")
    kind, label = first
    item = normalise_item(kind, label)
    if kind in ("Section", "Appendix"):
        section = _section_block(paper, label, item)
        for comp in components[1:]:
            inner = _parse_item(comp)
            if inner and inner[0] in ("Table", "Figure"):
                try:
                    return _caption_block(paper, inner[0], int(inner[1]), normalise_item(*inner),
                                          within=(section.start, section.end))
                except KeyError:
                    break
        return section
    if kind in ("Table", "Figure"):
        return _caption_block(paper, kind, int(label), item)
    if kind in _STATEMENT_KINDS:
        return _statement_block(paper, kind, label, item)
    if kind == "Equation":
        return _equation_block(paper, label, item)
    return _named_block(paper, label, item)


def block(paper: str, source: str) -> str:
    """The passage ``source`` names in ``paper`` (escapes undone, whitespace collapsed). ``KeyError`` if not found."""
    return locate(paper, source).text


# ----------------------------------------------------------------------------------------------------------------
# Numbers
# ----------------------------------------------------------------------------------------------------------------

_DECREASE = re.compile(
    r"(?i)\b(drop\w*|decreas\w*|fall\w*|fell|lower\w*|reduc\w*|declin\w*|degrad\w*|los[est]\w*|worse\w*|minus|"
    r"behind|shrink\w*|diminish\w*)\b[^.;:\d]{0,40}$"
)


def _plain_decimal(x: float) -> str:
    s = format(Decimal(repr(float(x))), "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s or "0"


def _candidates(value: float | int | str) -> set[str]:
    """Printed forms of ``|value|``: shortest decimal, padded to 4 decimals, e-notation, thousands separators."""
    literal = None
    if isinstance(value, str):
        literal = value.strip().lstrip("+-−").replace(" ", "")
        value = _to_number(value)
        if value is None:
            return {literal} if literal else set()
    x = abs(value)
    out: set[str] = set()
    if literal:
        out.add(literal)
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        base = str(int(x))
        out.add(base)
        if int(x) >= 1000:
            out.add(f"{int(x):,}")
        out.update(base + "." + "0" * k for k in range(1, 5))
    else:
        base = _plain_decimal(x)
        out.add(base)
        whole, _, frac = base.partition(".")
        for k in range(len(frac) + 1, 5):
            out.add(base + "0" * (k - len(frac)))
        if int(whole) >= 1000:
            out.add(f"{int(whole):,}.{frac}")
        if whole == "0":
            out.add("." + frac)
    if x and (x < 1e-3 or x >= 1e5):
        mant, _, exp = f"{x:e}".partition("e")
        mant = mant.rstrip("0").rstrip(".")
        e = int(exp)
        for m_ in {mant, f"{float(mant):g}"}:
            out.update({f"{m_}e{e}", f"{m_}e{e:+d}", f"{m_}e{'-' if e < 0 else ''}{abs(e):02d}", f"{m_}E{e}"})
    return {c for c in out if c}


def _to_number(s: str) -> float | int | None:
    t = s.strip().replace(_MINUS, "-").replace(",", "")
    t = re.sub(r"\s*(%|°|[KkM])$", "", t)
    try:
        if re.fullmatch(r"[+-]?\d+", t):
            return int(t)
        v = float(t)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _is_minus_at(text: str, i: int) -> bool:
    """Is there a minus sign right before offset ``i`` (a '−', or a '-' that does not join two words/numbers)?"""
    j = i - 1
    while j >= 0 and text[j] in "+":
        j -= 1
    if j < 0:
        return False
    if text[j] == _MINUS:
        return True
    if text[j] == "-":
        k = j - 1
        if k >= 0 and text[k].isalpha() and re.search(r"\\[A-Za-z]+$", text[max(0, k - 20): j]):
            return True  # a LaTeX command before the sign: "\approx-0.111"
        return k < 0 or not (text[k].isalnum() or text[k] in ")]}")
    return False


def _find_all(text: str, cand: str, unbounded: bool):
    start = 0
    while True:
        i = text.find(cand, start)
        if i < 0:
            return
        j = i + len(cand)
        start = i + 1
        if not unbounded:
            before = text[i - 1] if i > 0 else ""
            after = text[j] if j < len(text) else ""
            if before.isdigit() or (before == "." and i > 1 and text[i - 2].isdigit()):
                continue
            if before == "," and i > 1 and text[i - 2].isdigit() and re.fullmatch(r"\d{3}", cand.split(".")[0]):
                continue
            if after.isdigit() or (after in ".," and j + 1 < len(text) and text[j + 1].isdigit()):
                if not (after == "," and not re.match(r",\d{3}(?!\d)", text[j:])):
                    continue
            if cand[0] == "." and before.isdigit():
                continue
        yield i


def printed_in(text: str, value: float | int | str, *, unbounded: bool = False) -> bool:
    """Is ``value`` printed in ``text`` (already unescaped)? See the module docstring for the rules."""
    num = _to_number(value) if isinstance(value, str) else value
    negative = (num is not None and num < 0) or (isinstance(value, str) and value.strip().startswith(("-", _MINUS)))
    for cand in sorted(_candidates(value), key=len, reverse=True):
        for i in _find_all(text, cand, unbounded):
            minus = _is_minus_at(text, i)
            if negative:
                if minus or _DECREASE.search(text[max(0, i - 60): i]):
                    return True
            elif not minus:
                return True
    return False


def printed(paper: str, source: str, value: float | int | str) -> bool:
    """Is the number ``value`` printed in the block ``source`` names? ``KeyError`` if the block is not found."""
    blk = locate(paper, source)
    return any(printed_in(text, value, unbounded=unb) for text, unb in blk.parts())


_REFERENCE = re.compile(
    r"(?:Tables?|Figures?|Figs?\.|Sections?|Sec\.|§|Eqs?\.|Equations?|Theorems?|Thm\.?|Lemmas?|Corollar(?:y|ies)|"
    r"Cor\.|Propositions?|Prop\.|Definitions?|Appendix|App\.|Algorithm)\s*˜?\s*"
    r"(?:[A-Z](?:\.\d+)*\b|\d+(?:\.\d+)*)(?:\s*(?:,|and|&|–|-)\s*(?:[A-Z](?:\.\d+)*\b|\d+(?:\.\d+)*))*"
)
_TEXT_NUMBER = re.compile(r"[+\-−]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][+\-−]?\d+)?")


def _text_numbers(s: str) -> list[float | int]:
    s = _REFERENCE.sub(" ", s)
    out: list[float | int] = []
    for m in _TEXT_NUMBER.finditer(s):
        tok = m.group(0)
        i, j = m.start(), m.end()
        digits_at = i + (1 if tok[0] in "+-−" else 0)
        before = s[digits_at - 1] if digits_at > 0 else ""
        after = s[j] if j < len(s) else ""
        if before.isalpha() or (before and before in "@_") or after.isalpha() or after == "_":
            continue  # part of a name: B1, STS12, R@10, Qwen3, 4B, v2, 64min
        if before == "-" and digits_at > 1 and s[digits_at - 2].isalnum():
            tok = tok.lstrip("-")  # Llama-3.2, 0-1: a joining hyphen, not a sign
            if s[digits_at - 2].isalpha():
                continue
        if tok[0] in "+-−" and digits_at > 0 and not _is_minus_at(s, digits_at) and tok[0] != "+":
            tok = tok[1:]
        n = _to_number(tok)
        if n is not None:
            out.append(n)
    return out


def numbers_in(value, *, text: bool = True) -> list[float | int]:
    """The numbers a ``paper_value`` holds: a number; the values of a list or dict (not its keys); the numbers
    written in a text (``"all 6 > pretrained"`` holds 6), leaving out digits that belong to names (``B1``,
    ``STS12``, ``Qwen3-4B``, ``R@10``) and to references (``Table 7``, ``§4.2``). ``text=False`` skips text
    values (a qualitative statement whose digits are not paper numbers). Booleans and ``None`` hold none."""
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value] if math.isfinite(value) else []
    if isinstance(value, str):
        return _text_numbers(value) if text else []
    if isinstance(value, dict):
        return [n for v in value.values() for n in numbers_in(v, text=text)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in numbers_in(v, text=text)]
    return []


# ----------------------------------------------------------------------------------------------------------------
# Derived values
# ----------------------------------------------------------------------------------------------------------------


def evaluate(expression: str) -> tuple[float, list[tuple[str, float]]]:
    """Evaluate ``+ - * /`` arithmetic with parentheses (``−`` allowed) safely; also return the inputs as
    ``(literal, value)`` pairs (a unary minus in front of a number belongs to that input)."""
    expr = expression.replace(_MINUS, "-").replace("×", "*").replace("÷", "/").strip()
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not an arithmetic expression: {expression!r}") from exc
    inputs: list[tuple[str, float]] = []

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            lit = ast.get_source_segment(expr, node) or repr(node.value)
            inputs.append((lit, float(node.value)))
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            if isinstance(node.operand, ast.Constant) and isinstance(node.op, ast.USub):
                v = ev(node.operand)
                lit, _ = inputs.pop()
                inputs.append(("-" + lit, -v))
                return -v
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if b == 0:
                raise ValueError(f"division by zero in {expression!r}")
            return a / b
        raise ValueError(f"only numbers, + - * / and parentheses are allowed: {expression!r}")

    return ev(tree), inputs


def _decimals(literal: str) -> int:
    m = re.search(r"\.(\d+)", literal)
    return len(m.group(1)) if m else 0


def _close(paper_value: float, derived: float, decimals: int) -> bool:
    """``paper_value`` equals ``derived`` within relative 1e-6 or absolute 5e-4, or is ``derived`` rounded to the
    paper_value's own number of decimals when that is at least the inputs' printed precision ``decimals``."""
    if abs(paper_value - derived) <= max(1e-6 * abs(derived), 5e-4):
        return True
    own = _decimals(_plain_decimal(paper_value))
    return own >= decimals and abs(round(derived, own) - paper_value) <= 1e-9 * max(1.0, abs(paper_value))


# ----------------------------------------------------------------------------------------------------------------
# Checks: ledger claims and transcription CSVs
# ----------------------------------------------------------------------------------------------------------------


def check_claim(paper: str, claim: dict, *, text_numbers: bool = True) -> list[str]:
    """Problems of one ledger claim of kind ``paper`` (empty list = fine).

    The claim needs a non-empty ``source`` naming a block of ``paper``. A derived source ``X: <expr>`` needs a
    numeric ``paper_value`` equal to the expression (relative 1e-6, or 5e-4 after rounding to the inputs' printed
    precision) and every input printed in block ``X``; otherwise every number of ``paper_value`` (see
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
        elif not _close(float(pv), derived, max((_decimals(lit) for lit, _ in inputs), default=0)):
            problems.append(f"{cid}: paper_value {pv!r} != {expr} = {derived:.6g}")
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
    own material and not checked. Leading ``#`` lines are comments. ``coverage.csv`` is not a transcription (see
    :func:`check_coverage`). Outside ``data/<paper>/`` a ``paper`` column names each row's paper.
    """
    path = Path(path)
    name = f"{path.parent.name}/{path.name}"
    if path.name == "coverage.csv":
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


# ----------------------------------------------------------------------------------------------------------------
# Coverage: the items a paper mentions, and the status of each
# ----------------------------------------------------------------------------------------------------------------

_MENTION = re.compile(
    r"(?<![A-Za-z])(Tables?|Figures?|Figs?\.|Theorems?|Thms?\.|Lemmas?|Corollar(?:y|ies)|Cor\.|Propositions?|Prop\.)"
    r"[ \t]*˜?[ \t]*((?:[A-Z]\.)?\d+(?:\.\d+)?)((?:[ \t]*\(?[a-z]\)?(?![a-z]))?(?:[ \t]*(?:,[ \t]*and|,|and|&)[ \t]*"
    r"(?:[A-Z]\.)?\d+(?:\.\d+)?(?:[ \t]*\(?[a-z]\)(?![a-z]))?)*)"
)
_KIND_OF = {
    "tab": "Table", "fig": "Figure", "the": "Theorem", "thm": "Theorem", "lem": "Lemma", "cor": "Corollary",
    "pro": "Proposition",
}
# Immediately after a citation ("Alfakih and others [2018], Theorem 4.2", "... (2018)(Theorems 3.2 and 3.8)",
# "Gao et al. (2021) Table 5"): the item belongs to the cited work.
_CITATION_BEFORE = re.compile(r"(?:et al\.?|and others)?\s*[\[(]?\s*(?:19|20)\d\d[a-z]?\s*[\])]?\s*[,;]?\s*[\[(]?\s*$")
#: Mentions checked by hand to be items of other works that the citation rule does not catch, per paper.
OTHER_WORKS: dict[str, frozenset[str]] = {p: frozenset() for p in PAPERS}


@cache
def defined_statements(paper: str) -> dict[str, str]:
    """Numbered theorem-like statements the text states: label -> kind (``"3.7" -> "Theorem"``)."""
    out: dict[str, str] = {}
    for h in _headings(paper):
        if h.kind == "statement" and h.label and re.search(r"\d", h.label):
            out.setdefault(h.label, h.name)
    return out


@cache
def mentioned_items(paper: str) -> frozenset[str]:
    """Every ``Table N``, ``Figure N`` (also ``Fig. N``) and numbered ``Theorem/Lemma/Corollary/Proposition X.Y``
    the text of ``paper`` mentions, normalised (``Table 4``, ``Figure 7``, ``Theorem 3.7``, ``Corollary 3.9``).

    Definitions are left out. Mentions of another work's items are excluded: those right after a citation (a year
    in brackets, ``et al.``) and those listed in :data:`OTHER_WORKS`. A theorem-like mention takes the kind under
    which the text states that label (the HTML cross-reference "Theorem B.1" is the text's Lemma B.1); numbered
    statements are ``X.Y`` labels, so the unnumbered "Theorem." of circumplex and the "Theorem 2"-style shorthands
    that concepts uses for its Theorems D.1-D.7 are not items.
    """
    text = _unescape(_raw(paper))
    defined = defined_statements(paper)
    items: set[str] = set()
    for m in _MENTION.finditer(text):
        kind = _KIND_OF[m.group(1)[:3].lower()]
        labels = [m.group(2)] + re.findall(r"(?:[A-Z]\.)?\d+(?:\.\d+)?", m.group(3) or "")
        if _CITATION_BEFORE.search(text[max(0, m.start() - 40): m.start()]) and re.search(
            r"(?:19|20)\d\d", text[max(0, m.start() - 40): m.start()]
        ):
            continue
        for label in labels:
            if kind in ("Table", "Figure"):
                if not label.isdigit():
                    continue
                name = f"{kind} {int(label)}"
            else:
                if "." not in label:
                    continue
                name = f"{defined.get(label, kind)} {label}"
                if name.startswith("Definition"):
                    continue
            if name not in OTHER_WORKS.get(paper, frozenset()):
                items.add(name)
    for label, kind in defined.items():
        if "." in label and kind in ("Theorem", "Lemma", "Corollary", "Proposition"):
            items.add(f"{kind} {label}")
    for c in _captions(paper):
        items.add(f"{c.kind} {c.number}")
    return frozenset(items)


def normalise_coverage_item(item: str) -> str:
    """``Fig. 7`` -> ``Figure 7``, ``Thm 3.7`` -> ``Theorem 3.7``, ``Cor. 3.9`` -> ``Corollary 3.9``; other labels
    (``Eq. 6``, ``P1``, a headline claim) unchanged apart from surrounding spaces."""
    item = item.strip()
    for kind, pat in _ITEM_PATTERNS:
        if kind not in ("Table", "Figure", *_STATEMENT_KINDS):
            continue
        m = pat.fullmatch(item)
        if m:
            label = str(int(m.group(1))) if kind in ("Table", "Figure") else m.group(1)
            return f"{kind} {label}"
    return item


def read_coverage(paper: str, root: str | Path | None = None):
    """``data/<paper>/coverage.csv`` as a DataFrame (comment lines skipped, empty cells as ``""``)."""
    import pandas as pd

    root = Path(root) if root is not None else _settings.repo_root()
    path = root / "data" / paper / "coverage.csv"
    if not path.is_file():
        raise FileNotFoundError(f"data/{paper}/coverage.csv missing")
    skip = _comment_lines(path)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, skiprows=skip)
    frame.attrs["first_line"] = skip + 2  # file line of the first data row
    return frame


def _comment_lines(path: Path) -> int:
    n = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            n += 1
        else:
            break
    return n


def split_claims(cell: str) -> list[str]:
    """The claim ids of a coverage ``claims`` cell (``;``-separated)."""
    return [c.strip() for c in (cell or "").split(";") if c.strip()]


def load_ledger(notebook: str, root: str | Path | None = None) -> dict | None:
    """The committed ledger ``results/<paper>/<notebook>.json`` for ``notebook`` = ``"<paper>/<name>"``."""
    root = Path(root) if root is not None else _settings.repo_root()
    path = root / "results" / f"{notebook.strip().removesuffix('.json')}.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


_VERDICT_ORDER = ("reproduced", "partly", "not reproduced", "inconclusive", "not testable", "passed", "failed")


def _status(verdicts: list[str], reason: str) -> str:
    if not verdicts:
        reason = reason.strip()
        return reason if reason.lower().startswith("not testable") else f"not testable: {reason or 'no reason given'}"
    if len(set(verdicts)) == 1:
        return verdicts[0]
    counts = {v: verdicts.count(v) for v in dict.fromkeys(verdicts)}
    order = sorted(counts, key=lambda v: (_VERDICT_ORDER.index(v) if v in _VERDICT_ORDER else 99, v))
    return ", ".join(f"{counts[v]} {v}" for v in order)


def coverage_status(paper: str, root: str | Path | None = None):
    """``data/<paper>/coverage.csv`` with a computed ``status`` column: the claims' verdicts from the committed
    ledgers (``reproduced`` when all agree, else a count such as ``2 reproduced, 1 inconclusive``), or
    ``not testable: <reason>`` for a row without claims. Unknown claim ids show as ``missing: <ids>``."""
    df = read_coverage(paper, root)
    statuses = []
    cache: dict[str, dict | None] = {}
    for _, row in df.iterrows():
        ids = split_claims(row.get("claims", ""))
        nb = (row.get("notebook") or "").strip()
        if not ids:
            statuses.append(_status([], row.get("scale_or_reason", "")))
            continue
        if nb not in cache:
            cache[nb] = load_ledger(nb, root) if nb else None
        ledger = cache[nb] or {}
        by_id = {c.get("id"): c for c in ledger.get("claims", [])}
        missing = [i for i in ids if i not in by_id]
        verdicts = [str(by_id[i].get("verdict", "?")) for i in ids if i in by_id]
        status = _status(verdicts, "") if verdicts else ""
        if missing:
            status = (status + "; " if status else "") + "missing: " + ", ".join(missing)
        statuses.append(status)
    df = df.copy()
    df["status"] = statuses
    return df


def coverage_missing_items(paper: str, frame) -> list[str]:
    """The items :func:`mentioned_items` finds in the text that have no row in the coverage map ``frame``."""
    listed = {normalise_coverage_item(i) for i in frame["item"]}
    return sorted(mentioned_items(paper) - listed, key=_item_sort_key)


def coverage_row_problems(paper: str, frame, root: str | Path | None = None) -> list[str]:
    """Rows whose claim ids are not in the named notebook's ledger, or that have neither claims nor a reason."""
    root = Path(root) if root is not None else _settings.repo_root()
    problems: list[str] = []
    ledgers: dict[str, dict | None] = {}
    where = f"data/{paper}/coverage.csv"
    for n, row in enumerate(frame.to_dict("records"), start=frame.attrs.get("first_line", 2)):
        ids = split_claims(row["claims"])
        nb = row["notebook"].strip()
        label = f"{where}:{n} ({row['item']})"
        if not ids:
            if not row["scale_or_reason"].strip():
                problems.append(f"{label}: no claims and an empty scale_or_reason (say why it is not tested)")
            continue
        if not nb:
            problems.append(f"{label}: claims listed but no notebook")
            continue
        if nb not in ledgers:
            ledgers[nb] = load_ledger(nb, root)
        ledger = ledgers[nb]
        if ledger is None:
            problems.append(f"{label}: notebook {nb!r} has no ledger results/{nb}.json")
            continue
        have = {c.get("id") for c in ledger.get("claims", [])}
        problems.extend(f"{label}: claim {cid!r} is not in results/{nb}.json" for cid in ids if cid not in have)
    return problems


def check_coverage(paper: str, root: str | Path | None = None) -> list[str]:
    """Problems of ``data/<paper>/coverage.csv`` (empty list = fine): the SPEC columns; a row for every item of
    :func:`mentioned_items`; claim ids present in the named notebook's ledger; a reason where a row has no claims."""
    try:
        frame = read_coverage(paper, root)
    except FileNotFoundError as exc:
        return [str(exc)]
    missing_cols = [c for c in COVERAGE_COLUMNS if c not in frame.columns]
    if missing_cols:
        return [f"data/{paper}/coverage.csv: missing column(s) {', '.join(missing_cols)} "
                f"(need {','.join(COVERAGE_COLUMNS)})"]
    problems = [f"data/{paper}/coverage.csv: no row for {item} (the paper text mentions it)"
                for item in coverage_missing_items(paper, frame)]
    return problems + coverage_row_problems(paper, frame, root)


def _item_sort_key(item: str):
    kind, _, label = item.partition(" ")
    parts = [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in label.split(".") if p]
    return kind, parts


# ----------------------------------------------------------------------------------------------------------------
# Whole-repository checks (used by tests/system/test_sources.py and ``python -m companion.sources``)
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


def ledger_paths(root: str | Path | None = None) -> list[Path]:
    """Every committed ledger ``results/*/*.json`` (not the ``.provenance.json`` siblings)."""
    root = Path(root) if root is not None else _settings.repo_root()
    return sorted(p for p in (root / "results").glob("*/*.json") if not p.name.endswith(".provenance.json"))


def csv_paths(root: str | Path | None = None) -> list[Path]:
    """Every transcription CSV ``data/<paper>/*.csv`` of the five papers (coverage maps excluded)."""
    root = Path(root) if root is not None else _settings.repo_root()
    return sorted(p for paper in PAPERS for p in (root / "data" / paper).glob("*.csv") if p.name != "coverage.csv")


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.sources [paper ...]``: print every source, transcription and coverage problem."""
    import sys

    papers = (argv if argv is not None else sys.argv[1:]) or list(PAPERS)
    if papers_dir() is None:
        print("paper texts not found (set COMPANION_PAPERS_DIR or put them in ../shared/papers)")
        return 2
    total = 0
    for paper in papers:
        problems = [p for f in csv_paths() if f.parent.name == paper for p in check_csv(f)]
        for f in ledger_paths():
            problems.extend(p for owner, p in ledger_problems(f) if owner == paper or (owner is None and
                                                                                       f.parent.name == paper))
        problems.extend(check_coverage(paper))
        print(f"## {paper}: {len(problems)} problem(s)")
        for p in problems:
            print(f"- {p}")
        total += len(problems)
    return 1 if total else 0


def prose_number(paper: str, quantity_start: str) -> tuple[float, str]:
    """The number ``paper`` prints in its prose for the quantity of ``data/<paper>/prose.csv`` (columns quantity,
    value, source, ...) whose name starts with ``quantity_start``, with its source: paper values read in one place
    instead of typed into notebook cells. Raises when no row or several rows match."""
    import pandas as pd

    _check_paper(paper)
    path = _settings.repo_root() / "data" / paper / "prose.csv"
    df = pd.read_csv(path, comment="#", dtype=str)
    hit = df[df["quantity"].str.startswith(quantity_start)]
    if len(hit) != 1:
        raise KeyError(f"{len(hit)} rows of data/{paper}/prose.csv start with {quantity_start!r}; need one.")
    return float(hit["value"].iloc[0]), str(hit["source"].iloc[0])


if __name__ == "__main__":
    raise SystemExit(main())
