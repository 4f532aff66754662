"""The Headline's numbers under each run when cells were answered by several runs (issue 46 item 1).

When a user runs the same audit tasks on the same model twice (into one log folder or two)
and analyses them together, each cell (`logs.frame.CELL_KEY`) has one answer per run. The
statistics use one per cell (the latest successful one: the baseline); the loader also builds
the frame of each run (`logs.reruns.rerun_versions`) and the pooled frame (every answer, a
run's answers as further epochs), and this module computes the Headline's decomposition under
each, so the report shows them as robustness rows beside the baseline.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..core.parsing import ANSWERED
from .cells import audit_rows, build_cells, main_rows
from .shifts import decomposition, pct_decomposition

# What the decomposition is in, by the instrument it was computed on.
WD_UNITS = "WD units (ATP items with party benchmarks)"
PCT_UNITS = "PCT item score (directional items)"


def _mean(values: pd.Series) -> float | None:
    """The finite mean of `values`, or None."""
    v = pd.to_numeric(values, errors="coerce").dropna()
    return float(v.mean()) if len(v) else None


def run_headline(frame: pd.DataFrame) -> dict[str, Any]:
    """Sycophancy-left/right pooled over models and their signed ratio, from one version of the frame.

    The Headline's pooled decomposition (means over models of each model's main variant), on
    ATP items with party benchmarks when the frame has them, else on the PCT item score, with
    the answered samples it rests on. Empty when the frame holds no audit rows.
    """
    rows = main_rows(audit_rows(frame))
    if rows.empty:
        return {}
    cells = build_cells(rows)
    dec, units = decomposition(cells), WD_UNITS
    if dec.dropna(subset=["sycophancy_left", "sycophancy_right"]).empty:
        dec, units = pct_decomposition(cells), PCT_UNITS
    dec = dec.dropna(subset=["sycophancy_left", "sycophancy_right"])
    left, right = _mean(dec["sycophancy_left"]), _mean(dec["sycophancy_right"])
    ratio = right / left if left not in (None, 0.0) and right is not None else None
    return {
        "answers": int((rows["status"] == ANSWERED).sum()),
        "n_models": int(len(dec)),
        "units": units if len(dec) else None,
        "sycophancy_left": left,
        "sycophancy_right": right,
        "ratio": ratio if ratio is None or math.isfinite(ratio) else None,
    }
