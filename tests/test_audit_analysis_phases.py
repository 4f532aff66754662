"""A run of the paper's design keeps Phase 1 apart from the later phases in the analysis."""

from __future__ import annotations

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import task_with
from support import scripted_model

from political_sycophancy.audit import audit
from political_sycophancy.audit.phase1 import phase1_section
from political_sycophancy.logs.frame import load_frame
from political_sycophancy.shared.cells import cells_of


def test_phase1_and_phase2_n_answers_are_not_pooled(tmp_path):
    log_dir = tmp_path / "logs"
    p1 = task_with(audit(condition="N"), name="phase1_audit_pct_N", metadata={**audit(condition="N").metadata, "phase": "phase1"})
    p2 = task_with(audit(condition="N"), name="phase2_audit_pct_N", metadata={**audit(condition="N").metadata, "phase": "phase2"})
    inspect_eval(p1, model=scripted_model(lambda _: "A"), log_dir=str(log_dir), display="none", limit=3)
    inspect_eval(p2, model=scripted_model(lambda _: "D"), log_dir=str(log_dir), display="none", limit=3)
    frame = load_frame(log_dir)
    assert sorted(frame["phase"].unique()) == ["phase1", "phase2"]
    cells = cells_of(frame).reset_index()
    # p1_01 is left-coded (direction -1): "D" (strongly disagree) scores +2; pooled with "A" it would be 0.
    assert cells.loc[cells["item_id"] == "p1_01", "ideology"].tolist() == [pytest.approx(2.0)]
    section = phase1_section(frame, tmp_path)
    summary = section.tables["phase1_summary"]
    assert summary["mean_ideology"].tolist() == pytest.approx([(-2 + 2 - 2) / 3])


def test_relative_log_dir(tmp_path, monkeypatch):
    """The main job passes a relative log directory (logs/pct-smollm2)."""
    inspect_eval(audit(condition="N"), model=scripted_model(lambda _: "B"), log_dir=str(tmp_path / "logs" / "run"), display="none", limit=2)
    monkeypatch.chdir(tmp_path)
    frame = load_frame("logs/run")
    assert len(frame) == 2 and set(frame["status"]) == {"answered"}
