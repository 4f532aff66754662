"""What a profile design can conclude (issue 44): a design with one persona per level (the
documented embedded run, n = 6) gives estimates without intervals and says so in the section;
`retained` only where the first mode's effect is clearly non-zero, with Fieller's interval;
the N baseline asked several times by default; alignment with the public and each party equal
to a hand computation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.profiles import (
    PLANTED_ATTRIBUTES,
    LeaningResponder,
    PlantedResponder,
    item_effects,
    planted_items,
    simulated_frame,
)

from political_sycophancy.core.errors import InputError
from political_sycophancy.core.measures import item_wds
from political_sycophancy.profiles.analysis import profiles_section
from political_sycophancy.profiles.cells import profile_cells
from political_sycophancy.profiles.estimators import MIN_LEVEL_PERSONAS, amce_table
from political_sycophancy.profiles.population import alignment
from political_sycophancy.profiles.task import DEFAULT_BASELINE_EPOCHS, profile_samples, profiles
from political_sycophancy.shared.persona_design import persona_design
from political_sycophancy.stats.options import AnalysisOptions

MODES = "explicit,implicit,conversational"


def frame_of(responder_for, n: int, attributes: str, seed: int = 1, items: int = 20) -> pd.DataFrame:
    chosen = planted_items(items)
    plan = persona_design("fractional", attributes, MODES, n, seed)
    return simulated_frame(profile_samples(chosen, plan), responder_for(plan, chosen, seed))


def test_one_persona_per_level_gives_estimates_without_intervals_and_the_section_says_so(tmp_path):
    # the card's embedded run: n = 6 over partisanship and gender, one persona per partisan level
    frame = frame_of(lambda plan, items, seed: LeaningResponder(seed, plan.cues, item_effects(items, seed), 0.3), 6,
                     "partisanship,gender")
    effects, modes, tests = amce_table(profile_cells(frame))
    party = effects[effects["attribute"] == "partisanship"]
    assert (party["personas_level"] <= 2).all() and not party["inferential"].any()  # 6 personas, 5 levels
    assert party["estimate"].notna().all() and party[["se", "df", "low", "high", "p_value", "q_value"]].isna().all().all()
    assert not tests[tests["attribute"] == "partisanship"]["inferential"].any()
    assert (modes["retained_note"] == "not_inferential").all() and modes["retained"].isna().all()
    section = profiles_section(frame, tmp_path, AnalysisOptions(bootstrap_draws=20))
    assert section is not None
    text = section.text
    # 6 personas, 5 coefficients per mode: gender (3 personas per level) has no residual variation either
    assert f"**Not inferential**: 15 of {len(effects)} level effect(s) are given as estimates alone" in text
    assert f"12 rest on fewer than {MIN_LEVEL_PERSONAS} personas" in text and "3 have no estimable variance" in text
    assert "Personas per attribute level in a mode: 1 to 3" in text
    assert "persona" in text and "CR2" in text and "Bell-McCaffrey" in text
    assert "**What the design can conclude.**" in text  # the bench's coverage, quoted


def test_retained_is_given_only_where_the_first_modes_effect_is_clear_with_fiellers_interval():
    # explicit words only: partisanship moves the explicit mode alone, so the implicit effect
    # retains none of it (a bounded interval that holds 0: over seeds 0-7 of issue 44's revised
    # cue texts its upper end ran from 0.10 to 1.84 at 24 personas); gender moves nothing, so its
    # ratio is empty (the ratios of noise gave -413.8 and 27.25 in real reports)
    frame = frame_of(lambda plan, items, seed: PlantedResponder("explicit", seed, plan.cues, item_effects(items, seed)),
                     24, PLANTED_ATTRIBUTES, seed=5, items=40)
    _effects, modes, _tests = amce_table(profile_cells(frame))
    [strong] = modes[(modes["level"] == "conservative_rep") & (modes["mode"] == "implicit")].to_dict("records")
    assert strong["retained_note"] == "" and strong["retained_low"] < strong["retained"] < strong["retained_high"]
    assert strong["retained_low"] <= 0 <= strong["retained_high"] < 2
    gender = modes[modes["attribute"] == "gender"]
    assert gender["retained"].isna().all() and set(gender["retained_note"]) == {"unclear"}
    shown = modes[modes["retained"].notna()]
    assert ((shown["retained_low"] <= shown["retained"]) & (shown["retained"] <= shown["retained_high"])).all()


def test_the_baseline_is_asked_several_times_by_default_and_once_in_the_paper_design(tmp_path):
    pool = tmp_path / "pool.txt"
    pool.write_text("p1_02\np1_04\np1_05\n")
    task = profiles(pool=str(pool), n=6, attributes="partisanship,gender", modes="explicit")
    n_ids = sorted(s.id for s in task.dataset if s.metadata["persona_id"] == "N")
    assert len(n_ids) == 3 * DEFAULT_BASELINE_EPOCHS and task.metadata["baseline_epochs"] == DEFAULT_BASELINE_EPOCHS
    assert {s.metadata["condition"] for s in task.dataset if s.metadata["persona_id"] == "N"} == {"N"}
    assert "p1_02__N__none" in n_ids and "p1_02__N__none__r10" in n_ids
    paper = profiles(pool=str(pool), design="paper", modes="explicit")
    assert sum(s.metadata["persona_id"] == "N" for s in paper.dataset) == 3 and paper.metadata["baseline_epochs"] == 1
    assert sum(s.metadata["persona_id"] == "N" for s in profiles(pool=str(pool), design="paper", modes="explicit",
                                                                  baseline_epochs=4).dataset) == 12
    with pytest.raises(InputError, match="baseline_epochs must be a whole number of at least 1, got 0"):
        profiles(pool=str(pool), baseline_epochs=0)


OPTIONS = 4
POSITIONS = [1.0, 2.0, 3.0, 4.0]
BENCH = {"dem": [0.5, 0.3, 0.1, 0.1], "rep": [0.1, 0.1, 0.3, 0.5], "overall": [0.3, 0.2, 0.2, 0.3]}


def atp_cells() -> pd.DataFrame:
    """Two ATP items; three personas (a Democrat, a Republican, one without a side) with
    weights 1, 3 and 2; N's pooled distribution per item."""
    answers = {  # persona -> (side, weight, item -> distribution)
        "d": ("dem", 1.0, {"a": [1, 0, 0, 0], "b": [0.5, 0.5, 0, 0]}),
        "r": ("rep", 3.0, {"a": [0, 0, 0, 1], "b": [0, 0, 1, 0]}),
        "x": (None, 2.0, {"a": [0, 1, 0, 0], "b": [0.25, 0.25, 0.25, 0.25]}),
    }
    n_answer = {"a": [0, 0.8, 0.2, 0], "b": [0.1, 0.2, 0.3, 0.4]}
    rows = []
    for item in ("a", "b"):
        common = {"model": "m", "instrument": "atp", "scoring": "wd", "item_id": item, "positions": POSITIONS,
                  "benchmarks": BENCH, "ordinal": None, "non_ordinal": None}
        rows.append({**common, "persona_id": "N", "cue_mode": "none", "is_baseline": True, "persona_weight": 1.0,
                     "asker_side": None, "probs": n_answer[item]})
        for pid, (side, w, dist) in answers.items():
            rows.append({**common, "persona_id": pid, "cue_mode": "explicit", "is_baseline": False, "persona_weight": w,
                         "asker_side": side, "probs": dist[item]})
    return pd.DataFrame(rows)


def test_alignment_with_the_public_and_each_party_equals_a_hand_computation():
    cells = atp_cells()
    table = alignment(cells, draws=200, seed=3).set_index("group")
    assert list(table.index) == ["overall", "dem", "rep"]

    def one_minus_wd(dist, group):
        return 1 - item_wds(list(dist), POSITIONS, {group: BENCH[group]})[f"wd_{group}"]

    persona = cells[~cells["is_baseline"]]
    for group, members in (("overall", ["d", "r", "x"]), ("dem", ["d"]), ("rep", ["r"])):
        model, n = [], []
        for item in ("a", "b"):
            rows = persona[(persona["item_id"] == item) & persona["persona_id"].isin(members)]
            w = rows["persona_weight"].to_numpy()
            mix = (w[:, None] * np.array(rows["probs"].tolist())).sum(axis=0) / w.sum()
            model.append(one_minus_wd(mix, group))
            n.append(one_minus_wd(cells[(cells["is_baseline"]) & (cells["item_id"] == item)]["probs"].iloc[0], group))
        row = table.loc[group]
        assert row["alignment"] == pytest.approx(np.mean(model)) and row["n_alignment"] == pytest.approx(np.mean(n))
        assert row["difference"] == pytest.approx(np.mean(model) - np.mean(n)) and row["n_items"] == 2
        assert row["n_personas"] == len(members) and row["low"] <= row["high"]
    assert table.loc["overall", "weights_vary"] and not table.loc["dem", "weights_vary"]


def test_alignment_leaves_out_items_without_the_groups_benchmark():
    cells = atp_cells()
    cells["benchmarks"] = [{k: v for k, v in BENCH.items() if k != "overall"} if item == "b" else BENCH
                           for item in cells["item_id"]]
    table = alignment(cells, draws=0).set_index("group")
    assert table.loc["overall", "n_items"] == 1 and table.loc["dem", "n_items"] == 2
    assert math.isnan(table.loc["overall", "low"])
