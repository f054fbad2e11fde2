"""companion.st.angle: CoSENT, AnglE's angle objective and AnglE's full objective as sentence-transformers losses.

Parity with the functional losses of :mod:`companion.losses.angle` and with sentence-transformers' own
``CoSENTLoss`` / ``AnglELoss`` (values and gradients; on embeddings and through the model), identical texts detected
from the token ids, a few trainer steps that lower the loss, one clear error for bad input, and the docstring
examples.
"""

from __future__ import annotations

import math

import pytest
import torch

from companion.losses import angle as A
from companion.st import angle
from companion.st.angle import AnglELoss, AnglEObjectiveLoss, CoSENTLoss


def _emb(rows: int, dim: int = 16, seed: int = 0, dtype=torch.float64) -> torch.Tensor:
    return torch.randn(rows, dim, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _ilv(u, v):
    return torch.stack([u, v], 1).reshape(-1, u.shape[1])


SCORES = torch.tensor([4.9, 4.1, 4.5, 3.9, 0.5, 0.2, 1.0, 0.3], dtype=torch.float64)
BINARY = torch.tensor([1, 1, 1, 0, 0, 1, 0, 0], dtype=torch.float64)
E = [_emb(8, seed=s) for s in range(3)]

# id, adapter, columns, labels, the functional companion loss on the same tensors
PARITY = [
    ("CoSENT", CoSENTLoss(None, scale=20.0), E[:2], SCORES, lambda: A.cosent_loss(_ilv(E[0], E[1]), SCORES)),
    ("AnglE", AnglELoss(None, scale=1.0), E[:2], SCORES,
     lambda: A.angle_loss(_ilv(E[0], E[1]), SCORES, tau=1.0)),
    ("AnglE objective", AnglEObjectiveLoss(None), E[:2], BINARY,
     lambda: A.angle_objective(_ilv(E[0], E[1]), BINARY)),
]


@pytest.mark.parametrize("loss, columns, labels, functional", [c[1:] for c in PARITY], ids=[c[0] for c in PARITY])
def test_adapter_equals_functional_loss(loss, columns, labels, functional):
    ours = loss.compute_loss_from_embeddings(columns, labels)
    ref = functional()
    assert ours.dim() == 0 and math.isfinite(float(ours)) and float(ref) > 0
    assert abs(float(ours) - float(ref)) <= 1e-12  # float64: the adapter only delegates


def test_every_adapter_has_a_parity_case_a_citation_and_a_full_docstring(documented):
    assert {type(c[1]).__name__ for c in PARITY} == set(angle.__all__)
    for name in angle.__all__:
        documented(getattr(angle, name))


def test_angle_objective_identical_texts_are_positives(texts):
    """ISP through the adapter: texts passed interleaved reach the functional objective unchanged."""
    second = [texts.paraphrases[0], texts.anchors[0], *texts.paraphrases[2:]]  # pair 1's second is pair 0's first
    interleaved = [t for pair in zip(texts.anchors, second) for t in pair]
    loss = AnglEObjectiveLoss(None)
    ours = loss.compute_loss_from_embeddings(E[:2], BINARY, texts=interleaved)
    assert float(ours) == pytest.approx(float(A.angle_objective(_ilv(E[0], E[1]), BINARY, interleaved)), abs=1e-12)
    assert float(ours) != pytest.approx(float(loss.compute_loss_from_embeddings(E[:2], BINARY)), abs=1e-6)


def test_angle_objective_positives_reach_the_functional_objective(texts):
    """``positives=`` through the adapter: a row with two positives (its partner and an identical text) sums their
    terms by default and averages them with ``"mean"``, as the functional objective does; recorded in the config."""
    second = [texts.paraphrases[0], texts.anchors[0], *texts.paraphrases[2:]]
    interleaved = [t for pair in zip(texts.anchors, second) for t in pair]
    values = {}
    for positives in ("sum", "mean"):
        loss = AnglEObjectiveLoss(None, positives=positives)
        ref = A.AnglEObjective(positives=positives)(_ilv(E[0], E[1]), BINARY, interleaved)
        values[positives] = float(loss.compute_loss_from_embeddings(E[:2], BINARY, texts=interleaved))
        assert values[positives] == pytest.approx(float(ref), abs=1e-12)
        assert loss.get_config_dict()["positives"] == positives
    assert values["sum"] != pytest.approx(values["mean"], abs=1e-6)  # the two differ on this batch
    assert AnglEObjectiveLoss(None).objective.positives == "sum"
    with pytest.raises(ValueError, match="positives must be one of"):
        AnglEObjectiveLoss(None, positives="max")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cosent_and_angle_equal_sentence_transformers_values_and_gradients(dtype):
    from sentence_transformers import losses as stl

    for ours, theirs in ((CoSENTLoss(None), stl.CoSENTLoss(None)), (AnglELoss(None), stl.AnglELoss(None)),
                         (AnglELoss(None, scale=1.0), stl.AnglELoss(None, scale=1.0))):
        u = _emb(16, 32, seed=5, dtype=dtype).requires_grad_(True)
        v = _emb(16, 32, seed=6, dtype=dtype).requires_grad_(True)
        y = torch.rand(16, generator=torch.Generator().manual_seed(1), dtype=dtype) * 5
        a = ours.compute_loss_from_embeddings([u, v], y)
        ga = torch.autograd.grad(a, [u, v])
        b = theirs.compute_loss_from_embeddings([u, v], y)
        gb = torch.autograd.grad(b, [u, v])
        tol = 1e-6 if dtype == torch.float32 else 1e-12
        assert abs(float(a.detach()) - float(b.detach())) <= tol * max(1.0, abs(float(b.detach()))), type(ours).__name__
        scale = max(1.0, max(float(g.abs().max()) for g in gb))  # float32 rounding grows with the gradient
        assert max(float((x - z).abs().max()) for x, z in zip(ga, gb)) <= tol * scale


def test_angle_ntuples_equal_sentence_transformers():
    from sentence_transformers import losses as stl

    cols = [_emb(8, 32, seed=s, dtype=torch.float32) for s in range(4)]
    for labels in (None, torch.tensor([1.0, 0.8, 1.0, 0.9, 1.0, 1.0, 0.7, 1.0])):
        ours = AnglELoss(None).compute_loss_from_embeddings(cols, labels)
        ref = stl.AnglELoss(None).compute_loss_from_embeddings(cols, labels)
        assert float(ours) == pytest.approx(float(ref), abs=1e-6)


def test_forward_through_the_model_equals_the_functional_loss(base_model, features, texts):
    model = base_model.eval()
    repeated = [texts.paraphrases[0], texts.anchors[0], *texts.paraphrases[2:]]  # pair 1's second is pair 0's first
    interleaved = [t for pair in zip(texts.anchors, repeated) for t in pair]
    with torch.no_grad():
        anchors, paraphrases, second = (model(f)["sentence_embedding"]
                                        for f in features(model, texts.anchors, texts.paraphrases, repeated))
        isp = A.angle_objective(_ilv(anchors, second), BINARY.float(), interleaved)
        checks = [
            (AnglEObjectiveLoss(model), (texts.anchors, repeated), BINARY.float(), isp),  # identical texts from ids
            (CoSENTLoss(model), (texts.anchors, texts.paraphrases), SCORES, A.cosent_loss(_ilv(anchors, paraphrases),
                                                                                         SCORES)),
        ]
        without_isp = A.angle_objective(_ilv(anchors, second), BINARY.float())
        assert float(without_isp) != pytest.approx(float(isp), abs=1e-4)  # the texts matter here
        for loss, columns, labels, ref in checks:
            ours = loss(features(model, *columns), labels)
            assert float(ours) == pytest.approx(float(ref), rel=1e-6, abs=1e-6), type(loss).__name__


def test_cosent_and_angle_forward_equal_sentence_transformers(base_model, features, texts):
    from sentence_transformers import losses as stl

    model = base_model.eval()
    pairs = (texts.anchors, texts.paraphrases)
    with torch.no_grad():
        for ours, theirs, columns, labels in (
                (CoSENTLoss(model), stl.CoSENTLoss(model), pairs, SCORES.float()),
                (AnglELoss(model), stl.AnglELoss(model), pairs, SCORES.float()),
                (AnglELoss(model), stl.AnglELoss(model), (*pairs, texts.unrelated), None)):
            a = ours(features(model, *columns), labels)
            b = theirs(features(model, *columns), labels)
            assert float(a) == pytest.approx(float(b), rel=1e-6, abs=1e-6)  # float32 forward passes


# id, loss factory, learning rate
TRAINING = [
    ("CoSENT", lambda m: CoSENTLoss(m), 2e-5),
    ("AnglE", lambda m: AnglELoss(m), 2e-5),
    ("AnglE objective", lambda m: AnglEObjectiveLoss(m, positive_threshold=4.0), 2e-5),
]


@pytest.mark.slow
@pytest.mark.parametrize("make_loss, lr", [t[1:] for t in TRAINING], ids=[t[0] for t in TRAINING])
def test_trainer_lowers_the_loss_of_a_fixed_batch(trains_down, texts, make_loss, lr):
    graded = {"sentence1": texts.anchors, "sentence2": texts.paraphrases[:4] + texts.paraphrases[4:][::-1],
              "score": SCORES.tolist()}
    trains_down(make_loss, graded, lr)


BAD = [
    (CoSENTLoss, {}, 3, SCORES, "expects 2 input column"),
    (CoSENTLoss, {}, 2, None, "needs labels"),
    (AnglELoss, {}, 2, None, "needs labels"),
    (AnglEObjectiveLoss, {}, 1, BINARY, "expects 2 input column"),
]


@pytest.mark.parametrize("cls, kwargs, n_columns, labels, message", BAD,
                         ids=[f"{b[0].__name__}-{b[2]}col-{'labels' if b[3] is not None else 'nolabels'}"
                              for b in BAD])
def test_bad_columns_or_missing_labels_give_one_clear_error(cls, kwargs, n_columns, labels, message):
    loss = cls(None, **kwargs)
    with pytest.raises(ValueError, match=message):
        loss.compute_loss_from_embeddings(E[:n_columns], labels)


@pytest.mark.parametrize("make, message", [
    (lambda: CoSENTLoss(None, scale=0), "scale must be"),
    (lambda: AnglEObjectiveLoss(None, w_cos=0, w_ibn=0, w_angle=0), "at least one of"),
])
def test_bad_hyper_parameters_fail_at_construction(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


@pytest.mark.parametrize("name", angle.__all__)
# the examples keep the trainer's defaults for readers on a GPU; on this CPU torch says pinning does nothing
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:'pin_memory' argument is set as true:UserWarning")
def test_docstring_example_runs(name, run_example):
    run_example(getattr(angle, name))
