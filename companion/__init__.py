"""companion — a notebook-first, reproducible companion to five papers on the geometry of embedding learning.

Modules (one home per concept):

* :mod:`companion.settings`   — where data, caches, results and figures live (environment variables)
* :mod:`companion.profiles`   — the ``smoke`` / ``cpu`` / ``gpu`` execution profiles
* :mod:`companion.papers`     — the paper registry; ``companion.papers.<paper>`` holds what only that paper needs
* :mod:`companion.data`       — loaders for the mirrored data sets (upstream formats) and WordNet
* :mod:`companion.encoders`   — Hugging Face encoders, poolings, cached batched ``encode``, frozen-state store,
  top-layer fine-tuning
* :mod:`companion.sts`        — the one STS / pair evaluator (seven sets) and its CLI
* :mod:`companion.training`   — the shared training loop
* :mod:`companion.losses`     — losses of the five papers on two shared cores
* :mod:`companion.metrics`    — generic geometry, clustering, retrieval and distance-geometry metrics
* :mod:`companion.stats`      — paired-seed statistics and the verdict rules
* :mod:`companion.results`    — the claims ledger and provenance
* :mod:`companion.papers.text`, :mod:`companion.papers.tables` — the paper texts (where a number is printed) and
  the transcribed tables
* :mod:`companion.publish`    — build and publish, on top of the modules above (none of them imports it): the
  papermill runner behind ``python -m companion run``, stored notebook outputs, Colab cells, the API reference
  and the Quarto site's configuration, pages and offline checks
"""

__version__ = "0.1.0"
