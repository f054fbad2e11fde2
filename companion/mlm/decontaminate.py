"""Which pretraining units to drop because they copy an evaluation sentence: the corpus's decontamination rules.

Two rules, named by the ``decontamination`` setting of a build (:class:`companion.mlm.pretrain.BuildConfig`):

* ``"exact"``: a unit is dropped when its :func:`~companion.mlm.corpus.normalise` d form equals an evaluation text
  or one of its sentences. A copy with one word changed, an evaluation sentence inside a longer unit, or a WordNet
  gloss split at ";" into parts (the STS12–14 OnWN and FNWN sentences are whole glosses) all pass it.
* ``"near-duplicate"``: also dropped when the unit and one evaluation text (normalised, split into words) share any
  word :data:`LONG_N`-gram, or share at least :data:`MIN_SHARED` word :data:`SHORT_N`-grams making up at least
  :data:`CONTAINMENT` of the shorter one's :data:`SHORT_N`-grams (either text nearly inside the other). A source
  that knows the larger text its units were cut from (WordNet: the whole gloss before it is split at ";") has that
  text checked too, and all its units dropped when it matches.

Why these numbers: an 8-gram is the usual contamination probe (a run of eight words is rarely shared by chance; on
the cpu corpus it flags the 210 STS12 sentences whose words recur in a corpus unit); it misses a sentence of under
fifteen words with one word changed in the middle, which leaves no 8-gram whole. The 3-gram containment covers
that case: one changed word removes at most three of a sentence's 3-grams, so a copy of a sentence of ten words or
more keeps at least 5 of its 8 or more (0.62 and up). Five shared 3-grams at least and 0.6 of the shorter text, so
that texts sharing a stock phrase do not count: "the basic unit of money in Senegal" shares four 3-grams with an
evaluation gloss for another country, and with 3 shared 3-grams at half the shorter text the rule dropped twenty
times as many units on the cpu corpus, most of them sharing only a phrase such as "it is the source of".

>>> idx = NearDuplicateIndex(["a man is playing a large flute on the stage tonight"])
>>> idx.match("a man is playing a small flute on the stage tonight")   # one word changed
'containment'
>>> idx.match("yesterday a man is playing a large flute on the stage tonight and then left")  # embedded
'8-gram'
>>> idx.match("the weather was fine") is None
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

RULES = ("exact", "near-duplicate")
LONG_N = 8  # any shared word 8-gram: a near-copy
SHORT_N = 3  # containment is measured in word 3-grams
CONTAINMENT = 0.6  # share of the shorter text's 3-grams that the other holds
MIN_SHARED = 5  # and at least this many shared 3-grams


def check_rule(rule: str) -> str:
    if rule not in RULES:
        raise ValueError(f"Unknown decontamination rule {rule!r}; valid: {', '.join(RULES)}.")
    return rule


def word_ngrams(words: list[str], n: int) -> set[str]:
    """The distinct ``n``-grams of ``words`` (each joined by one space)."""
    return {" ".join(words[i: i + n]) for i in range(len(words) - n + 1)}


class NearDuplicateIndex:
    """The evaluation texts' word n-grams, for :meth:`match`. ``keys``: normalised evaluation texts (and their
    sentences), as :func:`companion.mlm.corpus.evaluation_keys` gives them."""

    def __init__(self, keys: Iterable[str], containment: float | None = None, min_shared: int | None = None):
        self.containment = CONTAINMENT if containment is None else containment
        self.min_shared = MIN_SHARED if min_shared is None else min_shared
        self.keys = sorted({k for k in keys if k})
        self.exact = set(self.keys)
        self.long: set[str] = set()
        self.short_size: list[int] = []
        self.postings: dict[str, list[int]] = {}
        for i, key in enumerate(self.keys):
            words = key.split()
            self.long |= word_ngrams(words, LONG_N)
            grams = word_ngrams(words, SHORT_N)
            self.short_size.append(len(grams))
            for g in grams:
                self.postings.setdefault(g, []).append(i)

    def match(self, key: str) -> str | None:
        """The rule a normalised unit ``key`` falls under (``"exact"``, ``"8-gram"`` or ``"containment"``), or
        ``None`` when it is clean."""
        if key in self.exact:
            return "exact"
        words = key.split()
        if any(g in self.long for g in word_ngrams(words, LONG_N)):
            return f"{LONG_N}-gram"
        grams = word_ngrams(words, SHORT_N)
        if len(grams) < self.min_shared:
            return None
        shared: Counter = Counter()
        for g in grams:
            shared.update(self.postings.get(g, ()))
        for i, n in shared.items():
            if n >= self.min_shared and n >= self.containment * min(len(grams), self.short_size[i]):
                return "containment"
        return None
