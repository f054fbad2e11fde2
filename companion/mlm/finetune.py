"""Unsupervised SimCSE from the raw encoder: the check that the built encoder can be fine-tuned.

The run is the project's SimCSE (:func:`companion.papers.simace.runs.run_dropout_views` with the ``simcse``
objective of :mod:`companion.losses.simace`) on an :class:`~companion.encoders.upper.UpperEncoder` that trains every
layer and the embeddings (``n_top = L``, ``train_embeddings=True``: nothing frozen, two dropout views through the
whole network, as SimCSE fine-tunes BERT), [CLS] pooling with SimCSE's MLP pooler in training only, τ = 0.05,
sentences of the mirror's wiki1m head cut at 32 tokens (SimCSE's unsupervised recipe at a CPU budget: fewer steps).
The score is the zero-shot STS of the seven sets before and after.
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


#: ``cpu``: 500 steps of 64 sentences (32,000 draws, about 2.7 passes over the 11,914 sentences of the wiki head);
#: ``smoke``: 2 steps of 8 from its first 64 sentences.
SETTINGS = {"smoke": SimCSESettings(steps=2, batch_size=8, lr=1e-4, n_texts=64, eval_every=1, n_dev=20),
            "cpu": SimCSESettings(steps=500, batch_size=64, lr=1e-4)}


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
                        train_embeddings=True, mlp_init="normal")

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
