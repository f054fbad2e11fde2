"""companion.st.concepts: the concept paper's InfoNCE + BCE objective as a sentence-transformers loss.

Parity with :func:`companion.losses.concepts.concept_loss` (on embeddings and through the model), a few trainer steps
that lower the loss, one clear error for bad input, and the docstring example.
"""

from __future__ import annotations

import math

import pytest
import torch

from companion.losses import concepts as K
from companion.st import concepts
from companion.st.concepts import InfoNCEBCELoss


def _emb(rows: int, dim: int = 16, seed: int = 0, dtype=torch.float64) -> torch.Tensor:
    return torch.randn(rows, dim, generator=torch.Generator().manual_seed(seed), dtype=dtype)


E = [_emb(8, seed=s) for s in range(4)]  # four columns of 8 rows
HARD = torch.stack(E[2:], dim=1)  # (8, 2, d)

# id, adapter, columns, labels, the functional companion loss on the same tensors
PARITY = [
    ("InfoNCE+BCE", InfoNCEBCELoss(None), E, None, lambda: K.concept_loss(t2d=(E[0], E[1]), hard=HARD).total),
    ("InfoNCE pairs d2d", InfoNCEBCELoss(None, term="d2d"), E[:2], None,
     lambda: K.concept_loss(d2d=(E[0], E[1])).total),
    ("InfoNCE unified", InfoNCEBCELoss(None, unified=True), E, None,
     lambda: K.concept_loss(t2d=(E[0], E[1]), hard=HARD, unified=True).total),
]


@pytest.mark.parametrize("loss, columns, labels, functional", [c[1:] for c in PARITY], ids=[c[0] for c in PARITY])
def test_adapter_equals_functional_loss(loss, columns, labels, functional):
    ours = loss.compute_loss_from_embeddings(columns, labels)
    ref = functional()
    assert ours.dim() == 0 and math.isfinite(float(ours)) and float(ref) > 0
    assert abs(float(ours) - float(ref)) <= 1e-12  # float64: the adapter only delegates


def test_every_adapter_has_a_parity_case_a_citation_and_a_full_docstring(documented):
    assert {type(c[1]).__name__ for c in PARITY} == set(concepts.__all__)
    for name in concepts.__all__:
        documented(getattr(concepts, name))


def test_forward_through_the_model_equals_the_functional_loss(base_model, features, texts):
    model = base_model.eval()
    cols = (texts.anchors, texts.paraphrases, texts.unrelated)
    with torch.no_grad():
        emb = [model(f)["sentence_embedding"] for f in features(model, *cols)]
        ours = InfoNCEBCELoss(model)(features(model, *cols), None)
        ref = K.concept_loss(t2d=(emb[0], emb[1]), hard=emb[2][:, None]).total
        assert float(ours) == pytest.approx(float(ref), rel=1e-6, abs=1e-6)


@pytest.mark.slow
def test_trainer_lowers_the_loss_of_a_fixed_batch(trains_down, texts):
    data = {"anchor": texts.anchors, "positive": texts.unrelated, "negative": texts.paraphrases}
    trains_down(lambda m: InfoNCEBCELoss(m), data, 1e-4)


BAD = [
    (InfoNCEBCELoss, {}, 1, None, "expects at least 2 input column"),
    (InfoNCEBCELoss, {"term": "syn"}, 3, None, "term='syn' takes exactly 2 columns"),
    (InfoNCEBCELoss, {"unified": True}, 2, None, "needs hard-negative columns"),
]


@pytest.mark.parametrize("cls, kwargs, n_columns, labels, message", BAD,
                         ids=[f"{b[0].__name__}-{b[2]}col-{'labels' if b[3] is not None else 'nolabels'}"
                              for b in BAD])
def test_bad_columns_or_missing_labels_give_one_clear_error(cls, kwargs, n_columns, labels, message):
    loss = cls(None, **kwargs)
    with pytest.raises(ValueError, match=message):
        loss.compute_loss_from_embeddings(E[:n_columns], labels)


def test_bad_hyper_parameters_fail_at_construction():
    with pytest.raises((ValueError, TypeError), match="term must be"):
        InfoNCEBCELoss(None, term="x")


@pytest.mark.parametrize("name", concepts.__all__)
# the example keeps the trainer's defaults for readers on a GPU; on this CPU torch says pinning does nothing
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:'pin_memory' argument is set as true:UserWarning")
def test_docstring_example_runs(name, run_example):
    run_example(getattr(concepts, name))
