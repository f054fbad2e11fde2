"""Offline stand-ins for what a real ``quarto render`` of the site does, so that ``python -m companion site --check``
catches what the render would get wrong without Quarto installed (:func:`render_problems`).

* **Notebooks.** Each notebook is converted to markdown with nbconvert (Quarto converts it the same way before
  Pandoc reads it): the conversion must succeed (:func:`notebook_markdown`).
* **Markdown.** Every page and markdown cell is read as Pandoc would read it: lists and paragraphs run together,
  anchors, tables that do not fit or cells cut short, formulas, machine-length floats
  (:mod:`companion.publish.site.markdown`).
* **Tracebacks.** No page may show a traceback or a Python warning in its executed output, and no notebook a
  stored error or traceback (:func:`output_problems`).
* **Reprs.** No notebook cell may show a bare ``repr`` (a quoted string) or a pandas footer
  (``Name: count, dtype: int64``) instead of a formatted table (:func:`repr_problems`).
* **Stylesheet.** The site's stylesheet keeps link words in tables whole, wraps long text and keeps MathJax's
  hidden screen-reader copy of a formula from widening a table (:func:`link_words_break`, :func:`wrap_problems`).
* **Figures.** Every notebook figure is legible at the width the page shows it (:mod:`companion.publish.site.figures`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from companion.publish.site import figures as site_figures
from companion.publish.site import format as fmt
from companion.publish.site.markdown import (
    _TAG,
    ARTICLE_CHARS,
    FULL_CHARS,
    anchor_problems,
    heading_ids,
    html_truncation_problems,
    list_problems,
    math_problems,
    number_problems,
    prose_lines,
    run_in_problems,
    table_problems,
    truncation_problems,
)

TRACEBACK = "Traceback (most recent call last)"
_WARNING = re.compile(r"\b([A-Z]\w*Warning): ")


# --------------------------------------------------------------------------------------------- reprs
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
    import nbformat  # noqa: PLC0415 - nbformat is heavy; this module imports without it
    from nbconvert import MarkdownExporter  # noqa: PLC0415 - optional dependency (the `site` extra)

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
    small at the width the page shows them (:func:`companion.publish.site.figures.notebook_problems`). Reported by
    ``site --check``; they fail it only with ``--strict`` until every notebook is re-executed with them fixed."""
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


def page_width(text: str, in_sidebar: bool = False) -> int:
    """The text column of a page in characters: wider with ``page-layout: full``, unless the page is in a sidebar
    and keeps its table of contents in the margin (a real render at 1400 px: the docked sidebar and a margin table
    of contents leave a full-layout page the article's 749 px; with ``toc-location: body`` or no table of contents
    it gets 1,025 px, and the landing page, in no sidebar, 895 px)."""
    meta = front_matter(text)
    toc_in_margin = meta.get("toc", True) is not False and meta.get("toc-location", "right") in ("right", "left")
    wide = meta.get("page-layout") == "full" and not (in_sidebar and toc_in_margin)
    return FULL_CHARS if wide else ARTICLE_CHARS


def sidebar_pages(root: Path, config: dict | None = None) -> set[str]:
    """The pages (relative paths) that the site's ``_quarto.yml`` lists in a sidebar."""
    if config is None:
        path = root / "_quarto.yml"
        config = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    return {item if isinstance(item, str) else item.get("href")
            for bar in (((config or {}).get("website") or {}).get("sidebar") or [])
            for item in bar.get("contents") or [] if isinstance(item, (str, dict))} - {None}


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
    ("MathJax's hidden copy of a formula for screen readers (as wide as the formula, placed where it starts) stay "
     "inside a table cell (a real render: a formula near a cell's edge made an API table scroll 2 px)",
     r"mjx-assistive-mml", r"width:\s*1px\s*!important"),
)


def wrap_problems(root: Path, config: dict | None = None) -> list[str]:
    """The wrapping rules (:data:`WRAP_RULES`) missing from the site's stylesheets."""
    rules = _css_rules(root, config)
    return [f"the site's stylesheet does not make {what} (a rule for {sel!r} with {decl!r})"
            for what, sel, decl in WRAP_RULES
            if not any(re.search(sel, selectors) and re.search(decl, body) for selectors, body in rules)]


def page_problems(page: str, text: str, printed: str | None, root: Path, ids_of, links_break: bool,
                  in_sidebar: bool = False) -> list[str]:
    """A page's source and executed output: lists, run-in paragraphs, tables, anchors, tracebacks."""
    where = (root / page).parent
    width = page_width(text, in_sidebar)
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
    in_sidebar = sidebar_pages(root)
    for page in pages:
        path = root / page
        if not path.exists():
            continue
        here = path.resolve()
        problems += page_problems(page, path.read_text(encoding="utf-8"), printed.get(page), root,
                                  lambda target, here=here: ids(here if target is None else target), links_break,
                                  page in in_sidebar)
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
