"""What each audit figure says, in one line under it.

A takeaway computed from the numbers the figure draws (summary.json, and the shifts
section's `item_shifts` table for the item panels). A takeaway states ranges over models and
counts, never a judgement the numbers do not carry; a figure whose takeaway cannot be
computed says so rather than staying silent.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

import pandas as pd

from ..core.conditions import BASELINE, CUE_ORDER
from ..core.numbers import fixed, plural
from ..core.plotting import display_name
from ..core.report_parts import Summary, Tables
from ..shared.summary_reading import finite, span_text
from .derived import LEFT, RIGHT, get, instrument_kinds
from .headline_scope import position

# instrument kind -> (summary key of its position, axis label)
STAT = MappingProxyType(
    {
        "pct": ("mean_ideology", "PCT mean item score\n(-2 left ... +2 right)"),
        "typology": ("score", "Typology score\n(-1 Democrat-coded ... +1 Republican-coded)"),
        "atp": ("pct_closer_dem", "% of ATP items closer to Democrats\n(0 ... 100; 50 = the midpoint)"),
    }
)
ITEM_CUES = (LEFT, RIGHT)  # the item panels' cues (the first seed's Fig. 4)


def _fmt(kind: str) -> Callable[[float], str]:
    return (lambda v: f"{fixed(v, 0)}%") if kind == "atp" else (lambda v: fixed(v, 2, signed=True))


def _models(summary: Summary) -> list[str]:
    return sorted(get(summary, "models") or {})


def _position(summary: Summary, inst: str, kind: str, cond: str) -> list[float]:
    """The instrument's position of every model under `cond` that has one."""
    return [
        v
        for m in _models(summary)
        if (v := finite(get(summary, "models", m, "conditions", cond, inst, STAT[kind][0]))) is not None
    ]


def baseline(summary: Summary, tables: Tables) -> str | None:
    """The baseline figure's takeaway: per instrument, the models left of the midpoint by their CI.

    The baseline figure's takeaway: per instrument, how many models sit left of the midpoint
    under N, counting only those whose 95% CI excludes it (`headline_scope.position`).
    """
    parts = []
    counts = position(summary)
    for inst, kind in sorted(
        instrument_kinds(summary).items(), key=lambda kv: (("pct", "typology", "atp").index(kv[1]), kv[0])
    ):
        values = _position(summary, inst, kind, BASELINE)
        if values and inst in counts:
            c = counts[inst]
            parts.append(
                f"{display_name(inst)}: {c['n_left']} of {plural(c['n_models'], 'model')} left of the midpoint "
                "with a CI that excludes it, "
                f"{c['n_spanning']} whose CI includes it ({span_text(values, _fmt(kind))})"
            )
    return "Under N, " + "; ".join(parts) + "." if parts else None


def by_asker(kind: str) -> Callable[[Summary, Tables], str | None]:
    """The by-asker figure's takeaway for an instrument kind: the range over models under N, C3L and C3R."""

    def note(summary: Summary, tables: Tables) -> str | None:
        insts = [i for i, k in instrument_kinds(summary).items() if k == kind]
        if not insts:
            return None
        parts = [
            f"{c} {span_text(v, _fmt(kind))}"
            for c in (BASELINE, LEFT, RIGHT)
            if (v := _position(summary, insts[0], kind, c))
        ]
        return f"{display_name(insts[0])}, range over models: " + ", ".join(parts) + "." if len(parts) >= 2 else None

    return note


def left_right(summary: Summary, tables: Tables) -> str | None:
    """The left-right figure's takeaway: in how many models sycophancy-right exceeds -left."""
    pairs = [
        (left, right)
        for m in _models(summary)
        if (left := finite(get(summary, "models", m, "sycophancy_left"))) is not None
        and (right := finite(get(summary, "models", m, "sycophancy_right"))) is not None
    ]
    if not pairs:
        return None
    wd = lambda v: f"{v:+.3f}"  # noqa: E731
    return (
        f"Sycophancy-right exceeds sycophancy-left in {sum(r > lo for lo, r in pairs)} of {len(pairs)} models "
        f"(right {span_text([r for _, r in pairs], wd)}, left {span_text([lo for lo, _ in pairs], wd)} WD)."
    )


def heatmap(summary: Summary, tables: Tables) -> str | None:
    """The heat map's takeaway: the largest mean shift and how many cells' CIs exclude 0."""
    cells = [
        (abs(mean), m, c, inst, mean, v["ci"])
        for m, conds in (get(summary, "findings", "shift_ci") or {}).items()
        for c, insts in conds.items()
        if c in CUE_ORDER and c != BASELINE
        for inst, keys in insts.items()
        for v in keys.values()
        if (mean := finite(v.get("mean"))) is not None and isinstance(v.get("ci"), list) and None not in v["ci"]
    ]
    if not cells:
        return None
    _, m, c, inst, mean, _ = max(cells, key=lambda t: t[0])
    sure = sum(ci[0] > 0 or ci[1] < 0 for *_, ci in cells)
    return (
        f"Largest mean shift against N: {m} under {c} on {display_name(inst)} ({mean:+.3f}); {sure} of {len(cells)} "
        "cells' 95% CIs exclude 0."
    )


def item_pairs(shifts: pd.DataFrame | None) -> tuple[pd.DataFrame, str, str] | None:
    """Each item's value under N against under the cue, for the ATP instrument with the most items, else the PCT.

    (rows model, condition, item_id, x = value under N, y = value under the cue; the
    instrument; the unit's axis label) for the ATP instrument with the most items (the slant
    WD(Rep) - WD(Dem) of each item's answer), else the PCT (answer on -2..2).
    """
    need = {"model", "instrument", "condition", "item_id", "measure", "baseline", "value"}
    if shifts is None or shifts.empty or not need <= set(shifts.columns):
        return None
    s = shifts[shifts["condition"].isin(ITEM_CUES)]
    atp = s[s["measure"].isin(["wd_dem", "wd_rep"])]
    if not atp.empty:
        inst = str(atp.groupby("instrument")["item_id"].nunique().idxmax())
        wide = atp[atp["instrument"] == inst].pivot_table(
            index=["model", "condition", "item_id"], columns="measure", values=["baseline", "value"], aggfunc="first"
        )
        if {("baseline", "wd_dem"), ("baseline", "wd_rep")} <= set(wide.columns):
            pairs = (
                pd.DataFrame(
                    {
                        "x": wide["baseline", "wd_rep"] - wide["baseline", "wd_dem"],
                        "y": wide["value", "wd_rep"] - wide["value", "wd_dem"],
                    }
                )
                .dropna()
                .reset_index()
            )
            if len(pairs):
                return pairs, inst, "item slant WD(Rep) - WD(Dem) (+ = closer to Democrats)"
    pct = s[s["measure"] == "ideology"]
    if pct.empty:
        return None
    inst = str(pct.groupby("instrument")["item_id"].nunique().idxmax())
    pairs = pct[pct["instrument"] == inst].rename(columns={"baseline": "x", "value": "y"})[
        ["model", "condition", "item_id", "x", "y"]
    ]
    pairs = pairs.dropna().reset_index(drop=True)
    return (pairs, inst, "item's answer on the ideology scale (-2 left ... +2 right)") if len(pairs) else None


def item_shifts(summary: Summary, tables: Tables) -> str | None:
    """The item panels' takeaway: the share of items that moved toward the asker, per model.

    The item panels' takeaway: the share of items that moved toward the asker (left under
    C3L, right under C3R), per model.
    """
    found = item_pairs(tables.get("item_shifts"))
    if found is None:
        return None
    pairs, inst, unit = found
    slant = unit.startswith("item slant")  # ATP: above the diagonal moved left; PCT: right
    moved = pairs["y"] - pairs["x"]
    toward = ((moved < 0) if slant else (moved > 0)).where(
        pairs["condition"] == RIGHT, (moved > 0) if slant else (moved < 0)
    )
    parts = []
    for cue, side in ((LEFT, "left"), (RIGHT, "right")):
        here = pairs["condition"] == cue
        if not here.any():
            continue
        share = toward[here].groupby(pairs.loc[here, "model"]).mean() * 100
        parts.append(f"under {cue} (toward the {side}) {span_text([float(v) for v in share], lambda v: f'{v:.0f}%')}")
    named = display_name(inst)
    return f"{named} items that moved toward the asker, per model: " + ", ".join(parts) + "." if parts else None


def slant(summary: Summary, tables: Tables) -> str | None:
    """The slant figure's takeaway: the correlation, and why part of it is mechanical."""
    rows = [
        r
        for r in get(summary, "correlations") or []
        if r.get("y") == "sycophancy_right" and finite(r.get("r")) is not None
    ]
    if not rows:
        return None
    r = rows[0]
    ci = (
        f", Fisher 95% CI [{r['ci_low']:+.2f}, {r['ci_high']:+.2f}]"
        if finite(r.get("ci_low")) is not None and finite(r.get("ci_high")) is not None
        else ""
    )
    return (
        f"r = {r['r']:+.2f} over {r.get('n_models')} models{ci}; slant and sycophancy-right share the WD(Rep) "
        f"under N term, "
        "so part of the correlation is mechanical."
    )
