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
"""

from __future__ import annotations

import copy
import math
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm.auto import tqdm


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
    from accelerate import Accelerator

    return Accelerator()


@dataclass
class TrainResult:
    history: list[dict[str, Any]] = field(default_factory=list)
    best_step: int | None = None
    best_score: float | None = None
    steps: int = 0
    wall_time_s: float = 0.0

    def frame(self):
        import pandas as pd

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
    """
    if not isinstance(steps, int) or steps < 0:
        raise ValueError(f"steps must be a non-negative int, got {steps!r}")
    if not (isinstance(lr, (int, float)) and lr > 0 and math.isfinite(lr)):
        raise ValueError(f"lr must be > 0, got {lr!r}")
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
    bar = tqdm(total=steps, desc=desc, disable=not show, leave=False)
    model.train()
    iterator = iter(batches)
    if eval_fn is not None and eval_every:
        evaluate(0)
    for step in range(1, steps + 1):
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
    bar.close()
    if eval_fn is not None and (not eval_every or steps % eval_every):
        evaluate(steps)
    if restore_best and best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    result.steps = steps
    result.wall_time_s = time.perf_counter() - start
    return result
