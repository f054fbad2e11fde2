r"""Transformer "heads" appended to a (frozen) text encoder — circumplex paper (Yamauchi & Aizawa, ACL 2026) §3.1.

Both heads take the backbone's token states ``h'' (B x T x d)`` and a padding mask and return the sentence
embedding :math:`e = \mathrm{Norm}(\mathrm{Pooling}(h))` (unit norm; pooling ``mean`` / ``cls`` / ``last``).

* :class:`GPTHead` (paper Eq. 1 / 12): a pre-norm block without biases,
  :math:`h' = h'' + \mathrm{ATTN}(\mathrm{RMSNorm}(h''))`, :math:`h = h' + \mathrm{MLP}(\mathrm{RMSNorm}(h'))`,
  :math:`\mathrm{MLP}(x) = (\mathrm{SiLU}(xW_u) \odot xW_v)W_o`; bidirectional multi-head attention with a
  key-padding mask.
* :class:`NGPTHead` (Loshchilov et al. 2025, nGPT; paper Eq. 2 / 18–20): everything lives on the unit sphere,
  :math:`h' = \mathrm{Norm}((1-|\alpha_A|)\odot\mathrm{Norm}(h'') + |\alpha_A|\odot\mathrm{Norm}(\mathrm{ATTN}(h'')))`,
  :math:`h = \mathrm{Norm}((1-|\alpha_M|)\odot\mathrm{Norm}(h') + |\alpha_M|\odot\mathrm{Norm}(\mathrm{MLP}(h')))`
  with learnable :math:`\alpha_A, \alpha_M \in \mathbb R^d` (init 0.05); q and k are L2-normalised per head and
  scaled by a learnable :math:`s_{qk}` (init 1); the softmax scale is :math:`\sqrt{d_{head}}`; the MLP uses
  :math:`u = xW_u \odot s_u`, :math:`v = xW_v \odot s_v\sqrt d` (init 1) and :math:`(u \odot \mathrm{SiLU}(v))W_o`
  (nGPT's convention: the :math:`\sqrt d`-scaled branch goes through SiLU); :math:`d_{MLP} = 4d`.
  **Every weight matrix is re-normalised along the embedding dimension at construction and after every optimiser
  step**: call :meth:`NGPTHead.normalize_weights` (pass it as ``after_step`` to
  :func:`companion.training.train`). Train it without weight decay and without warm-up.

  **Training parametrisation** (``parametrisation=``). The equations fix what α and :math:`s_{qk}` *are*, not how
  they are stored, and the optimiser sees the stored parameter. ``"authors"`` (the default, used to reproduce the
  paper) stores them as nGPT's training recipe does: with a base scale :math:`b` (``base_scale``), a stored
  :math:`p_\alpha` (init :math:`b`) gives :math:`\alpha = |p_\alpha|\,\alpha_{init}/b` and a stored
  :math:`p_{s}` (init :math:`b`) gives :math:`s_{qk} = p_s / b`. Both start at the same effective values as
  ``"plain"``, which stores α and :math:`s_{qk}` directly, so the forward pass at initialisation is the same; but
  an Adam step of size ``lr`` on the stored parameter moves α by about :math:`\mathrm{lr}\cdot\alpha_{init}/b`
  and :math:`s_{qk}` by about :math:`\mathrm{lr}/b` (with :math:`b = 384^{-1/2}`: α 0.98 lr, :math:`s_{qk}` 19.6 lr),
  against lr for both under ``"plain"``. :math:`s_u, s_v` have scale 1 in both (as in nGPT), so they are stored
  directly.

  **Base scale** (``base_scale=``). nGPT sets :math:`b = d^{-1/2}` from the model width d. The paper's head "shares
  the same attention mask, dimension size, and attention head count as the backbone" (§4.1, Implementation
  Details; App. D, Table 3 lists the hidden sizes), so in the authors' runs d is the backbone's width.
  ``"backbone"`` (the default) takes :math:`b = d_{backbone}^{-1/2}` (``backbone_dim``; the head's own width when
  it is not given, i.e. a full-width head): a head narrower than its backbone (a PCA-projected head of this
  companion's cpu profile) then steps α and :math:`s_{qk}` at the authors' rate for that backbone. ``"head"``
  takes the head's own width, :math:`b = d_{head}^{-1/2}` (this companion's earlier choice): a 64-wide head on the
  384-wide MiniLM steps them at :math:`\sqrt{64/384} \approx 0.41` of that rate. A positive number sets
  :math:`b` directly. At full width the two names give the same head.

  **Remaining differences**, from the paper's equations and from the released training code of the paper, and
  which one this head follows:

  - *Input to attention.* Eq. 18 puts the block input on the sphere (:math:`h'' \in S^{d-1}`), and this head feeds
    :math:`\mathrm{Norm}(h'')` to ATTN by default. The released code feeds the backbone's un-normalised states;
    ``raw_attn_input=True`` does that. q and k are normalised either way, so only the values (hence the weighting
    of tokens by their norm) differ; the default follows the equation because the paper states it.
  - *Input dropout 0.1* in the released block: not applied (no dropout is stated in the paper, and a deterministic
    head keeps runs comparable across seeds by data order alone).
  - *bf16 linear layers* in the released block (Table 3 lists bfloat16 as the torch dtype): this head runs in
    float32, on CPU; float32 only removes rounding noise.
  - *Rotary position helper* in the released block: not applied. It is not a rotation (an open issue in NVIDIA's nGPT
    code), the paper's Eq. 19 has no positional term, and the backbone's states
    already carry position.
  - *Softmax scale* :math:`\sqrt{d_{head}}` and the :math:`\sqrt d` on :math:`v`: as in Eq. 19–20 and nGPT (the
    paper's Eq. 20 writes :math:`\sqrt{d_{MLP}}`; nGPT and the released code scale by the model width d).

Training a head on cached backbone states (the frozen-backbone setting of this companion) uses
:class:`~companion.encoders.states.PackedStates` (token states stored once, packed, float16) and :func:`train_head`,
with gradient clipping at norm 1.0 by default (``clip_norm``): App. D says that "for any parameters not
explicitly listed, we employ the default settings", and its Table 3 names the settings it does list as Hugging
Face's ``TrainingArguments`` names them (LR scheduler type, Train Batch Size, Torch dtype), whose default
``max_grad_norm`` is 1.0; ``clip_norm=None`` trains without clipping (this companion's earlier choice).

**Pooling** (paper Eq. 3–4 / 13–14; §4.1, Implementation Details; App. D, Table 3). The paper pools the head's
output with [CLS] for the BERT-like encoders (mE5, mxbai), the last token for the decoder-only LLMs (Llama-3.2-3B,
OLMo-3-7B) and Qwen3-Embedding-4B, and the mean for Llama-Embed-Nemotron-8B; :func:`paper_pooling` names it per
backbone. Every head here takes ``pooling=`` (``"mean"``, ``"cls"``, ``"last"``); the frozen-head runs of
:mod:`companion.papers.circumplex.experiments` and :mod:`companion.papers.circumplex.comparison` pass it through,
defaulting to ``"mean"``. ``"last"`` takes the last real token of the (possibly truncated, ``max_tokens``) states.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from companion._checks import check_finite
from companion.encoders import pool
from companion.encoders.states import PackedStates, cached_token_states
from companion.metrics.clustering import v_measure
from companion.papers.circumplex.finetune import (
    BackboneInputs,
    TunedHead,
    accelerator_for,
    check_options,
    is_tuned,
)
from companion.papers.circumplex.geometry import circumplex_scores
from companion.training import gpu_checkpoint, index_batches, seed_everything, train

HEAD_POOLINGS = ("mean", "cls", "last")
#: Training parametrisations of :class:`NGPTHead` (module docstring): nGPT's scaled storage, or direct storage.
NGPT_PARAMETRISATIONS = ("authors", "plain")
#: Named base scales of :class:`NGPTHead` (module docstring): from the backbone's width (the authors') or the head's.
BASE_SCALES = ("backbone", "head")
#: Gradient-clipping norm of :func:`train_head` by default: the Hugging Face Trainer's ``max_grad_norm`` (App. D).
CLIP_NORM = 1.0

#: The paper's pooling per backbone (§4.1, Implementation Details; App. D, Table 3): [CLS] for the BERT-like
#: encoders, the last token for the decoder-only LLMs and Qwen3-Embedding, the mean for Llama-Embed-Nemotron.
PAPER_POOLING = {"intfloat/multilingual-e5-large": "cls", "mixedbread-ai/mxbai-embed-large-v1": "cls",
                 "Qwen/Qwen3-Embedding-4B": "last", "nvidia/llama-embed-nemotron-8b": "mean",
                 "meta-llama/Llama-3.2-3B": "last", "allenai/Olmo-3-1025-7B": "last"}
#: The paper's pooling per backbone family (§4.1): BERT-like encoders, LLM-based encoders, decoder-only LLMs.
FAMILY_POOLING = {"bert-like": "cls", "decoder-only": "last"}


def paper_pooling(backbone: str) -> str:
    """The head pooling the paper uses for ``backbone``: a hub id of App. D's Table 3 (:data:`PAPER_POOLING`; the
    short names mE5, mxbai, Qwen3-Embedding-4B, … are matched too) or a family, ``"bert-like"`` ([CLS]) or
    ``"decoder-only"`` (last token) (:data:`FAMILY_POOLING`). Any other backbone raises: name its family instead
    (the paper's rule is by family: ``"bert-like"`` for an encoder such as MiniLM, ``"decoder-only"`` for a frozen
    decoder LLM)."""
    if backbone in PAPER_POOLING:
        return PAPER_POOLING[backbone]
    if backbone in FAMILY_POOLING:
        return FAMILY_POOLING[backbone]
    short = {"me5": "intfloat/multilingual-e5-large", "mxbai": "mixedbread-ai/mxbai-embed-large-v1",
             "qwen3-embedding-4b": "Qwen/Qwen3-Embedding-4B", "llama-embed-nemotron-8b": "nvidia/llama-embed-nemotron-8b",
             "llama-3.2-3b": "meta-llama/Llama-3.2-3B", "olmo-3-7b": "allenai/Olmo-3-1025-7B"}
    name = backbone.split("/")[-1].lower()
    for alias, hub in short.items():
        if name == alias or name == hub.split("/")[-1].lower():
            return PAPER_POOLING[hub]
    raise ValueError(f"No pooling of the paper for {backbone!r}; name a backbone of App. D's Table 3 "
                     f"({', '.join(PAPER_POOLING)}) or a family ({', '.join(FAMILY_POOLING)}).")


def resolve_base_scale(base_scale: str | float, dim: int, backbone_dim: int | None = None) -> float:
    """The number :math:`b` that ``base_scale`` names for a head of width ``dim`` on a backbone of width
    ``backbone_dim`` (None: the head's width): ``"backbone"`` :math:`d_{backbone}^{-1/2}`, ``"head"``
    :math:`d_{head}^{-1/2}`, or a positive number as given."""
    if isinstance(base_scale, str):
        if base_scale not in BASE_SCALES:
            raise ValueError(f"Unknown base_scale {base_scale!r}; choose one of {', '.join(BASE_SCALES)} or a "
                             "positive number.")
        if backbone_dim is not None and (not isinstance(backbone_dim, int) or backbone_dim < 1):
            raise ValueError(f"backbone_dim must be a positive int, got {backbone_dim!r}.")
        width = (backbone_dim or dim) if base_scale == "backbone" else dim
        return float(width) ** -0.5
    if isinstance(base_scale, bool) or not isinstance(base_scale, (int, float)) or not base_scale > 0 \
            or not math.isfinite(base_scale):
        raise ValueError(f"base_scale must be one of {', '.join(BASE_SCALES)} or a positive number, got "
                         f"{base_scale!r}.")
    return float(base_scale)


def backbone_width(states) -> int:
    """The width of the backbone whose token states ``states`` (:class:`PackedStates`) hold: recorded by
    :func:`frozen_features` / :func:`featurize` on the states they return (they may be PCA-projected to a narrower
    head), else the states' own width."""
    return int(getattr(states, "backbone_dim", None) or states.dim)


def _check_states(states: torch.Tensor, mask: torch.Tensor | None, dim: int) -> torch.Tensor:
    if not isinstance(states, torch.Tensor) or states.dim() != 3:
        raise ValueError(f"token states must be a B x T x d tensor, got "
                         f"{tuple(states.shape) if isinstance(states, torch.Tensor) else type(states).__name__}.")
    if states.shape[-1] != dim:
        raise ValueError(f"token states have width {states.shape[-1]}, the head expects {dim}.")
    check_finite(states, "token states")
    if mask is None:
        return torch.ones(states.shape[:2], dtype=torch.bool, device=states.device)
    if mask.shape != states.shape[:2]:
        raise ValueError(f"mask has shape {tuple(mask.shape)}, expected {tuple(states.shape[:2])}.")
    mask = mask.to(torch.bool)
    if not bool(mask.any(dim=1).all()):
        raise ValueError("every row of the mask needs at least one real token.")
    return mask


class _Attention(nn.Module):
    """Bidirectional multi-head self-attention without biases; ``normalized`` adds nGPT's q/k normalisation."""

    def __init__(self, dim: int, n_heads: int, normalized: bool = False):
        super().__init__()
        if dim % n_heads:
            raise ValueError(f"dim {dim} is not divisible by n_heads {n_heads}.")
        self.n_heads, self.d_head, self.normalized = n_heads, dim // n_heads, normalized
        self.q = nn.Linear(dim, dim, bias=False)
        self.k = nn.Linear(dim, dim, bias=False)
        self.v = nn.Linear(dim, dim, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)
        self.s_qk_scale = 1.0  # effective s_qk = stored s_qk x s_qk_scale (NGPTHead sets it)
        if normalized:
            self.s_qk = nn.Parameter(torch.ones(n_heads, self.d_head))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        B, T, d = x.shape
        H, dh = self.n_heads, self.d_head
        q, k, v = (lin(x).view(B, T, H, dh).transpose(1, 2) for lin in (self.q, self.k, self.v))
        if self.normalized:
            s = (self.s_qk * self.s_qk_scale).view(1, H, 1, dh)
            q = F.normalize(q, dim=-1) * s
            k = F.normalize(k, dim=-1) * s
            scale = math.sqrt(dh)  # nGPT: sqrt(d_head), not 1/sqrt(d_head)
        else:
            scale = 1.0 / math.sqrt(dh)
        attn_mask = mask[:, None, None, :]  # key padding mask, broadcast over heads and queries
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=scale)
        return self.o(out.transpose(1, 2).reshape(B, T, d))


class _MLP(nn.Module):
    """Gated SiLU MLP without biases. GPT: (SiLU(xW_u) ⊙ xW_v)W_o. nGPT: u ⊙ SiLU(v) with scaled u, v."""

    def __init__(self, dim: int, hidden: int, normalized: bool = False):
        super().__init__()
        self.u = nn.Linear(dim, hidden, bias=False)
        self.v = nn.Linear(dim, hidden, bias=False)
        self.o = nn.Linear(hidden, dim, bias=False)
        self.normalized, self.dim = normalized, dim
        if normalized:
            self.s_u = nn.Parameter(torch.ones(hidden))
            self.s_v = nn.Parameter(torch.ones(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.normalized:
            u = self.u(x) * self.s_u
            v = self.v(x) * (self.s_v * math.sqrt(self.dim))
            return self.o(u * F.silu(v))
        return self.o(F.silu(self.u(x)) * self.v(x))


def _on_tokens(fn: Callable[[torch.Tensor], torch.Tensor], h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Apply a position-wise ``fn`` to the real tokens only (padding stays 0): the MLP is most of the compute and
    batches of sentences carry a lot of padding."""
    out = h.new_zeros(h.shape)
    out[mask] = fn(h[mask])
    return out


class _Head(nn.Module):
    def __init__(self, dim: int, pooling: str):
        super().__init__()
        if pooling not in HEAD_POOLINGS:
            raise ValueError(f"Unknown head pooling {pooling!r}; choose one of {', '.join(HEAD_POOLINGS)}.")
        if not isinstance(dim, int) or dim <= 0:
            raise ValueError(f"dim must be a positive int, got {dim!r}.")
        self.dim, self.pooling = dim, pooling

    def blocks(self, h: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:  # pragma: no cover
        raise NotImplementedError

    def forward(self, states: torch.Tensor, mask: torch.Tensor | None = None, return_stages: bool = False):
        """Unit sentence embeddings ``B x d``; with ``return_stages`` also a dict of *pooled* (un-normalised)
        internal representations: ``input``, ``attn_out``, ``after_attn`` (first residual), ``mlp_out``,
        ``output`` (second residual)."""
        mask = _check_states(states, mask, self.dim)
        stages = self.blocks(states, mask)
        emb = F.normalize(pool(stages["output"], mask, self.pooling), dim=-1)
        if not return_stages:
            return emb
        return emb, {name: pool(t, mask, self.pooling) for name, t in stages.items()}


class GPTHead(_Head):
    """One pre-RMSNorm Transformer block (paper Eq. 1/12) + pooling + L2 norm. See the module docstring."""

    def __init__(self, dim: int = 384, n_heads: int = 12, mlp_ratio: float = 4.0, pooling: str = "mean"):
        super().__init__(dim, pooling)
        self.norm_attn = nn.RMSNorm(dim, eps=1e-6)
        self.attn = _Attention(dim, n_heads)
        self.norm_mlp = nn.RMSNorm(dim, eps=1e-6)
        self.mlp = _MLP(dim, int(mlp_ratio * dim))

    def blocks(self, h, mask):
        a = self.attn(self.norm_attn(h), mask)
        h1 = h + a
        m = _on_tokens(lambda t: self.mlp(self.norm_mlp(t)), h1, mask)
        return {"input": h, "attn_out": a, "after_attn": h1, "mlp_out": m, "output": h1 + m}


class NGPTHead(_Head):
    """One normalised-Transformer (nGPT) block (paper Eq. 2/18–20) + pooling + L2 norm.

    ``parametrisation``: ``"authors"`` (default; α and s_qk stored scaled by the base scale b) or ``"plain"``
    (stored directly). ``base_scale`` (authors' parametrisation only): ``"backbone"`` (default, the authors' rate:
    :math:`b = d_{backbone}^{-1/2}` with ``backbone_dim``, the head's width when None), ``"head"``
    (:math:`b = d_{head}^{-1/2}`) or a positive number; the resolved number is :attr:`base_scale`. See the module
    docstring, which also lists every remaining difference from the paper's equations and the released code.
    ``raw_attn_input``: feed the un-normalised input to attention. Call :meth:`normalize_weights` after every
    optimiser step (``train(..., after_step=head.normalize_weights)``); it is also called once here, at
    construction.
    """

    def __init__(self, dim: int = 384, n_heads: int = 12, mlp_ratio: float = 4.0, pooling: str = "mean",
                 alpha_init: float = 0.05, parametrisation: str = "authors", raw_attn_input: bool = False,
                 base_scale: str | float = "backbone", backbone_dim: int | None = None):
        super().__init__(dim, pooling)
        if parametrisation not in NGPT_PARAMETRISATIONS:
            raise ValueError(f"Unknown nGPT parametrisation {parametrisation!r}; choose one of "
                             f"{', '.join(NGPT_PARAMETRISATIONS)}.")
        if not isinstance(alpha_init, (int, float)) or not 0 < alpha_init <= 1:
            raise ValueError(f"alpha_init must be a number in (0, 1], got {alpha_init!r}.")
        self.parametrisation, self.raw_attn_input = parametrisation, bool(raw_attn_input)
        scale = resolve_base_scale(base_scale, dim, backbone_dim)  # validated for both parametrisations
        self.base_scale_name = base_scale if isinstance(base_scale, str) else "value"
        self.backbone_dim = int(backbone_dim) if backbone_dim is not None else dim
        self.base_scale = scale if parametrisation == "authors" else 1.0
        # effective alpha = |stored| x alpha_scale, effective s_qk = stored x s_qk_scale; both start at their init
        self.alpha_scale = float(alpha_init) / self.base_scale if parametrisation == "authors" else 1.0
        stored_alpha = self.base_scale if parametrisation == "authors" else float(alpha_init)
        self.attn = _Attention(dim, n_heads, normalized=True)
        self.attn.s_qk_scale = 1.0 / self.base_scale
        with torch.no_grad():
            self.attn.s_qk.fill_(self.base_scale)
        self.mlp = _MLP(dim, int(mlp_ratio * dim), normalized=True)
        self.alpha_attn = nn.Parameter(torch.full((dim,), stored_alpha))
        self.alpha_mlp = nn.Parameter(torch.full((dim,), stored_alpha))
        self.normalize_weights()

    def effective(self) -> dict[str, torch.Tensor]:
        """The values the equations use: ``alpha_attn``, ``alpha_mlp`` (as |α|) and ``s_qk`` (detached copies)."""
        return {"alpha_attn": (self.alpha_attn.abs() * self.alpha_scale).detach().clone(),
                "alpha_mlp": (self.alpha_mlp.abs() * self.alpha_scale).detach().clone(),
                "s_qk": (self.attn.s_qk * self.attn.s_qk_scale).detach().clone()}

    def matrices(self) -> list[tuple[str, nn.Linear, int]]:
        """(name, layer, dim) of every weight matrix and the weight dimension that is the embedding dimension:
        input projections (d -> ·) have it as dim 1 of ``weight``, output projections (· -> d) as dim 0."""
        return [("attn.q", self.attn.q, 1), ("attn.k", self.attn.k, 1), ("attn.v", self.attn.v, 1),
                ("attn.o", self.attn.o, 0), ("mlp.u", self.mlp.u, 1), ("mlp.v", self.mlp.v, 1),
                ("mlp.o", self.mlp.o, 0)]

    @torch.no_grad()
    def normalize_weights(self) -> None:
        """nGPT: re-normalise every weight matrix to unit L2 norm along its embedding dimension (in place)."""
        for _, layer, dim in self.matrices():
            layer.weight.copy_(F.normalize(layer.weight, dim=dim))

    def blocks(self, h, mask):
        x = F.normalize(h, dim=-1)
        a = self.attn(h if self.raw_attn_input else x, mask)
        aa = self.alpha_attn.abs() * self.alpha_scale
        h1 = F.normalize((1 - aa) * x + aa * F.normalize(a, dim=-1), dim=-1)
        m = _on_tokens(self.mlp, h1, mask)
        am = self.alpha_mlp.abs() * self.alpha_scale
        out = F.normalize((1 - am) * h1 + am * F.normalize(m, dim=-1), dim=-1)
        return {"input": h, "attn_out": a, "after_attn": h1, "mlp_out": m, "output": out}


def _ngpt_plain(dim: int = 384, **kwargs) -> NGPTHead:
    return NGPTHead(dim, parametrisation="plain", **kwargs)


#: Head kinds by name: ``"nGPT"`` trains α and s_qk in the authors' (scaled) parametrisation, ``"nGPT-plain"`` stores
#: them directly (same forward pass at initialisation; see :class:`NGPTHead`).
HEADS = {"GPT": GPTHead, "nGPT": NGPTHead, "nGPT-plain": _ngpt_plain}
#: Keyword arguments only the nGPT heads take (:func:`make_head` drops them for a GPT head).
_NGPT_ONLY = ("base_scale", "backbone_dim", "alpha_init", "parametrisation", "raw_attn_input")


def make_head(kind: str, dim: int = 384, **kwargs) -> _Head:
    """A head by name: ``"GPT"``, ``"nGPT"`` (authors' parametrisation) or ``"nGPT-plain"``. The nGPT-only
    settings ``base_scale`` and ``backbone_dim`` are accepted for every kind and ignored by a GPT head (which has
    no α or s_qk), so one set of settings serves a grid of both kinds."""
    if kind not in HEADS:
        raise ValueError(f"Unknown head {kind!r}; choose one of {', '.join(HEADS)}.")
    if kind == "GPT":
        kwargs = {k: v for k, v in kwargs.items() if k not in ("base_scale", "backbone_dim")}
    return HEADS[kind](dim, **kwargs)


def uses_base_scale(kind: str) -> bool:
    """Whether the base scale changes a head of ``kind``: only nGPT in the authors' parametrisation stores α and
    s_qk scaled (``"GPT"`` has neither, ``"nGPT-plain"`` stores them directly)."""
    if kind not in HEADS:
        raise ValueError(f"Unknown head {kind!r}; choose one of {', '.join(HEADS)}.")
    return kind == "nGPT"


def pca_basis(states: PackedStates, dim: int, max_tokens: int = 100_000, seed: int = 0
              ) -> tuple[torch.Tensor, torch.Tensor, float]:
    """Top-``dim`` principal directions of the token states (a deterministic sample of at most ``max_tokens``
    tokens): ``(basis d x dim, mean d, explained variance fraction)``."""
    if not isinstance(dim, int) or not 0 < dim <= states.dim:
        raise ValueError(f"dim must be an int in [1, {states.dim}], got {dim!r}.")
    n = len(states.flat)
    gen = torch.Generator().manual_seed(seed)
    idx = torch.randperm(n, generator=gen)[:max_tokens] if n > max_tokens else torch.arange(n)
    x = states.flat[idx].double()
    mean = x.mean(0)
    cov = (x - mean).T @ (x - mean) / (len(x) - 1)
    vals, vecs = torch.linalg.eigh(cov)
    vals, vecs = vals.flip(0), vecs.flip(1)
    vecs = vecs * torch.where(vecs[vecs.abs().argmax(0), torch.arange(vecs.shape[1])] < 0, -1.0, 1.0)  # sign convention
    return vecs[:, :dim].float(), mean.float(), float(vals[:dim].sum() / vals.sum())


@torch.no_grad()
def embed_with_head(head: _Head, states: PackedStates, batch_size: int = 256, return_stages: bool = False):
    """Unit embeddings (N x d, float32) of every text in ``states`` (eval mode, batched); with ``return_stages``
    also the pooled internal representations (dict of N x d)."""
    was = head.training
    head.eval()
    embs, stages = [], {}
    order = torch.argsort(states.lengths)  # similar lengths per batch: less padding
    for start in range(0, len(states), batch_size):
        idx = order[start:start + batch_size]
        x, mask = states.batch(idx)
        if return_stages:
            e, st = head(x, mask, return_stages=True)
            for k, v in st.items():
                stages.setdefault(k, []).append(v.float().cpu())
        else:
            e = head(x, mask)
        embs.append(e.float().cpu())  # a fine-tuned backbone's head runs on the GPU
    head.train(was)
    inv = torch.empty_like(order)
    inv[order] = torch.arange(len(order))
    emb = torch.cat(embs)[inv]
    if not return_stages:
        return emb
    return emb, {k: torch.cat(v)[inv] for k, v in stages.items()}


def check_clip_norm(clip_norm: float | None) -> float | None:
    """``clip_norm`` as a float (a positive, finite gradient-norm bound) or None (no clipping)."""
    if clip_norm is None:
        return None
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, (int, float)) or not 0 < clip_norm < math.inf:
        raise ValueError(f"clip_norm must be a positive number or None (no clipping), got {clip_norm!r}.")
    return float(clip_norm)


def train_head(kind: str, loss_fn: Callable, states: PackedStates, labels: Sequence, *, steps: int,
               batch_size: int = 128, lr: float = 5e-5, seed: int = 42, pooling: str = "mean",
               progress: bool | None = None, desc: str | None = None,
               eval_fn: Callable[[nn.Module], float] | None = None, eval_every: int = 0,
               clip_norm: float | None = CLIP_NORM, base_scale: str | float = "backbone",
               backbone_dim: int | None = None, head_dropout: float = 0.0, checkpoint_key: str | None = None,
               extra_state=None, profile: str | None = None, **head_kwargs):
    """Train a fresh ``kind`` head (``"GPT"`` / ``"nGPT"`` / ``"nGPT-plain"``) on cached states with ``loss_fn(emb, labels)``.

    AdamW with a constant LR (paper §4.1), no weight decay and no warm-up (nGPT's recipe, used for both heads),
    gradient clipping at ``clip_norm`` (default 1.0, the Trainer default App. D relies on; None: no clipping);
    batches are shuffled with ``seed`` (same order for every loss and head); nGPT weights are re-normalised after
    every step. nGPT heads get ``base_scale`` and ``backbone_dim`` (default: :func:`backbone_width` of ``states``)
    (:class:`NGPTHead`). ``eval_fn(head)`` (with ``eval_every`` > 0) is recorded every ``eval_every`` steps and at
    the end, for a learning curve only: the final weights are kept (no selection). Returns ``(head, TrainResult)``.

    On the fine-tuned setting's inputs (:class:`~companion.papers.circumplex.finetune.BackboneInputs` instead of
    cached states) the model trained is a :class:`~companion.papers.circumplex.finetune.TunedHead`: the whole
    encoder and the head together, ``head_dropout`` on the head's input, clipping over every parameter, under the
    inputs' precision (bf16 autocast through Accelerate on a GPU). ``head_dropout`` applies to that setting only.

    ``checkpoint_key`` (the caller's run key, :func:`~companion.papers.circumplex.experiments.head_run_key`) makes a
    run of the gpu ``profile`` (the notebook's ``cfg.profile``, handed down) checkpoint its training under that
    name (:func:`companion.training.gpu_checkpoint`), with ``extra_state`` (the state of a stateful ``eval_fn``), so
    that a preempted run resumes there.
    """
    if len(states) != len(labels):
        raise ValueError(f"states and labels have different lengths: {len(states)} vs {len(labels)}.")
    clip_norm = check_clip_norm(clip_norm)
    seed_everything(seed)
    tuned = is_tuned(states)
    if head_dropout and not tuned:
        raise ValueError("head_dropout applies to a fine-tuned backbone (BackboneInputs), not to cached states.")
    head = make_head(kind, states.dim, pooling=pooling, base_scale=base_scale,
                     backbone_dim=backbone_width(states) if backbone_dim is None else backbone_dim, **head_kwargs)
    if tuned:
        head = TunedHead(states.encoder, head, head_dropout)
    labels = np.asarray(labels, dtype=object) if isinstance(labels[0], str) else torch.as_tensor(labels)
    per_epoch = len(states) // batch_size
    epochs = math.ceil(steps / max(per_epoch, 1)) + 1
    batches = index_batches(len(states), batch_size, seed=seed, epochs=epochs)

    def step_loss(idx):
        x, mask = states.batch(idx)
        y = list(labels[idx.numpy()]) if isinstance(labels, np.ndarray) else labels[idx]
        return loss_fn(head(x, mask), y)

    after = head.normalize_weights if isinstance(getattr(head, "head", head), NGPTHead) else None
    curve = {} if eval_fn is None or eval_every <= 0 else dict(eval_fn=lambda: eval_fn(head), eval_every=eval_every,
                                                               restore_best=False)
    resume = gpu_checkpoint(checkpoint_key, profile)
    if resume and extra_state is not None:
        resume["extra_state"] = extra_state
    result = train(head, step_loss, batches, steps=steps, lr=lr, weight_decay=0.0, warmup_steps=0,
                   schedule="constant", max_grad_norm=clip_norm, after_step=after, progress=progress,
                   desc=desc or f"{kind} head", **curve,
                   **({"accelerator": accelerator_for(states.precision)} if tuned else {}), **resume)
    return head, result


def pooled_states(states: PackedStates, pooling: str = "mean") -> torch.Tensor:
    """Unit-norm sentence vectors of packed token states: their masked ``"mean"``, first (``"cls"``) or last real
    (``"last"``) token (paper Eq. 4 applied to the backbone's own states, no head)."""
    if pooling == "mean":
        return states.mean_pooled()
    if pooling not in HEAD_POOLINGS:
        raise ValueError(f"Unknown pooling {pooling!r}; choose one of {', '.join(HEAD_POOLINGS)}.")
    at = states.offsets if pooling == "cls" else states.offsets + states.lengths - 1
    return F.normalize(states.flat[at].float(), dim=-1)


def frozen_features(encoder, splits: dict[str, Sequence[str]], head_dim: int | None = None,
                    max_tokens: int | None = None, fit_on: str = "train", seed: int = 0,
                    pretrained_pooling: str = "mean", backbone_training: str = "frozen",
                    precision: str = "float32", head_dropout: dict[str, float] | None = None):
    """Frozen-backbone inputs for head training: cached last-layer token states of every split, optionally cut
    to ``max_tokens`` tokens and projected to ``head_dim`` by a PCA fitted on the ``fit_on`` split's tokens.
    Returns ``(features by split, pretrained sentence embeddings by split, info dict)``; the pretrained
    embeddings are the backbone's own pooling (``pretrained_pooling``: ``"mean"``, MiniLM's, by default;
    ``"cls"`` / ``"last"`` as the paper pools its backbones, :func:`paper_pooling`) of the full (un-truncated,
    un-projected) states. Every returned feature set records the backbone's width (:func:`backbone_width`), which
    an nGPT head's default base scale reads.

    ``backbone_training="full"`` (the paper's setting for a BERT-like backbone, the gpu profile's default) returns
    the fine-tuned setting's inputs instead of states (:class:`~companion.papers.circumplex.finetune.BackboneInputs`:
    the texts tokenised at ``max_tokens``, with ``precision`` and ``head_dropout``; no PCA), on which every head run
    fine-tunes the whole encoder with its head; the pretrained embeddings are the frozen encoder's, as above."""
    rates = check_options(backbone_training, precision, head_dropout)
    raw = {name: cached_token_states(encoder, list(texts)) for name, texts in splits.items()}
    pretrained = {name: pooled_states(p, pretrained_pooling) for name, p in raw.items()}
    if backbone_training == "full":
        if head_dim is not None and head_dim < encoder.dim:
            raise ValueError("a fine-tuned backbone's head is as wide as the backbone: head_dim must be None.")
        length = max_tokens or encoder.max_length
        feats = {name: BackboneInputs(encoder, list(texts), length, precision, rates) for name, texts in splits.items()}
        info = {"backbone_dim": encoder.dim, "head_dim": encoder.dim, "pca_explained": 1.0, "max_tokens": length,
                "basis": None, "mean": None, "backbone_training": "full", "precision": precision,
                "head_dropout": rates}
        return feats, pretrained, info
    feats = {name: (p.truncate(max_tokens) if max_tokens else p) for name, p in raw.items()}
    info = {"backbone_dim": encoder.dim, "head_dim": encoder.dim, "pca_explained": 1.0,
            "max_tokens": max_tokens, "basis": None, "mean": None}
    if head_dim is not None and head_dim < encoder.dim:
        basis, mean, frac = pca_basis(feats[fit_on], head_dim, seed=seed)
        feats = {name: p.project(basis, mean) for name, p in feats.items()}
        info.update(head_dim=head_dim, pca_explained=frac, basis=basis, mean=mean)
    for p in feats.values():
        p.backbone_dim = int(encoder.dim)
    return feats, pretrained, info


def featurize(encoder, texts: Sequence[str], info: dict) -> PackedStates:
    """Head inputs for new texts with the truncation and PCA of an earlier :func:`frozen_features` call (the
    backbone's width recorded on them, as there); for the fine-tuned setting, its inputs."""
    if info.get("backbone_training") == "full":
        return BackboneInputs(encoder, list(texts), info["max_tokens"], info["precision"], info["head_dropout"])
    packed = cached_token_states(encoder, list(texts))
    if info.get("max_tokens"):
        packed = packed.truncate(info["max_tokens"])
    if info.get("basis") is not None:
        packed = packed.project(info["basis"], info["mean"])
    packed.backbone_dim = int(info.get("backbone_dim") or encoder.dim)
    return packed


def evaluate_embeddings(emb: torch.Tensor, labels: Sequence[str], seed: int = 0) -> dict[str, float]:
    """V-Measure (spherical k-means, k = #labels, 10 inits) and CD-r of test embeddings (paper §4.2)."""
    return {"V": v_measure(emb, list(labels), seed=seed), "CD-r": circumplex_scores(emb, list(labels))["CD-r"]}
