"""What each figure of the Figures section says, in one line under it: its number, the
paper figure it corresponds to, and a takeaway computed from the numbers the figure draws
(summary.json, and the shifts section's `item_shifts` table for the item panels).

A takeaway states ranges over models and counts, never a judgement the numbers do not
carry; a figure whose takeaway cannot be computed says so rather than staying silent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

import pandas as pd

from ..core.conditions import BASELINE, CUE_ORDER
from .findings import dig, get, instrument_kinds

# instrument kind -> (summary key of its position, axis label)
STAT = MappingProxyType({"pct": ("mean_ideology", "PCT mean ideology (+ = right)"), "typology": ("score", "Typology score (+ = right)"),
                         "atp": ("pct_closer_dem", "% of ATP items closer to Democrats")})
LEFT_CUE, RIGHT_CUE = "C3L", "C3R"
ITEM_CUES = (LEFT_CUE, RIGHT_CUE)  # the item panels' cues (the first seed's Fig. 4)

# figure file stem -> the paper figure it corresponds to (the seeds: docs/glossary.md)
PAPER_FIGURE = MappingProxyType({
    "paper_baseline_positions": "cf. the first seed's Fig. 1, which plots the ATP share by partisan gap",
    "paper_closer_to_dem_by_asker": "the first seed's Fig. 3 (N, CA, C3L, C3R) and Fig. S1 (all six cues)",
    "paper_pct_by_asker": "no figure in the first seed: its Results text",
    "paper_sycophancy_left_right": "the first seed's Fig. 2",
    "paper_shift_heatmap": "no figure in the first seed",
    "paper_item_shifts": "the first seed's Fig. 4",
    "paper_slant_vs_right": "the first seed's Fig. 2, its correlation",
    "paper_expected_answer_shares": "the first seed's Fig. 5",
    "paper_perception": "no figure in the first seed: its SI S5",
    "paper_sway": "the third seed's S_average",
    "paper_open_ended": "the second seed's Total",
})


def _num(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def _span(values: list[float], fmt: Callable[[float], str]) -> str:
    low, high = min(values), max(values)
    return fmt(low) if low == high else f"{fmt(low)} to {fmt(high)}"


def _fmt(kind: str) -> Callable[[float], str]:
    return (lambda v: f"{v:.0f}%") if kind == "atp" else (lambda v: f"{v:+.2f}")


def _models(summary: dict) -> list[str]:
    return sorted(get(summary, "models") or {})


def _position(summary: dict, inst: str, kind: str, cond: str) -> list[float]:
    """The instrument's position of every model under `cond` that has one."""
    return [v for m in _models(summary) if (v := _num(get(summary, "models", m, "conditions", cond, inst, STAT[kind][0]))) is not None]


def baseline(summary: dict, tables: Mapping[str, pd.DataFrame]) -> str | None:
    parts = []
    for inst, kind in sorted(instrument_kinds(summary).items(), key=lambda kv: (("pct", "typology", "atp").index(kv[1]), kv[0])):
        values = _position(summary, inst, kind, BASELINE)
        if values:
            left = sum(v > 50 if kind == "atp" else v < 0 for v in values)
            parts.append(f"{inst}: {left} of {len(values)} models left of the midpoint ({_span(values, _fmt(kind))})")
    return "Under N, " + "; ".join(parts) + "." if parts else None


def by_asker(kind: str) -> Callable[[dict, Mapping[str, pd.DataFrame]], str | None]:
    def note(summary: dict, tables: Mapping[str, pd.DataFrame]) -> str | None:
        insts = [i for i, k in instrument_kinds(summary).items() if k == kind]
        if not insts:
            return None
        parts = [f"{c} {_span(v, _fmt(kind))}" for c in (BASELINE, LEFT_CUE, RIGHT_CUE) if (v := _position(summary, insts[0], kind, c))]
        return f"{insts[0]}, range over models: " + ", ".join(parts) + "." if len(parts) >= 2 else None
    return note


def left_right(summary: dict, tables: Mapping[str, pd.DataFrame]) -> str | None:
    pairs = [(left, right) for m in _models(summary)
             if (left := _num(get(summary, "models", m, "sycophancy_left"))) is not None
             and (right := _num(get(summary, "models", m, "sycophancy_right"))) is not None]
    if not pairs:
        return None
    wd = lambda v: f"{v:+.3f}"  # noqa: E731
    return (f"Sycophancy-right exceeds sycophancy-left in {sum(r > lo for lo, r in pairs)} of {len(pairs)} models "
            f"(right {_span([r for _, r in pairs], wd)}, left {_span([lo for lo, _ in pairs], wd)} WD).")


def heatmap(summary: dict, tables: Mapping[str, pd.DataFrame]) -> str | None:
    cells = [(abs(mean), m, c, inst, mean, v["ci"])
             for m, conds in (get(summary, "findings", "shift_ci") or {}).items() for c, insts in conds.items()
             if c in CUE_ORDER and c != BASELINE for inst, keys in insts.items() for v in keys.values()
             if (mean := _num(v.get("mean"))) is not None and isinstance(v.get("ci"), list) and None not in v["ci"]]
    if not cells:
        return None
    _, m, c, inst, mean, _ = max(cells, key=lambda t: t[0])
    sure = sum(ci[0] > 0 or ci[1] < 0 for *_, ci in cells)
    return f"Largest mean shift against N: {m} under {c} on {inst} ({mean:+.3f}); {sure} of {len(cells)} cells' 95% CIs exclude 0."


def item_pairs(shifts: pd.DataFrame | None) -> tuple[pd.DataFrame, str, str] | None:
    """(rows model, condition, item_id, x = value under N, y = value under the cue; the
    instrument; the unit's axis label) for the ATP instrument with the most items (the
    slant WD(Rep) - WD(Dem) of each item's answer), else the PCT (answer on -2..2)."""
    need = {"model", "instrument", "condition", "item_id", "measure", "baseline", "value"}
    if shifts is None or shifts.empty or not need <= set(shifts.columns):
        return None
    s = shifts[shifts["condition"].isin(ITEM_CUES)]
    atp = s[s["measure"].isin(["wd_dem", "wd_rep"])]
    if not atp.empty:
        inst = str(atp.groupby("instrument")["item_id"].nunique().idxmax())
        wide = atp[atp["instrument"] == inst].pivot_table(index=["model", "condition", "item_id"], columns="measure",
                                                          values=["baseline", "value"], aggfunc="first")
        if {("baseline", "wd_dem"), ("baseline", "wd_rep")} <= set(wide.columns):
            pairs = pd.DataFrame({"x": wide["baseline", "wd_rep"] - wide["baseline", "wd_dem"],
                                  "y": wide["value", "wd_rep"] - wide["value", "wd_dem"]}).dropna().reset_index()
            if len(pairs):
                return pairs, inst, "item slant WD(Rep) - WD(Dem) (+ = closer to Democrats)"
    pct = s[s["measure"] == "ideology"]
    if pct.empty:
        return None
    inst = str(pct.groupby("instrument")["item_id"].nunique().idxmax())
    pairs = pct[pct["instrument"] == inst].rename(columns={"baseline": "x", "value": "y"})[["model", "condition", "item_id", "x", "y"]]
    pairs = pairs.dropna().reset_index(drop=True)
    return (pairs, inst, "item's answer on the ideology scale (-2 left ... +2 right)") if len(pairs) else None


def item_shifts(summary: dict, tables: Mapping[str, pd.DataFrame]) -> str | None:
    found = item_pairs(tables.get("item_shifts"))
    if found is None:
        return None
    pairs, inst, unit = found
    slant = unit.startswith("item slant")  # ATP: below the diagonal moved right; PCT: above
    parts = []
    for cue in (RIGHT_CUE, LEFT_CUE):
        d = pairs[pairs["condition"] == cue]
        if d.empty:
            continue
        moved = d["y"] - d["x"]
        share = ((moved < 0) if slant else (moved > 0)).groupby(d["model"]).mean() * 100
        parts.append(f"under {cue} {_span([float(v) for v in share], lambda v: f'{v:.0f}%')}")
    return f"{inst} items that moved right, per model: " + ", ".join(parts) + "." if parts else None


def slant(summary: dict, tables: Mapping[str, pd.DataFrame]) -> str | None:
    rows = [r for r in get(summary, "correlations") or [] if r.get("y") == "sycophancy_right" and _num(r.get("r")) is not None]
    if not rows:
        return None
    r = rows[0]
    ci = f", Fisher 95% CI [{r['ci_low']:+.2f}, {r['ci_high']:+.2f}]" if _num(r.get("ci_low")) is not None and _num(r.get("ci_high")) is not None else ""
    return (f"r = {r['r']:+.2f} over {r.get('n_models')} models{ci}; slant and sycophancy-right share the WD(Rep) under N term, "
            "so part of the correlation is mechanical.")


def expected(summary: dict, tables: Mapping[str, pd.DataFrame]) -> str | None:
    by_cond = get(summary, "expected_answer", "by_condition") or {}
    parts = [f"{c} {v:.0%}" for c in (BASELINE, LEFT_CUE, RIGHT_CUE)
             if (v := _num(dig(by_cond, c, "asker_wants_dem (pooled calls)"))) is not None]
    return "Share of calls saying the asker expects the left answer: " + ", ".join(parts) + "." if parts else None


def perception(summary: dict, tables: Mapping[str, pd.DataFrame]) -> str | None:
    node = get(summary, "perception") or {}
    ratings = [v for m, conds in node.items() if m != "all models" and isinstance(conds, dict)
               if (v := _num(dig(conds, BASELINE, "mean_rating"))) is not None]
    if not ratings:
        return None
    span = _span(ratings, lambda v: f"{v:.1f}")
    return f"Under N the perceived asker's mean rating is {span} over models (1 very liberal, 4 the midpoint, 7 very conservative)."


def sway(summary: dict, tables: Mapping[str, pd.DataFrame]) -> str | None:
    values = [v for m in _models(summary) for d in (get(summary, "models", m, "sway") or {}).values() if isinstance(d, dict)
              for defs in d.values() if isinstance(defs, dict) for x in defs.values() if isinstance(x, dict)
              if (v := _num(x.get("S_average"))) is not None]
    if not values:
        return None
    span = _span(values, lambda v: f"{v:+.2f}")
    return f"S_average {span} over models and mitigations; {sum(v > 0 for v in values)} of {len(values)} follow the nudge (> 0)."


def open_ended(summary: dict, tables: Mapping[str, pd.DataFrame]) -> str | None:
    values = [v for x in (get(summary, "open_ended", "total") or {}).values() if isinstance(x, dict) if (v := _num(x.get("total"))) is not None]
    if not values:
        return None
    span = _span(values, lambda v: f"{v:+.2f}")
    return f"Total {span} over models, instruments and dimensions; {sum(v < 0 for v in values)} of {len(values)} lean left (< 0)."


TAKEAWAY: Mapping[str, Callable[[dict, Mapping[str, pd.DataFrame]], str | None]] = MappingProxyType({
    "paper_baseline_positions": baseline,
    "paper_closer_to_dem_by_asker": by_asker("atp"),
    "paper_pct_by_asker": by_asker("pct"),
    "paper_sycophancy_left_right": left_right,
    "paper_shift_heatmap": heatmap,
    "paper_item_shifts": item_shifts,
    "paper_slant_vs_right": slant,
    "paper_expected_answer_shares": expected,
    "paper_perception": perception,
    "paper_sway": sway,
    "paper_open_ended": open_ended,
})


def numbered(figures: Iterable[tuple[str, str]], summary: dict, tables: Mapping[str, pd.DataFrame]) -> list[str]:
    """The caption of each (title, file stem) in order: `Figure k. Title. Takeaway (paper figure).`"""
    out = []
    for k, (title, stem) in enumerate(figures, start=1):
        note = TAKEAWAY[stem](summary, tables) if stem in TAKEAWAY else None
        out.append(f"Figure {k}. {title}. {note or 'No one-line takeaway: its numbers are in the tables.'} ({PAPER_FIGURE.get(stem, 'no paper figure')}).")
    return out
