r"""Digit morphometrics: stroke thickness and slant, measured from the images.

Used by the regression experiments of Vock, Duchesnay & Dufumier (arXiv 2605.13943, §4.1/§4.3, Fig. 3 and 5),
which regress MNIST thickness and slant (after Castro et al. 2019, "Morpho-MNIST"). Our measures follow the
Morpho-MNIST definitions in spirit but are computed here on scikit-learn's 8×8 digits:

* **thickness** = ink area / skeleton length (mean stroke width, in pixels of the input image): the image is
  upsampled (bilinear, ``upsample``×), binarised at ``threshold`` × its maximum, and skeletonised
  (``skimage.morphology.skeletonize``);
* **slant** = horizontal shear from second-order image moments, :math:`\mu_{11}/\mu_{02}` with intensities as
  weights, :math:`x` to the right and :math:`y` upwards: 0 for an upright stroke, > 0 when the top leans right
  (for an image sheared by :math:`x \mapsto x + s\,y` it returns :math:`s`).

These are not the paper's exact MNIST morphometrics (28×28, Morpho-MNIST's distance-transform thickness).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["thickness", "slant", "morphometrics"]


def _images(images) -> np.ndarray:
    arr = np.asarray(images, dtype=np.float64)
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3:
        raise ValueError(f"images must be (H, W) or (N, H, W), got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError("images contain NaN or Inf values.")
    if (arr < 0).any():
        raise ValueError("images must be non-negative ink intensities.")
    if (arr.reshape(len(arr), -1).max(1) <= 0).any():
        raise ValueError("an image is blank (no ink): thickness and slant are undefined.")
    return arr


def thickness(images, upsample: int = 4, threshold: float = 0.5) -> np.ndarray:
    """Mean stroke width (input pixels) = binarised ink area / skeleton length, per image. Returns ``(N,)``."""
    from skimage.morphology import skeletonize  # noqa: PLC0415 - skimage is heavy; this module imports without it
    from skimage.transform import resize  # noqa: PLC0415 - skimage is heavy; this module imports without it

    arr = _images(images)
    if not (isinstance(upsample, int) and upsample >= 1):
        raise ValueError(f"upsample must be a positive int, got {upsample!r}.")
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must be in (0, 1), got {threshold!r}.")
    n, h, w = arr.shape
    out = np.empty(n)
    for k in range(n):  # one skeleton per image (scikit-image works image by image)
        img = resize(arr[k] / arr[k].max(), (h * upsample, w * upsample), order=1, anti_aliasing=False)
        ink = img >= threshold
        length = skeletonize(ink).sum()
        out[k] = ink.sum() / max(int(length), 1) / upsample
    return out


def slant(images) -> np.ndarray:
    r"""Shear :math:`\mu_{11}/\mu_{02}` from intensity-weighted central moments (x right, y up), per image."""
    arr = _images(images)
    n, h, w = arr.shape
    rows, cols = np.mgrid[0:h, 0:w].astype(np.float64)
    x, y = cols[None], -rows[None]
    mass = arr.sum((1, 2))
    xb = (arr * x).sum((1, 2)) / mass
    yb = (arr * y).sum((1, 2)) / mass
    dx, dy = x - xb[:, None, None], y - yb[:, None, None]
    mu11 = (arr * dx * dy).sum((1, 2)) / mass
    mu02 = (arr * dy**2).sum((1, 2)) / mass
    if (mu02 <= 0).any():
        raise ValueError("an image has no vertical extent (mu02 = 0): slant is undefined.")
    return mu11 / mu02


def morphometrics(images, upsample: int = 4, threshold: float = 0.5):
    """Both measures as a pandas DataFrame with columns ``thickness`` and ``slant``."""
    return pd.DataFrame({"thickness": thickness(images, upsample, threshold), "slant": slant(images)})
