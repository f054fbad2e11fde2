"""Heads: one training step of the nGPT head vs the GPT head of the same size on cached MiniLM token states.

Inputs: real last-layer MiniLM token states (``Encoder.token_states`` through
:func:`companion.encoders.states.cached_token_states`) of 512 Emolit training sentences (seeded sample), truncated to 40 tokens;
batches of 128 drawn with a fixed seed, the same batches for both heads. One step = forward (head + pooling +
L2 norm), SINCERE loss on the Emolit labels (tau = 0.05), backward, AdamW (lr 5e-5, no weight decay) and, for nGPT
only, the weight re-normalisation that nGPT needs after every step (part of its cost). dim 384, 12 heads,
MLP 4 x 384 for both. Goal: nGPT step time <= 1.3 x the GPT step time.
"""

from __future__ import annotations

from typing import Any

import torch

from .common import ratio_entry, time_side_by_side


def _states(quick: bool, n: int, max_tokens: int):
    """(PackedStates, labels, description)."""
    from companion.encoders.states import PackedStates

    if quick:
        gen = torch.Generator().manual_seed(0)
        lengths = torch.randint(3, max_tokens + 1, (n,), generator=gen)
        flat = torch.randn(int(lengths.sum()), 32, generator=gen).half()
        labels = [i % 4 for i in range(n)]
        return PackedStates(flat, lengths), labels, f"{n} random token-state rows (d = 32, <= {max_tokens} tokens)"
    import numpy as np

    from companion.data import load_emolit
    from companion.encoders import load_encoder
    from companion.encoders.states import cached_token_states
    from companion.losses.circumplex import ECM_LABELS

    ds = load_emolit("train")
    rows = np.random.default_rng(0).permutation(len(ds))[:n].tolist()  # the file is grouped by label
    all_texts, all_names = list(ds["text"]), list(ds["label"])
    texts, names = [all_texts[i] for i in rows], [all_names[i] for i in rows]
    enc = load_encoder("sentence-transformers/all-MiniLM-L6-v2", pooling="mean", max_length=128, device="cpu")
    states = cached_token_states(enc, texts, progress=False).truncate(max_tokens)
    ids = {name: i for i, name in enumerate(ECM_LABELS)}
    labels = [ids[x] for x in names]
    return states, labels, (f"MiniLM last-layer token states of {n} Emolit train sentences (seeded sample), truncated "
                            f"to {max_tokens} tokens ({int(states.lengths.sum())} tokens in all)")


def run(quick: bool = False, repeats: int | None = None) -> dict[str, Any]:
    from companion.losses.circumplex import sincere_loss
    from companion.papers.circumplex.heads import NGPTHead, make_head

    n, batch, max_tokens = (64, 16, 12) if quick else (512, 128, 40)
    repeats = repeats or (3 if quick else 20)
    states, labels, what = _states(quick, n, max_tokens)
    labels = torch.as_tensor(labels)
    gen = torch.Generator().manual_seed(0)
    batches = [torch.randperm(n, generator=gen)[:batch] for _ in range(8)]
    data = [(*states.batch(idx), labels[idx]) for idx in batches]
    steps: dict[str, Any] = {}
    for kind in ("nGPT", "GPT"):
        torch.manual_seed(0)
        head = make_head(kind, states.dim, n_heads=4 if quick else 12)
        head.train()
        opt = torch.optim.AdamW(head.parameters(), lr=5e-5, weight_decay=0.0)
        after = head.normalize_weights if isinstance(head, NGPTHead) else None
        counter = {"i": 0}

        def step(head=head, opt=opt, after=after, counter=counter):
            x, mask, y = data[counter["i"] % len(data)]
            counter["i"] += 1
            opt.zero_grad(set_to_none=True)
            loss = sincere_loss(head(x.float(), mask), y, tau=0.05)
            loss.backward()
            opt.step()
            if after is not None:
                after()

        steps[kind] = step
    t = time_side_by_side(steps, repeats=repeats, warmup=2)
    entry = ratio_entry(t["nGPT"], t["GPT"], 1.3, "nGPT step <= 1.3x GPT step")
    n_params = {k: sum(p.numel() for p in make_head(k, states.dim, n_heads=4 if quick else 12).parameters())
                for k in ("GPT", "nGPT")}
    entry.update({"inputs": f"{what}; batch {batch}; one step = forward + SINCERE + backward + AdamW "
                            "(+ nGPT weight re-normalisation)",
                  "parameters": n_params, "torch_threads": torch.get_num_threads()})
    return {"nGPT_vs_GPT": entry}
