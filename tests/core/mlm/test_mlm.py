"""The raw MLM encoder: corpus hygiene, the deterministic vocabulary and build, loading, the signature helpers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from companion.mlm import corpus as corpus_mod
from companion.mlm import pretrain
from companion.mlm.signature import cosine_zone_shares, has_raw_signature, mean_offdiagonal_cosine


# ------------------------------------------------------------------------------------------------ text helpers
def test_normalise_and_sentences():
    assert corpus_mod.normalise("A man , is  playing!") == corpus_mod.normalise("a man is playing")
    assert corpus_mod.sentences("It rains. It pours! Does it? yes.") == ["It rains.", "It pours!", "Does it? yes."]
    assert corpus_mod.is_prose("The cat sat on the mat.")
    assert not corpus_mod.is_prose("x = f(a, b) + 3;")
    assert not corpus_mod.is_prose("Too short.")


def test_evaluation_keys_cover_sentences_of_texts():
    keys = corpus_mod.evaluation_keys(["First one here. Second one there."])
    assert {"first one here second one there", "first one here", "second one there"} <= keys


def test_build_units_drops_evaluation_sentences_and_duplicates(monkeypatch):
    src = corpus_mod.Source("toy", "none", "nothing", lambda: iter(["Keep me please.", "An eval sentence.",
                                                                     "keep ME please", "Another one stays."]))
    monkeypatch.setitem(corpus_mod.SOURCES, "toy", src)
    blocks, stats = corpus_mod.build_units(["toy"], eval_keys={corpus_mod.normalise("An eval sentence")})
    assert blocks["toy"] == ["Keep me please.", "Another one stays."]
    assert stats["toy"]["dropped_eval"] == 1 and stats["toy"]["dropped_duplicate"] == 1
    assert stats["toy"]["words"] == 6


def test_missing_source_names_its_package(monkeypatch, tmp_path):
    monkeypatch.setattr(corpus_mod, "PYTHON_DOCS", tmp_path / "absent")
    with pytest.raises(corpus_mod.SourceMissingError, match="python3.11-doc"):
        list(corpus_mod.SOURCES["python-docs"].read())


def test_unknown_source():
    with pytest.raises(ValueError, match="Unknown corpus source"):
        corpus_mod.build_units(["nope"], eval_keys=set())


@pytest.mark.slow
def test_cpu_corpus_holds_no_evaluation_sentence(tmp_path):
    """Every source of the cpu build, built here: no unit equals an evaluation text or one of its sentences."""
    try:
        built = corpus_mod.build_corpus(pretrain.ALL_SOURCES, root=tmp_path)
    except corpus_mod.SourceMissingError as exc:  # the Debian text packages are not part of the Python set-up
        pytest.skip(str(exc))
    units = {corpus_mod.normalise(u) for _, us in built.blocks() for u in us}
    evaluation = corpus_mod.evaluation_texts()
    assert len(evaluation) > 100_000
    hits = [t for t in evaluation if corpus_mod.normalise(t) in units]
    hits += [s for t in evaluation for s in corpus_mod.sentences(t) if corpus_mod.normalise(s) in units]
    assert hits == []
    assert built.words > 3_000_000
    assert set(built.stats) == set(pretrain.ALL_SOURCES)


def test_smoke_build_needs_no_system_package():
    """The smoke corpus reads the data mirror only: no Debian package (WordNet, the text packages) is needed."""
    for name in pretrain.PROFILES["smoke"].sources:
        assert corpus_mod.SOURCES[name].provider.startswith("the data mirror"), name


# ------------------------------------------------------------------------------------------------ vocabulary
def test_learn_wordpiece_is_deterministic_and_complete():
    units = ["the cat sat on the mat.", "the dog sat on the log.", "cats and dogs sat."] * 3
    a = pretrain.learn_wordpiece(units, vocab_size=60)
    b = pretrain.learn_wordpiece(list(reversed(units)), vocab_size=60)
    assert a == b
    assert a[:5] == list(pretrain.SPECIAL_TOKENS)
    assert len(a) == len(set(a)) <= 60
    assert {"the", "sat"} <= set(a) and "##t" in a


def test_tokenizer_round_trip(tmp_path):
    tok = pretrain.train_tokenizer(["the cat sat on the mat."] * 4, 40, 16, tmp_path)
    ids = tok("the cat sat")["input_ids"]
    assert ids[0] == tok.cls_token_id and ids[-1] == tok.sep_token_id
    assert tok.unk_token_id not in ids


# ------------------------------------------------------------------------------------------------ packing, masks
def test_pack_respects_max_len_and_blocks():
    seqs = pretrain.pack([[[5, 6], [7, 8, 9], [10]], [[11] * 20]], max_len=8, cls_id=2, sep_id=3)
    assert seqs == [[2, 5, 6, 3, 7, 8, 9, 3], [2, 10, 3], [2] + [11] * 6 + [3]]


def test_mask_tokens_never_chooses_special_positions():
    gen = torch.Generator().manual_seed(0)
    ids = torch.tensor([[2, 10, 11, 12, 13, 3, 0, 0]] * 50)
    special = torch.tensor([0, 2, 3, 1, 4])
    corrupt, chosen = pretrain.mask_tokens(ids, special, 30, 0.5, gen)
    assert not chosen[:, [0, 5, 6, 7]].any()
    assert (corrupt[~chosen] == ids[~chosen]).all()
    share_masked = float((corrupt[chosen] == 4).float().mean())
    assert 0.6 < share_masked < 0.95


def _within_binomial(successes: int, trials: int, p: float, k: float = 6.0) -> bool:
    """Whether ``successes / trials`` lies within ``k`` binomial standard errors of ``p``."""
    return abs(successes / trials - p) <= k * math.sqrt(p * (1 - p) / trials)


@pytest.mark.parametrize("profile", sorted(pretrain.PROFILES))
def test_mask_tokens_follows_bert_s_15_and_80_10_10_rule_on_200k_tokens(profile):
    """BERT (Devlin et al. 2019, §3.1): 15 % of the token positions are chosen; of those 80 % become [MASK], 10 % a
    random token, 10 % stay. Checked on 200,000 candidate positions, each share within 6 binomial standard errors of
    BERT's rate (0.15 +- 0.005 chosen; 0.8 +- 0.014 and 0.1 +- 0.011 of about 30,000 chosen): a rate of 0.30 or a
    [MASK] share of 0.9 lies far outside. A random token equal to the original (probability 1/10,000) counts as
    kept; that shifts the expected shares by 1e-5, well inside the tolerance."""
    vocab = 10_005
    pad, unk, cls, sep, mask = 0, 1, 2, 3, 4                           # pretrain.SPECIAL_TOKENS' order
    special = torch.tensor([pad, cls, sep, unk, mask])                  # as build() passes it: [MASK] last
    rows, width = 1000, 200
    body = torch.randint(5, vocab, (rows, width), generator=torch.Generator().manual_seed(1))
    ids = torch.cat([torch.full((rows, 1), cls), body, torch.full((rows, 1), sep), torch.full((rows, 3), pad)], 1)
    cfg = pretrain.profile_config(profile)
    corrupt, chosen = pretrain.mask_tokens(ids, special, vocab, cfg.mask_prob, torch.Generator().manual_seed(0))
    assert not chosen[:, 0].any() and not chosen[:, width + 1:].any()  # [CLS], [SEP], padding never
    n = rows * width
    m = int(chosen.sum())
    assert _within_binomial(m, n, 0.15)
    masked = int((corrupt[chosen] == mask).sum())
    kept = int((corrupt[chosen] == ids[chosen]).sum())
    swapped = chosen & (corrupt != ids) & (corrupt != mask)
    assert masked + kept + int(swapped.sum()) == m
    assert _within_binomial(masked, m, 0.8)
    assert _within_binomial(int(swapped.sum()), m, 0.1)
    assert _within_binomial(kept, m, 0.1)
    assert bool((corrupt[swapped] >= 5).all() and (corrupt[swapped] < vocab).all())  # a random piece, never special
    assert torch.equal(corrupt[~chosen], ids[~chosen])


# ------------------------------------------------------------------------------------------------ the smoke build
@pytest.fixture(scope="module")
def smoke_builds(tmp_path_factory):
    log = []
    first = pretrain.build("smoke", root=tmp_path_factory.mktemp("a"), log=log.append)
    second = pretrain.build("smoke", root=tmp_path_factory.mktemp("b"), log=log.append)
    return first, second


def test_smoke_build_same_seed_same_weights(smoke_builds):
    a, b = (pretrain.build_info(f) for f in smoke_builds)
    assert a["weights_hash"] == b["weights_hash"]
    assert a["init_hash"] != a["weights_hash"]
    assert (smoke_builds[0] / "vocab.txt").read_bytes() == (smoke_builds[1] / "vocab.txt").read_bytes()
    assert a["curve"][-1]["step"] == pretrain.PROFILES["smoke"].steps
    assert a["heldout"][0]["step"] == 0 and len(a["heldout"]) >= 2


def test_other_seed_other_weights(tmp_path, smoke_builds):
    cfg = pretrain.profile_config("smoke", seed=1)
    folder = pretrain.build("smoke", cfg=cfg, root=tmp_path, log=lambda m: None)
    assert pretrain.build_info(folder)["weights_hash"] != pretrain.build_info(smoke_builds[0])["weights_hash"]


def test_build_is_cached(smoke_builds):
    root = smoke_builds[0].parent
    calls = []
    assert pretrain.build("smoke", root=root, log=calls.append) == smoke_builds[0]
    assert calls == []


def test_smoke_build_loads_as_an_encoder(smoke_builds):
    from companion.encoders import load_encoder

    enc = load_encoder(str(smoke_builds[0]), pooling="mean", max_length=32, device="cpu")
    assert type(enc.model).__name__ == "BertModel"
    emb = enc.encode(["A man plays a guitar.", "Someone is cooking."], cache=False)
    assert emb.shape == (2, pretrain.PROFILES["smoke"].hidden)
    again = load_encoder(str(smoke_builds[0]), pooling="cls", max_length=32, device="cpu")
    assert again.fingerprint != enc.fingerprint or again.pooling != enc.pooling
    assert enc.fingerprint == load_encoder(str(smoke_builds[0]), pooling="mean", max_length=32,
                                           device="cpu").fingerprint  # no freshly initialised weights on load


def test_raw_and_random_encoder_through_the_cache(monkeypatch, tmp_path):
    from companion.mlm import random_encoder, raw_encoder, raw_model_path

    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="python -m companion.mlm build --profile smoke"):
        raw_model_path("smoke", build_if_missing=False)
    raw = raw_encoder("smoke", device="cpu", log=lambda m: None)
    rand = random_encoder("smoke")
    assert raw.max_length == rand.max_length == pretrain.PROFILES["smoke"].max_len
    assert raw.tokenizer.get_vocab() == rand.tokenizer.get_vocab()
    info = pretrain.build_info(raw.name)
    assert pretrain.weights_hash(rand.model) != pretrain.weights_hash(raw.model)
    assert info["init_hash"] != info["weights_hash"]
    assert raw_model_path("gpu") == pretrain.GPU_BACKBONE == "bert-base-uncased"


# ------------------------------------------------------------------------------------------------ signature
def test_mean_offdiagonal_cosine():
    e = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    assert mean_offdiagonal_cosine(e) == pytest.approx((0 + 1 + 0) * 2 / 6)
    same = torch.ones(5, 3)
    assert mean_offdiagonal_cosine(same) == pytest.approx(1.0)


def test_cosine_zone_shares():
    s = cosine_zone_shares(np.array([0.99, 0.5, -0.97, 0.0]))
    assert s["zone_high"] == 0.25 and s["zone_low"] == 0.25 and s["zone"] == 0.5
    assert s["mean_grad"] == pytest.approx(np.mean(np.sqrt(1 - np.array([0.99, 0.5, -0.97, 0.0]) ** 2)))


def test_has_raw_signature():
    minilm = {"anisotropy": 0.05, "zone": 0.01, "mean_grad": 0.8, "sts_avg": 80.0}
    raw = {"anisotropy": 0.8, "zone": 0.6, "mean_grad": 0.3, "sts_avg": 40.0}
    assert all(has_raw_signature(raw, minilm).values())
    assert not any(has_raw_signature(minilm, minilm).values())


# ------------------------------------------------------------------------------------------------ SimCSE check
def test_simcse_from_raw_smoke(monkeypatch, tmp_path):
    from companion.mlm.finetune import simcse_from_raw

    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    out = simcse_from_raw("smoke", cache=str(tmp_path / "runs"), sts_sets=("STS16",), log=lambda m: None)
    assert set(out["before"]) == set(out["after"]) == {"STS16", "avg"}
    assert out["gain"] == pytest.approx(out["after"]["avg"] - out["before"]["avg"])
    assert len(out["history"]) == out["settings"]["steps"] and not out["from_cache"]
    assert [m["step"] for m in out["monitor"]] == [0, 1, 2] and out["best_step"] in (1, 2)  # dev selection
    again = simcse_from_raw("smoke", cache=str(tmp_path / "runs"), sts_sets=("STS16",), log=lambda m: None)
    assert again["from_cache"] and again["after"] == out["after"]


def test_regime_signature_is_cached_and_flags_the_raw_rows(monkeypatch, tmp_path):
    from companion.mlm import signature as sig

    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    values = iter([{"anisotropy": 0.9, "zone": 0.8, "mean_grad": 0.2, "sts_avg": 45.0},
                   {"anisotropy": 0.7, "zone": 0.2, "mean_grad": 0.4, "sts_avg": 40.0},
                   {"anisotropy": 0.9, "zone": 0.7, "mean_grad": 0.2, "sts_avg": 30.0},
                   {"anisotropy": 0.02, "zone": 0.05, "mean_grad": 0.7, "sts_avg": 79.0}])
    calls = []
    monkeypatch.setattr(sig, "signature", lambda enc, **kw: calls.append(kw) or next(values))
    table = sig.regime_signature("smoke", log=lambda m: None)
    assert list(table.index) == list(sig.SIGNATURE_ROWS)
    assert list(table["raw signature"]) == [True, True, True, False]
    assert list(table["sts_vs_random"]) == pytest.approx([0.0, -5.0, -15.0, 34.0])
    from companion.mlm import build_info, raw_model_path

    heldout = build_info(raw_model_path("smoke"))["heldout"]
    assert list(table["mlm_loss"])[:3] == pytest.approx([heldout[0]["loss"], heldout[-1]["loss"], heldout[-1]["loss"]])
    assert np.isnan(table["mlm_loss"].iloc[3])
    assert calls == [sig.SIGNATURE_SIZES["smoke"]] * 4
    again = sig.regime_signature("smoke", log=lambda m: None)  # from the cache: signature() is not called again
    assert len(calls) == 4 and again.equals(table)


def _fake_build(monkeypatch, tmp_path, words=3_334_776, rule="exact", unigram=7.0):
    import json

    import companion.mlm as mlm
    import companion.mlm.signature as signature_module

    folder = tmp_path / "raw-cpu-x"
    folder.mkdir()
    config = {"layers": 4, "hidden": 256, "steps": 1000, "batch_size": 128, "max_len": 64,
              "sources": list(pretrain.ALL_SOURCES)}
    if rule is not None:
        config["decontamination"] = rule
    info = {"config": config, "corpus": {"file": "corpus-x.txt", "words": words},
            "heldout": [{"loss": 9.07}, {"loss": 5.84}], "unigram_entropy": unigram}
    (folder / "build.json").write_text(json.dumps(info), encoding="utf-8")
    monkeypatch.setattr(mlm, "raw_model_path", lambda profile, log=print: str(folder))
    monkeypatch.setattr(signature_module, "raw_model_path", lambda profile, log=print: str(folder))  # signature imported it by name


def _signature_rows(random_sts, raw_sts):
    import pandas as pd

    from companion.mlm.signature import SIGNATURE_ROWS

    return pd.DataFrame({"sts_avg": [random_sts, raw_sts, 30.2, 79.5]}, index=list(SIGNATURE_ROWS))


def test_raw_regime_says_what_the_encoder_is(monkeypatch, tmp_path):
    """The label of the cpu build as recorded (no ``decontamination`` key: built before the setting existed)."""
    from companion.mlm.signature import raw_regime

    _fake_build(monkeypatch, tmp_path, rule=None)
    label = raw_regime("cpu", _signature_rows(48.9, 39.0))
    assert label.startswith("raw MLM encoder built here")  # what the statements' regime classes look for
    assert "4 layers of width 256, 1,000 masked-LM steps of 128 x 64 tokens" in label
    assert "3.3 million words" in label and "exact-match decontamination only" in label
    assert "held-out MLM loss 5.84 nats against a unigram entropy of 7.00)" in label
    assert "39.0, is below the 48.9 of the random network it started from" in label
    assert "no evidence about raw BERT" in label
    assert ", every layer" not in label  # the notebooks append the training regime after it


def test_raw_regime_of_an_encoder_above_its_random_start(monkeypatch, tmp_path):
    from companion.mlm.signature import raw_regime

    _fake_build(monkeypatch, tmp_path, words=40_000, rule="near-duplicate")
    label = raw_regime("smoke", _signature_rows(40.0, 55.5))
    assert "55.5, is above the 40.0 of the random network" in label and "no evidence" not in label
    assert "40,000 words" in label and "near-duplicate decontamination" in label
    assert "no better than" not in label  # 5.84 < 7.00
    assert raw_regime("gpu", None).startswith("bert-base-uncased")


def test_raw_regime_level_with_its_random_start_is_no_evidence(monkeypatch, tmp_path):
    """At one decimal the same STS average as the random start (the smoke build's 47.2 and 47.2): not above it."""
    from companion.mlm.signature import raw_regime

    _fake_build(monkeypatch, tmp_path, unigram=5.68)
    label = raw_regime("smoke", _signature_rows(47.21, 47.24))
    assert "47.2, is level with the 47.2 of the random network" in label and "no evidence about raw BERT" in label
    assert "5.84 nats against a unigram entropy of 5.68, no better than predicting each piece by its" in label


def test_piece_entropy_by_hand():
    # pieces 7, 8, 8, 9 (specials 2, 3 left out): -(1/4 ln 1/4 + 1/2 ln 1/2 + 1/4 ln 1/4) = 1.5 ln 2
    assert pretrain.piece_entropy([[2, 7, 8, 3], [2, 8, 9, 3]], (2, 3)) == pytest.approx(1.5 * math.log(2))


def test_unigram_entropy_of_an_old_build_is_measured_from_its_corpus(tmp_path):
    """A build recorded without it (the cached cpu build) gets it from its corpus and tokenizer, cached beside."""
    import json

    root = tmp_path / "mlm"
    folder = pretrain.build("smoke", root=root, log=lambda m: None)
    info = pretrain.build_info(folder)
    recorded = info.pop("unigram_entropy")
    (folder / "build.json").write_text(json.dumps(info), encoding="utf-8")
    assert pretrain.unigram_entropy(folder, log=lambda m: None) == pytest.approx(recorded)
    assert (root / f"{folder.name}.unigram.json").is_file()
    (root / info["corpus"]["file"]).unlink()
    assert pretrain.unigram_entropy(folder, log=lambda m: None) == pytest.approx(recorded)  # from the cache file
