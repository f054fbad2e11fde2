"""Input validation shared by losses, metrics and heads: one clear message instead of a NaN or a deep traceback."""

from __future__ import annotations

import math

import torch


def check_temperature(tau: float, name: str = "tau") -> float:
    """A temperature must be a finite number > 0."""
    if isinstance(tau, torch.Tensor):
        tau = float(tau)
    if not isinstance(tau, (int, float)) or isinstance(tau, bool) or not math.isfinite(tau) or tau <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {tau!r}.")
    return float(tau)


def check_finite(x: torch.Tensor, name: str = "embeddings") -> torch.Tensor:
    """Reject NaN/Inf inputs up front (a NaN loss is much harder to trace back)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}.")
    # Fast path: the sum of finite values is finite unless it overflows, and any NaN/Inf makes it non-finite; only
    # then (rare) run the element-wise test. One read of the data and no boolean copy.
    if x.is_floating_point() and x.numel() and not math.isfinite(float(x.detach().sum())) \
            and not bool(torch.isfinite(x.detach()).all()):
        raise ValueError(f"{name} contain NaN or Inf values.")
    return x


def check_matrix(x: torch.Tensor, name: str = "embeddings", min_rows: int = 1) -> torch.Tensor:
    """A finite 2-D float tensor with at least ``min_rows`` rows."""
    check_finite(x, name)
    if x.dim() != 2:
        raise ValueError(f"{name} must be 2-D (batch x dim), got shape {tuple(x.shape)}.")
    if x.shape[0] < min_rows:
        raise ValueError(f"{name} need at least {min_rows} rows, got {x.shape[0]}.")
    return x


def check_same_length(a, b, name_a: str = "embeddings", name_b: str = "labels") -> None:
    if len(a) != len(b):
        raise ValueError(f"{name_a} and {name_b} have different lengths: {len(a)} vs {len(b)}.")
