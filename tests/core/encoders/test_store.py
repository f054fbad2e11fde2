"""companion.encoders.store: the on-disk embedding cache (a second encode is read from disk, an unreadable shard is
recomputed) and the weights fingerprint that names its stores."""

from __future__ import annotations

import pytest
import torch

from companion.encoders import tiny_encoder


def test_cache_second_encode_identical_and_skips_the_model(sentences, minilm, tmp_cache, monkeypatch, cached_shards):
    texts = [f"{s} [{i}]" for i, s in enumerate(sentences * 2)]  # 100 distinct sentences
    first = minilm.encode(texts)
    assert len(cached_shards()) == 1

    def no_forward(*args, **kwargs):
        raise AssertionError("the model ran although every text is cached")

    monkeypatch.setattr(minilm.model, "forward", no_forward)
    second = minilm.encode(texts)  # speed is measured in benchmarks/, not asserted here
    assert torch.equal(first, second)


def test_corrupt_shard_is_ignored_and_recomputed(sentences, tmp_cache, cached_shards):
    enc = tiny_encoder("bert")
    ref = enc.encode(sentences)
    (shard,) = cached_shards()
    shard.write_bytes(b"not a torch file" * 10)
    fresh = tiny_encoder("bert")  # new process-like state: nothing in memory
    with pytest.warns(UserWarning, match="Ignoring unreadable embedding-cache shard"):
        again = fresh.encode(sentences)
    assert torch.allclose(ref, again, atol=1e-6)
    shards = cached_shards()
    assert len(shards) == 1 and shards[0] != shard  # rewritten
    assert not list(tmp_cache.glob("embeddings/*/.tmp-*"))  # no temp files left behind


def test_weight_change_changes_fingerprint_and_bypasses_old_entries(sentences, tmp_cache, cached_shards):
    enc = tiny_encoder("bert", pooling="mean")
    fp0 = enc.fingerprint
    assert fp0 == tiny_encoder("bert", pooling="mean").fingerprint  # same weights, same fingerprint
    old = enc.encode(sentences)
    with torch.no_grad():
        enc.model.encoder.layer[0].output.dense.weight.data[0, 0] += 0.5  # one element, through .data
    assert enc.fingerprint != fp0
    new = enc.encode(sentences)
    assert not torch.allclose(old, new)
    assert torch.allclose(new, enc.encode(sentences, cache=False), atol=1e-6)
    assert len({p.parent for p in cached_shards()}) == 2  # a separate store for the new weights
