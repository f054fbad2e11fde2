"""SimACE's run specs and the side-by-side timing of its objectives (Table 8).

The dropout-view training itself (the loss closure, the run with its STS-B dev monitor and run cache, a run's dev
curve and plateau check) is generic and lives in :mod:`companion.dropout_views`; the losses in
:mod:`companion.losses.simace`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import pandas as pd
import torch

from companion.dropout_views import dropout_view_loss
from companion.training import index_batches, seed_everything


def split_spec(spec: tuple) -> tuple[str, float, float, float | None]:
    """A run spec ``(objective, tau, margin_deg)`` or, for RBF, ``(objective, tau, margin_deg, sigma)`` as
    ``(objective, tau, margin_deg, sigma)`` (``sigma`` None when absent)."""
    if not isinstance(spec, tuple) or len(spec) not in (3, 4):
        raise ValueError(f"a run spec is (objective, tau, margin_deg[, sigma]), got {spec!r}.")
    return (*spec, None) if len(spec) == 3 else spec


def step_times(base, texts: Sequence[str], specs: dict, rounds: int = 10, batch_size: int = 64, seed: int = 0,
               lr: float = 1e-4):
    """Training-step time of each objective measured side by side (SimACE Table 8's comparison, as a ratio).

    ``specs`` maps a name to ``(objective, tau, margin_deg[, sigma])``. One fresh copy of ``base`` and one AdamW per
    objective; for ``rounds`` rounds every objective in turn takes one full step (two dropout views of the same
    batch, loss, backward, optimiser step) on the same batch, so machine load affects all alike. The first round is
    a warm-up and is not timed. Returns one row per objective: median and minimum seconds per step and the ratio of
    the median to the first objective's."""
    if rounds < 2:
        raise ValueError(f"rounds must be >= 2 (the first is a warm-up), got {rounds}.")
    if not specs:
        raise ValueError("specs is empty: name at least one objective.")
    texts = list(texts)
    seed_everything(seed)
    runs = {}
    for name, spec in specs.items():
        objective, tau, margin, sigma = split_spec(spec)
        model = base.fresh()
        model.train()
        runs[name] = (model, torch.optim.AdamW(model.parameters(), lr=lr),
                      dropout_view_loss(model.embed, texts, objective, tau, margin, sigma))
    batches = index_batches(len(texts), batch_size, seed=seed, epochs=None)
    times: dict[str, list[float]] = {name: [] for name in specs}
    names = list(runs)
    for r in range(rounds):
        idx = next(batches)
        order = names[r % len(names):] + names[: r % len(names)]  # rotate: no objective always runs first
        for name in order:
            _model, opt, loss_fn = runs[name]
            start = time.perf_counter()
            loss = loss_fn(idx)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            if r:
                times[name].append(time.perf_counter() - start)
    first = next(iter(specs))
    med = {n: float(torch.tensor(t).median()) for n, t in times.items()}
    return pd.DataFrame([{"objective": n, "median s/step": med[n], "min s/step": min(times[n]),
                          f"ratio to {first}": med[n] / med[first]} for n in specs])
