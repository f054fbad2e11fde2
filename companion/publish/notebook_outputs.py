"""Stored notebook outputs that read well everywhere (GitHub, Colab, JupyterLab, the Quarto site) and diff cleanly.

An executed notebook straight out of papermill carries what a reader should not have to scroll past: thousands of
tiny stderr outputs, one per progress-bar update; environment warnings (``TqdmWarning: IProgress not found``, kernel
messages); absolute paths of the machine that ran it; and timestamps, durations and paths in the cell and notebook
metadata, which make every rerun a diff of hundreds of lines. :func:`clean` turns such a notebook into its stored
form; :func:`problems` says what a stored notebook still gets wrong. The runner applies :func:`clean` to every
notebook it executes, and ``python -m companion notebooks clean [--check] [PATHS]`` applies or checks it on the
stored notebooks; ``--check`` also lists the results typed into a notebook's markdown
(:mod:`companion.publish.typed_numbers`), one line each.

The rules of :func:`clean`:

* **streams** — consecutive stream outputs of the same name are merged, then rendered as a terminal would show
  them (carriage returns and ANSI cursor movements applied); then every progress-bar line (``runs: 100%|███| 15/15``,
  ``12it [00:03, 3.1it/s]``: :func:`progress_line`) is dropped, on either stream, and a stream left empty goes. A
  bar is how a run looked while it ran, not a result, and its timing changes from run to run.
* **warnings** — Python warnings (``file:line: SomeWarning: message`` and its source line), ipywidgets/tqdm notices
  and kernel log warnings are dropped from stderr; a Python warning's text is about the environment of one run
  (and names its paths), not a result.
* **paths** — the repository root becomes repository-relative, the cache, the data mirror, a scratch folder and the
  home folder become ``<cache>``, ``<data>``, ``<scratch>``, ``~``; an absolute path that ends in a file of this
  repository (``…/figures/x/y.png``) becomes that repository-relative path.
* **metadata** — papermill's and Jupyter's execution records (``metadata.papermill``, ``metadata.execution``,
  ``ExecuteTime``, widget state) are removed from the notebook and from every cell. The run's provenance stays in
  one place: ``metadata.companion`` (written by the runner) and the notebook's last cell
  (:func:`companion.results.show_provenance`). A stored notebook's empty fields there (the seeds) are filled from
  its ledger's provenance (:func:`provenance_gaps`).
* **ids** — the parameters cell papermill injects gets the id ``injected-parameters`` instead of a random one.
* **tables** — a DataFrame's HTML table gets break opportunities in its long identifiers and, when still wider than
  the site's text column, is cut into column groups shown one below the other (:func:`companion.publish.html_tables.fit`;
  values unchanged, the plain-text form untouched).
* **duplicates** — an ``execute_result`` equal to the display output just before it (a function that displays
  and returns the same table) is dropped; ipywidgets views are dropped (their state is not stored, so every
  renderer but a live kernel shows nothing useful).

With ``figures=<folder>`` (``clean --embed-saved-figures``), a cell that saves a figure under a literal name
(``ledger.savefig(fig, "fig1-x")``) but shows no image gets that saved PNG as its inline image. Use it only on
notebooks whose stored run wrote those files (the figures are rewritten by every run of the same notebook);
:class:`companion.results.Ledger` now displays every figure it saves, so new runs never need it.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from companion import settings as _settings
from companion.publish import html_tables, typed_numbers
from companion.publish.notebooks import list_notebooks, paper_of
from companion.results import completed_provenance, figure_output, ledger_provenance

#: The size a stored notebook should stay under (bytes).
MAX_BYTES = 1_500_000

_STREAM_TOKENS = re.compile(r"(\r|\n|\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?)")
_PY_WARNING = re.compile(r"^\S.*?:\d+: [A-Za-z_][\w.]*Warning: ")
_OTHER_WARNING = re.compile(
    r"^(?:\[[\w.]+\] WARNING\b|WARNING\b|W\d{4} \d|\d+\.\d+s - (?:Debugger warning|make the debugger|to python "
    r"to disable|Note: Debugging)|.*IProgress not found|.*ipywidgets\.readthedocs)")
#: A progress-bar line: a percentage, its bar and the count (``50%|█████     | 1/2``), or a count with tqdm's elapsed
#: time (``12it [00:03, 3.1it/s]``, ``3/3 [00:01<00:00``).
_PROGRESS = re.compile(r"\d{1,3}%\|[^|\n]*\|\s*[\d.]+[kMGTPEZY]?(?:it|B)?/[\d.]+"
                       r"|(?<![\w.])[\d.]+[kMGTPEZY]?(?:it|B|/[\d.]+[kMGTPEZY]?) \[(?:\d+:)?\d\d:\d\d(?:<|, )")
_TRACEBACK = "Traceback (most recent call last)"
_TEXT_MIMES = ("text/plain", "text/html", "text/markdown", "text/latex")
_IMAGE_MIMES = ("image/png", "image/jpeg", "image/svg+xml")
_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
_VOLATILE_NB_METADATA = ("papermill", "widgets")
_VOLATILE_CELL_METADATA = ("papermill", "execution", "ExecuteTime")
_MACHINE_PATH = re.compile(
    r"(?<![\w.~<>/-])(?:/(?:home|root|Users|tmp|private|var|work|mnt|opt|srv|scratch|usr|nix|data|builds)"
    r"|[A-Za-z]:\\(?:Users|Windows|Program Files))[/\\][^\s'\"<>)\]]*")
_SITE_PACKAGES = re.compile(r"(?<![\w.])(?:/|[A-Za-z]:\\)[^\s'\"]*?[/\\](?:site|dist)-packages[/\\]")
_IPYKERNEL_CELL = re.compile(r"(?<![\w.])/\S*?/ipykernel_\d+/\d+\.py")
_REPO_TAIL = re.compile(r"(?<![\w.])(?:/|[A-Za-z]:\\)[^\s'\"<>]*?[/\\](?P<tail>(?:notebooks|results|figures|companion|data|site)"
                        r"[/\\][^\s'\"<>)\]]+)")
_SAVEFIG = re.compile(r"^(?P<indent>[ \t]*)(?!#).*?\.savefig\(\s*[^,()]+,\s*(?P<q>[\"'])(?P<name>[^\"']+)(?P=q)",
                      re.MULTILINE)


# --------------------------------------------------------------------------------------------- streams
def render_stream(text: str) -> str:
    """``text`` as a terminal leaves it: ``\\r`` restarts (and clears) the line, ANSI cursor moves are applied.

    A progress bar redrawn in place leaves its last state; a bar cleared on close (``leave=False``) leaves nothing.
    Lines that were redrawn lose their trailing padding. Text without ``\\r`` or escape codes is returned as is.
    """
    if "\r" not in text and "\x1b" not in text:
        return text
    rows: list[str] = [""]
    redrawn: set[int] = set()
    row = col = 0
    for token in _STREAM_TOKENS.split(text.replace("\r\n", "\n")):
        if not token:
            continue
        if token == "\n":
            row, col = row + 1, 0
            if row == len(rows):
                rows.append("")
        elif token == "\r":
            rows[row], col = "", 0
            redrawn.add(row)
        elif token.startswith("\x1b["):
            final, arg = token[-1], token[2:-1].strip("?")
            count = int(arg) if arg.isdigit() else 1
            if final == "A":
                row = max(0, row - count)
            elif final in "BE":
                row += count
                rows.extend("" for _ in range(row + 1 - len(rows)))
                col = 0 if final == "E" else col
            elif final == "K":
                rows[row] = "" if arg == "2" else rows[row][:col]
                redrawn.add(row)
            elif final == "G":
                col = max(0, count - 1)
        elif token.startswith("\x1b"):
            continue  # other escape sequences (colours are CSI "m" and handled above; OSC titles, resets)
        else:
            line = rows[row].ljust(col)
            rows[row] = line[:col] + token + line[col + len(token):]
            col += len(token)
    rows = [r.rstrip() if i in redrawn else r for i, r in enumerate(rows)]
    return "\n".join(rows)


def progress_line(line: str) -> bool:
    """Whether ``line`` (one rendered line of a stream) is a progress bar's (tqdm's and the like's)."""
    return bool(_PROGRESS.search(line))


def _drop_warnings(text: str) -> str:
    """Remove Python warnings (header, message continuation, source line) and environment warning lines."""
    lines = text.split("\n")
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _PY_WARNING.match(line):
            k = i + 1
            while (k < len(lines) and k - i <= 6 and lines[k] and not lines[k].startswith("  ")
                   and not _PY_WARNING.match(lines[k]) and not progress_line(lines[k])):
                k += 1
            i = k + 1 if k < len(lines) and lines[k].startswith("  ") else i + 1
            continue
        if _OTHER_WARNING.match(line):
            i += 1
            continue
        kept.append(line)
        i += 1
    return "\n".join(kept)


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else (value or "")


# --------------------------------------------------------------------------------------------- paths
def _places(extra: Mapping[str | os.PathLike, str] | None = None) -> list[tuple[str, str]]:
    """(absolute prefix, replacement) pairs, most specific first."""
    found: dict[str, str] = {}

    def add(path: str | os.PathLike | None, label: str) -> None:
        if path:
            text = str(path).rstrip("/\\")
            if len(text) > 1:
                found.setdefault(text, label)
                resolved = str(Path(text).resolve())
                if resolved != text:
                    found.setdefault(resolved, label)

    for path, label in (extra or {}).items():
        add(path, label)
    root = _settings.repo_root()
    add(root, "")
    add(os.environ.get("COMPANION_CACHE_DIR") or Path.home() / ".cache" / "companion", "<cache>")
    add(os.environ.get("COMPANION_DATA_DIR"), "<data>")
    add(root.parent / "shared" / "data", "<data>")
    add(Path.home(), "~")
    return sorted(found.items(), key=lambda kv: -len(kv[0]))


def replace_paths(text: str, places: list[tuple[str, str]] | None = None) -> str:
    """``text`` with machine paths made repository-relative (or ``<cache>``, ``<data>``, ``<scratch>``, ``~``)."""
    if "/" not in text and "\\" not in text:
        return text
    for prefix, label in places if places is not None else _places():
        if prefix not in text:
            continue
        edge = r"(?<![\w.~-])" + re.escape(prefix)
        if label:
            text = re.sub(edge + r"(?![\w.-])", lambda m, label=label: label, text)
        else:  # the repository root: "<root>/x" -> "x", a bare "<root>" -> "."
            text = re.sub(edge + r"[/\\]", "", text)
            text = re.sub(edge + r"(?![\w.-])", ".", text)
    text = _IPYKERNEL_CELL.sub("<cell>", text)
    text = _SITE_PACKAGES.sub("<site-packages>/", text)

    root = _settings.repo_root()  # once per text, not once per match (each lookup reads pyproject.toml)

    def repo_relative(match: re.Match) -> str:
        tail = match.group("tail").replace("\\", "/")
        return tail if (root / tail).exists() else match.group()

    return _REPO_TAIL.sub(repo_relative, text)


def machine_paths(text: str) -> list[str]:
    """Absolute paths of a machine found in ``text`` (the repository root, the home folder, common roots)."""
    found = [m.group() for m in _MACHINE_PATH.finditer(text)]
    for prefix, _ in _places():
        if re.search(r"(?<![\w.~-])" + re.escape(prefix) + r"(?![\w.-])", text) and \
                not any(prefix in f for f in found):
            found.append(prefix)
    return found


# --------------------------------------------------------------------------------------------- outputs
def _clean_streams(outputs: list[dict]) -> list[dict]:
    """Merge consecutive same-name streams, let later redraws supersede, render, drop warnings and empty streams."""
    merged: list[dict] = []
    for out in outputs:
        if out.get("output_type") == "stream":
            text = _text(out.get("text"))
            if merged and merged[-1].get("output_type") == "stream" and merged[-1].get("name") == out.get("name"):
                merged[-1]["text"] += text
                continue
            out = {**out, "text": text}
        merged.append(out)
    # a stream whose last line is still being redrawn ("\r..." without a newline) is superseded by the next output
    # of the same stream that starts with "\r": the bar moved on while the other stream printed in between
    last: dict[str, dict] = {}
    for out in merged:
        if out.get("output_type") != "stream":
            continue
        name, text = out.get("name"), out["text"]
        before = last.get(name)
        if before is not None and not before["text"].endswith("\n"):
            if text.startswith("\r"):
                cut = before["text"].rfind("\n")
                before["text"] = before["text"][:cut + 1] if cut >= 0 else ""
            elif text.startswith("\n") and not text.strip():  # a bar's closing newline, flushed after the other
                before["text"], out["text"] = before["text"] + "\n", ""  # stream: it ends that bar's line
                continue
        last[name] = out
    result = []
    for out in merged:
        if out.get("output_type") == "stream":
            text = render_stream(out["text"])
            text = "\n".join(line for line in text.split("\n") if not progress_line(line))
            if out.get("name") == "stderr":
                text = _drop_warnings(text)
            if not text.strip():
                continue
            out["text"] = text
        result.append(out)
    if any(a.get("output_type") == b.get("output_type") == "stream" and a.get("name") == b.get("name")
           for a, b in zip(result, result[1:])):
        return _clean_streams(result)  # dropping an empty stream made two streams of one name adjacent
    return result


def _clean_data(data: dict, places: list[tuple[str, str]]) -> dict:
    cleaned = {mime: (replace_paths(_text(value), places) if mime in _TEXT_MIMES else value)
               for mime, value in data.items()}
    if "text/html" in cleaned:
        cleaned["text/html"] = html_tables.fit(cleaned["text/html"])
    return cleaned


def _is_widget(out: dict) -> bool:
    return _WIDGET_MIME in (out.get("data") or {})


def _clean_outputs(outputs: list[dict], places: list[tuple[str, str]]) -> list[dict]:
    outputs = [copy.deepcopy(o) for o in outputs if not _is_widget(o)]
    outputs = _clean_streams(outputs)
    cleaned: list[dict] = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            out["text"] = replace_paths(out["text"], places)
        elif kind in ("display_data", "execute_result"):
            out["data"] = _clean_data(out.get("data", {}), places)
            if (kind == "execute_result" and cleaned and cleaned[-1].get("output_type") == "display_data"
                    and cleaned[-1].get("data") == out["data"]):
                continue  # the same table displayed and returned: keep one
        elif kind == "error":
            out["traceback"] = [replace_paths(line, places) for line in out.get("traceback", [])]
            out["evalue"] = replace_paths(out.get("evalue", ""), places)
        cleaned.append(out)
    return cleaned


# --------------------------------------------------------------------------------------------- figures
def saved_figures(source: str) -> list[tuple[str, bool]]:
    """(name, conditional) of each ``x.savefig(fig, "name")`` with a literal name in a cell's source;
    ``conditional`` when the call is indented (inside an ``if``/``for``/``try``...)."""
    return [(m.group("name"), bool(m.group("indent"))) for m in _SAVEFIG.finditer(source)]


def _has_image(outputs: Iterable[dict]) -> bool:
    return any(set(_IMAGE_MIMES) & set(o.get("data") or {}) for o in outputs)


def _embed_figures(cell: dict, figures: Path, paper: str | None) -> list[str]:
    if _has_image(cell.get("outputs", [])):
        return []
    embedded = []
    for name, conditional in saved_figures(_text(cell.get("source"))):
        file = name if name.endswith(".png") else f"{name}.png"
        path = Path(figures) / file
        if not path.is_file():
            raise FileNotFoundError(f"cell saves figure {file!r} but {path} does not exist; nothing embedded")
        out = figure_output(path.read_bytes(), f"{paper}/{file}" if paper else file, Path(file).stem)
        outputs = cell["outputs"]
        at = next((i for i, o in enumerate(outputs) if o.get("output_type") == "execute_result"), len(outputs))
        outputs.insert(at, out)
        embedded.append(file + (" (conditional call)" if conditional else ""))
    return embedded


# --------------------------------------------------------------------------------------------- clean
def _load(notebook: dict | str | os.PathLike) -> tuple[dict, Path | None]:
    if isinstance(notebook, Mapping):
        return copy.deepcopy(dict(notebook)), None
    path = Path(notebook)
    if path.suffix != ".ipynb":
        raise ValueError(f"{path} is not a notebook (.ipynb)")
    if not path.is_file():
        raise FileNotFoundError(f"No notebook at {path}")
    try:
        return json.loads(path.read_text(encoding="utf-8")), path
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid notebook JSON: {exc}") from None


def dumps(nb: dict) -> str:
    """``.ipynb`` text exactly as nbformat writes it (the one serialiser of the commands that rewrite notebooks)."""
    import nbformat  # noqa: PLC0415 - nbformat is heavy; this module imports without it

    text = nbformat.writes(nbformat.from_dict(nb))
    return text if text.endswith("\n") else text + "\n"


def provenance_gaps(nb: dict, path: Path, results_root: Path | None = None) -> dict[str, Any]:
    """The empty fields of notebook ``path``'s ``metadata.companion`` (``nb``: its JSON) that its ledger's provenance
    (same profile) knows, with their values as the runner fills them (:func:`companion.results.completed_provenance`)."""
    meta = nb.get("metadata", {}).get("companion") or {}
    filled = completed_provenance(meta, ledger_provenance(paper_of(path), Path(path).stem, results_root))
    return {key: value for key, value in filled.items() if value != meta.get(key)}


def clean(notebook: dict | str | os.PathLike, *, places: Mapping[str | os.PathLike, str] | None = None,
          figures: str | os.PathLike | None = None, report: list[str] | None = None) -> dict:
    """The stored form of ``notebook`` (a notebook dict, or the path of an ``.ipynb`` file, rewritten in place when
    anything changes); see the module docstring for the rules. Returns the cleaned notebook dict (a new object).

    ``places`` maps further absolute folders to the labels that replace them (the runner passes its scratch folder).
    ``figures``: the folder holding this notebook's saved figures (``figures/<paper>``); when given, a cell that saves
    a figure under a literal name and shows no image gets that file as its image (see the module docstring).
    ``report``, when a list, receives one line per embedded figure.
    """
    nb, path = _load(notebook)
    if not isinstance(nb.get("cells"), list):
        raise ValueError(f"{path or 'notebook'}: not a notebook (no 'cells' list)")
    known = _places(places)
    metadata = nb.setdefault("metadata", {})
    for key in _VOLATILE_NB_METADATA:
        metadata.pop(key, None)
    paper = paper_of(path) if path is not None else None
    ids = {cell.get("id") for cell in nb["cells"]}
    for index, cell in enumerate(nb["cells"]):
        cell_meta = cell.setdefault("metadata", {})
        for key in _VOLATILE_CELL_METADATA:
            cell_meta.pop(key, None)
        if "injected-parameters" in cell_meta.get("tags", []) and "id" in cell and \
                "injected-parameters" not in ids:  # papermill draws a random id for the cell it adds
            cell["id"] = "injected-parameters"
        if cell.get("cell_type") != "code":
            continue
        cell["outputs"] = _clean_outputs(cell.get("outputs", []), known)
        if figures is not None:
            for line in _embed_figures(cell, Path(figures), paper):
                if report is not None:
                    report.append(f"cell {index}: embedded saved figure {line}")
    if path is not None:
        metadata.get("companion", {}).update(provenance_gaps(nb, path))
        text = dumps(nb)
        if text != path.read_text(encoding="utf-8"):
            path.write_text(text, encoding="utf-8")
    return nb


# --------------------------------------------------------------------------------------------- problems
def _cell_problems(cell: dict, where: str) -> list[str]:
    """Each kind of problem of one cell once, with its first instance (and how many outputs show it)."""
    if cell.get("cell_type") != "code":
        return []
    seen: dict[str, list] = {}

    def note(kind: str, detail: str = "") -> None:
        seen.setdefault(kind, [detail, 0])[1] += 1

    outputs = cell.get("outputs", [])
    for a, b in zip(outputs, outputs[1:]):
        if a.get("output_type") == b.get("output_type") == "stream" and a.get("name") == b.get("name"):
            note(f"unmerged consecutive {a.get('name')} outputs")
        if a.get("output_type") == "display_data" and b.get("output_type") == "execute_result" and \
                a.get("data") == b.get("data"):
            note("shows the same output twice (displayed and returned)")
    for out in outputs:
        kind = out.get("output_type")
        if kind == "error":
            note("stores a traceback", f"{out.get('ename')}: {str(out.get('evalue'))[:80]}")
            continue
        if _is_widget(out):
            note("an ipywidgets view (its state is not stored; renderers show nothing)")
        texts = [_text(out.get("text"))] if kind == "stream" else \
            [_text(v) for m, v in (out.get("data") or {}).items() if m in _TEXT_MIMES]
        for text in texts:
            if _TRACEBACK in text:
                note("stores a traceback")
            for path in machine_paths(text)[:1]:
                note("a machine path", path[:80])
            if kind != "stream":
                continue
            if "\r" in text or "\x1b" in text:
                note("unrendered progress updates (carriage returns or ANSI codes)")
            for line in text.split("\n") if out.get("name") == "stderr" else []:
                if _PY_WARNING.match(line) or _OTHER_WARNING.match(line):
                    note("a warning", line.strip()[:80])
                    break
            bars = [line for line in render_stream(text).split("\n") if progress_line(line)]
            if bars:
                note(f"{len(bars)} progress-bar line(s) (run `python -m companion notebooks clean`)",
                     bars[0].strip()[:60])
        for px, heads in html_tables.wide_tables(_text((out.get("data") or {}).get("text/html"))):
            note(f"a table wider than the site's text column ({px:.0f} px of {html_tables.TEXT_COLUMN_PX}: it "
                 "scrolls sideways; `python -m companion notebooks clean` cuts it into column groups, or show "
                 "fewer or narrower columns)", heads[:40])
        plain = _text((out.get("data") or {}).get("text/plain"))
        if kind == "execute_result" and re.match(r"^(?:Posix|Windows)?Path\(", plain):
            note("echoes a path", plain[:80])
    drawn = [name for name, conditional in saved_figures(_text(cell.get("source"))) if not conditional]
    if drawn and not _has_image(outputs):
        note(f"saves figure {drawn[0]!r} but shows no inline image")
    return [f"{where}: {kind}" + (f" ({detail})" if detail else "") + (f" [{count} outputs]" if count > 1 else "")
            for kind, (detail, count) in seen.items()]


def problems(notebook: dict | str | os.PathLike, *, root: str | os.PathLike | None = None,
             max_bytes: int | None = MAX_BYTES) -> list[str]:
    """What a stored notebook still gets wrong (empty list: nothing): volatile metadata, machine paths, warnings,
    tracebacks, unmerged or unrendered streams, progress-bar lines, tables wider than the site's text column,
    duplicated outputs, figure cells without an inline image, and (for a file) a size over ``max_bytes``.

    ``notebook``: a notebook dict, an ``.ipynb`` path, or a folder (every ``*/*.ipynb`` under it, as under
    ``notebooks/``). For files, each message starts with the path relative to ``root`` (default: the repository).
    """
    if not isinstance(notebook, Mapping) and Path(notebook).is_dir():
        folder = Path(notebook)
        files = sorted(p for p in folder.glob("*/*.ipynb") if ".ipynb_checkpoints" not in p.parts)
        return [msg for p in files for msg in problems(p, root=root, max_bytes=max_bytes)]
    nb, path = _load(notebook)
    label = ""
    if path is not None:
        base = Path(root) if root is not None else _settings.REPO_ROOT
        try:
            label = str(path.resolve().relative_to(Path(base).resolve()))
        except ValueError:
            label = str(path)
    prefix = f"{label}: " if label else ""
    if not isinstance(nb.get("cells"), list):
        return [f"{prefix}not a notebook (no 'cells' list)"]
    found = []
    if path is not None and max_bytes is not None and path.stat().st_size > max_bytes:
        found.append(f"{prefix}{path.stat().st_size:,} bytes, over the {max_bytes:,}-byte budget")
    metadata = nb.get("metadata", {})
    for key in _VOLATILE_NB_METADATA:
        if key in metadata:
            found.append(f"{prefix}volatile notebook metadata {key!r}")
    outside = {k: v for k, v in metadata.items() if k != "companion"}
    for found_path in machine_paths(json.dumps(outside))[:1]:
        found.append(f"{prefix}a machine path in the notebook metadata ({found_path[:80]})")
    if path is not None:
        found += [f"{prefix}metadata.companion.{key} is empty but its ledger's provenance knows it (run `python -m "
                  "companion notebooks clean`)" for key in provenance_gaps(nb, path)]
    stamped = [i for i, cell in enumerate(nb["cells"])
               if set(_VOLATILE_CELL_METADATA) & set(cell.get("metadata", {}))]
    if stamped:
        found.append(f"{prefix}execution metadata (timestamps, durations) in {len(stamped)} cell(s), "
                     f"from cell {stamped[0]}")
    for index, cell in enumerate(nb["cells"]):
        found += [prefix + msg for msg in _cell_problems(cell, f"cell {index}")]
    return found


def output_counts(notebook: dict | str | os.PathLike) -> dict[str, int]:
    """Number of outputs of each type (``stream`` split into ``stdout``/``stderr``) in a notebook."""
    nb, _ = _load(notebook)
    counts: dict[str, int] = {}
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) or []:
            key = out.get("output_type", "?") + (f":{out.get('name')}" if out.get("output_type") == "stream" else "")
            counts[key] = counts.get(key, 0) + 1
    return counts


# --------------------------------------------------------------------------------------------- command line
def _targets(paths: list[str]) -> list[Path]:
    if not paths:
        return [nb.path for nb in list_notebooks()]
    found = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
        elif path.suffix == ".ipynb" and path.is_file():
            found.append(path)
        else:
            raise FileNotFoundError(f"{item} is neither a notebook (.ipynb) nor a folder")
    return found


def main(argv: list[str] | None = None) -> int:
    """``python -m companion notebooks clean [--check] [--embed-saved-figures] [PATHS]``."""
    parser = argparse.ArgumentParser(prog="python -m companion notebooks",
                                     description="Clean (or check) the stored outputs of notebooks.")
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("clean", help="rewrite stored notebooks in their clean form (or --check them)")
    cmd.add_argument("paths", nargs="*", help="notebooks or folders (default: every notebook under notebooks/)")
    cmd.add_argument("--check", action="store_true", help="change nothing; list the problems, exit 1 if any")
    cmd.add_argument("--embed-saved-figures", action="store_true",
                     help="give a figure cell without an image the PNG its run saved under figures/<paper>/ "
                          "(only for notebooks whose stored run wrote those files)")
    args = parser.parse_args(argv)
    try:
        targets = _targets(args.paths)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        root = _settings.repo_root()
        found = {path: problems(path) + [str(f) for f in typed_numbers.notebook_findings(path, root)]
                 for path in targets}
        for msg in (m for messages in found.values() for m in messages):
            print(msg)
        bad = sum(1 for messages in found.values() if messages)
        total = sum(len(messages) for messages in found.values())
        print(f"{len(targets)} notebook(s) clean" if not total else f"{total} problem(s) in "
              f"{bad} of {len(targets)} notebook(s)")
        return 1 if total else 0
    for path in targets:
        before, counts = path.stat().st_size, sum(output_counts(path).values())
        report: list[str] = []
        figures = _settings.figures_dir() / paper_of(path) if args.embed_saved_figures else None
        try:
            clean(path, figures=figures, report=report)
        except (ValueError, FileNotFoundError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        after = path.stat().st_size
        name = replace_paths(str(path.resolve()))
        print(f"{name}: {before:,} -> {after:,} bytes, {counts:,} -> {sum(output_counts(path).values()):,} outputs"
              + ("" if after != before else " (unchanged)"))
        for line in report:
            print(f"  {line}")
    return 0


__all__ = ["MAX_BYTES", "clean", "machine_paths", "main", "output_counts", "problems", "progress_line",
           "provenance_gaps", "render_stream", "replace_paths", "saved_figures"]
