"""Get the data: ``python -m companion data fetch`` and ``python -m companion data check``.

``fetch`` downloads every file of the data mirror from where its publisher distributes it (:data:`UPSTREAMS`, one
table), resumes an interrupted download with an HTTP ``Range`` request, does in code the steps that turn an upstream
file into the mirrored one (take a member out of an archive, keep the head of a longer file, strip quotes, derive a
label list) and verifies every result against the SHA-256 checksums this package ships
(``companion/data_manifest.sha256``, the mirror's ``MANIFEST.sha256``). Files land where :mod:`companion.data`'s
loaders look: ``<dest>/<path in the manifest>``, so ``COMPANION_DATA_DIR=<dest>`` is all the loaders need.

``--base-url URL`` replaces every upstream by ``URL/<path in the manifest>``: a copy of the mirror on a web server
(or a local folder); a mirror that cannot be reached stops the fetch with one line naming it. ``check`` verifies a
local copy against the manifest and lists missing and corrupt files; with no folder named it checks the one the
loaders read (:func:`companion.settings.data_dir`). ``sources`` lists, per data set, every address and the file
each one becomes (:func:`sources_table`).

Whole files (:data:`WHOLE_FILES`, fetched only when named: ``--only wiki-full``, ``--only snli-train,mnli-train``) are
those the gpu profile reads in full and the mirror holds only a head or no part of, so the package ships no checksum
for them. They are verified by what their publisher states (the line count; for JSON lines, the keys of every line);
their SHA-256 is recorded beside them on the first download
(``<file>.sha256``, said in the fetch's output) and every later fetch or check compares the file with it.

A file that is already there with the right checksum is not downloaded again; a partial download is kept as
``<file>.part`` (archives and raw upstream files under ``<dest>/.downloads/``) and resumed by the next run.

Kept whole because the upstream table, the resumable downloads, the in-code steps and ``check`` all serve the one
command ``data fetch`` and read the same manifest entries.
"""

from __future__ import annotations

import functools
import hashlib
import http.client
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tqdm.auto import tqdm

from companion import settings as _settings
from companion.settings import DataCorruptError

MANIFEST = Path(__file__).with_name("data_manifest.sha256")
DOWNLOADS = ".downloads"
PART = ".part"
TIMEOUT_S = 30
CHUNK = 1 << 16
USER_AGENT = "companion-data-fetch/1"

SIMCSE_HUB = "https://huggingface.co/datasets/princeton-nlp/datasets-for-simcse/resolve/main"
GITHUB_RAW = "https://raw.githubusercontent.com"


@dataclass(frozen=True)
class Upstream:
    """Where the files whose manifest path matches ``pattern`` come from.

    ``url`` is a :meth:`str.format` template filled with the pattern's named groups. ``step`` turns the downloaded
    file into the mirrored one: ``copy`` (as is), ``member`` (the archive member named by ``arg``, a template like
    ``url``), ``head-bytes`` (the first ``arg`` bytes), ``strip-quotes`` (every ``'`` and backtick removed, as
    SentEval's download script does to TREC) or ``ekman-labels`` (the sorted keys of GoEmotions'
    ``ekman_mapping.json`` plus ``neutral``, one per line).
    """

    pattern: str
    origin: str
    url: str
    step: str = "copy"
    arg: str | int | None = None


#: Every upstream, first match wins. SentEval's tokenised files (Moses for STS/STS-B/SICK, its PTB sed script for
#: SNLI and MR/CR/SUBJ/MPQA) cannot be rebuilt from the raw corpora without those tools, so they come from the
#: archive SimCSE publishes of SentEval's processed ``data/downstream`` folder; MRPC, SST and TREC come from the
#: addresses SentEval's ``get_transfer_data.bash`` downloads them from, with its TREC step done here.
UPSTREAMS: tuple[Upstream, ...] = (
    Upstream(r"senteval/downstream/(?P<rel>(?:STS|SICK|MR|CR|SUBJ|MPQA|SNLI)/.+)",
             "SentEval data/downstream (Conneau & Kiela 2018), as packed by SimCSE (princeton-nlp/SimCSE)",
             f"{SIMCSE_HUB}/senteval.tar", "member", "{rel}"),
    Upstream(r"senteval/downstream/MRPC/(?P<name>[^/]+)", "SentEval (facebookresearch/SentEval)",
             "https://dl.fbaipublicfiles.com/senteval/senteval_data/{name}"),
    Upstream(r"senteval/downstream/SST/binary/sentiment-(?P<split>\w+)", "SST binary, PrincetonML/SIF",
             f"{GITHUB_RAW}/PrincetonML/SIF/master/data/sentiment-{{split}}"),
    Upstream(r"senteval/downstream/SST/fine/sentiment-(?P<split>\w+)",
             "SST fine-grained, AcademiaSinicaNLPLab/sentiment_dataset",
             f"{GITHUB_RAW}/AcademiaSinicaNLPLab/sentiment_dataset/master/data/stsa.fine.{{split}}"),
    Upstream(r"senteval/downstream/TREC/(?P<name>[^/]+)", "TREC question classification, Cognitive Computation Group",
             "https://cogcomp.seas.upenn.edu/Data/QA/QC/{name}", "strip-quotes"),
    Upstream(r"wiki/wiki1m_for_simcse\.head\.txt", "SimCSE wiki1m_for_simcse.txt (princeton-nlp)",
             f"{SIMCSE_HUB}/wiki1m_for_simcse.txt", "head-bytes", 1_280_000),
    Upstream(r"emolit/(?P<name>[^/]+)", "Emolit 12-label subset, yama11235/EmpiricalCircumplexModel",
             f"{GITHUB_RAW}/yama11235/EmpiricalCircumplexModel/main/dataset/{{name}}"),
    Upstream(r"goemotions/ekman_labels\.txt", "GoEmotions, google-research/google-research",
             f"{GITHUB_RAW}/google-research/google-research/master/goemotions/data/ekman_mapping.json",
             "ekman-labels"),
    Upstream(r"goemotions/(?P<name>[^/]+)", "GoEmotions, google-research/google-research",
             f"{GITHUB_RAW}/google-research/google-research/master/goemotions/data/{{name}}"),
    Upstream(r"emobank/README\.upstream\.md", "EmoBank, JULIELab/EmoBank",
             f"{GITHUB_RAW}/JULIELab/EmoBank/master/corpus/README.md"),
    Upstream(r"emobank/(?P<name>[^/]+)", "EmoBank, JULIELab/EmoBank",
             f"{GITHUB_RAW}/JULIELab/EmoBank/master/corpus/{{name}}"),
)

#: Data set names (``--only``) and the manifest folder each covers; the names are the loaders' (companion.data).
DATASETS: dict[str, str] = {
    **{f"sts{y}": f"senteval/downstream/STS/STS{y}-en-test/" for y in (12, 13, 14, 15, 16)},
    "stsb": "senteval/downstream/STS/STSBenchmark/",
    "sick": "senteval/downstream/SICK/",
    "mrpc": "senteval/downstream/MRPC/",
    "snli": "senteval/downstream/SNLI/",
    "mr": "senteval/downstream/MR/",
    "cr": "senteval/downstream/CR/",
    "subj": "senteval/downstream/SUBJ/",
    "mpqa": "senteval/downstream/MPQA/",
    "trec": "senteval/downstream/TREC/",
    "sst": "senteval/downstream/SST/",
    "wiki": "wiki/",
    "emolit": "emolit/",
    "goemotions": "goemotions/",
    "emobank": "emobank/",
}
STEPS = ("copy", "member", "head-bytes", "strip-quotes", "ekman-labels")


@dataclass(frozen=True)
class WholeFile:
    """A file read whole by the gpu profile, not in the mirror (no shipped checksum): ``name`` is its ``--only``
    name, ``lines`` the line count its publisher states (what the download is verified by), ``member`` the file's
    path inside the archive ``url`` points at (taken out of it after the download) and ``fields`` the keys of every
    line of a JSON-lines file (its format, checked line by line)."""

    name: str
    path: str
    origin: str
    url: str
    lines: int
    stated: str
    member: str = ""  # the file inside the archive at ``url`` ("" when ``url`` is the file itself)
    fields: tuple[str, ...] = ()  # JSON lines: the keys every line holds (its publisher's format)


#: The whole files (see the module docstring). wiki1m: SimCSE's 10^6 Wikipedia sentences, one per line (SimACE
#: §4.1 trains on all of them; the mirror keeps the first 1,280,000 bytes).
WHOLE_FILES: tuple[WholeFile, ...] = (
    WholeFile("wiki-full", "wiki/wiki1m_for_simcse.txt", "SimCSE wiki1m_for_simcse.txt (princeton-nlp), whole",
              f"{SIMCSE_HUB}/wiki1m_for_simcse.txt", 1_000_000,
              "10^6 sentences (SimACE §4.1; SimCSE samples 1M Wikipedia sentences)"),
    WholeFile("snli-train", "nli/snli_1.0_train.jsonl", "SNLI 1.0 (Stanford NLP Group), training split",
              "https://nlp.stanford.edu/projects/snli/snli_1.0.zip", 550_152,
              "550,152 training pairs (Bowman et al. 2015; the SNLI page)", member="snli_1.0/snli_1.0_train.jsonl",
              fields=("gold_label", "sentence1", "sentence2")),
    WholeFile("mnli-train", "nli/multinli_1.0_train.jsonl", "MultiNLI 1.0 (NYU), training split",
              "https://cims.nyu.edu/~sbowman/multinli/multinli_1.0.zip", 392_702,
              "392,702 training pairs (Williams et al. 2018; the MultiNLI page)",
              member="multinli_1.0/multinli_1.0_train.jsonl", fields=("gold_label", "sentence1", "sentence2")),
)
RECORD = ".sha256"  # <file>.sha256: a whole file's checksum, recorded on its first download


class FetchError(RuntimeError):
    """A download or a verification failed; the message is one line naming the file and what to do."""


class UnreachableError(FetchError):
    """Nothing at all came back from an address (refused, unknown host, timeout): later files from it are skipped."""

    def __init__(self, message: str, reason: str = ""):
        super().__init__(message)
        self.reason = reason


# ---------------------------------------------------------------------------------------------------- manifest
@dataclass(frozen=True)
class Entry:
    path: str  # relative to the data root, forward slashes
    sha256: str
    dataset: str


def read_manifest(path: str | Path = MANIFEST) -> list[Entry]:
    """The entries of a ``sha256sum``-style manifest (``<hex>  ./<path>``), each with its data set name."""
    entries = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        match = re.fullmatch(r"([0-9a-f]{64}) [ *](?:\./)?(.+)", line.strip())
        if not match:
            raise ValueError(f"{path}:{lineno}: not a sha256sum line: {line[:60]!r}")
        rel = match.group(2)
        entries.append(Entry(rel, match.group(1), dataset_of(rel)))
    return entries


def dataset_of(path: str) -> str:
    """The data set a manifest path belongs to (its name in :data:`DATASETS`)."""
    for name, prefix in DATASETS.items():
        if path.startswith(prefix):
            return name
    raise ValueError(f"the manifest path {path!r} belongs to no known data set ({', '.join(DATASETS)})")


def _names(only: str | Iterable[str] | None) -> list[str]:
    names = [n.strip().lower() for n in (only.split(",") if isinstance(only, str) else only or ()) if n.strip()]
    whole = {w.name for w in WHOLE_FILES}
    unknown = [n for n in names if n not in DATASETS and n not in whole]
    if unknown:
        raise ValueError(f"unknown data set {', '.join(map(repr, unknown))}; valid: "
                         f"{', '.join([*DATASETS, *sorted(whole)])}")
    return names


def select(entries: list[Entry], only: str | Iterable[str] | None) -> list[Entry]:
    """Entries of the named data sets (comma-separated string or names); all when ``only`` is empty (a whole
    file's name selects no manifest entry: :func:`select_whole`)."""
    if not only:
        return list(entries)
    names = _names(only)
    return [e for e in entries if e.dataset in names]


def select_whole(only: str | Iterable[str] | None) -> list[WholeFile]:
    """The whole files named in ``only`` (never selected by default: they are large and only the gpu profile reads
    them)."""
    names = _names(only)
    return [w for w in WHOLE_FILES if w.name in names]


def count_lines(path: Path) -> int:
    """Lines of a text file: newline-terminated lines, plus a last line without its newline."""
    n, last = 0, b""
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            n += block.count(b"\n")
            last = block[-1:]
    return n + (1 if last and last != b"\n" else 0)


def verify_whole(whole: WholeFile, path: Path) -> str | None:
    """Why ``path`` is not ``whole`` (its line count, or its checksum against the one recorded on its first download),
    or None when it is."""
    found = count_lines(path)
    if found != whole.lines:
        return f"{found:,} lines, not the {whole.lines:,} its publisher states ({whole.stated})"
    if whole.fields:
        bad = _jsonl_problem(path, whole.fields)
        if bad:
            return bad
    record = path.with_name(path.name + RECORD)
    if record.is_file():
        recorded = record.read_text(encoding="utf-8").split()[0]
        if sha256_of(path) != recorded:
            return f"its checksum differs from the one recorded on its first download ({record.name})"
    return None


def _jsonl_problem(path: Path, fields: tuple[str, ...]) -> str | None:
    """Why ``path`` is not JSON lines whose every line holds ``fields``, or None."""
    with open(path, "rb") as handle:
        for lineno, line in enumerate(handle, start=1):
            try:
                record = json.loads(line)
            except ValueError:
                return f"line {lineno:,} is not JSON (the publisher's format is one JSON object a line)"
            missing = [f for f in fields if not isinstance(record, dict) or f not in record]
            if missing:
                return f"line {lineno:,} lacks {', '.join(missing)} (the publisher's format)"
    return None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


#: files verified in this process: (path, size, modification time); a file replaced since is verified again
_VERIFIED: set[tuple[str, int, int]] = set()


@functools.lru_cache(maxsize=1)
def manifest_sums() -> dict[str, str]:
    """``{path in the manifest: sha256}`` of the shipped manifest, read once per process."""
    return {e.path: e.sha256 for e in read_manifest(MANIFEST)}


def verified(path: Path, root: Path | None = None) -> Path:
    """``path``, a file of the data folder ``root`` (default: the one the loaders read), once its SHA-256 matches the
    manifest: what every loader of :mod:`companion.data` reads goes through here, so a cut or altered file fails
    where it is read, not many cells later. Each file is hashed once per process (again if its size or time
    changes); a file the manifest does not list is returned as it is. Raises :class:`DataCorruptError` (one line:
    the file and the command that lists every damaged file)."""
    root = _settings.data_dir() if root is None else root
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path
    want = manifest_sums().get(rel)
    if want is None:
        return path
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _VERIFIED:
        if sha256_of(path) != want:
            raise DataCorruptError(f"{path} is damaged or incomplete (its SHA-256 is not the manifest's): "
                                   f"`python -m companion data check` lists every damaged file, and "
                                   f"`python -m companion data fetch` replaces them")
        _VERIFIED.add(key)
    return path


def upstream_of(path: str, upstreams: Iterable[Upstream] = UPSTREAMS) -> tuple[Upstream, str, str | int | None]:
    """``(upstream, url, arg)`` for a manifest path: the first matching row of the table, templates filled in."""
    for up in upstreams:
        match = re.fullmatch(up.pattern, path)
        if match:
            groups = match.groupdict()
            arg = up.arg.format(**groups) if isinstance(up.arg, str) else up.arg
            return up, up.url.format(**groups), arg
    raise ValueError(f"no upstream source is known for {path!r}")


# ---------------------------------------------------------------------------------------------------- downloads
def _host(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.URLError) and not isinstance(exc, urllib.error.HTTPError):
        exc = exc.reason if isinstance(exc.reason, BaseException) else exc
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _progress(total: int | None, initial: int, desc: str, quiet: bool):
    return tqdm(total=total, initial=initial, unit="B", unit_scale=True, unit_divisor=1024, desc=desc,
                leave=False, disable=quiet, file=sys.stderr)


def download(url: str, part: Path, limit: int | None = None, what: str = "", quiet: bool = True,
             attempts: int = 3) -> Path:
    """Download ``url`` into ``part``, resuming from the bytes already there with an HTTP ``Range`` request.

    ``limit`` keeps only the first ``limit`` bytes (the rest is never transferred). A transfer cut off half way is
    resumed at once (up to ``attempts`` requests in all, as long as each one brings new bytes); a server that
    answers a range request with the whole file is read from the start. Raises :class:`FetchError`.
    """
    part.parent.mkdir(parents=True, exist_ok=True)
    what = what or part.name
    last: BaseException | None = None
    for attempt in range(attempts):
        offset = part.stat().st_size if part.exists() else 0
        if limit is not None and offset >= limit:
            if offset > limit:
                with open(part, "r+b") as handle:
                    handle.truncate(limit)
            return part
        headers = {"User-Agent": USER_AGENT}
        if offset:
            headers["Range"] = f"bytes={offset}-"
        before = offset
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=TIMEOUT_S) as resp:
                resumed = offset > 0 and resp.status == 206
                if resumed:
                    start = re.match(r"bytes (\d+)-", resp.headers.get("Content-Range", ""))
                    resumed = bool(start) and int(start.group(1)) == offset
                if not resumed:
                    offset = 0  # a whole file (no range support, or a fresh start)
                length = resp.headers.get("Content-Length")
                total = offset + int(length) if length and length.isdigit() else None
                if limit is not None:
                    total = min(total, limit) if total is not None else limit
                written = offset
                with open(part, "ab" if resumed else "wb") as handle, \
                        _progress(total, offset, what, quiet) as bar:
                    while limit is None or written < limit:
                        # read1: what has arrived (at most one socket read), so the part on disk keeps up
                        chunk = resp.read1(CHUNK if limit is None else min(CHUNK, limit - written))
                        if not chunk:
                            break
                        handle.write(chunk)
                        handle.flush()
                        written += len(chunk)
                        bar.update(len(chunk))
                if limit is None and total is not None and written < total:
                    raise ConnectionError(f"the transfer stopped after {written} of {total} bytes")
                return part
        except urllib.error.HTTPError as exc:
            if exc.code == 416 and offset:  # nothing left to send: the part is already whole
                return part
            if exc.code < 500 or attempt == attempts - 1:
                raise FetchError(f"cannot download {what} from {url}: HTTP {exc.code} {exc.reason}") from None
            last = exc
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError, EOFError) as exc:
            last = exc
            grew = part.exists() and part.stat().st_size > before
            if not grew and attempt == 0 and isinstance(exc, urllib.error.URLError):
                # not a single byte and no HTTP answer: the address is unreachable, retrying will not help
                raise UnreachableError(f"cannot download {what}: {_host(url)} is unreachable ({_reason(exc)}); "
                                       "check the network, or pass --base-url to a mirror", _reason(exc)) from None
            if not grew:
                break
        time.sleep(0.2 * (attempt + 1))
    got = part.stat().st_size if part.exists() else 0
    kept = f"; {got} bytes kept in {part.name}, run the command again to resume" if got else ""
    raise FetchError(f"cannot download {what} from {url}: {_reason(last) if last else 'no data'}{kept}")


def _copy_local(source: Path, part: Path, what: str) -> Path:
    if not source.is_file():
        raise FetchError(f"cannot copy {what}: {source} does not exist")
    part.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, part)
    return part


# ---------------------------------------------------------------------------------------------------- steps
def _archive_member(archive: Path, member: str, out: Path, cache: dict) -> None:
    """Copy the archive member whose path is ``member`` or ends with ``/member`` (tar or zip) into ``out``."""
    opened = cache.get(archive)
    if opened is None:
        try:
            if zipfile.is_zipfile(archive):
                handle = zipfile.ZipFile(archive)
                names = [n for n in handle.namelist() if not n.endswith("/")]
            else:
                handle = tarfile.open(archive)
                names = [m.name for m in handle.getmembers() if m.isfile()]
        except (OSError, tarfile.TarError, zipfile.BadZipFile) as exc:
            raise FetchError(f"cannot read the archive {archive.name}: {_reason(exc)}; delete it and fetch again") \
                from None
        opened = cache[archive] = (handle, names)
    handle, names = opened
    matches = sorted((n for n in names if n.lstrip("./") == member or n.endswith("/" + member)), key=len)
    if not matches:
        raise FetchError(f"the archive {archive.name} has no member {member!r}")
    source = handle.open(matches[0]) if isinstance(handle, zipfile.ZipFile) else handle.extractfile(matches[0])
    with source, open(out, "wb") as target:
        shutil.copyfileobj(source, target, CHUNK)


def _strip_quotes(raw: Path, out: Path) -> None:
    out.write_bytes(raw.read_bytes().replace(b"'", b"").replace(b"`", b""))


def _ekman_labels(raw: Path, out: Path) -> None:
    try:
        mapping = json.loads(raw.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise FetchError(f"{raw.name} is not the JSON mapping expected: {_reason(exc)}") from None
    out.write_text("\n".join(sorted([*mapping, "neutral"])), encoding="utf-8")


# ---------------------------------------------------------------------------------------------------- fetch
@dataclass
class Report:
    """Outcome of :func:`fetch` / :func:`check`: manifest paths by state, and one-line errors."""

    present: list[str] = field(default_factory=list)
    fetched: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    corrupt: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    root: Path | None = None  # the folder fetched into or checked

    @property
    def ok(self) -> bool:
        return not (self.missing or self.corrupt or self.errors)


def default_dest() -> Path:
    """``COMPANION_DATA_DIR`` when set, else ``<cache>/data`` (where :func:`companion.settings.data_dir` looks)."""
    explicit = os.environ.get("COMPANION_DATA_DIR")
    return Path(explicit).expanduser() if explicit else _settings.cache_dir() / "data"


def check_dir() -> Path:
    """The folder ``data check`` verifies when none is named: the one the data loaders read
    (:func:`companion.settings.data_dir`: ``COMPANION_DATA_DIR``, else ``shared/data`` beside the checkout, else
    ``<cache>/data``). Raises :class:`FetchError` (one line) when there is none."""
    explicit = os.environ.get("COMPANION_DATA_DIR")
    try:
        return _settings.data_dir()
    except _settings.DataNotFoundError:
        if explicit:
            raise FetchError(f"COMPANION_DATA_DIR={explicit} is not a directory: point it at the data, or get the "
                             "data there with 'python -m companion data fetch'") from None
        tried = ", ".join(str(p) for p in _settings.data_dir_candidates())
        raise FetchError(f"no data folder where the loaders look ({tried}): get the data with 'python -m "
                         "companion data fetch', or name the folder to check ('data check DIR')") from None


def _ensure_writable(dest: Path) -> None:
    try:
        dest.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=dest, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise FetchError(f"cannot write to {dest}: {exc.strerror or _reason(exc)}") from None


def _is_local(base_url: str) -> bool:
    return "://" not in base_url or base_url.startswith("file://")


def _local_root(base_url: str) -> Path:
    return Path(urllib.parse.unquote(base_url.removeprefix("file://"))).expanduser()


def fetch(dest: str | Path | None = None, only: str | Iterable[str] | None = None, base_url: str | None = None,
          upstreams: Iterable[Upstream] = UPSTREAMS, manifest: str | Path = MANIFEST, quiet: bool = False,
          keep_downloads: bool = False, echo: Callable[[str], None] | None = None) -> Report:
    """Download the selected data sets into ``dest`` and verify them; see the module docstring.

    Every file is verified against ``manifest``; a file already there with the right checksum is kept. Failures
    do not stop the other files: they are collected in the returned :class:`Report` (``errors``), one line each.
    """
    echo = echo or (lambda line: print(line, flush=True))
    dest = Path(dest).expanduser() if dest is not None else default_dest()
    entries = select(read_manifest(manifest), only)
    upstreams = tuple(upstreams)
    _ensure_writable(dest)
    if base_url and _is_local(base_url) and not _local_root(base_url).is_dir():
        raise FetchError(f"the mirror folder {_local_root(base_url)} (--base-url) does not exist")
    report = Report(root=dest)
    downloads = dest / DOWNLOADS
    archives: dict[Path, tuple] = {}
    archive_users: dict[Path, list[str]] = {}
    dead_hosts: dict[str, str] = {}
    try:
        for dataset in dict.fromkeys(e.dataset for e in entries):
            todo = [e for e in entries if e.dataset == dataset]
            fetched_before, errors_before = len(report.fetched), len(report.errors)
            skipped: dict[str, int] = {}
            for entry in todo:
                target = dest / entry.path
                if target.is_file() and sha256_of(target) == entry.sha256:
                    report.present.append(entry.path)
                    continue
                known_dead = set(dead_hosts)
                try:
                    _fetch_one(entry, target, base_url, upstreams, downloads, archives, archive_users, dead_hosts,
                               quiet)
                    report.fetched.append(entry.path)
                except UnreachableError as exc:
                    if base_url:  # every file comes from that one mirror: nothing more can be fetched
                        raise FetchError(f"the mirror {base_url} (--base-url) is unreachable ({exc.reason}): check "
                                         "the address; it must serve <URL>/<path in the manifest>, e.g. "
                                         f"{base_url.rstrip('/')}/{entry.path}") from None
                    report.errors.append(str(exc))
                    host = next((h for h in dead_hosts if h in str(exc)), None)
                    if host in known_dead:  # said once already: count the files it costs
                        skipped[host] = skipped.get(host, 0) + 1
                    else:
                        echo(f"error: {exc}")
                except FetchError as exc:
                    report.errors.append(str(exc))
                    echo(f"error: {exc}")
            for host, count in skipped.items():
                echo(f"error: {count} file(s) of {dataset} skipped: {host} is unreachable")
            got = len(report.fetched) - fetched_before
            failed = len(report.errors) - errors_before
            state = "ok" if not failed else f"{failed} failed"
            echo(f"{dataset:<11} {len(todo):>3} files  {state} ({got} downloaded, {len(todo) - got - failed} "
                 "already there)")
    finally:
        for handle, _ in archives.values():
            handle.close()
    for whole in select_whole(only):
        try:
            fetched, note = _fetch_whole(whole, dest, base_url, quiet)
            (report.fetched if fetched else report.present).append(whole.path)
            echo(f"{whole.name:<11}   1 file   ok ({'downloaded' if fetched else 'already there'}; {note})")
        except FetchError as exc:
            report.errors.append(str(exc))
            echo(f"error: {exc}")
    if not keep_downloads:  # an archive whose every member we took is no longer needed
        for archive, users in archive_users.items():
            if archive.exists() and all((dest / p).is_file() for p in users):
                archive.unlink()
        for folder in sorted(downloads.rglob("*"), reverse=True) if downloads.exists() else []:
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        if downloads.exists() and not any(downloads.iterdir()):
            downloads.rmdir()
    return report


def _fetch_one(entry: Entry, target: Path, base_url: str | None, upstreams: tuple[Upstream, ...], downloads: Path,
               archives: dict, archive_users: dict, dead_hosts: dict, quiet: bool) -> None:
    part = target.with_name(target.name + PART)
    if base_url:
        url, step, arg = f"{base_url.rstrip('/')}/{urllib.parse.quote(entry.path)}", "copy", None
    else:
        up, url, arg = upstream_of(entry.path, upstreams)
        step = up.step
    if step not in STEPS:
        raise FetchError(f"unknown step {step!r} for {entry.path}")
    host = _host(url)
    if host in dead_hosts:
        raise UnreachableError(f"cannot download {entry.path}: {host} is unreachable ({dead_hosts[host]})",
                               dead_hosts[host])
    try:
        if base_url and _is_local(base_url):
            _copy_local(_local_root(base_url) / entry.path, part, entry.path)
        elif step in ("copy", "head-bytes"):
            download(url, part, limit=arg if step == "head-bytes" else None, what=entry.path, quiet=quiet)
        else:
            raw_name = Path(urllib.parse.urlsplit(url).path).name or "download"
            raw = downloads / (raw_name if step == "member" else f"{entry.path}.{raw_name}")
            if not raw.is_file():
                download(url, raw.with_name(raw.name + PART), what=raw_name if step == "member" else entry.path,
                         quiet=quiet)
                os.replace(raw.with_name(raw.name + PART), raw)
            part.parent.mkdir(parents=True, exist_ok=True)
            if step == "member":
                archive_users.setdefault(raw, []).append(entry.path)
                _archive_member(raw, str(arg), part, archives)
            elif step == "strip-quotes":
                _strip_quotes(raw, part)
            else:
                _ekman_labels(raw, part)
            if step != "member":
                raw.unlink()
    except UnreachableError as exc:
        dead_hosts.setdefault(host, exc.reason)
        raise
    got = sha256_of(part)
    if got != entry.sha256:
        part.unlink()
        raise FetchError(f"checksum mismatch for {entry.path}: expected {entry.sha256[:16]}…, got {got[:16]}… "
                         f"(from {url}); the download was discarded")
    os.replace(part, target)


def _fetch_whole(whole: WholeFile, dest: Path, base_url: str | None, quiet: bool) -> tuple[bool, str]:
    """Fetch one whole file (resuming a part), verify its line count and record or compare its checksum. Returns
    ``(downloaded, what was verified)``."""
    target = dest / whole.path
    record = target.with_name(target.name + RECORD)
    if target.is_file() and verify_whole(whole, target) is None:
        return False, f"{whole.lines:,} lines" + (", checksum as recorded" if record.is_file() else "")
    part = target.with_name(target.name + PART)
    url = f"{base_url.rstrip('/')}/{urllib.parse.quote(whole.path)}" if base_url else whole.url
    if base_url and _is_local(base_url):
        _copy_local(Path(urllib.parse.unquote(base_url.removeprefix("file://"))).expanduser() / whole.path, part,
                    whole.path)
    elif whole.member and not base_url:  # the publisher's archive: kept under .downloads until the member is out
        archive = dest / DOWNLOADS / "whole" / Path(urllib.parse.urlparse(whole.url).path).name
        archive.parent.mkdir(parents=True, exist_ok=True)
        if not archive.is_file():
            download(url, archive.with_name(archive.name + PART), what=whole.path, quiet=quiet)
            os.replace(archive.with_name(archive.name + PART), archive)
        part.parent.mkdir(parents=True, exist_ok=True)
        cache: dict = {}
        try:
            _archive_member(archive, whole.member, part, cache)
        finally:
            for handle, _ in cache.values():
                handle.close()
        archive.unlink()
    else:
        download(url, part, what=whole.path, quiet=quiet)
    problem = verify_whole(whole, part)
    if problem is not None:
        part.unlink()
        raise FetchError(f"{whole.path} from {url} has {problem}; the download was discarded")
    digest = sha256_of(part)
    new_record = not record.is_file()
    if new_record:
        record.write_text(f"{digest}  {target.name}\n", encoding="utf-8")
    os.replace(part, target)
    note = f"{whole.lines:,} lines as stated; " + (f"sha256 {digest[:16]}… recorded in {record.name} (no shipped "
                                                    "checksum for this file)" if new_record else
                                                    "checksum as recorded")
    return True, note


# ---------------------------------------------------------------------------------------------------- check
def check(root: str | Path | None = None, only: str | Iterable[str] | None = None,
          manifest: str | Path = MANIFEST) -> Report:
    """Verify a local copy: every selected manifest file must exist with its checksum (``missing`` / ``corrupt``).
    ``root`` defaults to the folder the data loaders read (:func:`check_dir`)."""
    root = Path(root).expanduser() if root is not None else check_dir()
    if not root.is_dir():
        raise FetchError(f"{root} is not a directory: name the data folder, or get the data there with "
                         f"'python -m companion data fetch --dest {root}'")
    report = Report(root=root)
    for entry in select(read_manifest(manifest), only):
        path = root / entry.path
        if not path.is_file():
            report.missing.append(entry.path)
        elif sha256_of(path) != entry.sha256:
            report.corrupt.append(entry.path)
        else:
            report.present.append(entry.path)
    for whole in select_whole(only):  # named ones only: line count and recorded checksum
        path = root / whole.path
        if not path.is_file():
            report.missing.append(whole.path)
        elif verify_whole(whole, path) is not None:
            report.corrupt.append(whole.path)
        else:
            report.present.append(whole.path)
    return report


#: what each step does to the downloaded file, in words (``data sources``)
STEP_WORDS = {"copy": "as published", "member": "taken out of the archive",
              "head-bytes": "its first {arg:,} bytes", "strip-quotes": "with every ' and ` removed, as SentEval's "
              "get_transfer_data.bash does", "ekman-labels": "the label list derived from it (the mapping's keys "
              "plus 'neutral')"}


@dataclass(frozen=True)
class Source:
    """One upstream in use (``data sources``): the data sets it serves, where they come from, what is done to the
    download (``how``, in words, with the archive's whole address for ``member``), and ``files``: ``(whence, path
    in the manifest)`` per file, ``whence`` the file's whole address (for an archive, the member's name)."""

    datasets: tuple[str, ...]
    origin: str
    step: str
    how: str
    files: tuple[tuple[str, str], ...]


def sources_table(upstreams: Iterable[Upstream] = UPSTREAMS, manifest: str | Path = MANIFEST,
                  only: str | Iterable[str] | None = None) -> list[Source]:
    """Where each data set comes from, one :class:`Source` per upstream in use, in :data:`DATASETS` order
    (``python -m companion data sources``): every file with its whole address."""
    upstreams = tuple(upstreams)
    groups: dict[int, list] = {}
    for entry in select(read_manifest(manifest), only):
        up, url, arg = upstream_of(entry.path, upstreams)
        names, files, how = groups.setdefault(upstreams.index(up), [[], [], ""])
        if entry.dataset not in names:
            names.append(entry.dataset)
        files.append((str(arg) if up.step == "member" else url, entry.path))
        groups[upstreams.index(up)][2] = STEP_WORDS[up.step].format(arg=arg) + (f" {url}" if up.step == "member"
                                                                                 else "")
    order = list(DATASETS)
    out = [Source(tuple(sorted(names, key=order.index)), upstreams[i].origin, upstreams[i].step, how, tuple(files))
           for i, (names, files, how) in groups.items()]
    out = sorted(out, key=lambda s: order.index(s.datasets[0]))
    return out + [Source((w.name,), w.origin, "whole", f"whole, verified by {w.lines:,} lines"
                         + (f" of JSON objects with {', '.join(w.fields)}" if w.fields else "")
                         + "; checksum recorded on first download"
                         + (f"; {w.member} taken out of the archive {w.url}" if w.member else ""),
                         ((w.member or w.url, w.path),)) for w in select_whole(only)]
