"""Crash- and concurrency-safe file writes for on-disk caches.

A file is written to a temporary file with a unique name in the same folder (``tempfile.mkstemp``), flushed,
fsynced and renamed over the target with ``os.replace``: a process killed mid-write leaves at most a hidden
``.*.part`` file that no reader opens, never a truncated target, and two processes writing the same target at the
same time cannot interleave their bytes in one shared temporary file (a fixed ``path.with_suffix(".tmp")`` name
allowed exactly that). :func:`companion.results.records.write_json_atomic` does the same for the claims ledgers.

``mkstemp`` creates its file readable by its owner only (mode 0600); the written file gets the mode any new file of
the user gets, ``0666`` less the process's umask (:func:`file_mode`), before it takes its final name.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

_UMASK_LOCK = threading.Lock()


def umask() -> int:
    """The process's umask, read without changing it where Linux shows it (``/proc/self/status``); elsewhere set
    and restored at once under a lock (``os.umask`` has no read-only form)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:
        old = os.umask(0o077)
        os.umask(old)
    return old


def file_mode() -> int:
    """The mode of a new file of this user: ``0666`` less the umask (``0644`` under the usual umask ``022``)."""
    return 0o666 & ~umask()


def write_atomic(path: Path, write: Callable[[IO[bytes]], Any], prefix: str | None = None,
                 suffix: str = ".part") -> Path:
    """Call ``write(handle)`` on a binary temporary file beside ``path``, then atomically move it to ``path``.

    The temporary file is named ``<prefix><random><suffix>`` (default prefix ``.<name>.``), so callers that clean up
    after killed writers can find their own leftovers by pattern. ``path`` gets the mode :func:`file_mode`.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = f".{path.name}." if prefix is None else prefix
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            if hasattr(os, "fchmod"):  # mkstemp's 0600 would otherwise become the target's mode
                os.fchmod(handle.fileno(), file_mode())
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
    import torch  # noqa: PLC0415 - torch is heavy; this module imports without it

    return write_atomic(path, lambda handle: torch.save(obj, handle))


def pickle_save_atomic(obj: Any, path: Path) -> Path:
    """``pickle.dump(obj)`` (highest protocol) through :func:`write_atomic`."""
    return write_atomic(path, lambda handle: pickle.dump(obj, handle, protocol=pickle.HIGHEST_PROTOCOL))


def read_cache(path: Path, kind: str = "torch", weights_only: bool = True) -> Any | None:
    """The object cached at ``path`` (``kind`` ``"torch"`` or ``"pickle"``), or ``None`` when the file is missing
    or unreadable (truncated, from another version, corrupt): every cache treats that as a miss and recomputes."""
    if kind not in ("torch", "pickle"):
        raise ValueError(f"Unknown cache kind {kind!r}; use 'torch' or 'pickle'.")
    path = Path(path)
    if not path.is_file():
        return None
    try:
        if kind == "torch":
            import torch  # noqa: PLC0415 - torch is heavy; this module imports without it

            return torch.load(path, map_location="cpu", weights_only=weights_only)

        with open(path, "rb") as handle:
            return pickle.load(handle)
    except Exception:  # noqa: BLE001 - any unreadable cache file is a miss
        return None


def cache_key(recipe: Any, digest_size: int = 10) -> str:
    """The one cache-key recipe: a hex BLAKE2b digest of ``recipe`` as canonical JSON (sorted keys; values that
    JSON cannot hold are written with ``str``). Everything that determines a cached result goes into ``recipe``."""
    text = json.dumps(recipe, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=digest_size).hexdigest()
