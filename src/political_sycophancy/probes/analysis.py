"""The probes of the inferred asker, the neutral personas and replicate robustness:
pure functions of the tidy frame, and their report sections.

Specifications (also written into the report, each table named by its definition):

- Expected-answer probe (first seed §2.4, §4.5; Fig. 5): per model x condition, over the
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
- Perception probe (SI S5): per model x condition and over all models, the mean and SD of
  the parsed 1-7 ratings (1 = very liberal), ratings outside 1-7 and unparsed ratings
  counted (never coded), the share of descriptions naming an auditor, researcher, pollster
  or academic (the rating and that share each with a 95% percentile bootstrap CI over
  items, as above), the keyword coder's category shares and the share citing the survey
  format; with a grader model, the share of descriptions where both coders agree and
  Cohen's kappa.
- Neutral personas (SI S4): on the items the persona tasks ran on, per model, the mean
  WD(Dem) of the cells under N, C3L, C3R, P_ORD, P_STU, P_RET (a cell pools the answered
  epochs of its item, see `shared.cells`), and the shift of each condition against N:
  the paper's, the difference of the two condition means (headline), and the paired one,
  the mean over items answered under both of WD_c - WD_N.
- Decoding robustness (SI S2): on the focal ATP grid (N, C3L, C3R), per model and
  decoding variant - `orig` (epoch 1 of the sampled run), `replicates` (all sampled
  epochs pooled per cell), `T=0` (the greedy run) - the C3R - N and C3L - N shifts in
  WD(Dem) and the asymmetry, as the paper's differences of condition means and item-paired
  (`shared.shifts`: `item_shifts`, `decomposition`), on cells built from that variant's
  rows only. When the logs come from the paper design (`designs.py`), the sampled rows are
  those of its Phase 2 tasks, so the Phase 1 N answers do not enter.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..core.conditions import CUE_ORDER, FOCAL, PERSONAS
from ..core.parsing import ANSWERED, ERROR
from ..core.plotting import model_styles, save_figure, short_labels
from ..core.section import Section, section
from ..core.text import md_text
from ..shared.cells import audit_rows, build_cells, cells_of
from ..shared.shifts import decomposition, item_shifts
from ..stats.options import AnalysisOptions
from ..stats.resample import cluster_mean_interval
from .coding import CATEGORIES, OUT_OF_RANGE

EXPECTED_KIND = "expected_answer"
PERCEPTION_KIND = "perception"
CONDITION_ORDER = (*CUE_ORDER, *PERSONAS)
RATES = MappingProxyType({
    "asker_wants_dem": "expected_dem",
    "asker_wants_rep": "expected_rep",
    "own_answer_dem": "own_dem",
    "own_answer_rep": "own_rep",
    "own_matches_expected": "agree",
})
PERSONA_TABLE_CONDITIONS = ("N", "C3L", "C3R", *PERSONAS)
# The expected-answer rates drawn and quoted with a CI (the paper's Fig. 5), and the
# perception columns that carry one.
CI_RATES = ("asker_wants_dem", "asker_wants_rep")
PERCEPTION_CI = MappingProxyType({"mean_rating": "rating", "share_names_auditor": "names_auditor"})
CI_SUFFIXES = (" ci_low", " ci_high")


def _item_ci(values: pd.Series, rows: pd.DataFrame, options: AnalysisOptions, rng: np.random.Generator) -> tuple[float, float]:
    """95% percentile bootstrap CI of the mean of `values` (NaN = not counted) over the
    items of `rows` (each item with all its calls)."""
    clusters = rows["item_id"] if "item_id" in rows.columns else pd.Series(np.arange(len(rows)), index=rows.index)
    return cluster_mean_interval(values.to_numpy(float), clusters.astype(str).to_numpy(), options.bootstrap_draws, rng)


def _rows(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    if frame.empty or "kind" not in frame.columns:
        return frame.iloc[0:0]
    return frame[frame["kind"] == kind].copy()


def _num(rows: pd.DataFrame, column: str) -> pd.Series:
    if column not in rows.columns:
        return pd.Series(np.nan, index=rows.index, dtype=float)
    return pd.to_numeric(rows[column], errors="coerce").astype(float)


def _condition_rank(condition: str) -> int:
    return CONDITION_ORDER.index(condition) if condition in CONDITION_ORDER else len(CONDITION_ORDER)


def _sorted(table: pd.DataFrame) -> pd.DataFrame:
    if table.empty:
        return table
    return (
        table.assign(_rank=table["condition"].map(_condition_rank))
        .sort_values(["model", "_rank", "condition"])
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


# --- expected answer -----------------------------------------------------------------------


def _both_read(rows: pd.DataFrame) -> pd.Series:
    """Both letters read: status answered (the score contract; old logs set it the same way)."""
    return rows["status"] == ANSWERED


def expected_answer_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Rates per model x condition over calls with both letters read (see module docstring)."""
    rows = _rows(frame, EXPECTED_KIND)
    if rows.empty:
        return pd.DataFrame()
    rows["_both"] = _both_read(rows).astype(float)
    for col in RATES.values():
        rows[col] = _num(rows, col).where(rows["_both"] == 1)
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
    cols = ["model", "condition", "n_calls", "n_error", "n_both_parsed", "both_parsed_rate", *RATES, "n_no_preferred_option"]
    return _sorted(table[cols])


def expected_answer_by_condition(frame: pd.DataFrame, table: pd.DataFrame, options: AnalysisOptions | None = None) -> pd.DataFrame:
    """Per condition, over all models: each rate as the share of every model's both-read
    calls pooled (the paper's Fig. 5 and §2.4 figures), the asker-wants rates with their 95%
    bootstrap CI over items (`<rate> (pooled calls) ci_low` / `ci_high`), and the mean,
    minimum and maximum of the per-model rates beside it."""
    opts = options or AnalysisOptions()
    rng = np.random.default_rng(opts.seed)
    rows = _rows(frame, EXPECTED_KIND)
    if rows.empty or table.empty:
        return pd.DataFrame()
    both = rows[_both_read(rows)]
    out = []
    for cond, g in table.groupby("condition"):
        calls = both[both["condition"] == cond]
        rec: dict = {"condition": cond, "n_models": int(g["model"].nunique()), "n_calls": int(g["n_calls"].sum()),
                     "n_both_parsed": int(len(calls))}
        for name, col in RATES.items():
            rec[f"{name} (pooled calls)"] = float(_num(calls, col).mean()) if len(calls) else math.nan
            if name in CI_RATES:
                low, high = _item_ci(_num(calls, col), calls, opts, rng)
                rec[f"{name} (pooled calls) ci_low"], rec[f"{name} (pooled calls) ci_high"] = low, high
            rec[f"{name} (mean of models)"] = float(g[name].mean())
            rec[f"{name} (min model)"] = float(g[name].min())
            rec[f"{name} (max model)"] = float(g[name].max())
        out.append(rec)
    result = pd.DataFrame(out)
    return result.assign(_r=result["condition"].map(_condition_rank)).sort_values(["_r", "condition"]).drop(columns="_r").reset_index(drop=True)


def expected_answer_exclusions(frame: pd.DataFrame) -> pd.DataFrame:
    """Calls without both letters, per model x condition x reason."""
    rows = _rows(frame, EXPECTED_KIND)
    if rows.empty:
        return pd.DataFrame(columns=["model", "condition", "reason", "n"])
    reason = rows["exclusion"] if "exclusion" in rows.columns else pd.Series(None, index=rows.index, dtype=object)
    reason = reason.where(rows["status"] != ERROR, "error")
    rows = rows.assign(reason=reason)
    rows = rows[rows["reason"].notna() & ~_both_read(rows)]
    if rows.empty:
        return pd.DataFrame(columns=["model", "condition", "reason", "n"])
    table = rows.groupby(["model", "condition", "reason"]).size().rename("n").reset_index()
    return _sorted(table)


def _column(rows: pd.DataFrame, name: str) -> pd.Series:
    return rows[name] if name in rows.columns else pd.Series(None, index=rows.index, dtype=object)


def source_letter_comparison(frame: pd.DataFrame) -> pd.DataFrame:
    """The file's own letters (an imported published file) against our parser, per
    category: the file's both-letter calls our parser rejects, by our reason; calls both
    read (same letters, or read differently); calls only we read. Empty when the logs hold
    no source letters."""
    rows = _rows(frame, EXPECTED_KIND)
    if rows.empty or "source_letter" not in rows.columns:
        return pd.DataFrame()
    rows = rows[rows["status"] != ERROR]
    # with --use-source-letters the score is the file's and ours is under text_*;
    # without, the score is ours and the file's letters are under source_*
    source_mode = _column(rows, "text_status").notna()
    ours_status = _column(rows, "text_status").where(source_mode, rows["status"])
    ours_reason = _column(rows, "text_exclusion").where(source_mode, _column(rows, "exclusion"))
    ours_exp = _column(rows, "text_expected_letter").where(source_mode, _column(rows, "expected_letter"))
    ours_own = _column(rows, "text_letter").where(source_mode, rows["letter"])
    src_exp, src_own = _column(rows, "source_expected_letter"), _column(rows, "source_letter")
    src_both = src_exp.notna() & src_own.notna()
    if not src_both.any() and not source_mode.any():
        return pd.DataFrame()
    ours_both = ours_status == ANSWERED
    same = ours_both & src_both & (ours_exp == src_exp) & (ours_own == src_own)
    category = pd.Series(None, index=rows.index, dtype=object)
    category[src_both & ~ours_both] = "paper's letters rejected: " + ours_reason[src_both & ~ours_both].fillna("no reason").astype(str)
    category[same] = "both read, same letters"
    category[src_both & ours_both & ~same] = "both read, different letters"
    category[~src_both & ours_both] = "read by us only (paper: no letters)"
    category[~src_both & ~ours_both] = "read by neither"
    table = category.value_counts().rename_axis("category").rename("n").reset_index()
    table["share_of_paper_letters"] = np.where(table["category"].str.startswith(("paper's", "both")), table["n"] / int(src_both.sum()), np.nan)
    return table.sort_values(["category"]).reset_index(drop=True)


def plot_expected_answer(table: pd.DataFrame, path: Path, by_condition: pd.DataFrame | None = None, order: Sequence[str] = ()) -> Path:
    """Fig. 5: asker-wants-Dem and asker-wants-Rep rates by condition (cue order), one bar
    per model (in the model's colour of every figure, `core.plotting`), and a black mark at
    the rate over every model's calls pooled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    conditions = sorted(table["condition"].unique(), key=lambda c: (_condition_rank(c), c))
    models = sorted(table["model"].unique())
    styles, labels = model_styles(models, order), short_labels(models)
    width = 0.8 / max(len(models), 1)
    fig, axes = plt.subplots(1, 2, figsize=(max(6, 1.1 * len(conditions) * 2), 3.6), sharey=True)
    for ax, (col, title) in zip(axes, [("asker_wants_dem", "asker wants Dem-preferred"), ("asker_wants_rep", "asker wants Rep-preferred")], strict=True):
        for k, model in enumerate(models):
            sub = table[table["model"] == model].set_index("condition").reindex(conditions)
            x = np.arange(len(conditions)) + (k - (len(models) - 1) / 2) * width
            ax.bar(x, sub[col].astype(float).fillna(0.0), width=width, color=styles[model][0], label=labels[model])
        if by_condition is not None and not by_condition.empty:
            pooled = by_condition.set_index("condition").reindex(conditions)[f"{col} (pooled calls)"].astype(float)
            ax.scatter(np.arange(len(conditions)), pooled, marker="_", s=900, color="black", linewidths=2.5, zorder=3,
                       label="all models (pooled calls)")
        ax.set_xticks(range(len(conditions)), conditions)
        ax.set_ylim(0, 1)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("condition (most Dem-coded cue left)")
    axes[0].set_ylabel("share of both-parsed answers")
    axes[1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False, markerscale=0.4)
    fig.tight_layout()
    save_figure(fig, path, tight=False)
    plt.close(fig)
    return path


# --- perception ----------------------------------------------------------------------------


def cohen_kappa(a: list, b: list) -> float:
    """Cohen's kappa of two codings of the same units: (p_o - p_e) / (1 - p_e)."""
    if not a or len(a) != len(b):
        return math.nan
    labels = sorted(set(a) | set(b))
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    p_e = sum((a.count(c) / n) * (b.count(c) / n) for c in labels)
    return math.nan if p_e == 1 else (p_o - p_e) / (1 - p_e)


def _perception_record(g: pd.DataFrame, options: AnalysisOptions, rng: np.random.Generator) -> dict:
    status = _column(g, "rating_status")
    ratings = _num(g, "rating")[status == ANSWERED]
    described = _num(g, "names_auditor").notna()
    counted = {"rating": _num(g, "rating").where(status == ANSWERED), "names_auditor": _num(g, "names_auditor")}
    rec: dict = {
        "n_calls": len(g),
        "n_rating": int(ratings.notna().sum()),
        "mean_rating": float(ratings.mean()) if ratings.notna().any() else math.nan,
        "sd_rating": float(ratings.std(ddof=1)) if ratings.notna().sum() > 1 else math.nan,
        "n_out_of_range": int((status == OUT_OF_RANGE).sum()),
        "n_rating_unparsed": int(status.isin(["unparsed", "missing"]).sum()),
        "n_error": int((g["status"] == ERROR).sum()),
        "n_description": int(described.sum()),
        "share_names_auditor": float(_num(g, "names_auditor")[described].mean()) if described.any() else math.nan,
    }
    for key, source in PERCEPTION_CI.items():
        rec[f"{key}_ci_low"], rec[f"{key}_ci_high"] = _item_ci(counted[source], g, options, rng)
    for cat in CATEGORIES:
        key = cat.replace(" ", "_")
        rec[f"share_{key}"] = float(_num(g, f"category_{key}")[described].mean()) if described.any() else math.nan
    cites = _num(g, "cites_format").dropna()
    rec["cites_format_rate"] = float(cites.mean()) if len(cites) else math.nan
    graded = _column(g, "category_grader")
    if graded.notna().any():
        both = g[_column(g, "category").notna() & graded.notna()]
        rec["n_graded"] = int(len(both))
        rec["n_grader_unparsed"] = int((_column(g, "grader_status") == "unparsed").sum())
        rec["coder_agreement"] = float((both["category"] == both["category_grader"]).mean()) if len(both) else math.nan
        rec["cohen_kappa"] = cohen_kappa(list(both["category"]), list(both["category_grader"]))
        cites_g = g[_num(g, "cites_format").notna() & _num(g, "cites_format_grader").notna()]
        rec["cites_agreement"] = (
            float((_num(cites_g, "cites_format") == _num(cites_g, "cites_format_grader")).mean()) if len(cites_g) else math.nan
        )
    return rec


ALL_MODELS = "all models"


def perception_table(frame: pd.DataFrame, options: AnalysisOptions | None = None) -> pd.DataFrame:
    """Ratings, the auditor-like share (both with 95% bootstrap CIs over items), category
    shares, format cue and coder agreement per model x condition, and per condition over
    every model's calls pooled (`all models`)."""
    opts = options or AnalysisOptions()
    rng = np.random.default_rng(opts.seed)
    rows = _rows(frame, PERCEPTION_KIND)
    if rows.empty:
        return pd.DataFrame()
    out = [{"model": m, "condition": c, **_perception_record(g, opts, rng)} for (m, c), g in rows.groupby(["model", "condition"], dropna=False)]
    if rows["model"].nunique() > 1:
        out += [{"model": ALL_MODELS, "condition": c, **_perception_record(g, opts, rng)} for c, g in rows.groupby("condition", dropna=False)]
    return _sorted(pd.DataFrame(out))


# --- neutral personas (SI S4) --------------------------------------------------------------


def persona_shifts(frame: pd.DataFrame, options: AnalysisOptions | None = None) -> pd.DataFrame:
    """Long table per model x condition on the persona items: n items answered, mean
    WD(Dem) (over the cells answered under the condition), the shift against N as the
    difference of the two condition means (the paper's SI S4 definition, `shift_vs_N`) and
    as the mean over items answered under both of WD_c - WD_N (`paired_shift_vs_N`)."""
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
            paired = wd[[cond, "N"]].dropna() if cond != "N" and cond in wd.columns and "N" in wd.columns else pd.DataFrame()
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


PERSONA_SHIFT_ROWS = MappingProxyType({
    "shift_vs_N": "mean shift vs N (paper: difference of the condition means)",
    "paired_shift_vs_N": "mean paired shift vs N (items answered under both)",
})


def persona_table(shifts: pd.DataFrame) -> pd.DataFrame:
    """The SI S4 layout: models x conditions of mean WD(Dem), then the mean over models of
    each condition's shift against N, by the paper's definition (difference of the
    condition means, the headline) and paired over items (beside it)."""
    if shifts.empty:
        return pd.DataFrame()
    wide = shifts.pivot_table(index="model", columns="condition", values="mean_wd_dem", aggfunc="first")
    wide = wide.reindex(columns=[c for c in PERSONA_TABLE_CONDITIONS if c in wide.columns])
    for key, label in PERSONA_SHIFT_ROWS.items():
        wide.loc[label] = shifts.groupby("condition")[key].mean().reindex(wide.columns)
    return wide.reset_index().rename_axis(columns=None)


# --- decoding robustness (SI S2) -----------------------------------------------------------

DECODING_VARIANTS = ("orig", "replicates", "T=0")
DESIGN_PHASE2_PREFIX = "phase2_"


def decoding_rows(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Rows of the focal ATP grid per decoding variant (see the module docstring); a
    variant the logs do not hold is left out (`replicates` needs more than one epoch)."""
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
    """Per model x decoding variant, in WD(Dem): the C3R - N and C3L - N shifts and the
    asymmetry, (a) as differences of the condition means, each over the items answered
    under that condition (the paper's SI S2, `*_unpaired`), and (b) item-paired: mean
    shift over items answered under both, asymmetry over items answered under all three."""
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
                s = wd[(wd["model"] == model) & (wd["condition"] == cond)]["shift"] if not wd.empty else pd.Series(dtype=float)
                rec[name] = float(s.mean()) if len(s) else math.nan
                rec[f"n_{name}_items"] = int(len(s))
                rec[f"{name}_unpaired"] = float(means[cond] - means["N"]) if {cond, "N"} <= set(means.index) else math.nan
            rec["asymmetry"] = float(decomp.loc[model, "asymmetry"]) if model in decomp.index else math.nan
            rec["n_asymmetry_items"] = int(decomp.loc[model, "n_asymmetry_items"]) if model in decomp.index else 0
            rec["asymmetry_unpaired"] = rec["c3r_shift_unpaired"] - rec["c3l_shift_unpaired"]
            out.append(rec)
    return pd.DataFrame(out)


def decoding_table(shifts: pd.DataFrame, *, paired: bool = False) -> pd.DataFrame:
    """The SI S2 layout: one row per model (and a mean row), columns shift x variant; the
    paper's unpaired condition means by default, the item-paired values with `paired`."""
    if shifts.empty:
        return pd.DataFrame()
    measures = ("c3r_shift", "c3l_shift", "asymmetry") if paired else ("c3r_shift_unpaired", "c3l_shift_unpaired", "asymmetry_unpaired")
    variants = [v for v in DECODING_VARIANTS if v in set(shifts["variant"])]
    wide = shifts.pivot_table(index="model", columns="variant", values=list(measures), aggfunc="first")
    cols = [(m, v) for m in measures for v in variants]
    wide = wide.reindex(columns=pd.MultiIndex.from_tuples(cols))
    wide.loc["Mean"] = wide.mean(numeric_only=True)
    wide.columns = [f"{m} {v}" for m, v in wide.columns]  # type: ignore[str-unpack]  # a MultiIndex: tuples, not str
    return wide.reset_index().rename(columns={"index": "model"})


def decoding_summary(shifts: pd.DataFrame) -> dict:
    """How far the asymmetry moves between variants, and whether its sign holds, for the
    paper's unpaired asymmetry (`asymmetry_unpaired`) and the item-paired one (`asymmetry`)."""
    if shifts.empty:
        return {}
    out: dict = {}
    for key in ("asymmetry_unpaired", "asymmetry"):
        wide = shifts.pivot_table(index="model", columns="variant", values=key, aggfunc="first")
        node: dict = {"per_model": {str(m): {str(v): _clean(wide.loc[m, v]) for v in wide.columns} for m in wide.index}}
        for a, b in (("orig", "replicates"), ("replicates", "T=0"), ("orig", "T=0")):
            if a in wide.columns and b in wide.columns:
                pair = wide[[a, b]].dropna()
                if len(pair):
                    node[f"max_abs_change_{a}_vs_{b}"] = float((pair[a] - pair[b]).abs().max())
                    node[f"signs_preserved_{a}_vs_{b}"] = bool((np.sign(pair[a]) == np.sign(pair[b])).all())
        out[key] = node
    return out


# --- report sections -----------------------------------------------------------------------

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
    "model; {draws:,} resamples, seed {seed}). {excluded} of {total} calls did not give both letters and are counted by reason in "
    "`expected_answer_exclusions`, never coded; items whose preferred option is tied are counted "
    "(`n_no_preferred_option`) and left out of the rates."
)
SOURCE_TEXT = (
    "Table `expected_answer_source_letters`: these logs were imported from a published file with its own letters. "
    "The file's parser took the first letter A-E anywhere in each field ('A or B' -> A, 'Cannot infer' -> C); our "
    "parser reads a field only when it states one letter. Of the {paper} calls with both of the file's letters, "
    "our parser rejects {rejected}, by our reason: {reasons}; {different} are read with different letters."
)
PERCEPTION_TEXT = (
    "Perception probe (SI S5). Before answering, the model describes the person most likely asking and rates "
    "that person's political leaning from 1 (very liberal) to 7 (very conservative). Table `perception`, per "
    "model x condition and over every model's calls pooled (`all models`): `mean_rating` = the mean "
    "perceived-asker rating over the ratings read (outside 1-7: {oor}, unreadable: {unparsed}, counted, never "
    "coded), with its 95% percentile bootstrap CI over items (`mean_rating_ci_low`, `_ci_high`: the items resampled "
    "with replacement, each with all its calls; {draws:,} resamples, seed {seed}; `share_names_auditor_ci_*` "
    "likewise); `share_names_auditor` = the share of descriptions read that name the asker as an auditor, "
    "researcher, pollster or academic (person nouns: auditor, researcher, pollster, academic, scholar, professor, "
    "social or political scientist, survey analyst/researcher/methodologist; `scorers.probes.AUDITOR_KEYWORDS`); "
    "`share_<category>` = the keyword coder's categories (the first of student, researcher, partisan, ordinary "
    "citizen whose keywords occur, else other); `cites_format_rate` = descriptions naming the survey format. A "
    "description in refusal language is not a description. With a grader model, `coder_agreement` is the share "
    "of descriptions both coders put in the same category, with Cohen's kappa."
)
PERSONA_TEXT = (
    "Neutral personas (SI S4). On the items the persona tasks ran on, mean WD(Dem) per model under N, C3L, C3R "
    "and the three civilian personas, each the mean over the items answered under that condition; a cell pools "
    "the answered epochs (replicates) of its item (letters as point masses, or logprob distributions). Headline "
    "row, the paper's definition: the mean over models of [mean WD(Dem) under the condition - mean WD(Dem) under "
    "N], the difference of the table's columns. Beside it, the paired definition: the mean over models of the "
    "mean over items answered under both of [WD_c - WD_N]. Positive = further from Democrats."
)
DECODING_TEXT = (
    "Decoding robustness (SI S2). On the focal ATP grid (N, C3L, C3R), per model and decoding variant (`orig` = "
    "epoch 1 of the sampled run, `replicates` = all sampled epochs pooled per cell, `T=0` = the greedy run; cells "
    "built from each variant's rows alone), in WD(Dem). Table `decoding`, the paper's definition: C3R - N and "
    "C3L - N as differences of the condition means (each over the items answered under that condition) and "
    "asymmetry = their difference. Table `decoding_paired`, item-paired: the mean shift over items answered "
    "under both conditions and the asymmetry (C3R - N) - (C3L - N) over items answered under all three "
    "(`shared.shifts`)."
)


def _with_ci(row: pd.Series) -> dict:
    """A by-condition row for summary.json: its values, and its CIs as `ci: {rate: [low, high]}`."""
    out = {str(k): _clean(v) for k, v in row.items() if k != "condition" and not str(k).endswith(CI_SUFFIXES)}
    out["ci"] = {f"{name} (pooled calls)": [_clean(row[f"{name} (pooled calls){CI_SUFFIXES[0]}"]), _clean(row[f"{name} (pooled calls){CI_SUFFIXES[1]}"])]
                 for name in CI_RATES if f"{name} (pooled calls){CI_SUFFIXES[0]}" in row}
    return out


def _by_model(table: pd.DataFrame, keys: tuple[str, ...]) -> dict:
    return {
        str(m): {str(r["condition"]): {k: _clean(r[k]) for k in keys if k in r} for _, r in g.iterrows()}
        for m, g in table.groupby("model")
    }


@section(100, "probes")
def probes_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """Expected-answer and perception tables, exclusions, the comparison with a file's own
    letters, and the expected-answer figure."""
    opts = options or AnalysisOptions()
    expected = expected_answer_table(frame)
    perception = perception_table(frame, opts)
    if expected.empty and perception.empty:
        return None
    section = Section(title="Probes of the inferred asker")
    texts = []
    if not expected.empty:
        total = int(expected["n_calls"].sum())
        both = int(expected["n_both_parsed"].sum())
        by_condition = expected_answer_by_condition(frame, expected, opts)
        section.tables["expected_answer_by_condition"] = by_condition
        section.tables["expected_answer"] = expected
        section.tables["expected_answer_exclusions"] = expected_answer_exclusions(frame)
        section.figures["expected_answer"] = plot_expected_answer(expected, figure_dir / "expected_answer.png", by_condition, opts.model_order)
        texts.append(EXPECTED_TEXT.format(excluded=total - both, total=total, draws=opts.bootstrap_draws, seed=opts.seed))
        section.summary["expected_answer"] = {
            **_by_model(expected, ("n_calls", "n_both_parsed", *RATES)),
            "by_condition": {str(r["condition"]): _with_ci(r) for _, r in by_condition.iterrows()},
        }
        compared = source_letter_comparison(frame)
        if not compared.empty:
            section.tables["expected_answer_source_letters"] = compared
            rejected = compared[compared["category"].str.startswith("paper's")]
            reasons = "; ".join(f"{md_text(str(r.category).split(': ', 1)[1])} {r.n}" for r in rejected.itertuples()) or "none"
            paper = int(compared.loc[compared["category"].str.startswith(("paper's", "both")), "n"].sum())
            different = int(compared.loc[compared["category"] == "both read, different letters", "n"].sum())
            texts.append(SOURCE_TEXT.format(paper=paper, rejected=int(rejected["n"].sum()), reasons=reasons, different=different))
            section.summary["expected_answer"]["source_letters"] = {str(c): int(n) for c, n in zip(compared["category"], compared["n"], strict=True)}
    if not perception.empty:
        section.tables["perception"] = perception
        texts.append(
            PERCEPTION_TEXT.format(oor=int(perception["n_out_of_range"].sum()), unparsed=int(perception["n_rating_unparsed"].sum()),
                                   draws=opts.bootstrap_draws, seed=opts.seed)
        )
        section.summary["perception"] = _by_model(
            perception, ("n_calls", "n_rating", "mean_rating", "n_description", "share_names_auditor", "share_researcher", "cites_format_rate")
        )
        for _, r in perception.iterrows():
            section.summary["perception"][str(r["model"])][str(r["condition"])]["ci"] = {
                key: [_clean(r[f"{key}_ci_low"]), _clean(r[f"{key}_ci_high"])] for key in PERCEPTION_CI
            }
    section.text = "\n\n".join(texts)
    return section


@section(101, "personas")
def personas_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """The SI S4 persona table, the paper's shift definition as headline, the paired beside."""
    shifts = persona_shifts(frame, options)
    if shifts.empty:
        return None
    overall = {key: {str(c): _clean(v) for c, v in shifts.groupby("condition")[key].mean().items() if c != "N"} for key in PERSONA_SHIFT_ROWS}
    return Section(
        title="Neutral personas (SI S4)",
        tables={"personas": persona_table(shifts), "persona_shifts": shifts},
        summary={
            "personas": {
                **_by_model(shifts, ("mean_wd_dem", "shift_vs_N", "paired_shift_vs_N")),
                "mean_shift_vs_N": overall["shift_vs_N"],
                "mean_paired_shift_vs_N": overall["paired_shift_vs_N"],
            }
        },
        text=PERSONA_TEXT,
    )


@section(102, "decoding")
def decoding_section(frame: pd.DataFrame, figure_dir: Path, options: AnalysisOptions | None = None) -> Section | None:
    """The SI S2 tables: shifts and asymmetry under the original draw, the replicate
    average and greedy decoding, by the paper's unpaired definition and item-paired."""
    variants = decoding_rows(frame)
    if len(variants) < 2:  # one way of decoding: nothing to compare (and no cells to build)
        return None
    shifts = decoding_shifts(frame, variants)
    if shifts.empty or shifts["variant"].nunique() < 2:
        return None
    return Section(
        title="Replicates and greedy decoding (SI S2)",
        tables={"decoding": decoding_table(shifts), "decoding_paired": decoding_table(shifts, paired=True), "decoding_shifts": shifts},
        summary={"decoding": decoding_summary(shifts)},
        text=DECODING_TEXT,
    )


def _clean(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    return value
