# Long: every figure's shared style and its print fit (palette, markers, labels, sizes at the printed scale).
"""Plotting helpers every figure shares, whatever its layer.

Plotting helpers every figure shares, whatever its layer: the colour-blind-safe
(Okabe-Ito) palette with one colour and marker per model, short model labels, and text
labels placed beside their points without overlapping.

Below the measures (their section figures) and the report (its Figures section), so that
both draw the same model in the same colour, save it the same way (`save_figure`:
atomically, at one resolution) and neither copies the other's code.
"""

from __future__ import annotations

import contextlib
import os
import signal
import textwrap
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from .atomic import temp_path
from .forked import forked_child, shared_work, signals_held
from .text import terminal_safe

if TYPE_CHECKING:  # matplotlib is imported where a figure is made or drawn (about 0.7 s)
    from matplotlib.figure import Figure
    from matplotlib.text import Text
    from matplotlib.ticker import Formatter, FuncFormatter
    from matplotlib.transforms import Bbox

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
# The cue colours, one meaning in every figure: a left (Democrat-coded) asker blue, a right
# (Republican-coded) one red (Okabe-Ito's blue and vermillion), the party colours.
LEFT_CUE, RIGHT_CUE = OKABE_ITO[0], OKABE_ITO[3]
# The models' colours: Okabe-Ito without the cue colours first (so a model is never read as a
# cue), neighbours far apart (orange, bluish green, reddish purple, black, ...); the cue
# colours only past six models.
MODEL_COLOURS = ("#E69F00", "#009E73", "#CC79A7", "#000000", "#56B4E9", "#F0E442", LEFT_CUE, RIGHT_CUE)
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
# Party colours of a diverging map: negative (toward Democrats, or left) blue, positive red.
PARTY_CMAP = "RdBu_r"
# Where report.html's print CSS places a figure (A4 less 14 mm margins; a figure at most
# 230 mm tall, a row of panels at least WIDE_FIGURE times wider than tall at the full
# width) and the smallest text it may print (issue 46 item 6: text of 4 pt in the PDF).
PRINT_WIDTH_IN = (210 - 2 * 14) / 25.4
PRINT_HEIGHT_IN = 230 / 25.4
WIDE_FIGURE = 1.6
CSS_PX_PER_IN = 96
MIN_PRINTED_PT = 7.0
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
    if not getattr(fig, FINISHED, False):
        with drawn_as_text(fig):  # fitting it draws it: texts from the logs stay text there too
            finished_for_print(fig, tight)
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


def placed_scale(width_in: float, height_in: float) -> float:
    """How much report.html's print CSS scales a figure of a given size.

    How much report.html's print CSS scales a figure saved at `width_in` x `height_in`
    inches (its PNG at DPI, shown at 96 CSS px per inch): a row of panels (WIDE_FIGURE)
    fills the text width; any other figure keeps its own size unless wider than the text
    or taller than PRINT_HEIGHT_IN. Text of s pt in the figure prints at s x this.
    """
    if width_in >= WIDE_FIGURE * height_in:
        placed = PRINT_WIDTH_IN
    else:
        placed = min(width_in * DPI / CSS_PX_PER_IN, PRINT_WIDTH_IN, PRINT_HEIGHT_IN * width_in / height_in)
    return placed / width_in


def _laid_out(fig: Figure) -> None:
    """`fig` laid out (drawn without output) unless nothing changed since it last was.

    Matplotlib marks a figure stale when any of its artists changes, and a draw leaves it
    fresh; fitting a figure for print asked for a whole draw per axes and per step, most
    of them of a figure already laid out as it was (56 of 133 in a six-condition report).
    """
    if fig.stale:
        fig.draw_without_rendering()


def printed_box(fig: Figure, tight: bool = True) -> tuple[float, float]:
    """The size in inches of what a figure saves.

    (width, height) in inches of what `fig` saves: its tight box, as `save_figure` writes
    it, or the figure itself (`tight=False`).
    """
    import matplotlib

    fig.set_dpi(DPI)
    _laid_out(fig)
    if not tight:
        width, height = fig.get_size_inches()
        return float(width), float(height)
    box = fig.get_tightbbox().padded(matplotlib.rcParams["savefig.pad_inches"])
    return float(box.width), float(box.height)


def smallest_printed_pt(fig: Figure) -> float:
    """The smallest text of `fig` as report.html prints it, in points (font size x `placed_scale`)."""
    from matplotlib.text import Text

    sizes = [float(t.get_fontsize()) for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes, default=MIN_PRINTED_PT) * placed_scale(*printed_box(fig))


def finished_for_print(fig: Figure, tight: bool = True) -> Figure:
    """The figure made readable where report.html prints it (issue 46 item 6).

    No text under MIN_PRINTED_PT points, the figure no larger than the printed page shows it (so the page
    never shrinks it: each point of text prints at its size), condition ids on the axes as
    their labels (`data/conditions.yaml`), and no marker cut by its axes' frame.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    for text in fig.findobj(Text):
        if text.get_text().strip() and float(text.get_fontsize()) < MIN_PRINTED_PT:
            text.set_fontsize(MIN_PRINTED_PT)
    _condition_labels(fig)
    laid_out = fig.get_layout_engine() is not None
    first = tuple(fig.get_size_inches())
    _fit_to_page(fig, tight, laid_out)
    if _ticks_apart(fig, tight):  # fitted to the page, wrapped labels of neighbouring ticks ran into each other
        _fit_to_page(fig, tight, laid_out)
    _labels_fit(fig)
    if tuple(fig.get_size_inches()) != first:
        _labels_placed_again(fig)
    _unclipped(fig)
    setattr(fig, FINISHED, True)  # a figure saved twice is finished once
    return fig


def _fit_to_page(fig: Figure, tight: bool, laid_out: bool) -> None:
    """The figure made no larger than report.html prints it, so the page never shrinks its text."""
    for _ in range(4):
        width, height = printed_box(fig, tight)
        scale = placed_scale(width, height)
        if scale >= 0.995:
            break
        w, h = fig.get_size_inches()
        fig.set_size_inches(max(1.0, w - width * (1 - scale) - 0.02), max(1.0, h * (1 - (1 - scale) * width / w)))
        if not laid_out:  # a figure laid out once (tight_layout) is laid out again at its new size
            with warnings.catch_warnings():  # (axes it cannot lay out keep their place, as before)
                warnings.filterwarnings("ignore", "This figure includes Axes that are not compatible", UserWarning)
                fig.tight_layout()


# the angle crowded x tick labels are turned to
TURNED = 35


def _crowded(labels: list[Text], renderer: Any) -> bool:
    """Whether any two of these tick labels overlap where they are drawn."""
    boxes = [t.get_window_extent(renderer) for t in labels]
    return any(a.overlaps(b) for k, a in enumerate(boxes) for b in boxes[k + 1 :])


def _ticks_apart(fig: Figure, tight: bool) -> bool:
    """X tick labels that overlap made smaller (not below MIN_PRINTED_PT as printed), else turned; whether any were.

    A heat map's wrapped condition labels ("Institutional right (Heritage)") and six model
    names side by side ran into their neighbours once the figure was fitted to the page.
    """
    _laid_out(fig)
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # an Agg canvas (finished_for_print)
    changed = False
    for ax in fig.axes:
        low, high = sorted(ax.xaxis.get_view_interval())
        ticks = [
            t
            for t in ax.xaxis.get_major_ticks()
            if low - 1e-9 <= t.get_loc() <= high + 1e-9 and t.label1.get_visible() and t.label1.get_text().strip()
        ]
        labels = [t.label1 for t in ticks]
        if len(labels) < 2 or not _crowded(labels, renderer):
            continue
        changed = True
        smallest = MIN_PRINTED_PT / min(1.0, placed_scale(*printed_box(fig, tight)))
        if float(labels[0].get_fontsize()) > smallest:
            for t in labels:
                t.set_fontsize(smallest)
            _laid_out(fig)
            if not _crowded(labels, renderer):
                continue
        # still crowded: one line each, turned (set through the axis: a tick label's own text is its formatter's)
        ax.set_xticks(
            [t.get_loc() for t in ticks],
            [" ".join(t.get_text().split()) for t in labels],
            rotation=TURNED,
            ha="right",
            rotation_mode="anchor",
            fontsize=float(labels[0].get_fontsize()),
        )
    if changed:
        _laid_out(fig)
    return changed


# the attribute a figure `finished_for_print` carries
FINISHED = "_finished_for_print"
# the gid of the labels `place_labels` writes, so a figure fitted to the page can place them again
PLACED_LABEL = "placed-label"


def _labels_placed_again(fig: Figure) -> None:
    """Point labels placed again once the figure was fitted to the page.

    The points' labels (`place_labels`) placed again once the figure was fitted to the page:
    they were placed at the figure's first size, where a label inside its axes may now run
    past the frame or over another.
    """
    from matplotlib.text import Annotation

    for ax in fig.axes:
        labels = [t for t in ax.texts if isinstance(t, Annotation) and t.get_gid() == PLACED_LABEL]
        if not labels:
            continue
        xs = [float(t.xy[0]) for t in labels]
        ys = [float(t.xy[1]) for t in labels]
        texts = [t.get_text() for t in labels]
        size = float(labels[0].get_fontsize())
        for t in labels:
            t.remove()
        place_labels(ax, xs, ys, texts, fontsize=size)


def _labels_fit(fig: Figure) -> None:
    """An axis label too long for its axes made smaller, not below the printed minimum.

    An axis label longer than its axes (after the figure was fitted to the page) made
    smaller, not below MIN_PRINTED_PT: it ran over the panel's title or its neighbour.
    """
    _laid_out(fig)
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # an Agg canvas (finished_for_print)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        box = ax.get_window_extent()
        for label, room, along in ((ax.yaxis.label, box.height, "height"), (ax.xaxis.label, box.width, "width")):
            if not label.get_text().strip():
                continue
            size = getattr(label.get_window_extent(renderer), along)
            if size > room > 0:
                label.set_fontsize(max(MIN_PRINTED_PT, float(label.get_fontsize()) * room / size))


# how a figure names an instrument id (the logs' ids are lower case)
INSTRUMENT_NAMES = MappingProxyType({"atp": "ATP", "pct": "PCT", "typology": "Pew Typology"})


def display_name(instrument: str) -> str:
    """An instrument id as a figure names it (`atp` -> "ATP"); another id as it is."""
    return INSTRUMENT_NAMES.get(str(instrument), str(instrument))


def condition_label(condition: str) -> str:
    """A condition id's human label.

    A condition id's label (`data/conditions.yaml`: C3L -> "Explicit left (progressive
    Democrat)"); an id that is not built in as it is.
    """
    from .conditions import builtin_conditions

    found = builtin_conditions().get(str(condition))
    return found.label if found is not None else str(condition)


def _condition_labels(fig: Figure) -> None:
    """Tick labels that are condition ids shown as the conditions' labels.

    Tick labels that are built-in condition ids (C3L, P_ORD) as the conditions' labels,
    wrapped to the tick's width.
    """
    from .conditions import builtin_conditions

    labels = {cid: c.label for cid, c in builtin_conditions().items()}
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks = axis.get_majorticklocs()
            texts = [t.get_text() for t in axis.get_majorticklabels()]
            if len(texts) != len(ticks) or not any(t in labels for t in texts):
                continue
            size = float(axis.get_majorticklabels()[0].get_fontsize())
            width = 24
            if axis is ax.xaxis and len(ticks) > 1:  # as many characters as the space between two ticks holds
                shown = ax.transData.transform(np.column_stack([ticks, np.zeros(len(ticks))]))[:, 0]
                gap = float(np.min(np.abs(np.diff(shown)))) * 72 / fig.dpi
                width = int(max(7, min(16, gap / (0.6 * size))))
            axis.set_ticks(
                ticks,
                [textwrap.fill(labels.get(t, t), width, break_long_words=False) for t in texts],
                fontsize=min(size, 8.0) if axis is ax.xaxis else size,
            )


def _unclipped(fig: Figure) -> None:
    """Axis limits widened so that no marker is cut by its frame.

    Limits widened where a marker sits on its axes' frame (a share of 1.0 on an axis ending
    at 1.02 showed half a marker): by the marker's radius and a point.
    """
    for ax in fig.axes:
        if not ax.get_visible() or ax.name != "rectilinear":
            continue
        for _ in range(2):
            _laid_out(fig)
            box = ax.get_window_extent()
            need = [0.0, 0.0, 0.0, 0.0]  # left, right, bottom, top, in pixels
            for line in ax.lines:
                data = np.asarray(line.get_xydata(), dtype=float)
                if line.get_marker() in (None, "", "None", " ") or not len(data):
                    continue
                r = line.get_markersize() / 2 * fig.dpi / 72 + 1
                shown = ax.transData.transform(data)
                x, y = shown[np.isfinite(shown).all(axis=1)].T
                if len(x):
                    need = [
                        max(need[0], float(np.max(box.x0 + r - x))),
                        max(need[1], float(np.max(x + r - box.x1))),
                        max(need[2], float(np.max(box.y0 + r - y))),
                        max(need[3], float(np.max(y + r - box.y1))),
                    ]
            if max(need) <= 0:
                break
            for lim, get, setter, span, (lo, hi) in (
                ("x", ax.get_xlim, ax.set_xlim, box.width, (need[0], need[1])),
                ("y", ax.get_ylim, ax.set_ylim, box.height, (need[2], need[3])),
            ):
                if lo <= 0 and hi <= 0 or span <= 0:
                    continue
                a, b = get()
                unit = (b - a) / span
                if lim == "y" and ax.yaxis_inverted() or lim == "x" and ax.xaxis_inverted():
                    lo, hi = hi, lo
                setter(a - max(lo, 0) * unit * 1.05, b + max(hi, 0) * unit * 1.05)


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
    n = len(MODEL_COLOURS)
    return {m: (MODEL_COLOURS[k % n], MARKERS[(k + k // n) % len(MARKERS)]) for k, m in enumerate(ordered)}


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
    left_of = np.zeros(len(texts), dtype=bool)
    for n in range(len(texts)):
        # to the right of the point first; to its left (mirrored) when no free place on the right is inside
        right = pts[n] + offsets
        left = pts[n] + offsets * np.array([-1.0, 1.0]) - np.array([w[n], 0.0])
        lo = np.vstack([right, left])
        box = np.column_stack([lo[:, 0], lo[:, 1], lo[:, 0] + w[n], lo[:, 1] + h])
        inside = (box[:, 0] >= frame.x0) & (box[:, 2] <= frame.x1) & (box[:, 1] >= frame.y0) & (box[:, 3] <= frame.y1)
        ok = _free(box, obstacles) & _free(box, placed)
        choice = np.nonzero(ok & inside)[0]
        if not len(choice):
            choice = np.nonzero(ok[: len(right)])[0]
        k = int(choice[0]) if len(choice) else 0
        pos[n] = lo[k]
        left_of[n] = k >= len(right)
        placed = np.vstack([placed, box[k]])
    for x, y, (px, py), (lx, ly), text, on_left in zip(xs, ys, pts, pos, texts, left_of, strict=True):
        offset = ((lx - px) / scale, (ly + h / 2 - py) / scale)
        far = on_left or abs(offset[1]) > fontsize or offset[0] > 2 * fontsize
        # The leader starts at the middle of the label's left edge (relpos), which faces its
        # point (every label is to the right of its point), so it needs no clipping against
        # a box around the label (patchA None): matplotlib clips by bisection, which was
        # half of a 60-model figure's drawing time
        leader = {
            "arrowstyle": "-",
            "lw": 0.5,
            "color": "grey",
            "relpos": (1.0 if on_left else 0.0, 0.5),
            "patchA": None,
        }
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
            gid=PLACED_LABEL,
        )
