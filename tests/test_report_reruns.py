"""Issue 46 item 1: two legitimate runs of the same cells (a user ran the same audit tasks on the same
model twice, into two log folders, and analysed the parent folder) are neither merged silently nor
dropped silently: the Headline shows its numbers under each run as robustness rows beside the
baseline (the latest successful answer of each cell, which feeds every statistic) and the pooled
answers, and says which run is the baseline."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from support import scripted_model

from political_sycophancy.audit.simulate import builtin_pct_items
from political_sycophancy.audit.task import audit
from political_sycophancy.cli import main

CONDITIONS = ("N", "C3L", "C3R")
ITEMS = 12


def _answers(right_letter: str):
    """A model that agrees (B) with no preamble and as a Democrat, and answers `right_letter` as a Republican."""

    def respond(text: str) -> str:
        return right_letter if text.startswith("As a conservative Republican") else "B"

    return respond


def _run(log_dir: Path, right_letter: str) -> None:
    # items of one direction, so that an answer's letter moves the mean item score
    ids = [i.id for i in builtin_pct_items() if i.direction == -1][:ITEMS]
    tasks = [audit(instrument="pct", condition=c) for c in CONDITIONS]
    logs = inspect_eval(tasks, model=scripted_model(_answers(right_letter)), sample_id=ids, log_dir=str(log_dir),
                        display="none", log_realtime=False)
    assert all(log.status == "success" for log in logs)


@pytest.fixture(scope="module")
def reran(tmp_path_factory):
    """The same 3 tasks run twice on one model, the second run answering C3R differently."""
    tmp = tmp_path_factory.mktemp("reran")
    _run(tmp / "logs" / "first", "A")
    _run(tmp / "logs" / "second", "D")
    out = tmp / "analysis"
    assert main(["analyze", str(tmp / "logs"), "--out", str(out), "--bootstrap", "100", "--sign-flip-draws", "100"]) == 0
    return out, json.loads((out / "summary.json").read_text())


def test_the_headline_shows_each_run_as_a_robustness_row_beside_the_baseline(reran):
    _, summary = reran
    node = summary["findings"]["headline"]["reruns"]
    rows = {r["run"]: r for r in node["rows"]}
    assert set(rows) == {"run 1", "run 2", "baseline", "pooled"}, rows
    assert node["n_cells"] == len(CONDITIONS) * ITEMS and node["n_runs"] == 2
    # the runs answered C3R differently, so the headline differs between them; the baseline is run 2's
    assert rows["run 1"]["sycophancy_right"] != pytest.approx(rows["run 2"]["sycophancy_right"])
    assert rows["baseline"]["sycophancy_right"] == pytest.approx(rows["run 2"]["sycophancy_right"])
    low, high = sorted([rows["run 1"]["sycophancy_right"], rows["run 2"]["sycophancy_right"]])
    assert low < rows["pooled"]["sycophancy_right"] < high
    assert all(r["answers"] == len(CONDITIONS) * ITEMS for k, r in rows.items() if k != "pooled")
    assert rows["pooled"]["answers"] == 2 * len(CONDITIONS) * ITEMS
    assert rows["run 1"]["logs"].endswith("first") and rows["run 2"]["logs"].endswith("second")


def test_the_first_screen_names_the_baseline_of_each_comparison(reran):
    out, summary = reran
    [line] = [s for s in summary["findings"]["headline_sentences"] if s.startswith("Re-runs:")]
    assert "36 cells (model x task x item x epoch) were answered by 2 runs" in line
    assert re.search(r"baseline of every comparison.*latest successful answer of each cell.*run 2", line), line
    page = (out / "report.html").read_text()
    headline = page[page.index("<h2 id='headline'>"):page.index("<h2 id='findings'>")]
    assert "Re-runs:" in headline and "<table class='reruns'>" in headline
    for label in ("run 1", "run 2", "baseline", "pooled"):
        assert f"<td>{label}" in headline
    md = (out / "report.md").read_text()
    assert "Re-runs:" in md.split("## Findings")[0]


def test_a_single_run_has_no_robustness_rows(tmp_path):
    _run(tmp_path / "logs", "A")
    out = tmp_path / "analysis"
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(out), "--bootstrap", "100", "--sign-flip-draws", "100"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert "reruns" not in summary["findings"]["headline"]
    assert not [s for s in summary["findings"]["headline_sentences"] if s.startswith("Re-runs:")]
