"""The scoreboard: counts of verdicts per paper, the site's landing-page table and ``python -m companion
scoreboard``.

The headline counts the statements of the papers (:mod:`companion.statements`), each once, not the ledger rows
that test them; errata, beyond-the-paper claims and our own checks are counted apart, by row.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from companion import paper_registry as _papers
from companion.results.reading import KIND_VERDICTS, KINDS, claims_frame
from companion.statements import board as _statement_board
from companion.statements import regime_kind


def erratum_paper(claim_id: str, owner: str) -> str:
    """The paper an erratum concerns: its id's prefix when that names a paper of the registry
    (``weighted-cl:soft-tau-star`` -> ``weighted-cl``), else the ledger's owner."""
    prefix = claim_id.split(":", 1)[0] if ":" in claim_id else ""
    return prefix if prefix in _papers.REPRODUCED else owner


def scoreboard(root: Path | None = None, kind: str = "paper", by_regime: bool = False, unit: str = "statement",
               checkout: Path | None = None):
    """Counts of verdicts per paper (rows) for claims of one ``kind`` — the site's landing-page table.

    The headline scoreboard counts the ``paper`` claims of the five papers only (an entry of the registry with a
    paper text) by ``unit``: ``statement`` counts each statement of a paper once, by its headline verdict, with
    ``evidence`` (its ledger rows) and ``split`` (statements whose rows disagree), erratum evidence left out
    (:func:`companion.statements.board`; ``checkout``: where ``data/<paper>/statements.csv`` is read); ``evidence``
    counts every ledger row. ``check``, ``beyond`` and ``erratum`` claims are counted apart, by row: errata under
    the paper they concern (:func:`erratum_paper`), the others under the ledger's owner. ``by_regime=True`` adds a
    ``regime`` column (``paper setting`` / ``scaled``: of the headline row for a statement) and one row per paper
    and regime.
    """
    if kind not in KINDS:
        raise ValueError(f"scoreboard(): kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if unit not in ("statement", "evidence"):
        raise ValueError(f"scoreboard(): unit must be 'statement' or 'evidence', got {unit!r}")
    verdicts = list(KIND_VERDICTS[kind])
    index = ["paper", "regime"] if by_regime else ["paper"]
    frame = claims_frame(root)
    frame = frame[frame["kind"] == kind]
    if kind == "paper":
        frame = frame[frame["paper"].isin(_papers.REPRODUCED)]
        if unit == "statement":
            return _statement_board(frame, by_regime=by_regime, root=checkout)
    if kind == "erratum":
        frame = frame.assign(paper=[erratum_paper(i, owner) for i, owner in zip(frame["id"], frame["paper"])])
    if frame.empty:
        return pd.DataFrame(columns=[*index, *verdicts, "total"])
    frame = frame.assign(regime=frame["regime"].map(regime_kind))
    counts = frame.pivot_table(index=index, columns="verdict", values="id", aggfunc="count", fill_value=0)
    counts = counts.reindex(columns=verdicts, fill_value=0)
    counts["total"] = counts.sum(axis=1)
    counts.columns.name = None
    return counts.reset_index()
