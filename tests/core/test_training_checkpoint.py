"""Checkpoints of the training loop: a run stopped mid-way and called again ends exactly where an unbroken run ends."""

import random

import numpy as np
import pytest
import torch

import companion.profiles as profiles
from companion import training
from companion.training import RunState, gpu_checkpoint, index_batches, seed_everything, train

STEPS = 12


def _build(seed=0, hidden=8):
    """A tiny model WITH dropout and a loss that draws from every random generator the loop restores."""
    seed_everything(seed)
    x = torch.randn(64, 5)
    y = x @ torch.randn(5, 1)
    model = torch.nn.Sequential(torch.nn.Linear(5, hidden), torch.nn.ReLU(), torch.nn.Dropout(0.3),
                                torch.nn.Linear(hidden, 1))

    def loss_fn(idx):
        noise = 1 + 0.01 * float(np.random.rand()) + 0.01 * random.random()  # noqa: NPY002 - the global RNG
        return noise * torch.nn.functional.mse_loss(model(x[idx]), y[idx])

    return model, loss_fn, x, y


class _Stop:
    """``after_step`` that interrupts the run on its ``at``-th call, as a preemption would."""

    def __init__(self, at):
        self.at, self.calls = at, 0

    def __call__(self):
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt


def _run(path=None, every=0, stop=None, seed=0, eval_every=0, lr=0.05, hidden=8, **kw):
    model, loss_fn, x, y = _build(seed, hidden)
    extra = {}
    if eval_every:
        records = RunState(scores=[])

        def eval_fn():  # scores the weights and keeps a record of every call: state carried by ``records``
            with torch.no_grad():
                score = -float(torch.nn.functional.mse_loss(model(x), y))
            records["scores"].append(score)
            return score

        extra = dict(eval_fn=eval_fn, eval_every=eval_every, restore_best=True, extra_state=records)
    result = train(model, loss_fn, index_batches(64, 16, seed=seed, epochs=None), steps=STEPS, lr=lr,
                   progress=False, checkpoint=path, checkpoint_every=every, after_step=stop, **extra, **kw)
    return model, result, extra.get("extra_state")


def _same_weights(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def test_a_run_stopped_at_step_7_and_called_again_ends_as_the_unbroken_run(tmp_path, capsys):
    path = tmp_path / "run.pt"
    whole, whole_res, _ = _run()
    with pytest.raises(KeyboardInterrupt):
        _run(path, every=4, stop=_Stop(7))
    saved = torch.load(path, weights_only=False)
    assert saved["step"] == 4 and len(saved["history"]) == 4
    capsys.readouterr()
    resumed, resumed_res, _ = _run(path, every=4)
    assert "resuming at step 4 of 12" in capsys.readouterr().out
    assert _same_weights(whole, resumed)
    assert resumed_res.history == whole_res.history and resumed_res.steps == STEPS
    assert not path.exists()  # a completed run removes its checkpoint


def test_the_best_weights_and_a_stateful_eval_survive_the_resume(tmp_path):
    path = tmp_path / "run.pt"
    whole, whole_res, whole_records = _run(eval_every=3)
    with pytest.raises(KeyboardInterrupt):
        _run(path, every=4, stop=_Stop(10), eval_every=3)  # checkpoints at 4 and 8; evaluations at 0, 3, 6, 9
    assert torch.load(path, weights_only=False)["step"] == 8
    resumed, resumed_res, resumed_records = _run(path, every=4, eval_every=3)
    assert _same_weights(whole, resumed)  # the restored best weights, not the last ones
    assert resumed_res.history == whole_res.history
    assert (resumed_res.best_step, resumed_res.best_score) == (whole_res.best_step, whole_res.best_score)
    assert resumed_records == whole_records and len(resumed_records["scores"]) == 5
    assert not path.exists()


def test_a_run_with_checkpoints_trains_as_one_without(tmp_path):
    plain, plain_res, _ = _run()
    saving, saving_res, _ = _run(tmp_path / "run.pt", every=1)
    assert _same_weights(plain, saving) and plain_res.history == saving_res.history
    assert not (tmp_path / "run.pt").exists()


@pytest.mark.parametrize("other", [dict(lr=0.01), dict(hidden=6)])
def test_a_checkpoint_of_another_run_is_refused(tmp_path, other):
    path = tmp_path / "run.pt"
    with pytest.raises(KeyboardInterrupt):
        _run(path, every=4, stop=_Stop(5))
    with pytest.raises(ValueError, match="checkpoint of another run") as err:
        _run(path, every=4, **other)
    assert "\n" not in str(err.value)
    assert path.exists()  # left for the run it belongs to


def test_without_a_checkpoint_nothing_is_written(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a run without a checkpoint wrote a file")

    monkeypatch.setattr("companion._io.write_atomic", refuse)
    monkeypatch.setattr(torch, "save", refuse)
    monkeypatch.chdir(tmp_path)
    _run(eval_every=3)
    assert list(tmp_path.iterdir()) == []


def test_checkpoint_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="checkpoint_every > 0"):
        _run(tmp_path / "run.pt")
    with pytest.raises(ValueError, match="checkpoint_every"):
        _run(every=-1)
    model, loss_fn, *_ = _build()
    with pytest.raises(TypeError, match="extra_state"):
        train(model, loss_fn, index_batches(64, 16, seed=0), steps=1, lr=0.1, extra_state=[])


def test_only_a_gpu_profile_run_checkpoints(tmp_path, monkeypatch):
    """The profile is handed over by the caller, as a name or as the settings themselves; nothing else decides."""
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    for profile in ("smoke", "cpu", None, profiles.Settings("cpu", {})):
        assert gpu_checkpoint("abc", profile) == {}
    want = {"checkpoint": tmp_path / "checkpoints" / "abc.pt", "checkpoint_every": training.CHECKPOINT_EVERY}
    assert gpu_checkpoint("abc", "gpu") == want
    assert gpu_checkpoint("abc", profiles.Settings("gpu", {})) == want
    assert gpu_checkpoint(None, "gpu") == {}
    profiles.Settings("gpu", {})  # building settings elsewhere changes nothing: no process-wide record
    assert gpu_checkpoint("abc", "cpu") == {}
    with pytest.raises(ValueError, match="plain file name"):
        gpu_checkpoint("../abc", "gpu")
    with pytest.raises(TypeError, match="profile"):
        gpu_checkpoint("abc", 3)
