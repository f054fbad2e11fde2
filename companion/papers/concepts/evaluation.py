r"""Evaluation and claim helpers of the concept-representation notebooks (Mohr, Dujany, Souquet & Freitas,
arXiv 2606.06994): the §5 metrics of an encoder on a held-out WordNet pool (notebook 03), the reduced set of the
frozen-mpnet analysis and the noun-phrase probe's recall by modifier family (notebook 04), the paired
fine-tuned-vs-reference claims (notebook 03), and the validity checks measured in our runs (trained, plateau,
ceiling / floor; :class:`companion.stats.Validity`) that make a claim inconclusive when they fail.

Embeddings are passed as an ``N x d`` tensor whose rows follow a list of texts; every metric works on the unit
vectors. The retrieval metrics live in :mod:`companion.metrics.retrieval`, the geometry in
:mod:`companion.metrics.geometry`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from companion import stats
from companion.metrics.geometry import anisotropy, effective_rank
from companion.metrics.retrieval import gold_ranks, mrr, pair_roc_auc, recall_at_k
from companion.papers.concepts.data import RULES

__all__ = ["ConceptRetrieval", "GeometryMonitor", "ClaimMonitor", "split_recalls", "EmbeddingLookup", "t2d_probe_metrics", "t2d_hits",
           "recall_by_family", "np_layerwise", "table12_beside", "geometry_definitions", "room", "loss_trained",
           "loss_plateau", "curve_plateau", "frozen_bootstrap", "exact_direction", "PairedConditionClaims",
           "verdict_summary"]

#: Table 12 marks some phrases with these footnote signs; they are not part of the phrase.
_FOOTNOTES = "†‡"


def _unit_rows(Z: torch.Tensor, index: Mapping[str, int], texts: Sequence[str]) -> torch.Tensor:
    missing = [t for t in texts if t not in index]
    if missing:
        raise ValueError(f"{len(missing)} text(s) have no embedding row, e.g. {missing[0]!r}.")
    return Z[[index[t] for t in texts]]


class ConceptRetrieval:
    r"""Every §5 metric of the paper on one held-out pool (notebook 03, Tables 2, 4, 10, 11).

    ``pairs``: one row per concept with ``term`` and ``masked`` (its masked definition); ``hard_negatives``: the
    frame of :func:`companion.papers.concepts.data.make_hard_negatives` (``term``, ``positive``, ``negative``,
    ``rule``); ``random_definitions``: one unrelated definition per concept (the negatives of the pair ROC-AUC).
    :attr:`texts` lists every text to embed once (terms, definitions, negatives, random definitions, first
    occurrence kept). Calling the object with the embeddings ``Z`` of :attr:`texts` returns t2d and d2t R@10 and MRR
    (gold: every definition of the same term, i.e. polysemy counts), the pair ROC-AUC, one stress ROC-AUC per rule
    (NaN with fewer than two negatives of that rule), anisotropy (mean cosine of 10,000 random definition pairs,
    App. H) and effective rank of the definitions.
    """

    def __init__(self, pairs: pd.DataFrame, hard_negatives: pd.DataFrame, random_definitions: Sequence[str],
                 rules: Sequence[str] = RULES):
        if len(random_definitions) != len(pairs):
            raise ValueError(f"need one random definition per concept: {len(random_definitions)} for "
                             f"{len(pairs)} concepts.")
        self.hn, self.rand_def, self.rules = hard_negatives, list(random_definitions), tuple(rules)
        self.terms, self.defs = pairs["term"].tolist(), pairs["masked"].tolist()
        self.texts = list(dict.fromkeys(self.terms + self.defs + list(hard_negatives["negative"]) + self.rand_def))
        self.row = {t: i for i, t in enumerate(self.texts)}
        term = pairs["term"].to_numpy()
        self.same_term = term[:, None] == term[None, :]

    def __call__(self, Z: torch.Tensor) -> dict[str, float]:
        if len(Z) != len(self.texts):
            raise ValueError(f"Z has {len(Z)} rows for {len(self.texts)} texts.")
        Z = F.normalize(Z.double(), dim=-1)
        q, d = _unit_rows(Z, self.row, self.terms), _unit_rows(Z, self.row, self.defs)
        S = (q @ d.T).numpy()
        out = {"t2d R@10": recall_at_k(S, self.same_term, 10), "t2d MRR": mrr(S, self.same_term),
               "d2t R@10": recall_at_k(S.T, self.same_term, 10), "d2t MRR": mrr(S.T, self.same_term)}
        neg = (q * _unit_rows(Z, self.row, self.rand_def)).sum(1).numpy()
        out["pair AUC"] = pair_roc_auc(np.diag(S), neg)
        hn = self.hn
        qh = _unit_rows(Z, self.row, hn["term"])
        cp = (qh * _unit_rows(Z, self.row, hn["positive"])).sum(1).numpy()
        cn = (qh * _unit_rows(Z, self.row, hn["negative"])).sum(1).numpy()
        for r in self.rules:
            m = (hn["rule"] == r).to_numpy()
            out[f"AUC {r}"] = pair_roc_auc(cp[m], cn[m]) if m.sum() >= 2 else np.nan
        out["anisotropy"] = anisotropy(d, n_pairs=10_000, seed=0)
        out["effective rank"] = effective_rank(d)
        return out

    def hits(self, Z: torch.Tensor, k: int = 10) -> np.ndarray:
        """Per concept, whether a gold definition (any of the same term) ranks in the term's top ``k`` (t2d): the
        items whose mean is ``t2d R@k``, for a bootstrap over concepts (:func:`frozen_bootstrap`)."""
        return t2d_hits(Z, self.row, pd.DataFrame({"term": self.terms, "masked": self.defs}), k)


class GeometryMonitor:
    """The statistics P1 is about, cheap enough to log along training (notebook 03, P1 curves; §1 P1, App. H):
    t2d R@10 and MRR of ``pairs`` (``term`` against its ``masked`` definition, gold: same term), anisotropy (mean
    cosine of 10,000 random definition pairs, App. H) and effective rank (exp entropy of the normalised singular
    values, App. H) of the definitions. Calling it with a model that has ``encode(texts)`` returns the dict."""

    def __init__(self, pairs: pd.DataFrame):
        if not {"term", "masked"} <= set(pairs.columns):
            raise ValueError("pairs need the columns 'term' and 'masked'.")
        self.terms, self.defs = pairs["term"].tolist(), pairs["masked"].tolist()
        self.texts = list(dict.fromkeys(self.terms + self.defs))
        self.row = {t: i for i, t in enumerate(self.texts)}
        term = pairs["term"].to_numpy()
        self.same_term = term[:, None] == term[None, :]

    def __call__(self, model) -> dict[str, float]:
        return self.of(model.encode(self.texts))

    def of(self, Z: torch.Tensor) -> dict[str, float]:
        """The statistics of embeddings ``Z`` of :attr:`texts`."""
        Z = F.normalize(Z.double(), dim=-1)
        q, d = _unit_rows(Z, self.row, self.terms), _unit_rows(Z, self.row, self.defs)
        S = (q @ d.T).numpy()
        return {"t2d R@10": recall_at_k(S, self.same_term, 10), "t2d MRR": mrr(S, self.same_term),
                "anisotropy": anisotropy(d, n_pairs=10_000, seed=0), "effective rank": effective_rank(d)}


class ClaimMonitor:
    """Every metric the claims on fine-tuned conditions read (notebook 03, §5 and Apps. F, H): ``evaluate`` (a
    :class:`ConceptRetrieval` of the in-domain pool) on the model's embeddings of its texts, and the t2d R@10 of the
    other splits (``split_monitors``, :func:`split_recalls`). Logged along a condition's training
    (:func:`~companion.papers.concepts.finetune.train_condition`'s ``monitor``), it gives each claim the curve of its
    own quantity, which the claim's plateau check reads (:meth:`PairedConditionClaims.plateau`); at the end of
    training it is the condition's score. Calling it with a model that has ``encode(texts)`` returns the dict."""

    def __init__(self, evaluate: ConceptRetrieval, split_monitors: Mapping[str, GeometryMonitor]):
        self.evaluate, self.split_monitors = evaluate, dict(split_monitors)

    def __call__(self, model) -> dict[str, float]:
        return {**self.evaluate(model.encode(self.evaluate.texts)), **split_recalls(model.encode, self.split_monitors)}


class EmbeddingLookup:
    """Already computed embeddings ``Z`` of ``texts`` served as an ``encode(texts)`` function (frozen readouts in
    :func:`split_recalls`); an unknown text raises."""

    def __init__(self, Z: torch.Tensor, texts: Sequence[str]):
        if len(Z) != len(texts):
            raise ValueError(f"Z has {len(Z)} rows for {len(texts)} texts.")
        self.Z, self.row = Z, {t: i for i, t in enumerate(texts)}

    def __call__(self, texts: Sequence[str]) -> torch.Tensor:
        return _unit_rows(self.Z, self.row, texts)


def split_recalls(encode, monitors: Mapping[str, GeometryMonitor]) -> dict[str, float]:
    """t2d R@10 on each evaluation split (§4.5: in-domain, head-holdout, source-holdout; Table 3's columns):
    ``{"<name> t2d R@10": ...}`` for every :class:`GeometryMonitor` of ``monitors``, ``encode(texts)`` giving the
    embeddings of the monitor's texts."""
    return {f"{name} t2d R@10": mon.of(encode(mon.texts))["t2d R@10"] for name, mon in monitors.items()}


def geometry_definitions(Z: torch.Tensor) -> dict[str, dict[str, float]]:
    """Both of the paper's wordings of its two geometry statistics on the unit rows of ``Z`` (notebook 04: which
    one Table 11's numbers use). Anisotropy: App. H, mean cosine of 10,000 random pairs; App. D.6 (Theorem D.5),
    the share of variance on the leading singular direction (of the centred rows, and of the raw unit rows).
    Effective rank: App. H, exp entropy of the normalised singular values; the Table 11 caption, of the normalised
    eigenvalues (squared singular values); App. D.6, the participation ratio of the covariance eigenvalues and of
    the singular values (its formula names singular values)."""
    X = F.normalize(Z.double(), dim=-1)
    sv_raw = torch.linalg.svdvals(X)
    sv_c = torch.linalg.svdvals(X - X.mean(dim=0, keepdim=True))

    def exp_entropy(w: torch.Tensor) -> float:
        p = w / w.sum()
        p = p[p > 0]
        return float(torch.exp(-(p * p.log()).sum()))

    return {"anisotropy": {"App. H: mean cosine of random pairs": anisotropy(X, n_pairs=10_000, seed=0),
                           "App. D.6: leading-direction variance share (centred)": float(sv_c[0] ** 2 / (sv_c ** 2).sum()),
                           "App. D.6: leading-direction variance share (raw)": float(sv_raw[0] ** 2 / (sv_raw ** 2).sum())},
            "effective rank": {"App. H: exp entropy of singular values": exp_entropy(sv_raw),
                               "Table 11 caption: exp entropy of eigenvalues": exp_entropy(sv_raw ** 2),
                               "App. D.6: participation ratio of eigenvalues": float((sv_c ** 2).sum() ** 2
                                                                                     / (sv_c ** 4).sum()),
                               "App. D.6: participation ratio of singular values": float(sv_c.sum() ** 2
                                                                                         / (sv_c ** 2).sum())}}


def t2d_hits(Z: torch.Tensor, index: Mapping[str, int], pairs: pd.DataFrame, k: int = 10) -> np.ndarray:
    """Per row of ``pairs`` (``term``, ``masked``), whether a definition of the same term ranks in the term's top
    ``k`` among all the pool's definitions (t2d; their mean is t2d R@k). ``index`` maps each text to its row of
    ``Z``."""
    Z = F.normalize(Z.double(), dim=-1)
    q, d = _unit_rows(Z, index, pairs["term"]), _unit_rows(Z, index, pairs["masked"])
    term = pairs["term"].to_numpy()
    return gold_ranks((q @ d.T).numpy(), term[:, None] == term[None, :]) <= k


def t2d_probe_metrics(Z: torch.Tensor, index: Mapping[str, int], pairs: pd.DataFrame,
                      negatives: pd.DataFrame) -> dict[str, float]:
    """The reduced §5 set used on frozen all-mpnet-base-v2 (notebook 04, section 4): t2d R@10 and MRR of the terms
    of ``pairs`` against their masked definitions (gold: same term), the ROC-AUC of ``negatives`` (e.g. the
    negation rule's: its positives against its negatives, per term), anisotropy and effective rank of the
    definitions. ``index`` maps each text to its row of ``Z``."""
    Z = F.normalize(Z.double(), dim=-1)
    q, d = _unit_rows(Z, index, pairs["term"]), _unit_rows(Z, index, pairs["masked"])
    same = pairs["term"].to_numpy()[:, None] == pairs["term"].to_numpy()[None, :]
    S = (q @ d.T).numpy()
    qh = _unit_rows(Z, index, negatives["term"])
    auc = pair_roc_auc((qh * _unit_rows(Z, index, negatives["positive"])).sum(1).numpy(),
                       (qh * _unit_rows(Z, index, negatives["negative"])).sum(1).numpy())
    return {"t2d R@10": recall_at_k(S, same, 10), "t2d MRR": mrr(S, same), "AUC negation": auc,
            "anisotropy": anisotropy(d, n_pairs=10_000, seed=0), "effective rank": effective_rank(d)}


def recall_by_family(Z: torch.Tensor, texts: Sequence[str], probe: pd.DataFrame, families: Sequence[str],
                     readout: str, seed: int = -1, distractors: Sequence[str] = ()) -> tuple[list[dict], np.ndarray]:
    """The noun-phrase probe (notebook 04, §5.5 / Table 5 analogue): each ``phrase`` of ``probe`` retrieves among
    all its ``paraphrase`` column (gold: its own) and the extra candidates ``distractors`` (e.g. the WordNet-built
    near misses of :func:`companion.papers.concepts.probe.hard_distractors`). Returns one row per family of
    ``families`` and one for ``all`` (``readout``, ``seed``, ``family``, ``R1``, ``R10``) and the 1-based gold rank
    of every phrase. ``Z`` holds the embeddings of ``texts``."""
    unknown = sorted(set(probe["family"]) - set(families))
    if unknown:
        raise ValueError(f"probe families {unknown} are not in families={list(families)}.")
    Z = F.normalize(Z.double(), dim=-1)
    row = {t: i for i, t in enumerate(texts)}
    candidates = list(probe["paraphrase"]) + list(distractors)
    S = (_unit_rows(Z, row, probe["phrase"]) @ _unit_rows(Z, row, candidates).T).numpy()
    gold = np.arange(len(probe))
    out = []
    for fam in [*families, "all"]:
        m = (probe["family"] == fam).to_numpy() if fam != "all" else np.ones(len(probe), bool)
        out.append(dict(readout=readout, seed=seed, family=fam, R1=recall_at_k(S[m], gold[m], 1),
                        R10=recall_at_k(S[m], gold[m], 10)))
    return out, gold_ranks(S, gold)


def np_layerwise(layers: torch.Tensor, texts: Sequence[str], probe: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3 on noun phrases: per hidden state of ``layers`` (``N x (L+1) x d``, rows following ``texts``), the
    MRR of each probe ``phrase`` retrieving its own ``paraphrase`` among all paraphrases, and the anisotropy (mean
    cosine of 10,000 random pairs, App. H) of the probe's phrases and paraphrases. One row per hidden state
    (``layer`` 0 = embeddings)."""
    row = {t: i for i, t in enumerate(texts)}
    own = list(dict.fromkeys([*probe["phrase"], *probe["paraphrase"]]))
    out = []
    for i in range(layers.shape[1]):
        Z = F.normalize(layers[:, i].double(), dim=-1)
        S = (_unit_rows(Z, row, probe["phrase"]) @ _unit_rows(Z, row, probe["paraphrase"]).T).numpy()
        out.append(dict(layer=i, MRR=mrr(S, np.arange(len(probe))),
                        anisotropy=anisotropy(_unit_rows(Z, row, own), n_pairs=10_000, seed=0)))
    return pd.DataFrame(out)


def table12_beside(table12: pd.DataFrame, encoder, label: str) -> pd.DataFrame:
    """The paper's Table 12 (App. I: B1's hardest NP failures, with its fine-tuned cosines ``Cor. sim`` and
    ``Ret. sim``) beside ``encoder``'s cosines of the same query-correct and query-retrieved pairs, in the columns
    ``<label> cor. sim`` and ``<label> ret. sim`` (notebook 04, section 4). Footnote signs are stripped from the
    retrieved phrases; ``encoder.encode(texts, cache=False)`` must return unit vectors."""
    cols = ["Family", "Query", "Correct paraphrase", "Cor. sim", "Retrieved rank-1", "Ret. sim"]
    missing = [c for c in cols if c not in table12.columns]
    if missing:
        raise ValueError(f"table12 lacks the column(s) {missing}.")
    texts = list(dict.fromkeys([t.rstrip(_FOOTNOTES) for col in ("Query", "Correct paraphrase", "Retrieved rank-1")
                                for t in table12[col]]))
    E = dict(zip(texts, encoder.encode(texts, cache=False)))
    out = table12[cols].copy()
    out[f"{label} cor. sim"] = [float(E[q] @ E[c]) for q, c in zip(out["Query"], out["Correct paraphrase"])]
    out[f"{label} ret. sim"] = [float(E[q] @ E[r.rstrip(_FOOTNOTES)])
                                for q, r in zip(out["Query"], out["Retrieved rank-1"])]
    return out


# ------------------------------------------------------------------------------------ validity checks and claims
def room(paper_effect: float, base: float, what: str) -> stats.Validity:
    """A ``ceiling`` (the paper's change is a gain) or ``floor`` (a loss) check of a rate in [0, 1]: the one rule of
    :func:`companion.stats.validity.room` (notebook 03's type-swap and pair AUCs, notebook 04's family recalls). It
    records the blocked side, so a firm reversal is never held back by it."""
    return stats.validity.room(base, paper_effect, what=what)


def loss_trained(histories: Sequence[Sequence[Mapping]], name: str) -> stats.Validity:
    """``trained``: the one rule of :func:`companion.stats.validity.trained` on condition ``name``'s per-step
    training loss, one curve per seed (``histories``: each a list of ``{"step", "loss", ...}``)."""
    frame = pd.DataFrame([{"run": name, "seed": i, "step": h["step"], "value": h["loss"]}
                          for i, hist in enumerate(histories) for h in hist if "loss" in h])
    if frame.empty:
        return stats.Validity("record", False, f"{name}: no logged training loss")
    return stats.validity.trained(frame, what=f"{name} training loss")


def loss_plateau(histories: Sequence[Sequence[Mapping]], name: str) -> stats.Validity:
    """``plateau`` of condition ``name``'s training loss: :func:`companion.stats.plateau` on the per-step loss
    averaged over the seeds' ``histories`` (each a list of ``{"step", "loss", ...}``): the slope over the last third
    must have a confidence interval covering zero. Fewer than three logged steps cannot show a plateau: failed."""
    frame = pd.DataFrame([{"step": h["step"], "loss": h["loss"]} for hist in histories for h in hist
                          if "loss" in h])
    curve = frame.groupby("step")["loss"].mean() if len(frame) else pd.Series(dtype=float)
    if len(curve) < 3:
        return stats.Validity("plateau", False, f"{name}: {len(curve)} logged steps, too few to see a plateau")
    check = stats.plateau(curve.index.to_numpy(float), curve.to_numpy(float))
    return stats.Validity("plateau", check.passed, f"{name} training loss (mean over seeds): {check.detail}")


def curve_plateau(curves: pd.DataFrame, col: str, gap: float | None, what: str) -> stats.Validity:
    """``plateau`` of a logged curve of the claim's own quantity ``col`` (``curves``: ``step``, ``seed``, ``col``;
    step 0 = the start): :func:`companion.stats.validity.plateau` of the seed-mean curve, with ``gap`` the compared
    difference (the gain over the last third may be at most a quarter of it). Fewer than three logged points:
    failed."""
    frame = stats.validity.curve_frame(curves.assign(run=col), value=col,
                                       seed="seed" if "seed" in curves else None)
    return stats.validity.plateau(frame, what=what, gap=gap, claim_metric=True)


def frozen_bootstrap(estimate: float, replicates: Sequence[float], what: str, confidence: float = 0.95,
                     labels: tuple[str, str] | None = None) -> stats.Comparison:
    """A :class:`companion.stats.Comparison` for one deterministic run (a frozen encoder on a fixed pool, no seeds):
    the point ``estimate`` with the percentile interval of its bootstrap ``replicates`` over ``what`` (the test items
    resampled with replacement). ``n`` is 1 and ``sd`` None (no seeds: no minimum detectable effect); ``p`` is the
    two-sided bootstrap p-value (twice the share of replicates on the smaller side of 0)."""
    boots = np.asarray(replicates, dtype=np.float64)
    if boots.size < 100 or not np.all(np.isfinite(boots)):
        raise ValueError(f"frozen_bootstrap() needs at least 100 finite replicates, got {boots.size}.")
    lo, hi = np.quantile(boots, [(1 - confidence) / 2, (1 + confidence) / 2])
    p = float(min(1.0, 2 * min((boots <= 0).mean(), (boots >= 0).mean())))
    return stats.Comparison((float(estimate),), float(estimate), None, (float(lo), float(hi)), confidence, 1,
                            f"percentile bootstrap over {what} (one deterministic run: no seeds)", p, None, labels)


def paired_item_bootstrap(a: np.ndarray, b: np.ndarray, what: str, n_boot: int = 2000, seed: int = 0,
                          labels: tuple[str, str] | None = None) -> stats.Comparison:
    """:func:`frozen_bootstrap` of ``mean(a) - mean(b)`` for per-item values of two readouts on the same items
    (e.g. per-concept R@10 hits): the items are resampled together, so the comparison stays paired."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(f"paired_item_bootstrap() needs two 1-d arrays of one length >= 2, got {a.shape}, {b.shape}.")
    diff = a - b
    rng = np.random.default_rng(seed)
    boots = diff[rng.integers(0, diff.size, (n_boot, diff.size))].mean(axis=1)
    return frozen_bootstrap(float(diff.mean()), boots, f"the {diff.size} {what}", labels=labels)


def exact_direction(paper_effect: float) -> stats.Criterion:
    """The symmetric rule of :func:`companion.stats.direction` for a deterministic difference with no interval (a
    spectral statistic of a frozen encoder on a fixed pool: effective rank, anisotropy): the paper's sign and
    ``|ours - paper| <=`` the tolerance of :func:`companion.stats.tolerance`: reproduced; the paper's sign but
    outside it: partly; zero or the other sign: not reproduced."""
    paper_effect = float(paper_effect)
    tol = stats.tolerance(paper_effect)
    side = 1 if paper_effect > 0 else -1
    desc = (f"{'A > B' if side > 0 else 'A < B'} (paper {paper_effect:+.4g}; tolerance ±{tol.value:g}: {tol.reason}); "
            f"a deterministic value (frozen encoder, fixed pool: no interval): the paper's sign and |ours − paper| "
            f"<= {tol.value:g}: reproduced; the paper's sign, outside: partly; zero or the other sign: not reproduced")

    def rule(ours):
        if isinstance(ours, stats.Comparison) or not np.isfinite(float(ours)):
            raise TypeError(f"exact_direction() judges one finite deterministic number, got {ours!r}")
        value = float(ours)
        if value * side <= 0:
            return stats.Judgement("not reproduced", f"{value:+.4g} is not on the paper's side of 0")
        if abs(value - paper_effect) <= tol.value:
            return stats.Judgement("reproduced")
        return stats.Judgement("partly", f"direction holds; magnitude {value:+.4g} against the paper's "
                                         f"{paper_effect:+.4g}, outside the tolerance {tol.value:g}")

    return stats.Criterion(desc, rule, name="exact_direction",
                           params={"paper_effect": paper_effect, "tol": tol.value, "tol_reason": tol.reason})


class PairedConditionClaims:
    """Claims on the difference of a metric between two conditions, paired over seeds (notebook 03, §5 and App. F,
    H).

    ``frozen``: one row per frozen readout (B0, B0-WM, ...; deterministic, so its value repeats for every seed);
    ``runs``: one row per fine-tuned condition and seed (columns ``condition``, ``seed`` and the metrics);
    ``checks``: per fine-tuned condition, the validity checks measured in its runs (:func:`loss_trained`, and
    :func:`loss_plateau` where no curve of the claims' own metrics was logged): a failed one makes every claim on
    that condition inconclusive; ``regime`` (how the run differs from the paper's, stored beside the verdict) and
    ``probe`` describe the run for every claim. ``curves``: per ``(condition, seed)``, the claims' metrics logged along
    training (:class:`ClaimMonitor` records, each with its ``step``); with them every claim also carries the plateau
    check of its own quantity (:meth:`plateau`).
    """

    def __init__(self, ledger, frozen: pd.DataFrame, runs: pd.DataFrame, seeds: Sequence[int],
                 checks: Mapping[str, Sequence[stats.Validity]], regime: str, probe: str,
                 curves: Mapping[tuple[str, int], Sequence[Mapping]] | None = None):
        self.ledger, self.frozen, self.runs, self.seeds = ledger, frozen, runs, list(seeds)
        self.checks, self.regime, self.probe, self.curves = checks, regime, probe, curves

    def seeds_of(self, name: str, col: str, seeds: Sequence[int] | None = None) -> np.ndarray:
        """Per-seed values of metric ``col`` for condition ``name`` (a frozen readout repeats its single value)."""
        seeds = self.seeds if seeds is None else seeds
        if name in self.frozen.index:
            return np.full(len(seeds), float(self.frozen.loc[name, col]))
        runs = self.runs
        return np.array([float(runs[(runs["condition"] == name) & (runs["seed"] == s)][col].item()) for s in seeds])

    def validity(self, *names: str) -> list[stats.Validity]:
        """The checks of the fine-tuned conditions among ``names`` (frozen readouts have none)."""
        return [c for n in dict.fromkeys(names) for c in self.checks.get(n, ())]

    def _curve(self, name: str, col: str, seed: int) -> pd.Series | None:
        """``col`` of condition ``name`` along training for ``seed`` (indexed by step); a frozen readout's is its
        one value at every step (None: nothing logged, or a frozen readout)."""
        if name in self.frozen.index:
            return None
        records = [r for r in (self.curves or {}).get((name, seed), ()) if col in r]
        if not records:
            raise KeyError(f"no logged curve of {col!r} for {name} seed {seed}.")
        return pd.Series({int(r["step"]): float(r[col]) for r in records}).sort_index()

    def plateau(self, a: str, b: str, col: str, *, gap: float | None = None, ratio: bool = False,
                seeds: Sequence[int] | None = None) -> stats.Validity:
        """``plateau`` of the claim's own quantity: ``a − b`` of ``col`` (``log(a / b)`` with ``ratio``) per seed
        along training, the steps both logged (a frozen readout is constant), through
        :func:`companion.stats.validity.plateau` with ``claim_metric=True`` (its trend tells the gate which way the
        quantity still moves); ``gap``: the compared difference (the gain over the last third may be at most a
        quarter of it)."""
        rows = []
        for seed in (self.seeds if seeds is None else seeds):
            ca, cb = self._curve(a, col, seed), self._curve(b, col, seed)
            if ca is None and cb is None:
                raise ValueError(f"{a} and {b} are both frozen: nothing trained to follow.")
            fa = ca if ca is not None else pd.Series(float(self.frozen.loc[a, col]), index=cb.index)
            fb = cb if cb is not None else pd.Series(float(self.frozen.loc[b, col]), index=fa.index)
            both = pd.concat([fa, fb], axis=1, join="inner")
            value = np.log(both[0] / both[1]) if ratio else both[0] - both[1]
            rows += [{"run": f"{a} − {b}", "seed": seed, "step": k, "value": float(v)} for k, v in value.items()]
        frame = stats.validity.curve_frame(pd.DataFrame(rows))
        what = f"{'log ' if ratio else ''}{col} {'ratio' if ratio else 'gap'} along training"
        return stats.validity.plateau(frame, what=what, gap=gap, claim_metric=True)

    def claim(self, cid: str, text: str, a: str, b: str, col: str, source: str, paper_effect, criterion=None,
              seeds: Sequence[int] | None = None, note: str = "", validity: Sequence[stats.Validity] = (),
              ratio: bool = False) -> stats.Comparison:
        """Record the paper's difference ``a - b`` of ``col`` against ours, paired over ``seeds`` (default: all),
        judged by ``criterion`` (default: :func:`companion.stats.direction` of ``paper_effect``), with the checks of
        ``a`` and ``b``, the plateau of the claim's own quantity where curves were logged (:meth:`plateau`) and the
        extra ``validity`` (e.g. :func:`room`). ``ratio``: the quantity's scale depends on
        the sample (effective rank grows with the dimension and the pool), so both sides compare ``log(a / b)``
        (``paper_effect`` is then the paper's log ratio; :func:`companion.stats.tolerance`'s policy for such
        quantities). Returns the comparison."""
        seeds = self.seeds if seeds is None else seeds
        va, vb = self.seeds_of(a, col, seeds), self.seeds_of(b, col, seeds)
        cmp = stats.paired(np.log(va) if ratio else va, np.log(vb) if ratio else vb, labels=(a, b))
        crit = criterion or stats.direction(paper_effect)
        own = [self.plateau(a, b, col, gap=cmp.estimate, ratio=ratio, seeds=seeds)] if self.curves else []
        self.ledger.claim(cid, text, paper_effect, cmp, crit, kind="paper", source=source, regime=self.regime,
                          validity=[*self.validity(a, b), *own, *validity],
                          note=f"{a} {self.seeds_of(a, col, seeds).mean():.3f}, {b} "
                               f"{self.seeds_of(b, col, seeds).mean():.3f}; {self.probe}"
                               + (f"; {note}" if note else ""))
        return cmp


def verdict_summary(ledger) -> pd.DataFrame:
    """The ledger's claims as the closing table of a notebook, computed (never typed): paper value, ours with its
    95 % interval where there is one, the verdict with its reason, the failed validity checks, and the regime."""
    rows = []
    for c in ledger.claims:
        st = c.get("stats") or {}
        ci = st.get("ci")
        failed = [v["name"] for v in c.get("validity", ()) if not v["passed"]]
        rows.append({"id": c["id"], "kind": c["kind"], "paper": c.get("paper_value"), "ours": c.get("ours"),
                     "95 % CI": f"[{ci[0]:+.3g}, {ci[1]:+.3g}]" if ci else "",
                     "verdict": c["verdict"], "reason": c.get("reason", ""),
                     "failed checks": ", ".join(failed), "regime": c.get("regime", "")})
    return pd.DataFrame(rows).set_index("id")
