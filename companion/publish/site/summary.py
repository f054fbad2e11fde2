"""What stopped a statement, and where in the paper a claim is: the small readers the bottom lines
(:mod:`companion.publish.site.findings`) build on.

* :func:`reason_group` — an *inconclusive* verdict's reason by what stopped it: the reason's lead word before its
  colon (``underpowered``, ``budget``, ``did not train``, ``ceiling``…); an interval that covers both zero and the
  paper's effect (or straddles a band) is a ``wide interval``; anything else ``other reasons``.
* :func:`location` — where in the paper a claim's source points, shortly (``Table 4``, ``§5.1``, ``App. D.4``).
"""

from __future__ import annotations

import re
from typing import Any

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
