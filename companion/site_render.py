"""Offline stand-ins for what a real ``quarto render`` of the site does, so that ``python -m companion site --check``
catches what the render would get wrong without Quarto installed.

* **Notebooks.** Each notebook is converted to markdown with nbconvert (Quarto converts it the same way before
  Pandoc reads it): the conversion must succeed (:func:`notebook_markdown`).
* **Lists and paragraphs.** Pandoc's markdown needs a blank line before a list: a line starting with ``* ``,
  ``- ``, ``+ `` or ``1. `` directly after a line of running text is read as part of that paragraph and prints
  as ``… * … * …`` (:func:`list_problems`). Likewise a bold run-in heading (``**Fig 5a** — …``) on the line after a
  finished sentence joins the previous paragraph, and a multi-paragraph summary renders as one dense block
  (:func:`run_in_problems`). Both are checked in every markdown cell and page.
* **Anchors.** A link ``page.qmd#anchor`` or ``notebook.ipynb#anchor`` needs a heading (or an element) with that
  id in the target; Quarto's heading ids are Pandoc's auto-identifiers (:func:`pandoc_identifier`), explicit
  ``{#id}`` attributes and ``#| label:`` cell options (:func:`anchor_problems`).
* **Tracebacks.** No page may show a traceback or a Python warning in its executed output, and no notebook a
  stored error or traceback (:func:`output_problems`).
* **Tables.** :func:`table_problems` lays each pipe table out as a browser would in the page's text column (about
  :data:`ARTICLE_CHARS` characters wide, :data:`FULL_CHARS` with ``page-layout: full``): Quarto applies the dash
  widths only to a table without links, its theme lets link text break anywhere (``.table a {word-break:
  break-word}``) unless the site's stylesheet says otherwise, and a browser shares the width beyond each column's
  longest word in proportion to its content. A table is reported when link text would break mid-word, when its
  longest words alone are wider than the column (it overflows), or when a column of running text gets fewer than
  :data:`CRAMPED_CHARS` characters, a third of its text or less (too many columns for the page). The widths are estimates in characters.
  A cell cut short (ending in ``…`` or ``...``: the rest cannot be read anywhere) is reported in pages and in
  notebooks' table outputs (:func:`truncation_problems`, :func:`html_truncation_problems`).
* **Formulas.** An inline formula with a space just inside a dollar sign (``$\vert x\vert $``) is not math to
  Pandoc: it prints as dollars and TeX (:func:`math_problems`).
* **Numbers.** No page or stored output may print a machine-length float (``0.2409999966621399``;
  :func:`number_problems`), and no notebook cell may show a bare ``repr`` (a quoted string) or a pandas footer
  (``Name: count, dtype: int64``) instead of a formatted table (:func:`repr_problems`).
* **Figures.** Every notebook figure is legible at the width the page shows it (:mod:`companion.site_figures`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from companion import site_format as fmt

ARTICLE_CHARS = 90  # characters per line of the text column, default layout, 1280-px window, docked sidebar
FULL_CHARS = 120  # the same with ``page-layout: full``
CELL_PADDING = 2  # 0.5rem either side of a table cell
CRAMPED_CHARS = 10  # a column of running text narrower than this reads one word per line
IMAGE_CHARS = 15  # an inline image (a Colab badge) in characters
TRACEBACK = "Traceback (most recent call last)"
_WARNING = re.compile(r"\b([A-Z]\w*Warning): ")


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
    from companion.site import links

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
    """Machine-length floats (:func:`companion.site_format.long_numbers`) in what a page or an output shows."""
    found = fmt.long_numbers(text)
    if not found:
        return []
    return [f"{label}: {len(found)} number{'s' if len(found) > 1 else ''} printed to "
            f"{fmt.LONG_DIGITS} or more significant digits (e.g. {found[0]}); write numbers to their meaning "
            "(companion.site_format)"]


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


_BARE_REPR = re.compile(r"""^\s*(['"]).*\1\s*$""", re.S)
_FOOTER = re.compile(r"^(Name: .*, )?dtype: \w+\s*$", re.M)


def repr_problems(output: dict, label: str) -> list[str]:
    """A cell that shows an expression's ``repr`` instead of a formatted result: a bare quoted string, or a pandas
    Series/DataFrame as plain text with its ``dtype`` footer."""
    if output.get("output_type") != "execute_result":
        return []
    data = output.get("data") or {}
    plain = data.get("text/plain", "")
    plain = "".join(plain) if isinstance(plain, list) else str(plain)
    if set(data) - {"text/plain"}:
        return []
    if _BARE_REPR.match(plain):
        return [f"{label}: shows a bare quoted string ({fmt.cut(plain.strip(), 30)}), not a formatted result"]
    if _FOOTER.search(plain):
        return [f"{label}: shows a pandas repr with its dtype footer, not a formatted table"]
    return []


def notebook_text_problems(nb: dict, label: str) -> list[str]:
    """Stored outputs of a notebook that print machine-length floats, tables cut short, or bare reprs."""
    problems = []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        where = f"{label}, cell {i + 1}"
        shown = []
        for output in cell.get("outputs", []):
            problems += repr_problems(output, where)
            if output.get("output_type") == "stream":
                shown.append(_output_text(output))
            data = output.get("data") or {}
            for kind in ("text/html", "text/markdown", "text/plain"):
                if kind in data:
                    body = "".join(data[kind]) if isinstance(data[kind], list) else str(data[kind])
                    if kind == "text/html":
                        problems += html_truncation_problems(body, where)
                        body = _TAG.sub(" ", body)
                    elif kind == "text/markdown":
                        problems += truncation_problems(body, where)
                    shown.append(body)
                    break  # what a page shows: the richest text representation
        problems += number_problems("\n".join(shown), where)
    return problems


# --------------------------------------------------------------------------------------------- outputs
def output_problems(text: str, label: str) -> list[str]:
    """A traceback or a Python warning in what a page printed (stdout and stderr of its cells)."""
    problems = []
    if TRACEBACK in text:
        problems.append(f"{label}: its executed output shows a traceback")
    for match in _WARNING.finditer(text):
        problems.append(f"{label}: its executed output shows a {match.group(1)}")
    return problems


def _output_text(output: dict) -> str:
    if output.get("output_type") == "error":
        return "\n".join(output.get("traceback", [])) or f"{output.get('ename')}: {output.get('evalue')}"
    text = output.get("text", "")
    if not text:
        text = (output.get("data") or {}).get("text/plain", "")
    return "".join(text) if isinstance(text, list) else str(text)


def notebook_output_problems(nb: dict, label: str) -> list[str]:
    """Stored outputs of a notebook that would show an error or a traceback on its page."""
    problems = []
    for i, cell in enumerate(nb.get("cells", [])):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if output.get("output_type") == "error":
                problems.append(f"{label}, cell {i + 1}: a stored error output ({output.get('ename')})")
            elif TRACEBACK in _output_text(output):
                problems.append(f"{label}, cell {i + 1}: a stored output shows a traceback")
    return problems


# --------------------------------------------------------------------------------------------- notebooks
def notebook_markdown(path: Path) -> str:
    """The notebook converted to markdown with nbconvert, as Quarto does before Pandoc reads it (raises on a
    notebook nbconvert cannot read or convert)."""
    import nbformat
    from nbconvert import MarkdownExporter

    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    body, _ = MarkdownExporter().from_notebook_node(nb)
    return body


def markdown_sources(nb: dict) -> list[tuple[int, str]]:
    """``(cell number from 1, markdown)`` of the markdown cells and the markdown outputs of a notebook."""
    out = []
    for i, cell in enumerate(nb.get("cells", [])):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        if cell.get("cell_type") == "markdown":
            out.append((i + 1, source))
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            md = (output.get("data") or {}).get("text/markdown")
            if md:
                out.append((i + 1, "".join(md) if isinstance(md, list) else md))
    return out


def notebook_ids(nb: dict) -> set[str]:
    """The ids a notebook's page offers as anchors (its markdown cells' headings, in document order)."""
    return heading_ids("\n\n".join(md for _, md in markdown_sources(nb)))


def notebook_findings(path: Path, root: Path) -> list[str]:
    """What a reader would find hard in one notebook's stored outputs, though a render shows it: numbers printed to
    machine length, tables cut short, bare reprs (:func:`notebook_text_problems`), and figures whose text is too
    small at the width the page shows them (:func:`companion.site_figures.notebook_problems`). Reported by
    ``site --check``; they fail it only with ``--strict`` until every notebook is re-executed with them fixed."""
    from companion import site_figures

    rel = path.relative_to(root).as_posix()
    nb = json.loads(path.read_text(encoding="utf-8"))
    return notebook_text_problems(nb, rel) + site_figures.notebook_problems(path, rel)


def notebook_problems(path: Path, root: Path, links_break: bool = True, strict: bool = True) -> list[str]:
    """What a render of one notebook would get wrong: the nbconvert conversion fails; a markdown cell runs a list
    or a paragraph into the previous one; a table does not fit; a stored output shows an error or a traceback;
    with ``strict``, also the reader's findings of :func:`notebook_findings`."""
    rel = path.relative_to(root).as_posix()
    try:
        notebook_markdown(path)
    except Exception as exc:  # noqa: BLE001 - any failure of the conversion is the finding
        return [f"{rel}: nbconvert cannot convert it to markdown: {type(exc).__name__}: {fmt.cut(str(exc), 160)}"]
    nb = json.loads(path.read_text(encoding="utf-8"))
    problems = []
    for cell, markdown in markdown_sources(nb):
        label = f"{rel} cell {cell}"
        problems += list_problems(markdown, label)
        problems += run_in_problems(markdown, label)
        problems += table_problems(markdown, ARTICLE_CHARS, label, links_break)
        problems += math_problems(markdown, label)
    problems += notebook_output_problems(nb, rel)
    return problems + (notebook_findings(path, root) if strict else [])


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


# --------------------------------------------------------------------------------------------- pages
def front_matter(text: str) -> dict[str, Any]:
    """The YAML front matter of a page (empty when it has none)."""
    match = re.match(r"^---\s*\n(.*?)\n---\s*\n", text, flags=re.S)
    if not match:
        return {}
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def page_width(text: str) -> int:
    """The text column of a page in characters: wider with ``page-layout: full``."""
    return FULL_CHARS if front_matter(text).get("page-layout") == "full" else ARTICLE_CHARS


def stylesheets(root: Path, config: dict | None = None) -> list[Path]:
    """The CSS files the site's ``_quarto.yml`` adds to the HTML format."""
    if config is None:
        path = root / "_quarto.yml"
        config = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    css = (((config or {}).get("format") or {}).get("html") or {}).get("css") or []
    return [root / c for c in ([css] if isinstance(css, str) else css)]


_KEEP_LINK_WORDS = re.compile(r"\.table\s+a\s*(,[^{]*)?\{[^}]*word-break:\s*normal", re.S)


def link_words_break(root: Path, config: dict | None = None) -> bool:
    """Whether link text in tables may break mid-word: Quarto's theme says so, unless a site stylesheet resets
    ``word-break`` for ``.table a``."""
    for css in stylesheets(root, config):
        text = css.read_text(encoding="utf-8") if css.is_file() else ""
        if _KEEP_LINK_WORDS.search(re.sub(r"/\*.*?\*/", "", text, flags=re.S)):
            return False
    return True


def _css_rules(root: Path, config: dict | None = None) -> list[tuple[str, str]]:
    """``(selectors, declarations)`` of every rule of the site's stylesheets, comments removed."""
    rules = []
    for css in stylesheets(root, config):
        text = re.sub(r"/\*.*?\*/", "", css.read_text(encoding="utf-8"), flags=re.S) if css.is_file() else ""
        rules += [(sel.strip(), body) for sel, body in re.findall(r"([^{}]+)\{([^}]*)\}", text)]
    return rules


#: What the stylesheet must say so that nothing is cut off: (what, selector pattern, declaration pattern).
WRAP_RULES = (
    ("text outputs of notebook cells wrap instead of scrolling sideways", r"\.cell-output\s+pre\b",
     r"white-space:\s*pre-wrap"),
    ("long text in table cells wraps", r"\btd\b", r"white-space:\s*normal"),
)


def wrap_problems(root: Path, config: dict | None = None) -> list[str]:
    """The wrapping rules (:data:`WRAP_RULES`) missing from the site's stylesheets."""
    rules = _css_rules(root, config)
    return [f"the site's stylesheet does not make {what} (a rule for {sel!r} with {decl!r})"
            for what, sel, decl in WRAP_RULES
            if not any(re.search(sel, selectors) and re.search(decl, body) for selectors, body in rules)]


def page_problems(page: str, text: str, printed: str | None, root: Path, ids_of, links_break: bool) -> list[str]:
    """A page's source and executed output: lists, run-in paragraphs, tables, anchors, tracebacks."""
    where = (root / page).parent
    width = page_width(text)
    problems = []
    for label, markdown in ((page, text), (f"{page} (rendered)", printed)):
        if markdown is None:
            continue
        problems += list_problems(markdown, label)
        problems += run_in_problems(markdown, label)
        problems += table_problems(markdown, width, label, links_break)
        problems += truncation_problems(markdown, label)
        problems += math_problems(markdown, label)
        problems += anchor_problems(markdown, where, root, label, ids_of)
    if printed is not None:
        problems += output_problems(printed, f"{page} (rendered)")
        problems += number_problems("\n".join(line for _, line in prose_lines(printed)), f"{page} (rendered)")
    return problems


def strip_cells(qmd: str) -> str:
    """A page's markdown without its ``{python}`` cells (what is left to render around their output)."""
    return re.sub(r"^```\{python\}[^\n]*\n.*?^```\s*$", "", qmd, flags=re.S | re.M)


class _Ids:
    """Ids of the site's pages (their source and executed output) and notebooks, read once each."""

    def __init__(self, root: Path, printed: dict[str, str]):
        self.root = root
        self.printed = {(root / page).resolve(): text for page, text in printed.items()}
        self.cache: dict[Path, set[str] | None] = {}

    def __call__(self, path: Path) -> set[str] | None:
        if path not in self.cache:
            self.cache[path] = self._read(path)
        return self.cache[path]

    def _read(self, path: Path) -> set[str] | None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            return None
        if path.suffix == ".ipynb":
            try:
                return notebook_ids(json.loads(text))
            except ValueError:
                return None
        if path.suffix in (".qmd", ".md"):
            return heading_ids(strip_cells(text) + "\n\n" + self.printed.get(path, ""))
        return None  # not a page: its anchors are not checked


def render_problems(root: Path, pages: list[str], notebooks: list[Path], printed: dict[str, str],
                    strict: bool = True) -> list[str]:
    """Everything this module checks, for the whole site: ``pages`` (relative paths) with what their cells
    ``printed`` (a page missing from ``printed`` is checked from its source alone), and every notebook."""
    root = Path(root)
    links_break = link_words_break(root)
    ids = _Ids(root, printed)
    problems = wrap_problems(root) if (root / "_quarto.yml").is_file() else []
    for page in pages:
        path = root / page
        if not path.exists():
            continue
        here = path.resolve()
        problems += page_problems(page, path.read_text(encoding="utf-8"), printed.get(page), root,
                                  lambda target, here=here: ids(here if target is None else target), links_break)
    for path in notebooks:
        problems += notebook_problems(path, root, links_break, strict=strict)
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        here = path.resolve()
        rel = path.relative_to(root).as_posix()
        for cell, markdown in markdown_sources(nb):
            problems += anchor_problems(markdown, path.parent, root, f"{rel} cell {cell}",
                                        lambda target, here=here: ids(here if target is None else target))
    return problems
