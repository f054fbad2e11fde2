"""companion.papers.synthesis.zoo: class-balanced batches, the objective dispatch, the evaluation suite and the paired statistics."""

import math

import numpy as np
import pandas as pd
import pytest
import torch
import torch.nn.functional as F

from companion.losses.circumplex import ECM_LABELS
from companion.papers.angle.pairs import PairData
from companion.papers.synthesis import zoo

LABELS = ["joy"] * 5 + ["anger"] * 4 + ["fear"] * 6


# --------------------------------------------------------------------------------------------- batches
def test_balanced_batches_hold_each_label_per_class_times():
    it = zoo.balanced_batches(LABELS, per_class=2, seed=0, epochs=1)
    got = list(it)
    assert len(got) == 2  # smallest label (anger) has 4 examples -> 4 // 2 batches per epoch
    seen = []
    for b in got:
        names = [LABELS[int(i)] for i in b]
        assert sorted(names) == ["anger", "anger", "fear", "fear", "joy", "joy"]
        seen += b.tolist()
    assert len(seen) == len(set(seen))  # no index repeats within an epoch


def test_balanced_batches_deterministic_per_seed_and_endless():
    a = [b.tolist() for b, _ in zip(zoo.balanced_batches(LABELS, 2, seed=3), range(5))]
    b = [b.tolist() for b, _ in zip(zoo.balanced_batches(LABELS, 2, seed=3), range(5))]
    c = [b.tolist() for b, _ in zip(zoo.balanced_batches(LABELS, 2, seed=4), range(5))]
    assert a == b and a != c and len(a) == 5


def test_balanced_batches_errors():
    with pytest.raises(ValueError, match="anger"):
        next(zoo.balanced_batches(LABELS, per_class=5, seed=0))
    with pytest.raises(ValueError, match="per_class"):
        next(zoo.balanced_batches(LABELS, per_class=0, seed=0))
    with pytest.raises(TypeError):
        next(zoo.balanced_batches("joy", per_class=1, seed=0))


def _data():
    wiki = [f"sentence number {i}" for i in range(16)]
    stsb = PairData([f"a{i}" for i in range(8)], [f"b{i}" for i in range(8)], [0, 1, 2, 3, 4, 5, 4.5, 0.5])
    labels = [ECM_LABELS[i % 3] for i in range(12)]
    return zoo.ZooData(wiki, stsb, [f"emo {i}" for i in range(12)], labels)


def test_batches_emolit_must_be_a_multiple_of_the_labels():
    data = _data()
    with pytest.raises(ValueError, match="multiple"):
        zoo.batches("emolit", data, 4, seed=0)
    b = next(zoo.batches("emolit", data, 6, seed=0))
    assert sorted(data.emolit_labels[int(i)] for i in b) == sorted(ECM_LABELS[:3] * 2)
    assert len(next(zoo.batches("stsb", data, 4, seed=0))) == 4
    with pytest.raises(ValueError, match="kind"):
        zoo.batches("snli", data, 4, seed=0)


# --------------------------------------------------------------------------------------------- losses
class Table(torch.nn.Module):
    """A trainable lookup table text -> vector (stands in for an encoder)."""

    def __init__(self, texts, dim=8, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.index = {t: i for i, t in enumerate(texts)}
        self.weight = torch.nn.Parameter(torch.randn(len(texts), dim, generator=g))

    def embed(self, texts):
        return self.weight[torch.tensor([self.index[t] for t in texts])]


def _supcon_by_hand(z, y, tau):
    """Hard SupCon (positives in the denominator, self excluded), one anchor at a time."""
    z = F.normalize(z.double(), dim=1)
    total = 0.0
    for i in range(len(y)):
        others = [k for k in range(len(y)) if k != i]
        logits = torch.stack([z[i] @ z[k] / tau for k in others])
        logp = logits - torch.logsumexp(logits, 0)
        pos = [j for j, k in enumerate(others) if y[k] == y[i]]
        total += float(-logp[pos].mean())
    return total / len(y)


def test_supcon_dispatch_matches_hand_computation():
    data = _data()
    table = Table(data.emolit_texts)
    idx = torch.arange(12)
    ours = zoo.loss_fn("SupCon", table.embed, data)(idx)
    ref = _supcon_by_hand(table.weight.detach(), data.emolit_labels, 0.1)
    assert ours.item() == pytest.approx(ref, rel=1e-5)


def test_soft_supcon_tends_to_supcon_as_eps_vanishes_and_differs_otherwise():
    data = _data()
    table = Table(data.emolit_texts)
    idx = torch.arange(12)
    hard = zoo.loss_fn("SupCon", table.embed, data)(idx).item()
    tiny = zoo.loss_fn("Soft SupCon", table.embed, data, eps=1e-9)(idx).item()
    soft = zoo.loss_fn("Soft SupCon", table.embed, data)(idx).item()
    assert tiny == pytest.approx(hard, rel=1e-4)
    assert abs(soft - hard) > 1e-3


def test_every_objective_gives_a_finite_loss_with_gradient():
    data = _data()
    table = Table(data.wiki + data.stsb.sentence1 + data.stsb.sentence2 + data.emolit_texts)
    for name, spec in zoo.OBJECTIVES.items():
        batch = next(zoo.batches(spec.data, data, 6 if spec.data == "emolit" else 4, seed=0))
        loss = zoo.loss_fn(name, table.embed, data)(batch)
        assert torch.isfinite(loss), name
        (grad,) = torch.autograd.grad(loss, table.weight, allow_unused=True)
        assert grad is not None and float(grad.abs().sum()) > 0, name


def test_cosent_dispatch_equals_the_angle_module():
    from companion.losses.angle import cosent_loss

    data = _data()
    table = Table(data.stsb.sentence1 + data.stsb.sentence2)
    idx = torch.tensor([0, 3, 5, 6])
    batch = data.stsb.batch(idx)
    ref = cosent_loss(table.embed(batch.texts), batch.labels)
    assert zoo.loss_fn("CoSENT", table.embed, data)(idx).item() == pytest.approx(ref.item(), rel=1e-6)


def test_loss_fn_errors():
    data = _data()
    with pytest.raises(ValueError, match="Unknown zoo objective"):
        zoo.loss_fn("InfoNCE", lambda t: None, data)
    with pytest.raises(ValueError, match="no hyper-parameter"):
        zoo.loss_fn("SimCSE", lambda t: None, data, eps=0.1)
    with pytest.raises(ValueError, match="data must be"):
        zoo.ZooObjective("x", "snli", "none")


# --------------------------------------------------------------------------------------------- evaluation
def _suite():
    rng = np.random.default_rng(0)
    s1 = [f"left {i}" for i in range(10)]
    s2 = [f"right {i}" for i in range(10)]
    gold = rng.uniform(0, 5, 10)
    labels = [ECM_LABELS[i % 4] for i in range(24)]
    return zoo.EvalSuite({"STS-B": (s1, s2, gold)}, (s1[:4], s1[:4]), s1 + s2,
                         [f"emo {i}" for i in range(24)], labels), gold


def test_evaluate_on_a_constructed_geometry():
    suite, gold = _suite()
    # STS: cos(left_i, right_i) increases with gold; emotions: one orthogonal direction per label
    emb = {}
    for i, g in enumerate(gold):
        angle = (5 - g) / 5 * math.pi / 2
        emb[f"left {i}"] = torch.tensor([1.0, 0, 0, 0, 0, 0, 0, 0])
        emb[f"right {i}"] = torch.tensor([math.cos(angle), math.sin(angle), 0, 0, 0, 0, 0, 0])
    for i, lab in enumerate(suite.emolit_labels):
        v = torch.zeros(8)
        v[4 + ECM_LABELS.index(lab)] = 1.0
        v[0] = 0.001 * i  # tiny within-label spread
        emb[f"emo {i}"] = v
    calls = []

    def encode(texts):
        calls.append(len(texts))
        return torch.stack([emb[t] for t in texts])

    out = zoo.evaluate(encode, suite)
    assert calls == [len(suite.texts())]  # one encode call over the distinct texts
    assert out["STS-B"] == pytest.approx(100.0) and out["avg"] == pytest.approx(100.0)
    assert out["align"] == pytest.approx(0.0)  # identical positive pairs
    assert out["V"] == pytest.approx(1.0)
    assert out["between_cos"] == pytest.approx(0.0, abs=1e-3)
    from companion.metrics.geometry import anisotropy, effective_rank, uniformity

    sample = torch.stack([emb[t] for t in suite.sample])
    assert out["uniform"] == pytest.approx(uniformity(sample))
    assert out["anisotropy"] == pytest.approx(anisotropy(sample))
    assert out["erank"] == pytest.approx(effective_rank(sample))


def test_runs_record_how_far_they_moved_on_the_sts_pairs():
    suite, gold = _suite()
    g = torch.Generator().manual_seed(0)
    base = {t: torch.randn(8, generator=g) for t in suite.texts()}

    def encoder(turn):  # every STS sentence turned by the same small rotation in the plane of its first two axes
        rot = torch.eye(8)
        rot[:2, :2] = torch.tensor([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
        return lambda texts: torch.stack([base[t] @ rot.T for t in texts])

    kept = {}
    untrained = zoo.evaluate(encoder(0.0), suite, keep=kept)
    assert kept["sts"].shape == (len(zoo.sts_texts(suite)), 8) == (20, 8)
    reference = zoo.movement_reference(untrained, kept, suite)
    assert reference["scores"] == {"STS-B": untrained["STS-B"]} and reference["se"]["STS-B"] > 0
    same = {}
    record = zoo.run_movement(reference, zoo.evaluate(encoder(0.0), suite, keep=same), same)
    assert record["score_change"] == 0.0 and record["drift"] == pytest.approx(0.0, abs=1e-12)
    assert record["score_noise"] == pytest.approx(1.96 * reference["se"]["STS-B"])
    turned = {}
    moved = zoo.run_movement(reference, zoo.evaluate(encoder(0.3), suite, keep=turned), turned)
    unit = torch.nn.functional.normalize(torch.stack([base[t] for t in zoo.sts_texts(suite)]).double(), dim=-1)
    rot = unit.clone()
    rot[:, 0] = math.cos(0.3) * unit[:, 0] - math.sin(0.3) * unit[:, 1]
    rot[:, 1] = math.sin(0.3) * unit[:, 0] + math.cos(0.3) * unit[:, 1]
    assert moved["drift"] == pytest.approx(float((1 - (unit * rot).sum(-1)).mean()), rel=1e-6) and moved["drift"] > 0
    assert moved["score_change"] == 0.0  # one rotation for all: cosines between pairs, and so their ranks, unchanged
    with pytest.raises(ValueError, match="STS sentences"):
        zoo.movement_reference(untrained, {"sts": kept["sts"][:3]}, suite)


def test_lookup_encoder_refuses_unknown_texts():
    get = zoo.lookup_encoder(lambda t: torch.eye(len(t)), ["a", "b", "a"])
    torch.testing.assert_close(get(["b", "a"]), torch.tensor([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(KeyError, match="not encoded"):
        get(["c"])


def test_eval_suite_validates():
    with pytest.raises(ValueError, match="align"):
        zoo.EvalSuite({}, (["a"], []), ["a", "b"], [], [])
    with pytest.raises(ValueError, match="sample"):
        zoo.EvalSuite({}, (["a"], ["b"]), ["a"], [], [])


# --------------------------------------------------------------------------------------------- statistics
def test_compare_goes_through_companion_stats():
    from companion import stats

    runs = pd.DataFrame({"model": ["A"] * 3 + ["B"] * 3, "seed": [2, 0, 1] * 2,
                         "avg": [82.0, 80.0, 81.0, 80.5, 79.0, 79.5]})
    cmp = zoo.compare(runs, "avg", "A", "B")
    ref = stats.paired([80.0, 81.0, 82.0], [79.0, 79.5, 80.5])  # seeds sorted 0, 1, 2
    assert cmp.values == ref.values and cmp.ci == ref.ci and cmp.p == ref.p
    t = 4.0 / 3 / (math.sqrt(1 / 12) / math.sqrt(3))  # differences 1, 1.5, 1.5: mean 4/3, sd sqrt(1/12)
    from scipy import stats as sp

    assert cmp.p == pytest.approx(2 * sp.t.sf(t, 2))
    one = zoo.compare(runs, "avg", "A", "untrained", reference={"avg": 78.0})
    assert one.values == (2.0, 3.0, 4.0) and one.estimate == pytest.approx(3.0)


def test_paired_comparisons_with_untrained_reference():
    runs = pd.DataFrame({"model": ["A"] * 3 + ["B"] * 3, "seed": [0, 1, 2] * 2,
                         "avg": [80.0, 81.0, 82.0, 79.0, 79.5, 80.5]})
    frame = zoo.paired_comparisons(runs, "avg", [("A", "B"), ("A", "untrained")], reference={"avg": 78.0})
    assert frame.loc[0, "per_seed"] == [1.0, 1.5, 1.5]
    assert frame.loc[1, "mean_diff"] == pytest.approx(3.0)
    assert frame.loc[0, "wins"] == 3 and "p_wilcoxon" not in frame  # three pairs: no signed-rank test is reported
    from companion import stats

    assert frame.loc[0, "mde"] == pytest.approx(stats.paired([80.0, 81.0, 82.0], [79.0, 79.5, 80.5]).mde)
    assert (frame["p_holm"] >= frame["p_t"]).all()

    assert list(frame["p_holm"]) == pytest.approx(stats.holm(list(frame["p_t"])))
    with pytest.raises(ValueError, match="reference"):
        zoo.paired_comparisons(runs, "avg", [("A", "untrained")])
    with pytest.raises(KeyError):
        zoo.paired_comparisons(runs, "avg", [("C", "B")])


def test_holm_direction_each_verdict():
    from companion import stats

    strong = stats.sample([1.0, 1.1, 0.9])
    assert zoo.holm_direction(0.01, sign=1, family=5).verdict(strong) == "reproduced"
    assert zoo.holm_direction(0.01, sign=-1, family=5).verdict(strong) == "not reproduced"
    judged = zoo.holm_direction(0.2, sign=1, family=5).judge(strong)
    assert judged.verdict == "inconclusive" and "Holm" in judged.reason
    reversed_ = zoo.holm_direction(0.2, sign=-1, family=5).judge(strong)      # a reversal that does not survive Holm
    assert reversed_.verdict == "inconclusive" and "Holm" in reversed_.reason
    noisy = stats.sample([1.0, -1.0, 0.5])
    assert zoo.holm_direction(1.0, sign=1, family=5).verdict(noisy) == "inconclusive"
    # with the source paper's difference: magnitude and absence apply
    assert zoo.holm_direction(0.01, paper_effect=1.0, family=5).verdict(strong) == "reproduced"
    # ours 1.0 against 3.0: inside the negligible band ±1.5 -> not reproduced (negligible), never partly
    assert zoo.holm_direction(0.01, paper_effect=3.0, family=5).judge(strong).verdict == "not reproduced"
    assert zoo.holm_direction(0.01, paper_effect=0.3, family=5).judge(strong).verdict == "partly"   # larger
    tiny = stats.sample([0.01, -0.01, 0.0, 0.005, -0.005])
    assert zoo.holm_direction(1.0, paper_effect=2.0, family=5).verdict(tiny) == "not reproduced"


def test_holm_direction_text_does_not_depend_on_the_measured_p():
    a = zoo.holm_direction(0.001, sign=1, family=12)
    b = zoo.holm_direction(0.9, sign=1, family=12)
    assert a.description == b.description and "Holm over the 12 zoo claims" in a.description
    assert a.params == b.params and a.params["family"] == 12
    with pytest.raises(ValueError):
        zoo.holm_direction(0.01, family=3)                                    # neither a sign nor a difference


def _runs_with_losses(curves: dict[str, list[list[float]]]):
    rows = [{"model": name, "seed": seed, "losses": c} for name, cs in curves.items() for seed, c in enumerate(cs)]
    return pd.DataFrame(rows)


def test_trained_and_plateau_checks_read_the_loss_curves():
    rng = np.random.default_rng(0)
    steps = 30
    decay = np.exp(-np.arange(steps) / 2.0)
    falling = [list(2.0 + decay + rng.normal(0, 0.01, steps)) for _ in range(4)]     # falls, then flat
    flat = [list(1e-3 + rng.normal(0, 1e-4, steps)) for _ in range(4)]               # nothing to train
    still = [list(np.linspace(3.0, 1.0, steps) + rng.normal(0, 0.01, steps)) for _ in range(4)]  # still falling
    runs = _runs_with_losses({"A": falling, "flat": flat, "still": still})
    assert zoo.loss_matrix(runs, "A").shape == (4, steps)
    ok = zoo.trained_check(runs, ["A"])
    assert ok.name == "trained" and ok.passed and "A training loss: 4 of 4 runs moved" in ok.detail
    bad = zoo.trained_check(runs, ["A", "flat"])
    assert not bad.passed and bad.reason.startswith("did not train")
    assert zoo.plateau_check(runs, ["A"]).passed
    budget = zoo.plateau_check(runs, ["A", "still"])
    assert not budget.passed and budget.reason.startswith("budget") and "still:" in budget.detail
    one_seed = _runs_with_losses({"A": falling[:1]})
    assert zoo.trained_check(one_seed, ["A"]).passed          # one seed's curve moved beyond its own scatter
    with pytest.raises(KeyError):
        zoo.loss_matrix(runs, "B")
    with pytest.raises(ValueError, match="same number"):
        zoo.loss_matrix(_runs_with_losses({"A": [[1.0, 2.0, 3.0], [1.0, 2.0]]}), "A")


def test_source_differences_come_from_the_transcribed_tables():
    diffs = zoo.source_differences()
    assert diffs[("SimACE", "SimCSE")][0] == pytest.approx(78.20 - 76.25)
    assert diffs[("SimACE", "ArcCon")][0] == pytest.approx(78.20 - 77.76)
    assert diffs[("AnglE", "CoSENT")][0] == pytest.approx(86.26 - 85.28)
    assert all(isinstance(v, float) and src for v, src in diffs.values())
