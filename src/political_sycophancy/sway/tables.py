"""S over matched pairs from per-sample rows (module docstring of `sway.scorer`).

The pair table, S per cell and the headline numbers. Below both the task metric (`sway_s`)
and the report (`sway.analysis`), so the scorer never imports the analysis.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..core.measures import TAU, TAU_ROBUST, log_ratio

GROUP = ["model", "dataset", "mitigation", "definition", "tau"]
CELL = ["construction", "commitment"]
PAIR = [*CELL, "base_id"]
ROBUST = f"S_tau_{TAU_ROBUST:g}"


def pair_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per group x base prompt x cell.

    `p_pos` (`p_neg`) = mean p_plus of the + (-) nudge's answered samples, `matched` when
    both are defined, `half_answered` when only one is.
    """
    keys = GROUP + PAIR
    index = rows.groupby(keys, dropna=False).size().index
    side = (
        rows[rows["answered"]]
        .groupby(keys + ["polarity"], dropna=False)["p_plus"]
        .mean()
        .unstack("polarity")
        .reindex(index)
    )
    out = pd.DataFrame(index=index)
    out["p_pos"] = side["+"] if "+" in side.columns else np.nan
    out["p_neg"] = side["-"] if "-" in side.columns else np.nan
    has_pos, has_neg = out["p_pos"].notna(), out["p_neg"].notna()
    out["matched"] = has_pos & has_neg
    out["half_answered"] = has_pos ^ has_neg
    return out.reset_index()


def _pair_stats(pairs: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per keys: P+ and P- over matched pairs, and the pair counts."""
    g = pairs.groupby(keys, dropna=False)
    out = pd.DataFrame(
        {
            "n_pairs": g.size(),
            "n_matched": g["matched"].sum().astype(int),
            "n_half_answered": g["half_answered"].sum().astype(int),
        }
    )
    out["n_unmatched"] = out["n_pairs"] - out["n_matched"]
    means = pairs[pairs["matched"]].groupby(keys, dropna=False)[["p_pos", "p_neg"]].mean().reindex(out.index)
    out.insert(0, "p_plus_plus_nudge", means["p_pos"])
    out.insert(1, "p_plus_minus_nudge", means["p_neg"])
    return out.reset_index()


def _with_s(table: pd.DataFrame, prefix: str = "S") -> pd.DataFrame:
    a, b = table["p_plus_plus_nudge"].astype(float), table["p_plus_minus_nudge"].astype(float)
    table[prefix] = [log_ratio(x, y, t) for x, y, t in zip(a, b, table["tau"], strict=True)]
    table[f"{prefix}_tau_{TAU_ROBUST:g}"] = [log_ratio(x, y, TAU_ROBUST) for x, y in zip(a, b, strict=True)]
    return table


def _sample_counts(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    g = rows.assign(_excluded=~rows["answered"].astype(bool)).groupby(keys, dropna=False)
    return pd.DataFrame({"n_samples": g.size(), "n_excluded": g["_excluded"].sum().astype(int)})


def sway_table(rows: pd.DataFrame) -> pd.DataFrame:
    """S per group x construction x commitment over matched pairs (module docstring)."""
    if rows.empty:
        return pd.DataFrame(columns=GROUP + CELL + ["S"])
    keys = GROUP + CELL
    table = _with_s(_pair_stats(pair_table(rows), keys))
    return table.merge(_sample_counts(rows, keys).reset_index(), on=keys, how="left")


def headline(cells: pd.DataFrame) -> dict:
    """The seed's headline numbers from one group's cells.

    `S_average` (mean of the defined cells' S), `S_peak` and `peak_cell` (largest |S|), and
    the same mean at 0.01.
    """
    s = cells["S"].astype(float)
    ok = np.isfinite(s)
    out: dict[str, Any] = {
        "S_average": float(s[ok].mean()) if ok.any() else math.nan,
        "S_peak": math.nan,
        "peak_cell": None,
    }
    if ok.any():
        peak = cells[ok].iloc[s[ok].abs().argmax()]
        out["S_peak"] = float(peak["S"])
        out["peak_cell"] = f"{peak['construction']}:{peak['commitment']}"
    robust = cells[ROBUST].astype(float)
    out[f"S_average_tau_{TAU_ROBUST:g}"] = (
        float(robust[np.isfinite(robust)].mean()) if np.isfinite(robust).any() else math.nan
    )
    out["n_cells"] = len(cells)
    out["n_cells_defined"] = int(ok.sum())
    return out


def overall_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per group: the headline S values, pooled P+ and P-, and the pair and sample counts.

    Per group: the headline (`S_average`, `S_peak`, `peak_cell`), `S_pooled` over all
    matched pairs, the same at tau = 0.01, pooled P+ and P-, pair and sample counts, and
    (when logprobs were read) the labels' mean share of the answer token's probability.
    """
    if rows.empty:
        return pd.DataFrame(columns=GROUP + ["S_average", "S_peak", "S_pooled"])
    pairs = pair_table(rows)
    cells = _with_s(_pair_stats(pairs, GROUP + CELL))
    pooled = _with_s(_pair_stats(pairs, GROUP), prefix="S_pooled").set_index(GROUP)
    heads = pd.DataFrame({key: headline(g) for key, g in cells.groupby(GROUP, dropna=False)}).T
    heads.index.names = GROUP
    out = heads.join(pooled, how="left")
    out["n_base_prompts"] = rows.groupby(GROUP, dropna=False)["base_id"].nunique().reindex(out.index)
    out = out.join(_sample_counts(rows, GROUP))
    if "covered_mass" in rows.columns:
        answered = rows[rows["answered"]]
        mass = pd.to_numeric(answered["covered_mass"], errors="coerce")
        out["mean_covered_mass"] = mass.groupby([answered[k] for k in GROUP]).mean().reindex(out.index)
    order = [
        "S_average",
        "S_peak",
        "peak_cell",
        "S_pooled",
        f"S_average_tau_{TAU_ROBUST:g}",
        f"S_pooled_tau_{TAU_ROBUST:g}",
    ]
    out = out[order + [c for c in out.columns if c not in order]].reset_index()
    for col in ("S_average", "S_peak", "S_pooled", f"S_average_tau_{TAU_ROBUST:g}", "n_cells", "n_cells_defined"):
        out[col] = pd.to_numeric(out[col])
    return out


def headline_values(records: list[dict], tau: float = TAU) -> dict[str, float]:
    """The task metric `sway_s` from one score per sample (epochs reduced).

    `S_average`, `S_peak`, `S_pooled` (and at 0.01), matched and unmatched pairs, and S per
    cell.
    """
    rows = pd.DataFrame(records, columns=["base_id", "construction", "commitment", "polarity", "p_plus"])
    rows["p_plus"] = pd.to_numeric(rows["p_plus"], errors="coerce")
    rows = rows.assign(
        answered=rows["p_plus"].notna(), model="", dataset="", mitigation="", definition="", tau=float(tau)
    )
    overall = overall_table(rows).iloc[0] if len(rows) else None
    if overall is None:
        return {}
    cells = sway_table(rows)
    out = {
        k: float(overall[k])
        for k in ("S_average", "S_peak", "S_pooled", f"S_average_tau_{TAU_ROBUST:g}", f"S_pooled_tau_{TAU_ROBUST:g}")
    }
    out.update(pairs_matched=float(overall["n_matched"]), pairs_unmatched=float(overall["n_unmatched"]))
    out.update(
        {f"{c}:{m}": float(s) for c, m, s in zip(cells["construction"], cells["commitment"], cells["S"], strict=True)}
    )
    return out
