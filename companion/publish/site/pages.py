"""The site's pages, as markdown computed from ``results/``, the executed notebooks and ``data/``.

The landing page's bottom lines and scoreboard (split by regime), the claims tables, the coverage map and the verdict
figure; one generated page per paper (:func:`render_paper_page`, :func:`paper_page_markdown`); the README's notebook
table; and :func:`write_sidebar`, behind ``python -m companion site``, which writes ``_quarto.yml``, the paper pages,
the API pages, the inputs stamps and the README table. The errata are in :mod:`companion.publish.site.errata`, the
scale and timing of each run in :mod:`companion.publish.site.scale`.
"""

from __future__ import annotations

from pathlib import Path

from companion import statements
from companion.criteria_history import load as load_history
from companion.criteria_history import revised
from companion.paper_registry import REGISTRY
from companion.publish import apidoc, colab
from companion.publish.site import findings, forest
from companion.publish.site import format as fmt
from companion.publish.site import scale as run_scale
from companion.publish.site.common import (
    CONFIG,
    ERRATA_PAGE,
    EXTRA_PAGES,
    LANDING,
    PAPERS,
    REPRODUCED_PAPERS,
    _base,
    _cell_link,
    _ledgers,
    _notebook_path,
    _notebooks,
    _paper_ids,
    _paper_order,
    _results_dir,
    _root,
    _title,
    claim_locations,
    github_repo,
    md_table,
    paper_page,
)
from companion.publish.site.config import STAMP_NOTE, inputs_digest, is_computed, render_config, stamp_inputs
from companion.publish.site.errata import _errata_entries, errata_by_paper, errata_markdown
from companion.publish.site.format import VERDICT_MARKS, verdict_badge  # noqa: F401 - the pages' names
from companion.publish.site.revisions import revisions_markdown
from companion.publish.site.scale import notebooks_markdown  # noqa: F401 - the pages' name
from companion.publish.sources import coverage as sources
from companion.results import KIND_VERDICTS, VERDICTS, claims_frame, regime_kind, scoreboard
from companion.settings import REPO_ROOT

#: the two columns every count of the scoreboard is split by (:func:`companion.results.regime_kind`)
REGIMES = ("paper setting", "scaled")
VERDICT_COLOURS = {"reproduced": "#2e8540", "partly": "#f0ad4e", "not reproduced": "#c9302c",
                   "inconclusive": "#6f8fb3", "not testable": "#9e9e9e"}
KIND_TITLES = {"paper": "Paper claims", "beyond": "Beyond the paper (questions the paper does not ask)",
               "check": "Our own checks (identities, parity, set-up: never counted as reproductions)"}


# --------------------------------------------------------------------------------------------- scoreboard
def _paper_link(paper: str, base: str, root: Path) -> str:
    return f"[{_title(paper)}]({base}{paper_page(paper)})" if (root / paper_page(paper)).exists() else _title(paper)


def _board(board, root: Path):
    """The statements' scoreboard split by regime (:func:`companion.results.scoreboard` with ``by_regime=True``),
    the five papers only."""
    board = scoreboard(_results_dir(root), kind="paper", by_regime=True, checkout=root) if board is None else board
    if "regime" not in board.columns:
        raise ValueError("the landing page's scoreboard is split by regime: pass scoreboard(by_regime=True)")
    return board[board["paper"].isin(REPRODUCED_PAPERS)]


def scoreboard_rows(board=None, root: Path | None = None) -> list[tuple[str, str, dict[str, int]]]:
    """``(paper, regime, {verdict: count, ..., "total": n, "evidence": n, "split": n})`` for the statements of the
    five papers (``total``; ``evidence``: their ledger rows; ``split``: those whose rows disagree), each paper in
    the registry's order with one row per regime of the headline rows (:data:`REGIMES`, zeros where a paper has
    none in that regime): the rows of the landing page's scoreboard table and, top to bottom, the bars of its
    figure. ``board``: :func:`companion.results.scoreboard` with ``by_regime=True`` (rows of the synthesis and the
    baselines, which are not papers, are left out)."""
    board = _board(board, _root(root))
    fields = (*VERDICTS, "total", "evidence", "split")
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for _, r in board.iterrows():
        key = (r["paper"], regime_kind(r["regime"]))
        row = counts.setdefault(key, dict.fromkeys(fields, 0))
        for v in fields:
            row[v] += int(r[v]) if v in r else 0
    papers = sorted({p for p, _ in counts}, key=_paper_order)
    return [(p, regime, dict(counts.get((p, regime), dict.fromkeys(fields, 0)))) for p in papers for regime in REGIMES]


def scoreboard_markdown(board=None, page: str = LANDING, root: Path | None = None) -> str:
    """The headline verdict counts of the five papers' statements, one row per paper and regime (``paper setting``
    / ``scaled``), each paper linked to its page, with the evidence rows and the split statements of each row. Our
    own checks, beyond-the-paper claims and errata are counted apart (:func:`other_claims_markdown`,
    :func:`.errata.errata_summary`)."""
    root = _root(root)
    rows = scoreboard_rows(board, root)
    if not rows:
        return "_No ledger yet: run the notebooks._"
    base = _base(page)
    return md_table(["paper", "regime", *VERDICTS, "statements", "evidence rows", "split"],
                    [[_paper_link(p, base, root), regime, *(c[v] for v in VERDICTS), c["total"], c["evidence"],
                      c["split"]] for p, regime, c in rows])


REGIME_SENTENCE = ("The regime never changes a verdict: a claim tested in a scaled regime (another backbone, fewer "
                   "layers trained, fewer steps, less data or fewer seeds than the paper) is judged by the same rule "
                   "as one tested in the paper's setting, and the regime is shown beside it.")


STATEMENT_SENTENCE = ("A statement is one thing a paper says, counted once however many runs test it: its verdict "
                      "is that of the run closest to the paper's setting (the setting itself, then the paper's "
                      "backbone, then its kind of encoder and training on a smaller model, then its head width, "
                      "then any other scaled run), and a run that is the evidence of an erratum is counted with "
                      "the errata.")


def scoreboard_summary(board=None, root: Path | None = None) -> str:
    """One sentence of totals over the five papers' statements, split by regime, with their evidence rows and split
    statements; :data:`STATEMENT_SENTENCE` and :data:`REGIME_SENTENCE`."""
    rows = scoreboard_rows(board, root)
    if not rows:
        return ""
    totals = {regime: {v: sum(c[v] for _, r, c in rows if r == regime) for v in (*VERDICTS, "total")}
              for regime in REGIMES}
    n = sum(t["total"] for t in totals.values())
    evidence, split = (sum(c[k] for _, _, c in rows) for k in ("evidence", "split"))
    parts = [f"{t['total']} {'in the paper setting' if regime == REGIMES[0] else regime} "
             f"({_verdict_counts({v: t[v] for v in VERDICTS})})" for regime, t in totals.items()]
    papers = len({p for p, _, _ in rows})
    tested = (f"tested by {evidence} evidence row{'s' if evidence != 1 else ''}; "
              + (f"{split} split: {'its' if split == 1 else 'their'} runs disagree, every verdict listed below"
                 if split else "no statement's runs disagree"))
    return (f"**In all, {n} statement{'s' if n != 1 else ''} of {_number_word(papers)} "
            f"paper{'s' if papers != 1 else ''}** ({tested}): {parts[0]}; {parts[1]}. {STATEMENT_SENTENCE} "
            f"{REGIME_SENTENCE}")


def split_statements_markdown(page: str = LANDING, root: Path | None = None, paper: str | None = None) -> str:
    """The statements whose evidence rows disagree (of ``paper``, or of the five papers): what the paper says and
    where, the headline verdict (of the row closest to the paper's setting) and every verdict with its regime class
    and rows (:func:`companion.statements.split_text`); a sentence when there is none."""
    root = _root(root)
    frame = claims_frame(_results_dir(root))
    frame = frame[(frame["kind"] == "paper") & frame["paper"].isin([paper] if paper else REPRODUCED_PAPERS)]
    heads = statements.headlines(frame, root=root)
    heads = heads[heads["split"]]
    if heads.empty:
        return "_No statement's evidence rows disagree._"
    base = _base(page)
    rows = [([_paper_link(h.paper, base, root)] if not paper else [])
            + [f"{fmt.ledger_text(h.claim)} *({fmt.ledger_text(h.source)})*", f"**{h.verdict}**",
               fmt.ledger_text(h.split_text)] for h in heads.itertuples()]
    return md_table((["paper"] if not paper else []) + ["statement · where in the paper", "headline",
                                                        "every verdict, regime and row"], rows)


def _number_word(n: int) -> str:
    return ("no", "one", "two", "three", "four", "five")[n] if 0 <= n <= 5 else str(n)


def _verdict_counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {v}" for v, n in counts.items() if n) or "none"


def _regime_counts(frame) -> str:
    """``2 in the paper setting, 10 scaled`` for claims with a ``regime`` column."""
    kinds = [regime_kind(r) for r in frame["regime"]]
    return ", ".join(f"{kinds.count(r)} {'in the paper setting' if r == REGIMES[0] else r}"
                     for r in REGIMES if kinds.count(r))


def other_claims_markdown(page: str = LANDING, root: Path | None = None) -> str:
    """Per ledger owner (the five papers, the baselines, the synthesis), what the scoreboard does not count: the
    verdicts of the beyond-the-paper claims (with their regimes), of our own checks (never reproductions) and of
    the errata of each paper (:func:`.errata.errata_by_paper`): ``4 reproduced, 8 inconclusive (2 in the paper
    setting, 10 scaled)`` / ``12 passed, 1 failed`` / ``3 confirmed``."""
    root = _root(root)
    base = _base(page)
    frame = claims_frame(_results_dir(root))
    counts: dict[str, dict[str, str]] = {}
    for kind in ("beyond", "check"):
        mine = frame[frame["kind"] == kind]
        for paper, claims in mine.groupby("paper"):
            verdicts = {v: int((claims["verdict"] == v).sum()) for v in KIND_VERDICTS[kind]}
            text = _verdict_counts(verdicts)
            if kind == "beyond":
                text += f" ({_regime_counts(claims)})"
            counts.setdefault(paper, {})[kind] = text
    for paper, statuses in errata_by_paper(root).items():
        counts.setdefault(paper, {})["erratum"] = _verdict_counts(statuses)
    if not counts:
        return "_None recorded._"
    rows = [[_paper_link(p, base, root), c.get("beyond", "none"), c.get("check", "none"), c.get("erratum", "none")]
            for p, c in sorted(counts.items(), key=lambda kv: _paper_order(kv[0]))]
    return md_table(["paper", "beyond the paper", "our checks", "errata"], rows)


# --------------------------------------------------------------------------------------------- claims
def _ours_text(claim: dict) -> str:
    """Our value: over seeds, the estimate with its 95 % interval (and the interval over seeds and test items where
    items were resampled) and the design's minimum detectable effect; otherwise the value in words."""
    st = claim.get("stats")
    if st:
        signed = str(st.get("test", "")).startswith("paired")  # a difference A − B: its sign is the finding
        lo, hi = st.get("ci") or (None, None)
        return fmt.estimate(st["estimate"], lo, hi, st.get("n"), mde=st.get("mde"), items=st.get("ci_items"),
                            signed=signed)
    return fmt.ledger_text(fmt.value_text(claim.get("ours")))


def _regime_key(regime: str, keys: dict[str, str]) -> str:
    """The regime cell: ``paper setting``, or ``scaled (A)`` with ``A`` the letter of its text in ``keys``."""
    if regime_kind(regime) == REGIMES[0]:
        return REGIMES[0]
    letter = keys.setdefault(regime, _letters(len(keys)))
    return f"scaled ({letter})"


def _letters(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(ord("A") + r) + out
    return out


def regime_legend(keys: dict[str, str]) -> str:
    """What each scaled regime of a claims table differs in from the paper's setting, one line per letter."""
    if not keys:
        return ""
    lines = [f"- **{letter}**: {fmt.ledger_text(regime.removeprefix('scaled: '))}" for regime, letter in keys.items()]
    return "\n".join(["Scaled regimes, what differs from the paper's setting:", "", *lines])


def claims_markdown(paper: str, page: str = LANDING, root: Path | None = None, kind: str = "paper") -> str:
    """One table of the claims of ``paper`` of one ``kind``: the claim with where the paper says it and a link to
    the notebook cell that decides it; the paper's value; ours (estimate [95 % CI] over seeds with the minimum
    detectable effect where there are seeds, numbers to their meaning, structures in words); the verdict with its
    reason (cut at :data:`REASON_CHARS` characters: the deciding cell shows it whole) and, for an inconclusive one,
    what deciding it would take (the ledger's ``to_decide``); and, for claims that have one (paper and beyond
    claims), the regime beside the verdict:
    ``paper setting`` or ``scaled (A)``, the letter's full text listed under the table (:func:`regime_legend`)."""
    root = _root(root)
    base = _base(page)
    where = claim_locations(root)
    rows = []
    keys: dict[str, str] = {}
    with_regime = kind in ("paper", "beyond")
    history = load_history(root)
    titles = findings.statement_titles(root) if kind == "paper" else {}
    for ledger in _ledgers(root):
        if ledger["paper"] != paper:
            continue
        for c in ledger["claims"]:
            if c.get("kind") != kind:
                continue
            loc = where.get((paper, ledger["notebook"], c["id"]))
            source = f" *({fmt.ledger_text(c['source'])})*" if c.get("source") else ""
            title = titles.get((paper, ledger["notebook"], c["id"]))
            lead = f"**{fmt.md_escape(title)}** — " if title else ""
            claim = f"{lead}{fmt.ledger_text(c['claim'])}{source} · {_cell_link(loc, base)}"
            reason = fmt.ledger_text(_short_reason(c["reason"]), fmt.REASON_DIGITS) if c.get("reason") else ""
            verdict = verdict_badge(c["verdict"]) + (f" — {reason}" if reason else "")
            if c.get("to_decide"):
                verdict += f" · *to decide: {fmt.ledger_text(c['to_decide'], fmt.REASON_DIGITS)}*"
            revisions = revised(history, f"{paper}/{ledger['notebook']}", c["id"])
            if revisions:
                verdict += (f" · *criterion revised after a result ({revisions[-1]['date']}; "
                            f"[was](#criteria-revised-after-a-result))*")
            row = [claim, fmt.ledger_text(fmt.value_text(c.get("paper_value"), printed=True)), _ours_text(c), verdict]
            if with_regime:
                row.append(_regime_key(c.get("regime") or REGIMES[0], keys))
            rows.append(row)
    if not rows:
        return "_None recorded._"
    headers = ["claim · where in the paper · deciding cell", "paper", "ours [95 % CI], MDE", "verdict"]
    table = md_table(headers + (["regime"] if with_regime else []), rows)
    legend = regime_legend(keys)
    return f"::: {{.{CLAIMS_TABLE}}}\n\n{table}\n\n:::" + (f"\n\n{legend}" if legend else "")


#: the class of the div around every claims table: the site's script (``site/claims-table.js``) makes the table in
#: it sortable and filterable, and the stylesheet lets it scroll inside its own box on a narrow screen
CLAIMS_TABLE = "claims-table"


#: the longest verdict reason a claims table shows in full; a longer one (a validity check listing every failing
#: run) is cut at a word boundary and points to its deciding cell, so that the table keeps room for its numbers
REASON_CHARS = 240


def _short_reason(reason: str) -> str:
    """``reason`` whole if it has at most :data:`REASON_CHARS` characters, else cut at the last space before that
    length and marked as cut."""
    if len(reason) <= REASON_CHARS:
        return reason
    return reason[:REASON_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + " … (in full at the deciding cell)"


def papers_with_claims(root: Path | None = None, five: bool | None = None) -> list[str]:
    """Ledger owners with at least one recorded claim of any kind, in the registry's order; ``five=True``: the five
    papers only, ``five=False``: the others (the baselines, the synthesis)."""
    found = {ledger["paper"] for ledger in _ledgers(_root(root)) if ledger["claims"]}
    if five is not None:
        found = {p for p in found if (p in REPRODUCED_PAPERS) == five}
    return sorted(found, key=_paper_order)


# --------------------------------------------------------------------------------------------- bottom lines
def _paper_claims(paper: str, root: Path) -> list[dict]:
    return [c for ledger in _ledgers(root) if ledger["paper"] == paper for c in ledger["claims"]]


def bottom_line_markdown(paper: str, page: str = LANDING, root: Path | None = None) -> str:
    """One paper's bottom line in a few sentences (:func:`companion.publish.site.findings.bottom_line`): what holds,
    what does not, what could not be decided and what deciding it would take, what cannot be tested here, naming
    the statements by their titles with their regimes. On any page but the paper's own, the paper's title links to
    its page, where every claim is listed."""
    return findings.bottom_line(paper, page, _root(root))


def bottom_lines_markdown(page: str = LANDING, root: Path | None = None) -> str:
    """The bottom line of each of the five papers with recorded claims, in the registry's order, one paragraph
    each (the landing page's answer to its title)."""
    return findings.bottom_lines(page, _root(root))


def landing_claims_markdown(paper: str, page: str = LANDING, root: Path | None = None) -> str:
    """A ledger owner's claims on the landing page, grouped by kind: one of the five papers' own claims as a table,
    then the beyond-the-paper claims and our own checks each in a collapsed callout (never counted as
    reproductions). The baselines and the synthesis are not papers: they have no paper claims, and the errata the
    synthesis proves are on the errata page."""
    root = _root(root)
    base = _base(page)
    parts: list[str] = []
    if paper in REPRODUCED_PAPERS:
        table = claims_markdown(paper, page, root, kind="paper")
        parts = [table if table.startswith(":::") else "_No claims of the paper recorded yet (see below)._", ""]
    elif any(owner == paper for owner, _, _ in _errata_entries(root)):
        parts = [f"Not one of the five papers. The errata it proves are counted apart, one card each on "
                 f"[the errata page]({base}{ERRATA_PAGE}).", ""]
    for kind, title in (("beyond", "Beyond the paper"), ("check", "Our own checks")):
        n = sum(c.get("kind") == kind for ledger in _ledgers(root) if ledger["paper"] == paper
                for c in ledger["claims"])
        if n:
            parts += [f'::: {{.callout-note collapse="true" title="{title}: {n} claim{"s" if n > 1 else ""}"}}', "",
                      claims_markdown(paper, page, root, kind=kind), "", ":::", ""]
    return "\n".join(parts)


# --------------------------------------------------------------------------------------------- coverage, figure
def coverage_markdown(paper: str, page: str, root: Path | None = None) -> str:
    """The paper's coverage map (``data/<paper>/coverage.csv``) with a status computed from the claims' verdicts:
    item, what the paper states, the notebook that addresses it, status (and our scale or the reason)."""
    root = _root(root)
    path = root / "data" / paper / "coverage.csv"
    if not path.exists():
        return "_No coverage map for this paper._"
    base = _base(page)
    frame = sources.coverage_status(paper, root=root)
    rows = []
    for _, r in frame.iterrows():
        ids = sources.split_claims(r.get("claims") or "")
        nb = (r.get("notebook") or "").strip()
        nb_path = _notebook_path(root, *nb.split("/", 1)) if "/" in nb else None
        where = (f"[{nb.split('/', 1)[1]}]({base}{nb_path.relative_to(root).as_posix()})" if nb_path
                 else fmt.ledger_text(nb))
        if ids:
            where += f" ({len(ids)} claim{'s' if len(ids) > 1 else ''})"
        status = f"**{r['status']}**" if ids else fmt.ledger_text(r["status"])
        scale = (r.get("scale_or_reason") or "").strip()
        if ids and scale:
            status += " — " + fmt.ledger_text(scale)
        rows.append([fmt.ledger_text(r["item"]), fmt.ledger_text(r["states"]), where or "—", status])
    return md_table(["item", "what the paper states", "addressed in", "status"], rows)


def _row_label(paper: str, regime: str) -> str:
    return f"{_title(paper)} ({regime})"


def verdict_figure(root: Path | None = None, board=None):
    """Stacked horizontal bars of the statements' headline verdict counts: one bar per row of the scoreboard table
    (:func:`scoreboard_rows`: each paper in the paper setting, then scaled), top to bottom in the table's order,
    each segment labelled with its count."""
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    rows = scoreboard_rows(board, root)
    fig, ax = plt.subplots(figsize=(9, 1.4 + 0.36 * max(len(rows), 1)))
    positions = list(range(len(rows)))
    left = [0] * len(rows)
    for verdict in VERDICTS:
        values = [c[verdict] for _, _, c in rows]
        ax.barh(positions, values, left=left, color=VERDICT_COLOURS[verdict], label=verdict, height=0.7)
        for y, (x0, w) in enumerate(zip(left, values)):
            if w:
                ax.text(x0 + w / 2, y, str(w), ha="center", va="center", color="white", fontsize=8)
        left = [a + b for a, b in zip(left, values)]
    ax.set_yticks(positions, [_row_label(p, regime) for p, regime, _ in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first table row at the top
    ax.set_xlabel("statements of the five papers, by headline verdict (the regime never changes a verdict)")
    ax.spines[["top", "right"]].set_visible(False)
    fig.legend(*ax.get_legend_handles_labels(), ncol=len(VERDICTS), fontsize=8, loc="upper center",
               frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))
    return fig


# --------------------------------------------------------------------------------------------- paper pages
def _regime_summary(counts: dict[str, dict[str, int]]) -> str:
    return "; ".join(f"{'in the paper setting' if regime == REGIMES[0] else regime}: "
                     f"{_verdict_counts({v: c[v] for v in VERDICTS})} (of {c['total']})"
                     for regime, c in counts.items())


def paper_page_markdown(paper: str, root: Path | None = None) -> str:
    """The body of ``site/papers/<paper>.qmd``, claims first: reference and bottom line, the claims with their
    verdicts, errata, coverage map, criteria revised after a result, then how it was run (scale, notebooks, the gpu
    profile's settings)."""
    root = _root(root)
    page = paper_page(paper)
    info = PAPERS.get(paper, {"title": paper, "reference": paper, "url": ""})
    ref = f"[{info['reference']}]({info['url']})" if info.get("url") else info["reference"]
    board: dict[str, dict[str, dict[str, int]]] = {}
    for p, regime, c in scoreboard_rows(root=root):
        board.setdefault(p, {})[regime] = c
    if paper not in REPRODUCED_PAPERS:
        summary = ("**Not one of the five papers:** its claims are questions the papers do not ask and our own "
                   "checks, counted apart from the scoreboard" + (
                       "; the errata it proves are on [the errata page]"
                       f"({_base(page)}{ERRATA_PAGE})." if any(o == paper for o, _, _ in _errata_entries(root))
                       else "."))
    elif paper in board:
        evidence, split = (sum(c[k] for c in board[paper].values()) for k in ("evidence", "split"))
        summary = (f"**Verdicts on the paper's statements** (each once, by its headline verdict; {evidence} evidence "
                   f"rows in the tables below, {split} statement{'s' if split != 1 else ''} split): "
                   f"{_regime_summary(board[paper])}. {REGIME_SENTENCE}")
    else:
        summary = "**Verdicts on the paper's statements:** none recorded."
    bottom = [bottom_line_markdown(paper, page, root), ""] if paper in REPRODUCED_PAPERS else []
    figure = forest.figure_markdown(paper, page, root) if paper in REPRODUCED_PAPERS else ""
    # claims first: the bottom line, the figure and the claims table come before how it was run; the run settings
    # and the gpu profile's settings (which produced none of the results shown) are folded at the end
    parts = [f"**Paper.** {ref}", "", *bottom, *([figure, ""] if figure else []),
             "## Claims and verdicts", "", summary, "",
             "Each row is one claim: the statement's title in bold, the claim, where the paper makes it and the "
             "notebook cell that decides it. Beside each verdict, its regime: *paper setting*, or *scaled* with what "
             "differs listed under the table. Numbers over seeds are the mean (a difference is signed) with its "
             "95 % confidence interval and the design's minimum detectable effect at 80 % power (MDE). Sort by a "
             "column's heading; filter by a verdict or a word.", ""]
    kinds = ("paper", "beyond", "check") if paper in REPRODUCED_PAPERS else ("beyond", "check")
    for kind in kinds:
        table = claims_markdown(paper, page, root, kind=kind)
        if kind == "paper" or len(kinds) == 2:
            parts += [f"### {KIND_TITLES[kind]}", "", table, ""]
        else:
            n = sum(c.get("kind") == kind for c in _paper_claims(paper, root))
            parts += [_folded(f"{KIND_TITLES[kind]}: {n} claim{'s' if n != 1 else ''}", table), ""]
        if kind == "paper":
            parts += ["### Split statements", "",
                      "Every row of the table above is the evidence of one statement of the paper; a statement tested "
                      "in several regimes or notebooks has several rows and is counted once, by the row closest to "
                      "the paper's setting. Those whose rows disagree:", "",
                      split_statements_markdown(page, root, paper=paper), ""]
    if paper in REPRODUCED_PAPERS:
        parts += ["## Errata", "", errata_markdown(page, root, paper=paper), ""]
    parts += ["## Coverage map", "",
              "Every table, figure, theorem and headline claim of the paper: where we address it, at which scale, "
              "or why not. The status is computed from the verdicts of the listed claims.", "",
              coverage_markdown(paper, page, root), "",
              "## Criteria revised after a result", "", revisions_markdown(paper, root), "",
              "## How it was run", "",
              "The notebooks in section order, then, folded, the scale each run had (read from its provenance and "
              "the executed notebook: profile, seeds, hardware, wall time, settings) and the gpu profile's settings. "
              "The notebooks say at their start what was scaled down, and why in the cell that introduces their "
              "settings.", "",
              run_scale.notebooks_markdown(paper, page, root), "",
              _folded("Run settings: the scale of each run", run_scale.scale_markdown(paper, page, root)), ""]
    gpu = run_scale.gpu_settings_markdown(paper)
    if gpu:
        parts += [_folded("The gpu profile, setting by setting", gpu), ""]
    return "\n".join(parts)


def _folded(title: str, body: str) -> str:
    """``body`` in a callout that starts folded (Quarto's ``collapse``), ``title`` on its bar."""
    return "\n".join([f'::: {{.callout-note collapse="true" title="{title}"}}', "", body, "", ":::"])


def render_paper_page(paper: str, root: Path | None = None) -> str:
    """The generated ``site/papers/<paper>.qmd``: front matter, the inputs stamp and one Python cell that prints
    the page body."""
    title = PAPERS.get(paper, {"title": paper})["title"]
    # the contents go in the body, not the margin: with the paper's sidebar docked, a margin table of contents
    # would leave the full layout the article's 749 px at 1400 px and squeeze the claims tables (1,025 px without)
    return (f'---\ntitle: "{title}"\npage-layout: full\ntoc-location: body\n---\n\n'
            f"<!-- Generated by `python -m companion site` - edit companion/publish/site/pages.py, not this file. -->\n"
            f"<!-- site inputs: {inputs_digest(root)} ({STAMP_NOTE}) -->\n\n"
            "Everything below is computed at render time from `results/`, the executed notebooks and `data/`.\n\n"
            "```{python}\n#| echo: false\n#| output: asis\nfrom companion.publish.site import pages\n\n"
            f'print(pages.paper_page_markdown("{paper}"))\n```\n')


# --------------------------------------------------------------------------------------------- README, writing
def _colab(rel: str, root: Path) -> str:
    """The Colab badge of notebook ``rel``; empty when no repository is configured (``companion.publish.colab``)."""
    return colab.badge(rel, github_repo(root))


def notebook_table(root: Path = REPO_ROOT) -> str:
    """Markdown table of every notebook with its section and, when a repository is configured, its Colab badge
    (the README's notebook list)."""
    repo = github_repo(root)
    lines = ["| notebook | section | open |", "|---|---|---|"] if repo else ["| notebook | section |", "|---|---|"]
    for nb in _notebooks(root):
        rel = nb.path.relative_to(root).as_posix()
        lines.append(f"| [`{rel}`]({rel}) | {nb.title} |" + (f" {_colab(rel, root)} |" if repo else ""))
    return "\n".join(lines)


TABLE_START, TABLE_END = "<!-- notebook-table:start -->", "<!-- notebook-table:end -->"
FINDINGS_START, FINDINGS_END = "<!-- findings:start -->", "<!-- findings:end -->"


def readme_findings(root: Path = REPO_ROOT) -> str:
    """The README's findings, generated from the ledgers: the findings table (each paper linked to its notebooks)
    and, folded, each paper's bottom line."""
    links = {p.id: f"notebooks/{p.folder}" for p in REGISTRY if (root / "notebooks" / p.folder).is_dir()}
    lines = [f"- {line}" for line in findings.bottom_lines(None, root).split("\n\n")]
    return "\n".join([findings.findings_table(root=root, links=links), "",
                      "<details><summary>The bottom line, paper by paper (generated from the ledgers)</summary>", "",
                      *lines, "", "</details>"])


def _between(text: str, start: str, end: str, body: str) -> str:
    if start not in text or end not in text:
        return text
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}\n{end}{tail}"


def render_readme(root: Path = REPO_ROOT) -> str:
    """README.md with its generated parts rewritten: the findings (:func:`readme_findings`) and the notebook
    table (:func:`notebook_table`)."""
    text = (root / "README.md").read_text(encoding="utf-8")
    text = _between(text, FINDINGS_START, FINDINGS_END, readme_findings(root)) if FINDINGS_START in text else text
    return _between(text, TABLE_START, TABLE_END, notebook_table(root))


def write_sidebar(root: Path = REPO_ROOT) -> Path:
    """Regenerate ``_quarto.yml``, the per-paper pages, the API pages, the site figures (``figures/site/``) and the
    README's generated parts (findings, notebook table)."""
    path = root / CONFIG
    path.write_text(render_config(root), encoding="utf-8")
    apidoc.write_pages(root)
    forest.write_figures(root)
    for paper in _paper_ids(root):
        page = root / paper_page(paper)
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(render_paper_page(paper, root), encoding="utf-8")
    digest = inputs_digest(root)
    for rel in EXTRA_PAGES:
        page = root / rel
        text = page.read_text(encoding="utf-8") if page.is_file() else ""
        if is_computed(text) and stamp_inputs(text, digest) != text:
            page.write_text(stamp_inputs(text, digest), encoding="utf-8")
    if (root / "README.md").exists():
        (root / "README.md").write_text(render_readme(root), encoding="utf-8")
    return path
