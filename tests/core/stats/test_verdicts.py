"""companion.stats.verdicts: every verdict rule shown producing every verdict it can give (a criterion that cannot
fail is a defect), the tolerance policy, the validity checks and the plateau, and the ledger that records them."""

import numpy as np
import pytest
from scipy import stats as sp

from companion import stats
from companion.results import Ledger, holds, within

CLEAR_UP = stats.sample([1.0, 1.1, 0.9, 1.05, 0.95])      # CI well above 0, around 1
CLEAR_DOWN = stats.sample([-1.0, -1.1, -0.9, -1.05])      # CI well below 0
NOISY = stats.sample([0.5, -0.4, 0.6, -0.5, 0.1])         # CI covers 0 and about ±0.6
TIGHT_ZERO = stats.sample([0.01, -0.01, 0.0, 0.005, -0.005])  # CI covers 0, excludes ±0.5
WIDE = stats.sample([3.0, -3.0, 2.5])                      # CI covers 0 and ±5; MDE far above 0.5
_Z = np.array([-1.6, -1.1, -0.7, -0.4, -0.2, 0.0, 0.1, 0.3, 0.5, 0.8, 1.1, 1.2])
MID = stats.sample(0.25 + 0.5 * (_Z - _Z.mean()) / _Z.std(ddof=1))  # 12 values: CI ≈ [-0.07, 0.57], MDE ≈ 0.45


@pytest.mark.parametrize("ours, criterion, verdict, why", [
    (CLEAR_UP, stats.direction(sign=1), "reproduced", None),
    (CLEAR_UP, stats.direction(paper_effect=1.0), "reproduced", None),
    (CLEAR_UP, stats.direction(paper_effect=1.0, paper_se=0.1), "reproduced", None),
    (CLEAR_UP, stats.direction(paper_effect=3.0), "not reproduced", "negligible"),  # ours 1 inside ±1.5
    (CLEAR_UP, stats.direction(paper_effect=3.0, paper_se=0.2), "partly", "smaller"),  # 1 beyond ±0.392
    (CLEAR_UP, stats.direction(paper_effect=0.3), "partly", "larger"),       # ours 1 against 0.3 ± 0.15
    (CLEAR_DOWN, stats.direction(sign=1), "not reproduced", "reversed"),
    (CLEAR_DOWN, stats.direction(paper_effect=5.57), "not reproduced", "reversed"),
    (TIGHT_ZERO, stats.direction(paper_effect=0.5), "not reproduced", "negligible"),
    (MID, stats.direction(paper_effect=0.5), "inconclusive", "covers both"),
    (NOISY, stats.direction(paper_effect=1.0), "inconclusive", "neither the effect nor its absence"),
    (WIDE, stats.direction(paper_effect=0.5), "inconclusive", "underpowered"),
    (NOISY, stats.direction(sign=-1), "inconclusive", "covers 0"),
    (CLEAR_UP, stats.direction(sign=1, trained=False), "inconclusive", "did not train"),
    (stats.sample([1.0]), stats.direction(sign=1), "inconclusive", "one seed"),
])
def test_direction_gives_every_verdict(ours, criterion, verdict, why):
    judgement = criterion.judge(ours)
    assert judgement.verdict == verdict
    if why is not None:
        assert why in judgement.reason
    if verdict in ("inconclusive", "not testable", "partly", "not reproduced"):
        assert judgement.reason


def test_a_firm_effect_inside_the_negligible_band_is_negligible_not_partly():
    # hand values: paper +1.0, tolerance 0.5 (half the effect, no spread printed); ours 0.1 ± 0.01 excludes 0
    firm_tiny = stats.sample([0.09, 0.10, 0.11, 0.10, 0.10])
    judgement = stats.direction(paper_effect=1.0).judge(firm_tiny)
    assert judgement.verdict == "not reproduced" and "negligible" in judgement.reason
    # the same estimate measured less precisely: CI covers 0 but stays inside ±0.5 -> the same verdict
    loose_tiny = stats.sample([-0.2, 0.1, 0.4, 0.1, 0.1])
    assert stats.direction(paper_effect=1.0).verdict(loose_tiny) == "not reproduced"


def test_an_estimate_inside_the_band_with_a_ci_reaching_beyond_is_inconclusive():
    # ours 0.3, CI about [0.12, 0.48] with n=3 and sd 0.07 -> t(0.975, 2) * 0.07 / sqrt(3) = 0.174
    ours = stats.sample([0.23, 0.30, 0.37])
    lo, hi = ours.interval
    assert 0 < lo < 0.5 < hi or hi < 0.5     # the interval's position decides; assert the rule on both readings
    verdict = stats.direction(paper_effect=1.0).judge(ours)
    if hi <= 0.5:
        assert verdict.verdict == "not reproduced"
    else:
        assert verdict.verdict == "inconclusive" and "inside the negligible band" in verdict.reason
    wide = stats.sample([0.1, 0.3, 0.5])         # CI [-0.20, 0.80]: covers 0 and 0.5's edge
    assert stats.direction(paper_effect=1.0, paper_se=0.1).verdict(wide) == "inconclusive"
    firm_inside = stats.sample([0.2, 0.3, 0.4, 0.3, 0.3, 0.25, 0.35])  # mean 0.3, CI ≈ [0.23, 0.37]
    assert stats.direction(paper_effect=2.0).judge(firm_inside).verdict == "not reproduced"   # inside ±1.0
    straddle = stats.sample([0.1, 0.9, 0.5, 0.2, 0.8])   # mean 0.5, CI ≈ [0.07, 0.93], band ±0.6
    judgement = stats.direction(paper_effect=1.2).judge(straddle)
    assert judgement.verdict == "inconclusive" and "inside the negligible band" in judgement.reason


def test_magnitude_rule_is_monotone_in_precision():
    # one estimate (0.2 against the paper's 1.0, band ±0.5) measured ever more precisely never reads partly
    verdicts = []
    for spread in (0.8, 0.4, 0.2, 0.1, 0.05, 0.01):
        ours = stats.sample([0.2 - spread, 0.2, 0.2 + spread, 0.2 - spread / 2, 0.2 + spread / 2])
        verdicts.append(stats.direction(paper_effect=1.0).verdict(ours))
    assert "partly" not in verdicts and "reproduced" not in verdicts
    assert verdicts[-1] == "not reproduced"
    # once negligible, more precision keeps it negligible
    first = verdicts.index("not reproduced")
    assert all(v == "not reproduced" for v in verdicts[first:])


def test_when_the_papers_uncertainty_exceeds_its_effect_the_reason_says_so():
    # paper +0.2 with SE 0.25 -> tolerance 0.49 > 0.2: only the direction is tested
    judgement = stats.direction(paper_effect=0.2, paper_se=0.25).judge(stats.sample([0.30, 0.32, 0.28, 0.31]))
    assert judgement.verdict == "reproduced" and "only the direction" in judgement.reason
    noisy = stats.direction(paper_effect=0.2, paper_se=0.25).judge(NOISY)
    assert noisy.verdict == "inconclusive" and "exceeds its effect" in noisy.reason
    assert stats.direction(paper_effect=0.2, paper_se=0.25).verdict(CLEAR_DOWN) == "not reproduced"


def test_direction_is_symmetric_in_the_sign_of_the_effect():
    for ours, effect in [(CLEAR_UP, 1.0), (CLEAR_UP, 3.0), (TIGHT_ZERO, 0.5), (NOISY, 0.5), (WIDE, 0.5),
                         (CLEAR_DOWN, 1.0)]:
        mirrored = stats.sample([-v for v in ours.values])
        a = stats.direction(paper_effect=effect).judge(ours)
        b = stats.direction(paper_effect=-effect).judge(mirrored)
        assert a.verdict == b.verdict


def test_tolerance_boundary_is_inclusive_and_one_policy():
    ours = stats.paired([1.5, 1.5, 1.5], [0.0, 0.0, 0.0])          # a point CI at 1.5
    assert stats.direction(paper_effect=1.0).verdict(ours) == "reproduced"   # |1.5 - 1| = 0.5 = tol
    assert stats.direction(paper_effect=0.99).verdict(ours) == "partly"      # 0.51 > 0.495
    assert stats.tolerance(2.0).value == pytest.approx(stats.TOLERANCE_FRACTION * 2.0)
    assert stats.tolerance(-2.0).value == pytest.approx(stats.TOLERANCE_FRACTION * 2.0)
    assert stats.tolerance(2.0, paper_se=0.1).value == pytest.approx(stats.TOLERANCE_SE * 0.1)
    with pytest.raises(ValueError):
        stats.tolerance(0.0)
    with pytest.raises(ValueError):
        stats.tolerance(1.0, paper_se=-0.1)


def test_absence_needs_the_paper_effect_outside_the_band():
    # the CI sits inside ±tol, but with a paper effect of 0.5 the band is ±0.25 and the effect lies outside it
    assert stats.direction(paper_effect=0.5).verdict(TIGHT_ZERO) == "not reproduced"
    # a tight CI at zero against a paper effect the tolerance swallows (se-based band wider than the effect)
    j = stats.direction(paper_effect=0.02, paper_se=0.05).judge(TIGHT_ZERO)
    assert j.verdict == "inconclusive"


def test_criterion_text_is_generated_from_the_rule():
    crit = stats.direction(paper_effect=2.0)
    assert "tolerance ±1" in crit.description and "not reproduced" in crit.description
    assert crit.params == {"paper_effect": 2.0, "sign": 1, "tol": 1.0, "tol_reason": crit.params["tol_reason"],
                           "trained": True}
    assert "covering 0: inconclusive" in stats.direction(sign=-1).description


@pytest.mark.parametrize("ours, verdict, why", [
    (stats.sample([77.0, 77.1, 76.9, 77.05]), "reproduced", None),
    (stats.sample([74.0, 74.1, 73.9, 74.05]), "not reproduced", "outside"),
    (stats.sample([77.3, 77.5, 77.4]), "inconclusive", "straddles"),
    (stats.sample([77.0, 78.5, 75.5]), "inconclusive", "underpowered"),
    (stats.sample([77.0]), "inconclusive", "one seed"),
])
def test_level_gives_every_verdict(ours, verdict, why):
    judgement = stats.level(77.08, tol=0.5, tol_reason="paper seed sd").judge(ours)
    assert judgement.verdict == verdict
    if why:
        assert why in judgement.reason


def test_the_regime_never_changes_a_verdict(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path))
    for ours, crit in [(CLEAR_DOWN, stats.direction(paper_effect=1.0)), (CLEAR_UP, stats.direction(paper_effect=1.0)),
                       (TIGHT_ZERO, stats.direction(paper_effect=0.5)), (NOISY, stats.direction(paper_effect=0.5))]:
        ledger = Ledger("angle", "99-test", profile="smoke", seeds=[0])
        plain = ledger.claim("a", "x", kind="paper", source="Table 1", ours=ours, criterion=crit)
        scaled = ledger.claim("b", "x", kind="paper", source="Table 1", ours=ours, criterion=crit,
                              regime="MiniLM top layer, 640 steps")
        assert plain == scaled == crit.verdict(ours)
        a, b = ledger.to_dict()["claims"]
        assert a["regime"] == "paper setting" and b["regime"] == "scaled: MiniLM top layer, 640 steps"
        assert a.get("reason") == b.get("reason")


def test_checks_pass_or_fail_and_errata_are_confirmed_never_reproduced():
    up = stats.Judgement("reproduced")
    down = stats.Judgement("not reproduced", "CI below 0")
    assert stats.as_check(up).verdict == "passed"
    assert stats.as_check(stats.Judgement("partly")).verdict == "failed"
    assert stats.as_check(down).verdict == "failed"
    assert stats.as_erratum(up).verdict == "confirmed"
    assert stats.as_erratum(down).verdict == "not confirmed"
    assert stats.as_erratum(stats.Judgement("partly", "a reading")).verdict == "partly"
    # a minor erratum holds as well: only its status differs
    assert stats.as_erratum(up, minor=True).verdict == "minor"
    assert stats.as_erratum(down, minor=True).verdict == "not confirmed"
    assert "minor" in stats.ERRATUM_VERDICTS


def test_validity_gate_makes_a_claim_inconclusive_with_the_failed_check(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path))
    ledger = Ledger("angle", "99-test", profile="smoke", seeds=[0])
    ok = stats.Validity("trained", True, "loss fell from 2.1 to 0.4")
    flat = stats.Validity("plateau", False, "slope +0.01/step")
    v = ledger.claim("a", "x", kind="paper", source="Table 1", ours=CLEAR_DOWN, criterion=stats.direction(sign=1),
                     validity=[ok, flat])
    assert v == "inconclusive"
    record = ledger.to_dict()["claims"][0]
    assert record["reason"] == "budget: slope +0.01/step" and len(record["validity"]) == 2
    assert ledger.claim("b", "x", kind="paper", source="Table 1", ours=CLEAR_DOWN,
                        criterion=stats.direction(sign=1), validity=ok) == "not reproduced"
    with pytest.raises(TypeError):
        ledger.claim("c", "x", kind="paper", source="Table 1", ours=CLEAR_UP, criterion=stats.direction(sign=1),
                     validity=[True])
    with pytest.raises(ValueError):
        stats.Validity("plateau", True, " ")


def test_plateau_reads_the_slope_of_the_last_third():
    steps = np.arange(0, 640, 64)
    rising = 0.5 + 0.0005 * steps                      # still climbing: +0.1 over the last third
    flat = np.minimum(0.5 + 0.002 * steps, 0.8) + np.array([0.001, -0.001] * 5)
    assert not stats.plateau(steps, rising).passed
    assert stats.plateau(steps, flat).passed
    # a rising curve still passes when its gain is small against the compared gap
    assert stats.plateau(steps, rising, gap=1.0).passed
    assert not stats.plateau(steps, rising, gap=0.2).passed
    assert "slope" in stats.plateau(steps, rising).detail
    # an exactly constant tail is a plateau (linregress gives no finite standard error there)
    assert stats.plateau(steps, np.full(steps.size, 0.7)).passed
    assert not stats.plateau(steps, 0.001 * steps).passed          # an exact line with a slope is not
    with pytest.raises(ValueError):
        stats.plateau([0, 1], [0.1, 0.2])
    with pytest.raises(ValueError):
        stats.plateau([0, 1, 2], [0.1, 0.2])


def test_inconclusive_needs_a_reason_and_exact_criteria_refuse_seed_comparisons():
    with pytest.raises(ValueError):
        stats.inconclusive(" ")
    with pytest.raises(TypeError, match="seed comparison"):
        within(1.0, 0.1).judge(CLEAR_UP)
    with pytest.raises(TypeError, match="Comparison"):
        stats.direction(sign=1).judge(0.5)


@pytest.mark.parametrize("kwargs", [{}, {"sign": 2}, {"paper_effect": 0.0}, {"paper_effect": float("inf")},
                                    {"paper_effect": 1.0, "sign": -1}, {"sign": 1, "paper_se": 0.1}])
def test_direction_rejects_ill_posed_rules(kwargs):
    with pytest.raises(ValueError):
        stats.direction(**kwargs)


def test_regime_label():
    assert stats.regime_label(None) == "paper setting"
    assert stats.regime_label("scaled: x") == "scaled: x"
    with pytest.raises(ValueError):
        stats.regime_label("  ")


def test_ledger_records_kind_source_stats_reason_and_regime(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path))
    ledger = Ledger("angle", "99-test", profile="smoke", seeds=[0, 1, 2])
    v = ledger.claim("gap", "A beats B", kind="paper", source="Table 4: 86.26 - 85.28", paper_value=0.98,
                     ours=stats.paired([1.0, 1.2, 1.1], [0.1, 0.2, 0.15]),
                     criterion=stats.direction(paper_effect=0.98), regime="MiniLM is already trained")
    assert v == "reproduced"      # the regime is shown beside the verdict, never caps it
    v = ledger.claim("chk", "parity", kind="check", ours=True, criterion=holds())
    assert v == "passed"
    v = ledger.claim("noisy", "noisy", kind="beyond", ours=NOISY, criterion=stats.direction(sign=1))
    assert v == "inconclusive"
    records = {c["id"]: c for c in ledger.to_dict()["claims"]}
    assert records["gap"]["stats"]["n"] == 3 and len(records["gap"]["stats"]["ci"]) == 2
    assert records["gap"]["regime"] == "scaled: MiniLM is already trained"
    assert records["gap"]["stats"]["mde"] > 0
    assert "covers 0" in records["noisy"]["reason"] and records["noisy"]["regime"] == "paper setting"
    assert "regime" not in records["chk"]
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


# --------------------------------------------------------------------------------------------- boundaries (mutation tests)
def test_direction_boundaries_of_absence_and_power(comparison):
    # CI exactly on the band edges [-tol, +tol] with a paper effect outside: absent
    effect = 1.0                                            # tol 0.5
    assert stats.direction(paper_effect=effect).judge(comparison((-0.5, 0.5), sd=0.01)).verdict == "not reproduced"
    assert stats.direction(paper_effect=effect).judge(comparison((-0.50001, 0.5), sd=0.01)).verdict == "inconclusive"
    # a paper effect exactly at the tolerance is not "outside the band" (the se-based tolerance can equal it)
    j = stats.direction(paper_effect=0.98, paper_se=0.5).judge(comparison((-0.9, 0.9), sd=0.01))
    assert j.verdict == "inconclusive" and "underpowered" not in j.reason
    # underpowered exactly when the MDE exceeds the paper's effect
    wide = comparison((-0.6, 0.9), sd=1.0, n=3)                   # MDE about 3.26 > 1
    j = stats.direction(paper_effect=effect).judge(wide)
    assert j.verdict == "inconclusive" and j.reason.startswith("underpowered") and "seeds" in j.reason
    need = stats.n_for_power(1.0, effect)
    assert f"about {need} seeds" in j.reason
    powered = comparison((-0.6, 0.9), sd=0.2, n=3)                # MDE about 0.65 < 1
    assert not stats.direction(paper_effect=effect).judge(powered).reason.startswith("underpowered")


def test_direction_reasons_name_the_side_and_the_magnitude(comparison):
    big = stats.direction(paper_effect=0.3).judge(CLEAR_UP)
    small = stats.direction(paper_effect=3.0, paper_se=0.2).judge(CLEAR_UP)
    assert "larger" in big.reason and "smaller" in small.reason
    at = stats.direction(paper_effect=1.0).judge(comparison((0.9, 1.1), estimate=1.0))
    assert at.verdict == "reproduced" and at.reason is None
    assert "did not train" not in stats.direction(paper_effect=1.0).description
    assert "did not train" in stats.direction(paper_effect=1.0, trained=False).description
    assert stats.direction(paper_effect=0.5, sign=1).params["sign"] == 1      # a small effect with its sign
    assert stats.direction(paper_effect=-0.5, sign=-1).params["sign"] == -1
    crit = stats.direction(paper_effect=1.0)
    assert crit.name == "direction" and stats.level(1.0, tol=0.1, tol_reason="r").name == "level"
    assert stats.level(1.0, tol=0.1, tol_reason="r").params == {"paper_value": 1.0, "tol": 0.1, "tol_reason": "r"}


def test_level_band_edges_are_inside(comparison):
    crit = stats.level(1.0, tol=0.5, tol_reason="r")
    assert crit.judge(comparison((0.5, 1.5))).verdict == "reproduced"
    assert crit.judge(comparison((1.5000001, 2.0))).verdict == "not reproduced"
    assert crit.judge(comparison((0.0, 0.4999999))).verdict == "not reproduced"
    assert crit.judge(comparison((1.5, 2.0))).verdict == "inconclusive"            # touching the edge is not outside
    assert crit.judge(comparison((0.0, 0.5))).verdict == "inconclusive"
    # a CI exactly as wide as the band that straddles it is not "underpowered"
    assert "straddles" in crit.judge(comparison((0.6, 1.6))).reason
    assert stats.level(1.0, tol=0.0, tol_reason="exact").judge(comparison((1.0, 1.0))).verdict == "reproduced"
    for bad in ({"tol": -0.1, "tol_reason": "r"}, {"tol": 0.1, "tol_reason": ""}):
        with pytest.raises(ValueError):
            stats.level(1.0, **bad)
    with pytest.raises(ValueError):
        stats.level(float("nan"), tol=0.1, tol_reason="r")


def test_a_printed_spread_gives_a_95_percent_normal_tolerance():
    """With the paper's SE the tolerance is the half-width of a 95 % normal interval: z = 1.959964 (the 97.5 %
    normal quantile, written out here) times the SE; the policy rounds z to 1.96, within 2e-5 relative."""
    for se in (0.25, 0.1, 0.0317):
        assert stats.tolerance(2.0, paper_se=se).value == pytest.approx(1.959964 * se, rel=5e-5)
    assert stats.tolerance(2.0, paper_se=0.25).reason.startswith("1.96 ")
    # the rule reads it: a point estimate 0.45 above a paper effect of 1.0 with SE 0.25 lies inside 0.49
    point = stats.paired([1.45, 1.45, 1.45], [0.0, 0.0, 0.0])
    assert stats.direction(paper_effect=1.0, paper_se=0.25).verdict(point) == "reproduced"
    assert stats.direction(paper_effect=1.0, paper_se=0.2).verdict(point) == "partly"   # 0.45 > 0.392


def test_tolerance_needs_a_positive_se_and_always_says_why():
    with pytest.raises(ValueError):
        stats.tolerance(1.0, paper_se=0.0)
    assert stats.tolerance(1.0, paper_se=0.1).reason and stats.tolerance(1.0).reason
    assert stats.tolerance(1.0, paper_se=0.1234567).value == pytest.approx(stats.TOLERANCE_SE * 0.1234567, abs=1e-6)


def test_plateau_bounds_and_the_last_third():
    for tail in (0.0, 1.5):
        with pytest.raises(ValueError):
            stats.plateau(range(9), range(9), tail=tail)
    with pytest.raises(ValueError):
        stats.plateau(range(9), range(9), fraction=-0.1)
    assert stats.plateau(range(9), [0, 1, 2, 3, 4, 5, 6, 7, 8], tail=1.0, fraction=0.0).passed is False
    # a steep climb up to step 6, then flat from step 6 on: the last third (steps 6-9) is flat
    steps = list(range(10))
    curve = [0, 1, 2, 3, 4, 5, 6, 6.01, 5.99, 6]
    assert stats.plateau(steps, curve).passed
    assert stats.plateau(steps[::-1], curve[::-1]).passed           # the order of the points does not matter
    assert not stats.plateau(steps, curve, tail=1.0).passed         # the whole curve includes the climb
    # the slope interval is the t interval of the least-squares slope
    x, y = np.arange(12.0), np.array([0.0, 0.2, 0.1, 0.4, 0.3, 0.5, 0.45, 0.6, 0.58, 0.7, 0.66, 0.8])
    fit = sp.linregress(x[x >= 11 * (2 / 3)], y[x >= 11 * (2 / 3)])
    half = sp.t.ppf(0.975, (x >= 11 * (2 / 3)).sum() - 2) * fit.stderr
    detail = stats.plateau(x, y).detail
    assert f"[{fit.slope - half:+.3g}, {fit.slope + half:+.3g}]" in detail
    # the gain against the gap: exactly at the fraction passes
    line = 0.01 * np.arange(10.0)                           # gain over steps 6-9: 0.03
    assert stats.plateau(range(10), line, gap=0.12).passed and not stats.plateau(range(10), line, gap=0.119).passed


def test_validity_checks_and_the_gate():
    with pytest.raises(ValueError):
        stats.Validity("", True, "x")
    with pytest.raises(TypeError):
        stats.Validity("trained", 1, "x")
    v = stats.Validity("ceiling", False, "at 100 %")
    assert v.to_dict() == {"name": "ceiling", "passed": False, "detail": "at 100 %"}
    assert v.reason == "ceiling: at 100 %" and stats.Validity("trained", False, "flat").reason == "did not train: flat"
    agree = stats.Judgement("reproduced")
    assert stats.validity.gate(agree, []) is agree  # no check, or every check passed: the criterion's verdict
    gate = stats.validity.gate(agree, [v, stats.Validity("plateau", False, "rising"), stats.Validity("x", True, "ok")])
    assert gate.verdict == "inconclusive" and gate.reason == "ceiling: at 100 %; budget: rising"


# --------------------------------------------------------------------------------------------- survivors of a mutmut run
def test_an_inconclusive_criterion_gives_its_reason():
    crit = stats.inconclusive("the table has no body")
    assert crit.judge(CLEAR_UP) == stats.Judgement("inconclusive", "the table has no body")
    assert crit.judge(None).verdict == "inconclusive"                 # it reads nothing of ours
    assert crit.description == "inconclusive: the table has no body"
    assert crit.name == "inconclusive" and crit.params == {"reason": "the table has no body"}


def test_a_criterion_s_verdict_must_be_known_and_an_undecided_one_needs_a_reason():
    plain = stats.Criterion("d", lambda ours: "reproduced")
    assert plain.judge(1) == stats.Judgement("reproduced") and plain.name == "custom" and plain.params == {}
    for bad in ("passed", "INCONCLUSIVE"):
        with pytest.raises(AssertionError, match="criterion produced"):
            stats.Criterion("d", lambda ours, v=bad: v).judge(1)
    for undecided in ("inconclusive", "not testable"):
        with pytest.raises(AssertionError, match="needs a reason"):
            stats.Criterion("d", lambda ours, v=undecided: v).judge(1)
        assert stats.Criterion("d", lambda ours, v=undecided: stats.Judgement(v, "why")).verdict(1) == undecided


def test_an_erratum_that_cannot_be_tested_is_inconclusive_and_says_so():
    assert stats.as_erratum(stats.Judgement("not testable", "no table")) == stats.Judgement("inconclusive", "no table")
    assert stats.as_erratum(stats.Judgement("not testable")) == stats.Judgement("inconclusive", "not testable")
    assert stats.as_erratum(stats.Judgement("reproduced")).reason is None


def test_validity_records_a_passed_check_as_true():
    assert stats.Validity("trained", np.bool_(True), "loss fell").to_dict() == {"name": "trained", "passed": True,
                                                                               "detail": "loss fell"}


def test_rule_texts_name_the_direction_the_tolerance_and_the_band():
    up = stats.direction(paper_effect=2.0)
    assert up.description.startswith("A > B (paper +2; tolerance ±1: half the paper's effect (no spread printed))")
    assert up.params["tol_reason"] == "half the paper's effect (no spread printed)"
    assert stats.tolerance(2.0).reason == "half the paper's effect (no spread printed)"
    assert stats.direction(sign=-1).description.startswith("A < B (the paper states the direction only)")
    assert stats.direction(paper_effect=-0.5).description.startswith("A < B (paper -0.5;")
    untrained = stats.direction(sign=1, trained=False).description
    assert untrained.startswith("A > B") and untrained.endswith("; the objective did not train: inconclusive")
    band = stats.level(0.5, tol=0.1, tol_reason="the paper's rounding").description
    assert band.startswith("CI of ours inside 0.5 ± 0.1 (the paper's rounding): reproduced; entirely outside: "
                           "not reproduced")


def test_an_underpowered_reason_counts_seeds_at_the_comparison_s_confidence():
    values = [3.0, -3.0, 2.5]
    for confidence in (0.95, 0.8):
        ours = stats.sample(values, confidence=confidence)
        reason = stats.direction(paper_effect=0.5).judge(ours).reason
        need = stats.n_for_power(ours.sd, 0.5, confidence)
        assert reason.startswith("underpowered") and f"about {need} seeds" in reason
    assert stats.n_for_power(stats.sample(values).sd, 0.5, 0.8) < stats.n_for_power(stats.sample(values).sd, 0.5)


def test_plateau_on_steps_that_do_not_start_at_zero_or_are_fractions():
    # a climb up to step 160, flat from there: the last third of 100-190 is 160-190
    steps = np.arange(100, 200, 10)
    curve = np.array([0, 1, 2, 3, 4, 5, 6, 6.01, 5.99, 6])
    check = stats.plateau(steps, curve)
    assert check.passed and check.name == "plateau" and "over 30 steps" in check.detail
    assert stats.plateau(steps / 1000, curve).passed                   # epochs 0.1 .. 0.19: a span below 1
    assert "over 0.03 steps" in stats.plateau(steps / 1000, curve).detail
    with pytest.raises(ValueError, match="distinct steps"):
        stats.plateau([0, 1, 2, 5, 5, 5], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])


def test_plateau_falls_back_to_the_last_three_points():
    # the last third of 0..100 holds one point: the fit uses the last three, steps 4, 5 and 100 (a span of 96)
    check = stats.plateau([0, 1, 2, 3, 4, 5, 100], [0, 1, 2, 3, 4, 5, 6])
    assert "over 96 steps" in check.detail


def test_plateau_with_three_points_uses_the_t_interval_with_one_degree_of_freedom():
    # least squares through (0, 0), (1, 1), (2, 1.5): slope 0.75, residual variance 0.041667 / 1, standard error
    # sqrt(0.041667 / 2) = 0.144338; t(0.975, 1) = 12.7062: the interval [-1.08, +2.58] covers 0
    check = stats.plateau([0, 1, 2], [0.0, 1.0, 1.5], tail=1.0)
    assert check.passed
    assert "+0.75/step, 95 % CI [-1.08, +2.58], gain +1.5 over 2 steps" in check.detail
    with_gap = stats.plateau([0, 1, 2], [0.0, 1.0, 1.5], tail=1.0, gap=2.0)
    assert with_gap.detail.startswith("slope over the last 100% +0.75/step")
    assert with_gap.detail.endswith(" against 0.25 × the compared gap 2")


def test_an_untrained_objective_names_why():
    crit = stats.direction(sign=1, trained=False, untrained_reason="the loss stayed at 2.30")
    assert crit.judge(CLEAR_UP) == stats.Judgement("inconclusive", "did not train: the loss stayed at 2.30")
    assert stats.direction(sign=1, trained=False).judge(CLEAR_UP).reason == "did not train: the objective did not move"


def test_plateau_gain_exactly_at_the_fraction_of_the_gap_passes():
    # slope 0.25 on steps 0-9: over the last third (6-9) the gain is 0.75, a quarter of a gap of 3; every number
    # here is a binary fraction, so least squares gives exactly 0.75 on any machine (0.01 steps would give
    # 0.029999999999999995 against 0.03 and leave the boundary untested)
    line = 0.25 * np.arange(10.0)
    assert stats.plateau(range(10), line, gap=3.0).passed
    assert not stats.plateau(range(10), line, gap=2.999).passed
