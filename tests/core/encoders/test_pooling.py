"""companion.encoders.pooling: the six poolings on hand-made tensors (padding on either side) and the error for an
unknown one."""

from __future__ import annotations

import pytest
import torch

from companion.encoders import pool, tiny_encoder


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
