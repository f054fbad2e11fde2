"""``docs/ARCHITECTURE.md`` is the map of the package, and cannot rot: every module of ``companion/`` has exactly one
row in its tables, every row names a module that exists, the build-and-publish table lists exactly the modules of
``companion.publish``, every path it names exists, a row that names the notebooks a paper's module serves names
every notebook that imports it, and a module over the size rule's limit says why it is kept whole.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "companion"
DOC = REPO / "docs" / "ARCHITECTURE.md"
NOTEBOOKS = REPO / "notebooks"
#: the size rule: a module longer than this is split by job or its docstring says "Kept whole because ..."
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    """Dotted name -> file of every module of the package (a package's ``__init__.py`` under the package's name)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _rows(text: str) -> list[str]:
    """The module named in the first column of every table row (``| `companion...` | ... |``)."""
    return re.findall(r"^\| `(companion(?:\.[\w]+)*)` \|", text, re.M)


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n### ", start + len(heading))
    return text[start:end if end != -1 else len(text)]


def test_every_module_has_exactly_one_row_and_every_row_is_a_module():
    rows = _rows(DOC.read_text(encoding="utf-8"))
    doubled = sorted({r for r in rows if rows.count(r) > 1})
    assert not doubled, f"modules with more than one row in docs/ARCHITECTURE.md: {doubled}"
    known = set(_modules())
    assert not known - set(rows), f"modules missing from docs/ARCHITECTURE.md: {sorted(known - set(rows))}"
    assert not set(rows) - known, f"docs/ARCHITECTURE.md names modules that do not exist: {sorted(set(rows) - known)}"


def test_the_build_and_publish_table_is_exactly_the_publish_package():
    text = DOC.read_text(encoding="utf-8")
    publish = set(_rows(_section(text, "### Build and publish")))
    science = set(_rows(_section(text, "### The science")))
    expected = {m for m in _modules() if m == "companion.publish" or m.startswith("companion.publish.")}
    assert publish == expected
    assert not science & expected and "companion.__main__" not in science


def test_every_repository_path_the_map_names_exists():
    text = DOC.read_text(encoding="utf-8")
    spans = re.findall(r"`([^`\s]+)`", text)
    paths = [s.rstrip("/.,") for s in spans if "/" in s and not re.search(r"[<>*…]|^\.\./|^https?://", s)
             and (REPO / s.split("/")[0]).exists()]
    assert paths
    missing = [p for p in paths if not (REPO / p).exists()]
    assert not missing, f"docs/ARCHITECTURE.md names paths that do not exist: {missing}"
    for link in re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text):
        assert (DOC.parent / link).exists(), f"docs/ARCHITECTURE.md links to {link}, which does not exist"


def _notebook_imports() -> dict[str, set[str]]:
    """Module -> the notebooks (``<folder>/<NN>``) whose py:percent twin imports it or a name from it."""
    known = set(_modules())
    out: dict[str, set[str]] = {}
    for twin in sorted(NOTEBOOKS.glob("*/[0-9][0-9]-*.pct.py")):
        for node in ast.walk(ast.parse(twin.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in set(names) & known:
                out.setdefault(name, set()).add(f"{twin.parent.name}/{twin.name[:2]}")
    return out


def _named_notebooks(text: str, folder: str) -> set[str]:
    """The notebooks a row's text names: ``<folder>/<NN>`` as written, a bare ``NN`` as one of the paper's own."""
    named = {f"{f}/{n}" for f, n in re.findall(r"\b([a-z][\w-]*)/(\d\d)\b", text)}
    return named | {f"{folder}/{n}" for n in re.findall(r"(?<![\w/.])(\d\d)\b", text)}


def test_a_row_that_names_the_notebooks_a_module_serves_names_every_one_that_imports_it():
    """A paper module's row that says which of the paper's notebooks it serves ("notebook 03's measurements",
    "notebooks 02 and 03") names every notebook that imports it, so the map does not send a reader to one notebook
    when another leans on the module too. A row that names no notebook (the paper's notebooks share it) is left
    alone."""
    from companion.paper_registry import REGISTRY

    folders = {p.module: p.folder for p in REGISTRY}
    rows = re.findall(r"^\| `(companion\.papers\.(\w+)[\w.]*)` \| (.*) \|$", DOC.read_text(encoding="utf-8"), re.M)
    assert rows
    importers = _notebook_imports()
    unnamed = {}
    for module, paper, text in rows:
        named = _named_notebooks(text, folders[paper]) if re.search(r"\bnotebooks?\b", text) else set()
        if named and importers.get(module, set()) - named:
            unnamed[module] = sorted(importers[module] - named)
    assert not unnamed, f"rows of docs/ARCHITECTURE.md that leave out notebooks importing their module: {unnamed}"


def test_the_notebooks_a_row_names_are_read_as_written():
    assert _named_notebooks("notebooks 02, 03 and synthesis/02 share (§5–6, Fig. 1/2)", "simace") == {
        "simace/02", "simace/03", "synthesis/02"}
    assert _named_notebooks("the entropic yardstick's one import (notebook `synthesis/02`)", "synthesis") == {
        "synthesis/02"}


def test_a_long_module_is_split_or_says_why_it_is_kept_whole():
    long = {}
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_LINES and "Kept whole because" not in (ast.get_docstring(ast.parse(text)) or ""):
            long[name] = len(text.splitlines())
    assert not long, f"modules over {MAX_LINES} lines with no 'Kept whole because ...' in their docstring: {long}"
