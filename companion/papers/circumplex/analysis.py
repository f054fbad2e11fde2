r"""The measurements of notebook 03 of the circumplex paper (Yamauchi & Aizawa, ACL 2026, §5–6): Fig 1's explained
variance, Fig 5b's label subsets, Fig 6's stages inside the heads and the GPT head's MLP norms, Fig 7's unseen
labels, and (beyond the paper) EmoBank's ratings on the learned ring.

Each function takes trained heads or their embeddings and returns a tidy frame (and, where a figure needs them, the
maps it draws); :mod:`companion.papers.circumplex.figures` draws them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from companion.losses.circumplex import ECM_LABELS
from companion.papers.circumplex.experiments import head_run
from companion.papers.circumplex.geometry import label_centroids, mds2, ring_alignment, ring_angles
from companion.papers.circumplex.heads import backbone_width, embed_with_head, evaluate_embeddings

__all__ = ["FIG5B_SUBSETS", "STAGES", "explained_variance", "label_subset_runs", "stage_maps", "gpt_mlp_norms",
           "unseen_label_maps", "emobank_ring_runs"]

#: Fig 5b's label subsets, spread evenly around the ECM: 4 at 0/90/180/270°, 6 every 60°, 8, and all 12.
FIG5B_SUBSETS: dict[int, list[str]] = {
    4: ["love", "surprise", "disgust", "calmness"],
    6: ["love", "excitement", "anger", "disgust", "boredom", "relief"],
    8: ["love", "joy", "surprise", "anger", "disgust", "sadness", "calmness", "relief"],
    12: list(ECM_LABELS),
}
#: Fig 6's stages of a head block, in order (:func:`companion.papers.circumplex.heads.embed_with_head`).
STAGES = ("input", "attn_out", "after_attn", "mlp_out", "output")


def explained_variance(embeddings: Mapping[tuple[str, str, int], torch.Tensor], *, kind: str, losses: Sequence[str],
                       seeds: Sequence[int]) -> pd.DataFrame:
    """Fig 1: the share of variance in the top two principal components of each ``(kind, loss, seed)`` embedding;
    one row per seed, one column per loss."""
    from companion.papers.circumplex.comparison import top2_explained  # noqa: PLC0415 - loads scipy; this module imports without it

    return pd.DataFrame([{"seed": s, "loss": loss, "top-2 explained variance": top2_explained(embeddings[(kind, loss, s)])}
                         for s in seeds for loss in losses]).pivot(index="seed", columns="loss",
                                                                   values="top-2 explained variance")


def label_subset_runs(train_states, train_labels: Sequence[str], test_states, test_labels: Sequence[str], *,
                      subsets: Mapping[int, Sequence[str]], losses: Sequence[str], seeds: Sequence[int],
                      full: Mapping[tuple[str, int], torch.Tensor], pretrained_test: torch.Tensor, steps: int,
                      batch_size: int, lr: float, n_heads: int, kind: str = "nGPT", curve_every: int = 0,
                      curve_seeds: Sequence[int] = (), probe_steps: int | None = None, pooling: str = "mean",
                      base_scale: str | float = "backbone", clip_norm: float | None = 1.0,
                      cache: bool | str | None = True, profile: str | None = None) -> pd.DataFrame:
    """Fig 5b: for each label subset, ``kind`` heads retrained on the subset's training rows (same steps, every seed
    and loss; :func:`companion.papers.circumplex.experiments.head_run`, with ``pooling``, ``base_scale`` (the
    backbone's width recorded on ``train_states``), ``clip_norm``, ``cache`` and ``profile``, the notebook's
    ``cfg.profile``: the gpu profile's runs checkpoint) and scored (V-Measure, CD-r) on the
    subset's test rows, with their first and final training loss; the runs of ``curve_seeds`` record the test V every
    ``curve_every`` steps and train on to ``probe_steps`` for that curve only. A subset holding every label reuses
    ``full`` (``(loss, seed)`` -> test embeddings of the heads trained on all labels; no training record). The
    pretrained embedding is scored once per subset (loss ``"pretrained"``, first seed)."""
    width = backbone_width(train_states)  # a subset of the states keeps no record of it

    train_labels, test_labels = pd.Series(list(train_labels)), np.asarray(list(test_labels), dtype=object)
    rows = []
    for n_labels, subset in subsets.items():
        missing = sorted(set(subset) - set(test_labels))
        if missing:
            raise ValueError(f"the subset of {n_labels} labels names labels absent from the test set: "
                             f"{', '.join(missing)}.")
        tr = np.flatnonzero(train_labels.isin(subset).to_numpy())
        te = np.flatnonzero(np.isin(test_labels, list(subset)))
        for seed in seeds:
            for loss in losses:
                if len(te) == len(test_labels):
                    rows.append({"labels": n_labels, "loss": loss, "seed": seed,
                                 **evaluate_embeddings(full[(loss, seed)][te], list(test_labels[te]))})
                    continue
                probed = seed in curve_seeds and curve_every > 0
                scores, _, _ = head_run(kind, loss, train_states.subset(tr), list(train_labels.iloc[tr]),
                                        test_states.subset(te), list(test_labels[te]), steps=steps,
                                        batch_size=batch_size, lr=lr, seed=seed, n_heads=n_heads,
                                        curve_every=curve_every if probed else 0,
                                        probe_steps=probe_steps if probed else None, pooling=pooling,
                                        base_scale=base_scale, backbone_dim=width, clip_norm=clip_norm,
                                        cache=cache, keep_weights=False, profile=profile)
                rows.append({"labels": n_labels, "kind": kind, "loss": loss, "seed": seed, "steps": steps,
                             **{k: v for k, v in scores.items() if k not in ("mean_offdiag_cos", "train_s")}})
        rows.append({"labels": n_labels, "loss": "pretrained", "seed": seeds[0],
                     **evaluate_embeddings(pretrained_test[te], list(test_labels[te]))})
    return pd.DataFrame(rows)


def stage_maps(heads: Mapping[tuple[str, str, int], torch.nn.Module], states, labels: Sequence[str],
               classes: Sequence[str], *, pairs: Sequence[tuple[str, str]], seed: int,
               stages: Sequence[str] = STAGES) -> tuple[pd.DataFrame, dict[tuple[str, str, str], np.ndarray]]:
    """Fig 6: the 2-D MDS map of the label centroids at every stage of the ``(kind, loss)`` heads of ``pairs``
    (seed ``seed``), with each map's ring alignment (1: the ECM's circular order and spacing). Returns the
    alignments (one row per head and stage) and the maps by ``(kind, loss, stage)``."""
    labels = np.asarray(list(labels), dtype=object)
    rows, maps = [], {}
    for kind, loss in pairs:
        _, out = embed_with_head(heads[(kind, loss, seed)], states, return_stages=True)
        for stage in stages:
            maps[(kind, loss, stage)] = xy = mds2(label_centroids(out[stage], labels, classes))
            rows.append({"head": kind, "loss": loss, "stage": stage, "ring alignment": ring_alignment(xy, classes)})
    return pd.DataFrame(rows), maps


def gpt_mlp_norms(heads: Mapping[tuple[str, str, int], torch.nn.Module], states, *, losses: Sequence[str],
                  seeds: Sequence[int]) -> pd.DataFrame:
    """§5.2 / Fig 6: per GPT head (loss, seed), the mean log and the median of ‖pooled MLP output‖ / ‖pooled first
    residual‖ over the sentences of ``states``, and the mean cosine of the output with each of the two."""
    cos = torch.nn.functional.cosine_similarity
    rows = []
    for seed in seeds:
        for loss in losses:
            _, st = embed_with_head(heads[("GPT", loss, seed)], states, return_stages=True)
            mlp, res, out = st["mlp_out"].double(), st["after_attn"].double(), st["output"].double()
            ratio = mlp.norm(dim=1) / res.norm(dim=1)
            rows.append({"seed": seed, "loss": loss, "mean log(‖MLP out‖ / ‖first residual‖)": float(ratio.log().mean()),
                         "median ratio": float(ratio.median()), "cos(output, MLP out)": float(cos(out, mlp).mean()),
                         "cos(output, first residual)": float(cos(out, res).mean())})
    return pd.DataFrame(rows)


def unseen_label_maps(panels: Mapping[int, Sequence[tuple[str, torch.Tensor, torch.Tensor]]], labels: Sequence[str],
                      classes: Sequence[str], other_labels: Sequence[str]
                      ) -> tuple[pd.DataFrame, dict[tuple[int, str], np.ndarray], list[str]]:
    """Fig 7: per seed (``panels[seed]``: ``(name, ECM test embeddings, embeddings of the other labels' texts)``),
    one MDS map of the ECM label centroids together with the centroids of the other labels, and the ring alignment
    of the ECM centroids in it. Returns the alignments (index seed, one column per name), the maps by
    ``(seed, name)`` (the ECM centroids first, in ``classes`` order) and the other labels in map order."""
    labels, other_labels = np.asarray(list(labels), dtype=object), np.asarray(list(other_labels), dtype=object)
    other_classes = sorted(set(other_labels))
    rows, maps = [], {}
    for seed, items in panels.items():
        for name, emb_ecm, emb_other in items:
            pts = np.concatenate([label_centroids(emb_ecm, labels, classes),
                                  label_centroids(emb_other, other_labels, other_classes)])
            maps[(seed, name)] = xy = mds2(pts)
            rows.append({"seed": seed, "embedding": name, "ring alignment": ring_alignment(xy[:len(classes)], classes)})
    return pd.DataFrame(rows).pivot(index="seed", columns="embedding", values="ring alignment"), maps, other_classes


def emobank_ring_runs(candidates: Mapping[int, Sequence[tuple[str, torch.Tensor, torch.Tensor]]],
                      labels: Sequence[str], classes: Sequence[str], valence, arousal
                      ) -> tuple[pd.DataFrame, dict[tuple[str, int], np.ndarray]]:
    """Beyond the paper: per seed and candidate ``(name, ECM test embeddings, EmoBank embeddings)``, the angle φ of
    each EmoBank sentence on the ring's plane (:func:`companion.papers.circumplex.geometry.ring_angles`) and the
    Pearson r of cos φ and sin φ with the Valence and Arousal ratings. Returns one row per seed and name, and the
    angles by ``(name, seed)``."""
    labels = np.asarray(list(labels), dtype=object)
    v, a = np.asarray(valence, dtype=float), np.asarray(arousal, dtype=float)
    rows, angles = [], {}
    for seed, items in candidates.items():
        for name, emb_ecm, emb_eb in items:
            phi = ring_angles(emb_ecm, labels, classes, emb_eb)
            angles[(name, seed)] = phi
            rows.append({"seed": seed, "embedding": name, "r(cos φ, Valence)": np.corrcoef(np.cos(phi), v)[0, 1],
                         "r(sin φ, Arousal)": np.corrcoef(np.sin(phi), a)[0, 1],
                         "r(sin φ, Valence)": np.corrcoef(np.sin(phi), v)[0, 1],
                         "r(cos φ, Arousal)": np.corrcoef(np.cos(phi), a)[0, 1]})
    return pd.DataFrame(rows), angles
