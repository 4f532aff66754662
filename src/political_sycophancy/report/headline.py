"""The headline block: the design's answers to the seeds' questions, first on the page.

Each measure contributes its parts (`core.report_parts.HeadlinePart`): `numbers` computes,
from the sections' tables and summary.json, what the papers' abstracts quote, under
`summary["findings"]["headline"][<part>]`; its sentences quote them by path (so
`check_quotes` holds for them) and name their definition, item pool and n; a part may add
a small table under the sentences. Parts are laid out by their `order`, then the catalog's
order of their measures. When the logs cannot support a sentence it is left out, and the
Findings say what is missing.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from ..core.report_parts import Finding, HeadlinePart, HeadlineTable, Summary, Tables
from ..core.text import md_text
from .headers import column_header
from .sections import contributions


def parts() -> list[HeadlinePart]:
    """Every measure's Headline parts, by order, then the catalog's order."""
    found = [part for _, contribution in contributions() for part in contribution.headline]
    return sorted(found, key=lambda p: p.order)


def numbers(summary: Summary, tables: Tables, *, draws: int = 2000, seed: int = 20260) -> dict[str, Any]:
    """What the headline quotes, for `summary["findings"]["headline"]` (empty parts left out)."""
    out = {part.name: part.numbers(summary, tables, draws, seed) for part in parts()}
    return {k: v for k, v in out.items() if v}


def headline(summary: Summary) -> list[Finding]:
    """The headline sentences (topic "headline"), part by part."""
    return [f for part in parts() for f in part.sentences(summary)]


def headline_tables(summary: Summary) -> list[tuple[str, HeadlineTable]]:
    """(part name, its table) of every part that shows one under the sentences."""
    out = []
    for part in parts():
        table = part.table(summary) if part.table is not None else None
        if table is not None:
            out.append((part.name, table))
    return out


def headline_html(items: list[Finding], summary: Summary, titles: Mapping[str, str] | None = None) -> str:
    """The Headline block of report.html: the sentences (each linking its table by title), then the parts' tables."""
    if not items:
        return ""
    tables = "".join(
        f"<table class='{html.escape(name, quote=True)}'><caption>{html.escape(t.caption)}</caption><tr>"
        + "".join(f"<th>{html.escape(column_header(h))}</th>" for h in t.head)
        + "</tr>"
        + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in t.rows)
        + "</table>"
        for name, t in headline_tables(summary)
    )
    body = "".join(f.html(titles) for f in items)
    return (
        f"<section class='headline'><h2 id='headline'>Headline</h2><ul class='findings'>{body}</ul>{tables}</section>"
    )


def headline_markdown(items: list[Finding], summary: Summary, titles: Mapping[str, str] | None = None) -> list[str]:
    """The Headline block of report.md: the sentences (each linking its table by title), then the parts' tables."""
    if not items:
        return []
    lines = ["## Headline", "", *[f"- {f.markdown(titles)}" for f in items], ""]
    for _, t in headline_tables(summary):
        lines += [
            f"{md_text(t.caption)}:",
            "",
            "| " + " | ".join(md_text(column_header(h)) for h in t.head) + " |",
            "|" + "---|" * len(t.head),
            *["| " + " | ".join(md_text(c) for c in r) + " |" for r in t.rows],
            "",
        ]
    return lines
