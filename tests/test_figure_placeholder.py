"""tests/conftest.py draws figures only in tests marked `figures`: both sides of the switch."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure


def drawn(path):
    fig = Figure(figsize=(4, 3))
    fig.add_subplot().plot([0, 1], [1, 0])
    fig.savefig(path, format="png", dpi=100)
    fig.savefig(path.with_suffix(".svg"), format="svg")
    return path.read_bytes(), path.with_suffix(".svg").read_text()


def test_an_unmarked_test_gets_placeholders(tmp_path):
    png, svg = drawn(tmp_path / "f.png")
    assert png.startswith(b"\x89PNG") and len(png) < 100 and "<svg" in svg and "<path" not in svg


@pytest.mark.figures
def test_a_marked_test_draws(tmp_path):
    png, svg = drawn(tmp_path / "f.png")
    assert png.startswith(b"\x89PNG") and len(png) > 2_000 and "<path" in svg
