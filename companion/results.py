"""The claims ledger: every checked claim with an explicit criterion and a *computed* verdict.

A notebook records what it checked::

    from companion.results import Ledger, within, at_least, holds, not_testable
    ledger = Ledger("circumplex", "02-experiments", profile=cfg.profile, seeds=cfg.seeds)
    ledger.claim("V-beats-pretrained", "Every trained variant beats the pretrained model on V-Measure",
                 paper_value="all 6 > pretrained", ours=[0.61 > 0.40, ...], criterion=holds())
    ledger.claim("sts-avg", "SimACE STS avg", paper_value=77.08, ours=75.9, criterion=within(77.08, tol=1.0,
                 partly_tol=3.0))
    ledger.save()

and :meth:`Ledger.save` writes ``results/<paper>/<notebook>.json`` with the stable schema read by the site::

    {"paper": …, "notebook": …, "profile": …, "seeds": […],
     "claims": [{"id": …, "claim": …, "paper_value": …, "ours": …, "criterion": …, "verdict": …}]}

``verdict`` is one of :data:`VERDICTS` and is produced by the criterion from ``ours``; it is never typed in.
Wall time, hardware and library versions (which change from run to run) go to a sibling
``<notebook>.provenance.json`` so that the ledger itself is byte-identical across reruns with the same seeds.

In the ``smoke`` profile results and figures go to a scratch folder (``<cache>/smoke``) unless
``COMPANION_RESULTS_DIR`` / ``COMPANION_FIGURES_DIR`` say otherwise, so a smoke run never overwrites the
committed ``cpu`` results.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from . import settings as _settings
from ._atomic import write_atomic
from .profiles import check_profile

VERDICTS = ("reproduced", "partly", "not reproduced", "not testable")
PAPERS = ("baselines", "circumplex", "simace", "weighted-cl", "concepts", "angle", "synthesis")


# --------------------------------------------------------------------------------------------- criteria
@dataclass(frozen=True)
class Criterion:
    """A rule that turns our measured value into a verdict. ``describe`` is stored in the ledger."""

    description: str
    rule: Any  # callable(ours) -> verdict

    def verdict(self, ours: Any) -> str:
        result = self.rule(ours)
        assert result in VERDICTS, result
        return result


def _number(ours: Any, what: str) -> float:
    try:
        value = float(ours)
    except (TypeError, ValueError):
        raise TypeError(f"{what} needs a number, got {ours!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{what} got a non-finite value {value!r}")
    return value


def within(target: float, tol: float, partly_tol: float | None = None) -> Criterion:
    """Reproduced if ``|ours - target| <= tol``; partly if within ``partly_tol``; else not reproduced."""
    desc = f"|ours - {target:g}| <= {tol:g}" + (f" (partly if <= {partly_tol:g})" if partly_tol else "")

    def rule(ours):
        gap = abs(_number(ours, "within()") - target)
        if gap <= tol:
            return "reproduced"
        return "partly" if partly_tol is not None and gap <= partly_tol else "not reproduced"

    return Criterion(desc, rule)


def at_least(threshold: float, partly: float | None = None) -> Criterion:
    """Reproduced if ``ours >= threshold``; partly if ``ours >= partly``."""
    desc = f"ours >= {threshold:g}" + (f" (partly if >= {partly:g})" if partly is not None else "")

    def rule(ours):
        value = _number(ours, "at_least()")
        if value >= threshold:
            return "reproduced"
        return "partly" if partly is not None and value >= partly else "not reproduced"

    return Criterion(desc, rule)


def at_most(threshold: float, partly: float | None = None) -> Criterion:
    """Reproduced if ``ours <= threshold``; partly if ``ours <= partly``."""
    desc = f"ours <= {threshold:g}" + (f" (partly if <= {partly:g})" if partly is not None else "")

    def rule(ours):
        value = _number(ours, "at_most()")
        if value <= threshold:
            return "reproduced"
        return "partly" if partly is not None and value <= partly else "not reproduced"

    return Criterion(desc, rule)


def holds(description: str = "every listed condition holds") -> Criterion:
    """For a bool or a mapping/sequence of bools: all true -> reproduced, some -> partly, none -> not."""

    def rule(ours):
        values = list(ours.values()) if isinstance(ours, dict) else ours
        values = [values] if isinstance(values, bool) else list(values)
        if not values or not all(isinstance(v, bool) for v in values):
            raise TypeError(f"holds() needs booleans, got {ours!r}")
        if all(values):
            return "reproduced"
        return "partly" if any(values) and len(values) > 1 else "not reproduced"

    return Criterion(f"{description} (all: reproduced; some: partly)", rule)


def same_sign(paper_value: float, min_magnitude: float = 0.0) -> Criterion:
    """Reproduced if ours has the paper's sign and ``|ours| >= min_magnitude``; same sign but smaller: partly."""
    sign = math.copysign(1.0, paper_value)
    desc = f"sign(ours) == sign({paper_value:g})" + (f" and |ours| >= {min_magnitude:g}" if min_magnitude else "")

    def rule(ours):
        value = _number(ours, "same_sign()")
        if value * sign <= 0:
            return "not reproduced"
        return "reproduced" if abs(value) >= min_magnitude else "partly"

    return Criterion(desc, rule)


def not_testable(reason: str) -> Criterion:
    """The claim cannot be tested here; ``reason`` says why (stored as the criterion)."""
    if not reason.strip():
        raise ValueError("not_testable() needs a reason")
    return Criterion(f"not testable here: {reason}", lambda ours: "not testable")


# --------------------------------------------------------------------------------------------- io helpers
def _jsonable(value: Any) -> Any:
    """Convert numpy/torch scalars and arrays, tuples and paths into plain JSON values (floats rounded to 6 sig.)."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return float(f"{value:.6g}")
    if isinstance(value, Path):
        return str(value)
    return str(value)


def write_json_atomic(path: Path, payload: Any) -> Path:
    """Write JSON through a temporary file in the same folder and ``os.replace``: never a half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    return write_atomic(path, lambda handle: handle.write(text.encode("utf-8")), suffix=".tmp")


def output_dirs(profile: str) -> tuple[Path, Path]:
    """(results dir, figures dir) for ``profile``; smoke defaults to a scratch folder outside the repository."""
    env_results = os.environ.get("COMPANION_RESULTS_DIR")
    env_figures = os.environ.get("COMPANION_FIGURES_DIR")
    if profile == "smoke":
        scratch = _settings.cache_dir() / "smoke"
        return (Path(env_results) if env_results else scratch / "results",
                Path(env_figures) if env_figures else scratch / "figures")
    return _settings.results_dir(), _settings.figures_dir()


_VERSIONED = ("torch", "transformers", "sentence-transformers", "datasets", "numpy", "scipy", "scikit-learn",
              "pandas", "matplotlib", "papermill")


def library_versions(names: Sequence[str] = _VERSIONED) -> dict[str, str | None]:
    """Python's version and the installed version of each distribution in ``names`` (None if not installed)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def provenance(profile: str, seeds: Sequence[int], wall_time_s: float | None = None) -> dict[str, Any]:
    """Profile, hardware, seeds, library versions and wall time of the run that produced a notebook."""
    versions = library_versions()
    hardware = {"machine": platform.machine(), "processor": platform.processor() or platform.machine(),
                "cpu_count": os.cpu_count(), "platform": platform.platform(terse=True)}
    try:
        import torch

        hardware["torch_threads"] = torch.get_num_threads()
        hardware["gpu"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    except ImportError:  # pragma: no cover - torch is a hard requirement
        pass
    out = {"profile": profile, "seeds": list(seeds), "hardware": hardware, "versions": versions,
           "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    if wall_time_s is not None:
        out["wall_time_s"] = round(wall_time_s, 1)
    return out


# --------------------------------------------------------------------------------------------- ledger
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")


class Ledger:
    """Claims checked by one notebook run. See the module docstring."""

    def __init__(self, paper: str, notebook: str, profile: str, seeds: Sequence[int] = ()):
        if paper not in PAPERS:
            raise ValueError(f"Unknown paper {paper!r}; choose one of {', '.join(PAPERS)}.")
        self.paper = paper
        self.notebook = Path(notebook).stem
        self.profile = check_profile(profile)
        self.seeds = [int(s) for s in seeds]
        self.claims: list[dict[str, Any]] = []
        self.started = time.perf_counter()
        self.results_dir, self.figures_dir = output_dirs(self.profile)

    def claim(self, id: str, claim: str, paper_value: Any, ours: Any, criterion: Criterion,
              note: str | None = None) -> str:
        """Record one claim; returns its computed verdict."""
        if not isinstance(id, str) or not _ID.match(id):
            raise ValueError(f"Claim id {id!r} must be a non-empty word of letters, digits, '_.:-'.")
        if any(c["id"] == id for c in self.claims):
            raise ValueError(f"Claim id {id!r} recorded twice in {self.notebook}.")
        if not isinstance(criterion, Criterion):
            raise TypeError("criterion must be built with within/at_least/at_most/holds/same_sign/not_testable")
        verdict = criterion.verdict(ours)
        record = {"id": id, "claim": claim, "paper_value": _jsonable(paper_value), "ours": _jsonable(ours),
                  "criterion": criterion.description, "verdict": verdict}
        if note:
            record["note"] = note
        self.claims.append(record)
        return verdict

    def to_dict(self) -> dict[str, Any]:
        return {"paper": self.paper, "notebook": self.notebook, "profile": self.profile, "seeds": self.seeds,
                "claims": self.claims}

    def table(self):
        """The claims as a pandas DataFrame (for display in the notebook)."""
        import pandas as pd

        cols = ["id", "claim", "paper_value", "ours", "criterion", "verdict"]
        return pd.DataFrame(self.claims, columns=cols)

    @property
    def path(self) -> Path:
        return self.results_dir / self.paper / f"{self.notebook}.json"

    def save(self) -> Path:
        """Write the ledger (stable schema) and the provenance record; returns the ledger path."""
        if not self.claims:
            raise ValueError(f"Ledger for {self.notebook} has no claims; record at least one before save().")
        write_json_atomic(self.path, self.to_dict())
        wall = time.perf_counter() - self.started
        record = provenance(self.profile, self.seeds, wall)
        from .profiles import last_settings

        cfg = last_settings()
        if cfg is not None and cfg.profile == self.profile:
            record["settings"] = _jsonable(dict(cfg))
        write_json_atomic(self.path.with_suffix(".provenance.json"), record)
        return self.path

    def provenance(self) -> dict[str, Any]:
        return provenance(self.profile, self.seeds, time.perf_counter() - self.started)

    def savefig(self, fig, name: str, dpi: int = 130) -> Path:
        """Save a matplotlib figure as ``figures/<paper>/<name>.png`` (scratch folder for smoke)."""
        path = self.figures_dir / self.paper / (name if name.endswith(".png") else f"{name}.png")
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=dpi, bbox_inches="tight")
        return path


# --------------------------------------------------------------------------------------------- reading
def load_ledgers(root: Path | None = None) -> list[dict[str, Any]]:
    """Every ledger under ``root`` (default: the results folder), validated against the schema."""
    root = Path(root) if root is not None else _settings.results_dir()
    out = []
    for path in sorted(root.glob("*/*.json")):
        if path.name.endswith(".provenance.json"):
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        missing = {"paper", "notebook", "profile", "seeds", "claims"} - set(data)
        if missing:
            raise ValueError(f"{path}: ledger lacks {sorted(missing)}")
        for claim in data["claims"]:
            if claim.get("verdict") not in VERDICTS:
                raise ValueError(f"{path}: claim {claim.get('id')!r} has verdict {claim.get('verdict')!r}")
        data["_path"] = str(path)
        out.append(data)
    return out


def claims_frame(root: Path | None = None):
    """All claims as one DataFrame with paper and notebook columns."""
    import pandas as pd

    rows = []
    for ledger in load_ledgers(root):
        for claim in ledger["claims"]:
            rows.append({"paper": ledger["paper"], "notebook": ledger["notebook"], "profile": ledger["profile"],
                         **{k: claim.get(k) for k in ("id", "claim", "paper_value", "ours", "criterion",
                                                      "verdict")}})
    cols = ["paper", "notebook", "profile", "id", "claim", "paper_value", "ours", "criterion", "verdict"]
    return pd.DataFrame(rows, columns=cols)


def scoreboard(root: Path | None = None):
    """Counts of verdicts per paper (rows) — the site's landing-page table."""
    import pandas as pd

    frame = claims_frame(root)
    if frame.empty:
        return pd.DataFrame(columns=["paper", *VERDICTS, "total"])
    counts = frame.pivot_table(index="paper", columns="verdict", values="id", aggfunc="count", fill_value=0)
    counts = counts.reindex(columns=list(VERDICTS), fill_value=0)
    counts["total"] = counts.sum(axis=1)
    return counts.reset_index()


def show_provenance(ledger: Ledger):
    """Display (and return) the provenance of this run as a small table — the last cell of every notebook."""
    import pandas as pd

    info = ledger.provenance()
    rows = [("profile", info["profile"]), ("seeds", ", ".join(map(str, info["seeds"])) or "-"),
            ("wall time (s)", info["wall_time_s"]), ("date", info["date"])]
    rows += [(f"hardware: {k}", v) for k, v in info["hardware"].items()]
    rows += [(f"version: {k}", v) for k, v in info["versions"].items()]
    frame = pd.DataFrame(rows, columns=["what", "value"]).set_index("what")
    try:
        from IPython.display import display

        display(frame)
    except ImportError:  # pragma: no cover
        print(frame.to_string())
    return frame
