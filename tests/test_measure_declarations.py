"""Two measures cannot claim the same thing (issue 43): a section name, a summary.json node
(top level, under each model, among the tests, derived for the Findings or the Headline), a
figure file, or a value another measure's section already wrote. Each is an error naming
both measures; before, the report kept one section and the later value, silently."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from political_sycophancy import catalog
from political_sycophancy.core.declare import DeclarationError, Measure, SummaryNodes, distinct
from political_sycophancy.report.render import write_report
from political_sycophancy.report.sections import contributions, section_builders
from political_sycophancy.shared.summary_nodes import contract_of
from political_sycophancy.stats.options import AnalysisOptions

INIT = '''
from typing import TypedDict
from political_sycophancy.core.declare import Measure, SummaryNodes

class Node(TypedDict, total=False):
    v: int

MEASURE = Measure(name="{name}", kinds=("{name}",), registers=(), sections=("{package}.analysis",),
                  report=({report}), summary=SummaryNodes({nodes}))
'''
ANALYSIS = '''
from political_sycophancy.core.section import Section, section

@section(900, "{section}")
def build(frame, figure_dir, options=None):
    return Section("{name}", summary={summary})
'''
REPORT = '''
from political_sycophancy.core.report_parts import FigureSpec, ReportContribution

REPORT = ReportContribution(figures=(FigureSpec("{stem}", "a figure", lambda s, t, p: None, lambda s, t: None),))
'''


@pytest.fixture(autouse=True)
def _fresh_plants():
    """Each test plants its own `plants` package: none of another test's stays imported."""
    yield
    for name in [m for m in sys.modules if m == "plants" or m.startswith("plants.")]:
        del sys.modules[name]


def plant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, *, section: str, nodes: str = "",
          summary: str = "{}", stem: str = "") -> str:
    """A measure package `plants.<name>` in `tmp_path`, added to the catalog: one section
    writing `summary`, the nodes `nodes` (SummaryNodes arguments), a figure `stem`."""
    package = f"plants.{name}"
    folder = tmp_path / "plants" / name
    folder.mkdir(parents=True)
    (tmp_path / "plants" / "__init__.py").touch()
    report = f'"{package}.report",' if stem else ""
    (folder / "__init__.py").write_text(textwrap.dedent(INIT.format(name=name, package=package, report=report, nodes=nodes)))
    (folder / "analysis.py").write_text(textwrap.dedent(ANALYSIS.format(name=name, section=section, summary=summary)))
    if stem:
        (folder / "report.py").write_text(textwrap.dedent(REPORT.format(stem=stem)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(catalog, "MEASURES", (*catalog.MEASURES, package))
    return package


def test_two_measures_with_one_section_name_are_an_error_naming_both(tmp_path, monkeypatch):
    plant(tmp_path, monkeypatch, "first", section="shared_name")
    plant(tmp_path, monkeypatch, "second", section="shared_name")
    with pytest.raises(DeclarationError, match="'shared_name' is declared by both 'first' and 'second'"):
        section_builders()


def test_a_measure_taking_another_measures_section_name_is_named_with_it(tmp_path, monkeypatch):
    plant(tmp_path, monkeypatch, "late", section="sway")
    with pytest.raises(DeclarationError, match="'sway' is declared by both 'sway' and 'late'"):
        section_builders()


@pytest.mark.parametrize(("nodes", "where"), [
    ("top=(('node', Node),)", "top level"),
    ("model=(('node', Node),)", "models.<model>"),
    ("tests=(('node', Node),)", "tests"),
    ("findings=(('node', Node),)", "findings"),
    ("headline=(('node', Node),)", "findings.headline"),
])
def test_two_measures_with_one_summary_node_are_an_error_naming_both(tmp_path, monkeypatch, nodes, where):
    plant(tmp_path, monkeypatch, "first", section="first", nodes=nodes)
    plant(tmp_path, monkeypatch, "second", section="second", nodes=nodes)
    with pytest.raises(DeclarationError, match=rf"measures 'first' and 'second' both declare the summary.json node 'node' \({where}\)"):
        catalog.declared()


def test_a_measure_declaring_another_measures_node_or_a_shared_one_is_named_with_it(tmp_path, monkeypatch):
    plant(tmp_path, monkeypatch, "late", section="late", nodes="model=(('sycophancy_left', Node),)")
    with pytest.raises(DeclarationError, match="'audit' and 'late' both declare the summary.json node 'sycophancy_left'"):
        catalog.declared()
    report_node = Measure(name="x", kinds=(), registers=(), sections=(), summary=SummaryNodes(top=(("findings", dict),)))
    distinct([report_node])  # no other measure declares it...
    with pytest.raises(DeclarationError, match="the report and measure 'x' both declare the summary.json node 'findings'"):
        contract_of([report_node])  # ...but the report writes it


def test_two_measures_drawing_one_figure_file_are_an_error_naming_both(tmp_path, monkeypatch):
    plant(tmp_path, monkeypatch, "first", section="first", stem="same_figure")
    plant(tmp_path, monkeypatch, "second", section="second", stem="same_figure")
    with pytest.raises(DeclarationError, match="measures 'first' and 'second' both draw the figure 'same_figure'"):
        contributions()


def test_a_summary_value_another_measures_section_wrote_is_an_error_naming_both(tmp_path, monkeypatch):
    """The later section would have replaced the earlier one's value (report/render.py's
    merge kept the later scalar): the report stops, naming both sections and measures."""
    plant(tmp_path, monkeypatch, "first", section="first_section", nodes="top=(('node', Node),)", summary="{'node': {'v': 1}}")
    plant(tmp_path, monkeypatch, "second", section="second_section", summary="{'node': {'v': 2}}")
    sections = [b for b in section_builders() if b[1] in ("first_section", "second_section")]
    frame = pd.DataFrame({"model": ["m"], "kind": ["first"]})
    with pytest.raises(DeclarationError, match="'node.v' is written by section 'first_section' of measure 'first' and by "
                                               "section 'second_section' of measure 'second'"):
        write_report(frame, tmp_path / "out", options=AnalysisOptions(bootstrap_draws=10), sections=sections, jobs=1, figure_jobs=0)
