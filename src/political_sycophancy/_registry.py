"""The `inspect_ai` entry point: importing this registers every task, solver and scorer of
every measure in `catalog` (each declares the modules that register them) and the model
providers."""

from __future__ import annotations

import functools
import importlib

from . import catalog
from .core.inspect_compat import RegistryInfo, registry_add, registry_info, registry_lookup
from .core.solvers import answer_question as answer_question  # the shared solvers
from .core.solvers import asker_preamble as asker_preamble
from .models import faulty as faulty  # providers: faulty/<model>, gguf/<name>
from .models import gguf as gguf


def _register_unqualified_scorer_names(modules: list) -> None:
    """`inspect score LOG` looks scorers up by the unqualified name Inspect records in the
    log (`pct_score`), which for an extension package's scorers is not registered; alias
    each scorer the measures define under that name (the alias creates the same,
    namespaced scorer)."""
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

            def alias(*args, _factory=value, **kwargs):
                return _factory(*args, **kwargs)

            registry_add(functools.wraps(value)(alias), RegistryInfo(type="scorer", name=short, metadata=info.metadata))


def _register() -> None:
    modules = [importlib.import_module(name) for measure in catalog.declared() for name in measure.registers]
    _register_unqualified_scorer_names(modules)


_register()
