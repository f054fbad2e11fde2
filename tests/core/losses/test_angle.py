"""AnglE (arXiv 2309.12871): CoSENT, in-batch negatives with ISP, the angle similarity and loss, the combined
objective, the three readings of Eq. 6, and SBERT's cosine regression."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F

from companion.losses.angle import (
    AnglEObjective,
    CosineRegression,
    angle_loss,
    angle_objective,
    complex_divide,
    cosent_loss,
    eq6_atan2,
    eq6_code,
    eq6_literal,
    ibn_loss,
    ibn_targets,
    split_pairs,
)
from companion.similarities import complex_angle


def _batch(pairs=6, dim=8, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    emb = torch.randn(2 * pairs, dim, generator=g, dtype=dtype)
    labels = torch.rand(pairs, generator=g, dtype=dtype) * 5
    return emb, labels


def _cosent_reference(scores, labels, scale):
    """Hand computation of Eq. 1: log(1 + sum over ordered pairs (y_i > y_j) of exp(scale (s_j - s_i)))."""
    total = 1.0
    for i in range(len(scores)):
        for j in range(len(scores)):
            if labels[i] > labels[j]:
                total += math.exp(scale * (float(scores[j]) - float(scores[i])))
    return math.log(total)


# --------------------------------------------------------------------------------------------- CoSENT
def test_cosent_matches_hand_computation():
    emb, labels = _batch()
    u, v = split_pairs(emb)
    scores = F.cosine_similarity(u, v, dim=-1)
    assert float(cosent_loss(emb, labels, tau=0.05)) == pytest.approx(_cosent_reference(scores, labels, 20.0),
                                                                      rel=1e-10)


def test_cosent_zero_for_equal_labels_positive_otherwise():
    emb, _ = _batch()
    assert float(cosent_loss(emb, torch.full((6,), 3.0))) == 0.0
    labels = torch.tensor([1.0, 1.0, 1.0, 1.0, 1.0, 2.0])
    assert float(cosent_loss(emb, labels)) > 0.0


def test_cosent_invariant_to_monotone_label_transform_and_pair_order():
    emb, labels = _batch(pairs=7, seed=3)
    base = cosent_loss(emb, labels)
    assert torch.allclose(cosent_loss(emb, torch.exp(labels) * 3 - 1), base)
    perm = torch.randperm(7, generator=torch.Generator().manual_seed(1))
    rows = torch.stack([2 * perm, 2 * perm + 1], dim=1).reshape(-1)
    assert torch.allclose(cosent_loss(emb[rows], labels[perm]), base)


def test_cosent_equals_scale20_logsumexp_and_sentence_transformers():
    from sentence_transformers.losses import CoSENTLoss
    from sentence_transformers.util import pairwise_cos_sim

    emb, labels = _batch(pairs=9, dim=16, seed=5, dtype=torch.float32)
    u, v = split_pairs(emb)
    s = F.cosine_similarity(u, v, dim=-1) * 20
    diff = s[None, :] - s[:, None]  # [i, j] = s_j - s_i
    ordered = labels[:, None] > labels[None, :]
    lse = torch.logsumexp(torch.cat([torch.zeros(1), diff[ordered]]), dim=0)
    ours = cosent_loss(emb, labels, tau=0.05)
    assert float(ours) == pytest.approx(float(lse), abs=1e-6)
    stub = SimpleNamespace(similarity_fct=pairwise_cos_sim, scale=20.0)
    ref = CoSENTLoss.compute_loss_from_embeddings(stub, [u, v], labels)
    assert float(ours) == pytest.approx(float(ref), abs=1e-6)


# --------------------------------------------------------------------------------------------- angle similarity
def test_complex_division_matches_python_complex():
    x = torch.tensor([[1.0, -2.0, 0.5, 3.0, 0.25, -1.0]], dtype=torch.float64)
    y = torch.tensor([[0.5, 1.5, -2.0, -1.0, 2.0, 0.75]], dtype=torch.float64)
    re, im = complex_divide(x, y)
    for k in range(3):
        z = complex(float(x[0, k]), float(x[0, k + 3])) / complex(float(y[0, k]), float(y[0, k + 3]))
        assert float(re[0, k]) == pytest.approx(z.real, rel=1e-12)
        assert float(im[0, k]) == pytest.approx(z.imag, rel=1e-12)


def test_eq6_code_is_cos_plus_cos_rotated():
    emb, _ = _batch(pairs=5, dim=10, seed=2)
    u, v = split_pairs(emb)
    c, d = v.chunk(2, dim=-1)
    jv = torch.cat([-d, c], dim=-1)  # multiply each complex component of v by i
    expected = (F.cosine_similarity(u, v, dim=-1) + F.cosine_similarity(u, jv, dim=-1)).abs()
    assert torch.allclose(eq6_code(u, v), expected, atol=1e-12)


def test_angle_similarity_identities():
    g = torch.Generator().manual_seed(0)
    u = torch.randn(50, 12, generator=g, dtype=torch.float64)
    v = torch.randn(50, 12, generator=g, dtype=torch.float64)
    assert torch.allclose(complex_angle(u, u), torch.ones(50, dtype=torch.float64))
    assert torch.allclose(complex_angle(u, -u), torch.ones(50, dtype=torch.float64))
    assert torch.allclose(complex_angle(3.5 * u, 0.2 * v), complex_angle(u, v))
    s = complex_angle(u, v)
    assert bool((s <= math.sqrt(2) + 1e-12).all()) and bool((s >= 0).all())
    # the bound sqrt(2) is attained at v = (1 - J)u / sqrt 2 (45 degrees in every complex plane)
    a, b = u.chunk(2, dim=-1)
    best = torch.cat([a + b, b - a], dim=-1)
    assert torch.allclose(complex_angle(u, best), torch.full((50,), math.sqrt(2), dtype=torch.float64))


def test_angle_similarity_parity_with_sentence_transformers():
    from sentence_transformers.util import pairwise_angle_sim

    g = torch.Generator().manual_seed(4)
    u, v = torch.randn(64, 384, generator=g), torch.randn(64, 384, generator=g)
    assert torch.allclose(complex_angle(u, v), pairwise_angle_sim(u, v), atol=1e-6)


def test_angle_loss_parity_with_sentence_transformers_angle_loss():
    from sentence_transformers.losses import AnglELoss, CoSENTLoss
    from sentence_transformers.util import pairwise_angle_sim

    emb, labels = _batch(pairs=10, dim=32, seed=8, dtype=torch.float64)
    u, v = split_pairs(emb)
    assert pairwise_angle_sim(u, v).dtype == torch.float64
    for tau in (1.0, 0.05):
        stub = SimpleNamespace(similarity_fct=pairwise_angle_sim, scale=1.0 / tau)
        ref = CoSENTLoss.compute_loss_from_embeddings(stub, [u, v], labels)
        assert float(angle_loss(emb, labels, tau=tau)) == pytest.approx(float(ref), abs=1e-6)
    assert AnglELoss.__init__.__defaults__[0] == 20.0  # sentence-transformers' default scale (tau = 0.05)


def test_three_readings_of_eq6():
    g = torch.Generator().manual_seed(1)
    u = torch.randn(20, 8, generator=g, dtype=torch.float64, requires_grad=True)
    v = torch.randn(20, 8, generator=g, dtype=torch.float64)
    lit = eq6_literal(u, v)
    assert torch.allclose(lit, torch.ones(20, dtype=torch.float64))
    (grad,) = torch.autograd.grad(lit.sum(), u)
    assert float(grad.abs().max()) < 1e-10  # literal reading: constant, no gradient
    theta = eq6_atan2(u, v).detach()
    assert bool((theta >= 0).all()) and bool((theta <= math.pi).all())
    # atan2 reading equals the mean |arg(z) - arg(w)| computed with Python complex numbers
    import cmath

    for r in range(3):
        diffs = []
        for k in range(4):
            z = complex(float(u.detach()[r, k]), float(u.detach()[r, k + 4]))
            w = complex(float(v[r, k]), float(v[r, k + 4]))
            diffs.append(abs(cmath.phase(z * w.conjugate())))
        assert float(theta[r]) == pytest.approx(sum(diffs) / 4, rel=1e-10)
    assert torch.allclose(eq6_atan2(u.detach(), u.detach()), torch.zeros(20, dtype=torch.float64))


def test_cosine_gradient_vanishes_at_zero_angle_but_angle_term_does_not():
    """At theta = 0 the cosine has zero gradient w.r.t. u; the angle similarity keeps one."""
    v = torch.tensor([[1.0, 0.3, -0.2, 0.7]], dtype=torch.float64)
    u = v.clone().requires_grad_(True)
    (g_cos,) = torch.autograd.grad(F.cosine_similarity(u, v, dim=-1).sum(), u)
    assert float(g_cos.norm()) < 1e-7
    u2 = v.clone().requires_grad_(True)
    (g_ang,) = torch.autograd.grad(complex_angle(u2, v).sum(), u2)
    assert float(g_ang.norm()) > 0.1
    # the same at theta = pi
    u3 = (-v).clone().requires_grad_(True)
    (g_cos_pi,) = torch.autograd.grad(F.cosine_similarity(u3, v, dim=-1).sum(), u3)
    assert float(g_cos_pi.norm()) < 1e-7


def test_at_zero_angle_cosent_gradient_vanishes_but_angle_loss_gradient_does_not():
    """Loss level: every pair identical (theta = 0). CoSENT sees cos = 1 everywhere and has zero gradient; the angle
    loss (Eq. 7 on the code reading of Eq. 6) still pushes the embeddings."""
    g = torch.Generator().manual_seed(21)
    u = torch.randn(5, 8, generator=g, dtype=torch.float64)
    emb = torch.stack([u, u], dim=1).reshape(10, 8).requires_grad_(True)
    labels = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    (g_cos,) = torch.autograd.grad(cosent_loss(emb, labels), emb)
    (g_ang,) = torch.autograd.grad(angle_loss(emb, labels), emb)
    assert float(g_cos.abs().max()) < 1e-9
    assert float(g_ang.norm()) > 1e-3


# --------------------------------------------------------------------------------------------- in-batch negatives
def test_ibn_isp_marks_duplicates_as_positives_and_masks_self():
    labels = torch.tensor([1.0, 0.0, 1.0])
    texts = ["a", "b", "c", "d", "a", "e"]  # "a" occurs in pair 0 and pair 2
    pos, allowed = ibn_targets(labels, texts)
    expected = torch.zeros(6, 6, dtype=torch.bool)
    expected[0, 1] = expected[1, 0] = True  # labelled positive pair 0
    expected[4, 5] = expected[5, 4] = True  # labelled positive pair 2
    expected[0, 4] = expected[4, 0] = True  # ISP duplicate
    assert torch.equal(pos, expected)
    assert not bool(allowed.diagonal().any()) and bool(allowed[~torch.eye(6, dtype=torch.bool)].all())
    pos_no_isp, _ = ibn_targets(labels, None)
    assert not bool(pos_no_isp[0, 4])


def test_ibn_matches_hand_computation_and_negative_rows_contribute_zero():
    emb, _ = _batch(pairs=4, dim=6, seed=11)
    labels = torch.tensor([1.0, 0.0, 1.0, 0.0])
    per_row = ibn_loss(emb, labels, tau=0.05, reduction="none")
    sim = F.normalize(emb, dim=-1) @ F.normalize(emb, dim=-1).T / 0.05
    for i in range(8):
        pair = i // 2
        if labels[pair] == 0:
            assert float(per_row[i]) == 0.0
            continue
        others = [k for k in range(8) if k != i]
        expected = -(sim[i, i ^ 1] - torch.logsumexp(sim[i, others], dim=0))
        assert float(per_row[i]) == pytest.approx(float(expected), rel=1e-10)
    assert float(ibn_loss(emb, labels)) == pytest.approx(float(per_row.sum() / 8), rel=1e-12)
    # negatives' rows carry no gradient of their own term: all-negative batch is exactly 0
    assert float(ibn_loss(emb, torch.zeros(4))) == 0.0


def test_ibn_graded_labels_need_threshold():
    emb, labels = _batch()
    with pytest.raises(ValueError, match="binary 0/1 labels"):
        ibn_loss(emb, labels)
    assert float(ibn_loss(emb, labels, positive_threshold=2.5)) > 0


def test_ibn_isp_changes_loss_only_with_duplicates():
    emb, _ = _batch(pairs=3, dim=6, seed=12)
    labels = torch.tensor([1.0, 1.0, 0.0])
    unique = ["a", "b", "c", "d", "e", "f"]
    assert torch.allclose(ibn_loss(emb, labels, unique), ibn_loss(emb, labels))
    emb2 = emb.clone()
    emb2[4] = emb2[0]  # an identical sentence gets an identical embedding
    dup = ["a", "b", "c", "d", "a", "f"]
    with_isp = ibn_loss(emb2, labels, dup, reduction="none")
    without = ibn_loss(emb2, labels, None, reduction="none")
    assert float(with_isp[4]) > 0 and float(without[4]) == 0.0  # row 4 (negative pair) gains its duplicate
    assert float(with_isp[0]) != float(without[0])


def test_ibn_row_with_two_positives_sums_them_by_default_and_averages_them_on_request():
    # pair 0 = rows (0, 1), positive; pair 1 = rows (2, 3), negative; pair 2 = rows (4, 5), positive. Row 0's text
    # reappears in row 4 (ISP), so rows 0 and 4 have two positives each (partner + duplicate), rows 1 and 5 one.
    emb = torch.tensor([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [-0.6, 0.8], [0.6, 0.8], [1.0, 0.0]],
                       dtype=torch.float64)
    labels = torch.tensor([1.0, 0.0, 1.0])
    texts = ["a", "b", "c", "d", "a", "e"]
    tau = 0.5
    cos = F.normalize(emb, dim=-1) @ F.normalize(emb, dim=-1).T
    # -log p_ij with p_ij = exp(cos_ij / tau) / sum_{k != i} exp(cos_ik / tau), written out term by term
    def nll(i, j):
        return -(float(cos[i, j]) / tau
                 - math.log(sum(math.exp(float(cos[i, k]) / tau) for k in range(6) if k != i)))

    positives = {0: [1, 4], 1: [0], 2: [], 3: [], 4: [5, 0], 5: [4]}
    summed = {i: sum(nll(i, j) for j in js) for i, js in positives.items()}
    averaged = {i: (summed[i] / len(js) if js else 0.0) for i, js in positives.items()}
    per_sum = ibn_loss(emb, labels, texts, tau=tau, reduction="none")
    per_mean = ibn_loss(emb, labels, texts, tau=tau, reduction="none", positives="mean")
    for i in range(6):
        assert float(per_sum[i]) == pytest.approx(summed[i], rel=1e-12, abs=1e-15)
        assert float(per_mean[i]) == pytest.approx(averaged[i], rel=1e-12, abs=1e-15)
    assert float(ibn_loss(emb, labels, texts, tau=tau)) == pytest.approx(sum(summed.values()) / 6, rel=1e-12)
    assert float(ibn_loss(emb, labels, texts, tau=tau, positives="mean")) == pytest.approx(
        sum(averaged.values()) / 6, rel=1e-12)
    # with one positive per row (no duplicates) the two readings agree
    assert torch.equal(ibn_loss(emb, labels, None, tau=tau), ibn_loss(emb, labels, None, tau=tau, positives="mean"))
    with pytest.raises(ValueError, match="positives must be one of"):
        ibn_loss(emb, labels, texts, positives="max")


def test_objective_passes_its_positives_reading_to_the_ibn_term():
    emb, _ = _batch(pairs=3, dim=6, seed=12)
    labels = torch.tensor([1.0, 1.0, 0.0])
    dup = ["a", "b", "c", "d", "a", "f"]
    only_ibn = {"w_cos": 0.0, "w_ibn": 1.0, "w_angle": 0.0}
    assert AnglEObjective(**only_ibn).positives == "sum"
    assert torch.equal(AnglEObjective(**only_ibn)(emb, labels, dup), ibn_loss(emb, labels, dup))
    assert torch.equal(AnglEObjective(**only_ibn, positives="mean")(emb, labels, dup),
                       ibn_loss(emb, labels, dup, positives="mean"))
    with pytest.raises(ValueError, match="positives must be one of"):
        AnglEObjective(positives="all")


# --------------------------------------------------------------------------------------------- combined objective
def test_combined_is_weighted_sum_of_terms():
    emb, labels = _batch(pairs=6, dim=8, seed=13)
    obj = AnglEObjective(w_cos=0.5, w_ibn=2.0, w_angle=3.0, positive_threshold=2.5)
    parts = obj.parts(emb, labels)
    total = 0.5 * parts["cos"] + 2.0 * parts["ibn"] + 3.0 * parts["angle"]
    assert torch.allclose(parts["total"], total)
    assert torch.allclose(angle_objective(emb, labels, None, 0.5, 2.0, 3.0, positive_threshold=2.5), total)


@pytest.mark.parametrize("zeroed", ["w_cos", "w_ibn", "w_angle"])
def test_zero_weight_removes_that_terms_gradient(zeroed):
    emb, labels = _batch(pairs=6, dim=8, seed=14)
    weights = {"w_cos": 1.0, "w_ibn": 1.0, "w_angle": 1.0, zeroed: 0.0}
    e1 = emb.clone().requires_grad_(True)
    (g_obj,) = torch.autograd.grad(AnglEObjective(**weights, positive_threshold=2.5)(e1, labels), e1)
    e2 = emb.clone().requires_grad_(True)
    terms = {"w_cos": cosent_loss(e2, labels), "w_ibn": ibn_loss(e2, labels, positive_threshold=2.5),
             "w_angle": angle_loss(e2, labels)}
    (g_ref,) = torch.autograd.grad(sum(t for k, t in terms.items() if k != zeroed), e2)
    assert torch.allclose(g_obj, g_ref, atol=1e-12)
    assert "cos ibn angle".split()[["w_cos", "w_ibn", "w_angle"].index(zeroed)] not in \
        AnglEObjective(**weights, positive_threshold=2.5).parts(emb, labels)


# --------------------------------------------------------------------------------------------- bad input
def test_bad_input_errors():
    emb, labels = _batch(pairs=4, dim=8)
    with pytest.raises(ValueError, match="dimension 7 is odd"):
        angle_loss(torch.randn(8, 7), labels)
    with pytest.raises(ValueError, match="dimension 7 is odd"):
        complex_angle(torch.randn(3, 7), torch.randn(3, 7))
    with pytest.raises(ValueError, match=r"holds 1 pair\(s\)"):
        cosent_loss(emb[:2], labels[:1])
    with pytest.raises(ValueError, match="one entry per pair"):
        cosent_loss(emb, labels[:3])
    with pytest.raises(ValueError, match="even number of rows"):
        angle_loss(emb[:7], labels)
    for tau in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="tau must be a finite number > 0"):
            cosent_loss(emb, labels, tau=tau)
        with pytest.raises(ValueError, match="tau must be a finite number > 0"):
            ibn_loss(emb, labels, tau=tau, positive_threshold=2.0)
    for tau in (0.0, -0.5):
        with pytest.raises(ValueError, match="tau must be a finite number > 0"):
            angle_loss(emb, labels, tau=tau)
    for fn in (complex_divide, eq6_literal, eq6_code, eq6_atan2):
        with pytest.raises(ValueError, match="is odd"):
            fn(torch.randn(3, 5), torch.randn(3, 5))
    with pytest.raises(ValueError, match="tau_angle must be a finite number > 0"):
        AnglEObjective(tau_angle=0.0)
    with pytest.raises(ValueError, match="w_ibn must be a finite number >= 0"):
        AnglEObjective(w_ibn=-1.0)
    with pytest.raises(ValueError, match="at least one of"):
        AnglEObjective(0, 0, 0)
    with pytest.raises(ValueError, match="one entry per row"):
        ibn_loss(emb, torch.ones(4), texts=["a", "b"])
    with pytest.raises(ValueError, match="NaN or Inf"):
        cosent_loss(emb, torch.tensor([1.0, float("nan"), 2.0, 3.0]))


# --------------------------------------------------------------------------------------------- cosine regression
def test_cosine_regression_is_sberts_squared_error_on_scaled_labels():
    emb, labels = _batch(pairs=5)
    u, v = split_pairs(emb)
    expected = ((F.cosine_similarity(u, v, dim=-1) - labels / 5) ** 2).mean()
    assert float(CosineRegression(5.0)(emb, labels)) == pytest.approx(float(expected), abs=1e-12)
    same = torch.randn(1, 8, dtype=torch.float64).repeat(2, 1)
    assert float(CosineRegression(1.0)(same, torch.tensor([1.0]))) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match=r"\[0, 1.0\]"):
        CosineRegression(1.0)(emb, labels)  # STS-B-like labels above 1
    with pytest.raises(ValueError, match="label_max"):
        CosineRegression(0)
