"""Integrity of the AnglE paper tables transcribed in data/angle/ (arXiv 2309.12871, Tables 2-4)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "angle"


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(DATA / name, comment="#")


@pytest.mark.parametrize("name", ["table2_transfer_sts.csv", "table3_non_transfer.csv"])
def test_avg_equals_row_mean_except_sbert_table2(name):
    table = _read(name)
    cols = [c for c in table.columns if c not in ("model", "avg", "source")]
    gaps = (table[cols].mean(axis=1) - table["avg"]).abs()
    flagged = table.loc[gaps > 0.01, "model"].tolist()
    if name.startswith("table2"):
        # SBERT's 74.89 is inherited from the SBERT/SimCSE papers; its row mean is 74.86 (flagged, not fixed).
        assert flagged == ["SBERT-NLI-BERT-base"]
        sbert = table.set_index("model").loc["SBERT-NLI-BERT-base"]
        assert sbert["avg"] == 74.89 and round(sbert[cols].astype(float).mean(), 2) == 74.86
    else:
        assert flagged == []


def test_table2_and_table3_gaps():
    t2 = _read("table2_transfer_sts.csv").set_index("model")["avg"]
    assert t2["AnglE-BERT-base"] - t2["SimCSE-BERT-base (supervised)"] == pytest.approx(0.80, abs=1e-9)
    t3 = _read("table3_non_transfer.csv").set_index("model")["avg"]
    assert t3["AnglE-BERT"] - t3["SBERT"] == pytest.approx(5.52, abs=1e-9)


def test_table4_all_equals_table3_stsb_and_cls_row():
    t4 = _read("table4_ablation.csv").set_index(["group", "variant"])["stsb_test"]
    t3 = _read("table3_non_transfer.csv").set_index("model")
    assert t4[("objective", "all")] == t3.loc["AnglE-BERT", "STS-B"] == 86.26
    assert t4[("pooling", "cls")] == t4[("objective", "all")]
    assert len(t4) == 11 and t4.between(0, 100).all()
