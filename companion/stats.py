"""The one statistics module: paired-seed comparisons, confidence intervals, tests, Holm, and the verdict rules.

Every comparison of the companion goes through here, so a reader checks the rules once::

    from companion import stats
    cmp = stats.paired(angle_scores, cosine_scores)      # per-seed values, paired by seed
    cmp.estimate, cmp.ci, cmp.p                            # mean difference, 95 % t interval, paired t p-value
    crit = stats.direction(paper_effect=0.98, tol=0.5, tol_reason="the paper's own seed sd")
    crit.judge(cmp)                                        # -> Judgement(verdict, reason)

Verdict rules (written once, used by every notebook through :class:`companion.results.Ledger`). One symmetric
rule compares our estimate with the paper's statement and nothing else:

* ``reproduced`` — the paper's direction with a CI that excludes zero, and the magnitude within tolerance;
* ``partly`` — the direction holds firmly but the magnitude lies outside the tolerance (either way), or only part
  of a multi-part statement holds;
* ``not reproduced`` — the CI lies entirely on the side of zero opposite to the paper's effect (a firm reversal),
  or shows the effect absent with the power to see it (the CI inside the tolerance band around zero while the
  paper's effect lies outside it);
* ``inconclusive`` — the CI covers zero and the paper's effect, or the design lacks the power to tell
  (``underpowered``: the paper's effect is below the minimum detectable effect, :func:`mde`), or a validity check
  of our own run failed (:class:`Validity`: it did not train, it did not reach its plateau, a ceiling or floor).

:func:`direction` applies the rule to a difference, :func:`level` to a level the paper reports. The magnitude
tolerance comes from one policy, :func:`tolerance`: the paper's own seed spread where it prints one, otherwise
:data:`TOLERANCE_FRACTION` of the paper's effect. Every criterion's text is generated from its rule and its
parameters, so the sentence a reader sees cannot disagree with the code.

The **regime** (how our set-up differs from the paper's: backbone, layers trained, steps, data) never changes a
verdict: :meth:`companion.results.Ledger.claim` stores it beside the verdict (:func:`regime_label`), and a
result against the paper in a scaled regime is ``not reproduced`` with that regime named.

Deterministic quantities (free-embedding optima, closed forms, counts) use the exact criteria of
:mod:`companion.results` (``within``, ``holds``, …): there is no seed noise to put an interval on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats as _sp

VERDICTS = ("reproduced", "partly", "not reproduced", "inconclusive", "not testable")
#: Below six values the exact signed-rank test cannot reach p < 0.05 (its smallest two-sided p at n = 5 is 0.0625):
#: it is not reported.
WILCOXON_MIN_N = 6
#: Power the minimum detectable effect is computed for (:func:`mde`).
POWER = 0.8
#: Without a printed spread, the magnitude tolerance is this fraction of the paper's effect (:func:`tolerance`).
TOLERANCE_FRACTION = 0.5
#: With a printed spread, the tolerance is this many standard errors of the paper's own estimate.
TOLERANCE_SE = 1.96
CHECK_VERDICTS = ("passed", "failed", "inconclusive", "not testable")
#: An erratum (a statement of a paper its own text or tables contradict) is confirmed or not; never a reproduction.
ERRATUM_VERDICTS = ("confirmed", "partly", "not confirmed", "inconclusive")


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
    import pandas as pd

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

    from scipy.optimize import brentq

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

# --------------------------------------------------------------------------------------------- verdict rules
@dataclass(frozen=True)
class Judgement:
    verdict: str
    reason: str | None = None


class Criterion:
    """A rule that turns our measurement into a verdict.

    ``description`` (stored in the ledger and registered in ``data/<paper>/criteria.json``) is generated by the
    rule's constructor from its parameters; ``rule`` names the constructor and ``params`` holds the parameters."""

    def __init__(self, description: str, rule, *, name: str = "custom", params: dict[str, Any] | None = None):
        self.description = description
        self._rule = rule
        self.name = name
        self.params = dict(params or {})

    def judge(self, ours: Any) -> Judgement:
        out = self._rule(ours)
        judgement = out if isinstance(out, Judgement) else Judgement(out)
        if judgement.verdict not in VERDICTS:
            raise AssertionError(f"criterion produced {judgement.verdict!r}")
        if judgement.verdict in ("inconclusive", "not testable") and not judgement.reason:
            raise AssertionError(f"a {judgement.verdict!r} verdict needs a reason")
        return judgement

    def verdict(self, ours: Any) -> str:
        return self.judge(ours).verdict

    def __repr__(self) -> str:
        return f"Criterion({self.description!r})"


def _comparison(ours: Any, what: str) -> Comparison:
    if not isinstance(ours, Comparison):
        raise TypeError(f"{what} needs a stats.Comparison (stats.paired / stats.sample), got {type(ours).__name__}")
    return ours


# --------------------------------------------------------------------------------------------- validity
@dataclass(frozen=True)
class Validity:
    """A validity check measured in our own run (never a description of how our set-up differs from the paper's).

    ``name``: ``trained`` (the objective moved off its starting point), ``plateau`` (the run reached its plateau or
    the compared gap is stable), ``ceiling`` / ``floor`` (the metric has room to move), or another named check.
    A failed check makes the claim ``inconclusive`` with the reason ``<name>: <detail>``
    (:meth:`companion.results.Ledger.claim`, ``validity=``)."""

    name: str
    passed: bool
    detail: str

    def __post_init__(self):
        if not (isinstance(self.name, str) and self.name.strip()):
            raise ValueError("Validity needs a name")
        if not isinstance(self.passed, (bool, np.bool_)):
            raise TypeError(f"Validity {self.name!r}: passed must be a bool, got {self.passed!r}")
        if not (isinstance(self.detail, str) and self.detail.strip()):
            raise ValueError(f"Validity {self.name!r} needs a detail (what was measured)")

    @property
    def reason(self) -> str:
        """The inconclusive reason a failed check gives (``budget`` for a plateau, else the check's name)."""
        word = {"plateau": "budget", "trained": "did not train"}.get(self.name, self.name)
        return f"{word}: {self.detail}"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": bool(self.passed), "detail": self.detail}


def validity_gate(checks: Sequence[Validity] | None) -> Judgement | None:
    """``inconclusive`` naming every failed check, or None when all pass (or there are none)."""
    failed = [c for c in (checks or ()) if not c.passed]
    if not failed:
        return None
    return Judgement("inconclusive", "; ".join(c.reason for c in failed))


#: A run's plateau: the gain over the last third may be at most this fraction of the compared gap.
PLATEAU_FRACTION = 0.25


def plateau(steps: Sequence[float], values: Sequence[float], *, gap: float | None = None,
            fraction: float = PLATEAU_FRACTION, tail: float = 1 / 3, confidence: float = 0.95) -> Validity:
    """Is a dev curve at its plateau? Fit a line to the last ``tail`` of the curve (at least three points): the run
    is at its plateau when the slope's ``confidence`` interval covers zero, or — where a gap between two systems is
    compared — when the fitted gain over that stretch is at most ``fraction · |gap|`` (the gap cannot be an artefact
    of one system still climbing).

    >>> plateau([0, 1, 2, 3, 4, 5], [0.1, 0.5, 0.7, 0.70, 0.71, 0.70]).passed
    True
    >>> plateau([0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5, 6, 7, 8.1]).passed
    False
    """
    x = _as_values(steps, "plateau(steps)")
    y = _as_values(values, "plateau(values)")
    if x.shape != y.shape:
        raise ValueError(f"plateau() needs one value per step, got {x.size} steps and {y.size} values")
    if not 0 < tail <= 1:
        raise ValueError(f"plateau(): tail must lie in (0, 1], got {tail}")
    if fraction < 0:
        raise ValueError(f"plateau(): fraction must be >= 0, got {fraction}")
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    start = x[0] + (1 - tail) * (x[-1] - x[0])
    keep = x >= start - 1e-12
    if keep.sum() < 3:
        keep = np.zeros_like(keep)
        keep[-3:] = True
    if keep.sum() < 3:
        raise ValueError(f"plateau() needs at least 3 points on the curve, got {x.size}")
    xs, ys = x[keep], y[keep]
    span = float(xs[-1] - xs[0])
    if span <= 0:
        raise ValueError("plateau() needs distinct steps in the last stretch")
    fit = _sp.linregress(xs, ys)
    dof = xs.size - 2
    if dof < 1 or not (math.isfinite(float(fit.stderr)) and fit.stderr > 0):   # an exact line: a point interval
        lo = hi = float(fit.slope)
    else:
        half = float(_sp.t.ppf(0.5 + confidence / 2, dof)) * float(fit.stderr)
        lo, hi = float(fit.slope) - half, float(fit.slope) + half
    gain = float(fit.slope) * span
    flat = lo <= 0 <= hi
    small = gap is not None and abs(gain) <= fraction * abs(float(gap))
    detail = (f"slope over the last {tail:.0%} {fit.slope:+.3g}/step, {round(100 * confidence)} % CI "
              f"[{lo:+.3g}, {hi:+.3g}], gain {gain:+.3g} over {span:g} steps")
    if gap is not None:
        detail += f" against {fraction:g} × the compared gap {abs(float(gap)):.3g}"
    return Validity("plateau", bool(flat or small), detail)


# --------------------------------------------------------------------------------------------- tolerance
@dataclass(frozen=True)
class Tolerance:
    value: float
    reason: str


def tolerance(paper_effect: float, *, paper_se: float | None = None) -> Tolerance:
    """The one magnitude-tolerance policy of every comparative claim.

    Where the paper prints a spread over its own seeds, the tolerance is :data:`TOLERANCE_SE` standard errors of
    the paper's estimate (``paper_se``, e.g. :func:`difference_se` of two printed means); otherwise it is
    :data:`TOLERANCE_FRACTION` of the paper's effect. The larger of the two never applies: one rule, stated.

    >>> tolerance(2.0).value
    1.0
    >>> tolerance(2.0, paper_se=0.25).value
    0.49
    """
    effect = float(paper_effect)
    if not math.isfinite(effect) or effect == 0:
        raise ValueError(f"tolerance() needs a finite, non-zero paper effect, got {paper_effect!r}")
    if paper_se is not None:
        se = float(paper_se)
        if not (math.isfinite(se) and se > 0):
            raise ValueError(f"tolerance() needs a finite paper_se > 0, got {paper_se!r}")
        return Tolerance(round(TOLERANCE_SE * se, 6), f"{TOLERANCE_SE:g} × the SE of the paper's own seeds")
    word = "half" if TOLERANCE_FRACTION == 0.5 else f"{TOLERANCE_FRACTION:g} ×"
    return Tolerance(round(TOLERANCE_FRACTION * abs(effect), 6), f"{word} the paper's effect (no spread printed)")


def _fmt(x: float) -> str:
    return f"{x:+.4g}"


def direction(paper_effect: float | None = None, *, sign: int | None = None, paper_se: float | None = None,
              trained: bool = True, untrained_reason: str | None = None) -> Criterion:
    """The paper reports a difference A − B (``paper_effect``) or only its direction (``sign`` = +1/−1); judged on
    a :class:`Comparison` of our per-seed differences, by the symmetric rule of this module:

    * the validity gate: ``trained=False`` (the objective did not move) gives ``inconclusive``;
    * CI excludes 0 on the paper's side: ``reproduced`` when ``|ours − paper| <= tol`` (:func:`tolerance`; always
      so for a sign-only claim), else ``partly`` (magnitude outside the tolerance, either way);
    * CI excludes 0 on the other side: ``not reproduced`` (a firm reversal);
    * CI covers 0: ``not reproduced`` when it lies inside ±tol while ``|paper| > tol`` (the effect is absent and we
      had the power to see it); ``inconclusive: underpowered`` when the design's :func:`mde` exceeds ``|paper|``
      (with the seeds it would need); otherwise ``inconclusive`` (the CI covers zero and the paper's effect).

    >>> crit = direction(paper_effect=1.0)
    >>> crit.verdict(paired([1.1, 0.9, 1.0], [0.0, 0.0, 0.0]))
    'reproduced'
    >>> crit.verdict(paired([-1.1, -0.9, -1.0], [0.0, 0.0, 0.0]))
    'not reproduced'
    """
    if paper_effect is None and sign is None:
        raise ValueError("direction() needs paper_effect or sign")
    tol: Tolerance | None = None
    if paper_effect is not None:
        paper_effect = float(paper_effect)
        if not math.isfinite(paper_effect):
            raise ValueError(f"direction() got a non-finite paper_effect {paper_effect}")
        if paper_effect == 0:
            raise ValueError("direction(): a paper effect of 0 has no direction; use level()")
        if sign is not None and sign * paper_effect <= 0:
            raise ValueError(f"direction(): sign={sign} disagrees with paper_effect={paper_effect}")
        side = int(math.copysign(1, paper_effect))
        tol = tolerance(paper_effect, paper_se=paper_se)
    else:
        if sign not in (1, -1):
            raise ValueError(f"direction(): sign must be +1 or -1, got {sign!r}")
        if paper_se is not None:
            raise ValueError("direction(): paper_se sets a magnitude tolerance and needs paper_effect")
        side = sign
    word = "A > B" if side > 0 else "A < B"
    if tol is not None:
        desc = (f"{word} (paper {_fmt(paper_effect)}; tolerance ±{tol.value:g}: {tol.reason}). CI of ours on the "
                f"paper's side of 0: reproduced if |ours − paper| <= {tol.value:g}, else partly; CI on the other "
                f"side: not reproduced; CI covering 0 but inside ±{tol.value:g}: not reproduced (effect absent); "
                f"CI covering 0 with a minimum detectable effect above |paper|: inconclusive (underpowered); "
                f"otherwise inconclusive")
    else:
        desc = (f"{word} (the paper states the direction only). CI of ours on the paper's side of 0: reproduced; "
                f"on the other side: not reproduced; covering 0: inconclusive")
    if not trained:
        desc += "; the objective did not train: inconclusive"
    params = {"paper_effect": paper_effect, "sign": side, "tol": tol.value if tol else None,
              "tol_reason": tol.reason if tol else None, "trained": bool(trained)}

    def rule(ours):
        cmp = _comparison(ours, "direction()")
        if not trained:
            return Judgement("inconclusive", f"did not train: {untrained_reason or 'the objective did not move'}")
        if cmp.ci is None:
            return Judgement("inconclusive", "underpowered: one seed, no confidence interval")
        where = cmp.excludes_zero()
        lo, hi = cmp.interval
        if where == side:
            if tol is None or abs(cmp.estimate - paper_effect) <= tol.value:
                return Judgement("reproduced")
            bigger = abs(cmp.estimate) > abs(paper_effect)
            return Judgement("partly", f"direction holds; magnitude {_fmt(cmp.estimate)} is "
                                       f"{'larger' if bigger else 'smaller'} than the paper's {_fmt(paper_effect)} "
                                       f"by more than the tolerance {tol.value:g}")
        if where == -side:
            return Judgement("not reproduced", f"reversed: the CI [{lo:+.4g}, {hi:+.4g}] lies on the other side of 0")
        if tol is None:
            return Judgement("inconclusive", f"the CI [{lo:+.4g}, {hi:+.4g}] covers 0 (the paper gives no magnitude "
                                             "to judge the power against)")
        if abs(paper_effect) > tol.value and -tol.value <= lo and hi <= tol.value:
            return Judgement("not reproduced", f"absent: the CI [{lo:+.4g}, {hi:+.4g}] lies inside ±{tol.value:g} "
                                               f"while the paper's effect is {_fmt(paper_effect)}")
        power = cmp.mde
        if power is not None and power > abs(paper_effect):
            need = n_for_power(cmp.sd, paper_effect, cmp.confidence)
            more = f"about {need} seeds" if need else "far more seeds"
            return Judgement("inconclusive", f"underpowered: minimum detectable effect {power:.3g} > the paper's "
                                             f"|{paper_effect:g}| with {cmp.n} seeds ({more} would detect it)")
        if cmp.covers(paper_effect):
            return Judgement("inconclusive", f"the CI [{lo:+.4g}, {hi:+.4g}] covers both 0 and the paper's "
                                             f"{_fmt(paper_effect)}")
        return Judgement("inconclusive", f"the CI [{lo:+.4g}, {hi:+.4g}] covers 0 and excludes the paper's "
                                         f"{_fmt(paper_effect)}, but reaches beyond ±{tol.value:g}: neither the "
                                         "effect nor its absence is shown")

    return Criterion(desc, rule, name="direction", params=params)


def level(paper_value: float, *, tol: float, tol_reason: str) -> Criterion:
    """The paper reports a level (or states a quantity is about a value, e.g. "near zero"); judged on a
    :class:`Comparison` of per-seed levels (:func:`sample`): ``reproduced`` when the whole CI lies within
    ``paper ± tol``, ``not reproduced`` when it lies entirely outside, ``inconclusive`` otherwise — underpowered
    when the CI is wider than the band itself, so it could never fit inside.

    >>> level(0.5, tol=0.1, tol_reason="example").verdict(sample([0.49, 0.5, 0.51]))
    'reproduced'
    """
    paper_value = float(paper_value)
    if not (math.isfinite(paper_value) and tol >= 0 and tol_reason):
        raise ValueError("level() needs a finite paper_value, tol >= 0 and a tol_reason")
    lo_band, hi_band = paper_value - tol, paper_value + tol
    desc = (f"CI of ours inside {paper_value:g} ± {tol:g} ({tol_reason}): reproduced; entirely outside: "
            "not reproduced; straddling the band: inconclusive (underpowered when the CI is wider than the band)")
    params = {"paper_value": paper_value, "tol": float(tol), "tol_reason": tol_reason}

    def rule(ours):
        cmp = _comparison(ours, "level()")
        if cmp.ci is None:
            return Judgement("inconclusive", "underpowered: one seed, no confidence interval")
        lo, hi = cmp.interval
        if lo_band <= lo and hi <= hi_band:
            return Judgement("reproduced")
        if hi < lo_band or lo > hi_band:
            return Judgement("not reproduced", f"the CI [{lo:.4g}, {hi:.4g}] lies outside {paper_value:g} ± {tol:g}")
        if hi - lo > hi_band - lo_band:
            return Judgement("inconclusive", f"underpowered: the CI [{lo:.4g}, {hi:.4g}] is wider than the band "
                                             f"{paper_value:g} ± {tol:g}")
        return Judgement("inconclusive", f"the CI [{lo:.4g}, {hi:.4g}] straddles the band {paper_value:g} ± {tol:g}")

    return Criterion(desc, rule, name="level", params=params)


def inconclusive(reason: str) -> Criterion:
    """A claim our run cannot decide for a stated, measured fact of the run (a ceiling shown in ``note``, a missing
    table body); prefer ``validity=`` on the ledger where a check applies."""
    if not reason or not reason.strip():
        raise ValueError("inconclusive() needs a reason")
    return Criterion(f"inconclusive: {reason}", lambda ours: Judgement("inconclusive", reason),
                     name="inconclusive", params={"reason": reason})


def regime_label(regime: str | None) -> str:
    """The regime field shown beside every verdict: ``paper setting``, or ``scaled: <what differs>``.
    It never changes the verdict.

    >>> regime_label(None), regime_label("MiniLM top layer, 640 steps")
    ('paper setting', 'scaled: MiniLM top layer, 640 steps')
    """
    if regime is None:
        return "paper setting"
    text = regime.strip()
    if not text:
        raise ValueError("regime_label(): an empty regime; pass None for the paper's setting")
    if text == "paper setting" or text.startswith("scaled: "):
        return text
    return f"scaled: {text}"


def as_erratum(judgement: Judgement) -> Judgement:
    """An erratum's verdict: the criterion's ``reproduced`` (the contradiction holds) reads ``confirmed``."""
    mapping = {"reproduced": "confirmed", "partly": "partly", "not reproduced": "not confirmed",
               "not testable": "inconclusive"}
    return Judgement(mapping.get(judgement.verdict, judgement.verdict), judgement.reason or (
        "not testable" if judgement.verdict == "not testable" else None))


def as_check(judgement: Judgement) -> Judgement:
    """Our own checks pass or fail; they are never reproductions."""
    mapping = {"reproduced": "passed", "partly": "failed", "not reproduced": "failed"}
    return Judgement(mapping.get(judgement.verdict, judgement.verdict), judgement.reason)
