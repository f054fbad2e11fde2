"""Unsupervised SimCSE from the raw encoder: the check that the built encoder can be fine-tuned.

The run is the project's SimCSE (:func:`companion.dropout_views.run_dropout_views` with the ``simcse``
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

The gate's sweep (:data:`SWEEP`, :func:`simcse_sweep`; mean pooling, batch 64, dropout 0.1, 200 steps, STS-B dev
every 40 steps, the best checkpoint kept; seed 0; untrained: dev 51.22, STS average 39.25):

=======  ======================  ===========  ==============  ================
lr       STS-B dev (best step)   STS average  gain            final loss
=======  ======================  ===========  ==============  ================
1e-4     50.32 (160)             40.92        +1.68           0.0002
3e-4     52.37 (160)             43.20        +3.95           0.0001
1e-3     47.34 (200)             41.51        +2.27           0.0002
=======  ======================  ===========  ==============  ================

Dev chooses lr 3e-4; its gain on seed 0, +3.95 points, is below the gate's 5, so the gate fails on its first seed
and seeds 1 and 2 are not run (the three runs took 35 minutes of wall time on the shared machine). SimCSE from
this raw encoder gains a few points at best, far from the clear gain it gives raw BERT in the SimCSE paper, and
SimACE's comparisons from it are therefore recorded as inconclusive (:mod:`companion.papers.simace.raw`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from companion.data import load_wiki
from companion.dropout_views import run_dropout_views
from companion.encoders.upper import UpperEncoder, _layer_stack
from companion.mlm import raw_encoder
from companion.settings import cache_dir


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

#: The gate, stated before the sweep below ran but after the pilot runs of the module docstring's first table (the
#: best of them gained +2.69 points, :data:`PILOT_BEST_GAIN`): its 5 points were chosen knowing that, and the gate's
#: claim says so (:func:`companion.papers.simace.raw.gate_claim`). SimCSE "works" from the raw encoder when, in the
#: setting chosen by STS-B dev on seed 0 (SimCSE's own selection; never by the test sets), every one of the seeds ``GATE_SEEDS`` raises
#: the seven-set STS average (Spearman x 100, best-dev checkpoint) by at least ``GATE_GAIN`` points over the
#: untrained raw encoder with the same pooling. The ledger grades the smallest of those gains with
#: ``at_least(GATE_GAIN)``. Only if it passes are SimACE's comparisons from the raw encoder run at all. (Added while
#: the sweep ran, to spend the shared machine's CPU on the AnglE runs: the seeds stop at the first that falls short,
#: since the gate has then failed whatever the later seeds give.)
GATE_GAIN = 5.0
GATE_SEEDS = (0, 1, 2)
#: the largest STS-average gain of the pilot runs (the first table of the module docstring: mean pooling, lr 5e-5,
#: 500 steps), measured before :data:`GATE_GAIN` was set
PILOT_BEST_GAIN = 2.69

#: The sweep a careful first try at a small, weak encoder takes (about 35 minutes of one core at ``cpu``): mean
#: pooling (the raw encoder's better zero-shot pooling), batch 64, dropout 0.1, τ = 0.05 and learning rates 1e-4,
#: 3e-4 and 1e-3 (small models take larger rates than BERT-base's 3e-5), 200 steps with STS-B dev every 40 (the
#: earlier runs' loss fell below 0.01 within about 100 steps, so later steps teach little), the best-dev checkpoint
#: kept. ``smoke``: two tiny settings.
SWEEP = {
    "smoke": {"lr 1e-4": SimCSESettings(steps=2, batch_size=8, lr=1e-4, pooling="mean", n_texts=64, eval_every=1,
                                        n_dev=20),
              "lr 1e-3": SimCSESettings(steps=2, batch_size=8, lr=1e-3, pooling="mean", n_texts=64, eval_every=1,
                                        n_dev=20)},
    "cpu": {name: SimCSESettings(steps=200, batch_size=64, lr=lr, pooling="mean", eval_every=40, dropout=0.1)
            for name, lr in (("lr 1e-4", 1e-4), ("lr 3e-4", 3e-4), ("lr 1e-3", 1e-3))},
}


def simcse_from_raw(profile: str = "cpu", settings: SimCSESettings | None = None, cache: str | None = None,
                    sts_sets=None, log=print) -> dict:
    """Fine-tune ``profile``'s raw encoder with unsupervised SimCSE; returns ``{"before", "after", "gain",
    "settings", "train_s", "history", "from_cache"}`` (``before`` / ``after``: :func:`companion.sts.evaluate_sts`
    of the raw encoder and of the fine-tuned one with the same pooling; ``gain``: the difference of the averages).
    ``cache``: a folder for the trained weights (:func:`run_dropout_views`' run cache)."""
    from companion.sts import STS_SETS, evaluate_sts  # noqa: PLC0415 - loads scipy; this module imports without it

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
        from companion.sts import load_pairs  # noqa: PLC0415 - loads scipy; this module imports without it

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


def _row(name: str, run: dict) -> dict:
    dev = [m["dev"] for m in run["monitor"]]
    best = next((m["dev"] for m in run["monitor"] if m["step"] == run["best_step"]), float("nan"))
    return {"setting": name, "seed": run["settings"]["seed"], "lr": run["settings"]["lr"],
            "pooling": run["settings"]["pooling"], "steps": run["settings"]["steps"],
            "dev_start": dev[0] if dev else float("nan"), "dev_best": best, "best_step": run["best_step"],
            "sts_before": run["before"]["avg"], "sts_after": run["after"]["avg"], "gain": run["gain"],
            "final_loss": run["history"][-1]["loss"], "train_s": run["train_s"], "from_cache": run["from_cache"]}


#: the STS sets a sweep scores (``None``: all seven); the smoke profile scores one small set to stay in seconds
SWEEP_STS_SETS = {"smoke": ("STS16",), "cpu": None}


def simcse_sweep(profile: str = "cpu", cache: str | None = None, sts_sets=None, log=print) -> dict:
    """The sweep :data:`SWEEP` on seed 0, the setting with the best STS-B dev score chosen, that setting on the seeds
    of :data:`GATE_SEEDS` in order, and the gate. The gate needs every seed, so the seeds stop at the first one whose
    gain falls short (the gate has failed there and no later seed can change that; the CPU budget goes elsewhere).
    Returns ``{"rows"`` (one dict per run: setting, seed, dev at step 0 and at the best checkpoint, STS average
    before / after, gain, final loss, training seconds), ``"chosen"``, ``"gains"`` (the chosen setting's gain per
    seed run), ``"seeds"`` (those seeds), ``"min_gain"``, ``"passed"``, ``"runs"`` (the chosen setting's full run
    records, seed order)}``. ``sts_sets``: default :data:`SWEEP_STS_SETS`. Every run goes through
    :func:`simcse_from_raw`'s run cache (``cache``: default the build cache's ``mlm/simcse-runs``), so a second call
    reloads them."""
    cache = cache or str(cache_dir() / "mlm" / "simcse-runs")
    sts_sets = sts_sets or SWEEP_STS_SETS.get(profile)
    rows, first = [], {}
    for name, settings in SWEEP[profile].items():
        run = simcse_from_raw(profile, replace(settings, seed=GATE_SEEDS[0]), cache=cache, sts_sets=sts_sets, log=log)
        first[name] = run
        rows.append(_row(name, run))
        log(f"SimCSE sweep {name} seed {GATE_SEEDS[0]}: dev {rows[-1]['dev_best']:.2f}, "
            f"STS {rows[-1]['sts_before']:.2f} -> {rows[-1]['sts_after']:.2f}")
    chosen = max(first, key=lambda n: rows[list(first).index(n)]["dev_best"])
    runs = [first[chosen]]
    for seed in GATE_SEEDS[1:]:
        if runs[-1]["gain"] < GATE_GAIN:
            log(f"SimCSE gate failed at seed {runs[-1]['settings']['seed']}: later seeds are not run")
            break
        run = simcse_from_raw(profile, replace(SWEEP[profile][chosen], seed=seed), cache=cache, sts_sets=sts_sets,
                              log=log)
        runs.append(run)
        rows.append(_row(chosen, run))
        log(f"SimCSE {chosen} seed {seed}: STS {rows[-1]['sts_before']:.2f} -> {rows[-1]['sts_after']:.2f}")
    gains = [r["gain"] for r in runs]
    passed = len(runs) == len(GATE_SEEDS) and min(gains) >= GATE_GAIN
    return {"rows": rows, "chosen": chosen, "gains": gains, "seeds": list(GATE_SEEDS[:len(runs)]),
            "min_gain": min(gains), "passed": passed, "runs": runs}
