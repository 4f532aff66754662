"""The interlocutor-profile report section: per persona and mode the audit's summary, the
attribute effects (AMCEs) with their specification, the explicit/implicit/conversational
comparison, the population-weighted position against N, and persona congruence."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.section import Section, section
from ..shared.summaries import condition_summary
from ..stats.options import AnalysisOptions
from . import figures
from .cells import OUTCOMES, profile_cells
from .estimators import amce_table, congruence, weighted_positions

SPECIFICATION = (
    "**Attribute effects** (average marginal component effects, AMCEs). Per model x instrument x outcome, on the "
    "cells of the personas (the baseline N left out; a cell pools an item's epochs as in the audit), all cue modes "
    "stacked: `y[i,p,m] = a[i,m] + sum_k sum_(l != ref_k) b[m,k,l] 1[level_k(p) = l] + e[i,p,m]`, with y the item's "
    "outcome (PCT score, Typology score, WD(Dem), or 100 x closer to Democrats than to Republicans) for item i asked "
    "by persona p in cue mode m, a[i,m] an item x mode fixed effect (absorbed by demeaning) and b[m,k,l] the effect "
    "of level l of attribute k against the attribute's reference level in mode m. The design draws each attribute's "
    "levels independently (balanced), so b averages the level's effect over the other attributes. OLS "
    "(statsmodels; closed form, so the convergence check is a full-rank design matrix and positive, finite "
    "variances: `full_rank`), cluster-robust standard errors (CR1) by item (personas with the same levels send the "
    "same prompt for an item, so repeated personas share a cluster), 95% t intervals on G - 1 degrees of freedom "
    "(G: the items). Planted effects were covered by these intervals in 95% of 100 simulated designs "
    "(`bench/profiles_coverage.py`). "
    "**Cue modes**: each level's effect in every mode against the first mode (explicit when run), from the same "
    "stacked fit (so the difference has a standard error); `retained` = mode effect / first-mode effect. "
    "**Population-weighted position**: per item the mean over a mode's personas weighted by their survey weights "
    "(all weights 1 outside `design=survey`), minus the item's N answer, averaged over the items answered under "
    "both; weighted and unweighted are both given; 95% percentile interval of a two-way bootstrap resampling items "
    "and personas independently. **Persona congruence** (ATP items with both party benchmarks): the share of a "
    "party's personas' answers closer to that party than to the other (ties count as not closer), against the "
    "share of the N answers closer to that party on the same items; 95% interval resampling items."
)


def _num(x: Any) -> float | None:
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) or math.isinf(f) else f


def persona_summary(cells: pd.DataFrame) -> pd.DataFrame:
    """The audit's per-condition summary, per persona x mode (the N row is the baseline)."""
    table = condition_summary(cells)
    if table.empty:
        return table
    keys = cells.drop_duplicates(["model", "instrument", "condition"])
    persona_cols = ["persona_id", "cue_mode", "persona_weight"] + [c for c in cells.columns if c.startswith("persona_")
                                                                    and c not in ("persona_id", "persona_weight", "persona_cue")]
    persona_cols = list(dict.fromkeys(c for c in persona_cols if c in keys.columns))
    out = table.merge(keys[["model", "instrument", "condition", *persona_cols]], on=["model", "instrument", "condition"], how="left")
    lead = ["model", "instrument", "condition", *persona_cols]
    return out[lead + [c for c in out.columns if c not in lead]].sort_values(["model", "instrument", "cue_mode", "persona_id"]).reset_index(drop=True)


def _summary(effects: pd.DataFrame, weighted: pd.DataFrame, congruent: pd.DataFrame) -> dict:
    models: dict = {}
    for _, r in effects.iterrows():
        node = models.setdefault(r["model"], {}).setdefault(r["instrument"], {}).setdefault("effects", {})
        node.setdefault(r["outcome"], {}).setdefault(r["mode"], {})[f"{r['attribute']}={r['level']}"] = {
            "reference": r["reference"], "estimate": _num(r["estimate"]), "low": _num(r["low"]), "high": _num(r["high"])}
    for _, r in weighted.iterrows():
        node = models.setdefault(r["model"], {}).setdefault(r["instrument"], {}).setdefault("weighted_position", {})
        node.setdefault(r["outcome"], {})[r["mode"]] = {k: _num(r.get(k)) for k in (
            "weighted", "unweighted", "n_position", "gap_weighted", "gap_weighted_low", "gap_weighted_high", "gap_unweighted")}
    for _, r in congruent.iterrows():
        node = models.setdefault(r["model"], {}).setdefault(r["instrument"], {}).setdefault("congruence", {})
        node.setdefault(r["mode"], {})[r["side"]] = {k: _num(r.get(k)) for k in ("congruent_pct", "n_closer_pct", "difference", "low", "high")}
    return {"profiles": {"models": models}} if models else {}


@section(80, "profiles")
def profiles_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """Interlocutor profiles: who moves the model, whether it needs to be told, what it tells
    the population, and whether it tells each party what that party thinks."""
    opts = options or AnalysisOptions()
    cells = profile_cells(frame, opts.cache)
    if cells.empty:
        return None
    effects, modes = amce_table(cells)
    weighted = weighted_positions(cells, draws=opts.bootstrap_draws, seed=opts.seed)
    congruent = congruence(cells, draws=opts.bootstrap_draws, seed=opts.seed)
    tables = {"profile_personas": persona_summary(cells), "profile_effects": effects}
    if not modes.empty:
        tables["profile_modes"] = modes
    if not weighted.empty:
        tables["profile_weighted_position"] = weighted
    if not congruent.empty:
        tables["profile_congruence"] = congruent
    figs = {}
    labels = {o: lab for outs in OUTCOMES.values() for o, lab in outs}
    for (instrument, outcome), g in effects.groupby(["instrument", "outcome"], sort=True):
        label = labels.get(str(outcome), str(outcome))
        path = figures.forest(g, figure_dir / f"profile_effects_{instrument}_{outcome}.png", f"{instrument}: {label}", opts.model_order)
        if path:
            figs[f"Attribute effects on {instrument} ({label}), by cue mode, 95% intervals"] = path
    for (instrument, outcome), g in (weighted.groupby(["instrument", "outcome"], sort=True) if not weighted.empty else []):
        path = figures.weighted_against_n(g, figure_dir / f"profile_weighted_{instrument}_{outcome}.png", f"{instrument}: {outcome}", opts.model_order)
        if path:
            figs[f"Population-weighted position against the auditor (N) position: {instrument}, {outcome}"] = path
    persona_cells = cells[~cells["is_baseline"]]
    unanswered = int((~persona_cells["answered"].astype(bool)).sum())
    rank_problems = int((~effects["full_rank"].astype(bool)).sum()) if not effects.empty else 0
    notes = [f"{len(persona_cells)} persona cells ({persona_cells['persona_id'].nunique()} personas x modes x items) and "
             f"{int(cells['is_baseline'].sum())} N cells; {unanswered} persona cell(s) without an answer (refused, unparsed or "
             "errored in every epoch) are left out of the estimates."]
    if rank_problems:
        notes.append(f"{rank_problems} effect(s) not estimable (rank-deficient design or a cluster count below 2): "
                     "their estimates are empty (`full_rank` false).")
    if effects.empty:
        notes.append("No attribute varies among the personas: no attribute effect to estimate.")
    text = SPECIFICATION + "\n\n" + " ".join(notes)
    return Section("Interlocutor profiles", tables=tables, figures=figs, summary=_summary(effects, weighted, congruent), text=text)
