"""How a measure declares itself, once, in its folder's `__init__.py` (`MEASURE = Measure(...)`).

The declaration names the modules that hold what the rest of the package needs from the
measure, so that nothing outside the folder names the measure but the one list of
measures (`political_sycophancy.catalog`): Inspect's entry point imports `registers`
(tasks, solvers, scorers), the report lays out the `@section` builders of `sections`,
`kinds` are the task metadata values (`political_sycophancy: <kind>`) its logs carry,
`exports` are the names `political_sycophancy` offers at its top level
(`from political_sycophancy import sway_score`), and `imports` the modules whose
`FILE_KINDS` (`shared.import_scoring.FileKind`) are the response files of its tasks that
`import-responses` tells by their columns, and `commands` the modules of its own
`political-sycophancy` commands (each with `add_parser(subparsers)`, as the CLI's own),
`judges` the modules whose `JUDGES` (`shared.judging.JudgeKind`) are the graders
`validate-judge` checks against human labels;
`summary_nodes` and `model_nodes` are the keys its report sections add to summary.json
at the top level and under each model, beyond the shared nodes of `shared.summary_nodes`
(the summary contract, `core.summary_contract`);
`sample_keys` the sample metadata every sample of a log of each of its kinds carries
((kind, keys) pairs): the analysis leaves out, counted and named, a sample of a log that
claims the kind without them (`logs.values`), as it does a score that is not the package's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Measure:
    """One measure: its name, the log kinds its tasks write, the modules that register its
    Inspect objects and that hold its report sections, its public names ((name, module)
    pairs, loaded on first use), the modules of its importable file kinds, of its commands,
    of its graders `validate-judge` checks, and its card (a README beside it)."""

    name: str
    kinds: tuple[str, ...]
    registers: tuple[str, ...]
    sections: tuple[str, ...]
    exports: tuple[tuple[str, str], ...] = ()
    card: str = "README.md"
    imports: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    judges: tuple[str, ...] = ()
    summary_nodes: tuple[str, ...] = ()
    model_nodes: tuple[str, ...] = ()
    sample_keys: tuple[tuple[str, tuple[str, ...]], ...] = ()


# The task metadata key of a task's label: what the analysis, the design table and the
# eval-set guards call one task of a run (`audit_pct_C3R_logprobs`, `phase2_audit_atp_N`).
# The task's own name is its registry name (`audit`), as Inspect names tasks; the label
# carries the instrument, condition and answer mode the task arguments hold.
TASK_LABEL = "task_label"


def task_label(name: Any, metadata: Mapping[str, Any] | None, registry_name: Any = None) -> str:
    """A task's label: its name when its user renamed it (`task_with(name=...)`: the name
    then differs from the registry name), else the label its factory put in the metadata,
    else its name (logs written before the label existed named the task by its label)."""
    label = (metadata or {}).get(TASK_LABEL)
    if not isinstance(label, str) or not label or (registry_name and str(name) != str(registry_name)):
        return str(name)
    return label


def label_of_task(task: Any) -> str:
    """`task_label` of an Inspect `Task` before it runs (its registry name from its
    registry info; a task built without the registry has none)."""
    from inspect_ai.util import registry_info

    try:
        registry_name = registry_info(task).name
    except ValueError:
        registry_name = None
    return task_label(task.name, task.metadata, registry_name)
