"""WordNet 3.0 through NLTK's reader, from local files only (no download; :func:`fetch`, ``python -m companion
wordnet fetch``, is the one place that downloads it, with NLTK, and only when it cannot be read).

Where the database comes from, first match wins:

1. the folder named by ``COMPANION_WORDNET_DIR`` (a WordNet ``dict`` folder: ``data.*``, ``index.*``, ``*.exc``,
   ``index.sense``; ``lexnames`` is generated when absent);
2. Debian's ``/usr/share/wordnet`` (``apt-get install -y wordnet-base wordnet-sense-index``), which lacks
   ``lexnames``;
3. an existing ``nltk.download("wordnet")`` folder.

NLTK's reader needs every file in one folder, including ``lexnames`` (the 45 lexicographer files of
``lexnames(5WN)``, kept here as :data:`LEXNAMES`). For sources 1 and 2 the files are assembled once under
``cache_dir()/wordnet/corpora/wordnet``. They are *copied* (about 36 MB), not symlinked: NLTK >= 3.9's path
sandbox (``nltk.pathsec``) refuses symlinks that resolve outside the corpus root and multiply-linked (hard-linked)
files. The ``corpora/wordnet`` layout, with ``cache_dir()/wordnet`` appended to ``nltk.data.path``, also lets the
reader's start-up WordNet-3.0 mapping (``WordNetCorpusReader.map_wn``, which looks up the NLTK resource
``wordnet``) resolve without a download.

The result reports version 3.0, 117,659 synsets and 206,978 senses (lemmas over synsets). Sense frequencies
(SemCor tag counts) are in ``cntlist`` / ``cntlist.rev`` (:func:`wordnet_cntlist_path`) and in the 4th field of
``index.sense`` (:func:`wordnet_sense_counts`).
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import warnings
import zipfile
from pathlib import Path

from companion.settings import cache_dir

DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")

INSTALL_HELP = (
    'Install it with `apt-get install -y wordnet-base wordnet-sense-index` (Debian/Ubuntu), or run `nltk.download("wordnet")`, '
    "or point COMPANION_WORDNET_DIR at a WordNet 3.0 dict folder."
)

#: The 45 lexicographer files of WordNet 3.0 as in ``lexnames(5WN)``: (number, name, syntactic category),
#: category 1 = noun, 2 = verb, 3 = adjective, 4 = adverb.
LEXNAMES: tuple[tuple[int, str, int], ...] = (
    (0, "adj.all", 3),
    (1, "adj.pert", 3),
    (2, "adv.all", 4),
    (3, "noun.Tops", 1),
    (4, "noun.act", 1),
    (5, "noun.animal", 1),
    (6, "noun.artifact", 1),
    (7, "noun.attribute", 1),
    (8, "noun.body", 1),
    (9, "noun.cognition", 1),
    (10, "noun.communication", 1),
    (11, "noun.event", 1),
    (12, "noun.feeling", 1),
    (13, "noun.food", 1),
    (14, "noun.group", 1),
    (15, "noun.location", 1),
    (16, "noun.motive", 1),
    (17, "noun.object", 1),
    (18, "noun.person", 1),
    (19, "noun.phenomenon", 1),
    (20, "noun.plant", 1),
    (21, "noun.possession", 1),
    (22, "noun.process", 1),
    (23, "noun.quantity", 1),
    (24, "noun.relation", 1),
    (25, "noun.shape", 1),
    (26, "noun.state", 1),
    (27, "noun.substance", 1),
    (28, "noun.time", 1),
    (29, "verb.body", 2),
    (30, "verb.change", 2),
    (31, "verb.cognition", 2),
    (32, "verb.communication", 2),
    (33, "verb.competition", 2),
    (34, "verb.consumption", 2),
    (35, "verb.contact", 2),
    (36, "verb.creation", 2),
    (37, "verb.emotion", 2),
    (38, "verb.motion", 2),
    (39, "verb.perception", 2),
    (40, "verb.possession", 2),
    (41, "verb.social", 2),
    (42, "verb.stative", 2),
    (43, "verb.weather", 2),
    (44, "adj.ppl", 3),
)

#: Files NLTK's reader opens (``lexnames`` is generated when the source lacks it); ``cntlist`` is extra.
_REQUIRED = (
    "index.sense",
    "index.adj",
    "index.adv",
    "index.noun",
    "index.verb",
    "data.adj",
    "data.adv",
    "data.noun",
    "data.verb",
    "adj.exc",
    "adv.exc",
    "noun.exc",
    "verb.exc",
)
_OPTIONAL = ("cntlist.rev", "cntlist", "lexnames")


def lexnames_text() -> str:
    """The ``lexnames`` file: one ``NN<TAB>name<TAB>category`` line per lexicographer file."""
    return "".join(f"{num:02d}\t{name}\t{cat}\n" for num, name, cat in LEXNAMES)


def _missing(folder: Path) -> list[str]:
    return [name for name in _REQUIRED if not (folder / name).is_file()]


def _source_dir() -> tuple[str, Path]:
    """(kind, folder) of the WordNet source to use: 'env', 'debian' or 'nltk'."""
    explicit = os.environ.get("COMPANION_WORDNET_DIR")
    if explicit:
        folder = Path(explicit).expanduser().resolve()
        if not folder.is_dir():
            raise FileNotFoundError(f"COMPANION_WORDNET_DIR={folder} is not a directory. {INSTALL_HELP}")
        missing = _missing(folder)
        if missing:
            raise FileNotFoundError(
                f"COMPANION_WORDNET_DIR={folder} lacks {', '.join(missing)}. {INSTALL_HELP}"
            )
        return "env", folder
    if DEBIAN_WORDNET_DIR.is_dir():
        missing = _missing(DEBIAN_WORDNET_DIR)
        if not missing:
            return "debian", DEBIAN_WORDNET_DIR
        if missing == ["index.sense"]:
            reason = f"{DEBIAN_WORDNET_DIR} has no index.sense (package wordnet-sense-index)"
        else:
            reason = f"{DEBIAN_WORDNET_DIR} lacks {', '.join(missing)}"
    else:
        reason = f"{DEBIAN_WORDNET_DIR} does not exist"
    nltk_dir = _nltk_download_dir()
    if nltk_dir is not None:
        return "nltk", nltk_dir
    raise FileNotFoundError(f"WordNet 3.0 not found: {reason} and no nltk 'wordnet' download. {INSTALL_HELP}")


def _nltk_download_dir() -> Path | None:
    """An unzipped ``nltk.download('wordnet')`` folder, if one exists (not our own cache copy)."""
    import nltk  # noqa: PLC0415 - nltk is heavy; this module imports without it

    ours = _cache_root().resolve()
    for root in nltk.data.path:
        try:
            base = Path(str(root)).expanduser().resolve()
        except (OSError, ValueError):
            continue
        if base == ours:
            continue
        folder = base / "corpora" / "wordnet"
        if folder.is_dir() and not _missing(folder) and (folder / "lexnames").is_file():
            return folder
        if (base / "corpora" / "wordnet.zip").is_file():
            # NLTK downloads a zip and unzips it; a zip alone is unzipped into our cache.
            return base / "corpora" / "wordnet.zip"
    return None


def _cache_root() -> Path:
    return cache_dir() / "wordnet"


def _assemble(source: Path) -> Path:
    """Copy a WordNet dict folder (or nltk zip) into ``cache_dir()/wordnet/corpora/wordnet`` with ``lexnames``."""
    target = _cache_root() / "corpora" / "wordnet"
    stamp = target / ".source"
    wanted = _fingerprint(source)
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted and not _missing(target):
        return target
    tmp = target.with_name(f"wordnet.tmp{os.getpid()}")  # per process: concurrent first calls do not collide
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if source.suffix == ".zip":
        with zipfile.ZipFile(source) as zf:
            for member in zf.namelist():
                name = member.rsplit("/", 1)[-1]
                if name in _REQUIRED + _OPTIONAL:
                    (tmp / name).write_bytes(zf.read(member))
    else:
        for name in _REQUIRED + _OPTIONAL:
            if (source / name).is_file():
                shutil.copyfile(source / name, tmp / name)
    if not (tmp / "lexnames").is_file():
        (tmp / "lexnames").write_text(lexnames_text(), encoding="utf-8")
    missing = _missing(tmp)
    if missing:
        raise FileNotFoundError(f"WordNet source {source} lacks {', '.join(missing)}. {INSTALL_HELP}")
    (tmp / ".source").write_text(wanted, encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    try:
        tmp.rename(target)
    except OSError:  # another process finished first
        shutil.rmtree(tmp, ignore_errors=True)
        if _missing(target):
            raise
    return target


def _fingerprint(source: Path) -> str:
    if source.is_file():
        st = source.stat()
        return f"{source}\n{st.st_size}:{int(st.st_mtime)}\n"
    parts = [str(source)]
    for name in _REQUIRED + _OPTIONAL:
        path = source / name
        if path.is_file():
            st = path.stat()
            parts.append(f"{name}:{st.st_size}:{int(st.st_mtime)}")
    return "\n".join(parts) + "\n"


def wordnet_dir() -> Path:
    """The folder NLTK's reader opens (assembled in the cache for Debian / ``COMPANION_WORDNET_DIR`` sources)."""
    kind, source = _source_dir()
    if kind == "nltk" and source.is_dir():
        return source
    return _assemble(source)


def _authorize(folder: Path) -> None:
    """Let NLTK's path sandbox open ``folder`` and find it as the resource ``corpora/wordnet``."""
    import nltk  # noqa: PLC0415 - nltk is heavy; this module imports without it

    roots = {str(Path(str(p)).expanduser()) for p in nltk.data.path}
    for root in (folder.parent.parent, folder):
        if str(root) not in roots:
            nltk.data.path.append(str(root))


@functools.lru_cache(maxsize=1)
def _reader_class():
    from nltk.corpus.reader.wordnet import WordNetCorpusReader  # noqa: PLC0415 - nltk is heavy; this module imports without it

    class WordNet30Reader(WordNetCorpusReader):
        """NLTK's reader, minus a redundant start-up step.

        ``WordNetCorpusReader.__init__`` calls ``map_wn()``, which compares ``get_version()`` ("3.0") with the
        resource name "wordnet" and, as they never match, builds a WordNet-3.0 -> loaded-version synset map by
        reading ``index.sense`` twice (10-15 s here). That map (``map30``) is only used to load Open Multilingual
        Wordnet data, and for a 3.0 database it is the identity; ``None`` is what the reader uses for "no mapping".
        Any other version or request goes to NLTK unchanged.
        """

        def map_wn(self, version="wordnet"):
            if version == "wordnet" and self.get_version() == "3.0":
                return None
            return super().map_wn(version)

    return WordNet30Reader


@functools.lru_cache(maxsize=4)
def _reader(folder: str):
    _authorize(Path(folder))
    with warnings.catch_warnings():
        # "The multilingual functions are not available": no Open Multilingual Wordnet, by design.
        warnings.filterwarnings("ignore", message=".*multilingual functions.*")
        return _reader_class()(folder, None)


def wordnet():
    """WordNet 3.0 as an ``nltk.corpus.reader.WordNetCorpusReader`` (cached per process; first call ~3 s).

    The object is a thin subclass that skips NLTK's redundant 3.0 -> 3.0 synset mapping at start-up (see
    ``WordNet30Reader``); everything else is NLTK's reader unchanged.

    >>> wn = wordnet(); wn.get_version(), wn.synset("dog.n.01").lexname()
    ('3.0', 'noun.animal')
    """
    return _reader(str(wordnet_dir()))


APT_HINT = "on Debian/Ubuntu: apt-get install wordnet-base wordnet-sense-index"


def check() -> str:
    """Open WordNet 3.0 where :func:`wordnet` looks and read one synset; returns one line saying where it was
    read from. Raises ``FileNotFoundError`` (what is missing, with :data:`INSTALL_HELP`) when it cannot be read."""
    try:
        wn = wordnet()
        version, lexname = wn.get_version(), wn.synset("dog.n.01").lexname()
    except FileNotFoundError:
        raise  # where it looked and what it found missing
    except Exception as exc:  # noqa: BLE001 - an unreadable or partial database: say what failed
        raise FileNotFoundError(f"WordNet is not readable: {type(exc).__name__}: {exc}. {INSTALL_HELP}") from None
    if version != "3.0" or lexname != "noun.animal":
        raise FileNotFoundError(f"the WordNet found is version {version}, not 3.0. {INSTALL_HELP}")
    return f"WordNet {version} readable from {wordnet_dir()}"


def fetch() -> str:
    """WordNet 3.0 readable where :func:`wordnet` looks, downloading it with ``nltk.download("wordnet")`` only when
    it is not (``python -m companion wordnet fetch``); returns :func:`check`'s line. Raises ``FileNotFoundError`` in
    one line naming what is missing and the Debian packages when it still cannot be read: ``nltk.download`` itself
    only prints an error and returns ``False`` when it fails (offline, say), which a shell's ``&&`` cannot see."""
    try:
        return check()
    except FileNotFoundError:
        pass

    import nltk  # noqa: PLC0415 - nltk is heavy; this module imports without it

    said = io.StringIO()  # nltk prints its error wrapped over several lines; it goes into our one line
    try:
        downloaded = nltk.download("wordnet", quiet=True, raise_on_error=False, print_error_to=said)
    except Exception as exc:  # noqa: BLE001 - a download that fails in any way is a failed download
        said.write(f"{type(exc).__name__}: {exc}")
        downloaded = False
    _reader.cache_clear()
    try:
        return check()
    except FileNotFoundError as exc:
        reason = str(exc).replace(INSTALL_HELP, "").strip().rstrip(".")
        nltk_said = " ".join(said.getvalue().replace("[nltk_data]", "").split())
        what = "nltk.download('wordnet') " + ("ran" if downloaded else "failed" + (f" ({nltk_said})" if nltk_said else ""))
        raise FileNotFoundError(f"{reason}; {what}; {APT_HINT}, or point COMPANION_WORDNET_DIR at a WordNet 3.0 "
                                "dict folder") from None


def wordnet_cntlist_path() -> Path:
    """Path of WordNet's sense-frequency file: ``cntlist.rev`` if present, else ``cntlist``.

    ``cntlist.rev`` lines are ``sense_key sense_number tag_cnt`` (sorted by sense key); ``cntlist`` lines are
    ``tag_cnt sense_key sense_number`` (most frequent first), see ``cntlist(5WN)``. Debian's ``wordnet-base``
    ships both; an NLTK download has only ``cntlist.rev``. The same counts are in ``index.sense``
    (:func:`wordnet_sense_counts`), which every source has.
    """
    folder = wordnet_dir()
    for name in ("cntlist.rev", "cntlist"):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(
        f"No cntlist.rev or cntlist in {folder}; use wordnet_sense_counts() (index.sense) instead."
    )


def wordnet_sense_counts() -> dict[str, int]:
    """Sense key -> SemCor tag count, from ``index.sense`` (``sense_key synset_offset sense_number tag_cnt``).

    Every one of the 206,941 sense keys is present; keys never tagged have count 0.
    """
    counts: dict[str, int] = {}
    with open(wordnet_dir() / "index.sense", encoding="utf-8") as fh:
        for line in fh:
            fields = line.split()
            if len(fields) >= 4:
                counts[fields[0]] = int(fields[3])
    return counts
