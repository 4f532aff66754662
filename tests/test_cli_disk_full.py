"""A full disk during import, analyze or audit (issue 22, T12-T14): one line, and the
outputs either complete or absent, never a truncated file or a chained traceback.

The disk is a small tmpfs the test mounts (root only; elsewhere these tests skip).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import run_script

from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses
from political_sycophancy.core.items import builtin_path
from political_sycophancy.logs.importer import import_responses

FAST = ["--bootstrap", "20", "--sign-flip-draws", "20"]


@pytest.fixture
def disk(tmp_path) -> Iterator[Path]:
    """A 16 MiB tmpfs; `fill(disk)` leaves it a few KiB free."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small disk needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, leave: int = 4096) -> None:
    """Fill the disk but `leave` bytes (a file of zeros, written until ENOSPC, then cut)."""
    ballast = disk / "ballast"
    with ballast.open("wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    st = os.statvfs(disk)
    os.truncate(ballast, max(0, ballast.stat().st_size - leave - st.f_bavail * st.f_frsize))


def run_cli(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return run_script(["political-sycophancy", *argv], cwd=Path.cwd(), env=env, timeout=600)


def one_error_line(run: subprocess.CompletedProcess) -> bool:
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    return run.returncode == 2 and "Traceback" not in run.stderr + run.stdout and len(lines) == 1 and "No space left" in lines[0]


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def responses(tmp_path) -> Path:
    frame = synthetic_responses(builtin_pct_items()[:12], ["p/a"], ["N", "C3R"], pct_shift={"C3R": 1.0}, seed=3)
    frame.to_csv(tmp_path / "r.csv", index=False)
    return tmp_path / "r.csv"


@pytest.mark.scenario("clear error")
def test_T13_analyze_on_a_full_disk_leaves_the_earlier_report_whole(tmp_path, disk, responses):
    import_responses(responses, [builtin_path("pct.csv")], tmp_path / "logs", jobs=1)
    out = disk / "report"
    first = run_cli("analyze", str(tmp_path / "logs"), "--out", str(out), "--no-reuse", *FAST)
    assert first.returncode == 0, first.stderr
    before = files(out)
    fill(disk)
    second = run_cli("analyze", str(tmp_path / "logs"), "--out", str(out), "--no-reuse", "--seed", "7", *FAST)
    assert one_error_line(second), second.stderr[-3000:]
    assert files(out) == before
    assert sorted(p.name for p in disk.iterdir()) == [".report.analyze.lock", "ballast", "report"]


@pytest.mark.scenario("clear error")
def test_T12_import_on_a_full_disk_leaves_no_partial_log(tmp_path, disk, responses):
    fill(disk)
    run = run_cli("import-responses", str(responses), "--items", str(builtin_path("pct.csv")), "--log-dir", str(disk / "logs"))
    assert one_error_line(run), run.stderr[-3000:]
    assert [p.name for p in (disk / "logs").rglob("*") if p.is_file()] == []


@pytest.mark.scenario("clear error")
def test_T14_audit_on_a_full_disk_ends_in_one_line(tmp_path, disk):
    fill(disk)
    run = run_cli("audit", "--model", "faulty/mockllm/model", "-M", "mock_answer=B", "--conditions", "N", "--limit", "2",
                  "--log-dir", str(disk / "logs"))
    assert one_error_line(run), (run.stdout[-2000:], run.stderr[-3000:])
