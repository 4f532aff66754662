"""The paper's design as data: every phase's tasks, cells and calls at the paper's sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.items import write_atp, write_typology

from political_sycophancy.core.declare import label_of_task
from political_sycophancy.core.errors import InputError
from political_sycophancy.designs.paper import PHASES, estimate, find_item_files, paper_design, paper_tasks


@pytest.fixture(scope="module")
def paper_items(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("items")
    write_atp(d / "atp.csv", 540)
    write_typology(d / "typology.csv")
    return d


@pytest.fixture(scope="module")
def planned(paper_items):
    return paper_design(paper_items)


def test_paper_sizes_per_model(planned):
    est = {e.phase: e for e in estimate(planned)}
    assert list(est) == list(PHASES)
    # Phase 1: every item under N (62 built-in PCT + 25 Typology + 540 ATP).
    assert (est["phase1"].tasks, est["phase1"].calls) == (3, 62 + 25 + 540)
    # Phase 2: 587 items x 6 conditions, one response each (the paper's 3,522 prompts).
    assert (est["phase2"].tasks, est["phase2"].cells, est["phase2"].calls) == (18, 3522, 3522)
    # Replicates: 3 extra T=1 epochs of the focal ATP grid (4,500 = 27,000 / 6 models) and a
    # T=0 run (1,500 = 9,000 / 6).
    assert (est["replicates"].cells, est["replicates"].calls) == (1500, 4500 + 1500)
    # Probes: 30 items x 6 conditions x 2 reps (2,160 / 6) + perception 30 x 2.
    assert est["probes"].calls == 360 + 60
    # Personas: 30 items x 3 personas x 2 reps (1,080 / 6).
    assert est["personas"].calls == 180
    assert all(e.input_tokens > e.calls * 8 and e.output_tokens > 0 for e in est.values())


def test_tasks_are_unique_and_labelled(planned):
    names = [p.name for p in planned]
    assert len(names) == len(set(names)) == 3 + 18 + 3 + 7 + 3
    for p in planned:
        assert p.task.metadata["phase"] == p.phase and p.task.metadata["design"] == "paper"
    by_name = {p.name: p for p in planned}
    focal = by_name["phase2_audit_atp_C3R"]
    assert (focal.epochs, focal.task.config.temperature, focal.calls_by_phase) == (4, 1.0, {"phase2": 500, "replicates": 1500})
    assert by_name["phase2_audit_atp_CA"].epochs == 1
    greedy = by_name["t0_audit_atp_N"]
    assert greedy.task.config.temperature == 0.0 and greedy.samples == 500
    assert by_name["personas_audit_atp_P_RET"].task.metadata["pool"] == "top30"
    # The probes and personas run on the same 30 items, the most partisan of the Phase 2 pool.
    probe_ids = {s.id for s in by_name["probes_expected_answer_N"].task.dataset}
    persona_ids = {s.id for s in by_name["personas_audit_atp_P_ORD"].task.dataset}
    phase2_ids = {s.id for s in by_name["phase2_audit_atp_N"].task.dataset}
    assert probe_ids == persona_ids and len(probe_ids) == 30 and probe_ids <= phase2_ids


def test_scaled_design_and_phase_subsets(paper_items):
    planned = paper_design(paper_items, phases=["phase2", "probes"], phase2_pool="top20", probe_pool="top5", replicates=2, greedy=False)
    est = {e.phase: e for e in estimate(planned)}
    # The replicates phase was not asked for: the focal tasks run one epoch, no T=0 run.
    assert set(est) == {"phase2", "probes"}
    assert est["phase2"].calls == (20 + 62 + 25) * 6
    only_reps = {e.phase: e for e in estimate(paper_design(paper_items, phases=["replicates"], phase2_pool="top10", replicates=3))}
    assert only_reps["replicates"].calls == 3 * 10 * 3 + 3 * 10
    tasks = paper_tasks(paper_items, phases=["personas"], probe_pool="top3")
    assert [label_of_task(t) for t in tasks] == ["personas_audit_atp_P_ORD", "personas_audit_atp_P_STU", "personas_audit_atp_P_RET"]


def test_logprob_design_estimates_one_output_token_per_audit_call(paper_items):
    letter = {e.phase: e for e in estimate(paper_design(paper_items, phases=["phase1"]))}
    logprobs = {e.phase: e for e in estimate(paper_design(paper_items, phases=["phase1"], answer="logprobs"))}
    assert letter["phase1"].output_tokens == 3 * letter["phase1"].calls
    assert logprobs["phase1"].output_tokens == logprobs["phase1"].calls


def test_bad_design_input(tmp_path, paper_items):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="need ATP items"):
        paper_design(empty)
    # Phase 1 alone runs on the built-in PCT.
    assert [p.name for p in paper_design(empty, phases=["phase1"])] == ["phase1_audit_pct_N"]
    with pytest.raises(InputError, match="unknown phase"):
        paper_design(paper_items, phases=["phase3"])
    with pytest.raises(InputError, match="item directory not found"):
        find_item_files(tmp_path / "missing")
    with pytest.raises(InputError, match="too small for the expected-answer probe"):
        paper_design(paper_items, phases=["probes"], probe_pool="top600")
