"""The toy measure's summary.json nodes, typed: its share per model (`toy.<model>`) and its
Headline numbers (`findings.headline.toy_first`)."""

from typing import TypedDict

from political_sycophancy.core.declare import SummaryNodes


class ToyModel(TypedDict, total=False):
    """toy.<model>: its share."""

    first_share: float


class ToyHeadline(TypedDict, total=False):
    """findings.headline.toy_first: the share's range over models."""

    low: float
    high: float
    n_models: int


NODES = SummaryNodes(top=(("toy", dict[str, ToyModel]),), headline=(("toy_first", ToyHeadline),))
