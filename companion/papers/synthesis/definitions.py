"""The definitions sweep: every quantity a paper defines or states in more than one place (a metric, a pooling, an
equation restated in an appendix, a theorem's statement against its proof or a corollary), the two places side by
side in ``data/synthesis/definitions.csv``, with a recomputation wherever the two forms can be evaluated.

Each row names the quantity, place A and its form, place B and its form, the rule that compares them, the verdict of
the reading (``same``: the two places agree, or differ only as the text itself says; ``different``: they contradict
each other; ``cannot tell``: the text does not decide), the erratum that records a difference (empty where the
difference is one of notation or wording that changes no formula, number or conclusion the paper uses) and why.

Rules (each a function on two forms, so that a synthetic pair can make it fire or not):

=============  =====================================================================================================
``formula``    two expressions in the variables of the row's ``domain``, evaluated at points drawn from it (every
               point of an integer domain): the same when they agree at every point (relative 1e-9)
``condition``  two conditions (boolean expressions) in the domain's variables: the same when they hold at the same
               points (every point of an integer domain, so that a boundary is not missed)
``value``      an expression without free variables against a number as printed: the same when it lies within the
               print's rounding (:func:`companion.papers.synthesis.audit_rules.printed`)
``reading``    no recomputation: the verdict is the reading's, and ``why`` gives it
=============  =====================================================================================================

Expressions are numpy expressions over the domain's variables and the names of :data:`NAMESPACE` (``exp``, ``log``,
``sqrt``, ``arccos``, ``angle``, ``softmax``, ``svals`` …); the domain is ``name: kind args`` entries separated by
``;``: ``int lo hi``, ``uniform lo hi [shape ...]``, ``normal [shape ...]`` or ``fixed <expression>`` (evaluated
after the entries before it, so it may use them).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.papers.synthesis.audit_rules import Outcome, require_printed
from companion.papers.tables import paper_table

__all__ = ["NAMESPACE", "RULES", "VERDICTS", "condition_rule", "display_form", "formula_rule", "parse_domain",
           "recompute", "sample", "sweep", "value_rule"]

RULES = ("formula", "condition", "value", "reading")
VERDICTS = ("same", "different", "cannot tell")
#: points drawn from a row's domain by the formula and condition rules
N_POINTS = 64
REL_TOL = 1e-9


# ------------------------------------------------------------------------------------------- the expressions
def _softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _svals(x):
    """Singular values of a matrix (rows: items)."""
    return np.linalg.svd(np.asarray(x, dtype=float), compute_uv=False)


def _erank(s):
    """exp of the Shannon entropy of a normalised spectrum."""
    p = np.asarray(s, dtype=float) / np.sum(s)
    p = p[p > 0]
    return float(np.exp(-np.sum(p * np.log(p))))


def _participation(s):
    """(sum s)^2 / sum s^2 of a spectrum."""
    s = np.asarray(s, dtype=float)
    return float(s.sum() ** 2 / (s ** 2).sum())


def _mean_cos(x):
    """Mean cosine over the distinct pairs of rows."""
    x = np.asarray(x, dtype=float)
    u = x / np.linalg.norm(x, axis=1, keepdims=True)
    g = u @ u.T
    n = len(x)
    return float((g.sum() - np.trace(g)) / (n * (n - 1)))


def _top_share(x):
    """Share of the variance on the leading singular direction of the centred rows."""
    s = _svals(np.asarray(x, dtype=float) - np.mean(x, axis=0))
    return float(s[0] ** 2 / (s ** 2).sum())


def _simplex_cos(c):
    """Cosine between two vertices of a regular simplex of ``c`` unit vectors summing to zero (the centred basis)."""
    c = int(c)
    v = np.eye(c) - 1.0 / c
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return float(v[0] @ v[1])


#: the names an expression of definitions.csv may use besides its domain's variables
NAMESPACE: dict[str, object] = {
    "pi": math.pi, "e": math.e, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs, "cos": np.cos,
    "sin": np.sin, "arccos": np.arccos, "arcsin": np.arcsin, "angle": np.angle, "real": np.real, "imag": np.imag,
    "sum": np.sum, "mean": np.mean, "size": np.size, "sign": np.sign, "zeros": np.zeros, "ones": np.ones,
    "comb": math.comb, "softmax": _softmax, "svals": _svals, "erank": _erank, "participation": _participation,
    "mean_cos": _mean_cos, "top_share": _top_share, "simplex_cos": _simplex_cos, "True": True, "False": False,
}


def evaluate(expression: str, variables: Mapping[str, object]):
    """``expression`` with the given variables and :data:`NAMESPACE` (no builtins)."""
    scope = {**NAMESPACE, **variables}
    try:
        return eval(compile(expression, "<definitions.csv>", "eval"), {"__builtins__": {}}, scope)  # noqa: S307
    except Exception as exc:  # noqa: BLE001 - a bad expression of the data file is reported with its text
        raise ValueError(f"cannot evaluate {expression!r}: {exc}") from exc


# ----------------------------------------------------------------------------------------------- the domain
@dataclass(frozen=True)
class Variable:
    name: str
    kind: str
    args: tuple[str, ...]


_ENTRY = re.compile(r"\s*([A-Za-z_]\w*)\s*:\s*(int|uniform|normal|fixed)\b\s*(.*)")


def parse_domain(text: str) -> list[Variable]:
    """``"C: int 2 50; eps: uniform 0.01 0.99; k: normal 8; eps0: fixed exp(-1)"`` -> variables, in order."""
    out = []
    for entry in (text or "").split(";"):
        if not entry.strip():
            continue
        m = _ENTRY.fullmatch(entry)
        if not m:
            raise ValueError(f"domain entry {entry.strip()!r}: expected 'name: int|uniform|normal|fixed ...'")
        name, kind, rest = m.groups()
        args = (rest.strip(),) if kind == "fixed" else tuple(rest.split())
        if kind == "int" and len(args) != 2 or kind == "uniform" and len(args) < 2 or kind == "fixed" and not args[0]:
            raise ValueError(f"domain entry {entry.strip()!r}: wrong number of arguments")
        out.append(Variable(name, kind, args))
    return out


def sample(domain: list[Variable], rng: np.random.Generator) -> dict[str, object]:
    """One draw of every variable of ``domain`` (a ``fixed`` entry sees the ones before it)."""
    values: dict[str, object] = {}
    for v in domain:
        if v.kind == "int":
            values[v.name] = int(rng.integers(int(v.args[0]), int(v.args[1]) + 1))
        elif v.kind == "uniform":
            shape = tuple(int(a) for a in v.args[2:])
            draw = rng.uniform(float(v.args[0]), float(v.args[1]), size=shape or None)
            values[v.name] = float(draw) if not shape else draw
        elif v.kind == "normal":
            shape = tuple(int(a) for a in v.args)
            draw = rng.standard_normal(size=shape or None)
            values[v.name] = float(draw) if not shape else draw
        else:
            values[v.name] = evaluate(v.args[0], values)
    return values


#: an integer domain up to this many points is enumerated whole instead of sampled
GRID_LIMIT = 200_000


def _grid(parsed: list[Variable]) -> list[dict[str, object]] | None:
    """Every point of a domain whose drawn variables are all integers, when there are at most :data:`GRID_LIMIT`
    (a boundary such as n = 2q + 4 has no weight under sampling); None otherwise."""
    drawn = [v for v in parsed if v.kind != "fixed"]
    if not drawn or any(v.kind != "int" for v in drawn):
        return None
    ranges = {v.name: range(int(v.args[0]), int(v.args[1]) + 1) for v in drawn}
    if math.prod(len(r) for r in ranges.values()) > GRID_LIMIT:
        return None
    out = []
    for combo in itertools.product(*ranges.values()):
        chosen = dict(zip(ranges, combo))
        values: dict[str, object] = {}
        for v in parsed:
            values[v.name] = chosen[v.name] if v.name in chosen else evaluate(v.args[0], values)
        out.append(values)
    return out


def _points(domain: str, n: int, seed: int):
    """The points a rule evaluates: the whole grid of an integer domain (:func:`_grid`), one point where nothing is
    drawn, else ``n`` draws."""
    parsed = parse_domain(domain)
    grid = _grid(parsed)
    if grid is not None:
        return grid
    rng = np.random.default_rng(seed)
    return [sample(parsed, rng) for _ in range(n if any(v.kind != "fixed" for v in parsed) else 1)]


def _shown(values: Mapping[str, object]) -> str:
    def one(x):
        if isinstance(x, np.ndarray):
            return f"array{x.shape}"
        return f"{x:.4g}" if isinstance(x, float) else str(x)

    return ", ".join(f"{k} = {one(v)}" for k, v in values.items()) or "no variables"


def _number(x) -> complex:
    return complex(np.asarray(x).item()) if np.size(x) == 1 else complex("nan")


# ------------------------------------------------------------------------------------------------- the rules
def formula_rule(a: str, b: str, domain: str = "", n: int = N_POINTS, seed: int = 0) -> Outcome:
    """Two expressions of the same variables: off (different) when they disagree at a point of ``domain`` beyond
    :data:`REL_TOL` (relative, with an absolute floor of 1e-12); arrays are compared elementwise."""
    points = _points(domain, n, seed)
    for point in points:
        va, vb = np.asarray(evaluate(a, point)), np.asarray(evaluate(b, point))
        if va.shape != vb.shape or not np.allclose(va, vb, rtol=REL_TOL, atol=1e-12):
            shown = (f"{_number(va):.6g} vs {_number(vb):.6g}".replace("+0j", "").replace("(", "").replace(")", "")
                     if va.size == 1 and vb.size == 1 else f"shapes {va.shape} and {vb.shape}")
            return Outcome(True, f"differ at {_shown(point)}: {shown}")
    count = len(points)
    return Outcome(False, f"equal at {count} point{'s' if count != 1 else ''} of the domain")


def condition_rule(a: str, b: str, domain: str = "", n: int = N_POINTS, seed: int = 0) -> Outcome:
    """Two conditions: off (different) when one holds and the other does not at a point of ``domain``."""
    points = _points(domain, n, seed)
    for point in points:
        ta, tb = bool(np.all(evaluate(a, point))), bool(np.all(evaluate(b, point)))
        if ta != tb:
            return Outcome(True, f"at {_shown(point)} the first {'holds' if ta else 'fails'} and the second "
                                 f"{'holds' if tb else 'fails'}")
    count = len(points)
    return Outcome(False, f"hold at the same {count} point{'s' if count != 1 else ''} of the domain")


def value_rule(expression: str, printed: str) -> Outcome:
    """An expression without variables against a number as printed: off when it lies outside the print's
    rounding (half a unit of its last digit)."""
    value = complex(np.asarray(evaluate(expression, {})).item())
    p = require_printed(printed)
    gap = abs(value - float(p.value))
    off = gap > float(p.error) or abs(value.imag) > 1e-12
    return Outcome(off, f"{value.real:.6g} vs printed {p} (|difference| {gap:.3g}, rounding allows {p.error})")


def recompute(rule: str, form_a: str, form_b: str, domain: str = "") -> tuple[str | None, str]:
    """The verdict a row's rule computes (``same``/``different``, or None for ``reading``) and its detail."""
    rules: dict[str, Callable[[], Outcome]] = {
        "formula": lambda: formula_rule(form_a, form_b, domain),
        "condition": lambda: condition_rule(form_a, form_b, domain),
        "value": lambda: value_rule(form_a, form_b),
    }
    if rule == "reading":
        return None, "no recomputation: the reading decides"
    if rule not in rules:
        raise ValueError(f"unknown rule {rule!r} (one of {', '.join(RULES)})")
    out = rules[rule]()
    return ("different" if out.off else "same"), out.detail


def display_form(form: str) -> str:
    """A form as a reader sees it: spaces around ``+``, ``/``, ``*`` (not ``**``) and after commas, so that a long
    expression wraps in a table cell."""
    out = []
    for k, c in enumerate(form):
        before, after = form[k - 1] if k else "", form[k + 1] if k + 1 < len(form) else ""
        if c in "+/" or c == "*" and "*" not in (before, after):
            out.append(f" {c} ")
        elif c == ",":
            out.append(", ")
        else:
            out.append(c)
    return re.sub(r" {2,}", " ", "".join(out)).strip()


# ----------------------------------------------------------------------------------------------- the sweep
COLUMNS = ("id", "paper", "quantity", "location_a", "form_a", "location_b", "form_b", "rule", "domain", "verdict",
           "erratum", "why")


def read_definitions(root: str | Path | None = None):
    """``data/synthesis/definitions.csv`` (every cell as printed, empty cells as ``""``), checked: known rules and
    verdicts, unique ids, a why on every row."""
    frame = paper_table("synthesis", "definitions", root=root)
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"data/synthesis/definitions.csv lacks the column(s) {missing}")
    problems = [f"{r.id}: unknown rule {r.rule!r}" for r in frame.itertuples() if r.rule not in RULES]
    problems += [f"{r.id}: unknown verdict {r.verdict!r}" for r in frame.itertuples() if r.verdict not in VERDICTS]
    problems += [f"{r.id}: no why" for r in frame.itertuples() if not str(r.why).strip()]
    dup = frame["id"][frame["id"].duplicated()].tolist()
    problems += [f"id {d} listed twice" for d in dup]
    if problems:
        raise ValueError("data/synthesis/definitions.csv: " + "; ".join(problems))
    return frame


def sweep(root: str | Path | None = None):
    """Every row of the sweep with its recomputation: ``recomputed`` (``same``/``different``, or ``""`` for a
    reading), ``detail`` and ``agrees`` (the recomputation gives the reading's verdict; True for a reading)."""
    frame = read_definitions(root).copy()
    results = [recompute(r.rule, r.form_a, r.form_b, r.domain) for r in frame.itertuples()]
    frame["recomputed"] = [v or "" for v, _ in results]
    frame["detail"] = [d for _, d in results]
    frame["agrees"] = [v is None or v == verdict for (v, _), verdict in zip(results, frame["verdict"])]
    return frame
