"""SimACE paper (Jeong et al., Findings EMNLP 2024): SimCSE, ArcCon, SimACE and App. F's RBF objective (Eq. 15) on
the shared core: hand computations, invariants, bad input."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from companion.losses.core import contrastive_nll
from companion.losses.simace import (
    arccon_loss,
    check_margin,
    contrastive_logits,
    contrastive_loss,
    rbf_logits,
    rbf_loss,
    simace_loss,
    simcse_loss,
)
from companion.similarities import angle_matrix, clamp_cos, cosine_matrix


def views(n=8, d=16, seed=0, noise=1.0):
    g = torch.Generator().manual_seed(seed)
    z1 = torch.randn(n, d, generator=g, dtype=torch.float64)
    z2 = z1 + noise * torch.randn(n, d, generator=g, dtype=torch.float64)
    return z1, z2


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


def test_gradients_finite_at_identical_views():
    z = torch.randn(6, 8, dtype=torch.float64, requires_grad=True)
    for objective in ("simcse", "arccon", "simace"):
        loss = contrastive_loss(z, z, objective)
        (g,) = torch.autograd.grad(loss, z)
        assert bool(torch.isfinite(g).all())
    anti = torch.randn(6, 8, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(simace_loss(anti, -anti), anti)
    assert bool(torch.isfinite(g).all())


def test_logits_match_objectives():
    z1, z2 = views()
    eye = torch.eye(8, dtype=torch.bool)
    simace = contrastive_logits(z1, z2, "simace", 0.05, 10)
    simcse = contrastive_logits(z1, z2, "simcse", 0.05)
    torch.testing.assert_close(simace[~eye] * 0.05, torch.arcsin(simcse[~eye] * 0.05))
    torch.testing.assert_close(simace[eye], (torch.arcsin(simcse[eye] * 0.05) - math.radians(10)) / 0.05)


def test_logits_are_the_formulas_written_out():
    """contrastive_logits goes through logits_from_angles: bit for bit the formulas of the module table, identical
    views (the clamp) included."""
    for z1, z2 in (views(), views(seed=1, noise=0.01), (views()[0], views()[0])):
        cos = cosine_matrix(z1, z2)
        eye = torch.eye(cos.shape[0], dtype=torch.bool)
        phi = torch.arccos(clamp_cos(cos))
        for tau, margin in ((0.05, 10.0), (0.3, -10.0), (1.0, 0.0)):
            m = math.radians(margin)
            written = {"simcse": cos / tau if margin == 0.0 else None,
                       "arccon": torch.where(eye, torch.cos(phi + m), cos) / tau,
                       "simace": torch.where(eye, (math.pi / 2 - phi) - m, math.pi / 2 - phi) / tau}
            for objective, expected in written.items():
                if expected is not None:
                    assert torch.equal(contrastive_logits(z1, z2, objective, tau, margin), expected), objective


# ------------------------------------------------------------------ RBF (App. F, Eq. 15)
def test_rbf_by_hand_on_two_sentences():
    z1 = torch.tensor([[3.0, 0.0], [0.0, 1.0]], dtype=torch.float64)  # unit rows (1, 0), (0, 1)
    z2 = torch.tensor([[1.0, 1.0], [0.0, -2.0]], dtype=torch.float64)  # unit rows (1, 1)/sqrt 2, (0, -1)
    sigma, tau = 0.8, 0.5
    r = 1 / math.sqrt(2)
    d2 = [[(1 - r) ** 2 + r ** 2, 1 + 1], [r ** 2 + (1 - r) ** 2, 0 + 4]]  # squared distances of the unit rows
    phi = [[math.exp(-v / (2 * sigma ** 2)) for v in row] for row in d2]
    torch.testing.assert_close(rbf_logits(z1, z2, tau, sigma), torch.tensor(phi, dtype=torch.float64) / tau)
    by_hand = -sum(phi[i][i] / tau - math.log(sum(math.exp(v / tau) for v in phi[i])) for i in range(2)) / 2
    assert rbf_loss(z1, z2, sigma, tau).item() == pytest.approx(by_hand, rel=1e-12)
    assert contrastive_loss(z1, z2, "rbf", tau, sigma=sigma).item() == pytest.approx(by_hand, rel=1e-12)


def test_rbf_invariants():
    z1, z2 = views(n=6, d=5, noise=0.7)  # the RBF tests' views
    loss = rbf_loss(z1, z2, 0.7)
    # only directions count (normalised), rows permuted together permute the terms, identical vectors give log N
    scale = torch.tensor([0.1, 2.0, 5.0, 1.0, 3.0, 0.5], dtype=torch.float64)[:, None]
    assert rbf_loss(scale * z1, 7 * z2, 0.7).item() == pytest.approx(loss.item(), rel=1e-12)
    perm = torch.tensor([3, 1, 5, 0, 2, 4])
    torch.testing.assert_close(rbf_loss(z1[perm], z2[perm], 0.7, reduction="none"),
                               rbf_loss(z1, z2, 0.7, reduction="none")[perm])
    same = torch.ones(6, 5, dtype=torch.float64)
    assert rbf_loss(same, same, 0.7).item() == pytest.approx(math.log(6), rel=1e-12)
    # logits lie in [exp(-2 / sigma^2), 1] / tau, the positive of identical views at the top
    k = rbf_logits(z1, z1, 0.05, 0.7)
    assert k.max().item() == pytest.approx(1 / 0.05) and k.min().item() >= math.exp(-2 / 0.49) / 0.05 - 1e-12
    assert torch.allclose(torch.diagonal(k), torch.full((6,), 1 / 0.05, dtype=torch.float64))
    # wide kernel: phi/tau = 1/tau - (1 - cos)/(sigma^2 tau) + ..., i.e. SimCSE at temperature sigma^2 tau
    s = 30.0
    assert rbf_loss(z1, z2, s, 0.05).item() == pytest.approx(simcse_loss(z1, z2, s ** 2 * 0.05).item(), rel=1e-3)
    assert abs(rbf_loss(z1, z2, 1.0, 0.05).item() - simcse_loss(z1, z2, 0.05).item()) > 1e-2  # not SimCSE at sigma 1


def test_rbf_bad_input():
    z1, z2 = views(n=6, d=5, noise=0.7)  # the RBF tests' views
    for bad in (0, -1.0, float("nan"), float("inf"), True, "1"):
        with pytest.raises(ValueError, match="sigma .* must be a finite number > 0"):
            rbf_loss(z1, z2, bad)
    with pytest.raises(ValueError, match="needs sigma"):
        contrastive_loss(z1, z2, "rbf")
    with pytest.raises(ValueError, match="has none"):
        contrastive_loss(z1, z2, "simace", sigma=1.0)
    with pytest.raises(ValueError, match="RBF has no margin"):
        contrastive_loss(z1, z2, "rbf", margin_deg=10, sigma=1.0)
    with pytest.raises(ValueError, match="tau must be a finite number > 0"):
        rbf_loss(z1, z2, 1.0, tau=0)
    with pytest.raises(ValueError, match="batch of one sentence"):
        rbf_loss(z1[:1], z2[:1], 1.0)


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
