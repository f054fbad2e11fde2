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
# # Supervised contrastive geometry: Hard vs Soft SupCon, class imbalance, the τ* erratum, Euclidean SupCon
#
# **Paper.** Vock, Duchesnay & Dufumier, *A Unified Geometric Framework for Weighted Contrastive Learning*, arXiv
# 2605.13943 (2026), §3.5, §3.7, §3.8, §4.2 (Fig. 4) and App. D.
#
# Supervised contrastive learning (SupCon) pulls together embeddings of one class. The paper locates its optimum:
# with balanced classes, a regular simplex of class points; with unbalanced classes, cosines between classes set by
# the class sizes; with soft weights (Soft SupCon), a geometry that keeps the simplex; with Euclidean similarity, a
# degenerate one. Each statement is tested on free embeddings (one vector per sample; float64, and the paper's Adam
# protocol): each claim is one deterministic number per seed against a stated tolerance. It also checks the printed
# simplex temperature τ*. What is tested follows; the claims table at the end holds the computed verdicts.

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
lbfgs_steps = None
adam_steps = None

# %%
import math
import warnings

warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import torch

from companion.papers.weighted_cl.free_embeddings import fit_free_embeddings
from companion.losses.weighted import (euclidean_similarities, hard_supcon_optimal_loss, soft_supcon_beta,
                                       soft_supcon_simplex_tau, soft_supcon_simplex_tau_paper, soft_supcon_weights,
                                       supcon_weights)
from companion.papers.weighted_cl.distance_geometry import (block_cosines, class_prototypes, delta_w,
                                                            solve_supcon_prototypes)
from companion.papers.weighted_cl.experiments import chain_sequence, chain_weights, paper_number, shape_spread
from companion.papers.weighted_cl.settings import SUPERVISED
from companion.results import Ledger, at_least, at_most, holds, show_provenance, within
from IPython.display import display
from companion.display import reader_display

reader_display()  # tables whole, numbers to three significant digits

# %% [markdown]
# ## What runs, at which scale, and how the claims are judged
#
# **Reproduces** §3.5 (Soft SupCon, Cor. 3.9), §3.7 (Euclidean SupCon is degenerate), §3.8 and App. D (Hard SupCon,
# Thm. 3.13, D.1–D.6: collapse, regular simplex when balanced, size-dependent inter-class cosines when imbalanced,
# the reduced prototype problem) and §4.2 / Fig. 4 (free embeddings, $d = C = 10$, Adam 5e-2 full batch, class
# ratios up to 1:2:…:10, Hard τ = 0.1, Soft ε = e⁻¹).
#
# **What is tested.** Everything runs on free embeddings (one free vector per sample; float64 L-BFGS, and the
# paper's own protocol of §4.2, Adam 5e-2 on the full batch for App. G's step budget), so each claim is one
# deterministic number per seed, judged by its worst case over the seeds against the tolerance it states. Paper
# claims: balanced Hard SupCon's collapse onto a centred regular simplex; under imbalance, inter-class cosines that
# depend only on the two class sizes, with minority classes grouped more closely; Fig. 4's heatmaps (Hard SupCon
# loses the simplex, Soft SupCon keeps it; equal shapes share a cosine); Soft SupCon's β = 1 + τ log ε for every
# pair and its attained bound (Cor. 3.9), and the simplex temperature τ* as printed; Euclidean SupCon's degenerate
# quasi-optima (§3.7); Thm. D.1's strict bound with a zero weight and its part 4 ("only if") on a chain of weights.
# Our own checks (passed or failed): the optimum's loss against Eq. 11, the bound's strictness formula, the reduced
# prototype problem against full free-embedding L-BFGS, and the corrected τ*. The verdicts are in the claims table
# at the end.
#
# Settings per profile (smoke: one seed, a few steps, two class ratios; cpu: the seeds, L-BFGS iterations, Adam
# steps and numbers of classes printed below), then the claims ledger.

# %%
torch.set_num_threads(1)  # small full-batch problems: one thread is fastest on a shared CPU
EPS = math.exp(-1)
cfg = SUPERVISED(profile, gpu_grid=gpu_grid, seeds=seeds, lbfgs_steps=lbfgs_steps, adam_steps=adam_steps)
ledger = Ledger("weighted-cl", "02-supervised-contrastive-geometry", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)
sns.set_theme(style="whitegrid", context="notebook")
offdiag = lambda M: M[~np.eye(len(M), dtype=bool)]  # noqa: E731
cfg

# %% [markdown]
# ## 1. Balanced Hard SupCon → collapsed regular simplex (Thm. 3.13)
#
# $w_{ij} = 1[y_i = y_j]$, $s = \cos/\tau$, $\ell = 5$ samples per class, $q = C$, float64 L-BFGS. The bound
# $H = \log(\ell - 1)$ is *not* attained; the optimum is collapsed with inter-class cosine $-1/(C-1)$ and
# $L^* = \log[(\ell-1) + (C-1)\ell\,e^{-C/((C-1)\tau)}]$.

# %%
rows = []
for C in cfg.Cs:
    for tau in cfg.taus:
        for seed in cfg.seeds:
            y = np.repeat(np.arange(C), cfg.per_class)
            fit = fit_free_embeddings(supcon_weights(y), dim=C, tau=tau, seed=seed, steps=cfg.lbfgs_steps)
            blocks, intra = block_cosines(fit.Z, y)
            L_star = hard_supcon_optimal_loss(C, cfg.per_class, tau)
            rows.append({"C": C, "tau": tau, "seed": seed, "min intra cos": intra.min(),
                         "max |inter + 1/(C-1)|": np.abs(offdiag(blocks) + 1 / (C - 1)).max(),
                         "|Σ μ_c|": np.linalg.norm(class_prototypes(fit.Z, y).sum(0)),
                         "L − L*": fit.loss - L_star, "L* − H": L_star - fit.bound})
balanced = pd.DataFrame(rows)
balanced.groupby(["C", "tau"]).agg("max")

# %%
WORST = "worst case over the seeds (free-embedding optima are deterministic given a seed)"
ledger.claim("hard-balanced-collapse", "Balanced Hard SupCon collapses each class to a prototype: min intra-class "
             "cos over C in {3, 4, 10}, tau in {0.1, 0.5}", "collapsed representations",
             float(balanced["min intra cos"].min()), at_least(1 - 1e-4), kind="paper", source="Thm 3.13",
             note=f"{WORST}; 1e-4 allows the optimiser's residual.")
ledger.claim("hard-balanced-simplex", "...onto a regular simplex, inter-class cos = -1/(C-1): max deviation",
             "beta_hard = -1/(C-1)", float(balanced["max |inter + 1/(C-1)|"].max()), at_most(1e-3), kind="paper",
             source="§3.8", note=f"{WORST}; the regular simplex is Thm D.6 (after Graf et al.).")
ledger.claim("hard-balanced-centred", "...with centred prototypes (sum of the unit prototypes = 0): max |sum mu_c|",
             "mu_1 + ... + mu_C = 0", float(balanced["|Σ μ_c|"].max()), at_most(1e-3), kind="paper",
             source="App. D", note=WORST)
ledger.claim("hard-balanced-Lstar", "our solver's loss equals Eq. 11 evaluated at beta = -1/(C-1): max |L - L*|",
             "L*", float(balanced["L − L*"].abs().max()), at_most(1e-6), kind="check",
             note="A closed-form consistency check (the optimum's loss against the formula), not a reproduction.")
ledger.claim("hard-bound-not-attained", "closed form: L* - H = log[(l-1) + (C-1) l e^(-C/((C-1) tau))] - log(l-1) "
             "> 0 for every configuration run", "> 0", float(balanced["L* − H"].min()), at_least(1e-12),
             kind="check", note="Formula against formula (the strictness of Thm D.1, part 2, for SupCon weights).")


# %% [markdown]
# ## 2. Imbalanced Hard SupCon and the reduced prototype problem (App. D)
#
# With collapsed classes the loss depends only on the $C\times C$ Gram matrix of unit prototypes (convex in $G$).
# We solve it directly and compare with full free-embedding L-BFGS: sizes [3, 3, 6, 6] at τ = 0.1 first.

# %%
sizes = [3, 3, 6, 6]
y = np.repeat(np.arange(4), sizes)
proto = solve_supcon_prototypes(sizes, tau=cfg.hard_tau)
full = fit_free_embeddings(supcon_weights(y), dim=4, tau=cfg.hard_tau, seed=cfg.seeds[0], steps=cfg.lbfgs_steps)
blocks_full, intra_full = block_cosines(full.Z, y)
names = [f"c{k} (n={s})" for k, s in enumerate(sizes)]
pd.concat({"prototype problem": pd.DataFrame(proto.gram, names, names).round(4),
           "free embeddings": pd.DataFrame(blocks_full, names, names).round(4)}, axis=1)

# %%
ledger.claim("imb-agrees-with-prototype", "Imbalanced Hard SupCon [3,3,6,6], tau = 0.1: full free-embedding "
             "L-BFGS and the reduced prototype problem agree: max |cos difference|", 0.0,
             float(np.abs(offdiag(blocks_full - proto.gram)).max()), at_most(1e-3), kind="check",
             note="Two solvers of ours against each other: the reduction (collapse, W-symmetric optimum) is valid. "
                  f"Prototype cosines: c0-c1 (3,3) {proto.gram[0, 1]:.4f}, c0-c2 (3,6) {proto.gram[0, 2]:.4f}, "
                  f"c2-c3 (6,6) {proto.gram[2, 3]:.4f}.")
same_shape = offdiag(blocks_full[:2, 2:])  # the four (3, 6) blocks of the full free-embedding optimum
ledger.claim("thm3.13-shape-only", "Inter-class cos depends only on the two class sizes: spread of the four "
             "(3, 6) blocks of the full free-embedding optimum (not symmetrised)", "depends only on (l_c, l_c')",
             float(same_shape.max() - same_shape.min()), at_most(1e-3), kind="paper", source="Thm 3.13",
             note="1e-3: the optimiser's residual on cosines (the solvers agree to that level above); the sizes "
                  f"move the cosines by {offdiag(blocks_full).max() - offdiag(blocks_full).min():.3f} over all blocks, "
                  "so the test can fail.")
ledger.claim("imb-minority-less-separated", "Imbalance groups minority classes more closely: minority-minority cos "
             "> majority-majority cos (full free-embedding optimum)", "minority classes grouped more closely",
             bool(blocks_full[0, 1] > blocks_full[2, 3]), holds(), kind="paper", source="§3.8",
             note=f"cos (3,3) = {blocks_full[0, 1]:.4f}, cos (6,6) = {blocks_full[2, 3]:.4f}")


# %% [markdown]
# ## 3. Fig. 4: Hard vs Soft SupCon under class ratios up to 1:2:…:10 (§4.2 protocol)
#
# $d = C = 10$ free embeddings, class sizes `base × (1, 2, …, 10)`, Hard SupCon at τ = 0.1, Soft SupCon with
# ε = e⁻¹ at the (corrected) simplex temperature τ* = 10/9. Three solvers: the paper's protocol (**Adam lr 5e-2,
# full batch**, float32), float64 L-BFGS on the same free embeddings, and the reduced prototype problem (exact Hard
# optimum).

# %%
C = 10
sizes10 = cfg.base * np.arange(1, C + 1)
y10 = np.repeat(np.arange(C), sizes10)
tau_soft = soft_supcon_simplex_tau(C, EPS)
adam_hard = fit_free_embeddings(supcon_weights(y10), dim=cfg.dim, tau=cfg.hard_tau, method="adam",
                                lr=cfg.adam_lr, steps=cfg.adam_steps, seed=cfg.seeds[0], progress=False)
adam_soft = fit_free_embeddings(soft_supcon_weights(y10, EPS), dim=cfg.dim, tau=tau_soft, method="adam",
                                lr=cfg.adam_lr, steps=cfg.adam_steps, seed=cfg.seeds[0], progress=False)
lbfgs_hard = fit_free_embeddings(supcon_weights(y10), dim=cfg.dim, tau=cfg.hard_tau, seed=cfg.seeds[0], steps=cfg.lbfgs_steps)
proto10 = solve_supcon_prototypes(sizes10, tau=cfg.hard_tau)
B_hard, _ = block_cosines(adam_hard.Z, y10)
B_soft, _ = block_cosines(adam_soft.Z, y10)
B_lbfgs, _ = block_cosines(lbfgs_hard.Z, y10)

# %%
fig, axes = plt.subplots(2, 2, figsize=(10, 8.4))
labels = [str(s) for s in sizes10]
panels = [(B_lbfgs, f"Hard SupCon (τ = {cfg.hard_tau}), float64 L-BFGS"),
          (proto10.gram, "Hard SupCon, reduced prototype problem"),
          (B_hard, f"Hard SupCon, Adam 5e-2 (paper protocol)\nloss − L* = {adam_hard.loss - proto10.loss:.1e}"),
          (B_soft, "Soft SupCon (ε = e⁻¹, τ* = 10/9), Adam 5e-2")]
for ax, (M, title) in zip(axes.flat, panels):
    shown = M.copy()
    np.fill_diagonal(shown, np.nan)
    sns.heatmap(shown, ax=ax, cmap="viridis", vmin=-0.16, vmax=0.0, annot=cfg.annotate, fmt=".3f",
                annot_kws={"size": 6}, xticklabels=labels, yticklabels=labels,
                cbar_kws={"label": "inter-class cosine"})
    ax.set(title=title, xlabel="class size", ylabel="class size")
fig.suptitle("Fig. 4 analogue, class sizes 1:2:…:10 — Hard SupCon's cosines depend on the sizes;\nSoft SupCon stays a "
             "regular simplex (−1/9 = −0.111)")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-02-fig4-heatmaps")

# %%
spread = lambda B: float(offdiag(B).max() - offdiag(B).min())  # noqa: E731
pd.DataFrame({"Hard L-BFGS": [spread(B_lbfgs), np.abs(offdiag(B_lbfgs - proto10.gram)).max(),
                              lbfgs_hard.loss - proto10.loss],
              "Hard prototype": [spread(proto10.gram), 0.0, 0.0],
              "Hard Adam": [spread(B_hard), np.abs(offdiag(B_hard - proto10.gram)).max(),
                            adam_hard.loss - proto10.loss],
              "Soft Adam": [spread(B_soft), np.abs(offdiag(B_soft) + 1 / 9).max(), adam_soft.delta_w]},
             index=["spread of inter-class cos", "max dev. from reference", "loss − L* (Soft: Δ_W)"])

# %% [markdown]
# At τ = 0.1 an inter-class pair enters an anchor's denominator with weight $\approx e^{(\cos - 1)/\tau} \approx
# e^{-11}$ relative to a positive, so the loss is almost flat in the inter-class cosines and a first-order run
# resolves them late. The run above uses App. G's budget (full batch, the "<20k" of Table 2); the same Adam stopped at
# a tenth of it shows what a short budget leaves.

# %%
adam_short = fit_free_embeddings(supcon_weights(y10), dim=cfg.dim, tau=cfg.hard_tau, method="adam", lr=cfg.adam_lr,
                                 steps=max(1, cfg.adam_steps // 10), seed=cfg.seeds[0], progress=False)
short_dev = float(np.abs(offdiag(block_cosines(adam_short.Z, y10)[0] - proto10.gram)).max())
pd.Series({f"Adam {max(1, cfg.adam_steps // 10)} steps": short_dev,
           f"Adam {cfg.adam_steps} steps": float(np.abs(offdiag(B_hard - proto10.gram)).max())},
          name="max |cos − prototype optimum|").to_frame()

# %%
ledger.claim("fig4-hard-lbfgs-matches-prototype", "Hard SupCon 1:…:10, tau = 0.1: full free-embedding L-BFGS "
             "agrees with the reduced prototype problem: max |cos difference|", 0.0,
             float(np.abs(offdiag(B_lbfgs - proto10.gram)).max()), at_most(1e-3), kind="check",
             note="Two solvers of ours against each other.")
ledger.claim("fig4-hard-adam-matches-prototype", "The paper's optimiser (Adam 5e-2, full batch) resolves Hard "
             "SupCon's inter-class cosines at tau = 0.1: max |cos difference| against the prototype problem", 0.0,
             float(np.abs(offdiag(B_hard - proto10.gram)).max()), at_most(1e-2, partly=3e-2), kind="beyond",
             note=f"{cfg.adam_steps} Adam steps (App. G: full batch, <20k); loss within "
                  f"{adam_hard.loss - proto10.loss:.1e} of L*. At a tenth of the budget the largest deviation is "
                  f"{short_dev:.2f}: the loss is nearly flat in the inter-class cosines at tau = 0.1.")
ledger.claim("fig4-hard-imbalance-breaks-simplex", "Hard SupCon, class sizes 1:…:10: the inter-class cosines are not "
             "uniform (spread over pairs, full free-embedding L-BFGS optimum)", "imbalance breaks the regularity",
             spread(B_lbfgs), at_least(1e-2), kind="paper", source="§4.2",
             note=f"spread {spread(B_lbfgs):.3f} (prototype problem {spread(proto10.gram):.3f}, Adam "
                  f"{spread(B_hard):.3f}); 1e-2 is ten times the solvers' agreement.")


# %% [markdown]
# Every seed of the paper's protocol (Adam 5e-2, full batch, App. G's step budget): Soft SupCon at sizes 1:…:10,
# and Hard SupCon on sizes that repeat, `base × (1, 1, 2, 2, 3, 3, 4, 4, 5, 5)` — §4.2 reads the third part of
# Thm. 3.13 (a block's cosine depends only on its shape) off the Adam heatmaps, and with sizes 1:…:10 every shape is
# unique.

# %%
sizes_rep = cfg.base * np.repeat(np.arange(1, 6), 2)
y_rep = np.repeat(np.arange(C), sizes_rep)
adam = dict(dim=cfg.dim, method="adam", lr=cfg.adam_lr, steps=cfg.adam_steps, progress=False)
soft_worst, rep_rows = [], []
for seed in cfg.seeds:
    soft_fit = adam_soft if seed == cfg.seeds[0] else fit_free_embeddings(soft_supcon_weights(y10, EPS), tau=tau_soft,
                                                                         seed=seed, **adam)
    cs = offdiag(block_cosines(soft_fit.Z, y10)[0])
    soft_worst.append(float(cs[np.argmax(np.abs(cs + 1 / 9))]))
    rep_fit = fit_free_embeddings(supcon_weights(y_rep), tau=cfg.hard_tau, seed=seed, **adam)
    rep_rows.append(shape_spread(block_cosines(rep_fit.Z, y_rep)[0], sizes_rep))
rep_seeds = pd.DataFrame(rep_rows, index=pd.Index(cfg.seeds, name="seed")).assign(**{"Soft: worst cos": soft_worst})
rep = rep_seeds.max()  # worst seed
rep_proto = shape_spread(solve_supcon_prototypes(sizes_rep, tau=cfg.hard_tau).gram, sizes_rep)
rep_seeds

# %%
P_SIMPLEX, P_SIMPLEX_SRC = paper_number("Fig. 4: regular-simplex")
worst_soft = soft_worst[int(np.argmax(np.abs(np.array(soft_worst) + 1 / 9)))]
ledger.claim("fig4-soft-keeps-simplex", "Soft SupCon at the simplex temperature, class sizes 1:…:10 (Adam 5e-2, the "
             "paper's protocol): the inter-class cosine farthest from the regular simplex's, worst over seeds",
             P_SIMPLEX, worst_soft, within(-1 / 9, 1e-2, 3e-2), kind="paper", source=P_SIMPLEX_SRC,
             note="Run at the corrected tau* = 10/9 (the printed 0.9 does not give the simplex: soft-tau-star-paper); "
                  "1e-2: float32 Adam on a loss that is flat near the optimum; per seed: "
                  + ", ".join(f"{v:+.4f}" for v in soft_worst))
shape_ratio = float((rep_seeds["within-shape spread"] / rep_seeds["overall spread"]).max())
ledger.claim("fig4-adam-shape-only", "Hard SupCon with repeated class sizes, the paper's optimiser (Adam 5e-2, full "
             "batch): blocks of the same shape share one inter-class cosine: largest within-shape spread as a "
             "fraction of the overall spread of the inter-class cosines (worst over seeds)",
             "depends only on that block's shape", shape_ratio, at_most(0.1, partly=0.3), kind="paper", source="§4.2",
             note=f"{cfg.adam_steps} Adam steps; per seed within-shape / overall spread: " + ", ".join(
                 f"{w:.1e} / {o:.3f}" for w, o in zip(rep_seeds["within-shape spread"], rep_seeds["overall spread"]))
                  + f" (prototype problem: within {rep_proto['within-shape spread']:.1e}, overall "
                    f"{rep_proto['overall spread']:.3f}); reproduced when equal shapes agree to a tenth of the spread "
                    "between shapes.")

# %% [markdown]
# The spread of Hard SupCon's inter-class cosines grows with the imbalance ratio (prototype problem, exact);
# Soft SupCon's stays at zero (float64 L-BFGS on the full free embeddings).

# %%
rows = []
for ratio in cfg.ratios:
    sz = np.round(cfg.base * np.linspace(1, ratio, C)).astype(int)
    yy = np.repeat(np.arange(C), sz)
    hard = solve_supcon_prototypes(sz, tau=cfg.hard_tau)
    soft = fit_free_embeddings(soft_supcon_weights(yy, EPS), dim=C, tau=tau_soft, seed=cfg.seeds[0], steps=cfg.lbfgs_steps)
    Bs, _ = block_cosines(soft.Z, yy)
    rows.append({"ratio": ratio, "Hard: spread": spread(hard.gram), "Hard: min cos": offdiag(hard.gram).min(),
                 "Hard: max cos": offdiag(hard.gram).max(), "Soft: spread": spread(Bs),
                 "Soft: Delta_W": soft.delta_w})
ratios = pd.DataFrame(rows).set_index("ratio")
fig, ax = plt.subplots(figsize=(6.4, 4))
ax.fill_between(ratios.index, ratios["Hard: min cos"], ratios["Hard: max cos"], alpha=0.3, color="C3",
                label="Hard SupCon: range of inter-class cos")
ax.plot(ratios.index, ratios["Hard: min cos"], "C3-")
ax.plot(ratios.index, ratios["Hard: max cos"], "C3-")
ax.axhline(-1 / 9, color="C0", lw=2, label="Soft SupCon (all pairs), τ* = 10/9")
ax.set(xlabel="largest / smallest class size", ylabel="inter-class cosine",
       title="Imbalance breaks Hard SupCon's simplex, not Soft SupCon's")
ax.legend()
_ = ledger.savefig(fig, "fig-02-imbalance-ratio")
ratios

# %%
ledger.claim("soft-simplex-any-ratio", "Soft SupCon is agnostic to class imbalance: spread of the inter-class "
             "cosines at tau*, max over imbalance ratios 1..10 (L-BFGS)", "agnostic to class imbalance",
             float(ratios["Soft: spread"].max()), at_most(1e-3), kind="paper", source="§3.8",
             note="Hard SupCon's spread over the same ratios: " + ", ".join(
                 f"{r:g}: {v:.3f}" for r, v in ratios["Hard: spread"].items()))

# %% [markdown]
# ## 4. Soft SupCon: β = 1 + τ log ε for every pair, and the τ* erratum (Cor. 3.9)
#
# Sizes 2, 4, …, 20 (10 classes), ε = e⁻¹, $q = 10$, float64 L-BFGS. Cor. 3.9 gives the inter-class cosine
# β = 1 + τ log ε whatever the sizes; the regular simplex needs β = −1/(C−1). The paper prints
# τ* = (C−1)/(−C log ε) = **0.9**, which gives β = +0.1 = 1/C; solving 1 + τ log ε = −1/(C−1) gives
# τ* = C/((C−1)(−log ε)) = **10/9**. Above the true threshold (τ = 1.5, β = −0.5 < −1/9) the bound cannot be attained.

# %%
y_soft = np.repeat(np.arange(10), np.arange(2, 21, 2))
rows, fits = [], {}
for tau in [*cfg.soft_taus, 1.5]:
    for seed in cfg.seeds:
        fit = fit_free_embeddings(soft_supcon_weights(y_soft, EPS), dim=10, tau=tau, seed=seed, steps=cfg.lbfgs_steps)
        B, intra = block_cosines(fit.Z, y_soft)
        fits[tau] = B
        rows.append({"tau": round(tau, 4), "seed": seed, "beta = 1 + tau log eps": soft_supcon_beta(tau, EPS),
                     "mean inter cos": offdiag(B).mean(), "spread": spread(B),
                     "max |inter − β|": np.abs(offdiag(B) - soft_supcon_beta(tau, EPS)).max(),
                     "min intra cos": intra.min(), "Delta_W": fit.delta_w})
soft = pd.DataFrame(rows)
soft.groupby("tau").agg("max")

# %%
tau_paper, tau_true = soft_supcon_simplex_tau_paper(10, EPS), soft_supcon_simplex_tau(10, EPS)
fig, axes = plt.subplots(1, 3, figsize=(10, 3.6))
sz_labels = [str(s) for s in range(2, 21, 2)]
for ax, tau, title in zip(axes[:2], [0.9, 10 / 9], [f"paper's τ* = {tau_paper:.2f}", "corrected τ* = 10/9"]):
    key = min(fits, key=lambda t: abs(t - tau))
    shown = fits[key].copy()
    np.fill_diagonal(shown, np.nan)
    sns.heatmap(shown, ax=ax, cmap="coolwarm", vmin=-0.2, vmax=0.2, annot=cfg.annotate, fmt=".2f", annot_kws={"size": 6},
                xticklabels=sz_labels, yticklabels=sz_labels, cbar_kws={"label": "inter-class cosine"})
    ax.set(title=f"Soft SupCon, {title}\nβ = {np.nanmean(shown):.3f}", xlabel="class size", ylabel="class size")
taus_line = np.linspace(0.05, 1.6, 200)
axes[2].plot(taus_line, 1 + taus_line * math.log(EPS), "k-", label="β = 1 + τ log ε (Cor 3.9)")
axes[2].axhline(-1 / 9, color="C0", ls="--", label="regular simplex −1/(C−1)")
axes[2].axhline(1 / 10, color="C3", ls=":", label="β at the paper's τ* = 1/C")
agg = soft.groupby("tau")["mean inter cos"].mean()
axes[2].plot(agg.index, agg.values, "o", color="C2", ms=8, label="measured (free embeddings)")
axes[2].axvline(tau_paper, color="C3", lw=0.8)
axes[2].axvline(tau_true, color="C0", lw=0.8)
axes[2].set(xlabel="τ", ylabel="inter-class cosine", title="Erratum: τ* = 10/9, not 0.9\n(C = 10, ε = e⁻¹)")
axes[2].legend(fontsize=8)
fig.tight_layout()
_ = ledger.savefig(fig, "fig-02-soft-supcon-erratum")

# %%
ok = soft[soft["tau"] < 1.2]
ledger.claim("soft-beta-formula", "Soft SupCon: every inter-class cos equals 1 + tau log eps, class sizes 2..20, "
             "tau in {0.5, 0.9, 10/9}: max deviation", "beta = 1 + tau log eps", float(ok["max |inter − β|"].max()),
             at_most(1e-3), kind="paper", source="Cor. 3.9", note=WORST)
ledger.claim("soft-bound-attained", "...and the entropic bound is attained (tau <= 10/9): max Delta_W", "attained",
             float(ok["Delta_W"].max()), at_most(1e-6), kind="paper", source="Cor. 3.9",
             note=f"{WORST}; Cor. 3.9 as printed covers tau <= 0.9; 10/9 is the corrected threshold.")
beta_at_paper_tau = float(soft[np.isclose(soft["tau"], 0.9)]["mean inter cos"].mean())
ledger.claim("soft-tau-star-paper", "The printed simplex temperature tau* = (C-1)/(-C log eps) (= (10-1)/10 for "
             "C = 10, eps = e^-1, as used in §4.2) gives the regular simplex: measured inter-class cos at tau = 0.9",
             -0.111, beta_at_paper_tau, within(-1 / 9, 1e-3), kind="paper", source="Fig. 4 caption",
             note="Erratum: tau = 0.9 gives beta = 1 + 0.9 log(e^-1) = +0.1; solving 1 + tau log eps = -1/(C-1) "
                  "gives tau* = C/((C-1)(-log eps)) = 10/9. The paper value is the regular simplex's cosine printed "
                  "in the Fig. 4 caption; the formula is printed in Cor. 3.9 and §3.8.")
beta_at_true_tau = float(soft[np.isclose(soft["tau"], round(10 / 9, 4))]["mean inter cos"].mean())
ledger.claim("soft-tau-star-corrected", "our corrected tau* = C/((C-1)(-log eps)) = 10/9 gives the regular simplex "
             "(beta = -1/9)", -1 / 9, beta_at_true_tau, within(-1 / 9, 1e-3), kind="check")
above = soft[soft["tau"] == 1.5]
ledger.claim("soft-above-threshold", "Above the simplex temperature (tau = 1.5, beta = -0.5 < -1/(C-1)) the cosine "
             "matrix would not be PSD, so the bound is not attained: min Delta_W", "not attained",
             float(above["Delta_W"].min()), at_least(1e-4), kind="paper", source="Thm 3.8",
             note=f"{WORST}; the optimum's inter-class cosines are no longer uniform there (spread "
                  f"{above['spread'].min():.3f}).")


# %% [markdown]
# ## 5. Euclidean SupCon is degenerate (§3.7)
#
# Hard SupCon weights with $s = -\|z_i - z_j\|^2$: classes collapsed at scaled prototypes $m\,\mu_c$ push every
# inter-class logit to $-\infty$ as $m \to \infty$, so $L \to H = \log(\ell - 1)$ for **any** triangle of prototypes —
# the bound is an infimum, not a minimum, and the geometry is not determined. Free optimisation (Adam) shows the
# same: the loss keeps decreasing while the embedding scale diverges.

# %%
triangles = {"equilateral": [[0, 0], [1, 0], [0.5, math.sqrt(3) / 2]], "obtuse": [[0, 0], [3, 0], [1.5, 0.3]],
             "right-angled": [[0, 0], [1, 0], [0, 2]]}
y3 = np.repeat(np.arange(3), cfg.per_class)
W3 = supcon_weights(y3)
ms = np.geomspace(0.3, 10, 30 if cfg.annotate else 5)
gaps = {name: [delta_w(W3, euclidean_similarities(torch.as_tensor(m * np.asarray(mu, float)[y3]))) for m in ms]
        for name, mu in triangles.items()}
adam_euc = fit_free_embeddings(W3, dim=2, similarity="euclidean", method="adam", lr=cfg.adam_lr,
                               steps=cfg.adam_steps, seed=cfg.seeds[0])
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
for name, g in gaps.items():
    axes[0].loglog(ms, np.maximum(g, 1e-17), label=name)
axes[0].set(xlabel="prototype scale m", ylabel="Δ_W", title="Scaled prototypes reach the bound as m → ∞")
axes[0].legend()
H3 = math.log(cfg.per_class - 1)
axes[1].semilogy(np.arange(1, len(adam_euc.history) + 1), np.array(adam_euc.history) / H3 - 1)
axes[1].set(xlabel="Adam step", ylabel="Δ_W during training", title="Free Euclidean SupCon: no finite optimum")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-02-euclidean-supcon")
scale = float(np.linalg.norm(adam_euc.Z - adam_euc.Z.mean(0), axis=1).mean())
pd.DataFrame({name: {"Delta_W at m=1": g[np.argmin(abs(ms - 1))], "Delta_W at m=10": g[-1]}
              for name, g in gaps.items()}).T.assign(**{"Adam final mean radius": scale})

# %%
ledger.claim("euclid-supcon-degenerate", "Euclidean SupCon: scaled prototypes of an equilateral, a right-angled and "
             "a scalene (obtuse) triangle all come arbitrarily close to the bound: max Delta_W at m = 10",
             "quasi-optima in qualitatively distinct configurations", float(max(g[-1] for g in gaps.values())),
             at_most(1e-8), kind="check", source="App. D",
             note="The paper's illustration is a loss within 1e-10 of the bound for large m; Delta_W is relative, "
                  "1e-8 at m = 10 with the bound of order 1.")
ledger.claim("euclid-supcon-monotone", "...and Delta_W decreases monotonically in m for every triangle", True,
             {name: bool(np.all(np.diff(g) <= 1e-15)) for name, g in gaps.items()}, holds(), kind="beyond",
             note="The paper states the limit (Thm D.1, part 3), not monotonicity.")

# %% [markdown]
# ## 6. Thm. D.1 beyond its closed form: parts 2–4 by optimisation
#
# Part 2 (a zero weight makes the bound strict) and part 4 (the bound is optimal, i.e. approached, **iff** $cW$ lies
# in the closure of $\exp(\mathcal S)$ for some $c > 0$) are tested by optimisers, not formulas. Hard SupCon with
# cosine similarity: $\exp(\mathcal S)$ is bounded away from 0, so $cW$ (which has zeros) is not in its closure and
# L-BFGS must stall above the bound, by less as τ shrinks. Euclidean similarity on a **chain** of weights
# ($w_{i,i+1} = 1$, all else 0): $cW$ is not in the closure either (bounded $d_{i,i+1}$ bound $d_{i,i+2}$), yet the
# points $z_i = m\,i$ on a line reach the bound as $m \to \infty$ — with $\exp(S) \to 0$, the case the proof's
# limit $V$ does not cover.

# %%
y_hard = np.repeat(np.arange(3), cfg.per_class)
hard_gaps = pd.Series({t: fit_free_embeddings(supcon_weights(y_hard), dim=4, tau=t, seed=cfg.seeds[0],
                                              steps=cfg.lbfgs_steps).delta_w for t in (1.0, 0.5, 0.2, 0.1)},
                      name="Hard SupCon (cosine): Delta_W at the L-BFGS optimum")
chain = chain_sequence(6, [0.5, 1, 2, 3, 4, 6])
chain_fit = fit_free_embeddings(chain_weights(6), dim=2, similarity="euclidean", seed=cfg.seeds[0],
                                steps=cfg.lbfgs_steps)
chain_pos = float(np.exp(-((chain_fit.Z[:-1] - chain_fit.Z[1:]) ** 2).sum(1)).max())
display(hard_gaps.to_frame().T, chain)

# %%
ledger.claim("thmD1-strict-cosine", "A zero weight makes the bound strict (part 2); with cosine similarity the "
             "closure condition of part 4 fails, so the bound is not even approached: smallest L-BFGS gap of Hard "
             "SupCon over tau in {1, 0.5, 0.2, 0.1}", "strict, not optimal", float(hard_gaps.min()),
             at_least(1e-8), kind="paper", source="Thm D.1",
             note="1e-8: the float64 L-BFGS floor where a bound is attainable (notebook 01); gaps per tau: " + ", ".join(f"{t:g}: {v:.2e}" for t, v in hard_gaps.items())
                  + "; they shrink with tau as exp(S) = exp(G/tau) reaches closer to 0.")
ledger.claim("thmD1-only-if-chain", "Part 4, 'only if': an optimal bound needs cW in the closure of exp(S). Chain "
             "weights with Euclidean s: the line z_i = m i reaches the bound (Delta_W at m = 6) although no cW, "
             "c > 0, is a limit of exp(S)", "optimal only if cW in cl(exp(S))", float(chain["Delta_W"].iloc[-1]),
             at_least(1e-6), kind="paper", source="Thm D.1",
             note=f"Delta_W per m: {', '.join(f'{m:g}: {v:.1e}' for m, v in chain['Delta_W'].items())}; largest "
                  f"exp(s) over the positive pairs at m = 6: {chain['max e^s over positive pairs'].iloc[-1]:.1e}. Free "
                  f"L-BFGS on the same weights reaches Delta_W = {chain_fit.delta_w:.1e} with exp(s) <= {chain_pos:.1e} "
                  "on the chain's pairs. The proof's limit V of exp(S) is 0 here, where p_V is undefined "
                  "(erratum row weighted-cl-thmD1-only-if).")

# %% [markdown]
# ## Claims

# %%
ledger.table()

# %%
ledger.save()
show_provenance(ledger)
