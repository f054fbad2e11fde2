r"""Full-width head comparison of the circumplex paper (Yamauchi & Aizawa, ACL 2026): §4.3's GPT vs nGPT heads per
loss (Table 4), the geometry of Figs 1, 4 and 5a, and App. D's margin statement, on heads as wide as the frozen
encoder (no PCA).

:func:`run_grid` trains every (head kind, loss, seed) on cached token states; :func:`label_structure` and
:func:`top2_explained` measure the Fig 1 / Fig 4 quantities of one embedding; :func:`pca_v` the Fig 5a curve;
:func:`head_gap_claims` grades each nGPT − GPT gap against the same gap in a Table 4 row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from companion import stats
from companion.losses.circumplex import ECM_LABELS, delta_theta, ecm_angles
from companion.papers.circumplex.validity import run_checks

__all__ = ["KINDS", "run_grid", "label_structure", "top2_explained", "pca_v", "head_gap_claims", "plateau_table",
           "steps_per_loss", "pca_frame"]

#: Head kinds of the comparison: GPT, nGPT in the authors' parametrisation, nGPT stored plainly.
KINDS = ("GPT", "nGPT", "nGPT-plain")


def run_grid(train_states, train_labels: Sequence[str], test_states, test_labels: Sequence[str], *,
             kinds: Sequence[str], losses: Sequence[str], seeds: Sequence[int], steps: int | Mapping[str, int],
             batch_size: int, lr: float, n_heads: int, margins: Sequence[float] = (), margin_kind: str = "nGPT",
             curve_every: int = 0, curve_seeds: Sequence[int] = (), probe: Sequence[tuple[str, str]] = (),
             probe_steps: int | Mapping[str, int] | None = None, pooling: str = "mean",
             base_scale: str | float = "backbone", clip_norm: float | None = 1.0, cache: bool | str | None = True):
    """Train and score every ``kind`` x ``loss`` x ``seed`` head, then CircularCSE ``margin_kind`` heads with each
    margin in ``margins`` (m > 0; the grid's CircularCSE runs are m = 0). ``steps`` is one budget for every loss or
    one per loss (:func:`steps_per_loss`). Runs of ``curve_seeds`` record a learning curve every ``curve_every``
    steps; those of them whose ``(kind, loss)`` is in ``probe`` (margin runs included) train on to ``probe_steps``
    (one number or one per loss) for the curve only (their scores are still taken at their budget). ``pooling``,
    ``base_scale`` (the backbone's width recorded on ``train_states``), ``clip_norm`` and ``cache`` go to every
    :func:`companion.papers.circumplex.experiments.head_run` (cached without the heads' weights, which the grid does
    not keep). Returns ``(runs, embeddings)``: one row per run (``kind``, ``loss``, ``margin``, ``seed``, ``steps``
    and the scores and recorded settings of :func:`~companion.papers.circumplex.experiments.head_run`) and the test
    embeddings by ``(kind, loss, margin, seed)``."""
    from tqdm.auto import tqdm

    from companion.papers.circumplex.experiments import head_run
    from companion.papers.circumplex.heads import backbone_width

    if not seeds:
        raise ValueError("run_grid needs at least one seed.")
    if any(not m > 0 for m in margins):
        raise ValueError(f"margins must be > 0 (m = 0 is the grid's CircularCSE), got {list(margins)}.")
    budget = _per_loss(steps, [*losses, "CircularCSE"] if margins else losses, "steps")
    probe_budget = _per_loss(probe_steps, [loss for _, loss in probe], "probe_steps") if probe_steps else {}
    jobs = [(k, loss, 0.0, s) for s in seeds for k in kinds for loss in losses]
    jobs += [(margin_kind, "CircularCSE", float(m), s) for m in margins for s in seeds]
    rows, embs = [], {}
    for kind, loss, margin, seed in tqdm(jobs, desc="head runs"):
        probed = seed in curve_seeds and (kind, loss) in probe
        scores, _, emb = head_run(kind, loss, train_states, train_labels, test_states, test_labels,
                                  steps=budget[loss], batch_size=batch_size, lr=lr, seed=seed, n_heads=n_heads,
                                  margin=margin if margin > 0 else None,
                                  curve_every=curve_every if seed in curve_seeds else 0,
                                  probe_steps=probe_budget.get(loss) if probed else None, pooling=pooling,
                                  base_scale=base_scale, backbone_dim=backbone_width(train_states),
                                  clip_norm=clip_norm, cache=cache, keep_weights=False)
        rows.append({"kind": kind, "loss": loss, "margin": margin, "seed": seed, "steps": budget[loss], **scores})
        embs[(kind, loss, margin, seed)] = emb
    return pd.DataFrame(rows), embs


def _per_loss(value: int | Mapping[str, int], losses: Sequence[str], what: str) -> dict[str, int]:
    """``value`` for every loss of ``losses``: the same number for all, or a mapping that must name each of them."""
    if isinstance(value, Mapping):
        missing = [loss for loss in dict.fromkeys(losses) if loss not in value]
        if missing:
            raise ValueError(f"{what} names no budget for {', '.join(missing)}.")
        out = {loss: int(value[loss]) for loss in dict.fromkeys(losses)}
    else:
        out = dict.fromkeys(losses, int(value))
    bad = {loss: n for loss, n in out.items() if n < 1}
    if bad:
        raise ValueError(f"{what} must be >= 1, got {bad}.")
    return out


def steps_per_loss(epochs: int, losses: Sequence[str], per_epoch: int, by_loss: Mapping[str, int] | None = None
                   ) -> dict[str, int]:
    """Training steps per loss: ``epochs`` epochs of ``per_epoch`` steps, except the losses named in ``by_loss``
    (loss -> epochs), which get a budget of their own (whether it reaches the plateau is measured, not assumed:
    :func:`companion.papers.circumplex.validity.plateau`)."""
    if per_epoch < 1:
        raise ValueError(f"per_epoch must be >= 1, got {per_epoch}.")
    unknown = sorted(set(by_loss or {}) - set(losses))
    if unknown:
        raise ValueError(f"by_loss names unknown loss(es) {', '.join(unknown)}; the losses are {', '.join(losses)}.")
    out = _per_loss({loss: (by_loss or {}).get(loss, epochs) for loss in losses}, losses, "epochs")
    return {loss: n * per_epoch for loss, n in out.items()}


def pca_frame(embeddings: Mapping[tuple[str, int], torch.Tensor], labels: Sequence[str], dims: Sequence[int]
              ) -> pd.DataFrame:
    """Fig 5a's data: V-Measure after PCA to each k of ``dims`` (:func:`pca_v`) for every ``(name, seed)`` embedding
    of ``embeddings``; one row per name, seed and k."""
    return pd.DataFrame([{"loss": name, "seed": seed, "k": k, "V": v} for (name, seed), e in embeddings.items()
                         for k, v in pca_v(e, labels, dims).items()])


def label_structure(emb, labels: Sequence[str], classes: Sequence[str] | None = None) -> dict[str, float]:
    r"""Fig 4's quantities for one embedding: over pairs of different labels, the mean AvgCosSim (``mean_offdiag``),
    its Pearson correlation with the circle's :math:`\cos\Delta\theta` (``r_circle``) and the root mean square of
    AvgCosSim − :math:`\cos\Delta\theta` (``rmse_circle``)."""
    from companion.papers.circumplex.geometry import avg_cos_sim

    classes = list(classes) if classes is not None else [c for c in ECM_LABELS if c in set(labels)]
    mat, classes = avg_cos_sim(emb, np.asarray(labels, dtype=object), classes)
    target = torch.cos(torch.deg2rad(delta_theta(ecm_angles(classes)))).numpy()
    iu = np.triu_indices(len(classes), 1)
    a, t = np.asarray(mat)[iu], target[iu]
    return {"mean_offdiag": float(a.mean()), "r_circle": float(np.corrcoef(a, t)[0, 1]),
            "rmse_circle": float(np.sqrt(np.mean((a - t) ** 2)))}


def top2_explained(emb) -> float:
    """Share of the variance of the centred embeddings held by their top two principal components (Fig 1)."""
    x = torch.as_tensor(emb).double()
    sv = torch.linalg.svdvals(x - x.mean(0)) ** 2
    return float(sv[:2].sum() / sv.sum())


def pca_v(emb, labels: Sequence[str], dims: Sequence[int], seed: int = 0) -> dict[int, float]:
    """Fig 5a: V-Measure (spherical k-means) of the embeddings projected on their top-k principal directions."""
    from companion.metrics.clustering import v_measure
    from companion.papers.circumplex.geometry import pca_project

    return {int(k): v_measure(pca_project(emb, int(k)), list(labels), seed=seed) for k in dims}


def plateau_table(runs: pd.DataFrame, steps: int | None = None) -> pd.DataFrame:
    """The learning curves of the runs that recorded one: test V at each recorded step (one row per run), the change
    over the last interval up to the run's budget (``change before``) and, for runs trained on past it, the largest
    departure from V at the budget afterwards (``change after``, one evaluation: it carries the evaluation's noise),
    the mean of the later evaluations minus V at the budget (``mean change after``, the drift) and the plateau check
    the claims use (:func:`companion.stats.plateau` fitted from the budget to the end of the probe, no gap):
    ``gain after`` (the fitted gain over that stretch) and ``flat`` (its slope CI covers 0). The budget is the run's
    ``steps`` column (:func:`run_grid`), or ``steps`` for frames without one."""
    rows = []
    names = [c for c in ("dataset", "kind", "head", "loss", "margin", "seed") if c in runs]
    for r in runs[runs["curve"].notna()].to_dict("records") if "curve" in runs else []:
        c = r["curve"]
        budget = int(r["steps"]) if "steps" in r and pd.notna(r["steps"]) else steps
        if budget is None:
            raise ValueError("plateau_table needs steps for runs without a 'steps' column.")
        upto = [s for s in sorted(c) if s <= budget]
        after = [s for s in sorted(c) if s > budget]
        row = {**{n: r[n] for n in names}, "budget": budget, **{f"V @ {s}": c[s] for s in sorted(c)},
               "change before": c[upto[-1]] - c[upto[-2]] if len(upto) > 1 else np.nan,
               "change after": max((c[s] - c[budget] for s in after), key=abs) if after else np.nan,
               "mean change after": float(np.mean([c[s] for s in after])) - c[budget] if after else np.nan,
               "gain after": np.nan, "flat": None}
        if len(after) >= 2:
            xs = sorted(c)
            check = stats.plateau(xs, [c[s] for s in xs], tail=(xs[-1] - budget) / (xs[-1] - xs[0]))
            fit = np.polyfit([budget, *after], [c[budget], *(c[s] for s in after)], 1)
            row["gain after"] = float(fit[0] * (after[-1] - budget))
            row["flat"] = check.passed
        rows.append(row)
    return pd.DataFrame(rows)


def head_gap_claims(runs: pd.DataFrame, paper: pd.DataFrame, *, paper_set: str, backbone: str, regime: str,
                    losses: Sequence[str], kinds: Sequence[str] = ("nGPT", "nGPT-plain")) -> list[dict]:
    """§4.3 / Table 4: for every loss, metric (V, CD-r) and nGPT kind, the per-seed gap nGPT − GPT (paired by
    seed, m = 0 runs) against the same gap in the paper's ``paper_set`` column of the ``backbone`` row (``paper``
    indexed by ``(method, head)`` with the cells as printed), with the validity checks of the two compared runs
    (:func:`companion.papers.circumplex.validity.run_checks`). Keyword arguments of ``Ledger.claim``, in order."""
    grid = runs[runs["margin"] == 0].pivot_table(index="seed", columns=["kind", "loss"], values=["V", "CD-r"])
    claims = []
    for loss in losses:
        for col, pcol in (("V", "V-Measure"), ("CD-r", "CD-r")):
            a, b = paper.loc[(loss, "nGPT"), f"{paper_set} {pcol}"], paper.loc[(loss, "GPT"), f"{paper_set} {pcol}"]
            paper_gap = round(float(a) - float(b), 3)
            for kind in kinds:
                gpt, ngpt = grid[(col, "GPT", loss)], grid[(col, kind, loss)]
                measured = stats.paired(ngpt.to_numpy(), gpt.to_numpy())
                claims.append(dict(
                    id=f"head-gap:{loss}:{col}:{kind}",
                    claim=(f"{loss}: {col} of the nGPT head minus the GPT head (authors' nGPT parametrisation, "
                           "paired by seed)" if kind == "nGPT" else
                           f"Beyond the paper (it trains only the authors' parametrisation): {loss}, {col} of the "
                           "nGPT head stored plainly minus the GPT head, against the paper's gap (paired by seed)"),
                    kind="paper" if kind == "nGPT" else "beyond",
                    source=f"Table 4, {backbone}, {paper_set}, {pcol}, {loss} nGPT - GPT: {a} - {b}",
                    paper_value=paper_gap, ours=measured,
                    criterion=stats.direction(paper_effect=paper_gap) if paper_gap else
                    stats.level(0.0, tol=0.01, tol_reason="the paper's gap is 0 at its printed precision"),
                    regime=regime,
                    validity=run_checks(runs, {"kind": ["GPT", kind], "loss": loss, "margin": 0.0},
                                        gap=measured.estimate if col == "V" else None),
                    note=f"ours, mean over seeds: nGPT {ngpt.mean():.3f}, GPT {gpt.mean():.3f}"))
    return claims


def margin_claims(runs: pd.DataFrame, *, kind: str, tol: Mapping[str, float], tol_reason: str, regime: str
                  ) -> list[dict]:
    """App. D: CircularCSE with each margin m > 0 against m = 0 (``kind`` heads, paired by seed), V and CD-r within
    ``tol`` of no change, with the validity checks of both runs."""
    sub = runs[(runs["kind"] == kind) & (runs["loss"] == "CircularCSE")]
    grid = sub.pivot_table(index="seed", columns="margin", values=["V", "CD-r"])
    claims = []
    for m in sorted(x for x in sub["margin"].unique() if x > 0):
        for col in ("V", "CD-r"):
            with_m, without = grid[(col, m)], grid[(col, 0.0)]
            claims.append(dict(
                id=f"margin-negligible:m{m:g}:{col}", kind="paper", source="App. D",
                claim=f"App. D: CircularCSE's {col} barely changes with the margin (m = {m:g} minus m = 0, {kind} "
                      "head, paired by seed)",
                paper_value="a negligible change", ours=stats.paired(with_m.to_numpy(), without.to_numpy()),
                criterion=stats.level(0.0, tol=tol[col], tol_reason=tol_reason), regime=regime,
                validity=run_checks(runs, {"kind": kind, "loss": "CircularCSE", "margin": [0.0, float(m)]}),
                note=f"mean over seeds: m = {m:g} {with_m.mean():.3f}, m = 0 {without.mean():.3f}"))
    return claims
