"""Execute the notebooks with papermill: ``python -m companion run [--profile P] [--only PATTERN]``.

* ``smoke`` writes executed copies, results and figures to a scratch folder outside the source tree
  (``<cache>/smoke``, or ``--output-dir``), so CI never touches committed outputs.
* ``cpu`` and ``gpu`` execute into a temporary file and, on success, replace the notebook in place, so the stored
  outputs are what GitHub, Colab and the site show. A failed run leaves the source notebook untouched and keeps the
  partial copy next to the scratch outputs for inspection.
* ``gpu`` with ``dry_run=True`` (``--dry-run``) runs the gpu code path on a CPU in seconds, tiny stand-ins for the
  backbones and the smoke profile's sizes (:mod:`companion.profiles`, ``COMPANION_DRY_RUN``); it writes like
  ``smoke``, to a scratch folder (``<cache>/gpu-dry-run``), never into the repository.

Each executed notebook records its profile, seeds, hardware, library versions and wall time in its metadata
(``metadata.companion``); the seeds come from the provenance its ledger wrote in the same run
(``results/<paper>/<notebook>.provenance.json``). The notebooks' own last cell shows the same provenance.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from companion import settings as _settings
from companion.profiles import PROFILES, check_profile
from companion.publish.notebooks import Notebook, list_notebooks, select
from companion.results import completed_provenance, ledger_provenance, provenance

KERNEL = "python3"


@dataclass
class RunResult:
    notebook: Notebook
    status: str  # "ok" | "failed"
    wall_time_s: float
    output: Path
    error: str | None = None
    claims: dict[str, int] = field(default_factory=dict)


def _scratch(profile: str, output_dir: Path | None, dry_run: bool = False) -> Path:
    return Path(output_dir) if output_dir else _settings.cache_dir() / (f"{profile}-dry-run" if dry_run else profile)


def _check_dry_run(profile: str, dry_run: bool) -> None:
    if dry_run and profile != "gpu":
        raise ValueError(f"--dry-run is the gpu profile's dry run; got profile {profile!r} (use --profile gpu).")


def _describe_failure(exc: Exception) -> str:
    cell = getattr(exc, "cell_index", None)
    count = getattr(exc, "exec_count", None)
    ename = getattr(exc, "ename", type(exc).__name__)
    evalue = getattr(exc, "evalue", str(exc))
    where = f"cell {cell}" + (f" [{count}]" if count is not None else "") if cell is not None else "notebook"
    last = str(evalue).strip().splitlines()[-1] if str(evalue).strip() else ""
    return f"{where}: {ename}: {last}"


def parameter_defaults(source: str) -> dict:
    """Literal ``name = value`` assignments of a parameters cell (non-literal values are skipped)."""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return out


def run_provenance(profile: str, wall: float, ledger_record: dict | None = None) -> dict:
    """The notebook's ``metadata.companion``: this process's provenance (profile, hardware, versions, the notebook's
    wall time), with what it cannot know (the seeds) from ``ledger_record``, the provenance the notebook's ledger
    wrote in the same run (:func:`companion.results.completed_provenance`)."""
    return completed_provenance(provenance(profile, seeds=[], wall_time_s=wall), ledger_record)


def _finalise(output: Path, profile: str, wall: float, scratch: Path | None = None,
              ledger_record: dict | None = None) -> None:
    """Drop a redundant injected-parameters cell, record provenance in the notebook metadata (:func:`run_provenance`)
    and store the outputs in their clean form (:func:`companion.publish.notebook_outputs.clean`; the scratch folder
    becomes ``<scratch>``)."""
    import nbformat

    from companion.publish.notebook_outputs import clean

    nb = nbformat.read(output, as_version=4)
    defaults: dict = {}
    for cell in nb.cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            defaults = parameter_defaults(cell.source)
    if defaults.get("profile") == profile:
        nb.cells = [c for c in nb.cells if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    nb.metadata["companion"] = run_provenance(profile, wall, ledger_record)
    nbformat.write(nbformat.from_dict(clean(nb, places={scratch: "<scratch>"} if scratch else None)), output)


def _claim_counts(nb: Notebook, results_root: Path, since: float) -> dict[str, int]:
    path = results_root / nb.paper / f"{nb.stem}.json"
    if not path.exists() or path.stat().st_mtime < since:
        return {}
    claims = [c for c in json.loads(path.read_text(encoding="utf-8")).get("claims", []) if c.get("kind") == "paper"]
    return {"reproduced": sum(c["verdict"] == "reproduced" for c in claims), "total": len(claims)}


def _kernel_config(sockets: Path | None):
    """Kernel settings for papermill: on POSIX the kernel talks over IPC sockets in ``sockets`` (a fresh folder per
    notebook, so kernels started at once never share a socket) instead of TCP, so it has no reason to print its
    "running over TCP without encryption" warning across the runner's progress line."""
    from traitlets.config import Config

    config = Config()
    if sockets is not None:
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = str(sockets / "kernel")
    return config


def execute(nb: Notebook, profile: str, output_dir: Path | None = None, timeout: int | None = None,
            progress: bool = False, dry_run: bool = False) -> RunResult:
    """Execute one notebook with papermill in ``profile``; never raises for a failing cell (see ``status``).

    ``dry_run=True`` (gpu only) sets ``COMPANION_DRY_RUN=1`` for the kernel and writes to scratch like smoke."""
    import papermill

    from companion.profiles import DRY_RUN_ENV

    check_profile(profile)
    _check_dry_run(profile, dry_run)
    scratch = _scratch(profile, output_dir, dry_run)
    env_backup = {k: os.environ.get(k) for k in ("COMPANION_RESULTS_DIR", "COMPANION_FIGURES_DIR", DRY_RUN_ENV)}
    if dry_run:
        os.environ[DRY_RUN_ENV] = "1"
    else:
        os.environ.pop(DRY_RUN_ENV, None)
    if profile == "smoke" or dry_run:
        os.environ["COMPANION_RESULTS_DIR"] = str(scratch / "results")
        os.environ["COMPANION_FIGURES_DIR"] = str(scratch / "figures")
        final = scratch / "notebooks" / nb.paper / nb.path.name
    else:
        final = nb.path
    results_root = Path(os.environ.get("COMPANION_RESULTS_DIR") or _settings.results_dir())
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=final.parent, prefix=f".{nb.stem}.", suffix=".ipynb")
    os.close(fd)
    tmp = Path(tmp_name)
    start_wall, start = time.time(), time.perf_counter()
    error = None
    sockets = Path(tempfile.mkdtemp(prefix="companion-kernel-")) if os.name == "posix" else None
    try:
        papermill.execute_notebook(str(nb.path), str(tmp), parameters={"profile": profile}, kernel_name=KERNEL,
                                   cwd=str(nb.path.parent), progress_bar=progress, execution_timeout=timeout,
                                   config=_kernel_config(sockets))
    except Exception as exc:  # noqa: BLE001 - papermill raises PapermillExecutionError and others
        error = _describe_failure(exc)
    finally:
        if sockets is not None:
            shutil.rmtree(sockets, ignore_errors=True)
        for key, value in env_backup.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    wall = time.perf_counter() - start
    if error is None:
        _finalise(tmp, profile, wall, scratch, ledger_provenance(nb.paper, nb.stem, results_root, since=start_wall))
        os.replace(tmp, final)
        output = final
    else:
        failed = scratch / "failed" / nb.paper / nb.path.name
        failed.parent.mkdir(parents=True, exist_ok=True)
        if tmp.exists():
            shutil.move(tmp, failed)
        output = failed
    return RunResult(nb, "ok" if error is None else "failed", wall, output, error,
                     _claim_counts(nb, results_root, start_wall) if error is None else {})


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as ``CUDA_VISIBLE_DEVICES`` entries (its own list when set); empty without
    CUDA. Reads the count from torch only when the variable is unset."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        return [g.strip() for g in listed.split(",") if g.strip() and g.strip() != "-1"]
    import torch

    return [str(i) for i in range(torch.cuda.device_count())] if torch.cuda.is_available() else []


def gpu_assignments(jobs: int, gpus: list[str]) -> list[str]:
    """``CUDA_VISIBLE_DEVICES`` of each of ``jobs`` workers: the GPUs in turn (more workers than GPUs share them);
    empty without GPUs."""
    return [gpus[i % len(gpus)] for i in range(jobs)] if gpus else []


def _claim_gpu(queue) -> None:
    """Worker initialiser: take one GPU from ``queue`` and make it the only one this worker (and the notebook
    kernels it starts) can see."""
    os.environ["CUDA_VISIBLE_DEVICES"] = queue.get()


def run(profile: str = "smoke", only: str | None = None, output_dir: Path | None = None,
        timeout: int | None = None, jobs: int = 1, dry_run: bool = False) -> list[RunResult]:
    """Execute the selected notebooks, with a progress display; returns one result per notebook, in order.

    ``jobs > 1`` runs that many notebooks at once, each in its own worker process (a notebook's kernel inherits its
    worker's environment, so the smoke profile's scratch settings never leak between notebooks). Use it for the
    smoke profile on a multi-core machine; for ``cpu`` timings keep ``jobs=1`` so that notebooks do not share cores.
    In the ``gpu`` profile each worker gets its own GPU (``CUDA_VISIBLE_DEVICES``, :func:`gpu_assignments`), so
    ``--jobs N`` on an N-GPU machine runs N notebooks at once, one per GPU.
    ``dry_run`` (gpu only): see :func:`execute`.
    """
    from tqdm.auto import tqdm

    check_profile(profile)
    _check_dry_run(profile, dry_run)
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs must be a whole number >= 1, got {jobs!r}")
    chosen = select(list_notebooks(), only)
    results: dict[str, RunResult] = {}
    bar = tqdm(total=len(chosen), desc=f"notebooks ({profile})", unit="nb")

    def report(result: RunResult) -> None:
        results[result.notebook.key] = result
        bar.update(1)
        tqdm.write(f"{'ok    ' if result.status == 'ok' else 'FAILED'} {result.notebook.key:<55} "
                   f"{result.wall_time_s:7.1f} s" + (f"  {result.error}" if result.error else ""))

    if jobs == 1 or len(chosen) < 2:
        for nb in chosen:
            bar.set_postfix_str(nb.key)
            report(execute(nb, profile, output_dir=output_dir, timeout=timeout,
                           progress=profile != "smoke" and not dry_run, dry_run=dry_run))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        workers = min(jobs, len(chosen))
        context = multiprocessing.get_context("spawn")
        gpus = gpu_assignments(workers, visible_gpus()) if profile == "gpu" else []
        init: dict = {}
        if gpus:
            queue = context.Queue()
            for gpu in gpus:
                queue.put(gpu)
            init = {"initializer": _claim_gpu, "initargs": (queue,)}
        with ProcessPoolExecutor(max_workers=workers, mp_context=context, **init) as pool:
            futures = [pool.submit(execute, nb, profile, output_dir, timeout, False, dry_run) for nb in chosen]
            for future in as_completed(futures):
                report(future.result())
    bar.close()
    return [results[nb.key] for nb in chosen]


def output_locations(results: list[RunResult], profile: str, output_dir: Path | None = None,
                     dry_run: bool = False) -> list[str]:
    """Where a run's outputs went: the smoke profile's scratch folder, or the notebooks written back in place, and
    the partial copy of every failed notebook (one line each)."""
    lines = []
    if profile == "smoke" or dry_run:
        what = "gpu dry-run" if dry_run else "smoke"
        lines.append(f"{what} outputs (executed copies, results, figures): {_scratch(profile, output_dir, dry_run)}")
    elif any(r.status == "ok" for r in results):
        lines.append(f"executed notebooks written back in place; claims in {_settings.results_dir()}, "
                     f"figures in {_settings.figures_dir()}")
    for r in results:
        if r.status != "ok":
            where = r.output if r.output.exists() else "none was written"
            lines.append(f"partial copy of failed {r.notebook.key}: {where}")
    return lines


#: printed under the run table of the smoke profile and the gpu dry run, whose verdicts decide nothing
PLACEHOLDER_NOTE = ("{what} verdicts are placeholders: tiny subsets, a few steps and one or two seeds exercise "
                    "every code path and decide nothing about the papers. The verdicts of record are computed by "
                    "the cpu profile and stored in results/: python -m companion scoreboard")


def summary_table(results: list[RunResult], profile: str = "cpu", dry_run: bool = False) -> str:
    """Plain-text table: notebook, status, wall time, paper claims reproduced/total, failing cell.

    For the smoke profile and the gpu dry run the claims column counts the paper claims graded, not their
    verdicts, and a last line (:data:`PLACEHOLDER_NOTE`) says that those verdicts are placeholders."""
    placeholder = profile == "smoke" or dry_run
    rows = [("notebook", "status", "wall (s)", "paper claims graded" if placeholder else "paper claims reproduced",
             "error")]
    for r in results:
        claims = ("-" if not r.claims else str(r.claims["total"]) if placeholder
                  else f"{r.claims['reproduced']}/{r.claims['total']}")
        rows.append((r.notebook.key, r.status, f"{r.wall_time_s:.1f}", claims, r.error or ""))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + ("  " + row[4] if row[4] else "")
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    total = sum(r.wall_time_s for r in results)
    failed = sum(r.status != "ok" for r in results)
    lines.append(f"{len(results)} notebooks, {failed} failed, {total:.1f} s in all")
    if placeholder:
        lines.append(PLACEHOLDER_NOTE.format(what="gpu dry-run" if dry_run else "smoke"))
    return "\n".join(lines)


__all__ = ["PROFILES", "RunResult", "execute", "gpu_assignments", "output_locations", "run", "run_provenance",
           "summary_table", "visible_gpus"]
