"""Our scores in Inspect's own dataframes (`inspect_ai.analysis.samples_df`).

Inspect puts a dict-valued score in one JSON string column per scorer (`score_pct_score`);
`flat_scores` turns each into one numeric column per key (`score_pct_score_ideology`,
`score_pct_score_answered`, ...), NaN where a key is undefined (an unparsed or refused
answer), so a pandas user need not unpack them by hand.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd


def _as_dict(value: Any) -> dict | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


def _number(value: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return math.nan  # None (Inspect writes NaN as null) or a label


def flat_scores(samples: pd.DataFrame) -> pd.DataFrame:
    """`samples` with each dict-valued `score_*` column split into one float column per key.

    Values are dicts or their JSON text; the new columns are named `score_<scorer>_<key>`;
    other columns unchanged.
    """
    out = samples.copy()
    for column in [c for c in samples.columns if str(c).startswith("score_")]:
        dicts = [_as_dict(v) for v in samples[column]]
        if not any(d is not None for d in dicts):
            continue
        keys = sorted({k for d in dicts if d for k in d})
        position = list(out.columns).index(column)
        out = out.drop(columns=[column])
        for offset, key in enumerate(keys):
            out.insert(position + offset, f"{column}_{key}", [_number(d.get(key)) if d else math.nan for d in dicts])
    return out
