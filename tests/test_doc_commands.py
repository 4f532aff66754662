"""The command blocks of the docs run as written (issue 25 item 10 and its docs point).

Every command in a ```bash block of the README, docs/ and the measure READMEs is checked:
a `political-sycophancy` command parses with the real parser, an `inspect eval` /
`inspect eval-set` command names registered tasks and only their parameters. The offline
commands (the embedded model, `inspect score`) are executed."""

from __future__ import annotations

import inspect
import os
import shlex
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs
from support import ROOT, requires_embedded, run_cli, run_script
from support.docs import DOCS, registered_tasks

from political_sycophancy.cli import build_parser

# Lines that are not one command of ours or Inspect's: shell scaffolding, other programs,
# placeholders. Each is named so that nothing is skipped silently.
NOT_CHECKED = ("bash scripts/", "chromium ", "python ", "python -", "for ", "done", "PY", "LLAMACPP_BASE_URL=",
               "inspect view")


def commands(doc: Path) -> list[str]:
    """The commands of a document's bash blocks, continuation lines joined, comments cut;
    a heredoc's body is skipped."""
    found, fence, joined, heredoc = [], None, "", None
    for line in doc.read_text(encoding="utf-8").splitlines():
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


def test_every_line_is_checked_or_named():
    """Nothing is skipped silently: a line is ours, Inspect's, or a named other program."""
    for doc, cmd in ALL:
        cmd = _without_env(cmd)
        assert cmd.startswith(("political-sycophancy ", "inspect eval", "inspect score", *NOT_CHECKED)), f"{doc.name}: {cmd}"


def _without_env(cmd: str) -> str:
    """The command without the environment assignments (`POLITICAL_SYCOPHANCY_...=1`) before it."""
    words = cmd.split(" ")
    while words and words[0].startswith("POLITICAL_SYCOPHANCY_") and "=" in words[0]:
        words = words[1:]
    return " ".join(words)


def _docs(cmd_start: str) -> list[str]:
    return [c for doc, c in ALL if doc.name == "inspect.md" and _without_env(c).startswith(cmd_start)]


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


@requires_embedded
def test_the_embedded_model_commands_run(tmp_path):
    """docs/inspect.md's commands on the embedded model, as written but for one sample."""
    cases = [c for doc, c in ALL if doc.name == "inspect.md" and "gguf/smollm2" in c and c.startswith("inspect eval ")]
    assert len(cases) == 2
    for cmd in cases:
        proc = run_script([*shlex.split(cmd), "--limit", "1", "--log-dir", "logs", "--display", "none"],
                          cwd=tmp_path, env=dict(os.environ), timeout=600)
        assert proc.returncode == 0, f"`{cmd}`: {proc.stdout + proc.stderr}"
    assert len(list_eval_logs(str(tmp_path / "logs"))) == 2
