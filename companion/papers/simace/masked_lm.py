"""App. J's auxiliary masked-language-model (MLM) objective: the gpu profile's Table 13 runs "with MLM".

App. J trains SimCSE, ArcCon and SimACE a second time with an MLM term added (Devlin et al. 2018) for Table 13's
"with MLM" rows, and states neither the term's weight nor its masking. Both come from SimCSE's released code, whose
setup the paper follows (App. B): ``train.py`` (``--do_mlm``, ``mlm_weight`` 0.1, ``mlm_probability`` 0.15, BERT's
80 / 10 / 10 replacement rule in its collator, transformers' ``DataCollatorForLanguageModeling``) and
``simcse/models.py`` (a third forward pass of the encoder on the masked copies of both views, the backbone's
pretrained masked-LM head on its token states, the cross-entropy over the masked tokens times the weight added to the
contrastive loss). Nothing here is copied from that code; the masking itself is the transformers collator's.

* :func:`mask_tokens`: BERT's masking of a batch of token ids (transformers' masked-LM collator), drawing from
  a given random generator.
* :func:`masked_lm_head`: a fresh copy of the backbone's masked-LM head (pretrained for a hub model; for a tiny
  stand-in the head of its class, initialised with a fixed seed).
* :class:`MLMUpperEncoder`: the gpu path's :class:`~companion.encoders.upper.UpperEncoder` (full fine-tuning) with
  that head; :meth:`~MLMUpperEncoder.auxiliary_loss` is what
  :func:`companion.dropout_views.dropout_view_loss` adds to each objective's loss.
* :func:`mlm_base`: the MLM variant of a run's base model, sharing its token store.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from companion.encoders.loading import resolve_model
from companion.encoders.upper import UpperEncoder
from companion.profiles import TINY_PREFIX

#: SimCSE train.py's defaults (ModelArguments.mlm_weight, DataTrainingArguments.mlm_probability): the paper states
#: neither (App. J)
MLM_WEIGHT = 0.1
MLM_PROBABILITY = 0.15
#: BERT's rule for the chosen tokens: this share becomes the mask token, half of the rest a random token, the rest
#: stays unchanged (80 / 10 / 10)
MASK_SHARE = 0.8
IGNORE = -100  # the label of a token that is not predicted (torch's cross_entropy ignore_index)


def mask_tokens(ids: torch.Tensor, tokenizer, probability: float = MLM_PROBABILITY,
                generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's masking of token ids ``B x T``, by transformers' ``DataCollatorForLanguageModeling`` (the collator
    SimCSE's train.py masks with): every token but the special ones (padding included) is chosen with
    ``probability``; a chosen token becomes the mask token with probability 0.8, else a uniformly random token of
    the tokenizer's vocabulary with probability 0.5, else stays. The draws come from ``generator`` (None: torch's
    global generator). Returns ``(inputs, labels)``: the masked ids and the original id at each chosen position,
    :data:`IGNORE` elsewhere. ``ids`` is not changed."""
    from transformers import DataCollatorForLanguageModeling  # noqa: PLC0415 - transformers is heavy; this module imports without it

    if not 0.0 < probability < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {probability!r}.")
    if ids.dim() != 2 or ids.dtype != torch.long:
        raise ValueError(f"ids must be B x T token ids (long), got {tuple(ids.shape)} {ids.dtype}.")
    if tokenizer.mask_token_id is None:
        raise ValueError("the tokenizer has no mask token: it cannot be trained with an MLM objective.")
    ids = ids.cpu()
    special = torch.isin(ids, torch.tensor(sorted(set(tokenizer.all_special_ids)), dtype=torch.long))
    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=float(probability),
                                               mask_replace_prob=MASK_SHARE, random_replace_prob=(1 - MASK_SHARE) / 2)
    collator.generator = generator  # the collator draws from its own generator attribute
    return collator.torch_mask_tokens(ids.clone(), special_tokens_mask=special)


_HEADS: dict[int, tuple[object, nn.Module]] = {}  # id(encoder.model) -> (the model, its pristine head)


def masked_lm_head(encoder) -> nn.Module:
    """A fresh float32 copy of the masked-LM head of ``encoder``'s backbone (the part of its Hugging Face
    ``AutoModelForMaskedLM`` that is not the base model: BERT's ``cls``, RoBERTa's ``lm_head``). A hub model's head
    is its pretrained one, loaded once per encoder; its output layer is copied, not tied to the word embeddings (as
    SimCSE's train.py copies BERT's pretrained head into its own). A tiny stand-in (``tiny-...``) gets a head of its
    class initialised with seed 0. The global random state is left as it was."""
    from transformers import AutoModelForMaskedLM  # noqa: PLC0415 - transformers is heavy; this module imports without it

    key = id(encoder.model)
    if key not in _HEADS or _HEADS[key][0] is not encoder.model:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            if str(encoder.name).startswith(TINY_PREFIX):
                full = AutoModelForMaskedLM.from_config(encoder.model.config)
            else:
                full = AutoModelForMaskedLM.from_pretrained(resolve_model(encoder.name)[0])
        heads = [m for name, m in full.named_children() if name != full.base_model_prefix]
        if len(heads) != 1:
            raise TypeError(f"{type(full).__name__}: expected one masked-LM head beside the base model, found "
                            f"{[name for name, _ in full.named_children()]}.")
        _HEADS[key] = (encoder.model, heads[0].float().eval())
    return copy.deepcopy(_HEADS[key][1])


class MLMUpperEncoder(UpperEncoder):
    """The full fine-tuning :class:`~companion.encoders.upper.UpperEncoder` with the backbone's masked-LM head
    (:func:`masked_lm_head`, a submodule: trained with the rest and saved in the run cache) and the MLM term.

    ``mlm_weight`` and ``mlm_probability`` join the model's settings (so a run cache keys on them). The masking draws
    from the model's own generator, seeded from the global random state when the model is built (seed first, as
    for every run), so the dropout stream of the two views and of the masked pass is the one the global state gives.
    :attr:`last_mlm` keeps the ``(inputs, labels)`` of the last masked batch."""

    def __init__(self, encoder, *, mlm_weight: float = MLM_WEIGHT, mlm_probability: float = MLM_PROBABILITY,
                 **kwargs):
        super().__init__(encoder, **kwargs)
        if self.embeddings is None:
            raise ValueError("the MLM objective needs train_embeddings=True (the masked ids run through the "
                             "trained embedding layer).")
        if not (isinstance(mlm_weight, (int, float)) and mlm_weight > 0):
            raise ValueError(f"mlm_weight must be > 0, got {mlm_weight!r}.")
        if not 0.0 < mlm_probability < 1.0:
            raise ValueError(f"mlm_probability must be in (0, 1), got {mlm_probability!r}.")
        self.mlm_weight = float(mlm_weight)
        self.mlm_probability = float(mlm_probability)
        self.lm_head = masked_lm_head(encoder).to(next(self.layers.parameters()).device)
        self.mask_generator = torch.Generator().manual_seed(int(torch.randint(0, 2**62, (1,))))
        self.last_mlm: tuple[torch.Tensor, torch.Tensor] | None = None
        self._init_args.update(mlm_weight=self.mlm_weight, mlm_probability=self.mlm_probability)

    def _fresh_class(self, args: dict) -> type[UpperEncoder]:
        return MLMUpperEncoder

    def mlm_loss(self, texts: Sequence[str]) -> torch.Tensor:
        """The masked-LM cross-entropy of ``texts`` (one masked copy each, :func:`mask_tokens`), averaged over the
        chosen tokens; 0 (with a gradient path) when no token was chosen."""
        ids, mask = self.lower(list(texts))
        inputs, labels = mask_tokens(ids, self.encoder.tokenizer, self.mlm_probability, self.mask_generator)
        self.last_mlm = (inputs, labels)
        logits = self.lm_head(self.token_states(inputs, mask))
        labels = labels.to(logits.device)
        if not bool((labels != IGNORE).any()):
            return logits.sum() * 0.0
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), labels.reshape(-1), ignore_index=IGNORE)

    def auxiliary_loss(self, texts: Sequence[str]) -> torch.Tensor:
        """``mlm_weight`` x :meth:`mlm_loss` of the masked copies of both dropout views of ``texts`` (SimCSE masks
        the two views' ids independently and runs them as one batch)."""
        texts = list(texts)
        return self.mlm_weight * self.mlm_loss(texts + texts)


def mlm_base(base: UpperEncoder, mlm_weight: float = MLM_WEIGHT,
             mlm_probability: float = MLM_PROBABILITY) -> MLMUpperEncoder:
    """The MLM variant of a gpu-path base model (:func:`companion.papers.simace.make_base`): the same encoder and
    settings plus the masked-LM head, sharing ``base``'s token store (one tokenisation serves both)."""
    if base.embeddings is None:
        raise ValueError("mlm_base() needs the gpu path's base (train_embeddings=True).")
    args = {k: v for k, v in base._init_args.items() if k not in ("mlm_weight", "mlm_probability")}
    new = MLMUpperEncoder(base.encoder, mlm_weight=mlm_weight, mlm_probability=mlm_probability, **args)
    new.__dict__["store"] = base.store
    return new
