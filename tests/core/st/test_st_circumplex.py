"""companion.st.circumplex: SINCERE, SoftCSE and CircularCSE as sentence-transformers losses.

Parity with the functional losses of :mod:`companion.losses.circumplex` (on embeddings and through the model), a few
trainer steps that lower the loss, one clear error for bad input (a pair dataset through the trainer included), and
the docstring examples.
"""

from __future__ import annotations

import copy
import math

import pytest
import torch

from companion.losses import circumplex as C
from companion.st import circumplex
from companion.st.circumplex import CircularCSELoss, SINCERELoss, SoftCSELoss


def _emb(rows: int, dim: int = 16, seed: int = 0, dtype=torch.float64) -> torch.Tensor:
    return torch.randn(rows, dim, generator=torch.Generator().manual_seed(seed), dtype=dtype)


ECM_IDS = torch.tensor([0, 0, 4, 4, 7, 7, 9, 9])
CLASS_IDS = torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])
E = [_emb(8, seed=0)]

# id, adapter, columns, labels, the functional companion loss on the same tensors
PARITY = [
    ("SINCERE", SINCERELoss(None, tau=0.05), E[:1], ECM_IDS, lambda: C.sincere_loss(E[0], ECM_IDS, tau=0.05)),
    ("SoftCSE", SoftCSELoss(None, tau=0.05), E[:1], ECM_IDS, lambda: C.softcse_loss(E[0], ECM_IDS, tau=0.05)),
    ("SoftCSE angles", SoftCSELoss(None, angles=[0, 90, 180, 270]), E[:1], CLASS_IDS,
     lambda: C.softcse_loss(E[0], CLASS_IDS, angles=[0, 90, 180, 270])),
    ("CircularCSE", CircularCSELoss(None, margin=0.1), E[:1], ECM_IDS,
     lambda: C.circular_cse_loss(E[0], ECM_IDS, margin=0.1)),
]


@pytest.mark.parametrize("loss, columns, labels, functional", [c[1:] for c in PARITY], ids=[c[0] for c in PARITY])
def test_adapter_equals_functional_loss(loss, columns, labels, functional):
    ours = loss.compute_loss_from_embeddings(columns, labels)
    ref = functional()
    assert ours.dim() == 0 and math.isfinite(float(ours)) and float(ref) > 0
    assert abs(float(ours) - float(ref)) <= 1e-12  # float64: the adapter only delegates


def test_every_adapter_has_a_parity_case_a_citation_and_a_full_docstring(documented):
    assert {type(c[1]).__name__ for c in PARITY} == set(circumplex.__all__)
    for name in circumplex.__all__:
        documented(getattr(circumplex, name))


def test_forward_through_the_model_equals_the_functional_loss(base_model, features, texts):
    model = base_model.eval()
    with torch.no_grad():
        emb = model(features(model, texts.anchors)[0])["sentence_embedding"]
        ours = SINCERELoss(model)(features(model, texts.anchors), ECM_IDS)
        assert float(ours) == pytest.approx(float(C.sincere_loss(emb, ECM_IDS)), rel=1e-6, abs=1e-6)


# id, loss factory, learning rate
TRAINING = [
    ("SINCERE", lambda m: SINCERELoss(m), 1e-4),
    ("SoftCSE", lambda m: SoftCSELoss(m), 1e-4),
    ("CircularCSE", lambda m: CircularCSELoss(m), 1e-4),
]


@pytest.mark.slow
@pytest.mark.parametrize("make_loss, lr", [t[1:] for t in TRAINING], ids=[t[0] for t in TRAINING])
def test_trainer_lowers_the_loss_of_a_fixed_batch(trains_down, texts, make_loss, lr):
    trains_down(make_loss, {"text": texts.anchors, "label": ECM_IDS.tolist()}, lr)


BAD = [
    (SINCERELoss, {}, 2, ECM_IDS, "expects 1 input column"),
    (SINCERELoss, {}, 1, None, "needs labels"),
    (SoftCSELoss, {}, 1, None, "needs labels"),
    (CircularCSELoss, {}, 3, ECM_IDS, "expects 1 input column"),
]


@pytest.mark.parametrize("cls, kwargs, n_columns, labels, message", BAD,
                         ids=[f"{b[0].__name__}-{b[2]}col-{'labels' if b[3] is not None else 'nolabels'}"
                              for b in BAD])
def test_bad_columns_or_missing_labels_give_one_clear_error(cls, kwargs, n_columns, labels, message):
    loss = cls(None, **kwargs)
    with pytest.raises(ValueError, match=message):
        loss.compute_loss_from_embeddings([_emb(8, seed=s) for s in range(n_columns)], labels)


def test_bad_dataset_through_the_trainer_names_the_columns(base_model, train, texts, tmp_path):
    """A (text, label) loss handed a pair dataset fails at the first step with the adapter's own message."""
    model = copy.deepcopy(base_model)
    data = {"anchor": texts.anchors, "positive": texts.unrelated, "label": ECM_IDS.tolist()}
    with pytest.raises(ValueError, match=r"SINCERELoss expects 1 input column\(s\) \(text,\), got 2"):
        train(model, SINCERELoss(model), data, 1e-4, 1, tmp_path)


@pytest.mark.parametrize("make, message", [
    (lambda: CircularCSELoss(None, margin=-1), "margin must be a finite number >= 0"),
])
def test_bad_hyper_parameters_fail_at_construction(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


@pytest.mark.parametrize("name", circumplex.__all__)
# the examples keep the trainer's defaults for readers on a GPU; on this CPU torch says pinning does nothing
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:'pin_memory' argument is set as true:UserWarning")
def test_docstring_example_runs(name, run_example):
    run_example(getattr(circumplex, name))
