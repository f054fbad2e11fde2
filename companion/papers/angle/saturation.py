r"""AnglE §1 and §3: the saturation argument and the synthetic saturated-encoder experiment (notebook ``angle/01``).

* :func:`complex_division_checks` — Eq. 4–5 against Python's ``complex`` and the two readings of Eq. 6 (literal:
  the constant 1; code: :math:`|\cos(u,v) + \cos(u,Jv)|`) on random float64 vectors;
* :func:`value_and_grad_norm`, :func:`rotate`, :func:`reading_curves`, :func:`plot_readings`, :func:`gradient_at`,
  :func:`gradient_table` — Fig. 2's comparison of the cosine with the three readings of Eq. 6 along a rotation
  (value and gradient norm);
* :func:`saturation_runs`, :func:`saturation_summary`, :func:`auc_deltas`, :func:`plot_saturation` — the
  controlled test of the saturation claim (beyond the paper): a synthetic encoder started inside the cosine's
  saturation zone (its cosine objective's gradient about a thousand times smaller than from an unsaturated
  start), trained with several objectives at equal budgets under plain SGD and Adam, held-out Spearman curves
  summarised per seed and paired by seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from companion.display import FIGURE_WIDTH_IN
from companion.losses.angle import complex_divide, eq6_code, eq6_literal
from companion.papers.angle.pairs import SaturatedEncoder
from companion.training import index_batches, seed_everything


# --------------------------------------------------------------------------------------------- Eq. 4-6
def complex_division_checks(n: int = 200, dim: int = 16, seed: int = 0) -> dict[str, float]:
    """Eq. 4–5 and Eq. 6 (AnglE §3.3) on ``n`` random float64 pairs of dimension ``dim`` (``seed``).

    Returns ``div_err`` (max abs error of :func:`~companion.losses.angle.complex_divide` against Python's complex
    division, real and imaginary parts), ``literal_dev`` (max :math:`|s - 1|` of the literal reading of Eq. 6) and
    ``code_vs_cos`` (max abs difference between the code reading and :math:`|\\cos(u,v) + \\cos(u,Jv)|`, where
    :math:`J` multiplies each complex component by i). All three are float64 rounding for a correct implementation.
    """
    if n < 1 or dim < 2 or dim % 2:
        raise ValueError(f"complex_division_checks needs n >= 1 and an even dim >= 2, got n={n}, dim={dim}.")
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, dim, generator=g, dtype=torch.float64)
    y = torch.randn(n, dim, generator=g, dtype=torch.float64)
    re, im = complex_divide(x, y)
    a, b = x.chunk(2, dim=-1)
    c, d = y.chunk(2, dim=-1)
    py = np.array([[complex(float(a[i, k]), float(b[i, k])) / complex(float(c[i, k]), float(d[i, k]))
                    for k in range(dim // 2)] for i in range(n)])
    div_err = float(max(np.abs(re.numpy() - py.real).max(), np.abs(im.numpy() - py.imag).max()))
    literal_dev = float((eq6_literal(x, y) - 1).abs().max())
    jy = torch.cat([-d, c], dim=-1)  # J y: each complex component of y multiplied by i
    code_vs_cos = float((eq6_code(x, y) - (F.cosine_similarity(x, y, dim=-1)
                                          + F.cosine_similarity(x, jy, dim=-1)).abs()).abs().max())
    return {"div_err": div_err, "literal_dev": literal_dev, "code_vs_cos": code_vs_cos}


# --------------------------------------------------------------------------------------------- Fig. 2 readings
def rotate(theta: torch.Tensor, dim: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows ``u(θ) = cos θ v + sin θ w`` for a random unit ``v`` and a random unit ``w ⟂ v`` in ``dim`` dimensions.

    Returns ``(u, v)`` with one row per θ (``v`` repeated), so that the angle between row ``i`` of ``u`` and of
    ``v`` is ``theta[i]`` (AnglE Fig. 2 analogue in a random plane; ``seed`` fixes the plane).
    """
    if dim < 2:
        raise ValueError(f"rotate needs dim >= 2 (a plane), got {dim}.")
    gg = torch.Generator().manual_seed(seed)
    v = F.normalize(torch.randn(dim, generator=gg, dtype=torch.float64), dim=0)
    w = torch.randn(dim, generator=gg, dtype=torch.float64)
    w = F.normalize(w - (w @ v) * v, dim=0)
    return torch.cos(theta)[:, None] * v + torch.sin(theta)[:, None] * w, v.expand(len(theta), dim)


def value_and_grad_norm(similarity, u: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Row-wise ``similarity(u, v)`` and the norm of its gradient with respect to ``u`` (one per row).

    Rows are independent, so one backward pass of the sum gives every row's gradient. Used for the saturation
    argument of AnglE §1 (Fig. 1, 2b): :math:`\|\nabla_u \cos(u, v)\| = \sin\theta / \|u\|` vanishes at
    :math:`\theta = 0, \pi`.
    """
    u = u.detach().clone().requires_grad_(True)
    values = similarity(u, v)
    (grad,) = torch.autograd.grad(values.sum(), u)
    return values.detach(), grad.norm(dim=-1)


def reading_curves(readings: Mapping[str, Callable], geometries: Mapping[str, tuple[torch.Tensor, torch.Tensor]]
                   ) -> dict[tuple[str, str], tuple[torch.Tensor, torch.Tensor]]:
    """Value and gradient norm (w.r.t. ``u``) of every similarity in ``readings`` along every rotation.

    ``geometries`` maps a name to ``(u, v)`` rows (e.g. :func:`rotate`); the result maps ``(geometry, reading)``
    to :func:`value_and_grad_norm`'s ``(values, grad_norms)``, geometry-major (AnglE Fig. 2).
    """
    return {(gname, name): value_and_grad_norm(fn, uu, vv)
            for gname, (uu, vv) in geometries.items() for name, fn in readings.items()}


_TICKS = ([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4, math.pi], ["0", "π/4", "π/2", "3π/4", "π"])


def plot_readings(theta: torch.Tensor, curves: Mapping[tuple[str, str], tuple[torch.Tensor, torch.Tensor]]):
    """Fig. 2 analogue: one row per geometry, value (left) and gradient norm (right, symlog) of each reading."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    geometries = list(dict.fromkeys(g for g, _ in curves))
    fig, axes = plt.subplots(len(geometries), 2, figsize=(FIGURE_WIDTH_IN, 3 * len(geometries)), sharex=True,
                             squeeze=False)
    for row, gname in enumerate(geometries):
        for (g, name), (val, grad) in curves.items():
            if g == gname:
                axes[row, 0].plot(theta, val, label=name)
                axes[row, 1].plot(theta, grad, label=name)
        axes[row, 0].set(ylabel=f"value\n[{gname}]")
        axes[row, 1].set(ylabel=r"$\|\nabla_u\|$", yscale="symlog", ylim=(0, 10))
    for axis in axes[-1]:
        axis.set_xlabel(r"angle $\theta$ between $u$ and $v$ (rad)")
        axis.set_xticks(*_TICKS)
    axes[0, 0].set_title("similarity value")
    axes[0, 1].set_title("gradient norm w.r.t. u (autograd)")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Fig. 2 analogue: three readings of AnglE Eq. 6 vs the cosine")
    fig.tight_layout()
    return fig


def gradient_at(theta: torch.Tensor, grad: torch.Tensor, t: float) -> float:
    """The gradient norm at the grid angle closest to ``t`` (the first one on a tie)."""
    if len(theta) != len(grad) or len(theta) == 0:
        raise ValueError(f"theta and grad must be non-empty and of equal length, got {len(theta)} and {len(grad)}.")
    i = int(torch.argmin((theta - t).abs()))
    return float(grad[i])


def gradient_table(theta: torch.Tensor, curves: Mapping[tuple[str, str], tuple[torch.Tensor, torch.Tensor]],
                   points: Sequence[tuple[str, float]]):
    """One row per ``(geometry, reading)``: ``|grad| at <label>`` for each ``(label, angle)`` of ``points``
    (:func:`gradient_at`) and the minimum over the grid (AnglE Fig. 1–2: where each reading saturates)."""
    return pd.DataFrame([{"geometry": gname, "reading": name,
                          **{f"|grad| at {lbl}": gradient_at(theta, grad, t) for lbl, t in points},
                          "min |grad| over θ": float(grad.min())}
                         for (gname, name), (_, grad) in curves.items()])


# --------------------------------------------------------------------------------------------- controlled saturation
def objective_grad_norm(model: torch.nn.Module, objective: Callable, x: torch.Tensor, labels: torch.Tensor) -> float:
    """Norm of the gradient of ``objective`` (an AnglE pair objective on an interleaved batch) with respect to every
    parameter of ``model``, on the pairs ``x`` (``(2P, p)`` interleaved inputs) and ``labels`` (``(P,)``)."""
    params = [p for p in model.parameters() if p.requires_grad]
    loss = objective(model(x), labels)
    grads = torch.autograd.grad(loss, params, allow_unused=True)
    return float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads if g is not None)))


def saturation_runs(objectives: Mapping[str, Callable], train_set: Mapping[str, torch.Tensor],
                    test_set: Mapping[str, torch.Tensor], seeds: Sequence[int], *, offsets: Mapping[str, float],
                    optimizers: Sequence[str], steps: int, lr: Mapping[str, float], batch_size: int, eval_every: int,
                    probe: Callable, label: str = "gold", progress: bool = True):
    """The controlled saturation experiment (AnglE §1, Fig. 1–2; beyond the paper's own evidence).

    For every setting (``offsets``: name -> norm of the shared output offset of a
    :class:`~companion.papers.angle.pairs.SaturatedEncoder`, 0 = unsaturated), optimiser (``"sgd"``: plain gradient
    descent, where a vanishing gradient slows learning as the saturation argument says; ``"adam"``: per-parameter
    rescaling, which hides the gradient's size), objective and seed: seed everything, build the encoder, train it for
    ``steps`` steps at constant ``lr[optimiser]`` on the seed's batches of ``train_set[label]`` and record, every
    ``eval_every`` steps, the held-out Spearman (x 100, cosine against ``test_set["gold"]``), the median held-out pair
    cosine and the gradient norm of ``probe`` (the cosine objective, :func:`objective_grad_norm`) on the first 256
    held-out pairs: where the cosine saturates that norm vanishes. Returns one row per evaluation:
    ``setting, optimizer, objective, seed, step, spearman, median_cos, probe_grad``.
    """
    from companion.sts import pair_spearman  # noqa: PLC0415 - loads scipy; this module imports without it

    unknown = [o for o in optimizers if o not in ("sgd", "adam")]
    if unknown or set(optimizers) - set(lr):
        raise ValueError(f"optimizers must be 'sgd' or 'adam' with an lr each; got {list(optimizers)}, lr {dict(lr)}.")
    n_probe = min(256, len(test_set["gold"]))
    x_probe = torch.stack([test_set["x1"][:n_probe], test_set["x2"][:n_probe]], dim=1).reshape(2 * n_probe, -1)
    y_probe = test_set["gold"][:n_probe]
    rows = []
    runs = [(s, o, name, seed) for s in offsets for o in optimizers for name in objectives for seed in seeds]
    for setting, opt_name, name, seed in tqdm(runs, desc="saturation runs", disable=not progress):
        seed_everything(seed)
        model = SaturatedEncoder(offset=offsets[setting], seed=seed)
        params = list(model.parameters())
        opt = (torch.optim.SGD(params, lr=lr[opt_name]) if opt_name == "sgd"
               else torch.optim.Adam(params, lr=lr[opt_name]))
        batches = index_batches(len(train_set["gold"]), batch_size=batch_size, seed=seed, epochs=None)
        for step in range(steps + 1):
            if step % eval_every == 0:
                with torch.no_grad():
                    e1, e2 = model(test_set["x1"]), model(test_set["x2"])
                rows.append({"setting": setting, "optimizer": opt_name, "objective": name, "seed": seed,
                             "step": step, "spearman": pair_spearman(e1, e2, test_set["gold"]),
                             "median_cos": float(F.cosine_similarity(e1, e2, dim=-1).median()),
                             "probe_grad": objective_grad_norm(model, probe, x_probe, y_probe)})
            if step == steps:
                break
            idx = next(batches)
            x = torch.stack([train_set["x1"][idx], train_set["x2"][idx]], dim=1).reshape(2 * len(idx), -1)
            opt.zero_grad()
            objectives[name](model(x), train_set[label][idx]).backward()
            opt.step()
    return pd.DataFrame(rows)


def saturation_summary(runs, baseline: str = "CoSENT only"):
    """Per (setting, optimizer, objective, seed) of :func:`saturation_runs`: ``AUC`` (mean held-out Spearman over
    the evaluations after step 0), ``final``, the probe gradient norm and median cosine at step 0, and ``ΔAUC``
    against ``baseline`` at the same setting, optimizer and seed (paired)."""
    after = runs[runs["step"] > 0]
    keys = ["setting", "optimizer", "objective", "seed"]
    out = after.groupby(keys)["spearman"].mean().rename("AUC").to_frame()
    last = runs[runs["step"] == runs["step"].max()].set_index(keys)
    first = runs[runs["step"] == 0].set_index(keys)
    out["final"] = last["spearman"]
    out["probe_grad_0"], out["median_cos_0"] = first["probe_grad"], first["median_cos"]
    out = out.reset_index()
    if baseline not in set(out["objective"]):
        raise ValueError(f"baseline {baseline!r} is not among the objectives {sorted(set(out['objective']))}.")
    base = out[out["objective"] == baseline].set_index(["setting", "optimizer", "seed"])["AUC"]
    out["ΔAUC"] = [a - base[(s, o, sd)] for a, s, o, sd in zip(out["AUC"], out["setting"], out["optimizer"],
                                                                out["seed"])]
    return out


def auc_deltas(summary, setting: str, optimizer: str, a: str, b: str) -> np.ndarray:
    """Per seed (in seed order) ``AUC(a) − AUC(b)`` at one setting and optimizer of :func:`saturation_summary`."""
    sub = summary[(summary["setting"] == setting) & (summary["optimizer"] == optimizer)]
    table = sub.pivot(index="seed", columns="objective", values="AUC")
    missing = [o for o in (a, b) if o not in table.columns]
    if missing:
        raise ValueError(f"no runs of {missing} at setting={setting!r}, optimizer={optimizer!r}.")
    return (table[a] - table[b]).sort_index().to_numpy()


def plot_saturation(runs):
    """Held-out Spearman (top row) and the cosine objective's gradient norm (bottom row, log scale) against the
    step, one column per (setting, optimizer) of :func:`saturation_runs`, mean over seeds, shared axes per row."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    panels = list(runs.groupby(["setting", "optimizer"], sort=False).groups)
    fig, axes = plt.subplots(2, len(panels), figsize=(min(FIGURE_WIDTH_IN, 3.6 * len(panels)), 6.2), sharex=True,
                             sharey="row", squeeze=False)  # at most the page's width: narrower columns past two
    for col, (setting, opt) in enumerate(panels):
        sub = runs[(runs["setting"] == setting) & (runs["optimizer"] == opt)]
        for name, part in sub.groupby("objective", sort=False):
            mean = part.groupby("step")[["spearman", "probe_grad"]].mean()
            axes[0, col].plot(mean.index, mean["spearman"], label=name)
            axes[1, col].plot(mean.index, mean["probe_grad"], label=name)
        axes[0, col].set_title(f"{setting} start, {opt}")
        axes[1, col].set(yscale="log", xlabel="step")
    axes[0, 0].set_ylabel("held-out Spearman × 100")
    axes[1, 0].set_ylabel("‖∇ cosine objective‖")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Controlled saturation test: mean over seeds")
    fig.tight_layout()
    return fig
