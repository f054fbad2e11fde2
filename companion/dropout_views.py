"""Unsupervised fine-tuning on dropout views, SimCSE's augmentation: every sentence of a batch embedded twice in
training mode, the two views a positive pair, the other sentences the negatives, with any objective of
:mod:`companion.losses.simace` (SimCSE, ArcCon, SimACE, RBF).

* :func:`dropout_view_loss`, :func:`train_dropout_views` — the loss closure and one run of
  :func:`companion.training.train` on it (the same batches per seed for every objective);
* :class:`DevMonitor`, :func:`view_geometry` — the STS-B dev monitor that picks the checkpoint, with alignment,
  uniformity and the angles of two training-mode views;
* :func:`run_dropout_views`, :func:`run_key` — one run on a fresh copy of an
  :class:`~companion.encoders.upper.UpperEncoder`, optionally monitored and scored, its weights cached under a hash
  of every setting;
* :func:`dev_curve`, :func:`dev_plateau` — one run's STS-B dev curve and its plateau check.

Used by SimACE's experiments (:mod:`companion.papers.simace`), the raw encoder's SimCSE check
(:mod:`companion.mlm.finetune`) and the cross-paper notebooks; the losses themselves live in
:mod:`companion.losses.simace`, this module only wires them into training.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch

from companion._checks import check_temperature
from companion._io import cache_key, read_cache, torch_save_atomic
from companion.losses.simace import (
    DEFAULT_MARGIN_DEG,
    OBJECTIVES,
    check_margin,
    check_sigma,
    contrastive_loss,
)
from companion.metrics.geometry import alignment, mean_negative_angle, mean_positive_angle, uniformity
from companion.training import gpu_checkpoint, index_batches, seed_everything, train


def dropout_view_loss(embed: Callable[[Sequence[str]], torch.Tensor], texts: Sequence[str], objective: str,
                      tau: float, margin_deg: float | None = None, sigma: float | None = None,
                      aux: Callable[[list[str]], torch.Tensor] | None = None
                      ) -> Callable[[torch.Tensor], torch.Tensor]:
    """A ``loss_fn(index_batch)`` for :func:`companion.training.train`: embeds the batch twice (two dropout views
    from ``embed`` in training mode, SimCSE's augmentation) and returns the objective's loss (``sigma``: the RBF
    objective's kernel width), plus ``aux(batch)`` when given, computed after the two views (App. J's MLM term:
    :meth:`companion.papers.simace.masked_lm.MLMUpperEncoder.auxiliary_loss`)."""
    if objective not in OBJECTIVES:
        raise ValueError(f"Unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}.")
    check_temperature(tau)
    margin_deg = DEFAULT_MARGIN_DEG[objective] if margin_deg is None else margin_deg
    check_margin(margin_deg)
    if sigma is not None:
        check_sigma(sigma)
    texts = list(texts)

    def loss_fn(idx: torch.Tensor) -> torch.Tensor:
        batch = [texts[int(i)] for i in idx]
        z1 = embed(batch)
        z2 = embed(batch)
        loss = contrastive_loss(z1, z2, objective, tau, margin_deg, sigma=sigma)
        return loss if aux is None else loss + aux(batch)

    return loss_fn


def train_dropout_views(model: torch.nn.Module, embed: Callable[[Sequence[str]], torch.Tensor], texts: Sequence[str],
                        objective: str, tau: float, margin_deg: float | None, steps: int, batch_size: int,
                        lr: float, seed: int, sigma: float | None = None,
                        aux: Callable[[list[str]], torch.Tensor] | None = None, **train_kwargs):
    """One unsupervised run (SimCSE-style dropout views) with :func:`companion.training.train`.

    The data order comes from ``index_batches(len(texts), batch_size, seed)``, so every objective sees the SAME
    batches for a given seed (paired comparisons). Seed the RNG (``seed_everything(seed)``) before building
    ``model`` so that initialisation and dropout masks are reproducible too. ``aux``: a term added to the loss
    (:func:`dropout_view_loss`). Extra keyword arguments go to ``train``
    (``log_fn``, ``log_every``, ``eval_fn`` ...). Returns the :class:`~companion.training.TrainResult`."""
    loss_fn = dropout_view_loss(embed, texts, objective, tau, margin_deg, sigma, aux=aux)
    batches = index_batches(len(texts), batch_size, seed=seed, epochs=None)
    desc = train_kwargs.pop("desc", f"{objective} seed {seed}")
    return train(model, loss_fn, batches, steps, lr, desc=desc, **train_kwargs)


def view_geometry(embed: Callable[[Sequence[str]], torch.Tensor], model: torch.nn.Module, probe: Sequence[str]
                  ) -> dict[str, float]:
    """Angles of the training signal on a fixed probe batch (SimACE Fig. 4/7): two dropout views in TRAINING mode,
    mean positive angle (view 1 vs view 2 of the same sentence) and mean negative angle (different sentences),
    in degrees. Restores the previous mode; no gradients."""
    was = model.training
    model.train()
    try:
        with torch.no_grad():
            z1, z2 = embed(list(probe)), embed(list(probe))
    finally:
        model.train(was)
    return {"pos_angle": mean_positive_angle(z1, z2), "neg_angle": mean_negative_angle(z1, z2)}


# ------------------------------------------------------------------------------------------- monitored runs
class DevMonitor:
    r"""``eval_fn`` for :func:`companion.training.train` in a dropout-view run (SimACE's Table 7 model selection and
    its §5 curves), on the STS-B dev set.

    Each call (the model is in eval mode) encodes the distinct dev sentences ONCE and records

    * ``dev``: Spearman x 100 of cosine scores (the selection score: "evaluate on STS-B dev every 125 steps, keep
      the best checkpoint", Table 7);
    * ``align``: :math:`\ell_{align} = E\|f(x) - f(x^+)\|^2` over dev pairs with gold > 4 (Wang & Isola; SimACE
      Eq. 11 with :math:`\alpha = 2`, which writes a log in front: a monotone change that keeps every ordering;
      Figs. 3, 6, 9), and ``uniform``: :math:`\ell_{uniform} = \log E e^{-2\|f(x) - f(y)\|^2}` over the distinct
      dev sentences (SimACE Eq. 10 with :math:`t = 2`);
    * with a ``probe`` batch of training sentences: ``pos_angle``/``neg_angle`` of two TRAINING-mode dropout views
      (:func:`view_geometry`, Figs. 4, 7). This draws dropout masks, so a monitored run's dropout stream differs
      from an unmonitored one; monitor every run of a comparison the same way.

    ``eligible_from`` calls are recorded but not eligible for selection before it (``train`` evaluates at step 0;
    the paper selects among fine-tuned checkpoints): their returned score is ``-inf``.
    """

    def __init__(self, model: torch.nn.Module, sentence1: Sequence[str], sentence2: Sequence[str], gold,
                 probe: Sequence[str] | None = None, eligible_from: int = 1, positive_threshold: float = 4.0):
        gold = np.asarray(gold, dtype=np.float64)
        if not (len(sentence1) == len(sentence2) == len(gold)):
            raise ValueError(f"sentence1, sentence2 and gold differ in length: {len(sentence1)}, {len(sentence2)}, "
                             f"{len(gold)}.")
        if len(gold) < 2:
            raise ValueError("the dev set needs at least 2 pairs (a Spearman correlation).")
        if not np.isfinite(gold).all():
            raise ValueError("gold scores contain NaN or Inf.")
        self.model = model
        self.s1, self.s2, self.gold = list(sentence1), list(sentence2), gold
        self.unique = list(dict.fromkeys(self.s1 + self.s2))
        index = {t: i for i, t in enumerate(self.unique)}
        self.i1 = torch.tensor([index[t] for t in self.s1])
        self.i2 = torch.tensor([index[t] for t in self.s2])
        self.pos = torch.from_numpy(gold > positive_threshold)
        if int(self.pos.sum()) < 1:
            raise ValueError(f"no dev pair has gold > {positive_threshold}: l_align is undefined.")
        self.probe = list(probe) if probe is not None else None
        self.eligible_from = int(eligible_from)
        self.records: list[dict[str, float]] = []
        self.seconds = 0.0

    def measure(self) -> dict[str, float]:
        """The record for the model's current weights (no side effect on :attr:`records`)."""
        from companion.sts import cosine_scores, spearman100  # noqa: PLC0415 - loads scipy; this module imports without it

        emb = self.model.encode(self.unique)
        a, b = emb[self.i1], emb[self.i2]
        rec = {"dev": spearman100(cosine_scores(a, b), self.gold), "align": alignment(a[self.pos], b[self.pos]),
               "uniform": uniformity(emb)}
        if self.probe is not None:
            rec.update(view_geometry(self.model.embed, self.model, self.probe))
        return rec

    def state_dict(self) -> dict:
        """The records and seconds so far: what a resumed run needs back (``train(extra_state=monitor)``)."""
        return {"records": [dict(r) for r in self.records], "seconds": self.seconds}

    def load_state_dict(self, state: dict) -> None:
        self.records, self.seconds = [dict(r) for r in state["records"]], float(state["seconds"])

    def __call__(self) -> float:
        start = time.perf_counter()
        rec = self.measure()
        self.records.append(rec)
        self.seconds += time.perf_counter() - start
        return rec["dev"] if len(self.records) > self.eligible_from else float("-inf")


def run_key(**settings) -> str:
    """A short stable hash of a run's settings (:func:`companion._io.cache_key`): its cached weights' file name."""
    return cache_key(settings)


def run_dropout_views(base, texts: Sequence[str], objective: str, tau: float, margin_deg: float | None,
                      steps: int, batch_size: int, lr: float, seed: int, dev: tuple | None = None,
                      eval_every: int = 0, probe: Sequence[str] | None = None, cache: str | None = None,
                      reuse: bool = True, score_fn: Callable | None = None, score_key: str | None = None,
                      sigma: float | None = None, profile: str | None = None, **train_kwargs) -> dict:
    """One dropout-view run (as SimACE's experiments train) on an :class:`~companion.encoders.upper.UpperEncoder`
    ``base`` (its cached lower states are shared, its weights never touched): seed, ``base.fresh()``,
    :func:`train_dropout_views`, optional STS-B dev monitoring every ``eval_every`` steps with best-checkpoint
    selection among steps >= ``eval_every`` (:class:`DevMonitor`; ``dev = (sentence1, sentence2, gold)``). A base
    whose copies have an ``auxiliary_loss`` (App. J's MLM variant, :func:`companion.papers.simace.masked_lm.mlm_base`)
    adds it to every step's loss.

    With ``cache`` (a folder), the trained weights and the history are saved as ``<cache>/<run_key>.pt``, the key
    hashing every setting, the encoder's weights fingerprint and the training texts; with ``reuse`` an existing
    file is loaded instead of training (``from_cache`` is then True and the recorded times are those of the
    original run). A run of the gpu ``profile`` (the notebook's ``cfg.profile``, handed down) also checkpoints its
    training under the same key (:func:`companion.training.gpu_checkpoint`, the monitor's records included), so a
    preempted run resumes there; the profile is no part of the key.
    ``score_fn(model) -> dict`` (e.g. the 7-set STS evaluation) scores the returned model; its
    result is cached with the weights under ``score_key`` (a string naming the evaluation) and recomputed on reload
    when the key differs. Returns ``{"model", "history", "monitor", "best_step", "train_s", "monitor_s", "scores",
    "score_s", "from_cache", "key"}`` (``history``: one row per step with ``loss``; ``monitor``: one row per
    evaluation with ``step``; ``scores``: ``score_fn``'s result or None).
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"Unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}.")
    tau = check_temperature(tau)
    margin_deg = DEFAULT_MARGIN_DEG[objective] if margin_deg is None else margin_deg
    check_margin(margin_deg)
    if objective == "rbf" and sigma is None:
        raise ValueError("the RBF objective needs sigma, its kernel width (Eq. 15).")
    if sigma is not None:
        sigma = check_sigma(sigma)
    if eval_every and dev is None:
        raise ValueError("eval_every > 0 needs a dev set (sentence1, sentence2, gold).")
    texts = list(texts)
    text_hash = run_key(texts=texts)
    key = run_key(encoder=getattr(base.encoder, "fingerprint", None), name=getattr(base.encoder, "name", None),
                  upper={k: str(v) for k, v in base._init_args.items()}, objective=objective, tau=tau,
                  margin_deg=float(margin_deg), steps=steps, batch_size=batch_size, lr=lr, seed=seed,
                  eval_every=eval_every, dev=None if dev is None else run_key(dev=[list(dev[0]), list(dev[1]),
                                                                               [float(g) for g in dev[2]]]),
                  probe=None if probe is None else run_key(probe=list(probe)), texts=text_hash,
                  train={k: str(v) for k, v in sorted(train_kwargs.items()) if k != "progress"},
                  **({} if sigma is None else {"sigma": sigma}))  # runs without sigma keep their earlier keys
    path = Path(cache) / f"{key}.pt" if cache else None
    seed_everything(seed)
    model = base.fresh()
    saved = None
    if path is not None and reuse and path.exists():
        saved = read_cache(path, weights_only=False)  # an unreadable file (e.g. from a killed run) is retrained
    if saved is not None:
        model.load_state_dict(saved["state"])
        model.eval()
        meta = saved["meta"]
        if score_fn is not None and (meta.get("scores") is None or meta.get("score_key") != score_key):
            start = time.perf_counter()
            meta = {**meta, "scores": score_fn(model), "score_key": score_key,
                    "score_s": time.perf_counter() - start}
        return {**meta, "model": model, "from_cache": True, "key": key}
    monitor = DevMonitor(model, *dev, probe=probe, eligible_from=1) if eval_every else None
    resume = gpu_checkpoint(key, profile)  # a gpu-profile run checkpoints under its run key (companion.training)
    if resume and monitor is not None:
        resume["extra_state"] = monitor
    result = train_dropout_views(model, model.embed, texts, objective, tau, margin_deg, steps, batch_size, lr, seed,
                                 sigma=sigma, aux=getattr(model, "auxiliary_loss", None), eval_fn=monitor,
                                 eval_every=eval_every, **train_kwargs, **resume)
    history = [{"step": h["step"], "loss": h["loss"], "lr": h["lr"]} for h in result.history if "loss" in h]
    records = []
    if monitor is not None:
        eval_steps = [h["step"] for h in result.history if "eval" in h]
        records = [{"step": s, **r} for s, r in zip(eval_steps, monitor.records)]
    meta = {"history": history, "monitor": records, "best_step": result.best_step if monitor else steps,
            "train_s": result.wall_time_s - (monitor.seconds if monitor else 0.0),
            "monitor_s": monitor.seconds if monitor else 0.0, "scores": None, "score_key": score_key, "score_s": 0.0}
    if score_fn is not None:
        model.eval()
        start = time.perf_counter()
        meta["scores"] = score_fn(model)
        meta["score_s"] = time.perf_counter() - start
    if path is not None:
        torch_save_atomic({"state": model.state_dict(), "meta": meta}, path)
    return {**meta, "model": model, "from_cache": False, "key": key}


# ------------------------------------------------------------------------------------------- a run's dev curve
def dev_curve(run: dict, column: str = "dev") -> tuple[list[int], list[float]]:
    """One run's STS-B dev curve (:func:`run_dropout_views` with ``eval_every`` > 0): the evaluated steps in order
    (step 0, the untrained start, included; the trainer evaluates every ``eval_every`` steps and at the end) and
    ``column`` of its :class:`DevMonitor` record at each (``dev``: Spearman x 100). Empty lists for a run that was
    not monitored."""
    records = sorted(run.get("monitor") or [], key=lambda r: r["step"])
    if records and column not in records[0]:
        raise KeyError(f"dev_curve(): the monitor records have no {column!r} (they have {sorted(records[0])}).")
    return [int(r["step"]) for r in records], [float(r[column]) for r in records]


def dev_plateau(run: dict, *, gap: float | None = None, tail: float = 1 / 3, name: str = "the run"):
    """The ``plateau`` check of ONE run, for ``Ledger.claim(validity=[...])``: :func:`companion.stats.plateau` of its
    STS-B dev curve (:func:`dev_curve`), a line fitted to the last ``tail`` of the evaluations; passed when the
    slope's 95 % CI covers 0, or (with ``gap``, a dev gap the claim compares) when the fitted gain over that stretch
    is at most a quarter of it. A run without a monitor gives a failed ``record`` check and one with fewer than
    three evaluations a failed ``plateau`` check (too few to fit): never a pass. ``name`` names the run in the
    detail. Returns a :class:`companion.stats.Validity`."""
    from companion import stats  # noqa: PLC0415 - loads scipy; this module imports without it

    steps, values = dev_curve(run)
    if not steps:
        return stats.Validity("record", False, f"no STS-B dev curve of {name} (trained without eval_every)")
    if len(steps) < 3:
        return stats.Validity("plateau", False, f"{name}: {len(steps)} STS-B dev evaluation(s), too few to fit "
                                                "(evaluate more often)")
    if len(set(values)) == 1:
        return stats.Validity("plateau", True, f"{name}: STS-B dev constant at {values[0]:.4g} over "
                                               f"{len(steps)} evaluations")
    check = stats.plateau(steps, values, gap=gap, tail=tail)
    return stats.Validity("plateau", check.passed, f"{name}, STS-B dev (steps 0-{steps[-1]}): {check.detail}"
                          + ("" if check.passed else " — still climbing"))
