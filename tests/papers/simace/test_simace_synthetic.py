"""SimACE §3 without a language model: the angle similarity (Eq. 7), its gradient (Eq. 6) and the gradient helpers
of :mod:`companion.papers.simace.synthetic` (the softmax gradient, the derivatives of Fig. 1b, the per-pair forces
and the closed form with orthogonal negatives)."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy.stats import spearmanr

from companion.losses.core import contrastive_nll
from companion.losses.simace import simace_loss
from companion.papers.simace.synthetic import (
    closed_form_orthogonal,
    pair_forces,
    similarity_derivative,
    softmax_gradient,
)
from companion.similarities import cos_to_angle


# ------------------------------------------------------------------ Eq. 7: the angle similarity, Eq. 6: its gradient
def test_theta_increasing_odd_and_bounded():
    x = torch.linspace(-1, 1, 2001, dtype=torch.float64)
    th = cos_to_angle(x, eps=0.0)
    assert bool((th[1:] > th[:-1]).all())
    torch.testing.assert_close(cos_to_angle(-x, eps=0.0), -th)
    assert th.min() >= -math.pi / 2 and th.max() <= math.pi / 2
    torch.testing.assert_close(th, torch.arcsin(x))
    torch.testing.assert_close(th[[0, 1000, -1]], torch.tensor([-math.pi / 2, 0, math.pi / 2], dtype=torch.float64))


def test_gradient_norm_identities():
    # |d cos(z, w)/dz| = sin(phi)/|z| and |d theta(z, w)/dz| = 1/|z|: the ratio is 1/sin(phi)
    g = torch.Generator().manual_seed(1)
    for _ in range(5):
        z = (3 * torch.randn(12, generator=g, dtype=torch.float64)).requires_grad_(True)
        w = torch.randn(12, generator=g, dtype=torch.float64)
        cos = F.cosine_similarity(z, w, dim=0)
        (gc,) = torch.autograd.grad(cos, z, retain_graph=True)
        (gt,) = torch.autograd.grad(cos_to_angle(cos, eps=0.0), z)
        phi = torch.arccos(cos.detach())
        assert math.isclose(gc.norm(), math.sin(phi) / z.detach().norm(), rel_tol=1e-9)
        assert math.isclose(gt.norm(), 1 / z.detach().norm(), rel_tol=1e-9)
        assert math.isclose(gt.norm() / gc.norm(), 1 / math.sin(phi), rel_tol=1e-9)


# ------------------------------------------------------------------ Eq. 2-6: the helpers
def test_similarity_derivative_matches_autograd():
    phi = torch.linspace(0.1, math.pi - 0.1, 50, dtype=torch.float64).requires_grad_(True)
    (dcos,) = torch.autograd.grad(torch.cos(phi).sum(), phi)
    torch.testing.assert_close(similarity_derivative(phi.detach(), "cosine", "angle"), dcos)
    x = torch.cos(phi.detach()).requires_grad_(True)
    (dth,) = torch.autograd.grad(cos_to_angle(x, eps=0.0).sum(), x)
    torch.testing.assert_close(similarity_derivative(phi.detach(), "angle", "cosine"), dth)
    torch.testing.assert_close(similarity_derivative(phi.detach(), "angle", "angle"), -torch.ones(50, dtype=torch.float64))
    with pytest.raises(ValueError, match="kind must be"):
        similarity_derivative(phi, "dot")


def test_closed_form_orthogonal_negatives():
    for n, tau in [(4, 0.5), (16, 1.0), (32, 2.0)]:
        z = torch.eye(n, dtype=torch.float64)  # theta_ii' = pi/2, theta_ij' = 0
        got = float(simace_loss(z, z.clone(), tau=tau, margin_deg=0))
        # the clamp (eps=1e-6) moves theta_ii' by ~1.4e-3 rad; compare at that precision
        assert math.isclose(got, closed_form_orthogonal(n, tau), rel_tol=1e-2)
        exact = contrastive_nll(torch.eye(n, dtype=torch.float64) * (math.pi / 2) / tau,
                                torch.eye(n, dtype=torch.bool))
        assert math.isclose(float(exact), closed_form_orthogonal(n, tau), rel_tol=1e-12)


def test_softmax_gradient_rows_sum_to_zero_and_match_autograd():
    logits = torch.randn(7, 7, dtype=torch.float64, requires_grad=True)
    grad = softmax_gradient(logits.detach())
    torch.testing.assert_close(grad.sum(dim=1), torch.zeros(7, dtype=torch.float64))
    assert bool((grad.diagonal() < 0).all()) and bool((grad - torch.diag(grad.diagonal()) >= 0).all())
    loss = contrastive_nll(logits, torch.eye(7, dtype=torch.bool), reduction="sum")
    (auto,) = torch.autograd.grad(loss, logits)
    torch.testing.assert_close(grad, auto)


def test_pair_forces_match_hand_formulas():
    # one anchor, positive at angle a, K negatives at angle b; lambda = softmax weights of the logits
    K, tau = 15, 0.05

    def rest(k_pos, k_neg):  # 1 - lambda_pos, computed without cancellation
        e = K * math.exp(k_neg - k_pos)
        return e / (1 + e)

    for a, b in [(1.0, 20.0), (10.0, 80.0), (30.0, 150.0)]:
        pa, pb = math.radians(a), math.radians(b)
        neg = torch.full((K,), pb, dtype=torch.float64)
        pull_c, push_c = pair_forces(pa, neg, "simcse", tau)
        pull_a, push_a = pair_forces(pa, neg, "simace", tau)
        lc = rest(math.cos(pa) / tau, math.cos(pb) / tau)
        la = rest((math.pi / 2 - pa) / tau, (math.pi / 2 - pb) / tau)
        # pull = (1 - lambda_pos) |dk/dphi|: sin(phi)/tau for the cosine, 1/tau for the angle (Eq. 2-6)
        assert math.isclose(float(pull_c), lc * math.sin(pa) / tau, rel_tol=1e-6, abs_tol=1e-13)
        assert math.isclose(float(pull_a), la / tau, rel_tol=1e-6, abs_tol=1e-13)
        # push on each negative = lambda_j |dk/dphi_j|, lambda_j = (1 - lambda_pos) / K
        torch.testing.assert_close(push_c, torch.full((K,), lc / K * math.sin(pb) / tau, dtype=torch.float64))
        torch.testing.assert_close(push_a, torch.full((K,), la / K / tau, dtype=torch.float64))
    # a narrow cone early in training (positive 1 deg, negatives 20 deg): the angle pulls harder
    neg = torch.full((K,), math.radians(20.0), dtype=torch.float64)
    assert pair_forces(math.radians(1), neg, "simace", tau)[0] > pair_forces(math.radians(1), neg, "simcse", tau)[0]
    pull_m, _ = pair_forces(math.radians(10), neg, "simace", tau, margin_deg=10)
    pull_0, _ = pair_forces(math.radians(10), neg, "simace", tau, margin_deg=0)
    assert pull_m > pull_0  # a positive margin keeps the pull on
    with pytest.raises(ValueError, match="objective must be"):
        pair_forces(0.1, neg, "dot", 0.05)


def _forces_written_out(phi_pos, phi_neg, objective, tau, margin_deg=0.0):
    """pair_forces with the logit formulas written out by hand (as the function read before it went through
    companion.losses.simace.logits_from_angles)."""
    m = math.radians(margin_deg)
    phi_pos = torch.as_tensor(phi_pos, dtype=torch.float64).reshape(()).clone().requires_grad_(True)
    phi_neg = torch.as_tensor(phi_neg, dtype=torch.float64).reshape(-1).clone().requires_grad_(True)
    if objective in ("cosine", "simcse"):
        pos, neg = torch.cos(phi_pos) / tau, torch.cos(phi_neg) / tau
    elif objective == "arccon":
        pos, neg = torch.cos(phi_pos + m) / tau, torch.cos(phi_neg) / tau
    else:
        pos, neg = (math.pi / 2 - phi_pos - m) / tau, (math.pi / 2 - phi_neg) / tau
    loss = -torch.log_softmax(torch.cat([pos.reshape(1), neg]), dim=0)[0]
    g_pos, g_neg = torch.autograd.grad(loss, [phi_pos, phi_neg])
    return g_pos.abs(), g_neg.abs()


def test_pair_forces_go_through_the_losses_logits_bit_for_bit():
    """pair_forces computes its logits with companion.losses.simace.logits_from_angles, the formulas the losses
    train with; its forces equal those of the formulas written out, bit for bit."""
    g = torch.Generator().manual_seed(0)
    for k in (1, 7, 63):
        negatives = (torch.rand(k, generator=g, dtype=torch.float64) * math.pi,
                     torch.full((k,), math.radians(30.0), dtype=torch.float64))
        for phi_neg in negatives:
            for phi_pos in (1e-4, math.radians(1.0), math.radians(20.0), 2.0, math.pi - 1e-3):
                for objective in ("simcse", "cosine", "arccon", "simace", "angle"):
                    for tau, margin in ((0.05, 0.0), (0.05, 10.0), (0.5, -10.0), (2.0, 30.0)):
                        got = pair_forces(phi_pos, phi_neg, objective, tau, margin)
                        want = _forces_written_out(phi_pos, phi_neg, objective, tau, margin)
                        assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1]), \
                            (k, phi_pos, objective, tau, margin)


# ------------------------------------------------------------------ the angle ranks STS pairs as the cosine does
def test_sts_ranking_by_theta_equals_cosine():
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(200, 32, generator=g), torch.randn(200, 32, generator=g)
    b = a + 1.5 * b
    gold = np.random.default_rng(0).uniform(0, 5, 200)
    cos = F.cosine_similarity(a, b).double().numpy()
    theta = cos_to_angle(torch.from_numpy(cos)).numpy()
    assert (np.argsort(cos) == np.argsort(theta)).all()
    assert spearmanr(cos, gold).statistic == pytest.approx(spearmanr(theta, gold).statistic, abs=1e-12)


def test_sts_ranking_by_theta_equals_cosine_for_a_fixed_encoder():
    from companion.encoders import tiny_encoder
    from companion.sts import spearman100

    enc = tiny_encoder("bert", pooling="mean", layers=2, hidden=32, heads=4)
    s1 = ["A man plays a guitar.", "A woman is cooking.", "Two dogs run.", "A child reads.", "The sun is hot.",
          "A plane lands.", "Birds fly south.", "He eats an apple."]
    s2 = ["Someone plays music.", "A woman cooks food.", "A cat sleeps.", "A kid reads a book.", "It is cold.",
          "An aircraft lands.", "Geese migrate.", "A man eats fruit."]
    gold = [4.0, 4.8, 1.0, 4.5, 0.5, 4.9, 3.5, 3.9]
    a, b = enc.encode(s1, cache=False).double(), enc.encode(s2, cache=False).double()
    cos = F.cosine_similarity(a, b)
    theta = cos_to_angle(cos, eps=0.0)
    assert spearman100(theta.numpy(), gold) == pytest.approx(spearman100(cos.numpy(), gold), abs=1e-9)
    assert (np.argsort(theta.numpy(), kind="stable") == np.argsort(cos.numpy(), kind="stable")).all()


# ------------------------------------------------------------------ bad input
def test_bad_input_of_the_section_3_helpers():
    with pytest.raises(ValueError, match="square"):
        softmax_gradient(torch.zeros(3, 4))
    with pytest.raises(ValueError, match="n must be an int >= 2"):
        closed_form_orthogonal(1, 0.05)
    with pytest.raises(ValueError, match="tau must be"):
        pair_forces(0.1, torch.tensor([1.0]), "simace", 0.0)
    with pytest.raises(ValueError, match=r"strictly inside \(-90, 90\)"):
        pair_forces(0.1, torch.tensor([1.0]), "simace", 0.05, margin_deg=100)
