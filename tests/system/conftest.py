"""Shared by the system tests: a local port nobody listens on (an unreachable address)."""

from __future__ import annotations

import socket

import pytest


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago and that nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
