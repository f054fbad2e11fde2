"""Every setting of the gpu profile traced to its source: the rows of a notebook's settings table and how they are
shown.

Each backbone notebook's :class:`companion.profiles.Profiles` (in its paper's settings module,
``companion/papers/<paper>/settings.py``) carries ``rows``: every choice that determines what is trained and how it
is evaluated (layers trained, pooling at training and at evaluation, heads, data and its size, lengths, optimiser,
learning rate, schedule, warm-up, batch, steps, seeds, precision, evaluation protocol), each a :class:`Row` with its
value, the paper's location or the released code's default it follows (``source``) and, wherever it departs from the
paper or the paper states nothing, why (``reason``). Values come from the settings themselves and, for what the code
fixes (optimiser, clipping, schedule), from the code's own defaults (:func:`optimiser`, :func:`clipping`,
:func:`train_default`), so the table cannot drift from what runs. Facts about released code are cited (file and
line or option), never copied.

>>> from companion.papers.simace.settings import STS_EXPERIMENTS
>>> settings_table(STS_EXPERIMENTS, STS_EXPERIMENTS("gpu"))     # choice | value | source | reason
>>> gpu_table(STS_EXPERIMENTS, cfg)                             # the gpu profile's, whichever profile cfg is

:func:`undocumented` lists settings no row of a table covers.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

COLUMNS = ("choice", "value", "source", "reason")


@dataclass(frozen=True)
class Row:
    """One choice: ``value`` is a settings key, a function of the settings, or a fixed text; ``keys`` are the
    settings the row documents (default: ``value`` when it is a key)."""

    choice: str
    value: str | Callable[[Mapping], Any]
    source: str = ""
    reason: str = ""
    keys: tuple[str, ...] = ()

    def covers(self) -> tuple[str, ...]:
        return self.keys or ((self.value,) if isinstance(self.value, str) else ())


def train_default(name: str) -> Any:
    """A default of :func:`companion.training.train` (what every gpu path's optimiser runs with)."""
    from companion.training import train  # noqa: PLC0415 - loads torch; this module imports without it

    return inspect.signature(train).parameters[name].default


def fixed(text: str) -> Callable[[Mapping], str]:
    """A row value that is the same text whatever the settings."""
    return lambda cfg: text


def optimiser(weight_decay: Callable[[], float] | None = None) -> Callable[[Mapping], str]:
    """The optimiser as the code builds it: torch's AdamW defaults; the weight decay ``weight_decay()``, by default
    the training loop's."""

    def describe(cfg: Mapping) -> str:
        import torch  # noqa: PLC0415 - torch is heavy; this module imports without it

        defaults = inspect.signature(torch.optim.AdamW).parameters
        betas, eps = defaults["betas"].default, defaults["eps"].default
        decay = train_default("weight_decay") if weight_decay is None else weight_decay()
        return f"AdamW (betas {betas[0]}, {betas[1]}; eps {eps:g}), weight decay {decay:g}"

    return describe


def clipping(cfg: Mapping) -> str:
    """The training loop's gradient clipping."""
    return f"global gradient norm clipped at {train_default('max_grad_norm'):g}"


def precision(cfg: Mapping) -> str:
    """The training loop's precision."""
    return "float32; bfloat16 autocast with COMPANION_ACCELERATE=1 or `accelerate launch`"


def format_value(value: Any) -> str:
    """A value as the table shows it: floats with ``g``, lists joined, ``None`` as none."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(v) for v in value) if value else "none"
    return "none" if value is None else str(value)


#: settings no row documents: the profile's name and the gpu grid (the table's own last row says which ran)
_NOT_SETTINGS = frozenset({"profile", "gpu_grid"})


def _rows(spec) -> tuple[Row, ...]:
    if not getattr(spec, "rows", ()):
        raise ValueError(f"No settings table for {getattr(spec, 'notebook', spec)!r}: its Profiles has no rows.")
    return spec.rows


def _grid_row(spec, cfg: Mapping) -> dict[str, str] | None:
    """The row that says which grid the table shows and what the full grid changes, with the reason the default
    grid suffices (the power its claims need); none for a notebook that states neither."""
    if not spec.full and not spec.grid_reason:
        return None
    changed = "; ".join(f"{key} {format_value(value)}" for key, value in spec.full.items())
    grid = cfg.get("gpu_grid", "day")
    value = (f"{grid}: " + ("the default, sized for one GPU-day on one H100 in bf16" if grid == "day" else
                            "the paper's full grid") +
             (f"; --grid full sets {changed}" if changed else "; the full grid is the same"))
    return {"choice": "grid", "value": value, "source": "", "reason": spec.grid_reason}


def settings_table(spec, cfg: Mapping):
    """The settings table of the notebook ``spec`` (its :class:`companion.profiles.Profiles`) under ``cfg`` as a
    DataFrame with :data:`COLUMNS`: one row per choice, its value from ``cfg`` (or the code), its source and, where
    it departs from the paper or the paper is silent, the reason; last, for the gpu profile, which grid it is."""
    out = []
    for row in _rows(spec):
        value = cfg.get(row.value) if isinstance(row.value, str) else row.value(cfg)
        out.append({"choice": row.choice, "value": format_value(value), "source": row.source, "reason": row.reason})
    grid = _grid_row(spec, cfg) if cfg.get("profile") == "gpu" else None
    if grid is not None:
        out.append(grid)
    return pd.DataFrame(out, columns=list(COLUMNS))


def gpu_table(spec, cfg: Mapping | None = None):
    """The gpu profile's :func:`settings_table` of the notebook ``spec``, whichever profile runs: ``cfg`` itself
    when it is the gpu profile's, else the gpu profile's default grid (``spec("gpu")``; its dry run when
    ``COMPANION_DRY_RUN`` asks for it, as in the notebook). What a notebook shows in its settings-table cell and the
    site on its paper's page."""
    if cfg is not None and cfg.get("profile") == "gpu":
        return settings_table(spec, cfg)
    return settings_table(spec, spec("gpu"))


def undocumented(spec, cfg: Mapping) -> list[str]:
    """The settings of ``cfg`` that no row of ``spec``'s table covers (should be none)."""
    covered = {key for row in _rows(spec) for key in row.covers()}
    return sorted(set(cfg) - covered - _NOT_SETTINGS)


__all__ = ["COLUMNS", "Row", "clipping", "fixed", "format_value", "gpu_table", "optimiser", "precision",
           "settings_table", "train_default", "undocumented"]
