"""The CUDA-only paths of the gpu profile. Each test skips, saying why, on a machine without a CUDA GPU.

What they cover: encoders (a tiny stand-in and ``device_map``/bf16 loading), the circumplex heads and the
paper losses on the GPU; a training step of :func:`companion.training.train` under bf16 autocast through
Hugging Face Accelerate; ``torch.compile`` of a loss (the package does not compile anything itself: this checks
the losses stay compilable); and the runner giving each ``--jobs`` worker its own GPU. The package's data
loading builds index batches in memory (no ``DataLoader``), so there is no pinned-memory path to test.
"""

import os

import pytest
import torch

from companion.encoders import load_encoder
from companion.losses.circumplex import sincere_loss
from companion.losses.simace import simace_loss
from companion.papers.circumplex.heads import make_head
from companion.training import index_batches, train

CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU: none is visible to torch on this machine")
needs_bf16 = pytest.mark.skipif(not (CUDA and torch.cuda.is_bf16_supported()),
                                reason="needs a CUDA GPU with bfloat16 support")
needs_two = pytest.mark.skipif(not CUDA or torch.cuda.device_count() < 2, reason="needs two or more CUDA GPUs")


@needs_cuda
def test_encoder_moves_to_the_gpu_and_embeds_there():
    encoder = load_encoder("tiny-bert-L12", pooling="cls", max_length=32, device="cuda")
    assert encoder.device.type == "cuda"
    emb = encoder.embed(["a sentence", "another one"], normalize=True)
    assert emb.device.type == "cuda" and torch.allclose(emb.norm(dim=-1), torch.ones(2, device="cuda"), atol=1e-5)
    cached = encoder.encode(["a sentence"], cache=False, progress=False)
    assert cached.shape == (1, encoder.dim) and torch.isfinite(cached).all()


@needs_cuda
def test_default_device_is_cuda_for_a_hub_model_loaded_with_device_map(tmp_path):
    """``device_map="auto"`` loads a (frozen LLM-style) backbone spread over the GPUs in bf16."""
    tiny = load_encoder("tiny-llama", pooling="last", max_length=16)
    tiny.model.save_pretrained(tmp_path)
    tiny.tokenizer.save_pretrained(tmp_path)
    encoder = load_encoder(str(tmp_path), pooling="last", max_length=16, device_map="auto")
    assert encoder.device.type == "cuda"
    assert next(encoder.model.parameters()).dtype == torch.bfloat16
    assert torch.isfinite(encoder.embed(["frozen backbone"]).float()).all()


@needs_cuda
@pytest.mark.parametrize("kind", ["GPT", "nGPT"])
def test_circumplex_heads_and_loss_run_on_the_gpu(kind):
    head = make_head(kind, 32, n_heads=4).cuda()
    states = torch.randn(8, 5, 32, device="cuda")
    mask = torch.ones(8, 5, dtype=torch.bool, device="cuda")
    emb = head(states, mask)
    labels = ["joy", "anger", "fear", "love"] * 2
    loss = sincere_loss(emb, labels)
    loss.backward()
    assert emb.device.type == "cuda" and torch.isfinite(loss)
    assert all(p.grad is not None and p.grad.device.type == "cuda" for p in head.parameters() if p.requires_grad)


@needs_bf16
def test_training_step_under_bf16_autocast_with_accelerate():
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState

    accelerator = Accelerator(mixed_precision="bf16")
    try:
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Dropout(0.1), torch.nn.Linear(32, 16)).cuda()
        x = torch.randn(64, 16, device="cuda")
        seen = []

        def loss_fn(idx):
            z = model(x[idx.cuda()])
            seen.append(z.dtype)
            return simace_loss(z[: len(idx) // 2].float(), z[len(idx) // 2:].float())

        before = [p.detach().clone() for p in model.parameters()]
        result = train(model, loss_fn, index_batches(64, 16, seed=0, epochs=None), steps=3, lr=1e-3,
                       progress=False, accelerator=accelerator)
        assert seen == [torch.bfloat16] * 3  # the forward ran under bf16 autocast
        assert all(p.dtype == torch.float32 for p in model.parameters())  # master weights stay float32
        assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters()))
        assert all(torch.isfinite(torch.tensor(r["loss"])) for r in result.history)
    finally:
        AcceleratorState._reset_state(reset_partial_state=True)


@needs_cuda
def test_a_loss_compiles_with_torch_compile_and_matches_eager():
    z1, z2 = torch.randn(16, 32, device="cuda"), torch.randn(16, 32, device="cuda")
    compiled = torch.compile(simace_loss)
    assert torch.allclose(compiled(z1, z2), simace_loss(z1, z2), atol=1e-5)


def _visible_in_worker(_: int) -> tuple[str, int]:
    import time

    import torch as worker_torch

    time.sleep(1.0)  # keeps this worker busy, so the next task goes to the other one
    return os.environ["CUDA_VISIBLE_DEVICES"], worker_torch.cuda.device_count()


@needs_two
def test_runner_gives_each_worker_its_own_gpu():
    """The runner's worker initialiser leaves each ``--jobs`` worker exactly one GPU, a different one each."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from companion.publish.runner import _claim_gpu, gpu_assignments, visible_gpus

    gpus = gpu_assignments(2, visible_gpus())
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    for gpu in gpus:
        queue.put(gpu)
    with ProcessPoolExecutor(2, mp_context=context, initializer=_claim_gpu, initargs=(queue,)) as pool:
        seen = set(pool.map(_visible_in_worker, range(4)))
    assert {dev for dev, _ in seen} == set(gpus) and all(count == 1 for _, count in seen)
