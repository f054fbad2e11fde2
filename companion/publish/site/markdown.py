"""How Pandoc reads the markdown of a page or a notebook cell, checked offline
(:mod:`companion.publish.site.render` applies these checks to every page and notebook of the site).

* **Lists and paragraphs.** Pandoc's markdown needs a blank line before a list: a line starting with ``* ``,
  ``- ``, ``+ `` or ``1. `` directly after a line of running text is read as part of that paragraph and prints
  as ``… * … * …`` (:func:`list_problems`). Likewise a bold run-in heading (``**Fig 5a** — …``) on the line after a
  finished sentence joins the previous paragraph, and a multi-paragraph summary renders as one dense block
  (:func:`run_in_problems`). Both are checked in every markdown cell and page.
* **Anchors.** A link ``page.qmd#anchor`` or ``notebook.ipynb#anchor`` needs a heading (or an element) with that
  id in the target; Quarto's heading ids are Pandoc's auto-identifiers (:func:`pandoc_identifier`), explicit
  ``{#id}`` attributes and ``#| label:`` cell options (:func:`anchor_problems`).
* **Tables.** :func:`table_problems` lays each pipe table out as a browser would in the page's text column (about
  :data:`ARTICLE_CHARS` characters wide, :data:`FULL_CHARS` with ``page-layout: full``): Quarto applies the dash
  widths only to a table without links, its theme lets link text break anywhere (``.table a {word-break:
  break-word}``) unless the site's stylesheet says otherwise, and a browser shares the width beyond each column's
  longest word in proportion to its content. A table is reported when link text would break mid-word, when its
  longest words alone are wider than the column (it overflows), or when a column of running text gets fewer than
  :data:`CRAMPED_CHARS` characters, a third of its text or less (too many columns for the page). The widths are estimates in characters;
  an inline formula is one piece that cannot break, as wide as :func:`math_width` estimates. A page in a sidebar
  keeps the article's column even with ``page-layout: full`` (the docked sidebar and the page's table of contents
  leave it 749 px at 1400 px).
  A cell cut short (ending in ``…`` or ``...``: the rest cannot be read anywhere) is reported in pages and in
  notebooks' table outputs (:func:`truncation_problems`, :func:`html_truncation_problems`).
* **Formulas.** An inline formula with a space just inside a dollar sign (``$\vert x\vert $``) is not math to
  Pandoc: it prints as dollars and TeX (:func:`math_problems`).
* **Numbers.** No page or stored output may print a machine-length float (``0.2409999966621399``;
  :func:`number_problems`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from companion.publish.site import format as fmt
from companion.publish.site.common import links

ARTICLE_CHARS = 90  # characters per line of the text column, default layout, 1280-px window, docked sidebar
FULL_CHARS = 120  # the same with ``page-layout: full``
CELL_PADDING = 2  # 0.5rem either side of a table cell
CRAMPED_CHARS = 10  # a column of running text narrower than this reads one word per line
IMAGE_CHARS = 15  # an inline image (a Colab badge) in characters


# --------------------------------------------------------------------------------------------- markdown lines
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^( {0,3})([*+-]|\d{1,2}[.)])[ \t]+\S")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_RUN_IN = re.compile(r"^\*\*[^*\s][^*]*\*\*")


def prose_lines(markdown: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of the markdown outside YAML front matter, fenced code, display math and HTML
    comments; lines inside those are given as blank so that paragraphs stay apart."""
    out: list[tuple[int, str]] = []
    lines = markdown.split("\n")
    fence = None
    in_math = in_comment = False
    front = bool(lines) and lines[0].strip() == "---"
    for n, line in enumerate(lines, 1):
        stripped = line.strip()
        if front:
            front = not (n > 1 and stripped in ("---", "..."))
            out.append((n, ""))
            continue
        if fence:
            if stripped.startswith(fence) and stripped.strip(fence[0]) == "":
                fence = None
            out.append((n, ""))
            continue
        match = _FENCE.match(line)
        if match:
            fence = match.group(1)
            out.append((n, ""))
            continue
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            out.append((n, ""))
            continue
        if stripped.startswith("$$"):
            in_math = not (in_math or (len(stripped) > 2 and stripped.endswith("$$")))
            out.append((n, ""))
            continue
        out.append((n, "" if in_math else line))
    return out


def _blocks(markdown: str):
    """Yield ``(line number, line, previous line, previous line belongs to a list)`` for every non-blank prose
    line; the previous line is ``""`` when a blank line separates them."""
    prev = ""
    in_list = False  # the block (lines since the last blank one) is a list, or continues one
    for n, line in prose_lines(markdown):
        if not line.strip():
            prev = ""
            continue
        if not prev:
            item = bool(_LIST_ITEM.match(line)) and not _RULE.match(line)
            in_list = item or (in_list and line.startswith((" ", "\t")))
            yield n, line, "", False
        else:
            yield n, line, prev, in_list
        prev = line


def _opens_block(line: str) -> bool:
    """A line after which Pandoc starts a new block without a blank line (heading, fence, div, table, HTML)."""
    s = line.strip()
    return bool(_HEADING.match(line)) or s.startswith((":::", "|", "<", "```", "~~~")) or bool(_RULE.match(line))


def list_problems(markdown: str, label: str) -> list[str]:
    """Lines that start a list directly after running text: Pandoc reads them into that paragraph."""
    problems = []
    reported = 0  # the paragraph already reported (its later items are part of it too)
    for n, line, prev, prev_in_list in _blocks(markdown):
        if not prev:
            reported = 0
        elif reported:
            continue
        if prev and _LIST_ITEM.match(line) and not _RULE.match(line) and not prev_in_list \
                and not _LIST_ITEM.match(prev) and not _opens_block(prev):
            reported = n
            problems.append(f"{label}, line {n}: the list item {fmt.cut(line.strip(), 50)!r} follows running text "
                            "without a blank line; Pandoc runs the list into the paragraph")
    return problems


def run_in_problems(markdown: str, label: str) -> list[str]:
    """Bold run-in headings that open a line right after a finished sentence: meant as a new paragraph, rendered
    as the continuation of the previous one."""
    problems = []
    for n, line, prev, prev_in_list in _blocks(markdown):
        if prev and _RUN_IN.match(line) and not prev_in_list and not _LIST_ITEM.match(prev) \
                and not _opens_block(prev) and prev.rstrip().endswith((".", ":", "!", "?")):
            problems.append(f"{label}, line {n}: {fmt.cut(line.strip(), 40)!r} starts a new paragraph after a "
                            "finished sentence without a blank line; it renders as part of the previous paragraph")
    return problems


# --------------------------------------------------------------------------------------------- anchors
_ATTR_ID = re.compile(r"\{[^{}]*#([A-Za-z][\w:.-]*)[^{}]*\}")


_LABEL = re.compile(r"^#\|\s*label:\s*(\S+)\s*$", re.M)
_INLINE_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")


def _plain(text: str) -> str:
    """Heading text as Pandoc's ``stringify`` sees it: link and image text, code and math content, no markup."""
    text = re.sub(r"\[\^[^\]]*\]", "", text)  # footnote references
    text = _INLINE_LINK.sub(lambda m: m.group(1), text)
    text = _TAG.sub("", text)
    text = re.sub(r"\\(.)", r"\1", text)
    return text.replace("`", "").replace("*", "").replace("$", "")


def pandoc_identifier(heading: str) -> str:
    """Pandoc's auto-identifier of a heading (what Quarto uses as its id): markup removed, every character but
    letters, digits, ``_``, ``-`` and ``.`` dropped, spaces to hyphens, lower case, nothing before the first
    letter; ``section`` if nothing is left. Duplicates are numbered by :func:`heading_ids`."""
    text = _plain(heading).replace("---", "—").replace("--", "–").replace("...", "…")  # Pandoc's smart typography
    kept = "".join(c for c in text.lower() if c.isalnum() or c in "_-." or c.isspace())
    ident = "-".join(kept.split())
    start = next((i for i, c in enumerate(ident) if c.isalpha()), len(ident))
    return ident[start:] or "section"


def heading_ids(markdown: str) -> set[str]:
    """Every id a rendered page can link to: headings (explicit ``{#id}`` or Pandoc's auto-identifier, duplicates
    numbered ``-1``, ``-2`` as Pandoc does), ``{#id}`` attributes on divs and spans, ``#| label:`` options."""
    ids: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(markdown):
        match = _HEADING.match(line)
        if match:
            text = match.group(2)
            explicit = _ATTR_ID.search(text)
            if explicit and text.rstrip().endswith("}"):
                ids.add(explicit.group(1))
                continue
            ident = pandoc_identifier(re.sub(r"\{[^{}]*\}\s*$", "", text))
            if ident in seen:
                seen[ident] += 1
                ident = f"{ident}-{seen[ident]}"
            else:
                seen[ident] = 0
            ids.add(ident)
        else:
            ids.update(_ATTR_ID.findall(line))
    ids.update(_LABEL.findall(markdown))
    return ids


def anchor_problems(text: str, where: Path, root: Path, label: str, ids_of) -> list[str]:
    """Links in ``text`` (a file in folder ``where``) whose ``#anchor`` names no id in the target.

    ``ids_of(path)`` gives the ids of a page or notebook (``None`` when the file is not a page: not checked);
    a link to ``#anchor`` alone targets the page itself (``ids_of(None)``)."""
    problems = []
    for target in links(text):
        if target.startswith(("http://", "https://", "mailto:")) or "#" not in target:
            continue
        path, anchor = target.split("#", 1)
        anchor = unquote(anchor)
        resolved = (where / path.split("?", 1)[0]).resolve() if path else None
        if resolved is not None and not resolved.is_file():
            continue  # a missing file is reported by the link check
        ids = ids_of(resolved)
        if ids is not None and anchor not in ids:
            name = resolved.relative_to(root.resolve()).as_posix() if resolved else "this page"
            problems.append(f"{label}: link {target!r}: {name} has no heading or element with id {anchor!r}")
    return problems


# --------------------------------------------------------------------------------------------- formulas & numbers
_CODE_SPAN = re.compile(r"(`+).*?\1")


_INLINE_MATH = re.compile(r"(?<![$\\])\$(?!\$)([^$]+)\$(?!\$)")
_TEX = re.compile(r"\\[A-Za-z]+|[\^_{}]")

#: Rendered width of a formula per estimated symbol, in characters of running text: MathJax at 1400 px draws about
#: 10.5-11 px per symbol (a real render of the API pages, 222 formulas), the text column about 8.3 px per character.
MATH_CHAR_SCALE = 4 / 3
_TEX_SILENT = re.compile(r"\\(mathrm|operatorname|text|mathbf|mathit|mathcal|bar|hat|tilde|left|right|[bB]ig[lr]?|"
                         r"quad|[,;!])(?![A-Za-z])")
_TEX_OPERATOR = re.compile(r"(?<!\\)[=+<>]|\\(le|ge|leq|geq|neq|approx|in|to|cdot|times|pm|sim|propto)(?![A-Za-z])"
                           r"|(?<=\S)\s-\s")


def math_width(tex: str) -> int:
    """The width (characters of running text) of an inline formula as MathJax draws it; it cannot wrap (MathJax 3
    breaks no inline formula), so a table cell holding it is at least this wide. Commands count one symbol, those
    that only style their argument none, relations and binary operators their spacing too."""
    operators = len(_TEX_OPERATOR.findall(tex))
    symbols = re.sub(r"[\s{}^_]", "", re.sub(r"\\[A-Za-z]+", "x", _TEX_SILENT.sub("", tex)))
    return round((len(symbols) + 1.2 * operators) * MATH_CHAR_SCALE)


def math_problems(markdown: str, label: str) -> list[str]:
    """Inline formulas that Pandoc would not read as math: a space right after the opening or right before the
    closing dollar sign (text between two dollars of prices, without TeX, is not taken for a formula)."""
    problems = []
    for n, line in prose_lines(markdown):
        text = _CODE_SPAN.sub("", line.replace("\\$", ""))
        for match in _INLINE_MATH.finditer(text):
            inner = match.group(1)
            if inner != inner.strip() and _TEX.search(inner):
                problems.append(f"{label}, line {n}: the formula ${fmt.cut(inner.strip(), 50)}$ has a space just "
                                "inside a dollar sign; Pandoc does not read it as math")
    return problems


def number_problems(text: str, label: str) -> list[str]:
    """Machine-length floats (:func:`companion.publish.site.format.long_numbers`) in what a page or an output shows."""
    found = fmt.long_numbers(text)
    if not found:
        return []
    return [f"{label}: {len(found)} number{'s' if len(found) > 1 else ''} printed to "
            f"{fmt.LONG_DIGITS} or more significant digits (e.g. {found[0]}); write numbers to their meaning "
            "(companion.publish.site.format)"]


_ELLIPSIS = ("…", "...")


def truncation_problems(markdown: str, label: str) -> list[str]:
    """Cells of the pipe tables of ``markdown`` that end in an ellipsis: text cut short that no reader can open."""
    problems = []
    for table in pipe_tables(markdown):
        cut = [c for row in table.rows for c in row if fmt.visible(c).rstrip().endswith(_ELLIPSIS)]
        if cut:
            problems.append(f"{label}, table at line {table.line}: {len(cut)} cell{'s' if len(cut) > 1 else ''} cut "
                            f"short ({fmt.visible(cut[0])[-40:]!r}); show the whole text (tables wrap it)")
    return problems


_HTML_CELL = re.compile(r"<t([dh])\b[^>]*>(.*?)</t\1>", re.S | re.I)


def html_truncation_problems(html: str, label: str) -> list[str]:
    """Cells of HTML tables (a notebook's DataFrame output) cut short or elided by pandas (``…`` / ``...``)."""
    cut = [_TAG.sub("", m.group(2)).strip() for m in _HTML_CELL.finditer(html)]
    cut = [c for c in cut if c.endswith(_ELLIPSIS)]
    if not cut:
        return []
    return [f"{label}: a table output with {len(cut)} cell{'s' if len(cut) > 1 else ''} cut short or elided "
            f"({cut[0][-40:]!r}); show the whole table (no max_colwidth, no elided rows)"]


# --------------------------------------------------------------------------------------------- tables
@dataclass
class Column:
    """What a browser needs to lay out one table column (in characters, padding included)."""

    header: str
    min: int  # longest piece that cannot break
    max: int  # longest cell on one line
    link_word: int  # longest word of link text in the column
    text: int  # longest cell's visible length, padding excluded


@dataclass
class Table:
    line: int
    headers: list[str]
    dashes: list[int]
    rows: list[list[str]]
    widest_line: int


def _split_row(line: str) -> list[str]:
    cells = re.split(r"(?<!\\)\|", line.strip())
    if cells and cells[0] == "":
        cells = cells[1:]
    if cells and cells[-1] == "":
        cells = cells[:-1]
    return [c.strip() for c in cells]


_SEPARATOR = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def pipe_tables(markdown: str) -> list[Table]:
    """Every pipe table of ``markdown`` (outside code): header, separator dashes, rows, widest line."""
    lines = prose_lines(markdown)
    tables = []
    i = 0
    while i < len(lines) - 1:
        n, line = lines[i]
        if "|" in line and _SEPARATOR.match(lines[i + 1][1]) and "-" in lines[i + 1][1]:
            headers = _split_row(line)
            dashes = [len(c.strip(":")) for c in _split_row(lines[i + 1][1])]
            raw = [line, lines[i + 1][1]]
            rows = []
            j = i + 2
            while j < len(lines) and lines[j][1].strip() and "|" in lines[j][1]:
                rows.append(_split_row(lines[j][1]))
                raw.append(lines[j][1])
                j += 1
            tables.append(Table(n, headers, dashes, rows, max(len(r) for r in raw)))
            i = j
        else:
            i += 1
    return tables


def _columns(table: Table, links_break: bool) -> list[Column]:
    columns = []
    for k, header in enumerate(table.headers):
        cells = [header] + [row[k] for row in table.rows if k < len(row)]
        plain_word = link_word = image = text = 0
        for cell in cells:
            images = re.findall(r"!\[[^\]]*\]\([^)]*\)", cell)
            image = max(image, IMAGE_CHARS if images else 0)
            without_images = re.sub(r"\[?!\[[^\]]*\]\([^)]*\)\]?(\([^)]*\))?", "", cell)
            formulas = [math_width(m.group(1)) for m in _INLINE_MATH.finditer(_CODE_SPAN.sub("", without_images))]
            without_images = _INLINE_MATH.sub(lambda m: "x" * math_width(m.group(1)), without_images)
            image = max(image, *formulas, 0)
            for m in _INLINE_LINK.finditer(without_images):
                link_word = max([link_word, *(len(w) for w in fmt.words(fmt.visible(m.group(1))))])
            plain = fmt.visible(_INLINE_LINK.sub(" ", without_images))
            plain_word = max([plain_word, *(len(w) for w in fmt.words(plain))])
            text = max(text, len(fmt.visible(without_images)) + IMAGE_CHARS * len(images))
        least = max(plain_word, image, 1 if links_break else link_word, 1)
        columns.append(Column(fmt.visible(header), least + CELL_PADDING, max(text, least) + CELL_PADDING,
                              link_word, text))
    return columns


def _has_links(table: Table) -> bool:
    return any(_INLINE_LINK.search(c) for row in [table.headers, *table.rows] for c in row)


def layout(table: Table, width: int, links_break: bool = True) -> tuple[list[Column], list[float]]:
    """The columns of ``table`` and the width (characters) a browser gives each in a text column of ``width``.

    A table without links that is wider than Pandoc's 72 columns gets the dash widths (Quarto applies them only
    then), each at least its longest word; otherwise the browser's automatic layout: every column its longest
    word, the rest shared in proportion to the text beyond it (all of its text when everything fits)."""
    columns = _columns(table, links_break)
    least = sum(c.min for c in columns)
    most = sum(c.max for c in columns)
    if not _has_links(table) and table.widest_line > fmt.PANDOC_COLUMNS and sum(table.dashes) > 0:
        total = sum(table.dashes)
        return columns, [max(width * d / total, c.min) for c, d in zip(columns, table.dashes)]
    if most <= width:
        return columns, [c.max * width / most for c in columns]
    if least >= width:
        return columns, [float(c.min) for c in columns]
    spare = width - least
    return columns, [c.min + spare * (c.max - c.min) / (most - least) for c in columns]


def table_problems(markdown: str, width: int, label: str, links_break: bool = True) -> list[str]:
    """Pipe tables of ``markdown`` that would not read well in a text column ``width`` characters wide (see the
    module docstring): link text broken mid-word, a table wider than the column, cramped columns of text."""
    problems = []
    for table in pipe_tables(markdown):
        where = f"{label}, table at line {table.line} ({', '.join(fmt.cut(h, 20) for h in table.headers)})"
        columns, widths = layout(table, width, links_break)
        need = sum(c.min for c in columns)
        if need > width:
            problems.append(f"{where}: its longest words need {need} characters, the page has about {width}; "
                            "the table overflows (fewer columns, shorter words or page-layout: full)")
            continue
        for column, w in zip(columns, widths):
            room = w - CELL_PADDING
            if links_break and column.link_word > room:
                problems.append(f"{where}: link text in column {column.header!r} breaks mid-word (a word of "
                                f"{column.link_word} characters in about {room:.0f})")
            elif room < CRAMPED_CHARS and column.text > 3 * room:
                problems.append(f"{where}: column {column.header!r} gets about {room:.0f} characters for up to "
                                f"{column.text}; too many columns for the page")
    return problems
