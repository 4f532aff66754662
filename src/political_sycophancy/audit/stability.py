"""Replicate stability and decoding robustness (the first seed's SI S2), and its report section.

Works on the audit rows of every variant (temperature x answer mode), epoch by epoch:
the per-epoch value of an item is WD(Dem) for ATP items (recomputed from that epoch's
distribution), the item score for PCT and Typology items.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..core.parsing import ANSWERED
from ..core.section import Section, section
from ..shared.cells import WDMemo, audit_rows, build_cells, run_memo, variant_rows, variants, with_epoch_wd
from ..shared.shifts import decomposition, pct_decomposition
from ..shared.summaries import ATP, PCT, TYPOLOGY, sort_by_condition
from ..stats.options import AnalysisOptions
from .section_values import number

MEASURE_OF = MappingProxyType({ATP: "wd_dem", PCT: "ideology", TYPOLOGY: "typology"})


def epoch_values(rows: pd.DataFrame, memo: WDMemo | None = None) -> pd.DataFrame:
    """Answered rows with `value` = the per-epoch measure (see module docstring)."""
    rows = rows[rows["status"] == ANSWERED]
    if rows.empty:
        return rows.assign(value=pd.Series(dtype=float))
    rows = with_epoch_wd(rows, memo)
    value = pd.Series(np.nan, index=rows.index)
    for scoring, col in MEASURE_OF.items():
        mask = rows["scoring"] == scoring
        if col in rows.columns and mask.any():
            value[mask] = pd.to_numeric(rows.loc[mask, col], errors="coerce")
    return rows.assign(value=value)


def replicate_sd(values: pd.DataFrame) -> pd.DataFrame:
    """How much a cell's value varies across epochs, per model x temperature x mode x instrument x condition.

    Per model x temperature x answer mode x instrument x condition, over cells (model x
    item) with at least two answered epochs: n_cells, mean / median / max of the within-cell
    SD (ddof=1) of the per-epoch value, and the share of cells whose epochs all gave the
    same letter.
    """
    if values.empty:
        return pd.DataFrame()
    cols = [c for c in ("model", "variant", "temperature", "answer_mode") if c in values.columns] + [
        "instrument",
        "condition",
        "item_id",
    ]
    per_cell = (
        values.groupby(cols, dropna=False)
        .agg(n=("value", "size"), sd=("value", "std"), letters=("letter", "nunique"))
        .reset_index()
    )
    per_cell = per_cell[per_cell["n"] >= 2]
    if per_cell.empty:
        return pd.DataFrame()
    out = (
        per_cell.groupby(cols[:-1], dropna=False)
        .agg(
            n_cells=("sd", "size"),
            mean_epochs=("n", "mean"),
            mean_sd=("sd", "mean"),
            median_sd=("sd", "median"),
            max_sd=("sd", "max"),
            share_same_letter=("letters", lambda s: float((s <= 1).mean())),
        )
        .reset_index()
    )
    return sort_by_condition(out, cols[:-2])


def modal_letters(values: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per group of `by`, the most frequent letter (ties: the first given), one row per group with a letter.

    `s.value_counts().index[0]` for every group at once, no Python per group (a paper-size
    grid has some 17,500).
    """
    given = values.loc[values["letter"].notna(), by + ["letter"]].assign(
        _pos=np.arange(int(values["letter"].notna().sum()))
    )
    counts = given.groupby([*by, "letter"], dropna=False).agg(_n=("_pos", "size"), _first=("_pos", "min")).reset_index()
    counts = counts.sort_values(["_n", "_first"], ascending=[False, True], kind="stable")
    return counts.drop_duplicates(by)[[*by, "letter"]]


def temperature_agreement(values: pd.DataFrame) -> pd.DataFrame:
    """How far answers agree between temperatures, for every model run at several.

    For every model run at several temperatures (same answer mode), per instrument x
    condition x pair of temperatures: items answered at both, the share whose modal letters
    agree, and the mean absolute difference of the cell values (mean over epochs).
    """
    if values.empty:
        return pd.DataFrame()
    key = ["model", "answer_mode", "instrument", "condition", "item_id"]
    modal = values.groupby([*key, "temperature"], dropna=False).agg(value=("value", "mean")).reset_index()
    modal = modal.merge(modal_letters(values, [*key, "temperature"]), on=[*key, "temperature"], how="left")
    rows = []
    for (model, mode, instrument, condition), g in modal.groupby(key[:-1], dropna=False):
        temps = sorted(g["temperature"].dropna().unique())
        for i, ta in enumerate(temps):
            for tb in temps[i + 1 :]:
                a = g[g["temperature"] == ta].set_index("item_id")
                b = g[g["temperature"] == tb].set_index("item_id")
                both = a.join(b, lsuffix="_a", rsuffix="_b", how="inner")
                if both.empty:
                    continue
                rows.append(
                    {
                        "model": model,
                        "answer_mode": mode,
                        "instrument": instrument,
                        "condition": condition,
                        "temperature_a": ta,
                        "temperature_b": tb,
                        "n_items": len(both),
                        "letter_agreement": float((both["letter_a"] == both["letter_b"]).mean()),
                        "mean_abs_diff": float((both["value_a"] - both["value_b"]).abs().mean()),
                    }
                )
    return sort_by_condition(pd.DataFrame(rows), ["model", "answer_mode", "instrument"]) if rows else pd.DataFrame()


def _all_epochs_label(sel: pd.DataFrame, max_epoch: int) -> str:
    """The label "all epochs (2)" when every item has that many.

    Else how many items have them (the paper's grid has a second replicate on a few cells
    only, not replicate evidence).
    """
    per_item = sel.groupby("item_id")["epoch"].max()
    full = int((per_item == max_epoch).sum())
    return (
        f"all epochs ({max_epoch})"
        if full == len(per_item)
        else f"all epochs ({max_epoch} on {full} of {len(per_item)} items)"
    )


def asymmetry_by_variant(rows: pd.DataFrame, memo: WDMemo | None = None) -> pd.DataFrame:
    """Per model, the decomposition (sycophancy left/right, asymmetry, accommodation gap) under each way it was run.

    Every temperature x answer mode with all its epochs, and, where a variant has several
    epochs, its first epoch alone (the paper's "orig" beside its "4 reps" and "T=0"
    columns). ATP items when present, else PCT items.
    """
    if rows.empty:
        return pd.DataFrame()
    # Each (model, variant, epochs) part under its own key in the model column, so that one
    # build_cells and one decomposition cover them all (both are per model): the same
    # numbers as one call per part, without fourteen passes over the paper's grid.
    parts: list[pd.DataFrame] = []
    labels: list[tuple[pd.Series, str]] = []
    for _, v in variants(rows).iterrows():
        sel = variant_rows(rows, v)
        versions = [(_all_epochs_label(sel, int(v["max_epoch"])), sel)]
        if v["max_epoch"] > 1:
            versions.insert(0, ("epoch 1", sel[sel["epoch"] == 1]))
        for label, part in versions:
            parts.append(part.assign(model=str(len(labels))))
            labels.append((v, label))
    cells = build_cells(pd.concat(parts, ignore_index=True), memo)
    atp = decomposition(cells).set_index("model")
    pct = pct_decomposition(cells[~cells["model"].isin(atp.index)]).set_index("model")
    out = []
    for key, (v, label) in enumerate(labels):
        measure, dec = ("WD(Dem) / WD(Rep)", atp) if str(key) in atp.index else ("PCT item score", pct)
        if str(key) not in dec.index:
            continue
        d = dec.loc[str(key)]
        out.append(
            {
                "model": v["model"],
                "variant": v["variant"],
                "temperature": v["temperature"],
                "answer_mode": v["answer_mode"],
                "epochs": label,
                "main": bool(v["main"]),
                "measure": measure,
                **{
                    k: d[k]
                    for k in (
                        "sycophancy_left",
                        "sycophancy_right",
                        "asymmetry",
                        "accommodation_gap",
                        "n_asymmetry_items",
                    )
                },
            }
        )
    return pd.DataFrame(out)


@section(60, "stability")
def stability_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """Replicate stability (SI S2): epochs' spread, agreement between temperatures, asymmetry per decoding.

    Within-cell SD across epochs, agreement between temperatures, and per-model asymmetry
    under each decoding (SI S2).
    """
    opts = options or AnalysisOptions()
    rows = audit_rows(frame)
    if rows.empty:
        return None
    var = variants(rows)
    if var["max_epoch"].max() <= 1 and not var.duplicated("model").any():
        return Section(
            "Replicate stability and decoding",
            text=(
                "Every cell has one epoch at one temperature: there is no replicate stability to report. Run the audit "
                "with `--epochs 4` and a `--temperature 0` run of the focal conditions to get the paper's SI S2 tables."
            ),
        )
    values = epoch_values(rows, run_memo(opts.cache))
    sd = replicate_sd(values)
    agree = temperature_agreement(values)
    by_variant = asymmetry_by_variant(rows, run_memo(opts.cache))
    tables = {}
    text = []
    summary: dict = {}
    if not sd.empty:
        tables["replicate_sd"] = sd
        text.append(
            "replicate_sd: per cell (model x item x condition) with at least two answered epochs, the SD of the"
            " per-epoch value (WD(Dem) for ATP, item score for PCT/Typology), averaged per model x run x condition."
        )
        summary["mean_within_cell_sd"] = {
            f"{r['model']}|T={r['temperature']}|{r['instrument']}|{r['condition']}": number(r["mean_sd"])
            for _, r in sd.iterrows()
        }
    if not agree.empty:
        tables["temperature_agreement"] = agree
        text.append(
            "temperature_agreement: share of items whose modal letters agree between two temperatures, "
            "and the mean absolute difference of the cell values."
        )
    multi = by_variant.groupby("model")["epochs"].nunique() if not by_variant.empty else pd.Series(dtype=int)
    if not by_variant.empty and (len(by_variant) > by_variant["model"].nunique() or (multi > 1).any()):
        tables["asymmetry_by_variant"] = by_variant
        text.append(
            "asymmetry_by_variant: the decomposition per model under each run (temperature, answer mode) "
            "with all epochs and with its first epoch alone."
        )
    if not tables:
        text.append(
            "Every cell has one epoch at one temperature: there is no replicate stability to report. Run the audit with"
            " `--epochs 4` and a `--temperature 0` run of the focal conditions to get the paper's SI S2 tables."
        )
    return Section(
        "Replicate stability and decoding",
        tables=tables,
        summary={"stability": summary} if summary else {},
        text="\n\n".join(text),
    )
