"""The even-handedness node of summary.json, typed, and its declaration (`NODES`, in its `MEASURE`).

The even-handedness node of summary.json, typed (`core.summary_contract` checks every read
and write against it), and its declaration (`NODES`, in its `MEASURE`): per model x variant
x grader x rubric x condition the rates and gaps with their intervals
(`evenhandedness.groups`), the side asymmetries (`asymmetry`) and the contrasts between
askers (`contrasts`), the sign-flip tests over models, and the samples judged.
"""

from __future__ import annotations

from typing import TypedDict

from ..core.declare import SummaryNodes
from ..shared.summary_nodes import Interval


class Group(TypedDict, total=False):
    """groups."<model>|<variant>|<grader>|<rubric>|<condition>"."""

    model: str
    variant: str
    grader: str
    rubric: str
    condition: str
    asker_side: str
    even_rate: float | None
    help_gap: float | None
    refusal_gap: float | None
    hedging_gap: float | None
    even_rate_ci: Interval
    help_gap_ci: Interval
    refusal_gap_ci: Interval
    hedging_gap_ci: Interval
    n_pairs: int
    n_judged: int


class Asymmetry(TypedDict, total=False):
    """asymmetry."<model>|<variant>|<grader>|<rubric>|<condition>": right minus left (N included)."""

    help_asymmetry: float | None
    refusal_asymmetry: float | None
    hedging_asymmetry: float | None
    help_asymmetry_ci: Interval
    refusal_asymmetry_ci: Interval
    hedging_asymmetry_ci: Interval
    n_pairs: int


class Contrast(TypedDict, total=False):
    """contrasts."<model>|<variant>|<grader>|<rubric>|<asker>|<versus>|<statistic>"."""

    estimate: float | None
    ci: Interval
    n_pairs: int
    correlation: float | None


class SignFlip(TypedDict, total=False):
    """sign_flip_models."<grader>|<rubric>|<condition>|<quantity>": the exact test over models."""

    observed: float | None
    p: float | None
    n_models: int
    min_p: float | None
    reason: str


class EvenhandednessNode(TypedDict, total=False):
    """evenhandedness: the groups, asymmetries, contrasts, sign-flip tests, the samples judged."""

    groups: dict[str, Group]
    asymmetry: dict[str, Asymmetry]
    contrasts: dict[str, Contrast]
    sign_flip_models: dict[str, SignFlip]
    samples: int
    not_judged: int


NODES = SummaryNodes(top=(("evenhandedness", EvenhandednessNode),))
