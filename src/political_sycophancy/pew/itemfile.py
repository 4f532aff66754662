"""Writing instrument files and the report of what was left out and why.

Both Pew builders (`.sav` and the replication package) write the item-file format that
`items.load_items` reads, and a Markdown report that lists every exclusion and flag, so a
count in a paper can be traced to the variables behind it.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.sheet import sheet_cell
from ..core.text import md_text


def cell(value: Any) -> str:
    """A CSV cell: lists as JSON, None/NaN as empty, a formula-like text made inert.

    A text a spreadsheet would run as a formula gets a leading apostrophe (`core.sheet`;
    `load_items` takes it off again).
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value), ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return sheet_cell(str(value))


def write_item_file(path: str | Path, rows: list[dict[str, Any]], columns: Iterable[str]) -> Path:
    """Write rows as an item-file CSV (UTF-8, header = `columns`, extra keys an error)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = list(columns)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        writer.writerow({c: sheet_cell(c) for c in columns})
        for row in rows:
            writer.writerow({c: cell(row.get(c)) for c in columns})
    return path


@dataclass
class Section:
    """One part of a build report: its title, summary lines, exclusions and flags."""

    title: str
    summary: list[str] = field(default_factory=list)
    exclusions: list[tuple[str, str]] = field(default_factory=list)
    flags: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class BuildReport:
    """Per instrument (or per wave): counts, every exclusion and every flag."""

    title: str
    sections: dict[str, Section] = field(default_factory=dict)

    def section(self, name: str) -> Section:
        """The section called `name`, added (empty) when new."""
        return self.sections.setdefault(name, Section(name))

    def exclude(self, section: str, what: str, reason: str) -> None:
        """List an item or variable left out of a section's file, with the reason."""
        self.section(section).exclusions.append((what, reason))

    def flag(self, section: str, what: str, note: str) -> None:
        """List a doubt about an item or variable that was kept (e.g. a coding the rationale contradicts)."""
        self.section(section).flags.append((what, note))

    def note(self, section: str, line: str) -> None:
        """Add a summary line (a count, a source) to a section."""
        self.section(section).summary.append(line)

    def exclusions(self, section: str) -> list[tuple[str, str]]:
        """A copy of a section's exclusions, as (item or variable, reason)."""
        return list(self.section(section).exclusions)

    def flags(self, section: str) -> list[tuple[str, str]]:
        """A copy of a section's flags, as (item or variable, note)."""
        return list(self.section(section).flags)

    def markdown(self) -> str:
        """The report as Markdown.

        Every text in it (variable names and labels, item texts, file names) is written
        as literal Markdown text (`core.text.md_text`).
        """
        out = [f"# {md_text(self.title)}", ""]
        for sec in self.sections.values():
            out += [f"## {md_text(sec.title)}", ""]
            out += [f"- {md_text(line)}" for line in sec.summary]
            for heading, rows in (("Excluded", sec.exclusions), ("Flagged", sec.flags)):
                out += ["", f"### {heading}: {len(rows)}", ""]
                if rows:
                    out += ["| item / variable | reason |", "| --- | --- |"]
                    out += [f"| {md_text(a)} | {md_text(b)} |" for a, b in rows]
            out.append("")
        return "\n".join(out)

    def write(self, path: str | Path) -> Path:
        """Write the report as Markdown to `path` (its folder made when missing)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.markdown(), encoding="utf-8")
        return path
