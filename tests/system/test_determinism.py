"""Determinism: one training notebook executed twice with the same seed on CPU writes byte-identical
``results/`` JSON.

``notebooks/circumplex/02-experiments`` (SINCERE / SoftCSE / CircularCSE heads trained on cached backbone states)
is executed twice in the ``smoke`` profile through the project's runner (papermill), each time in a fresh process
(kernel) with its OWN empty ``COMPANION_CACHE_DIR`` (nothing computed by the first run is reused by the second:
backbone states, data caches and the tiny encoder are all rebuilt) and its own results/figures folders. The ledger
JSON of the two runs must be identical byte for byte; the provenance record (wall time, date) is the only file
allowed to differ, which is why the ledger keeps it out (``companion.results``).
"""

from __future__ import annotations

import json
import os

import pytest

from companion.publish.notebooks import list_notebooks
from companion.publish.runner import execute

pytestmark = pytest.mark.slow  # runs a training notebook twice

NOTEBOOK = "circumplex/02-experiments"


def _run(tmp_path, name, monkeypatch):
    nb = next(n for n in list_notebooks() if n.key == NOTEBOOK)
    cache = tmp_path / name / "cache"
    cache.mkdir(parents=True)
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(cache))
    result = execute(nb, "smoke", output_dir=tmp_path / name)
    assert result.status == "ok", f"{NOTEBOOK} failed in {result.error}"
    return tmp_path / name / "results" / nb.paper / f"{nb.stem}.json"


@pytest.mark.notebook
def test_training_notebook_twice_gives_byte_identical_results(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_RESULTS_DIR", raising=False)
    monkeypatch.delenv("COMPANION_FIGURES_DIR", raising=False)
    first = _run(tmp_path, "first", monkeypatch)
    second = _run(tmp_path, "second", monkeypatch)
    assert first != second and first.is_file() and second.is_file()
    a, b = first.read_bytes(), second.read_bytes()
    ledger = json.loads(a)
    assert ledger["profile"] == "smoke" and ledger["seeds"] and ledger["claims"]
    # the runs really were separate: each wrote its own cache
    assert os.listdir(tmp_path / "first" / "cache") and os.listdir(tmp_path / "second" / "cache")
    assert a == b, "the two runs' ledgers differ:\n" + "\n".join(
        f"  {x['id']}: {x['ours']!r} vs {y['ours']!r}"
        for x, y in zip(ledger["claims"], json.loads(b)["claims"]) if x != y)
