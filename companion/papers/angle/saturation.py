r"""AnglE §1 and §3: the saturation argument and the synthetic saturated-encoder experiment (notebook ``angle/01``).

* :func:`complex_division_checks` — Eq. 4–5 against Python's ``complex`` and the two readings of Eq. 6 (literal:
  the constant 1; code: :math:`|\cos(u,v) + \cos(u,Jv)|`) on random float64 vectors;
* :func:`rotate`, :func:`reading_curves`, :func:`plot_readings`, :func:`gradient_at`, :func:`gradient_table` —
  Fig. 2's comparison of the cosine with the three readings of Eq. 6 along a rotation (value and gradient norm);
* :func:`train_objectives`, :func:`summarise_curve`, :func:`per_seed_summary`, :func:`seed_deltas` — the
  synthetic test of the saturation claim (beyond the paper): held-out Spearman curves of several objectives at
  equal budgets, summarised per seed and paired with CoSENT only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import torch
import torch.nn.functional as F

#: the per-seed difference columns :func:`per_seed_summary` adds (paired with the baseline objective)
DELTA_AUC, DELTA_FINAL = "ΔAUC vs CoSENT", "Δfinal vs CoSENT"


# --------------------------------------------------------------------------------------------- Eq. 4-6
def complex_division_checks(n: int = 200, dim: int = 16, seed: int = 0) -> dict[str, float]:
    """Eq. 4–5 and Eq. 6 (AnglE §3.3) on ``n`` random float64 pairs of dimension ``dim`` (``seed``).

    Returns ``div_err`` (max abs error of :func:`~companion.losses.angle.complex_divide` against Python's complex
    division, real and imaginary parts), ``literal_dev`` (max :math:`|s - 1|` of the literal reading of Eq. 6) and
    ``code_vs_cos`` (max abs difference between the code reading and :math:`|\\cos(u,v) + \\cos(u,Jv)|`, where
    :math:`J` multiplies each complex component by i). All three are float64 rounding for a correct implementation.
    """
    from companion.losses.angle import complex_divide, eq6_code, eq6_literal

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


def reading_curves(readings: Mapping[str, Callable], geometries: Mapping[str, tuple[torch.Tensor, torch.Tensor]]
                   ) -> dict[tuple[str, str], tuple[torch.Tensor, torch.Tensor]]:
    """Value and gradient norm (w.r.t. ``u``) of every similarity in ``readings`` along every rotation.

    ``geometries`` maps a name to ``(u, v)`` rows (e.g. :func:`rotate`); the result maps ``(geometry, reading)``
    to :func:`~companion.losses.angle.value_and_grad_norm`'s ``(values, grad_norms)``, geometry-major (AnglE Fig. 2).
    """
    from companion.losses.angle import value_and_grad_norm

    return {(gname, name): value_and_grad_norm(fn, uu, vv)
            for gname, (uu, vv) in geometries.items() for name, fn in readings.items()}


_TICKS = ([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4, math.pi], ["0", "π/4", "π/2", "3π/4", "π"])


def plot_readings(theta: torch.Tensor, curves: Mapping[tuple[str, str], tuple[torch.Tensor, torch.Tensor]]):
    """Fig. 2 analogue: one row per geometry, value (left) and gradient norm (right, symlog) of each reading."""
    import matplotlib.pyplot as plt

    geometries = list(dict.fromkeys(g for g, _ in curves))
    fig, axes = plt.subplots(len(geometries), 2, figsize=(11, 3.25 * len(geometries)), sharex=True, squeeze=False)
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
    import pandas as pd

    return pd.DataFrame([{"geometry": gname, "reading": name,
                          **{f"|grad| at {lbl}": gradient_at(theta, grad, t) for lbl, t in points},
                          "min |grad| over θ": float(grad.min())}
                         for (gname, name), (_, grad) in curves.items()])


# --------------------------------------------------------------------------------------------- synthetic runs
def train_objectives(objectives: Mapping[str, Callable], train_set: Mapping[str, torch.Tensor],
                     test_set: Mapping[str, torch.Tensor], seeds: Sequence[int], *, offset: float, steps: int,
                     batch_size: int, lr: float, eval_every: int, labels: Sequence[str] = ("gold", "binary"),
                     overrides: Mapping[tuple[str, str], Callable] | None = None, progress: bool = True):
    """Held-out Spearman curves of each objective on :func:`~companion.papers.angle.pairs.synthetic_sts` pairs.

    For every training label kind (``labels``: keys of ``train_set``), objective and seed, in that order: seed
    everything, build a :class:`~companion.papers.angle.pairs.SaturatedEncoder` (``offset``, ``seed``), train it
    for ``steps`` Adam steps at constant ``lr`` on the seed's batches and evaluate the Spearman (× 100) of its
    pair cosines against ``test_set["gold"]`` every ``eval_every`` steps. ``overrides[(label, name)]`` replaces
    an objective for one label kind (binary labels need no positive threshold). Returns one row per evaluation:
    ``labels, objective, seed, step, spearman``. Serves AnglE §1's saturation claim (beyond the paper).
    """
    import pandas as pd
    from tqdm.auto import tqdm

    from companion.papers.angle.pairs import FeaturePairs, SaturatedEncoder, train_on_features
    from companion.sts import pair_spearman
    from companion.training import seed_everything

    overrides = dict(overrides or {})
    unknown = [k for k in overrides if k[1] not in objectives or k[0] not in labels]
    if unknown:
        raise ValueError(f"overrides name unknown (labels, objective) pairs: {unknown}")
    rows = []
    runs = [(lab, name, seed) for lab in labels for name in objectives for seed in seeds]
    for lab, name, seed in tqdm(runs, desc="synthetic runs", disable=not progress):
        seed_everything(seed)
        model = SaturatedEncoder(offset=offset, seed=seed)
        data = FeaturePairs(train_set["x1"], train_set["x2"], train_set[lab])
        objective = overrides.get((lab, name), objectives[name])
        evaluate = lambda m=model: pair_spearman(m(test_set["x1"]), m(test_set["x2"]), test_set["gold"])  # noqa: E731
        result = train_on_features(model, objective, data, steps=steps, batch_size=batch_size, lr=lr, seed=seed,
                                   eval_fn=evaluate, eval_every=eval_every, schedule="constant", progress=False)
        for rec in result.history:
            if "eval" in rec:
                rows.append({"labels": lab, "objective": name, "seed": seed, "step": rec["step"],
                             "spearman": rec["eval"]})
    return pd.DataFrame(rows)


def summarise_curve(df):
    """One learning curve (columns ``step``, ``spearman``) -> ``AUC`` (mean over evaluations after step 0, a
    learning-speed measure), ``early`` (at the first evaluation after step 0) and ``final`` (at the last step)."""
    import pandas as pd

    after0 = df[df["step"] > 0]
    if after0.empty:
        raise ValueError("summarise_curve needs at least one evaluation after step 0.")
    first_step = after0["step"].min()
    return pd.Series({"AUC": after0["spearman"].mean(),
                      "early": after0.loc[after0["step"] == first_step, "spearman"].mean(),
                      "final": df.loc[df["step"] == df["step"].max(), "spearman"].mean()})


def per_seed_summary(curves, baseline: str = "CoSENT only"):
    """:func:`summarise_curve` per (labels, objective, seed) of :func:`train_objectives`' rows, with the paired
    differences :data:`DELTA_AUC` and :data:`DELTA_FINAL` to ``baseline`` at the same labels and seed."""
    per_seed = curves.groupby(["labels", "objective", "seed"]).apply(summarise_curve, include_groups=False
                                                                       ).reset_index()
    if baseline not in set(per_seed["objective"]):
        raise ValueError(f"baseline {baseline!r} is not among the objectives {sorted(set(per_seed['objective']))}.")
    base = per_seed[per_seed["objective"] == baseline].set_index(["labels", "seed"])
    per_seed[DELTA_AUC] = per_seed.apply(lambda r: r["AUC"] - base.loc[(r["labels"], r["seed"]), "AUC"], axis=1)
    per_seed[DELTA_FINAL] = per_seed.apply(lambda r: r["final"] - base.loc[(r["labels"], r["seed"]), "final"],
                                           axis=1)
    return per_seed


def seed_deltas(per_seed, labels: str, objective: str, col: str = DELTA_AUC) -> np.ndarray:
    """Column ``col`` of :func:`per_seed_summary` for one label kind and objective, in seed order."""
    sub = per_seed[(per_seed["labels"] == labels) & (per_seed["objective"] == objective)]
    if sub.empty:
        raise ValueError(f"no per-seed rows for labels={labels!r}, objective={objective!r}.")
    return sub.sort_values("seed")[col].to_numpy()
