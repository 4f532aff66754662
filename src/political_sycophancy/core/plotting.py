"""Plotting helpers every figure shares, whatever its layer: the colour-blind-safe
(Okabe-Ito) palette with one colour and marker per model, short model labels, and text
labels placed beside their points without overlapping.

Below the measures (their section figures) and the report (its Figures section), so that
both draw the same model in the same colour, save it the same way (`save_figure`:
atomically, at one resolution) and neither copies the other's code.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.category import StrCategoryFormatter
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter, Formatter, FuncFormatter

from .atomic import temp_path
from .text import terminal_safe

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
LABEL_CHARS = 26
DPI = 120
# tick formatters whose labels are texts (model names, conditions), not numbers
TEXT_FORMATTERS = (FixedFormatter, FuncFormatter, StrCategoryFormatter)


def save_figure(fig: Figure, path: Path, *, svg: bool = False, tight: bool = True) -> Path:
    """Write `fig` as a PNG at `path` (and an SVG beside it when `svg`), each through a
    temporary sibling and a rename like every other output: a full disk or a kill never
    leaves a truncated image."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fig.canvas is None or not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    for target, kind in [(path, "png"), *([(path.with_suffix(".svg"), "svg")] if svg else [])]:
        tmp = temp_path(target)
        try:
            with drawn_as_text(fig):
                fig.savefig(tmp, format=kind, dpi=DPI, bbox_inches="tight" if tight else None)
            tmp.replace(target)
        finally:
            tmp.unlink(missing_ok=True)
    return path


@contextmanager
def drawn_as_text(fig: Figure) -> Iterator[None]:
    """Draw `fig` with every text as its characters: model names, item ids and conditions
    come from the logs, and matplotlib would parse a `$...$` in them as math (an unknown
    command fails the whole figure) and warn about control characters it has no glyph for
    (printing them raw). No figure of ours uses math text."""
    with matplotlib.rc_context({"text.parse_math": False}):  # texts matplotlib creates while drawing (ticks)
        for text in fig.findobj(Text):
            text.set_parse_math(False)
            shown = terminal_safe(text.get_text())
            if shown != text.get_text():
                text.set_text(shown)
        for ax in fig.axes:  # tick labels made while drawing, from label lists or categories
            for axis in (ax.xaxis, ax.yaxis):
                if isinstance(axis.get_major_formatter(), TEXT_FORMATTERS):
                    axis.set_major_formatter(_shown_as_text(axis.get_major_formatter()))
                if isinstance(axis.get_minor_formatter(), TEXT_FORMATTERS):
                    axis.set_minor_formatter(_shown_as_text(axis.get_minor_formatter()))
        yield


def _shown_as_text(formatter: Formatter) -> FuncFormatter:
    return FuncFormatter(lambda x, pos=None: terminal_safe(formatter(x, pos)))


def suptitle(fig: Figure, text: str, fontsize: float = 10) -> None:
    """The figure's title, wrapped to the figure's width (a long one on a narrow figure ran
    past the frame): at most as many characters per line as 0.6 em each fill the width."""
    chars = max(20, int(fig.get_figwidth() * 72 / (0.6 * fontsize)))
    fig.suptitle(textwrap.fill(text, chars), fontsize=fontsize)


def model_styles(models, order=()) -> dict[str, tuple[str, str]]:
    """Model -> (colour, marker), by the model's place among the sorted names of `order`
    (every model of the run) and `models`: a figure showing some models gives each the
    colour and marker it has in every other figure. Each model gets its own marker as well
    as its own colour (a figure must read in grey too); past eight models the markers shift
    by one per round of colours, so no two of the first 64 share both."""
    ordered = sorted(dict.fromkeys([*order, *models]))
    return {m: (OKABE_ITO[k % len(OKABE_ITO)], MARKERS[(k + k // len(OKABE_ITO)) % len(MARKERS)]) for k, m in enumerate(ordered)}


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
    texts = [terminal_safe(t) for t in texts]
    with drawn_as_text(fig):
        fig.canvas.draw()
    pts = ax.transData.transform(np.column_stack([xs, ys]))
    scale = fig.dpi / 72.0
    renderer = fig.canvas.get_renderer()
    sizes = []
    for text in texts:  # measure each label as it will be drawn
        probe = ax.text(0, 0, text, fontsize=fontsize, parse_math=False)
        box = probe.get_window_extent(renderer)
        sizes.append((box.width + 2, box.height + 2))
        probe.remove()
    w = np.array([sz[0] for sz in sizes])
    h = float(max(sz[1] for sz in sizes)) if sizes else 0.0
    pos = pts + np.array([6 * scale, -h / 2])
    # Every overlapping pair pushed apart at once per round (pairwise in numpy: 120 labels
    # of a 60-model figure took seconds as a Python double loop).
    for _ in range(400):
        x0, y0 = pos[:, 0], pos[:, 1]
        dx = np.minimum.outer(x0 + w, x0 + w) - np.maximum.outer(x0, x0)
        dy = np.minimum.outer(y0 + h, y0 + h) - np.maximum.outer(y0, y0)
        i, j = np.nonzero(np.triu((dx > 0) & (dy > 0), k=1))
        if not len(i):
            break
        push = (dy[i, j] + 1) / 2
        first_up = y0[i] >= y0[j]
        delta = np.zeros(len(pos))
        np.add.at(delta, np.where(first_up, i, j), push)
        np.add.at(delta, np.where(first_up, j, i), -push)
        pos[:, 1] += delta
    for x, y, (px, py), (lx, ly), text in zip(xs, ys, pts, pos, texts, strict=True):
        offset = ((lx - px) / scale, (ly + h / 2 - py) / scale)
        far = abs(offset[1]) > fontsize
        ax.annotate(text, (x, y), xycoords="data", xytext=offset, textcoords="offset points", fontsize=fontsize, va="center",
                    arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "grey"} if far else None, parse_math=False)
