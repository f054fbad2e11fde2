"""The errata: claims of kind ``erratum`` (recorded by the errata notebook ``synthesis/00-errata``), one card each
on ``site/errata.qmd``, listed on each paper's page, and counted apart from the scoreboard with their own statuses
(:data:`ERRATUM_STATUS`: an erratum is confirmed, minor or not, never "reproduced").

The errata page opens with the count per paper and kind (the ledger's statuses, and the withdrawn and merged errata of
``data/synthesis/errata_classes.csv``); each card shows the cells that prove the erratum side by side with the rule
that found them (:func:`companion.papers.synthesis.classes.sides`: the table auditor's findings and the rows of the
definitions sweep), and the page closes with the withdrawn and merged errata and why.
"""

from __future__ import annotations

import re
from pathlib import Path

from companion.papers.synthesis.classes import read_classes, sides
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
    md_table,
    paper_page,
)

ERRATUM_STATUS = {"confirmed": "confirmed", "minor": "minor", "partly": "partly confirmed",
                  "not confirmed": "not confirmed", "inconclusive": "cannot tell"}


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


ERRATUM_CALLOUT = {"confirmed": "callout-tip", "minor": "callout-note", "partly confirmed": "callout-warning",
                   "not confirmed": "callout-important", "cannot tell": "callout-note"}
#: what each rule of errata_classes.csv is, in words
_RULE_WORDS = {"evidence": "a paper notebook's measurement", "reading": "the two places read side by side"}
_SWEEP_RULES = ("formula", "condition", "value")


def erratum_anchor(claim_id: str) -> str:
    """The heading id of an erratum on the errata page (``weighted-cl:soft-tau-star`` ->
    ``erratum-weighted-cl-soft-tau-star``)."""
    return "erratum-" + re.sub(r"[^a-z0-9]+", "-", claim_id.lower()).strip("-")


def _erratum_where(claim: dict) -> str:
    source = claim.get("source") or ""
    return source.split("|", 1)[1].strip() if "|" in source else source or claim["id"].split(":", 1)[-1]


def rule_words(rule: str) -> str:
    """A rule of ``errata_classes.csv`` in words: ``average`` -> the table auditor's `average` rule."""
    if rule in _RULE_WORDS:
        return _RULE_WORDS[rule]
    owner = "the definitions sweep's" if rule in _SWEEP_RULES else "the table auditor's"
    return f"{owner} `{rule}` rule"


def sides_table(sides: list[dict[str, str]]) -> str:
    """The cells that show an erratum, side by side: per finding its rule, the two places with what the paper prints
    there, and what was recomputed."""
    return md_table(["rule", "one place", "the other place", "recomputed"],
                    [[f"`{x['rule']}`", fmt.ledger_text(x["a"]), fmt.ledger_text(x["b"]) or "—",
                      fmt.ledger_text(x["recomputed"])] for x in sides])


def erratum_card(claim: dict, number: int, base: str, location: tuple[str, int] | None,
                 found_by: str | None = None, sides: list[dict[str, str]] | None = None) -> str:
    """One erratum as a heading (with a stable id) and a callout: what is wrong, what the paper prints, the rule that
    found it (``found_by``: the ``rule`` cell of ``errata_classes.csv``), its cells side by side (``sides``), what the
    notebook computed (each condition in words), the details and the cell that proves it. Its status is one of
    :data:`ERRATUM_STATUS` (an erratum is confirmed, minor or not, never "reproduced")."""
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
             f"**The paper prints:** {paper_text}", ""]
    if found_by:
        rules = [r.strip() for r in found_by.split(";") if r.strip()]
        parts += [f"**Found by:** {', '.join(rule_words(r) for r in rules)}.", ""]
    if sides:
        parts += ["**Side by side:**", "", sides_table(sides), ""]
    parts += ["**Computed:**", "", computed, ""]
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
    kinds = _classification(root)
    found = _sides(root)
    parts: list[str] = ["## Count per paper and kind", "", errata_kind_table(root, base, kinds), ""]
    current = None
    for n, (owner, notebook, c) in enumerate(entries, 1):
        p = _erratum_paper(c)
        if p != current:
            current = p
            parts += [f"## {_title(p)}", ""]
            if (root / paper_page(p)).exists():
                parts += [f"The paper's page: [{_title(p)}]({base}{paper_page(p)}).", ""]
        found_by = kinds.loc[c["id"], "rule"] if kinds is not None and c["id"] in kinds.index else None
        parts.append(erratum_card(c, n, base, where.get((owner, notebook, c["id"])), found_by, found.get(c["id"])))
    if kinds is not None:
        parts += withdrawn_markdown(kinds)
    return "\n".join(parts)


def _classification(root: Path):
    """``errata_classes.csv`` of the checkout ``root`` (None where it has none)."""
    if not (root / "data" / "synthesis" / "errata_classes.csv").is_file():
        return None

    return read_classes(root)


def _sides(root: Path) -> dict[str, list[dict[str, str]]]:
    """Per erratum its cells side by side (:func:`companion.papers.synthesis.classes.sides`); empty where the
    checkout has no auditor dispositions or definitions sweep."""
    synthesis = root / "data" / "synthesis"
    if not all((synthesis / f).is_file() for f in ("audit_errata.csv", "definitions.csv", "errata_classes.csv")):
        return {}

    return sides(root)


def errata_kind_table(root: Path, base: str, kinds=None) -> str:
    """Per paper, its errata by status (the ledger: confirmed, minor, ...) and, from the classification, the
    withdrawn and merged ones: the count per paper and kind."""
    by_paper = errata_by_paper(root)
    gone: dict[str, dict[str, int]] = {}
    if kinds is not None:
        for paper, kind in zip(kinds["paper"], kinds["class"]):
            if kind in ("withdrawn", "merged"):
                gone.setdefault(paper, {}).setdefault(kind, 0)
                gone[paper][kind] += 1
    statuses = [s for s in ERRATUM_STATUS.values() if any(s in c for c in by_paper.values())]
    extra = [k for k in ("withdrawn", "merged") if any(k in g for g in gone.values())]
    papers = sorted(set(by_paper) | set(gone), key=_paper_order)
    rows = [[_title(p), *(by_paper.get(p, {}).get(s, 0) for s in statuses), *(gone.get(p, {}).get(k, 0) for k in extra)]
            for p in papers]
    rows.append(["all five papers", *(sum(by_paper.get(p, {}).get(s, 0) for p in papers) for s in statuses),
                 *(sum(gone.get(p, {}).get(k, 0) for p in papers) for k in extra)])
    return md_table(["paper", *statuses, *extra], rows)


def withdrawn_markdown(kinds) -> list[str]:
    """The withdrawn and merged errata of the classification, each with where it is and why."""
    rows = kinds[kinds["class"].isin(["withdrawn", "merged"])]
    if rows.empty:
        return []
    parts = ["## Withdrawn and merged", "",
             "Errata that a reading of the paper withdraws (the text admits a reading under which the places agree, or "
             "states too little to check) or merges into the erratum whose consequence they are. The table auditor's "
             "findings behind them are explained in its allow-list; the definitions sweep gives the readings side by "
             "side.", ""]
    for erratum_id, r in rows.iterrows():
        what = (f"merged into [{r['into']}](#{erratum_anchor(r['into'])})" if r["class"] == "merged"
                else "withdrawn")
        parts.append(f"- **{_title(r['paper'])}, {fmt.ledger_text(r['location'])}** (`{erratum_id}`, {what}): "
                     f"{fmt.ledger_text(r['why'])}")
    return [*parts, ""]


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
    """The errata's own count (confirmed, minor, partly confirmed, and any other status), apart from the scoreboard: an
    erratum says the paper contradicts itself, so it is never a reproduced paper claim."""
    counts = errata_counts(root)
    if not counts:
        return "_No erratum recorded yet: the errata notebook has not been run._"
    shown = {"confirmed": counts.get("confirmed", 0), **({"minor": counts["minor"]} if counts.get("minor") else {}),
             "partly confirmed": counts.get("partly confirmed", 0), **counts}
    total = sum(counts.values())
    text = ", ".join(f"**{n}** {status}" for status, n in shown.items())
    link = "" if page == ERRATA_PAGE else f" — one card each on [the errata page]({_base(page)}{ERRATA_PAGE})"
    return (f"**Errata**, counted apart from the scoreboard (an erratum is never a reproduced paper claim): {text} "
            f"({total} in all){link}.")
