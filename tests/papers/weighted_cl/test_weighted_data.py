"""Integrity of the CIFAR-100 class list used by weighted-cl notebook 04 (App. E). The paper's tables are tested in
tests/papers/weighted_cl/test_weighted_cl_tables.py."""

from __future__ import annotations

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
