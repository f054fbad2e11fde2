"""Losses: forward + backward of the companion's losses against their peers on the same tensors (CPU, float32).

Pairs (goal: companion time <= 1.0x the peer's, equal values):

=====================================  ===========================================================================
companion                              peer
=====================================  ===========================================================================
``angle.cosent_loss`` (tau = 0.05)     ``sentence_transformers`` ``CoSENTLoss`` (scale 20 = 1/tau)
``angle.angle_loss`` (tau = 0.05)      ``AnglELoss`` (scale 20; the AnglE paper's own tau is 1, the peer's 0.05)
``concepts.infonce_term`` (tau 0.05)   ``MultipleNegativesRankingLoss`` (cosine, scale 20)
``simace.simcse_loss`` (tau 0.05)      ``MultipleNegativesRankingLoss`` (same maths: SimCSE Eq. 1 = MNRL)
``weighted_infonce(supcon_weights)``   a straightforward SupCon written below in the form of Khosla et al. (2020),
                                       Eq. 2 ("L_out"), with the reference code's max-subtraction
=====================================  ===========================================================================

The peers' ``compute_loss_from_embeddings`` is called directly on the embeddings (their model is never used). Both
sides get the same leaf tensor; gradients are compared too. Values are compared in float32 (the timed setting)
and again in float64, where any difference in the maths would show above rounding.

Scaling (no peer): SINCERE, SoftCSE, CircularCSE (12 ECM labels) and SimACE at B in {64, 256, 1024}: median time,
the log-log slope of time against B between consecutive sizes (O(B^2 d) work gives a slope -> 2 once the matrix
products dominate), and the number of ATen operations one forward + backward dispatches, which is the same for
every B when the loss has no Python loop over the batch.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

from .common import ratio_entry, summary, time_side_by_side


# --------------------------------------------------------------------------------------------- reference
def supcon_reference(z: torch.Tensor, labels: torch.Tensor, tau: float) -> torch.Tensor:
    r"""SupCon as Khosla et al. (2020) write it (Eq. 2, :math:`\mathcal L^{sup}_{out}`), straightforwardly:

    .. math:: \mathcal L = \frac1{|I|}\sum_{i\in I} \frac{-1}{|P(i)|}\sum_{p\in P(i)}
       \log\frac{\exp(z_i\cdot z_p/\tau)}{\sum_{a\ne i}\exp(z_i\cdot z_a/\tau)}

    with unit-norm :math:`z`, :math:`P(i)` the other samples of anchor *i*'s class. Max-subtracted exp / log as in
    the authors' code; every anchor here has a positive."""
    z = F.normalize(z, dim=1)
    logits = z @ z.T / tau
    logits = logits - logits.max(dim=1, keepdim=True).values.detach()
    n = z.shape[0]
    not_self = 1.0 - torch.eye(n, dtype=z.dtype)
    pos = (labels[:, None] == labels[None, :]).to(z.dtype) * not_self
    exp_logits = torch.exp(logits) * not_self
    log_prob = logits - torch.log(exp_logits.sum(dim=1, keepdim=True))
    mean_log_prob_pos = (pos * log_prob).sum(dim=1) / pos.sum(dim=1)
    return -mean_log_prob_pos.mean()


# --------------------------------------------------------------------------------------------- inputs
def make_inputs(pairs: int, dim: int, seed: int = 0, dtype: torch.dtype = torch.float32) -> dict[str, torch.Tensor]:
    """Seeded inputs shared by every comparison: an interleaved pair batch ``X`` (2P x d; pair k = rows 2k, 2k+1,
    partners correlated like real paraphrases), graded labels (0-5 in steps of 0.2, so with ties) and class ids
    (32 classes over the 2P rows, every class at least twice)."""
    gen = torch.Generator().manual_seed(seed)
    u = torch.randn(pairs, dim, generator=gen, dtype=dtype)
    v = u + 3.0 * torch.randn(pairs, dim, generator=gen, dtype=dtype)
    X = torch.stack([u, v], dim=1).reshape(2 * pairs, dim)
    graded = torch.randint(0, 26, (pairs,), generator=gen).to(dtype) / 5.0
    n_cls = max(2, min(32, pairs))
    classes = torch.arange(2 * pairs) % n_cls
    classes = classes[torch.randperm(2 * pairs, generator=gen)]
    return {"X": X, "graded": graded, "classes": classes}


def _peers(scale: float):
    from sentence_transformers.sentence_transformer.losses import (
        AnglELoss,
        CoSENTLoss,
        MultipleNegativesRankingLoss,
    )

    dummy = torch.nn.Identity()  # the peers only store their model; compute_loss_from_embeddings never calls it
    return {"CoSENT": CoSENTLoss(dummy, scale=scale), "AnglE": AnglELoss(dummy, scale=scale),
            "MNRL": MultipleNegativesRankingLoss(dummy, scale=scale)}


def loss_pairs(tau: float = 0.05) -> dict[str, tuple[Any, Any, str]]:
    """name -> (ours(X, graded, classes), peer(X, graded, classes), description). ``X`` is the leaf tensor."""
    from companion.losses.angle import angle_loss, cosent_loss
    from companion.losses.concepts import infonce_term
    from companion.losses.simace import simcse_loss
    from companion.losses.weighted import cosine_similarities, supcon_weights, weighted_infonce

    peers = _peers(1.0 / tau)
    return {
        "CoSENT": (lambda X, y, c: cosent_loss(X, y, tau=tau),
                   lambda X, y, c: peers["CoSENT"].compute_loss_from_embeddings([X[0::2], X[1::2]], y),
                   f"angle.cosent_loss(tau={tau}) vs CoSENTLoss(scale={1 / tau:g})"),
        "AnglE angle": (lambda X, y, c: angle_loss(X, y, tau=tau),
                        lambda X, y, c: peers["AnglE"].compute_loss_from_embeddings([X[0::2], X[1::2]], y),
                        f"angle.angle_loss(tau={tau}) vs AnglELoss(scale={1 / tau:g})"),
        "InfoNCE": (lambda X, y, c: infonce_term(X[0::2], X[1::2], temperature=tau),
                    lambda X, y, c: peers["MNRL"].compute_loss_from_embeddings([X[0::2], X[1::2]], None),
                    f"concepts.infonce_term(tau={tau}) vs MultipleNegativesRankingLoss(scale={1 / tau:g})"),
        "SimCSE": (lambda X, y, c: simcse_loss(X[0::2], X[1::2], tau=tau),
                   lambda X, y, c: peers["MNRL"].compute_loss_from_embeddings([X[0::2], X[1::2]], None),
                   f"simace.simcse_loss(tau={tau}) vs MultipleNegativesRankingLoss(scale={1 / tau:g})"),
        "SupCon": (lambda X, y, c: weighted_infonce(supcon_weights(c, dtype=X.dtype), cosine_similarities(X, tau)),
                   lambda X, y, c: supcon_reference(X, c, tau),
                   f"weighted_infonce(supcon_weights, cos/{tau}) vs Khosla-form reference in this file"),
    }


def _value_and_grad(fn, X, y, c) -> tuple[float, torch.Tensor]:
    leaf = X.detach().clone().requires_grad_(True)
    loss = fn(leaf, y, c)
    loss.backward()
    return float(loss.detach()), leaf.grad.detach().clone()


def _step(fn, leaf, y, c):
    def run():
        leaf.grad = None
        fn(leaf, y, c).backward()
    return run


def compare(pairs: int = 256, dim: int = 384, repeats: int = 30, warmup: int = 5, seed: int = 0) -> dict[str, Any]:
    """Timing (interleaved, forward + backward) and value/gradient agreement of every companion/peer pair."""
    inp = make_inputs(pairs, dim, seed)
    inp64 = {k: (v.double() if v.is_floating_point() else v) for k, v in inp.items()}
    out: dict[str, Any] = {}
    for name, (ours, peer, what) in loss_pairs().items():
        X, y, c = inp["X"], inp["graded"], inp["classes"]
        v_o, g_o = _value_and_grad(ours, X, y, c)
        v_p, g_p = _value_and_grad(peer, X, y, c)
        v_o64, g_o64 = _value_and_grad(ours, inp64["X"], inp64["graded"], c)
        v_p64, g_p64 = _value_and_grad(peer, inp64["X"], inp64["graded"], c)
        leaf = X.detach().clone().requires_grad_(True)
        ops = {}
        for side, fn in (("ours", ours), ("peer", peer)):
            counter = _OpCounter()
            with counter:
                _step(fn, leaf, y, c)()
            ops[side] = counter.count
        times = time_side_by_side({"ours": _step(ours, leaf, y, c), "peer": _step(peer, leaf, y, c)},
                                  repeats=repeats, warmup=warmup)
        entry = ratio_entry(times["ours"], times["peer"], 1.0, "<= 1.0x peer; values equal to 1e-6 (relative)")
        abs32 = abs(v_o - v_p)
        rel32 = abs32 / max(1.0, abs(v_p))
        entry.update({
            "what": what, "inputs": f"X {2 * pairs}x{dim} float32 (B = {pairs} pairs), seed {seed}",
            "value_ours": v_o, "value_peer": v_p, "abs_diff_float32": abs32, "rel_diff_float32": rel32,
            "abs_diff_float64": abs(v_o64 - v_p64),
            "grad_max_abs_diff_float32": float((g_o - g_p).abs().max()),
            "grad_max_abs_diff_float64": float((g_o64 - g_p64).abs().max()),
            "grad_max_abs": float(g_p.abs().max()),
            "aten_ops_ours": ops["ours"], "aten_ops_peer": ops["peer"],
        })
        entry["values_equal"] = bool(rel32 <= 1e-6 and entry["abs_diff_float64"] <= 1e-9)
        entry["met"] = bool(entry["met"] and entry["values_equal"])
        out[name] = entry
    return out


# --------------------------------------------------------------------------------------------- scaling
class _OpCounter(TorchDispatchMode):
    """Counts ATen operations dispatched (forward and backward)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


def scaling_losses(tau: float = 0.05) -> dict[str, Any]:
    """name -> fn(X (B x d leaf), ids (B,) class ids in 0..11) for the scaling table."""
    from companion.losses.circumplex import circular_cse_loss, sincere_loss, softcse_loss
    from companion.losses.simace import simace_loss

    return {
        "SINCERE": lambda X, ids: sincere_loss(X, ids, tau=tau),
        "SoftCSE": lambda X, ids: softcse_loss(X, ids, tau=tau),
        "CircularCSE": lambda X, ids: circular_cse_loss(X, ids),
        # SimACE: B sentences, two dropout views = the two halves of X
        "SimACE": lambda X, ids: simace_loss(X[0::2], X[1::2], tau=tau, margin_deg=10.0),
    }


def scaling(sizes=(64, 256, 1024), dim: int = 384, repeats: int = 20, warmup: int = 3, seed: int = 0
            ) -> dict[str, Any]:
    """Median forward + backward time per loss and batch size, log-log slopes, ATen ops per call.

    For SINCERE / SoftCSE / CircularCSE, B is the number of embeddings (12 ECM classes, balanced); for SimACE B is
    the number of sentences (two views each, so X has 2B rows)."""
    out: dict[str, Any] = {}
    for name, fn in scaling_losses().items():
        rows: dict[str, Any] = {}
        for B in sizes:
            gen = torch.Generator().manual_seed(seed)
            n = 2 * B if name == "SimACE" else B
            X = torch.randn(n, dim, generator=gen)
            ids = torch.arange(n) % min(12, n // 2)  # every class at least twice
            leaf = X.clone().requires_grad_(True)

            def run(fn=fn, leaf=leaf, ids=ids):
                leaf.grad = None
                fn(leaf, ids).backward()

            counter = _OpCounter()
            with counter:
                run()
            t = time_side_by_side({"t": run}, repeats=repeats, warmup=warmup)["t"]
            rows[str(B)] = {**summary(t), "aten_ops": counter.count}
        keys = [str(B) for B in sizes]
        slopes = {f"{a}->{b}": round(math.log(rows[b]["median_s"] / rows[a]["median_s"]) / math.log(int(b) / int(a)), 3)
                  for a, b in zip(keys, keys[1:])}
        ops = {rows[k]["aten_ops"] for k in keys}
        out[name] = {"sizes": rows, "loglog_slope": slopes, "same_ops_for_every_B": len(ops) == 1,
                     "inputs": f"{'2B (two views)' if name == 'SimACE' else 'B'} x {dim} float32, 12 classes, seed {seed}"}
    return out


def run(quick: bool = False, repeats: int | None = None) -> dict[str, Any]:
    """The whole losses section. ``quick``: tiny tensors and 3 repeats (checks the code paths, not timings)."""
    threads = torch.get_num_threads()
    if quick:
        comp = compare(pairs=16, dim=32, repeats=repeats or 3, warmup=1)
        scal = scaling(sizes=(8, 16), dim=32, repeats=repeats or 3, warmup=1)
    else:
        comp = compare(repeats=repeats or 30)
        scal = scaling(repeats=repeats or 20)
    return {"comparisons": comp, "scaling": scal, "torch_threads": threads}
