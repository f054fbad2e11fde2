"""companion.sts's flat layout (every sentence of every pair, set by set: first sentences, then second ones), used
by the zero-shot baseline to encode the same input with two encoders and score both."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from companion import sts


@pytest.fixture
def pairs():
    return {"A": (["a1", "a2", "a3"], ["b1", "b2", "b3"], np.array([0.0, 1.0, 2.0])),
            "B": (["c1", "c2"], ["a1", "d2"], np.array([5.0, 1.0]))}


def test_flatten_pairs_keeps_duplicates_in_set_order(pairs):
    assert sts.flatten_pairs(pairs) == ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "a1", "d2"]


def test_pairs_from_flat_slices_each_set(pairs):
    emb = torch.arange(10.0)[:, None]
    blocks = sts.pairs_from_flat(emb, pairs)
    assert blocks["A"][0].flatten().tolist() == [0, 1, 2] and blocks["A"][1].flatten().tolist() == [3, 4, 5]
    assert blocks["B"][0].flatten().tolist() == [6, 7] and blocks["B"][1].flatten().tolist() == [8, 9]
    with pytest.raises(ValueError, match="9 embeddings for 10 sentences"):
        sts.pairs_from_flat(emb[:9], pairs)


def test_score_flat_by_hand(pairs):
    deg = np.deg2rad
    # set A: cosines 1, cos 30, cos 60 against gold 0, 1, 2 -> perfectly inverted ranks; set B: rank agreement
    first = [[1, 0]] * 3 + [[1, 0]] * 2
    second_a = [[1, 0], [np.cos(deg(30)), np.sin(deg(30))], [np.cos(deg(60)), np.sin(deg(60))]]
    second_b = [[1, 0], [0, 1]]
    emb = torch.tensor(first[:3] + second_a + first[3:] + second_b, dtype=torch.float32)
    scores = sts.score_flat(emb, pairs)
    assert scores["A"] == pytest.approx(-100.0) and scores["B"] == pytest.approx(100.0)
    assert scores["avg"] == pytest.approx(0.0)
    assert "avg" not in sts.score_flat(emb, pairs, average=False)
    # the same numbers as the one pair evaluator on the distinct sentences
    lookup = dict(zip(sts.flatten_pairs(pairs), emb))
    assert sts.score_pairs(lambda texts: torch.stack([lookup[t] for t in texts]), pairs, average=True) == \
        pytest.approx(scores)
