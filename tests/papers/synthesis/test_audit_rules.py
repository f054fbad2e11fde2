"""companion.papers.synthesis.audit_rules: a number as printed with its rounding error, and each rule on printed
cells where it fires and where it does not."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest

from companion.papers.synthesis import audit_rules as rules


# --------------------------------------------------------------------------------------------- printed numbers
@pytest.mark.parametrize(("cell", "value", "error", "unit"), [
    ("74.89", "74.89", "0.005", ""), ("−0.111", "-0.111", "0.0005", ""), ("3,063", "3063", "0.5", ""),
    ("3k", "3000", "500", ""), ("2.2M", "2200000", "50000", ""), ("315K", "315000", "500", ""),
    ("10°", "10", "0.5", "°"), ("64min", "64", "0.5", "min"), ("3e-5", "0.00003", "0.000005", ""),
    ("0.001", "0.001", "0.0005", ""),
])
def test_printed_reads_value_rounding_error_and_unit(cell, value, error, unit):
    p = rules.printed(cell)
    assert (p.value, p.error, p.unit) == (Decimal(value), Decimal(error), unit)


@pytest.mark.parametrize("cell", ["N/A", "-", "<1%", "", "below B1", None, float("nan"), "0.45-0.50"])
def test_printed_refuses_what_is_not_one_number(cell):
    assert rules.printed(cell) is None


# ------------------------------------------------------------------------------------------------- the rules
def test_average_fires_only_beyond_the_rounding_of_cells_and_average():
    cells = ["1.00", "2.00", "2.01"]  # mean 1.67
    assert not rules.average_rule(cells, "1.67").off
    assert not rules.average_rule(cells, "1.68").off  # 0.0067 <= 0.005 + 0.005
    assert rules.average_rule(cells, "1.69").off  # 0.0233 > 0.01
    # the rounding allowance follows the printed precision: three decimals allow 0.001
    assert not rules.average_rule(["0.100", "0.201"], "0.151").off
    assert rules.average_rule(["0.100", "0.201"], "0.153").off


def test_weighted_average_uses_the_weights():
    cells = ["10.00", "20.00"]
    assert not rules.average_rule(cells, "17.50", weights=[1, 3]).off
    assert rules.average_rule(cells, "15.00", weights=[1, 3]).off  # the plain mean is not the weighted one
    assert not rules.average_rule(cells, "15.00").off


def test_total_allows_the_rounding_of_rounded_parts_and_counts_multiples():
    assert not rules.total_rule(["590K", "2.2M"], "2.8M").off  # 2.79M, each part rounded
    assert rules.total_rule(["590K", "2.2M"], "3.0M").off
    assert not rules.total_rule(["9457", "9108"], "18565").off
    assert rules.total_rule(["9457", "9108"], "18575").off
    assert not rules.total_rule(["500"], "6000", counts=[12]).off
    assert rules.total_rule(["500"], "6000", counts=[11]).off


def test_difference_against_the_named_cells():
    assert not rules.difference_rule("0.976", "0.472", "0.504").off
    assert not rules.difference_rule("0.961", "0.769", "0.19").off  # 0.192, the stated value has two decimals
    assert rules.difference_rule("0.976", "0.472", "0.456").off


def test_same_quantity_printed_twice():
    assert not rules.same_rule("0.741", "0.741").off
    assert rules.same_rule("0.739", "0.741").off
    assert rules.same_rule("0.740", "0.741").off  # same precision: one unit apart is two different prints
    assert not rules.same_rule("3k", "3,063").off  # a rounded restatement
    assert rules.same_rule("250", "245").off
    assert not rules.same_rule("78.90", (Decimal("78.8971"), Decimal("0.005"))).off  # a recomputed mean
    assert rules.same_rule("78.53", (Decimal("78.8971"), Decimal("0.005"))).off


def test_unit():
    assert rules.unit_rule("radians", "°").off
    assert not rules.unit_rule("degrees", "°").off


def test_order_needs_strictly_above():
    assert not rules.order_rule("75.30", "75.09").off
    assert rules.order_rule("75.09", "75.30").off
    assert rules.order_rule("93.00", "93.00").off  # a tie is not "above"


def test_range_with_rounding():
    assert not rules.range_rule("0.456", "0.19", "0.46").off
    assert not rules.range_rule((Decimal("0.192"), Decimal("0.001")), "0.19", "0.46").off
    assert rules.range_rule("0.504", "0.19", "0.46").off
    assert rules.range_rule("0.10", "0.19", "0.46").off


def test_grid_interval_and_set():
    assert not rules.interval_rule("0.06", "0.06", "0.07").off
    assert rules.interval_rule("0.05", "0.06", "0.07").off
    assert not rules.set_rule("128", ["32", "128"]).off
    assert rules.set_rule("64", ["32", "128"]).off


def test_significance_reads_the_bound_as_at_most_and_skips_exceptions_and_na():
    p = {"a": "0.001", "b": "0.05", "c": "N/A", "d": "0.12"}
    out = rules.significance_rule(p, "0.001")
    assert out.off and "b 0.05" in out.detail and "d 0.12" in out.detail and "a " not in out.detail
    assert not rules.significance_rule(p, "0.001", exceptions=["b", "d"]).off
    assert not rules.significance_rule({"a": "0.001", "c": "N/A"}, "0.001").off


def test_p_value_rule_against_the_tests_of_two_rows():
    from scipy import stats

    x, y = ["1.0", "2.0", "3.5", "4.0", "5.2"], ["0.9", "1.7", "3.4", "3.6", "5.0"]
    cand = rules.p_value_candidates(x, y)
    paired = 100 * stats.ttest_rel([1.0, 2.0, 3.5, 4.0, 5.2], [0.9, 1.7, 3.4, 3.6, 5.0]).pvalue
    assert cand["paired t"] == pytest.approx(paired)
    assert not rules.p_value_rule(f"{paired:.2f}", cand).off
    assert rules.p_value_rule("37.10", cand).off


def test_marks_flags_a_marked_cell_that_is_not_the_extreme():
    values = {"A": "0.5", "B": "0.7", "C": "0.9"}
    assert [(k, o.off) for k, o in rules.marks_rule(values, ["A"], "min")] == [("A", False)]  # passes
    assert [(k, o.off) for k, o in rules.marks_rule(values, ["C"], "max")] == [("C", False)]
    out = rules.marks_rule(values, ["B"], "min")  # fails: B is marked, and the minimum A is left without a mark
    assert [(k, o.off) for k, o in out] == [("B", True), ("A", True)]
    assert "the min is 0.5" in out[0][1].detail and "marked 0.7" in out[1][1].detail


def test_marks_flags_an_extreme_that_is_not_marked():
    values = {"A": "0.5", "B": "0.7", "C": "0.9"}
    out = rules.marks_rule(values, [], "min")  # fails: nothing marked, the minimum is A
    assert [(k, o.off) for k, o in out] == [("A", True)] and "none marked" in out[0][1].detail
    assert [(k, o.off) for k, o in rules.marks_rule(values, [], "max")] == [("C", True)]
    assert [(k, o.off) for k, o in rules.marks_rule(values, ["C"], "max")] == [("C", False)]  # passes


def test_marks_ties_at_the_extreme_need_one_mark():
    values = {"A": "0.909", "B": "0.909", "C": "0.917"}
    # marking either tied cell, or both, marks the extreme; the unmarked twin is not flagged
    assert [(k, o.off) for k, o in rules.marks_rule(values, ["A"], "min")] == [("A", False)]
    assert [(k, o.off) for k, o in rules.marks_rule(values, ["A", "B"], "min")] == [("A", False), ("B", False)]
    out = rules.marks_rule(values, ["C"], "min")  # neither tied cell marked: both flagged, the tie named
    assert [(k, o.off) for k, o in out] == [("C", True), ("A", True), ("B", True)]
    assert "tied by 2 cells" in out[1][1].detail
    # equal as printed is a tie; one more printed digit is not
    assert [(k, o.off) for k, o in rules.marks_rule({"A": "0.91", "B": "0.909"}, ["A"], "min")] == [
        ("A", True), ("B", True)]


def test_count_up_to_and_exactly():
    assert not rules.count_rule(1, "3", at_most=True).off
    assert rules.count_rule(4, "3", at_most=True).off
    assert rules.count_rule(1, "3", at_most=False).off


def test_repeated_runs_in_rows_and_columns():
    t = pd.DataFrame({"m": ["a", "b", "c"], "x": ["1.11", "2.22", "1.11"], "y": ["3.33", "4.44", "3.33"],
                      "z": ["5.55", "6.66", "7.77"]})
    found = rules.repeated_runs(t, ["m"], ["x", "y", "z"])
    assert [item for item, _ in found] == ["rows a = c (x + y)"]
    t2 = pd.DataFrame({"m": ["a", "b", "c"], "x": ["1.11", "2.22", "3.33"], "y": ["1.11", "2.22", "9.99"]})
    assert [item for item, _ in rules.repeated_runs(t2, ["m"], ["x", "y"])] == [
        "columns x = y (a + b)", "row a (x = y)", "row b (x = y)"]
    # one shared cell is chance, not a copied block; non-adjacent equal cells are not a run
    t3 = pd.DataFrame({"m": ["a", "b"], "x": ["1.11", "1.11"], "y": ["2.22", "3.33"], "z": ["4.44", "4.44"]})
    assert rules.repeated_runs(t3, ["m"], ["x", "y", "z"]) == []


def test_repeated_runs_within_a_row():
    # fails: one row prints the same number in two adjacent columns (a cell copied into its neighbour)
    t = pd.DataFrame({"m": ["a", "b"], "x": ["89.58", "1.00"], "y": ["89.58", "2.00"], "z": ["75.71", "3.00"]})
    found = rules.repeated_runs(t, ["m"], ["x", "y", "z"])
    assert found == [("row a (x = y)", "row a prints 89.58 in 2 adjacent columns (x, y)")]
    # a run of three is one finding, named by its three columns
    t3 = pd.DataFrame({"m": ["a"], "x": ["7.7"], "y": ["7.7"], "z": ["7.7"], "w": ["1.0"]})
    assert [i for i, _ in rules.repeated_runs(t3, ["m"], ["x", "y", "z", "w"])] == ["row a (x = y = z)"]
    assert rules.repeated_runs(t3, ["m"], ["x", "y", "z", "w"], min_run=4) == []
    # passes: equal cells that are not adjacent, or not printed numbers (N/A, empty), are no run
    ok = pd.DataFrame({"m": ["a", "b"], "x": ["1.5", "N/A"], "y": ["2.5", "N/A"], "z": ["1.5", ""], "w": ["9", ""]})
    assert rules.repeated_runs(ok, ["m"], ["x", "y", "z", "w"]) == []


def test_common_runs_across_tables_leaves_out_declared_cells():
    a = [("p", "1.1"), ("q", "2.2"), ("r", "3.3"), ("s", "9.9")]
    b = [("P", "1.1"), ("Q", "2.2"), ("R", "3.3"), ("S", "8.8")]
    assert [[c for c, _, _ in run] for run in rules.common_runs(a, b, 3)] == [["p", "q", "r"]]
    assert rules.common_runs(a, b, 4) == []
    assert rules.common_runs(a, b, 3, declared=lambda x, y: x.upper() == y) == []
