"""Data layer: the loaders parse the mirror's upstream files into the documented rows and columns.

Real-data tests need the mirror (``COMPANION_DATA_DIR`` or ``../shared/data``) and skip with the reason otherwise;
the parsing rules (empty gold line, tab-only splitting, error messages) are tested on a tiny fake mirror.
"""

from __future__ import annotations

import functools
import gzip
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from companion import data as D
from companion import fetch
from companion import wordnet as W
from companion.settings import DataCorruptError, DataNotFoundError, data_dir


def _mirror_or_skip() -> Path:
    try:
        root = data_dir()
    except DataNotFoundError as exc:
        pytest.skip(f"data mirror not available: {exc}")
    if not (root / "senteval").is_dir():
        pytest.skip(f"data mirror at {root} has no senteval/ folder")
    return root


@pytest.fixture(scope="module")
def mirror() -> Path:
    return _mirror_or_skip()


# Each real file is parsed once per test session.
@functools.cache
def _load(name: str, split: str | None = None):
    return D.load_dataset(name, split)


# ------------------------------------------------------------------------------------------------ row counts

COUNTS = [
    ("sts12", "test", 3108),
    ("sts13", "test", 1500),
    ("sts14", "test", 3750),
    ("sts15", "test", 3000),
    ("sts16", "test", 1186),
    ("stsb", "train", 5749),
    ("stsb", "dev", 1500),
    ("stsb", "test", 1379),
    ("sick", "train", 4500),
    ("sick", "trial", 500),
    ("sick", "test", 4927),
    ("mrpc", "train", 4076),
    ("mrpc", "test", 1725),
    ("snli", "dev", 9842),
    ("snli", "test", 9824),
    ("wiki", "all", 11914),
    ("emolit", "train", 6000),
    ("emolit", "test", 1200),
    ("goemotions", "dev", 5426),
    ("goemotions", "test", 5427),
    ("mr", "all", 10662),
    ("cr", "all", 3775),
    ("subj", "all", 10000),
    ("mpqa", "all", 10606),
    ("trec", "train", 5452),
    ("trec", "test", 500),
    ("sst", "dev", 872),
    ("sst", "test", 1821),
]


@pytest.mark.parametrize(("name", "split", "n"), COUNTS, ids=[f"{a}-{b}" for a, b, _ in COUNTS])
def test_row_counts(mirror, name, split, n):
    assert len(_load(name, split)) == n


PAIR_SETS = [(f"sts1{i}", "test") for i in range(2, 7)] + [
    ("stsb", "train"),
    ("stsb", "dev"),
    ("stsb", "test"),
    ("sick", "train"),
    ("sick", "trial"),
    ("sick", "test"),
    ("mrpc", "train"),
    ("mrpc", "test"),
]


@pytest.mark.parametrize(("name", "split"), PAIR_SETS, ids=[f"{a}-{b}" for a, b in PAIR_SETS])
def test_pairs_have_no_empty_sentence_and_scores_in_range(mirror, name, split):
    ds = _load(name, split)
    for col in ("sentence1", "sentence2"):
        assert all(s.strip() for s in ds[col]), f"empty {col} in {name}/{split}"
        assert not any(s.startswith("\ufeff") or "\t" in s for s in ds[col])
    if "score" in ds.column_names:
        scores = np.asarray(ds["score"])
        lo, hi = (1.0, 5.0) if name == "sick" else (0.0, 5.0)
        assert scores.min() >= lo and scores.max() <= hi
        assert scores.std() > 0.5  # real spread, not a constant or a mis-parsed column


def test_sts_subsets_follow_senteval(mirror):
    ds = _load("sts13")
    assert set(ds["subset"]) == {"FNWN", "headlines", "OnWN"}
    assert ds["subset"].count("FNWN") == 189
    for year, subsets in D.STS_SUBSETS.items():
        assert list(dict.fromkeys(_load(year.lower())["subset"])) == list(subsets)


def test_sts15_skips_pairs_without_gold(mirror):
    # the STS15 files have 8,500 input lines, of which 3,000 have a gold score
    lines = sum(
        1
        for p in (mirror / "senteval/downstream/STS/STS15-en-test").glob("STS.input.*.txt")
        for _ in p.open()
    )
    assert lines == 8500 and len(_load("sts15")) == 3000


def test_sick_labels_and_mrpc_labels(mirror):
    assert set(_load("sick", "test")["label"]) == {"ENTAILMENT", "NEUTRAL", "CONTRADICTION"}  # no stray '\r'
    mrpc = _load("mrpc", "train")
    assert set(mrpc["label"]) == {0, 1}
    assert mrpc.features["label"].names == ["not_paraphrase", "paraphrase"]
    assert sum(mrpc["label"]) == 2753  # upstream: 67.5% paraphrases in train


def test_snli_labels(mirror):
    for split in ("dev", "test"):
        ds = _load("snli", split)
        assert set(ds["label"]) == {"entailment", "neutral", "contradiction"}
        assert all(p.strip() and h.strip() for p, h in zip(ds["premise"], ds["hypothesis"]))


def test_transfer_tasks_follow_senteval_labels(mirror):
    expected_pos = {"mr": 5331, "cr": 2407, "subj": 5000, "mpqa": 3312}
    for task, n_pos in expected_pos.items():
        ds = _load(task)
        assert sum(ds["label"]) == n_pos
        assert ds.features["label"].names == list(D.LABEL_NAMES[task.upper()])
    subj = _load("subj")
    first_objective = (mirror / "senteval/downstream/SUBJ/subj.objective").read_text("latin-1").split("\n")[0]
    assert subj["text"][0] == first_objective.strip() and subj["label"][0] == 1  # SentEval: objective -> 1
    assert len(D.load_transfer("CR", drop_empty=True)) == 3775 - 4
    trec = _load("trec", "test")
    assert set(trec["label"]) == set(range(6))
    assert not any(re.match(r"^[A-Z]+:", t) for t in trec["text"])  # coarse:fine prefix removed
    assert D.load_transfer("trec", "train")["text"][0] == "How did serfdom develop in and then leave Russia ?"
    assert set(_load("sst", "dev")["label"]) == {0, 1}


def test_wiki(mirror):
    ds = _load("wiki")
    assert all(t.strip() for t in ds["text"])
    assert D.load_wiki(n=5)["text"] == ds["text"][:5]
    # the mirrored head is byte-truncated: its unterminated last fragment is not a sentence
    raw = (mirror / "wiki/wiki1m_for_simcse.head.txt").read_bytes()
    assert ds["text"][-1].encode() == raw[: raw.rfind(b"\n")].rsplit(b"\n", 1)[-1]


def test_emolit_is_balanced_over_12_labels(mirror):
    train, test = _load("emolit", "train"), _load("emolit", "test")
    for ds, per_label in ((train, 500), (test, 100)):
        labels = ds["label"]
        assert set(labels) == set(D.EMOLIT_LABELS) and len(D.EMOLIT_LABELS) == 12
        assert all(labels.count(lab) == per_label for lab in D.EMOLIT_LABELS)
        assert all(t.strip() for t in ds["text"])


def test_goemotions_labels(mirror):
    names = D.goemotions_label_names()
    assert len(names) == 28 and names[-1] == "neutral"
    ds = _load("goemotions", "dev")
    for labels, label_names in zip(ds["labels"], ds["label_names"]):
        assert labels and all(isinstance(i, int) and 0 <= i < 28 for i in labels)
        assert label_names == [names[i] for i in labels]
    assert any(len(labels) > 1 for labels in ds["labels"])
    # CSV-quoted texts are unquoted: no doubled quotes left, quotes kept inside texts
    assert not any('""' in t for t in ds["text"]) and sum('"' in t for t in ds["text"]) > 100
    # the Ekman grouping covers the 27 emotions exactly once
    grouped = [e for group in D.GOEMOTIONS_EKMAN_MAPPING.values() for e in group]
    assert sorted(grouped) == sorted(names[:-1])
    assert sorted([*D.GOEMOTIONS_EKMAN_MAPPING, "neutral"]) == sorted(D.goemotions_ekman_labels())


def test_emobank(mirror):
    df = D.load_emobank()
    assert list(df.columns) == ["id", "split", "V", "A", "D", "text"] and len(df) == 10062
    assert df[["V", "A", "D"]].min().min() >= 1.0 and df[["V", "A", "D"]].max().max() <= 5.0
    assert df["split"].value_counts().to_dict() == {"train": 8062, "dev": 1000, "test": 1000}
    assert len(D.load_dataset("emobank", "dev")) == 1000
    assert df["id"].is_unique and (df["text"].str.strip() != "").all()


def test_digits():
    images, labels = D.load_dataset("digits")
    assert images.shape == (1797, 8, 8) and images.dtype.kind == "f"
    assert labels.shape == (1797,) and set(labels.tolist()) == set(range(10))


# ------------------------------------------------------------------------------------------------ dispatcher


def test_unknown_name_and_split_errors():
    with pytest.raises(ValueError) as err:
        D.load_dataset("sts17")
    msg = str(err.value)
    assert "\n" not in msg and "sts12" in msg and "wordnet" in msg and "goemotions" in msg
    with pytest.raises(ValueError) as err:
        D.load_dataset("stsb", "validation")
    msg = str(err.value)
    assert "\n" not in msg and "'validation'" in msg and all(s in msg for s in ("train", "dev", "test"))
    with pytest.raises(ValueError, match="trial"):
        D.load_sick("dev")
    with pytest.raises(ValueError, match="STS16"):
        D.load_sts("STS17")


def test_registry_is_complete():
    expected = {f"sts1{i}" for i in range(2, 7)} | {
        "stsb", "sick", "mrpc", "snli", "mr", "cr", "subj", "mpqa", "trec", "sst",
        "wiki", "emolit", "goemotions", "emobank", "digits", "wordnet",
    }  # fmt: skip
    assert expected <= set(D.DATASETS)
    assert all(info.splits for info in D.DATASETS.values())


# ------------------------------------------------------------------------------------------------ fake mirror


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


@pytest.fixture
def fake_mirror(tmp_path, monkeypatch):
    root = tmp_path / "data"
    sts = root / "senteval/downstream/STS/STS13-en-test"
    # FNWN: three pairs, the middle one without gold; quotes and a U+2028 inside sentences
    _write(
        sts / "STS.input.FNWN.txt",
        'He said "yes".\tHe agreed.\nNo gold here.\tNone.\nA line\u2028sep "x\tThe "other" one\r\n',
    )
    _write(sts / "STS.gs.FNWN.txt", "4.2\n\n1\n")
    _write(sts / "STS.input.headlines.txt", "a b\tc d\n")
    _write(sts / "STS.gs.headlines.txt", "0.0\n")
    _write(sts / "STS.input.OnWN.txt", "e f\tg h\n")
    _write(sts / "STS.gs.OnWN.txt", "5.0\n")
    _write(
        root / "senteval/downstream/STS/STSBenchmark/sts-dev.csv",
        'main-news\theadlines\t2013\t0001\t3.5\tA "quoted\tB\tsource-a\tsource-b\n',
    )
    monkeypatch.setenv("COMPANION_DATA_DIR", str(root))
    # the loaders verify what they read against the manifest: here the fake files' own checksums stand in for it
    sums = {f.relative_to(root).as_posix(): fetch.sha256_of(f) for f in root.rglob("*") if f.is_file()}
    monkeypatch.setattr(fetch, "manifest_sums", lambda: sums)
    return root


def test_empty_gold_line_is_skipped_and_only_tabs_split(fake_mirror):
    ds = D.load_sts("STS13")
    assert len(ds) == 4
    assert ds["score"] == [4.2, 1.0, 0.0, 5.0]
    assert ds["subset"] == ["FNWN", "FNWN", "headlines", "OnWN"]
    assert ds["sentence1"][:2] == ['He said "yes".', 'A line\u2028sep "x']
    assert ds["sentence2"][1] == 'The "other" one'


def test_stsb_keeps_first_seven_fields(fake_mirror):
    ds = D.load_stsb("dev")
    assert ds[0] == {"sentence1": 'A "quoted', "sentence2": "B", "score": 3.5, "genre": "main-news"}


def test_missing_file_error_names_file_and_setting(fake_mirror):
    (fake_mirror / "senteval/downstream/STS/STS13-en-test/STS.gs.OnWN.txt").unlink()
    with pytest.raises(DataNotFoundError) as err:
        D.load_sts("STS13")
    assert "STS.gs.OnWN.txt" in str(err.value) and "COMPANION_DATA_DIR" in str(err.value)
    with pytest.raises(DataNotFoundError, match="sts-train.csv"):
        D.load_dataset("stsb", "train")


def test_missing_data_directory_error(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(DataNotFoundError) as err:
        D.load_dataset("sick", "train")
    assert "COMPANION_DATA_DIR" in str(err.value) and "nowhere" in str(err.value)


# ------------------------------------------------------------------------------------------------ WordNet


@pytest.fixture(scope="module")
def wn_dir() -> Path:
    try:
        return W.wordnet_dir()
    except FileNotFoundError as exc:
        pytest.skip(f"neither Debian's WordNet files nor an NLTK 'wordnet' download exist: {exc}")


@pytest.mark.slow
def test_wordnet_reader(wn_dir):
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    wn = D.load_dataset("wordnet")
    assert isinstance(wn, WordNetCorpusReader) and wn is D.wordnet()
    assert wn.get_version() == "3.0"
    dog = wn.synset("dog.n.01")
    assert dog.lexname() == "noun.animal"  # lexnames file
    assert wn.synset("run.v.01").lexname() == "verb.motion"
    assert wn.lemma_from_key("dog%1:05:00::").synset() == dog  # index.sense
    assert wn.morphy("ran", "v") == "run"  # verb.exc
    counts = D.wordnet_sense_counts()
    assert len(counts) == 206941 and counts["dog%1:05:00::"] == dog.lemmas()[0].count() > 0  # cntlist.rev


def test_wordnet_file_counts(wn_dir):
    """117,659 synsets and 206,978 senses (lemmas over synsets) in the files the reader opens."""
    synsets = senses = 0
    for pos in ("noun", "verb", "adj", "adv"):
        with open(wn_dir / f"data.{pos}", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("  "):  # licence header
                    continue
                fields = line.split(" ", 4)
                synsets += 1
                senses += int(fields[3], 16)  # w_cnt, two hex digits
    assert (synsets, senses) == (117659, 206978)


@pytest.mark.slow
def test_wordnet_reader_counts(wn_dir):
    """The same counts through NLTK's reader (iterates every synset: ~10 s)."""
    wn = D.wordnet()
    synsets = senses = 0
    for synset in wn.all_synsets():
        synsets += 1
        senses += len(synset.lemmas())
    assert (synsets, senses) == (117659, 206978)


def test_lexnames_constant(wn_dir):
    assert [num for num, _, _ in W.LEXNAMES] == list(range(45))
    category = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
    assert all(cat == category[name.split(".")[0]] for _, name, cat in W.LEXNAMES)
    man = Path("/usr/share/man/man5/lexnames.5WN.gz")
    if man.is_file():
        rows = re.findall(r"^(\d\d)\t([^\t]+?)\s*\t", gzip.open(man, "rt").read(), flags=re.M)
        assert [(int(n), name) for n, name in rows] == [(n, name) for n, name, _ in W.LEXNAMES]
    # and every lex_filenum in the data files names a file of the right syntactic category
    for pos, prefix in (("noun", "noun"), ("verb", "verb"), ("adj", "adj"), ("adv", "adv")):
        used = set()
        with open(wn_dir / f"data.{pos}", encoding="utf-8") as fh:
            for line in fh:
                if not line.startswith("  "):
                    used.add(int(line.split(" ", 2)[1]))
        assert all(W.LEXNAMES[n][1].startswith(prefix + ".") for n in used)
    assert (wn_dir / "lexnames").read_text() == W.lexnames_text()


def test_wordnet_cntlist_path(wn_dir):
    path = D.wordnet_cntlist_path()
    assert path.name in {"cntlist.rev", "cntlist"} and path.stat().st_size > 0


def test_wordnet_missing_error(tmp_path, monkeypatch):
    import nltk

    monkeypatch.delenv("COMPANION_WORDNET_DIR", raising=False)
    monkeypatch.setattr(W, "DEBIAN_WORDNET_DIR", tmp_path / "no-wordnet")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "no-nltk-data")])
    with pytest.raises(FileNotFoundError) as err:
        W.wordnet_dir()
    msg = str(err.value)
    assert "apt-get install -y wordnet-base wordnet-sense-index" in msg and 'nltk.download("wordnet")' in msg
    monkeypatch.setenv("COMPANION_WORDNET_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="index.sense"):
        W.wordnet_dir()


# ------------------------------------------------------------------------------------ damaged files, where read
def _damaged_copy(mirror: Path, tmp_path: Path, monkeypatch, rel: str, damage) -> Path:
    """A data folder holding a copy of the mirror's folder of ``rel``, with ``rel`` damaged by ``damage``."""
    root = tmp_path / "data"
    path = root / rel
    shutil.copytree(mirror / rel.rsplit("/", 1)[0], path.parent)
    path.write_bytes(damage(path.read_bytes()))
    monkeypatch.setenv("COMPANION_DATA_DIR", str(root))
    return path


def _flip(raw: bytes) -> bytes:
    """One letter of the middle of the file swapped for another: same length, same line count, valid UTF-8."""
    at = next(i for i in range(len(raw) // 2, len(raw)) if chr(raw[i]).isalpha())
    return raw[:at] + bytes([raw[at] ^ 0x01]) + raw[at + 1:]


DAMAGE = {
    "cut": lambda raw: raw[: len(raw) // 2],  # a download stopped half-way (whole lines and a fragment)
    "flipped": _flip,
    "not utf-8": lambda raw: raw[:100] + b"\xff" + raw[101:],
}


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("rel, load", [
    ("senteval/downstream/STS/STSBenchmark/sts-train.csv", lambda: D.load_stsb("train")),
    ("goemotions/dev.tsv", lambda: D.load_goemotions("dev")),
])
def test_a_damaged_file_fails_where_it_is_read_naming_it(mirror, tmp_path, monkeypatch, rel, load, damage):
    path = _damaged_copy(mirror, tmp_path, monkeypatch, rel, DAMAGE[damage])
    with pytest.raises(DataCorruptError) as info:
        load()
    message = str(info.value)
    assert "\n" not in message and str(path) in message and "python -m companion data check" in message


def test_an_intact_copy_loads_and_a_file_replaced_since_is_checked_again(mirror, tmp_path, monkeypatch):
    rel = "goemotions/dev.tsv"
    path = _damaged_copy(mirror, tmp_path, monkeypatch, rel, lambda raw: raw)
    assert len(D.load_goemotions("dev")) == len(_load("goemotions", "dev"))
    path.write_bytes(_flip(path.read_bytes()))  # the same size: the modification time tells
    with pytest.raises(DataCorruptError, match="dev.tsv is damaged"):
        D.load_goemotions("dev")


def test_a_file_is_hashed_once_per_process(mirror, tmp_path, monkeypatch):
    _damaged_copy(mirror, tmp_path, monkeypatch, "goemotions/dev.tsv", lambda raw: raw)
    hashed = []
    sha256_of = fetch.sha256_of
    monkeypatch.setattr(fetch, "sha256_of", lambda path: hashed.append(path) or sha256_of(path))
    D.load_goemotions("dev")
    first = [path.name for path in hashed]
    D.load_goemotions("dev")
    assert sorted(first) == ["dev.tsv", "emotions.txt"] and len(hashed) == 2  # the second load hashes nothing


def test_text_that_is_not_its_encoding_names_the_file(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_bytes(b"fine\nnot \xff utf-8\n")
    with pytest.raises(DataCorruptError, match=r"lines\.txt is not utf-8 text \(byte 9\)"):
        D._read_lines(path)
