"""Fixtures of the synthesis tests: a synthetic data folder for the table auditor."""

from __future__ import annotations

import pytest

from companion.papers.synthesis.audit_book import Book


@pytest.fixture
def synthetic_book(tmp_path):
    """``synthetic_book(tables, statements)``: writes each ``tables`` entry (``"<paper>/<file>": text``) under
    ``<tmp_path>/data`` with ``data/synthesis/errata_statements.csv`` holding the ``statements`` rows, and returns
    the auditor's :class:`~companion.papers.synthesis.audit_book.Book` over that folder."""

    def make(tables: dict[str, str], statements: str = "") -> Book:
        for name, text in tables.items():
            path = tmp_path / "data" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        syn = tmp_path / "data" / "synthesis"
        syn.mkdir(parents=True, exist_ok=True)
        (syn / "errata_statements.csv").write_text("id,paper,statement,value,unit,source\n" + statements,
                                                   encoding="utf-8")
        return Book(tmp_path)

    return make
