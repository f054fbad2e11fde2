"""companion.papers.synthesis.classes: every erratum classified once, the criterion its class gives, and the
committed classification against the errata notebook, the auditor's dispositions and the evidence file."""

from __future__ import annotations

import pytest

from companion.papers.synthesis import classes

HEADER = "id,paper,class,into,rule,location,why\n"


def _write(tmp_path, rows: str):
    folder = tmp_path / "data" / "synthesis"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "errata_classes.csv").write_text(HEADER + rows, encoding="utf-8")
    return tmp_path


def test_criterion_follows_the_class(tmp_path):
    root = _write(tmp_path, "angle:a,angle,erratum,,same,Table 2,two prints\n"
                            "angle:b,angle,minor,,average,Table 2,within the printed rounding\n"
                            "angle:c,angle,withdrawn,,order,§4.3,a reading agrees\n"
                            "angle:d,angle,merged,angle:a,same,Table 3,one root cause\n")
    kinds = classes.read_classes(root)
    assert classes.recorded(kinds) == ["angle:a", "angle:b"]
    assert classes.criterion(kinds, "angle:a", "x").name == "holds"
    minor = classes.criterion(kinds, "angle:b", "x")
    assert minor.name == "minor" and "within the printed rounding" in minor.description
    for gone in ("angle:c", "angle:d"):
        with pytest.raises(ValueError, match="not recorded"):
            classes.criterion(kinds, gone, "x")
    with pytest.raises(KeyError, match="not classified"):
        classes.criterion(kinds, "angle:zzz", "x")


@pytest.mark.parametrize(("rows", "problem"), [
    ("angle:a,angle,serious,,same,T,w\n", "unknown class"),
    ("angle:a,angle,erratum,,guess,T,w\n", "unknown rule"),
    ("angle:a,angle,erratum,,same,T,\n", "no why"),
    ("angle:a,angle,erratum,,same,T,w\nangle:a,angle,minor,,same,T,w\n", "listed twice"),
    ("angle:a,angle,merged,angle:b,same,T,w\n", "not a recorded erratum"),
    ("angle:a,angle,erratum,angle:b,same,T,w\n", "only for merged"),
    ("angle:a,simace,erratum,,same,T,w\n", "not the id's prefix"),
])
def test_a_bad_classification_is_refused(tmp_path, rows, problem):
    with pytest.raises(ValueError, match=problem):
        classes.read_classes(_write(tmp_path, rows))


def test_an_auditor_finding_splits_into_two_places():
    assert classes._split("Table 1 [x] = 0.739; Table 4 [x] = 0.741") == ("Table 1 [x] = 0.739", "Table 4 [x] = 0.741")
    assert classes._split("Table 3 [a, MRPC] > Table 3 [b, MRPC]") == ("Table 3 [a, MRPC]", "Table 3 [b, MRPC]")
    assert classes._split("one place") == ("one place", "")


# ------------------------------------------------------------------------------- the committed classification
@pytest.fixture(scope="module")
def committed():
    from companion.settings import repo_root

    return repo_root(), classes.read_classes(repo_root())


def test_the_notebook_records_exactly_the_recorded_classes(committed):
    from companion.papers.synthesis import audit

    root, kinds = committed
    ids = audit.errata_ids(root)  # the notebook's literal claim ids and those built from errata_evidence.csv
    recorded = set(classes.recorded(kinds))
    assert recorded <= ids, recorded - ids
    assert not (ids & set(kinds.index[~kinds["class"].isin(classes.RECORDED)])), "a withdrawn erratum is recorded"
    assert {"minor"} <= set(kinds["class"]) and {"withdrawn", "merged"} <= set(kinds["class"])


def test_the_auditor_assigns_findings_to_recorded_errata_only(committed):
    from companion.papers.synthesis import audit

    root, kinds = committed
    errata, allowed = audit.read_dispositions(root)
    assert set(errata.values()) <= set(classes.recorded(kinds))
    # the findings of withdrawn errata are explained in the allow-list, with a reason the header names
    assert {reason for reason, _ in allowed.values()} <= {"rounding", "convention", "reading", "unstated",
                                                          "coincidence"}


@pytest.mark.slow
def test_sides_show_each_recorded_erratum_found_by_a_rule(committed):
    root, kinds = committed
    found = classes.sides(root)
    assert set(found) == set(classes.recorded(kinds))  # every recorded erratum has its cells side by side
    both = found["circumplex:table1-vs-table4"][0]
    assert both["rule"] == "same" and "0.739" in both["a"] and "0.741" in both["b"]
    assert any(s["rule"] == "formula" and "differ at" in s["recomputed"] for s in found["weighted-cl:soft-tau-star"])
