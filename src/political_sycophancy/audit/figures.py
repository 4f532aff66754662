"""Figures of the report, drawn with matplotlib's object API (no global pyplot state).

Each function takes the table it plots and a PNG path, writes the figure and returns the
path, or None when the table holds nothing to draw. Models keep the colours, markers and
short labels of every other figure (`core.plotting`), and point labels are placed so that
none overlaps another (`core.plotting.place_labels`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core.plotting import (
    LEFT_CUE,
    RIGHT_CUE,
    condition_label,
    model_styles,
    new_figure,
    place_labels,
    save_figure,
    short_labels,
)
from ..shared.summaries import order_conditions

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SERIES_GREY = "#555555"  # a series that is not a model: no colour of the model palette


def _save(fig: Figure, path: Path) -> Path:
    return save_figure(fig, path)


def _lines_by_condition(
    table: pd.DataFrame, value: str, ylabel: str, title: str, path: Path, hline: float | None, order: Sequence[str] = ()
) -> Path | None:
    data = table.dropna(subset=[value])
    if data.empty:
        return None
    conditions = order_conditions(data["condition"])
    if len(conditions) < 2:  # one asker (a Phase 1 run): nothing "by asker" the baseline figure does not show
        return None
    names, styles = short_labels(data["model"]), model_styles(data["model"], order)
    fig = new_figure(figsize=(7.5, 4.2))
    ax = fig.add_subplot()
    x = np.arange(len(conditions))
    for model, g in data.groupby("model", sort=True):
        y = g.set_index("condition")[value].reindex(conditions)
        colour, marker = styles[str(model)]
        ax.plot(x, y.to_numpy(float), marker=marker, color=colour, label=names[str(model)])
    if hline is not None:
        ax.axhline(hline, color="grey", lw=0.8, ls="--")
    ax.set_xticks(x, conditions)
    ax.set_xlabel("asker condition (most Democrat-coded cue to most Republican-coded)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return _save(fig, path)


def closer_by_condition(summary: pd.DataFrame, path: Path, order: Sequence[str] = ()) -> Path | None:
    """% of ATP items closer to Democrats per model x condition, in cue order."""
    if "pct_closer_dem" not in summary.columns:
        return None
    return _lines_by_condition(
        summary,
        "pct_closer_dem",
        "% of items closer to Democrats",
        "ATP: share closer to Democrats by asker",
        path,
        50.0,
        order,
    )


def pct_by_condition(summary: pd.DataFrame, path: Path, order: Sequence[str] = ()) -> Path | None:
    """PCT mean ideology per model x condition (negative = left)."""
    if "mean_ideology" not in summary.columns:
        return None
    return _lines_by_condition(
        summary, "mean_ideology", "PCT mean ideology (-2 left ... +2 right)", "PCT by asker", path, 0.0, order
    )


def sycophancy_left_right(
    decomp: pd.DataFrame, path: Path, title: str = "Accommodation toward each asker", order: Sequence[str] = ()
) -> Path | None:
    """Sycophancy-left against sycophancy-right per model, with the line of symmetry."""
    data = decomp.dropna(subset=["sycophancy_left", "sycophancy_right"]) if not decomp.empty else decomp
    if data.empty:
        return None
    names, styles = short_labels(data["model"]), model_styles(data["model"], order)
    fig = new_figure(figsize=(5.2, 5.0))
    ax = fig.add_subplot()
    for _, r in data.iterrows():
        colour, marker = styles[r["model"]]
        ax.scatter(r["sycophancy_left"], r["sycophancy_right"], color=colour, marker=marker, zorder=3)
    lo = min(0.0, float(data[["sycophancy_left", "sycophancy_right"]].min().min()))
    hi = max(float(data[["sycophancy_left", "sycophancy_right"]].max().max()), 1e-6) * 1.15
    ax.plot([lo, hi], [lo, hi], color="grey", ls="--", lw=0.8, label="symmetric accommodation")
    ax.set_xlabel("sycophancy-left (toward a Democrat asker)")
    ax.set_ylabel("sycophancy-right (toward a Republican asker)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    place_labels(
        ax,
        data["sycophancy_left"].to_numpy(float),
        data["sycophancy_right"].to_numpy(float),
        [names[m] for m in data["model"]],
    )
    return _save(fig, path)


def item_scatter(cells: pd.DataFrame, path: Path) -> Path | None:
    """Item-level WD(Dem) under C3L and under C3R against N (one point per model x item)."""
    wd = (
        cells[cells["answered"] & cells["has_benchmarks"] & cells["wd_dem"].notna()]
        if "has_benchmarks" in cells
        else cells.iloc[0:0]
    )
    if wd.empty:
        return None
    wide = wd.pivot_table(index=["model", "item_id"], columns="condition", values="wd_dem", aggfunc="first")
    panels = [c for c in ("C3L", "C3R") if c in wide.columns and "N" in wide.columns]
    if not panels:
        return None
    fig = new_figure(figsize=(5.0 * len(panels), 4.8))
    for k, cond in enumerate(panels, start=1):
        ax = fig.add_subplot(1, len(panels), k)
        pair = wide[["N", cond]].dropna()
        # the cue's colour, one meaning in every figure (left blue, right red)
        ax.scatter(pair["N"], pair[cond], s=8, alpha=0.35, color=LEFT_CUE if cond == "C3L" else RIGHT_CUE)
        ax.plot([0, 1], [0, 1], color="grey", ls="--", lw=0.8)
        ax.set_xlim(-0.03, 1.03)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("WD(Dem) under N (0 = the Democrat distribution)")
        ax.set_ylabel(f"WD(Dem) under {cond}")
        ax.set_title(f"{textwrap.fill(condition_label(cond), 40)} ({cond}) against N\n({len(pair)} model x item pairs)")
        ax.grid(alpha=0.3)
    return _save(fig, path)


def slant_vs_shift(decomp: pd.DataFrame, path: Path) -> Path | None:
    """Baseline slant against sycophancy-right and -left across models.

    None without an accommodation to plot (only the baseline was run).
    """
    data = decomp.dropna(subset=["baseline_slant"]) if not decomp.empty else decomp
    if data.empty or data.reindex(columns=["sycophancy_right", "sycophancy_left"]).isna().all().all():
        return None
    names = short_labels(data["model"])
    fig = new_figure(figsize=(6.0, 4.6))
    ax = fig.add_subplot()
    xs, ys, texts = [], [], []
    # the two series differ by marker and fill in grey: every other figure uses colour for a model
    for col, marker, face in (("sycophancy_right", "^", SERIES_GREY), ("sycophancy_left", "v", "none")):
        d = data.dropna(subset=[col])
        ax.scatter(
            d["baseline_slant"],
            d[col],
            marker=marker,
            facecolors=face,
            edgecolors=SERIES_GREY,
            label=col.replace("_", "-"),
            zorder=3,
        )
        xs += d["baseline_slant"].astype(float).tolist()
        ys += d[col].astype(float).tolist()
        texts += [names[m] for m in d["model"]]
    ax.set_xlabel("baseline slant: mean WD(Rep) - mean WD(Dem) under N")
    ax.set_ylabel("accommodation (WD units)")
    ax.set_title("Baseline slant and accommodation")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    place_labels(ax, np.array(xs), np.array(ys), texts, fontsize=7)  # both series at once: no label lands on another
    return _save(fig, path)
