"""Issue 46 acceptance: on a report built by the real `analyze` (a planted run with the probes,
SWAY and open-ended runs; the paper's published data when the reference files are present), every figure the report
saves, checked as it is saved (in the processes that draw it): no text under 7 pt where the
printed PDF places it, no point cut by its axes' frame or outside it, no raw identifier (a
condition id, an instrument key, a snake_case column name) as an axis label, tick label or
title; and no raw identifier as a table header of report.html."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from report_support import mock_run, undescribed_tables
from support import REFERENCE
from support.browser import CHROMIUM, check, paper_figures
from support.figure_checks import drawn_tick_labels

from political_sycophancy.cli import main
from political_sycophancy.core import plotting
from political_sycophancy.core.conditions import builtin_conditions
from political_sycophancy.report import html as report_html

pytestmark = [pytest.mark.figures, pytest.mark.slow]

INSTRUMENT_KEYS = {"atp", "pct", "typology"}
SNAKE = re.compile(r"^[A-Za-z0-9]+(_[A-Za-z0-9]+)+$")  # wd_dem, P_ORD, condition_summary


def raw_identifier(text: str) -> bool:
    """Whether a label is a machine name a reader should not see: an instrument key, a persona or
    condition id with an underscore, a condition id alone on an axis, or a snake_case name."""
    t = text.strip()
    return t in INSTRUMENT_KEYS or bool(SNAKE.match(t))


def _figure_record(fig, path: Path) -> dict:
    """What the checks need of one saved figure: its smallest printed text, its cut points, its raw labels."""
    fig.draw_without_rendering()
    cut = []
    for ax in fig.axes:
        if not ax.get_visible() or ax.name != "rectilinear":
            continue
        box = ax.get_window_extent()
        points = []
        for line in ax.lines:
            if line.get_visible() and line.get_marker() not in (None, "", "None", " ") and len(line.get_xydata()):
                r = line.get_markersize() / 2 * fig.dpi / 72
                points += [(xy, r) for xy in ax.transData.transform(np.asarray(line.get_xydata(), dtype=float))]
        points = [(xy, r, r) for xy, r in points]
        for coll in ax.collections:
            offsets = coll.get_offsets() if hasattr(coll, "get_offsets") else []
            if coll.get_visible() and len(offsets) and type(coll).__name__ == "PathCollection":
                # a marker's path is scaled by sqrt(size) points; its half-extent on each axis, and its line
                ext = coll.get_paths()[0].get_extents()
                side = float(np.sqrt(coll.get_sizes().max())) if len(coll.get_sizes()) else 0.0
                pad = float(np.max(coll.get_linewidths())) / 2 if len(coll.get_linewidths()) else 0.0
                rx = (max(abs(ext.x0), abs(ext.x1)) * side + pad) * fig.dpi / 72
                ry = (max(abs(ext.y0), abs(ext.y1)) * side + pad) * fig.dpi / 72
                points += [(xy, rx, ry) for xy in coll.get_offset_transform().transform(offsets)]
        for (x, y), rx, ry in points:
            if np.isfinite(x) and np.isfinite(y) and not (
                box.x0 + rx - 0.5 <= x <= box.x1 - rx + 0.5 and box.y0 + ry - 0.5 <= y <= box.y1 - ry + 0.5
            ):
                cut.append([ax.get_title()[:40], round(float(x), 1), round(float(y), 1)])
    codes = set(builtin_conditions())
    raw = []
    for ax in fig.axes:
        labels = [ax.get_xlabel(), ax.get_ylabel(), ax.get_title()]
        ticks = [t.get_text() for t in [*ax.get_xticklabels(), *ax.get_yticklabels()]]
        raw += [t for t in labels + ticks if t.strip() and raw_identifier(t)]
        raw += [t for t in ticks if t.strip() in codes]  # an axis names conditions by their labels
    renderer = fig.canvas.get_renderer()
    crowded = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = drawn_tick_labels(axis)
            turned = [t for t in labels if t.get_rotation() % 180]
            if turned and axis is ax.xaxis:  # parallel turned lines are apart when their anchors are a line apart across
                xs = np.sort([ax.transData.transform((t.get_position()[0], 0))[0] for t in turned])
                line = max(float(t.get_fontsize()) for t in turned) * 1.15 * fig.dpi / 72
                across = np.sin(np.radians(turned[0].get_rotation())) * np.diff(xs)
                crowded += [[turned[0].get_text(), f"turned labels {d:.0f} px apart across"] for d in across if d < line]
                continue
            boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in labels]
            crowded += [[a, b] for k, (a, box) in enumerate(boxes) for b, other in boxes[k + 1:] if box.overlaps(other)]
    zeros = [t.get_text() for ax in fig.axes for t in ax.texts if re.fullmatch(r"[-+−]0\.0+\*?", t.get_text().strip())]
    return {"stem": path.stem, "smallest_pt": plotting.smallest_printed_pt(fig), "cut": cut[:5], "raw": raw,
            "crowded": crowded[:5], "signed_zeros": zeros[:5]}


PAPER_LOGS = os.environ.get("POLITICAL_SYCOPHANCY_PAPER_LOGS")


def _paper(tmp: Path) -> Path:
    """The paper's report, analysed from its logs (imported as docs/reproducing.md does; the import
    and the analysis take 2-4 min, so the logs are given by their folder rather than imported here)."""
    if not (REFERENCE / "phase2_alignment_by_condition.csv").exists():
        pytest.skip(f"replication data not found at {REFERENCE}")
    if not PAPER_LOGS:
        pytest.skip("set POLITICAL_SYCOPHANCY_PAPER_LOGS to the paper's logs imported as docs/reproducing.md does")
    out = tmp / "paper"
    assert main(["analyze", str(PAPER_LOGS), "--out", str(out), "--bootstrap", "200", "--sign-flip-draws", "300"]) == 0
    return out


def _planted(tmp: Path) -> Path:
    """A planted three-model run with the probes, and SWAY and open-ended runs of the same
    (scripted `mockllm/`) models: every figure of the Figures section."""
    return mock_run(tmp / "run", models=("mockllm/alpha", "mockllm/beta", "mockllm/gamma"), probes=True, measures=True)


@pytest.fixture(scope="module", params=["planted", "paper"])
def recorded(request, tmp_path_factory):
    """The checks of every figure the report shows, recorded as `analyze` saved it, and the report's folder."""
    tmp = tmp_path_factory.mktemp(request.param)
    log = tmp / "figures.jsonl"
    real = plotting._save_now

    def checked(fig, path, svg, tight, split=False):
        out = real(fig, path, svg, tight, split)
        line = json.dumps(_figure_record(fig, Path(path))) + "\n"
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)  # the figure processes append, each a line
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
        return out

    patch = pytest.MonkeyPatch()
    patch.setattr(plotting, "_save_now", checked)  # before `analyze` forks its figure processes
    try:
        out = (_paper if request.param == "paper" else _planted)(tmp)
    finally:
        patch.undo()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    # the figures report.html (and so its PDF) shows: a section figure the Figures section redraws is not shown
    saved = {p.stem for p in (out / "figures").glob("*.png")}
    superseded = report_html.layout().superseded
    return out, [r for r in records if superseded.get(r["stem"]) not in saved]


def test_every_figure_of_the_page_was_checked(recorded):
    out, records = recorded
    page = (out / "report.html").read_text()
    shown = len(re.findall(r"<figure[^>]*>\s*<img", page))
    assert shown >= 5 and len({r["stem"] for r in records}) == shown, (shown, sorted(r["stem"] for r in records))


def test_no_printed_text_under_7_pt(recorded):
    _, records = recorded
    small = {r["stem"]: round(r["smallest_pt"], 2) for r in records if r["smallest_pt"] < plotting.MIN_PRINTED_PT - 1e-6}
    assert not small, small


# what each figure must not hold: no point cut by its frame, no raw identifier on an axis, no two
# tick labels over one another, no "-0.00" (a direction the number does not have, issue 46 item 8)
@pytest.mark.parametrize("check", ["cut", "raw", "crowded", "signed_zeros"])
def test_no_figure_breaks_a_print_rule(recorded, check):
    _, records = recorded
    broken = {r["stem"]: r[check] for r in records if r[check]}
    assert not broken, broken


def test_no_raw_identifier_in_a_figure_caption(recorded):
    out, _ = recorded
    page = (out / "report.html").read_text()
    captions = [re.sub(r"\(vector: [^)]*\)", "", html.unescape(re.sub(r"<[^>]+>", "", c))).strip()
                for c in re.findall(r"<figcaption>(.*?)</figcaption>", page, flags=re.S)]
    assert captions
    raw = [c for c in captions if raw_identifier(c) or re.search(r"(?<![\w/.-])(atp|pct|typology)(?![\w/.-])", c)]
    assert not raw, raw


def table_headers(page: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", h)).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", page, flags=re.S)]


def test_no_raw_identifier_as_a_table_header(recorded):
    out, _ = recorded
    headers = table_headers((out / "report.html").read_text())
    assert len(headers) > 100
    raw = sorted({h for h in headers if raw_identifier(h)})
    assert not raw, raw


# The Figures section of the planted run: every figure its data support.
MOCK_FIGURES = {"paper_baseline_positions", "paper_closer_to_dem_by_asker", "paper_pct_by_asker", "paper_sycophancy_left_right",
                "paper_shift_heatmap", "paper_item_shifts", "paper_slant_vs_right", "paper_expected_answer_shares", "paper_perception",
                "paper_sway", "paper_open_ended"}


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install -y chromium)")
def test_the_planted_six_condition_report_renders(recorded, request, tmp_path):
    """The planted report in headless Chromium (tests/test_report_browser.py says what is looked at)."""
    if request.node.callspec.params["recorded"] != "planted":
        pytest.skip("the figure set asserted is the planted run's")
    out, _ = recorded
    verdict, shots = check(out / "report.html", tmp_path, "mock")
    stems = {p.stem for p in (out / "figures").glob("*.png")}
    assert verdict["images"] == len([s for s in stems if report_html.layout().superseded.get(s) not in stems])  # each figure shown once
    assert paper_figures(out) == MOCK_FIGURES
    assert all((out / "figures" / f"{name}.svg").exists() for name in MOCK_FIGURES)
    assert set(shots) == {"first_screen", "figures"}
    gallery = (tmp_path / "mock_figures.html").read_text()
    assert len(re.findall(r"<figure[ >]", gallery)) == verdict["images"]
    # every measure's tables (audit, probes, SWAY, open-ended) under a human title, each column explained
    assert undescribed_tables(out) == {}


def test_the_raw_identifier_rule():
    assert raw_identifier("wd_dem") and raw_identifier("P_ORD") and raw_identifier("atp")
    assert not raw_identifier("WD(Dem)") and not raw_identifier("Explicit left (progressive Democrat)")
    assert not raw_identifier("ATP") and not raw_identifier("Model")
