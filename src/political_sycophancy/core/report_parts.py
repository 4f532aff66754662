"""What a measure contributes to the whole report beyond its own sections, declared in its folder.

`Measure.report` names the modules; each holds one `REPORT = ReportContribution(...)`.

- `derive`: numbers its sentences quote that no section computes (bootstrap intervals over
  the sections' tables), written under summary.json `findings.<key>`;
- `headline`: its parts of the Headline block (`HeadlinePart`: numbers under
  `findings.headline.<name>`, sentences quoting them, an optional small table);
- `findings`: its Findings sentences (`Finding`), each quoting summary values by path;
- `figures`: its numbered figures of the Figures section (`FigureSpec`: how to draw it, its
  one-line takeaway and the paper figure it matches);
- `key_tables` and `folded_sections`: how report.html shows its tables.

The report lays the contributions out in the catalog's order (headline parts by their
`order`, then the catalog's), numbers the figures, and reads no measure's table or node
by name. Every number a sentence quotes is a `Quote` of its summary path, so that
`check_quotes` can hold each sentence to summary.json. Nothing here imports pandas or
matplotlib: a measure's report module imports what it draws with.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .text import md_text

if TYPE_CHECKING:
    import pandas as pd

Summary = Mapping[str, Any]  # summary.json as the report writes it (JSON-safe)
Tables = Mapping[str, "pd.DataFrame"]  # every section's tables, by table name


@dataclass(frozen=True)
class Quote:
    """A number quoted from summary.json: its key path, value and how it is shown (shown = value x scale, rounded)."""

    path: tuple[str, ...]
    value: float
    shown: str
    scale: float = 1.0


@dataclass
class Finding:
    """One sentence: text pieces (str or Quote), and the section / table backing it."""

    topic: str
    pieces: list[str | Quote]
    section: str
    table: str = ""
    missing: bool = False
    minor: bool = False  # detail a reader can unfold
    fold: str = ""  # the title of that fold (the report sets its measure's `minor_findings`)
    takeaway: bool = False  # a plain-language takeaway: the report puts every measure's first
    quotes: list[Quote] = field(init=False)

    def __post_init__(self) -> None:
        """Collect the quotes among the pieces."""
        self.quotes = [p for p in self.pieces if isinstance(p, Quote)]

    def plain(self) -> str:
        """The sentence as plain text."""
        return "".join(p.shown if isinstance(p, Quote) else p for p in self.pieces)

    def markdown(self, titles: Mapping[str, str] | None = None) -> str:
        """The sentence as Markdown, all of it literal text, then its link to the backing table.

        Literal, since it quotes model names and conditions from the logs. The link shows the
        table's (or section's) human title from `titles` when given, else its id; the anchor
        is the id.
        """
        target = self.table or self.section
        label = (titles or {}).get(target, target)
        return md_text(self.plain()) + f" ([{md_text(label)}](#{quote(target)}))"

    def html(self, titles: Mapping[str, str] | None = None) -> str:
        """The sentence as an HTML list item, each quote a `<data>` element carrying its path.

        Its link to the backing table shows the table's human title from `titles` when given.
        """
        body = "".join(
            f"<data value='{q.value!r}' data-path='{html.escape(json.dumps(list(q.path)), quote=True)}' "
            f"data-scale='{q.scale!r}'>{html.escape(q.shown)}</data>"
            if isinstance(q, Quote)
            else html.escape(q)
            for q in self.pieces
        )
        target = f"table-{self.table}" if self.table else self.section
        label = (titles or {}).get(self.table or self.section, self.table or self.section)
        cls = " class='missing'" if self.missing else ""
        link = f"<a class='src' href='#{html.escape(target, quote=True)}'>&rarr;&nbsp;{html.escape(label)}</a>"
        return f"<li{cls}>{body} {link}</li>"


def check_quotes(summary: Summary, items: list[Finding]) -> list[str]:
    """Quotes whose value is not the summary's value at their path (empty when all hold)."""
    bad = []
    for f in items:
        for q in f.quotes:
            path = list(q.path)
            node: Any = summary
            for k in path:
                node = node[int(k)] if isinstance(node, list) else node.get(k) if isinstance(node, dict) else None
            if node != q.value:
                bad.append(f"{path}: {node} != {q.value}")
    return bad


@dataclass(frozen=True)
class HeadlineTable:
    """A small table under the Headline's sentences: its caption, header and text cells."""

    caption: str
    head: list[str]
    rows: list[list[str]]


# (summary, tables, bootstrap draws, seed) -> a node of numbers; empty when there is nothing to say
Numbers = Callable[[Summary, Tables, int, int], dict[str, Any]]


@dataclass(frozen=True)
class HeadlinePart:
    """One part of the Headline block.

    `numbers` (computed once the sections are, written to summary.json
    `findings.headline.<name>`, which the measure declares in its `SummaryNodes.headline`;
    left out when empty), then `sentences` quoting them, and an optional `table` shown under
    every part's sentences. Parts are laid out by `order`, then by the catalog's order of
    their measures.
    """

    name: str
    order: int
    numbers: Numbers
    sentences: Callable[[Summary], list[Finding]]
    table: Callable[[Summary], HeadlineTable | None] | None = None


@dataclass(frozen=True)
class FigureSpec:
    """A numbered figure of the Figures section.

    `draw(summary, tables, path)` saves it at `path` (figures/<stem>.png) and returns the
    path, or None when the logs hold nothing to draw; `takeaway(summary, tables)` is its
    one line under it (None: it has none); `paper` the paper figure it corresponds to;
    `supersedes` the file stems of section figures it redraws with their intervals
    (report.html shows those once, here).
    """

    stem: str
    title: str
    draw: Callable[[Summary, Tables, Path], Path | None]
    takeaway: Callable[[Summary, Tables], str | None]
    paper: str = "no paper figure"
    supersedes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportContribution:
    """What one measure adds to the report beyond its sections (see the module docstring).

    derive: (summary, tables, draws, seed) -> {key: node}, written under `findings.<key>`
      (each key declared in its `SummaryNodes.findings`) before any sentence is written.
    headline: its Headline parts.
    findings: summary -> its Findings sentences, in reading order.
    minor_findings: the title of the fold that holds its `minor` sentences in report.html.
    figures: its figures, in the order they are numbered.
    figure_ci: how its figures' intervals are resampled when not over items (the Figures
      section's text lists it: "SWAY: over base prompts").
    key_tables: its tables a reader of the printed report needs: shown open.
    folded_sections: its sections whose tables are bookkeeping: always folded.
    """

    derive: Numbers | None = None
    headline: tuple[HeadlinePart, ...] = ()
    findings: Callable[[Summary], list[Finding]] | None = None
    minor_findings: str = ""
    figures: tuple[FigureSpec, ...] = ()
    figure_ci: str = ""
    key_tables: tuple[str, ...] = ()
    folded_sections: tuple[str, ...] = ()
