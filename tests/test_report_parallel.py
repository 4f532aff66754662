"""The report's sections computed by forked processes (`write_report(jobs=...)`): the same
outputs as one process computes, and a failing section or figure reported whichever
process computed it."""

from __future__ import annotations

import json
import os
import re
import time

import pytest
from matplotlib.figure import Figure
from support.stores import synthetic_logs

from political_sycophancy.cli import main
from political_sycophancy.core import plotting
from political_sycophancy.core.section import Section
from political_sycophancy.logs.frame import load_frame
from political_sycophancy.report.render import figure_worker, write_report
from political_sycophancy.report.sections import section_builders
from political_sycophancy.stats.options import AnalysisOptions

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forks processes")

FAST = AnalysisOptions(bootstrap_draws=200, sign_flip_draws=500)
# the section the Figures section's baseline figure needs, alone (a quicker report)
CONDITIONS = [b for b in section_builders() if b[1] == "conditions"]


@pytest.fixture(scope="module")
def frame(tmp_path_factory):
    """Two models' imported PCT logs under N, C3L and C3R, read as `analyze` reads them."""
    return load_frame(synthetic_logs(tmp_path_factory.mktemp("parallel")))


def outputs(out):
    """Every table's bytes, the summary but its time stamp, report.md but its time stamp,
    and the figure files' names."""
    summary = json.loads((out / "summary.json").read_text())
    summary.pop("generated")
    report = [line for line in (out / "report.md").read_text().splitlines() if not line.startswith("- generated ")]
    tables = {p.name: p.read_bytes() for p in sorted((out / "tables").iterdir())}
    return tables, summary, report, sorted(p.name for p in (out / "figures").iterdir())


def test_two_processes_and_a_figure_worker_give_what_one_process_gives(tmp_path, frame):
    one = write_report(frame, tmp_path / "one", source="memory", options=FAST, jobs=1)
    two = write_report(frame, tmp_path / "two", source="memory", options=FAST, jobs=2, figure_process=figure_worker())
    assert [name for name, _ in one.sections] == [name for name, _ in two.sections]
    assert not one.failed and not two.failed
    assert outputs(tmp_path / "one") == outputs(tmp_path / "two")
    pngs = sorted((tmp_path / "one" / "figures").glob("*.png"))
    assert any(p.name.startswith("paper_") for p in pngs)  # the Figures section's, drawn by the worker
    assert all(p.read_bytes() == (tmp_path / "two" / "figures" / p.name).read_bytes() for p in pngs)


@pytest.mark.figures  # what saving in the background may raise (tests/conftest.py)
def test_failing_sections_and_figures_are_reported_whichever_process_computed_them(tmp_path, frame, monkeypatch):
    real = plotting._save_now

    def refuses(fig, path, svg, tight, split=False):
        if path.name.startswith("planted"):
            raise RuntimeError("planted figure failure")
        return real(fig, path, svg, tight, split)

    monkeypatch.setattr(plotting, "_save_now", refuses)

    def draws(name):
        def build(frame, figure_dir, options):
            time.sleep(0.3)  # long enough that both processes take some of them
            fig = Figure()
            fig.add_subplot().plot([0, 1], [0, 1])
            return Section(name, text=f"computed by process {os.getpid()}",
                           figures={"f": plotting.save_figure(fig, figure_dir / f"planted_{name}.png")})
        return build

    def boom(frame, figure_dir, options):
        raise RuntimeError("planted section failure")

    planted = [(0, f"draws_{k}", draws(f"draws_{k}")) for k in range(4)] + [(0, "boom", boom)]
    result = write_report(frame, tmp_path / "out", options=FAST, sections=[*planted, *CONDITIONS], jobs=2)
    assert sorted(result.failed) == sorted(["boom", *[f"draws_{k}" for k in range(4)]])
    report = (tmp_path / "out" / "report.md").read_text()
    assert "planted section failure" in report
    for k in range(4):
        assert f"The figure `planted_draws_{k}.png` failed with `RuntimeError: planted figure failure`" in report
    assert not list((tmp_path / "out" / "figures").glob("planted*"))
    makers = set(re.findall(r"computed by process (\d+)", report))
    assert str(os.getpid()) in makers and len(makers) == 2
    assert "conditions" in json.loads((tmp_path / "out" / "summary.json").read_text())["sections"]


def test_jobs_is_not_part_of_the_stored_analysis_and_is_checked(tmp_path, monkeypatch, capsys):
    """A user who analyses again with another --jobs gets the stored analysis (the outputs
    do not depend on it); --jobs 0 is one line naming the option."""
    monkeypatch.setenv("POLITICAL_SYCOPHANCY_CACHE", str(tmp_path / "store"))
    (tmp_path / "made").mkdir()
    logs = synthetic_logs(tmp_path / "made")
    fast = ["--bootstrap", "40", "--sign-flip-draws", "40"]
    assert main(["analyze", str(logs), "--out", str(tmp_path / "out"), *fast]) == 0
    capsys.readouterr()
    assert main(["analyze", str(logs), "--out", str(tmp_path / "out"), *fast, "--jobs", "1"]) == 0
    assert "reused the analysis computed" in capsys.readouterr().out
    assert main(["analyze", str(logs), "--out", str(tmp_path / "out"), "--jobs", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--jobs" in err[0] and "Traceback" not in err[0]


@pytest.mark.figures  # what saving in the background may raise (tests/conftest.py)
def test_a_figure_failing_in_the_figure_worker_is_reported(tmp_path, frame, monkeypatch):
    real = plotting._save_now

    def refuses(fig, path, svg, tight, split=False):
        if path.name == "paper_baseline_positions.png":
            raise RuntimeError("planted figure failure")
        return real(fig, path, svg, tight, split)

    monkeypatch.setattr(plotting, "_save_now", refuses)
    result = write_report(frame, tmp_path / "out", options=FAST, sections=CONDITIONS, figure_process=figure_worker())  # forked after the patch
    report = (tmp_path / "out" / "report.md").read_text()
    assert "The figure `paper_baseline_positions.png` failed with `RuntimeError: planted figure failure`" in report
    assert "figures" not in result.failed  # (the Figures never cost the report)
