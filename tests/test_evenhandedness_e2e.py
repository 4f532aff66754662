"""The even-handedness measure end to end (issue 28): `inspect eval-set` on mockllm (the
registered task, the grader as a model role) and `analyze`; the embedded model answering and
grading itself, analysed, its report section rendered in headless Chromium."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log
from support import requires_embedded, run_cli
from support.browser import CHROMIUM, layout

from political_sycophancy.cli import main
from political_sycophancy.evenhandedness.task import evenhandedness

pytestmark = pytest.mark.slow  # the embedded model answers and grades; a browser renders: the slow stage

# one fixed reply the mock grader gives to every grading prompt: the paired judgement reads
# its explicit answer (C), the per-answer grades its three labelled lines
GRADER_REPLY = "Answer: C\\nCompliance: A\\nHedging: B\\nOpposing views: No"
GRADER_ROLE = '{"model": "faulty/mockllm/grader", "model_args": {"mock_answer": "' + GRADER_REPLY + '"}}'


def test_eval_set_on_mockllm_then_analyze(tmp_path):
    args = ("inspect", "eval-set", "political_sycophancy/evenhandedness", "-T", "n_pairs=2", "--model", "faulty/mockllm/model",
            "-M", "mock_answer=Here is the case, with evidence.", "--model-role", f"grader={GRADER_ROLE}",
            "--log-dir", str(tmp_path / "logs"), "--display", "none")
    first = run_cli(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    [info] = list_eval_logs(str(tmp_path / "logs"))
    log = read_eval_log(info)
    assert log.status == "success" and len(log.samples) == 6  # 2 pairs x N, C3L, C3R
    assert log.eval.task_registry_name == "political_sycophancy/evenhandedness" and log.eval.metadata["task_label"] == "evenhandedness_example_multi"
    score = log.samples[0].scores["evenhandedness_grader"]
    assert score.metadata["grader"] == "faulty/mockllm/grader" and score.value["even"] == 1.0 and score.value["hedging_level_a"] == 2.0
    assert (tmp_path / "logs" / "eval-set.json").exists()
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--bootstrap", "100", "--no-reuse"]) == 0
    table = pd.read_csv(tmp_path / "out" / "tables" / "evenhandedness.csv").set_index("condition")
    assert list(table.index) == ["C3L", "N", "C3R", "stated side (pooled)"]
    assert table["even_rate"].tolist() == [1.0] * 4 and table.loc["C3L", "help_gap"] == 0.0 and table.loc["C3R", "n_help_gap"] == 2
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["evenhandedness"]["groups"]["faulty/mockllm/model|(base)|faulty/mockllm/grader|project|C3L"]["n_judged"] == 2
    # the model's own asymmetry (N included) and the contrasts between askers, each number's rubric named
    asymmetry = pd.read_csv(tmp_path / "out" / "tables" / "evenhandedness_asymmetry.csv")
    assert sorted(asymmetry["condition"]) == ["C3L", "C3R", "N"] and set(asymmetry["rubric"]) == {"project"}
    assert (asymmetry["refusal_asymmetry"] == 0).all() and (asymmetry["refusal_asymmetry_ci_high"] > 0).all()
    contrast = pd.read_csv(tmp_path / "out" / "tables" / "evenhandedness_contrast.csv")
    assert set(zip(contrast["asker"], contrast["versus"], strict=True)) == {("C3L", "N"), ("C3R", "N"), ("C3R", "C3L")}
    assert list(contrast.columns[:8]) == ["model", "variant", "grader", "rubric", "asker", "versus", "statistic", "estimate"]
    assert "## Even-handed help under asker conditions" in (tmp_path / "out" / "report.md").read_text()


@requires_embedded
@pytest.mark.embedded
@pytest.mark.figures
@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install -y chromium)")
def test_embedded_model_answers_and_grades_itself_and_the_report_renders(tmp_path):
    """One pair under C3L on SmolLM2-135M, which also grades (self-grading allowed): the
    tiny grader rarely writes a readable grade, and whatever it writes is counted, kept
    raw and never scored."""
    task = evenhandedness(condition="C3L", n_pairs=1, allow_self_grading=True)
    [log] = inspect_eval(task, model="gguf/smollm2", log_dir=str(tmp_path / "logs"), display="none", max_tokens=8, seed=7)
    assert log.status == "success", log.error
    assert len(log.samples) == 1
    for sample in log.samples:
        assert sample.messages[0].text.startswith("As a progressive Democrat")
        score = sample.scores["evenhandedness_grader"]
        assert score.metadata["self_graded"] and score.metadata["status"] in ("answered", "unparsed", "refusal", "empty")
        assert set(score.metadata["grader_text"]) <= {"a", "b", "pair"} and score.metadata["grader_text"]
        if score.metadata["status"] != "answered":
            assert score.value["even"] != score.value["even"]  # NaN: never scored
    out = tmp_path / "out"
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(out), "--bootstrap", "100", "--no-reuse"]) == 0
    exclusions = pd.read_csv(out / "tables" / "evenhandedness_exclusions.csv")
    assert exclusions["samples"].sum() == 1 and exclusions["answers"].sum() == 2
    report = out / "report.html"
    assert "self-graded" in report.read_text()
    verdict = layout(report, tmp_path)
    assert "evenhandedness" in verdict["h2"] and verdict["broken"] == [] and verdict["images"] >= 1, verdict
    assert verdict["unboxed_wide_tables"] == [] and verdict["scroll_width"] <= verdict["page_width"] + 1, verdict
