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

A notebook declares its settings per profile and picks one::

    cfg = settings(profile,
                   smoke=dict(steps=5, seeds=[0]),
                   cpu=dict(steps=400, seeds=[0, 1, 2]),
                   gpu=dict(steps=8000, seeds=[0, 1, 2, 3, 4], model="bert-base-uncased"),
                   common=dict(lr=3e-5),
                   overrides=dict(steps=steps_override))   # None values are ignored

``cfg`` is a read-only attribute namespace; ``cfg.profile`` names the profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

PROFILES = ("smoke", "cpu", "gpu")
_LAST: Settings | None = None  # the most recent settings() result (recorded in the ledger's provenance)


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
        body = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"Settings({body})"


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

    Overrides (typically papermill parameters) must name settings that exist, and keep the type of the value
    they replace (an int may replace a float), so a typo or a wrongly typed papermill parameter fails loudly.
    """
    check_profile(profile)
    per_profile = {"smoke": smoke, "cpu": cpu, "gpu": gpu}[profile]
    values = dict(common or {})
    values.update(per_profile)
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
            )
        values[key] = value
    global _LAST
    _LAST = Settings(profile, values)
    return _LAST


def last_settings() -> Settings | None:
    """The settings most recently returned by :func:`settings` in this process (``None`` before any call).

    :meth:`companion.results.Ledger.save` writes them into the run's provenance, so the site can say at which
    scale (backbone, subsets, steps) each notebook ran."""
    return _LAST
