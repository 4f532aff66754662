"""Power planning from pilot logs.

Items and replicates needed to detect an asymmetry, and its report section (only when asked
for).

Unit of analysis: the per-item asymmetry a_mi = (C3R - N) - (C3L - N) of one model
(WD(Dem) on ATP items, else the PCT item score). A model's asymmetry is the mean of a_mi
over n items, each the mean of r replicates, so

    Var(mean) = (s2_item + s2_rep / r) / n,

with s2_rep the within-cell variance of a_mi across epochs and s2_item the rest of the
pilot's between-item variance. A two-sided z test at level alpha has power 1 - beta for
an asymmetry delta when

    n >= (z_{1 - alpha/2} + z_{1 - beta})^2 (s2_item + s2_rep / r) / delta^2.

A pilot with one epoch cannot separate s2_rep from s2_item: the table then treats all
variance as item variance (replicates do not help) and says so. The model-level exact
sign-flip test can only reach p <= alpha with M >= log2(2 / alpha) models.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..core.section import Section, section
from ..shared.cells import WDMemo, audit_rows, build_cells, cells_of, main_rows, run_memo
from ..shared.shifts import asymmetry_cells, pct_asymmetry_cells
from ..stats.options import AnalysisOptions
from .section_values import number

DEFAULT_EFFECTS = MappingProxyType({"WD(Dem)": 0.02, "PCT item score": 0.25})


def _per_epoch_asymmetry(
    rows: pd.DataFrame, memo: WDMemo | None, cells: pd.DataFrame | None
) -> tuple[pd.DataFrame, str]:
    """a_mi per epoch (cells of each epoch separately) and the measure used."""
    parts, measure = [], None
    single = cells is not None and rows["epoch"].max() <= 1
    for epoch, g in rows.groupby("epoch"):
        cells = cells if single and cells is not None else build_cells(g, memo)
        a = asymmetry_cells(cells)
        m = "WD(Dem)"
        if a.empty:
            a, m = pct_asymmetry_cells(cells), "PCT item score"
        if a.empty:
            continue
        if measure is None:
            measure = m
        if m == measure:
            parts.append(a.assign(epoch=epoch))
    if not parts:
        return pd.DataFrame(), ""
    return pd.concat(parts, ignore_index=True), measure or ""


def power_plan(
    rows: pd.DataFrame,
    *,
    effect: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    replicates: tuple[int, ...] = (1, 2, 4, 8),
    memo: WDMemo | None = None,
    cells: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, dict]:
    """The planning table (one row per number of replicates) and the pilot's variance estimates.

    `rows` are audit rows (the main variant of each model is used); `cells`, the main
    variant's cells when already built, saves rebuilding them for one-epoch pilots.
    """
    from scipy import stats  # here, not at import: scipy's import is about a second

    rows = main_rows(rows) if not rows.empty else rows
    per_epoch, measure = _per_epoch_asymmetry(rows, memo, cells) if not rows.empty else (pd.DataFrame(), "")
    info: dict = {"measure": measure, "alpha": alpha, "power": power}
    if per_epoch.empty:
        info["note"] = "no model has items answered under N, C3L and C3R: nothing to plan from"
        return pd.DataFrame(), info
    first = per_epoch[per_epoch["epoch"] == per_epoch["epoch"].min()]
    var_total = float(first.groupby("model")["asymmetry"].var(ddof=1).mean())
    if math.isnan(var_total):
        info["note"] = (
            "fewer than two items answered under N, C3L and C3R per model: their variance cannot be estimated"
        )
        return pd.DataFrame(), info
    if var_total == 0:
        info["note"] = "not estimable: the asymmetry is the same on every pilot item (no variance to plan from)"
        return pd.DataFrame(), info
    per_cell = per_epoch.groupby(["model", "item_id"])["asymmetry"]
    counts = per_cell.size()
    has_reps = bool((counts >= 2).any())
    var_rep = float(per_cell.var(ddof=1)[counts >= 2].mean()) if has_reps else math.nan
    var_item = max(var_total - var_rep, 0.0) if has_reps else var_total
    effect = effect if effect is not None else DEFAULT_EFFECTS.get(measure, 0.02)
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    n_available = int(first.groupby("model")["item_id"].nunique().max())
    table = []
    # without replicates in the pilot a plan per number of replicates would repeat one row
    for r in replicates if has_reps else replicates[:1]:
        var = var_item + (var_rep / r if has_reps else 0.0)
        needed = math.ceil(z**2 * var / effect**2) if effect > 0 else math.inf
        table.append(
            {
                "measure": measure,
                "effect": effect,
                "alpha": alpha,
                "power": power,
                "replicates": r,
                "sd_item": math.sqrt(var_item),
                "sd_replicate": math.sqrt(var_rep) if has_reps else np.nan,
                "items_needed_per_model": needed,
                "items_in_pilot": n_available,
                "reachable_with_pilot_items": needed <= n_available,
                "detectable_effect_with_pilot_items": z * math.sqrt(var / n_available),
            }
        )
    info.update(
        effect=effect,
        var_item=var_item,
        var_replicate=var_rep if has_reps else None,
        pilot_models=int(first["model"].nunique()),
        pilot_items=n_available,
        pilot_mean_asymmetry=float(first.groupby("model")["asymmetry"].mean().mean()),
        min_models_sign_flip=math.ceil(math.log2(2 / alpha)),
        note=(
            ""
            if has_reps
            else (
                "the pilot has one epoch per cell, so replicate noise cannot be separated from item variance: "
                "the table has one row, one replicate per item (run the pilot with epochs >= 2 to plan replicates)"
            )
        ),
    )
    return pd.DataFrame(table), info


DEFAULT_POWER = 0.8


@section(70, "power")
def power_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """Items and replicates needed to detect an asymmetry, planned from these logs as a pilot.

    Only when asked for (--power or --power-effect): a plan is a design question, not a
    result of the logs, and read beside published data it reads as a verdict on them.
    """
    opts = options or AnalysisOptions()
    if opts.power is None and opts.power_effect is None:
        return None
    rows = audit_rows(frame)
    if rows.empty:
        return None
    table, info = power_plan(
        rows,
        effect=opts.power_effect,
        alpha=opts.alpha,
        power=DEFAULT_POWER if opts.power is None else opts.power,
        cells=cells_of(frame, opts.cache),
        memo=run_memo(opts.cache),
    )
    if table.empty:
        return Section(
            "Power planning",
            summary={"power": {k: info.get(k) for k in ("measure", "note")}},
            text=info.get("note", ""),
        )
    text = (
        f"Pilot: {info['pilot_models']} model(s), up to {info['pilot_items']} items with N, C3L and C3R; measure "
        f"{info['measure']}; mean per-model asymmetry in the pilot {info['pilot_mean_asymmetry']:.4g}; item SD "
        f"{math.sqrt(info['var_item']):.4g}"
        + (f", replicate SD {math.sqrt(info['var_replicate']):.4g}" if info.get("var_replicate") is not None else "")
        + f". Target asymmetry {info['effect']:g} (set with --power-effect), two-sided alpha {info['alpha']}, power"
        f" {info['power']}. Items needed per model: n >= (z_{{1-alpha/2}} + z_{{power}})^2 (s2_item + s2_rep / r) /"
        f" delta^2. The exact model-level sign-flip test needs at least {info['min_models_sign_flip']} models to"
        f" reach p < {info['alpha']}." + (f"\n\n{info['note']}" if info.get("note") else "")
    )
    summary = {"power": {k: number(v) if isinstance(v, (float, np.floating)) else v for k, v in info.items()}}
    return Section("Power planning", tables={"power": table}, summary=summary, text=text)
