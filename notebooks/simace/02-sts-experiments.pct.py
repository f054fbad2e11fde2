# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: -papermill,-execution,-ExecuteTime
#     formats: ipynb,.pct.py:percent
#     notebook_metadata_filter: kernelspec,jupytext
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # SimACE §4: unsupervised fine-tuning and the 7-set STS table
#
# **Paper.** Y. H. Jeong, M. Han, D.-K. Chae, *A Simple Angle-based Approach for Contrastive Learning of
# Unsupervised Sentence Representation* (SimACE), Findings of EMNLP 2024 (anthology 2024.findings-emnlp.318).
#
# **Reproduces, at CPU scale,** §4: Tables 1–2 (SimCSE vs ArcCon vs SimACE on STS12–16, STS-B, SICK-R,
# Spearman × 100, "all" setting, mean ± std over seeds, paired tests) with Table 7's model selection (STS-B dev
# every K steps, best checkpoint). The margin and temperature ablations (Table 14) are in `03-analysis`, which
# also draws Figs. 2–9 from the runs trained here (their weights are cached, see below).
#
# **What is scaled (cpu profile), exactly.**
#
# * Backbone all-MiniLM-L6-v2 (6 layers, d = 384; the only encoder available offline) instead of BERT-base /
#   RoBERTa-base. MiniLM is *already* contrastively trained on 1B sentence pairs; BERT is not.
# * Only the **top transformer layer** is fine-tuned (`companion.encoders.upper.UpperEncoder`, `n_top = 1`): layers 1–5
#   are frozen and run once per sentence, in eval mode. **The lower layers apply no dropout**, so the two
#   "dropout views" of a sentence differ only by the dropout (p = 0.1) of the trained top layer — closer views
#   than full fine-tuning gives, i.e. easier positives.
# * [CLS] pooling, as in the paper, but **no MLP pooler** (a randomly initialised Linear + tanh would dominate a
#   run this short). MiniLM's native pooling is the mean: its no-training row is shown, but we do not fine-tune
#   with it, because every loss is ≈ 0 from the first step (section "Which pooling?"), so it has nothing to learn.
# * `steps` × batch 64 Wikipedia sentences (max length 32) drawn, per seed, from the 10,914 mirrored
#   `wiki1m_for_simcse` sentences not held out for `03`'s PCA (the paper: 1M sentences, 1 epoch ≈ 15.6k steps);
#   lr 1e-4 with linear decay (paper 3e-5; raised for the short budget).
# * Model selection as Table 7, scaled: STS-B dev (all 1,500 pairs) every `eval_every` steps, best checkpoint
#   among the trained ones (step 0 is recorded, not eligible).
# * STS: **one fixed random subset of `n_pairs` = 500 pairs per test set** (seed 0; 3,500 pairs), the same for
#   every model, so comparisons stay paired. The full sets (18.8k pairs, 26,083 distinct sentences) cost 81 s per
#   evaluation in this run (shared machine; ≈ 4× the subset's cost on a quiet core) even though only the trained top
#   layer runs (their layer-5 states come from the encoder's disk cache): 15 runs + 12 ablation runs would not fit
#   the two 15-minute budgets. The no-training rows are shown on
#   both the subset and the full sets, to calibrate the subset.
# * The paper reports 5-seed means ± std (Table 2); we run `seeds` (listed in the provenance) with paired data
#   order, initial weights and dropout stream per seed.
#
# The `gpu` profile holds the paper's settings (BERT-base, full fine-tuning, [CLS] + MLP in training, batch 64,
# lr 3e-5, 15,625 steps, dev every 125 steps). Absolute numbers here are therefore NOT comparable with the paper's;
# only the comparisons between objectives are.
#
# **Regime.** MiniLM is already contrastively trained on about a billion sentence pairs; the paper starts from raw
# BERT / RoBERTa. What this notebook measures is the effect of these three objectives on an encoder that is already a
# sentence encoder, after a budget at which STS-B dev is still rising. Every claim that compares with the paper names
# that regime, which caps its verdict (a reproduction becomes *partly*, a contradiction *inconclusive*).
#
# **Verdicts** (cpu profile): see the claims table and the summary at the end.

# %% tags=["colab-setup"]
# Colab set-up (does nothing elsewhere). No GitHub repository is configured for this copy of the
# companion ([tool.companion] repository in pyproject.toml): there is nothing to install from.
import sys

if "google.colab" in sys.modules:
    raise RuntimeError("This copy names no repository to install the companion from; run the notebook from a clone "
                       "of the repository (README, 'Opening the notebooks').")

# %% tags=["parameters"]
profile = "cpu"
seeds = None
steps = None

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import torch
from tqdm import tqdm

from companion import stats
from companion.data import load_wiki
from companion.encoders import load_encoder
from companion.losses.simace import contrastive_loss
from companion.papers.simace.runs import run_dropout_views
from companion.metrics.geometry import anisotropy, mean_negative_angle, mean_positive_angle
from companion.papers.simace import MAIN, run_cache, run_settings, sts_key
from companion.papers.simace.claims import paper_gap, seed_paired
from companion.profiles import settings
from companion.results import Ledger, holds, show_provenance
from companion.settings import REPO_ROOT
from companion.sts import COLUMNS
from companion.encoders.upper import UpperEncoder
from companion.sts import score_pairs, sts_pairs_subset

# %% [markdown]
# The run settings are shared with 03, which reloads these runs from the cache (`companion.papers.simace`):

# %%
cfg = settings(profile, **run_settings(), overrides=dict(seeds=seeds, steps=steps))
if cfg.threads:
    torch.set_num_threads(cfg.threads)  # shared 2-core machine: one thread per process
RUN_CACHE = run_cache(cfg.profile)  # trained top-layer weights + histories, reused by 03
STS_KEY = sts_key(cfg.n_pairs)  # names the cached STS scores of each run
ledger = Ledger("simace", "02-sts-experiments", profile=cfg.profile, seeds=cfg.seeds)
sns.set_theme(style="whitegrid", context="notebook")
DATA = REPO_ROOT / "data" / "simace"
table1 = pd.read_csv(DATA / "table1.csv", comment="#")
table2 = pd.read_csv(DATA / "table2.csv", comment="#").set_index("PLMs")
table5 = pd.read_csv(DATA / "table5.csv", comment="#").set_index("Dataset")
cfg

# %% [markdown]
# ## The paper's numbers
#
# From the paper's text (transcribed in `data/simace/`): Table 1 gives one run (seed 42) per method and backbone,
# Table 2 the mean ± sd of the 7-set average over 5 seeds. Our closest backbone is BERT-base (MiniLM is a distilled
# BERT-style encoder); its rows are shown here and compared below. Table 2's seed statistics are the paper's
# counterpart of our seed-paired comparisons. The paper's SimCSE and ArcCon runs use τ = 0.05 (App. B) and SimACE on
# BERT τ = 0.06 (Table 7); our runs use the same temperatures, so the gaps compare like with like (03 adds the
# equal-τ control).

# %%
paper_t1 = table1[table1.PLMs == "BERT-base"].set_index("Method").drop(columns=["PLMs", "source"])
paper_t2 = table2.drop(columns="source")
display(paper_t1)
paper_t2

# %% [markdown]
# ## Model, data and cached lower layers
#
# The lower-layer states come from the encoder's disk cache after the first run (computed on first use at about
# 40 long Wikipedia sentences/s and ~100 short STS sentences/s on one loaded thread; measured while writing this
# notebook); the time below is this run's.

# %%
t0 = time.perf_counter()
encoder = load_encoder(cfg.model, pooling=cfg.pooling, max_length=cfg.max_length)  # smoke: a random tiny BERT
base = UpperEncoder(encoder, n_top=cfg.n_top, pooling=cfg.pooling, dropout=cfg.dropout, cache=True)
wiki = list(load_wiki()["text"])
train_texts = wiki[: len(wiki) - cfg.n_heldout]  # the last n_heldout sentences are 03's held-out PCA sample
probe = wiki[len(wiki) - cfg.n_heldout:][: cfg.n_probe]  # fixed probe batch for the angle curves (never trained)
pairs = sts_pairs_subset(cfg.n_pairs, seed=0)
dev = sts_pairs_subset(cfg.n_dev, seed=0, sets=["STS-B"], split="dev")["STS-B"]
sts_texts = list(dict.fromkeys(t for s1, s2, _ in pairs.values() for t in (*s1, *s2)))
t1 = time.perf_counter()
base.precompute(sts_texts + dev[0] + dev[1] + probe)
lower_s = time.perf_counter() - t1
print(f"{base.extra_repr()}\ntraining pool {len(train_texts)} Wikipedia sentences (lower states computed on first "
      f"use); {sum(len(p[0]) for p in pairs.values())} STS test pairs ({len(sts_texts)} distinct sentences), "
      f"{len(dev[0])} STS-B dev pairs ({int((dev[2] > 4).sum())} with gold > 4)\n"
      f"lower states of STS + dev + probe: {lower_s:.0f} s; setup {time.perf_counter() - t0:.0f} s")

# %% [markdown]
# ## No-training rows (always shown)
#
# [CLS] is the pooling we fine-tune; the mean is MiniLM's native pooling (same cached states, other pooling).

# %%
t1 = time.perf_counter()
base.eval()
native_model = base.fresh(pooling="mean")  # shares the cached lower states
no_training = {f"no training ({cfg.pooling})": score_pairs(base.encode, pairs, average=True),
               "no training (mean, native)": score_pairs(native_model.encode, pairs, average=True)}
sts_eval_s = (time.perf_counter() - t1) / 2
rows = {f"{k}, {'subset' if cfg.n_pairs else 'full sets'}": v for k, v in no_training.items()}
if cfg.n_pairs is not None:  # the same two rows on the full test sets, to calibrate the subset
    t1 = time.perf_counter()
    full = sts_pairs_subset(None, seed=0)
    full_sizes = {name: len(p[0]) for name, p in full.items()}  # pair counts of the full test sets (Table 5)
    rows.update({f"no training ({cfg.pooling}), full sets": score_pairs(base.encode, full, average=True),
                 "no training (mean, native), full sets": score_pairs(native_model.encode, full, average=True)})
    print(f"full 7-set STS (26k sentences, top layer only, incl. reading cached lower states): "
          f"{(time.perf_counter() - t1) / 2:.1f} s per model")
    del full
else:
    full_sizes = {name: len(p[0]) for name, p in pairs.items()}
print(f"one STS evaluation on the {cfg.n_pairs or 'full'}-pair subset (top layer only): {sts_eval_s:.1f} s")
pd.DataFrame(rows).T[list(COLUMNS)].round(2)

# %% [markdown]
# ### Which pooling? The training signal at the start
#
# Two training-mode dropout views of the first batch of seed 0: anisotropy, mean positive and negative angle and
# the three losses. With mean pooling MiniLM's sentences are spread out and the two views nearly identical, so
# every loss is ≈ 0 and gives no gradient; [CLS] states were never trained as sentence embeddings, sit in a
# narrower cone (like BERT's in the paper) and give an informative loss.

# %%
from companion.training import index_batches, seed_everything  # noqa: E402

first = [train_texts[int(i)] for i in next(index_batches(len(train_texts), cfg.batch_size, seed=cfg.seeds[0]))]
rows = {}
for label, model in [(cfg.pooling, base), ("mean (native)", native_model)]:
    seed_everything(0)
    model.train()
    with torch.no_grad():
        z1, z2 = model.embed(first), model.embed(first)
    model.eval()
    rows[label] = {"anisotropy": anisotropy(z1), "positive angle (deg)": mean_positive_angle(z1, z2),
                   "negative angle (deg)": mean_negative_angle(z1, z2),
                   **{f"{name} loss": float(contrastive_loss(z1, z2, *spec)) for name, spec in MAIN.items()}}
start_signal = pd.DataFrame(rows)
start_signal.round(4)

# %% [markdown]
# ## Training runs
#
# For each seed, every objective gets the same batches (`index_batches(seed)`), the same initial weights and the
# same dropout RNG stream; only the logits differ (`companion.losses.simace`, one shared contrastive core). Every
# `eval_every` steps `DevMonitor` records STS-B dev Spearman (the selection score), $\ell_{align}$,
# $\ell_{uniform}$ and the positive / negative angles of two training-mode views of the probe batch (used by 03's
# Figs. 4 and 6); the best trained checkpoint is kept and evaluated on the seven test sets. Trained weights and
# histories are saved in the companion cache (`RUN_CACHE`) so that 03 can reload them; this notebook always trains.

# %%
rows, histories = [], []
jobs = [(seed, name) for seed in cfg.seeds for name in MAIN]
for seed, name in tqdm(jobs, desc="runs"):
    objective, tau, margin = MAIN[name]
    run = run_dropout_views(base, train_texts, objective, tau, margin, cfg.steps, cfg.batch_size, cfg.lr, seed,
                            dev=dev, eval_every=cfg.eval_every, probe=probe, cache=str(RUN_CACHE), reuse=False,
                            score_fn=lambda model: score_pairs(model.encode, pairs, average=True), score_key=STS_KEY,
                            desc=f"{name} seed {seed}")
    scores = run["scores"]
    mon = pd.DataFrame(run["monitor"])
    best = mon.set_index("step").loc[run["best_step"]]
    rows.append({"model": name, "seed": seed, **scores, "best step": run["best_step"], "dev (best)": best["dev"],
                 "dev (last)": mon["dev"].iloc[-1], "align": best["align"], "uniform": best["uniform"],
                 "loss first": run["history"][0]["loss"], "loss last": run["history"][-1]["loss"],
                 "train s/step": run["train_s"] / cfg.steps, "monitor s": run["monitor_s"],
                 "sts eval s": run["score_s"]})
    histories.append(mon.assign(model=name, seed=seed))
runs = pd.DataFrame(rows)
print(f"mean training step {runs['train s/step'].mean():.2f} s (batch {cfg.batch_size} x 2 views, top {cfg.n_top} "
      f"layer); dev monitoring {runs['monitor s'].mean():.0f} s per run; STS ({cfg.n_pairs or 'all'} pairs per set) "
      f"{runs['sts eval s'].mean():.0f} s per run")
runs.round(2)

# %% [markdown]
# ## The STS table: mean ± std over seeds, beside the no-training rows
#
# Spearman × 100, seven sets in SentEval's "all" setting (on the fixed subset of `n_pairs` pairs per set), best
# dev checkpoint of each run, beside the paper's BERT-base rows of Table 1 (one seed, full test sets). Absolute levels
# are not comparable (other backbone, other regime, 500-pair subsets); only the differences between objectives are.

# %%
sets = list(COLUMNS)
mean = runs.groupby("model", sort=False)[sets].mean()
std = runs.groupby("model", sort=False)[sets].std(ddof=1)
table = (mean.round(2).astype(str) + " ± " + std.round(2).astype(str)) if len(cfg.seeds) > 1 else \
    mean.round(2).astype(str)
for label, res in no_training.items():
    table.loc[label] = pd.Series(res)[sets].round(2).astype(str)
table = table.loc[list(no_training) + list(MAIN)]
paper_rows = paper_t1.rename(index=lambda m: f"paper Table 1 (BERT-base): {m}")
paper_rows.columns = list(COLUMNS)
pd.concat([table, paper_rows.astype(str)])

# %%
fig, ax = plt.subplots(figsize=(8, 4))
order = list(MAIN)
sns.stripplot(runs, x="model", y="avg", hue="seed", order=order, ax=ax, size=8, palette="deep")
ax.scatter(order, mean.loc[order, "avg"], marker="_", s=900, color="k", label="mean over seeds")
for (label, res), ls in zip(no_training.items(), ("--", ":")):
    ax.axhline(res["avg"], color="gray", ls=ls, label=label)
ax.set(title=f"7-set STS average ({cfg.n_pairs or 'all'} pairs per set), {cfg.steps} steps, best dev checkpoint",
       ylabel="STS avg", xlabel="")
ax.legend(fontsize=8, ncol=2)
fig.tight_layout()
_ = ledger.savefig(fig, "table1-sts-avg-by-objective")

# %% [markdown]
# ## Paired comparisons across seeds
#
# Per seed, the difference in STS average between two objectives trained on the same batches from the same start
# (`companion.stats`: mean difference, 95 % t interval, paired t and exact Wilcoxon p, Holm over the three tests).
# With 5 seeds the smallest attainable two-sided Wilcoxon p is 0.0625. The paper's counterpart is the gap between
# Table 2's 5-seed means (its p-values are in Table 9).

# %%
wide = runs.pivot(index="seed", columns="model", values="avg")
PAIRS = [("SimACE", "SimCSE"), ("SimACE", "ArcCon"), ("ArcCon", "SimCSE")]
tests = stats.paired_table({m: wide[m].tolist() for m in MAIN}, PAIRS)
tests["paper (Table 2, BERT-base)"] = [table2.loc["BERT-base", a] - table2.loc["BERT-base", b] for a, b in PAIRS]
tests.round(3)

# %% [markdown]
# ## Fine-tuning against no training, and the dev curves
#
# The change each objective makes to MiniLM's [CLS] STS average, and STS-B dev Spearman over the steps (mean over
# seeds).

# %%
pre_avg = no_training[f"no training ({cfg.pooling})"]["avg"]
change = runs.assign(change=runs["avg"] - pre_avg).groupby("model", sort=False)["change"]
change.agg(["mean", "std", "min", "max"]).round(2)

# %%
hist = pd.concat(histories, ignore_index=True)
fig, ax = plt.subplots(figsize=(7, 3.6))
sns.lineplot(hist, x="step", y="dev", hue="model", errorbar="sd", marker="o", ax=ax)
ax.set(title="STS-B dev Spearman during training (mean ± sd over seeds)", ylabel="STS-B dev × 100")
fig.tight_layout()
_ = ledger.savefig(fig, "table7-dev-curves")

# %% [markdown]
# ## Claims
#
# Gap claims compare our seed-paired mean gap with the gap between Table 2's BERT-base means; the magnitude
# tolerance is 1.96 × the standard error of the paper's gap computed from its own seed sds (5 seeds each). The
# regime (an already-trained encoder, a budget at which STS-B dev is still rising) caps every verdict.

# %%
still_rising = int((runs["best step"] == cfg.steps).sum())
REGIME = (f"MiniLM is already contrastively trained on ~1B sentence pairs and only its top layer is fine-tuned, "
          f"{cfg.steps} steps of {cfg.batch_size} sentences, with STS-B dev still rising (the best checkpoint is the "
          f"last step in {still_rising} of {len(runs)} runs); the paper fine-tunes raw BERT-base for one epoch and "
          f"keeps its dev-selected best checkpoint; our STS uses {cfg.n_pairs or 'all'} pairs per set")
TAU_NOTE = {("SimACE", "SimCSE"): "SimACE at tau 0.06, SimCSE at 0.05, as in the paper (Table 7, App. B); "
                                  "the equal-tau control is in 03",
            ("SimACE", "ArcCon"): "SimACE at tau 0.06, ArcCon at 0.05 (margin 10 deg), as in the paper",
            ("ArcCon", "SimCSE"): "both at tau 0.05; ArcCon adds its 10 deg margin"}
for a, b in PAIRS:
    effect, source, tol, tol_reason = paper_gap(table2, a, b, plm="BERT-base")
    cmp = seed_paired(wide, a, b)
    ledger.claim(f"t2-{a.lower()}-vs-{b.lower()}", f"{a} beats {b} on the 7-set STS average (seed-paired gap)",
                 kind="paper", source=source, paper_value=effect, ours=cmp,
                 criterion=stats.direction(paper_effect=effect, tol=tol, tol_reason=tol_reason), regime=REGIME,
                 note=f"{TAU_NOTE[(a, b)]}; {a} >= {b} in {sum(v >= 0 for v in cmp.values)} of {cmp.n} seeds")

# %% [markdown]
# SimACE's level and its seed spread (Table 2):

# %%
r2 = table2.loc["BERT-base"]
ledger.claim("t2-simace-level", "SimACE's 7-set STS average (level, mean over seeds)", kind="paper",
             source="Table 2, BERT-base, SimACE", paper_value=float(r2["SimACE"]), ours=stats.sample(wide["SimACE"]),
             criterion=stats.level(float(r2["SimACE"]), tol=float(r2["SimACE_std"]),
                                   tol_reason="Table 2's seed sd of SimACE on BERT-base"),
             regime=REGIME + "; levels of different encoders are not comparable")
sds = {m: float(wide[m].std(ddof=1)) if len(wide) > 1 else float("nan") for m in ("SimACE", "SimCSE")}
_ = ledger.claim("s4.4-seed-robustness", "SimACE varies less across seeds than SimCSE (seed sd of the STS average)",
                 kind="paper", source="Table 2", paper_value=f"SimACE sd {float(r2['SimACE_std']):.2f} < SimCSE sd "
                 f"{float(r2['SimCSE_std']):.2f} (BERT-base)",
                 ours={f"{m} sd": round(v, 4) for m, v in sds.items()},
                 criterion=stats.inconclusive(f"{len(wide)} seeds per objective cannot order two standard deviations (with 5 "
                                              "seeds the 95 % interval of a ratio of two sds spans a factor of about 3 "
                                              "either way); and the paper's own Table 2 has SimACE's sd above SimCSE's "
                                              "on RoBERTa-base"),
                 note="ours: " + ", ".join(f"{m} {v:.3f}" for m, v in sds.items()))

# %% [markdown]
# What fine-tuning does to MiniLM (beyond the paper), and two checks of the set-up (Table 7's model selection,
# Table 5's set sizes):

# %%
ledger.claim("finetune-vs-no-training", "Fine-tuning with SimACE changes MiniLM's [CLS] STS average (best "
             "checkpoint minus the untrained encoder)", kind="beyond",
             ours=stats.sample(wide["SimACE"] - pre_avg), criterion=stats.direction(sign=+1),
             note="the paper's untrained rows (Table 1 first-last) pool raw BERT differently; no counterpart")
ledger.claim("t7-dev-plateau", "STS-B dev has levelled off by the end of training (the best checkpoint is not the "
             "last evaluation), so the selected checkpoint is Table 7's dev-best, not a budget cut",
             kind="check", source="Table 7",
             ours={f"{m} seed {s}": bool(r["best step"] < cfg.steps) for (m, s), r in
                   runs.set_index(["model", "seed"]).iterrows()}, criterion=holds())
ledger.claim("t5-sts-sizes", "Our full STS test sets have Table 5's pair counts", kind="check", source="Table 5",
             ours={name: bool(full_sizes.get(name) == int(table5.loc[name, "test"])) for name in table5.index},
             criterion=holds(), note=str(full_sizes))
ledger.table()

# %% [markdown]
# **Summary (cpu profile, seeds 0–4, 30 steps).**
#
# | STS avg (Spearman × 100) | ours: MiniLM top layer, 500 pairs/set | paper: BERT-base, Table 2 (5 seeds) |
# |---|---|---|
# | no training, [CLS] | 73.71 (full sets 73.63) | — (Table 1's untrained row uses first-last pooling: 56.70) |
# | no training, mean (MiniLM's native) | 79.43 (full sets 78.84) | — |
# | SimCSE (τ 0.05) | 74.66 ± 0.05 | 75.97 ± 0.69 |
# | ArcCon (τ 0.05, m 10°) | 74.66 ± 0.02 | 76.76 ± 0.76 |
# | SimACE (τ 0.06, m 10°) | 74.72 ± 0.02 | 77.46 ± 0.47 |
#
# | gap (seed-paired) | ours, 95 % CI | paper (Table 2) | verdict |
# |---|---|---|---|
# | SimACE − SimCSE | +0.067 [−0.002, +0.136], p = 0.054 | +1.49 | inconclusive: the CI covers 0 and excludes the paper's +1.49, but the regime differs |
# | SimACE − ArcCon | +0.067 [+0.050, +0.085], p = 0.0005 | +0.70 | partly: the direction holds (5 of 5 seeds), in a regime unlike the paper's |
# | ArcCon − SimCSE | −0.000 [−0.053, +0.052], p = 0.99 | +0.79 | inconclusive: no difference here; the paper's +0.79 lies outside the CI, but the regime differs |
#
# * The regime decides what these numbers can say. MiniLM is already a contrastively trained sentence encoder, only
#   its top layer is trained, and STS-B dev is still rising when training stops: the best checkpoint is the last
#   step in all 15 runs (the `t7-dev-plateau` check fails), so Table 7's model selection is only nominal here. The
#   gaps are those of 30 top-layer steps, not of a converged run from raw BERT. SimACE's level (74.72) is not
#   comparable with the paper's 77.46 (other encoder, STS subsets): inconclusive.
# * SimACE's gain over SimCSE is largest on STS12–14 (+0.12 to +0.21) and slightly negative on STS15 (−0.07).
#   SimACE runs at τ = 0.06 and SimCSE at 0.05, as in the paper; 03 adds the equal-τ control.
# * Seed spread: SimACE 0.022, SimCSE 0.046 (sd over 5 seeds). Five seeds cannot order two standard deviations,
#   so §4.4's robustness claim is inconclusive here.
# * Geometry at the selected checkpoint: SimACE has the lower $\ell_{align}$ (0.13 vs 0.14) and the higher (less
#   uniform) $\ell_{uniform}$ (−2.24 vs −2.32); 03 tests these with seed CIs.
# * Beyond the paper: fine-tuning with SimACE lifts MiniLM's [CLS] average by +1.02 [+0.99, +1.04], yet it stays
#   about 4.7 points below untrained mean pooling. With mean pooling the two dropout views are 9° apart and the
#   negatives 87°, so every loss is 0.0000 at the first batch: dropout-view training has nothing to learn there.
# * Checks: our full STS test sets have Table 5's pair counts (passed).
# * Times: 975 s wall on one thread from an empty encoder cache (lower-layer states of the STS subsets, dev and probe
#   69 s; of the full sets 89 s); 15 runs in 12.5 min (0.95 s per training step, 16 s of STS-B dev monitoring and
#   5 s of STS evaluation per run); the full-set no-training evaluations 67 s per model.

# %%
ledger.save()
show_provenance(ledger)
