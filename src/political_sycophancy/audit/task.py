"""The audit: one instrument under one asker condition, as an Inspect task.

Generation settings are Inspect's: the task sets the paper's defaults on
`Task(config=GenerateConfig(temperature=1.0))` and `--temperature`, `--max-tokens`,
`--epochs`, `--seed` override them; the log records what was used. Several conditions are
several tasks: `inspect eval-set political_sycophancy/audit_N political_sycophancy/audit_C3R ...`
(one registered task per built-in condition), `political-sycophancy audit --conditions ...`,
or `audit_tasks()` from Python.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig

from ..core.conditions import Condition, builtin_conditions, resolve_conditions
from ..core.declare import TASK_LABEL
from ..core.errors import InputError
from ..core.items import Item
from ..core.prompts import audit_prompt
from ..core.solvers import answer_question, with_preamble
from ..shared.scorers import scorer_for
from ..shared.tasks import load_task_items, task_version
from .params import PARAMS, check_signature

# The first seed's decoding: provider defaults at temperature 1 (overridden by --temperature).
DEFAULT_CONFIG = GenerateConfig(temperature=1.0)
MULTI_CONDITION_HELP = (
    "one audit task runs one condition; run several as one resumable eval set with "
    "`inspect eval-set political_sycophancy/audit_N political_sycophancy/audit_C3R ...` "
    "(one task per built-in condition) or `political-sycophancy audit --conditions {spec}`"
)


def audit_samples(
    items: list[Item], condition: Condition, prompt: Callable[[Item], str] = audit_prompt
) -> list[Sample]:
    """One sample per item; the id is the item id and the metadata explains the sample.

    The input holds the asker's preamble (what `asker_preamble` would prepend), so that
    Inspect's viewer lists each sample with its asker, the manipulation itself.
    """
    return [
        Sample(
            id=item.id,
            input=with_preamble(prompt(item), condition.preamble),
            metadata={
                **item.sample_metadata(),
                "condition": condition.id,
                "condition_label": condition.label,
            },
        )
        for item in items
    ]


def _one_condition(condition: Any, conditions: str | None) -> Condition:
    """The condition of one task.

    Several (a list from `-T condition=A,B`, a comma list or a group name) are refused with
    the ways to run them.
    """
    if isinstance(condition, (list, tuple)):
        spec = ",".join(str(c) for c in condition)
        raise InputError(
            f"condition={spec!r} names {len(condition)} conditions; " + MULTI_CONDITION_HELP.format(spec=spec)
        )
    if not isinstance(condition, str):
        raise InputError(f"condition must be a condition id, got {condition!r}")
    if "," in condition or condition in ("all", "focal", "personas", "file"):
        raise InputError(
            f"condition={condition!r} names several conditions; " + MULTI_CONDITION_HELP.format(spec=condition)
        )
    return resolve_conditions(condition, conditions)[0]


@task
def audit(
    instrument: str = "pct",
    condition: str = "N",
    items: str | None = None,
    conditions: str | None = None,
    pool: str = "all",
    answer: str = "letter",
    top_logprobs: int = 20,
    non_ordinal: str | None = None,
) -> Task:
    """Administer an instrument under one asker condition.

    Generation settings (temperature 1.0 by default, max tokens, seed) and epochs are
    Inspect's: set them with `--temperature`, `--max-tokens`, `--seed`, `--epochs`.
    The parameters are those of `params.AUDIT_PARAMS` (checked below), which every other
    way to run the audit (per-condition tasks, `audit_tasks`, the CLI, `plan`) is built from.

    Args:
      instrument: pct, typology, atp, or a path to an item file.
      condition: the asker condition (N, CA, C1L, C1R, C3L, C3R, P_ORD, P_STU, P_RET or
        one from `conditions`). One task runs one condition: for several use the
        registered `political_sycophancy/audit_<condition>` tasks with `inspect eval-set`,
        `political-sycophancy audit --conditions ...`, or `audit_tasks()`.
      items: an item file that replaces the instrument's built-in items.
      conditions: a YAML/JSON file of extra conditions.
      pool: all, benchmarked, top<N>, gap><x> or a file of item ids.
      answer: letter (parse the text) or logprobs (option probabilities of the first
        answer token); logprobs tasks are named `..._logprobs`.
      top_logprobs: how many top tokens to request in logprobs mode.
      non_ordinal: WD items only: keep (every option on the ordinal scale, the paper;
        the default) or drop (OpinionQA: options flagged non-ordinal leave the scale and
        their mass is reported).
    """
    PARAMS["answer"].check(answer)
    PARAMS["non_ordinal"].check(non_ordinal)
    if not isinstance(top_logprobs, int) or isinstance(top_logprobs, bool) or not 1 <= top_logprobs <= 20:
        raise InputError(f"top_logprobs must be a whole number from 1 to 20, got {top_logprobs!r}")
    cond = _one_condition(condition, conditions)
    name, chosen = load_task_items(instrument, items, pool)
    if non_ordinal is not None and chosen[0].scoring != "wd":
        raise InputError(f"non_ordinal applies to WD-scored items (atp), not to {chosen[0].scoring!r} scoring")
    samples = audit_samples(chosen, cond)
    return Task(
        dataset=MemoryDataset(samples, name=name),
        solver=[answer_question(answer, top_logprobs)],
        scorer=scorer_for(chosen[0].scoring, non_ordinal=non_ordinal),
        config=DEFAULT_CONFIG,
        version=task_version("political_sycophancy.audit", samples, cond),
        metadata={
            "political_sycophancy": "audit",
            TASK_LABEL: f"audit_{name}_{cond.id}" + ("_logprobs" if answer == "logprobs" else ""),
            "instrument": name,
            "condition": cond.id,
            "condition_label": cond.label,
            "preamble": cond.preamble,
            "answer_mode": answer,
            "pool": pool,
        },
    )


check_signature(audit)


def audit_tasks(
    instrument: str = "pct",
    conditions: str | list[str] = "all",
    conditions_file: str | None = None,
    **task_args: Any,
) -> list[Task]:
    """One audit task per condition (`all` = N, CA, C1L, C1R, C3L, C3R), for eval/eval_set."""
    return [
        audit(instrument=instrument, condition=c.id, conditions=conditions_file, **task_args)
        for c in resolve_conditions(conditions, conditions_file)
    ]


def _condition_task(condition_id: str) -> Callable[..., Task]:
    """The audit task of one condition, named `political_sycophancy/audit_<id>`.

    The audit with its condition fixed, so several conditions run as one `inspect eval-set`
    (which takes tasks, not task sources); every other parameter is the audit's own (one
    parameter list). The condition stays a parameter (its default the task's condition) so
    that Inspect records it among the task's arguments, and its dataframes (`evals_df`'s
    `task_arg_condition`) carry it.
    """

    def fixed(condition: str = condition_id, **task_args: Any) -> Task:
        if condition != condition_id:
            raise InputError(
                f"audit_{condition_id} runs condition {condition_id}, not {condition!r}: "
                f"use political_sycophancy/audit_{condition} or political_sycophancy/audit -T condition={condition}"
            )
        return audit(condition=condition_id, **task_args)

    signature = inspect.signature(audit)
    fixed.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[
            p.replace(default=condition_id) if p.name == "condition" else p for p in signature.parameters.values()
        ]
    )
    fixed.__name__ = fixed.__qualname__ = f"audit_{condition_id}"
    fixed.__doc__ = f"The audit under condition {condition_id} (see `political_sycophancy/audit`)."
    return task(name=f"audit_{condition_id}")(fixed)


CONDITION_TASKS = {cid: _condition_task(cid) for cid in builtin_conditions()}
