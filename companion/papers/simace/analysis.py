"""The SimACE runs the notebooks share and the checks on their training curves.

Notebook ``simace/02`` trains the main runs; ``simace/03`` (§5) reloads them from the run cache beside its margin /
temperature ablation runs, and ``synthesis/02`` runs its jobs through the same set-up and cache. All three go
through :func:`setup` and :func:`shared_runs` (one row per run of the quantities §5's figures and Table 14
compare, :func:`run_record`). The checks on the runs' STS-B dev curves are those of ``02`` and ``03`` (and
``synthesis/02``'s plateau check): is each run at its plateau (:func:`plateau`), is a compared gap stable
(:func:`gap_stability`), the ``plateau`` validity of a claim (:func:`plateau_validity`); :func:`select_sigma`
picks RBF's kernel width on dev for ``02``."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import pandas as pd
from tqdm import tqdm

from companion.data import load_wiki
from companion.papers.simace import make_base, run_cache, sts_key

#: the runs whose held-out pairwise angle is measured (App. H / Fig. 5 compares SimACE with SimCSE, Fig. 8 the
#: margins): every run (one encoding of the held-out sentences each)
HELD_OUT_MODELS = None


def training_sentences(cfg) -> tuple[list[str], list[str]]:
    """``(training pool, held-out sentences)`` of ``cfg``: wiki1m less its last ``n_heldout`` sentences, and those.
    ``cfg.wiki`` (default ``"head"``) names the file: ``"head"`` the mirror's first 11,914 lines, ``"full"`` (the gpu
    profile) the whole file, whose loader refuses a missing, cut or subset file (:func:`companion.data.load_wiki`)."""
    source = getattr(cfg, "wiki", "head")
    if source not in ("head", "full"):
        raise ValueError(f"wiki must be 'head' (the mirror's) or 'full' (the whole file), got {source!r}.")
    wiki = list(load_wiki(full=source == "full")["text"])
    return wiki[: len(wiki) - cfg.n_heldout], wiki[len(wiki) - cfg.n_heldout:]


def setup(cfg, progress: bool = True):
    """What every SimACE run of ``cfg`` shares, built identically by both notebooks (the run cache keys on it):
    the encoder, the trainable base (:func:`companion.papers.simace.make_base`), the training pool (wiki1m minus its
    last ``n_heldout`` sentences: the mirrored head, or with ``wiki="full"``, the gpu profile, the whole file,
    :func:`companion.data.load_wiki`), the held-out sentences, the probe batch (the first
    ``n_probe`` held-out ones), the fixed STS test subset (``n_pairs`` per set, seed 0) and STS-B dev (``n_dev``
    pairs, all when None). Lower states of the STS, dev and held-out sentences are precomputed (disk cache).
    Returns a :class:`types.SimpleNamespace`."""
    from companion.encoders import load_encoder  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.sts import sts_pairs_subset  # noqa: PLC0415 - loads scipy; this module imports without it

    encoder = load_encoder(cfg.model, pooling=cfg.pooling, max_length=cfg.max_length)
    base = make_base(encoder, cfg)
    train_texts, heldout = training_sentences(cfg)
    pairs = sts_pairs_subset(cfg.n_pairs, seed=0)
    dev = sts_pairs_subset(cfg.n_dev, seed=0, sets=["STS-B"], split="dev")["STS-B"]
    sts_texts = list(dict.fromkeys(t for s1, s2, _ in pairs.values() for t in (*s1, *s2)))
    base.precompute(sts_texts + list(dev[0]) + list(dev[1]) + heldout, progress=progress)
    base.eval()
    return SimpleNamespace(encoder=encoder, base=base, train_texts=train_texts, heldout=heldout,
                           probe=heldout[: cfg.n_probe], pairs=pairs, dev=dev, sts_texts=sts_texts)


def shared_runs(env, cfg, jobs, *, held_out_texts, progress: bool = True):
    """:func:`analysis_runs` over ``jobs`` with the settings of ``cfg`` and the shared set-up ``env``
    (:func:`setup`): both notebooks call this, so a run trained by one is reloaded by the other. The runs of a
    gpu-profile ``cfg`` checkpoint (its profile handed down to :func:`companion.training.gpu_checkpoint`)."""
    return analysis_runs(env.base, env.train_texts, jobs, steps=cfg.steps, batch_size=cfg.batch_size, lr=cfg.lr,
                         dev=env.dev, eval_every=cfg.eval_every, probe=env.probe, cache=str(run_cache(cfg.profile)),
                         pairs=env.pairs, score_key=sts_key(cfg.n_pairs), held_out_texts=held_out_texts,
                         progress=progress, profile=cfg.profile)


def run_record(name: str, seed: int, run: dict, held_out_angle: float) -> tuple[dict, object]:
    """One run of :func:`~companion.dropout_views.run_dropout_views` as a row: STS average, the selected
    (best) checkpoint's dev score, ``align`` and ``uniform``, the last logged positive / negative angle, their means
    over the trained steps (step 0, the shared start, left out: the figure captions' means), the sd of the
    negative-angle curve over every logged step (Fig. 4's caption), ``held_out_angle``, whether the run came from
    the cache and its times. Returns ``(row, monitor)``, ``monitor`` being the run's log with ``model`` and
    ``seed`` columns."""
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
           "held-out mean angle": held_out_angle, "from cache": run["from_cache"],
           "train s": run["train_s"], "monitor s": run["monitor_s"], "sts s": run["score_s"]}
    row.update({k: v for k, v in (run["scores"] or {}).items() if k != "avg"})  # the per-set scores
    return row, mon


def _dev_curves(curves, column: str = "dev"):
    """``column`` of ``curves`` (:func:`analysis_runs`' logs) as a ``(step, seed) x model`` table (step 0, the shared
    start, included: a point on every curve)."""
    if column not in curves:
        raise KeyError(f"no {column!r} column in the curves (have {list(curves.columns)}).")
    return curves.pivot_table(index=["step", "seed"], columns="model", values=column)


def plateau(curves, *, gap: float | None = None, tail: float = 1 / 3):
    """Is each run's STS-B dev curve at its plateau? Per ``(model, seed)`` of ``curves`` (:func:`analysis_runs`'
    logs), :func:`companion.stats.plateau` of the dev curve: a line fitted to the last ``tail`` of the evaluations,
    ``flat`` when the slope's 95 % CI covers 0 (or, with ``gap``, when the fitted gain over that stretch is at most
    0.25 x ``|gap|``). Also the dev score at the start of that stretch and at the end, the fitted gain, the best
    trained step and the check's detail. One row per run."""
    from companion import stats  # noqa: PLC0415 - loads scipy; this module imports without it

    rows = []
    for (model, seed), g in curves.groupby(["model", "seed"], sort=False):
        g = g.sort_values("step")
        check = stats.plateau(g["step"], g["dev"], gap=gap, tail=tail)
        cut = g["step"].iloc[0] + (1 - tail) * (g["step"].iloc[-1] - g["step"].iloc[0])
        stretch = g[g["step"] >= cut - 1e-9]
        trained = g[g["step"] > 0]
        rows.append({"model": model, "seed": seed, "dev at the start of the last third": stretch["dev"].iloc[0],
                     "dev at end": g["dev"].iloc[-1], "gain over the last third": g["dev"].iloc[-1]
                     - stretch["dev"].iloc[0],
                     "best step": int(trained.loc[trained["dev"].idxmax(), "step"]) if len(trained) else 0,
                     "flat": bool(check.passed), "detail": check.detail})
    return pd.DataFrame(rows)


def gap_curve(curves, a: str, b: str, column: str = "dev"):
    """The seed-paired gap ``a − b`` of ``column`` at every logged step, mean over seeds (a Series indexed by step)."""
    wide = _dev_curves(curves, column)
    missing = [m for m in (a, b) if m not in wide.columns]
    if missing:
        raise KeyError(f"gap_curve(): no {column!r} curve for {missing}.")
    return (wide[a] - wide[b]).groupby(level="step").mean()


def gap_stability(curves, pairs, *, column: str = "dev", tail: float = 1 / 3):
    """Is each compared gap stable at the end of training? For each ``(a, b)`` of ``pairs``, the seed-mean gap
    ``a − b`` of ``column`` (:func:`gap_curve`) through :func:`companion.stats.plateau` against its own end value:
    ``stable`` when the gap's slope over the last ``tail`` has a 95 % CI covering 0, or when the gap moves by at most
    0.25 x its end value over that stretch (so a longer budget could not plausibly change the comparison). One row
    per pair."""
    from companion import stats  # noqa: PLC0415 - loads scipy; this module imports without it

    rows = []
    for a, b in pairs:
        g = gap_curve(curves, a, b, column)
        check = stats.plateau(g.index.to_numpy(dtype=float), g.to_numpy(), gap=float(g.iloc[-1]), tail=tail)
        cut = g.index[0] + (1 - tail) * (g.index[-1] - g.index[0])
        rows.append({"pair": f"{a} − {b}", "gap at the start of the last third": float(g[g.index >= cut - 1e-9]
                                                                                           .iloc[0]),
                     "gap at end": float(g.iloc[-1]), "stable": bool(check.passed), "detail": check.detail})
    return pd.DataFrame(rows)


def plateau_validity(curves, a: str, b: str | None = None, *, column: str = "dev", tail: float = 1 / 3):
    """The ``plateau`` validity check of a claim on the runs of ``a`` (and ``b``), measured on their curves.

    Passed when every run of ``a`` and ``b`` is at its STS-B dev plateau (:func:`plateau`; with ``b``, a run whose dev
    score still climbs counts as at its plateau when its gain over the last third is at most 0.25 x the end dev gap
    ``a − b``), or, with ``b``, when the compared gap of ``column`` is stable over the last third
    (:func:`gap_stability`). A failed check makes the claim ``inconclusive`` with the reason ``budget: …``
    (:meth:`companion.results.Ledger.claim`). Returns a :class:`companion.stats.Validity`."""
    from companion import stats  # noqa: PLC0415 - loads scipy; this module imports without it

    models = [a] if b is None else [a, b]
    sub = curves[curves["model"].isin(models)]
    missing = [m for m in models if m not in set(sub["model"])]
    if missing:
        raise KeyError(f"plateau_validity(): no curves for {missing}.")
    end_gap = None if b is None else float(gap_curve(curves, a, b, "dev").iloc[-1])
    runs = plateau(sub, gap=end_gap, tail=tail)
    at = int(runs["flat"].sum())
    worst = runs.loc[runs["gain over the last third"].abs().idxmax()]
    detail = (f"{at} of {len(runs)} runs at their STS-B dev plateau (largest climb: {worst['model']} seed "
              f"{worst['seed']}, {worst['detail']})")
    passed = at == len(runs)
    trend = None
    if b is not None:      # the compared gap's own curve (stats.validity): on dev, it stands for the claim's test gap
        frame = stats.validity.curve_frame(sub.assign(run=sub["model"]), value=column)
        stable = stats.validity.plateau(stats.validity.gap_frame(frame, a, b), what=f"the {column} gap",
                                        gap=end_gap, claim_metric=True, tail=tail)
        detail += (f"; the {column} gap {a} − {b} is {'stable' if stable.passed else 'not stable'} over the last "
                   f"third ({stable.detail})")
        passed, trend = passed or stable.passed, stable.trend
    return stats.Validity("plateau", bool(passed), detail, trend=trend)


def select_sigma(finals) -> tuple[float, object]:
    """RBF's kernel width chosen on STS-B dev: among the RBF runs of ``finals`` (:func:`analysis_runs` rows named
    by :func:`companion.papers.simace.rbf_name`, one seed), the sigma whose selected checkpoint scores highest on
    dev (``dev (best)``; ties: the smaller sigma). Returns ``(sigma, table)``, the table one row per sigma."""
    rows = finals[finals.model.str.startswith("RBF σ=")]
    if rows.empty:
        raise ValueError("select_sigma(): no RBF run in finals (names 'RBF σ=<sigma>').")
    if rows.seed.nunique() != 1:
        raise ValueError(f"select_sigma() selects on one seed, got seeds {sorted(rows.seed.unique())}.")
    table = pd.DataFrame({"sigma": rows.model.str.removeprefix("RBF σ=").astype(float),
                          "dev (best)": rows["dev (best)"], "best step": rows["best step"],
                          "STS avg (not used)": rows["STS avg"]}).sort_values("sigma").reset_index(drop=True)
    best = table.loc[table["dev (best)"].idxmax()]
    return float(best["sigma"]), table.assign(selected=table["sigma"] == best["sigma"])


def analysis_runs(base, train_texts: Sequence[str], jobs: Sequence[tuple[str, tuple, int]], *, steps: int,
                  batch_size: int, lr: float, dev: tuple, eval_every: int, probe: Sequence[str], cache: str,
                  pairs: dict, score_key: str, held_out_texts: Sequence[str], progress: bool = True,
                  profile: str | None = None):
    """Every ``(name, (objective, tau, margin), seed)`` of ``jobs``, in order, through
    :func:`~companion.dropout_views.run_dropout_views` with ``reuse=True`` (02's runs come from the cache
    ``cache``; the cache key includes the run's ``desc`` "<name> seed <seed>", 02's own), scored on the STS
    ``pairs`` (:func:`companion.sts.score_pairs`, 7-set average). For :data:`HELD_OUT_MODELS` the mean pairwise
    angle of ``held_out_texts`` is measured; ``profile`` (the notebook's ``cfg.profile``): a gpu-profile run
    checkpoints (:func:`companion.training.gpu_checkpoint`). Returns ``(finals, curves, models, reloaded)``: one
    :func:`run_record` row per run, every run's monitor log, every trained model by ``(name, seed)`` and how many
    runs came from the cache."""
    from companion.dropout_views import run_dropout_views  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.metrics.geometry import pairwise_angles  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.papers.simace.runs import split_spec  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.sts import score_pairs  # noqa: PLC0415 - loads scipy; this module imports without it

    finals, curves, models, reloaded = [], [], {}, 0
    for name, spec, seed in tqdm(jobs, desc="runs", disable=not progress):
        objective, tau, margin, sigma = split_spec(spec)
        r = run_dropout_views(base, train_texts, objective, tau, margin, steps, batch_size, lr, seed, dev=dev,
                              eval_every=eval_every, probe=probe, cache=str(cache), reuse=True,
                              score_fn=lambda model: score_pairs(model.encode, pairs, average=True),
                              score_key=score_key, desc=f"{name} seed {seed}", sigma=sigma, profile=profile,
                              progress=False)  # progress bars do not enter the cache key
        reloaded += r["from_cache"]
        held_angle = (float(pairwise_angles(r["model"].encode(held_out_texts)).mean())
                      if HELD_OUT_MODELS is None or name in HELD_OUT_MODELS else float("nan"))
        row, mon = run_record(name, seed, r, held_angle)
        finals.append(row)
        curves.append(mon)
        models[(name, seed)] = r["model"]
    return pd.DataFrame(finals), pd.concat(curves, ignore_index=True), models, reloaded
