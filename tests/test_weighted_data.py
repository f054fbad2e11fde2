"""Integrity of the weighted-cl data tables (Vock et al., arXiv 2605.13943): paper values and the CIFAR-100 class
list used by notebook 04 (App. E)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from companion.losses.weighted import (
    hard_supcon_optimal_loss,
    soft_supcon_simplex_tau,
    soft_supcon_simplex_tau_paper,
)
from companion.settings import REPO_ROOT

DATA = REPO_ROOT / "data" / "weighted-cl"


def _classes():
    lines = (DATA / "cifar100_classes.txt").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def test_cifar100_class_list():
    names = _classes()
    assert len(names) == 100 and len(set(names)) == 100
    assert names == sorted(names)  # CIFAR-100's fine labels are indexed alphabetically
    assert names[0] == "apple" and names[-1] == "worm" and "aquarium_fish" in names and "willow_tree" in names
    assert all(n.replace("_", "").isalpha() and n == n.lower() for n in names)


def test_paper_values_table():
    table = pd.read_csv(DATA / "paper_values.csv")
    assert list(table.columns) == ["id", "quantity", "paper_value", "source"]
    assert table["id"].is_unique and table["source"].str.len().min() > 5
    values = table.set_index("id")["paper_value"].astype(float)
    for C in (3, 4, 10):
        assert values[f"hard-simplex-cos-C{C}"] == pytest.approx(-1 / (C - 1), abs=1e-9)
    assert values["soft-tau-star-paper"] == pytest.approx(soft_supcon_simplex_tau_paper(10, math.exp(-1)))
    assert values["soft-tau-star-correct"] == pytest.approx(soft_supcon_simplex_tau(10, math.exp(-1)),
                                                                          abs=1e-9)
    # the imbalanced cosines are ordered minority > mixed > majority (Thm 3.13)
    assert values["imb-3-3-cos-minority"] > values["imb-3-6-cos-mixed"] > values["imb-6-6-cos-majority"]
    assert values["euclid-soft-q-threshold"] == 9
    assert hard_supcon_optimal_loss(10, 5, 0.1) > math.log(4)
