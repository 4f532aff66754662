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


@pytest.fixture(scope="module")
def module_drawing(tmp_path_factory):
    """A module-scoped fixture draws when its first test does: it is set up inside that test's
    set-up, before any function-scoped fixture (a report written once per module, as the
    analysis tests do, drew every figure for real before)."""
    return drawn(tmp_path_factory.mktemp("module") / "f.png")


def test_an_unmarked_tests_module_fixture_gets_placeholders(module_drawing):
    png, svg = module_drawing
    assert png.startswith(b"\x89PNG") and len(png) < 100 and "<path" not in svg


@pytest.fixture(scope="module")
def module_drawing_asked_for(tmp_path_factory, drawn_figures):
    with drawn_figures():
        return drawn(tmp_path_factory.mktemp("asked") / "f.png")


def test_a_module_fixture_can_ask_to_draw(module_drawing_asked_for, tmp_path):
    png, svg = module_drawing_asked_for
    assert len(png) > 2_000 and "<path" in svg
    png, svg = drawn(tmp_path / "after.png")  # the test itself is unmarked: placeholders again
    assert len(png) < 100


def test_an_unmarked_test_gets_placeholders(tmp_path):
    png, svg = drawn(tmp_path / "f.png")
    assert png.startswith(b"\x89PNG") and len(png) < 100 and "<svg" in svg and "<path" not in svg


@pytest.mark.figures
def test_a_marked_test_draws(tmp_path):
    png, svg = drawn(tmp_path / "f.png")
    assert png.startswith(b"\x89PNG") and len(png) > 2_000 and "<path" in svg


def command_figures(tmp_path):
    """The figures of `political-sycophancy analyze` run as a command (forked from the zygote)."""
    from support import run_cli

    from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses
    from political_sycophancy.core.items import builtin_path
    from political_sycophancy.logs.importer import import_responses

    frame = synthetic_responses(builtin_pct_items()[:8], ["p/a", "p/b"], ["N", "C3R"], pct_shift={"C3R": 1.0}, seed=3)
    frame.to_csv(tmp_path / "r.csv", index=False)
    import_responses(tmp_path / "r.csv", [builtin_path("pct.csv")], tmp_path / "logs", jobs=1)
    run = run_cli("political-sycophancy", "analyze", "logs", "--out", "out", "--bootstrap", "20", "--sign-flip-draws", "20", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    return sorted((tmp_path / "out" / "figures").glob("*.png"))


def test_an_unmarked_tests_commands_write_placeholders(tmp_path):
    pngs = command_figures(tmp_path)
    assert pngs and all(len(p.read_bytes()) < 100 for p in pngs)


@pytest.mark.figures
def test_a_marked_tests_commands_draw(tmp_path):
    pngs = command_figures(tmp_path)
    assert pngs and all(len(p.read_bytes()) > 2_000 for p in pngs)


def saver_forks(tmp_path, monkeypatch) -> tuple[int, bytes]:
    """The processes forked while saving a figure in the background (`plotting.BackgroundSaver`)."""
    import os

    from political_sycophancy.core import plotting

    forks = []
    real = os.fork

    def counted():
        forks.append(1)
        return real()

    monkeypatch.setattr(os, "fork", counted)
    fig = Figure(figsize=(4, 3))
    fig.add_subplot().plot([0, 1], [1, 0])
    with plotting.saving_in_background(2):
        plotting.save_figure(fig, tmp_path / "f.png")
    monkeypatch.undo()
    return len(forks), (tmp_path / "f.png").read_bytes()


def test_an_unmarked_test_writes_its_placeholder_without_a_saver_process(tmp_path, monkeypatch):
    forks, png = saver_forks(tmp_path, monkeypatch)
    assert forks == 0 and len(png) < 100


@pytest.mark.figures
def test_a_marked_test_saves_in_the_background(tmp_path, monkeypatch):
    forks, png = saver_forks(tmp_path, monkeypatch)
    assert forks == 1 and len(png) > 2_000


def test_a_fresh_interpreter_draws_unless_its_command_starts_with_the_prelude(tmp_path):
    """A test that must start a fresh interpreter (tests/test_report_reuse.py: what a command
    imports) gets placeholders for a run whose figures it does not read."""
    import subprocess
    import sys

    from support.placeholders import PRELUDE

    code = ("import sys; from pathlib import Path; from political_sycophancy.core import plotting\n"
            "fig = plotting.new_figure(figsize=(4, 3)); fig.add_subplot().plot([0, 1], [1, 0])\n"
            "plotting.save_figure(fig, Path(sys.argv[1]))\n")
    sizes = {}
    for prelude in ("", PRELUDE):
        path = tmp_path / f"{bool(prelude)}.png"
        run = subprocess.run([sys.executable, "-c", prelude + code, str(path)], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr[-2000:]
        sizes[bool(prelude)] = len(path.read_bytes())
    assert sizes[False] > 2_000 and sizes[True] < 100, sizes
