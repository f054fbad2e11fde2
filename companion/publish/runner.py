"""Execute the notebooks with papermill: ``python -m companion run [--profile P] [--only PATTERN]``.

* ``smoke`` writes executed copies, results and figures to a scratch folder outside the source tree
  (``<cache>/smoke``, or ``--output-dir``), so CI never touches committed outputs.
* ``cpu`` and ``gpu`` execute into a temporary file and, on success, replace the notebook in place, so the stored
  outputs are what GitHub, Colab and the site show. A failed run leaves the source notebook untouched and keeps the
  partial copy next to the scratch outputs for inspection.
* ``gpu`` with ``dry_run=True`` (``--dry-run``) runs the gpu code path on a CPU in seconds, tiny stand-ins for the
  backbones and the smoke profile's sizes (:mod:`companion.profiles`, ``COMPANION_DRY_RUN``); it writes like
  ``smoke``, to a scratch folder (``<cache>/gpu-dry-run``), never into the repository.

A run interrupted (Ctrl-C) stops at once and leaves no temporary notebook or kernel folder behind; the notebook
it was running is not written (:class:`Interrupted` says which notebooks finished). Two runs of one notebook that
would write the same places never run at once: the second refuses (:class:`NotebookBusy`, :func:`notebook_lock`).

Each executed notebook records its profile, seeds, hardware, library versions and wall time in its metadata
(``metadata.companion``); the seeds come from the provenance its ledger wrote in the same run
(``results/<paper>/<notebook>.provenance.json``). The notebooks' own last cell shows the same provenance.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import json
import logging
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from tqdm.auto import tqdm

from companion import settings as _settings
from companion._io import cache_key, file_mode
from companion.profiles import DRY_RUN_ENV, PROFILES, check_gpu_grid, check_profile
from companion.publish.notebook_outputs import clean
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


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (``KeyboardInterrupt``): ``finished``, the notebooks that completed and were written
    (their :class:`RunResult`); ``stopped``, the keys (``paper/notebook``) of those interrupted, of which nothing
    was written but what their kernel saved before the interrupt (``ledgers``: the keys whose ledger it saved);
    ``not_started``, the keys never started."""

    def __init__(self, finished: list[RunResult] | None = None, stopped: list[str] | None = None,
                 not_started: list[str] | None = None, ledgers: list[str] | None = None) -> None:
        super().__init__(finished or [], stopped or [], not_started or [], ledgers or [])
        self.finished, self.stopped = list(finished or []), list(stopped or [])
        self.not_started, self.ledgers = list(not_started or []), list(ledgers or [])

    def line(self) -> str:
        """One line for the reader: what was not written, what finished, what never started."""
        plain = [key for key in self.stopped if key not in self.ledgers]
        parts = [f"nothing written for {', '.join(plain)}"] if plain else []
        if self.ledgers:
            parts.append(f"notebook not written for {', '.join(self.ledgers)}, whose kernel had already saved the "
                         "ledger")
        if not self.stopped:
            parts.append("no notebook was running")
        if self.finished:
            parts.append(f"finished and written: {', '.join(r.notebook.key for r in self.finished)}")
        if self.not_started:
            parts.append(f"{len(self.not_started)} not started")
        return "interrupted: " + "; ".join(parts)


class NotebookBusy(RuntimeError):
    """Another run of the same notebook, writing the same places, holds its lock (:func:`notebook_lock`)."""


def _scratch(profile: str, output_dir: Path | None, dry_run: bool = False) -> Path:
    return Path(output_dir) if output_dir else _settings.cache_dir() / (f"{profile}-dry-run" if dry_run else profile)


def _check_timeout(timeout: int | None) -> None:
    if timeout is not None and (not isinstance(timeout, int) or isinstance(timeout, bool) or timeout < 1):
        raise ValueError(f"timeout (--timeout) must be a whole number of seconds >= 1, got {timeout!r}")


def _check_dry_run(profile: str, dry_run: bool, gpu_grid: str = "day") -> None:
    if dry_run and profile != "gpu":
        raise ValueError(f"--dry-run is the gpu profile's dry run; got profile {profile!r} (use --profile gpu).")
    check_gpu_grid(gpu_grid, profile)


def check_device(profile: str, dry_run: bool = False, allow_cpu: bool = False) -> None:
    """Refuse the gpu profile where torch sees no CUDA GPU (days of CPU, results over the committed ones), unless
    it is the dry run or ``allow_cpu`` says it is meant."""
    if profile == "gpu" and not dry_run and not allow_cpu and not visible_gpus():
        raise ValueError("--profile gpu needs a CUDA GPU and torch sees none here: --dry-run checks its code path on "
                         "a CPU in seconds; --allow-cpu runs it here anyway (days, and it replaces the cpu results)")


def replaced_profiles(chosen: list[Notebook], profile: str, dry_run: bool = False) -> list[str]:
    """One line per notebook whose committed ledger comes from another profile than the in-place run ``profile``
    about to replace it (smoke and the dry run write to scratch and replace nothing)."""
    root = _settings.results_dir()
    return [] if profile == "smoke" or dry_run else [
        f"note: {nb.key}: its {before} ledger will be replaced by this {profile} run"
        for nb in chosen if (before := nb.ledger_profile(root)) not in (None, profile)]


def _describe_failure(exc: Exception) -> str:
    cell, count = getattr(exc, "cell_index", None), getattr(exc, "exec_count", None)
    ename, evalue = getattr(exc, "ename", type(exc).__name__), getattr(exc, "evalue", str(exc))
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
    import nbformat  # noqa: PLC0415 - nbformat is heavy; this module imports without it

    nb = nbformat.read(output, as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    defaults = parameter_defaults(tagged[-1].source) if tagged else {}
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
    "running over TCP without encryption" warning across the runner's progress line. The kernel manager is
    :func:`_kernel_manager_class`'s."""
    from traitlets.config import Config  # noqa: PLC0415 - traitlets is heavy; this module imports without it

    config = Config()
    config.NotebookClient.kernel_manager_class = _kernel_manager_class()
    if sockets is not None:
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = str(sockets / "kernel")
    return config


#: whether a SIGINT came while :func:`_noting_interrupts` watched (this process executes one notebook at a time)
_INTERRUPT = {"seen": False}


@contextlib.contextmanager
def _noting_interrupts() -> Iterator[None]:
    """While the block runs, note a SIGINT (:data:`_INTERRUPT`) before handling it as before (a
    ``KeyboardInterrupt``), so that the kernel's shutdown that follows is immediate (:func:`_kernel_manager_class`);
    a second one, while that shutdown runs, is only noted, so that it cannot leave the kernel's files behind. Only
    the main thread receives signals; elsewhere, or where SIGINT is ignored, nothing changes."""
    _INTERRUPT["seen"] = False
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return

    def note(signum, frame) -> None:
        first = not _INTERRUPT["seen"]
        _INTERRUPT["seen"] = True
        if first:
            previous(signum, frame)

    signal.signal(signal.SIGINT, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@functools.lru_cache(maxsize=1)
def _kernel_manager_class() -> type:
    """jupyter_client's ``AsyncKernelManager`` (nbclient's default), except that after a Ctrl-C the kernel is
    stopped at once instead of asked to shut down: the clean shutdown interrupts the running cell and closes the
    kernel's sockets while that cell still answers, and the kernel prints a traceback across the terminal."""
    from jupyter_client import AsyncKernelManager  # noqa: PLC0415 - jupyter_client is heavy; this module imports without it

    class KernelManager(AsyncKernelManager):
        async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
            await super().shutdown_kernel(now=now or _INTERRUPT["seen"], restart=restart)

    return KernelManager


def _destination(nb: Notebook, profile: str, output_dir: Path | None, dry_run: bool) -> tuple[Path, Path]:
    """(the executed notebook's final path, the results folder its ledger goes to) of a run."""
    scratch = _scratch(profile, output_dir, dry_run)
    if profile == "smoke" or dry_run:
        return scratch / "notebooks" / nb.paper / nb.path.name, scratch / "results"
    return nb.path, Path(os.environ.get("COMPANION_RESULTS_DIR") or _settings.results_dir())


def lock_path(nb: Notebook, profile: str, output_dir: Path | None = None, dry_run: bool = False) -> Path:
    """``<cache>/locks/<paper>-<notebook>-<key>.lock``: the lock of the runs of ``nb`` that write the same executed
    notebook and the same results folder (``key``, a digest of the two paths): a cpu and a gpu run of a notebook in
    place share it, a smoke run into its own scratch folder has its own."""
    final, results_root = _destination(nb, profile, output_dir, dry_run)
    key = cache_key([str(final.resolve()), str(results_root.resolve())], digest_size=6)
    return _settings.cache_dir() / "locks" / f"{nb.paper}-{nb.stem}-{key}.lock"


@contextlib.contextmanager
def notebook_lock(nb: Notebook, profile: str, output_dir: Path | None = None,
                  dry_run: bool = False) -> Iterator[Path]:
    """Hold the lock of ``nb``'s runs (:func:`lock_path`; ``fcntl.flock``, released by the system when the process
    ends, however it ends) for the block; :class:`NotebookBusy` at once, naming the holder's process id, when
    another process holds it. A no-op where ``fcntl`` does not exist (Windows)."""
    try:
        import fcntl  # noqa: PLC0415 - POSIX only; no lock on Windows
    except ImportError:  # pragma: no cover - POSIX only
        yield lock_path(nb, profile, output_dir, dry_run)
        return
    path = lock_path(nb, profile, output_dir, dry_run)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise NotebookBusy(f"another run of {nb.key} is in progress (pid {holder}); wait for it to finish or "
                               f"stop it (Ctrl-C in its terminal, or kill -INT {holder})") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield path
    finally:
        os.close(fd)  # closing the file releases the lock


def _ledger_saved(nb: Notebook, results_root: Path, since: float) -> bool:
    ledger = results_root / nb.paper / f"{nb.stem}.json"
    return ledger.is_file() and ledger.stat().st_mtime >= since


def execute(nb: Notebook, profile: str, output_dir: Path | None = None, timeout: int | None = None,
            progress: bool = False, dry_run: bool = False, lock: bool = True, gpu_grid: str = "day") -> RunResult:
    """Execute one notebook with papermill in ``profile``; never raises for a failing cell (see ``status``).

    ``dry_run=True`` (gpu only) sets ``COMPANION_DRY_RUN=1`` for the kernel and writes to scratch like smoke;
    ``gpu_grid`` (gpu only) is the notebook parameter of that name (:data:`companion.profiles.GPU_GRIDS`). ``lock``:
    hold the notebook's lock (:func:`notebook_lock`; ``False`` where the caller holds it); raises
    :class:`NotebookBusy` when another run holds it. Interrupted (``KeyboardInterrupt``), it removes its temporary
    notebook and kernel folder, writes no executed notebook and raises :class:`Interrupted`."""
    check_profile(profile)
    _check_dry_run(profile, dry_run, gpu_grid)
    _check_timeout(timeout)
    with notebook_lock(nb, profile, output_dir, dry_run) if lock else contextlib.nullcontext():
        return _execute(nb, profile, output_dir, timeout, progress, dry_run, gpu_grid)


def _execute(nb: Notebook, profile: str, output_dir: Path | None, timeout: int | None, progress: bool,
             dry_run: bool, gpu_grid: str = "day") -> RunResult:
    import papermill  # noqa: PLC0415 - papermill is heavy; this module imports without it

    scratch = _scratch(profile, output_dir, dry_run)
    final, results_root = _destination(nb, profile, output_dir, dry_run)
    final.parent.mkdir(parents=True, exist_ok=True)
    env_backup = {k: os.environ.get(k) for k in ("COMPANION_RESULTS_DIR", "COMPANION_FIGURES_DIR", DRY_RUN_ENV)}
    start_wall, start = time.time(), time.perf_counter()
    error, tmp, sockets, interrupted = None, None, None, None
    try:
        if dry_run:
            os.environ[DRY_RUN_ENV] = "1"
        else:
            os.environ.pop(DRY_RUN_ENV, None)
        if profile == "smoke" or dry_run:
            os.environ["COMPANION_RESULTS_DIR"] = str(results_root)
            os.environ["COMPANION_FIGURES_DIR"] = str(scratch / "figures")
        fd, tmp_name = tempfile.mkstemp(dir=final.parent, prefix=f".{nb.stem}.", suffix=".ipynb")
        tmp = Path(tmp_name)
        os.close(fd)
        os.chmod(tmp, file_mode())  # the executed notebook takes this file's place: a user's file, not mkstemp's 0600
        sockets = Path(tempfile.mkdtemp(prefix="companion-kernel-")) if os.name == "posix" else None
        try:
            with _noting_interrupts():
                grid = {"gpu_grid": gpu_grid} if profile == "gpu" else {}
                papermill.execute_notebook(str(nb.path), str(tmp), parameters={"profile": profile, **grid},
                                           kernel_name=KERNEL, cwd=str(nb.path.parent), progress_bar=progress,
                                           execution_timeout=timeout, config=_kernel_config(sockets))
        except Exception as exc:  # noqa: BLE001 - papermill raises PapermillExecutionError and others
            error = _describe_failure(exc)
        wall = time.perf_counter() - start
        if error is None:
            _finalise(tmp, profile, wall, scratch,
                      ledger_provenance(nb.paper, nb.stem, results_root, since=start_wall))
            os.replace(tmp, final)
            output = final
        else:
            failed = scratch / "failed" / nb.paper / nb.path.name
            failed.parent.mkdir(parents=True, exist_ok=True)
            if tmp.exists():
                shutil.move(tmp, failed)
            output = failed
    except KeyboardInterrupt:
        interrupted = Interrupted(stopped=[nb.key],
                                  ledgers=[nb.key] if _ledger_saved(nb, results_root, start_wall) else [])
    finally:  # whatever happened: no temporary notebook, no kernel folder, the environment as it was
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        if sockets is not None:
            shutil.rmtree(sockets, ignore_errors=True)
        for key, value in env_backup.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    if interrupted is not None:
        _collect_quietly()
        raise interrupted
    return RunResult(nb, "ok" if error is None else "failed", wall, output, error,
                     _claim_counts(nb, results_root, start_wall) if error is None else {})


def _collect_quietly() -> None:
    """Collect what an interrupted papermill left (the kernel client's unfinished asyncio tasks) now and without a
    word: collected later, each would print "Task exception was never retrieved" and a traceback."""
    log = logging.getLogger("asyncio")
    disabled, log.disabled = log.disabled, True
    try:
        gc.collect()
    finally:
        log.disabled = disabled


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as ``CUDA_VISIBLE_DEVICES`` entries (its own list when set); empty without
    CUDA. Reads the count from torch only when the variable is unset."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        return [g.strip() for g in listed.split(",") if g.strip() and g.strip() != "-1"]
    import torch  # noqa: PLC0415 - torch is heavy; this module imports without it

    return [str(i) for i in range(torch.cuda.device_count())] if torch.cuda.is_available() else []


def gpu_assignments(jobs: int, gpus: list[str]) -> list[str]:
    """``CUDA_VISIBLE_DEVICES`` of each of ``jobs`` workers: the GPUs in turn (more workers than GPUs share them);
    empty without GPUs."""
    return [gpus[i % len(gpus)] for i in range(jobs)] if gpus else []


def _claim_gpu(queue) -> None:
    """Take one GPU from ``queue`` and make it the only one this worker (and the notebook kernels it starts) can
    see."""
    os.environ["CUDA_VISIBLE_DEVICES"] = queue.get()


#: in a worker process of :func:`run`: whether a notebook is executing, and whether an interrupt has come
_WORKER = {"executing": False, "interrupted": False}


def _interrupt_once(signum, frame) -> None:
    """A worker's SIGINT handler: the first interrupt while a notebook executes raises ``KeyboardInterrupt``; any
    other is only noted. A Ctrl-C (which reaches every process of the terminal) followed by the one the parent
    forwards thus cannot cut the worker's clean-up short, and an idle worker neither dies with a traceback nor
    starts another notebook (:func:`_worker_execute`)."""
    first = not _WORKER["interrupted"]
    _WORKER["interrupted"] = True
    if first and _WORKER["executing"]:
        raise KeyboardInterrupt


def _init_worker(queue=None) -> None:
    """Worker initialiser: interrupts as :func:`_interrupt_once`; with a ``queue``, one GPU (:func:`_claim_gpu`)."""
    signal.signal(signal.SIGINT, _interrupt_once)
    if queue is not None:
        _claim_gpu(queue)


def _worker_execute(nb: Notebook, *args) -> RunResult:
    """:func:`execute` in a worker process; after an interrupt, starts nothing (:class:`Interrupted`)."""
    if _WORKER["interrupted"]:
        raise Interrupted(not_started=[nb.key])
    _WORKER["executing"] = True
    try:
        return execute(nb, *args)
    finally:
        _WORKER["executing"] = False


def run(profile: str = "smoke", only: str | None = None, output_dir: Path | None = None,
        timeout: int | None = None, jobs: int = 1, dry_run: bool = False, allow_cpu: bool = False,
        echo=None, gpu_grid: str = "day") -> list[RunResult]:
    """Execute the selected notebooks, with a progress display; returns one result per notebook, in order.

    ``jobs > 1`` runs that many notebooks at once, each in its own worker process (a notebook's kernel inherits its
    worker's environment, so the smoke profile's scratch settings never leak between notebooks). Use it for the
    smoke profile on a multi-core machine; for ``cpu`` timings keep ``jobs=1`` so that notebooks do not share cores.
    In the ``gpu`` profile each worker gets its own GPU (``CUDA_VISIBLE_DEVICES``, :func:`gpu_assignments`), so
    ``--jobs N`` on an N-GPU machine runs N notebooks at once, one per GPU.
    ``dry_run`` and ``gpu_grid`` (gpu only): see :func:`execute`. The gpu profile without a CUDA GPU is refused
    unless ``allow_cpu`` (:func:`check_device`); a notebook whose committed ledger comes from another profile is
    named before it runs (:func:`replaced_profiles`, through ``echo``, default the progress display's writer).

    The lock of every selected notebook (:func:`notebook_lock`) is taken before the first starts, so a run that
    would write what another run is writing refuses at once (:class:`NotebookBusy`). Interrupted, it stops the
    notebooks running, starts no other and raises :class:`Interrupted`, which names what finished.
    """
    check_profile(profile)
    _check_dry_run(profile, dry_run, gpu_grid)
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs must be a whole number >= 1, got {jobs!r}")
    _check_timeout(timeout)
    check_device(profile, dry_run, allow_cpu)
    chosen = select(list_notebooks(), only)
    for line in replaced_profiles(chosen, profile, dry_run):
        (echo or tqdm.write)(line)
    results: dict[str, RunResult] = {}
    stopped: dict[str, bool] = {}  # interrupted notebook -> whether its kernel had saved its ledger

    def report(result: RunResult) -> None:
        results[result.notebook.key] = result
        bar.update(1)
        tqdm.write(f"{'ok    ' if result.status == 'ok' else 'FAILED'} {result.notebook.key:<55} "
                   f"{result.wall_time_s:7.1f} s" + (f"  {result.error}" if result.error else ""))

    def note(exc: Interrupted) -> None:
        stopped.update({key: key in exc.ledgers for key in exc.stopped})

    with contextlib.ExitStack() as locks:
        for nb in chosen:
            locks.enter_context(notebook_lock(nb, profile, output_dir, dry_run))
        bar = tqdm(total=len(chosen), desc=f"notebooks ({profile})", unit="nb")
        try:
            if jobs == 1 or len(chosen) < 2:
                for nb in chosen:
                    bar.set_postfix_str(nb.key)
                    try:
                        report(execute(nb, profile, output_dir=output_dir, timeout=timeout,
                                       progress=profile != "smoke" and not dry_run, dry_run=dry_run, lock=False,
                                       gpu_grid=gpu_grid))
                    except KeyboardInterrupt as exc:  # a second Ctrl-C may come before execute says what it stopped
                        note(exc if isinstance(exc, Interrupted) else Interrupted(stopped=[nb.key]))
                        raise
            else:
                _run_parallel(chosen, profile, output_dir, timeout, jobs, dry_run, report, note, gpu_grid)
        except KeyboardInterrupt:
            stopped = {key: saved for key, saved in stopped.items() if key not in results}
            raise Interrupted([results[nb.key] for nb in chosen if nb.key in results], list(stopped),
                              [nb.key for nb in chosen if nb.key not in results and nb.key not in stopped],
                              [key for key, saved in stopped.items() if saved]) from None
        finally:
            bar.close()
    return [results[nb.key] for nb in chosen]


def _run_parallel(chosen: list[Notebook], profile: str, output_dir: Path | None, timeout: int | None, jobs: int,
                  dry_run: bool, report, note, gpu_grid: str = "day") -> None:
    """:func:`run`'s ``jobs > 1``: one worker process per notebook running at once. Interrupted, it passes the
    interrupt on to the workers (:func:`_interrupt_once`), cancels the notebooks not started and waits for the
    running ones to clean up; ``note`` hears of each notebook a worker stopped."""
    workers = min(jobs, len(chosen))
    context = multiprocessing.get_context("spawn")
    gpus = gpu_assignments(workers, visible_gpus()) if profile == "gpu" else []
    queue = None
    if gpus:
        queue = context.Queue()
        for gpu in gpus:
            queue.put(gpu)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker,
                               initargs=(queue,))
    futures = [pool.submit(_worker_execute, nb, profile, output_dir, timeout, False, dry_run, False, gpu_grid)
               for nb in chosen]
    reported = set()
    try:
        for future in as_completed(futures):
            report(future.result())
            reported.add(future)
    except KeyboardInterrupt:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C waits for the clean-up too
        try:
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                with contextlib.suppress(OSError):
                    os.kill(process.pid, signal.SIGINT)
            pool.shutdown(wait=True, cancel_futures=True)
            for future in futures:
                if future in reported or not future.done() or future.cancelled():
                    continue
                exc = future.exception()
                if exc is None:
                    report(future.result())
                elif isinstance(exc, Interrupted):
                    note(exc)
        finally:
            signal.signal(signal.SIGINT, previous)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


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
