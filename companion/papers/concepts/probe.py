r"""WordNet-built material for the noun-phrase analyses of notebook 04 (Mohr, Dujany, Souquet & Freitas, arXiv
2606.06994, §5.5, Table 12, App. D).

* :func:`hard_distractors` — near-miss candidates for the probe's retrieval pool, one kind per failure mode of the
  paper's Table 12: the query's head with a WordNet synonym or similar adjective of its modifier (*adj. synonym*,
  "dirty cup" → "filthy cup"), the query's modifier on a WordNet co-hyponym of its head (*head-noun confusion* /
  *compound cross-retrieval*, "city cup" → "city dish") and another modifier of the same family on the same head.
  Every distractor repeats a content word of the query, while the gold paraphrase shares none (strict regime).
* :func:`composition_triples` — (modifier, head, phrase) triples per modifier family for ε_τ: the probe's own
  phrases plus the same modifiers on WordNet co-hyponyms of their heads.
* :func:`epsilon_tau` — §3.2 / App. D.1's distortion of a fitted composition operator :math:`\Phi_\tau`: a ridge
  linear map :math:`[f(m); f(h); 1] \mapsto f(m \circ_\tau h)` fitted per family, its held-out (leave-one-out)
  residual norms :math:`\|f(m \circ_\tau h) - \Phi_\tau(f(m), f(h))\|` on unit embeddings.

The WordNet look-ups take NLTK's reader (:func:`companion.wordnet.wordnet`); ``wn`` is that reader.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["split_phrase", "join_phrase", "cohyponym_heads", "adjective_variants", "hard_distractors", "composition_triples",
           "epsilon_tau", "loo_ridge_residuals", "ordered_pairs"]

#: Distractor kinds of :func:`hard_distractors`, named after the failure modes of Table 12.
DISTRACTOR_KINDS = ("adjective variant", "head co-hyponym", "family modifier")


def split_phrase(phrase: str) -> tuple[str, str]:
    """``(modifier, head)`` of a modifier + noun phrase: the last word is the head, the words before it the
    modifier ("would-be poet" → ("would-be", "poet")); a one-word phrase with a hyphenated prefix keeps the hyphen
    on its modifier ("ex-wife" → ("ex-", "wife")). Raises for any other one-word phrase."""
    words = str(phrase).split()
    if len(words) == 1 and "-" in words[0].strip("-"):
        pre, head = words[0].split("-", 1)
        return f"{pre}-", head
    if len(words) < 2:
        raise ValueError(f"{phrase!r} is not a modifier + head phrase (needs at least two words).")
    return " ".join(words[:-1]), words[-1]


def join_phrase(modifier: str, head: str) -> str:
    """The phrase of ``modifier`` and ``head`` (:func:`split_phrase` inverted: a modifier ending in '-' is
    prefixed)."""
    return f"{modifier}{head}" if modifier.endswith("-") else f"{modifier} {head}"


def _single_words(names) -> list[str]:
    return [n.lower() for n in names if n.isalpha()]


def _ordered(synsets, word: str) -> list:
    """``synsets`` once each in a fixed order: those named after ``word`` first, then by name. NLTK's reader lists
    the senses of a word's inflected base forms in an order that depends on Python's string hashing, so the raw
    order is not reproducible across processes."""
    unique = {s.name(): s for s in synsets}
    return sorted(unique.values(), key=lambda s: (s.name().split(".")[0] != word.lower(), s.name()))


def cohyponym_heads(wn, head: str, k: int) -> list[str]:
    """Up to ``k`` single-word WordNet co-hyponyms of ``head``'s first noun sense (senses named after the head
    first, then by synset name; the other hyponyms of its hypernyms, by synset name), without ``head`` itself;
    empty when WordNet has no noun sense."""
    senses = _ordered(wn.synsets(head, pos="n"), head)
    if not senses:
        return []
    out: list[str] = []
    for hyper in sorted(senses[0].hypernyms(), key=lambda s: s.name()):
        for sister in sorted(hyper.hyponyms(), key=lambda s: s.name()):
            for name in _single_words(sister.lemma_names()):
                if name != head.lower() and name not in out:
                    out.append(name)
    return out[:k]


def adjective_variants(wn, modifier: str, k: int) -> list[str]:
    """Up to ``k`` single-word WordNet adjectives close to ``modifier``: the other lemmas of its adjective synsets,
    then the lemmas of their similar-to synsets (synsets named after the modifier first, then by name), without the
    modifier itself."""
    out: list[str] = []
    word = modifier.replace(" ", "_")
    senses = _ordered(wn.synsets(word, pos="a") + wn.synsets(word, pos="s"), word)
    for group in ([s.lemma_names() for s in senses],
                  [x.lemma_names() for s in senses for x in sorted(s.similar_tos(), key=lambda t: t.name())]):
        for names in group:
            for name in _single_words(names):
                if name != modifier.lower() and name not in out:
                    out.append(name)
    return out[:k]


def hard_distractors(probe: pd.DataFrame, wn, per_kind: int = 4, seed: int = 0) -> pd.DataFrame:
    """Near-miss candidates for each ``phrase`` of ``probe`` (columns ``family``, ``phrase``, ``paraphrase``): up to
    ``per_kind`` of each :data:`DISTRACTOR_KINDS` (the family-modifier kind draws other modifiers of the same
    family with ``seed``). Returns one row per distractor (``item``: the probe row it was made from, ``family``,
    ``kind``, ``text``), without texts that are a probe phrase or paraphrase, each text once."""
    if not isinstance(per_kind, int) or per_kind < 1:
        raise ValueError(f"per_kind must be a positive int, got {per_kind!r}.")
    parts = [split_phrase(p) for p in probe["phrase"]]
    mods = pd.Series([m for m, _ in parts], index=probe.index)
    rng = np.random.default_rng(seed)
    rows = []
    for i, (fam, (mod, head)) in enumerate(zip(probe["family"], parts)):
        others = sorted(set(mods[probe["family"] == fam]) - {mod})
        picks = [others[j] for j in rng.permutation(len(others))[:per_kind]]
        for kind, texts in (("adjective variant", [join_phrase(a, head) for a in
                                                   adjective_variants(wn, mod.rstrip("-"), per_kind)]),
                            ("head co-hyponym", [join_phrase(mod, h) for h in cohyponym_heads(wn, head, per_kind)]),
                            ("family modifier", [join_phrase(m, head) for m in picks])):
            rows += [dict(item=i, family=fam, kind=kind, text=t) for t in texts]
    out = pd.DataFrame(rows, columns=["item", "family", "kind", "text"])
    taken = set(probe["phrase"]) | set(probe["paraphrase"])
    return out[~out["text"].isin(taken)].drop_duplicates("text").reset_index(drop=True)


def composition_triples(probe: pd.DataFrame, wn, per_item: int = 5, per_family: int | None = None,
                        seed: int = 0) -> pd.DataFrame:
    """(``family``, ``modifier``, ``head``, ``phrase``) triples for ε_τ: each probe phrase and its modifier on up to
    ``per_item`` WordNet co-hyponyms of its head. ``per_family`` (optional) keeps that many triples of every family,
    drawn with ``seed`` (the same count per family, so that the families' held-out errors are comparable); raises
    when a family has fewer."""
    rows = []
    for fam, phrase in zip(probe["family"], probe["phrase"]):
        mod, head = split_phrase(phrase)
        for h in [head, *cohyponym_heads(wn, head, per_item)]:
            rows.append(dict(family=fam, modifier=mod.rstrip("-"), head=h, phrase=join_phrase(mod, h)))
    out = pd.DataFrame(rows).drop_duplicates("phrase").reset_index(drop=True)
    if per_family is not None:
        small = out.groupby("family").size()
        small = small[small < per_family]
        if len(small):
            raise ValueError(f"families with fewer than {per_family} triples: {small.to_dict()}.")
        rng = np.random.default_rng(seed)
        keep = [np.sort(rng.choice(idx, per_family, replace=False))
                for idx in out.groupby("family", sort=False).indices.values()]
        out = out.iloc[np.concatenate(keep)]
    return out.reset_index(drop=True)


def loo_ridge_residuals(X: np.ndarray, Y: np.ndarray, ridge: float) -> np.ndarray:
    """Leave-one-out residual vectors of ridge regression ``Y ~ X`` (a constant column is added, penalised like
    the rest), in closed form: with :math:`H = K(K + \\lambda I)^{-1}`, :math:`K = XX^\\top`, the held-out residual
    of row :math:`i` is :math:`(y_i - \\hat y_i)/(1 - H_{ii})`. ``X`` is ``n x p``, ``Y`` ``n x d``."""
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    if X.ndim != 2 or Y.ndim != 2 or len(X) != len(Y) or len(X) < 3:
        raise ValueError(f"X and Y must be 2-D with the same n >= 3 rows, got {X.shape} and {Y.shape}.")
    if not ridge > 0:
        raise ValueError(f"ridge must be > 0, got {ridge!r}.")
    Xc = np.hstack([X, np.ones((len(X), 1))])
    K = Xc @ Xc.T
    H = K @ np.linalg.inv(K + ridge * np.eye(len(K)))
    return (Y - H @ Y) / (1.0 - np.diag(H))[:, None]


def epsilon_tau(triples: pd.DataFrame, embed, ridges: Sequence[float] = (0.01, 0.1, 1.0, 10.0)) -> tuple[pd.DataFrame, float]:
    r"""ε_τ of §3.2 / App. D.1 per modifier family: :math:`\Phi_\tau` is a ridge linear map from the unit embeddings
    of modifier and head (concatenated) to the unit embedding of the phrase, fitted on the family's ``triples``
    (:func:`composition_triples`); each triple's distortion is its leave-one-out residual norm (an operator fitted
    without it). One ridge for every family: of ``ridges``, the one with the lowest mean held-out distortion over
    all triples. ``embed(texts)`` returns an ``N x d`` array or tensor. Returns one row per triple (``family``,
    ``phrase``, ``distortion``) and the ridge used."""
    texts = list(dict.fromkeys([*triples["modifier"], *triples["head"], *triples["phrase"]]))
    Z = np.asarray(embed(texts), dtype=float)
    Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
    row = {t: i for i, t in enumerate(texts)}
    best = None
    for ridge in ridges:
        parts = []
        for fam, g in triples.groupby("family", sort=False):
            X = np.hstack([Z[[row[t] for t in g["modifier"]]], Z[[row[t] for t in g["head"]]]])
            res = loo_ridge_residuals(X, Z[[row[t] for t in g["phrase"]]], ridge)
            parts.append(pd.DataFrame({"family": fam, "phrase": g["phrase"].to_numpy(),
                                       "distortion": np.linalg.norm(res, axis=1)}))
        frame = pd.concat(parts, ignore_index=True)
        if best is None or frame["distortion"].mean() < best[0]["distortion"].mean():
            best = (frame, float(ridge))
    return best


def ordered_pairs(frame: pd.DataFrame, order: Sequence[str], n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Theorem D.3's ordering checked pair by pair: for each consecutive pair ``(a, b)`` of ``order`` (families of
    ``frame``, one row per triple with ``family`` and ``distortion``), the mean distortions, whether ``a``'s is
    below ``b``'s, and the share of ``n_boot`` bootstrap resamples of the triples (within each family, ``seed``) in
    which it is."""
    rng = np.random.default_rng(seed)
    values = {f: frame.loc[frame["family"] == f, "distortion"].to_numpy() for f in order}
    missing = [f for f, v in values.items() if len(v) == 0]
    if missing:
        raise ValueError(f"no triples of the families {missing}.")
    boot = {f: np.array([v[rng.integers(0, len(v), len(v))].mean() for _ in range(n_boot)]) for f, v in values.items()}
    return pd.DataFrame([dict(pair=f"{a} < {b}", mean_a=values[a].mean(), mean_b=values[b].mean(),
                              ordered=bool(values[a].mean() < values[b].mean()),
                              bootstrap_share=float((boot[a] < boot[b]).mean()))
                         for a, b in zip(order[:-1], order[1:])])


def firm_order(firm: float = 0.95):
    """Criterion for Theorem D.3's ordering read from :func:`ordered_pairs`' bootstrap shares (``ours``: pair ->
    share of resamples in which the pair is ordered as D.3 says). A pair counts as ordered at a share >= ``firm``,
    as reversed at <= ``1 - firm``, and as undetermined in between (a point estimate on the right side of a coin
    flip orders nothing). Any pair firmly reversed: not reproduced (the ordering is contradicted, whatever the other
    pairs do); all ordered: reproduced; some ordered and the rest undetermined: partly; none determined:
    inconclusive."""
    from companion.stats import Criterion, Judgement  # noqa: PLC0415 - loads scipy; this module imports without it

    if not 0.5 < firm < 1:
        raise ValueError(f"firm must lie in (0.5, 1), got {firm}.")

    def rule(shares: dict[str, float]) -> Judgement:
        if not shares:
            raise ValueError("firm_order needs at least one pair.")
        ordered = [p for p, s in shares.items() if s >= firm]
        reversed_ = [p for p, s in shares.items() if s <= 1 - firm]
        open_ = [p for p in shares if p not in ordered and p not in reversed_]
        detail = (f"ordered: {', '.join(ordered) or 'none'}; reversed: {', '.join(reversed_) or 'none'}; "
                  f"undetermined: {', '.join(open_) or 'none'}")
        if reversed_:
            return Judgement("not reproduced", detail)
        if len(ordered) == len(shares):
            return Judgement("reproduced")
        if ordered:
            return Judgement("partly", detail)
        return Judgement("inconclusive", f"no pair is firmly ordered either way at bootstrap share {firm}: {detail}")

    return Criterion(f"each consecutive pair ordered as D.3 in >= {firm:.0%} of bootstrap resamples (reversed at "
                     f"<= {1 - firm:.0%}, undetermined in between): all ordered: reproduced; any reversed: not "
                     f"reproduced; some ordered, the rest undetermined: partly; none determined: inconclusive", rule,
                     name="firm_order", params={"firm": firm})
