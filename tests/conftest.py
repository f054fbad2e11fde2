"""Test session settings: never wait on an unreachable hub; find the data mirror beside the repository."""

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
_mirror = Path(__file__).resolve().parents[1].parent / "shared" / "data"
if "COMPANION_DATA_DIR" not in os.environ and _mirror.is_dir():
    os.environ["COMPANION_DATA_DIR"] = str(_mirror)
