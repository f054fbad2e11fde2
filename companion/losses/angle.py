r"""AnglE: Angle-optimized Text Embeddings (Li & Li; anonymous ICLR submission, public version arXiv 2309.12871).

Every objective here works on an **interleaved** batch ``X = [A1; A2; B1; B2; …]``: pair *k* is rows
``(2k, 2k+1)`` and carries one label (graded, e.g. STS-B 0–5, or binary, e.g. MRPC / NLI). See
:mod:`companion.papers.angle.pairs` for the collation.

* :func:`cosent_loss` — Eq. 1, :math:`\log[1+\sum_{s(i,j)>s(m,n)} e^{(\cos_{mn}-\cos_{ij})/\tau}]`,
  :math:`\tau = 0.05`, on ``pairwise_ranking_loss``;
* :func:`angle_loss` — Eq. 7, the same ranking form on the angle similarity
  :func:`~companion.similarities.complex_angle`, :math:`\tau = 1`, on ``pairwise_ranking_loss``;
* :func:`ibn_loss` — Eq. 2, InfoNCE over the batch with :math:`\cos/\tau`, :math:`\tau = 0.05`, positives =
  labelled positive partners + identical texts (ISP), a row's positives summed as in the authors' code
  (``positives="mean"`` averages them), on ``contrastive_nll``;
* :class:`AnglEObjective` / :func:`angle_objective` — :math:`w_1 L_{cos} + w_2 L_{ibn} + w_3 L_{angle}`
  (public code: 1, 1, 1);
* :class:`CosineRegression` — SBERT's regression objective (the baseline of AnglE Tables 2–3): the squared error
  between a pair's cosine and its label scaled to [0, 1].

The three readings of Eq. 6 (the "normalised" complex division :math:`\Delta\theta = |\frac{z}{w}\frac{1}{\gamma}|`,
:math:`\gamma = |z|/|w|`) are :func:`eq6_literal` (modulus 1 per component: constant, zero gradient),
:func:`eq6_code` (the authors' code and sentence-transformers' ``pairwise_angle_sim``:
:math:`|\cos(u,v)+\cos(u,Jv)|`) and :func:`eq6_atan2` (the true per-component angle difference). Training uses
:func:`eq6_code`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from companion._checks import check_finite, check_matrix, check_temperature
from companion.losses.core import contrastive_nll, pairwise_ranking_loss
from companion.similarities import complex_angle, cosine_matrix, row_cosine, row_scale

__all__ = [
    "split_pairs", "check_pair_batch", "complex_divide", "eq6_literal", "eq6_code", "eq6_atan2",
    "cosent_loss", "angle_loss", "ibn_loss", "ibn_targets", "IBN_POSITIVES", "angle_objective", "AnglEObjective",
    "CosineRegression",
]


# --------------------------------------------------------------------------------------------- batch layout
def check_pair_batch(embeddings: torch.Tensor, labels, min_pairs: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    """Validate an interleaved pair batch; returns ``(embeddings, labels)`` with labels as a float tensor.

    Raises ``ValueError`` for an odd number of rows, fewer than ``min_pairs`` pairs (a ranking loss over one pair
    is identically 0), or labels whose length is not the number of pairs.
    """
    check_matrix(embeddings, "embeddings")
    n = embeddings.shape[0]
    if n % 2:
        raise ValueError(f"an interleaved pair batch needs an even number of rows [A1; A2; B1; B2; ...], got {n}.")
    pairs = n // 2
    if pairs < min_pairs:
        raise ValueError(f"the batch holds {pairs} pair(s); the AnglE objectives need at least {min_pairs} pairs.")
    if not isinstance(labels, torch.Tensor):
        labels = torch.as_tensor(labels)
    labels = labels.reshape(-1) if labels.dim() > 1 and labels.numel() == labels.shape[0] else labels
    if labels.dim() != 1 or labels.shape[0] != pairs:
        raise ValueError(f"labels must have one entry per pair: got shape {tuple(labels.shape)} for {pairs} pairs "
                         f"({n} rows).")
    labels = labels.to(device=embeddings.device, dtype=torch.float64 if labels.dtype == torch.float64
                       else torch.float32)
    check_finite(labels, "labels")
    return embeddings, labels


def split_pairs(embeddings: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(u, v)`` = rows ``0, 2, 4, …`` and ``1, 3, 5, …`` of an interleaved batch."""
    if embeddings.shape[0] % 2:
        raise ValueError(f"an interleaved pair batch needs an even number of rows, got {embeddings.shape[0]}.")
    return embeddings[0::2], embeddings[1::2]


def _halves(x: torch.Tensor, name: str) -> tuple[torch.Tensor, torch.Tensor]:
    if x.shape[-1] % 2:
        raise ValueError(f"The angle objective splits {name} into real and imaginary halves; "
                         f"dimension {x.shape[-1]} is odd (pad or project explicitly; no silent padding).")
    return x.chunk(2, dim=-1)


def _pair_halves(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Validated real/imaginary halves ``(a, b, c, d)`` of two same-shape, finite tensors ``x = [a; b]``, ``y = [c; d]``."""
    check_finite(x, "x")
    check_finite(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same shape, got {tuple(x.shape)} and {tuple(y.shape)}.")
    return (*_halves(x, "x"), *_halves(y, "y"))


# --------------------------------------------------------------------------------------------- Eq. 3-6
def complex_divide(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    r"""AnglE Eq. 4–5, per complex component: :math:`z/w = [(ac+bd) + (bc-ad)i]/(c^2+d^2)`.

    ``x = [a; b]`` and ``y = [c; d]`` (first half real, second half imaginary). Returns ``(re, im)``, each
    ``(..., D)``. A zero component of ``y`` gives a division by zero (inf/nan), as in complex arithmetic.
    """
    a, b, c, d = _pair_halves(x, y)
    den = c * c + d * d
    return (a * c + b * d) / den, (b * c - a * d) / den


def eq6_literal(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    r"""AnglE Eq. 6 read literally: :math:`\frac{1}{D}\sum_k |(z_k/w_k)/\gamma_k|` with :math:`\gamma_k=|z_k|/|w_k|`.

    :math:`|z/w| = |z|/|w|`, so every component has modulus exactly 1: the value is the constant 1 and its gradient
    is 0 (up to rounding). Shown to document why the paper's formula cannot be what is trained.
    """
    re, im = complex_divide(x, y)
    a, b = _halves(x, "x")
    c, d = _halves(y, "y")
    gamma = torch.sqrt(a * a + b * b) / torch.sqrt(c * c + d * d)
    return (torch.sqrt(re * re + im * im) / gamma).mean(dim=-1)


def eq6_code(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    r"""AnglE Eq. 6 as the authors' code computes it (= sentence-transformers ``pairwise_angle_sim``), in
    :math:`[0, \sqrt 2]`; used as a similarity (higher = closer).

    .. math:: s(u,v) = |\sum_k \mathrm{Re}(u_k\bar v_k) + \sum_k \mathrm{Im}(u_k \bar v_k)| / (\|u\|\|v\|)
       = |\cos(u,v) + \cos(u, Jv)|
    """
    return complex_angle(x, y)


def eq6_atan2(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    r"""AnglE Eq. 6 as a true angle: mean over components of :math:`|\arg(z_k) - \arg(w_k)|`, wrapped to
    :math:`[0, \pi]` (via ``atan2`` of :math:`z_k \bar w_k`). A *distance* (0 = same direction in every plane).
    Away from 0 and :math:`\pi` its gradient per component has the constant magnitude :math:`1/|z_k|` (no
    saturation); at exactly 0 the absolute value is not differentiable (autograd returns the subgradient 0).
    Rows are rescaled by their largest entry first (the angle is scale invariant) so products cannot overflow."""
    a, b, c, d = _pair_halves(x, y)
    a, b = a / row_scale(x), b / row_scale(x)
    c, d = c / row_scale(y), d / row_scale(y)
    return torch.atan2(b * c - a * d, a * c + b * d).abs().mean(dim=-1)


# --------------------------------------------------------------------------------------------- ranking terms
def cosent_loss(embeddings: torch.Tensor, labels, tau: float = 0.05) -> torch.Tensor:
    r"""CoSENT / AnglE Eq. 1: :math:`\log[1 + \sum_{s(i,j) > s(m,n)} \exp((\cos(X_m,X_n) - \cos(X_i,X_j))/\tau)]`.

    ``embeddings``: interleaved ``(2P, d)``; ``labels``: ``(P,)`` (only their order matters). 0 when all labels
    are equal. Equals sentence-transformers' ``CoSENTLoss`` with ``scale = 1/tau`` (20 for the paper's 0.05).
    """
    tau = check_temperature(tau, "tau")
    embeddings, labels = check_pair_batch(embeddings, labels)
    u, v = split_pairs(embeddings)
    return pairwise_ranking_loss(row_cosine(u, v), labels, scale=1.0 / tau)  # halves of a checked batch


def angle_loss(embeddings: torch.Tensor, labels, tau: float = 1.0) -> torch.Tensor:
    r"""AnglE Eq. 7: the CoSENT ranking form on the angle similarity :func:`eq6_code`, scale :math:`1/\tau`.

    The paper's :math:`\tau = 1.0` is the default; sentence-transformers' ``AnglELoss`` uses scale 20
    (``tau = 0.05``). Raises on an odd embedding dimension.
    """
    tau = check_temperature(tau, "tau")
    embeddings, labels = check_pair_batch(embeddings, labels)
    _halves(embeddings, "embeddings")
    u, v = split_pairs(embeddings)
    return pairwise_ranking_loss(eq6_code(u, v), labels, scale=1.0 / tau)


# --------------------------------------------------------------------------------------------- in-batch negatives
def ibn_targets(labels: torch.Tensor, texts: Sequence[str] | None = None, positive_threshold: float | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
    """Positive mask ``(2P, 2P)`` and denominator mask for :func:`ibn_loss`.

    Row *i*'s partner (``i ^ 1``) is a positive when its pair is positive (label ``>= positive_threshold``; binary
    0/1 labels need no threshold). With ``texts`` (identical-sentence-pair detection, ISP) every *other* row with the
    identical text is also a positive instead of a negative. The diagonal (self-similarity) is never a positive
    and never in the denominator.
    """
    labels = labels.reshape(-1)
    if positive_threshold is None:
        if not bool(((labels == 0) | (labels == 1)).all()):
            raise ValueError("in-batch negatives need binary 0/1 labels, or positive_threshold for graded labels.")
        pair_pos = labels == 1
    else:
        pair_pos = labels >= positive_threshold
    n = 2 * labels.shape[0]
    idx = torch.arange(n, device=labels.device)
    partner = idx ^ 1
    row_pos = pair_pos.repeat_interleave(2)
    positives = torch.zeros(n, n, dtype=torch.bool, device=labels.device)
    positives[idx, partner] = row_pos
    eye = torch.eye(n, dtype=torch.bool, device=labels.device)
    if texts is not None:
        texts = list(texts)
        if len(texts) != n:
            raise ValueError(f"texts must have one entry per row: {len(texts)} texts for {n} rows.")
        ids: dict[str, int] = {}
        codes = torch.tensor([ids.setdefault(t, len(ids)) for t in texts], device=labels.device)
        same = (codes[:, None] == codes[None, :]) & ~eye
        is_partner = torch.zeros_like(eye)
        is_partner[idx, partner] = True
        # ISP: identical texts that are not a labelled pair become positives (never negatives).
        positives = positives | (same & ~is_partner)
    return positives, ~eye


#: How :func:`ibn_loss` combines the terms of a row with several positives (identical-sentence detection): ``"sum"``
#: (the authors' code) or ``"mean"`` (one term per row, averaged over its positives).
IBN_POSITIVES = ("sum", "mean")


def ibn_loss(embeddings: torch.Tensor, labels, texts: Sequence[str] | None = None, tau: float = 0.05,
             positive_threshold: float | None = None, reduction: str = "mean", positives: str = "sum"
             ) -> torch.Tensor:
    r"""AnglE Eq. 2, in-batch negatives: InfoNCE over all other rows with :math:`\cos/\tau` (:math:`\tau = 0.05`).

    .. math:: L_{ibn} = -\frac{1}{2P}\sum_i c_i \sum_{j \in P(i)}
              \log\frac{e^{\cos(X_i,X_j)/\tau}}{\sum_{k \ne i} e^{\cos(X_i,X_k)/\tau}}

    :math:`P(i)` = the labelled partner of a positive pair plus identical texts (ISP, when ``texts`` are given);
    :math:`c_i = 1` with ``positives="sum"`` (the default) and :math:`c_i = 1/|P(i)|` with ``positives="mean"``.
    Eq. 2 (AnglE §3.3) writes one positive :math:`X_{b_i}^+` per row and sums the log terms over the rows of each
    batch; it does not say how a row with several positives (a labelled partner plus an identical sentence found
    by ISP, or two identical sentences) counts them. ``positives="sum"`` (the default) follows the authors' code,
    whose categorical cross-entropy sums :math:`-\log p_{ij}` over every positive :math:`j` of the row's target
    matrix, so such a row weighs :math:`|P(i)|` times as much as a row with one positive; ``"mean"`` averages
    them, one unit of weight per row whatever its number of positives (this companion's earlier reading). The two
    agree whenever every row has at most one positive (no identical sentences in the batch, or ``texts`` not given).

    Rows with no positive (rows of negative pairs) contribute 0 and, as in the public code, still count in the mean
    over the ``2P`` rows (``reduction="mean"``); ``"none"`` returns the ``(2P,)`` per-row losses. A batch with no
    positive at all returns 0 (with a graph).
    """
    tau = check_temperature(tau, "tau")
    embeddings, labels = check_pair_batch(embeddings, labels)
    if reduction not in {"mean", "none"}:
        raise ValueError(f"reduction must be 'mean' or 'none', got {reduction!r}.")
    if positives not in IBN_POSITIVES:
        raise ValueError(f"positives must be one of {', '.join(map(repr, IBN_POSITIVES))}, got {positives!r}.")
    pos_mask, allowed = ibn_targets(labels, texts, positive_threshold)
    if not bool(pos_mask.any()):
        zero = embeddings.sum() * 0.0
        return zero if reduction == "mean" else zero.expand(embeddings.shape[0])
    logits = cosine_matrix(embeddings) / tau
    per_row = contrastive_nll(logits, pos_mask, denominator_mask=allowed, reduction="none")  # mean over P(i)
    if positives == "sum":
        per_row = per_row * pos_mask.sum(dim=1).to(per_row.dtype)
    return per_row.mean() if reduction == "mean" else per_row


# --------------------------------------------------------------------------------------------- combined
@dataclass(frozen=True)
class AnglEObjective:
    r"""AnglE's combined objective :math:`L = w_1 L_{cos} + w_2 L_{ibn} + w_3 L_{angle}` (Eq. 8, §3.4).

    The paper grid-searches the weights without reporting them; the public code uses 1, 1, 1. A weight of 0 skips
    its term entirely (no value, no gradient). ``positive_threshold`` makes graded labels binary for the
    in-batch-negative term (e.g. STS-B score >= 4); ``positives`` is :func:`ibn_loss`'s handling of a row with
    several positives (``"sum"``, the authors' code, or ``"mean"``).
    """

    w_cos: float = 1.0
    w_ibn: float = 1.0
    w_angle: float = 1.0
    tau_cos: float = 0.05
    tau_ibn: float = 0.05
    tau_angle: float = 1.0
    positive_threshold: float | None = None
    use_isp: bool = True
    positives: str = "sum"

    def __post_init__(self):
        for name in ("w_cos", "w_ibn", "w_angle"):
            w = getattr(self, name)
            if not isinstance(w, (int, float)) or isinstance(w, bool) or not (w >= 0) or w == float("inf"):
                raise ValueError(f"{name} must be a finite number >= 0, got {w!r}.")
        if self.w_cos == self.w_ibn == self.w_angle == 0:
            raise ValueError("at least one of w_cos, w_ibn, w_angle must be > 0.")
        for name in ("tau_cos", "tau_ibn", "tau_angle"):
            check_temperature(getattr(self, name), name)
        if self.positives not in IBN_POSITIVES:
            raise ValueError(f"positives must be one of {', '.join(map(repr, IBN_POSITIVES))}, got "
                             f"{self.positives!r}.")

    def parts(self, embeddings: torch.Tensor, labels, texts: Sequence[str] | None = None) -> dict[str, torch.Tensor]:
        """The weighted total and each (unweighted) active term: keys ``total``, ``cos``, ``ibn``, ``angle``."""
        embeddings, labels = check_pair_batch(embeddings, labels)
        out: dict[str, torch.Tensor] = {}
        total = embeddings.new_zeros(())
        if self.w_cos:
            out["cos"] = cosent_loss(embeddings, labels, self.tau_cos)
            total = total + self.w_cos * out["cos"]
        if self.w_ibn:
            out["ibn"] = ibn_loss(embeddings, labels, texts if self.use_isp else None, self.tau_ibn,
                                  self.positive_threshold, positives=self.positives)
            total = total + self.w_ibn * out["ibn"]
        if self.w_angle:
            out["angle"] = angle_loss(embeddings, labels, self.tau_angle)
            total = total + self.w_angle * out["angle"]
        out["total"] = total
        return out

    def __call__(self, embeddings: torch.Tensor, labels, texts: Sequence[str] | None = None) -> torch.Tensor:
        return self.parts(embeddings, labels, texts)["total"]


def angle_objective(embeddings: torch.Tensor, labels, texts: Sequence[str] | None = None, w_cos: float = 1.0,
                    w_ibn: float = 1.0, w_angle: float = 1.0, **kwargs) -> torch.Tensor:
    """Functional form of :class:`AnglEObjective` (AnglE Eq. 8, §3.4; weights default to the public code's 1, 1, 1)."""
    return AnglEObjective(w_cos, w_ibn, w_angle, **kwargs)(embeddings, labels, texts)


@dataclass(frozen=True)
class CosineRegression:
    r"""SBERT's regression objective (Reimers & Gurevych 2019; the SBERT baseline of AnglE Tables 2–3):
    :math:`\frac1P\sum_k (\cos(u_k, v_k) - y_k / y_{max})^2` on an interleaved pair batch.

    ``label_max`` scales the labels to [0, 1] (5 for STS-B, 1 for binary labels); labels outside
    ``[0, label_max]`` raise. The texts argument is accepted and ignored (the pair objectives' signature).
    """

    label_max: float = 1.0

    def __post_init__(self):
        if not (isinstance(self.label_max, (int, float)) and self.label_max > 0):
            raise ValueError(f"label_max must be > 0, got {self.label_max!r}.")

    def __call__(self, embeddings: torch.Tensor, labels, texts: Sequence[str] | None = None) -> torch.Tensor:
        embeddings, labels = check_pair_batch(embeddings, labels, min_pairs=1)
        if bool((labels < 0).any()) or bool((labels > self.label_max).any()):
            raise ValueError(f"labels must lie in [0, {self.label_max}] for the cosine regression.")
        u, v = split_pairs(embeddings)
        return ((row_cosine(u, v) - labels.to(embeddings.dtype) / self.label_max) ** 2).mean()
