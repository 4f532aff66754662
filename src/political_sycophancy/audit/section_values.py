"""What the audit's report sections share.

JSON-safe numbers for summary.json, nested summary nodes, and whether a frame holds audit
rows at all.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..shared.cells import audit_rows


def number(x: Any) -> float | None:
    """A JSON-safe number (None for NaN / missing)."""
    if x is None:
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) or math.isinf(f) else f


def integer(x: Any) -> int | None:
    """A JSON-safe integer (None for NaN / missing)."""
    f = number(x)
    return None if f is None else int(f)


def nested(root: dict, *keys: str) -> dict:
    """The node of `root` under `keys`, each level made an empty dict when missing."""
    for k in keys:
        root = root.setdefault(k, {})
    return root


def no_audit(frame: pd.DataFrame) -> bool:
    """Whether the frame holds no audit rows (the audit's sections then add nothing)."""
    return audit_rows(frame).empty
