"""Numerical stress grid: every public loss of the five papers over temperature x input case x dtype.

Each cell builds two ``(8, 8)`` leaf tensors ``z1``, ``z2`` (the two views / the two sides of a pair) for one case,

* ``random``    i.i.d. Gaussian rows;
* ``identical`` every row of both views is the SAME vector (all cosines 1: arccos/asin at |cos| = 1);
* ``antipodal`` rows alternate ``v, -v`` and ``z2 = -z1`` (cosines +-1 everywhere, atan2 at angle pi);
* ``large``     the random rows times 1e30 (norms far beyond sqrt(float32 max): squares overflow if not rescaled);
* ``small``     the random rows times 1e-30 (norms far below the 1e-12 eps of a plain ``F.normalize``);

in float32 or bfloat16, calls the loss through a small adapter and asserts that the loss and the gradients with
respect to ``z1`` and ``z2`` are finite. Scale-invariant losses (all but the Euclidean-Euclidean weighted InfoNCE)
must moreover give at 1e30 and 1e-30 the value they give at scale 1 (cosines are computed on rescaled rows).

The one exception, stated rather than skipped: the Euclidean-Euclidean weighted InfoNCE (Vock et al. Thm. 3.10,
``s = -||z_i - z_j||^2``) is not scale invariant; at norm 1e30 its similarities overflow, and
``weighted_infonce`` must then raise one clear ``ValueError`` (never return inf/NaN). Losses without a temperature
(CircularCSE, a regression) are run once per tau all the same, with the same expected outcome.
"""

from __future__ import annotations

import math

import pytest
import torch

from companion.losses import angle as A
from companion.losses import circumplex as C
from companion.losses import concepts as K
from companion.losses import simace as S
from companion.losses import weighted as W
from companion.losses.core import contrastive_nll, pairwise_ranking_loss
from companion.similarities import complex_angle, cos_to_angle, cosine, cosine_matrix

TAUS = (0.01, 0.05, 0.1, 1.0)
CASES = ("random", "identical", "antipodal", "large", "small")
DTYPES = (torch.float32, torch.bfloat16)
SCALE = {"large": 1e30, "small": 1e-30}
B, D = 8, 8

# fixed labels for the supervised losses (B rows of one view, or 2B rows of both views)
GRADED = torch.tensor([5.0, 4.0, 3.0, 2.0, 1.0, 0.5, 4.5, 3.5])  # one per pair (z1_i, z2_i)
BINARY = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0])
ECM = ["love", "joy", "anger", "fear", "sadness", "trust", "calmness", "surprise"]
CLASSES = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3] * 2)  # 2B rows, >= 2 per class
CONT = torch.linspace(-1.0, 1.0, 2 * B, dtype=torch.float64)[:, None]  # continuous label (y-Aware, Euclidean)
VEC = torch.stack([torch.cos(torch.arange(2 * B) * 0.7), torch.sin(torch.arange(2 * B) * 0.7)], 1).double()


def interleave(z1, z2):
    """Rows ``[z1_0; z2_0; z1_1; z2_1; ...]``: AnglE's interleaved pair batch."""
    return torch.stack([z1, z2], dim=1).reshape(-1, z1.shape[1])


def both(z1, z2):
    return torch.cat([z1, z2], dim=0)


def _hard(z1, z2):
    """Three hard negatives per anchor built from the inputs (so they share the case's scale and dtype)."""
    return torch.stack([z2.roll(1, 0), -z2, z1.roll(2, 0)], dim=1)


def _weighted(weights):
    def loss(z1, z2, tau):
        Z = both(z1, z2)
        return W.weighted_infonce(weights(), W.cosine_similarities(Z, tau))
    return loss


LOSSES = {
    # SimACE paper (Eq. 1, ArcCSE, Eq. 9)
    "simcse": lambda z1, z2, tau: S.simcse_loss(z1, z2, tau),
    "arccon": lambda z1, z2, tau: S.arccon_loss(z1, z2, tau),
    "simace": lambda z1, z2, tau: S.simace_loss(z1, z2, tau),
    # AnglE (Eq. 1, 7, 2 and the combined objective)
    "cosent": lambda z1, z2, tau: A.cosent_loss(interleave(z1, z2), GRADED, tau),
    "angle": lambda z1, z2, tau: A.angle_loss(interleave(z1, z2), GRADED, tau),
    "ibn": lambda z1, z2, tau: A.ibn_loss(interleave(z1, z2), BINARY, tau=tau),
    "angle-objective": lambda z1, z2, tau: A.AnglEObjective(tau_cos=tau, tau_ibn=tau, tau_angle=tau)(
        interleave(z1, z2), BINARY),
    # circumplex (Eq. 5-6, 7-8, 9)
    "sincere": lambda z1, z2, tau: C.sincere_loss(both(z1, z2), ECM * 2, tau),
    "softcse": lambda z1, z2, tau: C.softcse_loss(both(z1, z2), ECM * 2, tau),
    "circularcse": lambda z1, z2, tau: C.circular_cse_loss(both(z1, z2), ECM * 2),
    # weighted contrastive learning (Def. 3.1 with the weights of §3.5-3.6)
    "weighted-supcon": _weighted(lambda: W.supcon_weights(CLASSES)),
    "weighted-soft-supcon": _weighted(lambda: W.soft_supcon_weights(CLASSES, 0.1)),
    "weighted-y-aware": _weighted(lambda: W.y_aware_weights(CONT, 1.0)),
    "weighted-xclr": _weighted(lambda: W.xclr_weights(VEC, 0.1)),
    "weighted-euclidean": lambda z1, z2, tau: W.weighted_infonce(W.euclidean_weights(CONT, 1.0),
                                                                 W.euclidean_similarities(both(z1, z2), tau)),
    # concept representation (§4.5)
    "concept-infonce": lambda z1, z2, tau: K.infonce_term(z1, z2, tau),
    "concept-infonce-unified": lambda z1, z2, tau: K.infonce_term(z1, z2, tau, hard=_hard(z1, z2)),
    "concept-bce": lambda z1, z2, tau: K.hard_negative_bce(z1, z2, _hard(z1, z2), temperature=tau),
    "concept-loss": lambda z1, z2, tau: K.concept_loss(syn=(z1, z2), t2d=(z2, z1), d2d=(z1, z2.roll(1, 0)),
                                                       hard=_hard(z1, z2), temperature=tau,
                                                       bce_temperature=tau).total,
    # the two shared cores
    "contrastive_nll": lambda z1, z2, tau: contrastive_nll(cosine_matrix(z1, z2) / tau,
                                                           torch.eye(B, dtype=torch.bool)),
    "pairwise_ranking_loss": lambda z1, z2, tau: pairwise_ranking_loss(cosine(z1, z2), GRADED, scale=1 / tau),
}
SCALE_VARIANT = {"weighted-euclidean"}


def make_case(case: str, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    base = torch.randn(B, D, generator=gen, dtype=torch.float64)
    other = torch.randn(B, D, generator=gen, dtype=torch.float64)
    if case == "identical":
        v = base[:1].expand(B, D)
        z1, z2 = v.clone(), v.clone()
    elif case == "antipodal":
        sign = torch.tensor([1.0, -1.0] * (B // 2), dtype=torch.float64)[:, None]
        z1 = base[:1] * sign
        z2 = -z1
    else:
        z1, z2 = base, base + 0.3 * other
        if case in SCALE:
            z1, z2 = z1 * SCALE[case], z2 * SCALE[case]
    return (z1.to(dtype).requires_grad_(True), z2.to(dtype).requires_grad_(True))


def run_cell(name, tau, case, dtype):
    z1, z2 = make_case(case, dtype)
    loss = LOSSES[name](z1, z2, tau)
    grads = torch.autograd.grad(loss, [z1, z2], allow_unused=True)
    return loss, grads


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "bfloat16"])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("tau", TAUS)
@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_and_gradient_finite(name, tau, case, dtype):
    if name in SCALE_VARIANT and case == "large":
        with pytest.raises(ValueError, match="NaN or Inf"):
            run_cell(name, tau, case, dtype)
        return
    loss, grads = run_cell(name, tau, case, dtype)
    assert loss.dim() == 0 and loss.dtype == dtype, (loss.shape, loss.dtype)
    assert bool(torch.isfinite(loss)), f"{name} tau={tau} {case} {dtype}: loss {loss}"
    assert any(g is not None for g in grads), f"{name}: no gradient reaches the embeddings"
    for g in grads:
        if g is not None:
            assert bool(torch.isfinite(g).all()), f"{name} tau={tau} {case} {dtype}: non-finite gradient"


@pytest.mark.parametrize("case", ["large", "small"])
@pytest.mark.parametrize("name", sorted(set(LOSSES) - SCALE_VARIANT))
def test_scale_invariant_losses_ignore_the_norm(name, case):
    """Cosine-based losses must not depend on the norm: at 1e30 and 1e-30 the value is that at scale 1."""
    ref, _ = run_cell(name, 0.05, "random", torch.float32)
    loss, _ = run_cell(name, 0.05, case, torch.float32)
    loss, ref = float(loss.detach()), float(ref.detach())
    assert math.isclose(loss, ref, rel_tol=1e-4, abs_tol=1e-5), (name, case, loss, ref)


def test_grid_size():
    """The closing note quotes this count: every loss x tau x case x dtype cell."""
    assert len(LOSSES) == 21
    assert len(LOSSES) * len(TAUS) * len(CASES) * len(DTYPES) == 840


# ----------------------------------------------------------------------------------- the angle paths, directly
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "bfloat16"])
def test_arcsin_path_has_finite_gradient_at_cos_plus_minus_one(dtype):
    """SimACE Eq. 7: d(pi/2 - arccos c)/dc = 1/sqrt(1 - c^2) is infinite at |c| = 1; the clamp keeps it finite,
    also in bfloat16 (where 1 - 1e-6 rounds to 1, so the clamp must follow the dtype's resolution)."""
    c = torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0], dtype=dtype, requires_grad=True)
    theta = cos_to_angle(c)
    (g,) = torch.autograd.grad(theta.sum(), c)
    assert bool(torch.isfinite(theta).all()) and bool(torch.isfinite(g).all()), (theta, g)
    # inside the clamp the derivative is the textbook one (float32: exact to rounding)
    if dtype == torch.float32:
        assert torch.allclose(g[1:4], 1 / torch.sqrt(1 - c.detach()[1:4] ** 2))
    # the value stays within [-pi/2, pi/2] and is odd
    assert theta.detach().abs().max().item() <= math.pi / 2 + 1e-2
    assert torch.allclose(theta.float(), -theta.flip(0).float())


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "bfloat16"])
@pytest.mark.parametrize("case", CASES)
def test_complex_angle_and_atan2_finite(case, dtype):
    """AnglE Eq. 6 (code reading and atan2 reading): finite values and gradients at angle 0, pi, huge and tiny norms."""
    z1, z2 = make_case(case, dtype)
    for f in (complex_angle, A.eq6_atan2, A.eq6_code):
        value = f(z1, z2)
        grads = torch.autograd.grad(value.sum(), [z1, z2])
        assert bool(torch.isfinite(value).all()), (f.__name__, case, value)
        assert all(bool(torch.isfinite(g).all()) for g in grads), (f.__name__, case)
    s = complex_angle(z1, z2).detach().float()
    assert float(s.min()) >= 0 and float(s.max()) <= math.sqrt(2) + 1e-2


def test_zero_norm_rows_are_finite_or_rejected():
    """A zero row has no direction. Cosine-based losses treat its cosine as 0 (finite, like F.normalize), the
    weighted-CL cosine similarity refuses it with a message naming the zero row."""
    z1, z2 = make_case("random", torch.float32)
    z1 = z1.detach().clone()
    z1[0] = 0
    z1.requires_grad_(True)
    for name in ("simcse", "arccon", "simace", "cosent", "angle", "sincere", "concept-infonce", "contrastive_nll"):
        loss = LOSSES[name](z1, z2, 0.05)
        (g,) = torch.autograd.grad(loss, [z1])
        assert bool(torch.isfinite(loss)) and bool(torch.isfinite(g).all()), name
    with pytest.raises(ValueError, match="zero row"):
        LOSSES["weighted-supcon"](z1, z2, 0.05)
