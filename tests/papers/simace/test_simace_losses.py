"""SimACE paper (Jeong et al., Findings EMNLP 2024): losses, angle similarity and the §3 gradient argument."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy.stats import spearmanr

from companion.losses.core import contrastive_nll
from companion.losses.simace import (
    arccon_loss,
    check_margin,
    closed_form_orthogonal,
    contrastive_logits,
    contrastive_loss,
    pair_forces,
    simace_loss,
    simcse_loss,
    similarity_derivative,
    softmax_gradient,
)
from companion.papers.simace.runs import dropout_view_loss
from companion.similarities import angle_matrix, cos_to_angle


def views(n=8, d=16, seed=0, noise=1.0):
    g = torch.Generator().manual_seed(seed)
    z1 = torch.randn(n, d, generator=g, dtype=torch.float64)
    z2 = z1 + noise * torch.randn(n, d, generator=g, dtype=torch.float64)
    return z1, z2


# ------------------------------------------------------------------ Eq. 7: the angle similarity
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


# ------------------------------------------------------------------ the three losses on the shared core
def test_simcse_is_cross_entropy_of_cosines():
    z1, z2 = views()
    cos = F.normalize(z1, dim=1) @ F.normalize(z2, dim=1).T
    ref = F.cross_entropy(cos / 0.05, torch.arange(8))
    torch.testing.assert_close(simcse_loss(z1, z2, tau=0.05), ref)


def test_simace_hand_computation_eq9():
    z1, z2 = views(n=5)
    tau, m = 0.3, math.radians(10)
    th = torch.arcsin((F.normalize(z1, dim=1) @ F.normalize(z2, dim=1).T).clamp(-1, 1))
    losses = []
    for i in range(5):
        pos = math.exp((th[i, i] - m) / tau)
        neg = sum(math.exp(th[i, j] / tau) for j in range(5) if j != i)
        losses.append(-math.log(pos / (pos + neg)))
    assert math.isclose(float(simace_loss(z1, z2, tau=tau, margin_deg=10)), np.mean(losses), rel_tol=1e-9)


def test_arccon_hand_computation():
    z1, z2 = views(n=5)
    tau, m = 0.3, math.radians(10)
    cos = (F.normalize(z1, dim=1) @ F.normalize(z2, dim=1).T).clamp(-1, 1)
    losses = []
    for i in range(5):
        pos = math.exp(math.cos(math.acos(cos[i, i]) + m) / tau)
        neg = sum(math.exp(cos[i, j] / tau) for j in range(5) if j != i)
        losses.append(-math.log(pos / (pos + neg)))
    assert math.isclose(float(arccon_loss(z1, z2, tau=tau, margin_deg=10)), np.mean(losses), rel_tol=1e-6)


def test_margin_zero_is_eq8_and_loss_increases_with_margin():
    z1, z2 = views()
    eq8 = contrastive_nll(angle_matrix(z1, z2) / 0.05, torch.eye(8, dtype=torch.bool))
    torch.testing.assert_close(simace_loss(z1, z2, tau=0.05, margin_deg=0), eq8)
    values = [float(simace_loss(z1, z2, margin_deg=m)) for m in (-30, -10, 0, 10, 30, 60)]
    assert all(a < b for a, b in zip(values, values[1:]))
    arc = [float(arccon_loss(z1, z2, margin_deg=m)) for m in (0, 10, 30)]
    assert arc[0] < arc[1] < arc[2]
    torch.testing.assert_close(arccon_loss(z1, z2, margin_deg=0), simcse_loss(z1, z2), atol=1e-5, rtol=0)


def test_closed_form_orthogonal_negatives():
    for n, tau in [(4, 0.5), (16, 1.0), (32, 2.0)]:
        z = torch.eye(n, dtype=torch.float64)  # theta_ii' = pi/2, theta_ij' = 0
        got = float(simace_loss(z, z.clone(), tau=tau, margin_deg=0))
        # the clamp (eps=1e-6) moves theta_ii' by ~1.4e-3 rad; compare at that precision
        assert math.isclose(got, closed_form_orthogonal(n, tau), rel_tol=1e-2)
        exact = contrastive_nll(torch.eye(n, dtype=torch.float64) * (math.pi / 2) / tau,
                                torch.eye(n, dtype=torch.bool))
        assert math.isclose(float(exact), closed_form_orthogonal(n, tau), rel_tol=1e-12)


def test_gradients_finite_at_identical_views():
    z = torch.randn(6, 8, dtype=torch.float64, requires_grad=True)
    for objective in ("simcse", "arccon", "simace"):
        loss = contrastive_loss(z, z, objective)
        (g,) = torch.autograd.grad(loss, z)
        assert bool(torch.isfinite(g).all())
    anti = torch.randn(6, 8, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(simace_loss(anti, -anti), anti)
    assert bool(torch.isfinite(g).all())


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


def test_sts_ranking_by_theta_equals_cosine():
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(200, 32, generator=g), torch.randn(200, 32, generator=g)
    b = a + 1.5 * b
    gold = np.random.default_rng(0).uniform(0, 5, 200)
    cos = F.cosine_similarity(a, b).double().numpy()
    theta = cos_to_angle(torch.from_numpy(cos)).numpy()
    assert (np.argsort(cos) == np.argsort(theta)).all()
    assert spearmanr(cos, gold).statistic == pytest.approx(spearmanr(theta, gold).statistic, abs=1e-12)


def test_logits_match_objectives():
    z1, z2 = views()
    eye = torch.eye(8, dtype=torch.bool)
    simace = contrastive_logits(z1, z2, "simace", 0.05, 10)
    simcse = contrastive_logits(z1, z2, "simcse", 0.05)
    torch.testing.assert_close(simace[~eye] * 0.05, torch.arcsin(simcse[~eye] * 0.05))
    torch.testing.assert_close(simace[eye], (torch.arcsin(simcse[eye] * 0.05) - math.radians(10)) / 0.05)


def test_dropout_view_loss_trains_a_tiny_model():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Dropout(0.2), torch.nn.Linear(16, 8))
    data = torch.randn(32, 4)
    texts = [str(i) for i in range(32)]
    fn = dropout_view_loss(lambda batch: model(data[[int(t) for t in batch]]), texts, "simace", 0.05)
    model.train()
    loss = fn(torch.arange(16))
    loss.backward()
    assert loss.item() > 0 and all(p.grad is not None for p in model.parameters())
    model.eval()
    torch.manual_seed(1)
    # eval mode: identical views, so SimACE's positive angle is ~0
    z = model(data[:16])
    assert fn(torch.arange(16)).item() == pytest.approx(simace_loss(z, z).item(), rel=1e-6)


# ------------------------------------------------------------------ bad input
def test_bad_input():
    z1, z2 = views()
    with pytest.raises(ValueError, match="tau must be a finite number > 0"):
        simace_loss(z1, z2, tau=0)
    with pytest.raises(ValueError, match="tau must be a finite number > 0"):
        simcse_loss(z1, z2, tau=-0.05)
    with pytest.raises(ValueError, match="batch of one sentence"):
        simace_loss(z1[:1], z2[:1])
    with pytest.raises(ValueError, match=r"strictly inside \(-90, 90\)"):
        simace_loss(z1, z2, margin_deg=90)
    with pytest.raises(ValueError, match=r"strictly inside \(-90, 90\)"):
        arccon_loss(z1, z2, margin_deg=-120)
    with pytest.raises(ValueError, match=r"strictly inside \(-90, 90\)"):
        check_margin(float("nan"))
    bad = z1.clone()
    bad[2, 3] = float("nan")
    with pytest.raises(ValueError, match="NaN or Inf"):
        simace_loss(bad, z2)
    with pytest.raises(ValueError, match="same shape"):
        simace_loss(z1, z2[:4])
    with pytest.raises(ValueError, match="SimCSE has no margin"):
        contrastive_loss(z1, z2, "simcse", margin_deg=10)
    with pytest.raises(ValueError, match="Unknown objective"):
        contrastive_loss(z1, z2, "arcface")
    with pytest.raises(ValueError, match="square"):
        softmax_gradient(torch.zeros(3, 4))
    with pytest.raises(ValueError, match="n must be an int >= 2"):
        closed_form_orthogonal(1, 0.05)


def test_every_objective_goes_through_the_shared_core(monkeypatch):
    import companion.losses.simace as sim

    calls = []
    real = sim.contrastive_nll

    def spy(logits, positives, **kw):
        calls.append((logits.shape, bool(positives.equal(torch.eye(logits.shape[0], dtype=torch.bool)))))
        return real(logits, positives, **kw)

    monkeypatch.setattr(sim, "contrastive_nll", spy)
    z1, z2 = views()
    for fn in (simcse_loss, arccon_loss, simace_loss):
        fn(z1, z2)
    assert calls == [((8, 8), True)] * 3  # one N x N logit matrix per loss, identity positives, one core


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


def test_training_glue_bad_input():
    texts = ["a", "b", "c"]
    with pytest.raises(ValueError, match="tau must be a finite number > 0"):
        dropout_view_loss(lambda b: torch.randn(len(b), 4), texts, "simace", tau=-1.0)
    with pytest.raises(ValueError, match=r"strictly inside \(-90, 90\)"):
        dropout_view_loss(lambda b: torch.randn(len(b), 4), texts, "arccon", tau=0.05, margin_deg=-90)
    with pytest.raises(ValueError, match="Unknown objective"):
        dropout_view_loss(lambda b: torch.randn(len(b), 4), texts, "cosent", tau=0.05)
    fn = dropout_view_loss(lambda b: torch.randn(len(b), 4), texts, "simace", tau=0.05)
    with pytest.raises(ValueError, match="batch of one sentence"):
        fn(torch.tensor([0]))
    nan = dropout_view_loss(lambda b: torch.full((len(b), 4), float("nan")), texts, "simcse", tau=0.05)
    with pytest.raises(ValueError, match="NaN or Inf"):
        nan(torch.tensor([0, 1]))
    with pytest.raises(ValueError, match="tau must be"):
        pair_forces(0.1, torch.tensor([1.0]), "simace", 0.0)
    with pytest.raises(ValueError, match=r"strictly inside \(-90, 90\)"):
        pair_forces(0.1, torch.tensor([1.0]), "simace", 0.05, margin_deg=100)
