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
# # SimACE §3: why an angle instead of a cosine?
#
# **Paper.** Jeong, Han & Chae, *A Simple Angle-based Approach for Contrastive Learning of Unsupervised Sentence
# Representation* (SimACE), Findings of EMNLP 2024 (anthology 2024.findings-emnlp.318), §3: Eq. 2–9 and Fig. 1b.
#
# The paper swaps the cosine in a contrastive loss for an angle with a margin, arguing that the cosine's gradient
# fades for pairs very close or far apart while the angle's stays. This notebook checks that argument by automatic
# differentiation, the loss's closed form, and the force on each pair across temperatures and margins, all
# deterministic. Beyond the paper, a small multi-layer perceptron (MLP) whose outputs start in a narrow cone is
# trained with SimCSE (the cosine loss) and with SimACE at equal budgets, over several seeds. Settings and judging
# rules follow; the claims table at the end holds the computed verdicts.

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

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import torch

from companion.losses.simace import simace_loss
from companion import stats
from companion.papers.simace.claims import seed_paired
from companion.papers.simace.synthetic import (closed_form_orthogonal, cone_run, gradient_norms, make_data,
                                               plot_pair_forces, pull_grid, push_grid, similarity_derivative)
from companion.papers.simace.settings import ANGLE_SIMILARITY
from companion.results import Ledger, at_most, holds, show_provenance
from companion.similarities import cos_to_angle
from companion.display import panel_grid, reader_display

reader_display()  # tables whole, numbers to three significant digits

# %% [markdown]
# ## What runs, at which scale, and how the claims are judged
#
# **Reproduces** §3: the gradient argument (Eq. 2–6), the angle similarity (Eq. 7, $\theta = \pi/2 - \arccos\cos$),
# the SimACE loss (Eq. 8–9, margin in degrees) and Fig. 1b (derivative curves), plus a synthetic experiment without
# any pretrained model.
#
# **What we check.** (1) Autograd confirms $\|\partial\cos/\partial z\| = \sin\phi/\|z\|$ and
# $\|\partial\theta/\partial z\| = 1/\|z\|$: the angle's gradient does not decay at small or large angles.
# (2) The closed form $L = \log(1 + (N-1)e^{-\pi/(2\tau)})$. (3) The per-pair forces *inside the loss* (softmax
# weight × chain-rule factor) across $\tau \in \{0.05, 0.06, 0.07\}$ and $m \in \{-10°, 0°, 10°\}$. (4) A small
# MLP with dropout whose outputs start in a narrow cone, trained with SimCSE vs SimACE at equal budgets.
#
# **Verdicts** are computed in the claims table at the end, never typed. The gradient identities of Eq. 6 and the
# closed form of Eq. 9 are our own checks (passed or failed to float64 precision). The paper's §3.2 statements are
# evaluated *inside the loss* (deterministic, no training) over every cone × τ × m case: all cases holding is
# *reproduced*, some *partly*, none *not reproduced*. The synthetic narrow-cone experiment is beyond the paper: each
# claim is a seed-paired difference SimACE − SimCSE with its 95 % CI, judged on its direction, and an end-of-training
# claim carries a measured check that the compared gap is stable over the last third of training
# (`companion.stats.plateau`).
#
# Settings of each profile (`smoke` exercises the code in seconds, `cpu` is the reproduction):

# %%
torch.set_num_threads(1)  # tiny models on a shared 2-core machine: one thread avoids oversubscription
cfg = ANGLE_SIMILARITY(profile, gpu_grid=gpu_grid, seeds=seeds, steps=steps)
ledger = Ledger("simace", "01-angle-similarity", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)
sns.set_theme(style="whitegrid", context="notebook")
cfg

# %% [markdown]
# ## The method from scratch, on a tiny example
#
# Before the package computes anything, the two objects of §3 written out with numpy on four sentence pairs and
# checked against `companion`.
#
# **The angle similarity** (Eq. 7). SimACE replaces the cosine of two embeddings by an angle: with
# $\phi = \arccos\cos(z_i, z_j)$ the angle between them, $\theta_{ij} = \pi/2 - \phi$. It runs from $\pi/2$ (same
# direction) through 0 (orthogonal) to $-\pi/2$ (opposite), so, like a cosine, larger means closer, but it moves
# by the same amount for every degree the vectors rotate.

# %%
rng = np.random.default_rng(0)
z1 = rng.normal(size=(4, 6))                 # first dropout view of four sentences
z2 = z1 + 0.8 * rng.normal(size=(4, 6))      # second view: the same sentences, perturbed
cos = (z1 / np.linalg.norm(z1, axis=1, keepdims=True)) @ (z2 / np.linalg.norm(z2, axis=1, keepdims=True)).T
theta = np.pi / 2 - np.arccos(cos)           # Eq. 7, every (i, j') pair
np.testing.assert_allclose(theta, cos_to_angle(torch.tensor(cos)).numpy(), rtol=0, atol=1e-12)
print("the angle similarity written out equals companion.similarities.cos_to_angle")

# %% [markdown]
# **The SimACE loss** (Eq. 9). For anchor $i$ the positive is the other view $i'$ of the same sentence and the
# negatives are the other sentences' second views $j'$. The loss is InfoNCE on angles: a cross-entropy that must
# pick $i'$ among all $N$ candidates, the logits being angles divided by τ, with an angular margin $m$ taken off
# the positive's angle so that the positive has to win by at least $m$ (Table 7 states $m$ in degrees). Averaged
# over the $N$ anchors:

# %%
def simace_by_hand(theta, tau, margin_deg):
    """Eq. 9: -log e^{(θ_ii' - m)/τ} / (e^{(θ_ii' - m)/τ} + Σ_{j≠i} e^{θ_ij'/τ}), mean over anchors."""
    m = np.radians(margin_deg)
    losses = []
    for i in range(len(theta)):
        positive = np.exp((theta[i, i] - m) / tau)
        negatives = sum(np.exp(theta[i, j] / tau) for j in range(len(theta)) if j != i)
        losses.append(-np.log(positive / (positive + negatives)))
    return np.mean(losses)


ours = simace_loss(torch.tensor(z1), torch.tensor(z2), tau=cfg.tau, margin_deg=cfg.margin_deg)
np.testing.assert_allclose(simace_by_hand(theta, cfg.tau, cfg.margin_deg), float(ours), rtol=1e-12)
print(f"SimACE (τ = {cfg.tau}, m = {cfg.margin_deg:g}°) written out equals companion.losses.simace.simace_loss")

# %% [markdown]
# ## Fig. 1b — derivative curves over 0–180°
#
# Rotating a vector by $d\phi$ changes the cosine by $-\sin\phi\,d\phi$ and the angle similarity $\theta$ by
# $-d\phi$. In terms of the cosine $x$ (Eq. 6), $d\theta/dx = -d\arccos(x)/dx = 1/\sqrt{1-x^2} = 1/\sin\phi$.
# The cosine is *saturated* near 0° and 180°: a positive that is already close, or a negative that is already
# far, receives almost no gradient. The angle is not.

# %%
phi_deg = np.linspace(0.5, 179.5, 359)
phi = torch.tensor(np.radians(phi_deg))
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
axes[0].plot(phi_deg, similarity_derivative(phi, "cosine", "angle").abs(), label=r"cosine: $|d\cos\phi/d\phi| = \sin\phi$")
axes[0].plot(phi_deg, similarity_derivative(phi, "angle", "angle").abs(), label=r"angle: $|d\theta/d\phi| = 1$")
axes[0].set(xlabel="angle φ between the pair (degrees)", ylabel="|derivative| w.r.t. φ",
            title="Fig. 1b (w.r.t. the angle)", xticks=range(0, 181, 30))
axes[1].semilogy(phi_deg, similarity_derivative(phi, "cosine", "cosine"), label=r"cosine: $d\cos/dx = 1$")
axes[1].semilogy(phi_deg, similarity_derivative(phi, "angle", "cosine"), label=r"angle: $d\theta/dx = 1/\sin\phi$")
axes[1].set(xlabel="angle φ between the pair (degrees)", ylabel="derivative w.r.t. x = cos φ (log)",
            title="Eq. 6 (w.r.t. the cosine)", xticks=range(0, 181, 30))
for ax in axes:
    ax.legend()
fig.tight_layout()
_ = ledger.savefig(fig, "fig1b-derivatives")

# %% [markdown]
# ### Autograd: gradient norms with respect to the embedding
#
# For random $z, w \in \mathbb{R}^{384}$ at prescribed angles we compare autograd with the identities
# $\|\partial\cos(z,w)/\partial z\| = \sin\phi/\|z\|$ and $\|\partial\theta(z,w)/\partial z\| = 1/\|z\|$.

# %%
grads = gradient_norms(np.linspace(1, 179, 45), dim=384, scale=3.0, seed=0)
err_cos = float(((grads["|dcos/dz|"] - grads["sin(phi)/|z|"]).abs() / grads["sin(phi)/|z|"]).max())
err_theta = float(((grads["|dtheta/dz|"] - grads["1/|z|"]).abs() / grads["1/|z|"]).max())
ratio = grads["|dtheta/dz|"] / grads["|dcos/dz|"]
err_ratio = float((ratio * np.sin(np.radians(grads["angle"])) - 1).abs().max())
# float64 autograd against closed forms: 1e-9 leaves room for rounding only (a wrong formula errs by O(1))
ledger.claim("grad-norm-cosine", "||d cos/dz|| = sin(phi)/||z|| (autograd, 45 angles in 1..179 deg): max rel. error",
             0.0, err_cos, at_most(1e-9), kind="check", source="Eq. 6")
ledger.claim("grad-norm-angle", "||d theta/dz|| = 1/||z||: angle gradients do not decay with the angle (max rel. err.)",
             0.0, err_theta, at_most(1e-9), kind="check", source="Eq. 6")
ledger.claim("grad-norm-ratio", "ratio ||d theta/dz|| / ||d cos/dz|| = 1/sin(phi) (max |ratio * sin(phi) - 1|)",
             0.0, err_ratio, at_most(1e-9), kind="check", source="Eq. 6")
grads.iloc[::6].round(6)

# %% [markdown]
# ### The closed form
#
# Identical views ($\theta_{ii'} = \pi/2$), orthonormal negatives ($\theta_{ij'} = 0$) and $m = 0$:
# $L = \log(1 + (N-1)e^{-\pi/(2\tau)})$. `simace_loss` clamps the cosine to $1 - 10^{-6}$ (finite gradients at
# identical views), which moves $\theta_{ii'}$ to $\pi/2 - 1.41\cdot10^{-3}$; we therefore compare (a) the loss
# on the exact Eq. 9 logits with the closed form and (b) `simace_loss` with the closed form at the clamped angle,
# $\log(1 + (N-1)e^{-\theta^*/\tau})$, and show the size of the clamp's effect.

# %%
from companion.losses.core import contrastive_nll  # noqa: E402

theta_star = float(cos_to_angle(torch.tensor(1.0, dtype=torch.float64)))
rows = []
for n in (8, 64):
    for tau in (0.05, 0.5, 1.0):
        z = torch.eye(n, dtype=torch.float64)
        exact_logits = torch.eye(n, dtype=torch.float64) * (math.pi / 2) / tau
        rows.append({"N": n, "tau": tau, "closed form": closed_form_orthogonal(n, tau),
                     "Eq. 9 on exact logits": float(contrastive_nll(exact_logits, torch.eye(n, dtype=torch.bool))),
                     "simace_loss (clamped)": float(simace_loss(z, z.clone(), tau=tau, margin_deg=0)),
                     "closed form at clamped angle": math.log1p((n - 1) * math.exp(-theta_star / tau))})
closed = pd.DataFrame(rows)
# absolute errors: at tau = 0.05 the loss is ~1e-12, and -log(softmax) of a logit near 31 carries ~1e-15 of float64
# rounding, so a relative error there measures rounding, not the formula
absdiff = lambda a, b: float((closed[a] - closed[b]).abs().max())  # noqa: E731
rel = lambda a, b: float(((closed[a] - closed[b]).abs() / closed[b]).max())  # noqa: E731
ledger.claim("closed-form", "Eq. 9 with theta_ii'=pi/2, theta_ij'=0, m=0 equals log(1 + (N-1) e^{-pi/(2 tau)}) "
             "(max abs. error over N x tau)", 0.0, absdiff("Eq. 9 on exact logits", "closed form"), at_most(1e-12),
             kind="check", source="Eq. 9")
ledger.claim("closed-form-clamped", "simace_loss (cos clamped at 1-1e-6) equals the closed form at the clamped angle "
             "(max abs. error)", 0.0, absdiff("simace_loss (clamped)", "closed form at clamped angle"), at_most(1e-12),
             kind="check", source="Eq. 9", note=f"clamp effect vs the unclamped closed form: up to {rel('simace_loss (clamped)', 'closed form'):.3g} "
                  "relative, at tau=0.05 where the loss itself is ~1e-12")
closed

# %% [markdown]
# ## Per-pair forces inside the loss
#
# The gradient on a pair is the softmax factor $\lambda_{ij} - \delta_{ij}$ (Eq. 2–5, rows sum to 0) times the
# chain-rule factor of Fig. 1b. One anchor, 63 in-batch negatives. **Pull**: $|\partial\ell/\partial\phi_{ii'}|$ as
# a function of the positive angle, negatives at 30° (a narrow cone, early in training) or 80° (spread out).
#
# **Push**: $|\partial\ell/\partial\phi_{ij'}|$ on one probe negative as a function of its angle, positive at
# 20°, the other 62 negatives at 80°.

# %%
taus, margins = (0.05, 0.06, 0.07), (-10.0, 0.0, 10.0)
pos_grid = np.radians(np.linspace(1, 60, cfg.grid))
# pull: negatives all at 30° (a narrow cone) or all at 80°; push: positive at 20°, 62 other negatives at 80°
pulls = pull_grid(taus, margins, pos_grid, negatives_at=(30.0, 80.0), n_negatives=63)
pushes = push_grid(taus, np.radians(np.linspace(1, 179, int(1.5 * cfg.grid))),
                   specs=(("simcse", 0.0), ("simace", 10.0), ("simace", 0.0)), positive_deg=20.0, others_deg=80.0)
fig = plot_pair_forces(pulls, pushes, tau=0.05)
_ = ledger.savefig(fig, "sec3-pair-forces")

# %% [markdown]
# Two claims of §3, evaluated over the whole $\tau \times m$ grid:
#
# * *stronger pulls of positives at small angles*: SimACE's pull exceeds SimCSE's for positive angles ≤ 10° — in
#   the narrow cone (negatives at 30°) and when negatives are spread out (80°);
# * *weaker pushes of far negatives*: for probe negatives beyond 90°, SimACE's push is smaller than SimCSE's.

# %%
small = pulls[pulls["positive angle"] <= 10].pivot_table(index=["negatives at", "tau", "positive angle"],
                                                          columns=["objective", "margin"], values="pull")
checks = {}
for cone in ("30°", "80°"):
    for tau in taus:
        for m in margins:
            sub = small.loc[(cone, tau)]
            checks[f"neg {cone} tau={tau} m={m:+.0f}"] = bool((sub[("simace", m)] > sub[("simcse", 0.0)]).all())
pull_table = pd.Series(checks, name="SimACE pull > SimCSE pull at positive angles <= 10 deg")
ledger.claim("sec3-stronger-pull", "SimACE pulls a positive at <= 10 deg harder than SimCSE (all tau x margin x "
             "negative-spread cases)", "stronger pull on small-angle positives", checks, holds(), kind="paper", source="§3.2",
             note="deterministic: per-pair forces of Eq. 4 evaluated on a grid, no training and no seeds")
far = pushes[pushes["negative angle"] > 90].pivot_table(index=["tau", "negative angle"],
                                                         columns=["objective", "margin"], values="push")
push_checks = {f"tau={tau} m={m:+.0f}": bool((far.loc[tau][("simace", m)] < far.loc[tau][("simcse", 0.0)]).all())
               for tau in taus for m in (0.0, 10.0)}
ledger.claim("sec3-weaker-far-push", "SimACE pushes negatives beyond 90 deg less than SimCSE (positive at 20 deg, "
             "all tau x margin)", "weaker push on far negatives", push_checks, holds(), kind="paper", source="§3.2",
             note="deterministic: per-pair forces of Eq. 4 evaluated on a grid, no training and no seeds")
pd.concat([pull_table, pd.Series(push_checks, name="SimACE push < SimCSE push beyond 90 deg")], axis=1)

# %% [markdown]
# ## Synthetic experiment: a narrow cone, SimCSE vs SimACE
#
# Inputs: `n_points` samples from 16 Gaussian clusters in 32 dimensions. Encoder: Linear(32, 128) → ReLU →
# Dropout(0.1) → Linear(128, 64) whose bias is a large shared vector (norm `bias`), so that every output starts
# in a narrow cone (the starting angles are printed below) — the anisotropic start of a pretrained language model. The two
# dropout views are the positives (SimCSE's augmentation), the batch the negatives. Same initialisation, data
# order and step budget per seed for both objectives; τ = 0.05 for both, SimACE margin 10°. Logged every
# `log_every` steps on a fixed probe of 256 points: positive and mean negative angle (training-mode views),
# $\ell_{align}$ between the two views and $\ell_{uniform}$ of eval-mode outputs.

# %%
X, _ = make_data(cfg.n_points, cfg.n_clusters, cfg.dim_in, seed=1234)
model_args = dict(dim_in=cfg.dim_in, dim_out=cfg.dim_out, dropout=cfg.dropout, bias=cfg.bias)
runs = [cone_run(X, objective, seed, model_args=model_args, tau=cfg.tau,
                 margin_deg=cfg.margin_deg if objective == "simace" else 0.0, steps=cfg.steps,
                 batch_size=cfg.batch_size, lr=cfg.lr, log_every=cfg.log_every, n_probe=256)
        for seed in cfg.seeds for objective in ("simcse", "simace")]
curves = pd.concat(runs, ignore_index=True)
curves.groupby(["objective", "step"])[["pos_angle", "neg_angle", "align", "uniform"]].mean().iloc[::max(1, cfg.steps // cfg.log_every // 4)].round(3)

# %%
fig, axes = panel_grid(4, panel_height=3.4, per_row=2)
for ax, col, title in zip(axes, ("pos_angle", "neg_angle", "align", "uniform"),
                          ("positive angle (deg)", "mean negative angle (deg)", "ℓ_align (views)", "ℓ_uniform")):
    sns.lineplot(curves, x="step", y=col, hue="objective", errorbar="sd", ax=ax)
    ax.set(title=title, ylabel=col)
fig.suptitle(f"Synthetic narrow cone: SimCSE vs SimACE (τ = 0.05, m = 10°), mean ± sd over {len(cfg.seeds)} seeds",
             y=1.03)
fig.tight_layout()
_ = ledger.savefig(fig, "synthetic-cone-training")

# %%
final = curves[curves.step == curves.step.max()].pivot(index="seed", columns="objective",
                                                         values=["pos_angle", "neg_angle", "align", "uniform"])
early_step = sorted(curves.step.unique())[max(1, len(curves.step.unique()) // 5)]
early = curves[curves.step == early_step].pivot(index="seed", columns="objective", values="pos_angle")
TOY = "synthetic narrow-cone MLP (no language model): a mechanism demonstration, not a setting the paper studies"
# beyond-the-paper claims on the seed-paired difference SimACE - SimCSE of one logged quantity


def gap_plateau(col: str) -> stats.Validity:
    """Is the seed-mean gap SimACE − SimCSE of ``col`` stable over the last third of training (stats.plateau)?"""
    wide = curves.pivot_table(index=["step", "seed"], columns="objective", values=col)
    gap = (wide["simace"] - wide["simcse"]).groupby(level="step").mean()
    return stats.plateau(gap.index.to_numpy(dtype=float), gap.to_numpy(), gap=float(gap.iloc[-1]))


for cid, text, frame, col, sign in [
        ("synthetic-smaller-positive-angle", "Synthetic cone: SimACE ends with a smaller positive angle than SimCSE "
         "(the mechanism of Fig. 4)", final, "pos_angle", -1),
        ("synthetic-early-pull", "Synthetic cone: the positive angle a fifth of the way into training is smaller for "
         "SimACE (early pull, §3.2)", early, None, -1),
        ("synthetic-lower-align", "Synthetic cone: SimACE has the lower l_align", final, "align", -1),
        ("synthetic-higher-uniform", "Synthetic cone: SimACE has the higher (worse) l_uniform", final, "uniform", +1)]:
    ledger.claim(cid, text, kind="beyond", ours=seed_paired(frame, "simace", "simcse", col),
                 criterion=stats.direction(sign=sign), validity=gap_plateau(col) if col else None,
                 regime="a synthetic narrow-cone MLP, no language model",
                 note=TOY + (f"; step {early_step}" if col is None else ""))
final.round(3)

# %% [markdown]
# ## Claims

# %%
ledger.table()

# %% [markdown]
# **Reading the table.** The identities of §3 are checked against autograd and closed forms. Whether the angle "pulls
# harder" or "pushes less" *inside the loss* depends on the softmax weights as well as on the chain-rule factor:
# the rows above say in which of the $\tau \times m$ cases the paper's qualitative statements hold. The synthetic
# experiment is a toy (no language), so its verdicts say only whether the mechanism shows up in the simplest setting.
# The paper describes the angle's derivative as growing exponentially towards 0°: with respect to the cosine it grows
# as 1/sin φ (Eq. 6), and with respect to the angle itself its gradient norm is constant (`grad-norm-angle`).

# %%
ledger.save()
show_provenance(ledger)
