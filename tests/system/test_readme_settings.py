"""The README tells a new reader what the code does: every setting the package reads is in its settings table, and
the ``cpu`` profile's total time it states matches the provenance of the stored runs."""

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def test_every_setting_the_package_reads_is_in_the_settings_table():
    read = set()
    for path in (REPO / "companion").rglob("*.py"):
        read |= set(re.findall(r"(?:environ\.get|_env_path|getenv)\(\s*\"(COMPANION_[A-Z_]+)\"", path.read_text()))
    assert {"COMPANION_DATA_DIR", "COMPANION_REPO_ROOT", "COMPANION_WORDNET_DIR"} <= read
    table = [line for line in _readme().splitlines() if line.startswith("| `COMPANION_") or line.startswith("| `HF_")]
    documented = set(re.findall(r"`(COMPANION_[A-Z_]+)`", "\n".join(table)))
    assert read <= documented, f"settings missing from the README table: {sorted(read - documented)}"


def test_the_stated_cpu_total_matches_the_provenance():
    total = sum(json.loads(p.read_text())["wall_time_s"] for p in (REPO / "results").glob("*/*.provenance.json"))
    match = re.search(r"The `cpu` profile takes about (\d+) min in all on 2 CPU cores: ([\d,]+) s", _readme())
    assert match, "the README no longer states the cpu profile's total time"
    minutes, seconds = int(match.group(1)), int(match.group(2).replace(",", ""))
    assert abs(seconds - total) <= 0.1 * total, f"README says {seconds} s, the provenance sums to {total:.0f} s"
    assert abs(minutes - seconds / 60) <= 1
