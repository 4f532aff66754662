"""A test that looks: headless Chromium renders report.html; Findings is the first section,
every figure loaded, no table wider than the page outside a fold or scroll box; printed, the
page holds the key tables in full and every figure, with no toggle; screenshots of the
first screen and of the figures are kept (the test's tmp dir, and $REPORT_SCREENSHOTS).
Here the report of the paper's Phase 1 data; the planted six-condition report is looked at in
tests/test_report_print_checks.py, on the run whose figures are checked as they are saved.

Skipped when /usr/bin/chromium is absent (`apt-get install -y chromium`)."""

from __future__ import annotations

import os
import time

import pandas as pd
import pytest
from support import REFERENCE
from support.browser import CHROMIUM, check, paper_figures

from political_sycophancy.cli import main

pytestmark = [pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install -y chromium)"), pytest.mark.figures]
PHASE1_BUDGET = float(os.environ.get("REPORT_PHASE1_BUDGET", "60"))  # seconds to import the paper's Phase 1 data, else skip
PHASE1_FIGURES = {"paper_baseline_positions"}  # everything under N: no asker, shift, probe, SWAY or open-ended figure


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
