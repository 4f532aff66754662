"""The paper's headline figures, each with its intervals, drawn from summary.json.

Pure functions of the summary (the numbers the Findings quote, so figure and sentence
agree): baseline position on every instrument per model, the share of ATP items closer to
Democrats (and the PCT position) by asker with bootstrap CIs, and sycophancy-right against
-left with CI bars and labels that do not overlap. Colour-blind-safe (Okabe-Ito) palette,
one colour and marker per model in every figure; each figure is written as PNG (embedded
in the HTML) and SVG (for papers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core.conditions import BASELINE, CUE_ORDER
from ..core.plotting import OKABE_ITO, model_styles, new_figure, place_labels, save_figure, short_labels, suptitle
from .figure_notes import ITEM_CUES, STAT, item_pairs, numbered
from .findings import dig, get, instrument_kinds
from .sections import Section

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _save(fig: Figure, path: Path) -> Path:
    return save_figure(fig, path, svg=True)


def _order(summary: dict) -> list[str]:
    """Every model of the run (summary `model_order`, written by the report from the frame),
    so each figure colours a model as every other figure and section figure does."""
    order = get(summary, "model_order")
    return [str(m) for m in order] if isinstance(order, list) else []


def _value_ci(summary: dict, model: str, cond: str, inst: str, key: str) -> tuple[float, float, float] | None:
    v = get(summary, "models", model, "conditions", cond, inst, key)
    if not isinstance(v, (int, float)):
        return None
    ci = get(summary, "models", model, "conditions", cond, inst, "ci", key)
    low, high = (ci if isinstance(ci, list) and len(ci) == 2 and None not in ci else (v, v))
    return float(v), float(low), float(high)


def baseline_positions(summary: dict, path: Path) -> Path | None:
    """One panel per instrument: each model's position under N with its 95% CI."""
    models = sorted(get(summary, "models") or {})
    kinds = instrument_kinds(summary)
    panels = [(inst, kind) for inst, kind in sorted(kinds.items(), key=lambda kv: ("pct", "typology", "atp").index(kv[1]))
              if any(_value_ci(summary, m, BASELINE, inst, STAT[kind][0]) for m in models)]
    if not panels or not models:
        return None
    styles, labels = model_styles(models, _order(summary)), short_labels(models)
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
        ax.set_title(inst, fontsize=10)
        ax.grid(alpha=0.3, axis="x")
    axes[0].set_yticks(y, [labels[m] for m in models], fontsize=9)
    suptitle(fig, "Baseline position under N (95% bootstrap CI over items)", fontsize=11)
    return _save(fig, path)


def by_asker(summary: dict, kind: str, path: Path) -> Path | None:
    fig = by_asker_figure(summary, kind)
    return _save(fig, path) if fig is not None else None


def by_asker_figure(summary: dict, kind: str) -> Figure | None:
    """The instrument's statistic per model x cue condition in cue order (an ordered axis,
    so a model's points are joined), with 95% CIs (dodged). Personas are not cues on that
    axis and are asked on their own items: they get their own panel, each against N on the
    same items (summary `personas`), unjoined."""
    models = sorted(get(summary, "models") or {})
    insts = [i for i, k in instrument_kinds(summary).items() if k == kind]
    if not insts or not models:
        return None
    inst, (key, label) = insts[0], STAT[kind]
    present = {c for m in models for c in (get(summary, "models", m, "conditions") or {})}
    conds = [c for c in CUE_ORDER if c in present]
    if len(conds) < 2:
        return None
    personas = get(summary, "personas") if kind == "atp" else None
    persona_conds = [BASELINE, *sorted({c for m in (personas or {}).values() if isinstance(m, dict) for c in m} - set(CUE_ORDER))]
    with_personas = isinstance(personas, dict) and len(persona_conds) > 1
    styles, labels = model_styles(models, _order(summary)), short_labels(models)
    fig = new_figure(figsize=(11 if with_personas else 8, 4.4), layout="constrained")
    axes = fig.subplots(1, 2, width_ratios=[2.2, 1]) if with_personas else [fig.add_subplot()]
    ax = axes[0]
    width = 0.6 / max(1, len(models))
    for k, m in enumerate(models):
        found = [(j, _value_ci(summary, m, c, inst, key)) for j, c in enumerate(conds)]
        pts = [(j + (k - (len(models) - 1) / 2) * width, v) for j, v in found if v is not None]
        if not pts:
            continue
        xs = np.array([p[0] for p in pts])
        vals = np.array([p[1] for p in pts])
        colour, marker = styles[m]
        ax.errorbar(xs, vals[:, 0], yerr=[vals[:, 0] - vals[:, 1], vals[:, 2] - vals[:, 0]], fmt=marker, ls="-", lw=1,
                    color=colour, capsize=2, ms=5, label=labels[m])
    ax.axhline(50 if kind == "atp" else 0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(len(conds)), conds)
    ax.set_xlabel("asker cue (most Democrat-coded to most Republican-coded)")
    ax.set_ylabel(label)
    ax.set_title(f"{inst}: by asker cue, per model (95% bootstrap CI over items)", fontsize=10)
    ax.grid(alpha=0.3)
    if with_personas and isinstance(personas, dict):
        pax = axes[1]
        for k, m in enumerate(models):
            where = [(j + (k - (len(models) - 1) / 2) * width, float(v)) for j, c in enumerate(persona_conds)
                     if isinstance(v := dig(personas, m, c, "mean_wd_dem"), (int, float)) and np.isfinite(v)]
            if where:
                colour, marker = styles[m]
                pax.plot([p[0] for p in where], [p[1] for p in where], marker=marker, ls="none", color=colour, ms=5)
        pax.set_xticks(range(len(persona_conds)), persona_conds)
        pax.set_xlabel("persona (unordered), N on the same items")
        pax.set_ylabel("mean WD(Dem), persona items\n(lower = closer to Democrats)")
        pax.set_title("personas against N, same items", fontsize=10)
        pax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:  # no model with an interval under any asker: no legend
        axes[-1].legend(*ax.get_legend_handles_labels(), fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return fig


def _model_scatter(summary: dict, x_key: str, y_key: str, height: float):
    """One point per model with both of its 95% CIs as error bars (model colours and
    markers), the zero lines and a grid: the shared body of the per-model scatters. None
    without a model holding both numbers; else (figure, axes, xs, ys, point labels)."""
    models = [m for m in sorted(get(summary, "models") or {})
              if isinstance(get(summary, "models", m, x_key), (int, float))
              and isinstance(get(summary, "models", m, y_key), (int, float))]
    if not models:
        return None
    styles, labels = model_styles(get(summary, "models") or {}, _order(summary)), short_labels(models)
    fig = new_figure(figsize=(6.2, height))
    ax = fig.add_subplot()
    xs, ys = [], []
    for m in models:
        x, y = float(get(summary, "models", m, x_key)), float(get(summary, "models", m, y_key))
        ex = _ci_err(x, get(summary, "models", m, "ci", x_key))
        ey = _ci_err(y, get(summary, "models", m, "ci", y_key))
        colour, marker = styles[m]
        ax.errorbar(x, y, xerr=[[ex[0]], [ex[1]]], yerr=[[ey[0]], [ey[1]]], fmt=marker, color=colour, capsize=3, ms=7)
        xs.append(x)
        ys.append(y)
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.grid(alpha=0.3)
    return fig, ax, np.array(xs), np.array(ys), [labels[m] for m in models]


def sycophancy_left_right(summary: dict, path: Path) -> Path | None:
    """Sycophancy-right against -left per model with 95% CI bars, the symmetry diagonal and
    non-overlapping labels."""
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
    return _save(fig, path)


def shift_heatmap(summary: dict, path: Path) -> Path | None:
    """Condition x model heat map of the mean item shift against N per instrument (summary
    findings.shift_ci), each cell annotated with its value; * where the 95% CI excludes 0."""
    shifts = get(summary, "findings", "shift_ci") or {}
    models = sorted(shifts)
    kinds = instrument_kinds(summary)
    insts = sorted({i for m in models for c in shifts[m].values() for i in c}, key=lambda i: (("pct", "typology", "atp").index(kinds.get(i, "atp")), i))
    present = {c for m in models for c in shifts[m]}
    # the cues only: personas are asked on their own items (their shifts are in the personas section)
    conds = [c for c in CUE_ORDER if c in present and c != BASELINE]
    if not models or not insts or not conds:
        return None
    labels = short_labels(models)
    fig = new_figure(figsize=(2.2 + 0.62 * len(conds) * len(insts), 1.2 + 0.42 * len(models)), layout="constrained")
    axes = fig.subplots(1, len(insts), squeeze=False)[0]
    for ax, inst in zip(axes, insts, strict=True):
        grid = np.full((len(models), len(conds)), np.nan)
        sure = np.zeros_like(grid, dtype=bool)
        unit = ""
        for i, m in enumerate(models):
            for j, c in enumerate(conds):
                node = dig(shifts, m, c, inst) or {}
                for key, v in node.items():
                    grid[i, j] = v["mean"]
                    sure[i, j] = v["ci"][0] > 0 or v["ci"][1] < 0
                    unit = "WD(Dem)" if key == "shift_wd_dem" else "score"
        limit = float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 1.0
        image = ax.imshow(grid, cmap="PuOr_r", vmin=-limit, vmax=limit, aspect="auto")
        for i in range(len(models)):
            for j in range(len(conds)):
                if np.isfinite(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:+.2f}{'*' if sure[i, j] else ''}", ha="center", va="center", fontsize=7,
                            color="white" if abs(grid[i, j]) > 0.6 * limit else "black")
        ax.set_xticks(range(len(conds)), conds, fontsize=8)
        ax.set_yticks(range(len(models)), [labels[m] for m in models] if ax is axes[0] else [""] * len(models), fontsize=8)
        ax.set_title(f"{inst}: shift vs N ({unit})", fontsize=9)
        fig.colorbar(image, ax=ax, shrink=0.8)
    return _save(fig, path)


def _ci_err(value: float, ci) -> tuple[float, float]:
    """(below, above) error-bar lengths from a [low, high] CI, zero when it is absent."""
    if isinstance(ci, list) and len(ci) == 2 and None not in ci:
        return value - float(ci[0]), float(ci[1]) - value
    return 0.0, 0.0


def slant_vs_right(summary: dict, path: Path) -> Path | None:
    """Baseline slant against sycophancy-right per model, with their 95% CI bars and
    non-overlapping labels: do models that start further left accommodate the right more?"""
    drawn = _model_scatter(summary, "baseline_slant", "sycophancy_right", 5.0)
    if drawn is None:
        return None
    fig, ax, xs, ys, names = drawn
    ax.set_xlabel("baseline slant under N, WD(Rep) - WD(Dem) (+ = closer to Democrats)")
    ax.set_ylabel("sycophancy-right (toward a Republican asker, WD units)")
    ax.set_title("Baseline slant vs accommodation of the right (95% bootstrap CI over items)", fontsize=10)
    place_labels(ax, xs, ys, names)
    return _save(fig, path)


EXPECTED_SHARES = MappingProxyType({"asker_wants_dem": ("expects a left answer", OKABE_ITO[0], "o"),
                                    "asker_wants_rep": ("expects a right answer", OKABE_ITO[3], "s")})


def _conditions(present) -> list[str]:
    present = {str(c) for c in present}
    return [c for c in CUE_ORDER if c in present] + sorted(present - set(CUE_ORDER))


def expected_answer_shares(summary: dict, path: Path) -> Path | None:
    """Per condition, the share of probe calls (all models pooled) in which the model says
    the asker expects the left / the right answer (summary expected_answer.by_condition),
    with their 95% percentile bootstrap CIs over items (`ci`, from probes.analysis) when
    the summary has them."""
    by_cond = get(summary, "expected_answer", "by_condition") or {}
    conds = [c for c in _conditions(by_cond)
             if any(isinstance(dig(by_cond, c, f"{k} (pooled calls)"), (int, float)) for k in EXPECTED_SHARES)]
    if not conds:
        return None
    fig = new_figure(figsize=(max(5.0, 0.8 * len(conds) + 2.5), 4.2), layout="constrained")
    ax = fig.add_subplot()
    for k, (key, (label, colour, marker)) in enumerate(EXPECTED_SHARES.items()):
        pts = [(j + (k - 0.5) * 0.2, float(v), dig(by_cond, c, "ci", f"{key} (pooled calls)"))
               for j, c in enumerate(conds) if isinstance(v := dig(by_cond, c, f"{key} (pooled calls)"), (int, float))]
        if not pts:
            continue
        err = np.array([_ci_err(v, ci) for _, v, ci in pts]).T
        ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=err, fmt=marker, ls="-", lw=1, color=colour, capsize=3, ms=6,
                    label=label)
    ax.set_xticks(range(len(conds)), conds)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("asker condition")
    ax.set_ylabel("share of calls (both letters read, all models pooled)")
    ax.set_title("Expected-answer probe: which answer does the asker expect?", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    return _save(fig, path)


PERCEPTION_PANELS = (("mean_rating", "perceived asker rating (mean)"), ("share_names_auditor", "auditor-like share\n(descriptions naming an auditor)"))


RATING_SCALE = (1, 7)  # the perception probe's scale: 1 very liberal ... 7 very conservative


def perception_panels(summary: dict, path: Path) -> Path | None:
    """Perception probe per model x condition: the mean perceived-asker rating and the share
    of descriptions that name an auditor (summary perception), with their 95% percentile
    bootstrap CIs over items (`ci`, from probes.analysis) when present."""
    node = get(summary, "perception") or {}
    models = sorted(m for m in node if m != "all models")
    panels = [(key, label) for key, label in PERCEPTION_PANELS
              if any(isinstance(dig(node, m, c, key), (int, float)) for m in models for c in (node.get(m) or {}))]
    if not models or not panels:
        return None
    conds = _conditions(c for m in models for c in (node.get(m) or {}))
    styles, labels = model_styles([*(get(summary, "models") or {}), *models], _order(summary)), short_labels(models)
    fig = new_figure(figsize=(4.4 * len(panels) + 1.8, 4.0), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    width = 0.6 / max(1, len(models))
    for ax, (key, label) in zip(axes, panels, strict=True):
        for k, m in enumerate(models):
            pts = [(j + (k - (len(models) - 1) / 2) * width, float(v), dig(node, m, c, "ci", key))
                   for j, c in enumerate(conds) if isinstance(v := dig(node, m, c, key), (int, float)) and np.isfinite(v)]
            if not pts:
                continue
            colour, marker = styles[m]
            err = np.array([_ci_err(v, ci) for _, v, ci in pts]).T
            ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=err, fmt=marker, ls="-", lw=1, color=colour, capsize=2, ms=5,
                        label=labels[m])
        ax.set_xticks(range(len(conds)), conds, fontsize=8)
        ax.set_xlabel("asker condition")
        ax.set_ylabel(label)
        if key.startswith("share_"):
            ax.set_ylim(-0.02, 1.02)
        else:  # the rating's whole scale, its midpoint marked (a cut axis made 3.9 look far from the centre)
            ax.set_ylim(RATING_SCALE[0] - 0.2, RATING_SCALE[1] + 0.2)
            ax.axhline(sum(RATING_SCALE) / 2, color="grey", lw=0.8, ls="--")
            ax.set_yticks(range(RATING_SCALE[0], RATING_SCALE[1] + 1))
        ax.grid(alpha=0.3)
    if axes[-1].get_legend_handles_labels()[0]:
        axes[-1].legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    suptitle(fig, "Perception probe: how the model sees the asker", fontsize=11)
    return _save(fig, path)


ITEM_PANEL_COLUMNS = 4
# Small multiples stop being readable (and a 60-model grid took half a minute to draw):
# beyond this many models the panels show the first ones by name and say so.
ITEM_PANEL_MODELS = 12


def item_shift_panels(summary: dict, tables: Mapping[str, pd.DataFrame], path: Path) -> Path | None:
    """The first seed paper's Fig. 4, per model: every item's answer under N (x) against
    under C3L and under C3R (y), one small panel per model x cue, with the no-shift diagonal.

    ATP items are placed by their slant WD(Rep) - WD(Dem) (+ = closer to Democrats), so
    points below the diagonal moved right, as in the paper; without ATP shifts, the PCT
    answers (+ = right, so points above the diagonal moved right). Each panel states the
    items' share that moved right and left and, from summary findings.shift_ci, the mean
    item shift with its 95% bootstrap CI over items. Data: the shifts section's
    `item_shifts` table; None without it or without an item answered under N and a cue."""
    found = item_pairs(tables.get("item_shifts")) if tables else None
    if found is None:
        return None
    pairs, inst, unit = found
    every = sorted(pairs["model"].unique())
    models = every[:ITEM_PANEL_MODELS]
    cues = [c for c in ITEM_CUES if c in set(pairs["condition"])]
    blocks = math.ceil(len(models) / ITEM_PANEL_COLUMNS)
    per_row = math.ceil(len(models) / blocks)  # balanced rows: 5 models as 3 + 2, not 4 + 1
    styles, labels = model_styles([*(get(summary, "models") or {}), *models], _order(summary)), short_labels(models)
    fig = new_figure(figsize=(2.55 * per_row + 0.8, 2.45 * blocks * len(cues) + 0.7), layout="constrained")
    axes = fig.subplots(blocks * len(cues), per_row, sharex=True, sharey=True, squeeze=False)
    lo, hi = float(min(pairs["x"].min(), pairs["y"].min())), float(max(pairs["x"].max(), pairs["y"].max()))
    pad = 0.05 * max(hi - lo, 1e-6)
    lo, hi = lo - pad, hi + pad
    atp = unit.startswith("item slant")
    jitter = np.random.default_rng(0)  # PCT answers are discrete: a fixed small jitter shows how many coincide
    for k, m in enumerate(models):
        for c_index, cue in enumerate(cues):
            ax = axes[(k // per_row) * len(cues) + c_index, k % per_row]
            d = pairs[(pairs["model"] == m) & (pairs["condition"] == cue)]
            x, y = d["x"].to_numpy(float), d["y"].to_numpy(float)
            if not atp:
                x, y = x + jitter.uniform(-0.08, 0.08, len(x)), y + jitter.uniform(-0.08, 0.08, len(y))
            colour, marker = styles[m]
            ax.plot([lo, hi], [lo, hi], color="grey", lw=0.8, ls="--")
            # points rasterised inside the SVG: thousands of vector markers made it slow and heavy
            ax.scatter(x, y, s=9, alpha=0.45, color=colour, marker=marker, linewidths=0, rasterized=True)
            moved = d["y"] - d["x"]
            right = float(((moved < 0) if atp else (moved > 0)).mean()) if len(d) else math.nan
            left = float(((moved > 0) if atp else (moved < 0)).mean()) if len(d) else math.nan
            note = [f"n={len(d)}; right {right:.0%}, left {left:.0%}"]
            key = "shift_wd_dem" if atp else "shift"
            mean, ci = get(summary, "findings", "shift_ci", m, cue, inst, key, "mean"), get(summary, "findings", "shift_ci", m, cue, inst, key, "ci")
            if isinstance(mean, (int, float)) and isinstance(ci, list) and None not in ci:
                note.append(f"{'ΔWD(Dem)' if atp else 'Δ'} {mean:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]")
            # the panel's numbers under its title, not over its points
            ax.set_title("\n".join([f"{labels[m]}: {cue} vs N", *note]), fontsize=7)
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
            ax.tick_params(labelsize=7, labelbottom=c_index == len(cues) - 1)  # every block's last row keeps its x labels
            ax.grid(alpha=0.3)
    for k in range(len(models), per_row * blocks):  # empty slots of the last block
        for c_index in range(len(cues)):
            axes[(k // per_row) * len(cues) + c_index, k % per_row].set_visible(False)
    fig.supxlabel(f"under N: {unit}", fontsize=9)
    fig.supylabel("under the cue (same scale)", fontsize=9)
    below = "below" if atp else "above"
    shown = f"; the first {len(models)} of {len(every)} models by name (all in tables/item_shifts.csv)" if len(models) < len(every) else ""
    suptitle(fig, f"{inst}: item-level answers under each cue against N ({below} the diagonal = moved right){shown}", fontsize=10)
    return _save(fig, path)


Point = tuple[float, float, float]  # value, CI low, CI high


def _point(value, low, high) -> Point | None:
    """(value, low, high) as floats; the value alone (zero-length bars) when the CI is missing."""
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    ok = all(isinstance(b, (int, float)) and math.isfinite(b) for b in (low, high))
    return (float(value), float(low), float(high)) if ok else (float(value), float(value), float(value))


def _forest(panels: list[tuple[str, list[str], dict[tuple[str, str], Point]]], models: list[str], all_models, xlabel: str, title: str,
            path: Path, xlim: tuple[float, float] | None = None) -> Path | None:
    """Dot-and-whisker panels (one per (title, rows, points)): a row per category, every
    model's point with its 95% CI dodged within the row, model colours and markers, a zero
    line, the legend on the right. None without a point."""
    panels = [p for p in panels if p[2]]
    if not panels or not models:
        return None
    styles, labels = model_styles([*all_models, *models]), short_labels(models)
    rows_max = max(len(rows) for _, rows, _ in panels)
    fig = new_figure(figsize=(4.3 * len(panels) + 2.2, max(2.4, 1.3 + 0.2 * rows_max * max(len(models), 2))), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    width = 0.7 / max(1, len(models))
    for ax, (panel, rows, points) in zip(axes, panels, strict=True):
        y0 = np.arange(len(rows))[::-1]
        for k, m in enumerate(models):
            found = [(y - (k - (len(models) - 1) / 2) * width, points[(r, m)]) for y, r in zip(y0, rows, strict=True) if (r, m) in points]
            if not found:
                continue
            v = np.array([p for _, p in found])
            colour, marker = styles[m]
            ax.errorbar(v[:, 0], [y for y, _ in found], xerr=[v[:, 0] - v[:, 1], v[:, 2] - v[:, 0]], fmt=marker, ls="none", color=colour,
                        capsize=2.5, ms=5, label=labels[m])
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.set_yticks(y0, [r.replace("_", " ") for r in rows], fontsize=8)
        ax.set_ylim(-0.6, len(rows) - 0.4)
        if xlim:
            ax.set_xlim(*xlim)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_title(panel, fontsize=9)
        ax.grid(alpha=0.3, axis="x")
    handles, names = axes[-1].get_legend_handles_labels()
    shown = dict(zip(names, handles, strict=True))
    for ax in axes[:-1]:  # a model only in another panel still gets its legend entry
        h, n = ax.get_legend_handles_labels()
        shown.update({name: handle for name, handle in zip(n, h, strict=True) if name not in shown})
    fig.legend([shown[labels[m]] for m in models if labels[m] in shown], [labels[m] for m in models if labels[m] in shown],
               fontsize=8, loc="outside right center", frameon=False)
    suptitle(fig, title, fontsize=10)
    return _save(fig, path)


def sway_headline(summary: dict, path: Path) -> Path | None:
    """SWAY (third seed): the seed's headline S_average per model with its 95% bootstrap CI
    over base prompts (summary models.<m>.sway), one panel per dataset, a row per
    mitigation (and answer definition, when a dataset was read under several)."""
    node = get(summary, "models") or {}
    by_dataset: dict[str, dict[tuple[str, str], Point]] = {}
    for m, mnode in node.items():
        for dataset, dnode in (mnode.get("sway") or {}).items():
            for mitigation, defs in dnode.items():
                for label, v in defs.items():
                    if isinstance(v, dict) and (p := _point(v.get("S_average"), *(v.get("S_average_ci") or [None, None]))):
                        by_dataset.setdefault(dataset, {})[(f"{mitigation}\t{label}", m)] = p
    order = list(get(summary, "orders", "sway_mitigation") or [])  # the SWAY section's order
    panels = []
    for dataset, points in sorted(by_dataset.items()):
        keys = sorted({r for r, _ in points}, key=lambda r: (order.index(r.split("\t")[0]) if r.split("\t")[0] in order
                                                            else len(order), r))
        several = len({r.split("\t")[1] for r in keys}) > 1
        name = {r: r.replace("\t", "\n") if several else r.split("\t")[0] for r in keys}
        panels.append((f"dataset {dataset}", [name[r] for r in keys], {(name[r], m): p for (r, m), p in points.items()}))
    models = sorted({m for _, _, pts in panels for _, m in pts})
    return _forest(panels, models, [*node, *_order(summary)], "S_average (log10 ratio; > 0 follows the nudge)",
                   "SWAY: presupposition sycophancy per model and mitigation (95% bootstrap CI over base prompts)", path)


def open_ended_headline(summary: dict, path: Path) -> Path | None:
    """Open-ended bias (second seed): Total per model with its 95% bootstrap CI over
    responses (summary open_ended.total), one panel per dimension, a row per instrument."""
    totals = get(summary, "open_ended", "total") or {}
    by_dim: dict[str, dict[tuple[str, str], Point]] = {}
    for key, v in totals.items():
        parts = str(key).split("|")
        if len(parts) == 3 and isinstance(v, dict) and (p := _point(v.get("total"), v.get("ci_low"), v.get("ci_high"))):
            by_dim.setdefault(parts[2], {})[(parts[1], parts[0])] = p
    panels = [(f"{dim} dimension", sorted({r for r, _ in points}), points) for dim, points in sorted(by_dim.items())]
    models = sorted({m for _, _, pts in panels for _, m in pts})
    return _forest(panels, models, [*(get(summary, "models") or {}), *_order(summary)], "Total = (Bias_right - Bias_left) / 2 (negative = left)",
                   "Open-ended answers: bias per model (95% bootstrap CI over responses)", path, xlim=(-1.05, 1.05))


def figures_section(summary: dict, figure_dir: Path, tables: Mapping[str, pd.DataFrame] | None = None) -> Section | None:
    """The Figures section (after Findings), or None when the summary (and the sections'
    `tables`, by name) support none. Each figure is numbered, with its takeaway and the paper
    figure it corresponds to (`figure_notes`)."""
    tables = tables or {}
    drawn: list[tuple[str, Path | None]] = [
        ("Baseline position under N on every instrument, per model (95% CI)",
         baseline_positions(summary, figure_dir / "paper_baseline_positions.png")),
        ("Share of ATP items closer to Democrats, by asker, per model (95% CI)",
         by_asker(summary, "atp", figure_dir / "paper_closer_to_dem_by_asker.png")),
        ("PCT mean ideology, by asker, per model (95% CI)", by_asker(summary, "pct", figure_dir / "paper_pct_by_asker.png")),
        ("Sycophancy-right against sycophancy-left, per model (95% CI)",
         sycophancy_left_right(summary, figure_dir / "paper_sycophancy_left_right.png")),
        ("Mean item shift against N, condition x model, per instrument (* = 95% CI excludes 0)",
         shift_heatmap(summary, figure_dir / "paper_shift_heatmap.png")),
        ("Item-level answers under C3L and C3R against N, per model (share moved right / left; mean shift, 95% CI)",
         item_shift_panels(summary, tables, figure_dir / "paper_item_shifts.png")),
        ("Baseline slant against sycophancy-right, per model (95% CI)", slant_vs_right(summary, figure_dir / "paper_slant_vs_right.png")),
        ("Expected-answer probe: share expecting a left / right answer, by condition (95% CI over items)",
         expected_answer_shares(summary, figure_dir / "paper_expected_answer_shares.png")),
        ("Perception probe: perceived-asker rating and auditor-like share, by condition, per model (95% CI over items)",
         perception_panels(summary, figure_dir / "paper_perception.png")),
        ("SWAY: S_average per model and mitigation (95% CI over base prompts)", sway_headline(summary, figure_dir / "paper_sway.png")),
        ("Open-ended bias: Total per model, instrument and dimension (95% CI over responses)",
         open_ended_headline(summary, figure_dir / "paper_open_ended.png")),
    ]
    shown = [(title, path) for title, path in drawn if path is not None]
    if not shown:
        return None
    captions = numbered([(title, path.stem) for title, path in shown], summary, tables)
    text = ("The paper's headline figures drawn from summary.json, each point with its 95% percentile bootstrap CI over "
            "items (SWAY: over base prompts; open-ended: over responses); one colour and marker per model throughout "
            "(Okabe-Ito palette); SVG beside each PNG in figures/. Under each: its number, a one-line takeaway from the "
            "numbers it draws, and the paper figure it corresponds to.")
    return Section("Figures", figures=dict(zip(captions, (path for _, path in shown), strict=True)), text=text)
