"""The benchmark code paths on tiny inputs (seconds). Nothing here asserts a timing."""

import json
import math
from types import SimpleNamespace

import pytest
import torch

from benchmarks import bench_heads, bench_losses, bench_project
from benchmarks.common import ratio_entry, summary, time_side_by_side
from benchmarks.run import main, render


def test_summary_statistics_by_hand():
    s = summary([4.0, 1.0, 3.0, 2.0])
    assert (s["n"], s["median_s"], s["min_s"], s["max_s"]) == (4, 2.5, 1.0, 4.0)
    assert (s["q1_s"], s["q3_s"], s["iqr_s"]) == (1.75, 3.25, 1.5)
    with pytest.raises(ValueError):
        summary([])


def test_side_by_side_interleaves_and_counts():
    calls = []
    t = time_side_by_side({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, repeats=3, warmup=1)
    assert len(t["a"]) == len(t["b"]) == 3
    assert calls == ["a", "b", "a", "b", "b", "a", "a", "b"]  # warm-up, then the order rotates per repeat
    with pytest.raises(ValueError):
        time_side_by_side({"a": lambda: None}, repeats=0)


def test_ratio_entry_goal():
    e = ratio_entry([2.0, 2.0], [1.0, 4.0], 1.0, "<= 1")
    assert e["ratio"] == pytest.approx(2.0 / 2.5) and e["met"] is True
    assert e["ratio_spread"] == [0.5, 2.0]
    assert ratio_entry([3.0], [1.0], 1.0, "<= 1")["met"] is False


def test_supcon_reference_matches_hand_computation():
    z = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], dtype=torch.float64)
    y = torch.tensor([0, 0, 1, 1])
    tau = 0.5
    # anchor 0: positive 1 (cos 1), others cos 0: -log(e^2 / (e^2 + 2))
    expected = -math.log(math.exp(2.0) / (math.exp(2.0) + 2))  # the same for every anchor by symmetry
    assert bench_losses.supcon_reference(z, y, tau).item() == pytest.approx(expected, abs=1e-12)


def test_losses_quick_compare_values_agree_with_peers():
    out = bench_losses.compare(pairs=8, dim=16, repeats=2, warmup=1)
    assert set(out) == {"CoSENT", "AnglE angle", "InfoNCE", "SimCSE", "SupCon"}
    for name, c in out.items():
        assert c["values_equal"], name  # same maths as sentence-transformers / the Khosla-form reference
        assert c["grad_max_abs_diff_float64"] < 1e-9, name
        assert c["ours"]["n"] == c["peer"]["n"] == 2


def test_losses_scaling_has_no_python_loop_over_the_batch():
    out = bench_losses.scaling(sizes=(8, 32), dim=16, repeats=2, warmup=1)
    for name, c in out.items():
        assert c["same_ops_for_every_B"], name
        assert set(c["sizes"]) == {"8", "32"}


def test_heads_quick():
    out = bench_heads.run(quick=True, repeats=2)["nGPT_vs_GPT"]
    assert out["ours"]["n"] == out["peer"]["n"] == 2 and out["ratio"] > 0


def test_project_smoke_with_a_fake_runner_and_cpu_times(tmp_path):
    nb = lambda key: SimpleNamespace(key=key)  # noqa: E731
    fake = [SimpleNamespace(notebook=nb("a/01-x"), status="ok", wall_time_s=1.25, error=None),
            SimpleNamespace(notebook=nb("b/02-y"), status="failed", wall_time_s=2.0, error="cell 3")]
    sm = bench_project.smoke(run_fn=lambda profile, only=None, jobs=1: fake)
    assert sm["smoke_notebooks_s"] == {"a/01-x": 1.2, "b/02-y": 2.0} and sm["smoke_total_s"] == 3.2
    assert sm["failed"] == {"b/02-y": "cell 3"} and sm["met"] is False
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "01-x.provenance.json").write_text(json.dumps({"profile": "cpu", "wall_time_s": 950.0}))
    (tmp_path / "p" / "02-y.provenance.json").write_text(json.dumps({"profile": "smoke", "wall_time_s": 1.0}))
    cp = bench_project.cpu_times(tmp_path)
    assert list(cp["cpu_notebooks"]) == ["p/01-x"] and cp["met"] is False and cp["missed"] == ["p/01-x"]


def test_cli_quick_writes_json_and_markdown(tmp_path):
    assert main(["--quick", "--only", "losses,cpu", "--repeats", "2", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert set(report) == {"losses", "cpu"}
    assert report["losses"]["environment"]["load_average_1_5_15"] is not None
    md = (tmp_path / "REPORT.md").read_text()
    assert "## Summary" in md and "CoSENT" in md and "ratio" in md
    assert render(report) == md
    assert main(["--render", "--out", str(tmp_path)]) == 0


def test_encode_quick_parity_with_sentence_transformers():
    from benchmarks import bench_encode

    out = bench_encode.run(quick=True, repeats=1, n_texts=8)
    assert out["spearman"]["met"] and out["cached"]["cached_equals_cold"]
    assert out["max_abs_diff_embeddings_vs_peer"] < 1e-5
    assert out["cold"]["ours"]["n"] == out["cold"]["peer"]["n"] == 1
