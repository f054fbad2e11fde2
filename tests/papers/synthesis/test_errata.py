"""companion.papers.synthesis.errata: printed numbers, printed averages against row means, SimACE's margin read in
radians, the circumplex marks printed twice."""

import math

import pandas as pd
import pytest

from companion.papers.synthesis import errata


def test_as_number_reads_printed_forms():
    assert errata.as_number("30°") == 30.0 and errata.as_number("3,063") == 3063.0
    assert errata.as_number("3k") == 3000.0 and errata.as_number("−0.111") == -0.111
    assert errata.as_number(12) == 12.0
    with pytest.raises(ValueError):
        errata.as_number("N/A")


def test_average_mismatches_flags_only_beyond_rounding():
    t = pd.DataFrame({"model": ["ok", "edge", "off", "lost"], "a": [1.0, 1.0, 1.0, 1.0], "b": [2.0, 2.01, 2.0, 2.0],
                      "Avg.": ["1.50", "1.51", "1.53", ""]})
    out = errata.average_mismatches(t, ["a", "b"], "Avg.", ["model"]).set_index("model")
    assert list(out.index) == ["ok", "edge", "off"]  # the empty average is skipped, not invented
    assert out["off"].tolist() == [False, False, True]
    assert out.loc["off", "|printed - mean|"] == pytest.approx(0.03)


def test_simace_radian_margin_is_a_shifted_decoupled_loss_that_trains():
    """§4.2's '10 (radians)' read literally: every positive logit lies below every negative one, yet the loss is the
    decoupled loss plus m/tau, its gradients are not zero, and free vectors train to top-1 retrieval 1.00."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    rad = errata.simace_margin_toy(10.0, n=12, dim=8, tau=0.06, steps=30, seed=0)
    assert rad["shift_gap"] < 1e-9 and rad["loss start"] > 10.0 / 0.06
    assert rad["min anchor gradient"] > 1e-3
    assert rad["top-1 start"] < 0.5 and rad["top-1 end"] == 1.0
    deg = errata.simace_margin_toy(math.radians(10), n=12, dim=8, tau=0.06, steps=30, seed=0)
    assert deg["shift_gap"] > 1e-3  # 10 degrees is a margin: the positive stays in the denominator
    assert deg["top-1 end"] == 1.0
    assert errata.simace_margin_toy(10.0, n=12, dim=8, steps=30, seed=0) == rad  # deterministic


def test_simace_logits_radians_is_the_library_loss_within_its_range():
    torch = pytest.importorskip("torch")
    from companion.losses.simace import contrastive_logits

    gen = torch.Generator().manual_seed(1)
    z1, z2 = torch.randn(2, 5, 4, generator=gen, dtype=torch.float64)
    torch.testing.assert_close(errata.simace_logits_radians(z1, z2, 0.06, math.radians(10)),
                               contrastive_logits(z1, z2, "simace", 0.06, 10.0))


def test_shared_marks_pairs_table1_with_table4_averages():
    t1 = pd.DataFrame({"method": ["Pretrained", "A"], "head": ["", "GPT"], "m1 V-Measure": ["0.1", "0.5"],
                       "m1 CD-r": ["0.2", "0.3"], "underlined": ["", "m1 CD-r"]})
    t4 = pd.DataFrame({"base_model": ["m1"], "method": ["A"], "head": ["GPT"], "Average V-Measure": ["0.5"],
                       "Average CD-r": ["0.3"], "underlined": ["Average V-Measure"]})
    out = errata.shared_marks(t1, t4)
    assert out[["column", "Table 1 underlined", "Table 4 underlined"]].values.tolist() == [
        ["m1 V-Measure", False, True], ["m1 CD-r", True, False]]
    with pytest.raises(KeyError):
        errata.shared_marks(t1.assign(method=["Pretrained", "B"]), t4)


def test_geometry_opposites_move_the_two_definitions_apart():
    out = errata.geometry_opposites(seed=0).set_index(["quantity", "cloud"])
    for quantity, (a, b) in {"anisotropy": ("offset", "one long axis"),
                             "effective rank": ("one large, 100 small", "6 equal")}.items():
        h = out.loc[(quantity, b), "App. H"] - out.loc[(quantity, a), "App. H"]
        d = out.loc[(quantity, b), "App. D.6"] - out.loc[(quantity, a), "App. D.6"]
        assert h * d < 0, quantity  # one definition rises where the other falls
    assert out.loc[("effective rank", "6 equal"), ["App. H", "App. D.6"]].tolist() == pytest.approx([6.0, 6.0])


def test_concepts_geometry_claims_name_the_definition_each_uses(tmp_path):
    import json

    folder = tmp_path / "concepts"
    folder.mkdir()
    claims = [{"id": "P1_aniso_falls", "claim": "P1: anisotropy falls", "verdict": "passed"},
              {"id": "T11_erank", "claim": "Table 11: effective rank stays", "verdict": "failed"},
              {"id": "d5_lead_share_falls", "claim": "the leading share falls", "verdict": "passed"},
              {"id": "r10_up", "claim": "R@10 rises", "verdict": "passed"}]
    claims = [{**c, "kind": "check"} for c in claims]
    for nb, cs in (("01-representational-compositionality", claims[2:]), ("03-principles", claims[:2])):
        (folder / f"{nb}.json").write_text(json.dumps({"schema": 2, "paper": "concepts", "notebook": nb,
                                                       "profile": "cpu", "seeds": [0], "claims": cs}))
    out = errata.concepts_geometry_claims(tmp_path).set_index("id")["uses"].to_dict()
    assert out == {"d5_lead_share_falls": "App. D.6 anisotropy", "P1_aniso_falls": "App. H anisotropy",
                   "T11_erank": "App. H effective rank"}


def _ledger(tmp_path, claims):
    import json

    folder = tmp_path / "paper"
    folder.mkdir(exist_ok=True)
    ledger = {"schema": 2, "paper": "paper", "notebook": "01-nb", "profile": "cpu", "seeds": [0], "claims": claims}
    (folder / "01-nb.json").write_text(json.dumps(ledger), encoding="utf-8")
    return tmp_path


def _evidence(*rows):
    return pd.DataFrame(rows, columns=["erratum", "finding", "ledger", "claim", "confirms"])


def _statements():
    return pd.DataFrame({"id": ["paper-thm-typo"], "paper": ["paper"], "value": [float("nan")],
                         "source": ["paper | Thm 1"]}).set_index("id")


def test_evidence_confirms_only_when_every_named_verdict_matches(tmp_path):
    root = _ledger(tmp_path, [{"id": "a", "kind": "beyond", "verdict": "not reproduced", "ours": 1.0,
                               "regime": "paper setting"},
                              {"id": "b", "kind": "check", "verdict": "passed", "ours": True}])
    ev = _evidence(("paper-thm-typo", "typo", "paper/01-nb", "a", "not reproduced"),
                   ("paper-thm-typo", "typo", "paper/01-nb", "b", "failed|inconclusive"))
    table = errata.evidence_table(ev, root)
    assert table["confirmed"].tolist() == [True, False]
    [claim] = errata.evidence_claims(_statements(), table)
    assert claim["id"] == "paper:thm-typo" and claim["source"] == "paper | Thm 1" and claim["paper_value"] is None
    assert list(claim["ours"].values()) == [True, False]
    assert claim["criterion"].verdict(claim["ours"]) == "partly"
    # the class decides the criterion: a minor erratum's criterion names its convention
    from companion.results import minor_erratum

    [minor] = errata.evidence_claims(_statements(), table,
                                     criterion_for=lambda i, what: minor_erratum(what, "rounding"))
    assert minor["criterion"].name == "minor" and "minor: rounding" in minor["criterion"].description


def test_evidence_naming_a_missing_claim_or_ledger_raises(tmp_path):
    root = _ledger(tmp_path, [{"id": "a", "kind": "beyond", "verdict": "reproduced", "regime": "paper setting"}])
    with pytest.raises(KeyError, match="no claim 'renamed'"):
        errata.evidence_table(_evidence(("paper-thm-typo", "t", "paper/01-nb", "renamed", "reproduced")), root)
    with pytest.raises(FileNotFoundError, match="no ledger paper/02-nb"):
        errata.evidence_table(_evidence(("paper-thm-typo", "t", "paper/02-nb", "a", "reproduced")), root)


def test_committed_errata_evidence_names_existing_claims_and_statements():
    from companion.settings import repo_root

    root = repo_root()
    statements = pd.read_csv(root / "data/synthesis/errata_statements.csv", comment="#", dtype=str).set_index("id")
    evidence = pd.read_csv(root / "data/synthesis/errata_evidence.csv", comment="#", dtype=str)
    table = errata.evidence_table(evidence, root / "results")  # raises on a renamed claim
    assert set(evidence["erratum"]) <= set(statements.index)
    assert len(errata.evidence_claims(statements, table)) == evidence["erratum"].nunique()
