"""The on-disk embedding cache: sharded, append-only, atomically written stores keyed by exact text, and the
fingerprint of a model's in-memory weights that names them (see :mod:`companion.encoders`)."""

from __future__ import annotations

import hashlib
import os
import time
import warnings
from pathlib import Path

import torch

from companion._io import write_atomic

__all__ = ["weights_fingerprint"]

_FULL_HASH_BYTES = 256 * 2**20
_MAX_SHARDS = 32
_STALE_PART_S = 3600  # a temporary shard older than this belongs to a killed writer


# --------------------------------------------------------------------------------------------- fingerprint
def weights_fingerprint(model: torch.nn.Module) -> str:
    """Hash of the model's in-memory tensors (see :mod:`companion.encoders` for the two regimes and their
    cost)."""
    tensors = [(n, t) for n, t in model.state_dict(keep_vars=False).items() if isinstance(t, torch.Tensor)]
    total = sum(t.numel() * t.element_size() for _, t in tensors)
    h = hashlib.blake2b(digest_size=16)
    full = total <= _FULL_HASH_BYTES
    h.update(b"full" if full else b"sampled")
    with torch.no_grad():
        for name, t in tensors:
            h.update(f"{name}|{tuple(t.shape)}|{t.dtype}".encode())
            if t.numel() == 0:
                continue
            flat = t.detach().reshape(-1)
            if full:
                h.update(flat.cpu().contiguous().view(torch.uint8).numpy().tobytes())
                continue
            x = flat.double() if flat.is_floating_point() else flat.to(torch.float64)
            stats = torch.stack([x.sum(), (x * x).sum()])
            step = max(1, flat.numel() // 4096)
            sample = flat[::step].contiguous()
            h.update(stats.cpu().numpy().tobytes())
            h.update(sample.cpu().view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def _text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


# ------------------------------------------------------------------------------------------------- storage
class _Store:
    """Sharded, append-only, atomically written store: exact-text key -> float32 row (or token-state block)."""

    def __init__(self, root: Path):
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self._remove_stale_parts()
        self._loaded: dict[str, None] = {}  # shard file name -> loaded
        self._rows: dict[bytes, torch.Tensor] = {}

    def _remove_stale_parts(self) -> None:
        """Delete temporary shard files left by writers killed mid-write (never read; only disk space). Files
        younger than ``_STALE_PART_S`` are kept: another process may still be writing them."""
        cutoff = time.time() - _STALE_PART_S
        for part in self.root.glob(".tmp-*.part"):
            try:
                if part.stat().st_mtime < cutoff:
                    part.unlink()
            except OSError:
                pass

    def _shards(self) -> list[Path]:
        return sorted(self.root.glob("shard-*.pt"))

    def refresh(self, check) -> None:
        for path in self._shards():
            if path.name in self._loaded:
                continue
            try:
                payload = torch.load(path, map_location="cpu", weights_only=True)
                keys, values = payload["keys"], payload["values"]
                check(keys, values)
            except Exception as exc:  # noqa: BLE001 - any unreadable shard is ignored and recomputed
                warnings.warn(f"Ignoring unreadable embedding-cache shard {path} ({type(exc).__name__}); recomputing.",
                              stacklevel=3)
                try:
                    path.unlink()
                except OSError:
                    pass
                continue
            self._loaded[path.name] = None
            for k, v in zip(keys, values):
                self._rows[bytes(k)] = v

    def get(self, key: bytes):
        return self._rows.get(key)

    def add(self, keys: list[bytes], values: list[torch.Tensor]) -> None:
        if not keys:
            return
        for k, v in zip(keys, values):
            self._rows[k] = v
        name = self._write(keys, values)
        self._loaded[name] = None
        if len(self._loaded) > _MAX_SHARDS:
            self._compact()

    def _write(self, keys: list[bytes], values: list[torch.Tensor]) -> str:
        key_tensor = torch.frombuffer(bytearray(b"".join(keys)), dtype=torch.uint8).reshape(len(keys), 16)
        payload = {"keys": key_tensor, "values": _pack(values)}
        name = f"shard-{time.time_ns():020d}-{os.getpid()}-{hashlib.blake2b(keys[0], digest_size=4).hexdigest()}.pt"
        write_atomic(self.root / name, lambda fh: torch.save(payload, fh), prefix=".tmp-")
        return name

    def _compact(self) -> None:
        old = [p for p in self._shards() if p.name in self._loaded]
        keys = list(self._rows)
        name = self._write(keys, [self._rows[k] for k in keys])
        for p in old:
            try:
                p.unlink()
            except OSError:
                pass
        self._loaded = {name: None}


def _pack(values: list[torch.Tensor]):
    """Rows of equal shape are stacked; variable-length blocks (token states) are kept as a list."""
    shapes = {tuple(v.shape) for v in values}
    if len(shapes) == 1:
        return torch.stack(values)
    return list(values)
