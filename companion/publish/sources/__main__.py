"""``python -m companion.publish.sources [paper ...]``: every source, transcription and coverage problem."""

from __future__ import annotations

import sys

from companion import results
from companion import settings as _settings
from companion.papers.text import PAPERS, papers_dir
from companion.publish.sources.checks import check_csv, csv_paths, ledger_problems
from companion.publish.sources.coverage import check_coverage


def main(argv: list[str] | None = None) -> int:
    """Print every source, transcription and coverage problem of the given papers (default: all five), paper by
    paper; exit status 1 if there is any, 2 if the paper texts are not found."""
    papers = (argv if argv is not None else sys.argv[1:]) or list(PAPERS)
    if papers_dir() is None:
        print("paper texts not found (set COMPANION_PAPERS_DIR or put them in ../shared/papers)")
        return 2
    total = 0
    for paper in papers:
        problems = [p for f in csv_paths() if f.parent.name == paper for p in check_csv(f)]
        for f in results.ledger_paths(_settings.repo_root() / "results"):
            problems.extend(p for owner, p in ledger_problems(f) if owner == paper or (owner is None and
                                                                                       f.parent.name == paper))
        problems.extend(check_coverage(paper))
        print(f"## {paper}: {len(problems)} problem(s)")
        for p in problems:
            print(f"- {p}")
        total += len(problems)
    return 1 if total else 0


if __name__ == "__main__":
    raise SystemExit(main())
