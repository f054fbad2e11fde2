"""The concepts paper's transcriptions (data/concepts/tableN.csv) and the hand-built NP probe.

Only Table 12 has a body in the paper text; the other tables hold the numbers the prose and captions state. The tests
recompute every difference the text states from the levels it states, and check the text's cross-references (the
same number stated in two places, counts that add up). A check named "erratum" documents an inconsistency of the
text itself (an erratum of data/synthesis/errata_classes.csv); one named "reading" documents two places that look
inconsistent but agree under a reading the text admits (a withdrawn erratum there). Either asserts what it documents,
so it fails if the transcription changes.
"""

import re

import pandas as pd
import pytest

from companion.papers.concepts import data as C
from companion.settings import REPO_ROOT

DATA = REPO_ROOT / "data" / "concepts"


@pytest.fixture(scope="module")
def pn():
    frame = C.paper_numbers()
    return frame.dropna(subset=["number"]).set_index(["table", "row", "column"])["number"]


def test_every_table_has_a_non_empty_csv_with_sources():
    for n in range(1, 14):
        frame = pd.read_csv(DATA / f"table{n}.csv", comment="#", dtype=str, keep_default_na=False)
        assert len(frame) > 0, n
        assert "source" in frame.columns and (frame["source"].str.strip() != "").all(), n
    long = C.paper_numbers()
    assert list(long.columns[:5]) == ["row", "column", "value", "source", "note"]
    assert not long.duplicated(["table", "row", "column"]).any()


def test_paper_number_lookup_and_clear_errors():
    assert C.paper_number(11, "B0", "anisotropy") == (0.126, "App. H")
    assert C.paper_number(2, "B0-WM", "t2d R@10") == (0.392, "App. H")
    with pytest.raises(KeyError, match="Table 2, row 'B9'"):
        C.paper_number(2, "B9", "t2d R@10")
    with pytest.raises(ValueError, match="not a number"):
        C.paper_number(3, "M2 - B1", "margin (absolute)")


def test_stated_differences_equal_the_stated_levels(pn):
    # §5.4: M1 - B3 differences from the levels it states
    assert pn[(4, "M1", "t2d R@10")] - pn[(4, "B3", "t2d R@10")] == pytest.approx(pn[(4, "M1 - B3", "t2d R@10")])
    assert pn[(4, "M1", "Negate ROC-AUC")] - pn[(4, "B3", "Negate ROC-AUC")] == pytest.approx(
        pn[(4, "M1 - B3", "Negate ROC-AUC")])
    assert pn[(4, "M1", "type-swap ROC-AUC")] - pn[(4, "B3", "type-swap ROC-AUC")] == pytest.approx(
        pn[(4, "M1 - B3", "type-swap ROC-AUC")])
    # §5.6: the in-domain gain over B1
    assert pn[(6, "in-domain (300 DBpedia steps)", "DBpedia R@10")] - pn[(6, "B1", "DBpedia R@10")] == pytest.approx(
        pn[(6, "in-domain - B1", "DBpedia R@10")])


def test_the_same_number_stated_twice_agrees(pn):
    # §5.2 (Table 2 discussion) and §5.4 (Table 4) state B3/M1 levels twice
    for col in ("t2d R@10", "Negate ROC-AUC"):
        for cond in ("B3", "M1"):
            assert pn[(2, cond, col)] == pn[(4, cond, col)]
    # DBpedia set-up: Table 6 and Table 13 captions
    for col in ("queries", "candidates"):
        assert pn[(6, "DBpedia test", col)] == pn[(13, "DBpedia test", col)]
    # the relational change: §5.5 states -0.162 both for B1 - B0 and in its aggregate sentence
    assert pn[(5, "B1 - B0", "relational R@1")] == pn[(5, "aggregate (extensional supervision)", "relational R@1")]
    # NP pool: Table 2 and Table 5 captions and the §4.5 suite size
    assert pn[(2, "NP pool", "items")] == pn[(5, "NP pool", "items")] == pn[(8, "all families", "NP pairs")] == 4000


def test_counts_add_up(pn):
    fam = ["intersective", "subsective", "relational", "modal", "privative"]
    assert sum(pn[(8, f, "NP pairs")] for f in fam) == pn[(8, "all families", "NP pairs")]
    t7 = C.paper_numbers().query("table == 7").set_index(["row", "column"])["value"]
    amount = {"K": 1e3, "M": 1e6}

    def count(v):
        return float(v[:-1]) * amount[v[-1]]

    assert count(t7[("WordNet", "syn pairs")]) + count(t7[("WordNet", "t2d pairs")]) == count(t7[("WordNet", "all pairs")])
    assert abs(count(t7[("Wiktionary", "syn pairs")]) + count(t7[("Wiktionary", "t2d pairs")])
               - count(t7[("Wiktionary", "all pairs")])) <= 0.05e6  # 2.79M printed as 2.8M
    assert abs(count(t7[("WordNet", "all pairs")]) + count(t7[("Wiktionary", "all pairs")])
               - count(t7[("both sources", "all pairs")])) <= 0.05e6  # 3.327M printed as 3.3M


def test_geometry_orderings_stated_in_app_h(pn):
    a = {c: pn[(11, c, "anisotropy")] for c in ["B0", "B0-WM", "B1", "B3", "M1"]}
    r = {c: pn[(11, c, "effective rank")] for c in ["B0", "B0-WM", "B1", "B3", "M1"]}
    assert a["B1"] < a["M1"] < a["B0"] < a["B3"] < a["B0-WM"]
    assert r["B1"] > r["B0"] > r["M1"] > r["B3"] > r["B0-WM"]
    assert pn[(11, "B0 layers 5-11 (frozen)", "anisotropy (low end)")] > pn[(11, "B0 layer 12 (frozen)", "anisotropy")]


def test_erratum_p3_range_excludes_the_type_swap_gain(pn):
    """§1 gives the hard-negative ROC-AUC gains as +0.19 to +0.46; §5.4 reports +0.504 for type swap."""
    lo, hi = pn[(4, "hard negatives (P3)", "ROC-AUC gain (low end)")], pn[(4, "hard negatives (P3)", "ROC-AUC gain (high end)")]
    assert lo == pytest.approx(round(pn[(2, "M1", "pair ROC-AUC")] - pn[(2, "B3", "pair ROC-AUC")], 2))
    assert hi == pytest.approx(round(pn[(4, "M1 - B3", "Negate ROC-AUC")], 2))
    assert pn[(4, "M1 - B3", "type-swap ROC-AUC")] > hi


def test_reading_two_intersective_gains(pn):
    """§5.5 states the intersective B1 - B0 gain as +0.071 (the largest of the conditions) and, two paragraphs later,
    'the aggregate results' as +0.064: two quantities, the aggregate below the largest."""
    assert pn[(5, "B1 - B0", "intersective R@1")] > pn[(5, "aggregate (extensional supervision)", "intersective R@1")]


def test_table12_body_is_consistent():
    t = pd.read_csv(DATA / "table12.csv", comment="#")
    assert list(t.columns) == ["Family", "Query", "Correct paraphrase", "Cor. sim", "Rank", "Retrieved rank-1",
                               "Ret. sim", "Failure mode", "source"]
    assert (t["source"] == "Table 12").all() and len(t) == 13
    assert (t.groupby("Family").size() <= 3).all()  # up to three per family (caption)
    assert set(t["Family"]) == {"intersective", "subsective", "relational", "modal", "privative"}
    assert t["Cor. sim"].between(-1, 1).all() and t["Ret. sim"].between(-1, 1).all()
    # the rank-1 retrieved item is a different candidate, so it must score above the correct paraphrase
    assert (t["Ret. sim"] > t["Cor. sim"]).all()
    assert ((t["Rank"] > 1) & (t["Rank"] <= 4000)).all()  # 4,000-item pool
    # App. I: sorted by the rank of the correct candidate, descending, within each family
    for _, g in t.groupby("Family", sort=False):
        assert list(g["Rank"]) == sorted(g["Rank"], reverse=True)


def test_settings_table_and_conditions():
    t9 = pd.read_csv(DATA / "table9.csv", comment="#", dtype=str).set_index("setting")
    assert t9.loc["batch size", "value"] == "16" and t9.loc["fine-tuning steps", "value"] == "8k"
    assert t9.loc["layer-wise LR decay per transformer layer", "value"] == "0.90"
    t1 = pd.read_csv(DATA / "table1.csv", comment="#", dtype=str)
    assert set(t1["condition"]) >= {"B0", "B0-WM", "B1", "B2", "B3", "M1", "M2", "M3"}  # the eight of §4.1
    frozen = set(t1.loc[t1["fine_tuned"] == "no", "condition"])
    no_hn = set(t1.loc[t1["hard_negatives"] == "no", "condition"])
    assert frozen == {"B0", "B0-WM"} and no_hn == {"B0", "B0-WM", "B3"}  # §4.3: all but B0 and B3 use BCE


def test_np_probe_has_30_per_family_and_no_lexical_overlap():
    probe = pd.read_csv(DATA / "np_probe.csv", comment="#")
    assert (probe["source"] == "ours").all()
    counts = probe["family"].value_counts()
    assert set(counts.index) == {"intersective", "subsective", "relational", "modal", "privative"}
    assert (counts >= 30).all()
    assert not probe["phrase"].duplicated().any() and not probe["paraphrase"].duplicated().any()
    for phrase, para in zip(probe["phrase"], probe["paraphrase"]):
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", para)}
        for tok in re.findall(r"[A-Za-z]+", phrase):
            if tok.lower() not in C.STOPWORDS:
                assert not (C._mask_forms(tok) & words), (phrase, para)


def test_reading_dbpedia_test_size(pn):
    """§1 announces 250 DBpedia test pairs, rounded as its '3k' rounds 3,063; §4.5, §5.6 and the Table 6/13 captions
    use 245."""
    assert pn[(6, "DBpedia benchmark", "test pairs")] == 250
    assert pn[(6, "DBpedia benchmark", "test pairs (manually reviewed)")] == pn[(6, "DBpedia test", "queries")] == 245


def test_long_paper_numbers_file_repeats_the_table_transcriptions(pn):
    """paper_numbers.csv (read by the errata notebook) must agree with the table CSVs, cell for cell."""
    p = pd.read_csv(DATA / "paper_numbers.csv", comment="#")
    where = {"t2d_r10": (2, "t2d R@10"), "negate_auc": (2, "Negate ROC-AUC"), "type_swap_auc": (4, "type-swap ROC-AUC"),
             "pair_auc": (2, "pair ROC-AUC"), "np_r10": (2, "NP R@10"), "anisotropy": (11, "anisotropy"),
             "effective_rank": (11, "effective rank")}
    for r in p.itertuples():
        if r.id in where:
            t, col = where[r.id]
            assert pn[(t, r.condition, col)] == r.value, r
    assert not p.duplicated(["id", "condition"]).any()


def test_table12_cosines_are_symmetric_across_rows():
    """Two relational rows retrieve each other's query (community cup <-> city cup): cosine is symmetric, so their
    retrieved similarities must agree, and they do (0.899 twice)."""
    t = pd.read_csv(DATA / "table12.csv", comment="#")
    sim = {(q, r.rstrip("†‡")): s for q, r, s in zip(t["Query"], t["Retrieved rank-1"], t["Ret. sim"])}
    swapped = [(a, b) for (a, b) in sim if (b, a) in sim and a < b]
    assert swapped == [("city cup", "community cup")]
    assert all(sim[(a, b)] == sim[(b, a)] for a, b in swapped)


def test_reading_table12_caption_order():
    """The caption calls a lower rank a harder failure, and App. I sorts the hardest first by descending rank: within
    every family a larger rank goes with a lower similarity to the correct paraphrase, so 'lower' reads as further
    down the ranking (a larger number)."""
    t = pd.read_csv(DATA / "table12.csv", comment="#")
    for _, g in t.groupby("Family"):
        if len(g) > 1:
            assert g["Rank"].corr(g["Cor. sim"], method="spearman") == -1.0


def test_reading_three_failures_per_family():
    """App. I announces the three hardest failures per family; Table 12 has one modal row (its caption: up to 3)."""
    counts = pd.read_csv(DATA / "table12.csv", comment="#").groupby("Family").size()
    assert counts["modal"] == 1 and (counts.drop("modal") == 3).all()


def test_reading_drop_at_the_last_two_layers(pn):
    """§5.1: anisotropy drops sharply at the last two layers; App. H puts every layer 5-11 (layer 11 included) at
    0.45-0.50 and only layer 12 at 0.146: the drop lies between the last two layers, at the final one (as the Fig. 3
    caption says)."""
    low, high = pn[(11, "B0 layers 5-11 (frozen)", "anisotropy (low end)")], pn[(11, "B0 layers 5-11 (frozen)",
                                                                             "anisotropy (high end)")]
    layer12 = pn[(11, "B0 layer 12 (frozen)", "anisotropy")]
    assert layer12 < low / 3 and (high - low) < (low - layer12) / 5
