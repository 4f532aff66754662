"""What the figures of several measures' report contributions share.

Every model's place in the run's colour order, error-bar lengths from an interval, and the
dot-and-whisker (forest) panels of a per-model estimate with its 95% CI. Each figure is
written as PNG (embedded in the HTML) and SVG (for papers).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.plotting import model_styles, new_figure, save_figure, short_labels, suptitle
from ..core.report_parts import Summary
from ..core.summary_contract import read
from .summary_nodes import contract_of

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def save(fig: Figure, path: Path) -> Path:
    """Save a figure of the Figures section as PNG and SVG, through one name a test can capture.

    A figure of the Figures section saved at `path` as PNG, with an SVG beside it (every
    measure's figure saves through this one name, so a test can capture them all).
    """
    return save_figure(fig, path, svg=True)


def model_order(summary: Summary) -> list[str]:
    """Every model of the run, so each figure colours a model as every other figure does.

    Every model of the run (summary `model_order`, written by the report from the frame), so
    each figure colours a model as every other figure and section figure does.
    """
    order = read(summary, "model_order", schema=contract_of(()))
    return [str(m) for m in order] if isinstance(order, list) else []


def run_models(summary: Summary) -> list[str]:
    """The models summary.json holds a node for (`models`), in its order."""
    return list(read(summary, "models", schema=contract_of(())) or {})


def ci_err(value: float, ci: Any) -> tuple[float, float]:
    """(below, above) error-bar lengths from a [low, high] CI, zero when it is absent."""
    if isinstance(ci, list) and len(ci) == 2 and None not in ci:
        return value - float(ci[0]), float(ci[1]) - value
    return 0.0, 0.0


Point = tuple[float, float, float]  # value, CI low, CI high


def point(value: Any, low: Any, high: Any) -> Point | None:
    """(value, low, high) as floats; the value alone (zero-length bars) when the CI is missing."""
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    ok = all(isinstance(b, (int, float)) and math.isfinite(b) for b in (low, high))
    return (float(value), float(low), float(high)) if ok else (float(value), float(value), float(value))


def forest(
    panels: list[tuple[str, list[str], dict[tuple[str, str], Point]]],
    models: list[str],
    all_models: Iterable[str],
    xlabel: str,
    title: str,
    path: Path,
    xlim: tuple[float, float] | None = None,
) -> Path | None:
    """Dot-and-whisker panels (one per (title, rows, points)).

    A row per category, every model's point with its 95% CI dodged within the row, model
    colours and markers, a zero line, the legend on the right. None without a point.
    """
    panels = [p for p in panels if p[2]]
    if not panels or not models:
        return None
    styles, labels = model_styles([*all_models, *models]), short_labels(models)
    rows_max = max(len(rows) for _, rows, _ in panels)
    fig = new_figure(
        figsize=(4.3 * len(panels) + 2.2, max(2.4, 1.3 + 0.2 * rows_max * max(len(models), 2))), layout="constrained"
    )
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    width = 0.7 / max(1, len(models))
    for ax, (panel, rows, points) in zip(axes, panels, strict=True):
        y0 = np.arange(len(rows))[::-1]
        for k, m in enumerate(models):
            found = [
                (y - (k - (len(models) - 1) / 2) * width, points[(r, m)])
                for y, r in zip(y0, rows, strict=True)
                if (r, m) in points
            ]
            if not found:
                continue
            v = np.array([p for _, p in found])
            colour, marker = styles[m]
            ax.errorbar(
                v[:, 0],
                [y for y, _ in found],
                xerr=[v[:, 0] - v[:, 1], v[:, 2] - v[:, 0]],
                fmt=marker,
                ls="none",
                color=colour,
                capsize=2.5,
                ms=5,
                label=labels[m],
            )
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
    fig.legend(
        [shown[labels[m]] for m in models if labels[m] in shown],
        [labels[m] for m in models if labels[m] in shown],
        fontsize=8,
        loc="outside right center",
        frameon=False,
    )
    suptitle(fig, title, fontsize=10)
    return save(fig, path)
