"""SimACE App. F's RBF objective (Eq. 15) in training (the loss itself: tests/core/losses/test_simace.py): a tiny
model trained on it, bad run settings; its run plan, the dev selection of sigma and the gap-stability check of the
dev curves."""

import pandas as pd
import pytest
import torch

from companion.dropout_views import dropout_view_loss, run_dropout_views
from companion.losses.simace import rbf_loss
from companion.papers.simace import rbf_jobs, rbf_name, run_jobs
from companion.papers.simace.analysis import gap_stability, select_sigma
from companion.papers.simace.runs import split_spec


def views(n=6, d=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    z1 = torch.randn(n, d, generator=g, dtype=torch.float64)
    return z1, z1 + 0.7 * torch.randn(n, d, generator=g, dtype=torch.float64)


def test_rbf_gradient_is_finite_and_trains_a_tiny_model():
    z1, z2 = views()
    z1 = z1.clone().requires_grad_(True)
    rbf_loss(z1, z2, 0.5).backward()
    assert torch.isfinite(z1.grad).all() and z1.grad.abs().sum() > 0
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Dropout(0.2), torch.nn.Linear(16, 8))
    data = torch.randn(32, 4)
    fn = dropout_view_loss(lambda b: model(data[[int(t) for t in b]]), [str(i) for i in range(32)], "rbf", 0.05,
                           sigma=0.7)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    first = None
    for _ in range(30):
        loss = fn(torch.arange(16))
        first = loss.item() if first is None else first
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < first


def test_rbf_run_bad_input():
    z1, _ = views()
    with pytest.raises(ValueError, match="needs sigma"):
        run_dropout_views(None, ["a", "b"], "rbf", 0.05, 0.0, 1, 2, 1e-4, 0)
    with pytest.raises(ValueError, match="sigma"):
        dropout_view_loss(lambda b: z1, ["a"], "rbf", 0.05, sigma=-1)


def test_rbf_run_plan():
    assert rbf_jobs([0, 1], [0.5, 1.0]) == [("RBF σ=0.5", ("rbf", 0.05, 0.0, 0.5), 0),
                                            ("RBF σ=1", ("rbf", 0.05, 0.0, 1.0), 0),
                                            ("RBF σ=0.5", ("rbf", 0.05, 0.0, 0.5), 1),
                                            ("RBF σ=1", ("rbf", 0.05, 0.0, 1.0), 1)]
    assert rbf_name(0.7) == "RBF σ=0.7"
    assert split_spec(("simace", 0.06, 10.0)) == ("simace", 0.06, 10.0, None)
    assert split_spec(("rbf", 0.05, 0.0, 0.7)) == ("rbf", 0.05, 0.0, 0.7)
    assert all(split_spec(spec)[3] is None for _, spec, _ in run_jobs([0]))  # the other runs keep their keys
    with pytest.raises(ValueError, match="at least one sigma"):
        rbf_jobs([0], [])
    with pytest.raises(ValueError, match="must be a finite number > 0"):
        rbf_jobs([0], [0.0])
    with pytest.raises(ValueError, match="run spec"):
        split_spec(("rbf", 0.05))


def test_select_sigma_takes_the_best_dev_checkpoint():
    finals = pd.DataFrame({"model": ["SimCSE", "RBF σ=0.5", "RBF σ=1", "RBF σ=0.7"], "seed": [0] * 4,
                           "dev (best)": [99.0, 80.0, 81.5, 81.5], "best step": [10] * 4,
                           "STS avg": [70.0, 90.0, 60.0, 61.0]})
    sigma, table = select_sigma(finals)
    assert sigma == 0.7  # the tie at 81.5 goes to the smaller sigma; the STS test score plays no part
    assert table["sigma"].tolist() == [0.5, 0.7, 1.0] and table["selected"].tolist() == [False, True, False]
    with pytest.raises(ValueError, match="one seed"):
        select_sigma(finals.assign(seed=[0, 0, 1, 0]))
    with pytest.raises(ValueError, match="no RBF run"):
        select_sigma(finals.iloc[:1])


def _curves(widen: float, climb: float = 0.2):
    """Runs A and B over steps 0..60, three seeds, dev climbing by ``climb`` per step; B trails A by 1 point plus
    ``widen`` per step after step 40 (the last third)."""
    rows = []
    for seed, noise in enumerate([0.0, 0.05, -0.05]):
        for step in range(0, 70, 10):
            dev_a = 70 + climb * step + noise + 0.01 * (-1) ** (step // 10)  # a wiggle: no exactly constant curve
            dev_b = dev_a - 1.0 - widen * max(0, step - 40)
            rows += [{"model": "A", "seed": seed, "step": step, "dev": dev_a},
                     {"model": "B", "seed": seed, "step": step, "dev": dev_b}]
    return pd.DataFrame(rows)


def test_gap_stability_by_hand_and_failing():
    out = gap_stability(_curves(0.0), [("A", "B")]).iloc[0]
    assert out["pair"] == "A − B" and out["gap at the start of the last third"] == pytest.approx(1.0)
    assert out["gap at end"] == pytest.approx(1.0) and bool(out["stable"])
    moved = gap_stability(_curves(0.1), [("A", "B")]).iloc[0]  # B falls 2 more points behind over the last third
    assert moved["gap at end"] == pytest.approx(3.0) and not bool(moved["stable"])  # 2 > 0.25 x 3
    small = gap_stability(_curves(0.01), [("A", "B")]).iloc[0]  # 0.2 <= 0.25 x 1.2: moves, but little
    assert bool(small["stable"])
    with pytest.raises(KeyError, match="no 'dev' curve"):
        gap_stability(_curves(0.0), [("A", "C")])


def test_plateau_validity_runs_or_gap():
    from companion.papers.simace.analysis import plateau_validity

    # both runs still climb 4 points over the last third, but the gap A − B does not move: passed
    ok = plateau_validity(_curves(0.0), "A", "B")
    assert ok.name == "plateau" and ok.passed and "0 of 6 runs" in ok.detail and "is stable" in ok.detail
    # both climb and the gap widens: the claim would be inconclusive (budget)
    bad = plateau_validity(_curves(0.1), "A", "B")
    assert not bad.passed and bad.reason.startswith("budget: 0 of 6 runs") and "not stable" in bad.detail
    # flat runs: at the plateau, whatever the gap does
    assert plateau_validity(_curves(0.0, climb=0.0), "A", "B").passed
    # one model (a level or a gain over the untrained encoder): only its runs count
    assert not plateau_validity(_curves(0.0), "A").passed
    assert plateau_validity(_curves(0.0, climb=0.0), "A").passed
    with pytest.raises(KeyError, match="no curves"):
        plateau_validity(_curves(0.0), "A", "C")


def test_scale_table_reads_the_paper_side_and_claims_summary_formats():
    from types import SimpleNamespace

    from companion import stats
    from companion.papers.simace.summary import claims_summary, scale_table
    from companion.results import Ledger, holds
    from companion.settings import REPO_ROOT

    settings7 = pd.read_csv(REPO_ROOT / "data" / "simace" / "table7_settings.csv", comment="#")
    cfg = SimpleNamespace(model="m", n_top=1, n_heldout=10, steps=640, batch_size=64, lr=1e-4, max_length=32,
                          pooling="cls", n_dev=None, eval_every=64, n_pairs=500, seeds=[0, 1, 2])
    table = scale_table(cfg, 1000, settings7)
    assert table.loc["steps", "ours"].startswith("640 (40.96 passes")
    assert table.loc["batch size", "paper"] == "64 (Table 7)" and table.loc["learning rate (linear decay to 0)",
                                                                              "paper"] == "3e-5 (Table 7)"
    with pytest.raises(ValueError, match="table7_settings has no"):
        scale_table(cfg, 1000, settings7[settings7.setting != "epochs"])
    ledger = Ledger("simace", "test", profile="smoke")
    ledger.claim("a", "gap", 1.0, stats.paired([1.0, 2.0, 3.0], [0.0, 0.0, 0.0]), stats.direction(sign=+1),
                 kind="beyond")
    ledger.claim("b", "checks", None, {"x": True, "y": False}, holds(), kind="check")
    out = claims_summary(ledger)
    assert out.loc["a", "ours"] == "+2.000 [-0.484, +4.484] (n = 3)" and out.loc["b", "ours"] == "1 of 2 true"
    assert out.loc["b", "verdict"] == "failed" and list(claims_summary(ledger, kinds=("check",)).index) == ["b"]
    with pytest.raises(ValueError, match="Unknown claim kind"):
        claims_summary(ledger, kinds=("papers",))
