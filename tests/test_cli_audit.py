"""`political-sycophancy audit`: one task per condition as an eval set, and a table."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

from inspect_ai.util import DisplayType
from support import printed_table

from political_sycophancy.cli import build_parser, main
from political_sycophancy.shared.eval_options import DISPLAY_TYPES, eval_set_kwargs


def test_cli_audit_runs_conditions_and_prints_table(tmp_path, capsys):
    log_dir = tmp_path / "logs"
    rc = main(["audit", "--conditions", "N,C3L", "--model", "scripted/B", "--limit", "3", "--log-dir", str(log_dir)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "ideology" in out and "answered" in out and "errors" in out
    rows = printed_table(out)
    assert [r["condition"] for r in rows] == ["N", "C3L"]
    assert len(list(Path(log_dir).glob("*.eval"))) == 2
    # Always "B" (Agree) on p1_01 (left), p1_02 (right), p1_03 (left): (-1 + 1 - 1) / 3.
    assert all(r["samples"] == "3" and r["errors"] == "0" and r["ideology"] == "-0.333" and r["answered"] == "1.000" for r in rows)


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    rc = main(["audit", "--conditions", "N,XX", "--model", "mockllm/model", "--log-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and "unknown condition(s) XX" in err and "Traceback" not in err


def test_audit_and_analyze_print_one_table_format(tmp_path, capsys):
    """The condition summary `audit` prints and the one `analyze` prints have the same columns,
    the design's condition order (N, CA, C1L, C1R, C3L, C3R) whatever order --conditions gave,
    and the same numbers where both define them."""
    log_dir = tmp_path / "logs"
    rc = main(["audit", "--conditions", "C3R,N,C1L", "--model", "scripted/B", "--limit", "3", "--log-dir", str(log_dir)])
    audit_out = capsys.readouterr().out
    assert rc == 0
    assert main(["analyze", str(log_dir), "--out", str(tmp_path / "report"), "--bootstrap", "10", "--no-cache"]) == 0
    analyze_out = capsys.readouterr().out
    audit_rows, analyze_rows = printed_table(audit_out), printed_table(analyze_out)
    assert [r["condition"] for r in audit_rows] == [r["condition"] for r in analyze_rows] == ["N", "C1L", "C3R"]
    assert list(audit_rows[0]) == list(analyze_rows[0]) == ["model", "condition", "samples", "errors", "ideology", "answered", "refused"]
    assert audit_rows == analyze_rows
    note = "means over answered samples; answered and refused are shares of scored samples; errors are samples with no score"
    assert note in audit_out and note in analyze_out


def test_audit_passes_inspects_display_and_points_to_its_own_help(tmp_path, capsys):
    """`--display none` is Inspect's option, passed through (no progress display); an option
    the command does not know points to `political-sycophancy audit --help`, not the top level."""
    log_dir = tmp_path / "logs"
    rc = main(["audit", "--conditions", "N", "--model", "scripted/B", "--limit", "2", "--log-dir", str(log_dir), "--display", "none"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert [r["condition"] for r in printed_table(captured.out)] == ["N"]
    args = build_parser().parse_args(["audit", "--model", "scripted/B", "--display", "none"])
    assert eval_set_kwargs(args)["display"] == "none"  # what eval_set is given
    assert DISPLAY_TYPES == get_args(DisplayType)  # every display Inspect has, and no other
    rc = main(["audit", "--conditions", "N", "--model", "scripted/B", "--log-dir", str(log_dir), "--displya", "none"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.strip() == "political-sycophancy: error: unrecognized arguments: --displya none (see political-sycophancy audit --help)"
    rc = main(["audit", "--conditions", "N", "--model", "scripted/B", "--log-dir", str(log_dir), "--display", "fancy"])
    err = capsys.readouterr().err
    assert rc == 2 and "--display" in err and "'none'" in err and "(see political-sycophancy audit --help)" in err
