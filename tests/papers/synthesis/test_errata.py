"""companion.papers.synthesis.errata: printed numbers, printed averages against row means, SimACE's best-case loss."""

import math

import pandas as pd
import pytest

from companion.papers.synthesis import errata


def test_as_number_reads_printed_forms():
    assert errata.as_number("30°") == 30.0 and errata.as_number("3,063") == 3063.0
    assert errata.as_number("3k") == 3000.0 and errata.as_number("−0.111") == -0.111
    assert errata.as_number(12) == 12.0
    with pytest.raises(ValueError):
        errata.as_number("N/A")


def test_average_mismatches_flags_only_beyond_rounding():
    t = pd.DataFrame({"model": ["ok", "edge", "off", "lost"], "a": [1.0, 1.0, 1.0, 1.0], "b": [2.0, 2.01, 2.0, 2.0],
                      "Avg.": ["1.50", "1.51", "1.53", ""]})
    out = errata.average_mismatches(t, ["a", "b"], "Avg.", ["model"]).set_index("model")
    assert list(out.index) == ["ok", "edge", "off"]  # the empty average is skipped, not invented
    assert out["off"].tolist() == [False, False, True]
    assert out.loc["off", "|printed - mean|"] == pytest.approx(0.03)


def test_simace_best_case_loss_degrees_vs_radians():
    n, tau = 64, 0.06
    assert errata.simace_best_case_loss(math.radians(10), n, tau) < 1e-3
    assert errata.simace_best_case_loss(10.0, n, tau) > math.log(n)  # 10 rad: worse than a constant embedding
