"""The audit's items section.

How many items each instrument put to the models, from which ATP waves, how they are coded
(the PCT's right-coded, left-coded and non-political items, per axis), and the items a
paper-style Phase 2 pool would take from them.

The first seed describes its pool in these terms (1,643 items: 62 PCT, 36 right-coded, 20
left-coded and 6 fillers; 25 Typology items; 1,556 ATP items from 15 waves, W26-W92; a
Phase 2 subset of 587 items, the 500 ATP items of largest partisan gap with every PCT and
Typology item); this section counts the same things in the logs at hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..core.items import PAPER_PHASE2_POOL, top_pool_size
from ..core.parsing import ANSWERED
from ..core.section import Section, section
from ..core.text import md_text
from ..shared.cells import audit_rows
from ..shared.summaries import ATP, PCT, TYPOLOGY
from ..stats.options import AnalysisOptions

ALL_AXES = "(all)"
COLUMNS = (
    "instrument",
    "axis",
    "scoring",
    "n_items",
    "n_answered",
    "n_benchmarked",
    "n_right_coded",
    "n_left_coded",
    "n_no_direction",
    "n_waves",
    "waves",
)


def _first(rows: pd.DataFrame, column: str) -> pd.Series:
    """Each item's first value of `column` (None where the logs carry none)."""
    if column not in rows.columns:
        return pd.Series(None, index=rows["item_id"].unique(), dtype=object)
    return rows.groupby("item_id", sort=True)[column].first()


def item_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per instrument (axis `(all)`), then one per axis of an instrument whose items carry one.

    The items in the logs (`n_items`), those answered by at least one model under any
    condition, those with Democrat and Republican benchmarks, the direction codes (+1
    right-coded, -1 left-coded, 0 no direction), and the ATP waves they come from.
    """
    rows = audit_rows(frame)
    if rows.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    out = []
    for instrument, g in rows.groupby("instrument", sort=True):
        items = pd.DataFrame(
            {
                "answered": g.assign(_a=g["status"] == ANSWERED).groupby("item_id", sort=True)["_a"].any(),
                "direction": pd.to_numeric(_first(g, "direction"), errors="coerce"),
                "axis": _first(g, "axis"),
                "scoring": _first(g, "scoring"),
                "wave": _first(g, "item_wave"),
                "benchmarks": _first(g, "benchmarks"),
            }
        )
        scoring = str(items["scoring"].dropna().mode().iloc[0]) if items["scoring"].notna().any() else ""
        axes = [(ALL_AXES, items)]
        axes += [(str(a), items[items["axis"] == a]) for a in sorted(items["axis"].dropna().unique())]
        for axis, part in axes:
            waves = sorted(part["wave"].dropna().astype(str).unique(), key=lambda w: (len(w), w))
            benchmarked = part["benchmarks"].map(lambda b: isinstance(b, dict) and bool(b.get("dem") and b.get("rep")))
            coded = scoring != ATP  # an ATP item is scored by its WD to each party; its direction code is unused
            out.append(
                {
                    "instrument": instrument,
                    "axis": axis,
                    "scoring": scoring,
                    "n_items": len(part),
                    "n_answered": int(part["answered"].sum()),
                    "n_benchmarked": int(benchmarked.sum()) if scoring == ATP else None,
                    "n_right_coded": int((part["direction"] > 0).sum()) if coded else None,
                    "n_left_coded": int((part["direction"] < 0).sum()) if coded else None,
                    "n_no_direction": int((part["direction"] == 0).sum()) if coded else None,
                    "n_waves": len(waves) if waves else None,
                    "waves": f"{waves[0]}-{waves[-1]}" if waves else None,
                }
            )
    table = pd.DataFrame(out, columns=list(COLUMNS))
    for col in COLUMNS:
        if col.startswith("n_"):
            table[col] = table[col].astype("Int64")
    return table


def phase2_pool(frame: pd.DataFrame) -> dict[str, float] | None:
    """How many items the paper's Phase 2 pool would take from these logs.

    The ATP items of `core.items.PAPER_PHASE2_POOL` (the 500 of largest partisan gap) and
    every PCT and Typology item; None when the logs hold no more ATP items with a gap than
    that pool takes (it would take them all: the logs are already such a pool or smaller).
    """
    rows = audit_rows(frame)
    if rows.empty or "item_partisan_gap" not in rows.columns:
        return None
    by_instrument = rows.groupby("instrument")["item_id"].nunique()
    scoring = rows.groupby("instrument")["scoring"].first() if "scoring" in rows.columns else pd.Series(dtype=object)
    gaps = pd.to_numeric(_first(rows[rows["scoring"] == ATP], "item_partisan_gap"), errors="coerce").dropna()
    size = top_pool_size(PAPER_PHASE2_POOL)
    if len(gaps) <= size:
        return None
    pool: dict[str, float] = {"atp": size, "atp_gap_cutoff": float(gaps.sort_values(ascending=False).iloc[size - 1])}
    for name, kind in (("pct", PCT), ("typology", TYPOLOGY)):
        pool[name] = int(by_instrument[scoring[scoring == kind].index].sum())
    pool["total"] = pool["atp"] + pool["pct"] + pool["typology"]
    return pool


def _text(table: pd.DataFrame, pool: dict[str, float] | None) -> str:
    """The counts in words: items per instrument, the PCT's coding per axis, the ATP waves, the pool."""
    rows: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in table.to_dict("records")]
    whole = [r for r in rows if r["axis"] == ALL_AXES]
    parts = [
        f"{sum(int(r['n_items']) for r in whole):,} items in the audit logs: "
        + ", ".join(f"{int(r['n_items']):,} {md_text(r['instrument'])}" for r in whole)
        + " (table `items_by_instrument`; `n_answered`: answered by at least one model under any condition)."
    ]
    for r in whole:
        name = md_text(r["instrument"])
        if r["scoring"] == PCT:
            axes = [a for a in rows if a["instrument"] == r["instrument"] and a["axis"] != ALL_AXES]
            by_axis = "; ".join(
                f"{md_text(a['axis'])} {a['n_right_coded']} right-coded, {a['n_left_coded']} left-coded" for a in axes
            )
            parts.append(
                f"{name} coding: {r['n_right_coded']} right-coded items (agreeing scores right), "
                f"{r['n_left_coded']} left-coded, {r['n_no_direction']} without a direction"
                + (f" ({by_axis})" if by_axis else "")
                + "."
            )
        elif r["scoring"] == ATP and not pd.isna(r["n_waves"]):
            parts.append(
                f"{name}: {int(r['n_items']):,} items from {int(r['n_waves'])} waves ({md_text(r['waves'])}), "
                f"{int(r['n_benchmarked']):,} with Democrat and Republican benchmarks."
            )
    if pool:
        parts.append(
            f"The paper's Phase 2 pool from these items (the {pool['atp']:.0f} ATP items of largest partisan gap, here "
            f"at least {pool['atp_gap_cutoff']:.4f}, with every PCT and Typology item): {pool['total']:,.0f} items "
            f"({pool['atp']:.0f} ATP, {pool['pct']:.0f} PCT, {pool['typology']:.0f} Typology)."
        )
    return " ".join(parts)


@section(3, "items")
def items_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """Items per instrument, their coding and waves, and the paper's Phase 2 pool of them."""
    table = item_table(frame)
    if table.empty:
        return None
    pool = phase2_pool(frame)
    summary = {
        str(r["instrument"]) if r["axis"] == ALL_AXES else f"{r['instrument']}/{r['axis']}": {
            k: (None if pd.isna(r[k]) else (int(r[k]) if k.startswith("n_") else str(r[k])))
            for k in COLUMNS
            if k not in ("instrument", "axis")
        }
        for _, r in table.iterrows()
    }
    return Section(
        "Items and their coding",
        tables={"items_by_instrument": table},
        summary={"items": {"instruments": summary, "phase2_pool": pool}},
        text=_text(table, pool),
    )
