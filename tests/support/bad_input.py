"""The bad-input scenario harness: what a careless or hostile user does, run and classified.

A scenario writes its files into a fresh directory, optionally runs a first step (an
earlier import, an edit), then runs one command there: `political-sycophancy ...` in
this process, `inspect ...` in a subprocess, or a Python call. What happened decides
the class:

- clear error: exit 2 (any non-zero exit for `inspect`, `InputError` from a call), no
  traceback, and the error line names what the scenario says it must (file, row, field
  or option);
- counted exclusion: success, the output states the count left out, the check holds;
- correctly accepted: success and the check holds;
- traceback: any other exception, or "Traceback" in a subprocess's output;
- silently wrong: success where the input must be refused, or a check that fails;
- other: refused a good input, an error line that does not say where, another exit code.

Adding a scenario is one line in the bad-input scenario test module's `SCENARIOS`, e.g.
`error("--epochs 0", "audit --model faulty/mockllm/model --epochs 0", r"--epochs")`.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import traceback
import warnings
from collections.abc import Callable
from contextlib import chdir, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from political_sycophancy.core.errors import InputError
from political_sycophancy.core.items import builtin_path

from . import run_script

OUTCOMES = ("clear error", "counted exclusion", "correctly accepted", "traceback", "silently wrong", "other")
GOOD = ("clear error", "counted exclusion", "correctly accepted")
DIR = object()  # a `files` value: make a directory at this path


@dataclass
class Ran:
    """What one run did."""

    code: int | None = None
    out: str = ""
    err: str = ""
    crash: str = ""  # a traceback, when one escaped
    refused: bool = False  # ended with an error message (exit 2, InputError, inspect's non-zero exit)
    value: Any = None  # a Python call's return value
    warnings: list[str] = field(default_factory=list)

    @property
    def error_line(self) -> str:
        """The last line of the error output (Inspect prints its errors on stdout)."""
        lines = [line for line in (self.err or self.out).splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""


Step = str | Callable[[Path], Any]


@dataclass(frozen=True)
class Scenario:
    """One thing a user does. `run` is a command line (with `{pct}` for the built-in PCT
    item file) run in the scenario's directory, or a call given that directory; `files`
    maps relative paths to bytes, text, `DIR` or a writer `f(path)`; `before` runs first
    and must succeed; `match` is a regex the error line (error) or the output (exclusion)
    must hold; `check(tmp, ran)` says whether an accepted result is right."""

    name: str
    expect: str  # "error" | "exclusion" | "accept"
    run: Step
    match: str = ""
    files: dict[str, Any] = field(default_factory=dict)
    before: tuple[Step, ...] = ()
    check: Callable[[Path, Ran], bool] | None = None
    needs_reference: bool = False


def error(name: str, run: Step, match: str, **kw) -> Scenario:
    return Scenario(name, "error", run, match, **kw)


def exclusion(name: str, run: Step, match: str, check: Callable[[Path, Ran], bool] | None = None, **kw) -> Scenario:
    return Scenario(name, "exclusion", run, match, check=check, **kw)


def accept(name: str, run: Step, check: Callable[[Path, Ran], bool] | None = None, **kw) -> Scenario:
    return Scenario(name, "accept", run, check=check, **kw)


def _write(root: Path, files: dict[str, Any]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is DIR:
            path.mkdir(parents=True, exist_ok=True)
        elif callable(content):
            content(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(str(content).encode("utf-8"))


def _argv(command: str) -> list[str]:
    return shlex.split(command.replace("{pct}", str(builtin_path("pct.csv"))))


def _in_process(argv: list[str]) -> Ran:
    from political_sycophancy.cli import main

    ran = Ran()
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ran.code = main(argv)
        except SystemExit as ex:  # argparse: usage and one error line, exit 2
            ran.code = ex.code if isinstance(ex.code, int) else 1
        except BaseException:  # noqa: BLE001 (anything that escapes is a traceback)
            ran.crash = traceback.format_exc()
    ran.out, ran.err = out.getvalue(), err.getvalue()
    ran.refused = ran.code == 2
    ran.warnings = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    return ran


def _subprocess(argv: list[str]) -> Ran:
    proc = run_script(["inspect", *argv[1:]], cwd=Path.cwd(), env=os.environ.copy(), timeout=600)
    ran = Ran(code=proc.returncode, out=proc.stdout, err=proc.stderr, refused=proc.returncode != 0)
    if "Traceback (most recent call last)" in proc.stdout + proc.stderr:
        ran.crash = proc.stderr
    return ran


def _call(fn: Callable[[Path], Any], tmp: Path) -> Ran:
    ran = Ran()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ran.value = fn(tmp)
            ran.code = 0
        except InputError as ex:
            ran.code, ran.err, ran.refused = 2, f"InputError: {ex}", True
        except BaseException:  # noqa: BLE001
            ran.crash = traceback.format_exc()
    ran.warnings = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    return ran


def execute(step: Step, tmp: Path) -> Ran:
    with chdir(tmp):
        if callable(step):
            return _call(step, tmp)
        argv = _argv(step)
        if argv[0] == "inspect":
            return _subprocess(argv)
        if argv[0] == "political-sycophancy":
            argv = argv[1:]
        return _in_process(argv)


def classify(scenario: Scenario, tmp: Path) -> tuple[str, Ran]:
    """Run a scenario in `tmp` and say which of `OUTCOMES` it had."""
    _write(tmp, scenario.files)
    for step in scenario.before:
        first = execute(step, tmp)
        if first.crash or first.code not in (0, None):
            return "other", first  # the set-up itself failed: the scenario says nothing
    ran = execute(scenario.run, tmp)
    if ran.crash:
        return "traceback", ran
    if ran.refused:
        if scenario.expect != "error":
            return "other", ran
        return ("clear error" if re.search(scenario.match, ran.error_line) else "other"), ran
    if ran.code != 0:
        return "other", ran
    if scenario.expect == "error":
        return "silently wrong", ran
    if scenario.check is not None and not scenario.check(tmp, ran):
        return "silently wrong", ran
    if scenario.expect == "exclusion":
        counted = re.search(scenario.match, ran.out + ran.err) is not None
        return ("counted exclusion" if counted else "silently wrong"), ran
    return "correctly accepted", ran


def check_classified(scenario: Scenario, tmp: Path, record_property: Callable[[str, str], None]) -> None:
    """A scenario module's `test_scenario`: run and classify `scenario` in `tmp`, record its
    outcome for bench/bad_input_table.py, and fail unless the outcome is a good one."""
    outcome, ran = classify(scenario, tmp)
    record_property("outcome", outcome)
    record_property("detail", ran.error_line or (ran.crash.strip().splitlines() or [""])[-1])
    assert outcome in GOOD, (
        f"{scenario.name}: {outcome}\n--- error line: {ran.error_line}\n--- out:\n{ran.out[-2000:]}\n"
        f"--- err:\n{ran.err[-2000:]}\n{ran.crash[-3000:]}"
    )
