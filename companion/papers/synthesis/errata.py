"""Small helpers of the errata notebook (``notebooks/synthesis/00-errata``): printed averages against the mean of
their printed cells, numbers as printed, and SimACE's loss at its best configuration.

A table's average printed with two decimals, of cells printed with two decimals, can differ from the mean of the
printed cells by up to 0.005 (each cell rounded) + 0.005 (the average rounded) = :data:`ROW_MEAN_TOL`; only a larger
difference shows that the printed average is not the average of that row.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import torch

#: the largest |printed average - mean of the printed cells| that rounding explains (two-decimal cells and average)
ROW_MEAN_TOL = 0.01


def as_number(cell) -> float:
    """A cell as printed -> float: ``"30°"`` -> 30, ``"3,063"`` -> 3063, ``"3k"`` -> 3000, ``"−0.111"`` -> -0.111."""
    if isinstance(cell, (int, float)) and not isinstance(cell, bool):
        return float(cell)
    text = str(cell).strip().replace("−", "-").replace(",", "")
    m = re.fullmatch(r"([+-]?\d+(?:\.\d+)?)\s*(°|%|[kK])?", text)
    if not m:
        raise ValueError(f"not a printed number: {cell!r}")
    value = float(m.group(1))
    return value * 1000 if m.group(2) in ("k", "K") else value


def average_mismatches(table, cells: Sequence[str], avg: str, keys: Sequence[str], tol: float = ROW_MEAN_TOL):
    """One row per table row with a printed average: the printed average, the mean of its printed ``cells``, the
    absolute difference and ``off`` (= difference > ``tol``). Rows whose average cell is empty are skipped."""
    import pandas as pd

    rows = []
    for _, r in table.iterrows():
        printed = r[avg]
        if printed is None or (isinstance(printed, float) and math.isnan(printed)) or str(printed).strip() == "":
            continue
        values = [as_number(r[c]) for c in cells]
        mean = sum(values) / len(values)
        printed = as_number(printed)
        rows.append({**{k: r[k] for k in keys}, "printed avg": printed, "row mean": round(mean, 4),
                     "|printed - mean|": round(abs(printed - mean), 4), "off": abs(printed - mean) > tol})
    return pd.DataFrame(rows)


def simace_best_case_loss(margin_rad: float, n: int, tau: float) -> float:
    """SimACE's Eq. 9 at its best configuration: every positive at angle-similarity pi/2, every negative at -pi/2
    (logits (theta - m)/tau on the diagonal, theta/tau elsewhere), through the shared contrastive core."""
    from companion.losses.core import contrastive_nll

    logits = torch.full((n, n), -math.pi / 2 / tau, dtype=torch.float64)
    logits.fill_diagonal_(((math.pi / 2) - margin_rad) / tau)
    return float(contrastive_nll(logits, torch.eye(n, dtype=torch.bool)))
