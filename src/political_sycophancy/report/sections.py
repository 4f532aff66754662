"""The report's view of the catalog.

The tagged section builders (`core.section.section`) of the report's own overview and of the
`sections` modules each measure of `catalog` declares, in their order; each measure's report
contribution (`contributions`: its Headline parts, Findings, figures, key tables); and the
summary.json contract they write and read.

The report names no measure: a measure's folder declares its modules once, and
`write_report` builds `section_builders()` unless it is given its own list, passing each
builder the run's options. Two measures that give a section the same name, or draw a figure
to the same file, are an error naming both (one would silently replace the other).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from .. import catalog
from ..core.declare import DeclarationError
from ..core.report_parts import ReportContribution
from ..core.section import Section, SectionBuilder, section
from ..shared.summary_nodes import contract_of
from . import overview

__all__ = [
    "Section",
    "SectionBuilder",
    "contributions",
    "measure_modules",
    "section",
    "section_builders",
    "section_owners",
    "summary_contract",
]

REPORT = "the report"  # the owner of the report's own sections


def measure_modules(measures: tuple[str, ...] | None = None) -> tuple[ModuleType, ...]:
    """The overview, then every section module of the measures (default: `catalog`'s)."""
    return (overview, *[importlib.import_module(name) for m in catalog.declared(measures) for name in m.sections])


def summary_contract(measures: tuple[str, ...] | None = None) -> Any:
    """The summary.json contract of a report on the measures (default: `catalog`'s).

    The shared nodes and each measure's own (`core.declare.SummaryNodes`).
    """
    return contract_of(catalog.declared(measures))


def section_owners() -> dict[str, str]:
    """Section module -> the measure that declares it ("the report" for its own)."""
    return {overview.__name__: REPORT, **{name: m.name for m in catalog.declared() for name in m.sections}}


def section_builders(modules: tuple[ModuleType, ...] | None = None) -> list[tuple[int, str, SectionBuilder]]:
    """(order, name, builder) of every tagged builder of `modules` (default: `measure_modules()`), by order then name.

    A name two builders take is an error naming the measures (or modules) that declare them.
    """
    found: dict[str, tuple[int, str, SectionBuilder]] = {}
    owners = section_owners()
    for module in measure_modules() if modules is None else modules:
        for value in vars(module).values():
            name = getattr(value, "section_name", None)
            if callable(value) and name and getattr(value, "__module__", None) == module.__name__:
                if name in found and found[name][2] is not value:
                    first, second = (owners.get(m, m) for m in (found[name][2].__module__, module.__name__))
                    raise DeclarationError(f"the report section {name!r} is declared by both {first!r} and {second!r}")
                found[name] = (value.section_order, name, value)
    return sorted(found.values(), key=lambda b: (b[0], b[1]))


def contributions(measures: tuple[str, ...] | None = None) -> list[tuple[str, ReportContribution]]:
    """(measure name, its report contribution) for every measure's `report` module, in the catalog's order.

    (measure name, its report contribution) for every `report` module of the measures
    (default: `catalog`'s), in the catalog's order. A Headline part whose node the measure
    does not declare, or a figure file another measure also draws, is an error naming them.
    """
    out: list[tuple[str, ReportContribution]] = []
    stems: dict[str, str] = {}
    for measure in catalog.declared(measures):
        headline_nodes = {key for key, _ in measure.summary.headline}
        for name in measure.report:
            contribution = getattr(importlib.import_module(name), "REPORT", None)
            if not isinstance(contribution, ReportContribution):
                raise TypeError(f"{name} holds no REPORT (core.report_parts.ReportContribution)")
            for part in contribution.headline:
                if part.name not in headline_nodes:
                    raise DeclarationError(
                        f"measure {measure.name!r}: its Headline part {part.name!r} is not a node of its "
                        "SummaryNodes.headline"
                    )
            for figure in contribution.figures:
                if figure.stem in stems:
                    raise DeclarationError(
                        f"measures {stems[figure.stem]!r} and {measure.name!r} both draw the figure {figure.stem!r}"
                    )
                stems[figure.stem] = measure.name
            out.append((measure.name, contribution))
    return out
