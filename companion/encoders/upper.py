r"""Fine-tune only the top ``n`` layers of a BERT-like encoder over cached lower-layer token states.

A full MiniLM training step (batch 64 x 2 dropout views, length 32) costs about 2 s on a 2-core CPU. Most of that
is spent in layers whose weights a short unsupervised fine-tune barely moves, so the CPU profiles freeze the lower
``L - n`` transformer layers, run them ONCE per text (in eval mode, under ``inference_mode``) and train a copy of the
top ``n`` layers on the cached states. With ``n = 2`` of MiniLM's 6 layers a step is about 3x cheaper.

>>> from companion.encoders import load_encoder
>>> from companion.encoders.upper import UpperEncoder
>>> enc = load_encoder("sentence-transformers/all-MiniLM-L6-v2", pooling="mean", max_length=32)
>>> upper = UpperEncoder(enc, n_top=2, pooling="mean", mlp_pooler=True)   # trains layers 5 and 6 (+ MLP)
>>> upper.precompute(train_texts)          # lower layers once per text (in memory; tqdm bar for many texts)
>>> upper.train()
>>> z1, z2 = upper.embed(batch), upper.embed(batch)   # two dropout views, differentiable
>>> upper.eval()
>>> emb = upper.encode(sts_sentences)      # no MLP pooler at evaluation, L2-normalised, no grad
>>> full = upper.to_encoder()              # a plain Encoder with the trained top layers merged back in

What is trained and what is not
    * The copied top layers (``upper.layers``) and, optionally, an MLP pooler ``Linear(d, d) + tanh`` (SimCSE's
      "MLP only in training": :meth:`forward` applies it only in training mode, so :meth:`encode` never does).
    * Pooling happens inside the model, on the last layer's token states, with the names of
      :func:`companion.encoders.pool`: masked mean over real tokens (``"mean"``, MiniLM's native pooling), the first
      token (``"cls"``, the [CLS] of BERT papers), masked max (``"max"``), ``(cls + mean) / 2`` (``"cls-mean"``) and
      the masked mean of ``(hidden_states[1] + hidden_states[-1]) / 2`` (``"first-last"``; AnglE Table 4's
      cls / last-avg / last-max / cls-last-avg / first-last-avg). ``"first-last"`` needs the output of the FIRST
      transformer layer: when that layer is frozen (``n_top < L``) its masked mean is kept per text beside the cached
      lower states (``keep_first``; one extra ``d``-vector per text, same forward pass); when it is trained
      (``n_top = L``) it is taken from the trained layer's output.

Full fine-tuning (the gpu profile)
    ``train_embeddings=True`` (with ``n_top = L``) trains the embedding layer too, from token ids, with its dropout:
    the network as the papers fine-tune it, nothing frozen or cached but the tokenisation. ``eval_max_length`` then
    lets :meth:`encode` tokenise evaluation texts longer than the training length (no truncation at evaluation).
    An MPNet backbone's relative position bias is handed to every trained layer, as the full model does
    (:func:`run_layers`; without it the layers are another network).

Dropout caveat (important for SimCSE-style objectives)
    The lower layers run once, in eval mode, so they apply NO dropout. The two "views" of a sentence therefore
    differ only by the dropout masks of the trained top layers (hidden and attention dropout; ``dropout=`` sets their
    rate). In full fine-tuning (SimCSE, SimACE) every layer drops units, so our views are closer to each other than
    the paper's: positive pairs are easier and the positive angle is smaller from the start. Say so when comparing.

Memory
    Lower states are kept per text WITHOUT padding (``float16`` by default, ``state_dtype=``), e.g. about
    15 tokens x 384 x 2 bytes = 11 kB per sentence for MiniLM; batches are padded on the fly to their own longest
    text. Texts are de-duplicated. They live in a :class:`companion.encoders.states.LowerStates` store, shared by
    every :meth:`UpperEncoder.fresh` copy; without layer means the states come from :meth:`Encoder.token_states`
    (``cache=False`` by default: ``cache=True`` also keeps them in the encoder's disk cache, which is worth it when
    several notebooks reuse the same texts).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from companion.encoders import Encoder, pool
from companion.encoders.states import LowerStates, TokenInputs

UPPER_POOLINGS = ("mean", "cls", "max", "cls-mean", "first-last")
#: initialisations of the training-only MLP pooler: PyTorch's default for ``nn.Linear`` (``"torch"``), or
#: ``"normal"``: weights drawn from normal(0, ``config.initializer_range``) (0.02 for BERT) and a zero bias, as a
#: Hugging Face ``init_weights`` call initialises a new ``Linear`` (SimCSE's ``cl_init`` initialises its MLP head so)
MLP_INITS = ("torch", "normal")


def _submodule(model: nn.Module, path: str):
    """``model``'s attribute at the dotted ``path`` (``"mpnet.encoder"``), or None where a part is missing."""
    obj = model
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _layer_stack(model: nn.Module) -> nn.ModuleList:
    """The transformer layers of a BERT-like Hugging Face model (``model.encoder.layer``)."""
    for path in ("encoder.layer", "bert.encoder.layer", "roberta.encoder.layer", "layer"):
        obj = _submodule(model, path)
        if isinstance(obj, nn.ModuleList) and len(obj):
            return obj
    raise TypeError(f"{type(model).__name__} is not a BERT-like encoder (no encoder.layer ModuleList); "
                    "UpperEncoder supports BERT, RoBERTa, MiniLM and relatives.")


def _attention_mask(config, states: torch.Tensor, mask: torch.Tensor):
    """The attention mask the HF layers expect (4-D, built by transformers' own helper when available)."""
    if bool(mask.all()):
        return None
    try:
        from transformers.masking_utils import create_bidirectional_mask  # noqa: PLC0415 - newer transformers only; the classic mask below otherwise

        return create_bidirectional_mask(config=config, inputs_embeds=states, attention_mask=mask)
    except ImportError:  # pragma: no cover - transformers < 4.56: classic additive mask
        ext = mask[:, None, None, :].to(states.dtype)
        return (1.0 - ext) * torch.finfo(states.dtype).min


def position_bias_source(model: nn.Module) -> nn.Module | None:
    """The module that computes a model's relative position bias, or None when its layers take none.

    MPNet (all-mpnet-base-v2) adds to every layer's attention scores a bias computed once per forward pass from a
    table of relative-position buckets (``model.encoder.relative_attention_bias``, its ``compute_position_bias``) and
    handed to each layer as ``position_bias``; a layer called without it attends as if positions were unordered
    beyond the absolute position embeddings. BERT, RoBERTa and XLM-R layers take no such bias."""
    for path in ("encoder", "mpnet.encoder"):
        obj = _submodule(model, path)
        if obj is not None and hasattr(obj, "compute_position_bias") and hasattr(obj, "relative_attention_bias"):
            return obj
    return None


class RelativePositionBias(nn.Module):
    """A trainable copy of a model's relative position bias table (MPNet, :func:`position_bias_source`), computed by
    the model's own ``compute_position_bias`` on the copied table: ``forward(states)`` gives the ``B x H x T x T``
    bias every layer adds to its attention scores."""

    def __init__(self, source: nn.Module):
        super().__init__()
        self.relative_attention_bias = copy.deepcopy(source.relative_attention_bias).float()
        self.n_heads = source.n_heads
        self.__dict__["_compute"] = type(source).compute_position_bias
        self.__dict__["relative_position_bucket"] = type(source).relative_position_bucket

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return self._compute(self, states)


def run_layers(layers: nn.ModuleList, config, states: torch.Tensor, mask: torch.Tensor,
               position_bias: torch.Tensor | None = None) -> list[torch.Tensor]:
    """Run transformer ``layers`` (a copied top block) on padded ``states`` (``B x T x d``, float32) with ``mask``;
    returns every layer's output in order. The top-layer forward pass of :class:`UpperEncoder` and of the concept
    paper's top-layer model. ``position_bias`` (MPNet: :class:`RelativePositionBias` of ``states``) is handed to
    every layer as the full model does; layers without one (BERT, RoBERTa, XLM-R) are called as before."""
    attn = _attention_mask(config, states, mask)
    extra = {} if position_bias is None else {"position_bias": position_bias}
    outs, h = [], states
    for layer in layers:
        out = layer(h, attention_mask=attn, **extra)
        h = out[0] if isinstance(out, tuple) else out
        outs.append(h)
    return outs


class UpperEncoder(nn.Module):
    """Trainable copy of the top ``n_top`` layers of a BERT-like :class:`~companion.encoders.Encoder`.

    Args:
        encoder: a loaded :class:`companion.encoders.Encoder` (its model is never modified; the top layers are
            deep-copied).
        n_top: how many top transformer layers to train (1 .. L). ``n_top = L`` trains every layer over the
            cached embedding output (word + position embeddings stay frozen).
        pooling: one of :data:`UPPER_POOLINGS`: ``"mean"`` (masked mean, MiniLM's native pooling), ``"cls"`` (first
            token), ``"max"``, ``"cls-mean"``, ``"first-last"`` (see the module docstring).
        mlp_pooler: add SimCSE's ``Linear + tanh`` pooler, used only in training mode.
        dropout: if given, the hidden and attention dropout rate of the trained layers (and of the trained embedding
            layer) (default: the model's config, 0.1 for MiniLM/BERT).
        state_dtype: storage dtype of cached lower states (float16 halves memory; computation is float32).
        cache: also keep the lower states in the encoder's on-disk cache (see module docstring).
        keep_first: also keep each text's masked-mean first-layer output (needed by ``"first-last"``; default: only
            for that pooling). Set it on an encoder whose :meth:`fresh` copies will use ``"first-last"`` so that one
            precompute serves every pooling. With ``keep_first`` the lower pass runs the model directly (the
            ``cache`` setting does not apply to it).
        train_embeddings: also train the embedding layer (word, position and type embeddings, LayerNorm, dropout):
            full fine-tuning as the papers run it. Needs ``n_top = L``; nothing is cached then but the token ids
            (:class:`~companion.encoders.states.TokenInputs`), and every forward pass starts from the ids, with the
            embedding dropout active in training mode. Default False: the lower states (for ``n_top = L`` the
            embedding output) are computed once in eval mode and frozen, the cpu profile's shortcut.
        mlp_init: the MLP pooler's initialisation, one of :data:`MLP_INITS`.
        eval_max_length: with ``train_embeddings``, the tokenisation length of :meth:`encode` (evaluation), e.g.
            :func:`companion.encoders.position_limit` for no truncation; training (:meth:`embed`) keeps the
            encoder's ``max_length``. Default: the encoder's ``max_length`` for both.

    The parameters of a model with a relative position bias (MPNet) include a trainable copy of its bias table
    (:class:`RelativePositionBias`), which every trained layer receives as the full model hands it to every layer.
    """

    def __init__(self, encoder, n_top: int = 2, pooling: str = "mean", mlp_pooler: bool = False,
                 dropout: float | None = None, state_dtype: torch.dtype = torch.float16, cache: bool = False,
                 keep_first: bool | None = None, train_embeddings: bool = False, mlp_init: str = "torch",
                 eval_max_length: int | None = None):
        super().__init__()
        layers = _layer_stack(encoder.model)
        L = len(layers)
        if not isinstance(n_top, int) or isinstance(n_top, bool) or not 1 <= n_top <= L:
            raise ValueError(f"n_top must be an int in 1..{L} for this {L}-layer model, got {n_top!r}.")
        if pooling not in UPPER_POOLINGS:
            raise ValueError(f"pooling must be one of {', '.join(UPPER_POOLINGS)}, got {pooling!r}.")
        if keep_first is None:
            keep_first = pooling == "first-last"
        if pooling == "first-last" and not keep_first:
            raise ValueError("pooling 'first-last' needs the first layer's output: keep_first must not be False.")
        if dropout is not None and not (isinstance(dropout, (int, float)) and 0.0 <= dropout < 1.0):
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}.")
        if not isinstance(train_embeddings, bool):
            raise TypeError(f"train_embeddings must be a bool, got {train_embeddings!r}.")
        if train_embeddings and n_top != L:
            raise ValueError(f"train_embeddings needs every layer trained (n_top = {L}), got n_top={n_top}.")
        if mlp_init not in MLP_INITS:
            raise ValueError(f"mlp_init must be one of {', '.join(MLP_INITS)}, got {mlp_init!r}.")
        if eval_max_length is not None:
            if not train_embeddings:
                raise ValueError("eval_max_length needs train_embeddings=True (cached lower states are cut at the "
                                 "encoder's max_length).")
            if not isinstance(eval_max_length, int) or isinstance(eval_max_length, bool) or eval_max_length < 2:
                raise ValueError(f"eval_max_length must be an int >= 2, got {eval_max_length!r}.")
        self.__dict__["encoder"] = encoder  # not a submodule: its parameters are frozen and never saved here
        self.config = encoder.model.config
        self.n_top = n_top
        self.start = L - n_top  # index into hidden_states of the cached lower output
        self.pooling = pooling
        self.cache = cache
        self.state_dtype = state_dtype
        self.layers = nn.ModuleList(copy.deepcopy(layers[L - n_top:])).float()
        self.embeddings = copy.deepcopy(encoder.model.embeddings).float() if train_embeddings else None
        source = position_bias_source(encoder.model)
        self.position_bias = RelativePositionBias(source) if source is not None else None
        if dropout is not None:
            for module in self.modules():
                if isinstance(module, nn.Dropout):
                    module.p = float(dropout)
        d = encoder.dim
        self.mlp = nn.Sequential(nn.Linear(d, d), nn.Tanh()) if mlp_pooler else None
        if self.mlp is not None and mlp_init == "normal":
            nn.init.normal_(self.mlp[0].weight, mean=0.0, std=float(getattr(self.config, "initializer_range", 0.02)))
            nn.init.zeros_(self.mlp[0].bias)
        if self.mlp is not None:  # drawn on the CPU, then put beside the copied layers (a GPU on the gpu path)
            self.mlp.to(next(self.layers.parameters()).device)
        self.keep_first = bool(keep_first)
        self.train_length = None if not train_embeddings else encoder.max_length
        self.eval_length = None if not train_embeddings else (eval_max_length or encoder.max_length)
        # the frozen lower states, or with trained embeddings the token ids (one store, shared by fresh() copies;
        # not a submodule: nothing in it is trained)
        if train_embeddings:
            self.__dict__["store"] = TokenInputs(encoder, max(self.train_length, self.eval_length))
        else:
            self.__dict__["store"] = LowerStates(encoder, self.start, state_dtype, means=self._means_needed,
                                                 cache=cache)
        self._init_args = dict(n_top=n_top, pooling=pooling, mlp_pooler=mlp_pooler, dropout=dropout,
                               state_dtype=state_dtype, cache=cache, keep_first=keep_first)
        # the full fine-tuning settings join the identity (run caches key on it) only when set
        for key, value, default in (("train_embeddings", train_embeddings, False), ("mlp_init", mlp_init, "torch"),
                                    ("eval_max_length", eval_max_length, None)):
            if value != default:
                self._init_args[key] = value

    def fresh(self, **overrides) -> UpperEncoder:
        """A new, untrained copy (same encoder and settings unless overridden) that SHARES this one's cached lower
        states when the layer split is unchanged: one precompute serves every run of an experiment. Call it after
        seeding so that a new MLP pooler is initialised reproducibly."""
        args = {**self._init_args, **overrides}
        if "pooling" in overrides and "keep_first" not in overrides:
            args["keep_first"] = self.keep_first or overrides["pooling"] == "first-last"
        new = self._fresh_class(args)(self.encoder, **args)
        same_kind = type(new.store) is type(self.store) and \
            getattr(new.store, "max_length", None) == getattr(self.store, "max_length", None)
        if same_kind and self.store.serves(new.start, new.state_dtype, new._means_needed):
            new.__dict__["store"] = self.store
        return new

    def _fresh_class(self, args: dict) -> type[UpperEncoder]:
        """The class :meth:`fresh` builds for the settings ``args`` (a subclass may choose another class and drop
        the settings only it records)."""
        return UpperEncoder

    @property
    def _means_needed(self) -> str:
        """``"all"`` when first-layer means must be kept with the lower states (frozen first layer, asked for)."""
        return "all" if self.keep_first and self.start >= 1 else "none"

    # ----------------------------------------------------------------------------------------- lower states
    def precompute(self, texts: Sequence[str], chunk: int = 2048, progress: bool | None = None) -> None:
        """Run the frozen lower layers once for every new text (in eval mode) and keep the states in memory."""
        self.store.precompute(texts, chunk=chunk, progress=progress)

    def lower(self, texts: Sequence[str], limit: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Padded lower states ``B x T x d`` (float32) and mask for ``texts`` (computed on first use); with trained
        embeddings the padded token ids ``B x T`` cut to ``limit`` tokens (default: the training length)."""
        if self.embeddings is None:
            states, mask, _ = self.store.get(texts)
            return states, mask
        self.store.precompute(list(texts), progress=False)
        return self.store.batch(list(texts), limit or self.train_length)

    def first_means(self, texts: Sequence[str]) -> torch.Tensor | None:
        """``B x d`` masked means of the frozen first layer's output for ``texts`` (float32), or ``None`` when the
        pooling does not need them or the first layer is trained (``n_top = L``)."""
        if self.pooling != "first-last" or self.start == 0:
            return None
        return self.store.layer_means(texts, 1)

    def forget(self) -> None:
        """Drop every cached lower state (frees memory)."""
        self.store.clear()

    # ----------------------------------------------------------------------------------------- forward
    def forward(self, states: torch.Tensor, mask: torch.Tensor, first: torch.Tensor | None = None) -> torch.Tensor:
        """Pooled sentence vectors ``B x d`` from lower states (MLP pooler applied only in training mode).

        ``first``: ``B x d`` masked means of the first layer's output, required by ``"first-last"`` pooling when the
        first layer is frozen (:meth:`first_means`); ignored otherwise.
        """
        dev = next(self.parameters()).device
        mask = mask.to(dev)
        outs = run_layers(self.layers, self.config, *self._inputs(states, mask, dev))
        h = outs[-1]
        first_out = outs[0] if self.start == 0 else None
        if self.pooling == "first-last":
            if self.start == 0:
                first_mean = pool(first_out, mask, "mean")
            elif first is None:
                raise ValueError("pooling 'first-last' with a frozen first layer needs first= (see first_means).")
            else:
                first_mean = first.to(dev, torch.float32)
                if first_mean.shape != (h.shape[0], h.shape[2]):
                    raise ValueError(f"first must be B x d = {(h.shape[0], h.shape[2])}, got {tuple(first.shape)}.")
            pooled = (first_mean + pool(h, mask, "mean")) / 2.0
        else:
            pooled = pool(h, mask, self.pooling)
        if self.mlp is not None and self.training:
            pooled = self.mlp(pooled)
        return pooled

    def token_states(self, states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The last trained layer's token states ``B x T x d`` (no pooling, no MLP pooler) from lower states, or
        with trained embeddings from token ids (:meth:`lower`), in the current mode: what a token-level head (a
        masked-language-model head) reads."""
        dev = next(self.parameters()).device
        return run_layers(self.layers, self.config, *self._inputs(states, mask.to(dev), dev))[-1]

    def _inputs(self, states: torch.Tensor, mask: torch.Tensor, dev) -> tuple:
        """``(states, mask, position_bias)`` for :func:`run_layers`: float32 states on ``dev`` (with trained
        embeddings, the embedding layer's output of the ids ``states``) and the relative position bias (MPNet)."""
        if self.embeddings is not None:
            if states.dtype != torch.long or states.dim() != 2:
                raise ValueError("with trained embeddings the input is B x T token ids (see lower()).")
            h = self.embeddings(input_ids=states.to(dev))
        else:
            h = states.to(dev, torch.float32)
        bias = self.position_bias(h) if self.position_bias is not None else None
        return h, mask, bias

    def embed(self, texts: Sequence[str], buckets: int = 1) -> torch.Tensor:
        """Differentiable embeddings of ``texts`` in the current mode (dropout active in train mode).

        ``buckets > 1`` sorts the texts by length and runs that many sub-batches, each padded only to its own
        longest text, then restores the input order: the same embeddings (padding never changes a real token's
        output) at a fraction of the cost when lengths vary, as in STS pairs. Dropout masks are drawn per
        sub-batch, so the random stream differs from ``buckets=1``.
        """
        texts = list(texts)
        if not isinstance(buckets, int) or isinstance(buckets, bool) or buckets < 1:
            raise ValueError(f"buckets must be an int >= 1, got {buckets!r}.")
        if buckets == 1 or len(texts) < 2:
            states, mask = self.lower(texts)
            return self(states, mask, self.first_means(texts))
        self.precompute(texts, progress=False)
        order = sorted(range(len(texts)), key=lambda i: -self.store.length(texts[i], self.train_length))
        size = -(-len(texts) // buckets)
        parts, where = [], []
        for b in range(0, len(order), size):
            idx = order[b:b + size]
            sub = [texts[i] for i in idx]
            states, mask = self.store.batch(sub, self.train_length)
            parts.append(self(states, mask, self.first_means(sub)))
            where.extend(idx)
        out = torch.cat(parts)
        inverse = torch.empty(len(where), dtype=torch.long)
        inverse[torch.tensor(where)] = torch.arange(len(where))
        return out[inverse.to(out.device)]

    @torch.no_grad()
    def encode(self, texts: Sequence[str], batch_size: int = 256, normalize: bool = True,
               progress: bool | None = None) -> torch.Tensor:
        """Evaluation embeddings ``N x d`` (eval mode: no dropout, no MLP pooler), in input order, float32 CPU.

        Texts are sorted by length so that batches carry little padding; the previous mode is restored. With trained
        embeddings texts are cut at the evaluation length (``eval_max_length``), not the training length.
        """
        texts = list(texts)
        if not texts:
            raise ValueError("texts is empty: pass at least one string to encode.")
        self.precompute(texts, progress=progress)
        was = self.training
        self.eval()
        try:
            uniq = list(dict.fromkeys(texts))
            order = sorted(range(len(uniq)), key=lambda i: -self.store.length(uniq[i], self.eval_length))
            out = torch.empty(len(uniq), self.encoder.dim)
            for start in range(0, len(order), batch_size):
                idx = order[start:start + batch_size]
                states, mask = self.store.batch([uniq[i] for i in idx], self.eval_length)
                out[idx] = self(states, mask, self.first_means([uniq[i] for i in idx])).float().cpu()
        finally:
            self.train(was)
        pos = {t: i for i, t in enumerate(uniq)}
        emb = out[[pos[t] for t in texts]]
        return F.normalize(emb, dim=-1) if normalize else emb

    # ----------------------------------------------------------------------------------------- export
    def to_encoder(self):
        """A plain :class:`~companion.encoders.Encoder` whose model has the trained top layers merged in.

        The MLP pooler is not part of it (it is used only in training). The pooling carries over (same names as
        :func:`companion.encoders.pool`); so do trained embeddings and a trained relative position bias, and the
        evaluation length.
        """
        model = copy.deepcopy(self.encoder.model)
        stack = _layer_stack(model)
        for i, layer in enumerate(self.layers):
            stack[self.start + i].load_state_dict(layer.state_dict())
        if self.embeddings is not None:
            model.embeddings.load_state_dict(self.embeddings.state_dict())
        if self.position_bias is not None:
            position_bias_source(model).relative_attention_bias.load_state_dict(
                self.position_bias.relative_attention_bias.state_dict())
        model.eval()
        length = self.eval_length or self.encoder.max_length
        return Encoder(model, self.encoder.tokenizer, pooling=self.pooling, max_length=length,
                       name=f"{self.encoder.name}+upper{self.n_top}", prefix=self.encoder.prefix)

    def extra_repr(self) -> str:
        text = (f"n_top={self.n_top}, start_hidden_state={self.start}, pooling={self.pooling!r}, "
                f"mlp_pooler={self.mlp is not None}, keep_first={self.keep_first}, cached_texts={len(self.store)}")
        if self.embeddings is not None:
            text += f", train_embeddings=True, train_length={self.train_length}, eval_length={self.eval_length}"
        return text
