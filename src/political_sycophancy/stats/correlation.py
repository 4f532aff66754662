"""Intervals for correlations across a few units (the models of a run)."""

from __future__ import annotations

import numpy as np


def fisher_interval(r: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Fisher z interval of a Pearson r from n pairs.

    tanh(atanh(r) -/+ z_(1+level)/2 / sqrt(n - 3)); NaN below 4 pairs.
    """
    from scipy import stats  # here, not at import: scipy's import is about a second

    if n < 4 or not np.isfinite(r):
        return (np.nan, np.nan)
    z, half = np.arctanh(np.clip(r, -0.999999, 0.999999)), stats.norm.ppf(0.5 + level / 2) / np.sqrt(n - 3)
    return (float(np.tanh(z - half)), float(np.tanh(z + half)))
