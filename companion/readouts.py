r"""Cross-layer readouts over ``output_hidden_states`` (Paper 4, Mohr et al. arXiv 2606.06994, §4.3 and App. D).

Each readout maps the tuple of hidden states (``hidden_states[0]`` = embedding output, ``[-1]`` = last layer,
each ``B x T x d``) and the attention mask to one ``B x d`` vector; every layer is mean-pooled first.

* :class:`LayerWeightedMean` — B3 / M1: softmax-weighted mean of the last ``K`` layers (``learn=False``: the
  uniform mean of B0-WM);
* :class:`LayerGate` — M2: input-dependent weights, a softmax gate computed from the last layer's pooled vector;
* :class:`DeepSupervision` — M3: a linear head per layer (trained with a loss per layer), the mean of the heads
  at inference.

:func:`simplex_readout` and :func:`readout_invariance_gap` state App. D.7: if :math:`h_l = h_L + \xi_l` with
:math:`\|\xi_l\| \le \gamma`, any two readouts with weights on the simplex differ by at most :math:`2\gamma`
(each is within :math:`\gamma` of :math:`h_L`).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn as nn

from companion.encoders import pool


def _check_k(k: int) -> int:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"K (number of top layers) must be a positive int, got {k!r}.")
    return k


def pooled_layers(hidden_states: Sequence[torch.Tensor], attention_mask: torch.Tensor | None, k: int
                  ) -> torch.Tensor:
    """Mean-pooled last ``k`` hidden states, stacked ``K x B x d`` (oldest first, the last layer last)."""
    hs = tuple(hidden_states)
    if len(hs) < _check_k(k):
        raise ValueError(f"K={k} layers requested but only {len(hs)} hidden states were given.")
    return torch.stack([pool(h, attention_mask, "mean") for h in hs[-k:]])


def simplex_readout(states: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """:math:`\\sum_l w_l h_l` for ``states`` ``K x ... x d`` and weights on the simplex: ``(K,)`` shared or
    ``(K, B)`` per input. Raises if the weights are negative or do not sum to 1."""
    if weights.shape[0] != states.shape[0]:
        raise ValueError(f"{weights.shape[0]} weights for {states.shape[0]} layers.")
    if bool((weights < -1e-6).any()) or not torch.allclose(weights.sum(0), torch.ones((), dtype=weights.dtype),
                                                          atol=1e-5):
        raise ValueError("readout weights must lie on the simplex (non-negative, summing to 1).")
    w = weights.reshape(weights.shape + (1,) * (states.dim() - weights.dim()))
    return (w * states).sum(0)


def readout_invariance_gap(states: torch.Tensor, w1: torch.Tensor, w2: torch.Tensor) -> tuple[float, float]:
    """App. D.7 as numbers: ``(max_i ||r_w1(i) - r_w2(i)||, 2 * gamma)`` with
    ``gamma = max_{l,i} ||h_l(i) - h_L(i)||`` over the ``K x N x d`` ``states`` (last layer last). D.7 says the
    first never exceeds the second."""
    gamma = (states - states[-1:]).norm(dim=-1).max()
    gap = (simplex_readout(states, w1) - simplex_readout(states, w2)).norm(dim=-1).max()
    return float(gap), float(2 * gamma)


class LayerWeightedMean(nn.Module):
    """B3/M1 (Paper 4 §4.3): :math:`\\sum_{l=L-K+1}^{L} \\mathrm{softmax}(a)_l\\,\\mathrm{mean}(h_l)`, ``a``
    learned (initialised uniform). ``learn=False`` keeps it uniform: B0-WM, the frozen mean of the last 4 layers."""

    def __init__(self, k: int = 4, learn: bool = True):
        super().__init__()
        self.k = _check_k(k)
        logits = torch.zeros(k)
        if learn:
            self.logits = nn.Parameter(logits)
        else:
            self.register_buffer("logits", logits)

    def weights(self) -> torch.Tensor:
        return torch.softmax(self.logits, dim=0)

    def forward(self, hidden_states, attention_mask=None) -> torch.Tensor:
        return simplex_readout(pooled_layers(hidden_states, attention_mask, self.k), self.weights())


class LayerGate(nn.Module):
    """M2 (Paper 4 §4.3): input-dependent weights :math:`g(x) = \\mathrm{softmax}(W\\,\\mathrm{mean}(h_L) + b)`
    over the last ``K`` layers. Initialised to the uniform gate (``W = 0, b = 0``)."""

    def __init__(self, dim: int, k: int = 4):
        super().__init__()
        self.k = _check_k(k)
        self.gate = nn.Linear(dim, k)
        nn.init.zeros_(self.gate.weight)
        nn.init.zeros_(self.gate.bias)

    def weights(self, hidden_states, attention_mask=None) -> torch.Tensor:
        """``K x B`` gate weights."""
        return torch.softmax(self.gate(pool(tuple(hidden_states)[-1], attention_mask, "mean")), dim=-1).T

    def forward(self, hidden_states, attention_mask=None) -> torch.Tensor:
        stack = pooled_layers(hidden_states, attention_mask, self.k)
        return simplex_readout(stack, self.weights(hidden_states, attention_mask))


class DeepSupervision(nn.Module):
    """M3 (Paper 4 §4.3): a linear head per top layer (initialised to the identity). ``forward(..., per_layer=True)``
    returns the ``K x B x d`` head outputs, each trained with its own loss; at inference the uniform mean of the
    heads is the embedding."""

    def __init__(self, dim: int, k: int = 4):
        super().__init__()
        self.k = _check_k(k)
        self.heads = nn.ModuleList(nn.Linear(dim, dim) for _ in range(k))
        for head in self.heads:
            nn.init.eye_(head.weight)
            nn.init.zeros_(head.bias)

    def forward(self, hidden_states, attention_mask=None, per_layer: bool = False) -> torch.Tensor:
        stack = pooled_layers(hidden_states, attention_mask, self.k)
        outs = torch.stack([head(x) for head, x in zip(self.heads, stack)])
        if per_layer:
            return outs
        return simplex_readout(outs, torch.full((self.k,), 1.0 / self.k, dtype=outs.dtype, device=outs.device))
