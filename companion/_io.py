"""Crash- and concurrency-safe file writes for on-disk caches.

A file is written to a temporary file with a unique name in the same folder (``tempfile.mkstemp``), flushed,
fsynced and renamed over the target with ``os.replace``: a process killed mid-write leaves at most a hidden
``.*.part`` file that no reader opens, never a truncated target, and two processes writing the same target at the
same time cannot interleave their bytes in one shared temporary file (a fixed ``path.with_suffix(".tmp")`` name
allowed exactly that). :func:`companion.results.write_json_atomic` does the same for the claims ledgers.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def write_atomic(path: Path, write: Callable[[IO[bytes]], Any], prefix: str | None = None,
                 suffix: str = ".part") -> Path:
    """Call ``write(handle)`` on a binary temporary file beside ``path``, then atomically move it to ``path``.

    The temporary file is named ``<prefix><random><suffix>`` (default prefix ``.<name>.``), so callers that clean up
    after killed writers can find their own leftovers by pattern.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = f".{path.name}." if prefix is None else prefix
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def torch_save_atomic(obj: Any, path: Path) -> Path:
    """``torch.save(obj, path)`` through :func:`write_atomic`."""
    import torch

    return write_atomic(path, lambda handle: torch.save(obj, handle))
