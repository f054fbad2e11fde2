"""At which scale each notebook ran, and how long it took: read from each run's provenance, the executed notebook
(its settings cell's output and ``metadata.companion``) and, as a last resort, the notebook's settings in its
paper's settings module; the smoke times come from the benchmark report.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from companion.gpu_settings import COLUMNS, gpu_table
from companion.publish import colab
from companion.publish import notebooks as _notebook_list
from companion.publish.site import format as fmt
from companion.publish.site.common import (
    BENCHMARK_REPORT,
    RUN_PAGE,
    _base,
    _load_json,
    _notebooks,
    _read_json,
    _results_dir,
    _root,
    github_repo,
    md_table,
)
from companion.results import provenance_belongs


# --------------------------------------------------------------------------------------------- scale & timing
def profile_settings(key: str, profile: str) -> dict[str, Any]:
    """The values of ``profile`` (``common`` included; the gpu profile's default grid) of notebook ``key``, read from
    its paper's settings module (:func:`companion.publish.notebooks.all_settings`); ``{}`` for a notebook without
    one."""
    spec = _notebook_list.all_settings().get(key)
    return spec.profile_values(profile) if spec is not None else {}


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
    notebook's settings module (:func:`profile_settings`)."""
    root = _root(root)
    prov = _read_json(_results_dir(root) / nb.paper / f"{nb.stem}.provenance.json")
    if prov is not None and not provenance_belongs(prov, _results_dir(root) / nb.paper / f"{nb.stem}.json"):
        prov = None  # another run's record, beside a ledger whose save was stopped half-way
    meta = (_read_json(nb.path) or {}).get("metadata", {}).get("companion") or {}
    profile = (prov or {}).get("profile") or meta.get("profile")
    cfg = (prov or {}).get("settings") or executed_settings(nb.path)
    source = "provenance" if (prov or {}).get("settings") else "settings cell output"
    if cfg is None and profile:
        cfg, source = profile_settings(nb.key, profile), "notebook source"
    cfg = cfg or {}
    wall = meta.get("wall_time_s") if meta.get("profile") == profile else None
    wall = wall if wall is not None else (prov or {}).get("wall_time_s")
    return {"notebook": nb, "profile": profile or "not run", "seeds": (prov or {}).get("seeds", cfg.get("seeds")),
            "backbone": cfg.get("model") or "none (free vectors, synthetic data or tables)",
            "budget": _budget(cfg), "hardware": _hardware(prov or meta), "wall_time_s": wall,
            "date": (prov or meta).get("date", "-"), "settings_from": source if cfg else "-"}


def scale_markdown(paper: str, page: str, root: Path | None = None) -> str:
    """One row per notebook of ``paper``: the run (profile, seeds, wall time, hardware, date), the backbone and
    the data subset and budget it ran with."""
    root = _root(root)
    base = _base(page)
    rows = []
    for nb in _notebooks(root):
        if nb.paper != paper:
            continue
        s = notebook_scale(nb, root)
        rel = nb.path.relative_to(root).as_posix()
        seeds = ", ".join(map(str, s["seeds"])) if isinstance(s["seeds"], list) and s["seeds"] else "none"
        wall = (f"{s['wall_time_s']:.0f} s" if isinstance(s["wall_time_s"], (int, float))
                else "wall time not measured")
        run = f"**{s['profile']}**; seeds {seeds}; {wall} on {s['hardware']}; {str(s['date'])[:10]}"
        rows.append([f"[{nb.stem}]({base}{rel})", run, fmt.ledger_text(s["backbone"]), fmt.ledger_text(s["budget"])])
    return md_table(["notebook", "run", "backbone", "data subset and budget"], rows)


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
    """Backbone per notebook in the ``cpu`` and ``gpu`` profiles, read from each notebook's settings
    (:func:`profile_settings`)."""
    root = _root(root)
    base = _base(page)
    rows = []
    for nb in _notebooks(root):
        cpu, gpu = profile_settings(nb.key, "cpu").get("model"), profile_settings(nb.key, "gpu").get("model")
        hub = f"[`{gpu}`](https://huggingface.co/{gpu})" if isinstance(gpu, str) and gpu else "none"
        rows.append([f"[{nb.key}]({base}{nb.path.relative_to(root).as_posix()})",
                     f"`{cpu}`" if cpu else "none", hub])
    return md_table(["notebook", "cpu backbone", "gpu backbone (Hugging Face hub id)"], rows)


# --------------------------------------------------------------------------------------------- notebooks, gpu profile
def notebooks_markdown(paper: str, page: str, root: Path | None = None) -> str:
    """The notebooks of ``paper`` in section order, each linked, with its Colab badge when a repository is
    configured (no empty column otherwise)."""
    root = _root(root)
    base = _base(page)
    repo = github_repo(root)
    rows = []
    for nb in _notebooks(root):
        if nb.paper == paper:
            rel = nb.path.relative_to(root).as_posix()
            rows.append([f"[{nb.stem}]({base}{rel})", nb.title, *([colab.badge(rel, repo)] if repo else [])])
    return md_table(["notebook", "section", *(["open"] if repo else [])], rows)


def gpu_settings_markdown(paper: str) -> str:
    """A paper page's section on its gpu profile: one table per backbone notebook of ``paper``
    (:func:`companion.gpu_settings.gpu_table`: every choice, its value, the paper's location or the released code's
    default it follows, and why wherever it departs); empty when no notebook of ``paper`` has one."""
    notebooks = {nb: spec for nb, spec in _notebook_list.all_settings().items() if nb.split("/")[0] == paper and spec.rows}
    if not notebooks:
        return ""
    out = ["What `--profile gpu` runs in each notebook that trains or evaluates a paper backbone, generated from the "
           f"notebook's settings (`companion.papers.{paper.replace('-', '_')}.settings`): the source is the paper's "
           "location or the authors' released code, the reason says why a setting departs from it or why the paper "
           "is silent.", ""]
    for nb, spec in notebooks.items():
        table = gpu_table(spec)
        rows = [[str(row[c]) for c in COLUMNS] for _, row in table.iterrows()]
        out += [f"**{nb.split('/')[1]}**", "", md_table(list(COLUMNS), rows), ""]
    return "\n".join(out).rstrip()
