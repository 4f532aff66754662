"""The mixed model the report fits by default is the paper's stated specification: focal
conditions N, C3L and C3R, crossed random intercepts for item and for model, every
observation; the other variants stay available and are named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from support.analysis import crossed_data, frame_from_import

from political_sycophancy.audit.mixed_model import mixed_data, mixed_section
from political_sycophancy.audit.simulate import synthetic_responses, write_atp_items
from political_sycophancy.core.items import load_items
from political_sycophancy.stats.mixed import SPEC_LABELS, fit_mixed
from political_sycophancy.stats.options import AnalysisOptions

# CA and C1R carry effects of their own: a fit that lets them in moves the intercept and
# the residual variance, and is not the paper's model.
SIX = {"N": 0.0, "CA": 0.05, "C1L": -0.01, "C1R": 0.08, "C3L": -0.02, "C3R": 0.12}


def _as_cells(data: pd.DataFrame) -> pd.DataFrame:
    """Item-level data in the shape of `cells_of` (ATP cells, answered, benchmarked)."""
    return data.assign(scoring="wd", answered=True, has_benchmarks=True, direction=0, instrument="atp")


def test_default_data_is_focal_conditions_and_every_observation():
    data = crossed_data(1, items=20, models=3, effects=SIX)
    # Drop N for some model x item pairs: those pairs' C3L/C3R rows stay in (all observations).
    dropped = data[(data["condition"] == "N") & data["item_id"].isin(["i0", "i1", "i2"])]
    data = data.drop(dropped.index)
    selected, outcome, label = mixed_data(_as_cells(data))
    assert (outcome, label) == ("wd_dem", "ATP WD(Dem)")
    assert set(selected["condition"]) == {"N", "C3L", "C3R"}
    assert len(selected) == int(data["condition"].isin(["N", "C3L", "C3R"]).sum()) == 20 * 3 * 3 - 9
    assert {"i0", "i1", "i2"} <= set(selected.loc[selected["condition"] == "C3R", "item_id"])
    # The older variant: every condition, only pairs answered under N and another condition.
    paired, _, _ = mixed_data(_as_cells(data), conditions="all", rows="paired")
    assert set(paired["condition"]) == set(SIX) and not paired["item_id"].isin(["i0", "i1", "i2"]).any()
    with pytest.raises(ValueError):
        mixed_data(_as_cells(data), conditions="some")


def test_planted_effects_recovered_by_the_crossed_default():
    """y = 0.3 + b_c + u_item + v_model + e with every Phase 2 condition present: the
    default fit (focal data, crossed spec) recovers the planted C3L/C3R effects and the
    item and model variances; over 10 seeds its CIs hold the planted values (the coverage itself: test_analysis_stats)."""
    hits = {"C3L": 0, "C3R": 0}
    item_var, model_var = [], []
    for seed in range(10):
        data = crossed_data(seed, items=30, models=6, effects=SIX, sd_item=0.15, sd_model=0.05, sd=0.1)
        selected, outcome, _ = mixed_data(_as_cells(data))
        fit = fit_mixed(selected, outcome)
        assert fit.spec == "crossed" and fit.converged and fit.conditions == ["N", "C3L", "C3R"]
        assert "(1 | item_id) + (1 | model)" in fit.formula
        coefs = fit.coefficients.set_index("condition")
        for cond in hits:
            hits[cond] += coefs.loc[cond, "ci_low"] <= SIX[cond] <= coefs.loc[cond, "ci_high"]
        item_var.append(fit.variance_components["item variance"])
        model_var.append(fit.variance_components["model variance"])
    assert hits["C3L"] >= 8 and hits["C3R"] >= 8
    assert np.mean(item_var) == pytest.approx(0.15**2, rel=0.3)
    assert np.mean(model_var) == pytest.approx(0.05**2, rel=0.6)


def test_paper_code_spec_is_one_item_by_model_intercept():
    """The paper's code: item groups, no item intercept, a model variance component inside
    each item -> one intercept per item x model pair. The reml engine and statsmodels fit
    the same likelihood."""
    data = crossed_data(3, items=12, models=3)
    ours = fit_mixed(data, "wd_dem", spec="paper")
    ref = fit_mixed(data, "wd_dem", spec="paper", engine="statsmodels", optimizers=("powell",))
    assert ours.converged and ref.converged
    assert list(ours.variance_components)[0] == "item x model variance" and "item variance" not in ours.variance_components
    assert ours.loglik == pytest.approx(ref.loglik, abs=1e-3)
    for a, b in zip(ours.coefficients.itertuples(), ref.coefficients.itertuples(), strict=True):
        assert a.estimate == pytest.approx(b.estimate, abs=1e-6) and a.se == pytest.approx(b.se, rel=1e-3)
    assert "item x model" in SPEC_LABELS["paper"] and "worse optimum" in SPEC_LABELS["paper"]
    assert "crossed random intercepts for item and for model" in SPEC_LABELS["crossed"]


def test_section_names_the_specification_beside_the_estimates(tmp_path):
    path = write_atp_items(tmp_path / "atp.csv", 30, seed=5)
    items = load_items(path, instrument="atp")
    responses = synthetic_responses(items, ["x/a", "x/b", "x/c"], ["N", "CA", "C1R", "C3L", "C3R"], atp_shift={"C3R": -0.4, "C1R": -0.3}, seed=6)
    frame = frame_from_import(responses, [path])
    section = mixed_section(frame, tmp_path, AnalysisOptions())
    mm = section.summary["tests"]["mixed_model"]
    answered = frame[(frame["status"] == "answered") & frame["condition"].isin(["N", "C3L", "C3R"])]
    assert mm["spec"] == "crossed" and mm["conditions"] == ["N", "C3L", "C3R"] and mm["n_obs"] == len(answered)
    assert mm["data"] == {"conditions": "focal", "rows": "all"} and mm["spec_label"] == SPEC_LABELS["crossed"]
    c3r = mm["coefficients"]["C3R"]
    line = f"**crossed** specification ({SPEC_LABELS['crossed']}): **C3L "
    assert line in section.text and f"C3R {c3r['estimate']:+.3f} [{c3r['ci_low']:+.3f}, {c3r['ci_high']:+.3f}]" in section.text
    assert "the focal conditions N, C3L and C3R, every answered observation" in section.text
    assert set(section.tables["mixed_crossed_coefficients"]["spec"]) == {"crossed"}
    # Both specifications on every condition, on request.
    both = mixed_section(frame, tmp_path, AnalysisOptions(mixed_spec="both", mixed_conditions="all"))
    assert both.summary["tests"]["mixed_model"]["conditions"] == ["N", "C1R", "C3L", "C3R", "CA"]
    assert both.summary["tests"]["mixed_model_paper"]["spec_label"] == SPEC_LABELS["paper"]
    assert "**paper** specification (one random intercept per item x model pair" in both.text


@pytest.mark.parametrize("factors", [[7], [7, 3], [7, 3, 2]])
def test_reml_equations_counted_from_codes_equal_the_dense_products(factors):
    """The REML engine counts Z'Z, Z'X and Z'y from each row's level codes (a dense Z of the
    100x grid would take 7.4 GiB): every block equals the product of the indicator matrices."""
    from political_sycophancy.stats.mixed import _CrossedREML

    rng = np.random.default_rng(5)
    n = 400
    codes = [rng.integers(0, k, n) for k in factors]
    X = np.column_stack([np.ones(n), rng.integers(0, 2, n), rng.normal(size=n)])
    y = rng.normal(size=n)
    Z = [np.eye(k)[c] for c, k in zip(codes, factors, strict=True)]
    A = np.hstack([X, *Z[1:]])
    reml = _CrossedREML(X, codes, factors, y)
    np.testing.assert_allclose(reml.AtA, A.T @ A, atol=1e-9)
    np.testing.assert_allclose(reml.ZitA, Z[0].T @ A, atol=1e-9)
    np.testing.assert_allclose(reml.counts, Z[0].sum(axis=0))
    np.testing.assert_allclose(reml.Aty, A.T @ y, atol=1e-9)
    np.testing.assert_allclose(reml.Ziy, Z[0].T @ y, atol=1e-9)
    assert reml.yty == pytest.approx(float(y @ y))
