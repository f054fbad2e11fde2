"""The sentence sweep's tests: a comparative or universal sentence of a paper, written as a computation on the
cells of the paper's own transcribed tables (``data/<paper>/*.csv``, every cell as printed), with a verdict.

The kinds of test (the ``test`` column of ``data/<paper>/sentences.csv``):

**order** — ``<file>: <lhs> <op> <rhs> @ <columns> [; option]...`` (the ``@`` between spaces: a column may be
``R@10``)

* ``<lhs>`` is ``{<selector>}``, or ``max{...}``, ``min{...}``, ``mean{...}`` (the rows' cells folded to one value
  per column), or ``next{...}`` (the rows printed right after the selected ones: a "+ angle" row under its
  original); ``<rhs>`` the same, or ``rest`` (every other row of the group: "best", "outperforms every other"), or
  ``previous`` (each left row against the row printed right before it: a variant against its original), or a
  number (a bound the sentence states: ``p < 0.001``);
* a selector is ``key=value`` conditions joined by ``&``, a condition ``key=v1|v2`` (one of) or ``key!=v`` (not
  ``v``); ``{}`` is every row;
* ``<op>`` is ``>``, ``<``, ``>=`` or ``<=``; ``<columns>`` the columns compared, separated by commas;
* options: ``where <selector>`` (the rows considered), ``for <col>[, <col>...]`` (compare within each group of rows
  that share these columns' values: each backbone, each head), ``at least <n>`` or ``most`` (the pairs that must
  hold: default every pair; ``most``: more than half).

Every cell of the left side is put against every cell of the right side, column by column and group by group (one
*pair* each). Cells that print no number (``N/A``, empty) are left out and named.

**expr** — ``expr: <comparison> [and <comparison>]...``, where each side is arithmetic (``+ - * /``, parentheses,
numbers) over cells written ``[<file>: <selector> @ <column>]`` (the selector must name one row): a stated
difference of gains, a ratio. Each comparison is one pair.

**share** — ``share: <file>: {<part>} of {<within>} <op> <number>``: the share of the rows of ``<within>`` that
``<part>`` selects ("most models use ...": ``> 0.5``). One pair.

**columns** — ``columns: <file>: <column> <op> <column>, <column>... [; where <selector>]``: within every row,
one column against each of the others (a data set against two others, English against three languages).

**corr** — ``corr: <file>: <column> ~ <column> <op> <number> [; where <selector>]``: Pearson's correlation of two
columns over the rows, at the printed values, against a number ("a negative correlation": ``< 0``). One pair.

Several tests joined by ``&&`` make one: contradicted when one of them is, else not checkable when one is.

**Verdicts.** Cells are compared as printed (a print is the paper's statement of its number). A pair *holds*,
*ties* (equal prints: the print cannot order them) or *fails*. The test is ``consistent`` when at least the
required number of pairs hold, ``contradicted`` when even the ties cannot make up the number, and ``not checkable``
(ties) in between.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from companion.papers.synthesis.audit_book import Book, table_name
from companion.papers.synthesis.audit_rules import format_recomputed, printed

__all__ = ["Pair", "Result", "label_columns", "parse_selector", "run_test", "select"]

OPS = {">": lambda a, b: a > b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b}
AGGREGATES = ("max", "min", "mean")


@dataclass(frozen=True)
class Pair:
    """One comparison of a test: the two sides as shown (``Table 2 [SBERT, Avg.] = 74.89``), and its outcome
    (``holds``, ``ties`` or ``fails``)."""

    a: str
    b: str
    op: str
    outcome: str

    def __str__(self) -> str:
        sign = {"holds": self.op, "ties": "=", "fails": _NEGATE[self.op]}[self.outcome]
        return f"{self.a} {sign} {self.b}"


_NEGATE = {">": "<=", "<": ">=", ">=": "<", "<=": ">"}


@dataclass
class Result:
    """What a test computed: its pairs, how many must hold, the cells it read (``(file, source, printed)``, for
    the check against the paper text) and the cells it left out (not printed numbers)."""

    pairs: list[Pair]
    need: int
    read: list[tuple[str, str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    parts: list[Result] = field(default_factory=list)  # the tests joined by ``&&``, each with its own number

    @property
    def verdict(self) -> str:
        if self.parts:
            verdicts = [p.verdict for p in self.parts]
            return next((v for v in ("contradicted", "not checkable") if v in verdicts), "consistent")
        hold = sum(p.outcome == "holds" for p in self.pairs)
        tie = sum(p.outcome == "ties" for p in self.pairs)
        if hold >= self.need:
            return "consistent"
        return "not checkable" if hold + tie >= self.need else "contradicted"

    @property
    def detail(self) -> str:
        if self.parts:
            return " && ".join(p.detail for p in self.parts)
        hold = sum(p.outcome == "holds" for p in self.pairs)
        n = len(self.pairs)
        need = "every pair" if self.need == n else f"{self.need} needed"
        out = f"{hold} of {n} pair(s) hold ({need})"
        off = [str(p) for p in self.pairs if p.outcome != "holds"]
        if off:
            out += "; not holding: " + "; ".join(off)
        if self.skipped:
            out += "; left out (no printed number): " + ", ".join(self.skipped)
        return out

    @property
    def cells(self) -> list[str]:
        """The pairs as shown (every one, holding or not)."""
        return [str(p) for p in self.pairs]


# --------------------------------------------------------------------------------------------------- selectors
def parse_selector(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """``model=SBERT|CoSENT-BERT&group!=Unsupervised Models`` -> ``[(key, "=" or "!=", values), ...]``."""
    text = text.strip()
    if not text:
        return []
    out = []
    for part in text.split("&"):
        m = re.fullmatch(r"\s*([^=!]+?)\s*(!=|=)\s*(.*?)\s*", part)
        if not m:
            raise ValueError(f"not a condition: {part!r} (key=value, key=v1|v2 or key!=value)")
        out.append((m.group(1), m.group(2), tuple(v.strip() for v in m.group(3).split("|"))))
    return out


def select(frame, selector: list[tuple[str, str, tuple[str, ...]]]):
    """The rows of ``frame`` that meet every condition of ``selector``."""
    mask = [True] * len(frame)
    for key, op, values in selector:
        if key not in frame.columns:
            raise KeyError(f"no column {key!r} (columns: {', '.join(frame.columns)})")
        hit = frame[key].isin(values).tolist()
        mask = [m and (h if op == "=" else not h) for m, h in zip(mask, hit)]
    return frame[mask]


def _label(row, keys: list[str]) -> str:
    return " · ".join(str(row[k]) for k in keys if str(row[k]).strip())


_NOT_LABELS = ("source", "note", "mark", "underlined")


def label_columns(frame, compared=()) -> list[str]:
    """The columns that name a row: those not compared, not a note, source or mark, whose cells are not all
    printed numbers (``group``, ``model``; a long table's ``row`` and ``column``)."""
    return [c for c in frame.columns if c not in (*compared, *_NOT_LABELS) and not c.startswith("our_")
            and not any(printed(v) is not None for v in frame[c])]


# ----------------------------------------------------------------------------------------------------- order
_SIDE = re.compile(r"\s*(?:(max|min|mean|next)?\{([^{}]*)\}|(rest|previous)|(-?\d+(?:\.\d+)?))\s*")


@dataclass(frozen=True)
class _Side:
    aggregate: str | None  # max, min, mean; "next": the rows printed right after the selected ones
    selector: list | None  # None: rest, previous or a number
    previous: bool = False
    number: str | None = None  # a bound stated in the sentence (p < 0.001)

    @classmethod
    def parse(cls, text: str, *, rest: bool) -> _Side:
        m = _SIDE.fullmatch(text)
        if not m or ((m.group(3) or m.group(4)) and not rest):
            raise ValueError(f"not a side: {text!r} ({{selector}}, max{{...}}, min{{...}}, mean{{...}}, next{{...}}"
                             + (", rest, previous or a number" if rest else "") + ")")
        if m.group(4):
            return cls(None, None, number=m.group(4))
        if m.group(3):
            return cls(None, None, m.group(3) == "previous")
        return cls(m.group(1), parse_selector(m.group(2)))

    def rows(self, sub, full):
        """The rows of ``sub`` this side selects (``full``: the whole table, for ``next``)."""
        chosen = select(full if self.aggregate == "next" else sub, self.selector)
        if self.aggregate == "next":
            after = [full.index[full.index.get_loc(i) + 1] for i in chosen.index if full.index.get_loc(i) + 1 < len(full)]
            return sub[sub.index.isin(after)]
        return chosen


def _values(rows, col: str, file: str, keys: list[str], read: list, skipped: list):
    """``(shown, Decimal)`` of every printed number of ``rows`` in ``col``."""
    out = []
    for _, r in rows.iterrows():
        cell = r[col]
        label = f"{table_name(file)} [{_label(r, keys) or '-'}, {col}]"
        p = printed(cell)
        if p is None:
            skipped.append(f"{label} = {cell or 'empty'}")
            continue
        read.append((file, str(r.get("source", "")), str(cell)))
        out.append((f"{label} = {cell}", p.value))
    return out


def _fold(values, aggregate: str | None):
    if aggregate is None or not values:
        return values
    if aggregate == "mean":
        mean = sum(v for _, v in values) / len(values)
        names = ", ".join(s.split(" = ")[0] for s, _ in values)
        return [(f"mean of {names} = {format_recomputed(mean)}", mean)]
    pick = max if aggregate == "max" else min
    return [pick(values, key=lambda sv: sv[1])]


def _compare(a: Decimal, b: Decimal, op: str) -> str:
    if OPS[op](a, b):
        return "holds"
    return "ties" if a == b else "fails"


def run_order(spec: str, book: Book, paper: str) -> Result:
    """An ``order`` test (module docstring) on ``paper``'s tables read through ``book``."""
    head, *options = [s.strip() for s in spec.split(";")]
    m = re.fullmatch(r"([\w.\-]+?)(?:\.csv)?\s*:\s*(.+?)\s*(>=|<=|>|<)\s*(.+?)\s+@\s+(.+)", head)
    if not m:
        raise ValueError(f"not an order test: {head!r} (<file>: <lhs> <op> <rhs> @ <columns>)")
    file = f"{m.group(1)}.csv"
    lhs, op, rhs = _Side.parse(m.group(2), rest=False), m.group(3), _Side.parse(m.group(4), rest=True)
    cols = [c.strip() for c in m.group(5).split(",")]
    where, groups, need = [], [], None
    for opt in options:
        if opt.startswith("where "):
            where = parse_selector(opt[6:])
        elif opt.startswith("for "):
            groups = [c.strip() for c in opt[4:].split(",")]
        elif re.fullmatch(r"at least \d+", opt):
            need = int(opt.split()[-1])
        elif opt == "most":
            need = "most"
        else:
            raise ValueError(f"unknown option {opt!r} (where, for, at least <n>, most)")
    frame = select(book.table(paper, file), where)
    for c in [*cols, *groups]:
        if c not in frame.columns:
            raise KeyError(f"{paper}/{file}: no column {c!r}")
    keys = label_columns(frame, cols)
    result = Result([], 0)
    parts = frame.groupby(groups, sort=False) if groups else [(None, frame)]
    full = book.table(paper, file)
    fold = {"aggregate": None} if lhs.aggregate == "next" else {"aggregate": lhs.aggregate}
    for _, sub in parts:
        left = lhs.rows(sub, full)
        if rhs.number is not None:  # every left cell against a stated bound
            for col in cols:
                a = _fold(_values(left, col, file, keys, result.read, result.skipped), fold["aggregate"])
                result.pairs += [Pair(sa, rhs.number, op, _compare(va, Decimal(rhs.number), op)) for sa, va in a]
            continue
        if rhs.previous:  # each left row against the row printed just before it
            pairs = [(left.loc[[i]], full.iloc[[full.index.get_loc(i) - 1]]) for i in left.index
                     if full.index.get_loc(i) > 0]
        else:
            right = sub.drop(left.index) if rhs.selector is None else rhs.rows(sub, full)
            pairs = [(left, right)]
        for lrows, rrows in pairs:
            if lrows.empty or rrows.empty:
                continue  # a group without both sides (Pretrained, which has no head) compares nothing
            for col in cols:
                a = _fold(_values(lrows, col, file, keys, result.read, result.skipped), fold["aggregate"])
                b = _fold(_values(rrows, col, file, keys, result.read, result.skipped), rhs.aggregate)
                result.pairs += [Pair(sa, sb, op, _compare(va, vb, op)) for sa, va in a for sb, vb in b]
    n = len(result.pairs)
    if not n:
        raise ValueError(f"{paper}/{file}: the test compares no printed cells ({head!r})")
    result.need = n if need is None else n // 2 + 1 if need == "most" else need
    return result


# ------------------------------------------------------------------------------------------------------ expr
_CELL = re.compile(r"\s*([\w.\-]+?)(?:\.csv)?\s*:\s*(.*)\s@\s+(.+?)\s*")  # the last " @ ": columns hold "R@10"


def _sub_cells(text: str, fn) -> str:
    """``text`` with every cell reference ``[<file>: <selector> @ <column>]`` replaced by ``fn(match)``; brackets
    inside a reference (a method printed as ``SimACE [*]``) are matched in pairs."""
    out, i = [], 0
    while i < len(text):
        if text[i] != "[":
            out.append(text[i])
            i += 1
            continue
        depth, j = 0, i
        while j < len(text):
            depth += {"[": 1, "]": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        m = _CELL.fullmatch(text[i + 1:j])
        if j >= len(text) or not m:
            raise ValueError(f"not a cell reference: {text[i:j + 1]!r} ([<file>: <selector> @ <column>])")
        out.append(fn(m))
        i = j + 1
    return "".join(out)


def run_expr(spec: str, book: Book, paper: str) -> Result:
    """An ``expr`` test (module docstring): each comparison of cell arithmetic, at the printed values."""
    body = spec.split(":", 1)[1] if spec.startswith("expr:") else spec
    result = Result([], 0)
    for comparison in re.split(r"\s+and\s+", body.strip()):
        names: dict[str, Decimal] = {}
        shown: dict[str, str] = {}

        def cell(m, names=names, shown=shown):
            file = f"{m.group(1)}.csv"
            rows = select(book.table(paper, file), parse_selector(m.group(2)))
            if len(rows) != 1:
                raise ValueError(f"{paper}/{file}: {len(rows)} rows match {m.group(2)!r} (need one)")
            r = rows.iloc[0]
            col = m.group(3)
            p = printed(r[col])
            if p is None:
                raise ValueError(f"{paper}/{file}: [{m.group(2)}, {col}] = {r[col]!r} is not a printed number")
            result.read.append((file, str(r.get("source", "")), str(r[col])))
            var = f"v{len(names)}"
            names[var] = p.value
            shown[var] = f"{table_name(file)} [{_label(r, label_columns(book.table(paper, file), [col]))}, {col}]"
            return var

        text = _sub_cells(comparison, cell)
        m = re.fullmatch(r"(.+?)\s*(>=|<=|>|<)\s*(.+)", text)
        if not m or not re.fullmatch(r"[v\d\s.+\-*/()]+", m.group(1) + m.group(3)):
            raise ValueError(f"not a comparison of cell arithmetic: {comparison!r}")
        scope = {"__builtins__": {}, **names}
        lit = re.compile(r"(?<![v\d.])(\d+(?:\.\d+)?)")
        a = eval(lit.sub(r"D('\1')", m.group(1)), scope | {"D": Decimal})  # noqa: S307 - digits, v-names, + - * / ( )
        b = eval(lit.sub(r"D('\1')", m.group(3)), scope | {"D": Decimal})  # noqa: S307

        def show(side, value, shown=shown):
            for var, label in shown.items():
                side = re.sub(rf"\b{var}\b", label, side)
            return f"{side} = {format_recomputed(value)}"

        result.pairs.append(Pair(show(m.group(1), a), show(m.group(3), b), m.group(2), _compare(a, b, m.group(2))))
    result.need = len(result.pairs)
    return result


# ----------------------------------------------------------------------------------------------------- share
def run_share(spec: str, book: Book, paper: str) -> Result:
    """A ``share`` test (module docstring): the share of the rows of ``{within}`` that ``{part}`` selects against a
    number. Rows are counted, not cells: nothing is printed but the rows' labels."""
    m = re.fullmatch(r"share:\s*([\w.\-]+?)(?:\.csv)?\s*:\s*\{([^{}]*)\}\s+of\s+\{([^{}]*)\}\s*(>=|<=|>|<)\s*([\d.]+)",
                     spec.strip())
    if not m:
        raise ValueError(f"not a share test: {spec!r} (share: <file>: {{part}} of {{within}} <op> <number>)")
    file = f"{m.group(1)}.csv"
    within = select(book.table(paper, file), parse_selector(m.group(3)))
    part = select(within, parse_selector(m.group(2)))
    if within.empty:
        raise ValueError(f"{paper}/{file}: {{{m.group(3)}}} selects no row")
    share, bound = Decimal(len(part)) / Decimal(len(within)), Decimal(m.group(5))
    a = f"{table_name(file)}: {len(part)} of {len(within)} rows {{{m.group(2)}}} = {format_recomputed(share)}"
    outcome = "holds" if OPS[m.group(4)](share, bound) else "fails"  # a count is exact: equal is not a tie of prints
    return Result([Pair(a, m.group(5), m.group(4), outcome)], 1)


# --------------------------------------------------------------------------------------------------- columns
def _where_only(options: list[str], kind: str) -> list:
    """The selector of a test whose only option is ``where <selector>`` (the last one given wins); any other
    option is an error naming the test ``kind``."""
    where = []
    for opt in options:
        if not opt.startswith("where "):
            raise ValueError(f"unknown option {opt!r} of a {kind} test (where)")
        where = parse_selector(opt[6:])
    return where


def run_columns(spec: str, book: Book, paper: str) -> Result:
    """A ``columns`` test (module docstring): within each row, one column against others."""
    head, *options = [s.strip() for s in spec.split(";")]
    m = re.fullmatch(r"columns:\s*([\w.\-]+?)(?:\.csv)?\s*:\s*(.+?)\s*(>=|<=|>|<)\s*(.+)", head)
    if not m:
        raise ValueError(f"not a columns test: {head!r} (columns: <file>: <column> <op> <column>, ...)")
    file, op = f"{m.group(1)}.csv", m.group(3)
    left, right = m.group(2).strip(), [c.strip() for c in m.group(4).split(",")]
    where = _where_only(options, "columns")
    frame = select(book.table(paper, file), where)
    keys = label_columns(frame, [left, *right])
    result = Result([], 0)
    for _, r in frame.iterrows():
        row = frame.loc[[r.name]]
        a = _values(row, left, file, keys, result.read, result.skipped)
        for col in right:
            b = _values(row, col, file, keys, result.read, result.skipped)
            result.pairs += [Pair(sa, sb, op, _compare(va, vb, op)) for sa, va in a for sb, vb in b]
    if not result.pairs:
        raise ValueError(f"{paper}/{file}: the test compares no printed cells ({head!r})")
    result.need = len(result.pairs)
    return result


# ------------------------------------------------------------------------------------------------------ corr
def run_corr(spec: str, book: Book, paper: str) -> Result:
    """A ``corr`` test (module docstring): Pearson's correlation of two columns over the selected rows, at the
    printed values, against a number."""
    head, *options = [s.strip() for s in spec.split(";")]
    m = re.fullmatch(r"corr:\s*([\w.\-]+?)(?:\.csv)?\s*:\s*(.+?)\s*~\s*(.+?)\s*(>=|<=|>|<)\s*(-?[\d.]+)", head)
    if not m:
        raise ValueError(f"not a corr test: {head!r} (corr: <file>: <column> ~ <column> <op> <number>)")
    file, x_col, y_col, op = f"{m.group(1)}.csv", m.group(2), m.group(3), m.group(4)
    where = _where_only(options, "corr")
    frame = select(book.table(paper, file), where)
    result = Result([], 1)
    xs, ys = [], []
    for _, r in frame.iterrows():
        px, py = printed(r[x_col]), printed(r[y_col])
        if px is None or py is None:
            result.skipped.append(f"{table_name(file)} [{_label(r, label_columns(frame, [x_col, y_col]))}]")
            continue
        xs.append(float(px.value))
        ys.append(float(py.value))
        result.read += [(file, str(r.get("source", "")), str(r[x_col])), (file, str(r.get("source", "")), str(r[y_col]))]
    if len(xs) < 3:
        raise ValueError(f"{paper}/{file}: fewer than three rows to correlate ({head!r})")
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    r = Decimal(repr(round(sxy / (sxx * syy) ** 0.5, 6)))
    shown = f"{table_name(file)}: Pearson r of {x_col} and {y_col} over {len(xs)} rows = {format_recomputed(r)}"
    result.pairs.append(Pair(shown, m.group(5), op, _compare(r, Decimal(m.group(5)), op)))
    return result


def run_test(spec: str, book: Book, paper: str) -> Result:
    """A test of ``paper``: ``order``, ``expr``, ``share``, ``columns`` or ``corr`` (the module docstring gives each
    form); several
    joined by ``&&`` are one test whose pairs are all of theirs; it is contradicted when one of them is, not checkable
    when one of them is and none is contradicted."""
    out = Result([], 0)
    for part in spec.split("&&"):
        part = part.strip()
        kind = part.split(":", 1)[0].strip()
        run = {"expr": run_expr, "share": run_share, "columns": run_columns, "corr": run_corr}.get(kind, run_order)
        res = run(part, book, paper)
        out.parts.append(res)
        out.pairs += res.pairs
        out.need += res.need
        out.read += res.read
        out.skipped += res.skipped
    return out if len(out.parts) > 1 else out.parts[0]
