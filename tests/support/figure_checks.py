"""The overlap check every figure of the report passes (issue 26: "no label over a bar or
outside a frame"): drawn at its saved size, every axes (with its tick labels and titles),
legend and figure-level text lies inside the figure; within an axes no two annotations
overlap, nor two tick labels of one axis; and no annotation sits over a marker's centre or
across an error bar."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.text import Text


def drawn_tick_labels(axis) -> list:
    """The tick labels an axis draws: those of its major ticks inside the view interval."""
    low, high = sorted(axis.get_view_interval())
    return [t.label1 for t in axis.get_major_ticks() if low - 1e-9 <= t.get_loc() <= high + 1e-9 and t.label1.get_visible()
            and t.label1.get_text().strip()]


def assert_apart(stem: str, texts: list, renderer) -> None:
    boxes = [Text.get_window_extent(t, renderer) for t in texts]  # the text, not an annotation's leader line
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not boxes[i].overlaps(boxes[j]), (stem, texts[i].get_text(), texts[j].get_text())


def marks(ax) -> list[tuple[str, object]]:
    """What an axes draws as data, in display coordinates: each marker (lines with markers,
    scatter points) as a point and each error bar as a segment."""
    out: list[tuple[str, object]] = []
    for line in ax.lines:
        if line.get_visible() and line.get_marker() not in (None, "", "None", " ") and len(line.get_xydata()):
            out += [("marker", xy) for xy in ax.transData.transform(line.get_xydata())]
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, LineCollection):  # error bars
            out += [("error bar", ax.transData.transform(seg)) for seg in coll.get_segments() if len(seg) == 2]
        elif isinstance(coll, PathCollection) and len(coll.get_offsets()):
            out += [("marker", xy) for xy in coll.get_offset_transform().transform(coll.get_offsets())]
    return out


def _hits(box, kind: str, geometry) -> bool:
    inner = box.padded(-1)
    if kind == "marker":
        x, y = geometry
        return inner.x0 <= x <= inner.x1 and inner.y0 <= y <= inner.y1
    (x0, y0), (x1, y1) = geometry
    return any(inner.x0 <= x0 + t * (x1 - x0) <= inner.x1 and inner.y0 <= y0 + t * (y1 - y0) <= inner.y1 for t in np.linspace(0, 1, 41))


def assert_off_the_data(stem: str, ax, renderer) -> None:
    """No annotation of the axes sits over a marker's centre or across an error bar."""
    data = marks(ax)
    for t in ax.texts:
        if not (t.get_visible() and t.get_text().strip()):
            continue
        box = Text.get_window_extent(t, renderer)
        for kind, geometry in data:
            assert not _hits(box, kind, geometry), (stem, t.get_text(), kind)


def check_figure(stem: str, fig) -> None:
    """Every rule of the module docstring, on one drawn figure."""
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    frame = fig.bbox
    inside = [(f"axes {ax.get_title()!r}", ax.get_tightbbox(renderer)) for ax in fig.axes if ax.get_visible()]
    inside += [(t.get_text(), t.get_window_extent(renderer)) for t in fig.texts if t.get_text().strip()]
    inside += [(f"legend of {stem}", lg.get_window_extent(renderer)) for lg in fig.legends]
    inside += [(f"legend in {ax.get_title()!r}", ax.get_legend().get_window_extent(renderer)) for ax in fig.axes if ax.get_legend()]
    for what, box in inside:
        assert frame.x0 - 1 <= box.x0 and box.x1 <= frame.x1 + 1 and frame.y0 - 1 <= box.y0 and box.y1 <= frame.y1 + 1, \
            (stem, what, box.bounds, frame.bounds)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        assert_apart(stem, [t for t in ax.texts if t.get_visible() and t.get_text().strip()], renderer)
        assert_apart(stem, drawn_tick_labels(ax.xaxis), renderer)
        assert_apart(stem, drawn_tick_labels(ax.yaxis), renderer)
        assert_off_the_data(stem, ax, renderer)
