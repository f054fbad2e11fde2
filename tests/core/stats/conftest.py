"""Shared by the tests of :mod:`companion.stats`: a comparison built from its interval alone."""

from __future__ import annotations

import pytest

from companion import stats


@pytest.fixture
def comparison():
    """``comparison(ci, estimate=None, sd=0.1, n=3)``: a :class:`~companion.stats.Comparison` with the interval
    ``ci`` (its estimate the interval's middle unless given), for the rules' boundaries."""

    def make(ci, estimate=None, sd=0.1, n=3):
        lo, hi = ci
        est = (lo + hi) / 2 if estimate is None else estimate
        return stats.Comparison((est,) * n, est, sd, (lo, hi), 0.95, n, "t", 0.5, None)

    return make
