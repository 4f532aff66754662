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

SPECS = ("crossed", "paper")
SPEC_LABELS = MappingProxyType({
    "crossed": "crossed random intercepts for item and for model (the paper's stated specification)",
    "paper": (
        "one random intercept per item x model pair, no item or model intercept (what the paper's code fits: "
        "statsmodels MixedLM, groups = item, re_formula 0, variance component 0 + C(model); its default optimiser "
        "lbfgs stops at a worse optimum on current statsmodels, so here every optimiser is run and the best REML "
        "optimum kept)"
    ),
})
REML_OPTIMIZERS = ("L-BFGS-B", "Powell", "Nelder-Mead")
STATSMODELS_OPTIMIZERS = ("lbfgs", "bfgs", "powell", "nm", "cg")
# max |d(-2 logL_R)/d theta| at a converged optimum (theta = relative SDs, of order 1)
GRADIENT_TOL = 1e-2  # plus 1e-6 x |objective|, which grows with the number of rows
OPTIMIZER_OPTIONS = MappingProxyType({
    "L-BFGS-B": MappingProxyType({"ftol": 1e-12, "gtol": 1e-6, "maxiter": 2000}),
    "Nelder-Mead": MappingProxyType({"xatol": 1e-8, "fatol": 1e-10, "maxiter": 4000}),
    "Powell": MappingProxyType({"xtol": 1e-8, "ftol": 1e-12}),
})
MIN_RESIDUAL_DOF = 20
# Nelder-Mead's fatol is absolute, but the objective's rounding grows with it (with the rows):
# on 900,000 rows (objective -6.5e5) 1e-10 is never met (15,826 evaluations, no convergence);
# fatol is at least this share of |objective at the start| (the same 1e-10 up to ~10^5).
NM_RELATIVE_FATOL = 1e-15
# statsmodels' optimiser names, accepted by the reml engine too
SCIPY_NAMES = MappingProxyType({"lbfgs": "L-BFGS-B", "powell": "Powell", "nm": "Nelder-Mead", "bfgs": "BFGS", "cg": "CG"})


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

    def summary(self) -> dict:
        coefs = {
            row["condition"]: {k: _f(row[k]) for k in ("estimate", "se", "ci_low", "ci_high", "p")}
            for _, row in self.coefficients.iterrows()
            if row["condition"] != "(Intercept)"
        }
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
    """Z'V for the indicator matrix Z of `codes` (one level per row), without forming Z:
    one column sum per level and column of `values` (levels x columns)."""
    return np.column_stack([np.bincount(codes, weights=v, minlength=levels) for v in values.T]) if values.shape[1] else np.zeros((levels, 0))


def _crosstab(a: np.ndarray, na: int, b: np.ndarray, nb: int) -> np.ndarray:
    """Z_a'Z_b for two indicator matrices: the counts of each pair of levels (na x nb)."""
    return np.bincount(a.astype(np.int64) * nb + b, minlength=na * nb).reshape(na, nb).astype(float)


def _coef_table(names: list[str], beta: np.ndarray, cov: np.ndarray, level: float = 0.95) -> pd.DataFrame:
    from scipy import stats  # here, not at import: scipy's import is about a second
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    z = stats.norm.ppf(0.5 + level / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = 2 * stats.norm.sf(np.abs(beta / se))
    return pd.DataFrame(
        {"condition": names, "estimate": beta, "se": se, "ci_low": beta - z * se, "ci_high": beta + z * se, "p": p}
    )


class _CrossedREML:
    """Profiled REML for y = X b + Z_item u + Z_other v + e, in the relative-SD
    parametrisation theta = (s_item / s, s_other / s, ...) (lme4's), from sufficient statistics:

        -2 logL_R(theta) = log|C(theta)| + (n - p) (1 + log(2 pi PRSS(theta) / (n - p))),

    C = [[X'X, X'Z L], [L Z'X, L Z'Z L + I]], L = diag(theta per column),
    PRSS = y'y - r' C^-1 r, r = [X'y, L Z'y].

    Each row has exactly one item, so the item block of C is diagonal (1 + theta^2 n_i);
    it is eliminated by its Schur complement, leaving a (p + #models) square system: a fit
    on the paper's 500 items costs milliseconds per evaluation instead of a dense
    506 x 506 Cholesky."""

    def __init__(self, X: np.ndarray, codes: list[np.ndarray], sizes: list[int], y: np.ndarray) -> None:
        """`codes[k]` holds each row's level of random factor k (0 .. sizes[k] - 1). The
        cross-products of the indicator matrices are counted from the codes (bincounts), not
        multiplied out: a dense Z of 900,000 rows and 1,100 levels would take 7.4 GiB."""
        self.n, self.p = X.shape
        self.sizes = sizes
        qi, others = sizes[0], list(zip(codes[1:], sizes[1:], strict=True))
        self.qo = sum(sizes[1:])
        # the small block A = [X, Z_other]: fixed effects and the other factors
        yx = y[:, None]
        ZoX = [_sums(c, k, X) for c, k in others]
        ZoZo = [[np.diag(np.bincount(c, minlength=k).astype(float)) if i == j else _crosstab(c, k, d, m)
                 for j, (d, m) in enumerate(others)] for i, (c, k) in enumerate(others)]
        self.AtA = np.block([[X.T @ X, *[b.T for b in ZoX]], *[[ZoX[i], *ZoZo[i]] for i in range(len(others))]])
        self.ZitA = np.hstack([_sums(codes[0], qi, X), *[_crosstab(codes[0], qi, c, k) for c, k in others]])
        self.counts = np.bincount(codes[0], minlength=qi).astype(float)
        self.Aty = np.concatenate([X.T @ y, *[_sums(c, k, yx)[:, 0] for c, k in others]])
        self.Ziy, self.yty = _sums(codes[0], qi, yx)[:, 0], float(y @ y)

    def _parts(self, theta: np.ndarray) -> tuple[Any, np.ndarray, float, float]:
        from scipy import linalg  # here, not at import: scipy's import is about a second
        ti, to = theta[0], theta[1:]
        lam_o = np.concatenate([np.full(k, t) for k, t in zip(self.sizes[1:], to, strict=True)]) if self.qo else np.zeros(0)
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

    def results(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        """Fixed effects, their covariance sigma^2 [S^-1]_bb, sigma^2, variance components."""
        from scipy import linalg  # here, not at import: scipy's import is about a second
        theta = np.abs(np.asarray(theta, dtype=float))
        chol, sol_a, prss, _ = self._parts(theta)
        sigma2 = prss / (self.n - self.p)
        inv = linalg.cho_solve(chol, np.eye(self.p + self.qo)[:, : self.p], check_finite=False)[: self.p]
        return sol_a[: self.p], sigma2 * inv, sigma2, (theta**2) * sigma2


def _gradient(fun: Callable[[np.ndarray], float], x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    g = np.zeros_like(x)
    for k in range(len(x)):
        e = np.zeros_like(x)
        e[k] = h
        lo = x - e if x[k] - h >= 0 else x
        g[k] = (fun(x + e) - fun(lo)) / (h + (x[k] - lo[k]))
    return g


def _random_blocks(data: pd.DataFrame, spec: str) -> tuple[list[np.ndarray], list[int], list[str], str]:
    """Level codes of the random intercepts (the first factor has exactly one level per
    row, so its block of the mixed-model equations is diagonal), their sizes, labels and
    the lme4-style random part of the formula."""
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
    return blocks, sizes, labels, terms


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
            kwargs["options"]["fatol"] = max(kwargs["options"].get("fatol", 0.0), NM_RELATIVE_FATOL * abs(reml.objective(start)))
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
            {"optimizer": method, "converged": ok, "objective": float(res.fun), "max_gradient": float(np.max(np.abs(projected))),
             "message": str(getattr(res, "message", ""))}
        )
        if ok and (best is None or res.fun < best[1] - 1e-9):
            best = (method, float(res.fun), theta)
    n_models = data["model"].nunique()
    fit = MixedFit(
        spec=spec, engine="reml", formula=f"{outcome} ~ C(condition, Treatment('{BASELINE}')) + {terms}",
        outcome=outcome, conditions=conditions, n_obs=len(data), n_items=data["item_id"].nunique(), n_models=n_models,
        converged=best is not None, optimizer=best[0] if best else None,
        coefficients=pd.DataFrame(columns=["condition", "estimate", "se", "ci_low", "ci_high", "p"]), attempts=attempts,
    )
    if spec == "crossed" and n_models < 2:
        fit.notes.append("one model only: the model random intercept is left out (item intercept only)")
    if best is None:
        fit.notes.append("no optimizer converged; no estimates reported")
        return fit
    beta, cov, sigma2, variances = reml.results(best[2])
    fit.coefficients = _coef_table(names, beta, cov)
    fit.variance_components = {**{f"{lab} variance": float(v) for lab, v in zip(labels, variances, strict=True)}, "residual variance": sigma2}
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
    if spec == "paper":
        groups, vc = "item_id", {"model": "0 + C(model)"}
        formula = f"{outcome} ~ {rhs}; groups = item_id, no group intercept, variance component 0 + C(model) (one item x model intercept)"
    else:
        groups, vc = "_one", {"item": "0 + C(item_id)"}
        if n_models > 1:
            vc["model"] = "0 + C(model)"
        formula = f"{outcome} ~ {rhs}; one group, variance components item = 0 + C(item_id), model = 0 + C(model)"
    model = MixedLM.from_formula(
        f"{outcome} ~ {rhs}", groups=groups, re_formula="0", vc_formula=vc, data=data, use_sparse=spec == "crossed"
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
        attempts.append({"optimizer": method, "converged": ok, "loglik": float(res.llf), "message": "; ".join(msgs)[:300]})
        if ok and (best is None or res.llf > best[1] + 1e-9):
            best = (method, float(res.llf), res, msgs)
    names = ["(Intercept)"] + [c for c in conditions if c != BASELINE]
    fit = MixedFit(
        spec=spec, engine="statsmodels", formula=formula, outcome=outcome, conditions=conditions, n_obs=len(data),
        n_items=data["item_id"].nunique(), n_models=n_models, converged=best is not None,
        optimizer=best[0] if best else None,
        coefficients=pd.DataFrame(columns=["condition", "estimate", "se", "ci_low", "ci_high", "p"]), attempts=attempts,
    )
    if best is None:
        fit.notes.append("no optimizer converged; no estimates reported")
        return fit
    res = best[2]
    k = len(names)
    fit.coefficients = _coef_table(names, np.asarray(res.fe_params)[:k], np.asarray(res.cov_params())[:k, :k])
    fit.variance_components = {f"{name} variance": float(v) for name, v in zip(model.exog_vc.names, res.vcomp, strict=True)}
    fit.variance_components["residual variance"] = float(res.scale)
    fit.loglik = best[1]
    fit.boundary = [f"{name} variance" for name, v in zip(model.exog_vc.names, res.vcomp, strict=True) if v < 1e-8]
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
    """Fit the mixed model `spec` (see the module docstring) on item-level data with columns
    model, item_id, condition and `outcome` (rows with a missing outcome are dropped).
    `conditions` restricts the conditions (default: all present; N must be among them);
    which rows to give it is the caller's choice (the report: `audit_sections.mixed_data`)."""
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
    spread = data.groupby("item_id")[outcome].agg(lambda v: float(v.max() - v.min()))
    if float(spread.max()) <= 1e-12:
        raise ValueError(
            f"not estimable: {outcome} never varies within an item (every model and condition gives each item the "
            "same value), so there is no residual variance"
        )
    dof = len(data) - len(present)
    if dof < 1:
        raise ValueError(f"{len(data)} observations for {len(present)} fixed effects: nothing left to estimate the variances")
    if engine == "statsmodels":
        fit = _fit_statsmodels(data, outcome, present, spec, optimizers or STATSMODELS_OPTIMIZERS)
    elif engine == "reml":
        fit = _fit_reml(data, outcome, present, optimizers or REML_OPTIMIZERS, spec)
    else:
        raise ValueError("engine must be reml or statsmodels")
    if dof < MIN_RESIDUAL_DOF:
        fit.notes.append(
            f"only {dof} residual degrees of freedom ({len(data)} observations, {len(present)} fixed effects): "
            "the estimates and CIs are not reliable"
        )
    return fit
