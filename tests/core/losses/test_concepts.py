"""Paper 4's objective (companion.losses.concepts): InfoNCE + BCE, its weighted terms, the hard-negative mask and
the d2d term, against hand computations."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from companion.losses.concepts import WEIGHTS, concept_loss, hard_negative_bce, infonce_term


def _emb(b, d=8, seed=0, k=None):
    g = torch.Generator().manual_seed(seed)
    shape = (b, d) if k is None else (b, k, d)
    return torch.randn(*shape, generator=g, dtype=torch.float64)


# ----------------------------------------------------------------------------------------- the terms and their sum
def test_infonce_term_matches_hand_computation():
    q, p = _emb(4, seed=1), _emb(4, seed=2)
    cos = F.normalize(q, dim=1) @ F.normalize(p, dim=1).T / 0.05
    ref = -(cos.diag() - torch.logsumexp(cos, dim=1)).mean()
    assert torch.allclose(infonce_term(q, p, 0.05), ref)
    h = _emb(4, seed=3, k=2)
    hl = torch.einsum("bd,bkd->bk", F.normalize(q, dim=1), F.normalize(h, dim=2)) / 0.05
    full = torch.cat([cos, hl], dim=1)
    ref_u = -(cos.diag() - torch.logsumexp(full, dim=1)).mean()
    assert torch.allclose(infonce_term(q, p, 0.05, hard=h), ref_u)


def test_bce_matches_hand_computation():
    q, p, n = _emb(3, seed=1), _emb(3, seed=2), _emb(3, seed=3, k=5)
    cp = F.cosine_similarity(q, p, dim=1)
    cn = F.cosine_similarity(q[:, None], n, dim=2)
    sp = torch.sigmoid((cp - 0.5) / 0.05)
    sn = torch.sigmoid((cn - 0.5) / 0.05)
    ref = (-torch.log(sp) - torch.log(1 - sn).sum(1)).mean()
    assert torch.allclose(hard_negative_bce(q, p, n), ref)


def test_total_loss_equals_weighted_terms():
    q, p, q2, p2, d1, d2 = (_emb(6, seed=s) for s in range(6))
    h = _emb(6, seed=9, k=5)
    out = concept_loss(syn=(q, p), t2d=(q2, p2), d2d=(d1, d2), hard=h)
    assert set(out.terms) == {"syn", "t2d", "d2d", "neg"}
    assert out.weights == WEIGHTS == {"syn": 1.0, "t2d": 1.0, "d2d": 0.7, "neg": 0.5}
    manual = out.terms["syn"] + out.terms["t2d"] + 0.7 * out.terms["d2d"] + 0.5 * out.terms["neg"]
    assert torch.allclose(out.total, manual)
    assert torch.allclose(out.terms["neg"], hard_negative_bce(q2, p2, h))
    uni = concept_loss(syn=(q, p), t2d=(q2, p2), hard=h, unified=True)
    assert set(uni.terms) == {"syn", "t2d"}
    assert torch.allclose(uni.terms["t2d"], infonce_term(q2, p2, hard=h))
    assert torch.allclose(uni.total, uni.terms["syn"] + uni.terms["t2d"])


def test_bad_input_is_a_clear_error():
    q = _emb(1)
    with pytest.raises(ValueError, match="batch with one pair"):
        infonce_term(q, q)
    with pytest.raises(ValueError, match="batch with one pair"):
        concept_loss(t2d=(q, q))
    with pytest.raises(ValueError, match="Unknown loss term"):
        concept_loss(t2d=(_emb(3), _emb(3)), weights={"foo": 1.0})
    with pytest.raises(ValueError, match="hard negatives must be"):
        infonce_term(_emb(3), _emb(3), hard=_emb(2, k=2))
    with pytest.raises(ValueError, match="unified=True needs"):
        concept_loss(t2d=(_emb(3), _emb(3)), unified=True)


def _neg_grad(batch: int, unified: bool) -> float:
    """Gradient of anchor 0's loss w.r.t. the cosine logit of its hard negative, at batch size ``batch``."""
    d = 16
    g0, g = torch.Generator().manual_seed(0), torch.Generator().manual_seed(1)
    q0, p0, h0 = (torch.randn(1, d, generator=g0, dtype=torch.float64) for _ in range(3))
    p0, h0 = q0 + 0.7 * p0, q0 + 0.7 * h0  # positive and hard negative about equally close to the anchor
    # the other items share a common direction with the anchor (cosine ~0.5), like real in-batch definitions
    rest = q0 + torch.randn(batch - 1, 3, d, generator=g, dtype=torch.float64)
    q = torch.cat([q0, rest[:, 0]])
    p = torch.cat([p0, rest[:, 1]])
    h = torch.cat([h0, rest[:, 2]])[:, None, :]
    h = h.clone().requires_grad_(True)
    if unified:
        loss = infonce_term(q, p, 0.05, hard=h, reduction="none")[0]
    else:
        loss = hard_negative_bce(q, p, h, reduction="none")[0]
    (grad,) = torch.autograd.grad(loss, h)
    return float(grad[0, 0].norm())


def test_bce_negative_gradient_does_not_shrink_with_batch_but_unified_does():
    bce = [_neg_grad(b, unified=False) for b in (4, 16, 64, 256)]
    uni = [_neg_grad(b, unified=True) for b in (4, 16, 64, 256)]
    # anchor 0, its positive and its hard negative are the same tensors at every batch size
    assert np.allclose(bce, bce[0], rtol=1e-9)
    assert all(a > b for a, b in zip(uni, uni[1:])) and uni[-1] < 0.5 * uni[0]


# ------------------------------------------------------------------------------------- hard-negative presence mask
def test_masked_hard_negative_is_the_same_as_an_absent_one():
    q, p, n = _emb(4, seed=1), _emb(4, seed=2), _emb(4, seed=3, k=3)
    keep = torch.tensor([[True, True, True], [True, False, True], [False, False, True], [True, True, False]])
    bce = hard_negative_bce(q, p, n, hard_mask=keep, reduction="none")
    uni = infonce_term(q, p, 0.05, hard=n, hard_mask=keep, reduction="none")
    for i in range(4):
        sub = n[i:i + 1, keep[i]]
        ref = hard_negative_bce(q[i:i + 1], p[i:i + 1], sub, reduction="none")[0]
        assert torch.allclose(bce[i], ref)
    # unified InfoNCE: anchor 2 keeps only its third negative; compare with a hand-computed denominator
    qn, pn, nn_ = F.normalize(q, dim=1), F.normalize(p, dim=1), F.normalize(n, dim=2)
    logits = torch.cat([qn[2] @ pn.T, nn_[2, 2:] @ qn[2]]) / 0.05
    assert torch.allclose(uni[2], -(logits[2] - torch.logsumexp(logits, 0)))
    full = concept_loss(t2d=(q, p), hard=n, hard_mask=torch.ones(4, 3, dtype=torch.bool))
    assert torch.allclose(full.total, concept_loss(t2d=(q, p), hard=n).total)
    with pytest.raises(ValueError, match="hard_mask must be"):
        hard_negative_bce(q, p, n, hard_mask=keep[:, :2])


# ---------------------------------------------------------------------------------------------------- the d2d term
def test_the_d2d_term_by_hand():
    """§4.3's d2d term on two definition pairs, worked out with pen and paper: cosines 1 and 0.6 in the first row,
    0 and 0.8 in the second, tau 0.5, so the InfoNCE is the mean of log(1 + e^-0.8) and log(1 + e^-1.6), and the
    objective counts it at 0.7."""
    import math

    q = torch.tensor([[1.0, 0.0], [0.0, 2.0]], dtype=torch.float64)  # the second row is not unit: cosines only
    p = torch.tensor([[3.0, 0.0], [0.6, 0.8]], dtype=torch.float64)
    term = (math.log(1 + math.exp(-0.8)) + math.log(1 + math.exp(-1.6))) / 2
    out = concept_loss(d2d=(q, p), temperature=0.5)
    assert float(out.terms["d2d"]) == pytest.approx(term, rel=1e-12)
    assert float(out.total) == pytest.approx(0.7 * term, rel=1e-12)
    both = concept_loss(t2d=(q, p), d2d=(p, q), temperature=0.5)
    assert float(both.total) == pytest.approx(float(both.terms["t2d"]) + 0.7 * float(both.terms["d2d"]), rel=1e-12)
