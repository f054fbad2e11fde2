"""The one statistics module: paired-seed comparisons, confidence intervals, tests, Holm, and the verdict rules.

Every comparison of the companion goes through here, so a reader checks the rules once::

    from companion import stats
    cmp = stats.paired(angle_scores, cosine_scores)      # per-seed values, paired by seed
    cmp.estimate, cmp.ci, cmp.p                            # mean difference, 95 % t interval, paired t p-value
    crit = stats.direction(paper_effect=0.98, tol=0.5, tol_reason="the paper's own seed sd")
    crit.judge(cmp)                                        # -> Judgement(verdict, reason)

Verdict rules (written once, used by every notebook through :class:`companion.results.Ledger`):

* :func:`direction` — a difference the paper reports (or an ordering). ``reproduced`` needs the paper's direction
  with a CI that excludes zero and, where a magnitude is compared, ``|estimate − paper_effect| <= tol``; the
  direction with a clearly different magnitude is ``partly``; ``not reproduced`` needs a CI that excludes zero on
  the other side, or a CI around zero that excludes the paper's effect (we had the power to see it); anything else
  is ``inconclusive`` with its reason.
* :func:`level` — a level the paper reports (an STS average): ``reproduced`` when the whole CI lies within
  ``paper ± tol``, ``not reproduced`` when it lies entirely outside, ``inconclusive`` otherwise.
* ``regime=`` (on :meth:`companion.results.Ledger.claim`): a set-up unlike the paper's caps ``reproduced`` at
  ``partly`` and turns ``not reproduced`` into ``inconclusive`` (reason: the regime).

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
CHECK_VERDICTS = ("passed", "failed", "inconclusive", "not testable")


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

    def excludes_zero(self) -> int:
        """+1 if the CI lies above 0, -1 if below, 0 if it covers 0 (or there is no CI)."""
        if self.ci is None:
            return 0
        lo, hi = self.ci
        return 1 if lo > 0 else (-1 if hi < 0 else 0)

    def covers(self, value: float) -> bool:
        return self.ci is not None and self.ci[0] <= value <= self.ci[1]

    def to_dict(self) -> dict[str, Any]:
        """The ``stats`` record of a ledger claim (floats rounded to 6 significant digits by the ledger)."""
        out: dict[str, Any] = {"estimate": self.estimate, "sd": self.sd,
                               "ci": list(self.ci) if self.ci is not None else None,
                               "confidence": self.confidence, "n": self.n, "test": self.test, "p": self.p,
                               "p_wilcoxon": self.p_wilcoxon, "values": list(self.values)}
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
    if np.any(diffs != 0):
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

# --------------------------------------------------------------------------------------------- verdict rules
@dataclass(frozen=True)
class Judgement:
    verdict: str
    reason: str | None = None


class Criterion:
    """A rule that turns our measurement into a verdict; ``description`` is stored in the ledger."""

    def __init__(self, description: str, rule):
        self.description = description
        self._rule = rule

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


def direction(paper_effect: float | None = None, *, sign: int | None = None, tol: float | None = None,
              tol_reason: str | None = None, trained: bool = True, untrained_reason: str | None = None
              ) -> Criterion:
    """The paper reports a difference (``paper_effect``) or only its direction (``sign`` = +1/−1).

    Judged on a :class:`Comparison` of per-seed differences (ours A − B for the paper's A − B).
    ``tol`` compares magnitudes (needs ``paper_effect`` and a ``tol_reason``); ``trained=False`` (the objective
    did not move) gives ``inconclusive``.
    """
    if paper_effect is None and sign is None:
        raise ValueError("direction() needs paper_effect or sign")
    if paper_effect is not None:
        paper_effect = float(paper_effect)
        if not math.isfinite(paper_effect):
            raise ValueError(f"direction() got a non-finite paper_effect {paper_effect}")
        if sign is not None and sign * paper_effect <= 0:
            raise ValueError(f"direction(): sign={sign} disagrees with paper_effect={paper_effect}")
        if paper_effect == 0 and sign is None:
            raise ValueError("direction(): a paper effect of 0 has no direction; use level() or sign=")
        side = int(math.copysign(1, paper_effect))
    else:
        if sign not in (1, -1):
            raise ValueError(f"direction(): sign must be +1 or -1, got {sign!r}")
        side = sign
    if tol is not None:
        if paper_effect is None:
            raise ValueError("direction(): tol compares magnitudes and needs paper_effect")
        if tol < 0 or not tol_reason:
            raise ValueError("direction(): tol must be >= 0 and come with tol_reason (why this tolerance)")
    word = "A > B" if side > 0 else "A < B"
    desc = f"{word}: 95 % CI of A − B over seeds excludes 0 on the paper's side"
    if paper_effect is not None:
        desc += f" (paper {paper_effect:+g})"
    if tol is not None:
        desc += f"; magnitude within ±{tol:g} of the paper's ({tol_reason}), else partly"
    desc += "; opposite side or a CI excluding the paper's effect: not reproduced; otherwise inconclusive"

    def rule(ours):
        cmp = _comparison(ours, "direction()")
        if not trained:
            return Judgement("inconclusive", untrained_reason or "the objective did not train")
        if cmp.ci is None:
            return Judgement("inconclusive", "one seed: no confidence interval")
        where = cmp.excludes_zero()
        if where == side:
            if tol is None or abs(cmp.estimate - paper_effect) <= tol:
                return Judgement("reproduced")
            return Judgement("partly", f"direction holds; magnitude {cmp.estimate:+.4g} vs paper {paper_effect:+g} "
                                       f"differs by more than {tol:g}")
        if where == -side:
            return Judgement("not reproduced", "the CI excludes zero on the other side")
        if paper_effect is not None and not cmp.covers(paper_effect):
            return Judgement("not reproduced", f"the CI covers zero but excludes the paper's effect {paper_effect:+g}")
        if paper_effect is not None:
            return Judgement("inconclusive", "the CI covers both zero and the paper's effect")
        return Judgement("inconclusive", "the CI covers zero")

    return Criterion(desc, rule)


def level(paper_value: float, *, tol: float, tol_reason: str) -> Criterion:
    """The paper reports a level; judged on a :class:`Comparison` of per-seed levels (:func:`sample`)."""
    paper_value = float(paper_value)
    if not (math.isfinite(paper_value) and tol >= 0 and tol_reason):
        raise ValueError("level() needs a finite paper_value, tol >= 0 and a tol_reason")
    lo_band, hi_band = paper_value - tol, paper_value + tol
    desc = (f"95 % CI of ours inside {paper_value:g} ± {tol:g} ({tol_reason}): reproduced; entirely outside: "
            "not reproduced; otherwise inconclusive")

    def rule(ours):
        cmp = _comparison(ours, "level()")
        if cmp.ci is None:
            return Judgement("inconclusive", "one seed: no confidence interval")
        lo, hi = cmp.ci
        if lo_band <= lo and hi <= hi_band:
            return Judgement("reproduced")
        if hi < lo_band or lo > hi_band:
            return Judgement("not reproduced", f"the CI [{lo:.4g}, {hi:.4g}] lies outside {paper_value:g} ± {tol:g}")
        return Judgement("inconclusive", f"the CI [{lo:.4g}, {hi:.4g}] straddles the band {paper_value:g} ± {tol:g}")

    return Criterion(desc, rule)


def inconclusive(reason: str) -> Criterion:
    """A claim our run cannot decide for a stated fact of the set-up (a ceiling shown in ``note``, a missing table
    body); prefer ``trained=`` on :func:`direction` or ``regime=`` on the ledger where they apply."""
    if not reason or not reason.strip():
        raise ValueError("inconclusive() needs a reason")
    return Criterion(f"inconclusive: {reason}", lambda ours: Judgement("inconclusive", reason))


def apply_regime(judgement: Judgement, regime: str | None) -> Judgement:
    """A set-up unlike the paper's caps the verdict: reproduced → partly, not reproduced → inconclusive."""
    if not regime:
        return judgement
    if judgement.verdict == "reproduced":
        return Judgement("partly", f"reproduced in a different regime: {regime}")
    if judgement.verdict == "not reproduced":
        return Judgement("inconclusive", f"{judgement.reason + '; ' if judgement.reason else ''}"
                                         f"regime unlike the paper's: {regime}")
    return judgement


def as_check(judgement: Judgement) -> Judgement:
    """Our own checks pass or fail; they are never reproductions."""
    mapping = {"reproduced": "passed", "partly": "failed", "not reproduced": "failed"}
    return Judgement(mapping.get(judgement.verdict, judgement.verdict), judgement.reason)
