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
# # Principles of concept representation: B0/B0-WM, the eight fine-tuned readouts, P1 along training, layer-wise analysis
#
# **Paper.** I. Mohr, J. Dujany, J. Souquet, A. Freitas, *Principles of Concept Representation in Sentence
# Encoders*, arXiv 2606.06994, §4–5 and App. F, H (the numbers the text states for Tables 2–4, 10, 11; Figures 3–5), on
# WordNet 3.0 with all-MiniLM-L6-v2.
#
# **What runs.** Frozen B0 (last-layer mean pool) and B0-WM (uniform mean of the last K = 4 layers — two thirds
# of MiniLM's 6 layers, against a third of the paper's 12-layer mpnet); fine-tuned B1 (mean + hard negatives),
# B2 ([CLS] token + hard negatives), B3 (learned weighted mean of the last 4 layers, no hard negatives), M1 (weighted
# mean + hard negatives), M1 with the wider K = 6 window, M2 (input-dependent gate), M3 (deep supervision) and
# B1-unified (hard negatives in the InfoNCE denominator, no BCE). Recipe (§4.3):
# $L = L_\mathrm{syn} + L_\mathrm{t2d} + 0.5\,L_\mathrm{neg}$ (d2d dropped: WordNet is one source), batch 16, AdamW,
# linear warm-up (the paper's 100/8000 fraction) and linear decay, layer-wise LR decay 0.9, 5× LR for pooling
# parameters, the five rule-made hard negatives per definition where the rule applies. Metrics on held-out synsets:
# in-domain t2d/d2t R@10 and MRR, pair ROC-AUC, the five per-rule stress AUCs, anisotropy (10,000 random pairs) and
# effective rank (App. H's definitions, those of the paper's numbers); t2d R@10 on the head-holdout split and on a
# source-holdout proxy (Table 3's columns); layer-wise MRR and anisotropy (Fig 3), anisotropy vs effective rank
# (Fig 5); and P1's statistics logged along a long B1 run. Claims compare **within-run differences, paired over
# seeds**, with the paper's differences (`companion.stats`).
#
# **Scaled down for the `cpu` profile (one thread on a shared 2-core machine)**: only the top transformer layer of 6
# is trained (`n_top = 1`, over cached lower-layer states; the paper fine-tunes all of mpnet). Section 3: `steps` =
# 150 steps per condition and seed (paper 8k) on 800 training synsets (3 epochs), at LR 2e-4 (pooling 1e-3; the
# paper's base LR is not stated, we raised the common 5e-5 because the runs are short), at most 2 of each
# definition's (up to 5) hard negatives per step (a fresh draw each step, the same for every condition; the paper
# uses all five), seeds 0, 1, 2 for all eight conditions, evaluated on 500 held-out in-domain concepts and 300 of
# each other split. Section 5 (P1): B1 for `p1_steps` = 600 steps on 1,600 synsets, seeds 0, 1, 2 — still 7.5 % of the
# paper's step count, on one layer, but long enough for the curves to flatten. all-mpnet-base-v2 is analysed frozen
# in notebook 04. Measured values and verdicts: closing note at the end.

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
n_rows = None
steps = None
p1_steps = None

# %%
import time
import warnings

warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import torch
from IPython.display import display

from companion.papers.concepts import data as C
from companion.encoders import load_encoder
from companion.profiles import settings
from companion.encoders.states import LowerStates
from companion.papers.concepts.evaluation import (ConceptRetrieval, EmbeddingLookup, GeometryMonitor,
                                                  PairedConditionClaims, direction_unless_ceiling, settling,
                                                  split_recalls)
from companion.papers.concepts.finetune import top_layer_recipe, train_condition
from companion.papers.concepts.readouts import CONDITIONS, TopLayerConceptModel, save_trained
from companion import stats
from companion.results import Ledger, at_most, holds, not_testable, same_sign, show_provenance

# %% [markdown]
# Settings per profile (smoke: 24 test concepts, 48 training synsets, 2 steps; cpu: the scale described above; gpu:
# the paper's 8k steps on all twelve layers), the claims ledger and the numbers the paper states. `p1_*`: the long
# B1 runs of section 5 (P1's geometry curves).

# %%
ALL = ["B1", "B2", "B3", "M1", "M1-K6", "M2", "M3", "B1-unified"]
cfg = settings(profile,
               smoke=dict(seeds=[0], n_rows=24, n_split_rows=24, n_train=48, steps=2, n_top=1, conditions=ALL,
                          threads=2, max_negatives=None, p1_steps=4, p1_every=2, p1_n_train=48),
               cpu=dict(seeds=[0, 1, 2], n_rows=500, n_split_rows=300, n_train=800, steps=150, n_top=1,
                        conditions=ALL, threads=1, max_negatives=2, p1_steps=600, p1_every=50, p1_n_train=1600),
               # gpu: all-mpnet-base-v2, 8k steps x batch 16 (Table 1 caption), all 12 layers fine-tuned with the
               # layer-wise lr decay 0.9 and 100 warm-up steps (§4.4); the paper uses one seed (Limitations, 'Single seed'),
               # three here; the P1 curves then are the 8k-step runs themselves
               gpu=dict(seeds=[0, 1, 2], n_rows=5000, n_split_rows=2000, n_train=100_000, steps=8000, n_top=12,
                        conditions=ALL, threads=8, max_negatives=None, p1_steps=8000, p1_every=500,
                        p1_n_train=100_000, model="sentence-transformers/all-mpnet-base-v2"),
               common=dict(k=4, batch=16, lr=2e-4, pooling_lr_mult=5.0, layer_decay=0.9, warmup_frac=100 / 8000,
                           tau=0.05, max_length=64, model="sentence-transformers/all-MiniLM-L6-v2"),
               overrides=dict(seeds=seeds, n_rows=n_rows, steps=steps, p1_steps=p1_steps))
torch.set_num_threads(cfg.threads)
ledger = Ledger("concepts", "03-principles", profile=cfg.profile, seeds=cfg.seeds)
paper = C.paper_numbers()  # the numbers the paper text states for its tables, with their location
pv = paper.dropna(subset=["number"]).set_index(["table", "row", "column"])["number"]
sns.set_theme(style="whitegrid", context="notebook")
T0 = time.perf_counter()
cfg

# %% [markdown]
# ## 1. Evaluation set and training rows
#
# In-domain test synsets (synset-level split, 10 %), one masked t2d row per synset (each candidate definition is
# a distinct concept), `n_rows` of them; the candidate pool is those definitions (t2d) or terms (d2t). A query's
# gold is every candidate of the same term (polysemy). The paper's pool size is not stated, so absolute R@10 is
# not comparable with its 0.552; within-run differences are. Hard negatives for the stress AUCs: every rule that
# applies to each test definition (seed 0). The two other splits of §4.5, `n_split_rows` concepts each, read t2d
# R@10 only (Table 3's columns): head-holdout (HH, the 5 % most frequent synsets by SemCor count) and a
# source-holdout proxy (SH: whole lexicographer files held out; the paper's SH trains on Wiktionary and tests on
# WordNet). Training rows: `n_train` random **train** synsets, none of them in any of the three test parts, each
# with its masked definition, one syn pair of the same synset where it has one, and its hard negatives.

# %%
data = C.load_concepts()
split = C.in_domain_split(data, 0.1, seed=0)
ev = C.eval_pool(data, split.test, cfg.n_rows, seed=0)
hn = C.make_hard_negatives(data, ev, seed=0)
split_monitors = {"HH": GeometryMonitor(C.eval_pool(data, C.head_holdout_split(data).test, cfg.n_split_rows)),
                  "SH proxy": GeometryMonitor(C.eval_pool(data, C.source_holdout_proxy(data).test, cfg.n_split_rows))}
rng = np.random.default_rng(1)
rand_def = ev["masked"].to_numpy()[(np.arange(len(ev)) + rng.integers(1, len(ev), len(ev))) % len(ev)]
evaluate = ConceptRetrieval(ev, hn, rand_def)  # every §5 metric on this pool: evaluate(embeddings of texts)
texts = evaluate.texts
train_sids = C.training_synsets(data, 0.1, seed=0)
rows = C.training_rows(data, train_sids, n=cfg.n_train, seed=0)
split_texts = [t for m in split_monitors.values() for t in m.texts]
assert not set(rows.sid) & set(ev["sid"]), "train and test synsets overlap"
print(f"eval: {len(ev)} concepts, {len(hn)} hard negatives, {len(texts)} texts; train: {len(rows)} synsets "
      f"({rows.has_syn.mean():.0%} with a syn pair, {rows.neg_mask.sum(1).mean():.2f} hard negatives each), "
      f"{len(rows.texts())} texts")
hn.groupby("rule").size().reindex(C.RULES).to_frame("test hard negatives")

# %%
enc = load_encoder(cfg.model, pooling="mean", max_length=cfg.max_length)
n_layers = enc._num_hidden_states() - 1
lower = LowerStates(enc, start=n_layers - cfg.n_top, means="all")
t0 = time.perf_counter()
lower.precompute(texts + split_texts + rows.texts())
precompute_s = time.perf_counter() - t0
print(f"lower {lower.start} layers for {len(lower)} texts in {precompute_s:.1f} s ({len(lower) / precompute_s:.0f}/s)")

# %% [markdown]
# ## 2. Metrics

# %%
frozen = TopLayerConceptModel(enc, "mean", n_top=cfg.n_top, k=cfg.k, lower=lower)
L = frozen.encode_layers(texts)  # N x 7 x 384, hidden state 0 = embeddings; the untrained top layer = MiniLM's own
readouts = {f"layer {i}": L[:, i] for i in range(L.shape[1])}
readouts["B0"] = L[:, -1]
readouts["B0-WM"] = L[:, -cfg.k:].mean(dim=1)
table = pd.DataFrame({name: evaluate(Z) for name, Z in readouts.items()}).T
LS = frozen.encode_layers(split_texts)
for name, Zs in {"B0": LS[:, -1], "B0-WM": LS[:, -cfg.k:].mean(dim=1)}.items():
    for col, value in split_recalls(EmbeddingLookup(Zs, split_texts), split_monitors).items():
        table.loc[name, col] = value
display(table.loc[["B0", "B0-WM"]].round(3))
paper_rows = {c: {"t2d R@10": pv.get((2, c, "t2d R@10")), "AUC negation": pv.get((2, c, "Negate ROC-AUC")),
                  "anisotropy": pv.get((11, c, "anisotropy")), "effective rank": pv.get((11, c, "effective rank"))}
              for c in ["B0", "B0-WM", "B1", "B3", "M1"]}
print("paper (mpnet, 768-d; App. H and §5.2, other cells not in the paper text):")
pd.DataFrame(paper_rows).T

# %% [markdown]
# ## 3. Fine-tuning the eight conditions: B1, B2, B3, M1, M1 with K = 6, M2, M3, B1-unified
#
# Every condition starts from the same frozen MiniLM, trains the top `n_top` layer(s) and its readout with the
# same batches for a given seed (paired comparisons), and is evaluated with the same frozen lower layers, on the
# in-domain pool (every metric) and on the HH and SH-proxy pools (t2d R@10). B2 reads the trained last layer at
# its [CLS] token (§5.3). With `n_top = 1`, B3/M1's K = 4 window holds three frozen layers and the trained last
# one; §5.3's wider K = 6 window (M1-K6) covers all six transformer layers of MiniLM (half of mpnet's twelve in the
# paper). The learned layer weights and the gate are in the readout's parameter group at 5× LR.

# %%
recipe_common = top_layer_recipe(cfg, rows.rules)  # B1's weights are saved under it for notebook 04
results, times, weights = [], {}, {}
for seed in cfg.seeds:
    for name in cfg.conditions:
        model, res, train_s = train_condition(enc, lower, rows, name, seed, recipe_common)
        t0 = time.perf_counter()
        metrics = {**evaluate(model.encode(texts)), **split_recalls(model.encode, split_monitors)}
        window = max(1, len(res.history) // 10)  # a tenth of the steps: one batch's loss is too noisy
        results.append(dict(condition=name, seed=seed, **metrics,
                            first_loss=float(np.mean([h["loss"] for h in res.history[:window]])),
                            last_loss=float(np.mean([h["loss"] for h in res.history[-window:]]))))
        times[(name, seed)] = (train_s, time.perf_counter() - t0)
        if CONDITIONS[name][0] == "weighted":
            weights[(name, seed)] = model.readout.weights().detach().numpy().round(3)
        if name == "B1":
            save_trained(model, dict(recipe_common, condition=name, seed=seed))  # reused by notebook 04
        print(f"{name} seed {seed}: train {train_s:.0f} s ({train_s / max(cfg.steps, 1):.2f} s/step), "
              f"loss {results[-1]['first_loss']:.3f} -> {results[-1]['last_loss']:.3f}")
print("learned layer weights (oldest hidden state first, the last layer last):",
      {f"{k[0]} s{k[1]}": v.tolist() for k, v in weights.items()})

# %% [markdown]
# The frozen readouts beside the fine-tuned conditions (mean over seeds).

# %%
ft = pd.DataFrame(results)
mean_ft = ft.groupby("condition", sort=False).mean(numeric_only=True).drop(columns="seed")
show_cols = ["t2d R@10", "t2d MRR", "d2t R@10", "d2t MRR", "HH t2d R@10", "SH proxy t2d R@10", "pair AUC"] + \
    [f"AUC {r}" for r in C.RULES] + ["anisotropy", "effective rank"]
summary = pd.concat([table.loc[["B0", "B0-WM"], show_cols], mean_ft[show_cols]])
summary.round(3)

# %% [markdown]
# ## 4. Layer-wise MRR and anisotropy (Fig 3) and anisotropy vs effective rank (Fig 5)

# %%
layer_rows = table.loc[[f"layer {i}" for i in range(L.shape[1])]]
fig, axes = plt.subplots(1, 3, figsize=(16, 4))
axes[0].plot(range(L.shape[1]), layer_rows["t2d MRR"], "o-", label="t2d MRR (frozen)")
axes[0].plot(range(L.shape[1]), layer_rows["d2t MRR"], "s-", label="d2t MRR (frozen)")
axes[0].axhline(table.loc["B0-WM", "t2d MRR"], color="tab:red", ls="--", label="B0-WM t2d MRR")
if "B1" in mean_ft.index:
    axes[0].scatter([L.shape[1] - 1], [mean_ft.loc["B1", "t2d MRR"]], marker="*", s=150, color="k",
                    label="B1 t2d MRR (fine-tuned)", zorder=5)
axes[0].set(xlabel="hidden state (0 = embeddings)", ylabel="MRR", title="Layer-wise retrieval (Fig 3)")
axes[0].legend(fontsize=8)
axes[1].plot(range(L.shape[1]), layer_rows["anisotropy"], "o-", color="tab:green")
axes[1].set(xlabel="hidden state", ylabel="mean cosine of random pairs", title="Layer-wise anisotropy (Fig 3)")
palette = dict(zip(["B0", "B0-WM"] + list(mean_ft.index), sns.color_palette("tab10")))
for name in ["B0", "B0-WM"]:
    axes[2].scatter(table.loc[name, "anisotropy"], table.loc[name, "effective rank"], s=80, color=palette[name],
                    label=f"{name} (ours)")
for name in mean_ft.index:
    sub = ft[ft["condition"] == name]
    axes[2].scatter(sub["anisotropy"], sub["effective rank"], s=60, marker="o", color=palette[name],
                    edgecolor="k", label=f"{name} (ours, per seed)")
axes[2].set(xlabel="anisotropy", ylabel="effective rank (ours, d = 384)", title="Anisotropy vs effective rank (Fig 5)")
axes[2].legend(fontsize=7)
fig.tight_layout()
fig_path = ledger.savefig(fig, "fig3-fig5-layerwise-and-geometry")

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for name in ["B0", "B0-WM", "B1", "B3", "M1"]:
    if ((11, name, "anisotropy") in pv.index) and (name in table.index or name in mean_ft.index):
        ax.scatter(pv[(11, name, "anisotropy")], pv[(11, name, "effective rank")], marker="*", s=160,
                   color=palette.get(name),
                   label=f"{name} (paper, mpnet, d = 768)")
ax.set(xlabel="anisotropy", ylabel="effective rank", title="Table 11 as stated in App. H (paper)")
ax.legend(fontsize=7)
fig.tight_layout()
fig_path = ledger.savefig(fig, "fig5-paper-table11")

# %%
show = ["t2d R@10", "AUC negation", "AUC type_swap", "pair AUC", "anisotropy", "effective rank"]
fig, axes = plt.subplots(1, len(show), figsize=(20, 3.6))
order = ["B0", "B0-WM"] + list(mean_ft.index)
long = pd.concat([table.loc[["B0", "B0-WM"]].assign(condition=["B0", "B0-WM"], seed=-1), ft], ignore_index=True)
for ax, col in zip(axes, show):
    sns.barplot(data=long, x="condition", y=col, order=order, ax=ax, errorbar=None, color="lightgrey")
    sns.stripplot(data=long[long["seed"] >= 0], x="condition", y=col, order=order, ax=ax, color="k", size=4)
    ax.set(title=col, xlabel="")
    ax.tick_params(axis="x", rotation=60, labelsize=8)
fig.suptitle(f"Top-{cfg.n_top}-layer fine-tuning, {cfg.steps} steps x batch {cfg.batch}, seeds {cfg.seeds}")
fig.tight_layout()
fig_path = ledger.savefig(fig, "fig-conditions")

# %% [markdown]
# ## 5. P1 along training: B1 for `p1_steps` steps, its geometry logged
#
# Section 3 stops every condition after `steps` steps; P1 is a statement about where fine-tuning *ends*. Here B1
# alone trains for `p1_steps` steps (the same recipe: warm-up over the paper's 100/8000 share of the schedule, then
# linear decay to zero) on `p1_n_train` training synsets (twice section 3's: the long run passes over each about six
# times), one run per seed, and every `p1_every` steps the in-domain pool's
# t2d R@10, anisotropy and effective rank are logged (step 0 is frozen B0). The curves show whether the statistics
# have settled; the claims read their last point.

# %%
p1_rows = C.training_rows(data, train_sids, n=cfg.p1_n_train, seed=0)
lower.precompute(p1_rows.texts())
p1_recipe = dict(recipe_common, steps=cfg.p1_steps, n_train=cfg.p1_n_train)
monitor = GeometryMonitor(ev)
start = dict(step=0, **monitor(frozen))
curves = []
for seed in cfg.seeds:
    _, res, p1_s = train_condition(enc, lower, p1_rows, "B1", seed, p1_recipe, monitor=monitor,
                                   monitor_every=cfg.p1_every)
    curves.append(pd.DataFrame([start] + [h for h in res.history if "anisotropy" in h]).assign(seed=seed))
    print(f"B1 seed {seed}: {cfg.p1_steps} steps in {p1_s:.0f} s ({p1_s / cfg.p1_steps:.2f} s/step with logging)")
curves = pd.concat(curves, ignore_index=True)
p1_end = curves[curves["step"] == cfg.p1_steps].set_index("seed").loc[cfg.seeds]
curves.groupby("step")[["t2d R@10", "anisotropy", "effective rank"]].mean().round(3).T

# %%
P1_STATS = {"t2d R@10": "t2d R@10", "anisotropy": "anisotropy", "effective rank": "effective rank"}
fig, axes = plt.subplots(1, 3, figsize=(16, 3.8))
for ax, col in zip(axes, P1_STATS):
    for seed, c in curves.groupby("seed"):
        ax.plot(c["step"], c[col], "o-", ms=3, label=f"ours, B1 seed {seed}")
    ax.axvline(cfg.steps, color="grey", ls=":", label=f"section 3 stops ({cfg.steps} steps)")
    for name, ls in [("B0", "--"), ("B1", "-.")]:
        value = pv.get((11 if col != "t2d R@10" else 2, name, P1_STATS[col]))
        if value is not None:
            ax.axhline(value, color="tab:red", ls=ls, label=f"paper {name} (mpnet, 8k steps for B1)")
    ax.set(xlabel="training step (0 = frozen B0)", title=f"P1: {col} along training")
axes[0].legend(fontsize=7)
fig.suptitle(f"B1, top layer of MiniLM, {cfg.p1_steps} steps x batch {cfg.batch}, {len(p1_rows)} synsets")
fig.tight_layout()
fig_path = ledger.savefig(fig, "fig-p1-geometry-curves")

# %% [markdown]
# ## 6. Claims: the paper's differences against ours, paired over seeds
#
# Every fine-tuned comparison pairs the conditions seed by seed (same batches) and goes through `companion.stats`:
# the mean difference over seeds 0-2 with its 95 % t interval. Frozen B0/B0-WM are deterministic (no seed), so
# their comparisons are judged on the single value, with a minimum size stated in the criterion. Two regimes cap
# the verdicts (`reproduced` → `partly`, `not reproduced` → `inconclusive`): fine-tuning of MiniLM's top layer for
# a few hundred steps against the paper's full 8k-step fine-tuning of mpnet, and, for the frozen claims, a 6-layer
# backbone whose last K = 4 layers are two thirds of the network. Anisotropy and effective rank follow App. H (mean
# cosine of 10,000 random pairs; exp entropy of the normalised singular values), the definitions of the paper's
# numbers.

# %%
REGIME_FT = (f"top {cfg.n_top} of the 6 layers of all-MiniLM-L6-v2 fine-tuned for {cfg.steps} steps x batch "
             f"{cfg.batch} on {len(rows)} WordNet synsets; the paper fine-tunes all of all-mpnet-base-v2 for 8k steps "
             "on 3.3M WordNet/Wiktionary pairs")
REGIME_FROZEN = ("frozen all-MiniLM-L6-v2, 6 layers (the last K = 4 are two thirds of the network) instead of "
                 f"all-mpnet-base-v2, 12 layers (K = 4 a third); our WordNet test pool of {cfg.n_rows} concepts")
probe = f"top-{cfg.n_top} layer, {cfg.steps} steps x batch {cfg.batch}, {len(rows)} train synsets, {cfg.n_rows} test"
moved = {n: bool((g["last_loss"] < 0.9 * g["first_loss"]).all()) for n, g in ft.groupby("condition")}
ledger.claim("objective_trained", "every fine-tuned condition's loss fell by at least a tenth (mean of the last tenth "
             "of the steps against the first tenth), every seed", ours=moved,
             criterion=holds("each condition's loss moved"), kind="check",
             note="first -> last tenth, mean loss: " + "; ".join(
                 f"{n} {g['first_loss'].mean():.2f} -> {g['last_loss'].mean():.2f}" for n, g in ft.groupby("condition")))
# a - b of one metric, paired over seeds (frozen readouts repeat their single value), under the fine-tuning regime
paired = PairedConditionClaims(ledger, table, ft, cfg.seeds, moved, REGIME_FT, probe)
seeds_of, ft_claim = paired.seeds_of, paired.claim

# %% [markdown]
# **The frozen encoder** (P2 and Table 11): single values, each judged with a stated minimum size.

# %%
b0, wm = table.loc["B0"], table.loc["B0-WM"]
best_layer = int(layer_rows["t2d MRR"].to_numpy().argmax())
ledger.claim("P2_last_layer_peaks", "P2: layer-wise t2d MRR peaks at the last layer (frozen)", "final layer",
             best_layer == L.shape[1] - 1, holds("argmax of the layer-wise t2d MRR is the last hidden state"),
             kind="paper", source="§1", regime=REGIME_FROZEN,
             note=f"argmax hidden state = {best_layer} of {L.shape[1] - 1}; t2d MRR by hidden state "
                  f"{layer_rows['t2d MRR'].round(3).tolist()}")
p = pv[(2, "B0-WM", "t2d R@10")] - pv[(2, "B0", "t2d R@10")]
_ = ledger.claim("P2_wm_not_better", "P2: cross-layer pooling of the frozen encoder lowers t2d R@10 (B0-WM - B0)", p,
                 float(wm["t2d R@10"] - b0["t2d R@10"]), same_sign(p, min_magnitude=0.05), kind="paper",
                 source="App. H: 0.392 - 0.552", regime=REGIME_FROZEN,
                 note=f"B0 {b0['t2d R@10']:.3f}, B0-WM {wm['t2d R@10']:.3f}; 0.05 is about two standard errors of "
                      f"a paired R@10 difference over {cfg.n_rows} concepts")

# %%
p = pv[(11, "B0-WM", "anisotropy")] - pv[(11, "B0", "anisotropy")]
ledger.claim("T11_wm_aniso_up", "Table 11: B0-WM is more anisotropic than B0", p,
             float(wm["anisotropy"] - b0["anisotropy"]), same_sign(p, min_magnitude=0.02), kind="paper",
             source="App. H: 0.303 - 0.126", regime=REGIME_FROZEN,
             note=f"B0 {b0['anisotropy']:.3f}, B0-WM {wm['anisotropy']:.3f}; 0.02 is ten times the sampling error "
                  "of a 10,000-pair mean cosine")
p = pv[(11, "B0-WM", "effective rank")] - pv[(11, "B0", "effective rank")]
ledger.claim("T11_wm_erank_down", "Table 11: B0-WM has a lower effective rank than B0", p,
             float(wm["effective rank"] - b0["effective rank"]), same_sign(p, min_magnitude=5.0), kind="paper",
             source="App. H: 177.0 - 247.0", regime=REGIME_FROZEN,
             note=f"B0 {b0['effective rank']:.1f}, B0-WM {wm['effective rank']:.1f} (ours: d = 384, {cfg.n_rows} "
                  "definitions; the paper: d = 768); 5 is about 1 % of our d")
_ = ledger.claim("B0_negate_below_chance", "the frozen encoder fails the negation stress test (AUC below chance)",
                 pv[(2, "B0", "Negate ROC-AUC")], float(b0["AUC negation"]), at_most(0.5), kind="paper", source="§5.2",
                 regime=REGIME_FROZEN + "; our negation rule puts 'not' in front of glosses without a finite verb",
                 note=f"ours {b0['AUC negation']:.3f} over {int((hn['rule'] == 'negation').sum())} negatives")

# %% [markdown]
# **Per-layer anisotropy** (App. H, Fig. 3): the frozen encoder's last layer is far less anisotropic than the layers
# below it (the paper: 0.146 against 0.45–0.50 for mpnet's layers 5–11). The paper also says fine-tuning raises the
# anisotropy of the earlier layers; with only the top layer trained, ours cannot move by construction.

# %%
aniso = layer_rows["anisotropy"].to_numpy()[1:]  # transformer layers 1..L (hidden state 0 = embeddings)
ratio = pv[(11, "B0 layer 12 (frozen)", "anisotropy")] / pv[(11, "B0 layers 5-11 (frozen)", "anisotropy (low end)")]
ledger.claim("P2_last_layer_aniso", "App. H / Fig. 3: the frozen last layer is the least anisotropic, well below "
             "every earlier layer", round(ratio, 3), float(aniso[-1] / aniso[:-1].min()),
             at_most(0.5), kind="paper", source="App. H: 0.146 / 0.45", regime=REGIME_FROZEN,
             note=f"ours: last / lowest earlier layer; anisotropy by transformer layer {aniso.round(3).tolist()}; the "
                  "paper's ratio is about 1/3 (mpnet, NP pairs); 0.5 = 'far below' read as at most half")
_ = ledger.claim("P2_earlier_layers_after_ft", "§5.1: fine-tuning lowers earlier layers' MRR and raises their "
                 "anisotropy", "earlier layers sharpen", None,
                 not_testable("only the top layer is trained here: the earlier layers are frozen, identical before "
                              "and after fine-tuning by construction"), kind="paper", source="§5.1")

# %% [markdown]
# **Fine-tuning** (P1, H1: B1 against frozen B0).

# %%
have = set(cfg.conditions)
if "B1" in have:
    ft_claim("B1_r10_up", "H1: fine-tuning (B1) raises t2d R@10 over B0", "B1", "B0", "t2d R@10",
             "§5.2: 0.654 - 0.552", pv[(2, "B1", "t2d R@10")] - pv[(2, "B0", "t2d R@10")])
    ft_claim("B1_negate_up", "H1: fine-tuning (B1) raises the negation AUC over B0", "B1", "B0", "AUC negation",
             "§5.2: 0.980 - 0.470", pv[(2, "B1", "Negate ROC-AUC")] - pv[(2, "B0", "Negate ROC-AUC")])

# %% [markdown]
# **P1 at the end of the long runs** (section 5): B1 after `p1_steps` steps against frozen B0, per seed. "Stays" is
# judged with the tolerance the paper itself uses: App. H calls M1's effective rank 3.2 % below B1's "marginally
# below". That the curves have settled is our own check: less than a quarter of each statistic's total movement
# may fall in the last fifth of training, every seed.

# %%
REGIME_P1 = REGIME_FT.replace(f"{cfg.steps} steps", f"{cfg.p1_steps} steps").replace(
    f"on {len(rows)} WordNet", f"on {len(p1_rows)} WordNet")
p1 = {col: stats.paired(p1_end[col].to_numpy(), np.full(len(cfg.seeds), start[col]), labels=("B1", "B0"))
      for col in P1_STATS}
for cid, col, src in [("P1_aniso_falls", "anisotropy", "App. H: 0.012 - 0.126"),
                      ("P1_r10_up", "t2d R@10", "§1 (P1): 0.654 - 0.552")]:
    p = pv[(11 if col == "anisotropy" else 2, "B1", col)] - pv[(11 if col == "anisotropy" else 2, "B0", col)]
    ledger.claim(cid, f"P1: fine-tuning (B1, {cfg.p1_steps} steps) changes {col} vs B0 as the paper says", p, p1[col],
                 stats.direction(p), kind="paper", source=src, regime=REGIME_P1,
                 note=f"B0 {start[col]:.3f}; B1 per seed {p1_end[col].round(3).tolist()}")
p = pv[(11, "B1", "effective rank")] / pv[(11, "B0", "effective rank")]
ledger.claim("P1_erank_stays", f"P1: effective rank stays (B1 after {cfg.p1_steps} steps / B0)", round(p, 4),
             stats.sample(p1_end["effective rank"].to_numpy() / start["effective rank"]),
             stats.level(p, tol=0.032, tol_reason="App. H calls M1's 239.4 against B1's 247.2 (-3.2 %) marginally "
                         "below"), kind="paper", source="App. H: 247.2 / 247.0", regime=REGIME_P1,
             note=f"B0 {start['effective rank']:.1f}; B1 per seed {p1_end['effective rank'].round(1).tolist()}")
settle = {f"{col} seed {s}": settling(c, col) for s, c in curves.groupby("seed") for col in P1_STATS}
_ = ledger.claim("P1_settled", "the P1 curves have settled: under a quarter of each statistic's movement falls in "
                 "the last fifth of training", ours={k: bool(v["tail_share"] < 0.25) for k, v in settle.items()},
                 criterion=holds("every statistic, every seed"), kind="check",
                 note="; ".join(f"{k}: total {v['total']:+.3f}, last fifth {v['tail']:+.3f}" for k, v in settle.items()))

# %% [markdown]
# **Hard negatives** (P3, H3, Table 11: M1 against B3, the same readout without them). Where B3 already sits closer to
# 1 than the paper's gain, the claim is inconclusive (a ceiling).

# %%
if {"M1", "B3"} <= have:
    ft_claim("P3_hn_negation_auc", "P3: hard negatives raise the negation AUC (M1 - B3)", "M1", "B3",
             "AUC negation", "§5.4: 0.984 - 0.528", pv[(4, "M1", "Negate ROC-AUC")] - pv[(4, "B3", "Negate ROC-AUC")])
    p = pv[(4, "M1 - B3", "t2d R@10")]
    ft_claim("P3_hn_r10_small", "P3: hard negatives leave ranking unchanged: M1 - B3 t2d R@10 near the paper's "
             "-0.006", "M1", "B3", "t2d R@10", "§5.4", p,
             criterion=stats.level(p, tol=0.01, tol_reason="§5.3 treats margins below 1 % absolute as marginal"))
    p = pv[(4, "M1", "type-swap ROC-AUC")] - pv[(4, "B3", "type-swap ROC-AUC")]
    ft_claim("T4_type_swap", "H3: hard negatives raise the type-swap AUC (M1 - B3)", "M1", "B3", "AUC type_swap",
             "§5.4: 0.976 - 0.472", p, criterion=direction_unless_ceiling(p, seeds_of("B3", "AUC type_swap").mean(),
                                                                          "B3's type-swap AUC"))
    p = pv[(2, "M1", "pair ROC-AUC")] - pv[(2, "B3", "pair ROC-AUC")]
    ft_claim("T2_pair_auc", "hard negatives raise the pair ROC-AUC (M1 - B3)", "M1", "B3", "pair AUC",
             "§5.2: 0.961 - 0.769", p, criterion=direction_unless_ceiling(p, seeds_of("B3", "pair AUC").mean(),
                                                                          "B3's pair AUC"))
    ft_claim("T11_m1_vs_b3_aniso", "Table 11: M1 is less anisotropic than B3", "M1", "B3", "anisotropy",
             "App. H: 0.015 - 0.166", pv[(11, "M1", "anisotropy")] - pv[(11, "B3", "anisotropy")])
    ft_claim("T11_m1_vs_b3_erank", "Table 11: M1 has a higher effective rank than B3", "M1", "B3", "effective rank",
             "App. H: 239.4 - 193.9", pv[(11, "M1", "effective rank")] - pv[(11, "B3", "effective rank")])

# %% [markdown]
# **The BCE term and its alternative** (App. H: B1 against B3; App. F: B1-unified, hard negatives in the InfoNCE
# denominator, against B1).

# %%
if {"B1", "B3"} <= have:
    ft_claim("T11_b1_vs_b3_aniso", "App. H: hard negatives dominate the geometry: B1 less anisotropic than B3",
             "B1", "B3", "anisotropy", "App. H: 0.012 - 0.166",
             pv[(11, "B1", "anisotropy")] - pv[(11, "B3", "anisotropy")])
    ft_claim("T11_b1_vs_b3_erank", "App. H: B1 has a higher effective rank than B3", "B1", "B3", "effective rank",
             "App. H: 247.2 - 193.9", pv[(11, "B1", "effective rank")] - pv[(11, "B3", "effective rank")])
if {"B1-unified", "B1"} <= have:
    for cid, col, pcol in [("unified_negate_drop", "AUC negation", "Negate ROC-AUC"),
                           ("unified_pair_auc", "pair AUC", "pair ROC-AUC"), ("unified_r10", "t2d R@10", "t2d R@10"),
                           ("unified_mrr", "t2d MRR", "t2d MRR")]:
        p = pv[(10, "B1-unified - B1", pcol)]
        ft_claim(cid, f"App. F: B1-unified - B1 {col} (hard negatives in the InfoNCE denominator instead of BCE)",
                 "B1-unified", "B1", col, "App. F", p)

# %% [markdown]
# **Readouts** (H2, §5.3, Table 3): M2 and M3 against B1 and M1 as §5.3 compares them; B2 ([CLS]) and the K = 6
# window against B1 on the three splits (in-domain t2d, HH, SH proxy); and the table's summary, no readout
# above B1 on every split.

# %%
ft_claim("T3_m2_vs_b1", "H2: the input-dependent gate (M2) matches or marginally exceeds B1 (t2d R@10)", "M2", "B1",
         "t2d R@10", "§5.3", pv[(3, "M2 - B1", "t2d R@10")],
         criterion=stats.level(pv[(3, "M2 - B1", "t2d R@10")], tol=0.01, tol_reason="§5.3 and the Table 3 caption "
                               "call a margin under 1 % absolute a match"))
ft_claim("T3_m3_above_m1", "H2: deep supervision (M3) improves over the static mixture M1 (t2d R@10)", "M3", "M1",
         "t2d R@10", "§5.3", "M3 above M1", criterion=stats.direction(sign=+1))
ft_claim("T3_m3_below_b1", "H2: deep supervision (M3) does not reach B1 (t2d R@10)", "M3", "B1", "t2d R@10",
         "§5.3", "M3 below B1", criterion=stats.direction(sign=-1))
SPLITS = {"t2d": "t2d R@10", "HH": "HH t2d R@10", "SH": "SH proxy t2d R@10"}
# claims: T3_{tag}_below_b1_{split_name}
for cond, tag in [("B2", "b2"), ("M1-K6", "k6")]:
    for split_name, col in SPLITS.items():
        ft_claim(f"T3_{tag}_below_b1_{split_name}", f"H2: {cond} underperforms B1 on the {split_name} split (R@10)",
                 cond, "B1", col, "§5.3", f"{cond} below B1", criterion=stats.direction(sign=-1))
above = {c: all((stats.paired(seeds_of(c, col), seeds_of("B1", col)).ci or (0, 0))[0] > 0 for col in SPLITS.values())
         for c in ["B2", "M1", "M1-K6", "M2", "M3"]}  # one seed: no interval, never "above"
_ = ledger.claim("T3_no_consistent_gain", "H2: no cross-layer or CLS readout beats B1 on every split", "none",
                 {f"{c} not above B1 on every split": not v for c, v in above.items()},
                 holds("no readout's paired 95 % CI lies above B1 on all three splits"), kind="paper",
                 source="§5.3", regime=REGIME_FT, note=f"{probe}; SH is our lexicographer-file proxy")
ledger.claim("mpnet_backbone", "fine-tuned conditions on all-mpnet-base-v2 (the paper's backbone)", "8k steps", None,
             not_testable("fine-tuning 12-layer mpnet does not fit the cpu budget; its frozen B0/B0-WM and "
                          "layer-wise analysis are in notebook 04"), kind="paper", source="Table 1")
print(f"notebook wall time so far {time.perf_counter() - T0:.0f} s; per condition (train s, eval s):",
      {f"{k[0]} s{k[1]}": tuple(round(x) for x in v) for k, v in times.items()})

# %% [markdown]
# ## Closing note (cpu profile, executed)
#
# **Sizes and times.** all-MiniLM-L6-v2, one thread. Evaluation: 500 in-domain test concepts (1,748 rule-made hard
# negatives), 300 head-holdout and 300 source-holdout-proxy concepts (t2d R@10); the training synsets avoid all three
# test parts. Section 3: eight conditions × seeds 0, 1, 2, top layer only, 150 steps × batch 16 on 800 synsets, LR
# 2e-4 (readout 1e-3), at most 2 hard negatives per definition and step; 12–35 s of training per run. Section 5: B1
# for 600 steps on 1,600 synsets, seeds 0, 1, 2, about 90 s each with the geometry logged every 50 steps. Whole
# notebook about 17 minutes on one shared core.
#
# Fine-tuned comparisons: mean over seeds with the 95 % t interval of the paired per-seed differences. The regimes
# named in the claims (top-layer MiniLM after 150 or 600 steps; a 6-layer frozen backbone) cap every verdict at
# *partly* and turn *not reproduced* into *inconclusive*.
#
# | claim | paper (location) | ours | verdict |
# |---|---|---|---|
# | P1: B1 − B0 anisotropy, end of the 600-step runs | −0.114 (App. H) | **+0.129** [+0.118, +0.139] | inconclusive (opposite sign, regime) |
# | P1: effective rank stays (B1 / B0) | 1.001 ± 0.032 (App. H) | 0.927 [0.926, 0.929] | inconclusive (outside the band, regime) |
# | P1: B1 − B0 t2d R@10, 600 steps | +0.102 (§1) | +0.071 [+0.068, +0.074] | partly |
# | H1: B1 − B0 t2d R@10 / negation AUC, 150 steps | +0.102 / +0.510 (§5.2) | +0.076 / +0.285 | partly / partly |
# | P2: layer-wise t2d MRR peaks at the last layer (frozen) | final layer (§1) | hidden state 6 of 6 (0.397; ≤ 0.212 below) | partly |
# | P2: B0-WM − B0 t2d R@10 | −0.160 (App. H) | −0.120 (0.412 vs 0.532) | partly |
# | App. H: last-layer / lowest earlier-layer anisotropy | 0.146 / 0.45 = 0.32 | 0.089 / 0.543 = 0.16 | partly |
# | Table 11: B0-WM − B0 anisotropy / effective rank | +0.177 / −70.0 (App. H) | +0.388 / −56.3 | partly / partly |
# | frozen negation AUC below chance | 0.470 (§5.2) | 0.530 | inconclusive (regime; ours above 0.5) |
# | P3: M1 − B3 negation AUC | +0.456 (§5.4) | +0.185 [+0.169, +0.201] | partly |
# | P3: M1 − B3 t2d R@10 near −0.006 (± 0.01) | −0.006 (§5.4) | −0.011 [−0.023, +0.002] | inconclusive (CI wider than the band) |
# | M1 − B3 type-swap / pair AUC | +0.504 (§5.4) / +0.192 (§5.2) | +0.000 / +0.001 | inconclusive (ceiling: B3 at 0.919 / 0.905) |
# | Table 11: M1 − B3 anisotropy / effective rank | −0.151 / +45.5 (App. H) | +0.017 / +1.7 | inconclusive (opposite sign) / partly |
# | App. H: B1 − B3 anisotropy / effective rank | −0.154 / +53.3 | −0.109 / +26.5 | partly / partly |
# | App. F: B1-unified − B1 negation AUC / pair AUC | −0.182 / −0.058 | −0.105 / +0.006 | partly / inconclusive (opposite sign) |
# | App. F: B1-unified − B1 t2d R@10 / MRR | +0.012 / +0.014 | +0.008 [−0.010, +0.026] / +0.015 | inconclusive / partly |
# | §5.3: M2 − B1 t2d R@10 within ± 0.01 of +0.005 | +0.005 | −0.001 [−0.039, +0.037] | inconclusive (CI wider than the band) |
# | §5.3: M3 above M1 / M3 below B1 (t2d R@10) | M3 between | −0.007 [−0.013, −0.002] / −0.031 [−0.051, −0.011] | inconclusive (opposite sign) / partly |
# | §5.3: B2 below B1 on t2d / HH / SH | below on all splits | −0.054 / −0.056 / +0.010 [−0.015, +0.035] | partly / partly / inconclusive |
# | §5.3: K = 6 window below B1 on t2d / HH / SH | below on all splits | −0.064 / −0.114 / −0.064 | partly × 3 |
# | §5.3: no readout above B1 on every split | none | none of B2, M1, M1-K6, M2, M3 | partly |
#
# **Reading.** *P1 at the scale we can run.* The long runs answer the question the 150-step runs could not: the
# statistics have settled (less than a tenth of each curve's movement falls in the last fifth of training, every
# seed), and they settle where P1 says they should not. One trained layer of MiniLM, 600 steps (7.5 % of the paper's
# 8k on one layer of six) with the paper's objective, raises anisotropy from 0.089 to 0.22 (it peaks near 0.34 after
# 100 steps and then falls, but stays above B0) and lowers the effective rank by 7 %, while retrieval rises and then
# holds (t2d R@10 0.53 → 0.60). What was scaled: the backbone (MiniLM for mpnet), the trained depth (top layer only),
# the step count, the data (1,600 WordNet synsets against 3.3M pairs) and the BCE logit's scale and offset (not in
# the text). The verdict is therefore *inconclusive*, not a refutation: the direction is opposite to the paper's and
# firm across seeds, in a regime unlike the paper's. *Readouts (Table 3).* With M2 and M3 on three seeds, the
# gate matches B1 (−0.001, but the interval is ±0.04, too wide to confirm a 1 % match), deep supervision falls below
# both M1 and B1, and [CLS] and the K = 6 window lose to B1 on the in-domain and head-holdout splits; on the
# source-holdout proxy [CLS] ties. No readout beats mean pooling on every split, as §5.3 says. *Hard negatives.* The
# BCE term raises the negation AUC by +0.19 without moving ranking detectably (P3's shape at about 40 % of its size);
# type-swap and pair AUCs are at about 0.9 for MiniLM already. B3 and M1 share the weighted readout, whose frozen
# version (B0-WM) is already at anisotropy 0.48, so Table 11's M1 − B3 anisotropy gap has little to show here. The
# learned layer weights of B3/M1 moved little (last layer 0.28 of K = 4).

# %%
ledger.table()

# %%
ledger.save()
show_provenance(ledger)
