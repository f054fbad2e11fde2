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
# **Paper.** R. Vock, E. Duchesnay, B. Dufumier, *A Unified Geometric Framework for Weighted Contrastive
# Learning*, arXiv 2605.13943 (2026). **Reproduces** §3.6 (Thm. 3.10 Euclidean–Euclidean, Thm. 3.11 y-Aware,
# Thm. 3.12 X-CLR) on free embeddings, then §4.1 and §4.3 at small scale: the paper trains an MNIST ConvNet; we train
# a small MLP on scikit-learn's 8×8 digits (1,797 images) — Fig. 2 (Euclidean Soft SupCon, $q = 5..12$: the bound
# becomes attainable at $q = 9$), Fig. 3 (regression on thickness and slant, and class + morphometrics), Fig. 5
# (y-Aware vs Euclidean on thickness, $q = 2$, τ = 0.1: arc vs line). Thickness and slant are measured from the
# images here (ink area / skeleton length, moment shear: `companion.metrics.morphometrics`), not Morpho-MNIST's.
#
# **Verdicts** (cpu profile; free embeddings are deterministic, the digit experiments use one seed, so every
# criterion is a stated tolerance, and the digit claims carry the regime: 8×8 digits with an MLP, not MNIST with a
# ConvNet, which caps a match at *partly*). Theorems: all reproduced on free embeddings — EE attains the bound at
# $Z^* = (y, 0)$; y-Aware does not on a segment at any scale (Δ_W from 7e-9 at the smallest scale to 4e-2) but does for
# labels on a circle within radius $1/\sqrt{2\tau}$ and not beyond; X-CLR attains it for τ ≤ τ′ at the stated
# cosines and not above. Digits: see the closing note for the figures' analogues (Fig. 2, Fig. 3a, Fig. 3b over the
# caption's q = 7..13 and at q = 2, Fig. 5), each beside the number the paper prints.

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
import warnings
from functools import partial

warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import torch
from scipy.stats import spearmanr

from companion.data import load_digits
from companion.free_embeddings import fit_free_embeddings
from companion.losses.weighted import euclidean_similarities, euclidean_weights, soft_supcon_weights
from companion.metrics.distance_geometry import delta_w, edm, r2_procrustes, r2_sim
from companion.metrics.morphometrics import morphometrics
from companion.papers.weighted_cl.experiments import (end_of_rise, fit_digit_encoder, local_global_r2, paper_number,
                                                      xclr_sweep, yaware_sweep)
from companion.profiles import settings
from companion import stats
from companion.results import Ledger, at_least, at_most, holds, not_testable, show_provenance, within

# %% [markdown]
# Settings per profile (smoke: a 400-image subset, 3 training steps; cpu: every digit, 400 Adam steps, q = 5..12,
# one seed), then the claims ledger.

# %%
torch.set_num_threads(1)  # small MLP and 512x512 similarity matrices: one thread is fastest on a shared CPU
EPS = math.exp(-1)
cfg = settings(profile,
               smoke=dict(seeds=[0], lbfgs_steps=15, n_images=400, n_free=12, steps=3, qs=[5, 9], batch=64, n_test=100,
                          sweep=[0.5, 1.5], mixed_qs=[2, 11], mixed_seeds=[0, 1]),
               cpu=dict(seeds=[0], lbfgs_steps=3000, n_images=None, n_free=30, steps=400, qs=list(range(5, 13)), batch=512,
                        n_test=597, sweep=[0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.5, 2.0, 3.0],
                        mixed_qs=[2] + list(range(7, 14)), mixed_seeds=[0, 1, 2]),
               # gpu: §4.1/§4.3 (App. F Table 2): 3-layer ConvNet on MNIST, Adam lr 1e-3, wd 2e-6, batch 512, d in 5..12;
               # here a small net on all scikit-learn digits (no MNIST in the mirror), 3000 steps, three seeds
               gpu=dict(seeds=[0, 1, 2], lbfgs_steps=3000, n_images=None, n_free=30, steps=3000, qs=list(range(5, 13)), batch=512,
                        n_test=597, sweep=[0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.5, 2.0, 3.0],
                        mixed_qs=[2] + list(range(7, 14)), mixed_seeds=[0, 1, 2]),
               common=dict(lr=1e-3, weight_decay=2e-6, hidden=256),
               overrides=dict(seeds=seeds, steps=steps))
ledger = Ledger("weighted-cl", "03-regression-geometry", profile=cfg.profile, seeds=cfg.seeds)
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
pd.Series(ee_row, name="Euclidean–Euclidean"), display_tables

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
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
             note="Attained means Delta_W at the float64 optimiser's floor (1e-8); the y-Aware runs below show the "
                  "same optimiser stalling at 1e-6..1e-1 where the bound is not attainable, so the test can fail.")
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
             float(line_all.min()), at_least(1e-9), kind="paper",
             source="Thm 3.11",
             note="Thm 3.11 says nothing about the size of the gap; the smallest segment (scale 0.25) gives the "
                  "smallest gap. The floor 1e-9 lies below every gap of a non-spherical label set we saw and above "
                  "the values (<= 1e-9) the same optimiser reaches where the bound is attainable (circle rows).")
ledger.claim("thm3.11-yaware-line-wide", f"the y-Aware gap on the segment is not an optimiser artefact: it grows "
             f"with the label spread (Delta_W at scale {cfg.sweep[-1]:g} above 1e-3 and larger than at the smallest "
             "scale)", True, bool(line_all.iloc[-1] > 1e-3 and line_all.iloc[-1] > line_all.iloc[0]),
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
                 note="1e-6 is 100x the attained floor; at radius 1.1/sqrt(2 tau) the gap is a few 1e-3.")

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
             note="1e-3 on cosines: the optimiser's Delta_W floor translates into cosine residuals of order 1e-4; "
                  "above tau' the deviation is 0.2 or more, so the test separates the two regimes.")
ledger.claim("thm3.12-xclr-fails", "X-CLR with tau > tau': the normalised-label EDM has radius 1/sqrt(2 tau') > "
             "1/sqrt(2 tau), so by Thm 3.8 the bound is not attained: min Delta_W for tau/tau' >= 1.1",
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
fig, axes = plt.subplots(2, 8, figsize=(12, 3.4))
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
# digits we report Δ_W (whole test set as one batch) and $r^2_\mathrm{Proc}$ against $Z^*$ = one-hot$/\sqrt2$.


# %%
fit_encoder = partial(fit_digit_encoder, X, train_idx, test_idx, steps=cfg.steps, batch=cfg.batch, lr=cfg.lr,
                      weight_decay=cfg.weight_decay, hidden=cfg.hidden)  # fit_encoder(q, W_full, similarity, ...)
train_probe = train_idx[: len(test_idx)]  # a fixed training subset of the test set's size, for Delta_W on seen data
W_soft = soft_supcon_weights(Y, EPS).float()
Z_star = np.eye(10)[labels[test_idx]] / math.sqrt(2)
W_soft_test = soft_supcon_weights(Y[torch.as_tensor(test_idx)], EPS)
W_soft_probe = soft_supcon_weights(Y[torch.as_tensor(train_probe)], EPS)
rows = []
for seed in cfg.seeds:
    for q in cfg.qs:
        model, Z_test, res = fit_encoder(q, W_soft, "euclidean", seed=seed, desc=f"q={q}")
        with torch.no_grad():
            Z_probe = model(X[torch.as_tensor(train_probe)]).double()
        rows.append({"seed": seed, "q": q, "train loss": res.history[-1]["loss"],
                     "train Delta_W": delta_w(W_soft_probe, euclidean_similarities(Z_probe)),
                     "test Delta_W": delta_w(W_soft_test, euclidean_similarities(Z_test)),
                     "test r2_Proc": r2_procrustes(Z_test.numpy(), Z_star),
                     "test r2_sim": r2_sim(-edm(Z_test.numpy()), -edm(Z_star))})
fig2 = pd.DataFrame(rows)
fig2.groupby("q").mean(numeric_only=True)

# %%
agg = fig2.groupby("q").mean(numeric_only=True)
fig, ax = plt.subplots(1, 2, figsize=(12, 4))
ax[0].semilogy(agg.index, agg["train Delta_W"], "o-", label="training digits")
ax[0].semilogy(agg.index, agg["test Delta_W"], "s-", label="held-out digits")
ax[0].set(xlabel="embedding dimension q", ylabel="Δ_W", title="Euclidean Soft SupCon on digits")
ax[1].plot(agg.index, agg["test r2_Proc"], "o-", color="C2", label="ours (held-out digits)")
P_FIG2 = paper_number("Fig. 2: Procrustes similarity at the transition")[0]
ax[1].plot([9], [P_FIG2], "k*", ms=12, label=f"paper: r²_Proc ≈ {P_FIG2:g} at q = 9 (MNIST)")
ax[1].set(xlabel="embedding dimension q", ylabel="held-out r²_Proc vs simplex", ylim=(None, 1.02))
for a in ax:
    a.axvline(9, color="k", ls="--", lw=1, label="paper: transition at q = 9")
    a.legend()
fig.suptitle("Fig. 2 analogue (8×8 digits, MLP): the simplex target needs q ≥ C − 1 = 9")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-03-fig2-q-transition")

# %%
DIGITS = ("8x8 scikit-learn digits (1,797 images) with a 2-hidden-layer MLP, 400 Adam steps, one seed; the paper "
          "trains a 3-layer ConvNet on MNIST for 20-50 epochs")
FIG_TOL = 0.05
FIG_TOL_REASON = ("the paper prints these r2 to two digits or as approximations, and its own two agreement scores for "
                  "one embedding differ by 0.05 (0.91 vs 0.96, §4.1); a level within 0.05 counts as the same, "
                  "within 0.15 as partly")
r2p = agg["test r2_Proc"]
ledger.claim("fig2-transition-q", "Held-out r2_Proc against the regular 9-simplex rises with q up to a transition at "
             "q = 9: the q where the rise stops (largest drop in the increase per unit q)", 9, end_of_rise(r2p),
             within(9, 0, 1), kind="paper", source="§4.1", regime=DIGITS,
             note=f"held-out r2_Proc per q: {', '.join(f'{q}: {v:.3f}' for q, v in r2p.items())}. The rise before "
                  "the kink is gradual here (about +0.1 per q), not a jump.")
r2s = agg["test r2_sim"]
ledger.claim("fig2-transition-q-r2sim", "...the same for the coefficient of similarity r2_sim (s = -squared "
             "distance): the q where the rise stops", 9, end_of_rise(r2s), within(9, 0, 1), kind="paper",
             source="§4.1", regime=DIGITS,
             note=f"held-out r2_sim per q: {', '.join(f'{q}: {v:.3f}' for q, v in r2s.items())}")
below = agg.loc[agg.index <= 8, "test r2_Proc"]
above = agg.loc[agg.index >= 9, "test r2_Proc"]
_ = ledger.claim("fig2-r2-higher-above-9", "Held-out r2_Proc vs the simplex is higher for every q >= 9 than for every "
                 "q <= 8", "transition at q = 9", bool(len(below) and len(above) and above.min() > below.max()),
                 holds(), kind="paper", source="§4.1", regime=DIGITS)

# %% [markdown]
# The level at the transition, the same question asked of Δ_W, and the paper-scale run we cannot do.

# %%
P_Q9, P_Q9_SRC = paper_number("Fig. 2: Procrustes similarity at the transition")
q9 = 9 if 9 in r2p.index else int(r2p.index[np.argmin(np.abs(r2p.index - 9))])
ledger.claim("fig2-r2proc-level-q9", f"At the transition the representation is nearly isometric to the simplex: "
             f"held-out r2_Proc at q = {q9}", P_Q9, float(r2p.loc[q9]), within(P_Q9, FIG_TOL, 0.15),
             kind="paper", source=P_Q9_SRC, regime=DIGITS, note=f"tolerance: {FIG_TOL_REASON}")
ledger.claim("fig2-delta-w-drop-q", "q at the largest relative drop of Delta_W on training digits between "
             "consecutive q (the simplex fits from q = C - 1 = 9)", 9, int(agg["train Delta_W"].index[
                 np.argmax(-np.diff(np.log(agg["train Delta_W"].values))) + 1]) if len(agg) > 1 else -1,
             within(9, 0, 1), kind="beyond",
             note="Fig. 2 plots r2_sim and r2_Proc, not the loss gap; this asks the same question of Delta_W.")
ledger.claim("fig2-mnist-convnet", "Fig 2 at the paper's scale (ConvNet on MNIST)", "transition at q = 9",
             "not run", not_testable("MNIST is not in the data mirror and a ConvNet on 60k images does not fit the "
                                     "CPU budget; 8x8 digits with an MLP is the analogue above."),
             kind="paper", source="Fig. 2 caption")


# %% [markdown]
# ## 4. Fig. 3 analogue: regression on thickness and slant, and class + morphometrics
#
# Euclidean–Euclidean weights on the standardised morphometrics $y = (\text{thickness}, \text{slant})$ with
# $q = 2$; Thm. 3.10 predicts $Z^* = y$ up to isometry. Mixed labels: $y = (\text{one-hot}/\sqrt2,\,
# \text{thickness}, \text{slant})$, i.e. $w = [\text{Soft SupCon}, \varepsilon = e^{-1}] \times e^{-\|m_i - m_j\|^2}$,
# $q = 12$, target $Z^* = y$.

# %%
onehot = torch.as_tensor(np.eye(10)[labels] / math.sqrt(2), dtype=torch.float32)
mixed = torch.cat([onehot, M], dim=1)
te = torch.as_tensor(test_idx)
reg_rows, reg_Z = [], {}
for name, Ylab, q in [("morphometrics", M, 2), ("class + morphometrics", mixed, 12)]:
    _, Z_test, _ = fit_encoder(q, euclidean_weights(Ylab).float(), "euclidean", seed=cfg.seeds[0], desc=name)
    reg_Z[name] = Z_test.numpy()
    reg_rows.append({"labels": name, "q": q, "test r2_Proc vs y": r2_procrustes(Z_test.numpy(), Ylab[te].numpy()),
                     "test r2_sim vs y": r2_sim(-edm(Z_test.numpy()), -edm(Ylab[te].numpy())),
                     "test Delta_W": delta_w(euclidean_weights(Ylab[te]), euclidean_similarities(Z_test))})
regression = pd.DataFrame(reg_rows).set_index("labels")
regression

# %%
from scipy.linalg import orthogonal_procrustes  # noqa: E402

Zr = reg_Z["morphometrics"] - reg_Z["morphometrics"].mean(0)
target = M[te].numpy() - M[te].numpy().mean(0)
R, _ = orthogonal_procrustes(Zr, target)
aligned = Zr @ R
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
for ax, k, col in zip(axes[:2], [0, 1], ["thickness", "slant"]):
    sc = ax.scatter(aligned[:, 0], aligned[:, 1], c=target[:, k], cmap="viridis", s=8)
    fig.colorbar(sc, ax=ax, label=f"{col} (standardised)")
    ax.set(title=f"EE embedding (q = 2, aligned), coloured by {col}", xlabel="z₁", ylabel="z₂")
Zm = reg_Z["class + morphometrics"] - reg_Z["class + morphometrics"].mean(0)
target_m = mixed[te].numpy() - mixed[te].numpy().mean(0)
aligned_m = Zm @ orthogonal_procrustes(Zm, target_m)[0]
sc = axes[2].scatter(target_m[:, 10], aligned_m[:, 10], c=labels[test_idx], cmap="tab10", s=8)
axes[2].plot(target_m[:, 10], target_m[:, 10], "k-", lw=0.8, label="z = y")
axes[2].set(title="class + morphometrics (q = 12): thickness coordinate", xlabel="true thickness (standardised)",
            ylabel="aligned embedding coordinate")
axes[2].legend()
fig.colorbar(sc, ax=axes[2], label="digit")
fig.suptitle("Fig. 3 analogue: Euclidean–Euclidean regression embeds the labels (held-out digits): r²_Proc "
             f"{regression.loc['morphometrics', 'test r2_Proc vs y']:.2f} (paper ≈ "
             f"{paper_number('Fig. 3(a): Procrustes')[0]:g}), r²_sim {regression.loc['morphometrics', 'test r2_sim vs y']:.2f} "
             f"(paper {paper_number('Fig. 3(a): r2 of')[0]:g})")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-03-fig3-regression")

# %%
P_3A_PROC, P_3A_SRC = paper_number("Fig. 3(a): Procrustes")
P_3A_R2, _ = paper_number("Fig. 3(a): r2 of")
ledger.claim("fig3-ee-regression-r2proc", "EE weights on (thickness, slant), q = 2: held-out r2_Proc of the "
             "embedding against the labels (Thm 3.10 realised by a network)", P_3A_PROC,
             float(regression.loc["morphometrics", "test r2_Proc vs y"]), within(P_3A_PROC, FIG_TOL, 0.15),
             kind="paper", source=P_3A_SRC, regime=DIGITS + "; thickness and slant measured from 8x8 images, not "
             "Morpho-MNIST's", note=f"tolerance: {FIG_TOL_REASON}")
ledger.claim("fig3-ee-regression-r2sim", "...and the coefficient of similarity (s = -squared distance) against the "
             "labels", P_3A_R2, float(regression.loc["morphometrics", "test r2_sim vs y"]),
             within(P_3A_R2, FIG_TOL, 0.15), kind="paper", source=P_3A_SRC,
             regime=DIGITS + "; thickness and slant measured from 8x8 images, not Morpho-MNIST's",
             note=f"the paper's 'r2 = 0.91' is read as its coefficient of similarity (Def. 3.15); tolerance: "
                  f"{FIG_TOL_REASON}")
ledger.claim("fig3-mixed-labels-q12", "EE on class + morphometrics at q = 12 (>= 11, where the optimum is "
             "realisable): held-out r2_Proc vs the labels", "realisable for q >= 11",
             float(regression.loc["class + morphometrics", "test r2_Proc vs y"]), at_least(0.9, partly=0.7),
             kind="beyond",
             note="The paper plots the mixed-label metrics against q (Fig. 3b) but prints only the q = 2 values "
                  "(local and global, Fig. 3b sweep below); here one q >= 11: does the encoder get near the "
                  "optimum (0.9: the level the paper calls nearly isometric in §4.1)?")


# %% [markdown]
# ### Fig. 3(b): class + morphometrics over the caption's range of $q$, and $q = 2$ locally and globally
#
# The same mixed labels, $q$ over the caption's $[7..13]$ plus $q = 2$, three seeds. Global $r^2_\mathrm{Proc}$ aligns
# all held-out digits at once; local aligns each class on its own and averages (§4.1: at $q = 2$ the embedding is
# isometric within classes, not globally).

# %%
W_mixed = euclidean_weights(mixed).float()
mixed_rows = []
for seed in cfg.mixed_seeds:
    for q in cfg.mixed_qs:
        _, Z_test, _ = fit_encoder(q, W_mixed, "euclidean", seed=seed, desc=f"mixed q={q}")
        Zq, Yq = Z_test.numpy(), mixed[te].numpy()
        mixed_rows.append({"seed": seed, "q": q, "Delta_W": delta_w(euclidean_weights(mixed[te]),
                                                                     euclidean_similarities(Z_test)),
                           "r2_sim": r2_sim(-edm(Zq), -edm(Yq)), **local_global_r2(Zq, Yq, labels[test_idx])})
fig3b = pd.DataFrame(mixed_rows)
fig3b.groupby("q").agg(["mean", "std"]).drop(columns="seed").round(3)

# %%
P_LOCAL, P_3B_SRC = paper_number("Fig. 3(b): local")
P_GLOBAL, _ = paper_number("Fig. 3(b): global")
P_Q11, P_Q11_SRC = paper_number("Fig. 3(b): smallest q")
m3b = fig3b.groupby("q").mean(numeric_only=True)
fig, axes = plt.subplots(1, 3, figsize=(15, 3.8), sharex=True)
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
DIGITS_MIXED = DIGITS.replace("one seed", f"{len(cfg.mixed_seeds)} seeds")
TOL3B = ("the paper prints both as approximations from one run; our labels and encoder differ (8x8 digits, "
         "measured morphometrics)")
ledger.claim("fig3b-local-q2", "Mixed labels at q = 2: held-out local (within-class) r2_Proc",
             P_LOCAL, stats.sample(q2["local r2_Proc"]), stats.level(P_LOCAL, tol=0.1, tol_reason=TOL3B),
             kind="paper", source=P_3B_SRC, regime=DIGITS_MIXED)
ledger.claim("fig3b-global-q2", "Mixed labels at q = 2: held-out global r2_Proc",
             P_GLOBAL, stats.sample(q2["global r2_Proc"]), stats.level(P_GLOBAL, tol=0.1, tol_reason=TOL3B),
             kind="paper", source=P_3B_SRC, regime=DIGITS_MIXED)
ledger.claim("fig3b-local-above-global", "At q = 2 the mixed-label embedding is isometric within classes but not "
             "globally: local minus global r2_Proc, paired by seed", "local above global",
             stats.paired(q2["local r2_Proc"], q2["global r2_Proc"]), stats.direction(sign=1), kind="paper",
             source=P_3B_SRC, regime=DIGITS_MIXED)
rise = m3b.loc[m3b.index >= 7, "global r2_Proc"]
ledger.claim("fig3b-improves-to-11", "Over q in [7..13], global r2_Proc improves up to q = 11 (the product of a "
             "9-simplex and a square needs 11 dimensions): the q where the rise stops", P_Q11, end_of_rise(rise),
             within(P_Q11, 0, 1), kind="paper", source=P_Q11_SRC, regime=DIGITS_MIXED,
             note="mean over seeds per q: " + ", ".join(f"{q}: {v:.3f}" for q, v in rise.items()))

# %% [markdown]
# ## 5. Fig. 5 analogue: y-Aware vs Euclidean on thickness ($q = 2$, τ = 0.1)
#
# Same weights $w = e^{-(t_i - t_j)^2}$ on standardised thickness $t$. Euclidean similarity realises the labels on a
# **line**; y-Aware's cosine similarity lives on the circle, so the 1-D labels can only be bent into an **arc**
# (Thm. 3.11: a segment is not a spherical EDM, so the bound is not attained).

# %%
thick = M[:, :1]
fig5 = {}
for name, sim, tau_ in [("Euclidean", "euclidean", 1.0), ("y-Aware", "cosine", 0.1)]:
    _, Z_test, _ = fit_encoder(2, euclidean_weights(thick).float(), sim, tau=tau_, seed=cfg.seeds[0], desc=name)
    fig5[name] = Z_test.numpy()
t_test = thick[te].numpy()[:, 0]
Ze, Zy = fig5["Euclidean"], fig5["y-Aware"] / np.linalg.norm(fig5["y-Aware"], axis=1, keepdims=True)
pc = np.linalg.svd(Ze - Ze.mean(0), full_matrices=False)
line_fraction = float(pc[1][0] ** 2 / (pc[1] ** 2).sum())
angles = np.unwrap(np.arctan2(Zy[:, 1], Zy[:, 0])[np.argsort(t_test)])
rho_angle = spearmanr(t_test[np.argsort(t_test)], angles).statistic
arc = float(angles.max() - angles.min())
r2_line = r2_procrustes(Ze, np.c_[t_test, np.zeros_like(t_test)])

# %% [markdown]
# The two held-out embeddings side by side, coloured by thickness.

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
for ax, (name, Z) in zip(axes, [("Euclidean (s = −‖·‖²)", Ze), ("y-Aware (s = cos/τ, τ = 0.1)", Zy)]):
    sc = ax.scatter(Z[:, 0], Z[:, 1], c=t_test, cmap="viridis", s=8)
    ax.set(title=name, xlabel="z₁", ylabel="z₂", aspect="equal")
    fig.colorbar(sc, ax=ax, label="thickness (standardised)")
circle = np.linspace(0, 2 * np.pi, 200)
axes[1].plot(np.cos(circle), np.sin(circle), "k:", lw=0.8)
fig.suptitle(f"Fig. 5 analogue: a line (1st PC carries {line_fraction:.1%}; r²_Proc {r2_line:.2f}, paper "
             f"{paper_number('Fig. 5: Procrustes')[0]:g}) vs an arc ({np.degrees(arc):.0f}° of the circle)")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-03-fig5-arc-vs-line")
pd.Series({"Euclidean: r2_Proc vs (thickness, 0)": r2_line, "Euclidean: variance on 1st PC": line_fraction,
           "y-Aware: arc span (deg)": np.degrees(arc),
           "y-Aware: Spearman(angle, thickness)": abs(rho_angle)})

# %%
P_5, P_5_SRC = paper_number("Fig. 5: Procrustes")
ledger.claim("fig5-euclidean-r2proc", "Euclidean similarity with Euclidean weights on thickness (q = 2) recovers "
             "the 1-D label geometry: held-out r2_Proc against (thickness, 0)", P_5, r2_line,
             within(P_5, FIG_TOL, 0.15), kind="paper", source=P_5_SRC, regime=DIGITS,
             note=f"tolerance: {FIG_TOL_REASON}")
ledger.claim("fig5-euclidean-line", "...the Euclidean embedding is a line: fraction of variance on the first PC",
             "true 1-D geometry recovered", line_fraction, at_least(0.95, partly=0.85), kind="paper",
             source="§4.3", regime=DIGITS, note="0.95: at most 5 % of the spread off the line.")
ledger.claim("fig5-yaware-arc", "y-Aware (cosine similarity, tau = 0.1) is constrained to the circle: the "
             "normalised embedding orders thickness along an arc, |Spearman(angle, thickness)|",
             "spherical geometry", float(abs(rho_angle)), at_least(0.9, partly=0.7), kind="paper",
             source="§4.3", regime=DIGITS,
             note=f"arc span {np.degrees(arc):.0f} degrees; 0.9 asks for an almost monotone arc.")


# %% [markdown]
# **The digit experiments in numbers** (cpu profile, one seed; every digit claim carries the regime, which caps a
# match at *partly* and turns a miss into *inconclusive*). Fig. 2 analogue: held-out $r^2_\mathrm{Proc}$ against the
# simplex climbs by about 0.1 per dimension from 0.51 at $q = 5$ to 0.94 at $q = 9$ and stays there (0.94 for
# $q = 10..12$); $r^2_\mathrm{sim}$ climbs from −0.31 to 0.58 and then levels off (0.57–0.62). The rise ends at $q = 9$
# as the paper says, but it is a steady climb rather than a jump, and the level at $q = 9$ (0.94) matches the paper's
# ≈ 0.9 within 0.05. Fig. 3a analogue: Euclidean–Euclidean regression on (thickness, slant) reaches
# $r^2_\mathrm{Proc}$ = 0.85 (paper ≈ 0.96: partly) and $r^2_\mathrm{sim}$ = 0.62 (paper 0.91: lower, inconclusive for
# the regime); with class + morphometrics at $q = 12$, 0.82. Fig. 5 analogue: the Euclidean embedding of thickness
# is a line (99.4 % of its variance on one axis) but only 0.70 $r^2_\mathrm{Proc}$ against $(t, 0)$ (paper 0.85:
# inconclusive for the regime); y-Aware orders thickness along an arc of about 140° (|Spearman| 0.88: partly).
# Fig. 3b analogue (class + morphometrics, 3 seeds): over $q = 7..13$ global $r^2_\mathrm{Proc}$ creeps from 0.78 to a
# plateau of 0.82–0.83 from $q = 10$; the largest slow-down falls at $q = 8$, not at the paper's 11 (inconclusive for
# the regime: the gain per q is 0.01–0.02, too flat to place a kink). At $q = 2$ the embedding is more isometric
# within classes than globally (local − global = 0.05, 95 % CI [0.03, 0.07]: partly, for the regime), but both
# levels differ from the paper's (local 0.76 vs ≈ 0.93, global 0.71 vs ≈ 0.46): here the global geometry is kept far
# better than on MNIST, the local one worse.

# %% [markdown]
# ## Claims

# %%
ledger.table()

# %%
ledger.save()
show_provenance(ledger)
