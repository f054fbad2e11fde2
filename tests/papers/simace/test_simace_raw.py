"""The raw-encoder regime of simace/02: the sweep's selection and gate, the gate's claim, the regime's claims."""

from __future__ import annotations

import pandas as pd
import pytest

from companion.mlm import finetune
from companion.papers.simace.raw import GATE_REASON, RAW_CLAIMS, gate_claim, raw_claims, sweep_table
from companion.results import Ledger


def _fake_run(gain_by_lr_seed, dev_by_lr):
    def run(profile, settings, cache=None, sts_sets=None, log=print):
        gain = gain_by_lr_seed[(settings.lr, settings.seed)]
        return {"before": {"avg": 40.0}, "after": {"avg": 40.0 + gain}, "gain": gain,
                "settings": {"seed": settings.seed, "lr": settings.lr, "pooling": settings.pooling,
                             "steps": settings.steps},
                "monitor": [{"step": 0, "dev": 50.0}, {"step": 1, "dev": dev_by_lr[settings.lr]}], "best_step": 1,
                "history": [{"step": 1, "loss": 0.5}], "train_s": 1.0, "from_cache": False}
    return run


@pytest.mark.parametrize("gains, passed", [((6.0, 5.5, 5.0), True), ((9.0, 4.9, 8.0), False)])
def test_sweep_chooses_on_dev_and_gates_every_seed(monkeypatch, gains, passed):
    lrs = [s.lr for s in finetune.SWEEP["smoke"].values()]
    chosen_lr = lrs[1]
    table = {(lr, seed): 20.0 for lr in lrs for seed in finetune.GATE_SEEDS}  # a large gain on the other lr ...
    table.update({(chosen_lr, s): g for s, g in zip(finetune.GATE_SEEDS, gains)})
    dev = {lr: 60.0 if lr == chosen_lr else 55.0 for lr in lrs}  # ... which dev does not choose
    monkeypatch.setattr(finetune, "simcse_from_raw", _fake_run(table, dev))
    out = finetune.simcse_sweep("smoke", cache="unused", log=lambda m: None)
    assert finetune.SWEEP["smoke"][out["chosen"]].lr == chosen_lr
    run = list(gains) if passed else list(gains[:2])  # the seeds stop at the first gain below the gate
    assert out["gains"] == run and out["seeds"] == list(finetune.GATE_SEEDS[:len(run)])
    assert out["min_gain"] == min(run) and out["passed"] is passed
    assert len(out["rows"]) == len(lrs) + len(run) - 1
    shown = sweep_table(out)
    assert shown["chosen"].sum() == len(run) and list(shown.columns)[:2] == ["setting", "seed"]


def _table2():
    return pd.DataFrame({"SimCSE": [75.97], "SimCSE_std": [0.5], "ArcCon": [76.76], "ArcCon_std": [0.4],
                         "SimACE": [77.46], "SimACE_std": [0.3]}, index=["BERT-base"])


def test_gate_claim_and_inconclusive_raw_claims():
    ledger = Ledger("simace", "99-test", profile="smoke", seeds=[0])
    sweep = {"chosen": "lr 3e-4", "gains": [1.0, -2.0, 3.0], "min_gain": -2.0, "passed": False}
    assert gate_claim(ledger, sweep) == "failed"
    gate = ledger.claims[-1]
    assert "threshold was set after pilot runs" in gate["claim"] and "set after pilot runs" in gate["note"]
    assert finetune.PILOT_BEST_GAIN < finetune.GATE_GAIN  # the pilots had not reached the gate set after them
    verdicts = raw_claims(ledger, _table2(), sweep, "raw MLM encoder")
    assert verdicts == ["inconclusive"] * len(RAW_CLAIMS)
    claims = {c["id"]: c for c in ledger.claims}
    assert claims["t2-simace-vs-simcse-raw"]["paper_value"] == pytest.approx(1.49)
    assert claims["t2-simace-level-raw"]["paper_value"] == pytest.approx(77.46)
    assert all(GATE_REASON in claims[cid]["reason"] and "raw MLM encoder" in claims[cid]["regime"]
               for cid, _, _ in RAW_CLAIMS)


def test_raw_claims_refuse_a_passed_gate():
    ledger = Ledger("simace", "99-test", profile="smoke", seeds=[0])
    sweep = {"chosen": "lr 3e-4", "gains": [6.0, 7.0, 8.0], "min_gain": 6.0, "passed": True}
    assert gate_claim(ledger, sweep) == "passed"
    with pytest.raises(NotImplementedError, match="gate passed"):
        raw_claims(ledger, _table2(), sweep, "raw MLM encoder")
