"""companion.papers.synthesis.audit_book: what a reference to a printed cell reads."""

from __future__ import annotations

import pytest

from companion.papers.synthesis.audit_book import C


def test_a_cell_reference_must_name_one_row(synthetic_book):
    book = synthetic_book({"pp/table2.csv": "m,v,source\nA,1,Table 2\nA,2,Table 2\n"})
    with pytest.raises(KeyError, match="2 rows match"):
        book.get(C("pp", "table2.csv", "v", m="A"))
    assert book.get(C("pp", "table2.csv", "v", m="A", **{"#": "1"})) == "2"  # the second such row
