r"""Full-width head comparison of the circumplex paper (Yamauchi & Aizawa, ACL 2026): §4.3's GPT vs nGPT heads per
loss (Table 4), the geometry of Figs 1, 4 and 5a, and App. D's margin statement, on heads as wide as the frozen
encoder (no PCA).

:func:`head_anatomy` describes the heads being compared; :func:`grid_plan` lists every (head kind, loss, seed)
run and :func:`run_plan` trains them on cached token states with what they share (:class:`HeadSetup`);
:func:`run_grid` is the two in one call. :func:`label_structure` and :func:`top2_explained` measure the Fig 1 /
Fig 4 quantities of one embedding; :func:`pca_v` the Fig 5a curve. The claims, as keyword arguments of
``Ledger.claim`` in the order the notebook records them: :func:`anchor_average_claim` (Eq. 5's average),
:func:`head_gap_claims` (each nGPT − GPT gap against the same gap in a Table 4 row),
:func:`parametrisation_claims`, :func:`fig1_claims`, :func:`fig4_claims`, :func:`fig5a_claims` and
:func:`margin_claims`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
from tqdm.auto import tqdm

from companion import stats
from companion.losses.circumplex import ECM_LABELS, delta_theta, ecm_angles
from companion.metrics.clustering import v_measure
from companion.papers.circumplex.experiments import head_run
from companion.papers.circumplex.geometry import avg_cos_sim, pca_project
from companion.papers.circumplex.heads import CLIP_NORM, NGPTHead, backbone_width, make_head
from companion.papers.circumplex.validity import quantity_plateau, trained_checks
from companion.stats import at_least

__all__ = ["KINDS", "HeadSetup", "head_anatomy", "grid_plan", "run_plan", "run_grid", "label_structure",
           "top2_explained", "pca_v", "head_gap_claims", "v_gap_checks", "plateau_table", "steps_per_loss", "pca_frame",
           "anchor_average_claim", "parametrisation_claims", "fig1_claims", "fig4_claims", "fig5a_claims",
           "margin_claims"]

#: Head kinds of the comparison: GPT, nGPT in the authors' parametrisation, nGPT stored plainly.
KINDS = ("GPT", "nGPT", "nGPT-plain")


@dataclass(frozen=True)
class HeadSetup:
    """What every run of a head grid shares: the cached token states and labels of the training and test splits,
    the optimiser's settings (AdamW at the constant ``lr``, batches of ``batch_size``, heads with ``n_heads``
    attention heads) and how every head is built and trained, as
    :func:`companion.papers.circumplex.experiments.head_run` takes them: ``pooling``, nGPT's ``base_scale``
    (``"backbone"``: from the width of the backbone recorded on ``train_states``, :attr:`backbone_dim`),
    gradient clipping at ``clip_norm`` (None: none), the run ``cache`` and the runs' ``profile`` (the notebook's
    ``cfg.profile``: the gpu profile's runs checkpoint, :func:`companion.training.gpu_checkpoint`)."""

    train_states: Any
    train_labels: Sequence[str]
    test_states: Any
    test_labels: Sequence[str]
    batch_size: int
    lr: float
    n_heads: int
    pooling: str = "mean"
    base_scale: str | float = "backbone"
    clip_norm: float | None = CLIP_NORM
    cache: bool | str | None = True
    profile: str | None = None

    @property
    def backbone_dim(self) -> int:
        """The width of the backbone whose states the heads read
        (:func:`companion.papers.circumplex.heads.backbone_width` of the training states)."""
        return backbone_width(self.train_states)


def head_anatomy(dim: int, n_heads: int, kinds: Sequence[str] = KINDS) -> pd.DataFrame:
    """The heads of the comparison at width ``dim`` with ``n_heads`` attention heads, one row per kind: the number
    of trained parameters, of them those outside the weight matrices (nGPT's α, s_qk, s_u, s_v; GPT's RMSNorm
    gains), the interpolation rates α the equations start from (nGPT) and whether the weight matrices are
    re-normalised after every step."""
    rows = []
    for kind in kinds:
        head = make_head(kind, dim, n_heads=n_heads)
        params = dict(head.named_parameters())
        matrices = [name for name, p in params.items() if name.endswith(".weight") and p.dim() == 2]
        others = [name.removesuffix(".weight") for name in params if name not in matrices]
        ngpt = isinstance(head, NGPTHead)
        rows.append({"head": kind, "width": dim, "attention heads": n_heads,
                     "parameters": sum(p.numel() for p in params.values()),
                     "in weight matrices": sum(params[name].numel() for name in matrices),
                     "other trained parameters": ", ".join(others),
                     "α at the start": f"{float(head.effective()['alpha_attn'].mean()):g}" if ngpt else "-",
                     "weights re-normalised every step": ngpt})
    return pd.DataFrame(rows).set_index("head")


def grid_plan(*, kinds: Sequence[str], losses: Sequence[str], seeds: Sequence[int], steps: int | Mapping[str, int],
              margins: Sequence[float] = (), margin_kind: str = "nGPT", curve_every: int = 0,
              curve_seeds: Sequence[int] = (), probe: Sequence[tuple[str, str]] = (),
              probe_steps: int | Mapping[str, int] | None = None) -> pd.DataFrame:
    """Every run of the comparison, one row each: ``kind`` x ``loss`` x ``seed`` heads (m = 0), then CircularCSE
    ``margin_kind`` heads with each margin in ``margins`` (m > 0). ``steps`` is one budget for every loss or one per
    loss (:func:`steps_per_loss`). Runs of ``curve_seeds`` record a learning curve every ``curve_every`` steps
    (column ``curve_every``, 0 for the others); those of them whose ``(kind, loss)`` is in ``probe`` train on to
    ``probe_steps`` (column ``probe_steps``, 0 for the others) for the curve only."""
    if not seeds:
        raise ValueError("a head grid needs at least one seed.")
    if any(not m > 0 for m in margins):
        raise ValueError(f"margins must be > 0 (m = 0 is the grid's CircularCSE), got {list(margins)}.")
    budget = _per_loss(steps, [*losses, "CircularCSE"] if margins else losses, "steps")
    probe_budget = _per_loss(probe_steps, [loss for _, loss in probe], "probe_steps") if probe_steps else {}
    jobs = [(k, loss, 0.0, s) for s in seeds for k in kinds for loss in losses]
    jobs += [(margin_kind, "CircularCSE", float(m), s) for m in margins for s in seeds]
    rows = []
    for kind, loss, margin, seed in jobs:
        probed = seed in curve_seeds and (kind, loss) in probe
        rows.append({"kind": kind, "loss": loss, "margin": margin, "seed": seed, "steps": budget[loss],
                     "curve_every": curve_every if seed in curve_seeds else 0,
                     "probe_steps": probe_budget.get(loss, 0) if probed else 0})
    return pd.DataFrame(rows, columns=["kind", "loss", "margin", "seed", "steps", "curve_every", "probe_steps"])


def run_plan(plan: pd.DataFrame, setup: HeadSetup):
    """Train and score every run of ``plan`` (:func:`grid_plan`) with
    :func:`companion.papers.circumplex.experiments.head_run`: a fresh head seeded by its run's seed, trained on
    ``setup``'s training states for the run's ``steps`` with ``setup``'s pooling, base scale, clipping and cache
    (cached without the heads' weights, which the grid does not keep), its test embeddings scored. Returns
    ``(runs, embeddings)``: one row per run (``kind``, ``loss``, ``margin``, ``seed``, ``steps`` and the scores and
    recorded settings of ``head_run``) and the test embeddings by ``(kind, loss, margin, seed)``."""
    rows, embs = [], {}
    width = setup.backbone_dim
    for run in tqdm(plan.to_dict("records"), desc="head runs"):
        kind, loss, margin, seed = run["kind"], run["loss"], float(run["margin"]), int(run["seed"])
        scores, _, emb = head_run(kind, loss, setup.train_states, setup.train_labels, setup.test_states,
                                  setup.test_labels, steps=int(run["steps"]), batch_size=setup.batch_size,
                                  lr=setup.lr, seed=seed, n_heads=setup.n_heads,
                                  margin=margin if margin > 0 else None, curve_every=int(run["curve_every"]),
                                  probe_steps=int(run["probe_steps"]) or None, pooling=setup.pooling,
                                  base_scale=setup.base_scale, backbone_dim=width, clip_norm=setup.clip_norm,
                                  cache=setup.cache, keep_weights=False, profile=setup.profile)
        rows.append({"kind": kind, "loss": loss, "margin": margin, "seed": seed, "steps": int(run["steps"]), **scores})
        embs[(kind, loss, margin, seed)] = emb
    return pd.DataFrame(rows), embs


def run_grid(train_states, train_labels: Sequence[str], test_states, test_labels: Sequence[str], *,
             kinds: Sequence[str], losses: Sequence[str], seeds: Sequence[int], steps: int | Mapping[str, int],
             batch_size: int, lr: float, n_heads: int, margins: Sequence[float] = (), margin_kind: str = "nGPT",
             curve_every: int = 0, curve_seeds: Sequence[int] = (), probe: Sequence[tuple[str, str]] = (),
             probe_steps: int | Mapping[str, int] | None = None, pooling: str = "mean",
             base_scale: str | float = "backbone", clip_norm: float | None = CLIP_NORM,
             cache: bool | str | None = True, profile: str | None = None):
    """:func:`grid_plan` and :func:`run_plan` in one call: train and score every ``kind`` x ``loss`` x ``seed``
    head, then CircularCSE ``margin_kind`` heads with each margin in ``margins`` (m > 0); ``pooling``,
    ``base_scale``, ``clip_norm``, ``cache`` and ``profile`` as in :class:`HeadSetup`. Returns ``(runs, embeddings)`` as
    :func:`run_plan` does."""
    plan = grid_plan(kinds=kinds, losses=losses, seeds=seeds, steps=steps, margins=margins, margin_kind=margin_kind,
                     curve_every=curve_every, curve_seeds=curve_seeds, probe=probe, probe_steps=probe_steps)
    return run_plan(plan, HeadSetup(train_states, train_labels, test_states, test_labels, batch_size, lr, n_heads,
                                    pooling=pooling, base_scale=base_scale, clip_norm=clip_norm, cache=cache,
                                    profile=profile))


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


def v_gap_checks(runs: pd.DataFrame, where: Mapping[str, Any], a: str, b: str, *, what: str,
                 gap: float | None = None) -> list:
    """The validity checks of a claim on the V-Measure gap between two runs: the compared runs (``where``) trained,
    and the gap itself, ``a`` minus ``b`` (columns as :func:`~companion.papers.circumplex.validity.curve_column`
    names the probed runs, e.g. ``"nGPT/SINCERE"`` minus ``"GPT/SINCERE"``), flat from the budget on
    (:func:`~companion.papers.circumplex.validity.quantity_plateau`, the gap-stability check, with its trend)."""
    checks = trained_checks(runs, where)
    if runs is None or len(runs) == 0:
        return checks
    return [*checks, quantity_plateau(runs, where, lambda side: side[a] - side[b], what=what, gap=gap)]


def anchor_average_claim(coverage: pd.DataFrame) -> dict:
    """Eq. 5: our SINCERE/SoftCSE average over the anchors with a positive (1/|A|) against Eq. 5's 1/B, from the
    share |A|/B of every training batch (``coverage``: one row per data set and seed, columns ``batches of``,
    ``min``, ``mean``, as :func:`companion.losses.circumplex.anchor_coverage` gives them). A check (our own
    choice), passed when the smallest share is at least 0.99."""
    cov = coverage["min"].min()
    return dict(id="eq5-anchor-average",
                claim="Our SINCERE/SoftCSE average over anchors with a positive (1/|A|) differs from Eq. 5's "
                      "1/B by less than 1 % on every training batch of notebooks 02 and 04 (smallest |A|/B)",
                kind="check", paper_value="1/B (Eq. 5)", ours=round(float(cov), 5), criterion=at_least(0.99),
                note="|A|/B per data set (min / mean): " + "; ".join(
                    f"{n} {g['min'].min():.4f} / {g['mean'].mean():.4f}" for n, g in coverage.groupby("batches of")))


def head_gap_claims(runs: pd.DataFrame, paper: pd.DataFrame, *, paper_set: str, backbone: str, regime: str,
                    losses: Sequence[str], kinds: Sequence[str] = ("nGPT", "nGPT-plain")) -> list[dict]:
    """§4.3 / Table 4: for every loss, metric (V, CD-r) and nGPT kind, the per-seed gap nGPT − GPT (paired by
    seed, m = 0 runs) against the same gap in the paper's ``paper_set`` column of the ``backbone`` row (``paper``
    indexed by ``(method, head)`` with the cells as printed), with the validity checks of the two compared runs on
    the claim's own quantity (:func:`v_gap_checks` for V: the per-step gap of the probed runs; CD-r, measured at the
    end only: :func:`~companion.papers.circumplex.validity.trained_checks`). Keyword arguments of ``Ledger.claim``, in order."""
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
                    validity=v_gap_checks(runs, {"kind": ["GPT", kind], "loss": loss, "margin": 0.0},
                                          f"{kind}/{loss}", f"GPT/{loss}", what=f"V gap {kind} - GPT ({loss})",
                                          gap=measured.estimate) if col == "V" else
                    trained_checks(runs, {"kind": ["GPT", kind], "loss": loss, "margin": 0.0}),
                    note=f"ours, mean over seeds: nGPT {ngpt.mean():.3f}, GPT {gpt.mean():.3f}"))
    return claims


def parametrisation_claims(runs: pd.DataFrame, *, losses: Sequence[str], regime: str, tol: float = 0.02,
                           tol_reason: str = "a fifth of the 0.1 V gap §6 treats as real") -> list[dict]:
    """Beyond the paper: for every loss and metric (V, CD-r), the nGPT head in the authors' parametrisation minus
    the one stored plainly (m = 0 runs, paired by seed), within ``tol`` of no change."""
    grid = runs[runs["margin"] == 0]
    claims = []
    for loss in losses:
        where = {"kind": ["nGPT", "nGPT-plain"], "loss": loss, "margin": 0.0}
        for col in ("V", "CD-r"):
            a = grid[(grid.kind == "nGPT") & (grid.loss == loss)].set_index("seed")[col]
            b = grid[(grid.kind == "nGPT-plain") & (grid.loss == loss)].set_index("seed")[col].reindex(a.index)
            claims.append(dict(
                id=f"parametrisation-effect:{loss}:{col}",
                claim=f"Beyond the paper: {loss}, {col} of the nGPT head in the authors' parametrisation minus the "
                      f"plain one is within ±{tol:g}", kind="beyond", paper_value=0.0,
                ours=stats.paired(a.to_numpy(), b.to_numpy()),
                criterion=stats.level(0.0, tol=tol, tol_reason=tol_reason), regime=regime,
                validity=v_gap_checks(runs, where, f"nGPT/{loss}", f"nGPT-plain/{loss}",
                                      what=f"V gap authors' - plain nGPT ({loss})") if col == "V" else
                trained_checks(runs, where),
                note=f"mean over seeds: authors {a.mean():.3f}, plain {b.mean():.3f}"))
    return claims


#: the m = 0 nGPT heads that Figs 1, 4 and 5a are read on
_NGPT = {"kind": "nGPT", "margin": 0.0}


def _ngpt_geometry(geo: pd.DataFrame) -> pd.DataFrame:
    """Per seed (rows) and loss (second column level), the geometry of the m = 0 nGPT heads."""
    return geo[(geo.kind == "nGPT") & (geo.margin == 0)].pivot(index="seed", columns="loss")


def fig1_claims(geo: pd.DataFrame, runs: pd.DataFrame, *, losses: Sequence[str], regime: str) -> list[dict]:
    """Fig 1 / §5.1: CircularCSE's top two principal components hold more of the variance than SINCERE's and
    SoftCSE's (per seed, CircularCSE minus the larger of the two; ``geo``: one row per run with ``top-2 explained``)."""
    ev = _ngpt_geometry(geo)["top-2 explained"]
    return [dict(id="fig1-circular-explained-variance:full-width",
                 claim="Fig 1: the top two principal components hold more of the variance for CircularCSE than for "
                       "SINCERE and SoftCSE (CircularCSE minus the larger of the two)",
                 kind="paper", source="§5.1", paper_value="significantly higher for CircularCSE-nGPT",
                 ours=stats.sample((ev["CircularCSE"] - ev[["SINCERE", "SoftCSE"]].max(axis=1)).to_numpy()),
                 criterion=stats.direction(sign=+1), regime=regime,
                 validity=trained_checks(runs, {**_NGPT, "loss": list(losses)}),
                 note="mean over seeds: " + ", ".join(f"{loss} {ev[loss].mean():.3f}" for loss in losses))]


def fig4_claims(geo: pd.DataFrame, pretrained: Mapping[str, float], runs: pd.DataFrame, *, n_labels: int,
                losses: Sequence[str], regime: str) -> list[dict]:
    """Fig 4 / §4.3 / §5.1 on the AvgCosSim structure of the nGPT heads (``geo``: :func:`label_structure` per run;
    ``pretrained``: the same for the frozen encoder): SINCERE's similarity between labels is near 0, not at the
    simplex value; the pretrained embedding's is higher than every trained head's; CircularCSE follows the circle's
    cos Δθ more closely than SINCERE."""
    g0 = _ngpt_geometry(geo)
    E = n_labels
    return [
        dict(id="fig4-sincere-near-zero:full-width",
             claim="Fig 4 / §5.1: under SINCERE the AvgCosSim between different labels is near 0 (orthogonal), not at "
                   f"the simplex value -1/(E-1) = {-1 / (E - 1):.3f}", kind="paper",
             source="§5.1", paper_value=0, ours=stats.sample(g0[("mean_offdiag", "SINCERE")].to_numpy()),
             criterion=stats.level(0.0, tol=round(0.5 / (E - 1), 4), tol_reason="half the way to -1/(E-1)"),
             regime=regime, validity=trained_checks(runs, {**_NGPT, "loss": "SINCERE"}),
             note=f"pretrained MiniLM: {pretrained['mean_offdiag']:.3f}"),
        dict(id="fig4-pretrained-high",
             claim="Fig 4 / §4.3: the pretrained embedding has higher AvgCosSim between different labels than every "
                   "trained nGPT head (pretrained minus the largest trained mean)", kind="paper",
             source="§4.3", paper_value="high similarity across all label pairs when pretrained",
             ours=stats.sample((pretrained["mean_offdiag"] - g0["mean_offdiag"].max(axis=1)).to_numpy()),
             criterion=stats.direction(sign=+1), regime=regime,
             validity=trained_checks(runs, {**_NGPT, "loss": list(losses)})),
        dict(id="fig4-circular-follows-circle",
             claim="Fig 4 / §4.3: CircularCSE's AvgCosSim follows the circle's cos Δθ more closely than SINCERE's "
                   "(Pearson r with cos Δθ over label pairs, CircularCSE minus SINCERE)",
             kind="paper", source="§4.3", paper_value="CircularCSE aligns label-pair similarity with the circle",
             ours=stats.paired(g0[("r_circle", "CircularCSE")].to_numpy(), g0[("r_circle", "SINCERE")].to_numpy()),
             criterion=stats.direction(sign=+1), regime=regime,
             validity=trained_checks(runs, {**_NGPT, "loss": ["SINCERE", "CircularCSE"]}),
             note="r mean over seeds: " + ", ".join(f"{loss} {g0[('r_circle', loss)].mean():.3f}" for loss in losses)
                  + f"; pretrained {pretrained['r_circle']:.3f}"),
    ]


def fig5a_claims(fig5a: pd.DataFrame, runs: pd.DataFrame, paper_rows: pd.DataFrame, *, backbone: str,
                 losses: Sequence[str], regime: str) -> list[dict]:
    """Fig 5a / §5.1 on the V-Measure after PCA of the nGPT heads (``fig5a``: :func:`pca_frame`): cut to 2
    dimensions, SINCERE loses more than CircularCSE; at 2 dimensions CircularCSE is at least SINCERE; at the full
    width CircularCSE is below SINCERE, against the gap of ``paper_rows`` (the Table 4 rows of the figure's
    ``backbone``, whose Average cells are the curves' ends without PCA)."""
    v5 = fig5a.pivot_table(index="seed", columns=["loss", "k"], values="V")
    checks = trained_checks(runs, {**_NGPT, "loss": ["SINCERE", "CircularCSE"]})
    end = {loss: paper_rows.loc[(loss, "nGPT"), "Average V-Measure"] for loss in ("SINCERE", "CircularCSE")}
    gap = round(float(end["CircularCSE"]) - float(end["SINCERE"]), 3)
    kmax = int(fig5a["k"].max())
    drop = {loss: v5[(loss, kmax)] - v5[(loss, 2)] for loss in losses}
    return [
        dict(id="fig5a-sincere-needs-dims:full-width",
             claim="Fig 5a: cut by PCA from the head's full width to 2 dimensions, SINCERE loses more V-Measure than "
                   "CircularCSE (drop of SINCERE minus drop of CircularCSE)",
             kind="paper", source="§5.1", paper_value="CircularCSE keeps its accuracy in low dimensions",
             ours=stats.paired(drop["SINCERE"].to_numpy(), drop["CircularCSE"].to_numpy()),
             criterion=stats.direction(sign=+1), regime=regime, validity=checks),
        dict(id="fig5a-circular-ahead-at-2d:full-width",
             claim="Fig 5a: at 2 PCA dimensions CircularCSE's V-Measure is at least SINCERE's (CircularCSE minus "
                   "SINCERE at k = 2)", kind="paper", source="§5.1",
             paper_value="CircularCSE keeps its accuracy in low dimensions",
             ours=stats.paired(v5[("CircularCSE", 2)].to_numpy(), v5[("SINCERE", 2)].to_numpy()),
             criterion=stats.direction(sign=+1), regime=regime, validity=checks,
             note="at k = 2: " + ", ".join(f"{loss} {v5[(loss, 2)].mean():.3f}" for loss in losses)),
        dict(id="fig5a-circular-below-at-full-width",
             claim="Fig 5a / §5.1: at the head's full width (PCA keeping every dimension) CircularCSE's V-Measure is "
                   "below SINCERE's (CircularCSE minus SINCERE, nGPT heads; without PCA the figure's mE5 heads are "
                   "Table 4's Average cells)",
             kind="paper", source=f"Table 4, {backbone}, Average V-Measure, CircularCSE nGPT - SINCERE "
                                  f"nGPT: {end['CircularCSE']} - {end['SINCERE']}",
             paper_value=gap,
             ours=stats.paired(v5[("CircularCSE", kmax)].to_numpy(), v5[("SINCERE", kmax)].to_numpy()),
             criterion=stats.direction(paper_effect=gap), regime=regime + "; the paper averages four data sets",
             validity=checks,
             note=f"at k = {kmax}: " + ", ".join(f"{loss} {v5[(loss, kmax)].mean():.3f}" for loss in losses)),
    ]


def margin_claims(runs: pd.DataFrame, *, kind: str, tol: Mapping[str, float], tol_reason: str, regime: str
                  ) -> list[dict]:
    """App. D: CircularCSE with each margin m > 0 against m = 0 (``kind`` heads, paired by seed), V and CD-r within
    ``tol`` of no change, with the validity checks of both runs."""
    sub = runs[(runs["kind"] == kind) & (runs["loss"] == "CircularCSE")]
    grid = sub.pivot_table(index="seed", columns="margin", values=["V", "CD-r"])
    claims = []
    for m in sorted(x for x in sub["margin"].unique() if x > 0):
        where = {"kind": kind, "loss": "CircularCSE", "margin": [0.0, float(m)]}
        for col in ("V", "CD-r"):
            with_m, without = grid[(col, m)], grid[(col, 0.0)]
            claims.append(dict(
                id=f"margin-negligible:m{m:g}:{col}", kind="paper", source="App. D",
                claim=f"App. D: CircularCSE's {col} barely changes with the margin (m = {m:g} minus m = 0, {kind} "
                      "head, paired by seed)",
                paper_value="a negligible change", ours=stats.paired(with_m.to_numpy(), without.to_numpy()),
                criterion=stats.level(0.0, tol=tol[col], tol_reason=tol_reason), regime=regime,
                validity=v_gap_checks(runs, where, f"{kind}/CircularCSE/m={float(m):g}", f"{kind}/CircularCSE",
                                      what=f"V gap m = {m:g} - m = 0") if col == "V" else trained_checks(runs, where),
                note=f"mean over seeds: m = {m:g} {with_m.mean():.3f}, m = 0 {without.mean():.3f}"))
    return claims
