"""Paper numbers are where their source says: companion.publish.checks.checks on synthetic claims and CSVs, then
the real check of every paper claim in ``results/*/*.json`` and every transcription ``data/<paper>/*.csv``.

Without the paper texts (``../shared/papers``) the whole module is skipped with one message (never a silent pass).
"""

from __future__ import annotations

import json

import pytest

from companion import results
from companion.papers.text import papers_dir
from companion.publish.sources import checks
from companion.settings import REPO_ROOT

if papers_dir() is None:
    pytest.skip(
        "paper texts not found: ../shared/papers/<paper>.txt beside the repository (or COMPANION_PAPERS_DIR) is "
        "needed to check sources",
        allow_module_level=True,
    )

ROOT = REPO_ROOT


# ------------------------------------------------------------------------------------------------ claims and CSVs
def _claim(**kw):
    return {"id": "c", "kind": "paper", **kw}


def test_check_claim_derived_and_plain():
    assert checks.check_claim("angle", _claim(source="Table 4: 86.26 - 85.28", paper_value=0.98)) == []
    assert checks.check_claim("angle", _claim(source="Table 4: 86.26 − 85.28", paper_value=0.98)) == []
    assert checks.check_claim("angle", _claim(source="Table 2: 85.16 / 76.85", paper_value=1.108)) == []
    wrong = checks.check_claim("angle", _claim(source="Table 4: 86.26 - 85.28", paper_value=0.97))
    assert wrong and "0.98" in wrong[0]
    # a claim that says it compares a log ratio gives the ratio; its paper value is the ratio's natural log:
    # ln(85.16 / 76.85) = 0.102676
    log_ratio = dict(source="Table 2: 85.16 / 76.85", claim="A above B (log ratio A / B)")
    assert checks.check_claim("angle", _claim(paper_value=0.1027, **log_ratio)) == []
    off = checks.check_claim("angle", _claim(paper_value=1.108, **log_ratio))  # the plain ratio is not the log
    assert off and "ln(85.16 / 76.85) = 0.102676" in off[0]
    unprinted = checks.check_claim("angle", _claim(source="Table 4: 86.27 - 85.28", paper_value=0.99))
    assert unprinted and "86.27" in unprinted[0]
    elsewhere = checks.check_claim("angle", _claim(source="Table 5: 86.26 - 85.28", paper_value=0.98))
    assert len(elsewhere) == 2
    assert checks.check_claim("circumplex", _claim(source="Table 4", paper_value={"GPT": -0.041, "nGPT": 0.386}))\
        == []
    # a text's digits are checked too ("6" is not printed in Table 4), unless the caller opts out
    qualitative = _claim(source="Table 4", paper_value="all 6 > pretrained")
    assert checks.check_claim("circumplex", qualitative)
    assert checks.check_claim("circumplex", qualitative, text_numbers=False) == []
    assert checks.check_claim("circumplex", _claim(source="Table 4", paper_value="GPT below nGPT")) == []
    assert checks.check_claim("angle", _claim(source="", paper_value=1))
    assert checks.check_claim("angle", _claim(source="Table 4", paper_value="86.2 beats 85.28"))
    assert checks.check_claim("angle", _claim(source="Table 4: 86.26 - 85.28", paper_value="0.98"))


def test_check_csv_flags_unprinted_cells(tmp_path):
    folder = tmp_path / "angle"
    folder.mkdir()
    good = folder / "table4.csv"
    good.write_text("# comment line\nrow,value,our_value,note,source\nonly cosine,85.28,12.5,x 99,Table 4\n"
                    "ours,1.5,,,ours\n", encoding="utf-8")
    assert checks.check_csv(good) == []
    bad = folder / "bad.csv"
    bad.write_text("row,value,source\nonly cosine,85.29,Table 4\nx,76.85,Table 9\ny,1,\n", encoding="utf-8")
    problems = checks.check_csv(bad)
    assert len(problems) == 3 and "85.29" in problems[0] and "Table 9" in problems[1] and "empty source" in problems[2]
    nosource = folder / "nosource.csv"
    nosource.write_text("row,value\nx,1\n", encoding="utf-8")
    assert checks.check_csv(nosource) == ["angle/nosource.csv: no 'source' column"]
    empty = folder / "empty.csv"
    empty.write_text("# only comments\nrow,value,source\n", encoding="utf-8")
    assert checks.check_csv(empty) == ["angle/empty.csv: no rows"]


# ------------------------------------------------------------------------------------------------ the real check
LEDGERS = results.ledger_paths(ROOT / "results")
CSVS = checks.csv_paths(ROOT)


@pytest.mark.parametrize("path", LEDGERS, ids=[f"{p.parent.name}/{p.name}" for p in LEDGERS])
def test_ledger_paper_claims_are_printed_where_their_source_says(path):
    """Every claim of kind "paper" names a block and its numbers are printed there (schema-1 claims without a kind
    are not checked until their ledger is migrated)."""
    problems = checks.check_ledger(path)
    ledger = json.loads(path.read_text(encoding="utf-8"))
    assert not problems, f"schema {ledger.get('schema')}: " + "\n".join(problems)


@pytest.mark.parametrize("path", CSVS, ids=[f"{p.parent.name}/{p.name}" for p in CSVS])
def test_transcriptions_are_printed_where_their_source_says(path):
    problems = checks.check_csv(path)
    assert not problems, "\n".join(problems)


def test_cross_paper_source_prefix():
    """Synthesis ledgers name the paper in the source (``"<paper> | <block>"``); the prefix must match the claim."""
    assert checks.source_paper("angle | Table 4") == ("angle", "Table 4")
    assert checks.source_paper("Table 4, only cosine") == (None, "Table 4, only cosine")
    assert checks.claim_paper({}, {"source": "simace | §4.3"}) == "simace"
    problems = checks.check_claim("angle", {"id": "x", "source": "simace | Table 2", "paper_value": 1})
    assert problems and "names paper 'simace'" in problems[0]
