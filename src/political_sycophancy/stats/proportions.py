"""Intervals for rates and differences that keep their coverage when the rates are rare.

For rates, paired differences of rates and differences of correlated estimates (a percentile
bootstrap of a rate seen 0 times is [0, 0], and covers a true 4% rate in about 80% of samples
of 100).

- `wilson_interval`: Wilson's score interval of a proportion (Wilson 1927).
- `paired_difference_interval`: Newcombe's square-and-add interval of p1 - p2 for paired
  binary outcomes (Newcombe 1998, method 10; the continuity-corrected correlation estimate,
  as Fagerland, Lydersen & Laake, *Statistical Analysis of Contingency Tables*, 2017, ch. 8,
  define it): Wilson intervals of the two margins combined with their estimated correlation.
- `mover_difference`: Zou & Donner's (2008) method of variance estimates recovery for
  theta1 - theta2 from the two estimates' own intervals and their correlation.

The unit is a cluster (a pair of prompts): a cluster's samples (its epochs, or its askers in a
pooled row) are averaged and the cluster weighs one, so the intervals are those of n
clusters with fractional outcomes, which is conservative when a cluster's samples agree
(repeated epochs at a low temperature) and about exact with one sample per cluster.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from .resample import iid_counts

LEVEL = 0.95


def _z(level: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - level) / 2)


def wilson_interval(successes: float, n: float, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's score interval of successes / n (fractional counts allowed); NaNs when n is 0.

    Never a point at 0 or 1, unlike a percentile bootstrap of a rate seen 0 or n times.
    """
    if n <= 0:
        return math.nan, math.nan
    z = _z(level)
    p = min(max(successes / n, 0.0), 1.0)
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def cluster_means(values: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """(k, columns) means over each cluster's rows of a 2-D array of values without NaN.

    One row per cluster that has rows (clusters in sorted order).
    """
    _, member = np.unique(np.asarray(clusters).astype(str), return_inverse=True)
    sums = np.zeros((member.max() + 1 if len(member) else 0, values.shape[1]))
    np.add.at(sums, member, values)
    counts = np.bincount(member, minlength=len(sums)).astype(float)
    return sums / counts[:, None]


def proportion_interval(
    values: np.ndarray, clusters: np.ndarray, level: float = LEVEL
) -> tuple[float, float, float, int]:
    """A rate averaged over clusters with Wilson's interval: (rate, low, high, clusters).

    The rate is the mean over clusters of each cluster's mean of its read (non-NaN) 0/1
    values; the interval's n is the number of clusters with a read value.
    """
    x = np.asarray(values, dtype=float)
    keep = ~np.isnan(x)
    if not keep.any():
        return math.nan, math.nan, math.nan, 0
    means = cluster_means(x[keep][:, None], np.asarray(clusters)[keep])[:, 0]
    low, high = wilson_interval(float(means.sum()), len(means), level)
    return float(means.mean()), low, high, len(means)


def _newcombe(a: float, b: float, c: float, d: float, level: float) -> tuple[float, float, float]:
    """Newcombe's square-and-add interval of (a + b) / n - (a + c) / n from a paired 2x2 table.

    a: both, b: first only, c: second only, d: neither; fractional counts allowed.
    """
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n, level)
    l2, u2 = wilson_interval(a + c, n, level)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    psi = 0.0
    if margins > 0:
        cross = a * d - b * c
        psi = (
            (cross - n / 2) / math.sqrt(margins) if cross > n / 2 else 0.0 if cross >= 0 else cross / math.sqrt(margins)
        )
    estimate = p1 - p2
    low = estimate - math.sqrt(max(0.0, (p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * psi * (p1 - l1) * (u2 - p2)))
    high = estimate + math.sqrt(max(0.0, (p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * psi * (p2 - l2) * (u1 - p1)))
    return estimate, max(-1.0, low), min(1.0, high)


def paired_difference_interval(
    x: np.ndarray, y: np.ndarray, clusters: np.ndarray, level: float = LEVEL
) -> tuple[float, float, float]:
    """(mean x - mean y, low, high) for paired 0/1 outcomes x and y, clusters averaged.

    A sample counts when both are read. Newcombe's square-and-add interval on the
    clusters' fractional 2x2 table. NaNs without a sample with both read.
    """
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = ~(np.isnan(xs) | np.isnan(ys))
    if not keep.any():
        return math.nan, math.nan, math.nan
    xs, ys = xs[keep], ys[keep]
    cells = np.column_stack([xs * ys, xs * (1 - ys), (1 - xs) * ys, (1 - xs) * (1 - ys)])
    a, b, c, d = cluster_means(cells, np.asarray(clusters)[keep]).sum(axis=0)
    return _newcombe(float(a), float(b), float(c), float(d), level)


def n_clusters_read(x: np.ndarray, y: np.ndarray, clusters: np.ndarray) -> int:
    """The clusters with at least one sample whose x and y are both read."""
    keep = ~(np.isnan(np.asarray(x, dtype=float)) | np.isnan(np.asarray(y, dtype=float)))
    return int(len(np.unique(np.asarray(clusters)[keep].astype(str))))


def mover_difference(
    theta1: float, interval1: tuple[float, float], theta2: float, interval2: tuple[float, float], correlation: float
) -> tuple[float, float]:
    """Zou & Donner's MOVER interval of theta1 - theta2 from each estimate's own interval and their correlation.

    Asymmetric intervals are kept so.
    """
    (l1, u1), (l2, u2) = interval1, interval2
    r = min(1.0, max(-1.0, correlation)) if math.isfinite(correlation) else 0.0
    diff = theta1 - theta2
    low = diff - math.sqrt(max(0.0, (theta1 - l1) ** 2 + (u2 - theta2) ** 2 - 2 * r * (theta1 - l1) * (u2 - theta2)))
    high = diff + math.sqrt(max(0.0, (u1 - theta1) ** 2 + (theta2 - l2) ** 2 - 2 * r * (u1 - theta1) * (theta2 - l2)))
    return low, high


def resampled_correlation(u: np.ndarray, v: np.ndarray, n_resamples: int, rng: np.random.Generator) -> float:
    """The correlation of the means of u and v over the same bootstrap resamples of their units.

    u[k], v[k] belong to one unit, e.g. one pair under two askers; 0 when either mean
    does not vary over the resamples (no information on the dependence).
    """
    uu, vv = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    if len(uu) < 2 or n_resamples < 2:
        return 0.0
    counts = iid_counts(len(uu), n_resamples, rng)
    mu, mv = counts @ uu / len(uu), counts @ vv / len(vv)
    su, sv = mu.std(), mv.std()
    if su <= 1e-12 or sv <= 1e-12:
        return 0.0
    return float(np.corrcoef(mu, mv)[0, 1])
