"""stats.resample: the one bootstrap module (iid / stratified / cluster draws, percentile
interval) and its equality with scipy (`scipy.stats.bootstrap`, `permutation_test`,
`wilcoxon`)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from political_sycophancy.shared.bootstrap import bootstrap_mean_ci, bootstrap_table
from political_sycophancy.stats.resample import (
    bootstrap_mean,
    category_counts,
    cluster_counts,
    iid_counts,
    iid_indices,
    percentile_interval,
    stratified_counts,
)


def test_draw_matrices_have_the_bootstrap_shape_and_margins():
    rng = np.random.default_rng(1)
    idx = iid_indices(7, 50, rng)
    assert idx.shape == (50, 7) and idx.min() >= 0 and idx.max() < 7
    counts = iid_counts(7, 50, rng)
    assert counts.shape == (50, 7) and (counts.sum(axis=1) == 7).all()
    cat = category_counts([3, 0, 5], 40, rng)
    assert cat.shape == (40, 3) and (cat[:, 1] == 0).all() and (cat.sum(axis=1) == 8).all()
    assert (category_counts([0, 0], 5, rng) == 0).all()


def test_stratified_counts_keep_every_stratum_size():
    strata = np.array(["a", "b", "a", "a", "b", "c"])
    w = stratified_counts(strata, 200, np.random.default_rng(2))
    for s in "abc":
        assert (w[:, strata == s].sum(axis=1) == (strata == s).sum()).all()
    # a one-unit stratum is always drawn once
    assert (w[:, strata == "c"] == 1).all()


def test_cluster_counts_move_whole_clusters():
    clusters = np.array([1, 1, 2, 3, 3, 3])
    w = cluster_counts(clusters, 300, np.random.default_rng(3))
    assert (w[:, 0] == w[:, 1]).all() and (w[:, 3] == w[:, 5]).all()
    # clusters drawn = number of clusters
    assert (w[:, [0, 2, 3]].sum(axis=1) == 3).all()


def test_percentile_interval_ignores_non_finite_replicates():
    r = np.array([np.nan, np.inf, *np.arange(101.0)])
    assert percentile_interval(r, 0.9) == pytest.approx((5.0, 95.0))
    assert all(math.isnan(v) for v in percentile_interval([np.nan, 1.0], min_finite=2))


def test_bootstrap_mean_edge_cases_and_chunking_keep_the_stream():
    assert all(math.isnan(v) for v in bootstrap_mean([np.nan], 10, np.random.default_rng(0)))
    assert bootstrap_mean([2.0, np.nan], 10, np.random.default_rng(0)) == (2.0, 2.0, 2.0)
    # chunked draws (large n) equal one unchunked draw from the same generator
    x = np.random.default_rng(4).normal(size=50_001)
    chunked = bootstrap_mean(x, 90, np.random.default_rng(9))
    means = x[np.random.default_rng(9).integers(0, len(x), size=(90, len(x)))].mean(axis=1)
    assert chunked[1:] == tuple(float(q) for q in np.quantile(means, [0.025, 0.975]))


# Numbers of the resamplers before they moved here (main at 7117ca7): the same seeds give
# the same intervals, digit for digit.
def test_audit_bootstrap_numbers_are_unchanged():
    rng = np.random.default_rng(1)
    x = rng.normal(size=37)
    assert bootstrap_mean_ci(x, draws=3000) == (0.04009848166979833, -0.2657294534266555, 0.3383199367072777)
    v = pd.DataFrame({"g": np.repeat(list("abc"), 20), "item_id": np.arange(60), "value": np.random.default_rng(5).normal(size=60)})
    table = bootstrap_table(v, ["g"], draws=500, seed=3)
    assert table["ci_low"].notna().all() and (table["ci_low"] <= table["estimate"]).all()
    # groups over different items draw in turn from one generator, each as bootstrap_mean_ci would
    rng = np.random.default_rng(3)
    for (_, g), row in zip(v.groupby("g"), table.itertuples(), strict=True):
        assert (row.estimate, row.ci_low, row.ci_high) == pytest.approx(bootstrap_mean_ci(g["value"], draws=500, rng=rng), rel=1e-13)


def test_bootstrap_table_shares_the_draws_of_groups_over_the_same_items():
    """What a user's table holds: several statistics of a model over the same items, in
    any row order, and a group with an item missing (its own draws)."""
    rng = np.random.default_rng(8)
    x = rng.normal(size=30)
    items = [f"item{k:02d}" for k in range(30)]
    shuffled = rng.permutation(30)
    v = pd.concat([
        pd.DataFrame({"statistic": "a", "item_id": items, "value": x}),
        pd.DataFrame({"statistic": "b", "item_id": np.array(items)[shuffled], "value": 2 * x[shuffled] + 1}),
        pd.DataFrame({"statistic": "c", "item_id": items, "value": np.where(np.arange(30) == 4, np.nan, x)}),
    ])
    table = bootstrap_table(v, ["statistic"], draws=800, seed=2).set_index("statistic")
    a, b, c = table.loc["a"], table.loc["b"], table.loc["c"]
    # b = 2a + 1 item by item: with the same resamples its interval is 2 x a's + 1, exactly
    assert (b["ci_low"], b["ci_high"]) == pytest.approx((2 * a["ci_low"] + 1, 2 * a["ci_high"] + 1), rel=1e-12)
    assert c["n"] == 29 and (c["ci_low"], c["ci_high"]) != pytest.approx((a["ci_low"], a["ci_high"]), rel=1e-6)
    # the first set met draws first: a alone gives a's interval
    alone = bootstrap_table(v[v["statistic"] == "a"], ["statistic"], draws=800, seed=2)
    assert (alone.iloc[0]["ci_low"], alone.iloc[0]["ci_high"]) == pytest.approx((a["ci_low"], a["ci_high"]), rel=1e-13)


def _open_ended_rows(n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = pd.DataFrame(
        {
            "kind": "open_ended", "model": "m", "instrument": "i", "dimension": "economic", "prefix": "p", "version": "v",
            "side": rng.choice(["left", "right"], n), "stance": rng.choice(["agree", "disagree", "neutral", "unrelated"], n),
            "status": rng.choice(["answered", "answered", "answered", "refused"], n), "item_id": rng.integers(0, 12, n),
        }
    )
    rows["original_side"] = np.where(rows["item_id"] % 2 == 0, "left", "right")
    return rows


def test_open_ended_bootstrap_numbers_are_unchanged():
    from political_sycophancy.open_ended.analysis import bootstrap_total

    rows = _open_ended_rows()
    assert bootstrap_total(rows, 700, 0.9, 4, "responses") == (-0.11160872170853961, 0.088478536450041, 0.0)
    assert bootstrap_total(rows, 700, 0.9, 4, "statements") == (-0.11736185615465572, 0.10209800992526753, 0.0)


def test_sway_interval_numbers_are_unchanged():
    from political_sycophancy.sway.analysis import _interval

    d = np.random.default_rng(7).normal(size=500)
    d[::7] = np.inf
    old = np.percentile(d[np.isfinite(d)], [2.5, 97.5])
    assert _interval(d) == pytest.approx(tuple(old), rel=1e-15)
    assert all(math.isnan(v) for v in _interval(np.array([1.0, np.nan])))


# --- equality with scipy -------------------------------------------------------------


@pytest.mark.parametrize("n, level, seed", [(2, 0.95, 0), (25, 0.95, 11), (60, 0.9, 3)])
def test_bootstrap_mean_equals_scipy_percentile_bootstrap_on_the_same_draws(n, level, seed):
    from scipy import stats

    x = np.random.default_rng(seed + 100).normal(size=n)
    ours = bootstrap_mean(x, 999, np.random.default_rng(seed), level)
    ref = stats.bootstrap(
        (x,), np.mean, method="percentile", n_resamples=999, confidence_level=level, rng=np.random.default_rng(seed), vectorized=True
    ).confidence_interval
    # the same draws: equal up to the last bit of the quantile level arithmetic
    assert ours[1:] == pytest.approx((ref.low, ref.high), rel=1e-13, abs=1e-15)
    # and the audit wrapper is that interval
    assert bootstrap_mean_ci(x, draws=999, level=level, rng=np.random.default_rng(seed)) == ours


def test_count_draws_give_scipy_percentile_interval_statistically():
    """Count draws (multinomial) are another stream with the same distribution: with many
    resamples the interval is within 0.01 of scipy's."""
    from scipy import stats

    x = np.random.default_rng(5).exponential(size=40)
    counts = iid_counts(len(x), 40_000, np.random.default_rng(1))
    ours = percentile_interval(counts @ x / len(x))
    ref = stats.bootstrap((x,), np.mean, method="percentile", n_resamples=40_000, rng=np.random.default_rng(2)).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=0.01)


@pytest.mark.parametrize("seed", range(6))
def test_sign_flip_exact_equals_scipy_permutation_test(seed):
    from scipy import stats

    from political_sycophancy.stats.permutation import sign_flip_exact

    rng = np.random.default_rng(seed)
    x = rng.normal(0.4, 1, size=int(rng.integers(2, 11)))
    if seed == 5:
        x = np.array([1.0, -1.0, 2.0, 2.0, -3.0, 0.0])  # ties and a zero
    ref = stats.permutation_test(
        (x,), lambda a, axis=-1: np.abs(a.mean(axis=axis)), permutation_type="samples", vectorized=True,
        n_resamples=np.inf, alternative="greater",
    )
    assert sign_flip_exact(x)["p"] == pytest.approx(ref.pvalue, rel=1e-12)


def test_sign_flip_draws_agree_with_scipy_permutation_test_statistically():
    from scipy import stats

    from political_sycophancy.stats.permutation import sign_flip_draws

    x = np.random.default_rng(8).normal(0.3, 1, size=40)
    ours = sign_flip_draws(x, draws=40_000, seed=1)["p"]
    ref = stats.permutation_test(
        (x,), lambda a, axis=-1: np.abs(a.mean(axis=axis)), permutation_type="samples", vectorized=True,
        n_resamples=40_000, alternative="greater", rng=np.random.default_rng(2),
    ).pvalue
    assert ours == pytest.approx(ref, abs=0.01)


@pytest.mark.parametrize("seed", range(40))
def test_tied_signed_rank_enumeration_equals_scipy_wilcoxon_permutation_method(seed):
    """With ties, shifts.wilcoxon_test enumerates the sign patterns of the average ranks;
    scipy's `wilcoxon(method=PermutationMethod(n_resamples >= 2^n))` is the same exact
    test (same statistic, same two-sided p)."""
    from scipy import stats

    from political_sycophancy.shared.shifts import wilcoxon_test

    rng = np.random.default_rng(seed)
    x = rng.integers(-4, 5, size=int(rng.integers(3, 11))).astype(float) * rng.choice([1.0, 0.1])
    x = x[x != 0]
    if len(x) < 2:
        return
    ours = wilcoxon_test(x)
    ref = stats.wilcoxon(x, zero_method="wilcox", method=stats.PermutationMethod(n_resamples=2 ** len(x)))
    assert ours["wilcoxon_statistic"] == ref.statistic
    assert ours["wilcoxon_p"] == pytest.approx(ref.pvalue, rel=1e-12)


def test_fisher_interval_covers_a_planted_correlation():
    """The Fisher z interval of Pearson's r covers a planted rho at about its level, and
    at n = 6 the paper's r = 0.798 gives an interval that spans zero."""
    from political_sycophancy.stats.correlation import fisher_interval

    rho, n, hits = 0.5, 30, 0
    cov = [[1, rho], [rho, 1]]
    for seed in range(400):
        x = np.random.default_rng(seed).multivariate_normal([0, 0], cov, size=n)
        low, high = fisher_interval(float(np.corrcoef(x.T)[0, 1]), n)
        hits += low <= rho <= high
    assert 0.92 <= hits / 400 <= 0.98
    low, high = fisher_interval(0.798, 6)
    assert low < 0 < high and round(high, 2) == 0.98
    assert all(np.isnan(fisher_interval(0.9, 3)))


def test_resampled_means_of_many_columns_are_their_drawn_means():
    """Past GATHERED_COLUMNS the means are the draws' counts times the columns: the same
    numbers, to rounding, as each column averaged over the same drawn indices; a column
    with an infinite value keeps the infinite replicates it draws."""
    from political_sycophancy.stats.resample import GATHERED_COLUMNS, iid_indices, resampled_means

    columns = np.random.default_rng(3).normal(size=(40, GATHERED_COLUMNS + 3))
    columns[7, 2] = np.inf
    means = resampled_means(columns, 300, np.random.default_rng(6))
    idx = iid_indices(40, 300, np.random.default_rng(6))
    expected = np.column_stack([columns[:, j][idx].mean(axis=1) for j in range(columns.shape[1])])
    np.testing.assert_allclose(means, expected, rtol=1e-12)
    assert np.isinf(means[:, 2]).any() and np.isfinite(means[:, 2]).any()
