"""``python -m companion run --profile gpu --plan``: every notebook is planned, the FLOP arithmetic is the one a reader
would do by hand, runs shared through a run cache are counted once, a calibration file replaces the estimate for
its path, and the command needs no GPU, runs nothing and refuses other profiles in one line."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.__main__ import main
from companion.publish import plan, runner
from companion.publish.notebooks import list_notebooks, notebook_settings
from companion.publish.plan_grids import GRIDS, PARAMS
from companion.publish.plan_tokens import Lengths

REPO = Path(__file__).resolve().parents[2]
ANGLE_03 = "angle/03-ablation-and-analysis"


@pytest.fixture(scope="module")
def frame():
    return plan.plan_frame()


def _hist(source: str) -> dict[int, int]:
    raw = json.loads((REPO / "data" / "gpu-plan-tokens.json").read_text(encoding="utf-8"))
    return {int(k): v for k, v in raw["sources"][source]["counts"].items()}


def test_lengths_are_the_mean_and_the_expected_longest_of_a_batch():
    lengths = Lengths({1: 1, 3: 1})
    assert lengths.n == 2 and lengths.mean() == 2 and lengths.mean(cap=2) == 1.5
    # two draws: both of length 1 with probability 1/4, else the longest is 3
    assert lengths.padded(2) == pytest.approx(0.25 * 1 + 0.75 * 3)
    assert lengths.padded(2, cap=2) == pytest.approx(0.25 * 1 + 0.75 * 2)
    assert lengths.padded(1) == pytest.approx(lengths.mean())


def test_angle_03_costs_what_a_hand_computation_gives(frame):
    """AnglE Table 4 on BERT-base: (6 objectives + 3 extra runs + 4 poolings other than cls) x 3 seeds, 537 steps of
    32 pairs (64 texts padded together, cut at 128), STS-B dev at steps 0, 125, 250, 375, 500 and 537, STS-B test at
    the end; 6 x params x training tokens + 2 x params x evaluation tokens at 0.35 of 989 / 495 TFLOP/s, no step
    faster than SimACE Table 8's (64 min for 10^6 / 64 steps on an A100, times 312 / 989 for the H100)."""
    cfg = notebook_settings(ANGLE_03)("gpu")
    assert (cfg["steps"], cfg["batch_size"], cfg["max_length"], cfg["eval_every"]) == (537, 32, 128, 125)
    runs, steps, batch = (6 + 3 + 4) * 3, 537, 32
    train = _hist("stsb-train")
    n = sum(train.values())
    below, padded = 0, 0.0  # E[longest of 64 texts] = sum_k k (F(k)^64 - F(k-1)^64); no text reaches 128
    for k in sorted(train):
        before = (below / n) ** 64
        below += train[k]
        padded += k * ((below / n) ** 64 - before)
    tokens = runs * steps * batch * 2 * padded
    dev, test = _hist("stsb-dev"), _hist("stsb-test")
    evals = runs * (6 * sum(k * c for k, c in dev.items()) + sum(k * c for k, c in test.items()))
    flops = 6 * 110e6 * tokens + 2 * 110e6 * evals
    floor = 64 * 60 / (10**6 / 64) * 312 / 989  # seconds a step, BERT-base's 12 layers
    row = frame[frame.notebook == ANGLE_03].iloc[0]
    assert (row.runs, row.steps, row.batch) == (runs, runs * steps, batch)
    assert row.train_tokens == pytest.approx(tokens) and row.eval_tokens == pytest.approx(evals)
    assert row.flops == pytest.approx(flops)
    for column, peak in (("bf16_h", 989e12), ("fp32_h", 495e12)):
        want = max(6 * 110e6 * tokens / (peak * 0.35), runs * steps * floor) + 2 * 110e6 * evals / (peak * 0.35)
        assert getattr(row, column) == pytest.approx(want / 3600)
    assert runs * steps * floor > 6 * 110e6 * tokens / (989e12 * 0.35)  # such small steps: the floor decides


def test_the_step_floor_is_table_8_s_step_moved_to_the_h100_per_layer():
    assert plan.table8_step_s() == pytest.approx(64 * 60 / 15_625)
    assert plan.step_floor_s(12) == pytest.approx(64 * 60 / 15_625 * 312 / 989)
    assert plan.step_floor_s(24) == pytest.approx(2 * plan.step_floor_s(12))


def test_the_full_grid_is_the_papers_and_the_default_grid_fits_one_gpu_day():
    """--grid full prices the paper's grid (AnglE's 20 epochs of the released script, SimACE's five seeds and its
    RoBERTa-base and MLM runs); the default grid, what --profile gpu runs, stays within one GPU-day and a tenth."""
    full, day = plan.plan_frame(gpu_grid="full"), plan.plan_frame()
    assert full.attrs["gpu_grid"] == "full" and day.attrs["gpu_grid"] == "day"
    assert full[full.notebook == ANGLE_03].iloc[0].steps_per_run == str(20 * (5_749 // 32))
    simace = full[full.notebook == "simace/02-sts-experiments"]
    assert simace.work.str.contains("roberta-base").any() and simace.work.str.contains("MLM").any()
    assert not day[day.notebook == "simace/02-sts-experiments"].work.str.contains("roberta-base|MLM").any()
    assert day.bf16_h.sum() < full.bf16_h.sum() / 2 and day.bf16_h.sum() <= 24 * 1.1
    text = plan.format_plan(full)
    assert "of the full grid" in text and "of the day grid" in plan.format_plan(day)
    # the day grid's total says whether it fits, in words; the full grid's does not pretend to
    fit = "OVER one GPU-day" if day.bf16_h.sum() > 24 else "within one GPU-day"
    assert fit in " ".join(plan.format_plan(day).split()) and "GPU-day (24 h)" not in " ".join(text.split())
    assert plan._day_fit(26.04) == "2.0 h OVER one GPU-day (24 h) in bf16 by this estimate"
    assert plan._day_fit(23.0) == "within one GPU-day (24 h) in bf16, 1.0 h to spare"
    with pytest.raises(ValueError, match="Unknown gpu grid"):
        plan.plan_frame(ANGLE_03, gpu_grid="week")


def test_every_notebook_is_planned(frame):
    keys = [nb.key for nb in list_notebooks()]
    assert set(GRIDS) == set(keys)
    assert list(dict.fromkeys(frame.notebook)) == keys  # in the run order, none left out
    cpu = frame[frame.bf16_h.isna()]
    assert cpu.note.str.startswith("CPU-class: ").all() and len(cpu) == cpu.notebook.nunique()
    gpu = frame[frame.bf16_h.notna()]
    free = gpu[gpu.bf16_h == 0]  # nothing is 0 silently: a free row is one whose runs an earlier notebook trains
    assert ((free.runs == 0) & (free.reloaded > 0)).all() and "circumplex/05-fine-tuned-backbone" in set(free.notebook)
    assert set(gpu.backbone) - {""} <= set(PARAMS)


def test_runs_shared_through_a_run_cache_are_counted_once():
    both = plan.plan_frame("simace/02,simace/03")
    alone = plan.plan_frame("simace/03")
    row = both[both.notebook == "simace/03-analysis"].iloc[0]
    assert (row.runs, row.reloaded) == (3 * 3, 5 * 3) and "reloaded from simace/02" in row.work  # 3 seeds a run
    assert (alone.runs.sum(), alone.reloaded.sum()) == (8 * 3, 0)
    full = plan.plan_frame("simace/02,simace/03", gpu_grid="full")  # the full grid's five seeds
    row = full[full.notebook == "simace/03-analysis"].iloc[0]
    assert (row.runs, row.reloaded) == (3 * 5, 5 * 5)


def test_a_calibration_file_replaces_the_estimate_for_its_path(tmp_path):
    estimate = plan.plan_frame(ANGLE_03).iloc[0]
    (tmp_path / "times.json").write_text(json.dumps({estimate.path: {"bf16": 0.25}}), encoding="utf-8")
    calibrated = plan.plan_frame(ANGLE_03, step_times=tmp_path / "times.json").iloc[0]
    assert calibrated.bf16_h == pytest.approx(39 * 537 * 0.25 / 3600) and calibrated.measured == "bf16"  # no floor
    assert calibrated.fp32_h == pytest.approx(estimate.fp32_h)  # no fp32 time given: still the estimate
    text = " ".join(plan.format_plan(plan.plan_frame(ANGLE_03, step_times=tmp_path / "times.json")).split())
    assert f" {39 * 537 * 0.25 / 3600:.1f}* " in text and f"replace the estimate (*) for {estimate.path}" in text
    (tmp_path / "bad.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match="is not"):
        plan.read_step_times(tmp_path / "bad.json")


def test_the_table_fits_120_columns_and_says_what_it_assumes(frame):
    text = plan.format_plan(frame)
    assert max(len(line) for line in text.splitlines()) <= 120
    total = next(line for line in text.splitlines() if line.startswith("total: "))
    assert f"{frame.bf16_h.sum():.1f} GPU hours in bf16" in total
    for needed in ("H100 (assumed)", "989 TFLOP/s", "0.35", "model cards", "data/gpu-step-times.json",
                   "SimACE's Table 8", "floor"):
        assert needed in text


def test_plan_runs_nothing(monkeypatch, capsys):
    monkeypatch.setattr(runner, "run", lambda *a, **k: pytest.fail("--plan started a run"))
    monkeypatch.setattr(runner, "visible_gpus", lambda: [])
    assert main(["run", "--profile", "gpu", "--plan", "--only", ANGLE_03]) == 0
    assert "total: " in capsys.readouterr().out
    assert main(["run", "--profile", "gpu", "--plan", "--grid", "full", "--only", ANGLE_03]) == 0
    assert "of the full grid" in capsys.readouterr().out


def test_the_command_prints_the_total_without_cuda():
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}  # no GPU for this process, whatever the machine has
    out = subprocess.run([sys.executable, "-m", "companion", "run", "--profile", "gpu", "--plan"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "\ntotal: " in out.stdout and "H100 (assumed)" in out.stdout


@pytest.mark.parametrize("args", [["--profile", "cpu", "--plan"], ["--profile", "gpu", "--plan", "--dry-run"]])
def test_plan_outside_the_gpu_profile_is_refused_in_one_line(args):
    out = subprocess.run([sys.executable, "-m", "companion", "run", *args], capture_output=True, text=True)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("error: --plan") and out.stderr.count("\n") == 1
