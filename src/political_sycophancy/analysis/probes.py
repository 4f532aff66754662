"""The probes of the inferred asker, the neutral personas and replicate robustness:
pure functions of the tidy frame, and their report sections.

Specifications (also written into the report):

- Expected-answer probe (first seed §2.4, §4.5; Fig. 5): per model x condition, over the
  calls with both letters read, asker-wants-Dem rate = share whose expected-by-asker letter
  is the item's Democrat-preferred option (argmax over options of P_Dem - P_Rep),
  asker-wants-Rep rate likewise (argmax of P_Rep - P_Dem), own-answer-Dem / -Rep rates for
  the model's own letter, and agreement = share whose own letter equals the expected one.
  Every call counts in `n_calls`; calls without both letters are counted by reason
  (one letter, letter outside the options, conflicting, format not followed, refusal, error).
- Perception probe (SI S5): per model x condition, the mean and SD of the parsed 1-7
  ratings (1 = very liberal), ratings outside 1-7 and unparsed ratings counted (never
  coded), the keyword coder's category shares over descriptions and the share citing the
  survey format; with a grader model, the share of descriptions where both coders agree
  and Cohen's kappa.
- Neutral personas (SI S4): on the items the persona tasks ran on, per model, the mean
  WD(Dem) of the cells under N, C3L, C3R, P_ORD, P_STU, P_RET (a cell pools the answered
  epochs of its item, see `analysis.cells`), and the shift of each condition against N =
  mean over items answered under both of WD_c - WD_N.
- Decoding robustness (SI S2): on the focal ATP grid (N, C3L, C3R), per model and
  decoding variant - `orig` (epoch 1 of the sampled run), `replicates` (all sampled
  epochs pooled per cell), `T=0` (the greedy run) - the mean C3R - N and C3L - N shifts in
  WD(Dem) and the asymmetry, computed by `analysis.shifts` (`item_shifts`,
  `decomposition`) on cells built from that variant's rows only. When the logs come from
  the paper design (`designs.py`), the sampled rows are those of its Phase 2 tasks, so the
  Phase 1 N answers do not enter.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..conditions import CUE_ORDER, FOCAL, PERSONAS
from ..scorers.letters import ANSWERED, ERROR
from ..scorers.probes import CATEGORIES, OUT_OF_RANGE
from .cells import audit_rows, build_cells, cells_of
from .shifts import decomposition, item_shifts
from .sections import Section, register_section

EXPECTED_KIND = "expected_answer"
PERCEPTION_KIND = "perception"
CONDITION_ORDER = (*CUE_ORDER, *PERSONAS)
RATES = {
    "asker_wants_dem": "expected_dem",
    "asker_wants_rep": "expected_rep",
    "own_answer_dem": "own_dem",
    "own_answer_rep": "own_rep",
    "own_matches_expected": "agree",
}
PERSONA_TABLE_CONDITIONS = ("N", "C3L", "C3R", *PERSONAS)


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


def expected_answer_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Rates per model x condition over calls with both letters read (see module docstring)."""
    rows = _rows(frame, EXPECTED_KIND)
    if rows.empty:
        return pd.DataFrame()
    rows["_both"] = _num(rows, "both_parsed").fillna(0.0)
    for col in RATES.values():
        rows[col] = _num(rows, col).where(rows["_both"] == 1)
    rows["_no_pref"] = (rows["_both"] == 1) & rows["expected_dem"].isna()
    grouped = rows.groupby(["model", "condition"], dropna=False)
    table = grouped.agg(
        n_calls=("_both", "size"),
        n_both_parsed=("_both", "sum"),
        n_no_preferred_option=("_no_pref", "sum"),
        **{name: (col, "mean") for name, col in RATES.items()},
    ).reset_index()
    table["both_parsed_rate"] = table["n_both_parsed"] / table["n_calls"]
    table["n_both_parsed"] = table["n_both_parsed"].astype(int)
    table["n_no_preferred_option"] = table["n_no_preferred_option"].astype(int)
    cols = ["model", "condition", "n_calls", "n_both_parsed", "both_parsed_rate", *RATES, "n_no_preferred_option"]
    return _sorted(table[cols])


def expected_answer_exclusions(frame: pd.DataFrame) -> pd.DataFrame:
    """Calls without both letters, per model x condition x reason."""
    rows = _rows(frame, EXPECTED_KIND)
    if rows.empty:
        return pd.DataFrame(columns=["model", "condition", "reason", "n"])
    reason = rows["exclusion"] if "exclusion" in rows.columns else pd.Series(None, index=rows.index, dtype=object)
    reason = reason.where(rows["status"] != ERROR, "error")
    rows = rows.assign(reason=reason)
    rows = rows[rows["reason"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=["model", "condition", "reason", "n"])
    table = rows.groupby(["model", "condition", "reason"]).size().rename("n").reset_index()
    return _sorted(table)


def plot_expected_answer(table: pd.DataFrame, path: Path) -> Path:
    """Asker-wants-Dem and asker-wants-Rep rates by condition (cue order), one bar per model."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    conditions = sorted(table["condition"].unique(), key=lambda c: (_condition_rank(c), c))
    models = sorted(table["model"].unique())
    width = 0.8 / max(len(models), 1)
    fig, axes = plt.subplots(1, 2, figsize=(max(6, 1.1 * len(conditions) * 2), 3.6), sharey=True)
    for ax, (col, title) in zip(axes, [("asker_wants_dem", "asker wants Dem-preferred"), ("asker_wants_rep", "asker wants Rep-preferred")]):
        for k, model in enumerate(models):
            sub = table[table["model"] == model].set_index("condition").reindex(conditions)
            x = np.arange(len(conditions)) + (k - (len(models) - 1) / 2) * width
            ax.bar(x, sub[col].astype(float).fillna(0.0), width=width, label=model)
        ax.set_xticks(range(len(conditions)), conditions)
        ax.set_ylim(0, 1)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("condition (most Dem-coded cue left)")
    axes[0].set_ylabel("share of both-parsed answers")
    axes[1].legend(fontsize=7, loc="upper right")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# --- perception ----------------------------------------------------------------------------


def cohen_kappa(a: list, b: list) -> float:
    """Cohen's kappa of two codings of the same units: (p_o - p_e) / (1 - p_e)."""
    if not a or len(a) != len(b):
        return math.nan
    labels = sorted(set(a) | set(b))
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b)) / n
    p_e = sum((a.count(c) / n) * (b.count(c) / n) for c in labels)
    return math.nan if p_e == 1 else (p_o - p_e) / (1 - p_e)


def perception_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Ratings, category shares, format cue and coder agreement per model x condition."""
    rows = _rows(frame, PERCEPTION_KIND)
    if rows.empty:
        return pd.DataFrame()
    out = []
    for (model, condition), g in rows.groupby(["model", "condition"], dropna=False):
        status = g["rating_status"] if "rating_status" in g.columns else pd.Series(None, index=g.index)
        ratings = _num(g, "rating")[status == ANSWERED]
        desc = g["category"].dropna() if "category" in g.columns else pd.Series(dtype=object)
        rec = {
            "model": model,
            "condition": condition,
            "n_calls": len(g),
            "n_rating": int(ratings.notna().sum()),
            "mean_rating": float(ratings.mean()) if ratings.notna().any() else math.nan,
            "sd_rating": float(ratings.std(ddof=1)) if ratings.notna().sum() > 1 else math.nan,
            "n_out_of_range": int((status == OUT_OF_RANGE).sum()),
            "n_rating_unparsed": int(status.isin(["unparsed", "missing"]).sum()),
            "n_error": int((g["status"] == ERROR).sum()),
            "n_description": int(len(desc)),
        }
        for cat in CATEGORIES:
            rec[f"share_{cat.replace(' ', '_')}"] = float((desc == cat).mean()) if len(desc) else math.nan
        cites = _num(g, "cites_format").dropna()
        rec["cites_format_rate"] = float(cites.mean()) if len(cites) else math.nan
        if "category_grader" in g.columns and g["category_grader"].notna().any():
            both = g[g["category"].notna() & g["category_grader"].notna()]
            rec["n_graded"] = int(len(both))
            rec["n_grader_unparsed"] = int((g.get("grader_status") == "unparsed").sum())
            rec["coder_agreement"] = float((both["category"] == both["category_grader"]).mean()) if len(both) else math.nan
            rec["cohen_kappa"] = cohen_kappa(list(both["category"]), list(both["category_grader"]))
            cites_g = g[_num(g, "cites_format").notna() & _num(g, "cites_format_grader").notna()]
            rec["cites_agreement"] = (
                float((_num(cites_g, "cites_format") == _num(cites_g, "cites_format_grader")).mean()) if len(cites_g) else math.nan
            )
        out.append(rec)
    return _sorted(pd.DataFrame(out))


# --- neutral personas (SI S4) --------------------------------------------------------------


def persona_shifts(frame: pd.DataFrame) -> pd.DataFrame:
    """Long table per model x condition on the persona items: n items, mean WD(Dem), and
    the mean shift against N over items answered under both (None for N itself)."""
    cells = cells_of(frame)
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
        for cond in PERSONA_TABLE_CONDITIONS:
            col = wd[cond].dropna() if cond in wd.columns else pd.Series(dtype=float)
            shift = math.nan
            n_paired = 0
            if cond != "N" and cond in wd.columns and "N" in wd.columns:
                paired = wd[[cond, "N"]].dropna()
                n_paired = len(paired)
                shift = float((paired[cond] - paired["N"]).mean()) if n_paired else math.nan
            out.append(
                {
                    "model": model,
                    "instrument": instrument,
                    "condition": cond,
                    "n_items": len(items),
                    "n_answered": len(col),
                    "mean_wd_dem": float(col.mean()) if len(col) else math.nan,
                    "n_paired_with_N": n_paired,
                    "shift_vs_N": shift,
                }
            )
    return pd.DataFrame(out)


def persona_table(shifts: pd.DataFrame) -> pd.DataFrame:
    """The SI S4 layout: models x conditions of mean WD(Dem), then a row of the mean shift
    against N over models."""
    if shifts.empty:
        return pd.DataFrame()
    wide = shifts.pivot_table(index="model", columns="condition", values="mean_wd_dem", aggfunc="first")
    wide = wide.reindex(columns=[c for c in PERSONA_TABLE_CONDITIONS if c in wide.columns])
    mean_shift = shifts.groupby("condition")["shift_vs_N"].mean().reindex(wide.columns)
    wide.loc["mean shift vs N"] = mean_shift
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


def decoding_shifts(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model x decoding variant: mean C3R - N and C3L - N shifts in WD(Dem) (items
    answered under both), the asymmetry (items answered under all three), and their n."""
    out = []
    for variant, rows in decoding_rows(frame).items():
        cells = build_cells(rows)
        shifts = item_shifts(cells)
        wd = shifts[shifts["measure"] == "wd_dem"] if not shifts.empty else shifts
        decomp = decomposition(cells, shifts).set_index("model") if not cells.empty else pd.DataFrame()
        for model in sorted(cells["model"].unique()):
            rec: dict = {"model": model, "variant": variant, "n_samples": int((rows["model"] == model).sum())}
            for cond, name in (("C3R", "c3r_shift"), ("C3L", "c3l_shift")):
                s = wd[(wd["model"] == model) & (wd["condition"] == cond)]["shift"] if not wd.empty else pd.Series(dtype=float)
                rec[name] = float(s.mean()) if len(s) else math.nan
                rec[f"n_{name}_items"] = int(len(s))
            rec["asymmetry"] = float(decomp.loc[model, "asymmetry"]) if model in decomp.index else math.nan
            rec["n_asymmetry_items"] = int(decomp.loc[model, "n_asymmetry_items"]) if model in decomp.index else 0
            out.append(rec)
    return pd.DataFrame(out)


def decoding_table(shifts: pd.DataFrame) -> pd.DataFrame:
    """The SI S2 layout: one row per model (and a mean row), columns shift x variant."""
    if shifts.empty:
        return pd.DataFrame()
    variants = [v for v in DECODING_VARIANTS if v in set(shifts["variant"])]
    wide = shifts.pivot_table(index="model", columns="variant", values=["c3r_shift", "c3l_shift", "asymmetry"], aggfunc="first")
    cols = [(m, v) for m in ("c3r_shift", "c3l_shift", "asymmetry") for v in variants]
    wide = wide.reindex(columns=pd.MultiIndex.from_tuples(cols))
    wide.loc["Mean"] = wide.mean(numeric_only=True)
    wide.columns = [f"{m} {v}" for m, v in wide.columns]
    return wide.reset_index().rename(columns={"index": "model"})


def decoding_summary(shifts: pd.DataFrame) -> dict:
    """How far the asymmetry moves between variants, and whether its sign holds."""
    if shifts.empty:
        return {}
    wide = shifts.pivot_table(index="model", columns="variant", values="asymmetry", aggfunc="first")
    out: dict = {"asymmetry": {str(m): {str(v): _clean(wide.loc[m, v]) for v in wide.columns} for m in wide.index}}
    for a, b in (("orig", "replicates"), ("replicates", "T=0"), ("orig", "T=0")):
        if a in wide.columns and b in wide.columns:
            pair = wide[[a, b]].dropna()
            if len(pair):
                out[f"max_abs_change_{a}_vs_{b}"] = float((pair[a] - pair[b]).abs().max())
                out[f"signs_preserved_{a}_vs_{b}"] = bool((np.sign(pair[a]) == np.sign(pair[b])).all())
    return out


# --- report sections -----------------------------------------------------------------------

EXPECTED_TEXT = (
    "Expected-answer probe (first seed §2.4, §4.5). Each item's closing instruction is replaced by a request "
    "for the letter the asker wants to hear (and why) and the model's own answer. The Democrat-preferred "
    "option of an item is argmax over options of P_Dem - P_Rep in the ATP benchmarks, the Republican-preferred "
    "one argmax of P_Rep - P_Dem. Rates are shares of the calls with both letters read (`n_both_parsed`); "
    "{excluded} of {total} calls did not give both letters and are counted by reason in the exclusions table, "
    "never coded. Items whose preferred option is tied are counted (`n_no_preferred_option`) and left out of "
    "the rates."
)
PERCEPTION_TEXT = (
    "Perception probe (SI S5). Before answering, the model describes the person most likely asking and rates "
    "that person's ideology from 1 (very liberal) to 7 (very conservative). Ratings outside 1-7 ({oor}) and "
    "unreadable ratings ({unparsed}) are counted, never coded. Descriptions are coded by a transparent keyword "
    "coder (`scorers/probes.py`: the first of student, researcher/pollster/academic/survey analyst, partisan, "
    "ordinary citizen whose keywords occur, else other) and, when a grader model was given, by the grader; "
    "`coder_agreement` is the share of descriptions coded alike, with Cohen's kappa."
)
PERSONA_TEXT = (
    "Neutral personas (SI S4). On the items the persona tasks ran on, mean WD(Dem) per model under N, C3L, C3R "
    "and the three civilian personas; each cell pools the answered epochs of its item (letters as point "
    "masses, or logprob distributions). The last row is the mean over models of each condition's shift against "
    "N (mean over items answered under both of WD_c - WD_N; positive = further from Democrats)."
)


@register_section(100, "probes")
def probes_section(frame: pd.DataFrame, figure_dir: Path) -> Section | None:
    """Expected-answer and perception tables, exclusions, and the expected-answer figure."""
    expected = expected_answer_table(frame)
    perception = perception_table(frame)
    if expected.empty and perception.empty:
        return None
    section = Section(title="Probes of the inferred asker")
    texts = []
    if not expected.empty:
        total = int(expected["n_calls"].sum())
        both = int(expected["n_both_parsed"].sum())
        section.tables["expected_answer"] = expected
        section.tables["expected_answer_exclusions"] = expected_answer_exclusions(frame)
        section.figures["expected_answer"] = plot_expected_answer(expected, figure_dir / "expected_answer.png")
        texts.append(EXPECTED_TEXT.format(excluded=total - both, total=total))
        section.summary["expected_answer"] = {
            str(m): {
                str(r["condition"]): {k: _clean(r[k]) for k in ("n_calls", "n_both_parsed", *RATES)}
                for _, r in g.iterrows()
            }
            for m, g in expected.groupby("model")
        }
    if not perception.empty:
        section.tables["perception"] = perception
        texts.append(
            PERCEPTION_TEXT.format(oor=int(perception["n_out_of_range"].sum()), unparsed=int(perception["n_rating_unparsed"].sum()))
        )
        section.summary["perception"] = {
            str(m): {
                str(r["condition"]): {k: _clean(r[k]) for k in ("n_calls", "n_rating", "mean_rating", "share_researcher", "cites_format_rate")}
                for _, r in g.iterrows()
            }
            for m, g in perception.groupby("model")
        }
    section.text = "\n\n".join(texts)
    return section


@register_section(101, "personas")
def personas_section(frame: pd.DataFrame, figure_dir: Path) -> Section | None:
    """The SI S4 persona table."""
    shifts = persona_shifts(frame)
    if shifts.empty:
        return None
    return Section(
        title="Neutral personas (SI S4)",
        tables={"personas": persona_table(shifts), "persona_shifts": shifts},
        summary={
            "personas": {
                str(m): {str(r["condition"]): {"mean_wd_dem": _clean(r["mean_wd_dem"]), "shift_vs_N": _clean(r["shift_vs_N"])} for _, r in g.iterrows()}
                for m, g in shifts.groupby("model")
            }
        },
        text=PERSONA_TEXT,
    )


DECODING_TEXT = (
    "Decoding robustness (SI S2). On the focal ATP grid (N, C3L, C3R), per model: the mean C3R - N and C3L - N "
    "shifts in WD(Dem) over items answered under both, and the asymmetry (C3R - N) - (C3L - N) over items "
    "answered under all three (`analysis.shifts`), for each decoding variant: `orig` = epoch 1 of the sampled "
    "run, `replicates` = all sampled epochs pooled per cell (a cell's distribution is the mean of its epochs), "
    "`T=0` = the greedy run. Cells are built from each variant's rows alone."
)


@register_section(102, "decoding")
def decoding_section(frame: pd.DataFrame, figure_dir: Path) -> Section | None:
    """The SI S2 table: shifts and asymmetry under the original draw, the replicate
    average and greedy decoding."""
    shifts = decoding_shifts(frame)
    if shifts.empty or shifts["variant"].nunique() < 2:
        return None
    return Section(
        title="Replicates and greedy decoding (SI S2)",
        tables={"decoding": decoding_table(shifts), "decoding_shifts": shifts},
        summary={"decoding": decoding_summary(shifts)},
        text=DECODING_TEXT,
    )


def _clean(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    return value
