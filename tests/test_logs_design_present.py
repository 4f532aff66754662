"""`design.present_cells`: the frame's (sample id, epoch) pairs per design key, grouped by
pandas, equal to the per-row definition it replaced (one row at a time into four sets)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from political_sycophancy.logs.design import ANY_MODE, GROUP, PER_SAMPLE, present_cells


def per_row(frame: pd.DataFrame) -> dict[tuple, set]:
    """The definition: each row's pair under its own key, ANY_MODE, PER_SAMPLE and both."""
    present: dict[tuple, set] = {}
    keys = frame[GROUP[:4] + ["condition", "answer_mode", "sample_id", "epoch"]].astype(object)
    for rec in keys.itertuples(index=False, name=None):
        cell = (str(rec[6]), int(rec[7]))
        present.setdefault(rec[:6], set()).add(cell)
        present.setdefault((*rec[:5], ANY_MODE), set()).add(cell)
        present.setdefault((*rec[:4], PER_SAMPLE, rec[5]), set()).add(cell)
        present.setdefault((*rec[:4], PER_SAMPLE, ANY_MODE), set()).add(cell)
    return present


def planted_frame(rows: int = 3000, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    pick = lambda values: [values[i] for i in rng.integers(0, len(values), rows)]  # noqa: E731
    return pd.DataFrame({
        "model": pick(["m/a", "m/b", "m/c"]),
        "variant": pick(["main", "T=0.2"]),
        "kind": pick(["audit", "profiles"]),
        "task": pick(["audit_pct_N", "audit_atp_C3R", "profiles_pct"]),
        "condition": pick(["N", "C3R", "persona_1", "persona_2"]),
        "answer_mode": pick(["letter", "logprobs", None]),
        "sample_id": pick(["pct_01", "pct_02", 7, 12, "atp_W26_X"]),  # ids that are numbers too
        "epoch": pick([1, 2, 3, 1.0]),  # repeats of one cell, and an epoch read as a float
        "instrument": "pct",
    })


def test_grouped_cells_equal_the_per_row_definition():
    frame = planted_frame()
    assert present_cells(frame) == per_row(frame)


def test_one_row_and_no_rows():
    frame = planted_frame(rows=1)
    assert present_cells(frame) == per_row(frame) and len(present_cells(frame)) == 4
    assert present_cells(frame.iloc[:0]) == {}
