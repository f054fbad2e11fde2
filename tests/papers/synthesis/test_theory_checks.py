"""companion.papers.synthesis.theory_checks: every closed form equals the library loss at its configuration, and
every placement identity holds."""

import math

import pytest
import torch

from companion.papers.synthesis import theory_checks, theory_placement


def test_softcse_closed_form_equals_the_library_at_its_optimum():
    for ell, tau in ((2, 0.05), (4, 0.1)):
        assert theory_checks.relation_holds(theory_placement.softcse_closed_form(ell, tau), theory_placement.softcse_optimal_loss(ell, tau))

def test_every_closed_form_equals_the_library_loss_at_its_configuration():
    for name, (a, b) in theory_checks.closed_form_checks().items():
        assert theory_checks.relation_holds(a, b), name

def test_every_placement_identity_holds():
    for name, (a, b, rel) in theory_checks.placement_checks().items():
        assert theory_checks.relation_holds(a, b, rel), name

def test_simcse_candidates_are_the_other_view_only():
    # z1 = z2 = (e1, e2) at tau = 1: each anchor's positive has cosine 1, every other sentence cosine 0
    e = torch.eye(2, dtype=torch.float64)
    simcse, masked, full = theory_checks.simcse_against_the_family(e, e.clone(), 1.0)
    assert simcse == pytest.approx(math.log1p(math.exp(-1))) and masked == pytest.approx(simcse)
    assert full == pytest.approx(math.log1p(2 * math.exp(-1)))  # the same-view sentence joins the denominator
    checks = theory_checks.placement_checks(seed=3)
    full, simcse, rel = checks["SimCSE < the family's term over every other example (Def. 3.1)"]
    assert rel == ">" and full > simcse


def test_sincere_is_not_a_weighted_infonce_but_matches_supcon_with_one_positive():
    checks = theory_checks.placement_checks(seed=3)
    a, b, _ = checks["SINCERE = SupCon with 2 examples per label"]
    assert a == pytest.approx(b)
    sup, sincere, rel = checks["SINCERE < SupCon with 4 examples per label"]
    assert rel == ">" and sup > sincere
