"""The audit measure: its Inspect tasks, loaded on first use so its parameter table imports without Inspect.

The audit measure: its Inspect tasks, loaded on first use so that `audit.params` (the
parameter table the command-line parser is built from) imports without Inspect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.declare import Measure
from .summary import NODES

__all__ = ["CONDITION_TASKS", "MEASURE", "audit", "audit_tasks"]

MEASURE = Measure(
    name="audit",
    kinds=("audit",),
    registers=("political_sycophancy.audit.task", "political_sycophancy.shared.scorers"),
    sections=(
        "political_sycophancy.audit.items",
        "political_sycophancy.audit.phase1",
        "political_sycophancy.audit.conditions",
        "political_sycophancy.audit.baseline_shifts",
        "political_sycophancy.audit.sycophancy",
        "political_sycophancy.audit.permutation_tests",
        "political_sycophancy.audit.mixed_model",
        "political_sycophancy.audit.stability",
        "political_sycophancy.audit.power",
    ),
    exports=(("audit_tasks", "political_sycophancy.audit.task"),),
    imports=("political_sycophancy.audit.importing",),
    commands=("political_sycophancy.audit.command",),
    sample_keys=(("audit", ("item_id", "options")),),
    summary=NODES,
    report=("political_sycophancy.audit.report",),
)

if TYPE_CHECKING:
    from .task import CONDITION_TASKS, audit, audit_tasks


def __getattr__(name: str) -> Any:
    """Load `audit.task` on first use of a task name, so `--help` needs no inspect_ai.

    The task names load `audit.task` (and with it inspect_ai) on first use, so that the CLI
    can read `designs.paper` constants for its `--help` without them.
    """
    if name in __all__ and name != "MEASURE":
        from . import task

        return getattr(task, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
