"""Former home of the paper-text locator, the source checks and the coverage maps; a few names still resolve here.

The locator is :mod:`companion.papers.text`, the printed-number rules :mod:`companion.papers.numbers`, the
transcriptions' reader :mod:`companion.papers.tables`, and the checks the site and CI run
:mod:`companion.publish.sources`. The names below are the ones still imported from here (a notebook reads
``prose_number``, the site the coverage status); each resolves, when first used, to the same object in its new home.
"""

from __future__ import annotations

import importlib

_MOVED = {
    "prose_number": "companion.papers.tables",
    "coverage_status": "companion.publish.sources.coverage",
    "split_claims": "companion.publish.sources.coverage",
}


def __getattr__(name: str):
    if name in _MOVED:
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'companion.sources' has no attribute {name!r}: its names moved to "
                         "companion.papers.text, companion.papers.numbers, companion.papers.tables and "
                         "companion.publish.sources")
