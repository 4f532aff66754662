"""The audit's per-condition section.

Results by model, instrument and asker, with their bootstrap CIs, and the headline table
`analyze` prints.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import MappingProxyType

import pandas as pd

from ..core.conditions import PERSONAS
from ..core.section import Section, section
from ..core.text import md_text
from ..shared.bootstrap import FIXED_MODELS, condition_cis
from ..shared.cells import audit_rows, cells_of, variants
from ..shared.summaries import (
    ATP,
    BY_VARIANT_TABLE,
    PCT,
    TYPOLOGY,
    all_answered_check,
    closer_by_gap,
    condition_summary,
    condition_summary_by_variant,
    matched_items,
    order_conditions,
)
from ..stats.options import AnalysisOptions
from . import figures
from .console import NOTE as CONSOLE_NOTE
from .console import summary_table
from .section_values import integer, nested, no_audit, number


def console_rows(table: pd.DataFrame) -> list[dict]:
    """One row per model x condition with the headline numbers under the names `audit` prints.

    One row per model x condition of a condition summary with the headline numbers of every
    instrument over matched items, under the names `audit` prints (Inspect's metrics:
    `console.COLUMNS`): answered and refused as Inspect's metrics define them (shares of
    scored samples, the mean over items when several instruments share a row), closer_dem a
    share, and the errored samples counted apart.
    """
    if table.empty:
        return []
    rows: dict[tuple, dict] = {}
    for _, r in table.iterrows():
        row = rows.setdefault(
            (r["model"], r["condition"]),
            {
                "model": r["model"],
                "condition": r["condition"],
                "samples": 0,
                "errors": 0,
                "unmatched": 0,
                "_items": 0,
                "_ans": 0.0,
                "_ref": 0.0,
            },
        )
        row["samples"] += int(r["n_samples"])
        row["errors"] += int(r["n_errors"])
        row["unmatched"] += int(r["n_unmatched"])
        if r["n_items"] and not math.isnan(r["parse_rate"]):
            row["_items"] += int(r["n_items"])
            row["_ans"] += r["parse_rate"] * r["n_items"]
            row["_ref"] += r["refusal_rate"] * r["n_items"]
        if r["scoring"] == PCT:
            row["ideology"] = r["mean_ideology"]
        elif r["scoring"] == TYPOLOGY:
            row["typology"] = r["typology_score"]
        elif r["scoring"] == ATP:
            row.update(wd_dem=r["mean_wd_dem"], wd_rep=r["mean_wd_rep"], closer_dem=r["pct_closer_dem"] / 100.0)
    out = []
    for row in rows.values():
        items, answered, refused = row.pop("_items"), row.pop("_ans"), row.pop("_ref")
        row["answered"] = answered / items if items else float("nan")
        row["refused"] = refused / items if items else float("nan")
        out.append(row)
    return out


def console_lines(table: pd.DataFrame) -> list[str]:
    """The headline table `analyze` prints (the format `audit` prints), its note and the unmatched cells left out.

    The headline table `analyze` prints (the format `audit` prints), its note, and the count
    of unmatched cells left out.
    """
    rows = console_rows(table)
    if not rows:
        return []
    lines = ["", summary_table(rows), "", CONSOLE_NOTE]
    unmatched = sum(r["unmatched"] for r in rows)
    if unmatched:
        lines.append(
            f"(conditions compared over matched items: {unmatched} model x condition x item cell(s) run under only "
            "some of a model's conditions are left out; see table design_cells)"
        )
    return lines


# Each scoring's own measure in the key table: (condition_summary column, what the key table calls it).
KEY_MEASURES = MappingProxyType(
    {
        ATP: ("pct_closer_dem", "% closer to Democrats"),
        PCT: ("mean_ideology", "mean ideology (PCT item score)"),
        TYPOLOGY: ("typology_score", "Typology score"),
    }
)


def condition_key(table: pd.DataFrame) -> pd.DataFrame:
    """The condition table's key view: one row per model x instrument, the askers as columns.

    Each row holds its instrument's own measure (`KEY_MEASURES`, named in `measure`) under
    every condition in cue order, so a paper-sized run (54 rows x 22 columns) reads as 9
    short rows; the full table stays beside it. Instruments of another scoring are left out.
    """
    rows = table[table["scoring"].isin(list(KEY_MEASURES))]
    if rows.empty:
        return pd.DataFrame()
    conditions = order_conditions(rows["condition"])
    out = []
    for (model, instrument), g in rows.groupby(["model", "instrument"], sort=False):
        column, label = KEY_MEASURES[str(g["scoring"].iloc[0])]
        values = g.set_index("condition")[column]
        out.append({"model": model, "instrument": instrument, "measure": label, **values.to_dict()})
    return pd.DataFrame(out, columns=["model", "instrument", "measure", *conditions])


def _instrument_node(summary: dict, row: pd.Series) -> dict | None:
    """The summary node of a table row's model x condition x instrument, None when not written."""
    conds = summary.get("models", {}).get(row["model"], {}).get("conditions", {})
    node: dict | None = conds.get(row["condition"], {}).get(row["instrument"])
    return node


def _put_all_answered(summary: dict, checked: pd.DataFrame) -> None:
    """Each instrument node's values on the items answered under every condition (`all_answered`)."""
    for _, r in checked.iterrows():
        node = _instrument_node(summary, r)
        if node is not None:
            node["all_answered"] = {
                str(k).removesuffix(" (all answered)"): number(v)
                for k, v in r.items()
                if str(k).endswith(" (all answered)") and number(v) is not None
            }
            node["all_answered"]["n_items"] = integer(r["n_all_answered"])


def _all_answered_text(checked: pd.DataFrame) -> str:
    """What table `condition_summary_all_answered` holds, and its largest departure from the full table."""
    if checked.empty:
        return ""
    text = (
        " Table `condition_summary_all_answered`: the same headline values on the items each model answered under "
        "every condition (the personas a family of their own), beside those on every answered item: a condition a "
        "model often refuses is otherwise compared on fewer, and other, items than the rest"
    )
    short = checked[checked["share_all_answered"] < 1]
    if short.empty:
        return text + "; here every model answered every item under every condition, so the two agree."
    low = short.sort_values("share_all_answered", kind="stable").iloc[0]
    text += (
        f"; here the fewest are {int(low['n_all_answered']):,} of {int(low['n_items']):,} items "
        f"({100 * low['share_all_answered']:.0f}%, {md_text(low['model'])})"
    )
    cues = checked[~checked["condition"].isin(PERSONAS)]  # the personas' 30 items: SI S4 compares them on their own
    if "pct_closer_dem (all answered)" in cues.columns:
        diff = (cues["pct_closer_dem (all answered)"] - cues["pct_closer_dem"]).abs()
        if diff.notna().any():
            r = cues.assign(_moved=diff).sort_values("_moved", ascending=False, kind="stable").iloc[0]
            text += (
                f"; outside the personas, the share closer to Democrats moves most for {md_text(r['model'])} under "
                f"{md_text(r['condition'])}: {r['pct_closer_dem']:.1f}% on its {int(r['n_answered']):,} answered "
                f"items, {r['pct_closer_dem (all answered)']:.1f}% on the {int(r['n_all_answered']):,} answered under "
                "every condition"
            )
    return text + "."


@section(10, "conditions")
def conditions_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """The per-condition section: the headline values per model x condition x instrument with their CIs.

    PCT, Typology, WD and closer-to-Dem, parse and refusal rates, with bootstrap CIs over
    items.
    """
    opts = options or AnalysisOptions()
    if no_audit(frame):
        return None
    cells = cells_of(frame, opts.cache)
    table = condition_summary(cells)
    cis = condition_cis(cells[matched_items(cells)], draws=opts.bootstrap_draws, seed=opts.seed)
    figs = {}
    atp = table[table["scoring"] == ATP]
    pct = table[table["scoring"] == PCT]
    if not atp.empty and (
        path := figures.closer_by_condition(atp, figure_dir / "closer_to_dem_by_condition.png", opts.model_order)
    ):
        figs["Share of ATP items closer to Democrats, by asker (cue intensity order)"] = path
    if not pct.empty and (
        path := figures.pct_by_condition(pct, figure_dir / "pct_by_condition.png", order=opts.model_order)
    ):
        figs["PCT mean ideology by asker"] = path
    summary: dict = {}
    for _, r in table.iterrows():
        node = nested(summary, "models", r["model"], "conditions", r["condition"])
        base = {
            "scoring": str(r["scoring"]),
            "n_items": integer(r["n_items"]),
            "n_samples": integer(r["n_samples"]),
            "n_parsed": integer(r["n_parsed"]),
            "parse_rate": number(r["parse_rate"]),
            "refusal_rate": number(r["refusal_rate"]),
            "unparsed_rate": number(r["unparsed_rate"]),
            "n_errors": integer(r["n_errors"]),
            "error_rate": number(r["error_rate"]),
        }
        if r["scoring"] == PCT:
            axes = {
                c[len("ideology_") :]: number(r[c])
                for c in table.columns
                if c.startswith("ideology_") and number(r[c]) is not None
            }
            node[r["instrument"]] = {"mean_ideology": number(r["mean_ideology"]), "axes": axes, **base}
        elif r["scoring"] == TYPOLOGY:
            node[r["instrument"]] = {"score": number(r["typology_score"]), "n_scored": integer(r["n_scored"]), **base}
        elif r["scoring"] == ATP:
            node[r["instrument"]] = {
                **base,
                "mean_wd_dem": number(r["mean_wd_dem"]),
                "mean_wd_rep": number(r["mean_wd_rep"]),
                "mean_wd_overall": number(r["mean_wd_overall"]),
                "pct_closer_dem": number(r["pct_closer_dem"]),
                "n_items": integer(r["n_wd_items"]),
                "n_administered": integer(r["n_items"]),
                "n_no_benchmark": integer(r["n_no_benchmark"]),
            }
        else:
            node[r["instrument"]] = base
    for _, r in cis.iterrows():
        cell = _instrument_node(summary, r)
        if cell is not None:
            key = "score" if r["statistic"] == "typology_score" else r["statistic"]
            cell.setdefault("ci", {})[key] = [number(r["ci_low"]), number(r["ci_high"])]
    checked = all_answered_check(cells)
    _put_all_answered(summary, checked)
    by_gap = closer_by_gap(cells)
    for _, r in by_gap.iterrows():
        cell = _instrument_node(summary, r)
        if cell is not None:
            cell.setdefault("closer_by_gap", {})[f"{r['gap_floor']:g}"] = {
                "pct_closer_dem": number(r["pct_closer_dem"]),
                "n_items": integer(r["n_items"]),
            }
    text = (
        "One row per model x instrument x condition (conditions in cue order C3L, C1L, CA, N, C1R, C3R), over "
        "matched items only: the items the model was run on under every condition of the instrument, so that the "
        "conditions are compared on the same items (`n_unmatched`: items run under a condition but not under every "
        "other, left out"
        + (
            f"; {int(table['n_unmatched'].sum())} cell(s) here: an incomplete design or different items per condition)"
            if table["n_unmatched"].sum()
            else "; none here)"
        )
        + ". A cell's answer is the mean of its answered epochs' distributions. PCT: mean over parsed items of"
        " direction x (A=+2, B=+1, C=-1, D=-2), direction-0 items counting 0. Typology: mean over parsed items with"
        " a direction of direction x (1 - 2i/(n-1)). ATP: normalized Wasserstein distance of the answer distribution"
        " to the Democrat and Republican benchmarks over parsed items with benchmarks; % closer to Democrats counts"
        " ties (Equal) in the denominator, as the paper does. n_samples counts the matched items' samples (items x"
        " epochs); n_parsed counts items with at least one answered epoch, so n_parsed / n_items is what Inspect's"
        " `answered` shows under `--epochs-reducer max`. parse_rate, refusal_rate and unparsed_rate are shares of"
        " the scored samples (per item over its scored epochs, then the mean over items: Inspect's `answered` mean"
        " under its default epoch reducer, the number `audit` prints); errored samples have no score and are counted"
        " apart (n_errors, error_rate over all samples), so refusals, parse failures and errors all stay visible."
        f" Bootstrap CIs: {opts.bootstrap_draws} resamples of items, percentile 95% (table `condition_cis`)."
        f" {FIXED_MODELS} Table `closer_by_gap`: the share closer to Democrats among the items whose partisan gap"
        " (the normalized WD between the Republican and Democrat distributions) is at least 0, 0.1 and 0.2, the"
        " first seed's Fig. 1 claim for 0.2." + _all_answered_text(checked)
    )
    key = condition_key(table)
    tables = {"condition_key": key} if not key.empty else {}
    tables |= {"condition_summary": table, "condition_cis": cis}
    if not by_gap.empty:
        tables["closer_by_gap"] = by_gap
    if not checked.empty:
        tables["condition_summary_all_answered"] = checked
    rows = audit_rows(frame)
    if variants(rows)["model"].duplicated().any():
        tables[BY_VARIANT_TABLE] = condition_summary_by_variant(rows)
        text += (
            " Models run under several variants (generate config such as temperature or token limit, or answer mode): "
            "every variant's summary side by side in `condition_summary_by_variant` (`main` = the variant used above)."
        )
    return Section(
        "Results by model, instrument and asker",
        tables=tables,
        figures=figs,
        summary=summary,
        text=text,
        console=console_lines(table),
    )
