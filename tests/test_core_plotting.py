"""`save_figure` lays a figure out once for all its formats: the images equal what
matplotlib's own `savefig(bbox_inches="tight")` writes, with fewer draws."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from political_sycophancy.core.plotting import DPI, finished_for_print, save_figure


def _figure(layout: str | None) -> Figure:
    fig = Figure(figsize=(7, 4), layout=layout)
    FigureCanvasAgg(fig)
    for k in range(4):
        ax = fig.add_subplot(2, 2, k + 1)
        ax.plot(np.arange(30), np.sin(np.arange(30) / (k + 1)), marker="o")
        ax.set_title(f"a long panel title number {k}")
        ax.set_ylabel("share closer to Democrats")
    fig.suptitle("constrained layout, tight box")
    return fig


def _pixels(path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


pytestmark = pytest.mark.figures  # draws for real (tests/conftest.py)


@pytest.mark.parametrize("layout", ["constrained", None])
def test_one_layout_for_every_format_gives_matplotlibs_own_image(tmp_path, monkeypatch, layout):
    # both fitted to the printed page as save_figure fits a figure (issue 46 item 6), once
    reference = finished_for_print(_figure(layout))
    reference.savefig(tmp_path / "reference.png", dpi=DPI, bbox_inches="tight")
    fig = finished_for_print(_figure(layout))
    draws = []
    original = Figure.draw

    def counted(self, renderer):
        draws.append(1)
        return original(self, renderer)

    monkeypatch.setattr(Figure, "draw", counted)
    save_figure(fig, tmp_path / "ours.png", svg=True)
    monkeypatch.undo()
    assert np.array_equal(_pixels(tmp_path / "ours.png"), _pixels(tmp_path / "reference.png")), layout
    assert (tmp_path / "ours.svg").stat().st_size > 0
    assert len(draws) == 3, (layout, len(draws))  # one layout, then one draw per format (savefig: two each)
    assert fig.get_layout_engine().__class__ is reference.get_layout_engine().__class__  # restored
    assert fig.dpi == reference.dpi


def _panels(n: int) -> Figure:
    fig = Figure(figsize=(6, 4), layout="constrained")  # as printed: not fitted again
    FigureCanvasAgg(fig)
    for k in range(n):
        ax = fig.add_subplot(3, 4, k + 1)
        ax.plot([0.2, 0.5, 0.8], [0.3, 0.6, 0.4], marker="o")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_title(f"panel {k}")
    return fig


def test_fitting_for_print_lays_a_figure_out_again_only_when_it_changed(monkeypatch):
    """A report's figure of twelve panels was laid out again per panel while nothing in it had
    changed (`_unclipped`, `_labels_fit`): what the print fitting draws does not grow with
    the panels when no marker needs room."""
    counts = {}
    for n in (1, 12):
        draws = []
        original = Figure.draw

        def counted(self, renderer, draws=draws, original=original):
            draws.append(1)
            return original(self, renderer)

        monkeypatch.setattr(Figure, "draw", counted)
        finished_for_print(_panels(n))
        monkeypatch.undo()
        counts[n] = len(draws)
    assert counts[12] == counts[1] <= 4, counts


def test_a_leader_runs_from_its_labels_near_edge_to_its_point(tmp_path):
    """From the label's left edge when it is right of its point, from its right edge when
    left of it (a label with no free place inside the frame on the right, issue 46 item 6)."""
    from matplotlib.text import Annotation, Text

    from political_sycophancy.core.plotting import place_labels

    rng = np.random.default_rng(0)
    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.add_subplot()
    x, y = rng.normal(size=40), rng.normal(size=40)
    ax.scatter(x, y)
    place_labels(ax, x, y, [f"provider/model-{i}" for i in range(40)])
    save_figure(fig, tmp_path / "labels.png")
    fig.draw_without_rendering()  # positions at the figure's own resolution, as measured below
    renderer = fig.canvas.get_renderer()
    labels = [a for a in ax.texts if isinstance(a, Annotation)]
    boxes = [Text.get_window_extent(a, renderer) for a in labels]
    leaders = 0
    for label, box in zip(labels, boxes, strict=True):
        if label.arrow_patch is None:
            continue
        leaders += 1
        path = label.arrow_patch.get_path().vertices  # display coordinates
        start, end = path[0], path[-1]
        point = ax.transData.transform(label.xy)
        point = ax.transData.transform(label.xy)
        edge = box.x0 if box.x0 >= point[0] - 1 else box.x1
        assert abs(start[0] - edge) < 4 and abs(start[1] - (box.y0 + box.y1) / 2) < 4, (label.get_text(), start, box)
        assert np.hypot(*(end - point)) < 4, (label.get_text(), end, point)
        for t in np.linspace(0.02, 0.98, 50):  # no point of the leader inside its label's text
            px, py = start + t * (end - start)
            assert not (box.x0 + 1 < px < box.x1 - 1 and box.y0 + 1 < py < box.y1 - 1), label.get_text()
    assert leaders >= 5  # a crowded plot moves labels away from their points


def test_figures_saved_in_the_background_are_the_figures_saved_at_once(tmp_path):
    """Forked processes write the same bytes, the caller's figure is untouched, and every
    file exists once the block is left."""
    from political_sycophancy.core.plotting import saving_in_background

    save_figure(_figure("constrained"), tmp_path / "now.png", svg=True)
    with saving_in_background(jobs=2) as saver:
        assert saver is not None
        for k in range(3):
            save_figure(_figure("constrained"), tmp_path / f"later{k}.png", svg=True)
        assert len(saver.pending) <= 2  # at most `jobs` at once
    assert not saver.pending and not saver.failures
    for k in range(3):
        assert (tmp_path / f"later{k}.png").read_bytes() == (tmp_path / "now.png").read_bytes()
        assert (tmp_path / f"later{k}.svg").stat().st_size > 0
    assert not list(tmp_path.glob("*.tmp*"))


def test_a_background_failure_is_saved_again_here_and_a_lasting_one_reported(tmp_path, monkeypatch):
    import os

    from political_sycophancy.core import plotting

    parent, real = os.getpid(), plotting._save_now

    def fails_in_children(fig, path, svg, tight):
        if os.getpid() != parent or path.name == "broken.png":
            raise RuntimeError(f"planted failure saving {path.name}")
        return real(fig, path, svg, tight)

    monkeypatch.setattr(plotting, "_save_now", fails_in_children)
    with plotting.saving_in_background(jobs=1) as saver:
        saver.owner = "a section"
        save_figure(_figure(None), tmp_path / "saved_here.png")
        save_figure(_figure(None), tmp_path / "broken.png")
    assert (tmp_path / "saved_here.png").stat().st_size > 0  # the child failed, this process saved it
    assert not (tmp_path / "broken.png").exists()
    assert [(f.path.name, f.owner, f.error) for f in saver.failures] == [
        ("broken.png", "a section", "RuntimeError: planted failure saving broken.png")
    ]
