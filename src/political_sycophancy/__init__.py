"""political-sycophancy: audit the political bias of language models across the people who might be asking.

The public solvers and scorers are importable from here
(`from political_sycophancy import asker_preamble, answer_question, pct_score`); they are
loaded on first use, so `import political_sycophancy` stays light for the CLI. Each measure
is a subpackage (`audit`, `probes`, `open_ended`, `sway`) holding its tasks, scorers and
analysis over a shared `core` and `stats`; the tasks are in their measure's package
(`from political_sycophancy.audit import audit`). The first, second and third seed are the
three papers named in docs/glossary.md.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import Any

try:  # the version is pyproject.toml's, as installed; not written twice
    __version__ = metadata.version("political-sycophancy")
except metadata.PackageNotFoundError:  # a source tree on sys.path without an install
    __version__ = "0+unknown"

# public name -> module that defines it
_EXPORTS = {
    "Condition": ".core.conditions",
    "flat_scores": ".logs.inspect_frames",
    "resolve_conditions": ".core.conditions",
    "InputError": ".core.errors",
    "Item": ".core.items",
    "load_instrument": ".core.items",
    "load_items": ".core.items",
    "select_pool": ".core.items",
        "audit_tasks": ".audit.task",
    "asker_preamble": ".core.solvers",
    "answer_question": ".core.solvers",
    "pct_score": ".shared.scorers.pct",
    "typology_score": ".shared.scorers.typology",
    "wd_score": ".shared.scorers.wd",
    "choice_score": ".shared.scorers.choice",
    "parse_choice": ".core.parsing",
    "expected_answer_score": ".probes.scorers",
    "perception_score": ".probes.scorers",
    "stance_judge": ".open_ended.judge",
    "sway_score": ".sway.scorer",
    "sway_instruction": ".sway.mitigations",
    "counterfactual_cot": ".sway.mitigations",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'political_sycophancy' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value
