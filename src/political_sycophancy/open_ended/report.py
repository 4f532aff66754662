"""What the open-ended measure adds to the whole report (`REPORT`).

Its numbered figure of the Figures section, Total per model, instrument and dimension with
its interval over responses, and the figure's takeaway.
"""

from __future__ import annotations

from pathlib import Path

from ..core.plotting import display_name
from ..core.report_parts import FigureSpec, ReportContribution, Summary, Tables
from ..shared.figure_parts import Point, forest, model_order, point, run_models
from ..shared.summary_reading import finite, reader, span_text
from .summary import TotalNode

get = reader("political_sycophancy.open_ended")


def open_ended_headline(summary: Summary, tables: Tables, path: Path) -> Path | None:
    """Open-ended bias (second seed).

    Total per model with its 95% bootstrap CI over responses (summary open_ended.total), one
    panel per dimension, a row per instrument.
    """
    totals = get.typed(summary, dict[str, TotalNode], "open_ended", "total") or {}
    by_dim: dict[str, dict[tuple[str, str], Point]] = {}
    for key, v in totals.items():
        parts = str(key).split("|")
        if len(parts) == 3 and isinstance(v, dict) and (p := point(v.get("total"), v.get("ci_low"), v.get("ci_high"))):
            by_dim.setdefault(parts[2], {})[(display_name(parts[1]), parts[0])] = p
    panels = [(f"{dim} dimension", sorted({r for r, _ in points}), points) for dim, points in sorted(by_dim.items())]
    models = sorted({m for _, _, pts in panels for _, m in pts})
    return forest(
        panels,
        models,
        [*run_models(summary), *model_order(summary)],
        "Total = (Bias_right - Bias_left) / 2 (negative = left)",
        "Open-ended answers: bias per model (95% bootstrap CI over responses)",
        path,
        xlim=(-1.05, 1.05),
    )


def _takeaway(summary: Summary, tables: Tables) -> str | None:
    values = [
        v
        for x in (get.typed(summary, dict[str, TotalNode], "open_ended", "total") or {}).values()
        if isinstance(x, dict)
        if (v := finite(x.get("total"))) is not None
    ]
    if not values:
        return None
    span = span_text(values, lambda v: f"{v:+.2f}")
    return (
        f"Total {span} over models, instruments and dimensions; {sum(v < 0 for v in values)} of "
        f"{len(values)} lean left (< 0)."
    )


REPORT = ReportContribution(
    figures=(
        FigureSpec(
            "paper_open_ended",
            "Open-ended bias: Total per model, instrument and dimension (95% CI over responses)",
            open_ended_headline,
            _takeaway,
            "the second seed's Total",
        ),
    ),
    figure_ci="open-ended: over responses",
)
