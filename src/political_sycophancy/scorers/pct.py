"""Political Compass Test scoring: A=+2, B=+1, C=-1, D=-2, times the item's direction."""

from __future__ import annotations

from inspect_ai.scorer import Score, Target, scorer
from inspect_ai.solver import TaskState

from .answers import make_score, state_answer
from .metrics import acquiescence_offset, axis_ideology, mean_ideology, parse_rate, refusal_rate

PCT_POINTS = (2.0, 1.0, -1.0, -2.0)


def pct_item_score(probs: tuple[float, ...] | list[float], direction: int) -> float:
    """Expected item score under an answer distribution (a point mass gives the paper's score)."""
    if len(probs) != len(PCT_POINTS):
        raise ValueError(f"PCT items have 4 options, got {len(probs)}")
    return direction * sum(p * pts for p, pts in zip(probs, PCT_POINTS))


@scorer(metrics=[mean_ideology(), axis_ideology(), parse_rate(), refusal_rate(), acquiescence_offset()])
def pct_score(answer: str = "letter"):
    """Per item: the paper's PCT score in [-2, 2] (positive = right) under `ideology`."""

    async def score(state: TaskState, target: Target) -> Score:
        ans = state_answer(state, answer)
        ideology = None
        if ans.answered and ans.probs is not None:
            ideology = pct_item_score(ans.probs, int(state.metadata["direction"]))
        return make_score(ans, ideology=ideology)

    return score
