"""95% bootstrap CIs over items for the probe shares (expected-answer rates by condition, the
perception probe's rating and auditor-like share), in the tables, in summary.json and drawn
as error bars."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.container import ErrorbarContainer

from political_sycophancy.core.parsing import ANSWERED
from political_sycophancy.probes.asker_section import probes_section
from political_sycophancy.probes.expected_analysis import expected_answer_by_condition, expected_answer_table
from political_sycophancy.probes.perception_analysis import perception_table
from political_sycophancy.report import figures
from political_sycophancy.stats.options import AnalysisOptions
from political_sycophancy.stats.resample import cluster_mean_interval

OPTIONS = AnalysisOptions(bootstrap_draws=400, seed=11)


def probe_frame(n_items: int = 12, reps: int = 2) -> pd.DataFrame:
    """Expected-answer and perception calls of two models on `n_items` items under N, C3L, C3R."""
    rng = np.random.default_rng(3)
    rows = []
    wants = {"C3L": 0.9, "N": 0.75, "C3R": 0.2}
    for model in ("mock/a", "mock/b"):
        for cond, p in wants.items():
            for i in range(n_items):
                for epoch in range(1, reps + 1):
                    dem = float(rng.random() < p)
                    both = rng.random() > 0.05
                    rows.append({"kind": "expected_answer", "model": model, "condition": cond, "item_id": f"atp_{i:02d}", "epoch": epoch,
                                 "status": ANSWERED if both else "unparsed", "exclusion": None if both else "expected: no letter stated",
                                 "expected_dem": dem if both else np.nan, "expected_rep": (1 - dem) if both else np.nan,
                                 "own_dem": dem if both else np.nan, "own_rep": (1 - dem) if both else np.nan, "agree": 1.0 if both else np.nan})
                    rating = int(rng.integers(2, 6)) if cond != "C3R" else int(rng.integers(4, 8))
                    rows.append({"kind": "perception", "model": model, "condition": cond, "item_id": f"atp_{i:02d}", "epoch": epoch,
                                 "status": ANSWERED, "rating": float(rating), "rating_status": ANSWERED,
                                 "names_auditor": float(rng.random() < (0.9 if cond == "N" else 0.4)), "category": "researcher"})
    return pd.DataFrame(rows)


def test_cluster_mean_interval_resamples_whole_items():
    rng = np.random.default_rng(0)
    values = np.repeat([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0], 20)  # 10 items, every call on an item alike
    items = np.repeat(np.arange(10), 20)
    low, high = cluster_mean_interval(values, items, 2000, rng)
    assert low < values.mean() < high
    iid_low, iid_high = cluster_mean_interval(values, np.arange(len(values)), 2000, np.random.default_rng(0))
    assert (high - low) > 2 * (iid_high - iid_low)  # 200 calls on 10 items are not 200 independent draws
    assert cluster_mean_interval([1.0, 1.0, np.nan], ["a", "b", "c"], 100, rng) == (1.0, 1.0)
    assert all(math.isnan(v) for v in cluster_mean_interval([np.nan], ["a"], 100, rng))


def test_expected_answer_rates_carry_item_bootstrap_cis():
    frame = probe_frame()
    by_cond = expected_answer_by_condition(frame, expected_answer_table(frame), OPTIONS).set_index("condition")
    for rate in ("asker_wants_dem", "asker_wants_rep"):
        value, low, high = (by_cond[f"{rate} (pooled calls){s}"] for s in ("", " ci_low", " ci_high"))
        assert ((low <= value) & (value <= high) & (high > low)).all(), rate
    assert "own_answer_dem (pooled calls) ci_low" not in by_cond.columns  # only the drawn and quoted rates
    again = expected_answer_by_condition(frame, expected_answer_table(frame), OPTIONS)
    pd.testing.assert_frame_equal(again.set_index("condition"), by_cond)  # the run's seed: reproducible
    # the point estimates are what they were without the CIs
    both = frame[(frame["kind"] == "expected_answer") & (frame["status"] == ANSWERED)]
    assert by_cond.loc["N", "asker_wants_dem (pooled calls)"] == pytest.approx(both[both["condition"] == "N"]["expected_dem"].mean())


def test_perception_rating_and_auditor_share_carry_cis():
    table = perception_table(probe_frame(), OPTIONS)
    for key in ("mean_rating", "share_names_auditor"):
        assert ((table[f"{key}_ci_low"] <= table[key]) & (table[key] <= table[f"{key}_ci_high"])).all(), key
        assert (table[f"{key}_ci_high"] > table[f"{key}_ci_low"]).any()
    assert set(table["model"]) == {"mock/a", "mock/b", "all models"}


def test_section_summary_holds_the_cis_and_says_how(tmp_path):
    section = probes_section(probe_frame(), tmp_path, OPTIONS)
    n = section.summary["expected_answer"]["by_condition"]["N"]
    low, high = n["ci"]["asker_wants_dem (pooled calls)"]
    assert low < n["asker_wants_dem (pooled calls)"] < high
    assert not any(k.endswith(("ci_low", "ci_high")) for k in n)  # the CI is under `ci`, not flat
    auditor = section.summary["perception"]["mock/a"]["N"]
    assert auditor["ci"]["share_names_auditor"][0] <= auditor["share_names_auditor"] <= auditor["ci"]["share_names_auditor"][1]
    assert "95% percentile bootstrap CI over items" in section.text and "400 resamples, seed 11" in section.text


def _drawn(monkeypatch, draw, summary):
    """The figure `draw` builds, captured instead of written."""
    captured = []
    monkeypatch.setattr(figures, "_save", lambda fig, path: captured.append(fig) or path)
    assert draw(summary, figures.Path("unused.png")) is not None
    return captured[0]


def _bar_lengths(fig) -> list[float]:
    out = []
    for ax in fig.axes:
        for container in ax.containers:
            if isinstance(container, ErrorbarContainer):
                for lines in container.lines[2]:
                    out += [abs(seg[1][1] - seg[0][1]) for seg in lines.get_segments()]
    return out


def test_probe_figures_draw_the_cis_as_error_bars(tmp_path, monkeypatch):
    section = probes_section(probe_frame(), tmp_path, OPTIONS)
    summary = {"models": {}, **section.summary}
    shares = _bar_lengths(_drawn(monkeypatch, figures.expected_answer_shares, summary))
    ci = summary["expected_answer"]["by_condition"]["N"]["ci"]["asker_wants_dem (pooled calls)"]
    assert shares and max(shares) > 0 and any(math.isclose(b, ci[1] - ci[0]) for b in shares)
    perception = _bar_lengths(_drawn(monkeypatch, figures.perception_panels, summary))
    ci = summary["perception"]["mock/a"]["N"]["ci"]["share_names_auditor"]
    assert any(math.isclose(b, ci[1] - ci[0]) for b in perception)
