"""The one store of frozen encoder states (:mod:`companion.encoders.states`)."""

import pytest
import torch

from companion.encoders import tiny_encoder
from companion.encoders.states import LowerStates

TEXTS = ["a short one", "a somewhat longer sentence than the first", "third"]


@pytest.fixture(scope="module")
def enc():
    return tiny_encoder("bert", pooling="mean", layers=3, max_length=32)


def test_both_fills_give_the_same_states(enc):
    """Without means the store reads Encoder.token_states; with means it runs its own pass: same token states."""
    plain = LowerStates(enc, start=2, state_dtype=torch.float32)
    withm = LowerStates(enc, start=2, state_dtype=torch.float32, means="all")
    s1, m1, none = plain.get(TEXTS)
    s2, m2, means = withm.get(TEXTS)
    assert none is None and means.shape == (3, 3, enc.dim)
    assert torch.equal(m1, m2)
    torch.testing.assert_close(s1, s2, atol=1e-5, rtol=1e-5)
    # the kept means are masked means of the hidden states, checked by hand for the last kept layer
    torch.testing.assert_close(withm.layer_means(TEXTS, 2), (s2 * m2[..., None]).sum(1) / m2.sum(1, keepdim=True),
                               atol=1e-5, rtol=1e-5)
    assert len(withm) == 3 and withm.length(TEXTS[2]) == int(m2[2].sum())


def test_sharing_rules_and_clear_errors(enc):
    store = LowerStates(enc, start=1, means="all")
    assert store.serves(1, torch.float16) and store.serves(1, torch.float16, "all")
    assert not store.serves(2, torch.float16) and not store.serves(1, torch.float32)
    assert not LowerStates(enc, start=1).serves(1, torch.float16, "all")
    with pytest.raises(ValueError, match="start must be an int in 0..3"):
        LowerStates(enc, start=4)
    with pytest.raises(ValueError, match="means must be one of none, all"):
        LowerStates(enc, start=1, means="first")
    with pytest.raises(ValueError, match="keeps no layer means"):
        LowerStates(enc, start=1).layer_means(TEXTS, 1)
    with pytest.raises(ValueError, match="non-empty strings"):
        store.precompute(["ok", " "])
    store.precompute(TEXTS)
    store.clear()
    assert len(store) == 0
