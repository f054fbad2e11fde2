"""The run settings of the cross-paper notebooks, in one place: every profile's values of each notebook.

``02-entropic-yardstick`` reads two sets of settings: its own (:data:`ENTROPIC_YARDSTICK`: the free-vector problems
and the Emolit heads, trained as ``circumplex/02`` trains them) and the SimACE runs it reloads from ``simace/02``'s
run cache (:data:`SIMACE_RUNS`: SimACE's shared run settings, unchanged, since the cache is keyed by them). A
notebook reads its own :class:`companion.profiles.Profiles` (``cfg = ERRATA(profile, gpu_grid=gpu_grid,
seeds=seeds)``).
"""

from __future__ import annotations

import math

from companion.papers.circumplex.heads import CLIP_NORM, paper_pooling
from companion.papers.simace.settings import with_runs
from companion.profiles import Profiles

ERRATA = Profiles(
    "synthesis/00-errata",
    smoke=dict(seeds=[0], lbfgs_steps=60, n_pairs=64, per_class=3, toy_steps=40),
    cpu=dict(seeds=[0, 1, 2], lbfgs_steps=3000, n_pairs=2000, per_class=3, toy_steps=200),
    # gpu = cpu: closed forms and free-vector optimisations (no backbone), already at full scale
    gpu=dict(seeds=[0, 1, 2], lbfgs_steps=3000, n_pairs=2000, per_class=3, toy_steps=200),
    common=dict(n_classes=10, eps=math.exp(-1), half_dim=16),
)

SIMILARITY_ZOO = Profiles(
    "synthesis/01-similarity-zoo",
    smoke=dict(seeds=[0, 1], steps=3, batch_size=24, model="tiny-bert", n_top=1, n_pairs=8, n_dev=16,
               n_sample=24, emolit_per_label=3, max_length=32, eval_max_length=32),
    cpu=dict(seeds=[0, 1, 2, 3, 4], steps=30, batch_size=48, model="sentence-transformers/all-MiniLM-L6-v2",
             n_top=1, n_pairs=150, n_dev=None, n_sample=1000, emolit_per_label=None, max_length=32,
             eval_max_length=128),
    # gpu: one shared encoder for every objective (the zoo compares objectives, not backbones; no paper
    # trains them all), so all-MiniLM-L6-v2 stays, with all 6 layers, more steps and five seeds
    gpu=dict(seeds=[0, 1, 2, 3, 4], steps=1000, batch_size=48,
             model="sentence-transformers/all-MiniLM-L6-v2", n_top=6, n_pairs=None, n_dev=None,
             n_sample=3000, emolit_per_label=None, max_length=32, eval_max_length=128),
    common=dict(lr=1e-4, dropout=0.1, pooling="mean", threads=1),
)

ENTROPIC_YARDSTICK = Profiles(
    "synthesis/02-entropic-yardstick",
    smoke=dict(seeds=[42], free_seeds=[0], free_steps=40, steps_emolit=2, batch_size=24, n_train=4,
               n_test=2, model="tiny-bert", head_dim=0, max_tokens=16, lr=2e-3, n_heads=2, n_held_out=20,
               pooling=paper_pooling("bert-like")),
    cpu=dict(seeds=[42, 43, 44], free_seeds=[0, 1, 2], free_steps=500, steps_emolit=705, batch_size=128,
             n_train=None, n_test=None, model="sentence-transformers/all-MiniLM-L6-v2", head_dim=64,
             max_tokens=32, lr=3e-3, n_heads=4, n_held_out=200, pooling=paper_pooling("bert-like")),
    # gpu: the heads of circumplex/02's gpu profile (mE5-large, App. D Table 3) and simace/02's paper-scale
    # runs (BERT-base, Table 7); the free-vector problems only get more initialisations
    gpu=dict(seeds=[42, 43, 44], free_seeds=[0, 1, 2, 3, 4], free_steps=1000, steps_emolit=705,
             batch_size=128, n_train=None, n_test=None, model="intfloat/multilingual-e5-large", head_dim=0,
             max_tokens=64, lr=5e-5, n_heads=16, n_held_out=1000,
             pooling=paper_pooling("intfloat/multilingual-e5-large")),
    # pooling, base_scale, clip_norm: how circumplex/02 trains its heads (its saved heads are reused only
    # when trained with the same settings)
    common=dict(threads=1, base_scale="backbone", clip_norm=CLIP_NORM),
)

#: notebook 02's second set of settings: the SimACE runs it reloads (simace/02's run settings, no additions)
SIMACE_RUNS = with_runs("synthesis/02-entropic-yardstick")

#: every cross-paper notebook's settings, by ``<paper>/<stem>`` (notebook 02's SimACE runs apart: :data:`SIMACE_RUNS`)
NOTEBOOKS: dict[str, Profiles] = {p.notebook: p for p in (ERRATA, SIMILARITY_ZOO, ENTROPIC_YARDSTICK)}
