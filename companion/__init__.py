"""companion — a notebook-first, reproducible companion to five papers on the geometry of embedding learning.

Two layers: the science (losses, metrics, encoders, data, statistics, the claims ledger, the paper registry
:mod:`companion.paper_registry` and one subpackage per paper under :mod:`companion.papers`) and
:mod:`companion.publish`, which builds and publishes on top of it and is imported by no module of the science.
Every module, the data flow from a notebook to the website and the checklist for adding a paper:
``docs/ARCHITECTURE.md``.
"""

__version__ = "0.1.0"
