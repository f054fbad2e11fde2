"""companion.papers.synthesis.audit_kinds: checks of several kinds on a synthetic table, each item where it fires
and where it does not, run as the auditor runs them."""

from __future__ import annotations

from companion.papers.synthesis import audit_kinds as kinds
from companion.papers.synthesis.audit import run_checks
from companion.papers.synthesis.audit_book import C, Statement


def test_checks_on_a_synthetic_table(synthetic_book):
    book = synthetic_book({"pp/table1.csv": "# a comment\nmodel,x,y,Avg.,source\nA,1.00,2.00,1.50,Table 1\n"
                                               "B,3.00,4.00,3.60,Table 1\nC,5.00,6.00,,Table 1\n"},
                   "pp-gain,pp,§2: B beats A by 2,2.00,points,pp | §2\npp-wrong,pp,§3: B beats A by 3,3.00,points,pp | §3\n")
    checks = [
        kinds.Average("pp", "avg", "average", "Table 1: Avg. is the row mean", file="table1.csv",
                      groups=[(["x", "y"], "Avg.")], label=["model"]),
        kinds.Difference("pp", "gain", "difference", "§2", items=[
            ("B - A", C("pp", "table1.csv", "x", model="B"), C("pp", "table1.csv", "x", model="A"), Statement("pp-gain")),
            ("B - A wrong", C("pp", "table1.csv", "x", model="B"), C("pp", "table1.csv", "x", model="A"),
             Statement("pp-wrong"))]),
        kinds.Order("pp", "order", "order", "§4: B above A everywhere", items=[
            ("B > A", [(C("pp", "table1.csv", c, model="B"), C("pp", "table1.csv", c, model="A")) for c in ("x", "y")]),
            ("A > B", [(C("pp", "table1.csv", "x", model="A"), C("pp", "table1.csv", "x", model="B"))])]),
    ]
    findings, n = run_checks(checks, book)
    assert n == 2 + 2 + 2  # C's empty average is skipped, not invented
    assert [f.key for f in findings] == ["pp/avg/B", "pp/gain/B - A wrong", "pp/order/A > B"]
    assert findings[0].rule == "average" and "3.60" in findings[0].cells and "3.5" in findings[0].detail


def test_marks_check_both_ways_with_an_excluded_row(synthetic_book):
    """The caption's rule "the worst of each model, excluding Pretrained, is underlined": the Pretrained row is left
    out of the group (it would be the minimum), a wrongly placed mark fires twice (the marked cell and the unmarked
    minimum), a correct mark passes."""
    book = synthetic_book({"pp/table1.csv": "method,x,y,underlined\nPretrained,0.10,0.20,\nA,0.50,0.60,x\n"
                                               "B,0.70,0.40,x\nC,0.90,0.80,\n"})

    def groups(f):
        return [("all", f[f.method != "Pretrained"])]

    check = kinds.Marks("pp", "marks", "marks", "Table 1: worst underlined, excluding Pretrained", file="table1.csv",
                        label=["method"], mark_col="underlined", group_rows=groups, cols=["x", "y"])
    findings, n = run_checks([check], book)
    assert n == 3  # x: A (the minimum, marked) and B (marked, not the minimum); y: the minimum B, unmarked
    assert [f.key for f in findings] == ["pp/marks/B · x", "pp/marks/B · y (unmarked min)"]
    assert "0.70 (marked" in findings[0].cells and "the min 0.40 is not marked" in findings[1].detail
    good = synthetic_book({"pp/table1.csv": "method,x,underlined\nPretrained,0.10,\nA,0.50,x\nB,0.70,\n"})
    assert run_checks([check.__class__(**{**check.__dict__, "cols": ["x"]})], good)[0] == []
