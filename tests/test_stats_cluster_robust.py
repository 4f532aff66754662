"""stats.cluster_robust (issue 44): CR2 standard errors and Bell-McCaffrey degrees of freedom
equal to closed forms (clubSandwich's intercept formulas; Welch's two-sample test as HC2),
the absorbed fixed effects equal to a dense computation with every dummy, the HTZ joint test
equal to its definition and to the t test for one constraint, Fieller's interval on its
boundary, and Benjamini-Hochberg q-values equal to statsmodels'."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from political_sycophancy.stats.cluster_robust import (
    cluster_robust_fit,
    coefficient_df,
    contrast_df,
    fieller_interval,
    t_interval,
    wald_test,
)
from political_sycophancy.stats.multiplicity import benjamini_hochberg


def test_cr2_of_a_mean_equals_the_closed_form_for_unequal_clusters():
    # clubSandwich tests/testthat/test_intercept_formulas.R: y ~ 1 clustered, unequal sizes
    rng = np.random.default_rng(20190513)
    m = 14
    nj = 1 + rng.negative_binomial(2, 2 / 7, size=m)
    group = np.repeat(np.arange(m), nj)
    n = int(nj.sum())
    y = rng.normal(0, math.sqrt(0.2), m)[group] + rng.normal(0, math.sqrt(0.8), n)
    ybar = np.array([y[group == j].mean() for j in range(m)])
    fit = cluster_robust_fit(y, np.ones((n, 1)), group)
    v_cr2 = np.sum(nj**2 * (ybar - y.mean()) ** 2 / (1 - nj / n)) / n**2
    df_cr2 = n**2 / (n**2 * np.sum(nj**2 / (n - nj) ** 2) - 2 * n * np.sum(nj**3 / (n - nj) ** 2)
                     + np.sum(nj**2 / (n - nj)) ** 2)
    assert fit.beta[0] == pytest.approx(y.mean())
    assert fit.cov[0, 0] == pytest.approx(v_cr2, rel=1e-10)
    assert coefficient_df(fit)[0] == pytest.approx(df_cr2, rel=1e-10)
    cr1 = cluster_robust_fit(y, np.ones((n, 1)), group, adjustment="CR1")
    # CR1: m/(m-1) x the CR0 sum ((N-1)/(N-K) = 1 with one coefficient); t on m - 1 df
    assert cr1.cov[0, 0] == pytest.approx(m / (m - 1) * np.sum(nj**2 * (ybar - y.mean()) ** 2) / n**2, rel=1e-10)
    assert coefficient_df(cr1)[0] == m - 1


def test_hc2_of_a_difference_in_means_is_welch_with_the_bell_mccaffrey_df():
    # every observation its own cluster: CR2 is HC2, which for a two-group regression is
    # Welch's s1^2/n1 + s0^2/n0, with df (1/n0 + 1/n1)^2 / (1/(n0^2 (n0-1)) + 1/(n1^2 (n1-1)))
    rng = np.random.default_rng(3)
    n0, n1 = 7, 12
    d = np.r_[np.zeros(n0), np.ones(n1)]
    y = rng.normal(size=n0 + n1) * np.where(d == 1, 3.0, 1.0) + 0.5 * d
    fit = cluster_robust_fit(y, np.column_stack([np.ones_like(d), d]), np.arange(n0 + n1))
    s0, s1 = y[d == 0].var(ddof=1), y[d == 1].var(ddof=1)
    assert fit.beta[1] == pytest.approx(y[d == 1].mean() - y[d == 0].mean())
    assert fit.cov[1, 1] == pytest.approx(s0 / n0 + s1 / n1, rel=1e-10)
    welch = (1 / n0 + 1 / n1) ** 2 / (1 / (n0**2 * (n0 - 1)) + 1 / (n1**2 * (n1 - 1)))
    assert coefficient_df(fit)[1] == pytest.approx(welch, rel=1e-10)


def _dense(y, x, clusters, absorb, w):
    """CR2, Bell-McCaffrey df and the HTZ degrees of freedom from their definitions, with
    every fixed-effect dummy in the design and N x N matrices (small problems only)."""
    groups = np.unique(absorb)
    s = (absorb[:, None] == groups[None, :]).astype(float)
    root = np.sqrt(w)
    u = np.column_stack([x, s]) * root[:, None]
    ys = y * root
    full = np.linalg.pinv(u.T @ u)
    coef = full @ u.T @ ys
    hat = u @ full @ u.T
    resid = ys - hat @ ys
    k = x.shape[1]
    m_x = full[:k, :k]  # (X~'X~)^-1 by the partitioned inverse
    # rows of the estimator for the x coefficients: b = m_x X~' y*, X~ = (I - P_S) X*
    xs = x * root[:, None]
    ps = s * root[:, None] @ np.linalg.pinv((s * root[:, None]).T @ (s * root[:, None])) @ (s * root[:, None]).T
    xt = xs - ps @ xs
    meat = np.zeros((k, k))
    a = {}
    for j in np.unique(clusters):
        idx = np.flatnonzero(clusters == j)
        block = np.eye(len(idx)) - hat[np.ix_(idx, idx)]
        vals, vecs = np.linalg.eigh(block)
        a[j] = (vecs * np.where(vals > 1e-12, 1 / np.sqrt(np.clip(vals, 1e-12, None)), 0)) @ vecs.T
        score = m_x @ xt[idx].T @ a[j] @ resid[idx]
        meat += np.outer(score, score)
    ident = np.eye(len(y)) - hat

    def p_matrix(c):  # J x J x q x q
        cl = np.unique(clusters)
        vecs = []
        for j in cl:
            idx = np.flatnonzero(clusters == j)
            g = a[j] @ xt[idx] @ m_x @ c.T  # n_j x q
            vecs.append(ident[:, idx] @ g)  # N x q
        return np.array([[vi.T @ vk for vk in vecs] for vi in vecs])

    return coef[:k], meat, p_matrix


@pytest.mark.parametrize(("merged", "missing", "continuous"), [
    (False, False, False), (False, True, False), (True, False, False), (True, True, False), (False, True, True)])
def test_absorbed_fixed_effects_and_weights_equal_the_dense_computation_with_every_dummy(merged, missing, continuous):
    # persona-level regressors, every item answered: a cluster's rows fall into a few classes
    # (the r x r path); missing cells, two personas per cluster (two cells of a fixed-effect
    # group in one cluster) or a regressor that varies by cell change the classes or force
    # the n_j x n_j path: every case equals the dense computation
    rng = np.random.default_rng(11)
    personas, items = 10, 6
    cl = np.repeat(np.arange(personas), items)
    item = np.tile(np.arange(items), personas)
    keep = rng.random(len(cl)) > (0.1 if missing else 0.0)
    cl, item = cl[keep], item[keep]
    level = np.r_[0, 1, 2, 0, 1, 2, 0, 1, 2, 1][cl]
    third = rng.normal(size=len(cl)) if continuous else (np.arange(personas) % 2 == 0)[cl].astype(float)
    x = np.column_stack([level == 1, level == 2, third]).astype(float)
    w = rng.uniform(0.5, 2.0, personas)[cl]
    y = x @ [0.3, -0.2, 0.1] + rng.normal(size=personas)[cl] + rng.normal(size=items)[item] + rng.normal(size=len(cl))
    if merged:
        cl = cl // 2
    fit = cluster_robust_fit(y, x, cl, absorb=item, weights=w)
    beta, cov, p_matrix = _dense(y, x, cl, item, w)
    assert np.allclose(fit.beta, beta) and np.allclose(fit.cov, cov)
    for c in (np.eye(3)[[0]], np.array([[1.0, -1.0, 0.0]])):
        p = p_matrix(c)[:, :, 0, 0]
        assert contrast_df(fit, c)[0] == pytest.approx(np.trace(p) ** 2 / np.sum(p**2), rel=1e-8)
    # HTZ on two constraints, from the covariance array's definition (Tipton & Pustejovsky 2015)
    c = np.eye(3)[:2]
    p = p_matrix(c)
    omega = sum(p[j, j] for j in range(len(p)))
    vals, vecs = np.linalg.eigh(omega)
    root = vecs @ np.diag(vals**-0.5) @ vecs.T
    b = np.einsum("sa,jkab,bt->jkst", root, p, root)
    var = sum(np.sum(b[:, :, s, s] * b[:, :, t, t] + b[:, :, s, t] * b[:, :, t, s]) for s in range(2) for t in range(2))
    nu = 2 * 3 / var
    test = wald_test(fit, c)
    q_stat = float((c @ beta) @ np.linalg.solve(c @ cov @ c.T, c @ beta))
    assert test.nu == pytest.approx(nu, rel=1e-8) and test.wald == pytest.approx(q_stat, rel=1e-8)
    assert test.f == pytest.approx((nu - 1) / (2 * nu) * q_stat, rel=1e-8)
    assert test.df == pytest.approx(nu - 1, rel=1e-8)
    assert test.p_value == pytest.approx(stats.f.sf(test.f, 2, nu - 1))


def test_the_estimates_equal_statsmodels_wls_with_the_dummies():
    from statsmodels.regression.linear_model import WLS

    rng = np.random.default_rng(5)
    cl = np.repeat(np.arange(8), 5)
    item = np.tile(np.arange(5), 8)
    x = rng.normal(size=(40, 2))
    w = rng.uniform(0.2, 3, 8)[cl]
    y = x @ [1.0, -1.0] + item + rng.normal(size=40)
    dummies = (item[:, None] == np.arange(5)).astype(float)
    ref = WLS(y, np.column_stack([x, dummies]), weights=w).fit()
    assert np.allclose(cluster_robust_fit(y, x, cl, absorb=item, weights=w).beta, ref.params[:2])
    # the weights' scale does not matter (a weight of 1e308 is divided by the largest)
    assert np.allclose(cluster_robust_fit(y, x, cl, absorb=item, weights=w * 1e306).beta, ref.params[:2])


def test_one_constraint_htz_is_the_t_test_with_bell_mccaffrey_df():
    rng = np.random.default_rng(8)
    cl = np.repeat(np.arange(10), 4)
    x = np.column_stack([np.ones(40), rng.integers(0, 2, 10)[cl]])
    y = rng.normal(size=10)[cl] + rng.normal(size=40)
    fit = cluster_robust_fit(y, x, cl)
    test = wald_test(fit, np.array([[0.0, 1.0]]))
    df = coefficient_df(fit)[1]
    t = fit.beta[1] / math.sqrt(fit.cov[1, 1])
    assert test.f == pytest.approx(t**2) and test.df == pytest.approx(df)
    assert test.p_value == pytest.approx(t_interval(fit.beta[1], math.sqrt(fit.cov[1, 1]), df)[2])


def test_a_rank_deficient_design_or_a_single_cluster_is_not_estimated():
    x = np.column_stack([np.ones(6), np.ones(6)])
    fit = cluster_robust_fit(np.arange(6.0), x, np.repeat([0, 1], 3))
    assert not fit.full_rank and np.isnan(fit.beta).all() and np.isnan(coefficient_df(fit)).all()
    assert not cluster_robust_fit(np.arange(6.0), np.ones((6, 1)), np.zeros(6)).full_rank
    assert math.isnan(wald_test(fit, np.eye(2)).p_value)


def test_cr2_with_bell_mccaffrey_df_holds_its_level_with_few_clusters():
    # cluster-level treatment, strong within-cluster correlation, 10 clusters: the t test
    # on G - 1 df with CR1 over-rejects, CR2 with BM df stays near 5% (seeded, 400 runs)
    rng = np.random.default_rng(44)
    cl = np.repeat(np.arange(10), 6)
    treat = np.r_[np.ones(3), np.zeros(7)][cl]  # unbalanced: 3 treated clusters
    x = np.column_stack([np.ones(60), treat])
    reject = {"CR2": 0, "CR1": 0}
    for _ in range(400):
        y = rng.normal(size=10)[cl] + 0.5 * rng.normal(size=60)
        for adj in reject:
            fit = cluster_robust_fit(y, x, cl, adjustment=adj)
            low, high, _ = t_interval(fit.beta[1], math.sqrt(fit.cov[1, 1]), coefficient_df(fit)[1])
            reject[adj] += not (low <= 0 <= high)
    assert reject["CR2"] / 400 <= 0.075 and reject["CR1"] / 400 > 0.08


def test_fieller_interval_lies_on_its_defining_boundary_and_is_empty_for_an_unclear_denominator():
    num, den, vn, vd, c, df = 2.0, 4.0, 0.25, 0.16, 0.05, 30
    low, high = fieller_interval(num, den, vn, vd, c, df)
    t2 = stats.t.ppf(0.975, df) ** 2
    for r in (low, high):
        assert (num - r * den) ** 2 == pytest.approx(t2 * (vn - 2 * r * c + r * r * vd))
    assert low < num / den < high
    # a denominator whose own interval holds 0: the set is unbounded, no interval
    assert all(math.isnan(v) for v in fieller_interval(2.0, 0.3, 0.25, 0.16, 0.0, df))
    # a precisely known denominator: the ratio's t interval
    low, high = fieller_interval(num, den, vn, 1e-14, 0.0, df)
    assert (low, high) == pytest.approx((0.5 - math.sqrt(t2 * vn) / 4, 0.5 + math.sqrt(t2 * vn) / 4), rel=1e-6)


def test_benjamini_hochberg_equals_statsmodels_and_leaves_nan_out():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(2)
    for m in (1, 5, 40):
        p = rng.uniform(size=m) ** 2
        assert np.allclose(benjamini_hochberg(p), multipletests(p, method="fdr_bh")[1])
    q = benjamini_hochberg([0.01, np.nan, 0.04, 0.03])
    assert math.isnan(q[1]) and np.allclose(q[[0, 2, 3]], multipletests([0.01, 0.04, 0.03], method="fdr_bh")[1])
    assert benjamini_hochberg([]).size == 0
