"""The helpers of the synthesis notebooks: the errata notebook's readers, average checks and summary figure
(companion.papers.synthesis.errata) and the zoo's evaluation through the trained layers and its table
(companion.papers.synthesis.zoo)."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest
import torch

from companion.papers.synthesis import errata, zoo

matplotlib.use("Agg")


# --------------------------------------------------------------------------------------------- errata (00)
def test_stated_reads_the_printed_number():
    statements = pd.DataFrame({"value": ["30°", "3,063", "3k", "−0.111"]},
                              index=pd.Index(["deg", "count", "kilo", "neg"], name="id"))
    assert [errata.stated(statements, k) for k in statements.index] == [30.0, 3063.0, 3000.0, -0.111]
    with pytest.raises(KeyError, match="missing"):
        errata.stated(statements, "missing")


def test_paper_table_keeps_cells_as_printed(tmp_path):
    (tmp_path / "data" / "p").mkdir(parents=True)
    (tmp_path / "data" / "p" / "t.csv").write_text("# a comment line\nmodel,Avg.,x\nA,01.50,\nB,NA,2\n",
                                                  encoding="utf-8")
    table = errata.paper_table(tmp_path / "data", "p", "t.csv")  # the checkout's data folder, as the notebook
    assert table["Avg."].tolist() == ["01.50", "NA"]  # strings, not parsed; "NA" is not a missing value
    assert table["x"].tolist() == ["", "2"]  # an empty cell stays empty


def _averages():
    return pd.DataFrame({"table": ["t1", "t1", "t1", "t2", "t2"], "row": ["a", "b", "c", "d", "e"],
                         "off": [False, True, True, False, False]})


def test_off_rows_and_matches_elsewhere():
    averages = _averages()
    assert errata.off_rows(averages, "t1") == ["b", "c"]
    assert errata.off_rows(averages, "t2") == []
    assert errata.matches_elsewhere(averages, "t2") is True
    assert errata.matches_elsewhere(averages, "t1", "t2") is False
    assert errata.matches_elsewhere(averages, "none") is True  # no row of those tables is off


def test_plot_at_a_glance_draws_three_panels_and_advances_the_generator():
    index = pd.MultiIndex.from_product([["balanced", "imbalanced 1:2:...:10"], ["printed tau*", "corrected tau*"]])
    measured = pd.Series([0.1, -0.111, 0.1, -0.111], index=index)
    averages = pd.DataFrame({"table": ["a", "a", "b"], "|printed - mean|": [0.0, 0.03, 0.004],
                             "off": [False, True, False]})
    gen = torch.Generator().manual_seed(0)
    fig = errata.plot_at_a_glance(eps=math.exp(-1), simplex=-1 / 9, tau_paper=0.9, tau_fixed=10 / 9,
                                  measured=measured, averages=averages, gen=gen, half_dim=4)
    shown = [ax for ax in fig.axes if ax.get_visible()]  # panel_grid hides the unused cell of its 2 x 2 grid
    assert len(shown) == 3 and fig.axes[1].get_title() == "AnglE Eq. 6: gradient"
    literal, code = (line.get_ydata() for line in fig.axes[1].get_lines())
    assert np.allclose(literal, 0.0, atol=1e-9) and (code > 1e-6).all()  # Eq. 6 as printed has no gradient
    ref = torch.Generator().manual_seed(0)
    torch.randn(2, 8, generator=ref, dtype=torch.float64)  # the figure draws one plane from gen
    assert torch.equal(gen.get_state(), ref.get_state())


# --------------------------------------------------------------------------------------------- zoo (01)
class _Upper(torch.nn.Module):
    def __init__(self, seed):
        super().__init__()
        torch.manual_seed(seed)
        self.layers = torch.nn.Linear(3, 2)

    def encode(self, texts):
        return self.layers(torch.ones(len(texts), 3))


def test_evaluate_layers_copies_the_trained_layers(monkeypatch):
    seen = []

    def fake_evaluate(encode, suite, kmeans_seed=0, keep=None):
        seen.append((encode(["a", "b"]), suite, kmeans_seed, keep))
        return {"avg": 1.0}

    monkeypatch.setattr(zoo, "evaluate", fake_evaluate)
    evaluator, model = _Upper(0).train(), _Upper(1)
    before = evaluator.encode(["x"]).detach().clone()
    assert zoo.evaluate_layers(evaluator, "suite") == {"avg": 1.0}
    assert torch.allclose(seen[0][0], before.expand(2, -1), atol=1e-6) and not evaluator.training  # untrained: layers as they were
    zoo.evaluate_layers(evaluator, "suite", model, kmeans_seed=3)
    assert torch.equal(evaluator.layers.weight, model.layers.weight) and seen[1][2] == 3
    assert torch.allclose(seen[1][0], model.encode(["a", "b"]))
    kept = {}
    zoo.evaluate_layers(evaluator, "suite", model, keep=kept)
    assert seen[2][3] is kept and seen[0][3] is None  # the dict for the movement record is passed on


def test_zoo_table_by_hand():
    runs = pd.DataFrame({"model": ["SimCSE", "SimCSE", "SupCon", "SupCon"], "seed": [0, 1, 0, 1],
                         "avg": [70.0, 72.0, 60.0, 60.0], "V": [0.2, 0.4, 0.5, 0.5]})
    table = zoo.zoo_table(runs, {"avg": 71.234, "V": 0.25}, ["avg", "V"], ["SimCSE", "SupCon"])
    assert list(table.index) == ["untrained MiniLM", "SimCSE", "SupCon"]
    assert list(table.columns) == ["data", "avg", "V"]
    assert table.loc["SimCSE", "avg"] == "71.00 ± 1.41" and table.loc["SimCSE", "V"] == "0.300 ± 0.141"
    assert table.loc["SupCon", "avg"] == "60.00 ± 0.00"
    assert table.loc["untrained MiniLM"].tolist() == ["-", "71.23", "0.250"]
    assert table.loc["SupCon", "data"] == "emolit" and table.loc["SimCSE", "data"] == "wiki"
    one_seed = zoo.zoo_table(runs[runs.seed == 0], {"avg": 1.0, "V": 0.1}, ["avg"], ["SimCSE"])
    assert one_seed.loc["SimCSE", "avg"] == "70.00"  # one seed: no std
