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

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from companion._io import cache_key, read_cache, torch_save_atomic
from companion.encoders import pool
from companion.encoders.states import LowerStates
from companion.encoders.upper import UpperEncoder, run_layers
from companion.losses.concepts import concept_loss
from companion.settings import cache_dir
from companion.training import RunState, gpu_checkpoint, index_batches, train


def _check_k(k: int) -> int:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"K (number of top layers) must be a positive int, got {k!r}.")
    return k


def _check_stack(stack: torch.Tensor, k: int) -> None:
    if stack.dim() != 3 or stack.shape[0] != k:
        raise ValueError(f"pooled layers must be K x B x d with K = {k}, got {tuple(stack.shape)}.")


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

    def from_pooled(self, stack: torch.Tensor) -> torch.Tensor:
        """The readout of already pooled layers ``K x B x d`` (last layer last)."""
        _check_stack(stack, self.k)
        return simplex_readout(stack, self.weights())

    def forward(self, hidden_states, attention_mask=None) -> torch.Tensor:
        return self.from_pooled(pooled_layers(hidden_states, attention_mask, self.k))


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

    def from_pooled(self, stack: torch.Tensor) -> torch.Tensor:
        """The readout of already pooled layers ``K x B x d`` (the gate reads ``stack[-1]``, the last layer)."""
        _check_stack(stack, self.k)
        return simplex_readout(stack, torch.softmax(self.gate(stack[-1]), dim=-1).T)

    def forward(self, hidden_states, attention_mask=None) -> torch.Tensor:
        return self.from_pooled(pooled_layers(hidden_states, attention_mask, self.k))


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
        return self.from_pooled(pooled_layers(hidden_states, attention_mask, self.k), per_layer=per_layer)

    def from_pooled(self, stack: torch.Tensor, per_layer: bool = False) -> torch.Tensor:
        """Head outputs ``K x B x d`` (``per_layer``) or their uniform mean, from pooled layers ``K x B x d``."""
        _check_stack(stack, self.k)
        outs = torch.stack([head(x) for head, x in zip(self.heads, stack)])
        if per_layer:
            return outs
        return simplex_readout(outs, torch.full((self.k,), 1.0 / self.k, dtype=outs.dtype, device=outs.device))


# ------------------------------------------------------------------------------------ top-layer fine-tuning
#: Readouts of :class:`TopLayerConceptModel`: last-layer mean (B1), last-layer first token (B2, [CLS]), uniform
#: mean of the last K layers (B0-WM), learned layer weights (B3/M1), input-dependent gate (M2), deep supervision (M3).
READOUTS = ("mean", "cls", "wm", "weighted", "gate", "deep")
#: Paper 4's fine-tuned conditions (§4.3, §5.3) as (readout, hard-negative use): ``"bce"`` = :math:`0.5 L_\mathrm{neg}`,
#: ``"unified"`` = hard negatives in the t2d InfoNCE denominator (B1-unified), ``None`` = no hard negatives.
#: B2 is the [CLS] token of the last layer (§5.3; MiniLM, like the paper's mpnet, was trained for mean pooling).
CONDITIONS = {
    "B1": ("mean", "bce"),
    "B2": ("cls", "bce"),
    "B3": ("weighted", None),
    "M1": ("weighted", "bce"),
    "M1-K6": ("weighted", "bce"),
    "M2": ("gate", "bce"),
    "M3": ("deep", "bce"),
    "B1-unified": ("mean", "unified"),
}
#: Conditions whose layer window differs from the recipe's K: §5.3's "wider K = 6 window" (M1's readout over the
#: last six hidden states; on 6-layer MiniLM that is every transformer layer).
CONDITION_K = {"M1-K6": 6}


def condition_k(name: str, k: int) -> int:
    """The layer window of condition ``name`` under a recipe window ``k`` (:data:`CONDITION_K`, else ``k``)."""
    return CONDITION_K.get(name, k)


class TopLayerConceptModel(nn.Module):
    """A Paper 4 condition on a BERT-like encoder with only the top ``n_top`` layers trained (the CPU stand-in for
    full fine-tuning): frozen lower layers come from a :class:`~companion.encoders.states.LowerStates` store (``means="all"``), the top layers are a trainable
    copy (as in :class:`companion.encoders.upper.UpperEncoder`, whose layer copy this reuses), and ``readout`` (one of
    :data:`READOUTS`) maps the mean-pooled last ``k`` hidden states to the embedding. Hidden states below the
    trained block that fall in the K-window are frozen (with ``n_top = 1``, K = 4 of MiniLM's 6 layers mixes three
    frozen layers and the trained last one).

    With ``train_embeddings`` (``n_top = L``: the paper's full fine-tuning, the gpu profile) the embedding layer is
    trained too, from token ids, with its dropout; ``lower`` then only serves the frozen conditions and is not read.
    An MPNet backbone's relative position bias is passed to every trained layer (a trainable copy of its table, see
    :class:`companion.encoders.upper.RelativePositionBias`).

    ``embed(texts)`` is differentiable (dropout in train mode); ``encode(texts)`` evaluates (eval mode, no grad);
    ``encode_layers(texts)`` returns every pooled hidden state ``N x (L+1) x d`` (for ``"cls"`` the last one is the
    first token's state, the others mean-pooled); ``embed(texts, per_layer=True)``
    gives the ``K x B x d`` head outputs of deep supervision (M3).
    """

    def __init__(self, encoder, readout: str = "mean", n_top: int = 1, k: int = 4, dropout: float | None = None,
                 lower: LowerStates | None = None, train_embeddings: bool = False):
        super().__init__()

        if readout not in READOUTS:
            raise ValueError(f"readout must be one of {', '.join(READOUTS)}, got {readout!r}.")
        upper = UpperEncoder(encoder, n_top=n_top, pooling="mean", dropout=dropout, train_embeddings=train_embeddings)
        n_layers = upper.start + n_top
        if _check_k(k) > n_layers + 1:
            raise ValueError(f"K={k} exceeds the {n_layers + 1} hidden states of this encoder.")
        self.layers = upper.layers
        if upper.embeddings is not None:
            self.embeddings = upper.embeddings
        if upper.position_bias is not None:
            self.position_bias = upper.position_bias
        self.__dict__["tokens"] = upper.store if train_embeddings else None
        self.config = upper.config
        self.start, self.n_layers, self.k, self.n_top, self.readout_name = upper.start, n_layers, k, n_top, readout
        self.dim = encoder.dim
        if lower is not None and not lower.serves(self.start, lower.state_dtype, "all"):
            raise ValueError(f"the LowerStates store ends at hidden state {lower.start} with means={lower.means!r}; "
                             f"this model needs hidden state {self.start} with means='all'.")
        self.__dict__["lower"] = lower if lower is not None else LowerStates(encoder, self.start, means="all")
        self.readout = {"mean": lambda: None, "cls": lambda: None, "wm": lambda: LayerWeightedMean(k, learn=False),
                        "weighted": lambda: LayerWeightedMean(k), "gate": lambda: LayerGate(self.dim, k),
                        "deep": lambda: DeepSupervision(self.dim, k)}[readout]()

    def _inputs_store(self):
        """Where the inputs of the trained part come from: the token ids (trained embeddings) or the frozen lower
        states."""
        return self.tokens if self.tokens is not None else self.lower

    def below_layer_parameters(self) -> list[nn.Parameter]:
        """The trained parameters outside the transformer layers and the readout: the embedding layer (with
        ``train_embeddings``) and an MPNet backbone's relative position bias table (empty for the cpu model)."""
        out = []
        for name in ("embeddings", "position_bias"):
            module = getattr(self, name, None)
            if isinstance(module, nn.Module):
                out += [p for p in module.parameters() if p.requires_grad]
        return out

    def readout_parameters(self) -> list[nn.Parameter]:
        return [] if self.readout is None else [p for p in self.readout.parameters() if p.requires_grad]

    def all_layers(self, texts: Sequence[str], bucket: int = 32) -> torch.Tensor:
        """Mean-pooled hidden states ``B x (L+1) x d`` (frozen ones from the store, the trained ones computed).

        Texts are run in length-sorted buckets of ``bucket`` so that short terms are not padded to the length of
        the longest definition (the result is the same, in input order, and differentiable)."""
        texts = list(texts)
        if len(texts) <= bucket:
            return self._all_layers(texts)
        store = self._inputs_store()
        store.precompute(texts, progress=False)
        order = sorted(range(len(texts)), key=lambda i: store.length(texts[i]))
        parts = [self._all_layers([texts[i] for i in order[s:s + bucket]]) for s in range(0, len(order), bucket)]
        inverse = torch.empty(len(order), dtype=torch.long)
        inverse[torch.tensor(order)] = torch.arange(len(order))
        return torch.cat(parts)[inverse.to(parts[0].device)]

    def _all_layers(self, texts: list[str]) -> torch.Tensor:
        dev = next(self.layers.parameters()).device
        if self.tokens is not None:  # trained embeddings: hidden state 0 is the embedding layer's output
            ids, mask, _ = self.tokens.get(texts)
            mask = mask.to(dev)
            states = self.embeddings(input_ids=ids.to(dev))
            outs = [pool(states, mask, "mean")[:, None]]
        else:
            states, mask, pooled = self.lower.get(texts)
            mask = mask.to(dev)
            outs = [pooled.to(dev)]
            states = states.to(dev)
        bias = self.position_bias(states) if getattr(self, "position_bias", None) is not None else None
        tops = run_layers(self.layers, self.config, states, mask, bias)
        outs += [pool(h, mask, "mean")[:, None] for h in tops]
        if self.readout_name == "cls":  # B2: the last hidden state is read at its first ([CLS]) token
            outs[-1] = tops[-1][:, :1]
        return torch.cat(outs, dim=1)

    def embed(self, texts: Sequence[str], per_layer: bool = False) -> torch.Tensor:
        layers = self.all_layers(texts)
        if self.readout is None:
            if per_layer:
                raise ValueError("per_layer needs the deep-supervision readout.")
            return layers[:, -1]
        stack = layers[:, -self.k:].transpose(0, 1)  # K x B x d
        if per_layer:
            if not isinstance(self.readout, DeepSupervision):
                raise ValueError("per_layer needs the deep-supervision readout.")
            return self.readout.from_pooled(stack, per_layer=True)
        return self.readout.from_pooled(stack)

    @torch.no_grad()
    def _batched(self, texts: Sequence[str], fn, batch_size: int) -> torch.Tensor:
        texts = list(texts)
        if not texts:
            raise ValueError("texts is empty: pass at least one string to encode.")
        store = self._inputs_store()
        store.precompute(texts)
        was = self.training
        self.eval()
        try:
            uniq = list(dict.fromkeys(texts))
            order = sorted(range(len(uniq)), key=lambda i: -store.length(uniq[i]))
            parts, idx_all = [], []
            for s in range(0, len(order), batch_size):
                idx = order[s:s + batch_size]
                parts.append(fn([uniq[i] for i in idx]).float().cpu())
                idx_all.extend(idx)
            out = torch.empty((len(uniq),) + parts[0].shape[1:])
            out[idx_all] = torch.cat(parts)
        finally:
            self.train(was)
        pos = {t: i for i, t in enumerate(uniq)}
        return out[[pos[t] for t in texts]]

    def encode(self, texts: Sequence[str], batch_size: int = 256) -> torch.Tensor:
        """Evaluation embeddings ``N x d`` (not normalised), input order."""
        return self._batched(texts, self.embed, batch_size)

    def encode_layers(self, texts: Sequence[str], batch_size: int = 256) -> torch.Tensor:
        """Every pooled hidden state ``N x (L+1) x d`` in eval mode (layer 0 = embeddings), input order."""
        return self._batched(texts, self.all_layers, batch_size)


def _pick(x, head):
    return x if head is None or x is None else x[head]


def train_concept_model(model: TopLayerConceptModel, rows, hn: str | None, steps: int, batch: int = 16,
                        lr: float = 5e-5, pooling_lr_mult: float = 5.0, layer_decay: float = 0.9,
                        warmup_steps: int = 0, weight_decay: float = 0.01, temperature: float = 0.05,
                        seed: int = 0, max_negatives: int | None = None, progress: bool | None = None,
                        desc: str = "train", monitor=None, monitor_every: int = 0, checkpoint_key: str | None = None,
                        profile: str | None = None):
    r"""Paper 4's recipe (§4.3) on a :class:`TopLayerConceptModel`: :math:`L = L_\mathrm{syn} + L_\mathrm{t2d}
    [+ 0.7\,L_\mathrm{d2d}] + 0.5\,L_\mathrm{neg}`, the d2d term where ``rows`` carry definition pairs
    (:func:`~companion.papers.concepts.data.with_d2d_pairs`: the gpu recipe's; the cpu rows have none), each term
    an in-batch InfoNCE at ``temperature`` over the rows of the batch that have such a pair; AdamW, linear warm-up and
    decay, layer-wise LR decay ``layer_decay`` per trained layer below the top (a trained embedding layer and an
    MPNet position-bias table one step below the lowest layer), ``pooling_lr_mult`` x LR for the readout
    parameters. ``rows`` is a :class:`companion.papers.concepts.data.TrainingRows`; ``hn`` is ``"bce"``, ``"unified"``
    or ``None``. Deep supervision (M3) averages the objective over its per-layer heads. The data order depends on
    ``seed`` only, so conditions trained with the same seed see the same batches. ``max_negatives`` (CPU budget)
    keeps at most that many of a definition's hard negatives per step, drawn afresh each step from ``seed`` and the
    step number (the same draw for every condition). ``monitor(model)`` (a dict of scalars, computed in eval mode
    without gradients) is recorded in the history every ``monitor_every`` steps: the geometry curves of P1.
    ``checkpoint_key`` (the run's name) makes a run of the gpu ``profile`` (the notebook's ``cfg.profile``, handed
    down) checkpoint under it (:func:`companion.training.gpu_checkpoint`; the step count of the negatives' draw
    included), so that a preempted run resumes there. Returns the :class:`companion.training.TrainResult`.
    """
    if hn not in (None, "bce", "unified"):
        raise ValueError(f"hn must be 'bce', 'unified' or None, got {hn!r}.")
    if not isinstance(batch, int) or batch < 2:
        raise ValueError(f"batch must be an int >= 2 (InfoNCE needs in-batch negatives), got {batch!r}.")
    if len(rows) < batch:
        raise ValueError(f"{len(rows)} training rows are fewer than one batch of {batch}.")
    if max_negatives is not None and (not isinstance(max_negatives, int) or max_negatives < 1):
        raise ValueError(f"max_negatives must be a positive int or None, got {max_negatives!r}.")
    deep = isinstance(model.readout, DeepSupervision)
    n_neg = rows.negatives.shape[1]
    drawn = RunState(step=0)  # the steps whose negatives were drawn: carried over a resume

    def negatives_mask(idx):
        keep = rows.neg_mask[idx].copy()
        drawn["step"] += 1
        if max_negatives is not None:
            rng = np.random.default_rng((seed, drawn["step"]))
            for i in range(len(idx)):
                present = np.flatnonzero(keep[i])
                if len(present) > max_negatives:
                    keep[i, rng.choice(present, len(present) - max_negatives, replace=False)] = False
        return keep

    def loss_fn(idx):
        idx = idx.numpy()
        sel = idx[rows.has_syn[idx]]
        use_syn = len(sel) >= 2
        pairs = idx[rows.has_d2d[idx]] if rows.d2d is not None else idx[:0]
        use_d2d = len(pairs) >= 2
        keep = negatives_mask(idx)
        use_hard = hn is not None and bool(keep.any())
        groups = [rows.term[idx].tolist(), rows.masked[idx].tolist(),
                  rows.syn_a[sel].tolist() if use_syn else [], rows.syn_b[sel].tolist() if use_syn else [],
                  rows.negatives[idx][keep].tolist() if use_hard else [],
                  rows.masked[pairs].tolist() if use_d2d else [], rows.d2d[pairs].tolist() if use_d2d else []]
        everything = [t for g in groups for t in g]
        uniq = list(dict.fromkeys(everything))
        pos = {t: i for i, t in enumerate(uniq)}
        z = model.embed(uniq, per_layer=deep)  # one bucketed pass for every text of the step
        out = []
        for g in groups:
            ix = torch.tensor([pos[t] for t in g], dtype=torch.long)
            out.append(z[:, ix] if deep else z[ix])
        q, d, sa, sb, flat, da, db = out
        if not use_syn:
            sa = sb = None
        hard = mask = None
        if use_hard:
            mask = torch.as_tensor(keep)
            shape = (flat.shape[0], len(idx), n_neg, flat.shape[-1]) if deep else (len(idx), n_neg, flat.shape[-1])
            hard = flat.new_zeros(shape)
            if deep:
                hard[:, mask] = flat
            else:
                hard[mask] = flat
        heads = range(q.shape[0]) if deep else [None]
        total = 0.0
        for h in heads:
            syn = (_pick(sa, h), _pick(sb, h)) if sa is not None else None
            d2d = (_pick(da, h), _pick(db, h)) if use_d2d else None
            total = total + concept_loss(syn=syn, t2d=(_pick(q, h), _pick(d, h)), d2d=d2d, hard=_pick(hard, h),
                                         hard_mask=mask, temperature=temperature, unified=hn == "unified").total
        return total / len(heads)

    groups = [{"params": list(layer.parameters()), "lr": lr * layer_decay ** (len(model.layers) - 1 - i)}
              for i, layer in enumerate(model.layers)]
    if model.below_layer_parameters():  # full fine-tuning: one more decay step below the lowest layer
        groups.append({"params": model.below_layer_parameters(), "lr": lr * layer_decay ** len(model.layers)})
    if model.readout_parameters():
        groups.append({"params": model.readout_parameters(), "lr": lr * pooling_lr_mult, "weight_decay": 0.0})
    batches = index_batches(len(rows), batch, seed=seed, epochs=None)
    log_fn = None if monitor is None else (lambda step: monitor(model))
    resume = gpu_checkpoint(checkpoint_key, profile)
    if resume:
        resume["extra_state"] = drawn
    return train(model, loss_fn, batches, steps=steps, lr=lr, warmup_steps=warmup_steps, weight_decay=weight_decay,
                 param_groups=groups, progress=progress, desc=desc, log_fn=log_fn, log_every=monitor_every, **resume)


def recipe_path(recipe: dict) -> Path:
    """Where top-layer weights trained with ``recipe`` (a JSON-able dict of everything that determines them) are
    kept between notebooks: ``cache_dir()/concepts/models/<hash>.pt``."""
    return cache_dir() / "concepts" / "models" / f"{cache_key(recipe)}.pt"


def save_trained(model: TopLayerConceptModel, recipe: dict) -> Path:
    """Save the trainable state (top layers + readout) under :func:`recipe_path` (atomic replace)."""
    return torch_save_atomic({"recipe": json_round_trip(recipe), "state": model.state_dict()}, recipe_path(recipe))


def load_trained(model: TopLayerConceptModel, recipe: dict) -> bool:
    """Load weights saved by :func:`save_trained` for the same ``recipe`` into ``model``; False if none cached."""
    blob = read_cache(recipe_path(recipe))  # missing or unreadable: retrain
    if not isinstance(blob, dict) or blob.get("recipe") != json_round_trip(recipe):
        return False
    model.load_state_dict(blob["state"])
    return True


def json_round_trip(obj):
    return json.loads(json.dumps(obj, sort_keys=True, default=str))
