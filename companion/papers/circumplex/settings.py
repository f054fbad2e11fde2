"""The run settings of the circumplex notebooks, in one place: every profile's values of each notebook and the gpu
profile's settings table, every choice with its source (:class:`companion.gpu_settings.Row`).

A notebook reads its own :class:`companion.profiles.Profiles` (``cfg = EXPERIMENTS(profile, gpu_grid=gpu_grid,
seeds=seeds)``); the gpu plan, the site and the tests read the same objects. Facts about the authors' released code
(github.com/yama11235/EmpiricalCircumplexModel, commit e1a74db) are cited by file and line, never copied.
"""

from __future__ import annotations

from collections.abc import Mapping

from companion.gpu_settings import Row, fixed, format_value
from companion.losses.circumplex import LOSSES
from companion.papers.circumplex.heads import CLIP_NORM, paper_pooling
from companion.profiles import Profiles

#: the gpu profile's head dropout: 0.1 on every head's input, as the authors' released code runs every loss (the
#: settings table's "head dropout" row gives the file and line)
HEAD_DROPOUT = {loss: 0.1 for loss in LOSSES}

# ------------------------------------------------------------------------------------ the gpu settings table
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
    return ", ".join(f"{loss} {rate:g}" for loss, rate in rates.items()) + " on the head's input" + (
        "; none for the others" if set(rates) != set(LOSSES) else "")


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
    Row("head dropout", _circumplex_dropout, "the authors' released code (commit e1a74db): utils/train_emolit.sh "
        "line 92 sets dropout 0.1 in the SoftCSE head's configuration; the SINCERE and CircularCSE configurations "
        "(lines 40-82) set none, and utils/src/model/modeling_config.py line 118 then gives every head the default "
        "0.1 (params.get('dropout', 0.1)), applied to the head's input (utils/src/model/modeling_classifier.py line "
        "53)", "the paper states no dropout: every head of the released code drops its input at 0.1, so all three "
        "losses do here; the frozen-head option applies none", keys=("head_dropout",)),
    Row("pooling", "pooling", "§4 'Implementation Details' and Table 3 ([CLS] for BERT-like encoders); "
        "train_emolit.sh POOLER_TYPE cls"),
    Row("input length", "max_tokens", "the authors' utils/train_emolit.sh (MAX_SEQ_LEN 512); not stated in the paper",
        "texts are tokenised at this length for the fine-tuned encoder; the frozen-head option cuts its cached states "
        "at it"),
    Row("optimiser", fixed("AdamW, no weight decay, no warm-up"), "App. D (the Hugging Face Trainer's defaults)"),
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
    Row("checkpoint", fixed("the model at the last step (no selection)"), "App. D (the Trainer's defaults for every "
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
    Row("analyses", lambda cfg: f"Fig. 5 on {cfg['fig5_backbone']}; PCA dims {format_value(cfg['pca_dims'])}; "
        f"{cfg['n_other']} other items; {cfg['n_emobank']:,} EmoBank texts", "§5 and Fig. 5",
        "sample sizes not stated", keys=("fig5_backbone", "pca_dims", "n_other", "n_emobank")),
)

CIRCUMPLEX_04_ROWS: tuple[Row, ...] = (
    Row("epochs", lambda cfg: f"{cfg['epochs']}" + (f" (per loss: {cfg['epochs_by_loss']})"
                                                   if cfg.get("epochs_by_loss") else ""), "Table 3 (15 epochs)",
        keys=("epochs", "epochs_by_loss")),
    Row("analyses", lambda cfg: f"the paper's row {cfg['paper_backbone']}; Fig. 5 on {cfg['fig5_backbone']}; "
        f"PCA dims {format_value(cfg['pca_dims'])}; CircularCSE margins {format_value(cfg['margins'])}", "Table 4, Fig. 5",
        "the margins beyond Table 3's 0 are this notebook's sweep",
        keys=("paper_backbone", "fig5_backbone", "pca_dims", "margins")),
)

CIRCUMPLEX_05_ROWS: tuple[Row, ...] = (
    Row("steps", "steps_emolit", "Table 3 (15 epochs): 15 x 6,000 / 128 = 705 on Emolit"),
    Row("the paper's row", "paper_backbone", "Table 4 (mE5: the fine-tuned BERT-like backbone of Table 3)"),
)


# ------------------------------------------------------------------------------------------------- the notebooks
METHODOLOGY = Profiles(
    "circumplex/01-methodology",
    smoke=dict(steps=5, n_per_label=2, dim=16, seeds=[0]),
    cpu=dict(steps=2000, n_per_label=6, dim=16, seeds=[0]),
    # gpu: free vectors on the circle (no backbone): only more points, dimensions and seeds
    gpu=dict(steps=4000, n_per_label=16, dim=64, seeds=[0, 1, 2]),
    common=dict(tau=0.05, lr=0.05),
)

EXPERIMENTS = Profiles(
    "circumplex/02-experiments",
    smoke=dict(seeds=[42], steps_emolit=2, steps_go=2, batch_size=24, n_train=4, n_test=2,
               model="tiny-bert", head_dim=0, max_tokens=16, lr=2e-3, n_heads=2, curve_points=2,
               pooling=paper_pooling("bert-like")),
    # cpu: on Emolit 30 epochs (1,410 steps), twice the paper's 15, so that CircularCSE's V-Measure, still rising at
    # 705 steps, can reach its plateau (set before the run); on GoEmotions the paper's 15
    cpu=dict(seeds=[42, 43, 44], steps_emolit=1410, steps_go=430, batch_size=128, n_train=None,
             n_test=None, model="sentence-transformers/all-MiniLM-L6-v2", head_dim=64, max_tokens=32,
             lr=3e-3, n_heads=4, curve_points=5, pooling=paper_pooling("bert-like")),
    # gpu: mE5 = intfloat/multilingual-e5-large (App. D Table 3, §4 'Models'), bf16, batch 128, lr 5e-5
    # constant, 15 epochs (705 steps = 15 x 6,000/128 Emolit; 470 on the GoEmotions subset), head with
    # the backbone's width and 16 heads (Table 3); seed 42 (Table 3), 43 and 44 added for a spread
    # gpu: mE5 fine-tuned whole with the head (§4.1, Table 3), inputs up to 512 tokens, bf16, dropout 0.1
    # on every head's input (the authors' released code); backbone_training="frozen": the head only
    gpu=dict(seeds=[42, 43, 44], steps_emolit=705, steps_go=470, batch_size=128, n_train=None,
             n_test=None, model="intfloat/multilingual-e5-large", head_dim=0, max_tokens=512,
             lr=5e-5, n_heads=16, curve_points=5, pooling=paper_pooling("intfloat/multilingual-e5-large"),
             backbone_training="full", precision="bf16", head_dropout=HEAD_DROPOUT),
    # every profile: the authors' training of the head (App. D: the Trainer's defaults, clipping at
    # CLIP_NORM; nGPT's base scale from the backbone's width, §4.1's head as wide as the backbone)
    common=dict(tau=0.05, probe_factor=2, base_scale="backbone", clip_norm=CLIP_NORM),
    grid_reason="the same grid in both: three seeds (42, Table 3's, with 43 and 44) and every head, loss and data set; "
    "by our cpu run's paired spread Table 4's Emolit orderings need three seeds (companion.stats.mde at 80 % power), "
    "GoEmotions' smaller gaps four or five, which neither grid gives",
    rows=CIRCUMPLEX_ROWS + CIRCUMPLEX_02_ROWS,
)

ANALYSIS = Profiles(
    "circumplex/03-analysis",
    smoke=dict(seeds=[42], steps_emolit=2, batch_size=24, n_train=4, n_test=2, n_other=3, n_emobank=20,
               model="tiny-bert", head_dim=0, max_tokens=16, lr=2e-3, n_heads=2, pca_dims=[2, 4, 8],
               curve_points=2, pooling=paper_pooling("bert-like")),
    # cpu: notebook 02's 30 Emolit epochs (1,410 steps, was the paper's 15), so that its cached heads, run past
    # the point where CircularCSE's V-Measure still rose at 705 steps, are the ones analysed (set before the run)
    cpu=dict(seeds=[42, 43, 44], steps_emolit=1410, batch_size=128, n_train=None, n_test=None, n_other=20,
             n_emobank=500, model="sentence-transformers/all-MiniLM-L6-v2", head_dim=64, max_tokens=32,
             lr=3e-3, n_heads=4, pca_dims=[2, 3, 4, 8, 16, 32, 64], curve_points=5,
             pooling=paper_pooling("bert-like")),
    # gpu: mE5 = intfloat/multilingual-e5-large, batch 128, lr 5e-5, 15 epochs, 16 heads, seed 42 (+43, 44)
    # (App. D Table 3); PCA up to its width 1024 (Fig. 5a); all 10,062 EmoBank texts
    gpu=dict(seeds=[42, 43, 44], steps_emolit=705, batch_size=128, n_train=None, n_test=None,
             n_other=100, n_emobank=10062, model="intfloat/multilingual-e5-large", head_dim=0,
             max_tokens=512, lr=5e-5, n_heads=16,
             pca_dims=[2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024], curve_points=5,
             pooling=paper_pooling("intfloat/multilingual-e5-large"),
             backbone_training="full", precision="bf16", head_dropout=HEAD_DROPOUT),
    # fig5_backbone: the heads of the paper's Fig 5 (§5.1); how a head is trained, as in notebook 02
    common=dict(fig5_backbone="mE5", probe_factor=2, base_scale="backbone", clip_norm=CLIP_NORM),
    grid_reason="the same grid in both: three seeds, what Fig. 7's V gap needs by our cpu run's paired spread "
    "(companion.stats.mde at 80 % power); notebook 02 keeps no fine-tuned encoder, so its Emolit heads are trained "
    "again here",
    rows=CIRCUMPLEX_ROWS + CIRCUMPLEX_03_ROWS,
)

FULL_WIDTH_HEADS = Profiles(
    "circumplex/04-full-width-heads",
    smoke=dict(seeds=[42, 43], epochs=1, n_train=6, n_test=3, model="tiny-bert", max_tokens=16,
               n_heads=2, lr=2e-3, batch_size=24, margins=[0.2], pca_dims=[2, 4], curve_per_epoch=3,
               epochs_by_loss={}, probe_extra_points=3, pooling=paper_pooling("bert-like")),
    # cpu: the probes run three half-epoch intervals past the budget (four evaluations from the budget on)
    cpu=dict(seeds=[42, 43, 44], epochs=2, epochs_by_loss={"SoftCSE": 4, "CircularCSE": 4}, n_train=None,
             n_test=None, model="sentence-transformers/all-MiniLM-L6-v2", max_tokens=16, n_heads=12, lr=3e-3,
             batch_size=128, margins=[0.2], pca_dims=[2, 3, 4, 8, 16, 32, 64, 128, 384],
             curve_per_epoch=2, probe_extra_points=3, pooling=paper_pooling("bert-like")),
    # gpu: mE5 = intfloat/multilingual-e5-large, width 1024 and 16 heads, 15 epochs at 5e-5 constant,
    # batch 128, seed 42 (+43, 44) (App. D Table 3; §4.1 'Implementation Details')
    # gpu: two epochs of probe at one evaluation per epoch (the plateau check needs three from the budget on)
    gpu=dict(seeds=[42, 43, 44], epochs=15, n_train=None, n_test=None,
             model="intfloat/multilingual-e5-large", max_tokens=512, n_heads=16, lr=5e-5, batch_size=128,
             margins=[0.2], pca_dims=[2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024], curve_per_epoch=1,
             epochs_by_loss={}, probe_extra_points=2,
             pooling=paper_pooling("intfloat/multilingual-e5-large"),
             backbone_training="full", precision="bf16", head_dropout=HEAD_DROPOUT),
    # every profile: the authors' training of the head (App. D: the Trainer's defaults, clipping at
    # CLIP_NORM; nGPT's base scale from the backbone's width, §4.1's head as wide as the backbone)
    common=dict(paper_backbone="Qwen3-Embedding-4B", fig5_backbone="mE5",
                probe=[(kind, loss) for kind in ("GPT", "nGPT", "nGPT-plain") for loss in LOSSES],
                base_scale="backbone", clip_norm=CLIP_NORM),
    grid_reason="the same grid in both: three seeds; by our cpu run's paired spread the CD-r gaps between GPT and "
    "nGPT heads need three (companion.stats.mde at 80 % power), the V gaps of a hundredth or two eight to twelve, "
    "which no affordable grid gives: those claims stay underpowered, as the ledger says",
    rows=CIRCUMPLEX_ROWS + CIRCUMPLEX_04_ROWS,
)

FINE_TUNED_BACKBONE = Profiles(
    "circumplex/05-fine-tuned-backbone",
    smoke=dict(seeds=[42], steps_emolit=2, batch_size=24, n_train=4, n_test=2, model="tiny-bert",
               head_dim=0, max_tokens=16, lr=2e-3, n_heads=2, curve_points=2, probe_factor=2,
               pooling=paper_pooling("bert-like"), backbone_training="full", precision="float32",
               head_dropout={"SoftCSE": 0.1}),
    # cpu: MiniLM fine-tuned whole at the paper's lr; a whole-encoder step of 32 texts takes about a second on one
    # core; the head dropout on SoftCSE alone, as chosen before the released code's default for the other heads was
    # read (kept: the cpu run's cache keys on it; the notebook says so)
    cpu=dict(seeds=[42, 43, 44], steps_emolit=60, batch_size=32, n_train=None, n_test=None,
             model="sentence-transformers/all-MiniLM-L6-v2", head_dim=0, max_tokens=32, lr=5e-5,
             n_heads=12, curve_points=3, probe_factor=2, pooling=paper_pooling("bert-like"),
             backbone_training="full", precision="float32", head_dropout={"SoftCSE": 0.1}),
    # gpu: mE5 = intfloat/multilingual-e5-large fine-tuned whole (App. D Table 3, §4.1), bf16, batch 128,
    # lr 5e-5 constant, 15 epochs (705 steps = 15 x 6,000/128), inputs up to 512 tokens (train_emolit.sh),
    # dropout 0.1 on every head's input (the released code); seed 42 (Table 3), 43 and 44 for a spread
    gpu=dict(seeds=[42, 43, 44], steps_emolit=705, batch_size=128, n_train=None, n_test=None,
             model="intfloat/multilingual-e5-large", head_dim=0, max_tokens=512, lr=5e-5, n_heads=16,
             curve_points=5, probe_factor=2, pooling=paper_pooling("intfloat/multilingual-e5-large"),
             backbone_training="full", precision="bf16", head_dropout=HEAD_DROPOUT),
    # every profile: the authors' training (App. D: the Trainer's defaults, clipping at CLIP_NORM; nGPT's
    # base scale from the backbone's width), graded against Table 4's mE5 row
    common=dict(tau=0.05, base_scale="backbone", clip_norm=CLIP_NORM, paper_backbone="mE5"),
    grid_reason="the same grid in both, and notebook 02's Emolit runs reloaded (the same settings, so the same run "
    "keys): three seeds, which Table 4's CD-r orderings need by the cpu run's paired spread, its V gaps four to "
    "eight",
    rows=CIRCUMPLEX_ROWS + CIRCUMPLEX_05_ROWS,
)

#: every circumplex notebook's settings, by ``<paper>/<stem>``
NOTEBOOKS: dict[str, Profiles] = {p.notebook: p for p in (METHODOLOGY, EXPERIMENTS, ANALYSIS, FULL_WIDTH_HEADS,
                                                           FINE_TUNED_BACKBONE)}
