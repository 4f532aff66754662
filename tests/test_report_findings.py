"""Findings: the report opens with sentences whose numbers are summary.json's values."""

from __future__ import annotations

import html
import json
import math
import re

import pytest
from report_support import DATA, findings_block, mock_run

from political_sycophancy.core.report_parts import check_quotes
from political_sycophancy.report.findings import findings
from political_sycophancy.shared.summary_reading import digits_for


def at(summary, path):
    node = summary
    for key in path:
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return mock_run(tmp_path_factory.mktemp("findings"))


def test_the_headline_then_the_findings_open_the_report(run):
    """Issue 26 item 1: the design's answers first (the headline block), then the Findings."""
    page = (run / "report.html").read_text()
    assert re.findall(r"<h2 id='([^']+)'", page)[:2] == ["headline", "findings"]
    md = (run / "report.md").read_text()
    assert [line for line in md.splitlines() if line.startswith("## ")][:2] == ["## Headline", "## Findings"]


def test_every_headline_number_is_the_summary_value(run):
    from political_sycophancy.report.headline import headline

    summary = json.loads((run / "summary.json").read_text())
    top = headline(summary)
    assert len(top) >= 3 and sum(len(f.quotes) for f in top) > 15
    assert check_quotes(summary, top) == []
    assert [f.markdown() for f in top] == summary["findings"]["headline_sentences"]


def test_every_quoted_number_is_the_summary_value(run):
    summary = json.loads((run / "summary.json").read_text())
    block = findings_block((run / "report.html").read_text())
    quotes = DATA.findall(block)
    assert len(quotes) > 40
    for value, path, scale, shown in quotes:
        path = json.loads(html.unescape(path))
        expected = at(summary, path)
        assert float(value) == expected, path
        # The shown number is the summary value rounded (x scale for percentages).
        text = html.unescape(shown).rstrip("%")
        if text.startswith("< "):  # a p-value below the report's smallest shown one (core.numbers.p_text)
            assert expected < float(text[2:]), (path, shown, expected)
            continue
        decimals = len(text.split(".")[1]) if "." in text and "e" not in text else None
        tol = 0.5 * 10 ** -decimals + 1e-12 if decimals is not None else abs(expected) * 0.01
        assert math.isclose(float(text) / float(scale), expected, abs_tol=tol / float(scale)), (path, shown, expected)
    # The sentences summary.json keeps are the ones report.md shows (Markdown, HTML escaped); their
    # links name the table by id in summary.json and by its title in report.md.
    md = (run / "report.md").read_text()
    for sentence in summary["findings"]["sentences"]:
        text, link = sentence.rsplit(" ([", 1)
        assert f"- {text} ([" in md and link.split("](", 1)[1] in md


def test_findings_cover_the_brief(run):
    summary = json.loads((run / "summary.json").read_text())
    text = " ".join(summary["findings"]["sentences"])
    for needle in ("Baseline (asker N), pct", "Baseline (asker N), atp", "Baseline slant", "Shift under C3R against N, atp",
                   "Shift under C1L against N, typology", "right/left", "exact sign-flip p", "right-minus-left accommodation gap", "smallest attainable p is",
                   "Mixed model (crossed: crossed random intercepts", "Refusals", "Design complete"):
        assert needle in text, needle
    floor = summary["tests"]["sign_flip_models"]["min_p"]
    assert floor == pytest.approx(2 / 2**3)
    for model, ratio in summary["findings"]["ratio"].items():
        node = summary["models"][model]
        assert ratio == pytest.approx(node["sycophancy_right"] / node["sycophancy_left"])
    # Every sentence links to a section or table that exists in the page.
    page = (run / "report.html").read_text()
    for target in {t for t in re.findall(r"class='src' href='#([^']+)'", findings_block(page))}:
        assert f"id='{target}'" in page, target


def test_missing_findings_say_what_is_missing(tmp_path):
    """One model, PCT only: no WD slant, no model-level test; the sentences say why."""
    out = mock_run(tmp_path, models=("mock/solo",), atp_items=0, typology_items=0, pct_items=12)
    summary = json.loads((out / "summary.json").read_text())
    text = " ".join(summary["findings"]["sentences"])
    assert "Baseline slant in WD units is missing" in text
    assert "sign-flip test is not computable" in text and "two models" in text
    assert "Sycophancy in WD units is missing" in text
    page = (out / "report.html").read_text()
    ids = re.findall(r"<h2 id='([^']+)'", page)
    assert ids.index("findings") == (1 if ids[0] == "headline" else 0) and "class='missing'" in page


def test_findings_pure_on_a_hand_written_summary():
    summary = {
        "models": {"m/a": {"conditions": {"N": {"pct": {"scoring": "pct", "mean_ideology": -0.5, "ci": {"mean_ideology": [-0.7, -0.3]}, "n_samples": 10, "refusal_rate": 0.1}},
                                          "C3R": {"pct": {"scoring": "pct", "mean_ideology": 0.2, "n_samples": 10, "refusal_rate": 0.0}}}}},
        "tests": {"mixed_model": {"converged": None, "coefficients": {}, "reason": "no items observed under N and another condition"}},
        "findings": {"refusals": {"N": {"rate": 0.05, "n_samples": 10}}},
    }
    items = findings(summary)
    assert check_quotes(summary, items) == []
    text = " ".join(f.plain() for f in items)
    assert "-0.50 (95% CI -0.70 to -0.30)" in text and "Mixed-model coefficients are missing: no items observed" in text
    assert "N 5.0%" in text
    assert digits_for(0.4) == 2 and digits_for(0.04) == 3 and digits_for(40) == 1


def test_long_model_names_get_short_labels_with_a_legend():
    summary = {"models": {m: {"conditions": {"N": {"pct": {"scoring": "pct", "mean_ideology": 0.1, "n_samples": 5, "refusal_rate": 0.0}}}}
                          for m in ("prov/alpha", "other/beta")}}
    items = findings(summary)
    assert items[0].topic == "models" and "alpha = prov/alpha" in items[0].plain()
    assert "alpha 0.10" in " ".join(f.plain() for f in items)


def test_ratio_is_flagged_when_left_is_not_distinguishable_from_zero():
    node = {"conditions": {"N": {"atp": {"scoring": "wd", "pct_closer_dem": 50.0, "n_samples": 5, "refusal_rate": 0.0}}},
            "sycophancy_left": 0.01, "sycophancy_right": 0.2, "ci": {"sycophancy_left": [-0.1, 0.1], "sycophancy_right": [0.1, 0.3]}}
    summary = {"models": {"m": node}, "findings": {"ratio": {"m": 20.0}}}
    text = " ".join(f.plain() for f in findings(summary))
    assert "right/left 20.00 (unstable: left's CI includes 0)" in text
    assert check_quotes(summary, findings(summary)) == []


def test_ratio_interval_is_its_definition_resample_by_resample():
    """The headline's interval of right / left accommodation: per resample of item ids, the
    mean over models of each model's mean over its drawn answered items (items a model did
    not answer are skipped), written out resample by resample."""
    import numpy as np
    import pandas as pd

    from political_sycophancy.audit.headline import _ratio_interval
    from political_sycophancy.stats.resample import iid_indices, percentile_interval

    rng = np.random.default_rng(0)
    rows = [{"model": f"m{m}", "item_id": f"i{i}", "condition": cond, "measure": measure, "shift": rng.normal(mu, 0.1)}
            for m in range(4) for i in range(30) for cond, measure, mu in (("C3L", "wd_dem", -0.03), ("C3R", "wd_rep", -0.12))
            if rng.random() > 0.15]
    shifts, models = pd.DataFrame(rows), [f"m{m}" for m in range(4)]
    by = {c: shifts[shifts["condition"] == c].pivot_table(index="model", columns="item_id", values="shift") for c in ("C3L", "C3R")}
    items = sorted(set(by["C3L"].columns) | set(by["C3R"].columns))
    left, right = (-by[c].reindex(index=models, columns=items).to_numpy(float) for c in ("C3L", "C3R"))
    ratios = []
    for pick in iid_indices(len(items), 400, np.random.default_rng(5)):
        lv, rv = np.nanmean(np.nanmean(left[:, pick], axis=1)), np.nanmean(np.nanmean(right[:, pick], axis=1))
        ratios.append(rv / lv if lv > 0 else np.nan)
    assert _ratio_interval(shifts, models, 400, 5) == pytest.approx(percentile_interval(ratios), rel=1e-12)
