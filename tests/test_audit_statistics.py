"""Statistics of the analysis against hand-computed values and simulated data with planted effects."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from support.analysis import PCT_FILE, crossed_data, frame_from_import

from political_sycophancy.audit.power import power_plan
from political_sycophancy.audit.simulate import builtin_pct_items, synthetic_responses, write_atp_items
from political_sycophancy.audit.stability import epoch_values, replicate_sd, temperature_agreement
from political_sycophancy.core.items import load_items
from political_sycophancy.shared.bootstrap import bootstrap_mean_ci
from political_sycophancy.shared.cells import build_cells, main_rows
from political_sycophancy.shared.shifts import (
    asymmetry_cells,
    decomposition,
    item_shifts,
    pct_decomposition,
    shift_summary,
    wilcoxon_test,
)
from political_sycophancy.shared.summaries import closer_by_gap, condition_summary
from political_sycophancy.stats.mixed import fit_mixed
from political_sycophancy.stats.permutation import sign_flip_draws, sign_flip_exact

MODELS = [f"sim/m{k}" for k in range(6)]
RUN_MODELS = MODELS  # the names the logs carry


@pytest.fixture(scope="module")
def atp_file(tmp_path_factory):
    return write_atp_items(tmp_path_factory.mktemp("items") / "atp.csv", 80, seed=11)


@pytest.fixture(scope="module")
def atp_items(atp_file):
    return load_items(atp_file, instrument="atp")


@pytest.fixture(scope="module")
def planted(atp_items, atp_file):
    """Six models, 80 ATP items + the PCT: a rightward move under C3R, none under C3L."""
    items = atp_items + builtin_pct_items()
    responses = synthetic_responses(
        items, MODELS, ["N", "C3L", "C3R"], atp_shift={"C3R": -0.45}, pct_shift={"C3R": 1.2}, seed=5, noise=0.3
    )
    frame = frame_from_import(responses, [atp_file, PCT_FILE])
    return build_cells(main_rows(frame))


def test_sign_flip_exact_three_models_by_hand():
    # Sums s1*.3 + s2*.1 + s3*(-.2) over the 8 patterns: .2 .6 0 .4 -.4 0 -.6 -.2;
    # |sum| >= |.2| in 6 of 8 -> p = .75.
    res = sign_flip_exact([0.3, 0.1, -0.2])
    assert res["p"] == pytest.approx(6 / 8)
    assert res["observed"] == pytest.approx(0.2 / 3)
    assert res["n_patterns"] == 8
    # All positive: only the observed pattern and its mirror reach the maximum.
    res = sign_flip_exact([0.1, 0.2, 0.3])
    assert res["p"] == pytest.approx(2 / 8) == res["min_p"]
    # Six concordant models: the paper's 2/64.
    assert sign_flip_exact([0.04, 0.05, 0.09, 0.06, 0.07, 0.08])["p"] == pytest.approx(2 / 64)


def test_sign_flip_exact_matches_brute_force():
    rng = np.random.default_rng(3)
    x = rng.normal(0.1, 0.2, 7)
    count = sum(abs(np.mean(np.array(s) * x)) >= abs(x.mean()) - 1e-12 for s in itertools.product([1, -1], repeat=7))
    assert sign_flip_exact(x)["p"] == pytest.approx(count / 128)


def test_sign_flip_draws_seeded_and_bounded():
    x = np.random.default_rng(1).normal(0.0, 1.0, 200)
    a, b = sign_flip_draws(x, draws=2000, seed=7), sign_flip_draws(x, draws=2000, seed=7)
    assert a == b
    assert 0.05 < a["p"] <= 1.0  # no effect planted
    strong = sign_flip_draws(np.abs(x) + 0.5, draws=2000, seed=7)
    assert strong["exceed"] == 0 and strong["p"] == pytest.approx(1 / 2001)


@pytest.mark.parametrize("n", [13, 64 * 8 + 5])  # a partial byte; more bytes than one pass of the table
def test_sign_flip_draws_count_the_patterns_their_bytes_spell(n):
    """The drawn patterns are random bytes, one bit per unit: multiplied out sign by sign,
    the same bytes give the same count of patterns at least as extreme."""
    x = np.random.default_rng(5).normal(0.05, 1.0, n)
    res = sign_flip_draws(x, draws=3000, seed=11)
    patterns = np.random.default_rng(11).integers(0, 256, size=(3000, -(-n // 8)), dtype=np.uint8)
    signs = np.unpackbits(patterns, axis=1, bitorder="little")[:, :n] * 2.0 - 1.0
    stat = np.abs(signs @ x) / n
    assert res["exceed"] == int((stat >= abs(x.mean()) - 1e-9 * max(1.0, abs(x.mean()))).sum())
    assert 0 < res["exceed"] < 3000


def test_wilcoxon_exact_and_tied():
    untied = np.array([0.11, 0.12, 0.23, -0.14, 0.35, 0.36, 0.57, -0.28, 0.19])
    res = wilcoxon_test(untied)
    assert res["wilcoxon_method"] == "exact"
    assert res["wilcoxon_p"] == pytest.approx(stats.wilcoxon(untied, method="exact").pvalue)
    tied = np.array([0.1, 0.1, 0.2, -0.1, 0.3, 0.3, 0.5, -0.2, 0.1, 0.0])
    res = wilcoxon_test(tied)
    assert res["n_nonzero"] == 9 and res["wilcoxon_method"].startswith("exact enumeration")
    # scipy's exhaustive permutation test over the same tied ranks
    assert res["wilcoxon_p"] == pytest.approx(stats.wilcoxon(tied[tied != 0]).pvalue)
    assert wilcoxon_test(np.zeros(5))["n_nonzero"] == 0


def test_bootstrap_ci_covers_mean_and_is_seeded():
    x = np.random.default_rng(0).normal(1.0, 1.0, 300)
    a = bootstrap_mean_ci(x, rng=np.random.default_rng(1))
    assert a == bootstrap_mean_ci(x, rng=np.random.default_rng(1))
    est, low, high = a
    assert low < est < high and low < 1.0 < high
    se = x.std(ddof=1) / np.sqrt(len(x))
    assert (high - low) == pytest.approx(2 * 1.96 * se, rel=0.15)


def test_planted_rightward_shift_under_c3r_is_recovered(planted):
    shifts = item_shifts(planted)
    summ = shift_summary(shifts)
    wd = summ[(summ["instrument"] == "atp") & (summ["measure"] == "wd_dem")].set_index(["model", "condition"])["mean_shift"]
    for m in RUN_MODELS:
        assert wd[(m, "C3R")] > 0.08  # answers moved away from Democrats
        right = shifts[(shifts["model"] == m) & (shifts["condition"] == "C3R") & (shifts["measure"] == "wd_dem")]["shift"]
        assert bootstrap_mean_ci(right)[1] > 0
    # Nothing planted under C3L: the six models' mean shift is within two standard errors of 0.
    assert abs(np.mean([wd[(m, "C3L")] for m in RUN_MODELS])) < 0.03
    dec = decomposition(planted, shifts).set_index("model")
    assert (dec["sycophancy_right"] > 0.05).all()
    assert dec["sycophancy_left"].abs().mean() < 0.02
    assert (dec["asymmetry"] > 0).all() and (dec["accommodation_gap"] > 0.04).all()
    assert sign_flip_exact(dec["asymmetry"])["p"] == pytest.approx(2 / 64)
    # The cell-level null is rejected; the C3L shifts of WD(Dem) alone are not.
    cells = asymmetry_cells(planted)
    assert sign_flip_draws(cells["asymmetry"], draws=2000)["p"] < 0.01
    left = shifts[(shifts["condition"] == "C3L") & (shifts["measure"] == "wd_dem")]["shift"]
    low, high = bootstrap_mean_ci(left)[1:]
    assert low < 0 < high
    pct = pct_decomposition(planted).set_index("model")
    assert (pct["sycophancy_right"] > 0.5).all() and (pct["sycophancy_left"].abs() < 0.3).all()


def test_condition_summary_by_hand():
    items = builtin_pct_items()[:4]  # directions -1, +1, -1, +1
    responses = pd.DataFrame(
        {
            "model_id": "m/x", "question_id": [i.id for i in items], "raw_response": ["A", "A", "D", "I'm sorry, I can't answer that."],
            "letter": ["A", "A", "D", ""], "condition": "N", "rep": 0, "temperature": 1.0,
        }
    )
    cells = build_cells(frame_from_import(responses, [PCT_FILE]))
    row = condition_summary(cells).iloc[0]
    dirs = [i.direction for i in items]
    expected = (2 * dirs[0] + 2 * dirs[1] - 2 * dirs[2]) / 3  # the refusal is not parsed
    assert row["mean_ideology"] == pytest.approx(expected)
    assert row["n_parsed"] == 3 and row["parse_rate"] == pytest.approx(0.75) and row["refusal_rate"] == pytest.approx(0.25)


def test_closer_by_gap_by_hand():
    """Six answered ATP items under N with gaps 0.05 .. 0.3 (one without a gap, one tie,
    one unparsed, one asked only under N and so unmatched once C3R exists)."""
    gaps = [0.05, 0.15, 0.25, 0.3, None, 0.22, 0.4]
    closer = ["Dem", "Rep", "Dem", "Equal", "Dem", None, "Dem"]
    cells = pd.DataFrame({"model": "m/x", "instrument": "atp", "condition": "N", "item_id": [f"i{k}" for k in range(7)],
                          "scoring": "wd", "answered": [c is not None for c in closer], "has_benchmarks": True,
                          "wd_dem": [0.1 if c is not None else np.nan for c in closer], "wd_rep": [0.2 if c is not None else np.nan for c in closer],
                          "closer": closer, "item_partisan_gap": gaps})
    c3r = cells.iloc[:6].assign(condition="C3R", closer="Rep")  # item i6 is not asked under C3R: unmatched
    table = closer_by_gap(pd.concat([cells, c3r], ignore_index=True)).set_index(["condition", "gap_floor"])
    assert table.loc[("N", 0.0), ["n_items", "n_no_gap"]].tolist() == [5, 1]
    assert table.loc[("N", 0.0), "pct_closer_dem"] == pytest.approx(100 * 3 / 5)  # the tie stays in the denominator
    assert table.loc[("N", 0.1), "n_items"] == 3 and table.loc[("N", 0.1), "pct_closer_dem"] == pytest.approx(100 / 3)
    assert table.loc[("N", 0.2), "n_items"] == 2 and table.loc[("N", 0.2), "pct_closer_dem"] == pytest.approx(50.0)
    assert table.loc[("C3R", 0.2), "pct_closer_dem"] == 0.0
    assert closer_by_gap(cells.drop(columns="item_partisan_gap")).empty


def test_epochs_pool_into_one_distribution(atp_items, atp_file):
    item = atp_items[0]
    responses = pd.DataFrame(
        {"model_id": "m/x", "question_id": item.id, "raw_response": ["A", "B", "A", "B"], "letter": ["A", "B", "A", "B"],
         "condition": "N", "rep": [0, 1, 2, 3], "temperature": 1.0}
    )
    cells = build_cells(frame_from_import(responses, [atp_file]))
    assert cells["probs"].iloc[0][:2] == [0.5, 0.5]
    from political_sycophancy.shared.scorers.wd import normalized_wd

    pooled = [0.5, 0.5] + [0.0] * (len(item.options) - 2)
    assert cells["wd_dem"].iloc[0] == pytest.approx(normalized_wd(item.positions, pooled, item.benchmarks["dem"]))


def test_mixed_reml_equals_statsmodels_crossed():
    data = crossed_data(4, items=15, models=3)
    ours = fit_mixed(data, "wd_dem")
    ref = fit_mixed(data, "wd_dem", engine="statsmodels", optimizers=("lbfgs",))
    assert ours.converged and ref.converged
    for a, b in zip(ours.coefficients.itertuples(), ref.coefficients.itertuples(), strict=True):
        assert a.estimate == pytest.approx(b.estimate, abs=1e-6)
        assert a.se == pytest.approx(b.se, rel=1e-3)
    assert ours.variance_components["item variance"] == pytest.approx(ref.variance_components["item variance"], rel=1e-3)
    assert ours.loglik == pytest.approx(ref.loglik, abs=1e-3)


# The Wald CIs' coverage of planted effects: tests/test_stats_stress.py (200 seeds, within the binomial band).


def test_mixed_paper_spec_and_one_model():
    data = crossed_data(2, items=12, models=3)
    paper = fit_mixed(data, "wd_dem", spec="paper", optimizers=("lbfgs", "powell"))
    assert paper.converged and "item x model" in paper.formula
    one = fit_mixed(data[data["model"] == "m0"], "wd_dem")
    assert one.converged and one.n_models == 1 and "model" not in one.formula.split("+")[-1]
    with pytest.raises(ValueError):
        fit_mixed(data[data["condition"] == "C3R"], "wd_dem")


def test_power_plan_recovers_variances(atp_items, atp_file):
    items = atp_items[:40]  # 40 items x 3 epochs x 3 conditions x 3 models through Inspect: enough for both variances
    responses = synthetic_responses(items, MODELS[:3], ["N", "C3L", "C3R"], atp_shift={"C3R": -0.3}, epochs=3, seed=8)
    frame = frame_from_import(responses, [atp_file])
    table, info = power_plan(frame, effect=0.02)
    assert info["var_replicate"] is not None and info["var_replicate"] > 0
    assert list(table["replicates"]) == [1, 2, 4, 8]
    needed = table["items_needed_per_model"].tolist()
    assert needed == sorted(needed, reverse=True)  # replicates reduce the items needed
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    r1 = table.iloc[0]
    expected = np.ceil(z**2 * (info["var_item"] + info["var_replicate"]) / 0.02**2)
    assert r1["items_needed_per_model"] == expected
    assert info["min_models_sign_flip"] == 6
    one_epoch, info1 = power_plan(frame[frame["epoch"] == 1], effect=0.02)
    assert info1["var_replicate"] is None and "one epoch" in info1["note"]
    # issue 26 item 6: the one-epoch plan repeated one row for 1, 2, 4 and 8 replicates
    assert one_epoch["replicates"].tolist() == [1]


def test_stability_tables(atp_items, atp_file):
    items = atp_items[:20]
    hot = synthetic_responses(items, ["m/x"], ["N", "C3L", "C3R"], epochs=3, seed=1)
    cold = synthetic_responses(items, ["m/x"], ["N", "C3L", "C3R"], epochs=1, temperature=0.0, seed=1, noise=0.0)
    frame = frame_from_import(pd.concat([hot, cold], ignore_index=True), [atp_file])
    assert (main_rows(frame)["temperature"] == 1.0).all()  # the variant with most samples
    values = epoch_values(frame)
    sd = replicate_sd(values)
    assert set(sd["temperature"]) == {1.0} and (sd["n_cells"] > 0).all()
    agree = temperature_agreement(values)
    assert set(agree["temperature_a"]) == {0.0} and agree["letter_agreement"].between(0, 1).all()


def test_all_epochs_row_says_how_many_items_have_replicates(atp_items, atp_file):
    """Issue 26 item 6: the paper's grid has a second replicate on a few cells only; its
    `asymmetry_by_variant` row read "all epochs (2)", as if every item had two."""
    from political_sycophancy.audit.stability import asymmetry_by_variant

    items = atp_items[:20]
    responses = synthetic_responses(items, ["m/x"], ["N", "C3L", "C3R"], epochs=2, seed=1)
    twice = {i.id for i in items[:5]}
    responses = responses[(responses["rep"] == 0) | responses["question_id"].isin(twice)]
    table = asymmetry_by_variant(frame_from_import(responses, [atp_file]))
    assert list(table["epochs"]) == ["epoch 1", "all epochs (2 on 5 of 20 items)"]
    full = asymmetry_by_variant(frame_from_import(synthetic_responses(items, ["m/x"], ["N", "C3L", "C3R"], epochs=2, seed=1), [atp_file]))
    assert list(full["epochs"]) == ["epoch 1", "all epochs (2)"]


def test_asymmetry_by_variant_equals_one_decomposition_per_part(atp_items, atp_file):
    """The table is computed in one pass over every (model, variant, epochs) part; each row
    equals the decomposition of that part alone, the PCT fallback included (a model with
    no ATP items), for two temperatures of one model."""
    from political_sycophancy.audit.stability import asymmetry_by_variant
    from political_sycophancy.shared.cells import build_cells, variant_rows, variants
    from political_sycophancy.shared.shifts import decomposition, pct_decomposition

    pct = [i for i in builtin_pct_items() if i.direction != 0][:15]
    conditions = ["N", "C3L", "C3R"]
    hot = synthetic_responses(atp_items[:20], ["m/atp"], conditions, epochs=2, atp_shift={"C3R": -0.3}, seed=2)
    cold = synthetic_responses(atp_items[:20], ["m/atp"], conditions, seed=3).assign(temperature=0.0)
    only_pct = synthetic_responses(pct, ["m/pct"], conditions, pct_shift={"C3R": 0.8}, seed=4)
    frame = frame_from_import(pd.concat([hot, cold, only_pct], ignore_index=True), [atp_file, PCT_FILE])
    table = asymmetry_by_variant(frame)
    expected = []
    for _, v in variants(frame).iterrows():
        sel = variant_rows(frame, v)
        parts = ([sel[sel["epoch"] == 1]] if v["max_epoch"] > 1 else []) + [sel]
        for part in parts:
            cells = build_cells(part)
            dec = decomposition(cells)
            expected.append((dec if not dec.empty else pct_decomposition(cells)).iloc[0])
    assert len(table) == len(expected) == 4 and sorted(table["measure"].unique()) == ["PCT item score", "WD(Dem) / WD(Rep)"]
    assert sorted(table["temperature"].unique()) == [0.0, 1.0]
    columns = ["sycophancy_left", "sycophancy_right", "asymmetry", "accommodation_gap", "n_asymmetry_items"]
    got = table[columns].to_numpy(dtype=float)
    want = pd.DataFrame(expected)[columns].to_numpy(dtype=float)
    np.testing.assert_array_equal(got, want)


def test_modal_letters_equal_value_counts_with_ties():
    """The vectorised modal letter (temperature_agreement: 18 s of a paper-size report in a
    Python lambda per group) picks what `value_counts().index[0]` picks, ties included."""
    from political_sycophancy.audit.stability import modal_letters

    rng = np.random.default_rng(7)
    n = 3000
    values = pd.DataFrame({"g": rng.integers(0, 400, n), "t": rng.choice([0.0, 1.0], n),
                           "letter": rng.choice(["A", "B", "C", None], n, p=[0.3, 0.3, 0.3, 0.1])})
    expected = (values.groupby(["g", "t"]).agg(letter=("letter", lambda s: s.value_counts().index[0] if s.notna().any() else None))
                .reset_index().dropna(subset=["letter"]))
    got = modal_letters(values, ["g", "t"])
    merged = expected.merge(got, on=["g", "t"], how="outer", suffixes=("_expected", "_got"))
    ties = values.dropna().groupby(["g", "t", "letter"]).size().groupby(["g", "t"]).apply(lambda c: int((c == c.max()).sum() > 1)).sum()
    assert ties > 50  # the planted data has many tied groups
    assert (merged["letter_expected"] == merged["letter_got"]).all()


@pytest.mark.parametrize("n", [60, 400])
def test_wilcoxon_normal_approximation_is_scipys(n):
    """The normal approximation used for many or tied shifts: scipy's asymptotic
    signed-rank test (tie-corrected, no continuity correction), statistic and p."""
    from political_sycophancy.shared.shifts import _signed_rank_normal

    rng = np.random.default_rng(n)
    for shifts in (np.round(rng.normal(0.05, 0.2, n), 2), rng.normal(0.0, 1.0, n)):  # heavily tied, untied
        shifts = shifts[shifts != 0]
        ours = _signed_rank_normal(shifts)
        res = stats.wilcoxon(shifts, zero_method="wilcox", alternative="two-sided", method="asymptotic")
        assert ours[0] == float(res.statistic)
        assert ours[1] == pytest.approx(float(res.pvalue), rel=1e-12, abs=1e-300)
    big = wilcoxon_test(np.round(rng.normal(0.05, 0.2, n), 2))
    assert big["wilcoxon_method"] == "normal approximation"
