"""Survey weights of the profile measure (issue 44): a weight column of zeros is refused for
what it is, an unbounded weight (1e308) is refused at the draw, weights from a log are used
relative to the largest (no overflow) and a persona whose logged weight is not a positive
finite number is left out and counted."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.profiles import write_sav

from political_sycophancy.core.errors import InputError
from political_sycophancy.profiles.estimators import amce_table
from political_sycophancy.profiles.population import usable_weights, weighted_positions
from political_sycophancy.shared.persona_survey import draw_personas
from political_sycophancy.shared.personas import load_schema

AGES = (1, 2, 3, 4, 1, 2, 3, 4)


def sav(tmp_path, weights) -> object:
    rows = [{"F_AGECAT": a, "F_GENDER": 1 + k % 2, "WEIGHT_W99": w}
            for k, (a, w) in enumerate(zip(AGES, weights, strict=True))]
    return write_sav(tmp_path / "w99.sav", rows)


def test_a_weight_column_of_zeros_is_refused_as_such(tmp_path):
    schema = load_schema(None)
    with pytest.raises(InputError, match=r"field 'WEIGHT_W99': no respondent has a positive weight"):
        draw_personas(sav(tmp_path, [0.0] * 8), schema, schema.choose("age,gender"), None, seed=0)


def test_an_unbounded_weight_is_refused_naming_its_row(tmp_path):
    schema = load_schema(None)
    weights = [1.0, 2.0, 1e308, 1.0, 1.5, 0.5, 1.0, 2.0]  # above any survey weight (core.io.MAX_SURVEY_WEIGHT)
    with pytest.raises(InputError, match=r"row 3, field 'WEIGHT_W99': weight 1e\+308 is outside 0 to 1e\+06"):
        draw_personas(sav(tmp_path, weights), schema, schema.choose("age,gender"), None, seed=0)
    weights = [1.0, 2.0, 5000.0, 1.0, 1.5, 0.5, 1.0, 2.0]  # bounded, but 5,000 times the median
    with pytest.raises(InputError, match=r"row 3, field 'WEIGHT_W99': weight 5000 is .* the median"):
        draw_personas(sav(tmp_path, weights), schema, schema.choose("age,gender"), None, seed=0)
    # large weights alike are bounded (the ratio is what matters): drawn as given
    draw = draw_personas(sav(tmp_path, [5e5] * 8), schema, schema.choose("age,gender"), None, seed=0)
    assert [p.weight for p in draw.personas] == [5e5] * 8


def cells(weights: list[float], seed: int = 0) -> pd.DataFrame:
    """Persona cells of a survey-like run: 12 personas with distinct levels (age x gender x
    religion), 6 items, one mode, answers by age plus noise, with the given weights; N answers 0."""
    rng = np.random.default_rng(seed)
    ages, genders = ["18_29", "30_49", "65_plus"], ["man", "woman"]
    rows = []
    for p, w in enumerate(weights):
        age, gender, religion = ages[p % 3], genders[(p // 3) % 2], ("catholic", "unaffiliated")[p // 6]
        for i in range(6):
            rows.append({"model": "m", "instrument": "pct", "scoring": "pct", "item_id": f"i{i}",
                         "persona_id": f"s{p:02d}", "cue_mode": "explicit", "persona_age": age, "persona_gender": gender,
                         "persona_religion": religion, "persona_weight": w,
                         "is_baseline": False, "ideology": ages.index(age) * 0.5 + rng.normal()})
    for i in range(6):
        rows.append({"model": "m", "instrument": "pct", "scoring": "pct", "item_id": f"i{i}", "persona_id": "N",
                     "cue_mode": "none", "persona_weight": 1.0, "is_baseline": True, "ideology": 0.0})
    return pd.DataFrame(rows)


def test_logged_weights_of_1e308_give_the_estimates_of_their_ratios():
    ratios = [1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 1.0, 2.0, 0.5, 1.0, 3.0, 1.0]
    small, huge = cells(ratios), cells([r * 1e307 for r in ratios])  # 3e307: near the largest float
    pairs = [(weighted_positions(small, draws=50, seed=1), weighted_positions(huge, draws=50, seed=1)),
             (amce_table(small)[0], amce_table(huge)[0])]
    for a, b in pairs:
        numbers = a.select_dtypes("number").columns
        assert np.allclose(a[numbers].to_numpy(dtype=float), b[numbers].to_numpy(dtype=float), equal_nan=True)
    positions, effects = pairs[0][1], pairs[1][1]
    assert np.isfinite(positions[["weighted", "gap_weighted_low", "gap_weighted_high"]].to_numpy(dtype=float)).all()
    assert (positions["gap_weighted_low"] < positions["gap_weighted_high"]).all()  # not the [0, 0] of an overflow
    assert effects["weighted"].all() and (effects["high"] > effects["low"]).all()


def test_a_persona_whose_logged_weight_is_not_positive_and_finite_is_left_out_and_counted():
    data = cells([1.0, 2.0, math.inf, 1.0, 0.0, 1.0, -1.0, 2.0, 0.5, 1.0, 3.0, 1.0])
    kept, left_out = usable_weights(data)
    assert left_out == 3 and set(kept["persona_id"]) == {f"s{p:02d}" for p in (0, 1, 3, 5, 7, 8, 9, 10, 11)} | {"N"}
