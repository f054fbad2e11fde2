"""Helpers of the errata notebook (``notebooks/synthesis/00-errata``): printed averages against the mean of their
printed cells, numbers as printed (and the notebook's readers of stated numbers and transcribed tables), SimACE's
loss with its margin read in radians trained on free vectors, the circumplex cells printed in two tables with their
marks, the concept paper's two definitions of anisotropy and effective rank (clouds on which they disagree, and
which definition each of the companion's claims uses), and the summary figure.

A table's average printed with two decimals, of cells printed with two decimals, can differ from the mean of the
printed cells by up to 0.005 (each cell rounded) + 0.005 (the average rounded) = :data:`ROW_MEAN_TOL`; only a larger
difference shows that the printed average is not the average of that row.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from companion.display import panel_grid
from companion.losses.angle import eq6_code, eq6_literal
from companion.losses.core import contrastive_nll
from companion.papers.synthesis.definitions import NAMESPACE as ns
from companion.papers.tables import paper_table as read
from companion.similarities import angle_matrix, cosine_matrix

#: the largest |printed average - mean of the printed cells| that rounding explains (two-decimal cells and average)
ROW_MEAN_TOL = 0.01


def as_number(cell) -> float:
    """A cell as printed -> float: ``"30°"`` -> 30, ``"3,063"`` -> 3063, ``"3k"`` -> 3000, ``"−0.111"`` -> -0.111."""
    if isinstance(cell, (int, float)) and not isinstance(cell, bool):
        return float(cell)
    text = str(cell).strip().replace("−", "-").replace(",", "")
    m = re.fullmatch(r"([+-]?\d+(?:\.\d+)?)\s*(°|%|[kK])?", text)
    if not m:
        raise ValueError(f"not a printed number: {cell!r}")
    value = float(m.group(1))
    return value * 1000 if m.group(2) in ("k", "K") else value


def average_mismatches(table, cells: Sequence[str], avg: str, keys: Sequence[str], tol: float = ROW_MEAN_TOL):
    """One row per table row with a printed average: the printed average, the mean of its printed ``cells``, the
    absolute difference and ``off`` (= difference > ``tol``). Rows whose average cell is empty are skipped."""
    rows = []
    for _, r in table.iterrows():
        printed = r[avg]
        if printed is None or (isinstance(printed, float) and math.isnan(printed)) or str(printed).strip() == "":
            continue
        values = [as_number(r[c]) for c in cells]
        mean = sum(values) / len(values)
        printed = as_number(printed)
        rows.append({**{k: r[k] for k in keys}, "printed avg": printed, "row mean": round(mean, 4),
                     "|printed - mean|": round(abs(printed - mean), 4), "off": abs(printed - mean) > tol})
    return pd.DataFrame(rows)


def simace_logits_radians(z1: torch.Tensor, z2: torch.Tensor, tau: float, margin_rad: float) -> torch.Tensor:
    """SimACE's Eq. 9 logits with the margin read in radians, whatever its size: the angle similarity
    theta = pi/2 - arccos(cos) of every pair, the margin subtracted on the diagonal (the positives), all over tau.
    (The library's loss refuses a margin outside (-90, 90) degrees; this is the reading §4.2's '10 (radians)'
    gives.)"""
    theta = angle_matrix(z1, z2)
    eye = torch.eye(theta.shape[0], dtype=torch.bool, device=theta.device)
    return torch.where(eye, theta - margin_rad, theta) / tau


def decoupled_angle_loss(z1: torch.Tensor, z2: torch.Tensor, tau: float) -> torch.Tensor:
    """The decoupled contrastive loss on SimACE's angles (the positive left out of the denominator), mean over
    anchors: -theta_ii/tau + log sum_{j != i} exp(theta_ij/tau)."""
    theta = angle_matrix(z1, z2) / tau
    eye = torch.eye(theta.shape[0], dtype=torch.bool, device=theta.device)
    return (-theta.diagonal() + torch.logsumexp(theta.masked_fill(eye, float("-inf")), dim=1)).mean()


def simace_margin_toy(margin_rad: float, *, n: int = 64, dim: int = 32, tau: float = 0.06, steps: int = 200,
                      lr: float = 0.05, seed: int = 0) -> dict[str, float]:
    """SimACE's loss (Eq. 9, margin ``margin_rad`` in radians) trained on free vectors: two views ``z1``, ``z2`` of
    ``n`` items, ``dim`` dimensions, drawn independently (float64, seeded), moved by Adam for ``steps`` steps.

    Returns the loss at the start, its distance to the decoupled loss plus ``margin_rad / tau``
    (``shift_gap``: with a margin beyond the angle's range the positive's term vanishes from the denominator, so the
    loss is the decoupled loss shifted by a constant), the smallest gradient norm of an anchor at the start, and the
    top-1 retrieval (each ``z1`` row's nearest ``z2`` row by cosine is its own view) at the start and the end."""
    gen = torch.Generator().manual_seed(seed)
    z1 = torch.randn(n, dim, generator=gen, dtype=torch.float64).requires_grad_(True)
    z2 = torch.randn(n, dim, generator=gen, dtype=torch.float64).requires_grad_(True)
    eye = torch.eye(n, dtype=torch.bool)

    def loss():
        return contrastive_nll(simace_logits_radians(z1, z2, tau, margin_rad), eye)

    def top1():
        with torch.no_grad():
            return float((cosine_matrix(z1, z2).argmax(dim=1) == torch.arange(n)).double().mean())

    start = loss()
    (grad,) = torch.autograd.grad(start, z1)
    with torch.no_grad():
        gap = abs(float(start.detach()) - float(decoupled_angle_loss(z1, z2, tau)) - margin_rad / tau)
    out = {"loss start": float(start.detach()), "shift_gap": gap, "min anchor gradient": float(grad.norm(dim=1).min()),
           "top-1 start": top1()}
    opt = torch.optim.Adam([z1, z2], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        value = loss()
        value.backward()
        opt.step()
    out.update({"loss end": float(loss().detach()), "top-1 end": top1()})
    return out


def shared_marks(table1, table4, mark_col: str = "underlined"):
    """The circumplex cells printed twice, in Table 1 and in Table 4's Average columns (Table 1 is the average over
    Table 4's data sets for three of its backbones), with the mark each table gives them: one row per trained
    configuration and Table 1 column (``<backbone> <metric>``), with both printed values and whether each table
    underlines the cell. Rows that Table 4 does not have raise."""
    cols = [c for c in table1.columns if c.endswith(("V-Measure", "CD-r"))]
    rows = []
    for _, r in table1[table1["method"] != "Pretrained"].iterrows():
        marks1 = str(r[mark_col]).split(";")
        for col in cols:
            backbone, metric = col.rsplit(" ", 1)
            match = table4[(table4["base_model"] == backbone) & (table4["method"] == r["method"])
                           & (table4["head"] == r["head"])]
            if len(match) != 1:
                raise KeyError(f"Table 4 has {len(match)} rows for {backbone} {r['method']} {r['head']}")
            r4 = match.iloc[0]
            rows.append({"configuration": f"{r['method']} {r['head']}", "column": col, "Table 1": r[col],
                         "Table 4 average": r4[f"Average {metric}"], "Table 1 underlined": col in marks1,
                         "Table 4 underlined": f"Average {metric}" in str(r4[mark_col]).split(";")})
    return pd.DataFrame(rows)


#: the concept paper's two definitions of each geometry statistic (App. H and Table 11; App. D.6, Thm D.5's proof)
GEOMETRY_DEFINITIONS = {
    "App. H anisotropy": "mean cosine of random pairs",
    "App. D.6 anisotropy": "share of the variance on the leading singular direction",
    "App. H effective rank": "exp entropy of the normalised singular values",
    "App. D.6 effective rank": "participation ratio (sum lambda)^2 / sum lambda^2, 'for example'",
}


def geometry_opposites(seed: int = 0):
    """Two pairs of point clouds on which the concept paper's two definitions of one statistic move in opposite
    directions (the definitions sweep's forms, :data:`companion.papers.synthesis.definitions.NAMESPACE`):

    * anisotropy: an isotropic Gaussian cloud shifted off the origin (``offset``: high mean cosine, variance spread
      evenly) against a centred cloud with one long axis (``one long axis``: mean cosine near 0, a third of the
      variance on one direction), 400 points in 16 dimensions drawn with ``seed``;
    * effective rank: two spectra, one large singular value beside 100 small ones (``one large, 100 small``) against
      6 equal ones (``6 equal``), as diagonal matrices.

    Returns one row per cloud: ``quantity``, ``cloud``, ``App. H`` and ``App. D.6`` (each definition's value)."""
    base = np.random.default_rng(seed).standard_normal((400, 16))
    clouds = {"offset": base + 2.0, "one long axis": (base - base.mean(axis=0)) * np.r_[3.0, np.ones(15)]}
    spectra = {"one large, 100 small": np.r_[0.5, np.full(100, 0.005)], "6 equal": np.full(6, 1 / 6)}
    rows = [{"quantity": "anisotropy", "cloud": k, "App. H": ns["mean_cos"](x), "App. D.6": ns["top_share"](x)}
            for k, x in clouds.items()]
    rows += [{"quantity": "effective rank", "cloud": k, "App. H": ns["erank"](ns["svals"](np.diag(s))),
              "App. D.6": ns["participation"](ns["svals"](np.diag(s)))} for k, s in spectra.items()]
    return pd.DataFrame(rows)


#: a claim that names a geometry statistic: anisotropy, effective rank or the leading direction's share
_GEOMETRY_WORDS = {"anisotropy": r"anisotrop|aniso|lead(?:ing)?[ _]share", "effective rank": r"effective[ _]rank|erank"}
#: the claims that do not use App. H's definitions (every other one does: companion.metrics.geometry's anisotropy
#: and effective_rank are App. H's)
GEOMETRY_OVERRIDES = {
    ("concepts/01-representational-compositionality", "d5_lead_share_falls"): "App. D.6 anisotropy",
    ("concepts/04-modifier-families", "mpnet_T11_definitions"): "App. H and App. D.6, side by side",
}


def concepts_geometry_claims(results_root):
    """Every claim of the concept paper's ledgers (``<results_root>/concepts/*.json``) that names anisotropy or
    effective rank in its id or statement, or that :data:`GEOMETRY_OVERRIDES` names, with the definition it uses
    (``uses``): App. H's, as computed by
    :func:`companion.metrics.geometry.anisotropy` and :func:`~companion.metrics.geometry.effective_rank`, unless
    :data:`GEOMETRY_OVERRIDES` says otherwise. Columns: ``ledger``, ``id``, ``kind``, ``verdict``, ``uses``."""
    from companion.results import load_ledgers  # noqa: PLC0415 - loads scipy; this module imports without it

    rows = []
    for ledger in load_ledgers(results_root):
        if ledger["paper"] != "concepts":
            continue
        name = f"concepts/{ledger['notebook']}"
        for c in ledger["claims"]:
            text = f"{c['id']} {c.get('claim', '')}"
            named = [q for q, words in _GEOMETRY_WORDS.items() if re.search(words, text, re.IGNORECASE)]
            if not named and (name, c["id"]) not in GEOMETRY_OVERRIDES:
                continue
            uses = GEOMETRY_OVERRIDES.get((name, c["id"])) or " and ".join(f"App. H {q}" for q in named)
            rows.append({"ledger": name, "id": c["id"], "kind": c.get("kind"), "verdict": c.get("verdict"),
                         "uses": uses})
    return pd.DataFrame(rows, columns=["ledger", "id", "kind", "verdict", "uses"])


# --------------------------------------------------------------------------------------------- the notebook's readers
def stated(statements, key: str) -> float:
    """The number that statement ``key`` of ``errata_statements.csv`` (``statements``, indexed by id, a ``value``
    column as printed) gives, as a float (:func:`as_number`: 30° -> 30, 3,063 -> 3063, 3k -> 3000)."""
    if key not in statements.index:
        raise KeyError(f"no statement {key!r} in errata_statements.csv")
    return as_number(statements.loc[key, "value"])


def paper_table(data_dir, paper: str, name: str):
    """A paper's transcribed table ``<data_dir>/<paper>/<name>`` with every cell as printed (strings, empty cells
    kept as ``""``): the errata compare printed values, so nothing is parsed or filled in. ``data_dir`` is the
    checkout's ``data`` folder; :func:`companion.papers.tables.paper_table` reads it."""
    return read(paper, name, root=Path(data_dir).parent)


def off_rows(averages, name: str) -> list[str]:
    """The rows of table ``name`` (e.g. ``"simace Table 4"``) whose printed average is off beyond rounding, in
    :func:`average_mismatches`' rows collected with ``table`` and ``row`` columns."""
    return averages[(averages.table == name) & averages.off]["row"].tolist()


def matches_elsewhere(averages, *names: str) -> bool:
    """Control: every recomputed average of the tables ``names`` matches its row to rounding (no row is off)."""
    return bool(not averages[averages.table.isin(names) & averages.off].shape[0])


def plot_at_a_glance(*, eps: float, simplex: float, tau_paper: float, tau_fixed: float, measured, averages,
                     gen: torch.Generator, half_dim: int, jitter_seed: int = 0,
                     layouts: Sequence[str] = ("balanced", "imbalanced 1:2:...:10")):
    """Three errata in one figure: (1) Cor. 3.9's β = 1 + τ log ε against the regular simplex, with the measured β at
    the printed and the corrected τ* (``measured``: indexed by (layout, "printed tau*" / "corrected tau*"));
    (2) the gradient norm of AnglE's Eq. 6 as printed and in the code reading along a rotation in a random plane
    of ``2 * half_dim`` dimensions (drawn from ``gen``, which this advances); (3) each printed average's distance to
    the mean of its printed cells (``averages``), against the rounding bound :data:`ROW_MEAN_TOL`; seaborn's strip
    jitter draws from numpy's legacy global generator, seeded here with ``jitter_seed``."""
    import seaborn as sns  # noqa: PLC0415 - seaborn is heavy; this module imports without it

    fig, axes = panel_grid(3, panel_height=4, per_row=2)  # two panels a row: the page's width
    taus = np.linspace(0.3, 1.6, 200)
    axes[0].plot(taus, 1 + taus * math.log(eps), "k-", label="β = 1 + τ log ε (Cor. 3.9)")
    axes[0].axhline(simplex, color="C0", ls="--", label="regular simplex −1/(C−1)")
    for layout, marker in zip(layouts, ("o", "s")):
        axes[0].plot([tau_paper, tau_fixed], [measured[layout, "printed tau*"], measured[layout, "corrected tau*"]],
                     marker, color="C3", ms=8, mfc="none" if marker == "s" else "C3",
                     label=f"measured, {layout} (free embeddings)")
    for t, lab in [(tau_paper, "paper τ*"), (tau_fixed, "corrected τ*")]:
        axes[0].axvline(t, color="grey", lw=0.8)
        axes[0].annotate(lab, (t, 0.5), rotation=90, fontsize=8, ha="right")
    axes[0].set(xlabel="τ", ylabel="inter-class cosine β", title="Weighted CL Cor. 3.9: τ*")
    axes[0].legend(fontsize=7)
    theta = torch.linspace(0.05, math.pi - 0.05, 120, dtype=torch.float64)[:, None]
    a, b = torch.randn(2, 2 * half_dim, generator=gen, dtype=torch.float64)
    a = a / a.norm()
    b = b - (b @ a) * a
    b = b / b.norm()  # v(theta) = cos(theta) a + sin(theta) b is at angle theta from a
    base = a.expand(len(theta), -1)
    for fn, label in [(eq6_literal, "Eq. 6 as printed"), (eq6_code, "code reading")]:
        r = (torch.cos(theta) * a + torch.sin(theta) * b).requires_grad_(True)
        (g,) = torch.autograd.grad(fn(base, r).sum(), r)
        axes[1].plot(np.degrees(theta.numpy()), g.norm(dim=1).numpy(), label=f"‖∇‖ {label}")
    axes[1].set(xlabel="angle between u and v (degrees)", ylabel="gradient norm", title="AnglE Eq. 6: gradient")
    axes[1].legend(fontsize=8)
    np.random.seed(jitter_seed)  # noqa: NPY002 - seaborn's strip jitter uses the legacy global generator
    sns.stripplot(data=averages, x="|printed - mean|", y="table", hue="off", palette={False: "C2", True: "C3"},
                  ax=axes[2], size=5, jitter=0.25)
    axes[2].axvline(ROW_MEAN_TOL, color="k", ls=":", label="rounding bound 0.01")
    axes[2].set(xlabel="|printed average − mean of printed cells|", ylabel="",
                title="Printed averages (SimACE, AnglE)")
    axes[2].legend(fontsize=8, title="beyond rounding", title_fontsize=8)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------- errata whose evidence is a paper notebook
def evidence_table(evidence, results_root):
    """``errata_evidence.csv`` (``evidence``: columns erratum, finding, ledger, claim, confirms) joined with the
    claims it names in the paper notebooks' ledgers under ``results_root`` (``<paper>/<notebook>.json``): adds
    ``verdict``, ``ours`` and ``confirmed`` (the claim's verdict is one of ``confirms``, ``|``-separated).

    These errata were found while reproducing a paper: the paper notebook measures the inconsistency (for instance
    an optimum that does not satisfy a theorem's conclusion as printed), and the errata notebook reads its verdict
    instead of measuring it twice. A named claim that is missing raises, so a renamed claim cannot pass silently."""
    from companion.results import load_ledgers  # noqa: PLC0415 - loads scipy; this module imports without it

    ledgers = {f"{d['paper']}/{d['notebook']}": {c["id"]: c for c in d["claims"]} for d in load_ledgers(results_root)}
    rows = []
    for _, r in evidence.iterrows():
        if r["ledger"] not in ledgers:
            raise FileNotFoundError(f"errata evidence {r['erratum']}: no ledger {r['ledger']} under results/")
        claim = ledgers[r["ledger"]].get(r["claim"])
        if claim is None:
            raise KeyError(f"errata evidence {r['erratum']}: ledger {r['ledger']} has no claim {r['claim']!r}")
        confirms = [v.strip() for v in str(r["confirms"]).split("|")]
        rows.append({**r.to_dict(), "verdict": claim["verdict"], "ours": claim.get("ours"),
                     "confirmed": claim["verdict"] in confirms})
    return pd.DataFrame(rows)


def evidence_claims(statements, table, criterion_for=None) -> list[dict]:
    """Claim keyword arguments, one per erratum of :func:`evidence_table` (``table``): id ``<paper>:<rest of the
    statement id>``, the finding as the claim, the statement's printed value and source, and as ``ours`` one
    condition per evidence row ("<ledger> · <claim> is <confirms>": whether its verdict is); the erratum is
    confirmed when every condition holds. ``criterion_for(id, description)`` gives each erratum's criterion (the
    errata notebook passes :func:`companion.papers.synthesis.classes.criterion`, so the class decides between
    ``confirmed`` and ``minor``); by default :func:`companion.stats.holds`."""
    from companion.stats import holds  # noqa: PLC0415 - loads scipy; this module imports without it

    if criterion_for is None:
        criterion_for = lambda _id, description: holds(description)  # noqa: E731
    out = []
    for erratum, rows in table.groupby("erratum", sort=False):
        if erratum not in statements.index:
            raise KeyError(f"errata evidence names {erratum!r}, which errata_statements.csv does not have")
        st = statements.loc[erratum]
        paper = st["paper"]
        value = st["value"]
        empty = value is None or (isinstance(value, float) and math.isnan(value)) or str(value).strip() == ""
        paper_value = None if empty else value  # a statement without a number: an empty cell, read or parsed
        claim_id = f"{paper}:{erratum[len(paper) + 1:] if erratum.startswith(paper + '-') else erratum}"
        out.append(dict(
            id=claim_id, claim=rows["finding"].iloc[0], kind="erratum", source=st["source"], paper_value=paper_value,
            ours={f"{r.ledger} · {r.claim} is {r.confirms}": bool(r.confirmed) for r in rows.itertuples()},
            criterion=criterion_for(claim_id, "the paper notebook's measurement confirms it"),
            note="Evidence: " + "; ".join(f"{r.ledger} · {r.claim} ({r.verdict})" for r in rows.itertuples())
                 + "."))
    return out


def printed_set(text: str) -> list[float]:
    """The numbers of the first bracketed list a statement prints, ``[0.06, 0.07]`` or ``{32, 128}`` -> floats (a
    grid or a range as the paper writes it)."""
    m = re.search(r"[\[{]([^\]}]+)[\]}]", str(text))
    if not m:
        raise ValueError(f"no bracketed list of numbers in {text!r}")
    return [as_number(x) for x in m.group(1).split(",")]
