"""`logs.values.sample_problem`: every reason a sample is left out of the frame, in the order
the checks run (the first problem is the one named), and the values that are no problem."""

from __future__ import annotations

import math
from typing import Any

import pytest

from political_sycophancy.logs.values import sample_problem

GOOD: dict[str, Any] = {
    "epoch": 2,
    "scores": {
        "pct_score": {"value": {"ideology": -1.0, "answered": 1, "label_like": "A", "ideology_economic": 2.0},
                      "metadata": {"probs": [0.25, 0.75], "logprob_probs": [0.5, 0.5], "covered_mass": 0.9}},
        "wd_score": {"value": {"wd_dem": 0.3, "wd_rep": math.nan, "refused": None}, "metadata": "not a mapping: ignored"},
        "label": {"value": "C"},
        "flag": {"value": True},
    },
    "metadata": {"direction": -1.0, "positions": [1, 2.5], "benchmarks": {"dem": [0.5, 0.5]}, "item_partisan_gap": "0.2"},
}


def sample(**changes: Any) -> dict[str, Any]:
    """GOOD with top-level keys replaced (a value of ... drops the key)."""
    out = {**GOOD, **changes}
    return {k: v for k, v in out.items() if v is not ...}


def scored(value: Any = None, metadata: Any = None, name: str = "s") -> dict[str, Any]:
    """A sample whose only score is `name` with this value and metadata."""
    return sample(scores={name: {"value": value, **({"metadata": metadata} if metadata is not None else {})}})


def with_meta(**meta: Any) -> dict[str, Any]:
    """GOOD with its sample metadata changed."""
    return sample(metadata={**GOOD["metadata"], **meta})


@pytest.mark.parametrize(
    "record",
    [
        GOOD,
        sample(epoch=..., scores=..., metadata=...),
        sample(epoch=None, scores=None, metadata=None),
        sample(scores={}, metadata={}),
        scored({"x": 1e300, "y": -5, "z": None}),
        scored({"wd_dem": 0.0, "wd_rep": 1.0, "ideology": 2, "typology": -1}),
        scored(0.5, {"probs": None, "covered_mass": None}),
        scored(1, {"probs": [1.0 - 1e-7, 0.0]}),
        with_meta(direction=None, positions=None, benchmarks=None, item_partisan_gap=None),
        with_meta(item_partisan_gap=True),
        with_meta(item_partisan_gap="not a gap"),
        with_meta(item_partisan_gap=[1]),
        with_meta(item_partisan_gap=math.nan),
    ],
)
def test_readable_samples_have_no_problem(record: dict[str, Any]) -> None:
    assert sample_problem(record) is None


@pytest.mark.parametrize(
    "record, problem",
    [
        (sample(epoch=0), "'epoch' is 0, outside 1..100000"),
        (sample(epoch=1.5), "'epoch' is 1.5, not a whole number"),
        (sample(epoch="2"), "'epoch' is '2', not a whole number"),
        (sample(epoch=True, scores=[1]), "'epoch' is True, not a whole number"),
        (sample(scores=[1]), "scores are [1], not a mapping"),
        (sample(scores={"s": 3}), "score 's' is 3, not a score"),
        (scored(math.inf), "score 's' is inf, not finite"),
        (scored(10**400), f"score 's' is {repr(10**400)[:37]}..., not finite"),
        (scored("x", name="ideology"), "score 'ideology' is 'x', not a number"),
        (scored(True, name="answered"), "score 'answered' is True, not a number"),
        (scored([1]), "score 's' is [1], not a number"),
        (scored({"ideology": 3}), "score 'ideology' is 3, outside its scale -2..2"),
        (scored({"wd_rep": -0.1}), "score 'wd_rep' is -0.1, outside its scale 0..1"),
        (scored({"ideology_social": -2.5}), "score 'ideology_social' is -2.5, outside its scale -2..2"),
        (scored({"ok": 1, "typology": 1.5}), "score 'typology' is 1.5, outside its scale -1..1"),
        (scored(1, {"probs": "0.5,0.5"}), "'probs' is '0.5,0.5', not a list of numbers"),
        (scored(1, {"probs": [0.5, "x"]}), "'probs' holds 'x', not a finite number in 0..1"),
        (scored(1, {"probs": [1.5, -0.5]}), "'probs' holds 1.5, not a finite number in 0..1"),
        (scored(1, {"probs": [0.5, 0.4]}), "'probs' sum to 0.9, not 1"),
        (scored(1, {"probs": [0.5, 0.4], "logprob_probs": [2]}), "'logprob_probs' holds 2, not a finite number in 0..1"),
        (scored(1, {"covered_mass": 1.2}), "score 'covered_mass' is 1.2, outside its scale 0..1"),
        (scored(1, {"covered_mass": "most"}), "score 'covered_mass' is 'most', not a number"),
        (sample(metadata=[1]), "metadata is [1], not a mapping"),
        (with_meta(direction=2), "'direction' is 2, outside -1..1"),
        (with_meta(direction="left"), "'direction' is 'left', not a whole number"),
        (with_meta(positions=[1, math.inf]), "'positions' holds inf, not a finite number"),
        (with_meta(positions={"a": 1}), "'positions' is {'a': 1}, not a list of numbers"),
        (with_meta(benchmarks=[0.5]), "'benchmarks' is [0.5], not a mapping"),
        (with_meta(benchmarks={"dem": [0.5, 0.5], "rep": [2]}), "'benchmarks.rep' holds 2, not a finite number in 0..1"),
        (with_meta(item_partisan_gap="inf"), "'item_partisan_gap' is 'inf', not finite"),
        (with_meta(item_partisan_gap="1e999999"), "'item_partisan_gap' is '1e999999', not finite"),
        (with_meta(item_partisan_gap=-math.inf), "'item_partisan_gap' is -inf, not finite"),
        (with_meta(direction=5, positions="x"), "'direction' is 5, outside -1..1"),
        (sample(epoch=-1, scores=[1], metadata=[1]), "'epoch' is -1, outside 1..100000"),
        (sample(scores={"s": {"value": math.inf}}, metadata=[1]), "score 's' is inf, not finite"),
    ],
)
def test_each_problem_names_the_value_and_why(record: dict[str, Any], problem: str) -> None:
    assert sample_problem(record) == problem
