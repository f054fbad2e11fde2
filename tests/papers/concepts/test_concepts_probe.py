"""The concept paper's noun-phrase material and the helpers added for P1, Table 3 and App. D: phrases split into
modifier and head, WordNet near misses, ε_τ from a fitted operator (leave-one-out ridge), Theorem D.3's pairwise
ordering, the P1 monitor, the floor/ceiling check, the two wordings of the geometry statistics, B2's
[CLS] readout, the K = 6 window and the training synsets that avoid every test split."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from companion import stats
from companion.papers.concepts import probe as P
from companion.papers.concepts.evaluation import (
    EmbeddingLookup,
    GeometryMonitor,
    geometry_definitions,
    room,
    split_recalls,
)


def test_split_and_join_phrases():
    assert P.split_phrase("would-be poet") == ("would-be", "poet")
    assert P.split_phrase("red car") == ("red", "car")
    assert P.split_phrase("ex-wife") == ("ex-", "wife") and P.join_phrase("ex-", "husband") == "ex-husband"
    assert P.join_phrase("alleged", "thief") == "alleged thief"
    with pytest.raises(ValueError, match="not a modifier"):
        P.split_phrase("thief")


class _Syn:
    def __init__(self, names, hyper=(), hypo=(), similar=()):
        self._n, self._hyper, self._hypo, self._sim = names, hyper, hypo, similar

    def name(self):
        return f"{self._n[0]}.x.01"

    def lemma_names(self):
        return self._n

    def hypernyms(self):
        return self._hyper

    def hyponyms(self):
        return self._hypo

    def similar_tos(self):
        return self._sim


class _WN:
    """A two-word stand-in for NLTK's WordNet reader."""

    def __init__(self):
        cup, dish, bowl = _Syn(["cup"]), _Syn(["dish"]), _Syn(["bowl", "soup_bowl"])
        crockery = _Syn(["crockery"], hypo=(cup, dish, bowl))
        cup._hyper = (crockery,)
        self.nouns = {"cup": [cup]}
        self.adjs = {"dirty": [_Syn(["dirty", "soiled"], similar=(_Syn(["filthy"]),))]}

    def synsets(self, word, pos):
        return self.nouns.get(word, []) if pos == "n" else (self.adjs.get(word, []) if pos == "a" else [])


def test_wordnet_neighbours_are_single_words_without_the_word_itself():
    wn = _WN()
    assert P.cohyponym_heads(wn, "cup", 5) == ["bowl", "dish"]  # by synset name; "soup_bowl" is not one word
    assert P.adjective_variants(wn, "dirty", 5) == ["soiled", "filthy"]
    assert P.cohyponym_heads(wn, "unknownword", 3) == [] and P.adjective_variants(wn, "dirty", 1) == ["soiled"]


def test_hard_distractors_repeat_a_query_word_and_never_a_gold_text():
    probe = pd.DataFrame({"family": ["intersective", "intersective"], "phrase": ["dirty cup", "clean cup"],
                          "paraphrase": ["a soiled vessel", "a washed vessel"]})
    d = P.hard_distractors(probe, _WN(), per_kind=2, seed=0)
    assert set(d["kind"]) <= set(P.DISTRACTOR_KINDS) and d["text"].is_unique
    assert {"soiled cup", "filthy cup", "dirty dish", "dirty bowl"} <= set(d["text"])
    assert P.hard_distractors(probe, _WN(), per_kind=2, seed=0).equals(d)  # reproducible
    assert not set(d["text"]) & (set(probe["phrase"]) | set(probe["paraphrase"]))
    for row in d.itertuples():
        query = set(probe["phrase"][row.item].split())
        assert query & set(row.text.split()), row.text
    with pytest.raises(ValueError, match="per_kind"):
        P.hard_distractors(probe, _WN(), per_kind=0)


def test_composition_triples_equal_counts_per_family():
    probe = pd.DataFrame({"family": ["modal", "privative"], "phrase": ["alleged cup", "fake cup"],
                          "paraphrase": ["x", "y"]})
    t = P.composition_triples(probe, _WN(), per_item=2)
    assert set(t["phrase"]) == {"alleged cup", "alleged dish", "alleged bowl", "fake cup", "fake dish", "fake bowl"}
    assert (P.composition_triples(probe, _WN(), per_item=2, per_family=2).groupby("family").size() == 2).all()
    with pytest.raises(ValueError, match="fewer than 9"):
        P.composition_triples(probe, _WN(), per_item=2, per_family=9)


def test_loo_ridge_residuals_equal_refitting_without_each_row():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(12, 5)), rng.normal(size=(12, 3))
    lam = 0.7
    fast = P.loo_ridge_residuals(X, Y, lam)
    Xc = np.hstack([X, np.ones((12, 1))])
    for i in range(12):
        keep = np.arange(12) != i
        W = np.linalg.solve(Xc[keep].T @ Xc[keep] + lam * np.eye(6), Xc[keep].T @ Y[keep])
        assert np.allclose(fast[i], Y[i] - Xc[i] @ W, atol=1e-8)
    with pytest.raises(ValueError, match="ridge"):
        P.loo_ridge_residuals(X, Y, 0.0)


def test_epsilon_tau_is_small_for_a_linear_family_and_large_for_noise():
    rng = np.random.default_rng(1)
    d, n = 6, 40
    vec = {}
    rows = []
    for fam in ("linear", "noise"):
        for i in range(n):
            m, h, ph = f"{fam}m{i}", f"{fam}h{i}", f"{fam}p{i}"
            vec[m], vec[h] = rng.normal(size=d), rng.normal(size=d)
            u, v = vec[m] / np.linalg.norm(vec[m]), vec[h] / np.linalg.norm(vec[h])
            vec[ph] = 0.3 * u + v if fam == "linear" else rng.normal(size=d)
            rows.append(dict(family=fam, modifier=m, head=h, phrase=ph))
    frame, ridge = P.epsilon_tau(pd.DataFrame(rows), lambda texts: np.stack([vec[t] for t in texts]))
    eps = frame.groupby("family")["distortion"].mean()
    assert eps["linear"] < 0.25 < eps["noise"] and ridge in (0.01, 0.1, 1.0, 10.0)
    pairs = P.ordered_pairs(frame, ["linear", "noise"], n_boot=200)
    assert pairs["ordered"].tolist() == [True] and pairs["bootstrap_share"].iloc[0] > 0.95
    assert P.ordered_pairs(frame, ["noise", "linear"], n_boot=200)["ordered"].tolist() == [False]
    with pytest.raises(ValueError, match="no triples"):
        P.ordered_pairs(frame, ["linear", "absent"])


def test_geometry_monitor_and_split_recalls():
    pairs = pd.DataFrame({"term": ["a", "b", "c"], "masked": ["da", "db", "dc"]})
    mon = GeometryMonitor(pairs)
    Z = torch.tensor([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [1.0, 0.1, 0], [0, 1.0, 0.1], [0.1, 0, 1.0]])
    out = mon.of(Z)
    assert out["t2d R@10"] == 1.0 and out["t2d MRR"] == 1.0 and 0 <= out["anisotropy"] < 0.1
    assert split_recalls(EmbeddingLookup(Z, mon.texts), {"HH": mon}) == {"HH t2d R@10": 1.0}
    with pytest.raises(ValueError, match="columns"):
        GeometryMonitor(pd.DataFrame({"term": ["a"]}))
    with pytest.raises(ValueError, match="no embedding row"):
        EmbeddingLookup(Z, mon.texts)(["zzz"])


def test_room_is_a_ceiling_for_gains_and_a_floor_for_losses():
    ceiling = room(0.3, 0.9, "B3's AUC")
    assert ceiling.name == "ceiling" and not ceiling.passed and "B3's AUC is 0.900" in ceiling.detail
    assert room(0.1, 0.5, "x").passed and room(0.5, 0.5, "x").passed  # exactly enough room counts
    floor = room(-0.162, 0.1, "B0's relational R@1")
    assert floor.name == "floor" and not floor.passed and floor.reason.startswith("floor: ")
    assert room(-0.162, 0.2, "x").passed
    # a failed check makes the claim inconclusive whatever the criterion says
    cmp = stats.paired([0.2, 0.21, 0.22], [0.1, 0.1, 0.1])
    assert stats.direction(0.1).verdict(cmp) == "reproduced"
    gate = stats.validity.gate(stats.Judgement("reproduced"), [room(0.1, 0.5, "x"), room(0.3, 0.9, "y")])
    assert gate.verdict == "inconclusive" and gate.reason.startswith("ceiling: y is 0.900")


def test_geometry_definitions_on_known_spectra():
    eye = torch.eye(8)
    g = geometry_definitions(eye)
    assert g["effective rank"]["App. H: exp entropy of singular values"] == pytest.approx(8.0)
    assert g["effective rank"]["Table 11 caption: exp entropy of eigenvalues"] == pytest.approx(8.0)
    assert g["anisotropy"]["App. H: mean cosine of random pairs"] == pytest.approx(0.0, abs=1e-12)
    skew = torch.diag(torch.tensor([3.0, 1.0, 1.0, 1.0]))  # rows are normalised: every singular value becomes 1
    assert geometry_definitions(skew)["effective rank"]["App. H: exp entropy of singular values"] == pytest.approx(4)
    same = torch.ones(5, 3)
    assert geometry_definitions(same)["anisotropy"]["App. H: mean cosine of random pairs"] == pytest.approx(1.0)


def test_b2_reads_the_first_token_and_k6_widens_the_window():
    from companion.encoders import tiny_encoder
    from companion.encoders.states import LowerStates
    from companion.papers.concepts.readouts import CONDITIONS, TopLayerConceptModel, condition_k

    assert CONDITIONS["B2"] == ("cls", "bce") and condition_k("M1-K6", 4) == 6 and condition_k("M1", 4) == 4
    enc = tiny_encoder("bert", pooling="cls", hidden=32, layers=6, heads=4, seed=0)
    texts = ["a small dog", "the capital city of a country", "an animal"]
    lower = LowerStates(enc, start=5, state_dtype=torch.float32, means="all")
    b2 = TopLayerConceptModel(enc, "cls", n_top=1, k=4, lower=lower)
    assert torch.allclose(b2.encode(texts), enc.encode(texts, cache=False, normalize=False), atol=1e-5)
    k6 = TopLayerConceptModel(enc, "weighted", n_top=1, k=condition_k("M1-K6", 4), lower=lower)
    assert k6.readout.weights().shape == (6,)
    ref = TopLayerConceptModel(enc, "mean", n_top=1, k=4, lower=lower).encode_layers(texts)
    assert torch.allclose(k6.encode(texts), ref[:, -6:].mean(1), atol=1e-5)


def test_training_synsets_avoid_every_test_split():
    from companion.papers.concepts import data as C

    data = C.load_concepts()
    train = C.training_synsets(data, 0.1, seed=0)
    for split in (C.in_domain_split(data, 0.1, seed=0), C.head_holdout_split(data), C.source_holdout_proxy(data)):
        assert not np.isin(train, split.test).any(), split.name
    pool = C.eval_pool(data, C.head_holdout_split(data).test, 50, seed=0)
    assert len(pool) == 50 and pool["sid"].is_unique and C.head_holdout_split(data).is_test(pool["sid"]).all()
    with pytest.raises(ValueError, match="n must be"):
        C.eval_pool(data, train, 1)


@pytest.mark.slow
def test_wordnet_material_does_not_depend_on_string_hashing():
    """NLTK lists a word's senses in an order that follows Python's string hashing; the probe material must not."""
    import os
    import subprocess
    import sys

    code = ("import hashlib, pandas as pd\nfrom companion.settings import REPO_ROOT\n"
            "from companion.wordnet import wordnet\nfrom companion.papers.concepts import probe as P\n"
            "p = pd.read_csv(REPO_ROOT / 'data' / 'concepts' / 'np_probe.csv', comment='#')\n"
            "d = P.hard_distractors(p, wordnet(), per_kind=2)\nt = P.composition_triples(p, wordnet(), per_item=5)\n"
            "print(hashlib.md5('|'.join([*d.text, *t.phrase]).encode()).hexdigest())")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(outs) == 1


def test_firm_order_needs_a_firm_bootstrap_share_either_way():
    from companion.papers.concepts.probe import firm_order

    crit = firm_order(0.95)
    assert crit.verdict({"a < b": 0.99, "b < c": 0.96}) == "reproduced"
    assert crit.verdict({"a < b": 0.99, "b < c": 0.66}) == "partly"  # a coin flip on the right side orders nothing
    assert crit.verdict({"a < b": 0.60, "b < c": 0.40}) == "inconclusive"
    assert crit.verdict({"a < b": 0.01, "b < c": 0.60}) == "not reproduced"
    assert crit.verdict({"a < b": 0.01, "b < c": 0.03}) == "not reproduced"
    # one firmly reversed pair contradicts the ordering, however many others are ordered
    mixed = crit.judge({"a < b": 0.99, "b < c": 1.0, "c < d": 0.04})
    assert mixed.verdict == "not reproduced" and "reversed: c < d" in mixed.reason
    assert "any reversed: not reproduced" in crit.description
    with pytest.raises(ValueError, match="firm must lie"):
        firm_order(0.5)
