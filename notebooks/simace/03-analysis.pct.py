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
# # SimACE §5: what the angle does to the embedding space, and the margin / temperature ablation
#
# **Paper.** Y. H. Jeong, M. Han, D.-K. Chae, *A Simple Angle-based Approach for Contrastive Learning of
# Unsupervised Sentence Representation* (SimACE), Findings of EMNLP 2024 (anthology 2024.findings-emnlp.318).
#
# **Reproduces, at CPU scale,** Table 14 (margin m ∈ {10°, 0°, −10°}) with the temperature τ ∈ {0.05, 0.06, 0.07},
# and §5's Figs. 2–9: PCA of 1000 Wikipedia sentences (Fig. 2), the alignment–uniformity plane coloured by STS
# average (Fig. 3), positive and negative angles during training (Fig. 4; Fig. 7 for τ), pairwise-angle histograms
# (Fig. 5; Fig. 8 for margins), alignment and uniformity over steps (Fig. 6; Fig. 9 for margins).
#
# **Scale.** Exactly the setting of `02-sts-experiments` (all-MiniLM-L6-v2, only the top layer fine-tuned over
# cached layer-5 states — the lower layers apply no dropout, so the two views differ only by that layer's dropout;
# [CLS] pooling without MLP pooler; `steps` × 64 Wikipedia sentences; STS-B dev every `eval_every` steps with the
# best trained checkpoint kept; the same STS test evaluation). The SimCSE / ArcCon / SimACE runs of 02 are
# **reloaded** from the companion cache (`<cache>/simace/runs/<profile>/`, keyed by a hash of every setting and of
# the data); if 02 has not been run, this notebook trains them itself (standalone, about 2× longer). The ablation
# runs (SimACE with m = 0°, −10° and with τ = 0.05, 0.07) are trained here for `ablation_seeds`; their m = 10°,
# τ = 0.06 reference is 02's SimACE run of the same seed (same batches, paired). The curves come from
# `DevMonitor`: $\ell_{align}$ / $\ell_{uniform}$ as Wang & Isola (plain mean of squared distances over STS-B dev
# pairs with gold > 4; SimACE's Eq. 11 adds a log its figures do not use) and the mean positive / negative angle of
# two training-mode dropout views of a fixed batch of 64 held-out Wikipedia sentences.
#
# **Regime.** MiniLM is already contrastively trained on about a billion sentence pairs and only its top layer is
# fine-tuned for a budget at which STS-B dev is still rising; the paper starts from raw BERT. Every comparison with
# the paper names that regime, which caps its verdict (a reproduction becomes *partly*, a contradiction
# *inconclusive*).
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
import math
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import torch
from sklearn.decomposition import PCA

from companion import stats
from companion.data import load_wiki
from companion.encoders import load_encoder
from companion.metrics.geometry import anisotropy, effective_rank, pairwise_angles
from companion.papers.simace import MAIN, run_cache, run_settings, sts_key
from companion.papers.simace.analysis import analysis_runs
from companion.papers.simace.claims import caption_gap, gap_fields, paper_gap, seed_paired
from companion.profiles import settings
from companion.results import Ledger, show_provenance
from companion.settings import REPO_ROOT
from companion.encoders.upper import UpperEncoder
from companion.sts import score_pairs, sts_pairs_subset

# %% [markdown]
# The run settings are 02's, with this notebook's additions (ablation seeds, the PCA sample):

# %%
# the run settings are 02-sts-experiments' own (companion.papers.simace): its cached runs are keyed by them
cfg = settings(profile, **run_settings(smoke=dict(ablation_seeds=[0], n_pca=40),
                                       cpu=dict(ablation_seeds=[0, 1, 2], n_pca=1000),
                                       # gpu: five seeds (Table 2 caption), 1000 PCA samples (Fig. 2 caption)
                                       gpu=dict(ablation_seeds=[0, 1, 2, 3, 4], n_pca=1000)),
               overrides=dict(seeds=seeds, steps=steps))
if cfg.threads:
    torch.set_num_threads(cfg.threads)
ABLATION = {"SimACE m=0°": ("simace", 0.06, 0.0), "SimACE m=-10°": ("simace", 0.06, -10.0),
            "SimACE τ=0.05": ("simace", 0.05, 10.0), "SimACE τ=0.07": ("simace", 0.07, 10.0)}
RUN_CACHE = run_cache(cfg.profile)
STS_KEY = sts_key(cfg.n_pairs)
ledger = Ledger("simace", "03-analysis", profile=cfg.profile, seeds=cfg.seeds)
sns.set_theme(style="whitegrid", context="notebook")
DATA = REPO_ROOT / "data" / "simace"
table2 = pd.read_csv(DATA / "table2.csv", comment="#").set_index("PLMs")
paper_t14 = pd.read_csv(DATA / "table14.csv", comment="#")
captions = pd.read_csv(DATA / "figures.csv", comment="#")
cfg

# %%
t0 = time.perf_counter()
encoder = load_encoder(cfg.model, pooling=cfg.pooling, max_length=cfg.max_length)  # smoke: a random tiny BERT
base = UpperEncoder(encoder, n_top=cfg.n_top, pooling=cfg.pooling, dropout=cfg.dropout, cache=True)
wiki = list(load_wiki()["text"])
train_texts, heldout = wiki[: len(wiki) - cfg.n_heldout], wiki[len(wiki) - cfg.n_heldout:]
probe = heldout[: cfg.n_probe]
pca_texts = heldout[: cfg.n_pca]  # never trained on
pairs = sts_pairs_subset(cfg.n_pairs, seed=0)
dev = sts_pairs_subset(cfg.n_dev, seed=0, sets=["STS-B"], split="dev")["STS-B"]
base.precompute([t for s1, s2, _ in pairs.values() for t in (*s1, *s2)] + dev[0] + dev[1] + heldout)
base.eval()
pre_scores = score_pairs(base.encode, pairs, average=True)
print(f"{base.extra_repr()}; setup {time.perf_counter() - t0:.0f} s")

# %% [markdown]
# ## Runs: 02's main runs (reloaded) and the ablation runs (trained here)

# %%
jobs = [(name, spec, seed) for seed in cfg.seeds for name, spec in MAIN.items()]
jobs += [(name, spec, seed) for seed in cfg.ablation_seeds for name, spec in ABLATION.items()]
t1 = time.perf_counter()
# one row per run (finals), every run's logged curves, the models of the first seed, and how many were reloaded
finals, curves, models, reloaded = analysis_runs(
    base, train_texts, jobs, steps=cfg.steps, batch_size=cfg.batch_size, lr=cfg.lr, dev=dev,
    eval_every=cfg.eval_every, probe=probe, cache=str(RUN_CACHE), pairs=pairs, score_key=STS_KEY,
    held_out_texts=pca_texts, keep_seed=cfg.seeds[0])
trained = ~finals["from 02's cache"]
print(f"{reloaded} of {len(jobs)} runs reloaded from the cache, {int(trained.sum())} trained here in "
      f"{time.perf_counter() - t1:.0f} s ({finals.loc[trained, 'train s'].sum():.0f} s training, "
      f"{finals.loc[trained, 'monitor s'].sum():.0f} s dev monitoring, {finals.loc[trained, 'sts s'].sum():.0f} s "
      "STS test evaluation)")
summary = finals.groupby("model", sort=False)[["STS avg", "align", "uniform", "pos_angle (last)",
                                              "neg_angle (last)", "best step"]].agg(["mean", "std"])
summary.round(3)

# %% [markdown]
# ## Table 14: margin and temperature ablation
#
# STS average (the same STS evaluation as 02) for SimACE with m ∈ {10°, 0°, −10°} at τ = 0.06 and
# τ ∈ {0.05, 0.06, 0.07} at m = 10°, over the ablation seeds; the m = 10°, τ = 0.06 column is 02's SimACE run of
# the same seeds. Paired differences over seeds (`companion.stats`). The paper's Table 14 (BERT-base rows, one run
# each at seed 42) is shown beside ours; its m = 0 average is 77.08, which Fig. 9's caption gives as 76.69.

# %%
abl = finals[finals.seed.isin(cfg.ablation_seeds) & finals.model.isin(["SimACE", *ABLATION])]
abl_wide = abl.pivot(index="seed", columns="model", values="STS avg").rename(columns={"SimACE": "SimACE m=10° τ=0.06"})
table14 = pd.DataFrame({"mean": abl_wide.mean(), "std": abl_wide.std(ddof=1), "min": abl_wide.min(),
                        "max": abl_wide.max()})
table14.loc["no training ([CLS])", "mean"] = pre_scores["avg"]
display_order = ["SimACE m=10° τ=0.06", "SimACE m=0°", "SimACE m=-10°", "SimACE τ=0.05", "SimACE τ=0.07",
                 "no training ([CLS])"]
table14.loc[display_order].round(3)


# %%
ABL_PAIRS = [("SimACE m=10° τ=0.06", "SimACE m=0°"), ("SimACE m=0°", "SimACE m=-10°"),
             ("SimACE m=10° τ=0.06", "SimACE τ=0.05"), ("SimACE m=10° τ=0.06", "SimACE τ=0.07")]
ablation_tests = stats.paired_table({m: abl_wide[m].tolist() for m in abl_wide.columns}, ABL_PAIRS)
ablation_tests.round(3)

# %%
paper_t14[paper_t14.PLMs == "BERT-base"].drop(columns="source")

# %% [markdown]
# ## Fig. 2 — PCA of 1000 held-out Wikipedia sentences
#
# PCA is fitted **jointly** on the three models' L2-normalised embeddings (the same axes and scales in every
# panel; per-model PCA would hide differences in spread). Seed `seeds[0]`, best checkpoints. Anisotropy (mean
# cosine of random pairs) and effective rank in the titles.

# %%
embs = {"no training": base.encode(pca_texts), "SimCSE": models["SimCSE"].encode(pca_texts),
        "SimACE": models["SimACE"].encode(pca_texts)}
pca = PCA(n_components=2, random_state=0).fit(torch.cat(list(embs.values())).numpy())
fig, axes = plt.subplots(1, 3, figsize=(14, 4.3), sharex=True, sharey=True)
for ax, (name, e) in zip(axes, embs.items()):
    xy = pca.transform(e.numpy())
    ax.scatter(xy[:, 0], xy[:, 1], s=4, alpha=0.5)
    ax.set(title=f"{name}\nanisotropy {anisotropy(e):.3f}, eff. rank {effective_rank(e):.0f}", xlabel="PC1")
axes[0].set_ylabel("PC2")
fig.suptitle(f"Fig. 2: PCA (fitted jointly) of {len(pca_texts)} held-out Wikipedia sentences, seed {cfg.seeds[0]}",
             y=1.02)
fig.tight_layout()
_ = ledger.savefig(fig, "fig2-pca")

# %% [markdown]
# ## Fig. 3 — the alignment–uniformity plane, coloured by STS average
#
# One dot per run (best checkpoint; $\ell_{align}$, $\ell_{uniform}$ on STS-B dev), labels at the mean of each
# configuration; the cross is the untrained model.

# %%
start = curves[curves.step == 0].iloc[0]
fig, ax = plt.subplots(figsize=(8, 5.5))
points = ax.scatter(finals["uniform"], finals["align"], c=finals["STS avg"], cmap="viridis", s=45)
for label, r in finals.groupby("model", sort=False)[["uniform", "align"]].mean().iterrows():
    ax.annotate(label, (r["uniform"], r["align"]), fontsize=8, xytext=(4, 4), textcoords="offset points")
ax.scatter([start["uniform"]], [start["align"]], marker="x", color="red", s=80,
           label=f"no training (STS avg {pre_scores['avg']:.2f})")
fig.colorbar(points, label="STS avg (Spearman × 100)")
ax.set(xlabel="ℓ_uniform (lower = more uniform)", ylabel="ℓ_align (lower = better aligned)",
       title="Fig. 3: alignment vs uniformity on STS-B dev (each dot a run)")
ax.legend(fontsize=8)
fig.tight_layout()
_ = ledger.savefig(fig, "fig3-align-uniform-plane")

# %% [markdown]
# ## Figs. 4 and 7 — positive and negative angles during training
#
# Mean angle between the two training-mode dropout views of the same probe sentence (positive) and between
# different probe sentences (negative), every `eval_every` steps; mean ± sd over seeds.

# %%
tau_names = ["SimACE τ=0.05", "SimACE", "SimACE τ=0.07"]
fig, axes = plt.subplots(2, 2, figsize=(12, 7), sharex=True)
main_curves = curves[curves.model.isin(["SimCSE", "SimACE"])]
tau_curves = curves[curves.model.isin(tau_names) & curves.seed.isin(cfg.ablation_seeds)].replace(
    {"model": {"SimACE": "SimACE τ=0.06"}})
for row, (data, title) in enumerate(((main_curves, f"Fig. 4 ({len(cfg.seeds)} seeds)"),
                                     (tau_curves, f"Fig. 7: SimACE τ ({len(cfg.ablation_seeds)} seeds)"))):
    for col, (y, label) in enumerate((("pos_angle", "positive angle (deg)"), ("neg_angle", "negative angle (deg)"))):
        sns.lineplot(data, x="step", y=y, hue="model", errorbar="sd", ax=axes[row, col], marker="o")
        axes[row, col].set(title=f"{title}: {label}", ylabel=label)
fig.tight_layout()
_ = ledger.savefig(fig, "fig4-fig7-angles-during-training")

# %% [markdown]
# ## Figs. 5 and 8 — pairwise-angle histograms (held-out sentences, seed `seeds[0]`)

# %%
fig, axes = plt.subplots(1, 2, figsize=(13, 4))
for name, e in embs.items():
    sns.kdeplot(pairwise_angles(e).numpy(), ax=axes[0], label=name, fill=True, alpha=0.2)
axes[0].set(title="Fig. 5: angles between distinct sentences", xlabel="pairwise angle (deg)")
angle_stats = {}
for name in ("SimACE", "SimACE m=0°", "SimACE m=-10°"):
    label = "SimACE m=10°" if name == "SimACE" else name
    ang = pairwise_angles(models[name].encode(pca_texts)).numpy()
    angle_stats[label] = {"mean angle": ang.mean(), "sd": ang.std()}
    sns.kdeplot(ang, ax=axes[1], label=label, fill=True, alpha=0.2)
for name, e in embs.items():
    ang = pairwise_angles(e).numpy()
    angle_stats[name] = {"mean angle": ang.mean(), "sd": ang.std()}
axes[1].set(title=f"Fig. 8: margins (seed {cfg.seeds[0]})", xlabel="pairwise angle (deg)")
for ax in axes:
    ax.legend()
fig.tight_layout()
_ = ledger.savefig(fig, "fig5-fig8-angle-histograms")
pd.DataFrame(angle_stats).T.round(2)

# %% [markdown]
# ## Figs. 6 and 9 — alignment and uniformity over steps

# %%
margin_names = ["SimACE", "SimACE m=0°", "SimACE m=-10°"]
margin_curves = curves[curves.model.isin(margin_names) & curves.seed.isin(cfg.ablation_seeds)].replace(
    {"model": {"SimACE": "SimACE m=10°"}})
fig, axes = plt.subplots(2, 2, figsize=(12, 7), sharex=True)
for row, (data, title) in enumerate(((main_curves, f"Fig. 6 ({len(cfg.seeds)} seeds)"),
                                     (margin_curves, f"Fig. 9: margins ({len(cfg.ablation_seeds)} seeds)"))):
    for col, y in enumerate(("align", "uniform")):
        sns.lineplot(data, x="step", y=y, hue="model", errorbar="sd", ax=axes[row, col], marker="o")
        axes[row, col].set(title=f"{title}: ℓ_{y}", ylabel=f"ℓ_{y}")
fig.tight_layout()
_ = ledger.savefig(fig, "fig6-fig9-align-uniform-over-steps")

# %% [markdown]
# ## Claims
#
# Each claim compares the same quantity on both sides: a seed-paired difference of ours against the paper's
# difference (from Table 2, Table 14 or a figure caption). Figure-caption angles are means over the logged training
# steps (step 0, identical for every objective, left out); Fig. 4's "standard deviation" of the negative angle is the
# sd of the negative-angle curve over the logged steps. The paper gives no spread for caption numbers, so where a
# magnitude is compared the tolerance is half the paper's gap.

# %%
still_rising = int((finals["best step"] == cfg.steps).sum())
REGIME = (f"MiniLM is already contrastively trained on ~1B sentence pairs and only its top layer is fine-tuned, "
          f"{cfg.steps} steps of {cfg.batch_size} sentences, with STS-B dev still rising (the best checkpoint is the "
          f"last step in {still_rising} of {len(finals)} runs); the paper fine-tunes raw BERT-base for one epoch")
main_wide = finals[finals.model.isin(list(MAIN))].pivot(index="seed", columns="model")
abl_all = finals[finals.seed.isin(cfg.ablation_seeds)].pivot(index="seed", columns="model")
HALF = "half the paper's gap; the caption gives no spread"

# %% [markdown]
# Fig. 4: the positive angle (mean over training) and the spread of the negative angle, against the caption's gaps
# (`companion.papers.simace.claims`: `caption_gap` reads the caption, `gap_fields` gives the claim's paper value,
# seed-paired difference and criterion).

# %%
eff, src = caption_gap(captions, "Fig. 4", "mean positive angle (degrees)", ("SimACE",), ("SimCSE",))
ledger.claim("fig4-positive-angle", "SimACE keeps a smaller angle between the two views of a sentence than SimCSE "
             "(mean over training)", kind="paper", source=src, regime=REGIME,
             **gap_fields(main_wide, "pos_angle (mean)", "SimACE", "SimCSE", eff, tol=abs(eff) / 2, tol_reason=HALF))
eff, src = caption_gap(captions, "Fig. 4", "std of the negative angle (degrees)", ("SimACE",), ("SimCSE",))
_ = ledger.claim("fig4-negative-angle-spread", "SimACE's negative angle changes more during training than SimCSE's "
                 "(sd of the negative-angle curve)", kind="paper", source=src, regime=REGIME,
                 **gap_fields(main_wide, "neg_angle (sd over steps)", "SimACE", "SimCSE", eff, tol=abs(eff) / 2,
                              tol_reason=HALF))

# %% [markdown]
# §5.2 / Fig. 3 (alignment and uniformity at the selected checkpoint) and App. H / Fig. 5 (and §5.1, Fig. 2:
# SimACE's space is narrower, its pairwise angles smaller): the paper states only the direction.

# %%
ledger.claim("fig3-lower-align", "SimACE has the lower (better) l_align on STS-B dev (selected checkpoint)",
             kind="paper", source="§5.2", regime=REGIME,
             **gap_fields(main_wide, "align", "SimACE", "SimCSE", -1, paper_text="SimACE's alignment better than "
                          "SimCSE's"))
ledger.claim("fig3-higher-uniform", "SimACE has the higher (less uniform) l_uniform on STS-B dev (selected "
             "checkpoint)", kind="paper", source="§5.2", regime=REGIME,
             **gap_fields(main_wide, "uniform", "SimACE", "SimCSE", +1, paper_text="SimACE's uniformity loss higher "
                          "than SimCSE's"))
_ = ledger.claim("fig5-smaller-pairwise-angle", f"SimACE's mean pairwise angle between {len(pca_texts)} held-out "
                 "sentences is smaller than SimCSE's (a narrower space)", kind="paper", source="App. H",
                 regime=REGIME, **gap_fields(main_wide, "held-out mean angle", "SimACE", "SimCSE", -1,
                                             paper_text="SimCSE's average angle higher than SimACE's"))

# %% [markdown]
# Fig. 7: temperature, SimACE at τ 0.07 against 0.05 (ablation seeds).

# %%
for cid, text, quantity, col in [
        ("fig7-tau-positive-angle", "A larger temperature (0.07 vs 0.05) gives SimACE a smaller positive angle",
         "mean positive angle (degrees)", "pos_angle (mean)"),
        ("fig7-tau-negative-angle", "A larger temperature (0.07 vs 0.05) gives SimACE a larger negative angle",
         "mean negative angle (degrees)", "neg_angle (mean)")]:
    eff, src = caption_gap(captions, "Fig. 7", quantity, ("SimACE", "tau = 0.07"), ("SimACE", "tau = 0.05"))
    ledger.claim(cid, text, kind="paper", source=src, regime=REGIME,
                 **gap_fields(abl_all, col, "SimACE τ=0.07", "SimACE τ=0.05", eff, tol=abs(eff) / 2, tol_reason=HALF))

# %% [markdown]
# Table 14 / Fig. 9: margins (ablation seeds; the m = 10° run is 02's SimACE of the same seed), and §4.2 / Table 7:
# τ = 0.06 chosen over 0.07 on STS-B dev.

# %%
t14 = paper_t14[paper_t14.PLMs == "BERT-base"].set_index("Method")["Avg."].astype(float)
single_run_tol = round(1.96 * math.sqrt(2) * float(table2.loc["BERT-base", "SimACE_std"]), 2)
tol_reason_14 = ("Table 14 reports one run per margin: 1.96 x sqrt(2) x Table 2's seed sd of SimACE on BERT-base "
                 f"({float(table2.loc['BERT-base', 'SimACE_std']):.2f})")
for cid, text, a, b, pa, pb in [
        ("t14-margin-10-vs-0", "The 10 deg margin beats no margin on the STS average", "SimACE", "SimACE m=0°",
         "SimACE", "+ m = 0"),
        ("t14-margin-0-vs-minus10", "No margin beats the additive margin (m = -10 deg) on the STS average",
         "SimACE m=0°", "SimACE m=-10°", "+ m = 0", "+ m = -10")]:
    effect = round(float(t14[pa] - t14[pb]), 2)
    ledger.claim(cid, text, kind="paper", source=f"Table 14: {t14[pa]:.2f} - {t14[pb]:.2f}", regime=REGIME,
                 **gap_fields(abl_all, "STS avg", a, b, effect, tol=single_run_tol, tol_reason=tol_reason_14))
ledger.claim("fig9-margin-align", "The 10 deg margin gives better alignment (lower l_align) than no margin",
             kind="paper", source="App. K", regime=REGIME,
             **gap_fields(abl_all, "align", "SimACE", "SimACE m=0°", -1, paper_text="the margin improves alignment"))
_ = ledger.claim("t7-tau-006-over-007", "tau = 0.06 scores higher than 0.07 on STS-B dev (the selection of §4.2's "
                 "grid)", kind="paper", source="§4.2", regime=REGIME,
                 **gap_fields(abl_all, "dev (best)", "SimACE", "SimACE τ=0.07", +1,
                              paper_text="tau 0.06 chosen from the grid 0.06, 0.07"))

# %% [markdown]
# The equal-temperature control: at τ = 0.05 for both, the similarity function is the only difference.

# %%
effect, source, tol, _ = paper_gap(table2, "SimACE", "SimCSE", plm="RoBERTa-base")
cmp = seed_paired(abl_all, "SimACE τ=0.05", "SimCSE", "STS avg")
ledger.claim("equal-tau-simace-vs-simcse", "At equal temperature (0.05 for both) SimACE still beats SimCSE on the "
             "STS average: the similarity function is the only difference", kind="paper",
             source=source, paper_value=effect, ours=cmp,
             criterion=stats.direction(paper_effect=effect, tol=tol,
                                       tol_reason="1.96 x the SE of the paper's 5-seed gap from Table 2's sds"),
             regime=REGIME + "; the paper's equal-tau comparison is RoBERTa-base (Table 7: tau 0.05 for both)",
             note=f"{len(cfg.ablation_seeds)} seeds; SimACE keeps its 10 deg margin")
ledger.table()

# %%
finals.round(3)

# %% [markdown]
# **Summary (cpu profile; main runs seeds 0–4 reloaded from 02, ablation seeds 0–2).**
#
# | Table 14 (STS avg) | ours, MiniLM top layer, 30 steps, 500 pairs/set | paper, BERT-base (one run each) |
# |---|---|---|
# | SimACE m = 10°, τ = 0.06 | 74.73 ± 0.03 | 78.20 |
# | SimACE m = 0° | 74.66 ± 0.18 | 77.08 (Fig. 9's caption: 76.69) |
# | SimACE m = −10° | 74.57 ± 0.27 | 73.46 |
# | SimACE τ = 0.05 (m = 10°) | 74.80 ± 0.02 | — |
# | SimACE τ = 0.07 (m = 10°) | 74.64 ± 0.04 | — |
# | no training ([CLS]) | 73.71 | — |
#
# | claim | ours (seed-paired, 95 % CI) | paper | verdict |
# |---|---|---|---|
# | Fig. 4: positive angle, SimACE − SimCSE (mean over training) | −0.93° [−0.99, −0.87] | −6.79° | partly: direction holds, magnitude far smaller |
# | Fig. 4: sd of the negative-angle curve, SimACE − SimCSE | −0.79° [−0.83, −0.76] | +1.73° | inconclusive: opposite sign, in a regime unlike the paper's |
# | §5.2: ℓ_align, SimACE − SimCSE | −0.0049 [−0.0052, −0.0047] | lower | partly (regime) |
# | §5.2: ℓ_uniform, SimACE − SimCSE | +0.081 [+0.080, +0.083] | higher | partly (regime) |
# | App. H / Fig. 5: mean pairwise angle, SimACE − SimCSE | −1.80° [−1.84, −1.75] | smaller | partly (regime) |
# | Fig. 7: positive angle, τ 0.07 − 0.05 | +0.88° [+0.85, +0.91] | −5.57° | inconclusive: opposite sign (regime) |
# | Fig. 7: negative angle, τ 0.07 − 0.05 | +2.07° [+1.97, +2.17] | +2.15° | partly: matches in size, regime caps it |
# | Table 14: m 10° − 0° | +0.06 [−0.44, +0.57] | +1.12 | inconclusive |
# | Table 14: m 0° − (−10°) | +0.09 [−0.14, +0.32] | +3.62 | inconclusive |
# | App. K / Fig. 9: ℓ_align, m 10° − 0° | +0.0088 [+0.0054, +0.0121] | lower | inconclusive: opposite sign (regime) |
# | §4.2: STS-B dev, τ 0.06 − 0.07 | +0.027 [−0.004, +0.057] | 0.06 chosen | inconclusive: the CI covers 0 |
# | equal τ (0.05): SimACE − SimCSE, STS avg | +0.11 [+0.002, +0.23] | +1.10 (RoBERTa-base) | partly: direction holds, magnitude smaller |
#
# * **The equal-temperature control answers the τ confound.** With both objectives at τ = 0.05 SimACE still beats
#   SimCSE (+0.11 over 3 seeds, CI just above 0), as much as at the paper's unequal temperatures (02: +0.067):
#   in these runs the gap comes from the similarity function, not from τ. It is a tenth of the paper's gap.
# * Geometry: SimACE ends better aligned and less uniform than SimCSE, with a smaller positive angle and a
#   narrower space (mean held-out pairwise angle 60.6° vs 62.4°; 50.8° untrained) — the paper's picture, but the
#   positive-angle gap is 0.9°, not 6.8°, and SimACE's negative angles move *less* than SimCSE's (the paper: more).
# * Temperature and margin read against the paper's Figs. 7 and 9 where the angles are concerned: a larger τ widens
#   SimACE's positive angle here, and removing the margin gives better alignment (ℓ_align 0.122 vs 0.131). Lowering
#   the margin or τ moves the runs along one line (smaller angles, better alignment, worse uniformity). The margin
#   order of Table 14 shows in the means (74.73 > 74.66 > 74.57) but m ≤ 0 makes runs unstable (sd 0.18 and 0.27
#   vs 0.03) and 3 seeds cannot tell. τ = 0.05 scores best on the test average (74.80).
# * All of this is 30 top-layer steps of an already-trained encoder with STS-B dev still rising (the best
#   checkpoint is the last step in all 27 runs): a budget and regime artefact can reverse any of these small
#   effects, which is why no claim here is more than *partly*.
# * Times: 601 s wall on one thread (15 runs reloaded from 02's cache, 12 ablation runs trained here in 547 s: 269 s
#   training, 189 s STS-B dev monitoring, 67 s STS evaluation). Standalone (without 02's cache) it would also train
#   the 15 main runs.

# %%
ledger.save()
show_provenance(ledger)
