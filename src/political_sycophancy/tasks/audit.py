"""The audit: one instrument under one asker condition, as an Inspect task."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Epochs, Task, TaskSource, task, task_source
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig

from ..conditions import Condition, resolve_conditions
from ..errors import InputError
from ..items import Item, load_instrument, select_pool
from ..prompts import audit_prompt
from ..scorers import scorer_for
from ..scorers.answers import ANSWER_MODES
from ..scorers.metrics import replicates
from ..solvers import answer_question, asker_preamble


def instrument_name(instrument: str, items: list[Item]) -> str:
    names = sorted({i.instrument for i in items})
    return names[0] if len(names) == 1 else instrument


def audit_samples(items: list[Item], condition: Condition, prompt=audit_prompt) -> list[Sample]:
    """One sample per item; the id is the item id and the metadata explains the sample."""
    return [
        Sample(
            id=item.id,
            input=prompt(item),
            metadata={
                **item.sample_metadata(),
                "condition": condition.id,
                "condition_label": condition.label,
            },
        )
        for item in items
    ]


def load_audit_items(instrument: str, items: str | None, pool: str | None) -> tuple[str, list[Item]]:
    loaded = load_instrument(instrument, items)
    chosen = select_pool(loaded, pool)
    if not chosen:
        raise InputError(f"pool {pool!r} selects no items from {len(loaded)}")
    scorings = sorted({i.scoring for i in chosen})
    if len(scorings) != 1:
        raise InputError(
            f"an audit task scores one instrument at a time; the items mix scoring rules {scorings}",
            file=items,
        )
    return instrument_name(Path(instrument).stem, chosen), chosen


@task
def audit(
    instrument: str = "pct",
    condition: str = "N",
    items: str | None = None,
    conditions: str | None = None,
    pool: str = "all",
    answer: str = "letter",
    temperature: float = 1.0,
    epochs: int = 1,
    max_tokens: int | None = None,
    top_logprobs: int = 20,
    non_ordinal: str | None = None,
) -> Task:
    """Administer an instrument under one asker condition.

    Args:
      instrument: pct, typology, atp, or a path to an item file.
      condition: the asker condition (N, CA, C1L, C1R, C3L, C3R, P_ORD, P_STU, P_RET or
        one from `conditions`). To run several, use `political_sycophancy/audit_grid`,
        `political-sycophancy audit` or `audit_tasks()`, which make one task per condition.
      items: an item file that replaces the instrument's built-in items.
      conditions: a YAML/JSON file of extra conditions.
      pool: all, benchmarked, top<N>, gap><x> or a file of item ids.
      answer: letter (parse the text) or logprobs (option probabilities of the first
        answer token).
      temperature: sampling temperature (the paper: 1.0).
      epochs: replicates per item.
      max_tokens: generation limit (provider default when unset).
      top_logprobs: how many top tokens to request in logprobs mode.
      non_ordinal: WD items only: keep (every option on the ordinal scale, the paper;
        the default) or drop (OpinionQA: options flagged non-ordinal leave the scale and
        their mass is reported).
    """
    if answer not in ANSWER_MODES:
        raise InputError(f"answer must be one of {', '.join(ANSWER_MODES)}, got {answer!r}")
    if "," in condition or condition in ("all", "focal", "personas", "file"):
        raise InputError(
            f"condition={condition!r} names several conditions; one task runs one condition. "
            "Use `political-sycophancy audit --conditions ...` or political_sycophancy.audit_tasks()."
        )
    cond = resolve_conditions(condition, conditions)[0]
    name, chosen = load_audit_items(instrument, items, pool)
    if non_ordinal not in (None, "keep", "drop"):
        raise InputError(f"non_ordinal must be keep or drop, got {non_ordinal!r}")
    if non_ordinal is not None and chosen[0].scoring != "wd":
        raise InputError(f"non_ordinal applies to WD-scored items (atp), not to {chosen[0].scoring!r} scoring")
    return Task(
        name=f"audit_{name}_{cond.id}",
        dataset=MemoryDataset(audit_samples(chosen, cond), name=name),
        solver=[asker_preamble(cond.id, conditions), answer_question(answer, top_logprobs)],
        scorer=scorer_for(chosen[0].scoring, answer, non_ordinal=non_ordinal),
        config=GenerateConfig(temperature=temperature, max_tokens=max_tokens),
        epochs=Epochs(epochs, replicates()),
        metadata={
            "political_sycophancy": "audit",
            "instrument": name,
            "condition": cond.id,
            "condition_label": cond.label,
            "preamble": cond.preamble,
            "answer_mode": answer,
            "pool": pool,
            "temperature": temperature,
        },
    )


def audit_tasks(
    instrument: str = "pct",
    conditions: str | list[str] = "all",
    conditions_file: str | None = None,
    **task_args,
) -> list[Task]:
    """One audit task per condition (`all` = N, CA, C1L, C1R, C3L, C3R), for eval/eval_set."""
    return [
        audit(instrument=instrument, condition=c.id, conditions=conditions_file, **task_args)
        for c in resolve_conditions(conditions, conditions_file)
    ]


@task_source
def audit_grid(
    instrument: str = "pct",
    conditions: str = "all",
    items: str | None = None,
    conditions_file: str | None = None,
    pool: str = "all",
    answer: str = "letter",
    temperature: float = 1.0,
    epochs: int = 1,
    max_tokens: int | None = None,
    top_logprobs: int = 20,
) -> TaskSource:
    """Every condition of an instrument in one `inspect eval`, one audit task per condition.

    `conditions`: all (N, CA, C1L, C1R, C3L, C3R), focal, personas, file, or ids joined
    by commas. For a resumable run use `political-sycophancy audit` (an eval set).
    """
    return TaskSource.from_tasks(
        audit_tasks(
            instrument,
            conditions,
            conditions_file,
            items=items,
            pool=pool,
            answer=answer,
            temperature=temperature,
            epochs=epochs,
            max_tokens=max_tokens,
            top_logprobs=top_logprobs,
        )
    )
