"""The profiles task through Inspect (issue 24): `inspect eval-set` from Inspect's own command
line on the fault-injecting mock model runs every item x persona x mode once and `analyze`
reports the interlocutor-profile section from its logs; an eval set run again re-sends
nothing (the task's version is its content, stable across builds)."""

from __future__ import annotations

import contextvars

import pandas as pd
from inspect_ai import eval_set
from report_support import undescribed_tables
from support import run_cli
from support.items import write_atp
from support.profiles import conversation_model

from political_sycophancy.cli import main
from political_sycophancy.profiles.task import profiles

TASK_ARGS = {"instrument": "atp", "design": "factorial", "attributes": "gender", "modes": "explicit,conversational"}


def test_inspect_eval_set_runs_the_profiles_task_and_analyze_reports_it(tmp_path):
    items = write_atp(tmp_path / "atp.csv", n=3)
    args = ["inspect", "eval-set", "political_sycophancy/profiles", *[f for k, v in TASK_ARGS.items() for f in ("-T", f"{k}={v}")],
            "-T", f"items={items}", "--model", "faulty/mockllm/model", "-M", "mock_answer=B",
            "-M", f"calls_file={tmp_path / 'calls.jsonl'}", "--log-dir", "logs", "--display", "none"]
    run = run_cli(*args, cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    # items x (N ten times, baseline_epochs + 2 personas x 2 modes)
    assert len((tmp_path / "calls.jsonl").read_text().splitlines()) == 3 * (10 + 2 * 2)
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--no-reuse", "--bootstrap", "20", "--sign-flip-draws", "20"]) == 0
    personas = pd.read_csv(tmp_path / "out" / "tables" / "profile_personas.csv")
    assert sorted(personas["condition"]) == ["N", "p001:conversational", "p001:explicit", "p002:conversational", "p002:explicit"]
    assert (personas["n_parsed"] == 3).all() and (personas["parse_rate"] == 1.0).all()
    assert personas.set_index("condition")["n_samples"].to_dict() == {"N": 30, **{c: 3 for c in personas["condition"] if c != "N"}}
    effects = pd.read_csv(tmp_path / "out" / "tables" / "profile_effects.csv")
    assert set(effects["attribute"]) == {"gender"} and (effects["estimate"].abs() < 1e-9).all()  # always B: no effect
    assert undescribed_tables(tmp_path / "out") == {}  # every table under a human title, each column explained


def test_an_eval_set_run_again_resends_nothing(tmp_path):
    items = str(write_atp(tmp_path / "atp.csv", n=2))
    calls: list = []
    model = conversation_model(lambda text: "B", calls)
    for _ in range(2):  # the second build draws new message ids: the version must not change
        # in a copy of the context: eval_set leaves its model active, which later tests would see
        success, _ = contextvars.copy_context().run(
            eval_set, profiles(items=items, **TASK_ARGS), model=model, log_dir=str(tmp_path / "logs"), display="none")
        assert success
    assert len(calls) == 2 * (10 + 2 * 2)
