"""The profile section's figures: a forest plot of attribute effects and weighted position against N.

The profile section's figures, in the report's style (`core.plotting`: one colour per model,
the same in every figure, saved atomically): a forest plot of the attribute effects and the
population-weighted position against the auditor (N) position.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.plotting import model_styles, new_figure, save_figure, short_labels, suptitle
from .estimators import order_modes


def forest(effects: pd.DataFrame, path: Path, title: str, order: Sequence[str] = ()) -> Path | None:
    """Forest plot of the attribute effects: one panel per cue mode, a row per level, a point per model.

    One panel per cue mode; a row per attribute level (against its reference), a point and
    95% interval per model, offset vertically so that models do not hide one another; a
    level without an interval (not inferential) as a hollow point.
    """
    data = effects.dropna(subset=["estimate"])
    if data.empty:
        return None
    modes = order_modes(data["mode"])
    rows = list(dict.fromkeys(zip(data["attribute"], data["level"], data["reference"], strict=True)))
    models = sorted(data["model"].unique())
    styles, names = model_styles(models, order), short_labels(models)
    height = max(2.5, 0.32 * len(rows) + 1.2)
    from matplotlib.ticker import MaxNLocator

    fig = new_figure(figsize=(3.4 * len(modes) + 1.6, height), layout="constrained")
    axes = fig.subplots(1, len(modes), sharey=True, squeeze=False)[0]
    y = {key: len(rows) - 1 - k for k, key in enumerate(rows)}
    offsets = np.linspace(-0.25, 0.25, len(models)) if len(models) > 1 else np.zeros(1)
    for ax, mode in zip(axes, modes, strict=True):
        for model, offset in zip(models, offsets, strict=True):
            g = data[(data["mode"] == mode) & (data["model"] == model)]
            if g.empty:
                continue
            ys = np.array([y[k] for k in zip(g["attribute"], g["level"], g["reference"], strict=True)]) + offset
            colour, marker = styles[model]
            bars = g["low"].notna().to_numpy() & g["high"].notna().to_numpy()
            err = np.vstack([g["estimate"] - g["low"], g["high"] - g["estimate"]]).clip(min=0)
            ax.errorbar(
                g["estimate"][bars],
                ys[bars],
                xerr=err[:, bars],
                fmt=marker,
                color=colour,
                ms=4,
                lw=1,
                capsize=2,
                label=names[model],
            )
            if (~bars).any():  # not inferential: the estimate alone, hollow
                ax.plot(
                    g["estimate"][~bars],
                    ys[~bars],
                    marker,
                    mfc="none",
                    color=colour,
                    ms=4,
                    label=None if bars.any() else names[model],
                )
        ax.axvline(0.0, color="grey", lw=0.8, ls="--")
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5))  # tick labels that fit a narrow panel
        ax.set_title(mode)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(list(y.values()), [f"{a}: {lv} (vs {r})" for a, lv, r in y])
    axes[0].legend(fontsize=7, loc="best")
    suptitle(fig, title, fontsize=12)
    return save_figure(fig, path)


def weighted_against_n(table: pd.DataFrame, path: Path, title: str, order: Sequence[str] = ()) -> Path | None:
    """Per model: the auditor (N) position beside the population-weighted position of each cue mode.

    Per model: the auditor (N) position, then the population-weighted position over the
    personas of each cue mode with the 95% interval of its gap to N (drawn around the
    weighted position); a dashed line marks each model's N.
    """
    data = table.dropna(subset=["weighted", "n_position"])
    if data.empty:
        return None
    models = sorted(data["model"].unique())
    styles, names = model_styles(models, order), short_labels(models)
    modes = order_modes(data["mode"])
    columns = ["N (auditor)", *modes]
    offsets = np.linspace(-0.15, 0.15, len(models)) if len(models) > 1 else np.zeros(1)
    fig = new_figure(figsize=(1.6 * len(columns) + 2.4, 4.2), layout="constrained")
    ax = fig.add_subplot()
    for model, offset in zip(models, offsets, strict=True):
        g = data[data["model"] == model].set_index("mode")
        colour, marker = styles[model]
        n_position = float(g["n_position"].iloc[0])
        ax.axhline(n_position, color=colour, lw=0.8, ls="--", alpha=0.6)
        ax.plot([offset], [n_position], marker="o", color=colour, ms=6, ls="none", label=names[model])
        for k, mode in enumerate(modes, start=1):
            if mode not in g.index:
                continue
            r = g.loc[mode]
            low, high = n_position + r.get("gap_weighted_low", np.nan), n_position + r.get("gap_weighted_high", np.nan)
            err = (
                None
                if not (np.isfinite(low) and np.isfinite(high))
                else [[max(0.0, r["weighted"] - low)], [max(0.0, high - r["weighted"])]]
            )
            ax.errorbar([k + offset], [r["weighted"]], yerr=err, fmt=marker, color=colour, ms=6, capsize=3)
    ax.set_xticks(range(len(columns)), columns)
    ax.set_xlim(-0.5, len(columns) - 0.5)
    ax.set_ylabel("position (weighted over personas; N: no cue)")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="best")
    ax.grid(axis="y", alpha=0.3)
    return save_figure(fig, path)
