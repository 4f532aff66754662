"""Issue 46: `political-sycophancy analyze nothere --out r2` said "file nothere: not found", though
the argument is a folder: the one line says that no folder (or path) of that name exists."""

from __future__ import annotations

import os

from political_sycophancy.cli import main


def _error_lines(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line.strip()]


def test_a_missing_log_folder_is_named_as_a_folder_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["analyze", "nothere", "--out", "r2"]) == 2
    [line] = _error_lines(capsys)
    assert line == "political-sycophancy: error: log folder nothere: not found (no such folder or path)", line
    assert not os.path.exists("r2")


def test_a_file_given_as_the_log_folder_says_it_is_not_a_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "logs.txt").write_text("x")
    assert main(["analyze", "logs.txt", "--out", "r2"]) == 2
    [line] = _error_lines(capsys)
    assert line.startswith("political-sycophancy: error: log folder logs.txt: not a directory (a regular file"), line
