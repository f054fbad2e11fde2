"""The run settings of the baseline notebook, in one place: every profile's values.

The notebook reads its :class:`companion.profiles.Profiles` (``cfg = ZERO_SHOT_STS(profile, gpu_grid=gpu_grid,
sets=sets, max_pairs=max_pairs)``).
"""

from __future__ import annotations

from companion import sts
from companion.profiles import Profiles

ZERO_SHOT_STS = Profiles(
    "baselines/01-zero-shot-sts",
    smoke=dict(sets=["STS16", "STS-B"], max_pairs=60),
    cpu=dict(sets=list(sts.DISPLAY_NAMES.values()), max_pairs=0),
    # gpu = cpu: this is the zero-shot all-MiniLM-L6-v2 baseline itself (Reimers & Gurevych 2019), no paper
    # backbone and no training; every pair of the seven STS sets already runs on a CPU
    gpu=dict(sets=list(sts.DISPLAY_NAMES.values()), max_pairs=0),
    common=dict(model="sentence-transformers/all-MiniLM-L6-v2", max_length=256, batch_size=64),
)

#: the baseline notebook's settings, by ``<paper>/<stem>``
NOTEBOOKS: dict[str, Profiles] = {ZERO_SHOT_STS.notebook: ZERO_SHOT_STS}
