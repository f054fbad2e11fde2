"""companion.encoders.encoder: the Encoder's paths on every tiny architecture (encode, embed, per-layer and token
states), prefixes, order and duplicates, the differentiable path, training mode, and bad input."""

from __future__ import annotations

import pytest
import torch

from companion import encoders
from companion.encoders import load_encoder, pool, tiny_encoder


def test_empty_list_and_bad_max_length():
    enc = tiny_encoder("bert")
    with pytest.raises(ValueError, match="texts is empty"):
        enc.encode([])
    with pytest.raises(ValueError, match="single string"):
        enc.encode("a sentence")
    with pytest.raises(ValueError, match="max_length must be a positive integer"):
        load_encoder("all-MiniLM-L6-v2", max_length=0)
    with pytest.raises(ValueError, match="max_length must be a positive integer"):
        encoders.Encoder(enc.model, enc.tokenizer, max_length=-3)


@pytest.mark.parametrize("arch", encoders.TINY_ARCHS)
def test_tiny_arch_all_paths(sentences, arch, tmp_cache):
    enc = tiny_encoder(arch, pooling="mean" if arch == "bert" else None)
    texts = sentences[:12]
    emb = enc.encode(texts, normalize=False)
    assert emb.shape == (12, enc.dim) and emb.dtype == torch.float32
    # equal-length unpadded batches (encode) == one right-padded batch (embed): padding is handled
    assert torch.allclose(emb, enc.embed(texts).detach(), atol=1e-5)
    assert torch.allclose(enc.encode(texts).norm(dim=-1), torch.ones(12), atol=1e-5)
    layers = enc.encode_layers(texts)
    assert layers.shape == (12, 3, enc.dim)
    assert torch.allclose(layers[:, -1], emb, atol=1e-5)  # last layer with the encoder's pooling
    states, mask = enc.token_states(texts)
    assert states.shape[:2] == mask.shape and states.shape[2] == enc.dim
    assert torch.allclose(pool(states, mask, enc.pooling), emb, atol=1e-5)
    states2, mask2 = enc.token_states(texts)  # second call is served from disk
    assert torch.equal(states, states2) and torch.equal(mask, mask2)
    first, _ = enc.token_states(texts, layer=0)
    assert not torch.allclose(first, states)


def test_e5_style_prefix_changes_input():
    plain, prefixed = tiny_encoder("xlm-roberta"), tiny_encoder("xlm-roberta", prefix="query: ")
    assert prefixed.tokenize(["hello"])["input_ids"].shape[1] > plain.tokenize(["hello"])["input_ids"].shape[1]
    assert not torch.allclose(plain.encode(["hello"], cache=False), prefixed.encode(["hello"], cache=False))


def test_order_duplicates_and_embed_is_differentiable():
    enc = tiny_encoder("bert")
    a, b = "short one", "a much longer sentence than the first one"
    out = enc.encode([a, b, a], cache=False)
    assert torch.equal(out[0], out[2])
    assert torch.allclose(out[1], enc.encode([b], cache=False)[0], atol=1e-6)
    enc.model.train()
    e = enc.embed([a, b])
    assert e.requires_grad
    e.sum().backward()
    assert any(p.grad is not None for p in enc.model.parameters())


def test_training_mode_bypasses_cache_and_is_restored(sentences, tmp_cache, cached_shards):
    enc = tiny_encoder("bert")
    enc.model.train()
    a = enc.encode(sentences)
    b = enc.encode(sentences)
    assert enc.model.training
    assert torch.equal(a, b)  # encode runs in eval mode (no dropout) ...
    assert not cached_shards()  # ... and writes nothing
