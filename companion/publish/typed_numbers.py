"""Results typed into prose: the numbers in a notebook's markdown that repeat one of its ledger's results.

A notebook's markdown explains; its results come from code (the ledger table, a generated table, a figure). A
result typed into a markdown cell goes stale the moment the run changes, so this check lists every number in a
notebook's markdown cells that matches one of the numeric results of the notebook's ledger
(``results/<paper>/<notebook>.json``):

- the results of a claim are ``ours`` (a number, or every number in a nested structure), its seed statistics
  (``estimate``, ``sd``, ``ci``, ``ci_items``, ``p``, ``p_wilcoxon``, ``mde``, the per-seed ``values``) and the
  numbers its ``note`` prints (what the run measured beside the verdict);
- a typed number matches a result at the precision it is typed: ``0.81`` matches 0.8123 (0.8123 rounds to 0.81),
  not 0.8163; ``81.2 %`` also matches 0.8123 read as a percentage; a sign is ignored (``a drop of 0.12`` matches
  an estimate of -0.12);
- only numbers with a decimal point and at least two significant digits, trailing zeros aside, are read
  (``0.81``, ``1.5``, ``12.0``): an integer (a seed, a step count, a table number) or a round decimal (``0.5``,
  ``0.05``, ``1.0``: a margin, a temperature) says too little to tell a result from a set-up constant; nor is a
  number that names a place (``§4.3``, ``Thm. 3.7``, ``Cor. 3.4–3.5``, ``WordNet 3.0``) or is part of a name
  (``Llama-3.2-3B``);
- a number typed exactly as one the ledger fixes before the run (a claim's ``paper_value``, a number of its
  statement, ``source`` or criterion) or as a number of the paper's transcribed tables (``data/<paper>/*.csv``)
  is cited, not a result, and is not reported.

``python -m companion notebooks clean --check`` and ``python -m companion site --check`` (which CI runs) report each
finding in one line and exit 1 on one, as ``python -m companion.publish.typed_numbers`` does for every committed
notebook; ``tests/publish/test_typed_numbers.py`` asserts there are none.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.publish.notebooks import paper_of

#: a decimal number as prose types it: an optional sign (ASCII or Unicode minus), digits (with thousands commas),
#: a decimal point and digits; an optional per-cent sign after optional space
_NUMBER = re.compile(r"(?<![\w.])(?P<sign>[-−–]?)(?P<int>\d{1,3}(?:,\d{3})+|\d+)\.(?P<frac>\d+)(?![\w]|\.\d)"
                     r"(?P<pct>\s?%)?")
#: numbers inside a claim's note or source (results printed by the run; paper values cited by the source)
_ANY_NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
#: the seed-statistics fields that are results (``n`` and ``confidence`` are the design, not a result)
_STAT_FIELDS = ("estimate", "sd", "ci", "ci_items", "p", "p_wilcoxon", "mde", "values")


@dataclass(frozen=True)
class TypedNumber:
    """One decimal number in a markdown cell: its text, value, decimals and whether a per-cent sign follows."""

    cell: int
    text: str
    value: float
    decimals: int
    percent: bool
    context: str

    @property
    def significant_digits(self) -> int:
        """Digits from the first non-zero one to the last non-zero one: ``0.81`` 2, ``1.0`` 1, ``0.50`` 1,
        ``247.0`` 3 (a round number is a setting more often than a result)."""
        digits = self.text.lstrip("-−–+").rstrip("%").strip().replace(",", "")
        integer, _, frac = digits.partition(".")
        if integer.strip("0"):
            return len(integer.lstrip("0")) + len(frac.rstrip("0"))
        return len(frac.rstrip("0").lstrip("0"))


@dataclass(frozen=True)
class Result:
    """One numeric result of a ledger: the claim it belongs to, where in the claim, and its value."""

    claim: str
    field: str
    value: float


@dataclass(frozen=True)
class Finding:
    """A typed number that repeats a ledger result."""

    notebook: str
    cell: int
    text: str
    context: str
    claim: str
    field: str
    value: float

    def __str__(self) -> str:
        return (f"{self.notebook} cell {self.cell}: {self.text!r} typed in the markdown is the result "
                f"{self.claim} {self.field} ({self.value:g}) of its ledger, in '…{self.context}…'")


def _cells(notebook: Path | dict) -> list[dict[str, Any]]:
    data = notebook if isinstance(notebook, dict) else json.loads(Path(notebook).read_text(encoding="utf-8"))
    return data.get("cells", [])


def _source(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


#: words after which a number names a place (``§4.3``, ``Thm. 3.7``, ``Table 4.1``, ``WordNet 3.0``), not a value
_REFERENCE = re.compile(r"(?:§|\b(?:Thm|Theorem|Cor|Corollary|Def|Definition|Lemma|Prop|Proposition|Eq|Eqs|"
                        r"Equation|Table|Tables|Tab|Fig|Figs|Figure|Figures|App|Appendix|Sec|Section|Sections|"
                        r"Remark|Alg|Algorithm|WordNet|arXiv|version|v))\.?:?\s*$")
#: the second end of a range of places: ``§3.1–3.4``, ``Thm. 3.7–3.8``
_REFERENCE_RANGE = re.compile(r"\d+(?:\.\d+)*\s*[–-]\s*$")


def _is_reference(text: str, start: int) -> bool:
    """The number starting at ``start`` names a place in a paper (a section, theorem, table, version)."""
    before = text[max(0, start - 30):start]
    if _REFERENCE.search(before):
        return True
    m = _REFERENCE_RANGE.search(before)
    return bool(m) and _is_reference(text, start - len(before) + m.start())


def _glued(text: str, start: int, end: int) -> bool:
    """Part of a name such as ``Llama-3.2-3B`` or ``e5-1.5``: a letter-hyphen before it or a hyphen-letter after."""
    return (start >= 2 and text[start - 1] in "-–" and text[start - 2].isalnum()) or \
        (end + 1 < len(text) and text[end] in "-–" and text[end + 1].isalnum())


def markdown_numbers(notebook: Path | dict) -> list[TypedNumber]:
    """Every decimal number typed in the notebook's markdown cells (index = the cell's position), except those
    that name a place (``§4.3``, ``Thm. 3.7``, ``WordNet 3.0``) or are part of a name (``Llama-3.2-3B``)."""
    out = []
    for index, cell in enumerate(_cells(notebook)):
        if cell.get("cell_type") != "markdown":
            continue
        text = _source(cell)
        for m in _NUMBER.finditer(text):
            if _is_reference(text, m.start()) or _glued(text, m.start(), m.end("frac")):
                continue
            integer = m.group("int").replace(",", "")
            frac = m.group("frac")
            value = float(f"{integer}.{frac}")
            if m.group("sign"):
                value = -value
            start, end = max(0, m.start() - 40), min(len(text), m.end() + 40)
            context = " ".join(text[start:end].split())
            out.append(TypedNumber(index, m.group(0).strip(), value, len(frac), bool(m.group("pct")), context))
    return out


def _numbers(value: Any) -> Iterator[float]:
    """Every finite number in a nested structure of numbers, lists and dicts (booleans are not numbers)."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float)):
        if math.isfinite(value):
            yield float(value)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _numbers(v)


def _text_numbers(text: Any) -> Iterator[tuple[str, float]]:
    if not isinstance(text, str):
        return
    for m in _ANY_NUMBER.finditer(text):
        raw = m.group(0).replace("−", "-")
        try:
            yield m.group(0), float(raw)
        except ValueError:  # pragma: no cover - the pattern only matches numbers
            continue


def ledger_results(ledger: Path | dict) -> list[Result]:
    """Every numeric result of a ledger (see the module docstring for which fields count)."""
    data = ledger if isinstance(ledger, dict) else json.loads(Path(ledger).read_text(encoding="utf-8"))
    out = []
    for claim in data.get("claims", []):
        cid = claim.get("id", "?")
        out += [Result(cid, "ours", v) for v in _numbers(claim.get("ours"))]
        stats = claim.get("stats") or {}
        for field in _STAT_FIELDS:
            out += [Result(cid, field, v) for v in _numbers(stats.get(field))]
        out += [Result(cid, "note", v) for raw, v in _text_numbers(claim.get("note")) if "." in raw]
    return out


def registered_numbers(ledger: Path | dict) -> set[str]:
    """The numbers a ledger fixes before any run: the paper's (each claim's ``paper_value``, the numbers in its
    statement and in its ``source``) and the thresholds of its ``criterion``, as typed strings, so that a markdown
    cell citing them is not taken for a result."""
    data = ledger if isinstance(ledger, dict) else json.loads(Path(ledger).read_text(encoding="utf-8"))
    out: set[str] = set()
    for claim in data.get("claims", []):
        for v in _numbers(claim.get("paper_value")):
            out.add(_canonical(repr(v)))
        for field in ("claim", "source", "criterion"):
            out.update(_canonical(raw) for raw, _ in _text_numbers(claim.get(field)))
        for raw, _ in _text_numbers(claim.get("paper_value") if isinstance(claim.get("paper_value"), str) else None):
            out.add(_canonical(raw))
    return out


def table_numbers(folder: Path) -> set[str]:
    """The numbers of a paper's transcribed tables (``data/<paper>/*.csv`` but the coverage map and the statements
    file), as typed strings (:func:`_canonical`): a markdown cell citing one of them cites the paper."""
    out: set[str] = set()
    for path in sorted(Path(folder).glob("*.csv")):
        if path.name in ("coverage.csv", "statements.csv"):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                out.update(_canonical(raw) for raw, _ in _text_numbers(line))
    return out


def _canonical(text: str) -> str:
    """``-0.810`` and ``0.81`` and ``−0.81`` -> ``0.81``: a number's digits without sign or trailing zeros."""
    t = text.strip().lstrip("-−–").replace(",", "").rstrip("%").strip()
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    return t.lstrip("0") or "0"


def _matches(typed: TypedNumber, value: float) -> bool:
    """``value`` rounds to ``typed`` at the typed precision (sign ignored; per cent when ``%`` follows)."""
    target = abs(typed.value)
    half = 0.5 * 10 ** (-typed.decimals)
    candidates = [abs(value)]
    if typed.percent:
        candidates.append(abs(value) * 100)
    return any(abs(c - target) <= half * (1 + 1e-9) + 1e-12 for c in candidates)


def typed_results(notebook: Path | dict, ledger: Path | dict, paper: Iterable[str] = (), min_significant: int = 2,
                  name: str | None = None) -> list[Finding]:
    """Every number typed in ``notebook``'s markdown cells that matches a numeric result of ``ledger`` at the
    precision it is typed (module docstring): one finding per typed number (the first result it matches).

    ``paper``: more of the paper's numbers, as typed (:func:`table_numbers`), besides those the ledger cites."""
    results = ledger_results(ledger)
    cited = registered_numbers(ledger) | {_canonical(p) for p in paper}
    label = name or (Path(notebook).stem if not isinstance(notebook, dict) else "notebook")
    findings = []
    for typed in markdown_numbers(notebook):
        if typed.significant_digits < min_significant or _canonical(typed.text) in cited:
            continue
        hit = next((r for r in results if _matches(typed, r.value)), None)
        if hit is not None:
            findings.append(Finding(label, typed.cell, typed.text, typed.context, hit.claim, hit.field, hit.value))
    return findings


def ledger_of(notebook: Path, root: Path) -> Path:
    """The committed ledger of a notebook of the checkout ``root``: ``results/<paper>/<notebook>.json``, the paper
    whose notebook folder holds it (:func:`companion.publish.notebooks.paper_of`)."""
    return Path(root) / "results" / paper_of(notebook) / f"{Path(notebook).stem}.json"


def notebook_pairs(root: Path) -> Iterable[tuple[Path, Path]]:
    """(notebook, ledger) for every committed notebook with a ledger under ``root`` (a checkout): the notebooks of
    ``notebooks/<folder>/`` with the ledgers of ``results/<paper>/``, the paper whose folder that is."""
    for notebook in sorted((root / "notebooks").glob("*/*.ipynb")):
        ledger = ledger_of(notebook, root)
        if ledger.exists():
            yield notebook, ledger


def notebook_findings(notebook: Path, root: Path) -> list[Finding]:
    """The findings of one stored notebook of the checkout ``root`` against its committed ledger (none when it has
    no ledger): what ``python -m companion notebooks clean --check`` and ``site --check`` report, one line each."""
    notebook, root = Path(notebook), Path(root)
    ledger = ledger_of(notebook, root)
    if not ledger.exists():
        return []
    return typed_results(notebook, ledger, paper=cited_numbers(root, ledger.parent.name),
                         name=f"{notebook.parent.name}/{notebook.stem}")


def cited_numbers(root: Path, paper: str) -> set[str]:
    """The paper numbers a notebook of ``paper`` may cite besides those its ledger names: its paper's transcribed
    tables (none for a notebook that reads several papers, whose ledger names the numbers it cites)."""
    folder = Path(root) / "data" / paper
    return table_numbers(folder) if folder.is_dir() else set()


def check(root: Path) -> list[Finding]:
    """The findings of every committed notebook under ``root``."""
    root = Path(root)
    return [f for notebook, _ in notebook_pairs(root) for f in notebook_findings(notebook, root)]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path.cwd()
    findings = check(root)
    for finding in findings:
        print(finding)
    print(f"{len(findings)} typed result number(s) in the markdown of {root}")
    return 1 if findings else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
