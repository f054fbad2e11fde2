r"""The similarity zoo (``notebooks/synthesis/01-similarity-zoo``): eight objectives of the five papers on ONE setup.

"One setup" = one backbone (all-MiniLM-L6-v2 in the ``cpu`` profile), one trainable part (the top ``n_top`` layers,
:class:`companion.encoders.upper.UpperEncoder`), one budget (steps, batch size, learning rate, schedule, seeds) and one
evaluation suite (:func:`evaluate`). Each objective trains on its *natural* data:

===============  =======  =====================================================================================
objective        data     loss (no new loss code: every one is a call into :mod:`companion.losses`)
===============  =======  =====================================================================================
SimCSE           wiki     :func:`~companion.losses.simace.simcse_loss` (cosine InfoNCE; SimACE Eq. 1), two
                          dropout views
SimACE           wiki     :func:`~companion.losses.simace.simace_loss` (SimACE Eq. 9, angle logits, margin)
ArcCon           wiki     :func:`~companion.losses.simace.arccon_loss` (ArcCSE's additive angular margin)
CoSENT           STS-B    :class:`~companion.losses.angle.AnglEObjective` with weights (1, 0, 0) (AnglE Eq. 1)
AnglE            STS-B    :class:`~companion.losses.angle.AnglEObjective` (1, 1, 1): CoSENT + in-batch negatives
                          + angle (AnglE Eq. 1, 2, 7; §3.5)
SupCon           Emolit   :func:`~companion.losses.weighted.weighted_infonce` with
                          :func:`~companion.losses.weighted.supcon_weights` (Vock et al. Def. 3.1, §3.5)
Soft SupCon      Emolit   the same with :func:`~companion.losses.weighted.soft_supcon_weights` (Vock et al. §3.5)
CircularCSE      Emolit   :func:`~companion.losses.circumplex.circular_cse_loss` (circumplex paper Eq. 9)
===============  =======  =====================================================================================

A training *batch* holds ``batch_size`` examples of the objective's data: sentences (embedded twice, two dropout
views), STS-B pairs (both sides embedded, AnglE's interleaved layout) or labelled Emolit sentences drawn
class-balanced by :func:`balanced_batches` (``batch_size / 12`` per label, so that every SupCon anchor has a
positive). Only the batch contents differ between objectives; the optimiser, steps and seeds do not.

The zoo's paired comparisons over seeds (:func:`compare`, :func:`paired_comparisons`, :func:`holm_direction`) and
the validity checks of its runs (:func:`trained_check`, :func:`plateau_check`) are thin shapers around
:mod:`companion.stats`. Every run also records how far it moved off the untrained encoder on the STS pairs
(:func:`movement_reference`, :func:`run_movement`), the record
:func:`companion.papers.angle.experiments.moved_validity` reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch

from companion import stats
from companion.dropout_views import dropout_view_loss
from companion.losses.angle import AnglEObjective
from companion.losses.circumplex import circular_cse_loss
from companion.losses.weighted import (
    cosine_similarities,
    soft_supcon_weights,
    supcon_weights,
    weighted_infonce,
)
from companion.metrics.clustering import v_measure
from companion.metrics.geometry import alignment, anisotropy, effective_rank, uniformity
from companion.papers.angle.pairs import bootstrap_se, movement, pair_loss_fn
from companion.papers.circumplex.geometry import avg_cos_sim, circumplex_scores
from companion.papers.tables import paper_table
from companion.sts import score_pairs
from companion.training import index_batches

DATA_KINDS = ("wiki", "stsb", "emolit")


@dataclass(frozen=True)
class ZooObjective:
    """One row of the zoo: its name, training data kind, source paper and hyper-parameters."""

    name: str
    data: str
    paper: str
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.data not in DATA_KINDS:
            raise ValueError(f"data must be one of {', '.join(DATA_KINDS)}, got {self.data!r}.")


#: The eight objectives with the hyper-parameters of their papers (temperatures, margins in degrees, weights).
OBJECTIVES: dict[str, ZooObjective] = {
    "SimCSE": ZooObjective("SimCSE", "wiki", "SimCSE (Gao et al. 2021; SimACE Eq. 1)",
                           dict(objective="simcse", tau=0.05, margin_deg=0.0)),
    "SimACE": ZooObjective("SimACE", "wiki", "SimACE Eq. 9 (Table 7: tau 0.06, m = 10 deg)",
                           dict(objective="simace", tau=0.06, margin_deg=10.0)),
    "ArcCon": ZooObjective("ArcCon", "wiki", "ArcCSE (Zhang et al. 2022), SimACE baseline",
                           dict(objective="arccon", tau=0.05, margin_deg=10.0)),
    "CoSENT": ZooObjective("CoSENT", "stsb", "AnglE Eq. 1 (CoSENT)",
                           dict(w_cos=1.0, w_ibn=0.0, w_angle=0.0)),
    "AnglE": ZooObjective("AnglE", "stsb", "AnglE §3.5: Eq. 1 + Eq. 2 + Eq. 7, weights 1/1/1",
                          dict(w_cos=1.0, w_ibn=1.0, w_angle=1.0, positive_threshold=4.0, positives="sum")),
    "SupCon": ZooObjective("SupCon", "emolit", "Vock et al. Def. 3.1 with Hard SupCon weights",
                           dict(tau=0.1)),
    "Soft SupCon": ZooObjective("Soft SupCon", "emolit", "Vock et al. Def. 3.1 with Soft SupCon weights",
                                dict(tau=0.1, eps=0.01)),
    "CircularCSE": ZooObjective("CircularCSE", "emolit", "circumplex paper Eq. 9", dict(margin=0.0)),
}


# --------------------------------------------------------------------------------------------- data
@dataclass
class ZooData:
    """The three training sources: unlabelled sentences, graded pairs (:class:`companion.papers.angle.pairs.PairData`) and
    labelled sentences (ECM label names)."""

    wiki: list[str]
    stsb: Any  # companion.papers.angle.pairs.PairData
    emolit_texts: list[str]
    emolit_labels: list[str]

    def __post_init__(self):
        if len(self.emolit_texts) != len(self.emolit_labels):
            raise ValueError(f"emolit_texts and emolit_labels differ in length: {len(self.emolit_texts)} vs "
                             f"{len(self.emolit_labels)}.")

    def size(self, kind: str) -> int:
        return {"wiki": len(self.wiki), "stsb": len(self.stsb), "emolit": len(self.emolit_texts)}[kind]

    def texts(self, kind: str, idx: torch.Tensor) -> list[str]:
        """Every text a batch of ``kind`` embeds (for precomputing lower states)."""
        ids = [int(i) for i in idx]
        if kind == "wiki":
            return [self.wiki[i] for i in ids]
        if kind == "stsb":
            return self.stsb.batch(idx).texts
        return [self.emolit_texts[i] for i in ids]


def balanced_batches(labels: Sequence, per_class: int, seed: int, epochs: int | None = None
                     ) -> Iterator[torch.Tensor]:
    """Class-balanced index batches: every batch holds exactly ``per_class`` indices of EVERY label.

    Per epoch each label's indices are shuffled (``torch.Generator`` seeded with ``seed``) and cut into chunks of
    ``per_class``; batch *b* joins the *b*-th chunk of every label, shuffled. An epoch has
    ``min_label_count // per_class`` batches (no index repeats within an epoch). ``epochs=None`` runs forever.
    """
    if isinstance(labels, str):
        raise TypeError("labels must be a sequence of labels, not a single string.")
    labels = np.asarray(list(labels), dtype=object)
    if len(labels) == 0:
        raise ValueError("labels is empty.")
    if not isinstance(per_class, int) or isinstance(per_class, bool) or per_class < 1:
        raise ValueError(f"per_class must be an int >= 1, got {per_class!r}.")
    classes = sorted(set(labels.tolist()), key=str)
    rows = [torch.as_tensor(np.flatnonzero(labels == c)) for c in classes]
    smallest = min(len(r) for r in rows)
    if smallest < per_class:
        worst = classes[int(np.argmin([len(r) for r in rows]))]
        raise ValueError(f"label {worst!r} has {smallest} example(s), fewer than per_class={per_class}.")
    n_batches = smallest // per_class
    generator = torch.Generator().manual_seed(seed)
    epoch = 0
    while epochs is None or epoch < epochs:
        perms = [r[torch.randperm(len(r), generator=generator)] for r in rows]
        for b in range(n_batches):
            batch = torch.cat([p[b * per_class:(b + 1) * per_class] for p in perms])
            yield batch[torch.randperm(len(batch), generator=generator)]
        epoch += 1


def batches(kind: str, data: ZooData, batch_size: int, seed: int) -> Iterator[torch.Tensor]:
    """The endless batch stream of a data kind for ``seed`` (the same for every objective on that data)."""
    if kind == "emolit":
        n_classes = len(set(data.emolit_labels))
        if batch_size % n_classes:
            raise ValueError(f"Emolit batches are class-balanced: batch_size {batch_size} must be a multiple of "
                             f"the {n_classes} labels.")
        return balanced_batches(data.emolit_labels, batch_size // n_classes, seed)
    if kind not in DATA_KINDS:
        raise ValueError(f"kind must be one of {', '.join(DATA_KINDS)}, got {kind!r}.")
    return index_batches(data.size(kind), batch_size, seed=seed, epochs=None)


# --------------------------------------------------------------------------------------------- losses
def loss_fn(name: str, embed: Callable[[list[str]], torch.Tensor], data: ZooData, **overrides
            ) -> Callable[[torch.Tensor], torch.Tensor]:
    """The ``loss_fn(index_batch)`` closure of objective ``name`` for :func:`companion.training.train`.

    ``embed`` maps texts to differentiable embeddings (e.g. :meth:`UpperEncoder.embed` in training mode);
    ``overrides`` replace the objective's hyper-parameters (:data:`OBJECTIVES`)."""
    if name not in OBJECTIVES:
        raise ValueError(f"Unknown zoo objective {name!r}; choose one of {', '.join(OBJECTIVES)}.")
    spec = OBJECTIVES[name]
    unknown = sorted(set(overrides) - set(spec.params))
    if unknown:
        raise ValueError(f"{name} has no hyper-parameter(s) {unknown}; it has {sorted(spec.params)}.")
    p = {**spec.params, **overrides}
    if spec.data == "wiki":
        return dropout_view_loss(embed, data.wiki, p["objective"], p["tau"], p["margin_deg"])
    if spec.data == "stsb":
        objective = AnglEObjective(p["w_cos"], p["w_ibn"], p["w_angle"],
                                   positive_threshold=p.get("positive_threshold"), positives=p.get("positives", "sum"))
        return pair_loss_fn(embed, objective, data.stsb)

    classes = {c: i for i, c in enumerate(sorted(set(data.emolit_labels)))}

    def emolit_loss(idx: torch.Tensor) -> torch.Tensor:
        ids = [int(i) for i in idx]
        texts = [data.emolit_texts[i] for i in ids]
        labels = [data.emolit_labels[i] for i in ids]
        z = embed(texts)
        if name == "CircularCSE":
            return circular_cse_loss(z, labels, margin=p["margin"])
        y = torch.tensor([classes[x] for x in labels])
        W = supcon_weights(y) if name == "SupCon" else soft_supcon_weights(y, p["eps"])
        return weighted_infonce(W, cosine_similarities(z, p["tau"]))

    return emolit_loss


# --------------------------------------------------------------------------------------------- evaluation
@dataclass
class EvalSuite:
    """The fixed evaluation texts, identical for every model.

    ``sts``: ``{set: (s1, s2, gold)}`` (:func:`companion.sts.sts_pairs_subset`); ``align``: positive pairs
    ``(a, b)`` (STS-B dev, gold > 4); ``sample``: texts for uniformity, anisotropy and effective rank;
    ``emolit_texts`` / ``emolit_labels``: labelled test sentences for V-Measure, CD-r and between-label cosine."""

    sts: dict[str, tuple[list[str], list[str], np.ndarray]]
    align: tuple[list[str], list[str]]
    sample: list[str]
    emolit_texts: list[str]
    emolit_labels: list[str]

    def __post_init__(self):
        if len(self.align[0]) != len(self.align[1]) or not self.align[0]:
            raise ValueError("align needs two equally long, non-empty lists of texts.")
        if len(self.sample) < 2:
            raise ValueError("sample needs at least 2 texts (uniformity and anisotropy use pairs).")
        if len(self.emolit_texts) != len(self.emolit_labels):
            raise ValueError("emolit_texts and emolit_labels differ in length.")

    def texts(self) -> list[str]:
        """Every distinct text of the suite, in first-seen order."""
        every = [t for s1, s2, _ in self.sts.values() for t in (*s1, *s2)]
        return list(dict.fromkeys(every + self.align[0] + self.align[1] + self.sample + self.emolit_texts))


def lookup_encoder(encode: Callable[[list[str]], torch.Tensor], texts: Sequence[str]
                   ) -> Callable[[Sequence[str]], torch.Tensor]:
    """Encode ``texts`` once; the returned function serves any of them (rows in the order asked)."""
    texts = list(dict.fromkeys(texts))
    emb = encode(texts)
    index = {t: i for i, t in enumerate(texts)}

    def lookup(batch: Sequence[str]) -> torch.Tensor:
        missing = [t for t in batch if t not in index]
        if missing:
            raise KeyError(f"{len(missing)} text(s) were not encoded, e.g. {missing[0][:60]!r}.")
        return emb[torch.tensor([index[t] for t in batch], dtype=torch.long)]

    return lookup


def evaluate(encode: Callable[[list[str]], torch.Tensor], suite: EvalSuite, kmeans_seed: int = 0,
             keep: dict | None = None) -> dict[str, float]:
    """The zoo's evaluation of one model, from one ``encode(texts) -> N x d`` call over :meth:`EvalSuite.texts`.

    Keys: one Spearman x 100 per STS set and ``avg`` (:func:`companion.sts.score_pairs`); ``align``
    (Wang & Isola Eq. 4), ``uniform`` (Eq. 5), ``anisotropy`` (Ethayarajh 2019), ``erank`` (Roy & Vetterli 2007)
    (:mod:`companion.metrics.geometry`); ``V`` (spherical k-means V-Measure, circumplex paper §4.2), ``CD-r``
    (circumplex paper §4.2) and ``between_cos`` (mean AvgCosSim between different labels) on the labelled texts.
    ``keep`` (a dict), when given, receives ``keep["sts"]``: the embeddings of :func:`sts_texts` (for
    :func:`movement_reference` / :func:`run_movement`).
    """
    get = lookup_encoder(encode, suite.texts())
    if keep is not None:
        keep["sts"] = get(sts_texts(suite)).detach().float().cpu()
    out = dict(score_pairs(get, suite.sts, average=True))
    out["align"] = alignment(get(suite.align[0]), get(suite.align[1]))
    sample = get(suite.sample)
    out["uniform"] = uniformity(sample)
    out["anisotropy"] = anisotropy(sample)
    out["erank"] = effective_rank(sample)
    emo = get(suite.emolit_texts)
    out["V"] = v_measure(emo, suite.emolit_labels, seed=kmeans_seed)
    out["CD-r"] = circumplex_scores(emo, suite.emolit_labels)["CD-r"]
    mat, _ = avg_cos_sim(emo, suite.emolit_labels)
    out["between_cos"] = float(mat[~np.eye(len(mat), dtype=bool)].mean())
    return out



def evaluate_layers(evaluator, suite: EvalSuite, model=None, kmeans_seed: int = 0,
                    keep: dict | None = None) -> dict[str, float]:
    """:func:`evaluate` through ``evaluator`` (an :class:`~companion.encoders.upper.UpperEncoder` at the evaluation
    length), after copying ``model``'s trained top layers into it (``model=None``: as it is, e.g. untrained).
    ``evaluator`` is left in eval mode holding ``model``'s layers; ``keep`` as in :func:`evaluate`."""
    if model is not None:
        evaluator.layers.load_state_dict(model.layers.state_dict())
    evaluator.eval()
    return evaluate(evaluator.encode, suite, kmeans_seed=kmeans_seed, keep=keep)


def sts_texts(suite: EvalSuite) -> list[str]:
    """Every distinct sentence of the suite's STS pairs, in first-seen order."""
    return list(dict.fromkeys(t for s1, s2, _ in suite.sts.values() for t in (*s1, *s2)))


def movement_reference(untrained: dict[str, float], kept: dict, suite: EvalSuite) -> dict:
    """The untrained side of every run's movement record on the suite's STS pairs, in the form
    :func:`companion.papers.angle.pairs.movement` reads: the untrained ``scores`` per STS set (``untrained``, from
    :func:`evaluate`), ``se``, per set, the bootstrap standard error of that score over resamples of the pairs
    (:func:`companion.papers.angle.pairs.bootstrap_se`), and ``emb``, the untrained embeddings of
    :func:`sts_texts` (``kept["sts"]``, from the same :func:`evaluate` call)."""
    emb = kept["sts"]
    index = {t: i for i, t in enumerate(sts_texts(suite))}
    if emb.shape[0] != len(index):
        raise ValueError(f"kept['sts'] holds {emb.shape[0]} embeddings for {len(index)} STS sentences.")
    unit = torch.nn.functional.normalize(emb.double(), dim=-1)
    se = {}
    for name, (s1, s2, gold) in suite.sts.items():
        a, b = unit[[index[t] for t in s1]], unit[[index[t] for t in s2]]
        se[name] = bootstrap_se((a * b).sum(-1).numpy(), np.asarray(gold, dtype=float))
    return {"scores": {name: float(untrained[name]) for name in suite.sts}, "se": se, "emb": emb}


def run_movement(reference: dict, scores: dict[str, float], kept: dict) -> dict[str, float]:
    """How far one run moved off the untrained encoder on the STS pairs (:func:`companion.papers.angle.pairs.movement`
    against :func:`movement_reference`): ``score_change`` (trained − untrained Spearman x 100, mean over the sets),
    ``score_noise`` (1.96 bootstrap standard errors of the untrained mean) and ``drift`` (mean 1 − cos between the
    untrained and the trained embedding of each STS sentence); ``scores`` and ``kept`` from the run's
    :func:`evaluate` call."""
    record = movement(reference, scores, kept["sts"])
    return {k: float(record[k]) for k in ("score_change", "score_noise", "drift")}


#: the metrics the zoo table shows with three decimals (the others, Spearman x 100 and effective rank, with two)
THREE_DECIMALS = ("align", "uniform", "anisotropy", "V", "CD-r", "between_cos")


def zoo_table(runs, untrained: dict[str, float], columns: Sequence[str], names: Sequence[str]):
    """The zoo table: one row per objective of ``names`` (``"mean ± std"`` over the seeds of ``runs``, the mean
    alone with one seed) under an ``untrained MiniLM`` row (``untrained``'s values), a ``data`` column first
    (each objective's training data kind, from :data:`OBJECTIVES`)."""
    columns = list(columns)
    mean = runs.groupby("model", sort=False)[columns].mean()
    std = runs.groupby("model", sort=False)[columns].std(ddof=1)
    digits = {c: 3 if c in THREE_DECIMALS else 2 for c in columns}
    cell = lambda m, s, d: f"{m:.{d}f} ± {s:.{d}f}" if np.isfinite(s) else f"{m:.{d}f}"  # noqa: E731
    table = pd.DataFrame({c: [cell(mean.loc[n, c], std.loc[n, c], digits[c]) for n in names] for c in columns},
                         index=list(names))
    table.loc["untrained MiniLM"] = [f"{untrained[c]:.{digits[c]}f}" for c in columns]
    table.insert(0, "data", [OBJECTIVES[n].data for n in names] + ["-"])
    return table.loc[["untrained MiniLM"] + list(names)]

# --------------------------------------------------------------------------------------------- statistics
# The zoo's comparisons are paired over seeds and go through companion.stats (one statistics module): this section
# only shapes the runs table into per-seed values and applies stats.paired / stats.sample / stats.holm.
UNTRAINED = "untrained"


def seed_differences(runs, metric: str, a: str, b: str, reference: dict[str, float] | None = None) -> np.ndarray:
    """Per-seed ``metric`` of ``a`` minus ``b`` (same seed), seeds in ascending order.

    ``runs``: a DataFrame with columns ``model``, ``seed`` and ``metric``. ``b`` may be ``"untrained"``: then
    ``reference[metric]`` (the single deterministic untrained value) is subtracted from every seed of ``a``.
    """
    wide = runs.pivot(index="seed", columns="model", values=metric).sort_index()
    if a not in wide:
        raise KeyError(f"no runs of {a!r}.")
    if b == UNTRAINED:
        if reference is None or metric not in reference:
            raise ValueError(f"comparing with 'untrained' needs reference[{metric!r}].")
        return (wide[a] - float(reference[metric])).to_numpy(dtype=float)
    if b not in wide:
        raise KeyError(f"no runs of {b!r}.")
    return (wide[a] - wide[b]).to_numpy(dtype=float)


def compare(runs, metric: str, a: str, b: str, reference: dict[str, float] | None = None,
            confidence: float = 0.95) -> stats.Comparison:
    """:class:`companion.stats.Comparison` of ``a − b`` over seeds: :func:`companion.stats.paired` for two trained
    objectives (same seeds), :func:`companion.stats.sample` of the differences against the one untrained value."""
    if b == UNTRAINED:
        return stats.sample(seed_differences(runs, metric, a, b, reference), confidence)
    wide = runs.pivot(index="seed", columns="model", values=metric).sort_index()
    seed_differences(runs, metric, a, b, reference)  # the same checks and messages
    return stats.paired(wide[a].to_numpy(dtype=float), wide[b].to_numpy(dtype=float), confidence, labels=(a, b))


def paired_comparisons(runs, metric: str, comparisons: Sequence[tuple[str, str]],
                       reference: dict[str, float] | None = None, alpha: float = 0.05):
    """One row per ``(a, b)`` in ``comparisons``: mean of ``a − b`` over seeds, its 95 % CI, the per-seed values,
    wins (seeds with ``a > b``), the paired t-test p-value of :func:`compare`, the minimum detectable effect of the
    design at 80 % power (:attr:`companion.stats.Comparison.mde`) and the Holm-adjusted t p-values over the listed
    comparisons (:func:`companion.stats.holm`; a comparison without a p-value, one seed, counts as p = 1);
    ``survives`` = adjusted p < ``alpha``. No signed-rank test: below :data:`companion.stats.WILCOXON_MIN_N` seeds it
    cannot reject, and the zoo runs fewer."""
    rows = []
    for a, b in comparisons:
        cmp = compare(runs, metric, a, b, reference)
        rows.append({"metric": metric, "comparison": f"{a} - {b}", "n": cmp.n, "mean_diff": cmp.estimate,
                     "ci_low": cmp.ci[0] if cmp.ci else math.nan, "ci_high": cmp.ci[1] if cmp.ci else math.nan,
                     "wins": int(sum(v > 0 for v in cmp.values)),
                     "p_t": cmp.p if cmp.p is not None else math.nan,
                     "mde": cmp.mde if cmp.mde is not None else math.nan,
                     "per_seed": [round(v, 3) for v in cmp.values]})
    frame = pd.DataFrame(rows)
    frame["p_holm"] = stats.holm([1.0 if math.isnan(p) else p for p in frame["p_t"]]) if len(frame) else []
    frame["survives"] = frame["p_holm"] < alpha
    return frame


def holm_direction(p_holm: float, *, family: int, sign: int | None = None, paper_effect: float | None = None,
                   alpha: float = 0.05) -> stats.Criterion:
    """The verdict rule of a zoo claim: :func:`companion.stats.direction` (the ordering ``sign``, or the source
    paper's printed difference ``paper_effect``, on the 95 % CI over seeds), except that a CI which excludes zero —
    on either side — while its paired t-test does not survive Holm over the ``family`` of zoo claims
    (``p_holm >= alpha``) is *inconclusive*. The criterion's text depends on the rule, ``family`` and ``alpha``
    only, never on ``p_holm`` (a measured number: it is read when the claim is judged)."""
    base = stats.direction(paper_effect, sign=sign)
    desc = (f"{base.description}; a CI that excludes 0 while its paired t-test does not survive Holm over the "
            f"{family} zoo claims (adjusted p >= {alpha:g}): inconclusive")

    def rule(ours):
        judged = base.judge(ours)
        if ours.ci is not None and ours.excludes_zero() != 0 and p_holm >= alpha:
            return stats.Judgement("inconclusive", f"the 95 % CI excludes 0 (paired t p = {ours.p:.3g}) but the test "
                                                   f"does not survive Holm over the {family} zoo claims (adjusted p "
                                                   f"= {p_holm:.3g})")
        return judged

    return stats.Criterion(desc, rule, name="holm_direction",
                           params={**base.params, "family": int(family), "alpha": float(alpha)})


# --------------------------------------------------------------------------------------------- validity
def loss_matrix(runs, name: str) -> np.ndarray:
    """The per-step training losses of objective ``name``, one row per seed (seeds ascending): ``runs`` holds a
    ``losses`` column (each run's list of per-step losses)."""
    sub = runs[runs["model"] == name].sort_values("seed")
    if sub.empty:
        raise KeyError(f"no runs of {name!r}.")
    curves = [list(map(float, c)) for c in sub["losses"]]
    if len({len(c) for c in curves}) != 1 or len(curves[0]) < 3:
        raise ValueError(f"{name}: every run needs the same number (>= 3) of recorded losses.")
    return np.asarray(curves)


def trained_check(runs, names: Sequence[str]) -> stats.Validity:
    """``trained``: the one rule of :func:`companion.stats.validity.trained` on every seed's training-loss curve of
    each objective of ``names`` (its last third against its first, beyond two standard errors of its own scatter)."""
    parts, ok = [], True
    for name in names:
        L = loss_matrix(runs, name)
        frame = pd.DataFrame([{"run": name, "seed": i, "step": k, "value": v}
                              for i, row in enumerate(L) for k, v in enumerate(row)])
        check = stats.validity.trained(frame, what=f"{name} training loss")
        ok &= check.passed
        parts.append(check.detail)
    return stats.Validity("trained", bool(ok), "; ".join(parts))


def plateau_check(runs, names: Sequence[str]) -> stats.Validity:
    """``plateau``: :func:`companion.stats.plateau` of each objective's training loss, averaged over the seeds — the
    slope over the last third of the steps has a CI covering 0 (the loss has stopped moving at the end of the
    budget). Passes only when every objective of ``names`` passes."""
    parts, ok = [], True
    for name in names:
        L = loss_matrix(runs, name)
        check = stats.plateau(np.arange(1, L.shape[1] + 1), L.mean(0))
        ok &= check.passed
        parts.append(f"{name}: {check.detail}")
    return stats.Validity("plateau", bool(ok), "; ".join(parts))


# --------------------------------------------------------------------------------------------- source papers
def source_differences() -> dict[tuple[str, str], tuple[float, str]]:
    """The differences A − B the source papers print for the zoo's orderings on the same kind of number (Spearman x
    100 on STS), read from the transcribed tables: SimACE's Table 1 (BERT-base, the seven-set average: SimACE vs
    SimCSE and vs ArcCon) and AnglE's Table 4 (STS-B test: all three objectives vs the cosine objective alone, our
    CoSENT). Keys ``(A, B)``, values ``(difference, source)``."""
    t1 = paper_table("simace", "table1", parse=True)
    base = t1[t1["PLMs"] == "BERT-base"].set_index("Method")["Avg."].astype(float)
    t4 = paper_table("angle", "table4", parse=True)
    objective = t4[t4["group"] == "Objective"].set_index("our_key")["Spearman’s Correlation"].astype(float)
    simace, simcse, arccon = base["SimACE [*]"], base["SimCSE [♣]"], base["ArcCon [*]"]
    every, cosine = objective["all"], objective["only cosine"]
    return {("SimACE", "SimCSE"): (float(round(simace - simcse, 4)), f"simace | Table 1, BERT-base Avg.: {simace:.2f} - "
                                                               f"{simcse:.2f}"),
            ("SimACE", "ArcCon"): (float(round(simace - arccon, 4)), f"simace | Table 1, BERT-base Avg.: "
                                                                          f"{simace:.2f} - {arccon:.2f}"),
            ("AnglE", "CoSENT"): (float(round(every - cosine, 4)), f"angle | Table 4: {every:.2f} - {cosine:.2f}")}
