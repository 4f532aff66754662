"""What the probes' analyses share.

Their rows of the tidy frame, the condition order of their tables, the bootstrap CI over
items, and values made JSON-safe for summary.json.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..core.conditions import CUE_ORDER, PERSONAS
from ..stats.options import AnalysisOptions
from ..stats.resample import cluster_mean_interval

EXPECTED_KIND = "expected_answer"
PERCEPTION_KIND = "perception"
CONDITION_ORDER = (*CUE_ORDER, *PERSONAS)


def item_ci(
    values: pd.Series, rows: pd.DataFrame, options: AnalysisOptions, rng: np.random.Generator
) -> tuple[float, float]:
    """95% percentile bootstrap CI of the mean of `values` over the items of `rows`.

    95% percentile bootstrap CI of the mean of `values` (NaN = not counted) over the items
    of `rows` (each item with all its calls).
    """
    clusters = rows["item_id"] if "item_id" in rows.columns else pd.Series(np.arange(len(rows)), index=rows.index)
    return cluster_mean_interval(values.to_numpy(float), clusters.astype(str).to_numpy(), options.bootstrap_draws, rng)


def kind_rows(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    """A copy of the frame's rows of one probe kind (none when the frame has no `kind` column)."""
    if frame.empty or "kind" not in frame.columns:
        return frame.iloc[0:0]
    return frame[frame["kind"] == kind].copy()


def numeric(rows: pd.DataFrame, column: str) -> pd.Series:
    """A column as floats, unreadable values and a missing column as NaN."""
    if column not in rows.columns:
        return pd.Series(np.nan, index=rows.index, dtype=float)
    return pd.to_numeric(rows[column], errors="coerce").astype(float)


def condition_rank(condition: str) -> int:
    """A condition's place in the tables: cue order, then the personas, then any other."""
    return CONDITION_ORDER.index(condition) if condition in CONDITION_ORDER else len(CONDITION_ORDER)


def sort_rows(table: pd.DataFrame) -> pd.DataFrame:
    """A per model x condition table sorted by model, then condition order."""
    if table.empty:
        return table
    return (
        table.assign(_rank=table["condition"].map(condition_rank))
        .sort_values(["model", "_rank", "condition"])
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


def column_or_none(rows: pd.DataFrame, name: str) -> pd.Series:
    """A column, or None in every row when the frame lacks it (older logs)."""
    return rows[name] if name in rows.columns else pd.Series(None, index=rows.index, dtype=object)


def by_model(table: pd.DataFrame, keys: tuple[str, ...]) -> dict:
    """summary.json's model -> condition -> the row's values of `keys`."""
    return {
        str(m): {str(r["condition"]): {k: clean(r[k]) for k in keys if k in r} for _, r in g.iterrows()}
        for m, g in table.groupby("model")
    }


def clean(value: Any) -> Any:
    """A value for summary.json: numpy integers as int, NaN as None, floats as float."""
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    return value
