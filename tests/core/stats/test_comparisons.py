"""companion.stats.comparisons: intervals and tests against scipy and hand computations, Holm, the minimum
detectable effect and the sample size for a power, and the hierarchical bootstrap over seeds and test items."""

import math

import numpy as np
import pytest
from scipy import stats as sp

from companion import stats


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
    assert cmp.p_wilcoxon is None     # five values: below the n at which the signed-rank test can reject


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


@pytest.mark.parametrize("n", [3, 5, 10, 30])
def test_mde_has_about_the_stated_power(n):
    sd = 1.3
    effect = stats.mde(sd, n)
    dof = n - 1
    crit = sp.t.ppf(0.975, dof)
    nc = effect / (sd / math.sqrt(n))
    power = sp.nct.sf(crit, dof, nc) + sp.nct.cdf(-crit, dof, nc)
    assert power == pytest.approx(stats.POWER, abs=1e-6)
    assert stats.mde(sd, n) > stats.mde(sd, n + 1)
    assert stats.n_for_power(sd, effect) <= n


def test_comparison_records_mde_and_wilcoxon_only_from_six_values():
    assert stats.sample([0.1, 0.2, 0.3]).p_wilcoxon is None
    assert stats.sample([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).p_wilcoxon == pytest.approx(
        sp.wilcoxon([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).pvalue)
    cmp = stats.sample([0.1, 0.2, 0.3])
    assert cmp.to_dict()["mde"] == pytest.approx(stats.mde(cmp.sd, 3))


def test_hierarchical_bootstrap_resamples_items_within_seeds():
    rng = np.random.default_rng(1)
    gold = rng.normal(size=300)
    a = gold + rng.normal(scale=0.6, size=(3, 300))
    b = gold + rng.normal(scale=0.9, size=(3, 300))

    def rho(pred, g):
        return sp.spearmanr(pred, g)[0]

    cmp = stats.hierarchical_bootstrap(a, b, rho, gold=gold, n_boot=300, seed=0)
    per_seed = [rho(a[s], gold) - rho(b[s], gold) for s in range(3)]
    assert cmp.values == pytest.approx(tuple(per_seed)) and cmp.n == 3
    lo, hi = cmp.ci_items
    assert lo < cmp.estimate < hi and lo > 0
    assert cmp.interval[0] <= min(cmp.ci[0], lo) and cmp.to_dict()["ci_items"] == [lo, hi]
    # the same call gives the same interval; identical systems give a zero interval
    assert stats.hierarchical_bootstrap(a, b, rho, gold=gold, n_boot=300, seed=0).ci_items == (lo, hi)
    same = stats.hierarchical_bootstrap(a, a, rho, gold=gold, n_boot=100)
    assert same.ci_items == (0.0, 0.0)
    # with few items the item interval is wider than the seed-only one
    small = stats.hierarchical_bootstrap(a[:, :30], b[:, :30], rho, gold=gold[:30], n_boot=300)
    assert small.ci_items[1] - small.ci_items[0] > cmp.ci_items[1] - cmp.ci_items[0]
    with pytest.raises(ValueError):
        stats.hierarchical_bootstrap(a, b[:2], rho, gold=gold)
    with pytest.raises(ValueError):
        stats.hierarchical_bootstrap(a, b, rho, gold=gold[:5])


# --------------------------------------------------------------------------------------------- boundaries (mutation tests)
def test_an_interval_touching_zero_or_the_paper_value_covers_it(comparison):
    assert comparison((0.0, 1.0)).excludes_zero() == 0 and comparison((-1.0, 0.0)).excludes_zero() == 0
    assert comparison((1e-9, 1.0)).excludes_zero() == 1 and comparison((-1.0, -1e-9)).excludes_zero() == -1
    assert comparison((0.2, 0.5)).covers(0.2) and comparison((0.2, 0.5)).covers(0.5) and not comparison((0.2, 0.5)).covers(0.50001)
    no_ci = stats.Comparison((1.0,), 1.0, None, None, 0.95, 1, "t", None, None)
    assert no_ci.excludes_zero() == 0 and not no_ci.covers(1.0) and no_ci.mde is None


def test_mde_and_n_for_power_validate_and_scale():
    assert stats.mde(0.0, 3) == 0.0
    for sd, n in [(float("nan"), 3), (-1.0, 3), (1.0, 1), (1.0, 2.5), (1.0, True)]:
        with pytest.raises(ValueError):
            stats.mde(sd, n)
    with pytest.raises(ValueError):
        stats.mde(1.0, 3, confidence=1.0)
    assert stats.mde(1.0, 5, confidence=0.99) > stats.mde(1.0, 5) > stats.mde(1.0, 5, power=0.5)
    n = stats.n_for_power(1.0, 1.0)
    assert stats.mde(1.0, n) <= 1.0 < stats.mde(1.0, n - 1)
    assert stats.n_for_power(1.0, 1.0, confidence=0.99) > n and stats.n_for_power(1.0, 1.0, power=0.5) < n
    assert stats.n_for_power(0.0, 1.0) == 2 and stats.n_for_power(1.0, 0.0) is None
    assert stats.n_for_power(1.0, float("inf")) is None and stats.n_for_power(1.0, 0.01, n_max=50) is None
    assert stats.n_for_power(1.0, -1.0) == n


def test_summary_fields_and_confidence_bounds():
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError):
            stats.sample([0.1, 0.2], confidence=bad)
    one = stats.paired([1.0], [0.5], labels=("a", "b"))
    assert one.values == (0.5,) and one.estimate == 0.5 and one.n == 1 and one.labels == ("a", "b")
    assert one.confidence == 0.95 and one.test.startswith("paired t") and one.p is None
    two = stats.sample([0.1, 0.3])
    assert two.ci is not None and two.sd == pytest.approx(np.std([0.1, 0.3], ddof=1))
    zero = stats.sample([0.0, 0.0, 0.0])
    assert zero.p == 1.0 and zero.ci == (0.0, 0.0) and zero.p_wilcoxon is None
    ones = stats.sample([1.0] * 6)
    assert ones.p == 0.0 and ones.p_wilcoxon == pytest.approx(sp.wilcoxon([1.0] * 6).pvalue)
    labelled = stats.paired([1.0, 2.0, 3.0], [0.0, 0.5, 1.0], labels=("A", "B"))
    assert labelled.labels == ("A", "B") and labelled.to_dict()["labels"] == ["A", "B"]
    assert "ci_items" not in labelled.to_dict() and labelled.interval == labelled.ci
    assert stats.sample([0.1, 0.2, 0.4], confidence=0.9).ci[1] < stats.sample([0.1, 0.2, 0.4]).ci[1]


def test_hierarchical_bootstrap_keeps_the_seed_statistics_and_validates():
    rng = np.random.default_rng(3)
    a, b = rng.normal(1.0, 1.0, size=(4, 50)), rng.normal(0.0, 1.0, size=(4, 50))
    cmp = stats.hierarchical_bootstrap(a, b, np.mean, n_boot=200, labels=("a", "b"))
    base = stats.paired(a.mean(axis=1), b.mean(axis=1))
    assert cmp.sd == pytest.approx(base.sd) and cmp.p == pytest.approx(base.p) and cmp.labels == ("a", "b")
    assert cmp.test.startswith("paired t over seeds")
    assert cmp.ci_items[0] < cmp.estimate < cmp.ci_items[1]
    narrow = stats.hierarchical_bootstrap(a, b, np.mean, n_boot=200, confidence=0.5)
    assert narrow.ci_items[1] - narrow.ci_items[0] < cmp.ci_items[1] - cmp.ci_items[0]
    with pytest.raises(ValueError):
        stats.hierarchical_bootstrap(a[:, :1], b[:, :1], np.mean)
    with pytest.raises(ValueError):
        stats.hierarchical_bootstrap(a, np.where(b > 0, np.nan, b), np.mean)
    with pytest.raises(ValueError):
        stats.hierarchical_bootstrap(a, b, np.mean, n_boot=10)
    ints = stats.hierarchical_bootstrap([[1, 2, 3]], [[0, 0, 1]], np.mean, n_boot=100)
    assert ints.estimate == pytest.approx(5 / 3) and ints.ci is None and ints.ci_items is not None


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_hierarchical_bootstrap_percentiles_match_the_normal_interval_of_a_mean(confidence):
    """One seed, the metric a mean of 2,000 items: the bootstrap distribution of the mean difference is close to
    normal with sd = s / sqrt(n) (s the items' plug-in sd), so the percentile interval is about the mean ± z · sd,
    z = 1.959964 at 95 % and 1.644854 at 90 % (normal quantiles, written out). With 20,000 resamples the quantiles
    carry a Monte Carlo error of about 0.02 sd (0.03 sd at 90 %); the tolerance is 0.1 sd. Moving a quantile from
    2.5 % to 5 % shifts that end by 0.31 sd."""
    z = {0.95: 1.959964, 0.9: 1.644854}[confidence]
    rng = np.random.default_rng(7)
    a = rng.normal(0.3, 1.0, size=(1, 2000))
    b = np.zeros_like(a)
    cmp = stats.hierarchical_bootstrap(a, b, np.mean, n_boot=20_000, seed=1, confidence=confidence)
    d = a[0] - b[0]
    sd = math.sqrt(((d - d.mean()) ** 2).mean() / d.size)
    lo, hi = cmp.ci_items
    assert lo == pytest.approx(d.mean() - z * sd, abs=0.1 * sd)
    assert hi == pytest.approx(d.mean() + z * sd, abs=0.1 * sd)


def test_hierarchical_bootstrap_resamples_the_seeds():
    """Five seeds whose per-seed differences are -2, -1, 0, 1, 2 (each item within a seed almost the same): the
    interval comes from resampling the seeds. By hand, the mean of five draws with replacement from {-2, ..., 2}
    has 2.5 % and 97.5 % quantiles -1.2 and 1.2 (P(mean <= -1.4) = 0.018, P(mean <= -1.2) = 0.040, over the 5^5
    equally likely draws): a width of about 2.4. Resampling only the items would give a width near 0.001."""
    rng = np.random.default_rng(2)
    offsets = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])[:, None]
    a = offsets + 0.01 * rng.normal(size=(5, 1000))
    b = np.zeros_like(a)
    lo, hi = stats.hierarchical_bootstrap(a, b, np.mean, n_boot=2000, seed=0).ci_items
    assert -1.45 < lo < -0.95 and 0.95 < hi < 1.45
    assert hi - lo > 1.6


def _t_two_dof_quantile(q):
    """Student's t quantile with 2 degrees of freedom, in closed form: (2q - 1) sqrt(2 / (4 q (1 - q)))."""
    return (2 * q - 1) * math.sqrt(2 / (4 * q * (1 - q)))


def _t_two_dof_p(t):
    """Two-sided p-value of t with 2 degrees of freedom, in closed form: 1 - |t| / sqrt(t^2 + 2)."""
    return 1 - abs(t) / math.sqrt(t * t + 2)


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_paired_table_columns_by_hand(confidence):
    results = {"A": [1.0, 1.1, 1.2], "B": [0.9, 1.0, 1.0], "C": [1.0, 1.1, 1.25]}
    frame = stats.paired_table(results, [("A", "B"), ("A", "C")], confidence=confidence)
    assert list(frame.columns) == ["A", "B", "A − B", "CI low", "CI high", "n", "p (t)", "p (Wilcoxon)",
                                   "p (Holm)"]
    assert list(frame["A"]) == ["A", "A"] and list(frame["B"]) == ["B", "C"] and list(frame["n"]) == [3, 3]
    # A - B = (0.1, 0.1, 0.2): mean 0.4/3, sd sqrt(1/300), SE 1/30, t = 4; A - C = (0, 0, -0.05): mean -1/60,
    # SE 1/60, t = -1
    half = _t_two_dof_quantile(0.5 + confidence / 2) / 30
    assert frame["A − B"][0] == pytest.approx(0.4 / 3)
    assert frame["CI low"][0] == pytest.approx(0.4 / 3 - half) and frame["CI high"][0] == pytest.approx(0.4 / 3 + half)
    assert frame["A − B"][1] == pytest.approx(-1 / 60)
    p_ab, p_ac = _t_two_dof_p(4.0), _t_two_dof_p(-1.0)               # 0.057191 and 0.422650
    assert list(frame["p (t)"]) == pytest.approx([p_ab, p_ac])
    assert list(frame["p (Holm)"]) == pytest.approx([2 * p_ab, p_ac])  # the smaller p doubled, the larger kept
    assert frame["p (Wilcoxon)"].isna().all()                          # three seeds: not reported


def test_paired_table_of_single_seeds_and_missing_variants():
    frame = stats.paired_table({"A": [1.0], "B": [0.5], "C": [0.7]}, [("A", "B"), ("A", "C")])
    assert list(frame["A − B"]) == pytest.approx([0.5, 0.3])
    assert frame["CI low"].isna().all() and frame["CI high"].isna().all()
    assert list(frame["p (Holm)"]) == [1.0, 1.0]                       # no test: counted as p = 1 for Holm
    empty = stats.paired_table({"A": [1.0]}, [])
    assert len(empty) == 0 and "p (Holm)" in empty
    with pytest.raises(KeyError, match=r"no values for \['Z'\]"):
        stats.paired_table({"A": [1.0, 2.0]}, [("A", "Z")])


def test_comparison_record_holds_every_field():
    cmp = stats.paired([1.0, 2.0, 3.0], [0.5, 1.0, 2.0])
    record = cmp.to_dict()
    assert set(record) == {"estimate", "sd", "ci", "confidence", "n", "test", "p", "p_wilcoxon", "values", "mde"}
    assert record["estimate"] == pytest.approx(2.5 / 3) and record["n"] == 3 and record["confidence"] == 0.95
    assert record["values"] == [0.5, 1.0, 1.0] and record["p_wilcoxon"] is None
    assert record["sd"] == pytest.approx(math.sqrt(1 / 12)) and record["test"].startswith("paired t")
    assert record["ci"] == pytest.approx(list(cmp.ci)) and record["p"] == pytest.approx(cmp.p)
    one = stats.sample([0.3]).to_dict()
    assert one["ci"] is None and one["sd"] is None and one["mde"] is None and one["p"] is None


def test_difference_se_accepts_a_zero_spread_and_refuses_bad_ones():
    assert stats.difference_se(0.0, 0.4, 4) == pytest.approx(0.2)           # sqrt((0 + 0.16) / 4)
    assert stats.difference_se(0.3, 0.0, 1) == pytest.approx(0.3)
    for sd_a, sd_b in [(-0.1, 0.4), (0.3, -0.1), (float("inf"), 0.3), (0.3, float("nan")), (float("nan"), -1.0)]:
        with pytest.raises(ValueError, match="finite standard deviations"):
            stats.difference_se(sd_a, sd_b, 4)
