"""The report's sections: the tagged builders (`core.section.section`) of the report's own
overview and of the `sections` modules each measure of `catalog` declares, in their order.

The report names no measure: a measure's folder declares its section modules once, and
`write_report` builds `section_builders()` unless it is given its own list, passing each
builder the run's options.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from .. import catalog
from ..core.section import Section, SectionBuilder, section
from ..shared.summary_nodes import summary_type
from . import overview

__all__ = ["Section", "SectionBuilder", "measure_modules", "section", "section_builders", "summary_contract"]


def measure_modules(measures: tuple[str, ...] | None = None) -> tuple[ModuleType, ...]:
    """The overview, then every section module of the measures (default: `catalog`'s)."""
    return (overview, *[importlib.import_module(name) for m in catalog.declared(measures) for name in m.sections])


def summary_contract(measures: tuple[str, ...] | None = None) -> Any:
    """The summary.json contract of a report on the measures (default: `catalog`'s): the
    shared nodes and each measure's declared own nodes (`shared.summary_nodes`)."""
    declared = catalog.declared(measures)
    return summary_type(tuple(k for m in declared for k in m.summary_nodes), tuple(k for m in declared for k in m.model_nodes))


def section_builders(modules: tuple[ModuleType, ...] | None = None) -> list[tuple[int, str, SectionBuilder]]:
    """(order, name, builder) of every tagged builder of `modules` (default:
    `measure_modules()`), by order then name."""
    found = {}
    for module in measure_modules() if modules is None else modules:
        for value in vars(module).values():
            name = getattr(value, "section_name", None)
            if callable(value) and name and getattr(value, "__module__", None) == module.__name__:
                found[name] = (value.section_order, name, value)
    return sorted(found.values(), key=lambda b: (b[0], b[1]))
