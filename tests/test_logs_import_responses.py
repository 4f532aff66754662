"""import-responses: response files -> real Inspect logs; bad input; the paper's Phase 1 numbers."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from inspect_ai.log import read_eval_log

from political_sycophancy.audit.simulate import write_atp_items
from political_sycophancy.cli import main
from political_sycophancy.core.conditions import builtin_conditions
from political_sycophancy.core.errors import InputError
from political_sycophancy.core.items import builtin_path, load_items
from political_sycophancy.core.prompts import audit_prompt
from political_sycophancy.logs.frame import load_frame
from political_sycophancy.logs.importer import import_responses
from political_sycophancy.shared.cells import build_cells, main_rows
from political_sycophancy.shared.summaries import closer_by_gap, condition_summary

PCT_FILE = builtin_path("pct.csv")


@pytest.fixture
def items(tmp_path):
    atp = write_atp_items(tmp_path / "atp.csv", 4, seed=3)
    return {"atp": atp, "pct": PCT_FILE}


def _write(tmp_path, rows, name="responses.csv"):
    path = tmp_path / name
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_phase2_shape_becomes_one_log_per_cell(tmp_path, items):
    atp_items = load_items(items["atp"], instrument="atp")
    rows = []
    for model in ("prov/model-a", "prov/model-b"):
        for cond in ("N", "C3R"):
            for rep in (0, 1):
                rows.append({"model_id": model, "question_id": "p1_02", "raw_response": "B", "letter": "B", "condition": cond,
                             "condition_label": cond, "partisan_gap": "", "rep": rep, "temperature": 1.0, "error": ""})
                rows.append({"model_id": model, "question_id": atp_items[0].id, "raw_response": "The answer is A.", "letter": "A",
                             "condition": cond, "condition_label": cond, "partisan_gap": 0.3, "rep": rep, "temperature": 1.0, "error": ""})
    path = _write(tmp_path, rows)
    result = import_responses(path, [items["pct"], items["atp"]], tmp_path / "logs")
    assert len(result.logs) == 2 * 2 * 2 and result.samples == len(rows)
    log = read_eval_log(str(next(p for p in result.logs if "atp-C3R" in p.name)))
    assert log.status == "success" and log.eval.model in ("prov/model-a", "prov/model-b")
    assert log.eval.metadata["political_sycophancy"] == "audit" and log.eval.metadata["condition"] == "C3R"
    # named as a run of the audit task is, the cell in its label
    assert (log.eval.task, log.eval.metadata["task_label"]) == ("political_sycophancy/audit", "audit_atp_C3R") and log.results is not None
    sample = log.samples[0]
    item = atp_items[0]
    assert sample.input == builtin_conditions()["C3R"].apply(audit_prompt(item))
    assert sample.output.completion == "The answer is A." and sample.epoch in (1, 2)
    score = next(iter(sample.scores.values()))
    assert score.metadata["status"] == "answered" and score.answer == "A" and score.value["wd_dem"] == score.value["wd_dem"]
    # The analysis reads them back: epochs from rep (0-based), one cell per model x item x condition.
    frame = load_frame(tmp_path / "logs")
    assert sorted(frame["epoch"].unique()) == [1, 2] and len(frame) == len(rows)
    # Re-importing the same file replaces the logs instead of adding duplicates.
    again = import_responses(path, [items["pct"], items["atp"]], tmp_path / "logs")
    assert again.replaced == len(result.logs) and len(list((tmp_path / "logs").glob("*.eval"))) == len(result.logs)


def test_source_letters_versus_our_parser(tmp_path, items):
    refusal = "As a language model I don't have personal opinions, but A or B could apply."
    rows = [
        {"model_id": "p/m", "question_id": "p1_02", "raw_response": refusal, "letter": "A", "error": ""},
        {"model_id": "p/m", "question_id": "p1_03", "raw_response": "I'm sorry, I can't answer that.", "letter": "", "error": ""},
        {"model_id": "p/m", "question_id": "p1_04", "raw_response": "", "letter": "", "error": "Error code: 429"},
        {"model_id": "p/m", "question_id": "p1_05", "raw_response": "C", "letter": "C", "error": ""},
    ]
    path = _write(tmp_path, rows)
    src = import_responses(path, [items["pct"]], tmp_path / "src", use_source_letters=True)
    ours = import_responses(path, [items["pct"]], tmp_path / "ours")
    a = load_frame(tmp_path / "src").set_index("item_id")
    b = load_frame(tmp_path / "ours").set_index("item_id")
    assert a.loc["p1_02", "status"] == "answered" and a.loc["p1_02", "letter"] == "A" and a.loc["p1_02", "rule"] == "source letter"
    assert a.loc["p1_02", "text_status"] == "refusal"  # our reading of the same text is kept beside it
    assert b.loc["p1_02", "status"] == "refusal" and pd.isna(b.loc["p1_02", "letter"])
    assert a.loc["p1_03", "status"] == "refusal" and a.loc["p1_04", "status"] == "error" and "429" in a.loc["p1_04", "error"]
    assert a.loc["p1_05", "letter"] == b.loc["p1_05", "letter"] == "C"
    assert src.errors == 1 and src.disagreements["p/m"]["source_only"] == 1
    assert ours.disagreements == {"p/m": {"rows": 0, "source_only": 0, "ours_only": 0, "different": 0}}


@pytest.mark.parametrize(
    "rows, match",
    [
        ([{"model_id": "p/m", "question_id": "nope_1", "raw_response": "A"}], r"row 1, field 'question_id'.*nope_1"),
        ([{"model_id": "p/m", "question_id": "p1_01", "raw_response": "A", "condition": "XYZ"}], r"row 1, field 'condition'.*XYZ"),
        ([{"model_id": "p/m", "question_id": "p1_01", "raw_response": "A", "rep": "x"}], r"field 'rep'"),
        ([{"model_id": "p/m", "question_id": "p1_01", "raw_response": "A"}] * 2, r"repeat the same model"),
        ([{"model": "p/m", "question_id": "p1_01", "raw_response": "A"}], r"missing column\(s\) model_id"),
    ],
)
def test_bad_input_names_row_and_field(tmp_path, items, rows, match):
    path = _write(tmp_path, rows)
    with pytest.raises(InputError, match=match):
        import_responses(path, [items["pct"]], tmp_path / "logs")
    assert not list((tmp_path / "logs").glob("*.eval")) if (tmp_path / "logs").exists() else True


def test_unknown_ids_can_be_skipped_and_counted(tmp_path, items, capsys):
    path = _write(tmp_path, [{"model_id": "p/m", "question_id": "p1_01", "raw_response": "A", "letter": "A"},
                             {"model_id": "p/m", "question_id": "atp_W99_GONE", "raw_response": "A", "letter": "A"}])
    code = main(["import-responses", str(path), "--items", str(items["pct"]), "--log-dir", str(tmp_path / "logs"), "--skip-unknown"])
    assert code == 0
    out = capsys.readouterr().out
    assert "left out 1 response(s)" in out and "atp_W99_GONE" in out
    code = main(["import-responses", str(path), "--items", str(items["pct"]), "--log-dir", str(tmp_path / "logs2")])
    assert code == 2 and "atp_W99_GONE" in capsys.readouterr().err


def test_models_named_by_another_column_join_the_grid_and_probe_names(tmp_path, items, capsys):
    """Issue 26 point 8: the first seed's Phase 1 file names models by id
    (`anthropic/claude-sonnet-4-5`), its Phase 2 grid and probe files by label; with
    `--model-column model_label` the Phase 1 logs carry the labels, the id kept beside."""
    rows = [{"model_id": "anthropic/claude-sonnet-4-5", "model_label": "Claude Sonnet 4.5", "question_id": q, "raw_response": "B",
             "letter": "B"} for q in ("p1_01", "p1_02")]
    path = _write(tmp_path, rows)
    code = main(["import-responses", str(path), "--items", str(items["pct"]), "--log-dir", str(tmp_path / "logs"),
                 "--model-column", "model_label"])
    assert code == 0, capsys.readouterr().err
    frame = load_frame(tmp_path / "logs")
    assert set(frame["model"]) == {"Claude Sonnet 4.5"}
    [log] = [read_eval_log(str(p)) for p in (tmp_path / "logs").glob("*.eval")]
    assert {s.metadata["source_model_id"] for s in log.samples} == {"anthropic/claude-sonnet-4-5"}
    code = main(["import-responses", str(path), "--items", str(items["pct"]), "--log-dir", str(tmp_path / "other"),
                 "--model-column", "model_nickname"])
    err = capsys.readouterr().err
    assert code == 2 and "model_nickname" in err and "--model-column" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def _phase1_rows(letter="B", changes=None):
    """Three Phase 1-shaped rows for PCT p1_01..p1_03, each with its own copy of the
    question (text, n_options, options) and the letter read; `changes` maps
    (row index, column) to a new value."""
    pct = {i.id: i for i in load_items(PCT_FILE, instrument="pct")}
    rows = [
        {"model_id": "p/m", "question_id": q, "question_text": pct[q].text, "n_options": 4,
         "options": json.dumps(list(pct[q].options)), "raw_response": letter, "letter": letter, "letter_index": "ABCD".index(letter)}
        for q in ("p1_01", "p1_02", "p1_03")
    ]
    for (i, column), value in (changes or {}).items():
        rows[i][column] = value
    return rows


def test_same_base_name_in_two_folders_keeps_both(tmp_path, items):
    """rep1/results.csv then rep2/results.csv into one log dir: both imports stay."""
    (tmp_path / "rep1").mkdir()
    (tmp_path / "rep2").mkdir()
    first = _write(tmp_path / "rep1", _phase1_rows("B"), "results.csv")
    second = _write(tmp_path / "rep2", _phase1_rows("C"), "results.csv")
    a = import_responses(first, [items["pct"]], tmp_path / "logs")
    b = import_responses(second, [items["pct"]], tmp_path / "logs")
    assert a.replaced == b.replaced == 0
    logs = [read_eval_log(str(p)) for p in (tmp_path / "logs").glob("*.eval")]
    answers = sorted(s.output.completion for log in logs for s in log.samples)
    assert len(logs) == 2 and answers == ["B"] * 3 + ["C"] * 3
    assert {log.eval.metadata["imported_from"] for log in logs} == {str(first.resolve()), str(second.resolve())}
    # re-importing one of them replaces its own log only
    again = import_responses(first, [items["pct"]], tmp_path / "logs")
    assert again.replaced == 1 and len(list((tmp_path / "logs").glob("*.eval"))) == 2


def test_an_edited_file_is_refused_until_its_old_logs_may_go(tmp_path, items):
    path = _write(tmp_path, _phase1_rows("B"))
    import_responses(path, [items["pct"]], tmp_path / "logs")
    _write(tmp_path, _phase1_rows("C"))
    with pytest.raises(InputError, match="1 log\\(s\\) in .* earlier version of this file"):
        import_responses(path, [items["pct"]], tmp_path / "logs")
    result = import_responses(path, [items["pct"]], tmp_path / "logs", replace_changed=True)
    assert result.replaced_changed == 1 and set(load_frame(tmp_path / "logs")["letter"]) == {"C"}
    (log,) = (tmp_path / "logs").glob("*.eval")
    meta = read_eval_log(str(log), header_only=True).eval.metadata
    assert meta["imported_from"] == str(path.resolve()) and len(meta["imported_sha256"]) == 64


@pytest.mark.parametrize(
    "changes, row, field, reason",
    [
        ({(1, "options"): '["Strongly Agree", "Agree"'}, 2, "options", "unreadable options"),
        ({(0, "options"): json.dumps(["Strongly Disagree", "Disagree", "Agree", "Strongly Agree"])}, 1, "options", "the options of item p1_01 in another order"),
        ({(2, "options"): '["Yes", "No"]'}, 3, "options", "2 options, item p1_03 has 4"),
        ({(1, "n_options"): 5}, 2, "n_options", "n_options 5 but item p1_02 has 4 options"),
        ({(0, "question_text"): "Something else entirely?"}, 1, "question_text", "question text is not that of item p1_01"),
        ({(0, "letter"): "E", (0, "letter_index"): 4}, 1, "letter", "letter E but item p1_01 has 4 options"),
        ({(1, "letter_index"): 3}, 2, "letter_index", "letter_index 3 but letter B"),
    ],
)
def test_rows_are_checked_against_the_items(tmp_path, items, changes, row, field, reason):
    path = _write(tmp_path, _phase1_rows("B", changes))
    with pytest.raises(InputError, match=re.escape(f"row {row}, field '{field}': {reason}")):
        import_responses(path, [items["pct"]], tmp_path / "logs", use_source_letters=True)
    result = import_responses(path, [items["pct"]], tmp_path / "logs", use_source_letters=True, skip_mismatched=True)
    ((got_row, got_field, got_reason),) = result.mismatches
    assert (got_row, got_field) == (row, field) and got_reason.startswith(reason) and result.samples == 2


def test_values_checked_once_each_still_name_the_first_bad_row(tmp_path, items):
    """The importer checks each distinct value of a column once: an error still names the
    first row of the file that holds a bad value, and every mismatched row is listed."""
    rows = _phase1_rows("B") + _phase1_rows("B")
    for i, row in enumerate(rows):
        row.update(model_id=f"p/m{i // 3}", temperature="1.0")
    rows[4]["temperature"], rows[2]["temperature"], rows[5]["temperature"] = "hot", "warm", "hot"
    path = _write(tmp_path, rows)
    with pytest.raises(InputError, match=re.escape("row 3, field 'temperature': not a number: 'warm'")):
        import_responses(path, [items["pct"]], tmp_path / "logs", use_source_letters=True)
    for row in rows:
        row["temperature"] = "1.0"
    rows[1]["n_options"] = rows[4]["n_options"] = 5  # the same mismatch (item p1_02) in two rows
    rows[3]["n_options"] = 2
    path = _write(tmp_path, rows)
    with pytest.raises(InputError, match=re.escape("row 2, field 'n_options'")):
        import_responses(path, [items["pct"]], tmp_path / "logs", use_source_letters=True)
    result = import_responses(path, [items["pct"]], tmp_path / "logs", use_source_letters=True, skip_mismatched=True)
    assert [(row, field) for row, field, _ in result.mismatches] == [(2, "n_options"), (4, "n_options"), (5, "n_options")]
    assert result.samples == 3


def test_skip_mismatched_is_counted_by_the_cli(tmp_path, items, capsys):
    path = _write(tmp_path, _phase1_rows("B", {(0, "n_options"): 2}))
    args = ["import-responses", str(path), "--items", str(items["pct"]), "--log-dir", str(tmp_path / "logs")]
    assert main(args) == 2 and "--skip-mismatched" in capsys.readouterr().err
    assert main(args + ["--skip-mismatched"]) == 0
    assert "left out 1 response(s) that disagree with the item files (first: row 1, field 'n_options'" in capsys.readouterr().out


# The paper's Phase 1 table (../shared/reference/README.md), at its printed precision.
PHASE1 = {
    "Claude Sonnet 4.5": (-1.097, -0.182, 0.3180, 0.2843, 57.0, 1514),
    "DeepSeek-R1": (-1.226, -0.697, 0.3457, 0.3049, 58.8, 1539),
    "GPT-4o": (-1.167, -0.545, 0.3387, 0.2917, 60.7, 1508),
    "GPT-5": (-1.177, -0.381, 0.3523, 0.3051, 61.0, 1388),
    "Gemini 2.5 Flash": (-1.226, -0.545, 0.3711, 0.3356, 57.3, 1521),
    "Llama 4 Maverick": (-0.421, -0.587, 0.3415, 0.2964, 62.6, 1461),
}


def _the_papers_item_counts_in_the_report(frame, reference_dir, out):
    """Issue 46 items 9 and 4, on this module's one Phase 1 import: the pool the paper
    describes (Methods: 1,643 items; 62 PCT items coded 36 right, 20 left, 6 fillers, the
    social axis 25R/10L; ATP items from 15 waves, W26-W92; a Phase 2 subset of 587 items, the
    500 ATP items of largest gap, cut-off 0.1189, with every PCT and Typology item) and the
    file's provenance, in report.md (its overview and items sections only: the rest is
    checked below and in tests/test_report_browser.py)."""
    import hashlib

    from political_sycophancy.audit.items import items_section
    from political_sycophancy.report.overview import overview_section
    from political_sycophancy.report.render import write_report

    write_report(frame, out, sections=[(0, "overview", overview_section), (3, "items", items_section)])
    md = (out / "report.md").read_text(encoding="utf-8")
    digest = hashlib.sha256((reference_dir / "results_phase1.csv").read_bytes()).hexdigest()
    first = md[: md.index("## ")]
    assert f"results_phase1.csv (sha256 {digest[:16]}" in first and "the file's own letters (--use-source-letters)" in first
    assert "options: --use-source-letters --skip-unknown" in first
    assert "9,858 rows, 1,643 question ids; 96 rows of question ids not in the item files left out" in first
    assert "1,627 items in the audit logs: 1,540 atp, 62 pct, 25 typology" in md
    assert "atp: 1,540 items from 15 waves (W26-W92)" in md
    assert ("pct coding: 36 right-coded items (agreeing scores right), 20 left-coded, 6 without a direction "
            "(economic 11 right-coded, 10 left-coded; social 25 right-coded, 10 left-coded)") in md
    assert "here at least 0.1189, with every PCT and Typology item): 587 items (500 ATP, 62 PCT, 25 Typology)" in md
    pool = {p["question_id"] for p in json.loads((reference_dir / "phase2_pool.json").read_text())}
    assert len(pool) == 587 and sum(i.startswith("atp_") for i in pool) == 500


@pytest.mark.slow
def test_phase1_reproduces_the_paper_with_source_letters(reference_dir, tmp_path):
    from political_sycophancy.pew.replication import import_replication

    files = import_replication(reference_dir, tmp_path / "items")
    result = import_responses(
        reference_dir / "results_phase1.csv",
        [files["pct"], files["typology"], files["atp"]],
        tmp_path / "logs",
        use_source_letters=True,
        skip_unknown=True,  # the 16 ATP items without benchmarks are not in atp.csv
    )
    assert result.skipped_unknown == 16 * 6 and all(re.match(r"atp_W\d+_", i) for i in result.unknown_ids)
    labels = pd.read_csv(reference_dir / "results_phase1.csv", usecols=["model_id", "model_label"]).drop_duplicates()
    label_of = dict(zip(labels["model_id"], labels["model_label"], strict=True))
    frame = load_frame(tmp_path / "logs")
    _the_papers_item_counts_in_the_report(frame, reference_dir, tmp_path / "report")
    cells = build_cells(main_rows(frame))
    summary = condition_summary(cells)
    assert set(summary["model"].map(label_of)) == set(PHASE1)
    # the first seed's Fig. 1 claim: 57-63% closer to Democrats over every item, 75-82% on its 293 items with gap >= 0.2
    by_gap = closer_by_gap(cells).set_index(["model", "gap_floor"])["pct_closer_dem"].unstack()
    assert round(by_gap[0.0].min()) == 57 and round(by_gap[0.0].max()) == 63
    assert round(by_gap[0.2].min()) == 75 and round(by_gap[0.2].max()) == 82
    atp = summary[summary["instrument"] == "atp"].set_index("model")["pct_closer_dem"]
    assert (by_gap[0.0] == atp.reindex(by_gap.index)).all()
    for _, r in summary.iterrows():
        pct, typ, wd_rep, wd_dem, closer, n = PHASE1[label_of[r["model"]]]
        if r["instrument"] == "pct":
            assert round(r["mean_ideology"], 3) == pct
        elif r["instrument"] == "typology":
            assert round(r["typology_score"], 3) == typ
        else:
            assert (round(r["mean_wd_rep"], 4), round(r["mean_wd_dem"], 4)) == (wd_rep, wd_dem)
            assert round(r["pct_closer_dem"], 1) == closer and r["n_wd_items"] == n
    json.dumps(result.disagreements)
