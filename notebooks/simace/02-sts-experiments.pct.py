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
# **Paper.** Jeong, Han & Chae, *A Simple Angle-based Approach for Contrastive Learning of Unsupervised Sentence
# Representation* (SimACE), Findings of EMNLP 2024 (anthology 2024.findings-emnlp.318), §4: Tables 1, 2, 7, 8 and
# 13.
#
# Three unsupervised objectives, SimCSE (a cosine), ArcCon (a cosine with an angular margin) and SimACE (an angle
# with a margin), fine-tune an encoder on Wikipedia sentences, each paired with a dropout-perturbed copy of itself,
# and are scored on seven semantic textual similarity (STS) sets by Spearman × 100 over several seeds, the
# checkpoint chosen on the STS benchmark's dev split. Also: an equal-temperature control, training time, and
# transfer to classification through a linear probe. Scale: all-MiniLM-L6-v2, already contrastively trained, instead
# of BERT; top layer only; a short budget. Settings and judging rules follow; the claims table at the end holds the
# computed verdicts.

# %% tags=["colab-setup"]
# @title Colab set-up { display-mode: "form" }
# On Colab: install the companion from its repository and fetch its data (a few minutes, once per
# session); elsewhere: nothing. companion_repository: GitHub "owner/name" (or any address git
# clones); data_mirror: optional, a copy of the data mirror to fetch from instead of each publisher.
companion_repository = ""  # @param {type:"string"}
data_mirror = ""  # @param {type:"string"}
import sys

if "google.colab" in sys.modules:
    import importlib
    import importlib.metadata
    import os
    import re
    import signal
    import subprocess
    import time

    class SetUpStop(Exception):
        def _render_traceback_(self):  # IPython shows this one line instead of a traceback
            return [f"Colab set-up: {self}"]

    def loaded_versions():
        loaded = {name for name in sys.modules if "." not in name}
        owners = importlib.metadata.packages_distributions()
        return {dist: importlib.metadata.version(dist)
                for module in loaded for dist in owners.get(module, ())}

    address = companion_repository.strip()
    if not address:
        raise SetUpStop('set companion_repository (the field above) to the GitHub "owner/name" of the '
                        'companion, then run this cell again')
    if re.fullmatch(r"[\w.-]+/[\w.-]+", address):
        address = f"https://github.com/{address}"
    if not os.path.isdir("/content/companion") and subprocess.run(
            ["git", "clone", "--quiet", "--depth", "1", address, "/content/companion"]).returncode:
        raise SetUpStop(f"git could not clone {address} (see above): check companion_repository")
    before = loaded_versions()
    if subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "/content/companion"]).returncode:
        raise SetUpStop("pip could not install the companion (see above)")
    importlib.invalidate_caches()
    after = loaded_versions()
    upgraded = sorted(dist for dist, version in before.items() if after.get(dist, version) != version)
    if upgraded:
        print(f"Colab set-up: upgraded {', '.join(upgraded)}, already loaded by this session; the runtime "
              "restarts now: run this cell again, then the notebook.", flush=True)
        time.sleep(1)
        os.kill(os.getpid(), signal.SIGKILL)
    from companion.__main__ import main

    mirror = ["--base-url", data_mirror.strip()] if data_mirror.strip() else []
    if main(["data", "fetch", "--dest", "/content/companion-data", *mirror]):
        raise SetUpStop("the data fetch failed (see the errors above); run this cell again to resume it")
    os.environ.update(COMPANION_REPO_ROOT="/content/companion", COMPANION_DATA_DIR="/content/companion-data")

# %% tags=["parameters"]
profile = "cpu"
gpu_grid = "day"  # the gpu profile's grid: "day" (one GPU-day on one H100) or "full" (the paper's)
seeds = None
steps = None
roberta_steps = None

# %%
import time

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
import torch

from companion import stats
from companion.metrics.geometry import anisotropy, mean_negative_angle, mean_positive_angle
from companion.losses.simace import contrastive_loss
from companion.papers.simace import MAIN, ROBERTA_NAMES, rbf_jobs, rbf_name, roberta_settings, run_jobs
from companion.papers.simace.analysis import (gap_stability, plateau, plateau_validity, select_sigma, setup,
                                              shared_runs)
from companion.papers.simace.claims import TABLE2_SEEDS, gap_fields, paper_gap, seed_paired, spread_gap
from companion.papers.simace.cls_top import check_cls_top
from companion.papers.simace.masked_lm import mlm_base
from companion.papers.simace.runs import step_times
from companion.papers.simace.summary import claims_summary, paired_rows, scale_table
from companion.papers.simace.transfer import (TASKS, evaluate_transfer, summarise, task_texts, transfer_sizes,
                                              transfer_tasks)
from companion.papers.simace.settings import STS_EXPERIMENTS
from companion.results import Ledger, at_most, holds, not_testable, show_provenance
from companion.papers.tables import paper_table
from companion.sts import COLUMNS, score_pairs, sts_pairs_subset
from companion.training import index_batches, seed_everything
from companion.display import panel_grid, reader_display

reader_display()  # tables whole, numbers to three significant digits

# %% [markdown]
# ## What runs, at which scale, and how the claims are judged
#
# **Reproduces, at CPU scale,** §4: Tables 1–2 (SimCSE vs ArcCon vs SimACE on STS12–16, STS-B, SICK-R,
# Spearman × 100, "all" setting, mean ± sd over seeds, paired tests) with Table 7's model selection (STS-B dev
# every K steps, best checkpoint), the **equal-temperature control**, Table 8's training-time comparison (measured
# side by side) and Table 13's SentEval transfer tasks (a logistic-regression probe on frozen embeddings). The margin
# and temperature ablations (Table 14, Figs. 7–9) and §5's Figs. 2–6 are in `03-analysis`, which reloads these
# runs from the run cache.
#
# **What is scaled (cpu profile), exactly.** The table after the set-up cell lists every setting beside the
# paper's (read from `data/simace/table7_settings.csv`); in words:
#
# * Encoder: all-MiniLM-L6-v2 (6 layers, d = 384; the only encoder available offline) instead of BERT-base /
#   RoBERTa-base. MiniLM is *already* contrastively trained on about a billion sentence pairs; BERT is not.
# * Only the **top transformer layer** is fine-tuned over cached layer-5 states; it is computed for the [CLS] token
#   only (`companion.papers.simace.cls_top`: keys and values of every token, the rest for [CLS]; the same [CLS]
#   output as the full layer, checked below, about 3× cheaper). **The lower layers apply no dropout**, so the two
#   "dropout views" of a sentence differ only by the dropout (p = 0.1) of the trained layer's [CLS] path: closer
#   views than full fine-tuning gives, i.e. easier positives.
# * [CLS] pooling as in the paper, but **no MLP pooler** (a randomly initialised Linear + tanh would dominate a short
#   run). MiniLM's native pooling is the mean: its untrained row is shown, but we do not fine-tune with it (every
#   loss is ≈ 0 at the first batch, section "Which pooling?").
# * `steps` steps of `batch_size` Wikipedia sentences (at most `max_length` tokens), drawn per seed from the
#   mirrored `wiki1m_for_simcse` sentences not held out for `03`'s PCA (several passes over that pool, against the
#   paper's one pass over the full corpus); learning rate `lr` (above the paper's, for the short budget), decayed
#   linearly to 0 over the `steps`, so the end of training is also the end of the schedule.
# * **Model selection as Table 7:** STS-B dev (all pairs) every `eval_every` steps, the best trained
#   checkpoint kept. Whether each run's dev curve is at its plateau over the last third of training, and whether
#   the compared gaps are stable there, are measured below (`companion.stats.plateau`); every claim on trained runs
#   carries that check.
# * STS test: **one fixed random subset of `n_pairs` pairs per test set** (seed 0), the same for every model,
#   so comparisons stay paired; the untrained rows are also shown on the full sets to calibrate the subset.
# * Seeds: those of the settings, paired (same batches, initial weights and dropout stream per seed); the paper
#   reports 5-seed means ± sd (Table 2).
# * Transfer (Table 13): each classification set's training data subsampled to `n_transfer` items (stratified), the
#   dev and test splits whole; details in that section.
# * App. F's RBF objective (Table 11): its kernel width σ chosen on STS-B dev from the grid `rbf_sigmas` with seed 0
#   only, then trained with every seed at the same budget and batches.
#
# The runs of both notebooks are trained once and cached (weights and histories, keyed by every setting and the
# data): a run trained by either notebook, or by an earlier execution of the same code, is reloaded; the table of
# runs says which. The `gpu` profile holds the paper's Table 7 settings (BERT-base, full fine-tuning, one epoch),
# adds RoBERTa-base runs for the equal-τ claims and trains the three objectives again with App. J's MLM term for
# Table 13's "with MLM" rows (both in their sections below).
#
# **Regime.** MiniLM is already a sentence encoder; the paper starts from raw BERT / RoBERTa. What this notebook
# measures is the effect of the three objectives on an encoder that is already contrastively trained. Every claim
# that compares with the paper names that regime beside its verdict (`scaled: …`); the regime never changes the
# verdict. Levels (absolute STS or transfer accuracy) of different encoders are compared only as the paper states
# them, and read with that in mind.
#
# **Verdicts** are computed, never typed, by one rule (`companion.stats.direction`): our seed-paired CI on the
# paper's side of 0 is *reproduced* when within the tolerance of the paper's gap (1.96 × the SE of the paper's gap
# where Table 2 prints seed sds, otherwise half the gap), else *partly*; on the other side *not reproduced*; covering
# 0 *inconclusive* (or *not reproduced* when it rules the paper's effect out). A failed validity check of our own
# runs (the dev plateau below) makes a claim *inconclusive* (`budget: …`). The claims table and the summary table at
# the end are the results.
#
# The run settings are shared with 03 (`companion.papers.simace.settings.RUN_SETTINGS`); this notebook adds the
# transfer probe's sizes, the RoBERTa-base and the MLM runs (`STS_EXPERIMENTS` there):

# %%
cfg = STS_EXPERIMENTS(profile, gpu_grid=gpu_grid, seeds=seeds, steps=steps, roberta_steps=roberta_steps)
if cfg.threads:
    torch.set_num_threads(cfg.threads)  # shared 2-core machine: one thread per process
ledger = Ledger("simace", "02-sts-experiments", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)
sns.set_theme(style="whitegrid", context="notebook")
table1 = paper_table("simace", "table1", parse=True)
table2 = paper_table("simace", "table2", parse=True).set_index("PLMs")
table5 = paper_table("simace", "table5", parse=True).set_index("Dataset")
table6 = paper_table("simace", "table6", parse=True).set_index("Dataset")
table7_settings = paper_table("simace", "table7_settings", parse=True)
table8 = paper_table("simace", "table8", parse=True)
table11 = paper_table("simace", "table11", parse=True).set_index("Method")
table13 = paper_table("simace", "table13", parse=True)
cfg

# %% [markdown]
# The gpu profile, setting by setting: value, source (paper or authors' code) and why it departs.

# %%
from companion.gpu_settings import gpu_table  # noqa: E402

gpu_table(STS_EXPERIMENTS, cfg)

# %% [markdown]
# ## The paper's numbers
#
# From the paper's text (transcribed in `data/simace/`): Table 1 gives one run (seed 42) per method and backbone,
# Table 2 the mean ± sd of the 7-set average over 5 seeds. Our closest backbone is BERT-base (MiniLM is a distilled
# BERT-style encoder); its rows are shown here and compared below. The paper runs SimACE on BERT at a higher
# temperature than SimCSE and ArcCon (Table 7); our main runs use the paper's temperatures (`MAIN`), and the
# equal-τ control below removes that difference.

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
# What is scaled, ours beside the paper's settings for BERT-base (Table 7, §4.1–4.2):

# %%
scale_table(cfg, len(env.train_texts), table7_settings)

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
# three objectives at the paper's temperatures, two **equal-τ controls**: SimACE at the baselines' τ and SimCSE
# at SimACE's τ (names give τ). Every `eval_every` steps `DevMonitor` records STS-B dev Spearman (the selection
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
# ### App. F: the RBF objective (Table 11's RBF row)
#
# `companion.losses.simace.rbf_loss` (Eq. 15): the Gaussian kernel centred on the anchor, evaluated at every
# candidate of the other view, on L2-normalised embeddings, the kernel value over τ as the logit (SimCSE's τ; the
# docstring gives both decisions and why). The paper grid-searches σ without stating grid or value: here σ is
# chosen on **STS-B dev** (the selected checkpoint's score) from the grid `rbf_sigmas`, with seed 0 only; the chosen
# σ is then trained with every seed, on the same batches as the other objectives. The test sets play no part in
# the choice (their scores are shown, unused).

# %%
grid, grid_curves, grid_models, _ = shared_runs(env, cfg, rbf_jobs(cfg.seeds[:1], cfg.rbf_sigmas),
                                                held_out_texts=env.heldout)
sigma, sigma_table = select_sigma(grid)
RBF_SEL = rbf_name(sigma)
rest = shared_runs(env, cfg, rbf_jobs(cfg.seeds[1:], [sigma]), held_out_texts=env.heldout) if cfg.seeds[1:] else None
keep = grid.model == RBF_SEL
finals = pd.concat([finals, grid[keep]] + ([rest[0]] if rest else []), ignore_index=True)
curves = pd.concat([curves, grid_curves[grid_curves.model == RBF_SEL]] + ([rest[1]] if rest else []),
                   ignore_index=True)
models.update({k: v for k, v in {**grid_models, **(rest[2] if rest else {})}.items() if k[0] == RBF_SEL})
NAMES.append(RBF_SEL)
print(f"selected sigma = {sigma:g} ({RBF_SEL}); RBF runs from the cache: "
      f"{int(grid['from cache'].sum()) + (rest[3] if rest else 0)} of {len(grid) + (len(rest[0]) if rest else 0)}")
sigma_table.round(3)

# %% [markdown]
# ## STS-B dev towards the plateau (Table 7's selection)
#
# Dev Spearman over the steps, one line per seed; the dot marks the selected (best) checkpoint. `plateau` fits a
# line to each run's dev curve over the last third of training (`companion.stats.plateau`): the run is at its
# plateau when the slope's 95 % CI covers 0. A curve still climbing is not at its plateau, whatever the size of the
# climb.

# %%
fig, axes = panel_grid(len(NAMES), panel_height=3.2, sharey=True)
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
flat = plateau(curves)
flat.round(3)

# %% [markdown]
# What the plateau is for: the claims compare *gaps* between objectives, so a run that still climbs matters only if
# the gap still moves. `gap_stability` takes each compared pair's seed-paired STS-B dev gap at every evaluation
# (mean over seeds) and applies the same `companion.stats.plateau` to it: `stable` when the gap's slope over the last
# third has a CI covering 0, or when the gap moves by at most a quarter of its end value there. Each claim's validity
# check (`plateau_validity`) passes when its runs are at their plateau (a climb of at most a quarter of the compared
# dev gap counts as at the plateau), or else when its gap is stable; otherwise the claim is *inconclusive: budget*.
# This is on dev (the curves we log), not test.

# %%
STAB_PAIRS = [("SimACE", "SimCSE"), ("SimACE", "ArcCon"), ("ArcCon", "SimCSE"), ("SimACE τ=0.05", "SimCSE"),
              ("SimACE", "SimCSE τ=0.06"), ("SimACE", RBF_SEL)]
stability = gap_stability(curves, STAB_PAIRS)
stability.round(3)

# %% [markdown]
# ## The STS table: mean ± sd over seeds, beside the untrained rows and the paper's BERT-base rows
#
# Spearman × 100, seven sets in SentEval's "all" setting (on the fixed subset of `n_pairs` pairs per set), best dev
# checkpoint of each run, beside Table 1's BERT-base rows (one seed, full test sets) and Table 2's 5-seed means.
# Absolute levels are not comparable (other backbone, other regime, `n_pairs`-pair subsets); only differences are.

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
# (`companion.stats`: mean difference, 95 % t interval, paired t p, Holm over the tests; the Wilcoxon signed-rank p
# is left out below 6 seeds, where it cannot reach 5 %). The
# last two rows hold the temperature equal, so the similarity function is the only difference. The paper's
# counterpart is the gap between Table 2's 5-seed means (its p-values are in Table 9).

# %%
PAIRS = [("SimACE", "SimCSE"), ("SimACE", "ArcCon"), ("ArcCon", "SimCSE"), ("SimACE τ=0.05", "SimCSE"),
         ("SimACE", "SimCSE τ=0.06"), ("SimACE", "SimACE τ=0.05"), ("SimCSE τ=0.06", "SimCSE")]
tests = paired_rows({m: wide[m].tolist() for m in NAMES}, PAIRS)
tests["paper (Table 2, BERT-base)"] = [table2.loc["BERT-base", a.split(" ")[0]] - table2.loc["BERT-base", b.split(
    " ")[0]] if a.split(" ")[0] != b.split(" ")[0] else float("nan") for a, b in PAIRS]
tests.round(3)

# %% [markdown]
# ## RoBERTa-base: the equal-temperature runs (gpu profile only)
#
# The paper's only equal-τ gap is on RoBERTa-base, where Table 7 runs SimACE at the baselines' τ = 0.05. On the gpu
# profile the equal-τ claims below are therefore graded on RoBERTa-base runs: SimCSE and SimACE at τ = 0.05 (Table
# 7's RoBERTa-base setting) and both at τ = 0.06, with Table 7's RoBERTa-base learning rate and batch size for one
# epoch; everything else (full fine-tuning, the first token `<s>` with the training-only MLP head, dropout, length,
# data, seeds, STS-B dev selection) is the BERT-base runs'. The smoke and cpu profiles have no RoBERTa-base and grade
# those claims on the runs above.

# %%
roberta = cfg.get("roberta_model") is not None
if roberta:
    t1 = time.perf_counter()
    rcfg = roberta_settings(cfg)
    renv = setup(rcfg)
    rfinals, rcurves, _, rreloaded = shared_runs(renv, rcfg, run_jobs(rcfg.seeds, ROBERTA_NAMES),
                                                  held_out_texts=renv.heldout)
    rwide = rfinals.pivot(index="seed", columns="model", values="STS avg")[list(ROBERTA_NAMES)]
    print(f"{rcfg.model}: {len(rfinals)} runs ({rreloaded} from the run cache), {rcfg.steps} steps x "
          f"{rcfg.batch_size}, lr {rcfg.lr:g}, in {time.perf_counter() - t1:.0f} s")
    ragg = rfinals.groupby("model", sort=False)["STS avg"]
    rtable = pd.DataFrame({"STS avg (ours)": ragg.mean().map("{:.2f}".format) + " ± "
                           + ragg.std(ddof=1).map("{:.2f}".format)})
    T2_COLUMN = {"SimCSE": "SimCSE", "SimACE τ=0.05": "SimACE"}  # Table 2's RoBERTa-base rows: both at τ 0.05
    rtable["paper Table 2 (RoBERTa-base)"] = [
        f"{table2.loc['RoBERTa-base', T2_COLUMN[m]]:.2f} ± {table2.loc['RoBERTa-base', T2_COLUMN[m] + '_std']:.2f}"
        if m in T2_COLUMN else "" for m in rtable.index]
    display(rtable.rename(index=lambda n: f"RoBERTa-base: {n}"))
    display(paired_rows({m: rwide[m].tolist() for m in ROBERTA_NAMES},
                        [("SimACE τ=0.05", "SimCSE"), ("SimACE", "SimCSE τ=0.06")]).round(3))
else:
    print(f"{cfg.profile} profile: no RoBERTa-base runs; the equal-τ claims are graded on the runs above")

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
paired_rows({m: twide[m].tolist() for m in MAIN}, [("SimACE", "SimCSE"), ("SimACE", "ArcCon")]).round(3)

# %% [markdown]
# ### Table 13 "with MLM": the auxiliary masked-language-model term (gpu profile only)
#
# App. J also trains each objective with a masked-language-model (MLM) term added, for Table 13's "with MLM" rows,
# and states neither its weight nor its masking. On the gpu profile the three objectives are trained again on
# BERT-base with that term (`companion.papers.simace.masked_lm`): `mlm_weight` times the cross-entropy of the
# backbone's pretrained masked-LM head on masked copies of both views, `mlm_probability` of the tokens chosen with
# BERT's 80 / 10 / 10 rule, the values of SimCSE's released code, whose setup the paper follows; then probed as
# above. No claim grades these runs (the Table 13 claim below compares the rows without MLM): they are shown beside
# the paper's rows. The smoke and cpu profiles skip this section.

# %%
mlm = cfg.get("mlm_weight") is not None
if mlm:
    from types import SimpleNamespace

    t1 = time.perf_counter()
    menv = SimpleNamespace(**{**vars(env), "base": mlm_base(base, cfg.mlm_weight, cfg.mlm_probability)})
    mfinals, _, mmodels, mreloaded = shared_runs(menv, cfg, run_jobs(cfg.seeds, list(MAIN)),
                                                 held_out_texts=env.heldout)
    mlm_rows = []
    for (name, seed), model in mmodels.items():
        model.eval()
        scores = evaluate_transfer(lambda texts, m=model: m.encode(texts, normalize=False), tasks,
                                   folds=cfg.transfer_folds, inner_folds=cfg.transfer_inner, regs=cfg.transfer_regs)
        mlm_rows.append({"model": f"{name} + MLM", "seed": seed, **scores})
    del mmodels
    print(f"MLM runs: {len(mfinals)} ({mreloaded} from the run cache), weight {cfg.mlm_weight:g}, masking "
          f"{cfg.mlm_probability:g}; with the transfer probe {time.perf_counter() - t1:.0f} s")
    bert13 = table13[table13.PLMs == "BERT-base"].reset_index(drop=True)
    above = bert13.Method.where(~bert13.Method.str.startswith("with MLM")).ffill().str.rstrip("*")
    bert13.index = [f"paper Table 13 (BERT-base): {m} + MLM" if w.startswith("with MLM") else
                    f"paper Table 13 (BERT-base): {m}" for w, m in zip(bert13.Method, above)]
    bert13 = bert13.drop(columns=["PLMs", "Method", "source"])
    bert13.columns = list(TASKS) + ["avg"]
    mlm_names = [f"{n} + MLM" for n in MAIN]
    mtransfer = summarise(mlm_rows, mlm_names)
    display(pd.concat([transfer.loc[list(MAIN)], mtransfer, bert13]).round(2))
    mwide = pd.DataFrame(mlm_rows).pivot(index="seed", columns="model", values="avg")
    both = pd.concat([twide[list(MAIN)], mwide[mlm_names]], axis=1)
    display(paired_rows({m: both[m].tolist() for m in both.columns},
                        [*[(f"{n} + MLM", n) for n in MAIN], ("SimACE + MLM", "SimCSE + MLM")]).round(3))
    display(mfinals[["model", "seed", "STS avg", "best step", "dev (best)"]].assign(
        model=mfinals.model + " + MLM").round(3))
else:
    print(f"{cfg.profile} profile: no MLM runs (Table 13's 'with MLM' rows are the gpu profile's)")

# %% [markdown]
# ## The raw-encoder regime: does SimCSE work from a raw masked-language-model BERT?
#
# SimACE's argument is about fine-tuning a **raw** BERT, whose sentence embeddings sit in a narrow cone; the runs
# above start from all-MiniLM-L6-v2, which was already trained contrastively on about a billion pairs. No raw encoder
# installs offline, so `companion.mlm` builds one: a 4-layer, width-256 BERT pretrained here by masked-language
# modelling from random initialisation (its docstring gives the corpus, budget and loss curve; `docs/reference.md`
# how to build it). First its signature: the mean cosine between unrelated sentences (`anisotropy`), the share of
# STS pairs in the cosine's saturation zone (`zone`, sin θ < 0.3), the mean sin θ (`mean_grad`) and zero-shot STS
# (`sts_avg`), against the untrained network it started from and MiniLM; `sts_vs_random` is the STS average minus
# the untrained network's (negative: pretraining lowered it) and `mlm_loss` the build's held-out masked-LM loss (at
# step 0 for the untrained network). The regime label of every claim below says what this encoder is, with these
# numbers (`companion.mlm.signature.raw_regime`).
#
# Then the **gate** (`companion.mlm.finetune`, `GATE_GAIN` and `GATE_SEEDS`), stated before the sweep but after
# pilot runs from this encoder (`PILOT_BEST_GAIN`), as its claim says: SimACE's
# comparisons from this encoder are run only if its baseline works, that is if unsupervised SimCSE, in the setting
# chosen on STS-B dev (SimCSE's own selection) from a small sweep, raises the seven-set STS average by at least the
# gate's number of points over the untrained raw encoder on each of the gate's seeds. The sweep (mean pooling, batch
# 64, dropout 0.1, τ = 0.05, three learning rates, every layer and the embeddings trained, STS-B dev every 40 steps
# and the best checkpoint kept) is cached, so a re-execution reloads it. Where the gate fails, the regime's SimACE
# claims are recorded as *inconclusive* with that reason, never as comparisons of runs that did not learn. The `gpu`
# profile skips this section: its main runs already fine-tune the paper's raw BERT-base.

# %%
from companion.mlm.finetune import GATE_GAIN, GATE_SEEDS, SWEEP, simcse_sweep
from companion.mlm.signature import SIGNATURE_COLUMNS, raw_regime as raw_regime_label, regime_signature
from companion.papers.simace.raw import gate_claim, raw_claims, sweep_table

raw_regime = cfg.profile in SWEEP  # smoke and cpu: the build of this profile; gpu: the main runs are raw BERT-base
if raw_regime:
    signature_rows = regime_signature(cfg.profile)
    display(signature_rows[list(SIGNATURE_COLUMNS)].astype(
        {c: float for c in SIGNATURE_COLUMNS if c != "raw signature"}).round(3))
else:
    print("gpu profile: the main runs above fine-tune BERT-base, the paper's raw encoder; no separate raw regime")

# %%
if raw_regime:
    sweep = simcse_sweep(cfg.profile)
    print(f"gate: at least {GATE_GAIN:g} points on each of seeds {list(GATE_SEEDS)}; chosen on dev: "
          f"{sweep['chosen']}; passed: {sweep['passed']}")
    display(sweep_table(sweep).round(3))

# %% [markdown]
# `dev_start` / `dev_best`: STS-B dev Spearman × 100 of the untrained raw encoder and of the checkpoint kept;
# `sts_before` / `sts_after`: the seven-set STS average of the untrained raw encoder and of that checkpoint; `gain`:
# their difference; `final_loss`: the training loss at the last step. The STS-B dev curve of the chosen setting:

# %%
if raw_regime:
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for run in sweep["runs"]:
        ax.plot([m["step"] for m in run["monitor"]], [m["dev"] for m in run["monitor"]], marker="o",
                label=f"seed {run['settings']['seed']}")
    ax.set(xlabel="step", ylabel="STS-B dev Spearman × 100", title=f"SimCSE from the raw encoder ({sweep['chosen']})")
    ax.legend(fontsize=8)
    ledger.savefig(fig, "raw-simcse-dev")
    plt.show()

# %% [markdown]
# The gate and the raw regime's claims (ids ending in `-raw`; the regime field names the raw encoder).

# %%
if raw_regime:
    RAW_REGIME = (raw_regime_label(cfg.profile, signature_rows) + ", every layer and the embeddings trained, mean "
                  "pooling; paper: BERT-base, full fine-tuning, one epoch, 5 seeds")
    print(RAW_REGIME)
    # claims: "raw-simcse-gate", "t2-simace-vs-simcse-raw", "t2-simace-vs-arccon-raw"
    # claims: "t2-arccon-vs-simcse-raw", "t2-simace-level-raw"
    gate_claim(ledger, sweep)
    raw_claims(ledger, table2, sweep, RAW_REGIME)

# %% [markdown]
# ## Claims
#
# Gap claims compare our seed-paired mean gap with the gap between Table 2's BERT-base means; the magnitude
# tolerance is 1.96 × the standard error of the paper's gap computed from its own seed sds (5 seeds each), passed to
# `stats.direction` as `paper_se`. Each claim on trained runs carries the measured plateau check of its runs
# (`plateau_validity`, above); the regime is stated beside the verdict and does not change it.

# %%
REGIME = (f"all-MiniLM-L6-v2 (already contrastively trained), top layer ([CLS] path) only, {cfg.steps} steps x "
          f"{cfg.batch_size}, {len(cfg.seeds)} seeds, STS on {cfg.n_pairs or 'all'} pairs per set; paper: BERT-base, "
          "full fine-tuning, one epoch, 5 seeds")
TAU_NOTE = {("SimACE", "SimCSE"): "SimACE at tau 0.06, SimCSE at 0.05, as in the paper (Table 7, App. B)",
            ("SimACE", "ArcCon"): "SimACE at tau 0.06, ArcCon at 0.05 (margin 10 deg), as in the paper",
            ("ArcCon", "SimCSE"): "both at tau 0.05; ArcCon adds its 10 deg margin"}
for a, b in PAIRS[:3]:
    effect, source, se = paper_gap(table2, a, b, plm="BERT-base")
    cmp = seed_paired(wide, a, b)
    ledger.claim(f"t2-{a.lower()}-vs-{b.lower()}", f"{a} beats {b} on the 7-set STS average (seed-paired gap)",
                 kind="paper", source=source, paper_value=effect, ours=cmp,
                 criterion=stats.direction(paper_effect=effect, paper_se=se), regime=REGIME,
                 validity=plateau_validity(curves, a, b),
                 note=f"{TAU_NOTE[(a, b)]}; {a} >= {b} in {sum(v >= 0 for v in cmp.values)} of {cmp.n} seeds")

# %% [markdown]
# The equal-temperature control: the paper's headline is that the angle, not the temperature, makes the gain. Its
# BERT-base gap (Table 2) is at unequal temperatures (Table 7), so it mixes both; the paper's own equal-τ comparison
# is RoBERTa-base, where Table 7 runs SimACE at the baselines' τ. Our equal-τ gaps are compared with that
# RoBERTa-base gap, the same quantity (the BERT-base gap is in the note). On the gpu profile our gaps come from the
# RoBERTa-base runs (section above), on the smoke and cpu profiles from the runs of this notebook's encoder.

# %%
effect, source, se = paper_gap(table2, "SimACE", "SimCSE", plm="RoBERTa-base")
bert_gap = paper_gap(table2, "SimACE", "SimCSE", plm="BERT-base")[0]
# gpu profile: the RoBERTa-base runs (section above), the paper's backbone for this gap; otherwise the runs above
eq_wide, eq_curves = (rwide, rcurves) if roberta else (wide, curves)
EQ_REGIME = (f"{rcfg.model}, every layer and the embeddings trained, {rcfg.steps} steps x {rcfg.batch_size}, lr "
             f"{rcfg.lr:g}, {len(rcfg.seeds)} seeds; paper: RoBERTa-base, one epoch, 5 seeds" if roberta else REGIME)
for cid, a, b, t in [("equal-tau-005", "SimACE τ=0.05", "SimCSE", "0.05"),
                     ("equal-tau-006", "SimACE", "SimCSE τ=0.06", "0.06")]:
    ledger.claim(cid, f"At equal temperature ({t} for both) SimACE still beats SimCSE on the STS average: the "
                 "similarity function is the only difference", kind="paper", source=source, paper_value=effect,
                 ours=seed_paired(eq_wide, a, b), criterion=stats.direction(paper_effect=effect, paper_se=se),
                 regime=EQ_REGIME, validity=plateau_validity(eq_curves, a, b),
                 note=f"paper: RoBERTa-base, both at 0.05 (Table 7), its only equal-tau gap; its BERT-base gap, "
                      f"SimACE at 0.06 and SimCSE at 0.05, is {bert_gap:+.2f}")

# %% [markdown]
# Table 11 (App. F): SimACE against the RBF similarity on the STS average. The paper's gap is between its SimACE and
# RBF rows for BERT-base (means over the seeds of Table 2). Table 11 gives no sd for RBF, so the standard error of
# the paper's gap assumes RBF's seed sd equals SimACE's (Table 2, BERT-base): the SE of a gap between two 5-seed
# means. Our σ was chosen on dev with one seed (above). The ♡ rows (DCL, MPT, MET, MAT) are quoted by the paper from
# Nie et al. 2022 and not run here.

# %%
t11 = table11.loc[:, "BERT-base"].astype(float)
t11_gap = round(t11["Ours(SimACE)"] - t11["RBF"], 2)
sd_simace = float(table2.loc["BERT-base", "SimACE_std"])
ledger.claim("t11-simace-vs-rbf", "SimACE beats the RBF similarity (Eq. 15, sigma grid-searched) on the 7-set STS "
             "average", kind="paper", source=f"Table 11: {t11['Ours(SimACE)']:.2f} - {t11['RBF']:.2f}",
             paper_value=t11_gap, ours=seed_paired(wide, "SimACE", RBF_SEL),
             criterion=stats.direction(paper_effect=t11_gap,
                                       paper_se=stats.difference_se(sd_simace, sd_simace, TABLE2_SEEDS)),
             regime=REGIME, validity=plateau_validity(curves, "SimACE", RBF_SEL),
             note=f"BERT-base; RBF: kernel over tau 0.05 on normalised embeddings, sigma {sigma:g} chosen on STS-B "
                  f"dev (seed {cfg.seeds[0]}) from {list(cfg.rbf_sigmas)}; SimACE at tau 0.06 as in Table 7; the "
                  f"paper's SE assumes RBF's sd equals SimACE's {sd_simace:.2f} (Table 11 gives none)")
quoted = [m for m in table11.index if "♡" in m]
_ = ledger.claim("t11-quoted-objectives", "Table 11's quoted objectives (DCL, MPT, MET, MAT) against SimACE",
                 kind="paper", source="Table 11", paper_value={m: float(table11.loc[m, "BERT-base"]) for m in quoted},
                 criterion=not_testable("the paper quotes these rows from Nie et al. 2022 and does not define the "
                                        "objectives (triplet losses, a debiased estimator with its class prior)"))
pd.DataFrame({"paper Table 11 (BERT-base)": t11, "ours (mean over seeds)": pd.Series(
    {"Ours(SimACE)": wide["SimACE"].mean(), "RBF": wide[RBF_SEL].mean()})}).reindex(table11.index).round(2)

# %% [markdown]
# SimACE's level and its seed spread (Table 2). The spread claim is a paired Levene-type comparison on the same
# seeds (`spread_gap`: per seed the scaled absolute deviation from the objective's own mean, whose mean estimates
# sd(SimACE) − sd(SimCSE)), against the paper's difference of the two printed sds.

# %%
r2 = table2.loc["BERT-base"]
ledger.claim("t2-simace-level", "SimACE's 7-set STS average (level, mean over seeds)", kind="paper",
             source="Table 2, BERT-base, SimACE", paper_value=float(r2["SimACE"]), ours=stats.sample(wide["SimACE"]),
             criterion=stats.level(float(r2["SimACE"]), tol=float(r2["SimACE_std"]),
                                   tol_reason="Table 2's seed sd of SimACE on BERT-base"),
             regime=REGIME, validity=plateau_validity(curves, "SimACE"))
sd_gap = round(float(r2["SimACE_std"]) - float(r2["SimCSE_std"]), 2)
sds = {m: float(wide[m].std(ddof=1)) if len(wide) > 1 else float("nan") for m in ("SimACE", "SimCSE")}
_ = ledger.claim("s4.4-seed-robustness", "SimACE varies less across seeds than SimCSE (seed sd of the STS average)",
                 kind="paper", source=f"Table 2: {float(r2['SimACE_std']):.2f} - {float(r2['SimCSE_std']):.2f}",
                 paper_value=sd_gap, ours=spread_gap(wide, "SimACE", "SimCSE"),
                 criterion=stats.direction(paper_effect=sd_gap), regime=REGIME,
                 validity=plateau_validity(curves, "SimACE", "SimCSE"),
                 note="ours: seed sds " + ", ".join(f"{m} {v:.3f}" for m, v in sds.items())
                      + f"; the paper's RoBERTa-base row has SimACE's sd above SimCSE's "
                        f"({float(table2.loc['RoBERTa-base', 'SimACE_std']):.2f} vs "
                        f"{float(table2.loc['RoBERTa-base', 'SimCSE_std']):.2f})")

# %% [markdown]
# Table 13 (App. J): SimACE against SimCSE on the transfer average (for BERT-base the paper gives one run of each and
# no spread, so its gap is judged with the policy's half-gap tolerance).

# %%
p13 = table13[table13.PLMs == "BERT-base"].set_index("Method")["Avg."]
tw = pd.concat({"avg": twide}, axis=1)  # (quantity, model) columns, as gap_fields reads them
t13_gap = round(float(p13["SimACE*"] - p13["SimCSE"]), 2)
ledger.claim("t13-simace-vs-simcse", "SimACE beats SimCSE on the SentEval transfer average (frozen-embedding "
             "probe)", kind="paper", source=f"Table 13: {p13['SimACE*']:.2f} - {p13['SimCSE']:.2f}",
             regime=REGIME + f"; transfer training sets subsampled to {cfg.n_transfer} items",
             validity=plateau_validity(curves, "SimACE", "SimCSE"),
             **gap_fields(tw, "avg", "SimACE", "SimCSE", t13_gap))
_ = ledger.claim("t13-finetune-vs-no-training", "Fine-tuning MiniLM's [CLS] with SimACE raises its transfer average",
                 kind="beyond", ours=stats.sample(twide["SimACE"] - transfer.loc["no training ([CLS])", "avg"]),
                 criterion=stats.direction(sign=+1), regime=REGIME, validity=plateau_validity(curves, "SimACE"),
                 note="the paper has no untrained transfer row")

# %% [markdown]
# The dev plateau (Table 7's selection) and what it is for: the stability of the compared gaps. Both are our own
# checks of the runs, measured on the logged curves; they can fail.

# %%
gains = flat["gain over the last third"]
ledger.claim("t7-dev-plateau", "STS-B dev is at its plateau over the last third of training in every run (a line "
             "fitted there has a slope whose 95 % CI covers 0), so the selected checkpoint is a dev optimum, not a "
             "budget cut", kind="check", source="Table 7",
             ours={f"{r.model} seed {r.seed}": bool(r.flat) for r in flat.itertuples()}, criterion=holds(),
             note=f"dev gain over the last third {gains.min():.3f} to {gains.max():.3f}; the best "
                  f"checkpoint is the last evaluation in {int((flat['best step'] == cfg.steps).sum())} of {len(flat)} "
                  "runs; the learning rate decays linearly to 0, so the last third trains at a lower rate")
_ = ledger.claim("t7-gap-stability", "Each compared STS-B dev gap is stable over the last third of training (the "
                 "gap's slope has a 95 % CI covering 0, or the gap moves by at most a quarter of its end value)",
                 kind="check", source="Table 7",
                 ours={r.pair: bool(r.stable) for r in stability.itertuples()}, criterion=holds(),
                 note="seed-mean dev gap at the start of the last third -> at the end: " + "; ".join(
                     f"{r['pair']}: {r.iloc[1]:+.3f} -> {r['gap at end']:+.3f}" for _, r in stability.iterrows()))

# %% [markdown]
# What fine-tuning does to MiniLM (beyond the paper), and checks of the set-up (Table 5's and Table 6's set sizes,
# the [CLS]-only top layer):

# %%
pre_avg = no_training[f"no training ({cfg.pooling})"]["avg"]
ledger.claim("finetune-vs-no-training", "Fine-tuning with SimACE raises MiniLM's [CLS] STS average (best "
             "checkpoint minus the untrained encoder)", kind="beyond",
             ours=stats.sample(wide["SimACE"] - pre_avg), criterion=stats.direction(sign=+1), regime=REGIME,
             validity=plateau_validity(curves, "SimACE"),
             note="the paper's untrained rows (Table 1 first-last) pool raw BERT differently; no counterpart")
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
# **Summary.** What is tested and how; the numbers and verdicts are the computed table below (and the tables above),
# so they follow the run.
#
# * **Table 2 gaps** (`t2-*`): our seed-paired STS-average gaps SimACE − SimCSE, SimACE − ArcCon, ArcCon − SimCSE
#   against the gaps of Table 2's BERT-base means, magnitude tolerance from the paper's own seed sds; the level of
#   SimACE and §4.4's seed robustness (a paired Levene-type comparison of the two objectives' seed spreads).
# * **Equal-τ controls** (`equal-tau-*`): the same gap with the temperature held equal, against the paper's only
#   equal-τ gap (RoBERTa-base); on the gpu profile our gaps come from RoBERTa-base runs too.
# * **Table 11** (`t11-*`): SimACE − RBF, σ chosen on dev; the quoted rows are not testable.
# * **Table 13** (`t13-*`): the transfer average, a frozen-embedding probe.
# * **Checks**: the dev plateau of every run (`t7-dev-plateau`) and the stability of the compared gaps
#   (`t7-gap-stability`), both measured and able to fail; Table 5's and Table 6's sizes, the [CLS]-only top layer.
#   Table 8's timing is shown, not claimed.
#
# Every claim on trained runs carries its plateau check (`validity` in the ledger): where the runs still climb and
# the compared gap is not stable, the verdict is *inconclusive: budget*. The regime (MiniLM is already
# contrastively trained and only its top layer is fine-tuned; the paper fine-tunes raw BERT) is shown beside each
# verdict and never changes it.

# %%
claims_summary(ledger)

# %%
ledger.save()
show_provenance(ledger)
