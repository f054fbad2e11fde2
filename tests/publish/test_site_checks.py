"""The offline checks of `site --check` added for a site read to the end: formulas, cut-off cells, machine-length
floats and bare reprs, wrapping styles, sidebar entries, frozen pages and their inputs stamp, a clean working
tree. Each check fails on a small case of the defect and passes on the fixed one. Then the whole check: every
notebook listed once, and what it reports on a small broken site."""

import json

import nbformat
import pandas as pd
import pytest
import yaml

from companion.publish import apidoc
from companion.publish.notebooks import list_notebooks, twin_path
from companion.publish.site import checks, common, config, markdown, offline, pages, render
from companion.results import Ledger, within
from companion.settings import REPO_ROOT


# --------------------------------------------------------------------------------------------- formulas
def test_a_formula_with_a_space_inside_its_dollar_is_reported():
    bad = "| f | AnglE Eq. 6: $\\frac{1}{D}\\sum_k \\vert z_k\\vert $ with $\\gamma_k$. |"
    problems = markdown.math_problems(bad, "site/api/x.qmd")
    assert len(problems) == 1 and "has a space just inside a dollar sign" in problems[0]
    assert markdown.math_problems("$ \\alpha$ leads", "p") != []


@pytest.mark.parametrize("good", [
    "| f | $\\frac{1}{D}\\sum_k \\vert z_k\\vert$ with $\\gamma_k=\\vert z_k\\vert /\\vert w_k\\vert$. |",
    "It costs $5 and $10 for two.", "Code: `$x $` stays code.", "$$\n\\vert x\\vert \n$$",
    "An escaped \\$ and $x^2$.",
])
def test_formulas_pandoc_reads_pass(good):
    assert markdown.math_problems(good, "p") == []


def test_the_api_pages_generate_formulas_pandoc_reads():
    assert apidoc._summary_row("| [f](#f) | $\\|z\\|/\\|w\\|$ and $\\|x\\|$ |") == (
        "| [f](#f) | $\\vert z\\vert /\\vert w\\vert$ and $\\vert x\\vert$ |")
    for page in apidoc.pages():
        text = (REPO_ROOT / page).read_text(encoding="utf-8")
        assert markdown.math_problems(text, page) == [], page


# --------------------------------------------------------------------------------------------- nothing cut off
def test_a_table_cell_cut_short_is_reported():
    cut = common.md_table(["claim", "verdict"], [["one", "**inconclusive** — with a head of widt…"]])
    problems = markdown.truncation_problems(cut, "index.qmd")
    assert len(problems) == 1 and "1 cell cut short" in problems[0] and "head of widt…" in problems[0]
    whole = common.md_table(["claim", "verdict"], [["one", "**inconclusive** — with a head of width 64 (the paper's)"]])
    assert markdown.truncation_problems(whole, "index.qmd") == []


def test_a_dataframe_output_cut_short_is_reported():
    frame = pd.DataFrame({"reason": ["x" * 120, "short"]})
    with pd.option_context("display.max_colwidth", 50):  # what a notebook shows by default
        cut = frame._repr_html_()
    assert "1 cell cut short" in markdown.html_truncation_problems(cut, "nb, cell 3")[0]
    with pd.option_context("display.max_colwidth", None, "display.max_rows", 2, "display.min_rows", 2):
        elided = pd.DataFrame({"a": range(5)})._repr_html_()
        assert "cut short or elided" in markdown.html_truncation_problems(elided, "nb")[0]
        assert markdown.html_truncation_problems(frame._repr_html_(), "nb, cell 3") == []


def test_the_stylesheet_must_wrap_outputs_and_cells(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "styles.css").write_text(".table a { word-break: normal; }\n")
    css = {"format": {"html": {"css": "site/styles.css"}}}
    problems = render.wrap_problems(tmp_path, css)
    assert len(problems) == 3 and "wrap instead of scrolling sideways" in problems[0]
    assert "MathJax's hidden copy of a formula" in problems[2]
    assert render.wrap_problems(REPO_ROOT, config.build_config()) == []


# --------------------------------------------------------------------------------------------- numbers and reprs
def test_a_machine_length_float_in_a_page_is_reported():
    problems = markdown.number_problems("| ratio | 0.2409999966621399 |", "index.qmd (rendered)")
    assert len(problems) == 1 and "e.g. 0.2409999966621399" in problems[0]
    assert markdown.number_problems("| ratio | 0.241 [0.236, 0.246] | arXiv 2309.12871 |", "p") == []


def _executed(outputs):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = outputs
    nb.cells = [cell]
    return json.loads(nbformat.writes(nb))


def test_bare_reprs_footers_and_long_floats_in_notebook_outputs_are_reported():
    bare = nbformat.v4.new_output("execute_result", {"text/plain": "'reproduced'"}, execution_count=1)
    footer = nbformat.v4.new_output("execute_result", {"text/plain": "a    3\nName: count, dtype: int64"},
                                    execution_count=2)
    floats = nbformat.v4.new_output("stream", name="stdout", text="ratio 0.2409999966621399\n")
    problems = render.notebook_text_problems(_executed([bare, footer, floats]), "nb")
    assert [p.split(": ", 1)[1][:30] for p in problems] == ["shows a bare quoted string ('r", "shows a pandas repr with its d",
                                                            "1 number printed to 7 or more "]
    shown = nbformat.v4.new_output("display_data", {"text/markdown": "**reproduced**: ratio 0.241",
                                                    "text/plain": "<IPython.core.display.Markdown object>"})
    table = nbformat.v4.new_output("execute_result", {"text/html": pd.DataFrame({"a": [0.241]}).to_html(),
                                                      "text/plain": "a 0.241"}, execution_count=3)
    assert render.notebook_text_problems(_executed([shown, table]), "nb") == []


# --------------------------------------------------------------------------------------------- navigation
def test_a_sidebar_entry_too_long_to_wrap_is_reported(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "a.qmd").write_text("---\npage-layout: full\n---\n\n# companion.papers.circumplex.geometry {#x}\n")
    sidebar = {"website": {"sidebar": [{"id": "api", "contents": ["site/a.qmd"]}]}}
    problems = checks.sidebar_problems(sidebar, tmp_path)
    assert len(problems) == 1 and "'companion.papers.circumplex.geometry'" in problems[0]
    sidebar["website"]["sidebar"][0]["contents"] = [{"href": "site/a.qmd", "text": "papers: circumplex geometry"}]
    assert checks.sidebar_problems(sidebar, tmp_path) == []


def test_a_sidebar_entry_that_wraps_to_many_lines_is_reported(tmp_path):
    (tmp_path / "n.qmd").write_text("# x\n")
    title = "Mapping the Circumplex of Affect — 02 · Experiments (§4, Tables 1 and 4, Figures 1 and 4)"
    sidebar = {"website": {"sidebar": [{"id": "p", "contents": [{"href": "n.qmd", "text": title}]}]}}
    problems = checks.sidebar_problems(sidebar, tmp_path)
    assert len(problems) == 1 and f"has {len(title)} characters" in problems[0]
    sidebar["website"]["sidebar"][0]["contents"] = [{"href": "n.qmd", "text": "02 · Experiments"}]
    assert checks.sidebar_problems(sidebar, tmp_path) == []


def test_notebooks_get_short_sidebar_entries():
    class Nb:
        def __init__(self, stem, title):
            self.stem, self.title = stem, title

    assert config.sidebar_text(Nb("02-experiments", "Mapping the Circumplex of Affect — 02 · Experiments (§4, "
                                  "Tables 1 and 4)")) == "02 · Experiments"
    assert config.sidebar_text(Nb("01-angle", "SimACE §3: why an angle instead of a cosine?")) == \
        "01 · Why an angle instead of a cosine?"
    assert config.sidebar_text(Nb("02-x", "Supervised contrastive geometry: Hard vs Soft SupCon")) == \
        "02 · Supervised contrastive geometry"
    long = config.sidebar_text(Nb("04-x", "Geometry metrics, X-CLR label geometries and kernel PCA of digits"))
    assert long == "04 · Geometry metrics, X-CLR label geometries…" and len(long) <= checks.SIDEBAR_ENTRY_CHARS


def test_the_site_sidebar_is_readable_and_its_entries_resolve():
    built = config.build_config()
    assert checks.sidebar_problems(built) == []
    api = next(bar for bar in built["website"]["sidebar"] if bar["id"] == "api")
    texts = [item["text"] for item in api["contents"] if isinstance(item, dict)]
    assert "papers: weighted cl distance geometry" in texts and len(texts) == len(apidoc.modules())
    assert all(len(w) <= checks.SIDEBAR_WORD_CHARS for t in texts for w in t.split())


# --------------------------------------------------------------------------------------------- frozen pages
def test_freeze_must_reuse_the_pages_output():
    assert "every render re-runs the Python" in checks.freeze_problems({"execute": {"freeze": False}})[0]
    assert checks.freeze_problems({}) != []
    assert checks.freeze_problems({"execute": {"freeze": "auto"}}) == [
        "_quarto.yml: execute: warning is not false; a Python warning raised while a computed page renders (tqdm's "
        "names the build machine's paths) would be printed into the page"]
    assert checks.freeze_problems({"execute": {"freeze": "auto", "warning": False}}) == []
    assert checks.freeze_problems(config.build_config()) == [] and config.build_config()["execute"]["freeze"] == "auto"


def test_long_code_lines_must_wrap(tmp_path):
    (tmp_path / "site").mkdir()
    long = "python -m companion run --profile smoke " + "# " + "x" * checks.CODE_CHARS
    (tmp_path / "site" / "a.qmd").write_text(f"# A\n\n```bash\n{long}\n```\n\n{'prose ' * 40}\n")
    (tmp_path / "site" / "b.qmd").write_text("# B\n\n```python\nprint(1)\n```\n")
    problems = checks.code_overflow_problems({}, tmp_path, ["site/a.qmd", "site/b.qmd"], [])
    assert len(problems) == 1 and "1 code line(s)" in problems[0] and "site/a.qmd" in problems[0]
    assert "code-overflow: wrap" in problems[0]
    assert checks.code_overflow_problems({}, tmp_path, ["site/b.qmd"], []) == []  # short lines fit
    wrapped = {"format": {"html": {"code-overflow": "wrap"}}}
    assert checks.code_overflow_problems(wrapped, tmp_path, ["site/a.qmd"], []) == []
    assert checks.code_lines("a\n```py\nx = 1\n```\nb\n~~~~\n```\ny\n~~~~\n") == ["x = 1", "```", "y"]
    built = config.build_config()
    assert built["format"]["html"]["code-overflow"] == "wrap" and checks.code_overflow_problems(built) == []


def test_a_render_leaves_the_working_tree_clean(tmp_path):
    assert checks.gitignore_problems(tmp_path, {}) == []  # not a checkout: no working tree
    (tmp_path / ".git").mkdir()
    assert len(checks.gitignore_problems(tmp_path, {})) == 4
    (tmp_path / ".gitignore").write_text("_site/\n.quarto/\n")
    problems = "\n".join(checks.gitignore_problems(tmp_path, {"project": {"output-dir": "_site"}}))
    assert "Quarto's scratch folder (/.quarto/)" in problems and "appends it to .gitignore" in problems
    assert "the frozen outputs" in problems and "temporary notebooks" in problems and "_site" not in problems
    (tmp_path / ".gitignore").write_text("/.quarto/\n/_freeze/\n**/*.quarto_ipynb\n")
    assert [p for p in checks.gitignore_problems(tmp_path, {}) if "output folder _site/" in p]
    assert checks.gitignore_problems(REPO_ROOT, config.build_config()) == []


def _project(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    path = tmp_path / "notebooks" / "angle" / "01-x.ipynb"
    path.parent.mkdir(parents=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Angle 01"), nbformat.v4.new_code_cell('ledger.claim("a", "one")')]
    nbformat.write(nb, path)
    twin_path(path).write_text("# %%\n")
    ledger = Ledger("angle", "01-x", profile="cpu", seeds=[0])
    ledger.claim("a", "one", 1, 1.0, within(1, 0.1), kind="paper", source="Table 4")
    ledger.save()
    (tmp_path / "index.qmd").write_text("---\ntitle: x\n---\n\n```{python}\nfrom companion.results import scoreboard\n"
                                        "scoreboard(by_regime=True)\n```\n")
    return tmp_path


def _stamp_problems(root):
    return [p for p in checks.check(root, execute=False) if "stamp" in p]


def test_new_results_change_the_computed_pages_stamp(tmp_path, monkeypatch):
    root = _project(tmp_path, monkeypatch)
    pages.write_sidebar(root)
    landing = (root / "index.qmd").read_text()
    assert landing.startswith("---\ntitle: x\n---\n\n<!-- site inputs: ") and _stamp_problems(root) == []
    (root / "index.qmd").write_text(config.INPUTS_STAMP.sub("", landing))
    assert "a computed page without an inputs stamp" in _stamp_problems(root)[0]
    pages.write_sidebar(root)
    assert (root / "index.qmd").read_text() == landing
    assert config.INPUTS_STAMP.search((root / common.paper_page("angle")).read_text())
    ledger = Ledger("angle", "01-x", profile="cpu", seeds=[0])
    ledger.claim("a", "one", 1, 5.0, within(1, 0.1), kind="paper", source="Table 4")  # a new run, a new verdict
    ledger.save()
    problems = [p for p in checks.check(root, execute=False) if "stamp" in p or "out of date" in p]
    assert any("index.qmd: its inputs" in p and "would show the old results" in p for p in problems)
    assert any(f"{common.paper_page('angle')} is out of date" in p for p in problems)
    pages.write_sidebar(root)
    assert _stamp_problems(root) == [] and (root / "index.qmd").read_text().count("site inputs:") == 1
    text = (root / "index.qmd").read_text()
    assert config.stamp_inputs(text, config.inputs_digest(root)) == text  # stamping twice changes nothing


def test_a_page_without_python_needs_no_stamp():
    assert config.stamp_problems("site/x.qmd", "---\ntitle: x\n---\n\nJust text.\n", "abc") == []
    assert yaml.safe_load(config.render_config().split("\n", 1)[1])["execute"] == {"freeze": "auto", "warning": False}


# --------------------------------------------------------------------------------------------- the whole site
def _write_nb(path, body):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Tiny section\nA test notebook."),
                nbformat.v4.new_code_cell('profile = "cpu"\nsteps = None', metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


@pytest.mark.slow
def test_site_configuration_lists_every_notebook_once():
    assert checks.check() == []
    built = config.build_config()
    listed = [checks._href(item) for bar in built["website"]["sidebar"] for item in bar["contents"]]
    listed_notebooks = [item for item in listed if item.endswith(".ipynb")]
    assert sorted(listed_notebooks) == sorted(str(nb.path.relative_to(REPO_ROOT)) for nb in list_notebooks())
    papers = list(dict.fromkeys(nb.paper for nb in list_notebooks()))
    paper_bars = [bar for bar in built["website"]["sidebar"] if bar["id"] != "api"]  # the API reference's own
    assert [bar["contents"][0] for bar in paper_bars] == [common.paper_page(p) for p in papers]


def test_site_check_detects_problems(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.companion]\nrepository = "o/r"\n')  # badges are required
    (tmp_path / "notebooks" / "angle").mkdir(parents=True)
    _write_nb(tmp_path / "notebooks" / "angle" / "01-a.ipynb", "1")
    (tmp_path / "index.qmd").write_text("no table here")
    (tmp_path / "_quarto.yml").write_text("website:\n  sidebar:\n  - contents: [notebooks/angle/09-gone.ipynb]\n")
    problems = "\n".join(checks.check(tmp_path))
    assert "01-a.ipynb is listed 0 times" in problems
    assert "09-gone.ipynb, which does not exist" in problems
    assert "does not build its table from the ledger" in problems
    (tmp_path / "index.qmd").write_text("from companion.results import scoreboard\nscoreboard()")
    assert "does not split its scoreboard by regime" in "\n".join(checks.check(tmp_path))
    assert "out of date" in problems
    assert "site/errata.qmd is missing" in problems and "site/papers/angle.qmd is missing" in problems
    assert "01-a.ipynb: the first cell has no Colab badge" in problems
    assert "01-a.ipynb: the second cell is not the current Colab set-up cell" in problems


def test_site_check_reports_unlisted_pages_and_dangling_links(tmp_path):
    (tmp_path / "notebooks" / "angle").mkdir(parents=True)
    _write_nb(tmp_path / "notebooks" / "angle" / "01-a.ipynb", "1")
    pages.write_sidebar(tmp_path)
    for page in common.EXTRA_PAGES:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text("from companion.results import scoreboard; scoreboard(by_regime=True)")
    for asset in (common.STYLESHEET, offline.THEME_SCSS, *offline.INCLUDES):  # the site's own files
        (tmp_path / asset).write_bytes((REPO_ROOT / asset).read_bytes())
    assert not [p for p in checks.check(tmp_path) if "site/" in p or "index.qmd" in p]
    (tmp_path / common.ERRATA_PAGE).write_text("see [the notebook](../notebooks/angle/09-gone.ipynb)")
    written = yaml.safe_load((tmp_path / common.CONFIG).read_text())
    written["website"]["navbar"]["left"] = [i for i in written["website"]["navbar"]["left"]
                                            if i.get("href") != common.ERRATA_PAGE]
    (tmp_path / common.CONFIG).write_text(yaml.safe_dump(written))
    problems = "\n".join(checks.check(tmp_path))
    assert "site/errata.qmd: link to '../notebooks/angle/09-gone.ipynb' does not resolve" in problems
    assert "site/errata.qmd is not in the navigation" in problems
