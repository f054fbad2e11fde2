"""The exact criteria: verdict rules for deterministic quantities (free-embedding optima, closed forms, counts),
where there is no seed noise to put an interval on.

Comparisons over seeds use :func:`companion.stats.direction` / :func:`companion.stats.level` instead. Every rule
here returns a :class:`companion.stats.Criterion` whose text is generated from its parameters::

    >>> from companion.stats import within
    >>> within(0.5, 0.01).judge(0.505).verdict
    'reproduced'

``within``, ``at_least``, ``at_most`` and ``same_sign`` compare a number; ``holds`` a bool or a structure of bools
(``minor_erratum``: the same for an erratum classified minor); ``not_testable`` records why a claim cannot be tested
here. :meth:`companion.results.Ledger.claim` grades a claim with them.
"""

from __future__ import annotations

import math
from typing import Any

from companion.stats.comparisons import Comparison
from companion.stats.verdicts import Criterion, Judgement


def _number(ours: Any, what: str) -> float:
    if isinstance(ours, Comparison):
        raise TypeError(f"{what} is for deterministic values; judge a seed comparison with stats.direction/level")
    try:
        value = float(ours)
    except (TypeError, ValueError):
        raise TypeError(f"{what} needs a number, got {ours!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{what} got a non-finite value {value!r}")
    return value


def within(target: float, tol: float, partly_tol: float | None = None) -> Criterion:
    """Reproduced if ``|ours - target| <= tol``; partly if within ``partly_tol``; else not reproduced."""
    desc = f"|ours - {target:g}| <= {tol:g}" + (f" (partly if <= {partly_tol:g})" if partly_tol else "")

    def rule(ours):
        gap = abs(_number(ours, "within()") - target)
        if gap <= tol:
            return "reproduced"
        return "partly" if partly_tol is not None and gap <= partly_tol else "not reproduced"

    return Criterion(desc, rule, name="within", params={"target": target, "tol": tol, "partly_tol": partly_tol})


def at_least(threshold: float, partly: float | None = None) -> Criterion:
    """Reproduced if ``ours >= threshold``; partly if ``ours >= partly``."""
    desc = f"ours >= {threshold:g}" + (f" (partly if >= {partly:g})" if partly is not None else "")

    def rule(ours):
        value = _number(ours, "at_least()")
        if value >= threshold:
            return "reproduced"
        return "partly" if partly is not None and value >= partly else "not reproduced"

    return Criterion(desc, rule, name="at_least", params={"threshold": threshold, "partly": partly})


def at_most(threshold: float, partly: float | None = None) -> Criterion:
    """Reproduced if ``ours <= threshold``; partly if ``ours <= partly``."""
    desc = f"ours <= {threshold:g}" + (f" (partly if <= {partly:g})" if partly is not None else "")

    def rule(ours):
        value = _number(ours, "at_most()")
        if value <= threshold:
            return "reproduced"
        return "partly" if partly is not None and value <= partly else "not reproduced"

    return Criterion(desc, rule, name="at_most", params={"threshold": threshold, "partly": partly})


def holds(description: str = "every listed condition holds") -> Criterion:
    """For a bool or a mapping/sequence of bools: all true -> reproduced, some -> partly, none -> not."""

    def rule(ours):
        values = list(ours.values()) if isinstance(ours, dict) else ours
        values = [values] if isinstance(values, bool) else list(values)
        if not values or not all(isinstance(v, bool) for v in values):
            raise TypeError(f"holds() needs booleans, got {ours!r}")
        if all(values):
            return "reproduced"
        return "partly" if any(values) and len(values) > 1 else "not reproduced"

    return Criterion(f"{description} (all: reproduced; some: partly; none: not reproduced)", rule, name="holds",
                     params={"description": description})


def minor_erratum(description: str, why: str) -> Criterion:
    """:func:`holds` for an erratum classified *minor*: the contradiction is real but stays within a convention the
    paper states or its printed rounding (``why`` says which). All conditions true reads ``minor`` instead of
    ``confirmed``; only ``kind="erratum"`` claims take it (:meth:`Ledger.claim`)."""
    if not why.strip():
        raise ValueError("minor_erratum() needs the convention or rounding that makes the erratum minor")
    inner = holds(description)
    return Criterion(f"{description}; minor: {why} (all: minor; some: partly; none: not confirmed)", inner._rule,
                     name="minor", params={"description": description, "why": why})


def same_sign(paper_value: float, min_magnitude: float = 0.0) -> Criterion:
    """Reproduced if ours has the paper's sign and ``|ours| >= min_magnitude``; same sign but smaller: partly."""
    sign = math.copysign(1.0, paper_value)
    desc = f"sign(ours) == sign({paper_value:g})" + (f" and |ours| >= {min_magnitude:g}" if min_magnitude else "")

    def rule(ours):
        value = _number(ours, "same_sign()")
        if value * sign <= 0:
            return "not reproduced"
        return "reproduced" if abs(value) >= min_magnitude else "partly"

    return Criterion(desc + " (same sign but smaller: partly; other sign: not reproduced)", rule, name="same_sign",
                     params={"paper_value": paper_value, "min_magnitude": min_magnitude})


def not_testable(reason: str) -> Criterion:
    """The claim cannot be tested here; ``reason`` says why (stored as the criterion and the reason)."""
    if not reason.strip():
        raise ValueError("not_testable() needs a reason")
    return Criterion(f"not testable here: {reason}", lambda ours: Judgement("not testable", reason),
                     name="not_testable", params={"reason": reason})
