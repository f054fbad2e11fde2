r"""The top transformer layer computed for the [CLS] token only: the same [CLS] output, about 5x cheaper.

With [CLS] pooling nothing downstream reads the top layer's outputs at the other positions. Those positions still
enter as keys and values of [CLS]'s attention, but their queries, attention outputs and feed-forward block are
never used. :func:`cls_top_layer` therefore computes keys and values for every token and the rest for [CLS]
only: per sentence of ``T`` tokens and width ``d`` about ``(2T + 12) d^2`` multiply-adds instead of ``12 T d^2``
(``T = 32``: 5x fewer). In eval mode the output equals the full layer's [CLS] row (a test checks it); in training
mode the dropout masks on the [CLS] path (attention probabilities of [CLS]'s row, the two hidden dropouts) have
the same distribution as in the full layer, so the training signal is the same in law, only the random stream
differs. The BERT layer structure used is Hugging Face's ``BertLayer`` (MiniLM, BERT).

:class:`ClsTopEncoder` is an :class:`~companion.encoders.upper.UpperEncoder` with [CLS] pooling whose LAST trained
layer takes this path; everything else (cached lower states, ``encode``, ``fresh``) is inherited.
"""

from __future__ import annotations

import torch

from companion.encoders.upper import UpperEncoder, run_layers


def cls_top_layer(layer: torch.nn.Module, h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The [CLS] output ``B x d`` of one Hugging Face ``BertLayer`` on token states ``h`` (``B x T x d``, [CLS]
    first) with padding ``mask`` (``B x T``, 1 = real token). Dropout follows ``layer``'s mode."""
    if h.dim() != 3 or mask.shape != h.shape[:2]:
        raise ValueError(f"h must be B x T x d and mask B x T, got {tuple(h.shape)} and {tuple(mask.shape)}.")
    sa, so = layer.attention.self, layer.attention.output
    b, t, d = h.shape
    heads, dh = sa.num_attention_heads, sa.attention_head_size
    x0 = h[:, 0]
    q = sa.query(x0).view(b, heads, 1, dh)
    k = sa.key(h).view(b, t, heads, dh).transpose(1, 2)
    v = sa.value(h).view(b, t, heads, dh).transpose(1, 2)
    scores = (q @ k.transpose(-1, -2)) * sa.scaling  # B x H x 1 x T
    scores = scores.masked_fill(~mask.bool()[:, None, None, :], float("-inf"))
    probs = sa.dropout(torch.softmax(scores, dim=-1))
    ctx = (probs @ v).reshape(b, heads * dh)
    a = so.LayerNorm(so.dropout(so.dense(ctx)) + x0)
    out = layer.output
    return out.LayerNorm(out.dropout(out.dense(layer.intermediate(a))) + a)


class ClsTopEncoder(UpperEncoder):
    """:class:`~companion.encoders.upper.UpperEncoder` with ``pooling="cls"`` and no MLP pooler whose last trained
    layer runs :func:`cls_top_layer`. Its run-cache identity carries ``top="cls-only"`` (the random stream differs
    from the full layer's). ``fresh(pooling=...)`` with another pooling returns a plain ``UpperEncoder`` that
    shares the cached lower states."""

    def __init__(self, encoder, **kwargs):
        kwargs.pop("top", None)
        super().__init__(encoder, **kwargs)
        if self.pooling != "cls" or self.mlp is not None:
            raise ValueError("ClsTopEncoder needs pooling='cls' and no MLP pooler; use UpperEncoder otherwise.")
        if self.position_bias is not None:
            raise ValueError("ClsTopEncoder computes BERT-style layers (no relative position bias); use UpperEncoder "
                             "for MPNet.")
        self._init_args = {**self._init_args, "top": "cls-only"}

    def _fresh_class(self, args: dict) -> type[UpperEncoder]:
        """[CLS] pooling without an MLP pooler stays on the [CLS]-only path; any other pooling is a plain
        :class:`~companion.encoders.upper.UpperEncoder` (which does not take ``top``)."""
        args.pop("top", None)
        return ClsTopEncoder if args.get("pooling") == "cls" and not args.get("mlp_pooler") else UpperEncoder

    def forward(self, states: torch.Tensor, mask: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        dev = next(self.parameters()).device
        mask = mask.to(dev)
        h, mask, _ = self._inputs(states, mask, dev)
        if len(self.layers) > 1:
            h = run_layers(self.layers[:-1], self.config, h, mask)[-1]
        return cls_top_layer(self.layers[-1], h, mask)


def check_cls_top(encoder, texts, atol: float = 1e-4) -> float:
    """Largest absolute difference between :class:`ClsTopEncoder` and the full-layer
    :class:`~companion.encoders.upper.UpperEncoder` ([CLS] pooling, eval mode, unnormalised) on ``texts``; raises
    when it exceeds ``atol``."""
    full = UpperEncoder(encoder, n_top=1, pooling="cls")
    fast = ClsTopEncoder(encoder, n_top=1, pooling="cls")
    diff = float((full.encode(texts, normalize=False) - fast.encode(texts, normalize=False)).abs().max())
    if not diff <= atol:
        raise AssertionError(f"ClsTopEncoder differs from the full top layer by {diff:.2e} (> {atol}).")
    return diff


__all__ = ["ClsTopEncoder", "check_cls_top", "cls_top_layer"]
