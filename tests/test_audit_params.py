"""One audit parameter definition: the task, the per-condition tasks, `audit_tasks`, the
`audit` command, `plan` and `paper_design` take the same parameters with the same defaults,
and `audit` and `plan` share one definition of Inspect's eval options."""

from __future__ import annotations

import csv
import inspect
import json
from pathlib import Path

import pytest

from political_sycophancy.audit import CONDITION_TASKS, audit, audit_tasks
from political_sycophancy.audit.params import AUDIT_PARAMS, DESIGN_PARAMS, PARAMS, check_signature
from political_sycophancy.cli import build_parser
from political_sycophancy.core.answers import ANSWER_MODES
from political_sycophancy.core.declare import label_of_task
from political_sycophancy.core.errors import InputError
from political_sycophancy.designs.paper import paper_design

# The eval options both commands pass to Inspect's eval_set.
SHARED_EVAL_OPTIONS = ("--model", "--model-arg", "--seed", "--limit", "--max-connections", "--max-tasks",
                       "--fail-on-error", "--retry-on-error", "--retry-attempts")


def defaults(params) -> dict:
    return {p.name: p.default for p in params}


def signature_defaults(fn) -> dict:
    return {p.name: p.default for p in inspect.signature(fn).parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD or p.kind is p.KEYWORD_ONLY}


def subparser(command: str):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices[command]


def parsed(argv: list[str]) -> dict:
    return vars(build_parser().parse_args(argv))


def test_task_signature_is_the_table():
    check_signature(audit)
    assert list(signature_defaults(audit).items()) == list(defaults(AUDIT_PARAMS).items())

    def other(instrument: str = "pct", condition: str = "N"):
        pass

    with pytest.raises(TypeError, match="differ from the audit parameter table"):
        check_signature(other)


def test_condition_tasks_take_every_parameter_with_their_condition_as_default():
    """The condition stays a parameter (so Inspect records it among the task args), its
    default the task's own condition (issue 25, item 7)."""
    for cid, fixed in CONDITION_TASKS.items():
        assert signature_defaults(fixed) == {**defaults(AUDIT_PARAMS), "condition": cid}


def test_answer_choices_are_the_answer_modes():
    assert PARAMS["answer"].choices == ANSWER_MODES
    with pytest.raises(InputError, match="answer must be one of letter, logprobs"):
        audit(answer="probabilities")
    with pytest.raises(InputError, match="non_ordinal must be one of keep, drop"):
        audit(instrument="atp", non_ordinal="sometimes")


def test_cli_audit_has_every_parameter_with_the_tasks_default():
    args = parsed(["audit", "--model", "mockllm/model"])
    assert args["condition_spec"] == "all"
    assert {p.name: args[p.name] for p in AUDIT_PARAMS if p.name != "condition"} == {
        k: v for k, v in defaults(AUDIT_PARAMS).items() if k != "condition"
    }
    args = parsed(["audit", "--model", "m", "--top-logprobs", "5", "--non-ordinal", "drop", "--conditions-file", "c.yaml",
                   "--answer", "logprobs", "--instrument", "atp", "--items", "a.csv", "--pool", "top3"])
    assert {p.name: args[p.name] for p in AUDIT_PARAMS if p.name != "condition"} == {
        "instrument": "atp", "items": "a.csv", "conditions": "c.yaml", "pool": "top3", "answer": "logprobs",
        "top_logprobs": 5, "non_ordinal": "drop",
    }


def test_plan_and_paper_design_have_the_design_parameters():
    args = parsed(["plan", "--model", "m", "--items", "d", "--log-dir", "l"])
    assert {p.name: args[p.name] for p in DESIGN_PARAMS} == defaults(DESIGN_PARAMS)
    design = signature_defaults(paper_design)
    assert {name: design[name] for name in defaults(DESIGN_PARAMS)} == defaults(DESIGN_PARAMS)
    # The per-cell parameters are the design's to choose.
    assert not {p.name for p in AUDIT_PARAMS if p.per_cell} & set(design)
    assert {p.name for p in DESIGN_PARAMS} == {"conditions", "answer", "top_logprobs", "non_ordinal"}


def test_eval_options_are_one_definition_on_audit_and_plan():
    audit_p, plan_p = subparser("audit"), subparser("plan")

    def option(p, flag):
        return next(a for a in p._actions if flag in a.option_strings)

    for flag in SHARED_EVAL_OPTIONS:
        a, b = option(audit_p, flag), option(plan_p, flag)
        assert (a.option_strings, a.dest, a.default, a.type, a.help) == (b.option_strings, b.dest, b.default, b.type, b.help), flag
    for argv in (["audit", "--model", "m"], ["plan", "--model", "m", "--items", "d", "--log-dir", "l"]):
        args = parsed([*argv, "--retry-on-error", "2", "--retry-attempts", "3", "--fail-on-error", "0.1", "--max-tasks", "2"])
        assert (args["retry_on_error"], args["retry_attempts"], args["fail_on_error"], args["max_tasks"]) == (2, 3, 0.1, 2)


def test_audit_tasks_forward_every_parameter():
    tasks = audit_tasks(conditions="N,C3R", answer="logprobs", top_logprobs=5, pool="all")
    assert [label_of_task(t) for t in tasks] == ["audit_pct_N_logprobs", "audit_pct_C3R_logprobs"]
    assert {t.name for t in tasks} == {"political_sycophancy/audit"}


def _atp(path: Path, n: int = 4) -> Path:
    options = ["A great deal", "Some", "Not at all"]
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["id", "text", "options", "dist_dem", "dist_rep", "partisan_gap"])
        w.writeheader()
        for i in range(n):
            w.writerow({"id": f"atp_{i:02d}", "text": f"Confidence in leader {i}?", "options": json.dumps(options),
                        "dist_dem": json.dumps([0.6, 0.3, 0.1]), "dist_rep": json.dumps([0.1, 0.3, 0.6]), "partisan_gap": 0.1 * (n - i)})
    return path


def test_design_parameters_reach_every_audit_cell(tmp_path):
    _atp(tmp_path / "atp.csv")
    planned = paper_design(tmp_path, phases=["phase1", "phase2"], phase2_pool="top2", answer="logprobs", top_logprobs=7, non_ordinal="drop")
    audits = [p.task for p in planned if p.kind == "audit"]
    assert audits and all(t.metadata["answer_mode"] == "logprobs" for t in audits)
    # PCT cells are not WD-scored, so non_ordinal goes to the ATP cells only (else the task refuses it).
    assert {t.metadata["instrument"] for t in audits} >= {"pct", "atp"}
