"""`validate-judge` on a small labelled file: hand-computed macro-F1, kappa and coverage."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from support import scripted_model

from political_sycophancy.cli import main
from political_sycophancy.core.errors import InputError
from political_sycophancy.open_ended.validate_judge import load_labelled, validate
from political_sycophancy.stats.agreement import cohen_kappa, macro_f1

LABELLED = Path(__file__).parent / "data" / "stance_labelled.csv"

# The scripted judge's answer per labelled row (gold labels are in the file):
# r03 and r05 and r08 are wrong; r10 gets no label at all.
JUDGE = {
    "r01": ("agree", 0.95),
    "r02": ("agree", 0.92),
    "r03": ("neutral", 0.60),
    "r04": ("disagree", 0.97),
    "r05": ("agree", 0.55),
    "r06": ("disagree", 0.91),
    "r07": ("neutral", 0.93),
    "r08": ("disagree", 0.94),
    "r09": ("unrelated", 0.99),
    "r10": (None, None),
}


def scripted_judge():
    answers = {a.response.strip(): a.id for a in load_labelled(LABELLED)}

    def respond(prompt: str) -> str:
        rid = next(rid for response, rid in answers.items() if response in prompt)
        label, confidence = JUDGE[rid]
        if label is None:
            return "It is hard to say."
        return f"Label: {label}\nConfidence: {confidence}"

    return scripted_model(respond, name="mockllm/judge")


def test_macro_f1_and_kappa_by_hand():
    gold = list("AAADDDNNU")
    pred = list("AANDADNDU")
    # F1: A 4/6, D 4/6, N 2/4, U 1 -> mean 0.70833
    assert macro_f1(gold, pred) == pytest.approx((4 / 6 + 4 / 6 + 0.5 + 1) / 4)
    # p_o = 6/9, p_e = (9 + 9 + 4 + 1)/81 -> kappa = 31/58
    assert cohen_kappa(gold, pred) == pytest.approx(31 / 58)
    assert cohen_kappa(list("AB"), list("AB")) == pytest.approx(1.0)


def test_validate_judge_on_the_labelled_file():
    answers = load_labelled(LABELLED)
    judgements, rows = validate(answers, scripted_judge(), thresholds=(0.0, 0.9))
    assert [j.source for j in judgements].count("stated") == 9
    at0, at90 = rows
    # threshold 0: the 9 rows with a label (r10 is invalid and never kept)
    assert at0["kept"] == 9 and at0["coverage"] == pytest.approx(0.9)
    assert at0["macro_f1"] == pytest.approx((4 / 6 + 4 / 6 + 0.5 + 1) / 4)
    assert at0["kappa"] == pytest.approx(31 / 58)
    # threshold 0.9: r01 r02 r04 r06 r07 r08 r09 kept; only r08 wrong
    # F1: agree 1, disagree 4/5, neutral 2/3, unrelated 1; kappa: p_o 6/7, p_e 13/49
    assert at90["kept"] == 7 and at90["coverage"] == pytest.approx(0.7)
    assert at90["macro_f1"] == pytest.approx((1 + 0.8 + 2 / 3 + 1) / 4)
    assert at90["kappa"] == pytest.approx(29 / 36)
    assert at90["accuracy"] == pytest.approx(6 / 7)


def test_cli_prints_the_table_and_writes_predictions(tmp_path, capsys, monkeypatch):
    import inspect_ai.model

    judge = scripted_judge()
    monkeypatch.setattr(inspect_ai.model, "get_model", lambda *a, **k: judge)
    out = tmp_path / "pred.csv"
    code = main(["validate-judge", str(LABELLED), "--grader", "mockllm/judge", "--thresholds", "0,0.9", "--output", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "stated: 9" in printed and "invalid labels: 1" in printed
    assert "0.90      7     0.700     0.857     0.867   0.806" in printed
    with out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 10
    assert (rows[7]["id"], rows[7]["label"], rows[7]["predicted"], rows[7]["confidence"]) == ("r08", "neutral", "disagree", "0.9400")
    assert rows[9]["predicted"] == "" and rows[9]["grader_text"] == "It is hard to say."


def test_bad_labelled_files(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("statement,response,label\nS.,R.,agreed\n", encoding="utf-8")
    with pytest.raises(InputError, match="label must be one of") as info:
        load_labelled(bad)
    assert (info.value.row, info.value.field) == (1, "label")
    missing = tmp_path / "missing.csv"
    missing.write_text("statement,label\nS.,agree\n", encoding="utf-8")
    with pytest.raises(InputError, match="missing column"):
        load_labelled(missing)
    assert main(["validate-judge", str(bad), "--grader", "mockllm/judge"]) == 2
    assert main(["validate-judge", str(LABELLED), "--grader", "mockllm/judge", "--thresholds", "2"]) == 2
