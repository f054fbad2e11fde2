r"""The similarity zoo (``notebooks/synthesis/01-similarity-zoo``): eight objectives of the five papers on ONE setup.

"One setup" = one backbone (all-MiniLM-L6-v2 in the ``cpu`` profile), one trainable part (the top ``n_top`` layers,
:class:`companion.upper.UpperEncoder`), one budget (steps, batch size, learning rate, schedule, seeds) and one
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

The module also holds the paired statistics of the zoo table (:func:`paired_comparisons`, :func:`holm`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

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
                          dict(w_cos=1.0, w_ibn=1.0, w_angle=1.0, positive_threshold=4.0)),
    "SupCon": ZooObjective("SupCon", "emolit", "Vock et al. Def. 3.1 with Hard SupCon weights",
                           dict(tau=0.1)),
    "Soft SupCon": ZooObjective("Soft SupCon", "emolit", "Vock et al. Def. 3.1 with Soft SupCon weights",
                                dict(tau=0.1, eps=0.01)),
    "CircularCSE": ZooObjective("CircularCSE", "emolit", "circumplex paper Eq. 9", dict(margin=0.0)),
}


# --------------------------------------------------------------------------------------------- data
@dataclass
class ZooData:
    """The three training sources: unlabelled sentences, graded pairs (:class:`companion.pairs.PairData`) and
    labelled sentences (ECM label names)."""

    wiki: list[str]
    stsb: Any  # companion.pairs.PairData
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
    from .training import index_batches

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
        from .losses.simace import dropout_view_loss

        return dropout_view_loss(embed, data.wiki, p["objective"], p["tau"], p["margin_deg"])
    if spec.data == "stsb":
        from .losses.angle import AnglEObjective
        from .pairs import pair_loss_fn

        objective = AnglEObjective(p["w_cos"], p["w_ibn"], p["w_angle"],
                                   positive_threshold=p.get("positive_threshold"))
        return pair_loss_fn(embed, objective, data.stsb)
    from .losses.circumplex import circular_cse_loss
    from .losses.weighted import cosine_similarities, soft_supcon_weights, supcon_weights, weighted_infonce

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

    ``sts``: ``{set: (s1, s2, gold)}`` (:func:`companion.upper.sts_pairs_subset`); ``align``: positive pairs
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


def evaluate(encode: Callable[[list[str]], torch.Tensor], suite: EvalSuite, kmeans_seed: int = 0
             ) -> dict[str, float]:
    """The zoo's evaluation of one model, from one ``encode(texts) -> N x d`` call over :meth:`EvalSuite.texts`.

    Keys: one Spearman x 100 per STS set and ``avg`` (:func:`companion.upper.evaluate_pairs`); ``align``
    (Wang & Isola Eq. 4), ``uniform`` (Eq. 5), ``anisotropy`` (Ethayarajh 2019), ``erank`` (Roy & Vetterli 2007)
    (:mod:`companion.metrics.geometry`); ``V`` (spherical k-means V-Measure, circumplex paper §4.2), ``CD-r``
    (circumplex paper §4.2) and ``between_cos`` (mean AvgCosSim between different labels) on the labelled texts.
    """
    from .metrics.circumplex import avg_cos_sim, circumplex_scores
    from .metrics.clustering import v_measure
    from .metrics.geometry import alignment, anisotropy, effective_rank, uniformity
    from .upper import evaluate_pairs

    get = lookup_encoder(encode, suite.texts())
    out = dict(evaluate_pairs(get, suite.sts))
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


# --------------------------------------------------------------------------------------------- statistics
def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (step-down, monotone, capped at 1); NaN entries stay NaN and do not count
    towards the number of tests."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full_like(p, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = len(ok)
    if m == 0:
        return out
    if bool(((p[ok] < 0) | (p[ok] > 1)).any()):
        raise ValueError("p-values must lie in [0, 1].")
    order = ok[np.argsort(p[ok], kind="stable")]
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def paired_test(diffs: Sequence[float]) -> dict[str, float]:
    """Paired tests of per-seed differences ``a - b``: mean, wins (``a > b``), paired t-test (= one-sample t-test of
    the differences, df = n - 1) and two-sided Wilcoxon signed-rank test (exact; with n = 3 its smallest possible
    p is 0.25). Undefined tests (n < 2, all differences equal, all zero) give NaN."""
    from scipy import stats

    d = np.asarray(list(diffs), dtype=float)
    if d.ndim != 1 or len(d) == 0 or not np.isfinite(d).all():
        raise ValueError(f"diffs must be a non-empty 1-D sequence of finite numbers, got {diffs!r}.")
    res = {"n": len(d), "mean_diff": float(d.mean()), "wins": int((d > 0).sum()), "t": math.nan, "p_t": math.nan,
           "p_wilcoxon": math.nan}
    if len(d) >= 2 and np.ptp(d) > 0:
        t = stats.ttest_1samp(d, 0.0)
        res["t"], res["p_t"] = float(t.statistic), float(t.pvalue)
    if len(d) >= 2 and bool((d != 0).any()):
        res["p_wilcoxon"] = float(stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)
    return res


def paired_comparisons(runs, metric: str, comparisons: Sequence[tuple[str, str]],
                       reference: dict[str, float] | None = None, alpha: float = 0.05):
    """Paired tests over seeds of ``metric`` for each ``(a, b)`` in ``comparisons``.

    ``runs``: a DataFrame with columns ``model``, ``seed`` and ``metric``. ``b`` may be ``"untrained"``: then
    ``reference[metric]`` (the single deterministic untrained value) is subtracted from every seed of ``a``.
    Adds Holm-adjusted t-test p-values over the listed comparisons and ``survives`` = adjusted p < ``alpha``.
    """
    import pandas as pd

    wide = runs.pivot(index="seed", columns="model", values=metric)
    rows = []
    for a, b in comparisons:
        if a not in wide:
            raise KeyError(f"no runs of {a!r}.")
        if b == "untrained":
            if reference is None or metric not in reference:
                raise ValueError(f"comparing with 'untrained' needs reference[{metric!r}].")
            diffs = wide[a] - float(reference[metric])
        else:
            if b not in wide:
                raise KeyError(f"no runs of {b!r}.")
            diffs = wide[a] - wide[b]
        rows.append({"metric": metric, "comparison": f"{a} - {b}", **paired_test(diffs.to_numpy()),
                     "per_seed": np.round(diffs.to_numpy(), 3).tolist()})
    frame = pd.DataFrame(rows)
    frame["p_holm"] = holm(frame["p_t"].to_numpy())
    frame["survives"] = frame["p_holm"] < alpha
    return frame
