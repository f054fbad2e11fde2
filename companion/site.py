"""The Quarto website, generated from the notebooks and the claims ledger so that nothing on it can drift.

Pages:

* ``index.qmd`` — the scoreboard: verdict counts per paper, an overall figure and one claims table per paper, each
  claim linked to the notebook cell that decides it (all computed at render time from ``results/``);
* ``site/papers/<paper>.qmd`` — one page per paper (generated): reference, the scale each notebook ran at
  (backbone, data subset and budget, seeds, hardware, wall time; read from provenance and the executed notebooks),
  the notebooks in section order, the claims and the paper's errata;
* ``site/errata.qmd`` — every verified inconsistency, from the errata notebook's ledger (``synthesis/00-errata``);
* ``site/run-it-yourself.qmd`` — profiles, time per notebook and profile, the ``gpu`` profile's backbones;
* ``site/use-the-objectives.qmd`` and ``site/api/`` — the losses in your own training, and the API reference
  generated from the docstrings (:mod:`companion.apidoc`).

``python -m companion site`` rewrites ``_quarto.yml`` (navbar, one sidebar per paper: its page then its notebooks in
section order), the per-paper pages and the README's notebook table. ``python -m companion site --check`` (and
``tests/test_runner_site.py``, ``tests/test_site_pages.py``) verifies that every notebook and page is in the
navigation exactly once, every listed file exists, generated files are up to date, every link in every page (also
in the markdown the pages' Python cells print) and in every notebook's first cell resolves to a file or is an
http(s) URL, every notebook's first cell has its Colab badge and names its paper section, and every claim in
``results/`` resolves to a notebook cell. Quarto renders the stored notebook outputs without re-executing them (its
default for ``.ipynb``); only the pages' small Python cells run, reading ``results/``.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from . import apidoc
from .runner import list_notebooks
from .settings import REPO_ROOT

CONFIG = "_quarto.yml"
LANDING = "index.qmd"
ERRATA_PAGE = "site/errata.qmd"
RUN_PAGE = "site/run-it-yourself.qmd"
PAPER_PAGES = "site/papers"
EXTRA_PAGES = (LANDING, ERRATA_PAGE, RUN_PAGE, apidoc.USE_PAGE)
ERRATA_LEDGER = ("synthesis", "00-errata")
BENCHMARK_REPORT = "benchmarks/report.json"

PAPERS: dict[str, dict[str, str]] = {
    "baselines": {"title": "Baselines", "reference": "all-MiniLM-L6-v2 zero-shot (Reimers & Gurevych 2019)",
                  "url": "https://arxiv.org/abs/1908.10084"},
    "circumplex": {"title": "Circumplex of affect",
                   "reference": "Yamauchi & Aizawa, Mapping the Circumplex of Affect, ACL 2026 (2026.acl-long.772; "
                                "an earlier version is arXiv 2601.06575)",
                   "url": "https://aclanthology.org/2026.acl-long.772"},
    "simace": {"title": "SimACE", "reference": "A Simple Angle-based Approach for Contrastive Learning of "
                                               "Unsupervised Sentence Representation (anonymous ACL submission; "
                                               "Findings of EMNLP 2024, 2024.findings-emnlp.318)",
               "url": "https://aclanthology.org/2024.findings-emnlp.318"},
    "weighted-cl": {"title": "Weighted CL as distance geometry",
                    "reference": "Vock, Duchesnay & Dufumier, A Unified Geometric Framework for Weighted "
                                 "Contrastive Learning, arXiv 2605.13943",
                    "url": "https://arxiv.org/abs/2605.13943"},
    "concepts": {"title": "Principles of concept representation",
                 "reference": "Mohr, Dujany, Souquet & Freitas, Principles of Concept Representation in Sentence "
                              "Encoders, arXiv 2606.06994",
                 "url": "https://arxiv.org/abs/2606.06994"},
    "angle": {"title": "AnglE", "reference": "Li & Li, AnglE: Angle-optimized Text Embeddings, arXiv 2309.12871",
              "url": "https://arxiv.org/abs/2309.12871"},
    "synthesis": {"title": "Synthesis", "reference": "cross-paper comparisons and the errata", "url": ""},
}
REPRODUCED_PAPERS = ("circumplex", "simace", "weighted-cl", "concepts", "angle")  # notebooks that name a section
VERDICT_COLOURS = {"reproduced": "#2e8540", "partly": "#f0ad4e", "not reproduced": "#c9302c",
                   "inconclusive": "#6f8fb3", "not testable": "#9e9e9e"}
ERRATUM_STATUS = {"reproduced": "confirmed", "partly": "partly confirmed", "not reproduced": "not confirmed",
                  "inconclusive": "cannot tell", "not testable": "not testable here"}
KIND_TITLES = {"paper": "Paper claims", "beyond": "Beyond the paper (questions the paper does not ask)",
               "check": "Our own checks (identities, parity, set-up: never counted as reproductions)"}
SECTION_REF = re.compile(r"§|\bSections?\b|\bSec\.|\bTables?\b|\bFig(?:ure|s?\.)|\bApp(?:endix|\.)|\bEqs?\.")
COLAB_PREFIX = "https://colab.research.google.com/github/"


# --------------------------------------------------------------------------------------------- small helpers
def _root(root: Path | None) -> Path:
    return Path(root) if root is not None else REPO_ROOT


def _base(page: str) -> str:
    """Relative prefix from ``page`` (a path relative to the repository root) back to the root."""
    depth = len(Path(page).parent.parts)
    return "../" * depth


def paper_page(paper: str) -> str:
    return f"{PAPER_PAGES}/{paper}.qmd"


def _cell_text(value: Any) -> str:
    text = "" if value is None else (json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list))
                                     else str(value))
    return text.replace("|", "\\|").replace("\n", " ")


def md_table(headers: list[str], rows: list[list[Any]]) -> str:
    """A pipe table (valid Pandoc/Quarto markdown); ``|`` and newlines in cells are escaped."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(_cell_text(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _short(value: Any, limit: int = 90) -> str:
    """``value`` as one line of text, cut to ``limit`` characters (escaping is left to :func:`md_table`)."""
    text = "" if value is None else (json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list))
                                     else str(value))
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _read_json(path: Path) -> dict | None:
    try:
        return _load_json(path)
    except (OSError, ValueError):
        return None


@functools.lru_cache(maxsize=256)
def _json_cached(path: str, mtime_ns: int, size: int) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _load_json(path: Path) -> Any:
    """Parsed JSON of ``path``, cached on (path, mtime, size): the site reads each executed notebook many times."""
    stat = Path(path).stat()
    return _json_cached(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _notebooks_cached(folder: str, stamp: tuple) -> tuple:
    return tuple(list_notebooks(Path(folder)))


def _notebooks(root: Path):
    folder = root / "notebooks"
    stamp = tuple(sorted((str(p), p.stat().st_mtime_ns) for p in folder.glob("*/[0-9][0-9]-*.ipynb")))
    return list(_notebooks_cached(str(folder), stamp))


def _papers(root: Path) -> list[str]:
    return list(dict.fromkeys(nb.paper for nb in _notebooks(root)))


def _results_dir(root: Path) -> Path:
    from .settings import results_dir

    return root / "results" if root != REPO_ROOT else results_dir()


def _ledgers(root: Path) -> list[dict]:
    from .results import load_ledgers

    return load_ledgers(_results_dir(root))


# --------------------------------------------------------------------------------------------- claim -> cell
_CLAIM_CALL = re.compile(r"\.claim\(\s*(f?)(['\"])(.*?)\2", re.S)


def _claim_patterns(source: str) -> list[re.Pattern]:
    """Regexes for the ids that ``ledger.claim(...)`` calls in ``source`` can produce (f-strings become wildcards)."""
    out = []
    for is_f, _, text in _CLAIM_CALL.findall(source):
        if is_f:
            parts = re.split(r"\{[^{}]*\}", text)
            out.append(re.compile(".+?".join(re.escape(p) for p in parts) + r"\Z"))
        else:
            out.append(re.compile(re.escape(text) + r"\Z"))
    return out


def claim_cells(nb_path: Path, ids: list[str]) -> dict[str, int]:
    """For each claim id, the index (0-based, every cell counted) of the notebook cell that records it.

    A cell records an id when its source quotes the id, or when one of its ``.claim(f"...")`` calls is an f-string
    whose literal parts match the id. Ids that resolve to no cell are left out (the site check reports them)."""
    try:
        cells = _load_json(Path(nb_path))["cells"]
    except (OSError, ValueError, KeyError):
        return {}
    sources = [("".join(c.get("source", "")), c.get("cell_type")) for c in cells]
    found: dict[str, int] = {}
    for claim_id in ids:
        for i, (src, kind) in enumerate(sources):
            if kind == "code" and (f'"{claim_id}"' in src or f"'{claim_id}'" in src):
                found[claim_id] = i
                break
        else:
            for i, (src, kind) in enumerate(sources):
                if kind == "code" and any(p.match(claim_id) for p in _claim_patterns(src)):
                    found[claim_id] = i
                    break
    return found


def _notebook_path(root: Path, paper: str, stem: str) -> Path | None:
    for nb in _notebooks(root):
        if nb.paper == paper and nb.stem == stem:
            return nb.path
    return None


def claim_locations(root: Path | None = None) -> dict[tuple[str, str, str], tuple[str, int]]:
    """``(paper, notebook, claim id) -> (notebook path relative to the root, 0-based cell index)``."""
    root = _root(root)
    out = {}
    for ledger in _ledgers(root):
        path = _notebook_path(root, ledger["paper"], ledger["notebook"])
        if path is None:
            continue
        rel = path.relative_to(root).as_posix()
        cells = claim_cells(path, [c["id"] for c in ledger["claims"]])
        for claim_id, index in cells.items():
            out[(ledger["paper"], ledger["notebook"], claim_id)] = (rel, index)
    return out


def _cell_link(location: tuple[str, int] | None, base: str) -> str:
    if location is None:
        return "(cell not found)"
    rel, index = location
    return f"[{Path(rel).stem}, cell {index + 1}]({base}{rel})"


# --------------------------------------------------------------------------------------------- scoreboard
def scoreboard_markdown(board=None, page: str = LANDING, root: Path | None = None) -> str:
    """The verdict counts of the *paper* claims per paper (:func:`companion.results.scoreboard`), each paper linked
    to its page, with the numbers of our own checks and beyond-the-paper claims beside them (never counted)."""
    from .results import VERDICTS, kind_counts, scoreboard

    root = _root(root)
    board = scoreboard(_results_dir(root)) if board is None else board
    if board.empty:
        return "_No ledger yet: run the notebooks._"
    kinds = kind_counts(_results_dir(root))
    base = _base(page)
    order = {p: i for i, p in enumerate(PAPERS)}
    rows = []
    for _, r in sorted(board.iterrows(), key=lambda kv: order.get(kv[1]["paper"], len(order))):
        paper = r["paper"]
        title = PAPERS.get(paper, {"title": paper})["title"]
        name = f"[{title}]({base}{paper_page(paper)})" if (root / paper_page(paper)).exists() else title
        extra = kinds.loc[paper] if paper in kinds.index else {"beyond": 0, "check": 0}
        rows.append([name, *(int(r[v]) for v in VERDICTS), int(r["total"]), int(extra["beyond"]),
                     int(extra["check"])])
    return md_table(["paper", *VERDICTS, "paper claims", "beyond the paper", "our checks"], rows)


def _ours_text(claim: dict) -> str:
    st = claim.get("stats")
    if st and st.get("ci"):
        lo, hi = st["ci"]
        return f"{_cell_text(st['estimate'])} [{_cell_text(lo)}, {_cell_text(hi)}] (n = {st['n']})"
    if st:
        return f"{_cell_text(st['estimate'])} (n = {st['n']})"
    return _short(claim.get("ours"))


def claims_markdown(paper: str, page: str = LANDING, root: Path | None = None, kind: str = "paper") -> str:
    """One table of the claims of ``paper`` of one ``kind``: notebook, claim, where the paper says it, the paper's
    value, ours (estimate [95 % CI] over seeds where there are seeds), verdict with its reason, deciding cell."""
    root = _root(root)
    base = _base(page)
    where = claim_locations(root)
    rows = []
    for ledger in _ledgers(root):
        if ledger["paper"] != paper:
            continue
        for c in ledger["claims"]:
            if c.get("kind") != kind:
                continue
            loc = where.get((paper, ledger["notebook"], c["id"]))
            verdict = f"**{c['verdict']}**" + (f" — {_short(c['reason'], 110)}" if c.get("reason") else "")
            rows.append([ledger["notebook"], _short(c["claim"], 120), _short(c.get("source") or "", 50),
                         _short(c.get("paper_value")), _ours_text(c), verdict, _cell_link(loc, base)])
    if not rows:
        return "_None recorded._"
    return md_table(["notebook", "claim", "where in the paper", "paper", "ours [95 % CI]", "verdict",
                     "decided in"], rows)


def coverage_markdown(paper: str, page: str, root: Path | None = None) -> str:
    """The paper's coverage map (``data/<paper>/coverage.csv``) with a status computed from the claims' verdicts."""
    from . import sources

    root = _root(root)
    path = root / "data" / paper / "coverage.csv"
    if not path.exists():
        return "_No coverage map for this paper._"
    frame = sources.coverage_status(paper, root=root)
    rows = [[r["item"], _short(r["states"], 140), r.get("notebook") or "", _short(r.get("claims") or "", 80),
             _short(r["status"], 160)] for _, r in frame.iterrows()]
    return md_table(["item", "what the paper states", "notebook", "claims", "status"], rows)


def verdict_figure(root: Path | None = None):
    """Stacked horizontal bars: verdict counts of the paper claims per paper, drawn from results/ (the same rows
    as the scoreboard table)."""
    import matplotlib.pyplot as plt

    from .results import VERDICTS, scoreboard

    root = _root(root)
    board = scoreboard(_results_dir(root))
    order = {p: i for i, p in enumerate(PAPERS)}
    board = board.sort_values("paper", key=lambda s: s.map(lambda p: order.get(p, len(order))), ascending=False)
    fig, ax = plt.subplots(figsize=(8, 0.5 + 0.45 * max(len(board), 1)))
    left = [0] * len(board)
    labels = [PAPERS.get(p, {"title": p})["title"] for p in board["paper"]]
    for verdict in VERDICTS:
        values = board[verdict].tolist() if not board.empty else []
        ax.barh(labels, values, left=left, color=VERDICT_COLOURS[verdict], label=verdict)
        for y, (x0, w) in enumerate(zip(left, values)):
            if w:
                ax.text(x0 + w / 2, y, str(int(w)), ha="center", va="center", color="white", fontsize=8)
        left = [a + b for a, b in zip(left, values)]
    ax.set_xlabel("paper claims")
    ax.set_title("Verdicts on the papers' own claims (computed from results/)")
    ax.legend(ncol=5, fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.08), frameon=False)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------- scale & timing
def settings_call(py_path: Path) -> dict[str, dict[str, Any]]:
    """The per-profile dicts of the notebook's ``settings(profile, smoke=..., cpu=..., gpu=..., common=...)`` call,
    read statically from its ``.py`` twin (non-literal values are kept as their source text)."""
    try:
        tree = ast.parse(Path(py_path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "settings":
            out: dict[str, dict[str, Any]] = {}
            for kw in node.keywords:
                if kw.arg not in ("smoke", "cpu", "gpu", "common"):
                    continue
                pairs: list[tuple[str, ast.AST]] = []
                if isinstance(kw.value, ast.Call) and getattr(kw.value.func, "id", None) == "dict":
                    pairs = [(k.arg, k.value) for k in kw.value.keywords if k.arg]
                elif isinstance(kw.value, ast.Dict):
                    pairs = [(k.value, v) for k, v in zip(kw.value.keys, kw.value.values)
                             if isinstance(k, ast.Constant)]
                values = {}
                for key, expr in pairs:
                    try:
                        values[key] = ast.literal_eval(expr)
                    except ValueError:
                        values[key] = ast.unparse(expr)
                out[kw.arg] = values
            if out:
                return out
    return {}


def profile_settings(py_path: Path, profile: str) -> dict[str, Any]:
    """``common`` updated by the profile's dict, as :func:`companion.profiles.settings` does."""
    call = settings_call(py_path)
    return {**call.get("common", {}), **call.get(profile, {})}


def executed_settings(nb_path: Path) -> dict[str, Any] | None:
    """The ``Settings(...)`` the executed notebook displayed (its settings cell's output), if any."""
    try:
        cells = _load_json(Path(nb_path))["cells"]
    except (OSError, ValueError, KeyError):
        return None
    for cell in cells:
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            text = out.get("data", {}).get("text/plain") or out.get("text") or ""
            text = "".join(text) if isinstance(text, list) else text
            if text.startswith("Settings("):
                try:
                    call = ast.parse(text.strip(), mode="eval").body
                    return {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
                except (SyntaxError, ValueError, AttributeError):
                    return None
    return None


_BUDGET = re.compile(r"(^n_|steps|^max_|batch|^sets$|pairs|_train$|_test$|epoch|^per_|^k$|^n_top$)")


def _budget(cfg: dict[str, Any]) -> str:
    items = []
    for key, value in cfg.items():
        if _BUDGET.search(key):
            shown = "all" if value is None or value == 0 and key.startswith("max_pairs") else value
            if isinstance(shown, list) and len(shown) > 4:
                shown = f"{len(shown)} items"
            items.append(f"{key}={shown}")
    return ", ".join(items) or "-"


def _hardware(prov: dict | None) -> str:
    hw = (prov or {}).get("hardware") or {}
    if not hw:
        return "not recorded"
    gpu = hw.get("gpu") or "no GPU"
    threads = hw.get("torch_threads")
    return f"{hw.get('cpu_count', '?')} CPU cores" + (f", {threads} torch thread(s)" if threads else "") + f", {gpu}"


def notebook_scale(nb, root: Path | None = None) -> dict[str, Any]:
    """What one notebook's committed run was: profile, seeds, backbone, subset/budget, hardware, wall time, date.

    Read from ``results/<paper>/<nb>.provenance.json`` (profile, seeds, hardware, settings when recorded), the
    executed notebook (``metadata.companion`` wall time; the settings cell's output) and, as a last resort, the
    notebook's static ``settings(...)`` call."""
    root = _root(root)
    prov = _read_json(_results_dir(root) / nb.paper / f"{nb.stem}.provenance.json")
    meta = (_read_json(nb.path) or {}).get("metadata", {}).get("companion") or {}
    profile = (prov or {}).get("profile") or meta.get("profile")
    cfg = (prov or {}).get("settings") or executed_settings(nb.path)
    source = "provenance" if (prov or {}).get("settings") else "settings cell output"
    if cfg is None and profile:
        cfg, source = profile_settings(nb.twin, profile), "notebook source"
    cfg = cfg or {}
    wall = meta.get("wall_time_s") if meta.get("profile") == profile else None
    wall = wall if wall is not None else (prov or {}).get("wall_time_s")
    return {"notebook": nb, "profile": profile or "not run", "seeds": (prov or {}).get("seeds", cfg.get("seeds")),
            "backbone": cfg.get("model") or "none (free vectors, synthetic data or tables)",
            "budget": _budget(cfg), "hardware": _hardware(prov or meta), "wall_time_s": wall,
            "date": (prov or meta).get("date", "-"), "settings_from": source if cfg else "-"}


def scale_markdown(paper: str, page: str, root: Path | None = None) -> str:
    root = _root(root)
    base = _base(page)
    rows = []
    for nb in _notebooks(root):
        if nb.paper != paper:
            continue
        s = notebook_scale(nb, root)
        rel = nb.path.relative_to(root).as_posix()
        seeds = ", ".join(map(str, s["seeds"])) if isinstance(s["seeds"], list) and s["seeds"] else "-"
        wall = f"{s['wall_time_s']:.0f}" if isinstance(s["wall_time_s"], (int, float)) else "not measured"
        rows.append([f"[{nb.stem}]({base}{rel})", s["profile"], s["backbone"], s["budget"], seeds, s["hardware"],
                     wall, s["date"]])
    return md_table(["notebook", "profile", "backbone", "data subset and budget", "seeds", "hardware",
                     "wall time (s)", "run on"], rows)


def _colab(rel: str, root: Path) -> str:
    badge = "https://colab.research.google.com/assets/colab-badge.svg"
    return f"[![Open In Colab]({badge})]({COLAB_PREFIX}{github_repo(root)}/blob/main/{rel})"


def notebooks_markdown(paper: str, page: str, root: Path | None = None) -> str:
    root = _root(root)
    base = _base(page)
    rows = []
    for nb in _notebooks(root):
        if nb.paper == paper:
            rel = nb.path.relative_to(root).as_posix()
            rows.append([f"[{nb.stem}]({base}{rel})", nb.title, _colab(rel, root)])
    return md_table(["notebook", "section", "open"], rows)


def _errata_claims(root: Path) -> list[dict]:
    for ledger in _ledgers(root):
        if (ledger["paper"], ledger["notebook"]) == ERRATA_LEDGER:
            return ledger["claims"]
    return []


def errata_markdown(page: str = ERRATA_PAGE, root: Path | None = None, paper: str | None = None) -> str:
    """The errata (claims of the errata notebook, ids ``<paper>:<slug>``) with status, evidence and proving cell."""
    root = _root(root)
    base = _base(page)
    claims = _errata_claims(root)
    if paper is not None:
        claims = [c for c in claims if c["id"].split(":")[0] == paper]
    if not claims:
        return "_No erratum recorded for this paper._" if paper else "_The errata notebook has not been run yet._"
    where = claim_locations(root)
    order = {p: i for i, p in enumerate(PAPERS)}
    claims = sorted(claims, key=lambda c: order.get(c["id"].split(":")[0], len(order)))
    rows = []
    for n, c in enumerate(claims, 1):
        p = c["id"].split(":")[0]
        title = PAPERS.get(p, {"title": p})["title"]
        paper_cell = f"[{title}]({base}{paper_page(p)})" if (root / paper_page(p)).exists() else title
        rows.append([n, paper_cell, c["claim"], _short(c.get("paper_value"), 70), _short(c.get("ours"), 160),
                     f"**{ERRATUM_STATUS[c['verdict']]}**", _short(c.get("note") or c.get("criterion", ""), 200),
                     _cell_link(where.get((*ERRATA_LEDGER, c["id"])), base)])
    return md_table(["#", "paper", "erratum", "the paper says", "computed", "status", "details", "proved in"], rows)


def errata_counts(root: Path | None = None) -> dict[str, int]:
    """Errata by status (``confirmed``, ``partly confirmed``, ...)."""
    counts: dict[str, int] = {}
    for c in _errata_claims(_root(root)):
        status = ERRATUM_STATUS[c["verdict"]]
        counts[status] = counts.get(status, 0) + 1
    return counts


def paper_page_markdown(paper: str, root: Path | None = None) -> str:
    """The body of ``site/papers/<paper>.qmd``: reference, scale, notebooks, claims, errata."""
    root = _root(root)
    page = paper_page(paper)
    info = PAPERS.get(paper, {"title": paper, "reference": paper, "url": ""})
    ref = f"[{info['reference']}]({info['url']})" if info.get("url") else info["reference"]
    parts = [f"**Paper.** {ref}", "",
             "## What was reproduced, at which scale",
             "Read from each run's provenance and the executed notebook (profile, seeds, hardware, wall time, "
             "the settings it ran with); the notebooks say in their first cell what was scaled down and why.", "",
             scale_markdown(paper, page, root), "",
             "## Notebooks, in section order", "", notebooks_markdown(paper, page, root), "",
             "## Coverage map",
             "Every table, figure, theorem and headline claim of the paper: where we address it, at which scale, "
             "or why not. The status is computed from the verdicts of the listed claims.", "",
             coverage_markdown(paper, page, root), "",
             "## Claims and verdicts", ""]
    for kind in ("paper", "beyond", "check"):
        parts += [f"### {KIND_TITLES[kind]}", "", claims_markdown(paper, page, root, kind=kind), ""]
    parts += [""]
    if paper != ERRATA_LEDGER[0]:
        parts += ["## Errata", "", errata_markdown(page, root, paper=paper), ""]
    return "\n".join(parts)


def smoke_times(root: Path | None = None) -> dict[str, float]:
    """``<paper>/<notebook>`` -> seconds from ``benchmarks/report.json`` (key ``smoke_notebooks_s``), if present."""
    report = _read_json(_root(root) / BENCHMARK_REPORT) or {}
    times = report.get("smoke_notebooks_s") or {}
    return {k: float(v) for k, v in times.items() if isinstance(v, (int, float))}


def timings_markdown(page: str = RUN_PAGE, root: Path | None = None) -> str:
    """Time per notebook and profile: smoke from the benchmark report, cpu/gpu from the committed run's record."""
    root = _root(root)
    base = _base(page)
    smoke = smoke_times(root)
    rows = []
    for nb in _notebooks(root):
        s = notebook_scale(nb, root)
        rel = nb.path.relative_to(root).as_posix()
        wall = f"{s['wall_time_s']:.0f} s" if isinstance(s["wall_time_s"], (int, float)) else "not measured"
        per_profile = {p: (f"{wall} ({s['hardware']})" if s["profile"] == p else "not measured")
                       for p in ("cpu", "gpu")}
        smoke_s = f"{smoke[nb.key]:.1f} s" if nb.key in smoke else "not measured"
        rows.append([f"[{nb.key}]({base}{rel})", smoke_s, per_profile["cpu"], per_profile["gpu"]])
    return md_table(["notebook", "smoke", "cpu", "gpu"], rows)


def gpu_backbones_markdown(page: str = RUN_PAGE, root: Path | None = None) -> str:
    """Backbone per notebook in the ``cpu`` and ``gpu`` profiles, read from each notebook's ``settings(...)`` call."""
    root = _root(root)
    base = _base(page)
    rows = []
    for nb in _notebooks(root):
        py = nb.twin
        cpu, gpu = profile_settings(py, "cpu").get("model"), profile_settings(py, "gpu").get("model")
        hub = f"[`{gpu}`](https://huggingface.co/{gpu})" if isinstance(gpu, str) and gpu else "none"
        rows.append([f"[{nb.key}]({base}{nb.path.relative_to(root).as_posix()})",
                     f"`{cpu}`" if cpu else "none", hub])
    return md_table(["notebook", "cpu backbone", "gpu backbone (Hugging Face hub id)"], rows)


# --------------------------------------------------------------------------------------------- configuration
def build_config(root: Path = REPO_ROOT) -> dict:
    """The full ``_quarto.yml`` as a dict."""
    notebooks = _notebooks(root)
    papers = list(dict.fromkeys(nb.paper for nb in notebooks))  # list_notebooks is already in paper order
    sidebars = []
    for paper in papers:
        contents = [paper_page(paper)] + [str(nb.path.relative_to(root)) for nb in notebooks if nb.paper == paper]
        sidebars.append({"id": paper, "title": PAPERS.get(paper, {"title": paper})["title"],
                         "contents": contents})
    return {
        "project": {"type": "website", "output-dir": "_site",
                    "render": [LANDING, "site/*.qmd", f"{PAPER_PAGES}/*.qmd", f"{apidoc.API_DIR}/*.qmd",
                               "notebooks/*/[0-9][0-9]-*.ipynb"]},
        "execute": {"freeze": "auto"},
        "website": {
            "title": "Geometry of embedding learning: reproductions",
            "navbar": {"left": [{"href": LANDING, "text": "Scoreboard"},
                                {"text": "Papers", "menu": [{"text": s["title"], "href": s["contents"][0]}
                                                            for s in sidebars]},
                                {"href": ERRATA_PAGE, "text": "Errata"},
                                {"href": RUN_PAGE, "text": "Run it yourself"},
                                apidoc.navbar_item()]},
            "sidebar": [*sidebars, apidoc.sidebar()],
        },
        "format": {"html": {"theme": "cosmo", "toc": True, "code-fold": True, "code-tools": True}},
    }


HEADER = "# Generated by `python -m companion site` from notebooks/ - edit companion/site.py, not this file.\n"


def render_config(root: Path = REPO_ROOT) -> str:
    return HEADER + yaml.safe_dump(build_config(root), sort_keys=False, allow_unicode=True, width=110)


def render_paper_page(paper: str) -> str:
    """The generated ``site/papers/<paper>.qmd``: front matter and one Python cell that prints the page body."""
    title = PAPERS.get(paper, {"title": paper})["title"]
    return (f'---\ntitle: "{title}"\n---\n\n'
            f"<!-- Generated by `python -m companion site` - edit companion/site.py, not this file. -->\n\n"
            "Everything below is computed at render time from `results/`, the executed notebooks and `data/`.\n\n"
            "```{python}\n#| echo: false\n#| output: asis\nfrom companion import site\n\n"
            f'print(site.paper_page_markdown("{paper}"))\n```\n')


def github_repo(root: Path = REPO_ROOT) -> str:
    """``owner/name`` of the GitHub repository (from ``COMPANION_GITHUB_REPO`` or the ``origin`` remote)."""
    explicit = os.environ.get("COMPANION_GITHUB_REPO")
    if explicit:
        return explicit
    try:
        url = subprocess.run(["git", "remote", "get-url", "origin"], cwd=root, capture_output=True, text=True,
                             check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "OWNER/REPO"
    match = re.search(r"github\.com[:/]([^/]+/[^/.]+)", url)
    return match.group(1) if match else "OWNER/REPO"


def notebook_table(root: Path = REPO_ROOT) -> str:
    """Markdown table of every notebook with its section and a Colab badge (the README's notebook list)."""
    lines = ["| notebook | section | open |", "|---|---|---|"]
    for nb in _notebooks(root):
        rel = nb.path.relative_to(root).as_posix()
        lines.append(f"| [`{rel}`]({rel}) | {nb.title} | {_colab(rel, root)} |")
    return "\n".join(lines)


TABLE_START, TABLE_END = "<!-- notebook-table:start -->", "<!-- notebook-table:end -->"


def render_readme(root: Path = REPO_ROOT) -> str:
    text = (root / "README.md").read_text(encoding="utf-8")
    if TABLE_START not in text or TABLE_END not in text:
        return text
    head, rest = text.split(TABLE_START, 1)
    _, tail = rest.split(TABLE_END, 1)
    return f"{head}{TABLE_START}\n{notebook_table(root)}\n{TABLE_END}{tail}"


def write_sidebar(root: Path = REPO_ROOT) -> Path:
    """Regenerate ``_quarto.yml``, the per-paper pages, the API pages and the README's notebook table."""
    path = root / CONFIG
    path.write_text(render_config(root), encoding="utf-8")
    apidoc.write_pages(root)
    for paper in _papers(root):
        page = root / paper_page(paper)
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(render_paper_page(paper), encoding="utf-8")
    if (root / "README.md").exists():
        (root / "README.md").write_text(render_readme(root), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------- checks
_MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_LINK = re.compile(r"(?:href|src)=\"([^\"]+)\"")


def links(text: str) -> list[str]:
    """Every markdown link/image target and HTML href/src in ``text``."""
    return _MD_LINK.findall(text) + _HTML_LINK.findall(text)


def link_problems(text: str, where: Path, root: Path, label: str) -> list[str]:
    """Links in ``text`` (found in a file in folder ``where``) that are neither http(s)/mailto URLs, in-page anchors,
    nor relative paths to an existing file inside the repository."""
    problems = []
    for target in links(text):
        if target.startswith(("http://", "https://", "mailto:", "#")):
            continue
        path = target.split("#", 1)[0].split("?", 1)[0]
        resolved = (where / path).resolve()
        if not path or not resolved.exists() or root.resolve() not in (resolved, *resolved.parents):
            problems.append(f"{label}: link to {target!r} does not resolve to a file in the repository")
    return problems


def python_cells(qmd_text: str) -> list[str]:
    """The code of every ```{python} cell of a Quarto page, in order."""
    return re.findall(r"^```\{python\}[^\n]*\n(.*?)^```\s*$", qmd_text, flags=re.S | re.M)


def execute_page(path: Path) -> str:
    """Run a page's Python cells the way Quarto would (one namespace, the page's folder as working directory,
    matplotlib without a display) and return what they printed (the ``output: asis`` markdown)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = Path(path).read_text(encoding="utf-8")
    namespace: dict[str, Any] = {"__name__": "__quarto__"}
    buffer = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(Path(path).parent)
        with contextlib.redirect_stdout(buffer):
            for code in python_cells(text):
                exec(compile(code, str(path), "exec"), namespace)  # noqa: S102 - our own pages
                print()  # Quarto keeps each cell's output apart
    finally:
        os.chdir(cwd)
        plt.close("all")
    return buffer.getvalue()


def pages(root: Path = REPO_ROOT) -> list[str]:
    """Every site page (relative paths): the fixed pages, one page per paper with notebooks, the API pages."""
    return [*EXTRA_PAGES, *(paper_page(p) for p in _papers(root)), *apidoc.pages()]


def first_cell_problems(nb, root: Path = REPO_ROOT) -> list[str]:
    """A notebook's first cell must be markdown with its own Colab badge and, for the five papers' notebooks, name
    the paper section it reproduces (baselines and cross-paper synthesis notebooks reproduce no single section)."""
    rel = nb.path.relative_to(root).as_posix()
    try:
        cells = _load_json(nb.path)["cells"]
    except (OSError, ValueError, KeyError):
        return [f"{rel}: not a readable notebook"]
    if not cells or cells[0].get("cell_type") != "markdown":
        return [f"{rel}: the first cell is not markdown"]
    text = "".join(cells[0].get("source", ""))
    problems = []
    if not re.search(r"\(" + re.escape(COLAB_PREFIX) + r"[^/\s]+/[^/\s]+/blob/main/" + re.escape(rel) + r"\)", text):
        problems.append(f"{rel}: the first cell has no Colab badge for this notebook")
    if nb.paper in REPRODUCED_PAPERS and not SECTION_REF.search(text):
        problems.append(f"{rel}: the first cell does not name the paper section it reproduces")
    problems += link_problems(text, nb.path.parent, root, f"{rel} (first cell)")
    return problems


# Extensions Quarto reads as a document's source: an .ipynb with a same-stem file of one of these is taken for
# that file's intermediate and left out of the render, without a warning.
QUARTO_SOURCE_SUFFIXES = (".qmd", ".md", ".rmd", ".py", ".r", ".jl", ".ipynb")


def source_collisions(notebook: Path) -> list[Path]:
    """Files beside ``notebook`` that Quarto would take as its source (same stem, another source extension)."""
    return sorted(p for p in notebook.parent.glob(f"{notebook.stem}.*")
                  if p != notebook and p.stem == notebook.stem and p.suffix.lower() in QUARTO_SOURCE_SUFFIXES)


def check(root: Path = REPO_ROOT, execute: bool = True) -> list[str]:
    """Problems with the site (empty list: all good); ``execute`` also runs the pages' Python cells."""
    problems = []
    path = root / CONFIG
    if not path.exists():
        return [f"{CONFIG} is missing; run `python -m companion site`"]
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    website = config.get("website", {}) or {}
    listed = [item for bar in website.get("sidebar", []) or [] for item in bar.get("contents", [])]
    nav = [item.get("href") for item in (website.get("navbar", {}) or {}).get("left", []) or []]
    nav += [sub.get("href") for item in (website.get("navbar", {}) or {}).get("left", []) or []
            for sub in item.get("menu", [])]
    notebooks = _notebooks(root)
    for nb in notebooks:
        rel = str(nb.path.relative_to(root))
        count = listed.count(rel)
        if count != 1:
            problems.append(f"{rel} is listed {count} times in the sidebar (expected once)")
        for other in source_collisions(nb.path):
            problems.append(f"{rel}: Quarto would render {other.name} in its place and drop the notebook "
                            "from the site (same stem); jupytext twins are named *.pct.py")
        problems += first_cell_problems(nb, root)
    for item in [*listed, *(n for n in nav if n)]:
        if not (root / item).exists():
            problems.append(f"sidebar lists {item}, which does not exist")
    for page in pages(root):
        if not (root / page).exists():
            problems.append(f"{page} is missing")
            continue
        if page not in listed and page not in nav:
            problems.append(f"{page} is not in the navigation of {CONFIG}")
        text = (root / page).read_text(encoding="utf-8")
        problems += link_problems(text, (root / page).parent, root, page)
        if execute and root == REPO_ROOT:
            try:
                printed = execute_page(root / page)
            except Exception as exc:  # noqa: BLE001 - report any failure of a page cell
                problems.append(f"{page}: a Python cell fails: {type(exc).__name__}: {exc}")
            else:
                problems += link_problems(printed, (root / page).parent, root, f"{page} (rendered)")
    for paper in _papers(root):
        page = root / paper_page(paper)
        if page.exists() and page.read_text(encoding="utf-8") != render_paper_page(paper):
            problems.append(f"{paper_page(paper)} is out of date; run `python -m companion site`")
    landing = (root / LANDING).read_text(encoding="utf-8") if (root / LANDING).exists() else ""
    if "scoreboard(" not in landing or "companion.results" not in landing:
        problems.append(f"{LANDING} does not build its table from the ledger (companion.results.scoreboard)")
    if root == REPO_ROOT:
        where = claim_locations(root)
        for ledger in _ledgers(root):
            if _notebook_path(root, ledger["paper"], ledger["notebook"]) is None:
                problems.append(f"results/{ledger['paper']}/{ledger['notebook']}.json has no notebook")
                continue
            for c in ledger["claims"]:
                if (ledger["paper"], ledger["notebook"], c["id"]) not in where:
                    problems.append(f"claim {c['id']!r} of {ledger['paper']}/{ledger['notebook']} resolves to no "
                                    "notebook cell")
    if path.read_text(encoding="utf-8") != render_config(root):
        problems.append(f"{CONFIG} is out of date; run `python -m companion site`")
    problems += apidoc.check(root)
    readme = root / "README.md"
    if readme.exists() and readme.read_text(encoding="utf-8") != render_readme(root):
        problems.append("README.md's notebook table is out of date; run `python -m companion site`")
    return problems
