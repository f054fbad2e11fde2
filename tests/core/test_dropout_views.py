"""Dropout-view training (companion.dropout_views): the loss closure, STS-B dev monitoring with best-checkpoint
selection (SimACE Table 7) and cached runs (tiny random BERT with MiniLM's tokenizer, no download)."""

import math

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

from companion.dropout_views import (
    DevMonitor,
    dev_curve,
    dev_plateau,
    dropout_view_loss,
    run_dropout_views,
    view_geometry,
)
from companion.encoders import tiny_encoder
from companion.encoders.upper import UpperEncoder
from companion.losses.simace import simace_loss
from companion.metrics.geometry import alignment, uniformity

TRAIN = [f"sentence number {i} talks about {w}." for i, w in
         enumerate(["cats", "dogs", "rivers", "music", "stocks", "rain", "trains", "bread", "chess", "maps",
                    "glass", "snow", "ships", "clocks", "birds", "paper"])]
S1 = ["A man plays a guitar.", "A woman is cooking.", "Two dogs run.", "A child reads.", "The sun is hot.",
      "A plane lands."]
S2 = ["Someone plays an instrument.", "A woman cooks food.", "A cat sleeps.", "A kid is reading a book.",
      "It is cold.", "An aircraft is landing."]
GOLD = [4.2, 4.8, 1.0, 4.5, 0.5, 4.9]


@pytest.fixture(scope="module")
def base():
    enc = tiny_encoder("bert", pooling="cls", layers=2, hidden=32, heads=4, max_length=32)
    return UpperEncoder(enc, n_top=1, pooling="cls", dropout=0.2, state_dtype=torch.float32)


def test_dev_monitor_matches_hand_metrics(base):
    model = base.fresh()
    model.eval()
    mon = DevMonitor(model, S1, S2, GOLD, probe=TRAIN[:4])
    first = mon()
    second = mon()
    assert first == float("-inf")  # step 0 is recorded but not eligible for selection
    rec = mon.records[0]
    a, b = model.encode(S1), model.encode(S2)
    cos = np.round(torch.nn.functional.cosine_similarity(a.double(), b.double()).numpy(), 6)  # STS rounding
    assert rec["dev"] == pytest.approx(100 * spearmanr(cos, GOLD).statistic, abs=1e-3)
    assert second == pytest.approx(rec["dev"], abs=1e-9)  # eval mode: deterministic
    pos = np.asarray(GOLD) > 4
    assert rec["align"] == pytest.approx(alignment(a[pos], b[pos]), rel=1e-6)
    assert rec["uniform"] == pytest.approx(uniformity(model.encode(list(dict.fromkeys(S1 + S2)))), rel=1e-6)
    assert rec["pos_angle"] > 0 and rec["neg_angle"] > 0  # training-mode views differ (dropout 0.2)
    assert not model.training  # view_geometry restored eval mode
    assert len(mon.records) == 2 and mon.seconds > 0


def test_dev_monitor_bad_input(base):
    model = base.fresh()
    with pytest.raises(ValueError, match="differ in length"):
        DevMonitor(model, S1, S2[:3], GOLD)
    with pytest.raises(ValueError, match="no dev pair has gold > 4"):
        DevMonitor(model, S1, S2, [1.0] * 6)
    with pytest.raises(ValueError, match="NaN or Inf"):
        DevMonitor(model, S1, S2, [1.0, float("nan"), 4.5, 4.5, 1, 2])
    with pytest.raises(ValueError, match="at least 2 pairs"):
        DevMonitor(model, S1[:1], S2[:1], [4.5])


def test_run_is_deterministic_selects_a_trained_checkpoint_and_caches(base, tmp_path):
    kw = dict(steps=4, batch_size=4, lr=1e-3, seed=3, dev=(S1, S2, GOLD), eval_every=2, probe=TRAIN[:4])
    first = run_dropout_views(base, TRAIN, "simace", 0.06, 10.0, cache=str(tmp_path), **kw)
    again = run_dropout_views(base, TRAIN, "simace", 0.06, 10.0, cache=None, **kw)
    assert not first["from_cache"] and not again["from_cache"]
    for p, q in zip(first["model"].state_dict().values(), again["model"].state_dict().values()):
        torch.testing.assert_close(p, q, rtol=0, atol=0)  # same seed: same batches, init and dropout masks
    assert [r["step"] for r in first["monitor"]] == [0, 2, 4]
    assert first["best_step"] in (2, 4)  # step 0 never selected
    best = max(first["monitor"][1:], key=lambda r: r["dev"])
    assert first["best_step"] == best["step"]
    # the returned model carries the selected checkpoint's weights
    assert DevMonitor(first["model"], S1, S2, GOLD).measure()["dev"] == pytest.approx(best["dev"], abs=1e-6)
    assert len(first["history"]) == 4 and all(math.isfinite(h["loss"]) for h in first["history"])
    cached = run_dropout_views(base, TRAIN, "simace", 0.06, 10.0, cache=str(tmp_path), **kw)
    assert cached["from_cache"] and cached["key"] == first["key"]
    for p, q in zip(first["model"].state_dict().values(), cached["model"].state_dict().values()):
        torch.testing.assert_close(p, q, rtol=0, atol=0)
    assert cached["monitor"] == first["monitor"]
    quiet = run_dropout_views(base, TRAIN, "simace", 0.06, 10.0, cache=str(tmp_path), progress=False, **kw)
    assert quiet["from_cache"] and quiet["key"] == first["key"]  # a progress bar is not a setting
    other = run_dropout_views(base, TRAIN, "simcse", 0.05, 0.0, cache=str(tmp_path), **kw)
    assert other["key"] != first["key"] and not other["from_cache"]
    assert len(list(tmp_path.glob("*.pt"))) == 2
    # the run's dev curve: every evaluation, step 0 included, as the monitor recorded it (also from the cache)
    assert dev_curve(first) == dev_curve(cached) == ([0, 2, 4], [r["dev"] for r in first["monitor"]])
    check = dev_plateau(first, name="SimACE seed 3")
    assert check.name == "plateau" and check.detail.startswith("SimACE seed 3")
    unmonitored = run_dropout_views(base, TRAIN, "simace", 0.06, 10.0, 2, 4, 1e-3, 3, cache=None)
    assert dev_curve(unmonitored) == ([], [])
    assert dev_plateau(unmonitored).name == "record" and not dev_plateau(unmonitored).passed


def test_dev_plateau_on_constructed_curves():
    def run(values, every=64):
        return {"monitor": [{"step": every * i, "dev": v} for i, v in enumerate(values)]}

    flat = run([60.0, 75.0, 79.0, 80.5, 81.0, 80.8, 81.1, 80.9, 81.0, 81.05, 80.95])
    climbing = run([60.0, 62.0, 64.0, 66.0, 68.0, 70.0, 72.0, 74.0, 76.0, 78.0, 80.1])
    assert dev_curve(flat)[0] == [64 * i for i in range(11)]
    ok, moving = dev_plateau(flat), dev_plateau(climbing, name="SimCSE seed 0")
    assert ok.passed and not moving.passed and moving.reason.startswith("budget: SimCSE seed 0")
    assert moving.detail.endswith("still climbing")
    assert dev_plateau(climbing, gap=40.0).passed  # a gain small against the compared gap
    short = dev_plateau(run([60.0, 70.0]))
    assert not short.passed and "too few to fit" in short.detail
    assert dev_plateau(run([70.0, 70.0, 70.0])).passed  # exactly constant
    with pytest.raises(KeyError, match="no 'align'"):
        dev_curve({"monitor": [{"step": 0, "dev": 1.0}]}, "align")


def test_objectives_see_the_same_batches(base, monkeypatch):
    import companion.dropout_views as runs

    seen = {}

    def spy(store, real):
        def embed_spy(texts):
            store.append(tuple(texts))
            return real(texts)
        return embed_spy

    for objective, tau, m in [("simcse", 0.05, 0.0), ("arccon", 0.05, 10.0), ("simace", 0.06, 10.0)]:
        model = base.fresh()
        embed = spy(seen.setdefault(objective, []), model.embed)
        runs.train_dropout_views(model, embed, TRAIN, objective, tau, m, 3, 4, 1e-3, seed=7, progress=False)
    assert seen["simcse"] == seen["arccon"] == seen["simace"]
    assert len(seen["simace"]) == 6  # 3 steps x 2 views


def test_run_bad_input(base):
    with pytest.raises(ValueError, match="needs a dev set"):
        run_dropout_views(base, TRAIN, "simace", 0.06, 10.0, 2, 4, 1e-3, 0, eval_every=1)
    with pytest.raises(ValueError, match="tau must be"):
        run_dropout_views(base, TRAIN, "simace", 0.0, 10.0, 2, 4, 1e-3, 0)
    with pytest.raises(ValueError, match=r"strictly inside \(-90, 90\)"):
        run_dropout_views(base, TRAIN, "simace", 0.06, 95.0, 2, 4, 1e-3, 0)
    with pytest.raises(ValueError, match="Unknown objective"):
        run_dropout_views(base, TRAIN, "infonce", 0.06, 10.0, 2, 4, 1e-3, 0)


def test_view_geometry_zero_positive_angle_without_dropout():
    enc = tiny_encoder("bert", pooling="cls", layers=2, hidden=32, heads=4)
    model = UpperEncoder(enc, n_top=1, pooling="cls", dropout=0.0, state_dtype=torch.float32)
    model.eval()
    g = view_geometry(model.embed, model, TRAIN[:6])
    assert g["pos_angle"] == pytest.approx(0.0, abs=0.05)  # no dropout: the two views coincide
    assert g["neg_angle"] > 0.1
    assert not model.training


def test_scores_are_cached_with_their_key(base, tmp_path):
    calls = []

    def score(model):
        calls.append(1)
        return {"dev": DevMonitor(model, S1, S2, GOLD).measure()["dev"]}

    kw = dict(steps=2, batch_size=4, lr=1e-3, seed=1, cache=str(tmp_path))
    first = run_dropout_views(base, TRAIN, "arccon", 0.05, 10.0, score_fn=score, score_key="dev-v1", **kw)
    assert len(calls) == 1 and first["scores"]["dev"] == pytest.approx(score(first["model"])["dev"])
    calls.clear()
    again = run_dropout_views(base, TRAIN, "arccon", 0.05, 10.0, score_fn=score, score_key="dev-v1", **kw)
    assert again["from_cache"] and not calls and again["scores"] == first["scores"]
    other = run_dropout_views(base, TRAIN, "arccon", 0.05, 10.0, score_fn=score, score_key="dev-v2", **kw)
    assert other["from_cache"] and len(calls) == 1 and other["score_key"] == "dev-v2"
    fresh = run_dropout_views(base, TRAIN, "arccon", 0.05, 10.0, score_fn=score, score_key="dev-v1", reuse=False,
                              **kw)
    assert not fresh["from_cache"] and fresh["scores"] == first["scores"]  # retrained deterministically


def test_dropout_view_loss_trains_a_tiny_model():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Dropout(0.2), torch.nn.Linear(16, 8))
    data = torch.randn(32, 4)
    texts = [str(i) for i in range(32)]
    fn = dropout_view_loss(lambda batch: model(data[[int(t) for t in batch]]), texts, "simace", 0.05)
    model.train()
    loss = fn(torch.arange(16))
    loss.backward()
    assert loss.item() > 0 and all(p.grad is not None for p in model.parameters())
    model.eval()
    torch.manual_seed(1)
    # eval mode: identical views, so SimACE's positive angle is ~0
    z = model(data[:16])
    assert fn(torch.arange(16)).item() == pytest.approx(simace_loss(z, z).item(), rel=1e-6)


def test_training_glue_bad_input():
    texts = ["a", "b", "c"]
    with pytest.raises(ValueError, match="tau must be a finite number > 0"):
        dropout_view_loss(lambda b: torch.randn(len(b), 4), texts, "simace", tau=-1.0)
    with pytest.raises(ValueError, match=r"strictly inside \(-90, 90\)"):
        dropout_view_loss(lambda b: torch.randn(len(b), 4), texts, "arccon", tau=0.05, margin_deg=-90)
    with pytest.raises(ValueError, match="Unknown objective"):
        dropout_view_loss(lambda b: torch.randn(len(b), 4), texts, "cosent", tau=0.05)
    fn = dropout_view_loss(lambda b: torch.randn(len(b), 4), texts, "simace", tau=0.05)
    with pytest.raises(ValueError, match="batch of one sentence"):
        fn(torch.tensor([0]))
    nan = dropout_view_loss(lambda b: torch.full((len(b), 4), float("nan")), texts, "simcse", tau=0.05)
    with pytest.raises(ValueError, match="NaN or Inf"):
        nan(torch.tensor([0, 1]))


def test_a_preempted_gpu_run_resumes_from_its_checkpoint(base, preemption):
    kw = dict(steps=6, batch_size=4, lr=1e-3, seed=3, dev=(S1, S2, GOLD), eval_every=2, probe=TRAIN[:4])
    whole = run_dropout_views(base, TRAIN, "simace", 0.06, 10.0, profile="cpu", **kw)
    assert preemption.checkpoints == [None]  # the cpu profile saves no checkpoint
    kw["profile"] = "gpu"
    preemption.stop_at(5)
    with pytest.raises(KeyboardInterrupt):
        run_dropout_views(base, TRAIN, "simace", 0.06, 10.0, **kw)
    (left,) = preemption.left()
    assert left.stem == whole["key"]  # the checkpoint is named by the run key
    resumed = run_dropout_views(base, TRAIN, "simace", 0.06, 10.0, **kw)
    assert all(torch.equal(a, b) for a, b in zip(whole["model"].state_dict().values(),
                                                  resumed["model"].state_dict().values()))
    assert resumed["history"] == whole["history"] and resumed["monitor"] == whole["monitor"]
    assert resumed["best_step"] == whole["best_step"] and preemption.left() == []
