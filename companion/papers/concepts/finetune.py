r"""Top-layer fine-tuning of the concept paper's conditions, shared by notebooks 03 and 04 (Mohr, Dujany, Souquet &
Freitas, arXiv 2606.06994, §4.3 recipe, §5 conditions B1, B3, M1, M2, M3, B1-unified).

A *recipe* is the JSON-able dict of every setting that determines a trained model; notebook 03 saves its B1 weights
under it (:func:`companion.papers.concepts.readouts.save_trained`) and notebook 04 reloads them with the same recipe,
or trains them again with :func:`load_or_train` when the cache is empty.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from companion._io import cache_key, write_atomic
from companion.encoders.upper import _layer_stack
from companion.papers.concepts.data import (
    TrainingRows,
    load_concepts,
    training_rows,
    training_synsets,
    with_d2d_pairs,
)
from companion.papers.concepts.readouts import (
    CONDITIONS,
    TopLayerConceptModel,
    condition_k,
    json_round_trip,
    load_trained,
    recipe_path,
    save_trained,
    train_concept_model,
)
from companion.settings import cache_dir
from companion.training import TrainResult, run_profile, seed_everything

__all__ = ["GPU_RECIPE", "RECIPE_SETTINGS", "TEST_FRAC", "top_layer_recipe", "recipe_training_rows", "train_condition",
           "load_or_train", "with_recipe_pairs", "run_key", "cached_run", "ConditionRuns", "run_conditions"]

#: The share of WordNet synsets the in-domain split holds out (the training rows come from the rest).
TEST_FRAC = 0.1

#: The notebook settings a recipe copies, in the order they are stored.
RECIPE_SETTINGS = ("model", "max_length", "n_top", "k", "batch", "lr", "pooling_lr_mult", "layer_decay", "tau",
                   "warmup_frac", "steps", "n_train")

#: What a gpu-profile recipe adds (the paper's full fine-tuning of all-mpnet-base-v2): the embedding layer is
#: trained too, with its dropout (§4.4: a layer-wise LR decay "per transformer layer" over the whole network, Fig. 2's
#: bi-encoder layers 1-12; every parameter is trained in a full fine-tune, as sentence-transformers' ``fit`` does),
#: and the objective has its d2d term (§4.3: 0.7 L_d2d) on WordNet-only definition pairs
#: (:func:`~companion.papers.concepts.data.with_d2d_pairs`). The cpu and smoke recipes do not carry the keys (their
#: run caches keep their names, and their objective stays syn + t2d + 0.5 neg).
GPU_RECIPE = {"train_embeddings": True, "d2d": True}

_D2D_ROWS: dict[tuple[int, int], tuple[TrainingRows, TrainingRows]] = {}


def with_recipe_pairs(rows: TrainingRows, recipe: Mapping) -> TrainingRows:
    """``rows`` as a run of ``recipe`` trains on them: with their d2d partners when the recipe asks for the d2d
    term (drawn from the training synsets of the recipe's split, ``split_seed``, with ``rows_seed``; computed once
    per rows object), unchanged otherwise."""
    if not recipe.get("d2d") or rows.d2d is not None:
        return rows
    key = (id(rows), int(recipe.get("split_seed", 0)))
    if key not in _D2D_ROWS or _D2D_ROWS[key][0] is not rows:
        data = load_concepts()
        sids = training_synsets(data, TEST_FRAC, seed=recipe.get("split_seed", 0))
        _D2D_ROWS[key] = (rows, with_d2d_pairs(data, rows, sids, seed=recipe.get("rows_seed", 0)))
    return _D2D_ROWS[key][1]


def _trains_embeddings(encoder, recipe: Mapping) -> bool:
    """Whether a run of ``recipe`` trains the embedding layer: the gpu recipe's full fine-tuning does, when the run
    trains every layer; a run of the top layers only (§5.1's earlier-layer run on a smaller ``n_top``) keeps them
    frozen, as the cpu recipe does."""
    if not recipe.get("train_embeddings", False):
        return False
    return recipe["n_top"] == len(_layer_stack(encoder.model))


def top_layer_recipe(cfg: Mapping, rules: Sequence[str]) -> dict:
    """The recipe of a top-layer run from the notebook settings ``cfg`` (every key of :data:`RECIPE_SETTINGS` and
    ``max_negatives``) and the hard-negative ``rules`` of its training rows; the training rows come from the
    in-domain split and row draw with seed 0 (``split_seed``, ``rows_seed``), without the head-holdout and
    source-holdout test synsets (:func:`~companion.papers.concepts.data.training_synsets`). Add ``condition`` and
    ``seed`` to name one model. Settings of the gpu profile (``cfg["profile"] == "gpu"``) add :data:`GPU_RECIPE`."""
    missing = [key for key in (*RECIPE_SETTINGS, "max_negatives") if key not in cfg]
    if missing:
        raise ValueError(f"settings lack {', '.join(missing)} (needed for a top-layer recipe).")
    recipe = {key: cfg[key] for key in RECIPE_SETTINGS}
    recipe.update(split_seed=0, rows_seed=0, rules=list(rules), max_negatives=cfg["max_negatives"], version=2)
    if cfg.get("profile") == "gpu":
        recipe.update(GPU_RECIPE)
    return recipe


@lru_cache(maxsize=4)
def _training_rows(n_train: int, split_seed: int, rows_seed: int, rules: tuple[str, ...]) -> TrainingRows:
    data = load_concepts()
    return training_rows(data, training_synsets(data, TEST_FRAC, seed=split_seed), n=n_train, rules=rules,
                         seed=rows_seed)


def recipe_training_rows(recipe: Mapping) -> TrainingRows:
    """The training rows a recipe names: ``n_train`` synsets of the in-domain split's training part
    (:data:`TEST_FRAC` held out, ``split_seed``; the head-holdout and source-holdout test synsets left out), drawn
    with ``rows_seed``, with the hard negatives of ``rules``
    (computed once per process)."""
    return _training_rows(recipe["n_train"], recipe["split_seed"], recipe["rows_seed"], tuple(recipe["rules"]))


def train_condition(encoder, lower, rows, name: str, seed: int, recipe: Mapping, monitor=None,
                    monitor_every: int = 0, *, profile: str | None = None
                    ) -> tuple[TopLayerConceptModel, TrainResult, float]:
    """Train condition ``name`` (a key of :data:`~companion.papers.concepts.readouts.CONDITIONS`) with ``seed``:
    every RNG is seeded with ``seed`` before the model is built, so conditions of one seed start alike and see the
    same batches; warm-up is ``warmup_frac`` of the steps (at least one). ``rows`` are the
    :class:`~companion.papers.concepts.data.TrainingRows`, ``lower`` the frozen lower-layer store. Returns the
    model, the training record and the training time in seconds. ``monitor(model)``, a dict of scalars, joins the
    record every ``monitor_every`` steps (its cost is included in the time). A run of the gpu ``profile`` (the
    notebook's ``cfg.profile``, handed down) checkpoints under :func:`run_key`
    (:func:`companion.training.gpu_checkpoint`), so that a preempted run resumes there."""
    if name not in CONDITIONS:
        raise ValueError(f"unknown condition {name!r}; choose one of {', '.join(CONDITIONS)}.")
    readout, use_hn = CONDITIONS[name]
    rows = with_recipe_pairs(rows, recipe)
    key = run_key(encoder, rows, name, seed, recipe, monitor_every) if run_profile(profile) == "gpu" else None
    seed_everything(seed)
    model = TopLayerConceptModel(encoder, readout, n_top=recipe["n_top"], k=condition_k(name, recipe["k"]), lower=lower,
                                 train_embeddings=_trains_embeddings(encoder, recipe))
    t0 = time.perf_counter()
    res = train_concept_model(model, rows, use_hn, steps=recipe["steps"], batch=recipe["batch"], lr=recipe["lr"],
                              pooling_lr_mult=recipe["pooling_lr_mult"], layer_decay=recipe["layer_decay"],
                              warmup_steps=max(1, round(recipe["warmup_frac"] * recipe["steps"])),
                              temperature=recipe["tau"], seed=seed, max_negatives=recipe["max_negatives"],
                              desc=f"{name} s{seed}", monitor=monitor, monitor_every=monitor_every,
                              checkpoint_key=key, profile=profile)
    return model, res, time.perf_counter() - t0


def run_key(encoder, rows: TrainingRows, name: str, seed: int, recipe: Mapping, monitor_every: int = 0) -> str:
    """The name of one run of :func:`train_condition` (its checkpoint's, :func:`companion._io.cache_key`): the
    encoder's weights fingerprint, the recipe, the condition, the seed, the monitor's interval and the content of
    the training rows (every text the objective embeds, in order)."""
    return cache_key({"encoder": getattr(encoder, "fingerprint", None), "recipe": json_round_trip(dict(recipe)),
                      "condition": name, "seed": int(seed), "monitor_every": int(monitor_every or 0),
                      "rows": [len(rows), cache_key(rows.texts())]})


def load_or_train(encoder, lower, recipe: Mapping, name: str, seed: int, *, profile: str | None = None
                  ) -> tuple[TopLayerConceptModel, str]:
    """The model of condition ``name`` and ``seed`` under ``recipe``: its weights cached by notebook 03 when present,
    otherwise trained here with :func:`train_condition` on the recipe's rows (:func:`recipe_training_rows`, built
    only then; ``profile``, the notebook's ``cfg.profile``: a gpu-profile run checkpoints) and saved for the next
    run. Returns the model and where it came from, in words."""
    full = dict(recipe, condition=name, seed=seed)
    readout, _ = CONDITIONS[name]
    model = TopLayerConceptModel(encoder, readout, n_top=recipe["n_top"], k=condition_k(name, recipe["k"]), lower=lower,
                                 train_embeddings=_trains_embeddings(encoder, recipe))
    if load_trained(model, full):
        return model, f"reloaded from {recipe_path(full).name} (trained by notebook 03)"
    t0 = time.perf_counter()
    rows = recipe_training_rows(recipe)
    model, _, _ = train_condition(encoder, lower, rows, name, seed, recipe, profile=profile)
    save_trained(model, full)
    return model, f"trained here ({time.perf_counter() - t0:.0f} s; no cached weights from notebook 03)"


def cached_run(spec: Mapping, compute: Callable[[], Mapping]) -> tuple[dict, bool]:
    """The JSON record of a run cached under ``spec`` (``cache_dir()/concepts/runs/<key>.json``, the key naming
    every setting that determines the run) and True, or ``compute()`` written there and False. A file whose stored
    spec differs, or that cannot be read, is computed again."""
    path = cache_dir() / "concepts" / "runs" / f"{cache_key(dict(spec))}.json"
    want = json.loads(json.dumps(dict(spec), sort_keys=True, default=str))
    if path.is_file():
        try:
            blob = json.loads(path.read_text())
            if blob.get("spec") == want:
                return blob["record"], True
        except (OSError, ValueError):  # unreadable: recompute
            pass
    record = json.loads(json.dumps(compute(), default=float))
    write_atomic(path, lambda h: h.write(json.dumps({"spec": want, "record": record}).encode()))
    return record, False


@dataclass
class ConditionRuns:
    """What :func:`run_conditions` measured: one row per condition and seed (``ft``: the final metrics, the mean
    training loss of the first and last tenth of the steps), the per-step training losses (``histories``), the
    claims' metrics logged along training (``curves``: records with their ``step``), the learned layer weights of
    the weighted readouts, (train s, eval s) per run, and how many runs were read from the cache."""

    ft: pd.DataFrame
    histories: dict
    curves: dict
    weights: dict = field(default_factory=dict)
    times: dict = field(default_factory=dict)
    cached: int = 0


def run_conditions(encoder, lower, rows: TrainingRows, recipe: Mapping, conditions: Sequence[str],
                   seeds: Sequence[int], *, score: Callable, spec: Mapping, monitor_every: int = 0,
                   keep: Sequence[str] = (), profile: str | None = None, progress: bool = True) -> ConditionRuns:
    """Every condition of ``conditions`` at every seed (:func:`train_condition` under ``recipe``), scored at the end
    by ``score(model)`` (a dict of the claims' metrics, e.g. a
    :class:`~companion.papers.concepts.evaluation.ClaimMonitor`) and, with ``monitor_every``, along training by the
    same ``score`` every ``monitor_every`` steps (the curves the claims' plateau checks read). Each run is cached
    (:func:`cached_run`) under ``spec`` (what determines the scoring: the evaluation pools' settings) with the
    recipe, the condition, the seed and the interval, so a re-execution reads it back. The weights of the conditions
    in ``keep`` are saved under the recipe when they are trained (:func:`save_trained`; B1's, for notebook 04, which
    trains them again where they are missing: :func:`load_or_train`)."""
    results, histories, curves, weights, times, cached = [], {}, {}, {}, {}, 0
    jobs = [(seed, name) for seed in seeds for name in conditions]
    for seed, name in tqdm(jobs, desc="conditions", disable=not progress):

        def run(name=name, seed=seed):
            model, res, train_s = train_condition(encoder, lower, rows, name, seed, recipe,
                                                  monitor=score if monitor_every else None,
                                                  monitor_every=monitor_every, profile=profile)
            t0 = time.perf_counter()
            metrics = score(model)
            if name in keep:
                save_trained(model, dict(recipe, condition=name, seed=seed))
            w = model.readout.weights().detach().numpy().round(3).tolist() \
                if CONDITIONS[name][0] == "weighted" else None
            return dict(metrics=metrics, history=res.history, train_s=train_s, eval_s=time.perf_counter() - t0,
                        weights=w)

        rec, hit = cached_run(dict(spec, kind="concepts-condition-run", recipe=json_round_trip(dict(recipe)),
                                   condition=name, seed=int(seed), monitor_every=int(monitor_every or 0)), run)
        cached += hit
        losses = [h for h in rec["history"] if "loss" in h]
        window = max(1, len(losses) // 10)  # a tenth of the steps: one batch's loss is too noisy
        results.append(dict(condition=name, seed=seed, **rec["metrics"],
                            first_loss=float(np.mean([h["loss"] for h in losses[:window]])),
                            last_loss=float(np.mean([h["loss"] for h in losses[-window:]]))))
        histories[(name, seed)] = losses
        curves[(name, seed)] = [h for h in rec["history"] if set(h) - {"step", "loss", "lr"}]  # the logged metrics
        times[(name, seed)] = (rec["train_s"], rec["eval_s"])
        if rec["weights"] is not None:
            weights[(name, seed)] = rec["weights"]
    return ConditionRuns(ft=pd.DataFrame(results), histories=histories, curves=curves, weights=weights, times=times,
                         cached=cached)
