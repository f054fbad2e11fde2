"""The offline stand-ins for a real `quarto render` (companion.publish.site.render and .markdown) and the
reader-facing pages they guard: each check fails on a small synthetic case of what a render gets wrong and passes
on a good one."""

import json

import matplotlib
import nbformat
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from companion.publish import notebooks  # noqa: E402
from companion.publish.site import checks, common, config, errata, markdown, pages, render  # noqa: E402
from companion.results import VERDICTS, Ledger, holds, within  # noqa: E402
from companion.settings import REPO_ROOT  # noqa: E402

pytestmark = pytest.mark.slow  # renders site pages


def _notebook(path, markdown_cells=(), outputs=()):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(m) for m in markdown_cells]
    code = nbformat.v4.new_code_cell("x = 1")
    code.outputs = list(outputs)
    nb.cells.append(code)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


# --------------------------------------------------------------------------------------------- nbconvert
def test_notebook_conversion_must_succeed(tmp_path):
    good = _notebook(tmp_path / "notebooks" / "angle" / "01-good.ipynb", ["# Title\n\nText."])
    assert render.notebook_markdown(good).startswith("# Title")
    assert render.notebook_problems(good, tmp_path) == []
    broken = tmp_path / "notebooks" / "angle" / "02-broken.ipynb"
    nb = json.loads(good.read_text())
    nb["cells"][1]["outputs"] = [{"output_type": "no-such-output"}]  # not in the notebook schema
    broken.write_text(json.dumps(nb))
    problems = render.notebook_problems(broken, tmp_path)
    assert len(problems) == 1 and "nbconvert cannot convert it to markdown" in problems[0]


# --------------------------------------------------------------------------------------------- lists
def test_a_list_after_running_text_is_reported_once_per_paragraph():
    bad = "**Verdicts** (cpu run):\n* **Checks**: passed\n  continued\n* **Paper**: partly\n"
    problems = markdown.list_problems(bad, "nb cell 1")
    assert len(problems) == 1 and problems[0].startswith("nb cell 1, line 2: the list item '* **Checks**")
    assert markdown.list_problems("Steps:\n1. one\n2. two", "x")[0].startswith("x, line 2")
    assert markdown.list_problems("Note:\n- a dash item", "x") != []


@pytest.mark.parametrize("good", [
    "**Verdicts** (cpu run):\n\n* **Checks**: passed\n  continued\n* **Paper**: partly\n",
    "## Heading\n* a list right after a heading\n",
    "* item\n  continuation line\n* next item\nlazy continuation\n* third\n",
    "* item\n\n  second paragraph of the item\n* next\n",
    "Text with *emphasis* at a line start:\n*partly* holds\n",
    "A rule below:\n\n* * *\n",
    "```python\nx = 1\n* not markdown\n```\n",
    "Years are not lists:\n2024. A sentence.\n",
])
def test_lists_that_pandoc_reads_as_lists_pass(good):
    assert markdown.list_problems(good, "x") == []


def test_a_bold_run_in_after_a_finished_sentence_is_reported():
    bad = "The set-up is described above.\n**Verdicts** (cpu): reproduced.\n"
    assert markdown.run_in_problems(bad, "nb")[0].startswith("nb, line 2: '**Verdicts**")
    assert markdown.run_in_problems("The set-up is described above.\n\n**Verdicts** (cpu): reproduced.", "nb") == []
    assert markdown.run_in_problems("Heads are trained with a\n**frozen** encoder.", "nb") == []  # mid-sentence


# --------------------------------------------------------------------------------------------- anchors
@pytest.mark.parametrize(("heading", "ident"), [
    ("Scoreboard", "scoreboard"),
    ("2 · Fig 5b: V-Measure vs. the number of labels", "fig-5b-v-measure-vs.-the-number-of-labels"),
    ("§5.1 The *ring*: `pi/E` and [its margin](x.qmd)", "the-ring-pie-and-its-margin"),
    ("Paper's τ = 0.9 — Cor. 3.9", "papers-τ-0.9-cor.-3.9"),
    ("123", "section"),
    ("Über $\\tau$ -- ok...", "über-tau-ok"),
    ("A_b c.d", "a_b-c.d"),
])
def test_pandoc_identifiers(heading, ident):
    assert markdown.pandoc_identifier(heading) == ident


def test_heading_ids_number_duplicates_and_read_explicit_ids():
    ids = markdown.heading_ids("## Claims\n\n## Claims\n\n### 1. Eq. 6 — confirmed {#erratum-angle-eq6}\n\n"
                             "::: {#box .callout-note}\n:::\n\n```{python}\n#| label: fig-verdicts\n```\n")
    assert ids == {"claims", "claims-1", "erratum-angle-eq6", "box", "fig-verdicts"}


def test_anchor_links_need_their_heading(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "errata.qmd").write_text("---\ntitle: E\n---\n\n## Angle\n\n### Eq. 6 {#erratum-angle-eq6}\n")
    _notebook(tmp_path / "notebooks" / "angle" / "01-x.ipynb", ["# Title\n\n## Per-pair forces"])
    page = tmp_path / "index.qmd"
    page.write_text("x")
    ids = render._Ids(tmp_path, {})
    good = ("[a](site/errata.qmd#erratum-angle-eq6) [b](site/errata.qmd#angle) "
            "[c](notebooks/angle/01-x.ipynb#per-pair-forces) [d](#scoreboard) [e](https://example.org/#x)")
    here = {"scoreboard"}
    ids_of = lambda target: here if target is None else ids(target)  # noqa: E731
    assert markdown.anchor_problems(good, tmp_path, tmp_path, "index.qmd", ids_of) == []
    bad = "[a](site/errata.qmd#erratum-angle-eq7) [c](notebooks/angle/01-x.ipynb#Per-pair-forces) [d](#nowhere)"
    problems = markdown.anchor_problems(bad, tmp_path, tmp_path, "index.qmd", ids_of)
    assert [p.split("id ")[-1] for p in problems] == ["'erratum-angle-eq7'", "'Per-pair-forces'", "'nowhere'"]
    assert "site/errata.qmd has no heading" in problems[0] and "this page has no heading" in problems[2]


# --------------------------------------------------------------------------------------------- tracebacks
def test_tracebacks_and_warnings_in_page_output_are_reported():
    assert render.output_problems("| a |\n|---|\n| 1 |\n", "index.qmd") == []
    shown = "Traceback (most recent call last):\n  File \"x\", line 1\nValueError: no\n"
    assert render.output_problems(shown, "index.qmd") == ["index.qmd: its executed output shows a traceback"]
    warned = "/x/site.py:3: RuntimeWarning: invalid value encountered\n"
    assert render.output_problems(warned, "p") == ["p: its executed output shows a RuntimeWarning"]


def test_stored_errors_and_tracebacks_in_notebooks_are_reported(tmp_path):
    clean = _notebook(tmp_path / "a.ipynb", outputs=[nbformat.v4.new_output("stream", text="done\n")])
    assert render.notebook_output_problems(json.loads(clean.read_text()), "a") == []
    error = nbformat.v4.new_output("error", ename="ValueError", evalue="no", traceback=["ValueError: no"])
    printed = nbformat.v4.new_output("stream", name="stderr", text="Traceback (most recent call last):\n  ...\n")
    bad = _notebook(tmp_path / "b.ipynb", outputs=[error, printed])
    assert render.notebook_output_problems(json.loads(bad.read_text()), "b") == [
        "b, cell 1: a stored error output (ValueError)", "b, cell 1: a stored output shows a traceback"]


def test_site_check_executes_pages_and_reports_their_tracebacks(tmp_path):
    page = tmp_path / "page.qmd"
    page.write_text("```{python}\nimport traceback, sys\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n"
                    "    traceback.print_exc()\nprint('| a |')\n```\n")
    errors = __import__("io").StringIO()
    printed = checks.execute_page(page, stderr=errors)
    assert printed.startswith("| a |") and render.output_problems(printed + errors.getvalue(), "page.qmd") == [
        "page.qmd: its executed output shows a traceback"]


# --------------------------------------------------------------------------------------------- tables
def _errata_like_table(columns=8):
    """The old errata table: eight equal columns, a linked paper title and a linked proving cell."""
    headers = ["#", "paper", "erratum", "the paper says", "computed", "status", "details", "proved in"][:columns]
    row = ["1", "[Circumplex of affect](site/papers/circumplex.qmd)",
           "§5.1 gives the ring's maximum margin pi/E as 30° for 12 classes; pi/12 is 15° (30° is 2 pi/E)",
           "30.0", '{"pi/E != stated value": true, "stated value == 2 pi/E": true}', "**confirmed**",
           "pi/E = 15.0 deg. Evidence: recomputed.", "[00-errata, cell 14](../notebooks/synthesis/00-errata.ipynb)"]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row[:columns]) + " |"] * 3)


def test_a_table_whose_links_break_mid_word_is_reported():
    problems = markdown.table_problems(_errata_like_table(), markdown.ARTICLE_CHARS, "site/errata.qmd")
    assert any("link text in column 'paper' breaks mid-word" in p for p in problems)
    # the site's stylesheet keeps link words whole; fewer columns give the text room
    good = common.md_table(["paper", "erratum"], [["[Circumplex of affect](x.qmd)", "a long erratum " * 8]])
    assert markdown.table_problems(good, markdown.ARTICLE_CHARS, "p", links_break=True) == []
    assert markdown.table_problems(_errata_like_table(3), markdown.FULL_CHARS, "p", links_break=False) == []


def test_a_table_with_too_many_columns_of_text_is_reported():
    crowded = common.md_table([f"c{i}" for i in range(9)], [["word " * 30] * 9])
    problems = markdown.table_problems(crowded, markdown.ARTICLE_CHARS, "p", links_break=False)
    assert len(problems) == 9 and all("too many columns for the page" in p for p in problems)
    assert markdown.table_problems(crowded, markdown.ARTICLE_CHARS * 2, "p", links_break=False) == []


def test_a_table_wider_than_the_page_is_reported():
    wide = common.md_table([f"column {i}" for i in range(9)], [["representational-compositionality"] * 9])
    problems = markdown.table_problems(wide, markdown.ARTICLE_CHARS, "p", links_break=False)
    assert len(problems) == 1 and "the table overflows" in problems[0]
    assert markdown.table_problems(common.md_table(["a", "b"], [["x", "y"]]), markdown.ARTICLE_CHARS, "p") == []


def test_a_formula_too_wide_for_its_table_cell_is_reported():
    # MathJax breaks no inline formula: a summary row holding a long one makes the table scroll sideways
    long = (r"$s(u,v) = \vert \sum_k \mathrm{Re}(u_k\bar v_k) + \sum_k \mathrm{Im}(u_k \bar v_k)\vert / "
            r"(\Vert u\Vert \Vert v\Vert ) = \vert \cos(u,v) + \cos(u, Jv)\vert$")
    assert markdown.math_width(long[1:-1]) > 70 > 10 > markdown.math_width(r"[0, \sqrt 2]")
    table = common.md_table(["Name", "Description"], [["[eq6_code](#eq6_code)", f"AnglE Eq. 6: {long}, in a range."]])
    problems = markdown.table_problems(table, markdown.ARTICLE_CHARS, "p", links_break=False)
    assert len(problems) == 1 and "the table overflows" in problems[0]
    # the same words without the formula wrap in the column (the formula goes below, as display math)
    short = common.md_table(["Name", "Description"], [["[eq6_code](#eq6_code)", r"AnglE Eq. 6, in $[0, \sqrt 2]$."]])
    assert markdown.table_problems(short, markdown.ARTICLE_CHARS, "p", links_break=False) == []


def test_wide_tables_get_dashes_that_follow_their_content():
    rows = [["a short one", "a much longer cell of running text " * 4]] * 2
    separator = common.md_table(["name", "text"], rows).split("\n")[1]
    dashes = [len(c) for c in separator.strip("|").split("|")]
    assert dashes[1] > 3 * dashes[0] and common.md_table(["a"], [["b"]]).split("\n")[1] == "|---|"


def test_page_width_and_stylesheet():
    assert render.page_width("---\ntitle: x\npage-layout: full\n---\n") == markdown.FULL_CHARS
    assert render.page_width("---\ntitle: x\n---\n") == markdown.ARTICLE_CHARS
    # a page in a sidebar keeps the article's column under page-layout: full (749 px at 1400 px in a real render)
    assert render.page_width("---\npage-layout: full\n---\n", in_sidebar=True) == markdown.ARTICLE_CHARS
    assert render.page_width("---\npage-layout: full\ntoc-location: body\n---\n", in_sidebar=True) == markdown.FULL_CHARS
    assert render.page_width("---\npage-layout: full\ntoc: false\n---\n", in_sidebar=True) == markdown.FULL_CHARS
    # a paper page is in its paper's sidebar: its contents go in the body so that its claims tables get the width
    paper = pages.render_paper_page("circumplex")
    assert "toc-location: body" in paper and render.page_width(paper, in_sidebar=True) == markdown.FULL_CHARS
    built = config.build_config()
    in_sidebar = render.sidebar_pages(REPO_ROOT, built)
    assert "site/api/companion.losses.angle.qmd" in in_sidebar and "site/papers/angle.qmd" in in_sidebar
    assert "index.qmd" not in in_sidebar
    assert render.link_words_break(REPO_ROOT, {"format": {"html": {}}}) is True
    assert render.link_words_break(REPO_ROOT, config.build_config()) is False


# --------------------------------------------------------------------------------------------- the figure
def _board(rows):
    """A scoreboard split by regime (``scoreboard(by_regime=True)``): ``(paper, regime, counts)`` rows."""
    return pd.DataFrame([{"paper": p, "regime": r, **dict(zip(VERDICTS, counts)), "total": sum(counts)}
                         for p, r, counts in rows])


def test_the_verdict_figure_has_every_table_row_in_order():
    board = _board([("synthesis", "paper setting", [14, 3, 0, 0, 0]),
                    ("circumplex", "scaled", [0, 16, 0, 9, 0]), ("circumplex", "paper setting", [2, 0, 0, 0, 2])])
    rows = pages.scoreboard_rows(board)
    # the five papers only (the synthesis is not one), each in the paper setting then scaled
    assert [(p, r) for p, r, _ in rows] == [("circumplex", "paper setting"), ("circumplex", "scaled")]
    fig = pages.verdict_figure(board=board)
    assert checks.figure_rows(fig) == [("Circumplex of affect (paper setting)", {"reproduced": 2, "not testable": 2}),
                                     ("Circumplex of affect (scaled)", {"partly": 16, "inconclusive": 9})]
    assert checks.figure_problems(board=board, figure=fig) == []
    plt.close("all")


def test_a_paper_with_one_regime_gets_a_row_of_zeros_for_the_other():
    board = _board([("angle", "paper setting", [1, 0, 0, 0, 0]), ("simace", "scaled", [0, 2, 0, 0, 0])])
    rows = pages.scoreboard_rows(board)
    assert [(p, r, c["total"]) for p, r, c in rows] == [("simace", "paper setting", 0), ("simace", "scaled", 2),
                                                       ("angle", "paper setting", 1), ("angle", "scaled", 0)]
    assert checks.figure_problems(board=board) == []
    plt.close("all")


def test_a_figure_that_misses_a_row_is_reported():
    board = _board([("circumplex", "paper setting", [2, 16, 0, 9, 2]), ("angle", "scaled", [14, 3, 0, 0, 0])])
    missing = pages.verdict_figure(board=board.iloc[:1])
    problems = checks.figure_problems(board=board, figure=missing)
    assert len(problems) == 1 and "not the scoreboard's rows" in problems[0]
    fig, ax = plt.subplots()  # the right rows, bottom-up (matplotlib's default) instead of the table's order
    labels = ["Circumplex of affect (paper setting)", "Circumplex of affect (scaled)", "AnglE (paper setting)",
              "AnglE (scaled)"]
    ax.barh([0, 1, 2, 3], [29, 0, 0, 17], label="reproduced")
    ax.set_yticks([0, 1, 2, 3], labels)
    assert "not the scoreboard's rows" in checks.figure_problems(board=board, figure=fig)[0]
    plt.close("all")


# --------------------------------------------------------------------------------------------- the pages
def _project(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    rel = "notebooks/angle/01-x.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Angle 01"),
                nbformat.v4.new_code_cell('ledger.claim("a", "one", 1, 1, within(1, 0))\n'
                                          'ledger.claim("b", "two", 1, 1, holds(), kind="check")\n'
                                          'ledger.claim("c", "three", 1, 1, holds(), kind="beyond")')]
    (tmp_path / rel).parent.mkdir(parents=True)
    nbformat.write(nb, tmp_path / rel)
    notebooks.twin_path(tmp_path / rel).write_text("# %%\n")
    ledger = Ledger("angle", "01-x", profile="cpu", seeds=[0, 1, 2])
    ledger.claim("a", "one", 0.095, 4.06951e-05, within(0, 1e-4), kind="paper", source="Table 4",
                 regime="a frozen MiniLM, 40 steps")
    ledger.claim("b", "two", None, {"identity": True, "parity": False}, holds(), kind="check")
    ledger.claim("c", "three", None, {"x": True}, holds(), kind="beyond")
    ledger.save()
    return tmp_path


def test_landing_claims_are_grouped_by_kind_with_numbers_in_words(tmp_path, monkeypatch):
    root = _project(tmp_path, monkeypatch)
    text = pages.landing_claims_markdown("angle", root=root)
    paper, rest = text.split("::: {.callout-note", 1)
    # the regime beside the verdict
    assert ("| one *(Table 4)* · [01-x, cell 2](notebooks/angle/01-x.ipynb) | 0.095 | 4.07 × 10⁻⁵ | "
            "[**✔ reproduced**]{.verdict .v-reproduced} | scaled (A) |") in paper
    assert "- **A**: a frozen MiniLM, 40 steps" in paper
    assert "two" not in paper and "three" not in paper
    assert 'title="Beyond the paper: 1 claim"' in rest and 'title="Our own checks: 1 claim"' in rest
    assert "| 1 of 2 hold; not: parity |" in rest and "**failed**" in rest
    assert "| [**✔ reproduced**]{.verdict .v-reproduced} | paper setting |" in rest  # a beyond claim has a regime too


def _erratum(verdict, **extra):
    return {"id": "angle:eq6", "kind": "erratum", "claim": "Eq. 6 is constant", "source": "angle | Eq. 6",
            "paper_value": "abs(z/w)", "ours": {"printed value == 1": True, "gradient == 0": False},
            "criterion": "both hold", "verdict": verdict, "note": "2000 pairs", **extra}


def test_errata_cards_say_the_computation_in_words(tmp_path):
    card = errata.erratum_card(_erratum("partly"), 3, "../", ("notebooks/synthesis/00-errata.ipynb", 4))
    assert card.startswith("### 3. Eq. 6 — partly confirmed {#erratum-angle-eq6}")
    assert "- **holds**: printed value == 1\n- **does not hold**: gradient == 0" in card
    assert "{\"" not in card and "[00-errata, cell 5](../notebooks/synthesis/00-errata.ipynb)" in card
    assert markdown.heading_ids(card) == {"erratum-angle-eq6"}


def test_errata_cards_show_the_rule_and_the_cells_side_by_side():
    sides = [{"rule": "formula", "a": "Eq. 4: abs(angle(z / w))", "b": "Eq. 6: abs(z / w / gamma)",
              "recomputed": "different; differ at a = 0.1: 0.97 vs 1"}]
    card = errata.erratum_card(_erratum("confirmed"), 1, "", None, found_by="formula; evidence", sides=sides)
    assert "**Found by:** the definitions sweep's `formula` rule, a paper notebook's measurement." in card
    assert "| rule | one place | the other place | recomputed |" in card
    assert "| `formula` | Eq. 4: abs(angle(z / w)) | Eq. 6: abs(z / w / gamma) |" in card
    assert card.index("**Side by side:**") < card.index("**Computed:**")
    assert markdown.table_problems(card, markdown.ARTICLE_CHARS, "card") == []
    assert errata.rule_words("average") == "the table auditor's `average` rule"


def test_the_errata_page_counts_per_paper_and_kind_and_lists_the_withdrawn(tmp_path, monkeypatch):
    from companion.results import Ledger, holds, minor_erratum

    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    ledger = Ledger("synthesis", "00-errata", profile="cpu")
    ledger.claim("angle:a", "a", None, True, holds(), kind="erratum", source="angle | Eq. 6")
    ledger.claim("angle:b", "b", None, True, minor_erratum("b", "rounding"), kind="erratum", source="angle | Table 2")
    ledger.save()
    folder = tmp_path / "data" / "synthesis"
    folder.mkdir(parents=True)
    (folder / "errata_classes.csv").write_text(
        "id,paper,class,into,rule,location,why\nangle:a,angle,erratum,,formula,Eq. 6,x\n"
        "angle:b,angle,minor,,average,Table 2,rounding\nangle:c,angle,withdrawn,,order,§4.3,a reading agrees\n"
        "angle:d,angle,merged,angle:a,formula,Eq. 4,one root cause\n", encoding="utf-8")
    page = errata.errata_markdown(root=tmp_path)
    assert "| paper | confirmed | minor | withdrawn | merged |" in page
    assert "| AnglE | 1 | 1 | 1 | 1 |" in page and "| all five papers | 1 | 1 | 1 | 1 |" in page
    assert "— minor {#erratum-angle-b}" in page and "**Found by:** the table auditor's `average` rule." in page
    assert "(`angle:c`, withdrawn): a reading agrees" in page
    assert "(`angle:d`, merged into [angle:a](#erratum-angle-a)): one root cause" in page


@pytest.mark.parametrize(("verdict", "status", "callout"), [
    ("confirmed", "confirmed", "callout-tip"), ("minor", "minor", "callout-note"),
    ("partly", "partly confirmed", "callout-warning"), ("not confirmed", "not confirmed", "callout-important"),
    ("inconclusive", "cannot tell", "callout-note")])
def test_every_erratum_verdict_has_its_card(verdict, status, callout):
    card = errata.erratum_card(_erratum(verdict, reason="the table body is not transcribed"), 1, "", None)
    assert f"— {status} {{#erratum-angle-eq6}}" in card and f"::: {{.{callout} " in card
    assert f"**Why {status}:** the table body is not transcribed" in card and "reproduced" not in card


def test_the_real_site_renders_cleanly():
    """The committed pages and notebooks pass every render check (what `site --check` runs)."""
    printed = {}
    for page in config.pages():
        errors = __import__("io").StringIO()
        printed[page] = checks.execute_page(REPO_ROOT / page, stderr=errors) + errors.getvalue()
    paths = [nb.path for nb in notebooks.list_notebooks()]
    assert render.render_problems(REPO_ROOT, config.pages(), paths, printed, strict=False) == []
    assert checks.figure_problems() == []


def test_reader_findings_are_reported_apart_and_fail_only_when_strict():
    """The stored notebooks' reader findings (machine-length numbers, cut tables, bare reprs, small figure text)
    are what ``site --check --strict`` adds to the problems; without --strict they are listed by ``checks.findings``."""
    found = checks.findings()
    paths = [nb.path for nb in notebooks.list_notebooks()]
    strict = [p for path in paths for p in render.notebook_problems(path, REPO_ROOT)]
    lenient = [p for path in paths for p in render.notebook_problems(path, REPO_ROOT, strict=False)]
    assert sorted(strict) == sorted(lenient + found)
    assert all(f.startswith("notebooks/") for f in found)


# --------------------------------------------------------------------------------------------- numbers in words
@pytest.mark.parametrize(("value", "text"), [
    (4.06951e-05, "4.07 × 10⁻⁵"), (7.36049e-09, "7.36 × 10⁻⁹"), (-2.5e6, "−2.50 × 10⁶"), (0.140066, "0.140"),
    (81.6123, "81.6"), (-0.5, "−0.500"), (2.0, "2"), (315850, "315\u2009850"), (True, "yes"), (float("nan"), "n/a"),
    (0.0, "0"), ("not run", "not run"),
])
def test_numbers_are_written_to_their_meaning(value, text):
    from companion.publish.site import format as fmt

    assert fmt.number(value) == text


def test_estimates_carry_the_decimals_their_interval_supports():
    from companion.publish.site import format as fmt

    assert fmt.estimate(0.140066, 0.118467, 0.161665, 3) == "0.140 [0.118, 0.162] (n = 3)"
    assert fmt.estimate(81.6123, 80.951, 82.273, 5) == "81.61 [80.95, 82.27] (n = 5)"
    assert fmt.estimate(-3.97, -4.14, -3.81) == "−3.97 [−4.14, −3.81]"
    assert fmt.estimate(2e-5, 1e-5, 3e-5) == "2.00 × 10⁻⁵ [1.00 × 10⁻⁵, 3.00 × 10⁻⁵]"
    assert fmt.number(0.095, printed=True) == "0.095" and fmt.number(80.06, printed=True) == "80.06"
    # a difference carries its sign; the minimum detectable effect and the interval over seeds and items follow
    assert fmt.estimate(0.12, 0.05, 0.19, mde=0.0812, signed=True) == "+0.120 [+0.050, +0.190], MDE 0.081"
    assert fmt.estimate(0.12, 0.05, 0.19, 3, mde=0.08, items=[0.031, 0.2], signed=True) == (
        "+0.120 [+0.050, +0.190] (n = 3), seeds and items [+0.031, +0.200], MDE 0.080")
    assert fmt.estimate(-1.5, -2, -1, mde=0.3, signed=True) == "−1.50 [−2.00, −1.00], MDE 0.30"
    assert fmt.estimate(0.5, n=1, mde=None, signed=True) == "+0.500 (n = 1)"


def test_claim_values_are_written_in_words():
    from companion.publish.site import format as fmt

    assert fmt.value_text({"a": True, "b": True}) == "both hold"
    assert fmt.value_text({"a": True, "b": False, "c": True}) == "2 of 3 hold; not: b"
    assert fmt.value_text({"SimACE sd": 0.0219, "SimCSE sd": 0.0459}) == "SimACE sd = 0.0219; SimCSE sd = 0.0459"
    assert fmt.value_text([76.95, 78.46], printed=True) == "76.95, 78.46" and fmt.value_text(None) == ""
    assert fmt.value_text("x" * 100, 20) == "x" * 19 + "…"
    assert fmt.md_escape("tau* = (C-1), s*_ij, e^{-x}, <= 1") == "tau\\* = (C-1), s\\*\\_ij, e\\^\\{-x\\}, \\<= 1"
