"""companion.metrics.geometry: alignment/uniformity (Wang & Isola 2020), angles, anisotropy, effective rank, PR."""

import math

import pytest
import torch

from companion.metrics.geometry import (
    alignment,
    anisotropy,
    effective_rank,
    geometry_summary,
    log_alignment,
    mean_negative_angle,
    mean_positive_angle,
    pairwise_angles,
    participation_ratio,
    positive_angles,
    uniformity,
)


def gauss(n=2000, d=32, seed=0, mean=0.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g, dtype=torch.float64) + mean


def test_alignment_zero_for_identical_and_hand_value():
    x = gauss(50)
    assert alignment(x, x.clone()) == 0.0
    y = -x
    assert alignment(x, y) == pytest.approx(4.0)  # antipodal unit vectors: |2u|^2
    e = torch.eye(3, dtype=torch.float64)
    assert alignment(e, e.roll(1, 0)) == pytest.approx(2.0)  # orthogonal unit vectors: |u - v|^2 = 2
    assert alignment(e, e.roll(1, 0), alpha=1) == pytest.approx(math.sqrt(2))


def test_log_alignment_is_simace_eq11_the_log_of_the_plain_mean():
    e = torch.eye(3, dtype=torch.float64)
    assert log_alignment(e, e.roll(1, 0)) == pytest.approx(math.log(2.0))
    x = gauss(50)
    y = x + 0.3 * gauss(50, seed=1)
    assert log_alignment(x, y) == pytest.approx(math.log(alignment(x, y)))
    assert log_alignment(x, y) < alignment(x, y)       # log a < a for every a > 0: the two readings differ
    with pytest.raises(ValueError, match="coincides"):
        log_alignment(x, x.clone())


def test_uniformity_nonpositive_zero_under_collapse_and_brute_force():
    x = gauss(40, 8)
    u = uniformity(x)
    xn = torch.nn.functional.normalize(x, dim=1)
    brute = math.log(sum(math.exp(-2 * float((xn[i] - xn[j]).pow(2).sum()))
                         for i in range(40) for j in range(i + 1, 40)) / (40 * 39 / 2))
    assert u == pytest.approx(brute, rel=1e-10) and u < 0
    collapsed = torch.ones(10, 5) * torch.randn(1, 5)
    assert uniformity(collapsed) == pytest.approx(0.0, abs=1e-12)
    assert uniformity(gauss(500, 8)) < uniformity(gauss(500, 8, mean=2.0))  # a shared mean is less uniform


def test_angles():
    e = torch.eye(4, dtype=torch.float64)
    torch.testing.assert_close(positive_angles(e, e), torch.zeros(4, dtype=torch.float64), atol=1e-5, rtol=0)
    assert mean_positive_angle(e, -e) == pytest.approx(180.0)
    assert mean_negative_angle(e) == pytest.approx(90.0)
    assert pairwise_angles(e).numel() == 6 and pairwise_angles(e, e).numel() == 12
    x = torch.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    torch.testing.assert_close(pairwise_angles(x), torch.tensor([45.0, 90.0, 45.0], dtype=torch.float64))


def test_anisotropy_isotropic_vs_shared_mean():
    assert abs(anisotropy(gauss())) < 0.01
    values = [anisotropy(gauss(mean=m)) for m in (0.0, 0.5, 1.0, 3.0)]
    assert all(a < b for a, b in zip(values, values[1:])) and values[-1] > 0.85
    x = gauss(300, 16, mean=0.7)
    xn = torch.nn.functional.normalize(x, dim=1)
    cos = xn @ xn.T
    exact = float((cos.sum() - cos.diagonal().sum()) / (300 * 299))
    assert anisotropy(x) == pytest.approx(exact, rel=1e-10)
    assert anisotropy(x, n_pairs=20000, seed=1) == pytest.approx(exact, abs=0.02)


def test_effective_rank():
    q, _ = torch.linalg.qr(gauss(16, 16))
    assert effective_rank(q) == pytest.approx(16.0, rel=1e-9)  # orthonormal rows: all singular values equal
    assert effective_rank(torch.eye(5, 9, dtype=torch.float64)) == pytest.approx(5.0)
    rank_one = torch.outer(torch.randn(20, dtype=torch.float64), torch.randn(7, dtype=torch.float64))
    assert effective_rank(rank_one) == pytest.approx(1.0, abs=1e-6)
    assert effective_rank(gauss(2000, 10) * torch.tensor([10.0] + [0.01] * 9)) < 2.0
    with pytest.raises(ValueError, match="all-zero"):
        effective_rank(torch.zeros(3, 3))


def _rotation(angle):
    c, s = math.cos(angle), math.sin(angle)
    return torch.tensor([[c, -s], [s, c]], dtype=torch.float64)


def _entropy_rank(weights):
    """exp of the Shannon entropy of ``weights`` normalised to sum to 1 (Roy & Vetterli's definition, by hand)."""
    p = [w / sum(weights) for w in weights]
    return math.exp(-sum(q * math.log(q) for q in p))


def test_effective_rank_normalises_the_singular_values_not_their_squares():
    # singular values 3 and 1: p = (3/4, 1/4) -> exp(H) = 1.7548; squared values p = (9/10, 1/10) -> 1.3841
    expected = math.exp(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)))
    assert expected == pytest.approx(1.7547653, abs=1e-6)
    assert _entropy_rank([9.0, 1.0]) == pytest.approx(1.3841455, abs=1e-6)  # what the squared values would give
    diag = torch.diag(torch.tensor([3.0, 1.0], dtype=torch.float64))
    assert effective_rank(diag) == pytest.approx(expected, abs=1e-9)
    rotated = _rotation(0.4) @ diag @ _rotation(1.1).T        # the same singular values in no particular axes
    assert effective_rank(rotated) == pytest.approx(expected, abs=1e-9)
    assert effective_rank(torch.diag(torch.tensor([5.0, 3.0, 2.0], dtype=torch.float64))) == pytest.approx(
        _entropy_rank([5.0, 3.0, 2.0]), abs=1e-9)


def test_effective_rank_centres_only_when_asked():
    # rows +-3 along one axis and +-1 along the other: centred, the columns are orthogonal with norms sqrt(18) and
    # sqrt(2), so the singular values are 3 sqrt(2) and sqrt(2) (ratio 3 : 1 again); then rotated and shifted by a
    # different amount per column (centring subtracts each column's mean, not one mean of all entries)
    spread = torch.tensor([[3.0, 0.0], [-3.0, 0.0], [0.0, 1.0], [0.0, -1.0]], dtype=torch.float64)
    x = spread @ _rotation(0.7).T + torch.tensor([10.0, -4.0], dtype=torch.float64)
    assert effective_rank(x, center=True) == pytest.approx(_entropy_rank([3.0, 1.0]), abs=1e-9)
    raw = torch.linalg.svdvals(x).tolist()                   # uncentred: the shift adds a large singular value
    assert effective_rank(x) == pytest.approx(_entropy_rank(raw), abs=1e-9)
    assert abs(effective_rank(x) - _entropy_rank([3.0, 1.0])) > 0.1


def test_participation_ratio_of_a_hand_covariance():
    # the same centred rows: covariance eigenvalues proportional to 18 and 2, so (18 + 2)^2 / (18^2 + 2^2) = 400/328;
    # the singular values themselves (3 sqrt 2, sqrt 2) would give 32/20, the uncentred matrix something else
    spread = torch.tensor([[3.0, 0.0], [-3.0, 0.0], [0.0, 1.0], [0.0, -1.0]], dtype=torch.float64)
    x = spread @ _rotation(0.7).T + torch.tensor([10.0, -4.0], dtype=torch.float64)
    assert participation_ratio(x) == pytest.approx(400 / 328, abs=1e-9)
    assert participation_ratio(torch.diag(torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64))) == pytest.approx(
        2.0, abs=1e-9)  # three points e1, e2, e3: centred covariance has eigenvalues 1/3, 1/3, 0 -> (2/3)^2/(2/9) = 2


def test_participation_ratio():
    assert participation_ratio(gauss(20000, 8)) == pytest.approx(8.0, rel=0.03)
    line = torch.linspace(-1, 1, 50, dtype=torch.float64)[:, None] * torch.tensor([[1.0, 2.0, 3.0]],
                                                                                  dtype=torch.float64)
    assert participation_ratio(line) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="zero covariance"):
        participation_ratio(torch.ones(4, 3))


def test_summary_and_bad_input():
    x, y = gauss(30, 6), gauss(30, 6, seed=1)
    s = geometry_summary(x, y)
    assert set(s) == {"uniformity", "anisotropy", "effective_rank", "participation_ratio", "alignment",
                      "positive_angle", "negative_angle"}
    bad = x.clone()
    bad[0, 0] = float("nan")
    with pytest.raises(ValueError, match="NaN or Inf"):
        uniformity(bad)
    with pytest.raises(ValueError, match="different lengths"):
        alignment(x, y[:10])
    with pytest.raises(ValueError, match="at least 2 rows"):
        uniformity(x[:1])
    with pytest.raises(ValueError, match="must be 2-D"):
        anisotropy(x[0])
    with pytest.raises(ValueError, match="n_pairs must be"):
        anisotropy(x, n_pairs=0)


def test_alignment_and_uniformity_without_normalising_use_the_raw_rows():
    x = torch.tensor([[3.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    y = torch.tensor([[0.0, 0.0], [0.0, 3.0]], dtype=torch.float64)
    assert alignment(x, y, normalize=False) == pytest.approx((9 + 4) / 2)          # |x_i - y_i|^2: 9 and 4
    assert alignment(x, y, alpha=1, normalize=False) == pytest.approx((3 + 2) / 2)
    assert log_alignment(x, y, normalize=False) == pytest.approx(math.log(6.5))
    # one pair at squared distance 3^2 + 1^2 = 10: log e^{-2 * 10}; normalised, the rows are orthogonal: -2 * 2
    assert uniformity(x, normalize=False) == pytest.approx(-20.0)
    assert uniformity(x) == pytest.approx(-4.0)
    assert uniformity(x, t=0.5) == pytest.approx(-1.0)                          # any t > 0 is allowed
    for bad in ({"alpha": 0.0}, {"alpha": -1.0}):
        with pytest.raises(ValueError, match="alpha must be > 0"):
            alignment(x, y, **bad)
    with pytest.raises(ValueError, match="t must be > 0"):
        uniformity(x, t=0.0)


def test_log_alignment_passes_alpha_on():
    e = torch.eye(3, dtype=torch.float64)
    assert log_alignment(e, e.roll(1, 0), alpha=1) == pytest.approx(0.5 * math.log(2.0))   # log sqrt(2)


def test_angles_clamp_cosines_rounded_past_one():
    from companion.metrics.geometry import _angles_deg

    cos = torch.tensor([1.0 + 1e-12, -1.0 - 1e-12, 0.5], dtype=torch.float64)
    torch.testing.assert_close(_angles_deg(cos), torch.tensor([0.0, 180.0, 60.0], dtype=torch.float64))


def test_angles_between_two_sets_and_among_more_rows_than_dimensions():
    x = torch.eye(2, dtype=torch.float64)
    y = torch.tensor([[1.0, 1.0], [1.0, -1.0]], dtype=torch.float64)
    # (x_0, y_1) and (x_1, y_0) are both at 45 degrees; x against itself would give 90
    assert mean_negative_angle(x, y) == pytest.approx(45.0)
    assert mean_negative_angle(x) == pytest.approx(90.0)
    torch.testing.assert_close(pairwise_angles(x, y), torch.tensor([45.0, 45.0], dtype=torch.float64))
    # four unit vectors at 0, 30, 75 and 120 degrees in the plane: the six pairs i < j in row-major order
    deg = torch.tensor([0.0, 30.0, 75.0, 120.0], dtype=torch.float64)
    four = torch.stack([torch.cos(torch.deg2rad(deg)), torch.sin(torch.deg2rad(deg))], dim=1)
    torch.testing.assert_close(pairwise_angles(four), torch.tensor([30.0, 75.0, 120.0, 45.0, 90.0, 45.0],
                                                                   dtype=torch.float64))


def test_two_rows_are_enough():
    two = torch.tensor([[1.0, 0.0], [1.0, 1.0]], dtype=torch.float64)
    torch.testing.assert_close(pairwise_angles(two), torch.tensor([45.0], dtype=torch.float64))
    torch.testing.assert_close(pairwise_angles(two, two.flip(0)), torch.tensor([0.0, 0.0], dtype=torch.float64),
                               atol=1e-5, rtol=0)  # arccos near 1 turns rounding of the cosine into 1e-6 degrees
    assert anisotropy(two) == pytest.approx(math.sqrt(0.5))
    assert anisotropy(two, n_pairs=1) == pytest.approx(math.sqrt(0.5))
    assert participation_ratio(two) == pytest.approx(1.0)      # two points: all variance along their difference


def test_sampled_anisotropy_draws_uniform_ordered_pairs_with_its_seed():
    """200,000 sampled pairs of rows whose cosines are 0 or 1, so the estimate is a binomial share: it must lie
    within 6 standard errors (0.0067) of the exact mean over ordered pairs i != j."""
    e1, e2 = [1.0, 0.0], [0.0, 1.0]
    # rows 1-3 equal, row 0 apart: 6 of the 12 ordered pairs have cosine 1 (a sampler that never draws i = 0 gets 2/3)
    apart = torch.tensor([e1, e2, e2, e2], dtype=torch.float64)
    # two equal pairs: 4 of 12 (a sampler whose j never follows i, j != i + 1 mod 4, gets 1/4)
    paired = torch.tensor([e1, e1, e2, e2], dtype=torch.float64)
    n = 200_000
    for x, exact in ((apart, 0.5), (paired, 1 / 3)):
        assert anisotropy(x) == pytest.approx(exact)
        assert abs(anisotropy(x, n_pairs=n, seed=0) - exact) <= 6 * math.sqrt(exact * (1 - exact) / n)
    x = gauss(50, 4, mean=0.3)
    assert anisotropy(x, n_pairs=100, seed=3) == anisotropy(x, n_pairs=100, seed=3)   # the seed decides it
    assert anisotropy(x, n_pairs=100, seed=3) != anisotropy(x, n_pairs=100, seed=4)
    assert anisotropy(x, n_pairs=100) == anisotropy(x, n_pairs=100, seed=0)           # the documented default


def test_rank_measures_of_small_scales_and_exact_zeros():
    # an exactly zero singular value takes no part (0 log 0 = 0): diag(3, 1, 0) has the rank of diag(3, 1)
    expected = math.exp(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)))
    assert effective_rank(torch.diag(torch.tensor([3.0, 1.0, 0.0], dtype=torch.float64))) == pytest.approx(expected)
    assert effective_rank(1e-3 * torch.eye(3, dtype=torch.float64)) == pytest.approx(3.0)      # scale-free
    small = 1e-3 * torch.tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]], dtype=torch.float64)
    assert participation_ratio(small) == pytest.approx(2.0)                                      # scale-free


def test_summary_reports_each_measure():
    x, y = gauss(30, 6), gauss(30, 6, seed=1)
    s = geometry_summary(x, y)
    assert s["negative_angle"] == pytest.approx(mean_negative_angle(x, y))
    assert s["negative_angle"] != pytest.approx(mean_negative_angle(x))
    assert s["positive_angle"] == pytest.approx(mean_positive_angle(x, y))
    assert s["alignment"] == pytest.approx(alignment(x, y))
    assert s["effective_rank"] == pytest.approx(effective_rank(x))
    assert s["participation_ratio"] == pytest.approx(participation_ratio(x))
    assert s["uniformity"] == pytest.approx(uniformity(x)) and s["anisotropy"] == pytest.approx(anisotropy(x))


def test_one_row_is_refused_where_pairs_or_a_spread_are_needed():
    one = torch.tensor([[1.0, 2.0]], dtype=torch.float64)
    for call in (lambda: pairwise_angles(one), lambda: pairwise_angles(one, one), lambda: anisotropy(one),
                 lambda: uniformity(one, normalize=False), lambda: participation_ratio(one),
                 lambda: mean_negative_angle(one)):
        with pytest.raises(ValueError, match="need at least 2 rows, got 1"):
            call()
    assert effective_rank(one) == pytest.approx(1.0)          # one row: one singular value, rank 1
    assert alignment(one, -one) == pytest.approx(4.0)         # one positive pair is enough
    assert mean_positive_angle(one, -one) == pytest.approx(180.0)
