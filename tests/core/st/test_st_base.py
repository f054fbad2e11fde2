"""companion.st as a package: its shared base (companion.st.base) and its one import path.

Every loss of the per-paper modules is importable from ``companion.st`` (its documented path) and nothing else is
listed there; ``companion.losses`` and ``companion.st`` import and compute from a copy of the package alone, without
sentence-transformers and with an empty data folder (the base embeds columns with any module that returns
``{"sentence_embedding": ...}``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from companion import st
from companion.st import angle, circumplex, concepts, simace, weighted_cl
from companion.st.base import _CompanionLoss

ROOT = Path(__file__).resolve().parents[3]
MODULES = (simace, circumplex, weighted_cl, concepts, angle)


def test_every_loss_of_every_module_is_imported_from_the_package_in_order():
    assert st.__all__ == [name for module in MODULES for name in module.__all__]
    for module in MODULES:
        for name in module.__all__:
            cls = getattr(module, name)
            assert getattr(st, name) is cls and issubclass(cls, _CompanionLoss), name


def test_losses_and_st_import_from_the_package_alone(tmp_path):
    """A copy of companion/ alone (no repository, no data, no sentence-transformers): companion.losses and
    companion.st import and compute, with a model that is any module returning {'sentence_embedding': ...}."""
    site = tmp_path / "site-packages"
    shutil.copytree(ROOT / "companion", site / "companion", ignore=shutil.ignore_patterns("__pycache__"))
    empty = tmp_path / "empty-data"
    empty.mkdir()
    script = textwrap.dedent("""
        import sys
        sys.modules["sentence_transformers"] = None  # not installed
        import torch
        import companion.losses
        from companion import st
        from companion.losses import simace, angle

        class Model(torch.nn.Module):
            def forward(self, features):
                return {"sentence_embedding": features["x"]}

        g = torch.Generator().manual_seed(0)
        a, b = torch.randn(6, 8, generator=g), torch.randn(6, 8, generator=g)
        loss = st.SimACELoss(Model())([{"x": a}, {"x": b}])
        assert abs(float(loss) - float(simace.simace_loss(a, b))) < 1e-7, float(loss)
        y = torch.tensor([0, 0, 4, 4, 7, 7])
        assert float(st.SoftCSELoss(Model())([{"x": a}], y)) > 0
        assert float(st.CoSENTLoss(Model())([{"x": a}, {"x": b}], y.float())) > 0
        heavy = {"companion.settings", "companion.data", "companion.encoders", "companion.publish", "pandas",
                 "transformers", "datasets"}
        assert not heavy & set(sys.modules), heavy & set(sys.modules)
        print("ok", companion.losses.__file__)
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COMPANION_CACHE_DIR")}
    env.update(PYTHONPATH=str(site), COMPANION_DATA_DIR=str(empty), COMPANION_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("ok") and str(site) in out.stdout
