"""The per-condition table `audit` and `analyze` print: one format for both commands.

`audit` fills it from Inspect's task metrics, `analyze` from the condition summary over
matched items; the columns are Inspect's metric names (what `inspect view` shows), the rows
in the design's condition order.
"""

from __future__ import annotations

from typing import Any

from ..core.conditions import design_rank
from ..core.text import text_table

COLUMNS = (
    "model",
    "condition",
    "samples",
    "errors",
    "ideology",
    "typology",
    "wd_dem",
    "wd_rep",
    "closer_dem",
    "answered",
    "refused",
)
NOTE = (
    "means over answered samples; answered and refused are shares of scored samples; errors are samples with no score"
)


def summary_table(rows: list[dict[str, Any]]) -> str:
    """Rows (one per model x condition) as the printed table.

    Sorted by model, then in the design's condition order, with the columns of `COLUMNS`
    that any row has.
    """
    ordered = sorted(rows, key=lambda r: (str(r["model"]), design_rank(str(r["condition"]))))
    return text_table(ordered, [c for c in COLUMNS if any(c in r for r in ordered)])
