"""Notebook 03's second regime (companion.papers.concepts.backbone) on a tiny random 12-layer MPNet: one run per
condition and seed, cached on disk and read back without training, every claim recorded once under its prefix, and
the placeholders of a profile that does not run it."""

import pytest

from companion.papers.concepts import backbone as B
from companion.profiles import stand_in

pytestmark = pytest.mark.slow  # about 20 s: 14 tiny runs and the WordNet pools

RECIPE = dict(batch=4, lr=2e-4, pooling_lr_mult=5.0, layer_decay=0.9, tau=0.05, warmup_frac=100 / 8000,
              profile="smoke")


@pytest.fixture(scope="module")
def regime(tmp_path_factory):
    from companion.papers.concepts.data import load_concepts

    mp = pytest.MonkeyPatch()
    mp.setenv("COMPANION_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    try:
        data = load_concepts()
    except Exception as err:  # noqa: BLE001 - machines without the WordNet mirror
        mp.undo()
        pytest.skip(f"WordNet data not available: {err}")
    s = dict(model=stand_in(B.MPNET), seeds=[0, 1], n_rows=12, n_split_rows=12, n_train=16, steps=3, n_top=2,
             p1_every=1, conditions=list(B.REGIME_CONDITIONS), k=4, max_length=32, max_negatives=1)
    first = B.run_backbone_regime(s, data, RECIPE, progress=False)
    again = B.run_backbone_regime(s, data, RECIPE, progress=False)
    yield s, first, again
    mp.undo()


def test_the_regime_trains_each_condition_and_seed_once_then_reads_the_cache(regime):
    s, first, again = regime
    assert first.cached_runs == 0 and again.cached_runs == len(again.ft) == 2 * len(B.REGIME_CONDITIONS)
    assert first.ft.equals(again.ft)
    assert first.table.equals(again.table)
    assert sorted(first.curves["step"].unique()) == [0, 1, 2, 3]  # step 0 = frozen, then every p1_every
    assert list(first.p2.columns[2:]) == ["t2d MRR h11", "anisotropy h11"]  # the trained layer below the last
    assert "top 2 of 12 layers, 3 steps" in first.regime and "8k steps" in first.regime
    assert set(first.summary().index) == {"B0", "B0-WM", *B.REGIME_CONDITIONS}


def test_every_claim_is_recorded_once_under_the_prefix(regime):
    from companion.papers.concepts.data import paper_numbers
    from companion.results import Ledger

    _, reg, _ = regime
    pv = paper_numbers().dropna(subset=["number"]).set_index(["table", "row", "column"])["number"]
    ledger = Ledger("concepts", "03-backbone-test", profile="smoke", seeds=[0, 1])
    B.backbone_claims(ledger, reg, pv)
    ids = [c["id"] for c in ledger.claims]
    assert sorted(ids) == sorted(B.PREFIX + c for c in B.CLAIM_IDS)
    assert all(reg.name in (c.get("regime") or "") for c in ledger.claims)
    skipped = Ledger("concepts", "03-backbone-skip", profile="smoke", seeds=[0])
    B.backbone_claims(skipped, None, pv, skipped="not run")
    assert [c["id"] for c in skipped.claims] == [B.PREFIX + c for c in B.CLAIM_IDS]
    assert {c["verdict"] for c in skipped.claims} == {"not testable"}
