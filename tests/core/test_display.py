"""The notebooks' display settings: whole tables, numbers to their meaning, figures that fit the page."""

import numpy as np
import pandas as pd
import pytest

from companion.display import FIGURE_WIDTH_IN, panel_grid, reader_display, significant
from companion.profiles import Settings
from companion.publish.site import figures as site_figures
from companion.publish.site.render import notebook_text_problems
from companion.results import Verdict


@pytest.mark.parametrize("value, shown", [(0.123456789, "0.123"), (81.6123, "81.6"), (80697.5, "80698"),
                                          (1.192093e-07, "1.19e-07"), (241234.0, "2.41e+05"), (3.0, "3"),
                                          (-0.04449, "-0.0445"), (0.0, "0"), ("text", "text")])
def test_significant(value, shown):
    assert significant(value) == shown


def _executed(df: pd.DataFrame) -> dict:
    data = {"text/html": df._repr_html_(), "text/plain": repr(df)}
    return {"cells": [{"cell_type": "code", "source": "df", "outputs": [
        {"output_type": "execute_result", "data": data, "metadata": {}, "execution_count": 1}]}]}


def test_reader_display_shows_tables_whole_and_short():
    """A long table with long text and machine floats: the reader check finds it cut short and machine-length under
    pandas' defaults, and nothing once :func:`reader_display` is set."""
    df = pd.DataFrame({"reason": ["did not train: the loss fell by a tiny amount " * 3] * 80,
                       "value": np.linspace(0.0, 80697.5, 80) + 1.23456789e-3})
    with pd.option_context("display.max_colwidth", 50, "display.max_rows", 60):
        assert notebook_text_problems(_executed(df), "nb")
    saved = [(k, pd.get_option(k)) for k in ("display.max_colwidth", "display.max_rows", "display.max_columns",
                                               "display.width", "display.float_format")]
    with pd.option_context(*[x for pair in saved for x in pair]):  # restores pandas' options afterwards
        reader_display()
        try:
            assert notebook_text_problems(_executed(df), "nb") == []
            assert "80698" in repr(df)
        finally:
            np.set_printoptions(formatter=None)


@pytest.mark.parametrize("n, rows", [(1, 1), (3, 1), (4, 2), (7, 3)])
def test_panel_grid_fits_the_page(n, rows):
    import matplotlib

    matplotlib.use("Agg")
    fig, axes = panel_grid(n)
    assert len(axes) == n and len({ax.get_subplotspec().rowspan.start for ax in axes}) == rows
    width = fig.get_size_inches()[0]
    assert width <= FIGURE_WIDTH_IN
    column = site_figures.COLUMN_PX["article"]
    assert site_figures.displayed_font_px(site_figures.TICK_FONT_PT, width, 130, column) >= site_figures.MIN_FONT_PX
    with pytest.raises(ValueError):
        panel_grid(0)


def test_a_verdict_shows_as_a_sentence():
    """A cell ending in ``ledger.claim(...)`` shows a sentence, not a quoted string; the verdict is still a str."""
    verdict = Verdict("reproduced", "t4-all")
    assert verdict == "reproduced" and isinstance(verdict, str)
    assert verdict._repr_markdown_() == "Verdict of `t4-all`: **reproduced**"
    executed = {"cells": [{"cell_type": "code", "source": "v", "outputs": [
        {"output_type": "execute_result", "execution_count": 1, "metadata": {},
         "data": {"text/plain": repr(verdict), "text/markdown": verdict._repr_markdown_()}}]}]}
    assert notebook_text_problems(executed, "nb") == []
    bare = {"cells": [{"cell_type": "code", "source": "v", "outputs": [
        {"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": {"text/plain": repr("x")}}]}]}
    assert notebook_text_problems(bare, "nb")


def test_settings_show_floats_to_six_digits():
    shown = repr(Settings("smoke", {"taus": [0.9, 10 / 9], "eps": 0.36787944117144233, "seeds": [0]}))
    assert "1.11111" in shown and "0.367879" in shown and "[0]" in shown
    assert notebook_text_problems({"cells": [{"cell_type": "code", "source": "cfg", "outputs": [
        {"output_type": "stream", "name": "stdout", "text": shown}]}]}, "nb") == []
