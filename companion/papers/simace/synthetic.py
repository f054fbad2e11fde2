r"""SimACE §3 without a language model (notebook ``simace/01``): the gradient identities of Eq. 6, the per-pair
forces inside the loss (Eq. 2–5) and the synthetic narrow-cone experiment.

§3's gradient argument (Eq. 2-6): with :math:`k_{ij}` the logits and :math:`\lambda_{ij}` their row softmax,
:math:`\partial \ell_i/\partial k_{ij} = \lambda_{ij} - \delta_{ij}` (:func:`softmax_gradient`); the chain rule then
multiplies by :math:`\partial k/\partial z`: for the cosine :math:`\|\partial\cos/\partial z\| = \sin\phi/\|z\|`
vanishes at small and large angles, for the angle :math:`\|\partial\theta/\partial z\| = 1/\|z\|` does not
(:func:`similarity_derivative`, :func:`pair_forces`).

* :func:`softmax_gradient`, :func:`similarity_derivative` — Eq. 2-5's softmax gradient and Fig. 1b's derivatives;
  :func:`closed_form_orthogonal` — the loss with every negative orthogonal;
* :func:`gradient_norms` — autograd gradient norms of the cosine and of the angle similarity
  :math:`\theta = \pi/2 - \arccos\cos` at prescribed angles, beside the closed forms
  :math:`\sin\phi/\|z\|` and :math:`1/\|z\|`;
* :func:`pair_forces` — the pull on one positive and the push on each negative, through the losses' own logits
  (:func:`companion.losses.simace.logits_from_angles`); :func:`pull_grid`, :func:`push_grid`,
  :func:`plot_pair_forces` — :func:`pair_forces` over a grid of positive / negative angles, temperatures and
  margins (the §3.2 statements);
* :func:`make_data`, :class:`ConeMLP`, :func:`cone_geometry`, :func:`cone_run` — an MLP with dropout whose outputs
  start in a narrow cone, trained with SimCSE or SimACE on dropout views (beyond the paper: a mechanism check).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from companion._checks import check_temperature
from companion.display import FIGURE_WIDTH_IN
from companion.dropout_views import train_dropout_views, view_geometry
from companion.losses.simace import check_margin, logits_from_angles
from companion.metrics.geometry import alignment, uniformity
from companion.similarities import cos_to_angle
from companion.training import seed_everything

#: the objectives whose pull :func:`pull_grid` compares (SimCSE has no margin)
PULL_OBJECTIVES = ("simcse", "arccon", "simace")
#: (objective, margin in degrees) of :func:`push_grid`
PUSH_SPECS = (("simcse", 0.0), ("simace", 10.0), ("simace", 0.0))


# --------------------------------------------------------------------------------------------- Eq. 2-6
def softmax_gradient(logits: torch.Tensor) -> torch.Tensor:
    r"""SimACE Eq. 2-5: :math:`\partial\ell_i/\partial k_{ij} = \lambda_{ij} - \delta_{ij}` for
    :math:`\ell_i = -\log\mathrm{softmax}_j(k_{ij})|_{j=i}`, with :math:`\lambda` the row softmax of the ``N x N``
    logits (positives on the diagonal). Each row sums to 0: the pull on the positive equals the total push."""
    if logits.dim() != 2 or logits.shape[0] != logits.shape[1]:
        raise ValueError(f"logits must be a square N x N matrix (positives on the diagonal), got {tuple(logits.shape)}.")
    if logits.shape[0] < 2:
        raise ValueError("a batch of one sentence has no in-batch negatives; the contrastive loss needs >= 2.")
    lam = torch.softmax(logits, dim=1)
    return lam - torch.eye(logits.shape[0], dtype=logits.dtype, device=logits.device)


def similarity_derivative(phi: torch.Tensor, kind: str = "cosine", wrt: str = "angle") -> torch.Tensor:
    r"""Derivative of a similarity at angle ``phi`` (radians; Fig. 1b).

    ``wrt="angle"`` (what moves when a vector rotates): :math:`d\cos\phi/d\phi = -\sin\phi` and
    :math:`d\theta/d\phi = -1` (:math:`\theta = \pi/2 - \phi`). ``wrt="cosine"`` (Eq. 6, the chain-rule factor):
    :math:`d\cos/d\cos = 1` and :math:`d\theta/dx = -d\arccos(x)/dx = 1/\sqrt{1-x^2} = 1/\sin\phi`.
    """
    if kind not in ("cosine", "angle"):
        raise ValueError(f"kind must be 'cosine' or 'angle', got {kind!r}.")
    if wrt not in ("angle", "cosine"):
        raise ValueError(f"wrt must be 'angle' or 'cosine', got {wrt!r}.")
    phi = torch.as_tensor(phi, dtype=torch.float64)
    if wrt == "angle":
        return -torch.sin(phi) if kind == "cosine" else -torch.ones_like(phi)
    return torch.ones_like(phi) if kind == "cosine" else 1.0 / torch.sin(phi)


def closed_form_orthogonal(n: int, tau: float) -> float:
    r"""SimACE loss when every positive is identical (:math:`\theta_{ii'} = \pi/2`), every negative orthogonal
    (:math:`\theta_{ij'} = 0`) and ``m = 0``: :math:`L = \log(1 + (N-1)e^{-\pi/(2\tau)})`."""
    tau = check_temperature(tau)
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an int >= 2 (in-batch negatives), got {n!r}.")
    return math.log1p((n - 1) * math.exp(-math.pi / (2 * tau)))


# --------------------------------------------------------------------------------------------- Eq. 6
def gradient_norms(angles_deg: Sequence[float], dim: int = 384, scale: float = 3.0, seed: int = 0):
    """Autograd against Eq. 6's identities at each angle of ``angles_deg`` (SimACE §3.1, Fig. 1b).

    For each angle, in order, from one generator (``seed``): a random ``z`` (``scale`` × standard normal in ``dim``
    dimensions) and a unit ``w`` at that angle from ``z``; returns one row per angle with ``|dcos/dz|`` and
    ``|dtheta/dz|`` (autograd, float64) beside ``sin(phi)/|z|`` and ``1/|z|``.
    """
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
#: the objective names :func:`pair_forces` takes, and the loss each one is (``cosine`` and ``angle`` name SimCSE and
#: SimACE by their similarity)
FORCE_OBJECTIVES = {"cosine": "simcse", "simcse": "simcse", "arccon": "arccon", "angle": "simace", "simace": "simace"}


def pair_forces(phi_pos: torch.Tensor, phi_neg: torch.Tensor, objective: str, tau: float,
                margin_deg: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Angular forces on one positive and its negatives for a single anchor (§3, Eq. 2-6).

    For an anchor with positive at angle ``phi_pos`` (scalar, radians) and negatives at angles ``phi_neg`` (``K``),
    returns ``(pull, push)``: :math:`|\partial\ell/\partial\phi_{ii'}|` and
    :math:`|\partial\ell/\partial\phi_{ij'}|` per negative — the angular speed with which gradient descent closes the
    positive angle and opens each negative angle. Computed by autograd through the logits the losses train with
    (:func:`companion.losses.simace.logits_from_angles`, given the angles themselves rather than the clamped
    arccos of a cosine; ``cosine`` = SimCSE, ``arccon``, ``angle`` = SimACE; SimCSE ignores ``margin_deg``)."""
    tau = check_temperature(tau)
    m = check_margin(margin_deg)
    phi_pos = torch.as_tensor(phi_pos, dtype=torch.float64).reshape(()).clone().requires_grad_(True)
    phi_neg = torch.as_tensor(phi_neg, dtype=torch.float64).reshape(-1).clone().requires_grad_(True)
    if objective not in FORCE_OBJECTIVES:
        raise ValueError(f"objective must be simcse/cosine, arccon or simace/angle, got {objective!r}.")
    loss_name = FORCE_OBJECTIVES[objective]
    pos = logits_from_angles(loss_name, torch.cos(phi_pos), phi_pos, torch.tensor(True), tau, m)
    neg = logits_from_angles(loss_name, torch.cos(phi_neg), phi_neg, torch.zeros_like(phi_neg, dtype=torch.bool),
                             tau, m)
    logits = torch.cat([pos.reshape(1), neg])
    loss = -torch.log_softmax(logits, dim=0)[0]
    g_pos, g_neg = torch.autograd.grad(loss, [phi_pos, phi_neg])
    return g_pos.abs().detach(), g_neg.abs().detach()


def pull_grid(taus: Sequence[float], margins: Sequence[float], positive_angles: Sequence[float],
              negatives_at: Sequence[float] = (30.0, 80.0), n_negatives: int = 63):
    """Pull on the positive, :math:`|\\partial\\ell/\\partial\\phi_{ii'}|`, for one anchor with ``n_negatives``
    in-batch negatives all at one angle (each of ``negatives_at``, degrees) and the positive at each of
    ``positive_angles`` (radians): SimCSE (no margin), ArcCon and SimACE with each margin of ``margins`` (degrees),
    at each temperature. One row per point: ``negatives at, tau, objective, margin, positive angle`` (degrees),
    ``pull``."""
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
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

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
    views (:func:`~companion.dropout_views.view_geometry`), ``align`` (Wang & Isola's alignment of two
    training-mode views) and ``uniform`` (uniformity of the eval-mode outputs). Leaves ``model`` in eval mode."""
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
    dropout views of the rows of ``x`` (:func:`~companion.dropout_views.train_dropout_views`, Adam at constant
    ``lr``, no clipping) and log :func:`cone_geometry` on the first ``n_probe`` rows at step 0 and every
    ``log_every`` steps. Returns the log as a DataFrame with ``step``, the logged quantities, ``seed`` and
    ``objective``."""
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

