"""The validity checks the circumplex claims carry (companion.papers.circumplex.validity): measured on the runs'
record, able to fail, and turning a claim inconclusive through the ledger."""

from __future__ import annotations

import pandas as pd
import pytest

from companion import stats
from companion.papers.circumplex import validity
from companion.results import Ledger


def _run(kind="GPT", loss="SINCERE", seed=0, steps=4, first=2.0, final=1.0, curve=None, margin=0.0):
    return {"kind": kind, "loss": loss, "margin": margin, "seed": seed, "steps": steps, "first_loss": first,
            "final_loss": final, "curve": curve}


FLAT = {0: 0.2, 2: 0.5, 4: 0.60, 5: 0.61, 6: 0.59, 7: 0.60, 8: 0.61}
RISING = {0: 0.2, 2: 0.5, 4: 0.60, 5: 0.62, 6: 0.64, 7: 0.66, 8: 0.681}


def test_select_matches_values_and_lists_and_names_a_missing_column():
    runs = pd.DataFrame([_run(), _run(kind="nGPT"), _run(loss="CircularCSE", margin=0.2)])
    assert len(validity.select(runs, {"kind": "GPT"})) == 2
    assert len(validity.select(runs, {"kind": ["GPT", "nGPT"], "margin": 0.0})) == 2
    with pytest.raises(KeyError, match="no column 'dataset'"):
        validity.select(runs, {"dataset": "Emolit"})


def test_trained_fails_on_the_run_whose_loss_did_not_fall():
    runs = pd.DataFrame([_run(), _run(seed=1, final=1.85), _run(kind="nGPT", final=0.5)])
    check = validity.trained(runs, {"kind": "GPT"})
    assert check.name == "trained" and not check.passed
    assert "0.925 (GPT/SINCERE seed 1)" in check.detail and "2 run(s)" in check.detail
    assert validity.trained(runs, {"kind": "nGPT"}).passed
    missing = validity.trained(runs, {"kind": "nGPT-plain"})
    assert missing.name == "record" and not missing.passed


def test_plateau_reads_the_curve_from_the_budget_on():
    runs = pd.DataFrame([_run(curve=FLAT), _run(kind="nGPT", curve=RISING), _run(seed=1)])
    flat = validity.plateau(runs, {"kind": "GPT"})
    assert flat.passed and "GPT/SINCERE seed 0 (steps 4-8)" in flat.detail and "last 50%" in flat.detail
    rising = validity.plateau(runs, {"kind": "nGPT"})
    assert not rising.passed and "still moving" in rising.detail
    # a gain of about 0.08 after the budget is small beside a V gap of 0.4, not beside one of 0.1
    assert validity.plateau(runs, {"kind": "nGPT"}, gap=0.4).passed
    assert not validity.plateau(runs, {"kind": "nGPT"}, gap=-0.1).passed
    # FLAT rises from 0.2 to 0.6 before its budget and passes: only the stretch from the budget on is read;
    # a claim on both runs fails with the one still moving
    assert validity.plateau(runs, {"kind": ["GPT", "nGPT"]}).passed is False
    constant = validity.plateau(pd.DataFrame([_run(curve={0: 0.1, 4: 0.5, 6: 0.5, 8: 0.5})]), {"kind": "GPT"})
    assert constant.passed and "constant at 0.5" in constant.detail
    unprobed = validity.plateau(pd.DataFrame([_run(curve={0: 0.1, 2: 0.3, 4: 0.5})]), {"kind": "GPT"})
    assert unprobed.name == "record" and not unprobed.passed
    with pytest.raises(ValueError, match="2 evaluations from the budget 4 on"):
        validity.plateau(pd.DataFrame([_run(curve={0: 0.1, 4: 0.5, 8: 0.5})]), {"kind": "GPT"})


def test_run_checks_without_runs_is_one_failed_record_check():
    assert [(c.name, c.passed) for c in validity.run_checks(None, {}, what="x")] == [("record", False)]
    runs = pd.DataFrame([_run(curve=FLAT)])
    assert [(c.name, c.passed) for c in validity.run_checks(runs, {"kind": "GPT"})] == [("trained", True),
                                                                                         ("plateau", True)]


def test_a_failed_check_makes_the_claim_inconclusive_and_a_passed_one_leaves_the_rule(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path))
    ledger = Ledger("circumplex", "test-validity", profile="smoke")
    far = stats.sample([0.159, 0.17, 0.187])  # like a mean cosine well away from the "near 0" band
    crit = stats.level(0.0, tol=0.0455, tol_reason="half the way to -1/(E-1)")
    ok = validity.run_checks(pd.DataFrame([_run(curve=FLAT)]), {"kind": "GPT"})
    assert ledger.claim("a", "near zero", kind="paper", source="§5.1", paper_value=0, ours=far, criterion=crit,
                        regime="scaled", validity=ok) == "not reproduced"
    moving = validity.run_checks(pd.DataFrame([_run(curve=RISING)]), {"kind": "GPT"})
    assert ledger.claim("b", "near zero", kind="paper", source="§5.1", paper_value=0, ours=far, criterion=crit,
                        regime="scaled", validity=moving) == "inconclusive"
    assert ledger.claims[-1]["reason"].startswith("budget: test V-Measure from the budget on")
