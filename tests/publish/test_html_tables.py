"""DataFrame HTML tables that fit the site's text column (:mod:`companion.publish.html_tables`).

* the least-width estimate reports a table of many numeric columns as wider than the column, and a narrow one not;
* :func:`fit` cuts the wide one into even column groups that each fit, repeats the index, loses no value, merges a
  MultiIndex header again within each group, and is idempotent;
* long identifiers get break opportunities, numbers none;
* ``notebooks clean --check`` and ``site --check`` report a wide stored table until ``notebooks clean`` fits it.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pandas as pd
import pytest

from companion.publish import html_tables as T
from companion.publish import notebook_outputs as N
from companion.publish.site import checks

CELL = re.compile(r"<t([dh])\b[^>]*>(.*?)</t\1>", re.S)


def _wide_frame(columns: int = 24) -> pd.DataFrame:
    return pd.DataFrame({f"V @ {23 * j}": [0.129 + j / 1000, 0.5412, 0.0603] for j in range(columns)},
                        index=pd.Index(["Emolit", "GoEmotions", "SuperEmotion"], name="dataset"))


def _cells(html: str) -> Counter:
    return Counter(re.sub(r"<wbr>", "", text) for _, text in CELL.findall(html))


def test_a_table_of_many_numeric_columns_is_reported_wide_and_a_narrow_one_is_not():
    wide = _wide_frame().to_html()
    ((px, heads),) = T.wide_tables(wide)
    assert px > T.TEXT_COLUMN_PX and heads.startswith("V @ 0, V @ 23")
    assert T.wide_tables(_wide_frame(4).to_html()) == []


def test_fit_cuts_a_wide_table_into_even_groups_that_fit_and_keeps_every_value():
    wide = _wide_frame().to_html()
    fitted = T.fit(wide)
    widths = [px for px, _ in T.table_widths(fitted)]
    assert len(widths) >= 2 and max(widths) <= T.FIT_PX and T.wide_tables(fitted) == []
    assert max(widths) - min(widths) < 0.25 * max(widths)  # even groups, not a full one and a remnant
    before, after = _cells(wide), _cells(fitted)
    assert not before - after  # every header and value is still there
    assert set(after - before) == {"dataset", "Emolit", "GoEmotions", "SuperEmotion", ""}  # the index, repeated
    assert T.fit(fitted) == fitted


def test_a_table_keyed_by_its_first_column_repeats_that_column_when_its_index_is_row_numbers():
    frame = pd.concat([pd.DataFrame({"id": ["Emolit:circular-lowest-V:GPT", "GoEmotions:sincere-orthogonal:nGPT",
                                            "Emolit:trained-beat-pretrained-V"]}),
                       _wide_frame().reset_index(drop=True)], axis=1)
    tables = T.fit(frame.to_html()).split("</table>")[:-1]
    assert len(tables) >= 2 and T.wide_tables("".join(tables)) == []
    assert all(">id<" in t and "GoEmotions:sincere-orthogonal:nGPT" in t.replace("<wbr>", "")
               for t in tables)  # every group names its rows
    keyed = frame.set_index("id")  # a meaningful index is repeated instead; no data column is
    groups = T.fit(keyed.to_html()).split("</table>")[:-1]
    assert len(groups) >= 2 and sum(">V @ 0<" in t for t in groups) == 1
    assert all("GoEmotions:sincere-orthogonal:nGPT" in t.replace("<wbr>", "") for t in groups)


def test_a_multiindex_header_is_merged_again_within_each_group():
    frame = pd.concat({"R1": _wide_frame(10), "R10": _wide_frame(10)}, axis=1)
    fitted = T.fit(frame.to_html())
    tables = fitted.split("</table>")[:-1]
    assert len(tables) == 2
    assert ['colspan="10"' in t and ">R1<" in t for t in tables] == [True, False]
    assert ['colspan="10"' in t and ">R10<" in t for t in tables] == [False, True]


def test_identifiers_get_break_opportunities_and_numbers_none():
    frame = pd.DataFrame({"paper_value": [0.123], "id": ["np_b0_wm_below_b0"], "lr": ["lr=1.5e-4"]})
    fitted = T.fit(frame.to_html())
    assert "paper_<wbr>value" in fitted and "np_<wbr>b0_<wbr>wm_<wbr>below_<wbr>b0" in fitted
    assert ">0.123<" in fitted and "1.5e-4" in fitted
    assert T.cell_px("td", "np_<wbr>b0_<wbr>wm_<wbr>below_<wbr>b0") < T.cell_px("td", "np_b0_wm_below_b0")


def _notebook(html: str) -> dict:
    out = {"output_type": "display_data", "metadata": {}, "data": {"text/html": html, "text/plain": "table"}}
    cell = {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {}, "source": "t", "outputs": [out]}
    return {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_a_wide_stored_table_is_reported_until_cleaned():
    nb = _notebook(_wide_frame().to_html())
    assert "cell 0: a table wider than the site's text column (" in "\n".join(N.problems(nb))
    cleaned = N.clean(nb)
    assert N.problems(cleaned) == []
    assert cleaned["cells"][0]["outputs"][0]["data"]["text/plain"] == "table"  # the plain form is left alone


def test_site_check_reports_a_wide_table_until_cleaned(tmp_path):
    folder = tmp_path / "notebooks" / "angle"
    folder.mkdir(parents=True)
    path = folder / "01-a.ipynb"
    path.write_text(json.dumps(_notebook(_wide_frame().to_html())))
    (tmp_path / "_quarto.yml").write_text("website:\n  sidebar:\n  - contents: [notebooks/angle/01-a.ipynb]\n")
    assert any("01-a.ipynb: cell 0: a table wider than the site's text column" in p for p in checks.check(tmp_path))
    N.clean(path)
    assert not [p for p in checks.check(tmp_path) if "01-a.ipynb: cell" in p]


def _grid_table(columns: int) -> str:
    """A bare HTML table: an empty corner, header cells c0, c1, ..., one body row with index r and cells "ab"."""
    head = "<th></th>" + "".join(f"<th>c{j}</th>" for j in range(columns))
    body = "<th>r</th>" + "<td>ab</td>" * columns
    return f"<table><thead><tr>{head}</tr></thead><tbody><tr>{body}</tr></tbody></table>"


def test_a_cell_s_least_width_is_its_text_plus_the_padding():
    # by hand, from the calibration in the module's comment: letters and digits 8.3 px, a capital 10.2 px, a narrow
    # letter (r) 4.4 px, a header cell 1.06 times as wide, and 8.5 px of padding in every cell (not scaled by bold)
    assert T.cell_px("td", "ab") == pytest.approx(2 * 8.3 + 8.5)
    assert T.cell_px("th", "Ab") == pytest.approx((10.2 + 8.3) * 1.06 + 8.5)
    assert T.cell_px("td", "") == pytest.approx(8.5)
    ((px, _),) = T.table_widths("<table><tr>" + "<td>ab</td>" * 10 + "</tr></table>")
    assert px == pytest.approx(10 * (16.6 + 8.5))              # 251 px: the text alone would be 166
    assert T.wide_tables("<table><tr>" + "<td>ab</td>" * 10 + "</tr></table>", width=200) != []


def test_the_fit_decision_counts_the_padding():
    # index column: the corner (0 + 8.5) and "r" (4.4 x 1.06 + 8.5 = 13.164); each data column: its header "cj"
    # (16.6 x 1.06 + 8.5 = 26.096) is wider than "ab" (16.6 + 8.5 = 25.1). Ten columns: 13.164 + 10 x 26.096 =
    # 274.124 px; without the padding 4.664 + 10 x 17.596 = 180.624 px, which a 250-px target would hold
    table = _grid_table(10)
    ((px, _),) = T.table_widths(table)
    assert px == pytest.approx(4.4 * 1.06 + 8.5 + 10 * (16.6 * 1.06 + 8.5))
    fitted = T.fit(table, target=250)
    groups = T.table_widths(fitted)
    assert len(groups) == 2 and all(width <= 250 for width, _ in groups)
    assert T.fit(table, target=280).count("<table") == 1     # 274.1 px fits in 280
