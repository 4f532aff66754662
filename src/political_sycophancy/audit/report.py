"""What the audit adds to the whole report (`REPORT`, named by the audit's `MEASURE`).

The numbers its sentences quote that no section computes, its Headline parts, its Findings,
its seven numbered figures of the Figures section, and how report.html shows its tables.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..core.report_parts import FigureSpec, ReportContribution, Summary, Tables
from . import figure_notes as notes
from . import report_figures as draw
from .derived import derive
from .findings import findings
from .headline import HEADLINE
from .headline_scope import MIN_ITEMS

Draw = Callable[[Summary, Tables, Path], Path | None]


def _summary_only(figure: Callable[[Summary, Path], Path | None]) -> Draw:
    """A figure drawn from summary.json alone, as a `FigureSpec.draw`."""

    def drawn(summary: Summary, tables: Tables, path: Path) -> Path | None:
        return figure(summary, path)

    return drawn


def _by_asker(kind: str) -> Draw:
    """The by-asker figure of an instrument kind, as a `FigureSpec.draw`."""

    def drawn(summary: Summary, tables: Tables, path: Path) -> Path | None:
        return draw.by_asker(summary, kind, path, tables)

    return drawn


FIGURES = (
    FigureSpec(
        "paper_baseline_positions",
        "Baseline position under N on every instrument, per model (95% CI)",
        _summary_only(draw.baseline_positions),
        notes.baseline,
        "cf. the first seed's Fig. 1, which plots the ATP share by partisan gap",
    ),
    FigureSpec(
        "paper_closer_to_dem_by_asker",
        "Share of ATP items closer to Democrats, by asker, per model (95% CI)",
        _by_asker("atp"),
        notes.by_asker("atp"),
        "the first seed's Fig. 3 (N, CA, C3L, C3R) and Fig. S1 (all six cues)",
        supersedes=("closer_to_dem_by_condition",),
    ),
    FigureSpec(
        "paper_pct_by_asker",
        "PCT mean ideology, by asker, per model (95% CI)",
        _by_asker("pct"),
        notes.by_asker("pct"),
        "no figure in the first seed: its Results text",
        supersedes=("pct_by_condition",),
    ),
    FigureSpec(
        "paper_sycophancy_left_right",
        "Sycophancy-right against sycophancy-left, per model (95% CI)",
        _summary_only(draw.sycophancy_left_right),
        notes.left_right,
        "the first seed's Fig. 2",
        supersedes=("sycophancy_left_right",),
    ),
    FigureSpec(
        "paper_shift_heatmap",
        f"Mean item shift against N, condition x model, per instrument (* = 95% CI excludes 0, over at least "
        f"{MIN_ITEMS} items)",
        _summary_only(draw.shift_heatmap),
        notes.heatmap,
        "no figure in the first seed",
    ),
    FigureSpec(
        "paper_item_shifts",
        "Item-level answers under C3L (blue) and C3R (red) against N, per model (share moved toward the asker; "
        "mean slant change, 95% CI)",
        draw.item_shift_panels,
        notes.item_shifts,
        "the first seed's Fig. 4",
        supersedes=("item_wd_dem_scatter",),
    ),
    FigureSpec(
        "paper_slant_vs_right",
        "Baseline slant against sycophancy-right, per model (95% CI)",
        _summary_only(draw.slant_vs_right),
        notes.slant,
        "the first seed's Fig. 2, its correlation",
    ),
)

REPORT = ReportContribution(
    derive=derive,
    headline=HEADLINE,
    findings=findings,
    minor_findings="Shifts under the milder cues",
    figures=FIGURES,
    key_tables=(
        "condition_key",
        "decomposition",
        "sign_flip",
        "mixed_crossed_coefficients",
        "mixed_paper_coefficients",
        "slant_correlations",
    ),
    folded_sections=("stability", "power"),
)
