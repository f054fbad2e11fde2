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

from companion.encoders.states import LowerStates, pad_states

UPPER_POOLINGS = ("mean", "cls", "max", "cls-mean", "first-last")


def _layer_stack(model: nn.Module) -> nn.ModuleList:
    """The transformer layers of a BERT-like Hugging Face model (``model.encoder.layer``)."""
    for path in ("encoder.layer", "bert.encoder.layer", "roberta.encoder.layer", "layer"):
        obj = model
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            continue
        if isinstance(obj, nn.ModuleList) and len(obj):
            return obj
    raise TypeError(f"{type(model).__name__} is not a BERT-like encoder (no encoder.layer ModuleList); "
                    "UpperEncoder supports BERT, RoBERTa, MiniLM and relatives.")


def _attention_mask(config, states: torch.Tensor, mask: torch.Tensor):
    """The attention mask the HF layers expect (4-D, built by transformers' own helper when available)."""
    if bool(mask.all()):
        return None
    try:
        from transformers.masking_utils import create_bidirectional_mask

        return create_bidirectional_mask(config=config, inputs_embeds=states, attention_mask=mask)
    except ImportError:  # pragma: no cover - transformers < 4.56: classic additive mask
        ext = mask[:, None, None, :].to(states.dtype)
        return (1.0 - ext) * torch.finfo(states.dtype).min


def run_layers(layers: nn.ModuleList, config, states: torch.Tensor, mask: torch.Tensor) -> list[torch.Tensor]:
    """Run transformer ``layers`` (a copied top block) on padded ``states`` (``B x T x d``, float32) with ``mask``;
    returns every layer's output in order. The top-layer forward pass of :class:`UpperEncoder` and of the concept
    paper's top-layer model."""
    attn = _attention_mask(config, states, mask)
    outs, h = [], states
    for layer in layers:
        out = layer(h, attention_mask=attn)
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
        dropout: if given, the hidden and attention dropout rate of the trained layers (default: the model's
            config, 0.1 for MiniLM/BERT).
        state_dtype: storage dtype of cached lower states (float16 halves memory; computation is float32).
        cache: also keep the lower states in the encoder's on-disk cache (see module docstring).
        keep_first: also keep each text's masked-mean first-layer output (needed by ``"first-last"``; default: only
            for that pooling). Set it on an encoder whose :meth:`fresh` copies will use ``"first-last"`` so that one
            precompute serves every pooling. With ``keep_first`` the lower pass runs the model directly (the
            ``cache`` setting does not apply to it).
    """

    def __init__(self, encoder, n_top: int = 2, pooling: str = "mean", mlp_pooler: bool = False,
                 dropout: float | None = None, state_dtype: torch.dtype = torch.float16, cache: bool = False,
                 keep_first: bool | None = None):
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
        self.__dict__["encoder"] = encoder  # not a submodule: its parameters are frozen and never saved here
        self.config = encoder.model.config
        self.n_top = n_top
        self.start = L - n_top  # index into hidden_states of the cached lower output
        self.pooling = pooling
        self.cache = cache
        self.state_dtype = state_dtype
        self.layers = nn.ModuleList(copy.deepcopy(layers[L - n_top:])).float()
        if dropout is not None:
            for module in self.layers.modules():
                if isinstance(module, nn.Dropout):
                    module.p = float(dropout)
        d = encoder.dim
        self.mlp = nn.Sequential(nn.Linear(d, d), nn.Tanh()) if mlp_pooler else None
        self.keep_first = bool(keep_first)
        # the frozen lower states (one store, shared by fresh() copies; not a submodule: nothing in it is trained)
        self.__dict__["store"] = LowerStates(encoder, self.start, state_dtype, means=self._means_needed,
                                             cache=cache)
        self._init_args = dict(n_top=n_top, pooling=pooling, mlp_pooler=mlp_pooler, dropout=dropout,
                               state_dtype=state_dtype, cache=cache, keep_first=keep_first)

    def fresh(self, **overrides) -> UpperEncoder:
        """A new, untrained copy (same encoder and settings unless overridden) that SHARES this one's cached lower
        states when the layer split is unchanged: one precompute serves every run of an experiment. Call it after
        seeding so that a new MLP pooler is initialised reproducibly."""
        args = {**self._init_args, **overrides}
        if "pooling" in overrides and "keep_first" not in overrides:
            args["keep_first"] = self.keep_first or overrides["pooling"] == "first-last"
        new = self._fresh_class(args)(self.encoder, **args)
        if self.store.serves(new.start, new.state_dtype, new._means_needed):
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

    def lower(self, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """Padded lower states ``B x T x d`` (float32) and mask for ``texts`` (computed on first use)."""
        states, mask, _ = self.store.get(texts)
        return states, mask

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
        from companion.encoders import pool

        dev = next(self.parameters()).device
        mask = mask.to(dev)
        outs = run_layers(self.layers, self.config, states.to(dev, torch.float32), mask)
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
        order = sorted(range(len(texts)), key=lambda i: -self.store.length(texts[i]))
        size = -(-len(texts) // buckets)
        parts, where = [], []
        for b in range(0, len(order), size):
            idx = order[b:b + size]
            sub = [texts[i] for i in idx]
            states, mask = pad_states([self.store.tokens[t] for t in sub])
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

        Texts are sorted by length so that batches carry little padding; the previous mode is restored.
        """
        texts = list(texts)
        if not texts:
            raise ValueError("texts is empty: pass at least one string to encode.")
        self.precompute(texts, progress=progress)
        was = self.training
        self.eval()
        try:
            uniq = list(dict.fromkeys(texts))
            order = sorted(range(len(uniq)), key=lambda i: -self.store.length(uniq[i]))
            out = torch.empty(len(uniq), self.encoder.dim)
            for start in range(0, len(order), batch_size):
                idx = order[start:start + batch_size]
                states, mask = pad_states([self.store.tokens[uniq[i]] for i in idx])
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
        :func:`companion.encoders.pool`).
        """
        from companion.encoders import Encoder

        model = copy.deepcopy(self.encoder.model)
        stack = _layer_stack(model)
        for i, layer in enumerate(self.layers):
            stack[self.start + i].load_state_dict(layer.state_dict())
        model.eval()
        return Encoder(model, self.encoder.tokenizer, pooling=self.pooling, max_length=self.encoder.max_length,
                       name=f"{self.encoder.name}+upper{self.n_top}", prefix=self.encoder.prefix)

    def extra_repr(self) -> str:
        return (f"n_top={self.n_top}, start_hidden_state={self.start}, pooling={self.pooling!r}, "
                f"mlp_pooler={self.mlp is not None}, keep_first={self.keep_first}, cached_texts={len(self.store)}")
