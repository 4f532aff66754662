"""The audit's tests section.

Sign-flip permutation tests of the accommodation gap and of the paper's asymmetry A_m, over
models (exact) and over model x item cells (drawn).
"""

from __future__ import annotations

import math
from pathlib import Path
from types import MappingProxyType

import pandas as pd

from ..core.section import Section, section
from ..shared.cells import cells_of
from ..shared.shifts import asymmetry_cells, pct_asymmetry_cells
from ..stats.options import AnalysisOptions
from ..stats.permutation import EXACT_MAX_UNITS, sign_flip_draws, sign_flip_exact
from .section_values import no_audit, number

# The measure each tested quantity is in: the gap (the asymmetry claim) compares rightward
# accommodation in WD(Rep) with leftward accommodation in WD(Dem); A_m is in WD(Dem) only.
GAP_MEASURE = MappingProxyType(
    {"WD(Dem)": "WD(Rep) toward C3R minus WD(Dem) toward C3L", "PCT item score": "PCT item score"}
)


def _flip_rows(per_cell: pd.DataFrame, measure: str, opts: AnalysisOptions) -> tuple[list[dict], dict]:
    """The gap first (right minus left accommodation: the claim), then the paper's A_m."""
    rows, summary = [], {}
    models = sorted(per_cell["model"].unique())
    for quantity in ("gap", "asymmetry"):
        label = "asymmetry" if quantity == "asymmetry" else "accommodation_gap"
        measure_of = measure if quantity == "asymmetry" else GAP_MEASURE.get(measure, measure)
        per_model = per_cell.groupby("model")[quantity].mean()
        if len(models) >= 2 and len(models) <= EXACT_MAX_UNITS:
            res = sign_flip_exact(per_model.to_numpy())
            rows.append({"level": "models (exact, all 2^M patterns)", "quantity": label, "measure": measure_of, **res})
            if quantity == "asymmetry":
                summary["sign_flip_models"] = {
                    "observed": number(res["observed"]),
                    "p": number(res["p"]),
                    "n_models": res["n_units"],
                    "min_p": number(res["min_p"]),
                    "n_positive": res["n_positive"],
                    "measure": measure,
                }
            else:
                summary["sign_flip_models_gap"] = {
                    "observed": number(res["observed"]),
                    "p": number(res["p"]),
                    "n_models": res["n_units"],
                    "min_p": number(res["min_p"]),
                    "n_positive": res["n_positive"],
                    "measure": measure_of,
                }
        elif quantity == "asymmetry":
            summary["sign_flip_models"] = {
                "observed": number(per_model.mean()) if len(per_model) else None,
                "p": None,
                "n_models": len(models),
                "measure": measure,
                "reason": (
                    "fewer than two models: no model-level test"
                    if len(models) < 2
                    else f"more than {EXACT_MAX_UNITS} models"
                ),
            }
        res = sign_flip_draws(per_cell[quantity].to_numpy(), draws=opts.sign_flip_draws, seed=opts.seed)
        rows.append(
            {"level": "cells (model x item, random sign flips)", "quantity": label, "measure": measure_of, **res}
        )
        key = "sign_flip_cells" if quantity == "asymmetry" else "sign_flip_cells_gap"
        summary[key] = {
            "observed": number(res["observed"]),
            "p": number(res["p"]),
            "draws": res["draws"],
            "seed": res["seed"],
            "n_cells": res["n_units"],
            "exceed": res["exceed"],
            "measure": measure_of,
        }
    return rows, summary


@section(40, "tests")
def tests_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """Sign-flip permutation tests of the asymmetry and the accommodation gap, over models and model x item cells.

    Sign-flip permutation tests of the asymmetry (and of the accommodation gap), over models
    (exact) and over model x item cells (seeded random flips).
    """
    opts = options or AnalysisOptions()
    if no_audit(frame):
        return None
    cells = cells_of(frame, opts.cache)
    per_cell, measure = asymmetry_cells(cells), "WD(Dem)"
    if per_cell.empty:
        per_cell, measure = pct_asymmetry_cells(cells), "PCT item score"
    title = "Permutation tests of the asymmetry: the accommodation gap, then A_m"
    if per_cell.empty:
        return Section(
            title,
            summary={
                "tests": {
                    "sign_flip_models": {"p": None, "reason": "no items answered under N, C3L and C3R"},
                    "sign_flip_cells": {"p": None, "reason": "no items answered under N, C3L and C3R"},
                }
            },
            text="No model has items answered under all of N, C3L and C3R: the asymmetry tests are not computable.",
        )
    rows, summary = _flip_rows(per_cell, measure, opts)
    n_models = per_cell["model"].nunique()
    text = [
        "First the claim: accommodation_gap = rightward minus leftward accommodation per model x item in N, C3L and"
        f" C3R ({GAP_MEASURE.get(measure, measure)}; see the decomposition section), zero when the model accommodates"
        f" both askers equally. Then the paper's A_m = (C3R - N) - (C3L - N) in {measure}, which is how far apart the"
        " two cues put the answers and is positive under symmetric accommodation too. Null: each value is symmetric"
        " about 0 (the C3L/C3R labels are exchangeable). Statistic |mean|; two-sided p = share of sign patterns with"
        " |mean| at least the observed. Over models: all 2^M patterns of the per-model means (exact; the smallest"
        f" attainable p is 2/2^M, e.g. 2/64 = 0.031 for six models). Over cells: {opts.sign_flip_draws} random sign"
        f" patterns (seed {opts.seed}), p = (1 + #exceeding) / (1 + draws)."
    ]
    if n_models < 2:
        text.append(
            f"Only {n_models} model: the model-level test is not computable (it needs at least two models; six to reach"
            " p < 0.05)."
        )
    elif math.log2(2 / opts.alpha) > n_models:
        text.append(
            f"With {n_models} models the model-level test cannot reach p < {opts.alpha} whatever the data (smallest p ="
            f" {2 / 2**n_models:.4g})."
        )
    return Section(
        title,
        tables={"sign_flip": pd.DataFrame(rows), "asymmetry_cells": per_cell},
        summary={"tests": summary},
        text="\n\n".join(text),
    )
