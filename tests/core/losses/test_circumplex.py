"""The circumplex paper's losses (companion.losses.circumplex): the ECM label ring, SINCERE, SoftCSE and
CircularCSE against hand computations, their invariants and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from companion.losses.circumplex import (
    ECM_LABELS,
    anchor_coverage,
    circular_cse_loss,
    circumplex_target,
    delta_theta,
    ecm_angles,
    ecm_index,
    population_bound,
    sincere_loss,
    softcse_loss,
    softcse_weights,
)

torch.set_default_dtype(torch.float32)


def random_rotation(d: int, seed: int = 0) -> torch.Tensor:
    q, _ = torch.linalg.qr(torch.randn(d, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64))
    return q


def ring(labels: list[str], d: int = 16, seed: int = 0) -> torch.Tensor:
    """Unit vectors at each label's ECM angle in a random 2-D plane of R^d."""
    theta = torch.deg2rad(ecm_angles(labels))
    x = torch.zeros(len(labels), d, dtype=torch.float64)
    x[:, 0], x[:, 1] = torch.cos(theta), torch.sin(theta)
    return x @ random_rotation(d, seed)


def simplex(n_classes: int, d: int | None = None) -> torch.Tensor:
    """Regular simplex: centred one-hot vectors, normalised (pairwise cosine -1/(E-1))."""
    e = torch.eye(n_classes, dtype=torch.float64)
    x = F.normalize(e - e.mean(0), dim=1)
    if d is not None and d > n_classes:
        x = torch.cat([x, torch.zeros(n_classes, d - n_classes, dtype=torch.float64)], 1)
    return x


LABELS2 = [name for name in ECM_LABELS for _ in range(2)]  # every ECM label twice


# ------------------------------------------------------------------------------------------------ ECM
def test_ecm_angles_and_delta_theta():
    assert ecm_angles(["love", "surprise", "disgust", "trust"]).tolist() == [0, 90, 180, 330]
    dt = delta_theta(torch.tensor([0.0, 330.0, 180.0]))
    assert dt.tolist() == [[0, 30, 180], [30, 0, 150], [180, 150, 0]]
    with pytest.raises(ValueError, match="Unknown emotion label"):
        ecm_index(["love", "nostalgia"])


# ------------------------------------------------------------------------------------------------ CircularCSE
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_circular_cse_zero_on_ring_under_any_rotation(seed):
    x = ring(LABELS2, seed=seed)
    assert circular_cse_loss(x, LABELS2).item() == pytest.approx(0.0, abs=1e-12)
    assert circular_cse_loss(x.float(), LABELS2).item() == pytest.approx(0.0, abs=1e-6)


def test_circular_cse_positive_on_simplex_and_matches_hand_computation():
    x = simplex(12)[torch.arange(12).repeat_interleave(2)]
    loss = circular_cse_loss(x, LABELS2).item()
    assert loss > 0.1
    sim = x @ x.T
    t = circumplex_target(LABELS2)
    same = torch.tensor([[a == b for b in LABELS2] for a in LABELS2])
    total, count = 0.0, 0
    for i in range(24):
        for j in range(24):
            if i != j:
                total += ((sim[i, j] - 1) ** 2 if same[i, j] else (sim[i, j] - t[i, j]) ** 2).item()
                count += 1
    assert loss == pytest.approx(total / count, rel=1e-12)


def test_circular_cse_margin():
    x = ring(LABELS2)
    x[1] = F.normalize(x[1] + 0.05 * x[2], dim=0)  # move one positive a little
    assert circular_cse_loss(x, LABELS2, margin=0.0) > 0
    same = x[0] @ x[1]
    assert circular_cse_loss(x, LABELS2, margin=float(1 - same) + 1e-9) < circular_cse_loss(x, LABELS2)
    with pytest.raises(ValueError, match="margin"):
        circular_cse_loss(x, LABELS2, margin=-1.0)


def test_circumplex_target_is_psd_rank_two():
    t = circumplex_target(list(ECM_LABELS))
    eig = torch.linalg.eigvalsh(t)
    assert eig.min() > -1e-10
    assert int((eig > 1e-8).sum()) == 2
    assert torch.linalg.matrix_rank(t).item() == 2


# ------------------------------------------------------------------------------------------------ SoftCSE
def test_softcse_weights_mean_one_grow_with_angle_and_ratio():
    ids = ecm_index(LABELS2)
    theta = ecm_angles(LABELS2)
    w = softcse_weights(theta, ids)
    neg = ids[:, None] != ids[None, :]
    row_mean = w.sum(1) / neg.sum(1)
    assert torch.allclose(row_mean, torch.ones(24, dtype=torch.float64), atol=1e-12)
    assert (w[~neg] == 0).all()
    dt = delta_theta(theta)
    # within an anchor's row, weights increase with delta theta
    for i in range(24):
        order = torch.argsort(dt[i][neg[i]])
        assert (torch.diff(w[i][neg[i]][order]) >= -1e-12).all()
    w30 = w[0][dt[0] == 30][0]
    w180 = w[0][dt[0] == 180][0]
    assert (w180 / w30).item() == pytest.approx(2 / (1 - math.cos(math.radians(30))), rel=1e-12)


def test_softcse_equals_sincere_when_negatives_share_one_angle():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(12, 8, generator=g)
    labels = ["love", "anger", "boredom"] * 4  # 0, 120, 240 degrees: every negative is 120 degrees away
    assert softcse_loss(x, labels).item() == pytest.approx(sincere_loss(x, labels).item(), rel=1e-6)
    two = ["joy", "sadness"] * 6  # 180 degrees apart
    assert softcse_loss(x, two).item() == pytest.approx(sincere_loss(x, two).item(), rel=1e-6)
    # and differs once the angles differ
    mixed = ["love", "joy", "disgust"] * 4
    assert abs(softcse_loss(x, mixed).item() - sincere_loss(x, mixed).item()) > 1e-4


# ------------------------------------------------------------------------------------------------ SINCERE
def sincere_by_hand(x: torch.Tensor, labels: list, tau: float, weights=None) -> float:
    e = F.normalize(x.double(), dim=1)
    s = (e @ e.T / tau).tolist()
    per_anchor = []
    for i, yi in enumerate(labels):
        pos = [j for j, yj in enumerate(labels) if yj == yi and j != i]
        neg = [k for k, yk in enumerate(labels) if yk != yi]
        if not pos:
            continue
        terms = []
        for j in pos:
            den = math.exp(s[i][j]) + sum((1.0 if weights is None else weights[i][k]) * math.exp(s[i][k])
                                          for k in neg)
            terms.append(-(s[i][j] - math.log(den)))
        per_anchor.append(sum(terms) / len(terms))
    return sum(per_anchor) / len(per_anchor)


def test_sincere_matches_hand_computation_and_excludes_other_positives():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(10, 6, generator=g, dtype=torch.float64)
    labels = ["love", "love", "love", "joy", "joy", "fear", "fear", "fear", "fear", "trust"]  # trust: no positive
    tau = 0.5
    ours = sincere_loss(x, labels, tau=tau).item()
    assert ours == pytest.approx(sincere_by_hand(x, labels, tau), rel=1e-10)
    # SupCon-style denominator (other positives included) gives a different, larger value
    e = F.normalize(x, dim=1)
    logits = e @ e.T / tau
    eye = torch.eye(10, dtype=torch.bool)
    ids = ecm_index(labels)
    pos = (ids[:, None] == ids[None]) & ~eye
    lse = torch.logsumexp(logits.masked_fill(eye, -torch.inf), 1, keepdim=True)
    supcon = -((logits - lse) * pos).sum(1)[pos.any(1)] / pos.sum(1)[pos.any(1)]
    assert supcon.mean().item() > ours + 1e-3


def test_softcse_matches_hand_computation():
    g = torch.Generator().manual_seed(2)
    x = torch.randn(9, 5, generator=g, dtype=torch.float64)
    labels = ["love", "love", "joy", "joy", "surprise", "disgust", "disgust", "calmness", "calmness"]
    w = softcse_weights(ecm_angles(labels), ecm_index(labels)).tolist()
    assert softcse_loss(x, labels, tau=0.3).item() == pytest.approx(sincere_by_hand(x, labels, 0.3, w), rel=1e-10)


def test_sincere_on_simplex_matches_bound_formula():
    E, tau = 12, 0.05
    x = simplex(E)[torch.arange(E).repeat_interleave(2)]
    got = sincere_loss(x, LABELS2, tau=tau).item()
    # one positive (the twin) and 2(E-1) negatives at cosine -1/(E-1) each
    expect = math.log1p(2 * (E - 1) * math.exp(-E / ((E - 1) * tau)))
    assert got == pytest.approx(expect, rel=1e-6)
    assert population_bound(E, tau) == pytest.approx(math.log1p((E - 1) * math.exp(-E / ((E - 1) * tau))))


@pytest.mark.parametrize("loss", [sincere_loss, softcse_loss, circular_cse_loss])
def test_losses_finite_float32_and_rotation_invariant(loss):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(48, 16, generator=g)
    labels = [ECM_LABELS[i % 12] for i in range(48)]
    base = loss(x, labels)
    assert torch.isfinite(base)
    q = random_rotation(16, 5).float()
    assert loss(x @ q, labels).item() == pytest.approx(base.item(), rel=1e-4, abs=1e-6)
    # collapsed and antipodal embeddings at tau = 0.05 stay finite, with finite gradients
    y = torch.cat([torch.ones(24, 16), -torch.ones(24, 16)]).requires_grad_(True)
    value = loss(y, labels)
    value.backward()
    assert torch.isfinite(value) and torch.isfinite(y.grad).all()


# ------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("loss", [sincere_loss, softcse_loss, circular_cse_loss])
def test_bad_input_errors(loss):
    x = torch.randn(4, 8)
    with pytest.raises(ValueError, match="Unknown emotion label"):
        loss(x, ["love", "love", "hate", "joy"])
    with pytest.raises(ValueError, match="different lengths"):
        loss(x, ["love", "love", "joy"])
    bad = x.clone()
    bad[0, 0] = float("nan")
    with pytest.raises(ValueError, match="NaN or Inf"):
        loss(bad, ["love", "love", "joy", "joy"])
    with pytest.raises(ValueError, match="out|must lie"):
        loss(x, torch.tensor([0, 1, 2, 40]))


@pytest.mark.parametrize("loss", [sincere_loss, softcse_loss])
def test_no_positive_and_bad_tau(loss):
    x = torch.randn(4, 8)
    with pytest.raises(ValueError, match="No anchor in the batch has a positive"):
        loss(x, ["love", "joy", "fear", "trust"])
    for tau in (0.0, -0.1, float("nan")):
        with pytest.raises(ValueError, match="tau must be a finite number > 0"):
            loss(x, ["love", "love", "joy", "joy"], tau=tau)


# ------------------------------------------------------------ Eq. 5's 1/B against the 1/|A| anchor average
@pytest.mark.parametrize("loss", [sincere_loss, softcse_loss])
def test_batch_average_is_the_anchor_average_times_the_covered_share(loss):
    torch.manual_seed(0)
    labels = ["love", "love", "joy", "joy", "joy", "fear", "trust", "anger"]  # 3 anchors of 8 have no positive
    x = torch.randn(8, 6, dtype=torch.float64)
    a, b = float(loss(x, labels)), float(loss(x, labels, average="batch"))
    assert math.isclose(b, a * 5 / 8, rel_tol=1e-12)
    if loss is sincere_loss:  # brute force Eq. 5-6: inner means per anchor, 0 for an anchor without a positive
        e = F.normalize(x, dim=1).numpy()
        terms = []
        for i in range(8):
            pos = [j for j in range(8) if j != i and labels[j] == labels[i]]
            neg = np.exp(e[i] @ e[[k for k in range(8) if labels[k] != labels[i]]].T / 0.05).sum()
            terms.append(np.mean([-np.log(np.exp(e[i] @ e[j] / 0.05) / (np.exp(e[i] @ e[j] / 0.05) + neg))
                                  for j in pos]) if pos else 0.0)
        assert math.isclose(a, sum(terms) / 5, rel_tol=1e-9)  # 1/|A|
        assert math.isclose(b, sum(terms) / 8, rel_tol=1e-9)  # Eq. 5's 1/B
    with pytest.raises(ValueError, match="average must be one of anchors, batch"):
        loss(x, labels, average="B")


def test_anchor_coverage_counts_anchors_with_a_positive():
    labels = ["love", "love", "joy", "fear", "fear", "fear"]
    out = anchor_coverage(labels, [torch.tensor([0, 1, 2]), torch.tensor([3, 4, 5]), torch.tensor([0, 2, 3])])
    assert out == {"min": 0.0, "mean": pytest.approx((2 / 3 + 1 + 0) / 3), "batches": 3}
    with pytest.raises(ValueError, match="at least one batch"):
        anchor_coverage(labels, [])
