"""Intervals for rates and paired differences of rates that keep their coverage at rare rates
(issue 45): Wilson's score interval, Newcombe's paired square-and-add interval, the MOVER
difference of two correlated estimates, each on pairs (a pair's epochs or askers averaged)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from political_sycophancy.stats.proportions import (
    mover_difference,
    paired_difference_interval,
    proportion_interval,
    wilson_interval,
)


@pytest.mark.parametrize("successes, n", [(0, 10), (1, 10), (5, 10), (10, 10), (4, 100), (0, 7)])
def test_wilson_is_statsmodels_wilson(successes, n):
    low, high = wilson_interval(successes, n)
    expected = proportion_confint(successes, n, alpha=0.05, method="wilson")
    assert (low, high) == pytest.approx(expected, abs=1e-12)


def test_wilson_never_collapses_at_zero_or_one():
    low, high = wilson_interval(0, 50)
    assert low == 0.0 and high > 0.06
    low, high = wilson_interval(50, 50)
    assert high == 1.0 and low < 0.94
    assert all(math.isnan(v) for v in wilson_interval(0, 0))


def test_newcombe_square_and_add_on_the_published_table():
    """Fagerland, Lydersen and Laake (2017), chapter 8, Cavo et al. (2012): a = 59, b = 6,
    c = 16, d = 80 gives -0.0621 (95% CI -0.1186 to -0.0046)."""
    cells = [(1, 1)] * 59 + [(1, 0)] * 6 + [(0, 1)] * 16 + [(0, 0)] * 80
    x, y = (np.array(v, dtype=float) for v in zip(*cells, strict=True))
    estimate, low, high = paired_difference_interval(x, y, np.arange(len(x)))
    assert (round(estimate, 4), round(low, 4), round(high, 4)) == (-0.0621, -0.1186, -0.0046)


def test_paired_difference_with_no_events_is_not_a_point():
    x = np.zeros(40)
    estimate, low, high = paired_difference_interval(x, x, np.arange(40))
    assert estimate == 0.0 and low < -0.05 and high > 0.05
    # mutually exclusive outcomes (which answer is more helpful): the interval of 6 right
    # minus 0 left over 40 pairs excludes 0
    right = np.r_[np.ones(6), np.zeros(34)]
    estimate, low, high = paired_difference_interval(right, np.zeros(40), np.arange(40))
    assert estimate == pytest.approx(0.15) and 0.0 < low < 0.15 < high


def test_clusters_weigh_one_each_and_nan_is_left_out():
    """A pair's epochs are averaged (the pair is the unit); unread values are left out."""
    values = np.array([1.0, 1.0, 0.0, 0.0, np.nan, 0.0])
    clusters = np.array(["p1", "p1", "p2", "p2", "p3", "p3"])
    estimate, low, high, n = proportion_interval(values, clusters)
    assert (estimate, n) == (pytest.approx(1 / 3), 3)
    assert (low, high) == pytest.approx(wilson_interval(1.0, 3))
    x = np.array([1.0, 0.0, 1.0, 1.0])
    y = np.array([0.0, 0.0, np.nan, 0.0])
    estimate, low, high = paired_difference_interval(x, y, np.array(["p1", "p1", "p2", "p2"]))
    assert estimate == pytest.approx((0.5 + 1.0) / 2)  # the pair with y unread keeps its read sample


def test_mover_reduces_to_the_sum_of_squares_when_uncorrelated():
    low, high = mover_difference(0.3, (0.2, 0.45), 0.1, (0.0, 0.25), 0.0)
    assert low == pytest.approx(0.2 - math.hypot(0.1, 0.15)) and high == pytest.approx(0.2 + math.hypot(0.15, 0.1))
    # perfectly correlated estimates with equal spreads: the difference is known exactly
    low, high = mover_difference(0.3, (0.2, 0.4), 0.1, (0.0, 0.2), 1.0)
    assert (low, high) == pytest.approx((0.2, 0.2))


def test_coverage_of_a_rare_one_sided_rate():
    """1,000 draws of 100 pairs, the right prompt refused at 4%, the left never: Wilson's
    interval of the right rate (exact coverage 0.936 at n = 100, p = 0.04) and Newcombe's of
    right minus left cover 0.04 in at least 91% of them (a percentile bootstrap of the rate
    covers about 80%: bench/evenhandedness_coverage.py)."""
    rng = np.random.default_rng(45)
    covered_rate = covered_diff = 0
    for _ in range(1000):
        right = (rng.random(100) < 0.04).astype(float)
        left = np.zeros(100)
        _, low, high, _ = proportion_interval(right, np.arange(100))
        covered_rate += low <= 0.04 <= high
        _, low, high = paired_difference_interval(right, left, np.arange(100))
        covered_diff += low <= 0.04 <= high
    assert covered_rate >= 910 and covered_diff >= 910, (covered_rate, covered_diff)
