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
# # Regression geometry: Euclidean–Euclidean, y-Aware and X-CLR; digits with Euclidean Soft SupCon
#
# **Paper.** Vock, Duchesnay & Dufumier, *A Unified Geometric Framework for Weighted Contrastive Learning*, arXiv
# 2605.13943 (2026), §3.6, §4.1 and §4.3 (Figs. 2, 3 and 5).
#
# For regression, the framework weights pairs by how close their targets are; three theorems give the optimal
# geometry for a Euclidean weighting with a Euclidean similarity (Thm. 3.10), for y-Aware (Thm. 3.11) and for X-CLR
# (Thm. 3.12), and they are checked on free embeddings. Then a small experiment: where the paper trains a
# convolutional network on MNIST, this notebook trains a small multi-layer perceptron (MLP) on scikit-learn's 8×8
# digit images, with stroke thickness and slant measured from the images, over many seeds: Figs. 2, 3 and 5 at small
# scale. Settings and judging rules follow; the claims table at the end holds the computed verdicts.

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
lbfgs_steps = None

# %%
import math
import warnings
from functools import partial

warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import torch

from companion.data import load_digits
from companion.papers.weighted_cl.free_embeddings import fit_free_embeddings
from companion.losses.weighted import euclidean_similarities, euclidean_weights, soft_supcon_weights
from companion.papers.weighted_cl.distance_geometry import delta_w, edm, r2_procrustes, r2_sim
from companion.papers.weighted_cl.morphometrics import morphometrics
from companion.papers.weighted_cl.theorems import not_attained
from companion.papers.weighted_cl.experiments import (arc_order, dev_plateau, dev_plateau_groups, end_of_rise,
                                                      fit_digit_encoder, line_fraction, local_global_r2, loss_moved,
                                                      lower_bound, monitor_every, paper_number, run_curve,
                                                      xclr_sweep, yaware_sweep)
from companion.papers.weighted_cl.settings import REGRESSION
from companion import stats
from companion.results import Ledger, at_least, at_most, holds, not_testable, show_provenance, within
from IPython.display import display
from companion.display import panel_grid, reader_display

reader_display()  # tables whole, numbers to three significant digits

# %% [markdown]
# ## What runs, at which scale, and how the claims are judged
#
# **Reproduces** §3.6 (Thm. 3.10 Euclidean–Euclidean, Thm. 3.11 y-Aware, Thm. 3.12 X-CLR) on free embeddings, then
# §4.1 and §4.3 at small scale: the paper trains an MNIST ConvNet; we train a small MLP on scikit-learn's 8×8 digits
# (1,797 images) — Fig. 2 (Euclidean Soft SupCon, $q = 5..12$: the bound becomes attainable at $q = 9$), Fig. 3
# (regression on thickness and slant, and class + morphometrics), Fig. 5 (y-Aware vs Euclidean on thickness,
# $q = 2$, τ = 0.1: arc vs line). Thickness and slant are measured from the images here (ink area / skeleton length,
# moment shear: `companion.papers.weighted_cl.morphometrics`), not Morpho-MNIST's.
#
# **How the claims are judged.** Free-embedding optima are deterministic given a seed, so the theorem claims compare
# one number (the worst case) with a stated tolerance: the float64 optimiser's floor. The digit experiments train an
# encoder per seed (the seeds of the settings; one run costs seconds on one thread, so the cpu profile affords a
# hundred runs) and their claims are judged over the seeds through
# `companion.stats`: a level the paper prints (an $r^2$ at some $q$) by its 95 % interval against a band around the
# paper's value; a difference (local minus global $r^2_\mathrm{Proc}$) by the symmetric direction rule, with the
# paper's own difference as the magnitude; a threshold on a qualitative statement ("a line", "an arc") by the lower
# end of the interval. Each digit claim also carries two checks measured on its own runs: *trained* (the training
# loss fell beyond its minibatch noise in every run) and *plateau* (the held-out metric, recorded every tenth of the
# run, gains at most a quarter of the resolution the claim is read at over the last third of training); a failed
# check makes the claim inconclusive. Our set-up differs from the paper's (digits and an MLP for MNIST and a
# ConvNet, far fewer steps): every digit claim names that as its regime, shown beside the verdict; the regime never
# changes the verdict. The verdicts are in the claims table at the end.
#
# Settings per profile (smoke: a small subset of the images, a few training steps, two seeds; cpu: every digit and
# the Adam steps, latent dimensions and seeds printed below), then the claims ledger.

# %%
torch.set_num_threads(1)  # small MLP and 512x512 similarity matrices: one thread is fastest on a shared CPU
EPS = math.exp(-1)
cfg = REGRESSION(profile, gpu_grid=gpu_grid, seeds=seeds, steps=steps, lbfgs_steps=lbfgs_steps)
ledger = Ledger("weighted-cl", "03-regression-geometry", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)
sns.set_theme(style="whitegrid", context="notebook")
cfg

# %% [markdown]
# ## 1. Free embeddings: Thm. 3.10–3.12
#
# **Thm. 3.10 (Euclidean–Euclidean).** $w = e^{-\|y_i - y_j\|^2}$, $s = -\|z_i - z_j\|^2$: the bound is attained at
# $Z^* = (y, 0, \dots)$. **Thm. 3.11 (y-Aware).** Same weights, $s = \cos/\tau$: attained only if the labels lie on a
# sphere of radius $\le 1/\sqrt{2\tau}$. **Thm. 3.12 (X-CLR).** $w = e^{\cos(y_i, y_j)/\tau'}$, $s = \cos/\tau$:
# attained iff τ ≤ τ′, at $\cos(z_i, z_j) = (\tau/\tau')\cos(y_i, y_j) + 1 - \tau/\tau'$.

# %%
rng = np.random.default_rng(cfg.seeds[0])
n = cfg.n_free
y2 = rng.uniform(-1, 1, size=(n, 2))
ee = fit_free_embeddings(euclidean_weights(y2), dim=2, similarity="euclidean", seed=cfg.seeds[0],
                         steps=cfg.lbfgs_steps)
ee_row = {"Delta_W": ee.delta_w, "r2_Proc vs (y, 0)": r2_procrustes(ee.Z, y2)}

# %% [markdown]
# y-Aware at τ = 0.5 over the sweep of scales: 1-D labels on a segment of half-length $\mathrm{scale}/\sqrt{2\tau}$,
# and 2-D labels on a circle of that radius (the angles drawn from the same generator, scale by scale).

# %%
tau = 0.5
yaware = yaware_sweep(rng, n, cfg.sweep, tau=tau, seed=cfg.seeds[0], steps=cfg.lbfgs_steps)

# %% [markdown]
# X-CLR with τ′ = 0.5 on random 4-D labels in $q = 6$, for τ/τ′ over the same sweep; the deviation is measured
# against Thm. 3.12's cosines.

# %%
tau_p = 0.5
yx = rng.normal(size=(n, 4))
xclr = xclr_sweep(yx, tau_p, cfg.sweep, seed=cfg.seeds[0], steps=cfg.lbfgs_steps)
display_tables = pd.concat({"y-Aware (tau = 0.5)": yaware, "X-CLR (tau' = 0.5)": xclr}, axis=1)
display(pd.Series(ee_row, name="Euclidean–Euclidean").to_frame(), display_tables)

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
axes[0].semilogy(yaware.index, np.maximum(yaware["line: Delta_W"], 1e-17), "o-", label="labels on a segment")
axes[0].semilogy(yaware.index, np.maximum(yaware["circle: Delta_W"], 1e-17), "s-", label="labels on a circle")
axes[0].axvline(1, color="k", ls="--", lw=1, label="radius 1/√(2τ)")
axes[0].set(xlabel="label scale × √(2τ)", ylabel="Δ_W", title="Thm 3.11: y-Aware (τ = 0.5)")
axes[0].legend()
axes[1].semilogy(xclr.index, np.maximum(xclr["Delta_W"], 1e-17), "o-", color="C2")
axes[1].axvline(1, color="k", ls="--", lw=1, label="τ = τ′")
axes[1].set(xlabel="τ / τ′", ylabel="Δ_W", title="Thm 3.12: X-CLR attains the bound iff τ ≤ τ′")
axes[1].legend()
fig.tight_layout()
_ = ledger.savefig(fig, "fig-03-free-regression-theorems")

# %%
FLOAT_FLOOR = 1e-8  # float64 L-BFGS on 30 free points reaches Delta_W ~ 1e-15..1e-9 where the bound is attainable
ledger.claim("thm3.10-ee-attained", "Euclidean-Euclidean w-InfoNCE attains its entropic bound (free embeddings, "
             "2-D labels, q = 2): Delta_W", "bound attained", float(ee_row["Delta_W"]), at_most(FLOAT_FLOOR),
             kind="paper", source="Thm 3.10",
             note="Attained means Delta_W at the float64 optimiser's floor (1e-8); where the bound is not attainable "
                  f"(y-Aware on a segment, below) the same optimiser stalls at {yaware['line: Delta_W'].min():.1e} "
                  "or more, so the test can fail.")
_ = ledger.claim("thm3.10-ee-optimum", "...at Z* = (y, 0, ...), essentially unique: r2_Proc of the optimum against "
                 "the labels", "Z* = (y, 0, ..., 0) up to isometry", float(ee_row["r2_Proc vs (y, 0)"]),
                 at_least(0.999), kind="paper", source="Thm 3.10",
                 note="r2_Proc = 1 iff the two configurations differ by an isometry (Def. 3.16); 0.999 allows the "
                      "optimiser's residual.")

# %% [markdown]
# y-Aware: the segment never attains the bound, the circle does within the radius $1/\sqrt{2\tau}$ and not beyond.

# %%
line_all = yaware["line: Delta_W"]
ledger.claim("thm3.11-yaware-line", "y-Aware cannot attain its bound for labels that do not lie on a sphere (1-D "
             "labels on a segment, every scale tried): min Delta_W over the sweep", "bound not attained",
             float(line_all.min()), not_attained(), kind="paper",
             source="Thm 3.11",
             note=f"Thm 3.11 says nothing about the size of the gap; the smallest gap is at scale {line_all.idxmin():g}. "
                  "The threshold 1e-6 is the one first registered for this claim; a later revision (1e-9, after a "
                  "result) is withdrawn. Below 1e-8, the attained test of Thm 3.7 and 3.8, reads 'attained'. The same "
                  "optimiser reaches at most "
                  f"{yaware.loc[yaware.index <= 1, 'circle: Delta_W'].max():.1e} where the bound is attainable (circle rows).")
ledger.claim("thm3.11-yaware-line-wide", "the y-Aware gap on the segment is not an optimiser artefact: it grows "
             "with the label spread (Delta_W at the largest scale of the sweep above 1e-3 and larger than at the "
             "smallest scale)", True, bool(line_all.iloc[-1] > 1e-3 and line_all.iloc[-1] > line_all.iloc[0]),
             holds(), kind="check",
             note=f"Delta_W per scale: {', '.join(f'{k:g}: {v:.2e}' for k, v in line_all.items())}")
ledger.claim("thm3.11-yaware-circle", "labels on a circle of radius <= 1/sqrt(2 tau) are a spherical EDM within "
             "the radius, so the bound is attained (the 'unless' of Thm 3.11, via Thm 3.8): max Delta_W over "
             "those radii", "bound attained", float(yaware.loc[yaware.index <= 1, "circle: Delta_W"].max()),
             at_most(FLOAT_FLOOR), kind="paper", source="Thm 3.8")
_ = ledger.claim("thm3.11-yaware-circle-too-wide", "labels on a circle of radius > 1/sqrt(2 tau): the radius condition "
                 "of Thm 3.8 fails and the bound is not attained: min Delta_W over those radii", "bound not attained",
                 float(yaware.loc[yaware.index > 1, "circle: Delta_W"].min()), at_least(1e-6), kind="paper",
                 source="Thm 3.8",
                 note="1e-6 is 100x the attained floor; gap per radius ratio: " + ", ".join(
                     f"{k:g}: {v:.1e}" for k, v in yaware.loc[yaware.index > 1, "circle: Delta_W"].items()))

# %% [markdown]
# X-CLR: attained at the stated cosines for τ ≤ τ′, not above.

# %%
xclr_ok = xclr.loc[xclr.index <= 1]
ledger.claim("thm3.12-xclr-attained", "X-CLR attains its bound for tau <= tau' (free embeddings, 4-D labels, "
             "q = 6): max Delta_W over tau/tau' <= 1", "bound attained", float(xclr_ok["Delta_W"].max()),
             at_most(FLOAT_FLOOR), kind="paper", source="Thm 3.12")
ledger.claim("thm3.12-xclr-formula", "...at z* = (y/|y|, sqrt(tau'/tau - 1), 0, ...), i.e. cos(z_i, z_j) = "
             "(tau/tau') cos(y_i, y_j) + 1 - tau/tau': max deviation over pairs and tau/tau' <= 1",
             "z* = (y/|y|, sqrt(tau'/tau - 1), 0, ...)", float(xclr_ok["max |cos − formula|"].max()),
             at_most(1e-3), kind="paper", source="Thm 3.12",
             note="1e-3 on cosines allows the optimiser's residual; above tau' (where the formula does not apply) the "
                  f"deviation is {xclr.loc[xclr.index > 1, 'max |cos − formula|'].min():.2f} or more, so the test "
                  "can fail.")
ledger.claim("thm3.12-xclr-fails", "X-CLR with tau > tau': the normalised-label EDM has radius 1/sqrt(2 tau') > "
             "1/sqrt(2 tau), so by Thm 3.8 the bound is not attained: min Delta_W over the tau/tau' > 1 of the sweep",
             "bound not attained", float(xclr.loc[xclr.index > 1, "Delta_W"].min()), at_least(1e-6),
             kind="paper", source="Thm 3.8",
             note="Thm 3.12 states only the 'if' direction; the converse follows from Thm 3.8's radius condition "
                  "as used in the proof of Thm 3.12 (App. C.1).")


# %% [markdown]
# ## 2. Digits and their morphometrics
#
# scikit-learn's digits (8×8, 16 grey levels, 10 classes). Thickness = ink area / skeleton length (in pixels of the
# 8×8 image, after 4× bilinear upsampling); slant = moment shear $\mu_{11}/\mu_{02}$ (> 0: the top leans right).

# %%
images, labels = load_digits()
images, labels = images[: cfg.n_images], labels[: cfg.n_images]  # smoke: a subset
morph = morphometrics(images)
order = np.random.default_rng(cfg.seeds[0]).permutation(len(images))
test_idx, train_idx = order[: cfg.n_test], order[cfg.n_test:]
X = torch.as_tensor(images.reshape(len(images), -1) / 16.0, dtype=torch.float32)
Y = torch.as_tensor(labels)
M = torch.as_tensor(((morph - morph.iloc[train_idx].mean()) / morph.iloc[train_idx].std()).to_numpy().copy(),
                    dtype=torch.float32)
fig, axes = plt.subplots(2, 8, figsize=(10, 3))
for row, col in enumerate(["thickness", "slant"]):
    picks = np.argsort(morph[col].to_numpy())[np.linspace(0, len(morph) - 1, 8).astype(int)]
    for ax, k in zip(axes[row], picks):
        ax.imshow(images[k], cmap="gray_r")
        ax.set_title(f"{col[:5]} {morph[col][k]:.2f}", fontsize=8)
        ax.axis("off")
fig.suptitle("Digits ordered by measured thickness (top) and slant (bottom)")
_ = ledger.savefig(fig, "fig-03-morphometrics-examples")
morph.describe().T

# %% [markdown]
# ## 3. Fig. 2 analogue: Euclidean Soft SupCon on digits, $q = 5 \dots 12$
#
# MLP 64 → 256 → 256 → $q$, Soft-SupCon weights (1 / ε = e⁻¹) with Euclidean similarity
# $s = -\|z_i - z_j\|^2$ (§3.7), Adam 1e-3 (AdamW, wd 2e-6), batch 512. The bound needs the 10 class prototypes at
# squared distance $-\log\varepsilon = 1$: a regular simplex, which fits in $q \ge 9$ dimensions only. On the held-out
# digits we report Δ_W (whole test set as one batch) and $r^2_\mathrm{Proc}$ against $Z^*$ = one-hot$/\sqrt2$, per
# seed; every run also records the held-out $r^2_\mathrm{Proc}$, $r^2_\mathrm{sim}$ and the training-digit Δ_W every
# tenth of its steps (the curves the plateau checks read).

# %%
EVERY = monitor_every(cfg.steps)
fit_encoder = partial(fit_digit_encoder, X, train_idx, test_idx, steps=cfg.steps, batch=cfg.batch, lr=cfg.lr,
                      weight_decay=cfg.weight_decay, hidden=cfg.hidden, every=EVERY,
                      profile=cfg.profile)  # fit_encoder(q, W_full, sim, ...)
X_test = X[torch.as_tensor(test_idx)]
train_probe = train_idx[: len(test_idx)]  # a fixed training subset of the test set's size, for Delta_W on seen data
X_probe = X[torch.as_tensor(train_probe)]
W_soft = soft_supcon_weights(Y, EPS).float()
Z_star = np.eye(10)[labels[test_idx]] / math.sqrt(2)
W_soft_test = soft_supcon_weights(Y[torch.as_tensor(test_idx)], EPS)
W_soft_probe = soft_supcon_weights(Y[torch.as_tensor(train_probe)], EPS)


@torch.no_grad()
def simplex_metrics(model):
    """Held-out agreement with the simplex target and the training-digit entropic gap of one encoder."""
    Z_test, Z_probe = model(X_test).double(), model(X_probe).double()
    return {"test r2_Proc": r2_procrustes(Z_test.numpy(), Z_star), "test r2_sim": r2_sim(-edm(Z_test.numpy()), -edm(Z_star)),
            "train Delta_W": delta_w(W_soft_probe, euclidean_similarities(Z_probe)),
            "test Delta_W": delta_w(W_soft_test, euclidean_similarities(Z_test))}


rows, fig2_runs = [], {}
for seed in cfg.seeds:
    for q in cfg.qs:
        model, _, res = fit_encoder(q, W_soft, "euclidean", seed=seed, desc=f"q={q}", monitor=simplex_metrics)
        fig2_runs[(q, seed)] = res
        rows.append({"seed": seed, "q": q, "train loss": res.history[-1]["loss"], **simplex_metrics(model)})
fig2 = pd.DataFrame(rows)
fig2.groupby("q").agg(["mean", "std"]).drop(columns="seed").round(4)

# %%
agg = fig2.groupby("q").mean(numeric_only=True)
fig, ax = plt.subplots(1, 2, figsize=(10, 3.8))
ax[0].semilogy(agg.index, agg["train Delta_W"], "o-", label="training digits")
ax[0].semilogy(agg.index, agg["test Delta_W"], "s-", label="held-out digits")
ax[0].set(xlabel="embedding dimension q", ylabel="Δ_W (mean of seeds)", title="Euclidean Soft SupCon on digits")
for _, g in fig2.groupby("seed"):
    ax[1].plot(g["q"], g["test r2_Proc"], "-", color="C2", alpha=0.3, lw=1)
ax[1].plot(agg.index, agg["test r2_Proc"], "o-", color="C2", label="ours (held-out digits; mean and seeds)")
P_FIG2 = paper_number("Fig. 2: Procrustes similarity at the transition")[0]
ax[1].plot([9], [P_FIG2], "k*", ms=12, label=f"paper: r²_Proc ≈ {P_FIG2:g} at q = 9 (MNIST)")
ax[1].set(xlabel="embedding dimension q", ylabel="held-out r²_Proc vs simplex", ylim=(None, 1.02))
for a in ax:
    a.axvline(9, color="k", ls="--", lw=1, label="paper: transition at q = 9")
    a.legend()
fig.suptitle("Fig. 2 analogue (8×8 digits, MLP): the simplex target needs q ≥ C − 1 = 9")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-03-fig2-q-transition")

# %% [markdown]
# The dev curves behind the plateau checks: held-out $r^2_\mathrm{Proc}$ during training, mean over the seeds, per q.

# %%
fig, ax = plt.subplots(figsize=(6.4, 4))
for q in cfg.qs:
    st, v = run_curve([fig2_runs[(q, s)] for s in cfg.seeds], "test r2_Proc")
    ax.plot(st, v, "-", label=f"q = {q}")
ax.set(xlabel="training step", ylabel="held-out r²_Proc vs simplex (mean of seeds)", title="Fig. 2 runs: dev curves")
ax.legend(fontsize=7, ncol=2)
_ = ledger.savefig(fig, "fig-03-fig2-dev-curves")

# %%
DIGITS = (f"8x8 digits and a 2-hidden-layer MLP, {cfg.steps} Adam steps, {len(cfg.seeds)} seeds (paper: 3-layer "
          "ConvNet on MNIST, 20-50 epochs)")
FIG_TOL = 0.05
FIG_TOL_REASON = ("the paper prints these r2 to two digits or as approximations, and its own two agreement scores "
                  "for one embedding differ by 0.05 (0.91 vs 0.96, §4.1)")
by_q = {q: [fig2_runs[(q, s)] for s in cfg.seeds] for q in cfg.qs}
fig2_trained = loss_moved(list(fig2_runs.values()))
r2p, r2s = agg["test r2_Proc"], agg["test r2_sim"]
P_Q, P_Q_SRC = paper_number("Fig. 2: latent dimension of the sharp transition")
ledger.claim("fig2-transition-q", "Held-out r2_Proc against the regular 9-simplex rises with q up to a transition at "
             "q = 9: the q where the rise of the mean over seeds stops (largest drop in the increase per unit q)", P_Q,
             end_of_rise(r2p), within(P_Q, 0, 1), kind="paper", source=P_Q_SRC, regime=DIGITS,
             validity=[fig2_trained, dev_plateau_groups(by_q, "test r2_Proc", gap=FIG_TOL)],
             note=f"held-out r2_Proc per q (mean of seeds): {', '.join(f'{q}: {v:.3f}' for q, v in r2p.items())}")
ledger.claim("fig2-transition-q-r2sim", "...the same for the coefficient of similarity r2_sim (s = -squared "
             "distance): the q where the rise of the mean over seeds stops", P_Q, end_of_rise(r2s), within(P_Q, 0, 1),
             kind="paper", source=P_Q_SRC, regime=DIGITS,
             validity=[fig2_trained, dev_plateau_groups(by_q, "test r2_sim", gap=FIG_TOL)],
             note=f"held-out r2_sim per q (mean of seeds): {', '.join(f'{q}: {v:.3f}' for q, v in r2s.items())}")
below, above = r2p[r2p.index <= 8], r2p[r2p.index >= 9]
ledger.claim("fig2-r2-higher-above-9", "Held-out r2_Proc vs the simplex (mean over seeds) is higher for every q >= 9 "
             "than for every q <= 8", "transition at q = 9",
             bool(len(below) and len(above) and above.min() > below.max()), holds(), kind="paper", source=P_Q_SRC,
             regime=DIGITS, validity=[fig2_trained, dev_plateau_groups(by_q, "test r2_Proc", gap=FIG_TOL)])

# %% [markdown]
# The level at the transition, the same question asked of Δ_W, and the paper-scale run we cannot do.

# %%
P_Q9, P_Q9_SRC = paper_number("Fig. 2: Procrustes similarity at the transition")
at_q9 = stats.sample(fig2[fig2["q"] == 9].sort_values("seed")["test r2_Proc"])
ledger.claim("fig2-r2proc-level-q9", "At the transition the representation is nearly isometric to the simplex: "
             "held-out r2_Proc at q = 9 over seeds", P_Q9, at_q9,
             stats.level(P_Q9, tol=FIG_TOL, tol_reason=FIG_TOL_REASON), kind="paper", source=P_Q9_SRC, regime=DIGITS,
             validity=[loss_moved(by_q[9]), dev_plateau(by_q[9], "test r2_Proc", gap=FIG_TOL)])
dw = agg["train Delta_W"]
ledger.claim("fig2-delta-w-drop-q", "q at the largest relative drop of Delta_W on training digits (mean over seeds) "
             "between consecutive q (the simplex fits from q = C - 1 = 9)", 9,
             int(dw.index[np.argmax(-np.diff(np.log(dw.values))) + 1]) if len(dw) > 1 else -1, within(9, 0, 1),
             kind="beyond", regime=DIGITS,
             validity=[fig2_trained, dev_plateau_groups(by_q, "train Delta_W")],
             note="Fig. 2 plots r2_sim and r2_Proc, not the loss gap; this asks the same question of Delta_W. "
                  f"Delta_W per q: {', '.join(f'{q}: {v:.3g}' for q, v in dw.items())}")
ledger.claim("fig2-mnist-convnet", "Fig 2 at the paper's scale (ConvNet on MNIST)", "transition at q = 9",
             "not run", not_testable("MNIST is not on this machine (the data mirror has no MNIST and nothing can be "
                                     "downloaded); the 8x8 digits above are the analogue"),
             kind="paper", source="Fig. 2 caption")


# %% [markdown]
# ## 4. Fig. 3 analogue: regression on thickness and slant, and class + morphometrics
#
# Euclidean–Euclidean weights on the standardised morphometrics $y = (\text{thickness}, \text{slant})$ with
# $q = 2$; Thm. 3.10 predicts $Z^* = y$ up to isometry. Mixed labels: $y = (\text{one-hot}/\sqrt2,\,
# \text{thickness}, \text{slant})$, i.e. $w = [\text{Soft SupCon}, \varepsilon = e^{-1}] \times e^{-\|m_i - m_j\|^2}$,
# $q = 12$, target $Z^* = y$. Every seed trains both encoders.

# %%
onehot = torch.as_tensor(np.eye(10)[labels] / math.sqrt(2), dtype=torch.float32)
mixed = torch.cat([onehot, M], dim=1)
te = torch.as_tensor(test_idx)


def label_metrics(Ylab):
    """Held-out agreement of an encoder with the label geometry ``Ylab`` (Thm. 3.10's optimum)."""
    Yt = Ylab[te].numpy()

    @torch.no_grad()
    def metrics(model):
        Z = model(X_test).double().numpy()
        return {"r2_Proc": r2_procrustes(Z, Yt), "r2_sim": r2_sim(-edm(Z), -edm(Yt))}

    return metrics


reg_rows, reg_Z, reg_runs = [], {}, {}
for name, Ylab, q in [("morphometrics", M, 2), ("class + morphometrics", mixed, 12)]:
    for seed in cfg.seeds:
        model, Z_test, res = fit_encoder(q, euclidean_weights(Ylab).float(), "euclidean", seed=seed, desc=name,
                                         monitor=label_metrics(Ylab))
        reg_runs[(name, seed)] = res
        if seed == cfg.seeds[0]:
            reg_Z[name] = Z_test.numpy()
        reg_rows.append({"labels": name, "seed": seed, "q": q, **label_metrics(Ylab)(model),
                         "Delta_W": delta_w(euclidean_weights(Ylab[te]), euclidean_similarities(Z_test))})
regression = pd.DataFrame(reg_rows)
regression.groupby("labels").agg(["mean", "std"]).drop(columns=["seed", "q"]).round(4)

# %%
from scipy.linalg import orthogonal_procrustes  # noqa: E402

reg_mean = regression.groupby("labels").mean(numeric_only=True)
Zr = reg_Z["morphometrics"] - reg_Z["morphometrics"].mean(0)
target = M[te].numpy() - M[te].numpy().mean(0)
R, _ = orthogonal_procrustes(Zr, target)
aligned = Zr @ R
fig, axes = panel_grid(3, panel_height=3.8, per_row=2)
for ax, k, col in zip(axes[:2], [0, 1], ["thickness", "slant"]):
    sc = ax.scatter(aligned[:, 0], aligned[:, 1], c=target[:, k], cmap="viridis", s=8)
    fig.colorbar(sc, ax=ax, label=f"{col} (standardised)")
    ax.set(title=f"EE embedding (q = 2, aligned,\nfirst seed), coloured by {col}", xlabel="z₁", ylabel="z₂")
Zm = reg_Z["class + morphometrics"] - reg_Z["class + morphometrics"].mean(0)
target_m = mixed[te].numpy() - mixed[te].numpy().mean(0)
aligned_m = Zm @ orthogonal_procrustes(Zm, target_m)[0]
sc = axes[2].scatter(target_m[:, 10], aligned_m[:, 10], c=labels[test_idx], cmap="tab10", s=8)
axes[2].plot(target_m[:, 10], target_m[:, 10], "k-", lw=0.8, label="z = y")
axes[2].set(title="class + morphometrics (q = 12):\nthickness coordinate", xlabel="true thickness (standardised)",
            ylabel="aligned embedding coordinate")
axes[2].legend()
fig.colorbar(sc, ax=axes[2], label="digit")
fig.suptitle("Fig. 3 analogue: Euclidean–Euclidean regression embeds the labels (held-out digits):\nr²_Proc "
             f"{reg_mean.loc['morphometrics', 'r2_Proc']:.2f} (mean of seeds; paper ≈ "
             f"{paper_number('Fig. 3(a): Procrustes')[0]:g}), r²_sim {reg_mean.loc['morphometrics', 'r2_sim']:.2f} "
             f"(paper {paper_number('Fig. 3(a): r2 of')[0]:g})")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-03-fig3-regression")

# %%
P_3A_PROC, P_3A_SRC = paper_number("Fig. 3(a): Procrustes")
P_3A_R2, _ = paper_number("Fig. 3(a): r2 of")
MORPH = DIGITS + "; thickness and slant measured from 8x8 images, not Morpho-MNIST's"
per_seed = {name: g.sort_values("seed") for name, g in regression.groupby("labels")}
runs_of = lambda name: [reg_runs[(name, s)] for s in cfg.seeds]  # noqa: E731
morph_checks = lambda key: [loss_moved(runs_of("morphometrics")),  # noqa: E731
                            dev_plateau(runs_of("morphometrics"), key, gap=FIG_TOL)]
ledger.claim("fig3-ee-regression-r2proc", "EE weights on (thickness, slant), q = 2: held-out r2_Proc of the "
             "embedding against the labels over seeds (Thm 3.10 realised by a network)", P_3A_PROC,
             stats.sample(per_seed["morphometrics"]["r2_Proc"]),
             stats.level(P_3A_PROC, tol=FIG_TOL, tol_reason=FIG_TOL_REASON), kind="paper", source=P_3A_SRC,
             regime=MORPH, validity=morph_checks("r2_Proc"))
ledger.claim("fig3-ee-regression-r2sim", "...and the coefficient of similarity (s = -squared distance) against the "
             "labels, over seeds", P_3A_R2, stats.sample(per_seed["morphometrics"]["r2_sim"]),
             stats.level(P_3A_R2, tol=FIG_TOL, tol_reason=FIG_TOL_REASON), kind="paper", source=P_3A_SRC,
             regime=MORPH, validity=morph_checks("r2_sim"),
             note="the paper's 'r2 = 0.91' is read as its coefficient of similarity (Def. 3.15)")
mixed_q12 = stats.sample(per_seed["class + morphometrics"]["r2_Proc"])
ledger.claim("fig3-mixed-labels-q12", "EE on class + morphometrics at q = 12 (>= 11, where the optimum is "
             "realisable): lower end of the 95 % CI over seeds of the held-out r2_Proc vs the labels",
             "realisable for q >= 11", lower_bound(mixed_q12), at_least(0.9, partly=0.7), kind="beyond", regime=MORPH,
             validity=[loss_moved(runs_of("class + morphometrics")),
                       dev_plateau(runs_of("class + morphometrics"), "r2_Proc", gap=FIG_TOL)],
             note=f"mean over seeds {mixed_q12}. The paper plots the mixed-label metrics against q (Fig. 3b) but "
                  "prints only the q = 2 values (local and global, Fig. 3b sweep below); here one q >= 11: does the "
                  "encoder get near the optimum (0.9: the level the paper calls nearly isometric in §4.1)?")


# %% [markdown]
# ### Fig. 3(b): class + morphometrics over the caption's range of $q$, and $q = 2$ locally and globally
#
# The same mixed labels, $q$ over the caption's $[7..13]$ plus $q = 2$, every seed. Global $r^2_\mathrm{Proc}$ aligns
# all held-out digits at once; local aligns each class on its own and averages (§4.1: at $q = 2$ the embedding is
# isometric within classes, not globally).

# %%
W_mixed = euclidean_weights(mixed).float()
Y_mixed_test = mixed[te].numpy()


@torch.no_grad()
def mixed_metrics(model):
    """Global and local (within-class) held-out r2_Proc against the mixed labels, and their difference."""
    Zq = model(X_test).double().numpy()
    out = local_global_r2(Zq, Y_mixed_test, labels[test_idx])
    return {**out, "local - global": out["local r2_Proc"] - out["global r2_Proc"]}


mixed_rows, mixed_runs = [], {}
for seed in cfg.seeds:
    for q in cfg.mixed_qs:
        model, Z_test, res = fit_encoder(q, W_mixed, "euclidean", seed=seed, desc=f"mixed q={q}",
                                         monitor=mixed_metrics)
        mixed_runs[(q, seed)] = res
        mixed_rows.append({"seed": seed, "q": q, "Delta_W": delta_w(euclidean_weights(mixed[te]),
                                                                     euclidean_similarities(Z_test)),
                           "r2_sim": r2_sim(-edm(Z_test.numpy()), -edm(Y_mixed_test)), **mixed_metrics(model)})
fig3b = pd.DataFrame(mixed_rows)
fig3b.groupby("q").agg(["mean", "std"]).drop(columns="seed").round(3)

# %%
P_LOCAL, P_3B_SRC = paper_number("Fig. 3(b): local")
P_GLOBAL, _ = paper_number("Fig. 3(b): global")
P_Q11, P_Q11_SRC = paper_number("Fig. 3(b): smallest q")
m3b = fig3b.groupby("q").mean(numeric_only=True)
fig, axes = plt.subplots(1, 3, figsize=(10, 3.4), sharex=True)
for ax, col in zip(axes, ["Delta_W", "r2_sim", "global r2_Proc"]):
    sweep = m3b.loc[m3b.index >= 7, col]
    ax.plot(sweep.index, sweep.values, "o-", label="ours (mean of seeds)")
    ax.axvline(P_Q11, color="k", ls="--", lw=1, label=f"paper: realisable from q = {P_Q11:g}")
    ax.set(xlabel="q", title=col)
axes[2].plot(m3b.index[m3b.index >= 7], m3b.loc[m3b.index >= 7, "local r2_Proc"], "s-", label="local r2_Proc")
axes[2].legend(fontsize=8)
fig.suptitle(f"Fig. 3(b) analogue; at q = 2: local {m3b.loc[2, 'local r2_Proc']:.2f} (paper {P_LOCAL:g}), "
             f"global {m3b.loc[2, 'global r2_Proc']:.2f} (paper {P_GLOBAL:g})")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-03-fig3b-mixed-sweep")

# %%
q2 = fig3b[fig3b["q"] == 2].sort_values("seed")
runs_q2 = [mixed_runs[(2, s)] for s in cfg.seeds]
trained_q2 = loss_moved(runs_q2)
ledger.claim("fig3b-local-q2", "Mixed labels at q = 2: held-out local (within-class) r2_Proc over seeds",
             P_LOCAL, stats.sample(q2["local r2_Proc"]), stats.level(P_LOCAL, tol=FIG_TOL, tol_reason=FIG_TOL_REASON),
             kind="paper", source=P_3B_SRC, regime=MORPH,
             validity=[trained_q2, dev_plateau(runs_q2, "local r2_Proc", gap=FIG_TOL)])
ledger.claim("fig3b-global-q2", "Mixed labels at q = 2: held-out global r2_Proc over seeds",
             P_GLOBAL, stats.sample(q2["global r2_Proc"]),
             stats.level(P_GLOBAL, tol=FIG_TOL, tol_reason=FIG_TOL_REASON), kind="paper", source=P_3B_SRC,
             regime=MORPH, validity=[trained_q2, dev_plateau(runs_q2, "global r2_Proc", gap=FIG_TOL)])
local_global = stats.paired(q2["local r2_Proc"], q2["global r2_Proc"], labels=("local", "global"))
ledger.claim("fig3b-local-above-global", "At q = 2 the mixed-label embedding is isometric within classes but not "
             "globally: local minus global r2_Proc, paired by seed", P_LOCAL - P_GLOBAL, local_global,
             stats.direction(paper_effect=P_LOCAL - P_GLOBAL), kind="paper",
             source=f"{P_3B_SRC}: {P_LOCAL:g} - {P_GLOBAL:g}", regime=MORPH,
             validity=[trained_q2, dev_plateau(runs_q2, "local - global", gap=local_global.estimate)],
             note=f"paper: local {P_LOCAL:g} - global {P_GLOBAL:g}, both approximate, from one run")
rise = m3b.loc[m3b.index >= 7, "global r2_Proc"]
ledger.claim("fig3b-improves-to-11", "Over q in [7..13], global r2_Proc (mean over seeds) improves up to q = 11 (the "
             "product of a 9-simplex and a square needs 11 dimensions): the q where the rise stops", P_Q11,
             end_of_rise(rise), within(P_Q11, 0, 1), kind="paper", source=P_Q11_SRC, regime=MORPH,
             validity=[loss_moved([mixed_runs[k] for k in mixed_runs if k[0] >= 7]),
                       dev_plateau_groups({q: [mixed_runs[(q, s)] for s in cfg.seeds] for q in cfg.mixed_qs if q >= 7},
                                          "global r2_Proc", gap=FIG_TOL)],
             note="mean over seeds per q: " + ", ".join(f"{q}: {v:.3f}" for q, v in rise.items()))

# %% [markdown]
# ## 5. Fig. 5 analogue: y-Aware vs Euclidean on thickness ($q = 2$, τ = 0.1)
#
# Same weights $w = e^{-(t_i - t_j)^2}$ on standardised thickness $t$. Euclidean similarity realises the labels on a
# **line**; y-Aware's cosine similarity lives on the circle, so the 1-D labels can only be bent into an **arc**
# (Thm. 3.11: a segment is not a spherical EDM, so the bound is not attained). Every seed trains both encoders.

# %%
thick = M[:, :1]
t_test = thick[te].numpy()[:, 0]
line_target = np.c_[t_test, np.zeros_like(t_test)]


@torch.no_grad()
def fig5_metrics(model):
    """Held-out line agreement (Euclidean) and arc ordering (y-Aware) of an encoder of thickness."""
    Z = model(X_test).double().numpy()
    return {"r2_Proc vs (t, 0)": r2_procrustes(Z, line_target), "variance on 1st PC": line_fraction(Z),
            "|Spearman(angle, t)|": arc_order(Z, t_test)["spearman"]}


fig5_rows, fig5_runs, fig5 = [], {}, {}
for name, sim, tau_ in [("Euclidean", "euclidean", 1.0), ("y-Aware", "cosine", 0.1)]:
    for seed in cfg.seeds:
        model, Z_test, res = fit_encoder(2, euclidean_weights(thick).float(), sim, tau=tau_, seed=seed, desc=name,
                                         monitor=fig5_metrics)
        fig5_runs[(name, seed)] = res
        Z = Z_test.numpy()
        if seed == cfg.seeds[0]:
            fig5[name] = Z
        fig5_rows.append({"model": name, "seed": seed, **fig5_metrics(model),
                          "arc span (deg)": np.degrees(arc_order(Z, t_test)["span"])})
fig5_table = pd.DataFrame(fig5_rows)
fig5_table.groupby("model").agg(["mean", "std"]).drop(columns="seed").round(3)

# %% [markdown]
# The two held-out embeddings of the first seed side by side, coloured by thickness.

# %%
Ze, Zy = fig5["Euclidean"], fig5["y-Aware"] / np.linalg.norm(fig5["y-Aware"], axis=1, keepdims=True)
fig5_mean = fig5_table.groupby("model").mean(numeric_only=True)
fig, axes = plt.subplots(1, 2, figsize=(10, 4.3))
for ax, (name, Z) in zip(axes, [("Euclidean (s = −‖·‖²)", Ze), ("y-Aware (s = cos/τ, τ = 0.1)", Zy)]):
    sc = ax.scatter(Z[:, 0], Z[:, 1], c=t_test, cmap="viridis", s=8)
    ax.set(title=name, xlabel="z₁", ylabel="z₂", aspect="equal")
    fig.colorbar(sc, ax=ax, label="thickness (standardised)")
circle = np.linspace(0, 2 * np.pi, 200)
axes[1].plot(np.cos(circle), np.sin(circle), "k:", lw=0.8)
fig.suptitle(f"Fig. 5 analogue: a line (1st PC carries {fig5_mean.loc['Euclidean', 'variance on 1st PC']:.1%}, "
             f"r²_Proc {fig5_mean.loc['Euclidean', 'r2_Proc vs (t, 0)']:.2f}, means of seeds;\npaper "
             f"{paper_number('Fig. 5: Procrustes')[0]:g}) vs an arc "
             f"({fig5_mean.loc['y-Aware', 'arc span (deg)']:.0f}° of the circle)")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-03-fig5-arc-vs-line")

# %%
P_5, P_5_SRC = paper_number("Fig. 5: Procrustes")
f5 = {name: g.sort_values("seed") for name, g in fig5_table.groupby("model")}
f5_runs = {name: [fig5_runs[(name, s)] for s in cfg.seeds] for name in ("Euclidean", "y-Aware")}
f5_checks = lambda name, key: [loss_moved(f5_runs[name]), dev_plateau(f5_runs[name], key, gap=FIG_TOL)]  # noqa: E731
ledger.claim("fig5-euclidean-r2proc", "Euclidean similarity with Euclidean weights on thickness (q = 2) recovers "
             "the 1-D label geometry: held-out r2_Proc against (thickness, 0) over seeds", P_5,
             stats.sample(f5["Euclidean"]["r2_Proc vs (t, 0)"]),
             stats.level(P_5, tol=FIG_TOL, tol_reason=FIG_TOL_REASON), kind="paper", source=P_5_SRC, regime=DIGITS,
             validity=f5_checks("Euclidean", "r2_Proc vs (t, 0)"))
line_cmp = stats.sample(f5["Euclidean"]["variance on 1st PC"])
ledger.claim("fig5-euclidean-line", "...the Euclidean embedding is a line: lower end of the 95 % CI over seeds of "
             "the fraction of variance on the first PC", "true 1-D geometry recovered", lower_bound(line_cmp),
             at_least(0.95, partly=0.85), kind="paper", source="§4.3", regime=DIGITS,
             validity=f5_checks("Euclidean", "variance on 1st PC"),
             note=f"over seeds {line_cmp}; 0.95: at most 5 % of the spread off the line.")
arc_cmp = stats.sample(f5["y-Aware"]["|Spearman(angle, t)|"])
ledger.claim("fig5-yaware-arc", "y-Aware (cosine similarity, tau = 0.1) is constrained to the circle: the "
             "normalised embedding orders thickness along an arc, lower end of the 95 % CI over seeds of "
             "|Spearman(angle, thickness)|", "spherical geometry", lower_bound(arc_cmp), at_least(0.9, partly=0.7),
             kind="paper", source="§4.3", regime=DIGITS, validity=f5_checks("y-Aware", "|Spearman(angle, t)|"),
             note=f"over seeds {arc_cmp}; arc span {fig5_mean.loc['y-Aware', 'arc span (deg)']:.0f} degrees (mean); "
                  "0.9 asks for an almost monotone arc.")

# %% [markdown]
# **The digit experiments beside the paper's numbers** (computed from the runs above; the verdicts, with their
# validity checks, are in the claims table below).

# %%
beside = pd.DataFrame([
    {"quantity": "Fig. 2: r2_Proc at q = 9", "paper": P_Q9, "ours": at_q9},
    {"quantity": "Fig. 3a: r2_Proc (thickness, slant)", "paper": P_3A_PROC,
     "ours": stats.sample(per_seed["morphometrics"]["r2_Proc"])},
    {"quantity": "Fig. 3a: r2_sim (thickness, slant)", "paper": P_3A_R2,
     "ours": stats.sample(per_seed["morphometrics"]["r2_sim"])},
    {"quantity": "Fig. 3b: local r2_Proc at q = 2", "paper": P_LOCAL, "ours": stats.sample(q2["local r2_Proc"])},
    {"quantity": "Fig. 3b: global r2_Proc at q = 2", "paper": P_GLOBAL, "ours": stats.sample(q2["global r2_Proc"])},
    {"quantity": "Fig. 3b: local - global at q = 2", "paper": P_LOCAL - P_GLOBAL, "ours": local_global},
    {"quantity": "Fig. 5: Euclidean r2_Proc vs (t, 0)", "paper": P_5,
     "ours": stats.sample(f5["Euclidean"]["r2_Proc vs (t, 0)"])},
])
beside.assign(mean=[c.estimate for c in beside["ours"]],
              ci_low=[c.ci[0] if c.ci else np.nan for c in beside["ours"]],
              ci_high=[c.ci[1] if c.ci else np.nan for c in beside["ours"]]).drop(columns="ours").round(3)

# %% [markdown]
# ## Claims

# %%
ledger.table()

# %%
ledger.table().groupby(["kind", "verdict"]).size().rename("claims").to_frame()

# %%
ledger.save()
show_provenance(ledger)
