"""companion.upper: training the top layers over cached lower-layer states (tiny random BERT, no download)."""

import pytest
import torch

from companion.encoders import tiny_encoder
from companion.upper import UpperEncoder, pad_states

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
    assert len(upper._states) == len(TEXTS)
    states, mask = upper.lower(TEXTS[:2])
    assert states.shape[0] == 2 and mask.sum(1).tolist() == [upper._states[t].shape[0] for t in TEXTS[:2]]
    upper.forget()
    assert not upper._states


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
        UpperEncoder(enc, pooling="max")
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
    assert new._states is upper._states  # one precompute serves every run
    torch.testing.assert_close(new.encode(TEXTS), enc.encode(TEXTS, cache=False), atol=1e-5, rtol=1e-5)
    other = upper.fresh(n_top=2)
    assert other._states is not upper._states and other.n_top == 2


def test_sts_subset_and_evaluate_pairs_match_scipy():
    from scipy.stats import spearmanr

    from companion.sts import cosine_scores
    from companion.upper import evaluate_pairs, sts_pairs_subset

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

    res = evaluate_pairs(encode, pairs)
    s1, s2, gold = pairs["SICK-R"]
    ref = spearmanr(cosine_scores(encode(s1), encode(s2)), gold).statistic * 100
    assert res["SICK-R"] == pytest.approx(ref) and res["avg"] == pytest.approx((res["STS-B"] + res["SICK-R"]) / 2)
    with pytest.raises(ValueError, match="n_per_set must be >= 2"):
        sts_pairs_subset(1, sets=["STS-B"])
