"""Everything specific to each paper: ``companion.papers.<module>`` holds one paper's own code (its experiments,
claims, figures and validity checks), beside the readers of the paper texts (:mod:`companion.papers.text`), of the
numbers printed in them (:mod:`companion.papers.numbers`) and of the transcribed tables
(:mod:`companion.papers.tables`).

The list of papers itself, :data:`companion.paper_registry.REGISTRY`, sits low in the package, so that the ledger
and the scoreboard read it without importing any paper's code. What reads which field, and the checklist for adding
a paper: ``docs/ARCHITECTURE.md``.
"""
