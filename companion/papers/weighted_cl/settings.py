"""The run settings of the weighted contrastive learning notebooks, in one place: every profile's values of each
notebook. None trains a text backbone of the paper (free embeddings, closed forms, small digit networks), so none
has a gpu settings table; their gpu profile keeps the cpu scale or adds seeds and points.

A notebook reads its own :class:`companion.profiles.Profiles` (``cfg = REGRESSION(profile, gpu_grid=gpu_grid,
seeds=seeds, steps=steps)``).
"""

from __future__ import annotations

from companion.profiles import Profiles

ENTROPIC_BOUND = Profiles(
    "weighted-cl/01-entropic-bound-and-geometry",
    smoke=dict(seeds=[0], lbfgs_steps=15, n_random=20, n_points=10, ratios=[0.6, 1.3], n_euclid=1, taus=[0.5]),
    cpu=dict(seeds=[0, 1, 2, 3, 4], lbfgs_steps=3000, n_random=2000, n_points=15,
             ratios=[0.5, 0.7, 0.85, 0.95, 1.0, 1.05, 1.15, 1.3, 1.5], n_euclid=5, taus=[0.2, 0.5, 1.0]),
    # gpu = cpu: free embeddings optimised by L-BFGS (the theorems of §3; no network), already at full scale
    gpu=dict(seeds=[0, 1, 2, 3, 4], lbfgs_steps=3000, n_random=2000, n_points=15,
             ratios=[0.5, 0.7, 0.85, 0.95, 1.0, 1.05, 1.15, 1.3, 1.5], n_euclid=5, taus=[0.2, 0.5, 1.0]),
)

SUPERVISED = Profiles(
    "weighted-cl/02-supervised-contrastive-geometry",
    smoke=dict(seeds=[0], lbfgs_steps=15, annotate=False, Cs=[3], taus=[0.5], per_class=5, adam_steps=30, base=2,
               ratios=[1, 10], soft_taus=[0.9, 10 / 9]),
    cpu=dict(seeds=[0, 1, 2], lbfgs_steps=3000, annotate=True, Cs=[3, 4, 10], taus=[0.1, 0.5], per_class=5,
             adam_steps=20000, base=5, ratios=[1, 2, 3, 5, 7, 10], soft_taus=[0.5, 0.9, 10 / 9]),
    # gpu = cpu: free embeddings as in §4.2 (App. F Table 2: no network, Adam lr 5e-2, full batch, hard tau 0.1,
    # d = C = 10), already at the paper's scale
    gpu=dict(seeds=[0, 1, 2], lbfgs_steps=3000, annotate=True, Cs=[3, 4, 10], taus=[0.1, 0.5], per_class=5,
             adam_steps=20000, base=5, ratios=[1, 2, 3, 5, 7, 10], soft_taus=[0.5, 0.9, 10 / 9]),
    common=dict(adam_lr=5e-2, hard_tau=0.1, dim=10),
)

REGRESSION = Profiles(
    "weighted-cl/03-regression-geometry",
    smoke=dict(seeds=[0, 1], lbfgs_steps=15, n_images=400, n_free=12, steps=3, qs=[5, 8, 9, 10], batch=64,
               n_test=100, sweep=[0.5, 1.5], mixed_qs=[2, 10, 11, 12]),
    # cpu: 1,200 steps (was 400): at 400 the trained curves still moved; set and registered before the run
    cpu=dict(seeds=[0, 1, 2, 3, 4], lbfgs_steps=3000, n_images=None, n_free=30, steps=1200,
             qs=list(range(5, 13)), batch=512, n_test=597,
             sweep=[0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.5, 2.0, 3.0], mixed_qs=[2] + list(range(7, 14))),
    # gpu: §4.1/§4.3 (App. F Table 2): 3-layer ConvNet on MNIST, Adam lr 1e-3, wd 2e-6, batch 512, d in 5..12;
    # here a small net on all scikit-learn digits (no MNIST in the mirror), 3000 steps, five seeds
    gpu=dict(seeds=[0, 1, 2, 3, 4], lbfgs_steps=3000, n_images=None, n_free=30, steps=3000,
             qs=list(range(5, 13)), batch=512, n_test=597,
             sweep=[0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.5, 2.0, 3.0], mixed_qs=[2] + list(range(7, 14))),
    common=dict(lr=1e-3, weight_decay=2e-6, hidden=256),
)

METRICS = Profiles(
    "weighted-cl/04-metrics-and-appendices",
    smoke=dict(seeds=[0], lbfgs_steps=15, per_class=2, n_classes=20, xclr_dim=32, n_digits=120,
               noise=[0.0, 0.5], t1_seeds=[0, 1], t1_steps=3, t1_images=400, batch=64, fig7_qs=[8, 48],
               fig7_seeds=[0, 1]),
    cpu=dict(seeds=[0], lbfgs_steps=3000, per_class=3, n_classes=100, xclr_dim=128, n_digits=300,
             noise=[0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0], t1_seeds=[0, 1, 2, 3, 4], t1_steps=400,
             t1_images=None, batch=512, fig7_qs=[8, 16, 32, 48, 64], fig7_seeds=[0, 1, 2, 3, 4]),
    # gpu: App. E's X-CLR runs train a ResNet-50 on CIFAR-100 for 150 epochs (App. F Table 2), not a text
    # backbone; the text metric check keeps all-MiniLM-L6-v2, with more digits and seeds
    gpu=dict(seeds=[0, 1, 2], lbfgs_steps=3000, per_class=3, n_classes=100, xclr_dim=128, n_digits=600,
             noise=[0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0], t1_seeds=[0, 1, 2, 3, 4], t1_steps=400,
             t1_images=None, batch=512, fig7_qs=[8, 16, 32, 48, 64], fig7_seeds=[0, 1, 2, 3, 4]),
    common=dict(tau=0.05, tau_prime=0.1, model="sentence-transformers/all-MiniLM-L6-v2", t1_q=32, lr=1e-3,
                weight_decay=2e-6, hidden=256),
)

#: every weighted-cl notebook's settings, by ``<paper>/<stem>``
NOTEBOOKS: dict[str, Profiles] = {p.notebook: p for p in (ENTROPIC_BOUND, SUPERVISED, REGRESSION, METRICS)}
