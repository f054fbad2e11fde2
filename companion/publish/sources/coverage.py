"""Coverage maps: ``data/<paper>/coverage.csv`` has a row for every table, figure and numbered theorem-like
statement the paper text mentions, with the claims that test it or the reason it is not tested.

:func:`mentioned_items` lists what the text mentions; :func:`check_coverage` the problems of a map (a mentioned item
without a row, a claim id that is not in the named notebook's ledger, a row with neither claims nor a reason);
:func:`coverage_status` the status the site shows for each row, computed from the claims' verdicts in the committed
ledgers.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pandas as pd

from companion import paper_registry as _papers
from companion import results as _results
from companion import settings as _settings
from companion.papers.text import (
    ITEM_PATTERNS,
    STATEMENT_KINDS,
    captions,
    defined_statements,
    raw_text,
    unescape,
)

PAPERS = _papers.REPRODUCED
COVERAGE_COLUMNS = ("item", "states", "notebook", "claims", "scale_or_reason")


# ----------------------------------------------------------------------------------------------------------------
# The items a paper mentions
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


@cache
def mentioned_items(paper: str) -> frozenset[str]:
    """Every ``Table N``, ``Figure N`` (also ``Fig. N``) and numbered ``Theorem/Lemma/Corollary/Proposition X.Y``
    the text of ``paper`` mentions, normalised (``Table 4``, ``Figure 7``, ``Theorem 3.7``, ``Corollary 3.9``).

    Definitions are left out. Mentions of another work's items are excluded: those right after a citation (a year
    in brackets, ``et al.``) and those the registry lists for the paper (``text_other_works``). A theorem-like
    mention takes the kind under which the text states that label (the HTML cross-reference "Theorem B.1" is the
    text's Lemma B.1); numbered statements are ``X.Y`` labels, so the unnumbered "Theorem." of circumplex and the
    "Theorem 2"-style shorthands that concepts uses for its Theorems D.1-D.7 are not items.
    """
    text = unescape(raw_text(paper))
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
            if name not in _papers.paper(paper).text_other_works:
                items.add(name)
    for label, kind in defined.items():
        if "." in label and kind in ("Theorem", "Lemma", "Corollary", "Proposition"):
            items.add(f"{kind} {label}")
    for c in captions(paper):
        items.add(f"{c.kind} {c.number}")
    return frozenset(items)


def normalise_coverage_item(item: str) -> str:
    """``Fig. 7`` -> ``Figure 7``, ``Thm 3.7`` -> ``Theorem 3.7``, ``Cor. 3.9`` -> ``Corollary 3.9``; other labels
    (``Eq. 6``, ``P1``, a headline claim) unchanged apart from surrounding spaces."""
    item = item.strip()
    for kind, pat in ITEM_PATTERNS:
        if kind not in ("Table", "Figure", *STATEMENT_KINDS):
            continue
        m = pat.fullmatch(item)
        if m:
            label = str(int(m.group(1))) if kind in ("Table", "Figure") else m.group(1)
            return f"{kind} {label}"
    return item


# ----------------------------------------------------------------------------------------------------------------
# The map and the status of each row
# ----------------------------------------------------------------------------------------------------------------


def read_coverage(paper: str, root: str | Path | None = None):
    """``data/<paper>/coverage.csv`` as a DataFrame (comment lines skipped, empty cells as ``""``)."""
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
    path = _results.ledger_path(notebook, root / "results")
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


_VERDICT_ORDER = ("reproduced", "partly", "not reproduced", "inconclusive", "not testable", "passed", "failed",
                  "confirmed", "minor", "not confirmed")


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
