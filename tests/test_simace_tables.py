"""Integrity of the SimACE paper numbers in data/simace (only numbers quoted in issue 4; see the CSV sources)."""

from pathlib import Path

import pandas as pd
import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "simace"


@pytest.fixture(scope="module")
def numbers():
    return pd.read_csv(DATA / "paper_numbers.csv")


def value(df, table, quantity, model=None):
    rows = df[(df.table == table) & (df.quantity == quantity)]
    if model is not None:
        rows = rows[rows.model == model]
    assert len(rows) == 1, (table, quantity, model)
    return float(rows.value.iloc[0])


def test_schema_and_sources(numbers):
    assert list(numbers.columns) == ["table", "model", "backbone", "quantity", "value", "source", "note"]
    assert numbers.source.str.len().gt(0).all() and numbers.value.notna().all()
    settings = pd.read_csv(DATA / "table7_settings.csv")
    assert list(settings.columns) == ["backbone", "setting", "value", "source"]
    assert settings.source.str.contains("Table 7").all()


def test_rankcse_listmle_avg_is_flagged(numbers):
    printed = value(numbers, "Table 1", "avg (as printed)", "RankCSE-listMLE")
    mean7 = value(numbers, "Table 1", "mean of the 7 printed scores", "RankCSE-listMLE")
    assert abs(printed - mean7) > 0.01  # the known inconsistency (80.06 vs 80.10) is real, not rounding
    assert "inconsisten" in " ".join(numbers[numbers.model == "RankCSE-listMLE"].note).lower()


def test_table14_vs_fig9_is_flagged(numbers):
    t14 = value(numbers, "Table 14", "avg")
    fig9 = value(numbers, "Fig 9", "avg")
    assert abs(t14 - fig9) > 0.01
    assert "Fig. 9" in numbers[numbers.table == "Table 14"].note.iloc[0]


def test_text_simcse_averages(numbers):
    text = numbers[(numbers.table == "text §4") & (numbers.model == "SimCSE")]
    assert text.value.tolist() == [76.95, 78.46, 76.64, 78.53]
    assert text.note.str.contains("differ from Table 1").all()
