"""companion.papers.synthesis.sentence_scan and .sentences: the scan's sentence cuts and patterns, the sweep's
problems on planted rows (a planted contradicted sentence without an erratum is flagged, a consistent one passes),
and the committed sweep of the five papers: every hit accounted for, every cell a test reads printed where its
source says, and no statement copied from the paper."""

from __future__ import annotations

import re
import shutil

import pytest

from companion.papers.synthesis import sentence_scan, sentences
from companion.papers.tables import paper_table
from companion.papers.text import papers_dir


# ------------------------------------------------------------------------------------------------------ the scan
def test_sentences_are_cut_at_a_stop_before_a_capital_but_not_after_an_abbreviation():
    text = ("Fig. 3 shows it, e.g. the best run. Then the rest follows et al. Smith agree. (Tables: 0.5 here.) "
            "(a) stays with it")
    cut = [text[a:b] for a, b in sentence_scan.sentences(text)]
    assert cut == ["Fig. 3 shows it, e.g. the best run.", "Then the rest follows et al. Smith agree.",
                   "(Tables: 0.5 here.) (a) stays with it"]
    # the HTML extraction escapes the stop and may drop the space
    assert len(sentence_scan.sentences(r"One thing\.Another thing\. A third")) == 3


@pytest.mark.parametrize("sentence, pattern", [
    ("SimACE out- performs the baseline", "outperforms"),  # hyphenated across a line
    ("it underperforms in high dimensions", "outperforms"),
    ("improving recall from 0.5 to 0.6", "outperforms"),
    ("SimACE is more effective in RoBERTa", "more/less"),
    ("the space is narrower than that of SimCSE", "comparative"),
    ("B achieves state-of-the-art results", "state of the art"),
    ("consistently above the baseline", "universal"),
    ("the most striking finding", "superlative"),
])
def test_the_patterns_catch_comparative_and_universal_words(sentence, pattern):
    joined = re.sub(r"(\w)- (\w)", r"\1\2", sentence)
    assert re.search(sentence_scan.PATTERNS[pattern], joined, 0 if pattern == "state of the art" else re.I)


def test_a_plain_sentence_matches_no_pattern():
    s = "We train the model for one epoch on the training set."
    assert not any(re.search(p, s, re.I) for p in sentence_scan.PATTERNS.values())


# ------------------------------------------------------------------------------------------------ planted rows
def _row(**kw):
    base = dict(paper="pp", source="§1, s.1", kind="checked", statement="A is above B", rests_on="Table 9",
                test="t", why="", erratum="")
    return sentences.Row(**{**base, **kw})


def test_row_problems_flag_a_contradiction_without_erratum_and_stale_or_unknown_errata():
    classes = {"pp:e": "erratum"}
    new = _row(verdict="contradicted", detail="1.00 <= 2.00")
    assert any("NEW" in p for p in sentences._row_problems(new, classes))
    assert sentences._row_problems(_row(verdict="contradicted", erratum="pp:e"), classes) == []
    assert sentences._row_problems(_row(verdict="consistent"), classes) == []
    assert any("stale" in p for p in sentences._row_problems(_row(verdict="consistent", erratum="pp:e"), classes))
    assert any("not in" in p for p in sentences._row_problems(_row(verdict="contradicted", erratum="pp:x"), classes))
    aside = _row(kind="set aside", statement="", rests_on="", test="", why="no reason: x")
    assert any("unknown reason" in p for p in sentences._row_problems(aside, classes))
    assert sentences._row_problems(_row(kind="set aside", test="", why="theory: a proof step"), classes) == []
    assert any("needs" in p for p in sentences._row_problems(_row(kind="not checkable", test=""), classes))


needs_texts = pytest.mark.skipif(papers_dir() is None, reason="the paper texts (../shared/papers) are not here")


@needs_texts
def test_a_planted_contradicted_sentence_is_flagged_end_to_end(tmp_path):
    """The committed AnglE file, with one row's test pointed at a planted table: reversed, the sweep reports the
    contradiction as new (no erratum records it); in the right order it passes."""
    from companion.settings import repo_root

    root = repo_root()
    for sub in ("angle", "synthesis"):
        shutil.copytree(root / "data" / sub, tmp_path / "data" / sub)
    (tmp_path / "data" / "angle" / "planted.csv").write_text(
        "row,score,source\ncls,1.00,Table 4\nmean,2.00,Table 4\n", encoding="utf-8")
    path = tmp_path / "data" / "angle" / "sentences.csv"
    frame = paper_table("angle", "sentences", root=root)
    place = "§4.4, s.6"
    assert frame["source"].eq(place).sum() == 1

    def sweep_with(test: str):
        frame.loc[frame["source"] == place, ["rests_on", "test"]] = ["the planted table", test]
        frame.to_csv(path, index=False)
        report = sentences.sweep(tmp_path, papers=["angle"])
        return next(r for r in report.rows if r.source == place), report

    row, report = sweep_with("planted: {row=cls} > {row=mean} @ score")
    assert row.verdict == "contradicted"
    assert any(place in p and "NEW" in p for p in report.problems)
    row, report = sweep_with("planted: {row=mean} > {row=cls} @ score")
    assert row.verdict == "consistent" and report.ok, report.problems


# ------------------------------------------------------------------------------------- the committed sweep
@pytest.fixture(scope="module")
def report():
    if papers_dir() is None:
        pytest.skip("the paper texts (../shared/papers) are not here")
    from companion.settings import repo_root

    return sentences.sweep(repo_root())


def test_every_hit_is_accounted_for_and_every_contradiction_has_its_erratum(report):
    assert report.ok, "\n".join(report.problems)
    counts = report.counts()
    assert (counts["hits"] == counts["rows"] + counts["set aside"]).all()
    assert (counts["rows"] == counts["consistent"] + counts["contradicted"] + counts["not checkable"]).all()
    assert counts.loc["all", "consistent"] > 0 and counts.loc["all", "contradicted"] > 0


def test_the_sweep_finds_the_new_erratum_and_the_auditors(report):
    by_place = {(r.paper, r.source): r for r in report.rows}
    # §5.1's larger gain on RoBERTa-base: Table 1 gives 78.39 - 76.57 = 1.82 against 78.20 - 76.25 = 1.95
    gain = by_place["simace", "§5.1, s.4"]
    assert gain.verdict == "contradicted" and gain.erratum == "simace:s51-roberta-gain"
    assert "1.82" in gain.detail and "1.95" in gain.detail
    # App. G's 'all tasks': BERT-base's summarisation 29.51 is below SimCSE's 30.10
    assert by_place["simace", "App. G, s.7"].verdict == "contradicted" and "29.51" in by_place["simace", "App. G, s.7"].detail
    assert by_place["angle", "§4.4, s.6"].verdict == "consistent"  # cls 86.26 above the four other poolings


def test_every_cell_a_test_reads_is_printed_where_its_row_says(report):
    from companion.papers.numbers import printed

    missing = [f"{r.paper} {r.source}: {file} {cell} (source {source!r})" for r in report.rows
               for file, source, cell in r.read
               if source.lower() != "ours" and not printed(r.paper, source.split(":")[0], cell)]
    assert not missing, missing


def test_statements_are_ours_not_the_papers_sentences(report):
    """No statement shares a run of six words with its sentence in the paper (a name such as Llama-3.2-3B is one
    word)."""
    hits = {(h.paper, h.place): h.text.lower() for p in report.hits for h in sentence_scan.scan(p)}
    copied = []
    for r in report.rows:
        words = re.findall(r"[\w.@-]+", r.statement.lower())
        paper_words = " ".join(re.findall(r"[\w.@-]+", hits[r.paper, r.source]))
        if any(" ".join(words[i:i + 6]) in paper_words for i in range(len(words) - 5)):
            copied.append(f"{r.paper} {r.source}: {r.statement}")
    assert not copied, copied


def test_the_report_and_the_page_name_every_paper(report):
    out = sentences.format_report(report)
    assert "hits" in out and "set aside" in out and "problem" in out
    page = sentences.markdown(report)
    assert all(f"## {p}" in page for p in report.hits) and "simace:s51-roberta-gain" in page
