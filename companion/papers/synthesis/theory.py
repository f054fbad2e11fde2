r"""One yardstick for the objectives of the five papers: the entropic bound of weighted InfoNCE
(``notebooks/synthesis/02-entropic-yardstick``).

Vock, Duchesnay & Dufumier (arXiv 2605.13943) write a family of contrastive losses as the weighted InfoNCE
:math:`L^W(S) = -\frac1n\sum_i\sum_{j\ne i}P_{ij}\log\mathrm{softmax}_{k\ne i}(s_{ik})_j` with the target
:math:`P_{ij} = w_{ij}/\sum_{k\ne i}w_{ik}` (Def. 3.1): a cross-entropy between the rows of :math:`P` and the softmax
rows of the similarities, hence bounded below by the entropy :math:`H(p_W)` of the target, with equality exactly when
:math:`s_{ij} = \log w_{ij} + c` (Thm 3.3). Whether a similarity function can realise that, and with which geometry,
is what their Theorems 3.7–3.13 and Corollary 3.9 answer for the cosine and the squared Euclidean distance.

This module applies that yardstick to every objective the five papers train (:data:`OBJECTIVES`):

* **where it sits** — inside the family (a target distribution, its entropy as the bound, whether the similarity's
  logit range can realise it) or outside it, and why: weights inside the log-sum-exp denominator (SoftCSE), other
  positives left out of the denominator (SINCERE), candidates restricted to the other view (SimCSE: Def. 3.1's
  softmax runs over every other example), a margin on the positive (SimACE's constant weight on every negative,
  ArcCon's different similarity for the positive), a ranking loss (CoSENT, AnglE's angle objective), a regression of
  the Gram matrix (CircularCSE), a pointwise logistic loss with a threshold (the concept paper's BCE term);
* **its predicted optimum on free vectors** — a closed form where a theorem or a short argument gives one
  (:func:`sincere_optimal_loss`, :func:`softcse_optimal_gram`, :func:`one_positive_optimal_loss`,
  :func:`xclr_ring_gram`, :func:`angle_soft_supcon_angle`, …), stated as named conditions
  (:class:`Condition`) before any optimiser runs;
* **the numerical optimum** — free vectors, one per example, minimised with L-BFGS in float64 from several random
  initialisations (:func:`free_problems`, :func:`fit_free`), warm-started through a few higher temperatures
  (:data:`ANNEAL`) because at the papers' temperatures (0.05–0.1) the losses near the optimum are ~1e-9 and their
  landscape is nearly flat;
* **the trained geometry** — the label geometry of the Emolit heads of ``circumplex/02`` (and SupCon / Soft SupCon
  heads trained here with the same recipe, :func:`emolit_heads`) and the SimACE runs of ``simace/02`` with two new
  SimCSE runs at the angle's *effective temperature* (:func:`effective_temperature`, :func:`temperature_jobs`).

Nothing here is a new loss: every loss is a call into :mod:`companion.losses`.

The module is the notebook's one import: a facade over four modules, one per job, that re-exports their names.

* :mod:`~companion.papers.synthesis.theory_placement` — the similarities' ranges, the closed forms and the registry
  :data:`OBJECTIVES` with its tables;
* :mod:`~companion.papers.synthesis.theory_free` — the free-vector problems, their conditions and the optimiser;
* :mod:`~companion.papers.synthesis.theory_checks` — the identities: closed forms against the library, the
  placements, the angle variant of Soft SupCon, X-CLR's ring optimum;
* :mod:`~companion.papers.synthesis.theory_trained` — the trained heads, the effective-temperature runs and the
  summary table.
"""

from __future__ import annotations

from companion.papers.synthesis.theory_checks import (
    IDENTITY_ATOL,
    IDENTITY_RTOL,
    angle_soft_supcon_checks,
    circular_target_fit,
    closed_form_checks,
    placement_checks,
    relation_holds,
    simcse_against_the_family,
)
from companion.papers.synthesis.theory_free import (
    ANNEAL,
    BOUND_TOL,
    COLLAPSE_TOL,
    GRAM_TOL,
    LOSS_RTOL,
    SIZES,
    Condition,
    FreeFit,
    FreeProblem,
    best_fit,
    class_geometry,
    fit_free,
    free_problems,
    numerical_summary,
    prediction_text,
)
from companion.papers.synthesis.theory_placement import (
    OBJECTIVES,
    RANGE,
    RING_DEGREES,
    Objective,
    angle_soft_supcon_angle,
    angle_soft_supcon_attainable,
    concept_optimal_loss,
    cosent_levels,
    effective_temperature,
    fmt,
    framework_table,
    logit_range,
    one_positive_optimal_loss,
    positive_angle_logit,
    range_table,
    ranking_range_bound,
    realise,
    show,
    sincere_optimal_loss,
    softcse_closed_form,
    softcse_optimal_gram,
    softcse_optimal_loss,
    xclr_ring_gram,
)
from companion.papers.synthesis.theory_trained import (
    HEAD_LOSSES,
    SIMACE_REFERENCE,
    emolit_heads,
    explained_within,
    head_geometry_table,
    head_loss,
    label_geometry,
    matched_name,
    matched_temperatures,
    predicted_between,
    predicted_gap,
    ring_gap,
    summary_table,
    temperature_jobs,
)

__all__ = [
    # theory_placement
    "RING_DEGREES", "RANGE", "logit_range", "positive_angle_logit", "one_positive_optimal_loss",
    "effective_temperature", "sincere_optimal_loss", "softcse_optimal_gram", "realise", "softcse_optimal_loss",
    "softcse_closed_form", "xclr_ring_gram", "angle_soft_supcon_angle", "angle_soft_supcon_attainable",
    "concept_optimal_loss", "cosent_levels", "ranking_range_bound", "Objective", "OBJECTIVES", "show", "fmt",
    "framework_table", "range_table",
    # theory_free
    "Condition", "GRAM_TOL", "COLLAPSE_TOL", "LOSS_RTOL", "BOUND_TOL", "ANNEAL", "FreeProblem", "FreeFit", "fit_free",
    "best_fit", "class_geometry", "SIZES", "free_problems", "prediction_text", "numerical_summary",
    # theory_checks
    "closed_form_checks", "IDENTITY_RTOL", "IDENTITY_ATOL", "relation_holds", "placement_checks",
    "simcse_against_the_family",
    "angle_soft_supcon_checks", "circular_target_fit",
    # theory_trained
    "HEAD_LOSSES", "head_loss", "emolit_heads", "label_geometry", "head_geometry_table", "predicted_between",
    "predicted_gap", "ring_gap",
    "SIMACE_REFERENCE", "matched_name", "matched_temperatures", "temperature_jobs", "explained_within",
    "summary_table",
]
