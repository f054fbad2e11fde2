"""companion.papers.synthesis.audit: each rule on a synthetic table where it fires and one where it does not, the
checks on a synthetic data folder, and the auditor over the five papers' transcriptions (every finding an erratum
of the errata notebook or allow-listed, every transcribed table covered)."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest

from companion.papers.synthesis import audit
from companion.papers.synthesis.audit import C, Statement


# --------------------------------------------------------------------------------------------- printed numbers
@pytest.mark.parametrize(("cell", "value", "error", "unit"), [
    ("74.89", "74.89", "0.005", ""), ("−0.111", "-0.111", "0.0005", ""), ("3,063", "3063", "0.5", ""),
    ("3k", "3000", "500", ""), ("2.2M", "2200000", "50000", ""), ("315K", "315000", "500", ""),
    ("10°", "10", "0.5", "°"), ("64min", "64", "0.5", "min"), ("3e-5", "0.00003", "0.000005", ""),
    ("0.001", "0.001", "0.0005", ""),
])
def test_printed_reads_value_rounding_error_and_unit(cell, value, error, unit):
    p = audit.printed(cell)
    assert (p.value, p.error, p.unit) == (Decimal(value), Decimal(error), unit)


@pytest.mark.parametrize("cell", ["N/A", "-", "<1%", "", "below B1", None, float("nan"), "0.45-0.50"])
def test_printed_refuses_what_is_not_one_number(cell):
    assert audit.printed(cell) is None


# ------------------------------------------------------------------------------------------------- the rules
def test_average_fires_only_beyond_the_rounding_of_cells_and_average():
    cells = ["1.00", "2.00", "2.01"]  # mean 1.67
    assert not audit.average_rule(cells, "1.67").off
    assert not audit.average_rule(cells, "1.68").off  # 0.0067 <= 0.005 + 0.005
    assert audit.average_rule(cells, "1.69").off  # 0.0233 > 0.01
    # the rounding allowance follows the printed precision: three decimals allow 0.001
    assert not audit.average_rule(["0.100", "0.201"], "0.151").off
    assert audit.average_rule(["0.100", "0.201"], "0.153").off


def test_weighted_average_uses_the_weights():
    cells = ["10.00", "20.00"]
    assert not audit.average_rule(cells, "17.50", weights=[1, 3]).off
    assert audit.average_rule(cells, "15.00", weights=[1, 3]).off  # the plain mean is not the weighted one
    assert not audit.average_rule(cells, "15.00").off


def test_total_allows_the_rounding_of_rounded_parts_and_counts_multiples():
    assert not audit.total_rule(["590K", "2.2M"], "2.8M").off  # 2.79M, each part rounded
    assert audit.total_rule(["590K", "2.2M"], "3.0M").off
    assert not audit.total_rule(["9457", "9108"], "18565").off
    assert audit.total_rule(["9457", "9108"], "18575").off
    assert not audit.total_rule(["500"], "6000", counts=[12]).off
    assert audit.total_rule(["500"], "6000", counts=[11]).off


def test_difference_against_the_named_cells():
    assert not audit.difference_rule("0.976", "0.472", "0.504").off
    assert not audit.difference_rule("0.961", "0.769", "0.19").off  # 0.192, the stated value has two decimals
    assert audit.difference_rule("0.976", "0.472", "0.456").off


def test_same_quantity_printed_twice():
    assert not audit.same_rule("0.741", "0.741").off
    assert audit.same_rule("0.739", "0.741").off
    assert audit.same_rule("0.740", "0.741").off  # same precision: one unit apart is two different prints
    assert not audit.same_rule("3k", "3,063").off  # a rounded restatement
    assert audit.same_rule("250", "245").off
    assert not audit.same_rule("78.90", (Decimal("78.8971"), Decimal("0.005"))).off  # a recomputed mean
    assert audit.same_rule("78.53", (Decimal("78.8971"), Decimal("0.005"))).off


def test_unit():
    assert audit.unit_rule("radians", "°").off
    assert not audit.unit_rule("degrees", "°").off


def test_order_needs_strictly_above():
    assert not audit.order_rule("75.30", "75.09").off
    assert audit.order_rule("75.09", "75.30").off
    assert audit.order_rule("93.00", "93.00").off  # a tie is not "above"


def test_range_with_rounding():
    assert not audit.range_rule("0.456", "0.19", "0.46").off
    assert not audit.range_rule((Decimal("0.192"), Decimal("0.001")), "0.19", "0.46").off
    assert audit.range_rule("0.504", "0.19", "0.46").off
    assert audit.range_rule("0.10", "0.19", "0.46").off


def test_grid_interval_and_set():
    assert not audit.interval_rule("0.06", "0.06", "0.07").off
    assert audit.interval_rule("0.05", "0.06", "0.07").off
    assert not audit.set_rule("128", ["32", "128"]).off
    assert audit.set_rule("64", ["32", "128"]).off


def test_significance_reads_the_bound_as_at_most_and_skips_exceptions_and_na():
    p = {"a": "0.001", "b": "0.05", "c": "N/A", "d": "0.12"}
    out = audit.significance_rule(p, "0.001")
    assert out.off and "b 0.05" in out.detail and "d 0.12" in out.detail and "a " not in out.detail
    assert not audit.significance_rule(p, "0.001", exceptions=["b", "d"]).off
    assert not audit.significance_rule({"a": "0.001", "c": "N/A"}, "0.001").off


def test_p_value_rule_against_the_tests_of_two_rows():
    from scipy import stats

    x, y = ["1.0", "2.0", "3.5", "4.0", "5.2"], ["0.9", "1.7", "3.4", "3.6", "5.0"]
    cand = audit.p_value_candidates(x, y)
    paired = 100 * stats.ttest_rel([1.0, 2.0, 3.5, 4.0, 5.2], [0.9, 1.7, 3.4, 3.6, 5.0]).pvalue
    assert cand["paired t"] == pytest.approx(paired)
    assert not audit.p_value_rule(f"{paired:.2f}", cand).off
    assert audit.p_value_rule("37.10", cand).off


def test_marks_flags_a_marked_cell_that_is_not_the_extreme_only():
    values = {"A": "0.5", "B": "0.7", "C": "0.9"}
    assert [o.off for _, o in audit.marks_rule(values, ["A"], "min")] == [False]
    assert [o.off for _, o in audit.marks_rule(values, ["B"], "min")] == [True]
    assert [o.off for _, o in audit.marks_rule(values, ["C"], "max")] == [False]
    assert audit.marks_rule(values, [], "min") == []  # an unmarked minimum is not flagged (marks can be lost)


def test_count_up_to_and_exactly():
    assert not audit.count_rule(1, "3", at_most=True).off
    assert audit.count_rule(4, "3", at_most=True).off
    assert audit.count_rule(1, "3", at_most=False).off


def test_repeated_runs_in_rows_and_columns():
    t = pd.DataFrame({"m": ["a", "b", "c"], "x": ["1.11", "2.22", "1.11"], "y": ["3.33", "4.44", "3.33"],
                      "z": ["5.55", "6.66", "7.77"]})
    found = audit.repeated_runs(t, ["m"], ["x", "y", "z"])
    assert [item for item, _ in found] == ["rows a = c (x + y)"]
    t2 = pd.DataFrame({"m": ["a", "b", "c"], "x": ["1.11", "2.22", "3.33"], "y": ["1.11", "2.22", "9.99"]})
    assert [item for item, _ in audit.repeated_runs(t2, ["m"], ["x", "y"])] == ["columns x = y (a + b)"]
    # one shared cell is chance, not a copied block; non-adjacent equal cells are not a run
    t3 = pd.DataFrame({"m": ["a", "b"], "x": ["1.11", "1.11"], "y": ["2.22", "3.33"], "z": ["4.44", "4.44"]})
    assert audit.repeated_runs(t3, ["m"], ["x", "y", "z"]) == []


def test_common_runs_across_tables_leaves_out_declared_cells():
    a = [("p", "1.1"), ("q", "2.2"), ("r", "3.3"), ("s", "9.9")]
    b = [("P", "1.1"), ("Q", "2.2"), ("R", "3.3"), ("S", "8.8")]
    assert [[c for c, _, _ in run] for run in audit.common_runs(a, b, 3)] == [["p", "q", "r"]]
    assert audit.common_runs(a, b, 4) == []
    assert audit.common_runs(a, b, 3, declared=lambda x, y: x.upper() == y) == []


# ------------------------------------------------------------------------------- the checks on synthetic data
def _folder(tmp_path, tables: dict[str, str], statements: str = ""):
    for name, text in tables.items():
        path = tmp_path / "data" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    syn = tmp_path / "data" / "synthesis"
    syn.mkdir(parents=True, exist_ok=True)
    (syn / "errata_statements.csv").write_text("id,paper,statement,value,unit,source\n" + statements,
                                               encoding="utf-8")
    return audit.Book(tmp_path)


def test_checks_on_a_synthetic_table(tmp_path):
    book = _folder(tmp_path, {"pp/table1.csv": "# a comment\nmodel,x,y,Avg.,source\nA,1.00,2.00,1.50,Table 1\n"
                                               "B,3.00,4.00,3.60,Table 1\nC,5.00,6.00,,Table 1\n"},
                   "pp-gain,pp,§2: B beats A by 2,2.00,points,pp | §2\npp-wrong,pp,§3: B beats A by 3,3.00,points,pp | §3\n")
    checks = [
        audit.Average("pp", "avg", "average", "Table 1: Avg. is the row mean", file="table1.csv",
                      groups=[(["x", "y"], "Avg.")], label=["model"]),
        audit.Difference("pp", "gain", "difference", "§2", items=[
            ("B - A", C("pp", "table1.csv", "x", model="B"), C("pp", "table1.csv", "x", model="A"), Statement("pp-gain")),
            ("B - A wrong", C("pp", "table1.csv", "x", model="B"), C("pp", "table1.csv", "x", model="A"),
             Statement("pp-wrong"))]),
        audit.Order("pp", "order", "order", "§4: B above A everywhere", items=[
            ("B > A", [(C("pp", "table1.csv", c, model="B"), C("pp", "table1.csv", c, model="A")) for c in ("x", "y")]),
            ("A > B", [(C("pp", "table1.csv", "x", model="A"), C("pp", "table1.csv", "x", model="B"))])]),
    ]
    findings, n = audit.run_checks(checks, book)
    assert n == 2 + 2 + 2  # C's empty average is skipped, not invented
    assert [f.key for f in findings] == ["pp/avg/B", "pp/gain/B - A wrong", "pp/order/A > B"]
    assert findings[0].rule == "average" and "3.60" in findings[0].cells and "3.5" in findings[0].detail


def test_a_cell_reference_must_name_one_row(tmp_path):
    book = _folder(tmp_path, {"pp/table2.csv": "m,v,source\nA,1,Table 2\nA,2,Table 2\n"})
    with pytest.raises(KeyError, match="2 rows match"):
        book.get(C("pp", "table2.csv", "v", m="A"))
    assert book.get(C("pp", "table2.csv", "v", m="A", **{"#": "1"})) == "2"  # the second such row


def test_report_sorts_findings_into_errata_allowed_new_and_stale():
    f = [audit.Finding("pp", "c", str(i), "same", "s", "cells", "d") for i in range(3)]
    report = audit.Report(f, [], 3, errata={"pp/c/0": "pp:e", "pp/c/9": "pp:e"},
                          allowed={"pp/c/1": ("rounding", "why")}, known_errata={"pp:e"})
    assert [report.disposition(x) for x in f] == ["erratum pp:e", "allowed (rounding)", "NEW"]
    assert [x.key for x in report.new] == ["pp/c/2"] and report.stale == ["pp/c/9"] and not report.ok
    done = audit.Report(f[:2], [], 2, errata={"pp/c/0": "pp:e"}, allowed={"pp/c/1": ("rounding", "why")},
                        known_errata={"pp:e"})
    assert done.ok
    assert not audit.Report(f[:1], [], 1, errata={"pp/c/0": "pp:gone"}, known_errata={"pp:e"}).ok


# ----------------------------------------------------------------------------------- the five papers, as in CI
@pytest.fixture(scope="module")
def report():
    from companion.settings import repo_root

    return audit.audit(repo_root())


def test_every_finding_is_an_erratum_or_allow_listed(report):
    assert report.findings, "the auditor found nothing: the checks did not run"
    assert not report.new, audit.format_report(report)
    assert not report.stale, report.stale
    assert not report.unknown_errata, report.unknown_errata
    assert not report.doubly_disposed
    assert all(reason.strip() and why.strip() for reason, why in report.allowed.values())


def test_every_transcribed_table_is_covered_and_keys_are_unique(report):
    from companion.settings import repo_root

    assert audit.uncovered_tables(repo_root(), report.checks) == []
    keys = [f.key for f in report.findings]
    assert len(keys) == len(set(keys))
    names = [(c.paper, c.name) for c in report.checks]
    assert len(names) == len(set(names))
    assert {f.rule for f in report.findings} <= set(audit.RULES)


def test_known_inconsistencies_are_among_the_findings(report):
    """A few findings pinned by their cells, so that a check that silently stops firing fails here."""
    by_key = {f.key: f for f in report.findings}
    assert "80.06" in by_key["simace/table4-average/BERT-base · RankCSE-listMLE"].cells
    assert "0.739" in by_key["circumplex/table1-vs-table4/SINCERE · nGPT · Qwen3-Embedding-4B V-Measure"].cells
    assert "Pair 74.65, Rank 53.96" in by_key[
        "simace/table12-repeated/rows BERT-base · SimCSE = RoBERTa-base · SimCSE (Pair + Rank)"].cells
    assert "RoBERTa-base, RankCSE-listMLE] 0.04" in by_key["simace/table4-caption-p/Table 4's methods"].detail
    assert report.errata["concepts/p3-range/type-swap ROC-AUC (M1 - B3)"] == "concepts:p3-range"


def test_errata_ids_are_read_from_the_notebook_and_the_evidence():
    from companion.settings import repo_root

    ids = audit.errata_ids(repo_root())
    assert {"simace:rankcse-avg", "weighted-cl:soft-tau-star", "weighted-cl:thm37-distance"} <= ids
    assert "audit-dispositions" not in ids  # a check, not an erratum
