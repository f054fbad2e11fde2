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
# # Principles of concept representation: B0/B0-WM, fine-tuned B1/B3/M1/B1-unified, layer-wise analysis
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/OWNER/REPO/blob/main/notebooks/concepts/03-principles.ipynb)
#
# **Paper.** M. Mohr, A. Dujany, P. Souquet, A. Freitas, *Principles of Concept Representation in Sentence
# Encoders*, arXiv 2606.06994, §5.1–5.4 (Tables 2–4, 10, 11; Fig 3–5), on WordNet 3.0 with all-MiniLM-L6-v2.
#
# **What runs.** Frozen B0 (last-layer mean pool) and B0-WM (uniform mean of the last K = 4 layers — two thirds
# of MiniLM's 6 layers, against a third of the paper's 12-layer mpnet); fine-tuned B1 (mean + hard negatives),
# B3 (learned weighted mean of the last 4 layers, no hard negatives), M1 (weighted mean + hard negatives),
# B1-unified (hard negatives in the InfoNCE denominator, no BCE) and, in the smoke/gpu profiles, M2 (gate) and M3
# (deep supervision). Recipe (§4.5): $L = L_\mathrm{syn} + L_\mathrm{t2d} + 0.5\,L_\mathrm{neg}$ (d2d dropped:
# WordNet is one source), batch 16, AdamW, linear warm-up (the paper's 100/8000 fraction) and linear decay,
# layer-wise LR decay 0.9, 5× LR for pooling parameters, the five rule-made hard negatives per definition where
# the rule applies. Metrics on held-out synsets (in-domain split): t2d/d2t R@10 and MRR, pair ROC-AUC, the five
# per-rule stress AUCs, anisotropy (10,000 random pairs), effective rank; layer-wise MRR and anisotropy (Fig 3),
# anisotropy vs effective rank (Fig 5). Claims compare **within-run deltas** with the paper's signs and sizes.
#
# **Scaled down for the `cpu` profile (one thread, ≤ 15 min on a shared 2-core machine)**: only the top
# transformer layer of 6 is trained (`n_top = 1`, over cached lower-layer states; the paper fine-tunes all of
# mpnet), for `steps` = 150 steps per condition (paper 8,000) on 800 training synsets (3 epochs), at LR 2e-4
# (pooling 1e-3; the paper's base LR is not stated, we raised the common 5e-5 because 150 steps are < 2 % of its
# schedule), at most 2 of each definition's (up to 5) hard negatives per step (a fresh draw each step, the same
# for every condition; the paper uses all five), seeds 0, 1, 2 for B1/B3/M1/B1-unified and seed 0 only for M2/M3,
# evaluated on 500 held-out concepts. A fine-tuned step costs 0.15–0.3 s on a quiet core (about 1 s when the
# machine is loaded).
# all-mpnet-base-v2 is analysed frozen in notebook 04. Measured values and verdicts: closing note at the end.

# %% tags=["parameters"]
profile = "cpu"
seeds = None
n_rows = None
steps = None

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
import torch
import torch.nn.functional as F
from IPython.display import display

from companion import concepts as C
from companion.encoders import load_encoder
from companion.metrics.geometry import anisotropy, effective_rank
from companion.metrics.retrieval import mrr, pair_roc_auc, recall_at_k
from companion.profiles import settings
from companion.readouts import CONDITIONS, LowerStates, TopLayerConceptModel, save_trained, train_concept_model
from companion.results import Ledger, at_most, holds, not_testable, same_sign, show_provenance, within
from companion.settings import REPO_ROOT
from companion.training import seed_everything

ALL = ["B1", "B3", "M1", "B1-unified", "M2", "M3"]
cfg = settings(profile,
               smoke=dict(seeds=[0], n_rows=24, n_train=48, steps=2, n_top=1, conditions=ALL[:4],
                          extra_conditions=["M2", "M3"], threads=2, max_negatives=None),
               cpu=dict(seeds=[0, 1, 2], n_rows=500, n_train=800, steps=150, n_top=1,
                        conditions=["B1", "B3", "M1", "B1-unified"], extra_conditions=["M2", "M3"], threads=1,
                        max_negatives=2),
               gpu=dict(seeds=[0, 1, 2], n_rows=5000, n_train=100_000, steps=8000, n_top=6, conditions=ALL,
                        extra_conditions=[], threads=8, max_negatives=None),
               common=dict(k=4, batch=16, lr=2e-4, pooling_lr_mult=5.0, layer_decay=0.9, warmup_frac=100 / 8000,
                           tau=0.05, max_length=64, model="sentence-transformers/all-MiniLM-L6-v2"),
               overrides=dict(seeds=seeds, n_rows=n_rows, steps=steps))
torch.set_num_threads(cfg.threads)
ledger = Ledger("concepts", "03-principles", profile=cfg.profile, seeds=cfg.seeds)
paper = pd.read_csv(REPO_ROOT / "data" / "concepts" / "paper_numbers.csv", comment="#")
pv = paper.set_index(["id", "condition"])["value"]
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
# applies to each test definition (seed 0). Training rows: `n_train` random **train** synsets, each with its
# masked definition, one syn pair of the same synset where it has one, and its hard negatives.

# %%
data = C.load_concepts()
split = C.in_domain_split(data, 0.1, seed=0)
pool = C.t2d_subset(data, split.test, seed=0).drop_duplicates("sid").reset_index(drop=True)
ev = pool.iloc[np.sort(np.random.default_rng(0).choice(len(pool), cfg.n_rows, replace=False))].reset_index(drop=True)
hn = C.make_hard_negatives(data, ev, seed=0)
rng = np.random.default_rng(1)
rand_def = ev["masked"].to_numpy()[(np.arange(len(ev)) + rng.integers(1, len(ev), len(ev))) % len(ev)]
texts = list(dict.fromkeys(list(ev["term"]) + list(ev["masked"]) + list(hn["negative"]) + list(rand_def)))
rows = C.training_rows(data, split.train, n=cfg.n_train, seed=0)
assert not set(rows.sid) & set(ev["sid"]), "train and test synsets overlap"
print(f"eval: {len(ev)} concepts, {len(hn)} hard negatives, {len(texts)} texts; train: {len(rows)} synsets "
      f"({rows.has_syn.mean():.0%} with a syn pair, {rows.neg_mask.sum(1).mean():.2f} hard negatives each), "
      f"{len(rows.texts())} texts")
hn.groupby("rule").size().reindex(C.RULES).to_frame("test hard negatives")

# %%
enc = load_encoder(cfg.model, pooling="mean", max_length=cfg.max_length)
n_layers = enc._num_hidden_states() - 1
lower = LowerStates(enc, start=n_layers - cfg.n_top)
t0 = time.perf_counter()
lower.precompute(texts + rows.texts())
precompute_s = time.perf_counter() - t0
print(f"lower {lower.start} layers for {len(lower)} texts in {precompute_s:.1f} s ({len(lower) / precompute_s:.0f}/s)")

# %% [markdown]
# ## 2. Metrics

# %%
row = {t: i for i, t in enumerate(texts)}
terms, defs = ev["term"].tolist(), ev["masked"].tolist()
same_term = ev["term"].to_numpy()[:, None] == ev["term"].to_numpy()[None, :]


def evaluate(Z):
    """All §5 metrics for embeddings ``Z`` of ``texts`` (rows in ``row`` order)."""
    Z = F.normalize(Z.double(), dim=-1)
    q, d = Z[[row[t] for t in terms]], Z[[row[t] for t in defs]]
    S = (q @ d.T).numpy()
    out = {"t2d R@10": recall_at_k(S, same_term, 10), "t2d MRR": mrr(S, same_term),
           "d2t R@10": recall_at_k(S.T, same_term, 10), "d2t MRR": mrr(S.T, same_term)}
    neg = (q * Z[[row[t] for t in rand_def]]).sum(1).numpy()
    out["pair AUC"] = pair_roc_auc(np.diag(S), neg)
    qh = Z[[row[t] for t in hn["term"]]]
    cp = (qh * Z[[row[t] for t in hn["positive"]]]).sum(1).numpy()
    cn = (qh * Z[[row[t] for t in hn["negative"]]]).sum(1).numpy()
    for r in C.RULES:
        m = (hn["rule"] == r).to_numpy()
        out[f"AUC {r}"] = pair_roc_auc(cp[m], cn[m]) if m.sum() >= 2 else np.nan
    out["anisotropy"] = anisotropy(d, n_pairs=10_000, seed=0)
    out["effective rank"] = effective_rank(d)
    return out


frozen = TopLayerConceptModel(enc, "mean", n_top=cfg.n_top, k=cfg.k, lower=lower)
L = frozen.encode_layers(texts)  # N x 7 x 384, hidden state 0 = embeddings; the untrained top layer = MiniLM's own
readouts = {f"layer {i}": L[:, i] for i in range(L.shape[1])}
readouts["B0"] = L[:, -1]
readouts["B0-WM"] = L[:, -cfg.k:].mean(dim=1)
table = pd.DataFrame({name: evaluate(Z) for name, Z in readouts.items()}).T
display(table.loc[["B0", "B0-WM"]].round(3))
paper_rows = {c: {"t2d R@10": pv.get(("t2d_r10", c)), "AUC negation": pv.get(("negate_auc", c)),
                  "anisotropy": pv.get(("anisotropy", c)), "effective rank": pv.get(("effective_rank", c))}
              for c in ["B0", "B0-WM", "B1", "B3", "M1"]}
print("paper (mpnet, 768-d):")
pd.DataFrame(paper_rows).T

# %% [markdown]
# ## 3. Fine-tuning B1, B3, M1, B1-unified (M2, M3)
#
# Every condition starts from the same frozen MiniLM, trains the top `n_top` layer(s) and its readout with the
# same batches for a given seed (paired comparisons), and is evaluated with the same frozen lower layers.
# With `n_top = 1`, B3/M1's K = 4 window holds three frozen layers and the trained last one; the learned layer
# weights and the gate are in the readout's parameter group at 5× LR. `extra_conditions` (M2, M3) run with the
# first seed only.

# %%
recipe_common = dict(model=cfg.model, max_length=cfg.max_length, n_top=cfg.n_top, k=cfg.k, batch=cfg.batch,
                     lr=cfg.lr, pooling_lr_mult=cfg.pooling_lr_mult, layer_decay=cfg.layer_decay, tau=cfg.tau,
                     warmup_frac=cfg.warmup_frac, steps=cfg.steps, n_train=cfg.n_train, split_seed=0, rows_seed=0,
                     rules=list(rows.rules), max_negatives=cfg.max_negatives, version=1)
warmup = max(1, round(cfg.warmup_frac * cfg.steps))
results, times, weights = [], {}, {}
for seed in cfg.seeds:
    for name in cfg.conditions + (cfg.extra_conditions if seed == cfg.seeds[0] else []):
        readout, use_hn = CONDITIONS[name]
        seed_everything(seed)
        model = TopLayerConceptModel(enc, readout, n_top=cfg.n_top, k=cfg.k, lower=lower)
        t0 = time.perf_counter()
        res = train_concept_model(model, rows, use_hn, steps=cfg.steps, batch=cfg.batch, lr=cfg.lr,
                                  pooling_lr_mult=cfg.pooling_lr_mult, layer_decay=cfg.layer_decay,
                                  warmup_steps=warmup, temperature=cfg.tau, seed=seed,
                                  max_negatives=cfg.max_negatives, desc=f"{name} s{seed}")
        train_s = time.perf_counter() - t0
        metrics = evaluate(model.encode(texts))
        results.append(dict(condition=name, seed=seed, **metrics, first_loss=res.history[0]["loss"],
                            last_loss=float(np.mean([h["loss"] for h in res.history[-5:]]))))
        times[(name, seed)] = (train_s, time.perf_counter() - t0 - train_s)
        if readout in ("weighted",):
            weights[(name, seed)] = model.readout.weights().detach().numpy().round(3)
        if name == "B1":
            save_trained(model, dict(recipe_common, condition=name, seed=seed))  # reused by notebook 04
        print(f"{name} seed {seed}: train {train_s:.0f} s ({train_s / max(cfg.steps, 1):.2f} s/step), "
              f"loss {results[-1]['first_loss']:.3f} -> {results[-1]['last_loss']:.3f}")
ft = pd.DataFrame(results)
mean_ft = ft.groupby("condition", sort=False).mean(numeric_only=True).drop(columns="seed")
show_cols = ["t2d R@10", "t2d MRR", "d2t R@10", "d2t MRR", "pair AUC"] + [f"AUC {r}" for r in C.RULES] + \
    ["anisotropy", "effective rank"]
summary = pd.concat([table.loc[["B0", "B0-WM"], show_cols], mean_ft[show_cols]])
print(f"mean over seeds {cfg.seeds}; learned layer weights (hidden states {n_layers - cfg.k + 1}..{n_layers}):",
      {f"{k[0]} s{k[1]}": v.tolist() for k, v in weights.items()})
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
ledger.savefig(fig, "fig3-fig5-layerwise-and-geometry")

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for name in ["B0", "B0-WM", "B1", "B3", "M1"]:
    if (("anisotropy", name) in pv.index) and (name in table.index or name in mean_ft.index):
        ax.scatter(pv[("anisotropy", name)], pv[("effective_rank", name)], marker="*", s=160, color=palette.get(name),
                   label=f"{name} (paper, mpnet, d = 768)")
ax.set(xlabel="anisotropy", ylabel="effective rank", title="Fig 5 / Table 11 as stated by the paper")
ax.legend(fontsize=7)
fig.tight_layout()
ledger.savefig(fig, "fig5-paper-table11")

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
ledger.savefig(fig, "fig-conditions")

# %% [markdown]
# ## 5. Claims: within-run deltas against the paper's signs
#
# Each delta is computed per seed (same batches for both conditions) and its mean is compared with the sign (and,
# where the paper's effect is large, a minimum size) of the paper's delta; the per-seed values are in the notes.

# %%
def per_seed(a, b, col):
    """Per-seed ``a - b`` of metric ``col`` (conditions or frozen readouts)."""
    def val(name, seed):
        if name in table.index:
            return float(table.loc[name, col])
        return float(ft[(ft["condition"] == name) & (ft["seed"] == seed)][col].item())
    return np.array([val(a, s) - val(b, s) for s in cfg.seeds])


def note(values, extra=""):
    return f"per seed {dict(zip(cfg.seeds, np.round(values, 3).tolist()))}; {probe}" + (f"; {extra}" if extra else "")


probe = f"top-{cfg.n_top} layer, {cfg.steps} steps x batch {cfg.batch}, {len(rows)} train synsets, {cfg.n_rows} test"
b0, wm = table.loc["B0"], table.loc["B0-WM"]
best_layer = int(layer_rows["t2d MRR"].to_numpy().argmax())
ledger.claim("P2_last_layer_peaks", "P2: layer-wise t2d MRR peaks at the last layer (frozen)", True,
             best_layer == L.shape[1] - 1, holds(), note=f"argmax hidden state = {best_layer}")
ledger.claim("P2_wm_not_better", "P2: cross-layer pooling does not help: B0-WM minus B0 t2d R@10 < 0",
             round(pv[("t2d_r10", "B0-WM")] - pv[("t2d_r10", "B0")], 3), round(float(wm["t2d R@10"] - b0["t2d R@10"]), 3),
             same_sign(pv[("t2d_r10", "B0-WM")] - pv[("t2d_r10", "B0")]),
             note="K = 4 covers two thirds of MiniLM's 6 layers (a third of mpnet's 12)")
ledger.claim("T11_wm_aniso_up", "Table 11: B0-WM is more anisotropic than B0",
             round(pv[("anisotropy", "B0-WM")] - pv[("anisotropy", "B0")], 3),
             round(float(wm["anisotropy"] - b0["anisotropy"]), 3),
             same_sign(pv[("anisotropy", "B0-WM")] - pv[("anisotropy", "B0")]))
ledger.claim("T11_wm_erank_down", "Table 11: B0-WM has a lower effective rank than B0",
             round(pv[("effective_rank", "B0-WM")] - pv[("effective_rank", "B0")], 1),
             round(float(wm["effective rank"] - b0["effective rank"]), 1),
             same_sign(pv[("effective_rank", "B0-WM")] - pv[("effective_rank", "B0")]))
ledger.claim("B0_negate_below_chance", "the frozen encoder fails the negation stress test: AUC - 0.5 < 0",
             round(pv[("negate_auc", "B0")] - 0.5, 3), round(float(b0["AUC negation"]) - 0.5, 3),
             same_sign(pv[("negate_auc", "B0")] - 0.5),
             note=f"paper B0 AUC {pv[('negate_auc', 'B0')]}, ours {b0['AUC negation']:.3f}")


def delta_claim(cid, text, a, b, col, paper_delta, criterion, extra=""):
    d = per_seed(a, b, col)
    ledger.claim(cid, text, round(float(paper_delta), 3), round(float(d.mean()), 3), criterion, note=note(d, extra))
    return d


have = set(cfg.conditions)
if "B1" in have:
    pa = pv[("anisotropy", "B1")] - pv[("anisotropy", "B0")]
    delta_claim("P1_aniso_falls", "P1: fine-tuning (B1) lowers anisotropy vs B0 (paper -0.114)", "B1", "B0",
                "anisotropy", pa, same_sign(pa))
    er = np.array([float(ft[(ft.condition == "B1") & (ft.seed == s)]["effective rank"].item()) / b0["effective rank"]
                   for s in cfg.seeds])
    ledger.claim("P1_erank_stays", "P1: effective rank stays: B1/B0 ratio within 10 % (paper 247.2/247.0 = 1.001)",
                 round(pv[("effective_rank", "B1")] / pv[("effective_rank", "B0")], 3), round(float(er.mean()), 3),
                 within(1.0, 0.1, partly_tol=0.2), note=note(er))
    pr = pv[("t2d_r10", "B1")] - pv[("t2d_r10", "B0")]
    delta_claim("B1_r10_up", "fine-tuning (B1) raises t2d R@10 over B0 (paper +0.102)", "B1", "B0", "t2d R@10", pr,
                same_sign(pr))
    pn = pv[("negate_auc", "B1")] - pv[("negate_auc", "B0")]
    delta_claim("B1_negate_up", "B1 raises negation AUC over B0 (paper +0.510)", "B1", "B0", "AUC negation", pn,
                same_sign(pn, min_magnitude=0.1))
if {"M1", "B3"} <= have:
    pn = pv[("negate_auc", "M1")] - pv[("negate_auc", "B3")]
    delta_claim("P3_hn_negation_auc", "P3: hard negatives raise negation AUC (M1 - B3; paper +0.456)", "M1", "B3",
                "AUC negation", pn, same_sign(pn, min_magnitude=0.1))
    d = per_seed("M1", "B3", "t2d R@10")
    ledger.claim("P3_hn_r10_small", "P3: ... without changing ranking: |t2d R@10 (M1) - R@10 (B3)| small "
                 "(paper |0.651 - 0.657| = 0.006)", 0.006, round(float(abs(d.mean())), 3), at_most(0.03, partly=0.06),
                 note=note(d))
    pt = pv[("type_swap_auc", "M1")] - pv[("type_swap_auc", "B3")]
    delta_claim("T4_type_swap", "type-swap AUC: M1 - B3 (paper 0.976 - 0.472 = +0.504)", "M1", "B3", "AUC type_swap",
                pt, same_sign(pt, min_magnitude=0.1))
    pp = pv[("pair_auc", "M1")] - pv[("pair_auc", "B3")]
    delta_claim("T3_pair_auc", "pair ROC-AUC: M1 - B3 (paper 0.961 - 0.769 = +0.192)", "M1", "B3", "pair AUC", pp,
                same_sign(pp, min_magnitude=0.05))
    pa = pv[("anisotropy", "M1")] - pv[("anisotropy", "B3")]
    delta_claim("T11_m1_vs_b3_aniso", "Table 11: M1 is less anisotropic than B3 (paper 0.015 - 0.166 = -0.151)",
                "M1", "B3", "anisotropy", pa, same_sign(pa))
    pe = pv[("effective_rank", "M1")] - pv[("effective_rank", "B3")]
    delta_claim("T11_m1_vs_b3_erank", "Table 11: M1 has a higher effective rank than B3 (paper +45.5)", "M1", "B3",
                "effective rank", pe, same_sign(pe))
if {"B1-unified", "B1"} <= have:
    delta_claim("unified_negate_drop", "B1-unified lowers negation AUC vs B1 (paper -0.182)", "B1-unified", "B1",
                "AUC negation", pv[("unified_delta_negate_auc", "B1-unified")],
                same_sign(pv[("unified_delta_negate_auc", "B1-unified")]))
    delta_claim("unified_r10", "B1-unified raises t2d R@10 vs B1 by a small amount (paper +0.012)", "B1-unified", "B1",
                "t2d R@10", pv[("unified_delta_r10", "B1-unified")], same_sign(pv[("unified_delta_r10", "B1-unified")]))
ran = [c for c in ["M2", "M3"] if c in mean_ft.index]
ledger.claim("m2_m3", "M2 (input-dependent gate) and M3 (deep supervision) + HN", "Tables 2-4", None,
             not_testable("the paper's M2/M3 values are not in the text we have" + (
                 f"; ours ({', '.join(ran)}, seed {cfg.seeds[0]} only) are in the table above" if ran else
                 f"; not run in the {cfg.profile} profile")))
ledger.claim("B2_cls", "B2 ([CLS] pooling + HN)", "Tables 2-4", None,
             not_testable("MiniLM was trained for mean pooling and has no pretrained [CLS] readout; left out"))
ledger.claim("mpnet_backbone", "fine-tuned results on all-mpnet-base-v2 (the paper's backbone)", "Tables 2-4, 11",
             None, not_testable("fine-tuning 12-layer mpnet does not fit the cpu budget; its frozen B0/B0-WM and "
                                "layer-wise analysis are in notebook 04"))
print(f"notebook wall time so far {time.perf_counter() - T0:.0f} s; per condition (train s, eval s):",
      {f"{k[0]} s{k[1]}": tuple(round(x) for x in v) for k, v in times.items()})

# %% [markdown]
# ## Closing note (cpu profile, executed)
#
# **Sizes and times.** all-MiniLM-L6-v2, one thread; in-domain split (10 % of synsets held out); evaluation on 500
# held-out concepts (1,748 rule-made hard negatives: antonym 409, negation 500, POS swap 500, prefix swap 27, type
# swap 312); training on 800 train synsets (44 % with a syn pair, 3.46 hard negatives each, at most 2 drawn per
# step); top layer only (`n_top = 1`), 150 steps × batch 16 per condition, LR 2e-4 (readout 1e-3), seeds 0, 1, 2
# (M2/M3: seed 0). Lower-layer precompute of 7,454 texts 53 s; 0.15–0.41 s per step; whole notebook 681 s.
# Deltas below are means over the three seeds (per-seed values in the ledger notes; the seeds agree to ±0.01).
#
# | principle / claim | ours | paper (mpnet, full fine-tuning) | sign | verdict |
# |---|---|---|---|---|
# | P2: layer-wise t2d MRR peaks at the last layer (frozen) | argmax = hidden state 6 of 6 | last layer | = | reproduced |
# | P2: B0-WM − B0 t2d R@10 | −0.120 (0.412 vs 0.532) | −0.160 (0.392 vs 0.552) | = | reproduced |
# | Table 11: B0-WM − B0 anisotropy / effective rank | +0.388 / −56.3 | +0.177 / −70 | = / = | reproduced |
# | frozen negation AUC below chance | 0.530 (above 0.5) | 0.470 | ≠ | not reproduced (both ≈ chance) |
# | P1: B1 − B0 anisotropy | **+0.182** (0.089 → 0.271) | −0.114 | ≠ | not reproduced |
# | P1: effective rank stays (B1/B0) | 0.931 | 1.001 | — | reproduced (within 10 %) |
# | B1 − B0 t2d R@10 | +0.079 | +0.102 | = | reproduced |
# | B1 − B0 negation AUC | +0.296 (0.530 → 0.826) | +0.510 | = | reproduced |
# | P3: M1 − B3 negation AUC (hard negatives) | +0.199 (0.533 → 0.731) | +0.456 | = | reproduced (smaller) |
# | P3: \|M1 − B3\| t2d R@10 | 0.001 | 0.006 | — | reproduced |
# | M1 − B3 type-swap AUC | 0.000 | +0.504 | — | not reproduced |
# | M1 − B3 pair AUC | +0.001 | +0.192 | = | partly (tiny) |
# | M1 − B3 anisotropy / effective rank | +0.016 / +2.3 | −0.151 / +45.5 | ≠ / = | not reproduced / reproduced |
# | B1-unified − B1 negation AUC | −0.120 | −0.182 | = | reproduced |
# | B1-unified − B1 t2d R@10 | +0.005 | +0.012 | = | reproduced |
#
# **Reading.** The frozen picture (P2, Table 11's B0 vs B0-WM) reproduces with the paper's signs even though K = 4
# covers two thirds of MiniLM's 6 layers (a third of mpnet's 12); notebook 04 repeats it on frozen mpnet. Hard
# negatives raise calibration on the rule they target (negation AUC +0.2 to +0.3) without moving ranking
# (|ΔR@10| ≤ 0.006), which is P3's shape at about half the paper's size after 150 top-layer steps. The type-swap
# and pair AUCs are already ≈ 0.90 for frozen MiniLM (the paper's B3 has 0.47 and 0.77), so there is little room
# for the +0.5 / +0.2 the paper reports. P1 does **not** reproduce: with the BCE term anisotropy *rises*
# (B1 +0.18, M2 0.31, M3 0.29), whereas B1-unified (hard negatives in the InfoNCE denominator, no BCE) leaves it
# where it was (0.070). The BCE logit's offset θ = 0.5 and scale τ = 0.05 are ours (the paper does not state them)
# and push every true definition above cosine 0.5, which plausibly lifts the mean cosine; with top-layer training
# only, the geometry can also move less freely than under full fine-tuning. The learned layer weights of B3/M1
# moved little (last layer 0.28, others 0.24 each), so B3 ≈ B0-WM plus a tuned top layer. M2 (gate) and M3 (deep
# supervision), seed 0 only: negation AUC 0.791 and 0.775, t2d R@10 0.608 and 0.586 — the paper's values for them
# are not in our text. B2 ([CLS]) was not run (MiniLM has no trained [CLS] readout).

# %%
ledger.table()

# %%
ledger.save()
show_provenance(ledger)
