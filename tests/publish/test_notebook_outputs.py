"""Stored notebook outputs: what GitHub, Colab, JupyterLab and the Quarto site show without running anything.

* every committed notebook passes :func:`companion.publish.notebook_outputs.problems` (no machine paths, warnings,
  tracebacks, unmerged streams or progress-bar lines; every figure cell shows an inline image), stays under
  1.5 MB, and its inline figures are the PNG files its run saved under ``figures/``;
* ``jupytext --sync`` on a copy of ``notebooks/`` changes no byte, whichever of a notebook and its twin is newer;
* each rule of the sanitiser, shown failing on a small synthetic notebook and passing after :func:`clean`;
* a notebook executed by the runner shows each saved figure once, inline, and no path;
* determinism: ``synthesis/00-errata`` executed twice in the ``smoke`` profile gives two identical notebooks except
  the run's provenance (see :func:`test_two_runs_differ_only_in_provenance`).
"""

from __future__ import annotations

import base64
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from companion import settings
from companion.publish import notebook_outputs as N
from companion.publish.notebooks import Notebook, list_notebooks
from companion.publish.runner import execute
from companion.publish.site import checks

NOTEBOOKS = list_notebooks()
REPO = settings.REPO_ROOT


def _ids(nbs):
    return [nb.key for nb in nbs]


# --------------------------------------------------------------------------------------------- stored notebooks
def test_the_stored_notebooks_are_found():
    assert len(NOTEBOOKS) >= 20


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_stored_notebook_has_no_output_problems(nb):
    assert N.problems(nb.path) == []
    assert nb.path.stat().st_size < 1_500_000


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_inline_figures_are_the_saved_files(nb):
    """Every figure cell shows an image, and an image that names its file is that file byte for byte."""
    cells = json.loads(nb.path.read_text(encoding="utf-8"))["cells"]
    figure_cells = shown = 0
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        names = N.saved_figures("".join(cell["source"]))
        images = [o for o in cell["outputs"] if "image/png" in o.get("data", {})]
        figure_cells += bool(names)
        shown += bool(names and images)
        for out in images:
            figure = out.get("metadata", {}).get("companion", {}).get("figure")
            assert figure, f"{nb.key}: an image that does not name its saved figure"
            assert Path(figure).stem in [Path(n).stem for n, _ in names], f"{nb.key}: {figure} is not this cell's"
            path = REPO / "figures" / figure
            assert path.is_file(), f"{nb.key}: {path} is missing"
            assert base64.b64decode(out["data"]["image/png"]) == path.read_bytes(), f"{nb.key}: {figure} differs"
    assert figure_cells == shown, f"{nb.key}: {figure_cells - shown} figure cell(s) without an image"


def _sync_copy(tmp_path: Path, newer: str) -> list[str]:
    """Copy notebooks/ (and jupytext.toml), make the ``newer`` side newer, sync; the files that changed."""
    root = tmp_path / newer
    shutil.copytree(REPO / "notebooks", root / "notebooks")
    shutil.copy(REPO / "jupytext.toml", root / "jupytext.toml")
    before = {p: p.read_bytes() for p in (root / "notebooks").rglob("*") if p.is_file()}
    later = time.time() + 10
    for path in before:
        if path.name.endswith(".pct.py" if newer == "twin" else ".ipynb"):
            os.utime(path, (later, later))
    files = sorted(str(p) for p in before if p.suffix == ".ipynb")
    done = subprocess.run([sys.executable, "-m", "jupytext", "--sync", *files], cwd=root, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return [str(p.relative_to(root)) for p, data in before.items() if p.read_bytes() != data]


@pytest.mark.slow
@pytest.mark.parametrize("newer", ["twin", "notebook"])
def test_jupytext_sync_changes_nothing(tmp_path, newer):
    assert _sync_copy(tmp_path, newer) == []


# --------------------------------------------------------------------------------------------- sanitiser rules
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


def _nb(*cells, metadata=None):
    return {"cells": list(cells), "metadata": metadata or {"kernelspec": KERNEL},
            "nbformat": 4, "nbformat_minor": 5}


def _code(source="x = 1", outputs=(), metadata=None, id="c1"):
    return {"cell_type": "code", "execution_count": 1, "id": id, "metadata": metadata or {}, "source": source,
            "outputs": list(outputs)}


def _stream(text, name="stderr"):
    return {"output_type": "stream", "name": name, "text": text}


def _kinds(found):
    return "\n".join(found)


def test_consecutive_streams_are_merged():
    nb = _nb(_code(outputs=[_stream("a\n", "stdout"), _stream("b\n", "stdout"), _stream("c\n", "stderr")]))
    assert "unmerged consecutive stdout outputs" in _kinds(N.problems(nb))
    out = N.clean(nb)["cells"][0]["outputs"]
    assert [(o["name"], o["text"]) for o in out] == [("stdout", "a\nb\n"), ("stderr", "c\n")]
    assert N.problems(N.clean(nb)) == []


BAR = "\r{d}: {p:>3}%|{b:<10}| {n}/3 [00:0{n}<00:0{r}, 1.{n}1it/s]"


def _bar(desc="steps", close="\n"):
    states = [BAR.format(d=desc, p=p, b="█" * (p // 10), n=n, r=3 - n) for n, p in ((0, 0), (1, 33), (2, 67), (3, 100))]
    return states, close


def test_a_progress_bar_leaves_nothing():
    states, close = _bar()
    nb = _nb(_code(outputs=[_stream(s) for s in states] + [_stream(close)]))
    found = _kinds(N.problems(nb))
    assert "unmerged" in found and "unrendered progress updates" in found and "1 progress-bar line(s)" in found
    assert N.clean(nb)["cells"][0]["outputs"] == []  # the stderr output held only the bar: it goes
    assert N.problems(N.clean(nb)) == []


def test_a_stored_progress_bar_line_is_reported_until_cleaned():
    """The stored form of an older run (one final line per bar) fails; cleaning drops the lines, keeps the rest."""
    stored = _stream("Loading weights: 100%|██████████| 199/199\nfitted 3 heads\nsteps: 100%|██████████| 3/3\n")
    nb = _nb(_code(outputs=[stored]))
    assert "cell 0: 2 progress-bar line(s) (run `python -m companion notebooks clean`) (Loading weights: 100%" \
        in _kinds(N.problems(nb))
    (out,) = N.clean(nb)["cells"][0]["outputs"]
    assert out["text"] == "fitted 3 heads\n"
    assert N.problems(N.clean(nb)) == []


@pytest.mark.parametrize("line", ["steps: 100%|██████████| 3/3", "  0%|          | 0/15 [00:00<?, ?it/s]",
                                  "12it [00:03,  3.1it/s]", "5.2MB/10.0MB [00:01<00:01, 5MB/s]",
                                  "train: 100%|##########| 30/30 [00:28<00:00,  1.45it/s, loss=0.0658]"])
def test_progress_lines_are_recognised(line):
    assert N.progress_line(line)


@pytest.mark.parametrize("line", ["top-1: 50% | 3/4 pairs", "| 50%| 3 |", "version 1.2 [00:00]", "ratio 3/4 [12:30]",
                                  "accuracy 81.6%"])
def test_other_lines_are_not_progress_lines(line):
    assert not N.progress_line(line)


def test_nested_bars_and_a_cleared_bar_leave_nothing():
    inner = "".join(f"\n\rinner: {p}%|{'█' * (p // 10):<10}| {n}/2 [00:00<00:00, 9.9it/s]\x1b[A"
                    for n, p in ((0, 0), (1, 50), (2, 100)))
    text = ("\router:   0%|          | 0/1 [00:00<?, ?it/s]" + inner + "\n\r" + " " * 40 + "\x1b[A"
            "\router: 100%|██████████| 1/1 [00:01<00:00, 1.00s/it]\n")
    assert N.render_stream(text) == "outer: 100%|██████████| 1/1 [00:01<00:00, 1.00s/it]\n"
    assert N.clean(_nb(_code(outputs=[_stream(text)])))["cells"][0]["outputs"] == []
    cleared = "\rwork:  50%|█████     | 1/2 [00:00<?, ?it/s]\r" + " " * 44 + "\r"
    assert N.clean(_nb(_code(outputs=[_stream(cleared)])))["cells"][0]["outputs"] == []  # leave=False: nothing


def test_a_bar_interrupted_by_stdout_leaves_the_stdout():
    states, _ = _bar("runs")
    outputs = [_stream(states[0]), _stream(states[1]), _stream("run 1 done\n", "stdout"), _stream(states[2]),
               _stream(states[3] + "\n"), _stream("run 2 done\n", "stdout")]
    out = N.clean(_nb(_code(outputs=outputs)))["cells"][0]["outputs"]
    assert [(o["name"], o["text"]) for o in out] == [("stdout", "run 1 done\nrun 2 done\n")]
    # tqdm's closing newline, flushed after a print to stdout, leaves no empty stderr behind
    late = [_stream(states[3]), _stream("done\n", "stdout"), _stream("\n")]
    out = N.clean(_nb(_code(outputs=late)))["cells"][0]["outputs"]
    assert [(o["name"], o["text"]) for o in out] == [("stdout", "done\n")]


def test_a_bar_printed_to_stdout_goes_and_the_messages_stay():
    text = "epoch 1\rtrain: 100%|██████████| 30/30 [00:28<00:00,  1.45it/s, loss=0.0658]\nloss 0.0658\n"
    (out,) = N.clean(_nb(_code(outputs=[_stream("epoch 1\n", "stdout"), _stream(text, "stdout")])))["cells"][0][
        "outputs"]
    assert out["text"] == "epoch 1\nloss 0.0658\n"


WARNINGS = (
    "/venv/lib/python3.11/site-packages/tqdm/auto.py:21: TqdmWarning: IProgress not found. Please update jupyter "
    "and ipywidgets. See https://ipywidgets.readthedocs.io/en/stable/user_install.html\n"
    "  from .autonotebook import tqdm as notebook_tqdm\n"
    "kept line one\n"
    "/tmp/ipykernel_301/3705628497.py:16: UserWarning: Converting a tensor with requires_grad=True to a scalar.\n"
    "Consider using tensor.detach() first. (Triggered internally at /__w/torch/csrc/x.cpp:822.)\n"
    "  before = float(w.norm())\n"
    "[IPKernelApp] WARNING | Unknown error in handling startup files\n"
    "kept line two\n"
)


def test_warnings_are_dropped_from_stderr():
    nb = _nb(_code(outputs=[_stream(WARNINGS)]))
    found = _kinds(N.problems(nb))
    assert "a warning (" in found and "a machine path" in found
    (out,) = N.clean(nb)["cells"][0]["outputs"]
    assert out["text"] == "kept line one\nkept line two\n"
    assert N.problems(N.clean(nb)) == []
    only = _nb(_code(outputs=[_stream(WARNINGS.split("kept")[0])]))
    assert N.clean(only)["cells"][0]["outputs"] == []  # a stream that held only a warning disappears


def test_machine_paths_become_repository_relative(monkeypatch, tmp_path):
    cache = tmp_path / "cache-dir"
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(cache))
    text = (f"saved {REPO / 'figures' / 'angle' / 'x.png'}; cache {cache / 'emb' / 'a.pt'}; "
            f"root {REPO}; home {Path.home() / 'notes.txt'}\n")
    plain = {"output_type": "execute_result", "execution_count": 1, "metadata": {},
             "data": {"text/plain": f"PosixPath('{REPO / 'results' / 'angle' / 'x.json'}')"}}
    nb = _nb(_code(outputs=[_stream(text, "stdout"), plain]))
    found = _kinds(N.problems(nb))
    assert "a machine path" in found and "echoes a path" in found
    out = N.clean(nb)["cells"][0]["outputs"]
    assert out[0]["text"] == "saved figures/angle/x.png; cache <cache>/emb/a.pt; root .; home ~/notes.txt\n"
    assert out[1]["data"]["text/plain"] == "PosixPath('results/angle/x.json')"
    assert N.machine_paths(json.dumps(N.clean(nb))) == []
    # another checkout's path becomes repository-relative only when it names a file of this repository
    assert N.replace_paths("/ci/checkout/figures/angle/table4-ablation.png") == "figures/angle/table4-ablation.png"
    assert N.replace_paths("/ci/checkout/figures/angle/x.png") == "/ci/checkout/figures/angle/x.png"


def test_volatile_metadata_is_removed_and_provenance_kept():
    stamps = {"duration": 1.2, "end_time": "2026-11-24T18:42:53+00:00", "status": "completed"}
    meta = {"papermill": {"input_path": f"{REPO}/notebooks/a/01-x.ipynb", **stamps}, "widgets": {"state": {}},
            "companion": {"profile": "cpu", "date": "2026-11-24 18:42:55 UTC"}, "kernelspec": KERNEL}
    cell = _code(metadata={"papermill": stamps, "execution": {"iopub.status.idle": "2026-11-24T18:42:50Z"},
                           "tags": ["parameters"]})
    nb = _nb(cell, {"cell_type": "markdown", "id": "m1", "metadata": {"papermill": stamps}, "source": "# x"},
             metadata=meta)
    found = _kinds(N.problems(nb))
    assert "volatile notebook metadata 'papermill'" in found and "in 2 cell(s)" in found
    assert "a machine path in the notebook metadata" in found
    cleaned = N.clean(nb)
    assert set(cleaned["metadata"]) == {"companion", "kernelspec"}
    assert cleaned["metadata"]["companion"] == meta["companion"]
    assert [c["metadata"] for c in cleaned["cells"]] == [{"tags": ["parameters"]}, {}]
    assert N.problems(cleaned) == []


def test_a_table_displayed_and_returned_is_kept_once_and_widgets_go():
    table = {"text/html": "<table></table>", "text/plain": "   a\n0  1"}
    outputs = [{"output_type": "display_data", "metadata": {}, "data": table},
               {"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": dict(table)},
               {"output_type": "display_data", "metadata": {},
                "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "abc"}, "text/plain": "HBox()"}}]
    nb = _nb(_code(outputs=outputs))
    found = _kinds(N.problems(nb))
    assert "shows the same output twice" in found and "ipywidgets view" in found
    out = N.clean(nb)["cells"][0]["outputs"]
    assert [o["output_type"] for o in out] == ["display_data"] and out[0]["data"] == table


def test_the_injected_parameters_cell_gets_a_fixed_id():
    injected = _code('profile = "smoke"', metadata={"tags": ["injected-parameters"]}, id="5f3a9c2e")
    cleaned = N.clean(_nb(_code(id="a"), injected))
    assert [c["id"] for c in cleaned["cells"]] == ["a", "injected-parameters"]


def test_tracebacks_are_reported_and_kept():
    error = {"output_type": "error", "ename": "ValueError", "evalue": "boom", "traceback": ["Traceback ...", "boom"]}
    nb = _nb(_code(outputs=[error]))
    assert "stores a traceback (ValueError: boom)" in _kinds(N.problems(nb))
    assert N.clean(nb)["cells"][0]["outputs"][0]["ename"] == "ValueError"  # a failure is not hidden


def test_a_figure_cell_without_image_gets_the_saved_png(tmp_path):
    png = REPO / "figures" / "synthesis" / "errata-at-a-glance.png"
    figures = tmp_path / "figures" / "synthesis"
    figures.mkdir(parents=True)
    shutil.copy(png, figures / "fig-a.png")
    result = {"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": {"text/plain": "'ok'"}}
    cell = _code('fig, ax = plt.subplots()\nledger.savefig(fig, "fig-a")\nledger.claim("x")', outputs=[result])
    nb = _nb(cell)
    assert "saves figure 'fig-a' but shows no inline image" in _kinds(N.problems(nb))
    assert "no inline image" in _kinds(N.problems(N.clean(nb)))  # not without figures=
    report = []
    out = N.clean(nb, figures=figures, report=report)["cells"][0]["outputs"]
    assert [o["output_type"] for o in out] == ["display_data", "execute_result"]
    assert base64.b64decode(out[0]["data"]["image/png"]) == png.read_bytes()
    assert out[0]["metadata"] == {"companion": {"figure": "fig-a.png"}}
    assert report == ["cell 0: embedded saved figure fig-a.png"]
    assert N.problems(N.clean(nb, figures=figures)) == []
    with pytest.raises(FileNotFoundError, match="saves figure 'fig-b.png' but .* does not exist"):
        N.clean(_nb(_code('ledger.savefig(fig, "fig-b")')), figures=figures)
    conditional = _nb(_code('if ok:\n    ledger.savefig(fig, "fig-a")'))
    assert N.problems(conditional) == []  # a figure drawn only in a branch may be absent


def test_clean_is_idempotent_and_rewrites_files(tmp_path):
    states, close = _bar()
    nb = _nb(_code(outputs=[_stream(s) for s in states] + [_stream(close), _stream(WARNINGS)]),
             metadata={"papermill": {"duration": 1.0}, "kernelspec": KERNEL})
    once = N.clean(nb)
    assert N.clean(once) == once
    path = tmp_path / "01-x.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    N.clean(path)
    stored = path.read_bytes()
    assert json.loads(stored) == json.loads(N.dumps(once)) and N.problems(path) == []
    N.clean(path)
    assert path.read_bytes() == stored
    nbformat.validate(nbformat.reads(stored.decode(), as_version=4))


def test_clear_errors_for_bad_input(tmp_path):
    with pytest.raises(FileNotFoundError, match="No notebook at"):
        N.clean(tmp_path / "missing.ipynb")
    (tmp_path / "x.py").write_text("")
    with pytest.raises(ValueError, match="is not a notebook"):
        N.problems(tmp_path / "x.py")
    (tmp_path / "bad.ipynb").write_text("{not json")
    with pytest.raises(ValueError, match="not valid notebook JSON"):
        N.clean(tmp_path / "bad.ipynb")
    with pytest.raises(ValueError, match="no 'cells' list"):
        N.clean({"metadata": {}})


def test_a_stored_notebook_gets_the_seeds_its_ledger_recorded(tmp_path, monkeypatch):
    """``clean`` on a stored notebook fills the empty fields of ``metadata.companion`` from its ledger's provenance
    (same profile), changing nothing else; ``problems`` names each such field until then."""
    results = tmp_path / "results"
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(results))
    meta = {"date": "d", "hardware": {"gpu": None}, "profile": "cpu", "seeds": [], "versions": {}, "wall_time_s": 9.9}
    nb = _nb(_code(outputs=[_stream("a\n", "stdout")]))
    nb["metadata"]["companion"] = meta
    path = tmp_path / "notebooks" / "angle" / "01-a.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(N.dumps(nb))
    assert N.problems(path, root=tmp_path) == [] and N.clean(path)["metadata"]["companion"] == meta  # none yet
    record = results / "angle" / "01-a.provenance.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({**meta, "profile": "smoke", "seeds": [0]}))
    assert N.problems(path, root=tmp_path) == [] and N.clean(path)["metadata"]["companion"] == meta  # other run
    record.write_text(json.dumps({**meta, "seeds": [0, 1, 2], "versions": {"numpy": "x"}, "wall_time_s": 1.0,
                                  "settings": {"steps": 3}}))
    assert N.problems(path, root=tmp_path) == [
        f"notebooks/angle/01-a.ipynb: metadata.companion.{key} is empty but its ledger's provenance knows it (run "
        "`python -m companion notebooks clean`)" for key in ("seeds", "versions")]
    before = json.loads(path.read_text())
    N.clean(path)
    after = json.loads(path.read_text())
    assert after["metadata"]["companion"] == {**meta, "seeds": [0, 1, 2], "versions": {"numpy": "x"}}
    assert after["cells"] == before["cells"] and N.problems(path, root=tmp_path) == []


def test_command_line_check_then_clean(tmp_path, capsys):
    folder = tmp_path / "notebooks" / "angle"
    folder.mkdir(parents=True)
    path = folder / "01-x.ipynb"
    states, close = _bar()
    path.write_text(json.dumps(_nb(_code(outputs=[_stream(s) for s in states] + [_stream(close)]))))
    assert N.main(["clean", "--check", str(tmp_path / "notebooks")]) == 1
    assert "unmerged consecutive stderr outputs" in capsys.readouterr().out
    assert N.main(["clean", str(path)]) == 0
    assert "5 -> 0 outputs" in capsys.readouterr().out
    assert N.main(["clean", "--check", str(path)]) == 0
    assert N.main(["clean", str(tmp_path / "nothing-here")]) == 2
    assert "neither a notebook" in capsys.readouterr().err


def test_site_check_reports_output_problems_until_cleaned(tmp_path):
    folder = tmp_path / "notebooks" / "angle"
    folder.mkdir(parents=True)
    path = folder / "01-a.ipynb"
    path.write_text(json.dumps(_nb(_code(outputs=[_stream("a\n", "stdout"), _stream("b\n", "stdout")]))))
    (tmp_path / "_quarto.yml").write_text("website:\n  sidebar:\n  - contents: [notebooks/angle/01-a.ipynb]\n")
    assert "notebooks/angle/01-a.ipynb: cell 0: unmerged consecutive stdout outputs" in checks.check(tmp_path)
    N.clean(path)
    assert not [p for p in checks.check(tmp_path) if "01-a.ipynb: cell" in p]


# --------------------------------------------------------------------------------------------- executed notebooks
TINY = '''
import sys
import warnings
import matplotlib.pyplot as plt
from tqdm import tqdm
from companion.results import Ledger, holds, show_provenance
ledger = Ledger("angle", "01-tiny", profile=profile, seeds=[0])
warnings.warn("IProgress not found. Please update jupyter and ipywidgets.")
for _ in tqdm(range(40), desc="steps", mininterval=0):
    pass
print("done")
'''

FIGURE = '''
fig, ax = plt.subplots(figsize=(2, 2))
ax.plot([0, 1], [0, 1])
ledger.savefig(fig, "tiny-line")
'''

LAST = '''
ledger.claim("one", "one is one", ours=True, criterion=holds(), kind="check")
ledger.save()
show_provenance(ledger)
'''


@pytest.mark.slow
@pytest.mark.notebook
def test_an_executed_notebook_shows_its_figure_once_and_no_path(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_RESULTS_DIR", raising=False)
    monkeypatch.delenv("COMPANION_FIGURES_DIR", raising=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Tiny\nA test notebook."),
                nbformat.v4.new_code_cell('profile = "cpu"', metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(TINY), nbformat.v4.new_code_cell(FIGURE), nbformat.v4.new_code_cell(LAST)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "nb" / "angle" / "01-tiny.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    result = execute(Notebook(path=path, paper="angle", stem="01-tiny", title="Tiny"), "smoke",
                     output_dir=tmp_path / "scratch")
    assert result.status == "ok", result.error
    executed = json.loads(result.output.read_text(encoding="utf-8"))
    assert N.problems(result.output) == []
    tiny, figure, last = executed["cells"][-3:]
    # the warning and the 41 redraws of the bar are dropped: stdout is all that is left
    assert [(o["name"], "".join(o["text"])) for o in tiny["outputs"]] == [("stdout", "done\n")]
    (image,) = figure["outputs"]
    saved = tmp_path / "scratch" / "figures" / "angle" / "tiny-line.png"
    assert image["output_type"] == "display_data"
    assert base64.b64decode(image["data"]["image/png"]) == saved.read_bytes()
    assert image["metadata"] == {"companion": {"figure": "angle/tiny-line.png"}}
    assert [o["output_type"] for o in last["outputs"]] == ["display_data"]  # provenance shown once
    assert "papermill" not in executed["metadata"] and executed["metadata"]["companion"]["profile"] == "smoke"


# --------------------------------------------------------------------------------------------- determinism
DETERMINISM = "synthesis/00-errata"
#: What two runs with the same seeds may show differently: the run's provenance, nothing else.
#: ``metadata.companion.date`` / ``.wall_time_s`` (written by the runner) and, in the provenance table of the
#: notebook's last code cell (``show_provenance``), the values of its "date" and "wall time (s)" rows.
PROVENANCE_ROWS = ("date", "wall time (s)")


def _mask_provenance(nb: dict) -> tuple[dict, int]:
    """``nb`` with the allowed differences replaced by a placeholder; also how many values were masked."""
    nb = copy.deepcopy(nb)
    masked = 0
    for key in ("date", "wall_time_s"):
        masked += key in nb["metadata"]["companion"]
        nb["metadata"]["companion"][key] = "<run>"
    (cell,) = [c for c in nb["cells"] if c["cell_type"] == "code" and "show_provenance(" in "".join(c["source"])]
    assert cell is [c for c in nb["cells"] if c["cell_type"] == "code"][-1], "provenance is not the last cell"
    for out in cell["outputs"]:
        for mime, value in out.get("data", {}).items():
            text = "".join(value) if isinstance(value, list) else value
            for row in PROVENANCE_ROWS:
                # the padding before a right-aligned value depends on its width: masked with it
                text, n_plain = re.subn(rf"(?m)^({re.escape(row)})\s+\S.*$", r"\1 <run>", text)
                text, n_html = re.subn(rf"(<th>{re.escape(row)}</th>\s*<td>)[^<]*(</td>)", r"\1<run>\2", text)
                masked += n_plain + n_html
            out["data"][mime] = text
    return nb, masked


@pytest.mark.slow
@pytest.mark.notebook
def test_two_runs_differ_only_in_provenance(tmp_path, monkeypatch):
    """``synthesis/00-errata`` twice in the smoke profile through the runner, into two scratch folders: the two
    executed (and so sanitised) notebooks are identical byte for byte once the provenance values are masked
    (:data:`PROVENANCE_ROWS` of the last cell, ``metadata.companion`` date and wall time); nothing else differs."""
    monkeypatch.delenv("COMPANION_RESULTS_DIR", raising=False)
    monkeypatch.delenv("COMPANION_FIGURES_DIR", raising=False)
    nb = next(n for n in NOTEBOOKS if n.key == DETERMINISM)
    runs = []
    for name in ("first", "second"):
        result = execute(nb, "smoke", output_dir=tmp_path / name)
        assert result.status == "ok", f"{DETERMINISM} failed in {result.error}"
        assert result.output == tmp_path / name / "notebooks" / nb.paper / nb.path.name
        assert N.problems(result.output) == []
        runs.append(json.loads(result.output.read_text(encoding="utf-8")))
    (first, n_first), (second, n_second) = (_mask_provenance(r) for r in runs)
    assert n_first == n_second == 2 + 2 * len(PROVENANCE_ROWS)  # metadata + plain and html rows: really masked
    assert any("image/png" in o.get("data", {}) for c in first["cells"] for o in c.get("outputs", []))
    a, b = (json.dumps(x, indent=1, sort_keys=True, ensure_ascii=False).splitlines() for x in (first, second))
    assert a == b, "the two runs differ beyond their provenance:\n" + "\n".join(
        f"  {x[:120]!r} vs {y[:120]!r}" for x, y in zip(a, b) if x != y)


def test_provenance_mask_ignores_the_width_of_a_value():
    """A wall time of 9.8 s and one of 10.2 s pad their row differently in pandas' plain text; masked, the two
    notebooks are equal, and a difference in any other row still shows."""
    def notebook(wall: str, seeds: str = "0") -> dict:
        frame = pd.DataFrame({"value": ["smoke", seeds, wall, "2026-01-01", "Linux-long-platform-name"]},
                             index=pd.Index(["profile", "seeds", "wall time (s)", "date", "hardware: platform"],
                                            name="what"))
        out = {"output_type": "display_data", "metadata": {},
               "data": {"text/plain": frame.to_string(), "text/html": frame.to_html()}}
        cell = {"cell_type": "code", "source": "show_provenance()", "outputs": [out]}
        return {"metadata": {"companion": {"date": "x", "wall_time_s": wall}}, "cells": [cell]}

    (a, n_a), (b, n_b), (c, _) = (_mask_provenance(notebook(w, s)) for w, s in (("9.8", "0"), ("10.2", "0"),
                                                                               ("10.2", "1")))
    assert n_a == n_b == 2 + 2 * len(PROVENANCE_ROWS)
    assert a == b
    assert a != c
