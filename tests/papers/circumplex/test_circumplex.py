"""Tests of the circumplex paper's pieces: heads, V-Measure, CD / CD-r, ring alignment (the losses and the ECM ring:
tests/core/losses/test_circumplex.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from companion.encoders.states import PackedStates
from companion.losses.circumplex import ECM_LABELS, ecm_angles, sincere_loss
from companion.metrics.clustering import spherical_kmeans, v_measure
from companion.papers.circumplex.geometry import avg_cos_sim, cd_r, circumplex_distance, circumplex_scores
from companion.papers.circumplex.heads import (
    GPTHead,
    NGPTHead,
    embed_with_head,
    make_head,
    pca_basis,
    train_head,
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


# ------------------------------------------------------------------------------------------------ heads
def test_ngpt_unit_norm_outputs_and_weights_after_step():
    torch.manual_seed(0)
    head = NGPTHead(32, n_heads=4)
    x, mask = torch.randn(6, 7, 32), torch.ones(6, 7, dtype=torch.bool)
    mask[3:, 5:] = False
    emb, stages = head(x, mask, return_stages=True)
    assert torch.allclose(emb.norm(dim=1), torch.ones(6), atol=1e-5)
    opt = torch.optim.AdamW(head.parameters(), lr=0.1, weight_decay=0.0)
    head(x, mask).sum().backward()
    opt.step()
    assert not all(torch.allclose(lin.weight.norm(dim=d), torch.ones(1)) for _, lin, d in head.matrices())
    head.normalize_weights()
    for name, layer, dim in head.matrices():
        assert torch.allclose(layer.weight.norm(dim=dim), torch.ones(1), atol=1e-5), name
    # token-level outputs of an nGPT block lie on the sphere
    out = head.blocks(x, mask)["output"]
    assert torch.allclose(out.norm(dim=-1), torch.ones(6, 7), atol=1e-5)


def test_ngpt_alpha_zero_is_identity_on_the_sphere():
    head = NGPTHead(16, n_heads=2)
    with torch.no_grad():
        head.alpha_attn.zero_()
        head.alpha_mlp.zero_()
    x, mask = torch.randn(3, 5, 16), torch.ones(3, 5, dtype=torch.bool)
    out = head.blocks(x, mask)["output"]
    assert torch.allclose(out, F.normalize(x, dim=-1), atol=1e-6)
    assert torch.allclose(head(x, mask), F.normalize(F.normalize(x, dim=-1).mean(1), dim=-1), atol=1e-6)


@pytest.mark.parametrize("kind", ["GPT", "nGPT"])
@pytest.mark.parametrize("pooling", ["mean", "cls", "last"])
def test_heads_ignore_padding(kind, pooling):
    torch.manual_seed(0)
    head = make_head(kind, 16, n_heads=2, pooling=pooling).eval()
    x = torch.randn(2, 4, 16)
    padded = torch.cat([x, 100 * torch.randn(2, 3, 16)], 1)
    mask = torch.cat([torch.ones(2, 4), torch.zeros(2, 3)], 1).bool()
    assert torch.allclose(head(x), head(padded, mask), atol=1e-5)
    assert torch.allclose(head(x).norm(dim=1), torch.ones(2), atol=1e-5)


def test_head_bad_input():
    head = GPTHead(16, n_heads=2)
    with pytest.raises(ValueError, match="width 8"):
        head(torch.randn(2, 3, 8))
    with pytest.raises(ValueError, match="B x T x d"):
        head(torch.randn(2, 16))
    with pytest.raises(ValueError, match="NaN or Inf"):
        head(torch.full((1, 2, 16), float("inf")))
    with pytest.raises(ValueError, match="at least one real token"):
        head(torch.randn(2, 3, 16), torch.tensor([[1, 1, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="Unknown head"):
        make_head("BERT")
    with pytest.raises(ValueError, match="not divisible"):
        GPTHead(10, n_heads=3)


def test_gpt_head_block_equation():
    torch.manual_seed(0)
    head = GPTHead(8, n_heads=2)
    x = torch.randn(1, 3, 8)
    st = head.blocks(x, torch.ones(1, 3, dtype=torch.bool))
    h1 = x + head.attn(head.norm_attn(x), torch.ones(1, 3, dtype=torch.bool))
    mlp = head.mlp
    xn = head.norm_mlp(h1)
    expect = h1 + mlp.o(F.silu(mlp.u(xn)) * mlp.v(xn))
    assert torch.allclose(st["output"], expect, atol=1e-6)


def packed_example(seed=0, n=30, d=8):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, 6, (n,), generator=g)
    flat = torch.randn(int(lengths.sum()), d, generator=g).half()
    return PackedStates(flat, lengths)


def test_packed_states_batch_and_projection():
    p = packed_example()
    x, mask = p.batch([3, 0])
    assert mask.sum(1).tolist() == [int(p.lengths[3]), int(p.lengths[0])]
    o = int(p.offsets[3])
    assert torch.equal(x[0, : p.lengths[3]], p.flat[o:o + int(p.lengths[3])].float())
    assert (x[~mask] == 0).all()
    basis, mean, frac = pca_basis(p, 3)
    assert torch.allclose(basis.T @ basis, torch.eye(3), atol=1e-5) and 0 < frac < 1
    q = p.project(basis, mean)
    assert q.dim == 3 and torch.equal(q.lengths, p.lengths)
    sub = p.subset([2, 5])
    assert torch.equal(sub.batch([1])[0], p.batch([5])[0])


def test_train_head_is_deterministic_and_embeds_in_order():
    p = packed_example(n=24)
    labels = [ECM_LABELS[i % 4] for i in range(24)]
    runs = [train_head("nGPT", sincere_loss, p, labels, steps=3, batch_size=8, lr=1e-2, seed=7, n_heads=2,
                       progress=False) for _ in range(2)]
    assert runs[0][1].history[-1]["loss"] == runs[1][1].history[-1]["loss"]
    emb = embed_with_head(runs[0][0], p, batch_size=5)
    direct = torch.cat([runs[0][0](*p.batch([i])) for i in range(3)])
    assert torch.allclose(emb[:3], direct, atol=1e-5)


# ------------------------------------------------------------------------------------------------ metrics
def test_cd_values():
    cd = circumplex_distance(list(ECM_LABELS))
    assert np.allclose(cd, cd.T)
    assert np.all(np.diag(cd) == 0)
    i = {n: k for k, n in enumerate(ECM_LABELS)}
    assert cd[i["love"], i["disgust"]] == 10
    assert cd[i["love"], i["joy"]] == 1
    assert cd[i["love"], i["surprise"]] == 2 + 3  # neutral vs polar
    assert cd[i["surprise"], i["calmness"]] == 0 + 6  # both neutral
    with pytest.raises(ValueError, match="Unknown emotion label"):
        circumplex_distance(["love", "hope"])


def test_avg_cos_sim_matches_brute_force():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(20, 5, generator=g, dtype=torch.float64)
    labels = ["love"] * 6 + ["joy"] * 9 + ["fear"] * 5
    mat, classes = avg_cos_sim(x, labels, ["love", "joy", "fear"])
    e = F.normalize(x, dim=1)
    lab = np.array(labels)
    for a, ca in enumerate(classes):
        for b, cb in enumerate(classes):
            ia, ib = np.flatnonzero(lab == ca), np.flatnonzero(lab == cb)
            vals = [float(e[i] @ e[j]) for i in ia for j in ib if i != j]
            assert mat[a, b] == pytest.approx(np.mean(vals), abs=1e-12)


def test_cd_r_ideal_ring_and_undefined():
    labels = [n for n in ECM_LABELS for _ in range(5)]
    x = ring(labels)
    r = circumplex_scores(x, labels)["CD-r"]
    assert 0.86 <= r <= 0.92
    mat, classes = avg_cos_sim(x, labels, list(ECM_LABELS))
    assert cd_r(mat, classes, include_diagonal=True) > r  # the other reading: diagonal included
    with pytest.raises(ValueError, match="undefined"):
        cd_r(np.full((12, 12), 0.3), list(ECM_LABELS))
    with pytest.raises(ValueError, match="12 x 12"):
        cd_r(np.zeros((3, 3)), list(ECM_LABELS))


def test_v_measure_perfect_permutation_and_sklearn_parity():
    from sklearn.cluster import KMeans
    from sklearn.metrics import v_measure_score

    x = ring([n for n in ECM_LABELS for _ in range(10)], seed=1) + 0.01 * torch.randn(120, 16, dtype=torch.float64)
    labels = np.repeat(np.arange(12), 10)
    assert v_measure(x, labels) == pytest.approx(1.0)
    perm = np.random.default_rng(0).permutation(12)
    assert v_measure(x, perm[labels]) == pytest.approx(v_measure(x, labels))
    # noisy blobs: spherical k-means and sklearn's KMeans on unit vectors agree closely
    g = torch.Generator().manual_seed(4)
    centers = F.normalize(torch.randn(5, 10, generator=g, dtype=torch.float64), dim=1)
    y = np.repeat(np.arange(5), 40)
    pts = F.normalize(centers[y] + 0.35 * torch.randn(200, 10, generator=g, dtype=torch.float64), dim=1)
    ours = v_measure(pts, y, seed=0)
    km = KMeans(5, n_init=10, random_state=0).fit(pts.numpy())
    assert ours == pytest.approx(v_measure_score(y, km.labels_), abs=0.05)


def test_spherical_kmeans_deterministic_and_keeps_lowest_inertia():
    x = torch.randn(60, 6, generator=torch.Generator().manual_seed(2))
    a, b = spherical_kmeans(x, 4, seed=3), spherical_kmeans(x, 4, seed=3)
    assert np.array_equal(a.labels, b.labels) and a.inertia == b.inertia
    assert len(a.inertias) == 10 and a.inertia == min(a.inertias)
    assert len(set(round(v, 9) for v in a.inertias)) > 1  # the restarts really differ
    e = F.normalize(x.double(), dim=1).numpy()
    assert a.inertia == pytest.approx(float((1 - (e * a.centers[a.labels]).sum(1)).sum()), rel=1e-9)
    with pytest.raises(ValueError, match="k must be"):
        spherical_kmeans(x, 0)
    with pytest.raises(ValueError, match="different lengths"):
        v_measure(x, np.zeros(5))


# ------------------------------------------------------------------ §5 / Figs 5-7 helpers (notebook 03)
def _ecm_ring(n_per_label: int = 3, dim: int = 6, seed: int = 0):
    from companion.losses.circumplex import ECM_ANGLES, ECM_LABELS

    labels = [c for c in ECM_LABELS for _ in range(n_per_label)]
    theta = np.radians([ECM_ANGLES[c] for c in labels])
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(dim, dim)))
    x = np.zeros((len(labels), dim))
    x[:, 0], x[:, 1] = np.cos(theta), np.sin(theta)
    return torch.tensor(x @ q.T), labels, list(ECM_LABELS)


def test_ring_alignment_one_on_the_ring_and_low_when_shuffled():
    from companion.papers.circumplex.geometry import label_centroids, mds2, ring_alignment

    emb, labels, classes = _ecm_ring()
    xy = mds2(label_centroids(emb, labels, classes))
    assert ring_alignment(xy, classes) == pytest.approx(1.0, abs=1e-6)
    assert ring_alignment(xy[::-1].copy(), classes) == pytest.approx(1.0, abs=1e-6)  # a reflection
    shuffled = xy[[0, 5, 10, 3, 8, 1, 6, 11, 4, 9, 2, 7]]
    assert ring_alignment(shuffled, classes) < 0.5


def test_ring_angles_recover_the_ecm_angles_and_pca_project_keeps_the_plane():
    from companion.losses.circumplex import ECM_ANGLES
    from companion.papers.circumplex.geometry import pca_project, ring_angles

    emb, labels, classes = _ecm_ring(seed=3)
    phi = ring_angles(emb, labels, classes, emb)
    want = np.radians([ECM_ANGLES[c] for c in labels])
    assert np.abs(np.angle(np.exp(1j * (phi - want)))).max() < 1e-6
    p2 = pca_project(emb, 2)
    assert p2.shape == (len(labels), 2)
    assert float((p2 ** 2).sum()) == pytest.approx(float(((emb - emb.mean(0)) ** 2).sum()), rel=1e-9)


# ------------------------------------------------------------------- nGPT training parametrisations
def _twin_heads(dim: int, n_heads: int = 4):
    torch.manual_seed(0)
    authors = NGPTHead(dim, n_heads=n_heads)
    plain = NGPTHead(dim, n_heads=n_heads, parametrisation="plain")
    shared = {k: v for k, v in authors.state_dict().items() if k not in ("alpha_attn", "alpha_mlp", "attn.s_qk")}
    plain.load_state_dict({**plain.state_dict(), **shared})
    return authors, plain


def test_ngpt_parametrisations_store_differently_but_start_equal():
    authors, plain = _twin_heads(64)
    assert authors.parametrisation == "authors" and math.isclose(authors.base_scale, 64 ** -0.5)
    assert torch.allclose(authors.alpha_attn, torch.full((64,), 0.125))  # stored at base_scale = 1/8
    assert torch.allclose(plain.alpha_attn, torch.full((64,), 0.05))
    for name in ("alpha_attn", "alpha_mlp", "s_qk"):
        assert torch.allclose(authors.effective()[name], plain.effective()[name]), name
    torch.manual_seed(1)
    x, mask = torch.randn(3, 6, 64), torch.ones(3, 6, dtype=torch.bool)
    mask[1, 4:] = False
    assert torch.allclose(authors(x, mask), plain(x, mask), atol=1e-6)
    assert not torch.allclose(authors(x, mask), NGPTHead(64, n_heads=4)(x, mask), atol=1e-3)  # weights matter


@pytest.mark.parametrize("dim", [64, 256])
def test_ngpt_one_adam_step_moves_alpha_and_sqk_by_the_predicted_ratios(dim):
    """Adam's first step moves every stored parameter by lr (sign of the gradient); the authors' storage turns that
    into alpha_init*sqrt(d) x lr on alpha and sqrt(d) x lr on s_qk, the plain one into lr on both."""
    authors, plain = _twin_heads(dim)
    torch.manual_seed(2)
    x, mask = torch.randn(4, 5, dim), torch.ones(4, 5, dtype=torch.bool)
    target = torch.randn(4, dim)
    lr = 1e-4
    moves = {}
    for name, head in (("authors", authors), ("plain", plain)):
        before = head.effective()
        opt = torch.optim.Adam(head.parameters(), lr=lr, eps=1e-30)
        (head(x, mask) * target).sum().backward()
        opt.step()
        after = head.effective()
        moves[name] = {k: (after[k] - before[k]).abs() for k in before}
    for key, ratio in (("alpha_attn", 0.05 * math.sqrt(dim)), ("alpha_mlp", 0.05 * math.sqrt(dim)),
                       ("s_qk", math.sqrt(dim))):
        a, p = moves["authors"][key].flatten(), moves["plain"][key].flatten()
        moved = p > 0.5 * lr
        assert moved.float().mean() > 0.9, key  # nearly every coordinate gets a gradient
        assert torch.allclose(p[moved], torch.full_like(p[moved], lr), rtol=1e-3), key
        assert torch.allclose(a[moved] / p[moved], torch.full_like(a[moved], ratio), rtol=1e-3), key


@pytest.mark.parametrize("parametrisation", ["authors", "plain"])
def test_ngpt_invariants_hold_in_both_parametrisations(parametrisation):
    torch.manual_seed(0)
    head = NGPTHead(32, n_heads=4, parametrisation=parametrisation)
    x, mask = torch.randn(5, 6, 32), torch.ones(5, 6, dtype=torch.bool)
    mask[2:, 4:] = False
    opt = torch.optim.AdamW(head.parameters(), lr=0.05, weight_decay=0.0)
    for _ in range(3):
        opt.zero_grad()
        head(x, mask).sum().backward()
        opt.step()
        head.normalize_weights()
    for name, layer, dim in head.matrices():
        assert torch.allclose(layer.weight.norm(dim=dim), torch.ones(1), atol=1e-5), name
    stages = head.blocks(x, mask)
    for stage in ("after_attn", "output"):
        assert torch.allclose(stages[stage][mask].norm(dim=-1), torch.ones(int(mask.sum())), atol=1e-5), stage
    assert torch.allclose(head(x, mask).norm(dim=1), torch.ones(5), atol=1e-5)


def test_ngpt_raw_attention_input_only_changes_the_token_weighting():
    torch.manual_seed(0)
    normed = NGPTHead(16, n_heads=2)
    raw = NGPTHead(16, n_heads=2, raw_attn_input=True)
    raw.load_state_dict(normed.state_dict())
    x = F.normalize(torch.randn(2, 4, 16), dim=-1)
    assert torch.allclose(normed(3.0 * x), raw(3.0 * x), atol=1e-5)  # equal token norms: same output
    y = x * torch.tensor([1.0, 5.0, 0.2, 2.0])[None, :, None]
    assert not torch.allclose(normed(y), raw(y), atol=1e-4)


def test_ngpt_bad_parametrisation():
    with pytest.raises(ValueError, match="Unknown nGPT parametrisation 'scaled'"):
        NGPTHead(16, n_heads=2, parametrisation="scaled")
    with pytest.raises(ValueError, match="alpha_init must be a number in"):
        NGPTHead(16, n_heads=2, alpha_init=0.0)
    assert make_head("nGPT-plain", 16, n_heads=2).parametrisation == "plain"
