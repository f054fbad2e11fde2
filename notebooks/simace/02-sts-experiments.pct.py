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
# Spearman × 100, "all" setting, mean ± sd over seeds, paired tests) with Table 7's model selection (STS-B dev
# every K steps, best checkpoint), the **equal-temperature control**, Table 8's training-time comparison (measured
# side by side) and Table 13's SentEval transfer tasks (a logistic-regression probe on frozen embeddings). The margin
# and temperature ablations (Table 14, Figs. 7–9) and §5's Figs. 2–6 are in `03-analysis`, which reloads these
# runs from the run cache.
#
# **What is scaled (cpu profile), exactly.**
#
# * Backbone all-MiniLM-L6-v2 (6 layers, d = 384; the only encoder available offline) instead of BERT-base /
#   RoBERTa-base. MiniLM is *already* contrastively trained on about a billion sentence pairs; BERT is not.
# * Only the **top transformer layer** is fine-tuned over cached layer-5 states; it is computed for the [CLS] token
#   only (`companion.papers.simace.cls_top`: keys and values of every token, the rest for [CLS]; the same [CLS]
#   output as the full layer, checked below, about 3× cheaper). **The lower layers apply no dropout**, so the two
#   "dropout views" of a sentence differ only by the dropout (p = 0.1) of the trained layer's [CLS] path: closer
#   views than full fine-tuning gives, i.e. easier positives.
# * [CLS] pooling as in the paper, but **no MLP pooler** (a randomly initialised Linear + tanh would dominate a short
#   run). MiniLM's native pooling is the mean: its untrained row is shown, but we do not fine-tune with it (every
#   loss is ≈ 0 at the first batch, section "Which pooling?").
# * `steps` × batch 64 Wikipedia sentences (max length 32) drawn per seed from the 10,914 mirrored
#   `wiki1m_for_simcse` sentences not held out for `03`'s PCA (about 1.9 passes over that pool; the paper: one pass
#   over 1M sentences, 15,625 steps); lr 1e-4 with linear decay (paper 3e-5, raised for the short budget).
# * **Model selection as Table 7, towards the plateau:** STS-B dev (all 1,500 pairs) every `eval_every` steps, the
#   best trained checkpoint kept. The budget is the longest this machine allowed; whether the dev curve is flat over
#   the last third of training is shown and checked below (it is near flat, not flat: the selected checkpoints are
#   the last ones, so they are partly a budget cut).
# * STS: **one fixed random subset of `n_pairs` = 500 pairs per test set** (seed 0; 3,500 pairs), the same for every
#   model, so comparisons stay paired; the untrained rows are also shown on the full sets to calibrate the subset.
# * Seeds: `seeds` (3) per objective, paired (same batches, initial weights and dropout stream per seed); the paper
#   reports 5-seed means ± sd (Table 2).
# * Transfer (Table 13): each classification set's training data subsampled to `n_transfer` items (stratified),
#   the dev and test splits whole; details in that section.
#
# The runs of both notebooks are trained once and cached (weights and histories, keyed by every setting and the
# data): a run trained by either notebook, or by an earlier execution of the same code, is reloaded; the table of
# runs says which. The `gpu` profile holds the paper's settings (BERT-base, full fine-tuning, batch 64, lr 3e-5,
# 15,625 steps, dev every 125 steps).
#
# **Regime.** MiniLM is already a sentence encoder; the paper starts from raw BERT / RoBERTa. What this notebook
# measures is the effect of the three objectives on an encoder that is already contrastively trained. Every claim
# that compares with the paper names that regime, which caps its verdict (a reproduction becomes *partly*, a
# contradiction *inconclusive*); levels (absolute STS or transfer accuracy) are not comparable at all.
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
import pandas as pd
import seaborn as sns
import torch

from companion import stats
from companion.metrics.geometry import anisotropy, mean_negative_angle, mean_positive_angle
from companion.losses.simace import contrastive_loss
from companion.papers.simace import MAIN, run_jobs, run_settings
from companion.papers.simace.analysis import plateau, setup, shared_runs
from companion.papers.simace.claims import gap_fields, paper_gap, seed_paired
from companion.papers.simace.cls_top import check_cls_top
from companion.papers.simace.runs import step_times
from companion.papers.simace.transfer import (SENTEVAL_REGS, TASKS, evaluate_transfer, summarise, task_texts, transfer_sizes,
                                              transfer_tasks)
from companion.profiles import settings
from companion.results import Ledger, at_most, holds, show_provenance
from companion.settings import REPO_ROOT
from companion.sts import COLUMNS, score_pairs, sts_pairs_subset
from companion.training import index_batches, seed_everything

# %% [markdown]
# The run settings are shared with 03 (`companion.papers.simace.RUN_SETTINGS`); this notebook adds the transfer
# probe's sizes:

# %%
cfg = settings(profile, **run_settings(smoke=dict(n_transfer=24, n_transfer_test=24, transfer_folds=2,
                                                  transfer_inner=2, transfer_regs=[1.0], timing_rounds=2),
                                       cpu=dict(n_transfer=1000, n_transfer_test=None, transfer_folds=10,
                                                transfer_inner=3, transfer_regs=list(SENTEVAL_REGS),
                                                timing_rounds=11),
                                       # gpu: SentEval's full sets and its 10-fold protocol (App. J)
                                       gpu=dict(n_transfer=None, n_transfer_test=None, transfer_folds=10,
                                                transfer_inner=5, transfer_regs=list(SENTEVAL_REGS),
                                                timing_rounds=21)),
               overrides=dict(seeds=seeds, steps=steps))
if cfg.threads:
    torch.set_num_threads(cfg.threads)  # shared 2-core machine: one thread per process
ledger = Ledger("simace", "02-sts-experiments", profile=cfg.profile, seeds=cfg.seeds)
sns.set_theme(style="whitegrid", context="notebook")
DATA = REPO_ROOT / "data" / "simace"
table1 = pd.read_csv(DATA / "table1.csv", comment="#")
table2 = pd.read_csv(DATA / "table2.csv", comment="#").set_index("PLMs")
table5 = pd.read_csv(DATA / "table5.csv", comment="#").set_index("Dataset")
table6 = pd.read_csv(DATA / "table6.csv", comment="#").set_index("Dataset")
table8 = pd.read_csv(DATA / "table8.csv", comment="#")
table13 = pd.read_csv(DATA / "table13.csv", comment="#")
cfg

# %% [markdown]
# ## The paper's numbers
#
# From the paper's text (transcribed in `data/simace/`): Table 1 gives one run (seed 42) per method and backbone,
# Table 2 the mean ± sd of the 7-set average over 5 seeds. Our closest backbone is BERT-base (MiniLM is a distilled
# BERT-style encoder); its rows are shown here and compared below. The paper's SimCSE and ArcCon use τ = 0.05 and
# SimACE on BERT τ = 0.06 (Table 7); our main runs use the same temperatures, and the equal-τ control below
# removes that difference.

# %%
paper_t1 = table1[table1.PLMs == "BERT-base"].set_index("Method").drop(columns=["PLMs", "source"])
display(paper_t1)
table2.drop(columns="source")

# %% [markdown]
# ## Model, data and cached lower layers
#
# `setup` (shared with 03) loads MiniLM, builds the trainable top, the training pool, the probe batch, the STS
# subsets and STS-B dev, and computes their lower-layer states (from the encoder's disk cache after the first run).
# The [CLS]-only top layer is checked against the full layer on the STS-B dev sentences (eval mode).

# %%
t0 = time.perf_counter()
env = setup(cfg)
base = env.base
cls_top_error = check_cls_top(env.encoder, env.dev[0][:200])
print(f"{base.extra_repr()}\ntraining pool {len(env.train_texts)} Wikipedia sentences; "
      f"{sum(len(p[0]) for p in env.pairs.values())} STS test pairs ({len(env.sts_texts)} distinct sentences), "
      f"{len(env.dev[0])} STS-B dev pairs\n[CLS]-only top layer vs the full layer: max |difference| "
      f"{cls_top_error:.1e}; setup {time.perf_counter() - t0:.0f} s")

# %% [markdown]
# ## No-training rows (always shown)
#
# [CLS] is the pooling we fine-tune; the mean is MiniLM's native pooling (same cached states, other pooling).

# %%
t1 = time.perf_counter()
native_model = base.fresh(pooling="mean")  # shares the cached lower states
native_model.eval()
no_training = {f"no training ({cfg.pooling})": score_pairs(base.encode, env.pairs, average=True),
               "no training (mean, native)": score_pairs(native_model.encode, env.pairs, average=True)}
rows = {f"{k}, {'subset' if cfg.n_pairs else 'full sets'}": v for k, v in no_training.items()}
full = sts_pairs_subset(None, seed=0)
full_sizes = {name: len(p[0]) for name, p in full.items()}  # pair counts of the full test sets (Table 5)
if cfg.n_pairs is not None:  # the same two rows on the full test sets, to calibrate the subset
    rows.update({f"no training ({cfg.pooling}), full sets": score_pairs(base.encode, full, average=True),
                 "no training (mean, native), full sets": score_pairs(native_model.encode, full, average=True)})
del full
print(f"untrained rows: {time.perf_counter() - t1:.0f} s")
pd.DataFrame(rows).T[list(COLUMNS)].round(2)

# %% [markdown]
# ### Which pooling? The training signal at the start
#
# Two training-mode dropout views of the first batch of seed 0: anisotropy, mean positive and negative angle and
# the three losses. With mean pooling MiniLM's sentences are spread out and the two views nearly identical, so
# every loss is ≈ 0 and gives no gradient; [CLS] states were never trained as sentence embeddings, sit in a
# narrower cone (like BERT's in the paper) and give an informative loss.

# %%
first = [env.train_texts[int(i)] for i in next(index_batches(len(env.train_texts), cfg.batch_size,
                                                             seed=cfg.seeds[0]))]
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
# For each seed every objective gets the same batches (`index_batches(seed)`), the same initial weights and the
# same dropout stream; only the logits differ (`companion.losses.simace`, one shared contrastive core). Besides the
# three objectives at the paper's temperatures, two **equal-τ controls**: SimACE at the baselines' τ = 0.05 and
# SimCSE at SimACE's τ = 0.06. Every `eval_every` steps `DevMonitor` records STS-B dev Spearman (the selection
# score), $\ell_{align}$, $\ell_{uniform}$ and the positive / negative angles of two training-mode views of the
# probe batch (03's Figs. 4 and 6); the best trained checkpoint is evaluated on the seven test sets.

# %%
NAMES = [*MAIN, "SimACE τ=0.05", "SimCSE τ=0.06"]
t1 = time.perf_counter()
finals, curves, models, reloaded = shared_runs(env, cfg, run_jobs(cfg.seeds, NAMES), held_out_texts=env.heldout)
trained = ~finals["from cache"]
print(f"{len(finals)} runs: {reloaded} reloaded from the run cache, {int(trained.sum())} trained now "
      f"({time.perf_counter() - t1:.0f} s)\nper run when trained: {finals['train s'].mean():.0f} s training "
      f"({finals['train s'].mean() / cfg.steps:.3f} s per step), {finals['monitor s'].mean():.0f} s STS-B dev "
      f"monitoring, {finals['sts s'].mean():.1f} s STS test evaluation")
finals[["model", "seed", "STS avg", "best step", "dev (best)", "align", "uniform", "from cache"]].round(3)

# %% [markdown]
# ## STS-B dev towards the plateau (Table 7's selection)
#
# Dev Spearman over the steps, one line per seed; the dot marks the selected (best) checkpoint. `plateau` gives,
# per run, the gain of the dev score over the last third of training: below 0.2 points the curve is flat.

# %%
fig, axes = plt.subplots(1, len(NAMES), figsize=(3.2 * len(NAMES), 3.4), sharey=True)
for ax, name in zip(axes, NAMES):
    for seed, g in curves[curves.model == name].groupby("seed"):
        line, = ax.plot(g["step"], g["dev"], marker=".", label=f"seed {seed}")
        best = finals[(finals.model == name) & (finals.seed == seed)].iloc[0]
        ax.scatter([best["best step"]], [best["dev (best)"]], color=line.get_color(), s=60, zorder=3)
    ax.set(title=name, xlabel="step")
axes[0].set_ylabel("STS-B dev Spearman × 100")
axes[0].legend(fontsize=8)
fig.suptitle("STS-B dev during training (dot: selected checkpoint)", y=1.02)
fig.tight_layout()
_ = ledger.savefig(fig, "table7-dev-curves")
flat = plateau(curves, cfg.steps)
flat.round(3)

# %% [markdown]
# ## The STS table: mean ± sd over seeds, beside the untrained rows and the paper's BERT-base rows
#
# Spearman × 100, seven sets in SentEval's "all" setting (on the fixed subset of `n_pairs` pairs per set), best dev
# checkpoint of each run, beside Table 1's BERT-base rows (one seed, full test sets) and Table 2's 5-seed means.
# Absolute levels are not comparable (other backbone, other regime, 500-pair subsets); only differences are.

# %%
sets = [c for c in COLUMNS if c != "avg"]
agg = finals.groupby("model", sort=False)[sets + ["STS avg"]]
table = agg.mean().map("{:.2f}".format) + " ± " + agg.std(ddof=1).map("{:.2f}".format)
for label, res in no_training.items():
    table.loc[label] = [f"{res[c]:.2f}" for c in sets] + [f"{res['avg']:.2f}"]
paper_rows = paper_t1.rename(index=lambda m: f"paper Table 1 (BERT-base): {m}").astype(str)
paper_rows.columns = sets + ["STS avg"]
t2_rows = pd.DataFrame({"STS avg": [f"{table2.loc['BERT-base', m]:.2f} ± {table2.loc['BERT-base', m + '_std']:.2f}"
                                    for m in MAIN]}, index=[f"paper Table 2 (BERT-base): {m}" for m in MAIN])
pd.concat([table.loc[list(no_training) + NAMES], paper_rows, t2_rows]).fillna("")

# %%
fig, ax = plt.subplots(figsize=(9, 4))
wide = finals.pivot(index="seed", columns="model", values="STS avg")[NAMES]
for seed, row in wide.iterrows():
    ax.plot(NAMES, row.values, marker="o", alpha=0.6, label=f"seed {seed}")
ax.scatter(NAMES, wide.mean(), marker="_", s=900, color="k", label="mean over seeds", zorder=3)
for (label, res), ls in zip(no_training.items(), ("--", ":")):
    ax.axhline(res["avg"], color="gray", ls=ls, label=label)
ax.set(title=f"7-set STS average ({cfg.n_pairs or 'all'} pairs per set), {cfg.steps} steps, best dev checkpoint",
       ylabel="STS avg (Spearman × 100)")
ax.legend(fontsize=8, ncol=2)
fig.tight_layout()
_ = ledger.savefig(fig, "table1-sts-avg-by-objective")

# %% [markdown]
# ## Paired comparisons across seeds, and the equal-τ control
#
# Per seed, the difference in STS average between two runs trained on the same batches from the same start
# (`companion.stats`: mean difference, 95 % t interval, paired t and exact Wilcoxon p, Holm over the tests). The
# last two rows hold the temperature equal, so the similarity function is the only difference. The paper's
# counterpart is the gap between Table 2's 5-seed means (its p-values are in Table 9).

# %%
PAIRS = [("SimACE", "SimCSE"), ("SimACE", "ArcCon"), ("ArcCon", "SimCSE"), ("SimACE τ=0.05", "SimCSE"),
         ("SimACE", "SimCSE τ=0.06"), ("SimACE", "SimACE τ=0.05"), ("SimCSE τ=0.06", "SimCSE")]
tests = stats.paired_table({m: wide[m].tolist() for m in NAMES}, PAIRS)
tests["paper (Table 2, BERT-base)"] = [table2.loc["BERT-base", a.split(" ")[0]] - table2.loc["BERT-base", b.split(
    " ")[0]] if a.split(" ")[0] != b.split(" ")[0] else float("nan") for a, b in PAIRS]
tests.round(3)

# %% [markdown]
# ## Table 8: training time, angle against cosine, measured side by side
#
# One full training step (two dropout views, loss, backward, AdamW) of each objective in turn on the same batch,
# `timing_rounds` rounds (the first a warm-up; the order rotates each round), so machine load affects all alike;
# median seconds per step. Only the logits differ, so the ratio isolates the cost of `arccos`. Here the loss is a larger share of a step than in the
# paper's full BERT fine-tuning (one trained layer, [CLS] only), which makes the comparison stricter. Timings vary
# between runs, so they are shown here and not recorded as a claim.

# %%
timing = step_times(base, env.train_texts, {name: MAIN[name] for name in ("SimCSE", "ArcCon", "SimACE")},
                    rounds=cfg.timing_rounds, batch_size=cfg.batch_size)
minutes = table8[table8.Method == "SimCSE"].set_index("Similarity")["Time"].str.rstrip("min").astype(float)
timing["paper Table 8 (minutes, BERT-base, 1 epoch)"] = [minutes[k] for k in ("Cosine", "ArcCon", "Angular")]
timing["paper ratio to cosine"] = timing["paper Table 8 (minutes, BERT-base, 1 epoch)"] / minutes["Cosine"]
timing.round(3)

# %% [markdown]
# ## Table 13: SentEval transfer tasks, frozen embeddings
#
# A logistic-regression probe (scikit-learn) on frozen, unnormalised embeddings
# (`companion.papers.simace.transfer`): MR, CR, SUBJ and MPQA by stratified 10-fold cross-validation (SentEval's
# fold seed 1111) with the L2 strength chosen inside each training fold from SentEval's grid $2^{-2} … 2^{3}$; SST-2
# with the strength chosen on its dev split, tested on its test split; TREC and MRPC chosen by inner
# cross-validation on train, tested on test; MRPC's feature is $[|u - v|, u \odot v]$. **Deviations:** each
# training set is subsampled to `n_transfer` items (stratified, seed 0; SST-2's train holds 67k phrases), the inner
# selection uses `transfer_inner` folds, and SentEval's MLP-free probe in SimCSE's setting is a PyTorch logistic
# regression with Adam (same model family, other optimiser). First the mirrored sets against Table 6's sizes:

# %%
sizes = transfer_sizes()
ours6 = pd.DataFrame(sizes).T.rename(index={"MRPC": "MPRC"})  # Table 6 prints MRPC as "MPRC"
pd.concat({"ours (mirror)": ours6, "paper Table 6": table6.drop(columns="source")}, axis=1)

# %%
t1 = time.perf_counter()
tasks = transfer_tasks(cfg.n_transfer, seed=0, n_test=cfg.n_transfer_test)
base.precompute(task_texts(tasks))  # lower states once (encoder disk cache), shared by every model below
encoders = {"no training ([CLS])": base, "no training (mean, native)": native_model}
encoders.update({f"{name} seed {seed}": models[(name, seed)] for seed in cfg.seeds for name in MAIN})
transfer_rows = []
for label, model in encoders.items():
    model.eval()
    scores = evaluate_transfer(lambda texts, m=model: m.encode(texts, normalize=False), tasks,
                               folds=cfg.transfer_folds, inner_folds=cfg.transfer_inner, regs=cfg.transfer_regs)
    name, _, seed = label.partition(" seed ")
    transfer_rows.append({"model": name, "seed": int(seed) if seed else None, **scores})
print(f"transfer: {len(tasks)} tasks x {len(encoders)} encoders in {time.perf_counter() - t1:.0f} s "
      f"({len(task_texts(tasks))} distinct texts)")

# %%
transfer = summarise(transfer_rows, [*list(encoders)[:2], *MAIN])
paper13 = table13[table13.PLMs == "BERT-base"].set_index("Method").drop(columns=["PLMs", "source"])
paper13 = paper13.loc[["SimCSE", "ArcCon", "SimACE*"]].rename(index=lambda m: f"paper Table 13 (BERT-base): {m}")
paper13.columns = list(TASKS) + ["avg"]
pd.concat([transfer, paper13]).round(2)

# %%
twide = pd.DataFrame(transfer_rows).dropna(subset=["seed"]).pivot(index="seed", columns="model", values="avg")
stats.paired_table({m: twide[m].tolist() for m in MAIN}, [("SimACE", "SimCSE"), ("SimACE", "ArcCon")]).round(3)

# %% [markdown]
# ## Claims
#
# Gap claims compare our seed-paired mean gap with the gap between Table 2's BERT-base means; the magnitude
# tolerance is 1.96 × the standard error of the paper's gap computed from its own seed sds (5 seeds each). The
# regime (an already-trained encoder, top layer only) caps every verdict.

# %%
n_flat = int(flat["flat"].sum())
REGIME = (f"MiniLM is already contrastively trained on ~1B sentence pairs and only its top layer is fine-tuned "
          f"({cfg.steps} steps of {cfg.batch_size} sentences, STS-B dev flat over the last third in {n_flat} of "
          f"{len(flat)} runs); the paper fine-tunes raw BERT-base for one epoch; our STS uses "
          f"{cfg.n_pairs or 'all'} pairs per set")
TAU_NOTE = {("SimACE", "SimCSE"): "SimACE at tau 0.06, SimCSE at 0.05, as in the paper (Table 7, App. B)",
            ("SimACE", "ArcCon"): "SimACE at tau 0.06, ArcCon at 0.05 (margin 10 deg), as in the paper",
            ("ArcCon", "SimCSE"): "both at tau 0.05; ArcCon adds its 10 deg margin"}
for a, b in PAIRS[:3]:
    effect, source, tol, tol_reason = paper_gap(table2, a, b, plm="BERT-base")
    cmp = seed_paired(wide, a, b)
    ledger.claim(f"t2-{a.lower()}-vs-{b.lower()}", f"{a} beats {b} on the 7-set STS average (seed-paired gap)",
                 kind="paper", source=source, paper_value=effect, ours=cmp,
                 criterion=stats.direction(paper_effect=effect, tol=tol, tol_reason=tol_reason), regime=REGIME,
                 note=f"{TAU_NOTE[(a, b)]}; {a} >= {b} in {sum(v >= 0 for v in cmp.values)} of {cmp.n} seeds")

# %% [markdown]
# The equal-temperature control: the paper's headline is that the angle, not the temperature, makes the gain. Its
# BERT-base gap (Table 2) is at τ 0.06 vs 0.05, so it mixes both; the paper's own equal-τ comparison is RoBERTa-base,
# where Table 7 runs SimACE at the baselines' τ 0.05. Our equal-τ gaps are compared with that RoBERTa-base gap, the
# same quantity (the BERT-base gap is in the note).

# %%
effect, source, tol, tol_reason = paper_gap(table2, "SimACE", "SimCSE", plm="RoBERTa-base")
bert_gap = paper_gap(table2, "SimACE", "SimCSE", plm="BERT-base")[0]
for cid, a, b, t in [("equal-tau-005", "SimACE τ=0.05", "SimCSE", "0.05"),
                     ("equal-tau-006", "SimACE", "SimCSE τ=0.06", "0.06")]:
    ledger.claim(cid, f"At equal temperature ({t} for both) SimACE still beats SimCSE on the STS average: the "
                 "similarity function is the only difference", kind="paper", source=source, paper_value=effect,
                 ours=seed_paired(wide, a, b),
                 criterion=stats.direction(paper_effect=effect, tol=tol, tol_reason=tol_reason), regime=REGIME,
                 note=f"paper: RoBERTa-base, both at 0.05 (Table 7), its only equal-tau gap; its BERT-base gap, "
                      f"SimACE at 0.06 and SimCSE at 0.05, is {bert_gap:+.2f}")

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
                 criterion=stats.inconclusive(f"{len(wide)} seeds per objective cannot order two standard "
                                              "deviations (the 95 % interval of a ratio of two sds from 3 seeds "
                                              "spans a factor of about 6 either way); and the paper's own Table 2 "
                                              "has SimACE's sd above SimCSE's on RoBERTa-base"),
                 note="ours: " + ", ".join(f"{m} {v:.3f}" for m, v in sds.items()))

# %% [markdown]
# Table 13 (App. J): SimACE against SimCSE on the transfer average (the paper states only the direction for
# BERT-base: 85.48 vs 85.41, one run each).

# %%
p13 = table13[table13.PLMs == "BERT-base"].set_index("Method")["Avg."]
tw = pd.concat({"avg": twide}, axis=1)  # (quantity, model) columns, as gap_fields reads them
ledger.claim("t13-simace-vs-simcse", "SimACE beats SimCSE on the SentEval transfer average (frozen-embedding "
             "probe)", kind="paper", source="Table 13",
             regime=REGIME + f"; transfer training sets subsampled to {cfg.n_transfer} items",
             **gap_fields(tw, "avg", "SimACE", "SimCSE", +1,
                          paper_text=f"SimACE {p13['SimACE*']:.2f} > SimCSE {p13['SimCSE']:.2f} (BERT-base, one run)"))
_ = ledger.claim("t13-finetune-vs-no-training", "Fine-tuning MiniLM's [CLS] with SimACE raises its transfer average",
                 kind="beyond", ours=stats.sample(twide["SimACE"] - transfer.loc["no training ([CLS])", "avg"]),
                 criterion=stats.direction(sign=+1), note="the paper has no untrained transfer row")

# %% [markdown]
# What fine-tuning does to MiniLM (beyond the paper), and checks of the set-up (Table 7's model selection at a dev
# plateau, Table 5's and Table 6's set sizes, the [CLS]-only top layer):

# %%
pre_avg = no_training[f"no training ({cfg.pooling})"]["avg"]
ledger.claim("finetune-vs-no-training", "Fine-tuning with SimACE raises MiniLM's [CLS] STS average (best "
             "checkpoint minus the untrained encoder)", kind="beyond",
             ours=stats.sample(wide["SimACE"] - pre_avg), criterion=stats.direction(sign=+1),
             note="the paper's untrained rows (Table 1 first-last) pool raw BERT differently; no counterpart")
ledger.claim("t7-dev-plateau", "STS-B dev is flat over the last third of training (gain < 0.2 points) in every "
             "run, so the selected checkpoint is a dev optimum, not a budget cut", kind="check", source="Table 7",
             ours={f"{r.model} seed {r.seed}": bool(r.flat) for r in flat.itertuples()}, criterion=holds())
ledger.claim("t5-sts-sizes", "Our full STS test sets have Table 5's pair counts", kind="check", source="Table 5",
             ours={name: bool(full_sizes.get(name) == int(table5.loc[name, "test"])) for name in table5.index},
             criterion=holds(), note=str(full_sizes))
ledger.claim("t6-transfer-sizes", "Our transfer sets have Table 6's sizes", kind="check", source="Table 6",
             ours={f"{d} {c}": bool(int(ours6.loc[d, c]) == int(table6.loc[d, c]))
                   for d in table6.index for c in ("train", "valid", "test") if str(table6.loc[d, c]) != "-"},
             criterion=holds())
ledger.claim("cls-top-equals-full", "The [CLS]-only top layer gives the full layer's [CLS] output (eval mode, max "
             "abs. difference over 200 dev sentences)", 0.0, cls_top_error, at_most(1e-4), kind="check")
ledger.table()

# %% [markdown]
# **Summary (cpu profile: seeds 0–2, 320 steps of 64 sentences, STS on 500 pairs per set).**
#
# | STS avg (Spearman × 100) | ours: MiniLM top layer, mean ± sd over 3 seeds | paper Table 1 (BERT-base, seed 42) | paper Table 2 (BERT-base, 5 seeds) |
# |---|---|---|---|
# | no training, [CLS] | 73.71 (full sets 73.63) | — (its untrained row uses first-last pooling: 56.70) | — |
# | no training, mean (MiniLM's native) | 79.43 (full sets 78.84) | — | — |
# | SimCSE (τ 0.05) | 75.89 ± 0.15 | 76.25 | 75.97 ± 0.69 |
# | ArcCon (τ 0.05, m 10°) | 76.12 ± 0.27 | 77.76 | 76.76 ± 0.76 |
# | SimACE (τ 0.06, m 10°) | 76.21 ± 0.29 | 78.20 | 77.46 ± 0.47 |
# | SimACE at τ 0.05 (equal-τ control) | 76.47 ± 0.26 | — | — |
# | SimCSE at τ 0.06 (equal-τ control) | 75.72 ± 0.17 | — | — |
#
# | gap (seed-paired) | ours, 95 % CI | paper (Table 2) | verdict |
# |---|---|---|---|
# | SimACE − SimCSE (τ 0.06 vs 0.05) | +0.32 [−0.02, +0.66] | +1.49 | inconclusive: the CI covers 0 and excludes the paper's gap; regime |
# | SimACE − ArcCon | +0.086 [+0.038, +0.133] | +0.70 | partly: the direction holds in all 3 seeds, a tenth of the size; regime |
# | ArcCon − SimCSE | +0.23 [−0.08, +0.54] | +0.79 | inconclusive |
# | SimACE − SimCSE, both at τ 0.05 | +0.58 [+0.30, +0.86] | +1.10 (RoBERTa-base, both at 0.05) | partly: direction holds, smaller |
# | SimACE − SimCSE, both at τ 0.06 | +0.49 [+0.20, +0.77] | +1.10 (RoBERTa-base, both at 0.05) | partly: direction holds, smaller |
#
# * **The equal-τ control decides the headline here.** With the temperature held equal the angle beats the cosine
#   by about 0.5 points at either τ, more than at the paper's unequal temperatures (+0.32), because τ = 0.06 costs
#   both objectives about 0.2 points in this regime (SimACE 0.06 − 0.05: −0.26; SimCSE: −0.17). The similarity
#   function, not τ, carries SimACE's gain; its size is about half of the paper's own equal-τ gap (RoBERTa-base,
#   +1.10) and a third of its BERT-base gap at unequal temperatures (+1.49).
# * **Regime.** MiniLM is already a contrastively trained sentence encoder and only its top layer is trained, so the
#   levels (76.2 vs the paper's 77.46) are not comparable (`t2-simace-level` inconclusive) and every gap verdict is
#   capped. Three seeds cannot order two seed sds (§4.4's robustness claim: inconclusive; ours SimACE 0.29, SimCSE
#   0.15, the reverse of the paper's order).
# * **Dev plateau.** STS-B dev rises fast for about 100 steps, then slowly (drawn above); the best checkpoint is the
#   last evaluation in every run, and the last third of training still adds 0.17–0.29 points (4 of 15 runs below
#   the 0.2 we call flat; 5–10 % of each run's total dev gain from 79.64): the `t7-dev-plateau` check fails. The
#   selected checkpoints are near, not at, a plateau; that gain is smaller than the equal-τ gaps but as large as the
#   SimACE − SimCSE gap at the paper's temperatures.
# * **Table 13 (transfer).** SimACE 71.93, SimCSE 71.54, ArcCon 71.41 on our probe (paper BERT-base: 85.48, 85.41,
#   85.41): SimACE − SimCSE +0.39 [−0.37, +1.15], inconclusive. Beyond the paper: fine-tuning MiniLM's [CLS] with
#   any of these objectives *lowers* its transfer average (SimACE −0.87 [−1.52, −0.23] against the untrained
#   [CLS], 72.80), while it raises STS by +2.50 [+1.79, +3.21]; MiniLM's native mean pooling stays far ahead on both
#   (79.63 transfer, 79.43 STS).
# * **Table 8 (time).** Measured side by side (10 rounds, order rotating): a SimACE step takes 0.97× and an ArcCon
#   step 1.04× the time of a SimCSE step (about 0.07 s each); the paper's epochs take 1.06× and 1.19×. The angle's
#   `arccos` costs nothing measurable even where the loss is a large share of a step.
# * Checks: Table 5's and Table 6's set sizes (passed), the [CLS]-only top layer equals the full layer (9.5e-07).
# * Times: all 15 runs were reloaded from the run cache (trained by an earlier execution of the same code: 29 s
#   training, 0.09 s per step, and 11 s dev monitoring per run); the untrained rows 23 s; transfer 161 s
#   (11 encoders, 14,098 texts); 206 s wall in all on one thread.

# %%
ledger.save()
show_provenance(ledger)
