"""What ``python -m companion run`` prints: a clean progress line (no kernel transport warning across it), and at
the end where the smoke outputs went and where a failed notebook's partial copy is.

The run uses a throw-away checkout (``COMPANION_REPO_ROOT``) with two tiny notebooks, one of which fails.
"""

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from companion.publish import notebooks, runner

REPO = Path(__file__).resolve().parents[2]
WARNING = "without encryption"


def _notebook(path: Path, code: str) -> Path:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('profile = "cpu"')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# Tiny"), params, nbformat.v4.new_code_cell(code)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def _checkout(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "companion"\n')
    _notebook(root / "notebooks" / "angle" / "01-tiny.ipynb", "print('fine', profile)")
    _notebook(root / "notebooks" / "angle" / "02-bad.ipynb", "raise ValueError('boom at the end')")
    return root


@pytest.mark.slow
def test_run_reports_where_outputs_went_without_kernel_noise(tmp_path):
    root = _checkout(tmp_path / "checkout")
    scratch = tmp_path / "scratch"
    env = {**os.environ, "PYTHONPATH": str(REPO), "COMPANION_REPO_ROOT": str(root)}
    done = subprocess.run([sys.executable, "-m", "companion", "run", "--profile", "smoke", "--output-dir",
                           str(scratch)], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert WARNING not in done.stderr and WARNING not in done.stdout
    assert "ok     angle/01-tiny" in done.stdout and "FAILED angle/02-bad" in done.stdout
    tail = done.stdout.strip().splitlines()[-2:]
    assert tail[0] == f"smoke outputs (executed copies, results, figures): {scratch}"
    partial = scratch / "failed" / "angle" / "02-bad.ipynb"
    assert tail[1] == f"partial copy of failed angle/02-bad: {partial}"
    assert partial.is_file() and (scratch / "notebooks" / "angle" / "01-tiny.ipynb").is_file()
    assert "boom at the end" in partial.read_text()


def test_output_locations_for_a_cpu_run(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("COMPANION_FIGURES_DIR", str(tmp_path / "figures"))
    nb = notebooks.Notebook(path=tmp_path / "01-x.ipynb", paper="angle", stem="01-x", title="x")
    ok = runner.RunResult(nb, "ok", 1.0, nb.path)
    gone = runner.RunResult(nb, "failed", 1.0, tmp_path / "failed" / "01-x.ipynb", error="cell 3: boom")
    lines = runner.output_locations([ok, gone], "cpu")
    assert lines == [f"executed notebooks written back in place; claims in {tmp_path / 'results'}, figures in "
                     f"{tmp_path / 'figures'}",
                     "partial copy of failed angle/01-x: none was written"]


def test_the_kernel_talks_over_ipc_sockets_in_a_private_folder(tmp_path):
    config = runner._kernel_config(tmp_path)
    assert config.KernelManager.transport == "ipc" and config.KernelManager.ip == str(tmp_path / "kernel")
    assert "transport" not in runner._kernel_config(None).KernelManager
