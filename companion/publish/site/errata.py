"""The errata: claims of kind ``erratum`` (recorded by the errata notebook ``synthesis/00-errata``), one card each
on ``site/errata.qmd``, listed on each paper's page, and counted apart from the scoreboard with their own statuses
(:data:`ERRATUM_STATUS`: an erratum is confirmed or not, never "reproduced").
"""

from __future__ import annotations

import re
from pathlib import Path

from companion.publish.site import format as fmt
from companion.publish.site.common import (
    ERRATA_PAGE,
    LANDING,
    _base,
    _cell_link,
    _ledgers,
    _paper_order,
    _root,
    _title,
    claim_locations,
    paper_page,
)

ERRATUM_STATUS = {"confirmed": "confirmed", "partly": "partly confirmed", "not confirmed": "not confirmed",
                  "inconclusive": "cannot tell"}


def _errata_entries(root: Path) -> list[tuple[str, str, dict]]:
    """``(ledger owner, notebook, claim)`` of every erratum (a claim of kind ``erratum``; the errata notebook
    ``synthesis/00-errata`` records them), in ledger order."""
    return [(ledger["paper"], ledger["notebook"], c) for ledger in _ledgers(root) for c in ledger["claims"]
            if c.get("kind") == "erratum"]


def _errata_claims(root: Path) -> list[dict]:
    return [c for _, _, c in _errata_entries(root)]


def _erratum_paper(claim: dict) -> str:
    """The paper an erratum is about: its id's prefix (``weighted-cl:soft-tau-star``)."""
    return claim["id"].split(":")[0]


ERRATUM_CALLOUT = {"confirmed": "callout-tip", "partly confirmed": "callout-warning",
                   "not confirmed": "callout-important", "cannot tell": "callout-note"}


def erratum_anchor(claim_id: str) -> str:
    """The heading id of an erratum on the errata page (``weighted-cl:soft-tau-star`` ->
    ``erratum-weighted-cl-soft-tau-star``)."""
    return "erratum-" + re.sub(r"[^a-z0-9]+", "-", claim_id.lower()).strip("-")


def _erratum_where(claim: dict) -> str:
    source = claim.get("source") or ""
    return source.split("|", 1)[1].strip() if "|" in source else source or claim["id"].split(":", 1)[-1]


def erratum_card(claim: dict, number: int, base: str, location: tuple[str, int] | None) -> str:
    """One erratum as a heading (with a stable id) and a callout: what is wrong, what the paper prints, what the
    notebook computed (each condition in words), the details and the cell that proves it. Its status is one of
    :data:`ERRATUM_STATUS` (an erratum is confirmed or not, never "reproduced")."""
    status = ERRATUM_STATUS[claim["verdict"]]
    callout = ERRATUM_CALLOUT.get(status, "callout-note")
    ours = claim.get("ours")
    computed = (fmt.conditions(ours) if isinstance(ours, dict) and ours
                else fmt.ledger_text(fmt.value_text(ours)) or "nothing computed")
    paper_value = claim.get("paper_value")
    paper_text = fmt.ledger_text(fmt.value_text(paper_value, printed=True)) if paper_value is not None else "—"
    parts = [f"### {number}. {fmt.ledger_text(_erratum_where(claim))} — {status} {{#{erratum_anchor(claim['id'])}}}",
             "", f'::: {{.{callout} appearance="simple" icon=false}}',
             f"**{status.capitalize()}.** {fmt.ledger_text(claim['claim'])}", "",
             f"**The paper prints:** {paper_text}", "",
             "**Computed:**", "", computed, ""]
    if claim.get("note"):
        parts += [f"**Details:** {fmt.ledger_text(claim['note'])}", ""]
    if claim.get("reason"):
        parts += [f"**Why {status}:** {fmt.ledger_text(claim['reason'])}", ""]
    if claim.get("regime"):
        parts += [f"**Regime:** {fmt.ledger_text(claim['regime'])}", ""]
    parts += [f"**Criterion:** {fmt.ledger_text(claim.get('criterion', ''))}. Proved in {_cell_link(location, base)}.",
              ":::", ""]
    return "\n".join(parts)


def errata_markdown(page: str = ERRATA_PAGE, root: Path | None = None, paper: str | None = None) -> str:
    """The errata (claims of kind ``erratum``, ids ``<paper>:<slug>``).

    On the errata page (``paper=None``): one section per paper, one card per erratum
    (:func:`erratum_card`). On a paper's page: a list of that paper's errata, each with its status and a link to
    its card on the errata page."""
    root = _root(root)
    base = _base(page)
    entries = _errata_entries(root)
    if paper is not None:
        entries = [e for e in entries if _erratum_paper(e[2]) == paper]
    if not entries:
        return "_No erratum recorded for this paper._" if paper else "_The errata notebook has not been run yet._"
    entries = sorted(entries, key=lambda e: _paper_order(_erratum_paper(e[2])))
    if paper is not None:
        return "\n".join(f"- **{ERRATUM_STATUS[c['verdict']]}** ({fmt.ledger_text(_erratum_where(c))}): "
                         f"{fmt.ledger_text(c['claim'])} "
                         f"([details]({base}{ERRATA_PAGE}#{erratum_anchor(c['id'])}))" for _, _, c in entries)
    where = claim_locations(root)
    parts: list[str] = []
    current = None
    for n, (owner, notebook, c) in enumerate(entries, 1):
        p = _erratum_paper(c)
        if p != current:
            current = p
            parts += [f"## {_title(p)}", ""]
            if (root / paper_page(p)).exists():
                parts += [f"The paper's page: [{_title(p)}]({base}{paper_page(p)}).", ""]
        parts.append(erratum_card(c, n, base, where.get((owner, notebook, c["id"]))))
    return "\n".join(parts)


def errata_counts(root: Path | None = None) -> dict[str, int]:
    """Errata by status (``confirmed``, ``partly confirmed``, ...; :data:`ERRATUM_STATUS`, in its order)."""
    statuses = [ERRATUM_STATUS[c["verdict"]] for c in _errata_claims(_root(root))]
    return {s: statuses.count(s) for s in ERRATUM_STATUS.values() if s in statuses}


def errata_by_paper(root: Path | None = None) -> dict[str, dict[str, int]]:
    """Per paper (an erratum's id prefix), its errata by status."""
    out: dict[str, dict[str, int]] = {}
    for c in _errata_claims(_root(root)):
        counts = out.setdefault(_erratum_paper(c), {})
        counts[ERRATUM_STATUS[c["verdict"]]] = counts.get(ERRATUM_STATUS[c["verdict"]], 0) + 1
    return {p: {s: counts[s] for s in ERRATUM_STATUS.values() if s in counts} for p, counts in out.items()}


def errata_summary(page: str = LANDING, root: Path | None = None) -> str:
    """The errata's own count (confirmed, partly confirmed, and any other status), apart from the scoreboard: an
    erratum says the paper contradicts itself, so it is never a reproduced paper claim."""
    counts = errata_counts(root)
    if not counts:
        return "_No erratum recorded yet: the errata notebook has not been run._"
    shown = {"confirmed": counts.get("confirmed", 0), "partly confirmed": counts.get("partly confirmed", 0),
             **counts}
    total = sum(counts.values())
    text = ", ".join(f"**{n}** {status}" for status, n in shown.items())
    link = "" if page == ERRATA_PAGE else f" — one card each on [the errata page]({_base(page)}{ERRATA_PAGE})"
    return (f"**Errata**, counted apart from the scoreboard (an erratum is never a reproduced paper claim): {text} "
            f"({total} in all){link}.")
