"""Report sections contributed by each measure (audit, probes, SWAY, open-ended bias).

A section builder is a pure function of the tidy frame (see `analysis.frame`) that
returns a `Section`, or None when the frame holds nothing it can use. Modules register
their builders with `@register_section`; the report writes every section's tables,
figures, summary entries and text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd


@dataclass
class Section:
    """One part of the report.

    tables: name -> frame, written as tables/<name>.csv and shown in the report.
    figures: name -> PNG path already written under the figure directory given to the builder.
    summary: merged into summary.json (nested dicts).
    text: markdown shown above the tables (model specifications, caveats, exclusions).
    """

    title: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Path] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    text: str = ""


SectionBuilder = Callable[[pd.DataFrame, Path], "Section | None"]
SECTION_BUILDERS: list[tuple[int, str, SectionBuilder]] = []


def register_section(order: int, name: str) -> Callable[[SectionBuilder], SectionBuilder]:
    """Register a builder `(frame, figure_dir) -> Section | None`; lower order comes first."""

    def wrap(fn: SectionBuilder) -> SectionBuilder:
        SECTION_BUILDERS[:] = [b for b in SECTION_BUILDERS if b[1] != name]
        SECTION_BUILDERS.append((order, name, fn))
        SECTION_BUILDERS.sort(key=lambda b: (b[0], b[1]))
        return fn

    return wrap
