"""Token counts of the gpu profile's data for the gpu plan (:mod:`companion.publish.plan`), measured once.

The plan's FLOP estimate needs the tokens a run actually feeds its backbone: a batch is padded to its longest text,
cut at the notebook's length setting (``max_length``, ``max_tokens``), and evaluation batches are sorted by length
(:meth:`companion.encoders.Encoder.encode`), so they carry almost no padding. :func:`measure` tokenises every data
source the gpu profile trains or evaluates on, with the one tokenizer available offline, all-MiniLM-L6-v2's
(uncased WordPiece, 30,522 entries: the size of bert-base-uncased's vocabulary), and writes each source's
histogram of token lengths (special tokens included) to ``data/gpu-plan-tokens.json``; the plan reads it
(:func:`read`) and computes from a histogram, exactly, the mean length under a cut (:meth:`Lengths.mean`) and the
expected padded length of a batch of ``b`` texts drawn at random (:meth:`Lengths.padded`: the expectation of the
longest of ``b`` draws, cut). Approximations, stated in the plan's output: RoBERTa's byte-level BPE, mE5's
SentencePiece and MPNet's WordPiece give somewhat different lengths; the NLI training splits (SNLI and MultiNLI
train) are not in the mirror, so the mirror's SNLI dev and test pairs stand in for them; SimCSE's wiki1m is measured
on the mirror's first 11,914 lines.

``python -c "from companion.publish.plan_tokens import measure; measure()"`` measures again (about a minute; needs
the data mirror and WordNet).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion import data as D
from companion._io import write_atomic
from companion.papers.concepts import data as C
from companion.papers.simace.transfer import task_texts, transfer_tasks
from companion.settings import repo_root

FILE = "gpu-plan-tokens.json"
TOKENIZER = "sentence-transformers/all-MiniLM-L6-v2"
#: concept-training steps sampled for :func:`concept_steps` (batches of the gpu profile's 16 synsets)
CONCEPT_SAMPLE_STEPS = 400
#: training rows built for that sample (the gpu profile draws 100,000; the per-step mix does not depend on it)
CONCEPT_SAMPLE_ROWS = 4000


def path() -> Path:
    """``data/gpu-plan-tokens.json`` of the checkout."""
    return repo_root() / "data" / FILE


@dataclass(frozen=True)
class Lengths:
    """A source's token lengths as a histogram: ``counts[n]`` texts of ``n`` tokens."""

    counts: Mapping[int, int]

    @property
    def n(self) -> int:
        """The number of texts."""
        return sum(self.counts.values())

    def mean(self, cap: int | None = None) -> float:
        """Mean tokens per text, each cut at ``cap`` (None: no cut): a length-sorted evaluation batch's cost."""
        total = sum(min(k, cap or k) * c for k, c in self.counts.items())
        return total / self.n

    def padded(self, batch: int, cap: int | None = None) -> float:
        """Expected padded length of a batch of ``batch`` texts drawn at random (with replacement), cut at ``cap``:
        E[min(max of ``batch`` draws, cap)], from the histogram's distribution function."""
        if batch < 1:
            raise ValueError(f"batch must be >= 1, got {batch}.")
        n, below, out = self.n, 0, 0.0
        for k in sorted(self.counts):
            before = (below / n) ** batch
            below += self.counts[k]
            out += min(k, cap or k) * ((below / n) ** batch - before)
        return out


def _histogram(lengths: Iterable[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for n in lengths:
        out[int(n)] = out.get(int(n), 0) + 1
    return dict(sorted(out.items()))


def read(file: Path | None = None) -> dict:
    """The measured file (:func:`path` by default): ``{"tokenizer", "sources": {name: Lengths}, "concept_steps",
    "notes"}``; ``{}`` when it is absent (the plan then falls back to the length caps and says so)."""
    file = Path(file) if file is not None else path()
    if not file.is_file():
        return {}
    raw = json.loads(file.read_text(encoding="utf-8"))
    sources = {name: Lengths({int(k): int(v) for k, v in spec["counts"].items()})
               for name, spec in raw["sources"].items()}
    return {**raw, "sources": sources}


# ------------------------------------------------------------------------------------------------- measuring
def _pairs_texts(data) -> list[str]:
    return [*data.sentence1, *data.sentence2]


def _sources() -> dict[str, tuple[str, Callable[[], list[str]]]]:
    """name -> (what it is, the texts): every data set the gpu profile trains or evaluates a backbone on."""
    from companion import sts  # noqa: PLC0415 - loads scipy; this module imports without it

    def wiki():
        return list(D.load_wiki()["text"])

    def stsb_dev():
        s1, s2, _ = sts.sts_pairs_subset(None, seed=0, sets=["STS-B"], split="dev")["STS-B"]
        return list(dict.fromkeys([*s1, *s2]))

    def sts_test():
        pairs = sts.sts_pairs_subset(None, seed=0)
        return list(dict.fromkeys(t for s1, s2, _ in pairs.values() for t in (*s1, *s2)))

    def senteval():
        return task_texts(transfer_tasks(None, seed=0))

    def pairs(load, split, **kw):
        from companion.papers.angle.pairs import PairData  # noqa: PLC0415 - loads torch; this module imports without it

        return lambda: _pairs_texts(PairData.from_dataset(load(split), **kw))

    def snli():
        from companion.papers.angle.experiments import nli_pairs  # noqa: PLC0415 - loads scipy; this module imports without it

        return _pairs_texts(nli_pairs("mirror"))

    def circumplex(which):
        from companion.papers.circumplex import experiments as E  # noqa: PLC0415 - loads torch; this module imports without it

        def texts():
            if which in ("emolit-train", "emolit-test"):
                return list(E.emolit_frames()[0 if which == "emolit-train" else 1].text)
            if which in ("go-train", "go-test"):
                return list(E.goemotions_standin()[0 if which == "go-train" else 1].text)
            if which == "go-other":
                return list(E.goemotions_other_labels(100, exclude_neutral=False).text)
            return list(E.emobank_sample(10062).text)

        return texts

    def concepts_eval():
        from companion.papers.concepts.evaluation import ConceptRetrieval  # noqa: PLC0415 - loads scipy; this module imports without it

        data = C.load_concepts()
        ev = C.eval_pool(data, C.in_domain_split(data, 0.1, seed=0).test, 5000, seed=0)
        hn = C.make_hard_negatives(data, ev, seed=0)
        rng = np.random.default_rng(1)
        rand_def = ev["masked"].to_numpy()[(np.arange(len(ev)) + rng.integers(1, len(ev), len(ev))) % len(ev)]
        return list(ConceptRetrieval(ev, hn, rand_def).texts)

    return {
        "wiki": ("SimCSE's wiki1m (the mirror's first 11,914 lines)", wiki),
        "stsb-dev": ("STS-B dev, distinct sentences", stsb_dev),
        "sts-test": ("STS12-16, STS-B test, SICK-R test: distinct sentences", sts_test),
        "senteval": ("SentEval transfer tasks (MR, CR, SUBJ, MPQA, SST, TREC, MRPC): distinct texts", senteval),
        "stsb-train": ("STS-B train pairs, both sentences", pairs(D.load_stsb, "train")),
        "stsb-test": ("STS-B test pairs, both sentences", pairs(D.load_stsb, "test")),
        "mrpc-train": ("MRPC train pairs, both sentences", pairs(D.load_mrpc, "train", label="label")),
        "mrpc-test": ("MRPC test pairs, both sentences", pairs(D.load_mrpc, "test", label="label")),
        "nli": ("SNLI dev and test pairs without neutral (the mirror's; stand-in for SNLI + MultiNLI train)", snli),
        "emolit-train": ("Emolit-12 train", circumplex("emolit-train")),
        "emolit-test": ("Emolit-12 test", circumplex("emolit-test")),
        "go-train": ("GoEmotions-9 stand-in train", circumplex("go-train")),
        "go-test": ("GoEmotions-9 stand-in test", circumplex("go-test")),
        "go-other": ("GoEmotions' other labels, 100 texts each (circumplex/03)", circumplex("go-other")),
        "emobank": ("EmoBank, 10,062 texts (circumplex/03)", circumplex("emobank")),
        "concepts-eval": ("concepts/03's evaluation pool (5,000 test concepts, their hard negatives)", concepts_eval),
    }


def concept_steps(count: Callable[[list[str]], list[int]], cap: int = 64) -> dict[str, float]:
    """Mean tokens one concept-training step embeds (the gpu recipe: batches of 16 synsets; the term, its masked
    definition, a synonym pair, every hard negative, the d2d definitions; distinct texts in one length-bucketed pass,
    so without padding), with and without the hard negatives, from :data:`CONCEPT_SAMPLE_STEPS` random batches of
    :data:`CONCEPT_SAMPLE_ROWS` training rows. ``count`` maps texts to their token lengths."""
    from companion.papers.concepts.finetune import with_recipe_pairs  # noqa: PLC0415 - loads torch; this module imports without it

    data = C.load_concepts()
    rows = C.training_rows(data, C.training_synsets(data, 0.1, seed=0), n=CONCEPT_SAMPLE_ROWS, seed=0)
    rows = with_recipe_pairs(rows, {"d2d": True, "split_seed": 0, "rows_seed": 0})
    rng = np.random.default_rng(0)
    out = {"with hard negatives": 0.0, "without hard negatives": 0.0}
    for _ in range(CONCEPT_SAMPLE_STEPS):
        idx = rng.choice(len(rows), 16, replace=False)
        sel, pairs = idx[rows.has_syn[idx]], idx[rows.has_d2d[idx]]
        base = [*rows.term[idx], *rows.masked[idx], *rows.syn_a[sel], *rows.syn_b[sel], *rows.masked[pairs],
                *rows.d2d[pairs]]
        negatives = list(rows.negatives[idx][rows.neg_mask[idx]])
        for key, texts in (("with hard negatives", base + negatives), ("without hard negatives", base)):
            out[key] += sum(min(n, cap) for n in count(list(dict.fromkeys(texts)))) / CONCEPT_SAMPLE_STEPS
    return out


def measure(file: Path | None = None) -> Path:
    """Tokenise every source (:func:`_sources`) and a sample of concept-training steps with all-MiniLM-L6-v2's
    tokenizer and write the histograms to ``file`` (:func:`path` by default). Returns the file."""
    from transformers import AutoTokenizer  # noqa: PLC0415 - transformers is heavy; this module imports without it

    from companion.encoders.loading import resolve_model  # noqa: PLC0415 - loads torch; this module imports without it

    tokenizer = AutoTokenizer.from_pretrained(resolve_model(TOKENIZER)[0])

    def count(texts: list[str]) -> list[int]:
        return [len(ids) for ids in tokenizer(texts, add_special_tokens=True, truncation=False)["input_ids"]]

    sources = {name: {"what": what, "counts": _histogram(count(texts()))}
               for name, (what, texts) in _sources().items()}
    out = {"tokenizer": f"{TOKENIZER} (uncased WordPiece, {tokenizer.vocab_size:,} entries)",
           "sources": sources, "concept_steps": concept_steps(count),
           "notes": "token lengths with special tokens, no cut; measured by companion.publish.plan_tokens.measure"}
    file = Path(file) if file is not None else path()
    text = json.dumps(out, indent=1) + "\n"
    write_atomic(file, lambda f: f.write(text.encode("utf-8")))
    return file
