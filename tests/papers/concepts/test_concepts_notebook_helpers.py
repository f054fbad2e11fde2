"""The helpers the concept-paper notebooks call: the §5 metrics on a pool (evaluation.ConceptRetrieval), the reduced
frozen-mpnet set, recall by modifier family, Table 12 beside an encoder, the validity checks measured in our runs
(trained, plateau), the frozen-run bootstrap and exact rule, the paired claims with their checks and the computed
summary (companion.papers.concepts.evaluation), top-layer recipes and training (finetune) and the Theorem D.5 toy
(toy)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from companion import stats
from companion.papers.concepts import finetune
from companion.papers.concepts.evaluation import (
    ConceptRetrieval,
    PairedConditionClaims,
    curve_plateau,
    exact_direction,
    frozen_bootstrap,
    loss_plateau,
    loss_trained,
    paired_item_bootstrap,
    recall_by_family,
    t2d_hits,
    t2d_probe_metrics,
    table12_beside,
    verdict_summary,
)
from companion.papers.concepts.toy import capacity_toy_trace, toy_endpoints


def _unit(*angles_deg):
    a = np.deg2rad(angles_deg)
    return np.c_[np.cos(a), np.sin(a)]


# ------------------------------------------------------------------------------------------ ConceptRetrieval
@pytest.fixture
def pool():
    ev = pd.DataFrame({"term": ["bank", "bank", "dog"], "masked": ["d river", "d money", "d animal"]})
    hn = pd.DataFrame({"term": ["bank", "dog", "dog"], "positive": ["d river", "d animal", "d animal"],
                       "negative": ["n1", "n2", "n3"], "rule": ["negation", "negation", "antonym"]})
    return ev, hn, ["d animal", "r2", "r3"]


def test_concept_retrieval_texts_and_metrics(pool):
    ev, hn, rand_def = pool
    evaluate = ConceptRetrieval(ev, hn, rand_def, rules=("negation", "antonym"))
    # terms, definitions, negatives, random definitions; the first occurrence of a repeated text is kept
    assert evaluate.texts == ["bank", "dog", "d river", "d money", "d animal", "n1", "n2", "n3", "r2", "r3"]
    vec = dict(zip(evaluate.texts, _unit(0, 90, 10, 20, 95, 180, 270, 0, 200, 250)))
    Z = torch.as_tensor(np.stack([vec[t] for t in evaluate.texts])) * 3.0  # the scale does not matter
    out = evaluate(Z)
    # polysemy: both bank definitions are gold for 'bank', and each definition's best term is its own
    assert out["t2d R@10"] == 1.0 and out["t2d MRR"] == 1.0 and out["d2t MRR"] == 1.0
    # positives cos(bank, river) = cos 10, cos(dog, animal) = cos 5 against negatives cos 180, cos 180: separated
    assert out["AUC negation"] == 1.0
    assert math.isnan(out["AUC antonym"])  # a single antonym negative: no AUC
    assert set(out) == {"t2d R@10", "t2d MRR", "d2t R@10", "d2t MRR", "pair AUC", "AUC negation", "AUC antonym",
                        "anisotropy", "effective rank"}


def test_per_concept_hits_average_to_recall():
    ev = pd.DataFrame({"term": ["a", "b", "c"], "masked": ["da", "db", "dc"]})
    hn = pd.DataFrame({"term": ["a", "b"], "positive": ["da", "db"], "negative": ["na", "nb"],
                       "rule": ["negation", "negation"]})
    evaluate = ConceptRetrieval(ev, hn, ["db", "dc", "da"], rules=("negation",))
    vec = dict(zip(["a", "b", "c", "da", "db", "dc", "na", "nb"], _unit(0, 90, 180, 5, 150, 100, 60, 60)))
    Z = torch.as_tensor(np.stack([vec[t] for t in evaluate.texts]))
    # a -> da (rank 1); b -> dc (its own db ranks 2nd); c -> db (its own dc ranks 2nd)
    assert evaluate.hits(Z, k=1).tolist() == [True, False, False]
    assert evaluate.hits(Z, k=2).all()
    assert evaluate.hits(Z, k=10).mean() == evaluate(Z)["t2d R@10"] == 1.0
    row = {t: i for i, t in enumerate(evaluate.texts)}
    assert t2d_hits(Z, row, ev, k=1).tolist() == [True, False, False]


def test_concept_retrieval_rejects_mismatched_inputs(pool):
    ev, hn, rand_def = pool
    with pytest.raises(ValueError, match="one random definition per concept"):
        ConceptRetrieval(ev, hn, rand_def[:2])
    evaluate = ConceptRetrieval(ev, hn, rand_def)
    with pytest.raises(ValueError, match="rows for 10 texts"):
        evaluate(torch.zeros(3, 2))


def test_t2d_probe_metrics_on_a_hand_made_pool():
    wn = pd.DataFrame({"term": ["a", "b"], "masked": ["da", "db"]})
    neg = pd.DataFrame({"term": ["a", "b"], "positive": ["da", "db"], "negative": ["na", "nb"]})
    texts = ["a", "b", "da", "db", "na", "nb"]
    Z = torch.as_tensor(_unit(0, 90, 80, 10, 0, 90))  # each term is closer to the other's definition
    out = t2d_probe_metrics(Z, {t: i for i, t in enumerate(texts)}, wn, neg)
    assert out["t2d MRR"] == pytest.approx(0.5) and out["t2d R@10"] == 1.0  # gold ranked second, inside the top 10
    assert out["AUC negation"] == 0.0  # every negative is the term itself: fully inverted
    assert list(out) == ["t2d R@10", "t2d MRR", "AUC negation", "anisotropy", "effective rank"]
    with pytest.raises(ValueError, match="no embedding row"):
        t2d_probe_metrics(Z, {"a": 0}, wn, neg)


def test_recall_by_family_counts_each_family():
    probe = pd.DataFrame({"family": ["x", "x", "y"], "phrase": ["p1", "p2", "p3"], "paraphrase": ["q1", "q2", "q3"]})
    texts = ["p1", "p2", "p3", "q1", "q2", "q3"]
    Z = torch.as_tensor(_unit(0, 100, 200, 5, 160, 100))  # p1 -> q1; p2 -> q3 (wrong); p3 -> q2 (wrong)
    rows, ranks = recall_by_family(Z, texts, probe, ["x", "y"], "B0")
    r1 = {r["family"]: r["R1"] for r in rows}
    assert r1 == {"x": 0.5, "y": 0.0, "all": pytest.approx(1 / 3)}
    assert all(r["R10"] == 1.0 and r["readout"] == "B0" and r["seed"] == -1 for r in rows)
    assert list(ranks) == [1, 2, 2]
    with pytest.raises(ValueError, match="not in families"):
        recall_by_family(Z, texts, probe, ["x"], "B0")


class _FakeEncoder:
    def __init__(self, vectors):
        self.vectors, self.calls = vectors, []

    def encode(self, texts, cache=True):
        self.calls.append((list(texts), cache))
        return torch.as_tensor(np.stack([self.vectors[t] for t in texts]))


def test_table12_beside_adds_the_encoder_cosines():
    t12 = pd.DataFrame({"Family": ["modal"], "Query": ["q"], "Correct paraphrase": ["c"], "Cor. sim": [0.5],
                        "Retrieved rank-1": ["r†"], "Ret. sim": [0.7], "Extra": [1]})
    enc = _FakeEncoder(dict(zip(["q", "c", "r"], _unit(0, 60, 30))))
    out = table12_beside(t12, enc, "frozen")
    assert enc.calls == [(["q", "c", "r"], False)]  # footnote signs stripped, each text once, no cache
    assert out.loc[0, "frozen cor. sim"] == pytest.approx(0.5) and out.loc[0, "frozen ret. sim"] == pytest.approx(
        math.cos(math.radians(30)))
    assert "Extra" not in out.columns
    with pytest.raises(ValueError, match="lacks"):
        table12_beside(t12.drop(columns="Ret. sim"), enc, "frozen")


# ------------------------------------------------------------------------------------------ validity checks
def test_loss_trained_needs_every_seed_to_move_beyond_its_scatter():
    moving = [{"step": k, "loss": 3.0 - 0.1 * k + (0.01 if k % 2 else -0.01)} for k in range(12)]
    flat = [{"step": k, "loss": 3.0 + (0.01 if k % 2 else -0.01)} for k in range(12)]
    assert loss_trained([moving, moving], "B1").passed
    stuck = loss_trained([moving, flat], "B3")
    assert not stuck.passed and "B3 seed 1" in stuck.detail
    assert loss_trained([[]], "B2").name == "record"


def _history(losses):
    return [{"step": i + 1, "loss": float(v), "lr": 1e-3} for i, v in enumerate(losses)]


def test_loss_plateau_reads_the_seed_mean_curve():
    rng = np.random.default_rng(0)
    flat = [_history(np.r_[np.linspace(3, 1, 30), 1 + 0.01 * rng.normal(size=60)]) for _ in range(2)]
    falling = [_history(np.linspace(3, 0.5, 90)) for _ in range(2)]
    assert loss_plateau(flat, "B1").passed
    still = loss_plateau(falling, "B3")
    assert not still.passed and still.reason.startswith("budget: B3 training loss")
    short = loss_plateau([_history([3.0, 2.0])], "B2")  # a smoke run: two steps cannot show a plateau
    assert not short.passed and "2 logged steps" in short.detail


def test_curve_plateau_compares_the_late_gain_with_the_gap():
    steps = np.arange(0, 700, 50)
    rising = pd.DataFrame({"step": np.tile(steps, 2), "seed": np.repeat([0, 1], len(steps)),
                           "x": np.tile(steps / 600.0, 2)})  # still climbing at a constant rate
    assert not curve_plateau(rising, "x", gap=0.2, what="x").passed
    assert curve_plateau(rising, "x", gap=10.0, what="x").passed  # the late gain is small beside a large gap
    few = rising[rising["step"] <= 50]
    assert not curve_plateau(few, "x", gap=1.0, what="x").passed


# ------------------------------------------------------------------------------------------ frozen runs
def test_frozen_bootstrap_is_a_comparison_the_rule_can_judge():
    cmp = paired_item_bootstrap(np.r_[np.ones(80), np.zeros(20)], np.r_[np.ones(40), np.zeros(60)], "items",
                                labels=("A", "B"))
    assert cmp.estimate == pytest.approx(0.4) and cmp.n == 1 and cmp.sd is None and cmp.mde is None
    assert 0 < cmp.ci[0] < 0.4 < cmp.ci[1] and cmp.p < 0.01 and "100 items" in cmp.test
    assert stats.direction(0.4).verdict(cmp) == "reproduced"
    assert stats.direction(-0.1).verdict(cmp) == "not reproduced"
    assert cmp.to_dict()["mde"] is None
    same = paired_item_bootstrap(np.ones(50), np.ones(50), "items")
    assert same.ci == (0.0, 0.0) and stats.direction(0.3).verdict(same) == "not reproduced"  # absent
    noisy = frozen_bootstrap(0.01, np.random.default_rng(0).normal(0.01, 0.2, 500), "pairs")
    assert stats.direction(sign=+1).judge(noisy).verdict == "inconclusive"
    with pytest.raises(ValueError, match="100 finite"):
        frozen_bootstrap(0.0, [0.0] * 10, "items")
    with pytest.raises(ValueError, match="one length"):
        paired_item_bootstrap(np.ones(3), np.ones(4), "items")


def test_exact_direction_applies_the_tolerance_policy():
    crit = exact_direction(-70.0)  # Table 11: B0-WM - B0 effective rank
    assert "tolerance ±35" in crit.description and "half the paper's effect" in crit.description
    assert crit.verdict(-56.3) == "reproduced"
    assert crit.verdict(-22.0) == "partly" and crit.verdict(-120.0) == "partly"
    assert crit.verdict(5.0) == "not reproduced" and crit.verdict(0.0) == "not reproduced"
    with pytest.raises(TypeError):
        crit.verdict(stats.paired([1.0, 2.0], [0.0, 0.0]))


# ------------------------------------------------------------------------------------------ claims
class _Ledger:
    def __init__(self):
        self.claims = []

    def claim(self, *args, **kwargs):
        self.claims.append((args, kwargs))
        return "recorded"


@pytest.fixture
def paired():
    frozen = pd.DataFrame({"AUC": [0.5]}, index=["B0"])
    runs = pd.DataFrame({"condition": ["B1"] * 3 + ["B3"] * 3, "seed": [0, 1, 2] * 2,
                         "AUC": [0.8, 0.9, 0.85, 0.6, 0.7, 0.65]})
    checks = {"B1": [stats.Validity("trained", True, "B1 fell")],
              "B3": [stats.Validity("trained", False, "B3 flat"), stats.Validity("plateau", True, "B3 flat end")]}
    return PairedConditionClaims(_Ledger(), frozen, runs, [0, 1, 2], checks, "regime R", "probe P")


def test_paired_claims_seeds_of(paired):
    assert paired.seeds_of("B0", "AUC").tolist() == [0.5, 0.5, 0.5]  # frozen: one value, repeated per seed
    assert paired.seeds_of("B1", "AUC").tolist() == [0.8, 0.9, 0.85]
    assert paired.seeds_of("B1", "AUC", seeds=[1]).tolist() == [0.9]
    assert [c.detail for c in paired.validity("B1", "B0", "B1")] == ["B1 fell"]  # frozen: none; each once


def test_paired_claims_record_the_difference_with_the_checks(paired):
    cmp = paired.claim("c1", "B1 beats B0", "B1", "B0", "AUC", "§5.2", 0.3)
    assert list(cmp.values) == pytest.approx([0.3, 0.4, 0.35])
    (args, kwargs), = paired.ledger.claims
    assert args[:3] == ("c1", "B1 beats B0", 0.3) and args[3] is cmp
    assert kwargs["regime"] == "regime R" and kwargs["note"] == "B1 0.850, B0 0.500; probe P"
    assert kwargs["kind"] == "paper" and kwargs["source"] == "§5.2"
    assert [c.detail for c in kwargs["validity"]] == ["B1 fell"]
    assert args[4].judge(cmp).verdict == "reproduced" and args[4].name == "direction"
    # B3 did not train: its failed check travels with the claim; extra checks and a note are appended
    extra = stats.Validity("ceiling", True, "room")
    paired.claim("c2", "B1 beats B3", "B1", "B3", "AUC", "App. H", 0.1, note="extra", validity=[extra])
    (args, kwargs) = paired.ledger.claims[1]
    assert [c.name for c in kwargs["validity"]] == ["trained", "trained", "plateau", "ceiling"]
    assert stats.validity.gate(stats.Judgement("reproduced"), kwargs["validity"]).reason == "did not train: B3 flat"
    assert kwargs["note"].endswith("; probe P; extra")


def test_paired_claims_through_a_real_ledger(paired, tmp_path, monkeypatch):
    from companion.results import Ledger

    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path))
    ledger = Ledger("concepts", "99-test", profile="smoke", seeds=[0, 1, 2])
    paired.ledger = ledger
    paired.claim("ok", "B1 beats B0", "B1", "B0", "AUC", "§5.2", 0.3)
    paired.claim("stuck", "B1 beats B3", "B1", "B3", "AUC", "App. H", 0.2)
    verdicts = {c["id"]: (c["verdict"], c.get("reason"), c["regime"]) for c in ledger.claims}
    assert verdicts["ok"] == ("reproduced", None, "scaled: regime R")
    assert verdicts["stuck"] == ("inconclusive", "did not train: B3 flat", "scaled: regime R")
    summary = verdict_summary(ledger)
    assert list(summary.index) == ["ok", "stuck"]
    assert summary.loc["stuck", "failed checks"] == "trained" and summary.loc["ok", "failed checks"] == ""
    assert summary.loc["ok", "95 % CI"].startswith("[+0.") and summary.loc["ok", "regime"] == "scaled: regime R"


# ------------------------------------------------------------------------------------------ fine-tuning
SETTINGS = dict(model="m", max_length=64, n_top=1, k=4, batch=4, lr=1e-2, pooling_lr_mult=5.0, layer_decay=0.9,
                tau=0.05, warmup_frac=0.25, steps=3, n_train=8, max_negatives=1, seeds=[0])


def test_top_layer_recipe():
    recipe = finetune.top_layer_recipe(SETTINGS, ("negation", "antonym"))
    assert list(recipe) == [*finetune.RECIPE_SETTINGS, "split_seed", "rows_seed", "rules", "max_negatives",
                            "version"]
    assert recipe["rules"] == ["negation", "antonym"] and recipe["steps"] == 3 and "seeds" not in recipe
    with pytest.raises(ValueError, match="lack lr"):
        finetune.top_layer_recipe({k: v for k, v in SETTINGS.items() if k != "lr"}, ())


def _rows(n=8):
    from companion.papers.concepts.data import TrainingRows

    words = ["dog", "cat", "tree", "car", "house", "river", "stone", "bird"][:n]
    term = np.array(words, dtype=object)
    masked = np.array([f"a kind of [MASK] that is {w}" for w in words[::-1]], dtype=object)
    neg = np.array([[f"a kind of [MASK] that is not {w}", ""] for w in words], dtype=object)
    return TrainingRows(sid=np.arange(n), term=term, masked=masked, syn_a=term,
                        syn_b=np.array([t + "s" for t in term], dtype=object), has_syn=np.ones(n, bool),
                        negatives=neg, neg_mask=neg != "", rules=("negation",))


def test_train_condition_is_seeded_and_uses_the_condition_readout(tiny):
    recipe = finetune.top_layer_recipe(SETTINGS, ("negation",))
    m1, res, seconds = finetune.train_condition(tiny, None, _rows(), "B3", 0, recipe)
    m2, _, _ = finetune.train_condition(tiny, None, _rows(), "B3", 0, recipe)
    assert m1.readout_name == "weighted" and len(res.history) == 3 and seconds >= 0
    assert all(torch.equal(v, m2.state_dict()[k]) for k, v in m1.state_dict().items())
    with pytest.raises(ValueError, match="unknown condition"):
        finetune.train_condition(tiny, None, _rows(), "B9", 0, recipe)


def test_a_preempted_gpu_condition_run_resumes_with_its_draw_of_negatives(tiny, preemption):
    rows = _rows()
    rows.negatives[:, 1] = [f"another {w}" for w in rows.term]  # two negatives a row: max_negatives=1 draws one
    rows.neg_mask[:, 1] = True
    recipe = finetune.top_layer_recipe(dict(SETTINGS, steps=6), ("negation", "antonym"))
    whole, res, _ = finetune.train_condition(tiny, None, rows, "B1", 0, recipe, profile="cpu")
    preemption.stop_at(5)
    with pytest.raises(KeyboardInterrupt):
        finetune.train_condition(tiny, None, rows, "B1", 0, recipe, profile="gpu")
    (left,) = preemption.left()
    assert left.stem == finetune.run_key(tiny, rows, "B1", 0, recipe)
    resumed, res_r, _ = finetune.train_condition(tiny, None, rows, "B1", 0, recipe, profile="gpu")
    assert all(torch.equal(v, resumed.state_dict()[k]) for k, v in whole.state_dict().items())
    assert res_r.history == res.history and preemption.left() == []


def test_load_or_train_reloads_what_it_saved(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    built = []
    monkeypatch.setattr(finetune, "recipe_training_rows", lambda recipe: built.append(recipe["n_train"]) or _rows())
    recipe = finetune.top_layer_recipe(SETTINGS, ("negation",))
    trained, where = finetune.load_or_train(tiny, None, recipe, "B1", 0)
    assert where.startswith("trained here") and built == [8]
    again, where = finetune.load_or_train(tiny, None, recipe, "B1", 0)
    assert where.startswith("reloaded from") and built == [8]  # no rows built for a cached model
    assert all(torch.equal(v, again.state_dict()[k]) for k, v in trained.state_dict().items())


# ------------------------------------------------------------------------------------------ Theorem D.5 toy
def test_capacity_toy_trace_records_and_is_seeded():
    kw = dict(n=64, m=8, d=4, steps=10, batch=16, n_records=5)
    trace = capacity_toy_trace(1, **kw)
    assert [r["step"] for r in trace] == [0, 2, 4, 6, 8, 10] and {r["seed"] for r in trace} == {1}
    assert trace == capacity_toy_trace(1, **kw)
    assert trace != capacity_toy_trace(2, **kw)
    first = trace[0]
    assert first["anisotropy"] > 0.8 and first["leading_share"] > 0.8  # the shared bias dominates at the start
    assert all(r["effective_rank"] <= 4 + 1e-6 for r in trace)
    with pytest.raises(ValueError, match="batch <= n"):
        capacity_toy_trace(0, n=8, m=4, d=2, steps=1, batch=16)


def test_contrastive_training_lowers_the_toy_anisotropy():
    trace = capacity_toy_trace(0, n=256, m=16, d=8, steps=150, batch=64)
    assert trace[-1]["anisotropy"] < trace[0]["anisotropy"] - 0.3
    assert trace[-1]["effective_rank"] > trace[0]["effective_rank"]


def test_toy_endpoints():
    trace = pd.DataFrame({"seed": [0, 0, 0, 1, 1], "step": [0, 1, 2, 0, 1], "anisotropy": [0.9, 0.5, 0.2, 0.8, 0.3],
                          "effective_rank": [2.0, 5.0, 4.0, 1.0, 3.0], "leading_share": [0.9, 0.6, 0.3, 0.7, 0.2],
                          "participation_ratio": [1.1, 1.5, 2.0, 1.2, 1.9]})
    ends = toy_endpoints(trace)
    assert ends.loc[0, ["aniso_start", "aniso_end", "erank_end", "erank_max"]].tolist() == [0.9, 0.2, 4.0, 5.0]
    assert ends.loc[1, ["lead_start", "lead_end", "pr_start", "pr_end"]].tolist() == [0.7, 0.2, 1.2, 1.9]


def test_run_conditions_scores_along_training_caches_and_keeps_b1(tiny, tmp_path, monkeypatch):
    from companion.papers.concepts.readouts import recipe_path

    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    recipe = finetune.top_layer_recipe(dict(SETTINGS, steps=4), ("negation",))
    texts = ["dog", "a kind of [MASK] that is cat"]

    def score(model):
        Z = model.encode(texts)
        return {"cos": float(torch.nn.functional.cosine_similarity(Z[0], Z[1], dim=0))}

    kw = dict(score=score, spec={"pool": "p"}, progress=False)
    plain = finetune.run_conditions(tiny, None, _rows(), recipe, ["B1", "B3"], [0], **kw)
    curved = finetune.run_conditions(tiny, None, _rows(), recipe, ["B1", "B3"], [0], monitor_every=2, keep=["B1"],
                                     **kw)
    assert plain.cached == 0 and curved.cached == 0 and plain.curves[("B1", 0)] == []
    # scoring along the way draws no random number: the runs end where the unmonitored ones do
    assert curved.ft["cos"].tolist() == pytest.approx(plain.ft["cos"].tolist(), abs=1e-6)
    steps = [r["step"] for r in curved.curves[("B1", 0)]]
    assert steps == [2, 4] and curved.curves[("B1", 0)][-1]["cos"] == pytest.approx(curved.ft["cos"].iloc[0], abs=1e-6)
    assert len(curved.histories[("B3", 0)]) == 4 and ("B3", 0) in curved.weights  # B3's readout is weighted
    assert recipe_path(dict(recipe, condition="B1", seed=0)).is_file()  # kept for notebook 04
    assert not recipe_path(dict(recipe, condition="B3", seed=0)).is_file()
    again = finetune.run_conditions(tiny, None, _rows(), recipe, ["B1", "B3"], [0], monitor_every=2, **kw)
    assert again.cached == 2 and again.ft.equals(curved.ft) and again.curves == curved.curves


def test_paired_plateau_follows_the_claims_own_gap(paired):
    steps = range(100, 700, 100)
    flat_gap = {("B1", s): [{"step": t, "AUC": 0.5 + 0.1 * k + 0.3 + 0.002 * (-1) ** k} for k, t in enumerate(steps)]
                for s in (0, 1, 2)}
    flat_gap.update({("B3", s): [{"step": t, "AUC": 0.5 + 0.1 * k} for k, t in enumerate(steps)] for s in (0, 1, 2)})
    paired.curves = flat_gap
    # both conditions still climb, by the same amount: the claim's quantity, B1 − B3, is flat
    check = paired.plateau("B1", "B3", "AUC", gap=0.3)
    assert check.passed and check.trend == 0 and check.detail.startswith("AUC gap along training")
    # against a frozen readout the gap follows the trained one: still rising, and it says so
    rising = paired.plateau("B1", "B0", "AUC", gap=0.3)
    assert (rising.passed, rising.trend) == (False, 1)
    assert paired.plateau("B1", "B3", "AUC", ratio=True).detail.startswith("log AUC ratio along training")
    # with curves every claim carries the check of its own quantity after the conditions' checks
    paired.claim("c3", "B1 beats B3", "B1", "B3", "AUC", "App. H", 0.3)
    names = [c.name for c in paired.ledger.claims[-1][1]["validity"]]
    assert names == ["trained", "trained", "plateau", "plateau"]
    with pytest.raises(ValueError, match="both frozen"):
        paired.plateau("B0", "B0", "AUC")
    with pytest.raises(KeyError, match="no logged curve"):
        paired.plateau("B1", "B3", "pair AUC")
