r"""Validity checks measured in the circumplex head runs (notebooks 02–04), for ``Ledger.claim(validity=...)``.

A claim that compares trained heads is only as good as those runs. Two checks are read off each run's own record:

* ``trained`` (:func:`trained`): every run the claim compares lowered its training loss (the mean of the last five
  steps) below :data:`TRAINED_RATIO` of its first step;
* ``plateau`` (:func:`plateau`): the probed runs (the first seed's runs, trained on past their budget for the curve
  only, :func:`companion.papers.circumplex.experiments.head_run`) have a flat test V-Measure curve from the budget
  on — :func:`companion.stats.plateau` fitted to the stretch from the budget to the end of the probe: its slope CI
  covers 0, or (where the claim compares a V-Measure gap) the fitted gain over that stretch is at most a quarter of
  the gap.

:func:`run_plateau` is the same check for one run (its curve: :func:`run_curve`), probed or not, for a claim that
rests on single runs. A failed check makes the claim ``inconclusive`` (``did not train: …`` / ``budget: …``). Where
the record of the runs is missing (e.g. notebook 03 without notebook 02's cache) the check is a failed ``record`` check, never a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from companion import stats

__all__ = ["TRAINED_RATIO", "select", "trained", "plateau", "quantity_plateau", "curve_column", "trained_checks",
           "run_checks", "reloaded_checks", "missing_record", "run_curve", "run_plateau"]

#: A run trained when the mean loss of its last five steps is below this fraction of its first step's loss.
TRAINED_RATIO = 0.9
#: Columns that name a run in a check's detail, in this order where present.
_NAME_COLUMNS = ("dataset", "labels", "kind", "head", "loss", "margin")


def select(runs: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
    """The rows of ``runs`` whose column ``c`` equals ``where[c]`` (or lies in it, for a list or tuple)."""
    keep = pd.Series(True, index=runs.index)
    for col, value in where.items():
        if col not in runs:
            raise KeyError(f"the runs have no column {col!r} (they have {', '.join(map(str, runs.columns))}).")
        values = list(value) if isinstance(value, (list, tuple, set)) else [value]
        keep &= runs[col].isin(values)
    return runs[keep]


def _name(row: Mapping[str, Any]) -> str:
    parts = []
    for col in _NAME_COLUMNS:
        value = row.get(col)
        if value is None or (isinstance(value, float) and np.isnan(value)):
            continue
        if col == "margin":
            if float(value) > 0:
                parts.append(f"m = {float(value):g}")
        elif col == "labels":
            parts.append(f"{int(value)} labels")
        else:
            parts.append(str(value))
    return "/".join(parts) + f" seed {row['seed']}"


def missing_record(what: str) -> stats.Validity:
    """A failed ``record`` check: the runs' record (losses, curves) is absent, so nothing could be checked."""
    return stats.Validity("record", False, f"no training record of {what}")


def trained(runs: pd.DataFrame, where: Mapping[str, Any]) -> stats.Validity:
    """``trained``: the one rule of :func:`companion.stats.validity.trained` on every selected run's training-loss
    curve (``loss_curve``: block means of the per-step loss). A run cached before curves were kept has only its first
    and final loss: those are judged by the ratio rule (final below :data:`TRAINED_RATIO` of first), and the detail
    says so."""
    rows = select(runs, where)
    if rows.empty or "first_loss" not in rows:
        return missing_record(f"the runs {dict(where)}")
    curves = rows["loss_curve"] if "loss_curve" in rows else pd.Series([None] * len(rows), index=rows.index)
    if all(isinstance(c, (list, tuple)) and len(c) >= 6 for c in curves):
        frame = pd.DataFrame([{"run": _name(r), "seed": r["seed"], "step": k, "value": v}
                              for r, c in zip(rows.to_dict("records"), curves) for k, v in enumerate(c)])
        return stats.validity.trained(frame, what="training loss (means of 10-step blocks)")
    rows = rows[rows["first_loss"].notna() & rows["final_loss"].notna()]
    if rows.empty:
        return missing_record(f"the runs {dict(where)}")
    ratio = rows["final_loss"].to_numpy(float) / rows["first_loss"].to_numpy(float)
    worst = int(np.argmax(ratio))
    passed = bool(np.all(ratio < TRAINED_RATIO))
    return stats.Validity("trained", passed,
                          f"training loss, last five steps over the first: at most {ratio[worst]:.3g} "
                          f"({_name(rows.iloc[worst].to_dict())}) over {len(rows)} run(s); each must be below "
                          f"{TRAINED_RATIO:g} (a cached run without its loss curve)")


def _probed(row: Mapping[str, Any]) -> bool:
    curve = row.get("curve")
    return isinstance(curve, Mapping) and len(curve) > 0 and max(curve) > int(row["steps"])


def _probed_rows(runs: pd.DataFrame, where: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The selected runs (``where``) that were probed past their budget, as records; none when no run kept a curve."""
    return [r for r in select(runs, where).to_dict("records") if _probed(r)] if "curve" in runs else []


def _probe_check(r: Mapping[str, Any], gap: float | None) -> stats.Validity:
    """:func:`companion.stats.plateau` of a probed run's test V-Measure curve from its budget to the end of the probe
    (at least three evaluations there)."""
    curve, budget = r["curve"], int(r["steps"])
    steps = sorted(curve)
    after = [s for s in steps if s >= budget]
    if len(after) < 3:
        raise ValueError(f"{_name(r)}: {len(after)} evaluations from the budget {budget} on; the plateau check "
                         "needs at least 3 (record the curve more often or probe further).")
    tail = (steps[-1] - budget) / (steps[-1] - steps[0])
    if len({curve[s] for s in after}) == 1:  # exactly constant: stats.plateau's fit has no spread (NaN CI)
        return stats.Validity("plateau", True, f"V constant at {curve[budget]:.4g} over {len(after)} evaluations")
    return stats.plateau(steps, [curve[s] for s in steps], gap=gap, tail=tail)


def plateau(runs: pd.DataFrame, where: Mapping[str, Any], *, gap: float | None = None) -> stats.Validity:
    """``plateau``: for every selected run that was probed past its budget, :func:`companion.stats.plateau` on its
    test V-Measure curve, fitted from the budget to the end of the probe (at least three evaluations), with ``gap``
    (a V-Measure gap the claim compares, or None). Passes when every probed run passes."""
    rows = _probed_rows(runs, where)
    if not rows:
        return missing_record(f"a learning curve past the budget for the runs {dict(where)}")
    parts, passed = [], True
    for r in rows:
        check = _probe_check(r, gap)
        passed &= check.passed
        parts.append(f"{_name(r)} (steps {int(r['steps'])}-{max(r['curve'])}): {check.detail}"
                     + ("" if check.passed else " — still moving"))
    return stats.Validity("plateau", bool(passed), "test V-Measure from the budget on; " + "; ".join(parts))


def curve_column(row: Mapping[str, Any]) -> str:
    """A probed run's column in :func:`quantity_plateau`'s side-by-side frame: its head (column ``head``, or
    ``kind``) and loss, ``"nGPT/SINCERE"``, with ``"/m=0.2"`` after it for a run trained with a margin.

    >>> curve_column({"kind": "nGPT", "loss": "CircularCSE", "margin": 0.2})
    'nGPT/CircularCSE/m=0.2'
    >>> curve_column({"head": "GPT", "loss": "SINCERE", "margin": 0.0})
    'GPT/SINCERE'
    """
    head = row.get("head", row.get("kind"))
    name = f"{head}/{row['loss']}"
    margin = row.get("margin")
    if margin is not None and not (isinstance(margin, float) and np.isnan(margin)) and float(margin) > 0:
        name += f"/m={float(margin):g}"
    return name


def quantity_plateau(runs: pd.DataFrame, where: Mapping[str, Any], quantity: Callable[[pd.DataFrame], pd.Series],
                     *, what: str, gap: float | None = None) -> stats.Validity:
    """``plateau`` of the claim's own quantity along training (the gap-stability check): the probed runs of
    ``where`` (those trained past their budget, one seed), their test V-Measure curves side by side (a frame indexed
    by step, one column per run, named by :func:`curve_column`), combined by ``quantity`` into one curve (e.g. the others'
    minimum minus the target: the gap the claim compares) over the steps all of them recorded, then
    :func:`companion.stats.validity.plateau` with ``claim_metric=True`` fitted from the budget to the end of the
    probe: it records which way the quantity still moves, so a gate holds back only a verdict that this could
    change, whatever the absolute V levels do. A missing probe gives a failed ``record`` check."""
    rows = _probed_rows(runs, where)
    if not rows:
        return missing_record(f"a learning curve past the budget for the runs {dict(where)}")
    frames = []
    for seed in sorted({r["seed"] for r in rows}):
        mine = [r for r in rows if r["seed"] == seed]
        side = pd.DataFrame({curve_column(r): pd.Series(r["curve"], dtype=float) for r in mine})
        side.index = side.index.astype(int)
        curve = quantity(side.dropna().sort_index())
        frames.append(pd.DataFrame({"run": what, "seed": seed, "step": curve.index, "value": curve.to_numpy(float)}))
    frame = stats.validity.curve_frame(pd.concat(frames, ignore_index=True))
    budget = max(int(r["steps"]) for r in rows)
    first, last = frame["step"].min(), frame["step"].max()
    if (frame["step"] >= budget).sum() < 3 * frame["seed"].nunique():
        return stats.Validity("plateau", False, f"{what}: fewer than 3 evaluations from the budget {budget} on")
    return stats.validity.plateau(frame, what=f"{what} from the budget {budget} to {last}", gap=gap, claim_metric=True,
                                  tail=(last - budget) / (last - first))


def run_curve(row: Mapping[str, Any]) -> tuple[list[int], list[float]]:
    """One run's learning curve (:func:`companion.papers.circumplex.experiments.head_run` with ``curve_every``):
    the recorded steps, in order, and the test V-Measure at each; empty lists when the run recorded none."""
    curve = row.get("curve")
    if not isinstance(curve, Mapping) or not curve:
        return [], []
    steps = sorted(int(s) for s in curve)
    return steps, [float(curve[s]) for s in steps]


def run_plateau(row: Mapping[str, Any], *, gap: float | None = None, tail: float = 1 / 3) -> stats.Validity:
    """The ``plateau`` check of ONE head run (a row of a runs frame, or a
    :func:`~companion.papers.circumplex.experiments.head_run` scores dict with its ``steps``), for
    ``Ledger.claim(validity=[...])``:

    * a run probed past its budget: :func:`companion.stats.plateau` fitted from the budget to the end of the probe
      (as :func:`plateau`);
    * a run whose curve ends at its budget: :func:`companion.stats.plateau` over the last ``tail`` of the curve (at
      least three evaluations): is the run still climbing when it stops?

    ``gap``: the V-Measure gap a claim compares (the run passes when its fitted gain is at most a quarter of it).
    A run that recorded no curve gives a failed ``record`` check; fewer than three evaluations a failed
    ``plateau`` check (too few to fit)."""
    steps, values = run_curve(row)
    name = _name(row) if "seed" in row else "the run"
    if not steps:
        return missing_record(f"a learning curve of {name}")
    if "steps" in row and _probed(row):
        after = [s for s in steps if s >= int(row["steps"])]
        if len(after) < 3:
            return stats.Validity("plateau", False, f"{name}: {len(after)} evaluation(s) from the budget "
                                                    f"{int(row['steps'])} on, too few to fit (probe further)")
        check = _probe_check(row, gap)
        where = f"from the budget {int(row['steps'])} to {steps[-1]}"
    elif len(steps) < 3:
        return stats.Validity("plateau", False, f"{name}: {len(steps)} evaluation(s) of test V-Measure, too few to "
                                                "fit (record the curve more often)")
    elif len(set(values)) == 1:
        check = stats.Validity("plateau", True, f"V constant at {values[0]:.4g} over {len(steps)} evaluations")
        where = "over the whole curve"
    else:
        check = stats.plateau(steps, values, gap=gap, tail=tail)
        where = f"over the last {tail:.0%} of steps 0-{steps[-1]}"
    return stats.Validity("plateau", check.passed, f"{name}, test V-Measure {where}: {check.detail}"
                          + ("" if check.passed else " — still moving"))


def trained_checks(runs: pd.DataFrame | None, where: Mapping[str, Any], *,
                   what: str = "the compared runs") -> list[stats.Validity]:
    """``[trained]`` for the runs a claim compares (``where`` selects them from ``runs``), for a claim whose own
    quantity has no curve (measured on the final runs only); with no ``runs`` at all, one failed ``record`` check
    naming ``what``."""
    if runs is None or len(runs) == 0:
        return [missing_record(what)]
    return [trained(runs, where)]


def run_checks(runs: pd.DataFrame | None, where: Mapping[str, Any], *, gap: float | None = None,
               what: str = "the compared runs") -> list[stats.Validity]:
    """``[trained, plateau]`` for the runs a claim compares (``where`` selects them from ``runs``); with no
    ``runs`` at all, one failed ``record`` check naming ``what``."""
    if runs is None or len(runs) == 0:
        return [missing_record(what)]
    return [trained(runs, where), plateau(runs, where, gap=gap)]


def reloaded_checks(runs: pd.DataFrame | None, source: Mapping[tuple[str, str, int], str], kinds: Sequence[str],
                    losses: Sequence[str], seeds: Sequence[int], *, reloaded: str = "02 cache") -> list[stats.Validity]:
    """The validity checks of a claim on heads reloaded from another notebook's cache (``source``: where each
    ``(kind, loss, seed)`` head came from; ``runs``: that notebook's record of its runs, head kinds in ``kind``):
    the ``trained`` check of the compared runs (``kinds`` x ``losses``). A head trained anew has no record, so any
    head of the claim whose source is not ``reloaded`` gives one failed ``record`` check instead. No plateau check:
    these claims read quantities measured on the final heads (PCA, geometry, unseen labels, another corpus), whose
    curve was not recorded; the V-Measure curve is another quantity."""
    if runs is None or any(source.get((k, loss, s)) != reloaded for k in kinds for loss in losses for s in seeds):
        return [missing_record("the heads (trained anew here, not the reloaded ones)")]
    return trained_checks(runs, {"kind": list(kinds), "loss": list(losses)})
