"""companion — a notebook-first, reproducible companion to five papers on the geometry of embedding learning.

Modules (one home per concept):

* :mod:`companion.settings`   — where data, caches, results and figures live (environment variables)
* :mod:`companion.profiles`   — the ``smoke`` / ``cpu`` / ``gpu`` execution profiles
* :mod:`companion.data`       — loaders for the mirrored data sets (upstream formats) and WordNet
* :mod:`companion.encoders`   — Hugging Face encoders, poolings, cached batched ``encode``
* :mod:`companion.sts`        — SentEval-style STS evaluation (7 sets) and its CLI
* :mod:`companion.training`   — the shared training loop
* :mod:`companion.losses`     — losses of the five papers on two shared cores
* :mod:`companion.metrics`    — geometry, clustering, retrieval and distance-geometry metrics
* :mod:`companion.results`    — the claims ledger and provenance
* :mod:`companion.runner`     — papermill runner behind ``python -m companion run``
"""

__version__ = "0.1.0"
