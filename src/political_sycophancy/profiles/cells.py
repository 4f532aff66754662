"""Profile logs -> cells: one row per model x instrument x persona-mode x item.

Each row has the persona's attribute levels, cue mode and weight beside the outcomes.

The cells are the audit's (`shared.cells.build_cells`: epochs pooled, PCT ideology, Typology
score, WD to each party, closer-to) on the rows of `profiles` tasks, whose condition is
`<persona>:<mode>` (the baseline persona: N), so that a persona's numbers are computed by
the same code as an audit condition's.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np
import pandas as pd

from ..core.measures import DEM_LABEL, REP_LABEL
from ..shared.cells import build_cells, main_rows
from ..shared.personas import ATTRIBUTE_PREFIX, BASELINE_MODE
from ..stats.options import RunCache
from . import KIND

PERSONA_COLUMNS = (
    "persona_id",
    "cue_mode",
    "cue_placement",
    "persona_weight",
    "asker_side",
    "profile_references",
    "persona_cue",
)
# instrument scoring -> (outcome column, label) of the attribute effects
OUTCOMES = MappingProxyType(
    {
        "pct": (("ideology", "PCT score (-2 left ... +2 right)"),),
        "typology": (("typology", "Typology score (-1 left ... +1 right)"),),
        "wd": (
            ("wd_dem", "WD(Dem): distance to Democrats (0 = their distribution)"),
            ("closer_dem", "share closer to Democrats (percentage points)"),
        ),
    }
)


def profile_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of `profiles` tasks (task metadata political_sycophancy = profiles)."""
    if frame.empty or "kind" not in frame.columns:
        return frame.iloc[0:0]
    return frame[frame["kind"] == KIND]


def attribute_columns(rows: pd.DataFrame) -> list[str]:
    """The persona attributes the rows carry (metadata `persona_<attribute>`)."""
    skip = set(PERSONA_COLUMNS)
    return [c for c in rows.columns if c.startswith(ATTRIBUTE_PREFIX) and c not in skip]


def personas_of(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per model x instrument x condition: the persona, mode, weight and levels."""
    cols = ["model", "instrument", "condition", *PERSONA_COLUMNS, *attribute_columns(rows)]
    present = [c for c in cols if c in rows.columns]
    return rows[present].drop_duplicates(["model", "instrument", "condition"]).reset_index(drop=True)


def profile_cells(frame: pd.DataFrame, cache: RunCache | None = None) -> pd.DataFrame:
    """The cells of each model's main-variant profile rows, with the persona columns and closer shares.

    The cells of the profile rows of each model's main variant, with the persona columns and
    `closer_dem` (100 when closer to Democrats, 0 when closer to Republicans or equal, as
    the audit's share closer to Democrats counts ties) and `closer_rep` alike.
    """

    def compute() -> pd.DataFrame:
        rows = main_rows(profile_rows(frame))
        if rows.empty:
            return pd.DataFrame()
        cells = build_cells(rows)
        cells = cells.merge(personas_of(rows), on=["model", "instrument", "condition"], how="left")
        closer = cells["closer"]
        has = closer.notna()
        cells["closer_dem"] = np.where(has, np.where(closer == DEM_LABEL, 100.0, 0.0), np.nan)
        cells["closer_rep"] = np.where(has, np.where(closer == REP_LABEL, 100.0, 0.0), np.nan)
        cells["persona_weight"] = pd.to_numeric(cells["persona_weight"], errors="coerce").fillna(1.0)
        cells["is_baseline"] = cells["cue_mode"] == BASELINE_MODE
        return cells

    if cache is None:
        return compute()
    return cache.get(("profile_cells", id(frame)), lambda: (frame, compute()))[1]
