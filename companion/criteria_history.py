"""The registration history of every criterion, read from the repository's commits: when each claim's criterion was
first registered, when its first result was committed, and every change of its criterion or paper value after that
result, with what it was before.

A criterion should be fixed before the run it judges (``python -m companion criteria register``), and a change
after a result must show as such. The commits hold the evidence: each committed ledger
(``results/<paper>/<notebook>.json``, never the smoke profile's) is a result, each committed criteria file
(``data/<paper>/criteria/<notebook>.json``) a registration. :func:`compute` walks them in commit order;
``python -m companion criteria history`` writes the outcome to :data:`HISTORY` (``data/criteria-history.json``),
naming the last commit it covers, and ``criteria history --check`` recomputes it up to that commit and lists the
commits since that changed a ledger or a criteria file, so that the stored history can be neither edited by hand nor
left behind. The site shows each claim's revisions beside its verdict.

A revision records its commit, date and ``scope``: how many claims had their criterion or paper value changed by the
same commit. A commit that changes many at once (``scope >= RULE_WIDE``) changed a rule or its wording for every claim
that uses it; a small scope is a change aimed at these claims. Both are changes after a result and both are shown.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from companion import settings as _settings

HISTORY = Path("data") / "criteria-history.json"
#: a commit that revises at least this many claims' criteria changed a shared rule or its wording, not one claim
RULE_WIDE = 10
#: what a claim's criterion is made of: a change to either after a result is a revision
FIELDS = ("criterion", "paper_value")


class HistoryUnavailable(RuntimeError):
    """The repository's history cannot be read (no git, not a checkout, or a shallow clone without the commit)."""


@dataclass
class Revision:
    commit: str
    date: str
    field: str
    was: Any
    now: Any
    scope: int = 0


@dataclass
class ClaimHistory:
    first_result: str  # "<date> <commit>" of the first committed, non-smoke ledger holding the claim
    registered: str | None = None  # "<date> <commit>" of the first criteria file holding it, None if never
    registered_before_result: bool | None = None
    revisions: list[Revision] = field(default_factory=list)


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
    except FileNotFoundError as exc:
        raise HistoryUnavailable("git is not installed") from exc
    except subprocess.CalledProcessError as exc:
        raise HistoryUnavailable(f"git {' '.join(args[:2])} failed: {exc.stderr.strip().splitlines()[-1:]}") from exc
    return done.stdout


def _versions(root: Path, upto: str, pattern: str) -> Iterator[tuple[str, str, str, dict]]:
    """``(commit, date, path, json)`` of every committed version of the files matching ``pattern`` up to ``upto``,
    in commit order (oldest first); versions that are not JSON are skipped."""
    log = _git(root, "log", "--reverse", "--topo-order", "--format=C %H %ad", "--date=short", "--name-only",
               "--diff-filter=AM", upto, "--", pattern)
    commit = date = ""
    for line in log.splitlines():
        if line.startswith("C "):
            _, commit, date = line.split()
        elif line.strip() and not line.endswith(".provenance.json"):
            try:
                payload = json.loads(_git(root, "show", f"{commit}:{line.strip()}"))
            except (HistoryUnavailable, ValueError):
                continue
            yield commit, date, line.strip(), payload


def _key(path: str) -> str:
    """``results/<paper>/<nb>.json`` or ``data/<paper>/criteria/<nb>.json`` -> ``<paper>/<nb>``."""
    parts = Path(path).parts
    return f"{parts[1]}/{Path(parts[-1]).stem}"


def compute(upto: str = "HEAD", root: Path | None = None) -> dict[str, Any]:
    """The history of every claim of every committed ledger up to commit ``upto`` (module docstring)."""
    root = _settings.repo_root() if root is None else Path(root)
    covers = _git(root, "rev-parse", upto).strip()
    claims: dict[str, dict[str, ClaimHistory]] = {}
    last: dict[tuple[str, str], dict[str, Any]] = {}
    pending: list[tuple[str, str, Revision]] = []
    for commit, date, path, ledger in _versions(root, covers, "results/*/*.json"):
        if ledger.get("profile") == "smoke" or not isinstance(ledger.get("claims"), list):
            continue
        key = _key(path)
        for claim in ledger["claims"]:
            cid = claim.get("id")
            if not cid:
                continue
            now = {f: claim.get(f) for f in FIELDS}
            history = claims.setdefault(key, {}).get(cid)
            if history is None:
                claims[key][cid] = ClaimHistory(first_result=f"{date} {commit[:7]}")
            else:
                before = last[key, cid]
                for f in FIELDS:
                    if before[f] is not None and now[f] is not None and before[f] != now[f]:
                        revision = Revision(commit[:7], date, f, before[f], now[f])
                        history.revisions.append(revision)
                        pending.append((key, cid, revision))
            last[key, cid] = now
    scope = Counter(revision.commit for _, _, revision in pending)
    for _, _, revision in pending:
        revision.scope = scope[revision.commit]
    registered: dict[tuple[str, str], str] = {}
    for commit, date, path, criteria in _versions(root, covers, "data/*/criteria/*.json"):
        for entry in criteria.get("criteria", []) if isinstance(criteria, dict) else []:
            registered.setdefault((_key(path), entry.get("id")), f"{date} {commit[:7]}")
    order = {c[:7]: i for i, c in enumerate(_git(root, "rev-list", "--reverse", "--topo-order", covers).split())}
    for key, by_id in claims.items():
        for cid, history in by_id.items():
            history.registered = registered.get((key, cid))
            if history.registered is not None:
                history.registered_before_result = (order[history.registered.split()[1]]
                                                    < order[history.first_result.split()[1]])
    return {"covers": covers, "rule_wide": RULE_WIDE,
            "claims": {key: {cid: asdict(h) for cid, h in sorted(by_id.items())} for key, by_id in sorted(claims.items())}}


def history_path(root: Path | None = None) -> Path:
    return (_settings.repo_root() if root is None else Path(root)) / HISTORY


def write(root: Path | None = None) -> Path:
    """Compute the history up to ``HEAD`` and write it to :data:`HISTORY`."""
    from companion.results.records import write_json_atomic  # noqa: PLC0415 - loads scipy; this module imports without it

    return write_json_atomic(history_path(root), compute("HEAD", root))


def load(root: Path | None = None) -> dict[str, Any] | None:
    """The stored history, or None when there is none."""
    path = history_path(root)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def problems(root: Path | None = None) -> list[str]:
    """Why the stored history is not the one the commits give (one line each; empty when it is): missing, edited
    (it differs from a recomputation up to the commit it names), or left behind (later commits changed a ledger or
    a criteria file). Raises :class:`HistoryUnavailable` outside a git checkout."""
    root = _settings.repo_root() if root is None else Path(root)
    _git(root, "rev-parse", "--verify", "HEAD")  # a checkout with commits, else HistoryUnavailable: nothing to check
    stored = load(root)
    if stored is None:
        return [f"{HISTORY} is missing: run 'python -m companion criteria history'"]
    covers = stored.get("covers", "")
    try:
        _git(root, "cat-file", "-e", f"{covers}^{{commit}}")
    except HistoryUnavailable:
        return [f"{HISTORY} covers commit {covers[:7]}, which this clone does not hold (a shallow clone?): "
                f"it cannot be checked here"]
    out = []
    if json.loads(json.dumps(compute(covers, root))) != stored:
        out.append(f"{HISTORY} differs from the history its commit {covers[:7]} gives: run "
                   f"'python -m companion criteria history' (never edit it by hand)")
    later = _git(root, "log", "--format=%h", f"{covers}..HEAD", "--", "results/*/*.json",
                 "data/*/criteria/*.json").split()
    if later:
        out.append(f"{len(later)} commit(s) after {covers[:7]} changed a ledger or a criteria file "
                   f"({', '.join(later[:3])}{', ...' if len(later) > 3 else ''}): run "
                   f"'python -m companion criteria history' and commit it")
    return out


def revised(history: dict[str, Any] | None, notebook: str, claim_id: str) -> list[dict[str, Any]]:
    """The revisions after a result of one claim (``notebook`` = ``<paper>/<nb>``), oldest first; [] when none or
    no history is stored."""
    if not history:
        return []
    return list(history.get("claims", {}).get(notebook, {}).get(claim_id, {}).get("revisions", []))


def summary(history: dict[str, Any]) -> dict[str, int]:
    """Counts over every claim: claims, registered before their first result, revised after it (by a change aimed
    at few claims, or by a rule-wide one)."""
    rows = [h for by_id in history["claims"].values() for h in by_id.values()]
    wide = history.get("rule_wide", RULE_WIDE)
    return {
        "claims": len(rows),
        "registered before their first result": sum(bool(h["registered_before_result"]) for h in rows),
        "never registered": sum(h["registered"] is None for h in rows),
        "revised after a result (aimed at few claims)": sum(any(r["scope"] < wide for r in h["revisions"])
                                                            for h in rows),
        "revised after a result (rule-wide only)": sum(bool(h["revisions"]) and all(r["scope"] >= wide
                                                                                    for r in h["revisions"])
                                                       for h in rows),
    }
