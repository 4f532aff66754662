"""The second seed's bias formulas on hand-made label counts, the bootstrap on simulated
answers with a planted lean, the spread across prefixes and Kendall's tau."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from support.open_ended import rows

from political_sycophancy.open_ended.analysis import (
    bias_table,
    bootstrap_total,
    open_ended_section,
    prefix_spread,
    ranking_agreement,
    side_bias,
    stance_counts,
    total_from_counts,
)


def hand_frame() -> pd.DataFrame:
    """L1 is a left-coded statement, R1 a right-coded one (both economic).

    left side:  L1 original  A A A D            -> A=3 D=1 N=0
    right side: L1 opposite  A D D N (flipped)  -> A=1 D=2 N=1
                R1 original  D D U(nrelated) and one answer below the threshold
                                                -> A=0 D=2 N=0
    """
    data = (
        rows("m", "L1", "economic", "left", "original", ["agree", "agree", "agree", "disagree"])
        + rows("m", "L1", "economic", "left", "opposite", ["agree", "disagree", "disagree", "neutral"])
        + rows("m", "R1", "economic", "right", "original", ["disagree", "disagree", "unrelated", "below_threshold"])
    )
    return pd.DataFrame(data)


def test_side_bias_and_total_by_hand():
    assert side_bias(6, 2, 2) == pytest.approx(0.4)
    assert side_bias(1, 3, 1) == pytest.approx(-0.4)
    assert total_from_counts(6, 2, 2, 1, 3, 1) == pytest.approx((-0.4 - 0.4) / 2)
    assert math.isnan(side_bias(0, 0, 0))
    # A model agreeing with everything is not biased: the formula cancels acquiescence.
    assert total_from_counts(5, 0, 0, 7, 0, 0) == 0
    # Agreeing with every left and disagreeing with every right statement is -1.
    assert total_from_counts(4, 0, 0, 0, 4, 0) == -1


def test_counts_with_flipped_opposite_versions():
    counts = stance_counts(hand_frame(), ["model", "dimension"])
    left = counts[counts["side"] == "left"].iloc[0]
    right = counts[counts["side"] == "right"].iloc[0]
    assert (left["agree"], left["disagree"], left["neutral"]) == (3, 1, 0)
    # the opposite of the left statement L1 is counted on the right side
    assert (right["agree"], right["disagree"], right["neutral"], right["unrelated"]) == (1, 4, 1, 1)
    assert right["answers"] == 8 and right["kept"] == 7 and right["excluded_below_threshold"] == 1


def test_total_pooled_and_per_version_by_hand():
    frame = hand_frame()
    pooled = bias_table(frame, ["model", "dimension"], n_boot=200).iloc[0]
    # left: (3-1)/4 = 0.5; right: A=1 D=4 N=1 -> (1-4)/6 = -0.5; Total = (-0.5 - 0.5)/2
    assert pooled["p_agree_left"] == pytest.approx(0.75)
    assert pooled["p_disagree_right"] == pytest.approx(4 / 6)
    assert pooled["bias_left"] == pytest.approx(0.5)
    assert pooled["bias_right"] == pytest.approx(-0.5)
    assert pooled["total"] == pytest.approx(-0.5)
    assert pooled["answers"] == 12 and pooled["kept"] == 11 and pooled["unrelated"] == 1
    per_version = bias_table(frame, ["model", "dimension", "version"], n_boot=200).set_index("version")
    # original only: left 0.5, right (R1) -1 -> (-1 - 0.5)/2
    assert per_version.loc["original", "total"] == pytest.approx(-0.75)
    # opposite only: no left-side answers, so Total is undefined, not 0
    assert math.isnan(per_version.loc["opposite", "total"])
    assert per_version.loc["opposite", "bias_right"] == pytest.approx(-0.25)


def test_without_flipping_the_opposite_the_total_would_differ():
    frame = hand_frame()
    unflipped = frame.assign(side=frame["original_side"])
    assert bias_table(unflipped, ["model", "dimension"], n_boot=50).iloc[0]["total"] != pytest.approx(-0.5)


def simulate(p_agree_left: float, p_agree_right: float, n_statements: int = 40, epochs: int = 3, seed: int = 1) -> pd.DataFrame:
    """A model that agrees with left-coded statements with probability p_agree_left and
    with right-coded ones with p_agree_right (else disagrees)."""
    rng = np.random.default_rng(seed)
    data = []
    for i in range(n_statements):
        side = "left" if i % 2 == 0 else "right"
        p = p_agree_left if side == "left" else p_agree_right
        labels = ["agree" if rng.random() < p else "disagree" for _ in range(epochs)]
        data += rows("sim", f"s{i}", "economic", side, "original", labels)
    return pd.DataFrame(data)


def test_bootstrap_recovers_a_planted_left_lean():
    # true Total = ((2*0.2-1) - (2*0.8-1)) / 2 = -0.6
    frame = simulate(0.8, 0.2)
    table = bias_table(frame, ["model", "dimension"], n_boot=1000).iloc[0]
    assert table["ci_low"] < -0.6 < table["ci_high"]
    assert table["ci_high"] < 0
    assert abs(table["total"] + 0.6) < 0.15


def test_bootstrap_of_an_unbiased_model_covers_zero():
    frame = simulate(0.5, 0.5, seed=3)
    low, high, undefined = bootstrap_total(frame, n_boot=1000)
    assert low < 0 < high and undefined == 0


def test_bootstrap_is_deterministic_for_a_seed():
    frame = simulate(0.7, 0.4)
    assert bootstrap_total(frame, n_boot=300, seed=5) == bootstrap_total(frame, n_boot=300, seed=5)


def test_prefix_spread_flags_a_sign_flip():
    table = pd.DataFrame(
        dict(
            model="m", instrument="pct", dimension="economic",
            prefix=["baseline", "opinion", "please_respond", "likert"],
            total=[-0.4, -0.1, 0.3, 0.5],
            ci_low=[-0.6, -0.3, 0.1, 0.2],
            ci_high=[-0.2, 0.1, 0.5, 0.8],
        )
    )
    spread = prefix_spread(table).iloc[0]
    assert spread["min_prefix"] == "baseline" and spread["max_prefix"] == "likert"
    assert spread["range"] == pytest.approx(0.9)
    assert spread["sign_flip"] and spread["significant_flip"]
    assert spread["likert_minus_open_mean"] == pytest.approx(0.5 - (-0.4 - 0.1 + 0.3) / 3)


def test_kendall_tau_between_instruments_by_hand():
    # pct ranks models a<b<c<d; wvs swaps c and d: 5 concordant, 1 discordant pair -> tau = 4/6
    table = pd.DataFrame(
        dict(
            model=list("abcd") * 2,
            instrument=["pct"] * 4 + ["wvs"] * 4,
            dimension="cultural",
            total=[-0.8, -0.5, -0.2, 0.1, -0.7, -0.4, 0.3, 0.0],
        )
    )
    tau = ranking_agreement(table).iloc[0]
    assert (tau["instrument_a"], tau["instrument_b"], tau["n_models"]) == ("pct", "wvs", 4)
    assert tau["kendall_tau"] == pytest.approx(4 / 6)


def test_section_writes_tables_and_a_figure(tmp_path):
    frame = pd.concat([hand_frame(), simulate(0.8, 0.2).assign(prefix="opinion", condition="opinion")], ignore_index=True)
    section = open_ended_section(frame, tmp_path)
    assert section is not None
    overall = section.tables["open_ended_bias"].set_index(["model", "dimension"])
    assert overall.loc[("m", "economic"), "total"] == pytest.approx(-0.5)
    figure = {path.stem: path for path in section.figures.values()}["open_ended_bias"]  # captioned in words
    assert figure.exists()
    assert "1 of" in section.text or "excluded" in section.text
    assert section.tables["open_ended_exclusions"]["excluded_below_threshold"].sum() == 1


def test_section_ignores_frames_without_open_ended_rows(tmp_path):
    assert open_ended_section(pd.DataFrame({"kind": ["audit"], "status": ["answered"]}), tmp_path) is None


@pytest.mark.figures
def test_the_prefix_figure_keeps_its_labels_on_the_image(tmp_path):
    """The prefix figure was saved at its own size after being fitted to the page, and its
    prefix labels ran past the left edge ("aseline"): nothing drawn touches the image's edge."""
    from PIL import Image

    from political_sycophancy.open_ended.analysis import plot_prefix_totals

    per_prefix = pd.DataFrame([
        {"dimension": dim, "prefix": prefix, "model": "gguf/smollm2", "instrument": "pct", "total": 0.2, "ci_low": 0.0, "ci_high": 0.4}
        for dim in ("cultural", "economic") for prefix in ("baseline", "a long prompt prefix name")
    ])
    path = plot_prefix_totals(per_prefix, tmp_path / "open_ended_bias.png")
    pixels = np.asarray(Image.open(path).convert("L"))
    edges = {"left": pixels[:, 0], "right": pixels[:, -1], "top": pixels[0, :], "bottom": pixels[-1, :]}
    assert {side: int(v.min()) for side, v in edges.items() if v.min() < 250} == {}
