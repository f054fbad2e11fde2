"""SimACE paper (Jeong et al., Findings EMNLP 2024): the losses on the shared core."""

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
