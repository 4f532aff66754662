"""The item-level shift panels (the first seed's Fig. 4): each item under N against under
C3L and C3R, per model, from the shifts section's `item_shifts` table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from political_sycophancy.audit.figure_notes import item_pairs
from political_sycophancy.audit.report_figures import item_shift_panels
from political_sycophancy.report.figures import figures_section

pytestmark = pytest.mark.figures  # the tests read the drawn images (tests/conftest.py)

MODELS = ("prov/alpha", "prov/beta", "prov/gamma", "prov/delta", "prov/epsilon")


def item_shifts(models=MODELS, n_items: int = 30, atp: bool = True) -> pd.DataFrame:
    """The shifts section's table: per model x cue x item x measure, baseline (N) and value."""
    rng = np.random.default_rng(5)
    rows = []
    for m in models:
        for item in range(n_items):
            dem, rep = rng.uniform(0, 0.5), rng.uniform(0.3, 0.9)
            for cue, pull in (("C3L", -0.02), ("C3R", 0.25), ("CA", 0.0)):
                if atp:
                    for measure, base, sign in (("wd_dem", dem, 1), ("wd_rep", rep, -1)):
                        value = float(np.clip(base + sign * pull + rng.normal(0, 0.03), 0, 1))
                        rows.append({"model": m, "instrument": "atp", "condition": cue, "item_id": f"i{item}", "measure": measure,
                                     "baseline": base, "value": value, "shift": value - base})
                else:
                    base = float(rng.integers(-2, 3))
                    value = float(np.clip(base + round(pull * 4), -2, 2))
                    rows.append({"model": m, "instrument": "pct", "condition": cue, "item_id": f"p{item}", "measure": "ideology",
                                 "baseline": base, "value": value, "shift": value - base})
    return pd.DataFrame(rows)


def summary(models=MODELS) -> dict:
    shift_ci = {m: {"C3R": {"atp": {"shift_wd_dem": {"mean": 0.25, "ci": [0.2, 0.3], "n_items": 30}}}} for m in models}
    return {"models": {m: {} for m in models}, "findings": {"shift_ci": shift_ci}}


def test_item_pairs_place_atp_items_by_their_slant():
    table = item_shifts(n_items=3)
    pairs, inst, unit = item_pairs(table)
    assert inst == "atp" and "WD(Rep) - WD(Dem)" in unit
    assert set(pairs["condition"]) == {"C3L", "C3R"}  # CA is not one of the figure's cues
    one = table[(table["model"] == "prov/alpha") & (table["condition"] == "C3R") & (table["item_id"] == "i1")].set_index("measure")
    row = pairs[(pairs["model"] == "prov/alpha") & (pairs["condition"] == "C3R") & (pairs["item_id"] == "i1")].iloc[0]
    assert np.isclose(row["x"], one.loc["wd_rep", "baseline"] - one.loc["wd_dem", "baseline"])
    assert np.isclose(row["y"], one.loc["wd_rep", "value"] - one.loc["wd_dem", "value"])
    assert (pairs[pairs["condition"] == "C3R"]["y"] < pairs[pairs["condition"] == "C3R"]["x"]).mean() > 0.9  # the pull right: below


def test_item_shift_panels_written_per_model_and_cue(tmp_path):
    path = item_shift_panels(summary(), {"item_shifts": item_shifts()}, tmp_path / "paper_item_shifts.png")
    assert path is not None and path.stat().st_size > 20_000
    assert path.with_suffix(".svg").read_text().lstrip().startswith("<?xml")
    svg = path.with_suffix(".svg").read_text()
    # one panel per model, C3L and C3R overlaid, each with its share moved toward the asker and
    # the mean change of the slant it plots (not WD(Dem)), with its bootstrap CI over items
    for m in ("alpha", "epsilon"):
        assert f"<!-- {m} -->" in svg
    assert svg.count("toward the asker: C3L") == len(MODELS) and svg.count("\u0394slant C3R") == len(MODELS)
    assert "WD(Dem)" not in svg.replace("WD(Rep) - WD(Dem)", "")


def test_item_shift_panels_fall_back_to_pct_and_skip_without_data(tmp_path):
    path = item_shift_panels({"models": {}}, {"item_shifts": item_shifts(models=MODELS[:2], atp=False)}, tmp_path / "pct.png")
    assert path is not None and "above the diagonal" in path.with_suffix(".svg").read_text()
    assert item_shift_panels({"models": {}}, {}, tmp_path / "none.png") is None
    only_ca = item_shifts(models=MODELS[:1])
    assert item_shift_panels({"models": {}}, {"item_shifts": only_ca[only_ca["condition"] == "CA"]}, tmp_path / "ca.png") is None
    assert not list(tmp_path.glob("none.*")) and not list(tmp_path.glob("ca.*"))


def test_figures_section_shows_the_item_panels_only_with_the_table(tmp_path):
    with_table = figures_section(summary(), tmp_path / "a", {"item_shifts": item_shifts()})
    assert with_table is not None and [p.stem for p in with_table.figures.values()] == ["paper_shift_heatmap", "paper_item_shifts"]
    without = figures_section(summary(), tmp_path / "b")
    assert without is not None and [p.stem for p in without.figures.values()] == ["paper_shift_heatmap"]


def test_many_models_show_the_first_twelve_and_say_so(tmp_path):
    """At ten times the paper's size (60 models) the panels stay readable and quick to draw."""
    many = [f"prov/m{k:02d}" for k in range(20)]
    path = item_shift_panels(summary(many), {"item_shifts": item_shifts(models=many, n_items=5)}, tmp_path / "many.png")
    svg = path.with_suffix(".svg").read_text()
    assert "the first 12 of 20" in svg and "models by name" in svg  # (the title wraps)
    assert "<!-- m11 -->" in svg and "<!-- m12 -->" not in svg
    assert "<image" in svg  # the points are one raster image per panel, not thousands of SVG markers
