"""The figures the circumplex notebooks share (Yamauchi & Aizawa, ACL 2026: Figs 4, 5a, 5b and §4.3's head
comparison), each with the paper's value drawn beside ours wherever the paper prints one (Table 4 cells).

Every function takes measured frames and returns the matplotlib figure; nothing here trains or scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from companion.display import FIGURE_WIDTH_IN, PANELS_PER_ROW, panel_grid

__all__ = ["plot_avgcossim", "plot_v_vs_pca", "plot_v_vs_labels", "plot_head_comparison", "plot_stage_maps",
           "plot_unseen_maps", "plot_emobank_angles", "plot_pca_panels", "plot_table4_bars", "plot_learning_curves"]

_PAPER_STYLE = dict(marker="D", s=36, edgecolor="k", zorder=4)


def _mean_std(frame: pd.DataFrame, by: str, metric: str) -> pd.DataFrame:
    return frame.groupby(by)[metric].agg(["mean", "std"]).fillna({"std": 0.0})


def plot_avgcossim(panels: Sequence[tuple[str, object]], labels: Sequence[str], classes: Sequence[str] | None = None):
    """Fig 4: one AvgCosSim heat map per ``(name, embeddings)`` panel on a shared colour scale [-1, 1] (nothing
    clips: cosines are bounded), titled with the mean similarity between labels and its Pearson r with the circle's
    cos Δθ (:func:`companion.papers.circumplex.comparison.label_structure`)."""

    from companion.losses.circumplex import ECM_LABELS  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.papers.circumplex.comparison import label_structure  # noqa: PLC0415 - loads scipy; this module imports without it
    from companion.papers.circumplex.geometry import avg_cos_sim  # noqa: PLC0415 - loads torch; this module imports without it

    if not panels:
        raise ValueError("plot_avgcossim needs at least one panel.")
    labels = np.asarray(list(labels), dtype=object)
    classes = list(classes) if classes is not None else [c for c in ECM_LABELS if c in set(labels)]
    fig, axes = panel_grid(len(panels), panel_height=4.6, per_row=2 if len(panels) == 4 else PANELS_PER_ROW,
                           gridspec_kw=dict(wspace=0.35, hspace=0.45))
    for ax, (name, emb) in zip(axes, panels):
        mat, shown = avg_cos_sim(emb, labels, classes)
        im = ax.imshow(mat, cmap="RdBu_r", vmin=-1, vmax=1)
        ax.set_xticks(range(len(shown)), shown, rotation=90, fontsize=7)
        ax.set_yticks(range(len(shown)), shown, fontsize=7)
        s = label_structure(emb, list(labels), classes)
        ax.set_title(f"{name}\nmean between labels {s['mean_offdiag']:+.2f}, r with cos Δθ {s['r_circle']:.2f}",
                     fontsize=9)
    fig.colorbar(im, ax=axes, shrink=0.75, label="AvgCosSim")
    return fig


def plot_v_vs_pca(frame: pd.DataFrame, *, title: str, paper: Mapping[str, float] | None = None,
                  paper_label: str = "paper, no PCA"):
    """Fig 5a: V-Measure against the number of PCA dimensions k (log scale), mean ± std over seeds per loss
    (``frame``: columns ``loss``, ``seed``, ``k``, ``V``, e.g. :func:`~companion.papers.circumplex.comparison.
    pca_frame`). ``paper`` (loss -> V) is drawn as diamonds at the largest k: the paper prints V only without PCA
    (Table 4), its Fig 5a curves carry no numbers."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    fig, ax = plt.subplots(figsize=(6.8, 4.2))
    kmax = int(frame["k"].max())
    for i, (loss, g) in enumerate(frame.groupby("loss", sort=False)):
        s = _mean_std(g, "k", "V")
        line = ax.errorbar(s.index, s["mean"], yerr=s["std"], fmt="o-", capsize=3, label=f"ours: {loss}")
        if paper and loss in paper:  # side by side to the right of the largest k, so equal values stay visible
            ax.scatter([kmax * 1.3 * 1.12 ** i], [paper[loss]], color=line[0].get_color(), **_PAPER_STYLE)
    if paper:
        ax.scatter([], [], color="w", label=paper_label, **_PAPER_STYLE)
    ax.set_xscale("log", base=2)
    ax.set(ylim=(0, 1), xlabel="PCA dimensions k", ylabel="V-Measure (spherical k-means)", title=title)
    ax.legend(fontsize=8, loc="lower right")
    return fig


def plot_v_vs_labels(frame: pd.DataFrame, *, paper: Mapping[str, Mapping[str, float]] | None = None,
                     paper_label: str = "paper, 12 labels"):
    """Fig 5b: V-Measure and CD-r against the number of labels, mean ± std over seeds per loss (``frame``: columns
    ``labels``, ``loss``, ``seed``, ``V``, ``CD-r``), on a shared y-range. ``paper`` (loss -> {"V": ..., "CD-r":
    ...}) is drawn as diamonds at the full label set: Fig 5b's curves carry no numbers, Table 4 prints the 12-label
    cell."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    fig, axes = plt.subplots(1, 2, figsize=(FIGURE_WIDTH_IN, 4.2), sharey=True)
    nmax = int(frame["labels"].max())
    for ax, metric in zip(axes, ["V", "CD-r"]):
        for i, (loss, g) in enumerate(frame.groupby("loss", sort=False)):
            s = _mean_std(g, "labels", metric)
            line = ax.errorbar(s.index, s["mean"], yerr=s["std"], fmt="o-", capsize=3, label=f"ours: {loss}")
            if paper and loss in paper:
                ax.scatter([nmax + 0.5 + 0.35 * i], [paper[loss][metric]], color=line[0].get_color(), **_PAPER_STYLE)
        ax.set(xlabel="number of ECM labels", ylabel=metric, xticks=sorted(frame["labels"].unique()))
        ax.tick_params(labelleft=True)
    if paper:
        axes[0].scatter([], [], color="w", label=paper_label, **_PAPER_STYLE)
    low = min(0.0, float(frame[["V", "CD-r"]].min().min()) - 0.05)
    axes[0].set_ylim(low, 1)
    axes[0].set_title("Fig 5b: V-Measure vs. the number of labels")
    axes[1].set_title("CD-r vs. the number of labels")
    axes[0].legend(fontsize=8)
    return fig


def plot_head_comparison(grid: pd.DataFrame, paper: pd.DataFrame, *, kinds: Sequence[str], losses: Sequence[str],
                         paper_set: str, paper_label: str):
    """§4.3 / Table 4: V-Measure and CD-r per loss, one bar per head kind (mean ± std over seeds, the mean printed
    in the bar), the paper's cell of the same head as a diamond (``paper``: :func:`~companion.papers.circumplex.
    claims.table4_rows`; a kind like ``nGPT-plain`` is drawn against the paper's ``nGPT`` only in the legend)."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    colors = dict(zip(kinds, ["tab:blue", "tab:orange", "tab:green", "tab:red"]))
    width = 0.8 / len(kinds)
    fig, axes = plt.subplots(1, 2, figsize=(FIGURE_WIDTH_IN, 4.2), sharey=True)
    for ax, (metric, pcol) in zip(axes, [("V", "V-Measure"), ("CD-r", "CD-r")]):
        for j, kind in enumerate(kinds):
            g = _mean_std(grid[grid.kind == kind], "loss", metric).reindex(list(losses))
            x = np.arange(len(losses)) + width * (j - (len(kinds) - 1) / 2)
            ax.bar(x, g["mean"], width, yerr=g["std"], capsize=3, color=colors[kind], label=f"ours: {kind}")
            for xi, v in zip(x, g["mean"]):
                ax.text(xi, 0.02, f"{v:.2f}", ha="center", fontsize=7, rotation=90, color="white")
            if (losses[0], kind) in paper.index:
                pv = [float(paper.loc[(loss, kind), f"{paper_set} {pcol}"]) for loss in losses]
                ax.scatter(x, pv, color="k", marker="D", s=24, zorder=3, label=paper_label if j == 0 else None)
        ax.set_xticks(range(len(losses)), list(losses))
        ax.tick_params(labelleft=True)
        ax.set_ylim(0, 1)
        ax.set_title(f"{metric}: mean ± std over seeds, ◆ paper (Table 4)", fontsize=10)
        ax.legend(fontsize=7)
    return fig


def _ecm_colors(classes: Sequence[str]) -> list:
    """One colour per ECM label from a cyclic colour map, in the ECM's circular order."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    from companion.losses.circumplex import ECM_LABELS  # noqa: PLC0415 - loads torch; this module imports without it

    cyc = dict(zip(ECM_LABELS, plt.cm.twilight(np.linspace(0, 1, len(ECM_LABELS) + 1)[:-1])))
    return [cyc[c] for c in classes]


def plot_stage_maps(maps: Mapping[tuple[str, str, str], np.ndarray], alignment: pd.DataFrame, classes: Sequence[str],
                    *, pairs: Sequence[tuple[str, str]], stages: Sequence[str]):
    """Fig 6: one MDS map of the label centroids per head (row) and stage (column), coloured around the ECM, each
    titled with its ring alignment (``alignment``: :func:`companion.papers.circumplex.analysis.stage_maps`)."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    aligned = alignment.set_index(["head", "loss", "stage"])["ring alignment"]
    colors = _ecm_colors(classes)
    side = min(3.3, FIGURE_WIDTH_IN / len(stages))  # one panel per stage, the row at most the page's width
    fig, axes = plt.subplots(len(pairs), len(stages), figsize=(side * len(stages), 1.1 * side * len(pairs)),
                             squeeze=False)
    for r, (kind, loss) in enumerate(pairs):
        for c, stage in enumerate(stages):
            xy, ax = maps[(kind, loss, stage)], axes[r, c]
            ax.scatter(xy[:, 0], xy[:, 1], c=colors, edgecolor="k", s=50)
            for (px, py), name in zip(xy, classes):
                ax.annotate(name, (px, py), fontsize=6)
            ax.set_title(f"{stage}\nring alignment {aligned[(kind, loss, stage)]:.2f}", fontsize=9)
            ax.set_xticks([])
            ax.set_yticks([])
        axes[r, 0].set_ylabel(f"{kind}/{loss}", fontsize=10)  # the head and loss once per row
    fig.tight_layout()
    return fig


def plot_unseen_maps(maps: Mapping[tuple[int, str], np.ndarray], alignment: pd.DataFrame, classes: Sequence[str],
                     other_classes: Sequence[str], *, names: Sequence[str], seed: int):
    """Fig 7: the seed's MDS maps (:func:`companion.papers.circumplex.analysis.unseen_label_maps`) of ``names``: ECM
    centroids as circles linked in ECM order, the other labels as crosses, each titled with its ring alignment."""

    k, colors = len(classes), _ecm_colors(classes)
    side = min(6.0, FIGURE_WIDTH_IN / min(len(names), 2))  # square panels, two a row at most
    fig, axes = panel_grid(len(names), panel_height=side, per_row=2, width=side * min(len(names), 2))
    for ax, name in zip(axes, names):
        xy = maps[(seed, name)]
        ax.scatter(xy[:k, 0], xy[:k, 1], c=colors, s=90, edgecolor="k", zorder=3)
        ax.plot(*np.vstack([xy[:k], xy[:1]]).T, color="0.6", lw=0.8, zorder=1)
        for (px, py), lab in zip(xy[:k], classes):
            ax.annotate(lab, (px, py), fontsize=9, weight="bold")
        ax.scatter(xy[k:, 0], xy[k:, 1], marker="x", color="tab:red", s=40)
        for (px, py), lab in zip(xy[k:], other_classes):
            ax.annotate(lab, (px, py), fontsize=7, color="tab:red")
        ax.set_title(f"{name}: ring alignment of the ECM centroids {alignment.loc[seed, name]:.2f}\n"
                     "circles: ECM labels (linked in ECM order); x: other labels", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    return fig


def plot_emobank_angles(angles: Mapping[tuple[str, int], np.ndarray], runs: pd.DataFrame, valence, *,
                        names: Sequence[str], seed: int):
    """Beyond the paper: each EmoBank sentence at (cos φ, sin φ) on the ring of each embedding in ``names`` (seed
    ``seed``), coloured by its Valence rating on EmoBank's whole 1–5 scale (nothing clips), titled
    with the correlations of :func:`companion.papers.circumplex.analysis.emobank_ring_runs`."""

    side = min(5.3, FIGURE_WIDTH_IN / min(len(names), 2))  # two panels a row at most, the colour bar beside
    fig, axes = panel_grid(len(names), panel_height=side * 0.95, per_row=2, width=side * min(len(names), 2))
    for ax, name in zip(axes, names):
        phi = angles[(name, seed)]
        sc = ax.scatter(np.cos(phi), np.sin(phi), c=np.asarray(valence), cmap="coolwarm", s=12, vmin=1, vmax=5)
        ax.set(xlabel="cos φ (ECM: disgust ← → love)", ylabel="sin φ (ECM: calmness ← → surprise)")
        row = runs[(runs.embedding == name) & (runs.seed == seed)].iloc[0]
        ax.set_title(f"{name} (seed {seed})\nr(cos φ, V) = {row['r(cos φ, Valence)']:.2f}, "
                     f"r(sin φ, A) = {row['r(sin φ, Arousal)']:.2f}", fontsize=10)
        ax.set_aspect("equal")
    fig.colorbar(sc, ax=axes, label="EmoBank Valence", shrink=0.8)
    return fig


def plot_pca_panels(panels: Sequence[tuple[str, object]], labels: Sequence[str]):
    """Fig 1: each ``(name, embeddings)`` panel projected on its own top two principal components, points coloured
    by ECM label with the label names at their centroids, titled with the two components' shares of variance."""
    import torch  # noqa: PLC0415 - torch is heavy; this module imports without it

    from companion.losses.circumplex import ECM_LABELS  # noqa: PLC0415 - loads torch; this module imports without it

    labels = np.asarray(list(labels), dtype=object)
    side = min(4.3, FIGURE_WIDTH_IN / min(len(panels), PANELS_PER_ROW))  # square panels, three a row at most
    fig, axes = panel_grid(len(panels), panel_height=side, width=side * min(len(panels), PANELS_PER_ROW))
    for ax, (name, emb) in zip(axes, panels):
        x = torch.as_tensor(emb).double()
        x = x - x.mean(0)
        _, s, vh = torch.linalg.svd(x, full_matrices=False)
        xy, ev = (x @ vh[:2].T).numpy(), (s ** 2 / (s ** 2).sum()).numpy()
        for c, lab in zip(_ecm_colors(ECM_LABELS), ECM_LABELS):
            sel = labels == lab
            ax.scatter(xy[sel, 0], xy[sel, 1], s=6, color=c, label=lab, alpha=0.8)
            if sel.any():
                ax.annotate(lab, xy[sel].mean(0), fontsize=7, ha="center", weight="bold")
        ax.set_title(f"{name}\nPC1 {100 * ev[0]:.0f}% + PC2 {100 * ev[1]:.0f}% of variance", fontsize=10)
        ax.set_xticks([])
        ax.set_yticks([])
    axes[-1].legend(fontsize=7, markerscale=2, bbox_to_anchor=(1.02, 1), loc="upper left")
    return fig


def plot_table4_bars(runs: pd.DataFrame, beside: pd.DataFrame, *, order: Sequence[str], paper_label: str,
                     paper_sets: Mapping[str, str]):
    """Table 4 beside ours: per metric, one bar per configuration (``order``: ``"pretrained"`` or ``kind/loss``)
    and data set (mean ± std over seeds), the paper's cell of the matching column as a diamond (``beside``:
    :func:`companion.papers.circumplex.claims.beside_table4`); the panels share the y-range."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    names = np.where(runs["loss"] == "pretrained", "pretrained", runs["head"] + "/" + runs["loss"])
    runs = runs.assign(cfgname=names)
    sets = list(paper_sets)
    width = 0.8 / len(sets)
    fig, axes = plt.subplots(1, 2, figsize=(FIGURE_WIDTH_IN, 4.4), sharey=True)
    for ax, metric in zip(axes, ["V", "CD-r"]):
        for j, ds in enumerate(sets):
            g = _mean_std(runs[runs.dataset == ds], "cfgname", metric).reindex(list(order))
            x = np.arange(len(order)) + width * (j - (len(sets) - 1) / 2)
            ax.bar(x, g["mean"], width, yerr=g["std"], capsize=3, label=f"ours: {ds}")
            b = beside[beside["data set (ours / paper)"] == f"{ds} / {paper_sets[ds]}"]
            pv = [b[(b.method == ("Pretrained" if c == "pretrained" else c.split("/")[1]))
                    & (b["head"] == ("-" if c == "pretrained" else c.split("/")[0]))][f"{metric} paper"].iloc[0]
                  for c in order]
            ax.scatter(x, pv, marker="D", color="k" if j == 0 else "0.55", zorder=3, s=22,
                       label=f"paper: {paper_label}, {paper_sets[ds]}")
        ax.set_xticks(range(len(order)), list(order), rotation=30, ha="right")
        ax.set_ylabel(metric)
        ax.tick_params(labelleft=True)
        ax.set_title(f"{metric}: ours (mean ± std over seeds) vs the paper (Table 4)", fontsize=10)
    low = min(0.0, float(runs[["V", "CD-r"]].min().min()) - 0.05)
    axes[0].set_ylim(low, 1.0)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.subplots_adjust(bottom=0.3)
    return fig


def plot_learning_curves(runs: pd.DataFrame, *, kinds: Sequence[str], losses: Sequence[str]):
    """The recorded learning curves (test V-Measure against the step; rows of ``runs`` with a ``curve`` dict and
    their ``steps`` budget): one panel per head kind, one line per loss, the budget (where the scores are taken) as a
    dashed line; points past it are the probe that the plateau check reads."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    curved = runs[runs["curve"].notna()] if "curve" in runs else runs.iloc[:0]
    fig, axes = plt.subplots(1, len(kinds), figsize=(FIGURE_WIDTH_IN, 3.6), sharey=True, squeeze=False)
    for ax, kind in zip(axes[0], kinds):
        for loss in losses:
            for r in curved[(curved["head"] == kind) & (curved["loss"] == loss)].to_dict("records"):
                xs = sorted(r["curve"])
                ax.plot(xs, [r["curve"][x] for x in xs], marker="o", ms=3, label=f"{loss} (seed {r['seed']})")
                ax.axvline(int(r["steps"]), color="0.6", ls="--", lw=1)
        ax.set_title(f"{kind} head", fontsize=10)
        ax.set_xlabel("training step (dashed: the budget)")
        ax.tick_params(labelleft=True)
    axes[0][0].set_ylabel("test V-Measure")
    axes[0][0].legend(fontsize=8, frameon=False)
    fig.tight_layout()
    return fig
