"""Plotting helpers every figure shares, whatever its layer.

The colour-blind-safe (Okabe-Ito) palette with one colour and marker per model, short
model labels, and text labels placed beside their points without overlapping.

Below the measures (their section figures) and the report (its Figures section), so that
both draw the same model in the same colour, save it the same way (`save_figure`:
atomically, at one resolution) and neither copies the other's code.
"""

from __future__ import annotations

import contextlib
import os
import signal
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from .atomic import temp_path
from .forked import forked_child, shared_work, signals_held
from .text import terminal_safe

if TYPE_CHECKING:  # matplotlib is imported where a figure is made or drawn (about 0.7 s)
    from matplotlib.figure import Figure
    from matplotlib.ticker import Formatter, FuncFormatter
    from matplotlib.transforms import Bbox

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
LABEL_CHARS = 26
DPI = 120
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class FigureFailure:
    """A figure a background process could not save, nor this one after it."""

    path: Path
    owner: str | None
    error: str


@dataclass
class BackgroundSaver:
    """Saves figures in forked processes, at most `jobs` at a time, while the caller goes on computing.

    Drawing was a third of a cold analysis, and one core sat idle meanwhile.

    A child draws and writes the figure exactly as `save_figure` does here (the same
    figure, copied by the fork) and exits; the caller keeps the figure until its child has
    ended. When a child fails the figure is saved here again, so its error is the figure's
    own; what still fails is listed in `failures` with the `owner` (the report section) that
    was current when it was submitted. `drain` waits for every child: the caller reads no
    figure file before it (the report embeds them when it renders).
    """

    jobs: int
    owner: str | None = None
    pending: dict[int, tuple[Figure, Path, bool, bool, str | None]] = field(default_factory=dict)
    failures: list[FigureFailure] = field(default_factory=list)

    def submit(self, fig: Figure, path: Path, svg: bool, tight: bool) -> None:
        """Save `fig` to `path` in a forked child, first waiting while `jobs` children are still running."""
        while len(self.pending) >= self.jobs:
            self._wait_oldest()
        parent = os.getpid()
        with signals_held():
            pid = os.fork()
        if pid == 0:  # the child: save, and leave without running anything of the caller's
            code = 1
            try:
                forked_child("saver", parent)
                _save_now(fig, path, svg, tight, split=True)
                code = 0
            finally:
                os._exit(code)
        self.pending[pid] = (fig, path, svg, tight, self.owner)

    def _wait_oldest(self) -> None:
        pid = next(iter(self.pending))
        fig, path, svg, tight, owner = self.pending.pop(pid)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            try:
                _save_now(fig, path, svg, tight)
            except Exception as ex:  # the figure's own failure, reported against its section
                self.failures.append(FigureFailure(path, owner, f"{type(ex).__name__}: {ex}"))

    def drain(self) -> None:
        """Wait for every child (a figure whose child failed is saved here again): call before reading figure files."""
        while self.pending:
            self._wait_oldest()

    def reap(self) -> None:
        """End every child (this process is stopping: kill them) without saving a figure again."""
        for pid in list(self.pending):
            del self.pending[pid]
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


# the saver of the report being written (`saving_in_background`); unset, figures are saved at once
BACKGROUND: ContextVar[BackgroundSaver | None] = ContextVar("political_sycophancy_figure_saver", default=None)
# the files `save_figure` writes within `recording_saves` (unset: not recorded)
SAVED: ContextVar[list[Path] | None] = ContextVar("political_sycophancy_figures_saved", default=None)


@contextmanager
def recording_saves() -> Iterator[list[Path]]:
    """The files (PNG, and SVG when asked) `save_figure` writes, or hands to the background saver, until the block ends.

    What a report section's figures are, whichever process writes them and whatever else
    writes to the same folder meanwhile.
    """
    saved: list[Path] = []
    token = SAVED.set(saved)
    try:
        yield saved
    finally:
        SAVED.reset(token)


@contextmanager
def saving_in_background(jobs: int | None = None) -> Iterator[BackgroundSaver | None]:
    """Within the block, `save_figure` hands each figure to a `BackgroundSaver` of `jobs` processes.

    `jobs` defaults to one per CPU, none on one CPU or where processes cannot fork: while
    the caller computes they share the CPUs with it, and at the end, when it only waits
    for the last figures, they have them all. Every child has ended when the block is
    left.
    """
    cpus = os.cpu_count() or 1
    jobs = (cpus if cpus > 1 else 0) if jobs is None else jobs
    if jobs < 1 or not hasattr(os, "fork"):
        yield None
        return
    saver = BackgroundSaver(jobs)
    token = BACKGROUND.set(saver)
    try:
        yield saver
    except BaseException:  # stopping (an error, Ctrl-C): the children are ended, nothing saved again
        BACKGROUND.reset(token)
        saver.reap()
        raise
    BACKGROUND.reset(token)
    saver.drain()


def drawn_by_processes(
    work: Callable[[T], R], items: Sequence[T], jobs: int | None = None, doing: str = "drawing"
) -> list[R]:
    """`work(item)` of each item, in order, computed by `jobs` processes that each save figures as this one does.

    `jobs` defaults to one per CPU (`core.forked`). Each is a forked process with a
    background saver of its own (as many processes as this one's), drained before its
    results come back, and the figures that failed there are added to this one's saver's
    failures (under the owner current here, unless `work` names another).
    """
    parent = os.getpid()
    inherited = BACKGROUND.get()

    def run(taken: Iterator[tuple[int, T]]) -> tuple[list[tuple[int, R]], list[FigureFailure]]:
        if os.getpid() == parent:
            return [(i, work(item)) for i, item in taken], []
        with saving_in_background(inherited.jobs if inherited is not None else 0) as saver:
            if saver is not None and inherited is not None:
                saver.owner = inherited.owner
            done = [(i, work(item)) for i, item in taken]
        return done, saver.failures if saver is not None else []

    results: dict[int, R] = {}
    for done, failures in shared_work(run, list(enumerate(items)), jobs, doing):
        results.update(done)
        if inherited is not None:
            inherited.failures += failures
    return [results[i] for i in range(len(items))]


def new_figure(*args: Any, **kwargs: Any) -> Figure:
    """`matplotlib.figure.Figure(*args, **kwargs)`, matplotlib imported here.

    A process that draws no figure (an analysis whose figures another process draws)
    never imports it.
    """
    from matplotlib.figure import Figure

    return Figure(*args, **kwargs)


def save_figure(fig: Figure, path: Path, *, svg: bool = False, tight: bool = True) -> Path:
    """Write `fig` as a PNG at `path` (and an SVG beside it when `svg`), each through a temporary sibling and a rename.

    Like every other output, so a full disk or a kill never leaves a truncated image.
    Inside `saving_in_background` the figure is saved by a forked process and the file
    exists once the saver has drained.

    The layout (constrained layout, and the tight box around what is drawn) is computed
    once and then frozen for every format: `savefig(bbox_inches="tight")` on a figure with
    a layout engine draws it twice per format (a dry run for the layout and the box, then
    the image), which was most of a report's figure time.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = SAVED.get()
    if saved is not None:
        saved += [path, *([path.with_suffix(".svg")] if svg else [])]
    saver = BACKGROUND.get()
    if saver is not None:
        saver.submit(fig, path, svg, tight)
        return path
    return _save_now(fig, path, svg, tight)


def _save_now(fig: Figure, path: Path, svg: bool, tight: bool, split: bool = False) -> Path:
    """Lay the figure out once, then write the PNG (and the SVG).

    With `split` (in a background saver's process) the SVG is written by a forked process
    while this one writes the PNG: each is a whole drawing, and the last figures of a report
    are waited for.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if fig.canvas is None or not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    with drawn_as_text(fig), _layout_frozen(fig, tight) as bbox:
        formats = [(path, "png"), *([(path.with_suffix(".svg"), "svg")] if svg else [])]
        parent = os.getpid()
        with signals_held():
            other = os.fork() if split and len(formats) == 2 else None
        if other == 0:  # the SVG's process
            code = 1
            try:
                forked_child("saver", parent)
                _write_format(fig, *formats[1], bbox)
                code = 0
            finally:
                os._exit(code)
        for target, kind in formats[:1] if other else formats:
            _write_format(fig, target, kind, bbox)
        if other and os.waitstatus_to_exitcode(os.waitpid(other, 0)[1]) != 0:
            _write_format(fig, *formats[1], bbox)  # its own error, raised here
    return path


def _write_format(fig: Figure, target: Path, kind: str, bbox: Bbox | None) -> None:
    tmp = temp_path(target)
    try:
        fig.savefig(tmp, format=kind, dpi=DPI, bbox_inches=bbox)
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def _layout_frozen(fig: Figure, tight: bool) -> Iterator[Bbox | None]:
    """Lay `fig` out once at the saving resolution (as `savefig`'s dry run does) and keep that layout while saving.

    Yields the padded tight box in inches (None unless `tight`); the figure's layout
    engine and resolution are restored after.
    """
    import matplotlib

    engine, dpi = fig.get_layout_engine(), fig.dpi
    fig.set_dpi(DPI)
    try:
        fig.draw_without_rendering()
        bbox = fig.get_tightbbox().padded(matplotlib.rcParams["savefig.pad_inches"]) if tight else None
        fig.set_layout_engine(None)  # not "none": savefig would still lay out a placeholder engine's figure
        yield bbox
    finally:
        fig.set_layout_engine(engine)
        fig.set_dpi(dpi)


@contextmanager
def drawn_as_text(fig: Figure) -> Iterator[None]:
    """Draw `fig` with every text as its characters.

    Model names, item ids and conditions come from the logs, and matplotlib would parse a
    `$...$` in them as math (an unknown command fails the whole figure) and warn about
    control characters it has no glyph for (printing them raw). No figure of ours uses
    math text.
    """
    import matplotlib
    from matplotlib.category import StrCategoryFormatter
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    text_formatters = (FixedFormatter, FuncFormatter, StrCategoryFormatter)  # tick labels that are texts, not numbers
    with matplotlib.rc_context({"text.parse_math": False}):  # texts matplotlib creates while drawing (ticks)
        for text in fig.findobj(Text):
            text.set_parse_math(False)
            shown = terminal_safe(text.get_text())
            if shown != text.get_text():
                text.set_text(shown)
        for ax in fig.axes:  # tick labels made while drawing, from label lists or categories
            for axis in (ax.xaxis, ax.yaxis):
                if isinstance(axis.get_major_formatter(), text_formatters):
                    axis.set_major_formatter(_shown_as_text(axis.get_major_formatter()))
                if isinstance(axis.get_minor_formatter(), text_formatters):
                    axis.set_minor_formatter(_shown_as_text(axis.get_minor_formatter()))
        yield


def _shown_as_text(formatter: Formatter) -> FuncFormatter:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda x, pos=None: terminal_safe(formatter(x, pos)))


def suptitle(fig: Figure, text: str, fontsize: float = 10) -> None:
    """The figure's title, wrapped to the figure's width (a long one on a narrow figure ran past the frame).

    At most as many characters per line as 0.6 em each fill the width.
    """
    chars = max(20, int(fig.get_figwidth() * 72 / (0.6 * fontsize)))
    fig.suptitle(textwrap.fill(text, chars), fontsize=fontsize)


def model_styles(models: Iterable[str], order: Iterable[str] = ()) -> dict[str, tuple[str, str]]:
    """Model -> (colour, marker), the same for a model in every figure of the run.

    By the model's place among the sorted names of `order` (every model of the run) and
    `models`: a figure showing some models gives each the colour and marker it has in every
    other figure. Each model gets its own marker as well as its own colour (a figure must
    read in grey too); past eight models the markers shift by one per round of colours, so
    no two of the first 64 share both.
    """
    ordered = sorted(dict.fromkeys([*order, *models]))
    return {
        m: (OKABE_ITO[k % len(OKABE_ITO)], MARKERS[(k + k // len(OKABE_ITO)) % len(MARKERS)])
        for k, m in enumerate(ordered)
    }


def short_labels(models: Iterable[str]) -> dict[str, str]:
    """Model -> short label: the last path component when unambiguous, at most LABEL_CHARS."""
    distinct = list(dict.fromkeys(models))
    last = {m: str(m).rsplit("/", 1)[-1] for m in distinct}
    unique = len(set(last.values())) == len(last)
    out = {}
    for m in distinct:
        label = last[m] if unique else str(m)
        out[m] = label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"
    return out if len(set(out.values())) == len(out) else {m: str(m) for m in distinct}


def _data_boxes(ax: Any, half: float) -> np.ndarray:
    """What the matplotlib axes `ax` draws as data, as display-space boxes (x0, y0, x1, y1).

    Each marker a square of half-width `half` around its centre, each error bar its
    segment's box.
    """
    from matplotlib.collections import LineCollection, PathCollection

    centres, boxes = [], []
    for line in ax.lines:
        if line.get_visible() and line.get_marker() not in (None, "", "None", " ") and len(line.get_xydata()):
            centres.append(ax.transData.transform(line.get_xydata()))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, LineCollection):
            for seg in coll.get_segments():
                if len(seg) == 2:
                    (a, b), (c, d) = ax.transData.transform(seg)
                    boxes.append((min(a, c) - 1, min(b, d) - 1, max(a, c) + 1, max(b, d) + 1))
        elif isinstance(coll, PathCollection):
            offsets = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
            if len(offsets):
                centres.append(coll.get_offset_transform().transform(offsets))
    for pts in centres:
        boxes += [(x - half, y - half, x + half, y + half) for x, y in pts if np.isfinite(x) and np.isfinite(y)]
    return np.array(boxes, dtype=float).reshape(-1, 4)


def _free(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """For candidate boxes (n, 4), whether each overlaps none of `others` (m, 4)."""
    if not len(others):
        return np.ones(len(box), dtype=bool)
    dx = np.minimum(box[:, [2]], others[None, :, 2]) - np.maximum(box[:, [0]], others[None, :, 0])
    dy = np.minimum(box[:, [3]], others[None, :, 3]) - np.maximum(box[:, [1]], others[None, :, 1])
    return ~((dx > 0) & (dy > 0)).any(axis=1)


def place_labels(
    ax: Any,
    xs: Sequence[float] | np.ndarray,
    ys: Sequence[float] | np.ndarray,
    texts: Sequence[str],
    fontsize: float = 8,
) -> None:
    """Write each text beside its point on the matplotlib axes `ax`, pushed apart vertically until no two overlap.

    Text boxes are estimated in pixels; a thin leader line joins a moved label to its
    point.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

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
    # Each label in turn takes the nearest free place to the right of its point (above it
    # first: off its own marker and horizontal error bar), free of every marker and error
    # bar (`_data_boxes`) and of the labels already placed, inside the axes when it can.
    obstacles = _data_boxes(ax, 3 * scale)
    frame = ax.get_window_extent(renderer)
    offsets = np.array(
        [
            (dx, dy)
            for dx in (6 * scale, 24 * scale, 48 * scale, 80 * scale)
            for k in range(40)
            for dy in ((2 * scale + k * (h + 1)), (-h - 2 * scale - k * (h + 1)))
        ]
    )
    offsets = offsets[np.argsort(np.hypot(offsets[:, 0] / 2, offsets[:, 1]), kind="stable")]  # nearest first
    placed = np.zeros((0, 4))
    pos = np.zeros((len(texts), 2))
    for n in range(len(texts)):
        lo = pts[n] + offsets
        box = np.column_stack([lo[:, 0], lo[:, 1], lo[:, 0] + w[n], lo[:, 1] + h])
        inside = (box[:, 0] >= frame.x0) & (box[:, 2] <= frame.x1) & (box[:, 1] >= frame.y0) & (box[:, 3] <= frame.y1)
        ok = _free(box, obstacles) & _free(box, placed)
        choice = np.nonzero(ok & inside)[0]
        if not len(choice):
            choice = np.nonzero(ok)[0]
        k = int(choice[0]) if len(choice) else 0
        pos[n] = lo[k]
        placed = np.vstack([placed, box[k]])
    for x, y, (px, py), (lx, ly), text in zip(xs, ys, pts, pos, texts, strict=True):
        offset = ((lx - px) / scale, (ly + h / 2 - py) / scale)
        far = abs(offset[1]) > fontsize or offset[0] > 2 * fontsize
        # The leader starts at the middle of the label's left edge (relpos), which faces its
        # point (every label is to the right of its point), so it needs no clipping against
        # a box around the label (patchA None): matplotlib clips by bisection, which was
        # half of a 60-model figure's drawing time
        leader = {"arrowstyle": "-", "lw": 0.5, "color": "grey", "relpos": (0.0, 0.5), "patchA": None}
        ax.annotate(
            text,
            (x, y),
            xycoords="data",
            xytext=offset,
            textcoords="offset points",
            fontsize=fontsize,
            va="center",
            arrowprops=leader if far else None,
            parse_math=False,
        )
