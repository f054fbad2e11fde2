"""The checks of what the project quotes from the papers, as the site and CI run them.

* :mod:`companion.publish.sources.checks` — every paper number of the ledgers and every row of the transcriptions
  ``data/<paper>/*.csv`` is printed where its source says;
* :mod:`companion.publish.sources.coverage` — the coverage maps ``data/<paper>/coverage.csv``: every item the paper
  text mentions has a row, and the status of each row.

``python -m companion.publish.sources [paper ...]`` prints every problem of both, paper by paper. Reading the paper
texts and locating a source in them is science, not tooling: :mod:`companion.papers.text`,
:mod:`companion.papers.numbers` and, for the transcriptions themselves, :mod:`companion.papers.tables`.
"""
