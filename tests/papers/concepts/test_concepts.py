"""Paper 4 data pieces: WordNet pairs (the 315,850 count), headword masking, splits, the five hard-negative rules."""

import numpy as np
import pytest

from companion.papers.concepts import data as C


@pytest.fixture(scope="module")
def data():
    try:
        return C.load_concepts()
    except FileNotFoundError as err:  # no WordNet on this machine
        pytest.skip(str(err))


def test_syn_pair_counts_match_the_paper(data):
    assert len(data.syn) == 315_850
    assert len(data.syn.drop_duplicates(["a", "b"])) == 304_438
    assert (data.syn["a"] != data.syn["b"]).all()
    assert len(data.t2d) == 206_978 and len(data.synsets) == 117_659


def test_counts_agree_with_nltk_on_a_sample(data):
    from companion.wordnet import wordnet

    wn = wordnet()
    dog = wn.synset("dog.n.01")
    sid = data.senses("dog")[0]
    assert set(data.synsets.at[sid, "lemmas"]) == {lem.name().replace("_", " ").lower() for lem in dog.lemmas()}
    assert data.synsets.at[sid, "definition"] == dog.definition()
    assert data.synsets.at[sid, "lexfile"] == dog.lexname()
    assert "bad" in data.antonyms["good"]


def test_masking_removes_the_headword():
    assert C.mask_headword("dog", "a dog that barks at other dogs") == "a [MASK] that barks at other [MASK]"
    assert C.mask_headword("hot dog", "a hot sausage; dogs love it") == "a [MASK] sausage; [MASK] love it"
    with pytest.raises(ValueError, match="empty after masking"):
        C.mask_headword("deer hunting", "hunting deer")
    with pytest.raises(ValueError, match="term must be"):
        C.mask_headword("", "a definition")


def test_masked_definitions_never_contain_the_headword(data):
    t = data.t2d.dropna(subset=["masked"]).sample(20_000, random_state=0)
    for term, masked in zip(t["term"], t["masked"]):
        words = {w.lower() for w in C._WORD.findall(masked.replace(C.MASK, " "))}
        assert not (words & C._mask_forms(term)), (term, masked)
    assert data.t2d["masked"].isna().sum() < 500  # only glosses that are nothing but the term


def test_absent_word_is_a_clear_error(data):
    with pytest.raises(ValueError, match="not in WordNet"):
        data.senses("xyzzyplugh")
    assert len(data.definitions("dog")) >= 7


@pytest.mark.parametrize("make", [lambda d: C.in_domain_split(d, 0.1, seed=3), lambda d: C.head_holdout_split(d, 0.05),
                                  lambda d: C.source_holdout_proxy(d)])
def test_splits_are_disjoint_and_cover_every_synset(data, make):
    s = make(data)
    assert len(np.intersect1d(s.train, s.test)) == 0
    assert len(s.train) + len(s.test) == len(data.synsets)
    tr = data.t2d[s.is_train(data.t2d["sid"])]
    te = data.t2d[s.is_test(data.t2d["sid"])]
    assert not set(tr["sid"]) & set(te["sid"])


def test_split_details(data):
    a, b = C.in_domain_split(data, 0.1, seed=1), C.in_domain_split(data, 0.1, seed=1)
    assert np.array_equal(a.test, b.test)
    assert not np.array_equal(a.test, C.in_domain_split(data, 0.1, seed=2).test)
    head = C.head_holdout_split(data, 0.01)
    counts = data.synsets["count"].to_numpy()
    assert counts[head.test].min() >= counts[head.train].max()
    proxy = C.source_holdout_proxy(data, ("noun.animal",))
    assert set(data.synsets["lexfile"].to_numpy()[proxy.test]) == {"noun.animal"}
    with pytest.raises(ValueError, match="Unknown lexicographer"):
        C.source_holdout_proxy(data, ("noun.unicorn",))
    with pytest.raises(ValueError, match="test_frac"):
        C.in_domain_split(data, 1.5)


@pytest.fixture(scope="module")
def negatives(data):
    sub = C.t2d_subset(data, C.in_domain_split(data, 0.1, seed=0).test, n=1500, seed=0)
    return sub, C.make_hard_negatives(data, sub, seed=0)


def test_rules_are_deterministic(data, negatives):
    sub, hn = negatives
    again = C.make_hard_negatives(data, sub.iloc[:200], seed=0)
    assert again.equals(hn[hn["row"] < 200].reset_index(drop=True))
    other = C.make_hard_negatives(data, sub.iloc[:200], seed=1)
    assert not other["negative"].equals(again["negative"])


def test_negation_inserts_exactly_one_not(negatives):
    _, hn = negatives
    neg = hn[hn["rule"] == "negation"]
    assert len(neg) == len(negatives[0])
    for pos, n in zip(neg["positive"], neg["negative"]):
        pw, nw = C._WORD.findall(pos), C._WORD.findall(n)
        assert len(nw) == len(pw) + 1 and nw.count("not") == pw.count("not") + 1
        i = next((k for k in range(len(pw)) if pw[k] != nw[k]), len(pw))
        assert nw[i] == "not" and nw[:i] + nw[i + 1:] == pw
    assert C.lexical_negation("a dog that is loyal") == "a dog that is not loyal"
    assert C.lexical_negation("move fast") == "not move fast"


def test_antonym_flip_changes_one_token_to_an_antonym(data, negatives):
    _, hn = negatives
    ant = hn[hn["rule"] == "antonym"]
    assert len(ant) > 100
    for pos, n in zip(ant["positive"], ant["negative"]):
        pw, nw = C._WORD.findall(pos), C._WORD.findall(n)
        diff = [(a, b) for a, b in zip(pw, nw) if a != b]
        assert len(pw) == len(nw), (pos, n)
        assert len(diff) == 1 and diff[0][1] in data.antonyms[diff[0][0].lower()]


def test_swaps_respect_pos_prefix_and_type(data, negatives):
    _, hn = negatives
    syn = data.synsets
    for rule in ("pos_swap", "prefix_swap", "type_swap"):
        part = hn[hn["rule"] == rule]
        assert len(part) > 0, rule
        src, oth = part["sid"].to_numpy(), part["other_sid"].to_numpy().astype(int)
        assert (src != oth).all()
        assert (syn["pos_group"].to_numpy()[src] == syn["pos_group"].to_numpy()[oth]).all() or rule == "type_swap"
        if rule == "prefix_swap":
            for term, o in zip(part["term"], oth):
                pre = next(p for p in C.PREFIXES if C._has_prefix(term, p))
                assert any(C._has_prefix(x, pre) for x in syn.at[o, "lemmas"])
        if rule == "type_swap":
            t = syn["type"].to_numpy()
            assert all(isinstance(t[s], str) and isinstance(t[o], str) and t[s] != t[o] for s, o in zip(src, oth))


def test_unknown_rule_is_a_clear_error(data):
    with pytest.raises(ValueError, match="Unknown hard-negative rule"):
        C.hard_negative(data, "sarcasm", "dog", 0, "a definition")
    with pytest.raises(ValueError, match="Unknown hard-negative rule"):
        C.make_hard_negatives(data, data.t2d.iloc[:2], rules=("negation", "oops"))


@pytest.mark.slow
def test_a_build_and_its_cached_copy_agree():
    built = C.build_concepts()
    cached = C.load_concepts()
    assert built.syn.equals(cached.syn) and built.t2d.equals(cached.t2d)


def test_training_rows(data):
    split = C.in_domain_split(data, 0.1, seed=0)
    rows = C.training_rows(data, split.train, n=60, seed=0)
    assert len(rows) == 60 and len(set(rows.sid)) == 60 and split.is_train(rows.sid).all()
    assert rows.rules == C.RULES and rows.negatives.shape == (60, 5)
    assert (rows.neg_mask == (rows.negatives != "")).all()
    neg = rows.negatives[:, C.RULES.index("negation")]
    assert rows.neg_mask[:, C.RULES.index("negation")].all()
    assert all(n.lower().split().count("not") == m.lower().split().count("not") + 1 for n, m in zip(neg, rows.masked))
    for sid, a, b, has, term in zip(rows.sid, rows.syn_a, rows.syn_b, rows.has_syn, rows.term):
        lemmas = data.synsets.at[sid, "lemmas"]
        assert term in lemmas
        if has:
            assert a != b and a in lemmas and b in lemmas
    again = C.training_rows(data, split.train, n=60, seed=0)
    assert (again.negatives == rows.negatives).all() and (again.term == rows.term).all()
    assert set(rows.texts()) >= set(rows.term) | set(rows.masked)
    with pytest.raises(ValueError, match="Unknown hard-negative rule"):
        C.training_rows(data, split.train, n=5, rules=("negation", "typo"))
    with pytest.raises(ValueError, match="no maskable t2d rows"):
        C.training_rows(data, np.array([], dtype=int))
