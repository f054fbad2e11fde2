"""The run settings of the SimACE notebooks, in one place: the dropout-view runs' settings that notebooks 02 and 03
(and synthesis/02) share, each notebook's additions, and the gpu profile's settings table, every choice with its
source (:class:`companion.gpu_settings.Row`).

``02-sts-experiments`` trains the main runs; ``03-analysis`` and ``synthesis/02`` reload them from the run cache,
which is keyed by :data:`RUN_SETTINGS`, so every notebook builds its settings from them (:func:`with_runs`) rather
than keeping a copy. A notebook reads its own :class:`companion.profiles.Profiles`
(``cfg = STS_EXPERIMENTS(profile, gpu_grid=gpu_grid, seeds=seeds, steps=steps)``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.gpu_settings import Row, clipping, fixed, optimiser, precision
from companion.papers.simace import CONTROLS, MAIN, ROBERTA_NAMES
from companion.papers.simace.masked_lm import MLM_PROBABILITY, MLM_WEIGHT
from companion.papers.simace.transfer import SENTEVAL_REGS
from companion.profiles import Profiles

#: Per-profile settings of the dropout-view runs (paper Table 7 for the gpu profile: BERT-base, batch 64, lr 3e-5,
#: one epoch of the 1M wiki sentences = 15,625 steps, dev check every 125 steps (§5 'Training Setups'), [CLS] pooling,
#: length 32; three seeds in the default grid, the five of Table 2's mean and standard deviation in the full grid,
#: :data:`RUN_FULL`). The gpu profile alone also holds
#: how the paper trains, which the cpu profile shortcuts (the full fine-tuning with SimCSE's training-only head, the
#: whole of wiki1m, evaluation without truncation: their sources in the settings table, :data:`ROWS`).
RUN_SETTINGS: dict[str, dict[str, Any]] = {
    "smoke": dict(seeds=[0], steps=2, batch_size=8, model="tiny-bert", n_top=1, n_pairs=8, n_dev=40, lr=1e-4,
                  eval_every=1, threads=1, n_probe=8, rbf_sigmas=[0.5, 1.0]),
    "cpu": dict(seeds=[0, 1, 2], steps=640, batch_size=64, model="sentence-transformers/all-MiniLM-L6-v2",
                n_top=1, n_pairs=500, n_dev=None, lr=1e-4, eval_every=64, threads=1, n_probe=64,
                rbf_sigmas=[0.5, 0.7, 1.0, 1.4]),
    "gpu": dict(seeds=[0, 1, 2], steps=15625, batch_size=64, model="bert-base-uncased", n_top=12,
                n_pairs=None, n_dev=None, lr=3e-5, eval_every=125, threads=None, n_probe=64,
                rbf_sigmas=[0.5, 0.7, 1.0], mlp_head=True, train_embeddings=True, eval_max_length=512,
                wiki="full"),
    "common": dict(dropout=0.1, pooling="cls", max_length=32, n_heldout=1000),
}

#: What the gpu profile's full grid (``--grid full``) changes in the runs' settings: Table 2's five seeds
RUN_FULL: dict[str, Any] = dict(seeds=[0, 1, 2, 3, 4], rbf_sigmas=[0.5, 0.7, 1.0, 1.4])

#: Why three seeds suffice in the default grid (the gpu settings table's last row)
RUN_GRID_REASON = ("three seeds, the fewest that give a t interval: by our cpu run's paired spread (0.02-0.1 points) "
                   "they detect every graded gap of Table 2, the equal-temperature and the RBF claims and the "
                   "ablations of Table 14 (two or three seeds needed, companion.stats.mde at 80 % power); at the "
                   "paper's own unpaired spread (Table 2's sds, about 0.8 points on the SimACE-SimCSE gap) five are "
                   "needed for its 1.49 points, which --grid full runs (an epoch of BERT-base costs about 20 GPU "
                   "minutes a run). The RBF width is chosen from three widths on seed 0 (the cpu run chose 0.7), "
                   "from four in the full grid")

#: Notebook 02's gpu-only RoBERTa-base runs (Table 7's RoBERTa-base row: batch 128, lr 1e-5, max_seq 32, every
#: objective at tau 0.05, margin 10°, [CLS] pooler; one epoch, §4.2 'Training Setups': 10^6 / 128 = 7,812.5, rounded up
#: to whole batches): the settings that differ from the BERT-base runs, as keys of notebook 02's gpu profile
#: (:func:`companion.papers.simace.roberta_settings` applies them). Table 2's RoBERTa-base gap is the one the
#: equal-temperature claims are graded against.
ROBERTA_GPU: dict[str, Any] = dict(roberta_model="roberta-base", roberta_lr=1e-5, roberta_batch_size=128,
                                   roberta_steps=7813)


def with_runs(notebook: str, *, rows: tuple = (), grid_reason: str = RUN_GRID_REASON,
              **extra: Mapping[str, Any]) -> Profiles:
    """The :class:`~companion.profiles.Profiles` of ``notebook``: :data:`RUN_SETTINGS` with per-profile additions
    (``smoke=dict(...)``, ``cpu=...``, ``gpu=...``, ``common=...``; ``full``: what the gpu profile's full grid
    changes beyond :data:`RUN_FULL`; ``grid_reason``: why the default grid suffices, :data:`RUN_GRID_REASON` by
    default). An addition may not redefine a shared run setting (their runs are cached under them)."""
    unknown = set(extra) - set(RUN_SETTINGS) - {"full"}
    if unknown:
        raise ValueError(f"Unknown profile(s) {', '.join(sorted(unknown))}; use {', '.join(RUN_SETTINGS)}, full.")
    out = {}
    for profile, values in RUN_SETTINGS.items():
        added = extra.get(profile, {})
        clash = set(added) & (set(values) | set(RUN_SETTINGS["common"]))
        if clash:
            raise ValueError(f"{', '.join(sorted(clash))} is a shared run setting; change it in RUN_SETTINGS.")
        out[profile] = {**values, **added}
    return Profiles(notebook, **out, full={**RUN_FULL, **extra.get("full", {})}, grid_reason=grid_reason, rows=rows)


# ------------------------------------------------------------------------------------ the gpu settings table
def _layers(cfg: Mapping) -> str:
    if cfg.get("train_embeddings"):
        return f"all {cfg['n_top']} layers and the embedding layer (full fine-tuning)"
    return f"top {cfg['n_top']} layer(s) over frozen, cached lower states; embeddings frozen"


def _objectives(cfg: Mapping) -> str:
    return "; ".join(f"{name} tau {tau:g}, margin {margin:g}°" for name, (_, tau, margin) in MAIN.items())


_BACKBONE_02 = Row("backbone", "model", "Table 7 (BERT-base row); Tables 1-2",
                         "BERT-base for every run but the RoBERTa-base runs of the equal-temperature claims (rows "
                         "'RoBERTa-base ...' below); the same runs with the MLM term for Table 13 ('MLM ...' below)")
_BACKBONE_03 = Row("backbone", "model", "Table 7 (BERT-base row); Tables 1-2",
                         "BERT-base only: this notebook grades no RoBERTa-base or MLM-trained number (notebook 02 "
                         "trains those)")

ROWS: tuple[Row, ...] = (
    Row("layers trained", _layers, "full fine-tuning as SimCSE's train.py runs it (every parameter of "
        "BertForCL); the paper follows SimCSE's setup (§4.2, App. 'Unsupervised STS tasks')",
        keys=("n_top", "train_embeddings")),
    Row("pooling and head at training", lambda cfg: f"{cfg['pooling']} + Linear/tanh head" if cfg.get("mlp_head")
        else f"{cfg['pooling']}, no head", "§4.2 ([CLS] as the training representation) and Table 7's caption "
        "('cls': a linear layer and an activation); SimCSE run_unsup_example.sh: --pooler_type cls --mlp_only_train",
        keys=("pooling", "mlp_head")),
    Row("head initialisation", lambda cfg: "normal(0, 0.02), bias 0" if cfg.get("mlp_head") else "no head",
        "SimCSE simcse/models.py: cl_init calls the model's init_weights (BERT: normal(0, initializer_range 0.02), "
        "zero bias)"),
    Row("pooling at evaluation", lambda cfg: f"{cfg['pooling']} without the head",
        "§4.2 (the [CLS] output without the pooler for evaluation)"),
    Row("dropout (the augmentation)", "dropout", "BERT-base's hidden and attention dropout 0.1, the two views' "
        "only difference (SimCSE's augmentation, §1)"),
    Row("training data", lambda cfg: "wiki1m_for_simcse.txt, all 10^6 sentences" if cfg.get("wiki") == "full"
        else "the mirror's first 11,914 lines of wiki1m", "§4.1 (10^6 Wikipedia sentences, as SimCSE)",
        keys=("wiki",)),
    Row("held out of the training pool", "n_heldout", "",
        "the last 1,000 sentences are kept for Fig. 2's PCA (1000 training samples, Fig. 2 caption) and the probe "
        "batch; the paper draws them from its training data, so 999,000 are trained here"),
    Row("training length", "max_length", "Table 7 (max_seq 32)"),
    Row("evaluation length", lambda cfg: f"{cfg['eval_max_length']} tokens (the model's position limit): no "
        "truncation" if cfg.get("eval_max_length") else f"cut at {cfg['max_length']} tokens, as in training",
        "SimCSE evaluation.py tokenises SentEval's sentences with padding only (no max_length)",
        keys=("eval_max_length",)),
    Row("optimiser", optimiser(), "Hugging Face Trainer defaults, which SimCSE's "
        "train.py keeps (AdamW, weight_decay 0.0, adam_epsilon 1e-8)"),
    Row("learning rate", "lr", "Table 7 (3e-5 for BERT-base)"),
    Row("schedule and warm-up", fixed("linear decay to 0 from the first step, no warm-up"),
        "Hugging Face Trainer defaults (lr_scheduler_type linear, warmup_steps 0), kept by SimCSE's script"),
    Row("gradient clipping", clipping, "Hugging Face Trainer default max_grad_norm 1.0"),
    Row("batch size", "batch_size", "Table 7 (64)"),
    Row("steps", "steps", "§4.2 (one epoch): 10^6 / 64 = 15,625"),
    Row("checkpoint selection", lambda cfg: f"best STS-B dev Spearman, every {cfg['eval_every']} steps",
        "Table 7 (eval_steps 125; 'stsb': the best checkpoint on STS-B dev)", keys=("eval_every",)),
    Row("objectives", _objectives, "Table 7 (tau 0.06 and margin 10° for SimACE on BERT-base); §4.2 "
        "(SimCSE and ArcCon at tau 0.05)"),
    Row("seeds", "seeds", "Table 2 (mean and sd over 5 runs)", "the seed values are not stated; three in the "
        "default grid, five in the full grid (the grid row below)"),
    Row("precision", precision, "SimCSE run_unsup_example.sh passes --fp16",
        "float32 unless Accelerate is switched on (then bfloat16): the loop offers no float16"),
    Row("STS test sets", lambda cfg: "every pair" if cfg.get("n_pairs") is None else f"{cfg['n_pairs']} pairs each",
        "§4.1 (STS12-16, STS-B, SICK-R; SentEval's 'all' setting)", keys=("n_pairs",)),
    Row("STS-B dev", lambda cfg: "every pair" if cfg.get("n_dev") is None else f"{cfg['n_dev']} pairs",
        "Table 7 ('stsb')", keys=("n_dev",)),
    Row("probe batch", "n_probe", "", "training-mode views of held-out sentences for the angle curves of "
        "Figs. 4 and 7 (the figures average in-batch angles)"),
    Row("RBF kernel widths", "rbf_sigmas", "App. F (Eq. 15)", "grid and chosen width not stated: chosen here on "
        "STS-B dev with seed 0"),
    Row("CPU threads", "threads", "", "not a training setting: the machine's default on a GPU box"),
)

def _roberta_runs(cfg: Mapping) -> str:
    if not cfg.get("roberta_model"):
        return "none (this profile grades the equal-temperature claims on its own encoder's runs)"
    specs = {**MAIN, **CONTROLS}
    runs = "; ".join(f"{specs[n][0]} tau {specs[n][1]:g}, margin {specs[n][2]:g}°" for n in ROBERTA_NAMES)
    return f"{cfg['roberta_model']}: {runs}"


def _mlm(cfg: Mapping) -> str:
    if not cfg.get("mlm_weight"):
        return "none (the MLM runs are the gpu profile's full grid's, --grid full)"
    return (f"{cfg['mlm_weight']:g} x masked-LM cross-entropy added to the loss of {', '.join(MAIN)} on "
            f"{cfg['model']}: Table 13's 'with MLM' runs, shown beside the paper's rows, graded by no claim")


def _mlm_masking(cfg: Mapping) -> str:
    if not cfg.get("mlm_probability"):
        return "none"
    return (f"{cfg['mlm_probability']:g} of the tokens (special tokens and padding never), each masked copy of "
            "both views: 80 % the mask token, 10 % a random token, 10 % unchanged")


ROWS_02: tuple[Row, ...] = (
    Row("RoBERTa-base runs", _roberta_runs, "Table 2 (the RoBERTa-base gap the equal-temperature claims are graded "
        "against); Table 7 (RoBERTa-base: tau 0.05 and margin 10° for SimACE, the baselines' tau)",
        "SimCSE and SimACE at 0.05 give the paper's equal-tau gap; both at 0.06 the second equal-tau claim. Every "
        "other setting (full fine-tuning, the first token <s> with the training-only Linear/tanh head, dropout 0.1, "
        "max_seq 32, wiki1m, seeds, STS-B dev selection every eval_steps) is the BERT-base runs' (Table 7's "
        "RoBERTa-base row: cls pooler, max_seq 32, eval_steps 125, stsb); SimCSE simcse/models.py runs RobertaForCL "
        "with the same first-token pooler and MLP head as BertForCL", keys=("roberta_model",)),
    Row("RoBERTa-base learning rate", "roberta_lr", "Table 7 (1e-5 for RoBERTa-base)"),
    Row("RoBERTa-base batch size", "roberta_batch_size", "Table 7 (128 for RoBERTa-base)"),
    Row("RoBERTa-base steps", "roberta_steps", "§4.2 'Training Setups' (one epoch): 10^6 / 128 = 7,812.5",
        "rounded up: whole batches of 128, the last one 64 sentences past the epoch"),
    Row("MLM auxiliary objective (weight)", _mlm, "App. J (SimCSE, ArcCon and SimACE also trained with MLM for Table "
        "13); the weight follows SimCSE train.py (--do_mlm, mlm_weight default 0.1) and simcse/models.py (cl_forward "
        "adds mlm_weight x the masked-LM loss)", "the paper states no weight: SimCSE's default, the baseline whose "
        "setup the paper follows (App. B). No claim grades these runs: the Table 13 claim compares the rows without "
        "MLM", keys=("mlm_weight",)),
    Row("MLM masking", _mlm_masking, "SimCSE train.py (mlm_probability default 0.15; its collator's mask_tokens: "
        "BERT's 80/10/10 rule, special tokens never masked; App. J cites Devlin et al. 2018)",
        "the paper states no masking rate: SimCSE's default", keys=("mlm_probability",)),
    Row("MLM head", lambda cfg: "the backbone's pretrained masked-LM head (Hugging Face AutoModelForMaskedLM), trained "
        "with the encoder, its output layer a copy not tied to the word embeddings; a third forward pass of the "
        "masked ids" if cfg.get("mlm_weight") else "none", "SimCSE train.py (BERT: lm_head loaded from the "
        "pretrained cls.predictions) and simcse/models.py (cl_forward runs the encoder once more on mlm_input_ids)"),
    Row("transfer training data", lambda cfg: "whole" if cfg.get("n_transfer") is None else
        f"{cfg['n_transfer']} items per task", "App. J (SentEval's standard configuration)",
        keys=("n_transfer", "n_transfer_test")),
    Row("transfer protocol", lambda cfg: f"{cfg['transfer_folds']}-fold, inner {cfg['transfer_inner']}-fold over "
        f"{len(cfg['transfer_regs'])} L2 strengths", "App. J (SentEval's 10-fold protocol); SentEval's scikit-learn "
        "grid 2^-2..2^3", "a scikit-learn logistic regression, not SentEval's PyTorch probe",
        keys=("transfer_folds", "transfer_inner", "transfer_regs")),
    Row("training-time rounds", "timing_rounds", "", "Table 8's comparison measured side by side, the median of "
        "this many rounds"),
)

ROWS_03: tuple[Row, ...] = (
    Row("PCA samples", "n_pca", "Fig. 2 caption (1000 random training sentences)"),
)


# ------------------------------------------------------------------------------------------------- the notebooks
ANGLE_SIMILARITY = Profiles(
    "simace/01-angle-similarity",
    smoke=dict(seeds=[0], steps=4, n_points=256, log_every=2, grid=6),
    cpu=dict(seeds=[0, 1, 2, 3, 4], steps=400, n_points=4096, log_every=10, grid=60),
    # gpu = cpu: a toy encoder on synthetic points (no backbone) already runs at full scale on a CPU
    gpu=dict(seeds=[0, 1, 2, 3, 4], steps=400, n_points=4096, log_every=10, grid=60),
    common=dict(batch_size=64, lr=1e-3, tau=0.05, margin_deg=10.0, dim_in=32, dim_out=64, bias=8.0,
                dropout=0.1, n_clusters=16),
)

#: notebook 02: the run settings and the transfer probe's sizes
STS_EXPERIMENTS = with_runs(
    "simace/02-sts-experiments",
    smoke=dict(n_transfer=24, n_transfer_test=24, transfer_folds=2, transfer_inner=2, transfer_regs=[1.0],
               timing_rounds=2, roberta_steps=2, roberta_batch_size=8),
    cpu=dict(n_transfer=1000, n_transfer_test=None, transfer_folds=10, transfer_inner=3,
             transfer_regs=list(SENTEVAL_REGS), timing_rounds=11),
    # gpu: SentEval's full sets and its 10-fold protocol (App. J); the RoBERTa-base runs of the equal-tau claims
    # (Table 7's RoBERTa-base row); the MLM term of Table 13's "with MLM" runs (App. J; SimCSE's defaults) in the
    # full grid only
    gpu=dict(n_transfer=None, n_transfer_test=None, transfer_folds=10, transfer_inner=5,
             transfer_regs=list(SENTEVAL_REGS), timing_rounds=21, **{**ROBERTA_GPU, "roberta_model": None},
             mlm_weight=None, mlm_probability=MLM_PROBABILITY),
    # the full grid adds the RoBERTa-base runs of the equal-temperature claims (Table 2's RoBERTa-base gap) and App.
    # J's MLM runs (Table 13's "with MLM" rows, which no claim grades)
    full=dict(roberta_model=ROBERTA_GPU["roberta_model"], mlm_weight=MLM_WEIGHT),
    grid_reason=RUN_GRID_REASON + ". The default grid grades the equal-temperature claims on BERT-base's own controls "
    "(SimACE at 0.05, SimCSE at 0.06), as the cpu profile does; --grid full adds the RoBERTa-base runs Table 2's gap "
    "is printed for, and App. J's MLM runs (Table 13's rows with MLM), which grade no claim",
    rows=(_BACKBONE_02, *ROWS, *ROWS_02),
)

#: notebook 03: the run settings (its cached runs are keyed by them) and the PCA sample
ANALYSIS = with_runs(
    "simace/03-analysis",
    smoke=dict(n_pca=40), cpu=dict(n_pca=1000),
    gpu=dict(n_pca=1000),  # 1000 PCA samples (Fig. 2 caption)
    rows=(_BACKBONE_03, *ROWS, *ROWS_03),
)

#: every SimACE notebook's settings, by ``<paper>/<stem>``
NOTEBOOKS: dict[str, Profiles] = {p.notebook: p for p in (ANGLE_SIMILARITY, STS_EXPERIMENTS, ANALYSIS)}
