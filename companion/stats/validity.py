"""The validity checks of our own runs, one rule each for every paper, and the gate that applies them.

A validity check asks whether our run can speak to the claim at all; it never describes how our set-up differs from
the paper's (that is the regime, shown beside the verdict). Three rules, each over one **tidy curve frame** — one row
per ``(run, seed, step)`` with the ``value`` of a metric along training (:func:`curve_frame`):

* :func:`trained` — every run's metric moved off its start: the mean of its last third differs from the mean of its
  first third by more than :data:`TRAINED_SE` standard errors of that difference (the points' own scatter). One rule
  for a training loss and for a dev score.
* :func:`plateau` — the seed-mean curve of each run is flat over its last third (:func:`companion.stats.plateau`: the
  fitted slope's 95 % CI covers 0, or its gain there is at most :data:`~companion.stats.PLATEAU_FRACTION` of the
  compared gap). When the curve is **the claim's own metric** (a level, or the gap A − B from :func:`gap_frame`,
  which is the gap-stability check) the check also records its ``trend``: the way the claim's quantity is still
  moving (+1 up, −1 down, 0 flat within its CI).
* :func:`room` — a ceiling or floor: does the reference level leave room for the paper's change? It records which
  way is ``blocked``; the room on the other side is measured too.

:func:`gate` turns the checks into the verdict's gate, and fires only when more training or more room could change
the verdict:

* a failed ``trained`` check (or a missing record) always gives ``inconclusive``;
* a failed ``plateau`` check whose curve is the claim's own metric does not hold back a verdict that the curve's
  ``trend`` can only strengthen: a result against the paper while the quantity moves further from the paper's side,
  or an agreement while it moves further towards it. A plateau read on another quantity (a training loss) gates as
  before, since it cannot tell which way the claim would move;
* a failed ``ceiling``/``floor`` check (the paper's direction blocked) does not hold back a **firm reversal**: a
  bound on the paper's side cannot push our estimate to the other side.

The gate is part of a claim's registered criterion (the ledger stores each check's rule with the claim).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from companion.stats.comparisons import POWER, Comparison, n_for_power
from companion.stats.verdicts import PLATEAU_FRACTION, Judgement, Validity
from companion.stats.verdicts import plateau as _line_plateau

#: The columns of a curve frame, in order.
CURVE_COLUMNS = ("run", "seed", "step", "value")
#: ``trained``: the metric's move between the first and last third must exceed this many standard errors.
TRAINED_SE = 2.0
#: The verdicts that agree with the paper's statement (the others read against it or leave it open).
AGREEING = ("reproduced", "partly")
#: The gate policy, registered in every criteria file beside the claims' criteria (it is part of each criterion).
GATE_POLICY = (f"validity gates (companion.stats.validity), measured on our runs before a verdict stands: trained "
               f"(the metric's last third differs from its first by more than {TRAINED_SE:g} SE; a failure always "
               f"gives inconclusive); plateau (the seed-mean curve's slope over its last third has a 95 % CI covering "
               f"0, or its gain there is at most {PLATEAU_FRACTION:g} x the compared gap; read on the claim's own "
               f"quantity, a failure holds back only a verdict that its trend could change); ceiling/floor (the "
               f"reference level leaves room for the paper's change; a failure never holds back a firm reversal)")


def curve_frame(frame: pd.DataFrame, *, value: str = "value", run: str | None = "run",
                seed: str | None = "seed", step: str = "step") -> pd.DataFrame:
    """A tidy curve frame (``run``, ``seed``, ``step``, ``value``) from any frame that holds those columns under
    other names; a missing ``run`` or ``seed`` column (pass None) becomes a single run or seed.

    >>> curve_frame(pd.DataFrame({"step": [0, 1, 2], "dev": [0.1, 0.5, 0.6]}), value="dev", run=None, seed=None)
       run  seed  step  value
    0  run     0     0    0.1
    1  run     0     1    0.5
    2  run     0     2    0.6
    """
    missing = [c for c in (value, step, run, seed) if c is not None and c not in frame.columns]
    if missing:
        raise KeyError(f"curve_frame(): no column(s) {missing} (have {list(frame.columns)})")
    out = pd.DataFrame({"run": frame[run].astype(str) if run else "run",
                        "seed": frame[seed].to_numpy() if seed else 0,
                        "step": pd.to_numeric(frame[step]).to_numpy(float),
                        "value": pd.to_numeric(frame[value]).to_numpy(float)})
    if out.empty:
        raise ValueError("curve_frame(): an empty curve")
    if not np.isfinite(out["value"]).all():
        raise ValueError("curve_frame(): the curve holds non-finite values")
    out["step"] = out["step"].astype(int) if (out["step"] == out["step"].round()).all() else out["step"]
    return out.sort_values(["run", "seed", "step"], kind="stable").reset_index(drop=True)


def curves_from_lists(curves: dict[tuple[str, int], Sequence[float]], steps: Sequence[float] | None = None
                      ) -> pd.DataFrame:
    """A curve frame from per-run lists: ``{(run, seed): [value at step 1, 2, ...]}`` (``steps`` when the values
    are not one per step from 1).

    >>> curves_from_lists({("a", 0): [3.0, 2.0, 1.5]}).value.tolist()
    [3.0, 2.0, 1.5]
    """
    rows = []
    for (run, seed), values in curves.items():
        xs = list(steps) if steps is not None else list(range(1, len(values) + 1))
        if len(xs) != len(values):
            raise ValueError(f"curves_from_lists(): {run} seed {seed} has {len(values)} values for {len(xs)} steps")
        rows += [{"run": str(run), "seed": seed, "step": x, "value": float(v)} for x, v in zip(xs, values)]
    return curve_frame(pd.DataFrame(rows))


def gap_frame(frame: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """The compared gap's own curve: per seed and step, run ``a``'s value minus run ``b``'s (steps both logged).

    >>> f = curve_frame(pd.DataFrame({"run": ["a", "a", "b", "b"], "seed": 0, "step": [0, 1, 0, 1],
    ...                               "value": [1.0, 2.0, 0.5, 0.5]}))
    >>> gap_frame(f, "a", "b").value.tolist()
    [0.5, 1.5]
    """
    wide = frame[frame["run"].isin([a, b])].pivot_table(index=["seed", "step"], columns="run", values="value")
    missing = [r for r in (a, b) if r not in wide.columns]
    if missing:
        raise KeyError(f"gap_frame(): no curve of {missing}")
    gap = (wide[a] - wide[b]).dropna().rename("value").reset_index()
    if gap.empty:
        raise ValueError(f"gap_frame(): {a} and {b} share no logged step")
    gap["run"] = f"{a} − {b}"
    return curve_frame(gap)


def trained(frame: pd.DataFrame, *, what: str) -> Validity:
    """``trained``: every ``(run, seed)`` curve of ``frame`` moved off its start — the mean of its last third minus
    the mean of its first third exceeds :data:`TRAINED_SE` standard errors of that difference (each third's
    variance over its points). A curve of fewer than six points cannot show it: failed, saying so.

    >>> f = curves_from_lists({("loss", 0): [3.0, 2.9, 3.1, 2.0, 1.9, 2.1]})
    >>> trained(f, what="training loss").passed
    True
    >>> trained(curves_from_lists({("loss", 0): [3.0, 2.9, 3.1, 3.0, 2.9, 3.1]}), what="loss").passed
    False
    """
    frame = curve_frame(frame)
    parts, moved, short = [], [], []
    for (run, seed), g in frame.groupby(["run", "seed"], sort=False):
        v = g.sort_values("step")["value"].to_numpy(float)
        if v.size < 6:
            short.append(f"{run} seed {seed} ({v.size} points)")
            continue
        k = v.size // 3
        first, last = v[:k], v[-k:]
        se = math.sqrt(first.var(ddof=1) / k + last.var(ddof=1) / k)
        change = float(last.mean() - first.mean())
        ok = abs(change) > TRAINED_SE * se
        moved.append(ok)
        parts.append((abs(change) / se if se > 0 else math.inf, f"{run} seed {seed}: {first.mean():.4g} -> "
                      f"{last.mean():.4g} (first -> last third, {change:+.3g}, SE {se:.2g})"))
    if not parts and short:
        return Validity("trained", False, f"{what}: too few points to tell ({', '.join(short)})")
    weakest = min(parts)[1]
    detail = (f"{what}: {sum(moved)} of {len(moved)} runs moved beyond {TRAINED_SE:g} SE of their own scatter; "
              f"weakest {weakest}")
    if short:
        detail += f"; too few points: {', '.join(short)}"
    return Validity("trained", bool(all(moved) and not short), detail)


def plateau(frame: pd.DataFrame, *, what: str, gap: float | None = None, claim_metric: bool = False,
            fraction: float = PLATEAU_FRACTION, tail: float = 1 / 3) -> Validity:
    """``plateau``: for each run of ``frame``, its seed-mean curve through :func:`companion.stats.plateau` (the
    slope over the last ``tail`` has a 95 % CI covering 0, or its gain there is at most ``fraction · |gap|``).
    Passes when every run passes. ``claim_metric``: the curve is the claim's own quantity (a level the claim reads,
    or :func:`gap_frame`'s gap): the check then records the quantity's ``trend`` (+1 rising, −1 falling, 0 flat
    within its CI; the run whose check failed decides, else 0) for :func:`gate`.

    >>> f = curves_from_lists({("a − b", 0): [0.0, -0.1, -0.2, -0.3, -0.4, -0.5]})
    >>> check = plateau(f, what="gap", claim_metric=True)
    >>> check.passed, check.trend
    (False, -1)
    """
    frame = curve_frame(frame)
    parts, failed_trends, passed = [], [], True
    for run, g in frame.groupby("run", sort=False):
        mean = g.groupby("step")["value"].mean()
        if len(mean) < 3:
            return Validity("plateau", False, f"{what}: {run} has {len(mean)} logged steps, too few to fit")
        if mean.nunique() == 1:
            parts.append(f"{run}: constant at {mean.iloc[0]:.4g}")
            continue
        check = _line_plateau(mean.index.to_numpy(float), mean.to_numpy(float), gap=gap, fraction=fraction,
                              tail=tail)
        if not check.passed:
            passed = False
            failed_trends.append(_trend(check.detail))
        parts.append(f"{run}: {check.detail}" + ("" if check.passed else " — still moving"))
    trend = (failed_trends[0] if failed_trends else 0) if claim_metric else None
    seeds = frame["seed"].nunique()
    runs = frame["run"].nunique()
    moving = [p for p in parts if p.endswith("still moving")]
    if runs > 3:          # many configurations: name the ones still moving (or say all are flat), show one
        shown = moving[:2] if moving else parts[:1]
        head = (f"{len(moving)} of {runs} configurations still moving" if moving
                else f"all {runs} configurations at their plateau")
        parts = [head + "; e.g. " + "; ".join(shown)]
    return Validity("plateau", passed, f"{what} (mean of {seeds} seed{'s' if seeds > 1 else ''}): "
                                       + "; ".join(parts), trend=trend)


#: the slope a failed line fit states in its detail (:func:`companion.stats.plateau`): "…% +9.95e-05/step, …"
_RATE = re.compile(r"([+-]?\d[\d.]*(?:e[+-]?\d+)?)/step")


def _trend(detail: str) -> int:
    """The sign of a failed line fit's slope, read from :func:`companion.stats.plateau`'s CI in its detail."""
    lo_hi = detail.split("CI [", 1)[1].split("]", 1)[0].split(",")
    lo, hi = float(lo_hi[0]), float(lo_hi[1])
    return 1 if lo > 0 else (-1 if hi < 0 else 0)


def room(base: float, paper_effect: float, *, what: str, lower: float = 0.0, upper: float = 1.0) -> Validity:
    """A ``ceiling`` (the paper's change is a gain) or ``floor`` (a loss) check of a bounded metric: does the
    reference level ``base`` leave room for the paper's change? Fails when the room on the paper's side is
    smaller than ``|paper_effect|``; the room on the other side is reported too, and ``blocked`` records the side
    (+1 up, −1 down) that lacks it, for :func:`gate` (a firm reversal is never held back by it).

    >>> room(0.95, 0.2, what="AUC").passed, room(0.95, 0.2, what="AUC").blocked
    (False, 1)
    """
    if not (lower < upper and lower <= base <= upper):
        raise ValueError(f"room(): base {base} must lie in [{lower}, {upper}]")
    gain = paper_effect > 0
    up, down = upper - base, base - lower
    left = up if gain else down
    name = "ceiling" if gain else "floor"
    ok = left >= abs(paper_effect)
    detail = (f"{what} is {base:.3f}, leaving {left:.3f} of room for the paper's change of {paper_effect:+.3f} "
              f"({down if gain else up:.3f} on the other side)")
    return Validity(name, bool(ok), detail, blocked=None if ok else (1 if gain else -1))


def gate(judgement: Judgement, checks: Sequence[Validity], *, side: int | None = None) -> Judgement:
    """The verdict after the validity checks (see the module docstring). ``judgement``: the criterion's verdict;
    ``side``: the paper's side for the claim's quantity (+1 the paper's statement lies above ours or says A > B,
    −1 below), when known; without it a trend cannot be read and every failed check gates.

    >>> from companion.stats.verdicts import Validity
    >>> away = Validity("plateau", False, "gap still falling", trend=-1)
    >>> gate(Judgement("not reproduced", "reversed"), [away], side=1).verdict
    'not reproduced'
    >>> gate(Judgement("reproduced"), [away], side=1).verdict
    'inconclusive'
    """
    if judgement.verdict == "not testable":
        return judgement
    firing = []
    for check in checks:
        if check.passed:
            continue
        if check.name == "plateau" and check.trend is not None and side in (1, -1):
            toward = check.trend * side            # +1: the quantity moves towards the paper's side
            agrees = judgement.verdict in AGREEING
            if (toward < 0 and judgement.verdict == "not reproduced") or (toward > 0 and agrees):
                continue
        if check.name in ("ceiling", "floor") and check.blocked is not None and judgement.verdict == "not reproduced" \
                and (judgement.reason or "").startswith("reversed"):
            continue
        firing.append(check)
    if not firing:
        return judgement
    return Judgement("inconclusive", "; ".join(c.reason for c in firing))


def to_decide(judgement: Judgement, checks: Sequence[Validity], ours=None, *, paper_effect: float | None = None,
              steps: float | None = None) -> str | None:
    """For an ``inconclusive`` verdict, what deciding it would take, from our own measurements: the seeds the
    design's spread needs to detect the paper's effect (:func:`companion.stats.n_for_power`), a longer run where a
    plateau check failed (how fast its curve still moves), a run that trains, or a reference with room. None for a
    decided verdict. ``steps``: the run's step budget, when known, to state the longer run as a multiple.

    >>> from companion.stats import sample
    >>> print(to_decide(Judgement("inconclusive", "underpowered"), [], sample([0.1, -0.3, 0.4]), paper_effect=0.2))
    about 27 seeds (80 % power at the paper's effect, from our seeds' spread)
    """
    if judgement.verdict != "inconclusive":
        return None
    parts = []
    for check in checks:
        if check.passed:
            continue
        if check.name == "plateau":
            found = _RATE.search(check.detail)
            rate = found.group(1) if found else None
            longer = f"at least {2 * steps:g} steps" if steps else "a longer run"
            parts.append(f"{longer} (the curve still moves{' ' + rate + ' per step' if rate else ''})")
        elif check.name == "trained":
            parts.append("a run whose objective moves (see the trained check)")
        elif check.name in ("ceiling", "floor"):
            parts.append("a test set or reference level with room for the paper's change")
        elif check.name == "record":
            parts.append("the run's training record")
    reason = judgement.reason or ""
    if isinstance(ours, Comparison) and paper_effect and ours.sd is not None and not parts \
            and ("underpowered" in reason or "covers" in reason):
        need = n_for_power(ours.sd, paper_effect, ours.confidence)
        parts.append(f"about {need} seeds ({round(100 * POWER)} % power at the paper's effect, from our seeds' "
                     "spread)" if need else "far more seeds than 10,000 at our seeds' spread")
    return "; ".join(dict.fromkeys(parts)) or None
