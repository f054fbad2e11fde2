"""The registration history read from commits: first result, registration, revisions after a result, and the
stored copy's check (missing, edited, left behind), on a small repository built here commit by commit."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from companion import criteria_history as H


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def _commit(repo: Path, files: dict[str, dict], message: str, date: str) -> str:
    for rel, payload in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(payload))
    _git(repo, "add", "-A")
    env_date = f"{date}T12:00:00+00:00"
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", message], check=True,
                   env={"GIT_AUTHOR_DATE": env_date, "GIT_COMMITTER_DATE": env_date, "PATH": "/usr/bin:/bin",
                        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(repo)})
    return _git(repo, "rev-parse", "HEAD").strip()


def _ledger(profile: str, **claims) -> dict:
    return {"profile": profile, "claims": [{"id": cid, "criterion": crit, "paper_value": pv}
                                           for cid, (crit, pv) in claims.items()]}


LEDGER = "results/angle/02-x.json"
CRITERIA = "data/angle/criteria/02-x.json"


@pytest.fixture
def repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    # b is registered before any result; a only after its first result
    _commit(repo, {CRITERIA: {"criteria": [{"id": "b"}]}}, "register b", "2026-01-01")
    _commit(repo, {LEDGER: _ledger("smoke", a=("ours > 9", 1.0), b=("ours > 9", 2.0))}, "smoke", "2026-01-02")
    _commit(repo, {LEDGER: _ledger("cpu", a=("ours > 1", 1.0), b=("ours > 2", 2.0))}, "first result", "2026-01-03")
    _commit(repo, {CRITERIA: {"criteria": [{"id": "a"}, {"id": "b"}]}}, "register a", "2026-01-04")
    _commit(repo, {LEDGER: _ledger("cpu", a=("ours > 0.5", 1.0), b=("ours > 2", 2.5))}, "loosen a", "2026-01-05")
    return repo


def test_first_result_registration_and_every_revision_with_what_it_was(repo):
    history = H.compute(root=repo)["claims"]["angle/02-x"]
    a, b = history["a"], history["b"]
    assert a["first_result"].startswith("2026-01-03") and a["registered"].startswith("2026-01-04")  # smoke is no result
    assert a["registered_before_result"] is False and b["registered_before_result"] is True
    assert [(r["field"], r["was"], r["now"], r["scope"], r["date"]) for r in a["revisions"]] == [
        ("criterion", "ours > 1", "ours > 0.5", 2, "2026-01-05")]
    assert [(r["field"], r["was"], r["now"]) for r in b["revisions"]] == [("paper_value", 2.0, 2.5)]


def test_the_stored_history_is_checked_against_the_commits(repo):
    assert H.problems(repo) == [f"{H.HISTORY} is missing: run 'python -m companion criteria history'"]
    H.write(repo)
    _git(repo, "add", "-A")
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "history"], check=True,
                   env={"PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(repo)})
    assert H.problems(repo) == []
    stored = H.load(repo)
    stored["claims"]["angle/02-x"]["a"]["revisions"] = []  # a change after a result, hidden by hand
    H.history_path(repo).write_text(json.dumps(stored))
    assert len(H.problems(repo)) == 1 and "differs from the history" in H.problems(repo)[0]
    H.write(repo)
    _commit(repo, {LEDGER: _ledger("cpu", a=("ours > 0.1", 1.0), b=("ours > 2", 2.5))}, "later", "2026-01-07")
    later = H.problems(repo)
    assert len(later) == 1 and later[0].startswith("1 commit(s) after") and "changed a ledger" in later[0]


def test_revised_and_summary_read_the_stored_history(repo):
    history = H.compute(root=repo)
    assert [r["now"] for r in H.revised(history, "angle/02-x", "a")] == ["ours > 0.5"]
    assert H.revised(history, "angle/02-x", "nope") == [] and H.revised(None, "angle/02-x", "a") == []
    counts = H.summary(history)
    assert counts["claims"] == 2 and counts["registered before their first result"] == 1
    assert counts["revised after a result (aimed at few claims)"] == 2  # scope 2 < RULE_WIDE


def test_a_repository_without_the_commit_is_named_not_guessed(repo):
    H.write(repo)
    stored = H.load(repo)
    H.history_path(repo).write_text(json.dumps({**stored, "covers": "0" * 40}))
    assert H.problems(repo) == [f"{H.HISTORY} covers commit 0000000, which this clone does not hold (a shallow "
                                f"clone?): it cannot be checked here"]


def test_a_folder_that_is_no_checkout_has_no_history_to_check(tmp_path):
    with pytest.raises(H.HistoryUnavailable):
        H.problems(tmp_path)
