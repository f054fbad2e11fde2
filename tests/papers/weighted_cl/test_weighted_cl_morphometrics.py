"""Digit morphometrics (thickness, slant) used by the regression experiments of Vock et al. (arXiv 2605.13943,
§4.1/§4.3): checked on synthetic strokes with known width and shear."""

from __future__ import annotations

import numpy as np
import pytest

from companion.papers.weighted_cl.morphometrics import morphometrics, slant, thickness


def _bar(width, shear=0.0, size=32):
    img = np.zeros((size, size))
    rows = np.arange(4, size - 4)
    for r in rows:  # x = x0 + shear * y with y = -row (upwards)
        x0 = size / 2 - width / 2 + shear * (size / 2 - r)
        img[r, int(round(x0)):int(round(x0)) + width] = 1.0
    return img


def test_thickness_grows_with_stroke_width():
    widths = [2, 4, 6]
    t = thickness(np.stack([_bar(w, size=64) for w in widths]), upsample=2)  # long bars: end effects small
    assert np.all(np.diff(t) > 0)
    assert t == pytest.approx(widths, rel=0.15)


@pytest.mark.parametrize("shear", [-0.4, 0.0, 0.3])
def test_slant_recovers_shear(shear):
    assert slant(_bar(3, shear))[0] == pytest.approx(shear, abs=0.03)


def test_slant_is_intensity_scale_invariant_and_vectorised():
    imgs = np.stack([_bar(3, 0.2), 5 * _bar(3, 0.2)])
    s = slant(imgs)
    assert s[0] == pytest.approx(s[1], abs=1e-12)
    frame = morphometrics(imgs)
    assert list(frame.columns) == ["thickness", "slant"] and len(frame) == 2


def test_bad_images():
    with pytest.raises(ValueError, match="blank"):
        thickness(np.zeros((8, 8)))
    with pytest.raises(ValueError, match="non-negative"):
        slant(-np.ones((8, 8)))
    with pytest.raises(ValueError, match="shape"):
        slant(np.ones(8))
