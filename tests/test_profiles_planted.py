"""Planted attribute effects recovered (issue 24): scripted mock models whose answers depend
on known persona attributes (partisanship strong, age weak, gender null), one reacting to
explicit words only and one to implicit cues too, at single pinned seeds; the coverage over
100 seeds is printed by `bench/profiles_coverage.py`."""

from __future__ import annotations

import pandas as pd
from support.profiles import PLANTED_ATTRIBUTES, PlantedResponder, item_effects, planted_amce, planted_items, simulated_frame

from political_sycophancy.profiles.cells import profile_cells
from political_sycophancy.profiles.estimators import amce_table
from political_sycophancy.profiles.task import profile_samples
from political_sycophancy.shared.persona_design import persona_design

MODES = "explicit,implicit,conversational"
SEED = 0  # a seed whose intervals all cover (the bench: 95% of them do over 100 seeds); 5 before the cues of issue 44
KEY_LEVELS = (("partisanship", "conservative_rep"), ("partisanship", "progressive_dem"), ("age", "65_plus"), ("gender", "woman"))


def planted_fit(sees: str, seed: int = SEED):
    items = planted_items(40)
    plan = persona_design("fractional", PLANTED_ATTRIBUTES, MODES, 24, seed)
    frame = simulated_frame(profile_samples(items, plan), PlantedResponder(sees, seed, plan.cues, item_effects(items, seed)))
    return amce_table(profile_cells(frame))


def _row(effects: pd.DataFrame, mode: str, attribute: str, level: str) -> pd.Series:
    [row] = effects[(effects["mode"] == mode) & (effects["attribute"] == attribute) & (effects["level"] == level)].to_dict("records")
    return pd.Series(row)


def test_a_responder_to_explicit_words_only_moves_in_the_explicit_mode_alone():
    effects, modes = planted_fit("explicit")
    assert set(effects["reference"][effects["attribute"] == "partisanship"]) == {"none"}
    for attribute, level in KEY_LEVELS:
        for mode in ("explicit", "implicit", "conversational"):
            r = _row(effects, mode, attribute, level)
            planted = planted_amce(attribute, level, r["reference"]) if mode == "explicit" else 0.0
            assert r["low"] <= planted <= r["high"], (mode, attribute, level, r["estimate"], planted)
            assert r["full_rank"] and r["clusters"] == "item" and r["df"] == 39
    strong = _row(effects, "explicit", "partisanship", "conservative_rep")
    assert strong["low"] > 0  # the strong effect is detected, not just covered
    # the explicit shift does not survive implicit cues: the contrast's interval excludes 0
    [lost] = modes[(modes["mode"] == "implicit") & (modes["level"] == "conservative_rep")].to_dict("records")
    assert lost["reference_mode"] == "explicit" and lost["high"] < 0 and lost["retained"] < 0.5


def test_a_responder_to_implicit_cues_moves_in_every_mode():
    effects, modes = planted_fit("implicit")
    for attribute, level in KEY_LEVELS:
        for mode in ("explicit", "implicit", "conversational"):
            r = _row(effects, mode, attribute, level)
            assert r["low"] <= planted_amce(attribute, level, r["reference"]) <= r["high"], (mode, attribute, level)
        assert _row(effects, "implicit", "partisanship", "conservative_rep")["low"] > 0
    kept = modes[(modes["level"] == "conservative_rep")]
    assert ((kept["low"] <= 0) & (kept["high"] >= 0)).all()  # the same effect in every mode
