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


# ---- parity with the literal formulas (the cores were rewritten for speed: sorted prefix sums, no B x B masks)
def _ranking_literal(scores, labels, scale):
    terms = [scale * (scores[b] - scores[a]) for a in range(len(scores)) for b in range(len(scores))
             if labels[a] > labels[b]]
    return torch.logsumexp(torch.stack([scores.new_zeros(())] + terms), dim=0)


@pytest.mark.parametrize("seed", range(6))
def test_ranking_loss_equals_literal_double_sum_with_ties_and_gradients(seed):
    g = torch.Generator().manual_seed(seed)
    n = 3 + seed * 5
    scores = torch.randn(n, generator=g, dtype=torch.float64)
    labels = torch.randint(0, 4, (n,), generator=g).to(torch.float64)  # many ties
    a = scores.clone().requires_grad_(True)
    b = scores.clone().requires_grad_(True)
    fast, slow = pairwise_ranking_loss(a, labels, 20.0), _ranking_literal(b, labels, 20.0)
    fast.backward()
    slow.backward()
    assert fast.item() == pytest.approx(slow.item(), abs=1e-10)
    assert torch.allclose(a.grad, b.grad, atol=1e-10)


def test_ranking_loss_bool_labels_and_gradient_when_nothing_is_ordered():
    s = torch.tensor([0.3, 0.9, 0.1], dtype=torch.float64)
    assert pairwise_ranking_loss(s, torch.tensor([True, False, True])).item() == pytest.approx(
        _ranking_literal(s, torch.tensor([1, 0, 1]), 20.0).item(), abs=1e-12)
    x = s.clone().requires_grad_(True)
    pairwise_ranking_loss(x, torch.zeros(3)).backward()
    assert torch.equal(x.grad, torch.zeros(3, dtype=torch.float64))  # finite, zero: no ordered pair


def _nll_literal(logits, weights, allowed, log_w, exclude):
    """Per-anchor loss of contrastive_nll's docstring formula, one anchor and one positive at a time."""
    out = []
    for i in range(logits.shape[0]):
        pos = [j for j in range(logits.shape[1]) if weights[i, j] > 0]
        if not pos:
            out.append(logits.new_zeros(()))
            continue
        total = weights[i].sum()
        row = logits.new_zeros(())
        for j in pos:
            ks = [k for k in range(logits.shape[1]) if (allowed[i, k] or weights[i, k] > 0)
                  and not (exclude and weights[i, k] > 0 and k != j)]
            den = torch.stack([logits[i, k] + (0.0 if weights[i, k] > 0 else log_w[i, k]) for k in ks])
            row = row - weights[i, j] / total * (logits[i, j] - torch.logsumexp(den, 0))
        out.append(row)
    return torch.stack(out)


@pytest.mark.parametrize("exclude", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_contrastive_nll_equals_literal_formula(exclude, weighted):
    g = torch.Generator().manual_seed(3)
    n = 7
    logits = torch.randn(n, n, generator=g, dtype=torch.float64) * 3
    pos = torch.rand(n, n, generator=g) < 0.3
    pos[0] = False  # an anchor without positives
    weights = torch.rand(n, n, generator=g, dtype=torch.float64) * pos if weighted else pos
    allowed = torch.rand(n, n, generator=g) < 0.7
    log_w = torch.randn(n, n, generator=g, dtype=torch.float64)
    got = contrastive_nll(logits, weights, denominator_mask=allowed, negative_log_weights=log_w,
                          exclude_other_positives=exclude, reduction="none")
    want = _nll_literal(logits, weights.to(torch.float64), allowed, log_w, exclude)
    assert torch.allclose(got, want, atol=1e-10)
    assert got[0].item() == 0.0


def test_check_finite_fast_path_keeps_overflowing_finite_tensors_and_finds_every_nan_inf():
    from companion._checks import check_finite

    check_finite(torch.full((4,), 3e38))  # the sum overflows to inf, but every value is finite
    check_finite(torch.full((8,), 6e4, dtype=torch.float16))
    for bad in (float("nan"), float("inf"), -float("inf")):
        x = torch.zeros(5, 5)
        x[3, 1] = bad
        with pytest.raises(ValueError, match="NaN or Inf"):
            check_finite(x, "x")
