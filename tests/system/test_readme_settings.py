"""The README and the reference (``docs/reference.md``) tell a new reader what the code does. What a test can check
is checked here: every command they show exists and parses, every path and link resolves, every setting the package
reads is documented and every documented setting is read, the extras they name exist and hold what each group
needs, what they say CI runs is in ``.ci/run``, the ``cpu`` profile's total time matches the stored provenance,
and the README stays short."""

import ast
import contextlib
import io
import json
import re
import shlex
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from companion import sts
from companion.__main__ import build_parser
from companion.__main__ import main as cli

REPO = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "docs/reference.md")
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _text(name: str) -> str:
    return (REPO / name).read_text(encoding="utf-8")


def _readme() -> str:
    return _text("README.md")


def _code_lines(text: str) -> list[str]:
    """The lines of the fenced code blocks, continuation lines joined, comments dropped."""
    blocks = re.findall(r"^\s*```[a-z]*\n(.*?)^\s*```", text, flags=re.S | re.M)
    joined = "\n".join(blocks).replace("\\\n", " ")
    return [re.split(r"\s#\s", line, maxsplit=1)[0].strip() for line in joined.splitlines() if line.strip()]


def _commands(line: str, program: str) -> list[list[str]]:
    """Each ``program ...`` command of a shell line (split at ``&&``, ``||``, ``;``, braces), as its arguments."""
    out = []
    for part in re.split(r"&&|\|\||;|[{}]", line):
        if program in part:
            out.append(shlex.split(part[part.index(program) + len(program):]))
    return out


# ------------------------------------------------------------------------------------------------ commands
def _check_companion_command(args: list[str]) -> None:
    if args[0] == "sts":
        sts._parser().parse_args(args[1:])
    elif args[0] == "notebooks":
        help_text = io.StringIO()
        with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
            cli([*args[:2], "--help"])
        for option in (a for a in args[2:] if a.startswith("--")):
            assert option in help_text.getvalue(), f"notebooks: no option {option}"
    else:
        build_parser().parse_args(args)


@pytest.mark.parametrize("doc", DOCS)
def test_every_command_shown_in_a_code_block_parses(doc):
    shown = [args for line in _code_lines(_text(doc)) for args in _commands(line, "python -m companion")]
    assert len(shown) >= (3 if doc == "README.md" else 15)
    for args in shown:
        try:
            _check_companion_command(args)
        except SystemExit:
            pytest.fail(f"{doc}: 'python -m companion {shlex.join(args)}' does not parse")


@pytest.mark.parametrize("doc", DOCS)
def test_every_command_named_in_the_text_exists(doc):
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    data_actions = next(a for a in commands["data"]._actions if a.dest == "action").choices
    named = re.findall(r"python -m companion ([a-z][a-z-]*)(?: ([a-z]+))?", _text(doc))
    assert named
    for command, action in named:
        assert command in commands, f"{doc} names 'python -m companion {command}', which does not exist"
        if command == "data" and action:
            assert action in data_actions, f"{doc} names 'data {action}', which does not exist"


@pytest.mark.parametrize("doc", DOCS)
def test_every_pytest_command_names_existing_tests_and_registered_markers(doc):
    markers = {m.split(":")[0].strip() for m in PYPROJECT["tool"]["pytest"]["ini_options"]["markers"]}
    for line in _code_lines(_text(doc)):
        for args in _commands(line, "python -m pytest"):
            for i, arg in enumerate(args):
                if arg == "-m":
                    words = set(re.findall(r"[a-z_]+", args[i + 1])) - {"not", "and", "or"}
                    assert words <= markers, f"{doc}: unregistered marker in {args[i + 1]!r}"
                elif not arg.startswith("-") and (i == 0 or args[i - 1] != "-m"):
                    assert (REPO / arg.split("::")[0]).exists(), f"{doc}: no {arg}"


def test_the_readme_shows_the_two_commands_with_the_cpu_torch_step_inside_the_first():
    lines = _code_lines(_readme())
    first = next(line for line in lines if "python3 -m venv" in line)
    steps = [part.strip() for part in first.split("&&")]
    torch_step = next(i for i, s in enumerate(steps) if s.startswith("pip install torch"))
    requirements = next(i for i, s in enumerate(steps) if s.startswith("pip install -r requirements.txt"))
    assert "download.pytorch.org/whl/cpu" in steps[torch_step] and torch_step < requirements
    pinned = re.search(r"^torch==(\S+)", _text("requirements.txt"), re.M).group(1)
    assert f"torch=={pinned}" in steps[torch_step]  # the pin requirements.txt then finds satisfied
    assert steps[-1] == "python -m companion run --profile smoke"
    assert "python -m pytest" in lines


# ------------------------------------------------------------------------------------------------ paths, links
_SKIP_PATH = re.compile(r"[<>*…$~{}]|^\.\./|^https?://")
_TOP = {p.name for p in REPO.iterdir()} - {".git", ".venv"}


@pytest.mark.parametrize("doc", DOCS)
def test_every_repository_path_in_code_spans_exists(doc):
    spans = re.findall(r"`([^`\s]+)`", _text(doc))
    paths = [s.rstrip("/.,") for s in spans if "/" in s and s.split("/")[0] in _TOP and not _SKIP_PATH.search(s)]
    paths += [s for s in spans if s in {"pyproject.toml", "requirements.txt", "jupytext.toml", "index.qmd",
                                         "_quarto.yml", "MANIFEST.in"}]
    assert paths
    missing = [p for p in paths if not (REPO / p).exists() and not (REPO / f"{p}.ipynb").exists()]
    assert not missing, f"{doc} names paths that do not exist: {missing}"


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", markdown, re.M):
        out.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return out


@pytest.mark.parametrize("doc", DOCS)
def test_every_relative_link_resolves(doc):
    base = (REPO / doc).parent
    links = re.findall(r"\]\(([^)\s]+)\)", _text(doc))
    assert links
    for link in links:
        if re.match(r"https?://", link):
            continue
        target, _, anchor = link.partition("#")
        path = (base / target).resolve() if target else REPO / doc
        assert path.exists(), f"{doc}: the link {link} leads nowhere"
        if anchor:
            assert anchor in _anchors(path.read_text(encoding="utf-8")), f"{doc}: no heading #{anchor} in {target}"


# ------------------------------------------------------------------------------------------------ settings
def _settings_read() -> set[str]:
    read = set()
    for path in (REPO / "companion").rglob("*.py"):
        read |= set(re.findall(r"(?:environ\.get|_env_path|getenv)\(\s*\"(COMPANION_[A-Z_]+)\"", path.read_text()))
    return read


def test_every_setting_the_package_reads_is_in_the_settings_table():
    read = _settings_read()
    assert {"COMPANION_DATA_DIR", "COMPANION_REPO_ROOT", "COMPANION_WORDNET_DIR"} <= read
    table = [line for line in _text("docs/reference.md").splitlines()
             if line.startswith("| `COMPANION_") or line.startswith("| `HF_")]
    documented = set(re.findall(r"`(COMPANION_[A-Z_]+)`", "\n".join(table)))
    assert read <= documented, f"settings missing from the reference's table: {sorted(read - documented)}"


def test_every_setting_the_docs_name_is_one_the_code_uses():
    literals = set()
    for path in (REPO / "companion").rglob("*.py"):
        literals |= set(re.findall(r"[\"'](COMPANION_[A-Z_]+)[\"']", path.read_text()))
    for doc in DOCS:
        named = set(re.findall(r"\bCOMPANION_[A-Z_]+\b", _text(doc)))
        assert named and named <= literals, f"{doc} names settings the code never uses: {sorted(named - literals)}"


# ------------------------------------------------------------------------------------------------ extras
def _extras() -> dict[str, list[Requirement]]:
    return {name: [Requirement(r) for r in reqs] for name, reqs in PYPROJECT["project"]["optional-dependencies"].items()}


def _names(reqs) -> set[str]:
    return {canonicalize_name(r.name) for r in reqs}


def test_every_extra_the_docs_name_exists():
    extras = _extras()
    for doc in DOCS:
        named = set(re.findall(r"\.\[([a-z,]+)\]", _text(doc)))
        named = {n for group in named for n in group.split(",")}
        rows = _text(doc).split("| extra | for | adds |", 1)[1].split("\n\n", 1)[0] if doc != "README.md" else ""
        table = re.findall(r"^\| `([a-z]+)` \| ", rows, re.M)
        assert set(table) >= set(extras) or doc == "README.md", "the reference's extras table misses one"
        assert named | set(table) <= set(extras), f"{doc} names extras pyproject.toml does not have"


def _closure(names: set[str]) -> set[str]:
    """The installed distributions ``names`` pull in (markers evaluated here, extras not followed)."""
    seen, todo = set(), list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen


def _third_party_imports(folder: Path) -> set[str]:
    modules = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    return {m for m in modules if m not in sys.stdlib_module_names and m not in {"companion", "benchmarks", "tests"}}


def test_the_dev_extra_holds_what_the_tests_import():
    core = _names(Requirement(r) for r in PYPROJECT["project"]["dependencies"])
    dev = _names(_extras()["dev"])
    available = _closure(core | dev | {"torch"})  # torch: installed first, by hand (its build depends on the machine)
    providers = metadata.packages_distributions()
    missing = {}
    for module in _third_party_imports(REPO / "tests") | _third_party_imports(REPO / "companion"):
        dists = {canonicalize_name(d) for d in providers.get(module, [])}
        if dists and not dists & available:
            missing[module] = sorted(dists)
    assert not missing, f"imported by the tests or the package, in no dependency or the dev extra: {missing}"


def test_the_groups_extras_are_in_dev_and_nbval_in_none():
    extras = {name: _names(reqs) for name, reqs in _extras().items()}
    assert {"train", "site", "dev"} <= set(extras)
    assert extras["train"] | extras["site"] <= extras["dev"]
    assert not any("nbval" in names for names in extras.values())  # requirements.txt leaves it out on purpose


def test_the_train_extra_holds_what_sentence_transformers_trainer_needs():
    core = _names(Requirement(r) for r in PYPROJECT["project"]["dependencies"])
    trainer = {canonicalize_name(Requirement(r).name) for r in metadata.requires("sentence-transformers") or []
               if 'extra == "train"' in r}
    assert trainer and trainer <= core | _names(_extras()["train"])


def test_the_site_extra_holds_what_the_api_pages_and_the_render_check_import():
    site = _names(_extras()["site"])
    for module in ("companion/publish/apidoc.py", "companion/publish/site/render.py"):
        imported = _third_party_imports(REPO / Path(module).parent) & {"quartodoc", "nbconvert"}
        assert {canonicalize_name(m) for m in imported} <= site
    assert {"quartodoc", "griffe", "black", "nbconvert"} <= site


# ------------------------------------------------------------------------------------------------ CI, times, size
def test_what_the_reference_says_ci_runs_is_in_ci_run():
    reference = _text("docs/reference.md")
    section = reference[reference.index("## CI"):]
    section = section[:section.index("\n## ", 1)]
    commands = [c for c in re.findall(r"`([^`]+)`", section) if c.split()[0] in {"pip", "python", "ruff", "bash"}]
    assert len(commands) >= 5
    script = _text(".ci/run")
    for command in commands:
        if command != "bash .ci/run":
            assert command in script, f"the reference says CI runs {command!r}; .ci/run does not"


def test_the_stated_cpu_total_matches_the_provenance():
    total = sum(json.loads(p.read_text())["wall_time_s"] for p in (REPO / "results").glob("*/*.provenance.json"))
    match = re.search(r"The `cpu` profile takes about (\d+) min in all on 2 CPU cores: ([\d,]+) s",
                      _text("docs/reference.md"))
    assert match, "the reference no longer states the cpu profile's total time"
    minutes, seconds = int(match.group(1)), int(match.group(2).replace(",", ""))
    assert abs(seconds - total) <= 0.1 * total, f"the reference says {seconds} s, the provenance sums to {total:.0f} s"
    assert abs(minutes - seconds / 60) <= 1


def test_the_readme_is_short_and_keeps_the_sections_others_point_at():
    readme = _readme()
    assert len(readme.splitlines()) <= 150, "the README grew: move reference material to docs/reference.md"
    headings = re.findall(r"^## (.+)$", readme, re.M)
    # the notebooks' Colab set-up cell sends readers to "README, 'Opening the notebooks'"
    assert "Opening the notebooks" in headings and "Two commands" in headings
    assert "Results ledger" in re.findall(r"^## (.+)$", _text("docs/reference.md"), re.M)
