"""SimACE §5 (notebook ``simace/03``): the main runs of ``02`` (reloaded from the run cache) and the margin /
temperature ablation runs, each summarised into one row of the quantities §5's figures and Table 14 compare."""

from __future__ import annotations

from collections.abc import Sequence

#: the runs whose held-out pairwise angle is measured (App. H / Fig. 5 compares SimACE with SimCSE)
HELD_OUT_MODELS = ("SimCSE", "SimACE")


def run_record(name: str, seed: int, run: dict, held_out_angle: float) -> tuple[dict, object]:
    """One run of :func:`~companion.papers.simace.runs.run_dropout_views` as a row: STS average, the selected
    (best) checkpoint's dev score, ``align`` and ``uniform``, the last logged positive / negative angle, their means
    over the trained steps (step 0, the shared start, left out: the figure captions' means), the sd of the
    negative-angle curve over every logged step (Fig. 4's caption), ``held_out_angle``, whether the run came from
    the cache and its times. Returns ``(row, monitor)``, ``monitor`` being the run's log with ``model`` and
    ``seed`` columns."""
    import pandas as pd

    mon = pd.DataFrame(run["monitor"]).assign(model=name, seed=seed)
    best = mon.set_index("step").loc[run["best_step"]]
    last = mon.iloc[-1]
    trained_steps = mon[mon.step > 0]  # step 0 is the shared start (identical for every objective)
    row = {"model": name, "seed": seed, "STS avg": run["scores"]["avg"], "best step": run["best_step"],
           "dev (best)": best["dev"], "align": best["align"], "uniform": best["uniform"],
           "pos_angle (last)": last["pos_angle"], "neg_angle (last)": last["neg_angle"],
           "pos_angle (mean)": trained_steps["pos_angle"].mean(),
           "neg_angle (mean)": trained_steps["neg_angle"].mean(),
           "neg_angle (sd over steps)": mon["neg_angle"].std(ddof=1),
           "held-out mean angle": held_out_angle, "from 02's cache": run["from_cache"],
           "train s": run["train_s"], "monitor s": run["monitor_s"], "sts s": run["score_s"]}
    return row, mon


def analysis_runs(base, train_texts: Sequence[str], jobs: Sequence[tuple[str, tuple, int]], *, steps: int,
                  batch_size: int, lr: float, dev: tuple, eval_every: int, probe: Sequence[str], cache: str,
                  pairs: dict, score_key: str, held_out_texts: Sequence[str], keep_seed: int,
                  progress: bool = True):
    """Every ``(name, (objective, tau, margin), seed)`` of ``jobs``, in order, through
    :func:`~companion.papers.simace.runs.run_dropout_views` with ``reuse=True`` (02's runs come from the cache
    ``cache``; the cache key includes the run's ``desc`` "<name> seed <seed>", 02's own), scored on the STS
    ``pairs`` (:func:`companion.sts.score_pairs`, 7-set average). For :data:`HELD_OUT_MODELS` the mean pairwise
    angle of ``held_out_texts`` is measured. Returns ``(finals, curves, models, reloaded)``: one
    :func:`run_record` row per run, every run's monitor log, the models of seed ``keep_seed`` by name, and how many
    runs came from the cache."""
    import pandas as pd
    from tqdm import tqdm

    from companion.metrics.geometry import pairwise_angles
    from companion.papers.simace.runs import run_dropout_views
    from companion.sts import score_pairs

    finals, curves, models, reloaded = [], [], {}, 0
    for name, (objective, tau, margin), seed in tqdm(jobs, desc="runs", disable=not progress):
        r = run_dropout_views(base, train_texts, objective, tau, margin, steps, batch_size, lr, seed, dev=dev,
                              eval_every=eval_every, probe=probe, cache=str(cache), reuse=True,
                              score_fn=lambda model: score_pairs(model.encode, pairs, average=True),
                              score_key=score_key, desc=f"{name} seed {seed}",
                              progress=False)  # progress bars do not enter the cache key
        reloaded += r["from_cache"]
        held_angle = (float(pairwise_angles(r["model"].encode(held_out_texts)).mean())
                      if name in HELD_OUT_MODELS else float("nan"))
        row, mon = run_record(name, seed, r, held_angle)
        finals.append(row)
        curves.append(mon)
        if seed == keep_seed:
            models[name] = r["model"]
    return pd.DataFrame(finals), pd.concat(curves, ignore_index=True), models, reloaded
