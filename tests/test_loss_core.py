"""The two shared loss cores against hand computations and reference implementations."""

import math

import pytest
import torch
import torch.nn.functional as F

from companion.losses import contrastive_nll, pairwise_ranking_loss


def _unit(n, d, seed=0):
    g = torch.Generator().manual_seed(seed)
    return F.normalize(torch.randn(n, d, generator=g, dtype=torch.float64), dim=1)


def test_single_positive_equals_cross_entropy():
    logits = _unit(6, 4) @ _unit(6, 4, seed=1).T / 0.05
    ours = contrastive_nll(logits, torch.eye(6, dtype=torch.bool))
    assert torch.allclose(ours, F.cross_entropy(logits, torch.arange(6)), atol=1e-12)


def test_hand_computed_two_by_three():
    logits = torch.tensor([[1.0, 0.0, -1.0], [0.5, 2.0, 0.0]], dtype=torch.float64)
    pos = torch.tensor([[1, 1, 0], [0, 1, 0]], dtype=torch.bool)
    lse0 = math.log(math.e + 1 + math.exp(-1))
    lse1 = math.log(math.exp(0.5) + math.exp(2.0) + 1)
    expected = (-(0.5 * (1 - lse0) + 0.5 * (0 - lse0)) + -(2.0 - lse1)) / 2
    assert contrastive_nll(logits, pos).item() == pytest.approx(expected, abs=1e-12)


def test_sincere_denominator_leaves_other_positives_out():
    logits = torch.tensor([[1.0, 3.0, 0.0]], dtype=torch.float64)
    pos = torch.tensor([[True, True, False]])
    ours = contrastive_nll(logits, pos, exclude_other_positives=True)
    # positive 1: log(e^1 / (e^1 + e^0)); positive 2: log(e^3 / (e^3 + e^0)); the other positive is absent.
    expected = -0.5 * ((1 - math.log(math.e + 1)) + (3 - math.log(math.exp(3) + 1)))
    assert ours.item() == pytest.approx(expected, abs=1e-12)
    # changing the other positive's logit changes InfoNCE's value but not SINCERE's term for positive 0
    bumped = logits.clone()
    bumped[0, 1] = 10.0
    per_pos0 = lambda lg: -(lg[0, 0] - torch.logaddexp(lg[0, 0], lg[0, 2]))
    assert per_pos0(bumped) == per_pos0(logits)


def test_negative_log_weights_scale_negatives_only():
    logits = torch.tensor([[2.0, 0.5, -0.5]], dtype=torch.float64)
    pos = torch.tensor([[True, False, False]])
    w = torch.tensor([[7.0, 2.0, 0.5]], dtype=torch.float64)  # the positive's weight must be ignored
    ours = contrastive_nll(logits, pos, negative_log_weights=w.log())
    expected = -(2.0 - math.log(math.exp(2.0) + 2 * math.exp(0.5) + 0.5 * math.exp(-0.5)))
    assert ours.item() == pytest.approx(expected, abs=1e-12)


def test_denominator_mask_drops_self_and_rows_without_positive_are_skipped():
    logits = torch.randn(4, 4, dtype=torch.float64)
    pos = torch.zeros(4, 4, dtype=torch.bool)
    pos[0, 1] = True
    mask = ~torch.eye(4, dtype=torch.bool)
    expected = -(logits[0, 1] - torch.logsumexp(logits[0, 1:], 0))
    assert torch.allclose(contrastive_nll(logits, pos, denominator_mask=mask), expected)
    per_anchor = contrastive_nll(logits, pos, denominator_mask=mask, reduction="none")
    assert per_anchor[1:].abs().sum() == 0


def test_finite_gradients_when_a_row_has_no_negative():
    logits = torch.zeros(2, 2, dtype=torch.float32, requires_grad=True)
    loss = contrastive_nll(logits, torch.ones(2, 2, dtype=torch.bool), exclude_other_positives=True)
    loss.backward()
    assert torch.isfinite(loss) and torch.isfinite(logits.grad).all()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(logits=torch.zeros(2, 2), positives=torch.zeros(2, 2, dtype=torch.bool)), "No anchor"),
        (dict(logits=torch.full((2, 2), float("nan")), positives=torch.eye(2, dtype=torch.bool)), "NaN"),
        (dict(logits=torch.zeros(2, 2), positives=torch.eye(3, dtype=torch.bool)), "shape"),
        (dict(logits=torch.zeros(2, 2), positives=-torch.eye(2)), "non-negative"),
        (dict(logits=torch.zeros(2), positives=torch.ones(2)), "2-D"),
    ],
)
def test_contrastive_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        contrastive_nll(**kwargs)


def test_ranking_loss_hand_example_and_zero_without_order():
    scores = torch.tensor([0.9, 0.1, 0.5], dtype=torch.float64)
    labels = torch.tensor([2.0, 0.0, 1.0])
    # ordered pairs (a > b): (0,1), (0,2), (2,1): terms exp(20 (s_b - s_a))
    terms = [20 * (0.1 - 0.9), 20 * (0.5 - 0.9), 20 * (0.1 - 0.5)]
    expected = math.log(1 + sum(math.exp(t) for t in terms))
    assert pairwise_ranking_loss(scores, labels).item() == pytest.approx(expected, abs=1e-12)
    assert pairwise_ranking_loss(scores, torch.ones(3)).item() == 0.0


def test_ranking_loss_depends_on_label_order_only():
    scores = torch.randn(8, dtype=torch.float64)
    labels = torch.tensor([0.0, 1, 2, 2, 3, 4, 5, 1])
    a = pairwise_ranking_loss(scores, labels)
    b = pairwise_ranking_loss(scores, torch.exp(labels) * 3 + 1)  # monotone transform
    perm = torch.randperm(8)
    c = pairwise_ranking_loss(scores[perm], labels[perm])
    assert torch.allclose(a, b) and torch.allclose(a, c)


@pytest.mark.parametrize("scale", [0, -1.0, float("inf")])
def test_ranking_loss_bad_scale(scale):
    with pytest.raises(ValueError, match="scale"):
        pairwise_ranking_loss(torch.zeros(3), torch.arange(3), scale=scale)
