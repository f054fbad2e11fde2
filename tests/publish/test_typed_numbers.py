"""Results typed into markdown: the matcher on a small fixture, then every committed notebook against its ledger."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.publish import typed_numbers as tn

ROOT = Path(__file__).resolve().parents[2]


def _notebook(*markdown: str) -> dict:
    cells = [{"cell_type": "markdown", "source": text} for text in markdown]
    cells.append({"cell_type": "code", "source": "x = 0.8123  # a code cell is never read", "outputs": []})
    return {"cells": cells}


LEDGER = {"claims": [
    {"id": "gap", "kind": "paper", "claim": "A beats B by 0.98 points", "source": "Table 4: 86.26 - 85.28",
     "paper_value": 0.98, "ours": 0.8123,
     "stats": {"estimate": 0.8123, "ci": [0.4567, 1.1679], "p": 0.0312, "n": 3, "confidence": 0.95,
               "values": [0.7, 0.9, 0.8369]}},
    {"id": "rank", "kind": "check", "claim": "rank", "source": None, "paper_value": None,
     "ours": {"B1": 247.25, "ok": True}, "note": "anisotropy 0.1664 -> 0.1201"},
]}


def _found(*markdown: str) -> list[str]:
    return [f.text for f in tn.typed_results(_notebook(*markdown), LEDGER)]


def test_a_typed_estimate_matches_at_the_precision_it_is_typed():
    assert _found("Our gap is 0.81 points.") == ["0.81"]
    assert _found("Our gap is 0.812.") == ["0.812"]
    assert _found("Our gap is 0.8123.") == ["0.8123"]


def test_every_numeric_result_of_a_claim_is_read():
    found = _found("CI [0.46, 1.17], p = 0.031, a seed at 0.84, rank 247.2 and anisotropy 0.166 → 0.120.")
    assert found == ["0.46", "1.17", "0.031", "0.84", "247.2", "0.166", "0.120"]


def test_rounding_sign_and_per_cent():
    assert _found("a drop of −0.81") == ["−0.81"]           # the sign is ignored
    assert _found("81.2 % of the gap") == ["81.2 %"]         # a percentage of a fraction
    assert _found("0.8124") == []                            # 0.8123 does not round to 0.8124
    assert _found("81.2 of the gap") == []                   # without % it is not read as a percentage


def test_no_false_match_for_a_different_number():
    assert _found("The gap is 0.83, and 0.45.") == []
    assert _found("The gap is 0.79.") == []


def test_paper_numbers_places_names_and_round_settings_are_not_results():
    # the paper's value and the numbers of its source, cited; sections, theorems and versions; a model name;
    # one-significant-digit settings (0.8 would match 0.8123 at its precision)
    assert _found("The paper's 0.98 (Table 4: 86.26 - 85.28).") == []
    assert _found("§0.81, Thm. 0.81, Cor. 1.1–1.17, WordNet 0.84, arXiv 0.031") == []
    assert _found("Llama-0.81-3B") == []
    assert _found("τ = 0.8 and a margin 1.0") == []
    # a number of a transcribed table, passed as the paper's
    assert [f.text for f in tn.typed_results(_notebook("Table 2 prints 0.81."), LEDGER, paper={"0.81"})] == []


def test_a_registered_criterion_threshold_is_not_a_result():
    ledger = {"claims": [{"id": "share", "kind": "check", "claim": "share", "source": None, "paper_value": None,
                          "ours": 0.99219, "criterion": "at least 0.99 (all: passed)"}]}
    assert [f.text for f in tn.typed_results(_notebook("the share is at least 0.99"), ledger)] == []
    assert [f.text for f in tn.typed_results(_notebook("the share is 0.992"), ledger)] == ["0.992"]


def test_markdown_numbers_reports_cells_and_precision():
    numbers = tn.markdown_numbers(_notebook("intro", "a value 1,234.50 and −0.25 %"))
    assert [(n.cell, n.text, n.value, n.decimals, n.percent) for n in numbers] == [
        (1, "1,234.50", 1234.5, 2, False), (1, "−0.25 %", -0.25, 2, True)]


def test_a_finding_names_its_claim_and_field():
    (finding,) = tn.typed_results(_notebook("p = 0.031"), LEDGER, name="paper/01-x")
    assert (finding.notebook, finding.cell, finding.claim, finding.field) == ("paper/01-x", 0, "gap", "p")
    assert "0.031" in str(finding)


def test_the_check_fails_on_a_notebook_with_a_typed_result(tmp_path):
    (tmp_path / "notebooks" / "angle").mkdir(parents=True)
    (tmp_path / "results" / "angle").mkdir(parents=True)
    (tmp_path / "notebooks" / "angle" / "01-x.ipynb").write_text(json.dumps(_notebook("ours: 0.81")))
    (tmp_path / "results" / "angle" / "01-x.json").write_text(json.dumps(LEDGER))
    assert [f.text for f in tn.check(tmp_path)] == ["0.81"]
    assert tn.main([str(tmp_path)]) == 1


def test_notebooks_clean_check_reports_a_typed_result_in_one_line_and_fails(tmp_path, monkeypatch, capsys):
    """``python -m companion notebooks clean --check`` (and ``site --check``, through the same
    :func:`~companion.publish.typed_numbers.notebook_findings`) lists a typed result, one line, exit 1."""
    import nbformat

    from companion.__main__ import main as cli

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "companion"\n')
    (tmp_path / "results" / "angle").mkdir(parents=True)
    (tmp_path / "results" / "angle" / "01-x.json").write_text(json.dumps(LEDGER))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Angle 01\n\nours: 0.81"), nbformat.v4.new_code_cell("x = 1")]
    path = tmp_path / "notebooks" / "angle" / "01-x.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    monkeypatch.setenv("COMPANION_REPO_ROOT", str(tmp_path))
    assert [str(f) for f in tn.notebook_findings(path, tmp_path)] == [str(f) for f in tn.check(tmp_path)]
    assert cli(["notebooks", "clean", "--check", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [str(tn.check(tmp_path)[0]), "1 problem(s) in 1 of 1 notebook(s)"]
    assert "'0.81' typed in the markdown is the result gap ours (0.8123)" in lines[0]
    (tmp_path / "results" / "angle" / "01-x.json").unlink()  # no ledger: nothing typed can repeat it
    assert cli(["notebooks", "clean", "--check", str(path)]) == 0


def test_every_committed_ledger_has_its_notebook():
    pairs = list(tn.notebook_pairs(ROOT))
    ledgers = [p for p in (ROOT / "results").glob("*/*.json") if not p.name.endswith(".provenance.json")]
    assert len(pairs) == len(ledgers) > 0


@pytest.mark.parametrize("notebook,ledger", [pytest.param(nb, lg, id=f"{nb.parent.name}/{nb.stem}")
                                             for nb, lg in tn.notebook_pairs(ROOT)])
def test_no_committed_notebook_types_a_result_of_its_ledger(notebook, ledger):
    findings = tn.typed_results(notebook, ledger, paper=tn.cited_numbers(ROOT, ledger.parent.name),
                                name=f"{notebook.parent.name}/{notebook.stem}")
    assert not findings, "results typed in markdown (generate them from the ledger instead):\n" + "\n".join(
        map(str, findings))
