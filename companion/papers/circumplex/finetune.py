r"""The circumplex paper's setting for a BERT-like backbone: the whole encoder fine-tuned with its head.

§4.1 (Implementation Details) and App. D's Table 3 fine-tune the BERT-like encoders (mE5, mxbai) whole, the head
pooled at [CLS], and keep only the LLM backbones frozen with the head alone trained (last-token pooling). The frozen
setting is :mod:`companion.papers.circumplex.heads` over cached token states
(:class:`~companion.encoders.states.PackedStates`); this module adds the fine-tuned one with the same interface, so
that every head run of the notebooks (``train_head``, ``head_run``, ``embed_with_head``, the grids built on them)
takes either:

* :class:`BackboneInputs` stands where the cached states stand: the texts of a split, tokenised once (with the
  encoder's prefix, e.g. E5's ``"query: "``) at ``max_length`` tokens (the authors' MAX_SEQ_LEN 512), and the
  settings of the fine-tuned setting: ``precision`` (``"bf16"``: the training loop's Accelerate autocast,
  :func:`companion.training.train`, where a GPU is present) and ``head_dropout`` (loss -> rate of the dropout on
  the head block's input; the authors' script sets 0.1 for SoftCSE). :meth:`BackboneInputs.batch` gives token ids
  and a mask instead of states.
* :class:`TunedHead` is the model a run trains on such inputs: a trainable copy of the whole encoder (its
  embeddings, with their dropout, and every layer: :class:`~companion.encoders.upper.UpperEncoder` with
  ``train_embeddings=True``), the dropout on its last-layer token states, and the GPT or nGPT head, which pools
  (``"cls"`` for mE5) and normalises. Gradient clipping, the optimiser and the constant learning rate are
  :func:`~companion.papers.circumplex.heads.train_head`'s, over every parameter of the copy and the head.

:func:`head_inputs` builds the inputs of either setting from the notebooks' settings (``backbone_training``:
``"full"``, the gpu profile's default for mE5; ``"frozen"``: the cached-state head, the cpu profile's, and the
setting the paper uses for its LLM backbones); :func:`backbone_options` reads those settings from a notebook's
``cfg`` (absent keys: the frozen setting, so the cpu and smoke profiles are unchanged).

**Device.** A :class:`TunedHead` lives on the GPU when there is one. Only one is kept there at a time (a grid holds
many fine-tuned encoders): using one moves the previously used one to the CPU.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
from torch import nn

from companion._io import cache_key
from companion.encoders.states import TokenInputs
from companion.encoders.upper import UpperEncoder, _layer_stack

BACKBONE_TRAINING = ("frozen", "full")
PRECISIONS = ("float32", "bf16")
#: The settings :func:`backbone_options` reads from a notebook's ``cfg`` (absent: the frozen setting).
OPTION_KEYS = ("backbone_training", "precision", "head_dropout")


def backbone_options(cfg: Mapping) -> dict:
    """The fine-tuning settings of a notebook's ``cfg`` that :func:`head_inputs` (through ``frozen_features``)
    takes: ``backbone_training``, ``precision``, ``head_dropout``, where the profile defines them (the gpu profile);
    none for the cpu and smoke profiles, whose heads train on frozen states."""
    return {key: cfg[key] for key in OPTION_KEYS if key in cfg}


def check_options(backbone_training: str = "frozen", precision: str = "float32",
                  head_dropout: Mapping[str, float] | None = None) -> dict[str, float]:
    """Validate the fine-tuning settings; returns ``head_dropout`` as a plain dict (loss -> rate)."""
    if backbone_training not in BACKBONE_TRAINING:
        raise ValueError(f"Unknown backbone_training {backbone_training!r}; choose one of "
                         f"{', '.join(BACKBONE_TRAINING)}.")
    if precision not in PRECISIONS:
        raise ValueError(f"Unknown precision {precision!r}; choose one of {', '.join(PRECISIONS)}.")
    rates = dict(head_dropout or {})
    for loss, p in rates.items():
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p < 1.0:
            raise ValueError(f"head_dropout[{loss!r}] must be in [0, 1), got {p!r}.")
    if backbone_training == "frozen" and (precision != "float32" or rates):
        raise ValueError("precision and head_dropout apply to the fine-tuned backbone (backbone_training='full').")
    return {str(k): float(v) for k, v in rates.items()}


class BackboneInputs:
    """The texts of one split as the fine-tuned setting reads them (module docstring): token ids at ``max_length``
    (shared with every :meth:`subset`), their ``lengths``, the encoder's width (``dim``, ``backbone_dim``), the
    training ``precision`` and the ``head_dropout`` per loss."""

    def __init__(self, encoder, texts: Sequence[str], max_length: int, precision: str = "bf16",
                 head_dropout: Mapping[str, float] | None = None, store=None):
        self.head_dropout = check_options("full", precision, head_dropout)
        if not isinstance(max_length, int) or isinstance(max_length, bool) or max_length < 2:
            raise ValueError(f"max_length must be an int >= 2, got {max_length!r}.")
        self.encoder, self.texts, self.max_length, self.precision = encoder, list(texts), max_length, precision
        self.store = store if store is not None else TokenInputs(encoder, max_length)
        self.store.precompute(self.texts, progress=False)
        self.lengths = torch.tensor([self.store.length(t) for t in self.texts], dtype=torch.long)
        self.backbone_dim = int(encoder.dim)

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def dim(self) -> int:
        return int(self.encoder.dim)

    def batch(self, idx) -> tuple[torch.Tensor, torch.Tensor]:
        """Right-padded token ids ``B x T`` and the mask of the texts at ``idx``."""
        idx = torch.as_tensor(idx, dtype=torch.long).reshape(-1).tolist()
        return self.store.batch([self.texts[i] for i in idx])

    def subset(self, idx) -> BackboneInputs:
        idx = torch.as_tensor(idx, dtype=torch.long).reshape(-1).tolist()
        return BackboneInputs(self.encoder, [self.texts[i] for i in idx], self.max_length, self.precision,
                              self.head_dropout, store=self.store)

    def digest(self) -> str:
        """A content digest for the run caches: the encoder's weights, the length and the texts."""
        return cache_key([self.encoder.fingerprint, self.encoder.prefix, self.max_length, self.texts],
                         digest_size=16)

    def settings(self, loss: str) -> dict:
        """What the fine-tuned setting adds to a run's settings (its cache key): the input length, the precision
        and the head dropout of ``loss``."""
        return {"backbone_training": "full", "max_length": self.max_length, "precision": self.precision,
                "head_dropout": self.head_dropout.get(loss, 0.0)}


def is_tuned(states) -> bool:
    """Whether ``states`` are the fine-tuned setting's inputs (:class:`BackboneInputs`), not cached states."""
    return isinstance(states, BackboneInputs)


def head_inputs(encoder, texts: Sequence[str], max_length: int, *, backbone_training: str = "frozen",
                precision: str = "float32", head_dropout: Mapping[str, float] | None = None) -> BackboneInputs:
    """The :class:`BackboneInputs` of ``texts`` for ``backbone_training="full"`` (the settings checked)."""
    check_options(backbone_training, precision, head_dropout)
    if backbone_training != "full":
        raise ValueError("head_inputs builds the fine-tuned setting's inputs; the frozen setting caches states "
                         "(companion.papers.circumplex.heads.frozen_features).")
    return BackboneInputs(encoder, texts, max_length, precision, head_dropout)


_RESIDENT: list[TunedHead] = []  # the TunedHead now on the GPU (at most one)


class TunedHead(nn.Module):
    """A whole encoder fine-tuned with its head (module docstring): ``forward(ids, mask)`` runs a trainable copy of
    every layer of ``encoder`` (embeddings included, with dropout in training mode) on the token ids, applies the
    dropout ``head_dropout`` to the last layer's token states and the ``head`` to them (its pooling, e.g. [CLS],
    and the unit normalisation). ``return_stages`` is the head's (its pooled internal representations)."""

    def __init__(self, encoder, head: nn.Module, head_dropout: float = 0.0):
        super().__init__()
        n_layers = len(_layer_stack(encoder.model))
        self.backbone = UpperEncoder(encoder, n_top=n_layers, pooling="cls", train_embeddings=True)
        self.dropout = nn.Dropout(float(head_dropout))
        self.head = head
        self.dim, self.pooling = head.dim, head.pooling
        self.to_device()

    def to_device(self) -> TunedHead:
        """Move this model to the GPU (when there is one), the previously used one to the CPU."""
        if not torch.cuda.is_available():
            return self
        for other in _RESIDENT:
            if other is not self:
                other.to("cpu")
        _RESIDENT[:] = [self]
        return self.to("cuda")

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def token_states(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The fine-tuned encoder's last-layer token states ``B x T x d`` of padded ids (float32 unless autocast):
        :meth:`~companion.encoders.upper.UpperEncoder.token_states` of the trainable copy."""
        return self.backbone.token_states(ids, mask)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, return_stages: bool = False):
        if torch.cuda.is_available() and self.device.type != "cuda":
            self.to_device()
        states = self.dropout(self.token_states(ids, mask))
        return self.head(states.float(), mask.to(self.device).bool(), return_stages=return_stages)

    def normalize_weights(self) -> None:
        """The head's re-normalisation after a step (an nGPT head's; nothing for a GPT head)."""
        inner = getattr(self.head, "normalize_weights", None)
        if inner is not None:
            inner()

    def effective(self) -> dict[str, torch.Tensor]:
        return self.head.effective()


_ACCELERATORS: dict[str, object] = {}


def accelerator_for(precision: str):
    """The Accelerate accelerator the training loop runs a fine-tuned model under: bf16 autocast where
    ``precision`` is ``"bf16"`` and a GPU is present; None otherwise (float32; or the one ``accelerate launch`` /
    ``COMPANION_ACCELERATE=1`` asks for, :func:`companion.training.launched_accelerator`)."""
    if precision != "bf16" or not torch.cuda.is_available():
        return None
    if "bf16" not in _ACCELERATORS:
        from accelerate import Accelerator  # noqa: PLC0415 - optional dependency (the `train` extra)

        _ACCELERATORS["bf16"] = Accelerator(mixed_precision="bf16")
    return _ACCELERATORS["bf16"]
