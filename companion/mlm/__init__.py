"""A raw, masked-language-model BERT built here, for the papers' claims about fine-tuning a raw encoder.

SimACE and AnglE argue about a RAW, MLM-pretrained BERT (anisotropic sentence embeddings, high cosines between
unrelated sentences, a saturating cosine). The project's trained encoder, all-MiniLM-L6-v2, is already contrastively
trained, and no raw encoder installs offline, so this package builds one:

* :mod:`companion.mlm.corpus`: the pretraining text, built at run time from WordNet, training splits of the data
  mirror and English prose shipped in Debian packages, with evaluation sentences removed by the build's
  ``decontamination`` rule (:mod:`companion.mlm.decontaminate`: exact match, or near-duplicate);
* :mod:`companion.mlm.pretrain`: a WordPiece vocabulary and Hugging Face's ``BertForMaskedLM`` trained on it, cached
  and deterministic;
* :mod:`companion.mlm.signature`: the raw-encoder signature (anisotropy, saturation-zone shares, zero-shot STS)
  and the regime label its claims carry (:func:`~companion.mlm.signature.raw_regime`).

>>> enc = raw_encoder("cpu", pooling="mean")   # builds once (about an hour on one core), then loads from the cache
>>> enc = raw_encoder("smoke")                  # a tiny build in seconds (tests, smoke runs)
>>> enc = raw_encoder("gpu")                    # bert-base-uncased by hub id (needs hub access)

Profiles: ``smoke`` (the first 1,500 sentences of the data mirror's wiki head, so no system package is needed; a
2-layer width-32 model, 6 steps; near-duplicate decontamination), ``cpu`` (every source, a 4-layer width-256 BERT, an 8,192-piece vocabulary,
sequences of 64 tokens; :data:`companion.mlm.pretrain.PROFILES` holds the numbers and ``build.json`` in the build folder the measured time and loss curve), ``gpu`` (the papers'
backbone, ``bert-base-uncased``; never built here). ``python -m companion.mlm build --profile cpu`` builds from the
command line.

Why these sizes (measured on one thread of the 2-core development machine, Hugging Face ``BertForMaskedLM``,
AdamW, batch 64 of 128 tokens unless said; tokens per CPU second, which machine load does not change, where
measured, else per wall second on a loaded machine): 4 layers of width 256 with an 8,192-piece vocabulary,
decoding only the masked positions, 3,400-3,600 tokens per CPU second (1,400 per wall second on the loaded
machine); the same at 64 tokens 1,700 per wall second (1.25x); a 16,384-piece vocabulary 1,275, BERT's 30,522
pieces 970, 4 layers of width 384 1,035, 6 layers of width 384 630 per wall second; bf16 autocast on the CPU was
slower (2,600 per CPU second). Within 90 minutes of one core that is about 7-19 million token positions: 4 layers
of width 256, 8,192 pieces and sequences of 64 tokens, 1,000 steps of 128 sequences (6.8 million tokens, 1.3
passes over the 3.3 million words of the corpus, 2,056 s of CPU time; 77 minutes of wall time on the loaded
machine). Its held-out MLM loss falls from 9.07 (ln 8,192 = 9.01) to 5.84, a nat below the unigram entropy of
the corpus's pieces (7.00): the model uses context, but it is a small, briefly trained encoder, nowhere near
BERT-base.

What it is, as built for ``cpu`` (``decontamination="exact"``): it has the raw-encoder signature
(:mod:`companion.mlm.signature`), but so has the random network it started from, and pretraining *lowered* that
network's zero-shot STS average (39.0 against 48.9, mean pooling, the notebooks' 500 pairs per set), and its
held-out loss is about a nat below the unigram entropy of its pieces: it learnt little language. It is not
shown to behave like raw BERT, and the regime label of every claim from it says so, with these numbers
(:func:`~companion.mlm.signature.raw_regime`). Unsupervised SimCSE does not raise its STS average clearly: the gate
of :mod:`companion.mlm.finetune` (at least 5 points on each of 3 seeds, the setting chosen on STS-B dev; the
threshold set after pilot runs had gained at most +2.69) fails, so SimACE's comparisons from it are inconclusive,
while AnglE's supervised Table 4 rows are run from it (notebook ``angle/03``). Its corpus was decontaminated by
exact match only: 210 STS12 sentences share a word 8-gram with a corpus unit, and units cut at ";" from 527 of the
744 STS12 sentences that are WordNet definitions remain (:mod:`companion.mlm.corpus`); the ``near-duplicate`` rule
(the smoke build's) removes them, 0.8 % of the text. The cpu build keeps ``"exact"`` so that its cached folder, and
every run cached from it, stay valid: switching it means a rebuild and re-running every raw-regime section. A
rebuild's cost, measured by a 30-step build of the cpu settings on the near-duplicate corpus (one thread, the
2-core machine at a load of about 9): 23 CPU s for the corpus, 44 for the vocabulary and packing, 3.2 CPU s a
step (2,100 tokens per CPU second) against the 2.06 of the cached build, so 34-53 CPU minutes for the 1,000
steps; the wall time is the CPU time on a free core, 77 minutes on the loaded machine for the cached build, about
four times the CPU time at that load.
"""

from __future__ import annotations

from pathlib import Path

from companion.encoders import Encoder, load_encoder
from companion.mlm.pretrain import (
    GPU_BACKBONE,
    PROFILES,
    build,
    build_dir,
    build_info,
    init_model,
    is_built,
    profile_config,
)

__all__ = ["GPU_BACKBONE", "PROFILES", "build", "build_dir", "build_info", "is_built", "random_encoder",
           "raw_encoder", "raw_model_path"]


def raw_model_path(profile: str = "cpu", build_if_missing: bool = True, log=print) -> str:
    """The model to hand to :func:`companion.encoders.load_encoder`: the build folder (built on first use unless
    ``build_if_missing=False``, which raises ``FileNotFoundError`` naming the build command), or the hub id of the
    ``gpu`` profile."""
    if profile == "gpu":
        return GPU_BACKBONE
    folder = build_dir(profile)
    if not is_built(folder):
        if not build_if_missing:
            raise FileNotFoundError(f"The {profile} raw encoder is not built ({folder}): run "
                                    f"`python -m companion.mlm build --profile {profile}`.")
        folder = build(profile, log=log)
    return str(folder)


def raw_encoder(profile: str = "cpu", pooling: str = "mean", max_length: int = 64, build_if_missing: bool = True,
                device=None, log=print):
    """The raw MLM-pretrained encoder of ``profile`` as a :class:`companion.encoders.Encoder` (loaded by path with
    :func:`~companion.encoders.load_encoder`, so everything that takes an encoder takes it). ``max_length`` is
    capped by the build's position table (64 for ``cpu``)."""
    path = raw_model_path(profile, build_if_missing, log=log)
    if profile != "gpu":
        max_length = min(max_length, build_info(Path(path))["config"]["max_len"])
    return load_encoder(path, pooling=pooling, max_length=max_length, device=device)


def random_encoder(profile: str = "cpu", pooling: str = "mean", max_length: int = 64, build_if_missing: bool = True,
                   log=print):
    """The network the build of ``profile`` started from (same seed, untrained), with the build's tokenizer: the
    random-init row of the signature."""
    from transformers import AutoTokenizer  # noqa: PLC0415 - transformers is heavy; this module imports without it

    path = Path(raw_model_path(profile, build_if_missing, log=log))
    tok = AutoTokenizer.from_pretrained(path)
    cfg = profile_config(profile)
    model = init_model(cfg, len(tok), tok.pad_token_id).bert.eval()
    return Encoder(model, tok, pooling=pooling, max_length=min(max_length, cfg.max_len),
                   name=f"random-init-{profile}-{path.name}")
