"""Execution profiles shared by every notebook.

=========  ==================================================================================================
profile    meaning
=========  ==================================================================================================
``smoke``  seconds per notebook: tiny subsets, a handful of steps. Exercises every code path in CI; its numbers
           mean nothing and its results/figures go to a scratch folder, never into the repository.
``cpu``    the real reproduction on a 2-core CPU with all-MiniLM-L6-v2: data subsets, fewer steps and seeds,
           each notebook at most 15 minutes. Executed notebooks are committed with their outputs.
``gpu``    paper scale: the paper's backbones by hub id and its hyper-parameters (needs a GPU and hub access).
=========  ==================================================================================================

Every notebook's settings live in its paper's settings module (``companion/papers/<paper>/settings.py``), one
:class:`Profiles` per notebook with the values of every profile and the gpu profile's settings table; the notebook
calls it with its profile and its parameters, which override (``None`` values are ignored)::

    EXPERIMENTS = Profiles("circumplex/02-experiments",
                           smoke=dict(steps=5, seeds=[0]),
                           cpu=dict(steps=400, seeds=[0, 1, 2]),
                           gpu=dict(steps=8000, seeds=[42], model="bert-base-uncased"),
                           full=dict(seeds=[42, 43, 44]),        # the gpu profile's full paper grid (--grid full)
                           common=dict(lr=3e-5))
    cfg = EXPERIMENTS(profile, gpu_grid=gpu_grid, steps=steps)    # in the notebook

``cfg`` is a read-only attribute namespace; ``cfg.profile`` names the profile (and, in the gpu profile,
``cfg.gpu_grid`` the grid: :data:`GPU_GRIDS`). Code that needs the profile (the ledger's provenance, the gpu
profile's checkpoints) is handed ``cfg`` or ``cfg.profile``: nothing is remembered between calls.

**The gpu profile's two grids.** ``gpu`` holds what ``--profile gpu`` runs by default: a grid sized to fit one
GPU-day on one H100 in bf16 (``python -m companion run --profile gpu --plan`` prices it), with the seeds and runs
each claim needs; ``full`` holds what the paper's full grid changes (``python -m companion run --profile gpu --grid
full``, the notebook parameter ``gpu_grid="full"``), and ``grid_reason`` why the default is enough.

**Dry run of the gpu profile.** With ``COMPANION_DRY_RUN=1`` in the environment (``python -m companion run
--profile gpu --dry-run`` sets it for every notebook's kernel), ``settings("gpu", ...)`` runs the gpu code path on
a CPU in seconds: it starts from the ``gpu`` values, takes the ``smoke`` value of every setting the smoke profile
defines (steps, data sizes, seeds, epochs), except the settings that choose a code path rather than a size
(:data:`DRY_RUN_KEEP`: pooling, the number of fine-tuned top layers, the head's width and heads, the lr), and replaces
each paper backbone (the settings :data:`DRY_RUN_BACKBONES`) by a randomly initialised stand-in of its architecture
family and depth, ``tiny-<arch>-L<layers>`` (:func:`stand_in`, :data:`STAND_INS`), so that ``n_top=12`` of BERT-base still
names twelve layers. A backbone the smoke profile already uses (all-MiniLM-L6-v2, shipped by pip) is kept. A setting
that names a data file the mirror does not hold (the whole of wiki1m, ``wiki="full"``; the NLI training splits,
``nli="full"``) reads the mirror's file in a dry run (:data:`DRY_RUN_MIRROR`): the full file is checked by its
loader's own tests, not in CI.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

PROFILES = ("smoke", "cpu", "gpu")
#: the gpu profile's grids: ``day`` (the default, one GPU-day on one H100 in bf16) and ``full`` (the paper's grid)
GPU_GRIDS = ("day", "full")
TINY_PREFIX = "tiny-"  # load_encoder("tiny-bert") -> companion.encoders.tiny_encoder("bert")
DRY_RUN_ENV = "COMPANION_DRY_RUN"  # "1": settings("gpu", ...) gives the dry-run settings (module docstring)
#: settings a dry run keeps from the gpu profile although the smoke profile defines them: they choose a code path
DRY_RUN_KEEP = frozenset({"pooling", "n_top", "head_dim", "n_heads", "lr"})
#: settings a dry run points at the mirror's file because the gpu profile's file is not in the mirror (CI has only
#: the mirror): setting -> (gpu value, dry-run value)
DRY_RUN_MIRROR: dict[str, tuple[Any, Any]] = {"wiki": ("full", "head"), "nli": ("full", "mirror")}
#: settings that name a paper backbone by hub id: a dry run replaces each by its stand-in (:func:`stand_in`) unless the
#: smoke profile uses the same backbone (``roberta_model``: SimACE notebook 02's second backbone)
DRY_RUN_BACKBONES = ("model", "roberta_model")
#: hub id of a gpu profile backbone -> (tiny architecture of :func:`companion.encoders.tiny_encoder`, its layers)
STAND_INS: dict[str, tuple[str, int]] = {
    "bert-base-uncased": ("bert", 12),                              # AnglE §4.1, SimACE Table 7
    "bert-large-uncased": ("bert", 24),
    "roberta-base": ("roberta", 12),                                # SimACE Table 2
    "roberta-large": ("roberta", 24),
    "sentence-transformers/all-MiniLM-L6-v2": ("bert", 6),
    "sentence-transformers/all-mpnet-base-v2": ("mpnet", 12),       # concepts (Table 1 caption): an MPNetModel
    "intfloat/multilingual-e5-large": ("xlm-roberta", 24),          # circumplex mE5 (App. D Table 3)
    "mixedbread-ai/mxbai-embed-large-v1": ("bert", 24),             # circumplex mxbai
    "Qwen/Qwen3-Embedding-4B": ("llama", 36),                       # circumplex: decoder LLMs, last-token pooling
    "nvidia/llama-embed-nemotron-8b": ("llama", 32),
    "meta-llama/Llama-3.2-3B": ("llama", 28),
    "allenai/Olmo-3-1025-7B": ("llama", 32),
    "gpt2": ("gpt2", 12),
}


def dry_run() -> bool:
    """True when ``COMPANION_DRY_RUN`` asks for the dry run of the gpu profile (``1``, ``true``, ``yes``, ``on``)."""
    return os.environ.get(DRY_RUN_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def stand_in(model: str) -> str:
    """The tiny stand-in of a backbone for a dry run: ``tiny-<arch>-L<layers>`` (``load_encoder`` builds it).

    A name that already is a stand-in (``tiny-...``) is returned as it is; an unknown hub id is a one-line error."""
    if not isinstance(model, str):
        raise TypeError(f"model must be a string, got {type(model).__name__}")
    if model.startswith(TINY_PREFIX):
        return model
    if model not in STAND_INS:
        raise ValueError(f"No dry-run stand-in for backbone {model!r}; add its family and layer count to "
                         f"companion.profiles.STAND_INS (known: {', '.join(sorted(STAND_INS))}).")
    arch, layers = STAND_INS[model]
    return f"{TINY_PREFIX}{arch}-L{layers}"


def parse_stand_in(name: str) -> tuple[str, int | None]:
    """``"xlm-roberta-L24"`` -> ``("xlm-roberta", 24)``; ``"bert"`` -> ``("bert", None)`` (the part after ``tiny-``)."""
    match = re.fullmatch(r"(?P<arch>.+?)(?:-L(?P<layers>[1-9][0-9]*))?", name)
    return match["arch"], int(match["layers"]) if match["layers"] else None


def dry_run_values(gpu: dict[str, Any], smoke: dict[str, Any]) -> dict[str, Any]:
    """The gpu values cut to the smoke profile's sizes, with stand-ins for the backbones (module docstring)."""
    out = dict(gpu)
    for key, value in smoke.items():
        if key not in DRY_RUN_KEEP:
            out[key] = value
    for key, (full, mirrored) in DRY_RUN_MIRROR.items():
        if out.get(key) == full:
            out[key] = mirrored
    for key in DRY_RUN_BACKBONES:
        if isinstance(gpu.get(key), str) and gpu.get(key) != smoke.get(key):
            out[key] = stand_in(gpu[key])
    return out


def check_profile(profile: Any) -> str:
    """Return ``profile`` if valid; otherwise a one-line error naming the valid profiles."""
    if not isinstance(profile, str) or profile not in PROFILES:
        raise ValueError(f"Unknown profile {profile!r}; choose one of {', '.join(PROFILES)}.")
    return profile


class Settings(Mapping):
    """Immutable attribute/mapping view of a notebook's settings for one profile."""

    def __init__(self, profile: str, values: dict[str, Any]):
        object.__setattr__(self, "_values", MappingProxyType(dict(values, profile=profile)))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(
                f"Setting {name!r} is not defined for profile {self._values['profile']!r}; "
                f"defined: {', '.join(sorted(self._values))}"
            ) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Settings are read-only; pass overrides=... to settings().")

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        def shown(v: Any) -> str:  # a float to 6 significant digits (10/9 as 1.11111), as a reader reads it
            if isinstance(v, float):
                return f"{v:.6g}"
            if isinstance(v, (list, tuple)):
                return ("[{}]" if isinstance(v, list) else "({})").format(", ".join(shown(x) for x in v))
            return repr(v)

        body = ", ".join(f"{k}={shown(v)}" for k, v in self._values.items())
        return f"Settings({body})"


#: added to the error of an override that came as text where the setting is not text: papermill's ``-p NAME VALUE``
#: turns VALUE into a number, True, False or None where it reads as one, and passes anything else as a string
PAPERMILL_TEXT_HINT = (" papermill's -p passes a value that is not a number, True, False or None as text; pass it "
                       "as YAML with -y instead, e.g. -y \"{key}: {value}\".")


def settings(
    profile: str,
    *,
    smoke: dict[str, Any],
    cpu: dict[str, Any],
    gpu: dict[str, Any],
    common: dict[str, Any] | None = None,
    overrides: dict[str, Any] | None = None,
) -> Settings:
    """Settings for ``profile``: ``common`` updated by the profile's dict, then by non-None ``overrides``.

    ``COMPANION_DRY_RUN=1`` turns the gpu settings into their dry run (module docstring).
    Overrides (typically papermill parameters) must name settings that exist, and keep the type of the value
    they replace (an int may replace a float), so a typo or a wrongly typed papermill parameter fails loudly.
    """
    check_profile(profile)
    per_profile = {"smoke": smoke, "cpu": cpu, "gpu": gpu}[profile]
    values = dict(common or {})
    values.update(per_profile)
    if profile == "gpu" and dry_run():
        values = dry_run_values(values, {**(common or {}), **smoke})
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key not in values:
            raise ValueError(f"Unknown override {key!r}; known settings: {', '.join(sorted(values))}.")
        old = values[key]
        ok = old is None or isinstance(value, type(old)) or (isinstance(old, float) and isinstance(value, int))
        if not ok or (isinstance(value, bool) and not isinstance(old, bool)):
            raise TypeError(
                f"Override {key}={value!r} has type {type(value).__name__}; expected {type(old).__name__}."
                + (PAPERMILL_TEXT_HINT.format(key=key, value=value) if isinstance(value, str) else "")
            )
        values[key] = value
    return Settings(profile, values)


def check_gpu_grid(gpu_grid: Any, profile: str = "gpu") -> str:
    """Return ``gpu_grid`` if it is one of :data:`GPU_GRIDS` and ``profile`` has it (the smoke and cpu profiles have
    one grid, ``"day"``); otherwise a one-line error."""
    if not isinstance(gpu_grid, str) or gpu_grid not in GPU_GRIDS:
        raise ValueError(f"Unknown gpu grid {gpu_grid!r}; choose one of {', '.join(GPU_GRIDS)}.")
    if gpu_grid != "day" and profile != "gpu":
        raise ValueError(f"the {gpu_grid} grid (--grid {gpu_grid}) is the gpu profile's; the {profile} profile has one "
                         "grid.")
    return gpu_grid


def _frozen(values: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(copy.deepcopy(dict(values or {})))


@dataclass(frozen=True, eq=False)
class Profiles:
    """One notebook's settings in every profile, in one place: its paper's settings module (module docstring).

    ``notebook``: ``<paper>/<stem>`` as ``python -m companion list`` names it. ``smoke``, ``cpu``, ``gpu``: each
    profile's values, ``common`` every profile's (a profile's own value wins). ``full``: what the gpu profile's full
    paper grid changes in ``gpu``; ``grid_reason``: why the default grid's seeds and runs are enough for the claims
    (shown in the settings table). ``rows``: the gpu profile's settings table, every choice with its source
    (:class:`companion.gpu_settings.Row`; empty for a notebook that trains no paper backbone).

    Calling it gives the :class:`Settings` of ``profile``: ``gpu_grid`` picks the gpu profile's grid (the other
    profiles have one grid; asking them for ``"full"`` is an error), ``overrides`` are the notebook's parameters
    (:func:`settings`: ``None`` values ignored, unknown names and wrong types refused). Each call builds fresh values:
    the module's dicts are never handed out."""

    notebook: str
    smoke: Mapping[str, Any]
    cpu: Mapping[str, Any]
    gpu: Mapping[str, Any]
    common: Mapping[str, Any] = field(default_factory=dict)
    full: Mapping[str, Any] = field(default_factory=dict)
    grid_reason: str = ""
    rows: tuple = ()

    def __post_init__(self):
        if not isinstance(self.notebook, str) or self.notebook.count("/") != 1:
            raise ValueError(f"Profiles.notebook must be '<paper>/<stem>', got {self.notebook!r}.")
        for name in ("smoke", "cpu", "gpu", "common", "full"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        unknown = set(self.full) - set(self.gpu) - set(self.common)
        if unknown:
            raise ValueError(f"{self.notebook}: the full grid changes {', '.join(sorted(unknown))}, which the gpu "
                             "profile does not define.")
        object.__setattr__(self, "rows", tuple(self.rows))

    def profile_values(self, profile: str, gpu_grid: str = "day") -> dict[str, Any]:
        """The values of ``profile`` (and grid), ``common`` included, as written: no dry run, no overrides."""
        check_profile(profile)
        values = {**copy.deepcopy(dict(self.common)), **copy.deepcopy(dict(getattr(self, profile)))}
        if profile == "gpu" and check_gpu_grid(gpu_grid) == "full":
            values.update(copy.deepcopy(dict(self.full)))
        return values

    def __call__(self, profile: str, gpu_grid: str = "day", **overrides: Any) -> Settings:
        check_gpu_grid(gpu_grid, check_profile(profile))
        gpu = {**self.gpu, **(self.full if gpu_grid == "full" else {})}
        cfg = settings(profile, smoke=copy.deepcopy(dict(self.smoke)), cpu=copy.deepcopy(dict(self.cpu)),
                       gpu=copy.deepcopy(gpu), common=copy.deepcopy(dict(self.common)), overrides=overrides)
        if profile != "gpu":
            return cfg
        return Settings(profile, {**{k: v for k, v in cfg.items() if k != "profile"}, "gpu_grid": gpu_grid})
