"""Pretraining text for the raw masked-language-model encoder, built at run time from installed sources.

Nothing here is copied into the repository: every source is read where its package or the data mirror puts it,
cut into sentence units, de-duplicated, and cleaned of every evaluation sentence (:func:`evaluation_texts`), then
written once into the cache (``cache_dir()/mlm/corpus-<key>.txt``, one unit per line, a ``#source <name>`` line
before each source's block).

=================  ===================================================================  ===================================
source             where it is read                                                     licence
=================  ===================================================================  ===================================
``wordnet``        WordNet 3.0 glosses and their quoted examples (``data.{noun,verb,    WordNet 3.0 licence (Princeton)
                   adj,adv}``; Debian ``wordnet-base``, see :mod:`companion.wordnet`)
``wiki``           the mirror's head of SimCSE's ``wiki1m_for_simcse.txt``              CC BY-SA (Wikipedia)
``mrpc-train``     MRPC training pairs (``msr_paraphrase_train.txt``; its test split    MSR data licence, research use
                   is evaluated)
``goemotions-train``  GoEmotions ``train.tsv`` (dev / test are evaluated)               CC BY 4.0
``emolit-train``   Emolit ``emolit_12labels_train.csv`` (test is evaluated)             CC BY-SA 4.0
``emobank-train``  EmoBank rows whose ``split`` is ``train``                            CC BY-SA 4.0
``python-docs``    the reStructuredText sources of the Python 3.11 documentation        PSF License (Python docs)
                   (Debian ``python3.11-doc``: ``/usr/share/doc/python3.11/html/_sources``)
``debian-reference``  the Debian Reference, plain-text edition (Debian                  GPL-2+
                   ``debian-reference-en``)
``gnu-standards``  the GNU Coding Standards and the GNU maintainer information          GFDL-1.3
                   (Debian ``gnu-standards``, ``*.text.gz``)
``fortunes``       the English fortune-cookie files of Debian ``fortunes-min`` and      BSD (4.4BSD fortune data)
                   ``fortunes`` (``/usr/share/games/fortunes``, the ``ascii-art``
                   file excepted)
=================  ===================================================================  ===================================

Left out on purpose: every STS set (STS12–16, STS-B, SICK: all splits), every split a notebook evaluates on (MRPC
test, SNLI dev/test, the SentEval transfer tasks MR, CR, SUBJ, MPQA, which are scored by cross-validation over all
their rows, TREC and SST, whose SST sentences come from the same reviews as MR, GoEmotions dev/test, Emolit test,
EmoBank dev/test). :func:`evaluation_texts` lists those sentences, and the build's ``decontamination`` rule
(:mod:`companion.mlm.decontaminate`) decides which units they remove: ``"exact"`` drops a unit that equals one of
them, or one of their sentences, after :func:`normalise` (WordNet's glosses, for instance, are the source of
STS12–14's OnWN and FNWN pairs); ``"near-duplicate"`` also drops near-copies (a shared word 8-gram, or most of one
text's word 3-grams in the other) and every unit of a WordNet gloss whose whole text or definition matches.

Measured on the cpu corpus (all ten sources; the Debian packages of Debian 12): ``"exact"`` keeps 318,425 units
(3,334,776 words), among which 210 of STS12's 4,946 distinct sentences and 48 of STS-B test's 2,551 share a word
8-gram with some unit, and units of 527 of the 744 STS12 sentences that are a WordNet definition stay in (cut at
";"); ``"near-duplicate"`` keeps 315,313 units (3,307,386 words: 3,112 units and 27,390 words fewer, 0.8 % of
the text; 2,497 of the units are WordNet's), after which no sentence of the seven STS sets shares an 8-gram with a
unit, and 8 of those 744 definitions keep a unit, each one also cut from another gloss or found in another source
("keep smiling").
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import html
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from companion import data
from companion._io import cache_key, write_atomic
from companion.data import load_emobank, load_emolit, load_goemotions, load_mrpc, load_wiki
from companion.mlm.decontaminate import NearDuplicateIndex, check_rule
from companion.settings import cache_dir, data_dir
from companion.wordnet import wordnet_dir

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html/_sources")
DEBIAN_REFERENCE = Path("/usr/share/debian-reference/debian-reference.en.txt.gz")
GNU_STANDARDS = (Path("/usr/share/doc/gnu-standards/standards.text.gz"),
                 Path("/usr/share/doc/gnu-standards/maintain.text.gz"))
FORTUNES = Path("/usr/share/games/fortunes")
_FORTUNES_SKIPPED = {"ascii-art"}

CORPUS_VERSION = 1  # bump when the extraction or the cleaning changes: it is part of the cache key


class SourceMissingError(FileNotFoundError):
    """A corpus source that is not installed; the message names the package that provides it."""


@dataclass(frozen=True)
class Source:
    name: str
    licence: str
    provider: str  # what to install (one line of the error when missing)
    read: Callable[[], Iterator[str]]
    #: ``(whole texts, units)`` where units are cut from a larger text that an evaluation set may hold whole (a
    #: WordNet gloss split at ";"): the larger texts (the gloss, its definition without the examples) and the units
    #: cut from them, the units in the order :attr:`read` gives them
    groups: Callable[[], Iterator[tuple[tuple[str, ...], list[str]]]] | None = None


# --------------------------------------------------------------------------------------------- text helpers
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_SPACE = re.compile(r"\s+")
_NON_WORD = re.compile(r"[^0-9a-z]+")


def normalise(text: str) -> str:
    """Lower case, every run of characters other than ``a-z0-9`` one space, stripped: the form in which corpus
    units and evaluation sentences are compared (so tokenisation, punctuation and spacing do not hide a match)."""
    return _NON_WORD.sub(" ", text.lower()).strip()


def sentences(text: str) -> list[str]:
    """``text`` cut after ``.``, ``!`` or ``?`` followed by white space and a capital, digit or opening quote."""
    text = _SPACE.sub(" ", text).strip()
    if not text:
        return []
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def is_prose(unit: str, min_words: int = 4) -> bool:
    """A sentence of running text: at least ``min_words`` words, mostly letters, ending like a sentence."""
    words = unit.split()
    if len(words) < min_words or unit[-1] not in ".!?\"')":
        return False
    letters = sum(c.isalpha() or c.isspace() for c in unit)
    return letters >= 0.8 * len(unit)


def _paragraphs(lines: Iterable[str]) -> Iterator[str]:
    block: list[str] = []
    for line in lines:
        if line.strip():
            block.append(line.strip())
        elif block:
            yield " ".join(block)
            block = []
    if block:
        yield " ".join(block)


def _prose_units(paragraphs: Iterable[str]) -> Iterator[str]:
    for para in paragraphs:
        for unit in sentences(para):
            if is_prose(unit):
                yield unit


def _require(path: Path, provider: str) -> Path:
    if not path.exists():
        raise SourceMissingError(f"{path} is missing: install {provider}.")
    return path


# --------------------------------------------------------------------------------------------- the sources
def _wordnet_glosses() -> Iterator[tuple[tuple[str, str], list[str]]]:
    """Each WordNet gloss whole and its definition (the parts that are not quoted examples, joined by "; ": the
    form in which STS12–14's OnWN and FNWN sentences hold a gloss), with the units cut from it: its definitions
    (split at ";", two words at least) and its quoted examples."""
    try:
        folder = wordnet_dir()
    except FileNotFoundError as exc:
        raise SourceMissingError(f"WordNet is missing: install Debian package wordnet-base ({exc})") from None
    for pos in ("noun", "verb", "adj", "adv"):
        path = folder / f"data.{pos}"
        for line in path.read_text(encoding="utf-8", errors="replace").split("\n"):
            if not line or line.startswith(" ") or " | " not in line:
                continue  # the licence header lines start with two spaces
            gloss = line.split(" | ", 1)[1].strip()
            units, definition = [], []
            for part in gloss.split(";"):
                part = part.strip()
                if not part:
                    continue
                if part.startswith('"'):
                    part = part.strip('"').strip()
                    if part:
                        units.append(part)
                    continue
                definition.append(part)
                if len(part.split()) >= 2:
                    units.append(part[0].upper() + part[1:] + ".")
            yield (gloss, "; ".join(definition)), units


def _wordnet() -> Iterator[str]:
    for _, units in _wordnet_glosses():
        yield from units


def _texts(dataset, column: str = "text") -> Iterator[str]:
    for text in dataset[column][:]:
        yield from sentences(str(text))


def _wiki() -> Iterator[str]:
    yield from _texts(load_wiki())


def _mrpc_train() -> Iterator[str]:
    ds = load_mrpc("train")
    for a, b in zip(ds["sentence1"][:], ds["sentence2"][:]):
        yield from sentences(a)
        yield from sentences(b)


def _goemotions_train() -> Iterator[str]:
    yield from _texts(load_goemotions("train"))


def _emolit_train() -> Iterator[str]:
    yield from _texts(load_emolit("train"))


def _emobank_train() -> Iterator[str]:
    for text in load_emobank("train")["text"]:
        yield from sentences(str(text))


_RST_ROLE = re.compile(r":[a-z:]+:`~?!?([^`<]*?)(?:\s*<[^>]*>)?`")
_RST_LINK = re.compile(r"`([^`<]+?)\s*<[^>]*>`__?")
_RST_MARKUP = re.compile(r"``|\*\*|(?<!\w)\*(?=\w)|(?<=\w)\*(?!\w)|`_?_?")
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")
_BULLET = re.compile(r"^(?:[*\-+]|#\.|\d+\.)\s+")


def _rst_paragraphs(text: str) -> Iterator[str]:
    """Paragraphs of running text of a reStructuredText file: unindented lines (and list items), no directives,
    literal blocks, tables, titles or doctests; roles and inline markup reduced to their text."""
    lines = []
    for line in text.split("\n"):
        if not line.strip():
            lines.append("")
            continue
        if line[0].isspace() or line.startswith((".. ", ">>>", "|", "+-", "+=")) or _UNDERLINE.match(line):
            lines.append("")
            continue
        line = _BULLET.sub("", line)
        lines.append(line)
    for para in _paragraphs(lines):
        para = _RST_ROLE.sub(r"\1", para)
        para = _RST_LINK.sub(r"\1", para)
        para = _RST_MARKUP.sub("", para)
        yield para.replace("::", ":")


def _python_docs() -> Iterator[str]:
    root = _require(PYTHON_DOCS, "Debian package python3.11-doc (apt-get install python3.11-doc)")
    for path in sorted(root.rglob("*.rst.txt")):
        yield from _prose_units(_rst_paragraphs(path.read_text(encoding="utf-8", errors="replace")))


def _gz_lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
        return fh.read().split("\n")


def _debian_reference() -> Iterator[str]:
    path = _require(DEBIAN_REFERENCE, "Debian package debian-reference-en (apt-get install debian-reference-en)")
    # the text edition indents prose by four spaces; listings, tables and shell sessions are indented further
    lines = [line[4:] if re.match(r"    [^\s$#|+]", line) else "" for line in _gz_lines(path)]
    yield from _prose_units(_paragraphs(lines))


def _gnu_standards() -> Iterator[str]:
    for path in GNU_STANDARDS:
        _require(path, "Debian package gnu-standards (apt-get install gnu-standards)")
    for path in GNU_STANDARDS:
        lines = [line if not line.startswith("     ") else "" for line in _gz_lines(path)]  # examples are indented
        yield from _prose_units(_paragraphs(lines))


def _fortunes() -> Iterator[str]:
    root = _require(FORTUNES / "fortunes", "Debian packages fortunes-min and fortunes (apt-get install fortunes)")
    root = root.parent
    for path in sorted(root.iterdir()):
        if not path.is_file() or path.suffix or path.name in _FORTUNES_SKIPPED:
            continue  # .dat / .u8 are indexes; off/ (offensive) is a folder and never read
        text = path.read_text(encoding="utf-8", errors="replace")
        for cookie in re.split(r"\n%\n", "\n" + text + "\n"):
            body = [line for line in cookie.split("\n") if line.strip() and not line.strip().startswith("--")]
            yield from _prose_units([html.unescape(" ".join(body))])


SOURCES: dict[str, Source] = {s.name: s for s in (
    Source("wordnet", "WordNet 3.0 licence (Princeton University)", "Debian package wordnet-base", _wordnet,
           groups=_wordnet_glosses),
    Source("wiki", "CC BY-SA (Wikipedia)", "the data mirror (wiki)", _wiki),
    Source("mrpc-train", "MSR data licence, research use", "the data mirror (mrpc)", _mrpc_train),
    Source("goemotions-train", "CC BY 4.0", "the data mirror (goemotions)", _goemotions_train),
    Source("emolit-train", "CC BY-SA 4.0", "the data mirror (emolit)", _emolit_train),
    Source("emobank-train", "CC BY-SA 4.0", "the data mirror (emobank)", _emobank_train),
    Source("python-docs", "PSF License (Python documentation)", "Debian package python3.11-doc", _python_docs),
    Source("debian-reference", "GPL-2+", "Debian package debian-reference-en", _debian_reference),
    Source("gnu-standards", "GFDL-1.3", "Debian package gnu-standards", _gnu_standards),
    Source("fortunes", "BSD (4.4BSD fortune data)", "Debian packages fortunes-min and fortunes", _fortunes),
)}


# --------------------------------------------------------------------------------------------- evaluation sets
def evaluation_texts() -> list[str]:
    """Every sentence an evaluation reads: all STS sets (STS12–16; STS-B and SICK, every split), MRPC test, SNLI
    dev/test, the transfer tasks (MR, CR, SUBJ, MPQA whole; TREC test; SST and SST5 dev/test), GoEmotions dev/test,
    Emolit test, EmoBank dev/test."""
    out: list[str] = []

    def pairs(ds, a="sentence1", b="sentence2"):
        out.extend(ds[a][:])
        out.extend(ds[b][:])

    for year in ("STS12", "STS13", "STS14", "STS15", "STS16"):
        pairs(data.load_sts(year))
    for split in ("train", "dev", "test"):
        pairs(data.load_stsb(split))
    for split in data.SICK_FILES:
        pairs(data.load_sick(split))
    pairs(data.load_mrpc("test"))
    for split in ("dev", "test"):
        pairs(data.load_snli(split), "premise", "hypothesis")
    for task in ("MR", "CR", "SUBJ", "MPQA"):
        out.extend(data.load_transfer(task, "all")["text"][:])
    out.extend(data.load_transfer("TREC", "test")["text"][:])
    for task in ("SST", "SST5"):
        for split in ("dev", "test"):
            out.extend(data.load_transfer(task, split)["text"][:])
    for split in ("dev", "test"):
        out.extend(data.load_goemotions(split)["text"][:])
    out.extend(data.load_emolit("test")["text"][:])
    for split in ("dev", "test"):
        out.extend(data.load_emobank(split)["text"].astype(str).tolist())
    return [t for t in out if t and t.strip()]


def evaluation_keys(texts: Sequence[str] | None = None) -> set[str]:
    """:func:`normalise` d evaluation texts (default: :func:`evaluation_texts`, read once per process and data
    folder) and each of their sentences (empty keys left out)."""
    if texts is None:
        return set(_default_keys(str(data_dir())))
    return _keys(texts)


@functools.lru_cache(maxsize=2)
def _default_keys(folder: str) -> frozenset[str]:
    return frozenset(_keys(evaluation_texts()))


def _keys(texts: Sequence[str]) -> set[str]:
    keys: set[str] = set()
    for text in texts:
        keys.add(normalise(text))
        keys.update(normalise(s) for s in sentences(text))
    keys.discard("")
    return keys


# --------------------------------------------------------------------------------------------- the build
@dataclass
class Corpus:
    """A built corpus: the file (one unit per line, ``#source <name>`` before each block) and its statistics."""

    path: Path
    stats: dict[str, dict]  # source -> {"licence", "units", "words", "dropped_eval", "dropped_duplicate"}
    sha256: str

    @property
    def words(self) -> int:
        return sum(s["words"] for s in self.stats.values())

    def blocks(self) -> Iterator[tuple[str, list[str]]]:
        """``(source, units)`` in file order."""
        name, units = None, []
        for line in self.path.read_text(encoding="utf-8").split("\n"):
            if line.startswith("#source "):
                if name is not None:
                    yield name, units
                name, units = line[len("#source "):], []
            elif line:
                units.append(line)
        if name is not None:
            yield name, units


def build_units(names: Sequence[str], limit: int | None = None, eval_keys: set[str] | None = None,
                decontamination: str = "exact") -> tuple[dict[str, list[str]], dict[str, dict]]:
    """Units of each named source in order, de-duplicated over all sources, evaluation sentences removed by the
    ``decontamination`` rule of :mod:`companion.mlm.decontaminate` (``"exact"`` or ``"near-duplicate"``); ``limit``
    keeps the first ``limit`` units of each source (the smoke corpus). Each source's statistics: ``units``,
    ``words``, ``dropped_eval`` (units dropped as evaluation text), ``dropped_duplicate``; under
    ``"near-duplicate"`` also ``dropped_eval_words`` and ``dropped_by`` (units per rule: ``exact``, ``8-gram``,
    ``containment``, ``whole text``: cut from a larger text that matched)."""
    unknown = [n for n in names if n not in SOURCES]
    if unknown:
        raise ValueError(f"Unknown corpus source(s) {', '.join(unknown)}; valid: {', '.join(SOURCES)}.")
    near = check_rule(decontamination) == "near-duplicate"
    keys = evaluation_keys() if eval_keys is None else eval_keys
    index = near_duplicate_index(keys if eval_keys is not None else None) if near else None
    seen: set[str] = set()
    blocks: dict[str, list[str]] = {}
    stats: dict[str, dict] = {}
    for name in names:
        src = SOURCES[name]
        kept: list[str] = []
        dropped_eval = dropped_dup = dropped_words = 0
        dropped_by: dict[str, int] = {}
        if near and src.groups is not None:
            grouped = ((any(index.match(normalise(w)) for w in wholes), units) for wholes, units in src.groups())
        else:
            grouped = ((None, [unit]) for unit in src.read())
        for whole_match, units in grouped:
            for unit in units:
                unit = _SPACE.sub(" ", unit).strip()
                key = normalise(unit)
                if not key:
                    continue
                if near:
                    rule = "whole text" if whole_match else index.match(key)
                    hit = rule is not None
                else:
                    rule, hit = "exact", key in keys
                if hit:
                    dropped_eval += 1
                    dropped_words += len(unit.split())
                    dropped_by[rule] = dropped_by.get(rule, 0) + 1
                    continue
                if key in seen:
                    dropped_dup += 1
                    continue
                seen.add(key)
                kept.append(unit)
                if limit is not None and len(kept) >= limit:
                    break
            if limit is not None and len(kept) >= limit:
                break
        blocks[name] = kept
        stats[name] = {"licence": src.licence, "provider": src.provider, "units": len(kept),
                       "words": sum(len(u.split()) for u in kept), "dropped_eval": dropped_eval,
                       "dropped_duplicate": dropped_dup}
        if near:
            stats[name].update(dropped_eval_words=dropped_words, dropped_by=dict(sorted(dropped_by.items())))
    return blocks, stats


def near_duplicate_index(keys: set[str] | None = None):
    """A :class:`~companion.mlm.decontaminate.NearDuplicateIndex` of ``keys`` (default: :func:`evaluation_keys`,
    built once per process and data folder)."""
    if keys is None:
        return _default_index(str(data_dir()))
    return NearDuplicateIndex(keys)


@functools.lru_cache(maxsize=1)
def _default_index(folder: str):
    return NearDuplicateIndex(_default_keys(folder))


def build_corpus(names: Sequence[str], limit: int | None = None, root: Path | None = None,
                 decontamination: str = "exact") -> Corpus:
    """Build (or reuse) the corpus of ``names`` in ``root`` (default ``cache_dir()/mlm``) with the
    ``decontamination`` rule of :func:`build_units`; deterministic. The rule is part of the cache key except for
    ``"exact"``, the rule of every corpus built before the rule was a setting, whose key is unchanged."""
    root = Path(root) if root is not None else cache_dir() / "mlm"
    recipe = {"sources": list(names), "limit": limit, "version": CORPUS_VERSION}
    if check_rule(decontamination) != "exact":
        recipe["decontamination"] = decontamination
    key = cache_key(recipe)
    path = root / f"corpus-{key}.txt"
    meta = root / f"corpus-{key}.json"
    if path.is_file() and meta.is_file():
        info = json.loads(meta.read_text(encoding="utf-8"))
        if info.get("sha256") == _sha256(path):
            return Corpus(path, info["stats"], info["sha256"])
    blocks, stats = build_units(names, limit, decontamination=decontamination)
    text = "".join(f"#source {name}\n" + "".join(u + "\n" for u in units) for name, units in blocks.items())
    write_atomic(path, lambda fh: fh.write(text.encode("utf-8")))
    digest = _sha256(path)
    write_atomic(meta, lambda fh: fh.write(json.dumps({"sha256": digest, "stats": stats}, indent=1).encode()))
    return Corpus(path, stats, digest)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
