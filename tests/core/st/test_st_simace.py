"""companion.st.simace: SimACE and ArcCon as sentence-transformers losses.

Parity with the functional losses of :mod:`companion.losses.simace` (on embeddings and through the model, one column
for two dropout views included), a few trainer steps that lower the loss, one clear error for bad input, and the
docstring examples.
"""

from __future__ import annotations

import math

import pytest
import torch

from companion.losses import simace as S
from companion.st import simace
from companion.st.simace import ArcConLoss, SimACELoss


def _emb(rows: int, dim: int = 16, seed: int = 0, dtype=torch.float64) -> torch.Tensor:
    return torch.randn(rows, dim, generator=torch.Generator().manual_seed(seed), dtype=dtype)


E = [_emb(8, seed=s) for s in range(2)]

# id, adapter, columns, labels, the functional companion loss on the same tensors
PARITY = [
    ("SimACE", SimACELoss(None, tau=0.05, margin_deg=10.0), E[:2], None,
     lambda: S.simace_loss(E[0], E[1], tau=0.05, margin_deg=10.0)),
    ("SimACE m=0", SimACELoss(None, tau=0.1, margin_deg=0.0), E[:2], None,
     lambda: S.simace_loss(E[0], E[1], tau=0.1, margin_deg=0.0)),
    ("ArcCon", ArcConLoss(None, tau=0.05, margin_deg=10.0), E[:2], None,
     lambda: S.arccon_loss(E[0], E[1], tau=0.05, margin_deg=10.0)),
]


@pytest.mark.parametrize("loss, columns, labels, functional", [c[1:] for c in PARITY], ids=[c[0] for c in PARITY])
def test_adapter_equals_functional_loss(loss, columns, labels, functional):
    ours = loss.compute_loss_from_embeddings(columns, labels)
    ref = functional()
    assert ours.dim() == 0 and math.isfinite(float(ours)) and float(ref) > 0
    assert abs(float(ours) - float(ref)) <= 1e-12  # float64: the adapter only delegates


def test_every_adapter_has_a_parity_case_a_citation_and_a_full_docstring(documented):
    assert {type(c[1]).__name__ for c in PARITY} == set(simace.__all__)
    for name in simace.__all__:
        documented(getattr(simace, name))


def test_forward_through_the_model_equals_the_functional_loss(base_model, features, texts):
    model = base_model.eval()
    cols = (texts.anchors, texts.paraphrases)
    with torch.no_grad():
        emb = [model(f)["sentence_embedding"] for f in features(model, *cols)]
        for loss, columns, ref in ((SimACELoss(model), cols[:2], S.simace_loss(emb[0], emb[1])),
                                   (SimACELoss(model), cols[:1], S.simace_loss(emb[0], emb[0]))):  # dropout off
            ours = loss(features(model, *columns), None)
            assert float(ours) == pytest.approx(float(ref), rel=1e-6, abs=1e-6), type(loss).__name__


# id, loss factory, data, learning rate
TRAINING = [
    ("SimACE", lambda m: SimACELoss(m), 1e-4),
    ("ArcCon", lambda m: ArcConLoss(m), 1e-4),
]


@pytest.mark.slow
@pytest.mark.parametrize("make_loss, lr", [t[1:] for t in TRAINING], ids=[t[0] for t in TRAINING])
def test_trainer_lowers_the_loss_of_a_fixed_batch(trains_down, texts, make_loss, lr):
    trains_down(make_loss, {"anchor": texts.anchors, "positive": texts.unrelated}, lr)


BAD = [
    (SimACELoss, {}, 3, None, "expects 1 to 2 input column"),
    (ArcConLoss, {}, 0, None, "expects 1 to 2 input column"),
]


@pytest.mark.parametrize("cls, kwargs, n_columns, labels, message", BAD,
                         ids=[f"{b[0].__name__}-{b[2]}col-{'labels' if b[3] is not None else 'nolabels'}"
                              for b in BAD])
def test_bad_columns_or_missing_labels_give_one_clear_error(cls, kwargs, n_columns, labels, message):
    loss = cls(None, **kwargs)
    with pytest.raises(ValueError, match=message):
        loss.compute_loss_from_embeddings([_emb(8, seed=s) for s in range(n_columns)], labels)


@pytest.mark.parametrize("make, message", [
    (lambda: SimACELoss(None, tau=0), "tau must be a finite number > 0"),
    (lambda: SimACELoss(None, margin_deg=120), "margin must be in degrees"),
])
def test_bad_hyper_parameters_fail_at_construction(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


@pytest.mark.parametrize("name", simace.__all__)
# the examples keep the trainer's defaults for readers on a GPU; on this CPU torch says pinning does nothing
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:'pin_memory' argument is set as true:UserWarning")
def test_docstring_example_runs(name, run_example):
    run_example(getattr(simace, name))
