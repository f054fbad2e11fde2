"""companion.papers.synthesis.audit: findings sorted into errata, allowed, new and stale, and the auditor over the
five papers' transcriptions (every finding an erratum of the errata notebook or allow-listed, every transcribed
table covered)."""

from __future__ import annotations

import pytest

from companion.papers.synthesis import audit


def test_report_sorts_findings_into_errata_allowed_new_and_stale():
    f = [audit.Finding("pp", "c", str(i), "same", "s", "cells", "d") for i in range(3)]
    report = audit.Report(f, [], 3, errata={"pp/c/0": "pp:e", "pp/c/9": "pp:e"},
                          allowed={"pp/c/1": ("rounding", "why")}, known_errata={"pp:e"})
    assert [report.disposition(x) for x in f] == ["erratum pp:e", "allowed (rounding)", "NEW"]
    assert [x.key for x in report.new] == ["pp/c/2"] and report.stale == ["pp/c/9"] and not report.ok
    done = audit.Report(f[:2], [], 2, errata={"pp/c/0": "pp:e"}, allowed={"pp/c/1": ("rounding", "why")},
                        known_errata={"pp:e"})
    assert done.ok
    assert not audit.Report(f[:1], [], 1, errata={"pp/c/0": "pp:gone"}, known_errata={"pp:e"}).ok


# ----------------------------------------------------------------------------------- the five papers, as in CI
@pytest.fixture(scope="module")
def report():
    from companion.settings import repo_root

    return audit.audit(repo_root())


def test_every_finding_is_an_erratum_or_allow_listed(report):
    assert report.findings, "the auditor found nothing: the checks did not run"
    assert not report.new, audit.format_report(report)
    assert not report.stale, report.stale
    assert not report.unknown_errata, report.unknown_errata
    assert not report.doubly_disposed
    assert all(reason.strip() and why.strip() for reason, why in report.allowed.values())


def test_every_transcribed_table_is_covered_and_keys_are_unique(report):
    from companion.settings import repo_root

    assert audit.uncovered_tables(repo_root(), report.checks) == []
    keys = [f.key for f in report.findings]
    assert len(keys) == len(set(keys))
    names = [(c.paper, c.name) for c in report.checks]
    assert len(names) == len(set(names))
    assert {f.rule for f in report.findings} <= set(audit.RULES)


def test_known_inconsistencies_are_among_the_findings(report):
    """A few findings pinned by their cells, so that a check that silently stops firing fails here."""
    by_key = {f.key: f for f in report.findings}
    assert "80.06" in by_key["simace/table4-average/BERT-base · RankCSE-listMLE"].cells
    assert "0.739" in by_key["circumplex/table1-vs-table4/SINCERE · nGPT · Qwen3-Embedding-4B V-Measure"].cells
    assert "Pair 74.65, Rank 53.96" in by_key[
        "simace/table12-repeated/rows BERT-base · SimCSE = RoBERTa-base · SimCSE (Pair + Rank)"].cells
    assert "RoBERTa-base, RankCSE-listMLE] 0.04" in by_key["simace/table4-caption-p/Table 4's methods"].detail
    assert report.errata["concepts/p3-range/type-swap ROC-AUC (M1 - B3)"] == "concepts:p3-range"
    assert "13 outside [5, 12]" in by_key["weighted-cl/fig3b-q-vs-appG/Fig. 3(b) sweep"].detail
    assert "the min is 0.186" in by_key["circumplex/table4-marks/mE5 · SINCERE · GPT · SuperEmotion CD-r"].detail
    assert "not marked" in by_key["circumplex/table4-marks/mE5 · SINCERE · nGPT · SuperEmotion CD-r (unmarked min)"].detail
    assert "89.58 in 2 adjacent columns (MPQA, SST)" in by_key[
        "simace/table13-repeated/row BERT-large · ArcCon (MPQA = SST)"].cells


def test_errata_ids_are_read_from_the_notebook_and_the_evidence():
    from companion.settings import repo_root

    ids = audit.errata_ids(repo_root())
    assert {"simace:rankcse-avg", "weighted-cl:soft-tau-star", "weighted-cl:thm37-distance"} <= ids
    assert "audit-dispositions" not in ids  # a check, not an erratum
