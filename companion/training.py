"""The one small training loop every paper uses.

AdamW, linear warm-up then linear decay (or constant), gradient clipping, exact seeding for CPU determinism, a
tqdm bar, periodic evaluation with best-checkpoint selection, and an ``after_step`` hook (the nGPT head re-normalises
its weights there). A notebook supplies a ``loss_fn(batch) -> scalar`` closure over its model and a batch iterator::

    seed_everything(seed)
    batches = index_batches(len(train), batch_size=64, seed=seed, epochs=1)
    result = train(model, lambda idx: loss(model, data[idx]), batches, steps=cfg.steps, lr=3e-5,
                   warmup_steps=0, eval_fn=lambda: sts_dev(model), eval_every=125)
    result.history  # list of {"step", "loss", "lr", "eval"?}

On GPUs the same loop runs under Hugging Face Accelerate: pass ``accelerator=Accelerator(mixed_precision="bf16")``,
or launch the script with ``accelerate launch`` (or set ``COMPANION_ACCELERATE=1``) and :func:`train` makes one
itself (:func:`launched_accelerator`). It then runs the loss under the accelerator's autocast (bf16), back-propagates
and clips through it, and shows the progress bar on the main process only. Every process sees the whole batch:
contrastive losses take their in-batch negatives from it, so the batch is never split across GPUs (spread notebooks
or seeds over GPUs instead: ``python -m companion run --jobs N``). Without an accelerator (the default on a CPU)
the loop is exactly the plain PyTorch one, so CPU results do not change.

**Checkpoints.** With ``checkpoint=<file>`` and ``checkpoint_every=N`` the loop saves everything a later call needs
to go on where this one stopped, every N steps (atomically: a killed save leaves the previous checkpoint); a call
that finds the file resumes from it and a completed run deletes it. The gpu profile's runs checkpoint every
:data:`CHECKPOINT_EVERY` steps under ``<cache>/checkpoints/<run key>.pt`` (:func:`gpu_checkpoint`), so a preempted
run of hours goes on from its last checkpoint when the notebook is run again; the smoke and cpu profiles save none.
The profile is handed down from the notebook's settings by every caller (``profile=cfg.profile``): nothing is
remembered between calls.
"""

from __future__ import annotations

import copy
import math
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch import nn
from tqdm.auto import tqdm

from companion._io import read_cache, torch_save_atomic
from companion.settings import cache_dir


def seed_everything(seed: int) -> torch.Generator:
    """Seed Python, NumPy and torch, and ask torch for deterministic kernels; returns a seeded generator."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002 - seeds the global RNG that third-party code draws from
    torch.manual_seed(seed)
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True, warn_only=True)
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator


def index_batches(n: int, batch_size: int, seed: int, epochs: int | None = 1, drop_last: bool = True
                  ) -> Iterator[torch.Tensor]:
    """Shuffled index batches, a fresh permutation per epoch from ``seed`` (``epochs=None``: forever).

    The same ``seed`` gives the same data order for every objective, so comparisons are paired.
    """
    if n <= 0 or batch_size <= 0:
        raise ValueError(f"need n > 0 and batch_size > 0, got n={n}, batch_size={batch_size}")
    if drop_last and batch_size > n:
        raise ValueError(f"batch_size {batch_size} exceeds the data size {n} (drop_last=True)")
    generator = torch.Generator().manual_seed(seed)
    epoch = 0
    while epochs is None or epoch < epochs:
        order = torch.randperm(n, generator=generator)
        stop = n - n % batch_size if drop_last else n
        for start in range(0, stop, batch_size):
            yield order[start:start + batch_size]
        epoch += 1


def lr_lambda(warmup_steps: int, total_steps: int, schedule: str = "linear") -> Callable[[int], float]:
    """Multiplier of the base LR at a step: linear warm-up, then linear decay to 0 or constant."""
    if schedule not in {"linear", "constant"}:
        raise ValueError(f"schedule must be 'linear' or 'constant', got {schedule!r}")

    def factor(step: int) -> float:
        if warmup_steps and step < warmup_steps:
            return (step + 1) / warmup_steps
        if schedule == "constant":
            return 1.0
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))

    return factor


_LAUNCH_VARIABLES = ("ACCELERATE_MIXED_PRECISION", "ACCELERATE_DYNAMO_BACKEND", "ACCELERATE_USE_CPU")


def launched_accelerator() -> Any | None:
    """An ``accelerate.Accelerator`` when the process was started by ``accelerate launch`` (its ``ACCELERATE_*``
    variables) or ``COMPANION_ACCELERATE=1`` asks for one; ``None`` otherwise (the plain loop)."""
    asked = os.environ.get("COMPANION_ACCELERATE", "").strip().lower() in {"1", "true", "yes", "on"}
    if not asked and not any(name in os.environ for name in _LAUNCH_VARIABLES):
        return None
    from accelerate import Accelerator  # noqa: PLC0415 - optional dependency (the `train` extra)

    return Accelerator()


#: Steps between two checkpoints of a gpu-profile run (:func:`gpu_checkpoint`): at most that many steps are
#: trained again after a preemption; BERT-base with its AdamW moments is about 1.3 GB a save.
CHECKPOINT_EVERY = 500
#: The layout of a checkpoint file (:func:`train`); a file of another layout is refused.
CHECKPOINT_VERSION = 1


def checkpoint_path(key: str) -> Path:
    """Where the checkpoint of the run named ``key`` (a caller's run cache key) is kept:
    ``<cache>/checkpoints/<key>.pt`` (:func:`companion.settings.cache_dir`)."""
    if not isinstance(key, str) or not key or "/" in key or key.startswith("."):
        raise ValueError(f"a checkpoint key must be a plain file name, got {key!r}")
    return cache_dir() / "checkpoints" / f"{key}.pt"


def run_profile(profile: str | Mapping | None) -> str | None:
    """The profile a run belongs to, as its caller hands it over: a profile name (``cfg.profile``), the notebook's
    settings themselves (their ``"profile"``), or ``None`` (a script or test with no profile)."""
    if profile is None or isinstance(profile, str):
        return profile
    if isinstance(profile, Mapping):
        return profile.get("profile")
    raise TypeError(f"profile must be a profile name, the settings or None, got {type(profile).__name__}")


def gpu_checkpoint(key: str | None, profile: str | Mapping | None) -> dict[str, Any]:
    """The checkpoint arguments of :func:`train` for the run named ``key`` of a run in ``profile`` (the notebook's
    ``cfg.profile`` or ``cfg``, handed down explicitly, :func:`run_profile`): ``{"checkpoint": checkpoint_path(key),
    "checkpoint_every": CHECKPOINT_EVERY}`` in the gpu profile (its dry run included); ``{}`` otherwise (the smoke
    and cpu profiles, no profile, a ``key`` of None), so that those runs call :func:`train` exactly as before."""
    if key is None or run_profile(profile) != "gpu":
        return {}
    return {"checkpoint": checkpoint_path(key), "checkpoint_every": CHECKPOINT_EVERY}


class RunState(dict):
    """What a stateful ``loss_fn``, ``eval_fn`` or ``log_fn`` keeps from one step to the next (a call counter, a
    monitor's records), as a dict its closures read and write through: pass it as ``train(extra_state=...)`` and
    its contents join every checkpoint and come back on resume (a deep copy each way)."""

    def state_dict(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self))

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.clear()
        self.update(copy.deepcopy(state))


def _rng_states() -> dict[str, Any]:
    """Every random-number state a training step can draw from: torch's CPU generator, each CUDA device's (where
    CUDA is up), Python's ``random`` and NumPy's global generator."""
    states = {"torch": torch.get_rng_state(), "python": random.getstate(),
              "numpy": np.random.get_state()}  # noqa: NPY002 - the global RNG third-party code draws from
    if torch.cuda.is_available():
        states["cuda"] = torch.cuda.get_rng_state_all()
    return states


def _set_rng_states(states: dict[str, Any]) -> None:
    torch.set_rng_state(states["torch"])
    random.setstate(states["python"])
    np.random.set_state(states["numpy"])  # noqa: NPY002
    if states.get("cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"][:torch.cuda.device_count()])


def _fingerprint(model: nn.Module, steps: int, lr: float) -> dict[str, Any]:
    """What makes a checkpoint this run's: the number of steps, the learning rate and every parameter's name and
    shape."""
    return {"steps": steps, "lr": float(lr),
            "parameters": [[name, list(p.shape)] for name, p in model.named_parameters()]}


def _read_checkpoint(path: Path, fingerprint: dict[str, Any]) -> dict[str, Any] | None:
    """The checkpoint at ``path`` when there is one (None: none, or unreadable: the run starts afresh and its
    next save replaces it); a checkpoint of another run is refused in one line."""
    saved = read_cache(path, weights_only=False)
    if saved is None:
        return None
    if not isinstance(saved, dict) or saved.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"{path} is not a checkpoint of this version of companion.training; delete it to start "
                         "the run afresh")
    theirs = saved.get("fingerprint") or {}
    differ = [name for name in fingerprint if theirs.get(name) != fingerprint[name]]
    if differ:
        raise ValueError(f"{path} is the checkpoint of another run (its {', '.join(differ)} differ from this "
                         "run's); delete it or give this run another checkpoint")
    return saved


@dataclass
class TrainResult:
    history: list[dict[str, Any]] = field(default_factory=list)
    best_step: int | None = None
    best_score: float | None = None
    steps: int = 0
    wall_time_s: float = 0.0

    def frame(self):
        return pd.DataFrame(self.history)


def train(
    model: nn.Module,
    loss_fn: Callable[[Any], torch.Tensor],
    batches: Iterable[Any],
    steps: int,
    lr: float,
    *,
    weight_decay: float = 0.0,
    warmup_steps: int = 0,
    schedule: str = "linear",
    max_grad_norm: float | None = 1.0,
    param_groups: list[dict[str, Any]] | None = None,
    eval_fn: Callable[[], float] | None = None,
    eval_every: int = 0,
    higher_is_better: bool = True,
    restore_best: bool = True,
    after_step: Callable[[], None] | None = None,
    log_fn: Callable[[int], dict[str, float]] | None = None,
    log_every: int = 0,
    progress: bool | None = None,
    desc: str = "train",
    accelerator: Any | None = None,
    checkpoint: str | Path | None = None,
    checkpoint_every: int = 0,
    extra_state: Any | None = None,
) -> TrainResult:
    """Optimise ``model`` for ``steps`` steps of ``loss_fn(batch)``.

    Args:
        batches: an iterable of batches (e.g. :func:`index_batches`); it must yield at least ``steps`` batches.
        param_groups: optional AdamW parameter groups (e.g. layer-wise LR decay); default all trainable params.
        eval_fn: returns a score (e.g. STS-B dev Spearman); evaluated every ``eval_every`` steps and at the end.
            With ``restore_best`` the best-scoring weights are loaded back at the end.
        after_step: called after every optimiser step (nGPT weight re-normalisation).
        log_fn: extra scalars to record every ``log_every`` steps (e.g. positive/negative angles).
        accelerator: an ``accelerate.Accelerator`` (autocast, backward, clipping, main-process bar); default the one
            :func:`launched_accelerator` gives under ``accelerate launch``, else none (module docstring).
        checkpoint: a file to keep this run's checkpoint in, saved every ``checkpoint_every`` steps (not at the
            last): the weights, the optimiser and scheduler states, the step, the history, the best score and step
            (and the best weights with ``restore_best``), every random-number state (:func:`_rng_states`), the
            training time so far and ``extra_state``'s state. When the file exists the run resumes from it: all of
            that is restored, the first ``step`` batches of ``batches`` are drawn and dropped, and training goes on
            at the next step, so a resumed run ends with the same weights and history as one never stopped. That
            holds only if ``batches`` yields the same batches again on every call (deterministic index batches,
            e.g. ``index_batches(n, batch_size, seed)``: a fresh generator from the same seed) and ``loss_fn`` and
            ``eval_fn`` carry no state of their own outside ``extra_state``. A checkpoint of another run (other
            ``steps``, ``lr`` or parameter names and shapes) is refused with a ValueError; a completed run deletes
            its checkpoint. The training time of a resumed run counts the steps before the checkpoint and after the
            resume, not those lost between them.
        checkpoint_every: steps between two saves (> 0 with ``checkpoint``).
        extra_state: an object with ``state_dict()`` and ``load_state_dict(state)`` (e.g. a :class:`RunState`)
            whose state joins every checkpoint: what a stateful ``loss_fn``, ``eval_fn`` or ``log_fn`` needs back
            on resume (a monitor's records, a step counter).
    """
    if not isinstance(steps, int) or steps < 0:
        raise ValueError(f"steps must be a non-negative int, got {steps!r}")
    if not (isinstance(lr, (int, float)) and lr > 0 and math.isfinite(lr)):
        raise ValueError(f"lr must be > 0, got {lr!r}")
    if not isinstance(checkpoint_every, int) or isinstance(checkpoint_every, bool) or checkpoint_every < 0:
        raise ValueError(f"checkpoint_every must be a non-negative int, got {checkpoint_every!r}")
    if checkpoint is not None and not checkpoint_every:
        raise ValueError("a checkpoint needs checkpoint_every > 0 (the steps between two saves)")
    if extra_state is not None and not (hasattr(extra_state, "state_dict") and hasattr(extra_state, "load_state_dict")):
        raise TypeError("extra_state needs state_dict() and load_state_dict(state) (e.g. companion.training.RunState)")
    # materialise each group's parameters once: a generator (e.g. model.parameters()) would be consumed by the
    # first pass and leave AdamW or the gradient clipping with nothing
    groups = [{**g, "params": list(g["params"])} for g in param_groups] if param_groups else \
        [{"params": [p for p in model.parameters() if p.requires_grad]}]
    clipped = [p for g in groups for p in g["params"]]
    if not clipped:
        raise ValueError("model has no trainable parameters")
    if accelerator is None:
        accelerator = launched_accelerator()
    optimizer = torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay)
    autocast = accelerator.autocast if accelerator is not None else nullcontext
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda(warmup_steps, steps, schedule))
    result = TrainResult()
    best_state = None
    start = time.perf_counter()
    done, earlier_s = 0, 0.0  # steps and training seconds restored from a checkpoint
    main_process = checkpoint is None or accelerator is None or accelerator.is_main_process  # saves and deletes
    if checkpoint is not None:
        checkpoint = Path(checkpoint)
        fingerprint = _fingerprint(model, steps, lr)
        saved = _read_checkpoint(checkpoint, fingerprint)
        if saved is not None:
            model.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
            scheduler.load_state_dict(saved["scheduler"])
            result.history, result.best_step, result.best_score = saved["history"], saved["best_step"], \
                saved["best_score"]
            best_state, done, earlier_s = saved["best_state"], int(saved["step"]), float(saved["wall_time_s"])
            if extra_state is not None and saved["extra"] is not None:
                extra_state.load_state_dict(saved["extra"])
            _set_rng_states(saved["rng"])
            tqdm.write(f"{desc}: resuming at step {done} of {steps} from the checkpoint {checkpoint}")

    def save_checkpoint(step: int) -> None:
        torch_save_atomic({"version": CHECKPOINT_VERSION, "fingerprint": fingerprint, "step": step,
                           "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                           "scheduler": scheduler.state_dict(), "history": result.history,
                           "best_step": result.best_step, "best_score": result.best_score, "best_state": best_state,
                           "rng": _rng_states(), "wall_time_s": earlier_s + time.perf_counter() - start,
                           "extra": None if extra_state is None else extra_state.state_dict()}, checkpoint)

    def evaluate(step: int) -> None:
        nonlocal best_state
        was_training = model.training
        model.eval()
        score = float(eval_fn())
        model.train(was_training)
        result.history.append({"step": step, "eval": score})
        better = result.best_score is None or (score > result.best_score if higher_is_better
                                               else score < result.best_score)
        if better:
            result.best_score, result.best_step = score, step
            if restore_best:
                best_state = copy.deepcopy(model.state_dict())

    show = progress if progress is not None else steps >= 20
    if accelerator is not None and not accelerator.is_local_main_process:
        show = False
    bar = tqdm(total=steps, initial=done, desc=desc, disable=not show, leave=False)
    model.train()
    iterator = iter(batches)
    for step in range(1, done + 1):  # the batches of the steps before the checkpoint
        try:
            next(iterator)
        except StopIteration:
            raise ValueError(f"batches ran out after {step - 1} of the {done} steps of the checkpoint") from None
    if eval_fn is not None and eval_every and not done:
        evaluate(0)
    for step in range(done + 1, steps + 1):
        try:
            batch = next(iterator)
        except StopIteration:
            raise ValueError(f"batches ran out after {step - 1} of {steps} steps") from None
        with autocast():
            loss = loss_fn(batch)
        if not torch.isfinite(loss):
            raise FloatingPointError(f"loss is {float(loss.detach())} at step {step}")
        optimizer.zero_grad(set_to_none=True)
        if accelerator is None:
            loss.backward()
            if max_grad_norm:
                torch.nn.utils.clip_grad_norm_(clipped, max_grad_norm)
        else:
            accelerator.backward(loss)
            if max_grad_norm:
                accelerator.clip_grad_norm_(clipped, max_grad_norm)
        optimizer.step()
        scheduler.step()
        if after_step is not None:
            after_step()
        record = {"step": step, "loss": float(loss.detach()), "lr": optimizer.param_groups[0]["lr"]}
        if log_fn is not None and log_every and step % log_every == 0:
            model.eval()
            with torch.no_grad():
                record.update(log_fn(step))
            model.train()
        result.history.append(record)
        bar.update(1)
        bar.set_postfix(loss=f"{record['loss']:.4f}")
        if eval_fn is not None and eval_every and step % eval_every == 0:
            evaluate(step)
        if checkpoint is not None and step % checkpoint_every == 0 and step < steps and main_process:
            save_checkpoint(step)
    bar.close()
    if eval_fn is not None and (not eval_every or steps % eval_every):
        evaluate(steps)
    if restore_best and best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    result.steps = steps
    result.wall_time_s = earlier_s + time.perf_counter() - start
    if checkpoint is not None and main_process:
        checkpoint.unlink(missing_ok=True)  # the run is complete: the callers' caches of finished runs take over
    return result
