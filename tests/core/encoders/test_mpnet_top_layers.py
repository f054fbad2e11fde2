"""The top-layer forward pass over cached lower states on the real all-mpnet-base-v2 (the concept paper's backbone):
with MPNet's relative position bias it gives the full model's output, without it another network. The tiny random
MPNet of tests/core/test_gpu_path.py checks the same code path without the 438 MB model; this one checks the real
weights (a trained bias table, twelve layers) on a few sentences."""

import pytest
import torch

from companion.encoders.upper import UpperEncoder

TEXTS = ["A man is playing a guitar.", "Someone plays music on a stage tonight with friends.", "Cats sleep.",
         "the capital city of France", "a sustained increase in prices over a long period of time"]


@pytest.fixture(scope="module")
def mpnet():
    from companion.encoders import ModelNotAvailableError, load_encoder
    from companion.encoders.mpnet import mpnet_folder

    torch.set_num_threads(1)
    try:
        return load_encoder(str(mpnet_folder()), pooling="mean", max_length=64)
    except ModelNotAvailableError as err:  # pragma: no cover - machines without the model pieces
        pytest.skip(f"all-mpnet-base-v2 is not installed here: {err}")


@pytest.mark.slow
@pytest.mark.parametrize("n_top", [1, 2])
def test_all_mpnet_top_layers_over_cached_states_equal_the_full_model(mpnet, n_top):
    full = mpnet.encode(TEXTS, normalize=False, cache=False)
    upper = UpperEncoder(mpnet, n_top=n_top, pooling="mean", state_dtype=torch.float32)
    assert upper.position_bias is not None
    gap = (upper.encode(TEXTS, normalize=False) - full).abs().max().item()
    assert gap < 1e-4, gap
    upper.position_bias = None  # the layers called with the attention mask only
    without = (upper.encode(TEXTS, normalize=False) - full).abs().max().item()
    assert without > 1e-2, without


@pytest.mark.slow
def test_all_mpnet_concept_model_layers_equal_the_full_model(mpnet):
    from companion.encoders.states import LowerStates
    from companion.papers.concepts.readouts import TopLayerConceptModel

    lower = LowerStates(mpnet, start=10, state_dtype=torch.float32, means="all")
    model = TopLayerConceptModel(mpnet, "mean", n_top=2, k=4, lower=lower)
    ours, full = model.encode_layers(TEXTS), mpnet.encode_layers(TEXTS, cache=False)
    assert ours.shape == full.shape == (len(TEXTS), 13, 768)
    assert (ours - full).abs().max().item() < 1e-4
    model.position_bias = None
    assert (model.encode_layers(TEXTS) - full)[:, -2:].abs().max().item() > 1e-2
