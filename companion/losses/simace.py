r"""SimCSE, ArcCon and SimACE: three unsupervised in-batch contrastive losses that differ ONLY in their logits.

Paper: Jeong, Han & Chae, "A Simple Angle-based Approach for Contrastive Learning of Unsupervised Sentence
Representation" (SimACE), Findings of EMNLP 2024, pp. 5553-5572 (aclanthology 2024.findings-emnlp.318; reviewed
as an anonymous ACL submission, no code released).

Given two dropout views ``z1 = f(x)``, ``z2 = f'(x)`` of a batch of ``N`` sentences, anchor ``i`` has one positive
(``i'``, the diagonal) and ``N - 1`` in-batch negatives ``j'``. Every loss below builds an ``N x N`` logit matrix and
calls the shared core :func:`companion.losses.core.contrastive_nll` with the identity as positives (denominator =
all ``N`` candidates, positive included):

=========  =======================================================  ===============================================
loss       positive logit (diagonal)                                 negative logit (off-diagonal)
=========  =======================================================  ===============================================
SimCSE     :math:`\cos(z_i, z'_i)/\tau`                              :math:`\cos(z_i, z'_j)/\tau`   (SimACE Eq. 1)
ArcCon     :math:`\cos(\phi_{ii'} + m)/\tau`                         :math:`\cos\phi_{ij'}/\tau`  (ArcCSE, Zhang et
                                                                                                 al. ACL 2022)
SimACE     :math:`(\theta_{ii'} - m)/\tau`                           :math:`\theta_{ij'}/\tau`    (SimACE Eq. 9)
=========  =======================================================  ===============================================

with :math:`\phi = \arccos\cos` the angle between two vectors and :math:`\theta = \pi/2 - \phi = \arcsin\cos`
(SimACE Eq. 7, :func:`companion.similarities.cos_to_angle`, range :math:`[-\pi/2, \pi/2]`). With ``m = 0`` SimACE
is Eq. 8 (InfoNCE on angles). Margins are in DEGREES: the paper's text says "m = 10 (radians)" but its Table 7 says
degrees, and only degrees make sense (10 rad = 573 deg wraps around the circle; with angles confined to
:math:`[-\pi/2, \pi/2]` a 10-rad margin would make every positive logit lower than every negative one).

§3's gradient argument (Eq. 2-6): with :math:`k_{ij}` the logits and :math:`\lambda_{ij}` their row softmax,
:math:`\partial \ell_i/\partial k_{ij} = \lambda_{ij} - \delta_{ij}` (:func:`softmax_gradient`); the chain rule then
multiplies by :math:`\partial k/\partial z`: for the cosine :math:`\|\partial\cos/\partial z\| = \sin\phi/\|z\|`
vanishes at small and large angles, for the angle :math:`\|\partial\theta/\partial z\| = 1/\|z\|` does not
(:func:`similarity_derivative`, :func:`pair_forces`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch

from .._atomic import torch_save_atomic
from .._checks import check_matrix, check_temperature
from ..similarities import ANGLE_EPS, clamp_cos, cos_to_angle, cosine_matrix
from .core import contrastive_nll

OBJECTIVES = ("simcse", "arccon", "simace")
DEFAULT_TAU = {"simcse": 0.05, "arccon": 0.05, "simace": 0.05}
DEFAULT_MARGIN_DEG = {"simcse": 0.0, "arccon": 10.0, "simace": 10.0}


def check_margin(margin_deg: float) -> float:
    """A margin in degrees strictly inside (-90, 90); returns it in radians."""
    if isinstance(margin_deg, torch.Tensor):
        margin_deg = float(margin_deg)
    if (not isinstance(margin_deg, (int, float)) or isinstance(margin_deg, bool) or not math.isfinite(margin_deg)
            or not -90.0 < margin_deg < 90.0):
        raise ValueError(f"margin must be in degrees strictly inside (-90, 90), got {margin_deg!r} "
                         "(the paper's m = 10 means 10 degrees).")
    return math.radians(margin_deg)


def _check_views(z1: torch.Tensor, z2: torch.Tensor) -> None:
    check_matrix(z1, "z1 (first view)")
    check_matrix(z2, "z2 (second view)")
    if z1.shape != z2.shape:
        raise ValueError(f"the two views must have the same shape, got {tuple(z1.shape)} and {tuple(z2.shape)}.")
    if z1.shape[0] < 2:
        raise ValueError("a batch of one sentence has no in-batch negatives; the contrastive loss needs >= 2.")


def contrastive_logits(z1: torch.Tensor, z2: torch.Tensor, objective: str = "simace", tau: float = 0.05,
                       margin_deg: float | None = None, eps: float = ANGLE_EPS) -> torch.Tensor:
    r"""The ``N x N`` logit matrix :math:`k_{ij}` of SimCSE (Eq. 1), ArcCon or SimACE (Eq. 9), already divided by τ.

    ``margin_deg`` defaults to 0 for SimCSE (which has none; a non-zero value raises) and 10° for ArcCon/SimACE.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"Unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}.")
    tau = check_temperature(tau)
    _check_views(z1, z2)
    margin_deg = DEFAULT_MARGIN_DEG[objective] if margin_deg is None else margin_deg
    m = check_margin(margin_deg)
    cos = cosine_matrix(z1, z2)
    eye = torch.eye(cos.shape[0], dtype=torch.bool, device=cos.device)
    if objective == "simcse":
        if m != 0.0:
            raise ValueError("SimCSE has no margin; use margin_deg=0 (or ArcCon/SimACE for a margin).")
        return cos / tau
    if objective == "arccon":
        phi = torch.arccos(clamp_cos(cos, eps))
        return torch.where(eye, torch.cos(phi + m), cos) / tau
    theta = cos_to_angle(cos, eps)
    return torch.where(eye, theta - m, theta) / tau


def contrastive_loss(z1: torch.Tensor, z2: torch.Tensor, objective: str = "simace", tau: float = 0.05,
                     margin_deg: float | None = None, reduction: str = "mean") -> torch.Tensor:
    """In-batch dropout-view loss of ``objective`` (see module table) through the shared core ``contrastive_nll``."""
    logits = contrastive_logits(z1, z2, objective, tau, margin_deg)
    positives = torch.eye(logits.shape[0], dtype=torch.bool, device=logits.device)
    return contrastive_nll(logits, positives, reduction=reduction)


def simcse_loss(z1: torch.Tensor, z2: torch.Tensor, tau: float = 0.05, reduction: str = "mean") -> torch.Tensor:
    r"""Unsupervised SimCSE (Gao et al. 2021; SimACE Eq. 1):
    :math:`\ell_i = -\log \frac{e^{\cos(z_i, z'_i)/\tau}}{\sum_j e^{\cos(z_i, z'_j)/\tau}}` (positive in the
    denominator)."""
    return contrastive_loss(z1, z2, "simcse", tau, 0.0, reduction)


def arccon_loss(z1: torch.Tensor, z2: torch.Tensor, tau: float = 0.05, margin_deg: float = 10.0,
                reduction: str = "mean") -> torch.Tensor:
    r"""ArcCon, the additive-angular-margin loss of ArcCSE (Zhang et al., ACL 2022; SimACE §4 baseline):
    :math:`-\log\frac{e^{\cos(\phi_{ii'}+m)/\tau}}{e^{\cos(\phi_{ii'}+m)/\tau}+\sum_{j\ne i}e^{\cos\phi_{ij'}/\tau}}`,
    an additive angular margin on the positive (``m`` in degrees)."""
    return contrastive_loss(z1, z2, "arccon", tau, margin_deg, reduction)


def simace_loss(z1: torch.Tensor, z2: torch.Tensor, tau: float = 0.05, margin_deg: float = 10.0,
                reduction: str = "mean") -> torch.Tensor:
    r"""SimACE (Eq. 9): :math:`-\log\frac{e^{(\theta_{ii'}-m)/\tau}}{e^{(\theta_{ii'}-m)/\tau}+\sum_{j\ne i}
    e^{\theta_{ij'}/\tau}}` with :math:`\theta = \pi/2 - \arccos\cos` (Eq. 7) and ``m`` in degrees (Table 7:
    10°). ``margin_deg = 0`` gives Eq. 8."""
    return contrastive_loss(z1, z2, "simace", tau, margin_deg, reduction)


# ------------------------------------------------------------------------------------------- §3: gradients
def softmax_gradient(logits: torch.Tensor) -> torch.Tensor:
    r"""SimACE Eq. 2-5: :math:`\partial\ell_i/\partial k_{ij} = \lambda_{ij} - \delta_{ij}` for
    :math:`\ell_i = -\log\mathrm{softmax}_j(k_{ij})|_{j=i}`, with :math:`\lambda` the row softmax of the ``N x N``
    logits (positives on the diagonal). Each row sums to 0: the pull on the positive equals the total push."""
    if logits.dim() != 2 or logits.shape[0] != logits.shape[1]:
        raise ValueError(f"logits must be a square N x N matrix (positives on the diagonal), got {tuple(logits.shape)}.")
    if logits.shape[0] < 2:
        raise ValueError("a batch of one sentence has no in-batch negatives; the contrastive loss needs >= 2.")
    lam = torch.softmax(logits, dim=1)
    return lam - torch.eye(logits.shape[0], dtype=logits.dtype, device=logits.device)


def similarity_derivative(phi: torch.Tensor, kind: str = "cosine", wrt: str = "angle") -> torch.Tensor:
    r"""Derivative of a similarity at angle ``phi`` (radians; Fig. 1b).

    ``wrt="angle"`` (what moves when a vector rotates): :math:`d\cos\phi/d\phi = -\sin\phi` and
    :math:`d\theta/d\phi = -1` (:math:`\theta = \pi/2 - \phi`). ``wrt="cosine"`` (Eq. 6, the chain-rule factor):
    :math:`d\cos/d\cos = 1` and :math:`d\theta/dx = -d\arccos(x)/dx = 1/\sqrt{1-x^2} = 1/\sin\phi`.
    """
    if kind not in ("cosine", "angle"):
        raise ValueError(f"kind must be 'cosine' or 'angle', got {kind!r}.")
    if wrt not in ("angle", "cosine"):
        raise ValueError(f"wrt must be 'angle' or 'cosine', got {wrt!r}.")
    phi = torch.as_tensor(phi, dtype=torch.float64)
    if wrt == "angle":
        return -torch.sin(phi) if kind == "cosine" else -torch.ones_like(phi)
    return torch.ones_like(phi) if kind == "cosine" else 1.0 / torch.sin(phi)


def pair_forces(phi_pos: torch.Tensor, phi_neg: torch.Tensor, objective: str, tau: float,
                margin_deg: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Angular forces on one positive and its negatives for a single anchor (§3, Eq. 2-6).

    For an anchor with positive at angle ``phi_pos`` (scalar, radians) and negatives at angles ``phi_neg`` (``K``),
    returns ``(pull, push)``: :math:`|\partial\ell/\partial\phi_{ii'}|` and
    :math:`|\partial\ell/\partial\phi_{ij'}|` per negative — the angular speed with which gradient descent closes the
    positive angle and opens each negative angle. Computed by autograd through :func:`contrastive_logits`'s formulas
    (``cosine`` = SimCSE, ``arccon``, ``angle`` = SimACE)."""
    tau = check_temperature(tau)
    m = check_margin(margin_deg)
    phi_pos = torch.as_tensor(phi_pos, dtype=torch.float64).reshape(()).clone().requires_grad_(True)
    phi_neg = torch.as_tensor(phi_neg, dtype=torch.float64).reshape(-1).clone().requires_grad_(True)
    if objective in ("cosine", "simcse"):
        pos, neg = torch.cos(phi_pos) / tau, torch.cos(phi_neg) / tau
    elif objective == "arccon":
        pos, neg = torch.cos(phi_pos + m) / tau, torch.cos(phi_neg) / tau
    elif objective in ("angle", "simace"):
        pos, neg = (math.pi / 2 - phi_pos - m) / tau, (math.pi / 2 - phi_neg) / tau
    else:
        raise ValueError(f"objective must be simcse/cosine, arccon or simace/angle, got {objective!r}.")
    logits = torch.cat([pos.reshape(1), neg])
    loss = -torch.log_softmax(logits, dim=0)[0]
    g_pos, g_neg = torch.autograd.grad(loss, [phi_pos, phi_neg])
    return g_pos.abs().detach(), g_neg.abs().detach()


def closed_form_orthogonal(n: int, tau: float) -> float:
    r"""SimACE loss when every positive is identical (:math:`\theta_{ii'} = \pi/2`), every negative orthogonal
    (:math:`\theta_{ij'} = 0`) and ``m = 0``: :math:`L = \log(1 + (N-1)e^{-\pi/(2\tau)})`."""
    tau = check_temperature(tau)
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an int >= 2 (in-batch negatives), got {n!r}.")
    return math.log1p((n - 1) * math.exp(-math.pi / (2 * tau)))


# ------------------------------------------------------------------------------------------- training glue
def dropout_view_loss(embed: Callable[[Sequence[str]], torch.Tensor], texts: Sequence[str], objective: str,
                      tau: float, margin_deg: float | None = None) -> Callable[[torch.Tensor], torch.Tensor]:
    """A ``loss_fn(index_batch)`` for :func:`companion.training.train`: embeds the batch twice (two dropout views
    from ``embed`` in training mode, SimCSE's augmentation) and returns the objective's loss."""
    if objective not in OBJECTIVES:
        raise ValueError(f"Unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}.")
    check_temperature(tau)
    margin_deg = DEFAULT_MARGIN_DEG[objective] if margin_deg is None else margin_deg
    check_margin(margin_deg)
    texts = list(texts)

    def loss_fn(idx: torch.Tensor) -> torch.Tensor:
        batch = [texts[int(i)] for i in idx]
        z1 = embed(batch)
        z2 = embed(batch)
        return contrastive_loss(z1, z2, objective, tau, margin_deg)

    return loss_fn


def train_dropout_views(model: torch.nn.Module, embed: Callable[[Sequence[str]], torch.Tensor], texts: Sequence[str],
                        objective: str, tau: float, margin_deg: float | None, steps: int, batch_size: int,
                        lr: float, seed: int, **train_kwargs):
    """One unsupervised run (SimCSE-style dropout views) with :func:`companion.training.train`.

    The data order comes from ``index_batches(len(texts), batch_size, seed)``, so every objective sees the SAME
    batches for a given seed (paired comparisons). Seed the RNG (``seed_everything(seed)``) before building
    ``model`` so that initialisation and dropout masks are reproducible too. Extra keyword arguments go to ``train``
    (``log_fn``, ``log_every``, ``eval_fn`` ...). Returns the :class:`~companion.training.TrainResult`."""
    from ..training import index_batches, train

    loss_fn = dropout_view_loss(embed, texts, objective, tau, margin_deg)
    batches = index_batches(len(texts), batch_size, seed=seed, epochs=None)
    desc = train_kwargs.pop("desc", f"{objective} seed {seed}")
    return train(model, loss_fn, batches, steps, lr, desc=desc, **train_kwargs)


def view_geometry(embed: Callable[[Sequence[str]], torch.Tensor], model: torch.nn.Module, probe: Sequence[str]
                  ) -> dict[str, float]:
    """Angles of the training signal on a fixed probe batch (SimACE Fig. 4/7): two dropout views in TRAINING mode,
    mean positive angle (view 1 vs view 2 of the same sentence) and mean negative angle (different sentences),
    in degrees. Restores the previous mode; no gradients."""
    from ..metrics.geometry import mean_negative_angle, mean_positive_angle

    was = model.training
    model.train()
    try:
        with torch.no_grad():
            z1, z2 = embed(list(probe)), embed(list(probe))
    finally:
        model.train(was)
    return {"pos_angle": mean_positive_angle(z1, z2), "neg_angle": mean_negative_angle(z1, z2)}


# ------------------------------------------------------------------------------------------- experiment runs
class DevMonitor:
    r"""``eval_fn`` for :func:`companion.training.train` in the SimACE experiments (Table 7's model selection and
    the §5 curves), on the STS-B dev set.

    Each call (the model is in eval mode) encodes the distinct dev sentences ONCE and records

    * ``dev``: Spearman x 100 of cosine scores (the selection score: "evaluate on STS-B dev every 125 steps, keep
      the best checkpoint", Table 7);
    * ``align``: :math:`\ell_{align} = E\|f(x) - f(x^+)\|^2` over dev pairs with gold > 4 (Wang & Isola; SimACE
      Eq. 10, Figs. 3, 6, 9), and ``uniform``: :math:`\ell_{uniform} = \log E e^{-2\|f(x) - f(y)\|^2}` over the
      distinct dev sentences (Eq. 11 without the extra log its figures do not use);
    * with a ``probe`` batch of training sentences: ``pos_angle``/``neg_angle`` of two TRAINING-mode dropout views
      (:func:`view_geometry`, Figs. 4, 7). This draws dropout masks, so a monitored run's dropout stream differs
      from an unmonitored one; monitor every run of a comparison the same way.

    ``eligible_from`` calls are recorded but not eligible for selection before it (``train`` evaluates at step 0;
    the paper selects among fine-tuned checkpoints): their returned score is ``-inf``.
    """

    def __init__(self, model: torch.nn.Module, sentence1: Sequence[str], sentence2: Sequence[str], gold,
                 probe: Sequence[str] | None = None, eligible_from: int = 1, positive_threshold: float = 4.0):
        import numpy as np

        gold = np.asarray(gold, dtype=np.float64)
        if not (len(sentence1) == len(sentence2) == len(gold)):
            raise ValueError(f"sentence1, sentence2 and gold differ in length: {len(sentence1)}, {len(sentence2)}, "
                             f"{len(gold)}.")
        if len(gold) < 2:
            raise ValueError("the dev set needs at least 2 pairs (a Spearman correlation).")
        if not np.isfinite(gold).all():
            raise ValueError("gold scores contain NaN or Inf.")
        self.model = model
        self.s1, self.s2, self.gold = list(sentence1), list(sentence2), gold
        self.unique = list(dict.fromkeys(self.s1 + self.s2))
        index = {t: i for i, t in enumerate(self.unique)}
        self.i1 = torch.tensor([index[t] for t in self.s1])
        self.i2 = torch.tensor([index[t] for t in self.s2])
        self.pos = torch.from_numpy(gold > positive_threshold)
        if int(self.pos.sum()) < 1:
            raise ValueError(f"no dev pair has gold > {positive_threshold}: l_align is undefined.")
        self.probe = list(probe) if probe is not None else None
        self.eligible_from = int(eligible_from)
        self.records: list[dict[str, float]] = []
        self.seconds = 0.0

    def measure(self) -> dict[str, float]:
        """The record for the model's current weights (no side effect on :attr:`records`)."""
        from ..metrics.geometry import alignment, uniformity
        from ..sts import cosine_scores, spearman100

        emb = self.model.encode(self.unique)
        a, b = emb[self.i1], emb[self.i2]
        rec = {"dev": spearman100(cosine_scores(a, b), self.gold), "align": alignment(a[self.pos], b[self.pos]),
               "uniform": uniformity(emb)}
        if self.probe is not None:
            rec.update(view_geometry(self.model.embed, self.model, self.probe))
        return rec

    def __call__(self) -> float:
        import time

        start = time.perf_counter()
        rec = self.measure()
        self.records.append(rec)
        self.seconds += time.perf_counter() - start
        return rec["dev"] if len(self.records) > self.eligible_from else float("-inf")


def run_key(**settings) -> str:
    """A short stable hash of a run's settings (JSON with sorted keys): the file name of its cached weights."""
    import hashlib
    import json

    spec = json.dumps(settings, sort_keys=True, default=str)
    return hashlib.blake2b(spec.encode(), digest_size=10).hexdigest()


def run_dropout_views(base, texts: Sequence[str], objective: str, tau: float, margin_deg: float | None,
                      steps: int, batch_size: int, lr: float, seed: int, dev: tuple | None = None,
                      eval_every: int = 0, probe: Sequence[str] | None = None, cache: str | None = None,
                      reuse: bool = True, score_fn: Callable | None = None, score_key: str | None = None,
                      **train_kwargs) -> dict:
    """One SimACE-paper run on an :class:`~companion.upper.UpperEncoder` ``base`` (its cached lower states are
    shared, its weights never touched): seed, ``base.fresh()``, :func:`train_dropout_views`, optional STS-B dev
    monitoring every ``eval_every`` steps with best-checkpoint selection among steps >= ``eval_every``
    (:class:`DevMonitor`; ``dev = (sentence1, sentence2, gold)``).

    With ``cache`` (a folder), the trained weights and the history are saved as ``<cache>/<run_key>.pt``, the key
    hashing every setting, the encoder's weights fingerprint and the training texts; with ``reuse`` an existing
    file is loaded instead of training (``from_cache`` is then True and the recorded times are those of the
    original run). ``score_fn(model) -> dict`` (e.g. the 7-set STS evaluation) scores the returned model; its
    result is cached with the weights under ``score_key`` (a string naming the evaluation) and recomputed on reload
    when the key differs. Returns ``{"model", "history", "monitor", "best_step", "train_s", "monitor_s", "scores",
    "score_s", "from_cache", "key"}`` (``history``: one row per step with ``loss``; ``monitor``: one row per
    evaluation with ``step``; ``scores``: ``score_fn``'s result or None).
    """
    import time
    from pathlib import Path

    from ..training import seed_everything

    if objective not in OBJECTIVES:
        raise ValueError(f"Unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}.")
    tau = check_temperature(tau)
    margin_deg = DEFAULT_MARGIN_DEG[objective] if margin_deg is None else margin_deg
    check_margin(margin_deg)
    if eval_every and dev is None:
        raise ValueError("eval_every > 0 needs a dev set (sentence1, sentence2, gold).")
    texts = list(texts)
    text_hash = run_key(texts=texts)
    key = run_key(encoder=getattr(base.encoder, "fingerprint", None), name=getattr(base.encoder, "name", None),
                  upper={k: str(v) for k, v in base._init_args.items()}, objective=objective, tau=tau,
                  margin_deg=float(margin_deg), steps=steps, batch_size=batch_size, lr=lr, seed=seed,
                  eval_every=eval_every, dev=None if dev is None else run_key(dev=[list(dev[0]), list(dev[1]),
                                                                               [float(g) for g in dev[2]]]),
                  probe=None if probe is None else run_key(probe=list(probe)), texts=text_hash,
                  train={k: str(v) for k, v in sorted(train_kwargs.items()) if k != "progress"})
    path = Path(cache) / f"{key}.pt" if cache else None
    seed_everything(seed)
    model = base.fresh()
    saved = None
    if path is not None and reuse and path.exists():
        try:
            saved = torch.load(path, map_location="cpu", weights_only=False)
        except Exception:  # noqa: BLE001 - an unreadable cache file (e.g. from a killed run) is retrained
            saved = None
    if saved is not None:
        model.load_state_dict(saved["state"])
        model.eval()
        meta = saved["meta"]
        if score_fn is not None and (meta.get("scores") is None or meta.get("score_key") != score_key):
            start = time.perf_counter()
            meta = {**meta, "scores": score_fn(model), "score_key": score_key,
                    "score_s": time.perf_counter() - start}
        return {**meta, "model": model, "from_cache": True, "key": key}
    monitor = DevMonitor(model, *dev, probe=probe, eligible_from=1) if eval_every else None
    result = train_dropout_views(model, model.embed, texts, objective, tau, margin_deg, steps, batch_size, lr, seed,
                                 eval_fn=monitor, eval_every=eval_every, **train_kwargs)
    history = [{"step": h["step"], "loss": h["loss"], "lr": h["lr"]} for h in result.history if "loss" in h]
    records = []
    if monitor is not None:
        eval_steps = [h["step"] for h in result.history if "eval" in h]
        records = [{"step": s, **r} for s, r in zip(eval_steps, monitor.records)]
    meta = {"history": history, "monitor": records, "best_step": result.best_step if monitor else steps,
            "train_s": result.wall_time_s - (monitor.seconds if monitor else 0.0),
            "monitor_s": monitor.seconds if monitor else 0.0, "scores": None, "score_key": score_key, "score_s": 0.0}
    if score_fn is not None:
        model.eval()
        start = time.perf_counter()
        meta["scores"] = score_fn(model)
        meta["score_s"] = time.perf_counter() - start
    if path is not None:
        torch_save_atomic({"state": model.state_dict(), "meta": meta}, path)
    return {**meta, "model": model, "from_cache": False, "key": key}
