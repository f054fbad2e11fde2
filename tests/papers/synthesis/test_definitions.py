"""companion.papers.synthesis.definitions: each rule of the definitions sweep fires on a synthetic pair that differs
and not on an equal one, and the committed sweep (data/synthesis/definitions.csv) agrees with its recomputations."""

from __future__ import annotations

import numpy as np
import pytest

from companion.papers.synthesis import definitions as d


# --------------------------------------------------------------------------------------------- the rules
def test_formula_fires_on_different_expressions_only():
    # the simplex temperature as printed against the one its beta requires, and an equal rewriting of it
    domain = "C: int 2 50; eps: uniform 0.01 0.99"
    assert d.formula_rule("(C-1)/(-C*log(eps))", "C/((C-1)*(-log(eps)))", domain).off
    assert not d.formula_rule("(C-1)/(-C*log(eps))", "(1-C)/(C*log(eps))", domain).off
    # complex values and vectors are compared too
    assert d.formula_rule("abs(z/w)", "1", "z: normal; w: normal").off
    assert not d.formula_rule("sum(softmax(k))", "1", "k: normal 6").off
    assert d.formula_rule("sum(exp(softmax(k)))", "1", "k: normal 6").off
    assert "differ at" in d.formula_rule("x", "x + 1", "x: uniform 0 1").detail


def test_formula_without_variables_is_evaluated_once():
    out = d.formula_rule("3*pi/2*180/pi", "270")
    assert not out.off and out.detail == "equal at 1 point of the domain"
    assert d.formula_rule("C", "C", "C: int 2 50").detail == "equal at 49 points of the domain"
    assert d.formula_rule("10", "10*pi/180").off


def test_condition_fires_when_the_conditions_hold_at_different_points():
    domain = "n: int 1 300; q: int 1 100"
    assert not d.condition_rule("n > 2*q + 3", "(n - 1) - (q + 2) > q", domain).off
    assert d.condition_rule("n > 2*q + 3", "n > 2*q + 4", domain).off  # differ only at n = 2q + 4
    out = d.condition_rule("tau <= 1", "tau <= 2", "tau: uniform 0 3")
    assert out.off and "the first fails and the second holds" in out.detail


def test_value_allows_the_printed_rounding_only():
    assert not d.value_rule("-1/9", "−0.111").off
    assert d.value_rule("-1/9", "−0.112").off
    assert not d.value_rule("82.37 - 81.57", "0.80").off
    assert d.value_rule("540/7140*100", "7.5").off  # 7.56 is not 7.5 at the printed precision


def test_recompute_dispatches_and_reading_is_left_to_the_reading():
    assert d.recompute("formula", "x", "x", "x: normal")[0] == "same"
    assert d.recompute("condition", "x > 0", "x < 0", "x: normal")[0] == "different"
    assert d.recompute("reading", "a", "b") == (None, "no recomputation: the reading decides")
    with pytest.raises(ValueError, match="unknown rule"):
        d.recompute("guess", "a", "b")


def test_domains_and_expressions_are_parsed_strictly():
    parsed = d.parse_domain("C: int 2 5; x: uniform 0 1 3; H: normal 2 2; k: fixed C + 1")
    point = d.sample(parsed, np.random.default_rng(0))
    assert 2 <= point["C"] <= 5 and point["k"] == point["C"] + 1
    assert np.shape(point["x"]) == (3,) and np.shape(point["H"]) == (2, 2)
    for bad in ("C 2 5", "C: int 2", "C: poisson 3", "k: fixed "):
        with pytest.raises(ValueError):
            d.parse_domain(bad)
    with pytest.raises(ValueError, match="cannot evaluate"):
        d.evaluate("__import__('os')", {})
    with pytest.raises(ValueError, match="cannot evaluate"):
        d.evaluate("undefined_name + 1", {})


def test_the_helper_measures():
    assert d.NAMESPACE["simplex_cos"](10) == pytest.approx(-1 / 9)
    assert d.NAMESPACE["erank"](np.ones(7)) == pytest.approx(7.0)
    assert d.NAMESPACE["participation"](np.ones(7)) == pytest.approx(7.0)
    x = np.random.default_rng(0).standard_normal((50, 4))
    assert d.NAMESPACE["mean_cos"](x + 10) > 0.9 > d.NAMESPACE["mean_cos"](x)
    assert 0.25 <= d.NAMESPACE["top_share"](x) < 1


# ------------------------------------------------------------------------------------ the committed sweep
@pytest.fixture(scope="module")
def sweep():
    from companion.settings import repo_root

    return d.sweep(repo_root())


def test_every_recomputation_agrees_with_its_reading(sweep):
    assert sweep["agrees"].all(), sweep.loc[~sweep["agrees"], ["id", "verdict", "recomputed", "detail"]]
    assert (sweep["rule"] != "reading").sum() >= 30  # most comparisons are recomputed, not only read


def test_every_paper_is_swept_and_every_difference_is_accounted_for(sweep):
    from companion.paper_registry import REPRODUCED
    from companion.papers.synthesis import classes
    from companion.settings import repo_root

    assert set(sweep["paper"]) == set(REPRODUCED)
    recorded = set(classes.recorded(classes.read_classes(repo_root())))
    named = set(sweep["erratum"]) - {""}
    assert named <= recorded, named - recorded
    differences = sweep[sweep["verdict"] == "different"]
    assert (differences["erratum"].ne("") | differences["why"].str.len().gt(20)).all()


def test_the_sweep_reads_a_synthetic_file(tmp_path):
    folder = tmp_path / "data" / "synthesis"
    folder.mkdir(parents=True)
    header = ",".join(d.COLUMNS)
    (folder / "definitions.csv").write_text(
        f"{header}\n"
        "x-1,angle,q,A,x**2,B,x*x,formula,x: normal,same,,one square\n"
        "x-2,angle,q,A,x**2,B,2*x,formula,x: normal,same,,a wrong reading\n", encoding="utf-8")
    out = d.sweep(tmp_path).set_index("id")
    assert out.loc["x-1", "agrees"] and not out.loc["x-2", "agrees"]
    (folder / "definitions.csv").write_text(f"{header}\nx-1,angle,q,A,a,B,b,guess,,maybe,,\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown rule 'guess'.*unknown verdict 'maybe'.*no why"):
        d.read_definitions(tmp_path)
