"""Coverage of the profile analysis's attribute-effect intervals on planted responders, at a design.

Per replication: a fractional design of `--personas` personas over the task's default attributes
(partisanship, age, gender, religion, occupation; balanced, drawn with the replication's seed by
`shared.persona_design`, as the task draws it), the first `--items` PCT items, the three cue modes.
A scripted model answers each item x persona x mode with the right-coded extreme (+2) with
probability q, else the left-coded one (-2), independently across cells, where

    q = 0.5 + item effect + lean(persona, mode) + sum over the persona's levels of shift x slope(item)

and the scenarios are:

- noise: no attribute effect, no lean (item effects in [-0.15, 0.15]): pure noise.
- independent: planted effects (partisanship: conservative Republican +0.25, progressive Democrat
  -0.2; age 65+ +0.05; gender, religion, occupation none), item effects in [-0.15, 0.15], no lean:
  answers independent across personas (the only case the item-clustered intervals were built for).
- lean: no attribute effect; a fixed lean per persona, 0.3 x (u_persona + u_persona,mode) / 2 with
  u uniform on [-1, 1] (a model reacting to each persona's whole text, not to its levels).
- effects+lean: planted effects (+0.15, -0.15, +0.05) whose size varies across items (slope from
  0.5 to 1.5, mean exactly 1 over the items), item effects in [-0.05, 0.05], a lean of 0.15.
- unequal-lean: no attribute effect; leans of 0.35 for conservative Republicans and progressive
  Democrats, 0.05 for everyone else (the spread of the leans differs by level).

q stays in [0, 1] in every scenario, so a level's planted AMCE on the PCT score is 4 x shift
exactly (gender, religion, occupation: 0). The cells (the frame `profiles.cells` builds) are
simulated directly, without Inspect (the tests run the same responders through the task's samples
and the analysis's cells: `tests/test_profiles_planted.py`), and `profiles.estimators.amce_table`
fits the stacked AMCE regression with each `--inference`: cr2-persona (the report's) and cr1-item
(the item-clustered CR1 the report used before issue 44).

Printed per scenario and inference: the planted effects' coverage and power, the null effects'
coverage and share of intervals excluding 0, the share of runs in which any null level has p <
0.05 (no adjustment), q < 0.05 (Benjamini-Hochberg) or any null attribute's joint test has q <
0.05, the mode contrasts' null intervals excluding 0, and the levels' personas and df.

Two other measurements: `--min-level-personas K` gives intervals from K personas per level (the
report's rule is `estimators.MIN_LEVEL_PERSONAS`) and prints their coverage by the personas
stating the level; `--baseline-epochs 1,5,10,20` prints, in the lean scenario, the spread of the
weighted position's gap to N over the replications and its interval's coverage of 0 when N is
asked that many times per item (the task's `baseline_epochs`).

    python bench/profiles_coverage.py [--reps 200] [--personas 96] [--items 62] [--scenarios ...] [--inference ...]
    python bench/profiles_coverage.py --personas 8 --attributes partisanship,gender --min-level-personas 1
    python bench/profiles_coverage.py --baseline-epochs 1,5,10,20
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matrices: threads only contend on a shared machine

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from political_sycophancy.core.items import load_instrument  # noqa: E402
from political_sycophancy.profiles import estimators  # noqa: E402
from political_sycophancy.profiles.estimators import amce_table  # noqa: E402
from political_sycophancy.profiles.population import weighted_positions  # noqa: E402
from political_sycophancy.shared.persona_design import DEFAULT_ATTRIBUTES, persona_design  # noqa: E402

MODES = ("explicit", "implicit", "conversational")
STRONG = (
    ("partisanship", "conservative_rep", 0.25),
    ("partisanship", "progressive_dem", -0.2),
    ("age", "65_plus", 0.05),
)
MILD = (
    ("partisanship", "conservative_rep", 0.15),
    ("partisanship", "progressive_dem", -0.15),
    ("age", "65_plus", 0.05),
)
# the lean of the extreme partisans' personas in `unequal-lean` (the others': 0.05): leans whose
# spread differs by level, which the CR2 working model (equal variances) does not assume
EXTREME_LEAN = (("partisanship", "conservative_rep"), ("partisanship", "progressive_dem"))
# scenario -> (shifts, lean, item effect half-range, slope heterogeneity)
SCENARIOS = {
    "noise": ((), 0.0, 0.15, 0.0),
    "independent": (STRONG, 0.0, 0.15, 0.0),
    "lean": ((), 0.3, 0.15, 0.0),
    "effects+lean": (MILD, 0.15, 0.05, 0.5),
    "unequal-lean": ((), 0.35, 0.15, 0.0),
}


def simulate(
    scenario: str, rep: int, personas: int, items: list[str], attributes: str, epochs: int = 1
) -> tuple[pd.DataFrame, dict]:
    """The persona cells of one replication and the planted shift per (attribute, level).

    The persona cells of one replication (each the mean of `epochs` answers, as a cell pools
    its epochs), and the planted shift per (attribute, level).
    """
    shifts, lean, item_range, slope_range = SCENARIOS[scenario]
    plan = persona_design("fractional", attributes, ",".join(MODES), personas, rep, baseline_persona=False)
    rng = np.random.default_rng([rep, list(SCENARIOS).index(scenario)])
    n_items = len(items)
    item_effect = rng.uniform(-item_range, item_range, n_items)
    slope = 1 + slope_range * np.linspace(-1, 1, n_items)[rng.permutation(n_items)] if n_items > 1 else np.ones(1)
    shift = {(a, lv): s for a, lv, s in shifts}
    references = {a: plan.schema.get(a).reference for a in plan.attributes}
    n_personas, n_modes = len(plan.personas), len(MODES)
    moved = np.array([sum(shift.get((a, lv), 0.0) for a, lv in p.as_dict.items()) for p in plan.personas])
    scale = np.array(
        [
            lean if scenario != "unequal-lean" or any(k in EXTREME_LEAN for k in p.as_dict.items()) else 0.05
            for p in plan.personas
        ]
    )
    lean_pm = scale[:, None] * (rng.uniform(-1, 1, n_personas)[:, None] + rng.uniform(-1, 1, (n_personas, n_modes))) / 2
    q = 0.5 + item_effect + lean_pm[:, :, None] + moved[:, None, None] * slope  # personas x modes x items
    assert ((q >= 0) & (q <= 1)).all(), "the planted probabilities must stay in [0, 1]"
    score = np.where(rng.random((epochs, *q.shape)) < q, 2.0, -2.0).mean(axis=0)
    cells = pd.DataFrame(
        {
            "item_id": np.tile(np.asarray(items), n_personas * n_modes),
            "ideology": score.ravel(),
            "persona_id": np.repeat([p.id for p in plan.personas], n_modes * n_items),
            "cue_mode": np.tile(np.repeat(MODES, n_items), n_personas),
            **{
                f"persona_{a}": np.repeat([p.as_dict.get(a) for p in plan.personas], n_modes * n_items)
                for a in plan.attributes
            },
            "model": "mock/planted",
            "instrument": "pct",
            "scoring": "pct",
            "is_baseline": False,
            "persona_weight": 1.0,
        }
    )
    cells["profile_references"] = [references] * len(cells)
    return cells, {key: 4 * value for key, value in shift.items()}


def one_run(
    scenario: str, rep: int, personas: int, items: list[str], attributes: str, inference: str, epochs: int = 1
) -> dict:
    """Coverage counts of one replication: per level interval, and the run's multiplicity flags."""
    cells, planted = simulate(scenario, rep, personas, items, attributes, epochs)
    effects, modes, tests = amce_table(cells, inference=inference)
    truth = np.array(
        [
            planted.get((a, lv), 0.0) - planted.get((a, r), 0.0)
            for a, lv, r in zip(effects["attribute"], effects["level"], effects["reference"], strict=True)
        ]
    )
    effects = effects.assign(
        truth=truth,
        covered=(effects["low"] <= truth) & (truth <= effects["high"]),
        excludes=(effects["low"] > 0) | (effects["high"] < 0),
    )
    null = effects[effects["truth"] == 0]
    null_attributes = set(null["attribute"]) - {a for a, _lv in planted}
    null_tests = tests[tests["attribute"].isin(null_attributes)]
    contrast_excl = ((modes["low"] > 0) | (modes["high"] < 0)) if not modes.empty else pd.Series(dtype=bool)
    return {
        "effects": effects.assign(rep=rep),
        "any_p": bool((null["p_value"] < 0.05).any()),
        "any_q": bool((null["q_value"] < 0.05).any()),
        "any_joint": bool((null_tests["q_value"] < 0.05).any()),
        "contrast_excludes": float(contrast_excl.mean()) if len(contrast_excl) else np.nan,
    }


def summarise(runs: list[dict], scenario: str, inference: str) -> dict:
    """One row of the printed table."""
    effects = pd.concat([r["effects"] for r in runs], ignore_index=True)
    shown = effects[effects["inferential"]]
    planted, null = shown[shown["truth"] != 0], shown[shown["truth"] == 0]
    by_level = shown.groupby(["mode", "attribute", "level"])["covered"].mean()
    big = planted["truth"].abs() >= 0.5
    return {
        "scenario": scenario,
        "inference": inference,
        "runs": len(runs),
        "planted_cover": planted["covered"].mean() if len(planted) else np.nan,
        "power_partisan": planted.loc[big, "excludes"].mean() if big.any() else np.nan,
        "power_age": planted.loc[~big, "excludes"].mean() if (~big).any() else np.nan,
        "null_cover": null["covered"].mean(),
        "null_excl_0": null["excludes"].mean(),
        "worst_level_cover": by_level.min(),
        "runs_any_p<.05": np.mean([r["any_p"] for r in runs]),
        "runs_any_q<.05": np.mean([r["any_q"] for r in runs]),
        "runs_any_joint_q<.05": np.mean([r["any_joint"] for r in runs]),
        "contrast_null_excl_0": np.nanmean([r["contrast_excludes"] for r in runs]),
        "not_inferential": 1 - effects["inferential"].mean(),
        "median_df": float(np.nanmedian(shown["df"])),
        "personas_per_level": f"{int(effects['personas_level'].min())}-{int(effects['personas_level'].max())}",
    }


def per_personas(runs: list[dict], scenario: str, inference: str) -> pd.DataFrame:
    """Coverage of the intervals given, by min(personas stating the level, personas stating its reference)."""
    effects = pd.concat([r["effects"] for r in runs], ignore_index=True)
    shown = effects[effects["inferential"]].assign(
        personas=lambda d: d[["personas_level", "personas_reference"]].min(axis=1)
    )
    table = shown.groupby("personas").agg(
        intervals=("covered", "size"),
        coverage=("covered", "mean"),
        null_excl_0=("excludes", lambda e: e[shown.loc[e.index, "truth"] == 0].mean()),
    )
    return table.reset_index().assign(scenario=scenario, inference=inference)


def baseline_gaps(reps: int, personas: int, items: list[str], attributes: str, epochs: int, draws: int) -> dict:
    """How the weighted position's gap to N (planted 0) varies when N is asked `epochs` times per item.

    The weighted position's gap to N in the lean scenario (no attribute effect; the N prompt
    has no lean, so the planted gap is 0) when N is asked `epochs` times per item: its
    spread over the replications and how often its bootstrap interval covers 0.
    """
    gaps, covered = [], []
    for rep in range(reps):
        cells, _ = simulate("lean", rep, personas, items, attributes)
        rng = np.random.default_rng([rep, 99])
        n_draws = np.where(rng.random((len(items), epochs)) < 0.5 + _item_effects(rep, len(items))[:, None], 2.0, -2.0)
        base = pd.DataFrame(
            {
                "item_id": items,
                "ideology": n_draws.mean(axis=1),
                "persona_id": "N",
                "cue_mode": "none",
                "model": "mock/planted",
                "instrument": "pct",
                "scoring": "pct",
                "is_baseline": True,
                "persona_weight": 1.0,
            }
        )
        table = weighted_positions(pd.concat([cells, base], ignore_index=True), draws=draws, seed=rep)
        gaps += table["gap_weighted"].tolist()
        covered += ((table["gap_weighted_low"] <= 0) & (0 <= table["gap_weighted_high"])).tolist()
    return {
        "baseline_epochs": epochs,
        "gaps": len(gaps),
        "gap_sd": float(np.std(gaps)),
        "interval_covers_0": float(np.mean(covered)),
        "calls_share": epochs * len(items) / (epochs * len(items) + personas * len(MODES) * len(items)),
    }


def _item_effects(rep: int, n_items: int) -> np.ndarray:
    """The item effects `simulate` drew for the lean scenario in this replication."""
    rng = np.random.default_rng([rep, list(SCENARIOS).index("lean")])
    return rng.uniform(-SCENARIOS["lean"][2], SCENARIOS["lean"][2], n_items)


def main() -> None:
    """Run the replications and print the table (see the module docstring)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--personas", type=int, default=96)
    parser.add_argument("--items", type=int, default=62)
    parser.add_argument("--attributes", default=DEFAULT_ATTRIBUTES)
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--inference", default="cr2-persona,cr1-item")
    parser.add_argument("--epochs", type=int, default=1, help="answers per cell (Inspect's --epochs), pooled")
    parser.add_argument(
        "--baseline-epochs",
        default="",
        help="e.g. 1,5,10,20: the weighted position's gap when N is "
        "asked that many times per item (lean scenario), instead of the attribute effects",
    )
    parser.add_argument(
        "--draws", type=int, default=500, help="bootstrap draws of the weighted position (--baseline-epochs)"
    )
    parser.add_argument(
        "--min-level-personas",
        type=int,
        default=None,
        help="give intervals from this many personas per level (the report's rule: "
        "estimators.MIN_LEVEL_PERSONAS), and print coverage by personas per level",
    )
    args = parser.parse_args()
    if args.min_level_personas is not None:  # what the rule's threshold is worth, measured
        estimators.MIN_LEVEL_PERSONAS = args.min_level_personas
    items = [i.id for i in load_instrument("pct") if i.direction != 0][: args.items]
    print("$ python bench/profiles_coverage.py " + " ".join(sys.argv[1:]))
    cells = args.personas * len(items) * len(MODES)
    print(
        f"{args.reps} replications per scenario; {args.personas} personas over {args.attributes}; {len(items)} PCT "
        f"items x {len(MODES)} modes x {args.epochs} epoch(s) ({cells} cells per run)"
    )
    if args.baseline_epochs:
        table = [
            baseline_gaps(args.reps, args.personas, items, args.attributes, int(e), args.draws)
            for e in args.baseline_epochs.split(",")
        ]
        print(pd.DataFrame(table).round(4).to_string(index=False))
        return
    rows: list[dict] = []
    by_personas: list[pd.DataFrame] = []
    for scenario in args.scenarios.split(","):
        for inference in args.inference.split(","):
            started = time.perf_counter()
            runs = [
                one_run(scenario, rep, args.personas, items, args.attributes, inference, args.epochs)
                for rep in range(args.reps)
            ]
            took = (time.perf_counter() - started) / args.reps
            rows.append({**summarise(runs, scenario, inference), "s_per_run": took})
            print(pd.DataFrame(rows[-1:]).round(3).to_string(index=False, header=len(rows) == 1), flush=True)
            if args.min_level_personas is not None:
                by_personas.append(per_personas(runs, scenario, inference))
    print()
    print(pd.DataFrame(rows).round(3).to_string(index=False))
    if by_personas:
        print("\ncoverage by the fewer of the personas stating the level and its reference (in a mode):")
        print(pd.concat(by_personas, ignore_index=True).round(3).to_string(index=False))
    print(
        "\ntargets (issue 44): null intervals excluding 0 at most 0.10 in every scenario, planted effects covered "
        "at least 0.90; runs with any significant null attribute after the joint test / FDR about 0.05 or less"
    )


if __name__ == "__main__":
    main()
