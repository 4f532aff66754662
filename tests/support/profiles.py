"""Inputs of the profile tests and bench: a synthetic survey `.sav` file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def write_sav(path: Path, rows: list[dict], labels: dict | None = None) -> Path:
    """A `.sav` file of `rows` (one dict per respondent), written with pyreadstat."""
    import pyreadstat

    frame = pd.DataFrame(rows)
    pyreadstat.write_sav(frame, str(path), variable_value_labels=labels or {})
    return path
