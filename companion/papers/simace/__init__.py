"""SimACE: the settings its notebooks share and the training runs (:mod:`companion.papers.simace.runs`).

``02-sts-experiments`` trains the main runs; ``03-analysis`` reloads them from the run cache, which is keyed by
these settings, so both notebooks read them from here rather than each keeping a copy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: Per-profile settings of the dropout-view runs (paper Table 7 for the gpu profile: BERT-base, batch 64, lr 3e-5,
#: one epoch of the 1M wiki sentences = 15,625 steps, dev check every 125 steps (§5 'Training Setups'), [CLS] pooling,
#: length 32; five seeds as in Table 2's mean and standard deviation over 5 runs).
RUN_SETTINGS: dict[str, dict[str, Any]] = {
    "smoke": dict(seeds=[0], steps=2, batch_size=8, model="tiny-bert", n_top=1, n_pairs=8, n_dev=40, lr=1e-4,
                  eval_every=1, threads=1, n_probe=8),
    "cpu": dict(seeds=[0, 1, 2, 3, 4], steps=30, batch_size=64, model="sentence-transformers/all-MiniLM-L6-v2",
                n_top=1, n_pairs=500, n_dev=None, lr=1e-4, eval_every=10, threads=1, n_probe=64),
    "gpu": dict(seeds=[0, 1, 2, 3, 4], steps=15625, batch_size=64, model="bert-base-uncased", n_top=12,
                n_pairs=None, n_dev=None, lr=3e-5, eval_every=125, threads=None, n_probe=64),
    "common": dict(dropout=0.1, pooling="cls", max_length=32, n_heldout=1000),
}

#: name -> (objective, tau, margin in degrees); Table 7: SimCSE/ArcCon tau 0.05, SimACE tau 0.06 (BERT)
MAIN: dict[str, tuple[str, float, float]] = {
    "SimCSE": ("simcse", 0.05, 0.0),
    "ArcCon": ("arccon", 0.05, 10.0),
    "SimACE": ("simace", 0.06, 10.0),
}


def run_settings(**extra: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """:data:`RUN_SETTINGS` with per-profile additions (``smoke=dict(...)``, ``cpu=...``, ``gpu=...``), as keyword
    arguments for :func:`companion.profiles.settings`. An addition may not redefine a shared run setting."""
    unknown = set(extra) - set(RUN_SETTINGS)
    if unknown:
        raise ValueError(f"Unknown profile(s) {', '.join(sorted(unknown))}; use {', '.join(RUN_SETTINGS)}.")
    out = {}
    for profile, values in RUN_SETTINGS.items():
        added = extra.get(profile, {})
        clash = set(added) & (set(values) | set(RUN_SETTINGS["common"]))
        if clash:
            raise ValueError(f"{', '.join(sorted(clash))} is a shared run setting; change it in RUN_SETTINGS.")
        out[profile] = {**values, **added}
    return out


def run_cache(profile: str) -> Path:
    """Where the trained top-layer weights and histories of ``profile`` are cached (shared by 02 and 03)."""
    from companion.settings import cache_dir

    return cache_dir() / "simace" / "runs" / profile


def sts_key(n_pairs: int | None) -> str:
    """The name under which a run caches its STS scores (the evaluation subset is part of it)."""
    return f"7-set STS test, n_pairs={n_pairs}, subset seed 0"
