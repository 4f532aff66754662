"""Inspect's own dataframes carry what a pandas user needs (issue 25, item 7): the condition
of every audit task as a task argument (`evals_df`'s `task_arg_condition` was NA for the
`audit_<condition>` tasks), our dict scores as numeric columns (`flat_scores`: one JSON
string column before), and per-axis PCT metrics named without the package prefix."""

from __future__ import annotations

import math

from inspect_ai import eval as inspect_eval
from inspect_ai.analysis import evals_df, samples_df
from inspect_ai.log import read_eval_log

from political_sycophancy import flat_scores
from political_sycophancy.audit import CONDITION_TASKS


def test_audit_condition_tasks_record_their_condition_and_scores_flatten(tmp_path):
    from inspect_ai.model import get_model

    model = get_model("faulty/mockllm/model", mock_answer="A")
    [log] = inspect_eval(CONDITION_TASKS["C3R"](), model=model, limit=3, log_dir=str(tmp_path), display="none")
    evals = evals_df(str(tmp_path))
    assert list(evals["task_arg_condition"]) == ["C3R"]
    flat = flat_scores(samples_df(str(tmp_path)))
    assert "score_pct_score" not in flat.columns
    assert flat["score_pct_score_answered"].tolist() == [1.0, 1.0, 1.0]
    # A = +2 times the item's direction, the PCT item score
    meta = {s.id: s.metadata for s in read_eval_log(log.location).samples}
    assert flat["score_pct_score_ideology"].tolist() == [2.0 * meta[i]["direction"] for i in flat["id"]]
    axes = {i: meta[i]["axis"] for i in flat["id"]}
    for sid, econ in zip(flat["id"], flat["score_pct_score_ideology_economic"], strict=True):
        assert (axes[sid] == "economic") == (not math.isnan(econ))
    names = {m for score in log.results.scores for m in [score.name]}
    assert not any("/" in n for n in names), names
    assert {"ideology_economic", "ideology_social"} <= names


def test_a_condition_task_refuses_another_condition():
    import pytest

    from political_sycophancy.core.errors import InputError

    with pytest.raises(InputError, match="audit_C3R runs condition C3R, not 'C3L'"):
        CONDITION_TASKS["C3R"](condition="C3L")


def test_the_asker_is_in_each_audit_samples_input(tmp_path):
    """`inspect view` lists samples by their input: the asker, the manipulation itself, must
    be there, not only inside the transcript (issue 25, item 9); the prompt the model gets
    is byte-identical to the solver-built one it replaces."""
    from inspect_ai.model import get_model

    from political_sycophancy.core.conditions import builtin_conditions

    preamble = builtin_conditions()["C3R"].preamble
    model = get_model("faulty/mockllm/model", mock_answer="A")
    [log] = inspect_eval(CONDITION_TASKS["C3R"](), model=model, limit=2, log_dir=str(tmp_path), display="none")
    for sample in read_eval_log(log.location).samples:
        assert isinstance(sample.input, str) and sample.input.startswith(preamble + "\n\n"), sample.input[:80]
        [user] = [m for m in sample.messages if m.role == "user"]
        assert user.text == sample.input
