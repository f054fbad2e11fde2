"""WordNet concept pairs, headword masking, splits and rule-made hard negatives (Paper 4).

Mohr, Dujany, Souquet, Freitas, *Principles of Concept Representation in Sentence Encoders*, arXiv 2606.06994,
§4.5 and App. B/G. The paper's code and benchmarks were withheld; everything here follows its prose.

* **syn pairs**: every ordered pair of distinct lower-cased lemmas within one WordNet 3.0 synset, counted per
  synset: 315,850 (304,438 once pairs repeated across synsets are merged) — the paper's "315K syn pairs".
* **t2d pairs**: one (lemma, gloss definition) pair per sense: 206,978 (the paper rounds its count to 212K).
* **d2d** needs two definition sources; WordNet has one, so d2d is absent here.
* **Headword masking**: the defined term (each of its content tokens, with simple inflections) is replaced by
  ``[MASK]`` in its definition (:func:`mask_headword`).
* **Splits** are synset-level: in-domain (random synsets held out), head-holdout (the most frequent synsets by
  SemCor tag count, from ``index.sense`` via :func:`companion.wordnet.wordnet_sense_counts`), and a
  source-holdout *proxy* (whole lexicographer files held out; the paper trains on Wiktionary and tests on WordNet,
  which needs Wiktionary).
* **Five hard-negative rules** (:data:`RULES`), deterministic given a seed (:func:`hard_negative`).

The database is read straight from WordNet's ``data.*`` files (the folder :func:`companion.wordnet.wordnet_dir`
assembles) rather than through NLTK's object model: the whole build takes a few seconds instead of ~90 s, and
the counts are identical to NLTK's (checked in the tests).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from companion._io import cache_key, pickle_save_atomic, read_cache
from companion.papers.tables import paper_table
from companion.settings import cache_dir
from companion.wordnet import LEXNAMES, wordnet_dir, wordnet_sense_counts

#: The five hard-negative rules of §4.5 / App. G, in the paper's order.
RULES = ("antonym", "negation", "pos_swap", "prefix_swap", "type_swap")
#: Morphological prefixes of rule 4.
PREFIXES = ("un", "re", "over")
#: Ontological types of rule 5 and the noun lexicographer files that stand for them (our mapping; the paper's
#: typing of WordNet senses is not released). Nouns in other files (Tops, food, object, substance, ...) are untyped.
TYPE_LEXFILES = {
    "person": ("noun.person",),
    "organization": ("noun.group",),
    "location": ("noun.location",),
    "event": ("noun.event", "noun.act", "noun.process"),
    "artifact": ("noun.artifact",),
    "biological entity": ("noun.animal", "noun.plant", "noun.body"),
    "abstract concept": ("noun.cognition", "noun.attribute", "noun.communication", "noun.feeling", "noun.motive",
                         "noun.relation", "noun.state", "noun.quantity", "noun.time", "noun.shape",
                         "noun.possession"),
}
#: Copulas and finite auxiliaries after which rule 2 inserts "not".
FINITE = frozenset("is are was were am has have had does do did can could will would shall should may might must"
                   .split())
STOPWORDS = frozenset("a an the of to in on at by for from with and or as is be that which who its it".split())
MASK = "[MASK]"
#: Lexicographer files held out by the default source-holdout proxy.
PROXY_TEST_LEXFILES = ("noun.animal", "noun.plant", "noun.food", "verb.weather", "verb.consumption", "adj.pert")

_LEXNAME = {num: name for num, name, _ in LEXNAMES}
_POS_GROUP = {"n": "n", "v": "v", "a": "a", "s": "a", "r": "r"}
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
_INFLECTIONS = ("", "s", "es", "ed", "d", "ing")
_ADJ_MARKER = re.compile(r"\((?:a|p|ip)\)$")


def _lemma_text(raw: str) -> str:
    return _ADJ_MARKER.sub("", raw).replace("_", " ").lower()


def _definition(gloss: str) -> str:
    """The definition part of a WordNet gloss (before the first quoted example)."""
    return gloss.split('; "', 1)[0].split(' "', 1)[0].strip().rstrip(";").strip()


@dataclass(frozen=True)
class ConceptData:
    """WordNet 3.0 as tables. ``synsets``: one row per synset (index = synset id ``sid``) with ``key``
    (``pos:offset``), ``pos`` (n/v/a/s/r), ``pos_group`` (s merged into a), ``lexfile``, ``lemmas`` (tuple, lower
    case, in WordNet order), ``definition``, ``count`` (SemCor tag count summed over the synset's senses) and
    ``type`` (rule-5 ontological type or None). ``syn``: columns sid, a, b. ``t2d``: sid, term, definition,
    masked (None where masking leaves nothing). ``antonyms``: word -> sorted antonym words (single words of letters only)."""

    synsets: pd.DataFrame
    syn: pd.DataFrame
    t2d: pd.DataFrame
    antonyms: dict[str, tuple[str, ...]]
    index: dict[str, tuple[int, ...]]

    def senses(self, word: str) -> tuple[int, ...]:
        """Synset ids of ``word`` (any case, spaces or underscores); a one-line error if WordNet lacks it."""
        if not isinstance(word, str):
            raise TypeError(f"word must be a string, got {type(word).__name__}.")
        key = word.strip().replace("_", " ").lower()
        if key not in self.index:
            raise ValueError(f"{word!r} is not in WordNet 3.0.")
        return self.index[key]

    def definitions(self, word: str) -> list[str]:
        """The definitions of every sense of ``word`` (raises for a word absent from WordNet)."""
        return [self.synsets.at[s, "definition"] for s in self.senses(word)]


def _parse_data(folder) -> tuple[list[dict], list[tuple[str, str]]]:
    rows, antonym_pairs = [], []
    for pos_file in ("noun", "verb", "adj", "adv"):
        with open(folder / f"data.{pos_file}", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue
                head, _, gloss = line.partition(" | ")
                f = head.split()
                offset, lexnum, ss_type, w_cnt = f[0], int(f[1]), f[2], int(f[3], 16)
                lemmas = [_lemma_text(f[4 + 2 * i]) for i in range(w_cnt)]
                p = 4 + 2 * w_cnt
                p_cnt = int(f[p])
                for k in range(p_cnt):
                    sym, tgt, tpos, st = f[p + 1 + 4 * k: p + 5 + 4 * k]
                    if sym == "!" and st != "0000":
                        antonym_pairs.append((lemmas[int(st[:2], 16) - 1], (tgt, tpos, int(st[2:], 16))))
                rows.append(dict(key=f"{_POS_GROUP[ss_type] if ss_type != 's' else 'a'}:{offset}", pos=ss_type,
                                 pos_group=_POS_GROUP[ss_type], lexfile=_LEXNAME[lexnum], lemmas=tuple(lemmas),
                                 definition=_definition(gloss)))
    return rows, antonym_pairs


def _synset_counts(folder) -> dict[str, int]:
    """Synset key -> summed SemCor tag count (``index.sense`` gives offsets; counts via wordnet_sense_counts)."""
    counts = wordnet_sense_counts()
    out: dict[str, int] = {}
    digit = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}
    with open(folder / "index.sense", encoding="utf-8") as fh:
        for line in fh:
            key, offset = line.split()[:2]
            sk = f"{digit[key.split('%', 1)[1][0]]}:{offset}"
            out[sk] = out.get(sk, 0) + counts.get(key, 0)
    return out


def _mask_forms(term: str) -> frozenset:
    tokens = [t.lower() for t in _WORD.findall(term.replace("_", " "))]
    content = [t for t in tokens if t not in STOPWORDS and len(t) > 1] or tokens
    return frozenset(t + suffix for t in content for suffix in _INFLECTIONS)


def mask_headword(term: str, definition: str, mask: str = MASK) -> str:
    """Headword masking (§4.5): every word of ``definition`` that is one of the term's content tokens (stop words
    and single letters of multi-word terms are kept), or such a token plus -s, -es, -ed, -d or -ing, is replaced
    by ``mask``. Words are maximal letter runs (apostrophes kept), so hyphenated compounds are split.

    Raises ``ValueError`` when nothing but masks and punctuation is left."""
    if not isinstance(term, str) or not _WORD.search(term):
        raise ValueError(f"term must be a string containing a word, got {term!r}.")
    if not isinstance(definition, str):
        raise TypeError(f"definition must be a string, got {type(definition).__name__}.")
    forms = _mask_forms(term)
    out = _WORD.sub(lambda m: mask if m.group().lower() in forms else m.group(), definition)
    if not re.search(r"[A-Za-z]", out.replace(mask, "")):
        raise ValueError(f"The definition of {term!r} is empty after masking the headword: {definition!r}.")
    return out


def _try_mask(term: str, definition: str) -> str | None:
    try:
        return mask_headword(term, definition)
    except ValueError:
        return None


_CACHE_VERSION = "1"


@functools.lru_cache(maxsize=2)
def load_concepts(disk_cache: bool = True) -> ConceptData:
    """:class:`ConceptData` of WordNet 3.0, cached per process and (``disk_cache``) as a pickle under
    ``cache_dir()/concepts`` keyed by the WordNet files' sizes and times; ``disk_cache=False`` always rebuilds
    (about 10-30 s on a shared 2-core machine)."""
    folder = wordnet_dir()
    stamp = (folder / ".source").read_text(encoding="utf-8") if (folder / ".source").is_file() else str(folder)
    path = cache_dir() / "concepts" / f"wordnet-{cache_key([_CACHE_VERSION, stamp], digest_size=8)}.pkl"
    if disk_cache:
        cached = read_cache(path, kind="pickle")  # a broken cache file is rebuilt
        if isinstance(cached, ConceptData):
            return cached
    data = build_concepts(folder)
    if disk_cache:
        pickle_save_atomic(data, path)
    return data


def build_concepts(folder=None) -> ConceptData:
    """Build :class:`ConceptData` from the WordNet 3.0 ``data.*`` and ``index.sense`` files (no cache)."""
    folder = wordnet_dir() if folder is None else folder
    rows, antonym_pairs = _parse_data(folder)
    synsets = pd.DataFrame(rows)
    counts = _synset_counts(folder)
    synsets["count"] = synsets["key"].map(counts).fillna(0).astype(int)
    lex_type = {lf: t for t, lfs in TYPE_LEXFILES.items() for lf in lfs}
    synsets["type"] = [lex_type.get(lf) if pos == "n" else None for lf, pos in zip(synsets["lexfile"], synsets["pos"])]
    synsets.index.name = "sid"
    # syn: ordered pairs of distinct lower-cased lemmas, per synset
    sid_a, a_list, b_list = [], [], []
    for sid, lemmas in enumerate(synsets["lemmas"]):
        names = sorted(set(lemmas))
        for x in names:
            for y in names:
                if x != y:
                    sid_a.append(sid)
                    a_list.append(x)
                    b_list.append(y)
    syn = pd.DataFrame({"sid": np.asarray(sid_a, dtype=np.int64), "a": a_list, "b": b_list})
    # t2d: one (lemma, definition) per sense
    lem = synsets["lemmas"].explode()
    t2d = pd.DataFrame({"sid": lem.index.to_numpy(np.int64), "term": lem.to_numpy()})
    t2d["definition"] = synsets["definition"].to_numpy()[t2d["sid"].to_numpy()]
    t2d["masked"] = [_try_mask(t, d) for t, d in zip(t2d["term"], t2d["definition"])]
    # antonyms (single-word lemmas only), resolved from lexical pointers
    by_key = dict(zip(synsets["key"], synsets["lemmas"]))
    ant: dict[str, set] = {}
    for src, (tgt, tpos, w) in antonym_pairs:
        target = by_key[f"{'a' if tpos == 's' else tpos}:{tgt}"][w - 1]
        if _WORD.fullmatch(src) and _WORD.fullmatch(target):
            ant.setdefault(src, set()).add(target)
    index: dict[str, list] = {}
    for sid, term in zip(t2d["sid"], t2d["term"]):
        index.setdefault(term, []).append(int(sid))
    return ConceptData(synsets=synsets, syn=syn, t2d=t2d,
                       antonyms={k: tuple(sorted(v)) for k, v in ant.items()},
                       index={k: tuple(dict.fromkeys(v)) for k, v in index.items()})


# --------------------------------------------------------------------------------------------------- splits
@dataclass(frozen=True)
class Split:
    """A synset-level split: disjoint arrays of synset ids."""

    name: str
    train: np.ndarray
    test: np.ndarray

    def is_test(self, sids) -> np.ndarray:
        return np.isin(np.asarray(sids), self.test)

    def is_train(self, sids) -> np.ndarray:
        return np.isin(np.asarray(sids), self.train)


def _check_frac(frac: float) -> float:
    if not isinstance(frac, (int, float)) or not 0 < frac < 1:
        raise ValueError(f"test_frac must be in (0, 1), got {frac!r}.")
    return float(frac)


def in_domain_split(data: ConceptData, test_frac: float = 0.1, seed: int = 0) -> Split:
    """In-domain split: a random ``test_frac`` of synsets (all their pairs) held out (§4.5)."""
    n = len(data.synsets)
    perm = np.random.default_rng(seed).permutation(n)
    k = int(round(_check_frac(test_frac) * n))
    return Split("in-domain", np.sort(perm[k:]), np.sort(perm[:k]))


def head_holdout_split(data: ConceptData, test_frac: float = 0.05) -> Split:
    """Head-holdout: the ``test_frac`` most frequent synsets (summed SemCor tag counts of their senses, WordNet's
    ``cntlist`` / ``index.sense``) are withheld; ties broken by synset id."""
    n = len(data.synsets)
    k = int(round(_check_frac(test_frac) * n))
    order = np.lexsort((np.arange(n), -data.synsets["count"].to_numpy()))
    return Split("head-holdout", np.sort(order[k:]), np.sort(order[:k]))


def source_holdout_proxy(data: ConceptData, test_lexfiles=PROXY_TEST_LEXFILES) -> Split:
    """Source-holdout **proxy**: whole lexicographer files held out. The paper trains on Wiktionary and tests on
    WordNet; with WordNet alone, a domain shift between lexicographer files is the closest stand-in."""
    known = {name for _, name, _ in LEXNAMES}
    bad = [x for x in test_lexfiles if x not in known]
    if bad or not test_lexfiles:
        raise ValueError(f"Unknown lexicographer file(s) {bad or 'none given'}; see companion.wordnet.LEXNAMES.")
    test = data.synsets["lexfile"].isin(test_lexfiles).to_numpy()
    sids = np.arange(len(data.synsets))
    return Split("source-holdout proxy", sids[~test], sids[test])


def training_synsets(data: ConceptData, test_frac: float = 0.1, seed: int = 0) -> np.ndarray:
    """The synsets training may use when all three evaluation splits are read (§4.5: test concepts strictly absent
    from training): the in-domain split's training part (``test_frac``, ``seed``) without the head-holdout test
    synsets (:func:`head_holdout_split`, default share) and without the source-holdout proxy's
    (:func:`source_holdout_proxy`)."""
    train = in_domain_split(data, test_frac, seed=seed).train
    held = np.union1d(head_holdout_split(data).test, source_holdout_proxy(data).test)
    return np.setdiff1d(train, held)


# ---------------------------------------------------------------------------------------------- hard negatives
def _check_rule(rule: str) -> str:
    if rule not in RULES:
        raise ValueError(f"Unknown hard-negative rule {rule!r}; choose one of {', '.join(RULES)}.")
    return rule


def antonym_flip(text: str, antonyms: dict[str, tuple[str, ...]], rng: np.random.Generator) -> str | None:
    """Rule 1: one content word that has a WordNet antonym is replaced by one of its antonyms (None if none)."""
    spans = [m for m in _WORD.finditer(text) if m.group().lower() in antonyms and m.group().lower() not in STOPWORDS]
    if not spans:
        return None
    m = spans[int(rng.integers(len(spans)))]
    options = antonyms[m.group().lower()]
    return text[: m.start()] + options[int(rng.integers(len(options)))] + text[m.end():]


def lexical_negation(text: str) -> str:
    """Rule 2: insert "not" after the first copula / finite auxiliary (:data:`FINITE`); a definition without one
    (WordNet glosses are mostly noun phrases or bare verb phrases) gets "not" in front."""
    for m in _WORD.finditer(text):
        if m.group().lower() in FINITE:
            return text[: m.end()] + " not" + text[m.end():]
    return "not " + text


_POOLS: dict[int, tuple] = {}


def _pools(data: ConceptData):
    """Candidate pools for the swap rules, cached per ConceptData object."""
    key = id(data)
    if key not in _POOLS:
        syn = data.synsets
        group = syn["pos_group"].to_numpy()
        types = np.array([t if isinstance(t, str) else None for t in syn["type"]], dtype=object)
        by_pos = {p: np.flatnonzero(group == p) for p in ("n", "v", "a", "r")}
        prefix = {}
        for pre in PREFIXES:
            has = np.fromiter((any(_has_prefix(x, pre) for x in ls) for ls in syn["lemmas"]), bool, len(syn))
            for p in ("n", "v", "a", "r"):
                prefix[(p, pre)] = np.flatnonzero(has & (group == p))
        typed = np.array([t is not None for t in types])
        other_type = {t: np.flatnonzero(typed & (types != t)) for t in TYPE_LEXFILES}
        _POOLS[key] = (data, group, types, by_pos, prefix, other_type, syn["definition"].to_numpy())
    return _POOLS[key][1:]


def _has_prefix(word: str, pre: str) -> bool:
    return word.startswith(pre) and len(word) >= len(pre) + 3 and word[len(pre)].isalpha()


def _draw_other(pool: np.ndarray, exclude: int, rng: np.random.Generator) -> int | None:
    if len(pool) == 0 or (len(pool) == 1 and pool[0] == exclude):
        return None
    while True:
        s = int(pool[int(rng.integers(len(pool)))])
        if s != exclude:
            return s


def hard_negative(data: ConceptData, rule: str, term: str, sid: int, text: str, seed: int = 0
                  ) -> tuple[str, int | None] | None:
    """One rule-made hard negative for the definition ``text`` of ``term`` (sense ``sid``), or None when the rule
    does not apply. Returns ``(negative_text, other_sid)`` (``other_sid`` for swaps, else None).

    Deterministic: the random choices use ``numpy.random.default_rng((seed, sid, rule index))``.

    1. ``antonym``: a content word replaced by a WordNet antonym (:func:`antonym_flip`);
    2. ``negation``: "not" after the first finite verb or copula (:func:`lexical_negation`);
    3. ``pos_swap``: the definition of a random other synset of the same part of speech;
    4. ``prefix_swap``: if the term starts with un-/re-/over-, the definition of another same-POS synset with a
       lemma sharing that prefix;
    5. ``type_swap``: for typed nouns, the definition of a noun of a different ontological type (:data:`TYPE_LEXFILES`).
    """
    k = RULES.index(_check_rule(rule))
    rng = np.random.default_rng((int(seed), int(sid), k))
    if rule == "antonym":
        out = antonym_flip(text, data.antonyms, rng)
        return None if out is None else (out, None)
    if rule == "negation":
        return lexical_negation(text), None
    group, types, by_pos, prefix, other_type, definitions = _pools(data)
    if rule == "pos_swap":
        other = _draw_other(by_pos[group[sid]], sid, rng)
    elif rule == "prefix_swap":
        pre = next((p for p in PREFIXES if _has_prefix(term, p)), None)
        if pre is None:
            return None
        pool = prefix[(group[sid], pre)]
        pool = pool[~np.isin(pool, data.index.get(term, ()))]
        other = _draw_other(pool, sid, rng)
    else:
        if types[sid] is None:
            return None
        other = _draw_other(other_type[types[sid]], sid, rng)
    if other is None:
        return None
    swapped = definitions[other]
    masked = _try_mask(term, swapped)
    return (masked if masked is not None else swapped), other


def make_hard_negatives(data: ConceptData, pairs: pd.DataFrame, rules=RULES, seed: int = 0) -> pd.DataFrame:
    """Hard negatives for each t2d row of ``pairs`` (columns sid, term, masked) and each rule that applies:
    a frame with columns ``row`` (index into ``pairs``), sid, term, rule, positive, negative, other_sid."""
    rules = tuple(_check_rule(r) for r in rules)
    out = []
    for row, (sid, term, text) in enumerate(zip(pairs["sid"], pairs["term"], pairs["masked"])):
        for rule in rules:
            neg = hard_negative(data, rule, term, int(sid), text, seed=seed)
            if neg is not None:
                out.append((row, int(sid), term, rule, text, neg[0], neg[1]))
    return pd.DataFrame(out, columns=["row", "sid", "term", "rule", "positive", "negative", "other_sid"])


def t2d_subset(data: ConceptData, sids, n: int | None = None, seed: int = 0) -> pd.DataFrame:
    """Masked t2d rows of the synsets ``sids`` (rows whose masking left nothing are dropped), optionally a random
    sample of ``n`` rows (fixed ``seed``), index reset."""
    t = data.t2d[np.isin(data.t2d["sid"].to_numpy(), np.asarray(sids)) & data.t2d["masked"].notna().to_numpy()]
    if n is not None and n < len(t):
        t = t.iloc[np.sort(np.random.default_rng(seed).choice(len(t), n, replace=False))]
    return t.reset_index(drop=True)


def eval_pool(data: ConceptData, sids, n: int, seed: int = 0) -> pd.DataFrame:
    """An evaluation pool of the synsets ``sids``: one masked t2d row per synset (the first maskable sense), then
    ``n`` of those rows drawn at random with ``seed`` (all of them when fewer), in synset order, index reset."""
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an int >= 2 (a pool needs distractors), got {n!r}.")
    pool = t2d_subset(data, sids, seed=seed).drop_duplicates("sid").reset_index(drop=True)
    if n < len(pool):
        pool = pool.iloc[np.sort(np.random.default_rng(seed).choice(len(pool), n, replace=False))]
    return pool.reset_index(drop=True)


# ------------------------------------------------------------------------------------------- training rows
@dataclass(frozen=True)
class TrainingRows:
    """Arrays for Paper 4's objective, one entry per training synset: ``term``, masked definition ``masked``,
    one syn pair ``syn_a``/``syn_b`` of the same synset where it has one (``has_syn``), and the rule-made hard
    negatives ``negatives`` (``N x R`` strings, one column per rule of ``rules``; ``""`` where the rule does not
    apply, ``neg_mask`` False there)."""

    sid: np.ndarray
    term: np.ndarray
    masked: np.ndarray
    syn_a: np.ndarray
    syn_b: np.ndarray
    has_syn: np.ndarray
    negatives: np.ndarray
    neg_mask: np.ndarray
    rules: tuple[str, ...]
    d2d: np.ndarray | None = None  # a second definition of the row's term (masked), where it has one
    has_d2d: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.term)

    def texts(self) -> list[str]:
        """Every distinct text the objective embeds."""
        parts = [self.term, self.masked, self.syn_a[self.has_syn], self.syn_b[self.has_syn],
                 self.negatives[self.neg_mask]]
        if self.d2d is not None:
            parts.append(self.d2d[self.has_d2d])
        return list(dict.fromkeys(str(t) for part in parts for t in part))


def training_rows(data: ConceptData, sids, n: int | None = None, rules=RULES, seed: int = 0) -> TrainingRows:
    """:class:`TrainingRows` for the synsets ``sids``: one masked t2d row per synset (a random lemma, ``seed``),
    optionally ``n`` synsets drawn at random (``seed``), with a syn pair of the same synset (the first ordered pair
    of distinct lemmas) and the hard negatives of ``rules`` (:func:`make_hard_negatives`, deterministic)."""
    rules = tuple(_check_rule(r) for r in rules)
    pool = t2d_subset(data, sids)
    if len(pool) == 0:
        raise ValueError("no maskable t2d rows in the given synsets.")
    rng = np.random.default_rng(seed)
    pool = pool.iloc[rng.permutation(len(pool))].drop_duplicates("sid").sort_values("sid")
    if n is not None:
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a positive int or None, got {n!r}.")
        if n < len(pool):
            pool = pool.iloc[np.sort(rng.choice(len(pool), n, replace=False))]
    pool = pool.reset_index(drop=True)
    syn = data.syn.drop_duplicates("sid").set_index("sid").reindex(pool["sid"])
    has_syn = syn["a"].notna().to_numpy()
    term = pool["term"].to_numpy(object)
    hn = make_hard_negatives(data, pool, rules=rules, seed=seed)
    negatives = np.full((len(pool), len(rules)), "", dtype=object)
    for r, rule in enumerate(rules):
        sub = hn[hn["rule"] == rule]
        negatives[sub["row"].to_numpy(), r] = sub["negative"].to_numpy(object)
    return TrainingRows(sid=pool["sid"].to_numpy(), term=term, masked=pool["masked"].to_numpy(object),
                        syn_a=np.where(has_syn, syn["a"].to_numpy(object), term),
                        syn_b=np.where(has_syn, syn["b"].to_numpy(object), term), has_syn=has_syn,
                        negatives=negatives, neg_mask=negatives != "", rules=rules)


#: Definitions grouped per term for the d2d pairs (§4.5: up to 6 per term).
D2D_PER_TERM = 6


def with_d2d_pairs(data: ConceptData, rows: TrainingRows, sids, per_term: int = D2D_PER_TERM,
                   seed: int = 0) -> TrainingRows:
    """``rows`` with a definition-definition (d2d) partner per row where its term has one: another masked
    definition of the same term, from the term's other senses among the synsets ``sids`` (the training part), drawn
    with ``seed`` from the first ``per_term - 1`` of them in synset order, so that a term's group holds at most
    ``per_term`` definitions (§4.5). A WordNet-only stand-in for the paper's cross-source pairs, which group a term's
    definitions across WordNet and Wiktionary (§4.5, App. B): Wiktionary is not in the data mirror."""
    if not isinstance(per_term, int) or per_term < 2:
        raise ValueError(f"per_term must be an int >= 2 (a pair needs two definitions), got {per_term!r}.")
    t = data.t2d[data.t2d["term"].isin(set(rows.term)).to_numpy() & data.t2d["masked"].notna().to_numpy()]
    t = t[np.isin(t["sid"].to_numpy(), np.asarray(sids))]
    t = t.drop_duplicates(["term", "sid"]).sort_values(["term", "sid"], kind="stable")
    senses = {term: (grp["sid"].to_numpy(), grp["masked"].to_numpy(object)) for term, grp in t.groupby("term")}
    rng = np.random.default_rng(seed)
    partner = np.full(len(rows), "", dtype=object)
    for i, (term, sid) in enumerate(zip(rows.term, rows.sid)):
        other_sids, masked = senses.get(term, (np.array([]), np.array([], dtype=object)))
        others = masked[other_sids != sid][: per_term - 1]
        others = others[others != rows.masked[i]]
        if len(others):
            partner[i] = others[rng.integers(len(others))]
    return replace(rows, d2d=partner, has_d2d=partner != "")


# --------------------------------------------------------------------------------------------- paper numbers
#: Tables of the paper whose body is missing from the paper text: ``data/concepts/tableN.csv`` hold the numbers the
#: prose and captions state, one per row (``row``, ``column``, ``value``, ``source``, ``note``).
PROSE_TABLES = (2, 3, 4, 5, 6, 7, 8, 10, 11, 13)


def paper_numbers(*, root=None) -> pd.DataFrame:
    """Every number the paper text states for Tables 2-8, 10, 11 and 13, with its table and location (``source``):
    the transcriptions ``data/concepts/table<N>.csv`` (:func:`companion.papers.tables.paper_table`, ``root``: the
    checkout) in one long table, with a ``table`` column and the value parsed as ``number``."""
    frames = []
    for n in PROSE_TABLES:
        frames.append(paper_table("concepts", f"table{n}", root=root).assign(table=n))
    out = pd.concat(frames, ignore_index=True)
    out["number"] = pd.to_numeric(out["value"].str.replace(",", "", regex=False), errors="coerce")
    return out


def paper_number(table: int, row: str, column: str, *, root=None) -> tuple[float, str]:
    """``(value, source)`` of one number the paper states: e.g. ``paper_number(11, "B0", "anisotropy")`` gives
    ``(0.126, "App. H")``. A clear KeyError names the cell when it is not transcribed."""
    frame = paper_numbers(root=root)
    hit = frame[(frame["table"] == table) & (frame["row"] == row) & (frame["column"] == column)]
    if len(hit) != 1:
        raise KeyError(f"Table {table}, row {row!r}, column {column!r}: {len(hit)} transcribed cells (expected 1)")
    value = hit["number"].iloc[0]
    if pd.isna(value):
        raise ValueError(f"Table {table}, row {row!r}, column {column!r} is not a number: {hit['value'].iloc[0]!r}")
    return float(value), str(hit["source"].iloc[0])
