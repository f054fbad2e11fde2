"""Shared by the circumplex tests: a small store of packed token states to train heads on."""

from __future__ import annotations

import pytest
import torch

from companion.encoders.states import PackedStates


@pytest.fixture
def packed_states() -> PackedStates:
    """24 texts of 1 to 5 tokens, 8-dimensional half-precision states (seed 0)."""
    g = torch.Generator().manual_seed(0)
    lengths = torch.randint(1, 6, (24,), generator=g)
    return PackedStates(torch.randn(int(lengths.sum()), 8, generator=g).half(), lengths)
