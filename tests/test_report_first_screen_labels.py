"""Issue 46 items 6 and 7: no raw identifier on the report's first screen. The Headline names
instruments by their labels (ATP, PCT), not their keys (atp, pct); each Headline and Findings
sentence links its table under the table's human title (the anchor kept); the scope line names
only what is short of a test (the models, the items, or both)."""

from __future__ import annotations

import html
import json
import re

import pytest
from report_support import mock_run

from political_sycophancy.audit import headline_scope
from political_sycophancy.core.report_parts import Finding

RAW_INSTRUMENT = re.compile(r"(?<![\w/.-])(atp|pct|typology)(?![\w/.-])")


@pytest.fixture(scope="module")
def one_model(tmp_path_factory):
    """One model, 24 ATP and 24 PCT items: short of a test only in its models."""
    out = mock_run(tmp_path_factory.mktemp("one_model"), models=("mock/solo",), atp_items=24, pct_items=24,
                   typology_items=0)
    return out, json.loads((out / "summary.json").read_text())


def _text(block: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", block))


def _first_screen(page: str) -> str:
    start = page.index("<h2 id='headline'>")
    end = page.find("<h2", page.index("<h2 id='findings'>") + 5)
    return page[start:end]


def test_the_headline_names_instruments_by_their_labels(one_model):
    out, summary = one_model
    sentences = summary["findings"]["headline_sentences"]
    assert sentences[0].startswith("Descriptive only: 1 model, items per instrument: ATP 24; PCT 24,")
    assert any("the share of ATP items closer to Democrats" in s for s in sentences)
    assert any(s.startswith("Baseline position under N, PCT (") for s in sentences)
    page = (out / "report.html").read_text()
    headline = page[page.index("<h2 id='headline'>"):page.index("<h2 id='findings'>")]
    links = re.findall(r"<a class='src'[^>]*>(.*?)</a>", headline)
    prose = _text(re.sub(r"<a class='src'.*?</a>", "", headline))
    assert not RAW_INSTRUMENT.findall(prose), RAW_INSTRUMENT.findall(prose)
    assert links


def test_the_scope_line_names_only_what_is_short(one_model):
    _, summary = one_model
    first = summary["findings"]["headline_sentences"][0]
    assert "fewer than the 2 models this report asks of a test" in first and "20 items" not in first
    many = {"findings": {"headline": {"scope": {"n_models": 3, "n_items": {"pct": 12}, "min_models": 2,
                                                "min_items": 20, "descriptive": True, "thin": ["pct"]}}}}
    [line] = headline_scope.scope_sentences(many)
    assert "items per instrument: PCT 12, fewer than the 20 items per instrument this report asks of a test" in line.plain()
    assert "2 models" not in line.plain()
    both = {"findings": {"headline": {"scope": {"n_models": 1, "n_items": {"pct": 12}, "min_models": 2,
                                                "min_items": 20, "descriptive": True, "thin": ["pct"]}}}}
    [line] = headline_scope.scope_sentences(both)
    assert "fewer than the 2 models and 20 items per instrument this report asks of a test" in line.plain()
    thin = {"findings": {"headline": {"scope": {"n_models": 3, "n_items": {"pct": 12, "atp": 40}, "min_models": 2,
                                                "min_items": 20, "descriptive": False, "thin": ["pct"]}}}}
    [line] = headline_scope.scope_sentences(thin)
    assert "descriptive only on PCT (fewer than 20 items)" in line.plain()


def test_each_source_link_shows_the_tables_title_and_keeps_its_anchor(one_model):
    out, _ = one_model
    page = (out / "report.html").read_text()
    links = re.findall(r"<a class='src' href='#([^']+)'>&rarr;&nbsp;([^<]*)</a>", _first_screen(page))
    assert len(links) >= 5
    for anchor, label in links:
        assert not re.fullmatch(r"[a-z0-9_]+", html.unescape(label)), (anchor, label)  # a title, not an id
        assert f"id='{anchor}'" in page, anchor  # the anchor lands on the table's heading
    titles = dict(links)
    assert titles["table-condition_summary"] == "Results by model, instrument and asker condition"
    md = (out / "report.md").read_text()
    first = md[:md.index("\n## ", md.index("## Findings"))]
    assert "(#condition_summary)" in first and "[Results by model, instrument and asker condition]" in first
    assert not re.search(r"\(\[[a-z0-9_]+\]\(#", first), re.findall(r"\(\[[a-z0-9_]+\]\(#[^)]*\)", first)


def test_a_finding_without_a_title_shows_its_id():
    f = Finding("headline", ["x"], "conditions", "condition_summary")
    assert f.markdown().endswith("([condition_summary](#condition_summary))")
    assert f.markdown({"condition_summary": "Results"}).endswith("([Results](#condition_summary))")
    assert "href='#table-condition_summary'>&rarr;&nbsp;Results</a>" in f.html({"condition_summary": "Results"})
