"""The paper-vs-logs table (issue 26): the comparison rules on planted summaries, and the
shipped file of the paper's values read against the summary contract."""

from __future__ import annotations

import pandas as pd
import pytest

from political_sycophancy.core.summary_contract import SummaryContractError
from political_sycophancy.designs.paper_values import paper_values, paper_vs_logs, resolve

COLUMNS = ["id", "quantity", "paper", "scale", "source", "path", "requires", "note"]


def _values(*rows: tuple) -> pd.DataFrame:
    return pd.DataFrame([dict(zip(COLUMNS, r, strict=True)) for r in rows], columns=COLUMNS)


SUMMARY = {
    "models": {
        "a": {"sycophancy_right": 0.0595, "conditions": {"N": {"atp": {"n_administered": 500, "pct_closer_dem": 62.6}}}},
        "b": {"sycophancy_right": 0.0921, "conditions": {"N": {"atp": {"n_administered": 1540, "pct_closer_dem": 57.0}}}},
    },
    "findings": {"headline": {"expected": {"n_calls": 2160, "n_both_parsed": 2038, "dem_N": 0.75}}},
}


def test_rounding_at_the_papers_precision_wildcards_and_ratios():
    table = paper_vs_logs(SUMMARY, _values(
        ("min", "q", "0.060", "1", "s", "models/*/sycophancy_right|min", "", ""),    # 0.0595 rounds to 0.060
        ("max", "q", "0.091", "1", "s", "models/*/sycophancy_right|max", "", ""),    # 0.0921 does not round to 0.091
        ("share", "q", "94", "100", "s", "findings/headline/expected/n_both_parsed ÷ findings/headline/expected/n_calls", "", ""),
        ("dem", "q", "75", "100", "s", "findings/headline/expected/dem_N", "", ""),
        ("calls", "q", "2160", "1", "s", "findings/headline/expected/n_calls", "", ""),
    )).set_index("id")
    assert table["status"].to_dict() == {"min": "agrees", "max": "differs", "share": "agrees", "dem": "agrees", "calls": "agrees"}
    assert table.loc["min", "ours"] == "0.0595" and table.loc["max", "difference"] == "+0.0011"
    assert table.loc["share", "ours"] == "94.4" and table.loc["calls", "ours"] == "2160" and table.loc["calls", "difference"] == "0"


def test_a_value_the_logs_cannot_give_says_why():
    table = paper_vs_logs(SUMMARY, _values(
        ("phase1", "q", "57.0", "1", "s", "models/a/conditions/N/atp/pct_closer_dem", "models/a/conditions/N/atp/n_administered>=1540", ""),
        ("phase1_b", "q", "57.0", "1", "s", "models/b/conditions/N/atp/pct_closer_dem", "models/b/conditions/N/atp/n_administered>=1540", ""),
        ("missing_model", "q", "1.0", "1", "s", "models/c/sycophancy_right", "", ""),
        ("not_public", "q", "30990", "1", "s", "", "", "inputs not public"),
    )).set_index("id")
    assert table["status"].to_dict() == {"phase1": "not in these logs", "phase1_b": "agrees", "missing_model": "not in these logs",
                                         "not_public": "not in these logs"}
    assert "these logs hold 500" in table.loc["phase1", "note"]
    assert table.loc["missing_model", "note"] == "summary.json has no models/c/sycophancy_right"
    assert table.loc["not_public", "note"] == "inputs not public" and pd.isna(table.loc["not_public", "ours"])


def test_a_path_the_contract_does_not_declare_fails_loudly():
    with pytest.raises(SummaryContractError):
        resolve(SUMMARY, "findings/headlines/expected/n_calls")


def test_every_shipped_path_is_declared_and_every_row_has_a_source():
    values = paper_values()
    assert values["id"].is_unique and (values["source"] != "").all() and (values["paper"] != "").all()
    assert ((values["path"] != "") | (values["note"] != "")).all()  # a value without a path says why
    table = paper_vs_logs({}, values)  # an empty summary: every path checked against the contract, none found
    assert len(table) == len(values) and (table["status"] == "not in these logs").all() and (table["note"] != "").all()
