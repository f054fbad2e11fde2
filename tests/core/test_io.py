"""The crash-safe cache helpers every on-disk cache goes through."""

import os
import stat

import pytest
import torch

from companion import _io


def test_cache_key_is_canonical_and_sensitive():
    assert _io.cache_key({"a": 1, "b": [1, 2]}) == _io.cache_key({"b": [1, 2], "a": 1})
    assert _io.cache_key({"a": 1}) != _io.cache_key({"a": 2})
    assert len(_io.cache_key("x")) == 20 and len(_io.cache_key("x", digest_size=8)) == 16


@pytest.mark.parametrize("kind", ["torch", "pickle"])
def test_round_trip_and_unreadable_files_are_a_miss(tmp_path, kind):
    path = tmp_path / f"c.{kind}"
    assert _io.read_cache(path, kind=kind) is None  # missing
    obj = {"x": torch.arange(3)} if kind == "torch" else {"x": [1, 2, 3]}
    (_io.torch_save_atomic if kind == "torch" else _io.pickle_save_atomic)(obj, path)
    got = _io.read_cache(path, kind=kind)
    assert list(got["x"]) == list(obj["x"])
    path.write_bytes(path.read_bytes()[:10])  # truncated, as by a killed writer without the atomic rename
    assert _io.read_cache(path, kind=kind) is None
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]  # no temporary file left behind


def test_unknown_cache_kind_is_one_clear_error(tmp_path):
    path = tmp_path / "c"
    path.write_bytes(b"x")
    with pytest.raises(ValueError, match="Unknown cache kind 'json'"):
        _io.read_cache(path, kind="json")


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_written_file_gets_the_users_mode_not_mkstemps(tmp_path, umask, mode):
    """``mkstemp`` makes its file 0600; the file written in its place gets what any new file of the user gets."""
    old = os.umask(umask)
    try:
        assert _io.umask() == umask and _io.file_mode() == mode
        path = _io.write_atomic(tmp_path / "f.json", lambda handle: handle.write(b"{}"))
        plain = tmp_path / "plain"
        plain.write_bytes(b"")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == mode == stat.S_IMODE(plain.stat().st_mode)
    assert _io.umask() == old  # reading the umask leaves it as it was
