"""Statements, the scoreboard's unit (companion.statements): the rule that maps each paper claim to the statement it
tests, the exceptions files, the headline rule and split statements, on hand-made claims and on the committed
ledgers."""

import json

import pandas as pd
import pytest

from companion import paper_registry as papers
from companion import statements
from companion.results import CLAIM_COLUMNS, Ledger, claims_frame, holds, scoreboard, within
from companion.settings import REPO_ROOT

MINILM = "scaled: all-MiniLM-L6-v2 (already contrastively trained), top layer only"
RAW = "scaled: raw MLM encoder built here (companion.mlm: 4 layers), every layer trained"
MPNET = "scaled: all-mpnet-base-v2, top 2 of 12 layers, 30 steps"


def _frame(*rows):
    """Paper claims as :func:`companion.results.claims_frame` gives them: ``(paper, notebook, id, source,
    paper_value, verdict, regime)`` each."""
    out = [{"paper": p, "notebook": nb, "profile": "cpu", "id": cid, "kind": "paper", "claim": f"says {cid}",
            "source": src, "paper_value": pv, "verdict": v, "regime": reg,
            "reason": "why" if v in ("inconclusive", "not testable") else None}
           for p, nb, cid, src, pv, v, reg in rows]
    return pd.DataFrame(out, columns=CLAIM_COLUMNS)


def _one(heads, statement):
    row = heads[heads["statement"] == statement]
    assert len(row) == 1, list(heads["statement"])
    return row.iloc[0]


# --------------------------------------------------------------------------------------------- the rule
@pytest.mark.parametrize(("claim", "statement"), [
    ("mpnet_B1_r10_up", "B1_r10_up"), ("t2-simace-vs-simcse-raw", "t2-simace-vs-simcse"),
    ("fig5a-sincere-needs-dims:full-width", "fig5a-sincere-needs-dims"), ("B1_r10_up", "B1_r10_up"),
    ("mpnet_", "mpnet_"), ("raw-raw", "raw"), ("D3_order_mpnet_B0", "D3_order_mpnet_B0"),
])
def test_the_rule_removes_the_regime_markers_of_an_id(claim, statement):
    assert statements.statement_id(claim) == statement


def test_twins_are_one_statement_and_a_split_one_names_both_regimes():
    frame = _frame(("angle", "03-x", "gap", "Table 4: 2 - 1", 1.0, "partly", MINILM),
                   ("angle", "03-x", "gap-raw", "Table 4: 2 - 1", 1.0, "not reproduced", RAW),
                   ("angle", "03-x", "other", "§5", "up", "reproduced", MINILM))
    heads = statements.headlines(frame, exceptions={})
    assert list(heads["statement"]) == ["gap", "other"]
    gap = _one(heads, "gap")
    # the raw encoder's row is closer to the paper's setting than MiniLM's: it decides, the other is not hidden
    assert (gap["verdict"], gap["id"], gap["regime_class"], gap["evidence"]) == ("not reproduced", "gap-raw",
                                                                                   "paper recipe", 2)
    assert gap["split"] and gap["split_text"] == ("not reproduced in the paper recipe regime (03-x · gap-raw); "
                                                  "partly in the scaled regime (03-x · gap)")
    assert not _one(heads, "other")["split"] and _one(heads, "other")["split_text"] == ""
    board = statements.board(frame, exceptions={})
    assert board.loc[0, ["total", "evidence", "split", "not reproduced", "partly", "reproduced"]].tolist() == [
        2, 3, 1, 1, 0, 1]


def test_twins_that_agree_are_not_split_and_the_paper_setting_decides_first():
    frame = _frame(("concepts", "03-p", "P1_up", "§1", 0.1, "reproduced", MINILM),
                   ("concepts", "03-p", "mpnet_P1_up", "§1", 0.1, "reproduced", MPNET),
                   ("concepts", "01-r", "P1_up", "§1", 0.1, "inconclusive", "paper setting"))
    head = _one(statements.headlines(frame, exceptions={}), "P1_up")
    assert (head["verdict"], head["notebook"], head["regime_class"], head["evidence"]) == (
        "inconclusive", "01-r", "paper setting", 3)
    assert head["split"] and head["split_text"].startswith("inconclusive in the paper setting (01-r · P1_up); "
                                                           "reproduced in the paper backbone regime")
    # the paper's backbone comes before MiniLM when the paper setting is not there
    head = _one(statements.headlines(frame.iloc[:2], exceptions={}), "P1_up")
    assert (head["id"], head["split"]) == ("mpnet_P1_up", False)


def test_a_row_that_was_not_tested_never_decides_over_one_that_was():
    frame = _frame(("angle", "02-x", "t3", "Table 3", 1.0, "not testable", "paper setting"),
                   ("angle", "03-x", "t3-raw", "Table 3", 1.0, "partly", RAW))
    head = _one(statements.headlines(frame, exceptions={}), "t3")
    assert (head["verdict"], head["id"]) == ("partly", "t3-raw") and head["split"]


def test_one_id_in_two_notebooks_is_one_statement_only_when_source_and_paper_value_agree():
    frame = _frame(("circumplex", "02-e", "Emolit:lowest-V", "Table 4, Qwen, Emolit", 0.137, "partly", MINILM),
                   ("circumplex", "05-f", "Emolit:lowest-V", "Table 4, mE5, Emolit", 0.021, "inconclusive", MINILM),
                   ("circumplex", "02-e", "Emolit:orthogonal", "§5.1", 0, "not reproduced", MINILM),
                   ("circumplex", "05-f", "Emolit:orthogonal", "§5.1", 0, "inconclusive",
                    "scaled: all-MiniLM-L6-v2 fine-tuned whole (embeddings and every layer)"))
    heads = statements.headlines(frame, exceptions={})
    assert list(heads["statement"]) == ["02-e/Emolit:lowest-V", "05-f/Emolit:lowest-V", "Emolit:orthogonal"]
    assert heads["evidence"].tolist() == [1, 1, 2] and heads["split"].tolist() == [False, False, True]
    # the whole encoder fine-tuned with its head is the paper's recipe: it decides over a frozen MiniLM
    assert _one(heads, "Emolit:orthogonal")["notebook"] == "05-f"
    # a paper value that differs only in type or order of keys is no agreement: the rule compares them exactly
    frame.loc[1, ["source", "paper_value"]] = ["Table 4, Qwen, Emolit", 0.137]
    assert _one(statements.headlines(frame, exceptions={}), "Emolit:lowest-V")["evidence"] == 2


def test_an_exception_joins_a_twin_under_another_id_and_the_rules_row_wins_a_tie():
    # the variant comes first in the ledger: ledger order alone would let it decide
    frame = _frame(("simace", "02-s", "equal-tau-006", "Table 2: 77.87 - 76.77", 1.1, "reproduced", MINILM),
                   ("simace", "02-s", "equal-tau-005", "Table 2: 77.87 - 76.77", 1.1, "partly", MINILM))
    apart = statements.headlines(frame, exceptions={})
    assert len(apart) == 2
    joined = statements.headlines(frame, exceptions={("simace", "02-s", "equal-tau-006"): "equal-tau-005"})
    head = _one(joined, "equal-tau-005")
    # same regime class: the row whose own id is the statement's decides, the variant stands beside it
    assert (len(joined), head["id"], head["verdict"], head["evidence"], head["split"]) == (
        1, "equal-tau-005", "partly", 2, True)


def test_an_erratum_evidence_row_is_no_statement_and_is_counted_nowhere_else():
    frame = _frame(("weighted-cl", "01-e", "thm-as-printed", "Thm 3.7", "d", "not reproduced", "paper setting"),
                   ("weighted-cl", "01-e", "thm-attained", "Thm 3.7", "attained", "reproduced", "paper setting"))
    chosen = {("weighted-cl", "01-e", "thm-as-printed"): "erratum-evidence:weighted-cl:thm37"}
    heads = statements.headlines(frame, exceptions=chosen)
    assert list(heads["statement"]) == ["thm-attained"]
    left = statements.erratum_evidence(frame, exceptions=chosen)
    assert left[["id", "erratum"]].values.tolist() == [["thm-as-printed", "weighted-cl:thm37"]]
    board = statements.board(frame, exceptions=chosen)
    assert board.loc[0, ["total", "evidence", "reproduced", "not reproduced"]].tolist() == [1, 1, 1, 0]


def test_the_regime_classes_follow_the_stated_order():
    assert [name for name, _ in statements.REGIME_ORDER] == ["paper setting", "paper backbone", "paper recipe",
                                                            "paper head", "scaled"]
    assert statements.regime_class("x", "paper setting") == "paper setting"
    assert statements.regime_class("mpnet_x", "scaled: our probe") == "paper backbone"
    assert statements.regime_class("D3_order_mpnet_B0", "scaled: our probe") == "paper backbone"
    assert statements.regime_class("D3_order_MiniLM_B0", "scaled: our probe") == "scaled"
    assert statements.regime_class("x", "scaled: frozen all-MiniLM-L6-v2 (paper: mpnet)") == "scaled"
    assert statements.regime_class("x-raw", MINILM) == "paper recipe"
    assert statements.regime_class("x", RAW) == "paper recipe"
    assert statements.regime_class("x:full-width", MINILM) == "paper head"
    assert statements.regime_class("x", MINILM) == "scaled"


def _checkout(tmp_path, text):
    (tmp_path / "data" / "angle").mkdir(parents=True)
    (tmp_path / "data" / "angle" / "statements.csv").write_text(
        "# a comment\nnotebook,claim,statement,reason\n" + text)
    return tmp_path


def test_the_exceptions_file_is_checked_against_the_ledgers(tmp_path):
    frame = pd.concat([_frame(("angle", "02-s", "a", "Table 4", 1.0, "partly", MINILM),
                              ("angle", "03-a", "b", "Table 4", 1.0, "partly", MINILM),
                              ("angle", "03-a", "c", "Eq. 2", 1.0, "not reproduced", "paper setting"),
                              ("angle", "03-a", "d-raw", "§3", 1.0, "partly", RAW)),
                       pd.DataFrame([{"paper": "synthesis", "notebook": "00-errata", "id": "angle:eq2",
                                      "kind": "erratum", "verdict": "confirmed"}], columns=CLAIM_COLUMNS)])
    good = _checkout(tmp_path / "good", "02-s,a,b,the same gap\n03-a,c,erratum-evidence:angle:eq2,as printed\n")
    assert statements.exception_problems(frame, good) == []
    assert statements.read_exceptions("angle", good)[0] == {"notebook": "02-s", "claim": "a", "statement": "b",
                                                            "reason": "the same gap"}
    bad = _checkout(tmp_path / "bad", "02-s,zz,b,no such claim\n02-s,a,b,twice\n02-s,a,b,twice\n"
                                      "03-a,c,erratum-evidence:angle:nope,no such erratum\n03-a,d-raw,d,the rule\n"
                                      "03-a,b,typo,a statement nobody else names\n")
    problems = "\n".join(statements.exception_problems(frame, bad))
    for expected in ("02-s · zz is not a paper claim", "02-s · a is listed twice", "names no erratum",
                     "the rule by itself gives 'd'", "'typo' is no statement of the rule"):
        assert expected in problems
    assert len(statements.exception_problems(frame, bad)) == 5
    with pytest.raises(ValueError, match="columns"):
        (tmp_path / "bad" / "data" / "angle" / "statements.csv").write_text("notebook,claim\n02-s,a\n")
        statements.read_exceptions("angle", tmp_path / "bad")


def test_the_scoreboard_counts_statements_by_default_and_rows_on_request(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    ledger = Ledger("angle", "03-x", profile="cpu", seeds=[0])
    ledger.claim("gap", "x", 1.0, 1.0, within(1, 0.1), kind="paper", source="Table 4", regime="MiniLM top layer")
    ledger.claim("gap-raw", "x", 1.0, 1.02, within(1, 0.1), kind="paper", source="Table 4",
                 regime="raw MLM encoder built here")
    ledger.claim("c", "a check", None, True, holds(), kind="check")
    ledger.save()
    board = scoreboard(tmp_path / "results", checkout=tmp_path)
    assert board.loc[0, ["paper", "reproduced", "total", "evidence", "split"]].tolist() == ["angle", 1, 1, 2, 0]
    rows = scoreboard(tmp_path / "results", unit="evidence")
    assert rows.loc[0, ["reproduced", "total"]].tolist() == [2, 2] and "evidence" not in rows
    assert scoreboard(tmp_path / "results", kind="check").loc[0, "passed"] == 1
    with pytest.raises(ValueError, match="unit"):
        scoreboard(tmp_path / "results", unit="claims")


# --------------------------------------------------------------------------------------------- the committed ledgers
#: statements per paper on the committed ledgers (evidence rows before: angle 37, circumplex 55, concepts 92,
#: simace 27, weighted-cl 63 of which 5 are the evidence of errata)
# five planted, identity or closed-form claims are checks, not statements: circular-ring-rank, d5_aniso_falls,
# d5_lead_share_falls, euclid-supcon-degenerate, fig7-r2sim-q48 (and fig2b's MiniLM row, whose raw twin remains)
# concepts 51: its M1-vs-B3 effective-rank claim is a log ratio on MiniLM and still a difference on mpnet, so the
# rule (twins must agree on source and paper value) counts the two regimes apart until the mpnet twin is re-run
STATEMENTS = {"angle": 28, "circumplex": 49, "concepts": 51, "simace": 22, "weighted-cl": 56}
ERRATUM_EVIDENCE = {("weighted-cl", "01-entropic-bound-and-geometry", "thm3.7-distance-as-printed"):
                    "weighted-cl:thm37-distance",
                    ("weighted-cl", "01-entropic-bound-and-geometry", "thm3.7-similarity-as-printed"):
                    "weighted-cl:thm37-similarity",
                    ("weighted-cl", "02-supervised-contrastive-geometry", "soft-tau-star-paper"):
                    "weighted-cl:soft-tau-star",
                    ("weighted-cl", "02-supervised-contrastive-geometry", "thmD1-only-if-chain"):
                    "weighted-cl:thmD1-only-if",
                    ("weighted-cl", "04-metrics-and-appendices", "appF2-sne-distances"): "weighted-cl:appF2-sigma"}


@pytest.fixture(scope="module")
def committed():
    frame = claims_frame()
    mine = frame[(frame["kind"] == "paper") & frame["paper"].isin(papers.REPRODUCED)]
    return frame, mine, statements.headlines(mine)


def test_the_committed_ledgers_have_the_stated_number_of_statements(committed):
    _, mine, heads = committed
    assert heads.groupby("paper").size().to_dict() == STATEMENTS
    assert mine.groupby("paper").size().to_dict() == {"angle": 36, "circumplex": 54, "concepts": 90, "simace": 27,
                                                      "weighted-cl": 61}
    assert int(heads["split"].sum()) == 27  # after concepts/03 decided its MiniLM claims, whose mpnet twins differ
    board = scoreboard()
    assert board.set_index("paper")["total"].to_dict() == STATEMENTS
    assert int(board["evidence"].sum()) == len(mine) - len(ERRATUM_EVIDENCE)


def test_every_committed_paper_claim_maps_to_exactly_one_statement(committed):
    _, mine, heads = committed
    assigned = statements.assign(mine)
    assert len(assigned) == len(mine) and assigned["statement"].map(bool).all()
    evidence = [(p, *row.split(" · ")) for p, rows in zip(heads["paper"], heads["evidence_rows"])
                for row in rows.split(", ")]
    left = statements.erratum_evidence(mine)
    left_keys = list(zip(left["paper"], left["notebook"], left["id"]))
    every = evidence + left_keys
    assert len(every) == len(set(every)) == len(mine)  # no row twice, none missing
    assert set(every) == set(zip(mine["paper"], mine["notebook"], mine["id"]))
    assert dict(zip(left_keys, left["erratum"])) == ERRATUM_EVIDENCE
    # a statement's rows agree on where the paper says it, unless an exception joined them
    joined = {(p, r["notebook"], r["claim"]) for p in STATEMENTS for r in statements.read_exceptions(p)}
    for (paper, statement), group in assigned.groupby(["paper", "statement"]):
        rule_rows = group[[(paper, nb, i) not in joined for nb, i in zip(group["notebook"], group["id"])]]
        keys = {json.dumps([s, v], sort_keys=True, default=str)
                for s, v in zip(rule_rows["source"], rule_rows["paper_value"])}
        assert len(keys) <= 1, (paper, statement)


def test_the_exceptions_files_name_only_existing_claims_and_errata(committed):
    frame, mine, _ = committed
    assert statements.exception_problems(frame) == []
    for paper in STATEMENTS:
        assert (REPO_ROOT / "data" / paper / "statements.csv").is_file()
        for row in statements.read_exceptions(paper):
            assert ((mine["paper"] == paper) & (mine["notebook"] == row["notebook"])
                    & (mine["id"] == row["claim"])).sum() == 1, (paper, row)
    errata = set(frame.loc[frame["kind"] == "erratum", "id"])
    assert set(ERRATUM_EVIDENCE.values()) <= errata


def test_the_committed_headlines_follow_the_regime_order(committed):
    _, mine, heads = committed
    assigned = statements.assign(mine)
    assert set(assigned.loc[assigned["id"].str.endswith("-raw"), "regime_class"]) == {"paper recipe"}
    assert set(assigned.loc[assigned["id"].str.startswith("mpnet_"), "regime_class"]) == {"paper backbone"}
    rank = {name: i for i, (name, _) in enumerate(statements.REGIME_ORDER)}
    for head in heads.itertuples():
        rows = assigned[(assigned["paper"] == head.paper) & (assigned["statement"] == head.statement)]
        tested = rows[rows["verdict"] != "not testable"]
        best = min(rank[c] for c in (tested if len(tested) else rows)["regime_class"])
        assert rank[head.regime_class] == best, (head.paper, head.statement)
    # two of the split statements, by name: the raw encoder decides SimACE's Table 2 gap, mpnet the D.4 order
    gap = _one(heads[heads["paper"] == "simace"], "t2-simace-vs-simcse")
    assert (gap["id"], gap["verdict"], gap["split"]) == ("t2-simace-vs-simcse-raw", "inconclusive", True)
    order = _one(heads[heads["paper"] == "concepts"], "D3_order")
    assert (order["id"], order["evidence"], order["split"]) == ("D3_order_mpnet_B0", 3, True)
