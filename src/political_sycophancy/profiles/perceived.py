"""The manipulation check's tables (pure functions of the tidy frame).

How the model read each persona's cue, each party text, and what the attribute effects are
by the party read.

A reading is one epoch of a `profile_check` sample: the party the model names (dem, rep, or
none: it cannot tell) and its 1-7 leaning. Per persona x mode, the party read is the
majority of the readings that name one (`unclear` on a tie, `unread` when none does); the
share read as intended is over those readings, against the party the designer meant
(`intended_party`: the persona's party side, `none` for no party or the placebo). Per cue
(the partisanship text of a mode), the same over the personas that send it; the other
attributes' texts vary among those personas as the design draws them, so a cue's share
averages over them as an AMCE does.

The attribute effects by perceived party re-estimate the AMCEs of the profile cells with the
party the model read in place of the party the designer meant (the same estimator,
`estimators.amce_table`, reference: read as no party). The perceived party is an outcome of
the cue, not a randomised attribute, so these effects describe; they are not causal.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..shared.cells import main_rows
from ..shared.cue_checks import is_validated
from ..shared.personas import ATTRIBUTE_PREFIX, BASELINE_MODE
from . import CHECK_KIND
from .estimators import amce_table

UNCLEAR, UNREAD = "unclear", "unread"
PERCEIVED_ATTRIBUTE = "perceived_party"
PARTISANSHIP = ATTRIBUTE_PREFIX + "partisanship"
KEY = ("model", "persona_id", "cue_mode")


def check_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The readings of `profile_check` tasks (each model's main variant)."""
    if frame.empty or "kind" not in frame.columns:
        return frame.iloc[0:0]
    return main_rows(frame[frame["kind"] == CHECK_KIND])


def _numbers(rows: pd.DataFrame, column: str) -> pd.Series:
    return (
        pd.to_numeric(rows[column], errors="coerce") if column in rows.columns else pd.Series(np.nan, index=rows.index)
    )


def _majority(parties: pd.Series) -> str:
    counts = parties.dropna().value_counts()
    if counts.empty:
        return UNREAD
    top = counts[counts == counts.max()]
    return str(top.index[0]) if len(top) == 1 else UNCLEAR


def _reading(g: pd.DataFrame, prefix: str = "") -> dict:
    """Shares and majority of one group's readings (`prefix`: judge_ for the grader's)."""
    party = g[f"{prefix}party"] if f"{prefix}party" in g.columns else pd.Series(None, index=g.index, dtype=object)
    read = party.notna()
    intended = _numbers(g, f"{prefix}as_intended" if prefix else "as_intended")
    out = {
        f"{prefix}n_read": int(read.sum()),
        f"{prefix}perceived_party": _majority(party[read]),
        f"{prefix}share_as_intended": float(intended.mean()) if intended.notna().any() else math.nan,
        f"{prefix}mean_leaning": float(_numbers(g, f"{prefix}rating").mean()),
    }
    if not prefix:
        for p in ("dem", "rep", "none"):
            out[f"share_{p}"] = float((party[read] == p).mean()) if read.any() else math.nan
    return out


def perception_by_persona(rows: pd.DataFrame) -> pd.DataFrame:
    """How each persona's cue was read, per model x persona x mode.

    The cue, the party meant, the readings, the party read (majority), the shares read as
    each party and as intended, the mean leaning; with a grader, its party read and share as
    intended beside them.
    """
    if rows.empty:
        return pd.DataFrame()
    judged = "judge_party" in rows.columns and rows["judge_party"].notna().any()
    out = []
    for (model, persona, mode), g in rows.groupby(list(KEY), sort=True):
        first = g.iloc[0]
        rec = {
            "model": model,
            "persona_id": persona,
            "cue_mode": mode,
            "partisanship": first.get(PARTISANSHIP) if PARTISANSHIP in g.columns else None,
            "intended_party": first.get("intended_party"),
            "readings": len(g),
            **_reading(g),
        }
        if judged:
            rec.update(_reading(g, "judge_"))
        decided = rec["perceived_party"] not in (UNCLEAR, UNREAD)
        rec["as_intended"] = rec["perceived_party"] == rec["intended_party"] if decided else None
        rec["cue"] = first.get("persona_cue", "")
        out.append(rec)
    return pd.DataFrame(out)


def _checked(rows: pd.DataFrame) -> bool:
    """Whether the rows' cues come from a mode whose texts must name a source (implicit, conversational)."""
    return "cue_checked" in rows.columns and bool(rows["cue_checked"].fillna(False).astype(bool).any())


def perception_by_cue(rows: pd.DataFrame, personas: pd.DataFrame) -> pd.DataFrame:
    """How each partisanship text was read, per model x mode x partisanship text (the cue).

    The personas that send it, the party meant, the readings' shares as each party and as
    intended, the mean leaning, the personas whose majority reading is the intended party,
    and the text with its source.
    """
    if rows.empty or personas.empty:
        return pd.DataFrame()
    rows = rows.assign(partisanship=rows[PARTISANSHIP] if PARTISANSHIP in rows.columns else None)
    out = []
    for (model, mode, level), g in rows.groupby(
        ["model", "cue_mode", rows["partisanship"].fillna("(not stated)")], sort=True
    ):
        p = personas[
            (personas["model"] == model)
            & (personas["cue_mode"] == mode)
            & (personas["partisanship"].fillna("(not stated)") == level)
        ]
        text = (
            g["cue_text_partisanship"].dropna().iloc[0]
            if "cue_text_partisanship" in g.columns and g["cue_text_partisanship"].notna().any()
            else ""
        )
        source = (
            g["cue_source_partisanship"].dropna().iloc[0]
            if "cue_source_partisanship" in g.columns and g["cue_source_partisanship"].notna().any()
            else ""
        )
        rec = {
            "model": model,
            "cue_mode": mode,
            "partisanship": level,
            "intended_party": g["intended_party"].iloc[0],
            "n_personas": int(g["persona_id"].nunique()),
            "readings": len(g),
            **_reading(g),
            "personas_as_intended": int((p["perceived_party"] == p["intended_party"]).sum()),
            "text": text,
            "source": source,
            "validated": is_validated(source) if text and _checked(g) else None,
        }
        rec.pop("perceived_party")
        out.append(rec)
    return pd.DataFrame(out)


def cue_sources(rows: pd.DataFrame) -> pd.DataFrame:
    """Every text the non-political cue modes stated, with its source and whether that is validated.

    Every text the cues of a mode without political words stated (implicit, conversational:
    the modes whose texts must name a source): mode, attribute, level, text, its source, and
    whether the source names a study, statistic or definition (`validated`) or says
    unvalidated.
    """
    if rows.empty or "cue_checked" not in rows.columns:
        return pd.DataFrame()
    rows = rows[rows["cue_checked"].fillna(False).astype(bool)]
    out = []
    for col in [c for c in rows.columns if c.startswith("cue_text_")]:
        attribute = col[len("cue_text_") :]
        source_col = f"cue_source_{attribute}"
        level_col = ATTRIBUTE_PREFIX + attribute
        have = rows[rows[col].notna() & (rows[col] != "")]
        if have.empty or level_col not in have.columns:
            continue
        for (mode, level), g in have.groupby(["cue_mode", level_col], sort=True):
            source = (
                str(g[source_col].dropna().iloc[0]) if source_col in g.columns and g[source_col].notna().any() else ""
            )
            out.append(
                {
                    "cue_mode": mode,
                    "attribute": attribute,
                    "level": level,
                    "text": g[col].iloc[0],
                    "source": source,
                    "validated": is_validated(source),
                }
            )
    return (
        pd.DataFrame(out).sort_values(["cue_mode", "attribute", "level"]).reset_index(drop=True)
        if out
        else pd.DataFrame()
    )


def perceived_cells(cells: pd.DataFrame, personas: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """The checked profile cells with the party the model read in place of the designed one.

    The profile cells of the checked persona x modes whose cue the check sent word for word,
    with the party the model read (`persona_perceived_party`) in place of the designed
    partisanship; counts of the persona x modes left out (no check, another cue text, a read
    that is unclear or unread).
    """
    counts = {"checked": 0, "other_text": 0, "unclear": 0, "unchecked": 0}
    if cells.empty or personas.empty:
        return cells.iloc[0:0], counts
    keys = cells[~cells["is_baseline"]].drop_duplicates(list(KEY))[[*KEY, "persona_cue"]]
    joined = keys.merge(personas[[*KEY, "perceived_party", "cue"]], on=list(KEY), how="left")
    checked = joined["perceived_party"].notna()
    same = checked & (joined["cue"].fillna("") == joined["persona_cue"].fillna(""))
    usable = same & ~joined["perceived_party"].isin([UNCLEAR, UNREAD])
    counts.update(
        checked=int(checked.sum()),
        other_text=int((checked & ~same).sum()),
        unclear=int((same & ~usable).sum()),
        unchecked=int((~checked).sum()),
    )
    keep = joined[usable][[*KEY, "perceived_party"]].rename(
        columns={"perceived_party": ATTRIBUTE_PREFIX + PERCEIVED_ATTRIBUTE}
    )
    out = cells.merge(keep, on=list(KEY), how="inner").drop(columns=[PARTISANSHIP], errors="ignore")
    references = [
        {**(r if isinstance(r, dict) else {}), PERCEIVED_ATTRIBUTE: "none"} for r in out["profile_references"]
    ]
    out["profile_references"] = pd.Series(references, index=out.index, dtype=object)
    return out, counts


def perceived_effects(cells: pd.DataFrame, personas: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """The attribute effects with the party read in place of the party meant.

    The attribute effects (`estimators.amce_table`) with the party read in place of the
    party meant, on the persona x modes the check read; and the counts of `perceived_cells`.
    """
    data, counts = perceived_cells(cells, personas)
    if data.empty:
        return pd.DataFrame(), counts
    effects, _modes, _tests = amce_table(data)
    return effects, counts


def check_counts(personas: pd.DataFrame) -> pd.DataFrame:
    """Per model x mode: how the persona cues checked were read.

    Per model x mode: persona cues checked, read as intended (majority), read otherwise,
    unclear or unread (the baseline N apart).
    """
    if personas.empty:
        return pd.DataFrame()
    p = personas[personas["cue_mode"] != BASELINE_MODE]
    rows = []
    for (model, mode), g in p.groupby(["model", "cue_mode"], sort=True):
        undecided = g["perceived_party"].isin([UNCLEAR, UNREAD])
        rows.append(
            {
                "model": model,
                "cue_mode": mode,
                "cues": len(g),
                "as_intended": int((g["perceived_party"] == g["intended_party"]).sum()),
                "otherwise": int(((g["perceived_party"] != g["intended_party"]) & ~undecided).sum()),
                "unclear": int((g["perceived_party"] == UNCLEAR).sum()),
                "unread": int((g["perceived_party"] == UNREAD).sum()),
            }
        )
    return pd.DataFrame(rows)
