"""The one list of measures, so that adding a measure is one folder and one entry.

The one list of measures: a new measure is its folder (declaring `MEASURE`, see
`core.declare`) and one entry here, or, from another installed package, one entry in its
`political_sycophancy.measures` entry-point group.

The report's sections and Inspect's registration read this list; no other module outside
a measure's folder names the measure (`scripts/measure_footprint.py` counts them).
"""

from __future__ import annotations

import functools
import importlib
from importlib import metadata

from .core.declare import Measure, distinct

# In report order; each a package whose __init__ declares MEASURE.
MEASURES = (
    "political_sycophancy.audit",
    "political_sycophancy.profiles",
    "political_sycophancy.probes",
    "political_sycophancy.sway",
    "political_sycophancy.open_ended",
    "political_sycophancy.evenhandedness",
)
ENTRY_POINTS = "political_sycophancy.measures"


@functools.cache
def _entry_point_measures() -> tuple[str, ...]:
    """The measures other installed packages declare.

    Read once a process, since scanning every installed distribution's entry points takes
    about 13 ms, and the report reads its summary contract, which names the measures, for
    each of hundreds of values.
    """
    return tuple(ep.value for ep in metadata.entry_points(group=ENTRY_POINTS))


def declared(names: tuple[str, ...] | None = None) -> list[Measure]:
    """The declaration of each measure of `names`, in order, two claiming one name or node refused.

    The declaration of each measure of `names` (default: `MEASURES`, then those of other
    installed packages' entry points), in order; two that declare the same name or summary
    node are an error naming both (`core.declare.distinct`).
    """
    packages = list(MEASURES if names is None else names)
    if names is None:
        packages += [value for value in _entry_point_measures() if value not in packages]
    out = []
    for package in packages:
        measure = getattr(importlib.import_module(package), "MEASURE", None)
        if not isinstance(measure, Measure):
            raise TypeError(f"{package} declares no MEASURE (core.declare.Measure)")
        out.append(measure)
    distinct(out)
    return out
