"""SimACE helpers of the plateau runs: the [CLS]-only top layer (same output as the full layer), the shared run plan,
side-by-side step times (Table 8) and the SentEval-style transfer probe (Table 13) on tiny synthetic sets."""

import numpy as np
import pytest
import torch

from companion.encoders import tiny_encoder
from companion.encoders.upper import UpperEncoder
from companion.papers.simace import CONTROLS, MAIN, run_jobs
from companion.papers.simace.cls_top import ClsTopEncoder, check_cls_top, cls_top_layer
from companion.papers.simace.runs import step_times
from companion.papers.simace.transfer import (
    cv_accuracy,
    evaluate_transfer,
    pair_features,
    select_c,
    split_accuracy,
    task_texts,
)

pytestmark = pytest.mark.slow  # trains transfer probes

TEXTS = ["A man plays a guitar.", "Two dogs run in the park together.", "Rain.", "The committee met on Tuesday "
         "to discuss the budget of the new library.", "A child reads.", "Stocks fell sharply today."]


@pytest.fixture(scope="module")
def encoder():
    return tiny_encoder("bert", pooling="cls", layers=2, hidden=32, heads=4, max_length=32)


@pytest.mark.parametrize("n_top", [1, 2])
def test_cls_top_equals_the_full_layer_in_eval_mode(encoder, n_top):
    full = UpperEncoder(encoder, n_top=n_top, pooling="cls", state_dtype=torch.float32)
    fast = ClsTopEncoder(encoder, n_top=n_top, pooling="cls", state_dtype=torch.float32)
    a, b = full.encode(TEXTS, normalize=False), fast.encode(TEXTS, normalize=False)  # texts of unequal length
    assert torch.allclose(a, b, atol=1e-5)
    assert check_cls_top(encoder, TEXTS) < 1e-4


def test_cls_top_trains_and_drops_out(encoder):
    fast = ClsTopEncoder(encoder, n_top=1, pooling="cls", dropout=0.3, state_dtype=torch.float32)
    fast.train()
    z1, z2 = fast.embed(TEXTS), fast.embed(TEXTS)
    assert not torch.allclose(z1, z2)  # dropout on the [CLS] path
    (z1 - z2).pow(2).sum().backward()
    grads = [p.grad for p in fast.layers[-1].parameters() if p.grad is not None]
    assert grads and all(torch.isfinite(g).all() for g in grads)


def test_cls_top_identity_and_fresh(encoder):
    fast = ClsTopEncoder(encoder, n_top=1, pooling="cls")
    assert fast._init_args["top"] == "cls-only"  # a different run-cache key from the full layer
    again = fast.fresh()
    assert isinstance(again, ClsTopEncoder) and again.store is fast.store
    mean = fast.fresh(pooling="mean")
    assert type(mean) is UpperEncoder and mean.store is fast.store
    with pytest.raises(ValueError, match="needs pooling='cls'"):
        ClsTopEncoder(encoder, n_top=1, pooling="mean")
    with pytest.raises(ValueError, match="B x T x d"):
        cls_top_layer(fast.layers[-1], torch.zeros(2, 3), torch.ones(2, 3))


def test_run_jobs_plan():
    jobs = run_jobs([0, 1])
    assert len(jobs) == 2 * (len(MAIN) + len(CONTROLS))
    assert jobs[0] == ("SimCSE", MAIN["SimCSE"], 0) and jobs[-1][2] == 1
    assert run_jobs([2], ["SimACE τ=0.05"]) == [("SimACE τ=0.05", ("simace", 0.05, 10.0), 2)]
    with pytest.raises(ValueError, match="Unknown run name"):
        run_jobs([0], ["SimACE τ=0.5"])


def test_step_times_side_by_side(encoder):
    base = ClsTopEncoder(encoder, n_top=1, pooling="cls", state_dtype=torch.float32)
    out = step_times(base, TEXTS * 4, {"cos": ("simcse", 0.05, 0.0), "angle": ("simace", 0.06, 10.0)}, rounds=3,
                     batch_size=4)
    assert out["objective"].tolist() == ["cos", "angle"]
    assert out["ratio to cos"].iloc[0] == 1.0 and (out["median s/step"] > 0).all()
    with pytest.raises(ValueError, match="rounds must be >= 2"):
        step_times(base, TEXTS, {"cos": ("simcse", 0.05, 0.0)}, rounds=1)


def _blobs(n=120, d=6, sep=5.0, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    x = rng.normal(size=(n, d)) + sep * y[:, None] * np.eye(d)[0]
    return x, y


def test_probe_accuracy_separable_vs_shuffled():
    x, y = _blobs()
    assert cv_accuracy(x, y, folds=5, inner_folds=3) > 90.0
    shuffled = np.random.default_rng(1).permutation(y)
    assert abs(cv_accuracy(x, shuffled, folds=5, inner_folds=3) - 50.0) < 20.0  # chance
    xt, yt = _blobs(seed=2)
    assert split_accuracy(x, y, xt, yt, inner_folds=3) > 90.0
    assert split_accuracy(x, y, xt, yt, x_dev=xt[:40], y_dev=yt[:40]) > 90.0
    assert select_c(x, y, regs=(0.5,), folds=3) == 0.5
    with pytest.raises(ValueError, match="two classes"):
        cv_accuracy(x, np.zeros(len(x)))
    with pytest.raises(ValueError, match="N x d"):
        cv_accuracy(x[:, 0], y)


def test_pair_features_and_evaluate_transfer():
    a, b = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    assert pair_features(a, b).tolist() == [[2.0, 3.0, 3.0, -2.0]]
    with pytest.raises(ValueError, match="one shape"):
        pair_features(a, b.T)
    x, y = _blobs(n=80, d=4)
    texts = [f"t{i}" for i in range(len(x))]
    table = dict(zip(texts, x))
    tasks = {"MR": {"kind": "cv", "texts": texts, "labels": y},
             "TREC": {"kind": "split", "train": (texts[:60], y[:60]), "test": (texts[60:], y[60:])},
             "MRPC": {"kind": "pair", "train": (texts[:60], texts[:60][::-1], y[:60]),
                      "test": (texts[60:], texts[60:][::-1], y[60:])}}
    assert task_texts(tasks) == texts
    scores = evaluate_transfer(lambda ts: np.stack([table[t] for t in ts]), tasks, folds=4, inner_folds=3)
    assert set(scores) == {"MR", "TREC", "MRPC", "avg"}
    assert scores["MR"] > 90.0 and scores["TREC"] > 90.0
    assert scores["avg"] == pytest.approx(np.mean([scores[k] for k in ("MR", "TREC", "MRPC")]))


def test_plateau_flags_a_rising_curve_and_reads_the_gap():
    import pandas as pd

    from companion.papers.simace.analysis import plateau

    steps = [0, 10, 20, 30, 40, 50, 60]
    flat_dev = [70, 80, 82, 82.5, 82.6, 82.55, 82.6]          # last third 82.6, 82.55, 82.6: slope CI covers 0
    rising = [70, 72, 74, 76, 78, 80.1, 82]                    # still climbing: slope CI above 0
    curves = pd.concat([pd.DataFrame({"step": steps, "dev": d, "model": m, "seed": 0})
                        for m, d in (("flat", flat_dev), ("rising", rising))])
    out = plateau(curves).set_index("model")
    assert bool(out.loc["flat", "flat"]) and not bool(out.loc["rising", "flat"])
    assert out.loc["rising", "gain over the last third"] == pytest.approx(4.0)   # 78 at step 40 -> 82 at the end
    assert out.loc["rising", "best step"] == 60 and out.loc["flat", "best step"] == 40
    assert "slope over the last" in out.loc["rising", "detail"]
    # a climb of 4 points is small against a compared gap of 20 (<= 0.25 x 20), not against one of 10
    assert bool(plateau(curves, gap=20.0).set_index("model").loc["rising", "flat"])
    assert not bool(plateau(curves, gap=10.0).set_index("model").loc["rising", "flat"])


def test_caption_beside_reads_the_caption_and_our_means():
    import pandas as pd

    from companion.papers.simace.claims import caption_beside

    captions = pd.DataFrame({"figure": ["Fig. 4"], "model": ["SimACE"], "setting": [None],
                             "quantity": ["mean positive angle (degrees)"], "value": [25.43]})
    finals = pd.DataFrame({"model": ["SimACE", "SimACE"], "pos": [10.0, 12.0], "neg": [80.0, 82.0]})
    out = caption_beside(captions, finals, [("Fig. 4", "SimACE", None, "SimACE")],
                         {"mean positive angle (degrees)": "pos", "other (degrees)": "neg"})
    row = out.iloc[0]
    assert row["mean positive angle (degrees): paper"] == 25.43 and row["mean positive angle (degrees): ours"] == 11.0
    assert np.isnan(row["other (degrees): paper"]) and row["other (degrees): ours"] == 81.0
