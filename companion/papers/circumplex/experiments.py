"""The circumplex paper's experiment data and its idealised free-vector setting (paper App. I).

Label-balanced Emolit / GoEmotions / EmoBank samples for the head experiments, and free unit vectors optimised
directly under a loss of :mod:`companion.losses.circumplex`.
"""

from __future__ import annotations

import hashlib
import random
import time
import weakref
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from companion._io import cache_key, read_cache, torch_save_atomic
from companion.data import load_emobank, load_emolit, load_goemotions
from companion.losses.circumplex import ECM_LABELS, GOEMOTIONS_ECM_LABELS, LOSSES
from companion.metrics.clustering import v_measure
from companion.papers.circumplex.finetune import is_tuned
from companion.papers.circumplex.geometry import geometry_summary, label_centroids
from companion.papers.circumplex.heads import (
    CLIP_NORM,
    HEAD_POOLINGS,
    backbone_width,
    check_clip_norm,
    embed_with_head,
    evaluate_embeddings,
    make_head,
    resolve_base_scale,
    train_head,
    uses_base_scale,
)
from companion.settings import cache_dir
from companion.training import RunState, run_profile, seed_everything


# ------------------------------------------------------------------------------------------ experiment data
def goemotions_single_label(labels: Sequence[str] | None = None):
    """GoEmotions comments (train + dev + test pooled) that carry exactly ONE label, as a DataFrame with
    ``text``, ``label``, ``split``; optionally only the given label names."""
    frames = []
    for split in ("train", "dev", "test"):
        ds = load_goemotions(split)
        # materialise each column once as a list ([:]); with datasets >= 4 ds["text"] is a lazy Column whose
        # per-row indexing goes through Arrow on every access (90k accesses took ~25 s)
        names, texts = ds["label_names"][:], ds["text"][:]
        one = [i for i, x in enumerate(names) if len(x) == 1]
        frames.append(pd.DataFrame({"text": [texts[i] for i in one], "label": [names[i][0] for i in one],
                                    "split": split}))
    df = pd.concat(frames, ignore_index=True)
    if labels is not None:
        df = df[df["label"].isin(list(labels))].reset_index(drop=True)
    return df


def goemotions_standin(n_train: int = 450, n_test: int = 100, seed: int = 42, min_train: int = 50):
    """The 9-label GoEmotions stand-in for SuperEmotion's GoEmotions part (circumplex paper Table 4):
    single-label comments of :data:`GOEMOTIONS_ECM_LABELS`, ``n_train`` / ``n_test`` per label drawn with ``seed``
    from train+dev+test pooled. A label with fewer than ``n_train + n_test`` comments (only *relief*: 103) keeps
    30% of its comments for test and the rest for training. Returns ``(train_df, test_df)``."""
    df = goemotions_single_label(GOEMOTIONS_ECM_LABELS)
    rng = np.random.default_rng(seed)
    train, test = [], []
    for name in GOEMOTIONS_ECM_LABELS:
        rows = rng.permutation(np.flatnonzero(df["label"].to_numpy() == name))
        if len(rows) >= n_train + n_test:
            n_te, n_tr = n_test, n_train
        else:
            n_te = int(round(0.3 * len(rows)))
            n_tr = len(rows) - n_te
            if n_tr < min_train:
                raise ValueError(f"label {name!r} has only {len(rows)} single-label comments.")
        test.append(rows[:n_te])
        train.append(rows[n_te:n_te + n_tr])
    pick = lambda parts: df.iloc[np.concatenate(parts)].reset_index(drop=True)  # noqa: E731
    return pick(train), pick(test)


def emolit_frames():
    """Emolit-12 train (6000) and test (1200) as DataFrames with ``text`` and ``label``."""
    out = []
    for split in ("train", "test"):
        ds = load_emolit(split)
        out.append(pd.DataFrame({"text": ds["text"][:], "label": ds["label"][:]}))  # [:]: one Arrow call
    return tuple(out)


def per_label(frame, n: int):
    """The first ``n`` rows of each label of a frame with a ``label`` column, re-indexed from 0: the few examples
    per label the smoke profiles keep (``n_train`` / ``n_test``)."""
    return frame.groupby("label", group_keys=False).head(n).reset_index(drop=True)


def optimise_free_vectors(loss, labels, dim: int, steps: int, lr: float = 0.05, seed: int = 0,
                          dtype: torch.dtype = torch.float64, progress: bool = False):
    """Optimise free unit vectors (no model) with ``loss(emb, labels)`` — paper App. I's idealised setting.

    One free vector per row of ``labels``, initialised i.i.d. Gaussian (then normalised inside the loss), full
    batch, Adam. Returns ``(unit embeddings (N x dim, float64), loss history (list of floats))``."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(len(labels), dim, generator=gen, dtype=dtype).requires_grad_(True)
    opt = torch.optim.Adam([x], lr=lr)
    history = []
    for _ in tqdm(range(steps), disable=not progress, leave=False, desc="free vectors"):
        value = loss(x, labels)
        opt.zero_grad()
        value.backward()
        opt.step()
        history.append(float(value.detach()))
    return F.normalize(x.detach().double(), dim=1), history


def goemotions_other_labels(n_per_label: int = 20, seed: int = 42, exclude_neutral: bool = True):
    """Single-label GoEmotions comments of the labels that are NOT on the ECM (the paper's Fig. 7 setting:
    place unseen emotions relative to the learned circle): ``n_per_label`` per label (all if fewer), seeded."""
    df = goemotions_single_label()
    keep = [x for x in sorted(set(df["label"])) if x not in ECM_LABELS and not (exclude_neutral and x == "neutral")]
    rng = np.random.default_rng(seed)
    rows = []
    for name in keep:
        idx = rng.permutation(np.flatnonzero(df["label"].to_numpy() == name))[:n_per_label]
        rows.append(idx)
    return df.iloc[np.concatenate(rows)].reset_index(drop=True)


def emobank_sample(n: int = 500, seed: int = 42, split: str = "test"):
    """``n`` EmoBank sentences of ``split`` (seeded sample) with their Valence/Arousal/Dominance ratings."""
    df = load_emobank(split)
    idx = np.sort(np.random.default_rng(seed).permutation(len(df))[: min(n, len(df))])
    return df.iloc[idx].reset_index(drop=True)


HEAD_KINDS = ("GPT", "nGPT")

#: The version of the head-run recipe in every cache key (:func:`head_run_key`): raise it when a change to the
#: training or scoring code changes what a run returns, so that runs cached before are trained again.
HEAD_RUN_VERSION = 1

_DIGESTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def states_digest(states) -> str:
    """A content digest of packed token states (:class:`~companion.encoders.states.PackedStates`: every value and
    every text's length), computed once per object: the head-run cache keys on the data, not on how it was made."""
    if hasattr(states, "digest"):  # the fine-tuned setting's inputs (texts, not states)
        return states.digest()
    try:
        return _DIGESTS[states]
    except (KeyError, TypeError):
        pass
    h = hashlib.blake2b(digest_size=16)
    h.update(str((tuple(states.flat.shape), str(states.flat.dtype))).encode())
    h.update(states.flat.detach().contiguous().cpu().numpy().tobytes())
    h.update(states.lengths.detach().cpu().numpy().astype(np.int64).tobytes())
    digest = h.hexdigest()
    try:
        _DIGESTS[states] = digest
    except TypeError:  # an object that cannot be weakly referenced: digest recomputed next time
        pass
    return digest


#: A run's training-loss curve is kept as the means of blocks of this many steps (the ``trained`` check reads it).
LOSS_BLOCK = 10


def _thinned(losses) -> list[float]:
    """The per-step losses as means of consecutive blocks of :data:`LOSS_BLOCK` steps (the last block may be
    shorter), so a cached run keeps its curve at a small size."""
    v = np.asarray(losses, dtype=float)
    return [float(v[i:i + LOSS_BLOCK].mean()) for i in range(0, v.size, LOSS_BLOCK)]


def head_cache_dir() -> Path:
    """Where trained head runs are cached: ``<cache_dir>/circumplex/head-runs`` (one file per run settings)."""
    return Path(cache_dir()) / "circumplex" / "head-runs"


def _cache_path(cache, key: str) -> Path | None:
    if cache is None or cache is False:
        return None
    folder = head_cache_dir() if cache is True else Path(cache)
    return folder / f"{key}.pt"


def head_settings(kind: str, loss: str, train_states, *, steps: int, batch_size: int, lr: float, seed: int,
                  n_heads: int, margin: float | None = None, pooling: str = "mean",
                  base_scale: str | float = "backbone", backbone_dim: int | None = None,
                  clip_norm: float | None = CLIP_NORM) -> dict:
    """Every setting that shapes a trained head (the training data aside), resolved as the run uses it: the
    batch (at most the training set), the base scale as a number
    (:func:`~companion.papers.circumplex.heads.resolve_base_scale`; None for the heads it does not change, GPT and
    nGPT-plain) and the clipping norm (None: no clipping). Recorded with every run (``settings``) and part of its
    cache key (:func:`head_run_key`). On the fine-tuned setting's inputs
    (:class:`~companion.papers.circumplex.finetune.BackboneInputs`) they add its own: the backbone trained whole,
    the input length, the precision and the head dropout of ``loss``."""
    if pooling not in HEAD_POOLINGS:
        raise ValueError(f"Unknown head pooling {pooling!r}; choose one of {', '.join(HEAD_POOLINGS)}.")
    width = backbone_width(train_states) if backbone_dim is None else int(backbone_dim)
    scale = resolve_base_scale(base_scale, train_states.dim, width)  # validates for every kind
    scaled = uses_base_scale(kind)
    return {"kind": kind, "loss": loss, "margin": None if margin is None else float(margin), "steps": int(steps),
            "batch_size": int(min(batch_size, len(train_states))), "lr": float(lr), "seed": int(seed),
            "n_heads": int(n_heads), "pooling": pooling, "head_dim": int(train_states.dim),
            "base_scale": (base_scale if isinstance(base_scale, str) else "value") if scaled else None,
            "base_scale_value": scale if scaled else None, "backbone_dim": width if scaled else None,
            "clip_norm": check_clip_norm(clip_norm), **(train_states.settings(loss) if is_tuned(train_states) else {})}


def _train_kwargs(settings: Mapping) -> dict:
    """What :func:`~companion.papers.circumplex.heads.train_head` takes beyond the common settings: the head dropout
    of a fine-tuned run."""
    return {"head_dropout": settings["head_dropout"]} if settings.get("head_dropout") else {}


#: The rows of :func:`head_settings_table`: what a reader checks of how a head is trained.
SHOWN_SETTINGS = ("pooling", "head_dim", "backbone_dim", "base_scale", "base_scale_value", "clip_norm", "lr",
                  "batch_size", "n_heads")
#: The rows a fine-tuned backbone adds (:meth:`~companion.papers.circumplex.finetune.BackboneInputs.settings`).
TUNED_SETTINGS = ("backbone_training", "max_length", "precision", "head_dropout")


def head_settings_table(kinds: Sequence[str], train_states, **settings):
    """:func:`head_settings` of a head of each of ``kinds`` on ``train_states`` (``settings``: its keyword arguments,
    ``loss`` included), one column per kind and one row per entry of :data:`SHOWN_SETTINGS` (and, for a fine-tuned
    backbone, of :data:`TUNED_SETTINGS`), as each run records them: numbers to four significant digits, "-" where a
    setting does not apply (the base scale of a GPT head)."""
    loss = settings.pop("loss", "SINCERE")
    shown = SHOWN_SETTINGS + (TUNED_SETTINGS if is_tuned(train_states) else ())
    table = {}
    for kind in kinds:
        resolved = head_settings(kind, loss, train_states, **settings)
        table[kind] = {k: "-" if resolved[k] is None else f"{resolved[k]:.4g}" if isinstance(resolved[k], float)
                       else resolved[k] for k in shown}
    return pd.DataFrame(table).loc[list(shown)]


def head_run_key(settings: Mapping, train_states, train_labels: Sequence[str], test_states=None,
                 test_labels: Sequence[str] | None = None, **extra) -> str:
    """The cache key of a head run: :func:`companion._io.cache_key` of :data:`HEAD_RUN_VERSION`, the run's
    ``settings`` (:func:`head_settings`), the content of its training (and test) states (:func:`states_digest`)
    and labels, and ``extra`` (e.g. the learning-curve settings)."""
    return cache_key({"version": HEAD_RUN_VERSION, "settings": dict(settings), "train": states_digest(train_states),
                      "train_labels": [str(x) for x in train_labels],
                      "test": None if test_states is None else states_digest(test_states),
                      "test_labels": None if test_labels is None else [str(x) for x in test_labels], **extra},
                     digest_size=16)


def _rng_state() -> dict:
    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}  # noqa: NPY002


def _set_rng_state(state: Mapping) -> None:
    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])  # noqa: NPY002
    random.setstate(state["python"])


def _rebuild_head(settings: Mapping, dim: int, state: Mapping):
    """A head of ``settings`` (:func:`head_settings`) with the cached weights ``state``, built as training builds it
    (seeded first)."""
    seed_everything(int(settings["seed"]))
    kw = {} if settings["base_scale_value"] is None else {"base_scale": settings["base_scale_value"]}
    head = make_head(settings["kind"], dim, n_heads=settings["n_heads"], pooling=settings["pooling"], **kw)
    head.load_state_dict(state)
    return head


def head_run(kind: str, loss: str, train_states, train_labels: Sequence[str], test_states,
             test_labels: Sequence[str], *, steps: int, batch_size: int, lr: float, seed: int, n_heads: int,
             margin: float | None = None, curve_every: int = 0, probe_steps: int | None = None,
             pooling: str = "mean", base_scale: str | float = "backbone", backbone_dim: int | None = None,
             clip_norm: float | None = CLIP_NORM, cache: bool | str | Path | None = True, keep_weights: bool = True,
             profile: str | None = None):
    """One cell of Table 4 (§4): train a ``kind`` head (``"GPT"``, ``"nGPT"``, ``"nGPT-plain"``) with the loss named
    ``loss`` (a key of :data:`companion.losses.circumplex.LOSSES`; ``margin`` sets CircularCSE's m) on the training
    states for ``steps`` steps, embed the test states and score them.

    The head is trained as the authors train it unless told otherwise
    (:func:`~companion.papers.circumplex.heads.train_head`): gradient clipping at ``clip_norm`` (1.0; None: none),
    nGPT's α and s_qk at the base scale of the backbone's width (``base_scale="backbone"``, ``backbone_dim``
    default: the width recorded on the states; ``"head"``: the head's own width), pooled by ``pooling``
    (``"mean"``; the paper's: :func:`~companion.papers.circumplex.heads.paper_pooling`). The batch is at most the
    training set.

    Returns ``(scores, head, test embeddings)``, where ``scores`` holds V-Measure and CD-r
    (:func:`companion.papers.circumplex.heads.evaluate_embeddings`), the mean cosine between different labels
    (``mean_offdiag_cos``), the training time ``train_s``, the first loss and the mean of the last five
    (``first_loss``, ``final_loss``), the settings the run recorded (``base_scale``: the number b for an nGPT head in
    the authors' parametrisation, else NaN; ``clip_norm``: NaN for none; ``pooling``), ``from_cache`` and, with
    ``curve_every`` > 0, ``curve``: the test V-Measure every ``curve_every`` steps (a learning curve to read the
    plateau from; no weights are selected on it). ``probe_steps`` (> ``steps``, a multiple of ``curve_every`` away
    from it) trains on to that step for the curve only: the scores, the embeddings and the returned head are still
    those at ``steps`` (the data order of the first ``steps`` steps is the same; the head's weights are copied at
    that step and restored).

    **Cache.** With ``cache`` (True: :func:`head_cache_dir`; or a folder) the run is stored under a key of every
    setting above and the content of the training and test data (:func:`head_run_key`), and a later call with the
    same key reloads it instead of training: the same scores (``train_s`` that of the original run), embeddings,
    weights and the random-number state the run left behind. ``keep_weights=False`` stores no weights (the returned
    head is then None), for grids that never use them; such an entry is trained again when weights are asked for.
    A run of the gpu ``profile`` (the notebook's ``cfg.profile``, handed down) checkpoints its training under the
    same key, with or without ``cache`` (the curve's snapshots included; :func:`companion.training.gpu_checkpoint`),
    so that a preempted run resumes there.
    """
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; choose one of {', '.join(LOSSES)}.")
    if margin is not None and loss != "CircularCSE":
        raise ValueError(f"a margin applies to CircularCSE only, not {loss!r}.")
    if probe_steps is not None and not (curve_every and probe_steps > steps and steps % curve_every == 0):
        raise ValueError("probe_steps needs curve_every > 0 dividing steps, and probe_steps > steps.")
    settings = head_settings(kind, loss, train_states, steps=steps, batch_size=batch_size, lr=lr, seed=seed,
                             n_heads=n_heads, margin=margin, pooling=pooling, base_scale=base_scale,
                             backbone_dim=backbone_dim, clip_norm=clip_norm)
    key = path = None
    if cache is not None and cache is not False or run_profile(profile) == "gpu":  # a gpu run checkpoints under it
        key = head_run_key(settings, train_states, train_labels, test_states, test_labels,
                           curve_every=int(curve_every or 0), probe_steps=probe_steps)
    if cache is not None and cache is not False:
        path = _cache_path(cache, key)
        saved = read_cache(path, weights_only=False)
        if isinstance(saved, dict) and saved.get("settings") == settings and \
                (saved.get("state") is not None or not keep_weights):
            head = _rebuild_head(settings, train_states.dim, saved["state"]) if keep_weights else None
            _set_rng_state(saved["rng"])
            return {**saved["scores"], "from_cache": True}, head, saved["emb"].clone()
    loss_fn = LOSSES[loss] if margin is None else partial(LOSSES[loss], margin=margin)
    test_labels = list(test_labels)
    # the test embeddings at every curve point, in order (the trainer evaluates at 0, k, 2k, ... steps), and the
    # head's weights at ``steps`` when the run trains on past it: carried over a resume (train's extra_state)
    curve = RunState(snapshots=[], at_budget={})

    def curve_fn(h):
        if probe_steps and len(curve["snapshots"]) * curve_every == steps:
            curve["at_budget"]["state"] = {k: v.detach().clone() for k, v in h.state_dict().items()}
        curve["snapshots"].append(embed_with_head(h, test_states))
        return v_measure(curve["snapshots"][-1], test_labels)

    t = time.perf_counter()
    head, res = train_head(kind, loss_fn, train_states, list(train_labels), steps=probe_steps or steps,
                           batch_size=min(batch_size, len(train_labels)), lr=lr, seed=seed, n_heads=n_heads,
                           progress=False, eval_fn=curve_fn if curve_every else None, eval_every=curve_every,
                           pooling=pooling, clip_norm=clip_norm, base_scale=base_scale,
                           backbone_dim=settings["backbone_dim"] or backbone_dim, checkpoint_key=key,
                           extra_state=curve if curve_every else None, profile=profile, **_train_kwargs(settings))
    train_s = time.perf_counter() - t
    curve_steps = [h["step"] for h in res.history if "eval" in h]
    if probe_steps:
        emb = curve["snapshots"][curve_steps.index(steps)]
        head.load_state_dict(curve["at_budget"]["state"])
    else:
        emb = embed_with_head(head, test_states)
    losses = [h["loss"] for h in res.history if "loss" in h][:steps]
    geo = geometry_summary(emb, test_labels, [c for c in ECM_LABELS if c in set(test_labels)])
    scores = {**evaluate_embeddings(emb, test_labels), "mean_offdiag_cos": geo["mean_offdiag_cos"],
              "train_s": train_s, "first_loss": losses[0], "final_loss": float(np.mean(losses[-5:])),
              "loss_curve": _thinned(losses), **_recorded(settings)}
    if curve_every:
        scores["curve"] = {h["step"]: h["eval"] for h in res.history if "eval" in h}
    if path is not None:  # a fine-tuned encoder's weights (GBs) are not cached: its scores and embeddings are
        stored = keep_weights and "backbone_training" not in settings
        state = {k: v.detach().clone() for k, v in head.state_dict().items()} if stored else None
        torch_save_atomic({"settings": settings, "scores": scores, "emb": emb, "state": state, "rng": _rng_state()},
                          path)
    return {**scores, "from_cache": False}, (head if keep_weights else None), emb


def _recorded(settings: Mapping) -> dict:
    """The settings a run's row records beside its scores (NaN where a setting does not apply)."""
    value = settings["base_scale_value"]
    return {"base_scale": float("nan") if value is None else float(value),
            "clip_norm": float("nan") if settings["clip_norm"] is None else float(settings["clip_norm"]),
            "pooling": settings["pooling"]}


def emolit_heads(saved: dict, train_states, train_labels: Sequence[str], *, seeds: Sequence[int], steps: int,
                 batch_size: int, lr: float, n_heads: int, pooling: str = "mean", base_scale: str | float = "backbone",
                 backbone_dim: int | None = None, clip_norm: float | None = CLIP_NORM,
                 cache: bool | str | Path | None = True, profile: str | None = None):
    """Every Emolit head of notebook 02 (both kinds, every loss and seed) for the analyses of §5–6: the weights saved
    by notebook 02 (``saved[("Emolit", kind, loss, "state", seed)]``) when they were trained with the same settings
    (``saved[("Emolit", kind, loss, "settings", seed)]`` equal to :func:`head_settings` of these: steps, batch, lr,
    heads, pooling, base scale, clipping) and their shapes fit a fresh head, otherwise trained here with these
    settings (through a cache of trained heads keyed like :func:`head_run`'s, ``cache``). Saved weights without a
    settings record (from an earlier version) are not reused. On the fine-tuned setting's inputs
    (:class:`~companion.papers.circumplex.finetune.BackboneInputs`) every model is fine-tuned here (notebook 02 keeps
    no fine-tuned encoders). A model trained here in a run of the gpu ``profile`` (the notebook's ``cfg.profile``)
    checkpoints under that key (:func:`companion.training.gpu_checkpoint`). Returns ``({(kind, loss, seed): head in eval mode}, {same key: where
    it came from})``."""
    heads, source = {}, {}
    for seed in seeds:
        for kind in HEAD_KINDS:
            for loss in LOSSES:
                settings = head_settings(kind, loss, train_states, steps=steps, batch_size=batch_size, lr=lr,
                                         seed=seed, n_heads=n_heads, pooling=pooling, base_scale=base_scale,
                                         backbone_dim=backbone_dim, clip_norm=clip_norm)
                state = saved.get(("Emolit", kind, loss, "state", seed))
                same = saved.get(("Emolit", kind, loss, "settings", seed)) == settings
                key = head_run_key(settings, train_states, train_labels, trained_only=True) \
                    if cache not in (None, False) or run_profile(profile) == "gpu" else None  # also its checkpoint's
                if "backbone_training" in settings:  # fine-tuned encoders are neither saved nor cached: trained here
                    heads[(kind, loss, seed)], _ = train_head(
                        kind, LOSSES[loss], train_states, list(train_labels), steps=steps,
                        batch_size=min(batch_size, len(train_labels)), lr=lr, seed=seed, n_heads=n_heads,
                        progress=False, pooling=pooling, clip_norm=clip_norm, base_scale=base_scale,
                        backbone_dim=settings["backbone_dim"] or backbone_dim, checkpoint_key=key,
                        profile=profile, **_train_kwargs(settings))
                    source[(kind, loss, seed)] = "fine-tuned here"
                    continue
                kw = {} if settings["base_scale_value"] is None else {"base_scale": settings["base_scale_value"]}
                head = make_head(kind, train_states.dim, n_heads=n_heads, pooling=pooling, **kw)
                fresh = head.state_dict()
                if same and state is not None and set(state) == set(fresh) and \
                        all(state[k].shape == v.shape for k, v in fresh.items()):
                    head.load_state_dict(state)
                    source[(kind, loss, seed)] = "02 cache"
                else:
                    path = _cache_path(cache, key)
                    cached = read_cache(path, weights_only=False) if path is not None else None
                    if isinstance(cached, dict) and cached.get("settings") == settings:
                        head = _rebuild_head(settings, train_states.dim, cached["state"])
                        source[(kind, loss, seed)] = "retrained here (cached)"
                    else:
                        head, _ = train_head(kind, LOSSES[loss], train_states, list(train_labels), steps=steps,
                                             batch_size=min(batch_size, len(train_labels)), lr=lr, seed=seed,
                                             n_heads=n_heads, progress=False, pooling=pooling, clip_norm=clip_norm,
                                             base_scale=base_scale, backbone_dim=settings["backbone_dim"] or
                                             backbone_dim, checkpoint_key=key, profile=profile)
                        if path is not None:
                            torch_save_atomic({"settings": settings, "state": {k: v.detach().clone() for k, v in
                                                                               head.state_dict().items()}}, path)
                        source[(kind, loss, seed)] = "retrained here"
                heads[(kind, loss, seed)] = head
    for head in heads.values():
        head.eval()
    return heads, source


def unseen_label_summary(emb_ecm, labels_ecm: Sequence[str], emb_other, labels_other: Sequence[str],
                         near: Sequence[str] = ("calmness", "relief"), probe: str = "neutral",
                         seed: int = 0) -> dict[str, float]:
    """§6 / Fig 7 on one head: V-Measure (spherical k-means, k = number of labels) of the ECM test embeddings alone
    (``V_ecm``) and together with texts of labels the head never saw (``V_all``), and where the ``probe`` label
    (Neutral) lands: the mean cosine of its centroid to the ``near`` ECM centroids minus the mean to the other ECM
    centroids (``probe_near_minus_rest``; > 0: closer to the low-arousal labels), and the ECM labels ranked by that
    cosine (``probe_ranking``, nearest first)."""
    labels_ecm, labels_other = list(labels_ecm), list(labels_other)
    if probe not in labels_other:
        raise ValueError(f"the probe label {probe!r} is not among the other labels.")
    classes = [c for c in ECM_LABELS if c in set(labels_ecm)]
    missing = [c for c in near if c not in classes]
    if missing:
        raise ValueError(f"near labels {missing} are not among the ECM labels present.")
    both = torch.cat([torch.as_tensor(emb_ecm), torch.as_tensor(emb_other)])
    cent = label_centroids(emb_ecm, labels_ecm, classes)
    p = label_centroids(emb_other, labels_other, [probe])[0]
    cos = dict(zip(classes, cent @ p))
    rest = [c for c in classes if c not in near]
    return {"V_ecm": v_measure(emb_ecm, labels_ecm, seed=seed),
            "V_all": v_measure(both, labels_ecm + labels_other, seed=seed),
            "probe_near_minus_rest": float(np.mean([cos[c] for c in near]) - np.mean([cos[c] for c in rest])),
            "probe_ranking": ", ".join(sorted(classes, key=lambda c: -cos[c]))}


def table4_runs(datasets: Mapping[str, tuple], feats: Mapping, pretrained: Mapping, *, seeds: Sequence[int],
                kinds: Sequence[str], losses: Sequence[str], batch_size: int, lr: float, n_heads: int,
                curve_points: int = 0, curve_seeds: Sequence[int] = (), probe_factor: int = 1, pooling: str = "mean",
                base_scale: str | float = "backbone", clip_norm: float | None = CLIP_NORM,
                cache: bool | str | Path | None = True, profile: str | None = None):
    """Notebook 02's grid (§4, Table 4): every data set x seed x head kind x loss through :func:`head_run`, plus one
    pretrained row per data set. ``datasets[name] = (train key, test key, train frame, test frame, steps)`` names
    the states in ``feats`` / ``pretrained`` and the labelled frames. The runs of ``curve_seeds`` record the test
    V-Measure ``curve_points`` times up to their budget (which ``curve_points`` must divide) and, with
    ``probe_factor`` > 1, train on to ``probe_factor`` x the budget for the curve only (their scores are taken at the
    budget). ``pooling``, ``base_scale``, ``clip_norm``, ``cache`` and ``profile`` (the notebook's ``cfg.profile``:
    the gpu profile's runs checkpoint) go to every :func:`head_run` (the backbone's
    width for the base scale is that of the ``pretrained`` embeddings). Returns ``(runs, keep)``: one row per run
    (with its ``steps`` and recorded settings) and, in ``keep``, every head's weights (``(name, kind, loss,
    "state", seed)``) and settings (``(name, kind, loss, "settings", seed)``, :func:`head_settings`; what
    :func:`emolit_heads` checks before reusing the weights), the first seed's test embeddings (``(name, kind,
    loss)``) and the pretrained test embeddings (``(name, "pretrained")``)."""
    if not seeds:
        raise ValueError("table4_runs needs at least one seed.")
    if curve_seeds and curve_points < 1:
        raise ValueError("curve_seeds needs curve_points >= 1.")
    if probe_factor < 1:
        raise ValueError(f"probe_factor must be >= 1, got {probe_factor}.")
    for ds, spec in datasets.items():
        if curve_seeds and spec[4] % curve_points:
            raise ValueError(f"{ds}: curve_points {curve_points} does not divide the budget of {spec[4]} steps.")
    rows, keep = [], {}
    for ds, (_, kte, _, dte, _) in datasets.items():
        rows.append({"dataset": ds, "head": "-", "loss": "pretrained", "seed": 0,
                     **evaluate_embeddings(pretrained[kte], dte.label), "train_s": 0.0})
        keep[(ds, "pretrained")] = pretrained[kte]
    jobs = [(ds, seed, kind, loss) for ds in datasets for seed in seeds for kind in kinds for loss in losses]
    for ds, seed, kind, loss in tqdm(jobs, desc="head runs"):
        ktr, kte, dtr, dte, n_steps = datasets[ds]
        curve = seed in curve_seeds
        width = int(pretrained[ktr].shape[1])  # the backbone's own sentence embeddings: its width
        scores, head, emb = head_run(kind, loss, feats[ktr], dtr.label, feats[kte], dte.label, steps=n_steps,
                                     batch_size=batch_size, lr=lr, seed=seed, n_heads=n_heads,
                                     curve_every=n_steps // curve_points if curve else 0,
                                     probe_steps=probe_factor * n_steps if curve and probe_factor > 1 else None,
                                     pooling=pooling, base_scale=base_scale, backbone_dim=width,
                                     clip_norm=clip_norm, cache=cache, keep_weights=not is_tuned(feats[ktr]),
                                     profile=profile)
        rows.append({"dataset": ds, "head": kind, "loss": loss, "seed": seed, "steps": n_steps, **scores})
        if head is not None:  # a fine-tuned encoder's weights are not kept (notebook 03 trains its own)
            keep[(ds, kind, loss, "state", seed)] = {k: v.clone() for k, v in head.state_dict().items()}
        keep[(ds, kind, loss, "settings", seed)] = head_settings(
            kind, loss, feats[ktr], steps=n_steps, batch_size=batch_size, lr=lr, seed=seed, n_heads=n_heads,
            pooling=pooling, base_scale=base_scale, backbone_dim=width, clip_norm=clip_norm)
        if seed == seeds[0]:
            keep[(ds, kind, loss)] = emb
    return pd.DataFrame(rows), keep
