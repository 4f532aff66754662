"""The grader a measure's scorer calls (a stance judge, a helpfulness grader).

The task's `grader` argument, else Inspect's `grader` model role (`--model-role
grader=<model>`), and never the model under test unless the user allows it; checked when the
task is built, so that a missing or self-grading grader stops `inspect eval` in one line
before any sample runs.
"""

from __future__ import annotations

from inspect_ai.model import Model, get_model, model_roles

from ..core.errors import InputError
from ..core.inspect_compat import resolving_tasks_for_eval

GRADER_ROLE = "grader"


def resolve_grader(
    evaluated: str, grader: str | Model | None = None, allow_self_grading: bool = False, *, who: str = "the grader"
) -> Model:
    """The grader: `grader`, else the `grader` model role, else (only when self-grading is allowed) the evaluated model.

    Refuses to let a model judge its own answers; `who` names the grader in the messages.
    """
    if grader is not None:
        model = get_model(grader)
    else:
        role = model_roles().get(GRADER_ROLE)
        if role is not None:
            model = role[0] if isinstance(role, list) else role
        elif allow_self_grading:
            model = get_model()
        else:
            raise ValueError(
                f"{who} needs a grader model: pass -T grader=<model> or --model-role grader=<model> "
                "(or -T allow_self_grading=true to let the evaluated model judge its own answers)"
            )
    if str(model) == str(evaluated) and not allow_self_grading:
        raise ValueError(
            f"the grader {model} is the model being evaluated; a model never judges its own answers "
            "unless you pass -T allow_self_grading=true"
        )
    return model


def check_grader_at_start(
    grader: str | Model | None = None, allow_self_grading: bool = False, *, who: str = "the grader"
) -> None:
    """Check the grader when the task is built, so a missing or self-grading grader stops the run in one line.

    The grader check of `resolve_grader` when the task is built, so that a missing or
    self-grading grader stops `inspect eval` in one line before any sample runs (else every
    sample errors). Inspect makes the model under test active before its loader builds the
    tasks; a task built in Python before `eval` (when an earlier eval may have left its
    model active) cannot know that model, so there the check waits for the samples.
    """
    if not resolving_tasks_for_eval():
        return
    try:
        evaluated = get_model()
    except Exception:  # noqa: BLE001 (no active model yet: the samples check)
        return
    try:
        resolve_grader(str(evaluated), grader, allow_self_grading, who=who)
    except ValueError as ex:
        raise InputError(str(ex)) from None
