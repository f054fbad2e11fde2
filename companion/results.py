"""The claims ledger (schema 2): every claim with its kind, its place in the paper, an explicit criterion and a
*computed* verdict.

A notebook records what it checked::

    from companion import stats
    from companion.results import Ledger, holds
    ledger = Ledger("angle", "03-ablation-and-analysis", profile=cfg.profile, seeds=cfg.seeds, settings=cfg)
    ledger.claim("t4-all-vs-only-cosine", "All three objectives beat the cosine objective alone on STS-B",
                 kind="paper", source="Table 4: 86.26 - 85.28", paper_value=0.98,
                 ours=stats.paired(all_scores, cosine_scores),          # one value per seed, paired by seed
                 criterion=stats.direction(paper_effect=0.98),
                 regime="MiniLM is already contrastively trained; the paper fine-tunes raw BERT-base")
    ledger.claim("parity-cosent", "CoSENT equals sentence-transformers' CoSENTLoss on the same tensors",
                 kind="check", ours=max_abs_diff < 1e-6, criterion=holds())
    ledger.save()

Kinds: ``paper`` (a statement the paper makes, with ``source``: ``Table 4, Emolit, …`` / ``§5.2`` / ``Thm 3.13`` /
``Fig. 7 caption``; a derived value names its inputs, ``Table 4: 86.26 - 85.28``), ``check`` (our own identity,
parity or set-up check — ``passed``/``failed``, never a reproduction) and ``beyond`` (a question the paper does not
ask), ``erratum`` (a statement the paper's own text or tables contradict: ``confirmed``, ``minor`` when the
criterion is :func:`minor_erratum`, ``partly``, ``not confirmed``). Paper and beyond claims get one of
:data:`VERDICTS`; ``inconclusive`` and ``not testable`` always carry a ``reason``. The rules: :mod:`companion.stats`.

:meth:`Ledger.save` writes ``results/<paper>/<notebook>.json`` (its schema: ``docs/reference.md``, "Results
ledger") and, beside it, ``<notebook>.provenance.json`` with what changes from run to run (wall time, hardware,
library versions), so that the ledger is byte-identical across reruns with the same seeds; the provenance names its
ledger by the sha256 of its bytes (:meth:`Ledger.save`, :func:`ledger_provenance`). The scoreboard counts the
statements of the papers (:mod:`companion.statements`), each once, not the ledger rows that test them.

In the ``smoke`` profile results and figures go to a scratch folder (``<cache>/smoke``) unless
``COMPANION_RESULTS_DIR`` / ``COMPANION_FIGURES_DIR`` say otherwise, so a smoke run never overwrites the
committed ``cpu`` results.

Kept whole because the ledger, its exact criteria, the registered criteria and the readers share one schema
(:data:`SCHEMA`, :func:`validate_claim`), which reads best beside the code that writes it.
"""

from __future__ import annotations

import base64
import json
import math
import os
import platform
import re
import time
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from companion import papers as _papers
from companion import settings as _settings
from companion._io import write_atomic
from companion.profiles import check_profile
from companion.statements import board as _statement_board
from companion.statements import regime_kind
from companion.stats import (
    CHECK_VERDICTS,
    ERRATUM_VERDICTS,
    VERDICTS,
    Comparison,
    Criterion,
    Judgement,
    Validity,
    as_check,
    as_erratum,
    regime_label,
)
from companion.stats import (
    validity as _validity,
)

KINDS = ("paper", "check", "beyond", "erratum")
#: the verdicts each kind of claim can take
KIND_VERDICTS = {"paper": VERDICTS, "beyond": VERDICTS, "check": CHECK_VERDICTS, "erratum": ERRATUM_VERDICTS}
SCHEMA = 2
PAPERS = _papers.IDS


# --------------------------------------------------------------------------------------------- exact criteria
# For deterministic quantities (free-embedding optima, closed forms, counts): no seed noise, no interval.
# Comparisons over seeds use companion.stats.direction / level instead.
def _paper_side(criterion: Criterion, ours: Any) -> int | None:
    """The way the claim's quantity must move to approach the paper's statement (+1 up, −1 down), where the
    criterion says: the paper's sign for a difference, the paper's level against our estimate for a level."""
    if criterion.name == "direction":
        return int(criterion.params["sign"])
    if criterion.name == "level" and isinstance(ours, Comparison):
        gap = float(criterion.params["paper_value"]) - float(ours.estimate)
        return 0 if gap == 0 else int(math.copysign(1, gap))
    return None


def _number(ours: Any, what: str) -> float:
    if isinstance(ours, Comparison):
        raise TypeError(f"{what} is for deterministic values; judge a seed comparison with stats.direction/level")
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

    return Criterion(desc, rule, name="within", params={"target": target, "tol": tol, "partly_tol": partly_tol})


def at_least(threshold: float, partly: float | None = None) -> Criterion:
    """Reproduced if ``ours >= threshold``; partly if ``ours >= partly``."""
    desc = f"ours >= {threshold:g}" + (f" (partly if >= {partly:g})" if partly is not None else "")

    def rule(ours):
        value = _number(ours, "at_least()")
        if value >= threshold:
            return "reproduced"
        return "partly" if partly is not None and value >= partly else "not reproduced"

    return Criterion(desc, rule, name="at_least", params={"threshold": threshold, "partly": partly})


def at_most(threshold: float, partly: float | None = None) -> Criterion:
    """Reproduced if ``ours <= threshold``; partly if ``ours <= partly``."""
    desc = f"ours <= {threshold:g}" + (f" (partly if <= {partly:g})" if partly is not None else "")

    def rule(ours):
        value = _number(ours, "at_most()")
        if value <= threshold:
            return "reproduced"
        return "partly" if partly is not None and value <= partly else "not reproduced"

    return Criterion(desc, rule, name="at_most", params={"threshold": threshold, "partly": partly})


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

    return Criterion(f"{description} (all: reproduced; some: partly; none: not reproduced)", rule, name="holds",
                     params={"description": description})


def minor_erratum(description: str, why: str) -> Criterion:
    """:func:`holds` for an erratum classified *minor*: the contradiction is real but stays within a convention the
    paper states or its printed rounding (``why`` says which). All conditions true reads ``minor`` instead of
    ``confirmed``; only ``kind="erratum"`` claims take it (:meth:`Ledger.claim`)."""
    if not why.strip():
        raise ValueError("minor_erratum() needs the convention or rounding that makes the erratum minor")
    inner = holds(description)
    return Criterion(f"{description}; minor: {why} (all: minor; some: partly; none: not confirmed)", inner._rule,
                     name="minor", params={"description": description, "why": why})


def same_sign(paper_value: float, min_magnitude: float = 0.0) -> Criterion:
    """Reproduced if ours has the paper's sign and ``|ours| >= min_magnitude``; same sign but smaller: partly."""
    sign = math.copysign(1.0, paper_value)
    desc = f"sign(ours) == sign({paper_value:g})" + (f" and |ours| >= {min_magnitude:g}" if min_magnitude else "")

    def rule(ours):
        value = _number(ours, "same_sign()")
        if value * sign <= 0:
            return "not reproduced"
        return "reproduced" if abs(value) >= min_magnitude else "partly"

    return Criterion(desc + " (same sign but smaller: partly; other sign: not reproduced)", rule, name="same_sign",
                     params={"paper_value": paper_value, "min_magnitude": min_magnitude})


def not_testable(reason: str) -> Criterion:
    """The claim cannot be tested here; ``reason`` says why (stored as the criterion and the reason)."""
    if not reason.strip():
        raise ValueError("not_testable() needs a reason")
    return Criterion(f"not testable here: {reason}", lambda ours: Judgement("not testable", reason),
                     name="not_testable", params={"reason": reason})


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


def json_bytes(payload: Any) -> bytes:
    """The bytes :func:`write_json_atomic` writes for ``payload`` (indented JSON, UTF-8, a final newline)."""
    return (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_json_atomic(path: Path, payload: Any) -> Path:
    """Write JSON through a temporary file in the same folder and ``os.replace``: never a half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json_bytes(payload)
    return write_atomic(path, lambda handle: handle.write(data), suffix=".tmp")


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


def provenance_path(paper: str, notebook: str, root: Path | None = None) -> Path:
    """``<results>/<paper>/<notebook>.provenance.json``: the record :meth:`Ledger.save` writes beside the ledger
    (``root``: the results folder, default :func:`companion.settings.results_dir`)."""
    root = Path(root) if root is not None else _settings.results_dir()
    return root / paper / f"{Path(notebook).stem}.provenance.json"


def ledger_provenance(paper: str, notebook: str, root: Path | None = None, since: float | None = None) -> dict | None:
    """The provenance record of the notebook's ledger (:func:`provenance_path`); ``None`` when there is none, when
    (with ``since``, a :func:`time.time`) it was written before ``since``, or when it names a ledger other than the
    one beside it (its ``ledger_sha256`` is not the ledger file's: :meth:`Ledger.save` was stopped between its two
    writes). A record written before ``ledger_sha256`` existed is taken as it is."""
    path = provenance_path(paper, notebook, root)
    if not path.is_file() or (since is not None and path.stat().st_mtime < since):
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    return record if provenance_belongs(record, path.with_name(f"{Path(notebook).stem}.json")) else None


def provenance_belongs(record: dict[str, Any], ledger: Path) -> bool:
    """Whether the provenance ``record`` belongs to the ledger file ``ledger``: the sha256 it names
    (``ledger_sha256``, written by :meth:`Ledger.save`) is that of the file's bytes. A record without that field,
    written before it existed, belongs."""
    if "ledger_sha256" not in record:
        return True
    return Path(ledger).is_file() and sha256_file(ledger) == record["ledger_sha256"]


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (list, dict, str)) and not value)


def completed_provenance(record: dict[str, Any], known: dict[str, Any] | None) -> dict[str, Any]:
    """``record`` (a notebook's ``metadata.companion``, whose runner knows no seeds) with each of its empty fields
    (``[]``, ``{}``, ``""``, ``None``) taken from ``known``, the ledger's provenance of the same run, where that
    field is not empty there; every other field as it is, and no field added. ``known`` of another profile (or
    ``None``) fills nothing."""
    out = dict(record)
    if not known or known.get("profile") != record.get("profile"):
        return out
    for key, value in record.items():
        if _empty(value) and not _empty(known.get(key)):
            out[key] = known[key]
    return out


# --------------------------------------------------------------------------------------------- figures
def figure_output(png: bytes, figure: str, name: str) -> dict:
    """A ``display_data`` output showing ``png``; ``figure`` is its file under the figures folder."""
    return {"output_type": "display_data",
            "data": {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": f"<Figure {name}>"},
            "metadata": {"companion": {"figure": figure}}}


class Verdict(str):
    """The verdict :meth:`Ledger.claim` returns: a plain string that a notebook shows as a sentence naming its claim
    (``Verdict of `id`: **reproduced**``), not as a quoted repr."""

    def __new__(cls, verdict: str, claim_id: str = ""):
        self = super().__new__(cls, verdict)
        self.claim_id = claim_id
        return self

    def _repr_markdown_(self) -> str:
        return f"Verdict of `{self.claim_id}`: **{self}**" if self.claim_id else f"Verdict: **{self}**"


class FigurePath(type(Path())):
    """The path of a figure saved by :meth:`Ledger.savefig`. IPython does not echo it: the figure itself is shown."""

    def _ipython_display_(self) -> None:
        return None


def _show_saved_figure(fig, path: Path, figure: str) -> None:
    """In a Jupyter kernel, display the saved PNG (one image per figure, with any backend) and close ``fig``."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with the notebook stack
        return
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return
    from IPython.display import display

    out = figure_output(path.read_bytes(), figure, path.stem)
    display(out["data"], raw=True, metadata=out["metadata"])
    import matplotlib.pyplot as plt

    plt.close(fig)


# --------------------------------------------------------------------------------------------- ledger
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")


class Ledger:
    """Claims checked by one notebook run. See the module docstring."""

    def __init__(self, paper: str, notebook: str, profile: str, seeds: Sequence[int] = (),
                 settings: Mapping[str, Any] | None = None):
        """``settings``: the notebook's settings (its ``cfg``, of ``profile``), which :meth:`save` writes into the
        provenance; a sub-regime's own settings join them by name (:meth:`regime_settings`)."""
        if paper not in PAPERS:
            raise ValueError(f"Unknown paper {paper!r}; choose one of {', '.join(PAPERS)}.")
        self.paper = paper
        self.notebook = Path(notebook).stem
        self.profile = check_profile(profile)
        self.seeds = [int(s) for s in seeds]
        self.claims: list[dict[str, Any]] = []
        self.started = time.perf_counter()
        self.results_dir, self.figures_dir = output_dirs(self.profile)
        if settings is not None and settings.get("profile", self.profile) != self.profile:
            raise ValueError(f"settings of profile {settings.get('profile')!r} for a {self.profile} ledger.")
        self.settings = None if settings is None else dict(settings)
        self.regimes: dict[str, dict[str, Any]] = {}

    def regime_settings(self, name: str, settings: Mapping[str, Any]) -> None:
        """Record the settings of a sub-regime the notebook also runs (e.g. concepts/03's ``mpnet`` section), which
        :meth:`save` writes into the provenance under ``regimes`` by ``name``, beside the notebook's own."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"a regime's name must be a non-empty string, got {name!r}.")
        self.regimes[name] = dict(settings)

    def claim(self, id: str, claim: str, paper_value: Any = None, ours: Any = None,
              criterion: Criterion | None = None, note: str | None = None, *, kind: str,
              source: str | None = None, regime: str | None = None,
              validity: Sequence[Validity] | Validity | None = None) -> str:
        """Record one claim; returns its computed verdict (a :class:`Verdict`: a string a notebook shows as a
        sentence).

        ``kind``: ``paper`` (a statement the paper makes; needs ``source``, the place in the paper text),
        ``check`` (our own identity, parity or set-up check: passed/failed, never a reproduction) or ``beyond``
        (a question the paper does not ask). ``ours`` is a number, a structure of numbers/booleans, or a
        :class:`companion.stats.Comparison` (per-seed values; its estimate, CI and tests are stored under
        ``stats``). ``regime`` names how our set-up differs from the paper's (backbone, layers trained, steps,
        data, seeds); it is stored beside the verdict (``paper setting`` / ``scaled: …``) and **never changes it**.
        ``validity``: checks measured in our run (:class:`companion.stats.Validity`: trained, plateau, ceiling);
        a failed one makes the claim ``inconclusive`` with that reason, before the criterion is consulted.
        """
        if not isinstance(id, str) or not _ID.match(id):
            raise ValueError(f"Claim id {id!r} must be a non-empty word of letters, digits, '_.:-'.")
        if any(c["id"] == id for c in self.claims):
            raise ValueError(f"Claim id {id!r} recorded twice in {self.notebook}.")
        if kind not in KINDS:
            raise ValueError(f"Claim {id!r}: kind must be one of {', '.join(KINDS)}, got {kind!r}.")
        if kind in ("paper", "erratum") and not (isinstance(source, str) and source.strip()):
            raise ValueError(f"Claim {id!r}: a {kind} claim needs source= (where the paper says it, e.g. 'Table 4').")
        if not isinstance(criterion, Criterion):
            raise TypeError(f"Claim {id!r}: criterion must come from companion.stats or within/at_least/at_most/"
                            "holds/minor_erratum/same_sign/not_testable")
        if regime is not None and not (isinstance(regime, str) and regime.strip()):
            raise ValueError(f"Claim {id!r}: regime= must be a non-empty reason or None")
        checks = [validity] if isinstance(validity, Validity) else list(validity or ())
        if not all(isinstance(c, Validity) for c in checks):
            raise TypeError(f"Claim {id!r}: validity= takes companion.stats.Validity checks")
        if criterion.name == "minor" and kind != "erratum":
            raise ValueError(f"Claim {id!r}: minor_erratum() grades errata only, not {kind!r} claims")
        judgement = _validity.gate(criterion.judge(ours), checks, side=_paper_side(criterion, ours))
        if kind == "check":
            judgement = as_check(judgement)
        elif kind == "erratum":
            judgement = as_erratum(judgement, minor=criterion.name == "minor")
        record: dict[str, Any] = {"id": id, "kind": kind, "claim": claim, "source": source,
                                  "paper_value": _jsonable(paper_value)}
        if isinstance(ours, Comparison):
            record["ours"] = _jsonable(ours.estimate)
            record["stats"] = _jsonable(ours.to_dict())
        else:
            record["ours"] = _jsonable(ours)
        record["criterion"] = criterion.description
        record["verdict"] = judgement.verdict
        if judgement.reason:
            record["reason"] = judgement.reason
        effect = criterion.params.get("paper_effect") if criterion.name == "direction" else None
        needs = _validity.to_decide(judgement, checks, ours, paper_effect=effect)
        if needs and kind in ("paper", "beyond"):
            record["to_decide"] = needs
        if kind in ("paper", "beyond") or regime:
            record["regime"] = regime_label(regime)
        if checks:
            record["validity"] = [c.to_dict() for c in checks]
        if note:
            record["note"] = note
        self.claims.append(record)
        return Verdict(judgement.verdict, id)

    def to_dict(self) -> dict[str, Any]:
        out = {"schema": SCHEMA, "paper": self.paper, "notebook": self.notebook, "profile": self.profile,
               "seeds": self.seeds}
        registered = self._registered_criteria()
        if registered is not None:
            out["criteria"] = registered
        out["claims"] = self.claims
        return out

    def _registered_criteria(self) -> dict[str, Any] | None:
        """The committed criteria file this ledger is graded against (path and sha256), where there is one."""
        try:
            path = criteria_path(self.paper, self.notebook)
        except Exception:  # noqa: BLE001 - a pip-installed package away from a checkout has no registry
            return None
        if not path.exists():
            return None
        return {"file": f"data/{self.paper}/criteria/{path.name}", "sha256": sha256_file(path)}

    def table(self):
        """The claims as a pandas DataFrame (for display in the notebook)."""
        import pandas as pd

        cols = ["id", "kind", "claim", "source", "paper_value", "ours", "verdict", "reason"]
        return pd.DataFrame(self.claims, columns=cols).fillna("")

    @property
    def path(self) -> Path:
        return ledger_path(f"{self.paper}/{self.notebook}", self.results_dir)

    def save(self) -> Path:
        """Write the ledger (stable schema) and the provenance record; returns the ledger path.

        The two files are one record with one commit point: the provenance names the ledger it belongs to by the
        sha256 of its bytes (``ledger_sha256``) and is written first, the ledger last, each atomically
        (:func:`write_json_atomic`). A save stopped between the two leaves the previous ledger beside a provenance
        that names other bytes, which :func:`ledger_provenance` refuses; a rerun that writes the same bytes (same
        seeds) leaves a pair that belongs together. The ledger's own format is unchanged."""
        if not self.claims:
            raise ValueError(f"Ledger for {self.notebook} has no claims; record at least one before save().")
        import hashlib

        ledger = json_bytes(self.to_dict())
        wall = time.perf_counter() - self.started
        record = provenance(self.profile, self.seeds, wall)
        if self.settings is not None:
            record["settings"] = _jsonable(self.settings)
        if self.regimes:
            record["regimes"] = {name: _jsonable(cfg) for name, cfg in self.regimes.items()}
        record["ledger_sha256"] = hashlib.sha256(ledger).hexdigest()
        write_json_atomic(self.path.with_suffix(".provenance.json"), record)
        write_atomic(self.path, lambda handle: handle.write(ledger), suffix=".tmp")
        return self.path

    def provenance(self) -> dict[str, Any]:
        return provenance(self.profile, self.seeds, time.perf_counter() - self.started)

    def savefig(self, fig, name: str, dpi: int = 130) -> Path:
        """Save a matplotlib figure as ``figures/<paper>/<name>.png`` (scratch folder for smoke) and, in a notebook,
        show that file inline (whatever the matplotlib backend) and close the figure so it is not shown twice.

        Returns the path as a :class:`FigurePath`, which a notebook does not echo: a cell ending in ``savefig``
        shows the figure, not a machine path."""
        path = self.figures_dir / self.paper / (name if name.endswith(".png") else f"{name}.png")
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=dpi, bbox_inches="tight")
        _show_saved_figure(fig, path, f"{self.paper}/{path.name}")
        return FigurePath(path)


# --------------------------------------------------------------------------------------------- registered criteria
#: what a registered criterion fixes before a run: the claim, where the paper makes it, its value and the rule
CRITERIA_FIELDS = ("id", "kind", "claim", "source", "paper_value", "criterion")


def criteria_path(paper: str, notebook: str, root: Path | None = None) -> Path:
    """``data/<paper>/criteria/<notebook>.json``: the criteria a notebook's claims are graded with, committed
    before the run that grades them."""
    root = Path(root) if root is not None else _settings.repo_root()
    return root / "data" / paper / "criteria" / f"{Path(notebook).stem}.json"


def criteria_entries(claims: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The registered part of each claim (:data:`CRITERIA_FIELDS`), in ledger order."""
    return [{k: c.get(k) for k in CRITERIA_FIELDS} for c in claims]


def criteria_text(paper: str, notebook: str, claims: Sequence[dict[str, Any]]) -> str:
    payload = {"paper": paper, "notebook": Path(notebook).stem, "gates": _validity.GATE_POLICY,
               "criteria": criteria_entries(claims)}
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def sha256_file(path: Path) -> str:
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def register_criteria(source: Path, root: Path | None = None, only: Sequence[str] = ()) -> list[Path]:
    """Write ``data/<paper>/criteria/<notebook>.json`` from the ledgers under ``source`` (a smoke run's results:
    the criteria depend on the paper and the rule, not on our numbers); ``only``: substrings of
    ``<paper>/<notebook>`` to register (default: every ledger). Returns the files written or changed."""
    written = []
    for ledger in load_ledgers(source):
        key = f"{ledger['paper']}/{ledger['notebook']}"
        if only and not any(part in key for part in only):
            continue
        path = criteria_path(ledger["paper"], ledger["notebook"], root)
        text = criteria_text(ledger["paper"], ledger["notebook"], ledger["claims"])
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def criteria_problems(ledger: dict[str, Any], root: Path | None = None) -> list[str]:
    """Why a stored ledger was not graded with its committed criteria (empty when it was): the file is missing,
    its hash differs from the one the ledger recorded, or a claim's registered fields differ."""
    name = f"{ledger['paper']}/{ledger['notebook']}"
    path = criteria_path(ledger["paper"], ledger["notebook"], root)
    if not path.exists():
        return [f"{name}: no registered criteria ({path.name} under data/{ledger['paper']}/criteria/)"]
    recorded = (ledger.get("criteria") or {}).get("sha256")
    problems = []
    if recorded != sha256_file(path):
        problems.append(f"{name}: graded with criteria {str(recorded)[:12]}, committed {sha256_file(path)[:12]}")
    registered = {e["id"]: e for e in json.loads(path.read_text(encoding="utf-8"))["criteria"]}
    for entry in criteria_entries(ledger["claims"]):
        if entry["id"] not in registered:
            problems.append(f"{name}: claim {entry['id']!r} is not registered")
        elif registered[entry["id"]] != entry:
            diff = [k for k in CRITERIA_FIELDS if registered[entry["id"]].get(k) != entry.get(k)]
            problems.append(f"{name}: claim {entry['id']!r} differs from its registered criterion in {diff}")
    return problems


# --------------------------------------------------------------------------------------------- reading
def validate_claim(claim: dict[str, Any], where: str = "ledger") -> None:
    """Raise ValueError naming the problem if a stored claim does not follow ledger schema 2."""
    cid = claim.get("id")
    kind = claim.get("kind")
    if kind not in KINDS:
        raise ValueError(f"{where}: claim {cid!r} has kind {kind!r} (one of {', '.join(KINDS)})")
    allowed = KIND_VERDICTS[kind]
    if claim.get("verdict") not in allowed:
        raise ValueError(f"{where}: {kind} claim {cid!r} has verdict {claim.get('verdict')!r}")
    if kind in ("paper", "erratum") and not claim.get("source"):
        raise ValueError(f"{where}: {kind} claim {cid!r} has no source")
    if kind in ("paper", "beyond") and not claim.get("regime"):
        raise ValueError(f"{where}: {kind} claim {cid!r} has no regime ('paper setting' or 'scaled: …')")
    if claim["verdict"] in ("inconclusive", "not testable") and not claim.get("reason"):
        raise ValueError(f"{where}: claim {cid!r} is {claim['verdict']!r} without a reason")


def ledger_path(notebook: str, root: str | Path | None = None) -> Path:
    """Where the ledger of ``notebook`` = ``"<paper>/<name>"`` is: ``<root>/<paper>/<name>.json`` (``root``
    default: the results folder)."""
    root = Path(root) if root is not None else _settings.results_dir()
    return root / f"{notebook.strip().removesuffix('.json')}.json"


def ledger_paths(root: str | Path | None = None) -> list[Path]:
    """Every ledger ``<paper>/<notebook>.json`` under ``root`` (default: the results folder), sorted, without the
    ``.provenance.json`` siblings."""
    root = Path(root) if root is not None else _settings.results_dir()
    return sorted(p for p in root.glob("*/*.json") if not p.name.endswith(".provenance.json"))


def load_ledgers(root: Path | None = None) -> list[dict[str, Any]]:
    """Every ledger under ``root`` (default: the results folder), validated against schema 2."""
    out = []
    for path in ledger_paths(root):
        data = json.loads(path.read_text(encoding="utf-8"))
        missing = {"schema", "paper", "notebook", "profile", "seeds", "claims"} - set(data)
        if missing:
            raise ValueError(f"{path}: ledger lacks {sorted(missing)} (schema {SCHEMA} expected)")
        if data["schema"] != SCHEMA:
            raise ValueError(f"{path}: ledger schema {data['schema']!r}, expected {SCHEMA}")
        for claim in data["claims"]:
            validate_claim(claim, str(path))
        data["_path"] = str(path)
        out.append(data)
    return out


CLAIM_COLUMNS = ["paper", "notebook", "profile", "id", "kind", "claim", "source", "paper_value", "ours",
                 "ci_low", "ci_high", "n_seeds", "mde", "criterion", "verdict", "reason", "regime"]


def claims_frame(root: Path | None = None):
    """All claims as one DataFrame with paper and notebook columns (CI bounds where the claim has seed stats)."""
    import pandas as pd

    rows = []
    for ledger in load_ledgers(root):
        for claim in ledger["claims"]:
            st = claim.get("stats") or {}
            ci = st.get("ci") or [None, None]
            rows.append({"paper": ledger["paper"], "notebook": ledger["notebook"], "profile": ledger["profile"],
                         **{k: claim.get(k) for k in ("id", "kind", "claim", "source", "paper_value", "ours",
                                                      "criterion", "verdict", "reason", "regime")},
                         "ci_low": ci[0], "ci_high": ci[1], "n_seeds": st.get("n"), "mde": st.get("mde")})
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def erratum_paper(claim_id: str, owner: str) -> str:
    """The paper an erratum concerns: its id's prefix when that names a paper of the registry
    (``weighted-cl:soft-tau-star`` -> ``weighted-cl``), else the ledger's owner."""
    prefix = claim_id.split(":", 1)[0] if ":" in claim_id else ""
    return prefix if prefix in _papers.REPRODUCED else owner


def scoreboard(root: Path | None = None, kind: str = "paper", by_regime: bool = False, unit: str = "statement",
               checkout: Path | None = None):
    """Counts of verdicts per paper (rows) for claims of one ``kind`` — the site's landing-page table.

    The headline scoreboard counts the ``paper`` claims of the five papers only (an entry of the registry with a
    paper text) by ``unit``: ``statement`` counts each statement of a paper once, by its headline verdict, with
    ``evidence`` (its ledger rows) and ``split`` (statements whose rows disagree), erratum evidence left out
    (:func:`companion.statements.board`; ``checkout``: where ``data/<paper>/statements.csv`` is read); ``evidence``
    counts every ledger row. ``check``, ``beyond`` and ``erratum`` claims are counted apart, by row: errata under
    the paper they concern (:func:`erratum_paper`), the others under the ledger's owner. ``by_regime=True`` adds a
    ``regime`` column (``paper setting`` / ``scaled``: of the headline row for a statement) and one row per paper
    and regime.
    """
    import pandas as pd

    if kind not in KINDS:
        raise ValueError(f"scoreboard(): kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if unit not in ("statement", "evidence"):
        raise ValueError(f"scoreboard(): unit must be 'statement' or 'evidence', got {unit!r}")
    verdicts = list(KIND_VERDICTS[kind])
    index = ["paper", "regime"] if by_regime else ["paper"]
    frame = claims_frame(root)
    frame = frame[frame["kind"] == kind]
    if kind == "paper":
        frame = frame[frame["paper"].isin(_papers.REPRODUCED)]
        if unit == "statement":
            return _statement_board(frame, by_regime=by_regime, root=checkout)
    if kind == "erratum":
        frame = frame.assign(paper=[erratum_paper(i, owner) for i, owner in zip(frame["id"], frame["paper"])])
    if frame.empty:
        return pd.DataFrame(columns=[*index, *verdicts, "total"])
    frame = frame.assign(regime=frame["regime"].map(regime_kind))
    counts = frame.pivot_table(index=index, columns="verdict", values="id", aggfunc="count", fill_value=0)
    counts = counts.reindex(columns=verdicts, fill_value=0)
    counts["total"] = counts.sum(axis=1)
    counts.columns.name = None
    return counts.reset_index()


def show_provenance(ledger: Ledger) -> None:
    """Display the provenance of this run as a small table — the last cell of every notebook.

    Returns nothing, so that a cell ending in ``show_provenance(ledger)`` shows the table once; the values are
    :meth:`Ledger.provenance`."""
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
