"""The bootstrap: iid, stratified and cluster resampling, and the percentile interval.

Every resampler draws ONE matrix per call from the caller's `numpy.random.Generator`:
either the drawn indices (n_resamples x n, `iid_indices`) or the equivalent counts, how
often each unit was drawn (n_resamples x n, `iid_counts`, `stratified_counts`,
`cluster_counts`, `category_counts`). A statistic that is a sum or a mean over units is
then one matrix product (`counts @ values`), so a bootstrap is vectorised and the same
draws can serve several statistics (e.g. every cell of a SWAY group, so that orderings can
be read off the draws).

Index and count draws have the same distribution but different random streams: callers
keep the form they were written with, so their published intervals stay reproducible for
a seed. `resampled_means` draws indices once for every column of values over the same
units (`shared.bootstrap.bootstrap_table`: every statistic over the same items). The
interval is the percentile interval of the finite replicates (`percentile_interval`),
scipy's `bootstrap(method="percentile")` on the same draws.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

# Index matrices are drawn in chunks of at most this many entries (memory); consecutive
# chunks from one Generator give exactly the numbers of a single draw.
CHUNK_ENTRIES = 2_000_000
# columns `resampled_means` averages over their drawn values; beyond, it multiplies counts
GATHERED_COLUMNS = 8


def iid_indices(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, n) indices of n units drawn with replacement (`rng.integers`)."""
    return rng.integers(0, n, size=(n_resamples, n))


def index_counts(indices: np.ndarray, n: int) -> np.ndarray:
    """(rows, n) counts of each of n units in each row of an index matrix (`iid_indices`).

    A statistic that is a mean over the drawn units is then counts @ values / n.
    """
    rows = len(indices)
    flat = (indices + (np.arange(rows) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n)


def iid_counts(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, n) float counts of n units drawn with replacement.

    One multinomial draw per resample: each row sums to n.
    """
    return rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples).astype(float)


def category_counts(counts: ArrayLike, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, k) float counts per category when a sample's units are resampled with replacement.

    The n = sum(counts) units each lie in one category; multinomial draws with the
    observed shares.
    """
    c = np.asarray(counts, dtype=float)
    n = int(round(c.sum()))
    if n == 0:
        return np.zeros((n_resamples, len(c)))
    return rng.multinomial(n, c / n, size=n_resamples).astype(float)


def stratified_counts(strata: ArrayLike, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, n) float counts of units resampled with replacement within their stratum.

    Each stratum keeps its size; strata are taken in sorted order.
    """
    labels = np.asarray(strata)
    weights = np.zeros((n_resamples, len(labels)))
    rows = np.arange(n_resamples)[:, None]
    for stratum in np.unique(labels):
        idx = np.flatnonzero(labels == stratum)
        np.add.at(weights, (rows, idx[iid_indices(len(idx), n_resamples, rng)]), 1.0)
    return weights


def cluster_counts(clusters: ArrayLike, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, n) float counts of units when whole clusters are resampled with replacement.

    Every unit of a drawn cluster comes along; clusters in sorted order.
    """
    names, member = np.unique(np.asarray(clusters), return_inverse=True)
    return iid_counts(len(names), n_resamples, rng)[:, member]


def percentile_interval(replicates: ArrayLike, level: float = 0.95, min_finite: int = 1) -> tuple[float, float]:
    """(low, high): the (1 - level)/2 and (1 + level)/2 quantiles (linear interpolation) of the finite replicates.

    NaNs when fewer than `min_finite` are finite.
    """
    r = np.asarray(replicates, dtype=float)
    r = r[np.isfinite(r)]
    if r.size < max(1, min_finite):
        return math.nan, math.nan
    alpha = (1 - level) / 2
    low, high = np.quantile(r, [alpha, 1 - alpha])
    return float(low), float(high)


def resampled_means(columns: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(n_resamples, k) means of each column of `columns` over the same `n_resamples` iid resamples of its units.

    `columns` is n units x k, no NaN. The indices are drawn as `iid_indices` draws them (in
    chunks, the same numbers as one draw). A few columns are averaged over their drawn values
    (one column: exactly `x[indices].mean(axis=1)`); many (more than GATHERED_COLUMNS) are one
    product of the draws' counts with the columns, the counting costing about as much as
    gathering a handful of columns. A column holding an infinite value is always averaged over
    its drawn values (a count of 0 times inf is not 0).
    """
    n, k = columns.shape
    means = np.empty((n_resamples, k))
    product = np.isfinite(columns).all(axis=0) if k > GATHERED_COLUMNS else np.zeros(k, dtype=bool)
    chunk = max(1, CHUNK_ENTRIES // n)
    for start in range(0, n_resamples, chunk):
        stop = min(n_resamples, start + chunk)
        idx = iid_indices(n, stop - start, rng)
        for j in np.flatnonzero(~product):
            means[start:stop, j] = columns[:, j][idx].mean(axis=1)
        if product.any():
            means[start:stop, product] = index_counts(idx, n) @ columns[:, product] / n
    return means


def bootstrap_mean(
    values: ArrayLike, n_resamples: int, rng: np.random.Generator, level: float = 0.95
) -> tuple[float, float, float]:
    """(mean, low, high): the mean of `values` and the percentile interval of the means of iid resamples.

    NaNs are dropped; `n_resamples` resamples; NaNs without values, the value three
    times with one (no draw is made then).
    """
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return math.nan, math.nan, math.nan
    if len(x) == 1:
        return float(x[0]), float(x[0]), float(x[0])
    low, high = percentile_interval(resampled_means(x[:, None], n_resamples, rng)[:, 0], level)
    return float(x.mean()), low, high


def cluster_mean_interval(
    values: ArrayLike, clusters: ArrayLike, n_resamples: int, rng: np.random.Generator, level: float = 0.95
) -> tuple[float, float]:
    """(low, high): the percentile interval of the mean of `values` when whole clusters are resampled.

    NaNs are not counted; clusters (e.g. the items, with every call on them) are resampled
    with replacement (`cluster_counts`); each replicate is sum(count x value) / sum(count)
    over the counted units. NaNs without a counted value (no draw is made then).
    """
    x = np.asarray(values, dtype=float)
    keep = ~np.isnan(x)
    if not keep.any():
        return math.nan, math.nan
    counts = cluster_counts(np.asarray(clusters)[keep], n_resamples, rng)
    total = counts.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (counts @ x[keep]) / total
    return percentile_interval(means, level)
