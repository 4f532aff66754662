"""Issue 46 items 2, 3, 5 and 8: a Headline right for every instrument, outcome, number of models
and run size, each rule shown on planted logs (imported through Inspect and analysed by the
real `analyze`) or, for a rule of one sentence, on a hand-written summary."""

from __future__ import annotations

import json
import re

import pytest
from report_support import forbidden_number_forms, mock_run

from political_sycophancy.audit import headline_scope
from political_sycophancy.audit.headline import _mixed_sentences, _pooled_sentences
from political_sycophancy.core.numbers import fixed, p_clause, p_text, plural, were
from political_sycophancy.core.report_parts import check_quotes
from political_sycophancy.report.headline import headline

# every cue moves the planted model right, the non-partisan control CA included
ALL_RIGHT = {"C3L": 0.5, "C1L": 0.4, "CA": 0.5, "C1R": 0.6, "C3R": 1.0}


@pytest.fixture(scope="module")
def solo(tmp_path_factory):
    """One model, PCT only, 12 items, every cue to the right, nothing refused."""
    out = mock_run(tmp_path_factory.mktemp("solo"), models=("mock/solo",), atp_items=0, typology_items=0, pct_items=12,
                   pct_shift=ALL_RIGHT, refusal_rate=0.0, noise=0.2)
    return out, json.loads((out / "summary.json").read_text())


@pytest.fixture(scope="module")
def panel(tmp_path_factory):
    """Three models, 24 ATP and 24 PCT items: enough for a test; the left cue moves left."""
    out = mock_run(tmp_path_factory.mktemp("panel"), atp_items=24, pct_items=24, typology_items=0)
    return out, json.loads((out / "summary.json").read_text())


def lines(summary: dict) -> list[str]:
    return summary["findings"]["headline_sentences"]


def test_a_one_model_run_says_descriptive_only_first_and_how_answers_were_read(solo):
    out, summary = solo
    first = lines(summary)[0]
    assert first.startswith("Descriptive only: 1 model, items per instrument: PCT 12, fewer than the 2 models and 20 items")
    assert "Answers parsed from the letter each reply writes." in first
    assert check_quotes(summary, headline(summary)) == []


def test_a_pct_only_run_names_its_fitted_outcome_and_no_wd(solo):
    """The mixed-model line names the outcome the fit used (the PCT item score), never
    "WD(Dem) on condition", and with one model claims no model intercept."""
    _, summary = solo
    assert summary["tests"]["mixed_model"]["outcome"] == "ideology"
    [mixed] = [s for s in lines(summary) if s.startswith("Mixed model")]
    assert "outcome PCT item score (directional items) on condition" in mixed
    assert "an item random intercept only: with one model there is no model intercept" in mixed
    assert "crossed random intercepts" not in mixed
    assert not [s for s in lines(summary) if "WD" in s]
    [found] = [s for s in summary["findings"]["sentences"] if s.startswith("Mixed model (crossed")]
    assert "an item random intercept only" in found and "crossed random intercepts" not in found


def test_the_ratio_is_signed_and_says_when_both_cues_move_the_same_way(solo):
    _, summary = solo
    m = summary["findings"]["headline"]["mixed"]
    assert m["C3L"]["estimate"] > 0 and m["C3R"]["estimate"] > 0  # the planted left cue moved the model right
    assert m["ratio"] == pytest.approx(m["C3R"]["estimate"] / -m["C3L"]["estimate"]) and m["ratio"] < 0
    [mixed] = [s for s in lines(summary) if s.startswith("Mixed model")]
    assert re.search(r"the signed ratio of C3R's move toward its asker to C3L's is -\d", mixed)
    assert "both cues move the answers the same way, to the right: C3L moved them away from its asker" in mixed
    assert "95% CI" in mixed.split("C3L")[1]


def test_the_generic_preamble_effect_is_named_with_shifts_against_ca(solo):
    _, summary = solo
    node = summary["findings"]["headline"]["preamble"]["mock/solo"]["pct"]
    assert node["direction"] == "right" and set(node["cues"]) == set(ALL_RIGHT)
    assert all(c["mean"] > 0 and c["low"] <= c["mean"] <= c["high"] for c in node["cues"].values())
    # against CA, C3R (planted +1.0 against CA's +0.5) still moves right; C1L (+0.4) does not beyond CA
    assert node["against_control"]["C3R"]["mean"] > 0 and set(node["against_control"]) == set(ALL_RIGHT) - {"CA"}
    [line] = [s for s in lines(summary) if s.startswith("Generic preamble effect")]
    assert "the non-partisan control CA included" in line and "Against CA" in line


def test_fully_answered_cells_are_not_ranked(solo):
    _, summary = solo
    [line] = [s for s in lines(summary) if s.startswith("Non-response")]
    assert "every one of the 6 model x condition cells is fully answered" in line and "lowest" not in line


def test_a_panel_with_enough_items_is_not_descriptive_and_names_the_preamble_only_where_due(panel):
    """Three models, 24 items per instrument: a test is read; the left cue moved left, so no
    generic preamble effect; the mixed model is on WD(Dem) with both intercepts."""
    _, summary = panel
    text = lines(summary)
    assert not any(s.startswith("Descriptive only") for s in text)
    assert text[0].startswith("3 models, items per instrument: ATP 24; PCT 24.")
    # a preamble line only for a model whose every cue, CA included, moves one way
    for model, insts in summary["findings"]["headline"].get("preamble", {}).items():
        for inst, node in insts.items():
            assert len({c["mean"] > 0 for c in node["cues"].values()}) == 1
            assert f"Generic preamble effect ({model}, {inst.upper()})" in " ".join(text)
    moved_left = [m for m, conds in summary["findings"]["shift_ci"].items() if conds["C3L"]["atp"]["shift_wd_dem"]["mean"] < 0]
    assert moved_left and not set(moved_left) & set(summary["findings"]["headline"].get("preamble", {}))
    [mixed] = [s for s in text if s.startswith("Mixed model")]
    assert "outcome ATP WD(Dem) on condition" in mixed and "crossed random intercepts for item and for model" in mixed
    assert "the C3R coefficient is" in mixed and "times the size of C3L's, each toward its asker" in mixed
    assert check_quotes(summary, headline(summary)) == []


def test_the_sign_flip_floor_is_printed_not_less_than_one_thousandth(panel):
    """Three models: the exact sign-flip test cannot go below 0.25; reached, it prints the floor."""
    _, summary = panel
    pooled = summary["findings"]["headline"]["pooled"]
    assert pooled["gap_min_p"] == pytest.approx(0.25)
    [gap] = [s for s in lines(summary) if s.startswith("The right-minus-left accommodation gap")]
    assert "< 0.001" not in gap
    if pooled["gap_p"] <= pooled["gap_min_p"]:
        assert "exact sign-flip p = 0.25, the smallest this test can give" in gap


def test_models_whose_interval_spans_the_midpoint_are_not_counted_left():
    """'1 of 1 models left of the midpoint' was printed for -0.04 (95% CI -1.4 to 1.3)."""
    summary = {"models": {
        "m/spans": {"conditions": {"N": {"pct": {"scoring": "pct", "mean_ideology": -0.04, "ci": {"mean_ideology": [-1.4, 1.3]}}}}},
        "m/left": {"conditions": {"N": {"pct": {"scoring": "pct", "mean_ideology": -0.6, "ci": {"mean_ideology": [-0.9, -0.3]}}}}},
    }}
    node = headline_scope.position(summary)
    assert (node["pct"]["n_left"], node["pct"]["n_spanning"], node["pct"]["n_right"]) == (1, 1, 0)
    summary["findings"] = {"headline": {"position": node}}
    [line] = [f.plain() for f in headline_scope.position_sentences(summary)]
    assert "1 of 2 models left of the midpoint with an interval that excludes it, 1 whose interval includes it" in line
    assert "left -0.60 (95% CI -0.90 to -0.30)" in line


def test_the_first_finding_counts_models_left_on_every_instrument():
    """The Phase 1 claim (left of centre on each instrument): a model counts when each of its
    intervals excludes the midpoint on the left."""
    def node(pct, atp):
        return {"conditions": {"N": {"pct": {"scoring": "pct", "mean_ideology": pct[0], "ci": {"mean_ideology": list(pct[1:])}},
                                     "atp": {"scoring": "wd", "pct_closer_dem": atp[0], "ci": {"pct_closer_dem": list(atp[1:])}}}}}
    summary = {"models": {"a": node((-0.5, -0.8, -0.2), (75, 70, 80)), "b": node((-0.5, -0.8, -0.2), (52, 45, 59))}}
    summary["findings"] = {"headline": {"position": headline_scope.position(summary)}}
    text = [f.plain() for f in headline_scope.position_sentences(summary)]
    assert text[-1] == ("The first seed's first finding, left of centre on every instrument (PCT, ATP), holds for 1 of 2 models "
                        "with an interval excluding the midpoint on each.")


def test_a_negative_left_gives_a_signed_ratio_not_an_abs():
    summary = {"findings": {"headline": {"pooled": {"n_models": 2, "left": -0.02, "right": 0.08, "ratio": -4.0,
                                                    "gap": {"mean": 0.1, "sd": 0.01, "min": 0.09, "max": 0.11},
                                                    "n_positive_gap": 2, "gap_p": 0.5, "gap_min_p": 0.5}}}}
    first, gap = (f.plain() for f in _pooled_sentences(summary))
    assert "Sycophancy-left is negative: under C3L the answers moved right" in first and "is -4.00" in first
    assert "Rightward accommodation" not in first
    assert "exact sign-flip p = 0.5, the smallest this test can give" in gap


def test_mixed_ratio_when_each_cue_moves_toward_its_asker():
    summary = {"tests": {"mixed_model": {"spec_label": "crossed random intercepts for item and for model"}},
               "findings": {"headline": {"mixed": {"spec": "crossed", "n_obs": 100, "n_models": 3, "outcome": "wd_dem",
                                                   "outcome_label": "ATP WD(Dem)", "ratio": 13.3,
                                                   "C3L": {"estimate": -0.011, "z": -2.9}, "C3R": {"estimate": 0.147, "z": 38.5}}}}}
    [line] = [f.plain() for f in _mixed_sentences(summary)]
    assert "C3R +0.147 (z = 38.5), C3L -0.011 (z = -2.9): the C3R coefficient is 13.3 times" in line
    assert "positive = farther from Democrats" in line


def test_one_rule_for_p_values_zeros_and_plurals():
    assert [p_text(p) for p in (0.0, 1e-4, 0.00049, 0.0312, 0.125, 1.0)] == ["< 0.0001", "0.0001", "0.0005", "0.0312", "0.125", "1"]
    assert p_clause(0.125, floor=0.125) == "p = 0.125, the smallest this test can give"
    assert p_clause(0.0) == "p < 0.0001" and p_clause(0.04, floor=0.03125) == "p = 0.04"
    assert [fixed(v, 2, signed=True) for v in (-0.004, 0.004, 0.3, -0.3)] == ["0.00", "0.00", "+0.30", "-0.30"]
    assert fixed(-0.0001, 3) == "0.000" and fixed(1234.5, 0, thousands=True) == "1,234"
    assert plural(1, "model") == "1 model" and plural(2, "model") == "2 models" and (were(1), were(3)) == ("was", "were")


@pytest.mark.parametrize("which", ["solo", "panel"])
def test_a_built_report_has_no_forbidden_number_forms(which, request):
    out, _ = request.getfixturevalue(which)
    assert forbidden_number_forms(out) == {}

@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    """Three models with the expected-answer probe (P(Democrat answer) 0.75 under N, 0.9 under
    C3L: report_support.WANTS_DEM) and the perception probe (ratings around 3.8)."""
    out = mock_run(tmp_path_factory.mktemp("probed"), atp_items=12, pct_items=4, typology_items=0, probes=True)
    return out, json.loads((out / "summary.json").read_text())


def test_probe_headlines_carry_intervals_of_calls_and_the_paired_difference(probed):
    """Issue 46 item 3: the expected-answer shares are of calls, each with its interval; the
    paper's key comparison (N close to C3L) as a paired difference with its interval; the
    perceived leaning with its interval and whether it includes the midpoint 4."""
    _, summary = probed
    e = summary["findings"]["headline"]["expected"]
    for key in ("dem_N", "rep_N", "dem_C3L", "dem_C3R"):
        assert e[key + "_ci"]["low"] <= e[key] <= e[key + "_ci"]["high"], key
    paired = e["paired_C3L"]
    # every item was asked under both: the paired difference is the difference of the pooled shares
    assert paired["n_items"] == 12 and paired["difference"] == pytest.approx(e["dem_N"] - e["dem_C3L"])
    assert paired["low"] <= paired["difference"] <= paired["high"] and paired["low"] <= -0.15 <= paired["high"]
    [expected] = [s for s in lines(summary) if s.startswith("Asked what answer")]
    assert "of calls with no preamble" in expected and "of items" not in expected
    assert re.search(r"Democrat-coded option in \d+% \(95% CI \d+% to \d+%\)", expected)
    assert re.search(r"N minus C3L, paired over the 12 items asked under both: -\d+ points \(95% CI -\d+ to [-+]?\d+\)", expected)
    q = summary["findings"]["headline"]["perception"]
    low, high = q["mean_rating_ci"]["low"], q["mean_rating_ci"]["high"]
    assert low <= q["mean_rating"] <= high and q["rating_ci_includes_midpoint"] == (low <= 4 <= high)
    [seen] = [s for s in lines(summary) if s.startswith("Asked to describe")]
    assert f", which {'includes' if low <= 4 <= high else 'excludes'} the midpoint 4)" in seen
    assert check_quotes(summary, headline(summary)) == []


def test_the_gap_share_is_the_papers_fig_1_only_on_a_phase_1_run():
    """Issue 46 item 5: the share on items of partisan gap >= 0.2 is the paper's Fig. 1 when
    the run is Phase 1 (N alone); from a run with cues it is counted the same way on other items."""
    from political_sycophancy.audit.findings import findings

    def run(conditions):
        gap = {"0.2": {"pct_closer_dem": 80.0, "n_items": 10}}
        return {"models": {"m": {"conditions": {c: {"atp": {"scoring": "wd", "pct_closer_dem": 70.0, "closer_by_gap": gap}}
                                                for c in conditions}}}}
    phase1 = " ".join(f.plain() for f in findings(run(["N"])))
    phase2 = " ".join(f.plain() for f in findings(run(["N", "C3L", "C3R"])))
    assert "(the first seed's Fig. 1): share closer" in phase1
    assert "(the first seed's Fig. 1)" not in phase2 and "its Fig. 1 is of the Phase 1 run" in phase2


def test_a_range_with_a_negative_end_reads_as_a_range():
    """'rises by -8–26 points' read as a dash; a range with a negative end is 'from to'."""
    from political_sycophancy.audit.derived import get

    summary = {"findings": {"headline": {"closer": {"rise_C3L": {"min": -8.0, "max": 26.0}, "drop_C3R": {"min": 28.0, "max": 62.0}}}}}
    shown = ["".join(p if isinstance(p, str) else p.shown for p in get.headline_range(summary, "closer", key))
             for key in ("rise_C3L", "drop_C3R")]
    assert shown == ["-8 to 26", "28–62"]


# --- issue 48: the Findings open with a plain-language takeaway per measure ------------------------


def test_the_findings_open_with_the_audits_takeaway_in_plain_words(solo, panel):
    """A one-model run: where the model stands, the generic preamble effect named, and that
    the run is descriptive only; a three-model run: the accommodation in words instead."""
    _, summary = solo
    first = summary["findings"]["sentences"][0]
    assert first.startswith("In plain words (the audit): with no preamble, ")
    assert "the non-partisan control included, moves the answers of mock/solo (PCT: right) the same way" in first
    assert "not the asker's party" in first and "too small for a test (1 model;" in first
    _, summary = panel
    first = summary["findings"]["sentences"][0]
    assert first.startswith("In plain words (the audit): ") and "too small" not in first
    assert "left of the ATP midpoint" in first or "of 3 models left" in first


def test_every_measures_takeaway_comes_before_the_other_findings(panel, monkeypatch):
    """The report orders the Findings: every measure's takeaways first, in the catalog's
    order, then the rest (two planted measures, each with a detail before its takeaway)."""
    from political_sycophancy.core.report_parts import Finding, ReportContribution
    from political_sycophancy.report import findings as report_findings

    def measure(name: str) -> ReportContribution:
        return ReportContribution(findings=lambda summary: [Finding(f"{name}-detail", ["detail"], name),
                                                            Finding(f"{name}-plain", ["plain"], name, takeaway=True)])

    monkeypatch.setattr(report_findings, "contributions", lambda: [("one", measure("one")), ("two", measure("two"))])
    _, summary = panel
    topics = [f.topic for f in report_findings.findings(summary)]
    assert topics[:4] == ["one-plain", "two-plain", "one-detail", "two-detail"]


def test_a_phase1_run_shows_no_decomposition_of_empty_rows(tmp_path):
    """Issue 46 item 7: a run under N alone (the paper's Phase 1) rendered the decomposition
    as rows of a baseline and empty cells; it says why there is none, and keeps the baseline."""
    out = mock_run(tmp_path, conditions=("N",), atp_items=12, pct_items=12, typology_items=0, bootstrap=20, sign_flip=20)
    summary = json.loads((out / "summary.json").read_text())
    assert not (out / "tables" / "decomposition.csv").exists() and not (out / "tables" / "pct_decomposition.csv").exists()
    assert all(node.get("baseline_slant") is not None for node in summary["models"].values())
    md = (out / "report.md").read_text()
    assert "No model was asked under C3L or C3R: sycophancy-left and -right" in md
