"""The `.sav` builder on two small synthetic ATP waves written with pyreadstat.write_sav;
every expected number is computed by hand in the comments."""

from __future__ import annotations

import math

import pandas as pd
import pyreadstat
import pytest

from political_sycophancy.cli import main
from political_sycophancy.core.errors import InputError
from political_sycophancy.core.items import load_items, select_pool
from political_sycophancy.pew.sav import build_atp, parse_group_spec

NAN = math.nan

# Wave 1: eight respondents. Party 2 = Dem, 1 = Rep, 9 = refused the party question.
WAVE1 = pd.DataFrame(
    {
        "QKEY": [1, 2, 3, 4, 5, 6, 7, 8],
        "F_PARTYSUM_FINAL": [2, 2, 2, 2, 1, 1, 1, 9],
        "F_AGECAT": [1, 1, 2, 2, 1, 2, 2, 1],
        "WEIGHT_W1": [1.0, 2.0, 1.0, 0.5, 1.0, 3.0, 1.0, 2.0],
        "Q1_W1": [1, 1, 2, 99, 2, 2, 1, 1],
        "Q2_W1": [1, 2, 4, 1, 3, 3, 2, NAN],
        "PIPE_W1": [1, 2, 1, 2, 1, 2, 1, 2],
        "ONE_W1": [1, 1, 99, 1, 1, 1, 1, 1],
        "NOLAB_W1": [3, 4, 5, 6, 7, 8, 9, 10],
    },
    dtype=float,
)
WAVE1_LABELS = {
    "QKEY": "Respondent id",
    "F_PARTYSUM_FINAL": "Party summary",
    "F_AGECAT": "Age category",
    "WEIGHT_W1": "Wave 1 weight",
    "Q1_W1": "Q1_W1. Do you favor or oppose the policy? [ASK ALL]",
    "Q2_W1": "Q2_W1. Will things get better or worse?",
    "PIPE_W1": "You said {Q1_W1}. Do you still think so?",
    "ONE_W1": "ONE_W1. Did you vote?",
    "NOLAB_W1": "NOLAB_W1. How many hours?",
}
WAVE1_VALUES = {
    "F_PARTYSUM_FINAL": {1: "Rep/Lean Rep", 2: "Dem/Lean Dem", 9: "DK/Refused/No lean"},
    "F_AGECAT": {1: "18-49", 2: "50+", 99: "Refused"},
    "Q1_W1": {1: "Favor", 2: "Oppose", 99: "Refused"},
    "Q2_W1": {1: "Better", 2: "Same", 3: "Worse", 4: "Not sure", 99: "Refused"},
    "PIPE_W1": {1: "Yes", 2: "No"},
    "ONE_W1": {1: "Yes", 99: "Refused"},
}

# Wave 2: four respondents; 98 ("Don't know") is a non-response code, dropped.
WAVE2 = pd.DataFrame(
    {
        "QKEY": [11, 12, 13, 14],
        "F_PARTYSUM_FINAL": [2, 2, 1, 1],
        "F_AGECAT": [1, 2, 1, 2],
        "WEIGHT_W2": [1.0, 1.0, 2.0, 2.0],
        "Q3_W2": [1, 2, 3, 98],
    },
    dtype=float,
)
WAVE2_LABELS = {"Q3_W2": "Q3_W2. How much does it matter?"}
WAVE2_VALUES = {
    "F_PARTYSUM_FINAL": {1: "Rep/Lean Rep", 2: "Dem/Lean Dem"},
    "F_AGECAT": {1: "18-49", 2: "50+"},
    "Q3_W2": {1: "A lot", 2: "A little", 3: "Not at all", 98: "Don't know"},
}


def write_wave(path, df, labels, values):
    pyreadstat.write_sav(df, str(path), column_labels={c: labels.get(c, c) for c in df.columns}, variable_value_labels=values)
    return path


@pytest.fixture
def sav_dir(tmp_path):
    d = tmp_path / "sav"
    d.mkdir()
    write_wave(d / "ATP W1.sav", WAVE1, WAVE1_LABELS, WAVE1_VALUES)
    write_wave(d / "ATP W2.sav", WAVE2, WAVE2_LABELS, WAVE2_VALUES)
    return d


def _items(path):
    return {i.id: i for i in load_items(path, instrument="atp")}


def test_weighted_build_by_hand(sav_dir, tmp_path):
    out, report = build_atp([sav_dir], tmp_path / "atp.csv")
    items = _items(out)
    assert sorted(items) == ["atp_W1_Q1", "atp_W1_Q2", "atp_W2_Q3"]

    q1 = items["atp_W1_Q1"]
    assert q1.text == "Do you favor or oppose the policy?"
    assert q1.options == ("Favor", "Oppose")
    # Dem: Favor 1 + 2 = 3, Oppose 1 (respondent 4 refused, weight .5).
    assert q1.benchmarks["dem"] == pytest.approx((0.75, 0.25), abs=1e-6)
    # Rep: Favor 1, Oppose 1 + 3 = 4.
    assert q1.benchmarks["rep"] == pytest.approx((0.2, 0.8), abs=1e-6)
    # Overall (party 9 included): Favor 1 + 2 + 1 + 2 = 6, Oppose 1 + 1 + 3 = 5.
    assert q1.benchmarks["overall"] == pytest.approx((6 / 11, 5 / 11), abs=1e-6)
    assert q1.partisan_gap == pytest.approx(0.55, abs=1e-6)  # |.75 - .2| over range 1
    assert float(q1.metadata["refused_dem"]) == pytest.approx(0.5 / 4.5, abs=1e-6)
    assert float(q1.metadata["refused_rep"]) == 0.0
    assert int(q1.metadata["n_dem"]) == 3 and int(q1.metadata["n_overall"]) == 7
    assert q1.metadata["weighting"] == "WEIGHT_W1"
    assert q1.ordinal is None

    q2 = items["atp_W1_Q2"]
    assert q2.options == ("Better", "Same", "Worse", "Not sure")
    assert q2.ordinal == (True, True, True, False)
    # Dem: Better 1 + .5, Same 2, Not sure 1 -> / 4.5.
    assert q2.benchmarks["dem"] == pytest.approx((1 / 3, 4 / 9, 0, 2 / 9), abs=1e-6)
    assert q2.benchmarks["rep"] == pytest.approx((0, 0.2, 0.8, 0), abs=1e-6)
    # CDFs dem (1/3, 7/9, 7/9), rep (0, .2, 1): 1/3 + 26/45 + 2/9 = 51/45, over range 3.
    assert q2.partisan_gap == pytest.approx(17 / 45, abs=1e-6)

    q3 = items["atp_W2_Q3"]
    assert q3.options == ("A lot", "A little", "Not at all")
    assert q3.benchmarks["dem"] == pytest.approx((0.5, 0.5, 0), abs=1e-6)
    assert q3.benchmarks["rep"] == pytest.approx((0, 0, 1), abs=1e-6)  # the 98 answer is dropped
    assert float(q3.metadata["refused_rep"]) == 0.0  # "Don't know" is not a refusal
    assert q3.partisan_gap == pytest.approx(0.75, abs=1e-6)  # CDF gaps .5 + 1 over range 2

    text = report.read_text(encoding="utf-8")
    for var, reason in [
        ("F_AGECAT", "demographic"),
        ("QKEY", "metadata"),
        ("WEIGHT_W1", "metadata"),
        ("PIPE_W1", "piped text"),
        ("ONE_W1", "fewer than two substantive options"),
        ("NOLAB_W1", "no value labels"),
    ]:
        assert any(line.startswith(f"| {var} | ") and reason in line for line in text.splitlines()), var
    assert r"atp_W1_Q2 | non-ordinal option(s) \['Not sure'\]" in text  # the report's texts are literal Markdown


def test_unweighted_build_reproduces_raw_counts(sav_dir, tmp_path):
    out, _ = build_atp([sav_dir / "ATP W1.sav"], tmp_path / "atp.csv", unweighted=True)
    items = _items(out)
    q1, q2 = items["atp_W1_Q1"], items["atp_W1_Q2"]
    assert q1.benchmarks["dem"] == pytest.approx((2 / 3, 1 / 3), abs=1e-6)
    assert q1.benchmarks["rep"] == pytest.approx((1 / 3, 2 / 3), abs=1e-6)
    assert q1.benchmarks["overall"] == pytest.approx((4 / 7, 3 / 7), abs=1e-6)
    assert q1.partisan_gap == pytest.approx(1 / 3, abs=1e-6)
    assert float(q1.metadata["refused_dem"]) == pytest.approx(0.25, abs=1e-6)
    # Dem: Better 2, Same 1, Not sure 1; rep: Same 1, Worse 2.
    assert q2.benchmarks["dem"] == pytest.approx((0.5, 0.25, 0, 0.25), abs=1e-6)
    # CDFs dem (.5, .75, .75), rep (0, 1/3, 1): .5 + 5/12 + .25 = 7/6, over range 3.
    assert q2.partisan_gap == pytest.approx(7 / 18, abs=1e-6)
    assert q1.metadata["weighting"] == "unweighted"


def test_other_benchmark_groups(sav_dir, tmp_path):
    out, _ = build_atp([sav_dir], tmp_path / "atp.csv", groups=["F_AGECAT:1=young,2=older"])
    q1 = _items(out)["atp_W1_Q1"]
    # Young (respondents 1, 2, 5, 8): Favor 1 + 2 + 2 = 5, Oppose 1.
    assert q1.benchmarks["young"] == pytest.approx((5 / 6, 1 / 6), abs=1e-6)
    # Older (3, 4, 6, 7; 4 refused): Favor 1, Oppose 1 + 3.
    assert q1.benchmarks["older"] == pytest.approx((0.2, 0.8), abs=1e-6)
    out, _ = build_atp([sav_dir], tmp_path / "atp2.csv", groups=["F_AGECAT"])
    assert set(_items(out)["atp_W1_Q1"].benchmarks) == {"dem", "rep", "overall", "f_agecat_18_49", "f_agecat_50"}


def test_pools_on_built_items(sav_dir, tmp_path):
    out, _ = build_atp([sav_dir], tmp_path / "atp.csv")
    items = load_items(out, instrument="atp")
    assert [i.id for i in select_pool(items, "top2")] == ["atp_W2_Q3", "atp_W1_Q1"]
    assert [i.id for i in select_pool(items, "gap>0.5")] == ["atp_W1_Q1", "atp_W2_Q3"]


def test_missing_party_variable(tmp_path):
    path = write_wave(tmp_path / "W1.sav", WAVE1.drop(columns=["F_PARTYSUM_FINAL"]), WAVE1_LABELS, {k: v for k, v in WAVE1_VALUES.items() if k != "F_PARTYSUM_FINAL"})
    with pytest.raises(InputError, match=r"W1\.sav.*F_PARTYSUM_FINAL"):
        build_atp([path], tmp_path / "atp.csv")


def test_missing_weight_needs_unweighted(tmp_path):
    path = write_wave(tmp_path / "W1.sav", WAVE1.drop(columns=["WEIGHT_W1"]), WAVE1_LABELS, WAVE1_VALUES)
    with pytest.raises(InputError, match=r"W1\.sav.*--unweighted"):
        build_atp([path], tmp_path / "atp.csv")
    out, _ = build_atp([path], tmp_path / "atp.csv", unweighted=True)
    assert "atp_W1_Q1" in _items(out)


def test_all_weights_missing(tmp_path):
    df = WAVE1.copy()
    df["WEIGHT_W1"] = NAN
    path = write_wave(tmp_path / "W1.sav", df, WAVE1_LABELS, WAVE1_VALUES)
    with pytest.raises(InputError, match=r"W1\.sav.*WEIGHT_W1.*missing"):
        build_atp([path], tmp_path / "atp.csv")


def test_one_party_only_is_a_listed_exclusion(tmp_path):
    df = WAVE1.copy()
    df.loc[df.F_PARTYSUM_FINAL == 2, "Q1_W1"] = NAN
    path = write_wave(tmp_path / "W1.sav", df, WAVE1_LABELS, WAVE1_VALUES)
    out, report = build_atp([path], tmp_path / "atp.csv")
    assert "atp_W1_Q1" not in _items(out)
    assert "| Q1_W1 | no benchmark: nobody in group 'dem' answered" in report.read_text(encoding="utf-8")


def test_group_spec_errors():
    assert parse_group_spec("F_IDEO").codes is None
    assert parse_group_spec("F_IDEO:1=very_conservative,5=very_liberal").codes == {1.0: "very_conservative", 5.0: "very_liberal"}
    with pytest.raises(InputError):
        parse_group_spec("F_IDEO:one=x")
    with pytest.raises(InputError):
        parse_group_spec("F_IDEO:1=Very Conservative")


def test_cli_build(sav_dir, tmp_path, capsys):
    out = tmp_path / "cli" / "atp.csv"
    assert main(["atp", "build", "--sav", str(sav_dir), "--out", str(out), "--unweighted"]) == 0
    printed = capsys.readouterr().out
    assert "3 items" in printed and out.with_name("atp.report.md").exists()
    assert main(["atp", "build", "--sav", str(tmp_path / "nothing.sav"), "--out", str(out)]) == 2
    assert "file not found" in capsys.readouterr().err


def test_an_infinite_weight_is_an_error(tmp_path):
    df = WAVE1.copy()
    df.loc[2, "WEIGHT_W1"] = math.inf
    path = tmp_path / "wave1.sav"
    pyreadstat.write_sav(df, str(path), column_labels=[WAVE1_LABELS[c] for c in df.columns], variable_value_labels=WAVE1_VALUES)
    with pytest.raises(InputError, match=r"wave1\.sav, row 3, field 'WEIGHT_W1': infinite survey weight"):
        build_atp([path], tmp_path / "atp.csv")
    assert build_atp([path], tmp_path / "atp.csv", unweighted=True)[0].exists()  # raw counts do not use the weight
