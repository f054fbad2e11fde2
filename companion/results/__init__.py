"""The claims ledger (schema 2): every claim with its kind, its place in the paper, an explicit criterion and a
*computed* verdict, and what reads the ledgers back.

A notebook records what it checked::

    from companion import stats
    from companion.results import Ledger, show_provenance
    ledger = Ledger("angle", "03-ablation-and-analysis", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)
    ledger.claim("t4-all-vs-only-cosine", "All three objectives beat the cosine objective alone on STS-B",
                 kind="paper", source="Table 4: 86.26 - 85.28", paper_value=0.98,
                 ours=stats.paired(all_scores, cosine_scores),          # one value per seed, paired by seed
                 criterion=stats.direction(paper_effect=0.98),
                 regime="MiniLM is already contrastively trained; the paper fine-tunes raw BERT-base")
    ledger.claim("parity-cosent", "CoSENT equals sentence-transformers' CoSENTLoss on the same tensors",
                 kind="check", ours=max_abs_diff < 1e-6, criterion=stats.holds())
    ledger.save()

One module a job, every name imported from here:

======================================  =================================================================================
:mod:`companion.results.ledger`         the :class:`Ledger` of one run: its claims and their verdicts, ``save``,
                                        ``savefig``, :func:`show_provenance`
:mod:`companion.results.records`        JSON written atomically, the output folders of a profile, the provenance
                                        record beside each ledger and whether it belongs to it
:mod:`companion.results.registration`   the registered criteria ``data/<paper>/criteria/<notebook>.json``
:mod:`companion.results.reading`        schema 2, the check of a stored claim, the ledgers on disk, all claims as one
                                        DataFrame
:mod:`companion.results.scores`         the :func:`scoreboard`, which counts the statements of the papers
                                        (:mod:`companion.statements`), each once
======================================  =================================================================================

The criteria (``direction``, ``level``, and the exact ``within``, ``at_least``, ``at_most``, ``holds``,
``same_sign``, ``not_testable``, ``minor_erratum``) live in :mod:`companion.stats`; the exact ones are imported here
too, because the notebooks import them beside the ledger.
"""

from companion.results.ledger import FigurePath, Ledger, Verdict, figure_output, show_provenance
from companion.results.reading import (
    CLAIM_COLUMNS,
    KIND_VERDICTS,
    KINDS,
    PAPERS,
    SCHEMA,
    claims_frame,
    ledger_path,
    ledger_paths,
    load_ledgers,
    validate_claim,
)
from companion.results.records import (
    completed_provenance,
    json_bytes,
    ledger_provenance,
    library_versions,
    output_dirs,
    provenance,
    provenance_belongs,
    provenance_path,
    sha256_file,
    write_json_atomic,
)
from companion.results.registration import (
    CRITERIA_FIELDS,
    criteria_entries,
    criteria_path,
    criteria_problems,
    criteria_text,
    register_criteria,
)
from companion.results.scores import erratum_paper, scoreboard
from companion.statements import regime_kind
from companion.stats import (
    CHECK_VERDICTS,
    ERRATUM_VERDICTS,
    VERDICTS,
    at_least,
    at_most,
    holds,
    minor_erratum,
    not_testable,
    same_sign,
    within,
)

__all__ = ["Ledger", "Verdict", "FigurePath", "figure_output", "show_provenance", "SCHEMA", "KINDS",
           "KIND_VERDICTS", "PAPERS", "CLAIM_COLUMNS", "validate_claim", "ledger_path", "ledger_paths", "load_ledgers",
           "claims_frame", "json_bytes", "write_json_atomic", "sha256_file", "output_dirs", "library_versions",
           "provenance", "provenance_path", "ledger_provenance", "provenance_belongs", "completed_provenance",
           "CRITERIA_FIELDS", "criteria_path", "criteria_entries", "criteria_text", "register_criteria",
           "criteria_problems", "erratum_paper", "scoreboard", "regime_kind", "VERDICTS", "CHECK_VERDICTS",
           "ERRATUM_VERDICTS", "within", "at_least", "at_most", "holds", "minor_erratum", "same_sign", "not_testable"]
