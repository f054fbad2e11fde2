"""Comparisons over seeds: paired differences and levels with Student-t intervals, the t and Wilcoxon tests,
Holm's correction, the minimum detectable effect and the sample size for a power, and the hierarchical
bootstrap over seeds and test items. The verdict rules that read them are in :mod:`companion.stats.verdicts`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as _sp
from scipy.optimize import brentq

#: Below six values the exact signed-rank test cannot reach p < 0.05 (its smallest two-sided p at n = 5 is 0.0625):
#: it is not reported.
WILCOXON_MIN_N = 6
#: Power the minimum detectable effect is computed for (:func:`mde`).
POWER = 0.8


# --------------------------------------------------------------------------------------------- comparisons
@dataclass(frozen=True)
class Comparison:
    """Per-seed values (differences for :func:`paired`, levels for :func:`sample`) and their summary.

    ``ci`` is a two-sided Student-t interval at ``confidence``; ``p`` the two-sided t-test p-value against 0
    (paired t for :func:`paired`); ``p_wilcoxon`` the exact Wilcoxon signed-rank p-value (None below 2 values or when
    all values are 0). With one value ``sd``, ``ci`` and ``p`` are None.
    """

    values: tuple[float, ...]
    estimate: float
    sd: float | None
    ci: tuple[float, float] | None
    confidence: float
    n: int
    test: str
    p: float | None
    p_wilcoxon: float | None
    labels: tuple[str, str] | None = field(default=None)
    #: the interval over seeds *and* test items (:func:`hierarchical_bootstrap`), where items were resampled
    ci_items: tuple[float, float] | None = field(default=None)

    @property
    def mde(self) -> float | None:
        """Minimum detectable effect of this design at :data:`POWER` (two-sided, at ``confidence``): the smallest
        true mean difference a one-sample t-test over these ``n`` values detects with that power, given their
        observed spread, ``(t_{1-α/2, n-1} + t_{power, n-1}) · sd / √n``. None with fewer than two values."""
        return mde(self.sd, self.n, self.confidence) if self.sd is not None else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The interval the verdict reads: over seeds and items where both were resampled, else over seeds."""
        if self.ci is None or self.ci_items is None:
            return self.ci
        return (min(self.ci[0], self.ci_items[0]), max(self.ci[1], self.ci_items[1]))

    def excludes_zero(self) -> int:
        """+1 if the interval (:attr:`interval`) lies above 0, -1 if below, 0 if it covers 0 (or there is none)."""
        if self.interval is None:
            return 0
        lo, hi = self.interval
        return 1 if lo > 0 else (-1 if hi < 0 else 0)

    def covers(self, value: float) -> bool:
        return self.interval is not None and self.interval[0] <= value <= self.interval[1]

    def to_dict(self) -> dict[str, Any]:
        """The ``stats`` record of a ledger claim (floats rounded to 6 significant digits by the ledger)."""
        out: dict[str, Any] = {"estimate": self.estimate, "sd": self.sd,
                               "ci": list(self.ci) if self.ci is not None else None,
                               "confidence": self.confidence, "n": self.n, "test": self.test, "p": self.p,
                               "p_wilcoxon": self.p_wilcoxon, "values": list(self.values), "mde": self.mde}
        if self.ci_items is not None:
            out["ci_items"] = list(self.ci_items)
        if self.labels is not None:
            out["labels"] = list(self.labels)
        return out

    def __float__(self) -> float:
        return float(self.estimate)

    def __str__(self) -> str:
        if self.ci is None:
            return f"{self.estimate:+.4g} (n = {self.n}, no CI)"
        return (f"{self.estimate:+.4g} [{self.ci[0]:+.4g}, {self.ci[1]:+.4g}] "
                f"({round(100 * self.confidence)} % CI, n = {self.n}, p = {self.p:.3g})")


def _as_values(values: Any, what: str) -> np.ndarray:
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    try:
        arr = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"{what} needs numbers, got {values!r}") from None
    if arr.size == 0:
        raise ValueError(f"{what} got no values")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} got a non-finite value: {arr.tolist()}")
    return arr


def _summary(diffs: np.ndarray, confidence: float, test: str,
             labels: tuple[str, str] | None = None) -> Comparison:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    n = int(diffs.size)
    estimate = float(diffs.mean())
    if n < 2:
        return Comparison(tuple(float(v) for v in diffs), estimate, None, None, confidence, n, test, None, None,
                          labels)
    sd = float(diffs.std(ddof=1))
    if sd == 0.0:  # every seed gives the same value: the interval is a point, the t-test is degenerate
        ci = (estimate, estimate)
        p = 1.0 if estimate == 0 else 0.0
    else:
        half = float(_sp.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
        ci = (estimate - half, estimate + half)
        p = float(2 * _sp.t.sf(abs(estimate) / (sd / math.sqrt(n)), n - 1))
    p_w = None
    if n >= WILCOXON_MIN_N and np.any(diffs != 0):
        p_w = float(_sp.wilcoxon(diffs, zero_method="wilcox", alternative="two-sided").pvalue)
    return Comparison(tuple(float(v) for v in diffs), estimate, sd, ci, confidence, n, test, p, p_w, labels)


def paired(a: Sequence[float], b: Sequence[float], confidence: float = 0.95,
           labels: tuple[str, str] | None = None) -> Comparison:
    """Per-seed differences ``a[i] − b[i]`` (the same seeds, in the same order) with a t interval and tests.

    >>> cmp = paired([1.0, 2.0, 3.0], [0.5, 1.0, 2.0])
    >>> round(cmp.estimate, 4), cmp.n
    (0.8333, 3)
    """
    a_, b_ = _as_values(a, "paired(a)"), _as_values(b, "paired(b)")
    if a_.shape != b_.shape:
        raise ValueError(f"paired() needs one value per seed on both sides, got {a_.size} and {b_.size}")
    return _summary(a_ - b_, confidence, "paired t (two-sided); Wilcoxon signed-rank", labels)


def sample(values: Sequence[float], confidence: float = 0.95) -> Comparison:
    """One set of per-seed values (levels, or differences already formed) with a t interval and tests against 0.

    >>> sample([0.2, 0.3, 0.25]).ci is not None
    True
    """
    return _summary(_as_values(values, "sample()"), confidence, "one-sample t (two-sided); Wilcoxon signed-rank")


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input order (monotone, capped at 1).

    >>> [round(p, 6) for p in holm([0.01, 0.04, 0.03])]
    [0.03, 0.06, 0.06]
    """
    p = _as_values(pvalues, "holm()")
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"holm() needs p-values in [0, 1], got {p.tolist()}")
    order = np.argsort(p, kind="stable")
    m = p.size
    adjusted = np.empty(m)
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[idx]))
        adjusted[idx] = running
    return [float(v) for v in adjusted]


def paired_table(results: dict[str, Sequence[float]], pairs: Sequence[tuple[str, str]],
                 confidence: float = 0.95):
    """A DataFrame of paired comparisons ``A − B`` over seeds with CIs, t and Wilcoxon p and Holm-adjusted p.

    ``results`` maps a variant name to its per-seed values (the same seeds in the same order for every variant).
    """
    rows = []
    for a, b in pairs:
        if a not in results or b not in results:
            missing = [x for x in (a, b) if x not in results]
            raise KeyError(f"paired_table(): no values for {missing}")
        cmp = paired(results[a], results[b], confidence, labels=(a, b))
        rows.append({"A": a, "B": b, "A − B": cmp.estimate,
                     "CI low": cmp.ci[0] if cmp.ci else float("nan"),
                     "CI high": cmp.ci[1] if cmp.ci else float("nan"),
                     "n": cmp.n, "p (t)": cmp.p, "p (Wilcoxon)": cmp.p_wilcoxon})
    frame = pd.DataFrame(rows)
    ps = [r if r is not None else 1.0 for r in frame["p (t)"]] if len(frame) else []
    frame["p (Holm)"] = holm(ps) if ps else []
    return frame


def difference_se(sd_a: float, sd_b: float, n: int) -> float:
    """Standard error of the difference of two independent means of ``n`` values each, from their standard
    deviations: ``sqrt((sd_a² + sd_b²) / n)`` (e.g. the gap between two of a paper's n-seed means).

    >>> round(difference_se(0.3, 0.4, 4), 6)
    0.25
    """
    sd_a, sd_b = float(sd_a), float(sd_b)
    if not (math.isfinite(sd_a) and math.isfinite(sd_b) and sd_a >= 0 and sd_b >= 0):
        raise ValueError(f"difference_se() needs finite standard deviations >= 0, got {sd_a} and {sd_b}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"difference_se() needs n >= 1 values per mean, got {n!r}")
    return math.sqrt((sd_a ** 2 + sd_b ** 2) / n)


def mde(sd: float, n: int, confidence: float = 0.95, power: float = POWER) -> float:
    """Minimum detectable effect of a one-sample (or paired) two-sided t-test over ``n`` values of spread ``sd``:
    the true mean difference that the test at level ``1 − confidence`` detects with probability ``power``, solved
    exactly on the noncentral t distribution (the normal-approximation formula overstates the power at three seeds).

    >>> round(mde(1.0, 3), 2)       # three seeds: more than three standard deviations
    3.26
    >>> round(mde(1.0, 30), 3)
    0.529
    """
    sd = float(sd)
    if not (math.isfinite(sd) and sd >= 0):
        raise ValueError(f"mde() needs a finite sd >= 0, got {sd}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"mde() needs n >= 2 values, got {n!r}")
    if not (0 < confidence < 1 and 0 < power < 1):
        raise ValueError(f"mde() needs confidence and power in (0, 1), got {confidence} and {power}")
    if sd == 0:
        return 0.0
    dof = n - 1
    crit = float(_sp.t.ppf(0.5 + confidence / 2, dof))

    def shortfall(nc: float) -> float:
        lower = float(_sp.nct.cdf(-crit, dof, nc))      # the wrong-side rejections; NaN far in the tail
        return float(_sp.nct.sf(crit, dof, nc)) + (lower if math.isfinite(lower) else 0.0) - power

    upper = 2.0 * (crit + float(_sp.t.ppf(power, dof))) + 1.0   # the normal-approximation noncentrality, doubled
    while shortfall(upper) < 0:
        upper *= 2
    nc = brentq(shortfall, 0.0, upper, xtol=1e-10)
    return float(nc * sd / math.sqrt(n))


def n_for_power(sd: float, effect: float, confidence: float = 0.95, power: float = POWER,
                n_max: int = 10_000) -> int | None:
    """The smallest number of seeds whose :func:`mde` (at this ``sd``) is at most ``|effect|``; None beyond
    ``n_max`` or for a zero effect.

    >>> n_for_power(1.0, 1.0)
    10
    """
    effect = abs(float(effect))
    if effect == 0 or not math.isfinite(effect):
        return None
    if sd == 0:
        return 2
    for n in range(2, n_max + 1):
        if mde(sd, n, confidence, power) <= effect:
            return n
    return None


def hierarchical_bootstrap(a, b, metric, *, gold=None, n_boot: int = 2000, seed: int = 0,
                           confidence: float = 0.95, labels: tuple[str, str] | None = None) -> Comparison:
    """A paired comparison over seeds **and** test items: the per-seed differences ``metric(a[s]) − metric(b[s])``
    with their seed-only t interval (as :func:`paired`) plus ``ci_items``, a percentile interval of a two-level
    bootstrap: seeds resampled with replacement, then the test items resampled within each drawn seed (the same
    items for ``a`` and ``b``, so the comparison stays paired), and the mean difference recomputed.

    ``a`` and ``b``: arrays of shape (seeds, items) — per-item predictions of the two systems, one row per seed.
    ``metric(pred)`` or, with ``gold`` (shape (items,)), ``metric(pred, gold)``: one number from a row of items
    (e.g. Spearman's ρ of predicted similarities against gold scores, or an accuracy from 0/1 correctness).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0); gold = rng.normal(size=200)
    >>> a = gold + rng.normal(scale=0.5, size=(3, 200)); b = gold + rng.normal(scale=1.0, size=(3, 200))
    >>> from scipy.stats import spearmanr
    >>> cmp = hierarchical_bootstrap(a, b, lambda p, g: spearmanr(p, g)[0], gold=gold, n_boot=200)
    >>> cmp.ci_items[0] > 0 and cmp.n == 3
    True
    """
    a_ = np.asarray(a, dtype=np.float64)
    b_ = np.asarray(b, dtype=np.float64)
    if a_.ndim != 2 or a_.shape != b_.shape:
        raise ValueError(f"hierarchical_bootstrap() needs two (seeds, items) arrays of one shape, got {a_.shape} "
                         f"and {b_.shape}")
    if not (np.all(np.isfinite(a_)) and np.all(np.isfinite(b_))):
        raise ValueError("hierarchical_bootstrap() got a non-finite prediction")
    n_seeds, n_items = a_.shape
    if n_items < 2:
        raise ValueError(f"hierarchical_bootstrap() needs at least 2 items, got {n_items}")
    gold_ = None if gold is None else np.asarray(gold, dtype=np.float64)
    if gold_ is not None and gold_.shape != (n_items,):
        raise ValueError(f"hierarchical_bootstrap(): gold has shape {gold_.shape}, expected ({n_items},)")
    if n_boot < 100:
        raise ValueError(f"hierarchical_bootstrap() needs n_boot >= 100, got {n_boot}")

    def score(row, idx):
        return float(metric(row[idx], gold_[idx]) if gold_ is not None else metric(row[idx]))

    every = np.arange(n_items)
    diffs = np.array([score(a_[s], every) - score(b_[s], every) for s in range(n_seeds)])
    base = _summary(diffs, confidence, "paired t over seeds; hierarchical bootstrap over seeds and items", labels)
    rng = np.random.default_rng(seed)
    boots = np.empty(n_boot)
    for i in range(n_boot):
        seeds = rng.integers(0, n_seeds, n_seeds)
        boots[i] = np.mean([score(a_[s], idx) - score(b_[s], idx)
                            for s, idx in ((s, rng.integers(0, n_items, n_items)) for s in seeds)])
    lo, hi = np.quantile(boots, [(1 - confidence) / 2, (1 + confidence) / 2])
    return Comparison(base.values, base.estimate, base.sd, base.ci, confidence, base.n, base.test, base.p,
                      base.p_wilcoxon, labels, (float(lo), float(hi)))
