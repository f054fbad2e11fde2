"""The training loop with and without Hugging Face Accelerate gives bit-identical results on a CPU.

The committed cpu ledgers were made by the plain PyTorch loop; :func:`companion.training.train` must keep giving
exactly those numbers. ``_reference_train`` below is that plain loop written out (AdamW, warm-up then linear
decay, gradient clipping), the specification the CPU path is held to.
"""

import pytest
import torch
from torch import nn

from companion.training import index_batches, launched_accelerator, lr_lambda, seed_everything, train

STEPS, LR, WARMUP = 12, 1e-2, 3


@pytest.fixture(autouse=True)
def _fresh_accelerate_state():
    """Accelerate keeps its state in a process-wide singleton: reset it so no test leaks a CPU-only state."""
    from accelerate.state import AcceleratorState

    yield
    AcceleratorState._reset_state(reset_partial_state=True)


def _problem(seed: int = 0):
    seed_everything(seed)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Dropout(0.1), nn.Linear(16, 4))
    x = torch.randn(64, 8)
    y = torch.randn(64, 4)

    def loss_fn(idx):
        return ((model(x[idx]) - y[idx]) ** 2).mean()

    return model, loss_fn


def _reference_train(model, loss_fn, batches):
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=LR, weight_decay=0.0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda(WARMUP, STEPS))
    model.train()
    losses = []
    for _, batch in zip(range(STEPS), batches):
        loss = loss_fn(batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(float(loss.detach()))
    return losses


def _run(accelerator="none"):
    model, loss_fn = _problem()
    batches = index_batches(64, batch_size=16, seed=0, epochs=None)
    if accelerator == "reference":
        losses = _reference_train(model, loss_fn, batches)
    else:
        kwargs = {} if accelerator == "none" else {"accelerator": accelerator}
        result = train(model, loss_fn, batches, steps=STEPS, lr=LR, warmup_steps=WARMUP, progress=False, **kwargs)
        losses = [r["loss"] for r in result.history]
    return losses, [p.detach().clone() for p in model.parameters()]


def _identical(a, b):
    assert a[0] == b[0]
    assert all(torch.equal(p, q) for p, q in zip(a[1], b[1]))


def test_plain_cpu_loop_is_bit_identical_to_the_reference(monkeypatch):
    for name in ("COMPANION_ACCELERATE", "ACCELERATE_MIXED_PRECISION", "ACCELERATE_DYNAMO_BACKEND",
                 "ACCELERATE_USE_CPU"):
        monkeypatch.delenv(name, raising=False)
    assert launched_accelerator() is None
    _identical(_run("none"), _run("reference"))


def test_cpu_accelerator_gives_the_same_bits():
    from accelerate import Accelerator

    _identical(_run(Accelerator(cpu=True)), _run("reference"))


def test_launch_environment_makes_an_accelerator(monkeypatch):
    monkeypatch.setenv("ACCELERATE_USE_CPU", "true")
    accelerator = launched_accelerator()
    assert accelerator is not None and accelerator.device.type == "cpu"
    _identical(_run("none"), _run("reference"))  # on a CPU without mixed precision: still the same bits


def test_a_diverging_loss_still_fails_in_one_line():
    from accelerate import Accelerator

    model = nn.Linear(2, 1)
    with pytest.raises(FloatingPointError, match="loss is nan at step 1"):
        train(model, lambda idx: model(torch.ones(1, 2)).sum() * float("nan"), iter([0]), steps=1, lr=1e-3,
              accelerator=Accelerator(cpu=True))
