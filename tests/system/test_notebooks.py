"""The smoke execution of every notebook (papermill, profile ``smoke``, scratch output).

Each notebook must finish and write a ledger that follows the schema, and its executed copy must show its reader
nothing the site's reader check flags (numbers to machine length, tables cut short, bare reprs, figures too wide:
:func:`companion.publish.site.render.notebook_findings`). Numbers from the smoke profile mean nothing; the
notebooks' committed outputs come from the ``cpu`` profile.
"""

import json

import pytest

from companion.publish.notebooks import list_notebooks, twin_differences, twin_path
from companion.publish.runner import execute
from companion.publish.site.render import notebook_findings
from companion.results import validate_claim

pytestmark = pytest.mark.slow  # the smoke run of every notebook

NOTEBOOKS = list_notebooks()


@pytest.mark.notebook
@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[nb.key for nb in NOTEBOOKS])
def test_notebook_smoke(nb, tmp_path_factory):
    scratch = tmp_path_factory.getbasetemp() / "smoke"
    result = execute(nb, "smoke", output_dir=scratch)
    assert result.status == "ok", f"{nb.key} failed in {result.error}"
    ledger = json.loads((scratch / "results" / nb.paper / f"{nb.stem}.json").read_text())
    assert ledger["profile"] == "smoke" and ledger["claims"]
    assert ledger["schema"] == 2
    for claim in ledger["claims"]:
        validate_claim(claim, nb.key)
    executed = scratch / "notebooks" / nb.paper / nb.path.name
    findings = notebook_findings(executed, scratch)
    assert not findings, f"{nb.key}: outputs a reader cannot read well:\n" + "\n".join(findings)


def test_every_notebook_is_paired_with_a_percent_script():
    for nb in NOTEBOOKS:
        twin = nb.twin
        assert twin.exists(), f"{nb.path} has no py:percent twin"
        assert "format_name: percent" in twin.read_text(encoding="utf-8"), f"{twin} is not py:percent"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[nb.key for nb in NOTEBOOKS])
def test_notebook_and_twin_hold_the_same_cells(nb):
    """The stored notebook and its py:percent twin never drift: the same cells, kinds and sources in order."""
    assert twin_differences(nb.path) == []


def test_twin_drift_is_caught(tmp_path):
    import jupytext
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# T"), nbformat.v4.new_code_cell("x = 1")]
    path = tmp_path / "01-x.ipynb"
    nbformat.write(nb, path)
    jupytext.write(nb, twin_path(path), fmt="py:percent")
    assert twin_differences(path) == []
    nb.cells[1].source = "x = 2"
    nbformat.write(nb, path)
    assert twin_differences(path) == ["cell 1 differs between 01-x.ipynb and 01-x.pct.py"]
    nb.cells.append(nbformat.v4.new_code_cell("y = 3"))
    nbformat.write(nb, path)
    assert "3 cells in 01-x.ipynb, 2 in 01-x.pct.py" in twin_differences(path)


def test_notebooks_read_the_papers_tables_through_paper_table():
    """A paper's transcribed tables (``data/<paper>/*.csv``) are read with ``companion.papers.tables.paper_table``,
    the one reader (cells as printed, or ``parse=True``), never with a ``read_csv`` of its own in a cell."""
    offenders = [f"{nb.key}: line {i}" for nb in NOTEBOOKS
                 for i, line in enumerate(nb.twin.read_text(encoding="utf-8").splitlines(), 1) if "read_csv(" in line]
    assert not offenders, "notebooks reading a table with read_csv: " + ", ".join(offenders)
