"""``python -m companion data fetch`` / ``data check`` for real, against a web server on 127.0.0.1.

The server (``tests/system/conftest.py``: a thread, an ephemeral port) serves the data mirror (found through
``COMPANION_DATA_DIR``) under ``/mirror/`` and files built by a test under ``/up/``; it answers ``Range`` requests
and can cut a transfer half way. Every connection the fetcher opens in this process is checked to go to 127.0.0.1.
"""

import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from companion import fetch
from companion.settings import DataNotFoundError, data_dir

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch):
    """Fail any connection this process opens to an address other than 127.0.0.1."""
    real = socket.create_connection

    def guarded(address, *args, **kwargs):
        assert address[0] == "127.0.0.1", f"the fetch tried to reach {address[0]}"
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", guarded)


def _manifest() -> dict[str, str]:
    return {e.path: e.sha256 for e in fetch.read_manifest()}


def _cli(*args, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "companion", "data", *args], capture_output=True, text=True,
                          env=env, timeout=120, **kwargs)


# ------------------------------------------------------------------------------------------------- the manifest
def test_the_package_ships_the_mirror_manifest_and_knows_every_upstream():
    entries = fetch.read_manifest()
    assert len(entries) == len({e.path for e in entries}) > 80
    assert {e.dataset for e in entries} == set(fetch.DATASETS)
    for entry in entries:
        up, url, _ = fetch.upstream_of(entry.path)
        assert url.startswith("https://") and up.step in fetch.STEPS and up.origin, entry.path
    try:
        mirror = data_dir()
    except DataNotFoundError:
        return
    if (mirror / "MANIFEST.sha256").is_file():  # the checksums are the mirror's, line for line
        assert fetch.MANIFEST.read_bytes() == (mirror / "MANIFEST.sha256").read_bytes()


def test_unknown_data_set_is_one_clear_error():
    with pytest.raises(ValueError, match=r"unknown data set 'stsx'; valid: sts12, sts13"):
        fetch.select(fetch.read_manifest(), "sts12,stsx")


# ------------------------------------------------------------------------------------------------- fetch
def test_fetch_from_a_mirror_verifies_and_lays_files_out_for_the_loaders(server, tmp_path, monkeypatch):
    dest = tmp_path / "data"
    report = fetch.fetch(dest, only="goemotions,emolit,sts13", base_url=f"{server.url}/mirror", quiet=True,
                         echo=lambda line: None)
    assert report.ok and not report.present
    expected = {p: s for p, s in _manifest().items() if p.startswith(("goemotions/", "emolit/", "senteval/downstream/STS/STS13"))}
    assert sorted(report.fetched) == sorted(expected) and len(expected) == 14
    for path, sha in expected.items():
        assert fetch.sha256_of(dest / path) == sha
    assert not list(dest.rglob("*.part")) and not (dest / fetch.DOWNLOADS).exists()
    assert {p for p, _ in server.requests} == {f"/mirror/{p}" for p in expected}

    # the loaders read the fetched copy
    monkeypatch.setenv("COMPANION_DATA_DIR", str(dest))
    from companion.data import load_emolit, load_goemotions, load_sts

    assert len(load_emolit("test")) == 1200 and len(load_goemotions("dev")) == 5426 and len(load_sts("sts13")) == 1500

    # a second run finds everything in place and downloads nothing
    server.requests.clear()
    again = fetch.fetch(dest, only="goemotions,emolit,sts13", base_url=f"{server.url}/mirror", quiet=True,
                        echo=lambda line: None)
    assert again.ok and sorted(again.present) == sorted(expected) and not again.fetched and not server.requests


def test_a_killed_download_resumes_with_a_range_request(server, tmp_path):
    dest = tmp_path / "data"
    rel = "goemotions/train.tsv"
    size = (server.mirror / rel).stat().st_size
    half = size // 2
    server.cuts[f"/mirror/{rel}"] = (half, "stall")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "data", "fetch", "--dest", str(dest), "--quiet",
                             "--base-url", f"{server.url}/mirror", "--only", "goemotions"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    part = dest / (rel + fetch.PART)
    try:
        deadline = time.monotonic() + 60
        while not (part.exists() and part.stat().st_size >= half):
            assert proc.poll() is None, "the fetch ended before the cut"
            assert time.monotonic() < deadline, "the first half never arrived"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert part.stat().st_size == half and not (dest / rel).exists()  # killed half way: only the part is left

    server.release.set()
    server.requests.clear()
    report = fetch.fetch(dest, only="goemotions", base_url=f"{server.url}/mirror", quiet=True, echo=lambda line: None)
    assert report.ok and report.fetched == [rel]
    assert server.requests == [(f"/mirror/{rel}", f"bytes={half}-")]  # only the missing half was asked for
    assert fetch.sha256_of(dest / rel) == _manifest()[rel] and not part.exists()


def test_a_transfer_cut_off_half_way_is_resumed_in_the_same_run(server, tmp_path):
    rel = "emobank/emobank.csv"
    third = (server.mirror / rel).stat().st_size // 3
    server.cuts[f"/mirror/{rel}"] = (third, "drop")
    report = fetch.fetch(tmp_path, only="emobank", base_url=f"{server.url}/mirror", quiet=True,
                         echo=lambda line: None)
    assert report.ok
    asked = [r for p, r in server.requests if p == f"/mirror/{rel}"]
    assert asked == [None, f"bytes={third}-"]
    assert fetch.sha256_of(tmp_path / rel) == _manifest()[rel]


def test_check_lists_corrupt_and_missing_files(server, tmp_path):
    dest = tmp_path / "data"
    assert fetch.fetch(dest, only="emolit,goemotions", base_url=f"{server.url}/mirror", quiet=True,
                       echo=lambda line: None).ok
    ok = _cli("check", str(dest), "--only", "emolit,goemotions")
    assert ok.returncode == 0 and "8 files ok, 0 missing, 0 corrupt" in ok.stdout

    corrupt = dest / "goemotions" / "dev.tsv"
    data = bytearray(corrupt.read_bytes())
    data[100] ^= 0x20
    corrupt.write_bytes(bytes(data))
    (dest / "emolit" / "license.txt").unlink()
    report = fetch.check(dest, only="emolit,goemotions")
    assert report.corrupt == ["goemotions/dev.tsv"] and report.missing == ["emolit/license.txt"]
    bad = _cli("check", str(dest), "--only", "emolit,goemotions")
    assert bad.returncode == 1
    assert "corrupt: goemotions/dev.tsv" in bad.stdout and "missing: emolit/license.txt" in bad.stdout
    assert "6 files ok, 1 missing, 1 corrupt" in bad.stdout

    # fetch repairs both
    report = fetch.fetch(dest, only="emolit,goemotions", base_url=f"{server.url}/mirror", quiet=True,
                         echo=lambda line: None)
    assert report.ok and sorted(report.fetched) == ["emolit/license.txt", "goemotions/dev.tsv"]
    assert fetch.check(dest, only="emolit,goemotions").ok


def test_a_checksum_mismatch_names_the_file_and_keeps_nothing(server, tmp_path):
    served = server.up / "emolit"
    served.mkdir()
    for name in ("emolit_12labels_train.csv", "emolit_12labels_test.csv", "license.txt"):
        shutil.copyfile(server.mirror / "emolit" / name, served / name)
    with open(served / "emolit_12labels_test.csv", "ab") as handle:
        handle.write(b"one more line,joy\n")
    lines = []
    report = fetch.fetch(tmp_path, only="emolit", base_url=f"{server.url}/up", quiet=True, echo=lines.append)
    assert not report.ok and len(report.errors) == 1
    assert re.match(r"checksum mismatch for emolit/emolit_12labels_test\.csv: expected [0-9a-f]{16}…, got "
                    r"[0-9a-f]{16}… \(from http://127\.0\.0\.1:\d+/up/emolit/emolit_12labels_test\.csv\)",
                    report.errors[0])
    assert "\n" not in report.errors[0] and f"error: {report.errors[0]}" in lines
    assert not (tmp_path / "emolit" / "emolit_12labels_test.csv").exists()
    assert not list(tmp_path.rglob("*.part"))
    assert (tmp_path / "emolit" / "license.txt").is_file()  # the other files are fine
    cli = _cli("fetch", "--dest", str(tmp_path), "--only", "emolit", "--base-url", f"{server.url}/up", "--quiet")
    assert cli.returncode == 1 and "error: checksum mismatch for emolit/emolit_12labels_test.csv" in cli.stdout


def _count_tries(monkeypatch) -> dict[str, int]:
    """Counts of the requests :mod:`companion.fetch` opens and the pauses it sleeps (fails fast: one request, no
    pause, whatever the machine's speed)."""
    tries = {"requests": 0, "sleeps": 0}
    urlopen = fetch.urllib.request.urlopen

    def counted(*args, **kwargs):
        tries["requests"] += 1
        return urlopen(*args, **kwargs)

    def no_sleep(seconds):
        tries["sleeps"] += 1

    monkeypatch.setattr(fetch.urllib.request, "urlopen", counted)
    monkeypatch.setattr(fetch.time, "sleep", no_sleep)
    return tries


def test_an_unreachable_address_fails_fast_with_one_line(tmp_path, closed_port, monkeypatch):
    port = closed_port
    upstreams = (fetch.Upstream(r"goemotions/(?P<name>[^/]+)", "GoEmotions", f"http://127.0.0.1:{port}/{{name}}"),)
    tries = _count_tries(monkeypatch)
    lines = []
    report = fetch.fetch(tmp_path, only="goemotions", upstreams=upstreams, quiet=True, echo=lines.append)
    assert tries == {"requests": 1, "sleeps": 0}  # the address is given up after one refused request
    assert len(report.errors) == 5 and not report.fetched
    assert re.fullmatch(rf"error: cannot download goemotions/\S+: http://127\.0\.0\.1:{port} is unreachable \(.+\); "
                        r"check the network, or pass --base-url to a mirror", lines[0])
    assert "error: 4 file(s) of goemotions skipped" in lines[1]


def test_an_unreachable_mirror_is_one_line_naming_it(tmp_path, closed_port, monkeypatch):
    base = f"http://127.0.0.1:{closed_port}"
    tries = _count_tries(monkeypatch)
    with pytest.raises(fetch.FetchError, match=rf"^the mirror {re.escape(base)} \(--base-url\) is unreachable "
                                               rf"\(.+\): check the address; it must serve <URL>/<path in the "
                                               rf"manifest>, e.g. {re.escape(base)}/(?:goemotions|emolit)/\S+$"):
        fetch.fetch(tmp_path, only="goemotions,emolit", base_url=base, quiet=True, echo=lambda line: None)
    assert tries == {"requests": 1, "sleeps": 0}
    cli = _cli("fetch", "--dest", str(tmp_path), "--base-url", base, "--quiet")
    assert cli.returncode == 1 and cli.stdout == ""
    assert cli.stderr.startswith(f"error: the mirror {base} (--base-url) is unreachable") and \
        cli.stderr.count("\n") == 1
    missing = _cli("fetch", "--dest", str(tmp_path), "--base-url", str(tmp_path / "nowhere"), "--quiet")
    assert missing.returncode == 1
    assert missing.stderr == f"error: the mirror folder {tmp_path / 'nowhere'} (--base-url) does not exist\n"


def test_a_destination_that_cannot_be_written_is_one_clear_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(fetch.FetchError, match=r"^cannot write to .*a-file/data: "):
        fetch.fetch(blocker / "data", only="emolit", base_url="http://127.0.0.1:9", quiet=True)
    cli = _cli("fetch", "--dest", str(blocker / "data"), "--only", "emolit")
    assert cli.returncode == 1 and cli.stderr.startswith("error: cannot write to ") and cli.stderr.count("\n") == 1


# ------------------------------------------------------------------------------------------------- upstream steps
def test_upstream_steps_unpack_truncate_strip_and_derive(server, tmp_path):
    """The steps of the real upstream table, on upstream-shaped files served locally: an STS13 tar and a SICK zip
    with members under a top folder, wiki1m longer than the mirrored head, TREC with the quotes SentEval strips,
    GoEmotions' ekman_mapping.json."""
    mirror, up, base = server.mirror, server.up, f"{server.url}/up"
    sts = "senteval/downstream/STS/STS13-en-test"
    with tarfile.open(up / "senteval.tar", "w") as tar:
        for file in sorted((mirror / sts).iterdir()):
            tar.add(file, arcname=f"./STS/STS13-en-test/{file.name}")
    with zipfile.ZipFile(up / "sick.zip", "w") as archive:
        for file in sorted((mirror / "senteval/downstream/SICK").iterdir()):
            archive.write(file, f"downstream/SICK/{file.name}")
    head = (mirror / "wiki/wiki1m_for_simcse.head.txt").read_bytes()
    (up / "wiki1m_for_simcse.txt").write_bytes(head + b" and the rest of that sentence.\n" + b"More text.\n" * 50_000)
    for name in ("TREC_10.label", "train_5500.label"):
        text = (mirror / "senteval/downstream/TREC" / name).read_bytes()
        (up / name).write_bytes(text.replace(b" ?\n", b" '?\n", 40).replace(b"What ", b"Wh``at ", 25))
        assert (up / name).read_bytes() != text
    mapping = {"anger": ["anger", "annoyance"], "disgust": ["disgust"], "fear": ["fear"], "joy": ["joy"],
               "sadness": ["sadness"], "surprise": ["surprise"]}
    (up / "ekman_mapping.json").write_text(json.dumps(mapping, indent=1))
    table = (
        fetch.Upstream(r"senteval/downstream/(?P<rel>STS/.+)", "test tar", f"{base}/senteval.tar", "member", "{rel}"),
        fetch.Upstream(r"senteval/downstream/(?P<rel>SICK/.+)", "test zip", f"{base}/sick.zip", "member", "{rel}"),
        fetch.Upstream(r"senteval/downstream/TREC/(?P<name>.+)", "test", f"{base}/{{name}}", "strip-quotes"),
        fetch.Upstream(r"wiki/.+", "test", f"{base}/wiki1m_for_simcse.txt", "head-bytes", 1_280_000),
        fetch.Upstream(r"goemotions/ekman_labels\.txt", "test", f"{base}/ekman_mapping.json", "ekman-labels"),
        fetch.Upstream(r"goemotions/(?P<name>.+)", "test", f"{server.url}/mirror/goemotions/{{name}}"),
    )
    only = "sts13,sick,trec,wiki,goemotions"
    report = fetch.fetch(tmp_path, only=only, upstreams=table, quiet=True, echo=lambda line: None)
    assert report.errors == [] and len(report.fetched) == 6 + 3 + 2 + 1 + 5
    assert fetch.check(tmp_path, only=only).ok
    # each archive was downloaded once, and removed once every member it holds was in place
    tars = [p for p, _ in server.requests if p.endswith((".tar", ".zip"))]
    assert sorted(tars) == ["/up/senteval.tar", "/up/sick.zip"]
    assert not (tmp_path / fetch.DOWNLOADS).exists()


def test_an_archive_without_the_member_says_which(server, tmp_path):
    with tarfile.open(server.up / "senteval.tar", "w") as tar:
        info = tarfile.TarInfo("STS/STS13-en-test/README")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))
    table = (fetch.Upstream(r"senteval/downstream/(?P<rel>.+)", "t", f"{server.url}/up/senteval.tar", "member",
                            "{rel}"),)
    report = fetch.fetch(tmp_path, only="sts13", upstreams=table, quiet=True, echo=lambda line: None)
    assert len(report.errors) == 6
    assert report.errors[0] == "the archive senteval.tar has no member 'STS/STS13-en-test/STS.gs.FNWN.txt'"


# ------------------------------------------------------------------------------------------------- check's folder
def _checkout_with_data(root: Path) -> tuple[Path, Path]:
    checkout = root / "checkout"
    (checkout / "notebooks").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text('[project]\nname = "companion"\n')
    data = root / "shared" / "data"
    (data / "emolit").mkdir(parents=True)
    (data / "emolit" / "license.txt").write_text("not the real file")
    return checkout, data


def test_check_without_a_folder_checks_the_folder_the_loaders_read(tmp_path, monkeypatch):
    checkout, data = _checkout_with_data(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "COMPANION_DATA_DIR"}
    env.update(PYTHONPATH=str(REPO), COMPANION_REPO_ROOT=str(checkout), COMPANION_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-m", "companion", "data", "check", "--only", "emolit"],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "corrupt: emolit/license.txt" in done.stdout
    assert done.stdout.splitlines()[-1] == f"{data}: 0 files ok, 2 missing, 1 corrupt"

    monkeypatch.delenv("COMPANION_DATA_DIR", raising=False)
    monkeypatch.setenv("COMPANION_REPO_ROOT", str(checkout))
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    assert fetch.check_dir() == data_dir() == data
    assert fetch.check(only="emolit").root == data


def test_check_with_no_data_anywhere_names_where_it_looked(tmp_path, monkeypatch):
    checkout, data = _checkout_with_data(tmp_path)
    shutil.rmtree(data)
    monkeypatch.delenv("COMPANION_DATA_DIR", raising=False)
    monkeypatch.setenv("COMPANION_REPO_ROOT", str(checkout))
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(fetch.FetchError, match=rf"^no data folder where the loaders look \({re.escape(str(data))}, "
                                               rf"{re.escape(str(tmp_path / 'cache' / 'data'))}\): get the data"):
        fetch.check()
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(fetch.FetchError, match=r"^COMPANION_DATA_DIR=.*nowhere is not a directory"):
        fetch.check()


# ------------------------------------------------------------------------------------------------- sources
def test_sources_name_every_file_with_its_whole_address():
    sources = fetch.sources_table()
    manifest = {e.path for e in fetch.read_manifest()}
    listed = [path for s in sources for _, path in s.files]
    assert sorted(listed) == sorted(manifest)  # every file once
    for source in sources:
        for whence, path in source.files:
            if source.step == "member":
                archive = source.how.rsplit(" ", 1)[-1]
                assert archive.startswith("https://") and archive.endswith(".tar")
                assert path.endswith(whence)  # the member's name, whole
            else:
                assert re.fullmatch(r"https://\S+/[^/{}…]+", whence), whence
                assert fetch.upstream_of(path)[1] == whence
    wiki = next(s for s in sources if s.datasets == ("wiki",))
    assert wiki.how == "its first 1,280,000 bytes"


def test_the_sources_command_prints_whole_addresses_and_file_names():
    done = _cli("sources", "--only", "mrpc,trec")
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    lines = done.stdout.splitlines()
    assert lines[0] == "mrpc: 2 files from SentEval (facebookresearch/SentEval), as published"
    assert "    https://dl.fbaipublicfiles.com/senteval/senteval_data/msr_paraphrase_train.txt  ->  " \
           "senteval/downstream/MRPC/msr_paraphrase_train.txt" in lines
    assert any(line.startswith("trec: 2 files from") and "removed" in line for line in lines)
    assert len(lines) == 6


# ------------------------------------------------------------------------------------------------- whole files
def _whole_wiki(root: Path, lines: int) -> bytes:
    body = b"".join(b"wiki sentence %d\n" % i for i in range(lines))
    (root / "wiki").mkdir(parents=True, exist_ok=True)
    (root / "wiki" / "wiki1m_for_simcse.txt").write_bytes(body)
    return body


def test_the_whole_wiki_is_fetched_only_when_named_verified_by_its_lines_and_its_checksum_recorded(
        server, tmp_path, monkeypatch):
    from companion.data import WIKI_FULL_LINES, load_wiki

    body = _whole_wiki(server.up, WIKI_FULL_LINES)
    dest = tmp_path / "data"
    assert fetch.select_whole(None) == [] and fetch.select_whole("stsb") == []  # never by default
    lines: list[str] = []
    report = fetch.fetch(dest, only="wiki-full", base_url=f"{server.url}/up", quiet=True, echo=lines.append)
    assert report.ok and report.fetched == ["wiki/wiki1m_for_simcse.txt"]
    target = dest / "wiki" / "wiki1m_for_simcse.txt"
    assert target.read_bytes() == body and not list(dest.rglob("*.part"))
    record = target.with_name("wiki1m_for_simcse.txt.sha256")
    assert record.read_text().split()[0] == fetch.sha256_of(target)
    assert any("recorded in wiki1m_for_simcse.txt.sha256" in line and "1,000,000 lines" in line for line in lines)
    monkeypatch.setenv("COMPANION_DATA_DIR", str(dest))
    assert len(load_wiki(full=True)) == WIKI_FULL_LINES  # the gpu profile's loader reads the fetched file

    server.requests.clear()
    again = fetch.fetch(dest, only="wiki-full", base_url=f"{server.url}/up", quiet=True, echo=lambda line: None)
    assert again.present == ["wiki/wiki1m_for_simcse.txt"] and not server.requests
    assert fetch.check(dest, only="wiki-full").ok

    target.write_bytes(body.replace(b"wiki sentence 7\n", b"wiki sentence X\n", 1))  # same lines, other bytes
    assert fetch.check(dest, only="wiki-full").corrupt == ["wiki/wiki1m_for_simcse.txt"]


def test_a_cut_or_subset_whole_file_is_refused_and_discarded(server, tmp_path):
    _whole_wiki(server.up, 11_914)  # a head, as the mirror holds
    dest = tmp_path / "data"
    report = fetch.fetch(dest, only="wiki-full", base_url=f"{server.url}/up", quiet=True, echo=lambda line: None)
    assert not report.ok and len(report.errors) == 1
    assert "11,914 lines, not the 1,000,000 its publisher states" in report.errors[0]
    assert not (dest / "wiki" / "wiki1m_for_simcse.txt").exists() and not list(dest.rglob("*.part"))
    assert fetch.check(dest, only="wiki-full").missing == ["wiki/wiki1m_for_simcse.txt"]


def test_data_sources_names_the_whole_file_and_its_verification():
    assert all(s.datasets != ("wiki-full",) for s in fetch.sources_table())     # named only when asked for
    (source,) = [s for s in fetch.sources_table(only="wiki-full") if s.datasets == ("wiki-full",)]
    assert "1,000,000 lines" in source.how and "checksum recorded on first download" in source.how
    assert source.files[0][0].endswith("/wiki1m_for_simcse.txt") and source.step == "whole"


def _nli_zip(root: Path, name: str, member: str, lines: int, fields=("gold_label", "sentence1", "sentence2")) -> bytes:
    body = "".join(json.dumps({f: f"{f} {i}" for f in fields}) + "\n" for i in range(lines)).encode()
    root.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(root / name, "w") as archive:
        archive.writestr(member, body)
        archive.writestr("snli_1.0/README.txt", "not this one")
    return body


def _small_nli(monkeypatch, server, lines: int) -> fetch.WholeFile:
    """The SNLI training split's whole-file entry pointed at the loopback server, with a small stated count."""
    import dataclasses

    (real,) = [w for w in fetch.WHOLE_FILES if w.name == "snli-train"]
    small = dataclasses.replace(real, url=f"{server.url}/up/snli_1.0.zip", lines=lines)
    monkeypatch.setattr(fetch, "WHOLE_FILES", tuple(small if w is real else w for w in fetch.WHOLE_FILES))
    return small


def test_an_nli_split_comes_out_of_the_publishers_archive_verified_by_lines_and_format(server, tmp_path, monkeypatch):
    whole = _small_nli(monkeypatch, server, 12)
    body = _nli_zip(server.up, "snli_1.0.zip", whole.member, 12)
    dest = tmp_path / "data"
    lines: list[str] = []
    report = fetch.fetch(dest, only="snli-train", quiet=True, echo=lines.append)
    assert report.ok and report.fetched == [whole.path]
    target = dest / whole.path
    assert target.read_bytes() == body and not (dest / fetch.DOWNLOADS).exists()  # the archive is not kept
    assert (target.parent / (target.name + ".sha256")).is_file()
    assert any("12 lines as stated" in line and "recorded" in line for line in lines)
    assert fetch.check(dest, only="snli-train").ok
    target.write_bytes(body.replace(b'"gold_label": "gold_label 3", ', b"", 1))  # same lines, one lacks its label
    assert fetch.check(dest, only="snli-train").corrupt == [whole.path]


@pytest.mark.parametrize("what", ["subset", "format"])
def test_an_nli_split_that_is_a_subset_or_not_its_format_is_refused(server, tmp_path, monkeypatch, what):
    whole = _small_nli(monkeypatch, server, 12)
    _nli_zip(server.up, "snli_1.0.zip", whole.member, 7 if what == "subset" else 12,
             fields=("gold_label", "sentence1", "sentence2") if what == "subset" else ("label", "premise"))
    dest = tmp_path / "data"
    report = fetch.fetch(dest, only="snli-train", quiet=True, echo=lambda line: None)
    assert not report.ok and len(report.errors) == 1
    assert ("7 lines, not the 12 its publisher states" if what == "subset" else "lacks gold_label") in report.errors[0]
    assert not (dest / whole.path).exists() and not list(dest.rglob("*.part"))


def test_data_sources_names_the_nli_archives_and_their_verification():
    sources = {s.datasets[0]: s for s in fetch.sources_table(only="snli-train,mnli-train")}
    assert "550,152 lines" in sources["snli-train"].how and "392,702 lines" in sources["mnli-train"].how
    assert sources["snli-train"].files == (("snli_1.0/snli_1.0_train.jsonl", "nli/snli_1.0_train.jsonl"),)
    assert "https://nlp.stanford.edu/projects/snli/snli_1.0.zip" in sources["snli-train"].how
