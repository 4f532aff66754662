"""Issue 46 item 6: the figures as a reviewer reads them in the printed report. Every figure
of the Figures section, drawn from a planted run and finished as `save_figure` finishes it
(`core.plotting.finished_for_print`): no text under 7 pt where report.html's print CSS
places it (the font sizes read from the matplotlib objects, times the scale the CSS gives a
figure of the saved size: `placed_scale`), no condition id or instrument code on an axis, no
marker cut by its axes' frame; the cues in their colours (left blue, right red) and the
models in colours that are neither."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_hex
from support.planted_figures import MODELS, item_shifts, planted

from political_sycophancy.core import plotting
from political_sycophancy.core.conditions import builtin_conditions
from political_sycophancy.report.figures import figures_section
from political_sycophancy.shared import figure_parts

pytestmark = pytest.mark.figures


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """(stem, figure) of every figure of the Figures section, finished for print."""
    drawn = []
    patch = pytest.MonkeyPatch()
    patch.setattr(figure_parts, "save", lambda fig, path: drawn.append((path.stem, plotting.finished_for_print(fig))) or path)
    try:
        section = figures_section(planted(), tmp_path_factory.mktemp("figs"), {"item_shifts": item_shifts()})
    finally:
        patch.undo()
    assert section is not None and len(drawn) == len(section.figures) >= 10
    return drawn


def test_placed_scale_follows_the_print_css():
    # a row of panels fills the text width (182 mm); another figure keeps its size unless too wide or tall
    assert plotting.placed_scale(14.0, 4.0) == pytest.approx(plotting.PRINT_WIDTH_IN / 14.0)
    assert plotting.placed_scale(5.0, 4.0) == pytest.approx(1.0 * min(plotting.DPI / 96, plotting.PRINT_WIDTH_IN / 5.0))
    assert plotting.placed_scale(8.45, 10.5) == pytest.approx(plotting.PRINT_WIDTH_IN / 8.45)  # the old item panels
    assert plotting.placed_scale(8.45, 10.5) * 7 < 6  # ... printed their 7 pt text at under 6 pt


def test_no_text_under_7_pt_where_the_pdf_places_it(finished):
    small = {stem: round(plotting.smallest_printed_pt(fig), 2) for stem, fig in finished
             if plotting.smallest_printed_pt(fig) < plotting.MIN_PRINTED_PT - 1e-6}
    assert not small, small


def test_axes_name_conditions_and_instruments_not_their_codes(finished):
    codes = set(builtin_conditions())
    for stem, fig in finished:
        for ax in fig.axes:
            ticks = [t.get_text() for t in [*ax.get_xticklabels(), *ax.get_yticklabels()]]
            assert not codes & set(ticks), (stem, codes & set(ticks))
            assert not ax.get_title().startswith(("atp:", "pct:")), (stem, ax.get_title())


def test_no_marker_is_cut_by_its_frame(finished):
    for stem, fig in finished:
        fig.draw_without_rendering()
        for ax in fig.axes:
            if not ax.get_visible() or ax.name != "rectilinear":
                continue
            box = ax.get_window_extent()
            for line in ax.lines:
                if line.get_marker() in (None, "", "None", " ") or not len(line.get_xydata()):
                    continue
                r = line.get_markersize() / 2 * fig.dpi / 72
                xy = ax.transData.transform(np.asarray(line.get_xydata(), dtype=float))
                xy = xy[np.isfinite(xy).all(axis=1)]
                inside = (xy[:, 0] >= box.x0 + r) & (xy[:, 0] <= box.x1 - r) & (xy[:, 1] >= box.y0 + r) & (xy[:, 1] <= box.y1 - r)
                assert inside.all(), (stem, ax.get_title(), xy[~inside][:3])


def test_cues_in_their_colours_and_models_in_others(finished):
    panels = dict(finished)["paper_item_shifts"]
    ax = panels.axes[0]
    colours = [to_hex(c.get_facecolor()[0], keep_alpha=False) for c in ax.collections]
    assert colours == [plotting.LEFT_CUE.lower(), plotting.RIGHT_CUE.lower()]  # C3L blue, C3R red, in one panel
    assert len([a for a in panels.axes if a.get_visible() and a.collections]) == len(MODELS)  # one panel per model
    assert "toward the asker: C3L" in ax.get_title()  # the share moved toward the asker, not "right"
    assert "\u0394slant" in ax.get_title() and "WD(Dem)" not in ax.get_title()  # the axes' quantity
    heat = dict(finished)["paper_shift_heatmap"]
    assert heat.axes[0].images[0].get_cmap().name == plotting.PARTY_CMAP
    six = plotting.model_styles([f"m{k}" for k in range(6)])
    assert not {plotting.LEFT_CUE, plotting.RIGHT_CUE} & {c for c, _ in six.values()}
    assert len({c for c, _ in six.values()}) == 6 and len({m for _, m in six.values()}) == 6


def test_the_persona_panel_has_intervals_points_like_the_cue_panel_and_the_cues_as_references():
    """Issue 46 item 6: the persona panel had no intervals, its axis pointed the other way
    from the cue panel's and was cut to the personas' range without the C3L / C3R references."""
    import pandas as pd

    from political_sycophancy.audit.report_figures import by_asker_figure, persona_points

    summary = planted()
    levels = {"N": 0.26, "C3L": 0.17, "C3R": 0.68, "P_ORD": 0.30, "P_STU": 0.25}
    summary["personas"] = {m: {c: {"mean_wd_dem": v} for c, v in levels.items()} for m in MODELS}
    rng = np.random.default_rng(1)
    rows = [{"model": m, "instrument": "atp", "condition": c, "item_id": f"q{i}", "measure": "wd_dem",
             "baseline": 0.26 + rng.normal(0, 0.05), "value": levels[c] + rng.normal(0, 0.05)}
            for m in MODELS for c in ("P_ORD", "P_STU", "C3L", "C3R") for i in range(30)]
    items = pd.DataFrame(rows)
    points = persona_points(items, MODELS[0], ["N", "P_ORD", "P_STU"])
    assert set(points) == {"N", "P_ORD", "P_STU"} and all(low < mean < high for mean, low, high in points.values())
    fig = plotting.finished_for_print(by_asker_figure(summary, "atp", {"item_shifts": items}))
    cue_ax, persona_ax = fig.axes[:2]
    assert persona_ax.yaxis_inverted() and not cue_ax.yaxis_inverted()  # up = closer to Democrats in both
    assert len(persona_ax.collections) >= len(MODELS)  # each model's error bars
    refs = {to_hex(line.get_color()) for line in persona_ax.lines if line.get_linestyle() == "--"}
    assert {plotting.LEFT_CUE.lower(), plotting.RIGHT_CUE.lower()} <= refs
    low, high = sorted(persona_ax.get_ylim())
    assert low <= 0.17 and high >= 0.68  # the scale holds both cues' references


def test_point_labels_stay_inside_their_axes(finished):
    """Issue 46 item 6: a model's label ran past the right edge of the slant figure's frame."""
    from matplotlib.text import Text

    for stem, fig in finished:
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        for ax in fig.axes:
            box = ax.get_window_extent()
            for t in ax.texts:
                if not (t.get_visible() and t.get_text().strip()) or t.get_transform() == ax.transAxes:
                    continue
                b = Text.get_window_extent(t, renderer)
                assert box.x0 - 1 <= b.x0 and b.x1 <= box.x1 + 1 and box.y0 - 1 <= b.y0 and b.y1 <= box.y1 + 1, \
                    (stem, t.get_text())


def test_the_perception_figure_of_one_condition_puts_the_models_on_its_axis(finished):
    """Issue 46 item 6: with N alone the perception figure had one category on its x axis and
    a 1-7 scale with unlabelled ends; the models go on the axis and the scale says its ends."""
    fig = dict(finished)["paper_perception"]
    rating = [ax for ax in fig.axes if ax.get_ylim()[1] > 5]
    assert rating, [ax.get_ylabel() for ax in fig.axes]
    for ax in fig.axes:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"], ax.get_xlabel()
        assert "model" in ax.get_xlabel()
    ticks = [t.get_text() for t in rating[0].get_yticklabels()]
    assert ticks[0] == "1 very liberal" and ticks[-1] == "7 very conservative" and "4 midpoint" in ticks


@pytest.mark.parametrize(("n_items", "stars"), [(4, 0), (24, 3)])
def test_a_heat_map_star_needs_twenty_items(tmp_path, monkeypatch, n_items, stars):
    """Issue 46 item 2: a star (95% CI excluding 0) rested on 4 items; now on at least 20."""
    from political_sycophancy.audit.report_figures import shift_heatmap

    summary = planted()
    for by_condition in summary["findings"]["shift_ci"].values():
        for by_instrument in by_condition.values():
            for node in by_instrument["atp"].values():
                node["n_items"] = n_items
    drawn = []
    monkeypatch.setattr(figure_parts, "save", lambda fig, path: drawn.append(fig) or path)
    assert shift_heatmap(summary, tmp_path / "heat.png") is not None
    texts = [t.get_text() for ax in drawn[0].axes for t in ax.texts]
    assert sum(t.endswith("*") for t in texts) == stars, texts  # C3R's three intervals exclude 0, C3L's do not
