"""The ``>>>`` examples in the docstrings of the losses, metrics, statistics and similarity modules (and of two
self-contained helpers) run and print what they show: an example a reader copies must work, and a wrong one is a
failing test. CI runs ``pytest`` over ``tests/`` only, so the examples are collected here rather than with
``--doctest-modules``. Modules whose examples are usage sketches (a build of an hour, a hub download, a data mirror)
are not listed."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import companion

PACKAGES = ("losses", "metrics", "stats")                       # every module of these packages
MODULES = ("similarities", "publish/site/format", "papers/synthesis/theory_placement")
ROOT = Path(companion.__file__).parent


def _with_examples() -> list[str]:
    files = [f for pkg in PACKAGES for f in sorted((ROOT / pkg).glob("*.py"))]
    files += [ROOT / f"{m}.py" for m in MODULES]
    names = []
    for f in files:
        if ">>>" in f.read_text(encoding="utf-8"):
            parts = f.relative_to(ROOT.parent).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


EXAMPLES = _with_examples()


def test_the_modules_with_examples_are_found():
    assert {"companion.stats.comparisons", "companion.stats.verdicts", "companion.metrics.geometry",
            "companion.losses.simace"} <= set(EXAMPLES)


@pytest.mark.parametrize("name", EXAMPLES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    tests = [t for t in doctest.DocTestFinder().find(module) if t.examples]
    for test in tests:
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0, f"{name}: no example found"
    assert result.failed == 0, "".join(report)
