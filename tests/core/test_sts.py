"""STS evaluator: Spearman against a hand example, the 'all' setting, callables, the table, the CLI, ST parity."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

from companion import sts
from companion.sts import STS_SETS, evaluate_sts, load_pairs, spearman100, sts_dev, sts_table


def char_counts(texts):
    """A cheap deterministic 'encoder': byte counts of the lower-cased text (256-d)."""
    return torch.from_numpy(np.stack([np.bincount(np.frombuffer(t.lower().encode(), np.uint8), minlength=256)
                                      for t in texts]).astype(np.float32))


def test_spearman_hand_example():
    # pred ranks 1,3,2,4 vs gold 1,2,3,4: sum d^2 = 2, rho = 1 - 6*2 / (4*15) = 0.8
    assert spearman100([0.1, 0.4, 0.35, 0.8], [1, 2, 3, 4]) == pytest.approx(80.0)
    assert spearman100([3, 2, 1], [1, 2, 3]) == pytest.approx(-100.0)
    assert np.isnan(spearman100([1, 1, 1], [1, 2, 3]))


def test_cosine_scores():
    a = torch.tensor([[1.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    b = torch.tensor([[0.0, 3.0], [2.0, 2.0], [-1.0, 0.0]])
    assert np.allclose(sts.cosine_scores(a, b), [0.0, 1.0, -1.0])


def test_perfect_callable_gets_100(monkeypatch):
    gold = np.array([0.0, 1.0, 2.5, 4.0, 5.0])
    s1 = [f"left {i}" for i in range(5)]
    s2 = [f"right {i}" for i in range(5)]
    monkeypatch.setattr(sts, "load_pairs", lambda name, split="test": (s1, s2, gold))
    angle = {f"left {i}": 0.0 for i in range(5)} | {f"right {i}": (5 - g) / 5 * 1.5 for i, g in enumerate(gold)}
    fn = lambda texts: torch.tensor([[np.cos(angle[t]), np.sin(angle[t])] for t in texts])
    res = evaluate_sts(fn)
    assert list(res) == ["STS12", "STS13", "STS14", "STS15", "STS16", "STS-B", "SICK-R", "avg"]
    assert res["STS12"] == pytest.approx(100.0) and res["avg"] == pytest.approx(100.0)
    with pytest.raises(ValueError, match="Unknown STS set 'STS17'"):
        evaluate_sts(fn, sets=["STS17"])


def test_all_setting_is_one_spearman_over_concatenated_subsets():
    res = evaluate_sts(char_counts, sets=["STS13", "SICK-R"])
    assert res["avg"] == pytest.approx((res["STS13"] + res["SICK-R"]) / 2)
    from companion.data import load_sts

    ds = load_sts("STS13")
    a, b = char_counts(list(ds["sentence1"])), char_counts(list(ds["sentence2"]))
    cos = np.round(torch.nn.functional.cosine_similarity(a.double(), b.double()).numpy(), sts.COSINE_DECIMALS)
    gold = np.asarray(ds["score"])
    assert res["STS13"] == pytest.approx(spearmanr(cos, gold).statistic * 100, abs=1e-9)
    subsets = np.asarray(ds["subset"])
    per_subset = np.mean([spearmanr(cos[subsets == s], gold[subsets == s]).statistic * 100
                          for s in np.unique(subsets)])
    assert abs(per_subset - res["STS13"]) > 1e-3  # "all" is not the mean over subsets
    assert len(load_pairs("STS-B")[0]) == 1379 and len(load_pairs("SICK-R")[0]) == 4927


def test_sts_dev_and_table():
    dev = sts_dev(char_counts)
    s1, s2, gold = load_pairs("STSBenchmark", split="dev")
    assert len(gold) == 1500
    assert dev == pytest.approx(spearman100(sts.cosine_scores(char_counts(s1), char_counts(s2)), gold))
    table = sts_table({"a": {"STS12": 70.123, "avg": 70.123}, "b": {"STS-B": 80.0, "avg": 80.0}})
    assert list(table.index) == ["a", "b"]
    assert list(table.columns) == ["STS12", "STS13", "STS14", "STS15", "STS16", "STS-B", "SICK-R", "avg"]
    assert table.loc["a", "STS12"] == 70.12 and np.isnan(table.loc["a", "STS-B"])


def test_cli_with_local_tiny_model(tmp_path, monkeypatch, capsys):
    from companion.encoders import tiny_encoder

    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    enc = tiny_encoder("bert", layers=1)
    enc.model.save_pretrained(tmp_path / "tiny")
    enc.tokenizer.save_pretrained(tmp_path / "tiny")
    s1, s2, gold = load_pairs("STS-B")
    monkeypatch.setattr(sts, "load_pairs", lambda name, split="test": (s1[:200], s2[:200], gold[:200]))
    out = tmp_path / "res.json"
    rc = sts.cli(["--model", str(tmp_path / "tiny"), "--pooling", "mean", "--sets", "STS-B", "--json", str(out)])
    assert rc == 0
    res = json.loads(out.read_text())
    assert set(res) == {"STS-B", "avg"} and -100 <= res["STS-B"] <= 100
    assert "STS-B" in capsys.readouterr().out


def test_cli_unknown_model_offline(monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert sts.cli(["--model", "roberta-base"]) == 2
    err = capsys.readouterr().err
    assert "not available offline" in err and err.count("\n") == 1


@pytest.mark.slow
def test_parity_with_sentence_transformers(tmp_path, monkeypatch):
    """evaluate_sts(MiniLM, mean, normalised) == SentenceTransformer.encode + cosine, within 1e-4 on all 7 sets."""
    from sentence_transformers import SentenceTransformer

    from companion.encoders import load_encoder, resolve_model

    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))  # really encode
    ours = evaluate_sts(load_encoder("all-MiniLM-L6-v2", pooling="mean", max_length=256, device="cpu"))
    pairs = {name: load_pairs(name) for name in STS_SETS}
    unique = list(dict.fromkeys(t for s1, s2, _ in pairs.values() for t in (*s1, *s2)))
    st = SentenceTransformer(resolve_model("all-MiniLM-L6-v2")[0], device="cpu")
    emb = st.encode(unique, batch_size=64, convert_to_tensor=True, normalize_embeddings=True).cpu()
    row = {t: i for i, t in enumerate(unique)}
    for name, (s1, s2, gold) in pairs.items():
        cos = (emb[[row[t] for t in s1]].double() * emb[[row[t] for t in s2]].double()).sum(-1).numpy()
        ref = spearmanr(np.round(cos, sts.COSINE_DECIMALS), gold).statistic * 100  # same 1e-6 resolution
        assert abs(ours[sts.DISPLAY_NAMES[name]] - ref) < 1e-4, (name, ours, ref)


def test_float32_noise_on_identical_pairs_does_not_change_the_score():
    """Pairs of identical sentences tie at cosine 1; 1e-7 noise (batch composition) must not reorder them."""
    g = torch.Generator().manual_seed(0)
    a = torch.nn.functional.normalize(torch.randn(200, 16, generator=g), dim=1)
    b = a.clone()
    b[100:] = torch.nn.functional.normalize(torch.randn(100, 16, generator=g), dim=1)
    gold = np.r_[np.full(100, 5.0), np.linspace(0, 4.9, 100)]
    gold[:100] -= np.linspace(0, 0.5, 100)  # graded gold inside the tie group: noise would reorder it
    noisy = b + 1e-7 * torch.randn(b.shape, generator=g)
    assert spearman100(sts.cosine_scores(a, b), gold) == spearman100(sts.cosine_scores(a, noisy), gold)
