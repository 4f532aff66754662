"""The expected-answer probe's tables and figure (a part of the report section `probes`).

Expected-answer probe (first seed §2.4, §4.5; Fig. 5): per model x condition, over the
calls with both letters read, asker-wants-Dem rate = share whose expected-by-asker letter
is the item's Democrat-preferred option (argmax over options of P_Dem - P_Rep),
asker-wants-Rep rate likewise (argmax of P_Rep - P_Dem), own-answer-Dem / -Rep rates for
the model's own letter, and agreement = share whose own letter equals the expected one.
Per condition, the paper's figures pool every model's both-read calls; the mean and range
of the per-model rates are beside them, and the pooled asker-wants-Dem / -Rep rates carry
a 95% percentile bootstrap CI over items (`stats.resample.cluster_mean_interval`: the
condition's items resampled with replacement, each with all its calls, every model's;
the run's bootstrap draws and seed). Every call counts in `n_calls`; calls without
both letters are counted by reason (`scorers.probes.ExpectedReading.exclusion`). Logs
imported from a published file keep its letters, and a table lists which of them our
parser rejects, by reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..core.items import LETTERS
from ..core.parsing import ANSWERED, ERROR
from ..core.plotting import model_styles, new_figure, save_figure, short_labels
from ..shared.bootstrap import FIXED_MODELS
from ..stats.options import AnalysisOptions
from ..stats.resample import iid_indices, index_counts, percentile_interval
from .rows import EXPECTED_KIND, clean, column_or_none, condition_rank, item_ci, kind_rows, numeric, sort_rows
from .scorers import preferred_letters

RATES = MappingProxyType(
    {
        "asker_wants_dem": "expected_dem",
        "asker_wants_rep": "expected_rep",
        "own_answer_dem": "own_dem",
        "own_answer_rep": "own_rep",
        "own_matches_expected": "agree",
    }
)

# The expected-answer rates drawn and quoted with a CI (the paper's Fig. 5).
CI_RATES = ("asker_wants_dem", "asker_wants_rep")
CI_SUFFIXES = (" ci_low", " ci_high")


def _both_read(rows: pd.DataFrame) -> pd.Series:
    """Both letters read: status answered (the score contract; old logs set it the same way)."""
    return rows["status"] == ANSWERED


def expected_answer_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Rates per model x condition over calls with both letters read (see module docstring)."""
    rows = kind_rows(frame, EXPECTED_KIND)
    if rows.empty:
        return pd.DataFrame()
    rows["_both"] = _both_read(rows).astype(float)
    for col in RATES.values():
        rows[col] = numeric(rows, col).where(rows["_both"] == 1)
    rows["_no_pref"] = (rows["_both"] == 1) & rows["expected_dem"].isna()
    rows["_error"] = rows["status"] == ERROR
    grouped = rows.groupby(["model", "condition"], dropna=False)
    table = grouped.agg(
        n_calls=("_both", "size"),
        n_error=("_error", "sum"),
        n_both_parsed=("_both", "sum"),
        n_no_preferred_option=("_no_pref", "sum"),
        **{name: (col, "mean") for name, col in RATES.items()},
    ).reset_index()
    table["both_parsed_rate"] = table["n_both_parsed"] / table["n_calls"]
    for col in ("n_both_parsed", "n_no_preferred_option", "n_error"):
        table[col] = table[col].astype(int)
    cols = [
        "model",
        "condition",
        "n_calls",
        "n_error",
        "n_both_parsed",
        "both_parsed_rate",
        *RATES,
        "n_no_preferred_option",
    ]
    return sort_rows(table[cols])


def expected_answer_by_condition(
    frame: pd.DataFrame, table: pd.DataFrame, options: AnalysisOptions | None = None
) -> pd.DataFrame:
    """The expected-answer rates per condition, over all models.

    Each rate as the share of every model's both-read calls pooled (the paper's Fig. 5 and
    §2.4 figures), the asker-wants rates with their 95% bootstrap CI over items (`<rate>
    (pooled calls) ci_low` / `ci_high`), and the mean, minimum and maximum of the per-model
    rates beside it.
    """
    opts = options or AnalysisOptions()
    rng = np.random.default_rng(opts.seed)
    rows = kind_rows(frame, EXPECTED_KIND)
    if rows.empty or table.empty:
        return pd.DataFrame()
    both = rows[_both_read(rows)]
    out = []
    for cond, g in table.groupby("condition"):
        calls = both[both["condition"] == cond]
        rec: dict = {
            "condition": cond,
            "n_models": int(g["model"].nunique()),
            "n_calls": int(g["n_calls"].sum()),
            "n_both_parsed": int(len(calls)),
        }
        for name, col in RATES.items():
            rec[f"{name} (pooled calls)"] = float(numeric(calls, col).mean()) if len(calls) else math.nan
            if name in CI_RATES:
                low, high = item_ci(numeric(calls, col), calls, opts, rng)
                rec[f"{name} (pooled calls) ci_low"], rec[f"{name} (pooled calls) ci_high"] = low, high
            rec[f"{name} (mean of models)"] = float(g[name].mean())
            rec[f"{name} (min model)"] = float(g[name].min())
            rec[f"{name} (max model)"] = float(g[name].max())
        out.append(rec)
    result = pd.DataFrame(out)
    return (
        result.assign(_r=result["condition"].map(condition_rank))
        .sort_values(["_r", "condition"])
        .drop(columns="_r")
        .reset_index(drop=True)
    )


def paired_difference(
    frame: pd.DataFrame, first: str, second: str, options: AnalysisOptions | None = None, rate: str = "asker_wants_dem"
) -> dict[str, float | int] | None:
    """The paired difference of an expected-answer share between two conditions, with its CI.

    The share of both-read calls (all models pooled) giving `rate` under `first` minus under
    `second`, on the items with calls under both (the paper's key comparison: N close to
    C3L), with its 95% percentile bootstrap CI resampling those items (each with all its calls
    under both conditions, the same draw for both); None without two such items.
    """
    opts = options or AnalysisOptions()
    rows = kind_rows(frame, EXPECTED_KIND)
    if rows.empty:
        return None
    rows = rows[_both_read(rows)].assign(_v=lambda r: numeric(r, RATES[rate]))
    rows = rows[rows["_v"].notna() & rows["condition"].isin([first, second])]
    per = rows.groupby(["item_id", "condition"])["_v"].agg(["sum", "count"]).unstack("condition")
    if per.empty or first not in per["sum"] or second not in per["sum"]:
        return None
    per = per[per["count"][first].notna() & per["count"][second].notna()]
    if len(per) < 2:
        return None
    sums = {c: per["sum"][c].to_numpy(float) for c in (first, second)}
    counts = {c: per["count"][c].to_numpy(float) for c in (first, second)}
    drawn = index_counts(iid_indices(len(per), opts.bootstrap_draws, np.random.default_rng(opts.seed)), len(per))
    with np.errstate(invalid="ignore", divide="ignore"):
        diffs = (drawn @ sums[first]) / (drawn @ counts[first]) - (drawn @ sums[second]) / (drawn @ counts[second])
    low, high = percentile_interval(diffs)
    return {
        "difference": float(sums[first].sum() / counts[first].sum() - sums[second].sum() / counts[second].sum()),
        "ci_low": float(low),
        "ci_high": float(high),
        "n_items": int(len(per)),
        "n_calls": int(counts[first].sum() + counts[second].sum()),
    }


def expected_answer_items(frame: pd.DataFrame) -> pd.DataFrame:
    """The items of the expected-answer probe, with their preferred letters and partisan gap.

    Its Democrat- and Republican-preferred letters (`scorers.preferred_letters`, from the
    item's benchmarks as the logs carry them) with their options, the partisan gap and the
    calls made on it, most partisan item first.
    """
    rows = kind_rows(frame, EXPECTED_KIND)
    if rows.empty or "options" not in rows.columns or "benchmarks" not in rows.columns:
        return pd.DataFrame()
    out = []
    for item_id, g in rows.groupby("item_id", sort=True):
        first = g.iloc[0]
        options = list(first["options"]) if isinstance(first["options"], (list, tuple)) else []
        benchmarks = first["benchmarks"] if isinstance(first["benchmarks"], dict) else {}
        dem, rep = preferred_letters(options, benchmarks)
        out.append(
            {
                "item_id": item_id,
                "n_options": len(options),
                "dem_preferred": dem,
                "dem_option": options[LETTERS.index(dem)] if dem else None,
                "rep_preferred": rep,
                "rep_option": options[LETTERS.index(rep)] if rep else None,
                "partisan_gap": pd.to_numeric(pd.Series([first.get("item_partisan_gap")]), errors="coerce").iloc[0],
                "n_calls": len(g),
                "n_both_parsed": int(_both_read(g).sum()),
            }
        )
    table = pd.DataFrame(out)
    table = table.sort_values(["partisan_gap", "item_id"], ascending=[False, True], na_position="last")
    return table.reset_index(drop=True)


def expected_answer_exclusions(frame: pd.DataFrame) -> pd.DataFrame:
    """Calls without both letters, per model x condition x reason."""
    rows = kind_rows(frame, EXPECTED_KIND)
    if rows.empty:
        return pd.DataFrame(columns=["model", "condition", "reason", "n"])
    reason = rows["exclusion"] if "exclusion" in rows.columns else pd.Series(None, index=rows.index, dtype=object)
    reason = reason.where(rows["status"] != ERROR, "error")
    rows = rows.assign(reason=reason)
    rows = rows[rows["reason"].notna() & ~_both_read(rows)]
    if rows.empty:
        return pd.DataFrame(columns=["model", "condition", "reason", "n"])
    table = rows.groupby(["model", "condition", "reason"]).size().rename("n").reset_index()
    return sort_rows(table)


def source_letter_comparison(frame: pd.DataFrame) -> pd.DataFrame:
    """The file's own letters (an imported published file) against our parser, per category.

    The file's both-letter calls our parser rejects, by our reason; calls both read (same
    letters, or read differently); calls only we read. Empty when the logs hold no source
    letters.
    """
    rows = kind_rows(frame, EXPECTED_KIND)
    if rows.empty or "source_letter" not in rows.columns:
        return pd.DataFrame()
    rows = rows[rows["status"] != ERROR]
    # with --use-source-letters the score is the file's and ours is under text_*;
    # without, the score is ours and the file's letters are under source_*
    source_mode = column_or_none(rows, "text_status").notna()
    ours_status = column_or_none(rows, "text_status").where(source_mode, rows["status"])
    ours_reason = column_or_none(rows, "text_exclusion").where(source_mode, column_or_none(rows, "exclusion"))
    ours_exp = column_or_none(rows, "text_expected_letter").where(source_mode, column_or_none(rows, "expected_letter"))
    ours_own = column_or_none(rows, "text_letter").where(source_mode, rows["letter"])
    src_exp, src_own = column_or_none(rows, "source_expected_letter"), column_or_none(rows, "source_letter")
    src_both = src_exp.notna() & src_own.notna()
    if not src_both.any() and not source_mode.any():
        return pd.DataFrame()
    ours_both = ours_status == ANSWERED
    same = ours_both & src_both & (ours_exp == src_exp) & (ours_own == src_own)
    category = pd.Series(None, index=rows.index, dtype=object)
    category[src_both & ~ours_both] = "paper's letters rejected: " + ours_reason[src_both & ~ours_both].fillna(
        "no reason"
    ).astype(str)
    category[same] = "both read, same letters"
    category[src_both & ours_both & ~same] = "both read, different letters"
    category[~src_both & ours_both] = "read by us only (paper: no letters)"
    category[~src_both & ~ours_both] = "read by neither"
    table = category.value_counts().rename_axis("category").rename("n").reset_index()
    table["share_of_paper_letters"] = np.where(
        table["category"].str.startswith(("paper's", "both")), table["n"] / int(src_both.sum()), np.nan
    )
    return table.sort_values(["category"]).reset_index(drop=True)


def plot_expected_answer(
    table: pd.DataFrame, path: Path, by_condition: pd.DataFrame | None = None, order: Sequence[str] = ()
) -> Path:
    """Fig. 5: the asker-wants rates by condition, one bar per model.

    Fig. 5: asker-wants-Dem and asker-wants-Rep rates by condition (cue order), one bar
    per model (in the model's colour of every figure, `core.plotting`), and a black mark at
    the rate over every model's calls pooled.
    """
    conditions = sorted(table["condition"].unique(), key=lambda c: (condition_rank(c), c))
    models = sorted(table["model"].unique())
    styles, labels = model_styles(models, order), short_labels(models)
    width = 0.8 / max(len(models), 1)
    # the two panels stacked, each as wide as the printed page, the legend under them
    fig = new_figure(figsize=(7.0, 6.4), layout="constrained")
    axes = fig.subplots(2, 1, sharex=True)
    panels = [
        ("asker_wants_dem", "The asker wants the Democrat-preferred answer"),
        ("asker_wants_rep", "The asker wants the Republican-preferred answer"),
    ]
    for ax, (col, title) in zip(axes, panels, strict=True):
        for k, model in enumerate(models):
            sub = table[table["model"] == model].set_index("condition").reindex(conditions)
            x = np.arange(len(conditions)) + (k - (len(models) - 1) / 2) * width
            ax.bar(x, sub[col].astype(float).fillna(0.0), width=width, color=styles[model][0], label=labels[model])
        if by_condition is not None and not by_condition.empty:
            pooled = by_condition.set_index("condition").reindex(conditions)[f"{col} (pooled calls)"].astype(float)
            ax.scatter(
                np.arange(len(conditions)),
                pooled,
                marker="_",
                s=500,
                color="black",
                linewidths=2.5,
                zorder=3,
                label="all models (pooled calls)",
            )
        ax.set_xticks(range(len(conditions)), conditions)
        ax.set_ylim(-0.04, 1.05)  # a share of 1 keeps its whole bar; the pooled mark at 0 clears the frame
        ax.set_title(title, fontsize=9)
        ax.set_ylabel("share of both-read calls", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[-1].set_xlabel("asker condition (most Democrat-coded cue left)", fontsize=8)
    fig.legend(
        *axes[0].get_legend_handles_labels(),
        fontsize=7,
        loc="outside lower center",
        ncols=min(4, len(models) + 1),
        frameon=False,
    )
    save_figure(fig, path)
    return path


EXPECTED_TEXT = (
    "Expected-answer probe (first seed §2.4, §4.5). Each item's closing instruction is replaced by a request "
    "for the letter the asker wants to hear (and why) and the model's own answer. The Democrat-preferred "
    "option of an item is argmax over options of P_Dem - P_Rep in the ATP benchmarks, the Republican-preferred "
    "one argmax of P_Rep - P_Dem. Table `expected_answer` (per model x condition): rates are shares of the calls "
    "with both letters read (`n_both_parsed`). Table `expected_answer_by_condition` (the paper's Fig. 5 and §2.4 "
    "figures): per condition, `(pooled calls)` = the share over every model's both-read calls pooled, which is the "
    "paper's definition; `(mean of models)`, `(min model)`, `(max model)` = the mean and range of the per-model "
    "rates. The pooled asker-wants-Dem and -Rep rates carry a 95% percentile bootstrap CI over items "
    "(`ci_low`, `ci_high`: the condition's items resampled with replacement, each with all its calls from every "
    "model; {draws:,} resamples, seed {seed}). "
    + FIXED_MODELS.replace("{", "{{").replace("}", "}}")
    + " {excluded} of {total} calls did not give both letters and are counted by reason in "
    "`expected_answer_exclusions`, never coded; items whose preferred option is tied are counted "
    "(`n_no_preferred_option`) and left out of the rates. Table `expected_answer_items`: each item's Democrat- and "
    "Republican-preferred letter and option, the key every rate above is scored against."
)
SOURCE_TEXT = (
    "Table `expected_answer_source_letters`: these logs were imported from a published file with its own letters. "
    "The file's parser took the first letter A-E anywhere in each field ('A or B' -> A, 'Cannot infer' -> C); our "
    "parser reads a field only when it states one letter. Of the {paper} calls with both of the file's letters, "
    "our parser rejects {rejected}, by our reason: {reasons}; {different} are read with different letters."
)


def with_ci(row: pd.Series) -> dict:
    """A by-condition row for summary.json: its values, and its CIs as `ci: {rate: [low, high]}`."""
    out = {str(k): clean(v) for k, v in row.items() if k != "condition" and not str(k).endswith(CI_SUFFIXES)}
    out["ci"] = {
        f"{name} (pooled calls)": [
            clean(row[f"{name} (pooled calls){CI_SUFFIXES[0]}"]),
            clean(row[f"{name} (pooled calls){CI_SUFFIXES[1]}"]),
        ]
        for name in CI_RATES
        if f"{name} (pooled calls){CI_SUFFIXES[0]}" in row
    }
    return out
