"""companion.encoders.loading: model names offline (one clear line for a missing model, MiniLM's aliases), the
tiny stand-ins by name, and the loaded MiniLM against sentence-transformers."""

from __future__ import annotations

import pytest
import torch

from companion import encoders
from companion.encoders import ModelNotAvailableError, load_encoder, tiny_encoder


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


def test_load_encoder_gives_the_tiny_stand_ins_by_name():
    """``load_encoder("tiny-<arch>")`` is the smoke profile's model: the same stand-in as ``tiny_encoder``."""
    from companion.encoders import load_encoder

    by_name = load_encoder("tiny-bert", pooling="mean", max_length=16)
    direct = tiny_encoder("bert", pooling="mean", max_length=16)
    texts = ["a tiny model", "no download"]
    assert by_name.pooling == "mean" and by_name.max_length == 16
    assert torch.equal(by_name.encode(texts, cache=False), direct.encode(texts, cache=False))
    with pytest.raises(ValueError, match="Unknown tiny arch 'nope'"):
        load_encoder("tiny-nope")


def test_minilm_matches_sentence_transformers(sentences, minilm):
    from sentence_transformers import SentenceTransformer

    path, _ = encoders.resolve_model("all-MiniLM-L6-v2")
    st = SentenceTransformer(path, device="cpu")
    ref = st.encode(sentences, convert_to_tensor=True, normalize_embeddings=True).cpu()
    ours = minilm.encode(sentences, cache=False)
    assert ours.shape == (50, 384)
    assert (ours - ref).abs().max().item() < 1e-5
