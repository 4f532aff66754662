"""The report's column legends (each measure's tables.yaml) checked against the computation
they describe (issue 46 item 7): a legend read by a new user must say what the column
counts (items, samples or pairs), on which scale it runs and in which units, as the code
that fills it does. Each test computes the column on hand-made cells and reads the legend."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from political_sycophancy.core.section import column_meaning, table_descriptions
from political_sycophancy.shared.shifts import decomposition, pct_decomposition
from political_sycophancy.shared.summaries import condition_summary
from political_sycophancy.sway.tables import _pair_stats


def legend(package: str, table: str, column: str) -> str:
    """The glossary's meaning of `column` in `table` of measure `package`."""
    _, columns = table_descriptions(f"political_sycophancy.{package}", [table])
    meaning = column_meaning(columns[table], column)
    assert meaning is not None, (package, table, column)
    return meaning


def _cell(condition: str, item: str, **values: object) -> dict:
    """One model x item x condition cell, answered once (two epochs asked unless given)."""
    row = {"model": "m", "instrument": "pct", "condition": condition, "item_id": item, "scoring": "pct",
           "n_samples": 2, "n_answered": 2, "n_refusal": 0, "n_unparsed": 0, "n_no_logprobs": 0, "n_error": 0,
           "answered": True, "has_benchmarks": False, "wd_dem": np.nan, "wd_rep": np.nan, "wd_overall": np.nan,
           "closer": None, "direction": 1, "axis": "economic", "ideology": 2.0}
    row.update(values)
    return row


def _pct_cells() -> pd.DataFrame:
    """Three PCT items answered at the scale's right end (+2) under N and C3R, two epochs each;
    item i3 asked under N only (so not matched); item i2 refused in both epochs under C3R."""
    rows = [_cell(c, i) for c in ("N", "C3R") for i in ("i0", "i1")]
    rows += [_cell("N", "i2"), _cell("C3R", "i2", n_answered=0, n_refusal=2, answered=False, ideology=np.nan)]
    rows += [_cell("N", "i3")]
    return pd.DataFrame(rows)


def _numbers(text: str) -> set[float]:
    """The signed numbers a legend names (a Unicode minus read as '-')."""
    return {float(x) for x in re.findall(r"[-+]?\d+(?:\.\d+)?", text.replace("\u2212", "-"))}


@pytest.mark.parametrize("package, table", [("audit", "condition_summary"), ("profiles", "profile_personas")])
def test_counts_say_what_they_count(package, table):
    summary = condition_summary(_pct_cells()).set_index("condition")
    # n_parsed counts items (an item with two answered epochs counts once), not samples
    assert summary.loc["N", "n_parsed"] == 3 and summary.loc["N", "n_samples"] == 6
    assert legend(package, table, "n_parsed").startswith("items")
    # n_items counts the matched items (run under every condition), answered or not
    assert summary.loc["C3R", "n_items"] == 3 and summary.loc["C3R", "n_parsed"] == 2
    assert "every condition" in legend(package, table, "n_items")
    assert "at least one answer" not in legend(package, table, "n_items")
    # n_unmatched counts items run under this condition but not under every other: one
    # definition, not answers matching no option (those are the unparsed ones)
    assert summary.loc["N", "n_unmatched"] == 1 and summary.loc["C3R", "n_unmatched"] == 0
    text = legend(package, table, "n_unmatched")
    assert text.startswith("items") and "every" in text and "option" not in text


def test_mean_ideology_runs_from_minus_two_to_plus_two():
    assert condition_summary(_pct_cells()).set_index("condition").loc["N", "mean_ideology"] == 2.0
    left = _pct_cells().assign(ideology=-2.0)
    assert condition_summary(left).set_index("condition").loc["N", "mean_ideology"] == -2.0
    for table in ("condition_summary", "condition_summary_all_answered"):
        ends = _numbers(legend("audit", table, "mean_ideology"))
        assert {-2.0, 2.0} <= ends and 1.0 not in ends and -1.0 not in ends, table


def test_shares_name_their_unit():
    """pct_closer_dem is a percentage (0-100), parse_rate a share (0-1): each legend says which."""
    atp = pd.DataFrame([_cell("N", f"i{k}", instrument="atp", scoring="wd", has_benchmarks=True, wd_dem=0.1, wd_rep=0.3,
                              wd_overall=0.2, closer="Dem", direction=0, axis=None, ideology=np.nan) for k in range(2)])
    row = condition_summary(atp).iloc[0]
    assert row["pct_closer_dem"] == 100.0 and row["parse_rate"] == 1.0
    assert "%" in legend("audit", "condition_summary", "pct_closer_dem")
    assert "0-1" in legend("audit", "condition_summary", "parse_rate")


def _focal(scoring: str) -> pd.DataFrame:
    """Two items under N, C3L and C3R. ATP: C3L moves WD(Dem) down by 0.1 (toward the asker),
    C3R moves WD(Dem) up by 0.3 and WD(Rep) down by 0.2. PCT: C3L moves the score by -0.5
    (left), C3R by +1.5 (right)."""
    rows = []
    for item in ("i0", "i1"):
        if scoring == "wd":
            for cond, dem, rep in (("N", 0.3, 0.5), ("C3L", 0.2, 0.6), ("C3R", 0.6, 0.3)):
                rows.append(_cell(cond, item, instrument="atp", scoring="wd", has_benchmarks=True, wd_dem=dem,
                                  wd_rep=rep, wd_overall=0.4, closer="Dem", direction=0, axis=None, ideology=np.nan))
        else:
            for cond, score in (("N", 0.0), ("C3L", -0.5), ("C3R", 1.5)):
                rows.append(_cell(cond, item, ideology=score))
    return pd.DataFrame(rows)


def test_decomposition_legends_match_their_formulas():
    row = decomposition(_focal("wd")).iloc[0]
    assert row["sycophancy_left"] == pytest.approx(0.1) and row["sycophancy_right"] == pytest.approx(0.2)
    # A_m is the spread of WD(Dem) between the cues, not right minus left (that is the gap)
    assert row["asymmetry"] == pytest.approx(0.4) and row["accommodation_gap"] == pytest.approx(0.1)
    asym = legend("audit", "decomposition", "asymmetry")
    assert "sycophancy_right - sycophancy_left" not in asym and "C3R" in asym and "C3L" in asym
    assert "sycophancy_right - sycophancy_left" in legend("audit", "decomposition", "accommodation_gap")


def test_pct_decomposition_is_described_in_item_score_units():
    row = pct_decomposition(_focal("pct")).iloc[0]
    # positive = toward the asker's side: left under C3L, right under C3R, in PCT item-score points
    assert row["sycophancy_left"] == pytest.approx(0.5) and row["sycophancy_right"] == pytest.approx(1.5)
    assert row["asymmetry"] == pytest.approx(2.0) and row["accommodation_gap"] == pytest.approx(1.0)
    for column in ("sycophancy_left", "sycophancy_right", "asymmetry", "accommodation_gap", "pct_baseline"):
        text = legend("audit", "pct_decomposition", column)
        assert "WD" not in text and "Democrat" not in text and "Republican" not in text, (column, text)
        assert "score" in text, (column, text)
    assert "left" in legend("audit", "pct_decomposition", "sycophancy_left")
    assert "right" in legend("audit", "pct_decomposition", "sycophancy_right")


def test_sway_unmatched_pairs_include_the_half_answered():
    pairs = pd.DataFrame({"cell": ["a"] * 3, "matched": [True, False, False], "half_answered": [False, True, False],
                          "p_pos": [0.6, 0.5, np.nan], "p_neg": [0.4, np.nan, np.nan]})
    row = _pair_stats(pairs, ["cell"]).iloc[0]
    assert (row["n_pairs"], row["n_matched"], row["n_half_answered"], row["n_unmatched"]) == (3, 1, 1, 2)
    text = legend("sway", "sway_overall", "n_unmatched")
    assert "one side" in text and "neither" in text
