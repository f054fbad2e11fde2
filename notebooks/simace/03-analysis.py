# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/OWNER/REPO/blob/main/notebooks/simace/03-analysis.ipynb)
#
# **Paper.** Y. H. Jeong, M. Han, D.-K. Chae, *A Simple Angle-based Approach for Contrastive Learning of
# Unsupervised Sentence Representation* (SimACE), Findings of EMNLP 2024 (anthology 2024.findings-emnlp.318).
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
# **Verdicts (cpu profile; main runs seeds 0–4 from 02, ablation seeds 0–2).** Reproduced in every seed, with large
# paired t statistics: SimACE ends with the smaller positive angle (27.1° vs 28.1°), the lower $\ell_{align}$
# (0.131 vs 0.136) and the higher, i.e. less uniform, $\ell_{uniform}$ (−2.24 vs −2.32) than SimCSE; it also opens
# negatives less (60.4° vs 62.1°). SimACE ≥ SimCSE on the STS average: partly (4/5 seeds, +0.067, p = 0.055).
# Margin order 10° > 0° > −10°: reproduced on the 3-seed means (74.73 > 74.66 > 74.57) but not significant
# (p = 0.64 and 0.25) and 10° > 0° holds in only 1 of 3 seeds: m ≤ 0° makes runs much less stable (std 0.18 and
# 0.27 vs 0.03). τ: 0.05 (74.80) > 0.06 (74.73) > 0.07 (74.64), so the paper's τ = 0.06 is not the best here
# (partly). In this short run both objectives *widen* the positive angle (views differ only by the top layer's
# dropout, and the [CLS] cone opens up: negatives 51.5° → 60–62°).

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
from scipy import stats
from sklearn.decomposition import PCA
from tqdm.auto import tqdm

from companion.data import load_wiki
from companion.encoders import load_encoder, tiny_encoder
from companion.losses.simace import run_dropout_views
from companion.metrics.geometry import anisotropy, effective_rank, pairwise_angles
from companion.profiles import settings
from companion.results import Ledger, holds, not_testable, show_provenance
from companion.settings import REPO_ROOT, cache_dir
from companion.upper import UpperEncoder, evaluate_pairs, sts_pairs_subset

# the first block MUST match 02-sts-experiments (the cached runs are keyed by these settings)
cfg = settings(profile,
               smoke=dict(seeds=[0], steps=2, batch_size=8, model="tiny-bert", n_top=1, n_pairs=8, n_dev=40,
                          lr=1e-4, eval_every=1, threads=1, n_probe=8, ablation_seeds=[0], n_pca=40),
               cpu=dict(seeds=[0, 1, 2, 3, 4], steps=30, batch_size=64, model="sentence-transformers/all-MiniLM-L6-v2",
                        n_top=1, n_pairs=500, n_dev=None, lr=1e-4, eval_every=10, threads=1, n_probe=64,
                        ablation_seeds=[0, 1, 2], n_pca=1000),
               gpu=dict(seeds=[0, 1, 2, 3, 4], steps=15625, batch_size=64, model="bert-base-uncased", n_top=12,
                        n_pairs=None, n_dev=None, lr=3e-5, eval_every=125, threads=None, n_probe=64,
                        ablation_seeds=[0, 1, 2, 3, 4], n_pca=1000),
               common=dict(dropout=0.1, pooling="cls", max_length=32, n_heldout=1000),
               overrides=dict(seeds=seeds, steps=steps))
if cfg.threads:
    torch.set_num_threads(cfg.threads)
MAIN = {"SimCSE": ("simcse", 0.05, 0.0), "ArcCon": ("arccon", 0.05, 10.0), "SimACE": ("simace", 0.06, 10.0)}
ABLATION = {"SimACE m=0°": ("simace", 0.06, 0.0), "SimACE m=-10°": ("simace", 0.06, -10.0),
            "SimACE τ=0.05": ("simace", 0.05, 10.0), "SimACE τ=0.07": ("simace", 0.07, 10.0)}
RUN_CACHE = cache_dir() / "simace" / "runs" / cfg.profile
STS_KEY = f"7-set STS test, n_pairs={cfg.n_pairs}, subset seed 0"
ledger = Ledger("simace", "03-analysis", profile=cfg.profile, seeds=cfg.seeds)
sns.set_theme(style="whitegrid", context="notebook")
paper = pd.read_csv(REPO_ROOT / "data" / "simace" / "paper_numbers.csv")
cfg

# %%
t0 = time.perf_counter()
if cfg.model == "tiny-bert":
    encoder = tiny_encoder("bert", pooling=cfg.pooling, max_length=cfg.max_length)
else:
    encoder = load_encoder(cfg.model, pooling=cfg.pooling, max_length=cfg.max_length)
base = UpperEncoder(encoder, n_top=cfg.n_top, pooling=cfg.pooling, dropout=cfg.dropout, cache=True)
wiki = list(load_wiki()["text"])
train_texts, heldout = wiki[: len(wiki) - cfg.n_heldout], wiki[len(wiki) - cfg.n_heldout:]
probe = heldout[: cfg.n_probe]
pca_texts = heldout[: cfg.n_pca]  # never trained on
pairs = sts_pairs_subset(cfg.n_pairs, seed=0)
dev = sts_pairs_subset(cfg.n_dev, seed=0, sets=["STS-B"], split="dev")["STS-B"]
base.precompute([t for s1, s2, _ in pairs.values() for t in (*s1, *s2)] + dev[0] + dev[1] + heldout)
base.eval()
pre_scores = evaluate_pairs(base.encode, pairs)
print(f"{base.extra_repr()}; setup {time.perf_counter() - t0:.0f} s")

# %% [markdown]
# ## Runs: 02's main runs (reloaded) and the ablation runs (trained here)

# %%
def run(name, spec, seed):
    objective, tau, margin = spec
    return run_dropout_views(base, train_texts, objective, tau, margin, cfg.steps, cfg.batch_size, cfg.lr, seed,
                             dev=dev, eval_every=cfg.eval_every, probe=probe, cache=str(RUN_CACHE), reuse=True,
                             score_fn=lambda model: evaluate_pairs(model.encode, pairs), score_key=STS_KEY,
                             desc=f"{name} seed {seed}", progress=False)  # progress bars do not enter the cache key


jobs = [(name, spec, seed) for seed in cfg.seeds for name, spec in MAIN.items()]
jobs += [(name, spec, seed) for seed in cfg.ablation_seeds for name, spec in ABLATION.items()]
finals, curves, models, reloaded = [], [], {}, 0
t1 = time.perf_counter()
for name, spec, seed in tqdm(jobs, desc="runs"):
    r = run(name, spec, seed)
    reloaded += r["from_cache"]
    mon = pd.DataFrame(r["monitor"]).assign(model=name, seed=seed)
    curves.append(mon)
    best = mon.set_index("step").loc[r["best_step"]]
    last = mon.iloc[-1]
    finals.append({"model": name, "seed": seed, "STS avg": r["scores"]["avg"], "best step": r["best_step"],
                   "align": best["align"], "uniform": best["uniform"], "pos_angle (last)": last["pos_angle"],
                   "neg_angle (last)": last["neg_angle"], "from 02's cache": r["from_cache"],
                   "train s": r["train_s"], "monitor s": r["monitor_s"], "sts s": r["score_s"]})
    if seed == cfg.seeds[0]:
        models[name] = r["model"]
curves = pd.concat(curves, ignore_index=True)
finals = pd.DataFrame(finals)
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
# the same seeds. Paired differences and t-tests over seeds. The paper's Table 14 is available here only through
# its m = 10° average (77.08, which Fig. 9 gives as 76.69); its other cells are not quoted in the issue.

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
def paired(a, b):
    diff = abl_wide[a] - abl_wide[b]
    t = stats.ttest_rel(abl_wide[a], abl_wide[b]) if len(diff) > 1 else None
    return {"comparison": f"{a} - {b}", "mean diff": diff.mean(), "per seed": np.round(diff.values, 3).tolist(),
            "t": np.nan if t is None else t.statistic, "p (t)": np.nan if t is None else t.pvalue}


ablation_tests = pd.DataFrame([paired("SimACE m=10° τ=0.06", "SimACE m=0°"), paired("SimACE m=0°", "SimACE m=-10°"),
                               paired("SimACE m=10° τ=0.06", "SimACE τ=0.05"),
                               paired("SimACE m=10° τ=0.06", "SimACE τ=0.07")])
ablation_tests.round(3)

# %%
paper[paper.table.isin(["Table 14", "Fig 9"])]

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
ledger.savefig(fig, "fig2-pca")

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
ledger.savefig(fig, "fig3-align-uniform-plane")

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
ledger.savefig(fig, "fig4-fig7-angles-during-training")

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
ledger.savefig(fig, "fig5-fig8-angle-histograms")
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
ledger.savefig(fig, "fig6-fig9-align-uniform-over-steps")

# %% [markdown]
# ## Claims

# %%
per_seed = finals[finals.model.isin(["SimCSE", "SimACE"])].pivot(index="seed", columns="model")


def each_seed(col, better):
    return {f"seed {s}": bool(better(per_seed.loc[s, (col, "SimACE")], per_seed.loc[s, (col, "SimCSE")]))
            for s in per_seed.index}


def diff_note(col):
    d = per_seed[(col, "SimACE")] - per_seed[(col, "SimCSE")]
    t = stats.ttest_rel(per_seed[(col, "SimACE")], per_seed[(col, "SimCSE")]) if len(d) > 1 else None
    return (f"SimACE - SimCSE mean {d.mean():+.4f} (per seed {np.round(d.values, 4).tolist()})"
            + ("" if t is None else f"; paired t={t.statistic:.2f}, p={t.pvalue:.3g}"))


ledger.claim("fig4-smaller-positive-angle", "SimACE ends training with a smaller positive angle than SimCSE "
             "(probe views at the last step, per seed)", "SimACE < SimCSE (Fig. 4)",
             each_seed("pos_angle (last)", lambda a, b: a < b), holds(), note=diff_note("pos_angle (last)"))
ledger.claim("fig3-lower-align", "SimACE has the lower l_align on STS-B dev (best checkpoint, per seed)",
             "SimACE < SimCSE (Figs. 3, 6)", each_seed("align", lambda a, b: a < b), holds(), note=diff_note("align"))
ledger.claim("fig3-higher-uniform", "SimACE has the higher (worse) l_uniform on STS-B dev (best checkpoint, per seed)",
             "SimACE > SimCSE (Figs. 3, 6)", each_seed("uniform", lambda a, b: a > b), holds(),
             note=diff_note("uniform"))
ledger.claim("sts-simace-geq-simcse", "SimACE >= SimCSE on the STS average (per seed)", "SimACE >= SimCSE (Table 1)",
             each_seed("STS avg", lambda a, b: a >= b), holds(), note=diff_note("STS avg"))
mm = abl_wide.mean()
t_note = "; ".join(f"{r['comparison']}: {r['mean diff']:+.3f} (t={r['t']:.2f}, p={r['p (t)']:.3g})"
                   for _, r in ablation_tests.iterrows()) if len(cfg.ablation_seeds) > 1 else "one seed"
ledger.claim("table14-margin-order", f"Margin ablation: STS avg with m = 10 deg > 0 deg > -10 deg (means over "
             f"{len(cfg.ablation_seeds)} seeds)", "10° > 0° > -10° (Table 14)",
             {"10 > 0": bool(mm["SimACE m=10° τ=0.06"] > mm["SimACE m=0°"]),
              "0 > -10": bool(mm["SimACE m=0°"] > mm["SimACE m=-10°"])}, holds(), note=t_note)
ledger.claim("table7-tau-choice", f"tau = 0.06 (the paper's choice for BERT) gives the best STS avg among 0.05, "
             f"0.06, 0.07 (means over {len(cfg.ablation_seeds)} seeds)", "tau 0.06 chosen (Table 7)",
             {"0.06 >= 0.05": bool(mm["SimACE m=10° τ=0.06"] >= mm["SimACE τ=0.05"]),
              "0.06 >= 0.07": bool(mm["SimACE m=10° τ=0.06"] >= mm["SimACE τ=0.07"])}, holds(),
             note="the paper's tau sweep values are not available here; Table 7 only states the chosen tau")
ledger.claim("table14-value", "SimACE-BERT-base STS avg with m = 10 deg", 77.08, float(mm["SimACE m=10° τ=0.06"]),
             not_testable("different backbone (MiniLM, top layer only) and budget; Table 14 says 77.08 while Fig. 9 "
                          "says 76.69 for the same setting"))
ledger.table()

# %%
finals.round(3)

# %% [markdown]
# **Summary (cpu profile).**
#
# | Table 14 (STS avg, 500 pairs/set, seeds 0–2) | ours (MiniLM top layer, 30 steps) | paper (BERT-base) |
# |---|---|---|
# | SimACE m = 10°, τ = 0.06 | 74.73 ± 0.03 | 77.08 (Table 14; Fig. 9 says 76.69) |
# | SimACE m = 0° | 74.66 ± 0.18 | not available |
# | SimACE m = −10° | 74.57 ± 0.27 | not available |
# | SimACE τ = 0.05 (m = 10°) | 74.80 ± 0.02 | not available |
# | SimACE τ = 0.07 (m = 10°) | 74.64 ± 0.04 | not available |
# | no training ([CLS]) | 73.71 | — |
#
# * Paired differences over seeds 0–2: 10° − 0° = +0.064 (per seed −0.09, +0.29, −0.01; t = 0.54, p = 0.64);
#   0° − (−10°) = +0.089 (t = 1.62, p = 0.25); τ 0.06 − 0.05 = −0.069 (t = −4.10, p = 0.055); τ 0.06 − 0.07 =
#   +0.082 (t = 10.4, p = 0.009).
# * Geometry (Figs. 3–9): SimACE vs SimCSE over 5 seeds — positive angle −1.02° (t = −36.7), $\ell_{align}$
#   −0.0049 (t = −52.9), $\ell_{uniform}$ +0.081 (t = 139.7): the paper's picture (better alignment, worse
#   uniformity) holds. Lowering the margin or τ moves runs further along the same direction (lower
#   $\ell_{align}$, higher $\ell_{uniform}$, smaller angles); in Fig. 3 the STS average does not follow either axis
#   monotonically. Held-out mean pairwise angle: no training 50.8°, SimACE 60.6°, SimCSE 62.4° (Fig. 5).
# * Times: 725 s wall (12 min; 15 runs reloaded from 02's cache, 12 ablation runs trained here in 652 s: 327 s
#   training, 235 s STS-B dev monitoring, 83 s STS evaluation). Standalone (without 02's cache) it would also train
#   the 15 main runs (≈ 12 more minutes).

# %%
ledger.save()
show_provenance(ledger)
