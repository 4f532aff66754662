"""`plan` prices a profile design before it runs (issue 24): calls = items x (N + personas x
modes), input tokens from the very prompts the task would send, USD from the user's prices;
and its manipulation check (issue 44): (N + personas x modes) x the check's two epochs."""

from __future__ import annotations

from political_sycophancy.cli import main
from political_sycophancy.profiles.check import profile_check
from political_sycophancy.profiles.task import profiles


def prompt_chars(task) -> int:
    return sum(len(s.input) if isinstance(s.input, str) else sum(len(m.text) + 1 for m in s.input) - 1 for s in task.dataset)


def test_plan_prices_a_profile_design(tmp_path, capsys):
    args = ["plan", "--design", "profiles", "--items", str(tmp_path), "--log-dir", str(tmp_path / "logs"), "--model", "openai/gpt-4o",
            "--model", "anthropic/claude-sonnet-4-5", "--profile", "design=fractional", "--profile", "n=8", "--profile", "attributes=partisanship,age",
            "--profile", "modes=explicit,conversational", "--profile-epochs", "2", "--price-in", "2", "--price-out", "10"]
    assert main(args) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("phase ") and "calls/model" in line)
    row = dict(zip(["phase", "tasks", "cells/model", "calls/model", "calls", "input", "output"], lines[start + 1].split(), strict=True))
    task = profiles(design="fractional", n=8, attributes="partisanship,age", modes="explicit,conversational")
    calls = 62 * (1 + 8 * 2) * 2  # items x (N + personas x modes) x epochs
    assert len(task.dataset) * 2 == calls and row["calls/model"] == str(calls) and row["calls"] == str(2 * calls)
    tokens_in = round(2 * 2 * (prompt_chars(task) / 4 + 8 * len(task.dataset)))  # two models, two epochs
    assert abs(int(row["input"]) - tokens_in) <= 2, (row, tokens_in)
    check = dict(zip(["phase", "tasks", "cells/model", "calls/model", "calls", "input", "output"], lines[start + 2].split(), strict=True))
    checked = profile_check(design="fractional", n=8, attributes="partisanship,age", modes="explicit,conversational")
    check_calls = (1 + 8 * 2) * 2  # (N + personas x modes) x the check's own two epochs, whatever --profile-epochs says
    assert check["phase"] == "profile_check" and check["calls/model"] == str(check_calls) == str(len(checked.dataset) * 2)
    check_in = round(2 * 2 * (prompt_chars(checked) / 4 + 8 * len(checked.dataset)))
    assert abs(int(check["input"]) - check_in) <= 2 and check["output"] == str(2 * check_calls * 80)
    usd = (tokens_in * 2 + 2 * calls * 3 * 10 + check_in * 2 + 2 * check_calls * 80 * 10) / 1e6
    assert f"estimated cost: {usd:,.2f} USD for {2 * (calls + check_calls):,} calls" in out
    assert "nothing was run" in out


def test_profile_arguments_without_the_profiles_design_are_refused(tmp_path, capsys):
    assert main(["plan", "--items", str(tmp_path), "--log-dir", str(tmp_path / "logs"), "--model", "m", "--profile", "n=6"]) == 2
    assert "--profile sets the profiles task: use it with --design profiles" in capsys.readouterr().err
