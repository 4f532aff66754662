"""A measure is one folder and one list entry (issues 23, 43): the toy measure in
`tests/support/toy_measure/` runs through `inspect eval` and is reported by `analyze` with its
own section, a Headline line, a Findings sentence and a numbered figure, with nothing in the
package naming it or reading its tables and summary nodes but the list of measures, which
the test extends as its one entry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

from political_sycophancy import catalog
from political_sycophancy.cli import main

SUPPORT = Path(__file__).parent / "support"
FOOTPRINT = SUPPORT.parents[1] / "scripts" / "measure_footprint.py"


def test_a_toy_measure_is_its_folder_and_one_list_entry(tmp_path, monkeypatch, capsys):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SUPPORT.parent), os.environ.get("PYTHONPATH", "")]), "HF_HUB_OFFLINE": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "inspect_ai._cli.main", "eval", "support/toy_measure/task.py", "--model", "faulty/mockllm/model",
         "-M", "mock_answer=A", "--log-dir", str(tmp_path / "logs"), "--display", "none"],
        capture_output=True, text=True, env=env, timeout=300, cwd=SUPPORT.parent,
    )
    assert run.returncode == 0 and list((tmp_path / "logs").glob("*.eval")), run.stdout[-2000:] + run.stderr[-2000:]
    monkeypatch.syspath_prepend(str(SUPPORT.parent))
    monkeypatch.setattr(catalog, "MEASURES", (*catalog.MEASURES, "support.toy_measure"))  # the one list entry
    assert main(["analyze", str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--no-reuse", "--bootstrap", "20", "--sign-flip-draws", "20"]) == 0
    table = pd.read_csv(tmp_path / "out" / "tables" / "toy_first_option.csv")
    assert table.to_dict("records") == [{"model": "faulty/mockllm/model", "samples": 4, "answered": 4, "first_share": 1.0}]
    report = (tmp_path / "out" / "report.md").read_text()
    page = (tmp_path / "out" / "report.html").read_text()
    assert "First-option share (toy measure)" in report
    # its Headline line, Findings sentence and numbered figure, from its folder alone
    headline = report[report.index("## Headline"):report.index("## Findings")]
    assert "Toy measure: the first option is picked in 1.00 to 1.00 of answered items over 1 model(s)." in headline
    found = report[report.index("## Findings"):report.index("## Figures")]
    assert "Toy measure, first-option share per model: faulty/mockllm/model 1.00." in found
    figures = report[report.index("## Figures"):]
    assert "Figure 1. First-option share per model (toy measure). The first option is picked in at most 100% of answered items." in figures
    assert (tmp_path / "out" / "figures" / "toy_first_share.png").is_file()
    for text in ("Toy measure: the first option is picked in", "Toy measure, first-option share per model:",
                 "Figure 1. First-option share per model (toy measure)."):
        assert text in page
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["findings"]["headline"]["toy_first"] == {"low": 1.0, "high": 1.0, "n_models": 1}
    # its own command, which the CLI takes from the declaration
    capsys.readouterr()
    assert main(["toy-share", str(tmp_path / "logs")]) == 0
    assert capsys.readouterr().out == "faulty/mockllm/model: 1.00 of 4 answers pick the first option\n"
    # its public scorer is offered at the package's top level, as the declaration says
    import political_sycophancy

    assert "first_option_score" in political_sycophancy.__all__
    try:
        assert political_sycophancy.first_option_score.__module__ == "support.toy_measure.task"
    finally:
        vars(political_sycophancy).pop("first_option_score", None)  # the lazy import's cache
    # nothing in the package names the toy or reads its tables and nodes: its folder and the list entry were all it took
    run = subprocess.run([sys.executable, str(FOOTPRINT), "--strict", "--extra", "support.toy_measure"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode == 0 and _counts(run.stdout)["toy_measure"] == ("0", "0"), run.stdout + run.stderr


def test_no_file_outside_a_measure_names_it_but_the_designs():
    """`scripts/measure_footprint.py --strict`: 0 files per measure outside its folder and the
    list (the report, the CLI, the logs and other measures reach it through its declaration);
    only the whole designs above the measures name those they combine."""
    run = subprocess.run([sys.executable, str(FOOTPRINT), "--strict"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert _counts(run.stdout) == {name.rsplit(".", 1)[1]: ("0", "0") for name in catalog.MEASURES}


def _counts(out: str) -> dict[str, tuple[str, str]]:
    """measure -> (files outside its folder naming it, its names read by report/ and cli/)."""
    return {line.split()[0]: tuple(line.split()[1:3]) for line in out.splitlines()[1:] if line.strip() and not line.startswith(" ")}
