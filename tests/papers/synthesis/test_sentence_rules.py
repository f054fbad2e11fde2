"""companion.papers.synthesis.sentence_rules: each kind of test on a small planted table, with verdicts worked out by
hand (a planted contradicted sentence is flagged, a consistent one passes, equal prints are not checkable)."""

from __future__ import annotations

import pytest

from companion.papers.synthesis.sentence_rules import parse_selector, run_test

TABLE = """model,size,A,B,Avg.,source
alpha,base,1.00,4.00,2.50,Table 9
beta,base,2.00,3.00,2.50,Table 9
gamma,large,3.00,N/A,3.00,Table 9
+ angle,large,3.50,2.00,2.75,Table 9
"""
LONG = """row,column,value,source
x,r,0.30,§5
y,r,0.10,§5
x,s,5,§5
y,s,7,§5
"""


@pytest.fixture
def book(synthetic_book):
    return synthetic_book({"pp/table9.csv": TABLE, "pp/long.csv": LONG})


def verdict(book, spec):
    return run_test(spec, book, "pp").verdict


def test_selectors_match_one_of_several_values_and_exclusions():
    assert parse_selector("model=alpha|beta&size!=large") == [("model", "=", ("alpha", "beta")),
                                                             ("size", "!=", ("large",))]
    assert parse_selector("") == []
    with pytest.raises(ValueError):
        parse_selector("model alpha")


def test_a_planted_contradicted_ordering_is_flagged_and_a_consistent_one_passes(book):
    # A: beta 2.00 > alpha 1.00 holds; alpha 1.00 > beta 2.00 fails
    assert verdict(book, "table9: {model=beta} > {model=alpha} @ A") == "consistent"
    res = run_test("table9: {model=alpha} > {model=beta} @ A", book, "pp")
    assert res.verdict == "contradicted"
    assert "1.00" in res.detail and "2.00" in res.detail  # the proving cells are named
    # every pair must hold by default: alpha is above beta on B (4 > 3) but not on A
    assert verdict(book, "table9: {model=alpha} > {model=beta} @ A, B") == "contradicted"
    assert verdict(book, "table9: {model=alpha} > {model=beta} @ A, B ; at least 1") == "consistent"


def test_equal_prints_are_not_checkable(book):
    # Avg.: alpha 2.50 = beta 2.50
    assert verdict(book, "table9: {model=alpha} > {model=beta} @ Avg.") == "not checkable"
    assert verdict(book, "table9: {model=alpha} >= {model=beta} @ Avg.") == "consistent"


def test_rest_max_mean_and_groups(book):
    # gamma 3.00 and + angle 3.50 against the base rows on A: the largest, 3.50, is above every other row
    assert verdict(book, "table9: {model=+ angle} > rest @ A") == "consistent"
    assert verdict(book, "table9: {model=gamma} > rest @ A") == "contradicted"  # 3.00 < 3.50
    assert verdict(book, "table9: max{size=large} > max{size=base} @ A") == "consistent"  # 3.50 > 2.00
    # mean of the base rows on A = 1.50: below alpha? no, 1.00 < 1.50
    assert verdict(book, "table9: mean{size=base} > {model=alpha} @ A") == "consistent"
    assert verdict(book, "table9: mean{size=base} > {model=beta} @ A") == "contradicted"
    # within each size: base alpha < beta on A, large gamma < + angle on A
    assert verdict(book, "table9: {model=beta|+ angle} > rest @ A ; for size") == "consistent"
    assert verdict(book, "table9: {model=alpha|+ angle} > rest @ A ; for size") == "contradicted"


def test_cells_that_print_no_number_are_left_out_and_named(book):
    res = run_test("table9: {model=alpha} > rest @ B ; where size=base|large", book, "pp")
    # B: alpha 4.00 against beta 3.00 and + angle 2.00; gamma's N/A is left out
    assert res.verdict == "consistent" and len(res.pairs) == 2
    assert any("N/A" in s for s in res.skipped)


def test_most_and_bounds(book):
    # A against the bound 2.50: 1.00, 2.00 below; 3.00, 3.50 above -> 2 of 4, and most needs 3
    assert verdict(book, "table9: {} > 2.50 @ A ; most") == "contradicted"
    assert verdict(book, "table9: {} <= 3.50 @ A") == "consistent"


def test_next_and_previous_rows(book):
    # "+ angle" (3.50) is printed right after gamma (3.00)
    assert verdict(book, "table9: {model=+ angle} > previous @ A") == "consistent"
    assert verdict(book, "table9: next{model=gamma} > {model=gamma} @ A") == "consistent"
    assert verdict(book, "table9: {model=+ angle} > previous @ Avg.") == "contradicted"  # 2.75 < 3.00


def test_cell_arithmetic(book):
    # (beta - alpha) on A = 1.00; (alpha - beta) on B = 1.00: equal, so '>' is not checkable
    spec = "expr: [table9: model=beta @ A] - [table9: model=alpha @ A] > [table9: model=alpha @ B] - [table9: model=beta @ B]"
    assert verdict(book, spec) == "not checkable"
    assert verdict(book, "expr: [table9: model=gamma @ A] / [table9: model=beta @ A] > 1.4") == "consistent"  # 1.5
    assert verdict(book, "expr: [long: row=x&column=r @ value] < 0.2 and [long: row=y&column=r @ value] < 0.2") \
        == "contradicted"  # 0.30 is not below 0.2
    with pytest.raises(ValueError):
        run_test("expr: [table9: size=base @ A] > 0", book, "pp")  # two rows: a cell reference names one


def test_share_columns_and_correlation(book):
    assert verdict(book, "share: table9: {size=base} of {} >= 0.5") == "consistent"  # 2 of 4
    assert verdict(book, "share: table9: {size=large} of {} > 0.5") == "contradicted"
    # within rows: B above A for alpha (4 > 1) and beta (3 > 2), not for + angle (2 < 3.5); gamma's B is N/A
    assert verdict(book, "columns: table9: B > A ; where size=base") == "consistent"
    assert verdict(book, "columns: table9: B > A") == "contradicted"
    # A and Avg. over alpha, beta, gamma: (1, 2.5), (2, 2.5), (3, 3): Pearson r = 0.866 > 0
    assert verdict(book, "corr: table9: A ~ Avg. > 0.8 ; where model!=+ angle") == "consistent"
    assert verdict(book, "corr: table9: A ~ Avg. < 0 ; where model!=+ angle") == "contradicted"


def test_joined_tests_are_contradicted_when_one_part_is(book):
    ok, bad = "table9: {model=beta} > {model=alpha} @ A", "table9: {model=alpha} > {model=beta} @ A"
    assert verdict(book, f"{ok} && {ok}") == "consistent"
    assert verdict(book, f"{ok} && {bad}") == "contradicted"
    assert verdict(book, f"{ok} && table9: {{model=alpha}} > {{model=beta}} @ Avg.") == "not checkable"


def test_a_malformed_test_raises(book):
    for spec in ("table9: {model=alpha} ~ {model=beta} @ A", "table9: {model=alpha} > {model=beta} @ Z",
                 "table9: {model=alpha} > {model=beta} @ A ; sometimes", "table9: {model=delta} > rest @ A"):
        with pytest.raises((ValueError, KeyError)):
            run_test(spec, book, "pp")
