r"""SimACE §3 without a language model (notebook ``simace/01``): the gradient identities of Eq. 6, the per-pair
forces inside the loss (Eq. 2–5) and the synthetic narrow-cone experiment.

* :func:`gradient_norms` — autograd gradient norms of the cosine and of the angle similarity
  :math:`\theta = \pi/2 - \arccos\cos` at prescribed angles, beside the closed forms
  :math:`\sin\phi/\|z\|` and :math:`1/\|z\|`;
* :func:`pull_grid`, :func:`push_grid`, :func:`plot_pair_forces` — :func:`~companion.losses.simace.pair_forces`
  over a grid of positive / negative angles, temperatures and margins (the §3.2 statements);
* :func:`make_data`, :class:`ConeMLP`, :func:`cone_geometry`, :func:`cone_run` — an MLP with dropout whose outputs
  start in a narrow cone, trained with SimCSE or SimACE on dropout views (beyond the paper: a mechanism check).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from companion.display import FIGURE_WIDTH_IN

#: the objectives whose pull :func:`pull_grid` compares (SimCSE has no margin)
PULL_OBJECTIVES = ("simcse", "arccon", "simace")
#: (objective, margin in degrees) of :func:`push_grid`
PUSH_SPECS = (("simcse", 0.0), ("simace", 10.0), ("simace", 0.0))


# --------------------------------------------------------------------------------------------- Eq. 6
def gradient_norms(angles_deg: Sequence[float], dim: int = 384, scale: float = 3.0, seed: int = 0):
    """Autograd against Eq. 6's identities at each angle of ``angles_deg`` (SimACE §3.1, Fig. 1b).

    For each angle, in order, from one generator (``seed``): a random ``z`` (``scale`` × standard normal in ``dim``
    dimensions) and a unit ``w`` at that angle from ``z``; returns one row per angle with ``|dcos/dz|`` and
    ``|dtheta/dz|`` (autograd, float64) beside ``sin(phi)/|z|`` and ``1/|z|``.
    """
    import pandas as pd

    from companion.similarities import cos_to_angle

    if dim < 2:
        raise ValueError(f"gradient_norms needs dim >= 2, got {dim}.")
    gen = torch.Generator().manual_seed(seed)
    rows = []
    for target in angles_deg:
        z = scale * torch.randn(dim, generator=gen, dtype=torch.float64)
        u = F.normalize(z, dim=0)
        v = torch.randn(dim, generator=gen, dtype=torch.float64)
        v = F.normalize(v - (v @ u) * u, dim=0)  # unit vector orthogonal to z
        w = math.cos(math.radians(target)) * u + math.sin(math.radians(target)) * v
        zz = z.clone().requires_grad_(True)
        cos = F.cosine_similarity(zz, w, dim=0)
        (gc,) = torch.autograd.grad(cos, zz, retain_graph=True)
        (gt,) = torch.autograd.grad(cos_to_angle(cos, eps=0.0), zz)
        rows.append({"angle": target, "|dcos/dz|": float(gc.norm()),
                     "sin(phi)/|z|": math.sin(math.radians(target)) / float(z.norm()),
                     "|dtheta/dz|": float(gt.norm()), "1/|z|": 1 / float(z.norm())})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------- §3.2 forces
def pull_grid(taus: Sequence[float], margins: Sequence[float], positive_angles: Sequence[float],
              negatives_at: Sequence[float] = (30.0, 80.0), n_negatives: int = 63):
    """Pull on the positive, :math:`|\\partial\\ell/\\partial\\phi_{ii'}|`, for one anchor with ``n_negatives``
    in-batch negatives all at one angle (each of ``negatives_at``, degrees) and the positive at each of
    ``positive_angles`` (radians): SimCSE (no margin), ArcCon and SimACE with each margin of ``margins`` (degrees),
    at each temperature. One row per point: ``negatives at, tau, objective, margin, positive angle`` (degrees),
    ``pull``."""
    import pandas as pd

    from companion.losses.simace import pair_forces

    rows = []
    for neg_angle in negatives_at:
        neg = torch.full((n_negatives,), math.radians(neg_angle), dtype=torch.float64)
        for tau in taus:
            for obj, ms in ((obj, (0.0,) if obj == "simcse" else tuple(margins)) for obj in PULL_OBJECTIVES):
                for m in ms:
                    for p in positive_angles:
                        pull, _ = pair_forces(float(p), neg, obj, tau, m)
                        rows.append({"negatives at": f"{neg_angle:.0f}°", "tau": tau, "objective": obj, "margin": m,
                                     "positive angle": math.degrees(p), "pull": float(pull)})
    return pd.DataFrame(rows)


def push_grid(taus: Sequence[float], probe_angles: Sequence[float], specs: Sequence[tuple[str, float]] = PUSH_SPECS,
              positive_deg: float = 20.0, others_deg: float = 80.0, n_others: int = 62):
    """Push on one probe negative, :math:`|\\partial\\ell/\\partial\\phi_{ij'}|`, at each of ``probe_angles``
    (radians), the positive at ``positive_deg`` and ``n_others`` further negatives at ``others_deg``, for each
    ``(objective, margin)`` of ``specs`` and temperature. One row per point: ``tau, objective, margin,
    negative angle`` (degrees), ``push``."""
    import pandas as pd

    from companion.losses.simace import pair_forces

    rows = []
    for tau in taus:
        for obj, m in specs:
            for q in probe_angles:
                neg = torch.tensor([q] + [math.radians(others_deg)] * n_others, dtype=torch.float64)
                _, push = pair_forces(math.radians(positive_deg), neg, obj, tau, m)
                rows.append({"tau": tau, "objective": obj, "margin": m, "negative angle": math.degrees(q),
                             "push": float(push[0])})
    return pd.DataFrame(rows)


def plot_pair_forces(pulls, pushes, tau: float = 0.05):
    """Three panels at temperature ``tau``: the pull with negatives at 30° and at 80° (:func:`pull_grid`) and the
    push on one probe negative (:func:`push_grid`), log scale."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(FIGURE_WIDTH_IN - 0.5, 3.6))  # room for the labels the tight crop keeps
    for ax, neg_angle in zip(axes[:2], ("30°", "80°")):
        sub = pulls[(pulls["negatives at"] == neg_angle) & (pulls.tau == tau)]
        for (obj, m), g in sub.groupby(["objective", "margin"]):
            ax.plot(g["positive angle"], g["pull"], label=f"{obj} m={m:+.0f}°", ls="-" if obj == "simace" else "--")
        ax.set(yscale="log", xlabel="positive angle φ_ii' (degrees)", ylabel="pull |∂ℓ/∂φ_ii'|",
               title=f"pull on the positive,\nnegatives at {neg_angle}, τ = {tau}")
    axes[0].legend(fontsize=8, ncol=2)
    for (obj, m, t), g in pushes.groupby(["objective", "margin", "tau"]):
        if t == tau:
            axes[2].plot(g["negative angle"], g["push"], label=f"{obj} m={m:+.0f}°")
    axes[2].set(yscale="log", xlabel="angle of the probe negative (degrees)", ylabel="push |∂ℓ/∂φ_ij'|",
                title=f"push on one negative\n(positive at 20°), τ = {tau}", xticks=range(0, 181, 30))
    axes[2].legend(fontsize=8)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------- the narrow cone
def make_data(n: int, n_clusters: int, dim_in: int, seed: int = 1234) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` points from ``n_clusters`` Gaussian clusters in ``dim_in`` dimensions (centres 3 × standard normal,
    unit noise), drawn from one generator (``seed``); returns ``(points, cluster labels)``."""
    if n < 1 or n_clusters < 1 or dim_in < 1:
        raise ValueError(f"make_data needs n, n_clusters, dim_in >= 1, got {n}, {n_clusters}, {dim_in}.")
    g = torch.Generator().manual_seed(seed)
    centres = 3.0 * torch.randn(n_clusters, dim_in, generator=g)
    labels = torch.randint(0, n_clusters, (n,), generator=g)
    return centres[labels] + torch.randn(n, dim_in, generator=g), labels


class ConeMLP(nn.Module):
    """Linear(dim_in, 128) → ReLU → Dropout → Linear(128, dim_out) whose output bias is a shared random vector of
    norm ``bias``, so that every output starts in a narrow cone (the anisotropic start of a pretrained language
    model, SimACE §3). Initialised from torch's global RNG (seed it first)."""

    def __init__(self, dim_in: int, dim_out: int, dropout: float, bias: float, hidden: int = 128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim_in, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, dim_out))
        with torch.no_grad():
            shared = torch.randn(dim_out)
            self.net[-1].bias.copy_(bias * shared / shared.norm())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def cone_geometry(embed: Callable[[Sequence[str]], torch.Tensor], model: nn.Module, probe: Sequence[str]
                  ) -> dict[str, float]:
    """What the cone experiment logs on a fixed probe: the positive and mean negative angle of two training-mode
    views (:func:`~companion.papers.simace.runs.view_geometry`), ``align`` (Wang & Isola's alignment of two
    training-mode views) and ``uniform`` (uniformity of the eval-mode outputs). Leaves ``model`` in eval mode."""
    from companion.metrics.geometry import alignment, uniformity
    from companion.papers.simace.runs import view_geometry

    out = view_geometry(embed, model, probe)
    model.train()
    with torch.no_grad():
        z1, z2 = embed(probe), embed(probe)
    model.eval()
    with torch.no_grad():
        ze = embed(probe)
    return {**out, "align": alignment(z1, z2), "uniform": uniformity(ze)}


def cone_run(x: torch.Tensor, objective: str, seed: int, *, model_args: dict, tau: float, margin_deg: float,
             steps: int, batch_size: int, lr: float, log_every: int, n_probe: int = 256):
    """One run of the cone experiment: seed everything, build :class:`ConeMLP` (``model_args``), train it on
    dropout views of the rows of ``x`` (:func:`~companion.papers.simace.runs.train_dropout_views`, Adam at constant
    ``lr``, no clipping) and log :func:`cone_geometry` on the first ``n_probe`` rows at step 0 and every
    ``log_every`` steps. Returns the log as a DataFrame with ``step``, the logged quantities, ``seed`` and
    ``objective``."""
    import pandas as pd

    from companion.papers.simace.runs import train_dropout_views
    from companion.training import seed_everything

    if n_probe > len(x):
        raise ValueError(f"n_probe ({n_probe}) exceeds the number of points ({len(x)}).")
    probe_idx = [str(i) for i in range(n_probe)]
    seed_everything(seed)
    model = ConeMLP(**model_args)
    embed = lambda keys: model(x[[int(k) for k in keys]])  # noqa: E731
    log = lambda step: cone_geometry(embed, model, probe_idx)  # noqa: E731
    start = {"step": 0, **log(0)}
    result = train_dropout_views(model, embed, [str(i) for i in range(len(x))], objective, tau, margin_deg, steps,
                                 batch_size, lr, seed, log_fn=log, log_every=log_every, max_grad_norm=None,
                                 schedule="constant")
    hist = pd.DataFrame([start] + [h for h in result.history if "pos_angle" in h])
    hist["seed"], hist["objective"] = seed, objective
    return hist

