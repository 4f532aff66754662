"""political-sycophancy: audit the political bias of language models across the people who might be asking.

The public solvers and scorers are importable from here
(`from political_sycophancy import asker_preamble, answer_question, pct_score`); they are
loaded on first use, so `import political_sycophancy` stays light for the CLI. Each measure
is a subpackage holding its tasks, scorers and analysis over the shared floors below it;
the names it offers here are in its declaration (`core.declare.Measure.exports`), read
through the list of measures (`catalog`). The first, second and third seed are the three
papers named in docs/glossary.md.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import Any

try:  # the version is pyproject.toml's, as installed; not written twice
    __version__ = metadata.version("political-sycophancy")
except metadata.PackageNotFoundError:  # a source tree on sys.path without an install
    __version__ = "0+unknown"

# public name -> module that defines it: the floors below the measures; each measure's own
# names come from its declaration (`_measure_exports`)
_EXPORTS = {
    "Condition": ".core.conditions",
    "flat_scores": ".logs.inspect_frames",
    "resolve_conditions": ".core.conditions",
    "InputError": ".core.errors",
    "Item": ".core.items",
    "load_instrument": ".core.items",
    "load_items": ".core.items",
    "select_pool": ".core.items",
    "asker_preamble": ".core.solvers",
    "answer_question": ".core.solvers",
    "pct_score": ".shared.scorers.pct",
    "typology_score": ".shared.scorers.typology",
    "wd_score": ".shared.scorers.wd",
    "choice_score": ".shared.scorers.choice",
    "parse_choice": ".core.parsing",
}


def _measure_exports() -> dict[str, str]:
    """Public name -> module of every measure of the list (their `__init__`s are light)."""
    from .catalog import declared

    return {name: module for measure in declared() for name, module in measure.exports}


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS, *_measure_exports()})


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return sorted({*_EXPORTS, *_measure_exports()})
    module = _EXPORTS.get(name) or (_measure_exports().get(name) if not name.startswith("__") else None)
    if module is None:
        raise AttributeError(f"module 'political_sycophancy' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
