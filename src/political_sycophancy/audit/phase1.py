"""The audit's Phase 1 section: the paper's first phase (every item under N), kept apart from the later phases."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..core.section import Section, section
from ..shared.cells import build_cells, main_rows, phase1_rows, run_memo
from ..shared.summaries import condition_summary
from ..stats.options import AnalysisOptions


@section(5, "phase1")
def phase1_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """Phase 1 of the paper's design (every item under N), kept apart from the later phases."""
    opts = options or AnalysisOptions()
    rows = phase1_rows(frame)
    if rows.empty:
        return None
    table = condition_summary(build_cells(main_rows(rows), run_memo(opts.cache)))
    text = (
        "Phase 1 of the paper's design: every item under the default prompt N. The sections below use the "
        "later phases only, so that the Phase 2 items' N answers are not pooled with their Phase 1 answers. "
        "Columns as in the next section."
    )
    return Section("Phase 1 baseline (all items under N)", tables={"phase1_summary": table}, text=text)
