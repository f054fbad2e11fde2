"""The one statistics package: paired-seed comparisons, confidence intervals, tests, Holm, and the verdict rules.

Every comparison of the companion goes through here, so a reader checks the rules once::

    from companion import stats
    cmp = stats.paired(angle_scores, cosine_scores)      # per-seed values, paired by seed
    cmp.estimate, cmp.ci, cmp.p                            # mean difference, 95 % t interval, paired t p-value
    crit = stats.direction(paper_effect=0.98, tol=0.5, tol_reason="the paper's own seed sd")
    crit.judge(cmp)                                        # -> Judgement(verdict, reason)

Verdict rules (written once, used by every notebook through :class:`companion.results.Ledger`). One symmetric
rule compares our estimate with the paper's statement and nothing else:

* ``reproduced`` — the paper's direction with a CI that excludes zero, and the magnitude within tolerance;
* ``partly`` — the direction holds firmly but the magnitude lies outside the tolerance (either way), or only part
  of a multi-part statement holds;
* ``not reproduced`` — the CI lies entirely on the side of zero opposite to the paper's effect (a firm reversal),
  or shows the effect absent with the power to see it (the CI inside the tolerance band around zero while the
  paper's effect lies outside it);
* ``inconclusive`` — the CI covers zero and the paper's effect, or the design lacks the power to tell
  (``underpowered``: the paper's effect is below the minimum detectable effect, :func:`mde`), or a validity check
  of our own run failed (:class:`Validity`: it did not train, it did not reach its plateau, a ceiling or floor).

:func:`direction` applies the rule to a difference, :func:`level` to a level the paper reports. The magnitude
tolerance comes from one policy, :func:`tolerance`: the paper's own seed spread where it prints one, otherwise
:data:`TOLERANCE_FRACTION` of the paper's effect. Every criterion's text is generated from its rule and its
parameters, so the sentence a reader sees cannot disagree with the code.

The **regime** (how our set-up differs from the paper's: backbone, layers trained, steps, data) never changes a
verdict: :meth:`companion.results.Ledger.claim` stores it beside the verdict (:func:`regime_label`), and a
result against the paper in a scaled regime is ``not reproduced`` with that regime named.

Deterministic quantities (free-embedding optima, closed forms, counts) use the exact criteria (``within``,
``at_least``, ``at_most``, ``holds``, ``same_sign``, ``not_testable``, ``minor_erratum``): there is no seed noise to
put an interval on.

Four modules hold the code: :mod:`companion.stats.comparisons` (the numbers: intervals, tests, power, the
bootstrap), :mod:`companion.stats.verdicts` (the rules that turn them into verdicts),
:mod:`companion.stats.validity` (the one ``trained``, ``plateau`` and ``ceiling``/``floor`` rule for every paper, over
one tidy curve frame, and the gate that applies them: a gate fires only when more training or more room could change
the verdict) and :mod:`companion.stats.criteria` (the exact criteria); every name is imported from here.
"""

from companion.stats import validity
from companion.stats.comparisons import (
    POWER,
    WILCOXON_MIN_N,
    Comparison,
    difference_se,
    hierarchical_bootstrap,
    holm,
    mde,
    n_for_power,
    paired,
    paired_table,
    sample,
)
from companion.stats.criteria import at_least, at_most, holds, minor_erratum, not_testable, same_sign, within
from companion.stats.verdicts import (
    CHECK_VERDICTS,
    ERRATUM_VERDICTS,
    PLATEAU_FRACTION,
    TOLERANCE_FRACTION,
    TOLERANCE_SE,
    VERDICTS,
    Criterion,
    Judgement,
    Tolerance,
    Validity,
    as_check,
    as_erratum,
    direction,
    inconclusive,
    level,
    plateau,
    regime_label,
    tolerance,
)

__all__ = ["validity", "VERDICTS", "CHECK_VERDICTS", "ERRATUM_VERDICTS", "WILCOXON_MIN_N", "POWER", "TOLERANCE_FRACTION",
           "TOLERANCE_SE", "PLATEAU_FRACTION", "Comparison", "paired", "sample", "holm", "paired_table",
           "difference_se", "mde", "n_for_power", "hierarchical_bootstrap", "Judgement", "Criterion", "Validity",
           "plateau", "Tolerance", "tolerance", "direction", "level", "inconclusive",
           "regime_label", "as_erratum", "as_check", "within", "at_least", "at_most", "holds", "same_sign",
           "not_testable", "minor_erratum"]
