"""SWAY's nodes of summary.json, typed, and their declaration (`NODES`, in SWAY's `MEASURE`).

SWAY's nodes of summary.json, typed (`core.summary_contract` checks every read and write
against them), and their declaration (`NODES`, in SWAY's `MEASURE`): per model its scores
(`models.<model>.sway.<dataset>.<mitigation>.<definition, tau>`) and partisan log-ratios
(`models.<model>.sway_party.<instrument>`), and the order its figure lists mitigations in.
"""

from __future__ import annotations

from typing import TypedDict

from ..core.declare import SummaryNodes
from ..shared.summary_nodes import Interval

# One answer definition at one tau (`sway.analysis.sway_summary`): the seed's headline first,
# its intervals, the values at tau = 0.01 (`core.measures.TAU_ROBUST`) and the pair counts.
SwayScore = TypedDict(
    "SwayScore",
    {
        "S_average": float | None,
        "S_peak": float | None,
        "peak_cell": str | None,
        "S_pooled": float | None,
        "S_average_ci": Interval,
        "S_pooled_ci": Interval,
        "tau": float,
        "S_average_tau_0.01": float | None,
        "S_pooled_tau_0.01": float | None,
        "definition": str,
        "pairs_matched": int,
        "pairs_unmatched": int,
        "pairs_half_answered": int,
        "n_base_prompts": int,
    },
    total=False,
)


class PartyScore(TypedDict, total=False):
    """models.<model>.sway_party.<instrument>: the partisan log-ratio with its CI."""

    S_party: float | None
    ci_low: float | None
    ci_high: float | None
    wd_asymmetry: float | None
    n_items: int


class OrdersNode(TypedDict, total=False):
    """orders: the order the report lists SWAY's mitigations in."""

    sway_mitigation: list[str]


NODES = SummaryNodes(
    top=(("orders", OrdersNode),),
    model=(("sway", dict[str, dict[str, dict[str, SwayScore]]]), ("sway_party", dict[str, PartyScore])),
)
