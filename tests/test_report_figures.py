"""The paper's figures with intervals: PNG + SVG, one colour per model, labels that do not overlap."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from political_sycophancy.core.plotting import OKABE_ITO, model_styles, place_labels, short_labels
from political_sycophancy.report.figures import figures_section

pytestmark = pytest.mark.figures  # the tests read the drawn images (tests/conftest.py)

MODELS = [f"prov/model-{k}" for k in range(6)]


def summary() -> dict:
    rng = np.random.default_rng(1)
    models = {}
    for k, m in enumerate(MODELS):
        conds = {}
        for c in ("C3L", "C1L", "CA", "N", "C1R", "C3R"):
            p, s, a = rng.normal(-0.5, 0.3), rng.normal(-0.3, 0.3), rng.uniform(30, 70)
            conds[c] = {"pct": {"scoring": "pct", "mean_ideology": p, "ci": {"mean_ideology": [p - 0.2, p + 0.2]}},
                        "typology": {"scoring": "typology", "score": s, "ci": {"score": [s - 0.3, s + 0.3]}},
                        "atp": {"scoring": "wd", "pct_closer_dem": a, "ci": {"pct_closer_dem": [a - 10, a + 10]}}}
        # six models crowded into one corner: their labels would overlap without placement
        left, right = 0.10 + 0.002 * k, 0.12 + 0.001 * k
        models[m] = {"conditions": conds, "sycophancy_left": left, "sycophancy_right": right,
                     "ci": {"sycophancy_left": [left - 0.05, left + 0.05], "sycophancy_right": [right - 0.04, right + 0.04]}}
    shift_ci = {m: {c: {"atp": {"shift_wd_dem": {"mean": 0.05 * k - 0.1, "ci": [0.05 * k - 0.2, 0.05 * k]}}}
                    for c in ("C3L", "C3R")} for k, m in enumerate(MODELS)}
    return {"models": models, "findings": {"shift_ci": shift_ci}}


def test_figures_section_writes_png_and_svg(tmp_path):
    section = figures_section(summary(), tmp_path)
    assert section is not None and len(section.figures) == 5  # no baseline slant, no probes: the new figures skipped
    assert not list(tmp_path.glob("paper_slant_vs_right.*")) and not list(tmp_path.glob("paper_expected_answer_shares.*"))
    assert not list(tmp_path.glob("paper_perception.*"))
    for path in section.figures.values():
        assert path.suffix == ".png" and path.stat().st_size > 10_000
        assert path.with_suffix(".svg").read_text().lstrip().startswith("<?xml")
    assert figures_section({"models": {}}, tmp_path / "none") is None


def test_model_styles_are_stable_and_colour_blind_safe():
    a = model_styles(MODELS)
    b = model_styles(list(reversed(MODELS)) + ["zzz/other"])
    assert all(a[m] == b[m] for m in MODELS)
    assert {c for c, _ in a.values()} <= set(OKABE_ITO) and len({c for c, _ in a.values()}) == len(MODELS)
    # issue 26 item 4: a marker per model as well as a colour (every marker was a circle); 64 models, 64 pairs
    assert len({mk for _, mk in a.values()}) == len(MODELS)
    many = model_styles([f"m{k:02d}" for k in range(64)])
    assert len(set(many.values())) == 64
    assert short_labels(["a/x", "b/y"]) == {"a/x": "x", "b/y": "y"} and short_labels(["a/x", "b/x"]) == {"a/x": "a/x", "b/x": "b/x"}
    assert len(short_labels(["p/" + "l" * 60])["p/" + "l" * 60]) <= 26


def test_labels_do_not_overlap():
    fig = Figure(figsize=(5, 4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    xs = np.array([0.1, 0.1005, 0.101, 0.1002, 0.3, 0.1008])
    ys = np.array([0.2, 0.2004, 0.2001, 0.2007, 0.1, 0.2003])
    ax.scatter(xs, ys)
    ax.set_xlim(0, 0.4)
    ax.set_ylim(0, 0.4)
    place_labels(ax, xs, ys, [f"model-{k}" for k in range(6)])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [Text.get_window_extent(t, renderer) for t in ax.texts]  # the text, not its leader line
    assert len(boxes) == 6
    for i in range(6):
        for j in range(i + 1, 6):
            assert not boxes[i].overlaps(boxes[j]), (ax.texts[i].get_text(), ax.texts[j].get_text())


def with_slant_and_probes() -> dict:
    s = summary()
    for k, m in enumerate(MODELS):
        slant = 0.2 + 0.01 * k
        s["models"][m]["baseline_slant"] = slant
        s["models"][m]["ci"]["baseline_slant"] = [slant - 0.05, slant + 0.05]
    conds = ("C3L", "N", "C3R")
    s["expected_answer"] = {"by_condition": {c: {"asker_wants_dem (pooled calls)": 0.3 + 0.2 * j, "asker_wants_rep (pooled calls)": 0.6 - 0.2 * j,
                                                 "n_calls": 40} for j, c in enumerate(conds)}}
    s["perception"] = {m: {c: {"mean_rating": 3.0 + j + 0.1 * k, "share_names_auditor": 0.1 * j, "n_calls": 10} for j, c in enumerate(conds)}
                       for k, m in enumerate(MODELS)}
    s["perception"]["all models"] = {c: {"mean_rating": 4.0, "share_names_auditor": 0.2} for c in conds}
    return s


NEW_FIGURES = ("paper_slant_vs_right", "paper_expected_answer_shares", "paper_perception")


def test_slant_and_probe_figures_written_when_data_exist(tmp_path):
    section = figures_section(with_slant_and_probes(), tmp_path)
    assert section is not None and len(section.figures) == 8
    for name in NEW_FIGURES:
        png, svg = tmp_path / f"{name}.png", tmp_path / f"{name}.svg"
        assert png in section.figures.values()
        assert png.stat().st_size > 10_000 and svg.read_text().lstrip().startswith("<?xml")


def test_each_new_figure_skipped_alone_when_its_data_are_missing(tmp_path):
    s = with_slant_and_probes()
    del s["perception"]
    s["expected_answer"] = {"by_condition": {}}
    for m in MODELS:
        del s["models"][m]["sycophancy_right"]  # no right accommodation: neither scatter
    section = figures_section(s, tmp_path)
    assert section is not None
    assert {p.stem for p in section.figures.values()} == {"paper_baseline_positions", "paper_closer_to_dem_by_asker", "paper_pct_by_asker",
                                                          "paper_shift_heatmap"}
    assert not any(tmp_path.glob("paper_slant_vs_right.*")) and not any(tmp_path.glob("paper_perception.*"))
    s2 = with_slant_and_probes()
    s2["expected_answer"]["by_condition"]["N"]["ci"] = {"asker_wants_dem (pooled calls)": [0.4, 0.6]}
    only = figures_section({"expected_answer": s2["expected_answer"]}, tmp_path / "probes")
    assert only is not None and [p.name for p in only.figures.values()] == ["paper_expected_answer_shares.png"]
    assert (tmp_path / "probes" / "paper_expected_answer_shares.svg").stat().st_size > 0
