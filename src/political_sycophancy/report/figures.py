"""The Figures section (after the Findings).

Every measure's numbered figures, in the catalog's order, each drawn from summary.json (and
the sections' tables) with its intervals, under it its number, a one-line takeaway computed
from the numbers it draws and the paper figure it corresponds to
(`core.report_parts.FigureSpec`). A takeaway states ranges over models and counts, never a
judgement the numbers do not carry; a figure whose takeaway cannot be computed says so
rather than staying silent.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ..core.report_parts import FigureSpec, Summary, Tables
from .sections import Section, contributions

NO_TAKEAWAY = "No one-line takeaway: its numbers are in the tables."


def figure_specs() -> list[FigureSpec]:
    """Every measure's figures, in the catalog's order."""
    return [figure for _, contribution in contributions() for figure in contribution.figures]


def numbered(figures: list[tuple[FigureSpec, Path]], summary: Summary, tables: Tables) -> list[str]:
    """The caption of each drawn figure in order: `Figure k. Title. Takeaway (paper figure).`"""
    return [
        f"Figure {k}. {spec.title}. {spec.takeaway(summary, tables) or NO_TAKEAWAY} ({spec.paper})."
        for k, (spec, _) in enumerate(figures, start=1)
    ]


def figures_section(
    summary: Summary, figure_dir: Path, tables: Mapping[str, pd.DataFrame] | None = None
) -> Section | None:
    """The Figures section, or None when the summary (and the sections' `tables`, by name) support none."""
    tables = tables or {}
    specs = figure_specs()
    drawn = [(spec, spec.draw(summary, tables, figure_dir / f"{spec.stem}.png")) for spec in specs]
    shown = [(spec, path) for spec, path in drawn if path is not None]
    if not shown:
        return None
    captions = numbered(shown, summary, tables)
    resampled = "; ".join(c.figure_ci for _, c in contributions() if c.figure_ci)
    text = (
        "The paper's headline figures drawn from summary.json, each point with its 95% percentile bootstrap CI over "
        f"items{f' ({resampled})' if resampled else ''}; one colour and marker per model throughout "
        "(Okabe-Ito palette); SVG beside each PNG in figures/. Under each: its number, a one-line takeaway from the "
        "numbers it draws, and the paper figure it corresponds to."
    )
    return Section("Figures", figures=dict(zip(captions, (path for _, path in shown), strict=True)), text=text)
