"""The shared training loop: schedule, determinism, best-checkpoint restore, hooks."""

import pytest
import torch

from companion.training import index_batches, lr_lambda, seed_everything, train


def _problem(seed):
    seed_everything(seed)
    x = torch.randn(64, 5)
    y = x @ torch.randn(5, 1) + 0.1 * torch.randn(64, 1)
    model = torch.nn.Linear(5, 1)
    loss_fn = lambda idx: torch.nn.functional.mse_loss(model(x[idx]), y[idx])
    return model, loss_fn, x, y


def test_schedule_warmup_then_linear_decay():
    f = lr_lambda(warmup_steps=2, total_steps=10)
    assert [round(f(s), 3) for s in (0, 1, 2, 6, 10)] == [0.5, 1.0, 1.0, 0.5, 0.0]
    assert lr_lambda(0, 10, "constant")(9) == 1.0
    with pytest.raises(ValueError, match="schedule"):
        lr_lambda(0, 10, "cosine")


def test_index_batches_cover_each_epoch_once_and_are_seeded():
    batches = list(index_batches(10, 3, seed=1, epochs=2))
    assert len(batches) == 6 and len(set(torch.cat(batches[:3]).tolist())) == 9
    assert all(torch.equal(a, b) for a, b in zip(batches, index_batches(10, 3, seed=1, epochs=2)))
    with pytest.raises(ValueError, match="exceeds"):
        next(index_batches(2, 3, seed=0))


def test_training_is_deterministic_and_learns():
    runs = []
    for _ in range(2):
        model, loss_fn, *_ = _problem(0)
        res = train(model, loss_fn, index_batches(64, 16, seed=0, epochs=None), steps=50, lr=0.05,
                    progress=False)
        runs.append((res.history[-1]["loss"], model.weight.detach().clone()))
    assert runs[0][0] == runs[1][0] and torch.equal(runs[0][1], runs[1][1])
    assert runs[0][0] < res.history[0]["loss"]


def test_best_checkpoint_is_restored_and_after_step_runs():
    model, loss_fn, x, y = _problem(0)
    calls, snapshots = [], []
    scores = iter([0.0, 5.0, 1.0, 2.0])  # evaluations at steps 0, 10, 20, 30: best at step 10

    def eval_fn():
        snapshots.append(model.weight.detach().clone())
        return next(scores)

    res = train(model, loss_fn, index_batches(64, 16, seed=0, epochs=None), steps=30, lr=0.05,
                eval_fn=eval_fn, eval_every=10, after_step=lambda: calls.append(1), progress=False)
    assert res.best_step == 10 and res.best_score == 5.0 and len(calls) == 30
    assert torch.equal(model.weight, snapshots[1]) and not torch.equal(snapshots[1], snapshots[3])


def test_bad_arguments():
    model, loss_fn, *_ = _problem(0)
    with pytest.raises(ValueError, match="lr"):
        train(model, loss_fn, [], steps=1, lr=0)
    with pytest.raises(ValueError, match="ran out"):
        train(model, loss_fn, [torch.arange(4)], steps=2, lr=0.1, progress=False)
    with pytest.raises(TypeError, match="seed"):
        seed_everything("0")


def test_param_groups_given_as_generators_are_trained_and_clipped():
    model, loss_fn, *_ = _problem(0)
    before = model.weight.detach().clone()
    train(model, loss_fn, index_batches(64, 16, seed=0, epochs=None), steps=5, lr=0.05, progress=False,
          param_groups=[{"params": model.parameters()}])
    assert not torch.equal(model.weight, before)
