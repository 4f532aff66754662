"""A report section as the measures build it, and the tag that names a section builder.

A section builder is a pure function `(frame, figure_dir, options) -> Section | None` of
the tidy frame (see `logs.frame`) and the run's `stats.options.AnalysisOptions`; it
returns None when the frame holds nothing it can use. `@section(order, name)` only tags
the function (no registry, no module state): `report.sections` lists the measure modules
whose tagged builders make the report, in `order`.
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
    text: markdown shown above the tables (model specifications, caveats, exclusions);
      every value from the logs in it (a model, condition or instrument name, an item text,
      a note) is written with `core.text.md_text` or `md_code`, so it stays text.
    console: lines the command line prints once the report is written (a measure's
      headline table); the command knows no measure, it prints what sections hand it.
    """

    title: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Path] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    console: list[str] = field(default_factory=list)


SectionBuilder = Callable[..., "Section | None"]


def section(order: int, name: str) -> Callable[[SectionBuilder], SectionBuilder]:
    """Tag a builder `(frame, figure_dir, options=None) -> Section | None` as the report
    section `name`; lower `order` comes first."""

    def tag(fn: SectionBuilder) -> SectionBuilder:
        fn.section_order = order  # type: ignore[attr-defined]
        fn.section_name = name  # type: ignore[attr-defined]
        return fn

    return tag
