"""Reading the ledgers: schema 2 (the kinds of claim and the verdicts each can take), the check of a stored claim,
where the ledgers are, and all claims as one DataFrame.

The ledger files are ``results/<paper>/<notebook>.json`` (written by :meth:`companion.results.Ledger.save`; their
schema: ``docs/reference.md``, "Results ledger"), each beside its ``<notebook>.provenance.json``
(:mod:`companion.results.records`), which the readers here leave out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from companion import paper_registry as _papers
from companion import settings as _settings
from companion.stats import CHECK_VERDICTS, ERRATUM_VERDICTS, VERDICTS

KINDS = ("paper", "check", "beyond", "erratum")
#: the verdicts each kind of claim can take
KIND_VERDICTS = {"paper": VERDICTS, "beyond": VERDICTS, "check": CHECK_VERDICTS, "erratum": ERRATUM_VERDICTS}
SCHEMA = 2
PAPERS = _papers.IDS


def validate_claim(claim: dict[str, Any], where: str = "ledger") -> None:
    """Raise ValueError naming the problem if a stored claim does not follow ledger schema 2."""
    cid = claim.get("id")
    kind = claim.get("kind")
    if kind not in KINDS:
        raise ValueError(f"{where}: claim {cid!r} has kind {kind!r} (one of {', '.join(KINDS)})")
    allowed = KIND_VERDICTS[kind]
    if claim.get("verdict") not in allowed:
        raise ValueError(f"{where}: {kind} claim {cid!r} has verdict {claim.get('verdict')!r}")
    if kind in ("paper", "erratum") and not claim.get("source"):
        raise ValueError(f"{where}: {kind} claim {cid!r} has no source")
    if kind in ("paper", "beyond") and not claim.get("regime"):
        raise ValueError(f"{where}: {kind} claim {cid!r} has no regime ('paper setting' or 'scaled: …')")
    if claim["verdict"] in ("inconclusive", "not testable") and not claim.get("reason"):
        raise ValueError(f"{where}: claim {cid!r} is {claim['verdict']!r} without a reason")


def ledger_path(notebook: str, root: str | Path | None = None) -> Path:
    """Where the ledger of ``notebook`` = ``"<paper>/<name>"`` is: ``<root>/<paper>/<name>.json`` (``root``
    default: the results folder)."""
    root = Path(root) if root is not None else _settings.results_dir()
    return root / f"{notebook.strip().removesuffix('.json')}.json"


def ledger_paths(root: str | Path | None = None) -> list[Path]:
    """Every ledger ``<paper>/<notebook>.json`` under ``root`` (default: the results folder), sorted, without the
    ``.provenance.json`` siblings."""
    root = Path(root) if root is not None else _settings.results_dir()
    return sorted(p for p in root.glob("*/*.json") if not p.name.endswith(".provenance.json"))


def load_ledgers(root: Path | None = None) -> list[dict[str, Any]]:
    """Every ledger under ``root`` (default: the results folder), validated against schema 2."""
    out = []
    for path in ledger_paths(root):
        data = json.loads(path.read_text(encoding="utf-8"))
        missing = {"schema", "paper", "notebook", "profile", "seeds", "claims"} - set(data)
        if missing:
            raise ValueError(f"{path}: ledger lacks {sorted(missing)} (schema {SCHEMA} expected)")
        if data["schema"] != SCHEMA:
            raise ValueError(f"{path}: ledger schema {data['schema']!r}, expected {SCHEMA}")
        for claim in data["claims"]:
            validate_claim(claim, str(path))
        data["_path"] = str(path)
        out.append(data)
    return out


CLAIM_COLUMNS = ["paper", "notebook", "profile", "id", "kind", "claim", "source", "paper_value", "ours",
                 "ci_low", "ci_high", "n_seeds", "mde", "criterion", "verdict", "reason", "regime"]


def claims_frame(root: Path | None = None):
    """All claims as one DataFrame with paper and notebook columns (CI bounds where the claim has seed stats)."""
    rows = []
    for ledger in load_ledgers(root):
        for claim in ledger["claims"]:
            st = claim.get("stats") or {}
            ci = st.get("ci") or [None, None]
            rows.append({"paper": ledger["paper"], "notebook": ledger["notebook"], "profile": ledger["profile"],
                         **{k: claim.get(k) for k in ("id", "kind", "claim", "source", "paper_value", "ours",
                                                      "criterion", "verdict", "reason", "regime")},
                         "ci_low": ci[0], "ci_high": ci[1], "n_seeds": st.get("n"), "mde": st.get("mde")})
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)
