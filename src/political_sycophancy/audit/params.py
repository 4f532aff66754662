"""The audit's task parameters, defined once.

The `audit` task keeps an explicit signature (Inspect reads it for `-T`), and every other
way to run the audit takes its parameters from this table: the per-condition tasks
(`audit_<id>`, the audit's signature without `condition`), `audit_tasks`, the
`political-sycophancy audit` command (one option per parameter) and `plan` / `paper_design`
(the parameters that are one value for a whole design; the others are chosen per cell).
`check_signature` (called when the task is defined) keeps the table and the signature equal.

This module imports nothing heavy, so the command-line parser can be built from it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from ..core.arguments import whole
from ..core.params import TaskParam

AUDIT_PARAMS: tuple[TaskParam, ...] = (
    TaskParam("instrument", "pct", "pct, typology, atp or an item file", per_cell=True),
    TaskParam("condition", "N", "the asker condition (one per task)", per_cell=True),
    TaskParam("items", None, "item file replacing the instrument's built-in items", per_cell=True),
    TaskParam("conditions", None, "YAML/JSON file of extra or replaced conditions", flag="--conditions-file"),
    TaskParam("pool", "all", "all, benchmarked, top<N>, gap><x> or a file of item ids", per_cell=True),
    # The answer modes of core.answers.ANSWER_MODES (tests/test_audit_params.py checks they are
    # equal); named here so the parser is built without importing Inspect.
    TaskParam(
        "answer",
        "letter",
        "how answers are read: letter (parse the text) or logprobs (first answer token)",
        choices=("letter", "logprobs"),
    ),
    TaskParam("top_logprobs", 20, "top tokens requested in logprobs mode (1-20)", type=whole(1, 20)),
    TaskParam(
        "non_ordinal",
        None,
        "WD items only: keep (the paper) or drop the options flagged non-ordinal",
        choices=("keep", "drop"),
    ),
)
PARAMS = MappingProxyType({p.name: p for p in AUDIT_PARAMS})
# One value for a whole design (plan / paper_design); the others are chosen per cell.
DESIGN_PARAMS = tuple(p for p in AUDIT_PARAMS if not p.per_cell)


def check_signature(fn: Callable[..., Any], params: tuple[TaskParam, ...] = AUDIT_PARAMS) -> None:
    """Refuse a function whose parameters (names and defaults, in order) are not `params`'."""
    got = [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]
    want = [(p.name, p.default) for p in params]
    if got != want:
        raise TypeError(f"{fn.__name__} parameters {got} differ from the audit parameter table {want}")
