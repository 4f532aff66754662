"""The audit's mixed-model section: the linear mixed model of the item-level outcome on
condition, by default the paper's stated specification, and the data it is fitted on.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..core.conditions import FOCAL
from ..core.section import Section, section
from ..core.text import md_text
from ..shared.cells import cells_of, has_atp
from ..shared.shifts import BASELINE
from ..shared.summaries import ATP, PCT
from ..stats.mixed import SPEC_LABELS, MixedFit, fit_mixed
from ..stats.options import AnalysisOptions
from .section_values import no_audit

MIXED_CONDITIONS = ("focal", "all")
MIXED_ROWS = ("all", "paired")


def mixed_data(cells: pd.DataFrame, conditions: str = "focal", rows: str = "all") -> tuple[pd.DataFrame, str, str]:
    """Item-level data for the mixed model: ATP WD(Dem) if present, else the PCT item score
    of directional items, one row per answered model x item x condition cell.

    conditions: `focal` = N, C3L and C3R (the paper's SI S1), `all` = every condition present.
    rows: `all` = every answered cell of those conditions (the paper), `paired` = only the
    model x item pairs answered under N and at least one other of them."""
    if conditions not in MIXED_CONDITIONS or rows not in MIXED_ROWS:
        raise ValueError(f"mixed-model data: conditions must be one of {MIXED_CONDITIONS} and rows one of {MIXED_ROWS}")
    if has_atp(cells):
        d = cells[(cells["scoring"] == ATP) & cells["answered"] & cells["has_benchmarks"]]
        outcome, label = "wd_dem", "ATP WD(Dem)"
    else:
        d = cells[(cells["scoring"] == PCT) & cells["answered"] & (cells["direction"] != 0)]
        outcome, label = "ideology", "PCT item score (directional items)"
    d = d[["model", "item_id", "condition", outcome]].dropna()
    if conditions == "focal":
        d = d[d["condition"].isin(FOCAL)]
    if rows == "paired":
        has_n = d[d["condition"] == BASELINE][["model", "item_id"]].drop_duplicates()
        n_conds = d.groupby(["model", "item_id"])["condition"].nunique().rename("k").reset_index()
        keep = has_n.merge(n_conds[n_conds["k"] >= 2], on=["model", "item_id"])
        d = d.merge(keep[["model", "item_id"]], on=["model", "item_id"])
    return d.reset_index(drop=True), outcome, label


def _estimates_line(fit: MixedFit) -> str:
    """'C3L -0.011 [-0.019, -0.003]; C3R ...' in the fit's condition order."""
    rows = fit.coefficients[fit.coefficients["condition"] != "(Intercept)"]
    return "; ".join(f"{md_text(r.condition)} {r.estimate:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}]" for r in rows.itertuples())


@section(50, "mixed")
def mixed_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """The linear mixed model of the outcome on condition; by default the paper's stated
    specification (focal conditions, crossed item and model intercepts, every observation)."""
    opts = options or AnalysisOptions()
    if no_audit(frame):
        return None
    cells = cells_of(frame, opts.cache)
    data, outcome, label = mixed_data(cells, opts.mixed_conditions, opts.mixed_rows)
    title = "Mixed model"
    selection = {"conditions": opts.mixed_conditions, "rows": opts.mixed_rows}
    if data.empty or data["condition"].nunique() < 2 or BASELINE not in set(data["condition"]):
        reason = f"no items observed under N and another condition ({'N, C3L, C3R' if opts.mixed_conditions == 'focal' else 'any condition'})"
        return Section(title, summary={"tests": {"mixed_model": {"spec": opts.mixed_spec, "data": selection, "converged": None,
                                                                 "coefficients": {}, "reason": reason}}},
                       text=f"The mixed model is not fitted: {reason}.")
    specs = ["crossed", "paper"] if opts.mixed_spec == "both" else [opts.mixed_spec]
    try:
        fits = {s: fit_mixed(data, outcome, spec=s, engine=opts.mixed_engine) for s in specs}
    except ValueError as ex:
        return Section(title, summary={"tests": {"mixed_model": {"spec": opts.mixed_spec, "data": selection, "converged": None,
                                                                 "coefficients": {}, "reason": str(ex)}}},
                       text=f"The mixed model is not fitted: {md_text(ex)}.")
    main = fits[specs[0]]
    tables, summary = {}, {}
    for s, fit in fits.items():
        tables[f"mixed_{s}_coefficients"] = fit.coefficients.assign(spec=s)
        tables[f"mixed_{s}_attempts"] = pd.DataFrame(fit.attempts)
    for s, fit in fits.items():
        key = "mixed_model" if s == specs[0] else f"mixed_model_{s}"
        summary[key] = {**fit.summary(), "spec_label": SPEC_LABELS[s], "data": selection, "outcome_label": label}
    which = (
        "the focal conditions N, C3L and C3R" if opts.mixed_conditions == "focal" else "every condition present"
    ) + (", every answered observation" if opts.mixed_rows == "all" else ", only model x item pairs answered under N and another of them")
    text = [
        f"Outcome: {label}; data: {which} (`--mixed-conditions {opts.mixed_conditions} --mixed-rows {opts.mixed_rows}`): "
        f"{main.n_obs:,} observations, {main.n_items} items, {main.n_models} model(s), conditions "
        f"{', '.join(map(md_text, main.conditions))} (N reference). Fixed effect of condition; Wald 95% CIs."
    ]
    for s, fit in fits.items():
        state = f"converged ({fit.optimizer})" if fit.converged else "did NOT converge"
        vcs = ", ".join(f"{k} {v:.4g}" for k, v in fit.variance_components.items())
        estimates = _estimates_line(fit) if fit.converged else "no estimates"
        text.append(
            f"**{s}** specification ({SPEC_LABELS[s]}): **{estimates}**. Formula `{fit.formula}`, {fit.engine} engine; "
            f"{state}; REML log-likelihood {fit.loglik:.1f}; variance components: {vcs or 'n/a'}."
        )
        if fit.boundary:
            text.append(f"Boundary: {', '.join(fit.boundary)} estimated at zero.")
        text.extend(fit.notes)
    text.append(
        "Every optimizer listed in the attempts table is run and the converged fit with the best REML likelihood is "
        "kept. Other variants: `--mixed-spec paper|both`, `--mixed-engine statsmodels`, `--mixed-conditions all`, "
        "`--mixed-rows paired`."
    )
    return Section(title, tables=tables, summary={"tests": summary}, text="\n\n".join(text))
