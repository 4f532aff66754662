"""Coverage of the even-handedness intervals at a rare one-sided refusal rate (issue 45).

Per run: `--pairs` sided pairs asked under N, C3L and C3R (`tests/support/evenhandedness.py`,
`refusal_rows`: one row per pair x asker, as the logs give them) by two planted responders:

- `own`: refuses the right-side prompt with probability `--rate` whoever asks (its own
  asymmetry: refusal right minus left = rate under every asker, every contrast 0);
- `accommodator`: refuses the left-side prompt with probability `--rate` under C3R only
  (asymmetry -rate under C3R, 0 under N and C3L; contrasts C3R vs N and C3R vs C3L = -rate,
  C3L vs N = 0).

The report's tables (`evenhandedness.analysis`: Wilson for a rate, Newcombe for an
asymmetry, the MOVER contrast with its correlation from a joint pair bootstrap) are computed
from the rows, and beside them the percentile bootstrap resampling pairs the measure used
before (`stats.resample.cluster_mean_interval`; for a contrast, of the per-pair difference
between the askers). Printed per responder, quantity and method: the planted value, how
often the 95% interval holds it, the mean width, and how often it excludes 0.

    python bench/evenhandedness_coverage.py [--runs 1000] [--pairs 100] [--rate 0.04] [--draws 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.evenhandedness import refusal_rows  # noqa: E402

from political_sycophancy.evenhandedness.analysis import side_table  # noqa: E402
from political_sycophancy.evenhandedness.asymmetry import asymmetry_table, contrast_table  # noqa: E402
from political_sycophancy.evenhandedness.rows import by_side, evenhandedness_rows  # noqa: E402
from political_sycophancy.stats.options import AnalysisOptions  # noqa: E402
from political_sycophancy.stats.resample import cluster_mean_interval  # noqa: E402

TARGET = 0.90  # the acceptance: coverage of at least 0.90


def planted(rate: float) -> dict[str, dict]:
    """Each responder's refusal plan and the planted values of what the bench checks."""
    return {
        "own": {
            "refuse": {("*", "right"): rate},
            "truth": {
                ("rate", "N", "right"): rate,
                ("asymmetry", "N", ""): rate,
                ("asymmetry", "C3R", ""): rate,
                ("contrast", "C3R", "N"): 0.0,
                ("contrast", "C3R", "C3L"): 0.0,
            },
        },
        "accommodator": {
            "refuse": {("C3R", "left"): rate},
            "truth": {
                ("rate", "C3R", "left"): rate,
                ("asymmetry", "N", ""): 0.0,
                ("asymmetry", "C3R", ""): -rate,
                ("contrast", "C3R", "N"): -rate,
                ("contrast", "C3L", "N"): 0.0,
                ("contrast", "C3R", "C3L"): -rate,
            },
        },
    }


def percentile(
    rows: pd.DataFrame, what: tuple[str, str, str], draws: int, rng: np.random.Generator
) -> tuple[float, float]:
    """The percentile bootstrap over pairs of the same quantity (the measure's interval before)."""
    kind, asker, other = what
    sides = by_side(rows)
    if kind == "rate":
        g = sides[sides["condition"] == asker]
        return cluster_mean_interval(g[f"refusal_{other}"].to_numpy(float), g["pair_id"].to_numpy(), draws, rng)
    diff = sides.assign(d=sides["refusal_right"] - sides["refusal_left"])
    if kind == "asymmetry":
        g = diff[diff["condition"] == asker]
        return cluster_mean_interval(g["d"].to_numpy(float), g["pair_id"].to_numpy(), draws, rng)
    per = diff.pivot_table(index="pair_id", columns="condition", values="d")
    both = (per[asker] - per[other]).dropna()
    return cluster_mean_interval(both.to_numpy(), both.index.to_numpy(), draws, rng)


def reported(rows: pd.DataFrame, what: tuple[str, str, str], tables: dict[str, pd.DataFrame]) -> tuple[float, float]:
    """The report's interval of the quantity."""
    kind, asker, other = what
    if kind == "rate":
        t = tables["sides"]
        [row] = t[(t["condition"] == asker) & (t["side"] == other)].to_dict("records")
        return row["refusal_rate_ci_low"], row["refusal_rate_ci_high"]
    if kind == "asymmetry":
        t = tables["asymmetry"]
        [row] = t[t["condition"] == asker].to_dict("records")
        return row["refusal_asymmetry_ci_low"], row["refusal_asymmetry_ci_high"]
    t = tables["contrast"]
    [row] = t[(t["asker"] == asker) & (t["versus"] == other) & (t["statistic"] == "refusal_asymmetry")].to_dict(
        "records"
    )
    return row["ci_low"], row["ci_high"]


METHODS = {"rate": "Wilson", "asymmetry": "Newcombe", "contrast": "MOVER + joint pair bootstrap"}


def one_run(seed: int, name: str, plan: dict, n_pairs: int, draws: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = evenhandedness_rows(
        pd.DataFrame(refusal_rows(name, n_pairs, rng, refuse=plan["refuse"], hedge=0.0, noise=0.0))
    )
    opts = AnalysisOptions(bootstrap_draws=draws, seed=seed)
    tables = {
        "sides": side_table(rows, opts),
        "asymmetry": asymmetry_table(rows, opts),
        "contrast": contrast_table(rows, opts),
    }
    out = []
    for what, truth in plan["truth"].items():
        for method, (low, high) in (
            (METHODS[what[0]], reported(rows, what, tables)),
            ("percentile bootstrap", percentile(rows, what, draws, np.random.default_rng(seed + 1))),
        ):
            out.append(
                {
                    "responder": name,
                    "quantity": (
                        f"{what[0]} {what[1]}"
                        + (f" vs {what[2]}" if what[0] == "contrast" else (f" {what[2]}" if what[2] else ""))
                    ),
                    "truth": truth,
                    "method": method,
                    "covered": bool(low - 1e-12 <= truth <= high + 1e-12),
                    "width": high - low,
                    "excludes_zero": bool(low > 0 or high < 0),
                    "point_at_zero": bool(low == high == 0),
                }
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--rate", type=float, default=0.04)
    parser.add_argument("--draws", type=int, default=1000)
    args = parser.parse_args()
    started = time.perf_counter()
    records = []
    for name, plan in planted(args.rate).items():
        for run in range(args.runs):
            records += one_run(run, name, plan, args.pairs, args.draws)
    took = time.perf_counter() - started
    table = pd.DataFrame(records)
    summary = (
        table.groupby(["responder", "quantity", "truth", "method"], sort=False)
        .agg(
            coverage=("covered", "mean"),
            mean_width=("width", "mean"),
            excludes_zero=("excludes_zero", "mean"),
            point_at_zero=("point_at_zero", "mean"),
        )
        .reset_index()
    )
    print(
        f"even-handedness intervals: {args.runs} runs x {args.pairs} pairs x N, C3L, C3R, one-sided refusal at"
        f" {args.rate:g}, {args.draws} bootstrap draws ({took:.0f} s)"
    )
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    mine = summary[summary["method"] != "percentile bootstrap"]
    worst = mine["coverage"].min()
    print(
        f"reference: the issue's acceptance, coverage >= {TARGET:.2f} at a true 4% one-sided rate; "
        f"the report's intervals reach {worst:.3f} at worst, the percentile bootstrap "
        f"{summary.loc[summary['method'] == 'percentile bootstrap', 'coverage'].min():.3f}"
    )


if __name__ == "__main__":
    main()
