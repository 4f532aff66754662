"""The command blocks of the docs run as written (issue 25 item 10 and its docs point; issue 48).

Every command in a ```bash block of the README, docs/ and the measure READMEs is checked:
every block is valid bash (`bash -n`); a `political-sycophancy` command parses with the real
parser; an `inspect` command (eval, eval-set, score, view) parses with Inspect's own command
line, and an `inspect eval` / `inspect eval-set` command names registered tasks and only
their parameters; a `python` script or module parses its arguments with its own argparse;
`bash scripts/...` names a script whose commands parse; the offline commands (the embedded
model, `inspect score`, the offline recipes of every task, the paper's Phase 2 grid, the
report screenshot) are executed."""

from __future__ import annotations

import inspect
import os
import re
import shlex
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import click
import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from support import ROOT, requires_embedded, run_cli, run_script
from support.docs import DOCS, registered_tasks

from political_sycophancy.cli import build_parser

# Lines that are not one command of ours or Inspect's, each checked its own way below:
# scripts of this repository, Python scripts and modules, shell loops (`bash -n` of their
# block, their body lines as commands), the report screenshot.
OTHER_LINES = ("bash scripts/", "chromium ", "python ", "for ", "done", "cat > ")


def blocks(doc: Path) -> list[str]:
    """The text of each ```bash block of a document."""
    found, fence, lines = [], None, []
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            if fence == "bash":
                found.append("\n".join(lines))
            fence, lines = (None, []) if fence is not None else (line[3:].strip(), [])
            continue
        lines.append(line)
    return found


def commands(doc: Path) -> list[str]:
    """The commands of a document's bash blocks."""
    return commands_of(doc.read_text(encoding="utf-8"))


def commands_of(text: str) -> list[str]:
    """The commands of the bash blocks of a Markdown text, continuation lines joined, comments
    cut; a heredoc's body is skipped."""
    found, fence, joined, heredoc = [], None, "", None
    for line in text.splitlines():
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
            continue
        if fence != "bash":
            continue
        if heredoc is not None:
            heredoc = None if line.strip() == heredoc else heredoc
            continue
        if "<<'" in line:
            heredoc = line.split("<<'", 1)[1].split("'", 1)[0]
        text = line.split(" #", 1)[0].rstrip() if not line.lstrip().startswith("#") else ""
        if text.endswith("\\"):
            joined += text[:-1] + " "
            continue
        joined += text
        if joined.strip():
            found.append(" ".join(joined.split()))
        joined = ""
    return found


ALL = [(doc, cmd) for doc in DOCS for cmd in commands(doc)]


def _id(case) -> str:
    doc, cmd = case
    return f"{doc.relative_to(ROOT)}: {cmd[:60]}"


def test_the_docs_have_commands_to_check():
    ours = [c for _, c in ALL if c.startswith(("political-sycophancy ", "inspect eval"))]
    assert len(ours) >= 40, len(ours)


@pytest.mark.parametrize("case", [c for c in ALL if c[1].startswith("political-sycophancy ")], ids=_id)
def test_our_commands_parse(case, capsys):
    doc, cmd = case
    argv = shlex.split(cmd)[1:]
    if "..." in argv:
        pytest.skip("a placeholder for the options of the command above")
    try:
        args = build_parser().parse_args(argv)
    except SystemExit:
        pytest.fail(f"{doc.name}: `{cmd}` does not parse: {capsys.readouterr().err.strip()}")
    assert callable(args.func)


@pytest.mark.parametrize("case", [c for c in ALL if c[1].startswith("inspect eval")], ids=_id)
def test_inspect_commands_name_real_tasks_and_parameters(case):
    doc, cmd = case
    tasks = registered_tasks()
    argv = shlex.split(cmd)
    named = [a.split("/", 1)[1] for a in argv if a.startswith("political_sycophancy/")]
    assert named, f"{doc.name}: `{cmd}` names no task of ours"
    for name in named:
        assert name in tasks, f"{doc.name}: no task {name}"
        params = set(inspect.signature(tasks[name]).parameters)
        for flag, value in zip(argv, argv[1:], strict=False):
            if flag == "-T":
                key = value.split("=", 1)[0]
                assert key in params, f"{doc.name}: `{cmd}`: {name} has no parameter {key}"


def test_every_line_is_checked():
    """Nothing is skipped silently: a line is ours, Inspect's, or one of the other lines each
    checked by a test below."""
    for doc, cmd in ALL:
        cmd = _without_env(cmd)
        assert cmd.startswith(("political-sycophancy ", "inspect ", *OTHER_LINES)), f"{doc.name}: {cmd}"


ENV_WORD = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")


def _without_env(cmd: str) -> str:
    """The command without the environment assignments (`LLAMACPP_BASE_URL=... `) before it."""
    words = cmd.split(" ")
    while words and ENV_WORD.match(words[0]):
        words = words[1:]
    return " ".join(words)


@pytest.mark.parametrize("block", [(doc, b) for doc in DOCS for b in blocks(doc)], ids=lambda c: c[0].name)
def test_every_block_is_valid_bash(block):
    """The shell around the commands (continuations, loops, heredocs) is bash as written."""
    doc, text = block
    proc = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
    assert proc.returncode == 0, f"{doc.name}: {proc.stderr}"


def _inspect_cli() -> click.Group:
    """Inspect's own command line (the click group behind the `inspect` console script)."""
    [ep] = entry_points(group="console_scripts", name="inspect")
    return sys.modules[ep.load().__module__].inspect


@pytest.mark.parametrize("case", [c for c in ALL if _without_env(c[1]).startswith("inspect ")], ids=_id)
def test_inspect_commands_parse_with_inspects_own_command_line(case):
    """Every `inspect` line (eval, eval-set, score, view) parses with Inspect's own options:
    a misspelt flag or a value of the wrong type fails here, not in a reader's terminal."""
    doc, cmd = case
    argv = shlex.split(_without_env(cmd).removesuffix(" &"))[1:]
    command = _inspect_cli().get_command(click.Context(_inspect_cli()), argv[0])
    assert command is not None, f"{doc.name}: `{cmd}`: Inspect has no command {argv[0]}"
    try:
        with command.make_context(f"inspect {argv[0]}", argv[1:]):
            pass
    except click.ClickException as ex:
        pytest.fail(f"{doc.name}: `{cmd}`: {ex.format_message()}")


# A sitecustomize that lets a script or module parse its command line with its own argparse,
# then stops it before it does anything: `python bench/x.py ...` is checked without being run.
PARSE_ONLY = """import argparse, os, sys
_parse = argparse.ArgumentParser.parse_args
def parse_args(self, args=None, namespace=None):
    _parse(self, args, namespace)
    sys.stdout.write("parsed: " + self.prog + "\\n"); sys.stdout.flush(); os._exit(0)
argparse.ArgumentParser.parse_args = parse_args
"""


@pytest.mark.parametrize("case", [c for c in ALL if c[1].startswith("python ") and not c[1].startswith("python - ")], ids=_id)
def test_python_lines_parse_with_their_own_argparse(case, tmp_path):
    """A `python script.py ...` / `python -m module ...` line, run by bash as written from the
    repository root (its `$(...)` expanded), parses its arguments with the script's own parser."""
    doc, cmd = case
    (tmp_path / "sitecustomize.py").write_text(PARSE_ONLY)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(["bash", "-c", cmd.removesuffix(" &")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and "parsed: " in proc.stdout, f"{doc.name}: `{cmd}`: {proc.stdout[-1000:]}{proc.stderr[-2000:]}"


def _script_commands(script: Path) -> list[str]:
    """The `political-sycophancy` lines of a shell script, continuations joined and each
    `${NAME:-default}` replaced by its default."""
    text = re.sub(r"\\\n\s*", " ", script.read_text())
    text = re.sub(r'"?\$\{[A-Z_]+:-([^}]*)\}"?', r"\1", text)
    return [line.strip() for line in text.splitlines() if line.strip().startswith("political-sycophancy ")]


@pytest.mark.parametrize("case", [c for c in ALL if c[1].startswith("bash scripts/")], ids=_id)
def test_repository_scripts_exist_and_their_commands_parse(case, capsys):
    """`bash scripts/audit.sh` (the main job: run in full by the lead's fresh-machine timing,
    scripts/first_run.sh) and `bash scripts/test.sh` (this suite): each script is valid bash,
    every script it runs exists, and its `political-sycophancy` commands parse."""
    doc, cmd = case
    script = ROOT / cmd.split()[1]
    assert script.is_file(), f"{doc.name}: no {script}"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    for called in re.findall(r"bash (scripts/\S+\.sh)", script.read_text()):
        assert (ROOT / called).is_file(), f"{script.name} runs {called}, which is not there"
    for line in _script_commands(script):
        try:
            build_parser().parse_args(shlex.split(line)[1:])
        except SystemExit:
            pytest.fail(f"{script.name}: `{line}` does not parse: {capsys.readouterr().err.strip()}")


def _docs(cmd_start: str) -> list[str]:
    return [c for doc, c in ALL if doc.name == "inspect.md" and _without_env(c).startswith(cmd_start)]


@pytest.mark.slow
@pytest.mark.parametrize("written", _docs("inspect score"), ids=["named scorer", "opt-in aliases"])
def test_inspect_score_runs_as_written_without_a_terminal(tmp_path, written):
    """docs/inspect.md's `inspect score` commands (a bare `inspect score LOG` asked two
    questions and aborted without a terminal): run as written, stdin closed, on a real log,
    the environment variable of the opt-in one set as the line sets it."""
    made = run_cli("inspect", "eval", "political_sycophancy/audit", "-T", "condition=N", "--model",
                   "faulty/mockllm/model", "-M", "mock_answer=B", "--limit", "1", "--log-dir", "logs",
                   "--display", "none", cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    [info] = list_eval_logs(str(tmp_path / "logs"))
    argv = [info.name.removeprefix("file://") if a == "logs/LOG.eval" else a
            for a in shlex.split(_without_env(written))]
    env = {k: v for k, v in os.environ.items() if not k.startswith("POLITICAL_SYCOPHANCY_")}
    env.update(w.split("=", 1) for w in written.split(" ") if w.startswith("POLITICAL_SYCOPHANCY_") and "=" in w)
    proc = run_script(argv, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "rescored.eval").stat().st_size > 0


def section(doc: Path, heading: str) -> str:
    """The text under a heading of a document, up to the next heading."""
    text = doc.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    end = text.find("\n#", start + 1)
    return text[start:end if end > 0 else len(text)]


def heredoc_files(text: str) -> dict[str, str]:
    """The files a text's `cat > FILE <<'EOF'` lines write, by name."""
    return {name: body + "\n" for name, body in re.findall(r"^cat > (\S+) <<'EOF'\n(.*?)\nEOF$", text, re.M | re.S)}


OFFLINE_TEXT = section(ROOT / "docs" / "inspect.md", "### Every task offline")
OFFLINE = [c for c in commands_of(OFFLINE_TEXT) if c.startswith("inspect eval ")]


def test_the_offline_recipes_cover_every_task():
    """docs/inspect.md's offline recipes name every registered task family once (the
    `audit_<condition>` tasks are the audit with its condition fixed)."""
    named = {shlex.split(c)[2].split("/", 1)[1] for c in OFFLINE}
    assert named == {t for t in registered_tasks() if not t.startswith("audit_")}, named


@requires_embedded
@pytest.mark.slow
@pytest.mark.parametrize("cmd", OFFLINE, ids=lambda c: shlex.split(c)[2])
def test_the_offline_recipes_run_as_written(cmd, tmp_path):
    """Each task's offline recipe (docs/inspect.md: Every task offline) runs as written on the
    embedded model, offline, and writes a successful log."""
    for name, body in heredoc_files(OFFLINE_TEXT).items():  # the item file the block writes first
        (tmp_path / name).write_text(body)
    proc = run_script([*shlex.split(cmd), "--log-dir", "logs", "--display", "none"], cwd=tmp_path, env=dict(os.environ), timeout=600)
    assert proc.returncode == 0, f"`{cmd}`: {proc.stdout[-2000:] + proc.stderr[-2000:]}"
    [log] = list_eval_logs(str(tmp_path / "logs"))
    assert read_eval_log(log, header_only=True).status == "success"


@requires_embedded
@pytest.mark.slow
def test_the_embedded_model_commands_run(tmp_path):
    """docs/inspect.md's first commands on the embedded model, as written but for one sample."""
    cases = [c for doc, c in ALL if doc.name == "inspect.md" and "gguf/smollm2" in c and c.startswith("inspect eval ")
             and c not in OFFLINE]
    assert len(cases) == 2
    for cmd in cases:
        proc = run_script([*shlex.split(cmd), "--limit", "1", "--log-dir", "logs", "--display", "none"],
                          cwd=tmp_path, env=dict(os.environ), timeout=600)
        assert proc.returncode == 0, f"`{cmd}`: {proc.stdout + proc.stderr}"
    assert len(list_eval_logs(str(tmp_path / "logs"))) == 2


def test_the_phase2_grid_script_runs_as_written(tmp_path):
    """docs/reproducing.md's `python - <<'PY'` script, run as written from a folder beside
    ../shared: the paper's Phase 2 grid, one row per model x item x condition, with the parse
    failures the comment counts left without a letter."""
    from support import REFERENCE

    if not (REFERENCE / "phase2_alignment_by_condition.csv").exists():
        pytest.skip(f"replication data not found at {REFERENCE}")
    doc = ROOT / "docs" / "reproducing.md"
    [script] = re.findall(r"python - <<'PY'[^\n]*\n(.*?)\nPY\n", doc.read_text(encoding="utf-8"), re.S)
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared" / "reference").mkdir(parents=True)
    (tmp_path / "shared" / "reference" / "replication").symlink_to(REFERENCE)
    proc = subprocess.run([sys.executable, "-"], input=script, cwd=work, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    import pandas as pd

    grid = pd.read_csv(work / "phase2_grid.csv", keep_default_na=False)
    assert len(grid) == 6 * 500 * 6 and list(grid.columns) == ["model_id", "question_id", "condition", "raw_response", "letter"]
    assert (grid["letter"] == "").sum() == 1003


def test_the_report_screenshot_command_runs_as_written(tmp_path):
    """docs/analysis.md's headless-Chromium screenshot of the main job's report, run by bash
    as written in a folder holding a report at that path."""
    from support.browser import CHROMIUM

    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium (apt-get install -y chromium)")
    [cmd] = [c for doc, c in ALL if c.startswith("chromium ")]
    report = tmp_path / "reports" / "pct-smollm2" / "report.html"
    report.parent.mkdir(parents=True)
    report.write_text("<html><body><h1>political-sycophancy report</h1></body></html>")
    proc = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
