"""Where things live: the data mirror, caches, results and figures.

Every location comes from an environment variable with a sensible default, so the same code runs on a laptop,
in CI (``COMPANION_DATA_DIR=../shared/data``) and on a GPU box.

=========================  ==============================================================  =====================
variable                   meaning                                                         default
=========================  ==============================================================  =====================
``COMPANION_DATA_DIR``     the data mirror (upstream formats, see ``../shared/data``)      first existing of
                                                                                           ``<repo>/../shared/data``,
                                                                                           ``~/.cache/companion/data``
``COMPANION_CACHE_DIR``    embedding cache, cached token states, WordNet ``lexnames``      ``~/.cache/companion``
``COMPANION_RESULTS_DIR``  claims ledger (``results/<paper>/<notebook>.json``)             ``<repo>/results``
``COMPANION_FIGURES_DIR``  figures written by notebooks                                    ``<repo>/figures``
=========================  ==============================================================  =====================

The runner points results and figures elsewhere for the ``smoke`` profile so that CI never overwrites the
committed ``cpu`` results.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

DATA_HELP = (
    "Set COMPANION_DATA_DIR to the data mirror (a folder with senteval/, wiki/, emolit/, goemotions/, emobank/; "
    "see README 'Data'). The mirror holds the upstream files of SentEval (github.com/facebookresearch/SentEval, "
    "data/downstream/get_transfer_data.bash), SimCSE's wiki1m, Emolit, GoEmotions and EmoBank."
)


class DataNotFoundError(FileNotFoundError):
    """A data set file or the data directory is missing. The message names the file, the setting and the source."""


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).expanduser().resolve() if value else None


def data_dir() -> Path:
    """The data mirror root. Raises :class:`DataNotFoundError` with a one-line fix if none is found."""
    explicit = _env_path("COMPANION_DATA_DIR")
    if explicit is not None:
        if not explicit.is_dir():
            raise DataNotFoundError(f"COMPANION_DATA_DIR={explicit} is not a directory. {DATA_HELP}")
        return explicit
    candidates = [REPO_ROOT.parent / "shared" / "data", cache_dir() / "data"]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise DataNotFoundError(f"No data directory found (tried {tried}). {DATA_HELP}")


def data_file(*parts: str, dataset: str | None = None) -> Path:
    """Path of one file of the mirror; a missing file raises a clear :class:`DataNotFoundError`."""
    path = data_dir().joinpath(*parts)
    if not path.exists():
        what = f" for data set {dataset!r}" if dataset else ""
        raise DataNotFoundError(f"Missing data file{what}: {path}. {DATA_HELP}")
    return path


def cache_dir() -> Path:
    """Root of on-disk caches (created on first use)."""
    path = _env_path("COMPANION_CACHE_DIR") or Path.home() / ".cache" / "companion"
    path.mkdir(parents=True, exist_ok=True)
    return path


def results_dir() -> Path:
    return _env_path("COMPANION_RESULTS_DIR") or REPO_ROOT / "results"


def figures_dir() -> Path:
    return _env_path("COMPANION_FIGURES_DIR") or REPO_ROOT / "figures"


def offline() -> bool:
    """True when the Hugging Face hub must not be contacted (``HF_HUB_OFFLINE=1``)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}
