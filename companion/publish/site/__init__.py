"""The Quarto website, generated from the notebooks and the claims ledger so that nothing on it can drift.

Pages:

* ``index.qmd`` — the answer first: the findings table and the summary figure of the five papers, then one bottom
  line per paper (:mod:`~companion.publish.site.findings`: what holds, what does not, what is undecided and what
  deciding it would take, what is not testable, naming statements by their titles with their regimes); then the
  scoreboard: headline verdict counts of the five papers' statements
  (:mod:`companion.statements`: each statement once, whatever the number of ``kind: paper`` claims that test it; the
  baselines and the synthesis are not papers and have none), every count split by regime (``paper setting`` /
  ``scaled``, which never changes a verdict), a figure with one bar per table row, the split statements; the errata
  counted apart (confirmed, minor, partly confirmed: an erratum is never a reproduced paper claim), the beyond-the-paper
  claims and our checks counted apart (all computed at render time from ``results/``). The claims themselves are on
  the paper pages, one click away, so the landing page stays a few screens long;
* ``site/papers/<paper>.qmd`` — one page per paper (generated), claims first: reference, its bottom line, its
  forest plot (:mod:`~companion.publish.site.forest`), the claims (verdict, regime, CI and MDE; sortable and
  filterable), the paper's errata and coverage map, then how it was run, the scale of each run and the gpu
  profile's settings folded (:mod:`~companion.publish.site.scale`);
* ``site/errata.qmd`` — every verified inconsistency, one card each (what the paper prints, its cells side by side
  with the rule that found them, what was computed, in words), from the claims of kind ``erratum`` (the errata
  notebook ``synthesis/00-errata`` records them), with their count per paper and kind and the withdrawn and merged
  ones (:mod:`~companion.publish.site.errata`);
* ``site/run-it-yourself.qmd`` — profiles, time per notebook and profile, the ``gpu`` profile's backbones;
* ``site/use-the-objectives.qmd`` and ``site/api/`` — the losses in your own training, and the API reference
  generated from the docstrings (:mod:`companion.publish.apidoc`; its sidebar entries are short words that wrap).

The modules, each building only on those before it:

* :mod:`~companion.publish.site.format` — numbers and claim values written for readers;
* :mod:`~companion.publish.site.common` — page paths, the notebooks, the ledgers, claim -> cell, tables and links;
* :mod:`~companion.publish.site.summary`, :mod:`~companion.publish.site.errata`,
  :mod:`~companion.publish.site.scale` — the bottom lines, the errata, the scale and timing of each run;
* :mod:`~companion.publish.site.findings`, :mod:`~companion.publish.site.forest` — the findings in words and in
  figures (SVG in ``figures/site/``);
* :mod:`~companion.publish.site.offline` — offline and phone: MathML formulas, no CDN, fluid figures, tables that
  scroll in their own box, and the post-render step;
* :mod:`~companion.publish.site.config` — ``_quarto.yml``, the list of pages, the inputs stamp of the computed pages;
* :mod:`~companion.publish.site.pages` — the pages' markdown, and ``python -m companion site``
  (:func:`pages.write_sidebar`: ``_quarto.yml``, the per-paper pages, the API pages, the README's notebook table
  and the inputs stamp of every computed page);
* :mod:`~companion.publish.site.figures`, :mod:`~companion.publish.site.markdown`,
  :mod:`~companion.publish.site.render` — what a real ``quarto render`` would get wrong, checked offline: figures
  too small to read at the width the page shows them; lists and paragraphs that Pandoc would run together, tables
  that would not fit the page or cells cut short, formulas Pandoc would not read as math, machine-length floats,
  ``#anchor`` links; each notebook's conversion to markdown with nbconvert, bare reprs, tracebacks in executed
  output, the stylesheet's wrapping rules;
* :mod:`~companion.publish.site.checks` — ``python -m companion site --check`` (:func:`checks.check`, and
  ``tests/publish/test_site_*.py``): navigation, links, stamps, first cells, claims, sidebar, frozen render, a clean
  working tree, and the render checks above; the landing page must build its scoreboard from the ledger, split by
  regime.

Quarto renders the stored notebook outputs without re-executing them (its default for ``.ipynb``); only the pages'
small Python cells run, reading ``results/``.
"""
