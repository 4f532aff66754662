"""Coverage of the profile analysis's 95% intervals for planted attribute effects.

Per seed: a fractional design of 24 personas over partisanship, age and gender (balanced,
drawn with the seed), 40 PCT items with a direction, the three cue modes; a scripted model
answers the right-coded extreme with probability q = 0.5 + item effect + planted shifts of
the levels it recognises (`tests/support/profiles.py`: partisanship strong, conservative
Republican +1.0 and progressive Democrat -0.8 on the PCT score against "not stated"; age
weak, 65+ +0.2 against 18-29; gender null), else the left-coded one. Two responders: one
that recognises the explicit cue texts only (planted effects in the explicit mode, none in
the implicit and conversational modes), one that recognises the implicit texts too (the same
effects in every mode). The answers are put into the tidy frame the logs would give (no
Inspect: hundreds of runs), and `profiles.estimators.amce_table` fits the stacked AMCE
regression. Printed: per responder and kind of effect, how often the interval covers the
planted value, the mean estimate against the planted value, and for the null effects how
often the interval excludes 0.

    python bench/profiles_coverage.py [--seeds 100] [--personas 24] [--items 40] [--clusters item|item+persona|auto]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.profiles import PLANTED_ATTRIBUTES, PlantedResponder, item_effects, planted_amce, planted_items, simulated_frame  # noqa: E402

from political_sycophancy.profiles.cells import profile_cells  # noqa: E402
from political_sycophancy.profiles.estimators import amce_table  # noqa: E402
from political_sycophancy.profiles.task import profile_samples  # noqa: E402
from political_sycophancy.shared.persona_design import persona_design  # noqa: E402

MODES = ("explicit", "implicit", "conversational")


def kind(attribute: str, truth: float) -> str:
    if truth == 0:
        return "null (planted 0)"
    return "strong (partisanship)" if attribute == "partisanship" else "weak (age 65+)"


def one_seed(seed: int, sees: str, personas: int, items, clusters: str) -> pd.DataFrame:
    plan = persona_design("fractional", PLANTED_ATTRIBUTES, ",".join(MODES), personas, seed)
    frame = simulated_frame(profile_samples(items, plan), PlantedResponder(sees, seed, plan.cues, item_effects(items, seed)))
    effects, _ = amce_table(profile_cells(frame), clusters=clusters)
    seen = {"explicit"} if sees == "explicit" else set(MODES)
    effects["truth"] = [planted_amce(a, lv, r) if m in seen else 0.0 for m, a, lv, r in
                        zip(effects["mode"], effects["attribute"], effects["level"], effects["reference"], strict=True)]
    effects["covered"] = (effects["low"] <= effects["truth"]) & (effects["truth"] <= effects["high"])
    effects["excludes_zero"] = (effects["low"] > 0) | (effects["high"] < 0)
    return effects.assign(seed=seed, responder=f"sees {sees} cues")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--personas", type=int, default=24)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--clusters", default="item", choices=("item", "item+persona", "auto"))
    args = parser.parse_args()
    items = planted_items(args.items)
    started = time.perf_counter()
    parts = [one_seed(seed, sees, args.personas, items, args.clusters) for sees in ("explicit", "implicit") for seed in range(args.seeds)]
    took = time.perf_counter() - started
    fits = pd.concat(parts, ignore_index=True)
    fits["effect"] = [kind(a, t) for a, t in zip(fits["attribute"], fits["truth"], strict=True)]
    print(f"{args.seeds} seeds x 2 responders, {args.personas} personas x {len(items)} PCT items x {len(MODES)} modes, "
          f"clusters={args.clusters} ({fits['clusters'].iloc[0]}): {took / (2 * args.seeds):.2f}s per run")
    table = (fits.groupby(["responder", "effect"], sort=True)
             .agg(intervals=("covered", "size"), coverage=("covered", "mean"), mean_estimate=("estimate", "mean"),
                  mean_planted=("truth", "mean"), mean_se=("se", "mean"), excludes_zero=("excludes_zero", "mean"))
             .reset_index())
    print(table.round(3).to_string(index=False))
    by_level = (fits.groupby(["responder", "mode", "attribute", "level"], sort=True)
                .agg(planted=("truth", "first"), coverage=("covered", "mean"), mean_estimate=("estimate", "mean")).reset_index())
    print("\nper mode and level:")
    print(by_level.round(3).to_string(index=False))
    worst = by_level["coverage"].min()
    print(f"\nlowest coverage of any level: {worst:.2f} (target: >= 0.90 for every planted effect; null: about 0.95)")


if __name__ == "__main__":
    main()
