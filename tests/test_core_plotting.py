"""`save_figure` lays a figure out once for all its formats: the images equal what
matplotlib's own `savefig(bbox_inches="tight")` writes, with fewer draws."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from political_sycophancy.core.plotting import DPI, save_figure


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
    reference = _figure(layout)
    reference.savefig(tmp_path / "reference.png", dpi=DPI, bbox_inches="tight")
    fig = _figure(layout)
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
