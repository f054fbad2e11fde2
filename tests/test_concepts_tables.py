"""Integrity of Paper 4's data files: quoted paper numbers and the hand-built NP probe."""

import re
from pathlib import Path

import pandas as pd

from companion import concepts as C

DATA = Path(__file__).resolve().parents[1] / "data" / "concepts"


def test_paper_numbers_quote_the_issue():
    p = pd.read_csv(DATA / "paper_numbers.csv", comment="#")
    assert list(p.columns) == ["id", "quantity", "condition", "value", "source"]
    v = p.set_index(["id", "condition"])["value"]
    assert v[("syn_pairs", "-")] == 315850 and v[("syn_pairs_merged", "-")] == 304438
    assert v[("t2d_r10", "B0")] == 0.552 and v[("t2d_r10", "B0-WM")] == 0.392
    assert v[("negate_auc", "M1")] - v[("negate_auc", "B3")] > 0.4
    assert v[("anisotropy", "B1")] < v[("anisotropy", "B0")] < v[("anisotropy", "B0-WM")]
    assert not p.duplicated(["id", "condition"]).any() and p["source"].notna().all()


def test_np_probe_has_30_per_family_and_no_lexical_overlap():
    probe = pd.read_csv(DATA / "np_probe.csv", comment="#")
    counts = probe["family"].value_counts()
    assert set(counts.index) == {"intersective", "subsective", "relational", "modal", "privative"}
    assert (counts >= 30).all()
    assert not probe["phrase"].duplicated().any() and not probe["paraphrase"].duplicated().any()
    for phrase, para in zip(probe["phrase"], probe["paraphrase"]):
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", para)}
        for tok in re.findall(r"[A-Za-z]+", phrase):
            if tok.lower() not in C.STOPWORDS:
                assert not (C._mask_forms(tok) & words), (phrase, para)
