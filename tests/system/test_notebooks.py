"""The smoke execution of every notebook (papermill, profile ``smoke``, scratch output).

Each notebook must finish and write a ledger that follows the schema. Numbers from the smoke profile mean
nothing; the notebooks' committed outputs come from the ``cpu`` profile.
"""

import json

import pytest

from companion.results import validate_claim
from companion.runner import execute, list_notebooks

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


def test_every_notebook_is_paired_with_a_percent_script():
    for nb in NOTEBOOKS:
        twin = nb.twin
        assert twin.exists(), f"{nb.path} has no py:percent twin"
        assert "format_name: percent" in twin.read_text(encoding="utf-8"), f"{twin} is not py:percent"
