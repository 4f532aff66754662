"""summary.json has a contract (issue 23): the report reads it through `report.findings.get`,
which refuses a key the contract does not declare, and `write_report` refuses to write one;
before, a renamed key read as a silent None and its finding said "n/a"."""

from __future__ import annotations

import json

import pytest
from support.analysis import PCT_FILE, frame_from_import

from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses
from political_sycophancy.core.section import Section
from political_sycophancy.core.summary_contract import SUMMARY_VERSION, SummaryContractError, read, undeclared
from political_sycophancy.report.findings import get
from political_sycophancy.report.render import write_report
from political_sycophancy.report.sections import section_builders, summary_contract
from political_sycophancy.stats.options import AnalysisOptions

SUMMARY = {"models": {"m/a": {"sycophancy_right": 0.08, "conditions": {"C3R": {"atp": {"pct_closer_dem": 14.0}}}, "sway": {"x": 1}}},
           "tests": {"sign_flip_models_gap": {"p": 0.03}}}


def test_a_declared_key_reads_its_value_or_none():
    assert get(SUMMARY, "models", "m/a", "sycophancy_right") == 0.08
    assert get(SUMMARY, "models", "m/a", "conditions", "C3R", "atp", "pct_closer_dem") == 14.0
    assert get(SUMMARY, "models", "m/a", "sycophancy_left") is None  # declared, not computed
    assert get(SUMMARY, "tests", "mixed_model", "coefficients") is None
    # a measure's own node (SWAY's, declared by its folder) is typed by it: its datasets are data
    assert get(SUMMARY, "models", "m/a", "sway", "x") == 1


@pytest.mark.parametrize("path", [
    ("models", "m/a", "sycophancy_rigth"),
    ("models", "m/a", "conditions", "C3R", "atp", "closer_dem"),
    ("tests", "sign_flip_gap", "p"),
    ("headline",),
])
def test_a_moved_or_renamed_key_fails_loudly(path):
    with pytest.raises(SummaryContractError, match=path[-1]):
        get(SUMMARY, *path)


def test_the_writer_lists_keys_the_contract_does_not_declare():
    schema = summary_contract()
    assert undeclared(SUMMARY, schema) == []
    bad = {**SUMMARY, "sway_scores": {}, "models": {"m/a": {"sycophancy_rigth": 0.1, "conditions": {"N": {"pct": {"mean_ideolgy": 1}}}}}}
    assert sorted(undeclared(bad, schema)) == ["models.m/a.conditions.N.pct.mean_ideolgy", "models.m/a.sycophancy_rigth", "sway_scores"]
    # a measure's own node holds what its TypedDicts declare (issue 43); a leaf holds no keys
    assert read({"open_ended": {"excluded": 1}}, "open_ended", "excluded", schema=schema) == 1
    with pytest.raises(SummaryContractError, match="open_ended.anything"):
        read({"open_ended": {"anything": 1}}, "open_ended", "anything", schema=schema)
    assert undeclared({"open_ended": {"anything": 1, "total": {"m|pct|social": {"totl": 0.1}}}}, schema) == [
        "open_ended.anything", "open_ended.total.m|pct|social.totl"]
    with pytest.raises(SummaryContractError):
        read({}, "generated", "year", schema=schema)


def test_a_node_of_fixed_keys_beside_data_keys_checks_both():
    """The probes' expected_answer node: `by_condition` and `source_letters` beside one node per
    model (`Annotated[..., Keyed(...)]`): a model's cell is checked as a model's, the fixed keys as theirs."""
    summary = {"expected_answer": {"m/a": {"N": {"asker_wants_dem": 0.7}}, "by_condition": {"N": {"n_calls": 4}}}}
    assert get(summary, "expected_answer", "m/a", "N", "asker_wants_dem") == 0.7
    assert get(summary, "expected_answer", "by_condition", "N", "n_calls") == 4
    with pytest.raises(SummaryContractError, match="asker_wants_dam"):
        get(summary, "expected_answer", "m/a", "N", "asker_wants_dam")
    with pytest.raises(SummaryContractError, match="n_cals"):
        get(summary, "expected_answer", "by_condition", "N", "n_cals")


def test_a_measure_reads_its_own_nodes_and_the_shared_ones_only():
    """A measure's reader (`shared.summary_reading.reader`) checks paths against the shared
    nodes and the measure's own: another measure's node is not its to read by name."""
    from political_sycophancy.shared.summary_reading import reader

    audit, sway = reader("political_sycophancy.audit"), reader("political_sycophancy.sway")
    assert audit(SUMMARY, "models", "m/a", "sycophancy_right") == 0.08 and audit(SUMMARY, "model_order") is None
    with pytest.raises(SummaryContractError, match="sway"):
        audit(SUMMARY, "models", "m/a", "sway")
    with pytest.raises(SummaryContractError, match="sycophancy_right"):
        sway(SUMMARY, "models", "m/a", "sycophancy_right")


def test_an_instruments_kind_is_its_scoring_rule_not_its_keys():
    """report/findings.py told an instrument's kind by sniffing its keys (`pct_closer_dem` ->
    ATP); the node now names its scoring rule."""
    from political_sycophancy.audit.derived import instrument_kinds

    node = {"a": {"scoring": "wd", "mean_ideology": 0.1}, "b": {"scoring": "pct", "pct_closer_dem": 50.0},
            "c": {"scoring": "typology"}, "d": {"scoring": "choice", "score": 1.0}, "e": {"pct_closer_dem": 50.0}}
    assert instrument_kinds({"models": {"m": {"conditions": {"N": node}}}}) == {"b": "pct", "c": "typology", "a": "atp"}


def _frame(tmp_path):
    items = [i for i in builtin_pct_items() if i.direction != 0][:8]
    return frame_from_import(synthetic_responses(items, ["m/a", "m/b"], ["N", "C3L", "C3R"], pct_shift={"C3R": 0.8}, seed=1), [PCT_FILE])


def test_a_report_carries_its_contract_version_and_refuses_an_undeclared_key(tmp_path):
    frame = _frame(tmp_path)
    options = AnalysisOptions(bootstrap_draws=20, sign_flip_draws=50)
    result = write_report(frame, tmp_path / "ok", options=options)
    summary = json.loads((result.out_dir / "summary.json").read_text())
    assert summary["summary_version"] == SUMMARY_VERSION and undeclared(summary, summary_contract()) == []
    assert {node["scoring"] for m in summary["models"].values() for c in m["conditions"].values() for node in c.values()} == {"pct"}

    def renamed(frame, figure_dir, options=None):
        return Section("Renamed", summary={"models": {"m/a": {"sycophancy_rigth": 0.1}}})

    renamed.section_name, renamed.section_order = "renamed", 999
    with pytest.raises(SummaryContractError, match="models.m/a.sycophancy_rigth"):
        write_report(frame, tmp_path / "bad", options=options, sections=[*section_builders(), (999, "renamed", renamed)])
    assert not (tmp_path / "bad" / "summary.json").exists()
