"""Shared helpers of the benchmarks: side-by-side timing, summary statistics, environment record."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

VERSIONED = ("torch", "transformers", "sentence-transformers", "numpy", "scipy", "papermill")


def summary(times: Sequence[float]) -> dict[str, float | int]:
    """Median, min, max, quartiles and IQR of a list of seconds (all rounded to 0.1 µs)."""
    xs = sorted(float(t) for t in times)
    if not xs:
        raise ValueError("summary of no measurements.")
    if len(xs) >= 2:
        q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    else:
        q1 = q3 = xs[0]
    r = lambda x: round(x, 7)  # noqa: E731
    return {"n": len(xs), "median_s": r(statistics.median(xs)), "min_s": r(xs[0]), "max_s": r(xs[-1]),
            "q1_s": r(q1), "q3_s": r(q3), "iqr_s": r(q3 - q1)}


def time_side_by_side(fns: dict[str, Callable[[], Any]], repeats: int, warmup: int = 3) -> dict[str, list[float]]:
    """Wall time of each callable, interleaved: in repeat ``r`` the callables run one after another, in an order
    rotated by ``r``, so slow drifts of the machine's load hit every side alike. ``warmup`` untimed rounds first."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}.")
    names = list(fns)
    for _ in range(max(warmup, 0)):
        for name in names:
            fns[name]()
    out: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            t0 = time.perf_counter()
            fns[name]()
            out[name].append(time.perf_counter() - t0)
    return out


def ratio_entry(ours: Sequence[float], peer: Sequence[float], goal: float | None, goal_text: str,
                lower_is_better: bool = True) -> dict[str, Any]:
    """Statistics of both sides, ratio of medians ``ours / peer`` and whether ``ratio <= goal``.

    ``ratio_spread`` gives the ratio's range over repeats (per-repeat ratios of the interleaved measurements,
    min and max), so a ratio can be read together with its noise."""
    so, sp = summary(ours), summary(peer)
    ratio = so["median_s"] / sp["median_s"] if sp["median_s"] > 0 else float("inf")
    per = sorted(a / b for a, b in zip(ours, peer) if b > 0)
    entry: dict[str, Any] = {"ours": so, "peer": sp, "ratio": round(ratio, 4),
                             "ratio_spread": [round(per[0], 4), round(per[-1], 4)] if per else None,
                             "goal": goal_text}
    if goal is not None:
        entry["met"] = bool(ratio <= goal) if lower_is_better else bool(ratio >= goal)
    return entry


def environment(threads: int | None = None) -> dict[str, Any]:
    """Hardware, library versions, date (UTC) and the load average when a benchmark starts."""
    import torch

    from companion.results import library_versions

    versions = library_versions(VERSIONED)
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on Linux
        load = None
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:  # pragma: no cover
        pass
    return {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "cpu": cpu,
            "cpu_count": os.cpu_count(), "platform": platform.platform(terse=True),
            "torch_threads": threads if threads is not None else torch.get_num_threads(),
            "load_average_1_5_15": load, "versions": versions}
