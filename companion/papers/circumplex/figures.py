"""The figures the circumplex notebooks share (Yamauchi & Aizawa, ACL 2026: Figs 4, 5a, 5b and §4.3's head
comparison), each with the paper's value drawn beside ours wherever the paper prints one (Table 4 cells).

Every function takes measured frames and returns the matplotlib figure; nothing here trains or scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["plot_avgcossim", "plot_v_vs_pca", "plot_v_vs_labels", "plot_head_comparison"]

_PAPER_STYLE = dict(marker="D", s=36, edgecolor="k", zorder=4)


def _mean_std(frame: pd.DataFrame, by: str, metric: str) -> pd.DataFrame:
    return frame.groupby(by)[metric].agg(["mean", "std"]).fillna({"std": 0.0})


def plot_avgcossim(panels: Sequence[tuple[str, object]], labels: Sequence[str], classes: Sequence[str] | None = None):
    """Fig 4: one AvgCosSim heat map per ``(name, embeddings)`` panel on a shared colour scale [-1, 1] (nothing
    clips: cosines are bounded), titled with the mean similarity between labels and its Pearson r with the circle's
    cos Δθ (:func:`companion.papers.circumplex.comparison.label_structure`)."""
    import matplotlib.pyplot as plt

    from companion.losses.circumplex import ECM_LABELS
    from companion.papers.circumplex.comparison import label_structure
    from companion.papers.circumplex.geometry import avg_cos_sim

    if not panels:
        raise ValueError("plot_avgcossim needs at least one panel.")
    labels = np.asarray(list(labels), dtype=object)
    classes = list(classes) if classes is not None else [c for c in ECM_LABELS if c in set(labels)]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.3 * len(panels), 4.4), squeeze=False)
    for ax, (name, emb) in zip(axes[0], panels):
        mat, shown = avg_cos_sim(emb, labels, classes)
        im = ax.imshow(mat, cmap="RdBu_r", vmin=-1, vmax=1)
        ax.set_xticks(range(len(shown)), shown, rotation=90, fontsize=7)
        ax.set_yticks(range(len(shown)), shown, fontsize=7)
        s = label_structure(emb, list(labels), classes)
        ax.set_title(f"{name}\nmean between labels {s['mean_offdiag']:+.2f}, r with cos Δθ {s['r_circle']:.2f}",
                     fontsize=9)
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.75, label="AvgCosSim")
    return fig


def plot_v_vs_pca(frame: pd.DataFrame, *, title: str, paper: Mapping[str, float] | None = None,
                  paper_label: str = "paper, no PCA"):
    """Fig 5a: V-Measure against the number of PCA dimensions k (log scale), mean ± std over seeds per loss
    (``frame``: columns ``loss``, ``seed``, ``k``, ``V``, e.g. :func:`~companion.papers.circumplex.comparison.
    pca_frame`). ``paper`` (loss -> V) is drawn as diamonds at the largest k: the paper prints V only without PCA
    (Table 4), its Fig 5a curves carry no numbers."""
    import matplotlib.pyplot as plt

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
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11.5, 4.2), sharey=True)
    nmax = int(frame["labels"].max())
    for ax, metric in zip(axes, ["V", "CD-r"]):
        for i, (loss, g) in enumerate(frame.groupby("loss", sort=False)):
            s = _mean_std(g, "labels", metric)
            line = ax.errorbar(s.index, s["mean"], yerr=s["std"], fmt="o-", capsize=3, label=f"ours: {loss}")
            if paper and loss in paper:
                ax.scatter([nmax + 0.5 + 0.35 * i], [paper[loss][metric]], color=line[0].get_color(), **_PAPER_STYLE)
        ax.set(xlabel="number of ECM labels", ylabel=metric, xticks=sorted(frame["labels"].unique()))
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
    import matplotlib.pyplot as plt

    colors = dict(zip(kinds, ["tab:blue", "tab:orange", "tab:green", "tab:red"]))
    width = 0.8 / len(kinds)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
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
        ax.set_ylim(0, 1)
        ax.set_title(f"{metric}: mean ± std over seeds, ◆ paper (Table 4)", fontsize=10)
        ax.legend(fontsize=7)
    return fig
