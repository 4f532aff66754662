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
    titles / columns: a table's human title and what its columns mean (table id -> column
      -> meaning), read by the report from `tables.yaml` beside the builder's module
      (`table_descriptions`), so a table id and its glossary are written once, in the
      measure's folder.
    """

    title: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Path] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    console: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    columns: dict[str, dict[str, str]] = field(default_factory=dict)


# the columns many tables share (model, condition, intervals, ...), in the package's data
SHARED_COLUMNS = "columns.yaml"
TABLES_FILE = "tables.yaml"


def column_meaning(columns: dict[str, str], name: str) -> str | None:
    """What a column means: its own entry, else the longest `prefix*` entry it starts with.

    A prefix entry covers a family of columns named from the data, such as
    `persona_<attribute>`.
    """
    if name in columns:
        return columns[name]
    families = [k for k in columns if k.endswith("*") and name.startswith(k[:-1])]
    return columns[max(families, key=len)] if families else None


def table_descriptions(package: str, tables: list[str]) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The titles and column meanings of `tables` from `package`'s `tables.yaml`.

    Returns (table id -> title, table id -> column -> meaning); `tables.yaml` maps a
    table id to {title, columns}, each table's own columns over the shared ones of
    `data/columns.yaml`; no title when the file has none.
    """
    from importlib import resources

    from .io import parse_yaml

    def load(pkg: str, name: str) -> dict:
        if not pkg:  # a builder in a top-level module (a user's script): no tables.yaml beside it
            return {}
        try:
            text = (resources.files(pkg) / name).read_text(encoding="utf-8")
        except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError, TypeError):
            return {}
        return parse_yaml(text, file=f"{pkg}/{name}") or {}

    shared = {str(k): str(v) for k, v in load("political_sycophancy.data", SHARED_COLUMNS).items()}
    described = {str(k): v or {} for k, v in load(package, TABLES_FILE).items()}
    titles = {t: str(described[t]["title"]) for t in tables if described.get(t, {}).get("title")}
    columns = {
        t: {**shared, **{str(k): str(v) for k, v in (described.get(t, {}).get("columns") or {}).items()}}
        for t in tables
    }
    return titles, columns


SectionBuilder = Callable[..., "Section | None"]


def section(order: int, name: str) -> Callable[[SectionBuilder], SectionBuilder]:
    """Tag a builder `(frame, figure_dir, options=None) -> Section | None` as the report section `name`.

    Lower `order` comes first.
    """

    def tag(fn: SectionBuilder) -> SectionBuilder:
        fn.section_order = order  # type: ignore[attr-defined]
        fn.section_name = name  # type: ignore[attr-defined]
        return fn

    return tag
