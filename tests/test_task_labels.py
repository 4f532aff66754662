"""Tasks are named by Inspect's registry (`political_sycophancy/audit`); the instrument,
condition and answer mode are task arguments and metadata, and the label the analysis
keys a task by (`audit_pct_C3R`) is metadata too. Logs written when tasks named
themselves by that label are read as the same task, and their eval sets are not resumed
blindly."""

from __future__ import annotations

import json

from inspect_ai import eval as inspect_eval
from inspect_ai import task_with
from inspect_ai.log import read_eval_log, write_eval_log
from support import scripted_model

from political_sycophancy.audit.task import audit
from political_sycophancy.cli import main
from political_sycophancy.core.declare import TASK_LABEL, label_of_task, task_label
from political_sycophancy.logs.frame import load_frame


def _as_written_before(path) -> None:
    """Rewrite a log as the earlier versions wrote it: the task named by its label, no label
    in the metadata."""
    log = read_eval_log(str(path))
    meta = dict(log.eval.metadata or {})
    log.eval.task = meta.pop(TASK_LABEL)
    log.eval.metadata = meta
    write_eval_log(log, str(path))


def test_label_rules():
    meta = {TASK_LABEL: "audit_pct_C3R"}
    assert task_label("political_sycophancy/audit", meta, "political_sycophancy/audit") == "audit_pct_C3R"
    # a log of an earlier version: the name is the label
    assert task_label("audit_pct_C3R", {}, "political_sycophancy/audit") == "audit_pct_C3R"
    # a task its user renamed keeps the user's name
    assert task_label("my_run", meta, "political_sycophancy/audit") == "my_run"
    assert label_of_task(task_with(audit(condition="C3R"), name="my_run")) == "my_run"
    assert label_of_task(audit(condition="C3R", answer="logprobs")) == "audit_pct_C3R_logprobs"
    assert audit(condition="C3R").name == "political_sycophancy/audit"


def test_old_and_new_logs_of_one_cell_are_one_task(tmp_path, capsys):
    logs = tmp_path / "logs"
    for reply in ("A", "D"):
        inspect_eval(audit(condition="N"), model=scripted_model(lambda _, r=reply: r), log_dir=str(logs), display="none", limit=3)
    first = sorted(logs.glob("*.eval"))[0]
    _as_written_before(first)
    frame = load_frame(logs, cache=False)
    assert set(frame["task"]) == {"audit_pct_N"} and len(frame) == 3  # one sample per cell kept
    assert main(["analyze", str(logs), "--out", str(tmp_path / "report")]) == 0
    printed = capsys.readouterr().out
    # the older log's three samples are re-runs of the same cells, not a second task
    assert "3 duplicate sample(s) from re-runs" in printed
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert summary["design"]["missing"] == 0


def test_an_eval_set_of_an_earlier_version_is_not_resumed(tmp_path, capsys):
    logs = tmp_path / "logs"
    args = ["audit", "--conditions", "N,C3R", "--limit", "2", "--model", "faulty/mockllm/model", "--log-dir", str(logs)]
    assert main(args) == 0
    for path in logs.glob("*.eval"):
        _as_written_before(path)
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "written by an earlier version of political-sycophancy" in err[0] and str(logs) in err[0]
    assert "Traceback" not in err[0]
