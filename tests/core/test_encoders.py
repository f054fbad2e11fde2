"""Encoder layer: poolings on hand-made tensors, errors, the on-disk cache, tiny archs, parity with sentence-transformers."""

from __future__ import annotations

import pytest
import torch

from companion import encoders
from companion.encoders import ModelNotAvailableError, load_encoder, pool, tiny_encoder

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
def tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def minilm():
    return load_encoder("all-MiniLM-L6-v2", pooling="mean", max_length=256, device="cpu")


# ------------------------------------------------------------------------------------------------ poolings
def _hand():
    # B=2, T=4, d=2; row 0 has 2 real tokens (right padded), row 1 has 3 real tokens
    h = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0], [100.0, 100.0]],
                      [[0.0, 1.0], [2.0, -5.0], [4.0, 3.0], [-100.0, 100.0]]])
    m = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 0]])
    return h, m


def test_mean_ignores_padding():
    h, m = _hand()
    out = pool(h, m, "mean")
    assert torch.allclose(out, torch.tensor([[2.0, 3.0], [2.0, -1 / 3]]))


def test_cls_and_max_are_masked():
    h, m = _hand()
    assert torch.equal(pool(h, m, "cls"), torch.tensor([[1.0, 2.0], [0.0, 1.0]]))
    assert torch.equal(pool(h, m, "max"), torch.tensor([[3.0, 4.0], [4.0, 3.0]]))  # 100s are padding
    assert torch.allclose(pool(h, m, "cls-mean"), (pool(h, m, "cls") + pool(h, m, "mean")) / 2)


def test_last_token_right_and_left_padding():
    h, m = _hand()
    assert torch.equal(pool(h, m, "last"), torch.tensor([[3.0, 4.0], [4.0, 3.0]]))
    # the same sequences left-padded: real tokens at the end
    hl = torch.tensor([[[9.0, 9.0], [9.0, 9.0], [1.0, 2.0], [3.0, 4.0]],
                       [[9.0, 9.0], [0.0, 1.0], [2.0, -5.0], [4.0, 3.0]]])
    ml = torch.tensor([[0, 0, 1, 1], [0, 1, 1, 1]])
    assert torch.equal(pool(hl, ml, "last"), torch.tensor([[3.0, 4.0], [4.0, 3.0]]))
    assert torch.equal(pool(hl, ml, "cls"), torch.tensor([[1.0, 2.0], [0.0, 1.0]]))  # first real token
    assert torch.allclose(pool(hl, ml, "mean"), pool(*_hand(), "mean"))


def test_first_last_uses_first_transformer_layer():
    h, m = _hand()
    emb_out, layer1, last = torch.full_like(h, 50.0), h * 2, h
    out = pool((emb_out, layer1, torch.zeros_like(h), last), m, "first-last")  # hidden_states[1] and [-1]
    assert torch.allclose(out, pool((h * 2 + h) / 2, m, "mean"))
    with pytest.raises(ValueError, match="needs all hidden states"):
        pool(h, m, "first-last")


def test_unknown_pooling_lists_valid_names():
    h, m = _hand()
    with pytest.raises(ValueError, match=r"Unknown pooling 'avg'; valid poolings: cls, mean, last, max"):
        pool(h, m, "avg")
    with pytest.raises(ValueError, match="Unknown pooling"):
        tiny_encoder("bert", pooling="median")


# ------------------------------------------------------------------------------------------------ errors
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


def test_unknown_model_offline_is_one_clear_line(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotAvailableError, match=r"'bert-base-uncased' is not available offline") as err:
        load_encoder("bert-base-uncased")
    assert "\n" not in str(err.value) and "local model folder" in str(err.value)


def test_minilm_aliases_resolve_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    p1, name1 = encoders.resolve_model("all-MiniLM-L6-v2")
    p2, name2 = encoders.resolve_model("sentence-transformers/all-MiniLM-L6-v2")
    assert p1 == p2 and name1 == name2 == "sentence-transformers/all-MiniLM-L6-v2"


# ------------------------------------------------------------------------------------------------ tiny archs
@pytest.mark.parametrize("arch", encoders.TINY_ARCHS)
def test_tiny_arch_all_paths(arch, tmp_cache):
    enc = tiny_encoder(arch, pooling="mean" if arch == "bert" else None)
    texts = SENTENCES[:12]
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


# ------------------------------------------------------------------------------------------------ cache
def _shards(root):
    return sorted(root.glob("embeddings/*/shard-*.pt"))


def test_cache_second_encode_identical_and_skips_the_model(minilm, tmp_cache, monkeypatch):
    texts = [f"{s} [{i}]" for i, s in enumerate(SENTENCES * 2)]  # 100 distinct sentences
    first = minilm.encode(texts)
    assert len(_shards(tmp_cache)) == 1

    def no_forward(*args, **kwargs):
        raise AssertionError("the model ran although every text is cached")

    monkeypatch.setattr(minilm.model, "forward", no_forward)
    second = minilm.encode(texts)  # speed is measured in benchmarks/, not asserted here
    assert torch.equal(first, second)


def test_corrupt_shard_is_ignored_and_recomputed(tmp_cache):
    enc = tiny_encoder("bert")
    ref = enc.encode(SENTENCES)
    (shard,) = _shards(tmp_cache)
    shard.write_bytes(b"not a torch file" * 10)
    fresh = tiny_encoder("bert")  # new process-like state: nothing in memory
    with pytest.warns(UserWarning, match="Ignoring unreadable embedding-cache shard"):
        again = fresh.encode(SENTENCES)
    assert torch.allclose(ref, again, atol=1e-6)
    shards = _shards(tmp_cache)
    assert len(shards) == 1 and shards[0] != shard  # rewritten
    assert not list(tmp_cache.glob("embeddings/*/.tmp-*"))  # no temp files left behind


def test_weight_change_changes_fingerprint_and_bypasses_old_entries(tmp_cache):
    enc = tiny_encoder("bert", pooling="mean")
    fp0 = enc.fingerprint
    assert fp0 == tiny_encoder("bert", pooling="mean").fingerprint  # same weights, same fingerprint
    old = enc.encode(SENTENCES)
    with torch.no_grad():
        enc.model.encoder.layer[0].output.dense.weight.data[0, 0] += 0.5  # one element, through .data
    assert enc.fingerprint != fp0
    new = enc.encode(SENTENCES)
    assert not torch.allclose(old, new)
    assert torch.allclose(new, enc.encode(SENTENCES, cache=False), atol=1e-6)
    assert len({p.parent for p in _shards(tmp_cache)}) == 2  # a separate store for the new weights


def test_training_mode_bypasses_cache_and_is_restored(tmp_cache):
    enc = tiny_encoder("bert")
    enc.model.train()
    a = enc.encode(SENTENCES)
    b = enc.encode(SENTENCES)
    assert enc.model.training
    assert torch.equal(a, b)  # encode runs in eval mode (no dropout) ...
    assert not _shards(tmp_cache)  # ... and writes nothing


# ------------------------------------------------------------------------------------------------ parity
def test_minilm_matches_sentence_transformers(minilm):
    from sentence_transformers import SentenceTransformer

    path, _ = encoders.resolve_model("all-MiniLM-L6-v2")
    st = SentenceTransformer(path, device="cpu")
    ref = st.encode(SENTENCES, convert_to_tensor=True, normalize_embeddings=True).cpu()
    ours = minilm.encode(SENTENCES, cache=False)
    assert ours.shape == (50, 384)
    assert (ours - ref).abs().max().item() < 1e-5


def test_load_encoder_gives_the_tiny_stand_ins_by_name():
    """``load_encoder("tiny-<arch>")`` is the smoke profile's model: the same stand-in as ``tiny_encoder``."""
    from companion.encoders import load_encoder, tiny_encoder

    by_name = load_encoder("tiny-bert", pooling="mean", max_length=16)
    direct = tiny_encoder("bert", pooling="mean", max_length=16)
    texts = ["a tiny model", "no download"]
    assert by_name.pooling == "mean" and by_name.max_length == 16
    assert torch.equal(by_name.encode(texts, cache=False), direct.encode(texts, cache=False))
    with pytest.raises(ValueError, match="Unknown tiny arch 'nope'"):
        load_encoder("tiny-nope")
