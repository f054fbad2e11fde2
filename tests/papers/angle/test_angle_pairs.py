"""AnglE's pair data (companion.papers.angle.pairs): interleaved collation, the pair loss closure, Table 4's
variants, the bucket Wasserstein distance, pair-set evaluation and the seeded, paired top-layer experiment."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from companion.losses.angle import AnglEObjective, cosent_loss
from companion.papers.angle.pairs import TABLE4_VARIANTS, PairData, interleave, pair_loss_fn


def test_interleaved_collation_and_loss_fn():
    data = PairData(["a1", "b1", "c1"], ["a2", "b2", "c2"], [0.5, 4.0, 2.0])
    batch = data.batch(torch.tensor([2, 0]))
    assert batch.texts == ["c1", "c2", "a1", "a2"]
    assert batch.labels.tolist() == [2.0, 0.5]
    assert interleave(["x", "y"], ["X", "Y"]) == ["x", "X", "y", "Y"]
    with pytest.raises(ValueError, match="same length"):
        PairData(["a"], ["b", "c"], [1.0])
    with pytest.raises(ValueError, match="same length"):
        interleave(["a"], [])
    seen = {}

    def embed(texts):
        seen["texts"] = texts
        return torch.stack([torch.tensor([float(len(t)), float(ord(t[0])), 1.0, 2.0]) for t in texts])

    loss = pair_loss_fn(embed, lambda e, y, t: cosent_loss(e, y), data)(torch.tensor([0, 1, 2]))
    assert seen["texts"] == ["a1", "a2", "b1", "b2", "c1", "c2"] and torch.isfinite(loss)


def test_table4_variants_are_its_six_objective_rows():
    assert set(TABLE4_VARIANTS) == {"all", "w/o ibn", "w/o angle", "only cosine", "only ibn", "only angle"}


def test_pairdata_from_dataset_with_label_map_and_subset():
    cols = {"premise": ["p1", "p2", "p3"], "hypothesis": ["h1", "h2", "h3"],
            "label": ["entailment", "neutral", "contradiction"]}
    data = PairData.from_dataset(cols, "premise", "hypothesis", "label",
                                 label_map={"entailment": 1.0, "contradiction": 0.0}.get)
    assert data.sentence1 == ["p1", "p3"] and data.labels.tolist() == [1.0, 0.0]
    big = PairData([str(i) for i in range(50)], [str(i) for i in range(50)], list(range(50)))
    assert big.subset(10, seed=1).sentence1 == big.subset(10, seed=1).sentence1
    assert len(big.subset(10, seed=1)) == 10 and big.subset(None) is big


def test_bucket_wasserstein_zero_for_perfect_and_larger_for_worse_scores():
    from companion.papers.angle.pairs import bucket_wasserstein

    g = torch.Generator().manual_seed(0)
    gold = torch.rand(400, generator=g) * 5
    assert bucket_wasserstein(gold * 3 + 1, gold) == pytest.approx(0.0, abs=1e-12)  # monotone transform
    noisy = gold + torch.randn(400, generator=g)
    shuffled = gold[torch.randperm(400, generator=g)]
    assert 0 < bucket_wasserstein(noisy, gold) < bucket_wasserstein(shuffled, gold)
    with pytest.raises(ValueError, match="equally long"):
        bucket_wasserstein([1.0, 2.0], [1.0])


def _tiny_upper(pooling="mean"):
    from companion.encoders import tiny_encoder
    from companion.encoders.upper import UpperEncoder

    enc = tiny_encoder("bert", pooling="mean", layers=2, hidden=32, heads=4, seed=2)
    return enc, UpperEncoder(enc, n_top=1, pooling=pooling, state_dtype=torch.float32)


_WORDS = "a man dog plays runs the guitar park cat sleeps on mat woman sings song car drives road".split()


def _pairs(n, seed):
    g = torch.Generator().manual_seed(seed)
    pick = lambda k: " ".join(_WORDS[int(i)] for i in torch.randint(len(_WORDS), (k,), generator=g))  # noqa: E731
    return PairData([pick(4) for _ in range(n)], [pick(5) for _ in range(n)], (torch.rand(n, generator=g) * 5).tolist())


def test_evaluate_pair_sets_matches_scipy_spearman():
    from scipy.stats import spearmanr

    from companion.papers.angle.pairs import evaluate_pair_sets

    data = _pairs(20, 0)
    table = {}
    g = torch.Generator().manual_seed(1)

    def encode(texts):
        for t in texts:
            table.setdefault(t, torch.randn(6, generator=g))
        return torch.stack([table[t] for t in texts])

    scores, cos = evaluate_pair_sets(encode, {"x": data}, return_cosines=True)
    ref = F.cosine_similarity(encode(data.sentence1), encode(data.sentence2), dim=-1)
    assert cos["x"] == pytest.approx(ref.double().numpy(), abs=1e-6)
    assert scores["x"] == pytest.approx(spearmanr(ref.numpy(), data.labels.numpy()).statistic * 100)
    with pytest.raises(ValueError, match="sets is empty"):
        evaluate_pair_sets(encode, {})


def test_upper_experiment_is_seeded_paired_and_zero_steps_is_pretrained():
    from companion.papers.angle.pairs import evaluate_pair_sets, upper_experiment

    enc, base = _tiny_upper()
    train_data, test = _pairs(48, 3), _pairs(24, 4)
    pre = evaluate_pair_sets(lambda t: enc.encode(t, cache=False), {"t": test})
    assert upper_experiment(base, train_data, {"t": test}, None, seed=0, steps=0, batch_size=8,
                            lr=1e-3)["scores"]["t"] == pytest.approx(pre["t"], abs=1e-6)
    obj = AnglEObjective(1, 1, 1, positive_threshold=2.5)
    before = {k: v.clone() for k, v in base.state_dict().items()}
    runs = [upper_experiment(base, train_data, {"t": test}, obj, seed=5, steps=4, batch_size=8, lr=1e-2, buckets=b)
            for b in (2, 2)]
    assert runs[0]["scores"] == runs[1]["scores"]  # same seed, same batches and dropout: identical
    assert runs[0]["scores"]["t"] != pytest.approx(pre["t"], abs=1e-6)  # it trained
    assert len(runs[0]["loss_curve"]) == 4 and runs[0]["loss_curve"] == runs[1]["loss_curve"]  # every step's loss
    assert runs[0]["loss_first"] == pytest.approx(sum(runs[0]["loss_curve"]) / 4)  # fewer than ten steps: all
    for k, v in base.state_dict().items():  # each run trains a fresh copy; the base stays pretrained
        assert torch.equal(v, before[k]), k
    assert upper_experiment(base, train_data, {"t": test}, None, seed=0, steps=0, batch_size=8,
                            lr=1e-3)["scores"]["t"] == pytest.approx(pre["t"], abs=1e-6)
    # the data order depends only on the seed: record the batches two objectives see
    seen = {}
    for name, o in {"a": AnglEObjective(1, 0, 0), "b": AnglEObjective(0, 0, 1)}.items():
        def spy(e, y, t, o=o, name=name):
            seen.setdefault(name, []).append(list(t))
            return o(e, y, t)
        upper_experiment(base, train_data, {"t": test}, spy, seed=9, steps=3, batch_size=8, lr=1e-3)
    assert seen["a"] == seen["b"]
    with pytest.raises(ValueError, match="steps must be an int"):
        upper_experiment(base, train_data, {"t": test}, obj, seed=0, steps=-1, batch_size=8, lr=1e-3)


def test_a_preempted_gpu_run_resumes_and_its_result_is_kept(preemption):
    from companion.papers.angle.pairs import run_key, run_path, upper_experiment

    enc, base = _tiny_upper()
    train_data, test, dev = _pairs(48, 3), _pairs(24, 4), _pairs(16, 5)
    obj = AnglEObjective(1, 1, 1, positive_threshold=2.5)
    kw = dict(seed=5, steps=6, batch_size=8, lr=1e-2, select_on=dev, eval_every=2, return_cosines=True)
    whole = upper_experiment(base, train_data, {"t": test}, obj, profile="cpu", **kw)
    assert preemption.checkpoints == [None] and not (preemption.cache / "angle").exists()  # cpu: nothing kept
    preemption.stop_at(5)  # after the checkpoint at step 4: dev evaluations at 0, 2 and 4 done
    with pytest.raises(KeyboardInterrupt):
        upper_experiment(base, train_data, {"t": test}, obj, profile="gpu", **kw)
    key = run_key(base, train_data, {"t": test}, obj, **kw)
    assert [p.stem for p in preemption.left()] == [key]
    resumed = upper_experiment(base, train_data, {"t": test}, obj, profile="gpu", **kw)
    assert preemption.left() == [] and run_path(key).exists()
    same = ("scores", "loss_curve", "loss_first", "loss_last", "best_step", "movement")
    assert {k: resumed[k] for k in same} == {k: whole[k] for k in same}
    assert (resumed["cosines"]["t"] == whole["cosines"]["t"]).all()
    calls = len(preemption.checkpoints)
    again = upper_experiment(base, train_data, {"t": test}, obj, profile="gpu", **kw)  # the kept result, no training
    assert len(preemption.checkpoints) == calls and again["scores"] == whole["scores"]
    assert run_key(base, train_data, {"t": test}, lambda e, y, t: obj(e, y, t), **kw) is None


def test_a_score_curve_records_the_metric_along_training_without_changing_the_run():
    from companion.papers.angle.pairs import evaluate_pair_sets, upper_experiment

    enc, base = _tiny_upper()
    train_data, test = _pairs(48, 3), _pairs(24, 4)
    obj = AnglEObjective(1, 1, 1, positive_threshold=2.5)
    plain = upper_experiment(base, train_data, {"t": test}, obj, seed=5, steps=6, batch_size=8, lr=1e-2)
    curved = upper_experiment(base, train_data, {"t": test}, obj, seed=5, steps=6, batch_size=8, lr=1e-2,
                              curve_every=2)
    assert "curve" not in plain
    # scoring along the way draws no random number: the run trains exactly as without it
    assert curved["scores"] == plain["scores"] and curved["loss_curve"] == plain["loss_curve"]
    assert sorted(curved["curve"]) == [0, 2, 4, 6]
    pre = evaluate_pair_sets(lambda t: enc.encode(t, cache=False), {"t": test})
    assert curved["curve"][0]["t"] == pytest.approx(pre["t"], abs=1e-6)  # the untrained start
    assert curved["curve"][6] == curved["scores"]  # the last point is the run's own score
    assert curved["curve"][2]["t"] != pytest.approx(curved["curve"][6]["t"], abs=1e-9)  # it moved in between
    with pytest.raises(ValueError, match="curve_every must be an int"):
        upper_experiment(base, train_data, {"t": test}, obj, seed=0, steps=2, batch_size=8, lr=1e-3, curve_every=-1)
