r"""The Table 4 claims of notebooks 02 and 05 of the circumplex paper (Yamauchi & Aizawa, ACL 2026, §4, Table 4,
§5.1), and Table 4's rows as transcribed (:func:`table4_rows`, which notebooks 03 and 04 read too).

Each ordering the paper states ("CircularCSE has the lowest V-Measure", ...) is graded on the same quantity on both
sides: our per-seed gap (e.g. the lowest V of the other two losses minus CircularCSE's) against the same gap in the
paper's Table 4 cell of one backbone, with the tolerance of :func:`companion.stats.tolerance` (half the paper's gap:
Table 4 prints one seed per cell, no spread). :func:`table4_claims` returns the claims of one data set as keyword
arguments of :meth:`companion.results.Ledger.claim` (with the validity checks measured on the compared runs), in the
order the notebook records them. :func:`regimes_side_by_side` sets the claims of one regime (a fine-tuned backbone)
beside the same claims of another (the frozen backbone's head).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from companion import stats
from companion.papers.circumplex.validity import quantity_plateau, trained_checks
from companion.papers.tables import paper_table

__all__ = ["ORDERINGS", "ordering_gap", "table4_claims", "table4_rows", "beside_table4", "regimes_side_by_side"]

#: (claim name, our column, the paper's column, the loss, "lowest" / "highest"): the orderings of §4 and §5.1.
ORDERINGS = (("circular-lowest-V", "V", "V-Measure", "CircularCSE", "lowest"),
             ("circular-highest-CDr", "CD-r", "CD-r", "CircularCSE", "highest"),
             ("sincere-lowest-CDr", "CD-r", "CD-r", "SINCERE", "lowest"))
HEADS = ("GPT", "nGPT")


def table4_rows(backbone: str) -> pd.DataFrame:
    """The paper's Table 4 rows of one ``backbone`` (``data/circumplex/table4.csv``, cells as printed, strings),
    indexed by ``(method, head)``; the pretrained row is ``("Pretrained", "")``."""
    table = paper_table("circumplex", "table4")
    rows = table[table.base_model == backbone]
    if rows.empty:
        raise ValueError(f"Table 4 has no backbone {backbone!r}; it has {', '.join(table.base_model.unique())}.")
    return rows.set_index(["method", "head"])


def beside_table4(runs: pd.DataFrame, paper: pd.DataFrame, paper_sets: Mapping[str, str]) -> pd.DataFrame:
    """Our mean V and CD-r over seeds next to the paper's cell, for every Table 4 row of ``paper``
    (:func:`table4_rows`) and every data set of ``paper_sets`` (ours -> the paper's column). ``runs`` has one row
    per run with ``dataset``, ``head``, ``loss`` (``"pretrained"`` with head ``"-"`` for the pretrained row)."""
    ours = runs.groupby(["dataset", "head", "loss"])[["V", "CD-r"]].mean()
    side = []
    for ds, pds in paper_sets.items():
        for (method, head), row in paper.iterrows():
            key = (ds, "-", "pretrained") if method == "Pretrained" else (ds, head, method)
            if key not in ours.index:
                raise ValueError(f"no run of {key} to set beside Table 4's {method} {head or ''} row.")
            side.append({"data set (ours / paper)": f"{ds} / {pds}", "method": method, "head": head or "-",
                         "V ours": ours.loc[key, "V"], "V paper": float(row[f"{pds} V-Measure"]),
                         "CD-r ours": ours.loc[key, "CD-r"], "CD-r paper": float(row[f"{pds} CD-r"])})
    return pd.DataFrame(side)


def ordering_gap(ours: pd.DataFrame, paper: Mapping[str, str], col: str, kind: str, target: str, where: str,
                 losses: Sequence[str]) -> tuple[pd.Series, str, str]:
    """The gap by which ``target`` is the ``where`` (``"lowest"`` / ``"highest"``) of ``losses`` on ``col`` for the
    ``kind`` head: per seed, ours (columns ``(col, kind, loss)`` of ``ours``, one row per seed) — the others' minimum
    minus the target for ``lowest``, the target minus the others' maximum for ``highest`` — and the paper's cells
    ``a``, ``b`` (as printed) whose difference ``a - b`` is the same gap in ``paper`` (loss -> cell)."""
    if where not in ("lowest", "highest"):
        raise ValueError(f"where must be 'lowest' or 'highest', got {where!r}.")
    others = [loss for loss in losses if loss != target]
    if where == "lowest":
        gaps = ours[[(col, kind, o) for o in others]].min(axis=1) - ours[(col, kind, target)]
        bind = min(others, key=lambda o: float(paper[o]))
        return gaps, paper[bind], paper[target]
    gaps = ours[(col, kind, target)] - ours[[(col, kind, o) for o in others]].max(axis=1)
    bind = max(others, key=lambda o: float(paper[o]))
    return gaps, paper[target], paper[bind]


def _ordering_checks(runs, ds: str, kind: str, col: str, target: str, where: str, losses: Sequence[str],
                     gap: float) -> list:
    """The validity checks of one ordering claim, on its own quantity: the compared runs trained and, for a V-Measure
    ordering, the gap itself (the others' minimum minus the target, or the target minus the others' maximum) flat
    from the budget on (:func:`~companion.papers.circumplex.validity.quantity_plateau`). CD-r is measured at the
    end of training only: its claims have the trained check alone (V-Measure's curve is another quantity)."""
    selected = {"dataset": ds, "head": kind, "loss": list(losses)}
    checks = trained_checks(runs, selected)
    if col != "V" or runs is None or len(runs) == 0:
        return checks
    others = [f"{kind}/{o}" for o in losses if o != target]
    mine = f"{kind}/{target}"
    if where == "lowest":
        def quantity(side):
            return side[others].min(axis=1) - side[mine]
    else:
        def quantity(side):
            return side[mine] - side[others].max(axis=1)
    return [checks[0], quantity_plateau(runs, selected, quantity, what=f"{kind} V gap ({target} {where})", gap=gap)]


def _beat_pretrained_checks(runs, ds: str, losses: Sequence[str], pretrained_v: float, gap: float) -> list:
    """The checks of "every trained variant beats the pretrained V": all six runs trained, and the lowest trained
    V minus the pretrained V (the claim's quantity) flat from the budget on."""
    selected = {"dataset": ds, "head": list(HEADS), "loss": list(losses)}
    checks = trained_checks(runs, selected)
    if runs is None or len(runs) == 0:
        return checks
    return [checks[0], quantity_plateau(runs, selected, lambda side: side.min(axis=1) - pretrained_v,
                                        what="lowest trained V minus the pretrained V", gap=gap)]


def table4_claims(ds: str, paper_set: str, ours: pd.DataFrame, pretrained_v: float, paper: pd.DataFrame,
                  runs: pd.DataFrame | None, *, regime: str, n_labels: int, head_dim: int, backbone: str,
                  losses: Sequence[str], pretrained_name: str = "MiniLM mean pooling") -> list[dict]:
    """The claims of data set ``ds`` against the paper's ``paper_set`` column of Table 4 (row ``backbone``).

    ``ours``: per-seed values (rows) with columns ``(metric, head, loss)`` for V, CD-r and ``mean_offdiag_cos``;
    ``pretrained_v``: the V-Measure of the pretrained embedding; ``paper``: the backbone's Table 4 rows indexed by
    ``(method, head)`` (``("Pretrained", "")`` for the pretrained row) with the cells as printed; ``runs``: the
    trained runs (one row per run with ``dataset``, ``head``, ``loss``, ``seed``, ``steps``, ``first_loss``,
    ``final_loss`` and, for the probed runs, ``curve``), from which each claim's validity checks are measured
    (the compared runs trained; a V claim's own quantity, the gap it compares, flat from the budget on:
    :func:`companion.papers.circumplex.validity.quantity_plateau`; CD-r and the cosine have no curve, so the trained
    check alone). Returns, in order, the three orderings for both heads, "every trained variant beats the
    pretrained V" and, for both heads, §5.1's "SINCERE settles at orthogonal labels" (``n_labels`` labels, heads of
    width ``head_dim``). ``pretrained_name`` says in the note which embedding the pretrained row is (the backbone
    and its pooling)."""
    claims = []
    for name, col, pcol, target, where in ORDERINGS:
        for kind in HEADS:
            pv = {loss: paper.loc[(loss, kind), f"{paper_set} {pcol}"] for loss in losses}
            gaps, a, b = ordering_gap(ours, pv, col, kind, target, where, losses)
            paper_gap = round(float(a) - float(b), 3)
            measured = stats.sample(gaps.to_numpy())
            claims.append(dict(
                id=f"{ds}:{name}:{kind}",
                claim=f"{ds}, {kind} head: {target} has the {where} {col} of the three losses "
                      f"({'min of the others minus ' + target if where == 'lowest' else target + ' minus max of the others'})",
                kind="paper", source=f"Table 4, {backbone}, {paper_set}, {pcol}, {kind} heads: {a} - {b}",
                paper_value=paper_gap, ours=measured,
                criterion=stats.direction(paper_effect=paper_gap),
                regime=regime,
                validity=_ordering_checks(runs, ds, kind, col, target, where, losses, measured.estimate),
                note=f"paper cells ({backbone}, {paper_set}, {kind}): "
                     + ", ".join(f"{loss} {pv[loss]}" for loss in losses)
                     + "; ours (mean over seeds): "
                     + ", ".join(f"{loss} {ours[(col, kind, loss)].mean():.3f}" for loss in losses)))
    gaps = ours["V"].min(axis=1) - pretrained_v
    pv = {(loss, kind): paper.loc[(loss, kind), f"{paper_set} V-Measure"] for kind in HEADS for loss in losses}
    low = min(pv, key=lambda k: float(pv[k]))
    p_pre = paper.loc[("Pretrained", ""), f"{paper_set} V-Measure"]
    paper_gap = round(float(pv[low]) - float(p_pre), 3)
    measured = stats.sample(gaps.to_numpy())
    claims.append(dict(
        id=f"{ds}:trained-beat-pretrained-V",
        claim=f"{ds}: every trained variant beats the pretrained embedding on V (min over the 6 variants − pretrained)",
        kind="paper", source=f"Table 4, {backbone}, {paper_set}, V-Measure: {pv[low]} - {p_pre}",
        paper_value=paper_gap, ours=measured,
        criterion=stats.direction(paper_effect=paper_gap),
        regime=regime,
        validity=_beat_pretrained_checks(runs, ds, losses, pretrained_v, measured.estimate),
        note=f"pretrained V: ours {pretrained_v:.3f} ({pretrained_name}), paper {p_pre}; lowest trained paper cell "
             f"{low[1]}/{low[0]} {pv[low]}"))
    E = n_labels
    for kind in HEADS:
        cos = ours[("mean_offdiag_cos", kind, "SINCERE")].to_numpy()
        claims.append(dict(
            id=f"{ds}:sincere-orthogonal:{kind}",
            claim=f"{ds}, {kind} head: under SINCERE the mean cosine between different labels settles near 0 "
                  f"(orthogonal labels), not at the simplex value -1/(E-1) = {-1 / (E - 1):.3f}",
            kind="paper", source="§5.1", paper_value=0, ours=stats.sample(cos),
            criterion=stats.level(0.0, tol=round(0.5 / (E - 1), 4),
                                  tol_reason="half the distance from 0 to the simplex value -1/(E-1)"),
            regime=f"head width {head_dim}; {regime}",
            # the gates read the claim's own quantity: the cosine is measured at the end of training only, so
            # the SINCERE runs' trained check applies and V-Measure's plateau (another quantity) does not
            validity=trained_checks(runs, {"dataset": ds, "head": kind, "loss": "SINCERE"}),
            note="mean AvgCosSim over pairs of different labels, test set, per seed, at the end of training (no "
                 "curve of it is logged, so no plateau check of its own: the V-Measure's would read another quantity)"))
    return claims


def _mean_of(claim: Mapping) -> float | None:
    st = claim.get("stats") or {}
    if st.get("estimate") is not None:
        return float(st["estimate"])
    ours = claim.get("ours")
    return float(ours) if isinstance(ours, (int, float)) and not isinstance(ours, bool) else None


def regimes_side_by_side(here: Sequence[Mapping], other: Mapping | None, *, here_name: str, other_name: str
                         ) -> pd.DataFrame:
    """The claims ``here`` (a ledger's claim records: ``id``, ``paper_value``, ``stats`` (its ``estimate``) or
    ``ours``, ``verdict``) beside the claims of the same id in ``other`` (another notebook's saved ledger, a dict with
    ``claims``; None when that notebook has not been run with this profile): one row per claim id of ``here``, with
    the paper's value, our mean and the verdict under each regime's name (empty where ``other`` has no such claim).
    The paper's values differ where the two regimes are graded against different rows of the paper's table."""
    theirs = {c["id"]: c for c in (other or {}).get("claims", [])}
    rows = []
    for c in here:
        o = theirs.get(c["id"], {})
        rows.append([c.get("paper_value"), _mean_of(c), c.get("verdict", ""),
                     o.get("paper_value"), _mean_of(o) if o else None, o.get("verdict", "")])
    columns = pd.MultiIndex.from_product([[here_name, other_name], ["paper", "ours", "verdict"]])
    return pd.DataFrame(rows, columns=columns, index=pd.Index([c["id"] for c in here], name="claim"))
