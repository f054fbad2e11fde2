"""Profiles, the claims ledger (computed verdicts, stable schema, atomic writes) and the scoreboard."""

import json

import pytest

from companion.profiles import settings
from companion.results import (
    VERDICTS,
    Ledger,
    at_least,
    at_most,
    claims_frame,
    holds,
    not_testable,
    same_sign,
    scoreboard,
    within,
)


def _cfg(profile="cpu", **overrides):
    return settings(profile, smoke=dict(steps=2, seeds=[0]), cpu=dict(steps=400, seeds=[0, 1, 2]),
                    gpu=dict(steps=8000, seeds=[0, 1, 2, 3, 4]), common=dict(lr=3e-5, steps=1),
                    overrides=overrides)


def test_profile_values_and_overrides():
    cfg = _cfg("cpu", steps=10, seeds=None)
    assert (cfg.profile, cfg.steps, cfg.seeds, cfg.lr) == ("cpu", 10, [0, 1, 2], 3e-5)
    assert _cfg("smoke").steps == 2 and _cfg("gpu").seeds == [0, 1, 2, 3, 4]
    assert _cfg("cpu", lr=1).lr == 1  # an int may replace a float
    with pytest.raises(AttributeError, match="read-only"):
        cfg.steps = 3


@pytest.mark.parametrize("profile", ["fast", "CPU", 3, None])
def test_unknown_profile(profile):
    with pytest.raises(ValueError, match="Unknown profile"):
        _cfg(profile)


def test_bad_overrides():
    with pytest.raises(ValueError, match="Unknown override 'stepz'"):
        _cfg(stepz=3)
    with pytest.raises(TypeError, match="steps='10'"):
        _cfg(steps="10")  # a wrongly typed papermill parameter
    with pytest.raises(AttributeError, match="not defined"):
        _ = _cfg().batch_size


@pytest.mark.parametrize(
    "criterion, ours, verdict",
    [
        (within(1.0, 0.1, partly_tol=0.5), 1.05, "reproduced"),
        (within(1.0, 0.1, partly_tol=0.5), 1.3, "partly"),
        (within(1.0, 0.1), 1.3, "not reproduced"),
        (at_least(0.5, partly=0.4), 0.45, "partly"),
        (at_most(0.5), 0.2, "reproduced"),
        (holds(), [True, True], "reproduced"),
        (holds(), {"a": True, "b": False}, "partly"),
        (holds(), False, "not reproduced"),
        (same_sign(0.46, min_magnitude=0.1), 0.05, "partly"),
        (same_sign(-0.16), 0.2, "not reproduced"),
        (not_testable("data not released"), None, "not testable"),
    ],
)
def test_criteria_compute_verdicts(criterion, ours, verdict):
    assert criterion.verdict(ours) == verdict


def test_criteria_reject_bad_values():
    with pytest.raises(ValueError, match="non-finite"):
        within(1, 0.1).verdict(float("nan"))
    with pytest.raises(TypeError, match="booleans"):
        holds().verdict([1, 0])
    with pytest.raises(ValueError, match="reason"):
        not_testable(" ")


def test_ledger_schema_roundtrip_and_scoreboard(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("COMPANION_FIGURES_DIR", str(tmp_path / "figures"))
    ledger = Ledger("angle", "03-ablation.ipynb", profile="cpu", seeds=[0, 1])
    assert ledger.claim("a", "x", 86.26, 85.1234567, within(86.26, 0.5, 2.0), kind="paper",
                        source="Table 4") == "partly"
    assert ledger.claim("b", "y", "yes", [True], holds(), kind="check") == "passed"
    with pytest.raises(ValueError, match="twice"):
        ledger.claim("a", "x", 1, 1, within(1, 1), kind="beyond")
    with pytest.raises(ValueError, match="Claim id"):
        ledger.claim("bad id", "x", 1, 1, within(1, 1), kind="beyond")
    path = ledger.save()
    data = json.loads(path.read_text())
    assert path == tmp_path / "results" / "angle" / "03-ablation.json"
    assert list(data) == ["schema", "paper", "notebook", "profile", "seeds", "claims"] and data["schema"] == 2
    assert list(data["claims"][0]) == ["id", "kind", "claim", "source", "paper_value", "ours", "criterion",
                                       "verdict", "regime"]
    assert data["claims"][0]["regime"] == "paper setting" and "regime" not in data["claims"][1]
    assert data["claims"][0]["ours"] == 85.1235  # rounded to 6 significant digits
    assert path.with_suffix(".provenance.json").exists()
    board = scoreboard(tmp_path / "results")
    # the scoreboard counts paper claims only; the check is counted separately
    assert board.loc[0, "paper"] == "angle" and board.loc[0, "partly"] == 1 and board.loc[0, "total"] == 1
    assert scoreboard(tmp_path / "results", kind="check").loc[0, "passed"] == 1
    assert set(claims_frame(tmp_path / "results")["verdict"]) <= set(VERDICTS) | {"passed"}


def test_scoreboard_counts_the_five_papers_split_by_regime_and_errata_apart(tmp_path, monkeypatch):
    from companion import stats

    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    up = stats.paired([1.0, 1.1, 0.9], [0.0, 0.0, 0.0])
    angle = Ledger("angle", "01-x", profile="cpu", seeds=[0, 1, 2])
    angle.claim("a", "x", 1.0, up, stats.direction(paper_effect=1.0), kind="paper", source="Table 4")
    angle.claim("b", "x", -1.0, up, stats.direction(paper_effect=-1.0), kind="paper", source="Table 4",
                regime="MiniLM top layer")
    angle.save()
    synth = Ledger("synthesis", "00-errata", profile="cpu")
    assert synth.claim("angle:e", "printed twice", 1, True, holds(), kind="erratum", source="angle | Table 4") \
        == "confirmed"
    synth.claim("angle:p", "a paper claim of the synthesis notebook", 1, 1.0, within(1, 0.1), kind="paper",
                source="angle | Table 4")
    synth.save()
    board = scoreboard(tmp_path / "results")
    assert list(board["paper"]) == ["angle"]                      # synthesis is not one of the five papers
    assert board.loc[0, "reproduced"] == 1 and board.loc[0, "not reproduced"] == 1
    split = scoreboard(tmp_path / "results", by_regime=True).set_index("regime")
    assert split.loc["paper setting", "reproduced"] == 1 and split.loc["scaled", "not reproduced"] == 1
    errata = scoreboard(tmp_path / "results", kind="erratum")
    assert errata.loc[0, "confirmed"] == 1 and "reproduced" not in errata
    assert list(errata["paper"]) == ["angle"]  # the paper the erratum concerns, not the synthesis notebook


def test_a_minor_erratum_reads_minor_and_grades_errata_only(tmp_path, monkeypatch):
    from companion.results import minor_erratum

    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    synth = Ledger("synthesis", "00-errata", profile="cpu")
    crit = minor_erratum("the two prints differ", "within the rounding the table states")
    assert "minor: within the rounding the table states" in crit.description
    assert synth.claim("angle:m", "printed twice", 1, {"differ": True}, crit, kind="erratum",
                       source="angle | Table 4") == "minor"
    assert synth.claim("angle:n", "printed twice", 1, {"differ": False}, crit, kind="erratum",
                       source="angle | Table 4") == "not confirmed"
    with pytest.raises(ValueError, match="grades errata only"):
        synth.claim("c", "a check", None, True, crit, kind="check")
    with pytest.raises(ValueError, match="needs the convention"):
        minor_erratum("x", " ")
    synth.save()
    errata = scoreboard(tmp_path / "results", kind="erratum")
    assert errata.loc[0, "minor"] == 1 and errata.loc[0, "not confirmed"] == 1


def test_provenance_records_the_settings_it_is_given(tmp_path, monkeypatch):
    """The ledger records the notebook's settings handed to it, and a sub-regime's beside them by name; settings
    made later in the process (a sub-regime's) never take their place."""
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    cfg = settings("cpu", smoke=dict(steps=2), cpu=dict(steps=400, model="m"), gpu=dict(steps=9, model="g"),
                   common=dict(lr=0.1))
    ledger = Ledger("angle", "01-x", profile="cpu", seeds=[0], settings=cfg)
    ledger.claim("a", "x", 1, 1.0, within(1, 0.1), kind="beyond")
    sub = settings("cpu", smoke=dict(steps=1), cpu=dict(steps=30, model="mpnet"), gpu=dict(steps=0))
    prov = json.loads(ledger.save().with_suffix(".provenance.json").read_text())
    assert prov["settings"] == {"lr": 0.1, "steps": 400, "model": "m", "profile": "cpu"} and "regimes" not in prov
    ledger.regime_settings("mpnet", sub)
    prov = json.loads(ledger.save().with_suffix(".provenance.json").read_text())
    assert prov["settings"]["model"] == "m" and prov["regimes"] == {"mpnet": {"steps": 30, "model": "mpnet",
                                                                              "profile": "cpu"}}
    bare = Ledger("angle", "01-y", profile="cpu", seeds=[0])  # no settings handed over: none recorded
    bare.claim("a", "x", 1, 1.0, within(1, 0.1), kind="beyond")
    assert "settings" not in json.loads(bare.save().with_suffix(".provenance.json").read_text())
    with pytest.raises(ValueError, match="settings of profile 'cpu' for a smoke ledger"):
        Ledger("angle", "01-x", profile="smoke", settings=cfg)
    with pytest.raises(ValueError, match="non-empty"):
        ledger.regime_settings(" ", sub)


def test_smoke_ledger_goes_to_scratch(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_RESULTS_DIR", raising=False)
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    ledger = Ledger("angle", "x", profile="smoke")
    assert ledger.results_dir == tmp_path / "smoke" / "results"


def test_ledger_rejects_unknown_paper_and_empty_save(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="Unknown paper"):
        Ledger("gpt5", "x", profile="cpu")
    with pytest.raises(ValueError, match="no claims"):
        Ledger("angle", "x", profile="cpu").save()


def test_committed_ledgers_follow_the_schema():
    # every results/*.json in the repository must load (schema 2) and carry valid kinds, verdicts and reasons
    claims_frame()


@pytest.mark.parametrize("claim, error", [
    ({"id": "a", "kind": "paper", "verdict": "reproduced"}, "no source"),
    ({"id": "a", "kind": "check", "verdict": "reproduced"}, "verdict"),
    ({"id": "a", "kind": "beyond", "verdict": "passed"}, "verdict"),
    ({"id": "a", "kind": "beyond", "verdict": "inconclusive", "regime": "paper setting"}, "reason"),
    ({"id": "a", "kind": "beyond", "verdict": "reproduced"}, "regime"),
    ({"id": "a", "kind": "erratum", "verdict": "reproduced", "source": "x"}, "verdict"),
    ({"id": "a", "verdict": "reproduced"}, "kind"),
])
def test_stored_claims_are_validated(claim, error):
    from companion.results import validate_claim

    with pytest.raises(ValueError, match=error):
        validate_claim(claim)


# --------------------------------------------------------------------------------------------- exact criteria
@pytest.mark.parametrize("criterion, ours, verdict", [
    (within(1.0, 0.25), 1.25, "reproduced"), (within(1.0, 0.25), 0.75, "reproduced"),
    (within(1.0, 0.25), 1.2501, "not reproduced"), (within(1.0, 0.25, 0.5), 1.5, "partly"),
    (within(1.0, 0.25, 0.5), 0.4999, "not reproduced"),
    (at_least(2.0), 2.0, "reproduced"), (at_least(2.0), 1.999, "not reproduced"),
    (at_least(2.0, partly=1.0), 1.0, "partly"), (at_least(2.0, partly=1.0), 0.999, "not reproduced"),
    (at_most(2.0), 2.0, "reproduced"), (at_most(2.0), 2.001, "not reproduced"),
    (at_most(2.0, partly=3.0), 3.0, "partly"), (at_most(2.0, partly=3.0), 3.001, "not reproduced"),
    (same_sign(-0.5), -0.1, "reproduced"), (same_sign(-0.5, 0.2), -0.1, "partly"),
    (same_sign(-0.5, 0.2), -0.2, "reproduced"), (same_sign(-0.5), 0.0, "not reproduced"),
    (same_sign(0.5), 0.3, "reproduced"), (same_sign(0.5), -0.3, "not reproduced"),
    (holds(), True, "reproduced"), (holds(), False, "not reproduced"), (holds(), [True, False], "partly"),
    (holds(), {"a": False, "b": False}, "not reproduced"), (holds(), [False], "not reproduced"),
])
def test_exact_criteria_give_each_verdict_at_their_boundaries(criterion, ours, verdict):
    assert criterion.verdict(ours) == verdict


def test_exact_criteria_name_their_rule_and_parameters():
    assert (within(1.0, 0.1, 0.3).name, within(1.0, 0.1, 0.3).params) == (
        "within", {"target": 1.0, "tol": 0.1, "partly_tol": 0.3})
    assert (at_least(2.0, 1.0).name, at_least(2.0, 1.0).params) == ("at_least", {"threshold": 2.0, "partly": 1.0})
    assert (at_most(2.0, 3.0).name, at_most(2.0, 3.0).params) == ("at_most", {"threshold": 2.0, "partly": 3.0})
    assert same_sign(-0.5, 0.2).params == {"paper_value": -0.5, "min_magnitude": 0.2}
    assert holds("x").name == "holds" and not_testable("no GPU").params == {"reason": "no GPU"}
    for crit in (within(1, 0.1), at_least(1), at_most(1), same_sign(1.0), holds()):
        assert crit.description and crit.name != "custom"
    with pytest.raises(TypeError):
        holds().verdict([1, 0])
    with pytest.raises(TypeError):
        at_least(1.0).verdict("high")
    with pytest.raises(ValueError):
        at_most(1.0).verdict(float("nan"))


def test_checks_and_errata_keep_their_reasons_and_unknown_verdicts_pass_through():
    from companion import stats

    j = stats.Judgement("inconclusive", "one seed")
    assert stats.as_check(j) == j and stats.as_erratum(j) == j
    assert stats.as_check(stats.Judgement("not reproduced", "why")).reason == "why"
    assert stats.as_erratum(stats.Judgement("partly", "a reading")) == stats.Judgement("partly", "a reading")
    assert stats.as_erratum(stats.Judgement("not testable", "no data")) == stats.Judgement("inconclusive", "no data")
    assert stats.as_erratum(stats.Judgement("reproduced")) == stats.Judgement("confirmed", None)
    assert stats.regime_label("paper setting") == "paper setting"
