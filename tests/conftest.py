"""Test session settings: never wait on an unreachable hub; find the data mirror beside the repository; the
``preemption`` fixture (a gpu-profile run stopped mid-way and resumed from its checkpoint)."""

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
_mirror = Path(__file__).resolve().parents[1].parent / "shared" / "data"
if "COMPANION_DATA_DIR" not in os.environ and _mirror.is_dir():
    os.environ["COMPANION_DATA_DIR"] = str(_mirror)


class Preemption:
    """The gpu profile's checkpoints in a test: every ``every`` steps, in a scratch cache; :meth:`stop_at` makes
    the next :func:`companion.training.train` call stop after its ``step``-th step (``KeyboardInterrupt`` from its
    ``after_step``, as a preempted job stops). A test hands each run its profile (``profile="gpu"``), as a notebook
    hands down ``cfg.profile``."""

    def __init__(self, monkeypatch, cache: Path, every: int):
        from companion import training

        monkeypatch.setenv("COMPANION_CACHE_DIR", str(cache))
        monkeypatch.setattr(training, "CHECKPOINT_EVERY", every)
        self.monkeypatch, self.cache, self.stop, self.checkpoints = monkeypatch, cache, None, []
        self.original = training.train
        monkeypatch.setattr(training, "train", self.train)
        for name, module in list(sys.modules.items()):  # the modules loaded already that imported it by name
            if name.startswith("companion.") and getattr(module, "train", None) is self.original:
                monkeypatch.setattr(module, "train", self.train)

    def patch(self, module) -> None:
        """Also in ``module``, which imported ``train`` by name when it was loaded (a module loaded before the
        fixture is patched by it already; one loaded after it imports the patched ``train``)."""
        self.monkeypatch.setattr(module, "train", self.train)

    def stop_at(self, step: int) -> None:
        self.stop = step

    def left(self) -> list[Path]:
        """The checkpoint files in the cache."""
        return sorted((self.cache / "checkpoints").glob("*.pt"))

    def train(self, *args, **kwargs):
        self.checkpoints.append(kwargs.get("checkpoint"))
        if self.stop is not None:
            at, hook, calls = self.stop, kwargs.get("after_step"), []
            self.stop = None

            def after_step():
                if hook is not None:
                    hook()
                calls.append(None)
                if len(calls) == at:
                    raise KeyboardInterrupt

            kwargs["after_step"] = after_step
        return self.original(*args, **kwargs)


@pytest.fixture
def preemption(tmp_path, monkeypatch):
    """:class:`Preemption` with a checkpoint every 2 steps."""
    return Preemption(monkeypatch, tmp_path / "cache", every=2)
