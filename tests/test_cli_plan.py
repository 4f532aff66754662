"""`political-sycophancy plan`: the printed plan, and a run that is killed part-way and resumed."""

from __future__ import annotations

import csv
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.items import write_atp, write_typology

from political_sycophancy.cli import main
from political_sycophancy.logs.frame import CELL_KEY, read_frame

ROOT = Path(__file__).resolve().parents[1]

# A model provider for a subprocess: it appends every call to $CALLS_FILE and waits
# $CALL_DELAY seconds, so a run can be killed part-way and its calls counted.
COUNTING_MODEL = textwrap.dedent(
    '''
    import asyncio, os, sys
    from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi

    @modelapi(name="counting")
    class Counting(ModelAPI):
        def __init__(self, model_name, base_url=None, api_key=None, config=GenerateConfig(), **kw):
            super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, api_key_vars=[], config=config)

        def max_connections(self):
            return 1

        async def generate(self, input, tools, tool_choice, config):
            prompt = input[-1].text
            with open(os.environ["CALLS_FILE"], "a") as f:
                f.write(prompt.splitlines()[0][:60] + "\\n")
            await asyncio.sleep(float(os.environ.get("CALL_DELAY", "0")))
            if "EXPECTED BY ASKER" in prompt:
                text = "EXPECTED BY ASKER: A\\nREASONING: The wording.\\nYOUR ANSWER: B"
            elif "ASKER IDEOLOGY" in prompt:
                text = "ASKER: A researcher running a survey.\\nASKER IDEOLOGY: 4\\nYOUR ANSWER: A"
            else:
                text = "A"
            return ModelOutput(
                model=self.model_name,
                choices=[ChatCompletionChoice(message=ChatMessageAssistant(content=text, model=self.model_name, source="generate"), stop_reason="stop")],
                usage=ModelUsage(input_tokens=len(prompt) // 4, output_tokens=len(text.split()), total_tokens=len(prompt) // 4 + len(text.split())),
            )

    from political_sycophancy.cli import main
    sys.exit(main(sys.argv[1:]))
    '''
)


def write_pct(path: Path, n: int = 4) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["id", "text", "direction", "axis"])
        w.writeheader()
        for i in range(n):
            w.writerow({"id": f"p_{i}", "text": f"Statement {i}.", "direction": 1 if i % 2 else -1, "axis": "social"})
    return path


@pytest.fixture
def small_items(tmp_path) -> Path:
    d = tmp_path / "items"
    d.mkdir()
    write_pct(d / "pct.csv", 4)
    write_typology(d / "typology.csv", 3)
    write_atp(d / "atp.csv", 8)
    return d


SMALL = ["--phase2-pool", "top4", "--probe-pool", "top2", "--replicates", "2"]
# The kill test runs few tasks (each costs about a second to set up): the replicate phase
# (audit tasks with two epochs, and the T=0 run) and the personas.
KILL_PHASES = ["--phases", "replicates,personas"]
# Cells (task x sample x epoch) of the small design, per model:
# phase1 4+3+8; phase2 (4+4+3) x 6 + 3 focal x 4 items x 1 extra epoch; T=0 3 x 4;
# probes 6 x 2 items x 2 epochs + perception 2 x 2; personas 3 x 2 x 2.
SMALL_CALLS = 15 + 66 + 12 + 12 + 24 + 4 + 12
# replicates (3 focal tasks x 4 items x 2 epochs, 3 T=0 tasks x 4), personas (3 x 2 x 2)
KILL_CALLS = 24 + 12 + 12
KILL_AFTER = 20


def test_plan_prints_phases_without_running(small_items, tmp_path, capsys):
    assert main(["plan", "--model", "mockllm/a", "--model", "mockllm/b", "--items", str(small_items), "--log-dir", str(tmp_path / "logs"), *SMALL]) == 0
    out = capsys.readouterr().out
    assert "34 tasks x 2 model(s)" in out
    total = next(line for line in out.splitlines() if line.startswith("total"))
    # tasks, cells/model, calls/model, calls (two models)
    assert total.split()[1:5] == ["34", str(15 + 66 + 12 + 14 + 6), str(SMALL_CALLS), str(2 * SMALL_CALLS)]
    assert "nothing was run" in out
    assert not (tmp_path / "logs").exists()
    # With --limit the counts are those of the first N samples of each task.
    assert main(["plan", "--model", "mockllm/a", "--items", str(small_items), "--log-dir", "x", *SMALL, "--limit", "1"]) == 0
    total = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("total"))
    # cells: one per task; calls: phase1 3, phase2 18 + 3 focal x 1 extra epoch, T=0 3, probes 7 x 2, personas 3 x 2
    assert total.split()[1:4] == ["34", "34", str(3 + 21 + 3 + 14 + 6)]


def test_plan_bad_input(small_items, tmp_path, capsys):
    assert main(["plan", "--model", "m/x", "--items", str(tmp_path / "nope"), "--log-dir", "x"]) == 2
    assert "item directory not found" in capsys.readouterr().err
    assert main(["plan", "--model", "m/x", "--items", str(small_items), "--log-dir", "x", "--probe-pool", "top20"]) == 2
    assert "too small for the expected-answer probe" in capsys.readouterr().err
    assert main(["plan", "--model", "m/x", "--items", str(small_items), "--log-dir", "x", "--output-tokens", "audit=lots"]) == 2


def _run(script: Path, args: list[str], calls: Path, delay: float, **popen) -> subprocess.Popen:
    env = {**os.environ, "CALLS_FILE": str(calls), "CALL_DELAY": str(delay), "INSPECT_DISPLAY": "none"}
    return subprocess.Popen([sys.executable, str(script), *args], env=env, cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **popen)


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_killed_run_resumes_with_every_cell_once(small_items, tmp_path):
    script = tmp_path / "counting_plan.py"
    script.write_text(COUNTING_MODEL)
    logs = tmp_path / "logs"
    args = ["plan", "--run", "--model", "counting/m", "--items", str(small_items), "--log-dir", str(logs), *SMALL, *KILL_PHASES, "--max-tasks", "1"]
    first_calls, second_calls = tmp_path / "calls1.txt", tmp_path / "calls2.txt"

    proc = _run(script, args, first_calls, delay=0.05, start_new_session=True)
    deadline = time.time() + 120
    while _lines(first_calls) < KILL_AFTER and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[0][-3000:]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _lines(first_calls)
    assert KILL_AFTER <= before < KILL_CALLS

    done = _run(script, args, second_calls, delay=0.0)
    out = done.communicate(timeout=300)[0]
    assert done.returncode == 0, out[-3000:]
    after = _lines(second_calls)

    load = read_frame(logs, cache=False)
    frame = load.frame
    # Every cell of the design is in the analysis exactly once...
    assert len(frame) == KILL_CALLS
    assert not frame.duplicated(CELL_KEY).any()
    assert (frame["status"] != "error").all()
    assert frame.groupby("task").size().to_dict()["phase2_audit_atp_C3R"] == 4 * 2
    # ...and the rerun made only the missing calls, plus those of the task running at the
    # kill that were made but not yet written to its log (at most that task's 8 calls).
    repeated = before + after - KILL_CALLS
    print(f"\ncalls before kill {before}, after resume {after} (missing {KILL_CALLS - before}, repeated {repeated}); "
          f"cells in the frame {len(frame)} of {KILL_CALLS}; duplicates dropped {load.duplicates}")
    assert 0 <= repeated <= 8


def test_plan_estimates_cost_and_time_from_the_users_prices(small_items, tmp_path, capsys):
    """A worked estimate: the planned tokens times the given prices; calls / connections x latency."""
    base = ["plan", "--model", "mockllm/a", "--model", "mockllm/b", "--items", str(small_items), "--log-dir", str(tmp_path / "l"), *SMALL]
    assert main([*base, "--price-in", "2.5", "--price-out", "10", "--seconds-per-call", "2", "--max-connections", "4"]) == 0
    out = capsys.readouterr().out
    total = next(line for line in out.splitlines() if line.startswith("total")).split()
    calls_per_model, calls, tokens_in, tokens_out = (int(total[i].replace(",", "")) for i in (3, 4, 5, 6))
    usd = float(re.search(r"estimated cost: ([\d,.]+) USD", out).group(1).replace(",", ""))
    assert usd == pytest.approx((tokens_in * 2.5 + tokens_out * 10) / 1e6, abs=0.006)
    minutes = float(re.search(r"\(([\d,.]+) min\) with 4 connections", out).group(1).replace(",", ""))
    assert minutes == pytest.approx(calls_per_model * 2 / 4 / 60, abs=0.51) and calls == 2 * calls_per_model
    assert main([*base, "--price-in", "2.5"]) == 2
    printed = capsys.readouterr()
    assert "--price-in and --price-out go together" in printed.err and "total" not in printed.out  # refused before any output
