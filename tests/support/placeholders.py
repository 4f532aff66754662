"""Placeholder figures: what a figure's file holds in a test that does not look at it.

One place for the stub the suite's processes share: the test worker (tests/conftest.py,
per test), the commands forked from the zygote (support.zygote) and a fresh interpreter a
test starts (`PRELUDE`). `Figure.savefig` writes `PLACEHOLDER` of the requested format,
the layout pass before saving (`draw_without_rendering`, `get_tightbbox`) is skipped, and
the file is written at once rather than by a forked saver process
(`plotting.BackgroundSaver`). The figure code up to the drawing runs either way. No import
of the `support` package, so that `runpy.run_path` can load this file alone.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

# a 1x1 PNG and an empty SVG
PLACEHOLDER = {
    "png": base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
    "svg": b'<?xml version="1.0" encoding="utf-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n',
}

# the first line of a `python -c` command whose figures are placeholders
PRELUDE = f"import runpy; runpy.run_path({str(Path(__file__))!r})['install'](setattr)\n"


def install(setattr_: Callable[[Any, str, Any], None], drawn: Callable[[], bool] = lambda: False) -> None:
    """Replace the drawing with placeholders wherever `drawn()` is false, through `setattr_`
    (`setattr`, or a `pytest.MonkeyPatch`'s, which undoes it)."""
    from matplotlib.figure import Figure

    from political_sycophancy.core import plotting

    real_save, real_layout, real_box = Figure.savefig, Figure.draw_without_rendering, Figure.get_tightbbox
    real_submit = plotting.BackgroundSaver.submit

    def savefig(self, fname, *args, format=None, **kwargs):
        if drawn():
            return real_save(self, fname, *args, format=format, **kwargs)
        data = PLACEHOLDER[format or Path(str(fname)).suffix.lstrip(".") or "png"]
        if hasattr(fname, "write"):
            fname.write(data)
        else:
            Path(fname).write_bytes(data)

    def draw_without_rendering(self):
        return real_layout(self) if drawn() else None

    def get_tightbbox(self, *args, **kwargs):
        return real_box(self, *args, **kwargs) if drawn() else self.bbox_inches

    def submit(self, fig, path, svg, tight):
        if drawn():
            return real_submit(self, fig, path, svg, tight)
        return plotting._save_now(fig, path, svg, tight)  # a placeholder: no process forked to write it

    setattr_(plotting.BackgroundSaver, "submit", submit)
    setattr_(Figure, "savefig", savefig)
    setattr_(Figure, "draw_without_rendering", draw_without_rendering)
    setattr_(Figure, "get_tightbbox", get_tightbbox)
