"""Decoding robustness: its tables and the report section `decoding`.

Decoding robustness (SI S2): on the focal ATP grid (N, C3L, C3R), per model and
decoding variant - `orig` (epoch 1 of the sampled run), `replicates` (all sampled
epochs pooled per cell), `T=0` (the greedy run) - the C3R - N and C3L - N shifts in
WD(Dem) and the asymmetry, as the paper's differences of condition means and item-paired
(`shared.shifts`: `item_shifts`, `decomposition`), on cells built from that variant's
rows only. When the logs come from the paper design (`designs.py`), the sampled rows are
those of its Phase 2 tasks, so the Phase 1 N answers do not enter.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.conditions import FOCAL
from ..core.section import Section, section
from ..shared.cells import audit_rows, build_cells
from ..shared.shifts import decomposition, item_shifts
from ..stats.options import AnalysisOptions
from .rows import clean

DECODING_VARIANTS = ("orig", "replicates", "T=0")
DESIGN_PHASE2_PREFIX = "phase2_"


def decoding_rows(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Rows of the focal ATP grid per decoding variant (see the module docstring).

    A variant the logs do not hold is left out (`replicates` needs more than one epoch).
    """
    rows = audit_rows(frame)
    if rows.empty or "scoring" not in rows.columns:
        return {}
    rows = rows[(rows["scoring"] == "wd") & rows["condition"].isin(FOCAL)]
    if rows.empty:
        return {}
    temperature = pd.to_numeric(rows["temperature"], errors="coerce")
    sampled, greedy = rows[temperature > 0], rows[temperature == 0]
    if sampled["task"].astype(str).str.startswith(DESIGN_PHASE2_PREFIX).any():
        sampled = sampled[sampled["task"].astype(str).str.startswith(DESIGN_PHASE2_PREFIX)]
    out: dict[str, pd.DataFrame] = {}
    if not sampled.empty:
        out["orig"] = sampled[sampled["epoch"] == 1]
        if sampled["epoch"].max() > 1:
            out["replicates"] = sampled
    if not greedy.empty:
        out["T=0"] = greedy
    return out


def decoding_shifts(frame: pd.DataFrame, variants: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """The shifts and asymmetry per model x decoding variant, in WD(Dem), unpaired and item-paired.

    The C3R - N and C3L - N shifts and the asymmetry, (a) as differences of the condition
    means, each over the items answered under that condition (the paper's SI S2,
    `*_unpaired`), and (b) item-paired: mean shift over items answered under both, asymmetry
    over items answered under all three.
    """
    out = []
    for variant, rows in (decoding_rows(frame) if variants is None else variants).items():
        cells = build_cells(rows)
        shifts = item_shifts(cells)
        wd = shifts[shifts["measure"] == "wd_dem"] if not shifts.empty else shifts
        decomp = decomposition(cells, shifts).set_index("model") if not cells.empty else pd.DataFrame()
        answered = cells[cells["answered"] & cells["wd_dem"].notna()] if not cells.empty else cells
        for model in sorted(cells["model"].unique()):
            rec: dict = {"model": model, "variant": variant, "n_samples": int((rows["model"] == model).sum())}
            means = answered[answered["model"] == model].groupby("condition")["wd_dem"].mean()
            for cond, name in (("C3R", "c3r_shift"), ("C3L", "c3l_shift")):
                s = (
                    wd[(wd["model"] == model) & (wd["condition"] == cond)]["shift"]
                    if not wd.empty
                    else pd.Series(dtype=float)
                )
                rec[name] = float(s.mean()) if len(s) else math.nan
                rec[f"n_{name}_items"] = int(len(s))
                rec[f"{name}_unpaired"] = (
                    float(means[cond] - means["N"]) if {cond, "N"} <= set(means.index) else math.nan
                )
            rec["asymmetry"] = float(decomp.loc[model, "asymmetry"]) if model in decomp.index else math.nan
            rec["n_asymmetry_items"] = int(decomp.loc[model, "n_asymmetry_items"]) if model in decomp.index else 0
            rec["asymmetry_unpaired"] = rec["c3r_shift_unpaired"] - rec["c3l_shift_unpaired"]
            out.append(rec)
    return pd.DataFrame(out)


def decoding_table(shifts: pd.DataFrame, *, paired: bool = False) -> pd.DataFrame:
    """The SI S2 layout: one row per model (and a mean row), columns shift x variant.

    The paper's unpaired condition means by default, the item-paired values with `paired`.
    """
    if shifts.empty:
        return pd.DataFrame()
    measures = (
        ("c3r_shift", "c3l_shift", "asymmetry")
        if paired
        else ("c3r_shift_unpaired", "c3l_shift_unpaired", "asymmetry_unpaired")
    )
    variants = [v for v in DECODING_VARIANTS if v in set(shifts["variant"])]
    wide = shifts.pivot_table(index="model", columns="variant", values=list(measures), aggfunc="first")
    cols = [(m, v) for m in measures for v in variants]
    wide = wide.reindex(columns=pd.MultiIndex.from_tuples(cols))
    wide.loc["Mean"] = wide.mean(numeric_only=True)
    wide.columns = [f"{m} {v}" for m, v in wide.columns]  # type: ignore[str-unpack]  # a MultiIndex: tuples, not str
    return wide.reset_index().rename(columns={"index": "model"})


def decoding_summary(shifts: pd.DataFrame) -> dict:
    """How far the asymmetry moves between variants, and whether its sign holds.

    For the paper's unpaired asymmetry (`asymmetry_unpaired`) and the item-paired one
    (`asymmetry`).
    """
    if shifts.empty:
        return {}
    out: dict = {}
    for key in ("asymmetry_unpaired", "asymmetry"):
        wide = shifts.pivot_table(index="model", columns="variant", values=key, aggfunc="first")
        node: dict = {"per_model": {str(m): {str(v): clean(wide.loc[m, v]) for v in wide.columns} for m in wide.index}}
        for a, b in (("orig", "replicates"), ("replicates", "T=0"), ("orig", "T=0")):
            if a in wide.columns and b in wide.columns:
                pair = wide[[a, b]].dropna()
                if len(pair):
                    node[f"max_abs_change_{a}_vs_{b}"] = float((pair[a] - pair[b]).abs().max())
                    node[f"signs_preserved_{a}_vs_{b}"] = bool((np.sign(pair[a]) == np.sign(pair[b])).all())
        out[key] = node
    return out


DECODING_TEXT = (
    "Decoding robustness (SI S2). On the focal ATP grid (N, C3L, C3R), per model and decoding variant (`orig` = "
    "epoch 1 of the sampled run, `replicates` = all sampled epochs pooled per cell, `T=0` = the greedy run; cells "
    "built from each variant's rows alone), in WD(Dem). Table `decoding`, the paper's definition: C3R - N and "
    "C3L - N as differences of the condition means (each over the items answered under that condition) and "
    "asymmetry = their difference. Table `decoding_paired`, item-paired: the mean shift over items answered "
    "under both conditions and the asymmetry (C3R - N) - (C3L - N) over items answered under all three "
    "(`shared.shifts`)."
)


@section(102, "decoding")
def decoding_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """The SI S2 tables: shifts and asymmetry under each decoding, unpaired and item-paired.

    The SI S2 tables: shifts and asymmetry under the original draw, the replicate average
    and greedy decoding, by the paper's unpaired definition and item-paired.
    """
    variants = decoding_rows(frame)
    if len(variants) < 2:  # one way of decoding: nothing to compare (and no cells to build)
        return None
    shifts = decoding_shifts(frame, variants)
    if shifts.empty or shifts["variant"].nunique() < 2:
        return None
    return Section(
        title="Replicates and greedy decoding (SI S2)",
        tables={
            "decoding": decoding_table(shifts),
            "decoding_paired": decoding_table(shifts, paired=True),
            "decoding_shifts": shifts,
        },
        summary={"decoding": decoding_summary(shifts)},
        text=DECODING_TEXT,
    )
