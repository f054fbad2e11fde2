"""Figure legibility at display width (companion.publish.site.figures): the formula, stored notebook PNGs and the
figures a page draws at render time, each check with a failing and a passing case."""

import base64
import io

import matplotlib
import nbformat
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from companion.publish.site import checks, pages, render  # noqa: E402
from companion.publish.site import figures as site_figures  # noqa: E402


def _png(width_in, height_in=3.0, dpi=130):
    fig, ax = plt.subplots(figsize=(width_in, height_in))
    ax.plot([0, 1], [0, 1])
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)  # no bbox_inches: the PNG is exactly width_in · dpi wide
    plt.close(fig)
    return buffer.getvalue()


def _notebook(path, pngs, metadata=None):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("ledger.savefig(fig, 'x')")
    cell.outputs = [nbformat.v4.new_output("display_data", {"image/png": base64.b64encode(p).decode("ascii")},
                                           metadata=metadata or {}) for p in pngs]
    nb.cells = [nbformat.v4.new_markdown_cell("# T"), cell]
    nbformat.write(nb, path)
    return path


def test_the_font_size_at_display_width():
    # the case: a five-panel strip 2475 px wide at 130 dpi, shown at 749 px: 10-pt labels about 5.5 px
    assert site_figures.displayed_font_px(10, 2475 / 130, 130, 749) == pytest.approx(5.46, abs=0.01)
    # narrower than the column: shown at its own size, 10 pt at 96 dpi is 13.3 px
    assert site_figures.displayed_font_px(10, 6, 96, 749) == pytest.approx(13.33, abs=0.01)
    # wider than the column, the dpi cancels
    assert site_figures.displayed_font_px(10, 12, 100, 749) == pytest.approx(site_figures.displayed_font_px(
        10, 12, 300, 749))
    assert site_figures.max_width_in(10, 749, 10) == pytest.approx(10.40, abs=0.01)
    with pytest.raises(ValueError):
        site_figures.displayed_font_px(10, 0, 130, 749)


def test_png_size_and_dpi():
    assert site_figures.png_size(_png(4, 2, dpi=130)) == (520, 260, pytest.approx(130, abs=0.1))
    with pytest.raises(ValueError):
        site_figures.png_size(b"GIF89a....")


def test_a_wide_notebook_figure_is_reported_and_a_column_wide_one_passes(tmp_path):
    wide = _notebook(tmp_path / "wide.ipynb", [_png(19)])
    problems = site_figures.notebook_problems(wide, "wide.ipynb")
    assert len(problems) == 1 and problems[0].startswith("wide.ipynb, cell 2: a figure 2470 px wide at 130 dpi")
    assert "about 5.5 px tall" in problems[0] and "at most 10.4 in wide" in problems[0]
    good = _notebook(tmp_path / "good.ipynb", [_png(7), _png(10)])
    assert site_figures.notebook_problems(good) == []


def test_a_figure_shown_at_a_set_width_is_judged_at_that_width(tmp_path):
    shrunk = _notebook(tmp_path / "a.ipynb", [_png(7)], metadata={"image/png": {"width": 300}})
    assert "shown 300 px wide" in site_figures.notebook_problems(shrunk)[0]
    fine = _notebook(tmp_path / "b.ipynb", [_png(7)], metadata={"image/png": {"width": 700}})
    assert site_figures.notebook_problems(fine) == []


def test_the_render_check_of_a_notebook_includes_its_figures(tmp_path):
    (tmp_path / "notebooks" / "angle").mkdir(parents=True)
    path = _notebook(tmp_path / "notebooks" / "angle" / "01-x.ipynb", [_png(19)])
    assert any("a figure 2470 px wide" in p for p in render.notebook_problems(path, tmp_path))


def test_a_page_figure_with_small_text_is_reported():
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.set_title("fine")
    assert site_figures.figure_problems(fig, "page") == []
    ax.text(0.5, 0.5, "tiny", fontsize=5)
    problems = site_figures.figure_problems(fig, "page")
    assert len(problems) == 1 and "smallest text (5 pt) is about 6.7 px" in problems[0]
    plt.close(fig)
    wide, ax = plt.subplots(figsize=(20, 3))  # 8-pt text in a figure shrunk from 1920 px to the 999-px column
    ax.text(0.5, 0.5, "label", fontsize=8)
    assert "about 5.5 px" in site_figures.figure_problems(wide, "page")[0]
    plt.close(wide)


def test_the_verdict_figure_is_legible_at_the_landing_page_width():
    import pandas as pd

    from companion.results import VERDICTS

    board = pd.DataFrame([{"paper": "angle", "regime": r, **dict(zip(VERDICTS, [3, 1, 1, 2, 0])), "total": 7}
                          for r in ("paper setting", "scaled")])
    fig = pages.verdict_figure(board=board)
    assert site_figures.figure_problems(fig, "index.qmd", site_figures.COLUMN_PX["full"]) == []
    assert checks.figure_problems(board=board, figure=fig) == []
    plt.close("all")
