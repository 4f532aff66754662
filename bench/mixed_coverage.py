"""Coverage of the mixed model's 95% CIs for planted condition effects, and fit times.

Simulates y = 0.3 + b_c + u_item + v_model + e with crossed item and model intercepts
(b_N = 0, b_C3L = -0.02, b_C3R = 0.12; SDs 0.15, 0.05, 0.10) over many seeds, fits the
crossed REML model and counts how often each CI holds the planted effect. Then times one
fit at the paper's size (500 items x 6 models x 6 conditions).

With --slopes the condition effects vary across models (each model's C3L and C3R effect is
the planted one plus N(0, 0.01) and N(0, 0.05)): the crossed fit and the fit with per-model
condition slopes (stats.mixed spec "slopes") are compared, each interval against the
planted mean effect.

    python bench/mixed_coverage.py [--seeds 200] [--items 30] [--models 4] [--slopes]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from political_sycophancy.stats.mixed import fit_mixed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.analysis import crossed_data  # noqa: E402

EFFECTS = {"N": 0.0, "C3L": -0.02, "C3R": 0.12}
SLOPE_SDS = {"C3L": 0.01, "C3R": 0.05}


def slopes_coverage(seeds: int, items: int, models: int) -> None:
    """Coverage of the crossed and the slopes fits' 95% CIs when the effects vary across models."""
    hits = {spec: {"C3L": 0, "C3R": 0} for spec in ("crossed", "slopes")}
    width = {spec: 0.0 for spec in hits}
    converged = dict.fromkeys(hits, 0)
    started = time.perf_counter()
    for seed in range(seeds):
        data = crossed_data(seed, items=items, models=models, effects=EFFECTS, sd_slope=SLOPE_SDS)
        for spec in hits:
            fit = fit_mixed(data, "wd_dem", spec=spec)
            converged[spec] += fit.converged
            coefs = fit.coefficients.set_index("condition")
            width[spec] += float(coefs.loc["C3R", "ci_high"] - coefs.loc["C3R", "ci_low"]) / seeds
            for cond in ("C3L", "C3R"):
                hits[spec][cond] += bool(coefs.loc[cond, "ci_low"] <= EFFECTS[cond] <= coefs.loc[cond, "ci_high"])
    took = time.perf_counter() - started
    print(
        f"{seeds} seeds, {items} items x {models} models x 3 conditions, effects varying across models "
        f"(SD {SLOPE_SDS}): {took / seeds:.2f}s per seed (both fits)"
    )
    for spec, h in hits.items():
        print(
            f"  {spec}: converged {converged[spec]}/{seeds}; coverage C3L {h['C3L'] / seeds:.3f}, "
            f"C3R {h['C3R'] / seeds:.3f}; "
            f"mean width of the C3R CI {width[spec]:.4f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--items", type=int, default=30)
    parser.add_argument("--models", type=int, default=4)
    parser.add_argument("--slopes", action="store_true", help="effects varying across models: crossed against slopes")
    args = parser.parse_args()
    if args.slopes:
        slopes_coverage(args.seeds, args.items, args.models)
        return
    hits = {"C3L": 0, "C3R": 0}
    converged = 0
    started = time.perf_counter()
    for seed in range(args.seeds):
        fit = fit_mixed(crossed_data(seed, items=args.items, models=args.models, effects=EFFECTS), "wd_dem")
        converged += fit.converged
        coefs = fit.coefficients.set_index("condition")
        for cond in hits:
            hits[cond] += bool(coefs.loc[cond, "ci_low"] <= EFFECTS[cond] <= coefs.loc[cond, "ci_high"])
    took = time.perf_counter() - started
    print(
        f"{args.seeds} seeds, {args.items} items x {args.models} models x 3 conditions: converged"
        f" {converged}/{args.seeds}, {took / args.seeds:.2f}s per fit"
    )
    for cond, n in hits.items():
        print(f"  coverage of the 95% CI for {cond} (planted {EFFECTS[cond]:+.2f}): {n / args.seeds:.3f}")
    six = {"N": 0.0, "CA": 0.0, "C1L": -0.01, "C1R": 0.05, "C3L": -0.02, "C3R": 0.12}
    data = crossed_data(0, items=500, models=6, effects=six)
    t = time.perf_counter()
    fit = fit_mixed(data, "wd_dem")
    print(
        f"paper size ({len(data):,} rows, 500 items x 6 models x 6 conditions): {time.perf_counter() - t:.1f}s, "
        f"converged={fit.converged} ({fit.optimizer})"
    )
    print(pd.DataFrame(fit.coefficients).round(4).to_string(index=False))


if __name__ == "__main__":
    main()
