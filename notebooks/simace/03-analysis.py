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
# # SimACE §5: what the angle does to the embedding space
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/OWNER/REPO/blob/main/notebooks/simace/03-analysis.ipynb)
#
# **Paper.** Y. H. Jeong, M. Han, D.-K. Chae, *A Simple Angle-based Approach for Contrastive Learning of
# Unsupervised Sentence Representation* (SimACE), Findings of EMNLP 2024 (anthology 2024.findings-emnlp.318).
# **Reproduces, at CPU scale,** §5 and Figs. 2–9: PCA of 1000 Wikipedia sentences (Fig. 2), the
# alignment–uniformity plane coloured by STS average (Fig. 3), positive and negative angles during training
# (Fig. 4; Fig. 7 for τ), pairwise-angle histograms (Fig. 5; Fig. 8 for margins), alignment and uniformity over
# steps (Fig. 6; Fig. 9 for margins).
#
# **Scale.** Same scaled setting as `02-sts-experiments` (all-MiniLM-L6-v2, top layer fine-tuned over cached
# layer-5 states, so dropout views differ only by that layer's dropout; [CLS] pooling as in the paper (with MiniLM's
# native mean pooling every loss is ≈ 0 from the start, see 02), no MLP pooler; `steps` ×
# `batch_size` Wikipedia sentences; STS on a fixed subset of pairs). SimCSE and SimACE run with every seed; the τ
# and margin variants (figures only) with the first seed. $\ell_{align}$ / $\ell_{uniform}$ follow Wang & Isola
# (plain mean of squared distances over STS-B dev pairs with gold > 4; SimACE's Eq. 11 adds a log its figures do
# not use). The logging draws training-mode dropout masks, so these runs are not bit-identical to 02's (same data,
# same seeds, different dropout stream).
#
# **Verdicts (cpu profile, seeds 0–2).** Reproduced in every seed: SimACE ends with the smaller positive angle
# (24.9° vs 25.6°), the lower $\ell_{align}$ (0.130 vs 0.135) and the higher, i.e. less uniform, $\ell_{uniform}$
# (−1.98 vs −2.05) than SimCSE — it also opens negatives less (56.6° vs 58.1°). Partly: SimACE ≥ SimCSE on the
# STS average holds in 1 of 3 seeds (differences ≤ 0.1 point). The margin order 10° > 0° > −10° holds for seed 0
# (3 seeds in 02). In this short run both objectives *widen* the positive angle (views differ only by the top
# layer's dropout, and the [CLS] cone opens up), unlike the paper's full-model runs.

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
from sklearn.decomposition import PCA
from tqdm.auto import tqdm

from companion.data import load_wiki
from companion.encoders import load_encoder, tiny_encoder
from companion.losses.simace import train_dropout_views, view_geometry
from companion.metrics.geometry import alignment, anisotropy, effective_rank, pairwise_angles, uniformity
from companion.profiles import settings
from companion.results import Ledger, holds, show_provenance
from companion.training import seed_everything
from companion.upper import UpperEncoder, evaluate_pairs, sts_pairs_subset

torch.set_num_threads(1)  # shared 2-core machine: one thread per process avoids oversubscription
cfg = settings(profile,
               smoke=dict(seeds=[0], steps=2, batch_size=8, model="tiny-bert", n_top=1, n_pairs=8, lr=1e-4,
                          log_every=1, n_pca=40, n_probe=8, n_dev=40),
               cpu=dict(seeds=[0, 1, 2], steps=16, batch_size=32, model="sentence-transformers/all-MiniLM-L6-v2",
                        n_top=1, n_pairs=150, lr=1e-4, log_every=4, n_pca=1000, n_probe=64, n_dev=300),
               gpu=dict(seeds=[0, 1, 2], steps=15625, batch_size=64, model="bert-base-uncased", n_top=12,
                        n_pairs=None, lr=3e-5, log_every=125, n_pca=1000, n_probe=64, n_dev=1500),
               common=dict(dropout=0.1, pooling="cls", max_length=32),
               overrides=dict(seeds=seeds, steps=steps))
MAIN = {"SimCSE": ("simcse", 0.05, 0.0), "SimACE": ("simace", 0.06, 10.0)}
VARIANTS = {"SimACE τ=0.05": ("simace", 0.05, 10.0), "SimACE τ=0.07": ("simace", 0.07, 10.0),
            "SimACE m=0°": ("simace", 0.06, 0.0), "SimACE m=-10°": ("simace", 0.06, -10.0)}
ledger = Ledger("simace", "03-analysis", profile=cfg.profile, seeds=cfg.seeds)
sns.set_theme(style="whitegrid", context="notebook")
cfg

# %%
t0 = time.perf_counter()
if cfg.model == "tiny-bert":
    encoder = tiny_encoder("bert", pooling=cfg.pooling, max_length=cfg.max_length)
else:
    encoder = load_encoder(cfg.model, pooling=cfg.pooling, max_length=cfg.max_length)
base = UpperEncoder(encoder, n_top=cfg.n_top, pooling=cfg.pooling, dropout=cfg.dropout, cache=True)
n_train = cfg.steps * cfg.batch_size
wiki = list(load_wiki(n_train + cfg.n_pca)["text"])
train_texts, pca_texts = wiki[:n_train], wiki[n_train:]  # PCA / histograms on sentences never trained on
probe = train_texts[: cfg.n_probe]
pairs = sts_pairs_subset(cfg.n_pairs, seed=0)
dev = sts_pairs_subset(None if cfg.n_dev >= 1500 else cfg.n_dev, seed=0, sets=["STS-B"], split="dev")["STS-B"]
dev_pos = [(a, b) for a, b, g in zip(*dev) if g > 4.0]
dev_texts = list(dict.fromkeys(dev[0] + dev[1]))
base.precompute(wiki + [t for s1, s2, _ in pairs.values() for t in (*s1, *s2)] + dev_texts)
print(f"{base.extra_repr()}; lower states in {time.perf_counter() - t0:.0f} s; {len(dev_pos)} STS-B dev pairs with gold > 4")


def align_uniform(model):
    a = model.encode([p[0] for p in dev_pos])
    b = model.encode([p[1] for p in dev_pos])
    return {"align": alignment(a, b), "uniform": uniformity(model.encode(dev_texts))}


# %% [markdown]
# ## Training with logging
#
# Every `log_every` steps: mean positive / negative angle of two training-mode views of a fixed probe batch of
# training sentences (Fig. 4, 7), $\ell_{align}$ and $\ell_{uniform}$ on STS-B dev (Fig. 6, 9).

# %%
curves, finals, models = [], [], {}
jobs = [(name, spec, seed) for seed in cfg.seeds for name, spec in MAIN.items()]
jobs += [(name, spec, cfg.seeds[0]) for name, spec in VARIANTS.items()]
base.eval()
start = {"step": 0, **view_geometry(base.embed, base, probe), **align_uniform(base)}
for name, (objective, tau, margin), seed in tqdm(jobs, desc="runs"):
    seed_everything(seed)
    model = base.fresh()

    def log(step, model=model):
        return {**view_geometry(model.embed, model, probe), **align_uniform(model)}

    result = train_dropout_views(model, model.embed, train_texts, objective, tau, margin, cfg.steps, cfg.batch_size,
                                 cfg.lr, seed, log_fn=log, log_every=cfg.log_every, desc=f"{name} seed {seed}")
    hist = pd.DataFrame([start] + [h for h in result.history if "pos_angle" in h])
    hist["model"], hist["seed"] = name, seed
    curves.append(hist)
    model.eval()
    finals.append({"model": name, "seed": seed, **hist.iloc[-1][["pos_angle", "neg_angle"]].to_dict(),
                   **align_uniform(model), "STS avg": evaluate_pairs(model.encode, pairs)["avg"]})
    if seed == cfg.seeds[0]:
        models[name] = model
curves = pd.concat(curves, ignore_index=True)
finals = pd.DataFrame(finals)
pre = {"model": "no training", "seed": -1, "pos_angle": start["pos_angle"], "neg_angle": start["neg_angle"],
       **align_uniform(base), "STS avg": evaluate_pairs(base.encode, pairs)["avg"]}
finals.groupby("model", sort=False).mean(numeric_only=True).drop(columns="seed").round(3)

# %% [markdown]
# ## Fig. 2 — PCA of 1000 held-out Wikipedia sentences
#
# PCA is fitted **jointly** on the three models' (L2-normalised) embeddings, so the three panels share axes and
# scales; per-model PCA would hide differences in spread. Anisotropy (mean cosine of pairs) and effective rank are
# printed per model.

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
fig.suptitle(f"Fig. 2: PCA (fitted jointly) of {len(pca_texts)} Wikipedia sentences, seed {cfg.seeds[0]}", y=1.02)
fig.tight_layout()
ledger.savefig(fig, "fig2-pca")

# %% [markdown]
# ## Fig. 3 — the alignment–uniformity plane, coloured by STS average

# %%
plane = pd.concat([finals, pd.DataFrame([pre])], ignore_index=True)
fig, ax = plt.subplots(figsize=(7.5, 5))
points = ax.scatter(plane["uniform"], plane["align"], c=plane["STS avg"], cmap="viridis", s=70)
for _, r in plane.groupby("model", sort=False).mean(numeric_only=True).iterrows():
    ax.annotate(_, (r["uniform"], r["align"]), fontsize=8, xytext=(4, 4), textcoords="offset points")
fig.colorbar(points, label="STS avg (subset, Spearman × 100)")
ax.set(xlabel="ℓ_uniform (lower = more uniform)", ylabel="ℓ_align (lower = better aligned)",
       title="Fig. 3: alignment vs uniformity on STS-B dev (each dot a run)")
fig.tight_layout()
ledger.savefig(fig, "fig3-align-uniform-plane")

# %% [markdown]
# ## Figs. 4 and 7 — positive and negative angles during training

# %%
fig, axes = plt.subplots(2, 2, figsize=(12, 7), sharex=True)
main = curves[curves.model.isin(list(MAIN))]
tau_runs = curves[curves.model.isin(["SimACE τ=0.05", "SimACE τ=0.07"])
                  | ((curves.model == "SimACE") & (curves.seed == cfg.seeds[0]))]
for row, (data, title) in enumerate(((main, f"Fig. 4 (mean ± sd over {len(cfg.seeds)} seeds)"),
                                     (tau_runs, f"Fig. 7: SimACE τ (seed {cfg.seeds[0]})"))):
    for col, (y, label) in enumerate((("pos_angle", "positive angle (deg)"), ("neg_angle", "negative angle (deg)"))):
        sns.lineplot(data, x="step", y=y, hue="model", errorbar="sd", ax=axes[row, col], marker="o")
        axes[row, col].set(title=f"{title}: {label}", ylabel=label)
fig.tight_layout()
ledger.savefig(fig, "fig4-fig7-angles-during-training")

# %% [markdown]
# ## Figs. 5 and 8 — pairwise-angle histograms (held-out sentences)

# %%
fig, axes = plt.subplots(1, 2, figsize=(13, 4))
for name, e in embs.items():
    sns.kdeplot(pairwise_angles(e).numpy(), ax=axes[0], label=name, fill=True, alpha=0.2)
axes[0].set(title="Fig. 5: angles between distinct sentences", xlabel="pairwise angle (deg)")
for name in ("SimACE", "SimACE m=0°", "SimACE m=-10°"):
    label = "SimACE m=10°" if name == "SimACE" else name
    sns.kdeplot(pairwise_angles(models[name].encode(pca_texts)).numpy(), ax=axes[1], label=label, fill=True, alpha=0.2)
axes[1].set(title=f"Fig. 8: margins (seed {cfg.seeds[0]})", xlabel="pairwise angle (deg)")
for ax in axes:
    ax.legend()
fig.tight_layout()
ledger.savefig(fig, "fig5-fig8-angle-histograms")

# %% [markdown]
# ## Figs. 6 and 9 — alignment and uniformity over steps

# %%
fig, axes = plt.subplots(2, 2, figsize=(12, 7), sharex=True)
margin_runs = curves[curves.model.isin(["SimACE m=0°", "SimACE m=-10°"])
                     | ((curves.model == "SimACE") & (curves.seed == cfg.seeds[0]))]
for row, (data, title) in enumerate(((main, f"Fig. 6 (mean ± sd, {len(cfg.seeds)} seeds)"),
                                     (margin_runs, f"Fig. 9: margins (seed {cfg.seeds[0]}; SimACE = m 10°)"))):
    for col, y in enumerate(("align", "uniform")):
        sns.lineplot(data, x="step", y=y, hue="model", errorbar="sd", ax=axes[row, col], marker="o")
        axes[row, col].set(title=f"{title}: ℓ_{y}", ylabel=f"ℓ_{y}")
fig.tight_layout()
ledger.savefig(fig, "fig6-fig9-align-uniform-over-steps")

# %% [markdown]
# ## Claims

# %%
per_seed = finals[finals.model.isin(list(MAIN))].pivot(index="seed", columns="model")


def each_seed(col, better):
    return {f"seed {s}": bool(better(per_seed.loc[s, (col, "SimACE")], per_seed.loc[s, (col, "SimCSE")]))
            for s in per_seed.index}


ledger.claim("fig4-smaller-positive-angle", "SimACE ends with a smaller positive angle than SimCSE (per seed)",
             "SimACE < SimCSE (Fig. 4)", each_seed("pos_angle", lambda a, b: a < b), holds())
ledger.claim("fig3-lower-align", "SimACE has the lower l_align on STS-B dev (per seed)", "SimACE < SimCSE (Fig. 3, 6)",
             each_seed("align", lambda a, b: a < b), holds())
ledger.claim("fig3-higher-uniform", "SimACE has the higher (worse) l_uniform (per seed)", "SimACE > SimCSE (Fig. 3, 6)",
             each_seed("uniform", lambda a, b: a > b), holds())
ledger.claim("sts-simace-geq-simcse", "SimACE >= SimCSE on the STS average (per seed)", "SimACE >= SimCSE (Table 1)",
             each_seed("STS avg", lambda a, b: a >= b), holds())
v = finals[finals.seed == cfg.seeds[0]].set_index("model")["STS avg"]
ledger.claim("margin-order-seed0", f"Margin 10 deg > 0 deg > -10 deg on STS avg (seed {cfg.seeds[0]} only; 3 seeds "
             "in 02)", "10° > 0° > -10° (Table 14)",
             {"10 > 0": bool(v["SimACE"] > v["SimACE m=0°"]), "0 > -10": bool(v["SimACE m=0°"] > v["SimACE m=-10°"])},
             holds())
ledger.table()

# %%
finals.round(3)

# %%
ledger.save()
show_provenance(ledger)
