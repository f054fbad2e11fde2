"""Every setting of the gpu profile traced to its source: one table per backbone notebook.

:func:`settings_table` turns a notebook's settings (its ``cfg``) into a table of every choice that determines what
is trained and how it is evaluated (layers trained, pooling at training and at evaluation, heads, data and its size,
lengths, optimiser, learning rate, schedule, warm-up, batch, steps, seeds, precision, evaluation protocol), each with
its value, the paper's location or the released code's default it follows (``source``) and, wherever it departs
from the paper or the paper states nothing, why (``reason``). Values come from the settings themselves and, for what
the code fixes (optimiser, clipping, schedule), from the code's own defaults, so the table cannot drift from what
runs. Facts about released code are cited (file and option), never copied.

>>> cfg = settings("gpu", **run_settings(...))                    # in notebooks/simace/02-sts-experiments
>>> settings_table("simace/02-sts-experiments", cfg)             # choice | value | source | reason
>>> gpu_table("simace/02-sts-experiments", cfg)                  # the gpu profile's, whichever profile runs

:func:`notebook_settings` reads a notebook's settings without running it (the ``cfg = settings(...)`` call of its
``.pct.py``), so the tables can be built and tested for every profile from the repository alone;
:func:`undocumented` lists settings no row of a table covers.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

COLUMNS = ("choice", "value", "source", "reason")


@dataclass(frozen=True)
class Row:
    """One choice: ``value`` is a settings key, a function of the settings, or a fixed text; ``keys`` are the
    settings the row documents (default: ``value`` when it is a key)."""

    choice: str
    value: str | Callable[[Mapping], Any]
    source: str = ""
    reason: str = ""
    keys: tuple[str, ...] = ()

    def covers(self) -> tuple[str, ...]:
        return self.keys or ((self.value,) if isinstance(self.value, str) else ())


def _train_default(name: str) -> Any:
    """A default of :func:`companion.training.train` (what every gpu path's optimiser runs with)."""
    from companion.training import train

    return inspect.signature(train).parameters[name].default


def _fixed(text: str) -> Callable[[Mapping], str]:
    return lambda cfg: text


def _optimiser(weight_decay: Callable[[], float] | None = None) -> Callable[[Mapping], str]:
    """The optimiser as the code builds it: torch's AdamW defaults; the weight decay ``weight_decay()``, by default
    the training loop's."""

    def describe(cfg: Mapping) -> str:
        import torch

        defaults = inspect.signature(torch.optim.AdamW).parameters
        betas, eps = defaults["betas"].default, defaults["eps"].default
        decay = _train_default("weight_decay") if weight_decay is None else weight_decay()
        return f"AdamW (betas {betas[0]}, {betas[1]}; eps {eps:g}), weight decay {decay:g}"

    return describe


def _clipping(cfg: Mapping) -> str:
    return f"global gradient norm clipped at {_train_default('max_grad_norm'):g}"


def _precision(cfg: Mapping) -> str:
    return "float32; bfloat16 autocast with COMPANION_ACCELERATE=1 or `accelerate launch`"


# ----------------------------------------------------------------------------------------------------- SimACE
def _simace_layers(cfg: Mapping) -> str:
    if cfg.get("train_embeddings"):
        return f"all {cfg['n_top']} layers and the embedding layer (full fine-tuning)"
    return f"top {cfg['n_top']} layer(s) over frozen, cached lower states; embeddings frozen"


def _simace_objectives(cfg: Mapping) -> str:
    from companion.papers.simace import MAIN

    return "; ".join(f"{name} tau {tau:g}, margin {margin:g}°" for name, (_, tau, margin) in MAIN.items())


SIMACE_02_BACKBONE = Row("backbone", "model", "Table 7 (BERT-base row); Tables 1-2",
                         "BERT-base for every run but the RoBERTa-base runs of the equal-temperature claims (rows "
                         "'RoBERTa-base ...' below); the same runs with the MLM term for Table 13 ('MLM ...' below)")
SIMACE_03_BACKBONE = Row("backbone", "model", "Table 7 (BERT-base row); Tables 1-2",
                         "BERT-base only: this notebook grades no RoBERTa-base or MLM-trained number (notebook 02 "
                         "trains those)")

SIMACE_ROWS: tuple[Row, ...] = (
    Row("layers trained", _simace_layers, "full fine-tuning as SimCSE's train.py runs it (every parameter of "
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
    Row("optimiser", _optimiser(), "Hugging Face Trainer defaults, which SimCSE's "
        "train.py keeps (AdamW, weight_decay 0.0, adam_epsilon 1e-8)"),
    Row("learning rate", "lr", "Table 7 (3e-5 for BERT-base)"),
    Row("schedule and warm-up", _fixed("linear decay to 0 from the first step, no warm-up"),
        "Hugging Face Trainer defaults (lr_scheduler_type linear, warmup_steps 0), kept by SimCSE's script"),
    Row("gradient clipping", _clipping, "Hugging Face Trainer default max_grad_norm 1.0"),
    Row("batch size", "batch_size", "Table 7 (64)"),
    Row("steps", "steps", "§4.2 (one epoch): 10^6 / 64 = 15,625"),
    Row("checkpoint selection", lambda cfg: f"best STS-B dev Spearman, every {cfg['eval_every']} steps",
        "Table 7 (eval_steps 125; 'stsb': the best checkpoint on STS-B dev)", keys=("eval_every",)),
    Row("objectives", _simace_objectives, "Table 7 (tau 0.06 and margin 10° for SimACE on BERT-base); §4.2 "
        "(SimCSE and ArcCon at tau 0.05)"),
    Row("seeds", "seeds", "Table 2 (mean and sd over 5 runs)", "the seed values are not stated"),
    Row("precision", _precision, "SimCSE run_unsup_example.sh passes --fp16",
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
    from companion.papers.simace import CONTROLS, MAIN, ROBERTA_NAMES

    if not cfg.get("roberta_model"):
        return "none (this profile grades the equal-temperature claims on its own encoder's runs)"
    specs = {**MAIN, **CONTROLS}
    runs = "; ".join(f"{specs[n][0]} tau {specs[n][1]:g}, margin {specs[n][2]:g}°" for n in ROBERTA_NAMES)
    return f"{cfg['roberta_model']}: {runs}"


def _mlm(cfg: Mapping) -> str:
    from companion.papers.simace import MAIN

    if not cfg.get("mlm_weight"):
        return "none (the MLM runs are the gpu profile's)"
    return (f"{cfg['mlm_weight']:g} x masked-LM cross-entropy added to the loss of {', '.join(MAIN)} on "
            f"{cfg['model']}: Table 13's 'with MLM' runs, shown beside the paper's rows, graded by no claim")


def _mlm_masking(cfg: Mapping) -> str:
    if not cfg.get("mlm_probability"):
        return "none"
    return (f"{cfg['mlm_probability']:g} of the tokens (special tokens and padding never), each masked copy of "
            "both views: 80 % the mask token, 10 % a random token, 10 % unchanged")


SIMACE_02_ROWS: tuple[Row, ...] = (
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

SIMACE_03_ROWS: tuple[Row, ...] = (
    Row("PCA samples", "n_pca", "Fig. 2 caption (1000 random training sentences)"),
)

# ---------------------------------------------------------------------------------------------------- concepts
_CONCEPT_LR_REASON = ("not stated in the text (App. E's Table 9 lost its body); the cpu value, raised for short "
                      "top-layer runs, is kept: a likely departure")


def _concept_default(name: str) -> Any:
    from companion.papers.concepts.readouts import train_concept_model

    return inspect.signature(train_concept_model).parameters[name].default


def _concept_layers(cfg: Mapping) -> str:
    if cfg.get("profile") == "gpu":
        from companion.papers.concepts.finetune import GPU_RECIPE

        if GPU_RECIPE.get("train_embeddings"):
            return f"all {cfg['n_top']} layers, the embedding layer and MPNet's relative-position table"
    return f"top {cfg['n_top']} layer(s) over frozen, cached lower states; embeddings frozen"


def _concept_objective(cfg: Mapping) -> str:
    d2d = False
    if cfg.get("profile") == "gpu":
        from companion.papers.concepts.finetune import GPU_RECIPE

        d2d = bool(GPU_RECIPE.get("d2d"))
    return ("L_syn + L_t2d" + (" + 0.7 L_d2d (WordNet-only definition pairs)" if d2d else "") +
            " (in-batch InfoNCE) + 0.5 L_neg (BCE on rule-made hard negatives)")


CONCEPT_TRAINING_ROWS: tuple[Row, ...] = (
    Row("backbone", "model", "Table 1 caption (all-mpnet-base-v2)"),
    Row("layers trained", _concept_layers, "§4.4 (layer-wise decay per transformer layer over the whole network; "
        "Fig. 2's bi-encoder layers 1-12)", keys=("n_top",)),
    Row("readouts (conditions)", lambda cfg: ", ".join(cfg.get("conditions", [])) or "B1 (for the modifier "
        "families)", "Table 1 and §4.2, §5.3 (B1, B2, B3, M1, M2, M3, B1-unified; M1-K6 §5.3's wider window)",
        keys=("conditions",)),
    Row("readout window K", "k", "Table 1 caption (K = 4)"),
    Row("objective", _concept_objective, "§4.3 (L_syn + L_t2d + 0.7 L_d2d + 0.5 L_neg); §4.5 (d2d pairs: a term's "
        "definitions grouped, up to 6 per term)",
        "the d2d pairs are WordNet-only: a row's definition with another WordNet sense's definition of the same term "
        "(often a different sense), where the paper pairs definitions across WordNet and Wiktionary; the cpu recipe "
        "leaves the term out (its short top-layer runs and their records stay as they were)"),
    Row("temperature", "tau", "", "not found in the text; SimCSE's 0.05"),
    Row("training data", lambda cfg: f"{cfg['n_train']:,} WordNet synsets (term, masked definition, one synonym "
        "pair, the hard negatives)", "§4.5 (3.3M WordNet and Wiktionary pairs; headword masking)",
        "WordNet only: Wiktionary (590K syn + 2.2M t2d of the 3.3M pairs) is not in the data mirror and no fetch of "
        "a Wiktionary dump is wired, so its pairs and the cross-source d2d pairs are out", keys=("n_train",)),
    Row("hard negatives per definition", lambda cfg: "all five rules" if cfg.get("max_negatives") is None else
        f"at most {cfg['max_negatives']}", "App. G (five rules)", keys=("max_negatives",)),
    Row("length", "max_length", "", "not stated in the text; 64 tokens, at training and at evaluation"),
    Row("optimiser", _optimiser(lambda: _concept_default("weight_decay")), "§4.4 (AdamW)",
        "weight decay not stated in the text: train_concept_model's default"),
    Row("learning rate", "lr", "", _CONCEPT_LR_REASON),
    Row("layer-wise decay", "layer_decay", "§4.4 (0.90 per transformer layer)"),
    Row("readout learning rate", "pooling_lr_mult", "§4.4 (5x the base rate)"),
    Row("schedule and warm-up", lambda cfg: f"linear warm-up over {round(cfg['warmup_frac'] * cfg['steps'])} steps, "
        "then linear decay to 0", "§4.4 (100 warm-up steps, linear decay to zero)", keys=("warmup_frac",)),
    Row("gradient clipping", _clipping, "", "not stated in the text: the training loop's default"),
    Row("batch size", "batch", "Table 1 caption (batch 16)"),
    Row("steps", "steps", "Table 1 caption (8k steps)"),
    Row("seeds", "seeds", "Limitations ('single seed')", "three seeds here for a spread"),
    Row("precision", _precision, "", "not stated in the text"),
    Row("CPU threads", "threads", "", "not a training setting"),
)

CONCEPT_03_ROWS: tuple[Row, ...] = (
    Row("in-domain evaluation pool", "n_rows", "§4.5 (10 % of synsets held out)",
        "pool size not stated (absolute R@10 is not comparable, within-run differences are)"),
    Row("HH and SH-proxy pools", "n_split_rows", "§4.5 (head-holdout, source-holdout)",
        "SH is a proxy: lexicographer files held out (the paper's SH trains on Wiktionary)"),
    Row("P1 curves", lambda cfg: f"{cfg['p1_steps']} steps on {cfg['p1_n_train']:,} synsets, every "
        f"{cfg['p1_every']} steps", "§5 (P1)", "the curves are the 8k-step runs themselves",
        keys=("p1_steps", "p1_every", "p1_n_train")),
    Row("§5.1's earlier layers (P2)", lambda cfg: f"B1 with its top {cfg['p2_n_top']} layer(s) trained",
        "§5.1 (P2)", "on the gpu path every layer is trained already",
        keys=("p2_n_top",)),
)

CONCEPT_04_ROWS: tuple[Row, ...] = (
    Row("NP paraphrase items per family", "per_family", "App. I (4,000-item pool)"),
    Row("frozen-backbone analyses", "backbone", "Table 1 caption", keys=("backbone", "n_backbone_rows")),
    Row("epsilon-compositionality samples", lambda cfg: f"{cfg['per_kind']} per kind, {cfg['eps_per_item']} per item, "
        f"{cfg['n_definitions']} definitions", "§3 (ε_τ)", "sample sizes not stated",
        keys=("per_kind", "eps_per_item", "n_definitions")),
)

# ------------------------------------------------------------------------------------------------------- AnglE
def _angle_layers(cfg: Mapping) -> str:
    if cfg.get("train_embeddings"):
        return f"all {cfg['n_top']} layers and the embedding layer (full fine-tuning, embedding dropout included)"
    return f"top {cfg['n_top']} layer(s) over frozen, cached lower states; embeddings frozen"


def _angle_selection(cfg: Mapping) -> str:
    if cfg.get("eval_every"):
        return (f"the best STS-B dev Spearman among the trained checkpoints, every {cfg['eval_every']} steps and at "
                "the end")
    return "the last step (no selection)"


def _angle_positives(cfg: Mapping) -> str:
    return (f"STS-B pairs with gold >= {cfg['stsb_positive']:g}; binary labels as given; duplicate sentences in a "
            f"batch joined (ISP); a row's several positives {'summed' if cfg['ibn_positives'] == 'sum' else 'averaged'}")


def _subset(key: str, whole: str) -> Callable[[Mapping], str]:
    return lambda cfg: whole if cfg.get(key) is None else f"{cfg[key]:,} pairs drawn with seed 0"


ANGLE_ROWS: tuple[Row, ...] = (
    Row("backbone", "model", "§4.2 (pre-trained uncased BERT base, for AnglE and every BERT baseline)"),
    Row("layers trained", _angle_layers, "§4.2 (BERT-base fine-tuned, as its BERT baselines)",
        keys=("n_top", "train_embeddings")),
    Row("pooling at training and evaluation", "pooling", "Table 4 (pooling ablation: cls best)"),
    Row("length", "max_length", "App. A.5 (max length 128 in the transfer setting)",
        "not stated for the non-transfer runs: 128 there too"),
    Row("objective", _fixed("CoSENT + in-batch negatives + angle, weights 1, 1, 1"), "Eq. 8 (§3.4); the released "
        "code's default weights", "the paper grid-searches the weights per data set (App. A.5) without reporting them"),
    Row("temperatures", lambda cfg: f"cosine {cfg['tau_cos']:g}, in-batch {cfg['tau_ibn']:g}, angle "
        f"{cfg['tau_angle']:g}", "§4.2 (0.05 for the cosine and in-batch terms, 1.0 for the angle term)",
        keys=("tau_cos", "tau_ibn", "tau_angle")),
    Row("in-batch positives", _angle_positives, "Eq. 2 and §3.3 (supervised positives, ISP); the released in-batch "
        "loss casts labels to integers, so every pair labelled 1 or more is a positive, and sums a row's positives",
        "the paper does not say how graded labels enter Eq. 2: the gpu profile counts them as the released code does "
        "(gold >= 1); the cpu profile keeps gold >= 4 ('mostly equivalent'), chosen before that reading",
        keys=("stsb_positive", "ibn_positives")),
    Row("optimiser", _optimiser(), "", "not stated in the paper: the training loop's AdamW"),
    Row("learning rate", "lr", "", "not stated in the paper: 2e-5, a usual rate for fine-tuning BERT-base"),
    Row("schedule and warm-up", lambda cfg: f"linear warm-up over {cfg['warmup']} steps, then linear decay to 0",
        "", "not stated in the paper", keys=("warmup",)),
    Row("gradient clipping", _clipping, "", "not stated in the paper: the training loop's default"),
    Row("batch size", "batch_size", "App. A.5 (8, 16, 32 and 50 tried; larger was better)",
        "32 for every objective; notebook 02's batch-size runs try all four"),
    Row("checkpoint selection", _angle_selection, "the released trainer evaluates a validation set during training "
        "and keeps the best checkpoint", "STS-B dev is the validation set (the interval, 125 steps, is SimCSE's, "
        "whose setup App. A.5 follows for its seed)", keys=("eval_every",)),
    Row("seeds", "seeds", "App. A.5 (seed 42, as SimCSE)", "42 and two more for a spread over runs (the paper "
        "prints one run per row)"),
    Row("precision", _precision, "", "not stated in the paper"),
    Row("length buckets", "buckets", "", "not a training setting: length-sorted sub-batches give the same "
        "embeddings with less padding"),
    Row("CPU threads", "threads", "", "not a training setting"),
)

ANGLE_02_ROWS: tuple[Row, ...] = (
    Row("STS-B training pairs", _subset("stsb_train", "all 5,749"), "Table 3 (STS-B train, non-transfer)",
        keys=("stsb_train",)),
    Row("STS-B test pairs", _subset("stsb_test", "all 1,379"), "Table 3", keys=("stsb_test",)),
    Row("MRPC pairs", lambda cfg: "all" if cfg.get("mrpc_train") is None else f"{cfg['mrpc_train']:,} training, "
        f"{cfg['mrpc_test']:,} test pairs drawn with seed 0", "Table 3 (MRPC)", keys=("mrpc_train", "mrpc_test")),
    Row("transfer training data", lambda cfg: "SNLI and MultiNLI training splits, whole: entailment a positive pair, "
        "contradiction a negative, neutral dropped" if cfg.get("nli") == "full" else "the mirror's SNLI dev and test "
        f"pairs (neutral dropped), {cfg['snli_pairs']:,} drawn with seed 0", "§4.3 (trained on MNLI and SNLI); the "
        "released code's NLI training drops neutral pairs", "SNLI train and MultiNLI are not in the mirror: `python "
        "-m companion data fetch --only snli-train,mnli-train` downloads them for the gpu profile",
        keys=("nli", "snli_pairs")),
    Row("transfer evaluation", _subset("sts_subset", "every pair of STS12-16, STS-B test and SICK-R test"),
        "Table 2 (seven STS sets)", keys=("sts_subset",)),
    Row("steps", lambda cfg: f"STS-B {cfg['steps_stsb']}, MRPC {cfg['steps_mrpc']}, NLI "
        f"{cfg['steps_snli'] if cfg['steps_snli'] is not None else 'one epoch (pairs // batch)'}", "",
        "epochs not stated in the paper: three over STS-B (5,749 // 32 = 179 steps each, the budget of notebook "
        "03's Table 4 runs) and MRPC (4,076 // 32 = 127), one over the NLI pairs",
        keys=("steps_stsb", "steps_mrpc", "steps_snli")),
    Row("MRPC checkpoint", _fixed("the last step"), "", "no MRPC validation split is mirrored"),
    Row("batch sizes (App. A.5)", "batch_sizes", "App. A.5 (8, 16, 32, 50)"),
)

ANGLE_03_ROWS: tuple[Row, ...] = (
    Row("STS-B training pairs", _subset("stsb_train", "all 5,749"), "Table 4 (STS-B)", keys=("stsb_train",)),
    Row("STS-B test pairs", _subset("stsb_test", "all 1,379"), "Table 4", keys=("stsb_test",)),
    Row("steps", "steps", "", "epochs not stated in the paper: three over STS-B at batch 32, the budget of "
        "notebook 02's STS-B runs (Tables 3 and 4 print the same 86.26)"),
)


# -------------------------------------------------------------------------------------------------- circumplex
_FROZEN_OPTION = ("backbone_training='frozen' keeps the head over frozen, cached last-layer states as a named "
                  "option: the paper's setting for its LLM backbones (§4.1), and the cpu profile's")


def _circumplex_layers(cfg: Mapping) -> str:
    if cfg.get("backbone_training") == "full":
        return "every layer of the encoder and its embeddings (full fine-tuning, their dropout 0.1), with the head"
    return "the head only; the backbone frozen (its last-layer states cached)"


def _circumplex_dropout(cfg: Mapping) -> str:
    rates = cfg.get("head_dropout") or {}
    if cfg.get("backbone_training") != "full" or not rates:
        return "none"
    return ", ".join(f"{loss} {rate:g}" for loss, rate in rates.items()) + " on the head's input; none for the others"


def _circumplex_precision(cfg: Mapping) -> str:
    if cfg.get("precision") == "bf16":
        return "bfloat16 autocast through Accelerate on a GPU (float32 weights); float32 on a CPU"
    return "float32"


def _circumplex_curve(cfg: Mapping) -> str:
    if "curve_points" in cfg:
        return (f"the first seed's test V-Measure at {cfg['curve_points']} points up to the budget, trained on to "
                f"{cfg.get('probe_factor', 1)}x the budget")
    return (f"{cfg.get('curve_per_epoch')} evaluation(s) per epoch, {cfg.get('probe_extra_points')} intervals past the "
            f"budget, for {len(cfg.get('probe') or ())} head/loss pairs")


def _circumplex_width(cfg: Mapping) -> str:
    width = "the backbone's width" if not cfg.get("head_dim") else f"{cfg['head_dim']} (PCA of the token states)"
    return f"one GPT or nGPT block, width {width}, {cfg['n_heads']} attention heads"


CIRCUMPLEX_ROWS: tuple[Row, ...] = (
    Row("backbone", "model", "Table 3 (intfloat/multilingual-e5-large); §4 'Models'"),
    Row("layers trained", _circumplex_layers,
        "§4 'Implementation Details' and Table 3 ('unfreeze' for mE5: BERT-like encoders are fully fine-tuned); the "
        "authors' utils/train_emolit.sh (FREEZE_ENCODER false)", _FROZEN_OPTION, keys=("backbone_training",)),
    Row("head", _circumplex_width, "§4 'Implementation Details' and Table 3 (a single block as wide as the backbone, "
        "16 heads for mE5)", keys=("head_dim", "n_heads")),
    Row("head dropout", _circumplex_dropout, "the authors' utils/train_emolit.sh: dropout 0.1 in the SoftCSE head's "
        "configuration (none for SINCERE and CircularCSE)", "no dropout is stated in the paper; applied to the "
        "head block's input, where the released block drops; the frozen-head option applies none",
        keys=("head_dropout",)),
    Row("pooling", "pooling", "§4 'Implementation Details' and Table 3 ([CLS] for BERT-like encoders); "
        "train_emolit.sh POOLER_TYPE cls"),
    Row("input length", "max_tokens", "the authors' utils/train_emolit.sh (MAX_SEQ_LEN 512); not stated in the paper",
        "texts are tokenised at this length for the fine-tuned encoder; the frozen-head option cuts its cached states "
        "at it"),
    Row("optimiser", _fixed("AdamW, no weight decay, no warm-up"), "App. D (the Hugging Face Trainer's defaults)"),
    Row("learning rate and schedule", lambda cfg: f"{cfg['lr']:g}, constant", "Table 3 (5e-5, constant)",
        keys=("lr",)),
    Row("gradient clipping", lambda cfg: f"global norm {cfg['clip_norm']:g}" + (
        " over the encoder and the head" if cfg.get("backbone_training") == "full" else ""), "App. D (the Trainer's default "
        "max_grad_norm 1.0)", keys=("clip_norm",)),
    Row("nGPT base scale", "base_scale", "§4.1 (the head as wide as the backbone)",
        "α and s_qk stepped at the rate of the backbone's width"),
    Row("batch size", "batch_size", "Table 3 (128)"),
    Row("temperature", lambda cfg: f"{cfg.get('tau', 0.05):g}", "Table 3 (SINCERE and SoftCSE τ 0.05)",
        keys=("tau",)),
    Row("seeds", "seeds", "Table 3 (seed 42)", "43 and 44 added for a spread"),
    Row("precision", _circumplex_precision, "Table 3 (torch dtype bfloat16); train_emolit.sh BF16 true",
        "the weights stay float32 under bfloat16 autocast (mixed precision, as the Trainer's bf16 flag runs), "
        "where Table 3's dtype may mean weights held in bfloat16; the frozen-head option runs float32",
        keys=("precision",)),
    Row("training and test data", lambda cfg: "every item" if cfg.get("n_train") is None else
        f"{cfg['n_train']} training and {cfg['n_test']} test items per label", "App. C Table 2 (Emolit 6,000/1,200)",
        keys=("n_train", "n_test")),
    Row("learning-curve probes", _circumplex_curve, "", "the plateau check's curve; every score is taken at the "
        "budget", keys=("curve_points", "probe_factor", "curve_per_epoch", "probe_extra_points", "probe")),
    Row("checkpoint", _fixed("the model at the last step (no selection)"), "App. D (the Trainer's defaults for every "
        "parameter Table 3 does not list: no best-checkpoint selection); §4 'Datasets' defines training and test "
        "splits only, no validation split to select on"),
)

CIRCUMPLEX_02_ROWS: tuple[Row, ...] = (
    Row("steps", lambda cfg: f"Emolit {cfg['steps_emolit']}, GoEmotions-9 {cfg['steps_go']}",
        "Table 3 (15 epochs): 15 x 6,000 / 128 = 705 on Emolit", "the GoEmotions stand-in replaces SuperEmotion",
        keys=("steps_emolit", "steps_go")),
)

CIRCUMPLEX_03_ROWS: tuple[Row, ...] = (
    Row("steps", "steps_emolit", "Table 3 (15 epochs): 15 x 6,000 / 128 = 705"),
    Row("analyses", lambda cfg: f"Fig. 5 on {cfg['fig5_backbone']}; PCA dims {_format(cfg['pca_dims'])}; "
        f"{cfg['n_other']} other items; {cfg['n_emobank']:,} EmoBank texts", "§5 and Fig. 5",
        "sample sizes not stated", keys=("fig5_backbone", "pca_dims", "n_other", "n_emobank")),
)

CIRCUMPLEX_04_ROWS: tuple[Row, ...] = (
    Row("epochs", lambda cfg: f"{cfg['epochs']}" + (f" (per loss: {cfg['epochs_by_loss']})"
                                                   if cfg.get("epochs_by_loss") else ""), "Table 3 (15 epochs)",
        keys=("epochs", "epochs_by_loss")),
    Row("analyses", lambda cfg: f"the paper's row {cfg['paper_backbone']}; Fig. 5 on {cfg['fig5_backbone']}; "
        f"PCA dims {_format(cfg['pca_dims'])}; CircularCSE margins {_format(cfg['margins'])}", "Table 4, Fig. 5",
        "the margins beyond Table 3's 0 are this notebook's sweep",
        keys=("paper_backbone", "fig5_backbone", "pca_dims", "margins")),
)

CIRCUMPLEX_05_ROWS: tuple[Row, ...] = (
    Row("steps", "steps_emolit", "Table 3 (15 epochs): 15 x 6,000 / 128 = 705 on Emolit"),
    Row("the paper's row", "paper_backbone", "Table 4 (mE5: the fine-tuned BERT-like backbone of Table 3)"),
)

#: notebook -> its rows (a backbone notebook whose gpu path trains or evaluates a paper backbone)
TABLES: dict[str, tuple[Row, ...]] = {
    "simace/02-sts-experiments": (SIMACE_02_BACKBONE, *SIMACE_ROWS, *SIMACE_02_ROWS),
    "simace/03-analysis": (SIMACE_03_BACKBONE, *SIMACE_ROWS, *SIMACE_03_ROWS),
    "concepts/03-principles": CONCEPT_TRAINING_ROWS + CONCEPT_03_ROWS,
    "concepts/04-modifier-families": CONCEPT_TRAINING_ROWS + CONCEPT_04_ROWS,
    "angle/02-sts-experiments": ANGLE_ROWS + ANGLE_02_ROWS,
    "angle/03-ablation-and-analysis": ANGLE_ROWS + ANGLE_03_ROWS,
    "circumplex/02-experiments": CIRCUMPLEX_ROWS + CIRCUMPLEX_02_ROWS,
    "circumplex/03-analysis": CIRCUMPLEX_ROWS + CIRCUMPLEX_03_ROWS,
    "circumplex/04-full-width-heads": CIRCUMPLEX_ROWS + CIRCUMPLEX_04_ROWS,
    "circumplex/05-fine-tuned-backbone": CIRCUMPLEX_ROWS + CIRCUMPLEX_05_ROWS,
}

#: settings no table documents: the profile's name
_NOT_SETTINGS = frozenset({"profile"})


def _format(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_format(v) for v in value) if value else "none"
    return "none" if value is None else str(value)


def _rows(notebook: str) -> tuple[Row, ...]:
    if notebook not in TABLES:
        raise ValueError(f"No settings table for {notebook!r}; tables exist for {', '.join(TABLES)}.")
    return TABLES[notebook]


def settings_table(notebook: str, cfg: Mapping):
    """The settings of ``notebook`` (a key of :data:`TABLES`, ``paper/notebook``) under ``cfg`` as a DataFrame with
    :data:`COLUMNS`: one row per choice, its value from ``cfg`` (or the code), its source and, where it departs from
    the paper or the paper is silent, the reason."""
    import pandas as pd

    out = []
    for row in _rows(notebook):
        value = cfg.get(row.value) if isinstance(row.value, str) else row.value(cfg)
        out.append({"choice": row.choice, "value": _format(value), "source": row.source, "reason": row.reason})
    return pd.DataFrame(out, columns=list(COLUMNS))


def gpu_table(notebook: str, cfg: Mapping | None = None):
    """The gpu profile's :func:`settings_table` of ``notebook``, whichever profile runs: ``cfg`` itself when it is
    the gpu profile's, else the notebook's gpu settings read from its ``.pct.py`` (:func:`notebook_settings`). What
    a notebook shows in its settings-table cell and the site on its paper's page."""
    if cfg is not None and cfg.get("profile") == "gpu":
        return settings_table(notebook, cfg)
    return settings_table(notebook, notebook_settings(notebook, "gpu"))


def undocumented(notebook: str, cfg: Mapping) -> list[str]:
    """The settings of ``cfg`` that no row of ``notebook``'s table covers (should be none)."""
    covered = {key for row in _rows(notebook) for key in row.covers()}
    return sorted(set(cfg) - covered - _NOT_SETTINGS)


def notebook_settings(notebook: str, profile: str = "gpu"):
    """A notebook's settings for ``profile`` without running it: the ``cfg = settings(...)`` call of the twin
    ``notebooks/<folder>/<stem>.pct.py`` of ``notebook`` (``<paper>/<stem>``; the paper's folder in the registry),
    evaluated with the notebook's parameters at their defaults, the imports and the module-level names the call uses. The dry run applies when ``COMPANION_DRY_RUN`` asks for it, as in the notebook.
    :func:`companion.profiles.last_settings` is left as it was."""
    from companion import profiles
    from companion.papers import BY_ID
    from companion.settings import repo_root

    paper, _, stem = notebook.partition("/")
    entry = BY_ID.get(paper)  # the folder of a registered paper (baselines: 00-baselines), else the paper's name
    path = repo_root() / "notebooks" / (entry.folder if entry is not None else paper) / f"{stem}.pct.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    call = next((node for node in tree.body if isinstance(node, ast.Assign) and len(node.targets) == 1
                 and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "cfg"
                 and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "settings"), None)
    if call is None:
        raise ValueError(f"{path} has no module-level `cfg = settings(...)` call.")
    wanted = {n.id for n in ast.walk(call.value) if isinstance(n, ast.Name)}
    namespace: dict[str, Any] = {}
    for node in tree.body:
        if node is call:
            break
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = {(a.asname or a.name).split(".")[0] for a in node.names}
            if names & wanted:
                exec(compile(ast.Module([node], []), str(path), "exec"), namespace)  # noqa: S102 - the repo's own
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id in wanted for t in node.targets):
            exec(compile(ast.Module([node], []), str(path), "exec"), namespace)  # noqa: S102 - the repo's own code
    namespace["profile"] = profile
    namespace["settings"] = profiles.settings
    last = profiles._LAST
    try:
        return eval(compile(ast.Expression(call.value), str(path), "eval"), namespace)  # noqa: S307 - the repo's own
    finally:
        profiles._LAST = last
