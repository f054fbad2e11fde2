"""The package installed from a wheel (what ``pip install git+...`` gives), not editable and not on the source path.

The wheel is built from a copy of the sources (``pip wheel --no-deps --no-build-isolation``, through the project's
build backend, which must leave those sources as they were), installed with ``--target`` into a temporary folder, and every command runs with only that folder on ``PYTHONPATH``
(``PYTHONSAFEPATH=1``: the current directory is not put on ``sys.path`` either, so a checkout as working directory
is a place to find notebooks, never a place to import from).
"""

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds and installs the wheel

REPO = Path(__file__).resolve().parents[2]
#: what a build reads (build_backend/companion_build.py's SOURCES); the fixture records the copy it built from
SOURCES = ("pyproject.toml", "README.md", "MANIFEST.in", "companion", "build_backend")
_BUILT: dict[str, Path] = {}


def _copy_sources(src: Path) -> Path:
    """A copy of what a build reads (:data:`SOURCES`) in the new folder ``src``, without bytecode caches."""
    src.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copyfile(REPO / name, src / name)
    return src


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("installed")
    src = _copy_sources(base / "src")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
    built = subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(base / "wheel"),
                            str(src)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    _BUILT["src"] = src
    wheels = list((base / "wheel").glob("companion-*.whl"))
    assert len(wheels) == 1
    target = base / "site"
    done = subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheels[0])],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return target, elsewhere


def _python(target: Path, code_or_args: list[str], cwd: Path, **env) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COMPANION_REPO_ROOT")}
    environ.update(PYTHONPATH=str(target), PYTHONSAFEPATH="1", **env)
    return subprocess.run([sys.executable, *code_or_args], capture_output=True, text=True, cwd=cwd, env=environ,
                          timeout=300)


def test_the_backend_lists_what_a_build_reads():
    tree = ast.parse((REPO / "build_backend" / "companion_build.py").read_text(encoding="utf-8"))
    listed = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                  and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["SOURCES"])
    assert listed == SOURCES
    assert "include build_backend/companion_build.py" in (REPO / "MANIFEST.in").read_text(encoding="utf-8")


def test_building_the_wheel_leaves_the_sources_as_they_were(installed):
    """``pip install .`` leaves no ``build/`` or ``companion.egg-info/`` in the checkout."""
    src = _BUILT["src"]
    assert sorted(p.name for p in src.iterdir()) == sorted(SOURCES)
    assert not list(src.rglob("*.egg-info")) and not (src / "build").exists()


HOOKS = """
import os, sys, tempfile
sys.path.insert(0, "build_backend")
import companion_build as backend
out = tempfile.mkdtemp()
for hook in ("get_requires_for_build_wheel", "get_requires_for_build_sdist", "get_requires_for_build_editable"):
    getattr(backend, hook)()
backend.prepare_metadata_for_build_wheel(tempfile.mkdtemp())
backend.prepare_metadata_for_build_editable(tempfile.mkdtemp())
for build in (backend.build_wheel, backend.build_sdist, backend.build_editable):
    build(out)
print("BUILT", " ".join(sorted(os.listdir(out))))
"""


def test_every_build_hook_leaves_the_sources_as_they_were(tmp_path):
    """What a front end with build isolation calls too (``pip install .``, ``pip install -e .``, ``python -m
    build``): the questions about build requirements, metadata, the wheel, the sdist and the editable wheel."""
    src = _copy_sources(tmp_path / "src")
    before = sorted(p.relative_to(src).as_posix() for p in src.rglob("*"))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", HOOKS], cwd=src, capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    built = done.stdout.strip().splitlines()[-1].split()[1:]
    assert sorted(b.rsplit("-", 1)[-1] for b in built) == ["0.1.0.tar.gz", "any.whl", "any.whl"], built
    assert sorted(p.relative_to(src).as_posix() for p in src.rglob("*")) == before


def test_the_wheel_holds_the_package_and_its_data_manifest(installed):
    target, elsewhere = installed
    assert (target / "companion" / "losses" / "core.py").is_file()
    assert (target / "companion" / "data_manifest.sha256").read_bytes() == \
        (REPO / "companion" / "data_manifest.sha256").read_bytes()
    assert not (target / "notebooks").exists()


def test_the_losses_import_and_work_from_the_installed_copy(installed):
    target, elsewhere = installed
    code = ("import companion, torch\n"
            "from companion.losses import contrastive_nll\n"
            "logits = torch.tensor([[2.0, 0.0], [0.0, 2.0]])\n"
            "ours = contrastive_nll(logits, torch.eye(2, dtype=torch.bool))\n"
            "ref = torch.nn.functional.cross_entropy(logits, torch.arange(2))\n"
            "print(companion.__file__)\n"
            "print(float(ours), float(ref))\n")
    done = _python(target, ["-c", code], cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    where, values = done.stdout.strip().splitlines()
    assert Path(where).is_relative_to(target)
    ours, ref = map(float, values.split())
    assert abs(ours - ref) < 1e-6 and abs(ours - 0.126928) < 1e-5


def test_list_outside_a_checkout_says_so_in_one_line(installed):
    target, elsewhere = installed
    done = _python(target, ["-m", "companion", "list"], cwd=elsewhere)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: No checkout of the companion found") and done.stderr.count("\n") == 1
    assert "COMPANION_REPO_ROOT" in done.stderr
    bad = _python(target, ["-m", "companion", "list"], cwd=elsewhere, COMPANION_REPO_ROOT=str(elsewhere))
    assert bad.returncode == 2 and bad.stderr.startswith(f"error: COMPANION_REPO_ROOT={elsewhere} is not a checkout")


def test_list_inside_a_checkout_lists_the_notebooks(installed):
    target, elsewhere = installed
    expected = sorted(p.relative_to(REPO / "notebooks").with_suffix("").as_posix()
                      for p in (REPO / "notebooks").glob("*/[0-9][0-9]-*.ipynb"))
    for cwd, env in ((REPO, {}), (REPO / "notebooks" / "angle", {}), (elsewhere, {"COMPANION_REPO_ROOT": str(REPO)})):
        done = _python(target, ["-m", "companion", "list"], cwd=cwd, **env)
        assert done.returncode == 0, done.stderr
        keys = [line.split()[0] for line in done.stdout.strip().splitlines()]
        assert len(expected) >= 20 and len(keys) == len(expected)  # every paired notebook, none missing
        assert sorted(k.replace("baselines/", "00-baselines/") for k in keys) == expected
    where = _python(target, ["-c", "import companion; print(companion.__file__)"], cwd=REPO)
    assert Path(where.stdout.strip()).is_relative_to(target)  # a checkout as cwd is not imported from


def test_results_and_notebook_data_resolve_in_the_checkout(installed):
    target, elsewhere = installed
    code = ("from companion import settings\n"
            "print(settings.results_dir())\n"
            "print((settings.REPO_ROOT / 'data' / 'angle' / 'table4.csv').is_file())\n")
    done = _python(target, ["-c", code], cwd=elsewhere, COMPANION_REPO_ROOT=str(REPO))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(REPO / "results"), "True"]


def test_the_data_check_runs_from_the_installed_copy(installed):
    target, elsewhere = installed
    from companion.settings import DataNotFoundError, data_dir

    try:
        mirror = data_dir()
    except DataNotFoundError:
        pytest.skip("no data mirror to check")
    done = _python(target, ["-m", "companion", "data", "check", str(mirror), "--only", "emolit,goemotions"],
                   cwd=elsewhere)
    assert done.returncode == 0 and "8 files ok, 0 missing, 0 corrupt" in done.stdout, done.stdout + done.stderr
