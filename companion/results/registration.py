"""The registered criteria: ``data/<paper>/criteria/<notebook>.json``, what each claim's criterion is, committed
before the run that grades it (``python -m companion criteria register / check``).

A ledger records the sha256 of the criteria file it was graded with (:meth:`companion.results.Ledger.save`);
:func:`criteria_problems` says where a stored ledger departs from its committed criteria. The history of every
registration, read from the commits, is :mod:`companion.criteria_history`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion import settings as _settings
from companion.results.reading import load_ledgers
from companion.results.records import sha256_file
from companion.stats import validity as _validity

#: what a registered criterion fixes before a run: the claim, where the paper makes it, its value and the rule
CRITERIA_FIELDS = ("id", "kind", "claim", "source", "paper_value", "criterion")


def criteria_path(paper: str, notebook: str, root: Path | None = None) -> Path:
    """``data/<paper>/criteria/<notebook>.json``: the criteria a notebook's claims are graded with, committed
    before the run that grades them."""
    root = Path(root) if root is not None else _settings.repo_root()
    return root / "data" / paper / "criteria" / f"{Path(notebook).stem}.json"


def criteria_entries(claims: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The registered part of each claim (:data:`CRITERIA_FIELDS`), in ledger order."""
    return [{k: c.get(k) for k in CRITERIA_FIELDS} for c in claims]


def criteria_text(paper: str, notebook: str, claims: Sequence[dict[str, Any]]) -> str:
    payload = {"paper": paper, "notebook": Path(notebook).stem, "gates": _validity.GATE_POLICY,
               "criteria": criteria_entries(claims)}
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"



def register_criteria(source: Path, root: Path | None = None, only: Sequence[str] = ()) -> list[Path]:
    """Write ``data/<paper>/criteria/<notebook>.json`` from the ledgers under ``source`` (a smoke run's results:
    the criteria depend on the paper and the rule, not on our numbers); ``only``: substrings of
    ``<paper>/<notebook>`` to register (default: every ledger). Returns the files written or changed."""
    written = []
    for ledger in load_ledgers(source):
        key = f"{ledger['paper']}/{ledger['notebook']}"
        if only and not any(part in key for part in only):
            continue
        path = criteria_path(ledger["paper"], ledger["notebook"], root)
        text = criteria_text(ledger["paper"], ledger["notebook"], ledger["claims"])
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def criteria_problems(ledger: dict[str, Any], root: Path | None = None) -> list[str]:
    """Why a stored ledger was not graded with its committed criteria (empty when it was): the file is missing,
    its hash differs from the one the ledger recorded, or a claim's registered fields differ."""
    name = f"{ledger['paper']}/{ledger['notebook']}"
    path = criteria_path(ledger["paper"], ledger["notebook"], root)
    if not path.exists():
        return [f"{name}: no registered criteria ({path.name} under data/{ledger['paper']}/criteria/)"]
    recorded = (ledger.get("criteria") or {}).get("sha256")
    problems = []
    if recorded != sha256_file(path):
        problems.append(f"{name}: graded with criteria {str(recorded)[:12]}, committed {sha256_file(path)[:12]}")
    registered = {e["id"]: e for e in json.loads(path.read_text(encoding="utf-8"))["criteria"]}
    for entry in criteria_entries(ledger["claims"]):
        if entry["id"] not in registered:
            problems.append(f"{name}: claim {entry['id']!r} is not registered")
        elif registered[entry["id"]] != entry:
            diff = [k for k in CRITERIA_FIELDS if registered[entry["id"]].get(k) != entry.get(k)]
            problems.append(f"{name}: claim {entry['id']!r} differs from its registered criterion in {diff}")
    return problems
