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
# # Representational compositionality: ε_τ, readout invariance (D.7) and capacity reorganisation (D.5)
#
# **Paper.** Mohr, Dujany, Souquet & Freitas, *Principles of Concept Representation in Sentence Encoders*, arXiv
# 2606.06994, §3 and App. D.
#
# Three parts of the paper's theory, each tested on what it is about. Worked examples compute a retrieval-margin
# error rate (our own quantity, not the paper's ε_τ, a distortion of composition). Theorem D.7, readout invariance:
# when the top layers all lie close to the last one, any weighted average of them gives nearly the same embedding;
# checked on random draws and measured on all-MiniLM-L6-v2. Theorem D.5, capacity reorganisation: contrastive
# training lowers anisotropy (how far embeddings crowd into one direction) without more dimensions; tested on a
# small synthetic contrastive toy over several seeds. Settings and judging rules follow; the claims table at the end
# holds the computed verdicts.

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
toy_steps = None

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
from tqdm.auto import tqdm

from companion.papers.concepts import data as C
from companion.encoders import load_encoder
from companion import stats
from companion.metrics.retrieval import epsilon_tau, recall_at_k
from companion.papers.concepts.settings import COMPOSITIONALITY
from companion.papers.concepts.evaluation import curve_plateau, verdict_summary
from companion.papers.concepts.readouts import readout_invariance_gap
from companion.papers.concepts.toy import capacity_toy_trace, toy_endpoints
from companion.results import Ledger, holds, show_provenance
from companion.display import reader_display

reader_display()  # tables whole, numbers to three significant digits

# %% [markdown]
# ## What runs, at which scale, and how the claims are judged
#
# **Covers** §3 and App. D: a retrieval-margin error rate on worked examples (our own quantity, not the paper's ε_τ,
# see below); Theorem D.7 (readout invariance, App. D.8: if every top layer is within γ of the last, any two
# simplex-weighted readouts differ by at most 2γ) as a property check on random draws and measured on
# all-MiniLM-L6-v2; Theorem D.5 (capacity reorganisation, App. D.6: contrastive training lowers anisotropy in a
# fixed dimension d) on a synthetic contrastive toy.
#
# **Verdicts** are computed in the claims table at the end, never typed. Claims on the toy are judged by the one rule
# of `companion.stats` (the paper states a direction only: the CI of the paired end − start difference on the
# paper's side of 0 is *reproduced*, on the other side *not reproduced*, covering 0 *inconclusive*), after a
# validity check measured on the toy's curves (has it reached its plateau?). The regime (a synthetic toy, not a
# sentence encoder) is stated beside each verdict and never changes it. Checks of our own code pass or fail.
#
# Settings per profile (smoke: a few random draws, texts and toy steps; cpu: the draws, definitions, toy steps,
# toy concepts and seeds printed below), then the claims ledger.

# %%
torch.set_num_threads(2)
cfg = COMPOSITIONALITY(profile, gpu_grid=gpu_grid, seeds=seeds, toy_steps=toy_steps)
ledger = Ledger("concepts", "01-representational-compositionality", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)
sns.set_theme(style="whitegrid", context="notebook")
cfg

# %% [markdown]
# ## 0. The training objective from scratch, on a tiny example
#
# The fine-tuned encoders of notebooks 03 and 04 are trained with the objective of §4.3; before anything is
# measured, here it is written out with numpy on four concepts and checked against `companion.losses.concepts`.
#
# **InfoNCE per positive view.** Each view (synonym pairs, term → definition, definition → definition) is in-batch
# InfoNCE over cosines: query $i$ must pick its own positive among the batch's positives, a softmax cross-entropy
# with logits $\cos(q_i, p_j)/\tau$. **Hard negatives by BCE.** Each definition also has rule-made near misses
# (App. G). The BCE term scores every item on its own, not against the batch: logit $(\cos(q, d) - \theta)/\tau$,
# label 1 for the true definition and 0 for each hard negative, summed over an anchor's items. The paper does not
# state the logit's offset and scale; θ = 0.5, τ = 0.05 are the companion's. **The total** (§4.3):
# $L = L_\mathrm{syn} + L_\mathrm{t2d} + 0.7\,L_\mathrm{d2d} + 0.5\,L_\mathrm{neg}$.

# %%
from companion.losses.concepts import concept_loss  # noqa: E402  (only to compare with)


def unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def infonce_by_hand(q, p, tau=0.05):
    """In-batch InfoNCE: query i picks positive i among all positives of the batch (cosine logits / tau)."""
    logits = unit(q) @ unit(p).T / tau
    return np.mean([-(logits[i, i] - np.log(np.exp(logits[i]).sum())) for i in range(len(q))])


# %%
def hard_negative_bce_by_hand(q, definition, hard, tau=0.05, threshold=0.5):
    """BCE on (cos - threshold) / tau: label 1 for the true definition, 0 for each hard negative; mean of the
    per-anchor sums."""
    def sigmoid(x):
        return 1 / (1 + np.exp(-x))

    per_anchor = []
    for i in range(len(q)):
        positive = sigmoid((unit(q[i]) @ unit(definition[i]) - threshold) / tau)
        negatives = sigmoid((unit(hard[i]) @ unit(q[i]) - threshold) / tau)
        per_anchor.append(-np.log(positive) - np.log(1 - negatives).sum())
    return np.mean(per_anchor)


# %% [markdown]
# Four concepts with random 8-dimensional embeddings for the term, its definition, a synonym and a definition from
# another source, and two near misses per definition:

# %%
rng_tiny = np.random.default_rng(0)
term, definition, synonym, other_source = (rng_tiny.normal(size=(4, 8)) for _ in range(4))
hard = definition[:, None, :] + 0.7 * rng_tiny.normal(size=(4, 2, 8))  # two near misses per definition
by_hand = (infonce_by_hand(term, synonym) + infonce_by_hand(term, definition)
           + 0.7 * infonce_by_hand(definition, other_source) + 0.5 * hard_negative_bce_by_hand(term, definition, hard))
term_t, definition_t, synonym_t, other_t, hard_t = map(torch.as_tensor, (term, definition, synonym, other_source, hard))
package = concept_loss(syn=(term_t, synonym_t), t2d=(term_t, definition_t), d2d=(definition_t, other_t), hard=hard_t)
np.testing.assert_allclose(by_hand, float(package.total), rtol=1e-10)
print("L_syn + L_t2d + 0.7 L_d2d + 0.5 L_neg written out equals companion.losses.concepts.concept_loss")

# %% [markdown]
# **B1-unified** (App. F) drops the BCE term and puts the hard negatives into the t2d softmax instead: each term's
# denominator gains its own definition's near misses.

# %%
def infonce_with_hard_by_hand(q, p, hard, tau=0.05):
    """In-batch InfoNCE whose denominator also holds each query's own hard negatives."""
    losses = []
    for i in range(len(q)):
        logits = np.concatenate([unit(p) @ unit(q[i]), unit(hard[i]) @ unit(q[i])]) / tau
        losses.append(-(logits[i] - np.log(np.exp(logits).sum())))
    return np.mean(losses)


unified = concept_loss(t2d=(term_t, definition_t), hard=hard_t, unified=True)
np.testing.assert_allclose(infonce_with_hard_by_hand(term, definition, hard), float(unified.total), rtol=1e-10)
print("B1-unified's t2d term written out equals concept_loss(..., unified=True)")

# %% [markdown]
# ## 1. The ε_τ framing, on worked examples
#
# **The paper's ε_τ** (§3.2, App. D.1): an encoder is ε_τ-compositional for modifier family τ when some latent
# operator Φ_τ maps the embeddings of modifier and head to within ε_τ of the embedding of the composed phrase, for
# every valid pair of that family — a distortion of a composition map, which needs a fitted Φ_τ per family. Notebook
# 04 builds it (a ridge linear Φ_τ per family, leave-one-out distortion) and tests Theorem D.3's ordering of the
# families. **What this section computes instead** (our own quantity, named ε_τ in `companion.metrics.retrieval`
# for historical reasons): concept $c$ (term $t_c$, definition $d_c$) is retrieved *at margin τ* when
# $\cos(f(t_c), f(d_c)) - \max_{c' \ne c} \cos(f(t_c), f(d_{c'})) > \tau$; the margin error rate is the fraction
# of concepts that fail this, so at τ = 0 it equals 1 − R@1 and it is non-decreasing in τ.
#
# Three terms and three definitions in 2-D: the first concept is well separated, the second by a small margin, the third
# is closer to the first definition than to its own (a retrieval error).

# %%
angles = {"t": np.deg2rad([0, 90, 20]), "d": np.deg2rad([10, 95, 60])}
T = np.c_[np.cos(angles["t"]), np.sin(angles["t"])]
D = np.c_[np.cos(angles["d"]), np.sin(angles["d"])]
S = T @ D.T
gold = np.arange(3)
taus = np.linspace(0, 1, 101)
eps = [epsilon_tau(S, gold, t) for t in taus]
display(pd.DataFrame(S, index=["t1", "t2", "t3"], columns=["d1", "d2", "d3"]).round(3))
print(", ".join(f"eps_{t} = {epsilon_tau(S, gold, t):.3g}" for t in (0.0, 0.05, 0.2)), f"R@1 = {recall_at_k(S, gold, 1):.3g}")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
for i, c in enumerate(["tab:blue", "tab:orange", "tab:green"]):
    axes[0].arrow(0, 0, *T[i], color=c, width=0.01, length_includes_head=True)
    axes[0].arrow(0, 0, *D[i], color=c, width=0.01, ls="--", alpha=0.5, length_includes_head=True)
    axes[0].text(*(T[i] * 1.08), f"t{i + 1}", color=c)
    axes[0].text(*(D[i] * 1.15), f"d{i + 1}", color=c)
axes[0].set(xlim=(-0.2, 1.3), ylim=(-0.2, 1.3), aspect="equal", title="terms (solid) and definitions (dashed)")
axes[1].step(taus, eps, where="post")
axes[1].set(xlabel="margin τ", ylabel="ε_τ", title="ε_τ is non-decreasing; ε_0 = 1 − R@1")
fig.tight_layout()
fig_path = ledger.savefig(fig, "fig-eps-tau-worked-example")
ledger.claim("eps0_is_1_minus_r1", "our margin error rate equals 1 − R@1 at τ = 0 and is non-decreasing in τ "
             "(worked example)", True,
             bool(np.isclose(eps[0], 1 - recall_at_k(S, gold, 1)) and np.all(np.diff(eps) >= 0)),
             holds(), kind="check",
             note="our own retrieval-margin quantity, not the paper's ε_τ (a composition-operator distortion, §3.2)")

# %% [markdown]
# ## 2. App. D.7 — readout invariance, as a property check
#
# If $h_l = h_L + \xi_l$ with $\|\xi_l\| \le \gamma$ for the top $K$ layers and $w, w'$ lie on the simplex, then
# $\|\sum_l w_l h_l - \sum_l w'_l h_l\| \le 2\gamma$. Random draws: random $K$, $h_L$, perturbations of random
# size up to γ, and weights from Dirichlet distributions of several concentrations (including vertices).

# %%
g = torch.Generator().manual_seed(cfg.seeds[0])
dirichlet = np.random.default_rng(cfg.seeds[0])  # torch's Dirichlet sampler takes no generator: seeded here
ratios = []
for _ in tqdm(range(cfg.n_draws), desc="D.7 draws"):
    k, n, d = int(torch.randint(2, 9, (1,), generator=g)), 8, 16
    gamma = float(torch.rand(1, generator=g)) * 2 + 0.01
    hL = torch.randn(n, d, generator=g, dtype=torch.float64) * 3
    xi = torch.randn(k, n, d, generator=g, dtype=torch.float64)
    xi = xi / xi.norm(dim=-1, keepdim=True) * gamma * torch.rand(k, n, 1, generator=g, dtype=torch.float64)
    xi[-1] = 0
    conc = float(torch.rand(1, generator=g)) * 3 + 0.05
    w1 = torch.from_numpy(dirichlet.dirichlet(np.full(k, conc)))
    w2 = torch.zeros(k, dtype=torch.float64)
    w2[int(torch.randint(0, k, (1,), generator=g))] = 1.0  # a vertex: a single layer
    gap, bound = readout_invariance_gap(hL + xi, w1, w2)
    ratios.append(gap / bound)
ratios = np.array(ratios)
print(f"max gap / 2γ over {len(ratios)} draws: {ratios.max():.3f}")
ledger.claim("d7_random", "Theorem D.7: readouts on the simplex differ by at most 2γ (random draws)", True,
             bool(ratios.max() <= 1 + 1e-9), holds(), kind="check", source="Theorem D.7",
             note=f"max gap/2γ = {ratios.max():.3f} over {len(ratios)} draws; a proven inequality: this checks our "
                  "readout code, it is not a reproduction")

# %% [markdown]
# **On MiniLM.** Mean-pooled last $K = 4$ layers of all-MiniLM-L6-v2 (two thirds of its 6 layers) for WordNet
# definitions: γ is the largest distance of a top layer from the last; we compare the uniform readout (B0-WM) with
# the last layer alone (B0), on raw and on unit-normalised layer vectors.

# %%
data = C.load_concepts()
sub = C.t2d_subset(data, C.in_domain_split(data, 0.1, seed=0).test, n=cfg.n_texts, seed=cfg.seeds[0])
enc = load_encoder(cfg.model, pooling="mean")
t0 = time.perf_counter()
layers = enc.encode_layers(list(sub["masked"]), normalize=False)  # N x (L+1) x d
print(f"encode_layers: {tuple(layers.shape)} in {time.perf_counter() - t0:.1f} s")
top = layers[:, -cfg.k:].permute(1, 0, 2).double()  # K x N x d, last layer last
rows = []
for name, states in [("raw", top), ("unit-normalised", torch.nn.functional.normalize(top, dim=-1))]:
    uniform = torch.full((cfg.k,), 1 / cfg.k, dtype=torch.float64)
    last = torch.zeros(cfg.k, dtype=torch.float64)
    last[-1] = 1
    gap, bound = readout_invariance_gap(states, uniform, last)
    per_text_gamma = (states - states[-1:]).norm(dim=-1).max(0).values
    rows.append(dict(vectors=name, gamma=bound / 2, max_gap=gap, bound_2gamma=bound,
                     median_norm_last=float(states[-1].norm(dim=-1).median()),
                     median_gamma_per_text=float(per_text_gamma.median())))
d7 = pd.DataFrame(rows).set_index("vectors")
ledger.claim("d7_minilm", "Theorem D.7's bound holds for MiniLM's uniform-vs-last readouts", True,
             bool((d7["max_gap"] <= d7["bound_2gamma"] + 1e-9).all()), holds(), kind="check", source="Theorem D.7",
             note=f"gamma/||h_L|| (raw) = {d7.loc['raw', 'median_gamma_per_text'] / d7.loc['raw', 'median_norm_last']:.2f}: "
                  "the bound is true but loose — the top layers are not close to the last in absolute terms")
d7.round(3)

# %% [markdown]
# ## 3. Theorem D.5 (App. D.6) — capacity reorganisation on a synthetic contrastive toy
#
# $N$ concepts with latent vectors $x_c \in \mathbb{R}^{64}$; each training pair is two noisy views of one concept.
# The encoder is linear plus a large shared bias (so its initial outputs are highly anisotropic), $d = 32$, trained
# with the in-batch InfoNCE term of the concept objective (τ = 0.05, Adam). The paper words the geometry in two ways:
# Theorem D.5 calls anisotropy the variance share of the leading singular direction and measures effective rank by
# the participation ratio; App. H (whose definitions give the paper's numbers, 0.126 → 0.012 and 247.0 → 247.2)
# uses the mean cosine of 10,000 random pairs and exp of the entropy of the normalised singular values. We track
# all four on the unit embeddings (leading share on the uncentred embedding matrix).

# %%
toy = pd.DataFrame([row for s in tqdm(cfg.seeds, desc="toy seeds")
                    for row in capacity_toy_trace(s, n=cfg.toy_n, m=cfg.toy_m, d=cfg.toy_d, steps=cfg.toy_steps,
                                                  batch=cfg.toy_batch, temperature=0.05)])
ends = toy_endpoints(toy)
ends.round(3)

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
sns.lineplot(data=toy, x="step", y="anisotropy", hue="seed", ax=axes[0], palette="tab10")
axes[0].set(title="Anisotropy falls under contrastive training")
sns.lineplot(data=toy, x="step", y="effective_rank", hue="seed", ax=axes[1], palette="tab10")
axes[1].axhline(cfg.toy_d, color="grey", ls=":", label=f"d = {cfg.toy_d}")
axes[1].set(title="Effective rank rises, bounded by d")
axes[1].legend()
fig.tight_layout()
fig_path = ledger.savefig(fig, "fig-d5-toy")

# %% [markdown]
# The claims on the toy are **checks**, not reproductions: the toy's start carries a planted bias that contrastive
# training removes, so its fall shows the code does what Theorem D.5 describes, not that a sentence encoder does.
# Validity: the seed-mean curve of each statistic must have reached its plateau (the slope over
# the last third of training has a 95 % interval covering zero, or its gain is at most a quarter of the compared
# end − start change, `companion.stats.plateau`).

# %%
TOY = f"synthetic linear encoder (d = {cfg.toy_d}), {cfg.toy_steps} InfoNCE steps, not a sentence encoder"
for cid, col, start, end, text in [
        ("d5_aniso_falls", "anisotropy", "aniso_start", "aniso_end",
         "Theorem D.5: contrastive training lowers anisotropy (App. H's mean cosine), toy"),
        ("d5_lead_share_falls", "leading_share", "lead_start", "lead_end",
         "Theorem D.5: contrastive training lowers the leading direction's variance share (the theorem's own "
         "anisotropy), toy")]:
    cmp = stats.paired(ends[end], ends[start], labels=("end", "start"))
    ledger.claim(cid, text, "anisotropy decreases", cmp, stats.direction(sign=-1), kind="check",
                 source="Theorem D.5", regime=TOY,
                 validity=curve_plateau(toy, col, gap=cmp.estimate, what=f"toy {col} (mean over seeds)"),
                 note=f"start {ends[start].mean():.3f} -> end {ends[end].mean():.3f} (mean over seeds); participation "
                      f"ratio {ends['pr_start'].mean():.1f} -> {ends['pr_end'].mean():.1f} (the theorem says the rank "
                      "may stay roughly stable, which no result can contradict)")
ledger.claim("d5_erank_bounded", "toy: effective rank stays <= d and ends at or above its start, every seed", True,
             [bool(e <= cfg.toy_d + 1e-6 and f >= s) for e, f, s in
              zip(ends["erank_max"], ends["erank_end"], ends["erank_start"])],
             holds("max effective rank <= d and final >= initial, per seed"), kind="check",
             note=f"start {ends['erank_start'].mean():.1f} -> end {ends['erank_end'].mean():.1f} (d = {cfg.toy_d}); "
                  "<= d holds by construction, the rise does not")

# %% [markdown]
# ## Closing summary (computed from the ledger)
#
# Every row below is computed in this run: the paper's statement, ours with its 95 % interval over seeds where there
# is one, the verdict and its reason, any validity check that failed, and the regime. How to read it: Theorem D.7
# is a proven inequality, so its rows check our readout code, not the paper; the MiniLM row's note gives γ relative
# to the last layer's norm, which says whether the theorem's premise (a small γ) holds for a frozen encoder's raw
# layer vectors. The Theorem D.5 rows speak to the direction of the theorem on a toy that starts from a degenerate,
# bias-dominated geometry, not to a sentence encoder (the regime column says so). The paper's ε_τ (a
# composition-operator distortion) is measured in notebook 04.

# %%
verdict_summary(ledger)

# %% [markdown]
# ## Claims

# %%
ledger.table()

# %%
ledger.save()
show_provenance(ledger)
