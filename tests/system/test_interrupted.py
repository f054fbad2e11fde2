"""Interrupted runs: a process SIGKILLed while it writes the embedding cache or a results file leaves
no corrupt file behind; a rerun in a fresh process reads nothing broken and produces the same numbers.

Every run is a separate, forked process (:func:`_child`; forking after the imports and the tokenizer load keeps
each run to about a second instead of the ~20 s a cold ``import transformers`` takes on a loaded 2-core machine). A run encodes a few
sentences with a tiny random encoder through the on-disk embedding cache (``companion.encoders``), records
numbers computed from the embeddings in a claims ledger (``Ledger.save`` -> ``write_json_atomic``) and reports a
digest of the full-precision embeddings. To make the kill land deterministically INSIDE a write, a run can replace
one low-level write with a writer that writes the first half of the bytes, flushes and fsyncs them, tells the
parent and blocks; the parent then sends SIGKILL:

* ``hang="cache"``: inside ``torch.save`` of a new embedding-cache shard;
* ``hang="results"``: inside the text write of the ledger JSON (``Ledger.save``'s last write, its commit point);
* ``hang="provenance"``: inside the write of the provenance record (``Ledger.save``'s first write).

Checks: after the kill, no cache shard / ledger is half-written under its final name (the partial bytes exist only
in a temporary file that readers never open); the rerun emits no "unreadable shard" warning, and its ledger bytes
and embedding digest equal those of a clean run in separate folders; a kill while OVERWRITING a complete ledger
leaves the old file complete and byte-identical, beside a provenance record that belongs to it.

A ``Ledger.save`` stopped between its two writes is checked in the same process (the section below): the previous
ledger stays whole and no reader pairs it with the new provenance.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import signal
import time
import traceback
import warnings
from pathlib import Path

import pytest

import companion.encoders  # noqa: F401 - imported before forking so that every run starts warm
import companion.results

MARK = "inside-the-write"
TEXTS = [f"sentence number {i} about {w}" for i, w in
         enumerate(["cats", "dogs", "rain", "music", "trains", "bread", "stars", "rivers"] * 4)]


def _hang_after_half(data: bytes, write, conn) -> None:
    write(data[: len(data) // 2])
    conn.send((MARK, None))
    time.sleep(600)


def _child(root: str, hang: str | None, conn) -> None:
    """One run in its own process: cache and results under ``root``; reports (digest, ledger path, warnings)."""
    try:
        import torch

        from companion.encoders import tiny_encoder
        from companion.results import Ledger, at_least, within

        torch.set_num_threads(1)
        os.environ.update(COMPANION_CACHE_DIR=f"{root}/cache", COMPANION_RESULTS_DIR=f"{root}/results",
                          COMPANION_FIGURES_DIR=f"{root}/figures")
        if hang == "cache":
            import io

            real_save = torch.save

            def slow_save(obj, f, *args, **kwargs):
                buf = io.BytesIO()
                real_save(obj, buf, *args, **kwargs)
                _hang_after_half(buf.getvalue(), lambda b: (f.write(b), f.flush(), os.fsync(f.fileno())), conn)

            torch.save = slow_save
        elif hang in ("results", "provenance"):
            import io

            real_write_atomic = companion.results.write_atomic
            target = "interrupt-probe.json" if hang == "results" else "interrupt-probe.provenance.json"

            def slow_write_atomic(path, write, **kwargs):  # the real atomic write, stalled half-way through
                if Path(path).name != target:
                    return real_write_atomic(path, write, **kwargs)

                def slow_write(handle):
                    buf = io.BytesIO()
                    write(buf)
                    _hang_after_half(buf.getvalue(),
                                     lambda b: (handle.write(b), handle.flush(), os.fsync(handle.fileno())), conn)

                return real_write_atomic(path, slow_write, **kwargs)

            companion.results.write_atomic = slow_write_atomic
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            enc = tiny_encoder("bert", hidden=32, layers=2, seed=0)
            emb = enc.encode(TEXTS, batch_size=8)
        digest = hashlib.sha256(emb.numpy().tobytes()).hexdigest()
        cos = emb @ emb.T
        n = len(TEXTS)
        ledger = Ledger("baselines", "interrupt-probe", profile="smoke", seeds=[0])
        ledger.claim("mean-cos", "mean off-diagonal cosine", paper_value=0.5,
                     ours=float((cos.sum() - cos.diagonal().sum()) / (n * (n - 1))), criterion=within(0.5, 0.5), kind="check")
        ledger.claim("first-row-sum", "sum of the first embedding", paper_value="-", ours=float(emb[0].sum()),
                     criterion=at_least(-1e9), kind="check")
        path = ledger.save()
        conn.send(("done", (digest, str(path), [str(w.message) for w in caught])))
    except BaseException:  # noqa: BLE001 - report anything to the parent
        conn.send(("error", traceback.format_exc()))


def _start(root: Path, hang: str | None):
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(str(root), hang, child), daemon=True)
    proc.start()
    child.close()
    return proc, parent


def _receive(proc, conn, timeout: float = 120.0):
    if not conn.poll(timeout):
        proc.kill()
        pytest.fail("the run sent nothing in time")
    kind, value = conn.recv()
    if kind == "error":
        pytest.fail(f"the run failed:\n{value}")
    return kind, value


def run(root: Path) -> tuple[str, bytes, list[str]]:
    """A complete run in a fresh process: (embedding digest, ledger bytes, warnings)."""
    proc, conn = _start(root, None)
    kind, (digest, path, caught) = _receive(proc, conn)
    proc.join(60)
    assert kind == "done" and proc.exitcode == 0
    return digest, Path(path).read_bytes(), caught


def kill_inside_write(root: Path, hang: str) -> None:
    proc, conn = _start(root, hang)
    kind, _ = _receive(proc, conn)
    assert kind == MARK, f"the run finished without reaching the {hang} write"
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(30)
    assert proc.exitcode == -signal.SIGKILL


def _ledger(root: Path) -> Path:
    return root / "results" / "baselines" / "interrupt-probe.json"


def _shards(root: Path) -> list[Path]:
    return sorted((root / "cache" / "embeddings").glob("*/shard-*.pt"))


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """Reference numbers: one uninterrupted run in its own folders. Builds one tiny encoder in THIS process first,
    so that transformers' model modules and the tokenizer are loaded once and inherited by every forked run (no
    cache is touched here: ``encode`` is not called)."""
    companion.encoders.tiny_encoder("bert", hidden=32, layers=2, seed=0)
    digest, ledger, caught = run(tmp_path_factory.mktemp("clean"))
    assert json.loads(ledger)["claims"] and not caught
    return digest, ledger


def test_kill_while_writing_the_embedding_cache(clean, tmp_path):
    kill_inside_write(tmp_path, "cache")
    # the kill landed inside the shard write: half a shard exists, but only as a temporary file
    partial = sorted((tmp_path / "cache" / "embeddings").glob("*/.tmp-*.part"))
    assert len(partial) == 1 and partial[0].stat().st_size > 0, partial
    assert _shards(tmp_path) == [], "a cache shard is visible although its writer was killed"
    assert not _ledger(tmp_path).exists()
    digest, ledger, caught = run(tmp_path)
    assert not any("unreadable" in w for w in caught), caught
    assert (digest, ledger) == clean, "the rerun's numbers differ from a clean run"
    assert len(_shards(tmp_path)) == 1  # the rerun cached its embeddings ...
    digest, ledger, caught = run(tmp_path)  # ... and a third run reads them back: same numbers
    assert (digest, ledger) == clean and not caught
    assert partial[0].exists()  # a young temporary file may belong to a live writer: kept ...
    os.utime(partial[0], (time.time() - 7200, time.time() - 7200))
    assert run(tmp_path)[:2] == clean
    assert not partial[0].exists()  # ... one older than an hour is a killed writer's: removed


def test_kill_while_writing_a_results_file(clean, tmp_path):
    from companion.results import ledger_provenance, load_ledgers

    kill_inside_write(tmp_path, "results")
    assert not _ledger(tmp_path).exists(), "a half-written ledger is visible under its final name"
    leftovers = list((tmp_path / "results" / "baselines").glob(".interrupt-probe.json.*.tmp"))
    assert len(leftovers) == 1 and leftovers[0].stat().st_size > 0
    with pytest.raises(json.JSONDecodeError):
        json.loads(leftovers[0].read_text(encoding="utf-8"))  # the temporary file really is half a JSON
    assert load_ledgers(tmp_path / "results") == []  # readers never open the temporary file
    # the provenance was written first and names a ledger that is not there: no reader takes it for one
    assert ledger_provenance("baselines", "interrupt-probe", tmp_path / "results") is None
    digest, ledger, _ = run(tmp_path)
    assert (digest, ledger) == clean
    # killed while OVERWRITING the complete ledger: the old file stays complete and byte-identical
    kill_inside_write(tmp_path, "results")
    assert _ledger(tmp_path).read_bytes() == clean[1]
    assert [x["notebook"] for x in load_ledgers(tmp_path / "results")] == ["interrupt-probe"]
    # the new provenance names the same bytes (same seeds, same ledger): it belongs to the ledger beside it
    assert ledger_provenance("baselines", "interrupt-probe", tmp_path / "results")["seeds"] == [0]


def test_kill_while_writing_the_provenance_leaves_the_old_pair(clean, tmp_path):
    from companion.results import ledger_provenance, provenance_path

    run(tmp_path)
    record = provenance_path("baselines", "interrupt-probe", tmp_path / "results")
    before = record.read_bytes()
    kill_inside_write(tmp_path, "provenance")
    assert record.read_bytes() == before and _ledger(tmp_path).read_bytes() == clean[1]
    assert len(list(record.parent.glob(".interrupt-probe.provenance.json.*.tmp"))) == 1
    assert ledger_provenance("baselines", "interrupt-probe", tmp_path / "results") == json.loads(before)


# ------------------------------------------------------------------------------ a save stopped between two writes
def test_a_save_stopped_between_its_writes_cannot_pair_a_ledger_with_another_runs_provenance(tmp_path, monkeypatch):
    """``Ledger.save`` writes the provenance first and the ledger last. Stopped in between (the ledger write raises
    ``KeyboardInterrupt``), the previous ledger stays whole beside the new provenance, which names other bytes:
    :func:`ledger_provenance` refuses it, and the next complete save pairs them again."""
    from companion.results import Ledger, holds, ledger_provenance, provenance_belongs, provenance_path

    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))

    def ledger(value: bool) -> Ledger:
        out = Ledger("baselines", "pairing", profile="cpu", seeds=[0, 1])
        out.claim("c", "a check", "yes", [value], holds(), kind="check")
        return out

    path = ledger(True).save()
    record = provenance_path("baselines", "pairing", tmp_path / "results")
    old_ledger, old_record = path.read_bytes(), json.loads(record.read_text())
    assert old_record["ledger_sha256"] == hashlib.sha256(old_ledger).hexdigest()
    assert ledger_provenance("baselines", "pairing", tmp_path / "results") == old_record
    assert "ledger_sha256" not in json.loads(old_ledger)  # the ledger's format is unchanged

    written = []
    real_write_atomic = companion.results.write_atomic

    def stop_at_the_ledger(target, write, **kwargs):
        written.append(Path(target).name)
        if Path(target) == path:
            raise KeyboardInterrupt
        return real_write_atomic(target, write, **kwargs)

    monkeypatch.setattr(companion.results, "write_atomic", stop_at_the_ledger)
    with pytest.raises(KeyboardInterrupt):
        ledger(False).save()
    assert written == ["pairing.provenance.json", "pairing.json"]  # the provenance first, the ledger last
    assert path.read_bytes() == old_ledger and not list(path.parent.glob(".*.tmp"))
    new_record = json.loads(record.read_text())
    assert new_record["ledger_sha256"] != old_record["ledger_sha256"]
    assert not provenance_belongs(new_record, path)
    assert ledger_provenance("baselines", "pairing", tmp_path / "results") is None  # noticed, not misread
    monkeypatch.setattr(companion.results, "write_atomic", real_write_atomic)
    ledger(False).save()
    assert ledger_provenance("baselines", "pairing", tmp_path / "results")["ledger_sha256"] == \
        hashlib.sha256(path.read_bytes()).hexdigest()
    # a record written before ledger_sha256 existed is read as it is
    legacy = {k: v for k, v in new_record.items() if k != "ledger_sha256"}
    assert provenance_belongs(legacy, path) and provenance_belongs(legacy, tmp_path / "missing.json")

