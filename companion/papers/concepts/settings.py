"""The run settings of the concept notebooks, in one place: every profile's values of each notebook, notebook 03's
second regime on all-mpnet-base-v2 (:data:`MPNET_REGIME`), and the gpu profile's settings table, every choice with
its source (:class:`companion.gpu_settings.Row`).

A notebook reads its own :class:`companion.profiles.Profiles` (``cfg = PRINCIPLES(profile, gpu_grid=gpu_grid,
seeds=seeds, steps=steps)``). Notebook 04 reloads notebook 03's B1 runs, whose cached weights are looked up by the
recipe its settings give (:func:`companion.papers.concepts.finetune.top_layer_recipe`): the B1 recipe's settings of
:data:`MODIFIER_FAMILIES` keep in step with :data:`PRINCIPLES`.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from companion.gpu_settings import Row, clipping, optimiser, precision
from companion.papers.concepts.backbone import MPNET, REGIME_CONDITIONS
from companion.papers.concepts.finetune import GPU_RECIPE
from companion.papers.concepts.readouts import train_concept_model
from companion.profiles import Profiles, stand_in

# ------------------------------------------------------------------------------------ the gpu settings table
_LR_REASON = ("not stated in the text (App. E's Table 9 lost its body); the cpu value, raised for short "
                      "top-layer runs, is kept: a likely departure")


def _default(name: str) -> Any:
    return inspect.signature(train_concept_model).parameters[name].default


def _layers(cfg: Mapping) -> str:
    if cfg.get("profile") == "gpu":
        if GPU_RECIPE.get("train_embeddings"):
            return f"all {cfg['n_top']} layers, the embedding layer and MPNet's relative-position table"
    return f"top {cfg['n_top']} layer(s) over frozen, cached lower states; embeddings frozen"


def _objective(cfg: Mapping) -> str:
    d2d = False
    if cfg.get("profile") == "gpu":
        d2d = bool(GPU_RECIPE.get("d2d"))
    return ("L_syn + L_t2d" + (" + 0.7 L_d2d (WordNet-only definition pairs)" if d2d else "") +
            " (in-batch InfoNCE) + 0.5 L_neg (BCE on rule-made hard negatives)")


TRAINING_ROWS: tuple[Row, ...] = (
    Row("backbone", "model", "Table 1 caption (all-mpnet-base-v2)"),
    Row("layers trained", _layers, "§4.4 (layer-wise decay per transformer layer over the whole network; "
        "Fig. 2's bi-encoder layers 1-12)", keys=("n_top",)),
    Row("readouts (conditions)", lambda cfg: ", ".join(cfg.get("conditions", [])) or "B1 (for the modifier "
        "families)", "Table 1 and §4.2, §5.3 (B1, B2, B3, M1, M2, M3, B1-unified; M1-K6 §5.3's wider window)",
        keys=("conditions",)),
    Row("readout window K", "k", "Table 1 caption (K = 4)"),
    Row("objective", _objective, "§4.3 (L_syn + L_t2d + 0.7 L_d2d + 0.5 L_neg); §4.5 (d2d pairs: a term's "
        "definitions grouped, up to 6 per term)",
        "the d2d pairs are WordNet-only: a row's definition with another WordNet sense's definition of the same term "
        "(often a different sense), where the paper pairs definitions across WordNet and Wiktionary; the cpu recipe "
        "leaves the term out (its short top-layer runs and their records stay as they were)"),
    Row("temperature", "tau", "", "not found in the text; SimCSE's 0.05"),
    Row("training data", lambda cfg: f"{cfg['n_train']:,} WordNet synsets (term, masked definition, one synonym "
        "pair, the hard negatives)", "§4.5 (3.3M WordNet and Wiktionary pairs; headword masking)",
        "WordNet only: Wiktionary (590K syn + 2.2M t2d of the 3.3M pairs) is not in the data mirror and no fetch of "
        "a Wiktionary dump is wired, so its pairs and the cross-source d2d pairs are out", keys=("n_train",)),
    Row("hard negatives per definition", lambda cfg: "all five rules" if cfg.get("max_negatives") is None else
        f"at most {cfg['max_negatives']}", "App. G (five rules)", keys=("max_negatives",)),
    Row("length", "max_length", "", "not stated in the text; 64 tokens, at training and at evaluation"),
    Row("optimiser", optimiser(lambda: _default("weight_decay")), "§4.4 (AdamW)",
        "weight decay not stated in the text: train_concept_model's default"),
    Row("learning rate", "lr", "", _LR_REASON),
    Row("layer-wise decay", "layer_decay", "§4.4 (0.90 per transformer layer)"),
    Row("readout learning rate", "pooling_lr_mult", "§4.4 (5x the base rate)"),
    Row("schedule and warm-up", lambda cfg: f"linear warm-up over {round(cfg['warmup_frac'] * cfg['steps'])} steps, "
        "then linear decay to 0", "§4.4 (100 warm-up steps, linear decay to zero)", keys=("warmup_frac",)),
    Row("gradient clipping", clipping, "", "not stated in the text: the training loop's default"),
    Row("batch size", "batch", "Table 1 caption (batch 16)"),
    Row("steps", "steps", "Table 1 caption (8k steps)"),
    Row("seeds", "seeds", "Limitations ('single seed')", "three seeds here for a spread"),
    Row("precision", precision, "", "not stated in the text"),
    Row("CPU threads", "threads", "", "not a training setting"),
)

ROWS_03: tuple[Row, ...] = (
    Row("in-domain evaluation pool", "n_rows", "§4.5 (10 % of synsets held out)",
        "pool size not stated (absolute R@10 is not comparable, within-run differences are)"),
    Row("HH and SH-proxy pools", "n_split_rows", "§4.5 (head-holdout, source-holdout)",
        "SH is a proxy: lexicographer files held out (the paper's SH trains on Wiktionary)"),
    Row("P1 curves", lambda cfg: f"{cfg['p1_steps']} steps on {cfg['p1_n_train']:,} synsets, every "
        f"{cfg['p1_every']} steps", "§5 (P1)", "the curves are the 8k-step runs themselves",
        keys=("p1_steps", "p1_every", "p1_n_train")),
    Row("claim curves", lambda cfg: f"every condition's claim metrics scored {cfg['curve_points']} times along "
        "training", "", "ours, for the plateau check of each claim's own quantity; nothing is selected on it",
        keys=("curve_points",)),
    Row("§5.1's earlier layers (P2)", lambda cfg: f"B1 with its top {cfg['p2_n_top']} layer(s) trained",
        "§5.1 (P2)", "on the gpu path every layer is trained already",
        keys=("p2_n_top",)),
)

ROWS_04: tuple[Row, ...] = (
    Row("NP paraphrase items per family", "per_family", "App. I (4,000-item pool)"),
    Row("frozen-backbone analyses", "backbone", "Table 1 caption", keys=("backbone", "n_backbone_rows")),
    Row("epsilon-compositionality samples", lambda cfg: f"{cfg['per_kind']} per kind, {cfg['eps_per_item']} per item, "
        f"{cfg['n_definitions']} definitions", "§3 (ε_τ)", "sample sizes not stated",
        keys=("per_kind", "eps_per_item", "n_definitions")),
)


# ------------------------------------------------------------------------------------------------- the notebooks
COMPOSITIONALITY = Profiles(
    "concepts/01-representational-compositionality",
    smoke=dict(seeds=[0], n_draws=50, n_texts=16, toy_steps=20, toy_n=256),
    cpu=dict(seeds=[0, 1, 2], n_draws=2000, n_texts=300, toy_steps=400, toy_n=2048),
    # gpu: the paper's shared backbone all-mpnet-base-v2 (Table 1 caption, App. A); the toy model has
    # no backbone and keeps the cpu scale
    gpu=dict(seeds=[0, 1, 2], n_draws=2000, n_texts=2000, toy_steps=400, toy_n=2048,
             model="sentence-transformers/all-mpnet-base-v2"),
    common=dict(k=4, toy_d=32, toy_m=64, toy_batch=256, tau=0.1,
                model="sentence-transformers/all-MiniLM-L6-v2"),
)

DATA_AND_HARD_NEGATIVES = Profiles(
    "concepts/02-data-and-hard-negatives",
    smoke=dict(seeds=[0], n_rows=30, rebuild=True, leak_sample=3000),
    cpu=dict(seeds=[0], n_rows=800, rebuild=True, leak_sample=None),
    # gpu: data statistics at a larger sample, embedded with the paper's backbone all-mpnet-base-v2
    # (Table 1 caption, App. A); the data are built by rule (§3, App. B): nothing else to scale
    gpu=dict(seeds=[0], n_rows=20000, rebuild=True, leak_sample=None,
             model="sentence-transformers/all-mpnet-base-v2"),
    common=dict(test_frac=0.1, head_frac=0.05, model="sentence-transformers/all-MiniLM-L6-v2"),
)

#: the conditions notebook 03 trains (§5, App. F and H)
CONDITIONS_03 = ["B1", "B2", "B3", "M1", "M1-K6", "M2", "M3", "B1-unified"]

PRINCIPLES = Profiles(
    "concepts/03-principles",
    smoke=dict(seeds=[0], n_rows=24, n_split_rows=24, n_train=48, steps=2, n_top=1, conditions=CONDITIONS_03,
               threads=2, max_negatives=None, p1_steps=4, p1_every=2, p1_n_train=48, p2_n_top=2),
    # cpu: 600 steps (was 150), the length at which the P1 runs' curves pass their plateau check (set before the run)
    cpu=dict(seeds=[0, 1, 2], n_rows=500, n_split_rows=300, n_train=800, steps=600, n_top=1,
             conditions=CONDITIONS_03, threads=1, max_negatives=2, p1_steps=600, p1_every=50, p1_n_train=1600,
             p2_n_top=3),
    # gpu: all-mpnet-base-v2, 8k steps x batch 16 (Table 1 caption), all 12 layers fine-tuned with the
    # layer-wise lr decay 0.9 and 100 warm-up steps (§4.4); the paper uses one seed (Limitations, 'Single seed'),
    # three here; the P1 curves then are the 8k-step runs themselves
    gpu=dict(seeds=[0, 1, 2], n_rows=5000, n_split_rows=2000, n_train=100_000, steps=8000, n_top=12,
             conditions=CONDITIONS_03, threads=8, max_negatives=None, p1_steps=8000, p1_every=500,
             p1_n_train=100_000, p2_n_top=12, model="sentence-transformers/all-mpnet-base-v2"),
    # curve_points: every condition scores the claims' metrics this many times along training (the curves of
    # their plateau checks)
    common=dict(k=4, batch=16, lr=2e-4, pooling_lr_mult=5.0, layer_decay=0.9, warmup_frac=100 / 8000,
                tau=0.05, max_length=64, model="sentence-transformers/all-MiniLM-L6-v2", curve_points=8),
    grid_reason="the same grid in both: three seeds (the paper: one) and the paper's 8k steps; by our cpu run's "
    "paired spread every graded difference but three needs two or three seeds (companion.stats.mde at 80 % power); "
    "the three (P3's R@10 change, M2 against B1, B1-unified's R@10) need six or more, which no affordable grid gives",
    rows=TRAINING_ROWS + ROWS_03,
)

#: notebook 03's second regime (section 7): the paper's backbone all-mpnet-base-v2, its top layers trained over
#: cached lower states (:mod:`companion.papers.concepts.backbone`). smoke: a tiny random 12-layer MPNet
#: (:func:`companion.profiles.stand_in`) for two steps; cpu: about 30 minutes of one core measured at about 2.3 s a
#: step (top two layers, 7 conditions x 3 seeds x 30 steps, and the lower-layer pass over every text once); gpu:
#: nothing (the gpu profile's main regime already is the paper's backbone, all layers, 8k steps).
MPNET_REGIME = Profiles(
    "concepts/03-principles",
    smoke=dict(model=stand_in(MPNET), seeds=[0], n_rows=24, n_split_rows=24, n_train=48, steps=2,
               n_top=2, p1_every=1),
    cpu=dict(model=MPNET, seeds=[0, 1, 2], n_rows=300, n_split_rows=150, n_train=400, steps=30,
             n_top=2, p1_every=6),
    gpu=dict(model=None, seeds=[0], n_rows=0, n_split_rows=0, n_train=0, steps=0, n_top=0,
             p1_every=0),
    common=dict(conditions=list(REGIME_CONDITIONS), k=4, max_length=64, max_negatives=2),
)

#: notebook 04: the B1 recipe of notebook 03 (keep in step with it: the cached weights are looked up by it)
MODIFIER_FAMILIES = Profiles(
    "concepts/04-modifier-families",
    smoke=dict(seeds=[0], per_family=6, n_train=48, steps=2, threads=2, backbone="all-mpnet-base-v2",
               max_negatives=None, n_backbone_rows=20, per_kind=1, eps_per_item=1, n_definitions=40),
    cpu=dict(seeds=[0, 1, 2], per_family=None, n_train=800, steps=600, threads=1,
             backbone="all-mpnet-base-v2", max_negatives=2, n_backbone_rows=300, per_kind=2,
             eps_per_item=5, n_definitions=1536),
    # gpu: all-mpnet-base-v2, 8k steps x batch 16 (Table 1 caption), all 12 layers (§4.4); one seed in
    # the paper, three here
    gpu=dict(seeds=[0, 1, 2], per_family=None, n_train=100_000, steps=8000, threads=8,
             backbone="all-mpnet-base-v2", max_negatives=None, n_backbone_rows=2000, n_top=12,
             per_kind=2, eps_per_item=5, n_definitions=4000,
             model="sentence-transformers/all-mpnet-base-v2"),
    common=dict(k=4, n_top=1, batch=16, lr=2e-4, pooling_lr_mult=5.0, layer_decay=0.9,
                warmup_frac=100 / 8000, tau=0.05, max_length=64,
                model="sentence-transformers/all-MiniLM-L6-v2"),
    grid_reason="the same grid in both: three seeds, notebook 03's B1 runs reloaded; the P4 family differences need "
    "two or three seeds by our cpu run's paired spread (companion.stats.mde at 80 % power)",
    rows=TRAINING_ROWS + ROWS_04,
)

#: every concept notebook's settings, by ``<paper>/<stem>`` (notebook 03's second regime apart: :data:`MPNET_REGIME`)
NOTEBOOKS: dict[str, Profiles] = {p.notebook: p for p in (COMPOSITIONALITY, DATA_AND_HARD_NEGATIVES, PRINCIPLES,
                                                           MODIFIER_FAMILIES)}
