"""The six poolings of token states into sentence vectors (listed in :mod:`companion.encoders`)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

__all__ = ["POOLINGS", "pool"]

POOLINGS = ("cls", "mean", "last", "max", "cls-mean", "first-last")


def _check_pooling(method: str) -> str:
    if method not in POOLINGS:
        raise ValueError(f"Unknown pooling {method!r}; valid poolings: {', '.join(POOLINGS)}.")
    return method


# --------------------------------------------------------------------------------------------------- pooling
def pool(hidden: torch.Tensor | Sequence[torch.Tensor], attention_mask: torch.Tensor | None, method: str) -> torch.Tensor:
    """Pool token states ``B x T x d`` into sentence vectors ``B x d``.

    ``hidden`` is the last layer's states, or the tuple of all hidden states (``hidden_states[0]`` = embedding
    output, as returned with ``output_hidden_states=True``); ``first-last`` needs the tuple, every other method
    uses its last element. ``attention_mask`` is ``B x T`` (1 = real token, 0 = padding; left or right padding),
    or ``None`` for "no padding".
    """
    _check_pooling(method)
    layers = None
    if not isinstance(hidden, torch.Tensor):
        layers = tuple(hidden)
        hidden = layers[-1]
    if hidden.dim() != 3:
        raise ValueError(f"pool expects token states of shape B x T x d, got {tuple(hidden.shape)}.")
    B, T, _ = hidden.shape
    if attention_mask is None:
        attention_mask = torch.ones(B, T, dtype=torch.long, device=hidden.device)
    mask = attention_mask.to(hidden.device)
    if method == "first-last":
        if layers is None or len(layers) < 2:
            raise ValueError("Pooling 'first-last' needs all hidden states (the tuple from output_hidden_states=True).")
        return _masked_mean((layers[1] + layers[-1]) / 2.0, mask)
    if method == "mean":
        return _masked_mean(hidden, mask)
    if method == "cls":
        return _gather(hidden, mask.long().argmax(dim=1))
    if method == "cls-mean":
        return (_gather(hidden, mask.long().argmax(dim=1)) + _masked_mean(hidden, mask)) / 2.0
    if method == "last":
        # last position whose mask is 1: T-1 minus the first 1 in the flipped mask (right and left padding)
        last = (T - 1) - mask.long().flip(dims=[1]).argmax(dim=1)
        return _gather(hidden, last)
    # max
    fill = torch.finfo(hidden.dtype).min
    return hidden.masked_fill(~mask.bool().unsqueeze(-1), fill).max(dim=1).values


def _masked_mean(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(dim=1) / m.sum(dim=1).clamp(min=1e-9)


def _gather(hidden: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), index.to(hidden.device)]
