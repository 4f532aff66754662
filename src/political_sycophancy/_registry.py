"""The `inspect_ai` entry point.

Importing this registers every task, solver and scorer of every measure in `catalog` (each
declares the modules that register them) and the model providers.

Inspect records a scorer in the log by its unqualified name (`pct_score`) and `inspect
score LOG` looks it up by that name, which an extension package's scorers do not have in
Inspect's registry. Inspect's convention is to name the scorer
(`inspect score LOG --scorer political_sycophancy/pct_score -S answer=letter`); setting
`POLITICAL_SYCOPHANCY_SCORER_ALIASES=1` opts in to aliases under the unqualified names, so
that the bare `inspect score LOG` re-scores with the scorer and options the log recorded.
They are off by default: an unqualified name in Inspect's global registry can shadow
another package's scorer of that name.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable
from typing import Any

from . import catalog
from .core.inspect_compat import RegistryInfo, registry_add, registry_info, registry_lookup
from .core.solvers import answer_question as answer_question  # the shared solvers
from .core.solvers import asker_preamble as asker_preamble
from .models import faulty as faulty  # providers: faulty/<model>, gguf/<name>
from .models import gguf as gguf

SCORER_ALIASES_ENV = "POLITICAL_SYCOPHANCY_SCORER_ALIASES"


def _register_unqualified_scorer_names(modules: list) -> None:
    """Opt-in aliases: each measure's scorer also registered under its unqualified name when that name is free.

    Alias each scorer the measures define under its unqualified name (the alias creates the
    same, namespaced scorer), unless that name is taken; opt-in (module docstring).
    """
    for module in modules:
        for value in vars(module).values():
            if not callable(value):
                continue
            try:
                info = registry_info(value)
            except (ValueError, AttributeError):
                continue
            if info.type != "scorer" or not info.name.startswith("political_sycophancy/"):
                continue
            short = info.name.split("/", 1)[-1]
            if registry_lookup("scorer", short) is not None:
                continue

            def alias(*args: Any, _factory: Callable[..., Any] = value, **kwargs: Any) -> Any:
                return _factory(*args, **kwargs)

            registry_add(functools.wraps(value)(alias), RegistryInfo(type="scorer", name=short, metadata=info.metadata))


def _register() -> None:
    modules = [importlib.import_module(name) for measure in catalog.declared() for name in measure.registers]
    if os.environ.get(SCORER_ALIASES_ENV, "").strip() == "1":
        _register_unqualified_scorer_names(modules)


_register()
