"""Interruption: `political-sycophancy audit` (an eval set of the PCT under all six
conditions) is killed with SIGKILL part-way and re-run with the same command; the analysis
then sees every cell exactly once and no cell the killed run had answered is sent again.

The model is `faulty/mockllm/model` with no faults: it logs every call to a file. To kill
at a known point the test switches on an outage (`-M outage_file`: calls hang while the
file exists), waits until the run is idle (every answered cell written to Inspect's log and
sample buffer), then kills it. `bench/interruption.py` kills at an arbitrary moment of the
full PCT instead and reports how many answered-but-unwritten cells a kill costs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from political_sycophancy.logs.frame import read_frame

ITEMS = 8
CONDITIONS = 6
CELLS = ITEMS * CONDITIONS
KILL_AFTER = 20


def audit_command(tmp: Path) -> tuple[list[str], dict[str, str]]:
    argv = [
        sys.executable, "-m", "political_sycophancy.cli", "audit", "--conditions", "all", "--limit", str(ITEMS),
        "--model", "faulty/mockllm/model",
        "-M", f"calls_file={tmp / 'calls.jsonl'}", "-M", f"outage_file={tmp / 'outage'}", "-M", "hang_seconds=600",
        "-M", "delay=0.02", "--log-dir", str(tmp / "logs"),
    ]  # fmt: skip
    # Inspect's sample buffer (what a crashed run is recovered from) lives in the user data
    # directory; keep it inside the test's directory.
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "INSPECT_DISPLAY": "plain"}
    return argv, env


def calls(tmp: Path) -> list[dict]:
    path = tmp / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def newest_write(tmp: Path) -> float:
    stamps = [p.stat().st_mtime for d in ("logs", "data") for p in (tmp / d).rglob("*") if p.is_file()]
    return max(stamps, default=0.0)


def wait_until_idle(tmp: Path, proc: subprocess.Popen, quiet: float = 2.0, timeout: float = 120.0) -> None:
    """Until no log or buffer file has changed for `quiet` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert proc.poll() is None, "the audit finished before it was killed"
        if time.time() - newest_write(tmp) > quiet:
            return
        time.sleep(0.25)
    raise AssertionError("the interrupted run never went idle")


@pytest.mark.slow  # two CLI processes: about 20 s idle, more on a busy machine
def test_killed_audit_resumes_without_resending_answered_cells(tmp_path):
    argv, env = audit_command(tmp_path)
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.time() + 180
        while len(calls(tmp_path)) < KILL_AFTER:
            assert proc.poll() is None, proc.communicate()[0].decode()[-3000:]
            assert time.time() < deadline, "the audit made no calls"
            time.sleep(0.1)
        (tmp_path / "outage").touch()
        wait_until_idle(tmp_path, proc)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    first = calls(tmp_path)
    answered_before = {(c["task"], c["condition"], c["sample_id"]) for c in first if c["outcome"] == "ok"}
    hanging = {(c["task"], c["condition"], c["sample_id"]) for c in first if c["outcome"] == "outage"}
    assert KILL_AFTER <= len(answered_before) < CELLS
    assert len(first) == len(answered_before) + len(hanging)

    (tmp_path / "outage").unlink()
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    assert done.returncode == 0, done.stdout.decode()[-3000:]
    second = calls(tmp_path)[len(first):]
    resent = {(c["task"], c["condition"], c["sample_id"]) for c in second}

    # no cell answered before the kill was sent again, and nothing else was left out
    assert not resent & answered_before
    assert len(second) == len(resent) == CELLS - len(answered_before)
    assert hanging <= resent

    load = read_frame(tmp_path / "logs", cache=False)
    frame = load.frame
    assert len(frame) == CELLS
    assert not frame.duplicated(["model", "condition", "item_id", "epoch"]).any()
    assert sorted(frame.groupby("condition").size().to_dict().items()) == sorted(
        {c: ITEMS for c in ("N", "CA", "C1L", "C1R", "C3L", "C3R")}.items()
    )
    assert (frame["status"] == "answered").all()
    print(
        f"\ninterruption: {len(first)} calls before SIGKILL ({len(answered_before)} answered, {len(hanging)} hanging); "
        f"re-run made {len(second)} calls = {CELLS} cells - {len(answered_before)} answered; "
        f"frame {len(frame)} cells, 0 duplicated, 0 answered cells re-sent"
    )
