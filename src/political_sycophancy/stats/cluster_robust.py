"""Cluster-robust inference for least squares with absorbed fixed effects and few clusters.

The model is `y = X b + S a + e`: X the regressors of interest, S the dummies of fixed-effect
groups (absorbed by demeaning within group, never built), optional weights w (WLS), and
observations grouped into clusters that may be correlated within and are independent
between. Pure functions of arrays (no pandas, no statsmodels).

**CR2** (Bell and McCaffrey 2002; Pustejovsky and Tipton 2018, "Small-sample methods for
cluster-robust variance estimation and hypothesis testing in fixed effects models"):

    V = M (sum_j X_j' A_j e_j e_j' A_j X_j) M,   M = (X'X)^-1,   A_j = (I - H_jj)^(-1/2)

on the demeaned (and sqrt(w)-scaled) data, H the hat matrix of the FULL model including the
absorbed fixed effects (fixed effects that are not nested in the clusters must be in it,
PT 2018), H_jj its block of cluster j, and the symmetric pseudo-inverse square root
(eigenvalues below 1e-12 set to 0). The adjustment is exact (V unbiased) when the working
model holds, here e ~ (0, s^2 W^-1): independent errors, variance inversely proportional
to the weight (the usual WLS model; it only shapes the small-sample adjustment, V stays
consistent whatever the true dependence within clusters).

**Degrees of freedom** of a contrast c'b (Bell-McCaffrey, PT 2018 eq. 11): c'Vc is a
quadratic form sum_j (u_j' e)^2 in the errors, with u_j = (I - H)_(.,j) A_j X_j M c; under the
working model its Satterthwaite degrees of freedom are

    nu = (tr P)^2 / ||P||_F^2,   P_jk = u_j' u_k = g_j' (I - H)_jk g_k,   g_j = A_j X_j M c

(a J x J matrix for J clusters). With the fixed effects absorbed, (I - H)_jk = 1[j=k] I -
P_S,jk - X_j M X_k' (P_S the projection on the group dummies), so P needs only per-cluster
sums, never an N x N matrix.

**Joint tests** of q constraints C b = 0: the Wald statistic Q = (Cb)'(CVC')^-1(Cb) with
the approximate Hotelling T^2 reference of Tipton and Pustejovsky (2015, "HTZ", the
default of R's clubSandwich): CVC' is treated as a scaled Wishart with nu degrees of
freedom, nu = q(q+1) / sum_(s,t) Var(D_st), D = Omega^(-1/2) C V C' Omega^(-1/2), Omega =
E[CVC'] and the variances computed under the working model from the q x q blocks P_jk;
F = (nu - q + 1) / (nu q) x Q on (q, nu - q + 1) degrees of freedom. For q = 1 it is the t
test with Bell-McCaffrey degrees of freedom.

**CR1** (the Stata/statsmodels correction G/(G - 1) x (N - 1)/(N - K), t on G - 1 degrees
of freedom, naive F) is kept for comparison (`adjustment="CR1"`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ADJUSTMENTS = ("CR2", "CR1")
# eigenvalues of I - H_jj at or below this are treated as 0 (pseudo-inverse square root)
EIGEN_TOL = 1e-12
# a design whose X'X has its smallest eigenvalue below this share of its largest is rank deficient
RANK_TOL = 1e-10


@dataclass(frozen=True)
class RobustFit:
    """A least-squares fit with its cluster-robust covariance, and what its contrasts' tests need.

    What the degrees of freedom and joint tests of its contrasts need: per cluster j, with
    G_j = A_j X_j M (the adjusted rows, demeaned and sqrt(w)-scaled), G_j'G_j (`own`),
    X_j'G_j (`cross`) and the sums over the cluster's observations of each fixed-effect group
    of sqrt(w) G (`fe_sums`).
    """

    beta: np.ndarray
    cov: np.ndarray
    adjustment: str
    n_obs: int
    n_clusters: int
    full_rank: bool
    variance_ok: bool
    condition: float
    bread: np.ndarray
    own: np.ndarray
    cross: np.ndarray
    fe_sums: np.ndarray
    group_weights: np.ndarray


def _codes(labels: np.ndarray | None, n: int) -> tuple[np.ndarray, int]:
    if labels is None:
        return np.zeros(n, dtype=int), 1
    _, codes = np.unique(np.asarray(labels), return_inverse=True)
    return codes.astype(int), int(codes.max()) + 1 if n else 0


def _group_means(values: np.ndarray, codes: np.ndarray, n_groups: int, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted means of the columns of `values` per group, and the groups' weight totals."""
    totals = np.bincount(codes, weights=w, minlength=n_groups)
    sums = np.zeros((n_groups, values.shape[1]))
    np.add.at(sums, codes, values * w[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / totals[:, None], totals


def _inverse_root(matrix: np.ndarray) -> np.ndarray:
    """The symmetric pseudo-inverse square root of a symmetric positive semi-definite matrix."""
    values, vectors = np.linalg.eigh(matrix)
    roots = np.where(values > EIGEN_TOL, 1.0 / np.sqrt(np.clip(values, EIGEN_TOL, None)), 0.0)
    return (vectors * roots) @ vectors.T


def _adjusted_rows(
    xj: np.ndarray, bread: np.ndarray, root: np.ndarray, groups: np.ndarray, group_totals: np.ndarray | None
) -> np.ndarray:
    """A_j X_j of one cluster, the CR2-adjusted rows.

    A_j = (I - H_jj)^(-1/2), H_jj = P_S,jj + X_j M X_j', P_S,jj the block of the fixed-effect
    projection (sqrt(w_a w_b) / W_g for two observations of group g).

    The observations fall into classes of equal (x_a, w_a, W_g(a)): a persona's cells in one
    mode when every persona answered every item. X_j = Z X_c (Z the class indicators), so when
    span(Z) is invariant under I - H_jj (checked: (I - H_jj) Z = Z T0), A_j X_j = Z N^(-1/2)
    T^(-1/2) N^(1/2) X_c with T = N^(1/2) T0 N^(-1/2) (N the class sizes): an r x r
    eigen-decomposition for r classes instead of n_j x n_j. Otherwise the n_j x n_j matrix.
    """
    n = len(xj)
    w = root**2
    totals = group_totals[groups] if group_totals is not None else np.zeros(n)
    keys = np.ascontiguousarray(np.column_stack([xj, w, totals]))
    rows = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()  # a row as bytes: exact
    _, first, inverse, counts = np.unique(rows, return_index=True, return_inverse=True, return_counts=True)
    classes, inverse = keys[first], inverse.ravel()
    r = len(classes)
    if r < n:
        z = np.zeros((n, r))
        z[np.arange(n), inverse] = 1.0
        image = z - xj @ (bread @ (classes[:, :-2].T * counts))  # (I - X_j M X_j') Z
        if group_totals is not None:
            _, local = np.unique(groups, return_inverse=True)
            sums = np.zeros((local.max() + 1, r))
            np.add.at(sums, local, root[:, None] * z)
            image -= (root / totals)[:, None] * sums[local]  # - P_S,jj Z
        t0 = (z.T @ image) / counts[:, None]  # class means: Z T0 if span(Z) is invariant
        if np.allclose(image, t0[inverse], rtol=0.0, atol=1e-10 * (1.0 + float(np.abs(image).max()))):
            half = np.sqrt(counts)
            t = half[:, None] * t0 / half[None, :]
            scaled = classes[:, :-2] * half[:, None]
            return ((_inverse_root((t + t.T) / 2) @ scaled) / half[:, None])[inverse]
    hat = xj @ bread @ xj.T
    if group_totals is not None:
        hat += (groups[:, None] == groups[None, :]) * np.outer(root, root) / totals[:, None]
    return _inverse_root(np.eye(n) - hat) @ xj


def _failed(k: int, n: int, clusters: int, adjustment: str, condition: float) -> RobustFit:
    nan = np.full((k, k), np.nan)
    return RobustFit(
        np.full(k, np.nan),
        nan,
        adjustment,
        n,
        clusters,
        False,
        False,
        condition,
        nan,
        np.zeros((0, k, k)),
        np.zeros((0, k, k)),
        np.zeros((0, 0, k)),
        np.zeros(0),
    )


def cluster_robust_fit(
    y: np.ndarray,
    x: np.ndarray,
    clusters: np.ndarray,
    absorb: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    adjustment: str = "CR2",
) -> RobustFit:
    """Least squares of y on x with `absorb` fixed effects and the CR2 (or CR1) covariance clustered by `clusters`.

    The fixed effects of `absorb` groups are absorbed (no intercept otherwise: put a column
    of ones in x); weights are optional (see the module docstring).

    Args:
      y: outcomes (n), finite.
      x: regressors (n x k), finite.
      clusters: the cluster label of each observation (n).
      absorb: the fixed-effect group of each observation (n), or None.
      weights: positive finite weights (n), or None (all 1).
      adjustment: CR2 (default) or CR1.

    Returns:
      The fit; `full_rank` False (estimates NaN) when x, demeaned, is rank deficient or
      there are fewer than two clusters; `variance_ok` False when a variance is not positive
      and finite (a coefficient that one cluster determines alone: its residuals are 0).
    """
    if adjustment not in ADJUSTMENTS:
        raise ValueError(f"adjustment must be one of {', '.join(ADJUSTMENTS)}, got {adjustment!r}")
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float).reshape(len(y), -1)
    n, k = x.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if not (np.isfinite(w).all() and (w > 0).all()):
        raise ValueError("weights must be positive and finite")
    w = w / w.max() if n else w  # the estimates do not depend on the weights' scale; this keeps sums finite
    cluster_codes, n_clusters = _codes(clusters, n)
    group_codes, n_groups = _codes(absorb, n)
    if k == 0 or n <= k or n_clusters < 2:
        return _failed(k, n, n_clusters, adjustment, math.inf)
    root = np.sqrt(w)
    if absorb is None:
        group_totals = np.zeros(0)
        xd, yd = x, y
    else:
        means, group_totals = _group_means(np.column_stack([y, x]), group_codes, n_groups, w)
        centred = np.column_stack([y, x]) - means[group_codes]
        yd, xd = centred[:, 0], centred[:, 1:]
    xs, ys = xd * root[:, None], yd * root
    xtx = xs.T @ xs
    eig = np.linalg.eigvalsh(xtx)
    condition = float(math.sqrt(eig[-1] / eig[0])) if eig[0] > 0 else math.inf
    if not eig[-1] > 0 or eig[0] <= eig[-1] * RANK_TOL:
        return _failed(k, n, n_clusters, adjustment, condition)
    bread = np.linalg.inv(xtx)
    bread = (bread + bread.T) / 2
    beta = bread @ (xs.T @ ys)
    resid = ys - xs @ beta
    order = np.argsort(cluster_codes, kind="stable")
    bounds = np.searchsorted(cluster_codes[order], np.arange(n_clusters + 1))
    scores = np.empty((n_clusters, k))
    own = np.empty((n_clusters, k, k))
    cross = np.empty((n_clusters, k, k))
    fe_sums = np.zeros((n_clusters, n_groups if absorb is not None else 0, k))
    scale = n_clusters / (n_clusters - 1) * (n - 1) / (n - k)
    for j in range(n_clusters):
        idx = order[bounds[j] : bounds[j + 1]]
        xj = xs[idx]
        g = group_codes[idx]
        if adjustment == "CR1":
            a_x = xj * math.sqrt(scale)
        else:
            a_x = _adjusted_rows(xj, bread, root[idx], g, group_totals if absorb is not None else None)
        adjusted = a_x @ bread
        scores[j] = adjusted.T @ resid[idx]
        own[j] = adjusted.T @ adjusted
        cross[j] = xj.T @ adjusted
        if absorb is not None:
            np.add.at(fe_sums[j], g, root[idx, None] * adjusted)
    cov = scores.T @ scores
    ok = bool(np.all(np.isfinite(np.diag(cov))) and np.all(np.diag(cov) > 0))
    return RobustFit(
        beta, cov, adjustment, n, n_clusters, True, ok, condition, bread, own, cross, fe_sums, group_totals
    )


def _p_blocks(fit: RobustFit, contrasts: np.ndarray) -> np.ndarray:
    """P_jk (J x J x q x q) of the q contrasts (rows of `contrasts`).

    The covariances, under the working model, of the clusters' terms of C V C' (module
    docstring).
    """
    c = contrasts.T  # k x q
    q = c.shape[1]
    j_count = fit.n_clusters
    own = c.T @ fit.own @ c  # J x q x q
    cross = (fit.cross @ c).transpose(0, 2, 1).reshape(j_count * q, -1)  # (j s) x k: (X_j' g_j)'
    blocks = -(cross @ fit.bread @ cross.T).reshape(j_count, q, j_count, q).transpose(0, 2, 1, 3)
    if fit.group_weights.size:
        summed = fit.fe_sums @ c  # J x groups x q
        flat = summed.transpose(0, 2, 1).reshape(j_count * q, -1)
        fe = (flat / fit.group_weights) @ flat.T  # (j s) x (m t)
        blocks -= fe.reshape(j_count, q, j_count, q).transpose(0, 2, 1, 3)
    blocks[np.arange(j_count), np.arange(j_count)] += own
    return blocks


def contrast_df(fit: RobustFit, contrasts: np.ndarray) -> np.ndarray:
    """Degrees of freedom of each contrast c'b (a row of `contrasts`, or one vector).

    Bell-McCaffrey for CR2, G - 1 for CR1; NaN when the fit failed.
    """
    c = np.atleast_2d(np.asarray(contrasts, dtype=float))
    if not fit.variance_ok:
        return np.full(len(c), np.nan)
    if fit.adjustment == "CR1":
        return np.full(len(c), float(fit.n_clusters - 1))
    # P for every contrast at once (m x J x J): the q = 1 case of `_p_blocks`, batched over the contrasts
    cross = (fit.cross @ c.T).transpose(2, 0, 1)  # m x J x k: X_j' g_j per contrast
    p = -(cross @ fit.bread @ cross.transpose(0, 2, 1))
    if fit.group_weights.size:
        summed = (fit.fe_sums @ c.T).transpose(2, 0, 1)  # m x J x groups
        p -= (summed / fit.group_weights) @ summed.transpose(0, 2, 1)
    diagonal = ((fit.own @ c.T) * c.T[None, :, :]).sum(axis=1).T  # m x J: c' G_j'G_j c
    j_index = np.arange(fit.n_clusters)
    p[:, j_index, j_index] += diagonal
    totals = np.sum(p * p, axis=(1, 2))
    traces = np.trace(p, axis1=1, axis2=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, traces**2 / totals, np.nan)


def coefficient_df(fit: RobustFit) -> np.ndarray:
    """Degrees of freedom of every coefficient (`contrast_df` of the unit vectors)."""
    return contrast_df(fit, np.eye(len(fit.beta)))


@dataclass(frozen=True)
class WaldTest:
    """A joint test of q constraints.

    F on (q, df) degrees of freedom, its p-value, the Wald statistic Q and the Hotelling
    degrees of freedom nu (HTZ; CR1: G - 1).
    """

    f: float
    q: int
    df: float
    p_value: float
    wald: float
    nu: float


def wald_test(fit: RobustFit, constraints: np.ndarray) -> WaldTest:
    """The cluster-robust joint test of C b = 0 (rows of `constraints` = C).

    HTZ for CR2, the naive F(q, G - 1) for CR1 (module docstring). NaNs when the fit
    failed, C V C' is singular or the degrees of freedom are not positive.
    """
    from scipy import stats

    c = np.atleast_2d(np.asarray(constraints, dtype=float))
    q = len(c)
    nan = WaldTest(math.nan, q, math.nan, math.nan, math.nan, math.nan)
    if not fit.variance_ok or q == 0:
        return nan
    cb = c @ fit.beta
    cvc = c @ fit.cov @ c.T
    try:
        wald = float(cb @ np.linalg.solve(cvc, cb))
    except np.linalg.LinAlgError:
        return nan
    if not math.isfinite(wald) or np.linalg.eigvalsh(cvc)[0] <= 0:
        return nan
    if fit.adjustment == "CR1":
        nu = float(fit.n_clusters - 1)
        f, df = wald / q, nu
    else:
        omega = np.einsum("jjst->st", _p_blocks(fit, c))
        # P is bilinear in the contrasts: the blocks of Omega^(-1/2) C are Omega^(-1/2) P_jk Omega^(-1/2)
        b = _p_blocks(fit, _inverse_root(omega) @ c)
        diag = np.einsum("jkss->jks", b)
        # sum over s, t of Var(D_st) = sum_jk [B_ss B_tt + B_st B_ts]
        total = float(np.sum(diag.sum(axis=2) ** 2) + np.einsum("jkst,jkts->", b, b))
        nu = q * (q + 1) / total if total > 0 else math.nan
        df = nu - q + 1
        f = (nu - q + 1) / (nu * q) * wald if math.isfinite(nu) else math.nan
    if not (math.isfinite(f) and df > 0):
        return WaldTest(f, q, df, math.nan, wald, nu)
    return WaldTest(float(f), q, float(df), float(stats.f.sf(f, q, df)), wald, float(nu))


def t_interval(estimate: float, se: float, df: float, level: float = 0.95) -> tuple[float, float, float]:
    """(low, high, two-sided p) of a t interval; NaNs when se or df is not positive and finite."""
    from scipy import stats

    if not (math.isfinite(estimate) and math.isfinite(se) and se > 0 and math.isfinite(df) and df > 0):
        return math.nan, math.nan, math.nan
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    return estimate - half, estimate + half, float(2 * stats.t.sf(abs(estimate / se), df))


def fieller_interval(
    num: float, den: float, v_num: float, v_den: float, cov: float, df: float, level: float = 0.95
) -> tuple[float, float]:
    """The Fieller interval of the ratio num / den of two estimates.

    With variances v_num, v_den and covariance cov, at a t critical value on df degrees of
    freedom: the ratios r with (num - r den)^2 <= t^2 Var(num - r den). Bounded only when
    den is itself clearly non-zero (den^2 > t^2 v_den); NaNs otherwise.
    """
    from scipy import stats

    if not all(math.isfinite(v) for v in (num, den, v_num, v_den, cov, df)) or df <= 0:
        return math.nan, math.nan
    t2 = float(stats.t.ppf(0.5 + level / 2, df)) ** 2
    a = den * den - t2 * v_den
    if a <= 0:
        return math.nan, math.nan
    b = num * den - t2 * cov
    c = num * num - t2 * v_num
    disc = b * b - a * c
    if disc < 0:
        return math.nan, math.nan
    root = math.sqrt(disc)
    return (b - root) / a, (b + root) / a
