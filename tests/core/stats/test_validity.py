"""companion.stats.validity: the one trained / plateau / room rule over a tidy curve frame, and the gate that fires
only when more training or more room could change the verdict (hand-computed values throughout)."""

import math

import pandas as pd
import pytest

from companion import stats
from companion.stats import validity as V
from companion.stats.verdicts import Judgement


def _frame(curves):
    return V.curves_from_lists(curves)


def test_trained_compares_the_thirds_against_their_own_scatter():
    # thirds [3, 2.9, 3.1] and [2, 1.9, 2.1]: change -1.0, SE sqrt(0.01/3 + 0.01/3) = 0.0816 -> 12 SE: trained
    moved = V.trained(_frame({("loss", 0): [3.0, 2.9, 3.1, 2.5, 2.4, 2.6, 2.0, 1.9, 2.1]}), what="loss")
    assert moved.passed and "1 of 1 runs" in moved.detail
    # change 0.1 against the same scatter: 1.22 SE < 2: not trained
    flat = V.trained(_frame({("loss", 0): [3.0, 2.9, 3.1, 3.0, 3.0, 3.0, 2.9, 2.8, 3.0]}), what="loss")
    assert not flat.passed
    # one idle seed among moving ones fails the check, and the weakest run is named
    mixed = V.trained(_frame({("loss", 0): [3, 2.9, 3.1, 2.5, 2.4, 2.6, 2.0, 1.9, 2.1],
                              ("loss", 1): [3, 2.9, 3.1, 3, 2.9, 3.1, 3, 2.9, 3.1]}), what="loss")
    assert not mixed.passed and "loss seed 1" in mixed.detail


def test_trained_needs_six_points():
    check = V.trained(_frame({("loss", 0): [3.0, 2.0, 1.0]}), what="loss")
    assert not check.passed and "too few points" in check.detail


def test_trained_reads_a_rising_dev_score_as_well_as_a_falling_loss():
    assert V.trained(_frame({("dev", 0): [0.1, 0.12, 0.11, 0.5, 0.52, 0.51]}), what="dev").passed


def test_plateau_records_the_trend_of_the_claims_own_quantity():
    falling = _frame({("gap", 0): [0.5, 0.4, 0.3, 0.2, 0.1, 0.0, -0.1, -0.2, -0.3]})
    check = V.plateau(falling, what="gap", claim_metric=True)
    assert not check.passed and check.trend == -1
    assert V.plateau(falling, what="loss").trend is None          # another quantity: no trend for the gate
    flat = _frame({("gap", 0): [0.0, 0.5, 0.7, 0.70, 0.71, 0.70, 0.69, 0.71, 0.70]})
    passed = V.plateau(flat, what="gap", claim_metric=True)
    assert passed.passed and passed.trend == 0


def test_plateau_averages_seeds_before_fitting():
    # two seeds rising and falling symmetrically: the mean is flat at 1.0
    f = _frame({("a", 0): [1.0, 1.1, 1.2, 1.3, 1.4, 1.5], ("a", 1): [1.0, 0.9, 0.8, 0.7, 0.6, 0.5]})
    assert V.plateau(f, what="a").passed


def test_gap_frame_is_the_seed_paired_difference():
    f = pd.concat([_frame({("a", 0): [1.0, 2.0, 3.0], ("a", 1): [1.0, 1.0, 1.0]}),
                   _frame({("b", 0): [0.0, 0.5, 1.0], ("b", 1): [2.0, 2.0, 2.0]})])
    gap = V.gap_frame(f, "a", "b")
    assert gap[gap.seed == 0].value.tolist() == [1.0, 1.5, 2.0]
    assert gap[gap.seed == 1].value.tolist() == [-1.0, -1.0, -1.0]
    with pytest.raises(KeyError, match="no curve"):
        V.gap_frame(f, "a", "c")


def test_room_looks_at_both_sides_and_names_the_blocked_one():
    up = V.room(0.944, 0.504, what="B3's AUC")       # 0.056 left on the paper's side
    assert not up.passed and up.name == "ceiling" and up.blocked == 1 and "0.944 on the other side" in up.detail
    down = V.room(0.1, -0.3, what="recall")
    assert not down.passed and down.name == "floor" and down.blocked == -1
    assert V.room(0.5, 0.3, what="x").passed and V.room(0.5, 0.3, what="x").blocked is None
    with pytest.raises(ValueError, match="must lie in"):
        V.room(1.2, 0.1, what="x")


@pytest.mark.parametrize("verdict, reason, trend, side, gated", [
    ("not reproduced", "reversed: ...", -1, 1, False),   # moving further from the paper: a contrary result stands
    ("not reproduced", "reversed: ...", 1, 1, True),     # moving towards it: more training could change it
    ("reproduced", None, 1, 1, False),                   # agreement still growing: stands
    ("reproduced", None, -1, 1, True),                   # agreement shrinking: held back
    ("partly", "direction holds", 1, -1, True),          # the paper's side is down, the quantity rises
    ("not reproduced", "negligible: ...", -1, -1, True),  # side -1, trend -1: moving towards the paper
    ("not reproduced", "reversed: ...", 0, 1, True),     # failed but no firm trend: held back
    ("not reproduced", "reversed: ...", -1, None, True),  # no side known: held back
])
def test_the_plateau_gate_fires_only_when_the_trend_could_change_the_verdict(verdict, reason, trend, side, gated):
    check = stats.Validity("plateau", False, "still moving", trend=trend)
    out = V.gate(Judgement(verdict, reason), [check], side=side)
    assert (out.verdict == "inconclusive") is gated
    if gated:
        assert out.reason.startswith("budget: still moving")


def test_a_plateau_on_another_quantity_always_gates():
    loss = stats.Validity("plateau", False, "training loss still falling")
    assert V.gate(Judgement("not reproduced", "reversed: x"), [loss], side=1).verdict == "inconclusive"


def test_a_ceiling_never_holds_back_a_firm_reversal_but_holds_back_absence_and_agreement():
    ceiling = V.room(0.944, 0.504, what="AUC")
    assert V.gate(Judgement("not reproduced", "reversed: CI below 0"), [ceiling], side=1).verdict == "not reproduced"
    assert V.gate(Judgement("not reproduced", "negligible: inside"), [ceiling], side=1).verdict == "inconclusive"
    assert V.gate(Judgement("partly", "smaller"), [ceiling], side=1).verdict == "inconclusive"


def test_not_trained_always_gates_and_not_testable_is_never_gated():
    idle = stats.Validity("trained", False, "loss flat")
    for verdict in ("reproduced", "not reproduced", "partly"):
        assert V.gate(Judgement(verdict, "reversed: x"), [idle], side=1).reason == "did not train: loss flat"
    assert V.gate(Judgement("not testable", "why"), [idle], side=1).verdict == "not testable"


def test_the_ledger_reads_the_side_from_the_criterion(tmp_path, monkeypatch):
    from companion.results import Ledger

    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path))
    ledger = Ledger("angle", "99-test", profile="smoke")
    away = stats.Validity("plateau", False, "gap still falling", trend=-1)
    down = stats.sample([-1.0, -1.1, -0.9])
    assert ledger.claim("a", "x", 1.0, down, stats.direction(paper_effect=1.0), kind="beyond",
                        validity=[away]) == "not reproduced"
    # a level the paper puts above ours, our curve still falling: moving away, the miss stands
    low = stats.sample([0.70, 0.71, 0.69])
    assert ledger.claim("b", "x", 0.9, low, stats.level(0.9, tol=0.05, tol_reason="r"), kind="beyond",
                        validity=[away]) == "not reproduced"
    rising = stats.Validity("plateau", False, "still rising", trend=1)
    assert ledger.claim("c", "x", 0.9, low, stats.level(0.9, tol=0.05, tol_reason="r"), kind="beyond",
                        validity=[rising]) == "inconclusive"
    assert ledger.claims[0]["validity"][0]["trend"] == -1
    assert math.isfinite(ledger.claims[1]["ours"])


def test_to_decide_names_seeds_steps_or_room_for_an_inconclusive_verdict():
    # sd of [0.1, -0.3, 0.4] is 0.3512; the mde (t_0.975 + t_0.80 over n - 1 dof) * sd / sqrt(n) first drops to
    # 0.2 at n = 27 (at n = 26: (2.060 + 0.856) * 0.3512 / 5.099 = 0.2009)
    ours = stats.sample([0.1, -0.3, 0.4])
    text = V.to_decide(Judgement("inconclusive", "underpowered: x"), [], ours, paper_effect=0.2)
    assert text.startswith("about 27 seeds")
    plateau = stats.plateau([0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5, 6, 7, 8.1])
    text = V.to_decide(Judgement("inconclusive", "budget: x"), [plateau], ours, paper_effect=0.2, steps=600)
    assert text.startswith("at least 1200 steps (the curve still moves") and "seeds" not in text
    assert text.endswith(f"moves {plateau.detail.split('/step')[0].rsplit(' ', 1)[1]} per step)")
    detail = "slope over the last 33% +9.95e-05/step, 95 % CI [+1.44e-05, +0.000185], gain +0.0129 over 130 steps"
    text = V.to_decide(Judgement("inconclusive", "budget: x"), [stats.Validity("plateau", False, detail)])
    assert text == "a longer run (the curve still moves +9.95e-05 per step)"  # the slope, never the window's 33%
    ceiling = V.room(0.95, 0.2, what="AUC")
    assert "room" in V.to_decide(Judgement("inconclusive", "ceiling: x"), [ceiling])
    assert V.to_decide(Judgement("reproduced"), [plateau], ours, paper_effect=0.2) is None


def test_the_ledger_stores_what_deciding_would_take(tmp_path, monkeypatch):
    from companion.results import Ledger

    ledger = Ledger("angle", "99-test", profile="smoke")
    ledger.claim("u", "x", 0.2, stats.sample([0.1, -0.3, 0.4]), stats.direction(paper_effect=0.2), kind="beyond")
    assert ledger.claims[0]["verdict"] == "inconclusive" and ledger.claims[0]["to_decide"].startswith("about 27")
