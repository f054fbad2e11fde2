"""SimACE's claims against the paper's numbers (notebooks ``simace/01``–``03``): the paper's gaps (Table 2), values
from its figure captions, and the fields of a seed-paired gap claim.

The statistics are :mod:`companion.stats`' (paired differences, the standard error of a gap, the verdict rules);
this module only reads the paper's tables and captions and assembles the arguments of
:meth:`companion.results.Ledger.claim`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from companion import stats

#: seeds behind each mean of the paper's Table 2 (mean ± sd over 5 seeds, §4.1)
TABLE2_SEEDS = 5


def seed_paired(frame, a: str, b: str, col: Any = None) -> stats.Comparison:
    """Per-seed difference ``a − b`` (:func:`companion.stats.paired`, labelled ``(a, b)``) of two columns of a
    seed-indexed table; with ``col``, of ``frame[col][a]`` and ``frame[col][b]`` (a table with (quantity, model)
    columns, e.g. a pivot of several quantities)."""
    data = frame if col is None else frame[col]
    missing = [m for m in (a, b) if m not in data]
    if missing:
        raise KeyError(f"seed_paired(): no column {missing} (have {list(data.columns)})")
    return stats.paired(data[a], data[b], labels=(a, b))


def paper_gap(table2, a: str, b: str, plm: str = "BERT-base") -> tuple[float, str, float]:
    """The paper's Table 2 gap ``a − b`` on ``plm`` (rounded to 2 decimals), its source string and the standard error
    of that gap between two 5-seed means (:func:`companion.stats.difference_se` of Table 2's sds): pass it as
    ``paper_se`` to :func:`companion.stats.direction`, whose tolerance policy turns it into 1.96 x SE. ``table2`` is
    indexed by PLM with columns ``<method>`` and ``<method>_std``."""
    r = table2.loc[plm]
    se = stats.difference_se(float(r[f"{a}_std"]), float(r[f"{b}_std"]), TABLE2_SEEDS)
    return round(float(r[a]) - float(r[b]), 2), f"Table 2: {float(r[a]):.2f} - {float(r[b]):.2f}", se


def caption(captions, figure: str, model: str, quantity: str, setting: str | None = None) -> float:
    """The value a figure caption states for ``model`` and ``quantity`` (and ``setting``, where the caption
    compares settings), from the transcription ``captions`` (columns ``figure, model, quantity, setting, value``);
    exactly one row must match."""
    rows = captions[(captions.figure == figure) & (captions.model == model) & (captions.quantity == quantity)]
    if setting is not None:
        rows = rows[rows.setting == setting]
    if len(rows) != 1:
        raise ValueError(f"{len(rows)} caption rows for {figure}, {model}, {quantity!r}, setting {setting!r}; "
                         "expected exactly one")
    return float(rows.value.iloc[0])


def caption_gap(captions, figure: str, quantity: str, a: tuple, b: tuple) -> tuple[float, str]:
    """The caption's ``a − b`` (each a ``(model,)`` or ``(model, setting)`` tuple) rounded to 2 decimals, with a
    source naming both inputs (``"<figure> caption: va - vb"``)."""
    va, vb = caption(captions, figure, *a[:1], quantity, *a[1:]), caption(captions, figure, *b[:1], quantity, *b[1:])
    return round(va - vb, 2), f"{figure} caption: {va:.2f} - {vb:.2f}"


def gap_fields(data, col: str, a: str, b: str, effect: float | int, *, paper_se: float | None = None,
               paper_text: str | None = None) -> dict:
    """``paper_value``, ``ours`` and ``criterion`` of a paper claim on the seed-paired difference ``a − b`` of column
    ``col`` of ``data`` (columns ``(col, model)``). ``effect`` is the paper's gap (a float: judged by
    :func:`companion.stats.direction`, whose tolerance is 1.96 x ``paper_se`` where the paper prints a seed spread,
    else half the gap) or only its sign (+1 / −1, an int, with ``paper_text`` saying what the paper states)."""
    cmp = seed_paired(data, a, b, col)
    if isinstance(effect, float):
        return {"paper_value": effect, "ours": cmp,
                "criterion": stats.direction(paper_effect=effect, paper_se=paper_se)}
    if paper_se is not None:
        raise ValueError("gap_fields(): paper_se needs a paper gap (a float effect)")
    if effect not in (1, -1) or isinstance(effect, bool):
        raise ValueError(f"gap_fields(): effect must be a float gap or a sign +1/-1, got {effect!r}")
    return {"paper_value": paper_text, "ours": cmp, "criterion": stats.direction(sign=effect)}


def caption_beside(captions, finals, rows, quantities: dict[str, str]):
    """The figure captions' numbers beside ours: one row per ``(figure, model, setting, run)`` of ``rows`` and,
    for each caption quantity of ``quantities`` (caption quantity -> our column of ``finals``), the caption's value
    (NaN where the caption states none) and our mean over seeds of that run's rows of ``finals``."""
    ours = finals.groupby("model")[list(quantities.values())].mean()
    out = []
    for figure, model, setting, run in rows:
        row = {"figure": figure, "run": run}
        for quantity, col in quantities.items():
            try:
                row[f"{quantity}: paper"] = caption(captions, figure, model, quantity, setting)
            except ValueError:
                row[f"{quantity}: paper"] = float("nan")
            row[f"{quantity}: ours"] = float(ours.loc[run, col])
        out.append(row)
    return pd.DataFrame(out)


def spread_gap(frame, a: str, b: str) -> stats.Comparison:
    """Which of two runs varies less across seeds, as a paired comparison (a Levene-type test on the same seeds):
    per seed, ``k · (|a_s − mean(a)| − |b_s − mean(b)|)`` with ``k = sqrt(π/2) · sqrt(n/(n−1))``, so that under
    normal seed noise its mean estimates ``sd(a) − sd(b)`` (the unit of the sds a paper prints). One seed: the
    single difference 0 (no interval; the rule says so)."""
    missing = [m for m in (a, b) if m not in frame]
    if missing:
        raise KeyError(f"spread_gap(): no column {missing} (have {list(frame.columns)})")
    x, y = np.asarray(frame[a], dtype=float), np.asarray(frame[b], dtype=float)
    n = x.size
    k = math.sqrt(math.pi / 2) * math.sqrt(n / (n - 1)) if n > 1 else 1.0
    return stats.paired(k * np.abs(x - x.mean()), k * np.abs(y - y.mean()), labels=(a, b))
