"""The mixed model with per-model condition slopes (issue 46 item 8), the variance
components' standard errors, and what the fit reports beside its estimates (z values, the
C3R / C3L ratio, group sizes).

The paper's specifications hold the condition effect equal in every model, so their C3R
interval ignores how much the effect varies across models (0.085 to 0.217 on the paper's
data); the slopes specification lets each model have its own effect and its interval
covers the effect's mean over models."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.analysis import crossed_data

from political_sycophancy.stats.mixed import SPEC_LABELS, fit_mixed

EFFECTS = {"N": 0.0, "C3L": -0.02, "C3R": 0.15}
VARYING = {"C3L": 0.01, "C3R": 0.05}  # per-model SDs of the condition effects


def _ci(fit, cond: str) -> tuple[float, float]:
    row = fit.coefficients.set_index("condition").loc[cond]
    return float(row["ci_low"]), float(row["ci_high"])


def test_slopes_interval_is_wider_and_covers_an_effect_that_varies_across_models():
    """C3R's effect differs by model (SD 0.05 around +0.15, six models): the crossed fit's
    interval is as narrow as if every model moved alike and misses the planted mean; the
    slopes fit's interval is wider and holds it."""
    data = crossed_data(3, items=40, models=6, effects=EFFECTS, sd_slope=VARYING)
    crossed = fit_mixed(data, "wd_dem", spec="crossed")
    slopes = fit_mixed(data, "wd_dem", spec="slopes")
    assert crossed.converged and slopes.converged
    lo_c, hi_c = _ci(crossed, "C3R")
    lo_s, hi_s = _ci(slopes, "C3R")
    assert hi_s - lo_s > 3 * (hi_c - lo_c)
    assert lo_s <= EFFECTS["C3R"] <= hi_s
    assert not lo_c <= EFFECTS["C3R"] <= hi_c  # this seed's six models average away from the planted mean
    assert slopes.variance_components["C3R slope variance"] == pytest.approx(VARYING["C3R"] ** 2, rel=1.0)
    assert "(0 + C3R | model)" in slopes.formula and slopes.df == 5
    assert "per-model" in SPEC_LABELS["slopes"] and "t distribution" in SPEC_LABELS["slopes"]


def test_slopes_interval_coverage_over_seeds():
    """Over 20 seeds (60 items x 6 models) the slopes fit's 95% intervals hold the planted
    mean C3R effect (all 20 here; bench/mixed_coverage.py --slopes runs 200); the crossed
    fit's, built as if the models shared one effect, about a third of the time. One
    optimizer per fit: the coverage is the intervals', whichever optimizer finds the optimum."""
    hits = {"crossed": 0, "slopes": 0}
    seeds = range(20)
    for seed in seeds:
        data = crossed_data(seed, items=60, models=6, effects=EFFECTS, sd_slope=VARYING)
        for spec in hits:
            fit = fit_mixed(data, "wd_dem", spec=spec, optimizers=("Nelder-Mead",))
            assert fit.converged, (spec, seed)
            lo, hi = _ci(fit, "C3R")
            hits[spec] += lo <= EFFECTS["C3R"] <= hi
    assert hits["slopes"] / len(seeds) >= 0.85
    assert hits["crossed"] / len(seeds) <= 0.6


def test_slopes_reml_equals_statsmodels():
    """The REML engine's slopes model is statsmodels MixedLM's with one group and a
    variance component per random term."""
    data = crossed_data(5, items=10, models=4, effects=EFFECTS, sd_slope=VARYING)
    ours = fit_mixed(data, "wd_dem", spec="slopes")
    ref = fit_mixed(data, "wd_dem", spec="slopes", engine="statsmodels", optimizers=("powell",))
    assert ours.converged and ref.converged
    assert ours.loglik == pytest.approx(ref.loglik, abs=1e-3)
    for a, b in zip(ours.coefficients.itertuples(), ref.coefficients.itertuples(), strict=True):
        assert a.estimate == pytest.approx(b.estimate, abs=1e-5) and a.se == pytest.approx(b.se, rel=1e-2)
    for name, value in ours.variance_components.items():
        assert value == pytest.approx(ref.variance_components[name], rel=2e-2, abs=1e-6), name


def test_slopes_need_two_models():
    data = crossed_data(1, items=10, models=1, effects=EFFECTS)
    with pytest.raises(ValueError, match="at least two models"):
        fit_mixed(data, "wd_dem", spec="slopes")


def test_variance_se_is_the_observed_information_of_the_reml_likelihood():
    """Balanced one-way case (the paper's code spec, one intercept per item x model pair,
    every pair under the three conditions): REML equals ANOVA, and the SE of the pair
    variance is sqrt(2 / k^2 [MSA^2 / (a - 1) + MSE^2 / ((a - 1)(k - 1))])."""
    data = crossed_data(7, items=30, models=4, effects=EFFECTS)
    fit = fit_mixed(data, "wd_dem", spec="paper")
    wide = data.pivot_table(index=["item_id", "model"], columns="condition", values="wd_dem")
    a, k = wide.shape
    resid = wide.sub(wide.mean(axis=1), axis=0).sub(wide.mean(axis=0) - wide.to_numpy().mean(), axis=1)
    mse = float((resid.to_numpy() ** 2).sum()) / ((a - 1) * (k - 1))
    msa = k * float(((wide.mean(axis=1) - wide.to_numpy().mean()) ** 2).sum()) / (a - 1)
    assert fit.variance_components["item x model variance"] == pytest.approx((msa - mse) / k, rel=1e-4)
    expected = math.sqrt(2 / k**2 * (msa**2 / (a - 1) + mse**2 / ((a - 1) * (k - 1))))
    assert fit.variance_se["item x model variance"] == pytest.approx(expected, rel=1e-3)
    assert fit.variance_se["residual variance"] == pytest.approx(math.sqrt(2 * mse**2 / ((a - 1) * (k - 1))), rel=1e-3)
    # statsmodels prints sqrt(scale) x the SE of the variance ratio (variance / scale)
    ref = fit_mixed(data, "wd_dem", spec="paper", engine="statsmodels", optimizers=("powell",))
    assert fit.variance_se_statsmodels["item x model variance"] == pytest.approx(
        ref.variance_se_statsmodels["item x model variance"], rel=1e-2)


def test_summary_has_z_ratio_and_group_sizes():
    data = crossed_data(2, items=12, models=3, effects=EFFECTS)
    data = data.drop(data[(data["item_id"] == "i0") & (data["model"] == "m0")].index[:2])
    fit = fit_mixed(data, "wd_dem", spec="paper")
    summary = fit.summary()
    coefs = fit.coefficients.set_index("condition")
    assert coefs.loc["C3R", "z"] == pytest.approx(coefs.loc["C3R", "estimate"] / coefs.loc["C3R", "se"])
    assert summary["intercept"]["z"] == pytest.approx(coefs.loc["(Intercept)", "z"])
    assert summary["coefficients"]["C3L"]["z"] == pytest.approx(coefs.loc["C3L", "z"])
    assert summary["ratio"] == {"numerator": "C3R", "denominator": "C3L",
                                "magnitude": pytest.approx(abs(coefs.loc["C3R", "estimate"] / coefs.loc["C3L", "estimate"])),
                                "same_sign": False}
    groups = summary["groups"]
    sizes = data.groupby("item_id").size()
    assert groups["item"] == {"n": 12, "min": int(sizes.min()), "max": int(sizes.max()), "mean": pytest.approx(sizes.mean())}
    assert groups["item x model"]["n"] == 36 and groups["item x model"]["min"] == 1
    assert set(summary["variance_se"]) == set(fit.variance_components)
    assert pd.Series(summary["variance_se"]).notna().all() and np.isfinite(list(summary["variance_se"].values())).all()
