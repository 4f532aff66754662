"""Even-handedness statistics on planted effects (issue 28): scripted models through Inspect
(even-handed; helping the asker's side; refusing the side opposite its own view) give the
planted rates and gaps inside their intervals, as do noisy synthetic frames, whose interval
covers the planted gap at about its nominal rate; the sign-flip test is the audit's."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from inspect_ai import eval as inspect_eval
from support.evenhandedness import WEAK_PAIRS, planted_frame, planted_models, planted_rows, scripted_grader

from political_sycophancy.evenhandedness.analysis import (
    evenhandedness_section,
    exclusions,
    group_table,
    side_table,
    sign_flip_models,
)
from political_sycophancy.evenhandedness.rows import POOLED, evenhandedness_rows, oriented
from political_sycophancy.evenhandedness.task import evenhandedness
from political_sycophancy.logs.frame import load_frame
from political_sycophancy.stats.options import AnalysisOptions
from political_sycophancy.stats.permutation import sign_flip_exact
from political_sycophancy.stats.resample import cluster_mean_interval

OPTS = AnalysisOptions(bootstrap_draws=1000, seed=11)


def cell(table: pd.DataFrame, model: str, condition: str, side: str | None = None) -> pd.Series:
    rows = table[(table["model"] == model) & (table["condition"] == condition)]
    if side is not None:
        rows = rows[rows["side"] == side]
    [row] = rows.to_dict("records")
    return pd.Series(row)


def check_inside(row: pd.Series, name: str, planted: float, tolerance: float = 1e-9) -> None:
    """The estimate is the planted value (within `tolerance`) and its interval holds it."""
    assert abs(row[name] - planted) <= tolerance, (name, row[name], planted)
    assert row[f"{name}_ci_low"] - 1e-12 <= planted <= row[f"{name}_ci_high"] + 1e-12, (name, row[f"{name}_ci_low"], row[f"{name}_ci_high"], planted)


@pytest.fixture(scope="module")
def scripted_section(tmp_path_factory):
    """The three scripted models on the first five example pairs (all sided) under N, C3L
    and C3R, graded by the scripted grader; the sycophant answers the opposed prompt weakly
    on 2 of the 5 pairs."""
    logs = tmp_path_factory.mktemp("even-logs")
    runs = inspect_eval(evenhandedness(n_pairs=5, grader=scripted_grader()), model=planted_models(), log_dir=str(logs), display="none", max_tasks=3)
    assert [r.status for r in runs] == ["success"] * 3
    frame = load_frame(logs, cache=False)
    return frame, evenhandedness_section(frame, tmp_path_factory.mktemp("figures"), OPTS)


def test_scripted_models_give_the_planted_rates_and_gaps(scripted_section):
    frame, section = scripted_section
    assert len(frame) == 3 * 5 * 3 and set(frame["status"]) == {"answered"}
    table, sides = section.tables["evenhandedness"], section.tables["evenhandedness_sides"]
    weak = len(WEAK_PAIRS) / 5
    for condition in ("N", "C3L", "C3R"):
        # even-handed: every pair equally helpful, no gap, nothing refused
        check_inside(cell(table, "mockllm/even", condition), "even_rate", 1.0)
        for side in ("left", "right"):
            check_inside(cell(sides, "mockllm/even", condition, side), "refusal_rate", 0.0)
        # the own-view refuser: every right prompt refused, whoever asks
        check_inside(cell(sides, "mockllm/refuser", condition, "right"), "refusal_rate", 1.0)
        check_inside(cell(sides, "mockllm/refuser", condition, "left"), "refusal_rate", 0.0)
        check_inside(cell(table, "mockllm/refuser", condition), "even_rate", 0.0)
    check_inside(cell(table, "mockllm/sycophant", "N"), "even_rate", 1.0)
    for condition in ("C3L", "C3R", POOLED):
        check_inside(cell(table, "mockllm/even", condition), "help_gap", 0.0)
        check_inside(cell(table, "mockllm/sycophant", condition), "help_gap", weak)
        check_inside(cell(table, "mockllm/sycophant", condition), "hedging_gap", weak)
        check_inside(cell(table, "mockllm/sycophant", condition), "refusal_gap", 0.0)
        check_inside(cell(table, "mockllm/sycophant", condition), "even_rate", 1 - weak)
    # the refuser looks like a sycophant under a left asker and an anti-sycophant under a
    # right one: its asymmetry is in the per-side refusal rates, not in the pooled gap
    check_inside(cell(table, "mockllm/refuser", "C3L"), "help_gap", 1.0)
    check_inside(cell(table, "mockllm/refuser", "C3R"), "help_gap", -1.0)
    check_inside(cell(table, "mockllm/refuser", "C3R"), "refusal_gap", -1.0)
    check_inside(cell(table, "mockllm/refuser", POOLED), "help_gap", 0.0)
    assert math.isnan(cell(table, "mockllm/sycophant", "N")["help_gap"])  # N states no side
    # the sycophant's weak answers hedge and mention other views: on the opposed side only
    check_inside(cell(sides, "mockllm/sycophant", "C3L", "right"), "opposing_rate", weak)
    check_inside(cell(sides, "mockllm/sycophant", "C3L", "left"), "opposing_rate", 0.0)
    # the audit's sign-flip test over the three models' per-model gaps
    tests = section.tables["evenhandedness_sign_flip"].set_index(["condition", "quantity"])
    gaps = table[table["condition"] == "C3L"].set_index("model")["help_gap"]
    expected = sign_flip_exact(gaps.to_numpy())
    assert tests.loc[("C3L", "help_gap"), "p"] == expected["p"] == 0.5 and tests.loc[("C3L", "help_gap"), "n_units"] == 3
    assert tests.loc[("C3L", "help_gap"), "observed"] == pytest.approx((0 + 1 + weak) / 3)
    summary = section.summary["evenhandedness"]
    assert summary["groups"]["mockllm/sycophant|(base)|mockllm/grader|project|C3R"]["help_gap"] == pytest.approx(weak)
    assert summary["sign_flip_models"]["mockllm/grader|project|C3L|help_gap"]["p"] == 0.5
    assert set(section.figures) == {"evenhandedness"} and "Graders: `mockllm/even` graded by `mockllm/grader`" in section.text


def test_noisy_planted_effects_fall_inside_their_intervals():
    """300 pairs x N, C3L, C3R (one fixed seed: for a fresh seed each 95% interval misses
    one time in twenty, which the next test checks): the sycophant's planted help gap
    0.30 - 0.05 = 0.25 under each side-stating asker (even rate 0.65); the refuser refuses
    the right prompt 60% of the time, so its gap is +0.6 under C3L, -0.6 under C3R, 0
    pooled (even rate 0.4). Estimates within 0.08 (about three standard errors)."""
    rows = evenhandedness_rows(planted_frame(seed=7, n_pairs=300))
    opts = AnalysisOptions(bootstrap_draws=400, seed=11)
    table, sides = group_table(rows, opts), side_table(rows, opts)
    for condition in ("C3L", "C3R", POOLED):
        row = cell(table, "sycophant", condition)
        check_inside(row, "help_gap", 0.25, tolerance=0.08)
        check_inside(row, "even_rate", 0.65, tolerance=0.08)
        check_inside(cell(table, "even", condition), "help_gap", 0.0)
    check_inside(cell(table, "refuser", "C3L"), "help_gap", 0.6, tolerance=0.08)
    check_inside(cell(table, "refuser", "C3L"), "refusal_gap", 0.6, tolerance=0.08)
    check_inside(cell(table, "refuser", "C3R"), "help_gap", -0.6, tolerance=0.08)
    check_inside(cell(table, "refuser", POOLED), "help_gap", 0.0, tolerance=0.08)
    for condition in ("N", "C3L", "C3R"):
        check_inside(cell(sides, "refuser", condition, "right"), "refusal_rate", 0.6, tolerance=0.1)
        check_inside(cell(sides, "refuser", condition, "left"), "refusal_rate", 0.0)
        check_inside(cell(table, "refuser", condition), "even_rate", 0.4, tolerance=0.1)
    assert cell(table, "sycophant", POOLED)["n_pairs"] == 300 and cell(table, "sycophant", POOLED)["n_help_gap"] == 600


def test_the_pair_interval_covers_the_planted_gap_at_about_its_level():
    """60 replications of 80 pairs: the 95% cluster interval of the help gap holds the
    planted 0.25 in about 95% of them (at least 50 of 60)."""
    covered = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        rows = pd.DataFrame(planted_rows("s", 80, rng, p_matched=0.30, p_opposed=0.05, conditions=(("C3L", "left"), ("C3R", "right"))))
        gaps = oriented(evenhandedness_rows(rows))
        low, high = cluster_mean_interval(gaps["d"].to_numpy(), gaps["pair_id"].to_numpy(), 400, np.random.default_rng(1000 + seed))
        covered += low <= 0.25 <= high
    assert covered >= 50, covered


def test_exclusions_are_counted_and_never_scored():
    rng = np.random.default_rng(3)
    rows = pd.DataFrame(planted_rows("m", 4, rng, conditions=(("C3L", "left"),)))
    rows.loc[0, ["status", "even", "helpful_diff"]] = ["unparsed", np.nan, np.nan]
    rows.loc[1, ["status", "even", "helpful_diff", "refusal_a", "grade_status_a"]] = ["empty", np.nan, np.nan, np.nan, "empty"]
    rows.loc[2, ["side_a", "side_b"]] = ["none", "none"]
    rows.loc[3, ["grade_status_b", "refusal_b"]] = ["partial", np.nan]
    data = evenhandedness_rows(rows)
    [row] = group_table(data, OPTS).query("condition == 'C3L'").to_dict("records")
    assert (row["n_even_rate"], row["n_help_gap"], row["n_refusal_gap"], row["n_pairs"]) == (2, 1, 1, 4)
    [excluded] = exclusions(data).to_dict("records")
    assert (excluded["samples"], excluded["judged"], excluded["not_judged_empty"], excluded["not_judged_unparsed"]) == (4, 2, 1, 1)
    assert (excluded["answers_empty"], excluded["answers_partial"], excluded["answers_without_side"]) == (1, 1, 2)
    assert sign_flip_models(group_table(data, OPTS))["reason"].str.startswith("fewer than two models").all()


def test_the_findings_sentence_reads_the_gaps_plainly(scripted_section):
    """Issue 43: one Findings sentence per report, each model's pooled help gap with its
    interval and its even rate under N, quoted from summary.json, with what a gap cannot say."""
    from political_sycophancy.core.report_parts import check_quotes
    from political_sycophancy.evenhandedness.report import findings

    _, section = scripted_section
    summary = section.summary
    [line] = findings(summary)
    text = line.plain()
    assert check_quotes(summary, [line]) == [] and "not the answers' stance" in text
    assert "mockllm/even (graded by mockllm/grader): help gap 0.00 (95% CI" in text  # a zero shows no sign
    assert "mockllm/sycophant (graded by mockllm/grader): help gap +0.40 (95% CI" in text and "under N in 100%" in text
    assert "with 3 model(s) the test over models cannot reach p < 0.05" in text
    assert findings({}) == []

