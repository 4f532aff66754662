"""political-sycophancy: audit the political bias of language models across the people who might be asking.

The public solvers, scorers and tasks are importable from here
(`from political_sycophancy import asker_preamble, answer_question, pct_score`); they are
loaded on first use, so `import political_sycophancy` stays light for the CLI.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    "Condition": ".conditions",
    "resolve_conditions": ".conditions",
    "InputError": ".errors",
    "Item": ".items",
    "load_instrument": ".items",
    "load_items": ".items",
    "select_pool": ".items",
    "audit": ".tasks.audit",
    "audit_tasks": ".tasks.audit",
    "asker_preamble": ".solvers",
    "answer_question": ".solvers",
    "pct_score": ".scorers.pct",
    "typology_score": ".scorers.typology",
    "wd_score": ".scorers.wd",
    "choice_score": ".scorers.choice",
    "parse_choice": ".scorers.letters",
    "expected_answer_score": ".scorers.probes",
    "perception_score": ".scorers.probes",
    "stance_judge": ".scorers.stance",
    "sway_score": ".scorers.sway",
    "sway_instruction": ".mitigations",
    "counterfactual_cot": ".mitigations",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'political_sycophancy' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value
