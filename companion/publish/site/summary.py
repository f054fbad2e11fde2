"""The bottom line of each paper, computed from its ledger: one short paragraph that says what holds, what does not
and what could not be told, each with the places in the paper it concerns and its regime.

:func:`bottom_line` sorts a paper's own claims (``kind: paper``; beyond-the-paper claims, our checks and errata
are not the paper's statements) by verdict; the pages pass it one claim per statement, with the statement's
headline verdict (:mod:`companion.statements`), so that a statement tested several times is counted once:

* **holds** — ``reproduced``, and ``partly`` (the direction holds, the magnitude or part of the statement not);
* **does not hold** — ``not reproduced``;
* **could not tell** — ``inconclusive``, grouped by what stopped us (:func:`reason_group`: the reason's lead word
  before its colon, ``underpowered``, ``budget``, ``did not train``, ``ceiling``…; an interval that covers both
  zero and the paper's effect is a ``wide interval``);
* **not testable here** — ``not testable`` (our set-up cannot test it at all: the reason is on the paper page).

:func:`paragraph` writes it as markdown: every verdict with its count, where in the paper (:func:`location` of the
claims' sources, the most frequent first) and its regime (:func:`regime_phrase`: ``paper setting``, or ``scaled``
with what differs). Nothing in it is typed by hand; every claim is one click away on the paper's page.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from companion.publish.site import format as fmt

PAPER_SETTING = "paper setting"
#: how many places in the paper a verdict names before it says "and N more"
PLACES_SHOWN = 4
#: a reason's lead (the text before its first colon) of at most this many words names its group
LEAD_WORDS = 4
WIDE = "wide interval"
OTHER = "other reasons"

_LOCATION = re.compile(
    r"§\s?\d+(?:\.\d+)*"
    r"|\b(?:Tables?|Figs?\.?|Figures?|Eqs?\.?|Equations?|Thm\.?|Theorems?|Cor\.?|Corollary|Lemma|Prop\.?"
    r"|Proposition|Def\.?|Definition|Sec\.?|Sections?|Alg\.?|Algorithm)\s*[A-Z]?\.?\d+(?:\.\d+)*[a-z]?\b"
    r"|\b(?:App\.?|Appendix)\s*[A-Z](?:\.\d+)*\b")


def location(source: Any) -> str:
    """Where in the paper a claim's ``source`` points, shortly: its first table, figure, section, theorem,
    equation or appendix reference (``Table 4, Emolit, CD-r: 0.519 - 0.122`` -> ``Table 4``); otherwise the
    source up to its first comma or colon (an erratum's ``paper | place`` gives its place)."""
    text = " ".join(str(source or "").split())
    if "|" in text:
        text = text.split("|", 1)[1].strip()
    match = _LOCATION.search(text)
    if match:
        return " ".join(match.group(0).split())
    return re.split(r"[,:]", text, maxsplit=1)[0].strip() or "no place given"


def reason_group(reason: Any) -> str:
    """The group of an ``inconclusive`` reason: its lead before the first colon when that is a few words
    (``underpowered``, ``budget``, ``did not train``, ``ceiling``), ``wide interval`` when the confidence interval
    covers zero and the effect (or straddles the band), else ``other reasons``."""
    text = " ".join(str(reason or "").split())
    lead, colon, _ = text.partition(":")
    lead = lead.strip()
    if colon and lead and len(lead.split()) <= LEAD_WORDS and not re.search(r"[\d\[\](){}=<>±]", lead):
        return lead.lower()
    if re.match(r"(the )?(95 % )?CI\b", text, flags=re.I) or "interval" in text.lower():
        return WIDE
    return OTHER


def regime_kind(regime: Any) -> str:
    return PAPER_SETTING if not regime or regime == PAPER_SETTING else "scaled"


def regime_phrase(claims: list[dict], named: set[str] | None = None) -> str:
    """The regime of a group of claims in words: ``paper setting``; ``scaled: <what differs>`` (one scaled
    regime); ``scaled, 3 regimes``; or both counted (``1 in the paper setting, 2 scaled: <what differs>``).
    A scaled regime already written out in the same paragraph (``named``, updated here) reads ``as above``."""
    kinds = [regime_kind(c.get("regime")) for c in claims]
    scaled = Counter(fmt.tidy_numbers(c["regime"]).removeprefix("scaled: ") for c, k in zip(claims, kinds)
                     if k == "scaled")
    n_paper, n_scaled = kinds.count(PAPER_SETTING), sum(scaled.values())
    if not n_scaled:
        return PAPER_SETTING
    if len(scaled) == 1:
        text = next(iter(scaled))
        what = " as above" if named is not None and text in named else f": {text}"
        if named is not None:
            named.add(text)
    else:
        what = f" in {len(scaled)} regimes"
    if not n_paper:
        return f"scaled{what}" if len(scaled) == 1 else f"scaled, {len(scaled)} regimes"
    return f"{n_paper} in the paper setting, {n_scaled} scaled{what}"


def places(claims: list[dict], shown: int = PLACES_SHOWN) -> str:
    """The places in the paper of a group of claims, the most frequent first (ties in ledger order), at most
    ``shown`` of them and how many more."""
    counts = Counter(location(c.get("source")) for c in claims)
    order = [p for p, _ in counts.most_common()]
    text = ", ".join(order[:shown])
    return text + (f" and {len(order) - shown} more" if len(order) > shown else "")


@dataclass
class BottomLine:
    """A paper's own claims sorted by what they say about the paper (see the module docstring)."""

    total: int = 0
    reproduced: list[dict] = field(default_factory=list)
    partly: list[dict] = field(default_factory=list)
    not_reproduced: list[dict] = field(default_factory=list)
    inconclusive: dict[str, list[dict]] = field(default_factory=dict)  # reason group -> claims, largest first
    not_testable: list[dict] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """``{"reproduced": n, "partly": n, "not reproduced": n, "inconclusive": n, "not testable": n}`` and, per
        reason group, ``"inconclusive: <group>"``."""
        out = {"reproduced": len(self.reproduced), "partly": len(self.partly),
               "not reproduced": len(self.not_reproduced),
               "inconclusive": sum(len(v) for v in self.inconclusive.values()),
               "not testable": len(self.not_testable)}
        out.update({f"inconclusive: {g}": len(v) for g, v in self.inconclusive.items()})
        return out


def bottom_line(claims: list[dict]) -> BottomLine:
    """The paper claims among ``claims`` (any kinds, in ledger order) sorted by verdict, the inconclusive ones
    by :func:`reason_group` (the largest group first)."""
    line = BottomLine()
    groups: dict[str, list[dict]] = {}
    for c in claims:
        if c.get("kind") != "paper":
            continue
        line.total += 1
        verdict = c.get("verdict")
        if verdict == "reproduced":
            line.reproduced.append(c)
        elif verdict == "partly":
            line.partly.append(c)
        elif verdict == "not reproduced":
            line.not_reproduced.append(c)
        elif verdict == "inconclusive":
            groups.setdefault(reason_group(c.get("reason")), []).append(c)
        elif verdict == "not testable":
            line.not_testable.append(c)
    line.inconclusive = dict(sorted(groups.items(), key=lambda kv: -len(kv[1])))
    return line


def _group(claims: list[dict], word: str, named: set[str] | None = None) -> str:
    """``3 reproduced (Table 2, §5.1; scaled: <what differs>)``, ledger text escaped for markdown."""
    return (f"{len(claims)} {word} ({fmt.md_escape(places(claims))}; "
            f"{fmt.md_escape(regime_phrase(claims, named))})")


def paragraph(title: str, claims: list[dict], link: str | None = None) -> str:
    """A paper's bottom line as one markdown paragraph: ``title`` (a link to its page when ``link`` is given),
    how many of its statements were tested, then **Holds**, **Does not hold**, **Could not tell** and, if any,
    **Not testable here**, each verdict with its count, places and regime. ``claims``: one per statement, with its
    headline verdict (``evidence`` and ``split`` where a statement has several evidence rows: their totals are
    said after the count)."""
    line = bottom_line(claims)
    head = f"[{title}]({link})" if link else title
    if not line.total:
        return f"**{head}:** no statement of the paper recorded yet."
    mine = [c for c in claims if c.get("kind") == "paper"]
    evidence, split = sum(int(c.get("evidence", 1)) for c in mine), sum(bool(c.get("split")) for c in mine)
    rows = f" ({evidence} evidence rows, {split} split)" if evidence != line.total or split else ""
    named: set[str] = set()  # scaled regimes written out once, "as above" after
    holds = [_group(g, w, named) for g, w in ((line.reproduced, "reproduced"), (line.partly, "partly")) if g]
    parts = [f"**{head}** — {line.total} of the paper's statements tested{rows}.",
             "**Holds:** " + (" and ".join(holds) if holds else "none") + ".",
             "**Does not hold:** " + (_group(line.not_reproduced, "not reproduced", named) if line.not_reproduced
                                      else "none") + "."]
    if line.inconclusive:
        n = sum(len(v) for v in line.inconclusive.values())
        groups = "; ".join(_group(v, g, named) for g, v in line.inconclusive.items())
        parts.append(f"**Could not tell:** {n} inconclusive — {groups}.")
    else:
        parts.append("**Could not tell:** none.")
    if line.not_testable:
        word = "statement" if len(line.not_testable) == 1 else "statements"
        parts.append(f"**Not testable here:** {_group(line.not_testable, word, named)}.")
    return " ".join(parts)
