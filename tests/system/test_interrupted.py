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

Ctrl-C (``KeyboardInterrupt``) while the runner executes a notebook, and a ``Ledger.save`` stopped between its two
writes, are checked in the same process (the sections below): nothing half-written, no temporary notebook or kernel
folder left, one line from the command line, exit status 130; and a real run interrupted with SIGINT end to end.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
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

            real_write_atomic = companion.results.records.write_atomic
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

            # the ledger's own write and the provenance's (through write_json_atomic)
            companion.results.ledger.write_atomic = slow_write_atomic
            companion.results.records.write_atomic = slow_write_atomic
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
    real_write_atomic = companion.results.records.write_atomic

    def stop_at_the_ledger(target, write, **kwargs):
        written.append(Path(target).name)
        if Path(target) == path:
            raise KeyboardInterrupt
        return real_write_atomic(target, write, **kwargs)

    # the ledger's own write and the provenance's (through write_json_atomic)
    monkeypatch.setattr(companion.results.ledger, "write_atomic", stop_at_the_ledger)
    monkeypatch.setattr(companion.results.records, "write_atomic", stop_at_the_ledger)
    with pytest.raises(KeyboardInterrupt):
        ledger(False).save()
    assert written == ["pairing.provenance.json", "pairing.json"]  # the provenance first, the ledger last
    assert path.read_bytes() == old_ledger and not list(path.parent.glob(".*.tmp"))
    new_record = json.loads(record.read_text())
    assert new_record["ledger_sha256"] != old_record["ledger_sha256"]
    assert not provenance_belongs(new_record, path)
    assert ledger_provenance("baselines", "pairing", tmp_path / "results") is None  # noticed, not misread
    monkeypatch.setattr(companion.results.ledger, "write_atomic", real_write_atomic)
    monkeypatch.setattr(companion.results.records, "write_atomic", real_write_atomic)
    ledger(False).save()
    assert ledger_provenance("baselines", "pairing", tmp_path / "results")["ledger_sha256"] == \
        hashlib.sha256(path.read_bytes()).hexdigest()
    # a record written before ledger_sha256 existed is read as it is
    legacy = {k: v for k, v in new_record.items() if k != "ledger_sha256"}
    assert provenance_belongs(legacy, path) and provenance_belongs(legacy, tmp_path / "missing.json")


# ------------------------------------------------------------------------------ Ctrl-C while a notebook runs
def _notebook(path: Path, code: str = "print('fine', profile)"):
    import nbformat

    from companion.publish.notebooks import Notebook

    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('profile = "cpu"')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# Tiny"), params, nbformat.v4.new_code_cell(code)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return Notebook(path=path, paper="angle", stem=path.stem, title="Tiny")


@pytest.fixture
def places(tmp_path, monkeypatch):
    """Results, figures, cache and temporary files of one test under ``tmp_path``; three notebooks of a cpu run in
    place, and a complete ledger of the second from an earlier run."""
    import tempfile

    from companion.publish import runner

    for name in ("results", "figures", "cache", "tmp"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("COMPANION_FIGURES_DIR", str(tmp_path / "figures"))
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    nbs = [_notebook(tmp_path / "nb" / "angle" / f"{stem}.ipynb") for stem in ("01-a", "02-b", "03-c")]
    monkeypatch.setattr(runner, "list_notebooks", lambda root=None: nbs)
    ledger = tmp_path / "results" / "angle" / "02-b.json"
    ledger.parent.mkdir()
    ledger.write_text('{"schema": 2, "claims": []}\n')
    return tmp_path, nbs


def _fake_papermill(monkeypatch, stop_at: str, save_ledger: bool = False):
    """papermill that executes nothing: it copies a notebook to its output, and for ``stop_at`` writes half a
    notebook there (papermill saves as it goes), checks that the kernel's socket folder exists, and raises
    ``KeyboardInterrupt`` as a Ctrl-C would; ``save_ledger``: the kernel had saved its ledger before."""
    import shutil
    import tempfile

    import papermill

    def execute_notebook(input_path, output_path, **kwargs):
        if stop_at in input_path:
            Path(output_path).write_text('{"cells": [')
            assert list(Path(tempfile.gettempdir()).glob("companion-kernel-*"))
            if save_ledger:
                ledger = Path(os.environ["COMPANION_RESULTS_DIR"]) / "angle" / f"{Path(input_path).stem}.json"
                ledger.parent.mkdir(parents=True, exist_ok=True)
                ledger.write_text('{"schema": 2, "claims": ["new"]}\n')
            raise KeyboardInterrupt
        shutil.copyfile(input_path, output_path)

    monkeypatch.setattr(papermill, "execute_notebook", execute_notebook)


def _leftovers(root: Path) -> list[str]:
    hidden = [p.name for p in (root / "nb" / "angle").iterdir() if p.name.startswith(".")]
    return hidden + [p.name for p in (root / "tmp").iterdir()]


def test_ctrl_c_in_a_notebook_leaves_no_temporary_file_and_writes_nothing(places, monkeypatch):
    from companion.publish import runner

    root, (_, nb, _) = places
    before = nb.path.read_bytes(), (root / "results" / "angle" / "02-b.json").read_bytes()
    _fake_papermill(monkeypatch, "02-b")
    with pytest.raises(runner.Interrupted) as stopped:
        runner.execute(nb, "cpu")
    assert (stopped.value.stopped, stopped.value.finished, stopped.value.ledgers) == (["angle/02-b"], [], [])
    assert stopped.value.line() == "interrupted: nothing written for angle/02-b"
    assert _leftovers(root) == []  # no hidden .02-b.XXXX.ipynb, no companion-kernel-* folder
    assert (nb.path.read_bytes(), (root / "results" / "angle" / "02-b.json").read_bytes()) == before
    assert os.environ["COMPANION_RESULTS_DIR"] == str(root / "results")  # the environment as it was
    with runner.notebook_lock(nb, "cpu"):  # and the lock is free again
        pass
    # stopped while its output is being finalised: the same
    _fake_papermill(monkeypatch, "no-such-notebook")

    def interrupted_finalise(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "_finalise", interrupted_finalise)
    with pytest.raises(runner.Interrupted):
        runner.execute(nb, "cpu")
    assert _leftovers(root) == [] and nb.path.read_bytes() == before[0]


def test_ctrl_c_says_when_the_kernel_had_saved_the_ledger(places, monkeypatch):
    from companion.publish import runner

    root, (_, nb, _) = places
    _fake_papermill(monkeypatch, "02-b", save_ledger=True)
    with pytest.raises(runner.Interrupted) as stopped:
        runner.execute(nb, "smoke", output_dir=root / "scratch")
    assert stopped.value.ledgers == ["angle/02-b"]
    assert stopped.value.line() == ("interrupted: notebook not written for angle/02-b, whose kernel had already "
                                    "saved the ledger")
    assert not list((root / "scratch" / "notebooks" / "angle").iterdir()) and _leftovers(root) == []


def test_an_interrupted_run_names_what_finished_and_the_command_says_it_in_one_line(places, monkeypatch, capsys):
    from companion.__main__ import main
    from companion.publish import runner

    root, (first, second, third) = places
    before = second.path.read_bytes(), third.path.read_bytes()
    _fake_papermill(monkeypatch, "02-b")
    with pytest.raises(runner.Interrupted) as stopped:
        runner.run("cpu")
    assert [r.notebook.key for r in stopped.value.finished] == ["angle/01-a"]
    assert (stopped.value.stopped, stopped.value.not_started) == (["angle/02-b"], ["angle/03-c"])
    assert (second.path.read_bytes(), third.path.read_bytes()) == before and _leftovers(root) == []
    capsys.readouterr()
    assert main(["run", "--profile", "cpu"]) == 130
    out, err = capsys.readouterr()
    said = [line for line in err.splitlines() if line.strip() and "notebooks (cpu)" not in line]  # not the bar
    assert said == ["interrupted: nothing written for angle/02-b; finished and written: angle/01-a; 1 not started"]
    assert "Traceback" not in out + err and out.startswith("ok     angle/01-a")


def test_a_ctrl_c_elsewhere_in_the_command_line_is_one_line(monkeypatch, capsys):
    import companion.__main__ as cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_cmd_scoreboard", interrupted)
    assert cli.main(["scoreboard"]) == 130
    assert capsys.readouterr().err == "interrupted\n"


# ------------------------------------------------------------------------------ one run of a notebook at a time
def test_a_second_run_of_the_same_notebook_refuses_at_once(places, monkeypatch, capsys):
    import subprocess
    import sys

    from companion.__main__ import main
    from companion.publish import runner

    root, (first, second, _) = places
    _fake_papermill(monkeypatch, "no-such-notebook")
    with runner.notebook_lock(second, "cpu"):
        with pytest.raises(runner.NotebookBusy, match=rf"another run of angle/02-b is in progress \(pid "
                                                      rf"{os.getpid()}\); wait for it to finish or stop it"):
            runner.execute(second, "cpu")
        assert runner.execute(first, "cpu").status == "ok"  # another notebook runs
        assert runner.execute(second, "smoke", output_dir=root / "scratch").status == "ok"  # writes elsewhere
        started = time.time()
        assert main(["run", "--profile", "cpu"]) == 1  # the whole run refuses before the first notebook starts
        assert time.time() - started < 30
        out, err = capsys.readouterr()
        assert err.splitlines()[-1].startswith("error: another run of angle/02-b is in progress") and "ok " not in out
        # from another process: the holder's pid in one line
        lock = runner.lock_path(second, "cpu")
        code = ("import sys; from pathlib import Path; from companion.publish import notebooks, runner; "
                f"nb = notebooks.Notebook(path=Path({str(second.path)!r}), paper='angle', stem='02-b', title='t'); "
                f"assert runner.lock_path(nb, 'cpu') == Path({str(lock)!r}); "
                "runner.execute(nb, 'cpu')")
        other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                               env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        assert other.returncode == 1 and f"NotebookBusy: another run of angle/02-b is in progress (pid " \
            f"{os.getpid()})" in other.stderr
    with runner.notebook_lock(second, "cpu"):  # released with the block
        pass


# ------------------------------------------------------------------------------ end to end: a real kernel, SIGINT
def _kernels(tmpdir: Path) -> list[int]:
    """The kernels of one run: the processes whose command line names a file in its own temporary folder."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(tmpdir) in (proc / "cmdline").read_bytes().decode(errors="replace"):
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir() or os.name != "posix", reason="needs POSIX signals and /proc")
@pytest.mark.parametrize("jobs", [1, 2])
def test_sigint_stops_a_real_run_cleanly(tmp_path, jobs):
    """``python -m companion run --profile cpu`` in a throw-away checkout, interrupted with SIGINT (to its process
    group, as Ctrl-C in a terminal) while a kernel sleeps in a cell: exit status 130, one line saying what was and
    was not written, no traceback (not even the kernel's), no temporary notebook, kernel folder or kernel left."""
    import subprocess
    import sys

    import nbformat

    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text('[project]\nname = "companion"\n')
    angle = checkout / "notebooks" / "angle"
    _notebook(angle / "01-fast.ipynb")
    _notebook(angle / "02-slow.ipynb", "import time\ntime.sleep(300)")
    _notebook(angle / "03-later.ipynb")
    sources = {p.name: p.read_bytes() for p in angle.iterdir()}
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "COMPANION_REPO_ROOT": str(checkout),
           "COMPANION_CACHE_DIR": str(tmp_path / "cache"), "COMPANION_RESULTS_DIR": str(tmp_path / "results"),
           "COMPANION_FIGURES_DIR": str(tmp_path / "figures"), "TMPDIR": str(tmpdir)}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--profile", "cpu", "--jobs", str(jobs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 180

        def running() -> bool:  # the slow cell runs (and with two jobs, the third notebook was written meanwhile)
            later_done = jobs == 1 or (angle / "03-later.ipynb").read_bytes() != sources["03-later.ipynb"]
            return bool(list(angle.glob(".02-slow.*.ipynb")) and _kernels(tmpdir)) and later_done

        while not running() and time.time() < deadline:
            time.sleep(0.2)
        kernels = _kernels(tmpdir)
        assert kernels, "no kernel started in time"
        time.sleep(3)  # the cell is sleeping
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    said = [line for line in err.splitlines() if line.strip() and not re.search(r"notebooks \(cpu\)|Executing", line)]
    finished = "; finished and written: angle/01-fast" + (", angle/03-later" if jobs == 2 else "; 1 not started")
    assert said == ["interrupted: nothing written for angle/02-slow" + finished], err
    assert "Traceback" not in out + err
    deadline = time.time() + 20
    while [pid for pid in kernels if Path(f"/proc/{pid}").exists()] and time.time() < deadline:
        time.sleep(0.2)
    alive = [pid for pid in kernels if Path(f"/proc/{pid}").exists()]
    for pid in alive:  # this test's own kernels: do not leave them running if the check fails
        os.kill(pid, signal.SIGKILL)
    assert not alive, "the kernel outlived the run"
    assert [p.name for p in angle.iterdir() if p.name.startswith(".")] == [] and list(tmpdir.iterdir()) == []
    assert (angle / "02-slow.ipynb").read_bytes() == sources["02-slow.ipynb"]
    assert nbformat.read(angle / "01-fast.ipynb", as_version=4).metadata["companion"]["profile"] == "cpu"
