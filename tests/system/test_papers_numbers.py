"""The "printed" rule of companion.papers.numbers (boundaries, signs, trailing zeros) on real blocks of each paper
and on snippets, and the numbers a claimed paper value holds.

The cells used below were read by eye in ``../shared/papers/<paper>.txt``. Without those texts the tests on real
blocks are skipped with one message (never a silent pass); the snippet tests run everywhere.
"""

from __future__ import annotations

import pytest

from companion.papers import numbers
from companion.papers.text import papers_dir

needs_texts = pytest.mark.skipif(
    papers_dir() is None,
    reason="paper texts not found: ../shared/papers/<paper>.txt beside the repository (or COMPANION_PAPERS_DIR) is "
           "needed to check where numbers are printed",
)


# ------------------------------------------------------------------------------------------------ printed
@needs_texts
@pytest.mark.parametrize(
    ("paper", "source", "value"),
    [
        ("circumplex", "Table 4", -0.041),            # Llama-Embed-Nemotron-8B, SINCERE GPT, Emolit CD-r
        ("circumplex", "Table 1", 0.76),              # mE5 SINCERE GPT V printed 0.760 (JSON drops the zero)
        ("circumplex", "Table 5", 0.438),             # Qwen3 Pretrained, Fr V
        ("circumplex", "App. D", 6600),
        ("angle", "Table 4", 85.28),                  # only cosine
        ("angle", "Table 1", 18565),
        ("angle", "Table 2", 3.71),                   # caption: p-value 3.71 %
        ("simace", "Table 2", 0.47),                  # SimACE BERT-base std
        ("simace", "Table 7", "3e-5"),
        ("simace", "Table 1", 79.99),
        ("weighted-cl", "App. E, Table 1", 0.083),    # Simplex Delta_W (run-together cells)
        ("weighted-cl", "Table 1", 89.66),
        ("weighted-cl", "Fig. 4 caption", -0.111),
        ("concepts", "§5.4", -0.006),                 # printed "−\-0\.006"
        ("concepts", "§5.4", 0.456),                  # printed "\+\+0\.456"
        ("concepts", "Table 12", 0.487),
        ("concepts", "Table 12", 864),                # relational: community cup, rank 864
        ("concepts", "Table 6", 2849),                # caption prints 2,849
    ],
)
def test_printed(paper, source, value):
    assert numbers.printed(paper, source, value)


@needs_texts
@pytest.mark.parametrize(
    ("paper", "source", "value", "why"),
    [
        ("circumplex", "Table 4", 0.041, "printed with a minus"),
        ("circumplex", "Table 1", 0.112, "a Table 4 cell, not in Table 1"),
        ("circumplex", "Table 4", 0.438, "a Table 5 cell"),
        ("circumplex", "Table 1", 0.74, "0.744 / 0.745 only: no digit may follow"),
        ("angle", "Table 5", 86.26, "a Table 4 cell"),
        ("angle", "Table 4", 86.2, "86.26 is printed, not 86.20"),
        ("simace", "Table 1", 77.46, "a Table 2 cell"),
        ("simace", "Table 2", 0.4, "only inside 0.47"),
        ("weighted-cl", "Fig. 4 caption", 0.111, "printed with a minus"),
        ("weighted-cl", "Table 2", 0.63, "a Table 1 cell"),
        ("concepts", "§5.4", 0.006, "printed with a minus"),
        ("concepts", "Table 2", 0.126, "stated in §5.2 prose; Table 2 keeps only its caption"),
        ("concepts", "§5.5", 0.704, "stated in §5.2"),
        ("concepts", "§4.5", 315850, "the text prints 315K"),
    ],
)
def test_not_printed(paper, source, value, why):
    assert not numbers.printed(paper, source, value), why


def test_printed_boundaries_and_signs_on_snippets():
    assert not numbers.printed_in("gap of 10.745 points", 0.74)
    assert not numbers.printed_in("gap of 10.745 points", 10.74)
    assert numbers.printed_in("gap of 10.745 points", 10.745)
    assert numbers.printed_in("avg 86.20 here", 86.2)
    assert not numbers.printed_in("n = 4,000 pairs", 4)
    assert numbers.printed_in("n = 4,000 pairs", 4000)
    assert numbers.printed_in("scores 0.5,0.6", 0.5)
    assert numbers.printed_in("layers 5-12", 12)             # a joining hyphen is not a minus
    assert not numbers.printed_in("layers 5-12", -12)
    assert numbers.printed_in("r = −0.114", -0.114)
    assert not numbers.printed_in("r = −0.114", 0.114)
    assert numbers.printed_in("accuracy drops by 0.114 points", -0.114)
    assert not numbers.printed_in("accuracy rises by 0.114 points", -0.114)
    assert numbers.printed_in("Simplex0.630.08379.68", 0.083, unbounded=True)
    assert not numbers.printed_in("Simplex0.630.08379.68", 0.083)


def test_numbers_in():
    assert numbers.numbers_in(0.98) == [0.98]
    assert numbers.numbers_in("all 6 > pretrained") == [6]
    assert numbers.numbers_in("B1 beats B0 on STS12, R@10 0.657 (Qwen3-4B)") == [0.657]
    assert numbers.numbers_in("text: 10 rad; Table 7: 10 deg") == [10, 10]
    assert numbers.numbers_in("−0.114 on 4,000 items") == [-0.114, 4000]
    assert numbers.numbers_in({"B0": 0.552, "B1": [0.654, "0.980"]}) == [0.552, 0.654, 0.98]
    assert numbers.numbers_in("all 6 > pretrained", text=False) == []
    assert numbers.numbers_in(True) == [] and numbers.numbers_in(None) == []
