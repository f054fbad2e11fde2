"""companion.encoders.upper: training the top layers over cached lower-layer states (tiny random BERT, no download)."""

import pytest
import torch

from companion.encoders import tiny_encoder
from companion.encoders.states import pad_states
from companion.encoders.upper import UpperEncoder

TEXTS = ["A man is playing a guitar.", "Someone plays music on a stage tonight with friends.", "Cats sleep.",
         "The stock market fell sharply on Monday after the announcement.", "A dog runs."]


@pytest.fixture(scope="module")
def enc():
    return tiny_encoder("bert", pooling="mean", layers=3, hidden=32, heads=4)


@pytest.mark.parametrize("n_top", [1, 2, 3])
@pytest.mark.parametrize("pooling", ["mean", "cls"])
def test_eval_encode_matches_full_model(n_top, pooling):
    enc = tiny_encoder("bert", pooling=pooling, layers=3, hidden=32, heads=4)
    upper = UpperEncoder(enc, n_top=n_top, pooling=pooling, state_dtype=torch.float32)
    ours = upper.encode(TEXTS)
    ref = enc.encode(TEXTS, cache=False)
    torch.testing.assert_close(ours, ref, atol=1e-5, rtol=1e-5)


def test_float16_states_are_close(enc):
    upper = UpperEncoder(enc, n_top=1)
    torch.testing.assert_close(upper.encode(TEXTS), enc.encode(TEXTS, cache=False), atol=5e-3, rtol=0)


def test_padding_does_not_change_embeddings(enc):
    upper = UpperEncoder(enc, n_top=2, state_dtype=torch.float32)
    alone = torch.cat([upper.encode([t]) for t in TEXTS])
    torch.testing.assert_close(upper.encode(TEXTS), alone, atol=1e-5, rtol=1e-5)


def test_dropout_views_differ_in_training_only(enc):
    upper = UpperEncoder(enc, n_top=2, dropout=0.3)
    upper.train()
    torch.manual_seed(0)
    z1, z2 = upper.embed(TEXTS), upper.embed(TEXTS)
    assert (z1 - z2).abs().max() > 1e-4
    upper.eval()
    torch.testing.assert_close(upper.embed(TEXTS), upper.embed(TEXTS))
    assert all(m.p == 0.3 for m in upper.layers.modules() if isinstance(m, torch.nn.Dropout))


def test_zero_dropout_gives_identical_views(enc):
    upper = UpperEncoder(enc, n_top=2, dropout=0.0)
    upper.train()
    torch.testing.assert_close(upper.embed(TEXTS), upper.embed(TEXTS))


def test_mlp_pooler_only_in_training(enc):
    upper = UpperEncoder(enc, n_top=1, mlp_pooler=True, dropout=0.0, state_dtype=torch.float32)
    upper.train()
    trained = upper.embed(TEXTS)
    upper.eval()
    plain = upper.embed(TEXTS)
    torch.testing.assert_close(trained, upper.mlp(plain))
    torch.testing.assert_close(upper.encode(TEXTS, normalize=False), plain)


def test_training_moves_only_the_copy_and_export_matches(enc):
    before = {k: v.clone() for k, v in enc.model.state_dict().items()}
    upper = UpperEncoder(enc, n_top=2, mlp_pooler=True, state_dtype=torch.float32)
    assert not any(p is q for p in upper.parameters() for q in enc.model.parameters())
    opt = torch.optim.SGD(upper.parameters(), lr=0.5)
    upper.train()
    torch.manual_seed(0)
    for _ in range(3):
        z1, z2 = upper.embed(TEXTS), upper.embed(TEXTS)
        loss = -torch.nn.functional.cosine_similarity(z1, z2.roll(1, 0)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    for k, v in enc.model.state_dict().items():
        torch.testing.assert_close(v, before[k])  # the original model is untouched
    upper.eval()
    emb = upper.encode(TEXTS)
    assert (emb - enc.encode(TEXTS, cache=False)).abs().max() > 1e-4  # it did train
    merged = upper.to_encoder()
    torch.testing.assert_close(merged.encode(TEXTS, cache=False), emb, atol=1e-5, rtol=1e-5)


def test_states_are_cached_and_deduplicated(enc):
    upper = UpperEncoder(enc, n_top=1)
    upper.precompute(TEXTS + TEXTS[:2])
    assert len(upper.store) == len(TEXTS)
    states, mask = upper.lower(TEXTS[:2])
    assert states.shape[0] == 2 and mask.sum(1).tolist() == [upper.store.length(t) for t in TEXTS[:2]]
    upper.forget()
    assert not len(upper.store)


def test_pad_states():
    s, m = pad_states([torch.ones(2, 3), torch.ones(4, 3)])
    assert s.shape == (2, 4, 3) and m.tolist() == [[1, 1, 0, 0], [1, 1, 1, 1]] and s[0, 2:].abs().sum() == 0
    with pytest.raises(ValueError, match="at least one row"):
        pad_states([])


def test_bad_input(enc):
    with pytest.raises(ValueError, match="n_top must be an int in 1..3"):
        UpperEncoder(enc, n_top=4)
    with pytest.raises(ValueError, match="n_top must be"):
        UpperEncoder(enc, n_top=0)
    with pytest.raises(ValueError, match="pooling must be one of"):
        UpperEncoder(enc, pooling="last-max")
    with pytest.raises(ValueError, match="keep_first must not be False"):
        UpperEncoder(enc, pooling="first-last", keep_first=False)
    with pytest.raises(ValueError, match="dropout must be in"):
        UpperEncoder(enc, dropout=1.5)
    upper = UpperEncoder(enc, n_top=1)
    with pytest.raises(ValueError, match="not a single string"):
        upper.precompute("a sentence")
    with pytest.raises(ValueError, match="texts is empty"):
        upper.encode([])
    with pytest.raises(TypeError, match="not a BERT-like encoder"):
        UpperEncoder(tiny_encoder("gpt2"), n_top=1)


def test_fresh_shares_states_and_restarts_from_pretrained(enc):
    upper = UpperEncoder(enc, n_top=1, state_dtype=torch.float32)
    upper.precompute(TEXTS)
    with torch.no_grad():
        for p in upper.parameters():
            p.add_(0.1)
    new = upper.fresh()
    assert new.store is upper.store  # one precompute serves every run
    torch.testing.assert_close(new.encode(TEXTS), enc.encode(TEXTS, cache=False), atol=1e-5, rtol=1e-5)
    other = upper.fresh(n_top=2)
    assert other.store is not upper.store and other.n_top == 2


def test_sts_subset_and_score_pairs_match_scipy():
    from scipy.stats import spearmanr

    from companion.sts import cosine_scores, score_pairs, sts_pairs_subset

    pairs = sts_pairs_subset(30, seed=0, sets=["STS-B", "SICK-R"])
    again = sts_pairs_subset(30, seed=0, sets=["STS-B", "SICK-R"])
    assert list(pairs) == ["STS-B", "SICK-R"] and all(len(p[0]) == 30 for p in pairs.values())
    assert pairs["STS-B"][0] == again["STS-B"][0]  # the same subset for every model
    g = torch.Generator().manual_seed(0)
    table = {}

    def encode(texts):
        for t in texts:
            table.setdefault(t, torch.randn(8, generator=g))
        return torch.stack([table[t] for t in texts])

    res = score_pairs(encode, pairs, average=True)
    s1, s2, gold = pairs["SICK-R"]
    ref = spearmanr(cosine_scores(encode(s1), encode(s2)), gold).statistic * 100
    assert res["SICK-R"] == pytest.approx(ref) and res["avg"] == pytest.approx((res["STS-B"] + res["SICK-R"]) / 2)
    with pytest.raises(ValueError, match="n_per_set must be >= 2"):
        sts_pairs_subset(1, sets=["STS-B"])


# ------------------------------------------------------------------------------- poolings (AnglE Table 4)
def _hand_pooled(enc, texts, pooling):
    """Each pooling computed by hand from the Hugging Face model's own hidden states on the same tokens."""
    batch = enc.tokenize(texts)
    with torch.no_grad():
        enc.model.eval()
        hs = enc.model(**batch, output_hidden_states=True).hidden_states
    m = batch["attention_mask"].unsqueeze(-1).float()
    mean = lambda h: (h * m).sum(1) / m.sum(1)  # noqa: E731
    last = hs[-1]
    cls = last[:, 0]
    mx = last.masked_fill(m == 0, float("-inf")).max(dim=1).values
    return {"mean": mean(last), "cls": cls, "max": mx, "cls-mean": (cls + mean(last)) / 2,
            "first-last": (mean(hs[1]) + mean(last)) / 2}[pooling]


@pytest.mark.parametrize("n_top", [1, 2, 3])
@pytest.mark.parametrize("pooling", ["mean", "cls", "max", "cls-mean", "first-last"])
def test_poolings_match_hand_computation_from_hf_hidden_states(n_top, pooling):
    enc = tiny_encoder("bert", pooling="mean", layers=3, hidden=32, heads=4, seed=7)
    upper = UpperEncoder(enc, n_top=n_top, pooling=pooling, state_dtype=torch.float32)
    ref = _hand_pooled(enc, TEXTS, pooling)
    torch.testing.assert_close(upper.encode(TEXTS, normalize=False), ref, atol=1e-5, rtol=1e-5)
    upper.eval()
    torch.testing.assert_close(upper.embed(TEXTS), ref, atol=1e-5, rtol=1e-5)
    # and the exported plain encoder pools the same way (companion.encoders.pool with the same name)
    torch.testing.assert_close(upper.to_encoder().encode(TEXTS, normalize=False, cache=False), ref, atol=1e-5,
                               rtol=1e-5)


def test_poolings_match_hf_hidden_states_of_minilm():
    from companion.encoders import load_encoder

    enc = load_encoder("sentence-transformers/all-MiniLM-L6-v2", pooling="mean", max_length=64)
    base = UpperEncoder(enc, n_top=1, pooling="mean", state_dtype=torch.float32, keep_first=True)
    base.precompute(TEXTS)
    for pooling in ("mean", "cls", "max", "cls-mean", "first-last"):
        upper = base.fresh(pooling=pooling)
        assert upper.store is base.store
        torch.testing.assert_close(upper.encode(TEXTS, normalize=False), _hand_pooled(enc, TEXTS, pooling),
                                   atol=2e-5, rtol=1e-4)


def test_first_last_keeps_first_layer_means_and_needs_them(enc):
    upper = UpperEncoder(enc, n_top=1, pooling="first-last", state_dtype=torch.float32)
    assert upper.keep_first and upper.store.means == "all"
    upper.precompute(TEXTS)
    assert upper.first_means(TEXTS).shape == (len(TEXTS), 32)
    assert set(upper.store.pooled) == set(TEXTS) and upper.store.pooled[TEXTS[0]].shape == (3, 32)  # layers 0..2
    states, mask = upper.lower(TEXTS)
    with pytest.raises(ValueError, match="needs first="):
        upper(states, mask)
    with pytest.raises(ValueError, match="first must be B x d"):
        upper(states, mask, torch.zeros(2, 32))
    # n_top = L trains the first layer: its output comes from the trained copy, nothing is kept
    full = UpperEncoder(enc, n_top=3, pooling="first-last", state_dtype=torch.float32)
    full.precompute(TEXTS)
    assert full.store.means == "none" and full.first_means(TEXTS) is None
    # a base without first-layer means computes them when a fresh copy asks for first-last
    plain = UpperEncoder(enc, n_top=1, pooling="mean", state_dtype=torch.float32)
    plain.precompute(TEXTS)
    fl = plain.fresh(pooling="first-last")
    torch.testing.assert_close(fl.encode(TEXTS, normalize=False), _hand_pooled(enc, TEXTS, "first-last"),
                               atol=1e-5, rtol=1e-5)


def test_bucketed_embed_equals_padded_batch_and_trains(enc):
    upper = UpperEncoder(enc, n_top=2, pooling="cls-mean", state_dtype=torch.float32)
    upper.eval()
    texts = TEXTS + TEXTS[::-1]
    one = upper.embed(texts)
    for buckets in (2, 3, 20):
        torch.testing.assert_close(upper.embed(texts, buckets=buckets), one, atol=1e-5, rtol=1e-5)
    upper.train()
    z = upper.embed(texts, buckets=3)
    z.sum().backward()
    assert all(p.grad is not None for p in upper.layers.parameters() if p.requires_grad)
    with pytest.raises(ValueError, match="buckets must be an int >= 1"):
        upper.embed(texts, buckets=0)
