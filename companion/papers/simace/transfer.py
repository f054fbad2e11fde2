r"""SentEval-style transfer evaluation of frozen sentence embeddings (SimACE Table 13; Conneau & Kiela 2018).

A logistic-regression probe (scikit-learn, no hidden layer) on frozen embeddings, following SentEval's protocol:

* **MR, CR, SUBJ, MPQA** (one labelled file each): stratified k-fold cross-validation (shuffled, seed 1111 as in
  SentEval); inside every outer training fold the L2 strength ``C`` is chosen by an inner stratified k-fold over
  ``regs`` (SentEval's scikit-learn grid is :math:`2^{-2}, \dots, 2^{3}`), then refitted on the whole outer fold
  (:func:`cv_accuracy`).
* **SST-2**: ``C`` chosen on the dev split, accuracy on the test split (:func:`split_accuracy` with a dev set).
* **TREC** and **MRPC**: ``C`` chosen by inner k-fold on the train split, accuracy on the test split
  (:func:`split_accuracy` without a dev set); MRPC's pair feature is SentEval's :math:`[|u - v|, u \odot v]`
  (:func:`pair_features`).

Embeddings are used as returned by the encoder (not normalised, not scaled), as SentEval does. The CPU notebooks
subsample the training data (``n_train``); :func:`transfer_tasks` says exactly what was kept.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from companion.data import load_mrpc, load_transfer

#: SentEval's scikit-learn grid of inverse L2 strengths (``2**t`` for t in -2..3)
SENTEVAL_REGS = tuple(2.0 ** t for t in range(-2, 4))
#: SentEval's seed for the fold split
SENTEVAL_SEED = 1111
#: the seven tasks of SimACE Table 13 in its column order (SST = binary SST-2)
TASKS = ("MR", "CR", "SUBJ", "MPQA", "SST", "TREC", "MRPC")
CV_TASKS = ("MR", "CR", "SUBJ", "MPQA")


def _check_xy(x, y) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y)
    if x.ndim != 2 or y.ndim != 1 or len(x) != len(y):
        raise ValueError(f"x must be N x d and y of length N, got {x.shape} and {y.shape}.")
    if len(np.unique(y)) < 2:
        raise ValueError("y needs at least two classes.")
    if not np.isfinite(x).all():
        raise ValueError("x contains NaN or Inf.")
    return x, y


def _fit(x, y, c: float, seed: int):
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 - sklearn is heavy; this module imports without it

    return LogisticRegression(C=c, max_iter=1000, random_state=seed).fit(x, y)


def select_c(x, y, regs: Sequence[float] = SENTEVAL_REGS, folds: int = 5, seed: int = SENTEVAL_SEED) -> float:
    """The ``C`` of ``regs`` with the best mean accuracy over a stratified ``folds``-fold split of ``(x, y)``
    (ties: the first, i.e. the strongest regularisation)."""
    from sklearn.model_selection import StratifiedKFold  # noqa: PLC0415 - sklearn is heavy; this module imports without it

    x, y = _check_xy(x, y)
    if not regs:
        raise ValueError("regs is empty: give at least one C.")
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    scores = []
    for c in regs:
        acc = [(_fit(x[tr], y[tr], c, seed).predict(x[te]) == y[te]).mean() for tr, te in skf.split(x, y)]
        scores.append(float(np.mean(acc)))
    return float(regs[int(np.argmax(scores))])


def cv_accuracy(x, y, folds: int = 10, inner_folds: int = 5, regs: Sequence[float] = SENTEVAL_REGS,
                seed: int = SENTEVAL_SEED) -> float:
    """SentEval's k-fold protocol: mean test accuracy (x 100) over ``folds`` stratified outer folds, ``C`` chosen
    in each outer training fold by :func:`select_c` (``inner_folds``)."""
    from sklearn.model_selection import StratifiedKFold  # noqa: PLC0415 - sklearn is heavy; this module imports without it

    x, y = _check_xy(x, y)
    accs = []
    for tr, te in StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(x, y):
        c = select_c(x[tr], y[tr], regs, inner_folds, seed)
        accs.append((_fit(x[tr], y[tr], c, seed).predict(x[te]) == y[te]).mean())
    return 100.0 * float(np.mean(accs))


def split_accuracy(x_train, y_train, x_test, y_test, x_dev=None, y_dev=None, inner_folds: int = 5,
                   regs: Sequence[float] = SENTEVAL_REGS, seed: int = SENTEVAL_SEED) -> float:
    """Test accuracy (x 100) of a probe fitted on the train split, ``C`` chosen on the dev split when given (SST-2),
    else by :func:`select_c` on the train split (TREC, MRPC)."""
    x_train, y_train = _check_xy(x_train, y_train)
    x_test, y_test = np.asarray(x_test, dtype=np.float64), np.asarray(y_test)
    if x_test.shape[1:] != x_train.shape[1:] or len(x_test) != len(y_test):
        raise ValueError(f"test set shape {x_test.shape} / {y_test.shape} does not match train {x_train.shape}.")
    if x_dev is not None:
        x_dev, y_dev = np.asarray(x_dev, dtype=np.float64), np.asarray(y_dev)
        accs = [(_fit(x_train, y_train, c, seed).predict(x_dev) == y_dev).mean() for c in regs]
        c = float(regs[int(np.argmax(accs))])
    else:
        c = select_c(x_train, y_train, regs, inner_folds, seed)
    return 100.0 * float((_fit(x_train, y_train, c, seed).predict(x_test) == y_test).mean())


def pair_features(a, b) -> np.ndarray:
    """SentEval's MRPC feature of two embedding matrices: ``[|a - b|, a * b]`` (N x 2d)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"a and b must be N x d matrices of one shape, got {a.shape} and {b.shape}.")
    return np.concatenate([np.abs(a - b), a * b], axis=1)


@functools.cache
def _load(task: str, split: str | None = None):
    """One mirrored transfer split as SentEval reads it (empty lines kept), read once per process."""
    return load_mrpc(split) if task == "MRPC" else load_transfer(task, split)


@functools.cache
def _columns(task: str, split: str | None = None) -> dict[str, list]:
    """:func:`_load`'s split as plain column lists without its empty texts (SentEval keeps 4 empty lines of CR
    and 3 of MPQA; a probe cannot use them)."""
    ds = _load(task, split)
    cols = {c: list(ds[c]) for c in ds.column_names}
    texts = [c for c in ("text", "sentence1", "sentence2") if c in cols]
    keep = [i for i in range(len(cols["label"])) if all(cols[c][i].strip() for c in texts)]
    return {c: [v[i] for i in keep] for c, v in cols.items()}


def _subsample(n: int, n_max: int | None, labels, seed: int) -> np.ndarray:
    """Indices of a stratified random subsample of at most ``n_max`` of ``n`` items (all, in order, when None)."""
    if n_max is None or n <= n_max:
        return np.arange(n)
    from sklearn.model_selection import train_test_split  # noqa: PLC0415 - sklearn is heavy; this module imports without it

    keep, _ = train_test_split(np.arange(n), train_size=n_max, stratify=np.asarray(labels), random_state=seed)
    return np.sort(keep)


def transfer_tasks(n_train: int | None = None, seed: int = 0, tasks: Sequence[str] = TASKS,
                   n_test: int | None = None) -> dict:
    """The transfer tasks from the data mirror (:func:`companion.data.load_transfer`, :func:`~companion.data.load_mrpc`;
    empty lines dropped), each ``{"kind": "cv" | "split" | "pair", ...}`` with texts and labels. With ``n_train``
    a stratified random subsample (``seed``) of at most that many items of each CV set and of each train split
    (SST-2's train holds 67k phrases); dev and test splits are kept whole unless ``n_test`` caps them the same way
    (the smoke profile only)."""
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        raise ValueError(f"Unknown transfer task(s) {unknown}; choose from {', '.join(TASKS)}.")
    out = {}
    for task in tasks:
        if task in CV_TASKS:
            ds = _columns(task)
            keep = _subsample(len(ds["label"]), n_train, ds["label"], seed)
            out[task] = {"kind": "cv", "texts": [ds["text"][i] for i in keep],
                         "labels": np.asarray(ds["label"])[keep], "n_total": len(ds["label"])}
        elif task in ("SST", "TREC"):
            splits = {s: _columns(task, s) for s in
                      (("train", "dev", "test") if task == "SST" else ("train", "test"))}
            tr = splits["train"]
            keep = _subsample(len(tr["label"]), n_train, tr["label"], seed)
            entry = {"kind": "split", "train": ([tr["text"][i] for i in keep], np.asarray(tr["label"])[keep]),
                     "n_total": len(tr["label"])}
            for part in ("dev", "test"):
                if part in splits:
                    ds = splits[part]
                    k = _subsample(len(ds["label"]), n_test, ds["label"], seed)
                    entry[part] = ([ds["text"][i] for i in k], np.asarray(ds["label"])[k])
            out[task] = entry
        else:
            tr, te = _columns("MRPC", "train"), _columns("MRPC", "test")
            keep = _subsample(len(tr["label"]), n_train, tr["label"], seed)
            k = _subsample(len(te["label"]), n_test, te["label"], seed)
            out[task] = {"kind": "pair",
                         "train": ([tr["sentence1"][i] for i in keep], [tr["sentence2"][i] for i in keep],
                                   np.asarray(tr["label"])[keep]),
                         "test": ([te["sentence1"][i] for i in k], [te["sentence2"][i] for i in k],
                                  np.asarray(te["label"])[k]),
                         "n_total": len(tr["label"])}
    return out


def transfer_sizes() -> dict[str, dict[str, int]]:
    """Items per split of the seven mirrored transfer sets as SentEval reads them (empty lines kept), in the layout
    of SimACE Table 6 (``train`` / ``valid`` / ``test``; the CV sets are all ``train``)."""
    sizes = {t: {"train": len(_load(t))} for t in CV_TASKS}
    sizes["SST-2"] = {"train": len(_load("SST", "train")), "valid": len(_load("SST", "dev")),
                      "test": len(_load("SST", "test"))}
    sizes["TREC"] = {"train": len(_load("TREC", "train")), "test": len(_load("TREC", "test"))}
    sizes["MRPC"] = {"train": len(_load("MRPC", "train")), "test": len(_load("MRPC", "test"))}
    return sizes


def summarise(rows: list[dict], labels: Sequence[str]) -> dict:
    """Mean over seeds of transfer score rows (``{"model", "seed", <task>..., "avg"}``) per model of ``labels``."""
    frame = pd.DataFrame(rows)
    return frame.groupby("model", sort=False)[[c for c in frame.columns if c not in ("model", "seed")]].mean(
    ).loc[list(labels)]


def task_texts(tasks: dict) -> list[str]:
    """Every distinct text of :func:`transfer_tasks`' output (to precompute or cache their encodings once)."""
    texts: list[str] = []
    for t in tasks.values():
        if t["kind"] == "cv":
            texts += t["texts"]
        else:
            for key in ("train", "dev", "test"):
                if key in t:
                    texts += [s for part in t[key][:-1] for s in part]
    return list(dict.fromkeys(texts))


def evaluate_transfer(encode: Callable[[list[str]], object], tasks: dict, folds: int = 10, inner_folds: int = 5,
                      regs: Sequence[float] = SENTEVAL_REGS, seed: int = SENTEVAL_SEED) -> dict[str, float]:
    """Accuracy x 100 of a logistic-regression probe on ``encode(texts)`` (N x d, frozen) for every task of
    ``tasks`` (:func:`transfer_tasks`), with the protocol of the module docstring, and their mean ``avg``."""
    def emb(texts):
        e = encode(list(texts))
        return np.asarray(e.numpy() if hasattr(e, "numpy") else e, dtype=np.float64)

    scores = {}
    for name, t in tasks.items():
        if t["kind"] == "cv":
            scores[name] = cv_accuracy(emb(t["texts"]), t["labels"], folds, inner_folds, regs, seed)
        elif t["kind"] == "split":
            dev = (emb(t["dev"][0]), t["dev"][1]) if "dev" in t else (None, None)
            scores[name] = split_accuracy(emb(t["train"][0]), t["train"][1], emb(t["test"][0]), t["test"][1],
                                          *dev, inner_folds=inner_folds, regs=regs, seed=seed)
        elif t["kind"] == "pair":
            xtr = pair_features(emb(t["train"][0]), emb(t["train"][1]))
            xte = pair_features(emb(t["test"][0]), emb(t["test"][1]))
            scores[name] = split_accuracy(xtr, t["train"][2], xte, t["test"][2], inner_folds=inner_folds,
                                          regs=regs, seed=seed)
        else:
            raise ValueError(f"task {name!r} has unknown kind {t.get('kind')!r}.")
    scores["avg"] = float(np.mean([scores[n] for n in tasks]))
    return scores
