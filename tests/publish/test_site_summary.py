"""The findings in words (companion.publish.site.findings: titles, each paper's bottom line, the findings table)
read against a small ledger, the reason groups of companion.publish.site.summary, and the one formatter of numbers
with an uncertainty (companion.publish.site.format)."""

import re

import nbformat
import pytest

from companion import stats
from companion.publish.notebooks import twin_path
from companion.publish.site import checks, common, findings, pages
from companion.publish.site import format as fmt
from companion.publish.site import summary as site_summary
from companion.results import Ledger, holds, not_testable, within
from companion.settings import REPO_ROOT

MINILM = "MiniLM top layer, 640 steps"
TITLES = {"r1": "One", "r2": "Two", "p1": "Three", "n1": "Four", "u1": "Five", "u2": "Six", "b1": "Seven",
          "t1": "Eight", "x1": "Nine"}


def _titles(root, titles=None, paper="angle"):
    path = root / "data" / findings.TITLES_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = "".join(f"{paper},{k},{v}\n" for k, v in (TITLES if titles is None else titles).items())
    path.write_text("# titles\npaper,statement,title\n" + rows, encoding="utf-8")


def _ledger(tmp_path, monkeypatch):
    """AnglE's ledger: 2 reproduced (one scaled), 1 partly, 1 not reproduced, 4 inconclusive (2 underpowered, 1
    budget, 1 did not train), 1 not testable; and claims that are not the paper's (beyond, check, erratum); a title
    for each statement."""
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setattr(findings, "gpu_hours", lambda paper: 2.0)
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
    _titles(tmp_path)
    return tmp_path


def test_each_statement_has_its_title_and_headline_verdict(tmp_path, monkeypatch):
    root = _ledger(tmp_path, monkeypatch)
    items = findings.statements_of("angle", root)
    assert [(s.statement, s.title, s.verdict) for s in items] == [
        ("r1", "One", "reproduced"), ("r2", "Two", "reproduced"), ("p1", "Three", "partly"),
        ("n1", "Four", "not reproduced"), ("u1", "Five", "inconclusive"), ("u2", "Six", "inconclusive"),
        ("b1", "Seven", "inconclusive"), ("t1", "Eight", "inconclusive"), ("x1", "Nine", "not testable")]
    assert [site_summary.reason_group(s.reason) for s in items[4:8]] == ["underpowered", "underpowered", "budget",
                                                                         "did not train"]
    assert findings.title_problems(root) == []


def test_the_bottom_line_names_what_holds_what_does_not_and_what_deciding_the_rest_would_take(tmp_path,
                                                                                               monkeypatch):
    root = _ledger(tmp_path, monkeypatch)
    text = pages.bottom_line_markdown("angle", root=root)
    seeds = re.search(r"about (\d+) seeds", findings.statements_of("angle", root)[4].reason).group(1)
    assert text == (
        "**[AnglE](site/papers/angle.qmd)** — "
        "**Holds** (2 reproduced and 1 partly, of 9 statements) — in the paper's setting: *One*; "
        "scaled (MiniLM top layer): *Two* and *Three* (partly). "
        "**Does not hold** (1) — in the paper's setting: *Four*. "
        f"**Undecided** (4 inconclusive) — more seeds would decide *Five* (about {seeds}) and *Six*; "
        "longer runs would decide *Seven* (the metric still moves at the end of the budget); "
        "1 stopped for another reason (1 did not train): *Eight*. "
        "**Not testable here** (1) — *Nine* (the paper's data are not public). "
        "Running its notebooks in the gpu profile (the paper's backbones and budgets) is estimated at about 2.0 "
        "H100 hours.")
    sentences = re.findall(r"\*\*(?:Holds|Does not hold|Undecided|Not testable here)\*\*|Running its", text)
    assert 3 <= len(sentences) <= 5 and "\n" not in text  # one paragraph of three to five sentences
    # on the paper's own page the title is not a link to itself; the landing lists the five papers only
    assert pages.bottom_line_markdown("angle", page=common.paper_page("angle"), root=root).startswith("**AnglE** — ")
    assert pages.bottom_lines_markdown(root=root) == text
    assert pages.paper_page_markdown("angle", root).split("\n\n")[1].startswith("**AnglE** — **Holds**")


def test_a_paper_without_statements_and_an_untitled_statement(tmp_path, monkeypatch):
    root = _ledger(tmp_path, monkeypatch)
    assert findings.bottom_line("simace", root=root) == "**SimACE:** no statement of the paper recorded yet."
    _titles(root, titles={**{k: v for k, v in TITLES.items() if k != "n1"}, "gone": "A statement renamed since"})
    items = findings.statements_of("angle", root)
    assert items[3].title == "four" and not items[3].titled  # the claim text stands in
    problems = findings.title_problems(root)
    assert len(problems) == 2
    assert "1 statement(s) without a title (e.g. 'n1')" in problems[0] and "'gone' is no statement" in problems[1]


def test_the_findings_table_counts_statements_by_verdict_and_the_errata_apart(tmp_path, monkeypatch):
    root = _ledger(tmp_path, monkeypatch)
    rows = [line for line in findings.findings_table("index.qmd", root).splitlines() if line.startswith("| ")]
    assert rows[1] == "| [AnglE](site/papers/angle.qmd) | 9 | 2 | 1 | 1 | 4 | 1 | 0 |"
    assert rows[2] == "| **all five** | **9** | **2** | **1** | **1** | **4** | **1** | **0** |"


def test_seeds_that_narrow_an_interval_to_a_band_by_hand():
    # 95 % t interval half-width t(0.975, n-1) * sd / sqrt(n) with sd = 1: n = 6 gives 2.571 / 2.449 = 1.050,
    # n = 7 gives 2.447 / 2.646 = 0.925 (t table values)
    assert findings._seeds_for_width(1.0, 1.0) == 7
    assert findings._seeds_for_width(1.0, 1.06) == 6
    assert findings._band("A > B (paper +0.137; tolerance ±0.0685: half)") == (0.0, 0.0685)
    assert findings._band("CI of ours inside −0.13 ± 0.49 (close)") == (-0.13, 0.49)


def test_regimes_in_a_few_words():
    assert findings.short_regime("paper setting") == "in the paper's setting"
    assert findings.short_regime("scaled: frozen all-MiniLM-L6-v2 backbone, head only (cls)") == \
        "scaled (frozen all-MiniLM-L6-v2 backbone)"
    assert findings.short_regime("scaled: raw MLM encoder built here (companion.mlm: 4 layers)") == \
        "scaled (raw MLM encoder built here)"


def test_the_readme_carries_the_generated_findings():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split(pages.FINDINGS_START, 1)[1].split(pages.FINDINGS_END, 1)[0].strip()
    # generated in a fresh process, so no state left by other tests (caches, patched modules) can reach it
    import subprocess
    import sys
    code = ("import sys; from companion.publish.site import pages; from companion import settings; "
            "sys.stdout.write(pages.readme_findings(settings.repo_root()))")
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           cwd=REPO_ROOT).stdout
    assert block == fresh.strip()
    top = readme.split("## ", 1)[0]
    assert pages.FINDINGS_START in top  # the findings come before any section, and so before any command
    assert readme.index("python -m companion scoreboard") < readme.index("--profile smoke")


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
    # a verdict's reason: a computed tolerance of six digits is shortened, the paper's printed numbers are kept
    reason = "magnitude +0.2782 is smaller than the paper's +3.62 by more than the tolerance 1.30277"
    assert fmt.ledger_text(reason, fmt.REASON_DIGITS) == reason.replace("1.30277", "1.30")
    assert fmt.ledger_text(reason) == reason


def test_the_landing_page_answers_first_and_leaves_the_claims_to_the_paper_pages(tmp_path, monkeypatch):
    """The landing page, executed on the fixture ledger (COMPANION_RESULTS_DIR), opens with the findings table, then
    the bottom lines, then the scoreboard by regime, and lists no claim."""
    _ledger(tmp_path, monkeypatch)
    printed = checks.execute_page(REPO_ROOT / common.LANDING)
    assert findings.findings_table("index.qmd") in printed
    paragraph = pages.bottom_line_markdown("angle")  # the page's own root: the checkout's titles
    assert paragraph in printed and "**Holds** (2 reproduced and 1 partly, of 9 statements)" in paragraph
    assert printed.index("| paper | statements |") < printed.index(paragraph) < printed.index("| paper | regime |")
    for claim in ("one", "two", "three", "four"):
        assert f"| {claim} " not in printed
    source = (REPO_ROOT / common.LANDING).read_text(encoding="utf-8")
    assert "bottom_lines_markdown()" in source and "landing_claims_markdown" not in source
