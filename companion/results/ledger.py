"""The claims ledger of one notebook run: every claim with its kind, its place in the paper, an explicit criterion
and a *computed* verdict; the figures it saves and the provenance it shows.

Kinds: ``paper`` (a statement the paper makes, with ``source``: ``Table 4, Emolit, …`` / ``§5.2`` / ``Thm 3.13`` /
``Fig. 7 caption``; a derived value names its inputs, ``Table 4: 86.26 - 85.28``), ``check`` (our own identity,
parity or set-up check — ``passed``/``failed``, never a reproduction) and ``beyond`` (a question the paper does not
ask), ``erratum`` (a statement the paper's own text or tables contradict: ``confirmed``, ``minor`` when the
criterion is :func:`companion.stats.minor_erratum`, ``partly``, ``not confirmed``). Paper and beyond claims get one
of :data:`companion.stats.VERDICTS`; ``inconclusive`` and ``not testable`` always carry a ``reason``. The rules:
:mod:`companion.stats`.

:meth:`Ledger.save` writes ``results/<paper>/<notebook>.json`` (its schema: ``docs/reference.md``, "Results
ledger"; read back by :mod:`companion.results.reading`) and, beside it, ``<notebook>.provenance.json``
(:mod:`companion.results.records`).
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from companion._io import write_atomic
from companion.profiles import check_profile
from companion.results.reading import KINDS, PAPERS, SCHEMA, ledger_path
from companion.results.records import json_bytes, output_dirs, provenance, sha256_file, write_json_atomic
from companion.results.registration import criteria_path
from companion.stats import (
    Comparison,
    Criterion,
    Validity,
    as_check,
    as_erratum,
    regime_label,
)
from companion.stats import (
    validity as _validity,
)


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
        from IPython import get_ipython  # noqa: PLC0415 - IPython matters only in a Jupyter kernel
    except ImportError:  # pragma: no cover - IPython comes with the notebook stack
        return
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return
    from IPython.display import display  # noqa: PLC0415 - IPython is heavy; this module imports without it

    out = figure_output(path.read_bytes(), figure, path.stem)
    display(out["data"], raw=True, metadata=out["metadata"])
    import matplotlib.pyplot as plt  # noqa: PLC0415 - matplotlib is heavy; this module imports without it

    plt.close(fig)


# --------------------------------------------------------------------------------------------- ledger
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")


def _paper_side(criterion: Criterion, ours: Any) -> int | None:
    """The way the claim's quantity must move to approach the paper's statement (+1 up, −1 down), where the
    criterion says: the paper's sign for a difference, the paper's level against our estimate for a level."""
    if criterion.name == "direction":
        return int(criterion.params["sign"])
    if criterion.name == "level" and isinstance(ours, Comparison):
        gap = float(criterion.params["paper_value"]) - float(ours.estimate)
        return 0 if gap == 0 else int(math.copysign(1, gap))
    return None


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


def show_provenance(ledger: Ledger) -> None:
    """Display the provenance of this run as a small table — the last cell of every notebook.

    Returns nothing, so that a cell ending in ``show_provenance(ledger)`` shows the table once; the values are
    :meth:`Ledger.provenance`."""
    info = ledger.provenance()
    rows = [("profile", info["profile"]), ("seeds", ", ".join(map(str, info["seeds"])) or "-"),
            ("wall time (s)", info["wall_time_s"]), ("date", info["date"])]
    rows += [(f"hardware: {k}", v) for k, v in info["hardware"].items()]
    rows += [(f"version: {k}", v) for k, v in info["versions"].items()]
    frame = pd.DataFrame(rows, columns=["what", "value"]).set_index("what")
    try:
        from IPython.display import display  # noqa: PLC0415 - IPython matters only in a Jupyter kernel

        display(frame)
    except ImportError:  # pragma: no cover
        print(frame.to_string())
