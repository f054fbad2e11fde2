r"""A synthetic contrastive toy for Theorem D.5 (capacity reorganisation, App. D.6) of the concept paper (Mohr,
Dujany, Souquet & Freitas, arXiv 2606.06994): contrastive training lowers anisotropy in a fixed dimension d.

``n`` concepts have latent vectors :math:`x_c \in \mathbb{R}^m`; each training pair is two noisy views of one
concept. The encoder is linear plus a large shared bias (so its first outputs are highly anisotropic), trained with
the in-batch InfoNCE term of the concept objective (Adam). The geometry of the unit embeddings of the ``n``
concepts is tracked under both of the paper's definitions: App. H's (mean cosine of random pairs; exp entropy of
the normalised singular values) and Theorem D.5's (variance share of the leading singular direction; participation
ratio).
"""

from __future__ import annotations

import pandas as pd
import torch

from companion.losses.concepts import infonce_term
from companion.metrics.geometry import anisotropy, effective_rank, participation_ratio

__all__ = ["capacity_toy_trace", "toy_endpoints"]


def capacity_toy_trace(seed: int, *, n: int, m: int, d: int, steps: int, batch: int, temperature: float = 0.05,
                       noise: float = 0.3, bias_scale: float = 3.0, lr: float = 1e-2, n_records: int = 20
                       ) -> list[dict]:
    """Train the toy encoder ``m -> d`` on ``n`` concepts for ``steps`` Adam steps of ``batch`` pairs (views with
    Gaussian ``noise``; the shared bias is drawn with scale ``bias_scale``) and record the geometry at step 0, every
    ``steps // n_records`` steps and at the last step: one dict per record with ``seed``, ``step``, ``anisotropy``
    (mean cosine of 10,000 random pairs, drawn with ``seed``), ``effective_rank``, ``leading_share`` and
    ``participation_ratio``. The latent vectors, views and batches come from a generator seeded with ``seed``; the
    encoder's initial weights from the torch RNG, seeded with ``seed`` here."""
    if min(n, m, d, steps, batch) < 1 or batch > n:
        raise ValueError(f"need positive sizes with batch <= n, got n={n}, m={m}, d={d}, steps={steps}, "
                         f"batch={batch}.")
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    x = torch.randn(n, m, generator=gen)
    enc_toy = torch.nn.Linear(m, d)
    with torch.no_grad():
        enc_toy.bias.copy_(bias_scale * torch.randn(d, generator=gen))
    opt = torch.optim.Adam(enc_toy.parameters(), lr=lr)

    def geometry(step):
        with torch.no_grad():
            z = torch.nn.functional.normalize(enc_toy(x), dim=-1)
        sv = torch.linalg.svdvals(z.double())
        return dict(seed=seed, step=step, anisotropy=anisotropy(z, n_pairs=10_000, seed=seed),
                    effective_rank=effective_rank(z), leading_share=float(sv[0] ** 2 / (sv ** 2).sum()),
                    participation_ratio=participation_ratio(z))

    trace = [geometry(0)]
    for step in range(1, steps + 1):
        idx = torch.randperm(n, generator=gen)[:batch]
        v1 = x[idx] + noise * torch.randn(len(idx), m, generator=gen)
        v2 = x[idx] + noise * torch.randn(len(idx), m, generator=gen)
        loss = infonce_term(enc_toy(v1), enc_toy(v2), temperature=temperature)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % max(1, steps // n_records) == 0 or step == steps:
            trace.append(geometry(step))
    return trace


def toy_endpoints(trace: pd.DataFrame) -> pd.DataFrame:
    """Per seed, the first and last value of each geometry measure of a trace (rows of :func:`capacity_toy_trace`,
    in step order) and the largest effective rank reached: columns ``aniso_start``/``_end``, ``erank_start``/``_end``,
    ``erank_max``, ``lead_start``/``_end``, ``pr_start``/``_end``."""
    return trace.groupby("seed").agg(aniso_start=("anisotropy", "first"), aniso_end=("anisotropy", "last"),
                                     erank_start=("effective_rank", "first"), erank_end=("effective_rank", "last"),
                                     erank_max=("effective_rank", "max"), lead_start=("leading_share", "first"),
                                     lead_end=("leading_share", "last"),
                                     pr_start=("participation_ratio", "first"),
                                     pr_end=("participation_ratio", "last"))
