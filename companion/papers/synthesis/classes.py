"""The classification of the errata (``data/synthesis/errata_classes.csv``): every erratum the errata notebook
records, and every one an earlier version proposed, is an ``erratum`` (a real inconsistency, proven by its cell),
``minor`` (real, but within a convention the paper states or its printed rounding), ``withdrawn`` (the text admits a
reading under which the places agree, or states too little to check) or ``merged`` into another erratum (one root
cause, its consequences listed under it).

The notebook grades each erratum with :func:`criterion`, so its ledger status follows the class: ``confirmed`` for an
erratum, ``minor`` for a minor one (:func:`companion.stats.minor_erratum`). :func:`sides` gathers, per erratum,
the cells that show it side by side with the rule that found them: the table auditor's findings
(``audit_errata.csv``) and the rows of the definitions sweep (``definitions.csv``) that name it.
"""

from __future__ import annotations

from pathlib import Path

from companion.papers.synthesis import audit, definitions, sentences
from companion.papers.synthesis.audit_rules import RULES as AUDIT_RULES
from companion.papers.synthesis.definitions import RULES as SWEEP_RULES
from companion.papers.tables import paper_table

__all__ = ["CLASSES", "RECORDED", "RULES", "criterion", "read_classes", "recorded", "sides"]

CLASSES = ("erratum", "minor", "withdrawn", "merged")
#: the classes the errata notebook records in its ledger
RECORDED = ("erratum", "minor")
#: the rules that find an erratum: the table auditor's, the definitions sweep's, a paper notebook's measurement and
#: the sentence sweep's (a comparative sentence against the paper's own tables)
RULES = (*AUDIT_RULES, *(r for r in SWEEP_RULES if r not in AUDIT_RULES), "evidence", "sentence")


def rules_of(cell: str) -> list[str]:
    """The rules of a ``rule`` cell (``"formula; evidence"``)."""
    return [r.strip() for r in str(cell).split(";") if r.strip()]


def read_classes(root: str | Path | None = None):
    """``errata_classes.csv`` indexed by id, checked: known classes and rules, unique ids, a why on every row, and
    every ``merged`` row merged into an erratum that is recorded."""
    frame = paper_table("synthesis", "errata_classes", root=root)
    rows = frame.to_dict("records")
    problems = [f"{r['id']}: unknown class {r['class']!r}" for r in rows if r["class"] not in CLASSES]
    problems += [f"{r['id']}: unknown rule {x!r}" for r in rows for x in rules_of(r["rule"]) if x not in RULES]
    problems += [f"{r['id']}: no rule" for r in rows if not rules_of(r["rule"])]
    problems += [f"{r['id']}: no why" for r in rows if not str(r["why"]).strip()]
    problems += [f"id {d} listed twice" for d in frame["id"][frame["id"].duplicated()]]
    classes = dict(zip(frame["id"], frame["class"]))
    for r in rows:
        if r["class"] == "merged" and classes.get(r["into"]) not in RECORDED:
            problems.append(f"{r['id']}: merged into {r['into']!r}, which is not a recorded erratum")
        if r["class"] != "merged" and str(r["into"]).strip():
            problems.append(f"{r['id']}: 'into' is only for merged errata")
        if r["paper"] != r["id"].split(":")[0]:
            problems.append(f"{r['id']}: paper {r['paper']!r} is not the id's prefix")
    if problems:
        raise ValueError("data/synthesis/errata_classes.csv: " + "; ".join(problems))
    return frame.set_index("id")


def recorded(classes) -> list[str]:
    """The ids the errata notebook records (class ``erratum`` or ``minor``), in file order."""
    return [i for i, c in zip(classes.index, classes["class"]) if c in RECORDED]


def criterion(classes, erratum_id: str, description: str):
    """The criterion that grades erratum ``erratum_id`` by its class: :func:`companion.stats.holds` for an
    erratum, :func:`companion.stats.minor_erratum` (with the class's why) for a minor one. A withdrawn or merged
    erratum is not recorded: asking for its criterion raises."""
    from companion.stats import holds, minor_erratum  # noqa: PLC0415 - loads scipy; this module imports without it

    if erratum_id not in classes.index:
        raise KeyError(f"{erratum_id!r} is not classified in data/synthesis/errata_classes.csv")
    kind, why = classes.loc[erratum_id, "class"], classes.loc[erratum_id, "why"]
    if kind == "erratum":
        return holds(description)
    if kind == "minor":
        return minor_erratum(description, why)
    raise ValueError(f"{erratum_id!r} is {kind} in data/synthesis/errata_classes.csv: it is not recorded")


def _split(cells: str) -> tuple[str, str]:
    """An auditor finding's cells as two places: ``x = 1; y = 2`` or ``a > b`` -> (first, rest)."""
    for sep in ("; ", " > "):
        if sep in cells:
            a, b = cells.split(sep, 1)
            return a, b
    return cells, ""


def sides(root: str | Path | None = None) -> dict[str, list[dict[str, str]]]:
    """Per recorded erratum id, the cells that show it side by side: one entry per auditor finding assigned to it
    (``audit_errata.csv``), per row of the definitions sweep that names it and per contradicted sentence of the
    sentence sweep (``data/<paper>/sentences.csv``) that names it, each with its ``rule``, the two places ``a`` and
    ``b`` (what the paper prints there) and what was ``recomputed``."""
    out: dict[str, list[dict[str, str]]] = {}
    report = audit.audit(root)
    for f in report.findings:
        erratum = report.errata.get(f.key)
        if erratum is None:
            continue
        a, b = _split(f.cells)
        out.setdefault(erratum, []).append({"rule": f.rule, "a": a, "b": b, "recomputed": f.detail})
    frame = definitions.sweep(root)
    for r in frame.itertuples():
        if not str(r.erratum).strip():
            continue
        recomputed = r.detail if r.recomputed else "read side by side"
        form_a, form_b = (definitions.display_form(f) for f in (r.form_a, r.form_b))
        out.setdefault(r.erratum, []).append({
            "rule": r.rule, "a": f"{r.location_a}: {form_a}", "b": f"{r.location_b}: {form_b}",
            "recomputed": f"{r.verdict}; {recomputed}"})
    report = sentences.sweep(root)
    for r in report.contradicted():
        if report.classes.get(r.erratum) in RECORDED:
            out.setdefault(r.erratum, []).append({
                "rule": "sentence", "a": f"{r.source}: {r.statement}", "b": r.rests_on,
                "recomputed": f"contradicted; {r.detail}"})
    return out
