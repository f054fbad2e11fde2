"""The runner (papermill): execution in each profile, failures, parallel runs, notebook selection."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from companion.publish import runner
from companion.publish.notebooks import Notebook, select
from companion.publish.runner import execute, parameter_defaults


def _write_nb(path, body, fail=False):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Tiny section\nA test notebook."),
                nbformat.v4.new_code_cell('profile = "cpu"\nsteps = None', metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(body)]
    if fail:
        nb.cells.append(nbformat.v4.new_code_cell("raise RuntimeError('boom at the end')"))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return Notebook(path=path, paper="angle", stem=path.stem, title="Tiny section")


BODY = """
from companion.results import Ledger, within
ledger = Ledger("angle", "01-tiny", profile=profile, seeds=[0])
ledger.claim("x", "one is one", 1, 1.0, within(1, 0.1), kind="paper", source="Table 1")
ledger.save()
print("PROFILE", profile)
"""


def test_parameter_defaults_reads_literals_only():
    assert parameter_defaults('profile = "cpu"\nseeds = [0, 1]\nx = f(3)\n# comment') == {
        "profile": "cpu", "seeds": [0, 1]}


@pytest.mark.slow
def test_smoke_execution_goes_to_scratch_and_counts_claims(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_RESULTS_DIR", raising=False)
    src = _write_nb(tmp_path / "nb" / "angle" / "01-tiny.ipynb", BODY)
    before = src.path.read_bytes()
    result = execute(src, "smoke", output_dir=tmp_path / "scratch")
    assert result.status == "ok", result.error
    assert src.path.read_bytes() == before  # the source notebook is untouched in smoke
    assert result.output == tmp_path / "scratch" / "notebooks" / "angle" / "01-tiny.ipynb"
    assert result.claims == {"reproduced": 1, "total": 1}
    assert (tmp_path / "scratch" / "results" / "angle" / "01-tiny.json").exists()
    executed = nbformat.read(result.output, as_version=4)
    assert executed.metadata["companion"]["profile"] == "smoke"
    assert executed.metadata["companion"]["seeds"] == [0]  # from the provenance its ledger wrote in this run
    assert "PROFILE smoke" in json.dumps(executed.cells[-1].outputs)


@pytest.mark.slow
def test_cpu_execution_writes_back_in_place_and_failures_name_the_cell(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    src = _write_nb(tmp_path / "nb" / "angle" / "01-tiny.ipynb", BODY)
    result = execute(src, "cpu", output_dir=tmp_path / "scratch")
    assert result.status == "ok" and result.output == src.path
    executed = nbformat.read(src.path, as_version=4)
    assert executed.cells[-1].outputs, "outputs are stored in place"
    assert executed.metadata["companion"]["seeds"] == [0] and executed.metadata["companion"]["profile"] == "cpu"
    assert not any("injected-parameters" in c.metadata.get("tags", []) for c in executed.cells)

    bad = _write_nb(tmp_path / "nb" / "angle" / "02-bad.ipynb", BODY, fail=True)
    before = bad.path.read_bytes()
    failed = execute(bad, "cpu", output_dir=tmp_path / "scratch")
    assert failed.status == "failed" and "cell 4" in failed.error and "boom at the end" in failed.error
    assert bad.path.read_bytes() == before  # a failed cpu run leaves the notebook untouched
    assert runner.summary_table([result, failed]).splitlines()[-1] == "2 notebooks, 1 failed, " + \
        f"{result.wall_time_s + failed.wall_time_s:.1f} s in all"


def test_the_notebook_metadata_takes_what_only_the_ledger_knows():
    """The runner's own provenance has no seeds (the notebook chooses them); the ledger's record of the same run
    fills them, and only fields the runner left empty: its settings stay in the provenance file, its wall time (the
    ledger's, shorter than the notebook's) does not replace the runner's."""
    record = {"profile": "cpu", "seeds": [0, 1, 2], "wall_time_s": 1.0, "settings": {"steps": 64}}
    meta = runner.run_provenance("cpu", 12.34, record)
    assert meta["seeds"] == [0, 1, 2] and meta["wall_time_s"] == 12.3 and "settings" not in meta
    assert set(meta) == set(runner.provenance("cpu", seeds=[], wall_time_s=1.0))
    assert runner.run_provenance("cpu", 1.0, None)["seeds"] == []
    assert runner.run_provenance("smoke", 1.0, record)["seeds"] == []  # another profile's record: another run
    assert runner.run_provenance("cpu", 1.0, {**record, "seeds": []})["seeds"] == []  # a run without seeds


@pytest.mark.slow
def test_parallel_run_keeps_order_isolates_smoke_output_and_reports_failures(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_RESULTS_DIR", raising=False)
    good = _write_nb(tmp_path / "nb" / "angle" / "01-tiny.ipynb", BODY)
    bad = _write_nb(tmp_path / "nb" / "angle" / "02-bad.ipynb", BODY.replace("01-tiny", "02-bad"), fail=True)
    monkeypatch.setattr(runner, "list_notebooks", lambda root=None: [good, bad])
    results = runner.run("smoke", output_dir=tmp_path / "scratch", jobs=2)
    assert [r.notebook.key for r in results] == [good.key, bad.key]  # input order, whatever finished first
    assert [r.status for r in results] == ["ok", "failed"] and "boom at the end" in results[1].error
    assert results[0].claims == {"reproduced": 1, "total": 1}
    assert (tmp_path / "scratch" / "results" / "angle" / "01-tiny.json").exists()  # each worker's own scratch env
    with pytest.raises(ValueError, match="jobs must be a whole number >= 1"):
        runner.run("smoke", jobs=0)


def test_unknown_pattern_and_profile():
    nbs = [Notebook(path=None, paper="angle", stem="01-x", title="t")]
    with pytest.raises(ValueError, match="No notebook matches 'zzz'; available: angle/01-x"):
        select(nbs, "zzz")
    assert select(nbs, "angle/0*") == nbs
    with pytest.raises(ValueError, match="Unknown profile"):
        execute(nbs[0], "turbo")


def test_cli_errors_are_one_line():
    out = subprocess.run([sys.executable, "-m", "companion", "run", "--profile", "turbo"], capture_output=True,
                         text=True)
    assert out.returncode == 2 and out.stderr.strip().startswith("error: Unknown profile 'turbo'")
    out = subprocess.run([sys.executable, "-m", "companion", "list", "--only", "no-such-notebook"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "No notebook matches" in out.stderr


@pytest.mark.slow
def test_what_a_run_writes_gets_the_users_file_mode(tmp_path, monkeypatch):
    """The executed notebook, its ledger and its provenance are written through temporary files (``mkstemp``, mode
    0600) and renamed into place; under the usual umask 022 each ends up 0644 like any new file of the user."""
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))  # the kernel saves with this checkout
    src = _write_nb(tmp_path / "nb" / "angle" / "01-tiny.ipynb", BODY)
    old = os.umask(0o022)
    try:
        result = execute(src, "cpu", output_dir=tmp_path / "scratch")
    finally:
        os.umask(old)
    assert result.status == "ok", result.error
    ledger = tmp_path / "results" / "angle" / "01-tiny.json"
    for path in (src.path, ledger, ledger.with_suffix(".provenance.json")):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


def test_the_gpu_profile_without_cuda_is_refused_in_one_line_unless_meant(monkeypatch):
    monkeypatch.setattr(runner, "visible_gpus", lambda: [])
    with pytest.raises(ValueError, match=r"^--profile gpu needs a CUDA GPU and torch sees none here: --dry-run") as info:
        runner.run("gpu", only="angle/01")
    assert "\n" not in str(info.value)
    runner.check_device("gpu", dry_run=True)  # the dry run is what a CPU is for
    runner.check_device("gpu", allow_cpu=True)  # said on purpose
    runner.check_device("cpu")
    monkeypatch.setattr(runner, "visible_gpus", lambda: ["0"])
    runner.check_device("gpu")


def test_the_command_refuses_the_gpu_profile_without_cuda():
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}  # no GPU for this process, whatever the machine has
    out = subprocess.run([sys.executable, "-m", "companion", "run", "--profile", "gpu", "--only", "angle/01"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().startswith("error: --profile gpu needs a CUDA GPU") and out.stderr.count("\n") == 1


def test_a_run_names_each_ledger_of_another_profile_it_replaces(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path))
    nbs = [Notebook(tmp_path / "01-a.ipynb", "angle", "01-a", "a"), Notebook(tmp_path / "02-b.ipynb", "angle", "02-b", "b"),
           Notebook(tmp_path / "03-c.ipynb", "angle", "03-c", "c")]
    (tmp_path / "angle").mkdir()
    (tmp_path / "angle" / "01-a.json").write_text(json.dumps({"profile": "cpu"}))
    (tmp_path / "angle" / "02-b.json").write_text(json.dumps({"profile": "gpu"}))
    assert runner.replaced_profiles(nbs, "gpu") == ["note: angle/01-a: its cpu ledger will be replaced by this gpu run"]
    assert runner.replaced_profiles(nbs, "cpu") == ["note: angle/02-b: its gpu ledger will be replaced by this cpu run"]
    assert runner.replaced_profiles(nbs, "smoke") == [] and runner.replaced_profiles(nbs, "gpu", dry_run=True) == []


def test_the_gpu_grid_reaches_the_notebook_in_the_gpu_profile_only(monkeypatch, tmp_path):
    """``--grid full`` becomes the notebook parameter ``gpu_grid``; the other profiles get no such parameter (their
    executed notebooks stay as they were), and asking them for the full grid is refused in one line."""
    import papermill

    seen = []

    def fake(source, output, parameters, **kwargs):
        seen.append(parameters)
        raise RuntimeError("stopped before the kernel starts")

    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(papermill, "execute_notebook", fake)
    nb = next(n for n in runner.list_notebooks() if n.key.startswith("angle/01"))
    assert runner.execute(nb, "gpu", output_dir=tmp_path, dry_run=True, gpu_grid="full").status != "ok"
    assert runner.execute(nb, "smoke", output_dir=tmp_path).status != "ok"
    assert seen == [{"profile": "gpu", "gpu_grid": "full"}, {"profile": "smoke"}]
    with pytest.raises(ValueError, match="the full grid .* is the gpu profile's") as info:
        runner.run("cpu", only="angle/01", gpu_grid="full")
    assert "\n" not in str(info.value)
