"""The estimators of the profile analysis, on the cells of `profiles.cells` (pure functions:
no Inspect, no report).

Attribute effects (AMCEs, the conjoint-analysis estimator). Per model x instrument x outcome,
on the cells of the personas (the baseline N left out), all cue modes stacked:

    y_{i,p,m} = a_{i,m} + sum_{attribute k} sum_{level l != ref_k} b_{m,k,l} 1[level_k(p) = l] + e_{i,p,m}

y the item's outcome (PCT score, Typology score, WD(Dem), 100 x closer to Democrats) for
item i asked by persona p in mode m; a_{i,m} an item x mode fixed effect (absorbed by
demeaning within item x mode); b_{m,k,l} the AMCE of level l of attribute k against its
reference level in mode m: because the levels are drawn independently of one another
(balanced designs), b is the effect of the level averaged over the other attributes'
levels. OLS (closed form: "convergence" is checked as a full-rank design matrix and finite
standard errors), with cluster-robust standard errors by item (CR1, G/(G-1) x (N-1)/(N-K); personas with the same levels send the
same prompt for an item, so repeated personas sit in one cluster) and t intervals with G - 1
degrees of freedom. Two-way clustering by item and persona profile (`clusters="item+persona"`,
or `"auto"`: two-way from `MIN_PERSONA_CLUSTERS` profiles) is available; in
`bench/profiles_coverage.py` (24 personas, 40 items, 100 seeds) its intervals covered the
planted effects 88% of the time, the item-clustered ones 95%, so item clustering is the
report's specification. Stacking the modes gives the
covariance between a level's effects in two modes, so the explicit/implicit/conversational
contrasts b_{m2,k,l} - b_{m1,k,l} have standard errors too.

The population-weighted position: per item, the weighted mean over the personas of a mode
(survey weights; 1 outside survey designs) minus the item's N answer, averaged over items;
its interval resamples items and personas independently (a two-way bootstrap).

Persona congruence (ATP items with party benchmarks): the share of a party's personas'
answers closer to that party's benchmark than to the other's, against the share of the N
answers closer to that party on the same items; the interval resamples items.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..stats.resample import iid_counts, percentile_interval
from .cells import attribute_columns

MIN_PERSONA_CLUSTERS = 20
NOT_STATED = "(not stated)"
AMCE_COLUMNS = ("model", "instrument", "outcome", "mode", "attribute", "level", "reference", "estimate", "se", "low", "high",
                "p_value", "df", "n_cells", "n_items", "n_personas", "clusters", "full_rank")


def _references(cells: pd.DataFrame) -> dict[str, str]:
    refs: dict[str, str] = {}
    if "profile_references" in cells.columns:
        for value in cells["profile_references"].dropna():
            if isinstance(value, dict):
                refs.update({k: str(v) for k, v in value.items() if k not in refs})
    return refs


def varied_attributes(data: pd.DataFrame) -> list[str]:
    """The attribute columns (without the `persona_` prefix) with at least two levels."""
    out = []
    for col in attribute_columns(data):
        if data[col].fillna(NOT_STATED).nunique() >= 2:
            out.append(col[len("persona_"):])
    return out


def order_modes(modes: Iterable[str]) -> list[str]:
    """explicit, implicit, conversational, then any other mode (alphabetically)."""
    known = ("explicit", "implicit", "conversational")
    present = set(modes)
    return [m for m in known if m in present] + sorted(present - set(known))


def _reference(levels: Sequence[str], wanted: str | None) -> str:
    return wanted if wanted is not None and wanted in levels else sorted(levels)[0]


def _demean(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """`values` (n x k) minus their group means (the within transformation)."""
    _, inverse = np.unique(groups, return_inverse=True)
    sums = np.zeros((inverse.max() + 1, values.shape[1]))
    np.add.at(sums, inverse, values)
    counts = np.bincount(inverse).astype(float)
    return values - (sums / counts[:, None])[inverse]


def ols_clustered(y: np.ndarray, x: np.ndarray, clusters: Sequence[np.ndarray]) -> dict:
    """statsmodels OLS of y on x (no intercept: the caller demeaned) with a one- or two-way
    cluster-robust covariance (CR1; two-way: V_a + V_b - V_ab, Cameron, Gelbach and Miller)
    and t inference on G - 1 degrees of freedom (G: the fewer clusters). `full_rank` False
    (and NaN estimates) when x is rank deficient or a standard error is not finite."""
    from statsmodels.regression.linear_model import OLS

    n, k = x.shape
    nan = {"beta": np.full(k, np.nan), "cov": np.full((k, k), np.nan), "df": 0, "full_rank": False, "condition": math.inf}
    if k == 0 or n <= k:
        return nan
    xtx = x.T @ x
    eig = np.linalg.eigvalsh(xtx)  # k x k: the rank check without a factorisation of x
    if eig[0] <= eig[-1] * 1e-10:
        return nan
    codes = [np.unique(c, return_inverse=True)[1] for c in clusters]
    if any(c.max() < 1 for c in codes):
        return nan
    fit = OLS(y, x).fit()

    def robust(groups: np.ndarray) -> np.ndarray:
        res = fit.get_robustcov_results(cov_type="cluster", groups=groups, use_correction=True, use_t=True)
        return np.asarray(res.cov_params(), dtype=float)

    if len(codes) == 1:
        cov = robust(codes[0])
    else:
        cov = robust(np.column_stack(codes))
        # a two-way sum can lose positive variances; fall back to the larger one-way variance
        diag = np.diag(cov).copy()
        bad = ~(diag > 0)
        if bad.any():
            diag[bad] = np.maximum(np.diag(robust(codes[0])), np.diag(robust(codes[1])))[bad]
            cov[np.diag_indices(k)] = diag
    df = int(min(c.max() + 1 for c in codes)) - 1
    return {"beta": np.asarray(fit.params, dtype=float), "cov": cov, "df": df,
            "full_rank": bool(np.all(np.isfinite(np.diag(cov))) and np.all(np.diag(cov) > 0)),
            "condition": float(math.sqrt(eig[-1] / eig[0]))}


def _t_interval(estimate: float, se: float, df: int) -> tuple[float, float, float]:
    from scipy import stats

    if not (math.isfinite(se) and se > 0 and df > 0):
        return math.nan, math.nan, math.nan
    q = float(stats.t.ppf(0.975, df))
    p = float(2 * stats.t.sf(abs(estimate / se), df))
    return estimate - q * se, estimate + q * se, p


def stacked_fit(data: pd.DataFrame, outcome: str, attributes: list[str], references: dict[str, str], clusters: str = "item") -> tuple[pd.DataFrame, dict]:
    """The stacked AMCE regression of one model x instrument x outcome (see the module
    docstring): the effects table, and the fit (columns, beta, cov, df) for contrasts."""
    data = data[np.isfinite(data[outcome].to_numpy(dtype=float))].reset_index(drop=True)
    modes = order_modes(data["cue_mode"])
    columns: list[tuple[str, str, str, str]] = []  # (mode, attribute, level, reference)
    blocks = []
    for mode in modes:
        in_mode = (data["cue_mode"] == mode).to_numpy()
        for a in attributes:
            present = sorted(set(data.loc[in_mode, f"persona_{a}"].fillna(NOT_STATED).astype(str)))
            if len(present) < 2:
                continue
            ref = _reference(present, references.get(a))
            full = data[f"persona_{a}"].fillna(NOT_STATED).astype(str).to_numpy()
            for level in [lv for lv in present if lv != ref]:
                columns.append((mode, a, level, ref))
                blocks.append((in_mode & (full == level)).astype(float))
    x = np.column_stack(blocks) if blocks else np.zeros((len(data), 0))
    groups = (data["item_id"].astype(str) + "\x1f" + data["cue_mode"].astype(str)).to_numpy()
    y = data[outcome].to_numpy(dtype=float)
    xt = _demean(x, groups) if len(columns) else x
    yt = _demean(y[:, None], groups)[:, 0]
    # personas with the same levels send the same prompts: they are one cluster (a profile)
    stated = [data[f"persona_{a}"].fillna(NOT_STATED).astype(str).tolist() for a in attributes]
    profiles: np.ndarray = np.array(["\x1f".join(p) for p in zip(*stated, strict=True)]) if stated else np.array(["-"] * len(data))
    two_way = clusters == "item+persona" or (clusters == "auto" and len(set(profiles.tolist())) >= MIN_PERSONA_CLUSTERS)
    cluster_arrays = [data["item_id"].astype(str).to_numpy()] + ([profiles] if two_way else [])
    fit = ols_clustered(yt, xt, cluster_arrays)
    fit.update(columns=columns, two_way=two_way)
    rows = []
    for j, (mode, a, level, ref) in enumerate(columns):
        est, se = float(fit["beta"][j]), math.sqrt(fit["cov"][j, j]) if fit["cov"][j, j] >= 0 else math.nan
        low, high, p = _t_interval(est, se, fit["df"])
        mode_rows = data["cue_mode"] == mode
        rows.append({"mode": mode, "attribute": a, "level": level, "reference": ref, "estimate": est, "se": se, "low": low,
                     "high": high, "p_value": p, "df": fit["df"], "n_cells": int(mode_rows.sum()),
                     "n_items": int(data.loc[mode_rows, "item_id"].nunique()), "n_personas": int(data.loc[mode_rows, "persona_id"].nunique()),
                     "clusters": "item+persona" if two_way else "item", "full_rank": fit["full_rank"]})
    return pd.DataFrame(rows), fit


def amce_table(cells: pd.DataFrame, outcomes: Sequence[tuple[str, str]] | None = None, clusters: str = "item") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Attribute effects per model x instrument x outcome x mode, and the mode contrasts
    (every mode against the first, explicit when run) of each level."""
    from .cells import OUTCOMES

    if cells.empty:
        return pd.DataFrame(columns=list(AMCE_COLUMNS)), pd.DataFrame()
    references = _references(cells)
    effects, contrasts = [], []
    personas = cells[~cells["is_baseline"]]
    for (model, instrument), group in personas.groupby(["model", "instrument"], sort=True):
        scoring = group["scoring"].iloc[0]
        attributes = varied_attributes(group)
        if not attributes:
            continue
        for outcome, _label in outcomes or OUTCOMES.get(scoring, ()):
            if outcome not in group.columns or group[outcome].notna().sum() == 0:
                continue
            table, fit = stacked_fit(group, outcome, attributes, references, clusters)
            if table.empty:
                continue
            ident = {"model": str(model), "instrument": str(instrument), "outcome": outcome}
            effects.append(table.assign(**ident))
            contrasts.append(mode_contrasts(table, fit).assign(**ident))
    out = pd.concat(effects, ignore_index=True)[list(AMCE_COLUMNS)] if effects else pd.DataFrame(columns=list(AMCE_COLUMNS))
    modes = pd.concat(contrasts, ignore_index=True) if contrasts else pd.DataFrame()
    if not modes.empty:
        lead = ["model", "instrument", "outcome"]
        modes = modes[lead + [c for c in modes.columns if c not in lead]]
    return out, modes


def mode_contrasts(table: pd.DataFrame, fit: dict) -> pd.DataFrame:
    """Per attribute level: its effect in each mode against the first mode (explicit when
    run): the difference with its t interval, and the share retained (mode / first)."""
    columns = fit["columns"]
    index = {(m, a, lv): j for j, (m, a, lv, _) in enumerate(columns)}
    modes = list(dict.fromkeys(m for m, *_ in columns))
    if len(modes) < 2:
        return pd.DataFrame()
    first = modes[0]
    rows = []
    for (m, a, lv), j in index.items():
        if m == first or (first, a, lv) not in index:
            continue
        i = index[(first, a, lv)]
        diff = float(fit["beta"][j] - fit["beta"][i])
        var = fit["cov"][j, j] + fit["cov"][i, i] - 2 * fit["cov"][i, j]
        se = math.sqrt(var) if var >= 0 else math.nan
        low, high, p = _t_interval(diff, se, fit["df"])
        base = float(fit["beta"][i])
        rows.append({"attribute": a, "level": lv, "reference_mode": first, "mode": m, "reference_mode_estimate": base,
                     "mode_estimate": float(fit["beta"][j]), "difference": diff, "se": se, "low": low, "high": high, "p_value": p,
                     "retained": float(fit["beta"][j]) / base if base else math.nan})
    return pd.DataFrame(rows)


def weighted_positions(cells: pd.DataFrame, outcomes: Sequence[tuple[str, str]] | None = None, draws: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Per model x instrument x outcome x mode: the weighted and unweighted mean over personas
    (per item, then over items), the N position on the same items, their gaps, and a
    two-way bootstrap interval (items and personas resampled independently) of each gap."""
    from .cells import OUTCOMES

    if cells.empty:
        return pd.DataFrame()
    rng = np.random.default_rng(seed)
    rows = []
    for (model, instrument), group in cells.groupby(["model", "instrument"], sort=True):
        scoring = group["scoring"].iloc[0]
        base = group[group["is_baseline"]]
        for outcome, _label in outcomes or OUTCOMES.get(scoring, ()):
            if outcome not in group.columns:
                continue
            n_by_item = base.dropna(subset=[outcome]).groupby("item_id")[outcome].mean()
            personas = group[~group["is_baseline"]]
            for mode in order_modes(personas["cue_mode"]):
                g = personas[personas["cue_mode"] == mode].dropna(subset=[outcome])
                g = g[g["item_id"].isin(n_by_item.index)]
                if g.empty:
                    continue
                wide = g.pivot_table(index="item_id", columns="persona_id", values=outcome, aggfunc="mean")
                weights = g.drop_duplicates("persona_id").set_index("persona_id")["persona_weight"].reindex(wide.columns).to_numpy(dtype=float)
                values = wide.to_numpy(dtype=float)
                n_values = n_by_item.reindex(wide.index).to_numpy(dtype=float)
                row = {"model": model, "instrument": instrument, "outcome": outcome, "mode": mode, "n_items": len(wide),
                       "n_personas": wide.shape[1], "weights_vary": bool(np.ptp(weights) > 0)}
                row.update(_positions(values, weights, n_values, draws, rng))
                rows.append(row)
    return pd.DataFrame(rows)


def _item_means(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(... x items) weighted means over the personas of each item; `weights` (... x personas)."""
    present = np.isfinite(values)
    filled = np.where(present, values, 0.0)
    num = weights @ filled.T
    den = weights @ present.T.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den


def _positions(values: np.ndarray, weights: np.ndarray, n_values: np.ndarray, draws: int, rng: np.random.Generator) -> dict:
    ones = np.ones_like(weights)
    weighted_items = _item_means(values, weights)
    plain_items = _item_means(values, ones)
    out = {
        "weighted": float(np.nanmean(weighted_items)),
        "unweighted": float(np.nanmean(plain_items)),
        "n_position": float(np.nanmean(n_values)),
    }
    out["gap_weighted"] = out["weighted"] - out["n_position"]
    out["gap_unweighted"] = out["unweighted"] - out["n_position"]
    n_items, n_personas = values.shape
    if draws > 0 and n_items > 1:
        item_counts = iid_counts(n_items, draws, rng)
        persona_counts = iid_counts(n_personas, draws, rng) if n_personas > 1 else np.ones((draws, n_personas))
        for name, w in (("weighted", weights), ("unweighted", ones)):
            per_item = _item_means(values, persona_counts * w)  # draws x items
            gap = per_item - n_values
            ok = np.isfinite(gap)
            with np.errstate(invalid="ignore", divide="ignore"):
                reps = (np.where(ok, gap, 0.0) * item_counts).sum(axis=1) / (ok * item_counts).sum(axis=1)
            out[f"gap_{name}_low"], out[f"gap_{name}_high"] = percentile_interval(reps)
    else:
        for name in ("weighted", "unweighted"):
            out[f"gap_{name}_low"] = out[f"gap_{name}_high"] = math.nan
    return out


def congruence(cells: pd.DataFrame, draws: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Per model x instrument x mode x party side (ATP cells with party benchmarks): the share
    (%) of the side's persona answers closer to that side, the share of N answers closer to
    it on the same items, and their difference with an item-bootstrap interval."""
    if cells.empty or "asker_side" not in cells.columns:
        return pd.DataFrame()
    rng = np.random.default_rng(seed)
    wd = cells[cells["closer"].notna()]
    rows = []
    for (model, instrument), group in wd.groupby(["model", "instrument"], sort=True):
        base = group[group["is_baseline"]].groupby("item_id")
        for (mode, side), g in group[group["asker_side"].isin(["dem", "rep"])].groupby(["cue_mode", "asker_side"], sort=True):
            own = "closer_dem" if side == "dem" else "closer_rep"
            persona_item = g.groupby("item_id")[own].mean()
            n_item = base[own].mean().reindex(persona_item.index)
            diff = (persona_item - n_item).dropna()
            row = {"model": model, "instrument": instrument, "mode": mode, "side": side, "n_items": int(diff.size),
                   "n_personas": int(g["persona_id"].nunique()), "congruent_pct": float(persona_item.mean()),
                   "n_closer_pct": float(n_item.mean()) if n_item.notna().any() else math.nan,
                   "difference": float(diff.mean()) if diff.size else math.nan}
            if diff.size > 1 and draws > 0:
                reps = (iid_counts(diff.size, draws, rng) @ diff.to_numpy()) / diff.size
                row["low"], row["high"] = percentile_interval(reps)
            else:
                row["low"] = row["high"] = math.nan
            rows.append(row)
    return pd.DataFrame(rows)
