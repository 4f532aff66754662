"""The audit's mixed-model section.

The linear mixed model of the item-level outcome on condition, by default the paper's stated
specification, and the data it is fitted on.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..core.conditions import FOCAL
from ..core.numbers import fixed
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
    """Item-level data for the mixed model.

    ATP WD(Dem) if present, else the PCT item score of directional items, one row per
    answered model x item x condition cell.

    conditions: `focal` = N, C3L and C3R (the paper's SI S1), `all` = every condition present.
    rows: `all` = every answered cell of those conditions (the paper), `paired` = only the
    model x item pairs answered under N and at least one other of them.
    """
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
    return "; ".join(
        f"{md_text(r.condition)} {r.estimate:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}]" for r in rows.itertuples()
    )


def fits_to_report(opts: AnalysisOptions) -> list[str]:
    """The specifications the section fits, the main one first.

    `--mixed-spec` (both: crossed), the paper's code's (`paper`) beside it, whose estimates,
    z values and group sizes are the ones the paper prints, and with `--mixed-slopes` the
    per-model slopes.
    """
    main = "crossed" if opts.mixed_spec == "both" else opts.mixed_spec
    specs = [main] + (["paper"] if main != "paper" else [])
    return specs + (["slopes"] if opts.mixed_slopes else [])


def _details(fit: MixedFit) -> str:
    """Z values, the C3R / C3L ratio, group sizes and the variance components with their SEs."""
    names = {"(Intercept)": "intercept"}
    zs = ", ".join(
        f"{md_text(names.get(str(c), str(c)))} {float(z):+.3f}"
        for c, z in zip(fit.coefficients["condition"], fit.coefficients["z"], strict=True)
    )
    parts = [f"z = estimate / SE: {zs}"]
    if (ratio := fit.ratio()) is not None:
        sign = "the same sign" if ratio["same_sign"] else "opposite signs"
        parts.append(f"|C3R| / |C3L| = {ratio['magnitude']:.2f} ({sign})")
    if fit.df is not None:
        parts.append(f"intervals and p-values from the t distribution on {fit.df} degrees of freedom (models - 1)")
    g = fit.groups
    sizes = [
        f"{g['item']['n']:,} items with {g['item']['min']:,} to {g['item']['max']:,} observations each "
        f"(mean {g['item']['mean']:.1f}; the paper's code groups by item)"
    ]
    if "item x model" in g:
        pairs = g["item x model"]
        sizes.append(f"{pairs['n']:,} item x model pairs with {pairs['min']} to {pairs['max']} each")
    sizes.append(f"{g['model']['n']} model(s) with {g['model']['min']:,} to {g['model']['max']:,} each")
    parts.append("groups: " + ", ".join(sizes))
    ses = fit.variance_se
    comps = ", ".join(
        f"{md_text(k.removesuffix(' variance'))} {v:.4g}"
        + (f" (SE {ses[k]:.2g})" if ses.get(k) is not None else " (SE n/a: on the boundary)")
        for k, v in fit.variance_components.items()
    )
    parts.append(f"variance components with their SEs (the observed information of the REML likelihood): {comps}")
    printed = [
        f"{md_text(k.removesuffix(' variance'))} {v:.2g}"
        for k, v in fit.variance_se_statsmodels.items()
        if v is not None
    ]
    if printed:
        parts.append(
            "statsmodels prints beside a component the residual SD times the SE of the variance ratio "
            f"(component / residual variance) instead: {', '.join(printed)}"
        )
    return "; ".join(parts) + "."


@section(50, "mixed")
def mixed_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """The linear mixed model of the outcome on condition.

    By default the paper's stated specification (focal conditions, crossed item and model
    intercepts, every observation).
    """
    opts = options or AnalysisOptions()
    if no_audit(frame):
        return None
    cells = cells_of(frame, opts.cache)
    data, outcome, label = mixed_data(cells, opts.mixed_conditions, opts.mixed_rows)
    title = "Mixed model"
    selection = {"conditions": opts.mixed_conditions, "rows": opts.mixed_rows}
    if data.empty or data["condition"].nunique() < 2 or BASELINE not in set(data["condition"]):
        reason = (
            "no items observed under N and another condition"
            f" ({'N, C3L, C3R' if opts.mixed_conditions == 'focal' else 'any condition'})"
        )
        return Section(
            title,
            summary={
                "tests": {
                    "mixed_model": {
                        "spec": opts.mixed_spec,
                        "data": selection,
                        "converged": None,
                        "coefficients": {},
                        "reason": reason,
                    }
                }
            },
            text=f"The mixed model is not fitted: {reason}.",
        )
    specs = fits_to_report(opts)
    fits, unfitted = {}, {}
    for s in specs:
        try:
            fits[s] = fit_mixed(data, outcome, spec=s, engine=opts.mixed_engine)
        except ValueError as ex:
            if s == specs[0]:
                node = {"spec": s, "data": selection, "converged": None, "coefficients": {}, "reason": str(ex)}
                said = f"The mixed model is not fitted: {md_text(ex)}."
                return Section(title, summary={"tests": {"mixed_model": node}}, text=said)
            unfitted[s] = str(ex)
    main = fits[specs[0]]
    tables, summary = {}, {}
    for s, fit in fits.items():
        tables[f"mixed_{s}_coefficients"] = fit.coefficients.assign(spec=s)
        tables[f"mixed_{s}_attempts"] = pd.DataFrame(fit.attempts)
    for s, fit in fits.items():
        key = "mixed_model" if s == specs[0] else f"mixed_model_{s}"
        summary[key] = {**fit.summary(), "spec_label": SPEC_LABELS[s], "data": selection, "outcome_label": label}
    for s, reason in unfitted.items():
        summary[f"mixed_model_{s}"] = {
            "spec": s,
            "spec_label": SPEC_LABELS[s],
            "data": selection,
            "converged": None,
            "coefficients": {},
            "reason": reason,
        }
    which = (
        "the focal conditions N, C3L and C3R" if opts.mixed_conditions == "focal" else "every condition present"
    ) + (
        ", every answered observation"
        if opts.mixed_rows == "all"
        else ", only model x item pairs answered under N and another of them"
    )
    text = [
        f"Outcome: {label}; data: {which} (`--mixed-conditions {opts.mixed_conditions} --mixed-rows"
        f" {opts.mixed_rows}`): {main.n_obs:,} observations, {main.n_items} items, {main.n_models} model(s), conditions"
        f" {', '.join(map(md_text, main.conditions))} (N reference). Fixed effect of condition; Wald 95% CIs."
    ]
    text.extend(_fits_text(fits, unfitted, specs))
    return Section(title, tables=tables, summary={"tests": summary}, text="\n\n".join(text))


def _fits_text(fits: dict[str, MixedFit], unfitted: dict[str, str], specs: list[str]) -> list[str]:
    """Each fit's paragraph, the fits that failed, and what the specifications assume.

    Each fit's paragraph (estimates, formula, convergence, z values, groups, variances), the
    fits that failed, and what the specifications assume.
    """
    text = []
    for s, fit in fits.items():
        state = f"converged ({fit.optimizer})" if fit.converged else "did NOT converge"
        vcs = ", ".join(f"{k} {v:.4g}" for k, v in fit.variance_components.items())
        estimates = _estimates_line(fit) if fit.converged else "no estimates"
        text.append(
            f"**{s}** specification ({SPEC_LABELS[s]}): **{estimates}**. Formula `{fit.formula}`, {fit.engine} engine; "
            f"{state}; REML log-likelihood {fixed(fit.loglik, 1)}; variance components: {vcs or 'n/a'}."
        )
        if fit.converged:
            text.append(_details(fit))
        if fit.boundary:
            text.append(f"Boundary: {', '.join(fit.boundary)} estimated at zero.")
        text.extend(fit.notes)
    for s, reason in unfitted.items():
        text.append(f"**{s}** specification ({SPEC_LABELS[s]}): not fitted: {md_text(reason)}.")
    if "paper" in fits and specs[0] != "paper":
        text.append(
            "The paper's code fits the `paper` specification, so its printed estimates, z values, group sizes and "
            "variance component are that fit's; it is reported beside the default, whose specification is the one the "
            "paper states."
        )
    if "slopes" not in specs:
        text.append(
            "The specifications above hold each condition's effect equal in every model: their intervals ignore how "
            "much the effect varies across models. `--mixed-slopes` fits per-model condition slopes beside them."
        )
    text.append(
        "Every optimizer listed in the attempts table is run and the converged fit with the best REML likelihood is "
        "kept. Other variants: `--mixed-spec paper`, `--mixed-slopes`, `--mixed-engine statsmodels`, "
        "`--mixed-conditions all`, `--mixed-rows paired`."
    )
    return text
