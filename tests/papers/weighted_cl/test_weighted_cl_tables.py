"""The weighted-cl paper's transcribed tables (data/weighted-cl/): shapes, and every cross-reference between the two
tables, the prose and the captions (Vock, Duchesnay & Dufumier, arXiv 2605.13943).

Two verified inconsistencies are pinned as exactly that, so a change of a transcription makes a test fail:
- App. E reads Table 1 as "better metrics, better generalisation", but the geometry with the best r2_Proc and
  Delta_W (MiniLM) is not the one with the best top-1/top-3 accuracy (Simplex).
- The simplex temperature printed in Cor. 3.9 and used in §4.2, (C-1)/(-C log eps) = 0.9 for C = 10 and eps = e^-1,
  gives the inter-class cosine 1 + tau log eps = +0.1, not the regular simplex's -1/(C-1) ~ -0.111 of the Fig. 4
  caption; the simplex needs tau* = C/((C-1)(-log eps)) = 10/9.
"""

from __future__ import annotations

import math
from decimal import Decimal

import pandas as pd
import pytest

from companion.losses.weighted import soft_supcon_beta, soft_supcon_simplex_tau, soft_supcon_simplex_tau_paper
from companion.papers.tables import paper_table
from companion.settings import REPO_ROOT

DATA = REPO_ROOT / "data" / "weighted-cl"
EPS = math.exp(-1)


def read(name: str) -> pd.DataFrame:
    return paper_table("weighted-cl", name)


def prose(quantity_start: str) -> str:
    df = read("prose")
    hit = df[df["quantity"].str.startswith(quantity_start)]
    assert len(hit) == 1, quantity_start
    return hit["value"].iloc[0]


def test_table1_complete():
    df = read("table1")
    assert list(df.columns) == ["Target", "r2_Proc_test", "Delta_W_test (%)", "Top-1 (%)", "Top-3 (%)", "source"]
    assert list(df["Target"]) == ["Simplex", "CLIP", "MiniLM"]
    assert (df["source"] == "App. E, Table 1").all()
    num = df.set_index("Target").drop(columns="source").map(Decimal)
    assert ((num["r2_Proc_test"] > 0) & (num["r2_Proc_test"] < 1)).all()
    assert (num["Top-1 (%)"] < num["Top-3 (%)"]).all()  # top-3 accuracy can never be below top-1


def test_table1_against_the_text():
    t = read("table1").set_index("Target").drop(columns="source").map(Decimal)
    # the text: MiniLM has the best Procrustes similarity and the smallest loss error ...
    assert t["r2_Proc_test"].idxmax() == "MiniLM" and t["Delta_W_test (%)"].idxmin() == "MiniLM"
    # ... but the best generalisation (top-1 and top-3) is Simplex's: the text's reading does not follow from the table
    assert t["Top-1 (%)"].idxmax() == "Simplex" and t["Top-3 (%)"].idxmax() == "Simplex"
    assert t.loc["Simplex", "Top-1 (%)"] - t.loc["MiniLM", "Top-1 (%)"] == Decimal("1.31")


def test_table2_complete_and_consistent():
    df = read("table2").set_index("setting")
    assert list(df.columns) == ["§4.1", "§4.2", "§4.3", "Appendix E", "source"]
    assert list(df.index) == ["Dataset", "File(s)", "Architecture", "Loss", "Optimizer", "LR", "WD", "Epochs",
                              "Batch size", "Key parameters"]
    assert (df["source"] == "App. G, Table 2").all()
    assert list(df.loc["Dataset"][:4]) == ["MNIST", "N/A", "MNIST", "CIFAR-100"]
    assert list(df.loc["Loss"][:4]) == ["Eucl. w-InfoNCE", "Hard/Soft SupCon", "y-Aware", "X-CLR"]
    # App. E's prose: ResNet-50, q = 512, label dimensions 100 (one-hot), 512 (CLIP ViT-B/32), 384 (MiniLM)
    assert df.loc["Architecture", "Appendix E"] == "ResNet-50"
    assert "q=512" in df.loc["Key parameters", "Appendix E"]
    assert "ℓ∈{100,512,384}" in df.loc["Key parameters", "Appendix E"]
    # §4.2: C = 10 classes, soft weight e^-1, Hard SupCon at tau = 0.1; Fig. 5 (§4.3): thickness in R^2, tau = 0.1
    assert prose("Fig. 4: number of classes") == "10" and "d=C=10" in df.loc["Key parameters", "§4.2"]
    assert "ε=e^-1" in df.loc["Key parameters", "§4.2"] and "τ=0.1" in df.loc["Key parameters", "§4.2"]
    assert df.loc["Key parameters", "§4.3"] == "d=2, τ=0.1"
    # §4.1: Fig. 2's q range contains the transition at q = 9
    assert df.loc["Key parameters", "§4.1"] == "d=2 or d∈[5..12]" and 5 <= int(prose("Fig. 2: latent")) <= 12


def test_prose_numbers_consistent():
    assert Decimal(prose("Fig. 4: regular-simplex")) == round(Decimal(-1) / Decimal(9), 3)
    assert Decimal(prose("Fig. 3(a): r2")) < Decimal(prose("Fig. 3(a): Procrustes"))
    assert Decimal(prose("Fig. 3(b): global")) < Decimal(prose("Fig. 3(b): local"))
    assert "48" in prose("Fig. 7: latent dimensions").split()
    # the mixed-label optimum (9-simplex x unit square) needs 9 + 2 dimensions
    assert int(prose("Fig. 3(b): smallest q")) == int(prose("Fig. 2: latent")) + 2


def test_simplex_temperature_erratum():
    c = int(prose("Fig. 4: number of classes"))
    printed = soft_supcon_simplex_tau_paper(c, EPS)  # (C-1)/(-C log eps), Cor. 3.9; §4.2 writes (10-1)/10
    assert printed == pytest.approx((10 - 1) / 10)
    assert soft_supcon_beta(printed, EPS) == pytest.approx(1 / c)  # +0.1: not the simplex
    assert round(soft_supcon_beta(printed, EPS), 3) != float(prose("Fig. 4: regular-simplex"))
    corrected = soft_supcon_simplex_tau(c, EPS)
    assert corrected == pytest.approx(10 / 9)
    assert round(soft_supcon_beta(corrected, EPS), 3) == float(prose("Fig. 4: regular-simplex"))


def test_prose_against_table2():
    t2 = read("table2").set_index("setting")
    # App. E's prose (q = 512, MiniLM labels of dimension 384) and App. G's key parameters agree
    assert f"q={prose('App. E: latent dimension')}" in t2.loc["Key parameters", "Appendix E"]
    assert prose("App. E: label dimension of the MiniLM") in t2.loc["Key parameters", "Appendix E"]
    assert f"τ={prose('App. G: X-CLR temperature')}" in t2.loc["Key parameters", "Appendix E"]
    # §4.2's optimiser settings: Adam at 5e-2, full batch, fewer than 20k epochs (= steps at full batch)
    assert t2.loc["LR", "§4.2"] == prose("App. G: Adam learning rate") and t2.loc["Batch size", "§4.2"] == "full"
    assert t2.loc["Epochs", "§4.2"] == "<" + prose("App. G: full-batch Adam budget")


def test_fig3b_range_brackets_the_realisable_dimension():
    lo, hi = int(prose("Fig. 3(b): smallest latent")), int(prose("Fig. 3(b): largest latent"))
    assert lo < int(prose("Fig. 3(b): smallest q where")) < hi  # 7 < 11 < 13: the sweep shows the transition
    assert int(prose("Fig. 3(b): latent dimension of the local")) < lo  # q = 2 lies outside the plotted sweep


def test_thm37_conditions_as_printed():
    # n > 2q + 3 and rank(D) <= q + 2: the proof's (n - 1) - (q + 2) > q is exactly n > 2q + 3
    n_const, rank_const = int(prose("Thm. 3.7: the number")), int(prose("Thm. 3.7: rank(D)"))
    for q in (1, 2, 10):
        n_min = 2 * q + n_const + 1  # the smallest n the theorem admits
        assert (n_min - 1) - (q + rank_const) > q  # the proof's contradiction r > q holds from n_min on ...
        assert not (n_min - 2) - (q + rank_const) > q  # ... and not one point earlier


@pytest.mark.parametrize(("block", "printed"), [
    ("App. D.2", "cos(μc,μc′)=1/(C−1)"),   # the regular simplex's cosine, printed without its minus
    ("Thm 3.7", "‖zi∗−zj∗‖=dij"),          # unsquared, against Def. 3.6's squared distances
    ("Thm 3.7", "sij=exp(−‖zi−zj‖2)"),     # exp() on top of Def. 3.1's exp(s)
    ("App. F.2", "‖zi−zj‖≈‖xi−xj‖/σ"),     # no sqrt(2), with weights exp(-||x_i - x_j||^2 / (2 sigma^2))
    ("Cor. 3.9", "τ≤(C−1)/(−Clogε)"),      # the attainability condition, the same expression as tau*
])
def test_errata_statements_are_printed_as_quoted(block, printed):
    from companion.papers import text

    if text.papers_dir() is None:
        pytest.skip("paper texts not found (../shared/papers)")
    assert printed in text.block("weighted-cl", block)


def test_regular_simplex_cosine_is_negative():
    import numpy as np

    C = 5
    mu = np.eye(C) - 1 / C  # centred one-hot vectors: a regular simplex, sum of the vertices 0
    mu /= np.linalg.norm(mu, axis=1, keepdims=True)
    cos = (mu @ mu.T)[~np.eye(C, dtype=bool)]
    assert np.allclose(cos, -1 / (C - 1)) and np.allclose(mu.sum(0), 0)  # App. D.2 prints +1/(C-1)


def test_cor39_condition_is_the_inverted_threshold():
    c = int(prose("Fig. 4: number of classes"))
    printed = soft_supcon_simplex_tau_paper(c, EPS)  # also Cor. 3.9's attainability bound on tau
    realisable = soft_supcon_simplex_tau(c, EPS)  # largest tau with 1 + tau log eps >= -1/(C-1)
    assert soft_supcon_beta(realisable, EPS) == pytest.approx(-1 / (c - 1))
    assert printed < realisable and soft_supcon_beta(printed, EPS) > 0  # printed bound stops short, at beta = +1/C
