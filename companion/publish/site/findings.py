"""The findings in words, generated from the ledgers: a short title per statement, each paper's bottom line in a
few sentences and the findings table of the five papers (the landing page, the paper pages and the README).

* **Titles.** ``data/statement-titles.csv`` (columns ``paper, statement, title``; ``#`` lines are comments) gives
  each statement of :mod:`companion.statements` a short plain title ("CircularCSE gives the highest CD-r"), written
  by hand once. The file is keyed by paper and statement id and is read only here: the statement rule and its
  exceptions (``data/<paper>/statements.csv``) stay as they are, and the papers' folders keep only their
  transcriptions. A statement without a title shows its claim text, cut short;
  :func:`title_problems` (``site --check``) names statements without a title and titles of no statement.
* **Bottom line** (:func:`bottom_line`): three to five sentences per paper: what holds (*reproduced*, then
  *partly*), what does not (*not reproduced*), what could not be decided (*inconclusive*, with what stopped it and
  what deciding it would take, from the ledger: the seeds a power calculation asks for, or a longer run where the
  plateau check says the metric still moves), what cannot be tested here (with the reason) and the gpu profile's
  estimated GPU hours for the paper's notebooks (:mod:`companion.publish.plan`). Each sentence names statements by
  their titles with their regime; verdicts are the statements' headline verdicts.
* **Findings table** (:func:`findings_table`): one row per paper, its statements by headline verdict and its errata.

Nothing here is typed by hand except the titles; everything else is recomputed from ``results/`` at build time.
"""

from __future__ import annotations

import csv
import functools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from scipy import stats as sp

from companion import statements
from companion.publish.plan import plan_frame
from companion.publish.site import format as fmt
from companion.publish.site.common import (
    REPRODUCED_PAPERS,
    _base,
    _ledgers,
    _paper_order,
    _results_dir,
    _root,
    _title,
    md_table,
    paper_page,
)
from companion.publish.site.errata import errata_by_paper
from companion.publish.site.summary import OTHER, reason_group
from companion.results import claims_frame
from companion.statements import REGIME_ORDER

TITLES_FILE = "statement-titles.csv"
TITLE_COLUMNS = ("paper", "statement", "title")
#: the longest title a table cell or a sentence shows whole
TITLE_CHARS = 72
#: how many statements a sentence names before "and N more"
NAMED = 3
#: the most seeds a power calculation looks for before it says "more than"
SEEDS_MAX = 1000
PAPER_SETTING = "paper setting"


# --------------------------------------------------------------------------------------------- titles
def titles_path(root: Path | None = None) -> Path:
    return _root(root) / "data" / TITLES_FILE


def read_titles(paper: str, root: Path | None = None) -> dict[str, str]:
    """``{statement id: title}`` of ``paper`` in ``data/statement-titles.csv`` (empty when the file is absent)."""
    path = titles_path(root)
    if not path.is_file():
        return {}
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(lines))
    if rows and set(TITLE_COLUMNS) - set(rows[0]):
        raise ValueError(f"{path}: columns {', '.join(TITLE_COLUMNS)} expected, got {', '.join(rows[0])}")
    return {(r["statement"] or "").strip(): " ".join((r["title"] or "").split()) for r in rows
            if (r["paper"] or "").strip() == paper}


# --------------------------------------------------------------------------------------------- statements
@dataclass
class Statement:
    """One statement of a paper with its headline row (:func:`companion.statements.headlines`) and that row's
    claim from the ledger (its numbers, criterion and reason)."""

    paper: str
    statement: str
    title: str
    verdict: str
    regime: str
    regime_class: str
    notebook: str
    id: str
    claim: dict = field(default_factory=dict)
    split: bool = False
    titled: bool = True

    @property
    def reason(self) -> str:
        return str(self.claim.get("reason") or "")


def _claims_by_row(root: Path) -> dict[tuple[str, str, str], dict]:
    return {(ledger["paper"], ledger["notebook"], c["id"]): c for ledger in _ledgers(root) for c in ledger["claims"]}


def statements_of(paper: str, root: Path | None = None) -> list[Statement]:
    """The statements of ``paper`` in ledger order, each with its title (its claim text cut short where
    ``statement-titles.csv`` has none) and its headline row's claim."""
    root = _root(root)
    frame = claims_frame(_results_dir(root))
    if frame.empty:
        return []
    heads = statements.headlines(frame[(frame["paper"] == paper) & (frame["kind"] == "paper")], root=root)
    titles = read_titles(paper, root)
    claims = _claims_by_row(root)
    out = []
    for h in heads.itertuples():
        claim = claims.get((paper, h.notebook, h.id), {})
        title = titles.get(h.statement)
        out.append(Statement(paper, h.statement, title or fmt.cut(fmt.tidy_numbers(h.claim), TITLE_CHARS),
                             h.verdict, str(h.regime or PAPER_SETTING), h.regime_class, h.notebook, h.id, claim,
                             bool(h.split), titled=bool(title)))
    return out


def statement_titles(root: Path | None = None) -> dict[tuple[str, str, str], str]:
    """``(paper, notebook, claim id) -> title`` for every ``paper`` claim that tests a titled statement (the claims
    tables put the title before the claim)."""
    root = _root(root)
    frame = claims_frame(_results_dir(root))
    if frame.empty:
        return {}
    rows = statements.assign(frame[frame["kind"] == "paper"], root=root)
    titles = {p: read_titles(p, root) for p in sorted(set(rows["paper"]))}
    return {(p, nb, cid): titles[p][s] for p, nb, cid, s in zip(rows["paper"], rows["notebook"], rows["id"],
                                                                 rows["statement"]) if s in titles[p]}


def title_problems(root: Path | None = None) -> list[str]:
    """Statements of the five papers without a title, titles that name no statement, empty or over-long titles."""
    problems = []
    root = _root(root)
    for paper in sorted({ledger["paper"] for ledger in _ledgers(root)} & set(REPRODUCED_PAPERS), key=_paper_order):
        where = f"data/{TITLES_FILE} ({paper})"
        titles = read_titles(paper, root)
        ids = [s.statement for s in statements_of(paper, root)]
        missing = [s for s in ids if not titles.get(s)]
        if missing:
            problems.append(f"{where}: {len(missing)} statement(s) without a title (e.g. {missing[0]!r}); the "
                            "pages show their claim text cut short")
        problems += [f"{where}: {s!r} is no statement of results/{paper}/ (renamed or regrouped?)"
                     for s in titles if s not in ids]
        problems += [f"{where}: the title of {s!r} has {len(t)} characters, over {TITLE_CHARS}"
                     for s, t in titles.items() if len(t) > TITLE_CHARS]
    return problems


# --------------------------------------------------------------------------------------------- words
def short_regime(regime: str) -> str:
    """A regime in a few words: ``in the paper's setting``, or ``scaled`` and, in parentheses, the first clause of what differs (up to its
    first comma, semicolon or parenthesis)."""
    if not regime or regime == PAPER_SETTING:
        return "in the paper's setting"
    text = fmt.tidy_numbers(regime).removeprefix("scaled:").strip()
    first = re.split(r"[;,]| \(", text, maxsplit=1)[0].strip()
    return f"scaled ({fmt.cut(first, 60)})"


def _band(criterion: str) -> tuple[float, float] | None:
    """The band an interval must fit in to decide a criterion, as ``(centre, half-width)``: ``CI of ours inside
    V ± T`` gives ``(V, T)``; a comparison's ``tolerance ±T`` gives ``(0, T)``, the band that shows an effect
    absent."""
    text = (criterion or "").replace("\u2212", "-")
    inside = re.search(r"inside ([-+]?[0-9.]+(?:[eE][-+]?\d+)?) ± ([0-9.]+(?:[eE][-+]?\d+)?)", text)
    tol = re.search(r"tolerance ±([0-9.]+(?:[eE][-+]?\d+)?)", text)
    try:
        if inside:
            return float(inside.group(1)), abs(float(inside.group(2)))
        if tol:
            return 0.0, abs(float(tol.group(1)))
    except ValueError:
        return None
    return None


@functools.lru_cache(maxsize=512)
def _seeds_for_width(sd: float, half_width: float, n_max: int = SEEDS_MAX) -> int | None:
    """The fewest seeds whose 95 % t interval at spread ``sd`` has a half-width of at most ``half_width``."""
    for n in range(2, n_max + 1):
        if float(sp.t.ppf(0.975, n - 1)) * sd / math.sqrt(n) <= half_width:
            return n
    return None


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def what_it_takes(s: Statement) -> str | None:
    """What deciding an inconclusive statement would take, where its ledger row says: seeds (the reason's own
    count for an underpowered design; for an interval too wide to decide, the seeds that would narrow the 95 %
    interval at our spread and estimate into the criterion's band, :func:`_band`, when that takes more than the run
    has), a longer run (the plateau check: the metric
    still moves at the end of the budget) or a harder test (a score at its ceiling or floor). A ledger row that
    records its own ``to_decide`` (:func:`companion.stats.validity.to_decide`) is read first."""
    recorded = str(s.claim.get("to_decide") or "")
    seeds = re.match(r"about ([\d,\u2009]+) seeds", recorded)
    if seeds:
        return f"about {seeds.group(1)} seeds"
    if recorded:
        return recorded
    reason = s.reason
    group = reason_group(reason)
    if group == "underpowered":
        match = re.search(r"about ([\d,\u2009]+) seeds", reason)
        return f"about {match.group(1)} seeds" if match else "more seeds"
    if group == "wide interval":
        st = s.claim.get("stats") or {}
        sd, n, est = st.get("sd"), st.get("n"), st.get("estimate")
        band = _band(s.claim.get("criterion", ""))
        room = band[1] - abs(est - band[0]) if band and _number(est) else 0
        if _number(sd) and _number(n) and room > 0:
            need = _seeds_for_width(float(sd), room)
            if need is None:
                return f"more than {SEEDS_MAX} seeds"
            if need > n:
                return f"about {need} seeds"
        return "more seeds"
    if group == "budget":
        return "a longer run (the metric still moves at the end of the budget)"
    if group in ("ceiling", "floor"):
        return f"a harder test (the score is near its {group})"
    return None


def _not_testable_reason(s: Statement) -> str:
    text = s.reason or str(s.claim.get("criterion", ""))
    text = re.sub(r"^not testable( here)?:\s*", "", " ".join(text.split()), flags=re.I)
    text = re.split(r";|\.(?:\s+(?=[A-Z])|$)|,? and cannot\b|, nor\b", text, maxsplit=1)[0]
    while re.search(r"\s*\([^()]*\)", text):  # asides in parentheses, innermost first
        text = re.sub(r"\s*\([^()]*\)", "", text)
    return fmt.cut(text, 90)


def _named(items: list[Statement], note=None, shown: int = NAMED, regimes: bool = True) -> str:
    """``in the paper's setting: *A*; scaled (…): *B* and *C* (partly); and 2 more``: up to ``shown`` titles,
    grouped by regime in order of appearance (``regimes=False``: titles only); ``note(s)`` adds a few words after a
    title."""
    groups: dict[str, list[str]] = {}
    for s in items[:shown]:
        extra = note(s) if note else None
        label = f"*{fmt.md_escape(s.title)}*" + (f" ({fmt.md_escape(extra)})" if extra else "")
        groups.setdefault(short_regime(s.regime) if regimes else "", []).append(label)
    parts = [f"{fmt.md_escape(regime)}: {_and(labels)}" if regime else _and(labels)
             for regime, labels in groups.items()]
    more = len(items) - shown
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _order(items: list[Statement]) -> list[Statement]:
    """Closest to the paper's setting first (:data:`companion.statements.REGIME_ORDER`), then ledger order."""
    rank = {name: i for i, (name, _) in enumerate(REGIME_ORDER)}
    return sorted(items, key=lambda s: rank.get(s.regime_class, len(rank)))


@functools.lru_cache(maxsize=4)
def _gpu_hours_cached(stamp: str) -> dict[str, float]:
    try:
        frame = plan_frame()
    except Exception:  # noqa: BLE001 - the plan is an extra: a page without it still reads true
        return {}
    return {nb: float(h) for nb, h in frame.groupby("notebook")["bf16_h"].sum().items()}


def gpu_hours(paper: str) -> float:
    """The gpu profile's estimated H100 hours (bf16) for ``paper``'s notebooks (:func:`companion.publish.plan
    .plan_frame`); 0 when the plan cannot be computed."""
    hours = _gpu_hours_cached("plan")
    return sum(h for nb, h in hours.items() if nb.split("/")[0] == paper)


def _hours_text(hours: float) -> str:
    return f"{hours:.1f}" if hours >= 0.95 else f"{hours:.2f}"


def _seeds(s: Statement) -> str | None:
    """``about 4`` for a statement more seeds would decide (none when they are not counted), else None."""
    text = what_it_takes(s) or ""
    return text.removesuffix(" seeds") if text.endswith(" seeds") and text != "more seeds" else None


def _needs_seeds(s: Statement) -> bool:
    return (what_it_takes(s) or "").endswith(" seeds")


def _lead(reason: str) -> str:
    """A reason's first clause, for a group of reasons with no lead word."""
    text = re.split(r"[;:(]|, so\b", " ".join(reason.split()), maxsplit=1)[0].strip()
    return fmt.cut(text, 80)


def sentences(items: list[Statement], hours: float = 0.0) -> list[str]:
    """The bottom line of one paper's statements as three to five sentences (see the module docstring)."""
    by = {v: _order([s for s in items if s.verdict == v])
          for v in ("reproduced", "partly", "not reproduced", "inconclusive", "not testable")}
    n = len(items)
    holds = by["reproduced"] + by["partly"]
    out = []
    if holds:
        counts = " and ".join(f"{len(by[v])} {v}" for v in ("reproduced", "partly") if by[v])
        out.append(f"**Holds** ({counts}, of {n} statements) — "
                   + _named(holds, note=lambda s: "partly" if s.verdict == "partly" else None) + ".")
    else:
        out.append(f"**Holds:** none of its {n} statements.")
    if by["not reproduced"]:
        out.append(f"**Does not hold** ({len(by['not reproduced'])}) — {_named(by['not reproduced'])}.")
    else:
        out.append("**Does not hold:** no statement.")
    undecided = by["inconclusive"]
    if undecided:
        seeds = sorted((s for s in undecided if _needs_seeds(s)), key=lambda s: _seeds(s) is None)
        longer = [s for s in undecided if s not in seeds and reason_group(s.reason) == "budget"]
        rest = [s for s in undecided if s not in seeds and s not in longer]
        parts = []
        if seeds:
            parts.append("more seeds would decide " + _named(seeds, note=_seeds, shown=2, regimes=False))
        if longer:
            parts.append("longer runs would decide " + _named(longer, shown=2, regimes=False)
                         + " (the metric still moves at the end of the budget)")
        if rest:
            groups: dict[str, int] = {}
            for s in rest:
                groups[reason_group(s.reason)] = groups.get(reason_group(s.reason), 0) + 1
            other = next((s.reason for s in rest if reason_group(s.reason) == OTHER), "")
            why = ", ".join(f"{k}: {_lead(other)}" if g == OTHER else f"{k} {g}"
                            for g, k in sorted(groups.items(), key=lambda kv: -kv[1]))
            parts.append(f"{len(rest)} stopped for another reason ({fmt.md_escape(why)})"
                         + (": " + _named(rest, regimes=False) if len(rest) <= 2 else ""))
        regimes = {short_regime(s.regime) for s in undecided}
        where = f", all {fmt.md_escape(regimes.pop())}" if len(regimes) == 1 else ""
        out.append(f"**Undecided** ({len(undecided)} inconclusive{where}) — " + "; ".join(parts) + ".")
    if by["not testable"]:
        out.append(f"**Not testable here** ({len(by['not testable'])}) — "
                   + _named(by["not testable"], note=_not_testable_reason, regimes=False) + ".")
    if hours > 0 and (undecided or by["not testable"]):
        out.append(f"Running its notebooks in the gpu profile (the paper's backbones and budgets) is estimated at "
                   f"about {_hours_text(hours)} H100 hours.")
    return out


def bottom_line(paper: str, page: str | None = None, root: Path | None = None) -> str:
    """``paper``'s bottom line as one markdown paragraph (:func:`sentences`), led by its title (a link to its page
    when ``page`` is another page)."""
    root = _root(root)
    items = statements_of(paper, root)
    title = _title(paper)
    if page is not None and page != paper_page(paper) and (root / paper_page(paper)).exists():
        title = f"[{title}]({_base(page)}{paper_page(paper)})"
    if not items:
        return f"**{title}:** no statement of the paper recorded yet."
    return f"**{title}** — " + " ".join(sentences(items, gpu_hours(paper)))


# --------------------------------------------------------------------------------------------- findings table
FINDINGS_COLUMNS = ("statements", "reproduced", "partly", "not reproduced", "inconclusive", "not testable", "errata")


def findings_rows(root: Path | None = None) -> list[tuple[str, dict[str, int]]]:
    """``(paper, {column: count})`` for each of the five papers with statements, in the registry's order: its
    statements by headline verdict and its errata (confirmed and partly confirmed; minor ones apart)."""
    root = _root(root)
    errata = errata_by_paper(root)
    rows = []
    for paper in sorted(set(REPRODUCED_PAPERS), key=_paper_order):
        items = statements_of(paper, root)
        if not items:
            continue
        counts = {v: sum(s.verdict == v for s in items) for v in FINDINGS_COLUMNS[1:-1]}
        mine = errata.get(paper, {})
        rows.append((paper, {"statements": len(items), **counts,
                             "errata": mine.get("confirmed", 0) + mine.get("partly confirmed", 0),
                             "minor errata": mine.get("minor", 0)}))
    return rows


def findings_table(page: str | None = None, root: Path | None = None, links: dict[str, str] | None = None) -> str:
    """The findings table: one row per paper (linked to its page when ``page`` is given, else to ``links[paper]``)
    with its statements by headline verdict and its errata, and a total row."""
    root = _root(root)
    rows = findings_rows(root)
    if not rows:
        return "_No ledger yet: run the notebooks._"
    headers = ["paper", "statements", "✔ reproduced", "◐ partly", "✘ not reproduced", "? inconclusive",
               "– not testable", "errata"]

    def errata(c):
        return f"{c['errata']}" + (f" (+{c['minor errata']} minor)" if c["minor errata"] else "")

    body = []
    for paper, c in rows:
        target = f"{_base(page)}{paper_page(paper)}" if page is not None else (links or {}).get(paper)
        name = f"[{_title(paper)}]({target})" if target else _title(paper)
        body.append([name, *(c[k] for k in FINDINGS_COLUMNS[:-1]), errata(c)])
    total = {k: sum(c[k] for _, c in rows) for k in (*FINDINGS_COLUMNS, "minor errata")}
    body.append(["**all five**", *(f"**{total[k]}**" for k in FINDINGS_COLUMNS[:-1]), f"**{errata(total)}**"])
    return md_table(headers, body)


def bottom_lines(page: str | None = None, root: Path | None = None) -> str:
    """The bottom line of each of the five papers, one paragraph each, in the registry's order."""
    root = _root(root)
    papers = sorted({ledger["paper"] for ledger in _ledgers(root) if ledger["claims"]} & set(REPRODUCED_PAPERS),
                    key=_paper_order)
    if not papers:
        return "_No ledger yet: run the notebooks._"
    return "\n\n".join(bottom_line(p, page, root) for p in papers)
