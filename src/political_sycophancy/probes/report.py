"""What the probes add to the whole report (`REPORT`).

Two Headline parts (which answer the models say the asker wants, and whom they think is
asking, as the first seed's abstract quotes them), their two figures with takeaways, and
their key tables.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from ..core.conditions import BASELINE, CUE_ORDER
from ..core.plotting import OKABE_ITO, model_styles, new_figure, short_labels, suptitle
from ..core.report_parts import FigureSpec, Finding, HeadlinePart, Quote, ReportContribution, Summary, Tables
from ..shared import figure_parts
from ..shared.figure_parts import ci_err, model_order, run_models
from ..shared.summary_reading import dig, finite, reader, span_text
from .summary import ByConditionRow, PerceptionCell

get = reader("political_sycophancy.probes")
_v, _range = get.headline_value, get.headline_range
LEFT, RIGHT = "C3L", "C3R"


# --- the Headline -------------------------------------------------------------------------


def _ci(row: dict[Any, Any], column: str, sep: str = " ") -> dict[str, float] | None:
    """`{"low", "high"}` of a table row's `<column><sep>ci_low` / `ci_high`, None when not finite."""
    low, high = finite(row.get(f"{column}{sep}ci_low")), finite(row.get(f"{column}{sep}ci_high"))
    return {"low": low, "high": high} if low is not None and high is not None else None


def _expected(table: pd.DataFrame | None, summary: Summary) -> dict[str, Any]:
    """The expected-answer Headline numbers, with their CIs and the paired N - C3L difference.

    The asker-wants shares of the pooled calls under N (and C3L, C3R) with their 95% CIs
    over items, and the paired N - C3L difference of the Democrat share (`paired_difference`).
    """
    if table is None or table.empty or "condition" not in table:
        return {}
    dem, rep = "asker_wants_dem (pooled calls)", "asker_wants_rep (pooled calls)"
    rows: dict[str, dict[Any, Any]] = {str(r["condition"]): r for r in table.to_dict("records")}
    if BASELINE not in rows or dem not in table:
        return {}
    n = rows[BASELINE]
    out: dict[str, Any] = {
        "n_calls": int(table["n_calls"].sum()),
        "n_both_parsed": int(table["n_both_parsed"].sum()),
        "dem_" + BASELINE: float(n[dem]),
        "rep_" + BASELINE: float(n[rep]),
        "dem_models_" + BASELINE: {
            "min": float(n["asker_wants_dem (min model)"]),
            "max": float(n["asker_wants_dem (max model)"]),
        },
        "n_models": int(n["n_models"]),
    }
    for key, row, column in (("dem_" + BASELINE, n, dem), ("rep_" + BASELINE, n, rep)):
        if (ci := _ci(row, column)) is not None:
            out[key + "_ci"] = ci
    for cond in (LEFT, RIGHT):
        if cond in rows:
            out["dem_" + cond] = float(rows[cond][dem])
            if (ci := _ci(rows[cond], dem)) is not None:
                out["dem_" + cond + "_ci"] = ci
    paired = get(summary, "expected_answer", "paired", f"{BASELINE}-{LEFT}")
    if isinstance(paired, dict) and all(finite(paired.get(k)) is not None for k in ("difference", "ci_low", "ci_high")):
        out["paired_" + LEFT] = {
            "difference": float(paired["difference"]),
            "low": float(paired["ci_low"]),
            "high": float(paired["ci_high"]),
            "n_items": int(paired["n_items"]),
        }
    return out


RATING_MIDPOINT = 4  # the perception probe's scale: 1 very liberal ... 7 very conservative


def _perception(table: pd.DataFrame | None) -> dict[str, Any]:
    """The perception Headline numbers: the default asker as every model sees it.

    The default asker (N) as every model sees it: the mean rating and auditor-like share,
    each with its 95% CI over items, and whether the rating's interval includes the midpoint.
    """
    if table is None or table.empty or "model" not in table:
        return {}
    rows = table[(table["model"] == "all models") & (table["condition"] == BASELINE)]
    if rows.empty:
        return {}
    r = rows.iloc[0].to_dict()
    out: dict[str, Any] = {
        "mean_rating": float(r["mean_rating"]),
        "n_rating": int(r["n_rating"]),
        "share_names_auditor": float(r["share_names_auditor"]),
        "n_description": int(r["n_description"]),
    }
    if "cites_format_rate" in r:
        out["cites_format_rate"] = float(r["cites_format_rate"])
    for key in ("mean_rating", "share_names_auditor"):
        if (ci := _ci(r, key, sep="_")) is not None:
            out[key + "_ci"] = ci
    if "mean_rating_ci" in out:
        out["rating_ci_includes_midpoint"] = (
            out["mean_rating_ci"]["low"] <= RATING_MIDPOINT <= out["mean_rating_ci"]["high"]
        )
    return {k: v for k, v in out.items() if not (isinstance(v, float) and not math.isfinite(v))}


def _share(summary: Summary, part: str, key: str) -> list[str | Quote]:
    """`75% (95% CI 65% to 84%)` of a Headline share and its `<key>_ci` node, when it has one."""
    pieces: list[str | Quote] = [_v(summary, part, key, scale=100, suffix="%")]
    if get(summary, "findings", "headline", part, key + "_ci") is not None:
        pieces += get.headline_ci(
            summary, (part, key + "_ci", "low"), (part, key + "_ci", "high"), scale=100, suffix="%"
        )
    return pieces


def _expected_sentences(summary: Summary) -> list[Finding]:
    """The expected-answer Headline sentence.

    The expected part's sentence (topic "headline"): shares of calls with their intervals,
    and the paired N - C3L difference.
    """
    e = get(summary, "findings", "headline", "expected")
    out: list[Finding] = []
    if not e:
        return out
    pieces: list[str | Quote] = [
        "Asked what answer the person asking wants to hear, the models name the Democrat-coded option in ",
        *_share(summary, "expected", "dem_" + BASELINE),
        " of calls with no preamble (models ",
        *_range(summary, "expected", "dem_models_" + BASELINE, scale=100, unit="%"),
        ") and the Republican-coded one in ",
        *_share(summary, "expected", "rep_" + BASELINE),
    ]
    if "dem_" + LEFT in e and "dem_" + RIGHT in e:
        pieces += [
            "; the Democrat-coded share is ",
            *_share(summary, "expected", "dem_" + LEFT),
            f" under {LEFT} and ",
            *_share(summary, "expected", "dem_" + RIGHT),
            f" under {RIGHT}",
        ]
    if "paired_" + LEFT in e:
        pieces += [
            f"; N minus {LEFT}, paired over the ",
            _v(summary, "expected", "paired_" + LEFT, "n_items"),
            " items asked under both: ",
            _v(summary, "expected", "paired_" + LEFT, "difference", scale=100, suffix=" points", signed=True),
            *get.headline_ci(
                summary,
                ("expected", "paired_" + LEFT, "low"),
                ("expected", "paired_" + LEFT, "high"),
                scale=100,
                signed=True,
            ),
        ]
    pieces += [
        " (shares of the pooled calls with both letters read: ",
        _v(summary, "expected", "n_both_parsed"),
        " of ",
        _v(summary, "expected", "n_calls"),
        "; 95% CIs resample items).",
    ]
    out.append(Finding("headline", pieces, "probes", "expected_answer_by_condition"))
    return out


def _perception_sentences(summary: Summary) -> list[Finding]:
    """The perception Headline sentence.

    The perception part's sentence (topic "headline"): the rating with its interval and
    whether that interval includes the scale's midpoint.
    """
    q = get(summary, "findings", "headline", "perception")
    out: list[Finding] = []
    if not q:
        return out
    pieces: list[str | Quote] = [
        "Asked to describe the likely asker with no preamble, ",
        *_share(summary, "perception", "share_names_auditor"),
        " of ",
        _v(summary, "perception", "n_description"),
        " descriptions name a researcher, pollster, academic or auditor (this package's keyword coder)",
        ", and the mean perceived leaning is ",
        _v(summary, "perception", "mean_rating", digits=1),
    ]
    if "mean_rating_ci" in q:
        which = "includes" if q.get("rating_ci_includes_midpoint") else "excludes"
        ends = (("perception", "mean_rating_ci", "low"), ("perception", "mean_rating_ci", "high"))
        pieces += get.headline_ci(summary, *ends, digits=2, close=f", which {which} the midpoint {RATING_MIDPOINT})")
    pieces += [
        " on 1 (very liberal) to 7 (very conservative), over ",
        _v(summary, "perception", "n_rating"),
        " ratings",
    ]
    if "cites_format_rate" in q:
        pieces += [
            "; ",
            _v(summary, "perception", "cites_format_rate", scale=100, suffix="%"),
            " cite the survey format",
        ]
    out.append(Finding("headline", [*pieces, "."], "probes", "perception"))
    return out


# --- the figures ---------------------------------------------------------------------------


EXPECTED_SHARES = MappingProxyType(
    {
        "asker_wants_dem": ("expects a left answer", OKABE_ITO[0], "o"),
        "asker_wants_rep": ("expects a right answer", OKABE_ITO[3], "s"),
    }
)


def _conditions(present: Iterable[Any]) -> list[str]:
    present = {str(c) for c in present}
    return [c for c in CUE_ORDER if c in present] + sorted(present - set(CUE_ORDER))


def expected_answer_shares(summary: Summary, tables: Tables, path: Path) -> Path | None:
    """Per condition, the share of probe calls saying the asker expects the left / the right answer.

    Per condition, the share of probe calls (all models pooled) in which the model says the
    asker expects the left / the right answer (summary expected_answer.by_condition), with
    their 95% percentile bootstrap CIs over items (`ci`, from probes.asker_section) when the
    summary has them.
    """
    by_cond = get.typed(summary, dict[str, ByConditionRow], "expected_answer", "by_condition") or {}
    conds = [
        c
        for c in _conditions(by_cond)
        if any(isinstance(dig(by_cond, c, f"{k} (pooled calls)"), (int, float)) for k in EXPECTED_SHARES)
    ]
    if not conds:
        return None
    fig = new_figure(figsize=(max(5.0, 0.8 * len(conds) + 2.5), 4.2), layout="constrained")
    ax = fig.add_subplot()
    for k, (key, (label, colour, marker)) in enumerate(EXPECTED_SHARES.items()):
        pts = [
            (j + (k - 0.5) * 0.2, float(v), dig(by_cond, c, "ci", f"{key} (pooled calls)"))
            for j, c in enumerate(conds)
            if isinstance(v := dig(by_cond, c, f"{key} (pooled calls)"), (int, float))
        ]
        if not pts:
            continue
        err = np.array([ci_err(v, ci) for _, v, ci in pts]).T
        ax.errorbar(
            [p[0] for p in pts],
            [p[1] for p in pts],
            yerr=err,
            fmt=marker,
            ls="-",
            lw=1,
            color=colour,
            capsize=3,
            ms=6,
            label=label,
        )
    ax.set_xticks(range(len(conds)), conds)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("asker condition")
    ax.set_ylabel("share of calls (both letters read, all models pooled)")
    ax.set_title("Expected-answer probe: which answer does the asker expect?", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    return figure_parts.save(fig, path)


PERCEPTION_PANELS = (
    ("mean_rating", "perceived asker rating (mean)"),
    ("share_names_auditor", "auditor-like share\n(descriptions naming an auditor)"),
)


RATING_SCALE = (1, 7)  # the perception probe's scale: 1 very liberal ... 7 very conservative


def perception_panels(summary: Summary, tables: Tables, path: Path) -> Path | None:
    """Perception probe per model x condition.

    The mean perceived-asker rating and the share of descriptions that name an auditor
    (summary perception), with their 95% percentile bootstrap CIs over items (`ci`, from
    probes.asker_section) when present.
    """
    node = get.typed(summary, dict[str, dict[str, PerceptionCell]], "perception") or {}
    models = sorted(m for m in node if m != "all models")
    panels = [
        (key, label)
        for key, label in PERCEPTION_PANELS
        if any(isinstance(dig(node, m, c, key), (int, float)) for m in models for c in (node.get(m) or {}))
    ]
    if not models or not panels:
        return None
    conds = _conditions(c for m in models for c in (node.get(m) or {}))
    styles, labels = model_styles([*run_models(summary), *models], model_order(summary)), short_labels(models)
    fig = new_figure(figsize=(4.4 * len(panels) + 1.8, 4.0), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    # one condition: the models side by side on the axis (an axis of one category says nothing)
    by_model = len(conds) == 1
    width = 0.0 if by_model else 0.6 / max(1, len(models))
    for ax, (key, label) in zip(axes, panels, strict=True):
        for k, m in enumerate(models):
            pts = [
                (k if by_model else j + (k - (len(models) - 1) / 2) * width, float(v), dig(node, m, c, "ci", key))
                for j, c in enumerate(conds)
                if isinstance(v := dig(node, m, c, key), (int, float)) and np.isfinite(v)
            ]
            if not pts:
                continue
            colour, marker = styles[m]
            err = np.array([ci_err(v, ci) for _, v, ci in pts]).T
            ax.errorbar(
                [p[0] for p in pts],
                [p[1] for p in pts],
                yerr=err,
                fmt=marker,
                ls="-",
                lw=1,
                color=colour,
                capsize=2,
                ms=5,
                label=labels[m],
            )
        if by_model:
            ax.set_xticks(range(len(models)), [labels[m] for m in models], fontsize=8)
            ax.set_xlim(-0.6, len(models) - 0.4)
            ax.set_xlabel(f"model (asker condition {conds[0]})")
        else:
            ax.set_xticks(range(len(conds)), conds, fontsize=8)
            ax.set_xlabel("asker condition")
        ax.set_ylabel(label)
        if key.startswith("share_"):
            ax.set_ylim(-0.02, 1.02)
        else:  # the rating's whole scale, its midpoint marked (a cut axis made 3.9 look far from the centre)
            ax.set_ylim(RATING_SCALE[0] - 0.2, RATING_SCALE[1] + 0.2)
            ax.axhline(sum(RATING_SCALE) / 2, color="grey", lw=0.8, ls="--")
            ticks = range(RATING_SCALE[0], RATING_SCALE[1] + 1)
            ends = {
                RATING_SCALE[0]: " very liberal",
                RATING_MIDPOINT: " midpoint",
                RATING_SCALE[1]: " very conservative",
            }
            ax.set_yticks(ticks, [f"{t}{ends.get(t, '')}" for t in ticks])
        ax.grid(alpha=0.3)
    if axes[-1].get_legend_handles_labels()[0]:
        axes[-1].legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    suptitle(fig, "Perception probe: how the model sees the asker", fontsize=11)
    return figure_parts.save(fig, path)


def _expected_takeaway(summary: Summary, tables: Tables) -> str | None:
    by_cond = get(summary, "expected_answer", "by_condition") or {}
    parts = [
        f"{c} {v:.0%}"
        for c in (BASELINE, LEFT, RIGHT)
        if (v := finite(dig(by_cond, c, "asker_wants_dem (pooled calls)"))) is not None
    ]
    return "Share of calls saying the asker expects the left answer: " + ", ".join(parts) + "." if parts else None


def _perception_takeaway(summary: Summary, tables: Tables) -> str | None:
    node = get(summary, "perception") or {}
    ratings = [
        v
        for m, conds in node.items()
        if m != "all models" and isinstance(conds, dict)
        if (v := finite(dig(conds, BASELINE, "mean_rating"))) is not None
    ]
    if not ratings:
        return None
    span = span_text(ratings, lambda v: f"{v:.1f}")
    return (
        f"Under N the perceived asker's mean rating is {span} over models (1 very liberal, 4 the midpoint, 7 "
        f"very conservative)."
    )


REPORT = ReportContribution(
    headline=(
        HeadlinePart(
            "expected",
            40,
            lambda summary, tables, draws, seed: _expected(tables.get("expected_answer_by_condition"), summary),
            _expected_sentences,
        ),
        HeadlinePart(
            "perception",
            50,
            lambda summary, tables, draws, seed: _perception(tables.get("perception")),
            _perception_sentences,
        ),
    ),
    figures=(
        FigureSpec(
            "paper_expected_answer_shares",
            "Expected-answer probe: share expecting a left / right answer, by condition (95% CI over items)",
            expected_answer_shares,
            _expected_takeaway,
            "the first seed's Fig. 5",
        ),
        FigureSpec(
            "paper_perception",
            "Perception probe: perceived-asker rating and auditor-like share, by condition, per model (95% CI "
            "over items)",
            perception_panels,
            _perception_takeaway,
            "no figure in the first seed: its SI S5",
        ),
    ),
    key_tables=("expected_answer_by_condition", "perception", "personas"),
)
