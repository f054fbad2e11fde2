r"""Sentence-pair batches in AnglE's interleaved layout, a supervised pair fine-tuning step, and Table 4's objective
and pooling variants (:data:`TABLE4_VARIANTS`, :data:`TABLE4_POOLINGS`).

AnglE (arXiv 2309.12871, §3.1) lays a batch of *P* labelled pairs out as ``X = [A1; A2; B1; B2; …]``: pair *k*
occupies rows ``(2k, 2k+1)``. :class:`PairData` holds a pair data set (``sentence1``, ``sentence2``, ``label``),
:meth:`PairData.batch` collates index batches from :func:`companion.training.index_batches` into that layout, and
:func:`pair_loss_fn` turns an embedding function and a pair objective into the ``loss_fn(batch)`` closure that
:func:`companion.training.train` expects::

    data = PairData.from_dataset(load_stsb("train"), label="score")
    step = pair_loss_fn(encoder.embed, AnglEObjective(positive_threshold=4.0), data)
    train(encoder.model, step, index_batches(len(data), 32, seed), steps=200, lr=2e-5)
"""

from __future__ import annotations

import dataclasses
import math
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from companion._io import cache_key, read_cache, torch_save_atomic
from companion.settings import cache_dir
from companion.training import RunState, gpu_checkpoint, index_batches, run_profile, seed_everything, train


def interleave(first: Sequence[str], second: Sequence[str]) -> list[str]:
    """``[a1, b1, a2, b2, …]`` from two equally long lists of texts."""
    first, second = list(first), list(second)
    if len(first) != len(second):
        raise ValueError(f"first and second must have the same length: {len(first)} vs {len(second)}.")
    out: list[str] = [""] * (2 * len(first))
    out[0::2] = first
    out[1::2] = second
    return out


@dataclass
class PairBatch:
    """One interleaved batch: ``texts`` (``2P``: rows ``2k, 2k+1`` are pair *k*) and ``labels`` (``P``)."""

    texts: list[str]
    labels: torch.Tensor

    def __len__(self) -> int:
        return len(self.labels)


class PairData:
    """A labelled sentence-pair data set (graded or binary labels) with interleaved collation."""

    def __init__(self, sentence1: Sequence[str], sentence2: Sequence[str], labels: Sequence[float]):
        self.sentence1 = [str(s) for s in sentence1]
        self.sentence2 = [str(s) for s in sentence2]
        self.labels = torch.as_tensor(list(labels), dtype=torch.float32)
        if not (len(self.sentence1) == len(self.sentence2) == len(self.labels)):
            raise ValueError(f"sentence1, sentence2 and labels must have the same length: {len(self.sentence1)}, "
                             f"{len(self.sentence2)}, {len(self.labels)}.")
        if len(self.labels) == 0:
            raise ValueError("a pair data set needs at least one pair.")
        if not bool(torch.isfinite(self.labels).all()):
            raise ValueError("labels contain NaN or Inf values.")

    @classmethod
    def from_dataset(cls, dataset, first: str = "sentence1", second: str = "sentence2", label: str = "score",
                     label_map: Callable[[object], float | None] | None = None) -> PairData:
        """From a ``datasets.Dataset`` / pandas frame / dict of columns. ``label_map`` converts raw labels (e.g. NLI
        strings) to numbers; rows it maps to ``None`` are dropped (e.g. neutral)."""
        cols = dataset if isinstance(dataset, dict) else {k: list(dataset[k]) for k in (first, second, label)}
        for key in (first, second, label):
            if key not in cols:
                raise ValueError(f"column {key!r} not found; available: {', '.join(map(str, cols))}.")
        a, b, y = list(cols[first]), list(cols[second]), list(cols[label])
        if label_map is not None:
            mapped = [label_map(v) for v in y]
            keep = [i for i, v in enumerate(mapped) if v is not None]
            a, b, y = [a[i] for i in keep], [b[i] for i in keep], [mapped[i] for i in keep]
        return cls(a, b, y)

    def __len__(self) -> int:
        return len(self.labels)

    def subset(self, n: int | None, seed: int = 0) -> PairData:
        """A random subset of ``n`` pairs (all when ``n`` is None or >= len), fixed by ``seed``."""
        if n is None or n >= len(self):
            return self
        if n <= 0:
            raise ValueError(f"subset size must be > 0, got {n}.")
        idx = torch.randperm(len(self), generator=torch.Generator().manual_seed(seed))[:n].sort().values
        return self.select(idx)

    def select(self, idx) -> PairData:
        idx = torch.as_tensor(idx, dtype=torch.long).reshape(-1).tolist()
        return PairData([self.sentence1[i] for i in idx], [self.sentence2[i] for i in idx], self.labels[idx])

    def batch(self, idx) -> PairBatch:
        """Collate the pairs at ``idx`` into the interleaved layout."""
        idx = torch.as_tensor(idx, dtype=torch.long).reshape(-1)
        if idx.numel() == 0:
            raise ValueError("an empty index batch cannot be collated.")
        if int(idx.min()) < 0 or int(idx.max()) >= len(self):
            raise IndexError(f"pair index out of range for {len(self)} pairs.")
        ids = idx.tolist()
        texts = interleave([self.sentence1[i] for i in ids], [self.sentence2[i] for i in ids])
        return PairBatch(texts, self.labels[idx])


def pair_loss_fn(embed: Callable[[list[str]], torch.Tensor], objective: Callable[..., torch.Tensor],
                 data: PairData, pass_texts: bool = True) -> Callable[[torch.Tensor], torch.Tensor]:
    """A ``loss_fn(index_batch)`` for :func:`companion.training.train`: collate, embed (differentiably), score.

    ``embed`` maps a list of ``2P`` texts to ``(2P, d)`` embeddings with a graph (e.g. ``Encoder.embed``);
    ``objective(embeddings, labels[, texts])`` is a pair objective from :mod:`companion.losses.angle` (``texts``
    enable identical-sentence-pair detection).
    """

    def loss_fn(idx) -> torch.Tensor:
        batch = data.batch(idx)
        emb = embed(batch.texts)
        labels = batch.labels.to(emb.device)
        return objective(emb, labels, batch.texts) if pass_texts else objective(emb, labels)

    return loss_fn


# ------------------------------------------------------------------------------------------ fixed-feature pairs
@dataclass
class FeaturePairs:
    """Pairs given as input vectors (cached sentence features or synthetic inputs) rather than texts.

    ``x1``, ``x2``: ``(P, p)`` inputs of the two sides; ``labels``: ``(P,)`` training labels; ``texts``: optional
    ``2P`` interleaved texts (enables identical-sentence-pair detection in the in-batch-negative term).
    """

    x1: torch.Tensor
    x2: torch.Tensor
    labels: torch.Tensor
    texts: list[str] | None = None

    def __post_init__(self):
        if self.x1.shape != self.x2.shape or self.x1.dim() != 2:
            raise ValueError(f"x1 and x2 must be 2-D with equal shapes, got {tuple(self.x1.shape)} and "
                             f"{tuple(self.x2.shape)}.")
        self.labels = torch.as_tensor(self.labels, dtype=torch.float32).reshape(-1)
        if len(self.labels) != len(self.x1):
            raise ValueError(f"labels must have one entry per pair: {len(self.labels)} labels for {len(self.x1)} pairs.")
        if self.texts is not None and len(self.texts) != 2 * len(self.x1):
            raise ValueError(f"texts must be interleaved (2P = {2 * len(self.x1)} entries), got {len(self.texts)}.")

    def __len__(self) -> int:
        return len(self.labels)

    def batch(self, idx) -> tuple[torch.Tensor, torch.Tensor, list[str] | None]:
        """Interleaved inputs ``(2B, p)`` ``[x1_i; x2_i; …]``, labels ``(B,)`` and interleaved texts (or None)."""
        idx = torch.as_tensor(idx, dtype=torch.long).reshape(-1)
        inputs = torch.stack([self.x1[idx], self.x2[idx]], dim=1).reshape(-1, self.x1.shape[1])
        texts = None
        if self.texts is not None:
            texts = [t for i in idx.tolist() for t in (self.texts[2 * i], self.texts[2 * i + 1])]
        return inputs, self.labels[idx], texts


def feature_loss_fn(model: torch.nn.Module, objective: Callable[..., torch.Tensor], data: FeaturePairs
                    ) -> Callable[[torch.Tensor], torch.Tensor]:
    """``loss_fn(index_batch)`` for :func:`companion.training.train` over :class:`FeaturePairs` through ``model``."""

    def loss_fn(idx) -> torch.Tensor:
        inputs, labels, texts = data.batch(idx)
        return objective(model(inputs), labels, texts)

    return loss_fn


def synthetic_sts(n_pairs: int, seed: int, latent_dim: int = 8, input_dim: int = 32, noise: float = 0.1,
                  nuisance_dim: int = 16, nuisance_scale: float = 1.0, binary_threshold: float = 3.0,
                  mixing_seed: int = 1234) -> dict[str, torch.Tensor]:
    r"""Synthetic STS pairs with a known similarity, for the saturation experiment of AnglE §1/§3.

    Latent meanings :math:`z_1 \sim N(0, I_k)`, :math:`z_2 = c z_1 + \sqrt{1-c^2}\,\xi` with :math:`c \sim U(-0.3, 1)`;
    gold :math:`= 2.5(1 + \cos(z_1, z_2))` in [0, 5], rounded to 0.2 (like averaged STS annotations); binary label
    ``gold >= binary_threshold``. Observed inputs :math:`x = \tanh(A z) + \epsilon` with one fixed random mixing
    ``A`` (``mixing_seed``, shared by train and test draws) and noise ``noise``, concatenated with
    ``nuisance_dim`` features of scale ``nuisance_scale`` drawn independently per sentence (style, length, topic
    words: variation unrelated to meaning that the encoder must learn to ignore). Returns ``x1, x2, gold, binary``.
    """
    if n_pairs < 2:
        raise ValueError(f"n_pairs must be >= 2, got {n_pairs}.")
    mix = torch.randn(input_dim, latent_dim, generator=torch.Generator().manual_seed(mixing_seed)) / latent_dim ** 0.5
    g = torch.Generator().manual_seed(seed)
    z1 = torch.randn(n_pairs, latent_dim, generator=g)
    c = torch.rand(n_pairs, 1, generator=g) * 1.3 - 0.3
    z2 = c * z1 + (1 - c ** 2).sqrt() * torch.randn(n_pairs, latent_dim, generator=g)
    gold = 2.5 * (1 + torch.nn.functional.cosine_similarity(z1, z2, dim=-1))
    gold = (gold * 5).round() / 5
    x1 = torch.tanh(z1 @ mix.T) + noise * torch.randn(n_pairs, input_dim, generator=g)
    x2 = torch.tanh(z2 @ mix.T) + noise * torch.randn(n_pairs, input_dim, generator=g)
    if nuisance_dim:
        x1 = torch.cat([x1, nuisance_scale * torch.randn(n_pairs, nuisance_dim, generator=g)], dim=1)
        x2 = torch.cat([x2, nuisance_scale * torch.randn(n_pairs, nuisance_dim, generator=g)], dim=1)
    return {"x1": x1, "x2": x2, "gold": gold, "binary": (gold >= binary_threshold).float()}


class SaturatedEncoder(torch.nn.Module):
    """A small MLP whose outputs share a large mean vector, so that initial pair cosines sit at 0.9-0.99.

    Raw BERT embeddings are anisotropic (a large common component); here that component is the output bias,
    initialised to a random direction of norm ``offset`` and trainable like every other weight (a fair test: the
    model may learn to remove it).
    """

    def __init__(self, input_dim: int = 48, hidden: int = 64, out_dim: int = 32, offset: float = 6.0, seed: int = 0):
        super().__init__()
        if out_dim % 2:
            raise ValueError(f"out_dim must be even for the angle objective, got {out_dim}.")
        g = torch.Generator().manual_seed(seed)
        self.fc1 = torch.nn.Linear(input_dim, hidden)
        self.fc2 = torch.nn.Linear(hidden, out_dim)
        with torch.no_grad():
            for layer in (self.fc1, self.fc2):
                bound = 1 / layer.in_features ** 0.5
                layer.weight.copy_((torch.rand(layer.weight.shape, generator=g) * 2 - 1) * bound)
                layer.bias.zero_()
            direction = torch.randn(out_dim, generator=g)
            self.fc2.bias.copy_(offset * direction / direction.norm())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


def train_on_features(model: torch.nn.Module, objective: Callable[..., torch.Tensor], data: FeaturePairs, *,
                      steps: int, batch_size: int, lr: float, seed: int, eval_fn: Callable[[], float] | None = None,
                      eval_every: int = 0, restore_best: bool = False, desc: str = "train", **train_kwargs):
    """Train ``model`` on :class:`FeaturePairs` with the shared loop (:func:`companion.training.train`).

    The data order depends only on ``seed`` (``index_batches``), so objectives compared at the same seed see the
    same batches (paired comparison); the model must be seeded/initialised by the caller. Returns the
    :class:`~companion.training.TrainResult`.
    """
    batches = index_batches(len(data), batch_size=batch_size, seed=seed, epochs=None)
    return train(model, feature_loss_fn(model, objective, data), batches, steps=steps, lr=lr, eval_fn=eval_fn,
                 eval_every=eval_every, restore_best=restore_best, desc=desc, **train_kwargs)


# ------------------------------------------------------------------------------------------ AnglE Table 4's variants
# The six objective variants of AnglE Table 4 (weights w_cos, w_ibn, w_angle).
TABLE4_VARIANTS = {
    "all": (1.0, 1.0, 1.0),
    "w/o ibn": (1.0, 0.0, 1.0),
    "w/o angle": (1.0, 1.0, 0.0),
    "only cosine": (1.0, 0.0, 0.0),
    "only ibn": (0.0, 1.0, 0.0),
    "only angle": (0.0, 0.0, 1.0),
}
# Its five pooling variants.
TABLE4_POOLINGS = ("cls", "cls-last-avg", "last-avg", "last-max", "first-last-avg")
# The same five poolings by their names in companion.encoders.pool / companion.encoders.upper.UpperEncoder.
TABLE4_UPPER_POOLINGS = {"cls": "cls", "cls-last-avg": "cls-mean", "last-avg": "mean", "last-max": "max",
                         "first-last-avg": "first-last"}


def bucket_wasserstein(scores, gold, edges: Sequence[float] = (0, 1, 2, 3, 4, 5)) -> float:
    """Distance between a model's score distribution and the gold distribution, per gold bucket (AnglE Fig. 5).

    Both scores and gold are rank-normalised to [0, 1] (percentiles over all pairs, ties averaged), so the
    measure ignores the scale of the similarity; within each gold bucket ``[edges[i], edges[i+1])`` (the last one
    closed) the Wasserstein-1 distance between the pairs' score percentiles and their gold percentiles is taken,
    and the buckets are averaged weighted by size. 0 = the scores order pairs exactly like the gold.
    """
    from scipy.stats import rankdata, wasserstein_distance  # noqa: PLC0415 - scipy is heavy; this module imports without it

    scores = np.asarray(scores, dtype=float).reshape(-1)
    gold = np.asarray(gold, dtype=float).reshape(-1)
    if scores.shape != gold.shape or scores.size < 2:
        raise ValueError(f"need equally long score and gold vectors of >= 2 pairs, got {scores.size}, {gold.size}.")
    rs = (rankdata(scores) - 1) / (len(scores) - 1)
    rg = (rankdata(gold) - 1) / (len(gold) - 1)
    total, weight = 0.0, 0
    for i in range(len(edges) - 1):
        upper = gold <= edges[i + 1] if i == len(edges) - 2 else gold < edges[i + 1]
        inside = (gold >= edges[i]) & upper
        if inside.sum():
            total += inside.sum() * wasserstein_distance(rs[inside], rg[inside])
            weight += int(inside.sum())
    return float(total / weight)


# ------------------------------------------------------------------------------------------ top-layer fine-tuning
def evaluate_pair_sets(encode: Callable[[list[str]], torch.Tensor], sets: dict[str, PairData],
                       return_cosines: bool = False):
    """:func:`companion.sts.score_pairs` on :class:`PairData` sets (AnglE §4's metric: Spearman x 100 between
    row-wise cosines and gold labels; MRPC's gold is its binary label). With ``return_cosines`` also returns
    ``{name: numpy cosines}`` (for score-distribution plots)."""
    from companion.sts import score_pairs  # noqa: PLC0415 - loads scipy; this module imports without it

    if not sets:
        raise ValueError("sets is empty: pass at least one evaluation set.")
    pairs = {name: (d.sentence1, d.sentence2, d.labels) for name, d in sets.items()}
    return score_pairs(encode, pairs, return_cosines=return_cosines)


#: The untrained reference of each base (:func:`untrained_reference`), by the settings of its fresh copies and the
#: evaluated sentences; and the bases that hold the lower states of another layer split (:func:`split_base`).
_UNTRAINED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_SPLITS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: Bootstrap resamples of the test pairs behind the untrained score's noise (:func:`untrained_reference`).
NOISE_RESAMPLES = 200


def split_base(base, n_top: int | None):
    """``base`` itself, or (``n_top`` other than ``base.n_top``) a base of the same encoder that trains the top
    ``n_top`` layers, made once per base and ``n_top`` so that its frozen lower states (a different layer's output)
    are computed once and shared by every run, as ``base``'s are
    (:meth:`~companion.encoders.upper.UpperEncoder.fresh`)."""
    if n_top is None or n_top == base.n_top:
        return base
    memo = _SPLITS.setdefault(base, {})
    if n_top not in memo:
        memo[n_top] = base.fresh(n_top=n_top)
    return memo[n_top]


def bootstrap_se(cosines, gold, resamples: int = NOISE_RESAMPLES, seed: int = 0) -> float:
    """Standard error of Spearman x 100 between ``cosines`` and ``gold`` over bootstrap resamples of the pairs."""
    from scipy.stats import spearmanr  # noqa: PLC0415 - scipy is heavy; this module imports without it

    x, y = np.asarray(cosines, dtype=float), np.asarray(gold, dtype=float)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        idx = rng.integers(0, len(x), len(x))
        rho = spearmanr(x[idx], y[idx]).statistic
        if np.isfinite(rho):
            values.append(100.0 * float(rho))
    return float(np.std(values, ddof=1)) if len(values) > 1 else float("nan")


def untrained_reference(model, eval_sets: dict[str, PairData], key: tuple | None = None, base=None) -> dict:
    """The untrained encoder's side of a run's movement record: ``model`` (a fresh, untrained copy) evaluated on
    ``eval_sets`` — its ``scores`` and test ``cosines``, the unit embeddings ``emb`` of every distinct evaluated sentence (in the order
    :func:`companion.sts.score_pairs` encodes them) and ``se``, per set, the bootstrap standard error of its score
    over :data:`NOISE_RESAMPLES` resamples of the test pairs (seed 0). Kept per ``base`` under ``key`` (the copy's
    settings and the sentences), so one evaluation serves every run of an experiment. Encoding in eval mode draws
    no random numbers: a run's result does not depend on whether its reference was already kept."""
    memo = _UNTRAINED.setdefault(base, {}) if base is not None and key is not None else {}
    if key in memo:
        return memo[key]
    encode, captured = _capturing(model.encode)
    scores, cosines = evaluate_pair_sets(encode, eval_sets, return_cosines=True)
    ref = {"scores": scores, "cosines": cosines, "emb": captured["emb"],
           "se": {name: bootstrap_se(cosines[name], d.labels.numpy()) for name, d in eval_sets.items()}}
    if key is not None:
        memo[key] = ref
    return ref


def _capturing(encode: Callable[[list[str]], torch.Tensor]):
    """``encode`` that also keeps its last input and output (``captured["texts"]``, ``captured["emb"]``)."""
    captured: dict = {}

    def wrapped(texts):
        emb = encode(texts)
        captured["texts"], captured["emb"] = list(texts), emb.detach().float().cpu()
        return emb

    return wrapped, captured


def movement(reference: dict, scores: dict[str, float], emb: torch.Tensor) -> dict:
    """How far a trained run moved from its untrained copy (:func:`untrained_reference`), on the evaluated sentences:
    ``score_change``, the mean over the evaluation sets of trained − untrained Spearman x 100 (``by_set``: per set);
    ``score_noise``, 1.96 bootstrap standard errors of the untrained mean score (the sets taken as independent);
    ``drift``, the mean over the distinct evaluated sentences of 1 − cos(untrained, trained embedding)."""
    names = list(reference["scores"])
    by_set = {name: float(scores[name] - reference["scores"][name]) for name in names}
    se = [reference["se"][name] for name in names]
    a = torch.nn.functional.normalize(reference["emb"].double(), dim=-1)
    b = torch.nn.functional.normalize(emb.detach().double().cpu(), dim=-1)
    if a.shape != b.shape:
        raise ValueError(f"the trained embeddings {tuple(b.shape)} do not match the untrained ones {tuple(a.shape)}.")
    return {"score_change": float(sum(by_set.values()) / len(names)), "by_set": by_set,
            "score_noise": 1.96 * math.sqrt(sum(x * x for x in se)) / len(names),
            "drift": float((1.0 - (a * b).sum(dim=-1)).mean())}


def upper_experiment(base, train_data: PairData, eval_sets: dict[str, PairData], objective, *, seed: int,
                     steps: int, batch_size: int, lr: float, warmup_steps: int = 0, buckets: int = 1,
                     return_cosines: bool = False, progress: bool = False, desc: str = "fine-tune",
                     n_top: int | None = None, select_on: PairData | None = None, eval_every: int = 0,
                     curve_every: int = 0, return_model: bool = False, profile: str | None = None,
                     **fresh_overrides) -> dict:
    """Fine-tune a fresh copy of the top layers of ``base`` (:class:`companion.encoders.upper.UpperEncoder`, sharing its
    cached lower states) on ``train_data`` with a pair ``objective`` (:mod:`companion.losses.angle`), then score
    ``eval_sets`` (:func:`evaluate_pair_sets`).

    ``n_top`` trains that many top layers instead of ``base``'s (:func:`split_base`: the lower states of that split
    are computed once and shared, as ``base``'s are). Seeding: :func:`~companion.training.seed_everything`
    (``seed``) before the copy is made, and the data order is ``index_batches(len(train_data), batch_size, seed)``:
    at one seed every objective sees the same batches (paired comparison). ``steps = 0`` scores the untrained copy
    (the pretrained model with this pooling). ``buckets`` is passed to :meth:`UpperEncoder.embed` (length-sorted
    sub-batches, less padding). AdamW with linear warm-up/decay and gradient clipping at 1
    (:func:`companion.training.train`).

    ``select_on`` (a validation set) with ``eval_every > 0`` keeps the best checkpoint, as the authors' training
    does: Spearman x 100 on ``select_on`` every ``eval_every`` steps and at the end, the best trained checkpoint
    restored before the evaluation (the untrained start is recorded but not eligible); ``best_step`` says which.
    Default: the last step's weights. ``return_model`` also returns the trained copy (``"model"``).

    ``curve_every > 0`` records the learning curve of the claims' own metric: ``eval_sets`` scored every
    ``curve_every`` steps, as ``"curve"``: ``{step: {set: Spearman}}`` from the untrained start (step 0, the
    reference's scores) to the last step (the run's ``scores``). Nothing is selected on it (the validity checks read
    it: :func:`companion.papers.angle.experiments.score_plateau`); scoring in eval mode without gradients draws no
    random number, so the run trains exactly as without it.

    Returns ``{"scores": {set: Spearman}, "loss_first": ..., "loss_last": ..., "loss_curve": [...], "train_s": ...,
    "movement": {...}, "cosines"?}`` (losses: mean of the first / last 10 steps, and the loss at every step; empty for
    ``steps = 0``). ``movement`` records whether the run moved (:func:`movement`): its score change against the
    untrained copy (same pooling and split) with that score's bootstrap noise, and the embedding drift, both on the
    evaluated sentences — nothing is selected on them, so reading them on the test pairs leaks nothing into the
    run; :func:`companion.papers.angle.experiments.moved_validity` turns it into a ``trained`` check.

    **gpu profile.** A trained run of the gpu ``profile`` (the notebook's ``cfg.profile``, handed down; no part of
    the run's key) whose ``objective`` is one of :mod:`companion.losses.angle`'s dataclasses is named by :func:`run_key`: it checkpoints
    its training under that name (:func:`companion.training.gpu_checkpoint`), so a preempted run resumes there,
    and its result (without the model) is kept in ``<cache>/angle/runs/<key>.pt``, which a later call with the
    same settings returns instead of training (``train_s`` that of the original run; ``return_model`` trains
    again). The smoke and cpu profiles neither checkpoint nor keep runs.
    """
    if not isinstance(steps, int) or steps < 0:
        raise ValueError(f"steps must be an int >= 0, got {steps!r}.")
    if not isinstance(curve_every, int) or curve_every < 0:
        raise ValueError(f"curve_every must be an int >= 0, got {curve_every!r}.")
    base = split_base(base, n_top)
    seed_everything(seed)
    model = base.fresh(**fresh_overrides)
    out: dict = {"loss_first": float("nan"), "loss_last": float("nan"), "loss_curve": [], "train_s": 0.0}
    sentences = list(dict.fromkeys(t for d in eval_sets.values() for t in (*d.sentence1, *d.sentence2)))
    key = (cache_key({k: str(v) for k, v in sorted({**base._init_args, **fresh_overrides}.items())}),
           cache_key([list(eval_sets), sentences]))
    reference = untrained_reference(model, eval_sets, key, base)  # the copy before training (kept per base)
    if not steps:  # the untrained copy itself: its evaluation is the reference
        out["scores"] = dict(reference["scores"])
        if return_cosines:
            out["cosines"] = dict(reference["cosines"])
        out["movement"] = movement(reference, out["scores"], reference["emb"])
        return out
    name = run_key(base, train_data, eval_sets, objective, seed=seed, steps=steps, batch_size=batch_size, lr=lr,
                   warmup_steps=warmup_steps, buckets=buckets, return_cosines=return_cosines,
                   select_on=select_on, eval_every=eval_every, **({"curve_every": curve_every} if curve_every else {}),
                   **fresh_overrides) if run_profile(profile) == "gpu" else None
    kept = run_path(name) if name is not None else None
    if kept is not None and not return_model:
        saved = read_cache(kept, weights_only=False)  # missing or unreadable: trained
        if isinstance(saved, dict) and "scores" in saved:
            return saved
    t0 = time.perf_counter()
    batches = index_batches(len(train_data), batch_size=batch_size, seed=seed, epochs=None)
    step = pair_loss_fn(lambda texts: model.embed(texts, buckets=buckets), objective, train_data)
    selection: dict = {}
    calls = RunState(n=0)  # the dev evaluations so far: carried over a resume
    if select_on is not None and eval_every:

        def dev_score() -> float:  # the first call is the untrained start: recorded, never selected
            calls["n"] += 1
            score = evaluate_pair_sets(model.encode, {"dev": select_on})["dev"]
            return score if calls["n"] > 1 else float("-inf")

        selection = dict(eval_fn=dev_score, eval_every=eval_every, restore_best=True)
    resume = gpu_checkpoint(name, profile)
    if resume:
        resume["extra_state"] = calls
    logging = dict(log_fn=lambda _: {"curve": evaluate_pair_sets(model.encode, eval_sets)},
                   log_every=curve_every) if curve_every else {}
    res = train(model, step, batches, steps=steps, lr=lr, warmup_steps=warmup_steps,
                **(selection or dict(restore_best=False)), progress=progress, desc=desc, **logging, **resume)
    out["best_step"] = res.best_step if selection else steps
    history = res.history
    losses = [h["loss"] for h in history if "loss" in h]
    k = min(10, len(losses))
    out.update(loss_first=sum(losses[:k]) / k, loss_last=sum(losses[-k:]) / k, loss_curve=[float(x) for x in losses],
               train_s=time.perf_counter() - t0)
    model.eval()
    encode, captured = _capturing(model.encode)
    res = evaluate_pair_sets(encode, eval_sets, return_cosines=return_cosines)
    if return_cosines:
        out["scores"], out["cosines"] = res
    else:
        out["scores"] = res
    out["movement"] = movement(reference, out["scores"], captured["emb"])
    if curve_every:  # from the untrained start to the returned weights (the best checkpoint's, where selected)
        out["curve"] = {0: dict(reference["scores"]), **{int(h["step"]): h["curve"] for h in history
                                                         if "curve" in h}}
        if not selection:
            out["curve"][steps] = dict(out["scores"])
    if kept is not None:
        torch_save_atomic(out, kept)
    if return_model:
        out["model"] = model
    return out


#: The version of :func:`upper_experiment`'s run recipe in every :func:`run_key`: raise it when a change to the
#: training or scoring code changes what a run returns, so that runs kept before are trained again.
RUN_VERSION = 1


def pairs_digest(data: PairData) -> str:
    """A content digest of a pair set (every sentence and label, in order), computed once per object."""
    if getattr(data, "_digest", None) is None:
        data._digest = cache_key([data.sentence1, data.sentence2, [float(x) for x in data.labels]], digest_size=16)
    return data._digest


def run_key(base, train_data: PairData, eval_sets: dict[str, PairData], objective, *, seed: int, steps: int,
            batch_size: int, lr: float, warmup_steps: int = 0, buckets: int = 1, return_cosines: bool = False,
            select_on: PairData | None = None, eval_every: int = 0, n_top: int | None = None,
            curve_every: int = 0, **fresh_overrides) -> str | None:
    """The name of one :func:`upper_experiment` run (:func:`companion._io.cache_key`): the encoder's weights
    fingerprint, the top-layer copy's settings, the content of the training, evaluation and selection pairs, the
    objective and every training setting; None for an objective that is not a dataclass of
    :mod:`companion.losses.angle` (its settings cannot be read, so the run is neither checkpointed nor kept)."""
    if not dataclasses.is_dataclass(objective) or isinstance(objective, type):
        return None
    base = split_base(base, n_top)
    return cache_key({
        "version": RUN_VERSION, "encoder": getattr(base.encoder, "fingerprint", None),
        "name": getattr(base.encoder, "name", None),
        "copy": {k: str(v) for k, v in sorted({**base._init_args, **fresh_overrides}.items())},
        "objective": [type(objective).__name__, repr(objective)], "train": pairs_digest(train_data),
        "eval": {k: pairs_digest(v) for k, v in eval_sets.items()},
        "select_on": None if select_on is None else pairs_digest(select_on), "eval_every": int(eval_every or 0),
        "seed": seed, "steps": steps, "batch_size": batch_size, "lr": lr, "warmup_steps": warmup_steps,
        "buckets": buckets, "return_cosines": bool(return_cosines),
        **({"curve_every": int(curve_every)} if curve_every else {})}, digest_size=16)


def run_path(key: str):
    """Where :func:`upper_experiment` keeps a finished gpu-profile run: ``<cache>/angle/runs/<key>.pt``."""
    return cache_dir() / "angle" / "runs" / f"{key}.pt"
