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
``COMPANION_REPO_ROOT``    the checkout (notebooks, ``data/``, ``results/``)               the checkout holding
                                                                                           the package, else the
                                                                                           current directory or
                                                                                           a parent of it
=========================  ==============================================================  =====================

``<repo>`` is :func:`repo_root`. An installed package (``pip install``, not editable) lives in site-packages, away
from the notebooks, ``data/`` and ``results/``: commands that need them find the checkout through
``COMPANION_REPO_ROOT`` or the current directory, and say so in one line when there is none
(:class:`RepositoryNotFoundError`). Everything else (losses, metrics, encoders, the data loaders) works anywhere.

The runner points results and figures elsewhere for the ``smoke`` profile so that CI never overwrites the
committed ``cpu`` results.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

#: Where the package's own folder sits; a checkout when the package runs from source (editable or PYTHONPATH).
_PACKAGE_PARENT = Path(__file__).resolve().parent.parent
PROJECT_NAME = "companion"

DATA_HELP = (
    "Set COMPANION_DATA_DIR to the data mirror (a folder with senteval/, wiki/, emolit/, goemotions/, emobank/; "
    "see docs/reference.md, 'Data and settings'). The mirror holds the upstream files of SentEval (github.com/facebookresearch/SentEval, "
    "data/downstream/get_transfer_data.bash), SimCSE's wiki1m, Emolit, GoEmotions and EmoBank; "
    "`python -m companion data fetch` downloads them into ~/.cache/companion/data (or --dest DIR)."
)


class DataNotFoundError(FileNotFoundError):
    """A data set file or the data directory is missing. The message names the file, the setting and the source."""


class DataCorruptError(ValueError):
    """A data file is there but not what the manifest says (cut, altered, or not valid text): one line naming the
    file and ``python -m companion data check``."""


class RepositoryNotFoundError(FileNotFoundError):
    """A command needs the checkout (notebooks, ``data/``, ``results/``) and none was found; one-line fix inside."""


def _is_checkout(folder: Path) -> bool:
    """True for a folder holding this project's ``pyproject.toml`` (``name = "companion"``) and ``notebooks/``."""
    project = folder / "pyproject.toml"
    if not project.is_file() or not (folder / "notebooks").is_dir():
        return False
    try:
        return tomllib.loads(project.read_text(encoding="utf-8")).get("project", {}).get("name") == PROJECT_NAME
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False


def is_checkout(folder: str | Path) -> bool:
    """Whether ``folder`` is a checkout of the companion (its ``pyproject.toml`` and ``notebooks/``)."""
    return _is_checkout(Path(folder).expanduser().resolve())


def repo_root() -> Path:
    """The checkout: ``COMPANION_REPO_ROOT``, else the checkout that holds this package (running from source),
    else the current directory or its nearest parent that is one. Raises :class:`RepositoryNotFoundError`."""
    explicit = _env_path("COMPANION_REPO_ROOT")
    if explicit is not None:
        if not is_checkout(explicit):
            raise RepositoryNotFoundError(
                f"COMPANION_REPO_ROOT={explicit} is not a checkout of the companion (it needs pyproject.toml and "
                "notebooks/); point it at a clone of the repository.")
        return explicit
    if is_checkout(_PACKAGE_PARENT):
        return _PACKAGE_PARENT
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if is_checkout(folder):
            return folder
    raise RepositoryNotFoundError(
        f"No checkout of the companion found (the package is installed at {_PACKAGE_PARENT}, and neither {here} nor "
        "a parent holds pyproject.toml and notebooks/): run this inside a clone of the repository or set "
        "COMPANION_REPO_ROOT to one.")


def __getattr__(name: str):
    """``REPO_ROOT`` is looked up when used (``from companion.settings import REPO_ROOT``): :func:`repo_root`."""
    if name == "REPO_ROOT":
        return repo_root()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    candidates = data_dir_candidates()
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise DataNotFoundError(f"No data directory found (tried {tried}). {DATA_HELP}")


def data_dir_candidates() -> list[Path]:
    """Where :func:`data_dir` looks when ``COMPANION_DATA_DIR`` is not set, first match wins: ``shared/data``
    beside the checkout, then ``<cache>/data`` (where ``python -m companion data fetch`` writes)."""
    candidates = [cache_dir() / "data"]
    try:
        candidates.insert(0, repo_root().parent / "shared" / "data")
    except RepositoryNotFoundError:
        pass  # an installed package outside a checkout: the cache (``python -m companion data fetch``)
    return candidates


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
    return _env_path("COMPANION_RESULTS_DIR") or repo_root() / "results"


def figures_dir() -> Path:
    return _env_path("COMPANION_FIGURES_DIR") or repo_root() / "figures"


def offline() -> bool:
    """True when the Hugging Face hub must not be contacted (``HF_HUB_OFFLINE=1``)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}
