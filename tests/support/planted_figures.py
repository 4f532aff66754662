"""A planted summary and item-shift table from which every figure of the Figures section can
be drawn (tests/test_report_figure_notes.py, tests/test_figures_print.py)."""

from __future__ import annotations

import pandas as pd

MODELS = ("p/a", "p/b", "p/c")
# the first seed's ranges, planted per model (a, b, c)
ATP = {"N": (70.0, 75.0, 77.0), "C3L": (85.0, 90.0, 93.0), "C3R": (14.0, 30.0, 43.0)}
PCT = {"N": (-0.5, -0.3, 0.2), "C3L": (-0.7, -0.6, -0.4), "C3R": (0.2, 0.4, -0.1)}
LEFT, RIGHT = (0.003, 0.010, 0.017), (0.060, 0.081, 0.092)


def planted() -> dict:
    models = {}
    for k, m in enumerate(MODELS):
        conds = {c: {"pct": {"scoring": "pct", "mean_ideology": PCT[c][k], "ci": {"mean_ideology": [PCT[c][k] - 0.1, PCT[c][k] + 0.1]}},
                     "atp": {"scoring": "wd", "pct_closer_dem": ATP[c][k], "ci": {"pct_closer_dem": [ATP[c][k] - 5, ATP[c][k] + 5]}}} for c in ATP}
        models[m] = {"conditions": conds, "sycophancy_left": LEFT[k], "sycophancy_right": RIGHT[k], "baseline_slant": 0.05 + 0.01 * k,
                     "ci": {"sycophancy_left": [LEFT[k] - 0.01, LEFT[k] + 0.01], "sycophancy_right": [RIGHT[k] - 0.01, RIGHT[k] + 0.01]}}
    shift_ci = {m: {"C3R": {"atp": {"shift_wd_dem": {"mean": 0.06 + 0.01 * k, "ci": [0.05, 0.1]}}},
                    "C3L": {"atp": {"shift_wd_dem": {"mean": -0.01, "ci": [-0.02, 0.005]}}}} for k, m in enumerate(MODELS)}
    correlations = [{"x": "baseline_slant", "y": "sycophancy_right", "n_models": 3, "r": 0.798, "ci_low": -0.2, "ci_high": 0.97, "p": 0.057}]
    # the probes (the first seed's 75% / 87% / 19% and a 3.9 rating), SWAY and open-ended
    wants = {"N": (0.75, 0.11), "C3L": (0.87, 0.05), "C3R": (0.19, 0.70)}
    expected = {"by_condition": {c: {"asker_wants_dem (pooled calls)": d, "asker_wants_rep (pooled calls)": r,
                                      "ci": {"asker_wants_dem (pooled calls)": [d - 0.05, d + 0.05]}} for c, (d, r) in wants.items()}}
    perception = {m: {"N": {"mean_rating": 3.7 + 0.1 * k, "share_names_auditor": 0.94, "ci": {"mean_rating": [3.5, 4.2]}}}
                  for k, m in enumerate(MODELS)}
    for k, m in enumerate(MODELS):
        models[m]["sway"] = {"pct": {mit: {"letter": {"S_average": s - 0.1 * k, "S_average_ci": [s - 0.1 * k - 0.05, s - 0.1 * k + 0.05]}}
                                     for mit, s in (("none", 0.3), ("instruction", 0.1))}}
    totals = {f"{m}|pct|{dim}": {"total": t, "ci_low": t - 0.1, "ci_high": t + 0.1}
              for k, m in enumerate(MODELS) for dim, t in (("economic", -0.3 + 0.2 * k), ("social", -0.4))}
    return {"models": models, "findings": {"shift_ci": shift_ci}, "correlations": correlations, "model_order": list(MODELS),
            "expected_answer": expected, "perception": perception, "open_ended": {"total": totals}}


def item_shifts() -> pd.DataFrame:
    """Per model four ATP items under C3R (a: 1 of 4 moved right, b: 2, c: 4) and C3L (none)."""
    rows = []
    for k, m in enumerate(MODELS):
        moved_right = (1, 2, 4)[k]
        for i in range(4):
            for cond, right in (("C3R", i < moved_right), ("C3L", False)):
                # slant WD(Rep) - WD(Dem): lower under the cue = moved right
                base_dem, base_rep = 0.2, 0.4
                dem, rep = (0.4, 0.2) if right else (0.1, 0.5)
                for measure, base, value in (("wd_dem", base_dem, dem), ("wd_rep", base_rep, rep)):
                    rows.append({"model": m, "instrument": "atp", "condition": cond, "item_id": f"i{i}", "measure": measure,
                                 "baseline": base, "value": value})
    return pd.DataFrame(rows)
