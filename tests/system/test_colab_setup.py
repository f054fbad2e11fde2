"""The Colab set-up cell for real, offline, in a simulated Colab: a clone of this repository stands for the GitHub
repository, the loopback web server of ``conftest.py`` for the data publishers, and a module in ``sys.modules`` for
``google.colab``.

The cell runs in a fresh Python (a throwaway virtual environment that sees this environment's packages through a
``.pth`` file, so that pip installs the companion there and finds every dependency already installed; no index,
no build isolation: nothing is downloaded), with ``/content`` moved into ``tmp_path``. It must clone the
repository typed into its form, install it, fetch and verify every data file from the mirror typed into its other
field, and point the notebook at both.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from companion import fetch
from companion.publish import colab

REPO = Path(__file__).resolve().parents[2]

DRIVER = r'''
import json, os, socket, sys, types

real = socket.create_connection


def guarded(address, *args, **kwargs):
    assert address[0] == "127.0.0.1", f"the set-up cell tried to reach {address[0]}"
    return real(address, *args, **kwargs)


socket.create_connection = guarded
sys.modules["google.colab"] = types.ModuleType("google.colab")  # what makes the cell act
downloads = []
nltk = types.ModuleType("nltk")  # NLTK's download reaches GitHub: record the call instead
nltk.download = lambda *args, **kwargs: downloads.append(list(args)) or True
sys.modules["nltk"] = nltk
source = open(sys.argv[1], encoding="utf-8").read()
exec(compile(source, "colab-setup", "exec"), {})
import companion

print("RESULT " + json.dumps({"companion": companion.__file__, "nltk": downloads,
                              "repo_root": os.environ.get("COMPANION_REPO_ROOT"),
                              "data_dir": os.environ.get("COMPANION_DATA_DIR")}))
'''


def _typed(source: str, field: str, value: str) -> str:
    """The cell with ``value`` typed into its form field ``field``."""
    lines = source.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{field} = "))
    lines[at] = f"{field} = {json.dumps(value)}  # @param {{type:\"string\"}}"
    return "\n".join(lines)


def _python_seeing_these_packages(folder: Path) -> Path:
    """A virtual environment's python whose own site-packages comes first and this environment's after it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    python = folder / "bin" / "python"
    if not python.exists():
        pytest.skip("no POSIX virtual environment layout here")
    own = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True,
                         text=True, check=True, timeout=60).stdout.strip()
    Path(own, "these-packages.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return python


@pytest.mark.slow
def test_the_set_up_cell_installs_a_clone_and_fetches_the_mirror_offline(server, tmp_path):
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs git and a git checkout to clone")
    origin = tmp_path / "origin"  # the "GitHub repository"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(origin)], check=True, timeout=300)
    content = tmp_path / "content"
    content.mkdir()
    clone, data = content / "companion", content / "companion-data"
    source = colab.setup_source(None, wordnet=True)  # this checkout's setting may be empty: the reader types it
    source = _typed(_typed(source, "companion_repository", str(origin)), "data_mirror", f"{server.url}/mirror")
    for path, moved in ((colab.CLONE_DIR, clone), (colab.DATA_DIR, data)):  # each one a quoted string in the cell
        source = source.replace(json.dumps(path), json.dumps(str(moved)))
    assert '"/content' not in source
    (tmp_path / "cell.py").write_text(source, encoding="utf-8")
    (tmp_path / "driver.py").write_text(DRIVER, encoding="utf-8")
    python = _python_seeing_these_packages(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "COMPANION_REPO_ROOT", "COMPANION_DATA_DIR", "COMPANION_RESULTS_DIR")}
    env.update(PYTHONSAFEPATH="1", PIP_NO_INDEX="1", PIP_NO_BUILD_ISOLATION="0", PIP_DISABLE_PIP_VERSION_CHECK="1")
    done = subprocess.run([str(python), str(tmp_path / "driver.py"), str(tmp_path / "cell.py")], cwd=content,
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    assert "restarts now" not in done.stdout  # nothing this Python had loaded was upgraded
    result = json.loads(done.stdout.split("RESULT ", 1)[1])
    # the companion imported afterwards is the one pip installed from the clone, not this checkout
    assert Path(result["companion"]).is_relative_to(tmp_path / "venv")
    assert (clone / "pyproject.toml").read_bytes() == (origin / "pyproject.toml").read_bytes()
    assert result["repo_root"] == str(clone) and result["data_dir"] == str(data)
    assert result["nltk"] == [["wordnet"]]
    manifest = fetch.read_manifest()
    report = fetch.check(data)
    assert report.ok and sorted(report.present) == sorted(e.path for e in manifest) and len(manifest) > 80
    assert {p for p, _ in server.requests} == {f"/mirror/{e.path}" for e in manifest}  # all from the mirror
