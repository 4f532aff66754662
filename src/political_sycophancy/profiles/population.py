"""What the model tells the population, on the cells of `profiles.cells` (pure functions: no Inspect, no report).

The population-weighted position: per item, the weighted mean over the personas of a mode
(survey weights; 1 outside survey designs) minus the item's N answer (pooled over its
epochs and repeats), averaged over items; its interval resamples items and personas
independently (a two-way bootstrap).

Alignment with the public (ATP items with benchmarks; OpinionQA's measure, Santurkar et al.
2023): per item, the weighted mixture of a mode's persona answer distributions against the
public's own answer distribution, as 1 - WD (normalised Wasserstein distance, the audit's
WD), averaged over items, beside the N answer's alignment on the same items; and each
party's personas (asker side dem or rep) against that party's benchmark. The interval of
the difference resamples items and personas independently.

Persona congruence (ATP items with party benchmarks): the share of a party's personas'
answers closer to that party's benchmark than to the other's, against the share of the N
answers closer to that party on the same items; the interval resamples items.

Weights are used relative to the largest (the estimates do not depend on their scale), so a
weight of 1e308 does not overflow; `usable_weights` leaves out personas whose weight is not
a positive finite number, counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.measures import wds_many
from ..stats.resample import iid_counts, percentile_interval
from .estimators import order_modes

ALIGNMENT_GROUPS = ("overall", "dem", "rep")


def usable_weights(cells: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The cells without the personas whose weight is unusable, and how many were left out.

    The cells without the personas whose weight is not a positive finite number (N keeps its
    cells), and how many personas were left out.
    """
    if cells.empty or "persona_weight" not in cells.columns:
        return cells, 0
    w = pd.to_numeric(cells["persona_weight"], errors="coerce").to_numpy(dtype=float)
    bad = ~(np.isfinite(w) & (w > 0)) & ~cells["is_baseline"].to_numpy(dtype=bool)
    if not bad.any():
        return cells, 0
    left = cells.loc[bad, ["model", "instrument", "persona_id"]].drop_duplicates()
    return cells[~bad].reset_index(drop=True), len(left)


def _relative(weights: np.ndarray) -> np.ndarray:
    top = float(np.max(weights)) if weights.size else 1.0
    return weights / top if top > 0 and math.isfinite(top) else weights


def weighted_positions(
    cells: pd.DataFrame, outcomes: Sequence[tuple[str, str]] | None = None, draws: int = 2000, seed: int = 0
) -> pd.DataFrame:
    """The population-weighted position against N, per model x instrument x outcome x mode.

    The weighted and unweighted mean over personas (per item, then over items), the N
    position on the same items, their gaps, and a two-way bootstrap interval (items and
    personas resampled independently) of each gap.
    """
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
                weights = (
                    g.drop_duplicates("persona_id")
                    .set_index("persona_id")["persona_weight"]
                    .reindex(wide.columns)
                    .to_numpy(dtype=float)
                )
                values = wide.to_numpy(dtype=float)
                n_values = n_by_item.reindex(wide.index).to_numpy(dtype=float)
                row = {
                    "model": model,
                    "instrument": instrument,
                    "outcome": outcome,
                    "mode": mode,
                    "n_items": len(wide),
                    "n_personas": wide.shape[1],
                    "weights_vary": bool(np.ptp(weights) > 0),
                }
                row.update(_positions(values, _relative(weights), n_values, draws, rng))
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


def _positions(
    values: np.ndarray, weights: np.ndarray, n_values: np.ndarray, draws: int, rng: np.random.Generator
) -> dict[str, float]:
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


def _distances(rows: np.ndarray, positions: Sequence[float], bench: Sequence[float], keep: np.ndarray) -> np.ndarray:
    """WD of each row's answer distribution to a benchmark, on the options kept.

    WD of each row (an answer distribution over an item's options) to a benchmark, on the
    options kept (all, or the ordinal ones in `drop` mode); NaN without mass.
    """
    pos = np.asarray(positions, dtype=float)[keep]
    b = np.asarray(bench, dtype=float)[keep]
    if len(pos) < 2 or not np.ptp(pos) > 0:
        return np.full(len(rows), np.nan)
    return wds_many(rows[:, keep], pos, {"g": np.broadcast_to(b, (len(rows), len(b)))})["g"]


def _keep(cell: pd.Series) -> np.ndarray:
    ordinal = cell.get("ordinal")
    n = len(cell["positions"])
    if cell.get("non_ordinal") == "drop" and ordinal is not None and len(ordinal) == n:
        return np.asarray(ordinal, dtype=bool)
    return np.ones(n, dtype=bool)


def _benchmark(benchmarks: Any, group: str) -> list[float] | None:
    if not isinstance(benchmarks, dict):
        return None
    value = benchmarks.get(group)
    return list(value) if value else None


def alignment(cells: pd.DataFrame, draws: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Population alignment: the weighted persona mixture's 1 - WD to each group's benchmark, against N's.

    Per model x instrument x mode x group (overall: every persona against the public; dem,
    rep: the side's personas against that party): the mean over items of 1 - WD between the
    weighted mixture of the personas' answer distributions and the group's benchmark, the N
    answer's alignment on the same items, their difference and its two-way bootstrap
    interval (items and personas resampled independently).
    """
    if cells.empty or "probs" not in cells.columns:
        return pd.DataFrame()
    wd = cells[(cells["scoring"] == "wd") & cells["probs"].notna()]
    rng = np.random.default_rng(seed)
    rows = []
    for (model, instrument), group in wd.groupby(["model", "instrument"], sort=True):
        base = group[group["is_baseline"]].drop_duplicates("item_id").set_index("item_id")
        personas = group[~group["is_baseline"]]
        for mode in order_modes(personas["cue_mode"]):
            in_mode = personas[personas["cue_mode"] == mode]
            for target in ALIGNMENT_GROUPS:
                chosen = in_mode if target == "overall" else in_mode[in_mode["asker_side"] == target]
                row = _aligned(chosen, base, target, draws, rng)
                if row:
                    rows.append({"model": model, "instrument": instrument, "mode": mode, "group": target, **row})
    return pd.DataFrame(rows)


def _aligned(
    chosen: pd.DataFrame, base: pd.DataFrame, target: str, draws: int, rng: np.random.Generator
) -> dict[str, Any] | None:
    """One row of `alignment` (None when no item has the group's benchmark and an N answer)."""
    ids = sorted(chosen["persona_id"].unique().tolist())
    if not ids:
        return None
    at = {p: k for k, p in enumerate(ids)}
    weights = _relative(
        chosen.drop_duplicates("persona_id")
        .set_index("persona_id")["persona_weight"]
        .reindex(ids)
        .to_numpy(dtype=float)
    )
    p_count = len(ids)
    persona_counts = iid_counts(p_count, draws, rng) if draws > 0 and p_count > 1 else np.ones((max(draws, 0), p_count))
    model_rows, n_rows, rep_rows = [], [], []
    for item, cells in chosen.groupby("item_id", sort=True):
        first = cells.iloc[0]
        bench = _benchmark(first["benchmarks"], target)
        if bench is None or item not in base.index or len(bench) != len(first["positions"]):
            continue
        keep = _keep(first)
        probs = np.zeros((p_count, len(bench)))
        present = np.zeros(p_count)
        for pid, dist in zip(cells["persona_id"], cells["probs"], strict=True):
            if len(dist) == len(bench):
                probs[at[pid]] = dist
                present[at[pid]] = 1.0
        mix = ((weights * present) @ probs)[None, :]
        n_dist = np.asarray(base.at[item, "probs"], dtype=float)[None, :]
        if n_dist.shape[1] != len(bench):
            continue
        model_rows.append(1 - _distances(mix, first["positions"], bench, keep)[0])
        n_rows.append(1 - _distances(n_dist, first["positions"], bench, keep)[0])
        if draws > 0:
            mixes = (persona_counts * weights * present) @ probs
            rep_rows.append(1 - _distances(mixes, first["positions"], bench, keep))
    model_a, n_a = np.asarray(model_rows, dtype=float), np.asarray(n_rows, dtype=float)
    ok = np.isfinite(model_a) & np.isfinite(n_a)
    if not ok.any():
        return None
    diff = (model_a - n_a)[ok]
    row: dict[str, Any] = {
        "n_personas": p_count,
        "n_items": int(ok.sum()),
        "weights_vary": bool(np.ptp(weights) > 0),
        "alignment": float(model_a[ok].mean()),
        "n_alignment": float(n_a[ok].mean()),
        "difference": float(diff.mean()),
        "low": math.nan,
        "high": math.nan,
    }
    if draws > 0 and ok.sum() > 1:
        reps_items = np.column_stack(rep_rows)[:, ok] - n_a[ok][None, :]  # draws x items
        item_counts = iid_counts(int(ok.sum()), draws, rng)
        good = np.isfinite(reps_items)
        with np.errstate(invalid="ignore", divide="ignore"):
            reps = (np.where(good, reps_items, 0.0) * item_counts).sum(axis=1) / (good * item_counts).sum(axis=1)
        row["low"], row["high"] = percentile_interval(reps)
    return row


def congruence(cells: pd.DataFrame, draws: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Party congruence per model x instrument x mode x party side (ATP cells with party benchmarks).

    The share (%) of the side's persona answers closer to that side, the share of N answers
    closer to it on the same items, and their difference with an item-bootstrap interval.
    """
    if cells.empty or "asker_side" not in cells.columns:
        return pd.DataFrame()
    rng = np.random.default_rng(seed)
    wd = cells[cells["closer"].notna()]
    rows = []
    for (model, instrument), group in wd.groupby(["model", "instrument"], sort=True):
        base = group[group["is_baseline"]].groupby("item_id")
        sided = group[group["asker_side"].isin(["dem", "rep"])]
        for (mode, side), g in sided.groupby(["cue_mode", "asker_side"], sort=True):
            own = "closer_dem" if side == "dem" else "closer_rep"
            persona_item = g.groupby("item_id")[own].mean()
            n_item = base[own].mean().reindex(persona_item.index)
            diff = (persona_item - n_item).dropna()
            row = {
                "model": model,
                "instrument": instrument,
                "mode": mode,
                "side": side,
                "n_items": int(diff.size),
                "n_personas": int(g["persona_id"].nunique()),
                "congruent_pct": float(persona_item.mean()),
                "n_closer_pct": float(n_item.mean()) if n_item.notna().any() else math.nan,
                "difference": float(diff.mean()) if diff.size else math.nan,
            }
            if diff.size > 1 and draws > 0:
                reps = (iid_counts(diff.size, draws, rng) @ diff.to_numpy()) / diff.size
                row["low"], row["high"] = percentile_interval(reps)
            else:
                row["low"] = row["high"] = math.nan
            rows.append(row)
    return pd.DataFrame(rows)
