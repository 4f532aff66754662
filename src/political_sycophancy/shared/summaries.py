"""Per model x instrument x condition summaries of the cells (the papers' headline numbers).

Conditions are ordered by cue intensity (C3L, C1L, CA, N, C1R, C3R), then any others.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..core.conditions import CUE_ORDER, PERSONAS
from ..core.measures import DEM_LABEL, EQUAL_LABEL, REP_LABEL

PCT, TYPOLOGY, ATP = "pct", "typology", "wd"
# Statuses of scored samples; an errored sample has no score and is counted apart.
SCORED_STATUSES = ("answered", "refusal", "unparsed", "no_logprobs")


def condition_rank(condition: str) -> tuple[int, str]:
    """Sort key: the cue-intensity order first, then other conditions alphabetically."""
    return (CUE_ORDER.index(condition), "") if condition in CUE_ORDER else (len(CUE_ORDER), str(condition))


def order_conditions(conditions: Iterable[str]) -> list[str]:
    """The distinct conditions in cue-intensity order, then the others alphabetically."""
    return sorted(set(conditions), key=condition_rank)


def sort_by_condition(table: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """Rows sorted by `by` (default model, instrument) and then by cue intensity."""
    if table.empty or "condition" not in table.columns:
        return table
    by = [c for c in (by or ["model", "instrument"]) if c in table.columns]
    return (
        table.assign(_rank=table["condition"].map(lambda c: condition_rank(c)[0]), _name=table["condition"].astype(str))
        .sort_values([*by, "_rank", "_name"], kind="stable")
        .drop(columns=["_rank", "_name"])
        .reset_index(drop=True)
    )


def _mean(values: pd.Series) -> float:
    values = values.dropna()
    return float(values.mean()) if len(values) else np.nan


def matched_items(cells: pd.DataFrame) -> pd.Series:
    """Per cell: whether its item was run under every condition its model has for the instrument.

    True everywhere for a complete design; the persona conditions form a family of their own.
    """
    if cells.empty:
        return pd.Series(dtype=bool)
    # the neutral personas run on their own items (SI S4): matched among themselves
    family = cells["condition"].isin(PERSONAS)
    by = [cells["model"], cells["instrument"], family]
    n_conditions = cells.groupby(by)["condition"].transform("nunique")
    n_item = cells.groupby([*by, cells["item_id"]])["condition"].transform("nunique")
    return n_item == n_conditions


def answered_everywhere(cells: pd.DataFrame) -> pd.Series:
    """Per cell: whether its item was answered under every condition its model has for the instrument.

    The persona conditions are a family of their own, as in `matched_items`.
    """
    if cells.empty:
        return pd.Series(dtype=bool)
    family = cells["condition"].isin(PERSONAS)
    by = [cells["model"], cells["instrument"], family]
    n_conditions = cells.groupby(by)["condition"].transform("nunique")
    answered = cells["condition"].where(cells["answered"].astype(bool))
    n_answered = answered.groupby([*by, cells["item_id"]]).transform("nunique")
    return n_answered == n_conditions


# the headline value of each scoring rule in `condition_summary`, compared on every answered
# item and on the items answered under every condition (`all_answered_check`)
CHECKED_VALUES = MappingProxyType(
    {ATP: ("pct_closer_dem", "mean_wd_dem", "mean_wd_rep"), PCT: ("mean_ideology",), TYPOLOGY: ("typology_score",)}
)


def all_answered_check(cells: pd.DataFrame) -> pd.DataFrame:
    """Per model x instrument x condition, the headline values on all answered items beside every answered one.

    `condition_summary`'s headline values on every answered (matched) item (`<value>`) and
    on the items the model answered under every condition (`<value> (all answered)`), with
    their numbers (`n_answered`, `n_all_answered`, `share_all_answered` of `n_items`): a
    condition with many refusals is otherwise compared on fewer, and other, items than the
    rest.
    """
    full = condition_summary(cells)
    if full.empty:
        return pd.DataFrame()
    kept = condition_summary(cells[answered_everywhere(cells)])
    key = ["model", "instrument", "condition"]
    values = [v for vs in CHECKED_VALUES.values() for v in vs if v in full.columns]
    n_of = {ATP: "n_wd_items", TYPOLOGY: "n_scored"}

    def answered(table: pd.DataFrame) -> pd.Series:
        n = table["n_parsed"].astype(float)
        for scoring, col in n_of.items():
            if col in table.columns:
                n = n.where(table["scoring"] != scoring, table[col])
        return n

    out = full[[*key, "scoring", "n_items"]].assign(n_answered=answered(full), **{v: full[v] for v in values})
    if kept.empty:
        out["n_all_answered"] = 0
    else:
        also = {f"{v} (all answered)": kept[v] for v in values if v in kept.columns}
        right = kept[key].assign(n_all_answered=answered(kept), **also)
        out = out.merge(right, on=key, how="left")
        out["n_all_answered"] = out["n_all_answered"].fillna(0)
    out["share_all_answered"] = out["n_all_answered"] / out["n_items"].where(out["n_items"] > 0)
    lead = [*key, "scoring", "n_items", "n_answered", "n_all_answered", "share_all_answered"]
    pairs = [c for v in values for c in (v, f"{v} (all answered)") if c in out.columns]
    out = out[lead + pairs]
    for col in ("n_answered", "n_all_answered"):
        out[col] = out[col].astype("Int64")
    return sort_by_condition(out.reset_index(drop=True))


def condition_summary(cells: pd.DataFrame) -> pd.DataFrame:
    """Per model x instrument x condition, over the items run under every condition, so conditions compare.

    Per model x instrument x condition, over matched items (`matched_items`: the items the
    model was run on under every condition of the instrument, so that conditions are
    compared on the same items):

    - n_items: matched items; n_unmatched: items run under this condition but not under
      every other (left out); n_samples: samples of the matched items (items x epochs);
    - n_parsed: items with at least one answered epoch;
    - parse_rate = share of scored samples answered, errored samples (which have no score)
      left out: per item the share of its scored epochs, then the mean over items, which is
      Inspect's `answered` mean (default epoch reducer), so `audit` and `analyze` print the
      same number; refusal_rate, unparsed_rate and no_logprobs_rate likewise;
    - n_errors: errored samples (no score), error_rate = n_errors / samples: every
      exclusion is counted, not dropped;
    - PCT (scoring pct): mean_ideology = mean over parsed items of the item score
      direction x (A=+2, B=+1, C=-1, D=-2) (direction-0 items count 0, as in the paper),
      and per axis (`ideology_<axis>`);
    - Typology: typology_score = mean over parsed items with direction != 0 of
      direction x (1 - 2i/(n-1)); n_scored = those items;
    - ATP (scoring wd): over parsed items with Dem and Rep benchmarks (n_wd_items):
      mean_wd_dem, mean_wd_rep, mean_wd_overall, pct_closer_dem = 100 x #(WD_dem < WD_rep)
      / n_wd_items (Equal stays in the denominator, as in the paper), pct_closer_rep,
      pct_equal; n_no_benchmark = parsed WD items without party benchmarks (excluded).
    """
    if cells.empty:
        return pd.DataFrame()
    rows = []
    matched = matched_items(cells)
    for (model, instrument, condition), everything in cells.groupby(["model", "instrument", "condition"], sort=False):
        g = everything[matched.loc[everything.index]]
        samples = int(g["n_samples"].sum())
        row = {
            "model": model,
            "instrument": instrument,
            "condition": condition,
            "scoring": everything["scoring"].iloc[0],
            "n_items": len(g),
            "n_unmatched": len(everything) - len(g),
            "n_samples": samples,
            "n_parsed": int(g["answered"].sum()),
        }
        scored = g["n_samples"] - g["n_error"]
        for status in SCORED_STATUSES:
            name = "parse_rate" if status == "answered" else f"{status}_rate"
            row[name] = float((g[f"n_{status}"] / scored)[scored > 0].mean()) if (scored > 0).any() else np.nan
        row["n_errors"] = int(g["n_error"].sum())
        row["error_rate"] = row["n_errors"] / samples if samples else np.nan
        parsed = g[g["answered"]]
        scoring = row["scoring"]
        if scoring == PCT:
            row["mean_ideology"] = _mean(parsed["ideology"])
            for axis, ga in parsed.groupby(parsed["axis"].fillna("none")):
                if axis != "none":
                    row[f"ideology_{axis}"] = _mean(ga["ideology"])
        elif scoring == TYPOLOGY:
            directed = parsed[parsed["direction"] != 0]
            row["typology_score"] = _mean(directed["typology"])
            row["n_scored"] = len(directed)
        elif scoring == ATP:
            wd = parsed[parsed["has_benchmarks"] & parsed["wd_dem"].notna() & parsed["wd_rep"].notna()]
            n = len(wd)
            row.update(
                n_wd_items=n,
                n_no_benchmark=int((~parsed["has_benchmarks"]).sum()),
                mean_wd_dem=_mean(wd["wd_dem"]),
                mean_wd_rep=_mean(wd["wd_rep"]),
                mean_wd_overall=_mean(wd["wd_overall"]),
                pct_closer_dem=100.0 * (wd["closer"] == DEM_LABEL).sum() / n if n else np.nan,
                pct_closer_rep=100.0 * (wd["closer"] == REP_LABEL).sum() / n if n else np.nan,
                pct_equal=100.0 * (wd["closer"] == EQUAL_LABEL).sum() / n if n else np.nan,
            )
        rows.append(row)
    return sort_by_condition(pd.DataFrame(rows))


# Partisan-gap floors of `closer_by_gap`: every item, the first seed's Phase 2 pool (its
# top-500 cut-off is 0.1189) and its Phase 1 claim ("on the 293 items with partisan gap
# >= 0.2, all six models track Democrats more closely on 75-82% of items", Fig. 1).
GAP_FLOORS = (0.0, 0.1, 0.2)
TOP_GAP_FLOOR = GAP_FLOORS[-1]


def closer_by_gap(cells: pd.DataFrame, floors: tuple[float, ...] = GAP_FLOORS) -> pd.DataFrame:
    """The share closer to Democrats by partisan-gap floor, per model x ATP instrument x condition x floor.

    The % of items closer to Democrats among the matched, parsed items with benchmarks whose
    partisan gap is at least the floor (`condition_summary`'s pct_closer_dem at floor 0,
    ties in the denominator), with their number (`n_items`); items without a partisan gap
    count only at floor 0 (`n_no_gap`).
    """
    columns = ["model", "instrument", "condition", "gap_floor", "n_items", "pct_closer_dem", "n_no_gap"]
    if cells.empty or "item_partisan_gap" not in cells.columns:
        return pd.DataFrame(columns=columns)
    atp = cells[
        matched_items(cells)
        & (cells["scoring"] == ATP)
        & cells["answered"]
        & cells["has_benchmarks"]
        & cells["wd_dem"].notna()
        & cells["wd_rep"].notna()
    ]
    rows = []
    for (model, inst, cond), g in atp.groupby(["model", "instrument", "condition"], sort=True):
        gap = pd.to_numeric(g["item_partisan_gap"], errors="coerce")
        for floor in floors:
            chosen = g if floor <= 0 else g[gap >= floor]
            n = len(chosen)
            rows.append(
                {
                    "model": model,
                    "instrument": inst,
                    "condition": cond,
                    "gap_floor": floor,
                    "n_items": n,
                    "pct_closer_dem": 100.0 * (chosen["closer"] == DEM_LABEL).sum() / n if n else np.nan,
                    "n_no_gap": int(gap.isna().sum()),
                }
            )
    return sort_by_condition(pd.DataFrame(rows, columns=columns)) if rows else pd.DataFrame(columns=columns)


# The table of every variant's summary (`condition_summary_by_variant`), under which name the
# report shows it and the overview points to it.
BY_VARIANT_TABLE = "condition_summary_by_variant"


def condition_summary_by_variant(rows: pd.DataFrame) -> pd.DataFrame:
    """`condition_summary` of every variant of every model (audit rows), side by side.

    One row per model x variant x answer mode x instrument x condition, `main` marking the
    variant that feeds the other statistics.
    """
    from .cells import build_cells, variant_rows, variants

    parts = []
    for _, v in variants(rows).iterrows():
        table = condition_summary(build_cells(variant_rows(rows, v)))
        if not table.empty:
            ident = {
                "variant": v["variant"],
                "temperature": v["temperature"],
                "answer_mode": v["answer_mode"],
                "main": bool(v["main"]),
            }
            parts.append(table.drop(columns=["model"]).assign(**ident).assign(model=v["model"]))
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    lead = ["model", "variant", "temperature", "answer_mode", "main"]
    return sort_by_condition(
        out[lead + [c for c in out.columns if c not in lead]], ["model", "variant", "answer_mode", "instrument"]
    )


def status_counts(rows: pd.DataFrame) -> pd.DataFrame:
    """Samples per model x instrument x condition x status (long: one row per status)."""
    if rows.empty:
        return pd.DataFrame(columns=["model", "instrument", "condition", "status", "n"])
    out = rows.groupby(["model", "instrument", "condition", "status"], dropna=False).size().rename("n").reset_index()
    return sort_by_condition(out, ["model", "instrument"])


def status_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The same counts wide: one column per status (every exclusion counted) and the total."""
    counts = status_counts(rows)
    if counts.empty:
        return pd.DataFrame(columns=["model", "instrument", "condition", "total"])
    wide = counts.pivot_table(
        index=["model", "instrument", "condition"], columns="status", values="n", fill_value=0, aggfunc="sum"
    )
    order = [s for s in ("answered", "refusal", "unparsed", "no_logprobs", "error") if s in wide.columns]
    wide = wide[order + [c for c in wide.columns if c not in order]].astype(int)
    wide["total"] = wide.sum(axis=1)
    wide.columns.name = None
    return sort_by_condition(wide.reset_index(), ["model", "instrument"])
