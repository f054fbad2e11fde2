"""Every committed ledger was graded with the criteria committed under data/<paper>/criteria/, and those criteria
were committed no later than the ledger they grade (git history shows the order)."""

import subprocess

import pytest

from companion import settings
from companion.results import criteria_path, criteria_problems, load_ledgers

LEDGERS = load_ledgers(settings.repo_root() / "results")


@pytest.mark.parametrize("ledger", LEDGERS, ids=[f"{x['paper']}/{x['notebook']}" for x in LEDGERS])
def test_ledger_graded_with_its_committed_criteria(ledger):
    assert criteria_problems(ledger) == []


def _last_commit_time(path) -> int | None:
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct", "--", str(path)], cwd=settings.repo_root(),
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return int(out) if out else None


@pytest.mark.parametrize("ledger", LEDGERS, ids=[f"{x['paper']}/{x['notebook']}" for x in LEDGERS])
def test_criteria_committed_before_the_ledger(ledger):
    root = settings.repo_root()
    crit = _last_commit_time(criteria_path(ledger["paper"], ledger["notebook"]))
    led = _last_commit_time(root / "results" / ledger["paper"] / f"{ledger['notebook']}.json")
    if crit is None or led is None:
        pytest.skip("no git history here (a source copy, not a clone)")
    assert crit <= led, "the criteria were changed after the ledger they grade was committed"


def test_the_stored_registration_history_is_the_one_the_commits_give():
    """data/criteria-history.json is computed from the commits (``criteria history``), covers every commit that
    changed a ledger or a criteria file, and was not edited by hand."""
    from companion import criteria_history

    try:
        found = criteria_history.problems()
    except criteria_history.HistoryUnavailable as exc:
        pytest.skip(f"no git history here: {exc}")
    if found and "does not hold" in found[0]:
        pytest.skip(found[0])
    assert found == []
