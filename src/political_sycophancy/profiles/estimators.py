"""The attribute effects of the profile analysis, as pure functions of `profiles.cells`.

The attribute effects of the profile analysis, on the cells of `profiles.cells` (pure
functions: no Inspect, no report).

Attribute effects (AMCEs, the conjoint-analysis estimator). Per model x instrument x outcome,
on the cells of the personas (the baseline N left out), all cue modes stacked:

    y_{i,p,m} = a_{i,m} + sum_{attribute k} sum_{level l != ref_k} b_{m,k,l} 1[level_k(p) = l] + e_{i,p,m}

y the item's outcome (PCT score, Typology score, WD(Dem), 100 x closer to Democrats) for
item i asked by persona p in mode m; a_{i,m} an item x mode fixed effect (absorbed); b_{m,k,l}
the AMCE of level l of attribute k against its reference level in mode m: because the
levels are drawn independently of one another (balanced designs), b is the effect of the
level averaged over the other attributes' levels. In survey designs (weights that vary) the
fit is weighted by the personas' survey weights (WLS): b is then the population's
least-squares main effect, the population AMCE when a level's effect does not depend on the
other attributes (with interactions and the correlated attributes of real respondents it is
a regression-adjusted average, not an AMCE).

Inference is on the randomised unit, the persona: a model that reacts to each persona's
whole text (a lean of its own) makes all of a persona's answers move together, in every
item and mode. Standard errors are cluster-robust by persona (`stats.cluster_robust`: CR2,
the item x mode fixed effects in the hat matrix; personas with the same levels send the
same prompts, so they are one cluster), with Bell-McCaffrey degrees of freedom per
coefficient and t intervals; a level stated by fewer than `MIN_LEVEL_PERSONAS` personas (or
a reference level) in a mode gets its estimate but no interval (not inferential: its effect
cannot be told from those personas' own leans). The items are the instrument's, held fixed:
the effects are those on these items. Per attribute and mode, the joint test that none of
its levels moves the model (HTZ, `stats.cluster_robust.wald_test`); Benjamini-Hochberg
q-values over the levels of a fit, and over its attribute tests.

Stacking the modes gives the covariance between a level's effects in two modes, so the
explicit/implicit/conversational contrasts b_{m2,k,l} - b_{m1,k,l} have standard errors and
degrees of freedom too; `retained` = b_{m2,k,l} / b_{m1,k,l} only where the first mode's
effect is clearly non-zero (its interval excludes 0), with Fieller's interval.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..stats.cluster_robust import (
    RobustFit,
    cluster_robust_fit,
    coefficient_df,
    contrast_df,
    fieller_interval,
    t_interval,
    wald_test,
)
from ..stats.multiplicity import benjamini_hochberg
from .cells import attribute_columns

# the report's specification (CR2 by persona) and the one it replaced (CR1 by item), kept for the bench
INFERENCE = ("cr2-persona", "cr1-item")
# personas stating a level (and its reference) in a mode below which its interval is not given:
# bench/profiles_coverage.py measured 84-87% coverage from one persona (its own lean is invisible), 95-97% from two
MIN_LEVEL_PERSONAS = 2
ALPHA = 0.05
NOT_STATED = "(not stated)"
AMCE_COLUMNS = (
    "model",
    "instrument",
    "outcome",
    "mode",
    "attribute",
    "level",
    "reference",
    "estimate",
    "se",
    "df",
    "low",
    "high",
    "p_value",
    "q_value",
    "inferential",
    "personas_level",
    "personas_reference",
    "n_cells",
    "n_items",
    "n_personas",
    "clusters",
    "n_clusters",
    "weighted",
    "full_rank",
)
TEST_COLUMNS = (
    "model",
    "instrument",
    "outcome",
    "mode",
    "attribute",
    "levels",
    "f",
    "df_num",
    "df_den",
    "p_value",
    "q_value",
    "inferential",
    "n_clusters",
)
# why `retained` is empty (counted in the section)
RETAINED_REASONS = MappingProxyType(
    {
        "unclear": "the first mode's effect is not clearly non-zero (its interval holds 0)",
        "not_inferential": "a level's effect in one of the two modes has no interval (not inferential)",
        "unbounded": "Fieller's interval is unbounded",
    }
)


@dataclass(frozen=True)
class StackedFit:
    """A stacked AMCE regression.

    Its columns (mode, attribute, level, reference), the robust fit, each coefficient's
    degrees of freedom and whether it is inferential.
    """

    columns: list[tuple[str, str, str, str]]
    fit: RobustFit
    df: np.ndarray
    inferential: np.ndarray


def _references(cells: pd.DataFrame) -> dict[str, str]:
    refs: dict[str, str] = {}
    if "profile_references" in cells.columns:
        last = None
        for value in cells["profile_references"].dropna():
            if isinstance(value, dict) and value != last:  # every row of a task holds the same mapping
                refs.update({k: str(v) for k, v in value.items() if k not in refs})
                last = value
    return refs


def varied_attributes(data: pd.DataFrame) -> list[str]:
    """The attribute columns (without the `persona_` prefix) with at least two levels."""
    out = []
    for col in attribute_columns(data):
        if data[col].fillna(NOT_STATED).nunique() >= 2:
            out.append(col[len("persona_") :])
    return out


def order_modes(modes: Iterable[str]) -> list[str]:
    """explicit, implicit, conversational, then any other mode (alphabetically)."""
    known = ("explicit", "implicit", "conversational")
    present = set(modes)
    return [m for m in known if m in present] + sorted(present - set(known))


def _reference(levels: Sequence[str], wanted: str | None) -> str:
    return wanted if wanted is not None and wanted in levels else sorted(levels)[0]


def persona_clusters(data: pd.DataFrame, attributes: Sequence[str]) -> np.ndarray:
    """The cluster of each cell (an integer code).

    The persona's levels (personas with the same levels send the same prompts, so they are
    one cluster); the persona id when no attribute is given.
    """
    columns = [f"persona_{a}" for a in attributes] or ["persona_id"]
    return _codes(data[columns].fillna(NOT_STATED).astype(str))


def _codes(columns: pd.DataFrame) -> np.ndarray:
    return columns.groupby(list(columns.columns), sort=True).ngroup().to_numpy()


def _design(
    data: pd.DataFrame, stated: dict[str, np.ndarray], references: dict[str, str]
) -> tuple[list[tuple[str, str, str, str]], np.ndarray]:
    modes = order_modes(data["cue_mode"])
    mode_of = data["cue_mode"].astype(str).to_numpy()
    columns: list[tuple[str, str, str, str]] = []  # (mode, attribute, level, reference)
    blocks = []
    for mode in modes:
        in_mode = mode_of == mode
        for a, full in stated.items():
            present = sorted(set(full[in_mode].tolist()))
            if len(present) < 2:
                continue
            ref = _reference(present, references.get(a))
            for level in [lv for lv in present if lv != ref]:
                columns.append((mode, a, level, ref))
                blocks.append((in_mode & (full == level)).astype(float))
    x = np.column_stack(blocks) if blocks else np.zeros((len(data), 0))
    return columns, x


def stacked_fit(
    data: pd.DataFrame, outcome: str, attributes: list[str], references: dict[str, str], inference: str = "cr2-persona"
) -> tuple[pd.DataFrame, StackedFit]:
    """The stacked AMCE regression of one model x instrument x outcome (module docstring).

    The effects table (q-values not yet filled) and the fit, for contrasts and tests.

    Args:
      data: the persona cells of one model and instrument (outcome, cue_mode, item_id,
        persona_id, persona_<attribute>, persona_weight).
      outcome: the outcome column.
      attributes: the attributes that vary.
      references: each attribute's reference level (else its alphabetically first).
      inference: cr2-persona (the report's) or cr1-item (item-clustered CR1, what the
        report used before issue 44; kept for the bench's comparison).
    """
    if inference not in INFERENCE:
        raise ValueError(f"inference must be one of {', '.join(INFERENCE)}, got {inference!r}")
    data = data[np.isfinite(data[outcome].to_numpy(dtype=float))].reset_index(drop=True)
    stated = {a: data[f"persona_{a}"].fillna(NOT_STATED).astype(str).to_numpy() for a in attributes}
    columns, x = _design(data, stated, references)
    groups = _codes(data[["item_id", "cue_mode"]].astype(str))
    personas = persona_clusters(data, attributes)
    clusters = personas if inference == "cr2-persona" else _codes(data[["item_id"]].astype(str))
    raw = data["persona_weight"].to_numpy(dtype=float) if "persona_weight" in data.columns else np.ones(len(data))
    weighted = bool(len(raw) and np.ptp(raw) > 0)
    adjustment = "CR2" if inference == "cr2-persona" else "CR1"
    fit = cluster_robust_fit(
        data[outcome].to_numpy(dtype=float),
        x,
        clusters,
        absorb=groups,
        weights=raw if weighted else None,
        adjustment=adjustment,
    )
    df = coefficient_df(fit) if columns else np.zeros(0)
    # one row per mode x persona cluster (a cluster's personas share their levels): the counts per level
    units = pd.DataFrame({"mode": data["cue_mode"].astype(str), "cluster": personas, **stated})
    units = units.drop_duplicates(["mode", "cluster"])
    per_level = {a: units.groupby(["mode", a]).size().to_dict() for a in stated}
    per_mode = {
        str(mode): {
            "n_cells": int(len(g)),
            "n_items": int(g["item_id"].nunique()),
            "n_personas": int(g["persona_id"].nunique()),
        }
        for mode, g in data.groupby(data["cue_mode"].astype(str))
    }
    rows, inferential = [], []
    for j, (mode, a, level, ref) in enumerate(columns):
        n_level, n_ref = per_level[a].get((mode, level), 0), per_level[a].get((mode, ref), 0)
        ok = bool(fit.variance_ok and min(n_level, n_ref) >= MIN_LEVEL_PERSONAS)
        inferential.append(ok)
        est = float(fit.beta[j])
        se = math.sqrt(fit.cov[j, j]) if ok else math.nan  # not inferential: no standard error that looks precise
        low, high, p = t_interval(est, se, float(df[j])) if ok else (math.nan, math.nan, math.nan)
        rows.append(
            {
                "mode": mode,
                "attribute": a,
                "level": level,
                "reference": ref,
                "estimate": est,
                "se": se,
                "df": float(df[j]) if ok else math.nan,
                "low": low,
                "high": high,
                "p_value": p,
                "inferential": ok,
                "personas_level": n_level,
                "personas_reference": n_ref,
                **per_mode[mode],
                "clusters": "persona" if inference == "cr2-persona" else "item",
                "n_clusters": fit.n_clusters,
                "weighted": weighted,
                "full_rank": fit.full_rank,
            }
        )
    return pd.DataFrame(rows), StackedFit(columns, fit, df, np.array(inferential, dtype=bool))


def attribute_tests(stacked: StackedFit) -> pd.DataFrame:
    """Per mode and attribute: the joint test that none of its levels moves the model.

    Per mode and attribute: the joint test that none of its levels moves the model (HTZ F
    for CR2, the naive F for CR1), inferential only when every level is.
    """
    by: dict[tuple[str, str], list[int]] = {}
    for j, (mode, a, _level, _ref) in enumerate(stacked.columns):
        by.setdefault((mode, a), []).append(j)
    rows = []
    k = len(stacked.columns)
    for (mode, a), idx in by.items():
        test = wald_test(stacked.fit, np.eye(k)[idx])
        ok = bool(stacked.inferential[idx].all()) and math.isfinite(test.p_value)
        rows.append(
            {
                "mode": mode,
                "attribute": a,
                "levels": len(idx),
                "f": test.f,
                "df_num": test.q,
                "df_den": test.df,
                "p_value": test.p_value if ok else math.nan,
                "inferential": ok,
                "n_clusters": stacked.fit.n_clusters,
            }
        )
    return pd.DataFrame(rows)


def mode_contrasts(stacked: StackedFit) -> pd.DataFrame:
    """Per attribute level: its effect in each mode against the first mode, and how much of it is retained.

    Per attribute level: its effect in each mode against the first mode (explicit when run):
    the difference with its t interval, and `retained` (this mode's effect over the first's)
    with Fieller's interval where the first mode's effect is clearly non-zero;
    `retained_note` says why it is empty otherwise (`RETAINED_REASONS`).
    """
    fit, columns = stacked.fit, stacked.columns
    index = {(m, a, lv): j for j, (m, a, lv, _) in enumerate(columns)}
    modes = list(dict.fromkeys(m for m, *_ in columns))
    if len(modes) < 2:
        return pd.DataFrame()
    first = modes[0]
    pairs = [
        (a, lv, m, index[(first, a, lv)], j)
        for (m, a, lv), j in index.items()
        if m != first and (first, a, lv) in index
    ]
    ok = np.array([bool(stacked.inferential[i] and stacked.inferential[j]) for *_, i, j in pairs], dtype=bool)
    k = len(columns)
    differences = np.zeros((len(pairs), k))
    for row, (*_, i, j) in enumerate(pairs):
        differences[row, j], differences[row, i] = 1.0, -1.0
    dfs = np.full(len(pairs), np.nan)
    if ok.any():
        dfs[ok] = contrast_df(fit, differences[ok])
    retained = _retained(stacked, [(i, j) for *_, i, j in pairs], ok)
    rows = []
    for row, (a, lv, m, i, j) in enumerate(pairs):
        diff = float(fit.beta[j] - fit.beta[i])
        var = float(differences[row] @ fit.cov @ differences[row])
        se = math.sqrt(var) if ok[row] and var > 0 else math.nan
        low, high, p = t_interval(diff, se, float(dfs[row])) if ok[row] else (math.nan, math.nan, math.nan)
        rows.append(
            {
                "attribute": a,
                "level": lv,
                "reference_mode": first,
                "mode": m,
                "reference_mode_estimate": float(fit.beta[i]),
                "mode_estimate": float(fit.beta[j]),
                "difference": diff,
                "se": se,
                "df": float(dfs[row]),
                "low": low,
                "high": high,
                "p_value": p,
                **retained[row],
            }
        )
    return pd.DataFrame(rows)


def _retained(stacked: StackedFit, pairs: list[tuple[int, int]], ok: np.ndarray) -> list[dict[str, float | str]]:
    """The share of an effect retained, per (first-mode coefficient i, mode coefficient j).

    `retained` = b_j / b_i with Fieller's interval on the degrees of freedom of b_j - r b_i
    at the ratio r, or NaN and the reason.
    """
    fit = stacked.fit
    empty: dict[str, float | str] = {"retained": math.nan, "retained_low": math.nan, "retained_high": math.nan}
    out: list[dict[str, float | str]] = []
    clear = []
    for row, (i, _j) in enumerate(pairs):
        if not ok[row]:
            out.append({**empty, "retained_note": "not_inferential"})
            continue
        low, high, _ = t_interval(float(fit.beta[i]), math.sqrt(fit.cov[i, i]), float(stacked.df[i]))
        out.append({**empty, "retained_note": "unclear"})
        if low > 0 or high < 0:
            clear.append(row)
    if not clear:
        return out
    combinations = np.zeros((len(clear), len(fit.beta)))
    for n, row in enumerate(clear):
        i, j = pairs[row]
        combinations[n, j], combinations[n, i] = 1.0, -float(fit.beta[j]) / float(fit.beta[i])
    dfs = contrast_df(fit, combinations)
    for n, row in enumerate(clear):
        i, j = pairs[row]
        this, base = float(fit.beta[j]), float(fit.beta[i])
        r_low, r_high = fieller_interval(this, base, fit.cov[j, j], fit.cov[i, i], fit.cov[i, j], float(dfs[n]))
        if math.isfinite(r_low):
            out[row] = {"retained": this / base, "retained_low": r_low, "retained_high": r_high, "retained_note": ""}
        else:
            out[row] = {**empty, "retained_note": "unbounded"}
    return out


def _with_q(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(q_value=benjamini_hochberg(table["p_value"]) if len(table) else [])


def amce_table(
    cells: pd.DataFrame, outcomes: Sequence[tuple[str, str]] | None = None, inference: str = "cr2-persona"
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Attribute effects, mode contrasts and joint tests per model x instrument x outcome, with q-values.

    Attribute effects per model x instrument x outcome x mode, the mode contrasts (every
    mode against the first, explicit when run) of each level, and the joint test of each
    attribute per mode; q-values (Benjamini-Hochberg) over the levels, and over the
    attribute tests, of each model x instrument x outcome.
    """
    from .cells import OUTCOMES

    empty = pd.DataFrame(columns=list(AMCE_COLUMNS))
    if cells.empty:
        return empty, pd.DataFrame(), pd.DataFrame(columns=list(TEST_COLUMNS))
    references = _references(cells)
    effects, contrasts, tests = [], [], []
    personas = cells[~cells["is_baseline"]]
    for (model, instrument), group in personas.groupby(["model", "instrument"], sort=True):
        scoring = group["scoring"].iloc[0]
        attributes = varied_attributes(group)
        if not attributes:
            continue
        for outcome, _label in outcomes or OUTCOMES.get(scoring, ()):
            if outcome not in group.columns or group[outcome].notna().sum() == 0:
                continue
            table, stacked = stacked_fit(group, outcome, attributes, references, inference)
            if table.empty:
                continue
            ident = {"model": str(model), "instrument": str(instrument), "outcome": outcome}
            effects.append(_with_q(table).assign(**ident))
            contrasts.append(mode_contrasts(stacked).assign(**ident))
            tests.append(_with_q(attribute_tests(stacked)).assign(**ident))
    out = pd.concat(effects, ignore_index=True)[list(AMCE_COLUMNS)] if effects else empty
    modes = pd.concat(contrasts, ignore_index=True) if contrasts else pd.DataFrame()
    lead = ["model", "instrument", "outcome"]
    if not modes.empty:
        modes = modes[lead + [c for c in modes.columns if c not in lead]]
    joint = (
        pd.concat(tests, ignore_index=True)[list(TEST_COLUMNS)] if tests else pd.DataFrame(columns=list(TEST_COLUMNS))
    )
    return out, modes, joint
