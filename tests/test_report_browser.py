"""A test that looks: headless Chromium renders report.html; Findings is the first section,
every figure loaded, no table wider than the page outside a fold or scroll box; printed, the
page holds the key tables in full and every figure, with no toggle; screenshots of the
first screen and of the figures are kept (the test's tmp dir, and $REPORT_SCREENSHOTS).

Skipped when /usr/bin/chromium is absent (`apt-get install -y chromium`)."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import time
from pathlib import Path

import pandas as pd
import pytest
from report_support import mock_run, undescribed_tables
from support import REFERENCE
from support.browser import CHROMIUM, FIRST_SCREEN, PRINT_CHECK, WIDTH, chromium, layout

from political_sycophancy.cli import main
from political_sycophancy.report import html as report_html

pytestmark = [pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install -y chromium)"), pytest.mark.figures]
PHASE1_BUDGET = float(os.environ.get("REPORT_PHASE1_BUDGET", "60"))  # seconds to import the paper's Phase 1 data, else skip


def screenshots(report: Path, tmp: Path, label: str) -> dict[str, Path]:
    """PNG of the first screen, and of every figure of the report laid out two to a row."""
    shots = {}
    first = tmp / f"{label}_first_screen.png"
    run = chromium([f"--window-size={WIDTH},{FIRST_SCREEN}", f"--screenshot={first}", report.as_uri()], tmp)
    assert run.returncode == 0 and first.exists(), run.stderr[-2000:]
    shots["first_screen"] = first
    page = report.read_text()
    figures = re.findall(r"<figure[^>]*>.*?</figure>", page, flags=re.S)
    if figures:
        gallery = tmp / f"{label}_figures.html"
        gallery.write_text(
            "<!DOCTYPE html><html><head><meta charset='utf-8'><style>body{margin:8px;font-family:sans-serif}"
            ".g{display:grid;grid-template-columns:1fr 1fr;gap:8px}figure{margin:0}img{width:100%;height:auto}"
            "figcaption{font-size:12px;color:#555}</style></head><body><div class='g'>" + "".join(figures) + "</div></body></html>"
        )
        shot = tmp / f"{label}_figures.png"
        height = gallery_height(figures)
        run = chromium([f"--window-size={WIDTH},{height}", f"--screenshot={shot}", gallery.as_uri()], tmp)
        assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
        shots["figures"] = shot
    keep = os.environ.get("REPORT_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for path in shots.values():
            shutil.copy2(path, Path(keep) / path.name)
    return shots


def gallery_height(figures: list[str]) -> int:
    """Pixels for the figures two to a row, each at half the window's width with its
    aspect ratio (read from the embedded PNG's header), and a caption under each."""
    column = (WIDTH - 24) / 2
    heights = []
    for fig in figures:
        m = re.search(r"data:image/png;base64,([A-Za-z0-9+/=]{32})", fig)
        w, h = png_size_of(base64.b64decode(m.group(1))[:24]) if m else (4, 3)
        heights.append(column * h / w + 60)
    rows = [max(heights[k:k + 2]) for k in range(0, len(heights), 2)]
    return int(sum(rows) + 40)


def png_size_of(head: bytes) -> tuple[int, int]:
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def check(report: Path, tmp: Path, label: str) -> tuple[dict, dict[str, Path]]:
    verdict = layout(report, tmp)
    assert verdict["h2"][:2] == ["headline", "findings"], verdict["h2"]  # the headline block, then the Findings
    assert verdict["images"] >= 1 and verdict["broken"] == [], verdict
    assert verdict["unboxed_wide_tables"] == [], verdict
    assert verdict["scroll_width"] <= verdict["page_width"] + 1, verdict  # nothing pushes the page sideways
    shots = screenshots(report, tmp, label)
    for path in shots.values():
        assert path.stat().st_size > 20_000, path  # a rendered page, not a blank one
    verdict["screenshots"] = {name: {"bytes": path.stat().st_size, "size": png_size(path)} for name, path in shots.items()}
    verdict["pdf"] = printed(report, tmp, label)
    # as printed: the key tables in full, every figure, no toggle and no folded table's rows
    verdict["print"] = layout(report, tmp, script=PRINT_CHECK, print_rules=True)
    assert verdict["print"]["key_tables"] >= 1 and verdict["print"]["key_tables_hidden"] == [], verdict["print"]
    assert verdict["print"]["toggles_shown"] == 0 and verdict["print"]["folded_tables_shown"] == 0, verdict["print"]
    assert verdict["print"]["figures_shown"] == verdict["images"], verdict["print"]
    (tmp / f"{label}_layout.json").write_text(json.dumps(verdict, indent=2))
    keep = os.environ.get("REPORT_SCREENSHOTS")
    if keep:
        shutil.copy2(tmp / f"{label}_layout.json", Path(keep) / f"{label}_layout.json")
    return verdict, shots


def printed(report: Path, tmp: Path, label: str) -> dict:
    """Print the report to PDF as a reader would from the browser (A4, the page's print
    CSS): every figure of the page is in the PDF, on at least one page."""
    pdf = tmp / f"{label}.pdf"
    run = chromium(["--no-pdf-header-footer", f"--print-to-pdf={pdf}", report.as_uri()], tmp)
    assert run.returncode == 0 and pdf.exists(), run.stderr[-2000:]
    data = pdf.read_bytes()
    pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
    images = len(re.findall(rb"/Subtype\s*/Image", data))
    figures = len(re.findall(r"<figure[^>]*>\s*<img", report.read_text()))
    assert pages >= 1 and images >= figures >= 1, (pages, images, figures)
    return {"pages": pages, "images": images, "figures": figures, "bytes": len(data)}


def png_size(path: Path) -> list[int]:
    """[width, height] in pixels, from the PNG header."""
    return list(png_size_of(path.read_bytes()[:24]))


# The Figures section on each run: every figure its data support.
MOCK_FIGURES = {"paper_baseline_positions", "paper_closer_to_dem_by_asker", "paper_pct_by_asker", "paper_sycophancy_left_right",
                "paper_shift_heatmap", "paper_item_shifts", "paper_slant_vs_right", "paper_expected_answer_shares", "paper_perception",
                "paper_sway", "paper_open_ended"}
PHASE1_FIGURES = {"paper_baseline_positions"}  # everything under N: no asker, shift, probe, SWAY or open-ended figure


def paper_figures(out: Path) -> set[str]:
    return {p.stem for p in (out / "figures").glob("paper_*.png")}


def test_mock_six_condition_report_renders(tmp_path):
    # mockllm names: the same models also answer the SWAY and open-ended tasks (scripted)
    out = mock_run(tmp_path / "run", models=("mockllm/alpha", "mockllm/beta", "mockllm/gamma"), probes=True, measures=True)
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


def test_paper_phase1_report_renders(tmp_path):
    from political_sycophancy.pew.replication import import_replication

    responses = REFERENCE / "results_phase1.csv"
    if not responses.exists():
        pytest.skip(f"replication data not found at {REFERENCE}")
    started = time.monotonic()
    items = import_replication(REFERENCE, tmp_path / "items")
    code = main(["import-responses", str(responses), "--items", str(items["pct"]), str(items["typology"]), str(items["atp"]),
                 "--log-dir", str(tmp_path / "logs"), "--use-source-letters", "--skip-unknown",  # 16 ATP items lack benchmarks
                 "--model-column", "model_label"])  # as docs/reproducing.md: the names the Phase 2 report uses
    assert code == 0
    if time.monotonic() - started > PHASE1_BUDGET:
        pytest.skip(f"importing the Phase 1 data took over {PHASE1_BUDGET:.0f} s on this machine")
    out = tmp_path / "analysis"
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(out), "--bootstrap", "200", "--sign-flip-draws", "300"]) == 0
    verdict, shots = check(out / "report.html", tmp_path, "paper_phase1")
    assert "findings" in verdict["h2"] and verdict["images"] >= 1
    assert paper_figures(out) == PHASE1_FIGURES
    page = (out / "report.html").read_text()
    assert "Llama 4 Maverick" in page and "novita/meta-llama" not in page  # labels, not ids (one was truncated)
    # the paper's Phase 1 numbers (its per-model table, Fig. 1's ranges) beside these logs (issue 26)
    table = pd.read_csv(out / "tables" / "paper_vs_logs.csv").set_index("id")
    phase1 = table[table.index.str.startswith("phase1_")]
    assert len(phase1) == 6 * 6 + 5
    assert phase1.drop(index="phase1_gap_items")["status"].eq("agrees").all(), phase1[phase1["status"] != "agrees"]
    assert table.loc["phase1_gap_items", "status"] == "differs" and "definition" in table.loc["phase1_gap_items", "note"]
    # the Phase 2 numbers need the Phase 2 logs
    assert table.loc["drop_C3R_min", "status"] == "not in these logs"
