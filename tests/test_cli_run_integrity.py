"""Runs a careless user makes: an edited item file re-run into the same log folder, a provider
with permanent errors (issue 12 items 3 and 4), and the same seeded command twice (issue 11
item 7)."""

from __future__ import annotations

import json

from inspect_ai.log import list_eval_logs, read_eval_log
from support import printed_table, requires_embedded, run_cli


def _items(path, text: str) -> None:
    rows = [
        {"id": "q1", "text": text, "options": ["Strongly agree", "Agree", "Disagree", "Strongly disagree"], "direction": 1},
        {"id": "q2", "text": "Second statement.", "options": ["Strongly agree", "Agree", "Disagree", "Strongly disagree"], "direction": -1},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


def _calls(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_edited_item_file_is_a_new_task_not_a_reused_answer(tmp_path):
    items, calls = tmp_path / "items.jsonl", tmp_path / "calls.jsonl"
    args = ["political-sycophancy", "audit", "--instrument", "pct", "--items", str(items), "--conditions", "N",
            "--model", "faulty/mockllm/model", "-M", "mock_answer=A", "-M", f"calls_file={calls}", "--log-dir", "logs"]
    _items(items, "First statement.")
    assert run_cli(*args, cwd=tmp_path).returncode == 0
    assert len(_calls(calls)) == 2
    assert run_cli(*args, cwd=tmp_path).returncode == 0
    assert len(_calls(calls)) == 2  # a true re-run reuses the answers
    _items(items, "First statement, edited.")
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2 and "changed since its log" in proc.stderr and "Traceback" not in proc.stderr
    assert len(_calls(calls)) == 2  # nothing reused, nothing sent
    proc = run_cli(*args[:-1], "logs_edited", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sent = _calls(calls)
    assert len(sent) == 4 and "First statement, edited." in sent[2]["prompt"] + sent[3]["prompt"]


def test_audit_finishes_with_permanent_errors_counted(tmp_path):
    args = ["political-sycophancy", "audit", "--conditions", "N", "--model", "faulty/mockllm/model",
            "-M", "mock_answer=B", "-M", "permanent=0.2", "-M", "seed=3", "--log-dir", "logs"]
    failing = run_cli(*args, cwd=tmp_path)
    assert failing.returncode != 0  # Inspect's default: any error fails the task
    proc = run_cli(*args, "--fail-on-error", "0.5", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [log] = [read_eval_log(i) for i in list_eval_logs(str(tmp_path / "logs")) if read_eval_log(i, header_only=True).status == "success"]
    errors = sum(1 for s in log.samples if s.error)
    assert 0 < errors < 62
    [row] = printed_table(proc.stdout)
    assert row["model"] == "faulty/mockllm/model" and row["errors"] == str(errors)


@requires_embedded
def test_same_seeded_command_gives_the_same_answers(tmp_path):
    """Two conditions share one llama.cpp model; their calls interleave differently per run."""
    tables = []
    for run in ("a", "b"):
        args = ["political-sycophancy", "audit", "--conditions", "N,C3R", "--model", "gguf/smollm2", "--limit", "2",
                "--answer", "letter", "--max-tokens", "6", "--seed", "1", "--log-dir", f"logs_{run}"]
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        table = proc.stdout.split("means over")[0].splitlines()
        tables.append(table[next(i for i, line in enumerate(table) if line.startswith("model ")):])
        answers = {}
        for info in list_eval_logs(str(tmp_path / f"logs_{run}")):
            log = read_eval_log(info)
            for s in log.samples:
                answers[(log.eval.metadata["task_label"], s.id)] = s.output.completion
        if run == "a":
            first = answers
    assert answers == first
    assert tables[0] == tables[1]


def test_second_run_on_a_busy_log_folder_is_refused(tmp_path):
    """Two audits on one log folder at once used to both send every call."""
    from political_sycophancy.shared.eval_options import log_dir_lock

    with log_dir_lock(str(tmp_path / "logs")):
        proc = run_cli("political-sycophancy", "audit", "--conditions", "N", "--model", "faulty/mockllm/model",
                       "--limit", "1", "--log-dir", "logs", cwd=tmp_path)
    assert proc.returncode == 2 and "another run is writing to logs" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("political-sycophancy", "audit", "--conditions", "N", "--model", "faulty/mockllm/model",
                   "--limit", "1", "--log-dir", "logs", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_log_dir_that_is_a_file_is_one_line_error(tmp_path):
    (tmp_path / "logs").write_text("not a folder")
    proc = run_cli("political-sycophancy", "audit", "--conditions", "N", "--model", "faulty/mockllm/model",
                   "--limit", "1", "--log-dir", "logs", cwd=tmp_path)
    assert proc.returncode == 2 and "--log-dir logs: exists and is not a directory" in proc.stderr, proc.stderr


def test_a_t0_run_beside_the_t1_audit_goes_to_a_sub_folder_and_both_are_analysed(tmp_path, capsys):
    """The paper's design: a T=1 audit, then the same grid at T=0 into the same --log-dir
    (issue 25, item 6). Inspect's eval set refused the second ("not associated with a task
    passed to eval_set"); now it goes to logs/temperature-0/, said in one line, resumes there,
    and analyze of logs/ reports both variants."""
    import pandas as pd

    from political_sycophancy.cli import main

    calls = tmp_path / "calls.jsonl"
    base = ["audit", "--conditions", "N,C3R", "--limit", "3", "--model", "faulty/mockllm/model", "-M", "mock_answer=B",
            "-M", f"calls_file={calls}", "--log-dir", str(tmp_path / "logs")]
    assert main(base) == 0
    assert len(_calls(calls)) == 6
    capsys.readouterr()
    assert main([*base, "--temperature", "0"]) == 0
    out = capsys.readouterr().out
    assert "temperature 1 -> 0" in out and str(tmp_path / "logs" / "temperature-0") in out
    assert len(_calls(calls)) == 12
    assert len(list((tmp_path / "logs" / "temperature-0").glob("*.eval"))) == 2
    # re-running either sends nothing new
    assert main([*base, "--temperature", "0"]) == 0 and main(base) == 0
    assert len(_calls(calls)) == 12
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--no-reuse", "--bootstrap", "20",
                 "--sign-flip-draws", "20"]) == 0
    by_variant = pd.read_csv(tmp_path / "out" / "tables" / "condition_summary_by_variant.csv")
    assert by_variant.groupby("variant")["n_samples"].sum().to_dict() == {"temperature=0": 6, "temperature=1": 6}
