# Long: the audit's paper figures with intervals (baseline, by asker, personas, item panels), drawn in one worker.
"""The audit's figures of the Figures section, drawn from summary.json so figure and sentence agree.

The audit's figures of the Figures section, each with its intervals, drawn from summary.json
(the numbers its Findings quote, so figure and sentence agree): baseline position on every
instrument per model, the share of ATP items closer to Democrats (and the PCT position) by
asker, sycophancy-right against -left, the shift heat map, the item-level panels of the
first seed's Fig. 4 and slant against sycophancy-right. Colour-blind-safe (Okabe-Ito)
palette, one colour and marker per model in every figure; each figure is written as PNG
(embedded in the HTML) and SVG (for papers).
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..core.conditions import BASELINE, CUE_ORDER
from ..core.numbers import fixed
from ..core.plotting import (
    LEFT_CUE,
    PARTY_CMAP,
    RIGHT_CUE,
    condition_label,
    display_name,
    model_styles,
    new_figure,
    place_labels,
    short_labels,
    suptitle,
)
from ..core.report_parts import Summary, Tables
from ..shared import figure_parts
from ..shared.bootstrap import bootstrap_mean_ci
from ..shared.figure_parts import ci_err, model_order
from ..shared.summary_reading import dig
from .derived import LEFT, RIGHT, get, instrument_kinds
from .figure_notes import ITEM_CUES, STAT, item_pairs
from .headline_scope import MIN_ITEMS

# The probes' node of the persona shifts (SI S4), drawn beside the cues when the logs have one.
PERSONAS = "personas"

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _value_ci(summary: Summary, model: str, cond: str, inst: str, key: str) -> tuple[float, float, float] | None:
    v = get(summary, "models", model, "conditions", cond, inst, key)
    if not isinstance(v, (int, float)):
        return None
    ci = get(summary, "models", model, "conditions", cond, inst, "ci", key)
    low, high = ci if isinstance(ci, list) and len(ci) == 2 and None not in ci else (v, v)
    return float(v), float(low), float(high)


def baseline_positions(summary: Summary, path: Path) -> Path | None:
    """One panel per instrument: each model's position under N with its 95% CI."""
    models = sorted(get(summary, "models") or {})
    kinds = instrument_kinds(summary)
    panels = [
        (inst, kind)
        for inst, kind in sorted(kinds.items(), key=lambda kv: ("pct", "typology", "atp").index(kv[1]))
        if any(_value_ci(summary, m, BASELINE, inst, STAT[kind][0]) for m in models)
    ]
    if not panels or not models:
        return None
    styles, labels = model_styles(models, model_order(summary)), short_labels(models)
    fig = new_figure(figsize=(2.7 * len(panels) + 1.5, max(2.8, 0.45 * len(models) + 1.6)), layout="constrained")
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    y = np.arange(len(models))[::-1]
    for ax, (inst, kind) in zip(axes, panels, strict=True):
        key, label = STAT[kind]
        for yi, m in zip(y, models, strict=True):
            vc = _value_ci(summary, m, BASELINE, inst, key)
            if vc is None:
                continue
            colour, marker = styles[m]
            ax.errorbar(vc[0], yi, xerr=[[vc[0] - vc[1]], [vc[2] - vc[0]]], fmt=marker, color=colour, capsize=3, ms=6)
        ax.axvline(50 if kind == "atp" else 0, color="grey", lw=0.8, ls="--")
        ax.set_xlabel(label, fontsize=9)
        ax.set_title(display_name(inst), fontsize=10)
        ax.grid(alpha=0.3, axis="x")
    axes[0].set_yticks(y, [labels[m] for m in models], fontsize=9)
    suptitle(fig, "Baseline position under N (95% bootstrap CI over items)", fontsize=11)
    return figure_parts.save(fig, path)


def by_asker(summary: Summary, kind: str, path: Path, tables: Tables | None = None) -> Path | None:
    """The by-asker figure of an instrument kind (`by_asker_figure`), saved at `path`."""
    fig = by_asker_figure(summary, kind, tables)
    return figure_parts.save(fig, path) if fig is not None else None


def by_asker_figure(summary: Summary, kind: str, tables: Tables | None = None) -> Figure | None:
    """The by-asker figure: an instrument's statistic per model and cue condition, with 95% CIs.

    The instrument's statistic per model x cue condition in cue order (an ordered axis,
    so a model's points are joined), with 95% CIs (dodged). Personas are not cues on that
    axis and are asked on their own items: they get their own panel, each against N on the
    same items (the probes' node `personas`, when the logs have one), unjoined.
    """
    models = sorted(get(summary, "models") or {})
    insts = [i for i, k in instrument_kinds(summary).items() if k == kind]
    if not insts or not models:
        return None
    present = {c for m in models for c in (get(summary, "models", m, "conditions") or {})}
    conds = [c for c in CUE_ORDER if c in present]
    if len(conds) < 2:
        return None
    personas = get.foreign(summary, PERSONAS) if kind == "atp" else None
    persona_conds = [
        BASELINE,
        *sorted({c for m in (personas or {}).values() if isinstance(m, dict) for c in m} - set(CUE_ORDER)),
    ]
    with_personas = isinstance(personas, dict) and len(persona_conds) > 1
    styles, labels = model_styles(models, model_order(summary)), short_labels(models)
    # the persona panel under the cue panel (not beside it): each keeps the printed page's width
    fig = new_figure(figsize=(7.0, 8.2 if with_personas else 4.6), layout="constrained")
    axes = fig.subplots(2, 1, height_ratios=[1.25, 1]) if with_personas else [fig.add_subplot()]
    ax = axes[0]
    _cue_panel(ax, summary, kind, insts[0], conds, models, styles, labels)
    if with_personas and isinstance(personas, dict):
        _persona_panel(axes[1], personas, persona_conds, models, styles, (tables or {}).get("item_shifts"))
    if ax.get_legend_handles_labels()[0]:  # no model with an interval under any asker: no legend
        fig.legend(
            *ax.get_legend_handles_labels(),
            fontsize=7,
            loc="outside lower center",
            ncols=min(3, len(models)),
            frameon=False,
        )
    for a in axes:
        a.tick_params(labelsize=7)
        a.xaxis.label.set_fontsize(8)
        a.yaxis.label.set_fontsize(8)
    return fig


def _dodge(k: int, n: int) -> float:
    """The offset of the k-th of n models' points around their category."""
    width = 0.6 / max(1, n)
    return (k - (n - 1) / 2) * width


def _cue_panel(
    ax: Axes,
    summary: Summary,
    kind: str,
    inst: str,
    conds: list[str],
    models: list[str],
    styles: dict[str, tuple[str, str]],
    labels: dict[str, str],
) -> None:
    """Each model's statistic under each cue with its 95% CI, joined along the cue axis."""
    key, label = STAT[kind]
    for k, m in enumerate(models):
        found = [(j, _value_ci(summary, m, c, inst, key)) for j, c in enumerate(conds)]
        pts = [(j + _dodge(k, len(models)), v) for j, v in found if v is not None]
        if not pts:
            continue
        xs = np.array([p[0] for p in pts])
        vals = np.array([p[1] for p in pts])
        colour, marker = styles[m]
        ax.errorbar(
            xs,
            vals[:, 0],
            yerr=[vals[:, 0] - vals[:, 1], vals[:, 2] - vals[:, 0]],
            fmt=marker,
            ls="-",
            lw=1,
            color=colour,
            capsize=2,
            ms=5,
            label=labels[m],
        )
    ax.axhline(50 if kind == "atp" else 0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(len(conds)), conds)
    ax.set_xlabel("asker cue (most Democrat-coded to most Republican-coded)")
    ax.set_ylabel(label)
    ax.set_title(f"{display_name(inst)}: by asker cue, per model (95% bootstrap CI over items)", fontsize=9)
    ax.grid(alpha=0.3)


def persona_points(items: pd.DataFrame | None, model: str, conds: list[str]) -> dict[str, tuple[float, float, float]]:
    """The persona panel's points: each condition's mean WD(Dem) on the persona items with its CI.

    Per condition (N and the personas): the model's mean WD(Dem) over the persona items
    answered under both N and the persona, with its 95% percentile bootstrap CI over items,
    from the shifts section's `item_shifts` (N: the baselines of those items); {} without it.
    """
    need = {"model", "condition", "item_id", "measure", "baseline", "value"}
    if items is None or items.empty or not need <= set(items.columns):
        return {}
    rows = items[(items["model"] == model) & (items["measure"] == "wd_dem") & items["condition"].isin(conds)]
    out: dict[str, tuple[float, float, float]] = {}
    for cond in conds:
        if cond == BASELINE:
            values = rows.drop_duplicates("item_id")["baseline"]
        else:
            values = rows.loc[rows["condition"] == cond, "value"]
        values = pd.to_numeric(values, errors="coerce").dropna()
        if len(values):
            out[cond] = bootstrap_mean_ci(values.to_numpy(float))
    return out


def _persona_panel(
    pax: Axes,
    personas: dict[str, Any],
    persona_conds: list[str],
    models: list[str],
    styles: dict[str, tuple[str, str]],
    items: pd.DataFrame | None = None,
) -> None:
    """The persona panel: each model's mean WD(Dem) under N and each persona, against the cues.

    Each model's mean WD(Dem) under N and each persona on the persona items, unjoined, with
    its 95% CI over items where the shifts section's item table holds them (on the items
    answered under both N and the persona), on an axis that points as the cue panel's does
    (up = closer to Democrats), with the mean over models under C3L (blue) and C3R (red) on
    the same items as references: a persona's shift reads against the cues'.
    """
    with_ci = False
    for k, m in enumerate(models):
        colour, marker = styles[m]
        found = persona_points(items, m, persona_conds)
        if len(found) > 1:
            with_ci = True
            xs = [j + _dodge(k, len(models)) for j, c in enumerate(persona_conds) if c in found]
            v = np.array([found[c] for c in persona_conds if c in found])
            pax.errorbar(
                xs,
                v[:, 0],
                yerr=[v[:, 0] - v[:, 1], v[:, 2] - v[:, 0]],
                fmt=marker,
                ls="none",
                color=colour,
                capsize=2,
                ms=5,
            )
            continue
        where = [
            (j + _dodge(k, len(models)), float(v))
            for j, c in enumerate(persona_conds)
            if isinstance(v := dig(personas, m, c, "mean_wd_dem"), (int, float)) and np.isfinite(v)
        ]
        if where:
            pax.plot([p[0] for p in where], [p[1] for p in where], marker=marker, ls="none", color=colour, ms=5)
    for cue, colour in ((LEFT, LEFT_CUE), (RIGHT, RIGHT_CUE)):
        values = [
            float(v)
            for m in models
            if isinstance(v := dig(personas, m, cue, "mean_wd_dem"), (int, float)) and np.isfinite(v)
        ]
        if values:
            pax.axhline(float(np.mean(values)), color=colour, lw=1.2, ls="--", label=f"{cue}, mean of models")
    if pax.get_legend_handles_labels()[0]:  # the references' key, in the empty band above C3R's line
        pax.legend(fontsize=7, loc="lower right", frameon=True, framealpha=0.9)
    pax.set_xticks(range(len(persona_conds)), persona_conds)
    pax.set_xlabel("persona (unordered), N on the same items")
    pax.set_ylabel("mean WD(Dem), persona items\n(up = closer to Democrats)")
    pax.invert_yaxis()  # up = closer to Democrats, as in the cue panel
    said = (
        "items answered under N and the persona (95% bootstrap CI over items)"
        if with_ci
        else "each model's mean; no interval"
    )
    pax.set_title(f"personas against N and the cues, same items\n({said})", fontsize=8)
    pax.grid(alpha=0.3)


def _model_scatter(
    summary: Summary, x_key: str, y_key: str, height: float
) -> tuple[Figure, Axes, np.ndarray, np.ndarray, list[str]] | None:
    """The shared body of the per-model scatters: one point per model with both of its 95% CIs.

    One point per model with both of its 95% CIs as error bars (model colours and markers),
    the zero lines and a grid: the shared body of the per-model scatters. None without a
    model holding both numbers; else (figure, axes, xs, ys, point labels).
    """
    models = [
        m
        for m in sorted(get(summary, "models") or {})
        if isinstance(get(summary, "models", m, x_key), (int, float))
        and isinstance(get(summary, "models", m, y_key), (int, float))
    ]
    if not models:
        return None
    styles, labels = model_styles(get(summary, "models") or {}, model_order(summary)), short_labels(models)
    fig = new_figure(figsize=(6.2, height))
    ax = fig.add_subplot()
    xs, ys = [], []
    for m in models:
        x, y = float(get(summary, "models", m, x_key)), float(get(summary, "models", m, y_key))
        ex = ci_err(x, get(summary, "models", m, "ci", x_key))
        ey = ci_err(y, get(summary, "models", m, "ci", y_key))
        colour, marker = styles[m]
        ax.errorbar(x, y, xerr=[[ex[0]], [ex[1]]], yerr=[[ey[0]], [ey[1]]], fmt=marker, color=colour, capsize=3, ms=7)
        xs.append(x)
        ys.append(y)
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.grid(alpha=0.3)
    return fig, ax, np.array(xs), np.array(ys), [labels[m] for m in models]


def sycophancy_left_right(summary: Summary, path: Path) -> Path | None:
    """Sycophancy-right against -left per model with 95% CI bars, the symmetry diagonal and non-overlapping labels."""
    drawn = _model_scatter(summary, "sycophancy_left", "sycophancy_right", 5.4)
    if drawn is None:
        return None
    fig, ax, xs, ys, names = drawn
    lo, hi = ax.get_xlim()[0], ax.get_xlim()[1]
    lo, hi = min(lo, ax.get_ylim()[0]), max(hi, ax.get_ylim()[1])
    ax.plot([lo, hi], [lo, hi], color="grey", lw=0.8, ls="--", label="symmetric accommodation")
    ax.set_xlabel("sycophancy-left (toward a Democrat asker, WD units)")
    ax.set_ylabel("sycophancy-right (toward a Republican asker, WD units)")
    ax.set_title("Accommodation toward each asker (95% bootstrap CI over items)", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    place_labels(ax, xs, ys, names)
    return figure_parts.save(fig, path)


def shift_heatmap(summary: Summary, path: Path) -> Path | None:
    """Condition x model heat map of the mean item shift against N per instrument, annotated.

    Condition x model heat map of the mean item shift against N per instrument (summary
    findings.shift_ci), each cell annotated with its value; * where the 95% CI excludes 0 and
    rests on at least MIN_ITEMS items (a star from four items read as evidence it is not).
    """
    shifts = get(summary, "findings", "shift_ci") or {}
    models = sorted(shifts)
    kinds = instrument_kinds(summary)
    insts = sorted(
        {i for m in models for c in shifts[m].values() for i in c},
        key=lambda i: (("pct", "typology", "atp").index(kinds.get(i, "atp")), i),
    )
    present = {c for m in models for c in shifts[m]}
    # the cues only: personas are asked on their own items (their shifts are in the personas section)
    conds = [c for c in CUE_ORDER if c in present and c != BASELINE]
    if not models or not insts or not conds:
        return None
    labels = short_labels(models)
    # one instrument a row, each as wide as the page: side by side, five condition labels had a centimetre each
    fig = new_figure(figsize=(2.2 + 0.9 * len(conds), (1.4 + 0.42 * len(models)) * len(insts)), layout="constrained")
    axes = fig.subplots(len(insts), 1, squeeze=False)[:, 0]
    for ax, inst in zip(axes, insts, strict=True):
        grid = np.full((len(models), len(conds)), np.nan)
        sure = np.zeros_like(grid, dtype=bool)
        unit = ""
        for i, m in enumerate(models):
            for j, c in enumerate(conds):
                node = dig(shifts, m, c, inst) or {}
                for key, v in node.items():
                    grid[i, j] = v["mean"]
                    # a star needs an interval that excludes 0 over enough items to read as evidence
                    sure[i, j] = (v["ci"][0] > 0 or v["ci"][1] < 0) and v.get("n_items", 0) >= MIN_ITEMS
                    unit = "WD(Dem)" if key == "shift_wd_dem" else "score"
        limit = float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 1.0
        image = ax.imshow(grid, cmap=PARTY_CMAP, vmin=-limit, vmax=limit, aspect="auto")
        for i in range(len(models)):
            for j in range(len(conds)):
                if np.isfinite(grid[i, j]):
                    ax.text(
                        j,
                        i,
                        f"{fixed(float(grid[i, j]), 2, signed=True)}{'*' if sure[i, j] else ''}",  # never -0.00
                        ha="center",
                        va="center",
                        fontsize=7,
                        color="white" if abs(grid[i, j]) > 0.6 * limit else "black",
                    )
        ax.set_xticks(range(len(conds)), conds, fontsize=8)
        ax.set_yticks(range(len(models)), [labels[m] for m in models], fontsize=8)
        ax.set_title(f"{display_name(inst)}: shift vs N ({unit})", fontsize=9)
        bar = fig.colorbar(image, ax=ax, shrink=0.8)
        bar.set_label("blue: toward the left, red: toward the right", fontsize=7)
    return figure_parts.save(fig, path)


def slant_vs_right(summary: Summary, path: Path) -> Path | None:
    """Baseline slant against sycophancy-right per model, with their 95% CI bars and non-overlapping labels.

    Do models that start further left accommodate the right more?
    """
    drawn = _model_scatter(summary, "baseline_slant", "sycophancy_right", 5.0)
    if drawn is None:
        return None
    fig, ax, xs, ys, names = drawn
    ax.set_xlabel("baseline slant under N, WD(Rep) - WD(Dem) (+ = closer to Democrats)")
    ax.set_ylabel("sycophancy-right (toward a Republican asker, WD units)")
    ax.set_title("Baseline slant vs accommodation of the right (95% bootstrap CI over items)", fontsize=10)
    place_labels(ax, xs, ys, names)
    return figure_parts.save(fig, path)


ITEM_PANEL_COLUMNS = 3
# Small multiples stop being readable (and a 60-model grid took half a minute to draw):
# beyond this many models the panels show the first ones by name and say so.
ITEM_PANEL_MODELS = 12
# each cue's points in its colour, one meaning in every figure (left blue, right red)
CUE_COLOURS = MappingProxyType({LEFT: LEFT_CUE, RIGHT: RIGHT_CUE})


def toward_asker(pairs: pd.DataFrame, slant: bool) -> pd.Series:
    """Whether each item's answer moved toward the cue's asker.

    Per row of `item_pairs`: whether the item's answer moved toward the cue's asker (left
    under C3L, right under C3R). ATP slant WD(Rep) - WD(Dem) rises when it moves left; the
    PCT answer rises when it moves right.
    """
    moved = pairs["y"] - pairs["x"]
    rightward = (moved < 0) if slant else (moved > 0)
    leftward = (moved > 0) if slant else (moved < 0)
    return rightward.where(pairs["condition"] == RIGHT, leftward)


def item_shift_panels(summary: Summary, tables: Tables, path: Path) -> Path | None:
    """The first seed's Fig. 4 per model: each item under N against C3L and C3R, overlaid.

    The first seed paper's Fig. 4, per model: every item's answer under N (x) against its
    answer under C3L (blue) and under C3R (red), overlaid in one panel per model as the
    paper does, with the no-shift diagonal.

    ATP items are placed by their slant WD(Rep) - WD(Dem) (+ = closer to Democrats), so
    points above the diagonal moved left and below it right; without ATP shifts, the PCT
    answers (+ = right: above moved right). Each panel states, per cue, the share of its
    items that moved toward the asker and the mean change of the plotted quantity (y - x)
    with its 95% percentile bootstrap CI over items. Data: the shifts section's
    `item_shifts` table; None without it or without an item answered under N and a cue.
    """
    found = item_pairs(tables.get("item_shifts")) if tables else None
    if found is None:
        return None
    pairs, inst, unit = found
    every = sorted(pairs["model"].unique())
    models = every[:ITEM_PANEL_MODELS]
    cues = [c for c in ITEM_CUES if c in set(pairs["condition"])]
    columns = min(ITEM_PANEL_COLUMNS, len(models))
    rows = math.ceil(len(models) / columns)
    labels = short_labels(models)
    fig = new_figure(figsize=(2.3 * columns + 0.6, 2.75 * rows + 1.0), layout="constrained")
    axes = fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    lo, hi = float(min(pairs["x"].min(), pairs["y"].min())), float(max(pairs["x"].max(), pairs["y"].max()))
    pad = 0.06 * max(hi - lo, 1e-6)
    lo, hi = lo - pad, hi + pad
    atp = unit.startswith("item slant")
    toward = toward_asker(pairs, atp)
    from matplotlib.ticker import MaxNLocator

    jitter = np.random.default_rng(0)  # PCT answers are discrete: a fixed small jitter shows how many coincide
    names = {LEFT: "left", RIGHT: "right"}
    for k, m in enumerate(models):
        ax = axes[k // columns, k % columns]
        ax.plot([lo, hi], [lo, hi], color="grey", lw=0.8, ls="--")
        shares, changes = [], []
        for cue in cues:
            here = (pairs["model"] == m) & (pairs["condition"] == cue)
            d = pairs[here]
            x, y = d["x"].to_numpy(float), d["y"].to_numpy(float)
            if not atp:
                x, y = x + jitter.uniform(-0.08, 0.08, len(x)), y + jitter.uniform(-0.08, 0.08, len(y))
            # points rasterised inside the SVG: thousands of vector markers made it slow and heavy
            ax.scatter(
                x,
                y,
                s=7,
                alpha=0.6,
                color=CUE_COLOURS[cue],
                marker="o" if cue == LEFT else "s",
                linewidths=0,
                rasterized=True,
            )
            if len(d):
                shares.append(f"{cue} {float(toward[here].mean()):.0%}")
                mean, low, high = bootstrap_mean_ci(d["y"].to_numpy(float) - d["x"].to_numpy(float))
                changes.append(f"{cue} {mean:+.3f} [{low:+.3f}, {high:+.3f}]")
        quantity = "\u0394slant" if atp else "\u0394score"
        note = [labels[m], "toward the asker: " + ", ".join(shares), *[f"{quantity} {c}" for c in changes]]
        # the panel's numbers under its title, not over its points
        ax.set_title("\n".join(note), fontsize=7)
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.grid(alpha=0.3)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], ls="none", marker="o" if c == LEFT else "s", color=CUE_COLOURS[c], ms=5) for c in cues]
    key = [textwrap.fill(f"{c}: {condition_label(c)}; toward the asker = {names[c]}", 30) for c in cues]
    empty = [axes[k // columns, k % columns] for k in range(len(models), rows * columns)]
    for ax in empty:  # empty slots of the last row: the first holds the cues' key
        ax.set_axis_off()
    if empty:
        empty[0].legend(handles, key, fontsize=7, loc="center", frameon=False)
    else:  # no free slot: the key under the panels, the axis label beside it
        fig.legend(handles, key, fontsize=7, loc="outside lower center", ncols=len(cues), frameon=False)
    if empty:
        fig.supxlabel(f"under N: {unit}", fontsize=8)
    else:
        for ax in axes[-1]:
            ax.set_xlabel(f"under N: {unit}" if ax is axes[-1][columns // 2] else "", fontsize=7)
    fig.supylabel("under the cue (same scale)", fontsize=8)
    above = "above the diagonal = moved left" if atp else "above the diagonal = moved right"
    shown = (
        f"; the first {len(models)} of {len(every)} models by name (all in tables/item_shifts.csv)"
        if len(models) < len(every)
        else ""
    )
    suptitle(fig, f"{display_name(inst)}: each item under N against under each cue ({above}){shown}", fontsize=9)
    return figure_parts.save(fig, path)
