r"""The entropic yardstick's trained geometry: Emolit heads read against the free-vector optima, SimCSE at the
SimACE angle's effective temperature, and the closing summary table (``notebooks/synthesis/02-entropic-yardstick``;
the overview is :mod:`companion.papers.synthesis.theory`).

* the heads: :data:`HEAD_LOSSES`, :func:`head_loss`, :func:`emolit_heads` (``circumplex/02``'s saved heads or
  trained here with its recipe), their label geometry (:func:`label_geometry`, :func:`head_geometry_table`,
  :func:`predicted_between`, :func:`ring_gap`, :func:`predicted_gap`);
* the SimACE runs: :data:`SIMACE_REFERENCE`, :func:`matched_temperatures`, :func:`temperature_jobs` and the
  criterion :func:`explained_within`;
* :func:`summary_table`: one row per objective, with the verdicts read from the ledger.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch

from companion import stats
from companion.losses.circumplex import ECM_LABELS, LOSSES, ecm_index
from companion.losses.core import contrastive_nll
from companion.losses.weighted import cosine_similarities, soft_supcon_beta, soft_supcon_weights
from companion.papers.circumplex.experiments import head_run_key, head_settings
from companion.papers.circumplex.geometry import avg_cos_sim
from companion.papers.circumplex.heads import make_head, train_head
from companion.papers.simace import run_jobs
from companion.papers.synthesis.theory_placement import (
    OBJECTIVES,
    RING_DEGREES,
    effective_temperature,
    softcse_optimal_gram,
)
from companion.training import run_profile

# --------------------------------------------------------------------------------------------- trained heads
#: head losses trained on the Emolit features besides the circumplex paper's three (the zoo's hyper-parameters)
HEAD_LOSSES = ("SINCERE", "SoftCSE", "CircularCSE", "SupCon", "Soft SupCon")


def head_loss(name: str) -> Callable[[torch.Tensor, Sequence[str]], torch.Tensor]:
    """``loss(embeddings, labels)`` of a head loss of :data:`HEAD_LOSSES`: the circumplex paper's three as in
    ``circumplex/02`` (τ = 0.05), SupCon and Soft SupCon (τ = 0.1, ε = 0.01, the zoo's) over the anchors that have
    a positive in the batch (:func:`companion.losses.core.contrastive_nll`, self-pairs out)."""
    if name in LOSSES:
        return LOSSES[name]
    if name not in HEAD_LOSSES:
        raise ValueError(f"Unknown head loss {name!r}; choose one of {', '.join(HEAD_LOSSES)}.")

    def loss(emb: torch.Tensor, labels: Sequence[str]) -> torch.Tensor:
        ids = ecm_index(list(labels)).to(emb.device)
        eye = torch.eye(len(ids), dtype=torch.bool, device=emb.device)
        S = cosine_similarities(emb, 0.1)
        if name == "SupCon":
            W = ((ids[:, None] == ids[None, :]) & ~eye).to(S.dtype)
        else:
            W = soft_supcon_weights(ids, 0.01).to(dtype=S.dtype, device=S.device)
        return contrastive_nll(S, W, denominator_mask=~eye)

    return loss


def emolit_heads(saved: Mapping, train_states, train_labels: Sequence[str], *, losses: Sequence[str],
                 seeds: Sequence[int], steps: int, batch_size: int, lr: float, n_heads: int, kind: str = "GPT",
                 pooling: str = "mean", base_scale: str | float = "backbone", clip_norm: float | None = 1.0,
                 profile: str | None = None):
    """GPT heads on the frozen Emolit features, one per loss of ``losses`` and seed: the weights ``circumplex/02``
    saved (``saved[("Emolit", kind, loss, "state", seed)]``) where they were trained with these settings (its record
    ``saved[("Emolit", kind, loss, "settings", seed)]`` equal to
    :func:`companion.papers.circumplex.experiments.head_settings` of them: steps, batch, learning rate, heads,
    ``pooling``, ``base_scale``, ``clip_norm``) and fit, otherwise trained here with them
    (:func:`companion.papers.circumplex.heads.train_head`). Returns ``(heads, source, losses)``:
    ``{(loss, seed): head}``, where each came from, and ``{(loss, seed): (first loss, final loss)}`` for the heads
    trained here (the mean of the last five steps, as ``circumplex/02`` records it). A head trained here in a run of
    the gpu ``profile`` (the notebook's ``cfg.profile``) checkpoints under its run key
    (:func:`companion.training.gpu_checkpoint`)."""
    heads, source, record = {}, {}, {}
    for seed in seeds:
        for name in losses:
            settings = head_settings(kind, name, train_states, steps=steps, batch_size=batch_size, lr=lr, seed=seed,
                                     n_heads=n_heads, pooling=pooling, base_scale=base_scale, clip_norm=clip_norm)
            state = saved.get(("Emolit", kind, name, "state", seed))
            same = saved.get(("Emolit", kind, name, "settings", seed)) == settings
            kw = {} if settings["base_scale_value"] is None else {"base_scale": settings["base_scale_value"]}
            head = make_head(kind, train_states.dim, n_heads=n_heads, pooling=pooling, **kw)
            if same and state is not None and all(k in state and state[k].shape == v.shape
                                                  for k, v in head.state_dict().items()):
                head.load_state_dict(state)
                source[(name, seed)] = "circumplex/02 cache"
            else:
                key = head_run_key(settings, train_states, train_labels, trained_only=True,
                                   losses="synthesis") if run_profile(profile) == "gpu" else None  # its checkpoint
                head, result = train_head(kind, head_loss(name), train_states, list(train_labels), steps=steps,
                                          batch_size=min(batch_size, len(train_labels)), lr=lr, seed=seed,
                                          n_heads=n_heads, progress=False, pooling=pooling, base_scale=base_scale,
                                          clip_norm=clip_norm, checkpoint_key=key, profile=profile)
                curve = [h["loss"] for h in result.history if "loss" in h]
                record[(name, seed)] = (curve[0], float(np.mean(curve[-5:])))
                source[(name, seed)] = "trained here"
            heads[(name, seed)] = head.eval()
    return heads, source, record


def label_geometry(emb, labels: Sequence[str], tau_softcse: float = 0.05) -> dict[str, float]:
    """The label geometry of embeddings with ECM labels (every label present at least twice):

    * ``between``: the mean AvgCosSim between different labels (a regular simplex, SoftCSE's tilt and the ring all
      give −1/11: it cannot tell them apart);
    * ``ring_gap``: the mean AvgCosSim of adjacent labels (30° apart on the ring) minus that of opposite labels
      (180° apart): how far the label cosines fall with the angular distance (:func:`predicted_gap`: the ring
      1 + √3/2 = 1.866, SoftCSE's tilt about 0.135 at τ = 0.05, a simplex 0);
    * ``ring_r``: Pearson r of AvgCosSim with cos Δθ over the label pairs (the ring: 1);
    * ``softcse_r``: Pearson r with SoftCSE's optimal Gram (:func:`softcse_optimal_gram`);
    * ``within``: the mean AvgCosSim of a label with itself (collapse: 1)."""
    present = [c for c in ECM_LABELS if c in set(labels)]
    if len(present) != len(ECM_LABELS):
        raise ValueError("label_geometry() needs every ECM label.")
    A, classes = avg_cos_sim(emb, list(labels), present)
    C = len(classes)
    iu = np.triu_indices(C, 1)
    ring = np.cos(np.radians(np.subtract.outer(RING_DEGREES, RING_DEGREES)))
    soft = softcse_optimal_gram(RING_DEGREES, tau_softcse)
    a = np.asarray(A)[iu]
    return {"between": float(a.mean()), "ring_gap": ring_gap(np.asarray(A)),
            "ring_r": float(np.corrcoef(a, ring[iu])[0, 1]),
            "softcse_r": float(np.corrcoef(a, soft[iu])[0, 1]), "within": float(np.diag(np.asarray(A)).mean())}


def ring_gap(gram) -> float:
    """The mean of a 12 × 12 label Gram (rows and columns in the ECM ring's order, :data:`RING_DEGREES`) over the
    label pairs 30° apart minus its mean over the pairs 180° apart: 0 for any Gram that does not depend on the
    angular distance (a regular simplex, Soft SupCon's uniform β), 1 + √3/2 for the ring cos Δθ.

    >>> ring = np.cos(np.radians(np.subtract.outer(RING_DEGREES, RING_DEGREES)))
    >>> round(ring_gap(ring), 4)
    1.866
    """
    dtheta = np.abs(np.subtract.outer(RING_DEGREES, RING_DEGREES)) % 360
    dtheta = np.minimum(dtheta, 360 - dtheta)
    g = np.asarray(gram, dtype=float)
    return float(g[np.isclose(dtheta, 30)].mean() - g[np.isclose(dtheta, 180)].mean())


def head_geometry_table(geometry: Mapping[tuple[str, int], Mapping[str, float]]):
    """One row per (loss, seed) of :func:`label_geometry` results, with the between-label cosine and the
    adjacent-minus-opposite gap of the loss's free-vector optimum (:func:`predicted_between`,
    :func:`predicted_gap`) beside them."""
    rows = [{"loss": loss, "seed": seed, **values, "between at the optimum": predicted_between(loss),
             "gap at the optimum": predicted_gap(loss)} for (loss, seed), values in geometry.items()]
    return pd.DataFrame(rows)


def predicted_gap(loss: str) -> float:
    """:func:`ring_gap` at the free-vector optimum of a head loss: the ring's 1 + √3/2 for CircularCSE, the tilted
    simplex's τ log((1 − cos 180°)/(1 − cos 30°)) for SoftCSE (τ = 0.05, :func:`softcse_optimal_gram`), 0 for SINCERE
    and SupCon (a regular simplex) and Soft SupCon (every pair at β)."""
    if loss not in HEAD_LOSSES:
        raise ValueError(f"Unknown head loss {loss!r}.")
    if loss == "CircularCSE":
        return ring_gap(np.cos(np.radians(np.subtract.outer(RING_DEGREES, RING_DEGREES))))
    if loss == "SoftCSE":
        return ring_gap(softcse_optimal_gram(RING_DEGREES, 0.05))
    return 0.0


def predicted_between(loss: str, n_classes: int = 12) -> float:
    """The between-label mean cosine at the free-vector optimum of a head loss: −1/(C−1) for SINCERE, SoftCSE
    (its rows sum to −1), CircularCSE (the ring), SupCon; 1 + τ log ε for Soft SupCon (τ = 0.1, ε = 0.01)."""
    if loss == "Soft SupCon":
        return soft_supcon_beta(0.1, 0.01)
    if loss not in HEAD_LOSSES:
        raise ValueError(f"Unknown head loss {loss!r}.")
    return -1.0 / (n_classes - 1)


# --------------------------------------------------------------------------------------------- SimACE runs
#: simace/02's runs this notebook reloads (their names there: simace's MAIN and CONTROLS)
SIMACE_REFERENCE = ("SimCSE", "ArcCon", "SimCSE τ=0.06", "SimACE", "SimACE m=0°")


def matched_name(tau: float) -> str:
    return f"SimCSE τ={tau:.4f}"


def matched_temperatures(batch_size: int) -> dict[str, float]:
    """SimCSE temperatures matched to SimACE at τ = 0.06 (m = 0° and the paper's m = 10°) for this batch size,
    rounded to 4 decimals: ``{simace run name: tau_eff}``."""
    return {"SimACE m=0°": round(effective_temperature(0.06, batch_size, 0.0), 4),
            "SimACE": round(effective_temperature(0.06, batch_size, 10.0), 4)}


def temperature_jobs(seeds: Sequence[int], batch_size: int) -> list[tuple[str, tuple[str, float, float], int]]:
    """The runs of the effective-temperature test, seed-major: simace/02's :data:`SIMACE_REFERENCE` (reloaded from
    its cache where it trained them, the same names and settings) and SimCSE at each matched temperature
    (:func:`matched_temperatures`), all with the same batches per seed."""
    matched = sorted(set(matched_temperatures(batch_size).values()))
    jobs = []
    for seed in seeds:
        jobs += run_jobs([seed], SIMACE_REFERENCE)
        jobs += [(matched_name(t), ("simcse", t, 0.0), int(seed)) for t in matched]
    return jobs


def explained_within(reference: stats.Comparison, fraction: float = 0.5, what: str = "the reference gain"
                     ) -> stats.Criterion:
    """A residual A − B is *explained away* when its 95 % CI lies within ± ``fraction`` × |``reference``| (a gain
    measured on the same seeds, e.g. SimACE's equal-temperature gain over SimCSE): :func:`companion.stats.level`
    around 0 with that tolerance. The text depends on ``fraction`` and ``what`` only; the tolerance is read from
    ``reference`` when the claim is judged (the reference is measured, like the zoo's Holm-adjusted p). A
    reference whose CI covers 0 leaves nothing to explain: inconclusive."""
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must lie in (0, 1), got {fraction!r}.")
    desc = (f"residual A - B within +/- {fraction:g} x |{what}| (measured on the same seeds): its CI inside that band: "
            f"reproduced (explained); entirely outside: not reproduced; straddling it: inconclusive; a reference "
            f"whose CI covers 0: inconclusive (nothing to explain)")

    def rule(ours):
        if reference.excludes_zero() == 0:
            return stats.Judgement("inconclusive", f"the reference gain {reference} is not shown to differ from 0: "
                                                   "there is no gain to explain")
        tol = fraction * abs(reference.estimate)
        return stats.level(0.0, tol=tol, tol_reason=f"{fraction:g} x |{what}|").judge(ours)

    return stats.Criterion(desc, rule, name="explained_within", params={"fraction": fraction, "what": what})


# --------------------------------------------------------------------------------------------- summary
def summary_table(claims: Sequence[Mapping[str, Any]], numerical: Mapping[str, str], trained: Mapping[str, str],
                  claim_ids: Mapping[str, Sequence[str]]):
    """The closing table: one row per objective of :data:`OBJECTIVES` — where it sits in the framework, its
    predicted optimum, the numerical optimum on free vectors (``numerical[key]``), the trained geometry
    (``trained[key]``, "-" where no trained run is measured) and the verdicts of its claims (``claim_ids[key]``,
    read from the ledger's ``claims``)."""
    verdicts = {c["id"]: c["verdict"] for c in claims}
    rows = []
    for key, o in OBJECTIVES.items():
        ids = list(claim_ids.get(key, ()))
        missing = [i for i in ids if i not in verdicts]
        if missing:
            raise KeyError(f"summary_table(): claims {missing} are not in the ledger.")
        place = "inside: " + o.why if o.inside else "outside: " + o.why
        rows.append({"objective": o.name, "where it sits": place, "bound": o.bound, "predicted optimum": o.prediction,
                     "numerical optimum": numerical.get(key, "-"), "trained geometry": trained.get(key, "-"),
                     "verdicts": "; ".join(f"{i}: {verdicts[i]}" for i in ids) or "-"})
    return pd.DataFrame(rows).set_index("objective")
