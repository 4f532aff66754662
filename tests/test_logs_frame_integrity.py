"""Logs -> tidy frame, as a careless or hostile user meets it: both score contracts, a
planted cache, model variants and re-runs, incomplete designs, odd .eval zips."""

from __future__ import annotations

import csv
import json
import math
import pickle
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.scorer import Score
from support import scripted_model

from political_sycophancy.audit.simulate import write_atp_items
from political_sycophancy.audit.task import audit, audit_tasks
from political_sycophancy.cli import main
from political_sycophancy.core.atomic import temp_path
from political_sycophancy.evenhandedness.task import evenhandedness
from political_sycophancy.logs.frame import CACHE_DIR, read_frame

# String labels the old contract kept in Score.value and the new one keeps in Score.metadata.
LABELS = ("closer",)


def _answer_some(text: str) -> str:
    """B for most items, a refusal for every third (by prompt length), so both statuses occur."""
    return "I cannot take a side on that." if len(text) % 3 == 0 else "B"


def _to_old_contract(score: Score) -> Score:
    """The same score under the old contract (the scorers now write the new one): status,
    letter and labels in the value, None where undefined, no indicators."""
    meta = dict(score.metadata or {})
    value = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in score.value.items()
             if k not in ("answered", "refused", "covered_mass")}
    value = {"status": meta.pop("status"), "letter": meta.pop("letter", None), **value}
    for label in LABELS:
        if label in meta:
            value[label] = meta.pop(label)
    return Score(value=value, answer=score.answer, explanation=score.explanation, metadata=meta)


def _rewrite_old_contract(log_path: str, out_dir: Path) -> None:
    log = read_eval_log(log_path)
    for sample in log.samples or []:
        sample.scores = {name: _to_old_contract(s) for name, s in (sample.scores or {}).items()}
    out_dir.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(out_dir / Path(log_path).name))


def test_frame_reads_old_and_new_score_contracts_alike(tmp_path):
    """A log scored under the new contract (numbers-only values, labels in the metadata)
    gives the same frame as the same answers scored under the old one."""
    items = write_atp_items(tmp_path / "atp.csv", 8, seed=3)
    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    logs = []
    for condition in ("N", "C3R"):
        logs += inspect_eval(
            audit(instrument="atp_items", items=str(items), condition=condition),
            model=scripted_model(_answer_some),
            log_dir=str(new_dir),
            display="none",
        )
    for log in logs:
        _rewrite_old_contract(log.location, old_dir)
    old = read_frame(old_dir, cache=False).frame
    new = read_frame(new_dir, cache=False).frame
    assert list(new.columns) == list(old.columns)
    assert set(old["status"]) == {"answered", "refusal"} and old["closer"].notna().any()
    key = ["condition", "item_id", "epoch"]
    volatile = ["log_file", "created"]
    pd.testing.assert_frame_equal(
        new.drop(columns=volatile).sort_values(key).reset_index(drop=True),
        old.drop(columns=volatile).sort_values(key).reset_index(drop=True),
    )


class _Planted:
    """A pickle that creates `marker` when unpickled (what a hostile log folder would hold)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def test_planted_pickle_in_the_cache_is_never_executed(tmp_path):
    """A log folder is shared data: a pickle planted in its cache folder, under the old cache
    name or the new ones, is never unpickled; the frame is rebuilt from the logs, with a note."""
    logs = tmp_path / "logs"
    inspect_eval(audit(), model=scripted_model(lambda t: "B"), limit=3, log_dir=str(logs), display="none")
    fresh = read_frame(logs, cache=False).frame
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Planted(marker))
    cache = logs / CACHE_DIR
    cache.mkdir()
    (cache / "frame.pkl").write_bytes(payload)
    load = read_frame(logs)
    assert not marker.exists()
    assert load.read == 1 and load.cached == 0 and len(load.frame) == 3
    assert any("pickle" in n for n in load.notes)
    assert not (cache / "frame.pkl").exists()
    # The cache written now is data only: Parquet files and a JSON index, no pickle anywhere.
    written = sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file())
    assert written and all(p.endswith((".parquet", ".json")) for p in written), written
    for path in cache.rglob("*"):
        if path.is_file():
            assert b"\x80\x04\x95" not in path.read_bytes()[:3]
    # Every cache file replaced by the pickle: each fails validation, is never executed,
    # and the frame is read from the logs again.
    for path in [p for p in cache.rglob("*") if p.is_file()]:
        original = path.read_bytes()
        path.write_bytes(payload)
        load = read_frame(logs)
        assert not marker.exists(), path
        assert load.read == 1 and any("failed validation" in n for n in load.notes), (path, load.notes)
        pd.testing.assert_frame_equal(load.frame, fresh)
        path.write_bytes(original)
        assert read_frame(logs).cached == 1


def test_another_measure_in_the_audit_folder_is_not_a_variant(tmp_path):
    """An even-handedness run (its task's temperature 0.1) written into the folder of an audit
    of the same model (temperature 1) is another measure, not a further variant of the model:
    variants are told apart within a measure's logs (its kind), and neither measure's rows are
    labelled by the other's settings."""
    logs = tmp_path / "logs"
    _mock_audit(logs)
    grader = scripted_model(lambda t: "Answer: C\nCompliance: A\nHedging: B\nOpposing views: No", name="mockllm/grader")
    [log] = inspect_eval(evenhandedness(condition="C3L", n_pairs=2, grader=grader), model="faulty/mockllm/model",
                         log_dir=str(logs), display="none")
    assert log.status == "success"
    load = read_frame(logs, cache=False)
    assert set(load.frame["kind"]) == {"audit", "evenhandedness"}
    assert load.variants == 0 and not any("further variant" in n for n in load.notes), load.notes
    assert set(load.frame["variant"]) == {"(base)"}
    # two settings of one measure are still its variants
    _mock_audit(logs, temperature=0)
    load = read_frame(logs, cache=False)
    assert load.variants == 1 and any("1 further variant(s)" in n for n in load.notes)
    audit_variants = load.frame[load.frame["kind"] == "audit"]["variant"]
    assert sorted(audit_variants.unique()) == ["temperature=0", "temperature=1"]
    assert set(load.frame[load.frame["kind"] == "evenhandedness"]["variant"]) == {"(base)"}


def _mock_audit(log_dir: Path, *, model_args: dict | None = None, condition: str = "N", limit: int = 3, **generate) -> None:
    """A real audit run on `faulty/mockllm/model` (a pass-through with usage set), with model
    arguments and generate-config overrides as `-M` and `--temperature`/`--max-tokens` give them."""
    [log] = inspect_eval(
        audit(condition=condition),
        model="faulty/mockllm/model",
        model_args=model_args or {},
        limit=limit,
        log_dir=str(log_dir),
        display="none",
        **generate,
    )
    assert log.status == "success"


def test_runs_with_different_settings_are_variants_not_duplicates(tmp_path, capsys):
    """One model name run with --temperature 0, with --max-tokens and with other -M model
    args is kept apart (variants and a distinct model), never dropped as duplicates; only a
    true re-run of the same cell is de-duplicated, and both counts are reported."""
    logs = tmp_path / "logs"
    _mock_audit(logs)  # the task's default temperature 1
    _mock_audit(logs, temperature=0)
    _mock_audit(logs, max_tokens=7)
    _mock_audit(logs, model_args={"mock_answer": "C"})
    _mock_audit(logs)  # a true re-run of the first
    load = read_frame(logs, cache=False)
    frame = load.frame
    assert len(frame) == 4 * 3 and load.duplicates == 3
    base = frame[frame["model"] == "faulty/mockllm/model"]
    other = frame[frame["model"] == "faulty/mockllm/model [mock_answer=C]"]
    assert len(base) == 9 and len(other) == 3 and set(other["letter"]) == {"C"}
    assert sorted(base["variant"].unique()) == ["max_tokens=7, temperature=1", "temperature=0", "temperature=1"]
    # the temperature is the one the model got (--temperature 0), not the task's default
    assert sorted(base.groupby("variant")["temperature"].first().tolist()) == [0.0, 1.0, 1.0]
    assert load.variants == 2 and load.models_split == 1
    assert any("3 duplicate sample(s) from re-runs" in n for n in load.notes)
    assert any("2 further variant(s)" in n for n in load.notes)
    out = tmp_path / "report"
    assert main(["analyze", str(logs), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "3 duplicate sample(s) from re-runs" in printed and "2 further variant(s)" in printed
    variants = pd.read_csv(out / "tables" / "variants.csv")
    assert len(variants) == 4 and variants["main"].sum() == 2
    side = pd.read_csv(out / "tables" / "condition_summary_by_variant.csv")
    assert len(side) == 4 and set(side["n_samples"]) == {3}


def test_incomplete_design_is_reported_and_conditions_compare_matched_items(tmp_path, capsys):
    """An audit killed and never resumed: one condition's log lost its last samples (still
    `started`), another condition's task never wrote a log. The analysis states the expected
    cells (from each task's dataset), what is missing per model x condition, and compares
    conditions over the items run under every condition only, saying so."""
    logs = tmp_path / "logs"
    args = ["audit", "--conditions", "N,C3L,C3R", "--limit", "6", "--model", "faulty/mockllm/model", "--log-dir", str(logs)]
    assert main(args) == 0
    by_condition = {read_eval_log(str(p), header_only=True).eval.metadata["condition"]: p for p in logs.glob("*.eval")}
    killed = read_eval_log(str(by_condition["C3L"]))
    killed.samples = killed.samples[:4]
    killed.status, killed.results = "started", None
    write_eval_log(killed, str(by_condition["C3L"]))
    by_condition["C3R"].unlink()
    capsys.readouterr()
    out = tmp_path / "report"
    assert main(["analyze", str(logs), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "incomplete design: 2 of 12 expected samples have no result" in printed
    # a task that never started has no metadata: it is named by its registry name and arguments
    never_started = "political_sycophancy/audit (instrument=pct, condition=C3R, answer=letter)"
    assert "1 task(s) of the eval set have no log" in printed and never_started in printed
    design = pd.read_csv(out / "tables" / "design_cells.csv").set_index("condition")
    assert design.loc["N", ["expected", "present", "missing"]].tolist() == [6, 6, 0]
    assert design.loc["C3L", ["expected", "present", "missing"]].tolist() == [6, 4, 2]
    assert design.loc["C3L", "log_status"] == "started"
    assert pd.isna(design.loc["C3R", "expected"]) and design.loc["C3R", "log_status"] == "no log (never started)"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["design"]["complete"] is False and summary["design"]["missing"] == 2
    assert summary["design"]["tasks_without_log"] == [never_started]
    # N and C3L are compared over the 4 items run under both, and the report says so.
    table = pd.read_csv(out / "tables" / "condition_summary.csv").set_index("condition")
    assert table.loc["N", "n_items"] == table.loc["C3L", "n_items"] == 4
    assert table.loc["N", "n_unmatched"] == 2 and table.loc["C3L", "n_unmatched"] == 0
    report = (out / "report.md").read_text()
    assert "matched items" in report and "Exclusions: 0" not in report
    assert "2 of 12 expected samples are missing" in report


def _inspect_parse_rate(log) -> float:
    """The parse rate Inspect computed for a log (what the `audit` table prints): the
    `answered` mean of the new score contract, or the older `parse_rate` metric."""
    for score in log.results.scores:
        if score.name == "answered" and "mean" in score.metrics:
            return score.metrics["mean"].value
        if "parse_rate" in score.metrics:
            return score.metrics["parse_rate"].value
    raise AssertionError("no parse rate in the log's metrics")


def test_parse_rate_is_the_same_number_in_audit_and_analyze(tmp_path, capsys):
    """With errored samples (no score) and unparsed answers, `analyze` reports the parse
    rate Inspect reports (answered / scored samples) and the errors beside it, named."""
    logs = tmp_path / "logs"
    runs = inspect_eval(
        audit_tasks(conditions="N,C3R"),
        model="faulty/mockllm/model",
        model_args={"permanent": 0.25, "garbage": 0.25, "seed": 7},
        limit=12,
        log_dir=str(logs),
        display="none",
        fail_on_error=False,
    )
    inspect_rates = {log.eval.metadata["condition"]: _inspect_parse_rate(log) for log in runs}
    errors = {log.eval.metadata["condition"]: sum(1 for s in log.samples if s.error) for log in runs}
    assert all(errors.values()) and all(0 < r < 1 for r in inspect_rates.values())
    out = tmp_path / "report"
    assert main(["analyze", str(logs), "--out", str(out), "--bootstrap", "20", "--sign-flip-draws", "20"]) == 0
    table = pd.read_csv(out / "tables" / "condition_summary.csv").set_index("condition")
    for condition, rate in inspect_rates.items():
        assert table.loc[condition, "parse_rate"] == pytest.approx(rate)
        assert table.loc[condition, "n_errors"] == errors[condition]
        assert table.loc[condition, "error_rate"] == pytest.approx(errors[condition] / 12)
    printed = capsys.readouterr().out
    header = next(line for line in printed.splitlines() if line.startswith("model "))
    assert header.split() == ["model", "condition", "samples", "errors", "ideology", "answered", "refused"]  # audit's columns
    for condition, rate in inspect_rates.items():
        line = next(line for line in printed.splitlines() if line.split()[1:2] == [condition])
        assert line.split()[5] == f"{rate:.3f}" and line.split()[3] == str(errors[condition])


FORMULAS = ["=HYPERLINK(\"http://127.0.0.1:9/x\",\"click\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)"]


def test_tables_are_spreadsheet_safe_and_report_md_escapes_html(tmp_path):
    """Item texts that a spreadsheet would run as formulas are written as text (a leading
    quote), and raw HTML from item texts and model names is escaped in report.md too."""
    items = tmp_path / "hostile.jsonl"
    rows = [
        {"id": f"f{i}", "text": f"{FORMULAS[i % 4]} <img src=x onerror=alert({i})>", "options": ["Agree", "Disagree"],
         "direction": 1, "scoring": "typology"}
        for i in range(8)
    ]  # fmt: skip
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    model = scripted_model(lambda p: "B" if "Republican" in p else "A", name="mockllm/<script>alert('m')</script>")
    logs, out = tmp_path / "logs", tmp_path / "report"
    inspect_eval(audit_tasks(instrument=str(items), conditions="N,C3L,C3R"), model=model, log_dir=str(logs), display="none")
    assert main(["analyze", str(logs), "--out", str(out), "--bootstrap", "20", "--sign-flip-draws", "20"]) == 0
    shown = 0
    for path in sorted((out / "tables").glob("*.csv")):
        with path.open(newline="", encoding="utf-8") as fh:
            for row in csv.reader(fh):
                for cell in row:
                    if cell[:1] in ("=", "+", "-", "@"):
                        float(cell)  # only numbers may lead with a formula character
                    shown += cell.startswith("'") and cell[1:2] in ("=", "+", "-", "@")
    assert shown >= 4, "the formula-leading item texts are in the tables, quoted"
    md = (out / "report.md").read_text(encoding="utf-8").lower()
    assert "<img" not in md and "<script" not in md and "&lt;img src=x" in md and "&lt;script&gt;" in md


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_killed_analyze_leaves_no_orphan_temp_file(tmp_path):
    """`analyze` killed with SIGKILL part-way, plus temporary files a killed writer left
    (ours, and the old pickle cache's `.frame-*.tmp`): the next run removes them all, and
    keeps the temporary file of a writer that is still running (in the frame cache: the
    report folder is replaced whole, under a lock no second analyze can take)."""
    logs, out = tmp_path / "logs", tmp_path / "report"
    for condition in ("N", "C3R"):
        _mock_audit(logs, condition=condition, limit=4)
    argv = [sys.executable, "-m", "political_sycophancy.cli", "analyze", str(logs), "--out", str(out), "--bootstrap", "20", "--sign-flip-draws", "20"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        if line.startswith("[1/"):  # the frame cache is written, the report is being written
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    cache, dead = logs / CACHE_DIR, _dead_pid()
    orphans = [
        cache / ".frame-k2j3h4.tmp",
        temp_path(cache / "index.json", dead),
        temp_path(out / "tables" / "condition_summary.csv", dead),
        temp_path(out / "report.html", dead),
    ]
    for path in orphans:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half-written")
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = temp_path(cache / "index.json", alive.pid)
        live.write_text("being written")
        assert main(["analyze", str(logs), "--out", str(out), "--bootstrap", "20", "--sign-flip-draws", "20"]) == 0
        left = sorted(str(p) for p in tmp_path.rglob("*") if p.name.endswith((".tmp", ".ps-tmp")) and p != live)
        assert left == [] and live.exists()
    finally:
        alive.kill()
        alive.wait()


def _rezip(src: Path, dst: Path, *, drop: tuple[str, ...] = (), rename: dict[str, str] | None = None) -> None:
    """A copy of an .eval zip with members dropped (a name ending in / drops a folder) or renamed."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if any(info.filename == d or (d.endswith("/") and info.filename.startswith(d)) for d in drop):
                continue
            name = (rename or {}).get(info.filename, info.filename)
            zout.writestr(name, zin.read(info.filename), compress_type=info.compress_type)


def test_eval_zip_with_unexpected_layout_is_read_through_inspect(tmp_path):
    """An .eval zip whose layout is not the one the fast reader expects (no summaries.json
    and no journal; summaries.json renamed) is read with Inspect's public read_eval_log, not
    listed as unreadable nor read as empty."""
    [log] = inspect_eval(audit(), model=scripted_model(lambda t: "B"), limit=3, log_dir=str(tmp_path / "logs"), display="none")
    src = Path(log.location)
    expected = read_frame(src.parent, cache=False).frame
    variants = {
        "no_summaries": dict(drop=("summaries.json", "_journal/")),
        "renamed_summaries": dict(drop=("_journal/",), rename={"summaries.json": "summaries_v2.json"}),
    }
    for name, change in variants.items():
        _rezip(src, tmp_path / name / src.name, **change)
        load = read_frame(tmp_path / name, cache=False)
        assert load.unreadable == [] and len(load.frame) == 3, name
        assert any("read with Inspect's read_eval_log" in n for n in load.notes), (name, load.notes)
        same = ["model", "variant", "condition", "item_id", "epoch", "status", "letter", "ideology", "probs", "options"]
        pd.testing.assert_frame_equal(load.frame[same], expected[same])


def test_complete_runs_of_tasks_without_an_answer_mode_are_complete(tmp_path):
    """A finished open-ended (likert) run, whose task names no answer mode, is complete: the
    design must not report its every sample as missing."""
    from support import run_eval, scripted_model

    from political_sycophancy.logs.frame import read_frame
    from political_sycophancy.open_ended.task import open_ended

    run_eval(open_ended(prefix="likert"), scripted_model(lambda text: "B", name="mockllm/likert"), tmp_path / "logs")
    load = read_frame(tmp_path / "logs", cache=False)
    assert not [n for n in load.notes if "incomplete design" in n], load.notes
    design = load.design
    assert int(design["missing"].sum()) == 0 and int(design["present"].sum()) == len(load.frame) > 0
