"""companion.papers.synthesis.theory: the entropic-yardstick notebook's one import re-exports every public name of
the four modules it is made of (the modules' own tests: test_theory_placement, test_theory_free,
test_theory_checks, test_theory_trained)."""

import ast
import importlib
from pathlib import Path

from companion.papers.synthesis import theory

PARTS = ("theory_placement", "theory_free", "theory_checks", "theory_trained")


def _defined(path: Path) -> set[str]:
    """The public names a module defines at its top level (functions, classes, assignments)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def test_the_facade_re_exports_every_public_name_of_its_modules():
    seen = {}
    for part in PARTS:
        module = importlib.import_module(f"companion.papers.synthesis.{part}")
        for name in _defined(Path(module.__file__)):
            assert name not in seen, f"{name} is defined in both {seen[name]} and {part}"
            assert getattr(theory, name, None) is getattr(module, name), f"theory does not re-export {part}.{name}"
            seen[name] = part
    assert set(theory.__all__) == set(seen)
