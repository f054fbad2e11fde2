"""Paper 4: cross-layer readouts (App. D.7), retrieval and geometry metrics, the top-layer concept model and its
training rows (the objective itself: tests/core/losses/test_concepts.py)."""

import numpy as np
import pytest
import torch
from sklearn.metrics import roc_auc_score

from companion.metrics.geometry import anisotropy, effective_rank
from companion.metrics.retrieval import gold_ranks, mrr, pair_roc_auc, recall_at_k
from companion.papers.concepts.readouts import (
    DeepSupervision,
    LayerGate,
    LayerWeightedMean,
    readout_invariance_gap,
    simplex_readout,
)


# ----------------------------------------------------------------------------------------------- readouts
def test_d7_readout_invariance_on_random_draws():
    g = torch.Generator().manual_seed(0)
    for _ in range(200):
        k, n, d = int(torch.randint(2, 7, (1,), generator=g)), 5, 12
        hL = torch.randn(n, d, generator=g) * 3
        gamma = float(torch.rand(1, generator=g)) + 0.01
        xi = torch.randn(k, n, d, generator=g)
        xi = xi / xi.norm(dim=-1, keepdim=True) * gamma * torch.rand(k, n, 1, generator=g)
        xi[-1] = 0
        states = hL + xi
        w1 = torch.distributions.Dirichlet(torch.ones(k)).sample()
        w2 = torch.distributions.Dirichlet(torch.ones(k) * 0.3).sample()
        gap, bound = readout_invariance_gap(states, w1, w2)
        assert gap <= bound + 1e-5 and bound <= 2 * gamma + 1e-5
        assert float((simplex_readout(states, w1) - hL).norm(dim=-1).max()) <= gamma + 1e-5
    with pytest.raises(ValueError, match="simplex"):
        simplex_readout(states, torch.full((k,), 0.5))


def _hidden(b=3, t=5, d=6, layers=7):
    g = torch.Generator().manual_seed(1)
    hs = tuple(torch.randn(b, t, d, generator=g) for _ in range(layers))
    mask = torch.ones(b, t, dtype=torch.long)
    mask[0, 3:] = 0
    return hs, mask


def test_readouts_at_initialisation_are_the_uniform_mean_of_the_last_k_layers():
    hs, mask = _hidden()
    m = mask[..., None].float()
    ref = torch.stack([(h * m).sum(1) / m.sum(1) for h in hs[-4:]]).mean(0)
    assert torch.allclose(LayerWeightedMean(4)(hs, mask), ref, atol=1e-6)
    assert torch.allclose(LayerWeightedMean(4, learn=False)(hs, mask), ref, atol=1e-6)
    assert torch.allclose(LayerGate(6, 4)(hs, mask), ref, atol=1e-6)
    ds = DeepSupervision(6, 4)
    assert torch.allclose(ds(hs, mask), ref, atol=1e-6)
    assert ds(hs, mask, per_layer=True).shape == (4, 3, 6)
    assert len(list(LayerWeightedMean(4, learn=False).parameters())) == 0
    with pytest.raises(ValueError, match="only 7 hidden states"):
        LayerWeightedMean(8)(hs, mask)


def test_gate_is_input_dependent_after_a_step():
    hs, mask = _hidden()
    gate = LayerGate(6, 4)
    opt = torch.optim.SGD(gate.parameters(), lr=1.0)
    gate(hs, mask).pow(2).sum().backward()
    opt.step()
    w = gate.weights(hs, mask)
    assert torch.allclose(w.sum(0), torch.ones(3)) and not torch.allclose(w[:, 0], w[:, 1])


# ------------------------------------------------------------------------------------------------ metrics
def test_mrr_and_recall_on_hand_made_rankings():
    scores = np.array([[0.9, 0.1, 0.2],    # gold 0 -> rank 1
                       [0.5, 0.4, 0.6],    # gold 1 -> rank 3
                       [0.3, 0.8, 0.1]])   # gold 0 -> rank 2
    gold = np.array([0, 1, 0])
    assert gold_ranks(scores, gold).tolist() == [1, 3, 2]
    assert mrr(scores, gold) == pytest.approx((1 + 1 / 3 + 1 / 2) / 3)
    assert recall_at_k(scores, gold, 1) == pytest.approx(1 / 3)
    assert recall_at_k(scores, gold, 2) == pytest.approx(2 / 3)
    assert recall_at_k(scores, gold, 3) == 1.0
    multi = np.zeros((3, 3), bool)
    multi[1, [1, 2]] = True
    multi[0, 0] = multi[2, 0] = True
    assert gold_ranks(scores, multi).tolist() == [1, 1, 2]
    assert gold_ranks(np.zeros((2, 4)), np.array([0, 3])).tolist() == [4, 4]  # ties count against
    with pytest.raises(ValueError, match="gold indices"):
        mrr(scores, np.array([0, 1, 5]))
    with pytest.raises(ValueError, match="k must be"):
        recall_at_k(scores, gold, 0)


def test_roc_auc():
    assert pair_roc_auc([0.9, 0.8], [0.1, 0.2, 0.3]) == 1.0
    assert pair_roc_auc([0.1], [0.9]) == 0.0
    rng = np.random.default_rng(0)
    a, b = rng.normal(1, 1, 50), rng.normal(0, 1, 70)
    assert pair_roc_auc(a, b) == pytest.approx(roc_auc_score(np.r_[np.ones(50), np.zeros(70)], np.r_[a, b]))
    assert pair_roc_auc(a, b) == pytest.approx((a[:, None] > b[None, :]).mean())
    with pytest.raises(ValueError, match="at least one"):
        pair_roc_auc([], [0.1])


def test_geometry_metrics_reused_from_the_shared_module():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4000, 32, generator=g)
    assert abs(anisotropy(x, n_pairs=10_000)) < 0.02
    assert anisotropy(x + 2.0, n_pairs=10_000) > 0.5
    q, _ = torch.linalg.qr(torch.randn(32, 32, generator=g))
    assert effective_rank(q[:10]) == pytest.approx(10.0)


def test_epsilon_tau():
    from companion.metrics.retrieval import epsilon_tau

    scores = np.array([[0.9, 0.1, 0.2], [0.5, 0.4, 0.6], [0.3, 0.8, 0.1], [0.7, 0.65, 0.0]])
    gold = np.array([0, 1, 0, 0])  # margins: 0.7, -0.2, -0.5, 0.05
    assert epsilon_tau(scores, gold, 0.0) == pytest.approx(1 - recall_at_k(scores, gold, 1)) == 0.5
    assert epsilon_tau(scores, gold, 0.1) == 0.75
    assert epsilon_tau(scores, gold, 1.0) == 1.0
    with pytest.raises(ValueError, match="tau must be"):
        epsilon_tau(scores, gold, float("nan"))


# ----------------------------------------------------------------------- readouts over pooled layers
def test_from_pooled_equals_the_hidden_state_path():
    hs, mask = _hidden()
    m = mask[..., None].float()
    stack = torch.stack([(h * m).sum(1) / m.sum(1) for h in hs[-4:]])
    torch.manual_seed(0)
    for mod in (LayerWeightedMean(4), LayerGate(6, 4), DeepSupervision(6, 4)):
        for p_ in mod.parameters():
            p_.data.add_(0.3 * torch.randn_like(p_))
        assert torch.allclose(mod.from_pooled(stack), mod(hs, mask), atol=1e-6)
    with pytest.raises(ValueError, match="K x B x d"):
        LayerWeightedMean(4).from_pooled(stack[:3])


def test_participation_ratio():
    from companion.metrics.geometry import participation_ratio

    g = torch.Generator().manual_seed(0)
    z = torch.randn(20_000, 3, generator=g, dtype=torch.float64)
    z = (z - z.mean(0)) @ torch.linalg.inv(torch.linalg.cholesky(torch.cov(z.T))).T  # exactly white
    lam = torch.tensor([4.0, 1.0, 1.0], dtype=torch.float64)
    assert participation_ratio(z * lam.sqrt()) == pytest.approx(36 / 18)  # (4+1+1)^2 / (16+1+1)
    assert participation_ratio(z) == pytest.approx(3.0)
    assert participation_ratio(torch.randn(50, 1, generator=g) @ torch.ones(1, 5)) == pytest.approx(1.0)


# ------------------------------------------------------------------------- top-layer concept model
TEXTS = ["a small dog", "the capital city of a country", "not a happy person", "an animal", "to run quickly",
         "a very long definition of something that goes on for quite a few more words than the others"]


def test_untrained_top_layer_model_is_the_frozen_encoder(tiny):
    from companion.encoders.states import LowerStates
    from companion.papers.concepts.readouts import TopLayerConceptModel

    lower = LowerStates(tiny, start=3, state_dtype=torch.float32, means="all")
    model = TopLayerConceptModel(tiny, "mean", n_top=1, k=4, lower=lower)
    ref = tiny.encode_layers(TEXTS, cache=False)
    assert torch.allclose(model.encode_layers(TEXTS), ref, atol=1e-5)
    assert torch.allclose(model.encode(TEXTS), ref[:, -1], atol=1e-5)
    wm = TopLayerConceptModel(tiny, "wm", n_top=1, k=4, lower=lower)
    assert torch.allclose(wm.encode(TEXTS), ref[:, -4:].mean(1), atol=1e-5)
    # length buckets give the same, input-ordered, result as one padded batch
    many = TEXTS * 7
    model.eval()
    with torch.no_grad():
        assert torch.allclose(model.all_layers(many, bucket=4), model.all_layers(many, bucket=len(many)), atol=1e-5)


def _tiny_rows(n=8):
    from companion.papers.concepts.data import TrainingRows

    rng = np.random.default_rng(0)
    words = ["dog", "cat", "tree", "car", "house", "river", "stone", "bird", "song", "lamp"]
    term = np.array(words[:n], dtype=object)
    masked = np.array([f"a kind of [MASK] that is {w}" for w in words[::-1][:n]], dtype=object)
    neg = np.array([[f"a kind of [MASK] that is not {w}", f"some other {w}", ""] for w in words[:n]], dtype=object)
    has = rng.random(n) < 0.7
    return TrainingRows(sid=np.arange(n), term=term, masked=masked, syn_a=term, syn_b=np.array(
        [t + "s" for t in term], dtype=object), has_syn=has, negatives=neg, neg_mask=neg != "",
        rules=("negation", "pos_swap", "type_swap"))


@pytest.mark.parametrize("name", ["B1", "B2", "B3", "M1", "M2", "M3", "B1-unified"])
def test_every_condition_trains_only_its_top_layer_and_readout(tiny, name):
    from companion.papers.concepts.readouts import CONDITIONS, TopLayerConceptModel, train_concept_model

    before = {k: v.clone() for k, v in tiny.model.state_dict().items()}
    readout, hn = CONDITIONS[name]
    torch.manual_seed(0)
    model = TopLayerConceptModel(tiny, readout, n_top=2, k=4)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    res = train_concept_model(model, _tiny_rows(), hn, steps=3, batch=4, lr=1e-2, seed=0, max_negatives=1,
                              progress=False)
    assert len(res.history) == 3 and all(np.isfinite(h["loss"]) for h in res.history)
    assert any(not torch.equal(v, start[k]) for k, v in model.state_dict().items() if k.startswith("layers."))
    if readout in ("weighted", "gate", "deep"):  # B2 ("cls") and B1 have no readout parameters
        assert any(not torch.equal(v, start[k]) for k, v in model.state_dict().items() if k.startswith("readout."))
    assert all(torch.equal(v, before[k]) for k, v in tiny.model.state_dict().items())  # the encoder is untouched


def test_pooling_parameters_get_five_times_the_lr_and_lower_layers_decay(tiny, monkeypatch):
    import companion.papers.concepts.readouts as readouts
    import companion.training as T
    from companion.papers.concepts.readouts import TopLayerConceptModel, train_concept_model

    seen = {}

    def fake_train(model, loss_fn, batches, steps, lr, **kw):
        seen.update(kw, lr=lr, loss=float(loss_fn(next(iter(batches))).detach()))
        return None

    monkeypatch.setattr(T, "train", fake_train)
    monkeypatch.setattr(readouts, "train", fake_train)  # readouts imported it by name
    model = TopLayerConceptModel(tiny, "weighted", n_top=2, k=4)
    train_concept_model(model, _tiny_rows(), "bce", steps=1, batch=4, lr=1e-3, progress=False)
    lrs = [g["lr"] for g in seen["param_groups"]]
    assert lrs == pytest.approx([1e-3 * 0.9, 1e-3, 5e-3])
    assert seen["param_groups"][-1]["params"] == [model.readout.logits]
    assert np.isfinite(seen["loss"])


def test_concept_model_bad_input_is_a_clear_error(tiny):
    from companion.encoders.states import LowerStates
    from companion.papers.concepts.readouts import TopLayerConceptModel, train_concept_model

    with pytest.raises(ValueError, match="readout must be one of"):
        TopLayerConceptModel(tiny, "cls-ish")
    with pytest.raises(ValueError, match="n_top must be"):
        TopLayerConceptModel(tiny, "mean", n_top=9)
    with pytest.raises(ValueError, match="needs hidden state 3"):
        TopLayerConceptModel(tiny, "mean", n_top=1, lower=LowerStates(tiny, start=2, means="all"))
    with pytest.raises(ValueError, match="with means=.all."):
        TopLayerConceptModel(tiny, "mean", n_top=1, lower=LowerStates(tiny, start=3))
    model = TopLayerConceptModel(tiny, "mean", n_top=1)
    with pytest.raises(ValueError, match="per_layer needs"):
        model.embed(TEXTS[:2], per_layer=True)
    with pytest.raises(ValueError, match="non-empty strings"):
        model.encode(["fine", "  "])
    rows = _tiny_rows()
    with pytest.raises(ValueError, match="hn must be"):
        train_concept_model(model, rows, "triplet", steps=1, batch=4)
    with pytest.raises(ValueError, match="batch must be"):
        train_concept_model(model, rows, "bce", steps=1, batch=1)
    with pytest.raises(ValueError, match="fewer than one batch"):
        train_concept_model(model, rows, "bce", steps=1, batch=16)
    with pytest.raises(ValueError, match="max_negatives"):
        train_concept_model(model, rows, "bce", steps=1, batch=4, max_negatives=0)


def test_trained_weights_round_trip_through_the_cache(tiny, tmp_path, monkeypatch):
    from companion.papers.concepts.readouts import (
        TopLayerConceptModel,
        load_trained,
        recipe_path,
        save_trained,
    )

    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    a = TopLayerConceptModel(tiny, "weighted", n_top=1, k=4)
    with torch.no_grad():
        a.readout.logits.copy_(torch.tensor([0.1, 0.2, 0.3, 0.4]))
        next(a.layers.parameters()).add_(1.0)
    recipe = dict(condition="M1", seed=3, lr=2e-4, rules=["negation"])
    assert recipe_path(recipe).parent.is_relative_to(tmp_path)
    save_trained(a, recipe)
    b = TopLayerConceptModel(tiny, "weighted", n_top=1, k=4)
    assert not load_trained(b, dict(recipe, seed=4))
    assert load_trained(b, recipe)
    assert all(torch.equal(v, a.state_dict()[k]) for k, v in b.state_dict().items())


def test_d2d_pairs_join_a_terms_other_definitions_up_to_six():
    """Each row's partner is another masked definition of its term from the allowed synsets, among the first five
    others in synset order (a group of at most six definitions, §4.5); rows whose term has no other definition there
    have none."""
    from types import SimpleNamespace

    import pandas as pd

    from companion.papers.concepts.data import TrainingRows, with_d2d_pairs

    t2d = pd.DataFrame({"sid": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                        "term": ["bank"] * 7 + ["cat", "cat", "dog"],
                        "masked": [f"bank def {i}" for i in range(1, 8)] + ["cat def 8", None, "dog def 10"]})
    data = SimpleNamespace(t2d=t2d)
    rows = TrainingRows(sid=np.array([1, 8, 10]), term=np.array(["bank", "cat", "dog"], dtype=object),
                        masked=np.array(["bank def 1", "cat def 8", "dog def 10"], dtype=object),
                        syn_a=np.array([""] * 3), syn_b=np.array([""] * 3), has_syn=np.zeros(3, dtype=bool),
                        negatives=np.array([[""]] * 3), neg_mask=np.zeros((3, 1), dtype=bool), rules=("negate",))
    out = with_d2d_pairs(data, rows, sids=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], seed=0)
    assert out.has_d2d.tolist() == [True, False, False]  # cat's other sense has no maskable definition
    assert out.d2d[0] in {f"bank def {i}" for i in range(2, 7)}  # senses 2-6: five others, never the seventh
    partners = {with_d2d_pairs(data, rows, sids=range(1, 11), seed=s).d2d[0] for s in range(40)}
    assert partners == {f"bank def {i}" for i in range(2, 7)}
    assert with_d2d_pairs(data, rows, sids=[1, 8, 10]).has_d2d.tolist() == [False, False, False]  # split respected
    assert "bank def 1" in out.texts() and out.d2d[0] in out.texts()
