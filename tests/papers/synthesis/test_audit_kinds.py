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
