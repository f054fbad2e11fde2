"""The site's figures of the findings, computed from the ledgers and written by ``python -m companion site`` as SVG
into ``figures/site/``: one forest plot per paper and one summary across the five papers.

* **Comparative statements** (:func:`comparatives`): a statement whose headline row compares two systems against
  an effect the paper prints (the criterion ``A > B (paper +0.137; tolerance ±0.0685: …)`` of
  :func:`companion.stats.direction`). Its estimate, 95 % interval and tolerance band are divided by the paper's
  effect, so that every statement reads on one scale: **1** is the paper's effect, **0** no effect, a negative
  share the opposite direction; the band is where the verdict rule calls the magnitude reproduced. Statements that
  state a direction only, a level or a condition have no such share and stay in the claims table.
* **Forest plot** (:func:`forest_figure`): one row per comparative statement of a paper, labelled by its title;
  the estimate (marker shape: its regime) with its interval, coloured by verdict, the tolerance band in grey, the
  paper's effect and zero as vertical lines; the verdict's mark at the right, so that the figure reads without
  colour. Shares beyond the axis are drawn at its edge as an arrow with their value.
* **Summary** (:func:`summary_figure`): the replication convention, our effect against the paper's: one row per
  paper, a point per comparative statement at its share, coloured by verdict, and the median share.

:func:`write_figures` writes them (deterministic SVG: fixed ids, no date) and :func:`figure_problems` says which
file is missing or no longer what the ledgers give.
"""

from __future__ import annotations

import io
import math
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from companion.publish.site import findings
from companion.publish.site.common import REPRODUCED_PAPERS, _base, _ledgers, _paper_order, _root, _title
from companion.publish.site.format import VERDICT_MARKS

FIGURES = "figures/site"
#: colours per verdict, the stylesheet's (``site/styles.css``, contrast 4.5 or more on white)
COLOURS = {"reproduced": "#2e8540", "partly": "#b07400", "not reproduced": "#c9302c", "inconclusive": "#4a6a8f",
           "not testable": "#6b6b6b"}
#: marker per regime class (:data:`companion.statements.REGIME_ORDER`)
MARKERS = {"paper setting": "D", "paper backbone": "s", "paper recipe": "^", "paper head": "v", "scaled": "o"}
#: the share axis: shares outside are drawn at its edge
LOW, HIGH = -1.5, 2.5
#: the figure's width in inches, drawn for the text column (about 750 px at 100 px an inch)
WIDTH_IN = 7.5
FONT = 9
_DIRECTION = re.compile(r"^A [<>] B \(paper ([-+\u2212]?[0-9.]+(?:[eE][-+]?\d+)?); tolerance ±([0-9.]+(?:[eE][-+]?\d+)?)")


@dataclass
class Share:
    """A comparative statement on the common scale: ``share`` = ours / the paper's effect, its interval and the
    tolerance band, both divided by the paper's effect (``low`` / ``high`` None without an interval)."""

    paper: str
    title: str
    verdict: str
    regime_class: str
    share: float
    low: float | None
    high: float | None
    band: tuple[float, float]
    effect: float


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def share_of(statement: findings.Statement) -> Share | None:
    """``statement`` on the common scale, or None when it compares nothing against a printed effect."""
    claim = statement.claim
    match = _DIRECTION.match(str(claim.get("criterion", "")))
    if not match:
        return None
    effect = float(match.group(1).replace("\u2212", "-"))
    tol = abs(float(match.group(2)))
    if effect == 0:
        return None
    st = claim.get("stats") or {}
    est = st.get("estimate", claim.get("ours"))
    if not _num(est):
        return None
    ci = st.get("ci") or ()
    low = high = None
    if len(ci) == 2 and all(_num(x) for x in ci):
        low, high = sorted((ci[0] / effect, ci[1] / effect))
    band = (1 - tol / abs(effect), 1 + tol / abs(effect))
    return Share(statement.paper, statement.title, statement.verdict, statement.regime_class, est / effect, low,
                 high, band, effect)


def comparatives(paper: str, root: Path | None = None) -> list[Share]:
    """The comparative statements of ``paper`` (:func:`share_of`), in verdict order (reproduced first), then ledger
    order."""
    order = list(VERDICT_MARKS)
    found = [s for s in map(share_of, findings.statements_of(paper, _root(root))) if s is not None]
    return sorted(found, key=lambda s: order.index(s.verdict) if s.verdict in order else len(order))


def _clip(x: float) -> float:
    return min(max(x, LOW), HIGH)


def _style():
    import matplotlib  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    return matplotlib.rc_context({"font.size": FONT, "font.family": "sans-serif", "svg.fonttype": "none",
                                  "svg.hashsalt": "companion-site", "axes.spines.top": False,
                                  "axes.spines.right": False})


def _legend(fig, ax, shares: list[Share]) -> None:
    from matplotlib.lines import Line2D  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    verdicts = [v for v in VERDICT_MARKS if any(s.verdict == v for s in shares)]
    classes = [c for c in MARKERS if any(s.regime_class == c for s in shares)]
    handles = [Line2D([], [], color=COLOURS[v], marker="o", linestyle="", label=f"{VERDICT_MARKS[v]} {v}")
               for v in verdicts]
    handles += [Line2D([], [], color="#333333", marker=MARKERS[c], markerfacecolor="white", linestyle="",
                       label=c) for c in classes]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.08 * 6 / max(fig.get_figheight(), 1)),
              ncol=4, frameon=False, fontsize=FONT - 1, handletextpad=0.3, columnspacing=1.0)


def forest_figure(paper: str, root: Path | None = None, shares: list[Share] | None = None):
    """The forest plot of ``paper``'s comparative statements (see the module docstring); None when it has none."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    shares = comparatives(paper, root) if shares is None else shares
    if not shares:
        return None
    labels = ["\n".join(textwrap.wrap(s.title, 44)[:2]) for s in shares]
    row = 0.42
    with _style():
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 1.6 + row * len(shares)))
        for y, s in enumerate(shares):
            colour = COLOURS.get(s.verdict, "#333333")
            ax.add_patch(plt.Rectangle((_clip(s.band[0]), y - 0.32), _clip(s.band[1]) - _clip(s.band[0]), 0.64,
                                       color="#e6e6e6", zorder=0, linewidth=0))
            if s.low is not None:
                ax.plot([_clip(s.low), _clip(s.high)], [y, y], color=colour, linewidth=1.6, zorder=2)
            x = _clip(s.share)
            if x != s.share:  # beyond the axis: an arrow at the edge with the value
                ax.plot([x], [y], marker=">" if s.share > HIGH else "<", color=colour, markersize=7, zorder=3)
                ax.annotate(f"{s.share:.1f}", (x, y), xytext=(-4 if s.share > HIGH else 4, 5),
                            textcoords="offset points", ha="right" if s.share > HIGH else "left",
                            fontsize=FONT - 1, color=colour)
            else:
                ax.plot([x], [y], marker=MARKERS.get(s.regime_class, "o"), color=colour, markersize=6.5,
                        markeredgecolor="white", markeredgewidth=0.6, zorder=3)
            ax.annotate(VERDICT_MARKS.get(s.verdict, ""), (1.0, y), xycoords=("axes fraction", "data"),
                        xytext=(6, 0), textcoords="offset points", va="center", color=colour, fontsize=FONT + 1)
        ax.axvline(0, color="#777777", linestyle="--", linewidth=0.9, zorder=1)
        ax.axvline(1, color="#222222", linewidth=1.1, zorder=1)
        ax.set_yticks(range(len(shares)), labels)
        ax.set_ylim(len(shares) - 0.5, -0.5)
        ax.set_xlim(LOW, HIGH)
        ax.set_xlabel("our estimate as a share of the paper's effect (1 = the paper's, 0 = none; grey: tolerance)")
        ax.tick_params(axis="y", length=0)
        _legend(fig, ax, shares)
        fig.tight_layout()
    return fig


def summary_figure(root: Path | None = None, by_paper: dict[str, list[Share]] | None = None):
    """Our effect against the paper's across the five papers: a row per paper, a point per comparative statement
    at its share (coloured by verdict), the median share as a bar; None when no paper has one."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    root = _root(root)
    if by_paper is None:
        papers = sorted({ledger["paper"] for ledger in _ledgers(root)} & set(REPRODUCED_PAPERS), key=_paper_order)
        by_paper = {p: comparatives(p, root) for p in papers}
    by_paper = {p: v for p, v in by_paper.items() if v}
    if not by_paper:
        return None
    with _style():
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 1.5 + 0.62 * len(by_paper)))
        for y, shares in enumerate(by_paper.values()):
            for i, s in enumerate(shares):
                jitter = ((i * 0.618) % 1 - 0.5) * 0.5  # golden-ratio spread: deterministic, no overlap in a row
                x = _clip(s.share)
                ax.plot([x], [y + jitter], marker=MARKERS.get(s.regime_class, "o") if x == s.share else
                        (">" if s.share > HIGH else "<"), color=COLOURS.get(s.verdict, "#333333"), markersize=5.5,
                        markeredgecolor="white", markeredgewidth=0.5, alpha=0.9, zorder=3)
            middle = sorted(s.share for s in shares)
            median = (middle[(len(middle) - 1) // 2] + middle[len(middle) // 2]) / 2
            ax.plot([_clip(median)] * 2, [y - 0.36, y + 0.36], color="#222222", linewidth=2.2, zorder=4)
            ax.annotate(f"n = {len(shares)}, median {median:.2f}", (1.0, y), xycoords=("axes fraction", "data"),
                        xytext=(6, 0), textcoords="offset points", va="center", fontsize=FONT - 1)
        ax.axvline(0, color="#777777", linestyle="--", linewidth=0.9, zorder=1)
        ax.axvline(1, color="#222222", linewidth=1.1, zorder=1)
        ax.set_yticks(range(len(by_paper)), [_title(p) for p in by_paper])
        ax.set_ylim(len(by_paper) - 0.5, -0.5)
        ax.set_xlim(LOW, HIGH)
        ax.set_xlabel("our estimate as a share of the paper's effect (1 = the paper's, 0 = none)")
        ax.tick_params(axis="y", length=0)
        _legend(fig, ax, [s for v in by_paper.values() for s in v])
        fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------- files
def figure_path(name: str, root: Path | None = None) -> Path:
    return _root(root) / FIGURES / f"{name}.svg"


def svg(fig) -> bytes:
    """``fig`` as deterministic SVG bytes (no date, fixed ids), closed afterwards."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    buffer = io.BytesIO()
    with _style():
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def figures(root: Path | None = None) -> dict[str, bytes]:
    """``{file name: SVG bytes}`` of every site figure the ledgers give: ``summary`` and ``<paper>-forest``."""
    root = _root(root)
    papers = sorted({ledger["paper"] for ledger in _ledgers(root)} & set(REPRODUCED_PAPERS), key=_paper_order)
    by_paper = {p: comparatives(p, root) for p in papers}
    out = {}
    fig = summary_figure(root, by_paper)
    if fig is not None:
        out["summary"] = svg(fig)
    for paper, shares in by_paper.items():
        fig = forest_figure(paper, root, shares)
        if fig is not None:
            out[f"{paper}-forest"] = svg(fig)
    return out


def write_figures(root: Path | None = None) -> list[Path]:
    """Write :func:`figures` into ``figures/site/`` and remove the SVGs there that no longer belong."""
    root = _root(root)
    folder = root / FIGURES
    folder.mkdir(parents=True, exist_ok=True)
    wanted = figures(root)
    for old in folder.glob("*.svg"):
        if old.stem not in wanted:
            old.unlink()
    written = []
    for name, data in wanted.items():
        path = figure_path(name, root)
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
        written.append(path)
    return written


def figure_problems(root: Path | None = None) -> list[str]:
    """Site figures missing, stale (not what the ledgers now give) or left over."""
    root = _root(root)
    wanted = figures(root)
    problems = [f"{FIGURES}/{name}.svg is missing or out of date; run `python -m companion site`"
                for name, data in wanted.items()
                if not figure_path(name, root).is_file() or figure_path(name, root).read_bytes() != data]
    folder = root / FIGURES
    problems += [f"{FIGURES}/{p.name} belongs to no ledger; run `python -m companion site`"
                 for p in sorted(folder.glob("*.svg")) if p.stem not in wanted] if folder.is_dir() else []
    return problems


# --------------------------------------------------------------------------------------------- pages
CAPTION = ("Each row is a statement that compares two systems against an effect the paper prints: our estimate "
           "(marker: its regime) with its 95 % interval, as a share of the paper's effect, coloured by verdict and "
           "marked at the right; grey, the tolerance within which the magnitude counts as reproduced; an arrow, a "
           "share beyond the axis. Computed from the ledgers by `python -m companion site`.")


def figure_markdown(paper: str, page: str, root: Path | None = None) -> str:
    """The forest plot of ``paper`` as a page shows it (a fluid SVG with its caption), or a sentence when the
    paper has no comparative statement."""
    root = _root(root)
    path = figure_path(f"{paper}-forest", root)
    n = len(comparatives(paper, root))
    if not n or not path.is_file():
        return "_No statement of this paper compares two systems against a printed effect._"
    return (f"![{n} comparative statement{'s' if n != 1 else ''}: ours against the paper's effect. {CAPTION}]"
            f"({_base(page)}{FIGURES}/{paper}-forest.svg){{.site-figure fig-alt=\"Forest plot of {n} statements\"}}")


def summary_markdown(page: str, root: Path | None = None) -> str:
    """The landing page's summary figure with its caption."""
    root = _root(root)
    if not figure_path("summary", root).is_file():
        return ""
    return ("![Our effect against the paper's, across the five papers: each point a statement that compares two "
            "systems against a printed effect, at our estimate as a share of the paper's (1: the paper's effect, "
            "0: none), coloured by verdict; the bar is each paper's median.]"
            f"({_base(page)}{FIGURES}/summary.svg){{.site-figure fig-alt=\"Summary of our effects against the "
            "papers' effects\"}}")
