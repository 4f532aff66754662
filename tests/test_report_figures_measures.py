"""The SWAY and open-ended headline figures in the Figures section: drawn from the summary
the measures' sections write, with their CIs, in the models' colours; absent without logs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.container import ErrorbarContainer
from support.open_ended import rows as open_rows

from political_sycophancy.core.plotting import model_styles
from political_sycophancy.open_ended.analysis import open_ended_section
from political_sycophancy.open_ended.report import open_ended_headline
from political_sycophancy.report import figures
from political_sycophancy.report.render import deep_merge
from political_sycophancy.shared import figure_parts
from political_sycophancy.stats.options import AnalysisOptions
from political_sycophancy.sway.analysis import sway_section
from political_sycophancy.sway.report import sway_headline

pytestmark = pytest.mark.figures  # the tests read the drawn images (tests/conftest.py)

OPTIONS = AnalysisOptions(bootstrap_draws=200, seed=4)
MODELS = ("prov/one", "prov/two")


def sway_frame(seed: int = 2) -> pd.DataFrame:
    """Two models, two mitigations: the + side answers + with p, the - side with 1 - p."""
    rng = np.random.default_rng(seed)
    out = []
    for model, follow in zip(MODELS, (0.8, 0.6), strict=True):
        for mitigation, p in (("none", follow), ("instruction", 0.55)):
            for i in range(20):
                for commitment in ("low", "high"):
                    for polarity, q in (("+", p), ("-", 1 - p)):
                        out.append({"model": model, "kind": "sway", "task": f"sway_pct_{mitigation}", "instrument": "pct", "dataset": "pct",
                                    "condition": mitigation, "mitigation": mitigation, "item_id": f"b{i}",
                                    "sample_id": f"b{i}:imperative:{commitment}:{polarity}", "epoch": 1, "status": "answered", "letter": None,
                                    "answer_mode": "letter", "temperature": 0.0, "probs": None, "base_id": f"b{i}", "construction": "imperative",
                                    "commitment": commitment, "polarity": polarity, "p_plus": float(rng.random() < q), "stance": None})
    return pd.DataFrame(out)


def open_frame() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    data = []
    for model, lean in zip(MODELS, (0.8, 0.5), strict=True):
        for i in range(16):
            side = "left" if i % 2 == 0 else "right"
            p = lean if side == "left" else 1 - lean
            labels = ["agree" if rng.random() < p else "disagree" for _ in range(3)]
            data += open_rows(model, f"s{i}", "economic" if i < 8 else "social", side, "original", labels)
    return pd.DataFrame(data)


def summary(tmp_path) -> dict:
    out: dict = {"models": {m: {} for m in (*MODELS, "prov/audited-only")}}
    for section in (sway_section(sway_frame(), tmp_path, OPTIONS), open_ended_section(open_frame(), tmp_path, OPTIONS)):
        assert section is not None
        deep_merge(out, section.summary)
    return out


def _captured(monkeypatch, draw, s):
    got = []
    monkeypatch.setattr(figure_parts, "save", lambda fig, path: got.append(fig) or path)
    assert draw(s, {}, Path("unused.png")) is not None
    return got[0]


def _errorbars(fig) -> list[tuple[str, float]]:
    """(colour, widest bar) of every error-bar series."""
    out = []
    for ax in fig.axes:
        for c in ax.containers:
            if isinstance(c, ErrorbarContainer):
                widths = [abs(seg[1][0] - seg[0][0]) for lines in c.lines[2] for seg in lines.get_segments()]
                out.append((c.lines[0].get_color(), max(widths)))
    return out


def test_sway_and_open_ended_figures_have_cis_in_the_model_colours(tmp_path, monkeypatch):
    s = summary(tmp_path)
    styles = model_styles(s["models"])
    sway = _errorbars(_captured(monkeypatch, sway_headline, s))
    assert {c for c, _ in sway} == {styles[m][0] for m in MODELS} and all(w > 0 for _, w in sway)
    fig = _captured(monkeypatch, open_ended_headline, s)
    assert [ax.get_title() for ax in fig.axes] == ["economic dimension", "social dimension"]
    opened = _errorbars(fig)
    assert {c for c, _ in opened} == {styles[m][0] for m in MODELS} and all(w > 0 for _, w in opened)


def test_figures_section_adds_them_only_when_those_logs_exist(tmp_path):
    s = summary(tmp_path)
    section = figures.figures_section(s, tmp_path / "figs")
    assert section is not None and [p.stem for p in section.figures.values()] == ["paper_sway", "paper_open_ended"]
    for path in section.figures.values():
        assert path.stat().st_size > 10_000 and path.with_suffix(".svg").exists()
    assert figures.figures_section({"models": {m: {} for m in MODELS}}, tmp_path / "none") is None
    assert sway_headline({"models": {}}, {}, tmp_path / "x.png") is None
    assert open_ended_headline({"open_ended": {"total": {}}}, {}, tmp_path / "y.png") is None
