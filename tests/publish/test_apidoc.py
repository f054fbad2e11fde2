"""The API reference (companion.publish.apidoc) and the page "Use the objectives in your own training".

The generated pages must equal what quartodoc gives from the docstrings now, carry no reStructuredText left over,
and be in the site's navigation; the reST-to-markdown step is checked on small inputs; the hand-written page's
code runs as printed.
"""

from __future__ import annotations

import importlib
import re
import shutil

import pytest
import yaml

from companion import paper_registry as papers
from companion import st
from companion.publish import apidoc
from companion.publish.site import checks, common
from companion.settings import REPO_ROOT

pytestmark = pytest.mark.slow  # renders the API reference from every docstring

ROOT = REPO_ROOT


def _checkout(tmp_path):
    """A folder holding a copy of the package only: the API pages are generated from its sources."""
    shutil.copytree(ROOT / "companion", tmp_path / "companion", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_generated_pages_are_up_to_date_with_the_docstrings(tmp_path):
    written = apidoc.write_pages(_checkout(tmp_path))  # regenerate from a copy of the sources
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == sorted(apidoc.pages())
    for path in written:
        rel = path.relative_to(tmp_path).as_posix()
        assert (ROOT / rel).read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), \
            f"{rel} is out of date; run `python -m companion site`"
    assert apidoc.check(ROOT) == []


def test_check_reports_stale_missing_and_leftover_pages(tmp_path):
    apidoc.write_pages(_checkout(tmp_path))
    (tmp_path / apidoc.page_path("companion.st")).write_text("old text")
    (tmp_path / apidoc.INDEX).unlink()
    (tmp_path / apidoc.API_DIR / "companion.gone.qmd").write_text("x")
    problems = "\n".join(apidoc.check(tmp_path))
    assert "site/api/companion.st.qmd is out of date" in problems
    assert "site/api/index.qmd is missing" in problems
    assert "site/api/companion.gone.qmd documents no module" in problems


def test_a_root_without_the_package_has_no_reference(tmp_path):
    assert apidoc.pages(tmp_path) == [] and apidoc.write_pages(tmp_path) == [] and apidoc.check(tmp_path) == []
    assert apidoc.sidebar(tmp_path)["contents"] == [apidoc.USE_PAGE]
    assert [m["href"] for m in apidoc.navbar_item(tmp_path)["menu"]] == [apidoc.USE_PAGE]


def test_pages_document_every_loss_with_formula_and_example_and_no_rest_left():
    text = (ROOT / apidoc.page_path("companion.st")).read_text(encoding="utf-8")
    for name in st.__all__:
        block = text.split(f"{{ #companion.st.{name} }}", 1)[1].split("\n### ", 1)[0]
        assert "$$" in block and "```python" in block and "#### Inputs" in block, name
        assert f"companion.st.{name}(" in block, name  # the full signature
    for page in apidoc.pages():
        body = (ROOT / page).read_text(encoding="utf-8")
        prose = re.sub(r"```.*?```", "", body, flags=re.S)
        leftovers = re.findall(r":(?:math|func|class|meth|mod|data|attr):`|^\s*\.\. \w+::|::\s*$", prose, re.M)
        assert not leftovers, f"{page}: reStructuredText left over: {leftovers[:3]}"


def test_each_papers_modules_come_from_its_registry_entry():
    """The registry names a paper's modules once; the reference lists them and names none itself, so adding a paper
    touches no tooling code."""
    heads = "companion.papers.circumplex.heads"
    assert heads in papers.paper("circumplex").api_section[2]
    module = importlib.import_module(heads)
    assert hasattr(module, "GPTHead") and hasattr(module, "NGPTHead")
    assert f"{{ #{heads}.NGPTHead }}" in (ROOT / apidoc.page_path(heads)).read_text(encoding="utf-8")
    assert (ROOT / "companion" / "paper_registry.py").read_text(encoding="utf-8").count(f'"{heads}"') == 1
    own = [m for p in papers.REGISTRY for m in ((p.losses_module,) if p.losses_module else ())
           + (p.api_section[2] if p.api_section else ())]
    assert own and set(own) <= set(apidoc.modules())
    assert [m for m in apidoc.modules() if m.startswith("companion.losses.")][1:] == \
        [p.losses_module for p in papers.REGISTRY if p.losses_module]  # after the cores, in the registry's order
    source = (ROOT / "companion" / "publish" / "apidoc.py").read_text(encoding="utf-8")
    assert not [m for m in own if m in source]


def test_pages_are_in_the_navigation():
    config = yaml.safe_load((ROOT / common.CONFIG).read_text(encoding="utf-8"))
    listed = [checks._href(item) for bar in config["website"]["sidebar"] for item in bar["contents"]]
    assert {*apidoc.pages(), apidoc.USE_PAGE} <= set(listed)
    assert f"{apidoc.API_DIR}/*.qmd" in config["project"]["render"]
    hrefs = [m["href"] for item in config["website"]["navbar"]["left"] for m in item.get("menu", [])]
    assert apidoc.INDEX in hrefs and apidoc.USE_PAGE in hrefs


# --------------------------------------------------------------------------------------------- reST -> markdown
NAMES = {"companion.losses.core.contrastive_nll": "companion.losses.core.qmd#companion.losses.core.contrastive_nll",
         "companion.st.SimACELoss": "#companion.st.SimACELoss"}


@pytest.mark.parametrize("rest, markdown", [
    (r"the loss :math:`\ell_i = -\log p` here", r"the loss $\ell_i = -\log p$ here"),
    (":func:`~companion.losses.core.contrastive_nll`",
     "[`contrastive_nll`](companion.losses.core.qmd#companion.losses.core.contrastive_nll)"),
    (":class:`SimACELoss`", "[`SimACELoss`](#companion.st.SimACELoss)"),
    (":func:`companion.training.train`", "`companion.training.train`"),  # not documented here: plain code
    ("`sentence-transformers <https://sbert.net>`_ losses", "[sentence-transformers](https://sbert.net) losses"),
    ("a :math:`x +\n  y` wraps", "a $x + y$ wraps"),
])
def test_inline_roles(rest, markdown):
    assert apidoc.to_markdown(rest, NAMES, "companion.st").strip() == markdown


def test_math_and_literal_blocks():
    rest = "Text\n\n.. math:: a = b\n   + c\n\nExample:\n\n::\n\n    x = 1\n    y = x\n\nAfter.\n"
    assert apidoc.to_markdown(rest) == "Text\n\n$$\na = b + c\n$$\n\nExample:\n\n```python\nx = 1\ny = x\n```\n\nAfter.\n"
    fenced = "```python\n:math:`x` ::\n```\n"
    assert apidoc.to_markdown(fenced) == fenced  # code is left alone


def test_simple_tables_become_pipe_tables():
    rest = ("=====  ==========\n"
            "loss   logit\n"
            "=====  ==========\n"
            "A      :math:`|x|` and\n"
            "       more text\n"
            ":func:`long_name`  overflows\n"
            "=====  ==========\n\nafter\n")
    # no space before the closing dollar: Pandoc would not read "$\\vert x\\vert $" as math
    assert apidoc.to_markdown(rest) == ("| loss | logit |\n|---|---|\n| A | $\\vert x\\vert$ and more text |\n"
                                        "| `long_name` | overflows |\n\nafter\n")
    headless = "===  ===\na    b|c\n===  ===\n"
    assert apidoc.to_markdown(headless) == "|  |  |\n|---|---|\n| a | b\\|c |\n"


# --------------------------------------------------------------------------------------------- the hand-written page
# the page keeps the trainer's defaults for readers on a GPU; on this CPU torch says pinning does nothing
@pytest.mark.filterwarnings("ignore:'pin_memory' argument is set as true:UserWarning")
def test_pipes_quartodoc_escaped_inside_a_formula_of_a_parameter_become_tex():
    """quartodoc writes a parameter's ``\\|z\\|`` as ``\\\\|z\\\\|``: TeX would read a line break; the norm is meant."""
    line = ':   ``"euclidean"`` ($-\\\\|z_i - z_j\\\\|^2/\\tau$) or a \\| b'
    assert apidoc.to_markdown(line) == ':   ``"euclidean"`` ($-\\Vert z_i - z_j\\Vert ^2/\\tau$) or a \\| b\n'


def test_use_the_objectives_page_code_runs(tmp_path, monkeypatch, capsys):
    text = (ROOT / apidoc.USE_PAGE).read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    assert len(blocks) >= 3
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(apidoc.USE_PAGE), "exec"), namespace)  # noqa: S102 - our own page
    printed = capsys.readouterr().out
    assert re.search(r"CD-r on the training texts: -?\d\.\d{3} -> -?\d\.\d{3}", printed)
    assert bool(namespace["embeddings"].grad.isfinite().all()) and float(namespace["loss"].detach()) > 0
