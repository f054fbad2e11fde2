"""A site that works offline and on a phone: what the configuration must say, checked without Quarto
(``site --check``), and the one change a render needs afterwards.

**Offline** (:func:`offline_problems`). A downloaded copy of the site must show everything with the network off:

* **formulas** — ``format: html: html-math-method: mathml``: Pandoc writes each formula as MathML when the site is
  rendered, which browsers draw themselves (no script, no font download). Quarto's default loads MathJax from a CDN,
  so a copy read offline shows raw ``\\(…\\)``; a vendored MathJax (about 2 MB of scripts and fonts) would do the
  same job with more to keep;
* **scripts** — Quarto adds require.js and jQuery from a CDN to every notebook page with an HTML output (a pandas
  table counts), for widgets these notebooks do not have. The project's ``post-render`` step
  (:data:`POST_RENDER`, :func:`post_render`) removes those three tags from the rendered pages, and only those; the
  site's own script (the sortable claims tables) is inlined into every page (:data:`INCLUDES`);
* **fonts and styles** — the theme must not import a web font (Bootswatch's cosmo imports Source Sans Pro from
  Google Fonts unless ``$web-font-path`` is false, :data:`THEME_SCSS`), and no stylesheet or include may load
  anything over the network.

**Notebook tables** (:func:`tidy_dataframes`, in the same post-render step): a missing value shows as a dash, not
``NaN`` or ``None``, and pandas' index of bare row numbers is dropped where it keys nothing.

**Phone** (:func:`phone_problems`): at 390 px no page scrolls sideways. The stylesheet makes figures fluid (at most
the column's width), lets a table wider than the screen scroll inside its own box under a narrow-screen media
query, and does the same for notebook outputs, display formulas and code.

:func:`external_assets` lists what a rendered page would fetch from the network; :func:`rendered_problems` applies
it to a rendered site (``_site``) when there is one.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

#: the project's post-render command: strips the CDN tags Quarto adds for widgets (:func:`post_render`)
POST_RENDER = "python -m companion.publish.site.offline"
#: the files included in every page (inline, so that no path depends on the page's folder)
INCLUDES = ("site/claims-table.html",)
#: the theme's own settings: no web font
THEME_SCSS = "site/theme.scss"
MATH_METHOD = "mathml"
#: the narrowest screen a page must fit without scrolling sideways, in CSS pixels
PHONE_PX = 390

_EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']((?:https?:)?//[^"']+)["']""", re.I)
_TAG = re.compile(r"<(script|link|img|iframe|source)\b[^>]*>", re.I)
_CSS_URL = re.compile(r"""@import\s+(?:url\()?\s*["']?((?:https?:)?//[^"')\s]+)|url\(\s*["']?((?:https?:)?//[^"')\s]+)""",
                      re.I)
#: the tags Quarto's Jupyter engine writes into the head of a page with "JavaScript widgets": require.js, jQuery and
#: the line that registers jQuery with require.js (which fails without it), and the widget manager
_WIDGET_TAGS = re.compile(
    r"""[ \t]*<script\b[^>]*\bsrc=["'][^"']*(?:requirejs|require\.js|require\.min\.js|/jquery[@/.-]|"""
    r"""@jupyter-widgets/html-manager)[^"']*["'][^>]*>\s*</script>[ \t]*\n?"""
    r"""|[ \t]*<script\b[^>]*>\s*define\(\s*['"]jquery['"][^<]*</script>[ \t]*\n?""", re.I)


# --------------------------------------------------------------------------------------------- rendered pages
def external_assets(html: str) -> list[str]:
    """The URLs a page would fetch from the network to show itself: script, stylesheet, image, frame and source
    tags pointing at another host (links a reader follows, ``<a href>``, are not fetched)."""
    found = []
    for tag in _TAG.finditer(html):
        text = tag.group(0)
        if tag.group(1).lower() == "link" and not re.search(r"""rel=["']?(?:stylesheet|preload|modulepreload)""",
                                                             text, re.I):
            continue
        found += _EXTERNAL.findall(text)
    return found


def strip_widget_scripts(html: str) -> tuple[str, int]:
    """``html`` without the require.js, jQuery and widget-manager tags Quarto adds for widgets (none here), and how
    many it removed."""
    return _WIDGET_TAGS.subn("", html)


_DATAFRAME = re.compile(r"<table\b[^>]*\bclass=\"[^\"]*\bdataframe\b[^>]*>.*?</table>", re.S | re.I)
_ROW = re.compile(r"(<tr\b[^>]*>)(.*?)(</tr>)", re.S | re.I)
_FIRST_CELL = re.compile(r"^\s*<t([hd])\b[^>]*>(.*?)</t\1>", re.S | re.I)
#: what pandas prints for a missing value
_MISSING = re.compile(r"(<td\b[^>]*>)\s*(?:NaN|nan|None|NaT|&lt;NA&gt;)\s*(</td>)")
MISSING = "—"


def _drop_row_numbers(table: str) -> str | None:
    """``table`` (a pandas HTML table) without its index column when that index is the bare row numbers 0, 1, 2, …
    under an empty heading (pandas' default: it keys nothing); None when it is not."""
    rows = _ROW.findall(table)
    body = table.split("<tbody", 1)[1] if "<tbody" in table else ""
    body_rows = _ROW.findall(body)
    if not body_rows:
        return None
    firsts = [_FIRST_CELL.match(inner) for _, inner, _ in body_rows]
    if not all(m and m.group(1).lower() == "h" for m in firsts):
        return None
    if [re.sub(r"<[^>]+>", "", m.group(2)).strip() for m in firsts] != [str(i) for i in range(len(firsts))]:
        return None
    head_rows = rows[: len(rows) - len(body_rows)]
    for _, inner, _ in head_rows:
        first = _FIRST_CELL.match(inner)
        if first is None or re.sub(r"<[^>]+>", "", first.group(2)).strip() or "colspan" in first.group(0):
            return None
    return _ROW.sub(lambda m: m.group(1) + _FIRST_CELL.sub("", m.group(2), count=1) + m.group(3), table)


def tidy_dataframes(html: str) -> tuple[str, int]:
    """Notebook tables as a reader wants them: a missing value (``NaN``, ``None``) shows as :data:`MISSING`, and a
    table's index of bare row numbers goes, unless the table is one part of a table cut into column groups (parts
    follow each other directly; there the numbers key the rows across the parts). Returns the page and how many
    tables changed."""
    tables = list(_DATAFRAME.finditer(html))
    out, last, changed = [], 0, 0
    for i, match in enumerate(tables):
        before = html[tables[i - 1].end():match.start()] if i else None
        after = html[match.end():tables[i + 1].start()] if i + 1 < len(tables) else None
        grouped = any(gap is not None and not gap.strip() for gap in (before, after))
        table = _MISSING.sub(lambda m: m.group(1) + MISSING + m.group(2), match.group(0))
        dropped = None if grouped else _drop_row_numbers(table)
        table = dropped or table
        changed += table != match.group(0)
        out += [html[last:match.start()], table]
        last = match.end()
    out.append(html[last:])
    return "".join(out), changed


def post_render(output_dir: Path | str | None = None) -> list[Path]:
    """Remove the widget tags from every rendered page under ``output_dir`` (default: Quarto's
    ``QUARTO_PROJECT_OUTPUT_DIR``, else ``_site``) and tidy its notebook tables (:func:`tidy_dataframes`); the
    pages changed."""
    folder = Path(output_dir or os.environ.get("QUARTO_PROJECT_OUTPUT_DIR") or "_site")
    changed = []
    for page in sorted(folder.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        new, n = strip_widget_scripts(text)
        new, m = tidy_dataframes(new)
        if n or m:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed


def rendered_problems(output_dir: Path) -> list[str]:
    """Pages of a rendered site that would fetch something from the network, or show a formula as raw TeX."""
    problems = []
    for page in sorted(Path(output_dir).rglob("*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        rel = page.relative_to(output_dir).as_posix()
        for url in dict.fromkeys(external_assets(text)):
            problems.append(f"{rel}: loads {url} from the network (a downloaded copy misses it)")
        if re.search(r"\\\(|\\\[", re.sub(r"<(script|pre|code)\b.*?</\1>", "", text, flags=re.S | re.I)):
            problems.append(f"{rel}: shows a formula as raw TeX")
    return problems


# --------------------------------------------------------------------------------------------- configuration
def _html(config: dict) -> dict:
    return (((config or {}).get("format") or {}).get("html") or {})


def _list(value: Any) -> list:
    return [] if value is None else list(value) if isinstance(value, (list, tuple)) else [value]


def _css_text(path: Path) -> str:
    return re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S) if path.is_file() else ""


def offline_problems(config: dict, root: Path) -> list[str]:
    """What in ``_quarto.yml`` (``config``) and the files it names would make a downloaded site fetch something from
    the network (see the module docstring)."""
    root = Path(root)
    html = _html(config)
    problems = []
    method = html.get("html-math-method")
    url = method.get("url", "") if isinstance(method, dict) else ""
    name = method.get("method") if isinstance(method, dict) else method
    if name != MATH_METHOD and (not url or re.match(r"(https?:)?//", url)):
        problems.append(f"_quarto.yml: format: html: html-math-method is {method!r}: formulas load "
                        f"{name or 'mathjax'} from a CDN and show as raw TeX offline (use {MATH_METHOD})")
    post = [str(p) for p in _list(((config or {}).get("project") or {}).get("post-render"))]
    if POST_RENDER not in post:
        problems.append(f"_quarto.yml: project: post-render lacks `{POST_RENDER}`: notebook pages keep require.js "
                        "and jQuery from a CDN")
    for key in ("include-in-header", "include-before-body", "include-after-body"):
        for item in _list(html.get(key)):
            text = item.get("text", "") if isinstance(item, dict) else None
            if text is None:
                path = root / str(item)
                if not path.is_file():
                    problems.append(f"_quarto.yml: format: html: {key} names {item}, which does not exist")
                    continue
                text = path.read_text(encoding="utf-8")
            for asset in external_assets(text):
                problems.append(f"_quarto.yml: format: html: {key} ({item}) loads {asset} from the network")
    for inc in INCLUDES:
        if inc not in [str(i) for i in _list(html.get("include-after-body"))]:
            problems.append(f"_quarto.yml: format: html: include-after-body lacks {inc} (the claims tables' script)")
    themes = [str(t) for t in _list(html.get("theme"))]
    named = [t for t in themes if not t.endswith(".scss") and t not in ("default", "none")]
    overrides = [t for t in themes if t.endswith(".scss")
                 and re.search(r"\$web-font-path\s*:\s*false", _css_text(root / t))]
    if named and not overrides:
        problems.append(f"_quarto.yml: the theme {named[0]} imports a web font from Google Fonts; add "
                        f"{THEME_SCSS} with `$web-font-path: false;` to format: html: theme")
    for css in [*_list(html.get("css")), *(t for t in themes if t.endswith(".scss"))]:
        for match in _CSS_URL.finditer(_css_text(root / str(css))):
            problems.append(f"{css}: loads {match.group(1) or match.group(2)} from the network")
    return problems


#: what the stylesheet must say so that no page scrolls sideways on a phone: (what, selector, declaration, in a
#: narrow-screen media query)
PHONE_RULES = (
    ("figures shrink with the column (fluid images)", r"\bimg\b", r"max-width:\s*100%", False),
    ("a table wider than a phone scrolls inside its own box", r"\btable\b", r"overflow-x:\s*auto", True),
    ("a notebook output wider than the column scrolls inside its own box", r"\.cell-output-display",
     r"overflow-x:\s*auto", False),
    ("display formulas and code scroll inside their own box", r"math|\bpre\b", r"overflow-x:\s*auto", False),
    ("a word longer than a phone's line (a module name in a title, inline code) break where it must",
     r"\bh1\b", r"overflow-wrap:\s*anywhere", False),
    ("inline code break where it must", r"\bcode\b", r"overflow-wrap:\s*anywhere", False),
    ("an inline formula wider than a phone scroll inside its own box", r"\bmath\b(?!\[display)",
     r"overflow-x:\s*auto", True),
    ("a callout's box shrink to the column, so a wide table scrolls inside it (a flex item's min-width)",
     r"callout", r"min-width:\s*0", False),
)


def _rules(css: str, narrow: bool) -> list[tuple[str, str]]:
    """``(selectors, declarations)`` of ``css``: those inside a media query for screens of at most ``max-width``
    >= :data:`PHONE_PX` (``narrow``), or those outside any media query."""
    out, depth_text = [], css
    blocks = list(re.finditer(r"@media[^{]*max-width:\s*(\d+(?:\.\d+)?)px[^{]*\{((?:[^{}]*\{[^{}]*\})*)\s*\}",
                              css))
    if narrow:
        for block in blocks:
            if float(block.group(1)) >= PHONE_PX:
                out += re.findall(r"([^{}]+)\{([^{}]*)\}", block.group(2))
        return out
    for block in blocks:
        depth_text = depth_text.replace(block.group(0), "")
    return re.findall(r"([^{}@]+)\{([^{}]*)\}", depth_text)


def phone_problems(config: dict, root: Path) -> list[str]:
    """The rules of :data:`PHONE_RULES` missing from the site's stylesheets (``format: html: css``)."""
    css = "\n".join(_css_text(Path(root) / str(c)) for c in _list(_html(config).get("css")))
    problems = []
    for what, selector, declaration, narrow in PHONE_RULES:
        rules = _rules(css, narrow) + ([] if narrow else _rules(css, True))
        if not any(re.search(selector, sel) and re.search(declaration, body) for sel, body in rules):
            where = f" under a media query for screens up to at least {PHONE_PX} px" if narrow else ""
            problems.append(f"the site's stylesheet does not make {what} (a rule for {selector!r} with "
                            f"{declaration!r}{where}): at {PHONE_PX} px a page would scroll sideways")
    return problems


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.publish.site.offline [OUTPUT_DIR]``: Quarto's post-render step."""
    argv = sys.argv[1:] if argv is None else argv
    changed = post_render(argv[0] if argv else None)
    print(f"post-render: removed the widget scripts and tidied the notebook tables of {len(changed)} page(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
