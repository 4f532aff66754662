"""The audit task end to end on mockllm: registry, prompts identical to the paper's, PCT scores."""

from __future__ import annotations

import json
from importlib.metadata import entry_points

import pytest
from inspect_ai import eval as inspect_eval
from support import is_nan, output, scripted_model, task_metrics

from political_sycophancy import InputError, audit_tasks, load_instrument
from political_sycophancy.audit import audit
from political_sycophancy.core.conditions import PHASE2
from political_sycophancy.core.inspect_compat import registry_lookup


def test_entry_point_registers_tasks_and_provider():
    eps = [ep for ep in entry_points(group="inspect_ai") if ep.name == "political_sycophancy"]
    assert eps and eps[0].value == "political_sycophancy._registry"
    eps[0].load()
    assert registry_lookup("task", "political_sycophancy/audit") is not None
    assert registry_lookup("task", "political_sycophancy/audit_C3R") is not None
    assert registry_lookup("modelapi", "political_sycophancy/gguf") is not None


def test_prompts_equal_the_papers_for_all_six_conditions(reference_dir, tmp_path):
    pool = json.loads((reference_dir / "phase2_pool.json").read_text())
    expected = {(r["condition"], r["question_id"]): r["prompt"] for r in pool if r["source"] == "pct"}
    assert len(expected) == 62 * 6
    sent: list[str] = []
    logs = inspect_eval(
        audit_tasks("pct", "all"),
        model=scripted_model(lambda _: "B", calls=sent),
        log_dir=str(tmp_path),
        display="none",
    )
    seen = {}
    for log in logs:
        for sample in log.samples:
            seen[(sample.metadata["condition"], sample.id)] = sample.messages[0].text
    assert set(seen) == set(expected)
    mismatches = [k for k in expected if seen[k] != expected[k]]
    assert mismatches == []
    assert sorted(sent) == sorted(expected.values())


def answer_by_direction(prompt: str) -> str:
    """Strongly agree with right-coded items, strongly disagree with left-coded ones,
    "C" on fillers, and refuse two items."""
    items = {i.text: i for i in load_instrument("pct")}
    statement = prompt.split('"')[1]
    item = items[statement]
    if item.id in ("p1_02", "p2_01"):
        return "As an AI, I don't have personal opinions, so I can't choose A, B, C or D."
    return {1: "A", -1: "**D**", 0: "Answer: C"}[item.direction]


def test_pct_scores_on_scripted_answers(tmp_path):
    [log] = inspect_eval(audit(condition="CA"), model=scripted_model(answer_by_direction), log_dir=str(tmp_path), display="none")
    metrics = task_metrics(log)
    # 62 items; p1_02 (right, social) and p2_01 (left, economic) refused.
    # Answered: 35 right-coded x (+2) + 19 left-coded x (-1 x -2 = +2) + 6 fillers x 0 = 108 over 60.
    assert metrics["ideology/mean"] == pytest.approx(108 / 60)
    assert metrics["answered/mean"] == pytest.approx(60 / 62)
    assert metrics["refused/mean"] == pytest.approx(2 / 62)
    assert metrics["ideology/stderr"] > 0 and metrics["answered/stderr"] > 0
    # economic: 12 right + 10 left -> 21 answered, all +2; social: 25 right + 10 left -> 34 answered, all +2.
    assert metrics["ideology_economic/mean"] == pytest.approx(2.0)  # per-axis keys, no package prefix (issue 25)
    assert metrics["ideology_social/mean"] == pytest.approx(2.0)
    assert metrics["acquiescence/mean"] == pytest.approx(16 / 62)
    sample = next(s for s in log.samples if s.id == "p1_02")
    assert sample.metadata["condition"] == "CA" and sample.metadata["direction"] == 1 and sample.metadata["axis"] == "social"
    score = sample.scores["pct_score"]
    assert score.metadata["status"] == "refusal" and score.answer is None
    assert score.value["answered"] == 0.0 and score.value["refused"] == 1.0 and is_nan(score.value["ideology"])


def test_epochs_and_logprob_mode_on_mock(tmp_path):
    from inspect_ai.model import Logprob, Logprobs, TopLogprob

    lp = Logprobs(content=[Logprob(token="B", logprob=-0.5, top_logprobs=[
        TopLogprob(token="B", logprob=-0.5), TopLogprob(token=" B", logprob=-2.0),
        TopLogprob(token="A", logprob=-1.5), TopLogprob(token="I", logprob=-3.0)])])
    [log] = inspect_eval(
        audit(condition="N", answer="logprobs"), epochs=2,
        model=scripted_model(lambda _: output("B", logprobs=lp)),
        log_dir=str(tmp_path), display="none", limit=3,
    )
    s = log.samples[0]
    probs = s.scores["pct_score"].metadata["probs"]
    import math
    pb, pa = math.exp(-0.5) + math.exp(-2.0), math.exp(-1.5)
    assert probs == pytest.approx([pa / (pa + pb), pb / (pa + pb), 0, 0])
    assert s.scores["pct_score"].metadata["covered_mass"] == pytest.approx(pa + pb)
    assert len(log.samples) == 6  # 3 items x 2 epochs


def test_bad_task_arguments_fail_before_any_model_call():
    with pytest.raises(InputError, match="one audit task runs one condition"):
        audit(condition="all")
    with pytest.raises(InputError, match="names 2 conditions.*audit_N"):
        audit(condition=["C3L", "C3R"])
    with pytest.raises(InputError, match="unknown condition"):
        audit(condition="C7")
    with pytest.raises(InputError, match="answer must be one of"):
        audit(answer="probabilities")


def test_condition_list_helper():
    assert [t.metadata["condition"] for t in audit_tasks("pct", "all")] == list(PHASE2)


def test_condition_tasks_run_one_task_per_condition(tmp_path):
    from political_sycophancy.audit import CONDITION_TASKS

    tasks = [CONDITION_TASKS["N"](), CONDITION_TASKS["C3R"](answer="logprobs")]
    logs = inspect_eval(tasks, model=scripted_model(lambda _: "C"), log_dir=str(tmp_path), display="none", limit=2)
    # each task is named by the registry; its label (instrument, condition, answer mode) is metadata
    assert sorted((log.eval.metadata["condition"], log.eval.task, log.eval.metadata["task_label"]) for log in logs) == [
        ("C3R", "political_sycophancy/audit_C3R", "audit_pct_C3R_logprobs"), ("N", "political_sycophancy/audit_N", "audit_pct_N")]
    assert all(len(log.samples) == 2 for log in logs)
