"""The one stats module: intervals and tests against scipy and hand computations, and every verdict rule shown
producing every verdict it can give (a criterion that cannot fail is a defect)."""

import math

import numpy as np
import pytest
from scipy import stats as sp

from companion import stats
from companion.results import Ledger, holds, within


# --------------------------------------------------------------------------------------------- comparisons
def test_paired_matches_scipy_and_hand_computation():
    a = [0.80, 0.82, 0.79, 0.85, 0.81]
    b = [0.78, 0.80, 0.79, 0.82, 0.77]
    cmp = stats.paired(a, b)
    d = np.subtract(a, b)
    assert cmp.n == 5 and cmp.values == pytest.approx(tuple(d))
    assert cmp.estimate == pytest.approx(d.mean())
    assert cmp.sd == pytest.approx(d.std(ddof=1))
    half = sp.t.ppf(0.975, 4) * d.std(ddof=1) / math.sqrt(5)
    assert cmp.ci == pytest.approx((d.mean() - half, d.mean() + half))
    assert cmp.p == pytest.approx(sp.ttest_rel(a, b).pvalue)
    assert cmp.p_wilcoxon == pytest.approx(sp.wilcoxon(d).pvalue)


def test_sample_matches_one_sample_t():
    values = [0.1, -0.05, 0.2, 0.15]
    cmp = stats.sample(values)
    assert cmp.p == pytest.approx(sp.ttest_1samp(values, 0.0).pvalue)
    lo, hi = sp.t.interval(0.95, 3, loc=np.mean(values), scale=sp.sem(values))
    assert cmp.ci == pytest.approx((lo, hi))


def test_one_seed_has_no_interval_and_constant_differences_give_a_point():
    assert stats.sample([0.3]).ci is None
    cmp = stats.paired([1.0, 2.0, 3.0], [0.5, 1.5, 2.5])
    assert cmp.ci == (0.5, 0.5) and cmp.p == 0.0


def test_holm_hand_example_and_monotone():
    # sorted p: 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> kept at 0.06 by monotonicity)
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


@pytest.mark.parametrize("bad", [[], [1.0, float("nan")], ["a", "b"]])
def test_bad_values_raise_one_line_errors(bad):
    with pytest.raises((ValueError, TypeError)):
        stats.sample(bad)


def test_paired_needs_one_value_per_seed_on_both_sides():
    with pytest.raises(ValueError, match="one value per seed"):
        stats.paired([1, 2, 3], [1, 2])


def test_paired_table_has_holm_column():
    frame = stats.paired_table({"A": [1.0, 1.1, 1.2], "B": [0.9, 1.0, 1.0], "C": [1.0, 1.1, 1.25]},
                               [("A", "B"), ("A", "C")])
    assert list(frame["A"]) == ["A", "A"] and "p (Holm)" in frame
    assert (frame["p (Holm)"] >= frame["p (t)"]).all()


# --------------------------------------------------------------------------------------------- verdict rules
CLEAR_UP = stats.sample([1.0, 1.1, 0.9, 1.05, 0.95])      # CI well above 0, around 1
CLEAR_DOWN = stats.sample([-1.0, -1.1, -0.9, -1.05])      # CI well below 0
NOISY = stats.sample([0.5, -0.4, 0.6, -0.5, 0.1])         # CI covers 0 and about ±0.6
TIGHT_ZERO = stats.sample([0.01, -0.01, 0.0, 0.005, -0.005])  # CI covers 0, excludes ±0.5


@pytest.mark.parametrize("ours, criterion, verdict", [
    (CLEAR_UP, stats.direction(sign=1), "reproduced"),
    (CLEAR_UP, stats.direction(paper_effect=1.0, tol=0.2, tol_reason="test"), "reproduced"),
    (CLEAR_UP, stats.direction(paper_effect=3.0, tol=0.2, tol_reason="test"), "partly"),
    (CLEAR_DOWN, stats.direction(sign=1), "not reproduced"),
    (TIGHT_ZERO, stats.direction(paper_effect=0.5), "not reproduced"),
    (NOISY, stats.direction(paper_effect=0.5), "inconclusive"),
    (NOISY, stats.direction(sign=-1), "inconclusive"),
    (CLEAR_UP, stats.direction(sign=1, trained=False), "inconclusive"),
    (stats.sample([1.0]), stats.direction(sign=1), "inconclusive"),
])
def test_direction_gives_every_verdict(ours, criterion, verdict):
    judgement = criterion.judge(ours)
    assert judgement.verdict == verdict
    if verdict in ("inconclusive", "not testable", "partly"):
        assert judgement.reason


@pytest.mark.parametrize("ours, verdict", [
    (stats.sample([77.0, 77.1, 76.9, 77.05]), "reproduced"),
    (stats.sample([74.0, 74.1, 73.9, 74.05]), "not reproduced"),
    (stats.sample([77.0, 78.5, 75.5]), "inconclusive"),
])
def test_level_gives_every_verdict(ours, verdict):
    assert stats.level(77.08, tol=0.5, tol_reason="paper seed sd").judge(ours).verdict == verdict


def test_regime_caps_the_verdict_and_checks_pass_or_fail():
    up = stats.Judgement("reproduced")
    assert stats.apply_regime(up, "MiniLM").verdict == "partly"
    down = stats.Judgement("not reproduced", "CI below 0")
    capped = stats.apply_regime(down, "MiniLM")
    assert capped.verdict == "inconclusive" and "MiniLM" in capped.reason
    assert stats.apply_regime(up, None) == up
    assert stats.as_check(up).verdict == "passed"
    assert stats.as_check(stats.Judgement("partly")).verdict == "failed"
    assert stats.as_check(down).verdict == "failed"


def test_inconclusive_needs_a_reason_and_exact_criteria_refuse_seed_comparisons():
    with pytest.raises(ValueError):
        stats.inconclusive(" ")
    with pytest.raises(TypeError, match="seed comparison"):
        within(1.0, 0.1).judge(CLEAR_UP)
    with pytest.raises(TypeError, match="Comparison"):
        stats.direction(sign=1).judge(0.5)


@pytest.mark.parametrize("kwargs", [{}, {"sign": 2}, {"paper_effect": 1.0, "tol": 0.1},
                                    {"paper_effect": 1.0, "sign": -1}, {"sign": 1, "tol": 0.1, "tol_reason": "x"}])
def test_direction_rejects_ill_posed_rules(kwargs):
    with pytest.raises(ValueError):
        stats.direction(**kwargs)


# --------------------------------------------------------------------------------------------- the ledger uses them
def test_ledger_records_kind_source_stats_reason_and_regime(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path))
    ledger = Ledger("angle", "99-test", profile="smoke", seeds=[0, 1, 2])
    v = ledger.claim("gap", "A beats B", kind="paper", source="Table 4: 86.26 - 85.28", paper_value=0.98,
                     ours=stats.paired([1.0, 1.2, 1.1], [0.1, 0.2, 0.15]),
                     criterion=stats.direction(paper_effect=0.98), regime="MiniLM is already trained")
    assert v == "partly"
    v = ledger.claim("chk", "parity", kind="check", ours=True, criterion=holds())
    assert v == "passed"
    v = ledger.claim("noisy", "noisy", kind="beyond", ours=NOISY, criterion=stats.direction(sign=1))
    assert v == "inconclusive"
    records = {c["id"]: c for c in ledger.to_dict()["claims"]}
    assert records["gap"]["stats"]["n"] == 3 and len(records["gap"]["stats"]["ci"]) == 2
    assert records["gap"]["regime"] == "MiniLM is already trained"
    assert records["noisy"]["reason"] == "the CI covers zero"
    assert ledger.to_dict()["schema"] == 2


@pytest.mark.parametrize("kwargs, error", [
    ({"kind": "paper"}, "source"),
    ({"kind": "evidence", "source": "Table 1"}, "kind"),
    ({"kind": "paper", "source": "Table 1", "regime": " "}, "regime"),
])
def test_ledger_rejects_claims_without_kind_or_source(tmp_path, monkeypatch, kwargs, error):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path))
    ledger = Ledger("angle", "99-test", profile="smoke")
    with pytest.raises(ValueError, match=error):
        ledger.claim("x", "x", paper_value=1, ours=1.0, criterion=within(1, 0.1), **kwargs)
