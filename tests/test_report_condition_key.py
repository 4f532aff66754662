"""Issue 46 item 7: the condition table of a paper-sized run (3 models x 3 instruments x 6 askers:
54 rows x 22 columns) is not open by default. report.html shows a short key table open (one row
per model x instrument, the askers as columns, the instrument's own measure named) and the full
table folded with its CSV link; report.md shows the key table and the full one as its CSV link."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from report_support import mock_run


@pytest.fixture(scope="module")
def paper_sized(tmp_path_factory):
    return mock_run(tmp_path_factory.mktemp("paper_sized"), atp_items=12, pct_items=12, typology_items=8)


def _block(page: str, table: str) -> str:
    start = page.index(f"<h3 id='table-{table}'>")
    return page[start:page.index("<h3", start + 5)]


def test_the_full_condition_table_is_folded_and_a_short_key_table_is_open(paper_sized):
    out = paper_sized
    full = pd.read_csv(out / "tables" / "condition_summary.csv")
    assert full.shape[0] == 54 and full.shape[1] >= 20  # the paper's shape
    page = (out / "report.html").read_text()
    block = _block(page, "condition_summary")
    assert "<details>" in block and " open>" not in block.split("<table")[0], block[:400]
    assert "tables/condition_summary.csv" in block
    key = _block(page, "condition_key")
    assert "<details class='key' open>" in key
    rows = re.findall(r"<tr>", key.split("<table", 1)[1].split("</table>")[0])
    assert len(rows) == 1 + 3 * 3  # the header, then one row per model x instrument
    # the key table comes first, so it is what a reader sees of the section
    assert page.index("<h3 id='table-condition_key'>") < page.index("<h3 id='table-condition_summary'>")
    key_csv = pd.read_csv(out / "tables" / "condition_key.csv")
    assert list(key_csv.columns[:3]) == ["model", "instrument", "measure"]
    assert set(key_csv["measure"]) == {"% closer to Democrats", "mean ideology (PCT item score)", "Typology score"}
    # every value of the key table is the full table's
    atp = full[(full["instrument"] == "atp") & (full["model"] == "mock/alpha")].set_index("condition")["pct_closer_dem"]
    row = key_csv[(key_csv["instrument"] == "atp") & (key_csv["model"] == "mock/alpha")].iloc[0]
    assert all(row[c] == pytest.approx(atp[c]) for c in atp.index)


def test_report_md_shows_the_key_table_and_links_the_full_one(paper_sized):
    md = (paper_sized / "report.md").read_text()
    section = md[md.index("### Results by model, instrument and asker condition"):]
    section = section[:section.index("\n## ")]
    assert "`tables/condition_summary.csv`: 54 rows" in section and "in the CSV" in section
    assert "`tables/condition_key.csv` (9 rows)" in md
