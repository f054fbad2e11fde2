"""companion.st.weighted_cl: weighted InfoNCE and its named weightings as sentence-transformers losses.

Parity with :func:`companion.losses.weighted.weighted_infonce` and its weightings (on embeddings and through the
model), a few trainer steps that lower the loss, one clear error for bad input, and the docstring examples.
"""

from __future__ import annotations

import math

import pytest
import torch

from companion.losses import weighted as W
from companion.st import weighted_cl
from companion.st.weighted_cl import (
    EuclideanInfoNCELoss,
    SoftSupConLoss,
    SupConLoss,
    WeightedInfoNCELoss,
    XCLRLoss,
    YAwareLoss,
)


def _emb(rows: int, dim: int = 16, seed: int = 0, dtype=torch.float64) -> torch.Tensor:
    return torch.randn(rows, dim, generator=torch.Generator().manual_seed(seed), dtype=dtype)


CLASS_IDS = torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])
SCALAR_Y = torch.tensor([0.0, 0.2, 1.0, 1.2, 2.0, 2.2, 3.0, 3.2], dtype=torch.float64)
VECTOR_Y = torch.tensor([[1.0, 0.1], [0.9, 0.2], [0.1, 1.0], [0.2, 0.9], [-1.0, 0.1], [-0.9, 0.2], [0.1, -1.0],
                         [0.2, -0.9]], dtype=torch.float64)
E = [_emb(8, seed=0)]

# id, adapter, columns, labels, the functional companion loss on the same tensors
PARITY = [
    ("SupCon", SupConLoss(None, tau=0.1), E[:1], CLASS_IDS,
     lambda: W.weighted_infonce(W.supcon_weights(CLASS_IDS), W.cosine_similarities(E[0], 0.1))),
    ("SoftSupCon", SoftSupConLoss(None, eps=0.2, tau=0.5), E[:1], CLASS_IDS,
     lambda: W.weighted_infonce(W.soft_supcon_weights(CLASS_IDS, 0.2), W.cosine_similarities(E[0], 0.5))),
    ("y-Aware", YAwareLoss(None, gamma=2.0, tau=0.5), E[:1], SCALAR_Y,
     lambda: W.weighted_infonce(W.y_aware_weights(SCALAR_Y, 2.0), W.cosine_similarities(E[0], 0.5))),
    ("X-CLR", XCLRLoss(None, tau_prime=0.5, tau=0.2), E[:1], VECTOR_Y,
     lambda: W.weighted_infonce(W.xclr_weights(VECTOR_Y, 0.5), W.cosine_similarities(E[0], 0.2))),
    ("Euclidean", EuclideanInfoNCELoss(None, gamma=1.0, tau=1.0), E[:1], VECTOR_Y,
     lambda: W.weighted_infonce(W.euclidean_weights(VECTOR_Y, 1.0), W.euclidean_similarities(E[0], 1.0))),
    ("weighted (custom)", WeightedInfoNCELoss(None, lambda y: W.distance_weights((y[:, None] - y[None]).abs()),
                                              tau=0.3), E[:1], SCALAR_Y,
     lambda: W.weighted_infonce(W.distance_weights((SCALAR_Y[:, None] - SCALAR_Y[None]).abs()),
                                W.cosine_similarities(E[0], 0.3))),
]


@pytest.mark.parametrize("loss, columns, labels, functional", [c[1:] for c in PARITY], ids=[c[0] for c in PARITY])
def test_adapter_equals_functional_loss(loss, columns, labels, functional):
    ours = loss.compute_loss_from_embeddings(columns, labels)
    ref = functional()
    assert ours.dim() == 0 and math.isfinite(float(ours)) and float(ref) > 0
    assert abs(float(ours) - float(ref)) <= 1e-12  # float64: the adapter only delegates


REQUIRED = {"SoftSupConLoss": {"eps": 0.1}, "XCLRLoss": {"tau_prime": 1.0},
            "WeightedInfoNCELoss": {"weights": W.supcon_weights}}


def test_every_adapter_has_a_parity_case_a_citation_and_a_full_docstring(documented):
    assert {type(c[1]).__name__ for c in PARITY} == set(weighted_cl.__all__)
    for name in weighted_cl.__all__:
        documented(getattr(weighted_cl, name), **REQUIRED.get(name, {}))


def test_forward_through_the_model_equals_the_functional_loss(base_model, features, texts):
    model = base_model.eval()
    with torch.no_grad():
        emb = model(features(model, texts.anchors)[0])["sentence_embedding"]
        ours = XCLRLoss(model, tau_prime=0.5)(features(model, texts.anchors), VECTOR_Y)
        ref = W.weighted_infonce(W.xclr_weights(VECTOR_Y, 0.5), W.cosine_similarities(emb, 0.1))
        assert float(ours) == pytest.approx(float(ref), rel=1e-6, abs=1e-6)


# id, loss factory, labels of the one text column, learning rate
TRAINING = [
    ("SupCon", lambda m: SupConLoss(m), CLASS_IDS, 1e-4),
    ("SoftSupCon", lambda m: SoftSupConLoss(m, eps=0.1, tau=0.5), CLASS_IDS, 1e-4),
    ("y-Aware", lambda m: YAwareLoss(m, tau=0.5), SCALAR_Y, 1e-4),
    ("X-CLR", lambda m: XCLRLoss(m, tau_prime=0.5, tau=0.5), VECTOR_Y, 1e-4),
    ("Euclidean", lambda m: EuclideanInfoNCELoss(m, tau=2.0), VECTOR_Y, 1e-4),
]


@pytest.mark.slow
@pytest.mark.parametrize("make_loss, labels, lr", [t[1:] for t in TRAINING], ids=[t[0] for t in TRAINING])
def test_trainer_lowers_the_loss_of_a_fixed_batch(trains_down, texts, make_loss, labels, lr):
    trains_down(make_loss, {"text": texts.anchors, "label": labels.tolist()}, lr)


BAD = [
    (SupConLoss, {}, 1, None, "needs labels"),
    (YAwareLoss, {}, 2, SCALAR_Y, "expects 1 input column"),
]


@pytest.mark.parametrize("cls, kwargs, n_columns, labels, message", BAD,
                         ids=[f"{b[0].__name__}-{b[2]}col-{'labels' if b[3] is not None else 'nolabels'}"
                              for b in BAD])
def test_bad_columns_or_missing_labels_give_one_clear_error(cls, kwargs, n_columns, labels, message):
    loss = cls(None, **kwargs)
    with pytest.raises(ValueError, match=message):
        loss.compute_loss_from_embeddings([_emb(8, seed=s) for s in range(n_columns)], labels)


@pytest.mark.parametrize("make, message", [
    (lambda: SoftSupConLoss(None, eps=1.5), "eps must be in"),
    (lambda: XCLRLoss(None, tau_prime=-1), "tau_prime must be"),
    (lambda: WeightedInfoNCELoss(None, "supcon"), "weights must be a callable"),
    (lambda: WeightedInfoNCELoss(None, W.supcon_weights, similarity="dot"), "similarity must be"),
])
def test_bad_hyper_parameters_fail_at_construction(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


@pytest.mark.parametrize("name", weighted_cl.__all__)
# the examples keep the trainer's defaults for readers on a GPU; on this CPU torch says pinning does nothing
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:'pin_memory' argument is set as true:UserWarning")
def test_docstring_example_runs(name, run_example):
    run_example(getattr(weighted_cl, name))
