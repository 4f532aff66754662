"""Multiplicity: Holm's step-down adjustment and Benjamini-Hochberg q-values for a family of p-values.

How many of a family of p-values stay below a level after Holm's adjustment (controls the
family-wise error rate under any dependence), and Benjamini-Hochberg q-values (control the
false discovery rate under independence or positive dependence).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def holm(pvalues: Iterable[float]) -> np.ndarray:
    """Holm-adjusted p-values, in the input order.

    The k-th smallest of m is multiplied by m - k + 1, made monotone and capped at 1.
    """
    p = np.asarray(list(pvalues), dtype=float)
    m = len(p)
    if not m:
        return p
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out


def benjamini_hochberg(pvalues: Iterable[float]) -> np.ndarray:
    """Benjamini-Hochberg q-values (false discovery rate), in the input order.

    The k-th smallest of the m finite p-values times m / k, made monotone from the largest
    down and capped at 1; a NaN p-value is left out of the family and stays NaN. Under the
    complete null (every hypothesis true) any q below a level occurs with probability at
    most that level, so `any(q < 0.05)` is a family-wise test too.
    """
    p = np.asarray(list(pvalues), dtype=float)
    out = np.full(len(p), np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    m = len(finite)
    if not m:
        return out
    order = finite[np.argsort(p[finite], kind="stable")]
    scaled = p[order] * m / np.arange(1, m + 1)
    out[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return out
