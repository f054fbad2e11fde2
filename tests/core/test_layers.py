"""The package's layers, read from the sources: the science never imports the build-and-publish tooling, and no two
modules import each other, directly or through others.

Every module under ``companion/`` is parsed with :mod:`ast`; every import counts, also one inside a function. A
package's ``__init__.py`` is a module of its own (``companion.results``); ``from companion import settings`` imports
the submodule ``companion.settings``, ``from companion.results import Ledger`` the package ``companion.results``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "companion"
TOOLING = "companion.publish"
#: the one module outside the tooling that may import it: the command line
COMMAND_LINE = "companion.__main__"
#: import cycles known when this test was written, each to be broken where it lives; one that no longer exists
#: fails the test until it is taken off this list
KNOWN_CYCLES: set[frozenset[str]] = set()


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted name -> file of every module of the package (a package's ``__init__.py`` under the package's name)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _module_of(name: str, known: dict[str, Path]) -> str | None:
    """The module ``name`` lives in: itself, else the longest dotted prefix that is a module."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in known:
            return ".".join(parts)
        parts.pop()
    return None


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that module ``name`` (file ``path``) imports anywhere in its source."""
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {_module_of(alias.name, known) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[:len(here.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                full = f"{source}.{alias.name}"
                found.add(full if full in known else _module_of(source, known))
    return {m for m in found if m is not None and m != name}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    known = modules(package)
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan): each holds at least one cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _describe(component: frozenset[str], graph: dict[str, set[str]]) -> str:
    return "; ".join(f"{m} imports {', '.join(sorted(graph[m] & component))}" for m in sorted(component))


def test_no_module_outside_the_tooling_imports_it():
    graph = import_graph()
    offenders = {name: sorted(m for m in targets if m == TOOLING or m.startswith(TOOLING + "."))
                 for name, targets in graph.items()
                 if name != COMMAND_LINE and name != TOOLING and not name.startswith(TOOLING + ".")}
    offenders = {name: found for name, found in offenders.items() if found}
    assert not offenders, f"the science imports the build-and-publish tooling: {offenders}"


def test_no_import_cycles():
    graph = import_graph()
    found = cycles(graph)
    new = [c for c in found if c not in KNOWN_CYCLES]
    assert not new, "import cycles: " + " | ".join(_describe(c, graph) for c in new)
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not gone, f"no longer a cycle, take it off KNOWN_CYCLES: {gone}"


#: the papers' own code sits above the shared science: outside ``companion.papers`` only the tooling, the command
#: line and these modules, which stand above it, import it
def test_the_shared_science_never_imports_a_papers_code():
    """No arrow runs back up into ``companion.papers``: the ledger, the scoreboard, the losses, the encoders and the
    rest of the shared science read the paper registry (``companion.paper_registry``, which imports nothing of the
    package), never a paper's own code."""
    graph = import_graph()
    assert graph["companion.paper_registry"] == set(), "the paper registry imports nothing of the package"
    papers = "companion.papers"
    offenders = {name: sorted(m for m in targets if m == papers or m.startswith(papers + "."))
                 for name, targets in graph.items()
                 if not (name == papers or name.startswith((papers + ".", TOOLING + ".")))
                 and name not in (TOOLING, COMMAND_LINE)}
    offenders = {name: found for name, found in offenders.items() if found}
    assert not offenders, f"the shared science imports a paper's own code: {offenders}"


def test_the_graph_sees_every_kind_of_import(tmp_path):
    """The reader of the sources on a small package: absolute, relative, submodule and function-level imports, a
    package's ``__init__``, and a cycle through three modules."""
    package = tmp_path / "companion"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from companion import b\n")
    (package / "b.py").write_text("def f():\n    from .sub import c\n")
    (package / "sub" / "__init__.py").write_text("X = 1\n")
    (package / "sub" / "c.py").write_text("import companion.a\nfrom companion.sub import X\n")
    graph = import_graph(package)
    assert graph["companion.a"] == {"companion.b"}
    assert graph["companion.b"] == {"companion.sub.c"}
    assert graph["companion.sub.c"] == {"companion.a", "companion.sub"}
    assert cycles(graph) == [frozenset({"companion.a", "companion.b", "companion.sub.c"})]
