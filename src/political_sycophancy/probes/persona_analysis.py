"""The neutral personas' table and the report section `personas`.

Neutral personas (SI S4): on the items the persona tasks ran on, per model, the mean
WD(Dem) of the cells under N, C3L, C3R, P_ORD, P_STU, P_RET (a cell pools the answered
epochs of its item, see `shared.cells`), and the shift of each condition against N:
the paper's, the difference of the two condition means (headline), and the paired one,
the mean over items answered under both of WD_c - WD_N.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import MappingProxyType

import pandas as pd

from ..core.conditions import PERSONAS
from ..core.section import Section, section
from ..shared.cells import cells_of
from ..stats.options import AnalysisOptions
from .rows import by_model, clean

PERSONA_TABLE_CONDITIONS = ("N", "C3L", "C3R", *PERSONAS)


def persona_shifts(frame: pd.DataFrame, options: AnalysisOptions | None = None) -> pd.DataFrame:
    """Long table per model x condition on the persona items.

    N items answered, mean WD(Dem) (over the cells answered under the condition), the shift
    against N as the difference of the two condition means (the paper's SI S4 definition,
    `shift_vs_N`) and as the mean over items answered under both of WD_c - WD_N
    (`paired_shift_vs_N`).
    """
    cells = cells_of(frame, (options or AnalysisOptions()).cache)
    if cells.empty or not cells["condition"].isin(PERSONAS).any():
        return pd.DataFrame()
    out = []
    for model, mc in cells.groupby("model"):
        persona_cells = mc[mc["condition"].isin(PERSONAS)]
        if persona_cells.empty:
            continue
        instrument = persona_cells["instrument"].mode().iloc[0]
        items = set(persona_cells.loc[persona_cells["instrument"] == instrument, "item_id"])
        on_items = mc[(mc["instrument"] == instrument) & mc["item_id"].isin(items)]
        wd = on_items.pivot_table(index="item_id", columns="condition", values="wd_dem", aggfunc="first")
        base = wd["N"].dropna() if "N" in wd.columns else pd.Series(dtype=float)
        for cond in PERSONA_TABLE_CONDITIONS:
            col = wd[cond].dropna() if cond in wd.columns else pd.Series(dtype=float)
            paired = (
                wd[[cond, "N"]].dropna() if cond != "N" and cond in wd.columns and "N" in wd.columns else pd.DataFrame()
            )
            mean = float(col.mean()) if len(col) else math.nan
            out.append(
                {
                    "model": model,
                    "instrument": instrument,
                    "condition": cond,
                    "n_items": len(items),
                    "n_answered": len(col),
                    "mean_wd_dem": mean,
                    "shift_vs_N": mean - float(base.mean()) if cond != "N" and len(col) and len(base) else math.nan,
                    "n_paired_with_N": len(paired),
                    "paired_shift_vs_N": float((paired[cond] - paired["N"]).mean()) if len(paired) else math.nan,
                }
            )
    return pd.DataFrame(out)


PERSONA_SHIFT_ROWS = MappingProxyType(
    {
        "shift_vs_N": "mean shift vs N (paper: difference of the condition means)",
        "paired_shift_vs_N": "mean paired shift vs N (items answered under both)",
    }
)
POOLED_ROW = "pooled mean WD(Dem) (every answered model x item cell)"


def pooled_means(shifts: pd.DataFrame) -> dict[str, float]:
    """Per condition, the mean WD(Dem) over every answered cell on the persona items, models pooled.

    Per condition, the mean WD(Dem) over every answered model x item cell on the persona
    items, every model's cells pooled (the paper's neutral_persona_summary.txt, "Mean
    WD(Dem) by persona": P_ORD 0.2899, P_RET 0.2874, P_STU 0.2477), not the mean of the
    models' means: each model's mean weighted by its answered items.
    """
    answered = shifts[shifts["n_answered"] > 0]
    totals = (answered["mean_wd_dem"] * answered["n_answered"]).groupby(answered["condition"]).sum()
    counts = answered.groupby("condition")["n_answered"].sum()
    return {str(c): float(totals[c] / counts[c]) for c in PERSONA_TABLE_CONDITIONS if c in counts.index}


def right_against_personas(shifts: pd.DataFrame, key: str = "shift_vs_N") -> dict[str, float | str] | None:
    """C3R's shift against N beside the largest persona shift, for the paper's SI S4 comparison.

    C3R's shift against N on the persona items beside the largest persona shift (by size),
    both the mean over models of `key` (the paper's definition by default): the paper's "C3R
    ... roughly 13x the largest persona shift and in the opposite direction from where any
    plausibly neutral civilian lands" (SI S4). None without C3R or a persona shift.
    """
    means = shifts.groupby("condition")[key].mean()
    personas = means.reindex(PERSONAS).dropna()
    if "C3R" not in means or pd.isna(means["C3R"]) or personas.empty or not personas.abs().max():
        return None
    largest = str(personas.abs().idxmax())
    out: dict[str, float | str] = {
        "right_shift": float(means["C3R"]),
        "largest_persona": largest,
        "largest_persona_shift": float(personas[largest]),
        "ratio": float(abs(means["C3R"]) / abs(personas[largest])),
    }
    if "C3L" in means and not pd.isna(means["C3L"]):
        out["left_shift"] = float(means["C3L"])
    return out


def persona_table(shifts: pd.DataFrame) -> pd.DataFrame:
    """The SI S4 layout: mean WD(Dem) per model x condition, then each condition's shift against N.

    The SI S4 layout: models x conditions of mean WD(Dem), then the mean over models of each
    condition's shift against N, by the paper's definition (difference of the condition
    means, the headline) and paired over items (beside it).
    """
    if shifts.empty:
        return pd.DataFrame()
    wide = shifts.pivot_table(index="model", columns="condition", values="mean_wd_dem", aggfunc="first")
    wide = wide.reindex(columns=[c for c in PERSONA_TABLE_CONDITIONS if c in wide.columns])
    for key, label in PERSONA_SHIFT_ROWS.items():
        wide.loc[label] = shifts.groupby("condition")[key].mean().reindex(wide.columns)
    wide.loc[POOLED_ROW] = pd.Series(pooled_means(shifts)).reindex(wide.columns)
    return wide.reset_index().rename_axis(columns=None)


PERSONA_TEXT = (
    "Neutral personas (SI S4). On the items the persona tasks ran on, mean WD(Dem) per model under N, C3L, C3R "
    "and the three civilian personas, each the mean over the items answered under that condition; a cell pools "
    "the answered epochs (replicates) of its item (letters as point masses, or logprob distributions). Headline "
    "row, the paper's definition: the mean over models of [mean WD(Dem) under the condition - mean WD(Dem) under "
    "N], the difference of the table's columns. Beside it, the paired definition: the mean over models of the "
    "mean over items answered under both of [WD_c - WD_N]. Positive = further from Democrats. Last row: the mean "
    "over every answered model x item cell, the models' cells pooled (the paper's \"mean WD(Dem) by persona\")."
)


def _pooled_text(pooled: dict[str, float], ratio: dict | None, paired: dict | None) -> str:
    """The pooled means at the paper's four decimals, and C3R's shift against the largest persona shift."""
    means = ", ".join(f"{c} {v:.4f}" for c, v in pooled.items())
    parts = [f"Pooled over every answered model x item cell, mean WD(Dem) is {means}."]
    if ratio:
        parts.append(
            f"On these items the C3R shift against N (the paper's definition) is {ratio['right_shift']:+.3f}, "
            f"{ratio['ratio']:.1f} times the largest persona shift "
            f"({ratio['largest_persona']} {ratio['largest_persona_shift']:+.4f})"
            + (f"; the C3L shift is {ratio['left_shift']:+.3f}" if "left_shift" in ratio else "")
            + (
                f". Paired: {paired['right_shift']:+.3f}, {paired['ratio']:.1f} times {paired['largest_persona']}'s "
                f"{paired['largest_persona_shift']:+.4f}."
                if paired
                else "."
            )
        )
    return " ".join(parts)


@section(101, "personas")
def personas_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """The SI S4 persona table, the paper's shift definition as headline, the paired beside."""
    shifts = persona_shifts(frame, options)
    if shifts.empty:
        return None
    overall = {
        key: {str(c): clean(v) for c, v in shifts.groupby("condition")[key].mean().items() if c != "N"}
        for key in PERSONA_SHIFT_ROWS
    }
    pooled = pooled_means(shifts)
    ratios = {key: right_against_personas(shifts, key) for key in PERSONA_SHIFT_ROWS}
    return Section(
        title="Neutral personas (SI S4)",
        tables={"personas": persona_table(shifts), "persona_shifts": shifts},
        summary={
            "personas": {
                **by_model(shifts, ("mean_wd_dem", "shift_vs_N", "paired_shift_vs_N")),
                "mean_shift_vs_N": overall["shift_vs_N"],
                "mean_paired_shift_vs_N": overall["paired_shift_vs_N"],
                "pooled_mean_wd_dem": pooled,
            },
            # apart from `personas`, whose nodes are keyed by model or condition
            "personas_against_c3r": {"paper": ratios["shift_vs_N"], "paired": ratios["paired_shift_vs_N"]},
        },
        text=PERSONA_TEXT + "\n\n" + _pooled_text(pooled, ratios["shift_vs_N"], ratios["paired_shift_vs_N"]),
    )
