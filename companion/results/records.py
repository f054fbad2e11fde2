"""The files a run writes beside its ledger, and how: JSON bytes written atomically, the output folders of a
profile, the provenance record (wall time, hardware, library versions) and whether it belongs to its ledger.

The provenance holds what changes from run to run, so that the ledger itself is byte-identical across reruns with
the same seeds; it names its ledger by the sha256 of its bytes (:meth:`companion.results.Ledger.save`,
:func:`ledger_provenance`). In the ``smoke`` profile results and figures go to a scratch folder
(``<cache>/smoke``) unless ``COMPANION_RESULTS_DIR`` / ``COMPANION_FIGURES_DIR`` say otherwise
(:func:`output_dirs`), so a smoke run never overwrites the committed ``cpu`` results.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from companion import settings as _settings
from companion._io import write_atomic


def json_bytes(payload: Any) -> bytes:
    """The bytes :func:`write_json_atomic` writes for ``payload`` (indented JSON, UTF-8, a final newline)."""
    return (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_json_atomic(path: Path, payload: Any) -> Path:
    """Write JSON through a temporary file in the same folder and ``os.replace``: never a half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json_bytes(payload)
    return write_atomic(path, lambda handle: handle.write(data), suffix=".tmp")


def output_dirs(profile: str) -> tuple[Path, Path]:
    """(results dir, figures dir) for ``profile``; smoke defaults to a scratch folder outside the repository."""
    env_results = os.environ.get("COMPANION_RESULTS_DIR")
    env_figures = os.environ.get("COMPANION_FIGURES_DIR")
    if profile == "smoke":
        scratch = _settings.cache_dir() / "smoke"
        return (Path(env_results) if env_results else scratch / "results",
                Path(env_figures) if env_figures else scratch / "figures")
    return _settings.results_dir(), _settings.figures_dir()


_VERSIONED = ("torch", "transformers", "sentence-transformers", "datasets", "numpy", "scipy", "scikit-learn",
              "pandas", "matplotlib", "papermill")


def library_versions(names: Sequence[str] = _VERSIONED) -> dict[str, str | None]:
    """Python's version and the installed version of each distribution in ``names`` (None if not installed)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def provenance(profile: str, seeds: Sequence[int], wall_time_s: float | None = None) -> dict[str, Any]:
    """Profile, hardware, seeds, library versions and wall time of the run that produced a notebook."""
    versions = library_versions()
    hardware = {"machine": platform.machine(), "processor": platform.processor() or platform.machine(),
                "cpu_count": os.cpu_count(), "platform": platform.platform(terse=True)}
    try:
        import torch  # noqa: PLC0415 - torch is heavy; the command line reads provenance without it

        hardware["torch_threads"] = torch.get_num_threads()
        hardware["gpu"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    except ImportError:  # pragma: no cover - torch is a hard requirement
        pass
    out = {"profile": profile, "seeds": list(seeds), "hardware": hardware, "versions": versions,
           "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    if wall_time_s is not None:
        out["wall_time_s"] = round(wall_time_s, 1)
    return out


def provenance_path(paper: str, notebook: str, root: Path | None = None) -> Path:
    """``<results>/<paper>/<notebook>.provenance.json``: the record :meth:`Ledger.save` writes beside the ledger
    (``root``: the results folder, default :func:`companion.settings.results_dir`)."""
    root = Path(root) if root is not None else _settings.results_dir()
    return root / paper / f"{Path(notebook).stem}.provenance.json"


def ledger_provenance(paper: str, notebook: str, root: Path | None = None, since: float | None = None) -> dict | None:
    """The provenance record of the notebook's ledger (:func:`provenance_path`); ``None`` when there is none, when
    (with ``since``, a :func:`time.time`) it was written before ``since``, or when it names a ledger other than the
    one beside it (its ``ledger_sha256`` is not the ledger file's: :meth:`Ledger.save` was stopped between its two
    writes). A record written before ``ledger_sha256`` existed is taken as it is."""
    path = provenance_path(paper, notebook, root)
    if not path.is_file() or (since is not None and path.stat().st_mtime < since):
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    return record if provenance_belongs(record, path.with_name(f"{Path(notebook).stem}.json")) else None


def provenance_belongs(record: dict[str, Any], ledger: Path) -> bool:
    """Whether the provenance ``record`` belongs to the ledger file ``ledger``: the sha256 it names
    (``ledger_sha256``, written by :meth:`Ledger.save`) is that of the file's bytes. A record without that field,
    written before it existed, belongs."""
    if "ledger_sha256" not in record:
        return True
    return Path(ledger).is_file() and sha256_file(ledger) == record["ledger_sha256"]


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (list, dict, str)) and not value)


def completed_provenance(record: dict[str, Any], known: dict[str, Any] | None) -> dict[str, Any]:
    """``record`` (a notebook's ``metadata.companion``, whose runner knows no seeds) with each of its empty fields
    (``[]``, ``{}``, ``""``, ``None``) taken from ``known``, the ledger's provenance of the same run, where that
    field is not empty there; every other field as it is, and no field added. ``known`` of another profile (or
    ``None``) fills nothing."""
    out = dict(record)
    if not known or known.get("profile") != record.get("profile"):
        return out
    for key, value in record.items():
        if _empty(value) and not _empty(known.get(key)):
            out[key] = known[key]
    return out



def sha256_file(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
