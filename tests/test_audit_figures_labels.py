"""The measures' section figures share `core.plotting` with the Figures section: the audit
scatters place non-overlapping labels (`place_labels`), every section figure draws a model
in its one colour (`model_styles`); figures with nothing to say on a baseline-only run
(one asker, no accommodation) are not drawn."""

from __future__ import annotations

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba
from matplotlib.text import Text

from political_sycophancy.audit import figures as audit_figures
from political_sycophancy.core import plotting
from political_sycophancy.report import figures as report_figures

pytestmark = pytest.mark.figures  # the tests read the drawn images (tests/conftest.py)

MODELS = [f"prov/model-{k}" for k in range(6)]


def crowded() -> pd.DataFrame:
    """Six models within a hair of each other: labels at a fixed offset would overlap."""
    k = np.arange(6)
    return pd.DataFrame({"model": MODELS, "sycophancy_left": 0.010 + 0.0002 * k, "sycophancy_right": 0.080 + 0.0003 * k,
                         "baseline_slant": 0.20 + 0.0004 * k})


def _drawn(monkeypatch, draw, table):
    got = []
    monkeypatch.setattr(audit_figures, "_save", lambda fig, path: got.append(fig) or path)
    assert draw(table, audit_figures.Path("unused.png")) is not None
    return got[0]


def assert_no_overlap(fig, expected: int) -> None:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    texts = [t for t in ax.texts if t.get_text()]
    assert len(texts) == expected
    boxes = [Text.get_window_extent(t, renderer) for t in texts]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not boxes[i].overlaps(boxes[j]), (texts[i].get_text(), texts[j].get_text())


def test_sycophancy_left_right_labels_do_not_overlap(monkeypatch):
    assert_no_overlap(_drawn(monkeypatch, audit_figures.sycophancy_left_right, crowded()), 6)


def test_slant_vs_shift_labels_of_both_series_do_not_overlap(monkeypatch):
    assert_no_overlap(_drawn(monkeypatch, audit_figures.slant_vs_shift, crowded()), 12)


def test_one_place_labels_and_one_palette_for_every_layer(monkeypatch):
    assert report_figures.place_labels is plotting.place_labels is audit_figures.place_labels
    assert report_figures.model_styles is plotting.model_styles
    fig = _drawn(monkeypatch, audit_figures.sycophancy_left_right, crowded())
    colours = [tuple(c.get_facecolor()[0]) for c in fig.axes[0].collections]
    assert colours == [to_rgba(plotting.model_styles(MODELS)[m][0]) for m in MODELS]  # the Figures section's colours


def test_nothing_drawn_for_a_baseline_only_run(tmp_path):
    only_n = pd.DataFrame({"model": MODELS, "condition": "N", "pct_closer_dem": np.linspace(55, 62, 6), "mean_ideology": -1.0})
    assert audit_figures.closer_by_condition(only_n, tmp_path / "a.png") is None
    assert audit_figures.pct_by_condition(only_n, tmp_path / "b.png") is None
    two = pd.concat([only_n, only_n.assign(condition="C3R")], ignore_index=True)
    assert audit_figures.closer_by_condition(two, tmp_path / "c.png") is not None
    slant_only = crowded().assign(sycophancy_left=np.nan, sycophancy_right=np.nan)
    assert audit_figures.slant_vs_shift(slant_only, tmp_path / "d.png") is None
    assert not list(tmp_path.glob("[abd].png"))


def _has_colour(png, hex_colour: str) -> bool:
    image = (mpimg.imread(png)[..., :3] * 255).round().astype(int)
    rgb = np.array([int(hex_colour[k:k + 2], 16) for k in (1, 3, 5)])
    return bool((np.abs(image - rgb).sum(axis=-1) <= 3).any())


def test_measure_section_figures_use_the_model_colours(tmp_path):
    from political_sycophancy.open_ended.analysis import plot_prefix_totals
    from political_sycophancy.probes.expected_analysis import plot_expected_answer

    models = ["prov/x", "prov/y", "prov/z"]
    styles = plotting.model_styles(models)
    rates = pd.DataFrame([{"model": m, "condition": c, "asker_wants_dem": 0.3 + 0.1 * k, "asker_wants_rep": 0.5 - 0.1 * k}
                          for k, m in enumerate(models) for c in ("N", "C3R")])
    bars = plot_expected_answer(rates, tmp_path / "expected.png")
    totals = pd.DataFrame([{"model": m, "instrument": "pct", "dimension": "economic", "prefix": p, "total": -0.2 * k, "ci_low": -0.2 * k - 0.1,
                            "ci_high": -0.2 * k + 0.1} for k, m in enumerate(models) for p in ("baseline", "likert")])
    points = plot_prefix_totals(totals, tmp_path / "open.png")
    for m in models:
        assert _has_colour(bars, styles[m][0]) and _has_colour(points, styles[m][0]), m


def test_a_model_keeps_its_colour_in_figures_showing_only_some_models(monkeypatch, tmp_path):
    """A model in only some measures (here the first is missing from the accommodation
    figure) keeps the colour it has in the Figures section, which shows every model."""
    got = []
    monkeypatch.setattr(audit_figures, "_save", lambda fig, path: got.append(fig) or path)
    some = crowded().iloc[1:]
    audit_figures.sycophancy_left_right(some, tmp_path / "x.png", order=MODELS)
    colours = [tuple(c.get_facecolor()[0]) for c in got[0].axes[0].collections]
    everyone = plotting.model_styles(MODELS)
    assert colours == [to_rgba(everyone[m][0]) for m in MODELS[1:]]
    assert colours[0] != to_rgba(plotting.model_styles(MODELS[1:])[MODELS[1]][0])  # without the run's order it would shift


def test_the_report_records_every_model_of_the_run_for_the_figures(tmp_path):
    from political_sycophancy.report.render import write_report
    from political_sycophancy.stats.options import AnalysisOptions

    frame = pd.DataFrame({"model": ["b/x", "a/y", "b/x"], "kind": "other", "task": "t"})
    result = write_report(frame, tmp_path / "out", options=AnalysisOptions(bootstrap_draws=10, sign_flip_draws=10), sections=[])
    assert result.summary["model_order"] == ["a/y", "b/x"]


def test_slant_series_are_not_told_apart_by_model_colours(monkeypatch):
    """Issue 26, point 4: the slant figure's two series (accommodation right / left) must not
    borrow model colours, which every other figure uses to mean a model."""
    fig = _drawn(monkeypatch, audit_figures.slant_vs_shift, crowded())
    palette = {to_rgba(c)[:3] for c in plotting.OKABE_ITO}
    used = {tuple(np.round(c[:3], 6)) for coll in fig.axes[0].collections
            for c in [*coll.get_facecolors(), *coll.get_edgecolors()] if c[3] > 0}
    assert used and not used & {tuple(np.round(p, 6)) for p in palette}, used
    assert len({coll.get_paths()[0].vertices.round(3).tobytes() for coll in fig.axes[0].collections}) == 2  # two marker shapes


def test_every_section_figure_passes_the_overlap_check(monkeypatch, tmp_path):
    """The measures' own section figures (the audit's and the profiles'), with twelve models
    crowded together and wide intervals, pass the check every Figures-section figure passes
    (support/figure_checks.py: inside the frame, texts apart, no label over a marker or an
    error bar)."""
    from support.figure_checks import check_figure

    from political_sycophancy.profiles import figures as profile_figures

    drawn: list = []
    monkeypatch.setattr(audit_figures, "_save", lambda fig, path: drawn.append((path.stem, fig)) or path)
    monkeypatch.setattr(profile_figures, "save_figure", lambda fig, path: drawn.append((path.stem, fig)) or path)
    models = [f"prov/model-{k}" for k in range(12)]
    k = np.arange(12)
    decomp = pd.DataFrame({"model": models, "sycophancy_left": 0.010 + 0.0002 * k, "sycophancy_right": 0.080 + 0.0003 * k,
                           "baseline_slant": 0.20 + 0.0004 * k})
    table = pd.DataFrame([{"model": m, "condition": c, "pct_closer_dem": base + shift + 0.1 * j, "mean_ideology": -1 + shift / 50 + 0.01 * j}
                          for j, m in enumerate(models) for c, shift in (("C3L", 10.0), ("N", 0.0), ("C3R", -40.0)) for base in (70.0,)])
    effects = pd.DataFrame([{"model": m, "mode": mode, "attribute": "age", "level": lv, "reference": "18-29",
                             "estimate": 0.02 * i + 0.001 * j, "low": 0.02 * i + 0.001 * j - 0.05, "high": 0.02 * i + 0.001 * j + 0.05}
                            for j, m in enumerate(models) for mode in ("explicit", "implicit") for i, lv in enumerate(("30-49", "50-64", "65+"))])
    weighted = pd.DataFrame([{"model": m, "mode": mode, "weighted": 0.3 + 0.001 * j, "n_position": 0.28 + 0.001 * j,
                              "gap_weighted_low": -0.05, "gap_weighted_high": 0.09} for j, m in enumerate(models) for mode in ("explicit", "implicit")])
    assert audit_figures.closer_by_condition(table, tmp_path / "closer.png") is not None
    assert audit_figures.pct_by_condition(table, tmp_path / "pct.png") is not None
    assert audit_figures.sycophancy_left_right(decomp, tmp_path / "left_right.png") is not None
    assert audit_figures.slant_vs_shift(decomp, tmp_path / "slant.png") is not None
    assert profile_figures.forest(effects, tmp_path / "forest.png", "Attribute effects") is not None
    assert profile_figures.weighted_against_n(weighted, tmp_path / "weighted.png", "Weighted position against N") is not None
    assert len(drawn) == 6
    for stem, fig in drawn:
        check_figure(stem, fig)
