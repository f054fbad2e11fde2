"""Shared by the core tests: a scratch cache with the gpu dry run switched off."""

from __future__ import annotations

import pytest

from companion.profiles import DRY_RUN_ENV


@pytest.fixture
def scratch_cache(tmp_path, monkeypatch):
    """``COMPANION_CACHE_DIR`` in the test's temporary folder and ``COMPANION_DRY_RUN`` unset (the gpu path's tests
    use it for every test: ``pytestmark = pytest.mark.usefixtures("scratch_cache")``)."""
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(DRY_RUN_ENV, raising=False)
    return tmp_path / "cache"
