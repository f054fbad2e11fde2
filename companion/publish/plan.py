"""``python -m companion run --profile gpu --plan``: every notebook's gpu-profile work and its estimated cost, printed
before anything runs (and nothing runs).

Each notebook's grid is :data:`companion.publish.plan_grids.GRIDS`' function of its gpu settings (its paper's settings
module, :func:`companion.publish.notebooks.notebook_settings`; the default grid, or the paper's full grid with
``--grid full``) and the measured token lengths
(:mod:`companion.publish.plan_tokens`). The cost is an estimate: FLOPs = 6 x parameters x training tokens + 2 x
parameters x evaluation tokens, over a peak throughput (:data:`H100_BF16_PEAK`, :data:`H100_TF32_PEAK`, from the
vendor's datasheet) times an assumed model-FLOPs utilisation (:data:`MFU`), and no training step faster than a floor
(:func:`step_floor_s`): the one published step time of a planned workload (SimACE's Table 8, one SimCSE epoch of
BERT-base on an A100) moved to the H100 by the ratio of their peaks and scaled by the layers a step runs through.
Small steps (a few thousand tokens, the SimCSE, AnglE and concept runs) are bound by that floor, not by their FLOPs:
Table 8's time is about nine times the FLOP estimate of the same run. Where ``data/gpu-step-times.json``
(:data:`STEP_TIMES_FILE`) gives measured seconds per training step for a gpu path, those replace the estimate for
that path's runs, and the output says so. Runs a notebook reloads from an earlier notebook's run cache are counted
once, where they are first trained in the plan's order.

>>> frame = plan_frame()                       # one row per group of runs: a DataFrame for the docs and the site
>>> print(format_plan(frame))                  # the table the command prints, 120 columns wide
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pandas as pd

from companion.papers.tables import paper_table
from companion.profiles import DRY_RUN_ENV, check_gpu_grid, dry_run
from companion.publish import plan_tokens
from companion.publish.notebooks import list_notebooks, notebook_settings, select
from companion.publish.plan_grids import GRIDS, PARAMS, Tokens
from companion.settings import repo_root, results_dir

#: NVIDIA H100 SXM5 datasheet: dense BF16 tensor-core peak, TFLOP/s x 1e12 (1,979 with 2:4 sparsity)
H100_BF16_PEAK = 989e12
#: the same datasheet: dense TF32 tensor-core peak (989 with sparsity); the fp32 column assumes float32 matmuls run
#: as TF32. The code does not switch TF32 on, and PyTorch's default keeps float32 matmuls in full float32 (the
#: datasheet's FP32 figure, :data:`H100_FP32_PEAK`), so the fp32 hours are a lower bound for the code as it is
H100_TF32_PEAK = 495e12
#: the same datasheet: FP32 (no tensor cores), for the note on the fp32 column
H100_FP32_PEAK = 67e12
#: NVIDIA A100 datasheet: dense BF16 tensor-core peak (624 with sparsity), to read SimACE's Table 8 time on an A100
A100_BF16_PEAK = 312e12
#: assumed model-FLOPs utilisation: the share of the peak a run sustains. An assumption, not a measurement: small
#: batches of short texts (SimCSE's 64 x 32 tokens) run well below it, long fine-tuning batches near it
MFU = 0.35
ASSUMED_DEVICE = "H100 (assumed)"
#: measured seconds per training step per gpu path (evaluation included: a run's wall time over its steps), in data/:
#: ``{"<path>": {"bf16": seconds, "fp32": seconds}}`` (a plain number applies to both); absent until measured
STEP_TIMES_FILE = "gpu-step-times.json"
#: the printed table's width
WIDTH = 120

COLUMNS = ("notebook", "work", "backbone", "params", "head", "runs", "reloaded", "steps_per_run", "steps", "batch",
           "tokens_per_example", "passes", "train_tokens", "eval_tokens", "flops", "bf16_h", "fp32_h", "measured",
           "path", "note")


def step_times_path() -> Path:
    return repo_root() / "data" / STEP_TIMES_FILE


def read_step_times(path: Path | None = None) -> dict[str, dict[str, float]]:
    """The calibration file (``data/gpu-step-times.json`` by default) as ``{path: {"bf16": s, "fp32": s}}``; ``{}``
    when absent. A malformed file is a one-line error."""
    path = Path(path) if path is not None else step_times_path()
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        out = {}
        for key, value in raw.items():
            value = {"bf16": value, "fp32": value} if isinstance(value, (int, float)) else dict(value)
            out[str(key)] = {p: float(value[p]) for p in ("bf16", "fp32") if p in value}
        return out
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path} is not {{\"<gpu path>\": {{\"bf16\": seconds, \"fp32\": seconds}}}}: {exc}") from None


def device_name() -> str:
    """The visible CUDA device's name, else :data:`ASSUMED_DEVICE`."""
    import torch  # noqa: PLC0415 - torch is heavy; this module imports without it

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else ASSUMED_DEVICE


def hours(flops: float, peak: float, mfu: float = MFU) -> float:
    """GPU hours of ``flops`` at ``mfu`` x ``peak``."""
    return flops / (peak * mfu) / 3600


def table8_step_s() -> float:
    """Seconds per training step of SimACE's Table 8 SimCSE row: one epoch of wiki1m at batch 64 (10^6 / 64 =
    15,625 steps, §4.2) of BERT-base on one A100, evaluation every 125 steps included (``data/simace/table8.csv``)."""
    table8 = paper_table("simace", "table8")
    row = table8[(table8.Method == "SimCSE") & (table8.Similarity == "Cosine")].iloc[0]
    return float(str(row.Time).rstrip("min")) * 60 / (10**6 / int(row["Batch size"]))


def step_floor_s(layers: int) -> float:
    """The least time a training step takes here: :func:`table8_step_s` (a 12-layer BERT-base step on an A100) on the
    H100 (times the ratio of their bf16 peaks) and for ``layers`` transformer layers (times ``layers / 12``): a
    step's kernels run layer by layer, so a small step costs about the same whatever its tokens. An assumption,
    replaced by measured step times where the calibration file gives them."""
    return table8_step_s() * A100_BF16_PEAK / H100_BF16_PEAK * layers / 12


def work_hours(cost: dict, layers: int, peak: float, mfu: float = MFU) -> float:
    """GPU hours of one group of runs (:meth:`companion.publish.plan_grids.Work.cost`): its training at the larger
    of its FLOP time and ``steps`` x :func:`step_floor_s`, plus its evaluation's FLOP time."""
    train = max(hours(cost["train_flops"], peak, mfu), cost["steps"] * step_floor_s(layers) / 3600)
    return train + hours(cost["eval_flops"], peak, mfu)


def _short(key: str) -> str:
    """``simace/02-sts-experiments`` -> ``simace/02``."""
    paper, _, stem = key.partition("/")
    return f"{paper}/{stem.split('-')[0]}"


def _steps_text(steps) -> str:
    """A run's steps: one number, or the range of a group whose runs differ (probed curves)."""
    if isinstance(steps, tuple):
        return f"{min(steps)}-{max(steps)}" if min(steps) != max(steps) else str(steps[0])
    return str(steps) if steps else "-"


def _count(x: float) -> str:
    for unit, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= size:
            return f"{x / size:.3g}{unit}"
    return f"{x:.3g}"


def _cpu_note(key: str, what: str, results: Path, gpu_grid: str = "day") -> str:
    """What a CPU-class notebook does, how its gpu settings differ from its cpu ones, and the cpu run's wall time."""
    spec = notebook_settings(key)
    gpu, cpu = spec.profile_values("gpu", gpu_grid), spec.profile_values("cpu")
    changed = sorted(k for k in gpu if k != "profile" and gpu.get(k) != cpu.get(k))
    note = f"CPU-class: {what}; " + (f"gpu differs from cpu in {', '.join(changed)}" if changed else "gpu = cpu")
    paper, _, stem = key.partition("/")
    try:
        prov = json.loads((results / paper / f"{stem}.provenance.json").read_text(encoding="utf-8"))
        if prov.get("profile") == "cpu" and prov.get("wall_time_s"):
            note += f"; the cpu run took {prov['wall_time_s'] / 60:.1f} min"
    except (OSError, ValueError):
        pass
    return note


def plan_frame(only: str | None = None, *, gpu_grid: str = "day", step_times: Path | None = None,
               tokens: Path | None = None, mfu: float = MFU):
    """The gpu plan as a DataFrame (:data:`COLUMNS`), one row per group of runs of each selected notebook (``only``:
    as ``run --only``), in the run order; a CPU-class notebook is one row with NaN hours and its work in ``note``.
    ``runs`` counts the runs trained there, ``reloaded`` those an earlier notebook of the plan trains; ``measured``
    names the precisions whose hours come from the calibration file (``step_times``) rather than the estimate.
    ``gpu_grid``: the gpu profile's default grid (``"day"``) or the paper's full grid (``"full"``)."""
    if dry_run():
        raise ValueError(f"{DRY_RUN_ENV} asks for the dry run's sizes; the plan prices the gpu profile itself: unset it.")
    check_gpu_grid(gpu_grid)
    measured_steps = read_step_times(step_times)
    lengths = Tokens(plan_tokens.read(tokens))
    peaks = {"bf16": H100_BF16_PEAK, "fp32": H100_TF32_PEAK}
    trained_by: dict[str, str] = {}
    rows = []
    chosen = select(list_notebooks(), only)
    order = [_short(nb.key) for nb in chosen]
    for nb in chosen:
        if nb.key not in GRIDS:
            raise ValueError(f"No gpu plan for {nb.key}: add its grid to companion.publish.plan_grids.GRIDS.")
        entry = GRIDS[nb.key](notebook_settings(nb.key)("gpu", gpu_grid=gpu_grid), lengths)
        if entry.cpu_class:
            rows.append({"notebook": nb.key, "work": entry.cpu_class,
                         "note": _cpu_note(nb.key, entry.cpu_class, results_dir(), gpu_grid)})
            continue
        for work in entry.works:
            earlier = sorted({trained_by[i] for i in work.ids if i in trained_by}, key=order.index)
            keep = [i not in trained_by for i in work.ids] if work.ids else None
            trained_by.update({i: _short(nb.key) for i in work.ids if i not in trained_by})
            cost = work.cost(keep)
            row = {"notebook": nb.key, "work": work.what, "backbone": work.backbone, "params": work.params,
                   "head": work.head, "runs": cost["runs"], "reloaded": work.runs - cost["runs"],
                   "steps": cost["steps"], "steps_per_run": _steps_text(work.steps), "batch": work.batch,
                   "tokens_per_example": work.tokens, "passes": work.passes, "train_tokens": cost["train_tokens"],
                   "eval_tokens": cost["eval_tokens"], "flops": cost["flops"], "path": work.path, "note": entry.note}
            calibrated = measured_steps.get(work.path, {}) if cost["steps"] else {}
            for precision, peak in peaks.items():
                row[f"{precision}_h"] = (cost["steps"] * calibrated[precision] / 3600 if precision in calibrated
                                         else work_hours(cost, work.layers, peak, mfu))
            row["measured"] = ",".join(p for p in peaks if p in calibrated)
            if earlier:
                row["work"] += f" ({row['reloaded']} reloaded from {', '.join(earlier)})"
            rows.append(row)
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame.attrs.update(device=device_name(), mfu=mfu, gpu_grid=gpu_grid, params={k: v for k, v in PARAMS.items()},
                       step_times=str(step_times or step_times_path()), calibrated=sorted(measured_steps))
    return frame


def _hours_text(value: float, measured: bool) -> str:
    if value != value:  # NaN: CPU-class
        return "cpu"
    text = (f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 0.1 else f"{value:.2f}" if value >= 0.01
            else "<0.01" if value > 0 else "0")
    return text + ("*" if measured else "")


def _total(value: float) -> str:
    return f"{value:.1f}" if value >= 1 else f"{value:.2g}"


def _row_note(r) -> str:
    if r.bf16_h != r.bf16_h:
        return r.note
    model = f"{r.backbone.split('/')[-1]} {r.params / 1e6:.3g}M" if r.backbone else ""
    if r.head:
        model += (" + " if model else "") + f"head {r.head / 1e6:.3g}M"
    shape = (f"{int(r.batch)} x {r.tokens_per_example:.0f} tok" + (f" x {int(r.passes)} passes" if r.passes > 1 else "")
             if r.steps_per_run != "-" else "encoding only")
    return f"{r.work}; {model}; {shape}; eval {_count(r.eval_tokens)} tok"


def table8_check(frame) -> str:
    """The one published wall time of a planned run, against the FLOP estimate, and the step floor it gives
    (:func:`step_floor_s`): SimACE's Table 8 times one SimCSE epoch of BERT-base (batch 64) on one A100; the FLOP
    estimate of such a run at the A100's bf16 peak (:data:`A100_BF16_PEAK`) and the same utilisation falls far
    short of it. Empty when the plan holds no such run."""
    rows = frame[(frame.path == "dropout-views/bert-base-uncased/b64") & (frame.runs > 0) & (frame.measured == "")]
    if rows.empty:
        return ""
    r = rows.iloc[0]
    step, runs = table8_step_s(), r.runs
    paper_min = step * r.steps / runs / 60
    minutes = r.flops / runs / (A100_BF16_PEAK * frame.attrs.get("mfu", MFU)) / 60
    return (f"floor: SimACE's Table 8 times one SimCSE epoch of BERT-base (batch 64) at {paper_min:.0f} min on one "
            f"A100 ({step:.3f} s a step, evaluation every 125 steps included); the FLOP estimate gives {minutes:.0f} "
            f"min there ({A100_BF16_PEAK / 1e12:.0f} TFLOP/s bf16 at the same utilisation): such small steps are "
            f"bound by latency, not FLOPs. So no training step is priced below that step time moved to the H100 by "
            f"the ratio of the peaks ({step_floor_s(12):.3f} s for 12 layers, in proportion to a backbone's layers); "
            "a measured step time replaces it.")


#: The budget the default grid is meant to fit: one GPU-day.
GPU_DAY_H = 24.0


def _day_fit(total_h: float) -> str:
    """Whether ``total_h`` bf16 hours fit one GPU-day, in words (the plan says so rather than assume it)."""
    if total_h <= GPU_DAY_H:
        return f"within one GPU-day ({GPU_DAY_H:g} h) in bf16, {GPU_DAY_H - total_h:.1f} h to spare"
    return f"{total_h - GPU_DAY_H:.1f} h OVER one GPU-day ({GPU_DAY_H:g} h) in bf16 by this estimate"


def format_plan(frame, width: int = WIDTH) -> str:
    """The plan as the command prints it: a header, one row per group of runs (the notebook named on its first row;
    ``*``: measured hours), the total line, a check against a published time and the assumptions, every line at
    most ``width`` characters."""
    heads = ("notebook", "runs", "steps", "tokens", "bf16 h", "fp32 h")
    widths = (14, 4, 8, 6, 6, 6)
    indent = sum(widths) + 2 * len(widths)
    device, mfu = frame.attrs.get("device", ASSUMED_DEVICE), frame.attrs.get("mfu", MFU)
    grid = frame.attrs.get("gpu_grid", "day")
    lines = textwrap.wrap(
        f"gpu plan (nothing runs) of the {grid} grid"
        + (" (the default, meant to fit one GPU-day; --grid full: the paper's)" if grid == "day" else
           " (the paper's; the default grid is --grid day)") +
        f": the gpu profile's work per notebook, estimated for {device} from FLOPs = 6 x params "
        f"x training tokens + 2 x params x evaluation tokens at {mfu:g} of the H100 SXM datasheet's dense peak "
        f"({H100_BF16_PEAK / 1e12:.0f} TFLOP/s bf16; TF32's {H100_TF32_PEAK / 1e12:.0f} for fp32), no training step "
        "faster than the floor below. runs: trained "
        "there; steps: per run; tokens: training tokens through the encoder, every pass; note: batch x tokens per "
        "example (padded as trained) x encoder passes, evaluation tokens.", width) + [""]
    lines.append("  ".join([heads[0].ljust(widths[0])] + [h.rjust(w) for h, w in zip(heads[1:], widths[1:])])
                 + "  note")
    lines.append("-" * width)
    records = list(frame.itertuples(index=False))
    for i, r in enumerate(records):
        name = _short(r.notebook) if i == 0 or records[i - 1].notebook != r.notebook else ""
        if r.bf16_h != r.bf16_h:
            cells = ["-", "-", "-", "cpu", "cpu"]
        elif r.steps_per_run == "-":
            cells = ["-", "-", "-", _hours_text(r.bf16_h, False), _hours_text(r.fp32_h, False)]
        else:
            cells = [str(int(r.runs)), r.steps_per_run, _count(r.train_tokens),
                     _hours_text(r.bf16_h, "bf16" in str(r.measured)), _hours_text(r.fp32_h, "fp32" in str(r.measured))]
        wrapped = textwrap.wrap(_row_note(r), width - indent) or [""]
        lines.append("  ".join([name.ljust(widths[0])] + [c.rjust(w) for c, w in zip(cells, widths[1:])])
                     + "  " + wrapped[0])
        lines += [" " * indent + more for more in wrapped[1:]]
        last = i + 1 == len(records) or records[i + 1].notebook != r.notebook
        if last and r.bf16_h == r.bf16_h and isinstance(r.note, str) and r.note:  # what was counted, once
            lines += [" " * indent + more for more in textwrap.wrap(f"counted: {r.note}", width - indent)]
    lines.append("-" * width)
    gpu, cpu = frame[frame.bf16_h == frame.bf16_h], frame[frame.bf16_h != frame.bf16_h]
    calibrated = frame.attrs.get("calibrated", [])
    lines += textwrap.wrap(
        f"total: {_total(gpu.bf16_h.sum())} GPU hours in bf16, {_total(gpu.fp32_h.sum())} in fp32 on {device}, an "
        f"estimate ({_total(sum(hours(f, H100_BF16_PEAK, mfu) for f in gpu.flops))} in bf16 from the FLOPs alone, "
        "without the step floor)"
        + (" (measured step times where marked *)" if (frame.measured.fillna("") != "").any() else "") +
        f"; {int(gpu.runs.sum())} training runs in {gpu.notebook.nunique()} notebook(s), {int(gpu.reloaded.sum())} "
        f"more reloaded from an earlier notebook's run cache; {len(cpu)} notebook(s) of CPU-class work (minutes "
        "each, as their cpu runs)" + (f"; {_day_fit(gpu.bf16_h.sum())}" if grid == "day" else ""), width)
    paths = sorted({p for p in gpu.path if p})
    notes = [
        table8_check(frame),
        "assumptions: parameters as the model cards state them (" + "; ".join(
            f"{k.split('/')[-1]} {v[0] / 1e6:g}M" for k, v in PARAMS.items()) + "), embedding tables included, so "
        "the 6N rule overstates a model with a large vocabulary (mE5-large: about 256M of its 560M) and leaves "
        "attention's length term out; heads counted from the code; fp32 assumes TF32 matmuls, which the code does "
        f"not switch on: in strict float32 ({H100_FP32_PEAK / 1e12:.0f} TFLOP/s) the fp32 hours are about "
        f"{H100_TF32_PEAK / H100_FP32_PEAK:.1f} times longer.",
        "tokens: all-MiniLM-L6-v2's uncased WordPiece on the mirror's data (data/gpu-plan-tokens.json); "
        "bert-base-uncased's vocabulary has the same size, the WordPiece of mpnet and the BPE and SentencePiece of "
        "RoBERTa and mE5 give somewhat different lengths; NLI training lengths from the mirror's SNLI dev and test "
        "pairs, wiki1m's from its first 11,914 lines.",
        "calibration: " + (f"measured seconds per step from data/{STEP_TIMES_FILE} replace the estimate (*) for "
                           f"{', '.join(calibrated)}" if calibrated else
                           f"no data/{STEP_TIMES_FILE}, so every hour is the estimate (FLOPs and the step floor)")
        + "; the file maps a gpu path to measured seconds per training step (a run's wall time over its steps), "
          "{\"<path>\": {\"bf16\": s, \"fp32\": s}}; the paths: " + ", ".join(paths) + ".",
    ]
    for note in notes:
        if note:
            lines += textwrap.wrap(note, width, break_on_hyphens=False)
    return "\n".join(lines)


def check_plan(profile: str, plan: bool, dry_run: bool = False) -> None:
    """``--plan`` is the gpu profile's, at its own sizes: a one-line error for any other profile or the dry run."""
    if plan and profile != "gpu":
        raise ValueError(f"--plan prints the gpu profile's work and cost; got profile {profile!r} (use --profile gpu).")
    if plan and dry_run:
        raise ValueError("--plan prices the gpu profile at its own sizes, --dry-run runs it at the smoke sizes: "
                         "give one of them.")


__all__ = ["A100_BF16_PEAK", "ASSUMED_DEVICE", "COLUMNS", "H100_BF16_PEAK", "H100_FP32_PEAK", "H100_TF32_PEAK", "MFU",
           "STEP_TIMES_FILE", "check_plan", "device_name", "format_plan", "hours", "plan_frame", "read_step_times",
           "table8_check"]
