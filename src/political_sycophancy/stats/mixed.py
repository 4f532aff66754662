# Long: one model in three specifications, fitted by two engines that must agree (REML, statsmodels), and its SEs.
"""Linear mixed model of an item-level outcome on condition (N reference).

Specifications (`spec`, named in the report beside the estimates by `SPEC_LABELS`):

- `crossed` (default; the first seed's stated specification, SI S1: "crossed random
  intercepts for item and for model"): y_imc = b0 + b_c + u_i + v_m + e_imc with
  u_i ~ N(0, s2_item), v_m ~ N(0, s2_model), e ~ N(0, s2), condition treatment-coded with N
  as reference, fitted by REML. With `engine="statsmodels"` it is statsmodels' MixedLM with
  one group and two variance components (`vc_formula={"item": "0 + C(item_id)", "model":
  "0 + C(model)"}`), the textbook way to cross factors in statsmodels; that fit is exact but
  slow (minutes at the paper's 9,000 rows), so the default engine `reml` maximises the
  same REML likelihood directly with the sufficient statistics of Henderson's mixed-model
  equations, the diagonal first block eliminated by its Schur complement (well under a
  second at the paper's size); the tests check that both engines agree.
- `paper` (what the first seed's code fits): statsmodels MixedLM with item groups,
  `re_formula="0"` (no item intercept) and a variance component `0 + C(model)` inside each
  item, i.e. ONE random intercept per item x model pair and none for the item or the model:
  y_imc = b0 + b_c + w_im + e_imc. The paper's code fits it with statsmodels' default
  optimiser (lbfgs), which on current statsmodels stops at a far worse optimum; the
  published estimates are those of the REML optimum, which every other optimiser (and the
  `reml` engine) reaches.

- `slopes` (issue 46 item 8; not the paper's): the crossed model with each model's own
  effect of every condition: y_imc = b0 + b_c + u_i + v_m + s_mc + e_imc, s_mc ~ N(0,
  s2_c) for each condition c other than N, independent of each other and of the
  intercepts (lme4: `(1 | item_id) + (1 + condition || model)`). The paper's specifications
  hold the condition effect equal in every model, so their intervals say nothing of how
  much the effect varies across models; here the fixed effect b_c is the mean of the
  models' effects and its variance includes s2_c / #models. Its Wald intervals and p-values
  use the t distribution on #models - 1 degrees of freedom (the models are the units the
  condition effects vary over; normal quantiles would be too narrow with six models).

Standard errors of the variance components (`variance_se`): the inverse of the observed
information of the REML likelihood in the variances themselves (each random term's and
the residual's), by central differences at the optimum; none for a component on the
boundary. statsmodels prints another number beside a variance component ("model Var
0.008 0.003" in the paper's `multilevel_summary.txt`): the residual SD times the SE of
the variance ratio (component / residual variance) from the likelihood profiled over the
residual variance; it is given as `variance_se_statsmodels` so that the paper's figure can
be checked.

Convergence: every optimizer in `optimizers` is run; fits that report success, have a
finite objective and (for `reml`) a projected gradient below 1e-2 + 1e-6 |objective| count as
converged, and the converged fit with the best likelihood is kept. Estimates come with
Wald 95% CIs. A variance component estimated at zero is reported as on the boundary.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from ..core.conditions import BASELINE

SPECS = ("crossed", "paper", "slopes")
SPEC_LABELS = MappingProxyType(
    {
        "crossed": "crossed random intercepts for item and for model (the paper's stated specification)",
        "paper": (
            "one random intercept per item x model pair, no item or model intercept (what the paper's code fits: "
            "statsmodels MixedLM, groups = item, re_formula 0, variance component 0 + C(model); its default optimiser "
            "lbfgs stops at a worse optimum on current statsmodels, so here every optimiser is run and the best REML "
            "optimum kept)"
        ),
        "slopes": (
            "crossed random intercepts for item and for model plus per-model condition slopes: each model's own effect "
            "of every condition, independent random terms (not the paper's; its intervals use the t distribution on "
            "models - 1 degrees of freedom)"
        ),
    }
)
REML_OPTIMIZERS = ("L-BFGS-B", "Powell", "Nelder-Mead")
STATSMODELS_OPTIMIZERS = ("lbfgs", "bfgs", "powell", "nm", "cg")
# max |d(-2 logL_R)/d theta| at a converged optimum (theta = relative SDs, of order 1)
GRADIENT_TOL = 1e-2  # plus 1e-6 x |objective|, which grows with the number of rows
OPTIMIZER_OPTIONS = MappingProxyType(
    {
        "L-BFGS-B": MappingProxyType({"ftol": 1e-12, "gtol": 1e-6, "maxiter": 2000}),
        "Nelder-Mead": MappingProxyType({"xatol": 1e-8, "fatol": 1e-10, "maxiter": 4000}),
        "Powell": MappingProxyType({"xtol": 1e-8, "ftol": 1e-12}),
    }
)
MIN_RESIDUAL_DOF = 20
COEFFICIENT_COLUMNS = ("condition", "estimate", "se", "z", "ci_low", "ci_high", "p")
# Nelder-Mead's fatol is absolute, but the objective's rounding grows with it (with the rows):
# on 900,000 rows (objective -6.5e5) 1e-10 is never met (15,826 evaluations, no convergence);
# fatol is at least this share of |objective at the start| (the same 1e-10 up to ~10^5).
NM_RELATIVE_FATOL = 1e-15
# statsmodels' optimiser names, accepted by the reml engine too
SCIPY_NAMES = MappingProxyType(
    {"lbfgs": "L-BFGS-B", "powell": "Powell", "nm": "Nelder-Mead", "bfgs": "BFGS", "cg": "CG"}
)


@dataclass
class MixedFit:
    """A fitted mixed model and how it was fitted."""

    spec: str
    engine: str
    formula: str
    outcome: str
    conditions: list[str]
    n_obs: int
    n_items: int
    n_models: int
    converged: bool
    optimizer: str | None
    coefficients: pd.DataFrame
    variance_components: dict[str, float] = field(default_factory=dict)
    loglik: float = math.nan
    attempts: list[dict] = field(default_factory=list)
    boundary: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    variance_se: dict[str, float | None] = field(default_factory=dict)
    variance_se_statsmodels: dict[str, float | None] = field(default_factory=dict)
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    df: int | None = None  # the t distribution's degrees of freedom of the intervals (None: normal)

    def ratio(self, numerator: str = "C3R", denominator: str = "C3L") -> dict[str, Any] | None:
        """|numerator| / |denominator| of two condition effects and whether they share a sign.

        The paper: C3R is "approximately 13x the magnitude of the C3L effect in the
        opposite direction". None without both or with a zero denominator.
        """
        coefs = self.coefficients.set_index("condition")["estimate"] if len(self.coefficients) else pd.Series()
        if numerator not in coefs or denominator not in coefs or not float(coefs[denominator]):
            return None
        top, bottom = float(coefs[numerator]), float(coefs[denominator])
        return {
            "numerator": numerator,
            "denominator": denominator,
            "magnitude": abs(top / bottom),
            "same_sign": (top > 0) == (bottom > 0),
        }

    def summary(self) -> dict:
        """The fit as JSON-safe values (summary.json `tests.mixed_model*`)."""
        keys = ("estimate", "se", "z", "ci_low", "ci_high", "p")
        coefs = {
            row["condition"]: {k: _f(row[k]) for k in keys}
            for _, row in self.coefficients.iterrows()
            if row["condition"] != "(Intercept)"
        }
        intercept = self.coefficients[self.coefficients["condition"] == "(Intercept)"]
        return {
            "spec": self.spec,
            "engine": self.engine,
            "formula": self.formula,
            "outcome": self.outcome,
            "conditions": self.conditions,
            "converged": bool(self.converged),
            "optimizer": self.optimizer,
            "n_obs": self.n_obs,
            "n_items": self.n_items,
            "n_models": self.n_models,
            "loglik": _f(self.loglik),
            "variance_components": {k: _f(v) for k, v in self.variance_components.items()},
            "boundary": self.boundary,
            "coefficients": coefs,
            "intercept": {k: _f(intercept.iloc[0][k]) for k in keys} if len(intercept) else {},
            "ratio": self.ratio(),
            "variance_se": {k: _f(v) for k, v in self.variance_se.items()},
            "variance_se_statsmodels": {k: _f(v) for k, v in self.variance_se_statsmodels.items()},
            "groups": self.groups,
            "df": self.df,
            "notes": self.notes,
        }


def _f(x: Any) -> float | None:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) or math.isinf(x) else x


def _design(data: pd.DataFrame, conditions: list[str]) -> tuple[np.ndarray, list[str]]:
    others = [c for c in conditions if c != BASELINE]
    X = np.column_stack([np.ones(len(data))] + [(data["condition"] == c).to_numpy(float) for c in others])
    return X, ["(Intercept)", *others]


def _sums(codes: np.ndarray, levels: int, values: np.ndarray) -> np.ndarray:
    """Z'V for the indicator matrix Z of `codes`, without forming Z.

    One level per row; -1: the row has none of the factor's levels, as a slope's factor
    outside its condition. One column sum per level and column of `values` (levels x
    columns).
    """
    if (codes < 0).any():
        keep = codes >= 0
        codes, values = codes[keep], values[keep]
    return (
        np.column_stack([np.bincount(codes, weights=v, minlength=levels) for v in values.T])
        if values.shape[1]
        else np.zeros((levels, 0))
    )


def _crosstab(a: np.ndarray, na: int, b: np.ndarray, nb: int) -> np.ndarray:
    """Z_a'Z_b for two indicator matrices.

    The counts of each pair of levels (na x nb); rows with code -1 in either have no
    level there.
    """
    if (a < 0).any() or (b < 0).any():
        keep = (a >= 0) & (b >= 0)
        a, b = a[keep], b[keep]
    return np.bincount(a.astype(np.int64) * nb + b, minlength=na * nb).reshape(na, nb).astype(float)


def _coef_table(
    names: list[str], beta: np.ndarray, cov: np.ndarray, level: float = 0.95, df: int | None = None
) -> pd.DataFrame:
    """Estimates, SEs, z = estimate / SE, Wald intervals and two-sided p-values.

    Normal, or the t distribution on `df` degrees of freedom.
    """
    from scipy import stats  # here, not at import: scipy's import is about a second

    dist = stats.norm if df is None else stats.t(df)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    q = dist.ppf(0.5 + level / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = beta / se
        p = 2 * dist.sf(np.abs(z))
    return pd.DataFrame(
        {
            "condition": names,
            "estimate": beta,
            "se": se,
            "z": z,
            "ci_low": beta - q * se,
            "ci_high": beta + q * se,
            "p": p,
        }
    )


class _CrossedREML:
    """Profiled REML for y = X b + Z_item u + Z_other v + e, from sufficient statistics.

    In the relative-SD parametrisation theta = (s_item / s, s_other / s, ...) (lme4's):

        -2 logL_R(theta) = log|C(theta)| + (n - p) (1 + log(2 pi PRSS(theta) / (n - p))),

    C = [[X'X, X'Z L], [L Z'X, L Z'Z L + I]], L = diag(theta per column),
    PRSS = y'y - r' C^-1 r, r = [X'y, L Z'y].

    Each row has exactly one item, so the item block of C is diagonal (1 + theta^2 n_i);
    it is eliminated by its Schur complement, leaving a (p + #models) square system: a fit
    on the paper's 500 items costs milliseconds per evaluation instead of a dense
    506 x 506 Cholesky.
    """

    def __init__(self, X: np.ndarray, codes: list[np.ndarray], sizes: list[int], y: np.ndarray) -> None:
        """`codes[k]` holds each row's level of random factor k (0 .. sizes[k] - 1).

        The cross-products of the indicator matrices are counted from the codes (bincounts),
        not multiplied out: a dense Z of 900,000 rows and 1,100 levels would take 7.4 GiB.
        """
        self.n, self.p = X.shape
        self.sizes = sizes
        qi, others = sizes[0], list(zip(codes[1:], sizes[1:], strict=True))
        self.qo = sum(sizes[1:])
        # the small block A = [X, Z_other]: fixed effects and the other factors
        yx = y[:, None]
        ZoX = [_sums(c, k, X) for c, k in others]
        ZoZo = [
            [
                np.diag(np.bincount(c[c >= 0], minlength=k).astype(float)) if i == j else _crosstab(c, k, d, m)
                for j, (d, m) in enumerate(others)
            ]
            for i, (c, k) in enumerate(others)
        ]
        self.AtA = np.block([[X.T @ X, *[b.T for b in ZoX]], *[[ZoX[i], *ZoZo[i]] for i in range(len(others))]])
        self.ZitA = np.hstack([_sums(codes[0], qi, X), *[_crosstab(codes[0], qi, c, k) for c, k in others]])
        self.counts = np.bincount(codes[0], minlength=qi).astype(float)
        self.Aty = np.concatenate([X.T @ y, *[_sums(c, k, yx)[:, 0] for c, k in others]])
        self.Ziy, self.yty = _sums(codes[0], qi, yx)[:, 0], float(y @ y)

    def _parts(self, theta: np.ndarray) -> tuple[Any, np.ndarray, float, float]:
        from scipy import linalg  # here, not at import: scipy's import is about a second

        ti, to = theta[0], theta[1:]
        lam_o = (
            np.concatenate([np.full(k, t) for k, t in zip(self.sizes[1:], to, strict=True)]) if self.qo else np.zeros(0)
        )
        scale = np.concatenate([np.ones(self.p), lam_o])  # L on the small block (1 for fixed effects)
        Caa = self.AtA * np.outer(scale, scale)
        Caa[self.p :, self.p :] += np.eye(self.qo)
        cb = 1.0 + ti**2 * self.counts  # the diagonal item block
        Cab = ti * self.ZitA.T * scale[:, None]  # small x items
        S = Caa - (Cab / cb) @ Cab.T
        ra = self.Aty * scale
        rb = ti * self.Ziy
        chol = linalg.cho_factor(S, lower=True, check_finite=False)
        sol_a = linalg.cho_solve(chol, ra - Cab @ (rb / cb), check_finite=False)
        sol_b = (rb - Cab.T @ sol_a) / cb
        prss = max(self.yty - float(ra @ sol_a) - float(rb @ sol_b), 1e-300)
        logdet = float(np.sum(np.log(cb))) + 2.0 * float(np.sum(np.log(np.diag(chol[0]))))
        return chol, sol_a, prss, logdet

    def objective(self, theta: np.ndarray) -> float:
        theta = np.abs(np.asarray(theta, dtype=float))
        try:
            _, _, prss, logdet = self._parts(theta)
        except np.linalg.LinAlgError:
            return math.inf
        dof = self.n - self.p
        return logdet + dof * (1.0 + math.log(2 * math.pi * prss / dof))

    def full_objective(self, variances: np.ndarray) -> float:
        """-2 REML log-likelihood, not profiled, at the variances themselves (each random term's, then the residual's).

        log|C| + (n - p) log(2 pi s2) + PRSS / s2 with theta = sqrt(variance / s2).
        """
        *terms, s2 = (float(v) for v in variances)
        if s2 <= 0 or min(terms) < 0:
            return math.inf
        try:
            _, _, prss, logdet = self._parts(np.sqrt(np.asarray(terms) / s2))
        except np.linalg.LinAlgError:
            return math.inf
        return logdet + (self.n - self.p) * math.log(2 * math.pi * s2) + prss / s2

    def results(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        """Fixed effects, their covariance sigma^2 [S^-1]_bb, sigma^2, variance components."""
        from scipy import linalg  # here, not at import: scipy's import is about a second

        theta = np.abs(np.asarray(theta, dtype=float))
        chol, sol_a, prss, _ = self._parts(theta)
        sigma2 = prss / (self.n - self.p)
        inv = linalg.cho_solve(chol, np.eye(self.p + self.qo)[:, : self.p], check_finite=False)[: self.p]
        return sol_a[: self.p], sigma2 * inv, sigma2, (theta**2) * sigma2


def _hessian(fun: Any, x: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Central-difference Hessian of `fun` at `x` with step `steps[k]` in coordinate k."""
    k = len(x)
    H = np.zeros((k, k))
    for i in range(k):
        for j in range(i, k):
            ei, ej = np.zeros(k), np.zeros(k)
            ei[i], ej[j] = steps[i], steps[j]
            second = fun(x + ei + ej) - fun(x + ei - ej) - fun(x - ei + ej) + fun(x - ei - ej)
            H[i, j] = H[j, i] = second / (4 * steps[i] * steps[j])
    return H


def _variance_ses(reml: _CrossedREML, theta: np.ndarray, sigma2: float, labels: list[str]) -> tuple[dict, dict]:
    """SEs of the variance components (see the module docstring).

    The observed information of the REML likelihood in (term variances, residual variance),
    and statsmodels' printed one, sqrt(s2) x SE(variance / s2) from the profiled
    likelihood. A term on the boundary (relative SD below 1e-4) gets none, as the
    information there is not that of an interior optimum; the other terms' are then
    computed with it held at zero.
    """
    names = [f"{lab} variance" for lab in labels]
    inside = [k for k, t in enumerate(theta) if t >= 1e-4]
    ses: dict[str, float | None] = dict.fromkeys([*names, "residual variance"])
    printed: dict[str, float | None] = dict.fromkeys(names)
    variances = np.concatenate([theta**2 * sigma2, [sigma2]])
    free = [*inside, len(theta)]

    def full(x: np.ndarray) -> float:
        v = variances.copy()
        v[free] = x
        return reml.full_objective(v)

    x0 = variances[free]
    with np.errstate(all="ignore"):
        cov = np.linalg.pinv(0.5 * _hessian(full, x0, np.maximum(1e-3 * x0, 1e-12)))
    for pos, k in enumerate(free):
        if cov[pos, pos] > 0:
            ses[(names + ["residual variance"])[k]] = float(math.sqrt(cov[pos, pos]))
    if inside:
        ratios = theta[inside] ** 2

        def profiled(r: np.ndarray) -> float:
            t = theta.copy()
            t[inside] = np.sqrt(np.clip(r, 0, None))
            return reml.objective(t)

        with np.errstate(all="ignore"):
            rcov = np.linalg.pinv(0.5 * _hessian(profiled, ratios, np.maximum(1e-3 * ratios, 1e-12)))
        for pos, k in enumerate(inside):
            if rcov[pos, pos] > 0:
                printed[names[k]] = float(math.sqrt(sigma2 * rcov[pos, pos]))
    return ses, printed


def _gradient(fun: Callable[[np.ndarray], float], x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    g = np.zeros_like(x)
    for k in range(len(x)):
        e = np.zeros_like(x)
        e[k] = h
        lo = x - e if x[k] - h >= 0 else x
        g[k] = (fun(x + e) - fun(lo)) / (h + (x[k] - lo[k]))
    return g


def _random_blocks(data: pd.DataFrame, spec: str) -> tuple[list[np.ndarray], list[int], list[str], str]:
    """Level codes of the random intercepts, their sizes, labels and the lme4-style random part of the formula.

    The first factor has exactly one level per row, so its block of the mixed-model
    equations is diagonal.
    """
    if spec == "paper":
        codes, levels = pd.factorize(data["item_id"].astype(str) + "\x00" + data["model"].astype(str), sort=True)
        return [codes], [len(levels)], ["item x model"], "(1 | item_id:model), one intercept per item x model pair"
    item_codes, items = pd.factorize(data["item_id"], sort=True)
    model_codes, models = pd.factorize(data["model"], sort=True)
    blocks, sizes, labels, terms = [item_codes], [len(items)], ["item"], "(1 | item_id)"
    if len(models) > 1:
        blocks.append(model_codes)
        sizes.append(len(models))
        labels.append("model")
        terms += " + (1 | model)"
    if spec == "slopes":  # a model's own effect of each condition but N: its level is the model, in that condition only
        for cond in _slope_conditions(data):
            blocks.append(np.where(data["condition"].to_numpy() == cond, model_codes, -1))
            sizes.append(len(models))
            labels.append(f"{cond} slope")
            terms += f" + (0 + {cond} | model)"
    return blocks, sizes, labels, terms


def _slope_conditions(data: pd.DataFrame) -> list[str]:
    """The conditions that get per-model slopes: every one but N, in the fit's order."""
    return [c for c in sorted(data["condition"].unique(), key=lambda c: (c != BASELINE, c)) if c != BASELINE]


def group_sizes(data: pd.DataFrame, spec: str) -> dict[str, dict[str, float]]:
    """Observations per level of each grouping: per item (the groups of the paper's statsmodels code: "No.

    Groups", "Min./Max./Mean group size"), per model, and for the paper's spec per item
    x model pair.
    """
    out = {}
    keys = {"item": ["item_id"], "model": ["model"]}
    if spec == "paper":
        keys["item x model"] = ["item_id", "model"]
    for name, cols in keys.items():
        sizes = data.groupby(cols).size()
        out[name] = {
            "n": int(len(sizes)),
            "min": int(sizes.min()),
            "max": int(sizes.max()),
            "mean": float(sizes.mean()),
        }
    return out


def _fit_reml(
    data: pd.DataFrame, outcome: str, conditions: list[str], optimizers: Sequence[str], spec: str
) -> MixedFit:
    from scipy import optimize  # here, not at import: scipy's import is about a second

    X, names = _design(data, conditions)
    blocks, sizes, labels, terms = _random_blocks(data, spec)
    y = data[outcome].to_numpy(float)
    reml = _CrossedREML(X, blocks, sizes, y)
    attempts, best = [], None
    start = np.full(len(sizes), 0.5)
    for name in optimizers:
        method = SCIPY_NAMES.get(name, name)
        kwargs: dict[str, Any] = {"bounds": [(0.0, None)] * len(sizes)} if method in ("L-BFGS-B", "Powell") else {}
        kwargs["options"] = dict(OPTIMIZER_OPTIONS.get(method, {}))
        if method == "Nelder-Mead":
            kwargs["options"]["fatol"] = max(
                kwargs["options"].get("fatol", 0.0), NM_RELATIVE_FATOL * abs(reml.objective(start))
            )
        try:
            res = optimize.minimize(reml.objective, start, method=method, **kwargs)
        except Exception as ex:  # an optimizer failure is recorded and the next one tried
            attempts.append({"optimizer": method, "converged": False, "message": f"{type(ex).__name__}: {ex}"})
            continue
        theta = np.abs(res.x)
        grad = _gradient(reml.objective, theta)
        projected = np.where((theta <= 1e-8) & (grad > 0), 0.0, grad)
        tol = GRADIENT_TOL + 1e-6 * abs(float(res.fun)) if math.isfinite(res.fun) else GRADIENT_TOL
        ok = bool(res.success) and math.isfinite(res.fun) and float(np.max(np.abs(projected))) < tol
        attempts.append(
            {
                "optimizer": method,
                "converged": ok,
                "objective": float(res.fun),
                "max_gradient": float(np.max(np.abs(projected))),
                "message": str(getattr(res, "message", "")),
            }
        )
        if ok and (best is None or res.fun < best[1] - 1e-9):
            best = (method, float(res.fun), theta)
    n_models = data["model"].nunique()
    fit = MixedFit(
        spec=spec,
        engine="reml",
        formula=f"{outcome} ~ C(condition, Treatment('{BASELINE}')) + {terms}",
        outcome=outcome,
        conditions=conditions,
        n_obs=len(data),
        n_items=data["item_id"].nunique(),
        n_models=n_models,
        converged=best is not None,
        optimizer=best[0] if best else None,
        coefficients=pd.DataFrame(columns=list(COEFFICIENT_COLUMNS)),
        attempts=attempts,
    )
    if spec == "crossed" and n_models < 2:
        fit.notes.append("one model only: the model random intercept is left out (item intercept only)")
    if best is None:
        fit.notes.append("no optimizer converged; no estimates reported")
        return fit
    beta, cov, sigma2, variances = reml.results(best[2])
    fit.df = n_models - 1 if spec == "slopes" else None
    fit.coefficients = _coef_table(names, beta, cov, df=fit.df)
    fit.variance_components = {
        **{f"{lab} variance": float(v) for lab, v in zip(labels, variances, strict=True)},
        "residual variance": sigma2,
    }
    fit.variance_se, fit.variance_se_statsmodels = _variance_ses(reml, best[2], sigma2, labels)
    fit.loglik = -0.5 * best[1]
    fit.boundary = [f"{lab} variance" for lab, t in zip(labels, best[2], strict=True) if t < 1e-4]
    return fit


def _fit_statsmodels(
    data: pd.DataFrame, outcome: str, conditions: list[str], spec: str, optimizers: Sequence[str]
) -> MixedFit:
    from statsmodels.regression.mixed_linear_model import MixedLM

    data = data.assign(_one=1)
    rhs = f"C(condition, Treatment('{BASELINE}'))"
    n_models = data["model"].nunique()
    _, _, labels, _ = _random_blocks(data, spec)
    if spec == "paper":  # statsmodels names the one component "model" (inside item groups): ours "item x model"
        groups, vc = "item_id", {"item x model": "0 + C(model)"}
        formula = (
            f"{outcome} ~ {rhs}; groups = item_id, no group intercept, variance component 0 + C(model) (one item x"
            " model intercept)"
        )
    else:
        groups, vc = "_one", {"item": "0 + C(item_id)"}
        if n_models > 1:
            vc["model"] = "0 + C(model)"
        for cond in _slope_conditions(data) if spec == "slopes" else []:
            flag = f"_in_{len(vc)}"
            data[flag] = (data["condition"] == cond).astype(float)
            vc[f"{cond} slope"] = f"0 + C(model):{flag}"
        formula = f"{outcome} ~ {rhs}; one group, variance components " + ", ".join(f"{k} = {v}" for k, v in vc.items())
    model = MixedLM.from_formula(
        f"{outcome} ~ {rhs}", groups=groups, re_formula="0", vc_formula=vc, data=data, use_sparse=spec != "paper"
    )
    attempts, best = [], None
    for method in optimizers:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                res = model.fit(method=method, reml=True)
            except Exception as ex:  # recorded; the next optimizer is tried
                attempts.append({"optimizer": method, "converged": False, "message": f"{type(ex).__name__}: {ex}"})
                continue
        msgs = [str(w.message) for w in caught]
        ok = bool(res.converged) and math.isfinite(res.llf) and bool(np.all(np.isfinite(res.bse_fe)))
        attempts.append(
            {"optimizer": method, "converged": ok, "loglik": float(res.llf), "message": "; ".join(msgs)[:300]}
        )
        if ok and (best is None or res.llf > best[1] + 1e-9):
            best = (method, float(res.llf), res, msgs)
    names = ["(Intercept)"] + [c for c in conditions if c != BASELINE]
    fit = MixedFit(
        spec=spec,
        engine="statsmodels",
        formula=formula,
        outcome=outcome,
        conditions=conditions,
        n_obs=len(data),
        n_items=data["item_id"].nunique(),
        n_models=n_models,
        converged=best is not None,
        optimizer=best[0] if best else None,
        coefficients=pd.DataFrame(columns=list(COEFFICIENT_COLUMNS)),
        attempts=attempts,
    )
    if best is None:
        fit.notes.append("no optimizer converged; no estimates reported")
        return fit
    res = best[2]
    k = len(names)
    fit.df = n_models - 1 if spec == "slopes" else None
    cov = np.asarray(res.cov_params())
    fit.coefficients = _coef_table(names, np.asarray(res.fe_params)[:k], cov[:k, :k], df=fit.df)
    vcomp = dict(zip(model.exog_vc.names, map(float, res.vcomp), strict=True))
    fit.variance_components = {f"{name} variance": vcomp[name] for name in labels}
    fit.variance_components["residual variance"] = float(res.scale)
    ses = np.sqrt(float(res.scale) * np.clip(np.diag(cov)[k:], 0, None))
    printed = dict(zip(model.exog_vc.names, ses, strict=False))
    fit.variance_se_statsmodels = {f"{name} variance": float(printed[name]) for name in labels}
    # the observed information in the variances, from the REML equations at statsmodels' optimum
    X, _ = _design(data, conditions)
    blocks, sizes, _, _ = _random_blocks(data, spec)
    reml = _CrossedREML(X, blocks, sizes, data[outcome].to_numpy(float))
    theta = np.sqrt(np.array([vcomp[name] for name in labels]) / float(res.scale))
    fit.variance_se, _ = _variance_ses(reml, theta, float(res.scale), labels)
    fit.loglik = best[1]
    fit.boundary = [f"{name} variance" for name in labels if vcomp[name] < 1e-8]
    return fit


def fit_mixed(
    data: pd.DataFrame,
    outcome: str = "wd_dem",
    *,
    spec: str = "crossed",
    engine: str = "reml",
    conditions: list[str] | None = None,
    optimizers: Sequence[str] | None = None,
) -> MixedFit:
    """Fit the mixed model `spec` (see the module docstring) on item-level data.

    The data has columns model, item_id, condition and `outcome` (rows with a missing
    outcome are dropped). `conditions` restricts the conditions (default: all present; N
    must be among them); which rows to give it is the caller's choice (the report:
    `audit_sections.mixed_data`).
    """
    if spec not in SPECS:
        raise ValueError(f"spec must be one of {SPECS}")
    data = data[["model", "item_id", "condition", outcome]].dropna()
    if conditions is not None:
        data = data[data["condition"].isin(conditions)]
    present = sorted(data["condition"].unique(), key=lambda c: (c != BASELINE, c))
    if BASELINE not in present or len(present) < 2:
        raise ValueError(f"the mixed model needs condition {BASELINE} and at least one other condition; have {present}")
    if data["item_id"].nunique() < 2:
        raise ValueError("not estimable: one item only (an item random intercept needs at least two items)")
    if spec == "slopes" and data["model"].nunique() < 2:
        raise ValueError("per-model condition slopes need at least two models")
    spread = data.groupby("item_id")[outcome].agg(lambda v: float(v.max() - v.min()))
    if float(spread.max()) <= 1e-12:
        raise ValueError(
            f"not estimable: {outcome} never varies within an item (every model and condition gives each item the "
            "same value), so there is no residual variance"
        )
    dof = len(data) - len(present)
    if dof < 1:
        raise ValueError(
            f"{len(data)} observations for {len(present)} fixed effects: nothing left to estimate the variances"
        )
    if engine == "statsmodels":
        fit = _fit_statsmodels(data, outcome, present, spec, optimizers or STATSMODELS_OPTIMIZERS)
    elif engine == "reml":
        fit = _fit_reml(data, outcome, present, optimizers or REML_OPTIMIZERS, spec)
    else:
        raise ValueError("engine must be reml or statsmodels")
    fit.groups = group_sizes(data, spec)
    if dof < MIN_RESIDUAL_DOF:
        fit.notes.append(
            f"only {dof} residual degrees of freedom ({len(data)} observations, {len(present)} fixed effects): "
            "the estimates and CIs are not reliable"
        )
    return fit
