"""Near-duplicate decontamination of the raw encoder's corpus, on planted near-copies of evaluation sentences."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from companion._io import cache_key
from companion.mlm import corpus as corpus_mod
from companion.mlm import pretrain
from companion.mlm.decontaminate import NearDuplicateIndex, word_ngrams

EVAL = ["A young woman is slicing a ripe tomato on the wooden kitchen table tonight.",
        "The quick brown fox jumps over the lazy dog near the old river bank.",
        "soften or make milder; moderate",
        "The basic unit of money in Kyrgyzstan."]
KEYS = corpus_mod.evaluation_keys(EVAL)


def _source(monkeypatch, units, groups=None, name="toy"):
    src = corpus_mod.Source(name, "none", "nothing", lambda: iter(units), groups=groups)
    monkeypatch.setitem(corpus_mod.SOURCES, name, src)


def _kept(monkeypatch, units, rule, groups=None):
    _source(monkeypatch, units, groups)
    blocks, stats = corpus_mod.build_units(["toy"], eval_keys=KEYS, decontamination=rule)
    return blocks["toy"], stats["toy"]


def test_word_ngrams():
    assert word_ngrams("a b c d".split(), 3) == {"a b c", "b c d"}
    assert word_ngrams("a b".split(), 3) == set()


ONE_WORD_CHANGED = "A young woman is slicing a green tomato on the wooden kitchen table tonight."
EMBEDDED = ("Yesterday, as every evening, the quick brown fox jumps over the lazy dog near the old river bank, "
            "and then it ran home.")
CLEAN = ["The basic unit of money in Senegal.", "Rain fell on the quiet town all night long."]


def test_a_copy_with_one_word_changed_passes_exact_and_not_near_duplicate(monkeypatch):
    # 14 words, the 7th changed: every 8-gram of the sentence holds it (none survives); of its 12 3-grams the three
    # that hold it differ, 9 are shared: 9 >= 5 and 9 / 12 = 0.75 >= 0.6
    words = corpus_mod.normalise(ONE_WORD_CHANGED).split()
    original = corpus_mod.normalise(EVAL[0]).split()
    assert not word_ngrams(words, 8) & word_ngrams(original, 8)
    assert len(word_ngrams(words, 3) & word_ngrams(original, 3)) == 9
    assert _kept(monkeypatch, [ONE_WORD_CHANGED], "exact")[0] == [ONE_WORD_CHANGED]
    kept, stats = _kept(monkeypatch, [ONE_WORD_CHANGED, *CLEAN], "near-duplicate")
    assert kept == CLEAN
    assert stats["dropped_by"] == {"containment": 1} and stats["dropped_eval_words"] == 14


def test_a_copy_inside_a_longer_unit_passes_exact_and_not_near_duplicate(monkeypatch):
    assert _kept(monkeypatch, [EMBEDDED], "exact")[0] == [EMBEDDED]
    kept, stats = _kept(monkeypatch, [EMBEDDED, *CLEAN], "near-duplicate")
    assert kept == CLEAN and stats["dropped_by"] == {"8-gram": 1}


def test_a_gloss_split_at_semicolons_is_dropped_whole(monkeypatch):
    """The evaluation text is a gloss's definition ("soften or make milder; moderate"); the corpus holds its parts
    (too short for any n-gram rule) and its quoted example: exact matching keeps them all, the near-duplicate rule
    drops every unit cut from the gloss, and only those."""
    gloss = 'soften or make milder; moderate; "she tempered her criticism"'
    parts = ["Soften or make milder.", "she tempered her criticism"]
    other = (("a domestic cat", "a domestic cat"), ["A domestic cat."])

    def groups():
        yield (gloss, "soften or make milder; moderate"), list(parts)
        yield other

    units = [*parts, "A domestic cat."]
    assert _kept(monkeypatch, units, "exact", groups)[0] == units
    for part in parts:  # each part alone is no near-copy: the whole gloss is what matches
        assert NearDuplicateIndex(KEYS).match(corpus_mod.normalise(part)) is None
    kept, stats = _kept(monkeypatch, units, "near-duplicate", groups)
    assert kept == ["A domestic cat."]
    assert stats["dropped_by"] == {"whole text": 2} and stats["dropped_eval"] == 2


def test_a_shared_stock_phrase_is_not_a_near_copy():
    # "the basic unit of money in": four shared 3-grams, one short of the five the rule asks
    idx = NearDuplicateIndex(KEYS)
    assert idx.match(corpus_mod.normalise(CLEAN[0])) is None
    assert idx.match(corpus_mod.normalise(EVAL[3])) == "exact"


def test_unknown_rule(monkeypatch):
    _source(monkeypatch, ["Some text here."])
    with pytest.raises(ValueError, match="decontamination rule"):
        corpus_mod.build_units(["toy"], eval_keys=KEYS, decontamination="fuzzy")


def test_the_exact_rule_keeps_the_cache_keys_it_had(monkeypatch, tmp_path):
    """The corpus file and the build folder of an ``exact`` build are named as before the rule was a setting (the
    recipe without it); a near-duplicate build gets other names."""
    _source(monkeypatch, ["One clean sentence here.", "Another clean sentence there."])
    exact = corpus_mod.build_corpus(["toy"], root=tmp_path)
    old_recipe = {"sources": ["toy"], "limit": None, "version": corpus_mod.CORPUS_VERSION}
    assert exact.path.name == f"corpus-{cache_key(old_recipe)}.txt"
    near = corpus_mod.build_corpus(["toy"], root=tmp_path, decontamination="near-duplicate")
    assert near.path != exact.path and near.path.read_text() == exact.path.read_text()
    cfg = pretrain.profile_config("cpu")
    assert cfg.decontamination == "exact"
    fields = {k: v for k, v in asdict(cfg).items() if k != "decontamination"}
    assert pretrain.build_key(cfg, "sha") == cache_key({"config": fields, "corpus": "sha",
                                                        "version": pretrain.PRETRAIN_VERSION})
    near_cfg = pretrain.profile_config("cpu", decontamination="near-duplicate")
    assert pretrain.build_key(near_cfg, "sha") != pretrain.build_key(cfg, "sha")


def test_smoke_builds_with_the_near_duplicate_rule():
    assert pretrain.PROFILES["smoke"].decontamination == "near-duplicate"


@pytest.mark.slow
def test_cpu_corpus_near_duplicate_leaves_no_sts_8gram(tmp_path):
    """Every source of the cpu build, near-duplicate rule: no sentence of the seven STS sets shares a word 8-gram
    with a unit (the exact rule leaves 210 of STS12's), and the rule removes under 2 % of the exact corpus's text."""
    from companion import data

    try:
        near = corpus_mod.build_corpus(pretrain.ALL_SOURCES, root=tmp_path, decontamination="near-duplicate")
        exact = corpus_mod.build_corpus(pretrain.ALL_SOURCES, root=tmp_path)
    except corpus_mod.SourceMissingError as exc:
        pytest.skip(str(exc))
    grams = set()
    for _, units in near.blocks():
        for unit in units:
            grams |= word_ngrams(corpus_mod.normalise(unit).split(), 8)
    sts = []
    for year in ("STS12", "STS13", "STS14", "STS15", "STS16"):
        ds = data.load_sts(year)
        sts += ds["sentence1"][:] + ds["sentence2"][:]
    ds = data.load_stsb("test")
    sts += ds["sentence1"][:] + ds["sentence2"][:]
    shared = [s for s in sts if word_ngrams(corpus_mod.normalise(s).split(), 8) & grams]
    assert shared == []
    assert 0 < exact.words - near.words < 0.02 * exact.words
