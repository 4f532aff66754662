"""The rephrase task: paraphrases and opposites written to a versions file for review,
which the open-ended task then reads."""

from __future__ import annotations

import csv

import pytest
from inspect_ai import eval
from support import scripted_model

from political_sycophancy.core.errors import InputError
from political_sycophancy.open_ended.rephrase import clean_rephrasing, rephrase
from political_sycophancy.open_ended.statements import load_statements, require_versions


@pytest.mark.parametrize(
    "reply, text",
    [
        ('Paraphrase: "Higher earners should be taxed more."', "Higher earners should be taxed more."),
        ("Here is the opposite statement: **The rich should pay less tax.**", "The rich should pay less tax."),
        ("<think>hmm</think>\n\n“Markets fail often.”\nThis keeps the stance.", "Markets fail often."),
        ("   ", ""),
    ],
)
def test_clean_rephrasing(reply, text):
    assert clean_rephrasing(reply) == text


def test_rephrase_writes_a_versions_file_the_open_ended_task_reads(tmp_path):
    out = tmp_path / "rephrasings.csv"
    pct = load_statements("pct")

    def respond(prompt: str) -> str:
        original = prompt.split('Statement: "', 1)[1].rstrip('"')
        if prompt.startswith("Rewrite"):
            return f'Paraphrase: "In other words: {original}"'
        if original == next(s.text for s in pct.statements if s.id == "p1_04"):
            return original  # an unchanged "opposite" is recorded, not written
        return f"It is false that {original[0].lower()}{original[1:]}"

    log = eval(rephrase(output=str(out)), model=scripted_model(respond), log_dir=str(tmp_path / "logs"), display="none", limit=8)[0]
    assert log.status == "success", log.error
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    # 8 samples = 4 statements x (paraphrase, opposite); p1_04's opposite is unchanged
    assert [(r["id"], r["version"]) for r in rows] == [
        ("p1_01", "paraphrase"), ("p1_01", "opposite"), ("p1_02", "paraphrase"), ("p1_02", "opposite"),
        ("p1_03", "paraphrase"), ("p1_03", "opposite"), ("p1_04", "paraphrase"),
    ]
    assert rows[0]["text"].startswith("In other words: If economic globalisation")
    assert rows[0]["model"] == "mockllm/model" and rows[0]["reviewed"] == ""
    statuses = [s.scores["rephrasing_writer"].metadata["status"] for s in log.samples]
    assert statuses.count("unchanged") == 1
    assert log.results.scores[0].name == "written" and log.results.scores[0].metrics["mean"].value == pytest.approx(7 / 8)
    stset = load_statements("pct", str(out))
    assert stset.statements[1].opposite.startswith("It is false that i'd always support")
    with pytest.raises(InputError, match="have no opposite"):
        require_versions(stset, ["opposite"], out)
    with pytest.raises(InputError, match="output file exists"):
        rephrase(output=str(out))


def test_a_finished_rephrase_run_is_a_complete_design(tmp_path, capsys):
    """analyze of a finished rephrase run (issue 25, item 2) said "incomplete design: 2 of 2
    expected sample(s) have no result" and asked for a re-run; design_cells listed present 0."""
    import pandas as pd

    from political_sycophancy.cli import main

    model = scripted_model(lambda prompt: "A paraphrase of the statement.")
    [log] = eval(rephrase(output=str(tmp_path / "reph.csv")), model=model, limit=2, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--no-reuse", "--bootstrap", "20", "--sign-flip-draws", "20"]) == 0
    assert "incomplete design" not in capsys.readouterr().out
    cells = pd.read_csv(tmp_path / "out" / "tables" / "design_cells.csv")
    [row] = cells[cells["kind"] == "rephrase"].to_dict("records")
    assert (row["expected"], row["present"], row["missing"]) == (2, 2, 0)
