"""Unsupervised SimCSE from the raw encoder: the check that the built encoder can be fine-tuned.

The run is the project's SimCSE (:func:`companion.papers.simace.runs.run_dropout_views` with the ``simcse``
objective of :mod:`companion.losses.simace`) on an :class:`~companion.encoders.upper.UpperEncoder` that trains every
layer and the embeddings (``n_top = L``, ``train_embeddings=True``: nothing frozen, two dropout views through the
whole network, as SimCSE fine-tunes BERT), SimCSE's MLP pooler in training only, τ = 0.05,
sentences of the mirror's wiki1m head cut at 32 tokens (SimCSE's unsupervised recipe at a CPU budget: fewer steps).
The score is the zero-shot STS of the seven sets before and after.

Measured on the cpu build (500 steps of 64 wiki sentences, one thread, seed 0; STS average of the seven sets,
Spearman x 100, before -> after):

=======  ======  =========  ==========================  ================================
pooling  lr      dropout    STS-B dev (step 0 -> best)  STS average
=======  ======  =========  ==========================  ================================
[CLS]    1e-4    0.1        (no selection)              30.57 -> 18.27 (-12.29)
mean     5e-5    0.1        51.22 -> 52.07 (step 500)   39.25 -> 41.94 (+2.69)
mean     1e-4    0.3        51.22 -> 44.56 (step 300)   39.25 -> 35.21 (-4.04)
=======  ======  =========  ==========================  ================================

SimCSE does not raise this encoder's STS clearly: its loss falls below 0.01 within about 100 steps in every run
(the two dropout views of a sentence are told apart from the other 63 sentences by surface features alone), so the
objective stops teaching anything while the weights move away from the pretrained ones. The default below is the
only setting whose dev score rose over the raw encoder's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class SimCSESettings:
    steps: int
    batch_size: int
    lr: float
    tau: float = 0.05
    pooling: str = "cls"
    max_length: int = 32
    n_texts: int | None = None
    seed: int = 0
    eval_every: int = 0  # > 0: STS-B dev every this many steps, the best checkpoint kept (SimCSE's selection)
    n_dev: int | None = None  # dev pairs (None: all 1,500)
    dropout: float | None = None  # hidden and attention dropout of the views (None: the model's 0.1)


#: ``cpu``: 500 steps of 64 sentences (32,000 draws, about 2.7 passes over the 11,914 sentences of the wiki head),
#: mean pooling, lr 5e-5, STS-B dev every 100 steps; ``smoke``: 2 steps of 8 from its first 64 sentences.
SETTINGS = {"smoke": SimCSESettings(steps=2, batch_size=8, lr=1e-4, n_texts=64, eval_every=1, n_dev=20),
            "cpu": SimCSESettings(steps=500, batch_size=64, lr=5e-5, pooling="mean", eval_every=100)}


def simcse_from_raw(profile: str = "cpu", settings: SimCSESettings | None = None, cache: str | None = None,
                    sts_sets=None, log=print) -> dict:
    """Fine-tune ``profile``'s raw encoder with unsupervised SimCSE; returns ``{"before", "after", "gain",
    "settings", "train_s", "history", "from_cache"}`` (``before`` / ``after``: :func:`companion.sts.evaluate_sts`
    of the raw encoder and of the fine-tuned one with the same pooling; ``gain``: the difference of the averages).
    ``cache``: a folder for the trained weights (:func:`run_dropout_views`' run cache)."""
    from companion.data import load_wiki
    from companion.encoders.upper import UpperEncoder, _layer_stack
    from companion.mlm import raw_encoder
    from companion.papers.simace.runs import run_dropout_views
    from companion.sts import STS_SETS, evaluate_sts

    s = settings or SETTINGS[profile]
    sets = tuple(sts_sets or STS_SETS)
    enc = raw_encoder(profile, pooling=s.pooling, max_length=s.max_length, device="cpu", log=log)
    texts = [t for t in load_wiki(s.n_texts)["text"][:] if t.strip()]
    before = evaluate_sts(enc, sets=sets)
    base = UpperEncoder(enc, n_top=len(_layer_stack(enc.model)), pooling=s.pooling, mlp_pooler=True,
                        train_embeddings=True, mlp_init="normal", dropout=s.dropout)

    def score(model) -> dict:
        model.eval()
        return evaluate_sts(lambda batch: model.encode(batch), sets=sets)

    dev = None
    if s.eval_every:
        from companion.sts import load_pairs

        d1, d2, gold = load_pairs("STSBenchmark", split="dev")
        n = len(gold) if s.n_dev is None else s.n_dev
        dev = (d1[:n], d2[:n], gold[:n])
    run = run_dropout_views(base, texts, "simcse", s.tau, 0.0, s.steps, s.batch_size, s.lr, s.seed, dev=dev,
                            eval_every=s.eval_every, cache=cache, score_fn=score,
                            score_key=f"sts:{','.join(sets)}", progress=False)
    after = run["scores"]
    return {"before": before, "after": after, "gain": after["avg"] - before["avg"], "settings": asdict(s),
            "train_s": run["train_s"], "history": run["history"], "monitor": run["monitor"],
            "best_step": run["best_step"], "from_cache": run["from_cache"]}
