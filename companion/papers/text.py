"""Where a paper says it: read a paper's text and locate the block a source string names.

The five paper texts live in ``../shared/papers/<paper>.txt`` (beside the repository; ``COMPANION_PAPERS_DIR``
overrides, and ``$COMPANION_DATA_DIR/../papers`` is tried too). They come from three kinds of extraction (plain
lines with tab-separated tables, markdown, arXiv HTML); how each paper's text was extracted is part of its entry in
the registry (the ``text_*`` fields of :class:`companion.paper_registry.Paper`), and the locator reads it from there.

A *source* string names a block by its first comma-separated component (before any ``:``):
``Table 4, Emolit, Qwen3 SINCERE-nGPT, V`` (a table: caption plus body), ``Fig. 7 caption`` (a figure: its
caption), ``§5.2`` / ``App. D`` / ``Appendix F.2`` (a section: heading to the next heading of the same or a higher
level), ``Thm 3.13`` / ``Cor. 3.9`` / ``Lemma 3.2`` (the statement and its proof), ``Eq. 6`` (the display that
carries the tag), ``Abstract`` or ``Limitations``. ``App. E, Table 1`` means the Table 1 inside Appendix E (a table
that is not inside the named section leaves the section as the block). A *derived* source names
its inputs after a colon, ``Table 4: 86.26 - 85.28`` (:func:`split_source`; :mod:`companion.papers.numbers`
evaluates the expression).

:func:`locate` gives the :class:`Block` (its text with the escaping undone, and the table body of the HTML texts,
whose run-together cells are matched without boundaries); :func:`block` its text; :func:`paper_text` the whole
normalised text. Whether a number is printed in a block is :func:`companion.papers.numbers.printed`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from companion import paper_registry as _papers
from companion import settings as _settings

PAPERS = _papers.REPRODUCED


def _layout(paper: str) -> _papers.Paper:
    """The registry entry whose ``text_*`` fields say how the paper's text was extracted."""
    return _papers.paper(paper)


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
def raw_text(paper: str) -> str:
    """The text as the locator reads it: the paper only (no cached-page preface, no 'Similar Articles' list),
    markdown links reduced to their text, ``<u>``/``<b>``/``<i>`` markup removed. The HTML texts keep their
    backslash escapes here (``\\.`` is how a sentence period is told from a URL's dot); see :func:`unescape`."""
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
    if _layout(paper).text_html:
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


def unescape(s: str) -> str:
    """Undo the HTML extraction's backslash escapes (``0\\.126`` -> ``0.126``, ``\\(`` -> ``(``)."""
    return re.sub(r"\\([^\w\s])", r"\1", s)


def _collapse(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


@cache
def paper_text(paper: str) -> str:
    """The normalised text of one paper: escapes undone, markup and links reduced, whitespace collapsed.

    The unicode minus (``−``) is kept as printed. Raises ``FileNotFoundError`` if the texts are not there.
    """
    return _collapse(unescape(raw_text(paper)))


# ----------------------------------------------------------------------------------------------------------------
# Structure: headings, captions, statements
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Heading:
    """A heading of the locator's text (:func:`raw_text`): a section, an unnumbered major section, a statement."""

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
def headings(paper: str) -> tuple[Heading, ...]:
    """Every heading of the paper's text, in text order (markers or numbered lines, as its layout says)."""
    text = raw_text(paper)
    out: list[Heading] = []
    if _layout(paper).text_headings == "markdown":
        for m in re.finditer(r"(?:^|(?<=[\n .)\]]))(#{1,6}) (?=\S)", text):
            content = unescape(text[m.end(): m.end() + 160])
            if len(m.group(1)) == 1:
                label, level, kind, name = "", 0, "title", ""
            else:
                label, level, kind, name = _parse_marker_heading(content)
            line_end = text.find("\n", m.end())
            end = len(text) if line_end < 0 else line_end
            if _layout(paper).text_one_line:  # the body starts right after the marker
                end = m.end()
            out.append(Heading(m.start(), end, label, level, kind, name))
    else:
        abstract = re.search(r"(?m)^Abstract[ \t]*$", text)
        first = abstract.start() if abstract else 0
        for m in _PLAIN_HEADING.finditer(text):
            title = m.group(3)
            if m.start() < first or title.rstrip().endswith((".", ",", ":", ";", "-")):
                continue
            label = m.group(1) + m.group(2)
            out.append(Heading(m.start(), m.end(), label, _label_level(label), "section", ""))
        for m in _PLAIN_MAJOR.finditer(text):
            out.append(Heading(m.start(), m.end(), "", 1, "major", ""))
        for m in _PLAIN_STATEMENT.finditer(text):
            out.append(Heading(m.start(), m.end(), m.group(2) or "", 9, "statement", m.group(1)))
    out.sort(key=lambda h: h.start)
    return tuple(out)


@dataclass(frozen=True)
class Caption:
    """A ``Table N:`` or ``Figure N:`` caption of the locator's text, with the table body beside it if printed."""

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
    if _layout(paper).text_tables == "tab":
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
def captions(paper: str) -> tuple[Caption, ...]:
    """Every ``Table N:`` and ``Figure N:`` caption of the paper's text, in text order, with its table body."""
    text = raw_text(paper)
    out: list[Caption] = []
    if _layout(paper).text_html:
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
            out.append(Caption(m.group(1), int(m.group(2)), start, end, body))
    else:
        for m in re.finditer(r"(?m)^(Table|Figure) (\d+):", text):
            _, end = _line_bounds(text, m.start())
            body = _plain_table_body(paper, text, m.start(), end) if m.group(1) == "Table" else None
            out.append(Caption(m.group(1), int(m.group(2)), m.start(), end, body))
    return tuple(out)


# ----------------------------------------------------------------------------------------------------------------
# Source strings -> blocks
# ----------------------------------------------------------------------------------------------------------------

ITEM_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
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
STATEMENT_KINDS = ("Theorem", "Lemma", "Corollary", "Proposition", "Definition", "Assumption")
_THEOREM_LIKE = ("Theorem", "Lemma", "Corollary", "Proposition")


def _parse_item(component: str) -> tuple[str, str] | None:
    """(kind, label) named at the start of one source component, e.g. ``Fig. 7 caption`` -> (Figure, 7)."""
    component = component.strip()
    for kind, pat in ITEM_PATTERNS:
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
        return _collapse(unescape(raw_text(self.paper)[self.start: self.end]))

    def parts(self) -> list[tuple[str, bool]]:
        """(text, unbounded) pieces: the HTML table body is matched as a substring, the rest with boundaries."""
        raw = raw_text(self.paper)
        if self.body is None or not _layout(self.paper).text_html:
            return [(unescape(raw[self.start: self.end]), False)]
        b0, b1 = self.body
        pieces = [(unescape(raw[b0:b1]), True)]
        rest = raw[self.start: b0] + "\n" + raw[b1: self.end] if b0 >= self.start else raw[self.start: self.end]
        pieces.append((unescape(rest), False))
        return pieces


def _section_block(paper: str, label: str, item: str) -> Block:
    heads = headings(paper)
    text = raw_text(paper)
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
    caps = [c for c in captions(paper) if c.kind == kind and c.number == number]
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
    heads = headings(paper)
    text = raw_text(paper)
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
    text = raw_text(paper)
    if _layout(paper).text_html:
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
    heads = headings(paper)
    text = raw_text(paper)
    key = name.lower()[:6]
    found = [h for h in heads if h.kind == "major" and unescape(text[h.start: h.start + 40]).lstrip("# ").lower()
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
    if kind in STATEMENT_KINDS:
        return _statement_block(paper, kind, label, item)
    if kind == "Equation":
        return _equation_block(paper, label, item)
    return _named_block(paper, label, item)


def block(paper: str, source: str) -> str:
    """The passage ``source`` names in ``paper`` (escapes undone, whitespace collapsed). ``KeyError`` if not found."""
    return locate(paper, source).text


@cache
def defined_statements(paper: str) -> dict[str, str]:
    """Numbered theorem-like statements the text states: label -> kind (``"3.7" -> "Theorem"``)."""
    out: dict[str, str] = {}
    for h in headings(paper):
        if h.kind == "statement" and h.label and re.search(r"\d", h.label):
            out.setdefault(h.label, h.name)
    return out

