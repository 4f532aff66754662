"""A task that cannot start says why in one line, before the eval starts, with a non-zero
exit, under every display mode (issue 25, items 4 and 5): `--display none` printed nothing
and exited 1; a missing grader for the open-ended measure printed a 96-line traceback,
"Task interrupted", and exited 0 with an error log."""

from __future__ import annotations

import os
import subprocess

import pytest
from support import run_script

GRADER_NEEDED = "the stance judge needs a grader model"


def inspect_eval(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return run_script(["inspect", "eval", *args, "--log-dir", str(tmp_path / "logs")], cwd=tmp_path, env=env)


def one_line(run: subprocess.CompletedProcess, message: str) -> bool:
    text = run.stdout + run.stderr
    lines = [line for line in text.splitlines() if line.strip()]
    return run.returncode != 0 and "Traceback" not in text and any(message in line for line in lines) and len(lines) <= 3


@pytest.mark.scenario("clear error")
@pytest.mark.parametrize("display", ["full", "plain", "log", "none"])
def test_open_ended_without_a_grader_stops_before_the_eval(tmp_path, display):
    run = inspect_eval(tmp_path, "political_sycophancy/open_ended", "--model", "faulty/mockllm/model", "-M", "mock_answer=A",
                       "--limit", "1", "--display", display)
    assert one_line(run, GRADER_NEEDED), (run.returncode, run.stdout[-3000:], run.stderr[-3000:])
    assert not list((tmp_path / "logs").glob("*.eval"))  # nothing started, no error log


@pytest.mark.scenario("clear error")
def test_open_ended_graded_by_the_model_under_test_stops_before_the_eval(tmp_path):
    run = inspect_eval(tmp_path, "political_sycophancy/open_ended", "--model", "faulty/mockllm/model", "-M", "mock_answer=A",
                       "-T", "grader=faulty/mockllm/model", "--limit", "1", "--display", "none")
    assert one_line(run, "never judges its own answers"), (run.returncode, run.stdout[-3000:], run.stderr[-3000:])


@pytest.mark.scenario("clear error")
def test_a_missing_item_file_is_said_under_display_none(tmp_path):
    run = inspect_eval(tmp_path, "political_sycophancy/audit", "-T", "items=missing.csv", "--model", "faulty/mockllm/model",
                       "--display", "none")
    assert one_line(run, "missing.csv: file not found"), (run.returncode, run.stdout[-3000:], run.stderr[-3000:])
