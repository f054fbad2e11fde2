"""Shared by the concept tests: a tiny random BERT (4 layers) for the top-layer model and its training."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def tiny():
    """A 4-layer tiny random BERT with mean pooling (seed 0), one per test module."""
    from companion.encoders import tiny_encoder

    return tiny_encoder("bert", pooling="mean", hidden=32, layers=4, heads=4, seed=0)
