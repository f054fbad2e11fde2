"""The raw-encoder regime of angle/03: Fig. 1/2 gradients per pair, the saturation table, the per-run cache."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from companion.papers.angle.pairs import PairData
from companion.papers.angle.raw import pair_gradients, raw_ablation, saturation_gradients


def test_pair_gradients_cosine_vanishes_where_angle_does_not():
    u = torch.tensor([[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    v = torch.tensor([[2.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    g = pair_gradients(u, v)
    assert g["cos"] == pytest.approx([1.0, 0.0, math.sqrt(0.5)])
    assert g["grad_cos"][0] < 1e-6  # Fig. 1: sin θ = 0 at θ = 0
    assert g["grad_cos"][1:] == pytest.approx([1.0, math.sqrt(0.5)])  # |∇cos| = sin θ at unit length
    assert g["grad_angle"][0] > 0.5  # Fig. 2b: the angle similarity keeps a gradient there


def test_saturation_gradients_splits_pairs_at_the_zone():
    data = PairData(["a", "b", "c"], ["a2", "b2", "c2"], [5.0, 1.0, 3.0])
    vecs = {"a": [1, 0, 0, 0], "a2": [1, 0.01, 0, 0], "b": [1, 0, 0, 0], "b2": [0, 1, 0, 0], "c": [1, 0, 0, 0],
            "c2": [1, 1, 0, 0]}
    table = saturation_gradients({"toy": lambda texts: np.array([vecs[t] for t in texts], dtype=float)}, data)
    row = table.loc["toy"]
    assert row["pairs"] == 3 and row["in zone"] == pytest.approx(1 / 3)
    assert row["|∇cos| zone"] < 0.3 <= row["|∇cos| outside"]
    assert row["|∇angle| zone"] > row["|∇cos| zone"]


class _Runner:
    def __init__(self, train):
        self.base = SimpleNamespace(encoder=SimpleNamespace(fingerprint="fp"), _init_args={"n_top": 2})
        self.train_data, self.evals = train, {"STS-B": train}
        self.steps, self.batch_size, self.lr, self.warmup, self.buckets = 3, 2, 1e-4, 0, 1
        self.taus, self.positive_threshold, self.positives, self.n_top = {"tau_cos": 0.05}, 4.0, "sum", None
        self.calls = []

    def run(self, weights, seed, pooling):
        self.calls.append((tuple(weights), seed, pooling))
        return {"ours": 10.0 * seed + sum(weights), "cos": torch.zeros(3), "loss_curve": [1.0, 0.9, 0.8]}


def test_raw_ablation_caches_each_run(tmp_path):
    data = PairData(["a", "b", "c"], ["a2", "b2", "c2"], [5.0, 1.0, 3.0])
    variants = {"all": (1.0, 1.0, 1.0), "only cosine": (1.0, 0.0, 0.0)}
    runner = _Runner(data)
    rows = raw_ablation(runner, variants, [0, 1], cache=str(tmp_path), log=lambda m: None)
    assert [(r["variant"], r["seed"]) for r in rows] == [("all", 0), ("all", 1), ("only cosine", 0),
                                                         ("only cosine", 1)]
    assert len(runner.calls) == 4 and all(c[2] == "mean" for c in runner.calls)
    assert isinstance(rows[0]["cos"], np.ndarray) and not any(r["from_cache"] for r in rows)
    again = _Runner(data)
    reloaded = raw_ablation(again, variants, [0, 1], cache=str(tmp_path), log=lambda m: None)
    assert again.calls == [] and all(r["from_cache"] for r in reloaded)
    assert [r["ours"] for r in reloaded] == [r["ours"] for r in rows]
    other = _Runner(data)
    other.lr = 2e-4  # another setting: another key
    raw_ablation(other, variants, [0], cache=str(tmp_path), log=lambda m: None)
    assert len(other.calls) == 2
