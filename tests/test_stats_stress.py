"""Statistics under stress: simulations with planted effects over many seeds.

- the asymmetry estimator (`shifts.asymmetry_cells` + `bootstrap.bootstrap_mean_ci`) is
  unbiased and its percentile-bootstrap 95% CI covers the planted value about 95% of the
  time (200 seeds; also for skewed item values);
- the crossed mixed model's Wald 95% CIs cover the planted condition effects (200 seeds);
- the sign-flip tests hold their size under the null (rejection rate at alpha = 0.05 over
  500 seeds, normal and heavy-tailed symmetric units) and reject a planted effect;
- degenerate inputs (one item, one model, all answers identical, all refusals) give
  explicit "not estimable" results, never a crash or an unexplained NaN.

Every figure is printed (run with -s). Simulated data are small and vectorised; seeds
run as separate "models" of one frame where the code computes per model.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from support.analysis import crossed_data

from political_sycophancy.shared.bootstrap import bootstrap_mean_ci
from political_sycophancy.shared.shifts import asymmetry_cells
from political_sycophancy.stats.mixed import fit_mixed
from political_sycophancy.stats.permutation import sign_flip_draws, sign_flip_exact

SEEDS = 200
NULL_SEEDS = 2000  # a rejection rate near 0.05 has a Monte Carlo s.e. of 0.005 at 2,000 seeds
ALPHA = 0.05


def binomial_band(p: float, n: int, z: float = 3.0) -> tuple[float, float]:
    """A +-z standard-error band for a Monte Carlo proportion."""
    se = math.sqrt(p * (1 - p) / n)
    return p - z * se, p + z * se


def focal_cells(wd_dem: np.ndarray, wd_rep: np.ndarray) -> pd.DataFrame:
    """Audit cells (the columns the asymmetry code reads) from arrays shaped
    (seeds, items, 3) over the conditions N, C3L, C3R; each seed is one model."""
    seeds, items, _ = wd_dem.shape
    s, i, c = np.meshgrid(np.arange(seeds), np.arange(items), np.arange(3), indexing="ij")
    return pd.DataFrame(
        {
            "model": [f"seed{k}" for k in s.ravel()],
            "item_id": [f"i{k}" for k in i.ravel()],
            "condition": np.array(["N", "C3L", "C3R"])[c.ravel()],
            "scoring": "wd",
            "answered": True,
            "has_benchmarks": True,
            "direction": 0,
            "wd_dem": wd_dem.ravel(),
            "wd_rep": wd_rep.ravel(),
        }
    )


@pytest.mark.parametrize("shape", ["normal", "skewed"])
def test_asymmetry_estimator_unbiased_and_bootstrap_ci_covers(shape):
    """Planted: WD(Dem) moves by +0.10 under C3R and by -0.04 under C3L, so the paper's
    asymmetry (C3R - N) - (C3L - N) is 0.14; 40 items per seed, item noise normal or skewed."""
    rng = np.random.default_rng(7 if shape == "normal" else 8)
    items, planted = 40, 0.14
    base = rng.beta(2, 5, size=(SEEDS, items, 1))
    if shape == "normal":
        noise = rng.normal(0, 0.08, size=(SEEDS, items, 3))
    else:
        noise = rng.exponential(0.08, size=(SEEDS, items, 3)) - 0.08  # mean 0, right-skewed
    wd_dem = base + np.array([0.0, -0.04, 0.10]) + noise
    asym = asymmetry_cells(focal_cells(wd_dem, 1 - wd_dem))
    assert len(asym) == SEEDS * items
    estimates, covered, widths = [], 0, []
    draw_rng = np.random.default_rng(1)
    for _, g in asym.groupby("model"):
        est, low, high = bootstrap_mean_ci(g["asymmetry"].to_numpy(), draws=1000, rng=draw_rng)
        estimates.append(est)
        covered += low <= planted <= high
        widths.append(high - low)
    estimates = np.array(estimates)
    bias = estimates.mean() - planted
    mc_se = estimates.std(ddof=1) / math.sqrt(SEEDS)
    coverage = covered / SEEDS
    print(f"\nasymmetry ({shape} noise): mean estimate {estimates.mean():.4f} (planted {planted}), bias {bias:+.4f} "
          f"(MC s.e. {mc_se:.4f}); bootstrap 95% CI coverage {coverage:.3f} over {SEEDS} seeds, mean width {np.mean(widths):.4f}")
    assert abs(bias) < 3 * mc_se
    low, high = binomial_band(0.95, SEEDS)
    # the percentile bootstrap of a mean with 40 units undercovers slightly (about 94%)
    assert low - 0.01 <= coverage <= high


@pytest.mark.slow  # 200 REML fits
def test_mixed_model_ci_coverage_over_200_seeds():
    """Planted b_C3L = -0.02, b_C3R = +0.12 with crossed item (SD 0.15) and model (SD 0.05)
    intercepts and residual SD 0.10; 15 items x 3 models x 3 conditions per seed; the default
    optimizers (L-BFGS-B alone stops with an "ABNORMAL" line search on some seeds)."""
    effects = {"N": 0.0, "C3L": -0.02, "C3R": 0.12}
    hits = {"C3L": 0, "C3R": 0}
    estimates = {"C3L": [], "C3R": []}
    for seed in range(SEEDS):
        fit = fit_mixed(crossed_data(seed, items=15, models=3, effects=effects), "wd_dem")
        assert fit.converged, fit.attempts
        coefs = fit.coefficients.set_index("condition")
        for cond in hits:
            hits[cond] += bool(coefs.loc[cond, "ci_low"] <= effects[cond] <= coefs.loc[cond, "ci_high"])
            estimates[cond].append(coefs.loc[cond, "estimate"])
    low, high = binomial_band(0.95, SEEDS)
    for cond, n in hits.items():
        coverage = n / SEEDS
        est = np.array(estimates[cond])
        print(f"\nmixed model {cond}: coverage of the Wald 95% CI {coverage:.3f} over {SEEDS} seeds; "
              f"mean estimate {est.mean():+.4f} (planted {effects[cond]:+.2f}, MC s.e. {est.std(ddof=1) / math.sqrt(SEEDS):.4f})")
        assert low <= coverage <= high
        assert abs(est.mean() - effects[cond]) < 3 * est.std(ddof=1) / math.sqrt(SEEDS)


@pytest.mark.parametrize("null", ["normal", "t3"])
def test_sign_flip_tests_hold_their_size_under_the_null(null):
    """Symmetric unit values (the null): the exact test over 10 models and the drawn test
    over 40 cells reject at about alpha; both reject planted shifts (1 SD over 10 models,
    0.5 SD over 40 cells) most of the time."""
    rng = np.random.default_rng(11 if null == "normal" else 12)
    sd = 1.0 if null == "normal" else math.sqrt(3.0)
    draw = (lambda size: rng.normal(0, 1, size)) if null == "normal" else (lambda size: rng.standard_t(3, size))
    models = draw((NULL_SEEDS, 10))
    cells = draw((NULL_SEEDS, 40))
    exact_p = np.array([sign_flip_exact(x)["p"] for x in models])
    drawn_p = np.array([sign_flip_draws(x, draws=500, seed=k)["p"] for k, x in enumerate(cells)])
    # the exact test over 10 units can only reject at multiples of 1/1024: its size is
    # P(p <= 0.05) = 50/1024 for continuous data
    exact_size = 50 / 1024
    rate_exact = float((exact_p <= ALPHA).mean())
    rate_drawn = float((drawn_p <= ALPHA).mean())
    power_exact = float(np.mean([sign_flip_exact(x + sd)["p"] <= ALPHA for x in models[:200]]))
    power_drawn = float(np.mean([sign_flip_draws(x + 0.5 * sd, draws=500, seed=k)["p"] <= ALPHA for k, x in enumerate(cells[:200])]))
    print(f"\nsign-flip size under a {null} null over {NULL_SEEDS} seeds at alpha {ALPHA}: exact (10 models) "
          f"{rate_exact:.4f} (nominal {exact_size:.4f}), drawn (40 cells, 500 draws) {rate_drawn:.4f}; "
          f"power at a shift of 1 SD (exact) {power_exact:.2f}, 0.5 SD (drawn) {power_drawn:.2f}")
    for rate, nominal in ((rate_exact, exact_size), (rate_drawn, ALPHA)):
        low, high = binomial_band(nominal, NULL_SEEDS)
        assert low <= rate <= high, (rate, nominal)
    # p-values are uniform under the null (no test is conservative by construction)
    assert stats.kstest(drawn_p, "uniform").pvalue > 0.001
    assert power_exact > 0.5 and power_drawn > 0.5


# --- degenerate inputs -------------------------------------------------------------------


@pytest.fixture(scope="module")
def degenerate_reports(tmp_path_factory):
    """Reports of four degenerate audits (synthetic responses -> logs -> tidy frame -> report),
    in pytest's temporary folder (a `mkdtemp` folder was left behind by every run)."""
    from support.analysis import PCT_FILE, frame_from_import

    import political_sycophancy.report  # noqa: F401  (registers the report sections)
    from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses, write_atp_items
    from political_sycophancy.core.items import load_items
    from political_sycophancy.report.render import write_report

    tmp = tmp_path_factory.mktemp("degenerate")
    atp_file = write_atp_items(tmp / "atp.csv", 12, seed=1)
    atp = load_items(atp_file, instrument="atp")
    pct = [i for i in builtin_pct_items() if i.direction != 0][:12]
    conditions = ["N", "CA", "C1L", "C1R", "C3L", "C3R"]

    def frame(items, models, refusal=0.0, letter=None):
        responses = synthetic_responses(items, models, conditions, refusal_rate=refusal, seed=1)
        if letter is not None:
            responses["letter"] = responses["raw_response"] = letter
        return frame_from_import(responses, [atp_file, PCT_FILE])

    cases = {
        "one_item": frame([atp[0], pct[0]], ["m1", "m2", "m3"]),
        "one_model": frame(atp + pct, ["m1"]),
        "identical": frame(atp + pct, ["m1", "m2", "m3"], letter="A"),
        "all_refusals": frame(atp + pct, ["m1", "m2"], refusal=1.0),
    }
    from political_sycophancy.stats.options import AnalysisOptions

    # a power plan asked for (its "not estimable" case is checked); fewer draws than the default
    options = AnalysisOptions(bootstrap_draws=200, sign_flip_draws=1000, power=0.8)
    return {name: write_report(f, tmp / name, options=options) for name, f in cases.items()}


@pytest.mark.parametrize("case", ["one_item", "one_model", "identical", "all_refusals"])
def test_degenerate_inputs_are_explicit(degenerate_reports, case):
    result = degenerate_reports[case]
    assert result.failed == [], f"sections crashed: {result.failed}"
    tests = result.summary["tests"]
    tables = {p.stem: pd.read_csv(p) for p in (result.out_dir / "tables").glob("*.csv")}
    report = (result.out_dir / "report.md").read_text()
    # a correlation that cannot be computed says why
    corr = tables.get("slant_correlations")
    if corr is not None:
        unexplained = corr[corr["r"].isna() & ~corr["note"].fillna("").str.startswith("not estimable")]
        assert unexplained.empty, unexplained
    # decomposition rows with no estimate name what is missing
    for name in ("decomposition", "pct_decomposition"):
        if name in tables:
            t = tables[name]
            assert (t["asymmetry"].notna() | t["missing"].fillna("").ne("")).all(), t
    mixed = tests.get("mixed_model", {})
    if case in ("one_item", "identical"):
        assert mixed.get("reason", "").startswith("not estimable"), mixed
        assert "not estimable" in report
    if case == "one_model":
        assert mixed["converged"] and "one model only" in " ".join(mixed["notes"])
        # the exact model-level sign-flip test needs several models: only the cell-level test is reported
        assert set(tables["sign_flip"]["level"]) == {"cells (model x item, random sign flips)"}
    if case == "identical":
        assert "not estimable: the asymmetry is the same on every pilot item" in report
        shifts = tables["shift_summary"]
        assert (shifts["mean_shift"] == 0).all() and (shifts["wilcoxon_method"] == "none (no nonzero shift)").all()
    if case == "all_refusals":
        summary = tables["condition_summary"]
        assert (summary["parse_rate"] == 0).all() and (summary["n_parsed"] == 0).all()
        assert "no parsed ATP items under N" in " ".join(tables["decomposition"]["missing"])
        assert "not fitted" in report
    print(f"\n{case}: {len(result.sections)} sections, none failed; tables {sorted(tables)[:6]}...")
