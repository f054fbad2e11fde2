"""Numbers as a paper prints them: is a number printed in a block of a paper's text, which numbers a claimed
paper value holds, and the arithmetic of a derived source (``Table 4: 86.26 - 85.28``).

:func:`printed` answers "is this number printed in that block (:func:`companion.papers.text.locate`), exactly as
printed once the escaping is undone":

* candidates are the number's shortest decimal form, the same padded with zeros up to four decimals (JSON drops
  ``86.20``'s zero), an ``e``-notation for very small or large numbers and a ``1,000``-style form;
* in the plain and markdown texts (and in the captions and prose of the HTML texts) a match must stand alone: no
  digit, and no ``.`` followed by a digit, on either side (``0.74`` is not in ``10.745``; ``4`` is not in
  ``4,000``); inside the run-together table bodies of the HTML texts any substring match counts (there is no
  separator to test, which makes those checks weaker);
* signs: a negative value matches ``-0.114`` or ``−0.114`` (a hyphen counts as a minus only where it does not join
  two words or numbers, so ``0-1`` and ``layer-12`` carry no sign), or its magnitude where the text states a decrease
  just before it (``drops by 0.114``, ``lower``, ``reduces``, ``degrades``, ...). A positive value never matches a
  number the text prints with a minus sign.

:func:`numbers_in` lists the numbers a value holds (a number, a list or dict of them, or the numbers written in a
text); :func:`evaluate` computes a derived source's expression with its inputs, and :func:`equals_derived` says
whether a paper value is that result as the paper would print it.
"""

from __future__ import annotations

import ast
import math
import re
from decimal import Decimal

from companion.papers.text import locate

_MINUS = "−"  # U+2212, as some extractions print a minus sign


# ----------------------------------------------------------------------------------------------------------------
# Numbers
# ----------------------------------------------------------------------------------------------------------------

_DECREASE = re.compile(
    r"(?i)\b(drop\w*|decreas\w*|fall\w*|fell|lower\w*|reduc\w*|declin\w*|degrad\w*|los[est]\w*|worse\w*|minus|"
    r"behind|shrink\w*|diminish\w*)\b[^.;:\d]{0,40}$"
)


def _plain_decimal(x: float) -> str:
    s = format(Decimal(repr(float(x))), "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s or "0"


def _candidates(value: float | int | str) -> set[str]:
    """Printed forms of ``|value|``: shortest decimal, padded to 4 decimals, e-notation, thousands separators."""
    literal = None
    if isinstance(value, str):
        literal = value.strip().lstrip("+-−").replace(" ", "")
        value = _to_number(value)
        if value is None:
            return {literal} if literal else set()
    x = abs(value)
    out: set[str] = set()
    if literal:
        out.add(literal)
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        base = str(int(x))
        out.add(base)
        if int(x) >= 1000:
            out.add(f"{int(x):,}")
        out.update(base + "." + "0" * k for k in range(1, 5))
    else:
        base = _plain_decimal(x)
        out.add(base)
        whole, _, frac = base.partition(".")
        for k in range(len(frac) + 1, 5):
            out.add(base + "0" * (k - len(frac)))
        if int(whole) >= 1000:
            out.add(f"{int(whole):,}.{frac}")
        if whole == "0":
            out.add("." + frac)
    if x and (x < 1e-3 or x >= 1e5):
        mant, _, exp = f"{x:e}".partition("e")
        mant = mant.rstrip("0").rstrip(".")
        e = int(exp)
        for m_ in {mant, f"{float(mant):g}"}:
            out.update({f"{m_}e{e}", f"{m_}e{e:+d}", f"{m_}e{'-' if e < 0 else ''}{abs(e):02d}", f"{m_}E{e}"})
    return {c for c in out if c}


def _to_number(s: str) -> float | int | None:
    t = s.strip().replace(_MINUS, "-").replace(",", "")
    t = re.sub(r"\s*(%|°|[KkM])$", "", t)
    try:
        if re.fullmatch(r"[+-]?\d+", t):
            return int(t)
        v = float(t)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _is_minus_at(text: str, i: int) -> bool:
    """Is there a minus sign right before offset ``i`` (a '−', or a '-' that does not join two words/numbers)?"""
    j = i - 1
    while j >= 0 and text[j] in "+":
        j -= 1
    if j < 0:
        return False
    if text[j] == _MINUS:
        return True
    if text[j] == "-":
        k = j - 1
        if k >= 0 and text[k].isalpha() and re.search(r"\\[A-Za-z]+$", text[max(0, k - 20): j]):
            return True  # a LaTeX command before the sign: "\approx-0.111"
        return k < 0 or not (text[k].isalnum() or text[k] in ")]}")
    return False


def _find_all(text: str, cand: str, unbounded: bool):
    start = 0
    while True:
        i = text.find(cand, start)
        if i < 0:
            return
        j = i + len(cand)
        start = i + 1
        if not unbounded:
            before = text[i - 1] if i > 0 else ""
            after = text[j] if j < len(text) else ""
            if before.isdigit() or (before == "." and i > 1 and text[i - 2].isdigit()):
                continue
            if before == "," and i > 1 and text[i - 2].isdigit() and re.fullmatch(r"\d{3}", cand.split(".")[0]):
                continue
            if after.isdigit() or (after in ".," and j + 1 < len(text) and text[j + 1].isdigit()):
                if not (after == "," and not re.match(r",\d{3}(?!\d)", text[j:])):
                    continue
            if cand[0] == "." and before.isdigit():
                continue
        yield i


def printed_in(text: str, value: float | int | str, *, unbounded: bool = False) -> bool:
    """Is ``value`` printed in ``text`` (already unescaped)? See the module docstring for the rules."""
    num = _to_number(value) if isinstance(value, str) else value
    negative = (num is not None and num < 0) or (isinstance(value, str) and value.strip().startswith(("-", _MINUS)))
    for cand in sorted(_candidates(value), key=len, reverse=True):
        for i in _find_all(text, cand, unbounded):
            minus = _is_minus_at(text, i)
            if negative:
                if minus or _DECREASE.search(text[max(0, i - 60): i]):
                    return True
            elif not minus:
                return True
    return False


def printed(paper: str, source: str, value: float | int | str) -> bool:
    """Is the number ``value`` printed in the block ``source`` names? ``KeyError`` if the block is not found."""
    blk = locate(paper, source)
    return any(printed_in(text, value, unbounded=unb) for text, unb in blk.parts())


_REFERENCE = re.compile(
    r"(?:Tables?|Figures?|Figs?\.|Sections?|Sec\.|§|Eqs?\.|Equations?|Theorems?|Thm\.?|Lemmas?|Corollar(?:y|ies)|"
    r"Cor\.|Propositions?|Prop\.|Definitions?|Appendix|App\.|Algorithm)\s*˜?\s*"
    r"(?:[A-Z](?:\.\d+)*\b|\d+(?:\.\d+)*)(?:\s*(?:,|and|&|–|-)\s*(?:[A-Z](?:\.\d+)*\b|\d+(?:\.\d+)*))*"
)
_TEXT_NUMBER = re.compile(r"[+\-−]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][+\-−]?\d+)?")


def _text_numbers(s: str) -> list[float | int]:
    s = _REFERENCE.sub(" ", s)
    out: list[float | int] = []
    for m in _TEXT_NUMBER.finditer(s):
        tok = m.group(0)
        i, j = m.start(), m.end()
        digits_at = i + (1 if tok[0] in "+-−" else 0)
        before = s[digits_at - 1] if digits_at > 0 else ""
        after = s[j] if j < len(s) else ""
        if before.isalpha() or (before and before in "@_") or after.isalpha() or after == "_":
            continue  # part of a name: B1, STS12, R@10, Qwen3, 4B, v2, 64min
        if before == "-" and digits_at > 1 and s[digits_at - 2].isalnum():
            tok = tok.lstrip("-")  # Llama-3.2, 0-1: a joining hyphen, not a sign
            if s[digits_at - 2].isalpha():
                continue
        if tok[0] in "+-−" and digits_at > 0 and not _is_minus_at(s, digits_at) and tok[0] != "+":
            tok = tok[1:]
        n = _to_number(tok)
        if n is not None:
            out.append(n)
    return out


def numbers_in(value, *, text: bool = True) -> list[float | int]:
    """The numbers a ``paper_value`` holds: a number; the values of a list or dict (not its keys); the numbers
    written in a text (``"all 6 > pretrained"`` holds 6), leaving out digits that belong to names (``B1``,
    ``STS12``, ``Qwen3-4B``, ``R@10``) and to references (``Table 7``, ``§4.2``). ``text=False`` skips text
    values (a qualitative statement whose digits are not paper numbers). Booleans and ``None`` hold none."""
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value] if math.isfinite(value) else []
    if isinstance(value, str):
        return _text_numbers(value) if text else []
    if isinstance(value, dict):
        return [n for v in value.values() for n in numbers_in(v, text=text)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in numbers_in(v, text=text)]
    return []


# ----------------------------------------------------------------------------------------------------------------
# Derived values
# ----------------------------------------------------------------------------------------------------------------


def evaluate(expression: str) -> tuple[float, list[tuple[str, float]]]:
    """Evaluate ``+ - * /`` arithmetic with parentheses (``−`` allowed) safely; also return the inputs as
    ``(literal, value)`` pairs (a unary minus in front of a number belongs to that input)."""
    expr = expression.replace(_MINUS, "-").replace("×", "*").replace("÷", "/").strip()
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not an arithmetic expression: {expression!r}") from exc
    inputs: list[tuple[str, float]] = []

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            lit = ast.get_source_segment(expr, node) or repr(node.value)
            inputs.append((lit, float(node.value)))
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            if isinstance(node.operand, ast.Constant) and isinstance(node.op, ast.USub):
                v = ev(node.operand)
                lit, _ = inputs.pop()
                inputs.append(("-" + lit, -v))
                return -v
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if b == 0:
                raise ValueError(f"division by zero in {expression!r}")
            return a / b
        raise ValueError(f"only numbers, + - * / and parentheses are allowed: {expression!r}")

    return ev(tree), inputs


def printed_decimals(literal: str) -> int:
    """The number of decimals a literal prints (``"86.26"`` -> 2, ``"3"`` -> 0)."""
    m = re.search(r"\.(\d+)", literal)
    return len(m.group(1)) if m else 0


def equals_derived(paper_value: float, derived: float, decimals: int) -> bool:
    """``paper_value`` equals ``derived`` within relative 1e-6 or absolute 5e-4, or is ``derived`` rounded to the
    paper_value's own number of decimals when that is at least the inputs' printed precision ``decimals``."""
    if abs(paper_value - derived) <= max(1e-6 * abs(derived), 5e-4):
        return True
    own = printed_decimals(_plain_decimal(paper_value))
    return own >= decimals and abs(round(derived, own) - paper_value) <= 1e-9 * max(1.0, abs(paper_value))
