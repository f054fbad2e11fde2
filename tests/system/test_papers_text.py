"""The locator of companion.papers.text on real passages of each paper: the block a source names starts and ends
where it should, an unknown block is one clear error, and where the texts are found.

The passages below were read by eye in ``../shared/papers/<paper>.txt``. Without those texts the whole module is
skipped with one message (never a silent pass).
"""

from __future__ import annotations

import pytest

from companion.papers import text
from companion.papers.text import papers_dir
from companion.settings import REPO_ROOT

if papers_dir() is None:
    pytest.skip(
        "paper texts not found: ../shared/papers/<paper>.txt beside the repository (or COMPANION_PAPERS_DIR) is "
        "needed to check sources",
        allow_module_level=True,
    )

ROOT = REPO_ROOT


# ------------------------------------------------------------------------------------------------ the locator
@pytest.mark.parametrize(
    ("paper", "source", "starts", "contains", "absent"),
    [
        # tab-separated body printed before its caption
        ("circumplex", "Table 4, Llama-Embed-Nemotron-8B, SINCERE GPT, Emolit CD-r", "Base Model",
         ["Table 4: V-Measure", "-0.041", "0.494 0.876"], ["Table 5:", "Table 3:", "0.083"]),
        ("circumplex", "Table 1", "Training Objective", ["Table 1: Summary", "0.342 0.574"], ["Figure 4"]),
        ("circumplex", "§5.2", "5.2 Effects of Spherical Constraints", [], ["6 Discussion"]),
        ("circumplex", "App. D", "D Implementation Details", ["540", "6600"], ["E Overall Results"]),
        ("circumplex", "Fig. 7 caption", "Figure 7:", ["39 emotion labels"], ["Figure 7 illustrates"]),
        # angle: Tables 1 and 5 print their body after the caption
        ("angle", "Table 5", "Table 5:", ["82.01", "AngleE-BERT + ChatGPT 81.52"], ["86.26", "Figure 4"]),
        ("angle", "Table 1", "Table 1:", ["18565 1547 1548"], ["Figure 3", "4.2 IMPLEMENTATION"]),
        ("angle", "Table 4", "Model Spearman", ["only cosine 85.28", "Table 4: Ablation"], ["Table 5", "76.85"]),
        ("angle", "§4.4", "#### 4.4 ABLATION STUDY", [], ["4.5 DISCUSSION"]),
        ("angle", "Eq. 6", "$$", [r"\quad (6)$$"], [r"\quad (5)", r"\quad (7)"]),
        # simace: markdown tables, PDF line numbers in headings
        ("simace", "Table 2", "| PLMs | SimCSE | ArcCon | SimACE |", ["77.46 _{±0.47}", "Table 2: Mean"],
         ["Table 3", "46.16"]),
        ("simace", "App. K", "1347 K Ablation of Angular Margin", ["Figure 8", "Figure 9"], ["Detailed Results"]),
        ("simace", "Abstract", "Abstract", ["Contrastive learning"], ["1 Introduction"]),
        # weighted-cl: arXiv HTML, escapes undone; the only Table 1 is the one of Appendix E
        ("weighted-cl", "App. E, Table 1", "TargetrProc2", ["MiniLM0.660.03878.3789.15", "Table 1:Generalization"],
         ["Figure 6", "We evaluate"]),
        ("weighted-cl", "Table 1", "TargetrProc2", ["Simplex0.630.08379.6889.66"], ["mismatch"]),
        ("weighted-cl", "Thm 3.13", "###### Theorem 3.13.", ["SupCon"], ["### 3.9Metrics"]),
        ("weighted-cl", "Cor. 3.9", "###### Corollary 3.9(Soft SupCon).", ["τ∗=(C−1)/(−Clogε)"], ["### 3.6"]),
        ("weighted-cl", "Fig. 4 caption", "Figure 4:", ["≈−0.111"], ["To confirm the predictions"]),
        ("weighted-cl", "Appendix F.2", "### F.2SNE", [], ["## Appendix G"]),
        ("weighted-cl", "Lemma B.1", "###### Lemma B.1.", ["EDM"], ["### B.2"]),
        ("weighted-cl", "Eq. 6", "W=(", ["\\end{pmatrix}", ",(6)"], ["whereCC", "(5)"]),
        # concepts: one long line; only Table 12 keeps its body
        ("concepts", "Table 12", "FamilyQueryCorrect paraphrase", ["clean platefree of dirt plate0.48783clean dish",
                                                                   "Table 12:Hardest"], ["## Appendix J", "lists the"]),
        ("concepts", "Table 2", "Table 2:H1 ablation results.", ["(nn=4,000)"], ["0.126", "use case."]),
        ("concepts", "Table 4", "Table 4:H3", ["Bold: best per row."], ["0.657", "### 5.4"]),
        ("concepts", "§5.4", "### 5.4H3", ["0.657", "−-0.006"], ["### 5.5"]),
        ("concepts", "Theorem D.3", "###### Theorem D.3(Geometric Head Bias)", ["Proof"], ["#### Interpretation"]),
        ("concepts", "Fig. 1 caption", "Figure 1:Concept-equivalence", ["Centre:synonym", "negation separates (P3)."],
         ["## 1Introduction"]),
    ],
)
def test_block_boundaries(paper, source, starts, contains, absent):
    passage = text.block(paper, source)
    assert passage.startswith(starts), passage[:200]
    for piece in contains:
        assert piece in passage, f"{piece!r} missing from {source!r}: {passage[:300]}"
    for piece in absent:
        assert piece not in passage, f"{piece!r} should not be in {source!r}"


@pytest.mark.parametrize(
    ("paper", "source"),
    [("angle", "Table 9"), ("circumplex", "Fig. 9 caption"), ("circumplex", "§7.1"), ("weighted-cl", "Thm 4.2"),
     ("weighted-cl", "Thm 3.2"), ("concepts", "Eq. 1"),
     ("simace", "Eq. 99"), ("concepts", "Vock et al. 2026, Thm 3.3"), ("angle", "issue 7"), ("simace", "")],
)
def test_unknown_block_is_a_key_error(paper, source):
    with pytest.raises(KeyError) as info:
        text.block(paper, source)
    assert "\n" not in str(info.value)


def test_first_component_names_the_block_and_an_appendix_scopes_a_table():
    assert text.locate("circumplex", "Table 4, Emolit, Qwen3 SINCERE-nGPT, V").item == "Table 4"
    assert text.locate("weighted-cl", "App. E, Table 1").item == "Table 1"
    assert text.locate("weighted-cl", "App. G, Table 2").item == "Table 2"
    # a table outside the named appendix: the appendix itself is the block
    assert text.locate("weighted-cl", "App. F, Table 1").item == "App. F"
    assert text.split_source("Table 4: 86.26 - 85.28") == ("Table 4", "86.26 - 85.28")
    assert text.split_source("§5.1: the angle π/E") == ("§5.1: the angle π/E", None)


def test_papers_dir_follows_the_environment(tmp_path, monkeypatch):
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "angle.txt").write_text("x", encoding="utf-8")
    monkeypatch.setenv("COMPANION_PAPERS_DIR", str(tmp_path / "papers"))
    assert text.papers_dir() == (tmp_path / "papers").resolve()
    monkeypatch.setenv("COMPANION_PAPERS_DIR", str(tmp_path / "nowhere"))
    (tmp_path / "data").mkdir()
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    found = text.papers_dir()  # the repository's sibling ../shared/papers comes before the data dir's sibling
    assert found in ((ROOT.parent / "shared" / "papers").resolve(), (tmp_path / "papers").resolve())


def test_paper_text_undoes_escapes_and_keeps_the_unicode_minus():
    whole = text.paper_text("concepts")
    assert "0.126" in whole and "0\\.126" not in whole
    assert "−-0.006" in whole
    assert "Similar Articles" not in whole and "\n" not in whole


def test_every_paper_text_has_a_known_layout():
    """The registry says how each text was extracted; the locator knows these values only."""
    from companion import paper_registry as papers

    for entry in papers.REGISTRY:
        if not entry.reproduced:
            continue
        assert entry.text_headings in ("plain", "markdown"), entry.id
        assert entry.text_tables in ("tab", "markdown", "run-together"), entry.id
        assert (entry.text_tables == "run-together") == entry.text_html, entry.id
