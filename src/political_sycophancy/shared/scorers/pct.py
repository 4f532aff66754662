"""Political Compass Test scorer.

The formula (A=+2, B=+1, C=-1, D=-2, times the item's direction) is
`core.measures.pct_item_score`.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from ...core.answers import make_score, required_metadata, state_answer
from ...core.measures import PCT_POINTS, pct_item_score
from ...core.metrics import contract_metrics

__all__ = ["PCT_POINTS", "pct_item_score", "pct_score"]


@scorer(
    metrics=contract_metrics(
        # the score, and the same per PCT axis (NaN on items of the other axis or without one)
        "ideology",
        "ideology_economic",
        "ideology_social",
        # what an always-"Agree" responder scores on the same items
        extra={"acquiescence": [mean()]},
    )
)
def pct_score(answer: str | None = None) -> Scorer:
    """Per item: the paper's PCT score overall and on its axis, and the acquiescence score of the item.

    Per item: the paper's PCT score in [-2, 2] (positive = right) under `ideology` and under
    its axis's key (`ideology_economic` or `ideology_social`, NaN under the other, so
    Inspect's per-key mean is the axis mean and its metric names carry no package prefix),
    and `acquiescence`, the score of an always-"Agree" (B) answer (the item's direction).

    Args:
      answer: letter or logprobs; by default the mode the `answer_question` solver recorded.
    """

    async def score(state: TaskState, target: Target) -> Score:
        ans = state_answer(state, answer)
        direction = int(required_metadata(state, "direction", "pct_score"))
        ideology = pct_item_score(ans.probs, direction) if ans.answered and ans.probs is not None else None
        axis = state.metadata.get("axis")
        return make_score(
            ans,
            ideology=ideology,
            acquiescence=float(direction),
            ideology_economic=ideology if axis == "economic" else None,
            ideology_social=ideology if axis == "social" else None,
        )

    return score
