"""Coverage maps: ``data/<paper>/coverage.csv`` lists every table, figure and numbered theorem-like statement the
paper text mentions, with the claims that test it (which must exist in the named notebook's ledger) or the reason
it is not tested. The status the site shows is computed from the claims' verdicts
(companion.publish.sources.coverage.coverage_status).

Without the paper texts (``../shared/papers``) the module is skipped with one message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.papers.text import papers_dir
from companion.publish.sources import coverage
from companion.settings import REPO_ROOT

if papers_dir() is None:
    pytest.skip(
        "paper texts not found: ../shared/papers/<paper>.txt beside the repository (or COMPANION_PAPERS_DIR) is "
        "needed to list the items each paper mentions",
        allow_module_level=True,
    )

ROOT = REPO_ROOT


def _frame(paper: str):
    if not (ROOT / "data" / paper / "coverage.csv").is_file():
        pytest.fail(f"data/{paper}/coverage.csv missing", pytrace=False)
    return coverage.read_coverage(paper, ROOT)


@pytest.mark.parametrize("paper", coverage.PAPERS)
def test_coverage_map_has_the_spec_columns(paper):
    frame = _frame(paper)
    missing = [c for c in coverage.COVERAGE_COLUMNS if c not in frame.columns]
    assert not missing, f"data/{paper}/coverage.csv lacks column(s) {missing}; need {list(coverage.COVERAGE_COLUMNS)}"
    assert len(frame), f"data/{paper}/coverage.csv has no rows"


@pytest.mark.parametrize("paper", coverage.PAPERS)
def test_every_mentioned_item_has_a_row(paper):
    frame = _frame(paper)
    if "item" not in frame.columns:
        pytest.fail(f"data/{paper}/coverage.csv has no 'item' column", pytrace=False)
    missing = coverage.coverage_missing_items(paper, frame)
    assert not missing, f"data/{paper}/coverage.csv has no row for: {', '.join(missing)}"


@pytest.mark.parametrize("paper", coverage.PAPERS)
def test_claims_exist_and_untested_rows_say_why(paper):
    frame = _frame(paper)
    absent = [c for c in coverage.COVERAGE_COLUMNS if c not in frame.columns]
    if absent:
        pytest.fail(f"data/{paper}/coverage.csv lacks column(s) {absent}", pytrace=False)
    problems = coverage.coverage_row_problems(paper, frame, ROOT)
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------------------------ mentioned items
EXPECTED_ITEMS = {
    "circumplex": {f"Table {i}" for i in range(1, 7)} | {f"Figure {i}" for i in range(1, 15)},
    "simace": {f"Table {i}" for i in range(1, 15)} | {f"Figure {i}" for i in range(1, 10)},
    "angle": {f"Table {i}" for i in range(1, 7)} | {f"Figure {i}" for i in range(1, 7)},
    "concepts": {f"Table {i}" for i in range(1, 14)} | {f"Figure {i}" for i in range(1, 6)}
    | {f"Theorem D.{i}" for i in range(1, 8)},
    "weighted-cl": {"Table 1", "Table 2"} | {f"Figure {i}" for i in range(1, 8)}
    | {f"Theorem 3.{i}" for i in (3, 7, 8, 10, 11, 12, 13)} | {"Corollary 3.4", "Corollary 3.5", "Corollary 3.9"}
    | {"Lemma B.1", "Lemma B.2"} | {f"Lemma D.{i}" for i in range(2, 6)} | {"Theorem D.1", "Theorem D.6", "Theorem F.1"},
}


@pytest.mark.parametrize("paper", coverage.PAPERS)
def test_mentioned_items(paper):
    """Checked by hand: weighted-cl's "Theorems 3.2 and 3.8" / "Theorem 4.2 and 4.3" are results of a cited work
    (excluded), its link "Theorem B.1" is its Lemma B.1; circumplex's Figures 9-11 are mentioned without captions."""
    assert set(coverage.mentioned_items(paper)) == EXPECTED_ITEMS[paper]


# ------------------------------------------------------------------------------------------------ the machinery
def _write_fixture(root: Path, rows: list[str], claims: list[dict]) -> None:
    (root / "data" / "angle").mkdir(parents=True)
    (root / "results" / "angle").mkdir(parents=True)
    (root / "data" / "angle" / "coverage.csv").write_text(
        "item,states,notebook,claims,scale_or_reason\n" + "\n".join(rows) + "\n", encoding="utf-8")
    ledger = {"schema": 2, "paper": "angle", "notebook": "02-sts", "claims": claims}
    (root / "results" / "angle" / "02-sts.json").write_text(json.dumps(ledger), encoding="utf-8")


def test_status_is_computed_from_the_verdicts(tmp_path):
    claims = [{"id": "a", "verdict": "reproduced"}, {"id": "b", "verdict": "reproduced"},
              {"id": "c", "verdict": "inconclusive"}, {"id": "d", "verdict": "passed"}]
    rows = ["Table 4,ablation,angle/02-sts,a;b,MiniLM frozen",
            "Table 2,transfer STS,angle/02-sts,a; b ;c,MiniLM frozen",
            "Table 1,data set counts,angle/02-sts,d,",
            "Fig. 5,density plots,,,not testable: plotted values are not in the text",
            "Table 6,related work,,,a survey table with no claim",
            "Table 3,non-transfer,angle/02-sts,zz,"]
    _write_fixture(tmp_path, rows, claims)
    status = coverage.coverage_status("angle", root=tmp_path)["status"].tolist()
    assert status == ["reproduced", "2 reproduced, 1 inconclusive", "passed",
                      "not testable: plotted values are not in the text",
                      "not testable: a survey table with no claim", "missing: zz"]


def test_check_coverage_reports_missing_items_claims_and_reasons(tmp_path):
    items = sorted(coverage.mentioned_items("angle"))
    rows = [f"{item},something,angle/02-sts,a,scale" for item in items if item != "Figure 6"]
    rows[0] = rows[0].replace(",a,", ",a;ghost,")
    rows.append("Eq. 6,the angle objective,,,")
    rows = [r.replace("Figure 5,", "Fig. 5,") for r in rows]  # Fig. N is read as Figure N
    _write_fixture(tmp_path, rows, [{"id": "a", "verdict": "partly"}])
    problems = coverage.check_coverage("angle", root=tmp_path)
    assert any("no row for Figure 6" in p for p in problems)
    assert not any("Figure 5" in p for p in problems)
    assert any("'ghost' is not in results/angle/02-sts.json" in p for p in problems)
    assert any("(Eq. 6): no claims and an empty scale_or_reason" in p for p in problems)
    assert len(problems) == 3
    assert coverage.check_coverage("simace", root=tmp_path) == ["data/simace/coverage.csv missing"]


def test_coverage_items_are_normalised():
    assert coverage.normalise_coverage_item("Fig. 7") == "Figure 7"
    assert coverage.normalise_coverage_item(" Thm 3.7 ") == "Theorem 3.7"
    assert coverage.normalise_coverage_item("Cor. 3.9") == "Corollary 3.9"
    assert coverage.normalise_coverage_item("Table 04") == "Table 4"
    assert coverage.normalise_coverage_item("P1") == "P1"
    assert coverage.normalise_coverage_item("Eq. 6") == "Eq. 6"
