"""Loaders for the mirrored data sets, parsing the upstream file formats exactly.

Every path comes from :func:`companion.settings.data_file` (root: ``COMPANION_DATA_DIR``); a missing file raises
:class:`companion.settings.DataNotFoundError` naming the file and the setting. Loaders return
``datasets.Dataset`` objects unless noted; class labels of the classification sets are ``ClassLabel`` features
(``ds.features["label"].names``) and also listed in :data:`LABEL_NAMES`.

=================  ============================================================  ===============================================  =====================
data set           files (under ``COMPANION_DATA_DIR``)                          columns                                          licence / terms
=================  ============================================================  ===============================================  =====================
sts12 … sts16      ``senteval/downstream/STS/STS1x-en-test/STS.{input,gs}.*.txt``  sentence1, sentence2, score (0–5), subset         SemEval terms, research
stsb               ``senteval/downstream/STS/STSBenchmark/sts-{split}.csv``      sentence1, sentence2, score (0–5), genre         see its LICENSE.txt
sick               ``senteval/downstream/SICK/SICK_{train,trial,test_annotated}``  sentence1, sentence2, score (1–5), label        CC BY-NC-SA 3.0
mrpc               ``senteval/downstream/MRPC/msr_paraphrase_{train,test}.txt``  sentence1, sentence2, label (0/1)                MSR data licence
snli               ``senteval/downstream/SNLI/{s1,s2,labels}.{dev,test}``        premise, hypothesis, label (str)                 CC BY-SA 4.0
mr cr subj mpqa    ``senteval/downstream/{MR,CR,SUBJ,MPQA}/*``                   text, label (ClassLabel)                         upstream, research
trec               ``senteval/downstream/TREC/{train_5500,TREC_10}.label``       text, label (6 coarse classes)                   upstream, research
sst (sst5)         ``senteval/downstream/SST/{binary,fine}/sentiment-{split}``   text, label                                      upstream, research
wiki               ``wiki/wiki1m_for_simcse.head.txt``                           text                                             CC BY-SA (Wikipedia)
emolit             ``emolit/emolit_12labels_{train,test}.csv``                   text, label (str, 12 ECM labels)                 CC BY-SA 4.0
goemotions         ``goemotions/{train,dev,test}.tsv``, ``emotions.txt``         text, labels (list[int]), label_names, id        CC BY 4.0
emobank            ``emobank/emobank.csv``                                       pandas: id, split, V, A, D (1–5), text           CC BY-SA 4.0
digits             scikit-learn ``load_digits`` (ships with the package)         (images n×8×8 float, labels int)                 BSD (scikit-learn)
wordnet            ``/usr/share/wordnet`` or ``COMPANION_WORDNET_DIR`` or NLTK   ``WordNetCorpusReader`` (see companion.wordnet)  WordNet licence
=================  ============================================================  ===============================================  =====================

Row counts of the mirror: STS12–16 3108 / 1500 / 3750 / 3000 / 1186 pairs with gold; STS-B 5749 / 1500 / 1379;
SICK 4500 / 500 / 4927; MRPC 4076 / 1725; SNLI dev/test 9842 / 9824; wiki 11,914; Emolit 6000 / 1200;
GoEmotions 43,410 / 5,426 / 5,427; EmoBank 10,062; digits 1,797.

All text files are split on ``"\\n"`` only (a trailing ``"\\r"`` is removed), never with ``str.splitlines`` (which
also breaks on ``\\x1c``, ``\\x85``, ``\\u2028`` …), and fields on tabs only, never with CSV quoting — except
Emolit and EmoBank, which upstream are real CSV files, and GoEmotions, whose TSV quotes a text field that
starts with ``"`` (CSV style, ``""`` for a quote) and is read with :mod:`csv` like upstream's ``pd.read_csv``.

There is no Hugging Face hub fallback: every loader reads the mirror only, except the gpu profile's whole files, which
the mirror holds only a head or no part of (``python -m companion data fetch --only wiki-full,snli-train,mnli-train``
downloads them): ``load_wiki(full=True)`` and :func:`load_nli_train` (``nli/snli_1.0_train.jsonl``,
``nli/multinli_1.0_train.jsonl``: premise, hypothesis, label), each refusing a file without its publishers' count.

Kept whole because every loader does the one job of parsing a mirrored upstream format, and the table above,
:data:`LABEL_NAMES` and the :data:`DATASETS` registry index all of them in one place.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from companion import settings as _settings
from companion.fetch import verified
from companion.settings import DataCorruptError, DataNotFoundError, data_dir
from companion.wordnet import wordnet, wordnet_cntlist_path, wordnet_sense_counts

__all__ = [
    "DATASETS",
    "LABEL_NAMES",
    "STS_SUBSETS",
    "GOEMOTIONS_EKMAN_MAPPING",
    "load_dataset",
    "load_sts",
    "load_stsb",
    "load_sick",
    "load_mrpc",
    "load_snli",
    "load_transfer",
    "load_wiki",
    "load_nli_train",
    "load_emolit",
    "load_goemotions",
    "goemotions_label_names",
    "goemotions_ekman_labels",
    "load_emobank",
    "load_digits",
    "wordnet",
    "wordnet_cntlist_path",
    "wordnet_sense_counts",
]

SENTEVAL = ("senteval", "downstream")

#: SentEval's subset lists (``senteval/sts.py``); STS13's SMT subset is not distributed.
STS_SUBSETS: dict[str, tuple[str, ...]] = {
    "STS12": ("MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"),
    "STS13": ("FNWN", "headlines", "OnWN"),
    "STS14": ("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news"),
    "STS15": ("answers-forums", "answers-students", "belief", "headlines", "images"),
    "STS16": ("answer-answer", "headlines", "plagiarism", "postediting", "question-question"),
}

#: Integer label -> name, following SentEval's encodings (``label`` columns are ``ClassLabel`` with these names).
LABEL_NAMES: dict[str, tuple[str, ...]] = {
    "MR": ("negative", "positive"),  # rt-polarity.pos -> 1
    "CR": ("negative", "positive"),  # custrev.pos -> 1
    "SUBJ": ("subjective", "objective"),  # SentEval passes subj.objective as its "pos" class -> 1
    "MPQA": ("negative", "positive"),  # mpqa.pos -> 1
    "TREC": ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"),  # SentEval's tgt2idx
    "SST": ("negative", "positive"),
    "SST5": ("very negative", "negative", "neutral", "positive", "very positive"),
    "MRPC": ("not_paraphrase", "paraphrase"),
}

EMOLIT_LABELS = (
    "love",
    "joy",
    "excitement",
    "surprise",
    "anger",
    "fear",
    "disgust",
    "sadness",
    "boredom",
    "calmness",
    "relief",
    "trust",
)

#: GoEmotions' Ekman grouping (Demszky et al. 2020, ``ekman_mapping.json`` upstream; the mirror ships only
#: ``ekman_labels.txt``). ``neutral`` maps to itself.
GOEMOTIONS_EKMAN_MAPPING: dict[str, tuple[str, ...]] = {
    "anger": ("anger", "annoyance", "disapproval"),
    "disgust": ("disgust",),
    "fear": ("fear", "nervousness"),
    "joy": (
        "joy",
        "amusement",
        "approval",
        "excitement",
        "gratitude",
        "love",
        "optimism",
        "relief",
        "pride",
        "admiration",
        "desire",
        "caring",
    ),
    "sadness": ("sadness", "disappointment", "embarrassment", "grief", "remorse"),
    "surprise": ("surprise", "realization", "confusion", "curiosity"),
}


# ----------------------------------------------------------------------------------------------------------------
# helpers


def data_file(*parts: str, dataset: str | None = None) -> Path:
    """The mirror's file ``parts`` (:func:`companion.settings.data_file`: missing is a clear error), verified against
    the manifest once per process (:func:`companion.fetch.verified`: damaged is a clear error)."""
    return verified(_settings.data_file(*parts, dataset=dataset))


def _read_lines(path: Path, encoding: str = "utf-8") -> list[str]:
    """Lines of a text file, split on ``\\n`` only; a final newline does not make an extra empty line.
    Bytes that are not ``encoding`` are an error naming the file."""
    try:
        text = path.read_text(encoding=encoding)
    except UnicodeDecodeError as exc:
        raise DataCorruptError(f"{path} is not {encoding} text (byte {exc.start:,}): `python -m companion data "
                               f"check` lists every damaged file") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _check_split(dataset: str, split: str | None, valid: tuple[str, ...]) -> str:
    if split not in valid:
        raise ValueError(f"Unknown split {split!r} for {dataset}; valid splits: {', '.join(valid)}.")
    return split


def _dataset(columns: dict[str, list], features: dict[str, Any] | None = None):
    import datasets  # noqa: PLC0415 - datasets is heavy; this module imports without it

    if features is not None:
        feats = datasets.Features({name: features.get(name, datasets.Value("string")) for name in columns})
        return datasets.Dataset.from_dict(columns, features=feats)
    return datasets.Dataset.from_dict(columns)


def _class_label(names: tuple[str, ...]):
    import datasets  # noqa: PLC0415 - datasets is heavy; this module imports without it

    return datasets.ClassLabel(names=list(names))


def _float():
    import datasets  # noqa: PLC0415 - datasets is heavy; this module imports without it

    return datasets.Value("float64")


def _int():
    import datasets  # noqa: PLC0415 - datasets is heavy; this module imports without it

    return datasets.Value("int64")


# ----------------------------------------------------------------------------------------------------------------
# STS


def _sts_year(year: str | int) -> str:
    key = str(year).strip().upper()
    if key.isdigit():
        key = f"STS{int(key) % 100:02d}"
    if key not in STS_SUBSETS:
        raise ValueError(f"Unknown STS year {year!r}; valid: {', '.join(STS_SUBSETS)}.")
    return key


def load_sts(year: str | int):
    """SemEval STS 2012–2016 test sets (SentEval layout), pairs with a gold score only.

    ``year``: ``"STS12"`` … ``"STS16"`` (also ``"sts14"``, ``2014``, ``14``).
    Columns: ``sentence1`` (str), ``sentence2`` (str), ``score`` (float, 0–5), ``subset`` (SentEval subset name).
    Subsets follow SentEval's lists (:data:`STS_SUBSETS`), in that order; within a subset, file order.
    ``STS.input.<subset>.txt`` holds two tab-separated sentences a line and ``STS.gs.<subset>.txt`` one gold score
    a line; an empty gold line means "no gold" and the pair is skipped (STS15/16 have many).
    Counts: 3108 / 1500 / 3750 / 3000 / 1186.
    """
    key = _sts_year(year)
    folder = (*SENTEVAL, "STS", f"{key}-en-test")
    cols: dict[str, list] = {"sentence1": [], "sentence2": [], "score": [], "subset": []}
    for subset in STS_SUBSETS[key]:
        inp = data_file(*folder, f"STS.input.{subset}.txt", dataset=key)
        gs = data_file(*folder, f"STS.gs.{subset}.txt", dataset=key)
        pairs, golds = _read_lines(inp), _read_lines(gs)
        if len(pairs) != len(golds):
            raise ValueError(f"{inp} has {len(pairs)} lines but {gs} has {len(golds)}.")
        for lineno, (pair, gold) in enumerate(zip(pairs, golds), start=1):
            if not gold.strip():
                continue
            fields = pair.split("\t")
            if len(fields) < 2:
                raise ValueError(
                    f"{inp}:{lineno}: expected two tab-separated sentences, got {len(fields)} field(s)."
                )
            cols["sentence1"].append(fields[0].strip())
            cols["sentence2"].append(fields[1].strip())
            cols["score"].append(float(gold))
            cols["subset"].append(subset)
    return _dataset(cols, {"score": _float()})


def load_stsb(split: str = "test"):
    """STS Benchmark (SentEval copy) ``train`` / ``dev`` / ``test``: 5749 / 1500 / 1379 pairs.

    ``sts-{split}.csv`` is tab-separated without header or quoting: genre, file, year, id, score, sentence1,
    sentence2 (some upstream copies add trailing fields with the source; only the first 7 are used).
    Columns: ``sentence1``, ``sentence2``, ``score`` (float, 0–5), ``genre``.
    """
    _check_split("stsb", split, ("train", "dev", "test"))
    path = data_file(*SENTEVAL, "STS", "STSBenchmark", f"sts-{split}.csv", dataset="stsb")
    cols: dict[str, list] = {"sentence1": [], "sentence2": [], "score": [], "genre": []}
    for lineno, line in enumerate(_read_lines(path), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 7:
            raise ValueError(f"{path}:{lineno}: expected >= 7 tab-separated fields, got {len(fields)}.")
        genre, _file, _year, _id, score, s1, s2 = fields[:7]
        cols["sentence1"].append(s1.strip())
        cols["sentence2"].append(s2.strip())
        cols["score"].append(float(score))
        cols["genre"].append(genre)
    return _dataset(cols, {"score": _float()})


# ----------------------------------------------------------------------------------------------------------------
# SICK, MRPC, SNLI


SICK_FILES = {"train": "SICK_train.txt", "trial": "SICK_trial.txt", "test": "SICK_test_annotated.txt"}


def load_sick(split: str = "test"):
    """SICK ``train`` / ``trial`` / ``test`` (file ``SICK_test_annotated.txt``): 4500 / 500 / 4927 pairs.

    Tab-separated with header ``pair_ID sentence_A sentence_B relatedness_score entailment_judgment``
    (the test file has CRLF line ends). Columns: ``sentence1``, ``sentence2``, ``score`` (relatedness, float
    1–5), ``label`` (entailment judgment: ``"ENTAILMENT"``, ``"NEUTRAL"`` or ``"CONTRADICTION"``, as in the file).
    """
    _check_split("sick", split, tuple(SICK_FILES))
    path = data_file(*SENTEVAL, "SICK", SICK_FILES[split], dataset="sick")
    lines = _read_lines(path)
    if not lines or not lines[0].startswith("pair_ID"):
        raise ValueError(f"{path}: expected a header line starting with 'pair_ID'.")
    cols: dict[str, list] = {"sentence1": [], "sentence2": [], "score": [], "label": []}
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 5:
            raise ValueError(f"{path}:{lineno}: expected 5 tab-separated fields, got {len(fields)}.")
        cols["sentence1"].append(fields[1].strip())
        cols["sentence2"].append(fields[2].strip())
        cols["score"].append(float(fields[3]))
        cols["label"].append(fields[4].strip())
    return _dataset(cols, {"score": _float()})


def load_mrpc(split: str = "test"):
    """Microsoft Research Paraphrase Corpus ``train`` / ``test``: 4076 / 1725 pairs.

    ``msr_paraphrase_{split}.txt``: UTF-8 with BOM, tab-separated, header ``Quality #1 ID #2 ID #1 String
    #2 String``, no quoting (sentences contain ``"``). Columns: ``sentence1``, ``sentence2``, ``label``
    (``ClassLabel``: 0 = not_paraphrase, 1 = paraphrase).
    """
    _check_split("mrpc", split, ("train", "test"))
    path = data_file(*SENTEVAL, "MRPC", f"msr_paraphrase_{split}.txt", dataset="mrpc")
    lines = _read_lines(path, encoding="utf-8-sig")
    if not lines or not lines[0].startswith("Quality"):
        raise ValueError(f"{path}: expected a header line starting with 'Quality'.")
    cols: dict[str, list] = {"sentence1": [], "sentence2": [], "label": []}
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 5:
            raise ValueError(f"{path}:{lineno}: expected 5 tab-separated fields, got {len(fields)}.")
        cols["label"].append(int(fields[0]))
        cols["sentence1"].append(fields[3].strip())
        cols["sentence2"].append(fields[4].strip())
    return _dataset(cols, {"label": _class_label(LABEL_NAMES["MRPC"])})


def load_snli(split: str = "test"):
    """SNLI ``dev`` / ``test`` (SentEval copy; train is not mirrored): 9842 / 9824 pairs.

    Line-aligned ``s1.{split}``, ``s2.{split}``, ``labels.{split}``. Columns: ``premise``, ``hypothesis``,
    ``label`` (``"entailment"`` / ``"neutral"`` / ``"contradiction"``). Pairs labelled ``"-"`` (no annotator
    majority) would be dropped; SentEval's files hold none, so the counts equal the file line counts.
    """
    _check_split("snli", split, ("dev", "test"))
    paths = [
        data_file(*SENTEVAL, "SNLI", f"{kind}.{split}", dataset="snli") for kind in ("s1", "s2", "labels")
    ]
    s1, s2, labels = (_read_lines(p) for p in paths)
    if not len(s1) == len(s2) == len(labels):
        raise ValueError(f"SNLI {split}: s1/s2/labels have {len(s1)}/{len(s2)}/{len(labels)} lines.")
    cols: dict[str, list] = {"premise": [], "hypothesis": [], "label": []}
    for a, b, label in zip(s1, s2, labels):
        label = label.strip()
        if label == "-":
            continue
        cols["premise"].append(a.strip())
        cols["hypothesis"].append(b.strip())
        cols["label"].append(label)
    return _dataset(cols)


# ----------------------------------------------------------------------------------------------------------------
# SentEval transfer tasks

_BINARY_FILES = {
    # task: (folder, file of label 1, file of label 0), SentEval's BinaryClassifierEval(pos, neg) order
    "MR": ("MR", "rt-polarity.pos", "rt-polarity.neg"),
    "CR": ("CR", "custrev.pos", "custrev.neg"),
    "SUBJ": ("SUBJ", "subj.objective", "subj.subjective"),
    "MPQA": ("MPQA", "mpqa.pos", "mpqa.neg"),
}
TRANSFER_SPLITS: dict[str, tuple[str, ...]] = {
    "MR": ("all",),
    "CR": ("all",),
    "SUBJ": ("all",),
    "MPQA": ("all",),
    "TREC": ("train", "test"),
    "SST": ("train", "dev", "test"),
    "SST5": ("train", "dev", "test"),
}


def load_transfer(task: str, split: str | None = None, drop_empty: bool = False):
    """A SentEval transfer classification task. Columns: ``text`` (str), ``label`` (``ClassLabel``, int).

    ``task`` (case-insensitive) and ``split``:

    * ``MR`` / ``CR`` / ``SUBJ`` / ``MPQA`` (no split; ``"all"``): positive file -> 1, negative file -> 0, read as
      latin-1 like SentEval, positives first. SUBJ: ``subj.objective`` -> 1 (``objective``), ``subj.subjective``
      -> 0. Counts 10662 / 3775 / 10000 / 10606. SentEval keeps the empty lines of CR (2 + 2) and MPQA (1 + 2)
      and so does this loader unless ``drop_empty=True``.
    * ``TREC`` ``train`` (``train_5500.label``, 5452) / ``test`` (``TREC_10.label``, 500), latin-1: the coarse
      label before ``:`` (ABBR, DESC, ENTY, HUM, LOC, NUM -> 0…5), the text after the fine label.
    * ``SST`` binary ``train`` / ``dev`` / ``test`` (``SST/binary/sentiment-*``, UTF-8, ``text<TAB>label``):
      67349 / 872 / 1821 (train holds phrases). ``SST5``: ``SST/fine``, ``label text``, 8544 / 1101 / 2210.

    Label names: ``ds.features["label"].names`` (= :data:`LABEL_NAMES` ``[task]``).
    """
    key = str(task).strip().upper()
    if key not in TRANSFER_SPLITS:
        raise ValueError(f"Unknown transfer task {task!r}; valid: {', '.join(TRANSFER_SPLITS)}.")
    valid = TRANSFER_SPLITS[key]
    if split is None:
        split = "all" if valid == ("all",) else "test"
    _check_split(key, split, valid)
    texts: list[str] = []
    labels: list[int] = []
    if key in _BINARY_FILES:
        folder, pos_file, neg_file = _BINARY_FILES[key]
        for fname, label in ((pos_file, 1), (neg_file, 0)):
            for line in _read_lines(data_file(*SENTEVAL, folder, fname, dataset=key), encoding="latin-1"):
                texts.append(line.strip())
                labels.append(label)
    elif key == "TREC":
        fname = "train_5500.label" if split == "train" else "TREC_10.label"
        path = data_file(*SENTEVAL, "TREC", fname, dataset=key)
        names = LABEL_NAMES["TREC"]
        for lineno, line in enumerate(_read_lines(path, encoding="latin-1"), start=1):
            if not line.strip():
                continue
            coarse, rest = line.strip().split(":", 1)
            if coarse not in names or " " not in rest:
                raise ValueError(f"{path}:{lineno}: expected 'COARSE:fine question', got {line[:60]!r}.")
            texts.append(rest.split(" ", 1)[1].strip())
            labels.append(names.index(coarse))
    else:
        sub = "binary" if key == "SST" else "fine"
        path = data_file(*SENTEVAL, "SST", sub, f"sentiment-{split}", dataset=key)
        for lineno, line in enumerate(_read_lines(path), start=1):
            if not line.strip():
                continue
            if key == "SST":
                text, _, label = line.strip().rpartition("\t")
            else:
                label, _, text = line.strip().partition(" ")
            if not label.isdigit():
                raise ValueError(f"{path}:{lineno}: no integer label in {line[:60]!r}.")
            texts.append(text.strip())
            labels.append(int(label))
    if drop_empty:
        kept = [i for i, t in enumerate(texts) if t]
        texts, labels = [texts[i] for i in kept], [labels[i] for i in kept]
    return _dataset({"text": texts, "label": labels}, {"label": _class_label(LABEL_NAMES[key])})


# ----------------------------------------------------------------------------------------------------------------
# unlabelled text, emotions


#: The whole of SimCSE's ``wiki1m_for_simcse.txt`` (not in the mirror; ``data fetch --only wiki-full``) and the number
#: of sentences its publishers state: 10^6 (SimACE §4.1 "English Wikipedia (10^6)", SimCSE's "1M" sentences).
WIKI_FULL = ("wiki", "wiki1m_for_simcse.txt")
WIKI_FULL_LINES = 1_000_000


def count_lines(raw: bytes) -> int:
    """Lines of a text file's bytes: newline-terminated lines, plus a last line without its newline."""
    return raw.count(b"\n") + (1 if raw and not raw.endswith(b"\n") else 0)


#: The NLI training splits the gpu profile of AnglE's transfer setting reads whole (AnglE §4.3: MNLI and SNLI; not in
#: the mirror, ``data fetch --only snli-train,mnli-train``), each with the number of pairs its publishers state.
NLI_TRAIN = {"snli": (("nli", "snli_1.0_train.jsonl"), 550_152),
             "mnli": (("nli", "multinli_1.0_train.jsonl"), 392_702)}
NLI_LABELS = ("entailment", "neutral", "contradiction")


def load_nli_train(corpus: str):
    """The whole training split of ``corpus`` (``"snli"``: SNLI 1.0, ``"mnli"``: MultiNLI 1.0), as its publishers
    distribute it (one JSON object a line). Columns: ``premise``, ``hypothesis``, ``label`` (the gold label:
    ``"entailment"`` / ``"neutral"`` / ``"contradiction"``; SNLI's pairs without an annotator majority, ``"-"``, are
    dropped). A missing file, or one without the publishers' line count (a subset or a cut download), is an error
    naming the fix: the gpu profile never trains on part of it."""

    if corpus not in NLI_TRAIN:
        raise ValueError(f"corpus must be one of {', '.join(NLI_TRAIN)}, got {corpus!r}.")
    rel, stated = NLI_TRAIN[corpus]
    raw = _whole_file(rel, f"{corpus}-train", f"the {corpus.upper()} training split", stated,
                      "pairs its publishers state")
    cols: dict[str, list] = {"premise": [], "hypothesis": [], "label": []}
    for line in raw.decode("utf-8").split("\n"):
        if not line.strip():
            continue
        record = json.loads(line)
        if record["gold_label"] not in NLI_LABELS:
            continue
        cols["premise"].append(record["sentence1"])
        cols["hypothesis"].append(record["sentence2"])
        cols["label"].append(record["gold_label"])
    return _dataset(cols)


def _whole_file(rel, dataset: str, what: str, stated: int, unit: str) -> bytes:
    """The bytes of a file the gpu profile reads whole (never the mirror's head): a missing file, or one without the
    ``stated`` lines its publishers give (a subset or a cut download), is an error naming the fetch that fixes it."""
    path = data_dir().joinpath(*rel)
    fix = f"`python -m companion data fetch --only {dataset}` downloads it whole"
    if not path.is_file():
        raise DataNotFoundError(f"Missing data file for data set '{dataset}': {path} ({what}, which the mirror does "
                                f"not hold); {fix}.")
    raw = path.read_bytes()
    found = count_lines(raw)
    if found != stated:
        raise DataNotFoundError(f"{path} has {found:,} lines, not the {stated:,} {unit}: a subset or a cut download, "
                                f"not the training set; {fix}.")
    return raw


def load_wiki(n: int | None = None, full: bool = False):
    """SimCSE's unsupervised Wikipedia sentences. Column: ``text``.

    Default: the mirror's first 11,914 lines. The mirrored file is a byte-truncated head (exactly 1,280,000 bytes):
    its last, unterminated fragment is not a sentence and is dropped; only newline-terminated lines count.

    ``full=True`` (the gpu profile) reads the whole file, ``wiki/wiki1m_for_simcse.txt`` (``python -m companion data
    fetch --only wiki-full`` downloads it), and never the head: a missing file, or one that does not hold the
    publishers' :data:`WIKI_FULL_LINES` lines (a head or a cut download), is an error naming the fix. Blank lines
    are counted but not returned.

    ``n`` keeps the first ``n`` sentences.
    """
    if full:
        raw = _whole_file(WIKI_FULL, "wiki-full", "the whole of SimCSE's wiki1m_for_simcse.txt", WIKI_FULL_LINES,
                          "sentences SimCSE publishes")
        lines = [line.rstrip("\r") for line in raw.decode("utf-8").split("\n")]
        lines = [line for line in lines if line.strip()]
        if n is not None:
            if n < 0:
                raise ValueError(f"n must be >= 0, got {n}.")
            lines = lines[:n]
        return _dataset({"text": lines})
    path = data_file("wiki", "wiki1m_for_simcse.head.txt", dataset="wiki")
    raw = path.read_bytes()
    end = raw.rfind(b"\n")
    raw = raw[: end + 1] if end >= 0 else b""
    lines = [line.rstrip("\r") for line in raw.decode("utf-8").split("\n")[:-1]]
    if n is not None:
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}.")
        lines = lines[:n]
    return _dataset({"text": lines})


def load_emolit(split: str = "train"):
    """Emolit, 12-label balanced subset (``emolit_12labels_{train,test}.csv``, CSV ``text,sentiment``).

    Columns: ``text``, ``label`` (str, one of :data:`EMOLIT_LABELS`). 500 / 100 per label: 6000 / 1200.
    """
    _check_split("emolit", split, ("train", "test"))
    path = data_file("emolit", f"emolit_12labels_{split}.csv", dataset="emolit")
    df = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    unknown = sorted(set(df["sentiment"]) - set(EMOLIT_LABELS))
    if unknown:
        raise ValueError(f"{path}: unexpected labels {unknown}.")
    return _dataset({"text": df["text"].tolist(), "label": df["sentiment"].tolist()})


def goemotions_label_names() -> list[str]:
    """The 28 GoEmotions labels (27 emotions + ``neutral``) in id order, from ``goemotions/emotions.txt``."""
    path = data_file("goemotions", "emotions.txt", dataset="goemotions")
    return [line.strip() for line in _read_lines(path) if line.strip()]


def goemotions_ekman_labels() -> list[str]:
    """Ekman's 6 emotions + ``neutral`` as listed in ``goemotions/ekman_labels.txt``.

    The grouping of the 27 fine labels into these is :data:`GOEMOTIONS_EKMAN_MAPPING`.
    """
    path = data_file("goemotions", "ekman_labels.txt", dataset="goemotions")
    return [line.strip() for line in _read_lines(path) if line.strip()]


def load_goemotions(split: str = "train"):
    """GoEmotions ``train`` / ``dev`` / ``test`` (43,410 / 5,426 / 5,427 Reddit comments).

    ``{split}.tsv``: no header; text, comma-separated label ids, comment id. Read with :mod:`csv` (tab delimiter)
    like upstream's ``pd.read_csv``: a text starting with ``"`` is CSV-quoted with ``""`` for a quote (1,097
    train lines). Columns: ``text``, ``labels`` (list[int], ids < 28), ``label_names`` (list[str]), ``id``.
    """
    _check_split("goemotions", split, ("train", "dev", "test"))
    names = goemotions_label_names()
    path = data_file("goemotions", f"{split}.tsv", dataset="goemotions")
    cols: dict[str, list] = {"text": [], "labels": [], "label_names": [], "id": []}
    with open(path, encoding="utf-8", newline="") as fh:
        for lineno, row in enumerate(csv.reader(fh, delimiter="\t"), start=1):
            if not row:
                continue
            if len(row) != 3:
                raise ValueError(f"{path}:{lineno}: expected 3 tab-separated fields, got {len(row)}.")
            text, ids, cid = row
            labels = [int(i) for i in ids.split(",")]
            if any(not 0 <= i < len(names) for i in labels):
                raise ValueError(f"{path}:{lineno}: label id out of range in {ids!r}.")
            cols["text"].append(text)
            cols["labels"].append(labels)
            cols["label_names"].append([names[i] for i in labels])
            cols["id"].append(cid)
    import datasets  # noqa: PLC0415 - datasets is heavy; this module imports without it

    return _dataset(
        cols,
        {"labels": datasets.Sequence(_int()), "label_names": datasets.Sequence(datasets.Value("string"))},
    )


def load_emobank(split: str | None = None):
    """EmoBank (``emobank/emobank.csv``) as a **pandas DataFrame**: ``id``, ``split``, ``V``, ``A``, ``D``, ``text``.

    V/A/D: valence, arousal, dominance on 1–5 (weighted reader/writer average). 10,062 rows; ``split`` column
    ``train`` / ``dev`` / ``test`` = 8062 / 1000 / 1000; pass ``split`` to keep one of them.
    """
    if split is not None:
        _check_split("emobank", split, ("train", "dev", "test"))
    path = data_file("emobank", "emobank.csv", dataset="emobank")
    df = pd.read_csv(
        path,
        dtype={"id": str, "split": str, "text": str, "V": float, "A": float, "D": float},
        keep_default_na=False,
        encoding="utf-8",
    )
    df = df[["id", "split", "V", "A", "D", "text"]]
    if split is not None:
        df = df[df["split"] == split].reset_index(drop=True)
    return df


def load_digits():
    """scikit-learn's handwritten digits: ``(images, labels)``, images float64 (1797, 8, 8) in 0–16, labels int."""
    from sklearn.datasets import load_digits as _sk_digits  # noqa: PLC0415 - sklearn is heavy; this module imports without it

    bunch = _sk_digits()
    return bunch.images.astype("float64"), bunch.target.astype("int64")


# ----------------------------------------------------------------------------------------------------------------
# registry and dispatcher


@dataclass(frozen=True)
class DatasetInfo:
    """One entry of :data:`DATASETS`: loader, valid splits (first = default), columns, licence."""

    name: str
    loader: Callable[[str | None], Any]
    splits: tuple[str, ...]
    columns: tuple[str, ...]
    licence: str


def _registry() -> dict[str, DatasetInfo]:
    reg: dict[str, DatasetInfo] = {}
    sts_cols = ("sentence1", "sentence2", "score", "subset")
    for key in STS_SUBSETS:
        reg[key.lower()] = DatasetInfo(
            key.lower(),
            lambda split, key=key: load_sts(key),
            ("test",),
            sts_cols,
            "SemEval terms, research use",
        )
    reg["stsb"] = DatasetInfo(
        "stsb",
        load_stsb,
        ("test", "dev", "train"),
        ("sentence1", "sentence2", "score", "genre"),
        "see LICENSE.txt",
    )
    reg["sick"] = DatasetInfo(
        "sick",
        load_sick,
        ("test", "trial", "train"),
        ("sentence1", "sentence2", "score", "label"),
        "CC BY-NC-SA 3.0",
    )
    reg["mrpc"] = DatasetInfo(
        "mrpc",
        load_mrpc,
        ("test", "train"),
        ("sentence1", "sentence2", "label"),
        "MSR data licence, research use",
    )
    reg["snli"] = DatasetInfo(
        "snli", load_snli, ("test", "dev"), ("premise", "hypothesis", "label"), "CC BY-SA 4.0"
    )
    for task, splits in TRANSFER_SPLITS.items():
        default_first = ("test", *[s for s in splits if s != "test"]) if "test" in splits else splits
        reg[task.lower()] = DatasetInfo(
            task.lower(),
            lambda split, task=task: load_transfer(task, split),
            default_first,
            ("text", "label"),
            "per upstream, research use",
        )
    reg["wiki"] = DatasetInfo("wiki", lambda split: load_wiki(), ("all",), ("text",), "CC BY-SA (Wikipedia)")
    reg["emolit"] = DatasetInfo("emolit", load_emolit, ("train", "test"), ("text", "label"), "CC BY-SA 4.0")
    reg["goemotions"] = DatasetInfo(
        "goemotions",
        load_goemotions,
        ("train", "dev", "test"),
        ("text", "labels", "label_names", "id"),
        "CC BY 4.0",
    )
    reg["emobank"] = DatasetInfo(
        "emobank",
        lambda split: load_emobank(None if split == "all" else split),
        ("all", "train", "dev", "test"),
        ("id", "split", "V", "A", "D", "text"),
        "CC BY-SA 4.0",
    )
    reg["digits"] = DatasetInfo(
        "digits", lambda split: load_digits(), ("all",), ("images", "labels"), "BSD-3-Clause"
    )
    reg["wordnet"] = DatasetInfo("wordnet", lambda split: wordnet(), ("all",), (), "WordNet 3.0 licence")
    return reg


#: name -> :class:`DatasetInfo` for every loadable data set (``load_dataset`` names).
DATASETS: dict[str, DatasetInfo] = _registry()


def load_dataset(name: str, split: str | None = None):
    """Load a data set by registry name (:data:`DATASETS`); ``split=None`` takes its default (first) split.

    Names: sts12–sts16, stsb, sick, mrpc, snli, mr, cr, subj, mpqa, trec, sst, sst5, wiki, emolit, goemotions,
    emobank (pandas), digits (tuple of arrays), wordnet (NLTK reader). Unknown names or splits raise a one-line
    ``ValueError`` listing the valid ones.
    """
    key = str(name).strip().lower()
    if key not in DATASETS:
        raise ValueError(f"Unknown data set {name!r}; known: {', '.join(DATASETS)}.")
    info = DATASETS[key]
    if split is None:
        split = info.splits[0]
    _check_split(key, split, info.splits)
    return info.loader(split)
