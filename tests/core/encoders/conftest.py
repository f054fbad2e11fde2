"""Shared by the tests of :mod:`companion.encoders` (one file per module): test sentences, a scratch cache, MiniLM."""

from __future__ import annotations

import pytest

SENTENCES = [
    "A man is playing a guitar.",
    "Someone is playing music on a stringed instrument.",
    "A woman is slicing an onion.",
    "The cat sat on the mat.",
    "Stock markets fell sharply on Monday after the announcement.",
    "Two dogs are running through a snowy field.",
    "I love this!",
    "The quick brown fox jumps over the lazy dog near the old river bank at dawn.",
    "Is it going to rain tomorrow?",
    "A child is riding a horse.",
] * 5  # 50, with duplicates (exercises de-duplication)
SENTENCES = [f"{s} ({i // 10})" if i % 3 else s for i, s in enumerate(SENTENCES)]


@pytest.fixture
def sentences() -> list[str]:
    """50 sentences of varied lengths, some repeated."""
    return list(SENTENCES)


@pytest.fixture
def tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def minilm():
    from companion.encoders import load_encoder

    return load_encoder("all-MiniLM-L6-v2", pooling="mean", max_length=256, device="cpu")


@pytest.fixture
def cached_shards(tmp_cache):
    """``cached_shards()``: the embedding-cache shards written so far under :func:`tmp_cache`, sorted."""
    return lambda: sorted(tmp_cache.glob("embeddings/*/shard-*.pt"))
