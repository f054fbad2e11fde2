"""The one reader of the transcribed tables (companion.papers.tables): cells as printed or parsed, a name with or
without ``.csv``, one clear error for an unknown paper or table, and the prose numbers with their source."""

from __future__ import annotations

import pandas as pd
import pytest

from companion.papers.tables import paper_table, prose_number, table_names


def _checkout(tmp_path):
    folder = tmp_path / "data" / "angle"
    folder.mkdir(parents=True)
    (folder / "t.csv").write_text("# a comment line\nmodel,Avg.,x\nA,01.50,\nB,NA,2\n", encoding="utf-8")
    (tmp_path / "data" / "baselines" / "criteria").mkdir(parents=True)  # a folder without tables
    return tmp_path


def test_cells_are_kept_as_printed(tmp_path):
    table = paper_table("angle", "t.csv", root=_checkout(tmp_path))
    assert table["Avg."].tolist() == ["01.50", "NA"]  # strings, not parsed; "NA" is not a missing value
    assert table["x"].tolist() == ["", "2"]  # an empty cell stays empty


def test_parse_reads_numbers_as_pandas_does(tmp_path):
    root = _checkout(tmp_path)
    table = paper_table("angle", "t", parse=True, root=root)
    pd.testing.assert_frame_equal(table, pd.read_csv(root / "data" / "angle" / "t.csv", comment="#"))
    assert table["x"].isna().tolist() == [True, False]


def test_unknown_paper_or_table_is_one_clear_error(tmp_path):
    root = _checkout(tmp_path)
    with pytest.raises(ValueError, match=r"paper 'nope' .*papers with tables: angle\.$") as info:
        paper_table("nope", "t", root=root)
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match=r"paper 'baselines'"):
        paper_table("baselines", "t", root=root)
    with pytest.raises(ValueError, match=r"No table 'table9' in data/angle/; its tables: t\.$"):
        paper_table("angle", "table9.csv", root=root)
    assert table_names("angle", root) == ["t"] and table_names("nope", root) == []


def test_the_checkout_s_tables_are_read():
    table = paper_table("angle", "table4")
    assert "source" in table.columns and len(table) > 0
    assert "table4" in table_names("angle") and "errata_statements" in table_names("synthesis")


def test_prose_number_reads_one_row_with_its_source():
    assert prose_number("angle", "ibn without ISP detection") == (0.18, "§4.4")
    with pytest.raises(KeyError, match="need one"):
        prose_number("angle", "flickr30k retrieval strict accuracy")  # three rows start so
