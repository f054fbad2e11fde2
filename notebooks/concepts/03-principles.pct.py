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
# **Paper.** Mohr, Dujany, Souquet & Freitas, *Principles of Concept Representation in Sentence Encoders*, arXiv
# 2606.06994, §4–5 and App. F, H (Tables 2–4, 10, 11; Figures 3–5).
#
# Encoders learn to find a WordNet definition from its term (t2d) and a term from its definition (d2t). Two frozen
# readouts of all-MiniLM-L6-v2, B0 (the last layer's mean) and B0-WM (the mean of the last four layers), face eight
# fine-tuned ones (B1–B3, M1–M3, two variants) on retrieval, hard negatives and geometry; principle P1
# (fine-tuning reshapes the space, not enlarges it) is followed along a long run. Scale: MiniLM's top layer, a
# fraction of the paper's 8,000 steps; section 7 repeats the fine-tuned conditions on the paper's backbone,
# all-mpnet-base-v2 (top layers, fewer steps). The claims table at the end holds the computed verdicts.

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
    import nltk

    nltk.download("wordnet", quiet=True)
    os.environ.update(COMPANION_REPO_ROOT="/content/companion", COMPANION_DATA_DIR="/content/companion-data")

# %% tags=["parameters"]
profile = "cpu"
gpu_grid = "day"  # the gpu profile's grid: "day" (one GPU-day on one H100) or "full" (the paper's)
seeds = None
n_rows = None
steps = None
p1_steps = None
mpnet_steps = None

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
from companion.papers.concepts.settings import MPNET_REGIME, PRINCIPLES
from companion.encoders.states import LowerStates
from companion.papers.concepts.evaluation import (ClaimMonitor, ConceptRetrieval, EmbeddingLookup, GeometryMonitor,
                                                  PairedConditionClaims, curve_plateau, exact_direction,
                                                  loss_plateau, paired_item_bootstrap, room, split_recalls,
                                                  loss_trained, verdict_summary)
from companion.papers.concepts.finetune import run_conditions, top_layer_recipe, train_condition
from companion.papers.concepts.readouts import TopLayerConceptModel
from companion import stats
from companion.results import Ledger, at_most, holds, not_testable, show_provenance
from companion.display import panel_grid, reader_display

reader_display()  # tables whole, numbers to three significant digits

# %% [markdown]
# ## What runs, at which scale, and how the claims are judged
#
# **What runs.** Frozen B0 (last-layer mean pool) and B0-WM (uniform mean of the last K = 4 layers — two thirds of
# MiniLM's 6 layers, against a third of the paper's 12-layer mpnet); fine-tuned B1 (mean + hard negatives), B2
# ([CLS] token + hard negatives), B3 (learned weighted mean of the last 4 layers, no hard negatives), M1 (weighted
# mean + hard negatives), M1 with the wider K = 6 window, M2 (input-dependent gate), M3 (deep supervision) and
# B1-unified (hard negatives in the InfoNCE denominator, no binary cross-entropy (BCE) term). Recipe (§4.3):
# $L = L_\mathrm{syn} + L_\mathrm{t2d} + 0.5\,L_\mathrm{neg}$ (d2d, definition-to-definition pairs across sources,
# dropped: WordNet is one source), batch 16, AdamW, linear warm-up (the paper's 100/8000 fraction) and linear decay,
# layer-wise learning-rate (LR) decay 0.9, 5× LR for pooling parameters, the five rule-made hard negatives per
# definition where the rule applies. Metrics on held-out synsets: in-domain t2d/d2t R@10 (recall at rank 10) and MRR
# (mean reciprocal rank), pair ROC-AUC (area under the ROC curve), the five per-rule stress AUCs, anisotropy (10,000
# random pairs) and effective rank (App. H's definitions, those of the paper's numbers); t2d R@10 on the
# head-holdout split and on a source-holdout proxy (Table 3's columns); layer-wise MRR and anisotropy (Fig 3),
# anisotropy vs effective rank (Fig 5); and P1's statistics logged along a long B1 run. Claims compare **within-run
# differences, paired over seeds**, with the paper's differences (`companion.stats`).
#
# **Scaled down for the `cpu` profile (one thread on a shared 2-core machine)**: only the top transformer layer of 6
# is trained (`n_top`, over cached lower-layer states; the paper fine-tunes all of mpnet). Section 3: `steps` steps
# per condition and seed (the paper: 8k) on `n_train` training synsets, at learning rate `lr` (the pooling parameters
# at `pooling_lr_mult` times it; the paper's base LR is not stated, we raised the common 5e-5 because the runs are
# short), at most `max_negatives` of each definition's (up to 5) hard negatives per step (a fresh draw each step,
# the same for every condition; the paper uses all five), every seed of the settings for all eight conditions,
# evaluated on `n_rows` held-out in-domain concepts and `n_split_rows` of each other split. Section 5 (P1): B1 for
# `p1_steps` steps on `p1_n_train` synsets — still a small fraction of the paper's step count, on one layer; a
# plateau check on the logged curves says whether they flattened. Section 7 runs the paper's own backbone,
# all-mpnet-base-v2, as a second regime (its top layers trained; notebook 04 analyses it frozen). Section 5b trains the top `p2_n_top` layers of B1 so that the layers below the last can move
# (§5.1). The settings cell below prints every value. Verdicts are computed in the claims table at the end, never
# typed.
#
# Settings per profile (smoke: 24 test concepts, 48 training synsets, 2 steps; cpu: the scale described above; gpu:
# the paper's 8k steps on all twelve layers), the claims ledger and the numbers the paper states. `p1_*`: the long
# B1 runs of section 5 (P1's geometry curves); `p2_n_top`: the layers B1 trains in section 5b (§5.1's earlier
# layers).

# %%
cfg = PRINCIPLES(profile, gpu_grid=gpu_grid, seeds=seeds, n_rows=n_rows, steps=steps, p1_steps=p1_steps)
torch.set_num_threads(cfg.threads)
ledger = Ledger("concepts", "03-principles", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)
paper = C.paper_numbers()  # the numbers the paper text states for its tables, with their location
pv = paper.dropna(subset=["number"]).set_index(["table", "row", "column"])["number"]
sns.set_theme(style="whitegrid", context="notebook")
T0 = time.perf_counter()
cfg

# %% [markdown]
# The gpu profile, setting by setting: value, source (paper or authors' code) and why it departs.

# %%
from companion.gpu_settings import gpu_table  # noqa: E402

gpu_table(PRINCIPLES, cfg)

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
claim_metrics = ClaimMonitor(evaluate, split_monitors)  # every metric the claims read, also along training
cr = run_conditions(enc, lower, rows, recipe_common, cfg.conditions, cfg.seeds, score=claim_metrics,
                    monitor_every=max(1, cfg.steps // cfg.curve_points), keep=["B1"], profile=cfg.profile,
                    spec=dict(model=cfg.model, n_rows=cfg.n_rows, n_split_rows=cfg.n_split_rows, version=1))
results, times, weights, histories = cr.ft.to_dict("records"), cr.times, cr.weights, cr.histories
pd.DataFrame([{"condition": r["condition"], "seed": r["seed"], "train s": times[(r["condition"], r["seed"])][0],
               "s/step": times[(r["condition"], r["seed"])][0] / max(cfg.steps, 1), "first loss": r["first_loss"],
               "last loss": r["last_loss"]} for r in results]).round(3)

# %%
print("learned layer weights (oldest hidden state first, the last layer last):",
      {f"{k[0]} s{k[1]}": [round(float(w), 3) for w in v] for k, v in weights.items()})

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
fig, axes = plt.subplots(1, 3, figsize=(10, 3.6))
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
fig, axes = panel_grid(len(show), panel_height=3.6)
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
# have settled (the plateau check of section 6); the claims read their last point.

# %%
p1_rows = C.training_rows(data, train_sids, n=cfg.p1_n_train, seed=0)
lower.precompute(p1_rows.texts())
p1_recipe = dict(recipe_common, steps=cfg.p1_steps, n_train=cfg.p1_n_train)
monitor = GeometryMonitor(ev)
start = dict(step=0, **monitor(frozen))
curves = []
for seed in cfg.seeds:
    _, res, p1_s = train_condition(enc, lower, p1_rows, "B1", seed, p1_recipe, monitor=monitor,
                                   monitor_every=cfg.p1_every, profile=cfg.profile)
    curves.append(pd.DataFrame([start] + [h for h in res.history if "anisotropy" in h]).assign(seed=seed))
    print(f"B1 seed {seed}: {cfg.p1_steps} steps in {p1_s:.0f} s ({p1_s / cfg.p1_steps:.2f} s/step with logging)")
curves = pd.concat(curves, ignore_index=True)
p1_end = curves[curves["step"] == cfg.p1_steps].set_index("seed").loc[cfg.seeds]
curves.groupby("step")[["t2d R@10", "anisotropy", "effective rank"]].mean().round(3).T

# %%
P1_STATS = {"t2d R@10": "t2d R@10", "anisotropy": "anisotropy", "effective rank": "effective rank"}
fig, axes = plt.subplots(1, 3, figsize=(10, 3.4))
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
# ## 5b. The layers below the last after fine-tuning (§5.1)
#
# §5.1 says fine-tuning sharpens the final-layer concentration: the earlier layers see lower MRR and higher
# anisotropy after training. Section 3 trains only the top layer, so its earlier layers cannot move; here B1 trains
# the top `p2_n_top` layers (three of MiniLM's six in the cpu profile; the same recipe, steps, rows and seeds as
# section 3, layer-wise LR decay 0.9 below the top), and the t2d MRR and anisotropy of every trained hidden state
# below the last are compared with the frozen encoder's, seed by seed.

# %%
p2_lower = LowerStates(enc, start=n_layers - cfg.p2_n_top, means="all")
p2_lower.precompute(texts + rows.texts())
p2_recipe = dict(recipe_common, n_top=cfg.p2_n_top)
p2_states = list(range(n_layers - cfg.p2_n_top + 1, n_layers))  # trained hidden states below the last
p2_rows, p2_hist = [], []
for seed in cfg.seeds:
    model, res, p2_s = train_condition(enc, p2_lower, rows, "B1", seed, p2_recipe, profile=cfg.profile)
    LT = model.encode_layers(texts)
    window = max(1, len(res.history) // 10)
    p2_hist.append(res.history)
    p2_rows.append(dict(seed=seed, first_loss=float(np.mean([h["loss"] for h in res.history[:window]])),
                        last_loss=float(np.mean([h["loss"] for h in res.history[-window:]])),
                        **{f"{stat} h{h}": evaluate(LT[:, h])[stat] for h in p2_states
                           for stat in ("t2d MRR", "anisotropy")}))
    print(f"B1 top {cfg.p2_n_top} seed {seed}: {cfg.steps} steps in {p2_s:.0f} s")
p2 = pd.DataFrame(p2_rows).set_index("seed")
p2_before = {f"{stat} h{h}": float(table.loc[f"layer {h}", stat]) for h in p2_states
             for stat in ("t2d MRR", "anisotropy")}
pd.concat([pd.Series(p2_before, name="frozen"), p2.drop(columns=["first_loss", "last_loss"]).T], axis=1).round(3)

# %% [markdown]
# ## 6. Claims: the paper's differences against ours
#
# Every fine-tuned comparison pairs the conditions seed by seed (same batches) and goes through the one rule of
# `companion.stats` (`direction`): the mean difference over the seeds with its 95 % t interval, against the paper's
# difference between the same two rows. The paper prints one run (no seed spread), so the magnitude tolerance is half
# the paper's effect. The CI on the paper's side of 0 is *reproduced* within that tolerance, else *partly*; on the
# other side *not reproduced*; covering 0 *not reproduced* when it lies inside the tolerance band (the effect is
# absent), *inconclusive: underpowered* when the design cannot detect an effect the paper's size, else
# *inconclusive*. A statement of a level (a difference "near" a value, a ratio that "stays") is judged against the
# band the paper's own wording implies (`level`). Before any of this, the validity checks measured in our runs
# apply: each condition's loss fell (`trained`), the claim's own quantity (the compared difference, scored
# `curve_points` times along training; nothing is selected on it) reached its plateau or moves only the way that
# strengthens the verdict (`plateau`), and where the
# reference level leaves less room than the paper's change (`ceiling` / `floor`) the claim cannot show it. A failed
# check makes the claim *inconclusive* and names it. Frozen B0/B0-WM are one deterministic run: a difference of a
# per-concept rate gets a bootstrap interval over the test concepts; a spectral statistic of the whole pool
# (anisotropy, effective rank) is judged as an exact value. The regime (how our run differs from the paper's:
# backbone, layers trained, steps, data) stands beside every verdict and never changes it. Anisotropy and effective
# rank follow App. H (mean cosine of 10,000 random pairs; exp entropy of the normalised singular values), the
# definitions of the paper's numbers.

# %%
MODEL = cfg.model.split("/")[-1]
REGIME_FT = (f"{MODEL}, top {cfg.n_top} of {n_layers} layers, {cfg.steps} steps, {len(rows)} WordNet synsets, "
             f"{len(cfg.seeds)} seeds (paper: all of mpnet, 8k steps, 3.3M pairs, one seed)")
REGIME_FROZEN = f"frozen {MODEL} (K = 4 of {n_layers} layers; paper: mpnet, 4 of 12), {cfg.n_rows} WordNet test concepts"
probe = f"top-{cfg.n_top} layer, {cfg.steps} steps x batch {cfg.batch}, {len(rows)} train synsets, {cfg.n_rows} test"
first = {n: g.sort_values("seed")["first_loss"].to_numpy() for n, g in ft.groupby("condition")}
last = {n: g.sort_values("seed")["last_loss"].to_numpy() for n, g in ft.groupby("condition")}
checks = {n: [loss_trained([histories[(n, s)] for s in cfg.seeds], n)] for n in first}
ledger.claim("objective_trained", "every fine-tuned condition's loss moved off its start (its last third against its "
             "first by more than two standard errors of its own scatter), every seed",
             ours={n: c[0].passed for n, c in checks.items()},
             criterion=holds("each condition's loss moved"), kind="check",
             note="; ".join(c[0].detail for c in checks.values()))
pd.DataFrame([{"condition": n, "check": c.name, "passed": c.passed, "detail": c.detail}
              for n, cs in checks.items() for c in cs])

# %%
# a - b of one metric, paired over seeds (frozen readouts repeat their single value), with each condition's checks
paired = PairedConditionClaims(ledger, table, ft, cfg.seeds, checks, REGIME_FT, probe, curves=cr.curves)
seeds_of, ft_claim = paired.seeds_of, paired.claim

# %% [markdown]
# **The frozen encoder** (P2 and Table 11): one deterministic run. The R@10 difference gets a bootstrap interval over
# the test concepts (the per-concept hits of the two readouts resampled together); anisotropy and effective rank are
# statistics of the whole pool, judged as exact values with the same tolerance policy.

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
                 paired_item_bootstrap(evaluate.hits(readouts["B0-WM"]), evaluate.hits(readouts["B0"]),
                                       "test concepts", labels=("B0-WM", "B0")),
                 stats.direction(p), kind="paper", source="App. H: 0.392 - 0.552", regime=REGIME_FROZEN,
                 note=f"B0 {b0['t2d R@10']:.3f}, B0-WM {wm['t2d R@10']:.3f}")

# %%
p = pv[(11, "B0-WM", "anisotropy")] - pv[(11, "B0", "anisotropy")]
ledger.claim("T11_wm_aniso_up", "Table 11: B0-WM is more anisotropic than B0", p,
             float(wm["anisotropy"] - b0["anisotropy"]), exact_direction(p), kind="paper",
             source="App. H: 0.303 - 0.126", regime=REGIME_FROZEN,
             note=f"B0 {b0['anisotropy']:.3f}, B0-WM {wm['anisotropy']:.3f}")
p = pv[(11, "B0-WM", "effective rank")] - pv[(11, "B0", "effective rank")]
ledger.claim("T11_wm_erank_down", "Table 11: B0-WM has a lower effective rank than B0", p,
             float(wm["effective rank"] - b0["effective rank"]), exact_direction(p), kind="paper",
             source="App. H: 177.0 - 247.0", regime=REGIME_FROZEN + f"; d = {enc.dim} (paper: 768)",
             note=f"B0 {b0['effective rank']:.1f}, B0-WM {wm['effective rank']:.1f} ({cfg.n_rows} definitions)")
_ = ledger.claim("B0_negate_below_chance", "the frozen encoder fails the negation stress test (AUC below chance)",
                 pv[(2, "B0", "Negate ROC-AUC")], float(b0["AUC negation"]), at_most(0.5), kind="paper", source="§5.2",
                 regime=REGIME_FROZEN + "; 'not' put in front of glosses without a finite verb",
                 note=f"ours {b0['AUC negation']:.3f} over {int((hn['rule'] == 'negation').sum())} negatives")

# %% [markdown]
# **Per-layer anisotropy** (App. H, Fig. 3): the paper says the frozen encoder's last layer is far less anisotropic
# than the layers below it (0.146 against 0.45–0.50 for mpnet's layers 5–11), and (§5.1) that fine-tuning lowers
# the earlier layers' MRR and raises their anisotropy: section 5b's runs, paired over seeds against the frozen
# layers (the paper gives no number: a direction).

# %%
aniso = layer_rows["anisotropy"].to_numpy()[1:]  # transformer layers 1..L (hidden state 0 = embeddings)
ratio = pv[(11, "B0 layer 12 (frozen)", "anisotropy")] / pv[(11, "B0 layers 5-11 (frozen)", "anisotropy (low end)")]
ledger.claim("P2_last_layer_aniso", "App. H / Fig. 3: the frozen last layer is the least anisotropic, well below "
             "every earlier layer", round(ratio, 3), float(aniso[-1] / aniso[:-1].min()),
             at_most(0.5), kind="paper", source="App. H: 0.146 / 0.45", regime=REGIME_FROZEN,
             note=f"ours: last / lowest earlier layer; anisotropy by transformer layer {aniso.round(3).tolist()}; the "
                  "paper's ratio is about 1/3 (mpnet, NP pairs); 'far below' read as at most half")
REGIME_P2 = (REGIME_FT.replace(f"top {cfg.n_top} of", f"top {cfg.p2_n_top} of")
             + "; layers read on WordNet t2d (paper: NP pairs)")
p2_checks = [loss_trained(p2_hist, "B1"),
             loss_plateau(p2_hist, f"B1 top {cfg.p2_n_top}")]
for cid, stat, sign, text in [
        ("P2_earlier_layers_after_ft", "t2d MRR", -1,
         "§5.1: fine-tuning lowers the t2d MRR of the trained layers below the last (mean over those layers)"),
        ("P2_earlier_layers_aniso_after_ft", "anisotropy", +1,
         "§5.1: fine-tuning raises the anisotropy of the trained layers below the last (mean over those layers)")]:
    after = p2[[f"{stat} h{h}" for h in p2_states]].mean(axis=1).loc[cfg.seeds].to_numpy()
    before = np.mean([p2_before[f"{stat} h{h}"] for h in p2_states])
    ledger.claim(cid, text, "earlier layers: lower MRR, higher anisotropy",
                 stats.paired(after, np.full(len(cfg.seeds), before), labels=("after", "frozen")),
                 stats.direction(sign=sign), kind="paper", source="§5.1", regime=REGIME_P2, validity=p2_checks,
                 note=f"hidden states {p2_states}; frozen {before:.3f}, after per seed {np.round(after, 3).tolist()}")

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
# judged with the tolerance the paper itself uses: App. H calls M1's effective rank (239.4) "marginally below" B1's
# (247.2). Validity: B1's loss fell, and each statistic's seed-mean curve reached its plateau (the slope over the last
# third of training has a 95 % interval covering zero, or its gain there is at most a quarter of the compared
# difference; `companion.stats.plateau`).

# %%
REGIME_P1 = REGIME_FT.replace(f"{cfg.steps} steps", f"{cfg.p1_steps} steps").replace(
    f"{len(rows)} WordNet", f"{len(p1_rows)} WordNet")
p1 = {col: stats.paired(p1_end[col].to_numpy(), np.full(len(cfg.seeds), start[col]), labels=("B1", "B0"))
      for col in P1_STATS}
for cid, col, src in [("P1_aniso_falls", "anisotropy", "App. H: 0.012 - 0.126"),
                      ("P1_r10_up", "t2d R@10", "§1 (P1): 0.654 - 0.552")]:
    p = pv[(11 if col == "anisotropy" else 2, "B1", col)] - pv[(11 if col == "anisotropy" else 2, "B0", col)]
    ledger.claim(cid, f"P1: fine-tuning (B1, the long runs) changes {col} vs B0 as the paper says", p, p1[col],
                 stats.direction(p), kind="paper", source=src, regime=REGIME_P1,
                 validity=curve_plateau(curves, col, gap=p1[col].estimate, what=f"B1 {col} curve (mean over seeds)"),
                 note=f"B0 {start[col]:.3f}; B1 per seed {p1_end[col].round(3).tolist()}")
p = pv[(11, "B1", "effective rank")] / pv[(11, "B0", "effective rank")]
ledger.claim("P1_erank_stays", "P1: effective rank stays (B1 after the long runs / B0)", round(p, 4),
             stats.sample(p1_end["effective rank"].to_numpy() / start["effective rank"]),
             stats.level(p, tol=0.032, tol_reason="App. H calls M1's 239.4 against B1's 247.2 (-3.2 %) marginally "
                         "below"), kind="paper", source="App. H: 247.2 / 247.0", regime=REGIME_P1,
             validity=curve_plateau(curves, "effective rank", gap=p1["effective rank"].estimate,
                                    what="B1 effective rank curve (mean over seeds)"),
             note=f"B0 {start['effective rank']:.1f}; B1 per seed {p1_end['effective rank'].round(1).tolist()}")

# %% [markdown]
# **Hard negatives** (P3, H3, Table 11: M1 against B3, the same readout without them). Where B3's level leaves less
# room than the paper's gain (a ceiling measured in our run), the claim is inconclusive.

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
             "§5.4: 0.976 - 0.472", p,
             validity=[room(p, seeds_of("B3", "AUC type_swap").mean(), "B3's type-swap AUC")])
    p = pv[(2, "M1", "pair ROC-AUC")] - pv[(2, "B3", "pair ROC-AUC")]
    ft_claim("T2_pair_auc", "hard negatives raise the pair ROC-AUC (M1 - B3)", "M1", "B3", "pair AUC",
             "§5.2: 0.961 - 0.769", p, validity=[room(p, seeds_of("B3", "pair AUC").mean(), "B3's pair AUC")])
    ft_claim("T11_m1_vs_b3_aniso", "Table 11: M1 is less anisotropic than B3", "M1", "B3", "anisotropy",
             "App. H: 0.015 - 0.166", pv[(11, "M1", "anisotropy")] - pv[(11, "B3", "anisotropy")])
    ft_claim("T11_m1_vs_b3_erank", "Table 11: M1 has a higher effective rank than B3 (log ratio M1 / B3)", "M1",
             "B3", "effective rank", "App. H: 239.4 / 193.9",
             round(float(np.log(pv[(11, "M1", "effective rank")] / pv[(11, "B3", "effective rank")])), 4),
             ratio=True, note=f"effective rank in d = {enc.dim} (paper: 768), compared as log ratios")

# %% [markdown]
# **The BCE term and its alternative** (App. H: B1 against B3; App. F: B1-unified, hard negatives in the InfoNCE
# denominator, against B1).

# %%
if {"B1", "B3"} <= have:
    ft_claim("T11_b1_vs_b3_aniso", "App. H: hard negatives dominate the geometry: B1 less anisotropic than B3",
             "B1", "B3", "anisotropy", "App. H: 0.012 - 0.166",
             pv[(11, "B1", "anisotropy")] - pv[(11, "B3", "anisotropy")])
    ft_claim("T11_b1_vs_b3_erank", "App. H: B1 has a higher effective rank than B3", "B1", "B3", "effective rank",
             "App. H: 247.2 - 193.9", pv[(11, "B1", "effective rank")] - pv[(11, "B3", "effective rank")],
             note=f"effective rank in d = {enc.dim} (paper: 768)")
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
# above B1 on every split. §5.3 gives no number for these (the table body is not in the text) except M2's margin:
# directions only.

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
READOUTS_H2 = ["B2", "M1", "M1-K6", "M2", "M3"]
above = {c: all((stats.paired(seeds_of(c, col), seeds_of("B1", col)).ci or (0, 0))[0] > 0 for col in SPLITS.values())
         for c in READOUTS_H2}  # one seed: no interval, never "above"
_ = ledger.claim("T3_no_consistent_gain", "H2: no cross-layer or CLS readout beats B1 on every split", "none",
                 {f"{c} not above B1 on every split": not v for c, v in above.items()},
                 holds("no readout's paired 95 % CI lies above B1 on all three splits"), kind="paper",
                 source="§5.3", regime=REGIME_FT,
                 validity=paired.validity("B1", *READOUTS_H2) + [paired.plateau(c, "B1", col) for c in READOUTS_H2
                                                                for col in SPLITS.values()],
                 note=f"{probe}; SH is our lexicographer-file proxy")
print(f"notebook wall time so far {time.perf_counter() - T0:.0f} s; per condition (train s, eval s):",
      {f"{k[0]} s{k[1]}": tuple(round(x) for x in v) for k, v in times.items()})

# %% [markdown]
# ## 7. The paper's backbone: all-mpnet-base-v2, its top layers trained (the second regime)
#
# Sections 3–6 train MiniLM; the paper trains all-mpnet-base-v2 (12 layers, d = 768). Here the same recipe runs on
# mpnet: the top `n_top` of its 12 layers are trained over cached lower-layer states, MPNet's relative position bias
# handed to every trained layer as the full model does (`tests/core/encoders/test_mpnet_top_layers.py` shows this
# path equals the full model to about 1e-7 and misses it by about 0.06 without the bias). A step of two mpnet
# layers costs a few seconds on one core (measured before the settings were chosen; each run's time is printed
# below), so the regime fits about half an hour of one core by training `steps` steps per condition and seed on `n_train` synsets and evaluating on
# `n_rows` concepts (`n_split_rows` per other split); the seven conditions are those of Table 3 and B3 (P3, App. H);
# B1-unified (App. F) is the one MiniLM condition left out. B1's geometry is logged every `p1_every` steps, so P1 is
# read at the end of B1's own runs; with two trained layers, §5.1's earlier layer (hidden state 11) can move. Every
# run is cached on disk (`companion.papers.concepts.backbone`): a re-execution reads them back. Each claim is
# recorded once per regime: the ids of this one start with `mpnet_`, and the regime column names the backbone. In
# the gpu profile sections 3–6 already are the paper's backbone, so this section records its claims as not
# testable.

# %%
from companion.papers.concepts.backbone import backbone_claims, run_backbone_regime

mp_cfg = MPNET_REGIME(profile, gpu_grid=gpu_grid, steps=mpnet_steps)  # companion.papers.concepts.settings
ledger.regime_settings("mpnet", mp_cfg)  # the provenance records it beside the notebook's own settings
mp_cfg

# %%
mp = run_backbone_regime(mp_cfg, data, recipe_cfg=cfg) if mp_cfg.model and mp_cfg.n_top else None
if mp is not None:
    print(f"{mp.regime}\n{mp.cached_runs} of {len(mp.ft)} runs read from the run cache; section wall time "
          f"{mp.wall_s:.0f} s; train / eval s per run (computed when first run):",
          {f"{k[0]} s{k[1]}": tuple(round(x) for x in v) for k, v in mp.times.items()})
    print("learned layer weights (oldest hidden state first):",
          {f"{k[0]} s{k[1]}": [round(float(w), 3) for w in v] for k, v in mp.weights.items()})
    display(mp.summary())  # mean ± 95 % t half-width over seeds; B0 and B0-WM are frozen (one value)

# %% [markdown]
# The frozen mpnet layer by layer (Fig. 3's statistics on our WordNet pool) and B1's geometry along its runs (P1;
# step 0 is frozen B0).

# %%
if mp is not None:
    display(mp.table.loc[[f"layer {i}" for i in range(mp.n_layers + 1)], ["t2d MRR", "d2t MRR", "anisotropy",
                                                                          "effective rank"]].round(3))
    display(mp.curves.groupby("step")[["t2d R@10", "anisotropy", "effective rank"]].mean().round(3).T)
    if not mp.p2.empty:
        display(mp.p2.drop(columns=["first_loss", "last_loss"]).round(3))

# %%
# claims: mpnet_{claim}
backbone_claims(ledger, mp, pv, skipped="the gpu profile's sections 3-6 already train all-mpnet-base-v2")

# %% [markdown]
# ## Closing summary (computed from the ledger)
#
# Every row below is computed in this run: the paper's statement, ours with its 95 % interval where there is one,
# the verdict with its reason, the validity checks that failed, and the regime. How to read it. *P1* is read at the
# end of the long B1 runs, after their curves' plateau check: a firm difference against the paper's direction there
# is *not reproduced* in our regime (MiniLM's top layer, a fraction of the paper's steps and data), which the regime
# column names. *Readouts (Table 3)*: §5.3's summary is that no readout beats mean pooling on every split; the
# per-split rows show where each readout stands. *Hard negatives*: the type-swap and pair AUCs carry a ceiling check,
# since MiniLM may already sit near 1 before any training. Effective-rank magnitudes are in our d = 384 against the
# paper's 768, so their tolerance (half the paper's gap) is a loose guide. The notes hold the per-seed values and the
# learned layer weights are printed in section 3. Rows whose id starts with `mpnet_` are the second regime, the
# paper's backbone (section 7): the same statements, side by side with MiniLM's.

# %%
verdict_summary(ledger)

# %%
ledger.table()

# %%
ledger.save()
show_provenance(ledger)
