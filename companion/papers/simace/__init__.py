"""SimACE: the runs its notebooks share, their names and jobs (trained by :mod:`companion.dropout_views`; the run
specs and the step timing in :mod:`companion.papers.simace.runs`; the settings of every profile in
:mod:`companion.papers.simace.settings`).

``02-sts-experiments`` trains the main runs; ``03-analysis`` reloads them from the run cache, which is keyed by
their settings, so both notebooks read them from one place rather than each keeping a copy.
"""

from __future__ import annotations

from pathlib import Path

from companion.profiles import Settings
from companion.settings import cache_dir

#: the settings of notebook 02's gpu profile that name its RoBERTa-base runs (values and sources in
#: :data:`companion.papers.simace.settings.ROBERTA_GPU`)
ROBERTA_KEYS: tuple[str, ...] = ("roberta_model", "roberta_lr", "roberta_batch_size", "roberta_steps")
#: the RoBERTa-base runs the equal-temperature claims compare (names and specs as in :data:`MAIN` and
#: :data:`CONTROLS`): SimCSE and SimACE at tau 0.05 (Table 7's RoBERTa-base setting) and both at 0.06
ROBERTA_NAMES: tuple[str, ...] = ("SimCSE", "SimACE τ=0.05", "SimACE", "SimCSE τ=0.06")


def roberta_settings(cfg):
    """The settings of the RoBERTa-base runs of ``cfg`` (notebook 02's gpu profile, :data:`ROBERTA_KEYS`): ``cfg``
    with ``model``, ``lr``, ``batch_size`` and ``steps`` replaced by its ``roberta_*`` values; everything else (the
    full fine-tuning, pooling, head, length, data, seeds, selection) is the BERT-base runs'."""
    missing = [k for k in ROBERTA_KEYS if cfg.get(k) is None]
    if missing:
        raise ValueError(f"roberta_settings(): cfg has no {', '.join(missing)} (notebook 02's gpu profile has them).")
    values = {k: v for k, v in cfg.items() if k != "profile"}
    values.update(model=cfg["roberta_model"], lr=cfg["roberta_lr"], batch_size=cfg["roberta_batch_size"],
                  steps=cfg["roberta_steps"])
    return Settings(cfg["profile"], values)


#: name -> (objective, tau, margin in degrees); Table 7: SimCSE/ArcCon tau 0.05, SimACE tau 0.06 (BERT)
MAIN: dict[str, tuple[str, float, float]] = {
    "SimCSE": ("simcse", 0.05, 0.0),
    "ArcCon": ("arccon", 0.05, 10.0),
    "SimACE": ("simace", 0.06, 10.0),
}

#: the controls and ablations, trained with the same batches per seed as :data:`MAIN`: SimACE at the baselines'
#: tau 0.05 (the equal-tau control, also Fig. 7's lower temperature), at tau 0.07 (Fig. 7), and with margins
#: 0 and -10 degrees (Table 14, Figs. 8 and 9); plus SimCSE at SimACE's tau 0.06 (the other equal-tau control)
CONTROLS: dict[str, tuple[str, float, float]] = {
    "SimACE τ=0.05": ("simace", 0.05, 10.0),
    "SimACE τ=0.07": ("simace", 0.07, 10.0),
    "SimACE m=0°": ("simace", 0.06, 0.0),
    "SimACE m=-10°": ("simace", 0.06, -10.0),
    "SimCSE τ=0.06": ("simcse", 0.06, 0.0),
}


#: App. F's RBF objective (Eq. 15, Table 11): (objective, tau, margin); its kernel width sigma is selected on STS-B dev
#: (:func:`rbf_jobs`, :func:`companion.papers.simace.analysis.select_sigma`). The paper states neither a temperature
#: nor sigma; tau is SimCSE's 0.05 (:func:`companion.losses.simace.rbf_logits`: the logit is the kernel over tau)
RBF: tuple[str, float, float] = ("rbf", 0.05, 0.0)


def rbf_name(sigma: float) -> str:
    """The run name of the RBF objective at kernel width ``sigma``."""
    return f"RBF σ={sigma:g}"


def rbf_jobs(seeds, sigmas) -> list[tuple[str, tuple[str, float, float, float], int]]:
    """``(name, (objective, tau, margin, sigma), seed)`` of the RBF objective (:data:`RBF`) for every seed and
    kernel width, seed-major (the same batches per seed as :func:`run_jobs`)."""
    from companion.losses.simace import check_sigma  # noqa: PLC0415 - loads torch; this module imports without it

    sigmas = [check_sigma(s) for s in sigmas]
    if not sigmas:
        raise ValueError("rbf_jobs() needs at least one sigma.")
    return [(rbf_name(s), (*RBF, s), int(seed)) for seed in seeds for s in sigmas]


def run_jobs(seeds, names=None) -> list[tuple[str, tuple[str, float, float], int]]:
    """``(name, (objective, tau, margin), seed)`` for every seed and every run of :data:`MAIN` and
    :data:`CONTROLS` (or only ``names``), seed-major: the order both notebooks train or reload them in."""
    specs = {**MAIN, **CONTROLS}
    names = list(specs) if names is None else list(names)
    unknown = [n for n in names if n not in specs]
    if unknown:
        raise ValueError(f"Unknown run name(s) {unknown}; choose from {list(specs)}.")
    return [(name, specs[name], int(seed)) for seed in seeds for name in names]


def make_base(encoder, cfg):
    """The trainable model every run starts from.

    The gpu profile (``cfg`` with its ``mlp_head`` and ``train_embeddings`` settings): the whole network, embeddings included, as an
    :class:`~companion.encoders.upper.UpperEncoder` from token ids, with SimCSE's training-only MLP head
    (normal(0, 0.02) weights, zero bias) and evaluation cut only at ``eval_max_length`` (at most the model's position
    limit, :func:`companion.encoders.position_limit`).

    Otherwise (the cpu profile's shortcut) the trainable top of ``encoder``: with [CLS] pooling a
    :class:`~companion.papers.simace.cls_top.ClsTopEncoder` (the top layer computed for [CLS] only, same output),
    else an :class:`~companion.encoders.upper.UpperEncoder`; lower states kept in the encoder's disk cache."""
    from companion.encoders.upper import UpperEncoder  # noqa: PLC0415 - loads torch; this module imports without it
    from companion.papers.simace.cls_top import ClsTopEncoder  # noqa: PLC0415 - loads torch; this module imports without it

    if getattr(cfg, "train_embeddings", None) or getattr(cfg, "mlp_head", None):
        from companion.encoders import position_limit  # noqa: PLC0415 - loads torch; this module imports without it

        length = getattr(cfg, "eval_max_length", None)
        length = min(length, position_limit(encoder)) if length else None
        mlp = bool(getattr(cfg, "mlp_head", None))
        return UpperEncoder(encoder, n_top=cfg.n_top, pooling=cfg.pooling, dropout=cfg.dropout, mlp_pooler=mlp,
                            mlp_init="normal" if mlp else "torch",
                            train_embeddings=bool(getattr(cfg, "train_embeddings", None)), eval_max_length=length)
    cls = ClsTopEncoder if cfg.pooling == "cls" else UpperEncoder
    return cls(encoder, n_top=cfg.n_top, pooling=cfg.pooling, dropout=cfg.dropout, cache=True)


def run_cache(profile: str) -> Path:
    """Where the trained top-layer weights and histories of ``profile`` are cached (shared by 02 and 03)."""
    return cache_dir() / "simace" / "runs" / profile


def sts_key(n_pairs: int | None) -> str:
    """The name under which a run caches its STS scores (the evaluation subset is part of it)."""
    return f"7-set STS test, n_pairs={n_pairs}, subset seed 0"
