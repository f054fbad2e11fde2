"""AnglE §4: the fine-tuning runs of notebooks ``angle/02`` (Tables 2–3) and ``angle/03`` (Table 4, Fig. 5).

* :func:`sts_objectives`, :func:`sts_task_runs` — the three objectives (AnglE, CoSENT only, InfoNCE only) on each
  task (STS-B, MRPC, SNLI → seven STS sets), every seed, beside the untrained encoder (02);
* :func:`mean_std`, :func:`seed_scores` — mean ± std tables and per-seed scores paired by seed (02);
* :class:`AblationRuns` — Table 4's objective and pooling variants fine-tuned on STS-B (03);
* :func:`ablation_summary`, :func:`seed_table`, :func:`trained_validity`, :func:`table4_gap` — Table 4 beside the
  paper and the fields of a Table 4 gap claim (ours A − B over seeds against the paper's A − B) (03);
* :func:`trained_validity`, :func:`idle_validity`, :func:`ceiling_validity`, :func:`loss_plateau`,
  :func:`moved_validity`, :func:`score_plateau` — the validity checks measured in our runs
  (:class:`companion.stats.Validity`) that a claim on trained runs carries (:func:`moved_validity` also in notebook
  ``synthesis/01``); :func:`claim_checks` gathers those of one Table 2-3 claim, its plateau read on the claim's own
  score gap along training (:func:`score_curves`).

Every run records whether it moved (``score_change``, ``score_noise``, ``drift``:
:func:`companion.papers.angle.pairs.movement`), and every experiment takes ``n_top``, the number of top layers to
fine-tune (default: the base's own split).

Every run goes through :func:`companion.papers.angle.pairs.upper_experiment` (same batches per seed for every
objective); every comparison through :mod:`companion.stats`.

Kept whole because the run builders and the validity checks share one contract, the run tables: the builders write
their columns (``loss_curve``, the movement record, ``curve``) and the checks read exactly those, so a change to one
side is a change to the other; notebooks ``angle/02``, ``angle/03`` and ``synthesis/01`` import both from here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch
from tqdm.auto import tqdm

from companion import stats
from companion.data import load_nli_train, load_snli, load_stsb
from companion.display import FIGURE_WIDTH_IN, panel_grid
from companion.losses.angle import AnglEObjective, CosineRegression, ibn_targets, split_pairs
from companion.losses.core import pairwise_ranking_loss
from companion.papers.angle.pairs import PairData, bucket_wasserstein, split_base, upper_experiment
from companion.similarities import complex_angle, row_cosine
from companion.training import index_batches, seed_everything

#: the names 02 gives its objectives (AnglE's public code weights 1/1/1 for AnglE); SBERT is its regression objective
ANGLE, COSENT, INFONCE, SBERT = "AnglE", "CoSENT only", "InfoNCE only (SimCSE-like)", "SBERT (cosine regression)"
#: a run "moved" when its embeddings of the evaluated sentences turned by at least this much on average
#: (mean 1 − cos between the untrained and the trained embedding; :func:`moved_validity` says why)
DRIFT_MIN = 1e-3
#: the movement record of every run, as columns of the run tables (:func:`companion.papers.angle.pairs.movement`)
MOVEMENT_COLUMNS = ("score_change", "score_noise", "drift")


def _movement(run: Mapping) -> dict[str, float]:
    return {k: float(run["movement"][k]) for k in MOVEMENT_COLUMNS}


# --------------------------------------------------------------------------------------------- 02: Tables 2-3
#: the NLI labels AnglE's transfer setting trains on: entailment a positive pair, contradiction a negative, neutral
#: dropped (the public code's NLI training; the paper's §1 on the vague neutral/entailment boundary)
NLI_LABELS = {"entailment": 1.0, "contradiction": 0.0}


def nli_pairs(source: str | None = None, n: int | None = None, seed: int = 0):
    """AnglE's transfer-training pairs (:data:`NLI_LABELS`), ``n`` of them drawn with ``seed`` (all when ``None``).

    ``source="full"`` (the gpu profile): the whole SNLI and MultiNLI training splits (§4.3 trains on MNLI and SNLI;
    :func:`companion.data.load_nli_train` refuses a missing, cut or subset file); otherwise (``None`` or
    ``"mirror"``) the mirror's SNLI dev and test pairs, as the cpu profile trains (SNLI train is not mirrored)."""
    from datasets import concatenate_datasets  # noqa: PLC0415 - datasets is heavy; this module imports without it

    if source == "full":
        parts = [load_nli_train("snli"), load_nli_train("mnli")]
    elif source in (None, "mirror"):
        parts = [load_snli("dev"), load_snli("test")]
    else:
        raise ValueError(f"source must be 'full', 'mirror' or None, got {source!r}.")
    return PairData.from_dataset(concatenate_datasets(parts), "premise", "hypothesis", "label",
                                 label_map=NLI_LABELS.get).subset(n, seed)


def checkpoint_selection(cfg: Mapping, tasks: Sequence[str] | None = None) -> dict[str, Any]:
    """Keyword arguments that keep every run's best checkpoint on STS-B dev when ``cfg`` sets ``eval_every`` (the gpu
    profile, as the authors' training evaluates a validation set and keeps the best; the cpu profile trains to its
    last step and gets ``{}``): for :func:`sts_task_runs`, ``tasks`` names the tasks that select on it; without
    ``tasks``, one set for :class:`AblationRuns`."""
    every = cfg.get("eval_every") or 0
    if not every:
        return {}

    dev = PairData.from_dataset(load_stsb("dev"))
    return {"select_on": dev if tasks is None else {task: dev for task in tasks}, "eval_every": int(every)}


def sts_objectives(positive_threshold: float | None, *, tau_cos: float, tau_ibn: float, tau_angle: float,
                   label_max: float | None = None, positives: str = "sum") -> dict[str, Any]:
    """AnglE (CoSENT + in-batch negatives + angle, weights 1/1/1), CoSENT only and InfoNCE only at the given
    temperatures, and with ``label_max`` SBERT's cosine regression (labels divided by ``label_max``; ``None``: no
    SBERT run); ``positive_threshold`` makes graded labels binary for the in-batch-negative term (STS-B: gold
    >= 4; ``None`` for binary labels) and ``positives`` is how that term counts a row's several positives
    (:func:`companion.losses.angle.ibn_loss`: ``"sum"``, the authors' code, or ``"mean"``). AnglE §4.1–4.3,
    Tables 2–3."""
    taus = dict(tau_cos=tau_cos, tau_ibn=tau_ibn, tau_angle=tau_angle)
    out: dict[str, Any] = {
        ANGLE: AnglEObjective(1, 1, 1, **taus, positive_threshold=positive_threshold, positives=positives),
        COSENT: AnglEObjective(1, 0, 0, **taus),
        INFONCE: AnglEObjective(0, 1, 0, **taus, positive_threshold=positive_threshold, positives=positives),
    }
    if label_max is not None:
        out[SBERT] = CosineRegression(label_max)
    return out


def sts_task_runs(base, tasks: Mapping[str, tuple], seeds: Sequence[int], *, taus: Mapping[str, float],
                  batch_size: int, lr: float, warmup: int, buckets: int, pretrained_label: str,
                  progress: bool = True, n_top: int | None = None, positives: str = "sum",
                  select_on: Mapping[str, Any] | None = None, eval_every: int = 0, profile: str | None = None,
                  poolings: Mapping[str, str] | None = None, curve_points: int = 0):
    """Every task's untrained row and its fine-tuning runs (AnglE Tables 2–3 analogue).

    ``tasks`` maps a task name to ``(train pairs, {eval name: pairs}, steps, positive threshold, label_max)``
    (``label_max``: the SBERT regression's label scale, ``None`` for no SBERT run). Per task, in
    order: the untrained copy of ``base`` (``seed = -1``, labelled ``pretrained_label``), then each of
    :func:`sts_objectives` (``taus``: ``tau_cos``, ``tau_ibn``, ``tau_angle``; ``positives``) at each seed through
    :func:`~companion.papers.angle.pairs.upper_experiment` (``n_top``: top layers fine-tuned, default the base's).
    A task's ``steps`` of ``None`` is one pass over its training pairs (``len // batch_size``). ``select_on`` maps a
    task to its validation pairs: with ``eval_every > 0`` that task's runs keep their best checkpoint on it
    (``upper_experiment``'s ``select_on``; the gpu profile, as the authors train), the others their last step.
    ``profile`` (the notebook's ``cfg.profile``): the gpu profile's runs checkpoint and are kept. ``poolings`` maps a
    task to the pooling its runs (and its untrained row) train and evaluate with, where it is not the base's (the
    gpu profile's transfer runs: the released model of Table 2's AnglE-BERT row pools ``cls_avg``, here
    ``cls-mean``).
    Returns one row per run: ``task, objective, seed``, a column per evaluation set, and for trained runs ``steps,
    train_s, run_s, loss_first10, loss_last10``, ``loss_curve`` (the training loss at every step) and the movement
    record ``score_change, score_noise, drift`` (:func:`moved_validity`); ``best_step`` when a task selects.
    ``curve_points > 0``: every trained run also scores its evaluation sets ``curve_points`` times along training
    (every ``steps // curve_points`` steps, :func:`~companion.papers.angle.pairs.upper_experiment`'s
    ``curve_every``), as a ``curve`` column ``{step: {set: Spearman}}`` that :func:`score_plateau` reads.
    """
    rows = []
    for task, (train_data, evals, steps, threshold, label_max) in tasks.items():
        steps = len(train_data) // batch_size if steps is None else steps
        curve = {"curve_every": max(1, steps // curve_points)} if curve_points else {}
        select = dict(select_on=select_on[task], eval_every=eval_every) if select_on and task in select_on else {}
        pooling = {"pooling": poolings[task]} if poolings and task in poolings else {}
        pre = upper_experiment(base, train_data, evals, None, seed=0, steps=0, batch_size=batch_size, lr=lr,
                               n_top=n_top, **pooling)
        rows.append({"task": task, "objective": pretrained_label, "seed": -1, **pre["scores"]})
        jobs = [(o, s) for o in sts_objectives(threshold, **taus, label_max=label_max, positives=positives).items()
                for s in seeds]
        for (name, objective), seed in tqdm(jobs, desc=task, disable=not progress):
            t1 = time.perf_counter()
            run = upper_experiment(base, train_data, evals, objective, seed=seed, steps=steps, batch_size=batch_size,
                                   lr=lr, warmup_steps=warmup, buckets=buckets, n_top=n_top, profile=profile,
                                   **select, **pooling, **curve)
            rows.append({"task": task, "objective": name, "seed": seed, **run["scores"], "steps": steps,
                         "train_s": run["train_s"], "run_s": time.perf_counter() - t1,
                         "loss_first10": run["loss_first"], "loss_last10": run["loss_last"],
                         "loss_curve": run["loss_curve"], **_movement(run),
                         **({"best_step": run["best_step"]} if select else {}),
                         **({"curve": run["curve"]} if curve else {})})
    return pd.DataFrame(rows)


def batch_size_runs(base, train_data, evals: Mapping[str, Any], objective, sizes: Sequence[int],
                    seeds: Sequence[int], *, pairs: int, lr: float, warmup: int, buckets: int, progress: bool = True,
                    n_top: int | None = None, profile: str | None = None, pooling: str | None = None,
                    curve_points: int = 0):
    """AnglE App. A.5's batch-size effect at equal data: for each batch size and seed, one run of ``objective``
    over ``pairs // size`` steps (the same number of pairs seen at every size, one pass), scored on ``evals``
    (``n_top``: top layers fine-tuned, default the base's; ``profile``: the notebook's ``cfg.profile``, whose gpu
    runs checkpoint and are kept; ``pooling``: the runs' pooling where it is not the base's). Returns one row per run: ``batch_size, seed, steps``, a
    column per evaluation set, ``loss_curve``, the movement record (``score_change, score_noise, drift``) and
    ``run_s``; with ``curve_points > 0`` a ``curve`` column as :func:`sts_task_runs` (every ``steps //
    curve_points`` steps, so that runs of every size are scored at the same shares of the pass)."""
    if any(int(b) < 2 or int(b) > pairs for b in sizes):
        raise ValueError(f"every batch size must be in [2, pairs={pairs}], got {list(sizes)}.")
    rows = []
    for size, seed in tqdm([(b, s) for b in sizes for s in seeds], desc="batch sizes", disable=not progress):
        t1 = time.perf_counter()
        steps = pairs // size
        curve = {"curve_every": max(1, steps // curve_points)} if curve_points else {}
        run = upper_experiment(base, train_data, evals, objective, seed=seed, steps=steps, batch_size=size, lr=lr,
                               warmup_steps=min(warmup, steps // 10), buckets=buckets, n_top=n_top, profile=profile,
                               **({"pooling": pooling} if pooling else {}), **curve)
        rows.append({"batch_size": size, "seed": seed, "steps": steps, **run["scores"],
                     "loss_curve": run["loss_curve"], **_movement(run), "run_s": time.perf_counter() - t1,
                     **({"curve": run["curve"]} if curve else {})})
    return pd.DataFrame(rows)


def ceiling_validity(vs_untrained, task: str) -> stats.Validity:
    """The ``ceiling`` check of a gap claim on ``task``: failed when fine-tuning lowered the score below the untrained
    encoder (``vs_untrained``: :func:`companion.stats.paired` of the fine-tuned AnglE and the untrained scores, CI
    entirely below 0). Then the untrained encoder is a ceiling the runs cannot reach, and a difference between runs
    ranks which objective harms the already trained encoder least, not which one trains a better encoder. With one
    seed (no CI) nothing is measured and the check passes, saying so."""
    if vs_untrained.ci is None:
        return stats.Validity("ceiling", True, f"on {task}: one seed, AnglE − untrained {vs_untrained.estimate:+.2f} "
                                               "(no CI)")
    lo, hi = vs_untrained.ci
    below = vs_untrained.excludes_zero() == -1
    detail = f"on {task} AnglE − untrained MiniLM {vs_untrained.estimate:+.2f}, CI [{lo:+.2f}, {hi:+.2f}]"
    if below:
        detail += (": fine-tuning lowers the encoder below its untrained score, so a gap between runs ranks which one "
                   "harms it least, not which trains a better one")
    return stats.Validity("ceiling", not below, detail)


def idle_validity(runs, task: str, objective: str, *, near_zero: float | None = None) -> stats.Validity:
    """``trained`` of ``objective`` on ``task`` (:func:`sts_task_runs` rows): the one rule of
    :func:`companion.stats.validity.trained` on every seed's ``loss_curve``; failed for an in-batch-negative loss
    already below ``near_zero`` (e.g. 0.05) over the first ten steps: nothing to learn."""
    sub = runs[(runs["task"] == task) & (runs["objective"] == objective)]
    if sub.empty:
        raise ValueError(f"no runs of {objective!r} on {task!r}.")
    if near_zero is not None and (first := float(sub["loss_first10"].mean())) < near_zero:
        return stats.Validity("trained", False, f"{objective} on {task}: loss {first:.3f} over the first ten steps ("
                              "MiniLM was trained with in-batch negatives on about a billion pairs, so the term is "
                              "near zero from step one)")
    return _curves_trained(sub, f"{objective} on {task}")


def loss_plateau(frame, labels: Sequence[str], *, key: str = "objective", tail: float = 1 / 3) -> stats.Validity:
    """The ``plateau`` check of the runs of ``labels`` (rows of ``frame`` whose ``key`` is one of them, each with its
    per-step ``loss_curve``): every run's training loss is at its plateau over the last ``tail`` of its steps
    (:func:`companion.stats.plateau`: a line fitted there has a slope whose 95 % CI covers 0). A curve of fewer than
    three steps cannot be fitted: the check fails, saying so."""
    sub = frame[frame[key].isin(list(labels))]
    missing = [lab for lab in labels if lab not in set(sub[key])]
    if missing:
        raise KeyError(f"loss_plateau(): no runs of {missing}.")
    checks, short = [], []
    for _, row in sub.iterrows():
        curve = list(row["loss_curve"])
        if len(curve) < 3:
            short.append(f"{row[key]} seed {row['seed']} ({len(curve)} steps)")
            continue
        checks.append((row[key], row["seed"], stats.plateau(np.arange(1, len(curve) + 1), curve, tail=tail)))
    failed = [(lab, seed, c) for lab, seed, c in checks if not c.passed]
    detail = f"{len(checks) - len(failed)} of {len(sub)} runs of {', '.join(labels)} at their training-loss plateau"
    if failed:
        lab, seed, c = failed[0]
        detail += f" (e.g. {lab} seed {seed}: {c.detail})"
    if short:
        detail += "; too few steps to fit: " + ", ".join(short)
    return stats.Validity("plateau", not failed and not short, detail)


class NonFiniteScores(ValueError):
    """A recorded score along training that is not a finite number (:func:`score_curves`)."""


def score_curves(frame, where: Mapping[str, Any], column: str, *, key: str = "objective",
                 along: str = "step") -> pd.DataFrame:
    """The claim's own metric along training, as a tidy curve frame (:func:`companion.stats.validity.curve_frame`):
    one row per run of ``frame`` selected by ``where`` (columns equal to, or in, the given values), seed and recorded
    step, with ``run`` the run's ``key`` (as a string) and ``value`` its score on the evaluation set ``column`` (its
    ``curve``, :func:`sts_task_runs`); ``column="avg"`` is the mean over every set of the curve. ``along="fraction"``
    puts the steps as shares of each run's ``steps`` (runs of different lengths over the same pairs, App. A.5)."""
    if along not in ("step", "fraction"):
        raise ValueError(f"along must be 'step' or 'fraction', got {along!r}.")
    keep = np.ones(len(frame), dtype=bool)
    for col, value in where.items():
        keep &= frame[col].isin(list(value) if isinstance(value, (list, tuple, set)) else [value]).to_numpy()
    rows = frame[keep]
    if rows.empty or "curve" not in rows or rows["curve"].isna().any():
        raise KeyError(f"score_curves(): no recorded score curve for the runs {dict(where)}.")
    out = []
    for r in rows.to_dict("records"):
        for step, scores in r["curve"].items():
            value = float(np.mean(list(scores.values()))) if column == "avg" else float(scores[column])
            out.append({"run": str(r[key]), "seed": r["seed"], "value": value,
                        "step": step / r["steps"] if along == "fraction" else step})
    frame = pd.DataFrame(out)
    bad = frame[~np.isfinite(frame["value"])]
    if len(bad):
        raise NonFiniteScores(f"score_curves(): {len(bad)} recorded score(s) of {column!r} are not finite (e.g. "
                         f"{bad.iloc[0]['run']} seed {bad.iloc[0]['seed']} at step {bad.iloc[0]['step']}).")
    return stats.validity.curve_frame(frame)


def score_plateau(frame, where: Mapping[str, Any], column: str, a, b=None, *, key: str = "objective",
                  along: str = "step", gap: float | None = None, what: str = "") -> stats.Validity:
    """``plateau`` read on the claim's own quantity (:func:`companion.stats.validity.plateau` with
    ``claim_metric=True``, which records the way it still moves): the score on ``column`` of the runs ``a`` (a
    value of ``key``) minus those of ``b``, paired by seed and recorded step (:func:`score_curves`,
    :func:`companion.stats.validity.gap_frame`), or ``a``'s score alone when ``b`` is None (a level claim, or a
    gap to the untrained encoder, a constant). ``gap``: the compared gap, whose quarter bounds the gain over the
    last third."""
    sel = dict(where)
    sel[key] = [a] if b is None else [a, b]
    try:
        curves = score_curves(frame, sel, column, key=key, along=along)
    except NonFiniteScores as err:  # a score that is not a number along the way: nothing to fit, the check fails
        return stats.Validity("plateau", False, str(err))
    curve = curves if b is None else stats.validity.gap_frame(curves, str(a), str(b))
    label = what or f"{column} score{'' if b is None else ' gap'}"
    return stats.validity.plateau(curve, what=f"{label} along training", gap=gap, claim_metric=True)


def claim_checks(runs, task: str, column: str, a: str, b: str | None = None, *, untrained: str,
                 ceiling: stats.Validity | None = None, gap: float | None = None,
                 near_zero: Mapping[str, float] | None = None) -> list[stats.Validity]:
    """The validity checks of a claim on ``task``'s runs (:func:`sts_task_runs` rows) comparing objective ``a`` with
    ``b`` on the evaluation set ``column`` (``"avg"``: the mean over the task's sets), or on ``a`` alone (``b`` None
    or ``untrained``, the untrained row's label):

    * ``trained`` per compared objective (:func:`idle_validity`, ``near_zero`` per objective) and every compared
      run moved (:func:`moved_validity`);
    * ``plateau`` of the claim's own quantity, the score gap ``a − b`` along training (:func:`score_plateau`; ``a``'s
      score for a level or a gap to the untrained encoder);
    * ``ceiling`` when given (:func:`ceiling_validity`)."""
    near_zero = near_zero or {}
    objectives = [o for o in (a, b) if o is not None and o != untrained]
    sub = runs[runs["task"] == task]
    other = b if b is not None and b != untrained else None
    return ([idle_validity(runs, task, o, near_zero=near_zero.get(o)) for o in objectives]
            + [moved_validity(runs, {"task": task, "objective": objectives}),
               score_plateau(sub[sub["seed"] >= 0], {}, column, a, other, gap=gap)]
            + ([ceiling] if ceiling is not None else []))


def run_moved(row: Mapping, *, drift_min: float = DRIFT_MIN) -> tuple[bool, str]:
    """Whether one run moved off its untrained copy (its movement record: ``score_change``, ``score_noise``,
    ``drift``; :func:`companion.papers.angle.pairs.movement`), and what was measured. A run moved when its score
    changed by more than the untrained score's noise OR its embeddings drifted by at least ``drift_min``."""
    change, noise, drift = (float(row[k]) for k in MOVEMENT_COLUMNS)
    moved = abs(change) > noise or drift >= drift_min
    return bool(moved), f"score {change:+.2f} against the untrained copy (noise ±{noise:.2f}), drift {drift:.2g}"


def moved_validity(frame, where: Mapping[str, Any], *, drift_min: float = DRIFT_MIN) -> stats.Validity:
    """The ``trained`` check that the runs a claim rests on moved: the rows of ``frame`` (run tables of
    :func:`sts_task_runs`, :func:`batch_size_runs` or :class:`AblationRuns`, with their movement record) whose
    column ``c`` equals ``where[c]`` (or lies in it, for a list or tuple). It fails, naming the runs, when any of
    them did not move (:func:`run_moved`): a claim on such a run becomes ``inconclusive: did not train``.

    **The threshold.** A run did not move when BOTH (a) its score on the evaluated pairs changed by no more than
    the untrained encoder's own noise there — 1.96 bootstrap standard errors of the untrained Spearman x 100 over
    resamples of the test pairs (the untrained encoder is deterministic, so resampling the pairs is the only spread
    it has; a change inside it is what re-drawing the test set would give) — AND (b) its embeddings of the
    evaluated sentences turned by less than :data:`DRIFT_MIN` on average (1 − cos = 10⁻³, a turn of about 2.6°,
    well under the angles between different sentences' embeddings that the objectives reorder; MiniLM's top layer
    trained for 64 steps on STS-B, the cpu profile's run, drifts by a few hundredths to about a tenth, while on 400
    test pairs the untrained score's noise band is about ±4 points, wider than any of those runs' score change,
    which is why the score alone cannot tell). Both are needed:
    a run can reorder pairs by turning every embedding a little (the score moves, the drift is small) or turn the
    embeddings without changing their order (the drift is large, the score does not move); only a run that does
    neither has not trained."""
    keep = np.ones(len(frame), dtype=bool)
    for col, value in where.items():
        if col not in frame:
            raise KeyError(f"moved_validity(): the runs have no column {col!r}.")
        keep &= frame[col].isin(list(value) if isinstance(value, (list, tuple, set)) else [value]).to_numpy()
    rows = frame[keep]
    missing = [k for k in MOVEMENT_COLUMNS if k not in rows]
    if rows.empty or missing:
        raise KeyError(f"moved_validity(): no runs with a movement record for {dict(where)}"
                       + (f" (missing columns {missing})" if missing else "") + ".")
    names = [c for c in ("task", "objective", "group", "variant", "batch_size") if c in rows]
    idle, parts = [], []
    for r in rows.to_dict("records"):
        moved, detail = run_moved(r, drift_min=drift_min)
        label = "/".join(str(r[c]) for c in names) + f" seed {r['seed']}"
        parts.append((moved, f"{label}: {detail}"))
        idle += [] if moved else [label]
    shown = [d for m, d in parts if not m][:3] or [parts[0][1]]
    detail = (f"{len(parts) - len(idle)} of {len(parts)} runs moved off the untrained encoder (score change beyond "
              f"its noise or drift ≥ {drift_min:g}); " + "; ".join(shown))
    return stats.Validity("trained", not idle, detail)


def mean_std(frame, cols: Sequence[str]):
    """Per objective (in order of appearance): ``"mean ± std"`` strings of ``cols`` (2 decimals; the std of one
    value shown as 0) and the unrounded means, as ``(table, means)``."""
    g = frame.groupby("objective", sort=False)[list(cols)]
    m, s = g.mean(), g.std().fillna(0)
    return m.round(2).astype(str) + " ± " + s.round(2).astype(str), m


def seed_scores(frame, col: str, objective: str, seeds: Sequence[int], pretrained: str) -> np.ndarray:
    """Scores ``col`` of one objective in the order of ``seeds``; the untrained model (``pretrained``: one
    deterministic score, ``seed = -1``) repeated once per seed, so that it pairs with every seed."""
    sub = frame[frame["objective"] == objective].set_index("seed")[col]
    if sub.empty:
        raise ValueError(f"no rows for objective {objective!r}.")
    return np.full(len(seeds), float(sub.iloc[0])) if objective == pretrained else sub.loc[list(seeds)].to_numpy()


# --------------------------------------------------------------------------------------------- 03: Table 4
@dataclass
class AblationRuns:
    """Table 4's fine-tuning runs on STS-B: one objective weighting and pooling per run, the rest fixed.

    ``base`` is the :class:`~companion.encoders.upper.UpperEncoder` with cached lower states (``keep_first=True``
    for first-last pooling); ``train_data``/``evals`` the STS-B pairs; the keyword settings are those of
    :func:`~companion.papers.angle.pairs.upper_experiment`; ``taus`` the three temperatures and
    ``positive_threshold`` the in-batch-negative positives (STS-B gold >= 4, our choice), ``positives`` how the
    in-batch term counts a row's several positives (``"sum"``, the authors' code; :func:`companion.losses.angle.ibn_loss`);
    ``n_top`` the number of top layers fine-tuned (default: the base's own split); ``select_on`` and ``eval_every``
    keep each run's best checkpoint on a validation set (the gpu profile; ``upper_experiment``); ``profile`` the
    notebook's ``cfg.profile`` (the gpu profile's runs checkpoint and are kept, ``upper_experiment``).
    """

    base: Any
    train_data: Any
    evals: Mapping[str, Any]
    steps: int
    batch_size: int
    lr: float
    warmup: int
    buckets: int
    taus: Mapping[str, float] = field(default_factory=dict)
    positive_threshold: float | None = None
    n_top: int | None = None
    positives: str = "sum"
    select_on: Any = None
    eval_every: int = 0
    profile: str | None = None

    def objective(self, weights: Sequence[float], **overrides) -> AnglEObjective:
        """AnglE's objective with Table 4's ``(w_cos, w_ibn, w_angle)`` weights; ``overrides`` replace settings of
        :class:`~companion.losses.angle.AnglEObjective` (e.g. ``tau_angle``, ``use_isp``)."""
        return AnglEObjective(*weights, **{**self.taus, "positive_threshold": self.positive_threshold,
                                           "positives": self.positives, **overrides})

    def run(self, weights: Sequence[float] | None, seed: int, pooling: str, objective=None) -> dict:
        """One fine-tuning run of Table 4's ``weights`` (or of any pair ``objective``): STS-B score ``ours``, the
        test cosines ``cos``, times, mean first/last losses, the per-step ``loss_curve`` and the movement record
        (``score_change``, ``score_noise``, ``drift``; :func:`moved_validity`)."""
        if (weights is None) == (objective is None):
            raise ValueError("pass exactly one of weights and objective.")
        t1 = time.perf_counter()
        r = upper_experiment(self.base, self.train_data, self.evals, objective or self.objective(weights), seed=seed,
                             steps=self.steps, batch_size=self.batch_size, lr=self.lr, warmup_steps=self.warmup,
                             buckets=self.buckets, return_cosines=True, pooling=pooling, n_top=self.n_top,
                             select_on=self.select_on, eval_every=self.eval_every, profile=self.profile)
        return {"ours": r["scores"]["STS-B"], "cos": r["cosines"]["STS-B"], "train_s": r["train_s"],
                "run_s": time.perf_counter() - t1, "loss_first10": r["loss_first"], "loss_last10": r["loss_last"],
                "loss_curve": r["loss_curve"], **_movement(r)}

    def frozen(self, pooling: str) -> tuple[float, Any]:
        """The untrained encoder with ``pooling``: its STS-B score and test cosines (no fine-tuning)."""
        r = upper_experiment(self.base, self.train_data, self.evals, None, seed=0, steps=0,
                             batch_size=self.batch_size, lr=self.lr, return_cosines=True, pooling=pooling,
                             n_top=self.n_top)
        return r["scores"]["STS-B"], r["cosines"]["STS-B"]


def ablation_summary(ablation, frozen: Mapping[str, tuple], paper4, pooling: str, seeds: Sequence[int]):
    """Table 4 beside the paper: per (group, variant) the mean and std over seeds, the mean first/last losses,
    the untrained score (``frozen[variant][0]`` for poolings; the objective rows' pooling is ``last-avg`` when
    ``pooling`` is ``mean``, else NaN), the paper's BERT-base value, an ``ours`` "mean ± std" string and the
    seeds. ``paper4`` has columns ``group, variant, stsb_test``."""
    summary = (ablation.groupby(["group", "variant"], sort=False)
               .agg(mean=("ours", "mean"), std=("ours", "std"), loss_first10=("loss_first10", "mean"),
                    loss_last10=("loss_last10", "mean")).reset_index())
    summary["frozen"] = [frozen[v][0] if g == "pooling" else (frozen["last-avg"][0] if pooling == "mean" else np.nan)
                         for g, v in zip(summary["group"], summary["variant"])]
    paper = paper4.rename(columns={"stsb_test": "paper (BERT-base)"})[["group", "variant", "paper (BERT-base)"]]
    summary = summary.merge(paper, on=["group", "variant"], how="left")
    summary["ours"] = summary["mean"].round(2).astype(str) + " ± " + summary["std"].fillna(0).round(2).astype(str)
    summary["seeds"] = ",".join(map(str, seeds))
    return summary


def seed_table(ablation, group: str, seeds: Sequence[int]):
    """Scores of one Table 4 group: a seed × variant table in the order of ``seeds`` (paired by seed)."""
    sub = ablation[ablation["group"] == group]
    if sub.empty:
        raise ValueError(f"no runs in group {group!r}.")
    return sub.pivot(index="seed", columns="variant", values="ours").loc[list(seeds)]


def _curves_trained(runs, what: str) -> stats.Validity:
    """:func:`companion.stats.validity.trained` on the ``loss_curve`` of every run in ``runs`` (one per seed)."""
    frame = pd.DataFrame([{"run": what, "seed": r["seed"], "step": k, "value": float(v)}
                          for r in runs.to_dict("records") for k, v in enumerate(r["loss_curve"])])
    if frame.empty:
        return stats.Validity("record", False, f"{what}: no training-loss curve recorded")
    return stats.validity.trained(frame, what=f"{what} training loss")


def trained_validity(runs, *variants: str, group: str = "objective",
                     explain: Mapping[str, str] | None = None) -> stats.Validity:
    """``trained`` of Table 4 ``variants`` of ``group``: :func:`companion.stats.validity.trained` on every run's
    ``loss_curve`` (``runs``: ``group, variant, seed, loss_curve``); ``explain[variant]`` is appended to an idle
    variant's entry (the measured cause)."""
    explain, parts, idle = explain or {}, [], []
    for v in variants:
        sub = runs[(runs["group"] == group) & (runs["variant"] == v)]
        if sub.empty:
            raise KeyError(f"trained_validity(): no runs of {v!r} in group {group!r}")
        check = _curves_trained(sub, v)
        parts.append(check.detail + ("" if check.passed or v not in explain else f": {explain[v]}"))
        idle += [] if check.passed else [v]
    return stats.Validity("trained", not idle, "; ".join(parts))


def table4_gap(paper4, by_seed, ablation, a: str, b: str, *, group: str = "objective",
               explain: Mapping[str, str] | None = None) -> dict:
    """The fields of a Table 4 gap claim: ours A − B paired over seeds against the paper's A − B.

    ``paper4`` maps ``(group, variant)`` to the paper's STS-B score, ``by_seed`` is :func:`seed_table`'s table of
    ``group``, ``ablation`` the runs (``group, variant, seed, loss_curve``, and the movement record where kept).
    Returns ``source``, ``paper_value`` (the gap rounded to 2 decimals), ``ours`` (:func:`companion.stats.paired`),
    ``criterion`` (:func:`companion.stats.direction` on the paper's gap: its tolerance comes from the policy, half
    the gap, as Table 4 prints one run per row) and ``validity`` (:func:`trained_validity` of both variants, with
    ``explain``'s cause; :func:`moved_validity` of both where the runs carry their movement record; and
    :func:`loss_plateau` of both), for ``Ledger.claim(**...)``.
    """
    pa, pb = float(paper4[(group, a)]), float(paper4[(group, b)])
    gap = round(pa - pb, 2)
    checks = [trained_validity(ablation, a, b, group=group, explain=explain)]
    runs = ablation[ablation["group"] == group]
    if all(c in runs for c in MOVEMENT_COLUMNS):
        checks.append(moved_validity(runs, {"variant": [a, b]}))
    checks.append(loss_plateau(runs, [a, b], key="variant"))
    return {"source": f"Table 4: {pa:.2f} - {pb:.2f}", "paper_value": gap,
            "ours": stats.paired(by_seed[a], by_seed[b]), "criterion": stats.direction(gap), "validity": checks}


#: the gold-score buckets of Fig. 5 (the last one closed: [4, 5])
FIG5_BUCKETS = ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5))


def bucket_masks(gold, buckets: Sequence[tuple[float, float]] = FIG5_BUCKETS) -> dict[str, np.ndarray]:
    """One boolean mask per gold bucket ``[lo, hi)``, the last bucket closed ``[lo, hi]``; keys are the labels
    ``"gold [lo, hi)"`` / ``"gold [lo, hi]"`` of Fig. 5's legend."""
    gold = np.asarray(gold, dtype=float)
    last = len(buckets) - 1
    return {f"gold [{lo}, {hi}{']' if i == last else ')'}": (gold >= lo) & ((gold <= hi) if i == last else (gold < hi))
            for i, (lo, hi) in enumerate(buckets)}


def plot_bucket_densities(cosines: Mapping[str, Any], gold, buckets: Sequence[tuple[float, float]] = FIG5_BUCKETS):
    """AnglE Fig. 5 analogue: per model (one panel each), the density of its test cosines in each gold bucket
    (:func:`bucket_masks`), titled with the rank-normalised bucket Wasserstein distance to gold
    (:func:`~companion.papers.angle.pairs.bucket_wasserstein`)."""

    masks = bucket_masks(gold, buckets)
    fig, axes = panel_grid(len(cosines), panel_height=3.4, width=min(FIGURE_WIDTH_IN, 13 * len(cosines) / 3),
                           sharex=True, sharey=True)
    for axis, (name, cos) in zip(axes, cosines.items()):
        for label, inside in masks.items():
            axis.hist(cos[inside], bins=30, density=True, histtype="step", lw=1.5, label=label)
        axis.set(title=f"{name}: W = {bucket_wasserstein(cos, gold):.4f}", xlabel="cosine similarity")
    axes[0].set_ylabel("density")
    axes[0].legend(fontsize=7, title="gold bucket", title_fontsize=7)
    fig.suptitle("Fig. 5 analogue: STS-B test cosine density per gold bucket (W: rank-normalised Wasserstein to gold)")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------- 03: why a term trains
def ranking_room(scores, labels, scale: float) -> float:
    """How far a ranking loss (AnglE Eq. 1 / Eq. 7: :func:`~companion.losses.core.pairwise_ranking_loss` at
    ``scale`` = 1/τ) sits above the value it would take if the *same* scores were ordered like the gold labels.

    The scores are re-assigned to the pairs in gold order (their distribution kept), so the difference is the loss
    a perfect re-ranking could remove without spreading the scores further: the room the loss has to fall.
    """
    scores, labels = _as_float64(scores), _as_float64(labels)
    if scores.shape != labels.shape or scores.dim() != 1:
        raise ValueError(f"scores and labels must be equally long 1-D tensors, got {tuple(scores.shape)} and "
                         f"{tuple(labels.shape)}.")
    ideal = scores.sort().values[labels.argsort().argsort()]
    return float(pairwise_ranking_loss(scores, labels, scale) - pairwise_ranking_loss(ideal, labels, scale))


def _as_float64(x):
    return x.detach().double() if isinstance(x, torch.Tensor) else torch.as_tensor(np.asarray(x, dtype=float))


def term_diagnostics(base, data, terms: Mapping[str, Any], *, seed: int, batch_size: int, n_batches: int = 8,
                     buckets: int = 1, n_top: int | None = None):
    """Each training term at initialisation (AnglE Eq. 1, 2, 7 on a fresh copy of ``base``'s top layers), averaged
    over the first ``n_batches`` batches of ``seed``: its value, the gradient norm over the trained parameters, and
    for the ranking terms (objects with ``scale`` and a ``similarity(u, v)``) the room a perfect re-ranking of the
    same scores would remove (:func:`ranking_room`), absolute and as a fraction of the value.

    ``terms`` maps a name to an :class:`~companion.losses.angle.AnglEObjective` with one active weight (the
    ranking room is computed for the cosine or angle term, not for in-batch negatives); ``n_top``: top layers
    trained (default: the base's). Returns one row per term.
    """
    base = split_base(base, n_top)
    seed_everything(seed)
    model = base.fresh()
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    batches = index_batches(len(data), batch_size=batch_size, seed=seed, epochs=None)
    rows = {name: [] for name in terms}
    for _ in range(n_batches):
        batch = data.batch(next(batches))
        emb = model.embed(batch.texts, buckets=buckets)
        for name, term in terms.items():
            loss = term(emb, batch.labels, batch.texts)
            grads = torch.autograd.grad(loss, params, retain_graph=True, allow_unused=True)
            gnorm = float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads if g is not None)))
            rec = {"loss": float(loss), "grad_norm": gnorm}
            if getattr(term, "w_ibn", 0) == 0:
                u, v = split_pairs(emb.detach())
                sim, tau = ((row_cosine(u, v), term.tau_cos) if term.w_cos else (complex_angle(u, v), term.tau_angle))
                rec["room"] = ranking_room(sim, batch.labels, 1.0 / tau)
                rec["score_spread"] = float(sim.std())
            rows[name].append(rec)
    out = pd.DataFrame({name: pd.DataFrame(r).mean() for name, r in rows.items()}).T
    if "room" in out:
        out["room / loss"] = out["room"] / out["loss"]
    return out


def plot_sts_bars(panels: Sequence[tuple[Any, Sequence[str], str]], order: Sequence[str], paper: Mapping | None = None,
                  title: str = ""):
    """AnglE Tables 2–3 analogue: per panel ``(frame, columns, title)`` a bar per objective of ``order`` present in
    ``frame`` (mean ± std over seeds, every seed a dot; one colour per objective across panels); ``paper`` maps
    ``(panel title, column)`` to ``{row: value}``, drawn as hollow black markers (the paper's BERT-base rows) beside
    the bars, on a y axis shared by the panels."""

    fig, axes = panel_grid(len(panels), panel_height=4.2, per_row=2, width=min(FIGURE_WIDTH_IN, 5.5 * len(panels)),
                           sharey=True)
    for axis, (frame, cols, ptitle) in zip(axes, panels):
        present = [o for o in order if (frame["objective"] == o).any()]
        width = 0.8 / (len(present) + 1)
        for i, obj in enumerate(present):
            sub = frame[frame["objective"] == obj]
            x = np.arange(len(cols)) + i * width
            axis.bar(x, [sub[c].mean() for c in cols], width, yerr=[sub[c].std() if len(sub) > 1 else 0 for c in cols],
                     label=obj, capsize=3, color=f"C{order.index(obj)}")
            for j, c in enumerate(cols):
                axis.plot(np.full(len(sub), x[j]), sub[c], "k.", ms=3)
        labelled = set()
        for (where, col), rows in (paper or {}).items():
            if where != ptitle or col not in cols:
                continue
            for k, (row, value) in enumerate(rows.items()):
                axis.plot(cols.index(col) + len(present) * width, value, marker="os^D"[k % 4], mfc="none", mec="k",
                          ls="", label=None if row in labelled else f"paper: {row}")
                labelled.add(row)
        axis.set_xticks(np.arange(len(cols)) + width * len(present) / 2, cols)
        axis.set(title=ptitle)
        axis.legend(fontsize=6, loc="best")
    axes[0].set(ylabel="Spearman × 100", ylim=(30, 95))
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return fig


def isp_share(data, batch_size: int, seed: int, steps: int, positive_threshold: float | None = None) -> float:
    """The share of batch rows whose in-batch-negative targets identical-sentence-pair detection changes (AnglE §3.3,
    §4.4: a row with an identical text elsewhere in the batch that is not its labelled partner), over the first
    ``steps`` batches of ``seed`` (the batches a training run sees)."""
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}.")
    batches = index_batches(len(data), batch_size=batch_size, seed=seed, epochs=None)
    changed = rows = 0
    for _ in range(steps):
        batch = data.batch(next(batches))
        with_isp, _ = ibn_targets(batch.labels, batch.texts, positive_threshold)
        without, _ = ibn_targets(batch.labels, None, positive_threshold)
        changed += int((with_isp & ~without).any(dim=1).sum())
        rows += 2 * len(batch)
    return changed / rows
