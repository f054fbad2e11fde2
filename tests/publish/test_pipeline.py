"""The pipeline's steps with every command stubbed: their order, what is skipped, printed or tolerated, the rehearsal's
placing of outputs; and the workflows that call it."""

import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from companion.publish import pipeline
from companion.publish.pipeline import Options, Step, execute, place_outputs, steps

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "reproduce.yml"
DATA = Path("/data/mirror")
EVERYTHING = {"quarto": "/usr/bin/quarto", "gh": "/usr/bin/gh"}


def _names(plan):
    return [s.name for s in plan]


def _gpu_pr(which=EVERYTHING.get, environ=None):
    opts = Options(profile="gpu", only="simace/02", jobs=2, publish="pr", branch="reproduce/gpu-7", base="main")
    return steps(opts, DATA, which=which, environ={"GH_TOKEN": "t"} if environ is None else environ)


class Calls:
    """A stand-in for the subprocess: records each command, answers with the status ``fail`` gives it."""

    def __init__(self, fail=None):
        self.commands, self.fail = [], fail or {}

    def __call__(self, command):
        self.commands.append(command)
        return next((rc for key, rc in self.fail.items() if key in " ".join(command)), 0)


def test_the_gpu_steps_come_in_the_order_the_ledgers_and_stamps_need():
    plan = _gpu_pr()
    assert _names(plan) == ["wordnet", "data", "data (gpu profile)", "dry run", "run", "branch", "stage run",
                            "commit run", "criteria history", "site", "check", "stage pages", "commit pages",
                            "render", "publish"]
    by = {s.name: s for s in plan}
    # the history reads the commits, so it follows the run's commit; the stamps follow the history; the check
    # follows both and comes before anything is pushed
    assert by["run"].commands == ((sys.executable, "-m", "companion", "run", "--profile", "gpu", "--jobs", "2",
                                   "--only", "simace/02"),)
    assert by["check"].commands == (pipeline.python("site", "--check"), pipeline.python("criteria", "check"))
    assert by["branch"].commands == (("git", "switch", "-c", "reproduce/gpu-7"),)
    assert by["stage run"].commands == (("git", "add", "-A", "--", "results", "notebooks", "figures"),)
    assert by["commit run"].unless == ("git", "diff", "--cached", "--quiet")
    assert by["publish"].commands[0] == ("git", "push", "--set-upstream", "origin", "reproduce/gpu-7")
    assert by["publish"].commands[1][:6] == ("gh", "pr", "create", "--base", "main", "--head")
    assert not by["publish"].show_only and by["render"].skip is None


def test_the_data_is_fetched_only_when_its_check_fails_and_the_gpu_profile_gets_its_whole_files():
    by = {s.name: s for s in _gpu_pr()}
    assert by["data"].unless == pipeline.python("data", "check", str(DATA))
    assert by["data"].commands == (pipeline.python("data", "fetch", "--dest", str(DATA), "--quiet"),)
    whole = by["data (gpu profile)"]
    assert whole.unless == pipeline.python("data", "check", str(DATA), "--only", "wiki-full,snli-train,mnli-train")
    assert "--only" in whole.commands[0] and "wiki-full,snli-train,mnli-train" in whole.commands[0]
    smoke = steps(Options(profile="smoke"), DATA, which=EVERYTHING.get)
    assert "data (smoke profile)" not in _names(smoke) and "dry run" not in _names(smoke)


def test_without_publishing_nothing_is_committed_and_without_quarto_the_render_says_it_is_skipped():
    plan = steps(Options(profile="cpu"), DATA, which=lambda name: None)
    assert not any(c[0] == "git" for s in plan for c in s.commands)
    assert _names(plan)[-4:] == ["criteria history", "site", "check", "render"]
    lines = []
    calls = Calls()
    assert execute(plan, calls, echo=lines.append) == 0
    assert f"== render: skipped: {pipeline.QUARTO_SKIP}" in lines
    assert ("quarto", "render") not in calls.commands


def test_without_a_token_the_push_and_pull_request_commands_are_printed_not_run():
    for which, environ in ((EVERYTHING.get, {}), ({"quarto": "q"}.get, {"GITHUB_TOKEN": "t"})):
        plan = _gpu_pr(which=which, environ=environ)
        calls, lines = Calls(), []
        assert execute(plan, calls, echo=lines.append) == 0
        assert not any(c[0] in ("gh",) or c[:2] == ("git", "push") for c in calls.commands)
        printed = lines[lines.index("== publish: no token or no gh here; to publish, run:") + 1:]
        assert printed[0] == "   git push --set-upstream origin reproduce/gpu-7"
        assert printed[1].startswith("   gh pr create --base main --head reproduce/gpu-7 --title ")


def test_a_check_that_passes_skips_its_step_and_a_failing_step_stops_the_rest():
    plan = _gpu_pr()
    calls = Calls(fail={"site --check": 1})
    lines = []
    assert execute(plan, calls, echo=lines.append) == 1
    # the data checks passed: nothing fetched; the commits' "nothing staged?" checks passed: no commit either
    assert not any("fetch" in c and "data" in c for c in calls.commands)
    assert not any(c[:2] == ("git", "commit") for c in calls.commands)
    assert calls.commands[-1] == pipeline.python("site", "--check")  # criteria check, pages, render, push: none
    assert lines[-1] == "pipeline stopped at check (exit status 1)"


def test_a_run_with_failed_notebooks_still_publishes_the_others_but_a_refused_run_stops():
    calls = Calls(fail={"run --profile gpu --jobs": 1, "diff --cached": 1})
    lines = []
    assert execute(_gpu_pr(), calls, echo=lines.append) == 1
    assert calls.commands[-1][:3] == ("gh", "pr", "create")
    assert [c[:2] for c in calls.commands if c[:2] == ("git", "commit")] == [("git", "commit")] * 2
    assert lines[-1] == "pipeline finished, but run failed: see above"
    refused = Calls(fail={"run --profile gpu --jobs": 2})
    assert execute(_gpu_pr(), refused, echo=lambda line: None) == 2
    assert refused.commands[-1][3:5] == ("run", "--profile")


def test_a_python_step_runs_its_action():
    done = []
    plan = [Step("place", action=lambda: done.append(1) or 0, describe="x"), Step("after", (("true",),))]
    calls = Calls()
    assert execute(plan, calls, echo=lambda line: None) == 0
    assert done == [1] and calls.commands == [("true",)]


def test_what_cannot_make_sense_is_refused_before_anything_runs():
    with pytest.raises(ValueError, match="never published"):
        steps(Options(profile="smoke", publish="pr"), DATA)
    with pytest.raises(ValueError, match="rehearse"):
        steps(Options(profile="gpu", rehearse=True), DATA)
    with pytest.raises(ValueError, match="--publish"):
        steps(Options(profile="cpu", publish="push"), DATA)


def test_the_rehearsal_runs_into_its_folder_then_places_the_outputs():
    plan = steps(Options(profile="smoke", only="synthesis/00", rehearse=True, publish="commit", branch="r"), DATA,
                 which=lambda name: None, rehearsal=Path("/tmp/x"))
    by = {s.name: s for s in plan}
    assert by["run"].commands[0][-2:] == ("--output-dir", "/tmp/x")
    assert _names(plan).index("place") == _names(plan).index("run") + 1


def _notebook(path: Path, text: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {text}")]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def test_placing_copies_the_notebook_ledger_and_figures_over_the_stored_ones(tmp_path):
    root, scratch = tmp_path / "repo", tmp_path / "scratch"
    _notebook(root / "notebooks" / "00-baselines" / "01-zero-shot-sts.ipynb", "stored")
    (root / "results" / "baselines").mkdir(parents=True)
    (root / "results" / "baselines" / "01-zero-shot-sts.json").write_text("old")
    # the runner writes the executed copy under the paper's id, which is not the folder's name here
    _notebook(scratch / "notebooks" / "baselines" / "01-zero-shot-sts.ipynb", "executed")
    (scratch / "results" / "baselines").mkdir(parents=True)
    (scratch / "results" / "baselines" / "01-zero-shot-sts.json").write_text("new")
    (scratch / "figures" / "baselines").mkdir(parents=True)
    (scratch / "figures" / "baselines" / "fig.png").write_bytes(b"png")
    assert place_outputs(scratch, root) == 0
    assert "executed" in (root / "notebooks" / "00-baselines" / "01-zero-shot-sts.ipynb").read_text()
    assert not (root / "notebooks" / "baselines").exists()
    assert (root / "results" / "baselines" / "01-zero-shot-sts.json").read_text() == "new"
    assert (root / "figures" / "baselines" / "fig.png").read_bytes() == b"png"
    assert place_outputs(tmp_path / "empty", root) == 1  # a run that left nothing


def test_the_data_folder_is_the_one_named_else_the_first_existing_else_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "named"))
    assert pipeline.data_root() == (tmp_path / "named").resolve()
    monkeypatch.delenv("COMPANION_DATA_DIR")
    (tmp_path / "b").mkdir()
    monkeypatch.setattr(pipeline._settings, "data_dir_candidates", lambda: [tmp_path / "a", tmp_path / "b"])
    assert pipeline.data_root() == tmp_path / "b"
    monkeypatch.setattr(pipeline._settings, "data_dir_candidates", lambda: [tmp_path / "a", tmp_path / "c"])
    assert pipeline.data_root() == tmp_path / "c"


def test_the_command_line_prints_the_steps(capsys):
    from companion.__main__ import main

    assert main(["pipeline", "--profile", "cpu", "--publish", "commit", "--branch", "b", "--print-steps"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "wordnet: python -m companion wordnet fetch"
    assert "branch: git switch -c b" in out
    assert out.index("check: python -m companion site --check && python -m companion criteria check") \
        < out.index("stage pages: git add -A -- data/criteria-history.json _quarto.yml index.qmd site README.md")
    assert main(["pipeline", "--profile", "smoke", "--publish", "pr"]) == 2
    assert "never published" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ the workflows
def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _runs(job: dict) -> list[str]:
    return [step.get("run", "") for step in job["steps"]]


def test_the_reproduce_job_calls_the_pipeline_on_python_3_11_with_the_whole_history():
    job = _workflow()["jobs"]["reproduce"]
    calls = [r for r in _runs(job) if "companion pipeline" in r]
    assert len(calls) == 1
    command = " ".join(calls[0].replace("\\\n", " ").split())
    assert re.search(r"python -m companion pipeline --profile gpu .*--publish pr", command)
    assert not any(re.search(r"companion (run|site)\b", r) for r in _runs(job)), "the pipeline runs and checks"
    for name in ("reproduce", "tests"):
        steps_ = _workflow()["jobs"][name]["steps"]
        python_ = [s for s in steps_ if s.get("uses", "").startswith("actions/setup-python")]
        assert python_ and str(python_[0]["with"]["python-version"]) == "3.11"
        checkout = next(s for s in steps_ if s.get("uses", "").startswith("actions/checkout"))
        assert checkout["with"]["fetch-depth"] == 0
    assert job["permissions"]["pull-requests"] == "write" and job["permissions"]["contents"] == "write"
    assert _workflow()["permissions"] == {"contents": "read"}


def test_the_data_folder_has_a_default_when_the_variable_is_unset():
    for name in ("reproduce", "tests"):
        text = yaml.safe_dump(_workflow()["jobs"][name])
        assert re.search(r"COMPANION_DATA_DIR=\$\{DATA_DIR:-\$HOME/", text), name
    tests = _workflow()["jobs"]["tests"]
    cache = next(s for s in tests["steps"] if s.get("uses", "").startswith("actions/cache"))
    assert "data_manifest.sha256" in cache["with"]["key"]
    runs = _runs(tests)
    fetch = next(i for i, r in enumerate(runs) if "data fetch" in r)
    assert "data check" in runs[fetch] and fetch < next(i for i, r in enumerate(runs) if ".ci/run" in r)


def test_apt_get_update_comes_before_every_apt_get_install():
    scripts = [r for job in _workflow()["jobs"].values() for r in _runs(job)]
    scripts.append((REPO / ".ci" / "run").read_text(encoding="utf-8"))
    for script in scripts:
        if "apt-get install" in script:
            assert "apt-get update" in script[:script.index("apt-get install")], script
