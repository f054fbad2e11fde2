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
# # Mapping the Circumplex of Affect — 01 · Methodology (ECM, heads, losses, free-vector geometry)
#
# Yamauchi & Aizawa, *Mapping the Circumplex of Affect*, ACL 2026 (2026.acl-long.772; arXiv 2601.06575 is an
# earlier, different version), §3 and App. I.
#
# The paper arranges emotions on a circle, its Empirical Circumplex Model (ECM), trains small heads on top of an
# encoder (a transformer block, GPT, or its normalised variant on the unit sphere, nGPT) and compares three
# contrastive losses: SINCERE, SoftCSE and CircularCSE. This notebook builds the heads and losses, then asks which
# geometry each loss prefers when it moves free unit vectors directly, with no model: the SINCERE population bound,
# the regular simplex against the ring, and the margin argument of §5.1. Everything here is small and deterministic.
# Judging rules follow; the table at the end (section 6) holds the computed verdicts.

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
steps = None
seeds = None

# %%
import math
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

from companion.papers.circumplex.heads import GPTHead, NGPTHead
from companion.losses.circumplex import ECM_LABELS, LOSSES, circumplex_target, ecm_angles, ecm_table, population_bound
from companion.papers.circumplex.experiments import optimise_free_vectors
from companion.papers.circumplex.geometry import centroid_angles, geometry_summary, regular_simplex
from companion.papers.circumplex.settings import METHODOLOGY
from companion.results import Ledger, at_most, holds, show_provenance, within
from companion.display import reader_display

reader_display()  # tables whole, numbers to three significant digits

cfg = METHODOLOGY(profile, gpu_grid=gpu_grid, steps=steps, seeds=seeds)
torch.set_num_threads(1)  # tiny tensors: one thread avoids OpenMP contention on a shared 2-core machine
ledger = Ledger("circumplex", "01-methodology", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)
T0 = time.perf_counter()
cfg

# %% [markdown]
# ## What runs, at which scale, and how the claims are judged
#
# **What is checked.** The App. I theorem (no configuration we reach or build has a lower SINCERE loss than the
# regular simplex), whether Adam on free vectors reaches that simplex at τ = 0.05 (beyond the paper), §5.1's
# statements that CircularCSE's optimum is a 2-D circle and that SINCERE separates labels by about 90° where the
# ring's neighbours are 30° apart, §3.4's ordering SINCERE < SoftCSE < CircularCSE in planarity and ring
# correlation, and the arithmetic of §5.1's "π/E = 30°". Free vectors are deterministic for a given initialisation,
# so these claims use exact criteria with stated tolerances; closed forms that follow from our own construction
# (the simplex value of the bound, the CircularCSE target's rank, the optimiser reaching the ring) are checks
# (`kind="check"`: passed or failed), never reproductions. The numbers and verdicts are the computed table at the end
# (section 6).
#
# ## 0 · The method from scratch, on a tiny example
#
# The package computes everything below in a few vectorised lines. First, the same objects written out with plain
# torch loops on six embeddings, checked against the package's functions: a reader who follows these cells knows
# what every later cell computes.
#
# **SINCERE** (Eq. 5–6). Each example is an anchor $i$. Its positives $P_i$ are the other examples with its label,
# its negatives $N_i$ the examples of every other label. For one positive $j$ the loss is a softmax cross-entropy
# that must pick $j$ among $\{j\} \cup N_i$: the anchor's other positives stay out of the denominator $Z_i$, which is
# what separates SINCERE from SupCon. The anchor's loss averages over its positives, the batch loss over its
# anchors (those with a positive; Eq. 5 divides by the batch size, and notebook 04 measures the difference).
#
# **SoftCSE** (Eq. 7–8) multiplies each negative's term in $Z_i$ by
# $w_{ik} = (1 - \cos\Delta\theta_{ik}) / \mathrm{mean}_{k'\in N_i}(1 - \cos\Delta\theta_{ik'})$, so a negative
# whose label sits near the anchor's on the circle is pushed away less.

# %%
def sincere_by_hand(e, labels, tau, soft=False):
    """Eq. 5-6 (and Eq. 7-8 with soft=True) as loops over anchors, positives and negatives."""
    e = e / e.norm(dim=1, keepdim=True)                       # e = Norm(.)
    theta = torch.deg2rad(ecm_angles(labels))                 # each example's ECM angle
    anchor_losses = []
    for i in range(len(e)):
        positives = [j for j in range(len(e)) if j != i and labels[j] == labels[i]]
        negatives = [k for k in range(len(e)) if labels[k] != labels[i]]
        if not positives:                                     # an anchor without a positive adds nothing
            continue
        weight = {k: 1 - torch.cos(theta[i] - theta[k]) for k in negatives} if soft else dict.fromkeys(negatives, 1)
        mean_weight = sum(weight.values()) / len(negatives)
        terms = []
        for j in positives:
            z = torch.exp(e[i] @ e[j] / tau) + sum(weight[k] / mean_weight * torch.exp(e[i] @ e[k] / tau)
                                                   for k in negatives)  # Z_i
            terms.append(-torch.log(torch.exp(e[i] @ e[j] / tau) / z))
        anchor_losses.append(torch.stack(terms).mean())
    return torch.stack(anchor_losses).mean()


torch.manual_seed(0)
six = torch.randn(6, 4, dtype=torch.float64)
six_labels = ["love", "love", "joy", "joy", "anger", "anger"]
for name, soft in [("SINCERE", False), ("SoftCSE", True)]:
    torch.testing.assert_close(sincere_by_hand(six, six_labels, cfg.tau, soft=soft),
                               LOSSES[name](six, six_labels, tau=cfg.tau))
    print(f"{name} written out on six rows equals companion.losses.circumplex's {name}")

# %% [markdown]
# **CircularCSE** (Eq. 9) is a regression, not a softmax: every pair's cosine is pulled towards the cosine of the
# two labels' angle on the circle ($1$ for the same label, up to a margin $m$), with a squared error averaged over
# the $B(B-1)$ ordered pairs.

# %%
def circular_cse_by_hand(e, labels, margin=0.0):
    """Eq. 9 as a double loop over ordered pairs."""
    e = e / e.norm(dim=1, keepdim=True)
    theta = torch.deg2rad(ecm_angles(labels))
    errors = []
    for i in range(len(e)):
        for j in range(len(e)):
            if i == j:
                continue
            cos_ij = e[i] @ e[j]
            if labels[i] == labels[j]:
                errors.append(torch.clamp((cos_ij - 1).abs() - margin, min=0) ** 2)
            else:
                errors.append((cos_ij - torch.cos(theta[i] - theta[j])) ** 2)
    return torch.stack(errors).mean()


torch.testing.assert_close(circular_cse_by_hand(six, six_labels), LOSSES["CircularCSE"](six, six_labels))
print("CircularCSE written out on six rows equals companion.losses.circumplex's CircularCSE")

# %% [markdown]
# **The nGPT head** (Eq. 18–20, the normalised Transformer). Every hidden state lives on the unit sphere. The
# attention and MLP outputs are not added to the residual stream; each block *interpolates* between the normalised
# input and its normalised output with learned per-dimension rates α and normalises again. In attention, queries
# and keys are normalised per head and scaled by a learned $s_{qk}$, and the softmax multiplies (not divides) by
# $\sqrt{d_\mathrm{head}}$. The MLP gates $u$ with $\mathrm{SiLU}(v)$, $v$ scaled by $\sqrt d$ (Eq. 20 writes
# $\sqrt{d_\mathrm{MLP}}$; the companion follows nGPT and the released code, the model width $d$). The sentence
# embedding is the normalised mean of the output over the real (unpadded) tokens. One block, step by step, on a
# head of width 8 with two attention heads, against `NGPTHead`:

# %%
def ngpt_head_by_hand(head, h, mask):
    """Eq. 18-20 of one nGPT block, then mean pooling and Norm, with the head's own weights."""
    def norm(t):
        return t / t.norm(dim=-1, keepdim=True)

    eff = head.effective()                                   # alpha_A, alpha_M and s_qk as the equations use them
    B, T, d = h.shape
    H = head.attn.n_heads
    dh = d // H

    def per_head(t):
        return t.view(B, T, H, dh).transpose(1, 2)           # B x H x T x d_head

    x = norm(h)                                              # h'' on the sphere
    q = norm(per_head(x @ head.attn.q.weight.T)) * eff["s_qk"][None, :, None, :]   # Eq. 19
    k = norm(per_head(x @ head.attn.k.weight.T)) * eff["s_qk"][None, :, None, :]
    v = per_head(x @ head.attn.v.weight.T)
    scores = (q @ k.transpose(-1, -2)) * math.sqrt(dh)
    scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))   # padding keys get no attention
    attn = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, T, d) @ head.attn.o.weight.T
    h1 = norm((1 - eff["alpha_attn"]) * x + eff["alpha_attn"] * norm(attn))         # Eq. 18, first line
    u = (h1 @ head.mlp.u.weight.T) * head.mlp.s_u                                     # Eq. 20
    gate = (h1 @ head.mlp.v.weight.T) * head.mlp.s_v * math.sqrt(d)
    mlp = (u * torch.nn.functional.silu(gate)) @ head.mlp.o.weight.T
    out = norm((1 - eff["alpha_mlp"]) * h1 + eff["alpha_mlp"] * norm(mlp))           # Eq. 18, second line
    pooled = (out * mask[..., None]).sum(dim=1) / mask.sum(dim=1, keepdim=True)      # mean over real tokens
    return norm(pooled)                                                               # e = Norm(Pooling(h))


torch.manual_seed(0)
small_head = NGPTHead(8, n_heads=2)
tokens = torch.randn(3, 5, 8)
token_mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 1, 0, 0, 0]], dtype=torch.bool)
with torch.no_grad():
    torch.testing.assert_close(ngpt_head_by_hand(small_head, tokens, token_mask), small_head(tokens, token_mask))
print("one nGPT block written out step by step equals companion.papers.circumplex.heads.NGPTHead")

# %% [markdown]
# ## 1 · The Empirical Circumplex Model
# Twelve labels, 30° apart (paper §3.2); Δθ = min(|θᵢ − θⱼ|, 360° − |θᵢ − θⱼ|).

# %%
ecm = ecm_table()
ecm

# %%
fig, ax = plt.subplots(subplot_kw={"projection": "polar"}, figsize=(5.5, 5.5))
colors = plt.cm.twilight(np.linspace(0, 1, 13)[:-1])
for (_, row), c in zip(ecm.iterrows(), colors):
    th = math.radians(row.angle_deg)
    ax.scatter([th], [1], s=140, color=c, edgecolor="k", zorder=3)
    ax.annotate(f"{row.label}\n{row.angle_deg:.0f}°", (th, 1.0), xytext=(th, 1.28), ha="center", va="center",
                fontsize=9)
ax.set_ylim(0, 1.45)
ax.set_yticks([])
ax.set_title("Empirical Circumplex Model (ECM): 12 labels, 30° apart", pad=18)
ledger.savefig(fig, "fig2-ecm-polar")
plt.show()

# %% [markdown]
# ## 2 · The two heads
# `GPTHead`: pre-RMSNorm block, bidirectional attention with a padding mask, SiLU-gated MLP, no biases (Eq. 1/12).
# `NGPTHead`: the normalised Transformer block (Eq. 2/18–20): every hidden state on the unit sphere, learnable
# eigen-learning-rates α (init 0.05, used as |α|), normalised q/k scaled by s_qk, softmax scale √d_head, and all
# weight matrices re-normalised along the embedding dimension after every optimiser step
# (`head.normalize_weights()`, passed as `after_step` to the training loop). Both end with e = Norm(Pooling(h)).
# The nGPT head trains α and s_qk in the authors' parametrisation by default (stored scaled by d^-1/2, so an
# optimiser step moves α by about 0.05·√d and s_qk by √d times what a plainly stored parameter moves; the forward
# pass is the same); `NGPTHead(parametrisation="plain")` stores them directly, and its docstring lists every other
# difference from the paper's equations and the released code.

# %%
torch.manual_seed(0)
heads = {"GPT": GPTHead(384), "nGPT": NGPTHead(384)}
x = torch.randn(4, 9, 384)
mask = torch.ones(4, 9, dtype=torch.bool)
mask[2:, 6:] = False
rows = []
for name, head in heads.items():
    with torch.no_grad():
        e = head(x, mask)
    rows.append({"head": name, "parameters": sum(p.numel() for p in head.parameters()),
                 "max | ‖e‖ − 1 |": float((e.norm(dim=1) - 1).abs().max())})
ngpt = heads["nGPT"]
opt = torch.optim.AdamW(ngpt.parameters(), lr=1e-2, weight_decay=0.0)
ngpt(x, mask).sum().backward()
opt.step()
before = max(float((lin.weight.detach().norm(dim=d) - 1).abs().max()) for _, lin, d in ngpt.matrices())
ngpt.normalize_weights()
after = max(float((lin.weight.detach().norm(dim=d) - 1).abs().max()) for _, lin, d in ngpt.matrices())
with torch.no_grad():
    ngpt.alpha_attn.zero_()
    ngpt.alpha_mlp.zero_()
identity_gap = float((ngpt.blocks(x, mask)["output"].detach() - torch.nn.functional.normalize(x, dim=-1)).abs().max())
print(pd.DataFrame(rows).to_string(index=False))
print(f"nGPT weight norms: max deviation from 1 after an AdamW step {before:.3g}, after normalize_weights {after:.2g}")
print(f"nGPT with alpha = 0: max |output - Norm(input)| = {identity_gap:.2g}")

# %% [markdown]
# ## 3 · The losses on ideal configurations (τ = 0.05)
# A **ring** puts every example at its label's ECM angle in a 2-D plane; a **regular simplex** puts the 12 labels
# at pairwise cosine −1/11 (needs d ≥ 11). Two examples per label.

# %%
E = len(ECM_LABELS)
labels2 = [n for n in ECM_LABELS for _ in range(2)]
theta = torch.deg2rad(ecm_angles(labels2))
ring = torch.zeros(len(labels2), 16, dtype=torch.float64)
ring[:, 0], ring[:, 1] = torch.cos(theta), torch.sin(theta)
simplex = regular_simplex(E, 16, per_label=2)
ortho = torch.eye(16, dtype=torch.float64)[:E][torch.arange(E).repeat_interleave(2)]
ideal = pd.DataFrame({name: {geo: float(fn(X, labels2)) for geo, X in
                             [("ring", ring), ("simplex", simplex), ("orthogonal", ortho)]}
                      for name, fn in LOSSES.items()}).T
ideal

# %% [markdown]
# **SINCERE population bound** (App. I): with one example per other label,
# L* = log(1 + (E−1)·exp(−E/((E−1)τ))). With two examples per label each anchor has 2(E−1) negatives, so the
# simplex value above is log(1 + 2(E−1)·exp(−E/((E−1)τ))); the orthogonal value replaces E/(E−1) by 1.

# %%
tau = cfg.tau
L_star = population_bound(E, tau)
simplex_formula = math.log1p(2 * (E - 1) * math.exp(-E / ((E - 1) * tau)))
ortho_formula = math.log1p(2 * (E - 1) * math.exp(-1 / tau))
print(f"L*(E=12, tau={tau}) = {L_star:.3e}")
print(f"simplex: loss {ideal.loc['SINCERE', 'simplex']:.3e}, formula {simplex_formula:.3e} (relative difference "
      f"{abs(ideal.loc['SINCERE', 'simplex'] / simplex_formula - 1):.1e})")
print(f"orthogonal: loss {ideal.loc['SINCERE', 'orthogonal']:.3e}, formula {ortho_formula:.3e} (relative difference "
      f"{abs(ideal.loc['SINCERE', 'orthogonal'] / ortho_formula - 1):.1e})")
print(f"gap orthogonal - simplex = {ortho_formula - simplex_formula:.2e}; float32 spacing at logit 1/tau = 20: "
      f"{float(torch.finfo(torch.float32).eps) * 16:.1e}")
target = circumplex_target(list(ECM_LABELS))
eig = torch.linalg.eigvalsh(target)
print("CircularCSE target eigenvalues (12x12):", np.round(eig.numpy(), 6))

# %% [markdown]
# ## 4 · Free unit vectors optimised with each loss
# `n_per_label` free vectors per label in `dim` ≥ E − 1 dimensions, Gaussian initialisation, full batch, Adam
# (learning rate `lr`; the settings above).
# SINCERE is run in float64 and in float32 (its gradient vanishes once every negative is ≳ 20 logits below the
# positive). Geometry: mean cosine between labels (simplex −1/11, orthogonal 0), Gram rank, top-2
# variance (ring 1), and r between AvgCosSim and cos Δθ (ring at the ECM angles: 1).

# %%
labels = [n for n in ECM_LABELS for _ in range(cfg.n_per_label)]
runs = [(name, torch.float64) for name in LOSSES] + [("SINCERE", torch.float32)]
free, curves, summary = {}, {}, []
for seed in cfg.seeds:
    for name, dtype in runs:
        key = f"{name} ({'fp32' if dtype == torch.float32 else 'fp64'})"
        t = time.perf_counter()
        emb, hist = optimise_free_vectors(LOSSES[name], labels, cfg.dim, cfg.steps, lr=cfg.lr, seed=seed,
                                          dtype=dtype, progress=True)
        free[key], curves[key] = emb, hist
        summary.append({"run": key, "seed": seed, "final loss": hist[-1],
                        **geometry_summary(emb, labels, list(ECM_LABELS)),
                        "seconds": round(time.perf_counter() - t, 1)})
summary = pd.DataFrame(summary)
summary

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
for key, hist in curves.items():
    axes[0].semilogy(np.maximum(hist, 1e-16), label=key)
axes[0].axhline(population_bound(E, tau), color="k", ls=":", label="L* (simplex bound)")
axes[0].set(xlabel="Adam step", ylabel="loss (log scale)", title="Free unit vectors: loss curves")
axes[0].legend(fontsize=8)
for key in free:
    g = summary[summary.run == key].iloc[-1]
    axes[1].bar(key, g["top2_var"], color="tab:blue")
axes[1].axhline(1.0, color="k", ls=":")
axes[1].set(ylabel="top-2 variance fraction", title="How planar (ring-like) is the solution?")
axes[1].tick_params(axis="x", rotation=20)
ledger.savefig(fig, "app-i-free-vectors-curves")
plt.show()

# %%
from companion.papers.circumplex.geometry import avg_cos_sim  # noqa: E402

fig, axes = plt.subplots(2, len(free), figsize=(2.6 * len(free), 6))
for j, (key, emb) in enumerate(free.items()):
    mat, classes = avg_cos_sim(emb, labels, list(ECM_LABELS))
    im = axes[0, j].imshow(mat, vmin=-1, vmax=1, cmap="RdBu_r")
    axes[0, j].set_title(f"{key}\nAvgCosSim between labels", fontsize=10)
    axes[0, j].set_xticks(range(E), classes, rotation=90, fontsize=7)
    axes[0, j].set_yticks(range(E), classes, fontsize=7)
    u, s, vh = torch.linalg.svd(emb, full_matrices=False)
    xy = (emb @ vh[:2].T).numpy()
    for c, name in zip(colors, ECM_LABELS):
        sel = np.array(labels) == name
        axes[1, j].scatter(xy[sel, 0], xy[sel, 1], color=c, edgecolor="k", s=30, label=name)
    var = (s[:2] ** 2).sum() / (s ** 2).sum()
    axes[1, j].set_title(f"top-2 principal plane ({100 * var:.0f}% of variance)", fontsize=10)
    axes[1, j].set_aspect("equal")
axes[1, -1].legend(fontsize=7, bbox_to_anchor=(1.02, 1), loc="upper left")
fig.colorbar(im, ax=axes[0, :].tolist(), shrink=0.8)
ledger.savefig(fig, "app-i-free-vectors-geometry")
plt.show()

# %% [markdown]
# ## 5 · The §5.1 margin argument
# On a regular simplex every pair of labels is arccos(−1/(E−1)) apart; on a ring, adjacent labels are only
# 2π/E apart, so each label's decision region is ±π/E wide. The text bounds the ring's margin by π/E and gives 30°
# for 12 classes: π/12 is 15°, 30° is the spacing 2π/E. Since the 90° it sets against it (SINCERE) is also an angle
# between label directions, the number fits the spacing and the formula looks like the slip.

# %%
simplex_sep = math.degrees(math.acos(-1 / (E - 1)))
ring_sep = 360 / E
half = math.degrees(math.pi / E)
print(f"simplex pairwise angle {simplex_sep:.1f}°, ring adjacent spacing 2π/E = {ring_sep:.0f}°, "
      f"ring half-margin π/E = {half:.0f}°, simplex half-margin {simplex_sep / 2:.1f}°")

# %% [markdown]
# ## 6 · Claims
# The free-vector optima are deterministic for a given initialisation (no seed interval): they are graded with exact
# criteria whose tolerances are stated in each claim. Closed forms and the optimiser's own convergence are our
# checks (`kind="check"`), not reproductions.

# %%
last = summary.groupby("run").last()
sin = last.loc["SINCERE (fp64)"]
circ = last.loc["CircularCSE (fp64)"]
soft = last.loc["SoftCSE (fp64)"]
seed0 = cfg.seeds[0]
FREE = f"free unit vectors (no model) in d = {cfg.dim}, one initialisation (seed {seed0})"
sincere = LOSSES["SINCERE"]
at_simplex = float(sincere(regular_simplex(E, cfg.dim, per_label=cfg.n_per_label), labels))
others = {key: float(sincere(emb.double(), labels)) for key, emb in free.items()}
ledger.claim("sincere-bound", "SINCERE evaluated on a regular simplex equals the closed form of the App. I bound "
             "(2 examples per label, E = 12, tau = 0.05)", kind="check",
             paper_value=simplex_formula, ours=ideal.loc["SINCERE", "simplex"],
             criterion=within(simplex_formula, tol=1e-9),
             note="float64; the tolerance is far below the gap to the orthogonal value "
                  f"({ortho_formula - simplex_formula:.1e})")
_ = ledger.claim("thm-sincere-lower-bound", "App. I theorem: no configuration has a lower SINCERE loss than the "
                 "regular simplex (checked against the orthogonal and ring configurations and every free-vector "
                 "optimum)", kind="paper", source="App. I, Theorem",
                 paper_value="minimum at the regular simplex, similarity -1/(E-1)",
                 ours={"simplex <= orthogonal (2 per label)":
                       bool(ideal.loc["SINCERE", "simplex"] <= ideal.loc["SINCERE", "orthogonal"]),
                       "simplex <= ring (2 per label)": bool(ideal.loc["SINCERE", "simplex"] <= ideal.loc["SINCERE", "ring"]),
                       **{f"simplex <= {key} optimum": bool(at_simplex <= value + 1e-12) for key, value in others.items()}},
                 criterion=holds("the simplex value is the lowest of all configurations tried"),
                 note=f"SINCERE at the simplex ({cfg.n_per_label} per label) {at_simplex:.3e}; at the free-vector "
                      "optima: " + ", ".join(f"{k} {v:.3e}" for k, v in others.items()))

# %% [markdown]
# What the optimiser reaches: the simplex under SINCERE (beyond the paper), the ring under CircularCSE (§5.1), and
# the CircularCSE target itself.

# %%
ledger.claim("sincere-simplex", "Beyond the paper: Adam on free vectors reaches the simplex under SINCERE at tau = "
             "0.05 (mean inter-label cosine -> -1/(E-1))", kind="beyond", paper_value=-1 / (E - 1),
             ours=sin["mean_offdiag_cos"], criterion=within(-1 / (E - 1), tol=0.01, partly_tol=0.05), regime=FREE,
             note="tolerance 0.01 is about a tenth of the distance between the simplex (-0.091) and orthogonal (0) "
                  f"values; the loss gap between them is {ortho_formula - simplex_formula:.1e}, below float32 "
                  f"resolution at logit 20 (seed {seed0}, {cfg.steps} steps, d = {cfg.dim})")
ledger.claim("circular-ring-loss", "The optimiser drives free vectors to CircularCSE loss ~ 0 (the target is "
             "reachable)", kind="check", paper_value=0.0, ours=circ["final loss"], criterion=at_most(1e-3),
             note="the ring at the ECM angles has loss 0 exactly (section 3)")
ledger.claim("circular-ring-rank", "§5.1: the optimum of CircularCSE is a 2-dimensional circle (free vectors: Gram "
             "rank 2 and top-2 variance >= 0.99)", kind="check", source="§5.1", paper_value="2-dimensional circle",
             ours={"Gram rank == 2": bool(circ["gram_rank"] == 2), "top-2 variance >= 0.99": bool(circ["top2_var"] >= 0.99)},
             criterion=holds(), regime=FREE, note=f"rank {circ['gram_rank']}, top-2 variance {circ['top2_var']:.4f}, "
                                     f"d = {cfg.dim}, seed {seed0}")
_ = ledger.claim("circular-target-psd-rank2", "The CircularCSE target matrix cos(Δθ) is PSD with rank 2 (closed "
                 "form)", kind="check", paper_value="PSD, rank 2",
                 ours={"psd": bool(eig.min() > -1e-10), "rank2": int((eig > 1e-8).sum()) == 2}, criterion=holds())

# %% [markdown]
# SoftCSE between the two (§3.4).

# %%
_ = ledger.claim("softcse-between", "§3.4: SoftCSE is the soft constraint between SINCERE and CircularCSE (free vectors: "
                 "top-2 variance and ring r ordered SINCERE < SoftCSE < CircularCSE)", kind="paper", source="§3.4",
                 paper_value="SINCERE < SoftCSE < CircularCSE",
                 ours={"top2": bool(sin["top2_var"] < soft["top2_var"] < circ["top2_var"]),
                       "ring_r": bool(sin["ring_r"] < soft["ring_r"] < circ["ring_r"])},
                 criterion=holds(), regime=FREE,
                 note="top-2 variance " + " / ".join(f"{x['top2_var']:.3f}" for x in (sin, soft, circ))
                      + "; ring r " + " / ".join(f"{x['ring_r']:.3f}" for x in (sin, soft, circ)))

# %% [markdown]
# The margin argument of §5.1, on the angles between the label directions of the free-vector optima, and its
# arithmetic.

# %%
ang = {key: centroid_angles(emb, labels, ECM_LABELS) for key, emb in free.items()}
adjacent = torch.tensor([[abs(i - j) in (1, E - 1) for j in range(E)] for i in range(E)])
off = ~torch.eye(E, dtype=torch.bool)
ring_adjacent = ang["CircularCSE (fp64)"][adjacent]
sincere_min = float(ang["SINCERE (fp64)"][off].min())
ledger.claim("margin-simplex-vs-ring", "§5.1: on CircularCSE's ring adjacent labels are 30° apart, while SINCERE "
             "separates every pair of labels by about 90° (free-vector optima)", kind="paper", source="§5.1",
             paper_value="30° vs 90°",
             ours={"CircularCSE adjacent labels within 1° of 30°": bool((ring_adjacent - 30).abs().max() <= 1),
                   "SINCERE smallest angle between labels >= 89°": bool(sincere_min >= 89)},
             criterion=holds(), regime=f"{FREE}; the paper's 90° is about trained heads",
             note=f"CircularCSE adjacent-label angles {float(ring_adjacent.min()):.2f}-{float(ring_adjacent.max()):.2f}°; "
                  f"SINCERE smallest {sincere_min:.2f}° (simplex {simplex_sep:.1f}°, orthogonal 90°)")
ledger.claim("margin-text-erratum", "§5.1 arithmetic: the bound π/E, in degrees for E = 12, equals the printed 30°",
             kind="check", source="§5.1", paper_value=30, ours=half, criterion=within(30, tol=0.5),
             note="π/12 = 15°; 30° is the adjacent spacing 2π/E, which the measured ring shows (previous claim). "
                  "An erratum candidate: the formula, not the number, appears to be the slip.")
ledger.table()

# %%
ledger.save()
print(f"notebook wall time {time.perf_counter() - T0:.0f} s (profile {cfg.profile}; the 2-core machine is shared "
      "with other engineers, so times are inflated)")
_ = show_provenance(ledger)
