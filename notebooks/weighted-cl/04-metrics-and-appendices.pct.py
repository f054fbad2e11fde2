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
# # Geometry metrics, X-CLR label geometries (App. E) and kernel PCA (App. F)
#
# **Paper.** Vock, Duchesnay & Dufumier, *A Unified Geometric Framework for Weighted Contrastive Learning*, arXiv
# 2605.13943 (2026), §3.9, App. E and App. F.
#
# Three parts. The paper's geometry metrics (the entropic gap, a similarity r² and a Procrustes r²) and what they
# are invariant to (§3.9). X-CLR with label geometries (App. E): targets from the 100 CIFAR-100 class names embedded
# by all-MiniLM-L6-v2, against the one-hot simplex, on free embeddings and with a small multi-layer perceptron (MLP)
# trained on digit images instead of a ResNet-50 on CIFAR-100. Kernel principal component analysis (kernel PCA, App.
# F): with weights from a kernel, the weighted InfoNCE optimum is the kernel PCA embedding. Free-embedding claims
# are deterministic; trained ones are judged over seeds. Settings and judging rules follow; the claims table at the
# end holds the computed verdicts.

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
t1_steps = None

# %%
import math
import warnings

warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import torch
from IPython.display import display
from sklearn.decomposition import PCA, KernelPCA
from sklearn.neighbors import KNeighborsClassifier
from sklearn.model_selection import cross_val_score

from companion.data import load_digits
from companion.encoders import load_encoder
from companion.papers.weighted_cl.free_embeddings import fit_free_embeddings
from companion.losses.weighted import distance_weights, entropic_bound, euclidean_similarities, xclr_weights
from companion.papers.weighted_cl.distance_geometry import (delta_w, edm, r2_procrustes, r2_sim,
                                                            random_isometry)
import companion.papers.weighted_cl.experiments as wx
from companion import stats
from companion.papers.weighted_cl.settings import METRICS
from companion.results import Ledger, at_least, at_most, holds, not_testable, show_provenance, within
from companion.papers.tables import paper_table
from companion.settings import REPO_ROOT
from companion.display import panel_grid, reader_display

reader_display()  # tables whole, numbers to three significant digits

# %% [markdown]
# ## What runs, at which scale, and how the claims are judged
#
# **Reproduces** §3.9 (entropic gap $\Delta_W$, similarity $r^2$, Procrustes $r^2$ and their invariances), App. E
# (X-CLR with label geometries: the 100 CIFAR-100 class names embedded by all-MiniLM-L6-v2 from "a photo of {name}"
# vs the one-hot simplex; the Fig. 6 matrix of $r^2_\mathrm{Proc}$ of each trained geometry against each target;
# Table 1) and App. F (Thm. F.1: with $w = e^{-d}$ from a PSD kernel and Euclidean similarity the optimum is the
# kernel-PCA embedding; PCA vs w-InfoNCE on digits, Fig. 7).
#
# **How the claims are judged.** Free-embedding optima (Thm. F.1, Fig. 6 on free embeddings, App. F.2) are
# deterministic given a seed, so their claims compare one number with a stated tolerance. The Fig. 7 sweep runs on
# random subsets of the digits (`fig7_seeds`), and Table 1's protocol on digits trains an MLP encoder per label geometry and
# seed (one run costs seconds on one thread); those claims are judged over the seeds through
# `companion.stats`: a level by its 95 % interval against a band around the paper's value, a difference between
# the MiniLM and the Simplex geometry by the symmetric direction rule with Table 1's own difference as the magnitude
# (tolerance: half of it, the paper prints no spread). Each Table 1 claim carries checks measured on its own runs:
# *trained* (the training loss fell beyond its minibatch noise), *plateau* (the compared held-out metric, recorded
# every tenth of the run, is flat over the last third or gains at most a quarter of the compared gap) and, for the
# accuracies, *ceiling* (the room left below 100 % is at least the paper's difference); a failed check makes the
# claim inconclusive. Our set-up differs from the paper's (digits, an MLP and 10 classes for CIFAR-100, a
# ResNet-50 and 100 classes; free embeddings for trained encoders): each such claim names it as its regime, shown
# beside the verdict; the regime never changes the verdict. Table 1 itself is transcribed in full, and one check
# asks whether its own numbers bear the text's reading. The verdicts are in the claims table at the end.
#
# Settings per profile (smoke: a few classes, digits, L-BFGS iterations, Table 1 seeds and Fig. 7 subsets; cpu: the
# 100 CIFAR-100 classes and the digits, iterations, Table 1 seeds and Fig. 7 subsets printed below), then the claims
# ledger.

# %%
torch.set_num_threads(1)  # float64 free-embedding problems: one thread is fastest on a shared CPU
cfg = METRICS(profile, gpu_grid=gpu_grid, seeds=seeds, lbfgs_steps=lbfgs_steps, t1_steps=t1_steps)
ledger = Ledger("weighted-cl", "04-metrics-and-appendices", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)
sns.set_theme(style="whitegrid", context="notebook")
cfg

# %% [markdown]
# ## 1. The three metrics (§3.9) and their invariances
#
# $\Delta_W = L^W/H(p_W) - 1$ depends only on $S$; $r^2_\mathrm{sim} = 1 - \mathrm{mean}[(s - s^*)^2]/\mathrm{var}[s^*]$
# over all pairs; $r^2_\mathrm{Proc} = 1 - \min_{\Omega, b}\mathrm{mean}\|\Omega z_i + b - z_i^*\|^2/\mathrm{var}(z^*)$.
# Under any isometry (rotation + translation) of $Z$ all three are unchanged ($r^2 = 1$ against the original);
# they are *not* invariant to scaling, and fall as noise is added.

# %%
rng = np.random.default_rng(cfg.seeds[0])
Z_star = rng.normal(size=(60, 5))
W = distance_weights(edm(Z_star))
rows = []
for seed in range(5):
    Zi = random_isometry(Z_star, seed=seed)
    rows.append({"isometry seed": seed, "r2_Proc": r2_procrustes(Zi, Z_star),
                 "r2_sim (s = −‖·‖²)": r2_sim(-edm(Zi), -edm(Z_star)),
                 "|ΔΔ_W|": abs(delta_w(W, euclidean_similarities(torch.as_tensor(Zi)))
                               - delta_w(W, euclidean_similarities(torch.as_tensor(Z_star))))})
iso = pd.DataFrame(rows).set_index("isometry seed")
noise_rows = []
for sigma in cfg.noise:
    Zn = Z_star + rng.normal(size=Z_star.shape) * sigma
    noise_rows.append({"noise σ": sigma, "r2_Proc": r2_procrustes(Zn, Z_star), "r2_sim": r2_sim(-edm(Zn), -edm(Z_star)),
                       "Delta_W": delta_w(W, euclidean_similarities(torch.as_tensor(Zn)))})
noise = pd.DataFrame(noise_rows).set_index("noise σ")
scale = pd.Series({f"scale {a}": r2_procrustes(a * Z_star, Z_star) for a in (0.5, 0.9, 1.1, 2.0)}, name="r2_Proc")
display(iso, noise, scale.to_frame())

# %%
fig, ax = plt.subplots(1, 2, figsize=(10, 3.8))
ax[0].plot(noise.index, noise["r2_Proc"], "o-", label="r²_Proc")
ax[0].plot(noise.index, noise["r2_sim"], "s-", label="r²_sim")
ax[0].set(xlabel="noise σ added to Z*", ylabel="r²", title="r² metrics fall with noise (1 at σ = 0)")
ax[0].legend()
ax[1].semilogy(noise.index, np.maximum(noise["Delta_W"], 1e-17), "o-", color="C3")
ax[1].set(xlabel="noise σ", ylabel="Δ_W", title="Entropic gap of the perturbed optimum")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-04-metrics-noise")

# %%
ledger.claim("metrics-isometry-invariant", "our metric code: r2_Proc and r2_sim equal 1 and Delta_W is unchanged "
             "under a random isometry (the property Defs 3.15-3.16 state)", "r2 = 1",
             {"r2_Proc": bool((1 - iso["r2_Proc"]).abs().max() < 1e-10),
              "r2_sim": bool((1 - iso["r2_sim (s = −‖·‖²)"]).abs().max() < 1e-10),
              "Delta_W": bool(iso["|ΔΔ_W|"].max() < 1e-10)}, holds(), kind="check")
ledger.claim("metrics-not-scale-invariant", "our metric code: r2_Proc penalises a rescaled optimum (Omega orthogonal, "
             "no scale): r2_Proc at scale 2 (exactly 0 by the definition)", "< 1", float(scale["scale 2.0"]),
             at_most(0.5), kind="check")

# %% [markdown]
# ## 2. App. E: which label geometry does X-CLR learn? (Fig. 6 analogue)
#
# Labels: the CIFAR-100 classes ([`data/weighted-cl/cifar100_classes.txt`](../../data/weighted-cl/cifar100_classes.txt))
# as (a) the one-hot **simplex**, (b) **MiniLM** embeddings of "a photo of {name}" (the prompt as App. E prints it; all-MiniLM-L6-v2, mean pooling,
# via `companion.encoders`), (c) MiniLM embeddings of the **bare name** (a third geometry we add because CLIP is not
# available offline). Free embeddings, `per_class` samples per class, $q$ = 128, X-CLR weights
# $w = e^{\cos(y_i, y_j)/\tau'}$ and $s = \cos/\tau$ with τ = 0.05 ≤ τ′ = 0.1. Thm. 3.12 gives the target
# $z^*_i = (\sqrt{\tau/\tau'}\,\hat y_i,\ \sqrt{1 - \tau/\tau'})$; we train on each geometry and compute
# $r^2_\mathrm{Proc}$ of every trained embedding against every target.

# %%
classes = [ln.strip() for ln in (REPO_ROOT / "data" / "weighted-cl" / "cifar100_classes.txt").read_text().splitlines()
           if ln.strip() and not ln.startswith("#")]
all_class_names, classes = classes, classes[: cfg.n_classes]
encoder = load_encoder(cfg.model, pooling="mean")
pretty = [c.replace("_", " ") for c in classes]
geometries = {"Simplex": np.eye(len(classes)),
              "MiniLM (a photo of …)": encoder.encode([f"a photo of {c}" for c in pretty]).double().numpy(),
              "MiniLM (bare name)": encoder.encode(pretty).double().numpy()}
y_cls = np.repeat(np.arange(len(classes)), cfg.per_class)
ratio = cfg.tau / cfg.tau_prime
targets = {name: wx.xclr_target_embedding(G[y_cls], ratio) for name, G in geometries.items()}
trained, fits = {}, {}
for name, G in geometries.items():
    fit = fit_free_embeddings(xclr_weights(G[y_cls], cfg.tau_prime), dim=cfg.xclr_dim, tau=cfg.tau,
                              seed=cfg.seeds[0], steps=cfg.lbfgs_steps)
    trained[name], fits[name] = fit.Z, fit
fig6 = pd.DataFrame({t: {g: r2_procrustes(trained[g], targets[t]) for g in geometries} for t in geometries})
fig6.index.name, fig6.columns.name = "trained on", "target"
pd.concat([fig6.round(4), pd.Series({g: fits[g].delta_w for g in geometries}, name="Delta_W")], axis=1)

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4), gridspec_kw=dict(width_ratios=[1, 1.2]))
sns.heatmap(fig6, annot=True, fmt=".3f", cmap="magma", vmin=0, vmax=1, ax=axes[0], cbar_kws={"label": "r²_Proc"})
axes[0].set(title="Fig. 6 analogue: r²_Proc(trained, target)")
Gm = geometries["MiniLM (a photo of …)"]
cos_y = Gm @ Gm.T
iu = np.triu_indices(len(classes), 1)
Zm = trained["MiniLM (a photo of …)"]
idx0 = np.arange(len(classes)) * cfg.per_class
cos_z = (Zm[idx0] @ Zm[idx0].T)[iu]
axes[1].scatter(cos_y[iu], cos_z, s=3, alpha=0.4)
xx = np.linspace(cos_y[iu].min(), 1, 10)
axes[1].plot(xx, ratio * xx + 1 - ratio, "k--", label="Thm 3.12: (τ/τ′) cos y + 1 − τ/τ′")
axes[1].set(xlabel="cos between MiniLM class embeddings", ylabel="cos between learned embeddings",
            title="X-CLR realises the MiniLM label geometry")
axes[1].legend()
fig.tight_layout()
_ = ledger.savefig(fig, "fig-04-fig6-xclr-geometries")

# %%
diag = np.diag(fig6.to_numpy())
off = fig6.to_numpy()[~np.eye(len(fig6), dtype=bool)]
ledger.claim("appE-xclr-learns-target", "X-CLR realises the label geometry it is trained on: min diagonal r2_Proc "
             "of the Fig. 6 matrix (free embeddings, so Thm 3.12's optimum itself)", "target geometry recovered",
             float(diag.min()), at_least(0.99, partly=0.9), kind="paper", source="Thm 3.12",
             note="0.99 leaves 1 % for the optimiser; the off-diagonal entries (other targets) are far lower, so "
                  "the criterion can fail.")
ledger.claim("appE-geometries-distinguishable", "our label geometries are mutually distinct at X-CLR's optimum: each "
             "free embedding matches its own target better than any other target (diagonal dominance of the Fig. 6 "
             "analogue)", "diagonal dominant",
             {g: bool(fig6.loc[g, g] > fig6.loc[g].drop(g).max()) for g in geometries}, holds(), kind="check",
             note="A property of the label geometries we built (their Thm 3.12 targets differ), checked at the "
                  "free-embedding optimum; the paper's Fig. 6 is about trained ResNet-50 encoders "
                  "(appE-cifar-training).")
ledger.claim("appE-clip-geometry", "CLIP text-encoder label geometry (Fig 6, Table 1)", "row/column of Fig 6",
             "not run", not_testable("no CLIP model weights are on this machine (none ships with an installed "
                                     "package, and no model hub can be reached)"),
             kind="paper", source="App. E")
ledger.claim("appE-cifar-training", "X-CLR ResNet-50 encoders trained on CIFAR-100 with each label geometry recover "
             "their target (Fig. 6) with the Table 1 statistics", "Fig. 6 / Table 1", "not run",
             not_testable("CIFAR-100 images are not on this machine (not in the data mirror, and nothing can be "
                          "downloaded); the free embeddings above test the geometry claim itself"),
             kind="paper", source="Fig. 6 caption")

# %% [markdown]
# **Table 1 (App. E), the paper's own numbers.** The table lists, for the three label geometries, the held-out
# $r^2_\mathrm{Proc}$, $\Delta_W$ and the top-1/top-3 accuracy of a ridge probe on CIFAR-100
# ([`data/weighted-cl/table1.csv`](../../data/weighted-cl/table1.csv), transcribed from the paper). The text reads it as
# "better metrics, better generalisation" and singles out the MiniLM geometry. We cannot train these models here; the
# check below only asks whether the table itself bears that reading: does the geometry with the best metrics also
# have the best accuracies?

# %%
table1 = paper_table("weighted-cl", "table1", parse=True).set_index("Target")
display(table1)
best_r2, best_dw = table1["r2_Proc_test"].idxmax(), table1["Delta_W_test (%)"].idxmin()
best_top1, best_top3 = table1["Top-1 (%)"].idxmax(), table1["Top-3 (%)"].idxmax()
ledger.claim("appE-table1-metrics-vs-accuracy", "Table 1 read as the text reads it: one geometry has the best "
             "r2_Proc and the best Delta_W, and the same geometry has the best top-1 and top-3 accuracy",
             "MiniLM: best metrics, generalises very well",
             {f"best r2_Proc ({best_r2}) = best Delta_W ({best_dw})": bool(best_r2 == best_dw),
              f"best r2_Proc ({best_r2}) = best top-1 ({best_top1})": bool(best_r2 == best_top1),
              f"best r2_Proc ({best_r2}) = best top-3 ({best_top3})": bool(best_r2 == best_top3)},
             holds(), kind="check",
             note="A consistency check of the paper's printed numbers, not a reproduction: "
                  + "; ".join(f"{g}: r2_Proc {r['r2_Proc_test']:.2f}, Delta_W {r['Delta_W_test (%)']:.3f} %, "
                              f"top-1 {r['Top-1 (%)']:.2f}, top-3 {r['Top-3 (%)']:.2f}" for g, r in table1.iterrows()))
ledger.claim("appE-table1-values", "Table 1's statistics for X-CLR ResNet-50 models on CIFAR-100", "Table 1",
             "not run", not_testable("CIFAR-100 images and CLIP model weights are not on this machine (not in the "
                                     "data mirror, and nothing can be downloaded)"),
             kind="paper", source="App. E, Table 1")


# %% [markdown]
# **Our MiniLM label geometry beside Table 1.** The paper's MiniLM labels are all-MiniLM-L6-v2 embeddings of "a photo
# of <class>" — the encoder and prompt used above — so this geometry is the paper's own. Its cosines are far from the
# simplex's 0, which makes the target rows $p_W$ flatter: in a balanced batch of Table 2's 512 images the bound
# $H(p_W)$ is larger for MiniLM, and $\Delta_W = L/H - 1$ divides the same excess loss by a larger number. The last
# column converts Table 1's printed $\Delta_W$ back to an excess in nats with our $H(p_W)$ (τ′ = 0.1, App. G's τ).

# %%
all_classes = [c.replace("_", " ") for c in all_class_names]  # Table 1's 100 classes, whatever the profile's subset
G_minilm_all = encoder.encode([f"a photo of {c}" for c in all_classes]).double().numpy()
batch_y = np.repeat(np.arange(len(all_classes)), 512 // len(all_classes) + 1)[:512]
label_geometry = {}
for name, G in [("Simplex", np.eye(len(all_classes))), ("MiniLM", G_minilm_all)]:
    Gn = G / np.linalg.norm(G, axis=1, keepdims=True)
    cos_off = (Gn @ Gn.T)[~np.eye(len(G), dtype=bool)]
    H = float(entropic_bound(xclr_weights(G[batch_y], 0.1)))
    label_geometry[name] = {"mean inter-class cos": cos_off.mean(), "min": cos_off.min(), "max": cos_off.max(),
                            "H(p_W), batch of 512 (nats)": H}
label_geometry = pd.DataFrame(label_geometry).T
label_geometry["Table 1 Delta_W x H (nats)"] = table1.loc[label_geometry.index, "Delta_W_test (%)"] / 100 * \
    label_geometry["H(p_W), batch of 512 (nats)"]
label_geometry.round(4)

# %%
lg = label_geometry
dw_ratio = float(table1.loc["Simplex", "Delta_W_test (%)"] / table1.loc["MiniLM", "Delta_W_test (%)"])
excess_ratio = float(lg.loc["Simplex", "Table 1 Delta_W x H (nats)"] / lg.loc["MiniLM", "Table 1 Delta_W x H (nats)"])
ledger.claim("appE-deltaw-follows-the-bound", "Table 1's Delta_W gap between Simplex and MiniLM is mostly the bound "
             "it is divided by: the excess losses it implies (Delta_W x H(p_W), nats) are less than half as far "
             "apart (in log ratio) as the printed Delta_W", "Delta_W ratio Simplex / MiniLM from Table 1",
             {"|log excess-loss ratio| < |log Delta_W ratio| / 2": bool(abs(math.log(excess_ratio))
                                                                         < abs(math.log(dw_ratio)) / 2)},
             holds(), kind="beyond",
             note=f"Delta_W ratio {dw_ratio:.2f}, excess-loss ratio {excess_ratio:.2f}; H(p_W) from our MiniLM "
                  "geometry of the 100 classes (the paper's encoder and prompt) for a balanced batch of 512 at "
                  "tau' = 0.1 (App. E does not print tau').")

# %% [markdown]
# **Table 1's protocol on data we have.** CIFAR-100 and CLIP are not available here, so the CLIP row cannot be
# computed at all. For the other two geometries we run the whole protocol on scikit-learn's digits: an MLP encoder
# trained with X-CLR ($q$ = 32 > the labels' rank, τ = τ′ = 0.1 as App. G's τ) on one-hot labels (**Simplex**) and on
# MiniLM embeddings of "a photo of the digit {zero…nine}" (**MiniLM**), seeds `t1_seeds`; held-out $r^2_\mathrm{Proc}$
# against Thm. 3.12's target, held-out $\Delta_W$ (%) and top-1/top-3 of a cross-validated ridge probe fitted on the
# training representations.

# %%
d_images, d_labels = load_digits()
d_images, d_labels = d_images[: cfg.t1_images], d_labels[: cfg.t1_images]
d_order = np.random.default_rng(0).permutation(len(d_images))
d_test, d_train = d_order[: len(d_images) // 3], d_order[len(d_images) // 3:]
X_dig = torch.as_tensor(d_images.reshape(len(d_images), -1) / 16.0, dtype=torch.float32)
words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
digit_geometries = {"Simplex": np.eye(10),
                    "MiniLM": encoder.encode([f"a photo of the digit {w}" for w in words]).double().numpy()}
t1, t1_runs = wx.xclr_digit_table(X_dig, d_labels, d_train, d_test, digit_geometries, q=cfg.t1_q, tau=0.1,
                                  tau_prime=0.1, seeds=cfg.t1_seeds, steps=cfg.t1_steps, batch=cfg.batch, lr=cfg.lr,
                                  weight_decay=cfg.weight_decay, hidden=cfg.hidden,
                                  every=wx.monitor_every(cfg.t1_steps), profile=cfg.profile)
t1_mean = t1.groupby("Target").agg(["mean", "std"]).drop(columns="seed")
beside = pd.concat({"paper (CIFAR-100, ResNet-50)": table1.drop(columns="source"),
                    "ours (digits, MLP), mean of seeds": t1.groupby("Target").mean().drop(columns="seed")}, axis=1)
beside.round(3)

# %% [markdown]
# The held-out curves the plateau checks read (mean over seeds, recorded every tenth of each run):

# %%
T1_COLS = ["r2_Proc_test", "Delta_W_test (%)", "Top-1 (%)", "Top-3 (%)"]
fig, axes = panel_grid(4, panel_height=3.2, per_row=2)
for ax, col in zip(axes, T1_COLS):
    for g in digit_geometries:
        st, v = wx.run_curve([t1_runs[(g, s)] for s in cfg.t1_seeds], col)
        ax.plot(st, v, "o-", ms=3, label=g)
    ax.set(xlabel="training step", title=col)
axes[0].legend()
fig.suptitle("Table 1 analogue on digits: held-out metrics during training (mean of seeds)")
fig.tight_layout()
_ = ledger.savefig(fig, "fig-04-table1-dev-curves")

# %%
t1s = {g: t1[t1["Target"] == g].sort_values("seed") for g in digit_geometries}
T1_REGIME = (f"8x8 digits, an MLP for {cfg.t1_steps} steps and a 10-class label geometry, {len(cfg.t1_seeds)} seeds "
             "(paper: CIFAR-100, ResNet-50, 100 classes)")
T1_SRC = "App. E, Table 1"
t1_groups = {g: [t1_runs[(g, s)] for s in cfg.t1_seeds] for g in digit_geometries}
t1_trained = wx.loss_moved([r for runs in t1_groups.values() for r in runs])


def t1_validity(col, cmp, paper_effect):
    """The checks of one Table 1 comparison: trained, plateau of the compared held-out metric and, for an
    accuracy, the room left below 100 % against the paper's difference."""
    checks = [t1_trained, wx.dev_plateau_groups(t1_groups, col, gap=abs(cmp.estimate))]
    if col.startswith("Top"):
        room = 100 - max(float(t1s[g][col].mean()) for g in digit_geometries)
        checks.append(stats.Validity("ceiling", room >= abs(paper_effect),
                                     f"{room:.3g} points below 100 % for the better geometry (mean of seeds), against "
                                     f"the paper's difference of {abs(paper_effect):.3g}"))
    return checks


for col, pid in [("r2_Proc_test", "r2proc"), ("Delta_W_test (%)", "deltaw"), ("Top-1 (%)", "top1"),
                 ("Top-3 (%)", "top3")]:
    effect = float(table1.loc["MiniLM", col] - table1.loc["Simplex", col])
    cmp = stats.paired(t1s["MiniLM"][col], t1s["Simplex"][col], labels=("MiniLM", "Simplex"))
    ledger.claim(f"appE-table1-{pid}-minilm-vs-simplex", f"Table 1, {col}: MiniLM minus Simplex (paired by seed)",
                 {"MiniLM": float(table1.loc["MiniLM", col]), "Simplex": float(table1.loc["Simplex", col])},
                 cmp, stats.direction(paper_effect=effect), kind="paper", source=T1_SRC, regime=T1_REGIME,
                 validity=t1_validity(col, cmp, effect))
top1 = stats.paired(t1s["MiniLM"]["Top-1 (%)"], t1s["Simplex"]["Top-1 (%)"], labels=("MiniLM", "Simplex"))
ledger.claim("appE-metrics-predict-generalisation", "App. E's reading of Table 1: the geometry with the better "
             "metrics (MiniLM) generalises better: top-1 of MiniLM minus Simplex in our analogue, paired by seed",
             "strong metrics translate into better generalization", top1, stats.direction(sign=1), kind="paper",
             source="App. E", regime=T1_REGIME,
             validity=t1_validity("Top-1 (%)", top1,
                                  float(table1.loc["MiniLM", "Top-1 (%)"] - table1.loc["Simplex", "Top-1 (%)"])),
             note="The text gives a direction, no number; the paper's own Table 1 has Simplex ahead on top-1 and top-3 "
                  "(check appE-table1-metrics-vs-accuracy).")

# %% [markdown]
# ## 3. App. F: kernel PCA is the optimum (Thm. F.1), and PCA vs w-InfoNCE on digits (Fig. 7 analogue)
#
# With $d_{ij} = k_{ii} + k_{jj} - 2k_{ij}$ from a PSD kernel, $w = e^{-d}$ and $s = -\|z_i - z_j\|^2$, the bound is
# attained at the kernel-PCA coordinates when $q$ reaches the kernel's rank. (a) A polynomial kernel on random 2-D
# points (rank 5). (b) The linear kernel on digits, $d_{ij} = \gamma\|x_i - x_j\|^2$: the optimum is PCA (scaled by
# $\sqrt\gamma$) at $q$ = rank; at $q = 2$ the optimum differs from PCA — the heavy-tailed weights keep neighbours
# close (SNE-like), which separates the digit classes better.

# %%
Xp = rng.normal(size=(40, 2)) * 0.5
K = 0.3 * (Xp @ Xp.T + 1) ** 2
dK = np.diag(K)
D_poly = dK[:, None] + dK[None, :] - 2 * K
kpca = KernelPCA(n_components=5, kernel="precomputed").fit_transform(K)
fit_poly = fit_free_embeddings(distance_weights(D_poly), dim=5, similarity="euclidean", seed=cfg.seeds[0],
                               steps=cfg.lbfgs_steps)

# %% [markdown]
# (b) The linear kernel on `n_digits` digits, $\gamma = 2/\mathrm{median}$ squared distance: the optimum at $q$ = rank,
# at $q = 2$, and at the $q$ where PCA explains 90 % of the variance.

# %%
images, labels = load_digits()
pick = np.random.default_rng(cfg.seeds[0]).permutation(len(images))[: cfg.n_digits]
Xd, yd = images[pick].reshape(len(pick), -1) / 16.0, labels[pick]
D_lin = edm(Xd)
gamma = 2.0 / np.median(D_lin[np.triu_indices(len(Xd), 1)])
rank = int(np.linalg.matrix_rank(Xd - Xd.mean(0), tol=1e-8))
pca_full = PCA(n_components=rank).fit_transform(Xd) * math.sqrt(gamma)
fit_full = fit_free_embeddings(distance_weights(gamma * D_lin), dim=rank, similarity="euclidean",
                               seed=cfg.seeds[0], steps=cfg.lbfgs_steps)
fit_2d = fit_free_embeddings(distance_weights(gamma * D_lin), dim=2, similarity="euclidean", seed=cfg.seeds[0],
                             steps=cfg.lbfgs_steps)
pca_2d = pca_full[:, :2]
explained = np.cumsum(PCA().fit(Xd).explained_variance_ratio_)
q90 = int(np.searchsorted(explained, 0.9) + 1)
fit_q90 = fit_free_embeddings(distance_weights(gamma * D_lin), dim=q90, similarity="euclidean", seed=cfg.seeds[0],
                              steps=cfg.lbfgs_steps)
r2sim_q90 = r2_sim(-edm(fit_q90.Z), -edm(pca_full[:, :q90]))

# %% [markdown]
# Both settings in one table: the entropic gap, the distance to (kernel) PCA, and how well a 5-NN classifier
# separates the digits in each 2-D map.

# %%
knn = lambda Z: cross_val_score(KNeighborsClassifier(5), Z, yd, cv=5).mean()  # noqa: E731
appF = pd.DataFrame({
    "Delta_W": [fit_poly.delta_w, fit_full.delta_w, fit_2d.delta_w,
                delta_w(distance_weights(gamma * D_lin), euclidean_similarities(torch.as_tensor(pca_2d)))],
    "r2_Proc vs (kernel) PCA": [r2_procrustes(fit_poly.Z, kpca), r2_procrustes(fit_full.Z, pca_full),
                                r2_procrustes(fit_2d.Z, pca_2d), 1.0],
    "5-NN accuracy (5-fold)": [np.nan, np.nan, knn(fit_2d.Z), knn(pca_2d)]},
    index=["poly kernel, q = 5 (= rank)", f"digits linear kernel, q = {rank} (= rank)",
           "digits, w-InfoNCE q = 2", "digits, PCA q = 2"])
appF

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4.4))
for ax, (name, Z) in zip(axes, [("PCA (2 components)", pca_2d), ("w-InfoNCE optimum, q = 2", fit_2d.Z)]):
    R = Z - Z.mean(0)
    sc = ax.scatter(R[:, 0], R[:, 1], c=yd, cmap="tab10", s=10)
    ax.set(title=name, xlabel="z₁", ylabel="z₂")
fig.colorbar(sc, ax=axes, label="digit")
fig.suptitle(f"Fig. 7 analogue ({len(yd)} digits, w = exp(−γ‖x_i − x_j‖²)): at q = rank the optimum IS PCA "
             f"\n(r²_Proc = {appF.iloc[1, 1]:.4f}); at q = 2 it is not")
_ = ledger.savefig(fig, "fig-04-fig7-pca-vs-winfonce")

# %%
ledger.claim("thmF1-kernel-pca-attained", "w = exp(-d) from a PSD kernel with Euclidean s attains the bound when "
             "q reaches the centred kernel's rank (polynomial kernel, q = rank = 5): Delta_W", "bound attained",
             float(fit_poly.delta_w), at_most(1e-8), kind="paper", source="Thm F.1",
             note="1e-8: the float64 L-BFGS floor; where a bound is not attainable the same optimiser stalls "
                  "orders of magnitude above it (notebook 03).")
ledger.claim("thmF1-kernel-pca-optimum", "...at the kernel principal components, up to isometry: r2_Proc against "
             "kernel PCA", "kernel PCA up to isometry", float(appF.iloc[0, 1]), at_least(0.999), kind="paper",
             source="Thm F.1")
ledger.claim("thmF1-pca-digits", "Linear kernel on digits (d = gamma * squared distance), q = rank of the data: the "
             "optimum is PCA: r2_Proc against PCA", "PCA up to isometry", float(appF.iloc[1, 1]),
             at_least(0.999, partly=0.99), kind="paper", source="Thm F.1")
P_F7, P_F7_SRC = wx.paper_number("Fig. 7: coefficient of similarity")
F7_TOL = 0.05
F7_TOL_REASON = ("the paper prints one two-digit value from one run, and its approximate r2 values for one "
                 "embedding differ by 0.05 (§4.1)")
F7_REGIME = (f"free-embedding optimum on {cfg.n_digits} 8x8 digits, gamma = 2 / median squared distance (paper: "
             "ConvNet on MNIST, sigma = 10^3)")
ledger.claim("fig7-r2sim-at-90pct", "Where PCA explains 90 % of the variance of the digits the w-InfoNCE "
             "optimum is nearly isometric to PCA with the same q: r2_sim (s = -squared distance)", P_F7, r2sim_q90,
             within(P_F7, F7_TOL, partly_tol=3 * F7_TOL), kind="paper", source=P_F7_SRC, regime=F7_REGIME,
             note=f"PCA explains 90 % of these digits' variance at q = {q90}; tolerance: {F7_TOL_REASON}.")
ledger.claim("fig7-low-dim-differs", "At q = 2 the w-InfoNCE optimum differs from PCA and separates classes better "
             "(5-NN accuracy higher)", True,
             {"r2_Proc(q=2 optimum, PCA) < 0.9": bool(appF.iloc[2, 1] < 0.9),
              "kNN(w-InfoNCE) > kNN(PCA)": bool(appF.iloc[2, 2] > appF.iloc[3, 2])}, holds(), kind="beyond",
             note="App. F says the optimum equals PCA only when the data's rank is below q; it does not compare the "
                  "two at q = 2.")

# %% [markdown]
# **Fig. 7's sweep.** The paper's $q \in \{8, 16, 32, 48, 64\}$ on random subsets of `n_digits` digits (one per
# seed): $r^2_\mathrm{sim}$ of the free-embedding optimum against PCA with the same $q$, beside the paper's 0.98 at
# $q = 48$. Digits have 64 pixels, so $q = 64$ exceeds the data's rank (Thm. F.1's exact case).

# %%
sweeps = []
for seed in cfg.fig7_seeds:
    sub = np.random.default_rng(100 + seed).permutation(len(images))[: cfg.n_digits]
    Xs = images[sub].reshape(len(sub), -1) / 16.0
    g = 2.0 / np.median(edm(Xs)[np.triu_indices(len(Xs), 1)])
    sweeps.append(wx.pca_sweep(Xs, cfg.fig7_qs, g, seed, cfg.lbfgs_steps).assign(seed=seed))
fig7 = pd.concat(sweeps).reset_index()
fig7_mean = fig7.groupby("q").mean(numeric_only=True).drop(columns="seed")
fig, ax = plt.subplots(figsize=(6.4, 4))
for seed, g_ in fig7.groupby("seed"):
    ax.plot(g_["q"], g_["r2_sim vs PCA"], "o-", alpha=0.6, label=f"ours, subset {seed}")
ax.plot([48], [P_F7], "k*", ms=14, label=f"paper: {P_F7:g} at q = 48 (MNIST, ConvNet)")
ax.plot(fig7_mean.index, fig7_mean["PCA explained variance"], "k:", label="variance PCA explains (mean)")
ax.set(xlabel="latent dimension q", ylabel="r²_sim (w-InfoNCE vs PCA)", ylim=(min(0.6, fig7["r2_sim vs PCA"].min()), 1.02),
       title="Fig. 7 analogue: free-embedding optimum vs PCA on digits")
ax.legend(fontsize=8)
_ = ledger.savefig(fig, "fig-04-fig7-q-sweep")
fig7_mean

# %%
at48 = fig7[fig7["q"] == 48].sort_values("seed")["r2_sim vs PCA"]
ledger.claim("fig7-r2sim-q48", "r2_sim between the w-InfoNCE representation and PCA at q = 48, over digit subsets",
             P_F7, stats.sample(at48), stats.level(P_F7, tol=F7_TOL, tol_reason=F7_TOL_REASON),
             kind="check", source=P_F7_SRC,
             regime=F7_REGIME + f", {len(cfg.fig7_seeds)} subsets; 64 pixels, so q = 48 is near the data's rank",
             note="per q (mean of subsets): " + ", ".join(f"{q}: {v:.3f}" for q, v in fig7_mean["r2_sim vs PCA"].items()))

# %% [markdown]
# ## 4. App. F.2: SNE with one variance and the distances it enforces
#
# $w_{ij} = \exp(-\|x_i - x_j\|^2/(2\sigma^2))$, $s = -\|z_i - z_j\|^2$ on free embeddings. App. F.2 says the optimum has
# $\|z_i - z_j\| \approx \|x_i - x_j\|/\sigma$; Cor. 3.4 gives $\|z_i - z_j\|^2 = \|x_i - x_j\|^2/(2\sigma^2)$, a slope of
# $1/\sqrt2$. We fit the slope on data of rank 3 in $q = 3$ (exact case) and on the digits in $q = 2$ and $q = 16$.

# %%
X_low = np.random.default_rng(cfg.seeds[0]).normal(size=(40, 3)) @ np.random.default_rng(1).normal(size=(3, 10))
sigma_low = float(np.sqrt(np.median(edm(X_low)[np.triu_indices(40, 1)]) / 2))
sigma_dig = float(np.sqrt(np.median(D_lin[np.triu_indices(len(Xd), 1)]) / 2))
sne = pd.DataFrame({"rank-3 data, q = 3": wx.sne_distance_slope(X_low, sigma_low, 3, cfg.seeds[0], cfg.lbfgs_steps),
                    "digits, q = 2": wx.sne_distance_slope(Xd, sigma_dig, 2, cfg.seeds[0], cfg.lbfgs_steps),
                    "digits, q = 16": wx.sne_distance_slope(Xd, sigma_dig, 16, cfg.seeds[0], cfg.lbfgs_steps)}).T
sne.assign(**{"1/sqrt(2)": 1 / math.sqrt(2)})

# %%
ledger.claim("appF2-sne-distances", "SNE with one variance enforces ||z_i - z_j|| ~ ||x_i - x_j|| / sigma: slope of "
             "||z_i - z_j|| on ||x_i - x_j||/sigma at the optimum (rank-3 data, q = 3, where it is exact)",
             "||z_i - z_j|| approx ||x_i - x_j|| / sigma", float(sne.loc["rank-3 data, q = 3", "slope"]),
             within(1.0, 0.05, partly_tol=0.15), kind="paper", source="App. F.2",
             note=f"r2 of the line {sne.loc['rank-3 data, q = 3', 'r2']:.6f}; the slope is 1/sqrt(2) = 0.7071, as "
                  "Cor. 3.4 gives for w = exp(-||x_i - x_j||^2/(2 sigma^2)); digits: slope "
                  f"{sne.loc['digits, q = 16', 'slope']:.3f} at q = 16, {sne.loc['digits, q = 2', 'slope']:.3f} at "
                  "q = 2 (erratum row weighted-cl-appF2-sigma).")
ledger.claim("appF2-sne-cor34", "our check: the same optimum has slope 1/sqrt(2), the squared-distance relation of "
             "Cor. 3.4 with d = ||x_i - x_j||^2/(2 sigma^2)", 1 / math.sqrt(2),
             float(sne.loc["rank-3 data, q = 3", "slope"]), within(1 / math.sqrt(2), 1e-4), kind="check")

# %% [markdown]
# ## Claims

# %%
ledger.table()

# %%
ledger.save()
show_provenance(ledger)
