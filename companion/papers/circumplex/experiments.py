"""The circumplex paper's experiment data and its idealised free-vector setting (paper App. I).

Label-balanced Emolit / GoEmotions / EmoBank samples for the head experiments, and free unit vectors optimised
directly under a loss of :mod:`companion.losses.circumplex`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from companion.losses.circumplex import ECM_LABELS, GOEMOTIONS_ECM_LABELS


# ------------------------------------------------------------------------------------------ experiment data
def goemotions_single_label(labels: Sequence[str] | None = None):
    """GoEmotions comments (train + dev + test pooled) that carry exactly ONE label, as a DataFrame with
    ``text``, ``label``, ``split``; optionally only the given label names."""
    import pandas as pd

    from companion.data import load_goemotions

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
    import pandas as pd

    from companion.data import load_emolit

    out = []
    for split in ("train", "test"):
        ds = load_emolit(split)
        out.append(pd.DataFrame({"text": ds["text"][:], "label": ds["label"][:]}))  # [:]: one Arrow call
    return tuple(out)


def optimise_free_vectors(loss, labels, dim: int, steps: int, lr: float = 0.05, seed: int = 0,
                          dtype: torch.dtype = torch.float64, progress: bool = False):
    """Optimise free unit vectors (no model) with ``loss(emb, labels)`` — paper App. I's idealised setting.

    One free vector per row of ``labels``, initialised i.i.d. Gaussian (then normalised inside the loss), full
    batch, Adam. Returns ``(unit embeddings (N x dim, float64), loss history (list of floats))``."""
    from tqdm.auto import tqdm

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
    from companion.data import load_emobank

    df = load_emobank(split)
    idx = np.sort(np.random.default_rng(seed).permutation(len(df))[: min(n, len(df))])
    return df.iloc[idx].reset_index(drop=True)


HEAD_KINDS = ("GPT", "nGPT")


def head_run(kind: str, loss: str, train_states, train_labels: Sequence[str], test_states,
             test_labels: Sequence[str], *, steps: int, batch_size: int, lr: float, seed: int, n_heads: int,
             margin: float | None = None, curve_every: int = 0, probe_steps: int | None = None):
    """One cell of Table 4 (§4): train a ``kind`` head (``"GPT"``, ``"nGPT"``, ``"nGPT-plain"``) with the loss named
    ``loss`` (a key of :data:`companion.losses.circumplex.LOSSES`; ``margin`` sets CircularCSE's m) on the training
    states for ``steps`` steps, embed the test states and score them.

    The batch is at most the training set. Returns ``(scores, head, test embeddings)``, where ``scores`` holds
    V-Measure and CD-r (:func:`companion.papers.circumplex.heads.evaluate_embeddings`), the mean cosine between
    different labels (``mean_offdiag_cos``), the training time ``train_s``, the first loss and the mean of the last
    five (``first_loss``, ``final_loss``) and, with ``curve_every`` > 0, ``curve``: the test V-Measure every
    ``curve_every`` steps (a learning curve to read the plateau from; no weights are selected on it).
    ``probe_steps`` (> ``steps``, a multiple of ``curve_every`` away from it) trains on to that step for the curve
    only: the scores, the embeddings and the returned head are still those at ``steps`` (the data order of the first
    ``steps`` steps is the same; the head's weights are copied at that step and restored)."""
    import time
    from functools import partial

    from companion.losses.circumplex import LOSSES
    from companion.metrics.clustering import v_measure
    from companion.papers.circumplex.geometry import geometry_summary
    from companion.papers.circumplex.heads import embed_with_head, evaluate_embeddings, train_head

    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; choose one of {', '.join(LOSSES)}.")
    if margin is not None and loss != "CircularCSE":
        raise ValueError(f"a margin applies to CircularCSE only, not {loss!r}.")
    if probe_steps is not None and not (curve_every and probe_steps > steps and steps % curve_every == 0):
        raise ValueError("probe_steps needs curve_every > 0 dividing steps, and probe_steps > steps.")
    loss_fn = LOSSES[loss] if margin is None else partial(LOSSES[loss], margin=margin)
    test_labels = list(test_labels)
    snapshots = []  # test embeddings at every curve point, in order (the trainer evaluates at 0, k, 2k, ... steps)
    at_budget = {}  # the head's weights at ``steps`` when the run trains on past it

    def curve_fn(h):
        if probe_steps and len(snapshots) * curve_every == steps:
            at_budget["state"] = {k: v.detach().clone() for k, v in h.state_dict().items()}
        snapshots.append(embed_with_head(h, test_states))
        return v_measure(snapshots[-1], test_labels)

    t = time.perf_counter()
    head, res = train_head(kind, loss_fn, train_states, list(train_labels), steps=probe_steps or steps,
                           batch_size=min(batch_size, len(train_labels)), lr=lr, seed=seed, n_heads=n_heads,
                           progress=False, eval_fn=curve_fn if curve_every else None, eval_every=curve_every)
    train_s = time.perf_counter() - t
    curve_steps = [h["step"] for h in res.history if "eval" in h]
    if probe_steps:
        emb = snapshots[curve_steps.index(steps)]
        head.load_state_dict(at_budget["state"])
    else:
        emb = embed_with_head(head, test_states)
    losses = [h["loss"] for h in res.history if "loss" in h][:steps]
    geo = geometry_summary(emb, test_labels, [c for c in ECM_LABELS if c in set(test_labels)])
    scores = {**evaluate_embeddings(emb, test_labels), "mean_offdiag_cos": geo["mean_offdiag_cos"],
              "train_s": train_s, "first_loss": losses[0], "final_loss": float(np.mean(losses[-5:]))}
    if curve_every:
        scores["curve"] = {h["step"]: h["eval"] for h in res.history if "eval" in h}
    return scores, head, emb


def emolit_heads(saved: dict, train_states, train_labels: Sequence[str], *, seeds: Sequence[int], steps: int,
                 batch_size: int, lr: float, n_heads: int):
    """Every Emolit head of notebook 02 (both kinds, every loss and seed) for the analyses of §5–6: the weights saved
    by notebook 02 (``saved[("Emolit", kind, loss, "state", seed)]``) when their shapes fit a fresh head, otherwise
    retrained here with the same settings. Returns ``({(kind, loss, seed): head in eval mode}, {same key: where it
    came from})``."""
    from companion.losses.circumplex import LOSSES
    from companion.papers.circumplex.heads import make_head, train_head

    heads, source = {}, {}
    for seed in seeds:
        for kind in HEAD_KINDS:
            for loss in LOSSES:
                state = saved.get(("Emolit", kind, loss, "state", seed))
                head = make_head(kind, train_states.dim, n_heads=n_heads)
                if state is not None and all(state[k].shape == v.shape for k, v in head.state_dict().items()):
                    head.load_state_dict(state)
                    source[(kind, loss, seed)] = "02 cache"
                else:
                    head, _ = train_head(kind, LOSSES[loss], train_states, list(train_labels), steps=steps,
                                         batch_size=min(batch_size, len(train_labels)), lr=lr, seed=seed,
                                         n_heads=n_heads, progress=False)
                    source[(kind, loss, seed)] = "retrained here"
                heads[(kind, loss, seed)] = head.eval()
    return heads, source


def unseen_label_summary(emb_ecm, labels_ecm: Sequence[str], emb_other, labels_other: Sequence[str],
                         near: Sequence[str] = ("calmness", "relief"), probe: str = "neutral",
                         seed: int = 0) -> dict[str, float]:
    """§6 / Fig 7 on one head: V-Measure (spherical k-means, k = number of labels) of the ECM test embeddings alone
    (``V_ecm``) and together with texts of labels the head never saw (``V_all``), and where the ``probe`` label
    (Neutral) lands: the mean cosine of its centroid to the ``near`` ECM centroids minus the mean to the other ECM
    centroids (``probe_near_minus_rest``; > 0: closer to the low-arousal labels), and the ECM labels ranked by that
    cosine (``probe_ranking``, nearest first)."""
    from companion.metrics.clustering import v_measure
    from companion.papers.circumplex.geometry import label_centroids

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
                curve_points: int = 0, curve_seeds: Sequence[int] = (), probe_factor: int = 1):
    """Notebook 02's grid (§4, Table 4): every data set x seed x head kind x loss through :func:`head_run`, plus one
    pretrained row per data set. ``datasets[name] = (train key, test key, train frame, test frame, steps)`` names
    the states in ``feats`` / ``pretrained`` and the labelled frames. The runs of ``curve_seeds`` record the test
    V-Measure ``curve_points`` times up to their budget (which ``curve_points`` must divide) and, with
    ``probe_factor`` > 1, train on to ``probe_factor`` x the budget for the curve only (their scores are taken at the
    budget). Returns ``(runs, keep)``: one row per run (with its ``steps``) and, in ``keep``, every head's weights
    (``(name, kind, loss, "state", seed)``), the first seed's test embeddings (``(name, kind, loss)``) and the
    pretrained test embeddings (``(name, "pretrained")``)."""
    import pandas as pd
    from tqdm.auto import tqdm

    from companion.papers.circumplex.heads import evaluate_embeddings

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
        scores, head, emb = head_run(kind, loss, feats[ktr], dtr.label, feats[kte], dte.label, steps=n_steps,
                                     batch_size=batch_size, lr=lr, seed=seed, n_heads=n_heads,
                                     curve_every=n_steps // curve_points if curve else 0,
                                     probe_steps=probe_factor * n_steps if curve and probe_factor > 1 else None)
        rows.append({"dataset": ds, "head": kind, "loss": loss, "seed": seed, "steps": n_steps, **scores})
        keep[(ds, kind, loss, "state", seed)] = {k: v.clone() for k, v in head.state_dict().items()}
        if seed == seeds[0]:
            keep[(ds, kind, loss)] = emb
    return pd.DataFrame(rows), keep
