"""What the command line tells a reader who has not read the code: the smoke table says its verdicts are
placeholders, the scoreboard keeps the five papers apart from the errata and names each failed check, the help
text is plain text, and a closed pipe ends the program quietly."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion import stats
from companion.__main__ import build_parser, main
from companion.publish import notebooks, runner
from companion.results import Ledger, holds, within

REPO = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------------------------ run's table
def _results(claims: dict) -> list[runner.RunResult]:
    nb = notebooks.Notebook(path=Path("notebooks/angle/01-x.ipynb"), paper="angle", stem="01-x", title="x")
    return [runner.RunResult(nb, "ok", 2.5, nb.path, claims=claims)]


def test_the_smoke_table_says_its_verdicts_are_placeholders():
    table = runner.summary_table(_results({"reproduced": 0, "total": 35}), "smoke")
    header, _, row, count, note = table.splitlines()
    assert "paper claims graded" in header and "reproduced" not in header
    assert row.split()[-1] == "35" and "0/35" not in table
    assert count == "1 notebooks, 0 failed, 2.5 s in all"
    assert note.startswith("smoke verdicts are placeholders") and "python -m companion scoreboard" in note
    dry = runner.summary_table(_results({"reproduced": 0, "total": 3}), "gpu", dry_run=True)
    assert dry.splitlines()[-1].startswith("gpu dry-run verdicts are placeholders")


def test_the_cpu_table_counts_reproduced_claims_without_the_note():
    table = runner.summary_table(_results({"reproduced": 4, "total": 9}), "cpu")
    assert "paper claims reproduced" in table and table.splitlines()[2].split()[-1] == "4/9"
    assert "placeholder" not in table and table.splitlines()[-1] == "1 notebooks, 0 failed, 2.5 s in all"


# ------------------------------------------------------------------------------------------------ scoreboard
@pytest.fixture
def ledgers(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("COMPANION_FIGURES_DIR", str(tmp_path / "figures"))
    up = stats.paired([1.0, 1.1, 0.9], [0.0, 0.0, 0.0])
    angle = Ledger("angle", "01-x", profile="cpu", seeds=[0, 1, 2])
    angle.claim("a", "x", 1.0, up, stats.direction(paper_effect=1.0), kind="paper", source="Table 4")
    angle.claim("n", "our pair count equals the paper's", "yes", [False], holds(), kind="check")
    angle.claim("ok", "an identity", "yes", [True], holds(), kind="check")
    angle.save()
    synth = Ledger("synthesis", "00-errata", profile="cpu")
    synth.claim("simace:avg", "the Avg. column is not the mean of its row", 1, True, holds(), kind="erratum",
                source="simace | Table 4")
    synth.claim("zoo", "a cross-paper question", 1, 1.0, within(1, 0.1), kind="beyond")
    synth.save()
    return tmp_path / "results"


def _sections(out: str) -> list[str]:
    return out.strip().split("\n\n")


def test_the_scoreboard_keeps_the_papers_apart_from_errata_and_names_failed_checks(ledgers, capsys):
    assert main(["scoreboard"]) == 0
    papers, errata, beyond, checks, failed = _sections(capsys.readouterr().out)
    assert papers.startswith("The five papers' statements, each counted once by its headline verdict")
    assert "the regime never changes a verdict" in papers
    assert papers.splitlines()[1].split()[-3:] == ["statements", "evidence", "split"]
    assert [line.split()[0] for line in papers.splitlines()[2:]] == ["angle"]   # no synthesis, no baselines
    # an erratum is counted under the paper it concerns, not under the notebook that proves it
    assert errata.startswith("Errata:") and "never counted as reproductions" in errata
    assert errata.splitlines()[-1].split()[:2] == ["simace", "1"] and "synthesis" not in errata
    assert "this project's own notebooks, not papers" in beyond
    assert "A failed check is one that did not hold" in checks
    assert checks.splitlines()[-1].split()[:3] == ["angle", "1", "1"]
    assert failed.splitlines() == ["Failed checks (notebook, claim id: what it checks):",
                                   "  angle/01-x  n: our pair count equals the paper's"]


def test_the_scoreboard_lists_split_statements_and_the_rows_left_to_the_errata(tmp_path, monkeypatch, capsys):
    """Twins (a ``-raw`` row beside its MiniLM row) are one statement with two evidence rows and, where their
    verdicts differ, a split statement listed with both regimes; a row that the checkout's statements file names as
    the evidence of an erratum is left out of the statements and listed as such."""
    checkout = tmp_path / "checkout"
    (checkout / "notebooks").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text('[project]\nname = "companion"\n')
    (checkout / "data" / "angle").mkdir(parents=True)
    (checkout / "data" / "angle" / "statements.csv").write_text(
        "notebook,claim,statement,reason\n01-x,printed,erratum-evidence:angle:e,the formula as printed\n")
    monkeypatch.setenv("COMPANION_REPO_ROOT", str(checkout))
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    angle = Ledger("angle", "01-x", profile="cpu", seeds=[0])
    angle.claim("gap", "x", 1.0, 1.0, within(1, 0.1), kind="paper", source="Table 4", regime="MiniLM")
    angle.claim("gap-raw", "x", 1.0, 3.0, within(1, 0.1), kind="paper", source="Table 4",
                regime="raw MLM encoder built here")
    angle.claim("printed", "as printed", 1.0, 3.0, within(1, 0.1), kind="paper", source="Eq. 2")
    angle.save()
    synth = Ledger("synthesis", "00-errata", profile="cpu")
    synth.claim("angle:e", "Eq. 2 as printed fails", 1, True, holds(), kind="erratum", source="angle | Eq. 2")
    synth.save()
    assert main(["scoreboard"]) == 0
    papers, split, left, *_ = _sections(capsys.readouterr().out)
    assert papers.splitlines()[2].split() == ["angle", "scaled", "0", "0", "1", "0", "0", "1", "2", "1"]
    assert split.splitlines()[1] == ("  angle  gap: not reproduced in the paper recipe regime (01-x · gap-raw); "
                                     "reproduced in the scaled regime (01-x · gap)")
    assert left.splitlines()[1] == "  angle/01-x  printed (not reproduced): evidence of angle:e"


def test_no_failed_check_no_list(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COMPANION_RESULTS_DIR", str(tmp_path / "results"))
    ledger = Ledger("angle", "01-x", profile="cpu")
    ledger.claim("ok", "an identity", "yes", [True], holds(), kind="check")
    ledger.save()
    assert main(["scoreboard"]) == 0
    assert "Failed checks" not in capsys.readouterr().out


# ------------------------------------------------------------------------------------------------ help
def _subcommands() -> list[list[str]]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    out = []
    for name, sub in action.choices.items():
        out.append([name])
        nested = [a for a in sub._actions if a.dest == "action" and getattr(a, "choices", None)]
        out += [[name, inner] for a in nested if isinstance(a.choices, dict) for inner in a.choices]
    return out


@pytest.mark.parametrize("command", [[], *_subcommands(), ["notebooks", "clean"]], ids=lambda c: " ".join(c) or "-")
def test_help_is_plain_text(command, capsys):
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage:")
    assert "``" not in text and not re.search(r":(?:func|mod|class|data|meth):", text)


def test_the_main_help_names_every_command_and_the_first_steps(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for name in ("run", "list", "scoreboard", "criteria", "data", "sts", "site", "colab", "notebooks"):
        assert re.search(rf"^\s+{name}\b", text, re.M), name
    assert "python -m companion run --profile smoke" in text and "placeholder verdicts" in text


# ------------------------------------------------------------------------------------------------ closed pipe
@pytest.mark.parametrize("command, status", [(["scoreboard"], {141}), (["list"], {141}), (["--help"], {0, 141})],
                         ids=["scoreboard", "list", "help"])
def test_a_closed_pipe_ends_quietly(command, status, ledgers):
    """``python -m companion scoreboard | head -1``: the reader is gone before anything is written. The program
    stops without a traceback, with the status of a program killed by SIGPIPE (argparse's help ignores the
    closed pipe itself and exits 0)."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "companion", *command], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=120, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    finally:
        os.close(write)
    assert done.stderr == ""
    assert done.returncode in status


# ------------------------------------------------------------------------------------------------ bad input
BAD_COMMANDS = [
    (["run", "--only", ""], 2, r"error: Empty selection --only '': give globs or substrings of paper/notebook"),
    (["run", "--only", " , "], 2, r"error: Empty selection --only ' , '"),
    (["list", "--only", ""], 2, r"error: Empty selection --only ''"),
    (["run", "--timeout", "-5"], 2, r"error: timeout \(--timeout\) must be a whole number of seconds >= 1, got -5"),
    (["run", "--timeout", "0"], 2, r"error: timeout \(--timeout\) must be a whole number of seconds >= 1, got 0"),
    (["run", "--jobs", "0"], 2, r"error: jobs must be a whole number >= 1, got 0"),
    (["run", "-p", "seeds", "[0, 1]"], 2,
     r"python -m companion: error: unrecognized arguments: -p seeds \[0, 1\]; run sets no notebook parameter but "
     r"the profile: .*papermill .*-y \"seeds: \[0, 1\]\""),
]


@pytest.mark.parametrize("argv, status, line", BAD_COMMANDS, ids=[" ".join(map(repr, a)) for a, _, _ in BAD_COMMANDS])
def test_bad_input_is_one_line_and_exit_status_2(argv, status, line, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path))
    try:
        code = main(argv)
    except SystemExit as done:  # argparse's own errors
        code = done.code
    out, err = capsys.readouterr()
    said = [x for x in err.splitlines() if not x.startswith("usage:")]  # argparse's usage line comes first
    assert code == status and out == "" and len(said) == 1 and re.fullmatch(line + ".*", said[0]), err


def test_no_command_shows_the_commands_and_exits_2(capsys):
    """``python -m companion`` alone does nothing: it prints the help (the commands and the first steps) to
    standard error and exits 2, the status of a usage error."""
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("usage: python -m companion")
    for name in ("run", "list", "scoreboard", "data", "wordnet"):
        assert re.search(rf"^\s+{name}\b", err, re.M), name
    assert "python -m companion run --profile smoke" in err


# ------------------------------------------------------------------------------------------------ wordnet
@pytest.fixture
def no_wordnet(tmp_path, monkeypatch):
    """No WordNet anywhere the code looks, and an nltk download that fails as it does offline (it prints an error
    and returns False)."""
    import nltk

    from companion import wordnet

    monkeypatch.delenv("COMPANION_WORDNET_DIR", raising=False)
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(wordnet, "DEBIAN_WORDNET_DIR", tmp_path / "no-wordnet")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "no-nltk-data")])
    calls = []

    def offline_download(info_or_id, print_error_to=sys.stderr, **kwargs):
        calls.append(info_or_id)
        print("[nltk_data] Error loading wordnet: <urlopen error [Errno -3] Temporary failure in name resolution>",
              file=print_error_to)
        return False

    monkeypatch.setattr(nltk, "download", offline_download)
    wordnet._reader.cache_clear()
    yield calls
    wordnet._reader.cache_clear()


def test_wordnet_fetch_fails_where_the_download_fails(no_wordnet, capsys):
    """``nltk.download`` exits 0 offline, so a shell's ``&&`` chain went on without WordNet; ``wordnet fetch``
    exits 1 with one line: what is missing, what nltk said, the Debian packages."""
    assert main(["wordnet", "fetch"]) == 1
    out, err = capsys.readouterr()
    assert no_wordnet == ["wordnet"] and out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: WordNet 3.0 not found: ") and "does not exist and no nltk 'wordnet' download" in err
    assert "nltk.download('wordnet') failed (Error loading wordnet: <urlopen error" in err
    assert "on Debian/Ubuntu: apt-get install wordnet-base wordnet-sense-index" in err
    assert main(["wordnet", "check"]) == 1 and no_wordnet == ["wordnet"]  # check never downloads
    assert "apt-get install" in capsys.readouterr().err


def test_wordnet_fetch_checks_what_the_download_gave(no_wordnet, monkeypatch, capsys):
    """A download that says it succeeded but leaves nothing readable is a failure too."""
    import nltk

    monkeypatch.setattr(nltk, "download", lambda *args, **kwargs: True)
    assert main(["wordnet", "fetch"]) == 1
    err = capsys.readouterr().err
    assert "nltk.download('wordnet') ran; on Debian/Ubuntu: apt-get install wordnet-base" in err


def test_wordnet_fetch_downloads_nothing_when_wordnet_reads(tmp_path, monkeypatch, capsys):
    import nltk

    from companion import wordnet

    try:
        wordnet.check()
    except FileNotFoundError:
        pytest.skip("no WordNet 3.0 on this machine")

    def no_download(*args, **kwargs):
        raise AssertionError("downloaded although WordNet reads")

    monkeypatch.setattr(nltk, "download", no_download)
    assert main(["wordnet", "fetch"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("WordNet 3.0 readable from ") and len(out.splitlines()) == 1
