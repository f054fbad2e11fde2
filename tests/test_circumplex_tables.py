"""Integrity of the circumplex paper's tables in data/circumplex/ (only the values quoted in issue 3)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "circumplex"
COLUMNS = ["table", "backbone", "loss", "head", "dataset", "metric", "value", "source", "note"]
TABLE4_DATASETS = ("Emolit", "Empathetic Dialogue", "SuperEmotion", "PersonaGen")


@pytest.mark.parametrize("n", [1, 4, 5, 6])
def test_tables_have_schema_and_sources(n):
    df = pd.read_csv(DATA / f"table{n}.csv")
    assert list(df.columns) == COLUMNS
    assert (df["table"] == n).all()
    assert df["source"].str.contains(f"Table {n}").all()
    assert df["value"].between(-1, 1).all()
    assert not df.duplicated(["backbone", "loss", "head", "dataset", "metric"]).any()


def test_table4_average_is_mean_of_its_four_datasets():
    df = pd.read_csv(DATA / "table4.csv")
    keys = ["backbone", "loss", "head", "metric"]
    checked = 0
    for key, group in df.groupby(keys):
        values = group.set_index("dataset")["value"]
        if "Average" in values and all(d in values for d in TABLE4_DATASETS):
            assert values["Average"] == pytest.approx(values[list(TABLE4_DATASETS)].mean(), abs=0.001), key
            checked += 1
    if not checked:
        pytest.skip("issue 3 quotes no complete Table 4 row (four data sets + Average); nothing to check yet")


def test_table1_vs_table4_discrepancy_is_flagged():
    t1 = pd.read_csv(DATA / "table1.csv")
    t4 = pd.read_csv(DATA / "table4.csv")
    sel = dict(backbone="Qwen3-Embedding-4B", loss="SINCERE", head="nGPT", metric="V-Measure")
    r1 = t1[(t1[list(sel)] == pd.Series(sel)).all(axis=1)]
    r4 = t4[(t4[list(sel)] == pd.Series(sel)).all(axis=1)]
    assert r1["value"].tolist() == [0.739] and r4["value"].tolist() == [0.741]
    assert "0.741" in r1["note"].iloc[0] and "0.739" in r4["note"].iloc[0]
    assert "discrepancy" in r1["note"].iloc[0]
