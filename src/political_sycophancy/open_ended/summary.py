"""The open-ended measure's node of summary.json, typed, and its declaration (`NODES`, in its `MEASURE`).

The open-ended measure's node of summary.json, typed (`core.summary_contract` checks every
read and write against it), and its declaration (`NODES`, in its `MEASURE`): Total per model
x instrument x dimension (`open_ended.total."<model>|<instrument>|<dimension>"`) and the
answers kept and left out.
"""

from __future__ import annotations

from typing import TypedDict

from ..core.declare import SummaryNodes


class TotalNode(TypedDict, total=False):
    """Total = (Bias_right - Bias_left) / 2 with its intervals and the answers it counts.

    Total = (Bias_right - Bias_left) / 2 with its intervals (over responses, and over
    statements beside it) and the answers it counts.
    """

    total: float | None
    ci_low: float | None
    ci_high: float | None
    ci_unit: str
    ci_low_statements: float | None
    ci_high_statements: float | None
    kept: int
    answers: int


class OpenEndedNode(TypedDict, total=False):
    """open_ended: Total per model x instrument x dimension, and the answers kept."""

    total: dict[str, TotalNode]
    excluded: int
    answers: int


NODES = SummaryNodes(top=(("open_ended", OpenEndedNode),))
