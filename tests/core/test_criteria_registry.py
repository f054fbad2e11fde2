"""Criteria are registered before the run that grades them: a ledger records the hash of its committed criteria
file, and any drift between a claim and its registered criterion is reported."""

import json

from companion import stats
from companion.results import (
    Ledger,
    criteria_path,
    criteria_problems,
    load_ledgers,
    register_criteria,
    sha256_file,
)


def _ledger(results, paper_effect=0.98, claim_text="A beats B", criterion=None):
    ledger = Ledger("angle", "99-registry", profile="smoke", seeds=[0, 1, 2])
    ledger.results_dir = results
    ledger.claim("gap", claim_text, kind="paper", source="Table 4: 86.26 - 85.28", paper_value=paper_effect,
                 ours=stats.paired([1.0, 1.2, 1.1], [0.1, 0.2, 0.15]),
                 criterion=criterion or stats.direction(paper_effect=paper_effect), note="measured 0.95")
    return ledger


def test_register_then_grade_records_the_hash_and_matches(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_REPO_ROOT", str(tmp_path))
    monkeypatch.setattr("companion.settings.repo_root", lambda: tmp_path)
    smoke = tmp_path / "smoke"
    _ledger(smoke).save()
    written = register_criteria(smoke, root=tmp_path)
    path = criteria_path("angle", "99-registry", root=tmp_path)
    assert written == [path]
    entries = json.loads(path.read_text())["criteria"]
    assert entries[0]["id"] == "gap" and "note" not in entries[0] and "verdict" not in entries[0]
    assert register_criteria(smoke, root=tmp_path) == []            # idempotent
    real = tmp_path / "results"
    _ledger(real).save()
    (stored,) = load_ledgers(real)
    assert stored["criteria"]["sha256"] == sha256_file(path)
    assert criteria_problems(stored, root=tmp_path) == []


def test_a_changed_criterion_or_a_stale_hash_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr("companion.settings.repo_root", lambda: tmp_path)
    smoke = tmp_path / "smoke"
    _ledger(smoke).save()
    register_criteria(smoke, root=tmp_path)
    real = tmp_path / "results"
    _ledger(real, paper_effect=0.5).save()                            # graded with another paper value
    (stored,) = load_ledgers(real)
    problems = criteria_problems(stored, root=tmp_path)
    assert len(problems) == 1 and "paper_value" in problems[0] and "criterion" in problems[0]
    _ledger(real).save()
    path = criteria_path("angle", "99-registry", root=tmp_path)
    path.write_text(path.read_text().replace("A beats B", "A beats B by far"))   # criteria edited after the run
    (stored,) = load_ledgers(real)
    problems = criteria_problems(stored, root=tmp_path)
    assert any("graded with criteria" in p for p in problems) and any("claim" in p for p in problems)


def test_an_unregistered_notebook_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr("companion.settings.repo_root", lambda: tmp_path)
    real = tmp_path / "results"
    _ledger(real).save()
    (stored,) = load_ledgers(real)
    assert "criteria" not in stored
    assert "no registered criteria" in criteria_problems(stored, root=tmp_path)[0]


def test_a_changed_paper_value_alone_is_reported_and_fails_the_check(tmp_path, monkeypatch, capsys):
    """The criterion's text does not depend on the paper value here (a sign-only rule), so the paper value is the
    only registered field that differs."""
    import argparse

    from companion.__main__ import _cmd_criteria

    monkeypatch.setattr("companion.settings.repo_root", lambda: tmp_path)
    smoke = tmp_path / "smoke"
    _ledger(smoke, criterion=stats.direction(sign=1)).save()
    register_criteria(smoke, root=tmp_path)
    real = tmp_path / "results"
    _ledger(real, paper_effect=0.5, criterion=stats.direction(sign=1)).save()
    (stored,) = load_ledgers(real)
    assert stored["criteria"]["sha256"] == sha256_file(criteria_path("angle", "99-registry", root=tmp_path))
    assert criteria_problems(stored, root=tmp_path) == [
        "angle/99-registry: claim 'gap' differs from its registered criterion in ['paper_value']"]
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(real))
    assert _cmd_criteria(argparse.Namespace(action="check")) == 1
    assert "1 problem(s)" in capsys.readouterr().out
    _ledger(real, criterion=stats.direction(sign=1)).save()              # the registered paper value again
    assert _cmd_criteria(argparse.Namespace(action="check")) == 0
