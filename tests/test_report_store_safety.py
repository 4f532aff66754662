"""The stored analysis is the user's own and only theirs, and `--out` holds one run.

What a hostile or careless user did (issue 22): planted an entry in a shared cache folder
(E1), pointed the cache at a folder of their own projects (S1), ran two analyses into one
`--out` at once (S2), left one unreadable log in the folder (T2), and ran with an unusable
cache location (T4/T5). Ownership is tested with a second Unix user (`nobody`) when the
tests run as root, which can hand a file to another user; otherwise those tests skip.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses
from political_sycophancy.cli import main
from political_sycophancy.core.items import builtin_path
from political_sycophancy.logs.importer import import_responses
from political_sycophancy.report import render

FAST = ["--bootstrap", "20", "--sign-flip-draws", "20"]
PLANTED = "<script>alert('planted')</script>"


def _logs(folder: Path, shift: float = 1.0, items: int = 12) -> Path:
    responses = synthetic_responses(builtin_pct_items()[:items], ["p/a"], ["N", "C3R"], pct_shift={"C3R": shift}, seed=3)
    folder.mkdir(parents=True, exist_ok=True)
    responses.to_csv(folder / "r.csv", index=False)
    import_responses(folder / "r.csv", [builtin_path("pct.csv")], folder / "logs", jobs=1)
    return folder / "logs"


@pytest.fixture
def logs(tmp_path):
    return _logs(tmp_path / "a")


@pytest.fixture
def computed(monkeypatch):
    calls = []
    real = render.write_report

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(render, "write_report", counting)
    return calls


def analyze(logs: Path, out: Path, *extra: str) -> int:
    return main(["analyze", str(logs), "--out", str(out), *FAST, *extra])


def other_user() -> int:
    """The uid of a second Unix user the test can hand files to (root only)."""
    if os.geteuid() != 0:
        pytest.skip("handing a file to another user needs root; the ownership check is not exercised")
    try:
        import pwd

        return pwd.getpwnam("nobody").pw_uid
    except KeyError:
        pytest.skip("no second Unix user ('nobody') on this machine")


def only_entry(store: Path) -> Path:
    [entry] = [p for p in store.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "sections"]
    return entry


def plant(entry: Path) -> None:
    """What the other user edits in a stored entry: script in report.html, a symlink out of
    the store, the printed lines; the manifest's checksums made to match."""
    files = entry / "files"
    report = files / "report.html"
    report.write_text(report.read_text().replace("</body>", PLANTED + "</body>"))
    (files / "leak.txt").symlink_to("/etc/hostname")
    manifest = json.loads((entry / "manifest.json").read_text())
    import hashlib

    for rel in ("report.html", "leak.txt"):
        manifest["files"][rel] = hashlib.sha256((files / rel).read_bytes()).hexdigest()
    manifest["created"] = "2020-01-01 00:00:00"
    manifest["lines"] = ["pct -1.999"]
    (entry / "manifest.json").write_text(json.dumps(manifest))


def served_nothing_planted(out: Path, printed: str) -> bool:
    return (
        PLANTED not in (out / "report.html").read_text()
        and not (out / "leak.txt").exists()
        and "2020-01-01" not in printed
        and "-1.999" not in printed
    )


@pytest.mark.scenario("counted exclusion")
def test_E1_an_entry_planted_in_a_world_writable_store_is_not_served(tmp_path, logs, monkeypatch, computed, capsys):
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(shared))
    # the other user's planted entry: an analysis of these logs, with the key anyone can compute
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(tmp_path / "theirs"))
    assert analyze(logs, tmp_path / "out") == 0
    shutil.copytree(only_entry(tmp_path / "theirs"), shared / only_entry(tmp_path / "theirs").name, symlinks=True)
    plant(only_entry(shared))
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(shared))
    capsys.readouterr()
    assert analyze(logs, tmp_path / "out") == 0
    printed = capsys.readouterr().out
    assert served_nothing_planted(tmp_path / "out", printed) and len(computed) == 2
    assert "writable by other users" in printed


@pytest.mark.scenario("counted exclusion")
def test_E1_an_entry_owned_by_another_user_is_not_served_nor_deleted(tmp_path, logs, monkeypatch, computed, capsys):
    uid = other_user()
    store = tmp_path / "store"
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(store))
    assert analyze(logs, tmp_path / "out") == 0
    entry = only_entry(store)
    plant(entry)
    for path in [entry, *entry.rglob("*")]:
        os.lchown(path, uid, -1)
    capsys.readouterr()
    assert analyze(logs, tmp_path / "out") == 0
    printed = capsys.readouterr().out
    assert served_nothing_planted(tmp_path / "out", printed) and len(computed) == 2
    assert "owned by another user" in printed
    assert entry.is_dir() and entry.stat().st_uid == uid  # not ours to delete


@pytest.mark.scenario("counted exclusion")
@pytest.mark.parametrize("attack", ["symlinked file", "group-writable entry"])
def test_E1_an_entry_that_is_not_private_regular_files_is_not_served(tmp_path, logs, monkeypatch, computed, capsys, attack):
    store = tmp_path / "store"
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(store))
    assert analyze(logs, tmp_path / "out") == 0
    entry = only_entry(store)
    plant(entry)
    if attack == "group-writable entry":
        (entry / "files" / "leak.txt").unlink()
        manifest = json.loads((entry / "manifest.json").read_text())
        del manifest["files"]["leak.txt"]
        (entry / "manifest.json").write_text(json.dumps(manifest))
        entry.chmod(0o777)
    capsys.readouterr()
    assert analyze(logs, tmp_path / "out") == 0
    printed = capsys.readouterr().out
    assert served_nothing_planted(tmp_path / "out", printed) and len(computed) == 2


@pytest.mark.scenario("correctly accepted")
def test_S1_cleanup_never_deletes_folders_it_did_not_make(tmp_path, logs, monkeypatch):
    mine = tmp_path / "my-folder"
    old = time.time() - 10 * 86400
    for k in range(1, 9):
        project = mine / f"project{k}"
        project.mkdir(parents=True)
        (project / "manifest.json").write_text('{"name": "my project"}')
        (project / "data.csv").write_text("a,b\n1,2\n")
        os.utime(project / "manifest.json", (old, old))
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(mine))
    for seed in ("1", "2"):
        assert analyze(logs, tmp_path / "out", "--seed", seed) == 0
    assert all((mine / f"project{k}" / "data.csv").is_file() for k in range(1, 9))


def test_S1_cleanup_keeps_the_newest_of_its_own_entries(tmp_path, logs, monkeypatch):
    from political_sycophancy.report import reuse

    monkeypatch.setattr(reuse, "KEEP", 2)
    store = tmp_path / "store"
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(store))
    for seed in ("1", "2", "3"):
        assert analyze(logs, tmp_path / "out", "--seed", seed) == 0
    assert len([p for p in store.iterdir() if p.is_dir() and p.name != "sections"]) == 2


@pytest.mark.scenario("clear error")
def test_S2_a_second_analyze_into_the_same_out_refuses_while_the_first_runs(tmp_path, capsys):
    logs_a = _logs(tmp_path / "a", items=62)
    logs_b = _logs(tmp_path / "b", shift=-1.0)
    out = tmp_path / "out"
    first = subprocess.Popen(
        [sys.executable, "-m", "political_sycophancy.cli", "analyze", str(logs_a), "--out", str(out), "--no-reuse"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert first.stdout is not None
        assert "reading logs" in first.stdout.readline()  # the first run holds --out from here on
        code = analyze(logs_b, out, "--no-reuse")
        err = capsys.readouterr().err
    finally:
        rest, first_err = first.communicate(timeout=300)
    assert first.returncode == 0, first_err
    assert code == 2 and "another analyze is writing" in err and len(err.strip().splitlines()) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["source"] == str(logs_a.resolve())


@pytest.mark.scenario("correctly accepted")
def test_S2_a_later_run_into_the_same_out_leaves_nothing_of_the_earlier_one(tmp_path, monkeypatch, computed):
    store = tmp_path / "store"
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(store))
    logs_a, logs_b = _logs(tmp_path / "a"), _logs(tmp_path / "b", shift=-1.0)
    out = tmp_path / "out"
    assert analyze(logs_a, out) == 0
    (out / "tables" / "stale_from_a.csv").write_text("x\n1\n")
    assert analyze(logs_b, out) == 0
    assert not (out / "tables" / "stale_from_a.csv").exists()
    assert json.loads((out / "summary.json").read_text())["source"] == str(logs_b.resolve())
    # what the store holds for b is b's alone: restored into a fresh folder, it is b's report
    shutil.rmtree(out)
    assert analyze(logs_b, out) == 0 and len(computed) == 2
    assert json.loads((out / "summary.json").read_text())["source"] == str(logs_b.resolve())
    assert not (out / "tables" / "stale_from_a.csv").exists()


@pytest.mark.scenario("clear error")
def test_S2_out_holding_other_files_is_refused_not_replaced(tmp_path, logs, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "my-notes.txt").write_text("mine")
    assert analyze(logs, out) == 2
    assert "my-notes.txt" in capsys.readouterr().err and (out / "my-notes.txt").read_text() == "mine"


@pytest.mark.scenario("clear error")
def test_S2_a_failed_run_leaves_the_earlier_report_whole(tmp_path, logs, monkeypatch, capsys):
    out = tmp_path / "out"
    assert analyze(logs, out, "--no-reuse") == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def dies(*args, **kwargs):
        raise OSError(28, "No space left on device", str(out / "tables" / "x.csv"))

    monkeypatch.setattr(render, "write_report", dies)
    assert analyze(logs, out, "--no-reuse") != 0
    err = capsys.readouterr().err
    assert "No space left on device" in err and len(err.strip().splitlines()) == 1
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] in ([], [".out.analyze.lock"])


def _drop_root_bypass() -> list[str]:
    """A command prefix under which root obeys file permissions (as any other user does)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root reads every file and setpriv is not installed to drop that power")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


@pytest.mark.scenario("counted exclusion")
def test_T2_one_unreadable_log_is_counted_and_the_analysis_goes_on(tmp_path, logs):
    prefix = _drop_root_bypass()
    bad = sorted(logs.glob("*.eval"))[0]
    bad.chmod(0)
    env = {**os.environ, "POLITICAL_SYCOPHANCY_CACHE": str(tmp_path / "store")}
    run = subprocess.run(
        [*prefix, sys.executable, "-m", "political_sycophancy.cli", "analyze", str(logs), "--out", str(tmp_path / "out"), *FAST],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr and "1 unreadable" in run.stdout
    assert (tmp_path / "out" / "report.html").is_file()


@pytest.mark.scenario("counted exclusion")
@pytest.mark.parametrize("where", ["XDG_CACHE_HOME is a file", "HOME cannot be written"])
def test_T4_T5_an_unusable_cache_location_costs_the_reuse_not_the_run(tmp_path, logs, monkeypatch, capsys, where):
    monkeypatch.delenv("POLITICAL_SYCOPHANCY_CACHE", raising=False)
    if where == "XDG_CACHE_HOME is a file":
        (tmp_path / "cache-file").write_text("x")
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-file"))
    else:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        monkeypatch.setenv("HOME", "/proc/political-sycophancy-no-home")
    assert analyze(logs, tmp_path / "out") == 0
    captured = capsys.readouterr()
    assert "not stored for reuse" in captured.out and captured.err == ""
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["sections"]


def test_the_store_folder_it_makes_is_private(tmp_path, logs, monkeypatch):
    store = tmp_path / "fresh" / "store"
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(store))
    assert analyze(logs, tmp_path / "out") == 0
    assert stat.S_IMODE(store.stat().st_mode) & 0o077 == 0
