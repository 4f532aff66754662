"""Plotting helpers every figure shares, whatever its layer: the colour-blind-safe
(Okabe-Ito) palette with one colour and marker per model, short model labels, and text
labels placed beside their points without overlapping.

Below the measures (their section figures) and the report (its Figures section), so that
both draw the same model in the same colour and neither copies the other's code.
"""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
LABEL_CHARS = 26


def model_styles(models) -> dict[str, tuple[str, str]]:
    """Model -> (colour, marker), by sorted model name, so every figure agrees."""
    ordered = sorted(dict.fromkeys(models))
    return {m: (OKABE_ITO[k % len(OKABE_ITO)], MARKERS[(k // len(OKABE_ITO)) % len(MARKERS)]) for k, m in enumerate(ordered)}


def short_labels(models) -> dict[str, str]:
    """Model -> short label: the last path component when unambiguous, at most LABEL_CHARS."""
    models = list(dict.fromkeys(models))
    last = {m: str(m).rsplit("/", 1)[-1] for m in models}
    unique = len(set(last.values())) == len(last)
    out = {}
    for m in models:
        label = last[m] if unique else str(m)
        out[m] = label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"
    return out if len(set(out.values())) == len(out) else {m: str(m) for m in models}


def place_labels(ax, xs, ys, texts, fontsize: float = 8) -> None:
    """Write each text beside its point, pushed apart vertically until no two overlap
    (estimated text boxes in pixels); a thin leader line joins a moved label to its point."""
    fig = ax.figure
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    pts = ax.transData.transform(np.column_stack([xs, ys]))
    scale = fig.dpi / 72.0
    renderer = fig.canvas.get_renderer()
    sizes = []
    for text in texts:  # measure each label as it will be drawn
        probe = ax.text(0, 0, text, fontsize=fontsize)
        box = probe.get_window_extent(renderer)
        sizes.append((box.width + 2, box.height + 2))
        probe.remove()
    w = np.array([sz[0] for sz in sizes])
    h = float(max(sz[1] for sz in sizes)) if sizes else 0.0
    pos = pts + np.array([6 * scale, -h / 2])
    for _ in range(200):
        moved = False
        for i in range(len(pos)):
            for j in range(i + 1, len(pos)):
                dx = min(pos[i, 0] + w[i], pos[j, 0] + w[j]) - max(pos[i, 0], pos[j, 0])
                dy = min(pos[i, 1] + h, pos[j, 1] + h) - max(pos[i, 1], pos[j, 1])
                if dx > 0 and dy > 0:
                    push = (dy + 1) / 2
                    up, down = (i, j) if pos[i, 1] >= pos[j, 1] else (j, i)
                    pos[up, 1] += push
                    pos[down, 1] -= push
                    moved = True
        if not moved:
            break
    for x, y, (px, py), (lx, ly), text in zip(xs, ys, pts, pos, texts, strict=True):
        offset = ((lx - px) / scale, (ly + h / 2 - py) / scale)
        far = abs(offset[1]) > fontsize
        ax.annotate(text, (x, y), xycoords="data", xytext=offset, textcoords="offset points", fontsize=fontsize, va="center",
                    arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "grey"} if far else None)
