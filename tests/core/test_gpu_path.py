"""The gpu profile's training path as the papers run it, on tiny random models of the papers' architecture classes
(BERT, RoBERTa, XLM-R, MPNet; no download): the top-layer forward pass equals the full model (MPNet's relative
position bias included), "all layers" trains the embedding layer too (with its dropout), SimACE's gpu path trains with
SimCSE's MLP head and evaluates without it and untruncated, it reads the whole wiki1m file, never a head, AnglE's reads
the whole NLI training splits, and no gpu setting sizes its data as a subset."""

import json

import pytest
import torch

from companion.data import WIKI_FULL_LINES, load_wiki
from companion.encoders import position_limit, tiny_encoder
from companion.encoders.states import LowerStates, cut_ids
from companion.encoders.upper import UpperEncoder
from companion.papers.concepts.readouts import TopLayerConceptModel
from companion.papers.simace import make_base
from companion.papers.simace.settings import with_runs
from companion.profiles import DRY_RUN_ENV, settings, stand_in
from companion.publish.notebooks import all_settings
from companion.settings import DataNotFoundError

TEXTS = ["A man is playing a guitar.", "Someone plays music on a stage tonight with friends.", "Cats sleep.",
         "The stock market fell sharply on Monday after the announcement, and traders sold.", "A dog runs."]
#: bert-base-uncased (SimACE, AnglE), roberta-base (SimACE Table 2), mE5 (circumplex), all-mpnet (concepts)
ARCHS = ["bert", "roberta", "xlm-roberta", "mpnet"]


#: the SimACE dropout-view runs' settings alone (no notebook's additions)
RUNS = with_runs("simace/runs")

pytestmark = pytest.mark.usefixtures("scratch_cache")  # tests/core/conftest.py


def _encoder(arch, **kwargs):
    enc = tiny_encoder(arch, pooling="mean", layers=3, **kwargs)
    if arch == "mpnet":  # a trained model's bias table is far from its normal(0, 0.02) start: make it matter
        with torch.no_grad():
            enc.model.encoder.relative_attention_bias.weight.normal_(0.0, 1.0, generator=torch.Generator().manual_seed(0))
    return enc


# ------------------------------------------------------------------------------------- (a) top-layer forward
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("n_top", [1, 3])
def test_top_layer_forward_equals_the_full_model(arch, n_top):
    enc = _encoder(arch)
    full = enc.encode(TEXTS, normalize=False, cache=False)
    upper = UpperEncoder(enc, n_top=n_top, pooling="mean", state_dtype=torch.float32)
    torch.testing.assert_close(upper.encode(TEXTS, normalize=False), full, atol=1e-5, rtol=1e-5)
    every = UpperEncoder(enc, n_top=3, pooling="mean", train_embeddings=True)  # from token ids
    torch.testing.assert_close(every.encode(TEXTS, normalize=False), full, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("train_embeddings", [False, True])
def test_concept_model_layers_equal_the_full_model(arch, train_embeddings):
    enc = _encoder(arch)
    n_top = 3 if train_embeddings else 1
    lower = LowerStates(enc, start=3 - n_top, state_dtype=torch.float32, means="all")
    model = TopLayerConceptModel(enc, "mean", n_top=n_top, k=4, lower=lower, train_embeddings=train_embeddings)
    torch.testing.assert_close(model.encode_layers(TEXTS), enc.encode_layers(TEXTS, cache=False), atol=1e-5,
                               rtol=1e-5)


def test_mpnet_layers_without_their_position_bias_are_another_network():
    enc = _encoder("mpnet")
    upper = UpperEncoder(enc, n_top=1, pooling="mean", state_dtype=torch.float32)
    assert upper.position_bias is not None
    upper.position_bias = None  # the forward pass as it was: layers called with the attention mask only
    gap = (upper.encode(TEXTS, normalize=False) - enc.encode(TEXTS, normalize=False, cache=False)).abs().max()
    assert gap > 1e-3


def test_the_concepts_dry_run_stands_in_an_mpnet_for_all_mpnet():
    from companion.encoders import load_encoder

    enc = load_encoder(stand_in("sentence-transformers/all-mpnet-base-v2"), pooling="mean", max_length=16)
    assert type(enc.model).__name__ == "MPNetModel" and enc._num_hidden_states() == 13


# ------------------------------------------------------------------------------ (b) all layers: embeddings too
def _one_step(model, lr=1e-3):
    from companion.training import index_batches, seed_everything, train

    seed_everything(0)
    return train(model, lambda idx: model.embed([TEXTS[int(i)] for i in idx]).pow(2).sum(),
                 index_batches(len(TEXTS), 4, seed=0), steps=1, lr=lr, progress=False)


def _simace_cfg(profile, **extra):
    cfg = dict(RUNS(profile))
    cfg.update(extra)
    return settings("gpu", smoke={}, cpu={}, gpu=cfg)


def test_all_layers_on_the_gpu_path_train_the_embeddings_with_dropout():
    enc = tiny_encoder("bert", layers=2, max_length=32)
    before = {k: v.clone() for k, v in enc.model.state_dict().items()}
    gpu = make_base(enc, _simace_cfg("gpu", n_top=2, model="tiny-bert"))
    start = gpu.embeddings.word_embeddings.weight.detach().clone()
    assert gpu.embeddings.dropout.p == 0.1
    gpu.train()
    torch.manual_seed(0)
    views = [gpu.embeddings(input_ids=gpu.lower(TEXTS[:2])[0]) for _ in range(2)]
    assert not torch.allclose(*views)  # embedding dropout draws a new mask per view
    _one_step(gpu)
    assert not torch.equal(gpu.embeddings.word_embeddings.weight, start)
    assert all(torch.equal(before[k], v) for k, v in enc.model.state_dict().items())  # the encoder is not touched
    merged = gpu.to_encoder().model.embeddings.word_embeddings.weight
    assert torch.equal(merged, gpu.embeddings.word_embeddings.weight)


@pytest.mark.parametrize("mlm", [False, True])
def test_every_trained_part_sits_on_the_backbone_s_device(mlm):
    """The head drawn on the CPU (SimCSE's MLP, App. J's masked-LM head) is put beside the copied layers: on the gpu
    path a model on a GPU (the meta device stands in for it here) has no part left on the CPU."""
    from companion.papers.simace.masked_lm import mlm_base

    enc = tiny_encoder("bert", layers=2, max_length=32)
    enc.model.to("meta")
    model = make_base(enc, _simace_cfg("gpu", n_top=2, model="tiny-bert"))
    if mlm:
        model = mlm_base(model).fresh()
    assert model.mlp is not None and {p.device.type for p in model.parameters()} == {"meta"}


def test_the_cpu_path_keeps_the_embeddings_frozen():
    enc = tiny_encoder("bert", layers=2, max_length=32)
    cpu = make_base(enc, RUNS("cpu"))
    assert cpu.embeddings is None and cpu.mlp is None and cpu.n_top == 1
    every = UpperEncoder(enc, n_top=2, pooling="cls")  # every layer, but embeddings cached and frozen
    lower_before = every.lower(TEXTS)[0].clone()
    _one_step(every)
    assert every.embeddings is None
    assert torch.equal(every.lower(TEXTS)[0], lower_before)
    assert not any("embeddings" in name for name, _ in every.named_parameters())


def test_train_embeddings_needs_every_layer():
    enc = tiny_encoder("bert", layers=2)
    with pytest.raises(ValueError, match="every layer"):
        UpperEncoder(enc, n_top=1, train_embeddings=True)
    with pytest.raises(ValueError, match="needs train_embeddings"):
        UpperEncoder(enc, n_top=2, eval_max_length=64)


def test_concept_gpu_recipe_trains_the_embeddings_and_the_cpu_recipe_does_not():
    from companion.papers.concepts.finetune import top_layer_recipe

    common = dict(model="m", max_length=64, n_top=12, k=4, batch=16, lr=2e-4, pooling_lr_mult=5.0, layer_decay=0.9,
                  tau=0.05, warmup_frac=0.0125, steps=8000, n_train=10, max_negatives=None)
    gpu = top_layer_recipe(settings("gpu", smoke={}, cpu={}, gpu=common), ["negate"])
    cpu = top_layer_recipe(settings("cpu", smoke={}, cpu=dict(common, n_top=1), gpu={}), ["negate"])
    assert gpu["train_embeddings"] is True
    assert "train_embeddings" not in cpu  # the cpu recipe (and its cached weights' name) is unchanged
    assert gpu["d2d"] is True and "d2d" not in cpu  # §4.3's d2d term on the gpu path only


# ------------------------------------------------------------------------------------------- (c) SimACE gpu
def test_simace_gpu_head_is_simcse_s_used_in_training_and_dropped_at_evaluation():
    enc = tiny_encoder("bert", layers=2, max_length=32, hidden=64)
    torch.manual_seed(0)
    base = make_base(enc, _simace_cfg("gpu", n_top=2, model="tiny-bert"))
    linear = base.mlp[0]
    assert isinstance(base.mlp[1], torch.nn.Tanh)
    assert torch.count_nonzero(linear.bias) == 0
    assert 0.017 < float(linear.weight.detach().std()) < 0.023 and abs(float(linear.weight.detach().mean())) < 0.003
    base.eval()
    evaluated = base.encode(TEXTS[:1], normalize=False)
    torch.testing.assert_close(evaluated, enc.encode(TEXTS[:1], normalize=False, cache=False), atol=1e-5, rtol=1e-5)
    with torch.no_grad():
        base.train()
        for module in base.modules():  # no dropout: compare the two modes' outputs exactly
            if isinstance(module, torch.nn.Dropout):
                module.p = 0.0
        trained = base(*base.lower(TEXTS[:1]))
        base.eval()
        plain = base(*base.lower(TEXTS[:1]))
    torch.testing.assert_close(trained, torch.tanh(linear(plain)))


def test_simace_gpu_evaluates_untruncated_and_trains_at_max_seq():
    from companion.encoders import Encoder
    enc = tiny_encoder("bert", layers=2, max_length=128)  # a position table of 130
    enc.max_length = 32  # Table 7's max_seq for training
    long = " ".join(["the quick brown fox jumps over the lazy dog"] * 6)
    base = make_base(enc, _simace_cfg("gpu", n_top=2, model="tiny-bert"))
    assert base.eval_length == min(512, position_limit(enc)) == 130
    n_tokens = len(enc.tokenizer(long)["input_ids"])
    assert 32 < n_tokens <= 128  # cut in training, whole at evaluation
    untruncated = Encoder(enc.model, enc.tokenizer, pooling="cls", max_length=128).encode([long], cache=False,
                                                                                             normalize=False)
    cut = enc.encode([long], cache=False, normalize=False)
    torch.testing.assert_close(base.encode([long], normalize=False), untruncated, atol=1e-5, rtol=1e-5)
    assert not torch.allclose(untruncated, cut, atol=1e-3)
    ids, mask = base.lower([long])
    assert ids.shape[1] == 32 and torch.equal(ids[0], enc.tokenize([long])["input_ids"][0])
    cpu = make_base(enc, RUNS("cpu"))
    cpu.precompute([long])
    assert cpu.store.length(long) == 32  # the cpu profile's states are cut at the training length


def test_cut_ids_keeps_the_closing_special_token():
    enc = tiny_encoder("bert")
    text = "one two three four five six seven"
    full = torch.tensor(enc.tokenizer(text)["input_ids"])
    want = torch.tensor(enc.tokenizer(text, truncation=True, max_length=5)["input_ids"])
    assert torch.equal(cut_ids(full, 5), want) and torch.equal(cut_ids(full, 50), full)


def _wiki(tmp_path, monkeypatch, lines: int | None, text: bytes | None = None):
    root = tmp_path / "data"
    (root / "wiki").mkdir(parents=True)
    if lines is not None or text is not None:
        body = text if text is not None else b"".join(b"sentence %d\n" % i for i in range(lines))
        (root / "wiki" / "wiki1m_for_simcse.txt").write_bytes(body)
    monkeypatch.setenv("COMPANION_DATA_DIR", str(root))


def test_the_full_wiki_is_read_whole(tmp_path, monkeypatch):
    _wiki(tmp_path, monkeypatch, WIKI_FULL_LINES)
    data = load_wiki(full=True)
    assert len(data) == WIKI_FULL_LINES and data["text"][-1] == f"sentence {WIKI_FULL_LINES - 1}"


@pytest.mark.parametrize("lines", [None, 11_914, WIKI_FULL_LINES - 1])
def test_the_gpu_setting_refuses_a_missing_head_or_cut_wiki(tmp_path, monkeypatch, lines):
    from companion.papers.simace.analysis import training_sentences

    _wiki(tmp_path, monkeypatch, lines)
    cfg = RUNS("gpu")
    assert cfg.wiki == "full"
    with pytest.raises(DataNotFoundError, match="data fetch --only wiki-full"):
        training_sentences(cfg)


def test_the_mirror_head_is_not_the_full_file(tmp_path, monkeypatch):
    from companion.settings import data_dir

    head = (data_dir() / "wiki" / "wiki1m_for_simcse.head.txt").read_bytes()
    _wiki(tmp_path, monkeypatch, None, text=head)  # the head copied under the full file's name
    with pytest.raises(DataNotFoundError, match="subset or a cut download"):
        load_wiki(full=True)


def test_only_the_dry_run_reads_the_mirror_head(monkeypatch):
    assert RUNS("gpu").wiki == "full"
    monkeypatch.setenv(DRY_RUN_ENV, "1")
    dry = RUNS("gpu")
    assert dry.wiki == "head" and dry.train_embeddings and dry.mlp_head and dry.model == "tiny-bert-L12"
    for profile in ("smoke", "cpu"):
        assert "wiki" not in RUNS(profile)


# ---------------------------------------------------------------------------- NLI training splits (AnglE gpu)
SMALL_NLI = {"snli": 40, "mnli": 20}  # stated line counts, cut down so that the tests write small files


def _nli(root, monkeypatch, corpus: str, lines: int | None, gold=("entailment", "neutral", "contradiction", "-")):
    from companion import data

    monkeypatch.setattr(data, "NLI_TRAIN", {c: (rel, SMALL_NLI[c]) for c, (rel, _) in data.NLI_TRAIN.items()})
    rel, _ = data.NLI_TRAIN[corpus]
    if lines is not None:
        path = root.joinpath(*rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps({"gold_label": gold[i % len(gold)], "sentence1": f"premise {i}",
                                            "sentence2": f"hypothesis {i}"}) + "\n" for i in range(lines)))
    monkeypatch.setenv("COMPANION_DATA_DIR", str(root))


def test_the_nli_training_splits_are_read_whole(tmp_path, monkeypatch):
    from companion.data import load_nli_train
    from companion.papers.angle.experiments import nli_pairs

    for corpus, lines in SMALL_NLI.items():
        _nli(tmp_path, monkeypatch, corpus, lines)
    snli = load_nli_train("snli")
    assert len(snli) == 30 and set(snli["label"]) == {"entailment", "neutral", "contradiction"}  # '-' dropped
    pairs = nli_pairs("full")  # the gpu setting: both splits, neutral dropped, entailment 1 and contradiction 0
    assert len(pairs) == 20 + 10 and sorted(set(pairs.labels.tolist())) == [0.0, 1.0]
    assert pairs.sentence1[-1] == "premise 18" and "premise 1" not in pairs.sentence1  # MultiNLI's, no neutral


@pytest.mark.parametrize("lines", [None, 10, 39, 41])
def test_the_angle_gpu_setting_refuses_a_missing_subset_or_cut_nli_file(tmp_path, monkeypatch, lines):
    from companion.papers.angle.experiments import nli_pairs
    from companion.publish.notebooks import notebook_settings

    _nli(tmp_path, monkeypatch, "snli", lines)
    _nli(tmp_path, monkeypatch, "mnli", SMALL_NLI["mnli"])
    cfg = notebook_settings("angle/02-sts-experiments")("gpu")
    assert cfg.nli == "full" and cfg.snli_pairs is None
    with pytest.raises(DataNotFoundError, match="data fetch --only snli-train"):
        nli_pairs(cfg.nli, cfg.snli_pairs)


def test_the_cpu_transfer_pairs_are_unchanged():
    """The cpu profile's transfer pairs: the mirror's SNLI dev + test, neutral dropped, a seeded subset (as the
    notebook built them before the gpu path read the training splits)."""
    from datasets import concatenate_datasets

    from companion.data import load_snli
    from companion.papers.angle.experiments import nli_pairs
    from companion.papers.angle.pairs import PairData

    snli = concatenate_datasets([load_snli("dev"), load_snli("test")])
    before = PairData.from_dataset(snli, "premise", "hypothesis", "label",
                                   label_map={"entailment": 1.0, "contradiction": 0.0}.get).subset(2048, 0)
    now = nli_pairs(None, 2048)
    assert now.sentence1 == before.sentence1 and now.sentence2 == before.sentence2
    assert torch.equal(now.labels, before.labels)


#: per backbone notebook, the gpu settings that size its data: every one must read the whole set (None) or name
#: the whole file; a subset or the mirror's head there is a failure
GPU_DATA_SIZES = {
    "simace/02-sts-experiments": {"n_pairs": None, "n_dev": None, "n_transfer": None, "wiki": "full"},
    "simace/03-analysis": {"n_pairs": None, "n_dev": None, "wiki": "full"},
    "angle/02-sts-experiments": {"stsb_train": None, "stsb_test": None, "mrpc_train": None, "mrpc_test": None,
                                 "snli_pairs": None, "sts_subset": None, "nli": "full"},
    "angle/03-ablation-and-analysis": {"stsb_train": None, "stsb_test": None},
    "circumplex/02-experiments": {"n_train": None, "n_test": None},
    "circumplex/03-analysis": {"n_train": None, "n_test": None},
    "circumplex/04-full-width-heads": {"n_train": None, "n_test": None},
    "circumplex/05-fine-tuned-backbone": {"n_train": None, "n_test": None},
}


@pytest.mark.parametrize("notebook", sorted(GPU_DATA_SIZES))
def test_no_gpu_setting_reads_a_subset_or_a_head(notebook):
    from companion.publish.notebooks import notebook_settings

    cfg = notebook_settings(notebook)("gpu")
    assert {k: cfg.get(k) for k in GPU_DATA_SIZES[notebook]} == GPU_DATA_SIZES[notebook]


def test_only_the_dry_run_reads_the_mirrors_nli_pairs(monkeypatch):
    from companion.publish.notebooks import notebook_settings

    monkeypatch.setenv(DRY_RUN_ENV, "1")
    dry = notebook_settings("angle/02-sts-experiments")("gpu")
    assert dry.nli == "mirror" and dry.train_embeddings and dry.model == "tiny-bert-L12"


# --------------------------------------------------------------------------------------- (d) settings tables
@pytest.mark.parametrize("notebook", sorted(k for k, spec in all_settings().items() if spec.rows))
@pytest.mark.parametrize("profile", ["gpu", "cpu"])
def test_every_setting_of_a_backbone_notebook_has_a_sourced_or_justified_row(notebook, profile):
    from companion.gpu_settings import COLUMNS, settings_table, undocumented

    spec = all_settings()[notebook]
    cfg = spec(profile)
    assert cfg.profile == profile
    table = settings_table(spec, cfg)
    assert list(table.columns) == list(COLUMNS) and len(table) >= 10
    unsourced = table[(table.source.str.strip() == "") & (table.reason.str.strip() == "")]
    assert unsourced.empty, f"rows with neither a source nor a reason: {list(unsourced.choice)}"
    assert (table.value.str.strip() != "").all()
    assert undocumented(spec, cfg) == [], "settings no row documents"


def test_the_simace_table_says_what_the_gpu_profile_runs():
    from companion.gpu_settings import settings_table
    from companion.papers.simace.settings import STS_EXPERIMENTS

    table = settings_table(STS_EXPERIMENTS, STS_EXPERIMENTS("gpu"))
    value = dict(zip(table.choice, table.value))
    assert value["layers trained"] == "all 12 layers and the embedding layer (full fine-tuning)"
    assert value["pooling and head at training"] == "cls + Linear/tanh head"
    assert value["training data"].startswith("wiki1m_for_simcse.txt, all 10^6")
    assert value["evaluation length"].startswith("512 tokens")
    assert value["gradient clipping"].endswith("1") and "weight decay 0" in value["optimiser"]
    cpu = settings_table(STS_EXPERIMENTS, STS_EXPERIMENTS("cpu"))
    assert dict(zip(cpu.choice, cpu.value))["layers trained"].startswith("top 1 layer(s)")


def test_the_simace_02_table_has_the_roberta_base_and_mlm_runs_on_the_full_gpu_grid_only():
    from companion.gpu_settings import settings_table
    from companion.papers.simace.settings import ANALYSIS, STS_EXPERIMENTS

    gpu = settings_table(STS_EXPERIMENTS, STS_EXPERIMENTS("gpu", gpu_grid="full"))
    value, source = dict(zip(gpu.choice, gpu.value)), dict(zip(gpu.choice, gpu.source))
    assert value["RoBERTa-base runs"].startswith("roberta-base: simcse tau 0.05, margin 0°; simace tau 0.05")
    assert (value["RoBERTa-base learning rate"], value["RoBERTa-base batch size"]) == ("1e-05", "128")
    assert value["RoBERTa-base steps"] == "7813" and "Table 7" in source["RoBERTa-base learning rate"]
    assert value["MLM auxiliary objective (weight)"].startswith("0.1 x masked-LM cross-entropy")
    assert value["MLM masking"].startswith("0.15 of the tokens") and "App. J" in source["MLM auxiliary objective (weight)"]
    assert value["seeds"] == "0, 1, 2, 3, 4" and value["grid"].startswith("full: the paper's full grid")
    day = settings_table(STS_EXPERIMENTS, STS_EXPERIMENTS("gpu"))  # the default grid: neither, three seeds
    value = dict(zip(day.choice, day.value))
    assert value["RoBERTa-base runs"].startswith("none") and value["MLM auxiliary objective (weight)"].startswith("none")
    assert value["seeds"] == "0, 1, 2" and value["grid"].startswith("day: the default")
    assert "roberta_model None; mlm_weight None" not in value["grid"] and "mlm_weight 0.1" in value["grid"]
    cpu = settings_table(STS_EXPERIMENTS, STS_EXPERIMENTS("cpu"))
    value = dict(zip(cpu.choice, cpu.value))
    assert value["RoBERTa-base runs"].startswith("none") and value["MLM auxiliary objective (weight)"].startswith("none")
    assert "grid" not in set(cpu.choice)
    three = settings_table(ANALYSIS, ANALYSIS("gpu", gpu_grid="full"))
    assert not three.choice.str.contains("RoBERTa|MLM").any()


def test_the_dry_run_stands_in_simace_02_s_second_backbone(monkeypatch):
    from companion.papers.simace import roberta_settings
    from companion.publish.notebooks import notebook_settings

    monkeypatch.setenv(DRY_RUN_ENV, "1")
    dry = notebook_settings("simace/02-sts-experiments")("gpu", gpu_grid="full")  # the full grid's code paths
    assert (dry.model, dry.roberta_model) == ("tiny-bert-L12", "tiny-roberta-L12")
    assert (dry.roberta_steps, dry.roberta_batch_size, dry.roberta_lr, dry.mlm_weight) == (2, 8, 1e-5, 0.1)
    rcfg = roberta_settings(dry)
    assert (rcfg.model, rcfg.steps, rcfg.batch_size, rcfg.lr, rcfg.n_top) == ("tiny-roberta-L12", 2, 8, 1e-5, 12)
    with pytest.raises(ValueError, match="roberta_model"):
        roberta_settings(notebook_settings("simace/02-sts-experiments")("cpu"))


def test_an_undocumented_setting_is_reported():
    from companion.gpu_settings import undocumented
    from companion.papers.simace.settings import ANALYSIS

    cfg = with_runs("simace/03-analysis", gpu=dict(n_pca=1000, new_knob=3))("gpu")
    assert undocumented(ANALYSIS, cfg) == ["new_knob"]


def test_simace_scale_table_says_the_gpu_run_is_full_fine_tuning_and_keeps_the_cpu_wording():
    import pandas as pd

    from companion.papers.simace.summary import scale_table
    from companion.settings import repo_root

    settings7 = pd.read_csv(repo_root() / "data" / "simace" / "table7_settings.csv", comment="#")
    gpu = scale_table(RUNS("gpu"), 999_000, settings7)["ours"]
    assert gpu["encoder"] == "bert-base-uncased (all 12 layers and the embeddings)"
    assert "(the whole file minus 1000 held out)" in gpu["training data"]
    assert gpu["pooling"] == "cls, MLP pooler in training only"
    cpu = scale_table(RUNS("cpu"), 10_914, settings7)["ours"]
    assert cpu["encoder"] == "sentence-transformers/all-MiniLM-L6-v2 (top 1 layer(s), [CLS] path)"
    assert "(the mirrored head minus 1000 held out)" in cpu["training data"] and cpu["pooling"] == "cls, no MLP pooler"


# ----------------------------------------------------------------------------------- a preempted run resumes
def test_a_preempted_fine_tuned_circumplex_run_resumes_where_it_stopped(preemption):
    """The circumplex gpu path (the whole XLM-R fine-tuned with its head, the encoder's dropout and SoftCSE's head
    dropout drawing): stopped at step 3, after its checkpoint at step 2, and run again, it ends as a run never
    stopped, and its checkpoint is gone."""
    from companion.losses.circumplex import ECM_LABELS
    from companion.papers.circumplex.experiments import head_run
    from companion.papers.circumplex.heads import frozen_features

    enc = tiny_encoder("xlm-roberta", layers=2, max_length=32)
    feats, _, _ = frozen_features(enc, {"train": (TEXTS * 3)[:12]}, max_tokens=32, pretrained_pooling="cls",
                                  backbone_training="full", head_dropout={"SoftCSE": 0.1})
    labels = list(ECM_LABELS[:4]) * 3
    kw = dict(steps=5, batch_size=4, lr=1e-3, seed=0, n_heads=2, pooling="cls", cache=None)
    whole, head, emb = head_run("GPT", "SoftCSE", feats["train"], labels, feats["train"], labels, profile="cpu", **kw)
    kw["profile"] = "gpu"
    preemption.stop_at(3)
    with pytest.raises(KeyboardInterrupt):
        head_run("GPT", "SoftCSE", feats["train"], labels, feats["train"], labels, **kw)
    assert len(preemption.left()) == 1
    resumed, head_r, emb_r = head_run("GPT", "SoftCSE", feats["train"], labels, feats["train"], labels, **kw)
    assert torch.equal(emb, emb_r) and all(torch.equal(v, head_r.state_dict()[k]) for k, v in head.state_dict().items())
    assert (whole["first_loss"], whole["final_loss"]) == (resumed["first_loss"], resumed["final_loss"])
    assert preemption.left() == []


def test_the_gpu_settings_follow_the_authors_released_code_and_say_where():
    """Three settings read from the released code (checked by hand there): every circumplex head drops its input at
    0.1 (SoftCSE's configuration sets it, the others take modeling_config.py's default); AnglE's released script
    trains at lr 1e-5 with 100 warm-up steps for 20 epochs by default and validates on the STS test sets; Table 2's
    AnglE-BERT row is the released model that pools cls_avg (the mean of [CLS] and the token average)."""
    from companion.gpu_settings import settings_table
    from companion.papers.angle.settings import ABLATION, STS_EXPERIMENTS
    from companion.papers.circumplex.settings import EXPERIMENTS

    gpu = EXPERIMENTS("gpu")
    assert gpu.head_dropout == {"SINCERE": 0.1, "SoftCSE": 0.1, "CircularCSE": 0.1}
    source = dict(zip(*settings_table(EXPERIMENTS, gpu)[["choice", "source"]].T.values))
    assert "train_emolit.sh line 92" in source["head dropout"] and "modeling_config.py line 118" in source["head dropout"]
    for spec in (STS_EXPERIMENTS, ABLATION):
        for grid in ("day", "full"):
            cfg = spec("gpu", gpu_grid=grid)
            assert (cfg.lr, cfg.warmup) == (1e-5, 100)
    assert ABLATION("gpu", gpu_grid="full").steps == 20 * (5_749 // 32) and ABLATION("gpu").steps == 3 * (5_749 // 32)
    table = settings_table(STS_EXPERIMENTS, STS_EXPERIMENTS("gpu"))
    source, reason = (dict(zip(table.choice, table[c])) for c in ("source", "reason"))
    assert "train_angle.py" in source["learning rate"] and "line 34" in source["learning rate"]
    assert "line 35" in source["schedule and warm-up"] and "line 38" in source["steps"]
    assert "line 186" in source["checkpoint selection"] and "STS test sets" in reason["checkpoint selection"]
    assert STS_EXPERIMENTS("gpu").transfer_pooling == "cls-mean" and "cls_avg" in source["transfer pooling (Table 2)"]
    assert "transfer_pooling" not in STS_EXPERIMENTS("cpu")  # the cpu profile keeps its pooling
