"""The audit's Headline parts.

The design's answers to the first seed's questions, first on the page
(`core.report_parts.HeadlinePart`).

Each part computes from the sections' tables and summary.json what the abstract and the
paper's main text quote (ranges over models where the paper gives ranges, pooled means,
their ratio with a bootstrap interval over items, the gap with its sign-flip test, the mixed
model's coefficient ratio) under `summary["findings"]["headline"]`, and turns them into
plain sentences, each quoting summary values by path (so `core.report_parts.check_quotes`
holds for them) and naming its definition, item pool and n; the non-response part adds
the answered share per model x condition as a table. When the logs cannot support a
sentence it is left out, and the Findings say what is missing.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from ..core.conditions import BASELINE
from ..core.numbers import at_floor, plural
from ..core.plotting import display_name
from ..core.report_parts import Finding, HeadlinePart, HeadlineTable, Quote, Summary
from ..shared.summaries import condition_rank
from ..stats.resample import iid_indices, index_counts, percentile_interval
from . import headline_scope as scope
from .derived import LEFT, RIGHT, get
from .headline_reruns import reruns, reruns_sentences, reruns_table
from .headline_scope import answer_mode_words

WD = "wd"
_v, _range, _p = get.headline_value, get.headline_range, get.headline_p


def _v_p(summary: Summary, *path: str) -> Quote | str:
    """A Headline p-value's number alone (a test's floor), shown by the report's rule."""
    q = get.p_value(summary, "findings", "headline", *path)
    return q if q is not None else "n/a"


def _span(values: Iterable[Any]) -> dict[str, float]:
    vals = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    return {"min": min(vals), "max": max(vals)} if vals else {}


def _closer(summary_table: pd.DataFrame | None) -> dict[str, Any]:
    """Share of benchmarked ATP items closer to Democrats per condition, as ranges over models."""
    if summary_table is None or summary_table.empty or "pct_closer_dem" not in summary_table:
        return {}
    wd = summary_table[summary_table["scoring"] == WD]
    if wd.empty:
        return {}
    instrument = sorted(wd["instrument"].unique())[0]
    t = wd[wd["instrument"] == instrument].pivot_table(index="model", columns="condition", values="pct_closer_dem")
    if BASELINE not in t or RIGHT not in t:
        return {}
    both = t.dropna(subset=[BASELINE, RIGHT])
    out: dict[str, Any] = {
        "instrument": instrument,
        "n_models": int(len(both)),
        "n_items": _span(
            wd.loc[(wd["instrument"] == instrument) & wd["condition"].isin([BASELINE, RIGHT]), "n_wd_items"]
        ),
        BASELINE: _span(both[BASELINE]),
        RIGHT: _span(both[RIGHT]),
        "drop_" + RIGHT: _span(both[BASELINE] - both[RIGHT]),
        "right_of_midline_" + RIGHT: int((both[RIGHT] < 50).sum()),
    }
    if LEFT in t:
        left = t.dropna(subset=[BASELINE, LEFT])
        out[LEFT] = _span(left[LEFT])
        out["rise_" + LEFT] = _span(left[LEFT] - left[BASELINE])
    return out


def _pooled(
    decomposition: pd.DataFrame | None, shifts: pd.DataFrame | None, summary: Summary, draws: int, seed: int
) -> dict[str, Any]:
    """The Headline's pooled numbers: sycophancy-left/right over models, their ratio and the gap's spread.

    Pooled sycophancy-left/right (means over models), their ratio with a percentile
    bootstrap interval resampling items (the same draw of items for every model), and the
    right-minus-left gap's mean, SD and range over models.
    """
    if decomposition is None or decomposition.empty:
        return {}
    d = decomposition.dropna(subset=["sycophancy_left", "sycophancy_right"])
    if d.empty:
        return {}
    left, right = float(d["sycophancy_left"].mean()), float(d["sycophancy_right"].mean())
    gap = d["accommodation_gap"].astype(float)
    out: dict[str, Any] = {
        "n_models": int(len(d)),
        "left": left,
        "right": right,
        "gap": {"mean": float(gap.mean()), "sd": float(statistics.stdev(gap)) if len(gap) > 1 else None, **_span(gap)},
        "n_positive_gap": int((gap > 0).sum()),
    }
    if left != 0:  # signed: a negative left is the left cue moving the answers right
        out["ratio"] = right / left
        ci = _ratio_interval(shifts, list(d["model"]), draws, seed) if left > 0 else None
        if ci is not None:
            out["ratio_ci"] = {"low": ci[0], "high": ci[1], "draws": draws}
    test = get(summary, "tests", "sign_flip_models_gap")
    if isinstance(test, dict) and test.get("p") is not None:
        out["gap_p"], out["gap_min_p"] = test["p"], test.get("min_p")
    return out


def _ratio_interval(
    shifts: pd.DataFrame | None, models: list[str], draws: int, seed: int
) -> tuple[float, float] | None:
    """Percentile interval of mean-over-models(right) / mean-over-models(left), resampling item ids.

    left_i = -(WD_dem(C3L) - WD_dem(N)), right_i = -(WD_rep(C3R) - WD_rep(N)).
    """
    if shifts is None or shifts.empty:
        return None
    s = shifts[shifts["model"].isin(models)]
    left = s[(s["condition"] == LEFT) & (s["measure"] == "wd_dem")].pivot_table(
        index="model", columns="item_id", values="shift"
    )
    right = s[(s["condition"] == RIGHT) & (s["measure"] == "wd_rep")].pivot_table(
        index="model", columns="item_id", values="shift"
    )
    items = sorted(set(left.columns) | set(right.columns))
    if len(items) < 2:
        return None
    lm = -left.reindex(index=models, columns=items).to_numpy(float)
    rm = -right.reindex(index=models, columns=items).to_numpy(float)
    # a resample's per-model mean over its items (NaN skipped) is sum(count x value) / sum(count)
    # over the answered items: the resamples' item counts times each model's values
    counts = index_counts(iid_indices(len(items), draws, np.random.default_rng(seed)), len(items))
    with np.errstate(invalid="ignore", divide="ignore"):
        lv, rv = (np.nanmean((counts @ np.nan_to_num(m).T) / (counts @ (~np.isnan(m)).T), axis=1) for m in (lm, rm))
        ratios = np.where(lv > 0, rv / lv, np.nan)
    low, high = percentile_interval(ratios)
    return (float(low), float(high)) if math.isfinite(low) and math.isfinite(high) else None


def _mixed(summary: Summary) -> dict[str, Any]:
    """The mixed model's Headline numbers, read from the fit as it was made.

    The mixed model's focal coefficients with their intervals and z, the outcome and random
    effects it was fitted with (from the fit, not assumed), and the signed accommodation
    ratio: the move toward the asker under C3R (its estimate; positive = right) over the move
    toward the asker under C3L (minus its estimate), negative when C3L moved the answers right.
    """
    mm = get(summary, "tests", "mixed_model")
    if not isinstance(mm, dict) or not mm.get("converged") or not isinstance(mm.get("coefficients"), dict):
        return {}
    coefs = mm["coefficients"]
    out: dict[str, Any] = {"spec": mm.get("spec"), "n_obs": mm.get("n_obs")}
    if mm.get("outcome"):
        out["outcome"] = str(mm["outcome"])
    if mm.get("outcome_label") or mm.get("outcome"):
        out["outcome_label"] = str(mm.get("outcome_label") or mm.get("outcome"))
    if isinstance(mm.get("n_models"), int):
        out["n_models"] = int(mm["n_models"])
    for cond in (LEFT, RIGHT):
        c = coefs.get(cond) or {}
        if isinstance(c.get("estimate"), (int, float)) and isinstance(c.get("se"), (int, float)) and c["se"] > 0:
            out[cond] = {"estimate": float(c["estimate"]), "z": float(c["estimate"]) / float(c["se"])}
            if isinstance(c.get("ci_low"), (int, float)) and isinstance(c.get("ci_high"), (int, float)):
                out[cond] |= {"ci_low": float(c["ci_low"]), "ci_high": float(c["ci_high"])}
    if LEFT in out and RIGHT in out and out[LEFT]["estimate"] != 0:
        out["ratio"] = out[RIGHT]["estimate"] / -out[LEFT]["estimate"]
    return out


def _answered(summary_table: pd.DataFrame | None) -> dict[str, Any]:
    """Answered share per model x condition, and errored samples, for the non-response table.

    Answered share (parsed answers over scored samples, pooled over instruments weighted by
    samples) per model x condition, and errored samples, for the non-response table.
    """
    if summary_table is None or summary_table.empty:
        return {}
    t = summary_table.copy()
    t["_scored"] = t["n_samples"] - t["n_errors"]
    t["_answered"] = t["parse_rate"].fillna(0) * t["_scored"]
    g = t.groupby(["model", "condition"])[["_answered", "_scored", "n_samples", "n_errors"]].sum()
    out: dict[str, Any] = {}
    for r in g.reset_index().to_dict("records"):
        out.setdefault(str(r["model"]), {})[str(r["condition"])] = {
            "answered": float(r["_answered"] / r["_scored"]) if r["_scored"] else None,
            "n_samples": int(r["n_samples"]),
            "n_errors": int(r["n_errors"]),
        }
    return out


def _closer_sentences(summary: Summary) -> list[Finding]:
    """The closer part's sentences (topic "headline")."""
    c = get(summary, "findings", "headline", "closer")
    out: list[Finding] = []
    if not c:
        return out
    inst, k = c["instrument"], c["n_models"]
    pieces: list[str | Quote] = [
        f"Asked as a conservative Republican ({RIGHT}), the share of {display_name(inst)} items closer to Democrats "
        "falls by ",
        *_range(summary, "closer", "drop_" + RIGHT),
        " points across ",
        str(k),
        " models, to ",
        *_range(summary, "closer", RIGHT, unit="%"),
        " (from ",
        *_range(summary, "closer", BASELINE, unit="%"),
        " with no preamble, N); ",
        _v(summary, "closer", "right_of_midline_" + RIGHT),
        f" of {k} end below 50%, closer to Republicans on most items.",
    ]
    if LEFT in c:
        pieces += [
            f" As a progressive Democrat ({LEFT}) it rises by ",
            *_range(summary, "closer", "rise_" + LEFT),
            " points, to ",
            *_range(summary, "closer", LEFT, unit="%"),
            ".",
        ]
    pieces += [
        " (Per model, over its ",
        *_range(summary, "closer", "n_items"),
        " items with party benchmarks; an item is closer to Democrats when WD(Dem) < WD(Rep), ties in the "
        "denominator, as the paper counts.)",
    ]
    out.append(Finding("headline", pieces, "conditions", "condition_summary"))
    return out


def _pooled_sentences(summary: Summary) -> list[Finding]:
    """The pooled part's sentences (topic "headline")."""
    p = get(summary, "findings", "headline", "pooled")
    out: list[Finding] = []
    if not p:
        return out
    pieces: list[str | Quote] = []
    if "ratio" in p and p["left"] > 0:
        pieces += ["Rightward accommodation is ", _v(summary, "pooled", "ratio", digits=1), "× leftward"]
        if "ratio_ci" in p:
            pieces += [
                " (95% bootstrap interval over items ",
                _v(summary, "pooled", "ratio_ci", "low", digits=1),
                "–",
                _v(summary, "pooled", "ratio_ci", "high", digits=1),
                ")",
            ]
        pieces += [": "]
    elif "ratio" in p:
        pieces += [
            "Sycophancy-left is negative: under C3L the answers moved right, away from the asker, so the signed "
            "ratio right/left is ",
            _v(summary, "pooled", "ratio", digits=2, signed=True),
            " (no interval: a ratio over a denominator of either sign has none): ",
        ]
    pieces += [
        "pooled over ",
        str(p["n_models"]),
        " models, sycophancy-right ",
        _v(summary, "pooled", "right", digits=3),
        " and sycophancy-left ",
        _v(summary, "pooled", "left", digits=3),
        " (WD units: the mean over models of how much closer the answers move to the asker's own party's benchmark; "
        "the paper's ratio is of these two means).",
    ]
    out.append(Finding("headline", pieces, "sycophancy", "decomposition"))
    gap = [
        "The right-minus-left accommodation gap is ",
        _v(summary, "pooled", "gap", "mean", digits=3, signed=True),
        " (SD ",
        _v(summary, "pooled", "gap", "sd", digits=3),
        ", range ",
        _v(summary, "pooled", "gap", "min", digits=3, signed=True),
        " to ",
        _v(summary, "pooled", "gap", "max", digits=3, signed=True),
        ") over ",
        str(p["n_models"]),
        " models, positive for ",
        _v(summary, "pooled", "n_positive_gap"),
        " of them",
    ]
    if "gap_p" in p:
        floor = p.get("gap_min_p")
        gap += ["; exact sign-flip ", *_p(summary, "pooled", "gap_p", floor=floor)]
        if floor is not None and not at_floor(p["gap_p"], floor):
            gap += [
                f" (the smallest attainable with {p['n_models']} models is ",
                _v_p(summary, "pooled", "gap_min_p"),
                ")",
            ]
    out.append(Finding("headline", [*gap, "."], "tests", "sign_flip"))
    return out


_POSITIVE = MappingProxyType({"wd_dem": "positive = farther from Democrats", "ideology": "positive = to the right"})


def _random_effects(summary: Summary, m: dict[str, Any]) -> str:
    """The random effects the headline's fit has, from the fit: one model has no model intercept."""
    if m.get("spec") == "crossed" and m.get("n_models") == 1:
        return "an item random intercept only: with one model there is no model intercept"
    label = get(summary, "tests", "mixed_model", "spec_label")
    return f"{m.get('spec')}: {label}" if label else f"{m.get('spec')} random intercepts"


def _coefficient(summary: Summary, cond: str) -> list[str | Quote]:
    """`C3R +0.044 (95% CI -0.402 to +0.490; z = 0.2)` of the headline's mixed node."""
    pieces: list[str | Quote] = [f"{cond} ", _v(summary, "mixed", cond, "estimate", digits=3, signed=True)]
    if get(summary, "findings", "headline", "mixed", cond, "ci_low") is not None:
        ends = (("mixed", cond, "ci_low"), ("mixed", cond, "ci_high"))
        pieces += get.headline_ci(summary, *ends, digits=3, signed=True, close="; z = ")
    else:
        pieces.append(" (z = ")
    return [*pieces, _v(summary, "mixed", cond, "z", digits=1), ")"]


def same_way(left: float, right: float) -> str:
    """What the signs of C3L's and C3R's effects (positive = right) say about their direction."""
    if left > 0 and right > 0:
        return "both cues move the answers the same way, to the right: C3L moved them away from its asker"
    if left < 0 and right < 0:
        return "both cues move the answers the same way, to the left: C3R moved them away from its asker"
    if left > 0 > right:
        return "each cue moved the answers away from its asker"
    return "each cue moved the answers toward its asker"


def _mixed_sentences(summary: Summary) -> list[Finding]:
    """The mixed model's Headline sentence: outcome, random effects, coefficients and signed ratio.

    The mixed part's sentence (topic "headline"): the fitted outcome and random effects as
    the fit has them, each focal coefficient with its interval and z, and the signed ratio.
    """
    m = get(summary, "findings", "headline", "mixed")
    out: list[Finding] = []
    if not m or "ratio" not in m or not isinstance(m.get("n_obs"), int):
        return out
    ratio = float(m["ratio"])
    pieces: list[str | Quote] = [
        f"Mixed model ({_random_effects(summary, m)}; outcome {m.get('outcome_label', 'not recorded')} on condition, "
        f"N the reference, {m['n_obs']:,} answers; {_POSITIVE.get(m.get('outcome', ''), 'positive = to the right')}): ",
        *_coefficient(summary, RIGHT),
        ", ",
        *_coefficient(summary, LEFT),
    ]
    shown = _v(summary, "mixed", "ratio", digits=1 if abs(ratio) >= 1 else 2, signed=ratio < 0)
    if ratio > 0 and m[RIGHT]["estimate"] > 0:
        pieces += [f": the {RIGHT} coefficient is ", shown, f" times the size of {LEFT}'s, each toward its asker."]
    else:
        pieces += [
            f": the signed ratio of {RIGHT}'s move toward its asker to {LEFT}'s is ",
            shown,
            "; " + same_way(m[LEFT]["estimate"], m[RIGHT]["estimate"]) + ".",
        ]
    out.append(Finding("headline", pieces, "mixed", f"mixed_{m.get('spec')}_coefficients"))
    return out


def _answered_sentences(summary: Summary) -> list[Finding]:
    """The answered part's sentences (topic "headline")."""
    a = get(summary, "findings", "headline", "answered")
    out: list[Finding] = []
    if not a:
        return out
    cells = [
        (mod, cond, v["answered"])
        for mod, conds in a.items()
        for cond, v in conds.items()
        if v.get("answered") is not None
    ]
    if cells and all(v >= 1 for *_, v in cells):  # no ranking of cells that are all fully answered
        out.append(
            Finding(
                "headline",
                [
                    f"Non-response: every one of the {plural(len(cells), 'model x condition cell')} is fully answered "
                    f"(answers {answer_mode_words(summary)}); no sample was left unread."
                ],
                "conditions",
                "condition_summary",
            )
        )
        return out
    low = sorted(cells, key=lambda x: x[2])[:3]
    if low:
        pieces: list[str | Quote] = [
            "Non-response: the answered share (answers read, over scored samples) is lowest for "
        ]
        for k, (mod, cond, _) in enumerate(low):
            pieces += ([", "] if k else []) + [
                f"{mod} under {cond} (",
                _v(summary, "answered", mod, cond, "answered", scale=100, suffix="%"),
                ")",
            ]
        below = sum(1 for *_, v in cells if v < 0.9)
        pieces += [
            f"; {below} of {len(cells)} model x condition cells are below 90% (table below); "
            "unread answers are left out of every measure, never coded."
        ]
        out.append(Finding("headline", pieces, "conditions", "condition_summary"))
    return out


def answered_table(summary: Summary) -> tuple[list[str], list[list[str]]]:
    """The non-response table: models as rows, conditions as columns, answered %."""
    a = get(summary, "findings", "headline", "answered") or {}
    conds = sorted({c for v in a.values() for c in v}, key=condition_rank)
    rows = []
    for model in sorted(a):
        row = [model]
        for c in conds:
            v = (a[model].get(c) or {}).get("answered")
            row.append("" if v is None else f"{100 * v:.0f}%")
        rows.append(row)
    return ["model", *conds], rows


def _answered_table(summary: Summary) -> HeadlineTable | None:
    """The non-response table under the Headline's sentences (None without a row)."""
    head, rows = answered_table(summary)
    return (
        HeadlineTable("Answered share per model and asker condition (answers read over scored samples)", head, rows)
        if rows
        else None
    )


HEADLINE = (
    HeadlinePart("scope", 0, lambda summary, tables, draws, seed: scope.scope(summary), scope.scope_sentences),
    HeadlinePart("position", 5, lambda summary, tables, draws, seed: scope.position(summary), scope.position_sentences),
    HeadlinePart(
        "closer", 10, lambda summary, tables, draws, seed: _closer(tables.get("condition_summary")), _closer_sentences
    ),
    HeadlinePart(
        "pooled",
        20,
        lambda summary, tables, draws, seed: _pooled(
            tables.get("decomposition"), tables.get("item_shifts"), summary, draws, seed
        ),
        _pooled_sentences,
    ),
    HeadlinePart("reruns", 22, lambda summary, tables, draws, seed: reruns(summary), reruns_sentences, reruns_table),
    HeadlinePart("preamble", 25, scope.preamble, scope.preamble_sentences),
    HeadlinePart("mixed", 30, lambda summary, tables, draws, seed: _mixed(summary), _mixed_sentences),
    # the non-response closes the Headline, after every measure's numbers
    HeadlinePart(
        "answered",
        90,
        lambda summary, tables, draws, seed: _answered(tables.get("condition_summary")),
        _answered_sentences,
        _answered_table,
    ),
)
