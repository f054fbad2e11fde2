"""The gpu profile's run grid of every notebook, in one place, for the gpu plan (:mod:`companion.publish.plan`).

:data:`GRIDS` maps each notebook to one small function of its gpu settings (``cfg``, the notebook's
:class:`companion.profiles.Profiles` called for the gpu profile and the plan's grid) and the measured token lengths
(:class:`Tokens`) that returns its :class:`Entry`: the groups of identical training runs (:class:`Work`), each with
the settings that define it, and a note saying what was counted. A notebook that trains no backbone (free vectors,
closed forms, small MLPs and ConvNets) returns a CPU-class entry: its work is stated, not priced on a GPU.

What is counted, per group: runs x steps x batch x tokens per example (padded as trained: the batch's longest text,
cut at the length setting) x encoder passes per example (SimCSE's two dropout views; App. J's masked copies of both
views), the parameters trained beside the backbone (a head, the masked-LM head) on the passes that reach them, and
the evaluation a run does (its dev or curve evaluations, at the step-0 start, every ``eval_every`` steps and at the
end, as :func:`companion.training.train` evaluates; its test sets; encodings for analyses), in tokens. Runs a
notebook reloads from another notebook's run cache carry that cache's ids (``Work.ids``): the first notebook of a
plan to hold an id trains the run, a later one reloads it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from companion.papers.simace import CONTROLS, MAIN, ROBERTA_NAMES, rbf_name
from companion.profiles import STAND_INS

#: every backbone the gpu profile trains or encodes with -> (parameters, where the count comes from)
PARAMS: dict[str, tuple[float, str]] = {
    "bert-base-uncased": (110e6, "model card / Devlin et al. 2019: BERT-base 110M"),
    "roberta-base": (125e6, "model card: roberta-base 125M"),
    "intfloat/multilingual-e5-large": (560e6, "model card: multilingual-e5-large 560M"),
    "sentence-transformers/all-mpnet-base-v2": (110e6, "model card figure for all-mpnet-base-v2: 110M"),
    "sentence-transformers/all-MiniLM-L6-v2": (22.7e6, "model card: all-MiniLM-L6-v2 22.7M"),
}
#: BERT-base's masked-LM head (App. J's MLM runs), from bert-base-uncased's config (hidden 768, vocabulary 30,522):
#: the 768 x 768 transform with its bias and layer norm, the untied 768 x 30,522 decoder with its bias
MLM_HEAD = 768 * 768 + 768 + 2 * 768 + 768 * 30522 + 30522
#: SNLI + MultiNLI training pairs as their publishers state them (companion.data.NLI_TRAIN: 550,152 + 392,702),
#: less neutral: the labels are balanced, so about two thirds remain (SNLI's pairs without a gold label are left in)
NLI_PAIRS = round((550_152 + 392_702) * 2 / 3)


@dataclass(frozen=True)
class Work:
    """One group of runs (or, with ``steps=0``, one evaluation-only job) of a notebook's gpu profile.

    ``steps`` and ``eval_tokens`` are per run: one value for every run, or a tuple with one value per run (a grid
    whose first seed trains on past the budget for a learning curve). ``tokens``: per example and encoder pass, as
    trained; ``passes``: encoder passes per example and step (forward and backward); ``head``: parameters trained
    beside the backbone, reached by ``head_passes`` of the passes (and by evaluation when ``head_eval``);
    ``eval_tokens``: tokens a run encodes without gradient; ``path``: the gpu path the calibration file names;
    ``ids``: run-cache ids shared with other notebooks, one per run."""

    what: str
    backbone: str = ""
    runs: int = 1
    steps: int | tuple[int, ...] = 0
    batch: int = 0
    tokens: float = 0.0
    passes: int = 1
    head: float = 0.0
    head_passes: int = 0
    head_eval: bool = True
    eval_tokens: float | tuple[float, ...] = 0.0
    path: str = ""
    ids: tuple[str, ...] = field(default=(), repr=False)

    def __post_init__(self):
        for name in ("steps", "eval_tokens", "ids"):
            value = getattr(self, name)
            if isinstance(value, tuple) and value and len(value) != self.runs:
                raise ValueError(f"{self.what}: {len(value)} {name} for {self.runs} runs.")
        if self.backbone and self.backbone not in PARAMS:
            raise ValueError(f"{self.what}: no parameter count for {self.backbone!r} in PARAMS.")

    @property
    def params(self) -> float:
        return PARAMS[self.backbone][0] if self.backbone else 0.0

    @property
    def layers(self) -> int:
        """The transformer layers a training step runs through: the backbone's (its depth in
        :data:`companion.profiles.STAND_INS`), or the head's one block on cached states."""
        return STAND_INS[self.backbone][1] if self.backbone else 1

    def _per_run(self, name: str) -> list:
        value = getattr(self, name)
        return list(value) if isinstance(value, tuple) else [value] * self.runs

    def cost(self, keep: list[bool] | None = None) -> dict[str, float]:
        """Runs, steps, training tokens (every pass), evaluation tokens and FLOPs (6 x params x training tokens
        + 2 x params x evaluation tokens, the head's share on the passes that reach it; also apart, ``train_flops``
        and ``eval_flops``) of the runs ``keep`` marks (default: all)."""
        keep = [True] * self.runs if keep is None else keep
        steps = sum(s for s, k in zip(self._per_run("steps"), keep) if k)
        evals = sum(e for e, k in zip(self._per_run("eval_tokens"), keep) if k)
        per_pass = steps * self.batch * self.tokens
        train = 6 * per_pass * (self.params * self.passes + self.head * self.head_passes)
        evaluation = 2 * evals * (self.params + (self.head if self.head_eval else 0.0))
        return {"runs": sum(keep), "steps": steps, "train_tokens": per_pass * self.passes, "eval_tokens": evals,
                "flops": train + evaluation, "train_flops": train, "eval_flops": evaluation}


@dataclass(frozen=True)
class Entry:
    """A notebook's gpu work: its groups, and a note of what was counted; ``cpu_class`` (non-empty) says the
    notebook trains no backbone and what it does instead."""

    works: tuple[Work, ...] = ()
    note: str = ""
    cpu_class: str = ""


class Tokens:
    """The measured token lengths (:func:`companion.publish.plan_tokens.read`)."""

    def __init__(self, measured: Mapping):
        if not measured:
            raise ValueError("data/gpu-plan-tokens.json is missing: measure the token lengths with python -c "
                             "\"from companion.publish.plan_tokens import measure; measure()\"")
        self.sources, self.steps = measured["sources"], measured["concept_steps"]

    def n(self, source: str) -> int:
        return self.sources[source].n

    def mean(self, source: str, cap: int | None = None) -> float:
        return self.sources[source].mean(cap)

    def padded(self, source: str, batch: int, cap: int) -> float:
        return self.sources[source].padded(batch, cap)

    def all(self, source: str, cap: int | None = None) -> float:
        """Tokens of one length-sorted pass over the whole source."""
        return self.n(source) * self.mean(source, cap)


def evaluations(steps: int, every: int) -> int:
    """How often :func:`companion.training.train` evaluates: at step 0, every ``every`` steps and at the end."""
    return 1 + steps // every + (1 if steps % every else 0) if every else 0


def _ids(prefix: str, names, seeds) -> tuple[str, ...]:
    return tuple(f"{prefix}:{name}:{seed}" for seed in seeds for name in names)


# ------------------------------------------------------------------------------------------------------ SimACE
#: notebook 02's main runs (its NAMES cell): Table 7's three objectives and the two equal-temperature controls
SIMACE_02_NAMES = ("SimCSE", "ArcCon", "SimACE", "SimACE τ=0.05", "SimCSE τ=0.06")


def _simace_run(cfg, t: Tokens, what: str, names, seeds, *, transfer=(), mlm: bool = False,
                model: str | None = None, steps: int | None = None, batch: int | None = None,
                more: tuple[str, ...] = ()) -> Work:
    """Dropout-view runs of ``names`` x ``seeds``, seed-major (the run cache's ids: shared by simace/02, simace/03
    and synthesis/02): dev every ``eval_every`` steps (STS-B dev, the 64-sentence probe batch in two training views),
    the seven STS test sets and the held-out sentences at the end, SentEval's transfer sets for the runs whose name
    is in ``transfer``; ``more``: the ids of further runs of the same kind (no transfer)."""
    model, steps, batch = model or cfg["model"], steps or cfg["steps"], batch or cfg["batch_size"]
    cap, eval_cap = cfg["max_length"], cfg["eval_max_length"]
    dev = t.all("stsb-dev", eval_cap) + 2 * cfg["n_probe"] * t.padded("wiki", cfg["n_probe"], cap)
    end = evaluations(steps, cfg["eval_every"]) * dev + t.all("sts-test", eval_cap) + \
        cfg["n_heldout"] * t.mean("wiki", eval_cap)
    evals = tuple(end + (t.all("senteval", eval_cap) if name in transfer else 0.0) for _ in seeds for name in names)
    ids = _ids(f"simace:{model}" + (":mlm" if mlm else ""), names, seeds) + more
    kind = "dropout-views+mlm" if mlm else "dropout-views"
    return Work(what, model, len(ids), steps, batch, t.padded("wiki", batch, cap), passes=4 if mlm else 2,
                head=MLM_HEAD if mlm else 0.0, head_passes=2 if mlm else 0, head_eval=False,
                eval_tokens=evals + (end,) * len(more), path=f"{kind}/{model}/b{batch}", ids=ids)


def simace_02(cfg, t: Tokens) -> Entry:
    seeds, sigmas = cfg["seeds"], cfg["rbf_sigmas"]
    works = [
        _simace_run(cfg, t, f"{', '.join(SIMACE_02_NAMES)} x {len(seeds)} seeds", SIMACE_02_NAMES, seeds,
                    transfer=MAIN),
        # the RBF grid: every width on the first seed, the width chosen there on the other seeds (known only after
        # the grid: counted as "the chosen one")
        _simace_run(cfg, t, f"RBF: {len(sigmas)} widths x seed {seeds[0]}, the chosen one x {len(seeds) - 1} seeds",
                    [rbf_name(s) for s in sigmas], seeds[:1],
                    more=_ids(f"simace:{cfg['model']}", ["RBF, the chosen width"], seeds[1:]))]
    if cfg.get("roberta_model"):
        works.append(_simace_run(cfg, t, f"{cfg['roberta_model']}: {', '.join(ROBERTA_NAMES)} x {len(seeds)} seeds",
                                 ROBERTA_NAMES, seeds, model=cfg["roberta_model"], steps=cfg["roberta_steps"],
                                 batch=cfg["roberta_batch_size"]))
    if cfg.get("mlm_weight"):
        works.append(_simace_run(cfg, t, f"with MLM (App. J): {', '.join(MAIN)} x {len(seeds)} seeds", list(MAIN),
                                 seeds, transfer=MAIN, mlm=True))
    rounds = cfg["timing_rounds"] * len(MAIN)
    works.append(Work(f"untrained rows (STS, transfer) and Table 8's timing ({rounds} steps)", cfg["model"], 1,
                      rounds, cfg["batch_size"], t.padded("wiki", cfg["batch_size"], cfg["max_length"]), passes=2,
                      eval_tokens=2 * (t.all("sts-test", cfg["eval_max_length"]) +
                                       t.all("senteval", cfg["eval_max_length"])),
                      path=f"dropout-views/{cfg['model']}/b{cfg['batch_size']}"))
    return Entry(tuple(works), "one epoch of wiki1m per run; SentEval transfer on the main three objectives and the "
                               "MLM runs; the transfer probes' logistic regressions are CPU work")


def simace_03(cfg, t: Tokens) -> Entry:
    names = [*MAIN, *CONTROLS]
    return Entry((_simace_run(cfg, t, f"{len(names)} objectives and ablations x {len(cfg['seeds'])} seeds", names,
                              cfg["seeds"]),),
                 "simace/02's runs reloaded from the shared run cache; the margin and tau ablations are new")


def synthesis_02(cfg, t: Tokens) -> Entry:
    from companion.papers.synthesis import theory_trained as tt  # noqa: PLC0415 - loads scipy; this module imports without it
    from companion.papers.synthesis.settings import SIMACE_RUNS  # noqa: PLC0415 - loads torch; this module imports without it

    sim = SIMACE_RUNS("gpu", gpu_grid=cfg.get("gpu_grid", "day"))  # synthesis/02's sim_cfg: simace's run settings
    matched = [tt.matched_name(x) for x in sorted(set(tt.matched_temperatures(sim["batch_size"]).values()))]
    runs = _simace_run(sim, t, f"{', '.join(tt.SIMACE_REFERENCE)} and SimCSE at {len(matched)} matched tau x "
                               f"{len(sim['seeds'])} seeds", [*tt.SIMACE_REFERENCE, *matched], sim["seeds"])
    cap = cfg["max_tokens"]
    heads = Work(f"GPT heads on frozen {cfg['model'].split('/')[-1]} ({cap} tokens): {len(tt.HEAD_LOSSES)} losses "
                 f"x {len(cfg['seeds'])} seeds", "", len(tt.HEAD_LOSSES) * len(cfg["seeds"]), cfg["steps_emolit"],
                 cfg["batch_size"], t.padded("emolit-train", cfg["batch_size"], cap), head=_head_params(),
                 head_passes=1, eval_tokens=t.all("emolit-test", cap), path=f"frozen-head/{cfg['model']}")
    states = Work("the frozen token states of Emolit, once", cfg["model"],
                  eval_tokens=t.all("emolit-train", cap) + t.all("emolit-test", cap))
    return Entry((runs, heads, states), "the SimACE references are simace/02's and 03's runs (shared run cache); "
                                        "the free-vector problems are CPU work")


# ------------------------------------------------------------------------------------------------------- AnglE
def _angle(cfg, t: Tokens, what: str, runs: int, steps: int, source: str, batch: int, select: bool,
           test: float) -> Work:
    """Pair runs: a step embeds ``batch`` pairs (2 x ``batch`` texts padded together, ``buckets=1``); the best STS-B
    dev checkpoint every ``eval_every`` steps when ``select``; ``test``: the tokens of the final evaluation, which
    the score curve repeats every ``steps // curve_points`` steps where the settings record one."""
    cap = cfg["max_length"]
    dev = evaluations(steps, cfg["eval_every"]) * t.all("stsb-dev", cap) if select else 0.0
    points = cfg.get("curve_points") or 0
    curve = steps // max(1, steps // points) * test if points else 0.0
    return Work(what, cfg["model"], runs, steps, batch, 2 * t.padded(source, 2 * batch, cap),
                eval_tokens=dev + test + curve, path=f"angle-pairs/{cfg['model']}/b{batch}")


def angle_02(cfg, t: Tokens) -> Entry:
    from companion.papers.angle.experiments import sts_objectives  # noqa: PLC0415 - loads scipy; this module imports without it

    seeds, cap, b = cfg["seeds"], cfg["max_length"], cfg["batch_size"]
    taus = dict(tau_cos=cfg["tau_cos"], tau_ibn=cfg["tau_ibn"], tau_angle=cfg["tau_angle"])
    with_sbert, without = len(sts_objectives(1.0, **taus, label_max=5.0)), len(sts_objectives(None, **taus))
    nli_steps = cfg["steps_snli"] or NLI_PAIRS // b
    sts7 = t.all("sts-test", cap)
    works = [_angle(cfg, t, f"STS-B: {with_sbert} objectives x {len(seeds)} seeds", with_sbert * len(seeds),
                    cfg["steps_stsb"], "stsb-train", b, True, t.all("stsb-test", cap)),
             _angle(cfg, t, f"MRPC: {with_sbert} objectives x {len(seeds)} seeds", with_sbert * len(seeds),
                    cfg["steps_mrpc"], "mrpc-train", b, False, t.all("mrpc-test", cap)),
             _angle(cfg, t, f"NLI -> 7 STS sets: {without} objectives x {len(seeds)} seeds, one epoch", without *
                    len(seeds), nli_steps, "nli", b, True, sts7)]
    share = cfg.get("batch_epochs", 1.0)  # the share of an NLI epoch each App. A.5 batch size sees
    seen, reuse = round(share * NLI_PAIRS), share == 1.0 and not cfg["steps_snli"]
    works += [_angle(cfg, t, f"App. A.5 batch {size}: AnglE x {len(seeds)} seeds, {share:g} NLI epoch", len(seeds),
                     seen // size, "nli", size, False, sts7) for size in cfg["batch_sizes"] if size != b or not reuse]
    return Entry(tuple(works), f"NLI: about {NLI_PAIRS:,} SNLI + MultiNLI pairs without neutral, lengths of the "
                               "mirror's SNLI dev/test" + ("; the batch-32 NLI runs serve App. A.5 too" if reuse else
                                                          "; App. A.5's batch 32 trains its own share"))


def angle_03(cfg, t: Tokens) -> Entry:
    from companion.papers.angle.pairs import TABLE4_POOLINGS, TABLE4_UPPER_POOLINGS, TABLE4_VARIANTS  # noqa: PLC0415 - loads torch; this module imports without it

    n = len(cfg["seeds"])
    poolings = [p for p in TABLE4_POOLINGS if TABLE4_UPPER_POOLINGS[p] != cfg["pooling"]]  # cls reuses the "all" runs
    extra = 3  # the notebook's `extra` cell: only angle at tau 0.05, all without ISP, SBERT
    runs = (len(TABLE4_VARIANTS) + extra + len(poolings)) * n
    work = _angle(cfg, t, f"Table 4: {len(TABLE4_VARIANTS)} objectives + {extra} extra + {len(poolings)} poolings, "
                          f"x {n} seeds", runs, cfg["steps"], "stsb-train", cfg["batch_size"], True,
                  t.all("stsb-test", cfg["max_length"]))
    return Entry((work,), "the cls pooling row reuses the objective rows' 'all' runs; the term diagnostics "
                          "(8 batches, forward only) are left out")


# -------------------------------------------------------------------------------------------------- circumplex
def _head_params() -> float:
    """A GPT head block as wide as mE5-large (1024, 16 heads), counted from the code's own head on torch's meta
    device (nothing allocated); the nGPT head differs by a few scale vectors."""
    import torch  # noqa: PLC0415 - torch is heavy; this module imports without it

    from companion.papers.circumplex.heads import make_head  # noqa: PLC0415 - loads torch; this module imports without it

    with torch.device("meta"):
        return float(sum(p.numel() for p in make_head("GPT", 1024, n_heads=16).parameters()))


def _circumplex(cfg, t: Tokens, what: str, rows: list[tuple[int, int]], train: str, test: str,
                fracs: list[float] | None = None, ids: tuple[str, ...] = (), extra_eval: float = 0.0) -> Work:
    """Fine-tuned mE5 + head runs; ``rows``: (steps trained, curve evaluations) per run; each curve evaluation and the
    final one encode the test texts (``fracs``: the share of them each run's label subset keeps)."""
    cap, b = cfg["max_tokens"], cfg["batch_size"]
    fracs = fracs or [1.0] * len(rows)
    steps = tuple(s for s, _ in rows)
    return Work(what, cfg["model"], len(rows), steps if len(set(steps)) > 1 else steps[0], b, t.padded(train, b, cap),
                head=_head_params(), head_passes=1,
                eval_tokens=tuple((curve + 1) * f * t.all(test, cap) + extra_eval for (_, curve), f in zip(rows, fracs)),
                path=f"circumplex-finetune/{cfg['model']}", ids=ids)


def _table4_rows(cfg, steps: int, kinds, losses) -> list[tuple[int, int]]:
    """table4_runs' grid for one data set: seed x kind x loss; the first seed's runs record the curve
    (``curve_points`` evaluations up to the budget) and train on to ``probe_factor`` x the budget."""
    rows = []
    for seed in cfg["seeds"]:
        for _ in kinds:
            for _ in losses:
                curve = seed == cfg["seeds"][0]
                trained = steps * cfg["probe_factor"] if curve and cfg["probe_factor"] > 1 else steps
                rows.append((trained, evaluations(trained, steps // cfg["curve_points"]) if curve else 0))
    return rows


def _table4_ids(cfg, data: str, kinds, losses) -> tuple[str, ...]:
    return tuple(f"circumplex:{cfg['model']}:{data}:{kind}:{loss}:{seed}" for seed in cfg["seeds"] for kind in kinds
                 for loss in losses)


def circumplex_02(cfg, t: Tokens) -> Entry:
    from companion.losses.circumplex import LOSSES  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.papers.circumplex.experiments import HEAD_KINDS  # noqa: PLC0415 - loads torch; this module imports without it

    works = []
    for data, steps, train, test in (("Emolit", cfg["steps_emolit"], "emolit-train", "emolit-test"),
                                     ("GoEmotions-9", cfg["steps_go"], "go-train", "go-test")):
        works.append(_circumplex(cfg, t, f"{data}: {len(HEAD_KINDS)} heads x {len(LOSSES)} losses x "
                                     f"{len(cfg['seeds'])} seeds", _table4_rows(cfg, steps, HEAD_KINDS, LOSSES),
                                 train, test, ids=_table4_ids(cfg, data, HEAD_KINDS, LOSSES)))
    return Entry(tuple(works), "mE5 fine-tuned whole with its head; the first seed's runs train on to the probe "
                               "budget for the plateau curve")


def circumplex_03(cfg, t: Tokens) -> Entry:
    from companion.losses.circumplex import LOSSES  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.papers.circumplex.analysis import FIG5B_SUBSETS  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.papers.circumplex.experiments import HEAD_KINDS  # noqa: PLC0415 - loads torch; this module imports without it

    cap, seeds = cfg["max_tokens"], cfg["seeds"]
    n_heads = len(HEAD_KINDS) * len(LOSSES) * len(seeds)
    # per head: its test embeddings, EmoBank; the nGPT SINCERE / CircularCSE heads also GoEmotions' other labels
    extra = t.all("emobank", cap) + 2 * len(seeds) / n_heads * t.all("go-other", cap)
    heads = _circumplex(cfg, t, f"Emolit heads fine-tuned here: {len(HEAD_KINDS)} heads x {len(LOSSES)} losses x "
                                f"{len(seeds)} seeds", [(cfg["steps_emolit"], 0)] * n_heads, "emolit-train",
                        "emolit-test", extra_eval=extra)
    subsets = [k for k in FIG5B_SUBSETS if k != 12]  # 12 labels: the full heads' embeddings, no training
    rows = _table4_rows(cfg, cfg["steps_emolit"], ["nGPT"], ["SINCERE", "CircularCSE"])
    fig5b = _circumplex(cfg, t, f"Fig. 5b: {len(subsets)} label subsets x nGPT x 2 losses x {len(seeds)} seeds",
                        rows * len(subsets), "emolit-train", "emolit-test",
                        fracs=[k / 12 for k in subsets for _ in rows])
    works = [heads, fig5b]
    return Entry(tuple(works), "notebook 02 keeps no fine-tuned encoder, so its Emolit heads are trained again; "
                               "EmoBank's 1,000 test texts (all there are) per head")


def circumplex_04(cfg, t: Tokens) -> Entry:
    from companion.losses.circumplex import LOSSES  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.papers.circumplex import comparison as cmp  # noqa: PLC0415 - loads scipy; this module imports without it

    per_epoch = t.n("emolit-train") // min(cfg["batch_size"], t.n("emolit-train"))
    steps = cmp.steps_per_loss(cfg["epochs"], list(LOSSES), per_epoch, cfg["epochs_by_loss"])
    every = max(1, per_epoch // cfg["curve_per_epoch"])
    probe = {loss: n + cfg["probe_extra_points"] * every for loss, n in steps.items()}
    plan = cmp.grid_plan(kinds=cmp.KINDS, losses=list(LOSSES), seeds=cfg["seeds"], steps=steps, margins=cfg["margins"],
                         curve_every=every, curve_seeds=cfg["seeds"][:1], probe=[tuple(p) for p in cfg["probe"]],
                         probe_steps=probe)
    rows = []
    for r in plan.itertuples():
        trained = int(r.probe_steps or r.steps)
        rows.append((trained, evaluations(trained, int(r.curve_every)) if r.curve_every else 0))
    work = _circumplex(cfg, t, f"{len(cmp.KINDS)} heads x {len(LOSSES)} losses x {len(cfg['seeds'])} seeds + "
                               f"CircularCSE margins {cfg['margins']}", rows, "emolit-train", "emolit-test")
    return Entry((work,), f"the grid of comparison.grid_plan: {per_epoch} steps an epoch, {cfg['epochs']} "
                               "epochs, probes past the budget")


def circumplex_05(cfg, t: Tokens) -> Entry:
    from companion.losses.circumplex import LOSSES  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.papers.circumplex.experiments import HEAD_KINDS  # noqa: PLC0415 - loads torch; this module imports without it

    work = _circumplex(cfg, t, f"Emolit: {len(HEAD_KINDS)} heads x {len(LOSSES)} losses x {len(cfg['seeds'])} "
                               "seeds", _table4_rows(cfg, cfg["steps_emolit"], HEAD_KINDS, LOSSES), "emolit-train",
                       "emolit-test", ids=_table4_ids(cfg, "Emolit", HEAD_KINDS, LOSSES))
    return Entry((work,), "circumplex/02's Emolit runs: the same settings, so the same head-run cache keys")


# ---------------------------------------------------------------------------------------------------- concepts
def _concepts(cfg, t: Tokens, what: str, names, seeds, *, steps: int | None = None, monitor: int = 0,
              ids: bool = False) -> list[Work]:
    """Concept runs of ``names`` x ``seeds``: a step embeds every distinct text of 16 synsets (term, masked
    definition, synonym pair, d2d definitions and, where the condition uses them, the hard negatives) in one
    length-bucketed pass; each run then encodes the evaluation pool and the HH / SH-proxy pools."""
    from companion.papers.concepts.readouts import CONDITIONS  # noqa: PLC0415 - loads torch; this module imports without it

    steps, b, cap = steps or cfg["steps"], cfg["batch"], cfg["max_length"]
    pool = t.all("concepts-eval", cap) + 2 * 2 * cfg.get("n_split_rows", 0) * t.mean("concepts-eval", cap)
    every = evaluations(steps, monitor) * 2 * cfg["n_rows"] * t.mean("concepts-eval", cap) if monitor else 0.0
    out = []
    for hn in (True, False):
        group = [n for n in names if (CONDITIONS[n][1] is not None) == hn]
        if not group:
            continue
        per_step = t.steps["with hard negatives" if hn else "without hard negatives"]
        out.append(Work(f"{what}: {', '.join(group)} x {len(seeds)} seeds", cfg["model"], len(group) * len(seeds),
                        steps, b, per_step / b, eval_tokens=pool + every, path=f"concepts/{cfg['model']}",
                        ids=_ids("concepts", group, seeds) if ids else ()))
    return out


def concepts_03(cfg, t: Tokens) -> Entry:
    seeds = cfg["seeds"]
    works = _concepts(cfg, t, "§5 conditions", cfg["conditions"], seeds, ids=True)
    works += _concepts(cfg, t, f"P1 curves (every {cfg['p1_every']} steps)", ["B1"], seeds, steps=cfg["p1_steps"],
                       monitor=cfg["p1_every"])
    works += _concepts(cfg, t, f"P2 (top {cfg['p2_n_top']} layers)", ["B1"], seeds)
    return Entry(tuple(works), "tokens per step from 400 sampled steps of the gpu recipe's rows, in one "
                               "length-bucketed pass (no padding); the P1 and P2 runs repeat B1's recipe (trained "
                               "again, not reloaded)")


def concepts_04(cfg, t: Tokens) -> Entry:
    cap = cfg["max_length"]
    works = _concepts({**cfg, "n_rows": 0}, t, "B1 (notebook 03's, reloaded when cached)", ["B1"], cfg["seeds"],
                      ids=True)
    frozen = Work(f"frozen {cfg['backbone']}: {cfg['n_backbone_rows']:,} WordNet rows, {cfg['n_definitions']:,} "
                  "definitions, the NP probe", cfg["model"],
                  eval_tokens=(cfg["n_backbone_rows"] * 3 + cfg["n_definitions"] + t.n("concepts-eval") // 5)
                  * t.mean("concepts-eval", cap))
    return Entry(tuple(works) + (frozen,), "the frozen encodings are counted roughly (about three texts a WordNet "
                                           "row; the probe pool as a fifth of notebook 03's)")


def _encode(what: str, model: str, tokens: float) -> Entry:
    return Entry((Work(what, model, eval_tokens=tokens),), "encoding only, no training")


def concepts_01(cfg, t: Tokens) -> Entry:
    e = _encode(f"frozen {cfg['model'].split('/')[-1]}: {cfg['n_texts']:,} masked definitions, every layer",
                cfg["model"], cfg["n_texts"] * t.mean("concepts-eval", 512))
    return Entry(e.works, "encoding only; the synthetic toy model is CPU work")


def concepts_02(cfg, t: Tokens) -> Entry:
    return _encode(f"frozen {cfg['model'].split('/')[-1]}: terms, definitions, hard negatives of {cfg['n_rows']:,} "
                   "rows", cfg["model"], 5 * cfg["n_rows"] * t.mean("concepts-eval", 512))


# --------------------------------------------------------------------------------------------- the rest
def synthesis_01(cfg, t: Tokens) -> Entry:
    from companion.papers.synthesis import zoo  # noqa: PLC0415 - loads scipy; this module imports without it

    cap, b, seeds = cfg["max_length"], cfg["batch_size"], cfg["seeds"]
    evals = t.all("sts-test", cfg["eval_max_length"]) + t.all("stsb-dev", cfg["eval_max_length"]) + \
        t.all("emolit-test", cfg["eval_max_length"])
    per_kind = {"wiki": (t.padded("wiki", b, cap), 2), "stsb": (2 * t.padded("stsb-train", 2 * b, cap), 1),
                "emolit": (t.padded("emolit-train", b, cap), 1)}
    works = []
    for kind in zoo.DATA_KINDS:
        names = [n for n, o in zoo.OBJECTIVES.items() if o.data == kind]
        tokens, passes = per_kind[kind]
        works.append(Work(f"{kind}: {', '.join(names)} x {len(seeds)} seeds", cfg["model"], len(names) * len(seeds),
                          cfg["steps"], b, tokens, passes=passes, eval_tokens=evals,
                          path=f"zoo-{kind}/{cfg['model']}/b{b}"))
    return Entry(tuple(works), "all six MiniLM layers trained over its frozen, cached embeddings")


def baselines_01(cfg, t: Tokens) -> Entry:
    return _encode("all-MiniLM-L6-v2: the seven STS sets, twice (companion and sentence-transformers)",
                   cfg["model"], 2 * t.all("sts-test", cfg["max_length"]))


def _cpu(what: str) -> Callable[[Mapping, Tokens], Entry]:
    return lambda cfg, t: Entry(cpu_class=what)


#: notebook -> its grid (every notebook of the list has one; tests/publish/test_plan.py checks it)
GRIDS: dict[str, Callable[[Mapping, Tokens], Entry]] = {
    "baselines/01-zero-shot-sts": baselines_01,
    "circumplex/01-methodology": _cpu("free unit vectors on the circle, one per loss and seed (no backbone)"),
    "circumplex/02-experiments": circumplex_02,
    "circumplex/03-analysis": circumplex_03,
    "circumplex/04-full-width-heads": circumplex_04,
    "circumplex/05-fine-tuned-backbone": circumplex_05,
    "simace/01-angle-similarity": _cpu("a toy encoder on synthetic points (no backbone)"),
    "simace/02-sts-experiments": simace_02,
    "simace/03-analysis": simace_03,
    "weighted-cl/01-entropic-bound-and-geometry": _cpu("free embeddings by L-BFGS, closed forms (no network)"),
    "weighted-cl/02-supervised-contrastive-geometry": _cpu("free embeddings by L-BFGS and Adam (no network)"),
    "weighted-cl/03-regression-geometry": _cpu("small ConvNets on digit images, free embeddings (no text "
                                               "backbone)"),
    "weighted-cl/04-metrics-and-appendices": _cpu("free embeddings, small digit encoders, MiniLM encodings of a few "
                                                  "hundred class names"),
    "concepts/01-representational-compositionality": concepts_01,
    "concepts/02-data-and-hard-negatives": concepts_02,
    "concepts/03-principles": concepts_03,
    "concepts/04-modifier-families": concepts_04,
    "angle/01-cosine-saturation-and-angle": _cpu("a small MLP on synthetic pairs (no backbone)"),
    "angle/02-sts-experiments": angle_02,
    "angle/03-ablation-and-analysis": angle_03,
    "synthesis/00-errata": _cpu("closed forms and free-vector optimisations (no backbone)"),
    "synthesis/01-similarity-zoo": synthesis_01,
    "synthesis/02-entropic-yardstick": synthesis_02,
}

__all__ = ["GRIDS", "MLM_HEAD", "NLI_PAIRS", "PARAMS", "Entry", "Tokens", "Work", "evaluations"]
