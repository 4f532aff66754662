"""`political-sycophancy audit`: one task per condition as an eval set, and a table."""

from __future__ import annotations

from pathlib import Path

from political_sycophancy.cli import main


def test_cli_audit_runs_conditions_and_prints_table(tmp_path, capsys):
    log_dir = tmp_path / "logs"
    rc = main(["audit", "--conditions", "N,C3L", "--model", "scripted/B", "--limit", "3", "--log-dir", str(log_dir)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "ideology" in out and "answered" in out and "errors" in out
    table = out[out.index("model "):]
    lines = [ln.split() for ln in table.splitlines() if ln.startswith("scripted/B")]
    assert [ln[1] for ln in lines] == ["N", "C3L"]
    assert len(list(Path(log_dir).glob("*.eval"))) == 2
    # Always "B" (Agree) on p1_01 (left), p1_02 (right), p1_03 (left): (-1 + 1 - 1) / 3.
    assert all(ln[2] == "3" and ln[3] == "-0.333" and ln[4] == "1.000" for ln in lines)


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    rc = main(["audit", "--conditions", "N,XX", "--model", "mockllm/model", "--log-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and "unknown condition(s) XX" in err and "Traceback" not in err
