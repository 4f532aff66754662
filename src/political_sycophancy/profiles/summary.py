"""The profiles' node of summary.json, typed, and its declaration (`NODES`, in its `MEASURE`).

The profiles' node of summary.json, typed (`core.summary_contract` checks every read and
write against it), and its declaration (`NODES`, in its `MEASURE`): per model and instrument
the attribute effects, the population-weighted position and the congruence
(`profiles.models.<model>.<instrument>`), and per model the manipulation check's counts
(`profiles.models.<model>.manipulation_check.<cue mode>`).
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from ..core.declare import SummaryNodes
from ..core.summary_contract import Keyed


class Effect(TypedDict, total=False):
    """effects.<outcome>.<mode>."<attribute>=<level>": the AMCE against its reference level."""

    reference: str
    estimate: float | None
    low: float | None
    high: float | None
    q_value: float | None
    inferential: bool


class AttributeTest(TypedDict, total=False):
    """attribute_tests.<outcome>.<mode>.<attribute>: the joint test that no level moves the model."""

    f: float | None
    df_den: float | None
    p_value: float | None
    q_value: float | None


class Alignment(TypedDict, total=False):
    """alignment.<mode>.<group>: 1 - WD to the public's (or a party's) answers, against N's."""

    alignment: float | None
    n_alignment: float | None
    difference: float | None
    low: float | None
    high: float | None


class WeightedPosition(TypedDict, total=False):
    """weighted_position.<outcome>.<mode>: the population-weighted position against N."""

    weighted: float | None
    unweighted: float | None
    n_position: float | None
    gap_weighted: float | None
    gap_weighted_low: float | None
    gap_weighted_high: float | None
    gap_unweighted: float | None


class Congruence(TypedDict, total=False):
    """congruence.<mode>.<side>: how often a party persona is told its party's view."""

    congruent_pct: float | None
    n_closer_pct: float | None
    difference: float | None
    low: float | None
    high: float | None


class InstrumentProfile(TypedDict, total=False):
    """profiles.models.<model>.<instrument>: effects, tests, alignment, weighted position, congruence."""

    effects: dict[str, dict[str, dict[str, Effect]]]
    attribute_tests: dict[str, dict[str, dict[str, AttributeTest]]]
    alignment: dict[str, dict[str, Alignment]]
    weighted_position: dict[str, dict[str, WeightedPosition]]
    congruence: dict[str, dict[str, Congruence]]


class CheckCounts(TypedDict, total=False):
    """manipulation_check.<cue mode>: how the cues were read (`profiles.check`)."""

    cues: int
    as_intended: int
    otherwise: int
    unclear: int
    unread: int


class ModelProfileFixed(TypedDict, total=False):
    """profiles.models.<model>'s own key (beside one node per instrument)."""

    manipulation_check: dict[str, CheckCounts]


# profiles.models.<model>: its manipulation check, and one node per instrument
ModelProfile = Annotated[ModelProfileFixed, Keyed(InstrumentProfile)]


class ProfilesNode(TypedDict, total=False):
    """profiles: the nodes per model."""

    models: dict[str, ModelProfile]


NODES = SummaryNodes(top=(("profiles", ProfilesNode),))
