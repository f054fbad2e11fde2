"""The bottom line of each paper (companion.publish.site.summary, pages.bottom_line_markdown) read against a small
ledger in the new format, and the one formatter of numbers with an uncertainty (companion.publish.site.format)."""

import re

import nbformat
import pytest

from companion import stats
from companion.publish.notebooks import twin_path
from companion.publish.site import checks, common, pages
from companion.publish.site import format as fmt
from companion.publish.site import summary as site_summary
from companion.results import Ledger, holds, not_testable, within
from companion.settings import REPO_ROOT

MINILM = "MiniLM top layer, 640 steps"


def _ledger(tmp_path, monkeypatch):
    """AnglE's ledger: 2 reproduced (one scaled), 1 partly, 1 not reproduced, 4 inconclusive (2 underpowered, 1
    budget, 1 did not train), 1 not testable; and claims that are not the paper's (beyond, check, erratum)."""
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# AnglE 01\n§3")]
    path = tmp_path / "notebooks" / "angle" / "01-x.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    twin_path(path).write_text("# %%\n")
    noisy = stats.paired([0.30, 0.10, 0.52], [0.20, 0.25, 0.18])  # a wide interval: underpowered for 0.05
    ledger = Ledger("angle", "01-x", profile="cpu", seeds=[0, 1, 2])
    ledger.claim("r1", "one", 1, 1.0, within(1, 0.1), kind="paper", source="Table 2")
    ledger.claim("r2", "two", 1, 1.05, within(1, 0.1), kind="paper", source="Table 4: 86.26 - 85.28",
                 regime=MINILM)
    ledger.claim("p1", "three", 1, 1.5, within(1, 0.1, partly_tol=1), kind="paper", source="§5.1", regime=MINILM)
    ledger.claim("n1", "four", 1, 5.0, within(1, 0.1), kind="paper", source="Table 5, STS-B")
    ledger.claim("u1", "five", 0.05, noisy, stats.direction(paper_effect=0.05), kind="paper", source="Table 4",
                 regime=MINILM)
    ledger.claim("u2", "six", None, 1, stats.inconclusive("underpowered: one seed per objective"), kind="paper",
                 source="Fig. 3 caption", regime="frozen MiniLM")
    ledger.claim("b1", "seven", 1, 1.0, within(1, 0.1), kind="paper", source="Thm 3.8",
                 validity=stats.Validity("plateau", False, "the dev curve still climbs at 640 steps"))
    ledger.claim("t1", "eight", 1, 1.0, within(1, 0.1), kind="paper", source="App. D.4", regime=MINILM,
                 validity=stats.Validity("trained", False, "loss 0.003 -> 0.003"))
    ledger.claim("x1", "nine", 1, None, not_testable("the paper's data are not public"), kind="paper", source="§6")
    ledger.claim("q1", "a question", None, True, holds(), kind="beyond", regime=MINILM)
    ledger.claim("c1", "a check", None, True, holds(), kind="check")
    ledger.save()
    (tmp_path / common.paper_page("angle")).parent.mkdir(parents=True)
    (tmp_path / common.paper_page("angle")).write_text("x")
    return tmp_path


def test_the_bottom_line_counts_the_papers_claims_by_verdict_and_reason(tmp_path, monkeypatch):
    root = _ledger(tmp_path, monkeypatch)
    claims = pages._paper_claims("angle", root)
    line = site_summary.bottom_line(claims)
    assert line.total == 9  # the beyond claim and the check are not the paper's claims
    assert line.counts() == {"reproduced": 2, "partly": 1, "not reproduced": 1, "inconclusive": 4,
                             "not testable": 1, "inconclusive: underpowered": 2, "inconclusive: budget": 1,
                             "inconclusive: did not train": 1}
    assert [c["id"] for c in line.inconclusive["underpowered"]] == ["u1", "u2"]


def test_the_landing_paragraph_reads_true_against_the_ledger(tmp_path, monkeypatch):
    root = _ledger(tmp_path, monkeypatch)
    text = pages.bottom_line_markdown("angle", root=root)
    assert text == (
        "**[AnglE](site/papers/angle.qmd)** — 9 of the paper's statements tested. "
        "**Holds:** 2 reproduced (Table 2, Table 4; 1 in the paper setting, 1 scaled: MiniLM top layer, 640 steps) "
        "and 1 partly (§5.1; scaled as above). "
        "**Does not hold:** 1 not reproduced (Table 5; paper setting). "
        "**Could not tell:** 4 inconclusive — 2 underpowered (Table 4, Fig. 3; scaled, 2 regimes); "
        "1 budget (Thm 3.8; paper setting); 1 did not train (App. D.4; scaled as above). "
        "**Not testable here:** 1 statement (§6; paper setting).")
    # the counts in the paragraph add up to the paper claims of the ledger (here one statement each)
    numbers = [int(n) for n in re.findall(r"(\d+) (?:reproduced|partly|not reproduced|underpowered|budget|did not "
                                          r"train|statement)\b", text)]
    assert sum(numbers) == 9
    assert "\n" not in text  # one paragraph
    # on the paper's own page the title is not a link to itself; the landing lists the five papers only
    assert pages.bottom_line_markdown("angle", page=common.paper_page("angle"), root=root).startswith("**AnglE** — ")
    assert pages.bottom_lines_markdown(root=root) == text
    assert pages.paper_page_markdown("angle", root).split("\n\n")[1].startswith("**AnglE** — 9 of the paper's")


def test_a_paper_without_claims_and_verdicts_that_are_absent():
    assert site_summary.paragraph("X", []) == "**X:** no statement of the paper recorded yet."
    one = [{"kind": "paper", "verdict": "reproduced", "source": "Table 1", "regime": "paper setting"}]
    assert site_summary.paragraph("X", one) == ("**X** — 1 of the paper's statements tested. **Holds:** 1 reproduced "
                                                "(Table 1; paper setting). **Does not hold:** none. "
                                                "**Could not tell:** none.")


def test_the_bottom_line_counts_a_statement_once_and_says_how_many_rows_test_it(tmp_path, monkeypatch):
    """Two rows of one statement (a ``-raw`` twin with the same source and paper value) are one statement in the
    bottom line, by the verdict of the row closer to the paper's setting; the paragraph says how many rows and
    split statements stand behind its counts."""
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    ledger = Ledger("angle", "01-x", profile="cpu", seeds=[0])
    ledger.claim("g", "gap", 1, 1.0, within(1, 0.1), kind="paper", source="Table 4: 2 - 1", regime=MINILM)
    ledger.claim("g-raw", "gap", 1, 5.0, within(1, 0.1), kind="paper", source="Table 4: 2 - 1",
                 regime="raw MLM encoder built here, every layer trained")
    ledger.claim("h", "other", 1, 1.0, within(1, 0.1), kind="paper", source="§5")
    ledger.save()
    text = pages.bottom_line_markdown("angle", page=common.paper_page("angle"), root=tmp_path)
    assert text.startswith("**AnglE** — 2 of the paper's statements tested (3 evidence rows, 1 split). ")
    assert "**Does not hold:** 1 not reproduced (Table 4; scaled: raw MLM encoder built here" in text
    assert "**Holds:** 1 reproduced (§5; paper setting)." in text


@pytest.mark.parametrize(("source", "place"), [
    ("Table 4, Qwen3-Embedding-4B, Emolit, CD-r, SINCERE nGPT - GPT: 0.519 - 0.122", "Table 4"),
    ("Fig. 6 caption", "Fig. 6"), ("§4.2", "§4.2"), ("App. D.4", "App. D.4"), ("Thm F.1", "Thm F.1"),
    ("circumplex | Fig. 7 caption", "Fig. 7"), ("abstract, first sentence", "abstract"),
])
def test_places_in_the_paper(source, place):
    assert site_summary.location(source) == place


@pytest.mark.parametrize(("reason", "group"), [
    ("underpowered: minimum detectable effect 0.31 > the paper's |0.05| with 3 seeds", "underpowered"),
    ("budget: slope over the last 33% +0.002/step", "budget"), ("did not train: loss 0.003 -> 0.003", "did not train"),
    ("did not train: a; budget: b", "did not train"), ("ceiling: R@10 = 1 for every system", "ceiling"),
    ("the CI [+0.1, +0.2] covers both 0 and the paper's +0.5", site_summary.WIDE),
    ("the CI [0.49, 0.61] straddles the band 0.5 ± 0.05", site_summary.WIDE),
    ("3 seeds per objective cannot order two systems", site_summary.OTHER),
])
def test_reasons_are_grouped_by_their_lead(reason, group):
    assert site_summary.reason_group(reason) == group


def test_regimes_in_words():
    ps = {"regime": "paper setting"}
    a, b = {"regime": "scaled: A"}, {"regime": "scaled: B"}
    assert site_summary.regime_phrase([ps, ps]) == "paper setting"
    assert site_summary.regime_phrase([a, a]) == "scaled: A"
    assert site_summary.regime_phrase([a, b]) == "scaled, 2 regimes"
    assert site_summary.regime_phrase([ps, a, b]) == "1 in the paper setting, 2 scaled in 2 regimes"
    named = set()
    assert site_summary.regime_phrase([a], named) == "scaled: A" and named == {"A"}
    assert site_summary.regime_phrase([ps, a], named) == "1 in the paper setting, 1 scaled as above"
    many = [{"source": s} for s in ("Table 1", "Table 1", "Table 2", "§3", "§4", "§5", "Fig. 1")]
    assert site_summary.places(many) == "Table 1, Table 2, §3, §4 and 2 more"


# --------------------------------------------------------------------------------------------- the one formatter
@pytest.mark.parametrize(("value", "half", "text"), [
    (0.140066, 0.0216, "0.140"), (81.6123, 0.661, "81.61"), (81.6123, 3.2, "81.6"), (1234.7, 41, "1235"),
    (0.5, 0, "0.500"), (0.5, float("nan"), "0.500"), (2e-5, 1e-5, "2.00 × 10⁻⁵"), (-0.2647, 0.05, "−0.265"),
])
def test_a_number_carries_the_digits_its_interval_supports(value, half, text):
    assert fmt.measured(value, half) == text


def test_the_estimate_and_the_measured_value_share_one_rule():
    assert fmt.ci_decimals(0.0216) == 3 and fmt.ci_decimals(0.66) == 2 and fmt.ci_decimals(41) == 0
    assert fmt.ci_decimals(0) is None and fmt.ci_decimals(1e-9) == 6 and fmt.ci_decimals(0.1, scale=2e5) is None
    assert fmt.estimate(0.140066, 0.118467, 0.161665).split(" ")[0] == fmt.measured(0.140066, 0.0216)
    assert fmt.measured(0.12, 0.07, signed=True) == "+0.120"


def test_machine_length_floats_are_shortened_in_ledger_text_and_found_where_left():
    text = "ratio 0.2409999966621399. arXiv 2309.12871, version 1.2.3, Table 14: 77.08 - 73.46, +0.1234567"
    assert fmt.tidy_numbers(text) == ("ratio 0.241. arXiv 2309.12871, version 1.2.3, Table 14: 77.08 - 73.46, "
                                      "+0.123")
    assert fmt.long_numbers(text) == ["0.2409999966621399", "+0.1234567"]
    assert fmt.long_numbers(fmt.tidy_numbers(text)) == []
    assert fmt.significant_digits("0.0950") == 3 and fmt.significant_digits("1.000000") == 7
    assert fmt.ledger_text("s*_ij = 0.30000000000000004") == "s\\*\\_ij = 0.300"


def test_the_landing_page_answers_per_paper_and_leaves_the_claims_to_the_paper_pages(tmp_path, monkeypatch):
    """The landing page, executed on the fixture ledger (COMPANION_RESULTS_DIR), opens with the bottom lines and
    lists no claim: its tables are the scoreboard (one row per paper and regime) and the counts kept apart."""
    root = _ledger(tmp_path, monkeypatch)
    printed = checks.execute_page(REPO_ROOT / common.LANDING)
    paragraph = pages.bottom_line_markdown("angle", root=root)
    assert paragraph.split("** — ", 1)[1] in printed  # the same counts, places and regimes as the ledger
    assert printed.index("of the paper's statements tested") < printed.index("| paper | regime |")
    table_rows = [line for line in printed.splitlines() if line.startswith("| ")]
    assert len(table_rows) == 1 + 2 + 1 + 1  # scoreboard header + AnglE's two regimes, the other counts' header + AnglE
    for claim in ("one", "two", "three", "four"):
        assert f"| {claim} " not in printed
    source = (REPO_ROOT / common.LANDING).read_text(encoding="utf-8")
    assert "bottom_lines_markdown()" in source and "landing_claims_markdown" not in source
