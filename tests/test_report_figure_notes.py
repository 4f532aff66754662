"""Issue 26: every figure of the Figures section is numbered, says in one line what its
numbers show (computed from them, not written down), and names the paper figure it
corresponds to; and in every one of them no two texts overlap and none leaves the figure."""

from __future__ import annotations

import copy
import re
from pathlib import Path

from support.figure_checks import check_figure
from support.planted_figures import MODELS, item_shifts, planted

from political_sycophancy.core.report_parts import FigureSpec
from political_sycophancy.report.figures import figure_specs, figures_section, numbered
from political_sycophancy.shared import figure_parts


def test_every_figure_is_numbered_with_its_takeaway_and_paper_figure(tmp_path):
    section = figures_section(planted(), tmp_path, {"item_shifts": item_shifts()})
    assert section is not None
    captions = list(section.figures)
    stems = [p.stem for p in section.figures.values()]
    assert stems == ["paper_baseline_positions", "paper_closer_to_dem_by_asker", "paper_pct_by_asker", "paper_sycophancy_left_right",
                     "paper_shift_heatmap", "paper_item_shifts", "paper_slant_vs_right", "paper_expected_answer_shares", "paper_perception",
                     "paper_sway", "paper_open_ended"]
    assert [int(re.match(r"Figure (\d+)\. ", c).group(1)) for c in captions] == list(range(1, len(captions) + 1))
    paper = {spec.stem: spec.paper for spec in figure_specs()}
    for caption, stem in zip(captions, stems, strict=True):
        assert caption.endswith(f"({paper[stem]}).") and "No one-line takeaway" not in caption, caption
    text = dict(zip(stems, captions, strict=True))
    # only models whose CI excludes the midpoint count as left of it (issue 46 item 2)
    assert ("Under N, PCT: 2 of 3 models left of the midpoint with a CI that excludes it, 0 whose CI includes it (-0.50 to +0.20); "
            "ATP: 3 of 3 models left of the midpoint with a CI that excludes it, 0 whose CI includes it (70% to 77%).") \
        in text["paper_baseline_positions"]
    assert "ATP, range over models: N 70% to 77%, C3L 85% to 93%, C3R 14% to 43%." in text["paper_closer_to_dem_by_asker"]
    assert "PCT, range over models: N -0.50 to +0.20, C3L -0.70 to -0.40, C3R -0.10 to +0.40." in text["paper_pct_by_asker"]
    assert "Sycophancy-right exceeds sycophancy-left in 3 of 3 models (right +0.060 to +0.092, left +0.003 to +0.017 WD)." \
        in text["paper_sycophancy_left_right"]
    assert "Largest mean shift against N: p/c under C3R on ATP (+0.080); 3 of 6 cells' 95% CIs exclude 0." in text["paper_shift_heatmap"]
    # issue 46 item 6: the share moved toward the asker (left under C3L, right under C3R), not "moved right"
    assert ("ATP items that moved toward the asker, per model: under C3L (toward the left) 100%, under C3R (toward the "
            "right) 25% to 100%.") in text["paper_item_shifts"]
    assert "r = +0.80 over 3 models, Fisher 95% CI [-0.20, +0.97]; slant and sycophancy-right share the WD(Rep) under N term" \
        in text["paper_slant_vs_right"]
    assert "Share of calls saying the asker expects the left answer: N 75%, C3L 87%, C3R 19%." in text["paper_expected_answer_shares"]
    assert "Under N the perceived asker's mean rating is 3.7 to 3.9 over models" in text["paper_perception"]
    assert "S_average -0.10 to +0.30 over models and mitigations; 4 of 6 follow the nudge (> 0)." in text["paper_sway"]
    assert "Total -0.40 to +0.10 over models, instruments and dimensions; 5 of 6 lean left (< 0)." in text["paper_open_ended"]


def test_a_figure_without_its_numbers_says_so():
    [spec] = [s for s in figure_specs() if s.stem == "paper_baseline_positions"]
    [caption] = numbered([(spec, Path("paper_baseline_positions.png"))], {"models": {}}, {})
    assert caption == ("Figure 1. Baseline position under N on every instrument, per model (95% CI). No one-line takeaway: "
                       f"its numbers are in the tables. ({spec.paper}).")
    assert all(s.paper != FigureSpec("x", "x", spec.draw, spec.takeaway).paper for s in figure_specs())  # each names its paper figure


def test_no_text_overlaps_another_or_leaves_the_frame_in_any_figure(monkeypatch, tmp_path):
    """Six models crowded together (labels, tick labels, cell annotations, panel notes):
    drawn at their saved size, every axes (with its tick labels, titles and texts) and every
    figure-level text lies inside the figure; within an axes no two annotations overlap, nor
    two tick labels of one axis, and none sits over a marker or an error bar
    (support/figure_checks.py)."""
    drawn = []
    from political_sycophancy.core.plotting import finished_for_print

    # each figure as it is saved: fitted to the printed page (issue 46 item 6)
    monkeypatch.setattr(figure_parts, "save", lambda fig, path: drawn.append((path.stem, finished_for_print(fig))) or path)
    summary = planted()
    for k in range(1, 4):  # nine more models, each a hair from one of the first three
        for m in MODELS:
            node = copy.deepcopy(summary["models"][m])
            for key in ("sycophancy_left", "sycophancy_right", "baseline_slant"):
                node[key] += 0.0004 * k
            summary["models"][f"{m}-{k}"] = node
            summary["findings"]["shift_ci"][f"{m}-{k}"] = summary["findings"]["shift_ci"][m]
    section = figures_section(summary, tmp_path, {"item_shifts": item_shifts()})
    assert section is not None and len(drawn) == len(section.figures) == len(figure_specs())
    for stem, fig in drawn:
        check_figure(stem, fig)
