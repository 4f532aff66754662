"""Multiplicity: how many of a family of p-values stay below a level after Holm's step-down
adjustment (controls the family-wise error rate under any dependence)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def holm(pvalues: Iterable[float]) -> np.ndarray:
    """Holm-adjusted p-values, in the input order: the k-th smallest of m is multiplied by
    m - k + 1, made monotone and capped at 1."""
    p = np.asarray(list(pvalues), dtype=float)
    m = len(p)
    if not m:
        return p
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out
