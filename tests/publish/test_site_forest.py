"""The site's figures of the findings (companion.publish.site.forest): comparative statements on the common scale
(a share of the paper's effect) by hand, the forest plot's rows against them, deterministic SVG files and the check
that finds a stale or missing one."""

import pytest

from companion.publish.site import findings, forest


def _statement(criterion, estimate, ci, verdict="partly", regime_class="scaled", title="A beats B"):
    claim = {"criterion": criterion, "stats": {"estimate": estimate, "ci": ci}}
    return findings.Statement("angle", "s", title, verdict, "scaled: x", regime_class, "01-x", "s", claim)


def test_a_comparison_becomes_a_share_of_the_papers_effect_by_hand():
    s = forest.share_of(_statement("A > B (paper +0.2; tolerance ±0.1: half the paper's effect). CI …", 0.1,
                                   [0.05, 0.15]))
    assert (s.share, s.low, s.high, *s.band, s.effect) == pytest.approx((0.5, 0.25, 0.75, 0.5, 1.5, 0.2))
    # a negative effect: the same shares (the direction is the paper's), the interval's ends in order
    s = forest.share_of(_statement("A < B (paper -0.2; tolerance ±0.05: x)", -0.3, [-0.4, -0.2]))
    assert (s.share, s.low, s.high, *s.band) == pytest.approx((1.5, 1.0, 2.0, 0.75, 1.25))
    # the opposite direction is a negative share
    assert forest.share_of(_statement("A > B (paper +2; tolerance ±1: x)", -1.0, [-2.0, 0.0])).share == -0.5


def test_statements_without_a_printed_effect_are_not_drawn():
    assert forest.share_of(_statement("A > B (the paper states the direction only). CI …", 0.1, [0, 0.2])) is None
    assert forest.share_of(_statement("CI of ours inside 0 ± 0.02 (x)", 0.01, [0, 0.02])) is None
    assert forest.share_of(_statement("ours >= 0.9", 0.95, None)) is None
    deterministic = _statement("A < B (paper -70; tolerance ±35: x); a deterministic value", -35.0, None)
    deterministic.claim["stats"] = {}
    deterministic.claim["ours"] = -35.0
    s = forest.share_of(deterministic)
    assert s.share == pytest.approx(0.5) and s.low is None and s.high is None


def test_the_forest_plot_draws_one_row_per_statement_in_order_with_its_title():
    shares = [forest.share_of(_statement("A > B (paper +0.2; tolerance ±0.1: x)", 0.1, [0.05, 0.15],
                                         title="First title")),
              forest.share_of(_statement("A > B (paper +1; tolerance ±0.5: x)", 9.0, [8.0, 10.0],
                                         verdict="reproduced", title="Second, far beyond the axis"))]
    fig = forest.forest_figure("angle", shares=shares)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["First title", "Second, far beyond the axis"]
    assert ax.get_xlim() == (forest.LOW, forest.HIGH)
    texts = [t.get_text() for t in ax.texts]
    assert "9.0" in texts  # the share beyond the axis is written at its edge
    assert "◐" in texts and "✔" in texts  # the verdict marks, readable without colour
    data = forest.svg(fig)
    again = forest.svg(forest.forest_figure("angle", shares=shares))
    assert data == again and b"<svg" in data  # deterministic SVG: no date, fixed ids


def test_a_missing_or_stale_figure_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(forest, "figures", lambda root=None: {"summary": b"<svg>new</svg>"})
    assert forest.figure_problems(tmp_path) == [
        "figures/site/summary.svg is missing or out of date; run `python -m companion site`"]
    forest.write_figures(tmp_path)
    assert forest.figure_problems(tmp_path) == []
    (tmp_path / forest.FIGURES / "old-forest.svg").write_bytes(b"<svg/>")
    assert forest.figure_problems(tmp_path) == [
        "figures/site/old-forest.svg belongs to no ledger; run `python -m companion site`"]
    forest.write_figures(tmp_path)
    assert not (tmp_path / forest.FIGURES / "old-forest.svg").exists()


def test_what_it_takes_reads_the_ledgers_own_to_decide_first():
    seeds = findings.Statement("angle", "s", "t", "inconclusive", "scaled: x", "minilm", "01-x", "s",
                               {"reason": "the CI covers 0", "to_decide": "about 27 seeds (80 % power at ...)"})
    assert findings.what_it_takes(seeds) == "about 27 seeds"
    longer = findings.Statement("angle", "s", "t", "inconclusive", "scaled: x", "minilm", "01-x", "s",
                                {"reason": "budget: x", "to_decide": "at least 1200 steps (the curve still moves)"})
    assert findings.what_it_takes(longer) == "at least 1200 steps (the curve still moves)"
