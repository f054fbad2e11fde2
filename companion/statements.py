"""Statements: the unit the scoreboard counts. A statement is one thing a paper says; an evidence row is one
``paper`` claim of a ledger that tests it. One statement can have several evidence rows (the same Table 4 gap run
on a raw encoder and on MiniLM, the same §5.2 number on MiniLM and on the paper's backbone, the same sentence
tested in two notebooks); counting rows would count that statement several times, often with different verdicts.

**The rule** (:func:`statement_id`, :func:`assign`): a claim's statement id is its claim id with its regime
markers removed (:data:`MARKERS`: the prefix ``mpnet_``, the suffixes ``-raw`` and ``:full-width``). Rows of one
paper whose ids become the same are one statement when they agree on ``source`` and ``paper_value``; when they do
not, each group that agrees is a statement of its own, named ``<notebook>/<claim id>`` after its first row
(two notebooks can reuse an id for different cells of a table). **Exceptions** decide only what the rule cannot:
``data/<paper>/statements.csv`` (columns ``notebook, claim, statement, reason``; ``#`` lines are comments) names a
claim and the statement it tests, or ``erratum-evidence:<erratum id>`` for a row that is the evidence of an erratum
(counted on the errata page, never as a statement of the paper). :func:`exception_problems` checks that file
against the ledgers.

**The headline rule** (:func:`headlines`): the evidence row whose regime is closest to the paper's setting gives
the statement its verdict. Closeness is :data:`REGIME_ORDER`, decided per row by :func:`regime_class`; ties go to
the row whose own id is the statement id (the rule's row) before rows joined by an exception (a variant such as
another temperature), then to ledger order. A row that could not be tested (``not testable``) never decides over
one that was. Where the rows disagree, the statement keeps the headline's verdict and carries ``split`` and a
``split_text`` naming every verdict with its regime and rows, so nothing is hidden. Every evidence row belongs to
exactly one statement, so no row is counted twice.

Everything here works on the DataFrame of :func:`companion.results.claims_frame` (this module does not read
ledgers; :func:`companion.results.scoreboard` counts statements with :func:`board`).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pandas as pd

from companion import settings as _settings
from companion.stats import VERDICTS

#: the regime markers the rule removes from a claim id: (where, marker, the regime it names)
MARKERS = (
    ("prefix", "mpnet_", "the paper's backbone all-mpnet-base-v2 (concepts)"),
    ("suffix", "-raw", "the raw masked-language-model encoder built here, every layer trained (simace, angle)"),
    ("suffix", ":full-width", "heads of the paper's full width on the frozen encoder (circumplex)"),
)
#: an exception's statement for a row that is the evidence of an erratum: ``erratum-evidence:<erratum claim id>``
ERRATUM_EVIDENCE = "erratum-evidence:"
EXCEPTION_COLUMNS = ("notebook", "claim", "statement", "reason")

#: the headline rule's order of regimes, closest to the paper's setting first, with what each keeps of it. The
#: order ranks how much of the paper's own set-up a run keeps: the setting itself; then the paper's model (a
#: statement about an encoder's representations is first about that encoder); then the paper's recipe on a
#: smaller encoder (an objective applied to a raw encoder whose every layer it trains, as the papers do, rather
#: than to MiniLM, which contrastive training has already shaped, so that its top layer shows little of what an
#: objective does); then the paper's head on a frozen encoder; then everything else.
REGIME_ORDER = (
    ("paper setting", "the paper's own setting"),
    ("paper backbone", "the paper's own backbone, with fewer steps, less data or fewer layers trained"),
    ("paper recipe", "the paper's kind of encoder and training on a smaller model: a raw masked-language-model "
                     "encoder with every layer trained, or the whole encoder fine-tuned with its head"),
    ("paper head", "the paper's head width on a frozen, smaller encoder"),
    ("scaled", "every other scaled regime: an already contrastively trained MiniLM with its top layers trained, "
               "heads narrower than the paper's, synthetic data, a setting changed from the paper's"),
)
#: how :func:`regime_class` recognises a class: a pattern of the claim id or of the regime text (first match wins)
_CLASS_PATTERNS = (
    ("paper backbone", re.compile(r"(^|_)mpnet_"), re.compile(r"all-mpnet-base-v2|\bfrozen mpnet\b")),
    ("paper recipe", re.compile(r"-raw$"), re.compile(r"raw MLM encoder|fine-tuned whole")),
    ("paper head", re.compile(r":full-width$"), None),
)
PAPER_SETTING = "paper setting"


def regime_kind(regime: str | None) -> str:
    """``paper setting`` or ``scaled`` — the two columns every count is split by."""
    return PAPER_SETTING if not regime or regime == PAPER_SETTING else "scaled"


def regime_class(claim_id: str, regime: str | None) -> str:
    """The class of :data:`REGIME_ORDER` of one evidence row, from its regime text and its id's markers."""
    if regime_kind(regime) == PAPER_SETTING:
        return PAPER_SETTING
    for name, by_id, by_regime in _CLASS_PATTERNS:
        if by_id.search(claim_id) or (by_regime is not None and by_regime.search(regime or "")):
            return name
    return "scaled"


def statement_id(claim_id: str) -> str:
    """The rule: ``claim_id`` with its regime markers (:data:`MARKERS`) removed.

    >>> statement_id("mpnet_B1_r10_up"), statement_id("t2-simace-vs-simcse-raw")
    ('B1_r10_up', 't2-simace-vs-simcse')
    """
    out = claim_id
    for where, marker, _ in MARKERS:
        if where == "prefix" and out.startswith(marker) and len(out) > len(marker):
            out = out[len(marker):]
        elif where == "suffix" and out.endswith(marker) and len(out) > len(marker):
            out = out[: -len(marker)]
    return out


# --------------------------------------------------------------------------------------------- exceptions
def exceptions_path(paper: str, root: Path | None = None) -> Path:
    """``data/<paper>/statements.csv`` of the checkout ``root`` (default :func:`companion.settings.repo_root`)."""
    root = Path(root) if root is not None else _settings.repo_root()
    return root / "data" / paper / "statements.csv"


def read_exceptions(paper: str, root: Path | None = None) -> list[dict[str, str]]:
    """The rows of ``data/<paper>/statements.csv`` (none when there is no such file, or no checkout)."""
    try:
        path = exceptions_path(paper, root)
    except _settings.RepositoryNotFoundError:
        return []
    if not path.is_file():
        return []
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(lines))
    if rows and set(EXCEPTION_COLUMNS) - set(rows[0]):
        raise ValueError(f"{path}: columns {', '.join(EXCEPTION_COLUMNS)} expected, got {', '.join(rows[0])}")
    return [{k: (row.get(k) or "").strip() for k in EXCEPTION_COLUMNS} for row in rows]


def _exceptions(papers, root: Path | None, given: dict | None) -> dict[tuple[str, str, str], str]:
    if given is not None:
        return dict(given)
    return {(paper, row["notebook"], row["claim"]): row["statement"]
            for paper in papers for row in read_exceptions(paper, root)}


# --------------------------------------------------------------------------------------------- the rule
def _agreement(row) -> str:
    return json.dumps([row["source"], row["paper_value"]], sort_keys=True, default=str)


def assign(frame, root: Path | None = None, exceptions: dict | None = None):
    """``frame`` (the ``paper`` claims of :func:`companion.results.claims_frame`) with four columns added:
    ``statement`` (its statement id, or ``erratum-evidence:<id>``), ``by`` (``rule`` or ``exception``),
    ``regime_class`` (:func:`regime_class`) and ``order`` (its position in ``frame``).

    ``exceptions``: ``{(paper, notebook, claim id): statement}`` instead of the checkout's
    ``data/<paper>/statements.csv`` files (``root``: that checkout)."""
    frame = frame.reset_index(drop=True)
    chosen = _exceptions(sorted(set(frame["paper"])), root, exceptions)
    keys = list(zip(frame["paper"], frame["notebook"], frame["id"]))
    by = ["exception" if k in chosen else "rule" for k in keys]
    statement = [chosen.get(k) or statement_id(k[2]) for k in keys]
    # the rule's twins must agree on source and paper value; each group that agrees is a statement of its own
    groups: dict[tuple[str, str], dict[str, list[int]]] = {}
    for i, (k, how) in enumerate(zip(keys, by)):
        if how == "rule":
            groups.setdefault((k[0], statement[i]), {}).setdefault(_agreement(frame.iloc[i]), []).append(i)
    for parts in groups.values():
        if len(parts) > 1:
            for rows in parts.values():
                first = rows[0]
                for i in rows:
                    statement[i] = f"{frame.at[first, 'notebook']}/{frame.at[first, 'id']}"

    def column(values):  # object dtype, also when the frame is empty
        return pd.Series(values, index=frame.index, dtype=object)

    return frame.assign(statement=column(statement), by=column(by),
                        regime_class=column([regime_class(i, r) for i, r in zip(frame["id"], frame["regime"])]),
                        order=range(len(frame)))


def erratum_evidence(frame, root: Path | None = None, exceptions: dict | None = None):
    """The rows of ``frame`` that are the evidence of an erratum (an exception names them), with their
    ``erratum`` (the erratum's claim id): counted on the errata page, never as statements of the paper."""
    rows = assign(frame, root, exceptions)
    rows = rows[rows["statement"].str.startswith(ERRATUM_EVIDENCE)]
    return rows.assign(erratum=rows["statement"].str.removeprefix(ERRATUM_EVIDENCE))


# --------------------------------------------------------------------------------------------- the headline rule
_RANK = {name: i for i, (name, _) in enumerate(REGIME_ORDER)}
HEADLINE_COLUMNS = ["paper", "statement", "verdict", "regime", "regime_class", "notebook", "id", "claim", "source",
                    "paper_value", "reason", "evidence", "evidence_rows", "split", "split_text"]


def headline_key(row) -> tuple:
    """The headline rule's order of one evidence row (smallest decides): tested before not testable, then the
    regime's place in :data:`REGIME_ORDER`, then the rule's row before rows joined by an exception, then ledger
    order."""
    return (row["verdict"] == "not testable", _RANK[row["regime_class"]], row["by"] != "rule", row["order"])


def _evidence(rows) -> str:
    return ", ".join(f"{nb} · {cid}" for nb, cid in zip(rows["notebook"], rows["id"]))


def split_text(rows) -> str:
    """``not reproduced in the paper backbone regime (04-x · a); partly in the scaled regime (04-x · b, c)``: every
    verdict of a statement's evidence rows (``rows`` in the headline rule's order, headline first), with the regime
    classes and the rows that gave it."""
    parts: dict[tuple[str, str], list[int]] = {}
    for i, (verdict, cls) in enumerate(zip(rows["verdict"], rows["regime_class"])):
        parts.setdefault((verdict, cls), []).append(i)
    return "; ".join(f"{verdict} {_in(cls)} ({_evidence(rows.iloc[idx])})" for (verdict, cls), idx in parts.items())


def _in(cls: str) -> str:
    return "in the paper setting" if cls == PAPER_SETTING else f"in the {cls} regime"


def headlines(frame, root: Path | None = None, exceptions: dict | None = None):
    """One row per statement (:data:`HEADLINE_COLUMNS`) of the ``paper`` claims in ``frame``, erratum evidence left
    out: the headline row's verdict, regime, notebook, id, claim, source, paper value and reason; ``evidence`` (how
    many rows test it), ``evidence_rows`` (``notebook · id, ...``), ``split`` (its rows disagree in verdict) and
    ``split_text`` (:func:`split_text`, empty unless split). In the order of each statement's first row."""
    rows = assign(frame[frame["kind"] == "paper"] if "kind" in frame else frame, root, exceptions)
    rows = rows[~rows["statement"].str.startswith(ERRATUM_EVIDENCE)]
    out = []
    for (paper, statement), group in rows.groupby(["paper", "statement"], sort=False):
        group = group.iloc[sorted(range(len(group)), key=lambda i: headline_key(group.iloc[i]))]
        head = group.iloc[0]
        split = group["verdict"].nunique() > 1
        out.append({**{k: head.get(k) for k in ("verdict", "regime", "regime_class", "notebook", "id", "claim",
                                                 "source", "paper_value", "reason")},
                    "paper": paper, "statement": statement, "evidence": len(group),
                    "evidence_rows": _evidence(group), "split": bool(split),
                    "split_text": split_text(group) if split else "", "_first": int(group["order"].min())})
    if not out:
        return pd.DataFrame(columns=HEADLINE_COLUMNS)
    return pd.DataFrame(out).sort_values("_first", kind="stable")[HEADLINE_COLUMNS].reset_index(drop=True)


def board(frame, by_regime: bool = False, root: Path | None = None, exceptions: dict | None = None):
    """Headline verdict counts of the statements of ``frame``'s ``paper`` claims, one row per paper (and regime
    of the headline row, ``by_regime``): the verdicts, ``total`` (statements), ``evidence`` (their evidence rows)
    and ``split`` (statements whose rows disagree)."""
    index = ["paper", "regime"] if by_regime else ["paper"]
    heads = headlines(frame, root, exceptions)
    if heads.empty:
        return pd.DataFrame(columns=[*index, *VERDICTS, "total", "evidence", "split"])
    heads = heads.assign(regime=heads["regime"].map(regime_kind))
    counts = heads.pivot_table(index=index, columns="verdict", values="statement", aggfunc="count", fill_value=0)
    counts = counts.reindex(columns=list(VERDICTS), fill_value=0)
    counts["total"] = counts.sum(axis=1)
    sums = heads.groupby(index)[["evidence", "split"]].sum().astype(int)
    counts = counts.join(sums)
    counts.columns.name = None
    return counts.reset_index()


# --------------------------------------------------------------------------------------------- checks
def exception_problems(frame, root: Path | None = None) -> list[str]:
    """What is wrong with the exceptions files of the papers in ``frame`` (all kinds of claims of the ledgers):
    a row that names no ``paper`` claim of its paper's ledgers, a claim named twice, an empty statement or reason,
    an ``erratum-evidence`` that names no erratum of the ledgers, an exception that repeats what the rule decides
    by itself, a statement that neither the rule gives nor another exception row names (a typo)."""
    problems = []
    papers = frame[frame["kind"] == "paper"]
    errata = set(frame.loc[frame["kind"] == "erratum", "id"])
    for paper in sorted(set(papers["paper"])):
        mine = papers[papers["paper"] == paper]
        where = f"data/{paper}/statements.csv"
        rows = read_exceptions(paper, root)
        alone = assign(mine, exceptions={})  # the rule by itself
        by_rule = dict(zip(zip(alone["notebook"], alone["id"]), alone["statement"]))
        actual = assign(mine, root)
        ruled = set(actual.loc[actual["by"] == "rule", "statement"])  # with the exceptions applied
        named = [r["statement"] for r in rows]
        seen = set()
        for r in rows:
            key = (r["notebook"], r["claim"])
            label = f"{where}: {r['notebook']} · {r['claim']}"
            if key in seen:
                problems.append(f"{label} is listed twice")
            seen.add(key)
            if key not in by_rule:
                problems.append(f"{label} is not a paper claim of results/{paper}/")
            if not r["statement"] or not r["reason"]:
                problems.append(f"{label} needs a statement and a reason")
            elif r["statement"].startswith(ERRATUM_EVIDENCE):
                if r["statement"].removeprefix(ERRATUM_EVIDENCE) not in errata:
                    problems.append(f"{label}: {r['statement']} names no erratum of the ledgers")
            elif by_rule.get(key) == r["statement"]:
                problems.append(f"{label}: the rule by itself gives {r['statement']!r}")
            elif r["statement"] not in ruled and named.count(r["statement"]) < 2:
                problems.append(f"{label}: {r['statement']!r} is no statement of the rule nor of another exception")
    return problems
