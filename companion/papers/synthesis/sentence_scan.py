"""The sentence sweep's scan: every sentence of a paper's text that a comparative or universal word makes a candidate
(:data:`PATTERNS`: comparatives, superlatives, "more" and "less", "outperforms", "all", "consistently", "robust",
"state of the art"; a word hyphenated across a line is joined before matching), each with the place where it stands.

A *place* is a source string :func:`companion.papers.text.locate` reads, plus the sentence's number in that block:
``§4.3, s.5`` is the fifth sentence of §4.3's body; ``Table 4 caption, s.2`` the second sentence of that caption.
Sentences are cut at a full stop, question or exclamation mark followed by a capital letter (abbreviations such as
"e.g.", "Fig." and "et al." are not ends); a section's body runs from its heading to the next section heading, table
bodies and the references left out. Numbering counts every sentence of the block, so a place does not move when a
pattern changes. The sweep (:mod:`companion.papers.synthesis.sentences`) accounts for every hit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from companion.papers import text as T
from companion.papers.text import unescape

__all__ = ["PATTERNS", "Hit", "scan", "sentences"]

#: the scan's patterns: name -> regular expression (matched case-insensitively, except ``state of the art``)
PATTERNS: dict[str, str] = {
    "comparative": r"\b(?:better|worse|higher|lower|larger|smaller|greater|stronger|weaker|faster|slower|closer|"
                   r"narrower|wider|tighter|easier|harder)\b|\b\w{3,}er than\b",
    "more/less": r"\b(?:more|less|fewer)\b",
    "superlative": r"\b(?:best|worst|highest|lowest|largest|smallest|strongest|weakest|most|least|top)\b",
    "outperforms": r"\b(?:outperform\w*|underperform\w*|surpass\w*|exceed\w*|superior|inferior|beat\w*|improv\w*|"
                   r"gains?)\b",
    "universal": r"\b(?:all|every|consistently|always|never|uniformly)\b",
    "robust": r"\brobust\w*",
    "state of the art": r"[Ss]tate[- ]of[- ]the[- ]art|\bSOTA\b",
}
_COMPILED = {k: re.compile(v) if k == "state of the art" else re.compile(v, re.IGNORECASE)
             for k, v in PATTERNS.items()}

_ABBREVIATIONS = ("e.g", "i.e", "et al", "Fig", "Figs", "Eq", "Eqs", "Tab", "App", "Sec", "Sect", "vs", "cf", "resp",
                  "Thm", "Cor", "Def", "Prop", "approx", "etc", "No", "Ref", "al")
_END = re.compile(r"(\\?[.!?])(\s+|(?=[A-Z§]))(?=(?:\*\*|[\"“(\[])?[A-Z§])")


@dataclass(frozen=True)
class Hit:
    """A sentence the scan found: its ``place`` (``<block>, s.<n>``), the patterns it matched and its text
    (escapes undone, whitespace collapsed). The text stays in memory: the sweep's data files never copy it."""

    paper: str
    place: str
    patterns: tuple[str, ...]
    text: str


def _clean(s: str) -> str:
    return re.sub(r"\s+", " ", unescape(s)).strip()


def sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every sentence of ``text`` (raw: escaped or plain): cut after ``.``/``!``/``?`` (escaped
    or not) followed by a capital, unless the word before the stop is an abbreviation (:data:`_ABBREVIATIONS`), a
    single letter or a number's decimal point."""
    out, start = [], 0
    for m in _END.finditer(text):
        before = re.search(r"([\w.]+)\\?$", text[start:m.start()])
        word = before.group(1) if before else ""
        if word.rstrip(".") in _ABBREVIATIONS or re.fullmatch(r"[A-Za-z]", word) or word.endswith(".") and \
                re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]?", word):
            continue
        end = m.end(1)
        if text[start:end].strip():
            out.append((start, end))
        start = m.end()
    if text[start:].strip():
        out.append((start, len(text)))
    return out


def _blocks(paper: str) -> list[tuple[str, int, int, list[tuple[int, int]]]]:
    """``(name, start, end, holes)``: each section body and each caption of ``paper`` (a caption is cut out of its
    section's body), with the spans inside it that are no sentences (table bodies)."""
    raw = T.raw_text(paper)
    heads = [h for h in T.headings(paper) if h.kind in ("section", "major", "title")]
    caps = T.captions(paper)
    bodies = [c.body for c in caps if c.body]
    out = []
    for i, h in enumerate(heads):
        end = heads[i + 1].start if i + 1 < len(heads) else len(raw)
        head_text = _clean(raw[h.start:h.end]).lstrip("# ").strip()
        if h.kind == "major":
            word = re.match(r"\w+", head_text)
            name = word.group(0).capitalize() if word else ""
            if name.lower() in ("references", "bibliography", "appendix", "appendices", "acknowledgments",
                                "acknowledgements", ""):
                continue
        elif h.kind == "title":
            name = "Title"
        else:
            name = f"App. {h.label}" if h.label[:1].isalpha() else f"§{h.label}"
        inside = [c for c in caps if h.end <= c.start < end]
        holes = [(c.start, c.end) for c in inside] + [b for b in bodies if h.end <= b[0] < end]
        out.append((name, h.end, end, holes))
        for c in inside:
            kind = "Table" if c.kind == "Table" else "Fig."
            out.append((f"{kind} {c.number} caption", c.start, c.end, [b for b in bodies if c.start <= b[0] < c.end]))
    return out


def _split(raw: str, start: int, end: int, holes: list[tuple[int, int]]) -> list[str]:
    """The sentences of ``raw[start:end]`` with the ``holes`` (captions, table bodies) blanked out."""
    chunk = list(raw[start:end])
    for a, b in holes:
        for k in range(max(a, start), min(b, end)):
            chunk[k - start] = "\n" if raw[k] == "\n" else " "
    text = re.sub(r"(?m)^ ?\d{3,4} (?=\S)", lambda m: " " * len(m.group(0)), "".join(chunk))  # PDF line numbers
    return [s for s in (_clean(text[a:b]) for a, b in sentences(text)) if s]


def scan(paper: str) -> list[Hit]:
    """Every sentence of ``paper`` that one of :data:`PATTERNS` matches, in text order of its block."""
    raw = T.raw_text(paper)
    hits, seen = [], set()
    for name, start, end, holes in _blocks(paper):
        if name in seen:
            raise ValueError(f"{paper}: block {name} found twice")
        seen.add(name)
        for n, sentence in enumerate(_split(raw, start, end, holes), 1):
            joined = re.sub(r"(\w)- (\w)", r"\1\2", sentence)  # a word hyphenated across a line: "out- performs"
            matched = tuple(k for k, pat in _COMPILED.items() if pat.search(joined))
            if matched:
                hits.append(Hit(paper, f"{name}, s.{n}", matched, sentence))
    return hits
