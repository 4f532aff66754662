"""report.html for reading: self-contained, tables rounded and folded, CSVs untouched, prints cleanly."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from support.analysis import PCT_FILE, frame_from_import

from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses, write_atp_items
from political_sycophancy.core.conditions import PHASE2
from political_sycophancy.core.items import load_items
from political_sycophancy.report.html import _table_block, column_formatter, split_definition, table_html
from political_sycophancy.report.render import write_report
from political_sycophancy.stats.options import AnalysisOptions


@pytest.fixture(scope="module")
def report(tmp_path_factory, drawn_figures):
    """A report whose figures are drawn (the page's layout depends on their sizes)."""
    tmp = tmp_path_factory.mktemp("html")
    items = load_items(write_atp_items(tmp / "atp.csv", 10, seed=1), instrument="atp") + builtin_pct_items()[:12]
    responses = synthetic_responses(items, ["m/a", "m/b"], list(PHASE2), atp_shift={"C3R": -0.3}, pct_shift={"C3R": 0.8},
                                    refusal_rate=0.05, seed=5)
    with drawn_figures():
        return write_report(frame_from_import(responses, [tmp / "atp.csv", PCT_FILE]), tmp / "out", options=AnalysisOptions(bootstrap_draws=100, sign_flip_draws=200))


def test_column_formatter_rounds_for_reading():
    fmt = column_formatter("mean_wd_dem", pd.Series([0.123456, 0.5, 0.98765]))
    assert fmt(0.123456) == "0.123" and fmt(float("nan")) == ""
    assert column_formatter("pct_closer_dem", pd.Series([43.75, 66.6667]))(66.6667) == "66.7"
    assert column_formatter("n_items", pd.Series([12.0, 1200.0]))(1200.0) == "1,200"
    p = column_formatter("wilcoxon_p", pd.Series([0.65234375, 0.000123]))
    assert p(0.65234375) == "0.652" and p(0.000123) == "0.0001" and p(0.0000123) == "< 0.0001"  # core.numbers.p_text
    assert column_formatter("model", pd.Series(["a", "b"]))("<b>") == "<b>"  # escaped by table_html
    assert "&lt;b&gt;" in table_html(pd.DataFrame({"model": ["<b>"]}))


def test_wide_tables_fold_with_their_csv_link():
    wide = pd.DataFrame({f"c{i}": [0.1234] for i in range(12)})
    block = _table_block("conditions", "wide", wide, "tables/wide.csv")
    assert "<details>" in block and "href='tables/wide.csv'" in block and "class='tw'" in block
    small = pd.DataFrame({"model": ["a"], "estimate": [0.1234]})
    block = _table_block("mixed", "small", small, "tables/small.csv")
    assert "<details>" not in block and "href='tables/small.csv'" in block and "class='tw'" in block
    assert "<details>" in _table_block("overview", "task_kinds", small, "tables/task_kinds.csv")


def test_definition_is_one_sentence_with_the_rest_folded():
    text = ("shift = value under the condition - value under N, per model and item answered in both. Wilcoxon signed-rank test "
            "per model x condition x measure on the nonzero shifts, two-sided. " + "More detail. " * 30
            + "\n\n**Not computable from these logs:**\n\n- something")
    lead, folded, keep = split_definition(text)
    assert lead.endswith("answered in both.") and folded.startswith("Wilcoxon") and keep.startswith("**Not computable")


def test_page_is_self_contained_and_prints(report):
    out = report.out_dir
    page = (out / "report.html").read_text()
    assert re.findall(r"<img[^>]*src='([^']*)'", page) and all(s.startswith("data:image/") for s in re.findall(r"<img[^>]*src='([^']*)'", page))
    assert "<link" not in page and "http://" not in page and "https://" not in page
    assert "@media print" in page and "@page" in page
    assert re.findall(r"<h2 id='([^']+)'", page)[:2] == ["headline", "findings"]
    assert "Definitions and formulas" in page and "<details>" in page
    # Every table sits in a scroll box.
    assert page.count("<table>") == page.count("<div class='tw'><table>")


def test_csvs_on_disk_keep_every_digit(report):
    out = report.out_dir
    csv = pd.read_csv(out / "tables" / "condition_summary.csv")
    built = dict(report.sections)["conditions"].tables["condition_summary"]
    pd.testing.assert_frame_equal(csv[["mean_wd_dem"]], built[["mean_wd_dem"]].reset_index(drop=True), check_dtype=False)
    shown = {f"{v:.3f}" for v in built["mean_wd_dem"].dropna()}
    page = (out / "report.html").read_text()
    assert any(s in page for s in shown)
    assert not any(f"{v!r}" in page for v in built["mean_wd_dem"].dropna() if len(repr(v)) > 8)


def test_nullable_columns_show_blank_cells():
    table = pd.DataFrame({"n": pd.array([1, None], dtype="Int64"), "x": pd.array([0.5, None], dtype="Float64"), "s": ["a", None]})
    page = table_html(table)
    assert page.count("<td class='n'></td>") == 2 and "<td></td>" in page


def test_figures_come_after_findings_and_each_is_shown_once(report):
    page = (report.out_dir / "report.html").read_text()
    h2 = re.findall(r"<h2 id='([^']+)'", page)
    assert h2[:3] == ["headline", "findings", "figures"]
    assert page.count("<img") == len(re.findall(r"<figure[ >]", page))
    assert "shown with its CIs under <a href='#figures'>" in page
    assert (report.out_dir / "figures" / "closer_to_dem_by_condition.png").exists()  # still on disk
    assert (report.out_dir / "figures" / "paper_closer_to_dem_by_asker.svg").exists()


def test_page_runs_no_script(report):
    assert "<script" not in (report.out_dir / "report.html").read_text().lower()


def test_one_number_format_per_column_and_no_scientific_notation():
    """Issue 26 item 6: `2.52e-241` and `0.00e+00` p-values, `-7.58e-03` among 3-decimal
    values, `-7.11e-15` for "unchanged", a seed printed "20,260"."""
    from political_sycophancy.report.render import markdown_table

    table = pd.DataFrame({"p": [2.52e-241, 0.0, 0.0346, 0.5, 0.05], "shift": [0.123, -7.58e-03, -7.11e-15, 0.456, 0.2],
                          "zero": [0.0, 0.25, 0.5, 0.5, 0.5], "seed": [20260, 20260, 1, 1, 1], "n_items": [28450, 12, 3, 3, 3]})
    shown = {c: [column_formatter(c, table[c])(v) for v in table[c]] for c in table.columns}
    assert shown["p"][:3] == ["< 0.0001", "< 0.0001", "0.0346"]
    assert shown["shift"][:3] == ["0.123", "-0.008", "0"]
    assert shown["zero"][:2] == ["0", "0.250"]
    assert shown["seed"][:3] == ["20260", "20260", "1"] and shown["n_items"][:2] == ["28,450", "12"]
    md = markdown_table(table)
    assert "e-" not in md and "e+" not in md
    assert md.splitlines()[4] == "| 0.0346 | 0 | 0.500 | 1 | 3 |"


def test_a_long_table_is_a_csv_link_with_a_summary_not_a_preview():
    """Issue 26 item 6: the 28,450-row item_shifts was previewed (its first rows)."""
    table = pd.DataFrame({"model": ["m"] * 400, "measure": ["wd_dem", "ideology"] * 200,
                          "shift": [k / 400 for k in range(400)]})
    block = _table_block("shifts", "item_shifts", table, "tables/item_shifts.csv")
    assert "<table>" not in block and "tables/item_shifts.csv" in block
    # issue 46 item 7: no mean over rows of unlike quantities (a WD shift beside a PCT score shift)
    assert "400 rows" in block and "rows of 1 Model value, 2 Measure values" in block and "mean" not in block


def test_print_holds_the_key_tables_and_no_toggles(report):
    """Issue 26 item 7: the printed PDF was dead "Show table" toggles: key tables are open
    (so they print), other folded tables print as their CSV path, and a row of panels
    prints at the full width."""
    page = (report.out_dir / "report.html").read_text()
    for key in ("condition_key", "decomposition", "sign_flip"):
        block = page[page.index(f"id='table-{key}'"):]
        assert block.index("<details class='key' open>") < block.index("</details>"), key
    assert "<span class='toggle'>Show table </span>" in page  # the other folded tables
    style = page[page.index("@media print"):]
    assert "span.toggle{display:none}" in style and "details>summary{list-style:none}" in style
    assert "figure.wide img{width:100%;max-height:none}" in style
    assert "<figure class='wide'>" in page  # the multi-panel figures


def test_many_p_values_carry_a_multiplicity_note(report):
    """Issue 26 (statistics): a table of many unadjusted p-values (one Wilcoxon test per
    model x condition x instrument) was shown with no word on multiplicity."""
    p = [0.001, 0.004, 0.02, 0.03, 0.2, 0.5, 0.04, 0.9]
    table = pd.DataFrame({"model": list("abcdefgh"), "wilcoxon_p": p, "min_p": [0.01] * 8, "p_plus": [0.001] * 8})
    block = _table_block("shifts", "shift_summary", table, "tables/shift_summary.csv")
    # 5 below 0.05, 8 x 0.05 = 0.4 by chance; Holm: 0.001 x 8 = 0.008 and 0.004 x 7 = 0.028 stay, 0.02 x 6 = 0.12 does not
    assert "8 p-values in this table, each unadjusted: 5 below 0.05, where about 0.4 would be by chance" in block
    assert "2 stay below 0.05 after Holm&#x27;s adjustment within the table" in block
    few = _table_block("shifts", "t", table.head(4), "tables/t.csv")
    assert "p-values in this table" not in few  # a test's floor (min_p) and SWAY's p_plus are not p-values
    page = (report.out_dir / "report.html").read_text() + (report.out_dir / "report.md").read_text()
    assert "p-values in this table, each unadjusted" in page


def test_holm_equals_statsmodels_on_planted_p_values():
    import numpy as np
    from statsmodels.stats.multitest import multipletests

    from political_sycophancy.stats.multiplicity import holm

    rng = np.random.default_rng(3)
    for m in (1, 2, 7, 40):
        p = np.concatenate([rng.uniform(0, 1, m - m // 3), rng.uniform(0, 0.01, m // 3)])
        assert np.allclose(holm(p), multipletests(p, method="holm")[1])
    assert list(holm([0.01, 0.04, 0.03, 0.005])) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_a_section_that_cannot_be_computed_is_one_line_not_a_heading(tmp_path):
    """Issue 26 item 8: on Phase 1 data half the sections were headings over one sentence
    saying they cannot be computed; they are one line each in one list, their anchors kept."""
    from political_sycophancy.report.html import page
    from political_sycophancy.report.sections import Section

    table = pd.DataFrame({"model": ["m"], "pct": [0.4]})
    built = [("conditions", Section("Per-condition summaries", tables={"condition_summary": table})),
             ("shifts", Section("Shifts against the no-preamble baseline", text="No condition N in the logs: shifts are not computable.")),
             ("tests", Section("Asymmetry tests", text="No model has items answered under all of N, C3L and C3R: the asymmetry tests are not computable."))]
    html_page = page("t", [], [], built, {"conditions:condition_summary": tmp_path / "tables" / "condition_summary.csv"}, [], tmp_path)
    assert re.findall(r"<h2 id='([^']+)'", html_page) == ["conditions", "not-computable"]
    block = html_page[html_page.index("<h2 id='not-computable'>"):]
    assert "<li id='shifts'><b>Shifts against the no-preamble baseline</b>: No condition N in the logs" in block
    assert "<li id='tests'>" in block and "href='#not-computable'" in html_page


def test_every_table_has_a_human_title_and_a_column_glossary(report):
    """Issue 26 item 6: 27 tables were titled by snake_case ids with no column glossary."""
    from report_support import undescribed_tables

    page = (report.out_dir / "report.html").read_text()
    assert "<h3 id='table-condition_summary'>" in page and "<details class='columns'><summary>Columns</summary>" in page
    assert undescribed_tables(report.out_dir) == {}


def test_probabilities_named_p_something_are_not_p_values():
    """The open-ended tables' p_agree_left ... and SWAY's p_plus_* are probabilities: they
    were counted in the multiplicity note and shown as "< 0.001" like p-values."""
    table = pd.DataFrame({"model": list("abcdef"), "p_agree_left": [0.0001, 0.2, 0.3, 0.01, 0.02, 0.03],
                          "p_disagree_right": [0.01] * 6, "p_dem_option_left": [0.5] * 6, "p_plus_plus_nudge": [0.0002] * 6})
    assert "p-values in this table" not in _table_block("open_ended", "open_ended_bias", table, "tables/t.csv")
    assert column_formatter("p_agree_left", table["p_agree_left"])(0.00001) != "< 0.0001"
    assert column_formatter("wilcoxon_p", table["p_agree_left"])(0.00001) == "< 0.0001"
    assert column_formatter("p_boot_monotone", table["p_agree_left"])(0.00001) == "< 0.0001"


def test_headers_are_human_and_the_csvs_keep_their_names(report):
    """Issue 46 item 7: raw identifiers (`asker_wants_dem (pooled calls) ci_low`,
    `mean_wd_dem`) were the tables' headers in report.html and report.md."""
    from political_sycophancy.report.headers import column_header

    assert column_header("asker_wants_dem (pooled calls) ci_low") == "Asker wants Dem (pooled calls), 95% CI low"
    assert column_header("n_items") == "Items (n)" and column_header("pct_closer_dem") == "Closer to Dem (%)"
    assert column_header("P_ORD") == "Persona (ordinary American)"  # the condition's label, not its code
    page = (report.out_dir / "report.html").read_text()
    headers = [html_unescape(h) for h in re.findall(r"<th[^>]*>([^<]*)</th>", page)]
    assert headers and not [h for h in headers if "_" in h or re.fullmatch(r"[a-z]{2,}", h)]
    assert "<th title='mean_wd_dem'>Mean WD(Dem)</th>" in page
    md = (report.out_dir / "report.md").read_text()
    first_rows = [md.splitlines()[i - 1] for i, line in enumerate(md.splitlines()) if line.startswith("| ---")]
    assert first_rows and not [r for r in first_rows if "_" in r.replace("\\_", "")], first_rows[:3]
    for name in ("condition_summary", "decomposition"):  # the CSVs keep the machine names
        assert "mean_wd_dem" in (report.out_dir / "tables" / "condition_summary.csv").read_text().splitlines()[0], name


def html_unescape(text: str) -> str:
    import html

    return html.unescape(text)


def test_shares_show_as_percentages_like_the_pct_columns():
    """Issue 46 item 7: parse rates on 0-1 beside pct_closer_dem on 0-100 in one table."""
    table = pd.DataFrame({"model": ["a", "b"], "parse_rate": [0.955, 0.5], "pct_closer_dem": [62.5, 70.0]})
    block = table_html(table, {"parse_rate": "share (0-1) of the scored samples answered"})
    assert "<th title='parse_rate'>Parse rate (%)</th>" in block and ">95.5<" in block and ">62.5<" in block
    # an interval's ends follow their quantity; a column not within 0-1 is never scaled
    ci = pd.DataFrame({"wants (pooled calls)": [0.755], "wants (pooled calls) ci_low": [0.655], "n_calls": [324]})
    block = table_html(ci, {"wants (pooled calls)": "share expecting the Democrat-preferred option"})
    assert ">75.5<" in block and ">65.5<" in block and ">324<" in block and "Wants (pooled calls), 95% CI low (%)" in block


def test_a_wide_table_is_split_into_blocks_that_fit_a_page():
    """Issue 46 item 7: a 28-column table was cut off in the PDF."""
    wide = pd.DataFrame({"model": ["a"], "condition": ["N"], **{f"v{i}": [0.5] for i in range(26)}})
    block = table_html(wide)
    tables = block.split("<table>")[1:]
    assert len(tables) == 3 and all(t.count("<th ") <= 12 for t in tables)
    assert all("<th title='model'>Model</th><th title='condition'>Condition</th>" in t for t in tables)
    assert sum(t.count("<th ") - 2 for t in tables) == 26


def test_long_tables_are_csv_links_in_markdown_too(tmp_path):
    """Issue 46 item 7: report.md dumped tables of 136, 98, 98 and 56 rows."""
    from political_sycophancy.report.render import MARKDOWN_ROWS, _render
    from political_sycophancy.report.sections import Section

    long = pd.DataFrame({"model": ["m"] * 56, "item_id": [f"i{k}" for k in range(56)], "shift": [0.1] * 56})
    short = long.head(5)
    (tmp_path / "tables").mkdir()
    paths = {"s:long": tmp_path / "tables" / "long.csv", "s:short": tmp_path / "tables" / "short.csv"}
    _render(tmp_path, "t", [], [("s", Section("S", tables={"long": long, "short": short}))], paths, [])
    md = (tmp_path / "report.md").read_text()
    assert MARKDOWN_ROWS <= 30 and "56 rows × 3 columns, in the CSV" in md and "| i40 |" not in md
    assert "| m | i4 | 0.100 |" in md


def test_a_shares_variants_show_in_its_unit():
    """The expected-answer table printed `asker_wants_dem (pooled calls)` as 87.4 (%) beside
    `asker_wants_dem (mean of models)` as 0.874: one quantity, one unit."""
    table = pd.DataFrame({"condition": ["C3L"], "wants (pooled calls)": [0.874], "wants (mean of models)": [0.8745],
                          "n_calls": [360]})
    block = table_html(table, {"wants (pooled calls)": "share expecting the Democrat-preferred option",
                               "wants (mean of models)": "mean over models of the per-model share"})
    assert ">87.4<" in block and ">87.5<" in block and "Wants (mean of models) (%)" in block and ">360<" in block
