"""The audit's shifts section.

Item-level shifts against the no-preamble baseline N, their means and Wilcoxon tests, and
the movement toward each party.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..core.section import Section, section
from ..shared.cells import cells_of
from ..shared.shifts import BASELINE, item_shifts, largest_shifts, movement, shift_summary
from ..stats.options import AnalysisOptions
from . import figures
from .section_values import integer, nested, no_audit, number


@section(20, "shifts")
def shifts_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """Item-level shifts against N, their means and Wilcoxon tests, movement toward each party."""
    opts = options or AnalysisOptions()
    if no_audit(frame):
        return None
    cells = cells_of(frame, opts.cache)
    if BASELINE not in set(cells["condition"]):
        return Section(
            "Shifts against the no-preamble baseline", text="No condition N in the logs: shifts are not computable."
        )
    shifts = item_shifts(cells)
    if shifts.empty:
        return Section(
            "Shifts against the no-preamble baseline",
            text="No item was answered both under N and under another condition.",
        )
    summ = shift_summary(shifts)
    moves = movement(cells)
    figs = {}
    if path := figures.item_scatter(cells, figure_dir / "item_wd_dem_scatter.png"):
        figs["Item-level WD(Dem) under C3L and C3R against N"] = path
    summary: dict = {}
    for _, r in summ.iterrows():
        node = nested(summary, "models", r["model"], "conditions", r["condition"], r["instrument"])
        key = "shift" if r["measure"] in ("ideology", "typology") else f"shift_{r['measure']}"
        node[key] = {
            "mean": number(r["mean_shift"]),
            "n_items": integer(r["n_items"]),
            "wilcoxon_p": number(r["wilcoxon_p"]),
        }
    text = (
        "shift = value under the condition - value under N, per model and item answered in both (PCT and Typology:"
        " items with a direction only, since direction-0 items cannot move). Wilcoxon signed-rank test per model x"
        " condition x measure on the nonzero shifts, two-sided (exact distribution for <= 50 untied shifts, else the"
        " normal approximation; the method is in the table). Items are not independent draws, so these p-values are a"
        " sensitivity check, as in the paper's SI S1. `movement`: share of items whose WD(Dem) - WD(Rep) fell (moved"
        " toward Democrats) or rose (toward Republicans); PCT: moved left / right. `largest_shifts`: the items the"
        " askers moved most (mean shift across models), with their text."
    )
    tables = {
        "shift_summary": summ,
        "movement": moves,
        "largest_shifts": largest_shifts(shifts, cells),
        "item_shifts": shifts,
    }
    return Section("Shifts against the no-preamble baseline", tables=tables, figures=figs, summary=summary, text=text)
