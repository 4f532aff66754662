"""Where the data came from, on the report's first screen (issue 46 item 4): an imported
response file's name and hash, whose letters were scored (the file's own with
`--use-source-letters`, else our parser's), the import's options, what the file lacks
(response text) and the user's note on what was reconstructed."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
from support.items import write_atp

from political_sycophancy.cli import main


def _responses(path, *, letters_only: bool, models: tuple[str, ...] = ("M1", "M2")):
    """Two models x 4 items under N and C3R; one question id the item file lacks."""
    rows = []
    for model in models:
        for i in range(4):
            for cond, letter in (("N", "B"), ("C3R", "D")):
                text = letter if letters_only else f"I would pick {letter}."
                rows.append({"model_id": model, "question_id": f"atp_{i:02d}", "condition": cond, "raw_response": text,
                             "letter": letter})
        rows.append({"model_id": model, "question_id": "atp_99", "condition": "N", "raw_response": "A", "letter": "A"})
    if letters_only:  # a cell without a letter: a refusal or an unread answer, the file cannot say
        rows[0].update(raw_response="", letter="")
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_an_imported_file_its_hash_parser_and_options_are_on_the_first_screen(tmp_path, capsys):
    items = write_atp(tmp_path / "atp.csv", 4)
    grid = _responses(tmp_path / "grid.csv", letters_only=True)
    note = "rebuilt from phase2_alignment_by_condition.csv: each cell's letter is the argmax of llm_dist"
    assert main(["import-responses", str(grid), "--items", str(items), "--log-dir", str(tmp_path / "logs"),
                 "--use-source-letters", "--skip-unknown", "--note", note]) == 0
    # other models: two files answering the same cells are refused (test_cli_hostile_surfaces_scenarios.py)
    text = _responses(tmp_path / "text.csv", letters_only=False, models=("M3", "M4"))
    assert main(["import-responses", str(text), "--items", str(items), "--log-dir", str(tmp_path / "logs"), "--skip-unknown"]) == 0
    out = tmp_path / "report"
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(out), "--bootstrap", "20", "--sign-flip-draws", "20"]) == 0
    capsys.readouterr()
    grid_hash = hashlib.sha256(grid.read_bytes()).hexdigest()
    text_hash = hashlib.sha256(text.read_bytes()).hexdigest()
    summary = json.loads((out / "summary.json").read_text())
    files = {row["file"]: row for row in summary["provenance"]["files"]}
    assert set(files) == {"grid.csv", "text.csv"}
    grid_row, text_row = files["grid.csv"], files["text.csv"]
    assert grid_row["sha256"] == grid_hash and text_row["sha256"] == text_hash
    assert grid_row["path"] == str(grid.resolve()) and grid_row["items_files"][0]["sha256"] == hashlib.sha256(items.read_bytes()).hexdigest()
    assert grid_row["letters"] == "source" and text_row["letters"] == "parsed"
    assert grid_row["options"] == ["--use-source-letters", "--skip-unknown"] and text_row["options"] == ["--skip-unknown"]
    assert (grid_row["rows"], grid_row["question_ids"], grid_row["left_out_unknown"]) == (18, 5, 2)
    assert grid_row["response_text"] == "letters only" and text_row["response_text"] == "text"
    assert grid_row["import_note"] == note and text_row["import_note"] is None
    assert (grid_row["logs"], grid_row["samples"]) == (4, 16)
    md = (out / "report.md").read_text()
    first_screen = md[: md.index("## Headline")] if "## Headline" in md else md[: md.index("## ")]
    # the first screen names each file, its hash, its parser and its options
    assert f"grid.csv (sha256 {grid_hash[:16]}" in first_screen and f"text.csv (sha256 {text_hash[:16]}" in first_screen
    assert "the file's own letters (--use-source-letters)" in first_screen and "our parser's letters" in first_screen
    assert "--skip-unknown" in first_screen and note in first_screen
    assert "no response text" in first_screen and "a refusal cannot be told from an answer without a letter" in first_screen
    # the provenance table, with the full hashes, in the overview section
    table = pd.read_csv(out / "tables" / "provenance.csv")
    assert set(table["sha256"]) == {grid_hash, text_hash}
    html = (out / "report.html").read_text()
    assert html.index(grid_hash[:16]) < html.index("id='overview'")


def test_logs_run_by_inspect_are_named_as_such(tmp_path):
    """Logs not imported from a file: one provenance row for them, no file, no hash."""
    from political_sycophancy.logs.provenance import provenance_table

    table = provenance_table([{"source": None, "sample_ids": ["a", "b"], "epochs": 2, "kind": "audit", "model_name": "m"}])
    assert table["file"].tolist() == ["(run with Inspect)"] and table["samples"].tolist() == [4]
    assert table["sha256"].isna().all()
