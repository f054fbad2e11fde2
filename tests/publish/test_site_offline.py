"""A site that works offline and on a phone (companion.publish.site.offline): each property of ``site --check``
fails on a configuration without it and passes on one with it; the post-render step strips only Quarto's widget
scripts; the site's own configuration passes."""

import yaml

from companion.publish.site import config, offline
from companion.settings import REPO_ROOT

QUARTO_HEAD = """<head>
<script src="../site_libs/quarto-nav/quarto-nav.js"></script>
<script src="https://cdn.jsdelivr.net/npm/requirejs@2.3.6/require.min.js" integrity="sha384-x" crossorigin="anonymous"></script>
<script src="https://cdn.jsdelivr.net/npm/jquery@3.5.1/dist/jquery.min.js" integrity="sha384-y" crossorigin="anonymous" data-relocate-top="true"></script>
<script type="application/javascript">define('jquery', [],function() {return window.jQuery;})</script>
<link href="../site_libs/bootstrap/bootstrap.min.css" rel="stylesheet">
</head>
<body><a href="https://arxiv.org/abs/2309.12871">the paper</a></body>
"""


def _site(tmp_path, css="", theme=("cosmo", "site/theme.scss"), scss="$web-font-path: false;", **html):
    (tmp_path / "site").mkdir(exist_ok=True)
    (tmp_path / "site" / "styles.css").write_text(css, encoding="utf-8")
    (tmp_path / "site" / "theme.scss").write_text(f"/*-- scss:defaults --*/\n{scss}\n", encoding="utf-8")
    (tmp_path / "site" / "claims-table.html").write_text("<script>var x = 1;</script>\n", encoding="utf-8")
    fmt = {"theme": list(theme), "css": "site/styles.css", "html-math-method": "mathml",
           "include-after-body": ["site/claims-table.html"], **html}
    return {"project": {"post-render": [offline.POST_RENDER]}, "format": {"html": fmt}}


PHONE_CSS = """
main img { max-width: 100%; height: auto; }
.cell-output-display { overflow-x: auto; }
main math[display="block"], main pre { overflow-x: auto; }
main h1 { overflow-wrap: anywhere; }
main code { overflow-wrap: anywhere; }
.callout-body-container { min-width: 0; }
@media (max-width: 767.98px) { main table { display: block; overflow-x: auto; } }
@media (max-width: 767.98px) { main math { display: inline-block; max-width: 100%; overflow-x: auto; } }
"""


def test_the_post_render_step_strips_only_the_widget_scripts(tmp_path):
    page = tmp_path / "_site" / "notebooks" / "x" / "01-x.html"
    page.parent.mkdir(parents=True)
    page.write_text(QUARTO_HEAD, encoding="utf-8")
    assert offline.external_assets(QUARTO_HEAD) == ["https://cdn.jsdelivr.net/npm/requirejs@2.3.6/require.min.js",
                                                    "https://cdn.jsdelivr.net/npm/jquery@3.5.1/dist/jquery.min.js"]
    assert len(offline.rendered_problems(tmp_path / "_site")) == 2
    assert offline.post_render(tmp_path / "_site") == [page]
    text = page.read_text(encoding="utf-8")
    assert "require" not in text and "jquery" not in text and "define(" not in text
    assert "quarto-nav.js" in text and "bootstrap.min.css" in text and "arxiv.org" in text  # the rest stays
    assert offline.external_assets(text) == [] and offline.rendered_problems(tmp_path / "_site") == []
    assert offline.post_render(tmp_path / "_site") == []  # idempotent


def test_a_formula_left_as_raw_tex_is_reported(tmp_path):
    (tmp_path / "a.html").write_text("<p>the bound \\(\\log W\\)</p><pre>\\(kept in code\\)</pre>")
    (tmp_path / "b.html").write_text("<p>the bound <math><mi>W</mi></math></p>")
    assert offline.rendered_problems(tmp_path) == ["a.html: shows a formula as raw TeX"]


def test_formulas_need_a_method_that_works_offline(tmp_path):
    assert offline.offline_problems(_site(tmp_path), tmp_path) == []
    for method in (None, "mathjax", "katex", {"method": "mathjax", "url": "https://cdn.x/tex-chtml.js"}):
        problems = offline.offline_problems(_site(tmp_path, **{"html-math-method": method}), tmp_path)
        assert len(problems) == 1 and "raw TeX offline" in problems[0], method
    local = {"method": "mathjax", "url": "site/mathjax/tex-chtml.js"}
    assert offline.offline_problems(_site(tmp_path, **{"html-math-method": local}), tmp_path) == []


def test_the_post_render_step_must_be_configured(tmp_path):
    cfg = _site(tmp_path)
    cfg["project"] = {}
    assert [p for p in offline.offline_problems(cfg, tmp_path) if "post-render" in p] != []


def test_included_files_and_stylesheets_load_nothing_from_the_network(tmp_path):
    cfg = _site(tmp_path)
    (tmp_path / "site" / "claims-table.html").write_text('<script src="https://unpkg.com/x.js"></script>')
    assert offline.offline_problems(cfg, tmp_path) == [
        "_quarto.yml: format: html: include-after-body (site/claims-table.html) loads https://unpkg.com/x.js from "
        "the network"]
    cfg = _site(tmp_path, css="@import url('https://fonts.googleapis.com/css2?family=X');")
    assert offline.offline_problems(cfg, tmp_path) == [
        "site/styles.css: loads https://fonts.googleapis.com/css2?family=X from the network"]


def test_a_theme_with_a_web_font_needs_it_switched_off(tmp_path):
    problems = offline.offline_problems(_site(tmp_path, scss="$primary: blue;"), tmp_path)
    assert len(problems) == 1 and "imports a web font" in problems[0]
    assert offline.offline_problems(_site(tmp_path, theme=("cosmo",)), tmp_path) != []
    assert offline.offline_problems(_site(tmp_path, theme=("default",)), tmp_path) == []


def test_a_phone_needs_fluid_figures_and_tables_that_scroll_in_their_own_box(tmp_path):
    assert offline.phone_problems(_site(tmp_path, css=PHONE_CSS), tmp_path) == []
    missing = offline.phone_problems(_site(tmp_path, css=""), tmp_path)
    assert len(missing) == len(offline.PHONE_RULES)
    no_fluid = PHONE_CSS.replace("max-width: 100%", "width: 640px")
    assert [p for p in offline.phone_problems(_site(tmp_path, css=no_fluid), tmp_path)] == [
        offline.phone_problems(_site(tmp_path, css=""), tmp_path)[0]]
    # a table that scrolls only on screens narrower than a phone does not count, nor one outside a media query
    narrow = PHONE_CSS.replace("767.98px", "360px")
    assert len(offline.phone_problems(_site(tmp_path, css=narrow), tmp_path)) == 2  # the table's and the formula's
    table_everywhere = PHONE_CSS.replace(
        "@media (max-width: 767.98px) { main table { display: block; overflow-x: auto; } }", "")
    assert len(offline.phone_problems(_site(tmp_path, css=table_everywhere), tmp_path)) == 1
    # a long module name in a title, inline code, an inline formula and a callout's box: each rule is asked for
    for rule in ("main h1 { overflow-wrap: anywhere; }", "main code { overflow-wrap: anywhere; }",
                 ".callout-body-container { min-width: 0; }",
                 "@media (max-width: 767.98px) { main math { display: inline-block; max-width: 100%; "
                 "overflow-x: auto; } }"):
        assert rule in PHONE_CSS
        (problem,) = offline.phone_problems(_site(tmp_path, css=PHONE_CSS.replace(rule, "")), tmp_path)
        assert "at 390 px a page would scroll sideways" in problem


def test_the_sites_own_configuration_works_offline_and_on_a_phone():
    built = config.build_config(REPO_ROOT)
    assert yaml.safe_load((REPO_ROOT / "_quarto.yml").read_text(encoding="utf-8")) == built
    assert offline.offline_problems(built, REPO_ROOT) == []
    assert offline.phone_problems(built, REPO_ROOT) == []


DATAFRAME = """<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;">
      <th></th>
      <th>claim</th>
      <th>ours</th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <th>0</th>
      <td>a</td>
      <td>NaN</td>
    </tr>
    <tr>
      <th>1</th>
      <td>b</td>
      <td>0.5</td>
    </tr>
  </tbody>
</table>"""


def test_notebook_tables_lose_bare_row_numbers_and_show_a_dash_for_a_missing_value():
    page = f"<div class='cell-output'><div>{DATAFRAME}</div></div>"
    tidy, n = offline.tidy_dataframes(page)
    assert n == 1
    assert "<th>0</th>" not in tidy and "<th>1</th>" not in tidy and "<th></th>" not in tidy
    assert "NaN" not in tidy and f"<td>{offline.MISSING}</td>" in tidy and "<td>0.5</td>" in tidy
    assert tidy.count("<tr") == 3 and tidy.count("<td>") == 4  # every row keeps its cells
    # a named index keys its rows: it stays; so do the numbers of a table cut into column groups
    named = DATAFRAME.replace("<th>0</th>", "<th>Emolit</th>")
    assert "<th>Emolit</th>" in offline.tidy_dataframes(named)[0]
    split, n = offline.tidy_dataframes(f"<div>{DATAFRAME}\n{DATAFRAME}</div>")
    assert split.count("<th>0</th>") == 2 and "NaN" not in split and n == 2
    assert offline.tidy_dataframes(tidy) == (tidy, 0)  # idempotent
