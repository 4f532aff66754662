"""The frame's even-handedness samples as the statistics read them.

The rows of the measure's tasks with their defaults filled in, oriented to the asker's side
(`oriented`) or to the stance sides (`by_side`), one row per answer (`answers_long`), and
the rate and paired difference a table row holds (`rate`, `paired`). The specification is in
`analysis`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core.parsing import ANSWERED
from ..stats.proportions import paired_difference_interval, proportion_interval
from . import KIND

POOLED = "stated side (pooled)"
SIDED = ("left", "right")
# the rubric of logs written before the grader had another (card 1-A): this measure's prompts
PROJECT_RUBRIC = "project"
GROUP = ("model", "variant", "grader", "rubric", "condition")
RUN = GROUP[:-1]  # one model's run: a group but for the asker
STATISTICS = ("even_rate", "help_gap", "refusal_gap", "hedging_gap")
ASYMMETRIES = ("help_asymmetry", "refusal_asymmetry", "hedging_asymmetry")
BASELINE_ASKER = "N"
CATEGORY_COLUMNS = ("main_category", "template_category")
CONTRAST_METHOD = "MOVER of the askers' Newcombe intervals, correlation from a joint pair bootstrap"
ANSWER_MEASURES = ("refusal", "hedging", "opposing")
NUMBERS = ("even", "helpful_diff", *(f"{m}_{s}" for s in ("a", "b") for m in ANSWER_MEASURES))


def evenhandedness_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of even-handedness tasks, with `variant` and `grader` filled in."""
    if frame.empty or "kind" not in frame.columns:
        return frame.iloc[0:0]
    rows = frame[frame["kind"] == KIND].copy()
    for column, default in (("variant", "(base)"), ("grader", "(none)"), ("rubric", PROJECT_RUBRIC)):
        rows[column] = rows[column].fillna(default).astype(str) if column in rows.columns else default
    for column in ("side_a", "side_b", "asker_side"):
        rows[column] = rows[column].fillna("none").astype(str) if column in rows.columns else "none"
    for column in NUMBERS:  # an errored sample has no score: its numbers are missing, not 0
        if column not in rows.columns:
            rows[column] = np.nan
    if "pair_id" not in rows.columns:
        rows["pair_id"] = rows["item_id"]
    for s in ("a", "b"):  # hedging over the answers that complied (logs of card 1-A kept a refused answer's)
        rows[f"hedging_{s}"] = np.where(
            rows[f"refusal_{s}"].astype(float) == 0.0, rows[f"hedging_{s}"].astype(float), np.nan
        )
    return rows


def oriented(rows: pd.DataFrame) -> pd.DataFrame:
    """The paired gaps oriented to the asker's side, per sample of a side-stating asker on a sided pair.

    Which answer is matched, and `d` (help), `refusal_gap` and `hedging_gap` oriented to the
    asker's side.
    """
    sided = rows[rows["asker_side"].isin(SIDED) & rows["side_a"].isin(SIDED) & rows["side_b"].isin(SIDED)]
    a_matched = sided["side_a"] == sided["asker_side"]
    sign = np.where(a_matched, 1.0, -1.0)
    out = sided.assign(
        d=sided["helpful_diff"].astype(float) * sign,
        refusal_gap=(sided["refusal_b"].astype(float) - sided["refusal_a"].astype(float)) * sign,
        hedging_gap=(sided["hedging_b"].astype(float) - sided["hedging_a"].astype(float)) * sign,
    )
    # d only where the judgement was read (an unread one is NaN already; a non-answered status too)
    out.loc[out["status"] != ANSWERED, "d"] = np.nan
    for measure in ("refusal", "hedging"):
        a, b = sided[f"{measure}_a"].astype(float), sided[f"{measure}_b"].astype(float)
        out[f"{measure}_matched"], out[f"{measure}_opposed"] = np.where(a_matched, a, b), np.where(a_matched, b, a)
    out["helped_matched"], out["helped_opposed"] = _indicator(out["d"], 1.0), _indicator(out["d"], -1.0)
    return out


def _indicator(values: pd.Series, sign: float) -> np.ndarray:
    """1 where `values` has the sign, 0 where it is read and has not, NaN where unread."""
    v = values.astype(float).to_numpy()
    return np.where(np.isnan(v), np.nan, (v * sign > 0).astype(float))


def by_side(rows: pd.DataFrame) -> pd.DataFrame:
    """The paired quantities by side, per sample on a sided pair (any asker).

    The paired quantities oriented to the sides, right and left: which answer was judged
    more helpful, each answer's refusal and hedging (hedging over answers that complied).
    """
    sided = rows[rows["side_a"].isin(SIDED) & rows["side_b"].isin(SIDED)]
    a_right = (sided["side_a"] == "right").to_numpy()
    diff = sided["helpful_diff"].astype(float).where(sided["status"] == ANSWERED)
    toward_right: pd.Series = diff * np.where(a_right, 1.0, -1.0)
    out = sided.assign(helped_right=_indicator(toward_right, 1.0), helped_left=_indicator(toward_right, -1.0))
    for measure in ("refusal", "hedging"):
        a, b = sided[f"{measure}_a"].astype(float), sided[f"{measure}_b"].astype(float)
        out[f"{measure}_right"], out[f"{measure}_left"] = np.where(a_right, a, b), np.where(a_right, b, a)
    return out


# each asymmetry: the two paired 0/1 columns of `by_side` whose difference it is
ASYMMETRY_COLUMNS = (
    ("help_asymmetry", "helped_right", "helped_left"),
    ("refusal_asymmetry", "refusal_right", "refusal_left"),
    ("hedging_asymmetry", "hedging_right", "hedging_left"),
)


def mean_of(values: pd.Series) -> float:
    """The mean of the values read (NaN when none is)."""
    v = values.astype(float).dropna()
    return float(v.mean()) if len(v) else math.nan


def rate(out: dict, name: str, values: pd.Series, clusters: pd.Series) -> None:
    """A rate over pairs with Wilson's interval; n = the samples read."""
    out[name], out[f"{name}_ci_low"], out[f"{name}_ci_high"], _ = proportion_interval(
        values.to_numpy(float), clusters.to_numpy()
    )
    out[f"n_{name}"] = int(values.astype(float).notna().sum())


def paired(
    out: dict, name: str, first: pd.Series | np.ndarray, second: pd.Series | np.ndarray, clusters: pd.Series
) -> None:
    """First - second over pairs with Newcombe's interval; n = the samples with both read."""
    x, y = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    out[name], out[f"{name}_ci_low"], out[f"{name}_ci_high"] = paired_difference_interval(x, y, clusters.to_numpy())
    out[f"n_{name}"] = int((~(np.isnan(x) | np.isnan(y))).sum())


def answers_long(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per answer: the prompt's side, its relation to the asker, its grades."""
    parts = []
    for s in ("a", "b"):
        part = rows[[*GROUP, "pair_id", "asker_side"]].copy()
        part["prompt"] = s
        part["side"] = rows[f"side_{s}"].to_numpy()
        part["grade_status"] = rows[f"grade_status_{s}"].to_numpy() if f"grade_status_{s}" in rows.columns else None
        for m in ANSWER_MEASURES:
            part[m] = rows[f"{m}_{s}"].astype(float).to_numpy() if f"{m}_{s}" in rows.columns else np.nan
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
