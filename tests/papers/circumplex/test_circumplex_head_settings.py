"""The circumplex heads as the authors train them: nGPT's base scale from the backbone's width (the head's own width
as an option), gradient clipping at 1.0 (none as an option), the paper's pooling per backbone, the settings-keyed
cache of head runs, and the per-run plateau check."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest
import torch

from companion import stats
from companion.encoders.states import PackedStates
from companion.losses.circumplex import ECM_LABELS, LOSSES
from companion.papers.circumplex import comparison as cmp
from companion.papers.circumplex.experiments import head_run, head_settings, states_digest
from companion.papers.circumplex.heads import (
    NGPTHead,
    backbone_width,
    make_head,
    paper_pooling,
    pooled_states,
    resolve_base_scale,
    train_head,
)
from companion.papers.circumplex.validity import run_curve, run_plateau

LABELS = [ECM_LABELS[i % 4] for i in range(24)]


def _states(n=24, d=8, seed=0, backbone_dim=None):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, 6, (n,), generator=g)
    states = PackedStates(torch.randn(int(lengths.sum()), d, generator=g).half(), lengths)
    if backbone_dim is not None:
        states.backbone_dim = backbone_dim
    return states


# --------------------------------------------------------------------------------------------- base scale
def test_base_scale_comes_from_the_backbone_by_default_and_the_head_on_request():
    assert resolve_base_scale("backbone", 64, 384) == pytest.approx(384 ** -0.5)
    assert resolve_base_scale("backbone", 64) == pytest.approx(64 ** -0.5)  # a full-width head: its own width
    assert resolve_base_scale("head", 64, 384) == pytest.approx(64 ** -0.5)
    assert resolve_base_scale(0.25, 64, 384) == 0.25
    head = NGPTHead(64, n_heads=4, backbone_dim=384)
    assert head.base_scale == pytest.approx(384 ** -0.5) and head.base_scale_name == "backbone"
    assert NGPTHead(64, n_heads=4, backbone_dim=384, base_scale="head").base_scale == pytest.approx(1 / 8)
    assert NGPTHead(64, n_heads=4).base_scale == pytest.approx(1 / 8)  # no backbone named: the head's width
    assert NGPTHead(64, n_heads=4, backbone_dim=384, parametrisation="plain").base_scale == 1.0
    for bad in ("model", 0.0, -1.0, float("inf"), True):
        with pytest.raises(ValueError, match="base_scale"):
            NGPTHead(16, n_heads=2, base_scale=bad)
    with pytest.raises(ValueError, match="backbone_dim must be a positive int"):
        NGPTHead(16, n_heads=2, backbone_dim=0)
    # a GPT head has no alpha or s_qk: make_head accepts the nGPT settings and ignores them
    assert make_head("GPT", 16, n_heads=2, base_scale="head", backbone_dim=384).dim == 16


def test_backbone_scale_steps_alpha_and_sqk_at_the_authors_rate():
    """One Adam step moves the stored alpha and s_qk by lr; the effective values move by lr * alpha_init / b and
    lr / b. From the backbone's width (384) a 64-wide head moves sqrt(384 / 64) = 2.45 times as far as from its own."""
    torch.manual_seed(0)
    backbone = NGPTHead(64, n_heads=4, backbone_dim=384)
    own = NGPTHead(64, n_heads=4, backbone_dim=384, base_scale="head")
    shared = {k: v for k, v in backbone.state_dict().items() if k not in ("alpha_attn", "alpha_mlp", "attn.s_qk")}
    own.load_state_dict({**own.state_dict(), **shared})
    for name in ("alpha_attn", "alpha_mlp", "s_qk"):  # the same effective values at initialisation
        assert torch.allclose(backbone.effective()[name], own.effective()[name])
    torch.manual_seed(2)
    x, mask = torch.randn(4, 5, 64), torch.ones(4, 5, dtype=torch.bool)
    target = torch.randn(4, 64)
    moves = {}
    for name, head in (("backbone", backbone), ("head", own)):
        before = head.effective()
        opt = torch.optim.Adam(head.parameters(), lr=1e-4, eps=1e-30)
        (head(x, mask) * target).sum().backward()
        opt.step()
        moves[name] = {k: (v - before[k]).abs() for k, v in head.effective().items()}
    for key in ("alpha_attn", "alpha_mlp", "s_qk"):
        a, b = moves["backbone"][key].flatten(), moves["head"][key].flatten()
        moved = b > 0
        assert moved.float().mean() > 0.9, key
        assert torch.allclose(a[moved] / b[moved], torch.full_like(a[moved], math.sqrt(384 / 64)), rtol=1e-3), key


def test_train_head_reads_the_backbone_width_off_the_states():
    narrow = _states(backbone_dim=384)
    head, _ = train_head("nGPT", LOSSES["SINCERE"], narrow, LABELS, steps=1, batch_size=8, lr=1e-2, seed=0,
                         n_heads=2, progress=False)
    assert head.base_scale == pytest.approx(384 ** -0.5)
    head, _ = train_head("nGPT", LOSSES["SINCERE"], narrow, LABELS, steps=1, batch_size=8, lr=1e-2, seed=0,
                         n_heads=2, progress=False, base_scale="head")
    assert head.base_scale == pytest.approx(8 ** -0.5)
    assert backbone_width(narrow) == 384 and backbone_width(_states()) == 8
    assert backbone_width(narrow.subset([0, 1])) == 2 * 4  # a subset keeps no record: pass backbone_dim then


# --------------------------------------------------------------------------------------------- clipping
def test_train_head_clips_at_one_by_default_and_not_on_request(monkeypatch):
    import companion.papers.circumplex.heads as heads
    import companion.training as training

    seen = []
    real = training.train

    def spy(*args, **kwargs):
        seen.append(kwargs["max_grad_norm"])
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "train", spy)
    monkeypatch.setattr(heads, "train", spy)  # heads imported it by name
    states = _states()
    kw = dict(steps=3, batch_size=8, lr=0.5, seed=1, n_heads=2, progress=False)
    clipped, _ = train_head("GPT", LOSSES["SINCERE"], states, LABELS, **kw)
    free, _ = train_head("GPT", LOSSES["SINCERE"], states, LABELS, clip_norm=None, **kw)
    assert seen == [1.0, None]
    assert any(not torch.equal(v, free.state_dict()[k]) for k, v in clipped.state_dict().items())
    with pytest.raises(ValueError, match="clip_norm must be a positive number or None"):
        train_head("GPT", LOSSES["SINCERE"], states, LABELS, clip_norm=0.0, **kw)


# --------------------------------------------------------------------------------------------- pooling
def test_paper_pooling_per_backbone_and_family():
    assert paper_pooling("intfloat/multilingual-e5-large") == "cls"
    assert paper_pooling("mxbai") == "cls"
    assert paper_pooling("Qwen/Qwen3-Embedding-4B") == paper_pooling("Qwen3-Embedding-4B") == "last"
    assert paper_pooling("nvidia/llama-embed-nemotron-8b") == "mean"
    assert paper_pooling("meta-llama/Llama-3.2-3B") == paper_pooling("olmo-3-7b") == "last"
    assert paper_pooling("bert-like") == "cls" and paper_pooling("decoder-only") == "last"
    with pytest.raises(ValueError, match="No pooling of the paper"):
        paper_pooling("sentence-transformers/all-MiniLM-L6-v2")


def test_pooled_states_take_the_first_last_or_mean_token():
    flat = torch.tensor([[3.0, 0.0], [0.0, 1.0], [0.0, 2.0], [1.0, 1.0], [5.0, 0.0]]).half()
    states = PackedStates(flat, torch.tensor([3, 2]))
    assert torch.allclose(pooled_states(states, "cls"), torch.tensor([[1.0, 0.0], [0.5 ** 0.5, 0.5 ** 0.5]]))
    assert torch.allclose(pooled_states(states, "last"), torch.tensor([[0.0, 1.0], [1.0, 0.0]]))
    assert torch.allclose(pooled_states(states, "mean"), states.mean_pooled())
    with pytest.raises(ValueError, match="Unknown pooling"):
        pooled_states(states, "max")


def test_head_run_pools_as_asked():
    states = _states()
    kw = dict(steps=2, batch_size=8, lr=1e-2, seed=3, n_heads=2, cache=None)
    last, head, emb = head_run("GPT", "SINCERE", states, LABELS, states, LABELS, pooling="last", **kw)
    mean, _, emb_mean = head_run("GPT", "SINCERE", states, LABELS, states, LABELS, **kw)
    assert head.pooling == "last" and last["pooling"] == "last" and mean["pooling"] == "mean"
    assert not torch.allclose(emb, emb_mean)


# --------------------------------------------------------------------------------------------- the run cache
def _rng_draw():
    return torch.rand(1).item(), float(np.random.rand()), random.random()  # noqa: NPY002


def test_head_run_cache_hits_on_the_same_settings_and_misses_on_any_change(tmp_path):
    states = _states(backbone_dim=32)
    kw = dict(steps=3, batch_size=8, lr=1e-2, seed=7, n_heads=2, curve_every=3, probe_steps=6, cache=tmp_path)
    first, head, emb = head_run("nGPT", "CircularCSE", states, LABELS, states, LABELS, margin=0.1, **kw)
    after_training = _rng_draw()
    assert first["from_cache"] is False and len(list(tmp_path.glob("*.pt"))) == 1
    again, head2, emb2 = head_run("nGPT", "CircularCSE", states, LABELS, states, LABELS, margin=0.1, **kw)
    assert again["from_cache"] is True and _rng_draw() == after_training  # the run's random state restored
    assert {k: v for k, v in again.items() if k != "from_cache"} == {k: v for k, v in first.items()
                                                                     if k != "from_cache"}
    assert torch.equal(emb, emb2) and all(torch.equal(v, head.state_dict()[k]) for k, v in head2.state_dict().items())
    assert head2.base_scale == head.base_scale == pytest.approx(32 ** -0.5)
    # every setting that changes the result changes the key: each of these trains (a new file)
    changes = [dict(margin=0.2), dict(margin=0.1, clip_norm=None), dict(margin=0.1, base_scale="head"),
               dict(margin=0.1, pooling="cls"), dict(margin=0.1, lr=2e-2), dict(margin=0.1, seed=8),
               dict(margin=0.1, n_heads=4), dict(margin=0.1, steps=6, probe_steps=None, curve_every=0)]
    for i, change in enumerate(changes, start=2):
        scores, _, _ = head_run("nGPT", "CircularCSE", states, LABELS, states, LABELS, **{**kw, **change})
        assert scores["from_cache"] is False, change
        assert len(list(tmp_path.glob("*.pt"))) == i, change
    n = len(list(tmp_path.glob("*.pt")))
    other = _states(seed=1, backbone_dim=32)  # other training data, other test labels
    assert head_run("nGPT", "CircularCSE", other, LABELS, states, LABELS, margin=0.1, **kw)[0]["from_cache"] is False
    assert head_run("nGPT", "CircularCSE", states, LABELS, states, LABELS[::-1], margin=0.1,
                    **kw)[0]["from_cache"] is False
    assert len(list(tmp_path.glob("*.pt"))) == n + 2
    # the base scale does not change a GPT head: its runs of either base scale share one entry
    gpt_kw = {**kw, "curve_every": 0, "probe_steps": None}
    assert head_run("GPT", "SINCERE", states, LABELS, states, LABELS, **gpt_kw)[0]["from_cache"] is False
    hit = head_run("GPT", "SINCERE", states, LABELS, states, LABELS, base_scale="head", **gpt_kw)[0]
    assert hit["from_cache"] is True and math.isnan(hit["base_scale"])


def test_head_run_cache_without_weights_trains_again_when_weights_are_asked_for(tmp_path):
    states = _states()
    kw = dict(steps=2, batch_size=8, lr=1e-2, seed=7, n_heads=2, cache=tmp_path)
    scores, head, _ = head_run("GPT", "SINCERE", states, LABELS, states, LABELS, keep_weights=False, **kw)
    assert head is None and scores["from_cache"] is False
    assert head_run("GPT", "SINCERE", states, LABELS, states, LABELS, keep_weights=False, **kw)[0]["from_cache"]
    scores, head, _ = head_run("GPT", "SINCERE", states, LABELS, states, LABELS, **kw)
    assert scores["from_cache"] is False and head is not None
    assert head_run("GPT", "SINCERE", states, LABELS, states, LABELS, **kw)[0]["from_cache"] is True


def test_head_settings_record_what_shapes_a_head():
    narrow = _states(backbone_dim=384)
    s = head_settings("nGPT", "SINCERE", narrow, steps=3, batch_size=64, lr=1e-3, seed=1, n_heads=2)
    assert s["batch_size"] == 24 and s["head_dim"] == 8 and s["backbone_dim"] == 384
    assert s["base_scale"] == "backbone" and s["base_scale_value"] == pytest.approx(384 ** -0.5)
    assert s["clip_norm"] == 1.0 and s["pooling"] == "mean"
    old = head_settings("nGPT", "SINCERE", narrow, steps=3, batch_size=64, lr=1e-3, seed=1, n_heads=2,
                        base_scale="head", clip_norm=None)
    assert old["base_scale_value"] == pytest.approx(8 ** -0.5) and old["clip_norm"] is None
    gpt = head_settings("GPT", "SINCERE", narrow, steps=3, batch_size=64, lr=1e-3, seed=1, n_heads=2)
    assert gpt["base_scale"] is gpt["base_scale_value"] is gpt["backbone_dim"] is None
    assert states_digest(narrow) == states_digest(narrow) != states_digest(_states(seed=1))


def test_head_settings_table_shows_what_each_kind_records():
    from companion.papers.circumplex.experiments import SHOWN_SETTINGS, head_settings_table

    table = head_settings_table(["GPT", "nGPT", "nGPT-plain"], _states(backbone_dim=384), steps=3, batch_size=64,
                                lr=1e-3, seed=1, n_heads=2, pooling="cls")
    assert list(table.index) == list(SHOWN_SETTINGS) and list(table.columns) == ["GPT", "nGPT", "nGPT-plain"]
    assert table.loc["base_scale_value", "nGPT"] == f"{384 ** -0.5:.4g}" and table.loc["backbone_dim", "nGPT"] == 384
    assert table.loc["base_scale", "GPT"] == table.loc["base_scale_value", "nGPT-plain"] == "-"
    assert set(table.loc["pooling"]) == {"cls"} and set(table.loc["clip_norm"]) == {"1"}
    assert table.loc["batch_size", "GPT"] == 24  # at most the training set


def test_run_grid_caches_its_runs(tmp_path):
    states = _states()
    kw = dict(kinds=["GPT", "nGPT"], losses=["SINCERE"], seeds=[0], steps=2, batch_size=8, lr=1e-2, n_heads=2,
              cache=tmp_path)
    runs, embs = cmp.run_grid(states, LABELS, states, LABELS, **kw)
    again, embs2 = cmp.run_grid(states, LABELS, states, LABELS, **kw)
    assert not runs["from_cache"].any() and again["from_cache"].all()
    pd.testing.assert_frame_equal(runs.drop(columns="from_cache"), again.drop(columns="from_cache"))
    assert all(torch.equal(embs[k], embs2[k]) for k in embs)
    changed, _ = cmp.run_grid(states, LABELS, states, LABELS, **{**kw, "clip_norm": None})
    assert not changed["from_cache"].any()


def test_head_setup_carries_the_head_settings_into_every_run(tmp_path):
    states = _states(backbone_dim=32)
    setup = cmp.HeadSetup(states, LABELS, states, LABELS, batch_size=8, lr=1e-2, n_heads=2, cache=tmp_path)
    assert (setup.pooling, setup.base_scale, setup.clip_norm) == ("mean", "backbone", 1.0)  # the authors' defaults
    assert setup.backbone_dim == 32
    plan = cmp.grid_plan(kinds=["GPT", "nGPT"], losses=["SINCERE"], seeds=[0], steps=2)
    runs, _ = cmp.run_plan(plan, setup)
    ngpt = runs.set_index("kind").loc["nGPT"]
    assert ngpt["base_scale"] == pytest.approx(32 ** -0.5) and ngpt["clip_norm"] == 1.0
    assert set(runs["pooling"]) == {"mean"} and math.isnan(runs.set_index("kind").loc["GPT", "base_scale"])
    old = cmp.HeadSetup(states, LABELS, states, LABELS, batch_size=8, lr=1e-2, n_heads=2, pooling="cls",
                        base_scale="head", clip_norm=None, cache=tmp_path)
    runs_old, _ = cmp.run_plan(plan, old)
    assert not runs_old["from_cache"].any() and set(runs_old["pooling"]) == {"cls"}
    ngpt_old = runs_old.set_index("kind").loc["nGPT"]
    assert ngpt_old["base_scale"] == pytest.approx(8 ** -0.5) and math.isnan(ngpt_old["clip_norm"])
    again, _ = cmp.run_grid(states, LABELS, states, LABELS, kinds=["GPT", "nGPT"], losses=["SINCERE"], seeds=[0],
                            steps=2, batch_size=8, lr=1e-2, n_heads=2, pooling="cls", base_scale="head",
                            clip_norm=None, cache=tmp_path)
    assert again["from_cache"].all()  # run_grid passes the same settings through HeadSetup


# --------------------------------------------------------------------------------------------- plateau per run
def test_run_plateau_on_constructed_curves():
    flat = {"kind": "nGPT", "loss": "SINCERE", "seed": 0, "steps": 6,
            "curve": {0: 0.1, 2: 0.5, 4: 0.62, 6: 0.63, 8: 0.62, 10: 0.63, 12: 0.625}}
    climbing = {**flat, "curve": {0: 0.1, 2: 0.2, 4: 0.3, 6: 0.4, 8: 0.5, 10: 0.6, 12: 0.71}}
    assert run_curve(flat) == ([0, 2, 4, 6, 8, 10, 12], [0.1, 0.5, 0.62, 0.63, 0.62, 0.63, 0.625])
    ok, moving = run_plateau(flat), run_plateau(climbing)
    assert isinstance(ok, stats.Validity) and ok.name == "plateau" and ok.passed
    assert "from the budget 6 to 12" in ok.detail
    assert not moving.passed and moving.detail.endswith("still moving")
    assert moving.reason.startswith("budget: nGPT/SINCERE seed 0")
    # a large compared gap tolerates a small climb (a quarter of the gap)
    assert run_plateau(climbing, gap=2.0).passed
    # a run that stops at its budget: the last third of its curve
    unprobed = {**climbing, "steps": 12}
    assert not run_plateau(unprobed).passed and "over the last 33% of steps 0-12" in run_plateau(unprobed).detail
    assert run_plateau({**flat, "steps": 12}).passed
    # too little to fit, or no curve at all: a failed check, never a pass
    short = run_plateau({**flat, "steps": 12, "curve": {0: 0.1, 12: 0.5}})
    assert not short.passed and "too few to fit" in short.detail
    assert not run_plateau({**flat, "curve": {0: 0.1, 6: 0.5, 8: 0.6}}).passed  # 2 evaluations from the budget on
    missing = run_plateau({**flat, "curve": None})
    assert missing.name == "record" and not missing.passed
    # a head_run scores dict (no seed column) works too
    assert run_plateau({"steps": 6, "curve": flat["curve"]}).detail.startswith("the run, test V-Measure")
