"""Political Compass Test scorer; the formula (A=+2, B=+1, C=-1, D=-2, times the item's
direction) is `core.measures.pct_item_score`."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from ...core.answers import make_score, required_metadata, state_answer
from ...core.measures import PCT_POINTS, pct_item_score
from ...core.metrics import by_axis, contract_metrics

__all__ = ["PCT_POINTS", "pct_item_score", "pct_score"]

@scorer(
    metrics=contract_metrics(
        "ideology",
        extra={
            # per axis (economic, social) over answered items
            "ideology": [by_axis()],
            # what an always-"Agree" responder scores on the same items
            "acquiescence": [mean()],
        },
    )
)
def pct_score(answer: str | None = None) -> Scorer:
    """Per item: the paper's PCT score in [-2, 2] (positive = right) under `ideology`, and
    `acquiescence`, the score of an always-"Agree" (B) answer (the item's direction).

    Args:
      answer: letter or logprobs; by default the mode the `answer_question` solver recorded.
    """

    async def score(state: TaskState, target: Target) -> Score:
        ans = state_answer(state, answer)
        direction = int(required_metadata(state, "direction", "pct_score"))
        ideology = pct_item_score(ans.probs, direction) if ans.answered and ans.probs is not None else None
        return make_score(ans, ideology=ideology, acquiescence=float(direction))

    return score
